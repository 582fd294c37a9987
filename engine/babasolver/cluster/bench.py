"""bench's levels as Ray tasks: each level is app.running.run_level in a
Ray worker, under the same limits, with the same outcome, as in bench's
process pool.

At most one level a CPU of the cluster runs at once, so that a level's
clock starts when it is handed out. A level still running
`timeout` + its grace after it started is cancelled (its worker killed)
and reported as a time limit; a level whose worker dies is reported as an
error with the cause; the others go on."""
from __future__ import annotations

import os
import pickle
import time
from dataclasses import replace
from typing import Any, Callable, Dict, Optional, Sequence

from .. import stopping
from ..app.limits import MIN_SEARCH_GB, SEARCH_MEMORY_SHARE, Limits, max_gigabytes
from ..app.memory import default_memory_limit
from ..app.running import LevelOutcome, _lost, run_level, stuck_after
from ..app.tasks import LevelTask
from ..status import Status
from . import one_line, require_ray

__all__ = ["run_on_cluster"]

#: How often the driver looks at the levels running.
POLL_SECONDS = 0.1


def _within_budget(memory_limit: Optional[int], run: Callable[..., LevelOutcome], job: bytes) -> LevelOutcome:
    """Run a pickled job whose searches may hold SEARCH_MEMORY_SHARE of
    `memory_limit` bytes (default: this node's memory shared among its
    CPUs), unless its limits give --memory. Not an address-space cap, as
    in bench's pool: a Ray worker maps gigabytes before a level starts
    (8 GB here), and runs task after task; Ray's memory monitor guards
    the rest."""
    task, limits, *rest = pickle.loads(job)
    budget = memory_limit or default_memory_limit(os.cpu_count() or 1)
    if limits.memory is None and budget:
        limits = replace(limits, memory=max(MIN_SEARCH_GB, min(SEARCH_MEMORY_SHARE * budget / 2**30, max_gigabytes())))
    return run(task, limits, *rest)


def run_on_cluster(
    tasks: Sequence[LevelTask],
    limits: Limits,
    mode: str,
    done: Callable[[int, LevelOutcome], None],
    *,
    slots: int,
    memory_limit: Optional[int] = None,
    write_solutions: bool = False,
    run: Callable[..., LevelOutcome] = run_level,
    cancel_seconds: Optional[float] = None,
) -> bool:
    """Run every task as a Ray task (Ray must be connected), at most
    `slots` at once, calling `done(index, outcome)` as each ends. `run`
    takes (task, limits, mode, threads, write) as run_level does; a level
    is cancelled `cancel_seconds` after it started (default:
    stuck_after(limits.timeout)). False after Ctrl-C, when the levels
    running are reported as interrupted and cancelled."""
    ray = require_ray()
    remote = ray.remote(num_cpus=1, max_retries=0)(_within_budget)
    cancel = stuck_after(limits.timeout) if cancel_seconds is None else cancel_seconds
    waiting = list(range(len(tasks)))
    running: Dict[Any, int] = {}
    started: Dict[int, float] = {}
    try:
        while waiting or running:
            while waiting and len(running) < slots:
                index = waiting.pop(0)
                job = pickle.dumps((tasks[index], limits, mode, 1, write_solutions))
                running[remote.remote(memory_limit, run, job)] = index
                started[index] = time.monotonic()
            finished, _ = ray.wait(list(running), num_returns=1, timeout=POLL_SECONDS)
            now = time.monotonic()
            for ref in finished:
                index = running.pop(ref)
                done(index, _outcome(ray, ref, tasks[index], now - started[index]))
            if cancel is None:
                continue
            for ref, index in list(running.items()):
                if now - started[index] > cancel:
                    ray.cancel(ref, force=True)
                    del running[ref]
                    done(index, _lost(tasks[index], Status.TIME_LIMIT,
                                      f"cancelled after {now - started[index]:.0f} s: its Ray worker was killed",
                                      now - started[index]))
        return True
    except KeyboardInterrupt:
        now = time.monotonic()
        for ref, index in running.items():
            ray.cancel(ref, force=True)
            done(index, _lost(tasks[index], Status.INTERRUPTED, f"stopped by {stopping.cause()}", now - started[index]))
        return False


def _outcome(ray: Any, ref: Any, task: LevelTask, elapsed: float) -> LevelOutcome:
    """A finished Ray task's outcome; a worker that died or failed gives ERROR with the cause."""
    try:
        return ray.get(ref)
    except ray.exceptions.OutOfMemoryError as e:
        return _lost(task, Status.MEMORY_LIMIT, f"Ray killed the worker for memory: {one_line(e)}", elapsed)
    except ray.exceptions.RayError as e:
        return _lost(task, Status.ERROR, one_line(e), elapsed)
    except MemoryError:
        return _lost(task, Status.MEMORY_LIMIT, "out of memory (MemoryError)", elapsed)

