"""Replay the Keke reference solutions on an engine and count the wins.

The public Keke level sets (``../shared/levels/keke/{demo,test,full_biy}
_LEVELS.json``) ship one reference solution per level. Under the reference
simulator every one of them wins except six levels of ``full_biy`` that
RULES.md lists; those are reported but kept out of the pass/fail count.

Three more levels of ``full_biy`` win under the reference simulator only
through its defects, which RULES.md tells us not to copy (see
``REFERENCE_DEFECT_LEVELS``). They count as not winning in the figure, are
listed on their own lines, and do not make the run fail; any other level
that does not win does.

Run it as ``python -m babasolver.conformance [--engine reference|core]
[--shared DIR]``.
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, Iterable, List, Optional, Sequence, Union

from .errors import BabaError

__all__ = [
    "KNOWN_NON_WINNING",
    "REFERENCE_DEFECT_LEVELS",
    "SETS",
    "ConformanceReport",
    "LevelOutcome",
    "find_shared_dir",
    "main",
    "replay",
    "run",
]

#: The sets replayed, by name (file ``<name>_LEVELS.json``), in this order.
SETS = ("demo", "test", "full_biy")

#: Levels whose stored solution does not win under the reference simulator
#: either (RULES.md, "Known facts about the public level sets").
KNOWN_NON_WINNING: Dict[str, set] = {"full_biy": {"21", "33", "37", "41", "46", "77"}}

#: Levels whose stored solution wins under the reference simulator only
#: through one of its defects, which RULES.md says not to copy. Found by
#: replaying step by step and locating the first turn where the reference
#: and RULES.md part ways.
REFERENCE_DEFECT_LEVELS: Dict[str, Dict[str, str]] = {
    "full_biy": {
        "44": (
            "turn 12 (d): the win text is pushed onto the YOU rock at (9,9), which "
            "then walks on; by RULES.md the text, already moved, blocks the keke at "
            "(9,8), but the reference's one-object-per-cell layer forgot the text "
            "when the rock left, so its keke walks onto it"
        ),
        "84": (
            "turn 1: five flags that are YOU and KILL destroy themselves; the "
            "reference's destroyed-pair bookkeeping also drops a baba, a rock, "
            "the keke and two goops from its object list (RULES.md: defect not copied)"
        ),
        "136": (
            "turn 30 (u): the reference reads 'is' texts in the order they had at "
            "load, not in their current reading order, so it finds 'flag is you' "
            "before 'love is you' and moves the flag first (blocked by an unmoved "
            "love); by RULES.md the loves move first and the flag follows"
        ),
    }
}

_LETTERS = {"u": 0, "d": 1, "l": 2, "r": 3, "s": 4}


def _actions(actions: Union[str, Iterable[int]]) -> Iterable[int]:
    if isinstance(actions, str):
        for letter in actions:
            try:
                yield _LETTERS[letter.lower()]
            except KeyError:
                raise ValueError(f"not a Keke action letter: {letter!r}") from None
    else:
        yield from actions


def replay(sim, actions: Union[str, Iterable[int]]) -> Optional[int]:
    """Play ``actions`` (action ids, or a Keke ``udlrs`` string) on ``sim``
    and return the 1-based turn at which it first wins, or None. Stops at
    the first win: later actions are ignored."""
    for turn, action in enumerate(_actions(actions), start=1):
        sim.step(action)
        if sim.won:
            return turn
    return None


@dataclass
class LevelOutcome:
    """What one reference solution does on the engine."""

    set_name: str
    level_id: str
    length: int  # number of actions in the stored solution
    won_at: Optional[int]  # 1-based turn of the first win, None if never
    dead: bool  # the final state (after the last action played) is dead
    category: str  # "checked", "excluded" (RULES.md's six) or "defect"
    note: str = ""

    @property
    def won(self) -> bool:
        return self.won_at is not None

    def describe(self) -> str:
        if self.won_at is not None:
            return f"wins at step {self.won_at} of {self.length}"
        end = "ends dead" if self.dead else "ends alive"
        return f"does not win in {self.length} steps ({end})"

    def label(self) -> str:
        return f"{self.set_name} {self.level_id}"


@dataclass
class ConformanceReport:
    """Per-level outcomes and the counts over them."""

    engine: str
    outcomes: List[LevelOutcome] = field(default_factory=list)

    @property
    def counted(self) -> List[LevelOutcome]:
        """The levels in the pass/fail count (all but RULES.md's six)."""
        return [o for o in self.outcomes if o.category != "excluded"]

    @property
    def excluded(self) -> List[LevelOutcome]:
        return [o for o in self.outcomes if o.category == "excluded"]

    @property
    def passed(self) -> int:
        return sum(1 for o in self.counted if o.won)

    @property
    def failed(self) -> int:
        return sum(1 for o in self.counted if not o.won)

    @property
    def failures(self) -> List[LevelOutcome]:
        """Counted levels that do not win and are not known reference-defect
        levels: these make the run fail."""
        return [o for o in self.counted if not o.won and o.category != "defect"]

    @property
    def defect_failures(self) -> List[LevelOutcome]:
        """Known reference-defect levels that do not win (expected)."""
        return [o for o in self.counted if not o.won and o.category == "defect"]

    @property
    def ok(self) -> bool:
        return not self.failures

    def summary(self) -> str:
        total = len(self.counted)
        percent = 100.0 * self.passed / total if total else 0.0
        line = (
            f"conformance: {self.passed} of {total} reference solutions win "
            f"({percent:.1f}%); {len(self.excluded)} excluded"
        )
        if self.defect_failures:
            ids = ", ".join(o.label() for o in self.defect_failures)
            line += f"; {len(self.defect_failures)} win only through reference defects ({ids})"
        return line

    def lines(self) -> List[str]:
        out = [f"FAIL {o.label()}: {o.describe()}" for o in self.failures]
        out += [
            f"reference defect {o.label()}: {o.describe()} -- {o.note}"
            for o in self.defect_failures
        ]
        out += [f"excluded {o.label()}: {o.describe()}" for o in self.excluded]
        out.append(self.summary())
        return out


def _category(set_name: str, level_id: str) -> str:
    if level_id in KNOWN_NON_WINNING.get(set_name, ()):
        return "excluded"
    if level_id in REFERENCE_DEFECT_LEVELS.get(set_name, {}):
        return "defect"
    return "checked"


def run(
    shared_dir: Union[str, "os.PathLike[str]"],
    sim_factory: Callable,
    engine: str = "",
    sets: Sequence[str] = SETS,
) -> ConformanceReport:
    """Replay every reference solution of the Keke sets under
    ``shared_dir/levels/keke`` on ``sim_factory(level)``."""
    from .level import read_keke_set

    folder = Path(shared_dir) / "levels" / "keke"
    report = ConformanceReport(engine=engine or getattr(sim_factory, "__name__", ""))
    for set_name in sets:
        path = folder / f"{set_name}_LEVELS.json"
        if not path.is_file():
            raise FileNotFoundError(f"{path}: Keke level set not found")
        for entry in read_keke_set(path):
            sim = sim_factory(entry.level)
            won_at = replay(sim, entry.solution)
            category = _category(set_name, entry.id)
            report.outcomes.append(
                LevelOutcome(
                    set_name=set_name,
                    level_id=entry.id,
                    length=len(entry.solution),
                    won_at=won_at,
                    dead=bool(sim.dead),
                    category=category,
                    note=REFERENCE_DEFECT_LEVELS.get(set_name, {}).get(entry.id, ""),
                )
            )
    return report


def _has_sets(shared: Path) -> bool:
    return (shared / "levels" / "keke").is_dir()


def find_shared_dir(start: Optional[Path] = None) -> Optional[Path]:
    """The ``shared`` folder next to the repository: ``BABA_SHARED`` if set,
    else ``../shared`` from the current directory, else ``../shared`` from
    each parent of this package's location. None if none holds
    ``levels/keke``."""
    env = os.environ.get("BABA_SHARED")
    if env:
        return Path(env)
    here = Path(start) if start is not None else Path.cwd()
    candidates = [here.parent / "shared"]
    candidates += [p.parent / "shared" for p in Path(__file__).resolve().parents if p != p.parent]
    for candidate in candidates:
        if _has_sets(candidate):
            return candidate.resolve()
    return None


def _engine_factory(name: str) -> Callable:
    if name == "reference":
        from .reference import ReferenceSimulation

        return ReferenceSimulation
    from .game import Simulation

    return Simulation


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m babasolver.conformance",
        description="Replay the Keke reference solutions and count how many win.",
    )
    parser.add_argument(
        "--engine", choices=("reference", "core"), default="reference",
        help="simulator to replay on (default: reference)",
    )
    parser.add_argument(
        "--shared", metavar="DIR",
        help="the shared folder holding levels/keke (default: $BABA_SHARED, else ../shared)",
    )
    args = parser.parse_args(argv)
    shared = Path(args.shared) if args.shared else find_shared_dir()
    if shared is None or not _has_sets(shared):
        where = shared if shared is not None else "../shared"
        print(f"conformance: error: {where}/levels/keke not found (use --shared DIR)", file=sys.stderr)
        return 2
    try:
        report = run(shared, _engine_factory(args.engine), engine=args.engine)
    except (OSError, ValueError, BabaError) as error:  # missing set, bad level file
        print(f"conformance: error: {error}", file=sys.stderr)
        return 2
    for line in report.lines():
        print(line)
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
