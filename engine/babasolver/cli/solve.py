"""baba solve: a level's shortest solution, or every level's with --all."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

from .. import stopping
from ..app.limits import DEFAULT_MAX_STATES, PER_CPU, Limits, default_threads
from ..app.running import LevelOutcome, run_many
from ..app.solving import Search, SolutionFile, solve_path
from ..app.tasks import LevelTask, load_tasks
from ..cluster.stats import ClusterStats
from ..errors import BabaError
from ..notation import Action, to_arrows, to_keke
from ..rulesets import solution_files_text
from ..solver import SearchResult, SearchStats
from ..status import Status
from .common import (
    EXIT_ERROR, EXIT_INTERRUPTED, EXIT_NO, EXIT_OK, StatusLine, Subparsers, add_level_arguments,
    add_limit_arguments, add_mode_argument, add_rules_argument, aligned, best_so_far, count, dump_json, plural, print_rows, safe,
    thread_count, worker_count,
)

#: Statuses, in the order the totals line gives them.
ORDER = (Status.SOLVED, Status.UNSOLVABLE, Status.TIME_LIMIT, Status.STATE_LIMIT, Status.MEMORY_LIMIT,
         Status.WRONG, Status.INTERRUPTED, Status.ERROR)


def add_parser(subparsers: Subparsers) -> None:
    p = subparsers.add_parser(
        "solve",
        help="find a shortest solution of a level (or of every level with --all)",
        description="Find a shortest solution (fewest turns) by breadth-first search, with a "
        "satisficing search beside it for levels breadth-first search cannot finish (see --mode). "
        "The result says whether the solution is proven shortest, and the lower bound breadth-first "
        "search established. For a level folder, its solution file for --rules ("
        + solution_files_text() + ") ends holding the shortest solution "
        "known: one there that still wins is kept unless a shorter one is found, one that does not is "
        "deleted. Exit status: 0 solved; 1 proven unsolvable or a limit was hit; 2 bad "
        "input; 130 interrupted (Ctrl-C; 143 SIGTERM, 129 SIGHUP).",
    )
    add_level_arguments(p)
    p.add_argument("--all", action="store_true",
                   help="solve every level folder under LEVEL (recursively) or every level of a Keke"
                        " .json set, then print a table; a level that cannot be read gets a row")
    add_limit_arguments(p, many_default=False)
    p.add_argument("--threads", type=thread_count, default=None, metavar="N",
                   help="threads that expand each batch of states (breadth-first search and its result"
                        " are the same for any N) and that run the satisficing searches side by side"
                        " (which of them finds a solution first may differ) (default: every CPU this"
                        f" process may use; at most {PER_CPU} per CPU)")
    add_mode_argument(p)
    add_rules_argument(p)
    p.add_argument("--cluster", default=None, metavar="ADDRESS",
                   help="breadth-first search split over Ray workers, each holding a hash part of the"
                        " visited states: 'local' starts Ray on this machine, 'auto' joins RAY_ADDRESS"
                        " (or the cluster running here), else the address of a Ray cluster to join."
                        " Needs the extra: pip install 'babasolver[cluster]'. Proves what --mode shortest"
                        " proves; --memory is per worker (default: the memory available here, shared)")
    p.add_argument("--workers", type=worker_count, default=None, metavar="N",
                   help="with --cluster: Ray workers (default: the cluster's CPUs; with 'local': every CPU"
                        " this process may use)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(run=run)


def solution_json(actions: Optional[Sequence[Action]]) -> Optional[Dict[str, Any]]:
    if actions is None:
        return None
    return {"arrows": to_arrows(actions), "keke": to_keke(actions), "moves": len(actions)}


def stats_json(stats: SearchStats) -> Dict[str, Any]:
    fields: Dict[str, Any] = {
        "expanded": stats.expanded, "generated": stats.generated, "unique": stats.unique,
        "dead_ends": stats.dead_ends, "depth": stats.depth, "peak_frontier": stats.peak_frontier,
        "elapsed": round(stats.elapsed, 6), "memory_bytes": stats.memory_bytes,
        "states_per_second": round(stats.states_per_second, 1),
    }
    if isinstance(stats, ClusterStats):
        fields.update({"states_per_worker": list(stats.states_per_worker), "bytes_exchanged": stats.bytes_exchanged})
    return fields


def _seconds(s: float) -> str:
    return f"{s:.3f} s" if s < 10 else f"{s:.1f} s"


def _gigabytes(n: int) -> str:
    """Bytes in GB, or in MB below 0.1 GB (where two decimals of a GB said 0.00)."""
    return f"{n / 2**30:.2f} GB" if n >= 2**30 / 10 else f"{n / 2**20:.1f} MB"


def explain(result: SearchResult, limits: Limits) -> str:
    """The human explanation of a search's status."""
    status = result.status
    bound = f"every solution has at least {plural(result.lower_bound, 'move')}"
    if status == Status.SOLVED:
        if result.proven_shortest:
            return f"solved: {plural(len(result.solution or []), 'move')}, the fewest possible"
        why = f"breadth-first search stopped at the {result.limit}" if result.limit else "--mode fast"
        return f"solved: {plural(len(result.solution or []), 'move')}, not proven shortest ({bound}; {why})"
    if status == Status.UNSOLVABLE:
        return "unsolvable: every reachable state was explored and none wins"
    if status == Status.STATE_LIMIT:
        return (f"state limit hit (--max-states {limits.max_states}): no solution within "
                f"{count(result.stats.unique)} states; the level may still be solvable ({bound})")
    if status == Status.MEMORY_LIMIT:
        given = f" (--memory {limits.memory:g})" if limits.memory is not None else ""
        return (f"memory limit hit{given}: no solution within {count(result.stats.unique)} states"
                f" in {_gigabytes(result.stats.memory_bytes)}; the level may still be solvable ({bound})")
    if status == Status.TIME_LIMIT:
        return (f"time limit hit (--timeout {limits.timeout:g}): no solution within "
                f"{_seconds(result.stats.elapsed)}; the level may still be solvable ({bound})")
    if status == Status.INTERRUPTED:
        if result.solution is not None:
            return (f"interrupted ({stopping.cause()}): best solution so far {plural(len(result.solution), 'move')}, not proven"
                    f" shortest ({bound}), not written; counters so far below")
        return f"interrupted ({stopping.cause()}): stopped before a solution was found; counters so far below"
    return f"{status}: {result.note}"


def _solution_file_rows(file: Optional[SolutionFile], solved: bool) -> List[Tuple[str, str]]:
    """What a level folder's solution file holds after the run."""
    if file is None:
        return []
    if not file.kept:
        return [("written", safe(file.path))]
    why = "the solution found is not shorter" if solved else "it still wins"
    return [("kept", f"{safe(file.path)} ({plural(file.moves, 'move')}; {why})")]


def solution_file_json(file: Optional[SolutionFile]) -> Optional[Dict[str, Any]]:
    return None if file is None else {"path": file.path, "moves": file.moves, "kept": file.kept}


def _progress_text(stats: SearchStats) -> str:
    if stats.satisficing:
        return f"satisficing: {best_so_far(stats.best)}  {count(stats.unique)} states  {stats.elapsed:.1f} s"
    split = "" if not isinstance(stats, ClusterStats) else (
        f" ({' + '.join(count(n) for n in stats.states_per_worker)})  {count(stats.bytes_exchanged)} bytes exchanged")
    return (f"depth {stats.depth}  {count(stats.unique)} unique states{split}  "
            f"{count(int(stats.states_per_second))} states/s  {stats.elapsed:.1f} s")


def _phases(result: SearchResult) -> List[Tuple[str, str]]:
    """Which phase of the search found the solution, and which proved it."""
    rows = []
    if result.found_by is not None and result.solution is not None and result.status == Status.SOLVED:
        rows.append(("found by", result.found_by))
    if result.proved_by is not None:
        rows.append(("proved by", result.proved_by))
    return rows


def _best_so_far(result: SearchResult) -> Optional[Sequence[Action]]:
    """The solution of a search stopped by Ctrl-C, if it had found one."""
    return result.solution if result.status == Status.INTERRUPTED else None


def _exit_code(status: str) -> int:
    return {Status.SOLVED: EXIT_OK, Status.INTERRUPTED: EXIT_INTERRUPTED}.get(Status(status), EXIT_NO)


def _cluster_search(args: argparse.Namespace) -> Tuple[Optional[Search], bool]:
    """With --cluster: the search over its workers, Ray connected (and
    whether this run started Ray); else (None, False)."""
    if args.cluster is None:
        if args.workers is not None:
            raise BabaError("--workers goes with --cluster")
        return None, False
    if args.all:
        raise BabaError("--cluster searches one level; for many, run them as Ray tasks with bench --cluster")
    if args.mode == "fast":
        raise BabaError("--cluster runs breadth-first search (--mode shortest), not --mode fast")
    if args.threads is not None:
        raise BabaError("--threads is for one machine; with --cluster give --workers")
    from ..cluster import LOCAL, cluster_cpus, connect, require_ray
    require_ray()       # before cluster.bfs, which imports numpy: the error names the extra
    from ..cluster.bfs import cluster_search
    workers = args.workers
    started = connect(args.cluster, workers or default_threads() if args.cluster == LOCAL else 1)
    return cluster_search(workers or cluster_cpus()), started


def run(args: argparse.Namespace) -> int:
    if args.all and args.cluster is None:
        if args.workers is not None:
            raise BabaError("--workers goes with --cluster")
        return _run_all(args)
    limits = Limits(args.timeout, args.max_states or DEFAULT_MAX_STATES, args.memory)
    search, started = _cluster_search(args)
    line = StatusLine()
    try:
        level, result, solution_file = solve_path(
            Path(args.level), args.level_id, limits, mode=args.mode, threads=args.threads, rules=args.rules,
            progress=(lambda s: line.update(_progress_text(s))) if line.enabled else None, search=search)
    finally:
        line.clear()
        if started:
            from ..cluster import disconnect
            disconnect(started)
    if args.json:
        dump_json({
            "level": level.name, "rule_set": level.rules, "status": result.status,
            "proven_shortest": result.proven_shortest,
            "lower_bound": result.lower_bound, "limit": result.limit,
            "found_by": result.found_by, "proved_by": result.proved_by,
            "solution": solution_json(result.solution if result.status != Status.INTERRUPTED else None),
            "best_so_far": solution_json(_best_so_far(result)),
            "solution_file": solution_file_json(solution_file), "stats": stats_json(result.stats),
            **({"error": result.note} if result.status == Status.ERROR else {}),
        })
        return _exit_code(result.status)
    rows: List[Tuple[str, str]] = [("level", safe(level.name)), ("rules", level.rules),
                                   ("status", explain(result, limits))]
    best = _best_so_far(result)
    if best is not None:
        rows += [("best so far", to_arrows(best)), ("keke", to_keke(best))]
    elif result.solution is not None:
        rows += [("solution", to_arrows(result.solution)), ("keke", to_keke(result.solution))]
    else:
        rows.append(("solution", "none"))
    rows += _solution_file_rows(solution_file, result.status == Status.SOLVED)
    rows += _phases(result)
    stats = result.stats
    rows += [("expanded", count(stats.expanded)), ("generated", count(stats.generated)),
             ("unique", count(stats.unique)), ("dead ends", count(stats.dead_ends)),
             ("depth", str(stats.depth)), ("peak frontier", count(stats.peak_frontier)),
             ("time", _seconds(stats.elapsed)), ("states/s", count(int(stats.states_per_second)))]
    if isinstance(stats, ClusterStats):
        workers = stats.states_per_worker
        rows += [("workers", f"{len(workers)}: {' + '.join(count(n) for n in workers)} states"),
                 ("exchanged", f"{count(stats.bytes_exchanged)} bytes, {stats.bytes_per_generated:.1f} a generated state")]
    print_rows(rows)
    return _exit_code(result.status)


# --------------------------------------------------------------------------
# --all


def _all_tasks(args: argparse.Namespace) -> List[LevelTask]:
    if args.level_id is not None:
        raise BabaError("--id selects one level; leave it out with --all")
    path = Path(args.level)
    if path.exists() and not path.is_dir() and path.suffix.lower() != ".json":
        raise BabaError(f"{path}: --all needs a folder of level folders or a Keke .json level set")
    return load_tasks(path, args.rules)


def _record(o: LevelOutcome) -> Dict[str, Any]:
    return {
        "id": o.id, "level": o.name or None, "rule_set": o.rules, "status": o.status,
        "proven_shortest": o.proven_shortest, "lower_bound": o.lower_bound, "limit": o.limit,
        "found_by": o.found_by, "proved_by": o.proved_by,
        "solution": solution_json(o.solution if o.solved else None),
        "best_so_far": solution_json(o.solution if o.status == Status.INTERRUPTED else None),
        "solution_file": solution_file_json(o.solution_file),
        "stats": None if o.status == Status.ERROR else {
            "expanded": o.expanded, "generated": o.generated, "unique": o.unique, "dead_ends": o.dead_ends,
            "depth": o.depth, "peak_frontier": o.peak_frontier, "elapsed": round(o.elapsed, 6),
            "memory_bytes": o.memory_bytes, "states_per_second": round(o.states_per_second, 1)},
        **({"error": o.note} if o.status == Status.ERROR else {}),
    }


def _run_all(args: argparse.Namespace) -> int:
    tasks = _all_tasks(args)
    limits = Limits.for_many(args.timeout, args.max_states, args.memory)
    line = StatusLine()
    finished = [0]

    def done(k: int, n: int, outcome: LevelOutcome) -> None:
        finished[0] = k

    def progress(task: LevelTask, stats: SearchStats) -> None:
        line.update(f"[{finished[0] + 1}/{len(tasks)}] {safe(task.id)} ... {_progress_text(stats)}")

    try:
        outcomes, completed = run_many(tasks, limits, args.mode, threads=args.threads or default_threads(),
                                       write_solutions=True, on_done=done,
                                       on_progress=progress if line.enabled else None)
    finally:
        line.clear()
    if args.json:
        dump_json([_record(o) for o in outcomes])
    else:
        _print_table(outcomes, len(tasks))
    for o in outcomes:
        if o.status == Status.ERROR:
            print(f"baba: error: {safe(o.note)}", file=sys.stderr)
    if not completed or any(o.status == Status.INTERRUPTED for o in outcomes):
        return EXIT_INTERRUPTED
    if any(o.status == Status.ERROR for o in outcomes):
        return EXIT_ERROR
    return EXIT_OK if all(o.solved for o in outcomes) else EXIT_NO


def _print_table(outcomes: Sequence[LevelOutcome], total: int) -> None:
    rows = [("id", "status", "moves", "bound", "states", "time")]
    for o in outcomes:
        rows.append((
            safe(o.id), str(o.status),
            "-" if o.moves is None else f"{o.moves}{'' if o.proven_shortest else '?'}",
            "-" if o.lower_bound is None or o.proven_shortest or o.status == Status.ERROR else str(o.lower_bound),
            "-" if o.status == Status.ERROR else str(o.unique),
            "-" if o.status == Status.ERROR else f"{o.elapsed:.2f}",
        ))
    for text in aligned(rows, (False, False, True, True, True, True)):
        print(text)
    counts = {s: sum(1 for o in outcomes if o.status == s) for s in ORDER}
    parts = [f"{n} {s}" for s, n in counts.items() if n]
    unproven = sum(1 for o in outcomes if o.solved and not o.proven_shortest)
    if unproven:
        parts.insert(1, f"{unproven} of them not proven shortest (moves marked ?)")
    states = sum(o.unique for o in outcomes)
    seconds = sum(o.elapsed for o in outcomes)
    levels = "level" if total == 1 else "levels"
    done = f"{len(outcomes)} {levels}" if len(outcomes) == total else f"{len(outcomes)} of {total} {levels}"
    print(f"total: {done}: {', '.join(parts) or 'none'}; {states} states; {seconds:.2f} s")
    kept = [(o.id, o.solution_file.moves) for o in outcomes if o.solution_file is not None and o.solution_file.kept]
    if kept:
        print("kept, as no shorter solution was found: "
              + ", ".join(f"{safe(lid)} ({plural(moves, 'move')})" for lid, moves in kept))
