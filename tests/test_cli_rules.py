"""--rules on every command: the rule set is chosen, carried into the JSON
records and the report, and an unknown one is refused in one line."""
from __future__ import annotations

import json
import shutil

import pytest

from babasolver import cli
from util import assert_one_line_error


def run(capsys, *argv):
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def level01(tmp_path, repo_root):
    """A copy of levels/01, so that solving it writes no solution.txt into the repository."""
    return shutil.copytree(repo_root / "levels" / "01", tmp_path / "01")


def test_solve_under_the_game_rules_finds_the_19_moves(capsys, level01):
    judges = (level01 / "solution.txt").read_bytes()
    code, out, _ = run(capsys, "solve", level01, "--rules", "baba", "--mode", "shortest", "--json")
    data = json.loads(out)
    assert code == 0 and data["rule_set"] == "baba" and data["proven_shortest"]
    assert data["solution"]["keke"] == "ullllllluuurrddrrrr"
    assert data["solution_file"] == {"path": str(level01 / "solution.baba.txt"), "moves": 19, "kept": False}
    assert (level01 / "solution.baba.txt").read_text(encoding="utf-8").strip() == "1↑ 7← 3↑ 2→ 2↓ 4→"
    # The 19 moves lose in the judge's game: its 20-move solution stays where it was.
    assert (level01 / "solution.txt").read_bytes() == judges
    assert run(capsys, "check", level01)[0] == 0
    code, out, _ = run(capsys, "check", level01, "--rules", "baba", "--json")
    data = json.loads(out)
    assert code == 0 and data["source"] == str(level01 / "solution.baba.txt") and data["win_step"] == 19


def test_each_rule_set_keeps_its_own_solution_file(capsys, level01):
    """A solve never reads, keeps or deletes another rule set's file, even
    one that loses under its own rules."""
    (level01 / "solution.baba.txt").write_text("ullllllluuurrddrrrr\n", encoding="utf-8")
    (level01 / "solution.txt").write_text("ullllllluuurrddrrrr\n", encoding="utf-8")     # loses for keke
    code, out, _ = run(capsys, "solve", level01, "--mode", "shortest", "--json")
    assert code == 0 and json.loads(out)["solution_file"]["moves"] == 20
    assert (level01 / "solution.baba.txt").read_text(encoding="utf-8") == "ullllllluuurrddrrrr\n"
    (level01 / "solution.baba.txt").write_text("uuuu\n", encoding="utf-8")      # loses for baba
    code, out, _ = run(capsys, "solve", level01, "--rules", "baba", "--mode", "shortest", "--max-states", "100",
                       "--json")
    assert code == 1 and json.loads(out)["solution_file"] is None
    assert not (level01 / "solution.baba.txt").exists()
    assert run(capsys, "check", level01)[0] == 0


def test_check_names_the_rule_sets_solution_file(capsys, level01):
    code, out, err = run(capsys, "check", level01, "--rules", "baba")
    assert_one_line_error(code, out, err)
    assert "solution.baba.txt: no such file (solution.txt is for --rules keke)" in err
    assert f"solve {level01} --rules baba" in err


def test_the_default_is_the_judges_game(capsys, level01):
    code, out, _ = run(capsys, "check", level01, "ullllllluuurrddrrrr", "--json")
    data = json.loads(out)
    assert code == 1 and data["rule_set"] == "keke" and not data["won"]
    code, out, _ = run(capsys, "check", level01, "ullllllluuurrddrrrr", "--rules", "baba", "--json")
    data = json.loads(out)
    assert code == 0 and data["rule_set"] == "baba" and data["win_step"] == 19


def test_show_records_name_the_rule_set(capsys, level01):
    code, out, _ = run(capsys, "show", level01, "ullllllluuurrddrrrr", "--rules", "baba", "--json")
    frames = json.loads(out)
    assert code == 0 and len(frames) == 20 and frames[-1]["won"]
    assert {f["rule_set"] for f in frames} == {"baba"}


def test_bench_report_names_the_rule_set(capsys, tmp_path, repo_root):
    levels = shutil.copytree(repo_root / "levels", tmp_path / "levels")
    report = tmp_path / "r.json"
    code, out, _ = run(capsys, "bench", levels, "--rules", "baba", "--timeout", "30", "--report", report)
    data = json.loads(report.read_text(encoding="utf-8"))
    assert code == 0 and "rules baba" in out
    assert data["rule_set"] == "baba" and {lv["rule_set"] for lv in data["levels"]} == {"baba"}
    assert sorted((lv["id"], lv["moves"]) for lv in data["levels"]) == [("00", 8), ("01", 19)]


@pytest.mark.parametrize("command", ["solve", "check", "show", "bench"])
def test_an_unknown_rule_set_is_refused_with_the_known_ones(capsys, repo_root, command):
    code, out, err = run(capsys, command, repo_root / "levels" / "00", "--rules", "chess")
    assert_one_line_error(code, out, err)
    assert "'chess'" in err and "keke" in err and "baba" in err
