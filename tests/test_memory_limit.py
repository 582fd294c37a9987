"""--memory (issue 21): the searches' stores stop at a byte budget, cleanly,
with the lower bound breadth-first search reached, as at the time limit;
by default the budget is drawn from the memory the machine has."""
from __future__ import annotations

import gc
import json
import shutil
from pathlib import Path

import pytest

from babasolver import solver
from babasolver.app.limits import Limits
from babasolver.app.memory import SEARCH_MEMORY_SHARE, available_memory_bytes, default_search_memory
from babasolver.errors import BabaError
from babasolver.level import read_folder
from babasolver.status import Status
from util import run_cli as run

#: levels/01 needs some 4.7 million states (over 100 MB) to be proven: 50 MB stops it.
SMALL_GB = 0.05


@pytest.fixture
def level01(repo_root: Path, tmp_path: Path) -> Path:
    folder = tmp_path / "01"
    shutil.copytree(repo_root / "levels" / "01", folder)
    (folder / "solution.txt").unlink()
    return folder


def test_breadth_first_search_stops_at_the_memory_limit_with_its_bound(level01):
    result = solver.solve(read_folder(level01), mode="shortest", threads=1, memory=int(SMALL_GB * 2**30))
    assert result.status == Status.MEMORY_LIMIT and result.limit == Status.MEMORY_LIMIT
    assert result.solution is None and not result.proven_shortest
    assert 0 < result.stats.memory_bytes <= SMALL_GB * 2**30
    assert 1 < result.lower_bound <= 20 and result.lower_bound == result.stats.depth + 1
    unlimited = solver.solve(read_folder(level01), mode="shortest", threads=1, max_states=result.stats.unique)
    assert unlimited.lower_bound >= result.lower_bound      # the same search, stopped by states instead


@pytest.mark.parametrize("mode", ["shortest", "both"])
def test_a_finished_search_gives_its_store_back_at_once(level01, mode):
    # A bench runs levels one after another in one process: the next level's
    # default memory limit is a share of what is available then, so a
    # finished search must not wait for the cycle collector to free its store.
    gc.collect()
    gc.disable()
    try:
        solver.solve(read_folder(level01), mode=mode, threads=1, memory=int(SMALL_GB * 2**30))
        left = [o for o in gc.get_objects() if isinstance(o, solver._BreadthFirst)]
    finally:
        gc.enable()
    assert left == []


def test_solve_reports_the_memory_limit_and_writes_nothing(capsys, level01):
    code, out, err = run(capsys, "solve", level01, "--mode", "shortest", "--memory", str(SMALL_GB), "--json")
    assert code == 1, err
    data = json.loads(out)
    assert data["status"] == "memory limit" and data["limit"] == "memory limit"
    assert data["lower_bound"] > 1 and data["solution"] is None
    assert data["stats"]["memory_bytes"] <= SMALL_GB * 2**30
    assert not (level01 / "solution.txt").exists()
    code, out, err = run(capsys, "solve", level01, "--mode", "shortest", "--memory", str(SMALL_GB))
    assert code == 1 and "memory limit hit (--memory 0.05)" in out and "every solution has at least" in out


def test_mode_both_still_finds_a_solution_under_a_small_memory_limit(capsys, level01):
    code, out, err = run(capsys, "solve", level01, "--memory", str(SMALL_GB), "--timeout", "30", "--json")
    data = json.loads(out)
    assert code == 0 and data["status"] == "solved", err
    assert data["solution"]["moves"] >= data["lower_bound"] > 1
    assert (level01 / "solution.txt").exists()


def test_bench_takes_the_memory_limit(capsys, level01):
    report = level01.parent / "report.json"
    code, out, err = run(capsys, "bench", level01.parent, "--mode", "shortest", "--memory", str(SMALL_GB),
                         "--report", report)
    assert code == 0, err
    assert "memory 0.05 GB" in out
    level = json.loads(report.read_text(encoding="utf-8"))["levels"][0]
    assert level["status"] == "memory limit" and level["lower_bound"] > 1


def test_the_default_is_a_share_of_the_memory_available():
    available = available_memory_bytes()
    assert available is not None and available > 0
    assert default_search_memory() <= available * SEARCH_MEMORY_SHARE * 1.05 + 2**26
    assert Limits().memory_bytes() == pytest.approx(default_search_memory(), rel=0.05)
    assert Limits(memory=2.0).memory_bytes() == 2 * 2**30


@pytest.mark.parametrize("memory", [0.0, -1.0, float("nan"), float("inf"), 1e30, 10**400, "2", True])
def test_the_api_refuses_a_memory_limit_out_of_range(memory):
    with pytest.raises(BabaError, match="memory"):
        Limits(memory=memory)


def test_the_store_limit_holds_for_the_satisficing_searches_too(level01):
    result = solver.solve(read_folder(level01), mode="fast", threads=1, memory=4 * 2**20, timeout=20)
    assert result.status in (Status.SOLVED, Status.MEMORY_LIMIT)


@pytest.mark.skipif(not hasattr(__import__("resource"), "RLIMIT_AS"), reason="needs an address-space limit")
def test_two_threads_under_a_small_address_space_settle_for_what_fits(tmp_path):
    """Fuzz round 6: on a 250x250 level under a 200-300 MB address-space
    cap, --threads 2 failed where --threads 1 solved: the satisficing race
    could not start its second thread (a RuntimeError traceback), and the
    breadth-first workspaces of two threads (24 of 7 MB) ended in "out of
    memory". Both now go on with the threads and workspaces that fit."""
    import os
    import subprocess
    import sys

    rows = [["."] * 250 for _ in range(250)]
    rows[0][0:3], rows[1][0:3] = list("B12"), list("F13")
    rows[5][5], rows[200][200] = "b", "f"
    for i in range(10, 240, 3):
        for j in range(10, 240, 7):
            rows[i][j] = "r"
    folder = tmp_path / "big"
    folder.mkdir()
    (folder / "tiles.txt").write_text("b baba\nB baba text\n1 is text\n2 you text\nf flag\nF flag text\n"
                                      "3 win text\nr rock\n. empty\n", encoding="utf-8")
    (folder / "content.txt").write_text("".join("".join(row) + "\n" for row in rows), encoding="utf-8")
    # The cap is set once the program is loaded: what the interpreter maps differs between machines.
    script = f"""
import resource, sys
from babasolver import cli, level, rulesets
rulesets.core_level(level.read_folder({str(folder)!r}))
with open("/proc/self/status") as f:
    mapped = next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmSize:"))
resource.setrlimit(resource.RLIMIT_AS, (mapped + (100 << 20), resource.getrlimit(resource.RLIMIT_AS)[1]))
print(cli.main(["solve", {str(folder)!r}, "--mode", sys.argv[1], "--threads", "2", "--timeout", "60"]))
"""
    # One process per mode, as one command line each: a first run leaves
    # address space mapped (VmSize 25 -> 168 MB here, without a cap: its
    # threads' malloc arenas among it), which the second run's default
    # --memory rightly left out, and it stopped at 20 MB (seen once in CI).
    for mode, status in [("fast", "solved: 390 moves, not proven shortest (every solution has at least 1 move; "
                                  "--mode fast)"),
                         ("shortest", "solved: 390 moves, the fewest possible")]:
        done = subprocess.run([sys.executable, "-c", script, mode], capture_output=True, text=True, timeout=300,
                              env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
        assert done.returncode == 0 and done.stderr == "", done.stderr
        statuses = [line for line in done.stdout.splitlines() if line.startswith("status:")]
        assert statuses == [f"status:        {status}"], done.stdout
        assert done.stdout.splitlines()[-1] == "0"
