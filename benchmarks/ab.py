"""Breadth-first search speed of two installed engines, side by side.

Runs `baba solve --mode shortest --json` of engine A and engine B in turn
(A B A B ...) on each level, so that a drift in the machine's speed falls
on both, and prints per level the median generated states per second of
each and the median of the per-pair ratios B/A, then the median ratio over
the levels. Each engine is given as the path of its `baba` executable (one
per virtual environment).

    python benchmarks/ab.py OLD/bin/baba NEW/bin/baba --runs 5 --threads 1 \
        levels/01 ../shared/levels/keke/full_biy_LEVELS.json#42 ...

A level is a level folder, or SET.json#ID. Level folders are copied to a
temporary folder first: solve writes solution.txt.
"""
from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import tempfile
from pathlib import Path
from typing import List


def level_arguments(level: str, scratch: Path) -> List[str]:
    if "#" in level:
        path, level_id = level.rsplit("#", 1)
        return [path, "--id", level_id]
    copy = scratch / Path(level).name
    if not copy.exists():
        shutil.copytree(level, copy)
    return [str(copy)]


def states_per_second(baba: str, arguments: List[str], extra: List[str]) -> float:
    done = subprocess.run([baba, "solve", *arguments, "--mode", "shortest", "--json", *extra],
                          capture_output=True, text=True, check=False)
    if done.returncode not in (0, 1):
        raise SystemExit(f"{baba} {' '.join(arguments)}: exit {done.returncode}: {done.stderr.strip()}")
    stats = json.loads(done.stdout)["stats"]
    return stats["generated"] / stats["elapsed"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("engine_a")
    parser.add_argument("engine_b")
    parser.add_argument("levels", nargs="+")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--max-states", default=None)
    args = parser.parse_args()
    extra = ["--threads", str(args.threads)]
    if args.max_states:
        extra += ["--max-states", args.max_states]
    ratios = []
    print(f"{'level':<40} {'A states/s':>12} {'B states/s':>12} {'B/A':>6}")
    with tempfile.TemporaryDirectory() as scratch:
        for level in args.levels:
            arguments = level_arguments(level, Path(scratch))
            a_runs, b_runs = [], []
            for _ in range(args.runs):
                a_runs.append(states_per_second(args.engine_a, arguments, extra))
                b_runs.append(states_per_second(args.engine_b, arguments, extra))
            ratio = statistics.median(b / a for a, b in zip(a_runs, b_runs))
            ratios.append(ratio)
            print(f"{level[-40:]:<40} {statistics.median(a_runs):>12,.0f} {statistics.median(b_runs):>12,.0f}"
                  f" {ratio:>6.3f}", flush=True)
    print(f"median B/A over {len(ratios)} levels: {statistics.median(ratios):.3f}"
          f" (min {min(ratios):.3f}, max {max(ratios):.3f})")


if __name__ == "__main__":
    main()
