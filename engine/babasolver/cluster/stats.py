"""A distributed search's counters (no Ray needed to read them)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import List

from ..solver import SearchStats

__all__ = ["ClusterStats"]


@dataclass
class ClusterStats(SearchStats):
    """SearchStats over every worker, and the states each worker holds and
    the bytes the workers sent each other."""
    workers: int = 0
    states_per_worker: List[int] = field(default_factory=list)
    bytes_exchanged: int = 0
    rounds: int = 0                # rounds of expand-and-exchange
    startup: float = 0.0           # seconds of elapsed before the workers were ready

    @property
    def search_states_per_second(self) -> float:
        """Generated states a second once the workers were ready."""
        searching = self.elapsed - self.startup
        return self.generated / searching if searching > 0 else 0.0

    @property
    def bytes_per_generated(self) -> float:
        return self.bytes_exchanged / self.generated if self.generated else 0.0
