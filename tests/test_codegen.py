"""Tests of tiles.json validation and of the files codegen renders from it."""
import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

import codegen  # noqa: E402

REGENERATE = "python -m codegen"


def small_tiles():
    """A valid little tiles.json content (ids 0..5)."""
    return {
        "empty": {"keke": ".", "word": "empty"},
        "Baba": {"keke": "b", "word": "baba"},
        "Baba text": {"keke": "B", "word": "baba", "text": True, "subject": True,
                      "subjectTarget": "Baba"},
        "is text": {"keke": "1", "word": "is", "text": True},
        "you text": {"keke": "2", "word": "you", "text": True, "definition": True},
        "border": {"keke": "_", "word": "border"},
    }


def dump(path, data):
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return path


def run_cli(*args):
    return subprocess.run(
        [sys.executable, "-m", "codegen", *map(str, args)],
        cwd=REPO, capture_output=True, text=True, timeout=120,
    )


def load_module(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# ---------------------------------------------------------------- validation

def _unknown_field(d):
    d["Baba"]["colour"] = "white"


def _target_missing(d):
    d["Baba text"]["subjectTarget"] = "Bab"


def _target_not_object(d):
    d["Baba text"]["subjectTarget"] = "is text"


def _target_border(d):
    d["Baba text"]["subjectTarget"] = "border"


def _duplicate_keke(d):
    d["you text"]["keke"] = "b"


def _missing_field(d):
    del d["is text"]["word"]


def _ill_typed(d):
    d["is text"]["text"] = "yes"


def _empty_not_first(d):
    empty = d.pop("empty")
    d.clear()
    d.update({"Baba": {"keke": "b", "word": "baba"}, "empty": empty})


def _subject_without_target(d):
    del d["Baba text"]["subjectTarget"]


def _bad_keke(d):
    d["Baba"]["keke"] = "bb"


def _ident_clash(d):
    d["BABA"] = {"keke": "x", "word": "baba"}


VALIDATION_CASES = {
    "unknown field": (_unknown_field, "Baba", ['unknown field "colour"']),
    "subjectTarget names no tile": (_target_missing, "Baba text", ['"Bab"', "names no tile"]),
    "subjectTarget is a text": (_target_not_object, "Baba text", ['"is text"', "not an object"]),
    "subjectTarget is border": (_target_border, "Baba text", ['"border"', "not an object"]),
    "duplicate keke char": (_duplicate_keke, "you text",
                            ['Keke character "b"', 'already used by "Baba"']),
    "missing field": (_missing_field, "is text", ['missing field "word"']),
    "ill-typed field": (_ill_typed, "is text", ['field "text" must be a boolean']),
    "empty not first": (_empty_not_first, "Baba", ['first tile must be "empty"']),
    "subject without target": (_subject_without_target, "Baba text", ['"subjectTarget"']),
    "keke not one char": (_bad_keke, "Baba", ['"keke" must be one visible character']),
    "identifier clash": (_ident_clash, "BABA", ["BABA", 'clashes with tile "Baba"']),
}


def _expect_error(path, tile, fragments):
    with pytest.raises(codegen.TilesError) as info:
        codegen.load_tiles(path)
    message = str(info.value)
    assert "\n" not in message
    assert f'tile "{tile}"' in message, message
    for fragment in fragments:
        assert fragment in message, message
    return message


def test_small_tiles_are_valid(tmp_path):
    tiles = codegen.load_tiles(dump(tmp_path / "tiles.json", small_tiles()))
    assert [t.name for t in tiles] == list(small_tiles())
    assert [t.id for t in tiles] == list(range(6))
    assert [t.is_object for t in tiles] == [False, True, False, False, False, False]


@pytest.mark.parametrize("case", sorted(VALIDATION_CASES))
def test_validation_error(tmp_path, case):
    mutate, tile, fragments = VALIDATION_CASES[case]
    data = small_tiles()
    mutate(data)
    _expect_error(dump(tmp_path / "tiles.json", data), tile, fragments)


def _raw_tiles_with_duplicate_name():
    text = json.dumps(small_tiles(), indent=2)
    # a second "Baba" entry, which json.loads would silently merge
    return text.replace('"border":', '"Baba": {"keke": "x", "word": "baba"},\n  "border":')


def test_duplicate_tile_name(tmp_path):
    path = tmp_path / "tiles.json"
    path.write_text(_raw_tiles_with_duplicate_name(), encoding="utf-8")
    _expect_error(path, "Baba", ["duplicate tile name"])


def test_duplicate_field(tmp_path):
    path = tmp_path / "tiles.json"
    text = json.dumps(small_tiles(), indent=2)
    path.write_text(text.replace('"word": "baba"', '"word": "baba", "word": "b"', 1),
                    encoding="utf-8")
    _expect_error(path, "Baba", ['field "word" given twice'])


def _many_tiles(count):
    data = {"empty": {"keke": ".", "word": "empty"},
            "is text": {"keke": "1", "word": "is", "text": True},
            "border": {"keke": "_", "word": "border"}}
    for i in range(3, count):
        data[f"thing{i}"] = {"keke": chr(0x4E00 + i), "word": f"thing{i}"}
    return data


def test_the_most_tiles_fit(tmp_path):
    tiles = codegen.load_tiles(dump(tmp_path / "tiles.json", _many_tiles(codegen.MAX_TILES)))
    assert tiles[-1].id == codegen.MAX_TILES - 1 >= 999


def test_one_tile_past_the_capacity_names_the_limit(tmp_path):
    last = codegen.MAX_TILES
    message = _expect_error(dump(tmp_path / "tiles.json", _many_tiles(last + 1)),
                            f"thing{last}", [f"id {last}", f"at most {last} tiles"])
    assert message.startswith(str(tmp_path))


@pytest.mark.parametrize("missing, words", [
    ("border", ['needs exactly one "border" tile, found 0']),
    ("is text", ['needs exactly one "is text" tile, found 0']),
])
def test_the_tiles_the_engine_names_are_required(tmp_path, missing, words):
    data = small_tiles()
    del data[missing]
    path = dump(tmp_path / "tiles.json", data)
    with pytest.raises(codegen.TilesError) as caught:
        codegen.load_tiles(path)
    assert all(w in str(caught.value) for w in words), str(caught.value)


def test_a_text_the_generator_does_not_understand_is_refused(tmp_path):
    data = small_tiles()
    data["and text"] = {"keke": "&", "word": "and", "text": True}
    message = _expect_error(dump(tmp_path / "tiles.json", data), "and text",
                            ['neither "subject" nor "definition"', '"is"', '"and"'])
    assert message.startswith(str(tmp_path))


def test_invalid_json(tmp_path):
    path = tmp_path / "tiles.json"
    path.write_text('{"empty": {"keke": ".",}}', encoding="utf-8")
    with pytest.raises(codegen.TilesError, match="invalid JSON"):
        codegen.load_tiles(path)


def test_cli_refuses_invalid_tiles(tmp_path):
    data = small_tiles()
    _unknown_field(data)
    path = dump(tmp_path / "tiles.json", data)
    out = tmp_path / "out"
    result = run_cli("--tiles", path, "--out", out)
    assert result.returncode == 2, result
    assert "Traceback" not in result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert 'tile "Baba"' in lines[0] and 'unknown field "colour"' in lines[0]
    assert result.stdout == ""
    assert not out.exists() or not any(out.iterdir())


def test_cli_refuses_duplicate_name(tmp_path):
    path = tmp_path / "tiles.json"
    path.write_text(_raw_tiles_with_duplicate_name(), encoding="utf-8")
    result = run_cli("--tiles", path, "--out", tmp_path / "out")
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert len(result.stderr.splitlines()) == 1
    assert 'tile "Baba": duplicate tile name' in result.stderr


# ----------------------------------------------------------------- freshness

def test_committed_outputs_are_fresh():
    rendered = codegen.render(codegen.load_tiles(REPO / "tiles.json"))
    stale = []
    for name, text in rendered.items():
        path = REPO / "engine" / "babasolver" / name
        if not path.exists() or path.read_bytes() != text.encode("utf-8"):
            stale.append(f"engine/babasolver/{name}")
    assert not stale, (
        f"generated files are out of date with tiles.json: {', '.join(stale)}; "
        f"run: {REGENERATE}"
    )


def test_check_option(tmp_path):
    out = tmp_path / "out"
    assert run_cli("--out", out).returncode == 0
    result = run_cli("--check", "--out", out)
    assert result.returncode == 0, result.stderr
    (out / "tiles.py").write_text("# edited by hand\n", encoding="utf-8")
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    result = run_cli("--check", "--out", out)
    assert result.returncode == 1
    assert "tiles.py" in result.stderr and REGENERATE in result.stderr
    assert "_tiles.h" not in result.stderr
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before  # --check writes nothing


# ------------------------------------------------------ content of the outputs

def test_real_tiles_ids():
    tiles = codegen.load_tiles(REPO / "tiles.json")
    names = [t.name for t in tiles]
    objects = ["Baba", "skull", "flag", "floor", "grass", "lava", "rock", "wall",
               "keke", "goop", "love"]
    props = ["you", "win", "stop", "push", "move", "kill", "sink", "hot", "melt"]
    assert names == (["empty"] + objects + [o + " text" for o in objects] + ["is text"]
                     + [p + " text" for p in props] + ["border"])
    assert len(tiles) == 34
    keke = "".join(t.keke for t in tiles)
    assert keke == ".bsfoalrwkgvBSFOALRWKGV1236574089_"
    assert all(t.word == t.name.split()[0].lower() for t in tiles)


def test_generated_python_matches_tiles():
    tiles = load_module(REPO / "engine" / "babasolver" / "tiles.py", "_generated_tiles_under_test")
    assert (tiles.EMPTY, tiles.BABA, tiles.LOVE, tiles.BABA_TEXT, tiles.IS_TEXT,
            tiles.YOU_TEXT, tiles.MELT_TEXT, tiles.BORDER) == (0, 1, 11, 12, 23, 24, 32, 33)
    assert tiles.N_TILES == 34 == len(tiles.NAMES) == len(tiles.WORDS) == len(tiles.KEKE_CHARS)
    assert tiles.BABA_MASK == 1 << 1 and tiles.BORDER_MASK == 1 << 33
    assert tiles.OBJECT_MASK == sum(1 << i for i in range(1, 12))
    assert tiles.NOUN_TEXT_MASK == sum(1 << i for i in range(12, 23))
    assert tiles.PROPERTY_TEXT_MASK == sum(1 << i for i in range(24, 33))
    assert tiles.TEXT_MASK == sum(1 << i for i in range(12, 33))
    assert tiles.PROPERTY_TILES == tuple(range(24, 33))
    assert tiles.NOUN_TARGET[tiles.ROCK_TEXT] == tiles.ROCK
    assert tiles.OBJECT_TEXT[tiles.BABA] == tiles.BABA_TEXT
    assert tiles.BY_NAME["win text"] == tiles.WIN_TEXT
    assert tiles.BY_KEKE_CHAR["0"] == tiles.SINK_TEXT
    assert " ".join(tiles.WORDS[i] for i in (tiles.BABA_TEXT, tiles.IS_TEXT, tiles.YOU_TEXT)) \
        == "baba is you"
    for text in codegen.render(codegen.load_tiles(REPO / "tiles.json")).values():
        assert codegen.BANNER in text.splitlines()[0]


def test_header_compiles(tmp_path):
    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if cc is None:
        pytest.skip("no C compiler")
    src = tmp_path / "check.c"
    src.write_text(
        '#include "_tiles.h"\n'
        "_Static_assert(N_TILES == 34, \"n\");\n"
        "_Static_assert(T_BORDER == 33 && T_IS_TEXT == 23, \"ids\");\n"
        "_Static_assert(TILE_WORDS == 1 && KIND_BORDER == 5, \"kinds\");\n"
        "int main(void) { return NOUN_TARGET[T_BABA_TEXT] == T_BABA"
        " && OBJECT_TEXT[T_BABA] == T_BABA_TEXT && TILE_KIND[T_BABA] == KIND_OBJECT"
        " && TILE_KIND[T_IS_TEXT] == KIND_OPERATOR_TEXT && TILE_KIND[T_MELT_TEXT] == KIND_PROPERTY_TEXT"
        " && TILE_KIND[T_LOVE_TEXT] == KIND_NOUN_TEXT && TILE_KIND[T_EMPTY] == KIND_EMPTY ? 0 : 1; }\n",
        encoding="utf-8",
    )
    exe = tmp_path / "check"
    build = subprocess.run(
        [cc, "-std=c11", "-Wall", "-Wextra", "-Werror", "-I", str(REPO / "engine" / "babasolver"),
         str(src), "-o", str(exe)],
        capture_output=True, text=True,
    )
    assert build.returncode == 0, build.stderr
    assert subprocess.run([str(exe)]).returncode == 0


def _with_bone(tmp_path):
    data = json.loads((REPO / "tiles.json").read_text(encoding="utf-8"))
    data["bone"] = {"keke": "n", "word": "bone"}
    data["bone text"] = {"keke": "N", "word": "bone", "text": True, "subject": True,
                         "subjectTarget": "bone"}
    return dump(tmp_path / "tiles.json", data)


def test_new_tile_appears_everywhere(tmp_path):
    out = tmp_path / "engine"
    result = run_cli("--tiles", _with_bone(tmp_path), "--out", out)
    assert result.returncode == 0, result.stderr

    header = (out / "_tiles.h").read_text(encoding="utf-8")
    assert "#define N_TILES 36" in header
    assert "T_BONE = 34," in header and "T_BONE_TEXT = 35," in header
    kinds = header.split("TILE_KIND[N_TILES] TILES_UNUSED = {")[1].split("}")[0]
    assert [int(k) for k in kinds.replace(",", " ").split()][34:] == [1, 2]   # object, noun text

    pxd = (out / "_tiles.pxd").read_text(encoding="utf-8")
    assert "        T_BONE\n" in pxd and "        T_BONE_TEXT\n" in pxd
    assert "NOUN_TARGET[36]" in pxd and "OBJECT_TEXT[36]" in pxd and "TILE_KIND[36]" in pxd

    py = (out / "tiles.py").read_text(encoding="utf-8")
    assert "BONE: Final = 34\n" in py and "BONE_TEXT: Final = 35\n" in py
    assert "BONE_MASK: Final = 1 << 34\n" in py
    tiles = load_module(out / "tiles.py", "_generated_bone_tiles")
    assert tiles.N_TILES == 36
    assert tiles.NOUN_TARGET[tiles.BONE_TEXT] == tiles.BONE == 34
    assert tiles.OBJECT_TEXT[tiles.BONE] == tiles.BONE_TEXT == 35
    assert tiles.OBJECT_MASK & tiles.BONE_MASK and tiles.NOUN_TEXT_MASK & tiles.BONE_TEXT_MASK
    assert tiles.BY_KEKE_CHAR["N"] == 35 and tiles.WORDS[35] == "bone"
    assert tiles.BORDER == 33  # existing ids do not move


def test_regeneration_is_byte_identical(tmp_path):
    tiles = codegen.load_tiles(REPO / "tiles.json")
    first, second = tmp_path / "a", tmp_path / "b"
    codegen.write(tiles, first)
    assert run_cli("--out", second).returncode == 0
    names = sorted(p.name for p in first.iterdir())
    assert names == sorted(codegen.OUTPUTS)
    for name in names:
        data = (first / name).read_bytes()
        assert data == (second / name).read_bytes()
        assert data.endswith(b"\n") and not data.endswith(b"\n\n")
    assert codegen.write(tiles, first) == []  # nothing changed, nothing rewritten
    assert codegen.render(tiles) == codegen.render(codegen.load_tiles(REPO / "tiles.json"))
