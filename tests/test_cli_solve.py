"""`baba solve`: one level, --json, --all, limits, Ctrl-C and bad input."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from babasolver import cli
from babasolver.cli import solve as cli_solve
from babasolver.game import replay
from babasolver.level import read_folder
from babasolver.notation import parse_solution
from util import run_cli as run, assert_one_line_error

STATS_KEYS = {
    "expanded", "generated", "unique", "dead_ends", "depth", "peak_frontier",
    "elapsed", "memory_bytes", "states_per_second",
}

# Baba is boxed in below a wall row (WALL IS STOP); the flag is walled off in
# the corner and every text is out of reach: provably unsolvable, few states.
UNSOLVABLE_TILES = """\
B Baba text
I is text
Y you text
W wall text
S stop text
F flag text
! win text
b Baba
f flag
w wall
. empty
"""
UNSOLVABLE_CONTENT = """\
BIY.
WIS.
FI!.
wwww
b.wf
..ww
"""




def copy_level(repo_root: Path, name: str, dest: Path) -> Path:
    target = dest / name
    shutil.copytree(repo_root / "levels" / name, target, ignore=shutil.ignore_patterns("solution.txt"))
    for p in target.iterdir():
        p.chmod(0o644)
    return target


def make_folder(dest: Path, tiles_txt: str, content_txt: str) -> Path:
    dest.mkdir(parents=True)
    (dest / "tiles.txt").write_text(tiles_txt, encoding="utf-8")
    (dest / "content.txt").write_text(content_txt, encoding="utf-8")
    return dest


@pytest.fixture
def unsolvable(tmp_path) -> Path:
    return make_folder(tmp_path / "boxed", UNSOLVABLE_TILES, UNSOLVABLE_CONTENT)


class FakeTerminal(io.StringIO):
    def isatty(self):
        return True


def field(out: str, label: str) -> str:
    for line in out.splitlines():
        if line.startswith(label + ":"):
            return line.split(":", 1)[1].strip()
    raise AssertionError(f"no {label!r} line in:\n{out}")


# ---- one level


def test_solve_level_00(capsys, repo_root, tmp_path):
    folder = copy_level(repo_root, "00", tmp_path)
    code, out, err = run(capsys, "solve", folder)
    assert code == 0
    assert err == ""  # no progress line when stderr is not a terminal
    assert field(out, "solution") == "8→"
    assert field(out, "keke") == "rrrrrrrr"
    assert field(out, "status").startswith("solved")
    assert field(out, "depth") == "8"
    for label in ("expanded", "generated", "unique", "dead ends", "peak frontier", "time", "states/s"):
        field(out, label)
    assert (folder / "solution.txt").read_text(encoding="utf-8") == "8→\n"
    # written atomically: no temporary file left behind
    assert sorted(p.name for p in folder.iterdir()) == ["content.txt", "solution.txt", "tiles.txt"]


def test_solve_replaces_stale_solution(capsys, repo_root, tmp_path):
    folder = copy_level(repo_root, "00", tmp_path)
    (folder / "solution.txt").write_text("1← 1→\n", encoding="utf-8")
    code, _, _ = run(capsys, "solve", folder)
    assert code == 0
    assert (folder / "solution.txt").read_text(encoding="utf-8") == "8→\n"


def test_solve_level_01_with_progress_line(capsys, monkeypatch, repo_root, tmp_path):
    folder = copy_level(repo_root, "01", tmp_path)
    terminal = FakeTerminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    code = cli.main(["solve", str(folder)])
    out, _ = capsys.readouterr()
    assert code == 0
    moves = parse_solution(field(out, "solution"))
    assert len(moves) == 20
    assert field(out, "keke") == "".join("udlrs"[a] for a in moves)
    written = (folder / "solution.txt").read_text(encoding="utf-8")
    assert parse_solution(written) == moves
    assert replay(read_folder(folder), moves).won_at == 20
    # the live line (it takes well over the 0.5 s refresh) is cleared at the end
    progress = terminal.getvalue()
    assert "\r" in progress and "unique states" in progress and "states/s" in progress
    assert progress.endswith("\r\x1b[K")
    assert "\r" not in out


def test_solve_unsolvable(capsys, unsolvable):
    (unsolvable / "solution.txt").write_text("8→\n", encoding="utf-8")  # stale
    code, out, err = run(capsys, "solve", unsolvable)
    assert code == 1
    assert err == ""
    assert field(out, "status").startswith("unsolvable")
    assert field(out, "solution") == "none"
    assert not (unsolvable / "solution.txt").exists()


def test_solve_state_limit(capsys, repo_root, tmp_path):
    folder = copy_level(repo_root, "00", tmp_path)
    (folder / "solution.txt").write_text("2→ 1↑\n", encoding="utf-8")     # stale: it does not win
    code, out, _ = run(capsys, "solve", folder, "--max-states", "5")
    assert code == 1
    assert field(out, "status").startswith("state limit hit (--max-states 5)")
    assert "may still be solvable" in out
    assert "kept" not in out and "written" not in out
    assert not (folder / "solution.txt").exists()


def test_a_solution_that_still_wins_survives_a_run_that_finds_none(capsys, repo_root, tmp_path):
    # It was deleted with the stale ones: `solve levels/01 --timeout 1` deleted the shipped solution.
    folder = copy_level(repo_root, "01", tmp_path)
    shipped = (repo_root / "levels" / "01" / "solution.txt").read_text(encoding="utf-8")
    (folder / "solution.txt").write_text(shipped, encoding="utf-8")
    code, out, _ = run(capsys, "solve", folder, "--timeout", "0.05", "--mode", "shortest")
    assert code == 1 and field(out, "status").startswith("time limit hit")
    assert field(out, "kept") == f"{folder / 'solution.txt'} (20 moves; it still wins)"
    assert (folder / "solution.txt").read_text(encoding="utf-8") == shipped


def test_a_longer_solution_found_does_not_replace_a_shorter_one(capsys, repo_root, tmp_path):
    # --mode fast replaced the 20 moves of levels/01 with the 41 it found first.
    folder = copy_level(repo_root, "01", tmp_path)
    shipped = (repo_root / "levels" / "01" / "solution.txt").read_text(encoding="utf-8")
    (folder / "solution.txt").write_text(shipped, encoding="utf-8")
    code, out, _ = run(capsys, "solve", folder, "--mode", "fast", "--threads", "1", "--json")
    data = json.loads(out)
    assert code == 0 and data["status"] == "solved" and data["solution"]["moves"] >= 20   # 41 here
    assert data["solution_file"] == {"path": str(folder / "solution.txt"), "moves": 20, "kept": True}
    assert (folder / "solution.txt").read_text(encoding="utf-8") == shipped


def test_a_shorter_solution_found_replaces_a_longer_one(capsys, repo_root, tmp_path):
    folder = copy_level(repo_root, "00", tmp_path)
    (folder / "solution.txt").write_text("1↑ 1↓ 8→\n", encoding="utf-8")     # it wins, in 10 moves
    code, out, _ = run(capsys, "solve", folder)
    assert code == 0
    assert field(out, "written") == str(folder / "solution.txt")
    assert (folder / "solution.txt").read_text(encoding="utf-8") == "8→\n"


def test_solve_time_limit(capsys, repo_root, tmp_path):
    folder = copy_level(repo_root, "01", tmp_path)
    code, out, _ = run(capsys, "solve", folder, "--timeout", "0.05", "--mode", "shortest")
    assert code == 1
    assert field(out, "status").startswith("time limit hit (--timeout 0.05)")
    assert "every solution has at least" in field(out, "status")
    assert not (folder / "solution.txt").exists()


def test_solve_reports_an_unproven_solution_with_its_bound(capsys, repo_root, tmp_path):
    # Breadth-first search needs about 5 M states for level 01; the
    # satisficing search finds a solution in a few thousand.
    folder = copy_level(repo_root, "01", tmp_path)
    code, out, _ = run(capsys, "solve", folder, "--max-states", "200000", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["status"] == "solved" and data["proven_shortest"] is False
    assert data["limit"] == "state limit"
    assert 1 <= data["lower_bound"] <= 20 <= data["solution"]["moves"]
    assert (folder / "solution.txt").exists()


def test_solve_mode_fast_stops_at_the_first_solution(capsys, repo_root, tmp_path):
    folder = copy_level(repo_root, "00", tmp_path)
    code, out, _ = run(capsys, "solve", folder, "--mode", "fast", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["status"] == "solved" and data["solution"]["moves"] == 8


ONE_MOVE_TILES = "b Baba\nB Baba text\nI is text\nY you text\nf flag\nF flag text\n! win text\n. empty\n"


@pytest.mark.parametrize("mode, status", [
    ("shortest", "solved: 1 move, the fewest possible"),
    ("fast", "solved: 1 move, not proven shortest (every solution has at least 1 move; --mode fast)"),
])
def test_solve_says_one_move_not_one_moves(capsys, tmp_path, mode, status):
    folder = make_folder(tmp_path / "one", ONE_MOVE_TILES, "BIY\nFI!\nbf.\n")
    code, out, _ = run(capsys, "solve", folder, "--mode", mode)
    assert code == 0
    assert field(out, "status") == status


def test_solve_interrupted(capsys, monkeypatch, repo_root, tmp_path):
    """Ctrl-C while searching: the solver stops, the counters so far are printed, exit 130."""
    folder = copy_level(repo_root, "01", tmp_path)

    def ctrl_c(stats):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli_solve, "_progress_text", ctrl_c)  # called from the progress callback
    monkeypatch.setattr(sys, "stderr", FakeTerminal())
    code = cli.main(["solve", str(folder)])
    out, _ = capsys.readouterr()
    assert code == 130
    assert field(out, "status").startswith("interrupted")
    assert int(field(out, "unique").replace(",", "")) > 0
    assert not (folder / "solution.txt").exists()


# ---- --json


def test_solve_and_bench_read_state_counts_alike(capsys, repo_root, tmp_path, keke_sets):
    folder = copy_level(repo_root, "00", tmp_path)
    code, out, _ = run(capsys, "solve", folder, "--max-states", "2e7")
    assert code == 0 and field(out, "status").startswith("solved")
    assert cli.main(["bench", str(keke_sets["test"]), "--max-states", "1e11"]) == 2
    _, err = capsys.readouterr()
    assert "the visited store holds at most 17,179,869,182 states" in err


def test_solve_json(capsys, repo_root, tmp_path):
    folder = copy_level(repo_root, "00", tmp_path)
    code, out, _ = run(capsys, "solve", folder, "--json")
    assert code == 0
    data = json.loads(out)
    assert set(data) == {"level", "rule_set", "status", "proven_shortest", "lower_bound", "limit", "solution",
                         "best_so_far", "found_by", "proved_by", "solution_file",
                         "stats"}
    assert data["solution_file"] == {"path": str(folder / "solution.txt"), "moves": 8, "kept": False}
    assert data["level"] == "00"
    assert data["status"] == "solved"
    assert data["proven_shortest"] is True and data["lower_bound"] == 8 and data["limit"] is None
    assert data["found_by"] == data["proved_by"] == "breadth-first"   # within its first phase
    assert data["solution"] == {"arrows": "8→", "keke": "rrrrrrrr", "moves": 8}
    assert set(data["stats"]) == STATS_KEYS
    assert data["stats"]["depth"] == 8
    assert data["stats"]["unique"] > 0
    assert (folder / "solution.txt").read_text(encoding="utf-8") == "8→\n"


def test_solve_json_unsolvable(capsys, unsolvable):
    code, out, _ = run(capsys, "solve", unsolvable, "--json")
    assert code == 1
    data = json.loads(out)
    assert data["status"] == "unsolvable"
    assert data["solution"] is None and data["found_by"] is None and data["proved_by"] == "breadth-first"
    assert set(data["stats"]) == STATS_KEYS


def test_solve_names_the_phases_that_found_and_proved(capsys, repo_root, tmp_path):
    # A state budget breadth-first search cannot prove levels/01 within:
    # a satisficing phase finds the solution, nothing proves it.
    folder = copy_level(repo_root, "01", tmp_path)
    code, out, _ = run(capsys, "solve", folder, "--max-states", "100000", "--timeout", "20", "--json")
    data = json.loads(out)
    assert code == 0 and not data["proven_shortest"] and data["proved_by"] is None
    assert data["found_by"] in ("satisfice", "improve", "improve more", "shorten")
    code, out, _ = run(capsys, "solve", folder, "--max-states", "100000", "--timeout", "20")
    assert code == 0 and "found by" in out and "proved by" not in out


def test_solve_keke_level_json(capsys, keke_sets):
    code, out, _ = run(capsys, "solve", keke_sets["demo"], "--id", "1", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["level"].startswith("demo_LEVELS#1")
    assert data["solution"]["moves"] == len(data["solution"]["keke"])


def test_solve_subprocess(repo_root, tmp_path):
    folder = copy_level(repo_root, "00", tmp_path)
    proc = subprocess.run(
        [sys.executable, "-m", "babasolver", "solve", str(folder), "--json"],
        capture_output=True, text=True, encoding="utf-8",
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    assert json.loads(proc.stdout)["solution"]["arrows"] == "8→"
    assert (folder / "solution.txt").read_text(encoding="utf-8") == "8→\n"


# ---- --all


def table_rows(out: str):
    lines = out.splitlines()
    assert lines[0].split() == ["id", "status", "moves", "bound", "states", "time"]
    return {line.split()[0]: line for line in lines[1:] if not line.startswith("total:")}


def test_solve_all_folders(capsys, repo_root, tmp_path, unsolvable):
    root = tmp_path
    level00 = copy_level(repo_root, "00", root / "set")
    nested = root / "set" / "nested"
    nested.mkdir()
    boxed = Path(shutil.move(str(unsolvable), str(nested / "boxed")))
    (boxed / "solution.txt").write_text("stale\n", encoding="utf-8")
    code, out, err = run(capsys, "solve", root / "set", "--all")
    assert code == 1  # one level is not solved
    assert err == ""
    rows = table_rows(out)
    assert list(rows) == ["00", "nested/boxed"]
    assert rows["00"].split()[1:3] == ["solved", "8"]
    assert rows["nested/boxed"].split()[1:3] == ["unsolvable", "-"]
    total = out.splitlines()[-1]
    assert total.startswith("total: 2 levels: 1 solved, 1 unsolvable;")
    assert (level00 / "solution.txt").read_text(encoding="utf-8") == "8→\n"
    assert not (boxed / "solution.txt").exists()


def test_solve_all_keeps_a_winning_solution_and_reports_each_file(capsys, repo_root, tmp_path):
    kept = copy_level(repo_root, "00", tmp_path / "set")
    (kept / "solution.txt").write_text("8→\n", encoding="utf-8")
    written = copy_level(repo_root, "00", tmp_path / "set" / "again")
    code, out, _ = run(capsys, "solve", tmp_path / "set", "--all", "--json")
    assert code == 0
    files = {record["id"]: record["solution_file"] for record in json.loads(out)}
    assert files == {"00": {"path": str(kept / "solution.txt"), "moves": 8, "kept": True},
                     "again/00": {"path": str(written / "solution.txt"), "moves": 8, "kept": False}}
    (written / "solution.txt").unlink()
    code, out, _ = run(capsys, "solve", tmp_path / "set", "--all")
    assert code == 0
    assert out.splitlines()[-1] == "kept, as no shorter solution was found: 00 (8 moves)"


def test_a_level_that_cannot_be_read_leaves_its_solution_file(capsys, repo_root, tmp_path):
    # Whether it still wins cannot be told; it was deleted, so a typo in tiles.txt cost the solution.
    folder = copy_level(repo_root, "00", tmp_path)
    (folder / "solution.txt").write_text("8→\n", encoding="utf-8")
    (folder / "tiles.txt").write_text("b Baba\nb Baba text\n", encoding="utf-8")
    code, out, err = run(capsys, "solve", folder)
    assert_one_line_error(code, out, err)
    code, out, _ = run(capsys, "solve", folder.parent, "--all")
    assert code == 2 and "error" in out
    assert (folder / "solution.txt").read_text(encoding="utf-8") == "8→\n"


def test_solve_all_counts_the_levels_on_its_progress_line(capsys, monkeypatch, repo_root, tmp_path):
    for name in ("00", "01"):
        copy_level(repo_root, name, tmp_path / "set")
    terminal = FakeTerminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    code = cli.main(["solve", str(tmp_path / "set"), "--all"])
    out, _ = capsys.readouterr()
    assert code == 0
    assert list(table_rows(out)) == ["00", "01"]
    # 01 takes well over the 0.5 s refresh; 00 ends before its first
    assert "\r[2/2] 01 ... " in terminal.getvalue()
    assert terminal.getvalue().endswith("\r\x1b[K")


def test_solve_all_all_solved(capsys, repo_root, tmp_path):
    copy_level(repo_root, "00", tmp_path / "a")
    copy_level(repo_root, "00", tmp_path / "b")
    code, out, _ = run(capsys, "solve", tmp_path, "--all", "--timeout", "5")
    assert code == 0
    assert list(table_rows(out)) == ["a/00", "b/00"]
    assert out.splitlines()[-1].startswith("total: 2 levels: 2 solved;")


def test_solve_all_json(capsys, repo_root, tmp_path, unsolvable):
    copy_level(repo_root, "00", tmp_path)
    code, out, _ = run(capsys, "solve", tmp_path, "--all", "--json")
    assert code == 1
    records = json.loads(out)
    assert [(r["id"], r["status"]) for r in records] == [("00", "solved"), ("boxed", "unsolvable")]
    assert records[0]["solution"]["arrows"] == "8→"
    assert records[1]["solution"] is None
    assert all(set(r["stats"]) == STATS_KEYS for r in records)


def test_solve_all_keke_set(capsys, keke_sets):
    code, out, _ = run(capsys, "solve", keke_sets["test"], "--all")
    assert code == 0
    rows = table_rows(out)
    assert list(rows) == ["0", "1", "2"]
    assert all(row.split()[1] == "solved" for row in rows.values())
    assert out.splitlines()[-1].startswith("total: 3 levels: 3 solved;")


def test_solve_all_bad_level_reported(capsys, repo_root, tmp_path):
    copy_level(repo_root, "00", tmp_path)
    make_folder(tmp_path / "zz_bad", "b Bob\n", "b\n")
    code, out, err = run(capsys, "solve", tmp_path, "--all")
    assert code == 2
    rows = table_rows(out)
    assert rows["00"].split()[1] == "solved"
    assert rows["zz_bad"].split()[1] == "error"
    assert err.count("\n") == 1 and "unknown tile name 'Bob'" in err
    assert "Traceback" not in err


# ---- bad input


def test_solve_level_without_you_text(capsys, tmp_path):
    folder = make_folder(tmp_path / "noyou", "b Baba\nB Baba text\nI is text\n. empty\n", "BI.\n..b\n")
    (folder / "solution.txt").write_text("1→\n", encoding="utf-8")
    code, out, err = run(capsys, "solve", folder)
    assert_one_line_error(code, out, err)
    assert "no 'you' text" in err
    assert out == ""
    assert not (folder / "solution.txt").exists()


@pytest.mark.parametrize("extra", [[], ["--all"]])
def test_solve_missing_path(capsys, tmp_path, extra):
    code, out, err = run(capsys, "solve", tmp_path / "nowhere", *extra)
    assert_one_line_error(code, out, err)
    assert "nowhere" in err


def test_solve_unknown_id(capsys, keke_sets):
    code, out, err = run(capsys, "solve", keke_sets["demo"], "--id", "999")
    assert_one_line_error(code, out, err)
    assert "no level with id '999'" in err


def test_solve_set_without_id(capsys, keke_sets):
    code, out, err = run(capsys, "solve", keke_sets["demo"])
    assert_one_line_error(code, out, err)
    assert "--id" in err


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--timeout", "0"], "argument --timeout: must be more than 0 and at most 1,000,000 seconds"),
        (["--max-states", "0"], "argument --max-states: must be at least 1"),
        (["--max-states", "2.5"], "argument --max-states: expected a whole number"),
        (["--max-states", "1e11"], "argument --max-states: the visited store holds at most 17,179,869,182 states"),
        (["--memory", "0.001"], "argument --memory: must be from 0.01 GB to the machine's memory"),
        (["--memory", "inf"], "argument --memory: expected a finite number of GB"),
        (["--threads", "0"], "argument --threads: must be from 1 to"),
        (["--all", "--id", "1"], "--id selects one level"),
    ],
)
def test_solve_bad_options(capsys, repo_root, tmp_path, argv, message):
    folder = copy_level(repo_root, "00", tmp_path)
    code, out, err = run(capsys, "solve", folder, *argv)
    assert_one_line_error(code, out, err)
    assert message in err
    assert not (folder / "solution.txt").exists()


def test_solve_all_empty_folder(capsys, tmp_path):
    code, out, err = run(capsys, "solve", tmp_path, "--all")
    assert_one_line_error(code, out, err)
    assert "no level folders" in err


def test_solve_subprocess_error(tmp_path):
    folder = make_folder(tmp_path / "noyou", "b Baba\n. empty\n", "b.\n")
    proc = subprocess.run(
        [sys.executable, "-m", "babasolver", "solve", str(folder)],
        capture_output=True, text=True, encoding="utf-8",
    )
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("baba: error: ")
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize("all_levels", [False, True])
def test_workers_without_a_cluster_is_a_usage_error(capsys, repo_root, tmp_path, all_levels):
    # solve --all took --workers without --cluster, and ignored it.
    folder = tmp_path / "set" / "00"
    shutil.copytree(repo_root / "levels" / "00", folder)
    (folder / "solution.txt").unlink()
    argv = ("--all", folder.parent) if all_levels else (folder,)
    code, out, err = run(capsys, "solve", *argv, "--workers", "2")
    assert_one_line_error(code, out, err)
    assert "--workers goes with --cluster" in err
    assert not (folder / "solution.txt").exists()


def test_one_level_of_all_is_one_level(capsys, repo_root, tmp_path):
    folder = tmp_path / "set" / "00"
    shutil.copytree(repo_root / "levels" / "00", folder)
    code, out, err = run(capsys, "solve", "--all", folder.parent)
    assert code == 0, err
    total, kept = out.splitlines()[-2:]      # the copy has the shipped solution.txt, which wins
    assert total.startswith("total: 1 level: 1 solved;")
    assert kept == "kept, as no shorter solution was found: 00 (8 moves)"
