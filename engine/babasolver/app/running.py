"""Run many levels: in this process, or in worker processes under a memory
limit, reporting through callbacks.

The worker processes are pebble's `ProcessPool`: its initializer caps each
worker's address space (RLIMIT_AS), a task that outlives its search by far
is timed out, and a worker that dies fails only its own level, which is
reported with the reason (a search that runs out of memory raises
MemoryError and gives Status.MEMORY_LIMIT; a worker killed from outside says
how it died).
"""
from __future__ import annotations

import contextlib
import multiprocessing
import os
import pickle
import resource
import signal
import sys
import threading
import time
from concurrent.futures import FIRST_COMPLETED, Future, wait
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from multiprocessing.process import BaseProcess
from typing import TYPE_CHECKING, Callable, Dict, Iterator, List, Optional, Sequence, Tuple

from .. import stopping
from ..errors import BabaError, file_error
from ..game import replay
from ..notation import Action, parse_solution
from ..rulesets import DEFAULT_RULES
from ..solver import DEFAULT_MODE, SearchStats
from ..status import Status
from .limits import Limits
from .memory import default_memory_limit
from .solving import SolutionFile, solution_file_after, solve_level
from .tasks import LevelTask

if TYPE_CHECKING:
    from pebble import ProcessPool

__all__ = ["Sample", "LevelOutcome", "run_level", "run_many", "PROGRESS_EVERY"]

#: Seconds between progress samples of a search.
PROGRESS_EVERY = 0.25

Sample = Tuple[int, int, float]    # (unique, generated, elapsed)
OnDone = Callable[[int, int, "LevelOutcome"], None]
OnProgress = Callable[[LevelTask, SearchStats], None]


@dataclass
class LevelOutcome:
    """What a run learned about one level."""

    id: str
    status: Status
    solution: Optional[List[Action]] = None   # the solution found (for WRONG: the one that failed)
    verified: bool = False                    # the solution replayed to a win on its last move
    reference_moves: Optional[int] = None
    expanded: int = 0
    generated: int = 0
    unique: int = 0
    dead_ends: int = 0
    depth: int = 0
    peak_frontier: int = 0
    elapsed: float = 0.0                      # seconds of search
    memory_bytes: int = 0                     # bytes held by the visited table at the end
    samples: List[Sample] = field(default_factory=list)
    note: str = ""
    proven_shortest: bool = False             # no solution has fewer moves (or: proven unsolvable)
    lower_bound: Optional[int] = None         # every solution has at least this many moves
    limit: Optional[str] = None               # the limit that stopped breadth-first search
    found_by: Optional[str] = None            # the phase of the search that found the solution
    proved_by: Optional[str] = None           # the phase that proved it shortest, or the level unsolvable
    reference_wins: Optional[bool] = None     # the set's stored solution wins (None: no reference)
    judge: Optional[str] = None               # "accepted" or "rejected: why" with a judge
    name: str = ""                            # the level's name
    rules: str = DEFAULT_RULES                # the rule set it was played by
    solution_file: Optional[SolutionFile] = None   # a folder's solution file after the run

    @property
    def solved(self) -> bool:
        return self.status == Status.SOLVED

    @property
    def moves(self) -> Optional[int]:
        return len(self.solution) if self.solved and self.solution is not None else None

    @property
    def states_per_second(self) -> float:
        return self.generated / self.elapsed if self.elapsed > 0 else 0.0

    @property
    def bytes_per_state(self) -> Optional[float]:
        return self.memory_bytes / self.unique if self.unique > 0 and self.memory_bytes > 0 else None


def _reference_wins(task: LevelTask) -> Optional[bool]:
    if not task.reference or task.level is None:
        return None
    try:
        return replay(task.level, parse_solution(task.reference)).won
    except BabaError:
        return None


def _one_line(e: BaseException) -> str:
    located = file_error(e) if isinstance(e, OSError) else None
    return located or f"{type(e).__name__}: {' '.join(str(e).splitlines())}"


def run_level(
    task: LevelTask,
    limits: Limits = Limits.for_many(),
    mode: str = DEFAULT_MODE,
    threads: int = 1,
    write_solution: bool = False,
    on_progress: Optional[Callable[[SearchStats], None]] = None,
    progress_every: float = PROGRESS_EVERY,
) -> LevelOutcome:
    """Search one level and say how it went. A level that cannot be read or
    won gives ERROR with the reason; MemoryError gives MEMORY_LIMIT; any
    other exception gives ERROR (KeyboardInterrupt propagates). With
    `write_solution`, a folder level's solution file ends holding the
    shortest solution known (see solving.solve_level)."""
    outcome = LevelOutcome(task.id, Status.ERROR, reference_moves=task.reference_moves, rules=task.rules)
    folder = task.folder if write_solution else None
    if task.level is None:
        outcome.note = task.error or "the level could not be read"
        return outcome
    outcome.name = task.level.name
    samples = outcome.samples

    def record(stats: SearchStats) -> None:
        if not stats.satisficing:       # the samples follow breadth-first search's visited table
            samples.append((int(stats.unique), int(stats.generated), float(stats.elapsed)))
        if on_progress is not None:
            on_progress(stats)

    started = time.perf_counter()
    try:
        result = solve_level(task.level, limits, mode=mode, threads=threads, progress=record,
                             progress_every=progress_every, folder=folder)
    except BabaError as e:
        outcome.note = str(e)
        return outcome
    except MemoryError:
        outcome.status, outcome.note = Status.MEMORY_LIMIT, "out of memory (MemoryError)"
        outcome.elapsed = time.perf_counter() - started
        return outcome
    except KeyboardInterrupt:
        raise
    except Exception as e:  # noqa: BLE001 - one crashing level must not stop the others
        outcome.note = _one_line(e)
        outcome.elapsed = time.perf_counter() - started
        return outcome

    stats = result.stats
    outcome.status = Status(result.status)
    outcome.solution_file = solution_file_after(folder, task.level, result)
    outcome.proven_shortest, outcome.lower_bound, outcome.limit = (
        result.proven_shortest, result.lower_bound, result.limit)
    outcome.found_by, outcome.proved_by = result.found_by, result.proved_by
    outcome.reference_wins = _reference_wins(task)
    outcome.expanded, outcome.generated, outcome.unique = stats.expanded, stats.generated, stats.unique
    outcome.dead_ends, outcome.depth, outcome.peak_frontier = stats.dead_ends, stats.depth, stats.peak_frontier
    outcome.elapsed, outcome.memory_bytes = stats.elapsed, stats.memory_bytes
    if not samples or samples[-1][:2] != (stats.unique, stats.generated):
        samples.append((stats.unique, stats.generated, stats.elapsed))
    if result.solution is not None:
        outcome.solution = list(result.solution)
    if result.status == Status.MEMORY_LIMIT:
        outcome.note = f"out of memory at {stats.unique:,} states"
    elif result.status == Status.WRONG:
        outcome.note = result.note
    elif result.status == Status.SOLVED:
        outcome.verified = True
        ref = outcome.reference_moves
        if ref is not None and outcome.reference_wins and len(outcome.solution or []) > ref:
            outcome.note = f"longer than the reference ({ref} moves)"
    return outcome


# --------------------------------------------------------------------------
# Many levels


#: How long the parent waits, after a Ctrl-C, for the workers to return the
#: levels they were running with their counters so far.
INTERRUPT_GRACE = 0.3
#: How often the parent looks at the workers (when a level starts counts).
POLL_SECONDS = 0.1
#: The signal the parent stops a worker's search with (Ctrl-C is the parent's).
STOP_SIGNAL = getattr(signal, "SIGUSR1", None)


#: Seconds between a worker's looks at whether the parent still runs.
PARENT_POLL = 0.5
#: A worker's exit status once its parent has gone (nobody reads it).
EXIT_ORPHANED = 1


def _end_with(parent: int) -> None:
    """Exit this worker as soon as `parent` is no longer its parent: a
    parent killed outright (SIGKILL, the kernel's out-of-memory killer)
    could not stop it, and it searched on for up to its level's time limit.
    A thread of its own sees it, as the search runs without the GIL."""
    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_POLL)
        os._exit(EXIT_ORPHANED)

    # A small stack: started before the address space is capped, it
    # counts against the cap all the same.
    old_size = threading.stack_size(1 << 18)
    try:
        threading.Thread(target=watch, name="baba-parent-watch", daemon=True).start()
    finally:
        threading.stack_size(old_size)


def _start_worker(memory_limit: Optional[int], parent: int) -> None:
    """A worker process: Ctrl-C is the parent's to handle, and the parent
    stops a search with STOP_SIGNAL, which it takes as a Ctrl-C; the address
    space is capped so that one huge level cannot take the machine down; and
    the worker ends when its parent does."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if STOP_SIGNAL is not None:
        signal.signal(STOP_SIGNAL, _stop_level)
    _end_with(parent)
    if memory_limit:
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        if hard != resource.RLIM_INFINITY:
            memory_limit = min(memory_limit, hard)
        resource.setrlimit(resource.RLIMIT_AS, (memory_limit, hard))


#: What the worker processes (and multiprocessing's resource tracker) start
#: ignoring: a Ctrl-C or a hang-up reaches the whole process group, and the
#: parent alone answers it. (SIGTERM is how the pool stops a worker.)
_DEAF_TO = tuple(getattr(signal, name) for name in ("SIGINT", "SIGHUP") if hasattr(signal, name))


@contextlib.contextmanager
def _workers_deaf_to_ctrl_c() -> Iterator[None]:
    """While the pool starts its workers: they start ignoring SIGINT and
    SIGHUP.

    A Ctrl-C at the terminal reaches the whole process group; a worker
    still starting up (before its initializer ignores SIGINT) would die on
    it with a traceback. Only an ignored signal survives the exec of a new
    process, so the signals are ignored here while the workers start; and
    they are blocked in this thread first, so that on Linux a Ctrl-C
    meanwhile stays pending (a blocked signal is never discarded as
    ignored) and is raised as soon as the block ends. The threads the pool
    starts inherit the block, so the signals always go to this thread.
    multiprocessing's resource tracker is started here too: it ignores
    SIGINT and SIGTERM of itself, but died of a hang-up, and its successor
    printed tracebacks."""
    main = threading.current_thread() is threading.main_thread()
    if not main or not hasattr(signal, "pthread_sigmask") or sys.platform != "linux":
        yield
        return
    old_mask = signal.pthread_sigmask(signal.SIG_BLOCK, set(_DEAF_TO))
    old_handlers = {}
    try:
        pending = signal.sigpending()
        for number in _DEAF_TO:
            if number not in pending:   # ignoring a pending signal would discard it
                old_handlers[number] = signal.signal(number, signal.SIG_IGN)
        from multiprocessing import resource_tracker

        try:
            resource_tracker.ensure_running()
        finally:
            # It unblocks SIGINT as it returns: a Ctrl-C from then on
            # would find it ignored, and be lost.
            signal.pthread_sigmask(signal.SIG_BLOCK, set(_DEAF_TO))
        yield
    finally:
        for number, handler in old_handlers.items():
            signal.signal(number, handler)
        signal.pthread_sigmask(signal.SIG_SETMASK, old_mask)


#: Whether this worker process is running a level (STOP_SIGNAL stops only that).
_running_level = False


def _stop_level(signum: int, frame: object) -> None:
    """STOP_SIGNAL in a worker: a Ctrl-C for the level it runs. An idle
    worker, waiting on the pool's channel, must not take it: raised there,
    it printed the worker's traceback."""
    if _running_level:
        raise KeyboardInterrupt


def _run_pickled(job: bytes) -> LevelOutcome:
    """run_level on a pickled (task, limits, mode, threads, write). The pool
    hands a worker its job while the worker holds the pool's channel; a
    worker that died there (say, on a level too large to unpickle) would
    break the whole pool. Unpickled here, the job can fail only itself."""
    global _running_level
    task, *rest = pickle.loads(job)
    try:
        _running_level = True
        return run_level(task, *rest)
    except KeyboardInterrupt:           # the stop came outside the search (loading, replaying)
        return _lost(task, Status.INTERRUPTED, f"stopped by {stopping.cause()}")
    finally:
        _running_level = False


def _death(exitcode: Optional[int]) -> str:
    if exitcode is not None and exitcode < 0:
        try:
            name = signal.Signals(-exitcode).name
        except ValueError:
            name = f"signal {-exitcode}"
        return f"worker process killed by {name}"
    return f"worker process exited with status {exitcode}"


def _lost(task: LevelTask, status: Status, note: str, elapsed: float = 0.0) -> LevelOutcome:
    return LevelOutcome(task.id, status, reference_moves=task.reference_moves, elapsed=elapsed, note=note,
                        rules=task.rules)


def _in_process(tasks: Sequence[LevelTask], limits: Limits, mode: str, threads: int, write: bool,
                done: Callable[[int, LevelOutcome], None], on_progress: Optional[OnProgress]) -> bool:
    for index, task in enumerate(tasks):
        hook = None if on_progress is None else (lambda stats, t=task: on_progress(t, stats))
        started = time.perf_counter()
        try:
            outcome = run_level(task, limits, mode, threads, write, on_progress=hook)
        except KeyboardInterrupt:
            # Outside the search (loading, replaying, writing): the level still gets its row.
            done(index, _lost(task, Status.INTERRUPTED, f"stopped by {stopping.cause()}",
                              time.perf_counter() - started))
            return False
        done(index, outcome)
        if outcome.status == Status.INTERRUPTED:
            return False
    return True


def stuck_after(timeout: Optional[float]) -> Optional[float]:
    """Seconds after which a level still running is stuck, and stopped:
    its search ends at `timeout`, but loading the level comes before, and
    shortening and replaying its solution after."""
    return None if timeout is None else 2 * timeout + 60


def _in_workers(tasks: Sequence[LevelTask], limits: Limits, mode: str, write: bool, jobs: int,
                memory_limit: Optional[int], done: Callable[[int, LevelOutcome], None]) -> bool:
    # pebble brings asyncio and ssl along: imported here, not at every start of baba.
    from concurrent.futures.process import BrokenProcessPool

    from pebble import ProcessPool

    grace = stuck_after(limits.timeout)
    context = multiprocessing.get_context("spawn")
    pool: Optional[ProcessPool] = None
    futures: Dict[Future, int] = {}
    started: Dict[int, float] = {}
    # A program calling run_many may have processes of its own: only those
    # started from here on are the pool's workers, to be signalled.
    others = {child.pid for child in multiprocessing.active_children()}

    def workers() -> List[BaseProcess]:
        return [child for child in multiprocessing.active_children() if child.pid not in others]

    # A Ctrl-C raised inside the futures' locks (in `wait`) could leave one
    # held, and the pool's threads and the parent then waited on each other
    # for ever: it is noted, and acted on between two looks at the pool.
    with stopping.deferred() as stop:
        try:
            try:
                with _workers_deaf_to_ctrl_c():
                    pool = ProcessPool(max_workers=jobs, initializer=_start_worker,
                                       initargs=(memory_limit, os.getpid()),
                                       context=context)
                    for index, task in enumerate(tasks):
                        job = pickle.dumps((task, limits, mode, 1, write))
                        futures[pool.schedule(_run_pickled, args=(job,), timeout=grace)] = index
            except (OSError, BrokenProcessPool) as e:
                # Before any level ran: too many open files, no processes left, ...
                what = "a worker process" if jobs == 1 else f"{jobs} worker processes"
                raise BabaError(f"could not start {what}: {_one_line(e.__cause__ or e)}"
                                " (run with --jobs 1 to solve the levels one by one here)") from None
            pending = set(futures)
            while pending:
                stop.act()
                finished, pending = wait(pending, timeout=POLL_SECONDS, return_when=FIRST_COMPLETED)
                now = time.monotonic()
                for future in pending:
                    if future.running():
                        started.setdefault(futures[future], now)
                for future in finished:
                    index = futures[future]
                    task = tasks[index]
                    elapsed = now - started.get(index, now)
                    try:
                        outcome = future.result()
                    except Exception as e:  # noqa: BLE001 - report it, go on with the others
                        if stop.requested():
                            # The stop signal went to the whole group and
                            # killed the workers too, before bench acted on it.
                            outcome = _lost(task, Status.INTERRUPTED, f"stopped by {stopping.cause()}", elapsed)
                        else:
                            outcome = _failed(task, e, elapsed, grace)
                    done(index, outcome)
            stop.act()
            pool.close()
            return True
        except KeyboardInterrupt:
            _stop_running(tasks, futures, started, jobs, done, workers)
            return False
        finally:
            if pool is not None:
                _stop_pool(pool, workers)


#: The pool's worker processes, as they stand.
Workers = Callable[[], List[BaseProcess]]

#: Seconds to wait for the pool's threads and workers to end.
POOL_STOP_TIMEOUT = 10


def _stop_pool(pool: ProcessPool, workers: Workers) -> None:
    """Stop the pool: its workers first, then its channel.

    pebble's own stop unlinks the channel's semaphores first and ends the
    workers after. A worker it had just started in place of one killed by a
    signal to the whole group (a SIGTERM to bench's group) could reach the
    semaphores in between, if bench was descheduled there, and died with a
    traceback on bench's stderr. So the thread that replaces dead workers is
    let end, then every worker is ended and waited for here: a worker still
    starting has no handler for SIGTERM, and ends silently."""
    pool.stop()
    replacer = getattr(pool, "_pool_manager_loop", None)  # pebble 5's; without it, as before
    if replacer is not None:
        replacer.join(timeout=POOL_STOP_TIMEOUT)
    ending = workers()
    for worker in ending:
        with contextlib.suppress(OSError):
            worker.terminate()
    for worker in ending:
        worker.join(timeout=POOL_STOP_TIMEOUT)
    pool.join(timeout=POOL_STOP_TIMEOUT)


def _failed(task: LevelTask, error: Exception, elapsed: float, grace: Optional[float]) -> LevelOutcome:
    """The row of a level whose worker gave no outcome."""
    from pebble import ProcessExpired

    if isinstance(error, FutureTimeout):
        return _lost(task, Status.TIME_LIMIT, f"worker process stopped after {grace:.0f} s", elapsed)
    if isinstance(error, ProcessExpired):
        return _lost(task, Status.ERROR, _death(error.exitcode), elapsed)
    if isinstance(error, MemoryError):
        return _lost(task, Status.MEMORY_LIMIT, "out of memory (MemoryError)", elapsed)
    return _lost(task, Status.ERROR, _one_line(error), elapsed)


def _stop_running(tasks: Sequence[LevelTask], futures: Dict[Future, int], started: Dict[int, float],
                  jobs: int, done: Callable[[int, LevelOutcome], None],
                  workers: Workers) -> None:
    """Ctrl-C: each level a worker is running stops its search as at a
    Ctrl-C of its own and gets its row, with its counters so far when the
    worker returns it within INTERRUPT_GRACE. The pool hands levels out in
    order, so the first `jobs` levels not done are those its workers hold,
    even one a worker still starting up has not begun (its future is not
    yet running): each of them gets its row too."""
    now = time.monotonic()
    not_done = sorted((index, future) for future, index in futures.items() if not future.done())
    running = {future: index for rank, (index, future) in enumerate(not_done)
               if rank < jobs or future.running() or index in started}
    if STOP_SIGNAL is not None:
        for child in workers():
            with contextlib.suppress(OSError):
                os.kill(child.pid, STOP_SIGNAL)     # type: ignore[arg-type]
        wait(running, timeout=INTERRUPT_GRACE)
    for future, index in running.items():
        outcome = None
        if future.done():
            with contextlib.suppress(BaseException):
                outcome = future.result()
        if outcome is None or outcome.status != Status.INTERRUPTED:
            outcome = _lost(tasks[index], Status.INTERRUPTED, f"stopped by {stopping.cause()}",
                            now - started.get(index, now))
        done(index, outcome)


def run_many(
    tasks: Sequence[LevelTask],
    limits: Limits = Limits.for_many(),
    mode: str = DEFAULT_MODE,
    *,
    jobs: int = 1,
    memory_limit: Optional[int] = None,
    threads: int = 1,
    write_solutions: bool = False,
    on_done: Optional[OnDone] = None,
    on_progress: Optional[OnProgress] = None,
    cluster_slots: Optional[int] = None,
) -> Tuple[List[LevelOutcome], bool]:
    """Run every task; returns (outcomes in set order, completed).

    With `jobs` 1 and no `memory_limit` the levels run here, one after the
    other, each search on `threads` threads, with `on_progress(task,
    stats)` during each search. Otherwise they run in worker processes, one
    thread each, each worker's address space capped at `memory_limit`
    bytes (default: the RAM shared evenly). `on_done(k, n, outcome)` is
    called as each level finishes, k counting finished levels. After
    Ctrl-C, `completed` is False and the outcomes hold the levels finished
    or cut short.

    With `cluster_slots`, the levels run as Ray tasks on the cluster Ray
    is connected to (babasolver.cluster), at most that many at once, each
    level's searches holding at most 80% of `memory_limit` bytes (default:
    of its node's RAM shared among its CPUs) unless `limits` say otherwise."""
    results: List[Optional[LevelOutcome]] = [None] * len(tasks)
    finished = [0]

    def done(index: int, outcome: LevelOutcome) -> None:
        results[index] = outcome
        finished[0] += 1
        if on_done is not None:
            on_done(finished[0], len(tasks), outcome)

    try:
        if cluster_slots is not None:
            from ..cluster.bench import run_on_cluster
            completed = run_on_cluster(tasks, limits, mode, done, slots=cluster_slots, memory_limit=memory_limit,
                                       write_solutions=write_solutions)
        elif jobs <= 1 and memory_limit is None:
            completed = _in_process(tasks, limits, mode, threads, write_solutions, done, on_progress)
        else:
            workers = max(1, min(jobs, len(tasks)))
            limit = memory_limit if memory_limit is not None else default_memory_limit(workers)
            completed = _in_workers(tasks, limits, mode, write_solutions, workers, limit, done)
    except KeyboardInterrupt:
        completed = False
    return [r for r in results if r is not None], completed
