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
                  command: str = "baba") -> Tuple[List[Action], str]:
    """The actions to check and where they came from: `text` when given,
    else the set entry's stored solution, else the folder's solution file."""
    if text is not None:
        return parse_solution(text), "argument"
    if entry is not None:
        if not entry.solution:
            raise BabaError(f"{level_path}: level id {entry.id} has no stored solution; give SOLUTION")
        try:
            return parse_solution(entry.solution), "stored solution"
        except BabaError as e:
            raise BabaError(f"{level_path}: level id {entry.id}: stored {e}") from None
    path = solution_path(level_path)
    check_input(path, folders=False)
    if not path.is_file():
        raise BabaError(f"{path}: no such file; give SOLUTION or run '{command} solve {level_path}' first")
    return read_solution_file(path), str(path)


def check_solution(level: Level, actions: List[Action], source: str = "argument",
                   judge: Optional[Judge] = None) -> Check:
    verdict = judge.verdict(level, actions) if judge is not None else None
    return Check(actions, source, replay(level, actions), verdict)

