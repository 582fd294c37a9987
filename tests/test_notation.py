"""Move notations: Keke letters and arrow runs."""

from __future__ import annotations

import random

import pytest

from babasolver.errors import BabaError
from babasolver.notation import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    WAIT,
    parse_solution,
    runs,
    to_arrows,
    to_keke,
)


def test_constants():
    assert (UP, DOWN, LEFT, RIGHT, WAIT) == (0, 1, 2, 3, 4)


def test_to_keke():
    assert to_keke([]) == ""
    assert to_keke([0, 1, 2, 3, 4]) == "udlrs"
    assert to_keke([3, 3, 0]) == "rru"


def test_to_arrows():
    seq = [RIGHT] * 6 + [LEFT] * 3 + [DOWN] + [RIGHT] * 5 + [UP]
    assert to_arrows(seq) == "6→ 3← 1↓ 5→ 1↑"
    assert to_arrows([WAIT, WAIT, RIGHT]) == "2s 1→"
    assert to_arrows([]) == ""
    assert runs([1, 1, 4]) == [(1, 2), (4, 1)]


def test_invalid_actions_rejected():
    with pytest.raises(ValueError):
        to_keke([5])
    with pytest.raises(ValueError):
        to_arrows([-1])
    with pytest.raises(ValueError):
        to_keke([True])


def test_parse_keke_letters():
    assert parse_solution("") == []
    assert parse_solution("udlrs") == [0, 1, 2, 3, 4]
    assert parse_solution("UDLRS") == [0, 1, 2, 3, 4]
    assert parse_solution(" r r\n\tU ") == [3, 3, 0]


def test_parse_arrows():
    assert parse_solution("6→ 3← 1↓ 5→ 1↑") == [3] * 6 + [2] * 3 + [1] + [3] * 5 + [0]
    assert parse_solution("2s 1→") == [4, 4, 3]
    assert parse_solution("→→↓") == [3, 3, 1]
    assert parse_solution("3> 2< ^ v") == [3, 3, 3, 2, 2, 0, 1]
    assert parse_solution("10r") == [3] * 10
    assert parse_solution("2r, 1u") == [3, 3, 0]


def test_parse_whitespace_only():
    assert parse_solution("  \n ") == []


@pytest.mark.parametrize("seed", range(20))
def test_round_trips(seed):
    rng = random.Random(seed)
    actions = [rng.randrange(5) for _ in range(rng.randrange(0, 60))]
    # make long runs likely too
    actions += [rng.randrange(5)] * rng.randrange(0, 15)
    assert parse_solution(to_keke(actions)) == actions
    assert parse_solution(to_arrows(actions)) == actions
    assert parse_solution(to_keke(actions).upper()) == actions
    assert to_keke(parse_solution(to_arrows(actions))) == to_keke(actions)


@pytest.mark.parametrize("text", ["rrus", "6→ 3← 1↓ 5→ 1↑", "RRUUULUULURL", "2s 12←"])
def test_text_round_trips(text):
    actions = parse_solution(text)
    assert parse_solution(to_arrows(actions)) == actions
    assert parse_solution(to_keke(actions)) == actions


@pytest.mark.parametrize("text, char, pos", [
    ("rrx", "'x'", 3),
    ("uu dq", "'q'", 5),
    ("6→ 3? 1↓", "'?'", 5),
    ("3 r", "' '", 2),          # a count must be followed directly by its direction
    ("r2x", "'x'", 3),
])
def test_parse_errors_name_char_and_position(text, char, pos):
    with pytest.raises(BabaError) as info:
        parse_solution(text)
    message = str(info.value)
    assert char in message
    assert f"position {pos}" in message
    assert "\n" not in message


def test_parse_count_errors():
    with pytest.raises(BabaError, match="count 3 at position 4 is not followed by a direction"):
        parse_solution("rr 3")
    with pytest.raises(BabaError, match="count 0 at position 1 must be at least 1"):
        parse_solution("0r")
    with pytest.raises(BabaError, match="larger than"):
        parse_solution("99999999999r")


def test_a_solution_has_at_most_max_moves():
    from babasolver.notation import MAX_MOVES, Action

    assert len(parse_solution(f"{MAX_MOVES}r")) == MAX_MOVES
    assert parse_solution("0" * 5000 + "2r") == [Action.RIGHT] * 2     # leading zeros are no digits
    with pytest.raises(BabaError, match="more than 1,000,000 moves .* at position 9"):
        parse_solution("999999r 2l")
    with pytest.raises(BabaError, match=r"count 99999999999999999\.\.\. \(4301 digits\) at position 2"):
        parse_solution("r" + "9" * 4301 + "r")
