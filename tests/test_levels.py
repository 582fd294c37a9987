"""Level readers: the seed folder format, Keke JSON sets, load_level."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from babasolver import tiles
from babasolver.errors import BabaError, LevelError
from babasolver.level import (
    KekeLevel,
    Level,
    keke_ids,
    level_from_ascii,
    load_level,
    read_folder,
    read_keke_level,
    read_keke_set,
)
from babasolver.notation import parse_solution

KEKE_SET_SIZES = {"demo": 14, "test": 3, "full_biy": 184}

GOOD_TILES = "b Baba\nB Baba text\n  empty\nI is text\nY you text\nw wall\n"
GOOD_CONTENT = "BIY\n b \nwww\n"


def make_folder(tmp_path: Path, tiles_text=GOOD_TILES, content_text=GOOD_CONTENT, name="lvl") -> Path:
    """A level folder written byte for byte (no newline translation)."""
    folder = tmp_path / name
    folder.mkdir()
    if tiles_text is not None:
        (folder / "tiles.txt").write_bytes(tiles_text.encode("utf-8"))
    if content_text is not None:
        (folder / "content.txt").write_bytes(content_text.encode("utf-8"))
    return folder


def folder_error(tmp_path: Path, **kwargs) -> LevelError:
    folder = make_folder(tmp_path, **kwargs)
    with pytest.raises(LevelError) as info:
        read_folder(folder)
    message = str(info.value)
    assert "\n" not in message
    return info.value


# --------------------------------------------------------------------------
# Level itself


def test_level_helpers():
    level = Level("t", 3, 2, (1, 0, 8, 12, 23, 24))
    assert level.tile_at(0, 0) == tiles.BABA
    assert level.tile_at(2, 0) == tiles.WALL
    assert level.tile_at(1, 1) == tiles.IS_TEXT
    assert level.tile_at(-1, 0) == tiles.BORDER
    assert level.tile_at(3, 0) == tiles.BORDER
    assert level.tile_at(0, 2) == tiles.BORDER
    assert level.rows() == ((1, 0, 8), (12, 23, 24))
    assert level.to_text() == "b.w\nB12"
    assert level.tiles_used() == [0, 1, 8, 12, 23, 24]


def test_level_is_frozen_and_checked():
    level = Level("t", 1, 1, (0,))
    with pytest.raises(Exception):
        level.width = 2  # type: ignore[misc]
    with pytest.raises(ValueError):
        Level("t", 2, 2, (0, 0, 0))
    assert Level("t", 2, 1, [0, 1]).grid == (0, 1)  # lists become tuples


def test_level_from_ascii():
    level = level_from_ascii("_b. \n_B12", "x")
    assert level.name == "x"
    assert (level.width, level.height) == (4, 2)
    assert level.rows() == ((tiles.BORDER, tiles.BABA, tiles.EMPTY, tiles.EMPTY),
                            (tiles.BORDER, tiles.BABA_TEXT, tiles.IS_TEXT, tiles.YOU_TEXT))
    assert level.to_text() == "_b..\n_B12"
    with pytest.raises(LevelError, match=r"row 2, column 3: unknown map character 'x'"):
        level_from_ascii("...\n..x")


# --------------------------------------------------------------------------
# Seed folder format


def test_read_folder_good(tmp_path):
    level = read_folder(make_folder(tmp_path))
    assert level.name == "lvl"
    assert (level.width, level.height) == (3, 3)
    assert level.to_text() == "B12\n.b.\nwww"


def test_read_folder_accepts_str_path(tmp_path):
    assert read_folder(str(make_folder(tmp_path))).width == 3


def test_read_folder_crlf_and_no_trailing_newline(tmp_path):
    crlf = make_folder(tmp_path, GOOD_TILES.replace("\n", "\r\n"), GOOD_CONTENT.replace("\n", "\r\n"), "crlf")
    bare = make_folder(tmp_path, GOOD_TILES.rstrip("\n"), GOOD_CONTENT.rstrip("\n"), "bare")
    expected = read_folder(make_folder(tmp_path, name="plain")).grid
    assert read_folder(crlf).grid == expected
    assert read_folder(bare).grid == expected


def test_read_folder_accepts_lone_cr_line_ends(tmp_path):
    """Old Mac editors end lines with a lone CR, which was read as part of
    a line ("unknown tile name 'Baba\\rB Baba text'"); lines end as
    Python's universal newlines end them."""
    cr = make_folder(tmp_path, GOOD_TILES.replace("\n", "\r"), GOOD_CONTENT.replace("\n", "\r"), "cr")
    mixed = make_folder(tmp_path, GOOD_TILES.replace("\n", "\r", 1), GOOD_CONTENT.replace("\n", "\r\n", 1), "mixed")
    expected = read_folder(make_folder(tmp_path, name="plain")).grid
    assert read_folder(cr).grid == expected
    assert read_folder(mixed).grid == expected
    keke = level_from_ascii("B12\n.b.\n...\n")
    assert level_from_ascii("B12\r.b.\r...\r").grid == level_from_ascii("B12\r\n.b.\n...").grid == keke.grid


@pytest.mark.parametrize("ending", ["\n", "\r\n", "\r"])
def test_a_byte_that_is_not_utf8_is_placed_by_line_and_column_whatever_the_line_ends(tmp_path, ending):
    folder = make_folder(tmp_path, name=ending.encode().hex())
    (folder / "content.txt").write_bytes(ending.join(["BIY", " b ", "w\xffw", ""]).encode("latin-1"))
    with pytest.raises(LevelError) as caught:
        read_folder(folder)
    assert (caught.value.line, caught.value.col) == (3, 2), caught.value


def test_read_folder_ignores_spaces_and_tabs_after_a_tile_name(tmp_path):
    padded = make_folder(tmp_path, "".join(line + (" \t " if line.endswith("a") else "  ") + "\n"
                                           for line in GOOD_TILES.splitlines()), name="padded")
    facing = make_folder(tmp_path, GOOD_TILES.replace("b Baba\n", "b Baba up \n"), name="facing")
    assert read_folder(padded).grid == read_folder(make_folder(tmp_path, name="plain")).grid
    assert read_folder(facing).facing_at(1, 1) == 1


def test_read_folder_case_insensitive_names(tmp_path):
    folder = make_folder(tmp_path, "b baba\nB BABA TEXT\n  Empty\nI Is Text\nY YOU text\nw WALL\n")
    level = read_folder(folder)
    assert level.to_text() == "B12\n.b.\nwww"


def test_read_folder_facings(tmp_path):
    folder = make_folder(tmp_path, "b Baba up\nB Baba text down\n  empty\nI is text\nY you text\nw wall LEFT\n")
    level = read_folder(folder)
    assert level.to_text() == "B12\n.b.\nwww"
    assert level.facing_at(1, 1) == 1                       # Baba up
    assert level.facing_at(0, 0) == 2                       # a text may be given one too
    assert [level.facing_at(x, 2) for x in range(3)] == [3, 3, 3]
    assert level.facing_at(1, 0) == 0 and level.facing_at(0, 1) == 0
    assert level.facings == (2, 0, 0, 0, 1, 0, 3, 3, 3)


def test_read_folder_without_facings_has_none(tmp_path):
    level = read_folder(make_folder(tmp_path))
    assert level.facings == ()
    assert level == Level(level.name, level.width, level.height, level.grid)
    assert level.facing_at(1, 1) == 0


def test_a_whole_tile_name_is_never_split_for_a_facing(tmp_path):
    # "Baba text" is a tile: its last word is part of the name, not a facing.
    level = read_folder(make_folder(tmp_path, "B Baba text\nb Baba\n  empty\nI is text\nY you text\nw wall\n"))
    assert level.tile_at(0, 0) == tiles.BABA_TEXT and level.facings == ()


@pytest.mark.parametrize(
    "line, col, needle",
    [
        ("b Baba upward", 8, "unknown facing 'upward' after tile name 'Baba'"),
        ("b Baba text sideways", 13, "unknown facing 'sideways' after tile name 'Baba text'"),
        ("b Bob up", 3, "unknown tile name 'Bob up'"),
        ("b up", 3, "unknown tile name 'up'"),
        ("  empty up", 9, "empty cannot have a facing"),
    ],
)
def test_bad_facing_is_a_one_line_error_at_its_column(tmp_path, line, col, needle):
    err = folder_error(tmp_path, tiles_text=f"B Baba text\n{line}\nw wall\n")
    assert str(err).startswith(f"{tmp_path / 'lvl' / 'tiles.txt'}:2:{col}: ")
    assert needle in str(err)


def test_level_facings_are_checked_and_all_zero_means_none():
    assert Level("t", 2, 1, (1, 0), (0, 0)).facings == ()
    assert Level("t", 2, 1, (1, 0), [4, 0]).facings == (4, 0)
    assert Level("t", 2, 1, (1, 0), (4, 0)) != Level("t", 2, 1, (1, 0))
    with pytest.raises(ValueError):
        Level("t", 2, 1, (1, 0), (1,))
    with pytest.raises(ValueError):
        Level("t", 2, 1, (1, 0), (5, 0))


def test_missing_folder(tmp_path):
    missing = tmp_path / "nope"
    with pytest.raises(LevelError) as info:
        read_folder(missing)
    assert str(missing) in str(info.value)
    assert "no such level folder" in str(info.value)


def test_folder_is_a_file(tmp_path):
    f = tmp_path / "file.txt"
    f.write_text("x")
    with pytest.raises(LevelError, match="not a folder") as info:
        read_folder(f)
    assert str(f) in str(info.value)


@pytest.mark.parametrize("missing", ["tiles.txt", "content.txt"])
def test_missing_file(tmp_path, missing):
    kwargs = {"tiles_text": None} if missing == "tiles.txt" else {"content_text": None}
    err = folder_error(tmp_path, **kwargs)
    assert str(tmp_path / "lvl" / missing) in str(err)
    assert "no such file" in str(err)


@pytest.mark.parametrize(
    "bad_line, col",
    [
        ("bBaba", 2),      # no space
        ("b", 2),          # nothing after the character
        ("bb Baba", 2),    # two characters
        ("b ", 3),         # no name
        ("b  Baba", 3),    # two spaces
        ("", 1),           # empty line in the middle
    ],
)
def test_malformed_tiles_line(tmp_path, bad_line, col):
    err = folder_error(tmp_path, tiles_text=f"B Baba text\n{bad_line}\nw wall\n")
    tiles_path = tmp_path / "lvl" / "tiles.txt"
    assert str(err).startswith(f"{tiles_path}:2:{col}: ")
    assert (err.line, err.col) == (2, col)


def test_empty_tiles_file(tmp_path):
    err = folder_error(tmp_path, tiles_text="")
    assert str(tmp_path / "lvl" / "tiles.txt") in str(err)
    assert "empty" in str(err)


def test_unknown_tile_name(tmp_path):
    err = folder_error(tmp_path, tiles_text="b Baba\nx Bob the builder\n")
    assert str(err).startswith(f"{tmp_path / 'lvl' / 'tiles.txt'}:2:3: ")
    assert "unknown tile name 'Bob the builder'" in str(err)


def test_char_declared_twice(tmp_path):
    err = folder_error(tmp_path, tiles_text="b Baba\nw wall\nb wall\n")
    assert str(err).startswith(f"{tmp_path / 'lvl' / 'tiles.txt'}:3:1: ")
    assert "'b' declared twice" in str(err)
    assert "line 1" in str(err)


def test_undeclared_content_char(tmp_path):
    err = folder_error(tmp_path, content_text="BIY\n bx\nwww\n")
    assert str(err).startswith(f"{tmp_path / 'lvl' / 'content.txt'}:2:3: ")
    assert "'x' is not declared" in str(err)


def test_content_line_too_short(tmp_path):
    err = folder_error(tmp_path, content_text="BIY\n b \nww\n")
    assert str(err).startswith(f"{tmp_path / 'lvl' / 'content.txt'}:3:3: ")
    assert "2 characters, expected 3" in str(err)


def test_content_line_too_long(tmp_path):
    err = folder_error(tmp_path, content_text="BIY\n b  w\nwww\n")
    assert str(err).startswith(f"{tmp_path / 'lvl' / 'content.txt'}:2:4: ")
    assert "5 characters, expected 3" in str(err)


def test_only_one_trailing_newline_is_ignored(tmp_path):
    err = folder_error(tmp_path, content_text="BIY\n b \nwww\n\n")
    assert str(err).startswith(f"{tmp_path / 'lvl' / 'content.txt'}:4:1: ")


@pytest.mark.parametrize("content", ["", "\n", "\r\n"])
def test_empty_content_file(tmp_path, content):
    err = folder_error(tmp_path, content_text=content)
    assert str(tmp_path / "lvl" / "content.txt") in str(err)
    assert "empty content file" in str(err)


def test_level_error_is_baba_error():
    assert issubclass(LevelError, BabaError)
    err = LevelError("oops", "a/b.txt", 3, 4)
    assert str(err) == "a/b.txt:3:4: oops"
    assert str(LevelError("plain message")) == "plain message"
    assert "\n" not in str(BabaError("two\nlines"))


# --------------------------------------------------------------------------
# The seed levels in levels/


@pytest.mark.parametrize("name, size", [("00", (11, 9)), ("01", (12, 15))])
def test_seed_levels_load(repo_root, name, size):
    level = read_folder(repo_root / "levels" / name)
    assert level.name == name
    assert (level.width, level.height) == size
    assert len(level.grid) == size[0] * size[1]
    assert tiles.BABA in level.grid and tiles.FLAG in level.grid
    assert load_level(repo_root / "levels" / name) == level


def test_seed_level_00_content(repo_root):
    level = read_folder(repo_root / "levels" / "00")
    assert level.to_text().splitlines()[0] == "B12.....F13"
    assert level.tile_at(1, 4) == tiles.BABA
    assert level.tile_at(9, 4) == tiles.FLAG


def test_seed_levels_match_shared_copy(repo_root, shared_dir):
    for name in ("00", "01"):
        for f in ("tiles.txt", "content.txt"):
            ours = (repo_root / "levels" / name / f).read_bytes()
            theirs = (shared_dir / "levels" / "seed" / name / f).read_bytes()
            assert ours == theirs, f"levels/{name}/{f} differs from the seed"


# --------------------------------------------------------------------------
# Keke JSON sets


def write_set(tmp_path: Path, data, name="set_LEVELS.json") -> Path:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data, indent=1), encoding="utf-8")
    return path


def entry(lid, ascii_map="__\n_b", name="n", author="a", solution="rr"):
    return {"id": lid, "name": name, "author": author, "ascii": ascii_map, "solution": solution}


def keke_error(path: Path, level_id=None) -> str:
    with pytest.raises(LevelError) as info:
        if level_id is None:
            read_keke_set(path)
        else:
            read_keke_level(path, level_id)
    message = str(info.value)
    assert "\n" not in message
    assert str(path) in message
    return message


def test_keke_set_good(tmp_path):
    path = write_set(tmp_path, {"levels": [
        entry(1, "____\n_b._\n_ f_\n____", name="", solution="r"),
        entry("x", "B12", name=None, author=None, solution=None),
        entry("7", "F13", name="hello"),
    ]})
    levels = read_keke_set(path)
    assert [lv.id for lv in levels] == ["1", "x", "7"]
    first = levels[0]
    assert isinstance(first, KekeLevel)
    assert first.level.name == "set_LEVELS#1"
    assert first.level.to_text() == "____\n_b._\n_.f_\n____"  # space and '.' are empty
    assert first.level.tile_at(2, 2) == tiles.FLAG
    assert first.level.tile_at(1, 2) == tiles.EMPTY
    assert first.solution == "r"
    assert (levels[1].name, levels[1].author, levels[1].solution) == ("", "", "")
    assert levels[2].level.name == "set_LEVELS#7 hello"
    assert read_keke_level(path, 1) == first       # int id matches the string
    assert read_keke_level(path, "1") == first
    assert read_keke_level(path, "7").name == "hello"
    assert keke_ids(path) == ["1", "x", "7"]


def test_keke_missing_file(tmp_path):
    message = keke_error(tmp_path / "none.json")
    assert "no such file" in message


def test_keke_malformed_json(tmp_path):
    path = write_set(tmp_path, '{"levels": [\n  {"id": 1,, }\n]}')
    message = keke_error(path)
    assert message.startswith(f"{path}:2:12: malformed JSON")


@pytest.mark.parametrize("ending", ["\n", "\r\n", "\r"])
def test_malformed_json_is_placed_by_line_and_column_whatever_the_line_ends(tmp_path, ending):
    """json counts lines by LF alone, so an error in a file of lone CRs
    was placed on its line 1."""
    path = tmp_path / "set_LEVELS.json"
    path.write_bytes(ending.join(['{"levels": [', '  {"id": 1,, }', "]}"]).encode())
    message = keke_error(path)
    assert message.startswith(f"{path}:2:12: malformed JSON"), message


@pytest.mark.parametrize("data, needle", [
    ([], '"levels"'),
    ({"other": []}, '"levels"'),
    ({"levels": {"a": 1}}, '"levels" is an object, expected a list'),
    ({"levels": [3]}, "levels[0] is a number"),
    ({"levels": [{"ascii": "b"}]}, 'levels[0]: missing field "id"'),
    ({"levels": [{"id": None, "ascii": "b"}]}, '"id" is null'),
    ({"levels": [{"id": 4}]}, 'level id 4: missing field "ascii"'),
    ({"levels": [{"id": 4, "ascii": ["b"]}]}, '"ascii" is a list'),
    ({"levels": [{"id": 4, "ascii": "b", "solution": 5}]}, '"solution" is a number'),
    ({"levels": [entry(1), entry("1")]}, "level id '1' appears twice"),
])
def test_keke_structure_errors(tmp_path, data, needle):
    message = keke_error(write_set(tmp_path, data))
    assert needle in message


def test_keke_unknown_map_char(tmp_path):
    path = write_set(tmp_path, {"levels": [entry("a"), entry("b", "____\n_bB_\n_1?_\n____")]})
    message = keke_error(path)
    assert message == f"{path}: level id b: row 3, column 3: unknown map character '?'"
    # reading the good level alone still works; the bad one fails the same way
    assert read_keke_level(path, "a").level.width == 2
    assert keke_error(path, "b") == message


def test_keke_unequal_rows(tmp_path):
    path = write_set(tmp_path, {"levels": [entry("q", "____\n_b_\n____")]})
    message = keke_error(path)
    assert "level id q" in message
    assert "row 2 has 3 characters, expected 4" in message


def test_keke_empty_map(tmp_path):
    message = keke_error(write_set(tmp_path, {"levels": [entry("e", "")]}))
    assert "level id e: empty map" in message


def test_keke_unknown_id(tmp_path):
    path = write_set(tmp_path, {"levels": [entry(str(i)) for i in range(20)]})
    message = keke_error(path, "99")
    assert "no level with id '99'" in message
    assert "0, 1, 2" in message
    assert "(20 levels)" in message


# --------------------------------------------------------------------------
# load_level


def test_load_level_dispatch(tmp_path):
    folder = make_folder(tmp_path)
    assert load_level(folder) == read_folder(folder)
    path = write_set(tmp_path, {"levels": [entry(3, "b.f")]})
    assert load_level(path, 3).to_text() == "b.f"
    assert load_level(path, "3").name == "set_LEVELS#3 n"


def test_load_level_errors(tmp_path):
    path = write_set(tmp_path, {"levels": [entry(3)]})
    with pytest.raises(LevelError, match=r"--id .*available ids: 3"):
        load_level(path)
    with pytest.raises(LevelError, match="no such level folder or file"):
        load_level(tmp_path / "missing")
    other = tmp_path / "level.txt"
    other.write_text("b")
    with pytest.raises(LevelError, match="expected a level folder or a Keke .json"):
        load_level(other)
    with pytest.raises(LevelError, match="level id applies only"):
        load_level(make_folder(tmp_path), "1")


# --------------------------------------------------------------------------
# The shared Keke sets


@pytest.mark.parametrize("key", ["demo", "test", "full_biy"])
def test_shared_sets_load_completely(keke_sets, key):
    path = keke_sets[key]
    levels = read_keke_set(path)
    assert len(levels) == KEKE_SET_SIZES[key]
    raw = json.loads(path.read_text(encoding="utf-8"))["levels"]
    for lv, src in zip(levels, raw):
        level = lv.level
        assert len(level.grid) == level.width * level.height
        assert level.height == len(src["ascii"].split("\n"))
        assert level.to_text() == src["ascii"].replace(" ", ".")
        assert lv.id == str(src["id"])
        assert re.fullmatch(rf"{path.stem}#{re.escape(lv.id)}( .+)?", level.name)
        assert len(parse_solution(lv.solution)) == len(lv.solution)


def test_shared_set_ids_as_strings(keke_sets):
    demo_first = read_keke_set(keke_sets["demo"])[0]
    assert read_keke_level(keke_sets["demo"], str(demo_first.id)) == demo_first
    assert read_keke_level(keke_sets["full_biy"], 1).id == "1"
    assert read_keke_level(keke_sets["test"], "0").level.name == "test_LEVELS#0 evade"


def test_an_id_with_spaces_around_it_is_chosen_with_or_without_them(tmp_path):
    import json

    from babasolver.level import read_keke_level

    path = tmp_path / "set.json"
    path.write_text(json.dumps({"levels": [
        {"id": " 7 ", "ascii": "_____\n_B12_\n_b.._\n_____"},
        {"id": 8, "ascii": "_____\n_b.._\n_____"},
    ]}), encoding="utf-8")
    assert read_keke_level(path, " 7 ").id == " 7 "
    assert read_keke_level(path, "7").id == " 7 "
    assert read_keke_level(path, 8).id == "8"
