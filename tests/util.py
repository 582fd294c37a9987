"""Helpers shared by the rule tests: tiny maps and the engines to run them on.

``make_level`` turns rows of Keke map characters into a ``Level``; cells
outside the grid already block everything, so maps need no border ring.
``ENGINES`` parametrizes a test over both simulators::

    @pytest.mark.parametrize("sim_cls", ENGINES)
    def test_something(sim_cls):
        sim = sim_cls(make_level(["B12", "b.."]))
"""

from __future__ import annotations

from typing import Dict, List, Sequence, Tuple

import pytest

from babasolver import tiles
from babasolver.level import Level
from babasolver.notation import Action, Facing
from babasolver.reference import ReferenceSimulation

__all__ = [
    "ENGINES",
    "UP",
    "DOWN",
    "LEFT",
    "RIGHT",
    "WAIT",
    "F_NONE",
    "F_UP",
    "F_DOWN",
    "F_LEFT",
    "F_RIGHT",
    "cython_simulation",
    "make_level",
    "cell",
    "where",
    "things",
    "rule_words",
    "T",
    "run_cli",
    "assert_one_line_error",
]

T = tiles

UP, DOWN, LEFT, RIGHT, WAIT = Action
F_NONE, F_UP, F_DOWN, F_LEFT, F_RIGHT = Facing

_EMPTY_CHARS = (".", " ")


def make_level(rows: Sequence[str], name: str = "test") -> Level:
    """A level from rows of Keke map characters ('.' or ' ' empty, '_'
    border). Rows must have equal length."""
    rows = list(rows)
    if not rows or not rows[0]:
        raise ValueError("a level needs at least one cell")
    width = len(rows[0])
    grid: List[int] = []
    for r, row in enumerate(rows):
        if len(row) != width:
            raise ValueError(f"row {r} has {len(row)} characters, expected {width}")
        for c, ch in enumerate(row):
            if ch in _EMPTY_CHARS:
                grid.append(tiles.EMPTY)
            elif ch in tiles.BY_KEKE_CHAR:
                grid.append(tiles.BY_KEKE_CHAR[ch])
            else:
                raise ValueError(f"row {r}, column {c}: unknown map character {ch!r}")
    return Level(name=name, width=width, height=len(rows), grid=tuple(grid))


def cython_simulation(level: Level):
    """The Cython core's ``Simulation``, imported only when a test runs."""
    from babasolver.game import Simulation

    return Simulation(level)


ENGINES = [
    pytest.param(ReferenceSimulation, id="reference"),
    pytest.param(cython_simulation, id="core"),
]


def things(sim) -> List[Tuple[int, int, int, int]]:
    """(tile, x, y, facing) of every object and text (texts face none)."""
    return ([(t, x, y, f) for t, x, y, f, _hidden in sim.objects()]
            + [(t, x, y, 0) for t, x, y, _hidden in sim.texts()])


def cell(sim, x: int, y: int) -> Dict[str, int]:
    """Keke char -> facing of everything in cell (x, y)."""
    return {tiles.KEKE_CHARS[t]: f for t, ox, oy, f in things(sim) if (ox, oy) == (x, y)}


def where(sim, char: str) -> List[Tuple[int, int, int]]:
    """Sorted ``(x, y, facing)`` of every object or text of one Keke char."""
    tile = tiles.BY_KEKE_CHAR[char]
    return sorted((x, y, f) for t, x, y, f in things(sim) if t == tile)


def rule_words(sim) -> List[str]:
    """The rules as words, e.g. ``["baba is you"]``, in the engine's order."""
    return [f"{tiles.WORDS[a]} is {tiles.WORDS[b]}" for a, b in sim.rules()]


def run_cli(capsys, *argv):
    """Run ``baba`` in-process: (exit code, stdout, stderr)."""
    from babasolver import cli

    code = cli.main([str(arg) for arg in argv])
    out, err = capsys.readouterr()
    return code, out, err


def assert_one_line_error(code, out, err):
    """Bad input: exit 2 and one ``baba: error:`` line, never a traceback."""
    assert code == 2
    assert "Traceback" not in err
    lines = err.strip("\n").split("\n")
    assert len(lines) == 1, err
    assert lines[0].startswith("baba: error: ")
