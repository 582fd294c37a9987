"""The ``baba`` command line.

Each subcommand is two functions in this module:

* ``add_<name>_parser(subparsers)``, decorated with :func:`command`, which
  adds the subcommand's parser and sets ``run=<function>`` as its default;
* the function that runs it, ``cmd_<name>(args) -> int`` (exit status).

To add a command, write those two functions; :func:`build_parser` calls
every registered ``add_*_parser`` in registration order. Commands that take a
level use :func:`add_level_arguments` and :func:`level_from_args`, so that
they all accept ``LEVEL [--id ID]`` the same way. ``baba bench`` lives in
:mod:`babasolver.bench` and is registered here by :func:`add_bench_parser`.

The commands are thin: they parse, call the library (:mod:`~babasolver.level`,
:mod:`~babasolver.solver`, :mod:`~babasolver.game`,
:mod:`~babasolver.notation`) and print.

:func:`main` turns every :class:`~babasolver.errors.BabaError` and
:class:`OSError` into one line ``baba: error: <message>`` on stderr and exit
status 2; argparse's usage errors exit with 2 as well.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, TextIO, Tuple

from . import __version__, tiles
from .errors import BabaError
from .files import write_atomic
from . import bench, render
from .game import ACTION_NAMES, Frame, Replay, replay, rule_text
from .judge import Judge
from .notation import parse_solution, to_arrows, to_keke
from . import solver
from .solver import Status
from .level import (
    CONTENT_FILE,
    TILES_FILE,
    KekeLevel,
    Level,
    find_level_folders,
    keke_ids,
    load_level,
    read_folder,
    read_keke_level,
)

__all__ = [
    "main",
    "build_parser",
    "command",
    "add_level_arguments",
    "level_from_args",
    "keke_level_from_args",
    "render_level",
    "render_grid",
    "PROG",
    "SOLUTION_FILE",
]

PROG = "baba"

#: Exit status of errors (bad input, missing files, usage).
EXIT_ERROR = 2
#: Exit status when the user stopped the program with Ctrl-C.
EXIT_INTERRUPTED = 130

#: Where ``baba solve`` writes, and ``baba check`` reads, a folder's solution.
SOLUTION_FILE = "solution.txt"

#: Default limits of ``baba solve --all`` (one level at a time).
ALL_DEFAULT_TIMEOUT = 10.0
ALL_DEFAULT_MAX_STATES = 10_000_000


ParserSetup = Callable[["argparse._SubParsersAction[argparse.ArgumentParser]"], None]

#: The registered ``add_<name>_parser`` functions, in registration order.
COMMANDS: List[ParserSetup] = []


def command(setup: ParserSetup) -> ParserSetup:
    """Register a function that adds one subcommand's parser."""
    COMMANDS.append(setup)
    return setup


# --------------------------------------------------------------------------
# Shared argument helpers


def add_level_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``LEVEL`` and ``--id ID`` (stored as ``args.level``, ``args.level_id``)."""
    parser.add_argument(
        "level",
        metavar="LEVEL",
        help="a level folder (tiles.txt + content.txt) or a Keke .json level set (then give --id)",
    )
    parser.add_argument(
        "--id",
        dest="level_id",
        metavar="ID",
        default=None,
        help="level id inside a Keke .json level set",
    )


def level_from_args(args: argparse.Namespace) -> Level:
    """The level named by ``args.level`` / ``args.level_id``."""
    return load_level(args.level, args.level_id)


def keke_level_from_args(args: argparse.Namespace) -> Optional[KekeLevel]:
    """The Keke set entry (with author and stored solution) if LEVEL is a .json
    set and ``--id`` is given; ``None`` for a level folder."""
    path = Path(args.level)
    if args.level_id is not None and path.is_file() and path.suffix.lower() == ".json":
        return read_keke_level(path, args.level_id)
    return None


def _level_and_entry(args: argparse.Namespace) -> Tuple[Level, Optional[KekeLevel]]:
    entry = keke_level_from_args(args)
    level = entry.level if entry is not None else level_from_args(args)
    return level, entry


def _folder_of(args: argparse.Namespace) -> Optional[Path]:
    """LEVEL as a folder path if it is one (no --id), else None."""
    path = Path(args.level)
    if args.level_id is None and path.is_dir():
        return path
    return None


def _is_level_folder(path: Path) -> bool:
    return (path / TILES_FILE).is_file() and (path / CONTENT_FILE).is_file()


def _positive(value: Optional[float], option: str) -> None:
    if value is not None and not value > 0:
        raise BabaError(f"{option} must be positive, got {value:g}")


# --------------------------------------------------------------------------
# Output helpers


def _dump_json(value: Any) -> None:
    print(json.dumps(value, ensure_ascii=False))


def _count(n: int) -> str:
    return f"{n:,}"


def _seconds(s: float) -> str:
    return f"{s:.3f} s" if s < 10 else f"{s:.1f} s"


def _solution_json(actions: Optional[List[int]]) -> Optional[Dict[str, Any]]:
    if actions is None:
        return None
    return {"arrows": to_arrows(actions), "keke": to_keke(actions), "moves": len(actions)}


class _StatusLine:
    """One line of live progress on a terminal, redrawn in place with '\\r'.

    Disabled (prints nothing) when the stream is not a terminal.
    """

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        try:
            self.enabled = bool(stream.isatty())
        except (AttributeError, ValueError):
            self.enabled = False
        self.shown = False

    def update(self, text: str) -> None:
        if not self.enabled:
            return
        width = shutil.get_terminal_size((80, 24)).columns
        if width > 1 and len(text) > width - 1:
            text = text[: width - 1]
        self.stream.write("\r" + text + "\x1b[K")
        self.stream.flush()
        self.shown = True

    def clear(self) -> None:
        if self.shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self.shown = False


def _progress_text(stats: Any) -> str:
    return (
        f"depth {stats.depth}  {_count(stats.unique)} unique states  "
        f"{_count(int(stats.states_per_second))} states/s  {stats.elapsed:.1f} s"
    )


def write_text_atomic(path: Path, text: str) -> None:
    """Write ``text`` (UTF-8, ``\n`` line ends) so that readers see the old
    file or the new one, never a part."""
    write_atomic(path, text.encode("utf-8"))


def _remove_solution_file(folder: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        (folder / SOLUTION_FILE).unlink()


# --------------------------------------------------------------------------
# baba solve


@command
def add_solve_parser(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    p = subparsers.add_parser(
        "solve",
        help="find a shortest solution of a level (or of every level with --all)",
        description="Find a shortest solution (fewest turns) by breadth-first search, with a "
        "satisficing search beside it for levels breadth-first search cannot finish (see --mode). "
        "The result says whether the solution is proven shortest, and the lower bound breadth-first "
        f"search established. For a level folder, {SOLUTION_FILE} is deleted first and written "
        "again on success. Exit status: 0 solved; 1 proven unsolvable or a limit was hit; 2 bad "
        "input; 130 interrupted (Ctrl-C).",
    )
    add_level_arguments(p)
    p.add_argument(
        "--all",
        action="store_true",
        help="solve every level folder under LEVEL (recursively) or every level of a Keke .json "
        f"set, then print a summary table (default limits: --timeout {ALL_DEFAULT_TIMEOUT:g}, "
        f"--max-states {ALL_DEFAULT_MAX_STATES})",
    )
    p.add_argument(
        "--max-states",
        metavar="N",
        default=None,
        help="stop once N distinct states are stored, e.g. 2e7 (default: 50000000; with --all: "
        f"{ALL_DEFAULT_MAX_STATES}; at most the store's 67,108,862)",
    )
    p.add_argument(
        "--timeout",
        type=float,
        metavar="S",
        default=None,
        help=f"stop after S seconds per level (default: none; with --all: {ALL_DEFAULT_TIMEOUT:g})",
    )
    p.add_argument(
        "--threads",
        type=int,
        metavar="N",
        default=None,
        help="threads that expand each batch of states; the search and its result are the same "
        "for any N (default: every CPU this process may use)",
    )
    add_mode_argument(p)
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(run=cmd_solve)


def add_mode_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--mode",
        choices=solver.MODES,
        default=solver.DEFAULT_MODE,
        help="both: breadth-first search, and where it does not finish quickly, a satisficing "
        "search for a first solution that breadth-first search then proves shortest or bounds, "
        "within one budget; shortest: breadth-first search only; fast: stop at the first solution "
        f"of the satisficing search, shortened (default: {solver.DEFAULT_MODE})",
    )


#: Exit status per search status.
_SOLVE_EXIT = {Status.SOLVED: 0, Status.INTERRUPTED: EXIT_INTERRUPTED}   # anything else: 1


def _status_line(result: Any, max_states: int, timeout: Optional[float]) -> str:
    """The human explanation of a search status."""
    status = result.status
    bound = f"every solution has at least {result.lower_bound} moves"
    if status == solver.SOLVED:
        if result.proven_shortest:
            return f"solved: {len(result.solution)} moves, the fewest possible"
        why = f"breadth-first search stopped at the {result.limit}" if result.limit else "--mode fast"
        return f"solved: {len(result.solution)} moves, not proven shortest ({bound}; {why})"
    if status == solver.UNSOLVABLE:
        return "unsolvable: every reachable state was explored and none wins"
    if status == solver.LIMIT_STATES:
        return (
            f"state limit hit (--max-states {max_states}): no solution within "
            f"{_count(result.stats.unique)} states; the level may still be solvable ({bound})"
        )
    if status == solver.LIMIT_MEMORY:
        return (
            f"memory limit hit: the visited table could not grow past "
            f"{_count(result.stats.unique)} states; the level may still be solvable ({bound})"
        )
    if status == solver.LIMIT_TIME:
        return (
            f"time limit hit (--timeout {timeout:g}): no solution within "
            f"{_seconds(result.stats.elapsed)}; the level may still be solvable ({bound})"
        )
    if status == solver.INTERRUPTED:
        return "interrupted (Ctrl-C): stopped before a solution was found; counters so far below"
    return status


def _stats_rows(stats: Any) -> List[Tuple[str, str]]:
    return [
        ("expanded", _count(stats.expanded)),
        ("generated", _count(stats.generated)),
        ("unique", _count(stats.unique)),
        ("dead ends", _count(stats.dead_ends)),
        ("depth", str(stats.depth)),
        ("peak frontier", _count(stats.peak_frontier)),
        ("time", _seconds(stats.elapsed)),
        ("states/s", _count(int(stats.states_per_second))),
    ]


def _stats_json(stats: Any) -> Dict[str, Any]:
    return {
        "expanded": stats.expanded,
        "generated": stats.generated,
        "unique": stats.unique,
        "dead_ends": stats.dead_ends,
        "depth": stats.depth,
        "peak_frontier": stats.peak_frontier,
        "elapsed": round(stats.elapsed, 6),
        "memory_bytes": stats.memory_bytes,
        "states_per_second": round(stats.states_per_second, 1),
    }


def _verdict_json(result: Any) -> Dict[str, Any]:
    """What a result says of the shortest solution."""
    return {
        "proven_shortest": result.proven_shortest,
        "lower_bound": result.lower_bound,
        "limit": result.limit,
    }


def _print_rows(rows: List[Tuple[str, str]]) -> None:
    width = max(len(label) for label, _ in rows) + 1
    for label, value in rows:
        print(f"{label + ':':<{width}} {value}")


def _check_you_text(level: Level) -> None:
    if not solver.level_has_you_text(level):
        raise BabaError(
            f"{level.name}: the level has no 'you' text, so nothing can ever be YOU and it cannot be solved"
        )


def _solve_one(
    level: Level,
    folder: Optional[Path],
    max_states: int,
    timeout: Optional[float],
    threads: int,
    status_line: _StatusLine,
    prefix: str = "",
    mode: str = "both",
) -> Tuple[Any, Optional[Path]]:
    """Solve ``level``; for a level folder, delete its solution file first and
    write it on success. Returns the search result and the file written."""
    if folder is not None:
        _remove_solution_file(folder)
    _check_you_text(level)

    def progress(stats: Any) -> None:
        status_line.update(prefix + _progress_text(stats))

    try:
        result = solver.solve(
            level,
            max_states=max_states,
            timeout=timeout,
            progress=progress if status_line.enabled else None,
            threads=threads,
            mode=mode,
        )
    finally:
        status_line.clear()
    written = None
    if result.status == solver.SOLVED and folder is not None:
        written = folder / SOLUTION_FILE
        write_text_atomic(written, to_arrows(result.solution) + "\n")
    return result, written


def cmd_solve(args: argparse.Namespace) -> int:
    _positive(args.timeout, "--timeout")
    if args.max_states is not None:
        try:
            args.max_states = solver.parse_state_count(args.max_states)
        except ValueError as e:
            raise BabaError(f"--max-states {e}") from None
    if args.threads is not None and args.threads < 1:
        raise BabaError(f"--threads must be at least 1, got {args.threads}")
    if args.threads is None:
        args.threads = solver.default_threads()
    if args.all:
        return _solve_all(args)

    max_states = args.max_states if args.max_states is not None else solver.DEFAULT_MAX_STATES
    timeout = args.timeout
    folder = _folder_of(args)
    if folder is not None and _is_level_folder(folder):
        # a stale solution never survives a run that fails, even on bad input
        _remove_solution_file(folder)
    level = level_from_args(args)
    result, written = _solve_one(level, folder, max_states, timeout, args.threads,
                                 _StatusLine(sys.stderr), mode=args.mode)
    code = _SOLVE_EXIT.get(result.status, 1)

    if args.json:
        _dump_json({
            "level": level.name,
            "status": result.status,
            **_verdict_json(result),
            "solution": _solution_json(result.solution),
            "stats": _stats_json(result.stats),
        })
        return code

    rows = [("level", level.name), ("status", _status_line(result, max_states, timeout))]
    if result.solution is not None:
        rows.append(("solution", to_arrows(result.solution)))
        rows.append(("keke", to_keke(result.solution)))
        if written is not None:
            rows.append(("written", str(written)))
    else:
        rows.append(("solution", "none"))
    rows.extend(_stats_rows(result.stats))
    _print_rows(rows)
    return code


# ---- baba solve --all


@dataclass
class _Task:
    """One level of ``solve --all``: its id, and how to load it."""

    id: str
    load: Callable[[], Level]
    folder: Optional[Path] = None


def _folder_tasks(root: Path) -> List[_Task]:
    return [_Task(level_id, lambda folder=folder: read_folder(folder), folder)
            for level_id, folder in find_level_folders(root)]


def _set_tasks(path: Path) -> List[_Task]:
    return [
        _Task(lid, lambda lid=lid: read_keke_level(path, lid).level)
        for lid in keke_ids(path)
    ]


def _all_tasks(args: argparse.Namespace) -> List[_Task]:
    path = Path(args.level)
    if args.level_id is not None:
        raise BabaError("--id selects one level; leave it out with --all")
    if path.is_dir():
        tasks = _folder_tasks(path)
        if not tasks:
            raise BabaError(f"{path}: no level folders (with {TILES_FILE} and {CONTENT_FILE}) found")
        return tasks
    if not path.exists():
        raise BabaError(f"{path}: no such folder or file")
    if path.suffix.lower() != ".json":
        raise BabaError(f"{path}: --all needs a folder of level folders or a Keke .json level set")
    tasks = _set_tasks(path)
    if not tasks:
        raise BabaError(f"{path}: the level set has no levels")
    return tasks


@dataclass
class _Row:
    id: str
    status: str
    moves: Optional[int] = None
    states: Optional[int] = None
    elapsed: Optional[float] = None
    error: str = ""
    record: Optional[Dict[str, Any]] = None
    proven: bool = False
    bound: Optional[int] = None


def _solve_all(args: argparse.Namespace) -> int:
    tasks = _all_tasks(args)
    max_states = args.max_states if args.max_states is not None else ALL_DEFAULT_MAX_STATES
    timeout = args.timeout if args.timeout is not None else ALL_DEFAULT_TIMEOUT
    status_line = _StatusLine(sys.stderr)
    rows: List[_Row] = []
    interrupted = False
    n = len(tasks)
    try:
        for k, task in enumerate(tasks, start=1):
            prefix = f"[{k}/{n}] {task.id} ... "
            status_line.update(prefix.rstrip())
            try:
                if task.folder is not None:
                    _remove_solution_file(task.folder)
                level = task.load()
                result, _ = _solve_one(level, task.folder, max_states, timeout, args.threads,
                                       status_line, prefix, mode=args.mode)
            except BabaError as e:
                status_line.clear()
                rows.append(_Row(task.id, Status.ERROR, error=str(e), record={
                    "id": task.id, "level": None, "status": Status.ERROR, "error": str(e),
                    "solution": None, "stats": None,
                }))
                continue
            moves = len(result.solution) if result.solution is not None else None
            rows.append(_Row(
                task.id, result.status, moves, result.stats.unique, result.stats.elapsed,
                proven=result.proven_shortest, bound=result.lower_bound,
                record={
                    "id": task.id,
                    "level": level.name,
                    "status": result.status,
                    **_verdict_json(result),
                    "solution": _solution_json(result.solution),
                    "stats": _stats_json(result.stats),
                },
            ))
            if result.status == solver.INTERRUPTED:
                interrupted = True
                break
    except KeyboardInterrupt:
        # Ctrl-C outside the search itself (loading a level, writing a file)
        status_line.clear()
        interrupted = True

    if args.json:
        _dump_json([row.record for row in rows])
    else:
        _print_table(rows, n)
    for row in rows:
        if row.error:
            print(f"{PROG}: error: {row.error}", file=sys.stderr)

    if interrupted:
        return EXIT_INTERRUPTED
    if any(row.status == Status.ERROR for row in rows):
        return EXIT_ERROR
    if any(row.status != solver.SOLVED for row in rows):
        return 1
    return 0


def _print_table(rows: List[_Row], total: int) -> None:
    header = ("id", "status", "moves", "bound", "states", "time")
    lines = [header]
    for row in rows:
        lines.append((
            row.id,
            row.status,
            "-" if row.moves is None else f"{row.moves}{'' if row.proven else '?'}",
            "-" if row.bound is None or row.proven else str(row.bound),
            "-" if row.states is None else str(row.states),
            "-" if row.elapsed is None else f"{row.elapsed:.2f}",
        ))
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    for line in lines:
        cells = [line[0].ljust(widths[0]), line[1].ljust(widths[1])]
        cells += [cell.rjust(width) for cell, width in zip(line[2:], widths[2:])]
        print("  ".join(cells).rstrip())

    counts: Dict[str, int] = {}
    for row in rows:
        counts[row.status] = counts.get(row.status, 0) + 1
    order = [Status.SOLVED, Status.UNSOLVABLE, Status.TIME_LIMIT, Status.STATE_LIMIT,
             Status.MEMORY_LIMIT, Status.INTERRUPTED, Status.ERROR]
    parts = [f"{counts[s]} {s}" for s in order if counts.get(s)]
    unproven = sum(1 for row in rows if row.status == Status.SOLVED and not row.proven)
    if unproven:
        parts.insert(1, f"{unproven} of them not proven shortest (moves marked ?)")
    states = sum(row.states or 0 for row in rows)
    seconds = sum(row.elapsed or 0.0 for row in rows)
    done = f"{len(rows)} levels" if len(rows) == total else f"{len(rows)} of {total} levels"
    print(f"total: {done}: {', '.join(parts) or 'none'}; {states} states; {seconds:.2f} s")


# --------------------------------------------------------------------------
# baba check


@command
def add_check_parser(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    p = subparsers.add_parser(
        "check",
        help="replay a solution and say whether (and when) it wins",
        description=f"Replay SOLUTION (Keke letters like 'rrud' or arrow runs like '3→ 1↑'). Without "
        f"SOLUTION, the level folder's {SOLUTION_FILE} is read, or, for a Keke set, the level's "
        "stored solution. Exit status: 0 wins, 1 does not win, 2 bad input.",
    )
    add_level_arguments(p)
    p.add_argument(
        "solution",
        metavar="SOLUTION",
        nargs="?",
        default=None,
        help=f"the moves to play (default: {SOLUTION_FILE} or the Keke set's stored solution)",
    )
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument(
        "--judge",
        metavar="DIR",
        default=None,
        help="also replay the solution in the Keke competition's judge (DIR holds its "
        "simulation.js, e.g. ../shared/keke-reference or a clone of Keke_JS/js), with node",
    )
    p.allow_intermixed = True  # LEVEL [--id ID] SOLUTION in any order
    p.set_defaults(run=cmd_check)


def _solution_from_args(args: argparse.Namespace, entry: Optional[KekeLevel]) -> Tuple[List[int], str]:
    """The actions to replay and where they came from ("argument", a file
    path, or "stored solution")."""
    if args.solution is not None:
        return parse_solution(args.solution), "argument"
    if entry is not None:
        if not entry.solution:
            raise BabaError(f"{args.level}: level id {entry.id} has no stored solution; give SOLUTION")
        try:
            return parse_solution(entry.solution), "stored solution"
        except BabaError as e:
            raise BabaError(f"{args.level}: level id {entry.id}: stored {e}") from None
    folder = Path(args.level)
    path = folder / SOLUTION_FILE
    if not path.is_file():
        raise BabaError(f"{path}: no such file; give SOLUTION or run '{PROG} solve {args.level}' first")
    text = path.read_text(encoding="utf-8")
    try:
        return parse_solution(text), str(path)
    except BabaError as e:
        raise BabaError(f"{path}: {e}") from None


def cmd_check(args: argparse.Namespace) -> int:
    level, entry = _level_and_entry(args)
    actions, source = _solution_from_args(args, entry)
    judge = Judge(args.judge) if args.judge is not None else None
    result = replay(level, actions)
    n = len(actions)
    verdict = judge.verdict(level, actions) if judge is not None else None
    accepted = verdict is None or verdict.accepts(n)
    if args.json:
        _dump_json({
            "level": level.name,
            "source": source,
            "solution": _solution_json(actions),
            "won": result.won,
            "win_step": result.won_at,
            "played": result.played,
            "dead": result.dead,
            "illegal": None if result.illegal_at is None
            else {"turn": result.illegal_at, "reason": result.illegal},
            "judge": None if verdict is None else {
                "accepted": verdict.accepts(n), "verdict": verdict.describe(n),
                "win_step": verdict.won_at, "defect_step": verdict.defect_at,
            },
        })
    else:
        arrows = to_arrows(actions) or "(empty)"
        print(f"{level.name}: {arrows} ({n} moves, from {source})")
        print(result.summary(n))
        if verdict is not None:
            print(f"judge: {verdict.describe(n)}")
    return 0 if result.won and accepted else 1


# --------------------------------------------------------------------------
# baba show


@command
def add_show_parser(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    p = subparsers.add_parser(
        "show",
        help="print a level, or replay a solution on it step by step",
        description="Without SOLUTION, print a level's name, its grid in Keke map characters "
        "('.' empty, '_' border) and a legend of the characters used. With SOLUTION, replay it: "
        "animated on a terminal, one static frame per step otherwise (or with --frames), one JSON "
        "record per step with --json (see the README for the record). The replay stops at the first win, or at a turn the judge cannot play.",
    )
    add_level_arguments(p)
    p.add_argument(
        "solution",
        metavar="SOLUTION",
        nargs="?",
        default=None,
        help="moves to replay (Keke letters or arrow runs)",
    )
    p.add_argument("--frames", action="store_true", help="print a static frame per step, no animation")
    p.add_argument(
        "--json",
        action="store_true",
        help="print a JSON array with one record per turn, starting with the level as loaded: "
        "objects in creation order, texts in load order, rules, won, dead, illegal",
    )
    p.add_argument(
        "--delay",
        type=float,
        metavar="S",
        default=0.25,
        help="seconds between animation steps, and per GIF or HTML frame (default: 0.25)",
    )
    p.add_argument("--png", metavar="OUT.png", default=None,
                   help="draw one frame as a PNG: the level, or with SOLUTION its last frame (see --step)")
    p.add_argument("--step", type=int, metavar="K", default=None,
                   help="with --png: draw the frame after K steps instead")
    p.add_argument("--gif", metavar="OUT.gif", default=None,
                   help="write the replay as an animated GIF, a frame per step (the last one holds)")
    p.add_argument("--html", metavar="OUT.html", default=None,
                   help="write the replay as one self-contained HTML page to step through")
    p.allow_intermixed = True  # LEVEL [--id ID] SOLUTION in any order
    p.set_defaults(run=cmd_show)


def render_level(level: Level, entry: Optional[KekeLevel] = None) -> str:
    """The text ``baba show`` prints for a level."""
    lines = [level.name]
    info = f"{level.width}x{level.height}"
    if entry is not None and entry.author:
        info += f", by {entry.author}"
    lines.append(info)
    lines.append("")
    lines.append(level.to_text())
    lines.append("")
    lines.append("legend:")
    for tid in level.tiles_used():
        ch = "." if tid == tiles.EMPTY else tiles.KEKE_CHARS[tid]
        lines.append(f"  {ch} = {tiles.NAMES[tid]}")
    if entry is not None and entry.solution:
        lines.append("")
        lines.append(f"stored solution ({len(entry.solution)} moves): {entry.solution}")
    return "\n".join(lines)


def render_grid(level: Level, frame: "Frame") -> str:
    """The grid of a position in Keke characters, one per cell: '.' empty,
    '_' border, otherwise the thing in the cell's object-layer slot, or, when
    the slot is empty, a hidden thing there (the last one listed)."""
    w, h = level.width, level.height
    top = [tiles.BORDER if tid == tiles.BORDER else tiles.EMPTY for tid in level.grid]
    visible = [False] * (w * h)
    things = [(t, x, y, hidden) for t, x, y, _facing, hidden in frame.objects] + list(frame.texts)
    for tid, x, y, hidden in things:
        if 0 <= x < w and 0 <= y < h and not visible[y * w + x]:
            top[y * w + x] = tid
            visible[y * w + x] = not hidden
    chars = ["." if tid == tiles.EMPTY else tiles.KEKE_CHARS[tid] for tid in top]
    return "\n".join("".join(chars[y * w:(y + 1) * w]) for y in range(h))


def _frame_text(level: Level, frame: "Frame", total: int) -> str:
    what = "start" if frame.action is None else ACTION_NAMES[frame.action]
    header = f"step {frame.turn} of {total}: {what}"
    if frame.illegal is not None:
        header += f"  (the judge cannot play this turn: {frame.illegal})"
    elif frame.won:
        header += "  (won)"
    elif frame.dead:
        header += "  (dead: nothing is YOU or MOVE)"
    rules = ", ".join(rule_text(left, right) for left, right in frame.rules) or "(none)"
    return f"{header}\n{render_grid(level, frame)}\nrules: {rules}"


def _write_pictures(args: argparse.Namespace, level: Level, result: "Replay") -> None:
    """The --png, --gif and --html outputs of show."""
    frames = result.frames
    if args.step is not None and not 0 <= args.step < len(frames):
        raise BabaError(f"--step must be between 0 and {len(frames) - 1} (the steps played), got {args.step}")
    for option, path in (("--png", args.png), ("--gif", args.gif), ("--html", args.html)):
        if path is not None and not Path(path).parent.is_dir():
            raise BabaError(f"{path}: cannot write {option}: no such folder {Path(path).parent}")
    if args.png:
        render.write_png(level, frames[args.step if args.step is not None else -1], args.png)
    if args.gif:
        render.write_gif(level, frames, args.gif, delay_ms=max(10, int(args.delay * 1000)))
    if args.html:
        render.write_html(level, frames, args.html, title=level.name, delay_ms=max(10, int(args.delay * 1000)))


def cmd_show(args: argparse.Namespace) -> int:
    entry = keke_level_from_args(args)
    level = entry.level if entry is not None else level_from_args(args)
    if args.solution is None and not (args.json or args.png or args.gif or args.html):
        print(render_level(level, entry))
        return 0
    if args.delay < 0:
        raise BabaError(f"--delay must not be negative, got {args.delay:g}")

    actions = parse_solution(args.solution) if args.solution is not None else []
    total = len(actions)
    result = replay(level, actions, keep_frames=True)
    status = 0 if result.won or args.solution is None else 1

    if args.png or args.gif or args.html:
        _write_pictures(args, level, result)
        print(result.summary(total) if args.solution is not None else level.name)
        return status

    if args.json:
        records = [frame.record() for frame in result.frames]
        body = ",\n".join(json.dumps(r, ensure_ascii=False) for r in records)
        print("[\n" + body + "\n]")
        return status

    animate = not args.frames and sys.stdout.isatty()
    for k, frame in enumerate(result.frames):
        if animate:
            if k:
                time.sleep(args.delay)
            sys.stdout.write("\x1b[H\x1b[2J")
            print(level.name)
            print(_frame_text(level, frame, total))
            sys.stdout.flush()
        else:
            if k:
                print()
            print(_frame_text(level, frame, total))
    if not animate:
        print()
    print(result.summary(total))
    return status


# --------------------------------------------------------------------------
# baba bench (in babasolver.bench)


@command
def add_bench_parser(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    bench.add_bench_parser(subparsers)
    p = subparsers.choices.get("bench")
    if p is not None and p.get_default("run") is None:
        p.set_defaults(run=bench.cmd_bench)


# --------------------------------------------------------------------------
# The parser and main


class _SubcommandParser(argparse.ArgumentParser):
    """A subcommand's parser. With ``allow_intermixed = True`` set on it, it
    reads options and positionals in any order, so that ``check LEVEL --id 3
    SOLUTION`` works (plain argparse gives up on the optional SOLUTION once
    ``--id`` sits between it and LEVEL)."""

    allow_intermixed = False
    _intermixing = False

    def parse_known_args(self, args=None, namespace=None):  # type: ignore[override]
        if not self.allow_intermixed or self._intermixing:
            return super().parse_known_args(args, namespace)
        self._intermixing = True
        try:
            return self.parse_known_intermixed_args(args, namespace)
        finally:
            self._intermixing = False


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Shortest solutions of Baba Is You levels (Keke AI Competition rules).",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    subparsers = parser.add_subparsers(
        dest="command", metavar="COMMAND", parser_class=_SubcommandParser
    )
    for setup in COMMANDS:
        setup(subparsers)
    return parser


def _error(message: str) -> None:
    message = " ".join(str(message).splitlines())
    print(f"{PROG}: error: {message}", file=sys.stderr)


def _os_error_message(e: OSError) -> str:
    if e.filename is not None and e.strerror:
        return f"{e.filename}: {e.strerror}"
    return str(e) or type(e).__name__


def _silence_stdout() -> None:
    """After a broken pipe, point stdout at /dev/null so the exit flush is quiet."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


def _tolerate_narrow_encodings() -> None:
    """Arrows and other non-ASCII output must not crash on a terminal whose
    encoding lacks them, nor a lone surrogate from a level file on any:
    escape what cannot be encoded instead."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(AttributeError, ValueError, OSError):
            stream.reconfigure(errors="backslashreplace")  # type: ignore[union-attr]


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run the ``baba`` command line; returns the exit status."""
    _tolerate_narrow_encodings()
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:  # usage error (2), or --help / --version (0)
        code = e.code
        if code is None:
            return 0
        return code if isinstance(code, int) else EXIT_ERROR
    run = getattr(args, "run", None)
    if run is None:
        parser.print_usage(sys.stderr)
        _error("choose a command")
        return EXIT_ERROR
    try:
        return int(run(args) or 0)
    except BabaError as e:
        _error(str(e))
        return EXIT_ERROR
    except BrokenPipeError:
        # The reader went away (e.g. `baba ... | head`): stop quietly.
        _silence_stdout()
        return 1
    except OSError as e:
        _error(_os_error_message(e))
        return EXIT_ERROR
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


if __name__ == "__main__":
    sys.exit(main())
