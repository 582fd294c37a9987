"""Solve one level: check the request, refuse a level that cannot be won,
search, verify the solution by replay, and write a folder's solution file.
"""
from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Callable, Optional, Tuple

from .. import tiles
from ..errors import BabaError
from ..files import check_output, write_atomic
from ..game import ending, replay
from ..level import SOLUTION_FILE, Level
from ..notation import to_arrows
from .. import solver
from ..solver import DEFAULT_MAX_STATES, DEFAULT_MODE, Progress, SearchResult
from ..status import Status
from .limits import Limits, check_mode, check_threads
from ..rulesets import DEFAULT_RULES
from .tasks import is_level_folder, load_one

__all__ = ["SOLUTION_FILE", "solve", "solve_level", "solve_path", "why_not_a_win", "refuse_unwinnable", "remove_solution",
           "solution_path"]

#: A search other than solver.solve's (say, cluster.bfs's): (level, limits,
#: progress, seconds between progress reports) -> result.
Search = Callable[[Level, Limits, Optional[Progress], float], SearchResult]


def solution_path(folder: Path) -> Path:
    return folder / SOLUTION_FILE


def remove_solution(folder: Path) -> None:
    """A stale solution never survives a run that does not solve the level.
    A solution file that is not a regular file (a FIFO, a device) is
    refused with an OutputError, and left alone: the solution would replace it."""
    path = solution_path(folder)
    check_output(path, "the solution")
    with contextlib.suppress(FileNotFoundError):
        path.unlink()


def refuse_unwinnable(level: Level) -> None:
    """Raise BabaError for a level that no play can win: nothing can ever be
    YOU without a 'you' text."""
    if tiles.YOU_TEXT not in level.grid:
        raise BabaError(
            f"{level.name}: the level has no 'you' text, so nothing can ever be YOU and it cannot be solved"
        )


def why_not_a_win(level: Level, solution: list) -> Optional[str]:
    """None when `solution` wins `level` exactly on its last move, else why not."""
    result = replay(level, solution)
    n = len(solution)
    end = ending(result.won_at, result.illegal_at)
    if result.illegal_at is not None:
        return f"the solution found ({n} moves) {end} on replay: {result.illegal}"
    if result.won_at is None:
        return f"the solution found ({n} moves) does not win on replay"
    if result.won_at != n:
        return f"the solution found ({n} moves) {end} on replay, before its last move"
    return None


def solve_level(
    level: Level,
    limits: Limits = Limits(),
    *,
    mode: str = DEFAULT_MODE,
    threads: Optional[int] = None,
    progress: Optional[Progress] = None,
    progress_every: float = 0.5,
    folder: Optional[Path] = None,
    search: Optional[Search] = None,
) -> SearchResult:
    """Search `level` within `limits` (by `search` when given, else by
    solver.solve with `mode` and `threads`). A solution is replayed before it is
    returned; one that does not win is reported with status WRONG (a bug).
    With `folder`, its solution file is deleted first and written again
    when the level is solved. After Ctrl-C (status INTERRUPTED) `solution`
    is the best found so far, if any, and nothing is written. Raises BabaError for a level that cannot be
    won or bad arguments."""
    check_mode(mode)
    threads = check_threads(threads)
    if folder is not None:
        remove_solution(folder)
    refuse_unwinnable(level)
    if search is not None:
        result = search(level, limits, progress, progress_every)
    else:
        result = solver.solve(level, max_states=limits.max_states, timeout=limits.timeout, progress=progress,
                              progress_every=progress_every, threads=threads, mode=mode,
                              memory=limits.memory_bytes())
    if result.status == Status.SOLVED and result.solution is not None:
        problem = why_not_a_win(level, result.solution)
        if problem is not None:
            result.status, result.note = Status.WRONG, problem
            result.proven_shortest, result.proved_by = False, None     # a wrong solution proves nothing
        elif folder is not None:
            write_atomic(solution_path(folder), (to_arrows(result.solution) + "\n").encode("utf-8"))
    elif result.status == Status.INTERRUPTED and result.solution is not None:
        # The best solution so far is shown, never written: the search did not finish.
        problem = why_not_a_win(level, result.solution)
        if problem is not None:
            result.solution, result.note = None, problem
    return result


def solve_path(
    path: Path,
    level_id: Optional[str] = None,
    limits: Limits = Limits(),
    *,
    mode: str = DEFAULT_MODE,
    threads: Optional[int] = None,
    progress: Optional[Progress] = None,
    rules: str = DEFAULT_RULES,
    search: Optional[Search] = None,
) -> Tuple[Level, SearchResult, Optional[Path]]:
    """Solve the level at `path` (a level folder, or a Keke set with
    `level_id`) under the rule set `rules`: (the level, the result, the
    solution file written). A level folder's stale solution is deleted even
    when the level cannot be read."""
    folder = path if level_id is None and path.is_dir() and is_level_folder(path) else None
    try:
        level, _ = load_one(path, level_id, rules)
    except BabaError:
        if folder is not None:
            with contextlib.suppress(BabaError):    # the level's own error says more
                remove_solution(folder)
        raise
    result = solve_level(level, limits, mode=mode, threads=threads, progress=progress, folder=folder, search=search)
    written = solution_path(folder) if folder is not None and result.status == Status.SOLVED else None
    return level, result, written


def solve(
    level: Level,
    *,
    timeout: Optional[float] = None,
    max_states: int = DEFAULT_MAX_STATES,
    mode: str = DEFAULT_MODE,
    threads: Optional[int] = None,
    progress: Optional[Progress] = None,
    memory: Optional[float] = None,
) -> SearchResult:
    """A solution of `level`: the shortest when breadth-first search proves
    it within the budget (`result.proven_shortest`), else the best found
    with the lower bound breadth-first search established. The defaults are
    the CLI's: no time limit, no state limit but memory (`memory` GB, by
    default 80% of the memory available), mode "both", every CPU.
    Raises BabaError for a level that cannot be won or bad limits."""
    return solve_level(level, Limits(timeout, max_states, memory), mode=mode, threads=threads, progress=progress)
