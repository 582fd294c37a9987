"""`baba show LEVEL SOLUTION`: static frames, JSON records and the terminal animation."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from babasolver import cli
from babasolver.cli import show as cli_show
from babasolver.level import load_level
from util import run_cli as run, assert_one_line_error

FACINGS = {"none", "up", "down", "left", "right"}
ACTIONS = {"up", "down", "left", "right", "wait"}
RULES_00 = ["baba is you", "flag is win", "wall is stop", "rock is push"]




def frames(out: str):
    """The frames of static output, as lists of lines, and the closing line."""
    blocks = out.rstrip("\n").split("\n\n")
    return [block.split("\n") for block in blocks[:-1]], blocks[-1]


@pytest.fixture
def level00(repo_root):
    return repo_root / "levels" / "00"


def test_show_frames(capsys, level00):
    code, out, err = run(capsys, "show", level00, "rrrrrrrr", "--frames")
    assert code == 0
    assert err == ""
    shown, summary = frames(out)
    assert summary == "wins at step 8 of 8"
    assert len(shown) == 9
    first, last = shown[0], shown[-1]
    assert first[0] == "step 0 of 8: start"
    assert first[1:10][4] == ".b...r...f."
    assert first[10] == "rules: " + ", ".join(RULES_00)
    assert shown[1][0] == "step 1 of 8: right"
    assert shown[1][5] == "..b..r...f."
    assert last[0] == "step 8 of 8: right  (won)"
    # Baba (YOU) stands on the flag: it is drawn over it; the rock was pushed on
    assert last[5] == ".........br"
    assert all(len(frame) == 11 for frame in shown)  # header, 9 rows, rules


def test_show_without_terminal_is_static(capsys, level00):
    """stdout is not a terminal under capsys: no animation, the same frames."""
    code, out, _ = run(capsys, "show", level00, "8→")
    assert code == 0
    assert "\x1b[" not in out
    _, frames_out, _ = run(capsys, "show", level00, "8→", "--frames")
    assert out == frames_out


def test_show_frames_stop_at_first_win(capsys, level00):
    code, out, _ = run(capsys, "show", level00, "10r", "--frames")
    assert code == 0
    shown, summary = frames(out)
    assert len(shown) == 9
    assert shown[-1][0] == "step 8 of 10: right  (won)"
    assert summary == "wins at step 8 of 10"


def test_show_frames_not_winning(capsys, level00):
    code, out, _ = run(capsys, "show", level00, "ll", "--frames")
    assert code == 1
    shown, summary = frames(out)
    assert [f[0] for f in shown] == ["step 0 of 2: start", "step 1 of 2: left", "step 2 of 2: left"]
    assert summary == "does not win (2 steps played; dead: no)"


@pytest.mark.parametrize("extra", [["--frames", "--json"], ["--json"]])
def test_show_json(capsys, level00, extra):
    code, out, err = run(capsys, "show", level00, "rrrrrrrr", *extra)
    assert code == 0
    assert err == ""
    records = json.loads(out)
    assert isinstance(records, list)
    assert [r["step"] for r in records] == list(range(9))
    for r in records:
        assert set(r) == {"rule_set", "step", "action", "objects", "texts", "rules", "won", "dead", "illegal"}
        assert r["rules"] == RULES_00
        assert r["dead"] is False and r["illegal"] is None
        for obj in r["objects"]:
            assert set(obj) == {"tile", "x", "y", "facing", "hidden"}
            assert obj["facing"] in FACINGS
            assert 0 <= obj["x"] < 11 and 0 <= obj["y"] < 9
        for text in r["texts"]:
            assert set(text) == {"tile", "x", "y", "hidden"}
            assert text["tile"].endswith(" text") and text["hidden"] is False
    first, last = records[0], records[-1]
    assert first["action"] is None
    assert all(r["action"] in ACTIONS for r in records[1:])
    assert first["won"] is False
    assert last["won"] is True
    assert [r["won"] for r in records[:-1]] == [False] * 8
    babas = [[o for o in r["objects"] if o["tile"] == "Baba"] for r in records]
    assert babas[0] == [{"tile": "Baba", "x": 1, "y": 4, "facing": "none", "hidden": False}]
    assert babas[-1] == [{"tile": "Baba", "x": 9, "y": 4, "facing": "right", "hidden": False}]
    texts = {(o["tile"], o["x"], o["y"]) for o in first["texts"]}
    assert ("Baba text", 0, 0) in texts and ("you text", 2, 0) in texts


def test_show_json_stops_at_first_win(capsys, level00):
    code, out, _ = run(capsys, "show", level00, "rrrrrrrrrrrr", "--json")
    assert code == 0
    records = json.loads(out)
    assert len(records) == 9
    assert records[-1]["won"] is True


def test_show_json_without_solution(capsys, level00):
    code, out, _ = run(capsys, "show", level00, "--json")
    assert code == 0
    records = json.loads(out)
    assert len(records) == 1
    assert records[0]["step"] == 0 and records[0]["action"] is None


def test_show_keke_level_replay(capsys, keke_sets):
    """The stored solution of test set level 1, with the border drawn as '_'."""
    code, out, _ = run(capsys, "show", keke_sets["test"], "--id", "1", "--frames")
    stored = [line for line in out.splitlines() if line.startswith("stored solution")][0]
    solution = stored.split(": ", 1)[1]
    code, out, _ = run(capsys, "show", keke_sets["test"], "--id", "1", solution, "--frames")
    assert code == 0
    shown, summary = frames(out)
    assert summary.startswith("wins at step ")
    assert shown[0][1] == "__________"
    assert shown[0][7] == "_F.wwwww._"


def test_show_animation(capsys, monkeypatch, level00):
    """On a terminal: clear the screen and redraw each step, pausing --delay between."""
    pauses = []
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True, raising=False)
    monkeypatch.setattr(cli_show.time, "sleep", pauses.append)
    code = cli.main(["show", str(level00), "rrrrrrrr", "--delay", "0.1"])
    out, _ = capsys.readouterr()
    assert code == 0
    assert out.count("\x1b[H\x1b[2J") == 9
    assert pauses == [0.1] * 8
    assert "step 8 of 8: right  (won)" in out
    assert out.rstrip("\n").endswith("wins at step 8 of 8")


def test_show_frames_on_terminal_do_not_animate(capsys, monkeypatch, level00):
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True, raising=False)
    monkeypatch.setattr(cli_show.time, "sleep", lambda s: pytest.fail("slept"))
    code, out, _ = run(capsys, "show", level00, "rr", "--frames")
    assert code == 1            # two steps do not win
    assert "\x1b[" not in out


def test_show_replay_subprocess(level00):
    proc = subprocess.run(
        [sys.executable, "-m", "babasolver", "show", str(level00), "8→", "--frames", "--json"],
        capture_output=True, text=True, encoding="utf-8",
    )
    assert proc.returncode == 0, proc.stderr
    records = json.loads(proc.stdout)
    assert records[0]["action"] is None
    assert records[-1]["won"] is True


# ---- bad input


def test_show_bad_letter(capsys, level00):
    code, out, err = run(capsys, "show", level00, "rrrzr", "--frames")
    assert_one_line_error(code, out, err)
    assert "'z' at position 4" in err
    assert out == ""


def test_show_negative_delay(capsys, level00):
    code, out, err = run(capsys, "show", level00, "rr", "--delay", "-1")
    assert_one_line_error(code, out, err)
    assert "--delay" in err


def test_show_replay_missing_path(capsys, tmp_path):
    code, out, err = run(capsys, "show", tmp_path / "nowhere", "rr", "--json")
    assert_one_line_error(code, out, err)
    assert out == ""


def test_show_replay_unknown_id(capsys, keke_sets):
    code, out, err = run(capsys, "show", keke_sets["demo"], "--id", "nope", "rr")
    assert_one_line_error(code, out, err)
    assert "no level with id 'nope'" in err


# --------------------------------------------------------------------------
# Replays stream (issue 24, root cause 5): show holds one frame at a time,
# and a GIF or a page that would pass its stated size is refused in one line.


class _Null:
    def write(self, text):
        return len(text)

    def flush(self):
        pass

    def isatty(self):
        return False


@pytest.mark.parametrize("mode", [["--json"], ["--frames"]])
def test_a_long_replay_is_printed_a_frame_at_a_time(monkeypatch, level00, mode):
    import tracemalloc

    monkeypatch.setattr(sys, "stdout", _Null())
    tracemalloc.start()
    try:
        code = cli.main(["show", str(level00), "3000↑", *mode])
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert code == 1            # it does not win
    # Every frame kept would be some 10 MB (3,000 frames of 30 objects and 12 texts).
    assert peak < 3_000_000, peak


def test_the_frames_of_a_stream_are_the_frames_of_a_replay(level00):
    from babasolver.app.replaying import FrameStream
    from babasolver.game import replay
    from babasolver.notation import parse_solution

    for keke in ("", "rrsuudrrrrrr", "rrrrrrrrrrrr", "uuuuuuuuu"):
        actions = parse_solution(keke)
        kept = replay(load_level(level00), actions, keep_frames=True)
        stream = FrameStream(load_level(level00), actions)
        assert list(stream) == kept.frames and len(stream) == len(kept.frames)
        assert [stream.frame(k) for k in range(len(stream))] == kept.frames
        assert stream.result.summary(len(actions)) == kept.summary(len(actions))


@pytest.mark.parametrize("option, name, message", [
    ("--gif", "o.gif", "would pass the 134,217,728 pixels a GIF may hold"),
    ("--html", "o.html", "the replay page would pass 64 MiB"),
])
def test_a_picture_past_its_size_is_refused_in_one_line(capsys, level00, tmp_path, option, name, message):
    code, out, err = run(capsys, "show", level00, "1000000↑", option, tmp_path / name)
    assert_one_line_error(code, out, err)
    assert message in err and name in err
    assert list(tmp_path.iterdir()) == []
