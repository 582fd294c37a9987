"""Mutated level files: every one loads, or fails with one clean error.

Seeded, so a failure reproduces. Thousands of mutations go through the
loaders; a sample goes through the `baba` entry point, which must answer
with an exit status and, for bad input, one `baba: error:` line.
"""
from __future__ import annotations

import json
import random

import pytest

from babasolver import cli
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
        message.encode("utf-8", "backslashreplace")
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
