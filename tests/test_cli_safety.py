"""What reaches the terminal from a level file is escaped, and Ctrl-C is
one line at any moment, even while the program starts."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

import babasolver
from babasolver import cli
from babasolver.errors import BabaError
from util import make_level, run_cli as run

HOSTILE = "\x1b[2J\x07bell\ud800"
SET = {"levels": [
    {"id": HOSTILE, "name": HOSTILE, "author": HOSTILE, "ascii": "_____\n_B12_\n_b.f_\n_F13_\n_____",
     "solution": "r"},
    {"id": "2", "name": "ok", "ascii": "_____\n_B1._\n_____"},
]}


@pytest.fixture
def hostile_set(tmp_path):
    path = tmp_path / "set.json"
    path.write_text(json.dumps(SET), encoding="utf-8")
    return path


def assert_escaped(text: str) -> None:
    assert "\x1b" not in text and "\x07" not in text and "\ud800" not in text
    assert "\\x1b" in text


def test_show_escapes_names_and_authors(capsys, hostile_set):
    code, out, err = run(capsys, "show", hostile_set, "--id", "\\x1b[2J\\x07bell\\ud800")
    assert code == 0, err
    assert_escaped(out)


@pytest.mark.parametrize("command", [["solve", "--all"], ["bench"]])
def test_many_level_tables_escape_ids(capsys, hostile_set, command):
    code, out, err = run(capsys, command[0], hostile_set, *command[1:], "--timeout", "1")
    assert_escaped(out)
    # level 2 has no 'you' text: its row says error, and the others ran
    assert "error" in out.lower() and code in (1, 2)


def test_a_level_without_you_text_is_refused_by_the_api_as_by_the_cli():
    with pytest.raises(BabaError, match="no 'you' text"):
        babasolver.solve(make_level(["b.f", "F13"]))


def test_the_api_solution_is_actions_with_notation_helpers():
    result = babasolver.solve(make_level(["B12", "b.f", "F13"]), timeout=5)
    assert result.proven_shortest and result.keke == "rr" and result.arrows == "2→"
    assert all(isinstance(a, babasolver.Action) for a in result.solution)


def test_run_many_reports_through_callbacks_and_never_prints(capsys, repo_root):
    seen = []
    tasks = babasolver.load_tasks(repo_root / "levels" / "00")
    outcomes, completed = babasolver.run_many(tasks, babasolver.Limits(timeout=5),
                                              on_done=lambda k, n, o: seen.append((k, n, o.status)))
    assert completed and seen == [(1, 1, babasolver.Status.SOLVED)]
    assert outcomes[0].moves == 8
    assert capsys.readouterr() == ("", "")


def test_ctrl_c_while_the_program_starts_is_one_line(tmp_path):
    """A Ctrl-C that lands while the CLI is still being imported."""
    script = (
        "import builtins, sys\n"
        "real = builtins.__import__\n"
        "def slow(name, *args, **kwargs):\n"
        "    if name == 'babasolver.cli':\n"
        "        raise KeyboardInterrupt\n"
        "    return real(name, *args, **kwargs)\n"
        "builtins.__import__ = slow\n"
        "from babasolver._entry import main\n"
        "sys.exit(main())\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert done.returncode == 130
    assert done.stderr == "baba: interrupted\n"


def test_python_m_babasolver_runs_bench(keke_sets):
    done = subprocess.run([sys.executable, "-m", "babasolver", "bench", str(keke_sets["demo"]), "--ids", "1"],
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert done.returncode == 0, done.stderr
    assert "solved" in done.stdout and "1 (100.0%)" in done.stdout


def test_importing_the_package_loads_nothing_heavy():
    done = subprocess.run([sys.executable, "-c", "import sys, babasolver; "
                           "print(sorted(m for m in sys.modules if m.startswith('babasolver')))"],
                          capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert done.stdout.strip() == "['babasolver']"
