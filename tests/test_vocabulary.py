"""tiles.json is the whole vocabulary: nouns added there are played by the
core, end to end.

The repository is copied, two nouns are added to its tiles.json (one among
the nouns, one at the very end of the file) with a property word the judge's
rules do not implement, the tiles are generated again and the package is
built into a folder of its own. That build then solves, plays and refuses
levels that use the new tiles, in a process of its own.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent

NEW_TILES = {
    # "bone" after "love", "bone text" after "love text": ids in the middle of the nouns.
    "middle": [("bone", {"keke": "n", "word": "bone"}),
               ("bone text", {"keke": "N", "word": "bone", "text": True, "subject": True,
                              "subjectTarget": "bone"})],
    # After "border": the very end of the file.
    "end": [("tree", {"keke": "t", "word": "tree"}),
            ("tree text", {"keke": "T", "word": "tree", "text": True, "subject": True,
                           "subjectTarget": "tree"}),
            ("float text", {"keke": "q", "word": "float", "text": True, "definition": True})],
}


def _with_new_tiles(tiles_json: Path) -> None:
    data = json.loads(tiles_json.read_text(encoding="utf-8"))
    out = {}
    for name, spec in data.items():
        out[name] = spec
        if name == "love":
            out.update(NEW_TILES["middle"][:1])
        if name == "love text":
            out.update(NEW_TILES["middle"][1:])
    out.update(NEW_TILES["end"])
    assert list(out).index("bone") < list(out).index("border") < list(out).index("tree")
    tiles_json.write_text(json.dumps(out, indent=2), encoding="utf-8")


@pytest.fixture(scope="module")
def new_build(tmp_path_factory) -> Path:
    """A folder on which `import babasolver` is the build with the new tiles."""
    for module in ("Cython", "jinja2", "setuptools", "wheel"):
        pytest.importorskip(module, reason=f"building the package needs {module} (the test extra has it)")
    root = tmp_path_factory.mktemp("vocabulary")
    copy = root / "repo"
    shutil.copytree(REPO, copy, ignore=shutil.ignore_patterns(
        ".git", ".venv", "build", "dist", "*.egg-info", "*.so", "*.c", "__pycache__", ".hypothesis",
        ".pytest_cache", ".mypy_cache"))
    _with_new_tiles(copy / "tiles.json")
    regenerate = subprocess.run([sys.executable, "-m", "codegen"], cwd=copy, capture_output=True, text=True)
    assert regenerate.returncode == 0, regenerate.stderr
    site = root / "site"
    build = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
         "--target", str(site), str(copy)],
        capture_output=True, text=True)
    assert build.returncode == 0, build.stdout + build.stderr
    return site


def _run(site: Path, args, cwd: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(site))
    return subprocess.run([sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=600)


def _folder(root: Path, name: str, legend: str, rows: str) -> Path:
    folder = root / name
    folder.mkdir()
    (folder / "tiles.txt").write_text(textwrap.dedent(legend).strip() + "\n", encoding="utf-8")
    (folder / "content.txt").write_text(textwrap.dedent(rows).strip("\n") + "\n", encoding="utf-8")
    return folder


LEGEND = """
    n bone
    N bone text
    t tree
    T tree text
    r rock
    R rock text
    f flag
    F flag text
    I is text
    Y you text
    ! win text
    P push text
    K kill text
    S sink text
    q float text
    . empty
"""


def test_the_build_with_new_nouns_knows_them(new_build, tmp_path):
    done = _run(new_build, ["-c", "from babasolver import tiles; print(tiles.N_TILES, tiles.BONE, tiles.TREE_TEXT,"
                                  " tiles.BORDER, tiles.FLOAT_TEXT)"], tmp_path)
    assert done.returncode == 0, done.stderr
    n, bone, tree_text, border, float_text = map(int, done.stdout.split())
    assert (n, bone, tree_text, border, float_text) == (39, 12, 37, 35, 38)


def test_a_new_noun_solves_shortest(new_build, tmp_path):
    level = _folder(tmp_path, "bone", LEGEND, """
        NIY....FI!
        ..........
        .n.......f
    """)
    done = _run(new_build, ["-m", "babasolver", "solve", str(level), "--json", "--mode", "shortest",
                            "--threads", "1"], tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    result = json.loads(done.stdout)
    assert result["status"] == "solved" and result["proven_shortest"]
    assert result["solution"]["keke"] == "rrrrrrrr" and result["rule_set"] == "keke"


PLAY = """
import json, sys
from babasolver import tiles
from babasolver.game import Simulation
from babasolver.level import load_level

level = load_level(sys.argv[1])
sim = Simulation(level)
frames = []
def frame():
    frames.append({"objects": [(tiles.NAMES[t], x, y) for t, x, y, f, h in sim.objects()],
                   "rules": [f"{tiles.WORDS[a]} is {tiles.WORDS[b]}" for a, b in sim.rules()],
                   "dead": sim.dead, "won": sim.won})
frame()
for letter in sys.argv[2]:
    sim.step_keke(letter)
    frame()
print(json.dumps(frames))
"""


def _play(site: Path, folder: Path, moves: str):
    script = folder.parent / "play.py"
    script.write_text(PLAY, encoding="utf-8")
    done = _run(site, [str(script), str(folder), moves], folder.parent)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_a_transformation_into_a_new_noun(new_build, tmp_path):
    level = _folder(tmp_path, "rock_is_bone", LEGEND, """
        TIY.RIN
        .......
        .t..r..
    """)
    frames = _play(new_build, level, "r")
    assert "rock is bone" in frames[0]["rules"] and "tree is you" in frames[0]["rules"]
    # The judge reads the rules once at load, transformations included.
    assert frames[0]["objects"] == [["tree", 1, 2], ["bone", 4, 2]]
    assert frames[1]["objects"] == [["tree", 2, 2], ["bone", 4, 2]]


def test_a_push_of_a_new_noun(new_build, tmp_path):
    level = _folder(tmp_path, "bone_is_push", LEGEND, """
        TIY.NIP
        .......
        .tn....
    """)
    frames = _play(new_build, level, "rr")
    assert [f["objects"] for f in frames] == [
        [["tree", 1, 2], ["bone", 2, 2]], [["tree", 2, 2], ["bone", 3, 2]], [["tree", 3, 2], ["bone", 4, 2]]]


@pytest.mark.parametrize("word", ["S", "K"])
def test_a_destruction_by_a_new_noun(new_build, tmp_path, word):
    level = _folder(tmp_path, "bone_destroys", LEGEND, f"""
        TIY.NI{word}
        .......
        .tn....
    """)
    frames = _play(new_build, level, "r")
    # The judge destroys both objects of a pair, for SINK and for KILL alike.
    assert frames[0]["objects"] == [["tree", 1, 2], ["bone", 2, 2]]
    assert frames[1]["objects"] == [] and frames[1]["dead"]


def test_random_playouts_agree_between_the_core_and_the_reference(new_build, tmp_path):
    script = tmp_path / "playouts.py"
    script.write_text(textwrap.dedent("""
        import random
        from babasolver import tiles
        from babasolver.game import Simulation
        from babasolver.level import Level
        from babasolver.reference import ReferenceSimulation

        rng = random.Random(19)
        nouns = [tiles.BONE, tiles.TREE, tiles.ROCK, tiles.BABA]
        texts = ([tiles.BONE_TEXT, tiles.TREE_TEXT, tiles.ROCK_TEXT, tiles.BABA_TEXT] + [tiles.IS_TEXT] * 3
                 + [tiles.YOU_TEXT, tiles.WIN_TEXT, tiles.PUSH_TEXT, tiles.SINK_TEXT, tiles.KILL_TEXT,
                    tiles.MOVE_TEXT, tiles.STOP_TEXT])
        turns = 0
        for k in range(60):
            w, h = 7, 6
            grid = [tiles.EMPTY] * (w * h)
            cells = rng.sample(range(w * h), 16)
            for i, c in enumerate(cells):
                grid[c] = rng.choice(nouns) if i % 2 else rng.choice(texts)
            # a rule that makes a new noun YOU, along the top row
            grid[0:3] = [rng.choice([tiles.BONE_TEXT, tiles.TREE_TEXT]), tiles.IS_TEXT, tiles.YOU_TEXT]
            level = Level(f"random {k}", w, h, tuple(grid))
            core, ref = Simulation(level), ReferenceSimulation(level)
            for turn in range(40):
                view = lambda s: (s.objects(), s.texts(), s.rules(), s.won, s.dead, s.illegal)
                assert view(core) == view(ref), (k, turn, level.to_text())
                if core.illegal or core.won:
                    break
                action = rng.randrange(5)
                core.step(action)
                ref.step(action)
                turns += 1
        print(turns)
    """), encoding="utf-8")
    done = _run(new_build, [str(script)], tmp_path)
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) > 1000


def test_a_property_the_rules_do_not_implement_is_refused_in_one_line(new_build, tmp_path):
    level = _folder(tmp_path, "floating", LEGEND, """
        NIY.NIq
        .......
        .n.....
    """)
    done = _run(new_build, ["-m", "babasolver", "solve", str(level)], tmp_path)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert f"{level / 'content.txt'}:1:7:" in lines[0]
    assert "'float'" in lines[0] and "keke rules" in lines[0]
    assert "you, win, stop, push, move, kill, sink, hot, melt" in lines[0]
