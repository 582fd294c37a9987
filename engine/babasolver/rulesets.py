"""The rule sets a level can be played by, chosen by name (``--rules``).

Each rule set is a Cython level class behind the seam of ``_ruleset.pxd``
(the store and the searches use it alone), a pure-Python reference engine
written straight from its specification, and the property words it gives
a meaning. ``tiles.json`` may name more property words than a rule set
implements: a level that uses one is refused when it is read.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Dict, Iterable, List, Tuple

from . import _baba, _judge, _ruleset
from ._ruleset import CoreLevel
from .errors import LevelError

__all__ = ["RuleSet", "RULE_SETS", "DEFAULT_RULES", "JUDGE_RULES", "SOLUTION_FILES", "rule_set", "core_level",
           "unknown_words", "solution_files_text", "UnknownRules"]


class UnknownRules(ValueError):
    """A rule set name that is not one of RULE_SETS; ``str()`` is one line."""


@dataclass(frozen=True)
class RuleSet:
    name: str
    summary: str
    words: Tuple[str, ...]                  # the property words it implements
    make_level: Callable[..., CoreLevel]    # (width, height, grid, facings) -> its Cython level
    reference: str                          # module:class of its pure-Python engine
    refuser: str                            # who cannot play an illegal turn, in messages
    # A level folder's solution under these rules: each rule set has its
    # own file, since a solution of one need not win under another (the
    # game's 19 moves for levels/01 lose in the judge's game).
    solution_file: str

    def reference_engine(self) -> Callable[[Any], Any]:
        """The pure-Python engine's class (imported on demand: tests and
        conformance use it, the solver does not)."""
        import importlib

        module, name = self.reference.split(":")
        return getattr(importlib.import_module(module, __package__), name)


RULE_SETS: Dict[str, RuleSet] = {
    _judge.NAME: RuleSet(
        name=_judge.NAME,
        summary="the Keke AI Competition judge's game (RULES.md)",
        words=tuple(_judge.PROPERTY_BITS),
        make_level=_judge.JudgeLevel,
        reference=".reference:ReferenceSimulation",
        refuser="the judge",                # the turns the judge cannot play (RULES.md)
        solution_file="solution.txt",       # the name the seed article's level folders use
    ),
    _baba.NAME: RuleSet(
        name=_baba.NAME,
        summary="the commercial game's rules (RULES-baba.md)",
        words=tuple(_baba.PROPERTY_BITS),
        make_level=_baba.GameLevel,
        reference=".reference_baba:BabaReferenceSimulation",
        refuser="the engine",               # the game plays every turn: only the engine's limits refuse one
        solution_file="solution.baba.txt",
    ),
}

DEFAULT_RULES = _judge.NAME

#: The rule set the Keke competition's judge plays (``--judge`` replays).
JUDGE_RULES = _judge.NAME

#: Every rule set's solution file name: a level folder's files, which no output may replace.
SOLUTION_FILES = tuple(r.solution_file for r in RULE_SETS.values())


def solution_files_text() -> str:
    """Which solution file goes with which rule set, for help texts:
    "solution.txt for keke, solution.baba.txt for baba"."""
    return ", ".join(f"{r.solution_file} for {r.name}" for r in RULE_SETS.values())


def rule_set(name: str) -> RuleSet:
    """The rule set called `name`; UnknownRules names the known ones."""
    found = RULE_SETS.get(name)
    if found is None:
        raise UnknownRules(f"unknown rule set {name!r} (known: {', '.join(RULE_SETS)})")
    return found


def unknown_words(rules: RuleSet, grid: Iterable[int]) -> List[str]:
    """The property words of the tiles in `grid` that `rules` gives no meaning."""
    return _ruleset.unknown_words(rules.words, grid)


def core_level(level: Any) -> CoreLevel:
    """The Cython level of a `Level` under its rule set (``level.rules``);
    LevelError for a level past what the engine can play (too many rules)."""
    try:
        return rule_set(level.rules).make_level(level.width, level.height, level.grid, level.facings)
    except ValueError as e:
        raise LevelError(f"{level.name}: {e}" if level.name else str(e)) from None
