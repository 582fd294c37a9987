"""Breadth-first search for a shortest solution, over the Cython core.

The driver only hands ranges of stored states to the core: states are kept in
insertion order, so the FIFO frontier is the range [head, len(store)), and the
depth of a state is known from the layer boundaries."""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable, Optional

from . import tiles
from ._core import CoreLevel, Expander, StateStore
from .level import Level

SOLVED = "solved"
UNSOLVABLE = "unsolvable"          # frontier exhausted: no solution exists
LIMIT_STATES = "state limit"
LIMIT_TIME = "time limit"
LIMIT_MEMORY = "memory limit"      # the visited table could not grow
INTERRUPTED = "interrupted"

DEFAULT_MAX_STATES = 50_000_000    # about 2-3 GB of visited table at most
DEFAULT_TIMEOUT = None
CHUNK = 4096                       # states handed to the core per call
# The visited table starts with room for this many states (16 MiB of slots):
# growing it rehashes every state, and most hard levels stay below this size.
INITIAL_TABLE_STATES = 1 << 21


@dataclass
class SearchStats:
    expanded: int = 0              # states whose successors were generated
    generated: int = 0             # successors produced (including duplicates)
    unique: int = 0                # distinct states stored
    dead_ends: int = 0             # successors with no YOU and no MOVE object
    depth: int = 0                 # deepest layer fully or partly expanded
    peak_frontier: int = 0         # largest number of stored, unexpanded states
    elapsed: float = 0.0           # seconds
    memory_bytes: int = 0          # bytes held by the visited table

    @property
    def states_per_second(self) -> float:
        return self.generated / self.elapsed if self.elapsed > 0 else 0.0


@dataclass
class SearchResult:
    status: str
    solution: Optional[list[int]]
    stats: SearchStats = field(default_factory=SearchStats)

    @property
    def solved(self) -> bool:
        return self.status == SOLVED


Progress = Callable[[SearchStats], None]


def level_has_you_text(level: Level) -> bool:
    return tiles.YOU_TEXT in level.grid


def solve(
    level: Level,
    max_states: int = DEFAULT_MAX_STATES,
    timeout: Optional[float] = DEFAULT_TIMEOUT,
    progress: Optional[Progress] = None,
    progress_every: float = 0.5,
) -> SearchResult:
    """Shortest solution of `level` (fewest actions), or why there is none.

    Ctrl-C stops the search and returns what was found so far with the status
    "interrupted"."""
    started = time.perf_counter()
    core_level = CoreLevel(level.width, level.height, level.grid, tiles.MOVE_TEXT in level.grid)
    store = StateStore(min(max_states, INITIAL_TABLE_STATES))
    expander = Expander(core_level, store)
    stats = SearchStats()
    expander.add_root()

    def finish(status: str, solution: Optional[list[int]] = None) -> SearchResult:
        stats.expanded = expander.expanded
        stats.generated = expander.generated
        stats.dead_ends = expander.dead_ends
        stats.unique = len(store)
        stats.elapsed = time.perf_counter() - started
        stats.memory_bytes = store.memory_bytes
        return SearchResult(status, solution, stats)

    if expander.root_is_dead():
        return finish(UNSOLVABLE)
    head = 0
    layer_end = 1
    next_report = started + progress_every
    try:
        while head < len(store):
            if head == layer_end:
                layer_end = len(store)
                stats.depth += 1
            stop = min(head + CHUNK, layer_end)
            stats.peak_frontier = max(stats.peak_frontier, len(store) - head)
            if expander.expand(head, stop):
                path = store.path_to(expander.won_parent) + [expander.won_action]
                stats.depth = len(path)
                return finish(SOLVED, path)
            head = stop
            if len(store) >= max_states:
                return finish(LIMIT_STATES)
            now = time.perf_counter()
            if timeout is not None and now - started >= timeout:
                return finish(LIMIT_TIME)
            if progress is not None and now >= next_report:
                stats.unique = len(store)
                stats.generated = expander.generated
                stats.expanded = expander.expanded
                stats.elapsed = now - started
                progress(stats)
                next_report = now + progress_every
    except KeyboardInterrupt:
        return finish(INTERRUPTED)
    except MemoryError:
        return finish(LIMIT_MEMORY)
    return finish(UNSOLVABLE)
