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
import threading
import time
from concurrent import futures
from dataclasses import dataclass, field, replace
from typing import Callable, Optional, Sequence

from ._core import STORE_CAPACITY, Expander, SearchOutcome, StateStore
from ._ruleset import CoreLevel
from .rulesets import core_level
from .level import Level
from .notation import Action, to_arrows, to_keke
from .satisfice import (BEAM_WIDTHS, FIRST_SEARCHES, WINDOW_CAP, WINDOW_STATES, Pool, improve, race, shorten,
                        splice_from_store)
from .schedule import (FIRST_BFS, IMPROVE, IMPROVE_MORE, MIN_TURN, PROVE, RACE_ALONE_TURNS, SATISFICE, SHORTEN,
                       SIGHT_SHARE, Budget, Phase, TablePauses, near_peak, next_chunk, proof_in_sight)
from .status import Status
from .threads import started_pool

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
MIN_PART = 256                     # fewer states than this per part: fewer parts
# With threads, a batch is split into this many parts per thread, taken by
# the threads as they come free: the main thread joins late (it inserts the
# batch before), and parts take unequal times.
PARTS_PER_THREAD = 4
# With threads, up to this many batches are generated ahead of the one
# being inserted: the other threads go on with the second while the main
# thread still inserts and takes the last parts of the first.
AHEAD = 2
# The visited table starts with room for this many states (4M slots, 20 MiB):
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
    # A level folder's solution file that app.solving kept: it wins, and the
    # search found nothing shorter.
    kept_solution: Optional[list[Action]] = None

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


Counts = tuple[int, int, int, int]     # generated, expanded, dead ends, illegal turns


def _counts(e: Expander) -> Counts:
    return e.generated, e.expanded, e.dead_ends, e.illegal


def part_bounds(start: int, stop: int, n_parts: int) -> list[int]:
    """The bounds of `n_parts` contiguous parts of [start, stop), each of at
    least one state, sized in pairs that shrink towards the end (for eight:
    8, 8, 6, 6, 4, 4, 2, 2 shares of 40). The threads take the parts in
    order, so the last ones, taken when a thread has little left to wait
    for, are short: the batch ends with the threads nearly together."""
    weights = [n_parts - k // 2 * 2 for k in range(n_parts)]
    spare, total = stop - start - n_parts, sum(weights)
    bounds, before = [start], 0
    for k, weight in enumerate(weights):
        before += weight
        bounds.append(start + k + 1 + spare * before // total)
    return bounds


class _Round:
    """The generation of one batch, split into parts, by several threads.

    Each part has its own expander, staged with the part's states before the
    round starts; a thread takes the next part from a shared counter until
    none is left, so a thread that starts late or finishes early takes
    fewer. After a part that wins, no later part is taken: one expander
    would never have played them. Each part is marked done when its thread
    is through with it, so the main thread can insert the parts done while
    another thread still generates a later one."""

    def __init__(self, expanders: list[Expander], bank: int, bounds: list[int]) -> None:
        self.start, self.stop = bounds[0], bounds[-1]
        self.bounds = bounds                # part k is states [bounds[k], bounds[k + 1])
        self.expanders = expanders          # part k is generated by expanders[k]
        self.bank = bank                    # the bank of _Batches they belong to
        self.before = [_counts(e) for e in expanders]
        self.outcomes: list[Optional[SearchOutcome]] = [None] * len(expanders)
        self.done = [threading.Event() for _ in expanders]
        self.workers: list[futures.Future] = []     # the pool's threads taking parts
        self._lock = threading.Lock()
        self._next = 0                      # the next part to take
        self._last = len(expanders) - 1     # the last part to take: lowered by a win or a stop

    def _take(self) -> Optional[int]:
        with self._lock:
            if self._next > self._last:
                return None
            self._next += 1
            return self._next - 1

    def generate(self) -> None:
        """Generate parts until none is left to take (each thread's loop)."""
        part = self._take()
        while part is not None:
            try:
                outcome = self.expanders[part].generate_staged()
                self.outcomes[part] = outcome
            finally:                        # an exception leaves the outcome None
                self.done[part].set()
            if outcome == SearchOutcome.SEARCH_WON:
                with self._lock:
                    self._last = min(self._last, part)
            part = self._take()

    def stop_taking(self) -> None:
        with self._lock:
            self._last = -1

    def halt(self) -> None:
        """Take no more parts, and wait until the threads are through with
        the parts they hold."""
        self.stop_taking()
        futures.wait(self.workers)

    def wait(self) -> None:
        """Until every worker is done; then raises the first one's exception."""
        futures.wait(self.workers)
        for worker in self.workers:
            worker.result()

    def wait_part(self, part: int) -> Optional[SearchOutcome]:
        """The outcome of a part taken, once its thread is through with it
        (that thread's exception if it failed)."""
        self.done[part].wait()
        if self.outcomes[part] is None:
            self.wait()
        return self.outcomes[part]

    def won(self) -> bool:
        """Whether a part done so far won."""
        return SearchOutcome.SEARCH_WON in self.outcomes

    def children_bound(self, n_actions: int) -> int:
        """At least the children the parts list: as many as a part done
        lists, and n_actions per state of a part not done."""
        return sum(e.listed_children if done.is_set() else (stop - start) * n_actions
                   for e, done, start, stop in zip(self.expanders, self.done, self.bounds, self.bounds[1:]))

    def counted(self, parts: range) -> Counts:
        """What the given parts added to the counters (their threads are
        through with them)."""
        totals = [0, 0, 0, 0]
        for k in parts:
            for column, (now, then) in enumerate(zip(_counts(self.expanders[k]), self.before[k])):
                totals[column] += now - then
        return tuple(totals)  # type: ignore[return-value]


def _banks(core_level: CoreLevel, store: StateStore, threads: int) -> list[list[Expander]]:
    """The banks of expanders of `_Batches` on `threads` threads."""
    banks = AHEAD + 1 if threads > 1 else 1
    parts = PARTS_PER_THREAD * threads if threads > 1 else 1
    return [[Expander(core_level, store) for _ in range(parts)] for _ in range(banks)]


class _Batches:
    """Expansion of batches of states, split over several expanders.

    The store, and so the search, is exactly what one expander would have
    made: children are inserted in the order of their parents, and the
    counters leave out what one expander would never have played.

    With one thread, one expander generates a batch and inserts it. With
    more, a batch is split into parts (PARTS_PER_THREAD per thread, shorter
    towards the end: see part_bounds) that the threads generate in parallel
    (the core releases the GIL), and inserting a batch, which only the main
    thread may do, overlaps with generating the next ones. The caller names
    the batches that follow when their parents are stored already (in this
    layer or the next); up to AHEAD of them are begun (staged, and handed
    to the other threads) before this batch is inserted, so that the other
    threads always have a batch to go on with and never wait for the main
    thread. The main thread inserts this batch's parts in order, each once
    it is done, then takes the parts left of the next batch, and returns.
    Batches begun ahead wait for the next calls, their counts left out
    until then. A batch is begun ahead only when inserting it and the
    batches before it cannot take the store past the room the caller gives,
    so that the caller's next batches, chosen after this one is inserted,
    are the ones begun. Expanders generate from copies of their parents
    (`stage`), since inserting moves the store's arena. The banks of
    expanders take turns: one holds the batch being inserted, the others
    those begun ahead. When a child wins, the parts after its part are
    dropped, from the store and from the counters, and so are the batches
    begun ahead."""

    def __init__(self, core_level: CoreLevel, store: StateStore, threads: int) -> None:
        # Fewer threads where no more could start, or where the memory
        # does not hold a workspace for each part of each bank (a big
        # level under an address-space limit): one, with one workspace.
        self.pool, helpers = started_pool(threads - 1)
        try:
            self.banks = _banks(core_level, store, helpers + 1)
        except MemoryError:
            if self.pool is None:
                raise
            self.pool.shutdown()
            self.pool = None
            self.banks = _banks(core_level, store, 1)
        except BaseException:               # Ctrl-C: the threads would wait for work for ever
            if self.pool is not None:
                self.pool.shutdown()
            raise
        self.threads = 1 if self.pool is None else helpers + 1
        self.expanders = [e for bank in self.banks for e in bank]
        self.n_actions: int = self.expanders[0].n_actions
        self.discounted = [0, 0, 0, 0]      # the counts of parts dropped
        self.ahead: list[_Round] = []       # the batches begun ahead, in order, not inserted
        # Batches from this state on only look for a win: their children
        # are not stored (Expander.lists_children). Set by the caller; a
        # batch takes it when it is begun, so it is the same at any thread count.
        self.unlisted_from: Optional[int] = None

    def close(self) -> None:
        self.drop_ahead()
        if self.pool is not None:
            self.pool.shutdown()

    def counters(self) -> Counts:
        """Generated, expanded, dead ends, illegal turns: of the batches
        inserted, and of a batch that won up to its win."""
        held = {id(e): before for batch in self.ahead for e, before in zip(batch.expanders, batch.before)}
        rows = [held[id(e)] if id(e) in held else _counts(e) for e in self.expanders]
        return tuple(sum(column) - d for column, d in zip(zip(*rows), self.discounted))  # type: ignore[return-value]

    def drop_ahead(self, keep: int = 0) -> None:
        """Forget the batches begun ahead but the first `keep`: the search
        stops before them, or goes elsewhere."""
        while len(self.ahead) > keep:
            self._abandon(self.ahead.pop())

    def expand(self, start: int, stop: int, upcoming: Sequence[int] = (),
               room: Optional[int] = None) -> Optional[tuple[int, int]]:
        """Expand states [start, stop); the (parent, action) of the first
        winning child, or None once the new children are stored.

        `upcoming`: the caller's next batches will end at these states, the
        first starting at `stop`, and their parents are stored; they may be
        generated meanwhile, as far as the store's `room` (states it may
        still add; None: no limit) holds their children and this batch's."""
        if self.pool is None:
            e = self.expanders[0]
            e.lists_children = self._lists(start)
            outcome = e.generate(start, stop)
            e.insert_generated()
            return (e.won_parent, e.won_action) if outcome == SearchOutcome.SEARCH_WON else None
        bounds = [start, stop, *upcoming]
        kept = 0                        # the batches begun ahead that the caller still names
        while kept < len(self.ahead) and kept + 1 < len(bounds) and (
                (self.ahead[kept].start, self.ahead[kept].stop) == (bounds[kept], bounds[kept + 1])):
            kept += 1
        self.drop_ahead(kept)
        if not self.ahead:
            self.ahead.append(self._begin(start, stop))
            self._take_next_parts()
        batch = self.ahead.pop(0)
        winner = None
        try:
            self._begin_ahead(batch, bounds, room)
            for part, e in enumerate(batch.expanders):
                won = batch.wait_part(part) == SearchOutcome.SEARCH_WON
                e.insert_generated()
                if won:
                    winner = part
                    break
            if winner is not None:
                batch.wait()            # later parts may still be generated
                self._discount(batch, range(winner + 1, len(batch.expanders)))
                self.drop_ahead()
        except BaseException:        # MemoryError from an insert, Ctrl-C: no batch goes on
            batch.halt()
            self.drop_ahead()
            raise
        if self.ahead:
            self._take_next_parts()
        if winner is None:
            return None
        return batch.expanders[winner].won_parent, batch.expanders[winner].won_action

    def _begin_ahead(self, batch: _Round, bounds: list[int], room: Optional[int]) -> None:
        """Begin the batches after `batch` that `bounds` names, up to AHEAD,
        while the room holds their children and those of the ones before."""
        if batch.won():
            return
        held = batch.children_bound(self.n_actions) + sum(b.children_bound(self.n_actions) for b in self.ahead)
        for k in range(len(self.ahead) + 1, min(AHEAD + 1, len(bounds) - 1)):
            start, stop = bounds[k], bounds[k + 1]
            if stop <= start or (room is not None and (room - held) // self.n_actions < stop - start):
                return
            self.ahead.append(self._begin(start, stop, batch.bank))
            held += (stop - start) * self.n_actions

    def _begin(self, start: int, stop: int, inserting: int = -1) -> _Round:
        """Stage the parts of [start, stop) in the expanders of a bank that
        holds no batch begun ahead, nor the one `inserting` (no insert may
        run meanwhile), and set the other threads generating."""
        held = {batch.bank for batch in self.ahead} | {inserting}
        bank = next(k for k in range(len(self.banks)) if k not in held)
        expanders = self.banks[bank]
        n_parts = min(len(expanders), max(1, (stop - start) // MIN_PART))
        bounds = part_bounds(start, stop, n_parts)
        for k in range(n_parts):
            expanders[k].lists_children = self._lists(start)
            expanders[k].stage(bounds[k], bounds[k + 1])
        batch = _Round(expanders[:n_parts], bank, bounds)
        assert self.pool is not None
        try:
            for _ in range(min(self.threads - 1, n_parts)):
                batch.workers.append(self.pool.submit(batch.generate))
        except BaseException:       # Ctrl-C: no thread goes on with a batch nobody waits for
            self._abandon(batch)
            raise
        return batch

    def _lists(self, start: int) -> bool:
        """Whether the batch that starts at state `start` stores its children."""
        return self.unlisted_from is None or start < self.unlisted_from

    def _take_next_parts(self) -> None:
        """The main thread generates parts of the next batch too, until none
        is left to take; if it fails (Ctrl-C), no batch ahead goes on."""
        try:
            self.ahead[0].generate()
        except BaseException:
            self.drop_ahead()
            raise

    def _abandon(self, batch: _Round) -> None:
        """Stop a batch that will not be inserted, once its threads are done
        with the parts they hold, and take its counts back out."""
        batch.halt()
        self._discount(batch, range(len(batch.expanders)))

    def _discount(self, batch: _Round, parts: range) -> None:
        for column, count in enumerate(batch.counted(parts)):
            self.discounted[column] += count


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


def _shortened(core_level: CoreLevel, actions: list[int], budget: Budget,
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
    return shorten(core_level, actions, budget.deadline, WINDOW_STATES,
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
    stats = SearchStats(expanded=found.expanded, generated=found.generated, unique=found.states,
                        memory_bytes=found.stored_bytes)
    if found.solution is not None:
        found.release()
        try:
            solution = _shortened(core_level, found.solution, budget, progress, progress_every, stats)
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
    found = Pool(core_level, on_tick=_race_progress(search.progress, started, search),
                 tick_every=search.progress_every)
    try:
        decided = _race_beside(search, found, budget, threads)
    except KeyboardInterrupt:
        return search.finish(INTERRUPTED)
    if decided is not None:
        decided.satisficing_states = found.states
        return decided
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
        shorter = _shortened(core_level, splice_from_store(core_level, search.store, solution), budget,
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


def _race_beside(search: "_BreadthFirst", pool: Pool, budget: Budget, threads: int) -> Optional[SearchResult]:
    """The satisfice phase: the race of FIRST_SEARCHES until its time, its
    states or its first solution. While breadth-first layers are near
    their peak (`near_peak`), and once the race has run alone for
    RACE_ALONE_TURNS turns, breadth-first search takes turns with the
    race, each as long as its first phase ran: its result when it wins or
    sees every state on its turn, else None (the race's outcome is in
    `pool`)."""
    end = budget.until(SATISFICE)
    turn = max(MIN_TURN, search.seconds)
    alone_until = time.perf_counter() + RACE_ALONE_TURNS * turn
    turns = True        # breadth-first search may take turns: no limit stopped it
    while True:
        now = time.perf_counter()
        taking_turns = turns and (now >= alone_until or near_peak(search.layer_sizes))
        race_until = end
        if turns:
            race_until = _earlier(end, now + turn if taking_turns else alone_until)
        expanded = pool.expanded
        race(pool, FIRST_SEARCHES, budget, race_until, threads)
        racing = any(racer.outcome == SearchOutcome.SEARCH_GOING for racer in pool.racers.values())
        if (not turns or pool.solution is not None or pool.exhausted or pool.out_of_states
                or not racing or (end is not None and time.perf_counter() >= end)):
            return None
        if not taking_turns:        # the race's lone turns are over
            continue
        head = search.head
        search.phase = SATISFICE
        result = search.run(_earlier(end, time.perf_counter() + turn), final=budget.deadline)
        if result is not None and result.status in (SOLVED, UNSOLVABLE, INTERRUPTED):
            return result
        # At a limit, or with no room left for either search, the race goes on alone.
        stuck = search.head == head and pool.expanded == expanded
        turns = result is None and not stuck


def _earlier(deadline: Optional[float], other: float) -> float:
    return other if deadline is None else min(deadline, other)


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
        self.n_actions = self.batches.n_actions
        self.progress = progress
        self.progress_every = progress_every
        self.started = budget.started
        self.next_report = self.started + progress_every
        self.stats = SearchStats()
        self.phase: Phase = FIRST_BFS            # the phase it runs in, named in its results
        self.known: Optional[list[int]] = None   # a solution other searches found
        self.head = 0
        self.chunk = CHUNK                       # states of the next batch (next_chunk)
        self.layer_end = 1
        self.layer_sizes = [1]                   # states stored at each depth so far
        self.seconds = 0.0                       # spent searching
        self.pauses = TablePauses()              # seconds per parent, and per state a doubling rehashes
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
            # Batches begun ahead are not kept while other searches run.
            self.batches.drop_ahead()
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

    def _upcoming(self, stop: int) -> list[int]:
        """Where the batches after the one ending at `stop` will end, up to
        AHEAD of them, as far as the states stored already decide them (if
        the room allows them then): their parents are stored, so they can
        be generated while the batches before them are inserted. Past this
        layer's last batch come the next layer's, each once that layer
        holds it whole (so that inserting cannot make it another)."""
        stops: list[int] = []
        while len(stops) < AHEAD:
            if stop < self.layer_end:
                stop = min(stop + self.chunk, self.layer_end)
            elif len(self.store) >= stop + self.chunk:
                stop += self.chunk
            else:
                break
            stops.append(stop)
        return stops

    def _last_layer(self) -> bool:
        """Whether the layer being expanded is the last that a known
        solution leaves to search: its children are one move short of it."""
        return self.known is not None and self.stats.depth + 2 >= len(self.known)

    def _last_layer_start(self) -> Optional[int]:
        """Where the last layer a known solution leaves to search starts,
        once it is this layer (from the batch being expanded on) or the
        next; else None."""
        if self.known is None or self.stats.depth + 3 < len(self.known):
            return None
        return self.head if self._last_layer() else self.layer_end

    def _run(self, until: Optional[float], final: Optional[float]) -> Optional[SearchResult]:
        store, stats, budget = self.store, self.stats, self.budget
        try:
            # Past the store's end too when a known solution's last layer
            # was played without storing its children: the depth check
            # below then ends the search.
            while self.head < len(store) or (self.head == self.layer_end and self._last_layer()):
                if self.head == self.layer_end:
                    self.layer_sizes.append(len(store) - self.layer_end)
                    self.layer_end = len(store)
                    stats.depth += 1
                if self.known is not None and stats.depth + 1 >= len(self.known):
                    # Every solution has at least depth + 1 moves: the known one is shortest.
                    return self.finish(SOLVED, self.known)
                # The children of the layer before the known solution's last
                # move are never expanded: only a win among them matters, so
                # they are neither packed nor stored, and take no room.
                last_layer = self._last_layer()
                self.batches.unlisted_from = self._last_layer_start()
                room_states: Optional[int] = None
                if last_layer:
                    stop = min(self.head + self.chunk, self.layer_end)
                else:
                    room_states = budget.room_states()
                    before_grow = self.pauses.room_before_late_grow(store, final)
                    if before_grow is not None and before_grow < room_states:
                        room_states = before_grow
                        if room_states < self.n_actions:
                            ends = final is not None and until is not None and until >= final
                            return self.finish(LIMIT_TIME) if ends else None
                    room = room_states // self.n_actions      # a state has at most n_actions children
                    if room == 0:
                        return self.finish(LIMIT_STATES) if budget.state_cap >= budget.max_states else None
                    stop = min(self.head + self.chunk, self.layer_end, self.head + room)
                stats.peak_frontier = max(stats.peak_frontier, len(store) - self.head)
                began, slots = time.perf_counter(), store.table_slots
                won = self.batches.expand(self.head, stop, self._upcoming(stop), room_states)
                took, done = time.perf_counter() - began, stop - self.head
                if not self.pauses.measure(store, slots, done, took):   # a batch that grew the table paused for it
                    self.chunk = next_chunk(self.chunk, done, took, CHUNK)
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
