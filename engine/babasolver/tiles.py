# generated from tiles.json by codegen — do not edit (run: python -m codegen)
"""Tile ids, masks and tables of babasolver, generated from tiles.json.

A tile's id is its position in tiles.json (``EMPTY`` is 0) and its mask is
``1 << id`` (a Python int, of any size). The ids, kinds and noun tables exist
in C too (``engine/babasolver/_tiles.h``: ``T_BABA``, ``TILE_KIND``, ...) and in
Cython (``engine/babasolver/_tiles.pxd``).
"""
from typing import Final

N_TILES: Final = 34

# ids
EMPTY: Final = 0
BABA: Final = 1
SKULL: Final = 2
FLAG: Final = 3
FLOOR: Final = 4
GRASS: Final = 5
LAVA: Final = 6
ROCK: Final = 7
WALL: Final = 8
KEKE: Final = 9
GOOP: Final = 10
LOVE: Final = 11
BABA_TEXT: Final = 12
SKULL_TEXT: Final = 13
FLAG_TEXT: Final = 14
FLOOR_TEXT: Final = 15
GRASS_TEXT: Final = 16
LAVA_TEXT: Final = 17
ROCK_TEXT: Final = 18
WALL_TEXT: Final = 19
KEKE_TEXT: Final = 20
GOOP_TEXT: Final = 21
LOVE_TEXT: Final = 22
IS_TEXT: Final = 23
YOU_TEXT: Final = 24
WIN_TEXT: Final = 25
STOP_TEXT: Final = 26
PUSH_TEXT: Final = 27
MOVE_TEXT: Final = 28
KILL_TEXT: Final = 29
SINK_TEXT: Final = 30
HOT_TEXT: Final = 31
MELT_TEXT: Final = 32
BORDER: Final = 33

# masks (1 << id; empty has none)
BABA_MASK: Final = 1 << 1
SKULL_MASK: Final = 1 << 2
FLAG_MASK: Final = 1 << 3
FLOOR_MASK: Final = 1 << 4
GRASS_MASK: Final = 1 << 5
LAVA_MASK: Final = 1 << 6
ROCK_MASK: Final = 1 << 7
WALL_MASK: Final = 1 << 8
KEKE_MASK: Final = 1 << 9
GOOP_MASK: Final = 1 << 10
LOVE_MASK: Final = 1 << 11
BABA_TEXT_MASK: Final = 1 << 12
SKULL_TEXT_MASK: Final = 1 << 13
FLAG_TEXT_MASK: Final = 1 << 14
FLOOR_TEXT_MASK: Final = 1 << 15
GRASS_TEXT_MASK: Final = 1 << 16
LAVA_TEXT_MASK: Final = 1 << 17
ROCK_TEXT_MASK: Final = 1 << 18
WALL_TEXT_MASK: Final = 1 << 19
KEKE_TEXT_MASK: Final = 1 << 20
GOOP_TEXT_MASK: Final = 1 << 21
LOVE_TEXT_MASK: Final = 1 << 22
IS_TEXT_MASK: Final = 1 << 23
YOU_TEXT_MASK: Final = 1 << 24
WIN_TEXT_MASK: Final = 1 << 25
STOP_TEXT_MASK: Final = 1 << 26
PUSH_TEXT_MASK: Final = 1 << 27
MOVE_TEXT_MASK: Final = 1 << 28
KILL_TEXT_MASK: Final = 1 << 29
SINK_TEXT_MASK: Final = 1 << 30
HOT_TEXT_MASK: Final = 1 << 31
MELT_TEXT_MASK: Final = 1 << 32
BORDER_MASK: Final = 1 << 33

TEXT_MASK: Final = 0x00000001fffff000  # all texts
NOUN_TEXT_MASK: Final = 0x00000000007ff000  # noun texts (subjects)
PROPERTY_TEXT_MASK: Final = 0x00000001ff000000  # property texts (definitions)
OBJECT_MASK: Final = 0x0000000000000ffe  # objects (not text, empty or border)

# tables indexed by id
NAMES: Final[tuple[str, ...]] = (
    "empty",
    "Baba",
    "skull",
    "flag",
    "floor",
    "grass",
    "lava",
    "rock",
    "wall",
    "keke",
    "goop",
    "love",
    "Baba text",
    "skull text",
    "flag text",
    "floor text",
    "grass text",
    "lava text",
    "rock text",
    "wall text",
    "keke text",
    "goop text",
    "love text",
    "is text",
    "you text",
    "win text",
    "stop text",
    "push text",
    "move text",
    "kill text",
    "sink text",
    "hot text",
    "melt text",
    "border",
)
KEKE_CHARS: Final[tuple[str, ...]] = (
    ".",  # empty
    "b",  # Baba
    "s",  # skull
    "f",  # flag
    "o",  # floor
    "a",  # grass
    "l",  # lava
    "r",  # rock
    "w",  # wall
    "k",  # keke
    "g",  # goop
    "v",  # love
    "B",  # Baba text
    "S",  # skull text
    "F",  # flag text
    "O",  # floor text
    "A",  # grass text
    "L",  # lava text
    "R",  # rock text
    "W",  # wall text
    "K",  # keke text
    "G",  # goop text
    "V",  # love text
    "1",  # is text
    "2",  # you text
    "3",  # win text
    "6",  # stop text
    "5",  # push text
    "7",  # move text
    "4",  # kill text
    "0",  # sink text
    "8",  # hot text
    "9",  # melt text
    "_",  # border
)
WORDS: Final[tuple[str, ...]] = (
    "empty",  # empty
    "baba",  # Baba
    "skull",  # skull
    "flag",  # flag
    "floor",  # floor
    "grass",  # grass
    "lava",  # lava
    "rock",  # rock
    "wall",  # wall
    "keke",  # keke
    "goop",  # goop
    "love",  # love
    "baba",  # Baba text
    "skull",  # skull text
    "flag",  # flag text
    "floor",  # floor text
    "grass",  # grass text
    "lava",  # lava text
    "rock",  # rock text
    "wall",  # wall text
    "keke",  # keke text
    "goop",  # goop text
    "love",  # love text
    "is",  # is text
    "you",  # you text
    "win",  # win text
    "stop",  # stop text
    "push",  # push text
    "move",  # move text
    "kill",  # kill text
    "sink",  # sink text
    "hot",  # hot text
    "melt",  # melt text
    "border",  # border
)
NOUN_TARGET: Final[tuple[int, ...]] = (
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
)
OBJECT_TEXT: Final[tuple[int, ...]] = (
    0, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
)
IS_TEXT_TILE: Final[tuple[bool, ...]] = (
    False, False, False, False, False, False, False, False,
    False, False, False, False, True, True, True, True,
    True, True, True, True, True, True, True, True,
    True, True, True, True, True, True, True, True,
    True, False,
)
IS_NOUN_TEXT: Final[tuple[bool, ...]] = (
    False, False, False, False, False, False, False, False,
    False, False, False, False, True, True, True, True,
    True, True, True, True, True, True, True, False,
    False, False, False, False, False, False, False, False,
    False, False,
)
IS_PROPERTY_TEXT: Final[tuple[bool, ...]] = (
    False, False, False, False, False, False, False, False,
    False, False, False, False, False, False, False, False,
    False, False, False, False, False, False, False, False,
    True, True, True, True, True, True, True, True,
    True, False,
)
IS_OBJECT: Final[tuple[bool, ...]] = (
    False, True, True, True, True, True, True, True,
    True, True, True, True, False, False, False, False,
    False, False, False, False, False, False, False, False,
    False, False, False, False, False, False, False, False,
    False, False,
)
KINDS: Final[tuple[str, ...]] = (
    "EMPTY", "OBJECT", "NOUN_TEXT", "OPERATOR_TEXT", "PROPERTY_TEXT", "BORDER",
)
TILE_KIND: Final[tuple[int, ...]] = (
    0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2,
    2, 2, 2, 2, 2, 2, 2, 3, 4, 4, 4, 4, 4, 4, 4, 4,
    4, 5,
)

# ids by kind, in tiles.json order
OBJECT_TILES: Final[tuple[int, ...]] = (
    BABA, SKULL, FLAG, FLOOR, GRASS, LAVA,
    ROCK, WALL, KEKE, GOOP, LOVE,
)
NOUN_TEXT_TILES: Final[tuple[int, ...]] = (
    BABA_TEXT, SKULL_TEXT, FLAG_TEXT, FLOOR_TEXT, GRASS_TEXT, LAVA_TEXT,
    ROCK_TEXT, WALL_TEXT, KEKE_TEXT, GOOP_TEXT, LOVE_TEXT,
)
PROPERTY_TILES: Final[tuple[int, ...]] = (
    YOU_TEXT, WIN_TEXT, STOP_TEXT, PUSH_TEXT, MOVE_TEXT, KILL_TEXT,
    SINK_TEXT, HOT_TEXT, MELT_TEXT,
)
PROPERTY_WORDS: Final[dict[int, str]] = {
    YOU_TEXT: "you",
    WIN_TEXT: "win",
    STOP_TEXT: "stop",
    PUSH_TEXT: "push",
    MOVE_TEXT: "move",
    KILL_TEXT: "kill",
    SINK_TEXT: "sink",
    HOT_TEXT: "hot",
    MELT_TEXT: "melt",
}

# lookups
BY_NAME: Final[dict[str, int]] = {name: i for i, name in enumerate(NAMES)}
BY_KEKE_CHAR: Final[dict[str, int]] = {c: i for i, c in enumerate(KEKE_CHARS)}
