"""`baba bench`: solving whole sets, the report, the summary, the workers."""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import shutil
import signal
import time

import pytest

from babasolver import cli, solver
from babasolver.app import report, running, tasks as app_tasks
from babasolver.cli import bench, bench_text, common
from babasolver.game import replay
from babasolver.level import read_keke_set
from babasolver.notation import parse_solution
from babasolver.app.limits import Limits
from babasolver.solver import SearchResult, SearchStats
from babasolver.status import Status
from util import assert_one_line_error

SMALL = ["--timeout", "5", "--max-states", "200000"]
COMPETITION_FIELDS = {"id", "won_level", "solution", "time", "iterations", "unique_states", "moves"}


def run_main(capsys, *argv):
    code = cli.main(["bench"] + [str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def assert_bench_error(code, out, err):
    assert out == ""
    assert_one_line_error(code, out, err)


def assert_counts_add_up(summary):
    assert (summary["solved"] + summary["unsolvable"] + summary["limits"]
            + summary["wrong"] + summary["errors"]) == summary["levels"]
    assert summary["limits"] == sum(summary["limit_counts"].values())


def check_report_solutions(report, set_path):
    """Every reported solution wins its level, on its last move, and is no
    longer than the set's reference solution."""
    levels = {e.id: e for e in read_keke_set(set_path)}
    for entry in report["levels"]:
        assert COMPETITION_FIELDS <= set(entry)
        if not entry["won_level"]:
            assert entry["solution"] == ""
            continue
        actions = parse_solution(entry["solution"])
        assert entry["moves"] == len(actions)
        assert replay(levels[entry["id"]].level, actions).won_at == len(actions), entry["id"]
        reference = levels[entry["id"]].solution
        if reference:
            assert len(actions) <= len(parse_solution(reference)), entry["id"]


# --------------------------------------------------------------------------
# Whole sets


def test_demo_set_report(capsys, keke_sets, tmp_path):
    out_file = tmp_path / "report.json"
    code, out, err = run_main(capsys, keke_sets["demo"], *SMALL, "--report", out_file)
    assert code == 0, err
    assert err == ""                                # quiet: stderr is not a terminal
    report = json.loads(out_file.read_text(encoding="utf-8"))
    assert report["agent"] == "babasolver-bfs"
    assert report["set"] == str(keke_sets["demo"])
    assert report["timeout"] == 5
    assert report["max_states"] == 200000
    ids = [e.id for e in read_keke_set(keke_sets["demo"])]
    assert [entry["id"] for entry in report["levels"]] == ids
    for entry in report["levels"]:
        assert isinstance(entry["won_level"], bool)
        assert isinstance(entry["solution"], str)
        assert entry["time"] >= 0
        assert entry["iterations"] >= 0
        assert entry["unique_states"] >= 1
    assert any(entry["won_level"] for entry in report["levels"])
    check_report_solutions(report, keke_sets["demo"])

    summary = report["summary"]
    assert summary["levels"] == len(ids)
    assert summary["wrong"] == 0 and summary["errors"] == 0
    assert_counts_add_up(summary)
    assert summary["solved"] == sum(entry["won_level"] for entry in report["levels"])
    assert summary["total_unique"] == sum(entry["unique_states"] for entry in report["levels"])
    assert len(summary["hardest"]) == min(5, len(ids))
    # No leftover temporary file next to the report.
    assert [p.name for p in tmp_path.iterdir()] == ["report.json"]

    # The printed table and summary.
    assert "id" in out and "status" in out and "states/s" in out and "B/state" in out
    assert "median states/s (searches >= 0.5 s)" in out
    assert "scaling" in out
    assert f"report written to {out_file}" in out


def test_parallel_jobs_on_chosen_ids(capsys, keke_sets, tmp_path):
    out_file = tmp_path / "r.json"
    code, out, err = run_main(capsys, keke_sets["demo"], *SMALL, "--jobs", "2", "--ids", "12,3,5",
                              "--report", out_file)
    assert code == 0, err
    report = json.loads(out_file.read_text(encoding="utf-8"))
    assert [entry["id"] for entry in report["levels"]] == ["3", "5", "12"]   # set order
    assert all(entry["won_level"] for entry in report["levels"])
    check_report_solutions(report, keke_sets["demo"])
    assert_counts_add_up(report["summary"])
    assert report["summary"]["levels"] == 3


def test_test_set_counts_add_up(keke_sets):
    tasks = app_tasks.load_tasks(keke_sets["test"])
    outcomes, completed = running.run_many(tasks, Limits(5, 200_000))
    assert completed
    summary = report.summarize(outcomes)
    assert summary.levels == len(tasks)
    assert summary.solved + summary.unsolvable + summary.limits + summary.wrong + summary.errors == summary.levels
    for o in outcomes:
        if o.solved:
            assert o.verified
            assert o.samples and o.samples[-1][0] == o.unique


# --------------------------------------------------------------------------
# Errors


def test_missing_path_is_one_line_error(capsys, tmp_path):
    assert_one_line_error(*run_main(capsys, tmp_path / "nope.json"))


@pytest.mark.parametrize("args", [
    ["--timeout", "0"],
    ["--timeout", "soon"],
    ["--max-states", "-5"],
    ["--jobs", "x"],
    ["--memory-limit", "0"],
    ["--memory-limit", "0.01", "--jobs", "2"],  # too small for a worker to start
    ["--ids", "no-such-level"],
    ["--report", "/no/such/folder/r.json"],
    ["--frobnicate"],
])
def test_bad_arguments_are_one_line_errors(capsys, keke_sets, args):
    assert_one_line_error(*run_main(capsys, keke_sets["demo"], *args))


def test_not_a_level_set(capsys, tmp_path):
    (tmp_path / "notes.txt").write_text("hello\n", encoding="utf-8")
    assert_one_line_error(*run_main(capsys, tmp_path / "notes.txt"))
    assert_one_line_error(*run_main(capsys, tmp_path))          # a folder without levels


def test_state_counts_accept_underscores_and_exponents():
    assert common.state_count("20_000_000") == 20_000_000
    assert common.state_count("2e7") == 20_000_000
    with pytest.raises(argparse.ArgumentTypeError):
        common.state_count("2.5")


# --------------------------------------------------------------------------
# Folders of level folders


def test_folder_of_level_folders(capsys, repo_root, tmp_path):
    root = tmp_path / "set"
    shutil.copytree(repo_root / "levels" / "00", root / "a", ignore=shutil.ignore_patterns("solution.txt"))
    shutil.copytree(repo_root / "levels" / "01", root / "group" / "b", ignore=shutil.ignore_patterns("solution.txt"))
    (root / "group" / "empty").mkdir()
    tasks = app_tasks.load_tasks(root)
    assert [t.id for t in tasks] == ["a", "group/b"]
    assert all(t.reference is None for t in tasks)
    # Level 01 needs far more than 1000 states: a state limit.
    out_file = tmp_path / "r.json"
    code, out, err = run_main(capsys, root, "--max-states", "1000", "--mode", "shortest",
                              "--report", out_file)
    assert code == 0, err
    report = json.loads(out_file.read_text(encoding="utf-8"))
    by_id = {entry["id"]: entry for entry in report["levels"]}
    assert by_id["a"]["won_level"] is True
    assert by_id["group/b"]["status"] == "state limit"
    assert by_id["group/b"]["won_level"] is False
    assert by_id["a"]["proven_shortest"] is True and by_id["a"]["lower_bound"] == 8
    assert by_id["group/b"]["proven_shortest"] is False and 1 <= by_id["group/b"]["lower_bound"] <= 20
    assert by_id["a"]["found_by"] == by_id["a"]["proved_by"] == "breadth-first"
    assert by_id["group/b"]["found_by"] is None and by_id["group/b"]["proved_by"] is None
    summary = report["summary"]
    assert summary["solved"] == 1 and summary["limits"] == 1
    assert summary["found_by"] == summary["proved_by"] == {"breadth-first": 1}
    assert "found by / proved by" in out and "breadth-first 1 / breadth-first 1" in out
    assert_counts_add_up(summary)
    assert summary["unsolved"] == [["group/b", "state limit reached"]]
    # A single level folder is a set of one.
    assert [t.id for t in app_tasks.load_tasks(root / "a")] == ["a"]


def test_workers_that_cannot_start_are_one_line(capsys, repo_root, tmp_path, monkeypatch):
    """Too many open files, or a helper process that cannot run: one line
    saying so, not the pool's traceback or (for a broken pipe taken for a
    closed stdout) no word at all."""
    import pebble

    root = tmp_path / "set"
    shutil.copytree(repo_root / "levels" / "00", root / "a")
    shutil.copytree(repo_root / "levels" / "00", root / "b")
    for error in (OSError(24, "Too many open files"), BrokenPipeError(32, "Broken pipe")):
        class Unstartable:
            def __init__(self, *args, **kwargs):
                raise error

        monkeypatch.setattr(pebble, "ProcessPool", Unstartable)
        code, out, err = run_main(capsys, root, "--jobs", "2", *SMALL)
        assert_bench_error(code, out, err)
        assert f"could not start 2 worker processes: {type(error).__name__}" in err
        assert error.strerror in err and "--jobs 1" in err


# --------------------------------------------------------------------------
# Wrong solutions, memory, dead workers


def test_solution_that_does_not_replay_is_wrong(capsys, keke_sets, tmp_path, monkeypatch):
    def bogus_solve(level, **kwargs):
        stats = SearchStats(expanded=1, generated=5, unique=6, elapsed=0.01, memory_bytes=600)
        return SearchResult("solved", [4], stats)       # one wait never wins a level

    monkeypatch.setattr(solver, "solve", bogus_solve)
    out_file = tmp_path / "r.json"
    code, out, err = run_main(capsys, keke_sets["demo"], "--ids", "1,2", "--report", out_file)
    assert code == 1
    assert "failed to replay" in err
    assert "WRONG" in out
    report = json.loads(out_file.read_text(encoding="utf-8"))
    assert [entry["status"] for entry in report["levels"]] == ["wrong", "wrong"]
    assert not any(entry["won_level"] for entry in report["levels"])
    assert all(entry["solution"] == "" and entry["failed_solution"] == "s" for entry in report["levels"])
    assert report["summary"]["wrong"] == 2
    assert_counts_add_up(report["summary"])


def test_memory_error_in_process_is_a_memory_limit(keke_sets, monkeypatch):
    def hungry_solve(level, **kwargs):
        raise MemoryError

    monkeypatch.setattr(solver, "solve", hungry_solve)
    task = app_tasks.load_tasks(keke_sets["demo"])[0]
    outcome = running.run_level(task, Limits(1, 1000))
    assert outcome.status == Status.MEMORY_LIMIT


class _KillsTheWorker:
    """Unpickling this in a worker ends the worker at once, as the kernel
    would on running out of memory."""

    def __reduce__(self):
        return (os._exit, (3,))


class _KilledBySignal:
    """Unpickling this in a worker kills the worker with SIGKILL, as a user
    or a supervisor would from outside."""

    def __reduce__(self):
        return (signal.raise_signal, (signal.SIGKILL,))


def test_dead_worker_reports_how_it_died_and_the_bench_goes_on(keke_sets):
    tasks = app_tasks.load_tasks(keke_sets["demo"])[:3]
    tasks.insert(1, app_tasks.LevelTask("boom", _KillsTheWorker(), None))
    outcomes, completed = running.run_many(tasks, Limits(5, 10_000), jobs=2)
    assert completed
    assert [o.id for o in outcomes] == [t.id for t in tasks]
    by_id = {o.id: o for o in outcomes}
    # Not "memory limit": running out of memory raises MemoryError in the
    # worker; a worker that dies otherwise was ended from outside.
    assert by_id["boom"].status == Status.ERROR
    assert "exited with status 3" in by_id["boom"].note
    assert all(o.solved and o.verified for o in outcomes if o.id != "boom")
    summary = report.summarize(outcomes)
    assert summary.limit_counts[Status.MEMORY_LIMIT] == 0 and summary.error_ids == ["boom"]
    assert ("boom", "error: worker process exited with status 3") in summary.unsolved


def test_a_worker_killed_from_outside_is_not_a_memory_limit(keke_sets):
    tasks = app_tasks.load_tasks(keke_sets["demo"])[:1]
    tasks.append(app_tasks.LevelTask("killed", _KilledBySignal(), None))
    outcomes, completed = running.run_many(tasks, Limits(5, 10_000), jobs=2)
    by_id = {o.id: o for o in outcomes}
    assert completed and by_id[tasks[0].id].solved
    assert by_id["killed"].status == Status.ERROR
    assert by_id["killed"].note == "worker process killed by SIGKILL"


def test_the_pool_stops_its_own_workers_and_no_other_process(repo_root, tmp_path):
    """run_many with worker processes ends them as it returns, and leaves
    alone a process of the program that called it."""
    for name in ("a", "b"):
        shutil.copytree(repo_root / "levels" / "00", tmp_path / "set" / name)
    own = multiprocessing.get_context("spawn").Process(target=time.sleep, args=(60,))
    own.start()
    try:
        before = set(multiprocessing.active_children())     # other tests' may still be ending
        outcomes, completed = running.run_many(app_tasks.load_tasks(tmp_path / "set"), Limits(5, 10_000), jobs=2)
        assert completed and [o.solved for o in outcomes] == [True, True]
        assert own.is_alive()
        assert not set(multiprocessing.active_children()) - before
    finally:
        own.terminate()
        own.join()


def test_memory_limit_with_one_job_runs_the_levels_in_a_capped_worker(capsys, keke_sets):
    code, out, err = run_main(capsys, keke_sets["demo"], "--ids", "1,2", "--memory-limit", "2")
    assert code == 0, err
    assert "2 (100.0%)" in out
    # The levels ran in a worker process, not in this one.
    assert "largest child process 0.0 MB" not in out


# --------------------------------------------------------------------------
# Summary figures on made-up outcomes


def _outcome(lid, status, unique, generated, elapsed, memory=0, moves=None, ref=None, samples=()):
    return running.LevelOutcome(
        lid, status, solution=[3] * moves if moves is not None else None, verified=moves is not None,
        reference_moves=ref, unique=unique, generated=generated, elapsed=elapsed,
        memory_bytes=memory, samples=list(samples),
    )


def test_bytes_per_state_are_read_at_the_largest_searches():
    # A search just over 100k states carries most of its starting table;
    # only the five largest count.
    outcomes = [_outcome(str(i), "time limit", 1_000_000 * (i + 1), 1, 1.0, memory=40_000_000 * (i + 1))
                for i in range(5)]
    outcomes.append(_outcome("small", "solved", 120_000, 1, 0.1, memory=20_000_000, moves=3))
    s = report.summarize(outcomes, peak_rss=(1.0, 1.0))
    assert s.big_searches == 5
    assert s.max_bytes_per_state == pytest.approx(40.0)
    assert "over the 5 largest searches" in bench_text.format_summary(s)


def test_summarize_figures():
    samples = [(50_000, 200_000, 0.25), (400_000, 1_000_000, 0.5), (1_200_000, 1_600_000, 0.75)]
    outcomes = [
        _outcome("a", "solved", 10, 30, 0.1, memory=1000, moves=4, ref=6),
        _outcome("b", "solved", 200_000, 1_000_000, 1.0, memory=8_000_000, moves=10, ref=10),
        _outcome("c", "unsolvable", 500, 900, 0.2, memory=2000),
        _outcome("d", "time limit", 1_200_000, 1_600_000, 0.8, memory=60_000_000, samples=samples),
        _outcome("e", "state limit", 150_000, 450_000, 3.0, memory=3_000_000),
    ]
    s = report.summarize(outcomes, peak_rss=(100.0, 250.0), wall_time=6.0)
    assert (s.levels, s.solved, s.unsolvable, s.limits, s.wrong, s.errors) == (5, 2, 1, 2, 0, 0)
    assert s.solved_percent == pytest.approx(40.0)
    assert s.limit_counts == {"state limit": 1, "time limit": 1, "memory limit": 0, "interrupted": 0}
    assert s.median_time == pytest.approx(0.8)
    assert s.mean_time == pytest.approx(5.1 / 5)
    assert s.mean_moves == pytest.approx(7.0)
    assert s.total_unique == 1_550_510
    assert s.states_per_second == pytest.approx(3_050_930 / 5.1)
    # Searches of at least 0.5 s: b 1M/s, d 2M/s, e 150k/s.
    assert s.long_searches == 3
    assert s.median_states_per_second_long == pytest.approx(1_000_000)
    assert s.peak_rss_mb == 250.0
    # The largest searches of >= 100k states: d 50, b 40, e 20 bytes per state.
    assert s.big_searches == 3
    assert s.max_bytes_per_state == pytest.approx(50.0)
    assert s.max_bytes_per_state_id == "d"
    assert s.bytes_per_state_overall == pytest.approx(71_003_000 / 1_550_510)
    assert s.shorter_than_reference == ["a"] and s.longer_than_reference == []
    assert s.unsolved == [("c", "proven unsolvable"), ("d", "time limit reached"), ("e", "state limit reached")]
    assert [h[0] for h in s.hardest] == ["d", "b", "e", "c", "a"]
    # Scaling: the three largest searches; d's windows run 800k/s, 3.2M/s, 2.4M/s.
    # 50k..100k spans the search's start to its second sample (1M in 0.5 s);
    # 500k..1M spans the second sample to the third (600k in 0.25 s).
    assert [r.id for r in s.scaling] == ["d", "b", "e"]
    d = s.scaling[0]
    assert d.at[100_000] == pytest.approx(2_000_000)
    assert d.at[1_000_000] == pytest.approx(2_400_000)
    assert d.at[10_000_000] is None
    assert d.first_window == pytest.approx(800_000)
    assert d.last_window == pytest.approx(2_400_000)
    text = bench_text.format_summary(s) + "\n" + bench_text.format_scaling(s.scaling) + "\n" + bench_text.format_table(outcomes)
    assert "1e7: not reached" in text
    assert "proven unsolvable" in text


def test_write_report_replaces_atomically(tmp_path):
    target = tmp_path / "r.json"
    target.write_text("old", encoding="utf-8")
    report.write_report(target, {"agent": report.AGENT, "levels": []})
    assert json.loads(target.read_text(encoding="utf-8")) == {"agent": report.AGENT, "levels": []}
    assert [p.name for p in tmp_path.iterdir()] == ["r.json"]


def test_registers_as_a_subcommand(keke_sets):
    parser = argparse.ArgumentParser(prog="baba")
    bench.add_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["bench", str(keke_sets["demo"]), "--jobs", "2", "--ids", "1,2"])
    assert args.run is bench.run
    assert (args.timeout, args.max_states, args.jobs, args.ids) == (10.0, solver.DEFAULT_MAX_STATES, 2, ["1", "2"])
    assert args.memory_limit is None and args.report is None


def test_scaling_rate_spans_from_half_the_size_to_it():
    # Windows: 0-1s to 400k, 1-2s to 700k (a stall: 100k generated), 2-3s to 1.1M.
    samples = [(400_000, 4_000_000, 1.0), (700_000, 4_100_000, 2.0), (1_100_000, 8_100_000, 3.0)]
    # From the last sample under 500k (t=1) to the first at 1M or more (t=3):
    # the stalled window counts, whichever window would have reached 1M.
    assert report._span_rate(samples, 1_000_000) == pytest.approx(4_100_000 / 2.0)
    assert report._span_rate(samples, 300_000) == pytest.approx(4_000_000)
    assert report._span_rate(samples, 2_000_000) is None
