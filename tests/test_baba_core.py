"""The Cython engine of the commercial game's rules (`--rules baba`): the
§10 scenarios of RULES-baba.md, a differential test against the pure-Python
reference engine on random maps, and the game's first two levels solved."""
from __future__ import annotations

import random
from typing import Any, Tuple

import pytest
from hypothesis import HealthCheck, example, given, settings, strategies as st

from baba_scenarios import SCENARIOS, Check, Scenario, asserted, play
from babasolver import tiles
from babasolver.game import Simulation, replay
from babasolver.level import Level, load_level, played_by
from babasolver.notation import parse_solution
from babasolver.reference_baba import BabaReferenceSimulation
from babasolver.rulesets import core_level
from babasolver.satisfice import first_solution
from babasolver.solver import solve
from babasolver.status import Status

#: Turns the differential test compared (reported at the end of the run).
TURNS_COMPARED = [0]


def game(level: Level) -> Simulation:
    return Simulation(played_by(level, "baba"))


def judged(level: Level) -> Simulation:
    return Simulation(played_by(level, "keke"))


GAME_CHECKS = [pytest.param(s, c, id=f"{s.tag}-{c.moves}") for s in SCENARIOS for c in s.game if asserted(c)]
KEKE_CHECKS = [pytest.param(s, c, id=f"{s.tag}-{c.moves}",
                            marks=() if s.keke_playable else pytest.mark.xfail(reason=s.note, strict=True))
               for s in SCENARIOS for c in s.keke if asserted(c)]


@pytest.mark.parametrize("scenario, check", GAME_CHECKS)
def test_scenario_on_the_core(scenario: Scenario, check: Check):
    assert play(game, scenario, check) == []


@pytest.mark.parametrize("scenario, check", KEKE_CHECKS)
def test_the_documents_keke_outcomes_on_the_keke_core(scenario: Scenario, check: Check):
    """The same maps under --rules keke give the judge's outcomes (the
    document's words on the judge), on the Cython core as on its reference."""
    assert play(judged, scenario, check) == []


# --------------------------------------------------------- differential

# The rules random maps are built from, chosen so that they reach what the
# issue names: stacks (YOU objects meeting), YOU+MOVE, several MOVE rules,
# transformations to two targets, SINK on texts, HOT/MELT and DEFEAT.
NOUNS = ("BABA", "ROCK", "FLAG", "KEKE", "WALL")
PROPERTIES = ("YOU", "WIN", "STOP", "PUSH", "MOVE", "KILL", "SINK", "HOT", "MELT")
KITS = (
    [("BABA", "YOU"), ("BABA", "MOVE")],
    [("KEKE", "MOVE"), ("KEKE", "MOVE"), ("BABA", "YOU")],
    [("ROCK", "FLAG"), ("ROCK", "KEKE"), ("BABA", "YOU")],
    [("ROCK", "SINK"), ("BABA", "YOU"), ("FLAG", "PUSH")],
    [("LAVA", "HOT"), ("BABA", "MELT"), ("BABA", "YOU"), ("KEKE", "MELT")],
    [("SKULL", "KILL"), ("BABA", "YOU"), ("SKULL", "MOVE")],
    [("BABA", "YOU"), ("KEKE", "YOU"), ("WALL", "STOP"), ("FLAG", "WIN")],
    [("BABA", "YOU"), ("ROCK", "PUSH"), ("ROCK", "STOP"), ("KEKE", "MOVE")],
)


def _text(word: str) -> int:
    return getattr(tiles, f"{word}_TEXT")


def random_level(rng: random.Random) -> Level:
    width, height = rng.randint(6, 9), rng.randint(5, 8)
    grid = [tiles.EMPTY] * (width * height)
    facings = [0] * (width * height)
    rules = list(rng.choice(KITS)) + [(rng.choice(NOUNS), rng.choice(PROPERTIES + NOUNS))
                                      for _ in range(rng.randint(0, 2))]
    for left, right in rules:
        for _ in range(20):
            across = rng.random() < 0.6
            x = rng.randrange(width - (2 if across else 0))
            y = rng.randrange(height - (0 if across else 2))
            cells = [(x + k, y) if across else (x, y + k) for k in range(3)]
            if all(grid[cy * width + cx] == tiles.EMPTY for cx, cy in cells):
                for (cx, cy), tile in zip(cells, (_text(left), tiles.IS_TEXT, _text(right))):
                    grid[cy * width + cx] = tile
                break
    nouns = [getattr(tiles, left) for left, _ in rules] + [getattr(tiles, n) for n in NOUNS]
    for _ in range(rng.randint(4, 12)):
        cell = rng.randrange(width * height)
        if grid[cell] == tiles.EMPTY:
            grid[cell] = rng.choice(nouns)
            facings[cell] = rng.randint(1, 4)
    return Level("random", width, height, tuple(grid), tuple(facings), rules="baba")


def view(sim: Any) -> Tuple[Any, ...]:
    """The position as a multiset: the order of objects and rules is one of
    the order-dependent points RULES-baba.md leaves open (§2, §4.9, U5)."""
    return (sorted(sim.objects()), sorted(sim.texts()), sorted(sim.rules()), bool(sim.won), sim.illegal)


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**32 - 1))
# Maps on which the two engines once took movers in another order, and the
# last of two pushes of one text in opposite directions differed (§4.9): the
# core read rules by their `is` (35183897), made the objects of several
# transforming nouns in object order (50553), or let only a thing's last
# pending move free the way along a line (68955).
@example(35183897)
@example(50553)
@example(68955)
def test_the_core_plays_as_the_reference(seed: int):
    rng = random.Random(seed)
    level = random_level(rng)
    core, reference = Simulation(level), BabaReferenceSimulation(level)
    assert view(core) == view(reference)
    for turn in range(30):
        action = rng.choice((0, 1, 2, 3, 3, 4))
        core.step(action)
        reference.step(action)
        if core.illegal is not None:
            # The engine's room for things (transformations can multiply
            # objects every turn); the reference has no such limit.
            assert "more than the" in core.illegal and len(reference.objects()) > len(level.grid)
            break
        TURNS_COMPARED[0] += 1
        assert view(core) == view(reference), (turn, action, level.to_text())
        # The core's `dead` prunes the search: it must never call a position
        # dead that can still produce a YOU object (the reference's is exact).
        assert not core.dead or reference.dead
        if core.won:
            break


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1))
@example(9027581)
def test_records_are_canonical(seed: int):
    """Equal positions give equal bytes, and a record plays on as its position."""
    rng = random.Random(seed)
    level = random_level(rng)
    sim, other = Simulation(level), Simulation(level)
    for _ in range(12):
        action = rng.randrange(5)
        record = sim.pack()
        other.unpack(record)
        assert other.pack() == record
        sim.step(action)
        other.step(action)
        if sim.illegal is not None:
            # Past the engine's room for things (transformations can
            # multiply objects every turn): the game cannot go on. One seed
            # in some 17,000 gets there (9027581); stepping on raised.
            assert other.illegal == sim.illegal
            break
        # Facings are part of a record only where some text can make a MOVE rule.
        assert other.pack() == sim.pack()
        assert sorted(t[:3] for t in other.objects()) == sorted(t[:3] for t in sim.objects())
        assert view(other)[1:] == view(sim)[1:]
        if sim.won:
            break


# ------------------------------------------------------------ the levels


def test_level_00_is_solved_in_8_proven(repo_root):
    result = solve(load_level(repo_root / "levels" / "00", rules="baba"), mode="shortest", threads=1)
    assert result.status == Status.SOLVED and result.proven_shortest and len(result.solution) == 8


def test_level_01_community_solution_wins_at_19(repo_root):
    level = load_level(repo_root / "levels" / "01", rules="baba")
    assert replay(level, parse_solution("ullllllluuurrddrrrr")).won_at == 19
    assert not replay(load_level(repo_root / "levels" / "01"), parse_solution("ullllllluuurrddrrrr")).won


def test_level_01_is_solved_in_19_proven(repo_root):
    level = load_level(repo_root / "levels" / "01", rules="baba")
    result = solve(level, mode="shortest", threads=2)
    assert result.status == Status.SOLVED and result.proven_shortest
    assert len(result.solution) == 19 and replay(level, result.solution).won_at == 19


def test_the_satisficing_searches_solve_under_the_game_rules(repo_root):
    level = load_level(repo_root / "levels" / "01", rules="baba")
    found = first_solution(core_level(level), 2_000_000, None)
    assert found.solution is not None and replay(level, found.solution).won_at == len(found.solution)


def test_a_level_of_the_game_rules_refuses_the_judge(capsys, repo_root):
    from babasolver.cli import main

    code = main(["check", str(repo_root / "levels" / "00"), "rrrrrrrr", "--rules", "baba",
                 "--judge", "../shared/keke-reference"])
    err = capsys.readouterr().err
    assert code == 2 and "--judge plays the keke rules" in err and len(err.strip().splitlines()) == 1
