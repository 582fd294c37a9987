"""Shortest solutions by breadth-first search over the Cython core, with a
satisficing search beside it for the levels breadth-first search cannot
finish.

The breadth-first driver only hands ranges of stored states to the core:
states are kept in insertion order, so the FIFO frontier is the range
[head, len(store)), and the depth of a state is known from the layer
boundaries. It can stop at a deadline and go on later.

Modes share one budget (`timeout`, `max_states`, and `memory`: the bytes
the stores of all searches may hold together):

- "shortest": breadth-first search alone.
- "fast": the satisficing search alone (babasolver.satisfice), stopping at
  its first solution, which is then shortened.
- "both" (the default): breadth-first search for the first
  FIRST_BFS_SHARE of the time; if it has not finished, the satisficing
  search for at most SATISFICE_SHARE of the time, then breadth-first search
  again, no deeper than the solution found (reaching that depth proves it
  shortest), keeping SHORTEN_SHARE of the time to shorten the solution if
  breadth-first search does not finish.

A result says whether its solution is proven shortest, and the lower bound
breadth-first search established: it completed depth d without a win, so
every solution has at least d + 1 moves."""
from __future__ import annotations

import os
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Callable, Optional

from ._core import STORE_CAPACITY, Expander, SearchOutcome, StateStore
from ._ruleset import CoreLevel
from .rulesets import core_level
from .level import Level
from .notation import Action, to_arrows, to_keke
from .satisfice import BEAM_WIDTHS, FIRST_SEARCHES, Pool, first_solution, improve, race, shorten, splice_from_store
from .status import Status

SOLVED = Status.SOLVED
UNSOLVABLE = Status.UNSOLVABLE
LIMIT_STATES = Status.STATE_LIMIT
LIMIT_TIME = Status.TIME_LIMIT
LIMIT_MEMORY = Status.MEMORY_LIMIT
INTERRUPTED = Status.INTERRUPTED

# No cap on the states but the store's format: the memory limit ends a search.
DEFAULT_MAX_STATES = STORE_CAPACITY
DEFAULT_TIMEOUT = None
MODES = ("both", "shortest", "fast")
DEFAULT_MODE = "both"
FIRST_BFS_SHARE = 0.1              # of the time and states, before the satisficing search starts
FIRST_BFS_SECONDS = 1.0            # ... and at most this long (without a timeout: this long)
# Of the time (or of the states) for a first solution. Breadth-first search
# proves what it can prove in 10 s almost always within its first second
# (on full_biy, 3 levels of 158 took longer, none over 5 s), so the
# satisficing search can have most of the rest.
SATISFICE_SHARE = 0.8
# Of the time left after a first solution (less the shortening reserve): at
# most this for the narrowest beams (satisfice.improve), first ...
FIRST_IMPROVE_SHARE = 0.3
# ... then this of the rest for breadth-first search to prove the solution
# shortest, or to find a shorter one; but only BFS_BOUND_SHARE when the
# solution is more than BFS_PROOF_GAP moves deeper than it has reached, or
# its layers, growing as the last one did, would not complete
# BFS_LAYERS_AHEAD more layers in that time. (The levels full_biy proves
# after the first second had a solution at most 7 moves deeper by then,
# and breadth-first search found the shortest within 3 layers.) The rest
# looks for shorter solutions.
BFS_AFTER_SHARE = 0.5
BFS_BOUND_SHARE = 0.15
BFS_PROOF_GAP = 10
BFS_LAYERS_AHEAD = 2
SHORTEN_SHARE = 0.1                # kept back for shortening when BFS does not finish
CHUNK = 8192                       # states expanded per batch, split over the threads
MIN_PART = 256                     # fewer states than this per thread: one thread
# The visited table starts with room for this many states (16 MiB of slots):
# growing it rehashes every state, and most hard levels stay below this size.
INITIAL_TABLE_STATES = 1 << 21
TABLE_BYTES_PER_STATE = 40         # ... but a small memory limit gets a table of at most half its bytes


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
    # In progress reports from the satisficing searches (their counters, not
    # breadth-first search's): the shortest solution found so far.
    satisficing: bool = False
    best: Optional[int] = None

    @property
    def states_per_second(self) -> float:
        return self.generated / self.elapsed if self.elapsed > 0 else 0.0


@dataclass
class SearchResult:
    status: str                    # a Status
    solution: Optional[list[Action]]
    stats: SearchStats = field(default_factory=SearchStats)
    proven_shortest: bool = False  # no solution has fewer moves
    lower_bound: int = 1           # every solution has at least this many moves
    limit: Optional[str] = None    # the limit that stopped breadth-first search, if one did
    satisficing_states: int = 0    # states stored by the satisficing search
    note: str = ""                 # why a solution is WRONG

    @property
    def solved(self) -> bool:
        return self.status == SOLVED

    @property
    def keke(self) -> Optional[str]:
        """The solution in Keke letters, e.g. "rrud"."""
        return None if self.solution is None else to_keke(self.solution)

    @property
    def arrows(self) -> Optional[str]:
        """The solution in arrow runs, e.g. "2→ 1↑ 1↓"."""
        return None if self.solution is None else to_arrows(self.solution)


Progress = Callable[[SearchStats], None]


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
        winner = next((k for k, outcome in enumerate(results) if outcome == SearchOutcome.SEARCH_WON), None)
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
    threads: Optional[int] = None,
    mode: str = DEFAULT_MODE,
    memory: Optional[int] = None,
) -> SearchResult:
    """A solution of `level`, the shortest when breadth-first search can
    prove it within the budget, or why there is none (see the module's doc
    for the modes).

    `threads` expanders generate each breadth-first batch in parallel
    (default: every CPU this process may use, as the CLI); breadth-first
    search, its result and its counters are the same for any number (the
    satisficing searches race on the threads). Ctrl-C
    stops the search and returns what was found so far with the status
    INTERRUPTED: the counters so far and, as `solution`, the best solution
    found so far, if any (not proven shortest, and not shortened).

    `memory` (bytes, None: no limit) caps what the searches' stores hold
    together; breadth-first search that reaches it stops with the status
    MEMORY_LIMIT and its lower bound, as at the time limit."""
    if not 1 <= max_states <= STORE_CAPACITY:
        raise ValueError(f"max_states must be from 1 to {STORE_CAPACITY:,}, not {max_states}")
    if threads is None:
        threads = default_threads()
    if threads < 1:
        raise ValueError(f"threads must be at least 1, not {threads}")
    if mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)}, not {mode!r}")
    if memory is not None and memory < 1:
        raise ValueError(f"memory must be at least 1 byte, not {memory}")
    started = time.perf_counter()
    deadline = None if timeout is None else started + timeout
    rules_level = core_level(level)
    if mode == "fast":
        return _fast(level, rules_level, max_states, deadline, started, threads, progress, memory)
    search = _BreadthFirst(rules_level, max_states, threads, progress, progress_every, started, memory)
    try:
        if mode == "shortest":
            return search.run(deadline, final=deadline) or search.finish(LIMIT_TIME)
        first_slice = FIRST_BFS_SECONDS if timeout is None else min(FIRST_BFS_SECONDS, FIRST_BFS_SHARE * timeout)
        result = search.run(started + first_slice, final=deadline,
                            pause_at=max(1, int(FIRST_BFS_SHARE * max_states)),
                            pause_bytes=None if memory is None else int(FIRST_BFS_SHARE * memory))
        if result is not None:
            return result
        return _both(level, rules_level, search, max_states, timeout, deadline, started, threads, memory)
    except KeyboardInterrupt:           # between two searches: the counters so far
        return search.finish(INTERRUPTED)
    finally:
        search.close()


def _interrupted(result: SearchResult, best: Optional[list[int]], started: float) -> SearchResult:
    """Ctrl-C: the counters so far, and the best solution so far (a win,
    not proven shortest); never a status that reads as finished."""
    result.status = INTERRUPTED
    result.proven_shortest = False
    if best is not None:
        result.solution = [Action(a) for a in best]
    result.stats.elapsed = time.perf_counter() - started
    return result


def _race_progress(progress: Optional[Progress], started: float,
                   search: Optional["_BreadthFirst"] = None) -> Optional[Callable[[Pool], None]]:
    """Progress reports while the satisficing searches race: their
    counters, the best length so far, and breadth-first search's depth."""
    if progress is None:
        return None
    report = progress

    def tick(pool: Pool) -> None:
        report(SearchStats(expanded=pool.expanded, generated=pool.generated, unique=pool.states,
                           depth=0 if search is None else search.stats.depth,
                           elapsed=time.perf_counter() - started, satisficing=True,
                           best=None if pool.solution is None else len(pool.solution)))
    return tick


def _fast(level: Level, core_level: CoreLevel, max_states: int, deadline: Optional[float],
          started: float, threads: int, progress: Optional[Progress] = None,
          memory: Optional[int] = None) -> SearchResult:
    found = Pool(core_level, on_tick=_race_progress(progress, started))
    try:
        race(found, FIRST_SEARCHES, max_states, deadline, threads, max_bytes=memory)
    except KeyboardInterrupt:
        stats = SearchStats(expanded=found.expanded, generated=found.generated, unique=found.states)
        return _interrupted(SearchResult(INTERRUPTED, None, stats), found.solution, started)
    stats = SearchStats(expanded=found.expanded, generated=found.generated, unique=found.states)
    if found.solution is not None:
        try:
            solution = [Action(a) for a in shorten(level, core_level, found.solution, deadline)]
        except KeyboardInterrupt:
            return _interrupted(SearchResult(INTERRUPTED, None, stats), found.solution, started)
        result = SearchResult(SOLVED, solution, stats, satisficing_states=found.states)
    elif found.exhausted:
        result = SearchResult(UNSOLVABLE, None, stats, proven_shortest=True, satisficing_states=found.states)
    else:
        if deadline is not None and time.perf_counter() >= deadline:
            limit = LIMIT_TIME
        elif memory is not None and found.states < max_states:
            limit = LIMIT_MEMORY
        else:
            limit = LIMIT_STATES
        result = SearchResult(limit, None, stats, limit=limit, satisficing_states=found.states)
    stats.elapsed = time.perf_counter() - started
    return result


def _both(level: Level, core_level: CoreLevel, search: "_BreadthFirst", max_states: int,
          timeout: Optional[float], deadline: Optional[float], started: float,
          threads: int, memory: Optional[int] = None) -> SearchResult:
    """Breadth-first search did not finish in its first slice: find a
    solution fast, then let breadth-first search prove it shortest or bound it."""
    now = time.perf_counter()
    satisfice_until = None if timeout is None or deadline is None else min(deadline, now + SATISFICE_SHARE * timeout)
    states_left = max(1, max_states - search.states)
    try:
        found = first_solution(core_level, max(1, int(SATISFICE_SHARE * states_left)), satisfice_until,
                               threads, on_tick=_race_progress(search.progress, started, search),
                               max_bytes=search.bytes_left())
    except KeyboardInterrupt:
        return search.finish(INTERRUPTED)
    if found.exhausted:
        result = search.finish(UNSOLVABLE)
        result.proven_shortest = True
        result.satisficing_states = found.states
        return result
    search.max_states = max(1, max_states - found.live_states)
    solution = found.solution
    bfs_deadline = deadline
    improve_until = None
    if solution is not None and timeout is not None and deadline is not None:
        improve_until = deadline - SHORTEN_SHARE * timeout
        # The narrowest beams first: they are cheap, and a shorter solution
        # is easier for breadth-first search to prove.
        try:
            improve(found, max(1, max_states - search.states),
                    time.perf_counter() + FIRST_IMPROVE_SHARE * (improve_until - time.perf_counter()),
                    threads, BEAM_WIDTHS[:1], greedy=False, max_bytes=search.bytes_left())
        except KeyboardInterrupt:
            return _interrupted(search.finish(INTERRUPTED), found.solution or solution, started)
        solution = found.solution or solution           # improving never drops a solution
        now = time.perf_counter()
        left = max(0.0, improve_until - now)
        share = BFS_AFTER_SHARE
        depth = search.stats.depth
        if (len(solution) - 1 - depth > BFS_PROOF_GAP
                or search.seconds_to_reach(min(len(solution) - 1, depth + BFS_LAYERS_AHEAD)) > share * left):
            share = BFS_BOUND_SHARE          # no proof in sight: the time is better spent on beams
        bfs_deadline = now + share * left
    if solution is not None:
        search.prove_below = len(solution)
    search.share_memory(found.memory_bytes)
    # None: the deadline before the shortening reserve
    result = search.run(bfs_deadline, final=bfs_deadline) or search.finish(LIMIT_TIME)
    result.satisficing_states = found.states
    if result.status == INTERRUPTED:      # Ctrl-C is no limit to report the solution under
        return _interrupted(result, solution, started)
    if result.status == SOLVED or solution is None:
        return result
    if result.proven_shortest:
        # Breadth-first search reached the satisficing solution's depth
        # without a win: that solution is shortest.
        result.status, result.solution, result.limit = SOLVED, [Action(a) for a in solution], None
        return result
    # A limit stopped breadth-first search: report the satisficing solution,
    # shortened, with the bound.
    result.limit = result.status
    if improve_until is not None:
        try:
            improve(found, max(1, max_states - search.states), improve_until, threads,
                    max_bytes=search.bytes_left())
        except KeyboardInterrupt:
            return _interrupted(result, found.solution or solution, started)
        solution = found.solution or solution
        result.satisficing_states = found.states
    try:
        solution = splice_from_store(level, search.store, solution)
        shorter = [Action(a) for a in shorten(level, core_level, solution, deadline)]
    except KeyboardInterrupt:
        return _interrupted(result, solution, started)
    result.status, result.solution = SOLVED, shorter
    result.proven_shortest = len(shorter) <= result.lower_bound
    result.stats.elapsed = time.perf_counter() - started
    return result


class _BreadthFirst:
    """Breadth-first search that runs until a deadline and can go on."""

    def __init__(self, core_level: CoreLevel, max_states: int, threads: int,
                 progress: Optional[Progress], progress_every: float, started: float,
                 memory: Optional[int] = None) -> None:
        self.memory = memory
        expected = min(max_states, INITIAL_TABLE_STATES)
        if memory is not None:      # a table takes some 10-20 bytes per expected state
            expected = max(1, min(expected, memory // TABLE_BYTES_PER_STATE))
        self.store = StateStore(expected, byte_limit=memory or 0)
        self.batches = _Batches(core_level, self.store, threads)
        self.max_states = max_states
        self.progress = progress
        self.progress_every = progress_every
        self.started = started
        self.next_report = started + progress_every
        self.stats = SearchStats()
        self.prove_below: Optional[int] = None   # a solution this long is known
        self.head = 0
        self.layer_end = 1
        self.layer_sizes = [1]                   # states stored at each depth so far
        self.seconds = 0.0                       # spent searching
        self.batches.expanders[0].add_root()
        self.root_dead = self.batches.expanders[0].root_is_dead()

    @property
    def states(self) -> int:
        return len(self.store)

    def bytes_left(self) -> Optional[int]:
        """What other searches may hold beside this one's store (None: no limit)."""
        return None if self.memory is None else max(1, self.memory - self.store.memory_bytes)

    def share_memory(self, others: int) -> None:
        """Other searches hold `others` bytes: this store may hold the rest."""
        if self.memory is not None:
            self.store.byte_limit = max(1, self.memory - others)

    def close(self) -> None:
        self.batches.close()

    def finish(self, status: str, moves: Optional[list[int]] = None) -> SearchResult:
        solution = None if moves is None else [Action(a) for a in moves]
        stats = self.stats
        stats.generated, stats.expanded, stats.dead_ends, stats.illegal = self.batches.counters()
        stats.unique = len(self.store)
        stats.elapsed = time.perf_counter() - self.started
        stats.memory_bytes = self.store.memory_bytes
        # Every state of the layer being expanded was generated without a win.
        bound = len(solution) if solution is not None else stats.depth + 1
        limit = status if status in (LIMIT_STATES, LIMIT_TIME, LIMIT_MEMORY, INTERRUPTED) else None
        return SearchResult(status, solution, stats, proven_shortest=status in (SOLVED, UNSOLVABLE),
                            lower_bound=bound, limit=limit)

    def run(self, until: Optional[float], final: Optional[float] = None,
            pause_at: Optional[int] = None, pause_bytes: Optional[int] = None) -> Optional[SearchResult]:
        """Search until `until`: a result, or None when `until` came first
        and is not `final` (the deadline that ends the search), or when
        `pause_at` states are stored, or the store holds `pause_bytes`."""
        if self.root_dead:
            return self.finish(UNSOLVABLE)
        entered = time.perf_counter()
        try:
            return self._run(until, final, pause_at, pause_bytes)
        finally:
            self.seconds += time.perf_counter() - entered

    def seconds_to_reach(self, depth: int) -> float:
        """A guess at the time to store every state up to `depth` moves
        deep, were each further layer to grow as the last one did."""
        sizes = self.layer_sizes
        if len(sizes) < 3 or depth < len(sizes) or not self.seconds:
            return 0.0
        growth = max(1.0, sizes[-1] / max(1, sizes[-2]))
        layer, states = float(sizes[-1]), 0.0
        for _ in range(depth - len(sizes) + 1):
            layer *= growth
            states += layer
        return states / (len(self.store) / self.seconds)

    def _run(self, until: Optional[float], final: Optional[float],
             pause_at: Optional[int], pause_bytes: Optional[int]) -> Optional[SearchResult]:
        store, stats = self.store, self.stats
        try:
            while self.head < len(store):
                if self.head == self.layer_end:
                    self.layer_sizes.append(len(store) - self.layer_end)
                    self.layer_end = len(store)
                    stats.depth += 1
                if self.prove_below is not None and stats.depth + 1 >= self.prove_below:
                    result = self.finish(LIMIT_STATES)
                    result.proven_shortest = True
                    result.lower_bound = self.prove_below
                    return result
                stop = min(self.head + CHUNK, self.layer_end)
                stats.peak_frontier = max(stats.peak_frontier, len(store) - self.head)
                won = self.batches.expand(self.head, stop)
                if won is not None:
                    path = store.path_to(won[0]) + [won[1]]
                    stats.depth = len(path)
                    return self.finish(SOLVED, path)
                self.head = stop
                if len(store) >= self.max_states:
                    return self.finish(LIMIT_STATES)
                if pause_at is not None and len(store) >= pause_at:
                    return None
                if pause_bytes is not None and store.memory_bytes >= pause_bytes:
                    return None
                now = time.perf_counter()
                if until is not None and now >= until:
                    return self.finish(LIMIT_TIME) if until == final else None
                if self.progress is not None and now >= self.next_report:
                    stats.unique = len(store)
                    stats.generated, stats.expanded, stats.dead_ends, stats.illegal = self.batches.counters()
                    stats.elapsed = now - self.started
                    self.progress(stats)
                    self.next_report = now + self.progress_every
        except KeyboardInterrupt:
            return self.finish(INTERRUPTED)
        except MemoryError:
            return self.finish(LIMIT_MEMORY)
        return self.finish(UNSOLVABLE)
