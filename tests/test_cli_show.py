"""`baba show` and the CLI's error handling."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from babasolver import cli
from babasolver.cli import show as cli_show
from util import run_cli as run, assert_one_line_error




def test_show_folder(capsys, repo_root):
    code, out, err = run(capsys, "show", str(repo_root / "levels" / "00"))
    assert code == 0
    assert err == ""
    lines = out.splitlines()
    assert lines[0] == "00"
    assert "B12.....F13" in lines
    assert ".b...r...f." in lines
    assert "  b = Baba" in lines
    assert "  B = Baba text" in lines
    assert "  1 = is text" in lines
    assert "  . = empty" in lines
    assert not any("border" in line for line in lines)  # only the chars used


def test_show_keke_level(capsys, keke_sets):
    code, out, err = run(capsys, "show", str(keke_sets["test"]), "--id", "1")
    assert code == 0
    assert err == ""
    lines = out.splitlines()
    assert lines[0] == "test_LEVELS#1 wallstop"
    assert "_F.wwwww._" in lines
    assert "  _ = border" in lines
    assert "  k = keke" in lines


def test_show_keke_int_ids(capsys, keke_sets):
    code, out, _ = run(capsys, "show", str(keke_sets["demo"]), "--id", "1")
    assert code == 0
    assert out.splitlines()[0] == "demo_LEVELS#1"


def test_show_missing_path(capsys, tmp_path):
    missing = tmp_path / "nowhere"
    code, out, err = run(capsys, "show", str(missing))
    assert_one_line_error(code, out, err)
    assert str(missing) in err
    assert out == ""


def test_show_unknown_id(capsys, keke_sets):
    code, out, err = run(capsys, "show", str(keke_sets["full_biy"]), "--id", "nope")
    assert_one_line_error(code, out, err)
    assert "no level with id 'nope'" in err


def test_show_json_without_id(capsys, keke_sets):
    code, out, err = run(capsys, "show", str(keke_sets["demo"]))
    assert_one_line_error(code, out, err)
    assert "--id" in err


def test_show_bad_folder(capsys, tmp_path):
    folder = tmp_path / "bad"
    folder.mkdir()
    (folder / "tiles.txt").write_text("b Bob\n")
    (folder / "content.txt").write_text("b\n")
    code, out, err = run(capsys, "show", str(folder))
    assert_one_line_error(code, out, err)
    assert f"{folder / 'tiles.txt'}:1:3: unknown tile name 'Bob'" in err


def test_os_error_becomes_one_line(capsys, monkeypatch, repo_root):
    def boom(args):
        raise PermissionError(13, "Permission denied", "/some/file")

    monkeypatch.setattr(cli_show, "run", boom)
    # the parser stores the function at build time, so rebuild through main
    code, out, err = run(capsys, "show", str(repo_root / "levels" / "00"))
    assert_one_line_error(code, out, err)
    assert "baba: error: /some/file: Permission denied" in err


@pytest.mark.parametrize("argv", [[], ["show"], ["frobnicate"], ["show", "a", "b", "c"]])
def test_usage_errors_exit_2(capsys, argv):
    code = cli.main(argv)
    out, err = capsys.readouterr()
    assert_one_line_error(code, out, err)
    assert "--help' for usage" in err


def test_help_exits_0(capsys):
    assert cli.main(["--help"]) == 0
    assert "show" in capsys.readouterr().out


def test_module_entry_point(repo_root):
    proc = subprocess.run(
        [sys.executable, "-m", "babasolver", "show", str(repo_root / "levels" / "01")],
        capture_output=True, text=True, encoding="utf-8",
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[0] == "01"
    assert "....wwwwwwww" in proc.stdout


def test_module_entry_point_error(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "babasolver", "show", str(tmp_path / "missing")],
        capture_output=True, text=True, encoding="utf-8",
    )
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.count("\n") == 1
    assert proc.stderr.startswith("baba: error: ")
    assert "Traceback" not in proc.stderr


def test_console_script(repo_root):
    script = Path(sys.executable).parent / "baba"
    if not script.exists():
        pytest.skip("no `baba` console script next to the Python executable")
    proc = subprocess.run(
        [str(script), "show", str(repo_root / "levels" / "00")],
        capture_output=True, text=True, encoding="utf-8",
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[0] == "00"


def test_json_with_a_picture_prints_the_json(capsys, repo_root, tmp_path):
    # With --png (or --gif, --html), --json printed the text summary instead.
    import json
    import shutil

    from util import run_cli

    folder = tmp_path / "00"
    shutil.copytree(repo_root / "levels" / "00", folder)
    code, out, err = run_cli(capsys, "show", folder, "rr", "--json", "--png", tmp_path / "o.png")
    assert code == 1, err
    assert [record["step"] for record in json.loads(out)] == [0, 1, 2]
    assert (tmp_path / "o.png").is_file()
