"""Solve one level: check the request, refuse a level that cannot be won,
search, verify the solution by replay, and keep a folder's solution file
(one per rule set) holding the shortest solution known.
"""
from __future__ import annotations

import contextlib
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, List, Optional, Tuple

from .. import tiles
from ..errors import BabaError
from ..files import check_output, write_atomic
from ..game import ending, replay
from ..level import Level, decode_text
from ..notation import Action, parse_solution, to_arrows
from .. import solver
from ..solver import DEFAULT_MAX_STATES, DEFAULT_MODE, Progress, SearchResult
from ..status import Status
from .limits import Limits, check_mode, check_threads
from ..rulesets import DEFAULT_RULES, rule_set
from .tasks import is_level_folder, load_one

__all__ = ["MAX_SOLUTION_BYTES", "SolutionFile", "solve", "solve_level", "solve_path", "why_not_a_win",
           "refuse_unwinnable", "read_solution_file", "winning_solution_file", "solution_file_after", "solution_path"]

#: The largest solution file read: a solution of the most moves allowed
#: (notation.MAX_MOVES) written as arrow runs takes at most 5 bytes a move.
MAX_SOLUTION_BYTES = 16 * 2**20

#: A search other than solver.solve's (say, cluster.bfs's): (level, limits,
#: progress, seconds between progress reports) -> result.
Search = Callable[[Level, Limits, Optional[Progress], float], SearchResult]


@dataclass(frozen=True)
class SolutionFile:
    """A level folder's solution file after a solve: its path, its moves,
    and whether it is the one that was there before (`kept`: it wins, and
    the search found nothing shorter) rather than the one the search found."""
    path: str
    moves: int
    kept: bool


def solution_path(folder: Path, rules: str) -> Path:
    """The file that holds `folder`'s solution under the rule set `rules`."""
    return folder / rule_set(rules).solution_file


def solution_file_after(folder: Optional[Path], level: Level, result: SearchResult) -> Optional[SolutionFile]:
    """What `folder`'s solution file for `level`'s rule set holds after
    solve_level gave `result`; None for no folder, or a folder left without one."""
    if folder is None:
        return None
    path = str(solution_path(folder, level.rules))
    if result.kept_solution is not None:
        return SolutionFile(path, len(result.kept_solution), True)
    if result.status == Status.SOLVED and result.solution is not None:
        return SolutionFile(path, len(result.solution), False)
    return None


def read_solution_file(path: Path) -> List[Action]:
    """The moves of a solution file, which the caller has found to be a
    regular file (check says how to make a missing one, solve deletes a
    stale one); BabaError naming the file when it cannot be read, is too
    large, is not UTF-8 or is not a solution."""
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_SOLUTION_BYTES + 1)
    except OSError as e:
        raise BabaError(f"{path}: cannot read: {e.strerror or e}") from None
    if len(data) > MAX_SOLUTION_BYTES:
        raise BabaError(f"{path}: larger than {MAX_SOLUTION_BYTES // 2**20} MiB; no solution is that long")
    text = decode_text(data, path)
    try:
        return parse_solution(text)
    except BabaError as e:
        raise BabaError(f"{path}: {e}") from None


def winning_solution_file(folder: Path, level: Level) -> Optional[List[Action]]:
    """The moves of the folder's solution file for `level`'s rule set when
    they still win `level`. A file that does not is stale (the level
    changed, or it never won) and is deleted, so that no run leaves a
    solution that does not solve the level; one that wins survives any run
    that finds nothing shorter. Another rule set's file is not read. A
    solution file that is not a regular file (a FIFO, a device) is refused
    with an OutputError, and left alone: the solution would replace it."""
    path = solution_path(folder, level.rules)
    check_output(path, "the solution")
    if not path.exists():
        return None
    try:
        moves: Optional[List[Action]] = read_solution_file(path)
    except BabaError:
        moves = None
    if moves is not None and why_not_a_win(level, moves) is None:
        return moves
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
    return None


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
    With `folder`, its solution file for `level`'s rule set ends holding
    the shortest solution known: one that still wins is kept (`kept_solution`) unless the search
    solves the level in fewer moves, when the solution found is written;
    one that does not win is deleted first. After Ctrl-C (status INTERRUPTED) `solution`
    is the best found so far, if any, and nothing is written. Raises BabaError for a level that cannot be
    won or bad arguments."""
    check_mode(mode)
    threads = check_threads(threads)
    kept = winning_solution_file(folder, level) if folder is not None else None
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
        elif folder is not None and (kept is None or len(result.solution) < len(kept)):
            write_atomic(solution_path(folder, level.rules), (to_arrows(result.solution) + "\n").encode("utf-8"))
            kept = None
    elif result.status == Status.INTERRUPTED and result.solution is not None:
        # The best solution so far is shown, never written: the search did not finish.
        problem = why_not_a_win(level, result.solution)
        if problem is not None:
            result.solution, result.note = None, problem
    result.kept_solution = kept
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
) -> Tuple[Level, SearchResult, Optional[SolutionFile]]:
    """Solve the level at `path` (a level folder, or a Keke set with
    `level_id`) under the rule set `rules`: (the level, the result, what
    the folder's solution file holds after it: see solution_file_after). A
    level that cannot be read leaves its folder's solution file as it is:
    whether it still wins cannot be told."""
    folder = path if level_id is None and path.is_dir() and is_level_folder(path) else None
    level, _ = load_one(path, level_id, rules)
    result = solve_level(level, limits, mode=mode, threads=threads, progress=progress, folder=folder, search=search)
    return level, result, solution_file_after(folder, level, result)


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
