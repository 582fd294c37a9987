"""Generate the tile tables of babasolver from ``tiles.json``.

``tiles.json`` maps each tile name to its description, in id order (the
first tile is ``empty`` and gets id 0). From it this package renders the
Jinja2 templates in ``codegen/templates/`` into three files of ``engine/babasolver/``:
``_tiles.h`` (C), ``_tiles.pxd`` (Cython declarations of that header) and
``tiles.py`` (Python).

Library use::

    tiles = load_tiles("tiles.json")   # raises TilesError on bad input
    texts = render(tiles)              # {"_tiles.h": "...", ...}
    write(tiles, "engine/babasolver")             # writes the files that changed

Run ``python -m codegen --help`` for the command line.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

__all__ = [
    "BANNER",
    "MAX_TILES",
    "OUTPUTS",
    "REPO_ROOT",
    "DEFAULT_TILES",
    "DEFAULT_OUT",
    "Tile",
    "TilesError",
    "load_tiles",
    "validate",
    "render",
    "write",
    "stale_files",
]

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_TILES = REPO_ROOT / "tiles.json"
DEFAULT_OUT = REPO_ROOT / "engine" / "babasolver"
TEMPLATES = Path(__file__).resolve().parent / "templates"

BANNER = "generated from tiles.json by codegen \u2014 do not edit (run: python -m codegen)"

#: Tile ids are 16-bit in the core's positions and records, and the rule
#: set's tables indexed by tile are copied with the rules in force: 1024
#: keeps those tables at a few KiB.
MAX_TILES = 1024

#: The one operator text the rule sets read (``X is Y``).
OPERATOR_WORDS = ("is",)

#: The classes of tiles, as the generated KIND_* names (in this order).
KINDS = ("EMPTY", "OBJECT", "NOUN_TEXT", "OPERATOR_TEXT", "PROPERTY_TEXT", "BORDER")

#: output file name -> template file name (in codegen/templates/)
OUTPUTS: Dict[str, str] = {
    "_tiles.h": "_tiles.h.j2",
    "_tiles.pxd": "_tiles.pxd.j2",
    "tiles.py": "tiles.py.j2",
}

EMPTY_NAME = "empty"
BORDER_NAME = "border"

# field -> (type, required)
FIELDS: Dict[str, Tuple[type, bool]] = {
    "keke": (str, True),
    "word": (str, True),
    "text": (bool, False),
    "subject": (bool, False),
    "subjectTarget": (str, False),
    "definition": (bool, False),
}

_NAME_RE = re.compile(r"[A-Za-z][A-Za-z0-9]*( [A-Za-z0-9]+)*\Z")
_WORD_RE = re.compile(r"[a-z][a-z0-9]*\Z")

# Module-level names of the generated files that a tile must not shadow.
_RESERVED_PY = {
    "N_TILES", "NAMES", "KEKE_CHARS", "WORDS", "NOUN_TARGET", "OBJECT_TEXT",
    "IS_TEXT_TILE", "IS_NOUN_TEXT", "IS_PROPERTY_TEXT", "IS_OBJECT",
    "PROPERTY_WORDS", "PROPERTY_TILES", "NOUN_TEXT_TILES", "OBJECT_TILES",
    "TEXT_MASK", "NOUN_TEXT_MASK", "PROPERTY_TEXT_MASK", "OBJECT_MASK",
    "BY_NAME", "BY_KEKE_CHAR", "Final", "TILE_KIND", "KINDS",
}
_RESERVED_C = {
    "N_TILES", "NOUN_TARGET", "OBJECT_TEXT", "TILES_UNUSED", "TILE_KIND", "TILE_WORDS",
}


class TilesError(ValueError):
    """tiles.json is unreadable or invalid; ``str()`` is a one-line message."""


@dataclass(frozen=True)
class Tile:
    """One tile of tiles.json, with its id (position in the file)."""

    id: int
    name: str
    keke: str
    word: str
    text: bool = False
    subject: bool = False
    subject_target: Optional[str] = None
    definition: bool = False

    @property
    def ident(self) -> str:
        """Identifier stem: ``Baba text`` -> ``BABA_TEXT``."""
        return self.name.upper().replace(" ", "_")

    @property
    def mask(self) -> int:
        return 1 << self.id

    @property
    def is_empty(self) -> bool:
        return self.name == EMPTY_NAME

    @property
    def is_border(self) -> bool:
        return self.name == BORDER_NAME

    @property
    def is_object(self) -> bool:
        """A noun's object: neither text nor empty nor border."""
        return not (self.text or self.is_empty or self.is_border)

    @property
    def kind(self) -> str:
        """The class the engine sorts the tile into (one of KINDS)."""
        if self.is_empty:
            return "EMPTY"
        if self.is_border:
            return "BORDER"
        if self.subject:
            return "NOUN_TEXT"
        if self.definition:
            return "PROPERTY_TEXT"
        if self.text:
            return "OPERATOR_TEXT"
        return "OBJECT"


def _q(name: str) -> str:
    # JSON quoting keeps the message on one line whatever the name holds.
    return json.dumps(name, ensure_ascii=False)


class _JsonObject(dict):
    """A parsed JSON object that remembers the keys it saw more than once."""

    duplicates: Tuple[str, ...] = ()


def _keep_duplicates(pairs: List[Tuple[str, Any]]) -> _JsonObject:
    obj = _JsonObject()
    dups = []
    for key, value in pairs:
        if key in obj:
            dups.append(key)
        obj[key] = value
    obj.duplicates = tuple(dups)
    return obj


def _parse(text: str, where: str) -> Dict[str, Any]:
    try:
        data = json.loads(text, object_pairs_hook=_keep_duplicates)
    except json.JSONDecodeError as err:
        raise TilesError(
            f"{where}:{err.lineno}:{err.colno}: invalid JSON: {err.msg}"
        ) from None
    if not isinstance(data, dict):
        raise TilesError(f"{where}: expected a JSON object mapping tile names to tiles")
    return data


def load_tiles(path: Union[str, Path] = DEFAULT_TILES) -> List[Tile]:
    """Read and validate a tiles.json file; raise TilesError if it is bad."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise TilesError(f"{path}: cannot read: {err}") from None
    return validate(_parse(text, str(path)), str(path))


def validate(data: Dict[str, Any], where: str = "tiles.json") -> List[Tile]:
    """Check parsed tiles.json content and turn it into Tiles (in id order)."""
    if not data:
        raise TilesError(f"{where}: no tiles (the first tile must be {_q(EMPTY_NAME)})")

    dup_names = getattr(data, "duplicates", ())
    if dup_names:
        raise TilesError(f"{where}: tile {_q(dup_names[0])}: duplicate tile name")

    tiles: List[Tile] = []
    for tile_id, (name, spec) in enumerate(data.items()):
        def fail(problem: str) -> TilesError:
            return TilesError(f"{where}: tile {_q(name)}: {problem}")

        if tile_id == 0 and name != EMPTY_NAME:
            raise fail(f"the first tile must be {_q(EMPTY_NAME)} (it gets id 0)")
        if tile_id != 0 and name == EMPTY_NAME:
            raise fail(f"must be the first tile, found at id {tile_id}")
        if tile_id >= MAX_TILES:
            raise fail(
                f"would get id {tile_id}, but the engine holds at most {MAX_TILES} tiles "
                f"(ids 0..{MAX_TILES - 1})"
            )
        if not _NAME_RE.match(name):
            raise fail(
                "bad name: use letters and digits, words separated by single "
                "spaces, starting with a letter"
            )
        if not isinstance(spec, dict):
            raise fail(f"expected a JSON object, got {json.dumps(spec)}")
        dup_fields = getattr(spec, "duplicates", ())
        if dup_fields:
            raise fail(f"field {_q(dup_fields[0])} given twice")
        for field in spec:
            if field not in FIELDS:
                raise fail(f"unknown field {_q(field)} (known: {', '.join(FIELDS)})")
        for field, (kind, required) in FIELDS.items():
            if field not in spec:
                if required:
                    raise fail(f"missing field {_q(field)}")
                continue
            value = spec[field]
            # bool is a subclass of int but not of str, so this is exact.
            if type(value) is not kind:
                raise fail(
                    f"field {_q(field)} must be a {'boolean' if kind is bool else 'string'}, "
                    f"got {json.dumps(value)}"
                )

        keke = spec["keke"]
        if len(keke) != 1 or keke.isspace():
            raise fail(f"field \"keke\" must be one visible character, got {_q(keke)}")
        word = spec["word"]
        if not _WORD_RE.match(word):
            raise fail(f"field \"word\" must be a lowercase word, got {_q(word)}")

        tile = Tile(
            id=tile_id,
            name=name,
            keke=keke,
            word=word,
            text=spec.get("text", False),
            subject=spec.get("subject", False),
            subject_target=spec.get("subjectTarget"),
            definition=spec.get("definition", False),
        )
        if (tile.is_empty or tile.is_border) and (tile.text or tile.subject or tile.definition):
            raise fail("empty and border cannot be texts")
        if (tile.subject or tile.definition) and not tile.text:
            raise fail("\"subject\" and \"definition\" need \"text\": true")
        if tile.subject and tile.definition:
            raise fail("a text cannot be both \"subject\" and \"definition\"")
        if tile.subject and tile.subject_target is None:
            raise fail("\"subject\": true needs a \"subjectTarget\"")
        if tile.subject_target is not None and not tile.subject:
            raise fail("\"subjectTarget\" is only for \"subject\": true texts")
        if tile.text and not (tile.subject or tile.definition) and tile.word not in OPERATOR_WORDS:
            raise fail(
                f"a text that is neither \"subject\" nor \"definition\" must be an operator "
                f"({', '.join(_q(w) for w in OPERATOR_WORDS)}), not {_q(tile.word)}"
            )
        tiles.append(tile)

    _require_one(tiles, where, BORDER_NAME, lambda t: t.is_border)
    for word in OPERATOR_WORDS:
        _require_one(tiles, where, f"{word} text",
                     lambda t: t.text and not t.subject and not t.definition and t.word == word)

    by_name = {t.name: t for t in tiles}
    keke_owner: Dict[str, Tile] = {}
    taken: Dict[str, Tile] = {}
    for tile in tiles:
        def fail(problem: str) -> TilesError:
            return TilesError(f"{where}: tile {_q(tile.name)}: {problem}")

        if tile.subject_target is not None:
            target = by_name.get(tile.subject_target)
            if target is None:
                raise fail(f"subjectTarget {_q(tile.subject_target)} names no tile")
            if not target.is_object:
                raise fail(
                    f"subjectTarget {_q(tile.subject_target)} is not an object "
                    "(it must be a tile that is neither text nor empty nor border)"
                )
        owner = keke_owner.get(tile.keke)
        if owner is not None:
            raise fail(f"Keke character {_q(tile.keke)} is already used by {_q(owner.name)}")
        keke_owner[tile.keke] = tile

        generated = [tile.ident, f"{tile.ident}_MASK", f"T_{tile.ident}", f"M_{tile.ident}"]
        for ident in generated:
            if ident in _RESERVED_PY or ident in _RESERVED_C:
                raise fail(f"its generated name {ident} clashes with a fixed name")
            other = taken.get(ident)
            if other is not None:
                raise fail(f"its generated name {ident} clashes with tile {_q(other.name)}")
        for ident in generated:
            taken[ident] = tile

    targets: Dict[str, Tile] = {}
    for tile in tiles:
        if tile.subject_target is None:
            continue
        other = targets.get(tile.subject_target)
        if other is not None:
            raise TilesError(
                f"{where}: tile {_q(tile.name)}: object {_q(tile.subject_target)} "
                f"already has the noun text {_q(other.name)}"
            )
        targets[tile.subject_target] = tile
    return tiles


def _require_one(tiles: Sequence[Tile], where: str, what: str, pred) -> None:
    """The engine names a few tiles (border, the operator): each exactly once."""
    found = [t for t in tiles if pred(t)]
    if len(found) != 1:
        raise TilesError(f"{where}: needs exactly one {_q(what)} tile, found {len(found)}")


def _context(tiles: Sequence[Tile]) -> Dict[str, Any]:
    by_name = {t.name: t for t in tiles}
    n = len(tiles)
    noun_target = [0] * n
    object_text = [0] * n
    for t in tiles:
        if t.subject_target is not None:
            obj = by_name[t.subject_target]
            noun_target[t.id] = obj.id
            object_text[obj.id] = t.id

    def group(pred) -> int:
        mask = 0
        for t in tiles:
            if pred(t):
                mask |= t.mask
        return mask

    return {
        "banner": BANNER,
        "tiles": list(tiles),
        "n_tiles": n,
        "masked": [t for t in tiles if not t.is_empty],
        "groups": [
            ("TEXT", group(lambda t: t.text), "all texts"),
            ("NOUN_TEXT", group(lambda t: t.subject), "noun texts (subjects)"),
            ("PROPERTY_TEXT", group(lambda t: t.definition), "property texts (definitions)"),
            ("OBJECT", group(lambda t: t.is_object), "objects (not text, empty or border)"),
        ],
        "noun_target": noun_target,
        "object_text": object_text,
        "kinds": KINDS,
        "tile_kind": [KINDS.index(t.kind) for t in tiles],
        "tile_words": (n + 63) // 64,
        "properties": [t for t in tiles if t.definition],
        "nouns": [t for t in tiles if t.subject],
        "objects": [t for t in tiles if t.is_object],
    }


def _environment():
    try:
        import jinja2
    except ImportError:  # pragma: no cover - depends on the environment
        raise TilesError("codegen needs Jinja2 (pip install 'babasolver[codegen]')") from None
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
    )
    env.filters["hex64"] = lambda v: f"0x{v:016x}"
    env.filters["pystr"] = lambda s: json.dumps(s, ensure_ascii=False)
    env.filters["chunks"] = lambda seq, size: [list(seq[i:i + size]) for i in range(0, len(seq), size)]
    return env


def render(tiles: Sequence[Tile]) -> Dict[str, str]:
    """Render every output; returns {output file name: text}."""
    env = _environment()
    ctx = _context(tiles)
    out: Dict[str, str] = {}
    for name, template in OUTPUTS.items():
        text = env.get_template(template).render(**ctx)
        out[name] = text.rstrip("\n") + "\n"
    return out


def stale_files(tiles: Sequence[Tile], out_dir: Union[str, Path] = DEFAULT_OUT) -> List[str]:
    """Names of outputs in out_dir that are missing or differ from a fresh render."""
    out_dir = Path(out_dir)
    stale = []
    for name, text in render(tiles).items():
        path = out_dir / name
        try:
            current = path.read_bytes()
        except OSError:
            current = None
        if current != text.encode("utf-8"):
            stale.append(name)
    return stale


def write(tiles: Sequence[Tile], out_dir: Union[str, Path] = DEFAULT_OUT) -> List[Path]:
    """Write the outputs into out_dir; return the paths that changed.

    Unchanged files are left alone so their timestamps do not trigger
    rebuilds.
    """
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    changed = []
    for name, text in render(tiles).items():
        path = out_dir / name
        data = text.encode("utf-8")
        try:
            if path.read_bytes() == data:
                continue
        except OSError:
            pass
        path.write_bytes(data)
        changed.append(path)
    return changed
