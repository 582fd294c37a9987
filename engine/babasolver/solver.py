"""Breadth-first search for a shortest solution, over the Cython core.

The driver only hands ranges of stored states to the core: states are kept in
insertion order, so the FIFO frontier is the range [head, len(store)), and the
depth of a state is known from the layer boundaries."""
from __future__ import annotations

import os
import time
from concurrent.futures import ThreadPoolExecutor
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
CHUNK = 8192                       # states expanded per batch, split over the threads
MIN_PART = 256                     # fewer states than this per thread: one thread
# The visited table starts with room for this many states (16 MiB of slots):
# growing it rehashes every state, and most hard levels stay below this size.
INITIAL_TABLE_STATES = 1 << 21


@dataclass
class SearchStats:
    expanded: int = 0              # states whose successors were generated
    generated: int = 0             # successors produced (including duplicates)
    unique: int = 0                # distinct states stored
    dead_ends: int = 0             # successors with no YOU and no MOVE object
    illegal: int = 0               # turns the judge cannot play (dead ends too)
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


def default_threads() -> int:
    """The CPUs this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:          # not on Linux
        return max(1, os.cpu_count() or 1)


class _Batches:
    """Expansion of one batch of states, split over several expanders.

    Each expander generates the children of a contiguous part of the batch,
    in its own thread (the core releases the GIL); the parts are then
    inserted into the store in order, so the store, and so the search, is
    exactly what one expander would have made. When a child wins, the parts
    after its part are dropped, from the store and from the counters, as
    one expander would never have played them."""

    def __init__(self, core_level: CoreLevel, store: StateStore, threads: int) -> None:
        self.expanders = [Expander(core_level, store) for _ in range(threads)]
        self.pool = ThreadPoolExecutor(threads - 1) if threads > 1 else None
        # generated, expanded, dead ends and illegal turns of discarded parts
        self.discounted = [0, 0, 0, 0]

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown()

    @staticmethod
    def _counts(e: Expander) -> tuple[int, int, int, int]:
        return e.generated, e.expanded, e.dead_ends, e.illegal

    def counters(self) -> tuple[int, int, int, int]:
        totals = [sum(column) for column in zip(*(self._counts(e) for e in self.expanders))]
        return tuple(t - d for t, d in zip(totals, self.discounted))  # type: ignore[return-value]

    def expand(self, start: int, stop: int) -> Optional[tuple[int, int]]:
        """Expand states [start, stop); the (parent, action) of the first
        winning child, or None once the new children are stored."""
        n_parts = min(len(self.expanders), max(1, (stop - start) // MIN_PART))
        bounds = [start + (stop - start) * k // n_parts for k in range(n_parts + 1)]
        used = self.expanders[:n_parts]
        before = [self._counts(e) for e in used]
        if n_parts == 1 or self.pool is None:
            results = [used[0].generate(start, stop)]
        else:
            others = [self.pool.submit(e.generate, bounds[k + 1], bounds[k + 2])
                      for k, e in enumerate(used[1:])]
            first = used[0].generate(bounds[0], bounds[1])
            results = [first] + [future.result() for future in others]
        winner = next((k for k, won in enumerate(results) if won), None)
        for e in used[:None if winner is None else winner + 1]:
            e.insert_generated()
        if winner is None:
            return None
        for e, counts in zip(used[winner + 1:], before[winner + 1:]):
            for k, (now, then) in enumerate(zip(self._counts(e), counts)):
                self.discounted[k] += now - then
        return used[winner].won_parent, used[winner].won_action


def solve(
    level: Level,
    max_states: int = DEFAULT_MAX_STATES,
    timeout: Optional[float] = DEFAULT_TIMEOUT,
    progress: Optional[Progress] = None,
    progress_every: float = 0.5,
    threads: int = 1,
) -> SearchResult:
    """Shortest solution of `level` (fewest actions), or why there is none.

    `threads` expanders generate each batch in parallel; the search, its
    result and its counters are the same for any number. Ctrl-C stops the
    search and returns what was found so far with the status "interrupted"."""
    if threads < 1:
        raise ValueError(f"threads must be at least 1, not {threads}")
    started = time.perf_counter()
    core_level = CoreLevel(level.width, level.height, level.grid)
    store = StateStore(min(max_states, INITIAL_TABLE_STATES))
    batches = _Batches(core_level, store, threads)
    try:
        return _search(store, batches, max_states, timeout, progress, progress_every, started)
    finally:
        batches.close()


def _search(
    store: StateStore,
    batches: _Batches,
    max_states: int,
    timeout: Optional[float],
    progress: Optional[Progress],
    progress_every: float,
    started: float,
) -> SearchResult:
    expander = batches.expanders[0]
    stats = SearchStats()
    expander.add_root()

    def finish(status: str, solution: Optional[list[int]] = None) -> SearchResult:
        stats.generated, stats.expanded, stats.dead_ends, stats.illegal = batches.counters()
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
            won = batches.expand(head, stop)
            if won is not None:
                path = store.path_to(won[0]) + [won[1]]
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
                stats.generated, stats.expanded, stats.dead_ends, stats.illegal = batches.counters()
                stats.elapsed = now - started
                progress(stats)
                next_report = now + progress_every
    except KeyboardInterrupt:
        return finish(INTERRUPTED)
    except MemoryError:
        return finish(LIMIT_MEMORY)
    return finish(UNSOLVABLE)
