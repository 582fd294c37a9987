"""Pictures of a replay: PNG, GIF and HTML, and their command-line options."""
from __future__ import annotations

import builtins
import json
import re

import pytest

from babasolver import cli, render
from babasolver.game import replay
from babasolver.level import load_level
from babasolver.notation import parse_solution

from util import run_cli as run, assert_one_line_error

Image = pytest.importorskip("PIL.Image", reason="Pillow is absent: pip install '.[render]'")


@pytest.fixture
def level00(repo_root):
    return load_level(repo_root / "levels" / "00")


def frames_of(level, keke):
    return replay(level, parse_solution(keke), keep_frames=True).frames


def test_png_reads_back_at_the_level_size(level00, tmp_path):
    path = tmp_path / "last.png"
    render.write_png(level00, frames_of(level00, "rrrrrrrr")[-1], path)
    with Image.open(path) as image:
        assert image.format == "PNG"
        assert image.size == (level00.width * render.CELL, level00.height * render.CELL)
        assert len(image.convert("RGB").getcolors(10_000)) > 3     # not blank


def test_gif_has_a_frame_per_turn_and_frames_differ_exactly_when_the_position_does(level00, tmp_path):
    # Turns 3 and 4 push against nothing: "s" waits; "uu" runs into the wall
    # above baba after one step, so turn 5 changes nothing either.
    keke = "rrsuudrrrrrr"
    frames = frames_of(level00, keke)
    path = tmp_path / "replay.gif"
    render.write_gif(level00, frames, path, delay_ms=100, hold_ms=900)
    with Image.open(path) as gif:
        assert gif.n_frames == len(frames) == len(keke) + 1
        pictures, durations = [], []
        for k in range(gif.n_frames):
            gif.seek(k)
            pictures.append(gif.convert("RGB").tobytes())
            durations.append(gif.info["duration"])
    assert durations[-1] == 900 and set(durations[:-1]) == {100}
    for k in range(1, len(frames)):
        changed = (frames[k].objects, frames[k].texts) != (frames[k - 1].objects, frames[k - 1].texts)
        assert (pictures[k] != pictures[k - 1]) == changed, k
    assert any(p == q for p, q in zip(pictures, pictures[1:]))     # some turn changed nothing


def test_html_is_one_self_contained_page_under_a_megabyte(level00, tmp_path):
    frames = frames_of(level00, "rrsuudrrrrrr")
    path = tmp_path / "replay.html"
    render.write_html(level00, frames, path, title="00 <test>")
    page = path.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and "00 &lt;test&gt;" in page
    assert not re.search(r"(src|href)=\"(http|//)", page)           # no network, no external files
    data = json.loads(re.search(r"const LEVEL=.*?, FRAMES=(\[.*?\]), TILES=", page).group(1))
    assert len(data) == len(frames) and data[-1]["w"] is True
    assert len(page.encode()) < 1_000_000


def test_a_hundred_turn_replay_of_a_20_by_20_level_stays_under_a_megabyte(tmp_path):
    from util import make_level

    rows = ["B12" + "." * 17] + ["." * 20 for _ in range(18)] + ["b" + "w." * 9 + "."]
    level = make_level(rows)
    frames = replay(level, [3, 0, 2, 1] * 25, keep_frames=True).frames
    path = tmp_path / "long.html"
    render.write_html(level, frames, path, title="long")
    assert len(frames) == 101 and path.stat().st_size < 1_000_000


def test_missing_pillow_is_one_line_naming_the_extra(monkeypatch, level00, tmp_path):
    real_import = builtins.__import__

    def no_pil(name, *args, **kwargs):
        if name == "PIL" or name.startswith("PIL."):
            raise ImportError("No module named 'PIL'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_pil)
    with pytest.raises(render.RenderError, match=r"pip install 'babasolver\[render\]'"):
        render.write_png(level00, frames_of(level00, "")[0], tmp_path / "x.png")
    assert list(tmp_path.iterdir()) == []


def test_show_writes_png_gif_and_html(capsys, repo_root, tmp_path):
    png, gif, page = tmp_path / "a.png", tmp_path / "a.gif", tmp_path / "a.html"
    code, out, err = run(capsys, "show", repo_root / "levels" / "00", "8r", "--png", png, "--gif", gif,
                         "--html", page)
    assert code == 0 and err == ""
    assert out.strip() == "wins at step 8 of 8"
    assert png.stat().st_size and gif.stat().st_size and page.stat().st_size
    code, _, _ = run(capsys, "show", repo_root / "levels" / "00", "3r", "--png", png, "--step", "1")
    assert code == 1        # the replay does not win
    code, _, _ = run(capsys, "show", repo_root / "levels" / "00", "--png", png)
    assert code == 0        # the level alone


@pytest.mark.parametrize("args, message", [
    (["8r", "--png", "/no/such/folder/a.png"], "cannot write --png: no such folder"),
    (["8r", "--png", "{tmp}/a.png", "--step", "9"], "--step must be between 0 and 8"),
])
def test_show_picture_errors_are_one_line(capsys, repo_root, tmp_path, args, message):
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    code, out, err = run(capsys, "show", repo_root / "levels" / "00", *args)
    assert_one_line_error(code, out, err)
    assert message in err
    assert list(tmp_path.iterdir()) == []


def test_an_unwritable_output_leaves_no_partial_file(capsys, repo_root, tmp_path):
    # The output path is a folder: the write fails at the rename, and the
    # temporary file beside it is removed.
    target = tmp_path / "a.gif"
    target.mkdir()
    code, out, err = run(capsys, "show", repo_root / "levels" / "00", "8r", "--gif", target)
    assert_one_line_error(code, out, err)
    assert [p.name for p in tmp_path.iterdir()] == ["a.gif"] and list(target.iterdir()) == []


def test_bench_replays_write_a_page_per_solved_level_and_an_index(capsys, keke_sets, tmp_path):
    out_dir = tmp_path / "out"
    code = cli.main(["bench", str(keke_sets["demo"]), "--ids", "1,2", "--replays", str(out_dir)])
    capsys.readouterr()
    assert code == 0
    assert sorted(p.name for p in out_dir.iterdir()) == ["1.html", "2.html", "index.html"]
    index = (out_dir / "index.html").read_text(encoding="utf-8")
    assert 'href="1.html"' in index and 'href="2.html"' in index
