"""A first solution fast, and shorter solutions from it.

`first_solution` runs greedy best-first searches with novelty
(`_core.BestFirst`) over the same positions, turn and store as breadth-first
search: two of them, one estimating how far the texts are from a missing YOU
or WIN rule and one not, as neither alone solves what the other does; they
run at once on two threads, or take turns in chunks on one. The first
solution either finds is returned.

`splice_from_store` takes a breadth-first store's shorter way to a state of
the path, when it has one. `shorten` never lengthens a solution and keeps
it winning: it cuts the part
between two visits of one state, then from each state of the path searches
breadth-first (a small budget) for a later state of the path, or a win, in
fewer moves than the path takes, and splices the shorter way in.
"""
from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Dict, List, Optional

from ._core import BestFirst, CoreLevel, CoreSimulation, Expander, StateStore
from .level import Level

CHUNK_EXPANSIONS = 2_000            # expansions per search before the other's turn
RULE_HINTS = (True, False)          # the searches taking turns
WINDOW_STATES = 20_000              # breadth-first budget from each state of a path


@dataclass
class FirstSolution:
    solution: Optional[List[int]]   # None: none found within the budget
    exhausted: bool                 # every reachable state was seen: there is no solution
    states: int                     # states stored by the searches
    expanded: int
    generated: int


def first_solution(core_level: CoreLevel, max_states: int, deadline: Optional[float],
                   threads: int = 1) -> FirstSolution:
    """The first solution either search finds. With `threads` > 1 the two
    searches run at once (the core releases the GIL); else they take turns."""
    stores = [StateStore(1 << 16) for _ in RULE_HINTS]
    searches = [BestFirst(core_level, store, hints) for store, hints in zip(stores, RULE_HINTS)]
    for search in searches:
        search.add_root()
    pool = ThreadPoolExecutor(1) if threads > 1 else None

    def finish(solution: Optional[List[int]], exhausted: bool) -> FirstSolution:
        return FirstSolution(solution, exhausted, sum(len(s) for s in stores),
                             sum(s.expanded for s in searches), sum(s.generated for s in searches))

    try:
        while True:
            if pool is not None:
                other = pool.submit(searches[1].run, CHUNK_EXPANSIONS)
                outcomes = [searches[0].run(CHUNK_EXPANSIONS), other.result()]
            else:
                outcomes = [search.run(CHUNK_EXPANSIONS) for search in searches]
            for search, store, outcome in zip(searches, stores, outcomes):
                if outcome == 1:
                    return finish(store.path_to(search.won_parent) + [search.won_action], False)
                if outcome == -1:
                    return finish(None, True)
            if sum(len(s) for s in stores) >= max_states:
                return finish(None, False)
            if deadline is not None and time.perf_counter() >= deadline:
                return finish(None, False)
    finally:
        if pool is not None:
            pool.shutdown()


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
