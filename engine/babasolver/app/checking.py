"""Check a solution: find it (given, a folder's solution file, or a set's
stored solution), replay it, and, with a judge, replay it there too."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional, Tuple

from ..errors import BabaError
from ..files import check_input
from ..game import Replay, replay
from ..judge import Judge, Verdict
from ..level import KekeLevel, Level
from ..notation import Action, parse_solution
from ..rulesets import DEFAULT_RULES, RULE_SETS
from .solving import MAX_SOLUTION_BYTES, read_solution_file, solution_path

__all__ = ["Check", "find_solution", "check_solution", "MAX_SOLUTION_BYTES"]


@dataclass
class Check:
    """How a solution played: in the engine, and in the judge when asked."""

    actions: List[Action]
    source: str                      # "argument", a file's path, or "stored solution"
    replay: Replay
    verdict: Optional[Verdict] = None

    @property
    def accepted(self) -> bool:
        """It wins, and the judge, if asked, accepts it."""
        return self.replay.won and (self.verdict is None or self.verdict.accepts(len(self.actions)))


def find_solution(level_path: Path, text: Optional[str], entry: Optional[KekeLevel],
                  command: str = "baba", rules: str = DEFAULT_RULES) -> Tuple[List[Action], str]:
    """The actions to check and where they came from: `text` when given,
    else the set entry's stored solution, else the folder's solution file
    for the rule set `rules`."""
    if text is not None:
        return parse_solution(text), "argument"
    if entry is not None:
        if not entry.solution:
            raise BabaError(f"{level_path}: level id {entry.id} has no stored solution; give SOLUTION")
        try:
            return parse_solution(entry.solution), "stored solution"
        except BabaError as e:
            raise BabaError(f"{level_path}: level id {entry.id}: stored {e}") from None
    path = solution_path(level_path, rules)
    check_input(path, folders=False)
    if not path.is_file():
        solve = f"{command} solve {level_path}" + ("" if rules == DEFAULT_RULES else f" --rules {rules}")
        raise BabaError(f"{path}: no such file{_others_there(level_path, rules)}; give SOLUTION or run "
                        f"'{solve}' first")
    return read_solution_file(path), str(path)


def _others_there(folder: Path, rules: str) -> str:
    """A note naming the solution files of other rule sets that `folder`
    holds: a user who solved under one and checks under another is told why
    the solution there is not read."""
    others = [r for r in RULE_SETS.values() if r.name != rules and (folder / r.solution_file).is_file()]
    return "".join(f" ({r.solution_file} is for --rules {r.name})" for r in others)


def check_solution(level: Level, actions: List[Action], source: str = "argument",
                   judge: Optional[Judge] = None) -> Check:
    verdict = judge.verdict(level, actions) if judge is not None else None
    return Check(actions, source, replay(level, actions), verdict)

