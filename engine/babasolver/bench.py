"""``baba bench``: solve every level of a set under per-level limits and report.

A set is a Keke JSON level set (``{"levels": [...]}``) or a folder; in a
folder every level folder below it (one holding ``tiles.txt`` and
``content.txt``) is a level, named by its path relative to the folder.

Each level is searched with :func:`babasolver.solver.solve`. Every solution
found is replayed on :func:`babasolver.game.replay`; one that does not win is
a bug, reported as status ``wrong`` (and the bench exits 1).

With ``--jobs N`` (N > 1) levels run in N worker processes (``spawn``
context), one level per task. Each worker caps its own address space
(``RLIMIT_AS``) at ``--memory-limit`` GB, by default the machine's RAM shared
evenly between the workers, so one huge level cannot take the machine down;
a worker that dies or runs out of memory reports its level as
``memory limit`` and is replaced. With ``--jobs 1`` levels run in this
process, without an address-space limit.

The pieces are small and usable on their own: :func:`load_tasks`,
:func:`run_level` (-> :class:`LevelOutcome`), :func:`run_levels`,
:func:`summarize` (-> :class:`Summary`), :func:`format_table`,
:func:`format_summary`, :func:`format_scaling`, :func:`build_report` and
:func:`write_report`.

``python -m babasolver.bench SET [options]`` is the same as
``baba bench SET [options]``.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import os
import resource
import signal
import statistics
import sys
import time
from collections import deque
from dataclasses import asdict, dataclass, field
from multiprocessing.connection import wait as wait_for
from pathlib import Path
from typing import Any, Callable, Deque, Dict, List, Optional, Sequence, Tuple

from .errors import BabaError
from .files import write_atomic
from . import render
from .game import replay
from .judge import Judge
from .level import Level, find_level_folders, read_folder, read_keke_set
from .notation import parse_solution, to_keke
from . import solver
from .solver import DEFAULT_MODE, MODES, Status, solve

__all__ = [
    "AGENT",
    "LevelTask",
    "LevelOutcome",
    "Summary",
    "load_tasks",
    "select_ids",
    "run_level",
    "run_levels",
    "summarize",
    "scaling",
    "format_table",
    "format_summary",
    "format_scaling",
    "build_report",
    "write_report",
    "default_memory_limit",
    "add_bench_parser",
    "cmd_bench",
    "main",
]

#: The agent name written into reports.
AGENT = "babasolver-bfs"

DEFAULT_TIMEOUT = 10.0
# The solver's own cap: at 10 s a level should stop on time, not on states.
DEFAULT_MAX_STATES = solver.DEFAULT_MAX_STATES
DEFAULT_JOBS = 1
PROGRESS_EVERY = 0.25              # seconds between progress samples

# Statuses (solver.Status): the first six come from the solver, WRONG and
# ERROR are the bench's own; MEMORY_LIMIT also when a worker process died.
SOLVED, UNSOLVABLE, INTERRUPTED = Status.SOLVED, Status.UNSOLVABLE, Status.INTERRUPTED
STATE_LIMIT, TIME_LIMIT, MEMORY_LIMIT = Status.STATE_LIMIT, Status.TIME_LIMIT, Status.MEMORY_LIMIT
WRONG, ERROR = Status.WRONG, Status.ERROR

LIMIT_STATUSES = (STATE_LIMIT, TIME_LIMIT, MEMORY_LIMIT, INTERRUPTED)

#: Searches at least this long count towards the median states/s.
LONG_SEARCH = 0.5
#: Bytes per state are read at the largest searches (the table starts at a
#: fixed 16 MiB, which dominates small ones): this many, of at least BIG_SEARCH states.
LARGEST_SEARCHES = 5
BIG_SEARCH = 100_000
#: Table sizes at which the scaling section reads the states/s.
SCALING_POINTS = (100_000, 1_000_000, 10_000_000)

#: The least address space a worker process needs to start Python and the core.
MIN_WORKER_GB = 0.25

EXIT_OK = 0
EXIT_WRONG = 1
EXIT_ERROR = 2
EXIT_INTERRUPTED = 130

Sample = Tuple[int, int, float]    # (unique, generated, elapsed)


# --------------------------------------------------------------------------
# Levels to run


@dataclass(frozen=True)
class LevelTask:
    """One level of the set: its id, the level, and the set's reference
    solution in Keke letters (``None`` when the set has none)."""

    id: str
    level: Level
    reference: Optional[str] = None

    @property
    def reference_moves(self) -> Optional[int]:
        if not self.reference:
            return None
        try:
            return len(parse_solution(self.reference))
        except BabaError:
            return None


def load_tasks(path: "os.PathLike[str] | str") -> List[LevelTask]:
    """The levels of a Keke JSON set or of the level folders under a folder.

    Raises :class:`BabaError` (a :class:`~babasolver.errors.LevelError` for bad
    level files) with a one-line message."""
    p = Path(path)
    if not p.exists():
        raise BabaError(f"{p}: no such level set or folder")
    if p.is_dir():
        folders = find_level_folders(p)
        if not folders:
            raise BabaError(f"{p}: no level folders (with tiles.txt and content.txt) in this folder")
        tasks = [LevelTask(level_id, read_folder(folder), None) for level_id, folder in folders]
        return tasks
    if p.suffix.lower() != ".json":
        raise BabaError(f"{p}: not a level set: expected a Keke .json level set or a folder of level folders")
    entries = read_keke_set(p)
    if not entries:
        raise BabaError(f"{p}: the level set has no levels")
    return [LevelTask(e.id, e.level, e.solution or None) for e in entries]


def select_ids(tasks: List[LevelTask], ids: Optional[Sequence[str]]) -> List[LevelTask]:
    """The tasks whose ids are in ``ids`` (all of them when ``ids`` is None),
    in set order. An unknown id raises :class:`BabaError`."""
    if ids is None:
        return list(tasks)
    wanted = [i.strip() for i in ids if i.strip()]
    if not wanted:
        raise BabaError("--ids: no level ids given")
    known = {t.id for t in tasks}
    unknown = [i for i in wanted if i not in known]
    if unknown:
        shown = ", ".join(t.id for t in tasks[:12]) + (", ..." if len(tasks) > 12 else "")
        raise BabaError(f"--ids: no level with id {', '.join(map(repr, unknown))} in the set (ids: {shown})")
    chosen = set(wanted)
    return [t for t in tasks if t.id in chosen]


# --------------------------------------------------------------------------
# Running one level


@dataclass
class LevelOutcome:
    """What the bench learned about one level."""

    id: str
    status: str
    solution: Optional[List[int]] = None   # the solution found (for "wrong": the one that failed)
    verified: bool = False                 # the solution replayed to a win on its last move
    reference_moves: Optional[int] = None
    expanded: int = 0
    generated: int = 0
    unique: int = 0
    dead_ends: int = 0
    depth: int = 0
    peak_frontier: int = 0
    elapsed: float = 0.0                   # seconds of search
    memory_bytes: int = 0                  # bytes held by the visited table at the end
    samples: List[Sample] = field(default_factory=list)
    note: str = ""
    proven_shortest: bool = False          # no solution has fewer moves (or: proven unsolvable)
    lower_bound: Optional[int] = None      # every solution has at least this many moves
    limit: Optional[str] = None            # the limit that stopped breadth-first search
    reference_wins: Optional[bool] = None  # the set's stored solution wins (None: no reference)
    judge: Optional[str] = None            # "accepted" or "rejected: why" with --judge

    @property
    def solved(self) -> bool:
        return self.status == SOLVED

    @property
    def moves(self) -> Optional[int]:
        return len(self.solution) if self.solved and self.solution is not None else None

    @property
    def states_per_second(self) -> float:
        return self.generated / self.elapsed if self.elapsed > 0 else 0.0

    @property
    def bytes_per_state(self) -> Optional[float]:
        return self.memory_bytes / self.unique if self.unique > 0 and self.memory_bytes > 0 else None


def _check_solution(level: Level, solution: List[int]) -> Tuple[bool, str]:
    """(verified, note): whether ``solution`` wins ``level`` exactly on its last move."""
    result = replay(level, solution)
    turn = result.won_at
    if result.illegal_at is not None:
        return False, (f"the solution found ({len(solution)} moves) breaks at turn "
                       f"{result.illegal_at} on replay: {result.illegal}")
    if turn is None:
        return False, f"the solution found ({len(solution)} moves) does not win on replay"
    if turn != len(solution):
        return False, f"the solution found ({len(solution)} moves) wins already on move {turn} on replay"
    return True, ""


def _reference_wins(task: LevelTask) -> Optional[bool]:
    if not task.reference:
        return None
    try:
        return replay(task.level, parse_solution(task.reference)).won
    except BabaError:
        return None


def run_level(
    task: LevelTask,
    max_states: int = DEFAULT_MAX_STATES,
    timeout: Optional[float] = DEFAULT_TIMEOUT,
    progress_every: float = PROGRESS_EVERY,
    on_progress: Optional[Callable[[Sample], None]] = None,
    mode: str = DEFAULT_MODE,
) -> LevelOutcome:
    """Search one level, replay what was found, and say how it went.

    Progress samples ``(unique, generated, elapsed)`` are taken every
    ``progress_every`` seconds (plus one at the end) and passed on to
    ``on_progress``. A MemoryError gives status "memory limit"; any other
    exception from the search gives "error" (KeyboardInterrupt propagates)."""
    samples: List[Sample] = []

    def record(stats: Any) -> None:
        sample = (int(stats.unique), int(stats.generated), float(stats.elapsed))
        samples.append(sample)
        if on_progress is not None:
            on_progress(sample)

    outcome = LevelOutcome(task.id, ERROR, reference_moves=task.reference_moves, samples=samples)
    started = time.perf_counter()
    try:
        # One thread per level, so states/s are per core; --jobs runs levels side by side.
        result = solve(task.level, max_states=max_states, timeout=timeout,
                       progress=record, progress_every=progress_every, threads=1, mode=mode)
    except MemoryError:
        outcome.status = MEMORY_LIMIT
        outcome.elapsed = time.perf_counter() - started
        outcome.note = "out of memory (MemoryError)"
        return outcome
    except KeyboardInterrupt:
        raise
    except Exception as e:  # noqa: BLE001 - a crashing level must not stop the bench
        outcome.elapsed = time.perf_counter() - started
        outcome.note = f"{type(e).__name__}: {' '.join(str(e).splitlines())}"
        return outcome

    stats = result.stats
    outcome.status = result.status
    outcome.proven_shortest = result.proven_shortest
    outcome.lower_bound = result.lower_bound
    outcome.limit = result.limit
    outcome.reference_wins = _reference_wins(task)
    outcome.expanded = stats.expanded
    outcome.generated = stats.generated
    outcome.unique = stats.unique
    outcome.dead_ends = stats.dead_ends
    outcome.depth = stats.depth
    outcome.peak_frontier = stats.peak_frontier
    outcome.elapsed = stats.elapsed
    outcome.memory_bytes = stats.memory_bytes
    if not samples or samples[-1][0] != stats.unique or samples[-1][1] != stats.generated:
        samples.append((stats.unique, stats.generated, stats.elapsed))

    if result.status == MEMORY_LIMIT:
        outcome.note = f"out of memory at {stats.unique:,} states"
    if result.status == SOLVED:
        outcome.solution = list(result.solution or [])
        outcome.verified, note = _check_solution(task.level, outcome.solution)
        if not outcome.verified:
            outcome.status = WRONG
            outcome.note = note
        elif (outcome.reference_moves is not None and outcome.reference_wins
              and len(outcome.solution) > outcome.reference_moves):
            outcome.note = f"longer than the reference ({outcome.reference_moves} moves)"
    return outcome


# --------------------------------------------------------------------------
# Memory


def total_memory_bytes() -> Optional[int]:
    """The machine's RAM: MemTotal of /proc/meminfo, else sysconf; None if unknown."""
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    parts = line.split()
                    return int(parts[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        return None


def default_memory_limit(workers: int) -> Optional[int]:
    """Bytes of address space per worker: the RAM shared evenly, or None if unknown."""
    total = total_memory_bytes()
    if total is None:
        return None
    return total // max(1, workers)


def _limit_address_space(limit: Optional[int]) -> None:
    if not limit:
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


def peak_rss_mb() -> Tuple[float, float]:
    """(this process, largest finished child) peak resident set sizes in MB."""
    scale = 1024.0 if sys.platform != "darwin" else 1.0  # ru_maxrss: KiB on Linux, bytes on macOS
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale / 2**20
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * scale / 2**20
    return own, children


# --------------------------------------------------------------------------
# Running many levels


def _worker_main(conn: Any, memory_limit: Optional[int]) -> None:
    """A worker process: receive (index, task, max_states, timeout), send back
    (index, outcome), until told to stop (None) or the pipe closes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)   # the parent handles Ctrl-C
    _limit_address_space(memory_limit)
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return
        if message is None:
            return
        index, task, max_states, timeout, mode = message
        try:
            outcome = run_level(task, max_states, timeout, mode=mode)
        except MemoryError:
            outcome = LevelOutcome(task.id, MEMORY_LIMIT, reference_moves=task.reference_moves,
                                   note="out of memory (MemoryError)")
        except Exception as e:  # noqa: BLE001 - report it, keep serving
            outcome = LevelOutcome(task.id, ERROR, reference_moves=task.reference_moves,
                                   note=f"{type(e).__name__}: {' '.join(str(e).splitlines())}")
        try:
            conn.send((index, outcome))
        except MemoryError:
            outcome.samples = []
            conn.send((index, outcome))


def _describe_exit(code: Optional[int]) -> str:
    if code is None:
        return "worker died"
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"worker died ({name})"
    return f"worker exited with status {code}"


class _Worker:
    def __init__(self, ctx: Any, memory_limit: Optional[int]) -> None:
        self.conn, child_conn = ctx.Pipe()
        self.process = ctx.Process(target=_worker_main, args=(child_conn, memory_limit),
                                   name="baba-bench-worker", daemon=True)
        self.process.start()
        child_conn.close()
        self.job: Optional[Tuple[int, LevelTask, float]] = None   # (index, task, started)

    def stop(self) -> None:
        try:
            self.conn.send(None)
        except (OSError, ValueError):
            pass

    def kill(self) -> None:
        if self.process.is_alive():
            self.process.kill()
        self.process.join(5)
        self.conn.close()


Done = Callable[[int, LevelOutcome], None]


def _run_in_process(tasks: List[LevelTask], max_states: int, timeout: Optional[float],
                    done: Done, on_progress: Optional[Callable[[int, Sample], None]],
                    mode: str) -> bool:
    """Run the tasks here, one after the other; False if interrupted."""
    for index, task in enumerate(tasks):
        hook = None if on_progress is None else (lambda s, i=index: on_progress(i, s))
        outcome = run_level(task, max_states, timeout, on_progress=hook, mode=mode)
        done(index, outcome)
        if outcome.status == INTERRUPTED:
            return False
    return True


def _run_in_workers(tasks: List[LevelTask], max_states: int, timeout: Optional[float],
                    jobs: int, memory_limit: Optional[int], done: Done, mode: str) -> bool:
    """Run the tasks in ``jobs`` worker processes; False if interrupted."""
    ctx = multiprocessing.get_context("spawn")
    pending: Deque[int] = deque(range(len(tasks)))
    workers: List[_Worker] = []
    # A worker that outlives its search by this much is stuck: kill it.
    grace = None if timeout is None else 2 * timeout + 60

    def feed(worker: _Worker) -> None:
        if not pending:
            worker.stop()
            worker.job = None
            return
        index = pending.popleft()
        try:
            worker.conn.send((index, tasks[index], max_states, timeout, mode))
        except (OSError, ValueError):
            pending.appendleft(index)      # never started: it goes to the next worker
            worker.job = None
            return
        worker.job = (index, tasks[index], time.monotonic())

    def lost(worker: _Worker, status: str, note: str) -> None:
        index, task, started = worker.job  # type: ignore[misc]
        worker.job = None
        outcome = LevelOutcome(task.id, status, reference_moves=task.reference_moves,
                               elapsed=time.monotonic() - started, note=note)
        done(index, outcome)

    try:
        for _ in range(min(jobs, len(tasks))):
            worker = _Worker(ctx, memory_limit)
            workers.append(worker)
            feed(worker)
        while True:
            busy = [w for w in workers if w.job is not None]
            if not busy:
                if not pending:
                    break
                # Every worker went away without taking a task: start one.
                workers = [w for w in workers if w.process.is_alive()]
                worker = _Worker(ctx, memory_limit)
                workers.append(worker)
                feed(worker)
                continue
            ready = set(wait_for([w.conn for w in busy] + [w.process.sentinel for w in busy], timeout=1.0))
            for worker in busy:
                if worker.conn in ready or worker.process.sentinel in ready:
                    try:
                        got = worker.conn.recv() if worker.conn.poll() else None
                    except (EOFError, OSError):
                        got = None
                    if got is not None:
                        index, outcome = got
                        worker.job = None
                        done(index, outcome)
                        feed(worker)
                        continue
                    if worker.process.is_alive() and worker.conn not in ready:
                        continue
                    worker.process.join(5)
                    lost(worker, MEMORY_LIMIT, _describe_exit(worker.process.exitcode))
                    worker.kill()
                    workers.remove(worker)
                    if pending:
                        replacement = _Worker(ctx, memory_limit)
                        workers.append(replacement)
                        feed(replacement)
                elif grace is not None and worker.job is not None and time.monotonic() - worker.job[2] > grace:
                    lost(worker, TIME_LIMIT, f"worker killed after {grace:.0f} s")
                    worker.kill()
                    workers.remove(worker)
                    if pending:
                        replacement = _Worker(ctx, memory_limit)
                        workers.append(replacement)
                        feed(replacement)
        return True
    except KeyboardInterrupt:
        for worker in workers:
            if worker.process.is_alive():
                worker.process.kill()      # searches cut short: no need to wait for them
            if worker.job is not None:
                lost(worker, INTERRUPTED, "interrupted")
        return False
    finally:
        for worker in workers:
            worker.stop()
        deadline = time.monotonic() + 5
        for worker in workers:
            worker.process.join(max(0.0, deadline - time.monotonic()))
            worker.kill()


def run_levels(
    tasks: List[LevelTask],
    max_states: int = DEFAULT_MAX_STATES,
    timeout: Optional[float] = DEFAULT_TIMEOUT,
    jobs: int = DEFAULT_JOBS,
    memory_limit: Optional[int] = None,
    on_done: Optional[Callable[[int, int, LevelOutcome], None]] = None,
    on_progress: Optional[Callable[[LevelTask, Sample], None]] = None,
    mode: str = DEFAULT_MODE,
) -> Tuple[List[LevelOutcome], bool]:
    """Run every task; returns (outcomes in set order, completed).

    ``completed`` is False after Ctrl-C: the outcomes then hold the levels
    finished (or cut short) so far. ``on_done(k, n, outcome)`` is called as
    each level finishes (k counts finished levels); ``on_progress(task,
    sample)`` during in-process searches. ``memory_limit`` (bytes per worker)
    applies only when ``jobs > 1``; None means the RAM shared evenly."""
    results: List[Optional[LevelOutcome]] = [None] * len(tasks)
    finished = [0]

    def done(index: int, outcome: LevelOutcome) -> None:
        results[index] = outcome
        finished[0] += 1
        if on_done is not None:
            on_done(finished[0], len(tasks), outcome)

    try:
        if jobs <= 1:
            hook = None if on_progress is None else (lambda i, s: on_progress(tasks[i], s))
            completed = _run_in_process(tasks, max_states, timeout, done, hook, mode)
        else:
            workers = min(jobs, len(tasks))
            limit = memory_limit if memory_limit is not None else default_memory_limit(workers)
            completed = _run_in_workers(tasks, max_states, timeout, workers, limit, done, mode)
    except KeyboardInterrupt:
        completed = False
    return [r for r in results if r is not None], completed


def judge_outcomes(judge: "Judge", tasks: Sequence[LevelTask], outcomes: Sequence[LevelOutcome]) -> None:
    """Replay every verified solution in the judge, in one batch; sets
    each outcome's `judge`."""
    by_id = {t.id: t for t in tasks}
    chosen = [o for o in outcomes if o.solved and o.verified and o.solution is not None]
    verdicts = judge.verdicts([(by_id[o.id].level, o.solution) for o in chosen])
    for o, verdict in zip(chosen, verdicts):
        o.judge = verdict.describe(len(o.solution or []))


def write_replays(folder: Path, tasks: Sequence[LevelTask], outcomes: Sequence[LevelOutcome],
                  title: str) -> Path:
    """An HTML replay per solved level and an index of every level; the index's path."""
    folder.mkdir(parents=True, exist_ok=True)
    by_id = {t.id: t for t in tasks}
    rows = []
    for o in outcomes:
        link = None
        if o.solved and o.verified and o.solution is not None:
            link = "".join(c if c.isalnum() or c in "-_" else "_" for c in o.id) + ".html"
            level = by_id[o.id].level
            render.write_html(level, replay(level, o.solution, keep_frames=True).frames, folder / link,
                              title=f"{title} #{o.id}")
        status = o.status if o.proven_shortest or not o.solved else "solved, not proven shortest"
        rows.append((o.id, status, o.moves, link))
    index = folder / "index.html"
    render.write_index_html(rows, index, title)
    return index


# --------------------------------------------------------------------------
# Summary


@dataclass
class ScalingRow:
    """States/s of one large search as its visited table grew."""

    id: str
    unique: int
    samples: int
    at: Dict[int, Optional[float]]        # table size N -> states/s over the span from N/2 to N
    first_window: Optional[float]
    last_window: Optional[float]
    overall: float


@dataclass
class Summary:
    levels: int
    solved: int
    solved_percent: float
    unsolvable: int
    limits: int                           # state + time + memory limit + interrupted
    limit_counts: Dict[str, int]
    wrong: int
    errors: int
    median_time: float
    mean_time: float
    total_time: float                     # seconds of search, summed over levels
    mean_moves: Optional[float]
    total_unique: int
    total_generated: int
    states_per_second: float              # total generated / total search time
    long_searches: int                    # searches of at least LONG_SEARCH seconds
    median_states_per_second_long: Optional[float]
    peak_rss_mb: float
    peak_rss_self_mb: float
    peak_rss_children_mb: float
    big_searches: int                     # the largest searches, at most LARGEST_SEARCHES
    max_bytes_per_state: Optional[float]  # over those
    max_bytes_per_state_id: Optional[str]
    bytes_per_state_overall: Optional[float]
    shorter_than_reference: List[str]
    longer_than_reference: List[str]
    unsolved: List[Tuple[str, str]]       # (id, why)
    hardest: List[Tuple[str, str, int]]   # (id, status, unique states), five largest searches
    wrong_ids: List[str]
    error_ids: List[str]
    scaling: List[ScalingRow]
    proven_shortest: int = 0              # solved, and no solution is shorter
    not_proven: int = 0                   # solved, not proven shortest
    bounded_ids: List[Tuple[str, Optional[int]]] = field(default_factory=list)  # unproven: (id, bound)
    quality_levels: int = 0               # unproven solutions whose level's stored solution wins
    quality_ratio: Optional[float] = None # their mean length / stored length
    quality_not_longer: int = 0           # of those, no longer than the stored solution
    judged: int = 0                       # solutions replayed in the judge (--judge)
    judge_accepted: int = 0
    judge_rejected_ids: List[str] = field(default_factory=list)
    wall_time: Optional[float] = None
    completed: bool = True


def _window_rates(samples: Sequence[Sample]) -> List[Tuple[int, Optional[float], float]]:
    """(unique at the window's end, states/s over the window, window length)
    for the windows between successive samples (the first from the start)."""
    rates: List[Tuple[int, Optional[float], float]] = []
    prev_gen, prev_t = 0, 0.0
    for unique, generated, elapsed in samples:
        dt = elapsed - prev_t
        rates.append((unique, (generated - prev_gen) / dt if dt > 0 else None, dt))
        prev_gen, prev_t = generated, elapsed
    return rates


def _span_rate(samples: Sequence[Sample], point: int) -> Optional[float]:
    """Generated states/s over the part of a search that took its table from
    ``point / 2`` to ``point`` unique states (widened to whole sample
    windows). A span of a factor of two holds one doubling of the visited
    table once the table has outgrown its starting size, so the rate
    carries that pause at its share of the work at that size; a single
    window would read the whole pause or miss it, by luck."""
    start: Sample = (0, 0, 0.0)
    for sample in samples:
        if sample[0] >= point:
            dt = sample[2] - start[2]
            return (sample[1] - start[1]) / dt if dt > 0 else None
        if sample[0] < point / 2:
            start = sample
    return None


def scaling(outcomes: Sequence[LevelOutcome], count: int = 3,
            points: Sequence[int] = SCALING_POINTS) -> List[ScalingRow]:
    """States/s as the ``count`` largest searches grew."""
    rows = []
    largest = sorted((o for o in outcomes if o.unique > 0), key=lambda o: -o.unique)[:count]
    for o in largest:
        rates = _window_rates(o.samples)
        measured = [rate for _, rate, _ in rates if rate is not None]
        # The last window ends when the search does, often after a sliver of
        # time; a full window says more about the rate at the end.
        full = [rate for _, rate, dt in rates if rate is not None and dt >= PROGRESS_EVERY / 2]
        rows.append(ScalingRow(
            id=o.id, unique=o.unique, samples=len(o.samples),
            at={point: _span_rate(o.samples, point) for point in points},
            first_window=measured[0] if measured else None,
            last_window=full[-1] if full else measured[-1] if measured else None,
            overall=o.states_per_second,
        ))
    return rows


def _why(outcome: LevelOutcome) -> str:
    if outcome.status == UNSOLVABLE:
        return "proven unsolvable"
    if outcome.status in LIMIT_STATUSES:
        return f"{outcome.status} reached" if outcome.status != INTERRUPTED else "interrupted"
    if outcome.status == WRONG:
        return "solution failed to replay"
    return outcome.status


def summarize(
    outcomes: Sequence[LevelOutcome],
    peak_rss: Optional[Tuple[float, float]] = None,
    wall_time: Optional[float] = None,
    completed: bool = True,
) -> Summary:
    """The bench's figures over ``outcomes``. ``peak_rss`` is (self, children)
    in MB, measured now when not given."""
    n = len(outcomes)
    by_status: Dict[str, int] = {}
    for o in outcomes:
        by_status[o.status] = by_status.get(o.status, 0) + 1
    solved = [o for o in outcomes if o.solved]
    times = [o.elapsed for o in outcomes]
    total_time = sum(times)
    total_generated = sum(o.generated for o in outcomes)
    long_rates = [o.states_per_second for o in outcomes if o.elapsed >= LONG_SEARCH]
    big = [o for o in sorted(outcomes, key=lambda o: -o.unique)[:LARGEST_SEARCHES]
           if o.unique >= BIG_SEARCH and o.bytes_per_state is not None]
    biggest_ratio = max(big, key=lambda o: o.bytes_per_state or 0.0) if big else None
    total_unique = sum(o.unique for o in outcomes)
    total_memory = sum(o.memory_bytes for o in outcomes)
    own, children = peak_rss if peak_rss is not None else peak_rss_mb()
    with_ref = [o for o in solved if o.reference_moves is not None and o.moves is not None]
    known = (SOLVED, UNSOLVABLE, WRONG) + LIMIT_STATUSES
    unproven = [o for o in solved if not o.proven_shortest]
    quality = [o for o in unproven if o.reference_wins and o.reference_moves and o.moves is not None]
    ratios = [(o.moves or 0) / (o.reference_moves or 1) for o in quality]
    return Summary(
        levels=n,
        solved=len(solved),
        solved_percent=100.0 * len(solved) / n if n else 0.0,
        unsolvable=by_status.get(UNSOLVABLE, 0),
        limits=sum(by_status.get(s, 0) for s in LIMIT_STATUSES),
        limit_counts={s: by_status.get(s, 0) for s in LIMIT_STATUSES},
        wrong=by_status.get(WRONG, 0),
        errors=sum(c for s, c in by_status.items() if s not in known),
        median_time=statistics.median(times) if times else 0.0,
        mean_time=total_time / n if n else 0.0,
        total_time=total_time,
        mean_moves=statistics.mean(o.moves for o in solved if o.moves is not None) if solved else None,
        total_unique=total_unique,
        total_generated=total_generated,
        states_per_second=total_generated / total_time if total_time > 0 else 0.0,
        long_searches=len(long_rates),
        median_states_per_second_long=statistics.median(long_rates) if long_rates else None,
        peak_rss_mb=max(own, children),
        peak_rss_self_mb=own,
        peak_rss_children_mb=children,
        big_searches=len(big),
        max_bytes_per_state=biggest_ratio.bytes_per_state if biggest_ratio else None,
        max_bytes_per_state_id=biggest_ratio.id if biggest_ratio else None,
        bytes_per_state_overall=total_memory / total_unique if total_unique and total_memory else None,
        shorter_than_reference=[o.id for o in with_ref if (o.moves or 0) < (o.reference_moves or 0)],
        longer_than_reference=[o.id for o in with_ref
                               if o.reference_wins and (o.moves or 0) > (o.reference_moves or 0)],
        unsolved=[(o.id, _why(o)) for o in outcomes if not o.solved],
        hardest=[(o.id, o.status, o.unique) for o in sorted(outcomes, key=lambda o: -o.unique)[:5]],
        wrong_ids=[o.id for o in outcomes if o.status == WRONG],
        error_ids=[o.id for o in outcomes if o.status not in known],
        scaling=scaling(outcomes),
        proven_shortest=sum(1 for o in solved if o.proven_shortest),
        not_proven=len(unproven),
        bounded_ids=[(o.id, o.lower_bound) for o in outcomes if not o.proven_shortest],
        quality_levels=len(quality),
        quality_ratio=statistics.mean(ratios) if ratios else None,
        quality_not_longer=sum(1 for r in ratios if r <= 1.0),
        judged=sum(1 for o in outcomes if o.judge is not None),
        judge_accepted=sum(1 for o in outcomes if o.judge == "accepted"),
        judge_rejected_ids=[o.id for o in outcomes if o.judge is not None and o.judge != "accepted"],
        wall_time=wall_time,
        completed=completed,
    )


# --------------------------------------------------------------------------
# Text


def _si(x: Optional[float]) -> str:
    """1234567 -> '1.23M', 45678 -> '45.7k', 12.5 -> '12.5'; None -> '-'."""
    if x is None or not math.isfinite(x):
        return "-"
    for factor, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k"), (1.0, "")):
        if abs(x) >= factor * 0.9995 or factor == 1.0:
            v = x / factor
            decimals = 0 if abs(v) >= 99.95 else 1 if abs(v) >= 9.995 else 2
            return f"{v:.{decimals}f}{suffix}"
    return str(x)


def _power(p: int) -> str:
    """100000 -> '1e5'."""
    exponent = int(round(math.log10(p))) if p > 0 else 0
    return f"1e{exponent}" if 10 ** exponent == p else f"{p:,}"


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}" + ("" if n == 1 else "s")


def _seconds(x: float) -> str:
    return f"{x:.3f}" if x < 100 else f"{x:.1f}"


TABLE_COLUMNS = ("id", "status", "moves", "bound", "ref", "unique", "generated", "time s", "states/s",
                 "B/state", "note")
_RIGHT = {"moves", "bound", "ref", "unique", "generated", "time s", "states/s", "B/state"}


def _row(o: LevelOutcome) -> Tuple[str, ...]:
    bps = o.bytes_per_state
    return (
        o.id,
        o.status.upper() if o.status in (WRONG, ERROR) else o.status,
        "" if o.moves is None else f"{o.moves}{'' if o.proven_shortest else '?'}",
        "" if o.proven_shortest or o.lower_bound is None else f">={o.lower_bound}",
        "" if o.reference_moves is None else str(o.reference_moves) + ("" if o.reference_wins is not False else "x"),
        f"{o.unique:,}",
        f"{o.generated:,}",
        _seconds(o.elapsed),
        _si(o.states_per_second) if o.elapsed > 0 and o.generated else "-",
        "-" if bps is None else f"{bps:.1f}",
        o.note,
    )


def format_table(outcomes: Sequence[LevelOutcome]) -> str:
    """One row per level, columns aligned."""
    rows = [TABLE_COLUMNS] + [_row(o) for o in outcomes]
    widths = [max(len(r[c]) for r in rows) for c in range(len(TABLE_COLUMNS))]
    lines = []
    for r in rows:
        cells = [
            r[c].rjust(widths[c]) if TABLE_COLUMNS[c] in _RIGHT else r[c].ljust(widths[c])
            for c in range(len(TABLE_COLUMNS))
        ]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)


def _id_list(ids: Sequence[str], limit: int = 20) -> str:
    shown = ", ".join(ids[:limit])
    return shown + (f", ... ({len(ids)} in all)" if len(ids) > limit else "")


def format_summary(s: Summary, title: str = "summary") -> str:
    """The summary as aligned 'label  value' lines."""
    lc = s.limit_counts
    rows: List[Tuple[str, str]] = [
        ("levels", f"{s.levels}" + ("" if s.completed else " (bench interrupted: the rest did not run)")),
        ("solved", f"{s.solved} ({s.solved_percent:.1f}%)"
                   + (", every solution replayed to a win" if s.solved and not s.wrong else "")),
        ("proven shortest", f"{s.proven_shortest}"),
        ("solved, not proven shortest", f"{s.not_proven}"
         + (f" (quality: {s.quality_not_longer} of {s.quality_levels} no longer than the stored"
            f" solution, mean length ratio {s.quality_ratio:.2f})" if s.quality_ratio is not None else "")),
        ("proven unsolvable", f"{s.unsolvable}"),
        ("limit reached", f"{s.limits} (state {lc[STATE_LIMIT]}, time {lc[TIME_LIMIT]}, "
                          f"memory {lc[MEMORY_LIMIT]}, interrupted {lc[INTERRUPTED]})"),
    ]
    if s.judged:
        rows.append(("judge", f"{s.judge_accepted} of {s.judged} solutions accepted"
                              + (f" (REJECTED: {_id_list(s.judge_rejected_ids)})" if s.judge_rejected_ids else "")))
    if s.wrong:
        rows.append(("SOLUTIONS THAT FAILED TO REPLAY", f"{s.wrong}: {_id_list(s.wrong_ids)}  <-- BUG"))
    if s.errors:
        rows.append(("SEARCHES THAT RAISED", f"{s.errors}: {_id_list(s.error_ids)}  <-- BUG"))
    rows += [
        ("median / mean time", f"{_seconds(s.median_time)} s / {_seconds(s.mean_time)} s"
                               f" (search total {_seconds(s.total_time)} s"
                               + ("" if s.wall_time is None else f", wall {_seconds(s.wall_time)} s") + ")"),
        ("mean solution length", "-" if s.mean_moves is None else f"{s.mean_moves:.2f} moves"),
        ("vs reference", f"{len(s.shorter_than_reference)} shorter, {len(s.longer_than_reference)} longer"
                         + (f" (LONGER: {_id_list(s.longer_than_reference)})" if s.longer_than_reference else "")),
        ("total unique states", f"{s.total_unique:,}"),
        ("generated states/s", f"{_si(s.states_per_second)} ({s.total_generated:,} generated"
                               f" in {_seconds(s.total_time)} s of search)"),
        (f"median states/s (searches >= {LONG_SEARCH:g} s)",
         "-" if s.median_states_per_second_long is None
         else f"{_si(s.median_states_per_second_long)} (over {_plural(s.long_searches, 'level')})"),
        ("peak RSS", f"{s.peak_rss_mb:.1f} MB (this process {s.peak_rss_self_mb:.1f} MB,"
                     f" largest child process {s.peak_rss_children_mb:.1f} MB)"),
        ("bytes per unique state",
         ("max - (no level reached 100k states)" if s.max_bytes_per_state is None
          else f"max {s.max_bytes_per_state:.1f} (level {s.max_bytes_per_state_id},"
               f" over the {s.big_searches} largest {'search' if s.big_searches == 1 else 'searches'})")
         + ("" if s.bytes_per_state_overall is None
            else f"; overall {s.bytes_per_state_overall:.1f} (all tables / all states)")),
    ]
    width = max(len(label) for label, _ in rows)
    lines = [f"{title}:"] + [f"  {label.ljust(width)}  {value}" for label, value in rows]
    lines.append("  unsolved:" + ("" if s.unsolved else " none"))
    bounds = dict(s.bounded_ids)
    lines += [f"    {lid}: {why}" + (f", every solution has at least {bounds[lid]} moves"
                                      if bounds.get(lid) and why != "proven unsolvable" else "")
              for lid, why in s.unsolved]
    lines.append("  hardest (most unique states):")
    lines += [f"    {lid}: {unique:,} states, {status}" for lid, status, unique in s.hardest]
    return "\n".join(lines)


def format_scaling(rows: Sequence[ScalingRow]) -> str:
    """States/s as the visited table grows, for the largest searches."""
    lines = ["scaling (generated states/s while the visited table grew from N/2 to N unique states,"
             f" for N = {', '.join(_power(p) for p in SCALING_POINTS)}; a span holds at most one table doubling;"
             f" windows are {PROGRESS_EVERY:g} s):"]
    if not rows:
        lines.append("  no searches")
    for r in rows:
        points = ", ".join(
            f"{_power(p)}: " + ("not reached" if r.unique < p else _si(rate)) for p, rate in r.at.items()
        )
        lines.append(f"  {r.id} ({_plural(r.unique, 'state')}, {_plural(r.samples, 'sample')}): {points};"
                     f" first window {_si(r.first_window)}, last window {_si(r.last_window)},"
                     f" overall {_si(r.overall)}")
    return "\n".join(lines)


# --------------------------------------------------------------------------
# Report


def _level_entry(o: LevelOutcome) -> Dict[str, Any]:
    won = o.solved and o.verified
    entry: Dict[str, Any] = {
        "id": o.id,
        "won_level": won,
        "solution": to_keke(o.solution) if won and o.solution is not None else "",
        "time": round(o.elapsed, 6),
        "iterations": o.expanded,
        "unique_states": o.unique,
        "moves": len(o.solution) if won and o.solution is not None else None,
        "status": o.status,
        "proven_shortest": o.proven_shortest,
        "lower_bound": o.lower_bound,
        "limit": o.limit,
        "verified": o.verified,
        "judge": o.judge,
        "reference_moves": o.reference_moves,
        "reference_wins": o.reference_wins,
        "generated": o.generated,
        "depth": o.depth,
        "memory_bytes": o.memory_bytes,
    }
    if o.status == WRONG and o.solution is not None:
        entry["failed_solution"] = to_keke(o.solution)
    if o.note:
        entry["note"] = o.note
    return entry


def build_report(set_path: str, timeout: Optional[float], max_states: int,
                 outcomes: Sequence[LevelOutcome], summary: Summary) -> Dict[str, Any]:
    """The report as JSON-ready data. Per level, ``id, won_level, solution,
    time, iterations, unique_states, moves`` match the Keke competition's
    report files; the rest is the bench's own."""
    return {
        "agent": AGENT,
        "set": set_path,
        "timeout": timeout,
        "max_states": max_states,
        "levels": [_level_entry(o) for o in outcomes],
        "summary": asdict(summary),
    }


def write_report(path: "os.PathLike[str] | str", report: Dict[str, Any]) -> None:
    """Write ``report`` as JSON to ``path`` atomically (a temporary file in the
    same folder, then renamed over it)."""
    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    if not folder.is_dir():
        raise BabaError(f"{target}: cannot write the report: no such folder {folder}")
    write_atomic(target, (json.dumps(report, indent=1, allow_nan=False) + "\n").encode("utf-8"))


# --------------------------------------------------------------------------
# Command line


def _positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"must be more than 0 seconds, got {text!r}")
    return value


def _state_count(text: str) -> int:
    """'20000000', '20_000_000' or '2e7' (solver.parse_state_count)."""
    try:
        return solver.parse_state_count(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _jobs(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be at least 1 (or 0 for every CPU), got {text!r}")
    return value or (os.cpu_count() or 1)


def _gigabytes(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of GB, got {text!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"must be more than 0 GB, got {text!r}")
    return value


def _id_list_arg(text: str) -> List[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


def configure_parser(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Add the bench's arguments to ``parser`` and set ``run=cmd_bench``."""
    parser.add_argument("set", metavar="SET_OR_DIR",
                        help="a Keke .json level set, or a folder searched for level folders"
                             " (tiles.txt + content.txt)")
    parser.add_argument("--timeout", type=_positive_seconds, default=DEFAULT_TIMEOUT, metavar="SECONDS",
                        help=f"search time per level (default {DEFAULT_TIMEOUT:g})")
    parser.add_argument("--max-states", type=_state_count, default=DEFAULT_MAX_STATES, metavar="N",
                        help=f"unique states per level (default {DEFAULT_MAX_STATES:_})")
    parser.add_argument("--jobs", type=_jobs, default=DEFAULT_JOBS, metavar="N",
                        help="levels run at once in worker processes (default 1: in this process;"
                             " 0: one per CPU)")
    parser.add_argument("--memory-limit", type=_gigabytes, default=None, metavar="GB",
                        help="address space per worker with --jobs > 1 (default: RAM / jobs);"
                             " a level that needs more reports 'memory limit'")
    parser.add_argument("--ids", type=_id_list_arg, default=None, metavar="ID,ID,...",
                        help="run only these levels")
    parser.add_argument("--report", default=None, metavar="OUT.json",
                        help="also write a JSON report (Keke competition fields per level)")
    parser.add_argument("--mode", choices=MODES, default=DEFAULT_MODE,
                        help="both: breadth-first search and a satisficing search within one budget;"
                             " shortest: breadth-first search only; fast: the first solution of the"
                             f" satisficing search, shortened (default {DEFAULT_MODE})")
    parser.add_argument("--replays", default=None, metavar="DIR",
                        help="write an HTML replay of every level solved into DIR, and an index.html")
    parser.add_argument("--judge", default=None, metavar="DIR",
                        help="also replay every solution found in the Keke competition's judge"
                             " (DIR holds its simulation.js) with node")
    parser.set_defaults(run=cmd_bench)
    return parser


def add_bench_parser(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    """Add ``bench`` to the ``baba`` command line."""
    parser = subparsers.add_parser(
        "bench",
        help="solve every level of a set under limits; table, summary, JSON report",
        description="Solve every level of a Keke JSON level set (or every level folder under a folder)"
                    " with a per-level time and state limit, replay each solution found, and print a"
                    " table and a summary. Exit status 1 if a solution fails to replay.",
    )
    configure_parser(parser)


class _Progress:
    """The ``[k/n] id status ...`` lines on stderr, when it is a terminal."""

    def __init__(self, stream: Any = None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        try:
            self.enabled = bool(self.stream.isatty())
        except (AttributeError, ValueError):
            self.enabled = False
        self.transient = False

    def _clear(self) -> None:
        if self.transient:
            self.stream.write("\r\x1b[K")
            self.transient = False

    def running(self, k: int, n: int, task: LevelTask, sample: Sample) -> None:
        if not self.enabled:
            return
        unique, generated, elapsed = sample
        self._clear()
        self.stream.write(f"[{k}/{n}] {task.id} searching: {unique:,} states,"
                          f" {_si(generated / elapsed if elapsed > 0 else 0)}/s, {elapsed:.1f} s")
        self.stream.flush()
        self.transient = True

    def done(self, k: int, n: int, o: LevelOutcome) -> None:
        if not self.enabled:
            return
        self._clear()
        moves = f" {o.moves} moves" if o.moves is not None else ""
        note = f" ({o.note})" if o.note else ""
        self.stream.write(f"[{k}/{n}] {o.id} {o.status}{moves}, {o.unique:,} states,"
                          f" {_seconds(o.elapsed)} s{note}\n")
        self.stream.flush()


def cmd_bench(args: argparse.Namespace) -> int:
    """Run ``baba bench``; returns the exit status."""
    started = time.perf_counter()
    tasks = select_ids(load_tasks(args.set), args.ids)
    if args.report is not None:
        folder = Path(args.report).parent
        if str(folder) and not folder.is_dir():
            raise BabaError(f"{args.report}: cannot write the report: no such folder {folder}")
    if args.memory_limit is not None and args.jobs <= 1:
        raise BabaError("--memory-limit caps each worker process: give --jobs 2 or more (with --jobs 1 the"
                        " levels run in this process, which is not capped)")
    if args.memory_limit is not None and args.memory_limit < MIN_WORKER_GB:
        raise BabaError(f"--memory-limit {args.memory_limit:g} GB is too small for a worker process to start"
                        f" (at least {MIN_WORKER_GB:g} GB)")
    memory_limit = None if args.memory_limit is None else int(args.memory_limit * 2**30)
    progress = _Progress()
    finished = [0]

    def on_done(k: int, n: int, outcome: LevelOutcome) -> None:
        finished[0] = k
        progress.done(k, n, outcome)

    def on_progress(task: LevelTask, sample: Sample) -> None:
        progress.running(finished[0] + 1, len(tasks), task, sample)

    judge = Judge(args.judge) if args.judge is not None else None
    outcomes, completed = run_levels(
        tasks, max_states=args.max_states, timeout=args.timeout, jobs=args.jobs,
        memory_limit=memory_limit, on_done=on_done, on_progress=on_progress, mode=args.mode,
    )
    progress._clear()
    if judge is not None:
        judge_outcomes(judge, tasks, outcomes)
    summary = summarize(outcomes, wall_time=time.perf_counter() - started, completed=completed)

    out = sys.stdout
    out.write(f"bench: {args.set} ({len(tasks)} levels), timeout {args.timeout:g} s,"
              f" max {args.max_states:,} states, jobs {args.jobs}, mode {args.mode}\n\n")
    out.write(format_table(outcomes) + "\n\n")
    out.write(format_summary(summary) + "\n\n")
    out.write(format_scaling(summary.scaling) + "\n")
    out.flush()
    if args.report is not None:
        write_report(args.report, build_report(str(args.set), args.timeout, args.max_states, outcomes, summary))
        out.write(f"\nreport written to {args.report}\n")
    if args.replays is not None:
        index = write_replays(Path(args.replays), tasks, outcomes, str(args.set))
        out.write(f"\nreplays written to {args.replays} (open {index})\n")
    if summary.wrong or summary.errors or summary.judge_rejected_ids:
        bad = summary.wrong_ids + summary.error_ids + summary.judge_rejected_ids
        sys.stderr.write(f"baba bench: BUG: {summary.wrong} solution(s) failed to replay,"
                         f" {len(summary.judge_rejected_ids)} were rejected by the judge and"
                         f" {summary.errors} search(es) raised: {_id_list(bad)}\n")
        return EXIT_WRONG
    if not completed:
        sys.stderr.write("baba bench: interrupted\n")
        return EXIT_INTERRUPTED
    return EXIT_OK


class _UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    """Usage errors as an exception, so that ``main`` prints them on one line."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise _UsageError(message)


def main(argv: Optional[Sequence[str]] = None) -> int:
    """``python -m babasolver.bench``: the same arguments as ``baba bench``."""
    parser = configure_parser(_Parser(
        prog="baba bench",
        description="Solve every level of a set under per-level limits and report.",
    ))
    try:
        args = parser.parse_args(argv)
        return cmd_bench(args)
    except _UsageError as e:
        message = str(e)
    except BabaError as e:
        message = str(e)
    except SystemExit as e:  # --help
        return e.code if isinstance(e.code, int) else 0
    except BrokenPipeError:
        return 1
    except OSError as e:
        message = f"{e.filename}: {e.strerror}" if e.filename and e.strerror else str(e)
    except KeyboardInterrupt:
        sys.stderr.write("baba: interrupted\n")
        return EXIT_INTERRUPTED
    sys.stderr.write("baba: error: " + " ".join(message.splitlines()) + "\n")
    return EXIT_ERROR


if __name__ == "__main__":
    # Run the package's module, not this file's copy as __main__, so that
    # worker processes and pickled outcomes refer to babasolver.bench.
    from babasolver.bench import main as _main

    sys.exit(_main())
