"""Shortest solutions by breadth-first search over the Cython core, with a
satisficing search beside it for the levels breadth-first search cannot
finish.

The breadth-first driver only hands ranges of stored states to the core:
states are kept in insertion order, so the FIFO frontier is the range
[head, len(store)), and the depth of a state is known from the layer
boundaries. It can stop at a deadline and go on later.

Modes share one budget (`timeout`, `max_states`, and `memory`), a
`schedule.Budget`: the stores of all searches together never hold more
than `max_states` states, nor `memory` bytes.

- "shortest": breadth-first search alone.
- "fast": the satisficing search alone (babasolver.satisfice), stopping at
  its first solution, which is then shortened.
- "both" (the default): the phases of `schedule.SCHEDULE` (breadth-first,
  satisfice, improve, prove, improve more, shorten), whose shares and
  conditions that schedule's module documents.

A result says whether its solution is proven shortest, and the lower bound
breadth-first search established: it completed depth d without a win, so
every solution has at least d + 1 moves."""
from __future__ import annotations

import os
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Callable, Optional

from ._core import STORE_CAPACITY, Expander, SearchOutcome, StateStore
from ._ruleset import CoreLevel
from .rulesets import core_level
from .level import Level
from .notation import Action, to_arrows, to_keke
from .satisfice import (BEAM_WIDTHS, FIRST_SEARCHES, WINDOW_CAP, WINDOW_STATES, Pool, first_solution, improve, race, shorten,
                        splice_from_store)
from .schedule import (FIRST_BFS, IMPROVE, IMPROVE_MORE, PROVE, SATISFICE, SHORTEN, SIGHT_SHARE, Budget, Phase,
                       proof_in_sight)
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
    found_by: Optional[str] = None   # the phase (schedule.Phase.name) that found the solution
    proved_by: Optional[str] = None  # the phase that proved it shortest, or the level unsolvable

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
    `progress` is called every `progress_every` seconds, in every phase.

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
    budget = Budget(timeout, max_states, memory)
    rules_level = core_level(level)
    if mode == "fast":
        return _fast(level, rules_level, budget, threads, progress, progress_every)
    search = _BreadthFirst(rules_level, budget, threads, progress, progress_every)
    try:
        if mode == "shortest":
            return search.run(budget.deadline, final=budget.deadline) or search.finish(LIMIT_TIME)
        budget.enter(FIRST_BFS)
        result = search.run(budget.until(FIRST_BFS), final=budget.deadline)
        if result is not None:
            return result
        return _both(level, rules_level, search, budget, threads)
    except KeyboardInterrupt:           # between two searches: the counters so far
        return search.finish(INTERRUPTED)
    finally:
        search.close()


def _interrupted(result: SearchResult, best: Optional[list[int]], started: float) -> SearchResult:
    """Ctrl-C: the counters so far, and the best solution so far (a win,
    not proven shortest); never a status that reads as finished."""
    result.status = INTERRUPTED
    result.proven_shortest = False
    result.proved_by = None
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


def _shortened(level: Level, core_level: CoreLevel, actions: list[int], budget: Budget,
               progress: Optional[Progress] = None, progress_every: float = 0.5,
               stats: Optional[SearchStats] = None) -> list[int]:
    """`actions` shortened until the deadline, each shortcut search within
    the room the other stores leave; progress reports `stats` with the
    length so far every `progress_every` seconds."""
    room_bytes = budget.room_bytes()
    on_step = None
    if progress is not None:
        report, shown = progress, SearchStats() if stats is None else stats
        next_report = [time.perf_counter() + progress_every]

        def on_step(length: int) -> None:
            now = time.perf_counter()
            if now >= next_report[0]:
                next_report[0] = now + progress_every
                report(replace(shown, elapsed=now - budget.started, satisficing=True, best=length))
    return shorten(level, core_level, actions, budget.deadline, WINDOW_STATES,
                   min(WINDOW_CAP * WINDOW_STATES, budget.room_states()),
                   0 if room_bytes is None else max(1, room_bytes), on_step)


def _fast(level: Level, core_level: CoreLevel, budget: Budget, threads: int,
          progress: Optional[Progress] = None, progress_every: float = 0.5) -> SearchResult:
    started = budget.started
    found = Pool(core_level, on_tick=_race_progress(progress, started), tick_every=progress_every)
    try:
        race(found, FIRST_SEARCHES, budget, budget.deadline, threads)
    except KeyboardInterrupt:
        stats = SearchStats(expanded=found.expanded, generated=found.generated, unique=found.states)
        return _interrupted(SearchResult(INTERRUPTED, None, stats), found.solution, started)
    stats = SearchStats(expanded=found.expanded, generated=found.generated, unique=found.states)
    if found.solution is not None:
        found.release()
        try:
            solution = _shortened(level, core_level, found.solution, budget, progress, progress_every, stats)
        except KeyboardInterrupt:
            return _interrupted(SearchResult(INTERRUPTED, None, stats), found.solution, started)
        result = SearchResult(SOLVED, [Action(a) for a in solution], stats, satisficing_states=found.states,
                              found_by=(SHORTEN if len(solution) < len(found.solution) else SATISFICE).name)
    elif found.exhausted:
        result = SearchResult(UNSOLVABLE, None, stats, proven_shortest=True, satisficing_states=found.states,
                              proved_by=SATISFICE.name)
    else:
        if budget.deadline is not None and time.perf_counter() >= budget.deadline:
            limit = LIMIT_TIME
        elif found.out_of_states:
            limit = LIMIT_STATES
        else:                       # every search ended at its share of the memory
            limit = LIMIT_STATES if budget.memory is None else LIMIT_MEMORY
        result = SearchResult(limit, None, stats, limit=limit, satisficing_states=found.states)
    stats.elapsed = time.perf_counter() - started
    return result


def _both(level: Level, core_level: CoreLevel, search: "_BreadthFirst", budget: Budget,
          threads: int) -> SearchResult:
    """Breadth-first search did not finish in its first phase: the other
    phases of the schedule (babasolver.schedule)."""
    started = budget.started
    budget.enter(SATISFICE)
    try:
        found = first_solution(core_level, budget, budget.until(SATISFICE), threads,
                               on_tick=_race_progress(search.progress, started, search),
                               tick_every=search.progress_every)
    except KeyboardInterrupt:
        return search.finish(INTERRUPTED)
    if found.exhausted:
        result = search.finish(UNSOLVABLE)
        result.satisficing_states = found.states
        result.proved_by = SATISFICE.name
        return result
    solution = found.solution
    found_by = SATISFICE
    bfs_until = budget.deadline
    if solution is not None and budget.timeout is not None:
        budget.enter(IMPROVE)
        try:
            improve(found, budget, budget.until(IMPROVE), threads, BEAM_WIDTHS[:1], greedy=False)
        except KeyboardInterrupt:
            return _interrupted(search.finish(INTERRUPTED), found.solution or solution, started)
        found_by, solution = _better(found_by, solution, IMPROVE, found.solution)
        in_sight = proof_in_sight(len(solution), search.stats.depth, search.seconds_to_reach,
                                  budget.seconds(PROVE, SIGHT_SHARE) or 0.0)
        bfs_until = budget.until(PROVE, None if in_sight else PROVE.share_without_proof)
    search.known = solution
    search.phase = PROVE
    budget.enter(PROVE)
    result = search.run(bfs_until, final=bfs_until) or search.finish(LIMIT_TIME)
    result.satisficing_states = found.states
    if result.status == INTERRUPTED:      # Ctrl-C is no limit to report the solution under
        return _interrupted(result, solution, started)
    if result.status == SOLVED and solution is not None and len(result.solution or []) == len(solution):
        result.found_by = found_by.name   # reaching its depth without a win proved it shortest
    if result.status == SOLVED or solution is None:
        return result
    # A limit stopped breadth-first search: report the satisficing solution,
    # improved and shortened, with the bound.
    result.limit = result.status
    if budget.timeout is not None:
        budget.enter(IMPROVE_MORE)
        try:
            improve(found, budget, budget.until(IMPROVE_MORE), threads)
        except KeyboardInterrupt:
            return _interrupted(result, found.solution or solution, started)
        found_by, solution = _better(found_by, solution, IMPROVE_MORE, found.solution)
        result.satisficing_states = found.states
    found.release()                       # no search goes on: shortening may have their room
    budget.enter(SHORTEN)
    try:
        shorter = _shortened(level, core_level, splice_from_store(level, search.store, solution), budget,
                             search.progress, search.progress_every,
                             SearchStats(unique=found.states, depth=search.stats.depth))
    except KeyboardInterrupt:
        return _interrupted(result, solution, started)
    found_by, solution = _better(found_by, solution, SHORTEN, shorter)
    result.status, result.solution, result.found_by = SOLVED, [Action(a) for a in solution], found_by.name
    result.proven_shortest = len(solution) <= result.lower_bound
    result.proved_by = SHORTEN.name if result.proven_shortest else None
    result.stats.elapsed = time.perf_counter() - started
    return result


def _better(by: Phase, solution: list[int], phase: Phase, candidate: Optional[list[int]]) -> tuple[Phase, list[int]]:
    """(the phase that found it, the solution): `candidate`, found in
    `phase`, when it is shorter than `solution`."""
    if candidate is not None and len(candidate) < len(solution):
        return phase, candidate
    return by, solution


#: A layer's growth is guessed from the last two full layers, so from the
#: third layer on (the root is the first) ...
LAYERS_TO_GUESS = 3
#: ... and is never guessed below this: layers that shrank tend to grow
#: again, and a shrinking guess would promise proofs that do not come.
MIN_GROWTH = 1.0


class _BreadthFirst:
    """Breadth-first search that runs until a deadline and can go on."""

    def __init__(self, core_level: CoreLevel, budget: Budget, threads: int,
                 progress: Optional[Progress], progress_every: float) -> None:
        self.budget = budget
        expected = min(budget.max_states, INITIAL_TABLE_STATES)
        if budget.memory is not None:      # a table takes some 10-20 bytes per expected state
            expected = max(1, min(expected, budget.memory // TABLE_BYTES_PER_STATE))
        self.store = StateStore(expected, byte_limit=budget.memory or 0)
        self.batches = _Batches(core_level, self.store, threads)
        self.n_actions = self.batches.expanders[0].n_actions
        self.progress = progress
        self.progress_every = progress_every
        self.started = budget.started
        self.next_report = self.started + progress_every
        self.stats = SearchStats()
        self.phase: Phase = FIRST_BFS            # the phase it runs in, named in its results
        self.known: Optional[list[int]] = None   # a solution other searches found
        self.head = 0
        self.layer_end = 1
        self.layer_sizes = [1]                   # states stored at each depth so far
        self.seconds = 0.0                       # spent searching
        self.batches.expanders[0].add_root()
        self.root_dead = self.batches.expanders[0].root_is_dead()
        budget.holders.append(self)

    @property
    def states(self) -> int:
        return len(self.store)

    @property
    def live_states(self) -> int:
        return len(self.store)

    @property
    def memory_bytes(self) -> int:
        return self.store.memory_bytes

    def close(self) -> None:
        """Stop its threads and leave the budget. The budget lists this
        search and this search holds the budget: left in that cycle, its
        store (gigabytes) would wait for the cycle collector, and a bench
        running levels in one process would start the next level with that
        much less memory."""
        self.batches.close()
        if self in self.budget.holders:
            self.budget.holders.remove(self)

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
        proven = status in (SOLVED, UNSOLVABLE)
        return SearchResult(status, solution, stats, proven_shortest=proven, lower_bound=bound, limit=limit,
                            found_by=self.phase.name if solution is not None else None,
                            proved_by=self.phase.name if proven else None)

    def run(self, until: Optional[float], final: Optional[float] = None) -> Optional[SearchResult]:
        """Search until `until`: a result, or None when `until` came first
        and is before `final` (the deadline that ends the search), or when
        the phase's share of the states or bytes is spent."""
        if self.root_dead:
            return self.finish(UNSOLVABLE)
        if self.budget.memory is not None:      # the other stores hold the rest
            others = self.budget.held_bytes() - self.store.memory_bytes
            self.store.byte_limit = max(1, self.budget.memory - others)
        entered = time.perf_counter()
        try:
            return self._run(until, final)
        finally:
            self.seconds += time.perf_counter() - entered

    def seconds_to_reach(self, depth: int) -> float:
        """A guess at the time to store every state up to `depth` moves
        deep, were each further layer to grow as the last one did."""
        sizes = self.layer_sizes
        if len(sizes) < LAYERS_TO_GUESS or depth < len(sizes) or not self.seconds:
            return 0.0
        growth = max(MIN_GROWTH, sizes[-1] / max(1, sizes[-2]))
        layer, states = float(sizes[-1]), 0.0
        for _ in range(depth - len(sizes) + 1):
            layer *= growth
            states += layer
        return states / (len(self.store) / self.seconds)

    def _run(self, until: Optional[float], final: Optional[float]) -> Optional[SearchResult]:
        store, stats, budget = self.store, self.stats, self.budget
        try:
            while self.head < len(store):
                if self.head == self.layer_end:
                    self.layer_sizes.append(len(store) - self.layer_end)
                    self.layer_end = len(store)
                    stats.depth += 1
                if self.known is not None and stats.depth + 1 >= len(self.known):
                    # Every solution has at least depth + 1 moves: the known one is shortest.
                    return self.finish(SOLVED, self.known)
                room = budget.room_states() // self.n_actions      # a state has at most n_actions children
                if room == 0:
                    return self.finish(LIMIT_STATES) if budget.state_cap >= budget.max_states else None
                stop = min(self.head + CHUNK, self.layer_end, self.head + room)
                stats.peak_frontier = max(stats.peak_frontier, len(store) - self.head)
                won = self.batches.expand(self.head, stop)
                if won is not None:
                    path = store.path_to(won[0]) + [won[1]]
                    stats.depth = len(path)
                    return self.finish(SOLVED, path)
                self.head = stop
                if budget.byte_share_spent():
                    return None
                now = time.perf_counter()
                if until is not None and now >= until:
                    return self.finish(LIMIT_TIME) if final is not None and until >= final else None
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
