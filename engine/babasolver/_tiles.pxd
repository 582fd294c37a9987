# generated from tiles.json by codegen — do not edit (run: python -m codegen)
# Cython view of _tiles.h. Use it with `from babasolver._tiles cimport *` (include path engine/).
from libc.stdint cimport uint8_t, uint64_t

cdef extern from "_tiles.h":
    enum: N_TILES

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

    const uint64_t M_BABA
    const uint64_t M_SKULL
    const uint64_t M_FLAG
    const uint64_t M_FLOOR
    const uint64_t M_GRASS
    const uint64_t M_LAVA
    const uint64_t M_ROCK
    const uint64_t M_WALL
    const uint64_t M_KEKE
    const uint64_t M_GOOP
    const uint64_t M_LOVE
    const uint64_t M_BABA_TEXT
    const uint64_t M_SKULL_TEXT
    const uint64_t M_FLAG_TEXT
    const uint64_t M_FLOOR_TEXT
    const uint64_t M_GRASS_TEXT
    const uint64_t M_LAVA_TEXT
    const uint64_t M_ROCK_TEXT
    const uint64_t M_WALL_TEXT
    const uint64_t M_KEKE_TEXT
    const uint64_t M_GOOP_TEXT
    const uint64_t M_LOVE_TEXT
    const uint64_t M_IS_TEXT
    const uint64_t M_YOU_TEXT
    const uint64_t M_WIN_TEXT
    const uint64_t M_STOP_TEXT
    const uint64_t M_PUSH_TEXT
    const uint64_t M_MOVE_TEXT
    const uint64_t M_KILL_TEXT
    const uint64_t M_SINK_TEXT
    const uint64_t M_HOT_TEXT
    const uint64_t M_MELT_TEXT
    const uint64_t M_BORDER

    const uint64_t M_TEXT  # all texts
    const uint64_t M_NOUN_TEXT  # noun texts (subjects)
    const uint64_t M_PROPERTY_TEXT  # property texts (definitions)
    const uint64_t M_OBJECT  # objects (not text, empty or border)

    const uint8_t NOUN_TARGET[34]  # noun text id -> object id, 0 elsewhere
    const uint8_t OBJECT_TEXT[34]  # object id -> noun text id, 0 elsewhere
