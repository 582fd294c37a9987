/* generated from tiles.json by codegen — do not edit (run: python -m codegen) */
/* Tile ids, their kinds and the noun tables: the core's whole vocabulary. */
#ifndef BABASOLVER_TILES_H
#define BABASOLVER_TILES_H

#include <stdint.h>

#define N_TILES 34
/* 64-bit words in a set of tiles (one bit per id) */
#define TILE_WORDS 1

enum tile_id {
    T_EMPTY = 0,
    T_BABA = 1,
    T_SKULL = 2,
    T_FLAG = 3,
    T_FLOOR = 4,
    T_GRASS = 5,
    T_LAVA = 6,
    T_ROCK = 7,
    T_WALL = 8,
    T_KEKE = 9,
    T_GOOP = 10,
    T_LOVE = 11,
    T_BABA_TEXT = 12,
    T_SKULL_TEXT = 13,
    T_FLAG_TEXT = 14,
    T_FLOOR_TEXT = 15,
    T_GRASS_TEXT = 16,
    T_LAVA_TEXT = 17,
    T_ROCK_TEXT = 18,
    T_WALL_TEXT = 19,
    T_KEKE_TEXT = 20,
    T_GOOP_TEXT = 21,
    T_LOVE_TEXT = 22,
    T_IS_TEXT = 23,
    T_YOU_TEXT = 24,
    T_WIN_TEXT = 25,
    T_STOP_TEXT = 26,
    T_PUSH_TEXT = 27,
    T_MOVE_TEXT = 28,
    T_KILL_TEXT = 29,
    T_SINK_TEXT = 30,
    T_HOT_TEXT = 31,
    T_MELT_TEXT = 32,
    T_BORDER = 33,
};

enum tile_kind {
    KIND_EMPTY = 0,
    KIND_OBJECT = 1,
    KIND_NOUN_TEXT = 2,
    KIND_OPERATOR_TEXT = 3,
    KIND_PROPERTY_TEXT = 4,
    KIND_BORDER = 5,
};

#if defined(__GNUC__) || defined(__clang__)
#define TILES_UNUSED __attribute__((unused))
#else
#define TILES_UNUSED
#endif

/* tile id -> its KIND_* */
static const uint8_t TILE_KIND[N_TILES] TILES_UNUSED = {
    0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2,
    2, 2, 2, 2, 2, 2, 2, 3, 4, 4, 4, 4, 4, 4, 4, 4,
    4, 5,
};

/* noun text id -> the id of its object; 0 for every other tile */
static const uint16_t NOUN_TARGET[N_TILES] TILES_UNUSED = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
};

/* object id -> the id of its noun text; 0 for every other tile */
static const uint16_t OBJECT_TEXT[N_TILES] TILES_UNUSED = {
    0, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
};

#endif /* BABASOLVER_TILES_H */
