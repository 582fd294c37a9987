"""baba bench: solve every level of a set under per-level limits; a table,
a summary, and optionally a JSON report and replays."""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import List, Optional, Tuple

from .. import stopping
from ..app.limits import MIN_WORKER_GB, PER_CPU, STORE_CAPACITY, Limits, default_threads
from ..app.report import (
    build_report, check_replays_folder, check_report_target, judge_outcomes, summarize, write_replays, write_report,
)
from ..app.running import LevelOutcome, run_many
from ..app.tasks import LevelTask, input_files, load_tasks, select_ids
from ..errors import BabaError
from ..judge import Judge
from ..solver import SearchStats
from ..status import Status
from .bench_text import format_scaling, format_summary, format_table, si
from .common import (
    EXIT_INTERRUPTED, EXIT_NO, EXIT_OK, StatusLine, Subparsers, add_judge_argument, add_limit_arguments,
    add_mode_argument, add_rules_argument, best_so_far, check_judge_rules, gigabytes, job_count, path_argument, plural,
    safe, thread_count,
)


def _id_list(text: str) -> List[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


def add_parser(subparsers: Subparsers) -> None:
    p = subparsers.add_parser(
        "bench",
        help="solve every level of a set under limits; table, summary, JSON report",
        description="Solve every level of a Keke JSON level set (or every level folder under a folder)"
                    " with a per-level time and state limit, replay each solution found, and print a"
                    " table and a summary. Exit status 1 if a solution fails to replay, the judge"
                    " rejects one, or a level could not be run.",
    )
    p.add_argument("set", metavar="SET_OR_DIR", type=path_argument,
                   help="a Keke .json level set, or a folder searched for level folders (tiles.txt + content.txt)")
    add_limit_arguments(p, many_default=True)
    p.add_argument("--jobs", type=job_count, default=1, metavar="N",
                   help="levels run at once in worker processes (default 1: in this process; 0: one per CPU;"
                        f" at most {PER_CPU} per CPU)")
    p.add_argument("--memory-limit", type=gigabytes, default=None, metavar="GB",
                   help="address space per level: the levels run in worker processes capped at GB each"
                        " (default with --jobs 2 or more: RAM / jobs; with --jobs 1: no cap, in this"
                        f" process; at least {MIN_WORKER_GB:g}, at most the machine's memory); a level"
                        f" that needs more reports '{Status.MEMORY_LIMIT}'")
    p.add_argument("--threads", type=thread_count, default=None, metavar="N",
                   help="threads per level with --jobs 1, as for solve (default: every CPU this process may"
                        f" use; at most {PER_CPU} per CPU); worker processes use one each")
    p.add_argument("--ids", type=_id_list, default=None, metavar="ID,ID,...", help="run only these levels")
    p.add_argument("--report", default=None, metavar="OUT.json", type=path_argument,
                   help="also write a JSON report (Keke competition fields per level)")
    add_mode_argument(p)
    p.add_argument("--replays", default=None, metavar="DIR", type=path_argument,
                   help="write an HTML replay of every level solved into DIR, and an index.html")
    add_judge_argument(p, "every solution found")
    add_rules_argument(p)
    p.add_argument("--cluster", default=None, metavar="ADDRESS",
                   help="run the levels as Ray tasks, one a CPU of the cluster at once: 'local' starts Ray on"
                        " this machine with --jobs CPUs, 'auto' joins RAY_ADDRESS (or the cluster running"
                        " here), else the address of a Ray cluster to join; a level still running"
                        " 2 * --timeout + 60 s after it started is cancelled. A level's searches may hold 80%%"
                        " of --memory-limit (default: of its node's RAM shared among its CPUs), or --memory."
                        " Needs the extra:"
                        " pip install 'babasolver[cluster]'")
    p.set_defaults(run=run)


def _cluster_slots(args: argparse.Namespace) -> Tuple[Optional[int], bool]:
    """With --cluster: Ray connected, the levels it may run at once, and
    whether this run started Ray; else (None, False)."""
    if args.cluster is None:
        return None, False
    if args.threads is not None:
        raise BabaError("--threads is for --jobs 1 on one machine; on a cluster each level runs on one CPU")
    from ..cluster import LOCAL, cluster_cpus, connect
    started = connect(args.cluster, args.jobs)
    return (args.jobs if args.cluster == LOCAL and not started else cluster_cpus()), started


def _where(args: argparse.Namespace, slots: Optional[int], threads: int, memory_limit: Optional[int]) -> str:
    if slots is not None:
        return f"cluster {args.cluster}, {plural(slots, 'level')} at once, threads 1"
    return f"jobs {args.jobs}, threads {threads if args.jobs == 1 and memory_limit is None else 1}"


def _judge_files(judge: Optional[str]) -> List[Path]:
    """The judge's own files, which no output may replace."""
    if judge is None:
        return []
    try:
        return [p for p in Path(judge).iterdir() if p.is_file()]
    except OSError:         # Judge() says what is wrong with the folder
        return []


def run(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    check_judge_rules(args)
    every_task = load_tasks(args.set, args.rules)
    tasks = select_ids(every_task, args.ids)
    # The outputs are checked before the levels run, not found wanting after.
    inputs = input_files(args.set, every_task) + _judge_files(args.judge)
    if args.report is not None:
        check_report_target(args.report, inputs)
    if args.replays is not None:
        check_replays_folder(Path(args.replays), [t.id for t in tasks], inputs)
    judge = Judge(args.judge) if args.judge is not None else None
    limits = Limits.for_many(args.timeout, args.max_states, args.memory)
    memory_limit = None if args.memory_limit is None else int(args.memory_limit * 2**30)
    line = StatusLine()
    finished = [0]

    def on_done(k: int, n: int, o: LevelOutcome) -> None:
        finished[0] = k
        moves = f" {plural(o.moves, 'move')}" if o.moves is not None else ""
        note = f" ({safe(o.note)})" if o.note else ""
        line.line(f"[{k}/{n}] {safe(o.id)} {o.status}{moves}, {o.unique:,} states, {o.elapsed:.3f} s{note}")

    def on_progress(task: LevelTask, stats: SearchStats) -> None:
        if stats.satisficing:
            what = f"satisficing: {best_so_far(stats.best)}, {stats.unique:,} states"
        else:
            what = f"searching: {stats.unique:,} states, {si(stats.states_per_second)}/s"
        line.update(f"[{finished[0] + 1}/{len(tasks)}] {safe(task.id)} {what}, {stats.elapsed:.1f} s")

    threads = args.threads or default_threads()
    slots, started_ray = _cluster_slots(args)
    try:
        outcomes, completed = run_many(tasks, limits, args.mode, jobs=args.jobs, memory_limit=memory_limit,
                                       threads=threads, cluster_slots=slots,
                                       on_done=on_done, on_progress=on_progress if line.enabled else None)
    finally:
        line.clear()
        if started_ray:
            from ..cluster import disconnect
            disconnect(started_ray)
    if judge is not None and completed:       # after Ctrl-C, stop now: no judge
        judge_outcomes(judge, tasks, outcomes)
    summary = summarize(outcomes, wall_time=time.perf_counter() - started, completed=completed)

    # The files first: a table that cannot be printed (stdout closed, or
    # its reader gone, as in `| true`) must not cost the report.
    if args.report is not None:
        write_report(args.report, build_report(str(args.set), limits.timeout, limits.max_states, outcomes, summary,
                                               args.rules), inputs)
    index = None
    if args.replays is not None:
        index = write_replays(Path(args.replays), tasks, outcomes, str(args.set), inputs)
    out = sys.stdout
    out.write(f"bench: {safe(args.set)} ({len(tasks)} levels), timeout {limits.timeout:g} s,"
              f" {'no state limit' if limits.max_states >= STORE_CAPACITY else f'max {limits.max_states:,} states'},"
              f" memory {'default' if limits.memory is None else f'{limits.memory:g} GB'},"
              f" rules {args.rules}, {_where(args, slots, threads, memory_limit)}, mode {args.mode}\n\n")
    out.write(format_table(outcomes) + "\n\n")
    out.write(format_summary(summary) + "\n\n")
    out.write(format_scaling(summary.scaling) + "\n")
    out.flush()
    if args.report is not None:
        out.write(f"\nreport written to {args.report}\n")
    if index is not None:
        out.write(f"\nreplays written to {args.replays} (open {index})\n")
    if summary.wrong or summary.errors or summary.judge_rejected_ids:
        sys.stderr.write(f"baba bench: {summary.wrong} solution(s) failed to replay (a bug),"
                         f" {len(summary.judge_rejected_ids)} were rejected by the judge and"
                         f" {summary.errors} level(s) could not be run: "
                         f"{', '.join(safe(i) for i in summary.wrong_ids + summary.judge_rejected_ids + summary.error_ids)}\n")
    if not completed:
        sys.stderr.write(f"baba bench: {stopping.message()}"
                         + ("\n" if judge is None else " (the judge did not run)\n"))
        return EXIT_INTERRUPTED
    return EXIT_NO if summary.wrong or summary.errors or summary.judge_rejected_ids else EXIT_OK
