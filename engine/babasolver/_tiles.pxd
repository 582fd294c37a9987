# generated from tiles.json by codegen — do not edit (run: python -m codegen)
# Cython view of _tiles.h. Use it with `from babasolver._tiles cimport *` (include path engine/).
from libc.stdint cimport uint8_t, uint16_t

cdef extern from "_tiles.h":
    enum: N_TILES
    enum: TILE_WORDS  # 64-bit words in a set of tiles

    enum:
        T_EMPTY
        T_BABA
        T_SKULL
        T_FLAG
        T_FLOOR
        T_GRASS
        T_LAVA
        T_ROCK
        T_WALL
        T_KEKE
        T_GOOP
        T_LOVE
        T_BABA_TEXT
        T_SKULL_TEXT
        T_FLAG_TEXT
        T_FLOOR_TEXT
        T_GRASS_TEXT
        T_LAVA_TEXT
        T_ROCK_TEXT
        T_WALL_TEXT
        T_KEKE_TEXT
        T_GOOP_TEXT
        T_LOVE_TEXT
        T_IS_TEXT
        T_YOU_TEXT
        T_WIN_TEXT
        T_STOP_TEXT
        T_PUSH_TEXT
        T_MOVE_TEXT
        T_KILL_TEXT
        T_SINK_TEXT
        T_HOT_TEXT
        T_MELT_TEXT
        T_BORDER

    enum:
        KIND_EMPTY
        KIND_OBJECT
        KIND_NOUN_TEXT
        KIND_OPERATOR_TEXT
        KIND_PROPERTY_TEXT
        KIND_BORDER

    const uint8_t TILE_KIND[34]  # tile id -> KIND_*
    const uint16_t NOUN_TARGET[34]  # noun text id -> object id, 0 elsewhere
    const uint16_t OBJECT_TEXT[34]  # object id -> noun text id, 0 elsewhere
