"""Levels and the readers of the two level formats.

A :class:`Level` is a rectangle of tile ids (see :mod:`babasolver.tiles`),
one tile per cell, stored row-major. Cells outside the rectangle behave like
border.

Two input formats are read:

* the seed's folder format: ``tiles.txt`` holds lines ``<char> <tile name>``
  (exactly one character, one space, a tile name such as ``Baba`` or
  ``Baba text``; names match case-insensitively), optionally followed by one
  space and a facing word (``b Baba up``; up, down, left or right), and
  ``content.txt`` holds the grid, one character per cell (:func:`read_folder`);
* the Keke AI Competition's JSON level sets, ``{"levels": [{"id", "name",
  "author", "ascii", "solution"}, ...]}`` with maps in the Keke characters of
  RULES.md (:func:`read_keke_set`, :func:`read_keke_level`).

:func:`load_level` picks the reader from the path. Every problem with the
input raises :class:`~babasolver.errors.LevelError` with a one-line message
that names the file and, where it applies, ``line:col``.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple, Union

from . import tiles
from .errors import LevelError
from .notation import Facing
from .rulesets import DEFAULT_RULES, UnknownRules, rule_set, unknown_words

__all__ = [
    "Level",
    "KekeLevel",
    "read_folder",
    "read_keke_set",
    "read_keke_level",
    "keke_ids",
    "keke_entries",
    "load_level",
    "level_from_ascii",
    "tile_by_name",
    "played_by",
    "FACING_WORDS",
]

PathLike = Union[str, "os.PathLike[str]"]

TILES_FILE = "tiles.txt"
CONTENT_FILE = "content.txt"

# Keke map characters that mean an empty cell (besides whatever
# tiles.KEKE_CHARS gives for empty).
_EMPTY_CHARS = (" ", ".")


#: Facing ids (:class:`babasolver.notation.Facing`) by the word a tiles.txt
#: line may end with: every facing but none.
FACING_WORDS: Dict[str, int] = {f.word: int(f) for f in Facing if f is not Facing.NONE}


@dataclass(frozen=True)
class Level:
    """A level: ``height`` rows of ``width`` tile ids, row-major in ``grid``,
    played by the rule set named ``rules`` (see :mod:`babasolver.rulesets`).

    ``facings`` is the facing the level file gives each cell's thing, row-major
    like ``grid`` (0 where none is given), or ``()`` when the file gives none:
    the Keke format has no facings, and an all-zero tuple is stored as ``()``
    so that equal levels compare equal. The commercial game's rules use them
    (a thing without one faces right); the judge's rules ignore them.
    """

    name: str
    width: int
    height: int
    grid: Tuple[int, ...]
    facings: Tuple[int, ...] = ()
    rules: str = DEFAULT_RULES

    def __post_init__(self) -> None:
        if not isinstance(self.grid, tuple):
            object.__setattr__(self, "grid", tuple(self.grid))
        if self.width < 1 or self.height < 1:
            raise ValueError(f"level size must be at least 1x1, got {self.width}x{self.height}")
        if len(self.grid) != self.width * self.height:
            raise ValueError(
                f"grid has {len(self.grid)} cells, expected {self.width}x{self.height}"
                f" = {self.width * self.height}"
            )
        facings = tuple(self.facings)
        if facings and len(facings) != len(self.grid):
            raise ValueError(f"facings has {len(facings)} cells, expected {len(self.grid)} as the grid")
        if any(f not in (0, *FACING_WORDS.values()) for f in facings):
            raise ValueError("facings must be 0 (none given), 1 up, 2 down, 3 left or 4 right")
        object.__setattr__(self, "facings", facings if any(facings) else ())

    def facing_at(self, x: int, y: int) -> int:
        """The facing the level gives the thing at (x, y), 0 if none."""
        if not self.facings or not self.in_bounds(x, y):
            return 0
        return self.facings[y * self.width + x]

    def in_bounds(self, x: int, y: int) -> bool:
        """Whether (x, y) is a cell of the grid (x from the left, y from the top)."""
        return 0 <= x < self.width and 0 <= y < self.height

    def tile_at(self, x: int, y: int) -> int:
        """Tile id at column x, row y (0-based from the top-left cell).

        Cells outside the grid are border (:data:`babasolver.tiles.BORDER`).
        """
        if not self.in_bounds(x, y):
            return tiles.BORDER
        return self.grid[y * self.width + x]

    def rows(self) -> Tuple[Tuple[int, ...], ...]:
        """The grid as a tuple of rows, top to bottom."""
        w = self.width
        return tuple(self.grid[y * w:(y + 1) * w] for y in range(self.height))

    def to_text(self) -> str:
        """The grid in Keke map characters, '.' for empty, rows joined by '\\n'."""
        chars = _keke_chars()
        return "\n".join("".join(chars[t] for t in row) for row in self.rows())

    def tiles_used(self) -> List[int]:
        """Distinct tile ids present in the grid, ascending."""
        return sorted(set(self.grid))


@dataclass(frozen=True)
class KekeLevel:
    """One entry of a Keke JSON level set."""

    id: str
    name: str
    author: str
    level: Level
    solution: str


# --------------------------------------------------------------------------
# Tile look-ups


_lower_names: Optional[Dict[str, int]] = None
_chars: Optional[Tuple[str, ...]] = None


def tile_by_name(name: str) -> Optional[int]:
    """Tile id of a tile name: exact first, then case-insensitive; else None."""
    global _lower_names
    tid = tiles.BY_NAME.get(name)
    if tid is not None:
        return tid
    if _lower_names is None:
        _lower_names = {}
        for tname, tid2 in tiles.BY_NAME.items():
            _lower_names.setdefault(tname.casefold(), tid2)
    return _lower_names.get(name.casefold())


def _keke_chars() -> Tuple[str, ...]:
    """Keke character per tile id, with '.' for empty."""
    global _chars
    if _chars is None:
        chars = list(tiles.KEKE_CHARS)
        chars[tiles.EMPTY] = "."
        _chars = tuple(chars)
    return _chars


def _tile_by_keke_char(ch: str) -> Optional[int]:
    if ch in _EMPTY_CHARS:
        return tiles.EMPTY
    return tiles.BY_KEKE_CHAR.get(ch)


# --------------------------------------------------------------------------
# Reading text files


# Line ends, as Python's universal newlines read them.
_LINE_END = re.compile(r"\r\n|\r|\n")


def _position(text: str, offset: int) -> Tuple[int, int]:
    """Line and column (from 1) of character `offset` of `text`, its lines
    ended as `_split_lines` ends them."""
    ends = [end.end() for end in _LINE_END.finditer(text, 0, offset)]
    return len(ends) + 1, offset - (ends[-1] if ends else 0) + 1


def text_position(data: bytes, offset: int) -> Tuple[int, int]:
    """Line and column (characters, from 1) of byte `offset` of UTF-8 text
    whose bytes before it decode; a byte-order mark is no column."""
    before = data[:offset].decode("utf-8", "replace")
    before = before[1:] if before.startswith("\ufeff") else before
    return _position(before, len(before))


def decode_text(data: bytes, path: Optional[PathLike] = None) -> str:
    """UTF-8 bytes as text (line ends kept), or LevelError at the line and
    column of the first byte that is not UTF-8. A byte-order mark at the
    start, which Notepad and PowerShell 5 write and no editor shows, is
    dropped."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line, col = text_position(data, e.start)
        raise LevelError(f"not UTF-8 text: {e.reason} (byte {e.start + 1} of the file)", path, line, col) from None
    return text[1:] if text.startswith("\ufeff") else text


def _read_text(path: Path, what: str = "file") -> str:
    """The whole file as text (UTF-8, line ends kept), or LevelError."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        raise LevelError(f"no such {what}", path) from None
    except IsADirectoryError:
        raise LevelError(f"is a folder, expected a {what}", path) from None
    except OSError as e:
        raise LevelError(e.strerror or str(e), path) from None
    return decode_text(data, path)


def _split_lines(text: str) -> List[str]:
    """Lines of a file, ended by '\\n', '\\r\\n' or a lone '\\r' (old Mac
    editors), as Python's universal newlines read them; one line end at
    the end of the file ends the last line."""
    lines = _LINE_END.split(text)
    if len(lines) > 1 and lines[-1] == "":
        lines.pop()
    return lines


# --------------------------------------------------------------------------
# The seed's folder format


def _read_tiles_file(path: Path) -> Dict[str, Tuple[int, int]]:
    """Character -> (tile id, facing id or 0), from a tiles.txt file."""
    text = _read_text(path)
    declared: Dict[str, Tuple[int, int]] = {}
    first_line: Dict[str, int] = {}
    lines = _split_lines(text)
    if lines == [""]:
        raise LevelError("empty tiles file, expected lines '<char> <tile name>'", path)
    for n, line in enumerate(lines, start=1):
        if not line:
            raise LevelError("empty line, expected '<char> <tile name>'", path, n, 1)
        if len(line) < 2 or line[1] != " ":
            raise LevelError(
                f"expected '<char> <tile name>' (one character, one space, a name), got {line!r}",
                path, n, 2,
            )
        ch, name = line[0], line[2:]
        if not name or name[0].isspace():
            raise LevelError(
                f"expected '<char> <tile name>' (one character, one space, a name), got {line!r}",
                path, n, 3,
            )
        # Spaces after a name cannot be seen in an editor: they mean nothing.
        found = _tile_and_facing(name.rstrip(" \t"), path, n)
        if ch in declared:
            raise LevelError(
                f"character {ch!r} declared twice (first on line {first_line[ch]})", path, n, 1
            )
        declared[ch] = found
        first_line[ch] = n
    return declared


def _tile_and_facing(name: str, path: Path, line: int) -> Tuple[int, int]:
    """The tile a tiles.txt name declares, and the facing word after it if any.

    A whole name that is a tile wins, so a tile whose name ends in a facing
    word stays readable. Otherwise a last word is taken as a facing only when
    what precedes it is a tile name (names hold spaces: ``Baba text up``).
    """
    tid = tile_by_name(name)
    if tid is not None:
        return tid, 0
    head, _, word = name.rpartition(" ")
    head_tid = tile_by_name(head) if head else None
    if head_tid is None:
        raise LevelError(f"unknown tile name {name!r}", path, line, 3)
    col = 3 + len(head) + 1
    facing = FACING_WORDS.get(word.casefold())
    if facing is None:
        raise LevelError(f"unknown facing {word!r} after tile name {head!r} (expected up, down, left or right)",
                         path, line, col)
    if head_tid in (tiles.EMPTY, tiles.BORDER):
        raise LevelError(f"{tiles.NAMES[head_tid]} cannot have a facing, only objects and texts", path, line, col)
    return head_tid, facing


def find_level_folders(root: PathLike) -> List[Tuple[str, Path]]:
    """Every level folder at or below ``root``, as ``(id, folder)`` sorted by
    path. The id is the folder's path relative to ``root``, or the name of
    ``root`` when it is a level.

    A level folder is one that holds tiles.txt or content.txt, whatever they
    are: one that lacks the other, or holds a folder by that name, is still
    listed, so that reading it says what is wrong rather than the level
    being passed over. So is a folder that cannot be listed: what levels it
    holds cannot be known, and reading it says why. Links to folders are
    followed (a folder reached twice, as through a loop, is looked at once),
    and the walk keeps its own stack: a tree thousands of folders deep is
    no deeper for it than a flat one."""
    root = Path(root)
    found: List[Path] = []
    seen = set()
    stack = [root]
    while stack:
        folder = stack.pop()
        try:
            info = folder.stat()
            if (info.st_dev, info.st_ino) in seen:
                continue
            seen.add((info.st_dev, info.st_ino))
            with os.scandir(folder) as listing:
                entries = list(listing)
        except OSError:
            found.append(folder)
            continue
        names = {entry.name for entry in entries}
        if TILES_FILE in names or CONTENT_FILE in names:
            found.append(folder)
        for entry in entries:
            try:
                is_folder = entry.is_dir()
            except OSError:
                is_folder = False
            if is_folder:
                stack.append(Path(entry.path))
    found.sort(key=lambda folder: folder.relative_to(root).parts)
    levels = []
    for folder in found:
        relative = folder.relative_to(root)
        level_id = relative.as_posix() if relative.parts else (root.resolve().name or str(root))
        levels.append((level_id, folder))
    return levels


def read_folder(path: PathLike) -> Level:
    """Read a level folder in the seed format (``tiles.txt`` + ``content.txt``).

    The level's name is the folder's name.
    """
    folder = Path(path)
    if not folder.exists():
        raise LevelError("no such level folder", folder)
    if not folder.is_dir():
        raise LevelError(f"not a folder, expected a level folder with {TILES_FILE} and {CONTENT_FILE}", folder)
    tiles_path = folder / TILES_FILE
    content_path = folder / CONTENT_FILE
    for p in (tiles_path, content_path):
        if not p.exists():
            raise LevelError("no such file (a level folder needs tiles.txt and content.txt)", p)
    declared = _read_tiles_file(tiles_path)

    text = _read_text(content_path)
    lines = _split_lines(text)
    if lines == [""]:
        raise LevelError("empty content file", content_path)
    width = len(lines[0])
    if width == 0:
        raise LevelError("first line is empty", content_path, 1, 1)
    grid: List[int] = []
    facings: List[int] = []
    for n, line in enumerate(lines, start=1):
        if len(line) != width:
            col = min(len(line), width) + 1
            raise LevelError(
                f"line has {len(line)} characters, expected {width} (as line 1)",
                content_path, n, col,
            )
        for c, ch in enumerate(line, start=1):
            found = declared.get(ch)
            if found is None:
                raise LevelError(f"character {ch!r} is not declared in {TILES_FILE}", content_path, n, c)
            grid.append(found[0])
            facings.append(found[1])
    name = folder.resolve().name or str(folder)
    _check_size(width, len(lines), content_path)
    return Level(name=name, width=width, height=len(lines), grid=tuple(grid), facings=tuple(facings))


# --------------------------------------------------------------------------
# Keke maps and JSON level sets


def _parse_map(text: str, name: str) -> Level:
    """Level from a Keke ascii map; LevelError (problem only, no path) if bad."""
    rows = _split_lines(text)
    if rows == [""]:
        raise LevelError("empty map")
    width = len(rows[0])
    if width == 0:
        raise LevelError("row 1 is empty")
    grid: List[int] = []
    for r, row in enumerate(rows, start=1):
        if len(row) != width:
            raise LevelError(f"row {r} has {len(row)} characters, expected {width} (as row 1)")
        for c, ch in enumerate(row, start=1):
            tid = _tile_by_keke_char(ch)
            if tid is None:
                raise LevelError(f"row {r}, column {c}: unknown map character {ch!r}")
            grid.append(tid)
    _check_size(width, len(rows))
    return Level(name=name, width=width, height=len(rows), grid=tuple(grid))


#: The most cells the engine plays, counting the ring of border it adds
#: around a level that has none (a cell is 16 bits in a position).
MAX_CELLS = 65_535


def _check_size(width: int, height: int, path: Optional[Path] = None) -> None:
    if (width + 2) * (height + 2) > MAX_CELLS:
        raise LevelError(f"level too large: {width}x{height} cells; the engine plays levels of up to "
                         f"{MAX_CELLS:,} cells counting a ring of border around them (about 253x253)", path)


def level_from_ascii(text: str, name: str = "") -> Level:
    """Level from a map in Keke characters (rows separated by '\\n').

    ' ' and '.' are empty, '_' is border. Raises LevelError on an unknown
    character or rows of unequal length. Handy for tests and small examples.
    """
    return _parse_map(text, name)


def _load_json(path: Path) -> Any:
    text = _read_text(path)
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        # json counts lines by LF alone; an editor also ends them at a lone CR.
        line, col = _position(text, e.pos)
        raise LevelError(f"malformed JSON: {e.msg}", path, line, col) from None
    except (ValueError, RecursionError) as e:
        # Integers past Python's digit limit, or nesting past the recursion limit.
        reason = "nested too deeply" if isinstance(e, RecursionError) else str(e).split(";")[0]
        raise LevelError(f"malformed JSON: {reason}", path) from None


def _entries(path: Path) -> List[Any]:
    """The ``levels`` list of a Keke set, each entry checked to be an object."""
    data = _load_json(path)
    if not isinstance(data, dict) or "levels" not in data:
        raise LevelError('not a Keke level set: missing the "levels" list', path)
    entries = data["levels"]
    if not isinstance(entries, list):
        raise LevelError(f'"levels" is {_json_type(entries)}, expected a list', path)
    for i, entry in enumerate(entries):
        if not isinstance(entry, dict):
            raise LevelError(f"levels[{i}] is {_json_type(entry)}, expected an object", path)
    return entries


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    return "an object"


def _entry_id(path: Path, i: int, entry: Dict[str, Any]) -> str:
    if "id" not in entry:
        raise LevelError(f'levels[{i}]: missing field "id"', path)
    lid = entry["id"]
    if isinstance(lid, bool) or not isinstance(lid, (int, str)):
        raise LevelError(f'levels[{i}]: "id" is {_json_type(lid)}, expected a string or an integer', path)
    return printable(str(lid))


def _ids(path: Path, entries: List[Dict[str, Any]]) -> List[str]:
    ids: List[str] = []
    seen: Dict[str, int] = {}
    for i, entry in enumerate(entries):
        lid = _entry_id(path, i, entry)
        if lid in seen:
            raise LevelError(f"level id {lid!r} appears twice (levels[{seen[lid]}] and levels[{i}])", path)
        seen[lid] = i
        ids.append(lid)
    return ids


def printable(text: str) -> str:
    """`text` with control characters and lone surrogates escaped, so that
    it prints safely on any terminal."""
    out = []
    for ch in text:
        code = ord(ch)
        if code < 0x20 or 0x7F <= code < 0xA0 or 0xD800 <= code <= 0xDFFF:
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")
        else:
            out.append(ch)
    return "".join(out)


def _optional_str(path: Path, lid: str, entry: Dict[str, Any], field: str) -> str:
    value = entry.get(field)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise LevelError(f'level id {lid}: "{field}" is {_json_type(value)}, expected a string', path)
    return value if field == "solution" else printable(value)


def _make_keke_level(path: Path, lid: str, entry: Dict[str, Any]) -> KekeLevel:
    if "ascii" not in entry:
        raise LevelError(f'level id {lid}: missing field "ascii"', path)
    ascii_map = entry["ascii"]
    if not isinstance(ascii_map, str):
        raise LevelError(f'level id {lid}: "ascii" is {_json_type(ascii_map)}, expected a string', path)
    name = _optional_str(path, lid, entry, "name")
    author = _optional_str(path, lid, entry, "author")
    solution = _optional_str(path, lid, entry, "solution")
    full_name = f"{path.stem}#{lid}" + (f" {name}" if name else "")
    try:
        level = _parse_map(ascii_map, full_name)
    except LevelError as e:
        raise LevelError(f"level id {lid}: {e.problem}", path) from None
    return KekeLevel(id=lid, name=name, author=author, level=level, solution=solution)


def _describe_ids(ids: List[str], limit: int = 8) -> str:
    if not ids:
        return "the set has no levels"
    shown = ", ".join(ids[:limit])
    if len(ids) > limit:
        shown += f", ... ({len(ids)} levels)"
    return "available ids: " + shown


def read_keke_set(path: PathLike) -> List[KekeLevel]:
    """Every level of a Keke JSON level set, in file order."""
    p = Path(path)
    entries = _entries(p)
    ids = _ids(p, entries)
    return [_make_keke_level(p, lid, entry) for lid, entry in zip(ids, entries)]


def keke_entries(path: PathLike) -> List[Tuple[str, Union[KekeLevel, LevelError]]]:
    """Every level of a Keke JSON level set as (id, level), or (id, the
    error) for a level that cannot be read, so that one broken map does not
    hide the others. A set that cannot be read as a whole raises."""
    p = Path(path)
    entries = _entries(p)
    out: List[Tuple[str, Union[KekeLevel, LevelError]]] = []
    for lid, entry in zip(_ids(p, entries), entries):
        try:
            out.append((lid, _make_keke_level(p, lid, entry)))
        except LevelError as e:
            out.append((lid, e))
    return out


def keke_ids(path: PathLike) -> List[str]:
    """The level ids of a Keke JSON level set, as strings, in file order."""
    p = Path(path)
    return _ids(p, _entries(p))


def read_keke_level(path: PathLike, level_id: Union[str, int]) -> KekeLevel:
    """One level of a Keke JSON level set, by id (compared as strings).

    Only the chosen level's map is parsed, so a broken map elsewhere in the
    set does not stop it from loading.
    """
    p = Path(path)
    entries = _entries(p)
    ids = _ids(p, entries)
    wanted = str(level_id)
    # The id as given first, then with spaces around either side ignored
    # (a set's " 7 " is chosen by --id 7, and by --id " 7 ").
    for same in (lambda lid: lid == wanted, lambda lid: lid.strip() == wanted.strip()):
        for lid, entry in zip(ids, entries):
            if same(lid):
                return _make_keke_level(p, lid, entry)
    raise LevelError(f"no level with id {wanted.strip()!r}; {_describe_ids(ids)}", p)


def played_by(level: Level, rules: str, path: Optional[PathLike] = None) -> Level:
    """`level` under the rule set `rules`. LevelError when the level uses a
    property word that rule set gives no meaning (at the first cell that
    does: line and column in a level folder's content.txt), or when no rule
    set has that name."""
    try:
        chosen = rule_set(rules)
    except UnknownRules as e:
        raise LevelError(str(e), None if path is None else Path(path)) from None
    words = unknown_words(chosen, level.grid)
    if words:
        first = next(i for i, t in enumerate(level.grid) if tiles.WORDS[t] in words and tiles.IS_PROPERTY_TEXT[t])
        where = Path(path) if path is not None else None
        line: Optional[int] = None
        col: Optional[int] = None
        if where is not None and where.is_dir():
            where, line, col = where / CONTENT_FILE, first // level.width + 1, first % level.width + 1
        raise LevelError(f"the {chosen.name} rules give no meaning to {', '.join(map(repr, words))} "
                         f"(they implement {', '.join(chosen.words)})", where, line, col)
    return level if level.rules == chosen.name else replace(level, rules=chosen.name)


def load_level(path: PathLike, level_id: Optional[Union[str, int]] = None,
               rules: str = DEFAULT_RULES) -> Level:
    """A level from a level folder, or from a Keke JSON set given ``level_id``,
    to be played by the rule set `rules`."""
    p = Path(path)
    if p.is_dir():
        if level_id is not None:
            raise LevelError("a level id applies only to a Keke .json level set, this is a level folder", p)
        return played_by(read_folder(p), rules, p)
    if not p.exists():
        raise LevelError("no such level folder or file", p)
    if p.suffix.lower() != ".json":
        raise LevelError("not a level: expected a level folder or a Keke .json level set", p)
    if level_id is None:
        raise LevelError(
            f"a Keke level set holds many levels: choose one with --id ({_describe_ids(keke_ids(p))})", p
        )
    entry = read_keke_level(p, level_id)
    try:
        return played_by(entry.level, rules, p)
    except LevelError as e:
        raise LevelError(f"level id {entry.id}: {e.problem}", p) from None

