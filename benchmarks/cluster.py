"""Breadth-first search split over Ray workers against the one-process
search, side by side (issue 22's overhead measure).

On each level, in turn (A B A B ...): the one-process search on --threads
threads (solver.solve, mode "shortest") and the search over --workers Ray
workers on an embedded Ray (cluster.bfs), each stopped at --timeout. Prints
per level the verdicts and lengths, the median generated states/s of each
(the split search's with and without the seconds its workers take to
start), their ratio, the bytes exchanged per generated state, and the
visited-set bytes (one process; the largest worker); then the medians.

    python benchmarks/cluster.py ../shared/levels/keke/full_biy_LEVELS.json 37 42 53 107 --runs 2
"""
from __future__ import annotations

import argparse
import statistics
from typing import List

from babasolver import solver
from babasolver.app.tasks import load_tasks
from babasolver.cluster import connect, disconnect
from babasolver.cluster.bfs import solve_on_cluster


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("set", help="a Keke .json level set")
    parser.add_argument("ids", nargs="+", help="level ids")
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=10.0)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    tasks = {t.id.strip(): t for t in load_tasks(args.set)}
    started = connect("local", args.workers)
    print("| level | one process | split | one process states/s | split states/s (with start) |"
          " split/one | bytes exchanged / generated | visited-set bytes: one process / per worker (mean) |")
    print("|---|---|---|---:|---:|---:|---:|---:|")
    ratios: List[float] = []
    exchanged: List[float] = []
    try:
        for level_id in args.ids:
            level = tasks[level_id].level
            alone_rates: List[float] = []
            split_rates: List[float] = []
            split_whole: List[float] = []
            for _ in range(args.runs):
                alone = solver.solve(level, timeout=args.timeout, threads=args.threads, mode="shortest")
                alone_rates.append(alone.stats.states_per_second)
                split = solve_on_cluster(level, args.workers, timeout=args.timeout)
                stats = split.stats
                split_rates.append(stats.search_states_per_second)  # type: ignore[attr-defined]
                split_whole.append(stats.states_per_second)
            a, b = statistics.median(alone_rates), statistics.median(split_rates)
            ratios.append(b / a)
            exchanged.append(stats.bytes_per_generated)  # type: ignore[attr-defined]
            largest = stats.memory_bytes / args.workers
            print(f"| {level_id} | {alone.status} {len(alone.solution or []) or ''} (bound {alone.lower_bound})"
                  f" | {split.status} {len(split.solution or []) or ''} (bound {split.lower_bound})"
                  f" | {a / 1e6:.2f}M | {b / 1e6:.2f}M ({statistics.median(split_whole) / 1e6:.2f}M)"
                  f" | {b / a:.2f} | {exchanged[-1]:.1f}"
                  f" | {alone.stats.memory_bytes / 2**20:.0f} MiB / {largest / 2**20:.0f} MiB |", flush=True)
    finally:
        disconnect(started)
    print(f"\nmedian split/one-process states/s: {statistics.median(ratios):.2f};"
          f" median bytes exchanged per generated state: {statistics.median(exchanged):.1f}")


if __name__ == "__main__":
    main()
