"""Mutated level files: every one loads, or fails with one clean error;
and hostile command lines: every numeric option in and out of range,
solutions of every shape, special files as inputs and outputs.

Seeded, so a failure reproduces. Thousands of mutations go through the
loaders; a sample goes through the `baba` entry point, which must answer
with an exit status and, for bad input, one `baba: error:` line.
"""
from __future__ import annotations

import json
import os
import random
import unicodedata

import pytest

from babasolver import cli
from babasolver.cli.common import safe
from babasolver.errors import BabaError
from babasolver.app.tasks import load_tasks
from babasolver.level import Level, read_folder, read_keke_set

SET = {"levels": [
    {"id": 1, "name": "one", "author": "me", "ascii": "_______\n_B12.f_\n_b.F13_\n_______", "solution": "rrr"},
    {"id": "two", "name": "two", "ascii": "______\n_b.f._\n______", "solution": ""},
]}
TILES = "b Baba\nB Baba text\nf flag\nF flag text\n. empty\n1 is text\n2 you text\n3 win text\n"
CONTENT = "B12..\nF13..\nb...f\n"

ODD = ["\ud800", "\x07", "\x1b[2J", "\u202e", "é", "9" * 5000, "[" * 3000, "]", "{", "}", '"', "\\",
       ":", ",", "null", "true", "-1", "1e400", "\n", "\t", " ", "\x00", "_", "b", "B", "1", "7", "Z"]


def mutate(text: str, rng: random.Random) -> str:
    for _ in range(rng.randint(1, 4)):
        at = rng.randrange(len(text) + 1)
        kind = rng.randrange(4)
        if kind == 0 and text:
            text = text[:at] + text[at + 1:]
        elif kind == 1:
            text = text[:at] + rng.choice(ODD) + text[at:]
        elif kind == 2 and text:
            end = min(len(text), at + rng.randint(1, 20))
            text = text[:at] + text[end:]
        else:
            text = text[:at] + text[rng.randrange(len(text) + 1):][:rng.randint(0, 30)] + text[at:]
    return text


def loads_or_clean_error(load) -> None:
    try:
        result = load()
    except BabaError as e:
        message = str(e)
        assert message and "\n" not in message
        shown = safe(message)               # as the CLI prints it: no control character, no lone surrogate
        assert not any(unicodedata.category(c) in ("Cc", "Cs") for c in shown), shown
        return
    levels = [entry.level for entry in result] if isinstance(result, list) else [result]
    for level in levels:
        assert isinstance(level, Level) and len(level.grid) == level.width * level.height


def test_mutated_keke_sets_load_or_fail_cleanly(tmp_path):
    rng = random.Random(1)
    base = json.dumps(SET)
    path = tmp_path / "set.json"
    for _ in range(2000):
        path.write_text(mutate(base, rng), encoding="utf-8", errors="surrogatepass")
        loads_or_clean_error(lambda: read_keke_set(path))


def test_mutated_level_folders_load_or_fail_cleanly(tmp_path):
    rng = random.Random(2)
    folder = tmp_path / "level"
    folder.mkdir()
    for _ in range(1500):
        tiles_text, content = TILES, CONTENT
        if rng.random() < 0.5:
            tiles_text = mutate(tiles_text, rng)
        else:
            content = mutate(content, rng)
        (folder / "tiles.txt").write_text(tiles_text, encoding="utf-8", errors="surrogatepass")
        (folder / "content.txt").write_text(content, encoding="utf-8", errors="surrogatepass")
        loads_or_clean_error(lambda: read_folder(folder))


@pytest.mark.parametrize("command", [["check"], ["show"], ["solve", "--timeout", "0.2"]])
def test_mutated_sets_through_the_command_line(capsys, tmp_path, command):
    rng = random.Random(3)
    base = json.dumps(SET)
    path = tmp_path / "set.json"
    for _ in range(60):
        path.write_text(mutate(base, rng), encoding="utf-8", errors="surrogatepass")
        code = cli.main([command[0], str(path), "--id", rng.choice(["1", "two"]), *command[1:]])
        out, err = capsys.readouterr()
        assert code in (0, 1, 2), (code, err)
        assert "Traceback" not in err
        if code == 2:
            assert err.count("\n") == 1 and err.startswith("baba: error: "), err


def test_mutated_sets_through_the_many_level_loader(tmp_path):
    """load_tasks gives a task per level, each with its level or its error."""
    rng = random.Random(4)
    base = json.dumps(SET)
    path = tmp_path / "set.json"
    for _ in range(1000):
        path.write_text(mutate(base, rng), encoding="utf-8", errors="surrogatepass")
        try:
            tasks = load_tasks(path)
        except BabaError as e:
            assert str(e) and "\n" not in str(e)
            continue
        for task in tasks:
            assert (task.level is None) == (task.error is not None)
            assert task.error is None or "\n" not in task.error


@pytest.mark.parametrize("command", [["solve", "--all"], ["bench"]])
def test_mutated_sets_through_the_many_level_commands(capsys, tmp_path, command):
    rng = random.Random(5)
    base = json.dumps(SET)
    path = tmp_path / "set.json"
    for _ in range(30):
        path.write_text(mutate(base, rng), encoding="utf-8", errors="surrogatepass")
        code = cli.main([command[0], str(path), *command[1:], "--timeout", "0.2"])
        out, err = capsys.readouterr()
        assert code in (0, 1, 2), (code, err)
        assert "Traceback" not in err
        for line in err.splitlines():
            assert line.startswith(("baba: error: ", "baba bench: ")), err


def test_mutated_level_folders_through_the_command_line(capsys, tmp_path):
    rng = random.Random(6)
    folder = tmp_path / "level"
    folder.mkdir()
    for k in range(60):
        (folder / "tiles.txt").write_text(mutate(TILES, rng) if k % 2 else TILES, encoding="utf-8",
                                          errors="surrogatepass")
        (folder / "content.txt").write_text(CONTENT if k % 2 else mutate(CONTENT, rng), encoding="utf-8",
                                            errors="surrogatepass")
        command = rng.choice([["show"], ["check", "rrr"], ["solve", "--timeout", "0.2"]])
        code = cli.main([command[0], str(folder), *command[1:]])
        out, err = capsys.readouterr()
        assert code in (0, 1, 2), (code, err)
        assert "Traceback" not in err
        if code == 2:
            assert err.count("\n") == 1 and err.startswith("baba: error: "), err


# --------------------------------------------------------------------------
# Hostile command lines (issue 24): every command with solutions and every
# numeric option drawn from in range, at the bounds and far out of them,
# under either rule set or an unknown one, with the judge or a folder that is
# none (and --judge with --rules baba, refused), over both level formats and
# over special files. Each answers with an exit status and, for bad input,
# one line; no file outside the run's outputs changes, the level folder's
# solution.txt is absent or complete and correct, and a FIFO is neither read
# nor replaced.

HOSTILE_NUMBERS = ["nan", "NaN", "inf", "-inf", "Infinity", "1e300", "-1e300", "1e-300", "0", "-0", "-1", "0.5",
                   "1" * 5000, "9" * 20, "0x10", "1_000", " 5 ", "", "\u0663", "1e400", "2147483648",
                   "9223372036854775808", "-9223372036854775809", "+3", "1e3", "\x00", "5\n", "1e6", "1000001"]
SOLUTION_PARTS = ["r", "l", "u", "d", "s", "R", "→", "←", "↑", "↓", "^", "v", "<", ">", " ", ",", "3r", "12→",
                  "1000000r", "999999l", "0r", "1" * 5000 + "r", "0" * 300 + "2u", "x", "\ud800", "\x1b[2J",
                  "\n", "7", "⇒", "1000000", "rrrrrrrr"]


def in_range(rng: random.Random, option: str) -> str:
    """A value the option accepts (kept small where a large one costs time)."""
    from babasolver.app import limits

    if option == "--timeout":
        return rng.choice([f"{rng.uniform(0.05, 1):.3f}", "1e6", "2"])
    if option == "--max-states":
        return rng.choice([str(rng.randint(1, 10**6)), "67108862", "2e7", "20_000_000"])
    if option == "--threads":
        return str(rng.randint(1, limits.max_threads()))
    if option == "--jobs":
        return rng.choice(["1", "1", "1", "0", str(limits.max_threads())])
    if option == "--memory-limit":
        return rng.choice(["0.25", f"{limits.max_gigabytes():.3f}", "1"])
    if option == "--memory":
        return rng.choice(["0.01", "0.5", f"{limits.max_gigabytes():.3f}"])
    if option == "--delay":
        return rng.choice(["0", "0.01", "60"])
    if option == "--step":
        return rng.choice(["0", "1", "3", "8", "1000000"])
    raise AssertionError(option)


NUMERIC = {
    "solve": ["--timeout", "--max-states", "--threads", "--memory"],
    "bench": ["--timeout", "--max-states", "--threads", "--jobs", "--memory-limit", "--memory"],
    "show": ["--delay", "--step"],
    "check": [],
}

#: --rules: the two rule sets, and names argparse must refuse in one line.
RULES = ["keke", "baba", "", "chess", "KEKE", "keke ", "\ud800"]
#: --judge takes the folder of the Keke judge (simulation.js); only with --rules keke.
JUDGE_COMMANDS = ("check", "bench")


def judge_folder(rng: random.Random, places: dict) -> str:
    """The judge's folder (when this machine has it), or one that is no judge."""
    return rng.choice([places["judge"], places["judge"], places["judge"], places["missing"], places["file"],
                       places["fifo"], places["out"], ""])


def hostile_command(rng: random.Random, places: dict) -> list:
    """One command line: a command, a level (folder, set, FIFO, missing),
    a solution, outputs, and numeric options in and out of range."""
    command = rng.choice(["solve", "solve", "check", "show", "show", "bench"])
    level = rng.choice(["folder", "folder", "set", "set", "fifo", "missing", "file"])
    argv = [command, places[level]]
    if level == "set" and rng.random() < 0.8 and command != "bench":
        argv += ["--id", rng.choice(["1", "two", "7", "1" * 5000, "\ud800"])]
    if command in ("check", "show") and rng.random() < 0.8:
        argv.append("".join(rng.choice(SOLUTION_PARTS) for _ in range(rng.randint(0, 6))))
    if command == "show":
        for option, name in (("--png", "o.png"), ("--gif", "o.gif"), ("--html", "o.html")):
            if rng.random() < 0.2:
                argv += [option, rng.choice([places["out"] / name, places["out"] / name, places["fifo_out"]])]
        if rng.random() < 0.2:
            argv.append(rng.choice(["--json", "--frames"]))
    if command == "bench":
        if rng.random() < 0.2:
            argv += ["--report", rng.choice([places["out"] / "r.json", places["fifo_out"]])]
        if rng.random() < 0.2:
            argv += ["--replays", rng.choice([places["out"] / "replays", places["fifo_out"]])]
    if command == "solve" and rng.random() < 0.3:
        argv.append("--all")
    if command in ("solve", "bench") and rng.random() < 0.3:
        argv += ["--mode", rng.choice(["both", "fast", "shortest", "quick", ""])]
    if rng.random() < 0.4:
        argv += ["--rules", rng.choice(RULES)]
    if command in JUDGE_COMMANDS and rng.random() < 0.25:
        argv += ["--judge", judge_folder(rng, places)]
        if rng.random() < 0.4:
            argv += ["--rules", "baba"]           # the judge plays the keke rules only: refused
    for option in NUMERIC[command]:
        if rng.random() < 0.4:
            value = in_range(rng, option) if rng.random() < 0.5 else rng.choice(HOSTILE_NUMBERS)
            argv += [option, value]
    if command in ("solve", "bench") and "--timeout" not in argv:
        argv += ["--timeout", "2"]
    if command == "bench" and rng.random() < 0.7 and ("--jobs" in argv or "--memory-limit" in argv):
        # Worker processes take a second to start: most such runs go in process.
        for option in ("--jobs", "--memory-limit"):
            if option in argv:
                at = argv.index(option)
                del argv[at:at + 2]
    return [str(a) for a in argv]


def make_places(root) -> dict:
    import shutil
    from pathlib import Path

    repo = Path(__file__).resolve().parent.parent
    judge = repo.parent / "shared" / "keke-reference"        # absent: a folder that is no judge
    (root / "out").mkdir()
    shutil.copytree(repo / "levels" / "00", root / "levels" / "00")
    level_set = root / "set.json"
    level_set.write_text(json.dumps(SET), encoding="utf-8")
    os.mkfifo(root / "in.json")
    os.mkfifo(root / "out.fifo")
    (root / "notes.txt").write_text("not a level\n", encoding="utf-8")
    inputs = [root / "levels" / "00" / "tiles.txt", root / "levels" / "00" / "content.txt", level_set,
              root / "notes.txt"]
    return {"folder": root / "levels" / "00", "set": level_set, "fifo": root / "in.json",
            "missing": root / "nowhere", "file": root / "notes.txt", "out": root / "out",
            "fifo_out": root / "out.fifo", "judge": judge,
            "inputs": {path: path.read_bytes() for path in inputs}}


#: levels/00's shortest solution, as solve writes it under either rule set.
SOLUTION_00 = "8\u2192\n"


def check_answer(argv: list, code: int, err: str, root, places: dict) -> None:
    assert code in (0, 1, 2), (argv, code, err)
    assert "Traceback" not in err, (argv, err)
    for line in err.splitlines():
        assert line.startswith(("baba: error: ", "baba bench: ")), (argv, err)
    if code == 2:
        assert err.startswith("baba: error: "), (argv, err)
    assert (root / "in.json").is_fifo() and (root / "out.fifo").is_fifo(), argv
    leftovers = [p for p in root.rglob("*.tmp")]
    assert not leftovers, (argv, leftovers)
    for path, data in places["inputs"].items():                  # inputs are only read
        assert path.is_file() and path.read_bytes() == data, (argv, path)
    solution = places["folder"] / "solution.txt"                 # absent, or complete and correct
    if solution.exists() or solution.is_symlink():
        assert solution.is_file() and solution.read_text(encoding="utf-8") == SOLUTION_00, \
            (argv, solution.read_bytes() if solution.is_file() else "not a regular file")


#: A longer campaign runs the same test: BABA_FUZZ_CASES=5000 BABA_FUZZ_SEED=7 pytest -k hostile
FUZZ_CASES = int(os.environ.get("BABA_FUZZ_CASES", "300"))
FUZZ_SEED = int(os.environ.get("BABA_FUZZ_SEED", "24"))


def test_hostile_command_lines(capsys, tmp_path):
    rng = random.Random(FUZZ_SEED)
    places = make_places(tmp_path)
    for _ in range(FUZZ_CASES):
        argv = hostile_command(rng, places)
        code = cli.main(argv)
        _, err = capsys.readouterr()
        check_answer(argv, code, err, tmp_path, places)
