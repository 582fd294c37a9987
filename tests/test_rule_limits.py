"""The rule tables' limits: a level or a turn past them is refused, never
read short. The fuzzing of the command line found that the 129th rule of a
keke level, and the 257th of a baba one, were silently left out: `solve`
then proved levels "unsolvable" that the judge wins."""
from __future__ import annotations

from typing import List

import pytest

from babasolver import tiles
from babasolver.errors import LevelError
from babasolver.game import Simulation, replay
from babasolver.level import Level, played_by
from babasolver.notation import parse_solution
from babasolver.rulesets import core_level

E = tiles.EMPTY
NOUN_TEXTS = [t for t in range(tiles.N_TILES) if tiles.IS_NOUN_TEXT[t]]
TARGETS = NOUN_TEXTS + [t for t in range(tiles.N_TILES) if tiles.IS_PROPERTY_TEXT[t]]


def level_of(rows: List[List[int]], name: str = "limits") -> Level:
    width = max(len(row) for row in rows)
    grid = [t for row in rows for t in row + [E] * (width - len(row))]
    return Level(name=name, width=width, height=len(rows), grid=tuple(grid))


def keke_level(n_is: int) -> Level:
    """`n_is` distinct harmless rules (`keke is ...`, `flag is ...`: no keke
    or flag on the map), each alone on a row between empty ones, then `baba
    is you` and `rock is win`: baba walks right onto the rock in 3 moves."""
    junk = [(noun, target) for noun in NOUN_TEXTS if noun not in (tiles.BABA_TEXT, tiles.ROCK_TEXT)
            for target in TARGETS if target not in (tiles.YOU_TEXT, tiles.WIN_TEXT)]
    rows = [[noun, tiles.IS_TEXT, target] for noun, target in junk[:n_is - 2]]
    rows.append([tiles.BABA_TEXT, tiles.IS_TEXT, tiles.YOU_TEXT])
    rows.append([tiles.ROCK_TEXT, tiles.IS_TEXT, tiles.WIN_TEXT])
    rows.append([tiles.BABA, E, E, tiles.ROCK])
    return level_of([cells for row in rows for cells in ([E] + row + [E], [E])])


def test_a_keke_level_that_could_form_more_rules_than_the_table_is_refused():
    level = keke_level(65)      # 130 rules at most (two per `is`), past 128
    with pytest.raises(LevelError, match="too many rules .* 65 'is' texts .* 130 rules .* up to 128"):
        core_level(played_by(level, "keke"))


def test_a_keke_level_at_the_table_s_size_reads_every_rule():
    # 64 `is` texts: the 64th rule (rock is win) is read, and wins.
    level = played_by(keke_level(64), "keke")
    assert len(Simulation(level).rules()) == 64
    assert replay(level, parse_solution("rrr")).won_at == 3


def baba_blocks(n_blocks: int, width_blocks: int = 64) -> List[List[int]]:
    """Blocks of 3x3 cells, each `baba is you` across and down: two rules."""
    rows: List[List[int]] = []
    for top in range(0, n_blocks, width_blocks):
        count = min(width_blocks, n_blocks - top)
        rows.append([tiles.BABA_TEXT, tiles.IS_TEXT, tiles.YOU_TEXT] * count)
        rows.append([tiles.IS_TEXT, E, E] * count)
        rows.append([tiles.YOU_TEXT, E, E] * count)
    return rows


def test_a_baba_level_that_starts_with_more_rules_than_the_table_is_refused():
    level = level_of(baba_blocks(2049) + [[tiles.BABA]])     # 4,098 rules
    with pytest.raises(LevelError, match="too many rules .* more than 4096"):
        core_level(played_by(level, "baba"))


def test_a_baba_turn_that_forms_more_rules_than_the_table_cannot_be_played():
    # 4,096 rules, and baba pushes `you` next to `baba is`: the 4,097th.
    level = played_by(level_of(baba_blocks(2048) + [[tiles.BABA_TEXT, tiles.IS_TEXT, E, tiles.YOU_TEXT,
                                                       tiles.BABA]]), "baba")
    sim = Simulation(level)
    assert len(sim.rules()) == 4096
    sim.step(2)     # left
    assert sim.illegal == "the turn would form more than the 4096 rules the engine reads"
    # Under baba rules it is the engine's limit, not the judge's (it said "the judge cannot play it").
    assert replay(level, [2]).summary(1) == ("breaks at step 1 of 1: the engine cannot play it (the turn would"
                                             " form more than the 4096 rules the engine reads)")


def test_a_level_too_large_for_the_memory_is_one_line(capsys, repo_root, tmp_path, monkeypatch):
    """A workspace the memory cannot hold (20,000 objects and 4,000 `is`
    texts asked for 1.3 GB) printed a MemoryError traceback; the line names
    the level, as other level errors do."""
    from dataclasses import replace

    from babasolver.rulesets import RULE_SETS
    from util import assert_one_line_error, run_cli

    def no_memory(*args):
        raise MemoryError("could not allocate 1287069856 bytes")

    monkeypatch.setitem(RULE_SETS, "keke", replace(RULE_SETS["keke"], make_level=no_memory))
    import shutil

    level = tmp_path / "00"
    shutil.copytree(repo_root / "levels" / "00", level)
    for argv in (("show", level, "rr"), ("check", level, "rr"), ("solve", level, "--json")):
        code, out, err = run_cli(capsys, *argv)
        assert_one_line_error(code, out, err)
        assert err == f"baba: error: {level}: out of memory (could not allocate 1287069856 bytes)\n"


@pytest.mark.skipif(not hasattr(__import__("resource"), "RLIMIT_AS"), reason="needs an address-space limit")
def test_novelty_tables_of_a_level_of_many_texts_stay_small(tmp_path):
    """10,000 texts on 100x100 cells are 10^8 atoms: the satisficing search's
    novelty table took 6.6 GB, outside the memory budget (the kernel killed
    the solver). Folded, the search runs within 3 GB of address space."""
    import json
    import os
    import resource
    import subprocess
    import sys

    rows = [list(("B12" * 34)[:100]) for _ in range(100)]
    rows[50][50], rows[99][99] = "b", "f"
    rows[98][0:3] = list("F13")
    folder = tmp_path / "texts"
    folder.mkdir()
    (folder / "tiles.txt").write_text("b baba\nB baba text\n1 is text\n2 you text\nf flag\nF flag text\n"
                                      "3 win text\n. empty\n", encoding="utf-8")
    (folder / "content.txt").write_text("".join("".join(row) + "\n" for row in rows), encoding="utf-8")

    def small_address_space() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (3 << 30, resource.getrlimit(resource.RLIMIT_AS)[1]))

    done = subprocess.run([sys.executable, "-m", "babasolver", "solve", str(folder), "--mode", "fast", "--json",
                           "--threads", "1", "--timeout", "60"], capture_output=True, text=True, timeout=120,
                          preexec_fn=small_address_space, env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert done.returncode == 1, done.stderr      # baba is walled in by texts it cannot push
    assert json.loads(done.stdout)["status"] == "unsolvable"


def test_an_object_under_more_than_255_move_rules_takes_every_step():
    """The count of `X is move` rules was a byte that stopped at 255 (fuzz
    round 6): keke under 256 of them moved 255 cells, and `wait` did not
    win where RULES-baba says it does."""
    from babasolver.reference_baba import BabaReferenceSimulation

    width = 300
    rows = [[tiles.KEKE_TEXT, tiles.IS_TEXT, tiles.MOVE_TEXT] * 64 for _ in range(4)]      # 256 rules
    rows.append([E] * width)
    rows.append([tiles.BABA_TEXT, tiles.IS_TEXT, tiles.YOU_TEXT, E, tiles.KEKE_TEXT, tiles.IS_TEXT, tiles.WIN_TEXT])
    rows.append([E] * width)
    walk = [E] * width
    walk[0], walk[256] = tiles.KEKE, tiles.BABA
    rows.append(walk)
    level = played_by(level_of(rows), "baba")
    core, reference = Simulation(level), BabaReferenceSimulation(level)
    core.step(4)
    reference.step(4)
    assert reference.won and core.won
