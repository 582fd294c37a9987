"""`baba check`: replaying solutions given inline, from solution.txt or from a Keke set."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from babasolver import cli
from util import run_cli as run, assert_one_line_error

# Baba walks down into the IS of BABA IS YOU and pushes it out of the rule:
# after "rdd" nothing is YOU any more (dead). The level has no WIN at all.
BREAKABLE_TILES = "b Baba\nB Baba text\nI is text\nY you text\n. empty\n"
BREAKABLE_CONTENT = "b..\n...\nBIY\n...\n"




@pytest.fixture
def level00(repo_root, tmp_path) -> Path:
    target = tmp_path / "00"
    shutil.copytree(repo_root / "levels" / "00", target, ignore=shutil.ignore_patterns("solution.txt"))
    for p in target.iterdir():
        p.chmod(0o644)
    return target


@pytest.mark.parametrize("solution", ["8→", "rrrrrrrr", "RRRRRRRR", "8r", "> > > > > > > >"])
def test_check_wins(capsys, repo_root, solution):
    code, out, err = run(capsys, "check", repo_root / "levels" / "00", solution)
    assert code == 0
    assert err == ""
    assert "wins at step 8 of 8" in out.splitlines()


def test_check_wins_before_the_end(capsys, repo_root):
    code, out, _ = run(capsys, "check", repo_root / "levels" / "00", "8→ 2←")
    assert code == 0
    assert "wins at step 8 of 10" in out.splitlines()


def test_check_does_not_win(capsys, repo_root):
    code, out, err = run(capsys, "check", repo_root / "levels" / "00", "rrr")
    assert code == 1
    assert err == ""
    assert "does not win (3 steps played; dead: no)" in out.splitlines()


def test_check_dead(capsys, tmp_path):
    folder = tmp_path / "breakable"
    folder.mkdir()
    (folder / "tiles.txt").write_text(BREAKABLE_TILES, encoding="utf-8")
    (folder / "content.txt").write_text(BREAKABLE_CONTENT, encoding="utf-8")
    code, out, _ = run(capsys, "check", folder, "rdd")
    assert code == 1
    assert "does not win (3 steps played; dead: yes)" in out.splitlines()


def test_check_empty_solution(capsys, repo_root):
    code, out, _ = run(capsys, "check", repo_root / "levels" / "00", "")
    assert code == 1
    assert "does not win (0 steps played; dead: no)" in out.splitlines()


def test_check_reads_solution_file(capsys, level00):
    (level00 / "solution.txt").write_text("8→\n", encoding="utf-8")
    code, out, _ = run(capsys, "check", level00)
    assert code == 0
    assert str(level00 / "solution.txt") in out
    assert "wins at step 8 of 8" in out.splitlines()


def test_check_after_solve(capsys, level00):
    assert cli.main(["solve", str(level00)]) == 0
    capsys.readouterr()
    code, out, _ = run(capsys, "check", level00)
    assert code == 0
    assert "wins at step 8 of 8" in out


def test_check_missing_solution_file(capsys, level00):
    code, out, err = run(capsys, "check", level00)
    assert_one_line_error(code, out, err)
    assert "solution.txt" in err
    assert out == ""


def test_check_bad_solution_file(capsys, level00):
    (level00 / "solution.txt").write_text("3→ 2x\n", encoding="utf-8")
    code, out, err = run(capsys, "check", level00)
    assert_one_line_error(code, out, err)
    assert str(level00 / "solution.txt") in err
    assert "position 5" in err


def test_check_bad_letter(capsys, repo_root):
    code, out, err = run(capsys, "check", repo_root / "levels" / "00", "rrxr")
    assert_one_line_error(code, out, err)
    assert "'x' at position 3" in err
    assert out == ""


def test_check_json(capsys, repo_root):
    code, out, _ = run(capsys, "check", repo_root / "levels" / "00", "8→ 1←", "--json")
    assert code == 0
    data = json.loads(out)
    assert data == {
        "level": "00",
        "rule_set": "keke",
        "source": "argument",
        "solution": {"arrows": "8→ 1←", "keke": "rrrrrrrrl", "moves": 9},
        "won": True,
        "win_step": 8,
        "played": 8,
        "dead": False,
        "illegal": None,
        "judge": None,
    }


def test_check_judge_needs_its_folder(capsys, repo_root, tmp_path):
    code, _, err = run(capsys, "check", repo_root / "levels" / "00", "8r", "--judge", tmp_path)
    assert code == 2
    assert err.strip() == f"baba: error: {tmp_path}: no simulation.js (the Keke judge) in this folder"


def test_check_with_the_judge(capsys, repo_root, shared_dir):
    if shutil.which("node") is None:
        pytest.skip("node is absent: the judge runs on Node.js")
    judge = shared_dir / "keke-reference"
    code, out, _ = run(capsys, "check", repo_root / "levels" / "01", "--judge", judge)
    assert code == 0 and out.splitlines()[-1] == "judge: accepted"
    # The shortest solution of the old bit-board engine: the judge rejects it.
    code, out, _ = run(capsys, "check", repo_root / "levels" / "01", "ulllllllulrururudrrr",
                       "--judge", judge, "--json")
    data = json.loads(out)
    assert code == 1 and data["won"] is False
    assert data["judge"] == {"accepted": False, "win_step": None, "illegal_step": None,
                             "verdict": "rejected: does not win in the judge (20 turns played)"}


def test_check_names_the_turn_the_judge_cannot_play(capsys, keke_sets):
    # full_biy 84: "flag is you" and "flag is kill", so every flag is paired
    # with itself by the first KILL check.
    code, out, _ = run(capsys, "check", keke_sets["full_biy"], "--id", "84")
    assert code == 1
    assert out.splitlines()[-1] == (
        "breaks at step 1 of 49: the judge cannot play it "
        "(the KILL check names flag at (7, 7) more than once)")
    code, out, _ = run(capsys, "check", keke_sets["full_biy"], "--id", "84", "--json")
    data = json.loads(out)
    assert data["won"] is False and data["played"] == 1
    assert data["illegal"] == {"turn": 1, "reason": "the KILL check names flag at (7, 7) more than once"}


def test_check_json_not_winning(capsys, repo_root):
    code, out, _ = run(capsys, "check", repo_root / "levels" / "00", "ll", "--json")
    assert code == 1
    data = json.loads(out)
    assert data["won"] is False
    assert data["win_step"] is None
    assert data["played"] == 2
    assert data["dead"] is False


def test_check_keke_stored_solution(capsys, keke_sets):
    code, out, _ = run(capsys, "check", keke_sets["demo"], "--id", "1")
    assert code == 0
    assert "from stored solution" in out
    assert out.splitlines()[-1].startswith("wins at step ")


def test_check_keke_given_solution(capsys, keke_sets):
    # solve it, then check what the solver found
    code, out, _ = run(capsys, "solve", keke_sets["test"], "--id", "0", "--json")
    assert code == 0
    keke = json.loads(out)["solution"]["keke"]
    code, out, _ = run(capsys, "check", keke_sets["test"], "--id", "0", keke)
    assert code == 0
    assert f"wins at step {len(keke)} of {len(keke)}" in out


def test_check_keke_set_without_id(capsys, keke_sets):
    code, out, err = run(capsys, "check", keke_sets["demo"], "rrr")
    assert_one_line_error(code, out, err)
    assert "--id" in err


def test_check_unknown_id(capsys, keke_sets):
    code, out, err = run(capsys, "check", keke_sets["demo"], "--id", "nope", "rrr")
    assert_one_line_error(code, out, err)
    assert "no level with id 'nope'" in err


def test_check_missing_path(capsys, tmp_path):
    code, out, err = run(capsys, "check", tmp_path / "nowhere", "rrr")
    assert_one_line_error(code, out, err)
    assert "nowhere" in err


def test_check_subprocess(repo_root):
    level = str(repo_root / "levels" / "00")
    good = subprocess.run(
        [sys.executable, "-m", "babasolver", "check", level, "8→"],
        capture_output=True, text=True, encoding="utf-8",
    )
    assert good.returncode == 0, good.stderr
    assert "wins at step 8 of 8" in good.stdout
    bad = subprocess.run(
        [sys.executable, "-m", "babasolver", "check", level, "8q"],
        capture_output=True, text=True, encoding="utf-8",
    )
    assert bad.returncode == 2
    assert bad.stdout == ""
    assert bad.stderr.count("\n") == 1 and bad.stderr.startswith("baba: error: ")
    assert "position 2" in bad.stderr
    assert "Traceback" not in bad.stderr


def test_after_a_double_dash_every_argument_is_a_path_or_a_solution(capsys, tmp_path, level00, monkeypatch):
    """`check -- -lv r`: the intermixed parse of check and show read an
    argument after "--" as an option (`show -- --id`: "expected one argument")."""
    odd = tmp_path / "--id"
    shutil.copytree(level00, odd)
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "check", "--", "--id", "rrrrrrrr")
    assert code == 0 and "wins at step 8 of 8" in out, err
    code, out, err = run(capsys, "show", "--", "--id")
    assert code == 0 and "B12" in out, err
    code, out, err = run(capsys, "check", "--", "--nothing", "r")
    assert_one_line_error(code, out, err)
    assert "--nothing: no such level folder or file" in err
