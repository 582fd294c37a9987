"""A first solution fast, and shorter solutions from it.

`first_solution` races a portfolio of searches over the same positions,
turn and store as breadth-first search (`_core.BestFirst`): beam searches,
which expand layer by layer the best `width` children of the last layer,
and a greedy best-first search, both ordering states by novelty, then by
the guide's estimate. No one search solves what the others do. Measured
alone (one core each, at most 6 s) on the 22 full_biy levels
breadth-first search cannot finish in 10 s, the first solution of:

- beams of 1,000 with each guide, 10,000 with pairs and blind: all 22,
  most within 0.5 s (189 only by the pairs beam of 10,000, in 1.4 s; 197
  first by the rules beam of 1,000, 0.8 s, then shorter by the rules beam
  of 10,000, 2.8 s);
- greedy: fast where it solves (106, 154, 161, 162 in under 1.5 s), but
  each guide alone misses 6 to 13 of the 22; it stays for levels whose
  solutions are longer than a beam looks, and for proofs of
  unsolvability.

The guides:

- pairs: no estimate; a state is novel when it shows a new (text, cell),
  (noun, cell) or rule, or a text on a cell with the first YOU object on a
  cell not seen together before (IW(2) on those pairs);
- rules: nearest YOU to nearest WIN, and how far the texts are from a
  missing YOU or WIN rule, novelty counted apart for each estimate;
- rule pairs: the rules estimate with the pairs atoms;
- blind: no estimate, single atoms only (IW(1)).

The searches live in a `Pool`, kept from race to race, so a search goes
on where it stopped. Once one finds a solution, every search looks only
for shorter ones. `improve` then resumes the searches: beams of growing
width, the greedy searches last.

`splice_from_store` takes a breadth-first store's shorter way to a state of
the path, when it has one. `shorten` never lengthens a solution and keeps
it winning: it cuts the part
between two visits of one state, then from each state of the path searches
breadth-first (a small budget) for a later state of the path, or a win, in
fewer moves than the path takes, and splices the shorter way in.
"""
from __future__ import annotations

import threading
import time
from concurrent.futures import FIRST_EXCEPTION, wait
from dataclasses import dataclass
from typing import Callable, Dict, FrozenSet, List, Optional, Sequence, Tuple, Union

from ._core import BestFirst, CoreSimulation, Expander, SearchOutcome, StateStore, novelty_table_bytes
from ._ruleset import CoreLevel, Guide
from .schedule import CALL_SECONDS, Budget, TablePauses, next_chunk
from .threads import started_pool

CHUNK_EXPANSIONS = 2_000            # expansions per search before the other's turn
FIRST_PIECE = 16                    # expansions of a search's first call into the core
GUIDE_BLIND, GUIDE_RULES, GUIDE_PAIRS, GUIDE_RULE_PAIRS = (
    Guide.GUIDE_BLIND, Guide.GUIDE_RULES, Guide.GUIDE_PAIRS, Guide.GUIDE_RULE_PAIRS)


@dataclass(frozen=True)
class Search:
    guide: int
    width: int = 0                  # 0: greedy best-first; else a beam this wide


GUIDES = (GUIDE_RULE_PAIRS, GUIDE_PAIRS, GUIDE_RULES, GUIDE_BLIND)
BEAM_GUIDES = (GUIDE_PAIRS, GUIDE_BLIND, GUIDE_RULE_PAIRS, GUIDE_RULES)
BEAM_WIDTHS = (1_000, 10_000, 100_000)
# Search k runs on thread k % threads (on two: the pairs beams, and the
# rules beam; the blind beams and the greedy search, which alone can prove
# a level unsolvable and alone looks deeper than BEAM_DEPTH).
FIRST_SEARCHES = (
    Search(GUIDE_PAIRS, 10_000), Search(GUIDE_BLIND, 10_000),
    Search(GUIDE_PAIRS, 1_000), Search(GUIDE_BLIND, 1_000),
    Search(GUIDE_RULE_PAIRS, 1_000), Search(GUIDE_RULE_PAIRS),
    Search(GUIDE_RULES, 1_000))
BEAM_DEPTH = 150                    # no beam looks deeper: beyond any stored full_biy solution (100)
WINDOW_STATES = 20_000              # breadth-first budget from each state of a path ...
WINDOW_CAP = 10                     # ... which its last layer may overshoot up to this many times
TICK_SECONDS = 0.5                  # between progress reports while searches race, unless told
RACER_TABLE_STATES = 1 << 16        # a search's table starts with room for this many states ...
TABLE_BYTES_PER_SLOT = 40           # ... or fewer under a memory limit: a table takes 10-20 bytes a slot, and a little more
MIN_WAIT = 0.01                     # the racing threads are looked at no more often than this


class _Racer:
    """One search of a pool, with its own store."""

    def __init__(self, core_level: CoreLevel, spec: Search, bound: int, expected: int,
                 byte_limit: int = 0) -> None:
        """MemoryError when its novelty tables, empty table and root take
        more than `byte_limit` bytes (0: no limit)."""
        self.spec = spec
        # Novelty tables take at most half its share: under a tight limit
        # they fold more atoms onto fewer marks rather than keep the search out.
        table_limit = byte_limit // 2 if byte_limit else 0
        self.table_bytes = novelty_table_bytes(core_level, spec.guide, table_limit)
        if byte_limit and self.table_bytes >= byte_limit:
            raise MemoryError(f"novelty tables of {self.table_bytes} bytes")
        store_limit = byte_limit - self.table_bytes if byte_limit else 0
        self.store: Optional[StateStore] = StateStore(expected, byte_limit=store_limit)
        self.search: Optional[BestFirst] = BestFirst(core_level, self.store, spec.guide, bound, spec.width,
                                                     table_limit)
        self.search.add_root()
        self.outcome = SearchOutcome.SEARCH_GOING
        self.expanded = self.generated = self.stored = self.stored_bytes = 0
        self.piece = FIRST_PIECE            # expansions of its next call into the core (next_chunk)
        self.n_actions = core_level.n_actions
        self.pauses = TablePauses()

    def run(self, expansions: int = CHUNK_EXPANSIONS, final: Optional[float] = None) -> int:
        """Up to `expansions` expansions, in calls into the core that grow
        from FIRST_PIECE while they stay quick; the turn ends early once it
        took CALL_SECONDS, so that the time limit and Ctrl-C are acted on
        (the calls run without the GIL). Calls of a and b expansions do what
        one of a + b does: on a level whose states cost microseconds the
        searches take the same turns as with one call each. A search whose
        table's next doubling would end after `final` (the time limit)
        stops short of it and runs dry, proving nothing, as when its store
        reaches its share of the memory."""
        assert self.search is not None and self.store is not None
        began = time.perf_counter()
        done = 0
        try:
            while True:
                piece = min(self.piece, expansions - done)
                room = self.pauses.room_before_late_grow(self.store, final)
                if room is not None and room // self.n_actions < piece:
                    piece = room // self.n_actions
                    if piece == 0:
                        self.outcome = SearchOutcome.SEARCH_DRY
                        break
                started, slots = time.perf_counter(), self.store.table_slots
                self.outcome = self.search.run(piece)
                now = time.perf_counter()
                if not self.pauses.measure(self.store, slots, piece, now - started):
                    self.piece = next_chunk(self.piece, piece, now - started, CHUNK_EXPANSIONS)
                done += piece
                if self.outcome != SearchOutcome.SEARCH_GOING or done >= expansions or now - began >= CALL_SECONDS:
                    break
        except MemoryError:             # its store reached its share of the memory: it proves nothing
            self.outcome = SearchOutcome.SEARCH_DRY
        self.expanded, self.generated = self.search.expanded, self.search.generated
        self.stored, self.stored_bytes = len(self.store), self.memory_bytes
        return self.outcome

    def path(self) -> List[int]:
        assert self.store is not None and self.search is not None
        return self.store.path_to(self.search.won_parent) + [self.search.won_action]

    def release(self) -> None:
        """An ended search: its states are of no more use."""
        self.store = self.search = None

    @property
    def live_states(self) -> int:
        return 0 if self.store is None else len(self.store)

    @property
    def memory_bytes(self) -> int:
        """Its store's bytes and its novelty tables'."""
        return 0 if self.store is None else self.store.memory_bytes + self.table_bytes


class Pool:
    """The satisficing searches of one level, kept from race to race: a
    search goes on where it stopped, and none is started twice. Once any
    finds a solution, every search looks only for shorter ones."""

    def __init__(self, core_level: CoreLevel, bound: int = 0,
                 on_tick: Optional[Callable[["Pool"], None]] = None, tick_every: float = TICK_SECONDS) -> None:
        self.core_level = core_level
        self.on_tick = on_tick              # progress, called from the thread that started the race
        self.tick_every = tick_every        # seconds between two calls of on_tick
        self.next_tick = time.perf_counter() + tick_every
        self.bound = bound                  # only solutions shorter than this (0: any)
        self.racers: Dict[Search, _Racer] = {}
        self.solution: Optional[List[int]] = None   # the shortest found
        self.winner: Optional[Search] = None        # the search that found it
        self.exhausted = False              # a search saw every reachable state: no solution
        self.out_of_states = False          # the last race stopped at the budget's states

    def racer(self, spec: Search, expected: int = RACER_TABLE_STATES, byte_limit: int = 0) -> Optional[_Racer]:
        """The search `spec`, started with a table for `expected` states if
        new; None when its table and root do not fit in `byte_limit` bytes
        (0: no limit)."""
        if spec not in self.racers:
            bound = self.bound or (BEAM_DEPTH if spec.width else 0)
            try:
                self.racers[spec] = _Racer(self.core_level, spec, bound, expected, byte_limit)
            except MemoryError:
                return None
        return self.racers[spec]

    def release(self) -> None:
        """No search will go on: their stores are freed (the counters stay)."""
        for racer in self.racers.values():
            racer.release()

    def found(self, racer: _Racer) -> bool:
        """Takes the solution of a search that won; True if it is shorter
        than the best so far."""
        path = racer.path()
        if self.solution is not None and len(path) >= len(self.solution):
            return False
        self.solution, self.winner, self.bound = path, racer.spec, len(path)
        for other in self.racers.values():
            if other.search is not None:
                other.search.tighten(len(path))
        return True

    def tick(self) -> None:
        """Reports progress, at most every `tick_every` seconds, once the
        searches have stored something: a tick can come before any search
        has run its first chunk (the race's threads are only starting),
        and a report of nothing at all tells nothing."""
        now = time.perf_counter()
        if self.on_tick is not None and now >= self.next_tick and self.states:
            self.next_tick = now + self.tick_every
            self.on_tick(self)

    @property
    def ended(self) -> FrozenSet[Search]:
        return frozenset(spec for spec, racer in self.racers.items() if racer.outcome != SearchOutcome.SEARCH_GOING)

    @property
    def states(self) -> int:
        """States stored by the searches."""
        return sum(racer.stored for racer in self.racers.values())

    @property
    def stored_bytes(self) -> int:
        """Bytes the searches' stores held at their last turn (ended ones too)."""
        return sum(racer.stored_bytes for racer in self.racers.values())

    @property
    def live_states(self) -> int:
        """States held by the searches that can still go on."""
        return sum(racer.live_states for racer in self.racers.values())

    @property
    def memory_bytes(self) -> int:
        """Bytes held by the searches that can still go on (stores, novelty tables)."""
        return sum(racer.memory_bytes for racer in self.racers.values())

    @property
    def expanded(self) -> int:
        return sum(racer.expanded for racer in self.racers.values())

    @property
    def generated(self) -> int:
        return sum(racer.generated for racer in self.racers.values())


Limit = Union[Budget, int]


def as_budget(limit: Limit) -> Budget:
    """A budget, or one of `limit` states and no time or memory limit."""
    return limit if isinstance(limit, Budget) else Budget(None, limit)


def race(pool: Pool, portfolio: Sequence[Search], limit: Limit, deadline: Optional[float],
         threads: int = 1, until_each_ends: bool = False, lead: bool = False) -> Pool:
    """Runs the searches of `portfolio` that have not ended, each from where
    it stopped, until the deadline, the end of the room `limit` (a Budget,
    or a number of states) grants the pool's stores (a store that cannot
    grow within its grant ends its search), or the first shorter solution
    (with `until_each_ends`: until each ends). Stopping at
    the first costs nothing, as later races resume the others (letting them
    go on a while, when races started searches again from the root, left
    197 too little time for the rules beam of 10,000 that shortens it).
    A beam that runs dry, or a search that runs out of states under a
    bound, proves nothing; a greedy search that runs out of states without
    a bound proves the level unsolvable and ends the race.

    The searches take turns in chunks of at most CHUNK_EXPANSIONS on
    `threads` threads (the core releases the GIL), search k on thread
    k % threads; or, with `lead`, the first search has a thread of its own.
    Each chunk is granted room for all the states it could add first."""
    budget = as_budget(limit)
    if pool not in budget.holders:
        budget.holders.append(pool)
    new = [spec for spec in portfolio if spec not in pool.racers]
    room_bytes = budget.room_bytes()
    roots = budget.grant(len(new))        # a new search stores its root: as many as there is room for
    try:
        expected = RACER_TABLE_STATES
        if room_bytes is not None and new:
            expected = max(1, min(expected, room_bytes // (TABLE_BYTES_PER_SLOT * len(new))))
        for spec in new[:roots.states]:
            # Even an empty table takes bytes: a search starts only if its own share holds it.
            share = 0 if room_bytes is None else max(1, room_bytes // len(new))
            if pool.racer(spec, expected, share) is None:
                break
    finally:
        budget.give_back(roots)
    racers = [pool.racers[spec] for spec in portfolio if spec in pool.racers]
    racers = [racer for racer in racers if racer.outcome == SearchOutcome.SEARCH_GOING]
    n_actions = pool.core_level.n_actions
    pool.out_of_states = False
    stop = threading.Event()
    lock = threading.Lock()

    def end_of_search(racer: _Racer) -> None:
        with lock:
            if racer.outcome == SearchOutcome.SEARCH_EXHAUSTED and racer.search is not None and not racer.search.bound:
                pool.exhausted = True
                stop.set()
            elif racer.outcome == SearchOutcome.SEARCH_WON and pool.found(racer) and not until_each_ends:
                stop.set()
            racer.release()

    def run_granted(racer: _Racer, sharers: int) -> bool:
        """One chunk of `racer` within a grant; False when no room is left."""
        assert racer.store is not None
        granted = budget.grant(CHUNK_EXPANSIONS * n_actions, sharers)
        try:
            if granted.states < n_actions or (budget.memory is not None and granted.bytes == 0):
                pool.out_of_states = granted.states < n_actions
                return False
            racer.store.byte_limit = 0 if budget.memory is None else racer.store.memory_bytes + granted.bytes
            if racer.run(granted.states // n_actions, budget.deadline) != SearchOutcome.SEARCH_GOING:
                end_of_search(racer)
            return True
        finally:
            budget.give_back(granted)

    def drive(group: List[_Racer], sharers: int, reports: bool = False) -> None:
        """The searches of `group` in turns, until the race ends."""
        while not stop.is_set():
            active = [racer for racer in group if racer.outcome == SearchOutcome.SEARCH_GOING]
            if not active:
                return
            for racer in active:
                if not run_granted(racer, sharers):
                    stop.set()
                    return
            if reports:
                pool.tick()
            if deadline is not None and time.perf_counter() >= deadline:
                stop.set()

    n = min(threads, len(racers))
    if n == 0:
        return pool
    if lead and n > 1:
        groups = [racers[:1], racers[1:]]
    else:
        groups = [racers[k::n] for k in range(n)]
    executor, started = started_pool(len(groups)) if len(groups) > 1 else (None, 0)
    if 1 < started < len(groups):     # fewer threads could start
        groups = [racers[k::started] for k in range(started)]
    if executor is not None and started > 1:
        with executor:
            running = [executor.submit(drive, group, len(groups)) for group in groups]
            try:
                while not all(future.done() for future in running):
                    wait(running, timeout=max(pool.tick_every, MIN_WAIT), return_when=FIRST_EXCEPTION)
                    pool.tick()
                for future in running:
                    future.result()
            finally:
                stop.set()           # Ctrl-C or an error: the others stop after their chunk
    else:
        if executor is not None:
            executor.shutdown()
        drive(racers, 1, reports=True)
    return pool


def first_solution(core_level: CoreLevel, limit: Limit, deadline: Optional[float],
                   threads: int = 1, on_tick: Optional[Callable[[Pool], None]] = None,
                   tick_every: float = TICK_SECONDS) -> Pool:
    """A solution fast: the race of FIRST_SEARCHES, in a new pool
    (`on_tick(pool)` reports progress every `tick_every` seconds, then and
    in later races)."""
    return race(Pool(core_level, on_tick=on_tick, tick_every=tick_every), FIRST_SEARCHES, limit, deadline,
                threads)


def improve(pool: Pool, limit: Limit, deadline: Optional[float], threads: int = 1,
            widths: Sequence[int] = BEAM_WIDTHS, greedy: bool = True) -> Pool:
    """Shorter solutions than the pool's, until the deadline: beams of each
    width of `widths` in turn, then, with `greedy`, the greedy searches,
    each search going on from where it stopped. The beam with the guide of
    the search that found the best solution so far has a thread of its
    own: a guide that suits a level tends to keep suiting it."""
    for width in widths:
        if deadline is not None and time.perf_counter() >= deadline:
            return pool
        guides = sorted(BEAM_GUIDES, key=lambda g: pool.winner is None or g != pool.winner.guide)
        race(pool, [Search(g, width) for g in guides], limit, deadline, threads,
             until_each_ends=True, lead=True)
    if greedy:
        race(pool, [Search(g) for g in GUIDES], limit, deadline, threads, until_each_ends=True)
    return pool


def _path_records(core: CoreLevel, actions: List[int]) -> List[bytes]:
    """The packed state before each action (the last action wins)."""
    sim = CoreSimulation(core)
    records = [sim.pack()]
    for action in actions[:-1]:
        sim.step(action)
        records.append(sim.pack())
    return records


def splice_from_store(core: CoreLevel, store: StateStore, actions: List[int]) -> List[int]:
    """Use a breadth-first store from the level's root: where a state of the
    path was reached there in fewer moves, take that way to it instead (the
    state farthest along the path that saves the most). Records are
    canonical, so the path's states are found by their bytes."""
    best: Tuple[int, Optional[int], int] = (0, None, 0)   # (moves saved, store index, path index)
    for j, record in enumerate(_path_records(core, actions)):
        index = store.find(record)
        if index >= 0:
            saved = j - store.depth(index)
            if saved > best[0]:
                best = (saved, index, j)
    if best[1] is None:
        return actions
    return store.path_to(best[1]) + actions[best[2]:]


def cut_cycles(core: CoreLevel, actions: List[int]) -> List[int]:
    """Drop the moves between two visits of one state."""
    records = _path_records(core, actions)
    first: Dict[bytes, int] = {}
    out: List[int] = []
    states: List[bytes] = []
    for record, action in zip(records, actions):
        if record in first:
            cut = first[record]
            for gone in states[cut:]:
                del first[gone]
            del out[cut:], states[cut:]
        first[record] = len(out)
        states.append(record)
        out.append(action)
    return out


class _Late(Exception):
    """The deadline passed within a search for a shortcut."""


def _shortcut(core_level: CoreLevel, start: bytes, origin: int, later: Dict[bytes, int],
              limit: int, budget: int, cap: int, byte_limit: int = 0,
              deadline: Optional[float] = None) -> Optional[tuple[List[int], int]]:
    """Breadth-first from `start` (the state at index `origin` of a path)
    for a way to a state of `later` (record -> index on the path) or to a win
    in fewer moves than the path takes; at most `limit` moves, no layer
    begun past `budget` states, never more than `cap` states nor
    `byte_limit` bytes (0: no limit). (moves, path index reached; -1 for a
    win), or None. Raises _Late once `deadline` has passed: its calls into
    the core are sized to end within about CALL_SECONDS each."""
    try:
        store = StateStore(min(1 << 12, max(1, cap)), byte_limit=byte_limit)
        store.add(start)
        expander = Expander(core_level, store)
        n_actions = expander.n_actions
        head, depth, chunk = 0, 0, FIRST_PIECE
        while head < len(store) and depth < limit and len(store) < budget:
            layer_end = len(store)
            depth += 1
            full = False
            while head < layer_end:     # in parts that cannot store more than the cap
                room = (cap - len(store)) // n_actions
                if room <= 0:
                    full = True
                    break
                stop = min(layer_end, head + room, head + chunk)
                began = time.perf_counter()
                if expander.expand(head, stop) == SearchOutcome.SEARCH_WON:
                    path = store.path_to(expander.won_parent) + [expander.won_action]
                    return path, -1
                now = time.perf_counter()
                chunk = next_chunk(chunk, stop - head, now - began, cap)
                head = stop
                if deadline is not None and now >= deadline:
                    raise _Late
            best, saved = None, 0
            for index in range(layer_end, len(store)):
                reached = later.get(store.get(index))
                if reached is not None and reached - origin - depth > saved:
                    best, saved = (index, reached), reached - origin - depth
            if best is not None:
                return store.path_to(best[0]), best[1]
            if full:
                return None
    except MemoryError:             # its share of the memory: no shortcut from here
        return None
    return None


def shorten(core_level: CoreLevel, actions: List[int],
            deadline: Optional[float] = None, budget: int = WINDOW_STATES, cap: Optional[int] = None,
            byte_limit: int = 0, on_step: Optional[Callable[[int], None]] = None) -> List[int]:
    """A solution no longer than `actions`, still winning. Each search for
    a shortcut begins no layer past `budget` states (its last layer may
    take it to some times that), and holds at most `cap` states (None:
    WINDOW_CAP times `budget`) and `byte_limit` bytes (0: no limit); the
    searches end at `deadline`, within one call into the core.
    `on_step(length)` is called before each search for a shortcut."""
    cap = WINDOW_CAP * budget if cap is None else cap
    actions = cut_cycles(core_level, actions)
    records = _path_records(core_level, actions)
    i = 0
    while i < len(actions) - 1:
        if deadline is not None and time.perf_counter() >= deadline:
            break
        if on_step is not None:
            on_step(len(actions))
        later = {records[j]: j for j in range(i + 2, len(records))}
        try:
            found = _shortcut(core_level, records[i], i, later, len(actions) - i - 1, budget, cap, byte_limit,
                              deadline)
        except _Late:
            break
        if found is None:
            i += 1
            continue
        moves, reached = found
        if reached < 0:
            actions = actions[:i] + moves
        else:
            actions = actions[:i] + moves + actions[reached:]
        records = _path_records(core_level, actions)
    return actions
