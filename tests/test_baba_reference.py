"""The pure-Python engine of the commercial game's rules (RULES-baba.md):
the §10 scenarios, the rule details §10 does not cover, the Simulation
interface, and the game's first two levels."""

from __future__ import annotations

from typing import Dict, List, Optional, Sequence, Tuple

import pytest

from baba_scenarios import SCENARIOS, SETTLED, Check, Scenario, asserted, mismatches, play
from babasolver import tiles
from babasolver.level import FACING_WORDS, Level, level_from_ascii, read_folder
from babasolver.notation import Action, parse_solution, to_keke
from babasolver.reference import ReferenceSimulation
from babasolver.reference_baba import PROPERTIES, WORDS, BabaReferenceSimulation

Engine = BabaReferenceSimulation


def level(rows: Sequence[str], facings: Optional[Dict[Tuple[int, int], str]] = None) -> Level:
    """A map in Keke characters; `facings` gives some cells' facing words."""
    base = level_from_ascii("\n".join(rows))
    given = {cell: FACING_WORDS[word] for cell, word in (facings or {}).items()}
    cells = tuple(given.get((i % base.width, i // base.width), 0) for i in range(len(base.grid)))
    return Level(base.name, base.width, base.height, base.grid, cells)


def played(rows: Sequence[str], moves: str, facings: Optional[Dict[Tuple[int, int], str]] = None) -> Engine:
    sim = Engine(level(rows, facings))
    for letter in moves:
        sim.step(Action.from_letter(letter))
    return sim


def at(sim: Engine, x: int, y: int) -> List[Tuple[str, int]]:
    """(keke char, facing) of every object on a cell, sorted; texts face 0."""
    found = [(tiles.KEKE_CHARS[t], f) for t, ox, oy, f, _ in sim.objects() if (ox, oy) == (x, y)]
    found += [(tiles.KEKE_CHARS[t], 0) for t, ox, oy, _ in sim.texts() if (ox, oy) == (x, y)]
    return sorted(found)


def rule_words(sim: Engine) -> List[str]:
    return [f"{tiles.WORDS[a]} is {tiles.WORDS[b]}" for a, b in sim.rules()]


UP, DOWN, LEFT, RIGHT = (FACING_WORDS[w] for w in ("up", "down", "left", "right"))


# ------------------------------------------------------ §10 scenarios


def test_the_scenarios_are_all_of_section_10():
    tags = [s.tag for s in SCENARIOS]
    expected = [f"T{n:02d}" for n in range(1, 21)]
    for split in ("T03", "T09"):
        i = expected.index(split)
        expected[i:i + 1] = [split + "a", split + "b"]
    assert tags == expected
    for s in SCENARIOS:
        assert s.game and s.source and len({len(row) for row in s.rows}) == 1, s.tag
        built = s.level()
        for x, y, _word in s.facings:
            assert tiles.IS_OBJECT[built.tile_at(x, y)], f"{s.tag}: a facing is stated for ({x}, {y})"
        for i, tile in enumerate(built.grid):       # every object carries its facing: no default needed
            assert (built.facings[i] != 0) == bool(tiles.IS_OBJECT[tile]), s.tag


GAME_CHECKS = [pytest.param(s, c, id=f"{s.tag}-{c.moves}") for s in SCENARIOS for c in s.game if asserted(c)]


@pytest.mark.parametrize("scenario, check", GAME_CHECKS)
def test_scenario_as_rules_baba_expects(scenario: Scenario, check: Check):
    assert play(Engine, scenario, check) == []


def test_checks_name_the_open_points_they_rest_on():
    leaning = {(s.tag, c.moves): c.relies_on for s in SCENARIOS for c in s.game if c.relies_on}
    assert leaning == {("T11", "l"): ("U2",), ("T15", "r"): ("U1",)}
    assert set(SETTLED) == {"U1", "U2"}
    # No §10 expectation rests on a point RULES-baba.md marks UNCONFIRMED.
    assert len(GAME_CHECKS) == sum(len(s.game) for s in SCENARIOS)


KEKE_CHECKS = [pytest.param(s, c, id=f"{s.tag}-{c.moves}",
                            marks=() if s.keke_playable else pytest.mark.xfail(strict=True, reason=s.note))
               for s in SCENARIOS for c in s.keke]


@pytest.mark.parametrize("scenario, check", KEKE_CHECKS)
def test_the_documents_keke_outcomes_on_the_judges_reference(scenario: Scenario, check: Check):
    """The same data on the judge's rules: the document's Keke outcomes hold,
    except the four whose note says why the judge cannot show them."""
    assert play(ReferenceSimulation, scenario, check) == []


def test_the_checker_reports_what_differs():
    t20 = next(s for s in SCENARIOS if s.tag == "T20")
    sim = Engine(t20.level())
    sim.step(Action.from_letter("r"))
    assert mismatches(sim, t20.game[0], 7) == []
    wrong = Check("r", ((3, "_b.w.._"),), faces=((2, 3, "b", "up"),), holds=((4, 3, "w"),), won=True)
    assert mismatches(sim, wrong, 7) == [
        "row 3: expected .b.w..., got ..(bb)w...",
        "'b' at (2, 3): expected facing up, got ['right', 'right']",
        "(4, 3): expected at least 'w', got ''",
        "won: expected True, got False",
    ]


# ----------------------------------------------- the interface and a position


def test_words_are_the_implemented_property_texts():
    assert WORDS == ("you", "win", "stop", "push", "move", "kill", "sink", "hot", "melt")
    assert all(tiles.IS_PROPERTY_TEXT[p] for p in PROPERTIES)


def test_views_hide_nothing_and_no_turn_is_illegal():
    sim = played(["B12", "bb.", "b.."], "rr")
    assert all(hidden is False for *_, hidden in sim.objects())
    assert all(hidden is False for *_, hidden in sim.texts())
    assert sim.illegal is None and not sim.won and not sim.dead
    assert sorted((x, y) for _, x, y, _, _ in sim.objects()) == [(2, 1), (2, 1), (2, 2)]


def test_objects_without_a_facing_face_right_and_given_ones_are_kept():
    sim = Engine(level(["B12", "bk."], {(1, 1): "down"}))
    assert [(tiles.KEKE_CHARS[t], f) for t, _, _, f, _ in sim.objects()] == [("b", RIGHT), ("k", DOWN)]
    assert Engine(level_from_ascii("b")).objects()[0][3] == RIGHT


def test_a_facing_from_a_level_folder_drives_a_move_object(tmp_path):
    folder = tmp_path / "lvl"
    folder.mkdir()
    (folder / "tiles.txt").write_text("K keke text\nI is text\nM move text\nk keke up\n. empty\n")
    (folder / "content.txt").write_text("KIM\n...\n.k.\n")
    sim = Engine(read_folder(folder))
    sim.step(Action.WAIT)
    assert at(sim, 1, 1) == [("k", UP)]


def test_actions_are_checked():
    with pytest.raises(ValueError):
        Engine(level(["b"])).step(5)


def test_pack_round_trip_and_equal_positions_give_equal_bytes():
    rows = ["B12....", ".......", ".b.....", "......."]
    one, two = played(rows, "rur"), played(rows, "urr")
    assert one.pack() == two.pack()
    assert one.pack() != played(rows, "rru").pack()           # same cell, other facing
    copy = Engine(level(rows))
    copy.unpack(one.pack())
    assert (copy.objects(), copy.texts(), copy.rules()) == (one.objects(), one.texts(), one.rules())
    for sim in (one, copy):
        sim.step(Action.DOWN)
    assert copy.pack() == one.pack()


def test_unpack_rejects_what_pack_cannot_make():
    sim = Engine(level(["b"]))
    for bad in (b"", b"\x01", b"\x02\x00\x01\x00"):
        with pytest.raises(ValueError):
            sim.unpack(bad)


def test_unpack_forgets_the_win():
    sim = played(["B12", "F13", "bf."], "r")
    assert sim.won
    sim.unpack(sim.pack())
    assert not sim.won


# ---------------------------------------------------------------- rules (§2)


def test_rules_read_rows_then_columns_by_the_first_text():
    sim = Engine(level(["B12", "1..", "3.."]))
    assert rule_words(sim) == ["baba is you", "baba is win"]


def test_a_chain_gives_both_rules_and_other_arrangements_nothing():
    assert rule_words(Engine(level(["K1R12"]))) == ["keke is rock", "rock is you"]
    assert rule_words(Engine(level(["BB12"]))) == ["baba is you"]
    assert rule_words(Engine(level(["213", "112"]))) == []


def test_stacked_texts_give_every_combination_and_duplicates_stay():
    stacked = Engine(level(["B12", "...", "K.."]))
    stacked.unpack(_moved(stacked, tiles.KEKE_TEXT, (0, 0)))      # KEKE text on the BABA text
    assert rule_words(stacked) == ["baba is you", "keke is you"]
    twice = Engine(level(["K17", "K17", "k.."]))
    assert rule_words(twice) == ["keke is move", "keke is move"]


def _moved(sim: Engine, tile: int, cell: Tuple[int, int]) -> bytes:
    """A packed position with the first thing of a tile moved to a cell: the
    stacks a map cannot draw."""
    other = sim.copy()
    thing = next(t for t in other._objects + other._texts if t.tile == tile)
    thing.x, thing.y = cell
    return other.pack()


# ------------------------------------------------------ movement details (§4)


def test_a_move_object_blocked_both_ways_stays_facing_back():
    sim = played(["R17", "wrw", "W16"], "s")
    assert at(sim, 1, 1) == [("r", LEFT)]
    sim.step(Action.WAIT)
    assert at(sim, 1, 1) == [("r", RIGHT)]


def test_a_push_moves_the_whole_chain_or_nothing():
    rows = ["B12...", "R15...", "brr...", "......"]
    assert [x for t, x, y, _, _ in played(rows, "r").objects()] == [1, 2, 3]
    assert [x for t, x, y, _, _ in played(rows, "rrr").objects()] == [3, 4, 5]
    assert [x for t, x, y, _, _ in played(rows, "rrrr").objects()] == [3, 4, 5]    # the edge stops it


def test_a_pushed_text_moves_like_any_pushable():
    sim = played(["B12..", "bF..."], "r")
    assert at(sim, 1, 1) == [("b", RIGHT)] and at(sim, 2, 1) == [("F", 0)]


def test_a_win_can_come_on_a_wait_turn():
    rows = ["B12.", "F13.", "F17.", "f.b."]
    sim = played(rows, "s")
    assert not sim.won
    sim.step(Action.WAIT)
    assert sim.won


# ------------------------------------------------------ transformation (§5)


def test_x_is_x_blocks_every_transformation_of_x():
    sim = played(["R1R", "R1F", "r.."], "s")
    assert at(sim, 0, 2) == [("r", RIGHT)]


def test_a_is_b_and_b_is_a_swap_every_turn():
    rows = ["R1F", "F1R", "rf."]
    assert [at(played(rows, m), 0, 2) for m in ("s", "ss")] == [[("f", RIGHT)], [("r", RIGHT)]]


# Two identical rules (U4) and the order new objects take (U5) are points
# RULES-baba.md leaves open: the engines choose its proposal (README, "Rule
# sets"), and no test here asserts it.


# -------------------------------------------------------- destruction (§6)


def test_two_sinks_on_a_cell_destroy_each_other_and_a_lone_sink_stays():
    sim = played(["R10", "r.r", "R17"], "s", {(2, 1): "left"})    # both rocks move onto (1, 1)
    assert sim.objects() == []
    lone = played(["R10", ".r."], "s")
    assert at(lone, 1, 1) == [("r", RIGHT)]


def test_a_melting_skull_cannot_defeat_afterwards():
    # §6.5: skull is DEFEAT and MELT on lava (HOT) with baba (YOU): it melts first.
    sim = Engine(level(["B12.", "S14.", "S19.", "L18.", ".bsl"]))
    sim.unpack(_moved(sim, tiles.LAVA, (2, 4)))                 # skull and lava share (2, 4)
    sim.step(Action.RIGHT)
    assert at(sim, 2, 4) == [("b", RIGHT), ("l", RIGHT)]


def test_defeat_spares_non_you_objects_and_kills_a_you_that_is_itself_defeat():
    pushed = played(["S14.", "R15.", "B12.", "brs."], "r")          # the rock is pushed onto the skull
    assert at(pushed, 2, 3) == [("r", RIGHT), ("s", RIGHT)] and at(pushed, 1, 3) == [("b", RIGHT)]
    assert played(["B14", "B12", "b.."], "s").objects() == []


# ------------------------------------------------------------- dead (§7.3)


def test_dead_means_no_you_object_now_or_ever():
    assert played(["b.."], "").dead                               # no rules at all
    assert played(["B12", "S14", "bs."], "r").dead                 # baba defeated
    assert not Engine(level(["R1B", "B12", "r.."])).dead           # the rock becomes baba next turn
    # keke (MOVE, facing left) will push YOU into BABA IS _: a YOU object comes.
    sim = Engine(level(["B1.2k", "K17..", "b...."], {(4, 0): "left"}))
    assert not sim.dead
    sim.step(Action.WAIT)
    assert rule_words(sim)[0] == "baba is you"


# ------------------------------------------------------ the game's levels


def _shortest_win(start: Level, depth: int) -> Optional[str]:
    """Breadth-first over packed positions, all five actions; the first win."""
    sim = Engine(start)
    parent: Dict[bytes, Optional[Tuple[bytes, int]]] = {sim.pack(): None}
    frontier = list(parent)
    for _ in range(depth):
        following = []
        for record in frontier:
            for action in Action:
                sim.unpack(record)
                sim.step(action)
                if sim.won:
                    return _path(parent, record) + action.letter
                key = sim.pack()
                if key not in parent and not sim.dead:
                    parent[key] = (record, action)
                    following.append(key)
        frontier = following
    return None


def _path(parent: Dict[bytes, Optional[Tuple[bytes, int]]], record: bytes) -> str:
    letters = []
    while parent[record] is not None:
        record, action = parent[record]                # type: ignore[misc]
        letters.append(Action(action).letter)
    return "".join(reversed(letters))


def test_level_00_is_won_in_eight_moves_and_no_fewer(repo_root):
    level00 = read_folder(repo_root / "levels" / "00")
    assert _shortest_win(level00, 8) == "rrrrrrrr"


def test_level_01_speedrun_route_wins_exactly_at_move_19(repo_root):
    # An exhaustive breadth-first search like _shortest_win's finds no win in
    # 18 moves or fewer on this engine (1.5 million positions, about seven
    # minutes: too slow to run here), so 19 is the shortest under these rules.
    sim = Engine(read_folder(repo_root / "levels" / "01"))
    route = parse_solution("ullllllluuurrddrrrr")
    assert to_keke(route) == "u" + "l" * 7 + "uuu" + "rr" + "dd" + "rrrr"
    for turn, action in enumerate(route, start=1):
        sim.step(action)
        assert sim.won == (turn == 19), f"turn {turn}"
    assert "flag is win" in rule_words(sim) and "wall is you" in rule_words(sim)
