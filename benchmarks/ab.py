"""Breadth-first search speed of two installed engines, side by side.

Runs `baba solve --mode shortest --json` of engine A and engine B in turn
(A B A B ...) on each level, so that a drift in the machine's speed falls
on both, and prints per level the median generated states per second of
each and the median of the per-pair ratios B/A, then the median ratio over
the levels, and the ratio of each engine's best run ("best B/A": on a
shared machine other work only ever slows a run down, so the fastest of
several runs is the least disturbed). With several thread counts (`--threads 1,2`) each round runs
both engines at each count, and B's ratio of the last count to the first
is given too, and A's (the pairs of one round, so a drift falls on both;
A's beside B's shows whether a change moved the scaling). Each engine is given as the path of its `baba` executable (one
per virtual environment).

    python benchmarks/ab.py OLD/bin/baba NEW/bin/baba --runs 5 --threads 1 \
        levels/01 ../shared/levels/keke/full_biy_LEVELS.json#42 ...

A level is a level folder, or SET.json#ID. Level folders are copied to a
temporary folder first: solve writes solution.txt. `@FILE` reads arguments
from FILE, one per line: `@benchmarks/issue-21.levels` is the level set of
issue 21 (levels/01, the full_biy levels whose breadth-first search took
0.3-5 s when it was chosen, and 119, to be capped with --max-states 20000000).
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


def level_name(level: str) -> str:
    """A set's level as SET.json#ID without its folders; a level folder as given."""
    if "#" in level:
        path, level_id = level.rsplit("#", 1)
        level = f"{Path(path).name}#{level_id}"
    return level[-40:]


def states_per_second(baba: str, arguments: List[str], extra: List[str]) -> float:
    done = subprocess.run([baba, "solve", *arguments, "--mode", "shortest", "--json", *extra],
                          capture_output=True, text=True, check=False)
    if done.returncode not in (0, 1):
        raise SystemExit(f"{baba} {' '.join(arguments)}: exit {done.returncode}: {done.stderr.strip()}")
    stats = json.loads(done.stdout)["stats"]
    return stats["generated"] / stats["elapsed"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], fromfile_prefix_chars="@")
    parser.add_argument("engine_a")
    parser.add_argument("engine_b")
    parser.add_argument("levels", nargs="+")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--threads", default="1",
                        help="thread counts, comma-separated (1,2: each round runs A and B at each)")
    parser.add_argument("--max-states", default=None)
    args = parser.parse_args()
    counts = [int(t) for t in args.threads.split(",")]
    limit = ["--max-states", args.max_states] if args.max_states else []
    ratios: dict = {t: [] for t in counts}
    best_ratios: dict = {t: [] for t in counts}
    scalings: dict = {"A": [], "B": []}
    best_scalings: dict = {"A": [], "B": []}
    header = "".join(f" {f'A {t}t':>12} {f'B {t}t':>12} {'B/A':>6} {'best':>6}" for t in counts)
    if len(counts) > 1:
        header += "".join(f" {f'{e} {counts[-1]}t/{counts[0]}t':>10}" for e in "AB")
    print(f"{'level':<40}{header}")
    with tempfile.TemporaryDirectory() as scratch:
        for level in args.levels:
            arguments = level_arguments(level, Path(scratch))
            runs: dict = {(engine, t): [] for engine in "AB" for t in counts}
            for _ in range(args.runs):
                for t in counts:
                    extra = ["--threads", str(t), *limit]
                    runs["A", t].append(states_per_second(args.engine_a, arguments, extra))
                    runs["B", t].append(states_per_second(args.engine_b, arguments, extra))
            line = f"{level_name(level):<40}"
            for t in counts:
                ratio = statistics.median(b / a for a, b in zip(runs["A", t], runs["B", t]))
                best = max(runs["B", t]) / max(runs["A", t])
                ratios[t].append(ratio)
                best_ratios[t].append(best)
                line += (f" {statistics.median(runs['A', t]):>12,.0f} {statistics.median(runs['B', t]):>12,.0f}"
                         f" {ratio:>6.3f} {best:>6.3f}")
            if len(counts) > 1:
                for engine in "AB":
                    first, last = runs[engine, counts[0]], runs[engine, counts[-1]]
                    scaling = statistics.median(b / a for a, b in zip(first, last))
                    scalings[engine].append(scaling)
                    best_scalings[engine].append(max(last) / max(first))
                    line += f" {scaling:>10.2f}"
            print(line, flush=True)
    for t in counts:
        print(f"median B/A at {t} thread(s) over {len(ratios[t])} levels: {statistics.median(ratios[t]):.3f}"
              f" (min {min(ratios[t]):.3f}, max {max(ratios[t]):.3f});"
              f" of the best runs: {statistics.median(best_ratios[t]):.3f}")
    if len(counts) > 1:
        for engine in "AB":
            found = scalings[engine]
            print(f"median {engine} {counts[-1]} threads / {counts[0]}: {statistics.median(found):.2f}"
                  f" (min {min(found):.2f}, max {max(found):.2f}); of the best runs:"
                  f" {statistics.median(best_scalings[engine]):.2f}")


if __name__ == "__main__":
    main()
