/* generated from tiles.json by codegen — do not edit (run: python -m codegen) */
/* Tile ids and 64-bit tile masks (mask = 1 << id; empty has no bit). */
#ifndef BABASOLVER_TILES_H
#define BABASOLVER_TILES_H

#include <stdint.h>

#define N_TILES 34

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

#define M_BABA ((uint64_t)1 << 1)
#define M_SKULL ((uint64_t)1 << 2)
#define M_FLAG ((uint64_t)1 << 3)
#define M_FLOOR ((uint64_t)1 << 4)
#define M_GRASS ((uint64_t)1 << 5)
#define M_LAVA ((uint64_t)1 << 6)
#define M_ROCK ((uint64_t)1 << 7)
#define M_WALL ((uint64_t)1 << 8)
#define M_KEKE ((uint64_t)1 << 9)
#define M_GOOP ((uint64_t)1 << 10)
#define M_LOVE ((uint64_t)1 << 11)
#define M_BABA_TEXT ((uint64_t)1 << 12)
#define M_SKULL_TEXT ((uint64_t)1 << 13)
#define M_FLAG_TEXT ((uint64_t)1 << 14)
#define M_FLOOR_TEXT ((uint64_t)1 << 15)
#define M_GRASS_TEXT ((uint64_t)1 << 16)
#define M_LAVA_TEXT ((uint64_t)1 << 17)
#define M_ROCK_TEXT ((uint64_t)1 << 18)
#define M_WALL_TEXT ((uint64_t)1 << 19)
#define M_KEKE_TEXT ((uint64_t)1 << 20)
#define M_GOOP_TEXT ((uint64_t)1 << 21)
#define M_LOVE_TEXT ((uint64_t)1 << 22)
#define M_IS_TEXT ((uint64_t)1 << 23)
#define M_YOU_TEXT ((uint64_t)1 << 24)
#define M_WIN_TEXT ((uint64_t)1 << 25)
#define M_STOP_TEXT ((uint64_t)1 << 26)
#define M_PUSH_TEXT ((uint64_t)1 << 27)
#define M_MOVE_TEXT ((uint64_t)1 << 28)
#define M_KILL_TEXT ((uint64_t)1 << 29)
#define M_SINK_TEXT ((uint64_t)1 << 30)
#define M_HOT_TEXT ((uint64_t)1 << 31)
#define M_MELT_TEXT ((uint64_t)1 << 32)
#define M_BORDER ((uint64_t)1 << 33)

#define M_TEXT ((uint64_t)0x00000001fffff000ULL) /* all texts */
#define M_NOUN_TEXT ((uint64_t)0x00000000007ff000ULL) /* noun texts (subjects) */
#define M_PROPERTY_TEXT ((uint64_t)0x00000001ff000000ULL) /* property texts (definitions) */
#define M_OBJECT ((uint64_t)0x0000000000000ffeULL) /* objects (not text, empty or border) */

#if defined(__GNUC__) || defined(__clang__)
#define TILES_UNUSED __attribute__((unused))
#else
#define TILES_UNUSED
#endif

/* noun text id -> the id of its object; 0 for every other tile */
static const uint8_t NOUN_TARGET[N_TILES] TILES_UNUSED = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
};

/* object id -> the id of its noun text; 0 for every other tile */
static const uint8_t OBJECT_TEXT[N_TILES] TILES_UNUSED = {
    0, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
};

#endif /* BABASOLVER_TILES_H */
