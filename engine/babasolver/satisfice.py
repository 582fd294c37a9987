"""A first solution fast, and shorter solutions from it.

`first_solution` runs a portfolio of best-first searches with novelty
(`_core.BestFirst`) over the same positions, turn and store as breadth-first
search, as no one of them solves what the others do (measured alone, 10 s
each, on the full_biy levels breadth-first search cannot finish in 10 s):

- rule pairs: the rules search's estimate with the pairs search's atoms;
  the strongest overall (it alone solves 188 and 196 in time);
- pairs: no estimate; a state is novel when it shows a new (text, cell),
  (noun, cell) or rule, or a text on a cell with the first YOU object on a
  cell not seen together before (IW(2) on those pairs); alone it solves 83
  and 127;
- rules: nearest YOU to nearest WIN, and how far the texts are from a
  missing YOU or WIN rule, novelty counted apart for each estimate; alone
  it solves 197;
- blind: no estimate, single atoms only (IW(1), then breadth-first); alone
  it solves 41.

With `threads` > 1 the first search has a thread of its own and the others
take turns on another; on one thread all take turns, in chunks. Once one
finds a solution, the others go on for as long again, and the shortest
solution found is returned. The first solution any finds is returned.

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
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Dict, List, Optional

from ._core import BestFirst, CoreLevel, CoreSimulation, Expander, StateStore
from .level import Level

CHUNK_EXPANSIONS = 2_000            # expansions per search before the other's turn
GUIDE_BLIND, GUIDE_RULES, GUIDE_PAIRS, GUIDE_RULE_PAIRS = 0, 1, 3, 4   # _bestfirst.pxi (2 added nothing)
# The first has a thread of its own on two cores; the others take turns.
GUIDES = (GUIDE_RULE_PAIRS, GUIDE_PAIRS, GUIDE_RULES, GUIDE_BLIND)
GRACE = 1.0                         # after a first solution, the others go on this much longer
WINDOW_STATES = 20_000              # breadth-first budget from each state of a path


@dataclass
class FirstSolution:
    solution: Optional[List[int]]   # None: none found within the budget
    exhausted: bool                 # every reachable state was seen: there is no solution
    states: int                     # states stored by the searches
    expanded: int
    generated: int


def first_solution(core_level: CoreLevel, max_states: int, deadline: Optional[float],
                   threads: int = 1, bound: int = 0) -> FirstSolution:
    """The shortest solution the portfolio finds: once one search finds a
    solution, the others go on for GRACE times the time taken so far (within
    the budget), and the shortest of the solutions found is returned.

    With `threads` > 1 the first `threads` - 1 searches run on a thread each
    and the rest take turns on the last thread (the core releases the GIL);
    on one thread all take turns, in chunks of CHUNK_EXPANSIONS. With a
    `bound`, only solutions of fewer moves are looked for, and a search that
    runs out of states proves nothing."""
    started = time.perf_counter()
    stores = [StateStore(1 << 16) for _ in GUIDES]
    searches = [BestFirst(core_level, store, guide, bound) for store, guide in zip(stores, GUIDES)]
    for search in searches:
        search.add_root()
    outcomes: List[int] = [0] * len(searches)
    stop = threading.Event()
    until = [deadline]                      # the deadline, or the end of the grace once one has won
    lock = threading.Lock()

    def end_of_search(k: int) -> None:
        if outcomes[k] == -1 and bound:
            return                          # only this search's bounded space is exhausted
        if outcomes[k] != 1:                # exhausted (no solution exists) or out of memory
            stop.set()
            return
        with lock:
            now = time.perf_counter()
            grace = now + GRACE * (now - started)
            if until[0] is None or grace < until[0]:
                if not any(o == 1 for j, o in enumerate(outcomes) if j != k):
                    until[0] = grace

    def drive(group: List[int]) -> None:
        """The searches of `group` in turns, until the portfolio ends."""
        while not stop.is_set():
            active = [k for k in group if outcomes[k] == 0]
            if not active:
                return
            for k in active:
                outcomes[k] = searches[k].run(CHUNK_EXPANSIONS)
                if outcomes[k] != 0:
                    end_of_search(k)
            if (sum(len(s) for s in stores) >= max_states
                    or (until[0] is not None and time.perf_counter() >= until[0])):
                stop.set()

    n = min(threads, len(searches))
    groups = [[k] for k in range(n - 1)] + [list(range(n - 1, len(searches)))]
    if len(groups) > 1:
        with ThreadPoolExecutor(len(groups)) as pool:
            running = [pool.submit(drive, group) for group in groups]
            try:
                for future in running:
                    future.result()
            finally:
                stop.set()           # Ctrl-C or an error: the others stop after their chunk
    else:
        drive(groups[0])

    states = sum(len(s) for s in stores)
    expanded, generated = sum(s.expanded for s in searches), sum(s.generated for s in searches)
    paths = [store.path_to(search.won_parent) + [search.won_action]
             for search, store, outcome in zip(searches, stores, outcomes) if outcome == 1]
    if paths:
        return FirstSolution(min(paths, key=len), False, states, expanded, generated)
    return FirstSolution(None, -1 in outcomes and not bound, states, expanded, generated)


def improve(core_level: CoreLevel, solution: List[int], max_states: int, deadline: Optional[float],
            threads: int = 1) -> List[int]:
    """Shorter solutions from the root: the portfolio again, each time only
    for solutions shorter than the best so far, until it finds none or the
    deadline comes."""
    best = solution
    while deadline is None or time.perf_counter() < deadline:
        found = first_solution(core_level, max_states, deadline, threads, bound=len(best))
        if found.solution is None or len(found.solution) >= len(best):
            break
        best = found.solution
    return best


def _path_records(level: Level, actions: List[int]) -> List[bytes]:
    """The packed state before each action (the last action wins)."""
    sim = CoreSimulation(level.width, level.height, level.grid)
    records = [sim.pack()]
    for action in actions[:-1]:
        sim.step(action)
        records.append(sim.pack())
    return records


def splice_from_store(level: Level, store: StateStore, actions: List[int]) -> List[int]:
    """Use a breadth-first store from the level's root: where a state of the
    path was reached there in fewer moves, take that way to it instead (the
    state farthest along the path that saves the most). Records are
    canonical, so the path's states are found by their bytes."""
    best = (0, None, 0)                     # (moves saved, store index, path index)
    for j, record in enumerate(_path_records(level, actions)):
        index = store.find(record)
        if index >= 0:
            saved = j - store.depth(index)
            if saved > best[0]:
                best = (saved, index, j)
    if best[1] is None:
        return actions
    return store.path_to(best[1]) + actions[best[2]:]


def cut_cycles(level: Level, actions: List[int]) -> List[int]:
    """Drop the moves between two visits of one state."""
    records = _path_records(level, actions)
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


def _shortcut(core_level: CoreLevel, start: bytes, origin: int, later: Dict[bytes, int],
              limit: int, budget: int) -> Optional[tuple[List[int], int]]:
    """Breadth-first from `start` (the state at index `origin` of a path)
    for a way to a state of `later` (record -> index on the path) or to a win
    in fewer moves than the path takes; at most `limit` moves and `budget`
    states. (moves, path index reached; -1 for a win), or None."""
    store = StateStore(1 << 12)
    store.add(start)
    expander = Expander(core_level, store)
    head, depth = 0, 0
    while head < len(store) and depth < limit and len(store) < budget:
        stop = len(store)
        depth += 1
        if expander.expand(head, stop):
            path = store.path_to(expander.won_parent) + [expander.won_action]
            return path, -1
        best, saved = None, 0
        for index in range(stop, len(store)):
            reached = later.get(store.get(index))
            if reached is not None and reached - origin - depth > saved:
                best, saved = (index, reached), reached - origin - depth
        if best is not None:
            return store.path_to(best[0]), best[1]
        head = stop
    return None


def shorten(level: Level, core_level: CoreLevel, actions: List[int],
            deadline: Optional[float] = None, budget: int = WINDOW_STATES) -> List[int]:
    """A solution no longer than `actions`, still winning."""
    actions = cut_cycles(level, actions)
    i = 0
    while i < len(actions) - 1:
        if deadline is not None and time.perf_counter() >= deadline:
            break
        records = _path_records(level, actions)
        later = {records[j]: j for j in range(i + 2, len(records))}
        found = _shortcut(core_level, records[i], i, later, len(actions) - i - 1, budget)
        if found is None:
            i += 1
            continue
        moves, reached = found
        if reached < 0:
            actions = actions[:i] + moves
        else:
            actions = actions[:i] + moves + actions[reached:]
    return actions
