"""Breadth-first search over a visited set split by hash among Ray actors,
with delayed duplicate detection, layer by layer (as Korf and Schultze
searched the Fifteen Puzzle).

Each worker (cluster.actor.PartWorker) owns the states whose hash falls
in its part. A layer is expanded in rounds: every worker generates the
children of up to `round_states` states of its share of the layer and
splits them by owner; it stores its own at once and each other worker
receives its packet (numpy buffers, which Ray passes without copying on
one node) and stores the new states. A layer is done when every worker's
share of it is; the states stored meanwhile are the next layer.

The driver proves what the one-process search proves: every state of a
layer is expanded before any of the next, so the first layer holding a
winning child gives the shortest length; a level is unsolvable only when
a whole layer is expanded everywhere and no worker stored a new state;
and a search stopped early claims only the layers it finished. A worker
that dies ends the search with the status ERROR, its cause and that bound,
never with a verdict."""
from __future__ import annotations

import time
import uuid
from typing import TYPE_CHECKING, Any, List, Optional, Sequence

from .._core import STORE_CAPACITY
from ..errors import BabaError
from ..level import Level
from ..notation import Action
from ..solver import INITIAL_TABLE_STATES, TABLE_BYTES_PER_STATE, SearchResult
from ..schedule import FIRST_BFS
from ..status import Status
from . import one_line, require_ray
from .actor import Expanded, PartWorker, Stored
from .stats import ClusterStats

if TYPE_CHECKING:
    from ..app.solving import Search

__all__ = ["ClusterStats", "ROUND_STATES", "WORKER_NAME", "solve_on_cluster", "cluster_search"]

#: States each worker expands in a round: enough that a round's Ray calls
#: cost little beside it, few enough that its packets stay small (some
#: 4 children of some 60 bytes each a state) and a limit is heard soon.
ROUND_STATES = 1 << 15
#: Each worker is a named actor, "babasolver-bfs-<search>-<part>".
WORKER_NAME = "babasolver-bfs"


class WorkerLost(Exception):
    """A worker died or failed: the search cannot go on, nor conclude."""


class _Search:
    def __init__(self, level: Level, workers: int, max_states: int, memory: Optional[int],
                 started: float) -> None:
        self.ray = require_ray()
        # A worker holds its CPU while the search lasts: without one each,
        # the last would wait for a CPU forever.
        cpus = self.ray.cluster_resources().get("CPU", 0)
        if cpus < workers:
            raise BabaError(f"--workers {workers}: the Ray cluster has {cpus:g} CPUs, and each worker needs one")
        self.parts = workers
        self.max_states = max_states
        self.started = started
        expected = max(1, min(max_states // workers, INITIAL_TABLE_STATES))
        if memory is not None:          # as the one-process search sizes its table
            expected = max(1, min(expected, memory // TABLE_BYTES_PER_STATE))
        remote = self.ray.remote(num_cpus=1, max_restarts=0, max_task_retries=0)(PartWorker)
        search = uuid.uuid4().hex[:8]
        self.actors = [remote.options(name=f"{WORKER_NAME}-{search}-{k}").remote(level, workers, k, expected, memory)
                       for k in range(workers)]
        self.stats = ClusterStats(workers=workers, states_per_worker=[0] * workers)

    def close(self) -> None:
        for actor in self.actors:
            self.ray.kill(actor)

    def get(self, refs: Sequence[Any]) -> List[Any]:
        """The values of one ref per worker, or WorkerLost naming the first that failed."""
        errors = self.ray.exceptions.RayError
        try:
            return self.ray.get(list(refs))
        except errors:
            pass
        for k, ref in enumerate(refs):
            try:
                self.ray.get(ref)
            except errors as e:
                raise WorkerLost(f"worker {k} of {self.parts} failed: {one_line(e)}") from None
        raise WorkerLost("a worker failed")     # every value came: the failure was passing between them

    def result(self, status: Status, path: Optional[List[int]] = None, note: str = "") -> SearchResult:
        stats = self.stats
        stats.elapsed = time.perf_counter() - self.started
        solution = None if path is None else [Action(a) for a in path]
        # Every state of the layer being expanded was generated without a win.
        bound = len(path) if path is not None else stats.depth + 1
        limit = status if status.is_limit else None
        proven = status in (Status.SOLVED, Status.UNSOLVABLE)
        # One phase, as `--mode shortest` has: breadth-first search.
        return SearchResult(status, solution, stats, proven_shortest=proven,
                            lower_bound=bound, limit=limit, note=note,
                            found_by=FIRST_BFS.name if solution is not None else None,
                            proved_by=FIRST_BFS.name if proven else None)

    def count(self, expanded: Sequence[Expanded], stored: Sequence[Stored]) -> None:
        stats = self.stats
        stats.generated = sum(e.generated for e in expanded)
        stats.expanded = sum(e.expanded for e in expanded)
        stats.dead_ends = sum(e.dead_ends for e in expanded)
        stats.illegal = sum(e.illegal for e in expanded)
        stats.bytes_exchanged = sum(e.sent for e in expanded)
        stats.states_per_worker = [s.states for s in stored]
        stats.unique = sum(stats.states_per_worker)
        stats.memory_bytes = sum(s.memory_bytes for s in stored)

    def round(self, round_states: int) -> tuple:
        """One round: every worker expands, then stores what the others sent it."""
        n = self.parts
        outs = [a.expand.options(num_returns=n + 1).remote(round_states) for a in self.actors]
        receipts = [a.receive.remote(*[outs[s][k] for s in range(n) if s != k])
                    for k, a in enumerate(self.actors)]
        expanded: List[Expanded] = self.get([out[n] for out in outs])
        winner = next((k for k, e in enumerate(expanded) if e.won is not None), None)
        stored: List[Stored] = self.get(receipts)
        return expanded, stored, winner

    def path(self, part: int, index: int, action: int) -> List[int]:
        """The actions from the root to the child `action` of state `index` of `part`."""
        moves = [action]
        while True:
            parent, move = self.get([self.actors[part].parent.remote(index)])[0]
            if parent is None:
                break
            moves.append(move)
            part, index = parent % self.parts, parent // self.parts
        moves.reverse()
        return moves


def solve_on_cluster(
    level: Level,
    workers: int,
    max_states: int = STORE_CAPACITY,
    timeout: Optional[float] = None,
    memory: Optional[int] = None,
    progress: Optional[Any] = None,
    progress_every: float = 0.5,
    round_states: int = ROUND_STATES,
) -> SearchResult:
    """Breadth-first search of `level` over `workers` Ray actors (Ray must be
    connected: see cluster.connect), each holding at most `memory` bytes of
    states (None: no limit). The result is the one-process breadth-first
    search's (solver.solve, mode "shortest"): the same status, length and
    lower bound, with ClusterStats. Ctrl-C gives INTERRUPTED; a worker
    that dies, ERROR with the cause in `note` and the bound reached."""
    if workers < 1:
        raise ValueError(f"workers must be at least 1, not {workers}")
    if round_states < 1:
        raise ValueError(f"round_states must be at least 1, not {round_states}")
    started = time.perf_counter()
    deadline = None if timeout is None else started + timeout
    search = _Search(level, workers, max_states, memory, started)
    stats = search.stats
    next_report = started + progress_every
    try:
        dead = search.get([a.root_is_dead.remote() for a in search.actors])[0]
        stats.startup = time.perf_counter() - started
        if dead:        # the root is stored, in its owner's part, as one process stores it
            search.count([], search.get([a.receive.remote() for a in search.actors]))
            return search.result(Status.UNSOLVABLE)
        stats.peak_frontier = 1
        while True:
            while True:
                expanded, stored, winner = search.round(round_states)
                stats.rounds += 1
                search.count(expanded, stored)
                if winner is not None:
                    parent, action = expanded[winner].won  # type: ignore[misc]
                    path = search.path(winner, parent, action)
                    stats.depth = len(path)
                    return search.result(Status.SOLVED, path)
                full = next((why for why in [e.full for e in expanded] + [s.full for s in stored] if why), None)
                if full is not None:
                    return search.result(Status.MEMORY_LIMIT, note=full)
                if stats.unique >= max_states:
                    return search.result(Status.STATE_LIMIT)
                now = time.perf_counter()
                if deadline is not None and now >= deadline:
                    return search.result(Status.TIME_LIMIT)
                if progress is not None and now >= next_report:
                    stats.elapsed = now - started
                    progress(stats)
                    next_report = now + progress_every
                if all(e.left == 0 for e in expanded):
                    break
            frontier = sum(search.get([a.next_layer.remote() for a in search.actors]))
            if frontier == 0:
                return search.result(Status.UNSOLVABLE)
            stats.depth += 1
            stats.peak_frontier = max(stats.peak_frontier, frontier)
    except WorkerLost as e:
        return search.result(Status.ERROR, note=str(e))
    except KeyboardInterrupt:
        return search.result(Status.INTERRUPTED)
    finally:
        search.close()


def cluster_search(workers: int, round_states: int = ROUND_STATES) -> "Search":
    """solve_level's search over `workers` workers: `limits.memory` GB
    each, or by default an even share of the memory this machine has
    available (where a local cluster runs them all)."""
    from ..app.limits import Limits

    def search(level: Level, limits: Limits, progress: Optional[Any], progress_every: float) -> SearchResult:
        memory = limits.memory_bytes()
        if limits.memory is None and memory is not None:
            memory = max(1, memory // workers)
        return solve_on_cluster(level, workers, limits.max_states, limits.timeout, memory, progress,
                                progress_every, round_states)
    return search
