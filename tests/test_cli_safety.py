"""What reaches the terminal from a level file is escaped, and Ctrl-C is
one line at any moment, even while the program starts. Hostile input
(issue 24): every number an option takes is bounded, a solution has a
longest length, inputs must be regular files, outputs never replace what
is not a regular file, and write errors name the file."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

import babasolver
from babasolver.app import limits
from babasolver.errors import BabaError
from util import assert_one_line_error, make_level, run_cli as run

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


# --------------------------------------------------------------------------
# Every number an option takes is finite and bounded (issue 24, root causes
# 1, 3 and 4): a value out of range is a one-line usage error naming the
# range, before any work and before any file is written.

OUT_OF_RANGE = [
    # (command and its arguments, the option's range as the message words it)
    (["show", "rrrrrrrr", "--gif", "{tmp}/o.gif", "--delay", "nan"], "--delay: expected a finite number"),
    (["show", "rrrrrrrr", "--gif", "{tmp}/o.gif", "--delay", "inf"], "--delay: expected a finite number"),
    (["show", "rrrrrrrr", "--gif", "{tmp}/o.gif", "--delay", "1e300"], "--delay: must be from 0 to 60 seconds"),
    (["show", "rrrrrrrr", "--html", "{tmp}/o.html", "--delay", "-0.5"], "--delay: must be from 0 to 60 seconds"),
    (["show", "rrrrrrrr", "--png", "{tmp}/o.png", "--step", "-1"], "--step: must be from 0 to 1,000,000"),
    (["show", "rrrrrrrr", "--png", "{tmp}/o.png", "--step", "1" * 5000], "--step: expected a whole number"),
    (["solve", "--timeout", "inf"], "--timeout: expected a finite number of seconds"),
    (["solve", "--timeout", "1e300"], "--timeout: must be more than 0 and at most 1,000,000 seconds"),
    (["solve", "--timeout", "9" * 5000], "--timeout: expected a finite number of seconds"),
    (["solve", "--max-states", "1e400"], "--max-states: expected a whole number"),
    (["solve", "--max-states", "9" * 5000], "--max-states: expected a whole number"),
    (["solve", "--threads", "2147483648"], "--threads: must be from 1 to"),
    (["solve", "--threads", "9223372036854775808"], "--threads: must be from 1 to"),
    (["bench", "--threads", "2147483648"], "--threads: must be from 1 to"),
    (["bench", "--jobs", "100000"], "--jobs: must be from 1 to"),
    (["bench", "--jobs", "-1"], "--jobs: must be from 1 to"),
    (["bench", "--memory-limit", "1e300"], "--memory-limit: must be from 0.25 GB to the machine's memory"),
    (["bench", "--memory-limit", "1e30"], "--memory-limit: must be from 0.25 GB to the machine's memory"),
    (["bench", "--memory-limit", "nan"], "--memory-limit: expected a finite number of GB"),
    (["bench", "--timeout", "1e9"], "--timeout: must be more than 0 and at most 1,000,000 seconds"),
]


@pytest.mark.parametrize("argv, message", OUT_OF_RANGE, ids=lambda v: " ".join(v)[:60] if isinstance(v, list) else None)
def test_numbers_out_of_range_are_one_line_usage_errors(capsys, repo_root, tmp_path, argv, message):
    folder = tmp_path / "00"
    shutil.copytree(repo_root / "levels" / "00", folder)
    (folder / "solution.txt").unlink()
    command, rest = argv[0], [a.replace("{tmp}", str(tmp_path)) for a in argv[1:]]
    code, out, err = run(capsys, command, folder, *rest)
    assert_one_line_error(code, out, err)
    assert message in err and "--help" in err
    assert len(err) < 300                    # a 5,000-digit value is quoted cut short
    assert sorted(p.name for p in tmp_path.iterdir()) == ["00"]
    assert sorted(p.name for p in folder.iterdir()) == ["content.txt", "tiles.txt"]


def test_the_bounds_themselves_are_accepted():
    assert limits.parse_threads(str(limits.max_threads())) == limits.max_threads()
    assert limits.parse_jobs(str(limits.max_threads())) == limits.max_threads()
    assert limits.parse_delay("60") == 60 and limits.parse_delay("0") == 0
    assert limits.parse_seconds("1e6") == 1e6
    assert limits.parse_step("1000000") == 1_000_000
    assert limits.parse_gigabytes("0.25") == 0.25
    assert limits.parse_gigabytes(str(limits.max_gigabytes())) == limits.max_gigabytes()


def test_the_api_takes_the_same_bounds():
    with pytest.raises(BabaError, match="at most 1,000,000 seconds"):
        babasolver.Limits(timeout=1e300)
    with pytest.raises(BabaError, match="threads must be a whole number from 1 to"):
        babasolver.solve(make_level(["B12", "b.f", "F13"]), threads=2**31)


# --------------------------------------------------------------------------
# A solution longer than MAX_MOVES is refused in one line before it is
# expanded (root cause 2).


@pytest.mark.parametrize("solution, message", [
    ("1" * 5000 + "r", "(5000 digits) at position 1 is larger than 1000000"),
    ("1000000r 1r", "more than 1,000,000 moves"),
    ("999999r " * 3, "more than 1,000,000 moves"),
])
def test_a_solution_past_the_longest_is_refused_in_one_line(capsys, repo_root, solution, message):
    for command in ("check", "show"):
        code, out, err = run(capsys, command, repo_root / "levels" / "00", solution)
        assert_one_line_error(code, out, err)
        assert message in err and len(err) < 300


# --------------------------------------------------------------------------
# Inputs must be regular files (root cause 6): a FIFO, a device or a socket
# gets one line, never a hang. Run in a child process, so that a hang fails
# the test instead of stopping the suite.


def baba(*argv, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "babasolver", *map(str, argv)], capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})


def special_files(folder):
    """(kind, maker) of the special files this machine lets us make."""
    import socket
    import stat

    def fifo(path):
        os.mkfifo(path)

    def device(path):
        os.mknod(path, stat.S_IFCHR | 0o600, os.makedev(1, 3))     # a second /dev/null

    def unix_socket(path):
        sock = socket.socket(socket.AF_UNIX)
        sock.bind(str(path))
        sock.close()

    makers = [("FIFO", fifo), ("character device", device), ("socket", unix_socket)]
    usable = []
    for kind, maker in makers:
        probe = folder / f"probe-{len(usable)}"
        try:
            maker(probe)
        except (OSError, AttributeError):
            continue                        # mknod needs root; a long path refuses a socket
        probe.unlink()
        usable.append((kind, maker))
    return usable


@pytest.fixture
def short_tmp():
    """A temporary folder with a short path (a socket's path is at most 107 bytes)."""
    import tempfile

    path = tempfile.mkdtemp(prefix="b24")
    yield __import__("pathlib").Path(path)
    shutil.rmtree(path, ignore_errors=True)


def assert_refused_input(done, name):
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("baba: error: "), done.stderr
    assert name in done.stderr and "not a regular file" in done.stderr


def test_a_special_file_as_input_is_one_line(short_tmp, repo_root):
    kinds = special_files(short_tmp)
    assert kinds and kinds[0][0] == "FIFO"
    for kind, make in kinds:
        level_set = short_tmp / "set.json"
        make(level_set)
        for argv in (["show", level_set, "--id", "1"], ["check", level_set, "--id", "1", "r"],
                     ["solve", level_set, "--id", "1"], ["bench", level_set], ["solve", level_set, "--all"]):
            assert_refused_input(baba(*argv), "set.json")
        level_set.unlink()
        folder = short_tmp / "level"
        shutil.copytree(repo_root / "levels" / "00", folder)
        (folder / "content.txt").unlink()
        make(folder / "content.txt")
        for argv in (["show", folder], ["check", folder, "r"], ["solve", folder]):
            assert_refused_input(baba(*argv), "content.txt")
        # solution.txt, read by check
        shutil.rmtree(folder)
        shutil.copytree(repo_root / "levels" / "00", folder)
        (folder / "solution.txt").unlink()
        make(folder / "solution.txt")
        assert_refused_input(baba("check", folder), "solution.txt")
        shutil.rmtree(folder)


def test_a_fifo_level_in_a_bench_folder_is_an_error_row_and_the_others_run(short_tmp, repo_root):
    shutil.copytree(repo_root / "levels" / "00", short_tmp / "set" / "a")
    shutil.copytree(repo_root / "levels" / "00", short_tmp / "set" / "b")
    (short_tmp / "set" / "a" / "content.txt").unlink()
    os.mkfifo(short_tmp / "set" / "a" / "content.txt")
    done = baba("bench", short_tmp / "set", "--timeout", "5")
    assert done.returncode == 1
    assert "is a FIFO, not a regular file" in done.stdout
    assert "solved" in done.stdout
    assert (short_tmp / "set" / "a" / "content.txt").is_fifo()


# --------------------------------------------------------------------------
# Outputs (root cause 7): an existing target that is not a regular file is
# refused and left as it was, before any work.


def test_a_special_file_as_output_is_refused_and_left_alone(capsys, short_tmp, repo_root):
    kinds = special_files(short_tmp)
    folder = short_tmp / "00"
    shutil.copytree(repo_root / "levels" / "00", folder)
    for kind, make in kinds:
        for option in ("--png", "--gif", "--html"):
            target = short_tmp / f"out{option[2:]}"
            make(target)
            code, out, err = run(capsys, "show", folder, "rrrrrrrr", option, target)
            assert_one_line_error(code, out, err)
            assert f"it is a {kind}, not a regular file" in err or f"it is an {kind}" in err, err
            assert not target.is_file() and target.exists(), kind
            target.unlink()
        report = short_tmp / "report.json"
        make(report)
        code, out, err = run(capsys, "bench", folder, "--report", report)
        assert_one_line_error(code, out, err)
        assert "report.json" in err and out == ""
        assert not report.is_file() and report.exists()
        report.unlink()
        replays = short_tmp / "replays"
        make(replays)
        code, out, err = run(capsys, "bench", folder, "--replays", replays)
        assert_one_line_error(code, out, err)
        assert "replays" in err and out == ""
        assert not replays.is_dir() and replays.exists()
        replays.unlink()
        # solution.txt: neither removed before the search nor replaced after it
        (folder / "solution.txt").unlink(missing_ok=True)
        make(folder / "solution.txt")
        code, out, err = run(capsys, "solve", folder)
        assert_one_line_error(code, out, err)
        assert "solution.txt" in err and "not a regular file" in err
        assert (folder / "solution.txt").exists() and not (folder / "solution.txt").is_file()
        code, out, err = run(capsys, "solve", short_tmp, "--all", "--timeout", "5")
        assert code == 2 and "not a regular file" in err and "solution.txt" in out + err
        assert (folder / "solution.txt").exists() and not (folder / "solution.txt").is_file()
        (folder / "solution.txt").unlink()
    assert sorted(p.name for p in short_tmp.iterdir()) == ["00"]
    assert sorted(p.name for p in folder.iterdir()) == ["content.txt", "tiles.txt"]


def test_a_file_given_as_the_replays_folder_is_refused(capsys, repo_root, tmp_path):
    (tmp_path / "replays").write_text("mine\n", encoding="utf-8")
    code, out, err = run(capsys, "bench", repo_root / "levels" / "00", "--replays", tmp_path / "replays")
    assert_one_line_error(code, out, err)
    assert "not a folder" in err
    assert (tmp_path / "replays").read_text(encoding="utf-8") == "mine\n"


# --------------------------------------------------------------------------
# A full disk: the message names the file, and nothing is left behind, not
# even an empty --replays folder.


@pytest.fixture
def full_disk(monkeypatch):
    import errno

    from babasolver import files

    def no_space(fd):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(files.os, "fsync", no_space)


def test_a_full_disk_names_the_file_and_leaves_nothing(capsys, repo_root, tmp_path, full_disk):
    folder = tmp_path / "00"
    shutil.copytree(repo_root / "levels" / "00", folder)
    (folder / "solution.txt").unlink()
    outputs = [("show", folder, "rrrrrrrr", "--html", tmp_path / "o.html"),
               ("bench", folder, "--report", tmp_path / "r.json"),
               ("bench", folder, "--replays", tmp_path / "deep" / "replays"),
               ("solve", folder)]
    for argv in outputs:
        code, out, err = run(capsys, *argv)
        name = {"show": "o.html", "solve": "solution.txt"}.get(argv[0], "r.json" if "--report" in argv else ".html")
        assert code == 2, err
        assert err.startswith("baba: error: ") and err.count("\n") == 1, err
        assert name in err and "No space left on device" in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["00"]
    assert sorted(p.name for p in folder.iterdir()) == ["content.txt", "tiles.txt"]


@pytest.mark.parametrize("command", ["solve", "check", "show", "bench"])
def test_every_command_prints_its_help(capsys, command):
    # A "%" in a help text once made --help a traceback.
    code, out, err = run(capsys, command, "--help")
    assert code == 0 and "Traceback" not in err
    assert out.startswith("usage: baba " + command)


# --------------------------------------------------------------------------
# An output never replaces a file the command reads, nor one the user may
# not write: the rename that writes it needs only the folder's permission.


def level_folder(repo_root, where):
    shutil.copytree(repo_root / "levels" / "00", where)
    return where


def snapshot(*paths):
    return {str(p): p.read_bytes() for p in paths}


def test_an_output_never_replaces_a_file_the_command_reads(capsys, repo_root, tmp_path, hostile_set):
    folder = level_folder(repo_root, tmp_path / "00")
    tree = tmp_path / "tree"
    level_folder(repo_root, tree / "a")
    inputs = [folder / "tiles.txt", folder / "content.txt", folder / "solution.txt", hostile_set,
              tree / "a" / "content.txt"]
    before = snapshot(*inputs)
    for argv in (["show", folder, "--png", folder / "content.txt"],
                 ["show", folder, "rr", "--gif", folder / "solution.txt"],
                 ["show", folder, "--html", folder / "tiles.txt"],
                 ["show", hostile_set, "--id", "2", "--png", hostile_set],
                 ["bench", hostile_set, "--timeout", "1", "--report", hostile_set],
                 ["bench", tree, "--timeout", "1", "--report", tree / "a" / "content.txt"]):
        code, out, err = run(capsys, *argv)
        assert_one_line_error(code, out, err)
        assert "this command reads it, and it would be replaced" in err
    # A trailing '/' or '/.' names a folder: pathlib would drop it and write
    # the file before it.
    for target in (f"{folder / 'content.txt'}/", f"{folder / 'tiles.txt'}/.", f"{hostile_set}/"):
        code, out, err = run(capsys, "show", folder, "--png", target)
        assert_one_line_error(code, out, err)
        assert "the path names a folder, not a file" in err
    # A link to an input is the input.
    (tmp_path / "link.png").symlink_to(folder / "content.txt")
    code, out, err = run(capsys, "show", folder, "--png", tmp_path / "link.png")
    assert_one_line_error(code, out, err)
    assert snapshot(*inputs) == before
    (tmp_path / "link.png").unlink()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["00", "set.json", "tree"]


def test_an_output_is_written_through_a_link_as_a_shell_would(capsys, repo_root, tmp_path):
    folder = level_folder(repo_root, tmp_path / "00")
    (tmp_path / "pictures").mkdir()
    (tmp_path / "latest.png").symlink_to(tmp_path / "pictures" / "00.png")
    code, out, err = run(capsys, "show", folder, "--png", tmp_path / "latest.png")
    assert code == 0, err
    assert (tmp_path / "latest.png").is_symlink()
    assert (tmp_path / "pictures" / "00.png").read_bytes().startswith(b"\x89PNG")
    assert sorted(p.name for p in (tmp_path / "pictures").iterdir()) == ["00.png"]     # no temporary file
    # Where `>` fails, so does the write, and the link stays: a loop, a
    # dangling link to a folder.
    (tmp_path / "self.png").symlink_to(tmp_path / "self.png")
    (tmp_path / "folder.png").symlink_to("nowhere/")
    for link, why in (("self.png", "symbolic links"), ("folder.png", "the link names a folder")):
        code, out, err = run(capsys, "show", folder, "--png", tmp_path / link)
        assert_one_line_error(code, out, err)
        assert why in err
        assert (tmp_path / link).is_symlink()


def test_bench_never_writes_over_the_judge_it_runs(capsys, repo_root, tmp_path):
    judge = tmp_path / "judge"
    judge.mkdir()
    (judge / "simulation.js").write_text("// the judge\n", encoding="utf-8")
    folder = level_folder(repo_root, tmp_path / "00")
    code, out, err = run(capsys, "bench", folder, "--judge", judge, "--report", judge / "simulation.js")
    assert_one_line_error(code, out, err)
    assert "this command reads it" in err
    assert (judge / "simulation.js").read_text(encoding="utf-8") == "// the judge\n"


def test_replays_are_checked_before_the_levels_and_keep_what_was_there(capsys, repo_root, tmp_path, monkeypatch):
    tree = tmp_path / "tree"
    level_folder(repo_root, tree / "a")
    level_folder(repo_root, tree / "b")
    pages = tmp_path / "pages"
    pages.mkdir()
    (pages / "a.html").write_text("mine\n", encoding="utf-8")
    (pages / "index.html").write_text("mine too\n", encoding="utf-8")
    writable = os.access
    monkeypatch.setattr(os, "access", lambda path, mode, **kw: (os.fspath(path) != str(pages / "index.html")
                                                                and writable(path, mode)))
    ran = []
    monkeypatch.setattr("babasolver.cli.bench.run_many", lambda *a, **kw: ran.append(1))
    code, out, err = run(capsys, "bench", tree, "--replays", pages)
    assert_one_line_error(code, out, err)
    assert "index.html: cannot write the replays: permission denied" in err and not ran
    assert sorted(p.name for p in pages.iterdir()) == ["a.html", "index.html"]
    assert (pages / "a.html").read_text(encoding="utf-8") == "mine\n"


def test_an_output_the_user_may_not_write_is_refused(capsys, repo_root, tmp_path, monkeypatch):
    folder = level_folder(repo_root, tmp_path / "00")
    notes = tmp_path / "notes.txt"
    notes.write_text("keep me\n", encoding="utf-8")
    writable = os.access
    monkeypatch.setattr(os, "access", lambda path, mode, **kw: os.fspath(path) != str(notes) and writable(path, mode))
    for argv in (["show", folder, "--png", notes], ["bench", folder, "--timeout", "1", "--report", notes]):
        code, out, err = run(capsys, *argv)
        assert_one_line_error(code, out, err)
        assert "permission denied" in err
    assert notes.read_text(encoding="utf-8") == "keep me\n"
    code, out, err = run(capsys, "show", folder, "--png", tmp_path / "fresh.png")
    assert code == 0, err


def test_every_level_folder_that_cannot_be_read_gets_a_row(capsys, repo_root, tmp_path, monkeypatch):
    """A level folder is one holding tiles.txt or content.txt, whatever they
    are; a folder that cannot be listed may hold levels: each gets a row,
    never passed over (which ended in "all solved", exit 0)."""
    tree = tmp_path / "tree"
    level_folder(repo_root, tree / "a")
    (tree / "half").mkdir()
    (tree / "half" / "content.txt").write_text("B\n", encoding="utf-8")
    level_folder(repo_root, tree / "m")
    (tree / "m" / "tiles.txt").unlink()
    (tree / "m" / "tiles.txt").mkdir()
    level_folder(repo_root, tree / "shut" / "inner")
    scandir = os.scandir

    def shut(path="."):
        if os.fspath(path) == str(tree / "shut"):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return scandir(path)

    monkeypatch.setattr(os, "scandir", shut)
    for command, status in ((["solve", "--all"], 2), (["bench"], 1)):
        code, out, err = run(capsys, command[0], tree, *command[1:], "--timeout", "5")
        assert code == status, (out, err)
        assert "Traceback" not in err
        rows = {}
        for line in out.splitlines():       # each level's first line is its row
            if line.split() and line.split()[0] in ("a", "half", "m", "shut"):
                rows.setdefault(line.split()[0], line.split()[1].lower())
        assert rows == {"a": "solved", "half": "error", "m": "error", "shut": "error"}, out
        assert "half/tiles.txt: no such file" in out + err
        assert "m/tiles.txt: is a folder, not a regular file" in out + err
        assert "shut: cannot read this folder: Permission denied" in out + err


def test_level_folders_are_found_through_links_and_at_any_depth(repo_root, tmp_path):
    from babasolver.level import find_level_folders

    tree = tmp_path / "tree"
    deep = tree
    for _ in range(1100):                       # os.walk recursed once per folder: RecursionError
        deep = deep / "d"
        deep.mkdir(parents=deep.parent == tree)
    try:
        for name in ("tiles.txt", "content.txt"):
            shutil.copyfile(repo_root / "levels" / "00" / name, deep / name)
        level_folder(repo_root, tmp_path / "elsewhere")
        (tree / "linked").symlink_to(tmp_path / "elsewhere")
        (tree / "loop").symlink_to(tree)        # looked at once
        found = dict(find_level_folders(tree))
        assert sorted(found) == ["/".join(["d"] * 1100), "linked"]
    finally:
        # shutil.rmtree, as pytest clears old temporary folders with it, recurses too.
        for name in ("tiles.txt", "content.txt"):
            (deep / name).unlink(missing_ok=True)
        while deep != tree:
            deep.rmdir()
            deep = deep.parent


# --------------------------------------------------------------------------
# Errors point at the place, and stay readable whatever the input holds.


def test_bytes_that_are_not_utf8_are_named_by_line_and_column(capsys, repo_root, tmp_path):
    folder = level_folder(repo_root, tmp_path / "00")
    content = (folder / "content.txt").read_bytes().split(b"\n")
    content[2] = content[2][:3] + b"\xff" + content[2][4:]
    (folder / "content.txt").write_bytes(b"\n".join(content))
    (folder / "solution.txt").write_bytes("rr →\nr\xe9".encode("utf-8") + b"\xc3(")
    level_set = tmp_path / "set.json"
    level_set.write_bytes('{"levels": [\n {"id": "é", "ascii": "\xe9'.encode("utf-8") + b'\x80"}]}')
    for argv, where in ((["show", folder], "content.txt:3:4: not UTF-8 text"),
                        (["show", level_set, "--id", "1"], "set.json:2:25: not UTF-8 text"),):
        code, out, err = run(capsys, *argv)
        assert_one_line_error(code, out, err)
        assert where in err, err
    (folder / "content.txt").write_bytes((repo_root / "levels" / "00" / "content.txt").read_bytes())
    code, out, err = run(capsys, "check", folder)
    assert_one_line_error(code, out, err)
    assert "solution.txt:2:3: not UTF-8 text" in err, err


def test_a_byte_order_mark_is_dropped_and_counts_no_column(capsys, repo_root, tmp_path):
    bom = b"\xef\xbb\xbf"
    folder = level_folder(repo_root, tmp_path / "00")
    for name in ("tiles.txt", "content.txt"):
        (folder / name).write_bytes(bom + (folder / name).read_bytes())
    (folder / "solution.txt").write_bytes(bom + "8→\n".encode("utf-8"))
    code, out, err = run(capsys, "check", folder)
    assert code == 0 and "wins at step 8 of 8" in out, (out, err)
    level_set = tmp_path / "set.json"
    level_set.write_bytes(bom + b'{"levels": [{"id": "1", "ascii": "__________\\n_........_\\n__________"}]}')
    code, out, err = run(capsys, "show", level_set, "--id", "1")
    assert code == 0, err
    (folder / "tiles.txt").write_bytes(bom + b"b Baba\xff\n")
    code, out, err = run(capsys, "show", folder)
    assert_one_line_error(code, out, err)
    assert "tiles.txt:1:7: not UTF-8 text" in err, err


def test_an_error_quoting_a_huge_input_is_cut_short_and_says_so(capsys, repo_root, tmp_path):
    folder = level_folder(repo_root, tmp_path / "00")
    (folder / "tiles.txt").write_text("b " + "Z" * 1_000_000 + "\n", encoding="utf-8")
    code, out, err = run(capsys, "show", folder)
    assert_one_line_error(code, out, err)
    assert len(err) < 1200 and "characters left out" in err and "tiles.txt:1:" in err


@pytest.mark.parametrize("argv", [["show", ""], ["bench", ""], ["solve", ""], ["check", ""],
                                  ["show", "{level}", "--png", ""], ["bench", "{level}", "--report", ""]])
def test_an_empty_path_is_a_usage_error_not_the_current_folder(capsys, repo_root, tmp_path, argv):
    folder = level_folder(repo_root, tmp_path / "00")
    code, out, err = run(capsys, *[a.replace("{level}", str(folder)) for a in argv])
    assert_one_line_error(code, out, err)
    assert "expected a path, got an empty string" in err


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full, a device where every write fails")
@pytest.mark.parametrize("argv", [("show", "LEVEL"), ("show", "LEVEL", "--json"), ("check", "LEVEL", "rrrr"),
                                  ("bench", "LEVEL"), ("--help",), ("--version",), ("solve", "--help")])
def test_a_full_standard_output_is_named(repo_root, tmp_path, argv):
    """`> /dev/full`: the error names standard output, where it said only
    "[Errno 28] No space left on device". argparse dropped the error of
    --help and --version, which exited 0 having printed nothing."""
    folder = tmp_path / "00"
    shutil.copytree(repo_root / "levels" / "00", folder)
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "babasolver", *(folder if a == "LEVEL" else a for a in argv)],
                              stdout=full, stderr=subprocess.PIPE, text=True, timeout=60,
                              env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert done.returncode == 2, done.stderr
    assert done.stderr == "baba: error: standard output: No space left on device\n"


def _baba_with(argv, stdout, env=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "babasolver", *map(str, argv)], stdout=stdout,
                          stderr=subprocess.PIPE, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), **(env or {})})


@pytest.mark.parametrize("argv", [("solve", "LEVEL"), ("solve", "LEVEL", "--json"), ("check", "LEVEL", "rrrr"),
                                  ("show", "LEVEL", "--json"), ("bench", "LEVEL", "--report", "REPORT")])
def test_a_closed_standard_output_is_an_error_and_the_files_are_written(repo_root, tmp_path, argv):
    """`>&-`: solve, check and show exited 0 having printed nothing, bench
    and show --json failed on an AttributeError, and bench lost its report.
    Now the output fails as a shell's does, after the files are written."""
    folder = tmp_path / "00"
    shutil.copytree(repo_root / "levels" / "00", folder)
    (folder / "solution.txt").unlink()
    report = tmp_path / "r.json"
    argv = [folder if a == "LEVEL" else report if a == "REPORT" else a for a in argv]
    done = subprocess.run([sys.executable, "-m", "babasolver", *map(str, argv)], stderr=subprocess.PIPE, text=True,
                          preexec_fn=lambda: os.close(1),         # Python then starts with sys.stdout None
                          timeout=120, env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert done.stderr.endswith("baba: error: standard output: Bad file descriptor\n"), done.stderr
    assert done.returncode == 2 and "Traceback" not in done.stderr
    if argv[0] == "bench":
        assert json.loads(report.read_text(encoding="utf-8"))["levels"]


def test_bench_writes_its_report_when_its_reader_goes_away(repo_root, tmp_path):
    """`bench --report r.json | true` exited 1 having written nothing: the
    table came first, and its broken pipe stopped the command."""
    folder = tmp_path / "set" / "00"
    shutil.copytree(repo_root / "levels" / "00", folder)
    report = tmp_path / "r.json"
    reader, writer = os.pipe()
    os.close(reader)
    with os.fdopen(writer, "w") as gone:
        done = _baba_with(("bench", folder.parent, "--report", report, "--replays", tmp_path / "rp"), gone)
    assert done.returncode == 1 and done.stderr == "", done.stderr
    assert json.loads(report.read_text(encoding="utf-8"))["levels"]
    assert (tmp_path / "rp" / "index.html").is_file()


@pytest.mark.parametrize("encoding", ["ascii", "latin-1"])
def test_json_is_utf_8_whatever_the_output_encoding(repo_root, tmp_path, encoding):
    """Under PYTHONIOENCODING=ascii a level name came out as "\\xe9", which
    is not JSON."""
    folder = tmp_path / "é😀"
    shutil.copytree(repo_root / "levels" / "00", folder)
    done = subprocess.run([sys.executable, "-m", "babasolver", "check", str(folder), "rrrr", "--json"],
                          capture_output=True,
                          timeout=120, env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path),
                                            "PYTHONIOENCODING": encoding})
    assert done.returncode == 1, done.stderr       # four moves do not win
    assert json.loads(done.stdout.decode("utf-8"))["level"] == "é😀"


def test_a_gif_wider_than_the_format_allows_is_refused_in_one_line(capsys, tmp_path):
    folder = tmp_path / "wide"
    folder.mkdir()
    (folder / "tiles.txt").write_text("b baba\nB baba text\n1 is text\n2 you text\nf flag\nF flag text\n"
                                      "3 win text\n. empty\n", encoding="utf-8")
    (folder / "content.txt").write_text("B12F13b" + "." * 2800 + "f\n", encoding="utf-8")
    code, out, err = run(capsys, "show", folder, "--gif", tmp_path / "wide.gif")
    assert code == 2 and err.count("\n") == 1, err
    assert "a GIF is at most 65,535 pixels a side" in err
    assert not (tmp_path / "wide.gif").exists()


def test_a_usage_error_with_stderr_closed_stays_off_stdout(repo_root):
    # `2>&-`: print(file=None) wrote the usage error on stdout, amid --json.
    done = subprocess.run([sys.executable, "-m", "babasolver", "show", str(repo_root / "levels" / "00"), "--json",
                           "--rules", "nope"], stdout=subprocess.PIPE, text=True, timeout=60,
                          preexec_fn=lambda: os.close(2), env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert done.returncode == 2 and done.stdout == ""
