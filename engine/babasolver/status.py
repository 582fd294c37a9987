"""How a search, or one level's run, ended: the one vocabulary of results.

Every output (the CLI's lines and tables, the JSON, the bench report)
prints these values and no other spelling of them.
"""
from __future__ import annotations

from enum import Enum

__all__ = ["Status", "LIMITS"]


class Status(str, Enum):
    """The values are the words every output uses."""

    SOLVED = "solved"
    UNSOLVABLE = "unsolvable"          # every reachable state was seen: no solution exists
    STATE_LIMIT = "state limit"
    TIME_LIMIT = "time limit"
    MEMORY_LIMIT = "memory limit"      # the visited table, or a worker's address space, could not grow
    INTERRUPTED = "interrupted"
    WRONG = "wrong"                    # a solution found did not replay to a win: a bug
    ERROR = "error"                    # the level could not be loaded or run

    __str__ = str.__str__

    def __format__(self, spec: str) -> str:
        return str.__format__(self, spec)

    @property
    def is_limit(self) -> bool:
        """The search stopped before it knew the answer."""
        return self in LIMITS


#: The statuses of a search stopped before it knew the answer.
LIMITS = (Status.STATE_LIMIT, Status.TIME_LIMIT, Status.MEMORY_LIMIT, Status.INTERRUPTED)
