"""Instructions per generated state of two installed engines, under callgrind.

The wall-clock figures of `ab.py` move by a third from one run to the next
on a shared VM (full_biy 126 on one thread: 5.1 to 8.7M states/s in three
runs in a row). An instruction count does not move at all, so a change of
a few percent, lost in that noise, can be seen here. It is not a speed: a
change can save instructions and lose time to memory, so `ab.py` stays the
measure of speed, and this the instrument for a change too small for it.

Each engine runs `baba solve --mode shortest --threads 1` under valgrind
twice per level: to `--states` states and to `--base-states`. The
difference of the two counts over the difference of the generated states
leaves out what does not grow with the search (starting Python, reading
the level, the solver's set-up):

    python benchmarks/instructions.py OLD/bin/baba NEW/bin/baba \
        @benchmarks/issue-21.levels --states 300000

Levels are given as for `ab.py` (a level folder, or SET.json#ID). A
search that ends before `--states` still counts: the figure is then of the
whole search. Needs valgrind (Debian's package).
"""
from __future__ import annotations

import argparse
import json
import re
import shutil
import statistics
import subprocess
import tempfile
from pathlib import Path
from typing import List, Tuple

from ab import level_arguments, level_name

_COLLECTED = re.compile(r"Collected : (\d+)")


def instructions_and_states(baba: str, arguments: List[str], states: int) -> Tuple[int, int]:
    """Instructions the whole run executed, and the states it generated."""
    done = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
                           baba, "solve", *arguments, "--mode", "shortest", "--threads", "1",
                           "--max-states", str(states), "--json"],
                          capture_output=True, text=True, check=False)
    counted = _COLLECTED.search(done.stderr)
    if done.returncode not in (0, 1) or not counted:
        raise SystemExit(f"{baba} {' '.join(arguments)}: exit {done.returncode}: {done.stderr.strip()[-500:]}")
    return int(counted.group(1)), json.loads(done.stdout)["stats"]["generated"]


def per_state(baba: str, arguments: List[str], states: int, base_states: int) -> float:
    """Instructions per generated state, less what does not grow with the search."""
    small, small_generated = instructions_and_states(baba, arguments, base_states)
    large, large_generated = instructions_and_states(baba, arguments, states)
    if large_generated <= small_generated:
        raise SystemExit(f"{' '.join(arguments)}: the search ends within {base_states} states;"
                         " give a smaller --base-states")
    return (large - small) / (large_generated - small_generated)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], fromfile_prefix_chars="@")
    parser.add_argument("engine_a")
    parser.add_argument("engine_b")
    parser.add_argument("levels", nargs="+")
    parser.add_argument("--states", type=int, default=300_000,
                        help="states stored in the measured run (default 300,000)")
    parser.add_argument("--base-states", type=int, default=2_000,
                        help="states stored in the run whose count is taken off (default 2,000)")
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed (apt install valgrind)")
    ratios: List[float] = []
    print(f"{'level':<40} {'A instr/state':>14} {'B instr/state':>14} {'A/B':>6}")
    with tempfile.TemporaryDirectory() as scratch:
        for level in args.levels:
            arguments = level_arguments(level, Path(scratch))
            a = per_state(args.engine_a, arguments, args.states, args.base_states)
            b = per_state(args.engine_b, arguments, args.states, args.base_states)
            ratios.append(a / b)
            print(f"{level_name(level):<40} {a:>14,.0f} {b:>14,.0f} {a / b:>6.3f}", flush=True)
    print(f"median A/B (B's fewer instructions per state) over {len(ratios)} levels:"
          f" {statistics.median(ratios):.3f} (min {min(ratios):.3f}, max {max(ratios):.3f})")


if __name__ == "__main__":
    main()
