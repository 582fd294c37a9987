# The C-level core: positions of the judge's game with object identity,
# their canonical packing, the visited store, and batch expansion of BFS
# states without the GIL. The judge's turn is in _judge.pxi, the store in
# _store.pxi. Compiler directives are set once, in setup.py.
from libc.stdint cimport uint8_t, uint16_t, uint32_t, uint64_t, int64_t, int32_t
from libc.stdlib cimport malloc, calloc, realloc, free, qsort
from libc.string cimport memcpy, memmove, memset, memcmp

from babasolver._tiles cimport *

from babasolver import tiles

cdef extern from *:
    """
    static inline void core_prefetch(const void* p) { __builtin_prefetch(p); }
    /* Both halves of a 64x64-bit product, folded: the mixing step of the hash. */
    static inline uint64_t core_mix(uint64_t a, uint64_t b) {
        __uint128_t product = (__uint128_t)a * b;
        return (uint64_t)product ^ (uint64_t)(product >> 64);
    }
    #if defined(__linux__)
    #include <sys/mman.h>
    #endif
    /* The store's big arrays: zeroed blocks that grow. On Linux they are
       mappings grown by mremap, which moves pages instead of copying them
       (realloc copied the arena at every doubling, faulting in every page
       twice), with 2 MiB pages asked for so random probes miss the TLB less.
       Elsewhere, calloc and realloc. */
    static void* core_block_new(size_t n) {
    #if defined(__linux__) && defined(MREMAP_MAYMOVE)
        void* p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) return NULL;
        /* The whole mapping, so it stays one region that mremap can grow. */
    #if defined(MADV_HUGEPAGE)
        madvise(p, n, MADV_HUGEPAGE);
    #endif
        return p;
    #else
        return calloc(n, 1);
    #endif
    }
    static void* core_block_grow(void* p, size_t old_n, size_t new_n) {
    #if defined(__linux__) && defined(MREMAP_MAYMOVE)
        void* q = mremap(p, old_n, new_n, MREMAP_MAYMOVE);
        if (q == MAP_FAILED) return NULL;
    #if defined(MADV_HUGEPAGE)
        madvise(q, new_n, MADV_HUGEPAGE);
    #endif
        return q;
    #else
        char* q = (char*)realloc(p, new_n);
        if (q) memset(q + old_n, 0, new_n - old_n);
        return q;
    #endif
    }
    static void core_block_free(void* p, size_t n) {
        if (!p) return;
    #if defined(__linux__) && defined(MREMAP_MAYMOVE)
        munmap(p, n);
    #else
        free(p);
    #endif
    }
    """
    void core_prefetch(const void* p) nogil
    uint64_t core_mix(uint64_t a, uint64_t b) nogil
    void* core_block_new(size_t n) nogil
    void* core_block_grow(void* p, size_t old_n, size_t new_n) nogil
    void core_block_free(void* p, size_t n) nogil




cdef void* safe_realloc(void* p, size_t n) except NULL:
    """The one checked allocation: MemoryError instead of a null pointer."""
    cdef void* q = realloc(p, n if n else 1)
    if q == NULL:
        raise MemoryError(f"could not allocate {n} bytes")
    return q


include "_judge.pxi"
include "_store.pxi"

#: The most states a StateStore holds (26-bit indices).
STORE_CAPACITY = MAX_STATES


# ----------------------------------------------------------- packing --
# A state record, canonical for its position:
#   varint meta = (nouns that ever had objects, beyond those at load) << 2
#       | pairs_standing << 1 (a destruction check would find a pair as it stands)
#       | rules_stored
#   [when the level can transform] varint n, then n created objects in
#       creation order: tile byte, varint value
#   [when rules_stored] varint n, then n rules: left tile byte, right tile byte
#       (the rule list, stored only when it differs from a scan of the slots)
#   then, in thing order, each map thing whose value differs from the root
#       position's: varint (gap to the previous one - 1), varint value
# A value is 0 for an object out of play, else 1 + (cell << 4 | facing << 1 | surprise),
# the facing kept only for nouns that can ever be MOVE. `surprise` is whether
# the thing's hidden flag differs from its layer's: texts and YOU, MOVE, PUSH
# and STOP objects are expected in their slot, other objects hidden. So a
# rule that sends a hundred walls to the background changes no wall's value.

cdef inline int put_varint(uint8_t* out, int length, uint32_t value) noexcept nogil:
    while value >= 0x80:
        out[length] = <uint8_t>(value | 0x80)
        value >>= 7
        length += 1
    out[length] = <uint8_t>value
    return length + 1


cdef inline int get_varint(const uint8_t* data, int pos, int length, uint32_t* value) noexcept nogil:
    """Reads a varint at pos; -1 when it runs past `length` or is too long."""
    cdef uint32_t result = 0
    cdef int shift = 0
    while True:
        if pos >= length or shift > 28:
            return -1
        result |= (<uint32_t>(data[pos] & 0x7F)) << shift
        if not data[pos] & 0x80:
            value[0] = result
            return pos + 1
        shift += 7
        pos += 1


cdef inline uint32_t thing_value(const Geometry* geo, const Position* pos, const Props* props,
                                 int thing) noexcept nogil:
    cdef uint32_t facing = 0, surprise
    cdef int cell
    if not pos.alive[thing]:
        return 0
    cell = pos.cell[thing]
    surprise = pos.slot[cell] != thing
    if not is_text(geo, thing):
        if not props.noun_props[pos.tile[thing]] & P_LAYER:
            surprise ^= 1
        if (geo.facing_nouns >> pos.tile[thing]) & 1:
            facing = pos.facing[thing]
    return 1 + ((<uint32_t>cell << 4) | (facing << 1) | surprise)


cdef inline bint same_rules(const Props* a, const Props* b) noexcept nogil:
    return (a.n_rules == b.n_rules
            and memcmp(a.rule_left, b.rule_left, a.n_rules) == 0
            and memcmp(a.rule_right, b.rule_right, a.n_rules) == 0)


cdef int pack_head(const Geometry* geo, const Position* pos, const Props* props,
                   int flags, uint8_t* out) noexcept nogil:
    """The record up to the map things' entries. `flags`: RECORD_* bits."""
    cdef int i, n = 0, length
    cdef bint rules_stored = flags & RECORD_RULES
    length = put_varint(out, 0, ((pos.ever & ~geo.root_ever) << 2) | flags)
    if geo.can_create:
        for i in range(geo.n_base, pos.n_things):
            n += pos.alive[i]
        length = put_varint(out, length, n)
        for i in range(geo.n_base, pos.n_things):
            if pos.alive[i]:
                out[length] = pos.tile[i]
                length = put_varint(out, length + 1, thing_value(geo, pos, props, i))
    if rules_stored:
        length = put_varint(out, length, props.n_rules)
        for i in range(props.n_rules):
            out[length] = props.rule_left[i]
            out[length + 1] = props.rule_right[i]
            length += 2
    return length


cdef enum:
    RECORD_RULES = 1        # the rule list is stored
    RECORD_STANDING = 2     # a pair stands due for destruction


cdef inline int put_entry(const Geometry* geo, const Position* pos, const Props* props,
                          int thing, int* last, uint8_t* out, int length) noexcept nogil:
    """A map thing's entry, if its value differs from the root's."""
    cdef uint32_t value = thing_value(geo, pos, props, thing)
    if value == geo.root_value[thing]:
        return length
    length = put_varint(out, length, <uint32_t>(thing - last[0] - 1))
    last[0] = thing
    return put_varint(out, length, value)


cdef int pack_position(const Geometry* geo, const Position* pos, const Props* props,
                       int flags, uint8_t* out) noexcept nogil:
    """A whole-position pass: every map thing compared with the root."""
    cdef int i, last = -1
    cdef int length = pack_head(geo, pos, props, flags, out)
    for i in range(geo.n_base):
        length = put_entry(geo, pos, props, i, &last, out, length)
    return length


cdef int pack_changed(const Geometry* geo, const Position* pos, const Props* props,
                      int flags, const int* parent_diffs, int n_parent_diffs,
                      const int* touched, int n_touched, uint8_t* out) noexcept nogil:
    """The same record from the parent's differing things and the things
    the turn touched (both sorted): only they can differ from the root."""
    cdef int i = 0, j = 0, thing, last = -1
    cdef int length = pack_head(geo, pos, props, flags, out)
    while i < n_parent_diffs or j < n_touched:
        if j >= n_touched or (i < n_parent_diffs and parent_diffs[i] < touched[j]):
            thing = parent_diffs[i]
            i += 1
        elif i >= n_parent_diffs or touched[j] < parent_diffs[i]:
            thing = touched[j]
            j += 1
        else:
            thing = touched[j]
            i += 1
            j += 1
        length = put_entry(geo, pos, props, thing, &last, out, length)
    return length


cdef inline void place(const Geometry* geo, Position* pos, int thing, uint32_t value,
                       uint8_t* surprise) noexcept nogil:
    """A thing from its value. A text's slot is known at once; an object's
    waits for the rules (see place_objects)."""
    cdef uint32_t bits
    if value == 0:
        pos.alive[thing] = 0
        return
    bits = value - 1
    pos.alive[thing] = 1
    pos.cell[thing] = <uint16_t>(bits >> 4)
    pos.facing[thing] = <uint8_t>((bits >> 1) & 7)
    surprise[thing] = bits & 1
    if is_text(geo, thing) and not bits & 1:
        pos.slot[bits >> 4] = thing


cdef void place_objects(const Geometry* geo, Position* pos, const Props* props,
                        const uint8_t* surprise) noexcept nogil:
    """The objects' slots, once the rules say which layer each is in."""
    cdef int i
    for i in range(geo.n_base_objects):
        if pos.alive[i] and (surprise[i] ^ (0 if props.noun_props[pos.tile[i]] & P_LAYER else 1)) == 0:
            pos.slot[pos.cell[i]] = i
    for i in range(geo.n_base, pos.n_things):
        if pos.alive[i] and (surprise[i] ^ (0 if props.noun_props[pos.tile[i]] & P_LAYER else 1)) == 0:
            pos.slot[pos.cell[i]] = i


cdef int decode_record(const Geometry* geo, const uint8_t* record, int length, Position* pos,
                       Props* props, int* flags, int* diffs, int* n_diffs,
                       uint8_t* surprise) noexcept nogil:
    """Unpack a record into `pos` (and its stored rules into `props`); the
    map things it lists go to `diffs`. Objects' slots are left to
    place_objects. Returns -1 for bytes that are not a record of this level
    (checked, as unpack takes untrusted bytes)."""
    cdef uint32_t meta, count, value, gap, tile, left, right
    cdef int at, i, k, thing, next_diff = -1, n = 0
    at = get_varint(record, 0, length, &meta)
    if at < 0 or (meta >> 2) & ~0xFFE:
        return -1
    pos.ever = geo.root_ever | (meta >> 2)
    flags[0] = meta & 3
    memset(pos.slot, 0xFF, geo.ncells * sizeof(int32_t))
    pos.n_things = geo.n_base
    if geo.can_create:
        at = get_varint(record, at, length, &count)
        if at < 0 or count > <uint32_t>(geo.capacity - geo.n_base):
            return -1
        for k in range(<int>count):
            if at >= length:
                return -1
            tile = record[at]
            at = get_varint(record, at + 1, length, &value)
            if at < 0 or not (T_BABA <= tile <= T_LOVE) or value == 0 or ((value - 1) >> 4) >= <uint32_t>geo.ncells:
                return -1
            thing = pos.n_things
            pos.tile[thing] = <uint8_t>tile
            place(geo, pos, thing, value, surprise)
            pos.n_things += 1
    if flags[0] & RECORD_RULES:
        at = get_varint(record, at, length, &count)
        if at < 0 or count > MAX_RULES or at + 2 * <int>count > length:
            return -1
        props.n_rules = count
        for k in range(<int>count):
            props.rule_left[k] = record[at]
            props.rule_right[k] = record[at + 1]
            if not (T_BABA_TEXT <= record[at] <= T_MELT_TEXT and T_BABA_TEXT <= record[at + 1] <= T_MELT_TEXT):
                return -1
            at += 2
    # The map things: entries in order, the root's value elsewhere.
    if at < length:
        at = get_varint(record, at, length, &gap)
        if at < 0:
            return -1
        next_diff = <int>gap
    for i in range(geo.n_base):
        if i == next_diff:
            at = get_varint(record, at, length, &value)
            if at < 0 or (value and ((value - 1) >> 4) >= <uint32_t>geo.ncells):
                return -1
            if value == 0 and i >= geo.n_base_objects:
                return -1           # texts never leave play
            diffs[n] = i
            n += 1
            next_diff = -1
            if at < length:
                at = get_varint(record, at, length, &gap)
                if at < 0:
                    return -1
                next_diff = i + 1 + <int>gap
        else:
            value = geo.root_value[i]
        place(geo, pos, i, value, surprise)
    if at != length or next_diff != -1:
        return -1
    n_diffs[0] = n
    return 0


# ------------------------------------------------------------- level --

cdef class CoreLevel:
    """The fixed facts of a level: geometry, the map's things in load order,
    and the root position (after the load-time rule reading) that every
    state is packed against."""
    cdef Geometry geo
    cdef Position root
    cdef Props root_props
    cdef int root_flags             # RECORD_* of the root position
    cdef readonly int level_width, level_height
    cdef object buffers

    def __cinit__(self, int width, int height, grid):
        cdef int x, y, cell, tile, pad = 0, n_objects = 0, n_texts = 0, i, noun
        cdef Py_ssize_t n = len(grid)
        cdef uint64_t present = 0
        if width < 1 or height < 1 or n != width * height:
            raise ValueError(f"grid has {n} cells, expected {width}x{height}")
        self.level_width = width
        self.level_height = height
        self.buffers = []
        tiles = [int(t) for t in grid]
        for t in tiles:
            if t < 0 or t >= N_TILES:
                raise ValueError(f"unknown tile id {t}")
        # A ring of border cells around every level (Keke maps come with
        # one), so a move never needs a bounds check.
        for x in range(width):
            if tiles[x] != T_BORDER or tiles[(height - 1) * width + x] != T_BORDER:
                pad = 1
        for y in range(height):
            if tiles[y * width] != T_BORDER or tiles[y * width + width - 1] != T_BORDER:
                pad = 1
        if width < 3 or height < 3:
            pad = 1
        cdef int pw = width + 2 * pad, ph = height + 2 * pad
        if pw * ph > MAX_CELLS:
            raise ValueError(f"level is too large: {width}x{height} is {width * height} cells, "
                             f"the engine handles up to {MAX_CELLS - 2 * (width + height) - 4} cells")
        self.geo.width = pw
        self.geo.height = ph
        self.geo.ncells = pw * ph
        self.geo.pad = pad
        self.geo.delta[0] = -pw
        self.geo.delta[1] = pw
        self.geo.delta[2] = -1
        self.geo.delta[3] = 1
        self.geo.border = <uint8_t*>self.alloc(self.geo.ncells)
        memset(self.geo.border, 1, self.geo.ncells)
        objects = []
        texts = []
        for y in range(height):
            for x in range(width):
                tile = tiles[y * width + x]
                cell = (y + pad) * pw + x + pad
                if tile != T_BORDER:
                    self.geo.border[cell] = 0
                if T_BABA <= tile <= T_LOVE:
                    objects.append((tile, cell))
                elif T_BABA_TEXT <= tile <= T_MELT_TEXT:
                    texts.append((tile, cell))
                if tile != T_EMPTY:
                    present |= (<uint64_t>1) << tile
        n_objects = len(objects)
        n_texts = len(texts)
        self.geo.n_base_objects = n_objects
        self.geo.n_texts = n_texts
        self.geo.n_base = n_objects + n_texts
        self.geo.base_tile = <uint8_t*>self.alloc(self.geo.n_base + 1)
        self.geo.base_cell = <uint16_t*>self.alloc((self.geo.n_base + 1) * sizeof(uint16_t))
        for i, (t, c) in enumerate(objects + texts):
            self.geo.base_tile[i] = t
            self.geo.base_cell[i] = c
        is_things = [n_objects + k for k, (t, c) in enumerate(texts) if t == T_IS_TEXT]
        self.geo.n_is = len(is_things)
        self.geo.is_things = <int*>self.alloc((self.geo.n_is + 1) * sizeof(int))
        for i, t in enumerate(is_things):
            self.geo.is_things[i] = t
        # The map's objects of each noun, in reading order.
        memset(self.geo.noun_start, 0, sizeof(self.geo.noun_start))
        self.geo.noun_objects = <int*>self.alloc((n_objects + 1) * sizeof(int))
        i = 0
        for noun in range(64):
            self.geo.noun_start[noun] = i
            for k, (t, c) in enumerate(objects):
                if t == noun:
                    self.geo.noun_objects[i] = k
                    i += 1
        self.geo.noun_start[64] = i
        # Level analysis: a noun can gain MOVE, or be made by a
        # transformation, only if its text is on the map.
        noun_texts = [t for t in range(T_BABA_TEXT, T_LOVE_TEXT + 1) if present & ((<uint64_t>1) << t)]
        self.geo.facing_nouns = 0
        if present & ((<uint64_t>1) << T_MOVE_TEXT):
            for t in noun_texts:
                self.geo.facing_nouns |= (<uint64_t>1) << NOUN_TARGET[t]
        self.geo.can_create = self.geo.n_is > 0 and len(noun_texts) > 0
        def has(t):
            return bool(present & ((<uint64_t>1) << t))
        self.geo.can_destroy = self.geo.n_is > 0 and (
            has(T_KILL_TEXT) or has(T_SINK_TEXT) or (has(T_HOT_TEXT) and has(T_MELT_TEXT)))
        # During a turn, each reading can make an object per object and rule
        # before created objects are compacted; a scan finds at most two
        # rules per `is`.
        self.geo.capacity = self.geo.n_base + n_objects * (2 * self.geo.n_is + 1) + 1
        self.geo.root_ever = 0
        for t, c in objects:
            self.geo.root_ever |= 1u << t
        self.geo.root_value = <uint32_t*>self.alloc((self.geo.n_base + 1) * sizeof(uint32_t))
        # The root: every thing in its own slot, then the load-time reading.
        alloc_position(self, &self.root)
        for i in range(self.geo.n_base):
            self.root.tile[i] = self.geo.base_tile[i]
            self.root.cell[i] = self.geo.base_cell[i]
            self.root.facing[i] = 0
            self.root.alive[i] = 1
            self.root.slot[self.geo.base_cell[i]] = i
        self.root.n_things = self.geo.n_base
        self.root.ever = self.geo.root_ever
        _read_root(self)

    cdef void* alloc(self, size_t n) except NULL:
        """Zeroed memory owned by this level, freed with it."""
        cdef void* p = safe_realloc(NULL, n)
        memset(p, 0, n)
        self.buffers.append(<size_t>p)
        return p

    def __dealloc__(self):
        if self.buffers is not None:
            for p in self.buffers:
                free(<void*><size_t>p)

    @property
    def n_things(self):
        return self.geo.n_base

    @property
    def track_facing(self):
        return self.geo.facing_nouns != 0


cdef int alloc_position(CoreLevel level, Position* pos) except -1:
    cdef int n = level.geo.capacity
    pos.tile = <uint8_t*>level.alloc(n)
    pos.cell = <uint16_t*>level.alloc(n * sizeof(uint16_t))
    pos.facing = <uint8_t*>level.alloc(n)
    pos.alive = <uint8_t*>level.alloc(n)
    pos.slot = <int32_t*>level.alloc(level.geo.ncells * sizeof(int32_t))
    memset(pos.slot, 0xFF, level.geo.ncells * sizeof(int32_t))
    pos.n_things = 0
    pos.ever = 0
    return 0


cdef void copy_position(const Geometry* geo, Position* dst, const Position* src) noexcept nogil:
    cdef int n = src.n_things
    memcpy(dst.tile, src.tile, n)
    memcpy(dst.cell, src.cell, n * sizeof(uint16_t))
    memcpy(dst.facing, src.facing, n)
    memcpy(dst.alive, src.alive, n)
    memcpy(dst.slot, src.slot, geo.ncells * sizeof(int32_t))
    dst.n_things = n
    dst.ever = src.ever


cdef void copy_lists(Lists* dst, const Lists* src) noexcept nogil:
    cdef int which
    for which in range(N_LISTS):
        memcpy(dst.items[which], src.items[which], src.count[which] * sizeof(int))
        dst.count[which] = src.count[which]


cdef class Workspace:
    """A position and the scratch space to play turns on it, for one level."""
    cdef CoreLevel level
    cdef Position pos
    cdef Position saved             # the parent, to restore after a child
    cdef Props props                # the rules in force in `pos`
    cdef Lists lists
    cdef int record_flags           # RECORD_* of `pos`
    cdef Turn turn
    cdef UndoLog log
    cdef Props scanned              # scratch: a fresh scan
    cdef int* diffs                 # map things that differ from the root in `saved`
    cdef int n_diffs
    cdef int* touched
    cdef uint8_t* mark
    cdef uint8_t* surprise          # decoding: each thing's unexpected-hidden bit
    cdef int* new_diffs             # load_near: the next state's entries
    cdef uint32_t* new_values
    cdef uint32_t* changed_values
    cdef int* old_cells
    cdef int max_record

    def __cinit__(self, CoreLevel level):
        cdef const Geometry* geo = &level.geo
        cdef int n = geo.capacity, which, list_room = 2 * n + 2
        self.level = level
        # Position arrays are allocated on the level, which outlives this.
        alloc_position(level, &self.pos)
        alloc_position(level, &self.saved)
        for which in range(N_LISTS):
            self.lists.items[which] = <int*>level.alloc(list_room * sizeof(int))
            self.turn.lists.items[which] = <int*>level.alloc(list_room * sizeof(int))
            self.lists.count[which] = 0
            self.turn.lists.count[which] = 0
        self.turn.moved = <uint8_t*>level.alloc(n)
        self.turn.moved_list = <int*>level.alloc(n * sizeof(int))
        self.turn.n_moved = 0
        self.turn.max_pairs = n
        self.turn.pair_a = <int*>level.alloc((n + 1) * sizeof(int))
        self.turn.pair_b = <int*>level.alloc((n + 1) * sizeof(int))
        self.turn.seen = <int*>level.alloc(n * sizeof(int))
        self.turn.stamp = <int32_t*>level.alloc(geo.ncells * sizeof(int32_t))
        self.turn.chain_head = <int32_t*>level.alloc(geo.ncells * sizeof(int32_t))
        self.turn.chain_next = <int*>level.alloc(list_room * sizeof(int))
        self.turn.died = <int*>level.alloc(n * sizeof(int))
        self.turn.died_list = <int*>level.alloc((2 * n + 2) * sizeof(int))
        self.turn.n_died = 0
        self.turn.fast = False
        self.turn.parent_stamp = <int32_t*>level.alloc(geo.ncells * sizeof(int32_t))
        self.turn.parent_head = <int32_t*>level.alloc(geo.ncells * sizeof(int32_t))
        self.turn.parent_next = <int*>level.alloc(n * sizeof(int))
        self.turn.parent_epoch = 0
        self.turn.epoch = 0
        self.turn.snapshot = <int*>level.alloc(list_room * sizeof(int))
        self.turn.snapshot2 = <int*>level.alloc(list_room * sizeof(int))
        self.turn.snapshot3 = <int*>level.alloc(list_room * sizeof(int))
        # A turn without a rule reading or destruction changes each moved
        # thing's cell, facing and two slots; more than that abandons the log.
        self.log.capacity = 8 * n + 64
        self.log.n = 0
        self.log.where = <int32_t*>level.alloc(self.log.capacity * sizeof(int32_t))
        self.log.before = <int32_t*>level.alloc(self.log.capacity * sizeof(int32_t))
        self.log.kind = <uint8_t*>level.alloc(self.log.capacity)
        self.diffs = <int*>level.alloc((geo.n_base + 1) * sizeof(int))
        self.touched = <int*>level.alloc((2 * self.log.capacity + 1) * sizeof(int))
        self.mark = <uint8_t*>level.alloc(n)
        self.surprise = <uint8_t*>level.alloc(n)
        self.new_diffs = <int*>level.alloc((geo.n_base + 1) * sizeof(int))
        self.new_values = <uint32_t*>level.alloc((geo.n_base + 1) * sizeof(uint32_t))
        self.changed_values = <uint32_t*>level.alloc((2 * geo.n_base + 1) * sizeof(uint32_t))
        self.old_cells = <int*>level.alloc((2 * geo.n_base + 1) * sizeof(int))
        self.max_record = 16 + 6 * n + 2 * MAX_RULES + 8 * geo.n_base
        # A map thing's tile never changes (a transformation makes a new object).
        memcpy(self.pos.tile, geo.base_tile, geo.n_base)
        memcpy(self.saved.tile, geo.base_tile, geo.n_base)

    cdef void set_root_unread(self) noexcept nogil:
        """The root position with the level's root rules, its flags not known yet."""
        copy_position(&self.level.geo, &self.pos, &self.level.root)
        self.props = self.level.root_props
        self.record_flags = 0
        self.turn.props_changed = self.turn.lists_changed = self.turn.text_slots_changed = False
        build_lists(&self.level.geo, &self.pos, &self.props, &self.lists)

    cdef void set_root(self) noexcept nogil:
        """The level as loaded, with its rules and lists."""
        cdef const Geometry* geo = &self.level.geo
        copy_position(geo, &self.pos, &self.level.root)
        self.props = self.level.root_props
        self.record_flags = self.level.root_flags
        build_lists(geo, &self.pos, &self.props, &self.lists)
        self.n_diffs = 0

    cdef int load(self, const uint8_t* record, int length) noexcept nogil:
        """Decode a record into `pos`, with its rules and lists; -1 if invalid."""
        cdef const Geometry* geo = &self.level.geo
        if decode_record(geo, record, length, &self.pos, &self.props, &self.record_flags,
                         self.diffs, &self.n_diffs, self.surprise) < 0:
            return -1
        if not self.record_flags & RECORD_RULES:
            scan_rules(geo, &self.pos, &self.props)     # reads only texts' slots
        derive_props(&self.props)
        place_objects(geo, &self.pos, &self.props, self.surprise)
        build_lists(geo, &self.pos, &self.props, &self.lists)
        return 0

    cdef int load_near(self, const uint8_t* record, int length) noexcept nogil:
        """Move `pos` and `saved` from the parent just expanded to the state
        in `record` by changing only the map things either lists: 0 when
        done, 1 when it takes a whole decode (created objects, stored or
        changed rules), -1 for bytes that are not a record."""
        cdef const Geometry* geo = &self.level.geo
        cdef Position* pos = &self.pos
        cdef uint32_t meta, count, gap, value, old
        cdef int at, n = 0, i = -1, a = 0, b = 0, thing, changed = 0, k, cell
        cdef bint lists_stale = False
        at = get_varint(record, 0, length, &meta)
        if at < 0 or (meta >> 2) & ~0xFFE:
            return -1
        if meta & RECORD_RULES or self.record_flags & RECORD_RULES or pos.n_things != geo.n_base:
            return 1
        if geo.can_create:
            at = get_varint(record, at, length, &count)
            if at < 0:
                return -1
            if count:
                return 1
        while at < length:
            at = get_varint(record, at, length, &gap)
            if at < 0:
                return -1
            i += <int>gap + 1
            at = get_varint(record, at, length, &value)
            if (at < 0 or i >= geo.n_base or (value and ((value - 1) >> 4) >= <uint32_t>geo.ncells)
                    or (value == 0 and i >= geo.n_base_objects)):
                return -1
            self.new_diffs[n] = i
            self.new_values[n] = value
            n += 1
        # The things whose values differ between the two states.
        while a < self.n_diffs or b < n:
            if b >= n or (a < self.n_diffs and self.diffs[a] < self.new_diffs[b]):
                thing = self.diffs[a]
                value = geo.root_value[thing]
                a += 1
            else:
                thing = self.new_diffs[b]
                value = self.new_values[b]
                if a < self.n_diffs and self.diffs[a] == thing:
                    a += 1
                b += 1
            old = thing_value(geo, pos, &self.props, thing)
            if old != value:
                self.touched[changed] = thing
                self.changed_values[changed] = value
                self.old_cells[changed] = pos.cell[thing] if old else -1
                changed += 1
        for k in range(changed):
            thing = self.touched[k]
            if self.old_cells[k] >= 0 and pos.slot[self.old_cells[k]] == thing:
                pos.slot[self.old_cells[k]] = NO_THING
        for k in range(changed):
            thing = self.touched[k]
            if pos.alive[thing] != (self.changed_values[k] != 0):
                lists_stale = True
            place(geo, pos, thing, self.changed_values[k], self.surprise)
        for k in range(changed):
            if is_text(geo, self.touched[k]):
                # Only texts' slots decide the scan: read it again.
                scan_rules(geo, pos, &self.scanned)
                if not same_rules(&self.scanned, &self.props):
                    return 1                    # layers may change everywhere
                break
        for k in range(changed):
            thing = self.touched[k]
            if (not is_text(geo, thing) and pos.alive[thing]
                    and (self.surprise[thing] ^ (0 if self.props.noun_props[pos.tile[thing]] & P_LAYER else 1)) == 0):
                pos.slot[pos.cell[thing]] = thing
        if lists_stale:
            build_lists(geo, pos, &self.props, &self.lists)
        pos.ever = geo.root_ever | (meta >> 2)
        self.record_flags = meta & 3
        memcpy(self.diffs, self.new_diffs, n * sizeof(int))
        self.n_diffs = n
        # `saved` is the parent too: the same changes.
        for k in range(changed):
            thing = self.touched[k]
            self.saved.cell[thing] = pos.cell[thing]
            self.saved.alive[thing] = pos.alive[thing]
            self.saved.facing[thing] = pos.facing[thing]
            if self.old_cells[k] >= 0:
                self.saved.slot[self.old_cells[k]] = pos.slot[self.old_cells[k]]
            cell = pos.cell[thing]
            self.saved.slot[cell] = pos.slot[cell]
        self.saved.ever = pos.ever
        return 0

    cdef int flags_now(self, int flags, bint exact) noexcept nogil:
        """The RECORD_* flags of `pos` after a turn with TURN_* `flags`: only a
        rule reading can leave a pair standing or make the rule list other than
        a scan of the slots; text slots changing hands can do the latter too.
        `exact` looks again whatever the turn did."""
        cdef const Props* rules = &self.turn.props if self.turn.props_changed else &self.props
        cdef const Lists* lists = &self.turn.lists if self.turn.lists_changed else &self.lists
        cdef int out = self.record_flags & RECORD_RULES
        if exact or self.turn.props_changed or self.turn.text_slots_changed or flags & TURN_RELAYERED:
            scan_rules(&self.level.geo, &self.pos, &self.scanned)
            out = 0 if same_rules(&self.scanned, rules) else RECORD_RULES
        if (exact or self.turn.props_changed) and self.level.geo.can_destroy:
            if pairs_standing(&self.level.geo, &self.pos, &self.turn, lists):
                out |= RECORD_STANDING
        return out

    cdef int pack_child(self, int flags, uint8_t* out) noexcept nogil:
        """The record of `pos` after a turn from `saved` (whose map-thing
        differences are `diffs`)."""
        cdef const Geometry* geo = &self.level.geo
        cdef const Props* rules = &self.turn.props if self.turn.props_changed else &self.props
        cdef int record_flags = self.flags_now(flags, False)
        cdef int i, n = 0, thing, j, k
        if flags & TURN_RELAYERED or self.log.n < 0 or self.log.n > TOUCHED_LIMIT:
            return pack_position(geo, &self.pos, rules, record_flags, out)
        for i in range(self.log.n):
            for k in range(2):
                if self.log.kind[i] == UNDO_SLOT:
                    thing = self.log.before[i] if k == 0 else self.pos.slot[self.log.where[i]]
                elif k == 0:
                    thing = self.log.where[i]
                else:
                    thing = -1
                if 0 <= thing < geo.n_base and not self.mark[thing]:
                    self.mark[thing] = 1
                    # insertion sort: few things change per turn
                    j = n
                    while j > 0 and self.touched[j - 1] > thing:
                        self.touched[j] = self.touched[j - 1]
                        j -= 1
                    self.touched[j] = thing
                    n += 1
        for i in range(n):
            self.mark[self.touched[i]] = 0
        return pack_changed(geo, &self.pos, rules, record_flags, self.diffs, self.n_diffs,
                            self.touched, n, out)

    cdef int pack(self, uint8_t* out) noexcept nogil:
        """The record of `pos` as it stands, from scratch."""
        return pack_position(&self.level.geo, &self.pos, &self.props, self.record_flags, out)

    cdef void prepare_parent(self) noexcept nogil:
        """Before playing the children of `pos`: unless a pair stands due,
        turns look for destruction only where things moved, so chain the
        parent's objects by cell for them."""
        cdef const Geometry* geo = &self.level.geo
        cdef Turn* turn = &self.turn
        cdef int i, n, thing, cell
        turn.fast = not self.record_flags & RECORD_STANDING
        if not turn.fast or not geo.can_destroy:
            return
        turn.parent_epoch += 1
        n = live_objects(geo, &self.pos, turn.snapshot3)
        for i in range(n - 1, -1, -1):
            thing = turn.snapshot3[i]
            cell = self.pos.cell[thing]
            if turn.parent_stamp[cell] != turn.parent_epoch:
                turn.parent_stamp[cell] = turn.parent_epoch
                turn.parent_head[cell] = -1
            turn.parent_next[thing] = turn.parent_head[cell]
            turn.parent_head[cell] = thing

    cdef bint wait_is_idle(self) noexcept nogil:
        """Waiting from `pos` changes nothing: no MOVE object, no pair due."""
        return not self.lists.count[L_MOVE] and not self.record_flags & RECORD_STANDING

    cdef void restore(self) noexcept nogil:
        """Put `pos` back to `saved` after a child."""
        if self.log.n < 0:
            copy_position(&self.level.geo, &self.pos, &self.saved)
        else:
            undo(&self.pos, &self.log)
        self.log.n = 0

    cdef int play(self, int action) noexcept nogil:
        return play_turn(&self.level.geo, &self.pos, &self.log, &self.turn, &self.props,
                         &self.lists, action)

    cdef void adopt_turn(self, int flags) noexcept nogil:
        """Make the position after a turn the current one (no restore)."""
        self.record_flags = self.flags_now(flags, True)
        if self.turn.props_changed:
            self.props = self.turn.props
        if self.turn.lists_changed:
            copy_lists(&self.lists, &self.turn.lists)
        self.log.n = 0


def _read_root(CoreLevel level):
    """The load-time rule reading, and the root values states are packed against."""
    cdef Workspace work = Workspace(level)
    cdef UndoLog no_log
    cdef int i
    no_log.n = -1
    read_rules(&level.geo, &level.root, &no_log, &work.turn, &level.root_props, &work.turn.lists, 1)
    compact_created(&level.geo, &level.root)
    for i in range(level.geo.n_base):
        level.geo.root_value[i] = thing_value(&level.geo, &level.root, &level.root_props, i)
    work.set_root_unread()
    level.root_flags = work.flags_now(0, True)


# ------------------------------------------------- Python-facing classes --

ILLEGAL_REASONS = {
    ILLEGAL_KILL: "the KILL check names {thing} more than once",
    ILLEGAL_SINK: "the SINK check names {thing} more than once",
    ILLEGAL_SINK_GONE: "the SINK check pairs {thing}, which the KILL check already destroyed",
    ILLEGAL_HOT: "the HOT/MELT check names {thing} more than once",
}


cdef class CoreSimulation:
    """One game played turn by turn: the Cython engine behind game.Simulation."""
    cdef CoreLevel level
    cdef Workspace work
    cdef readonly bint won, dead
    cdef readonly object illegal

    def __cinit__(self, int width, int height, grid):
        self.level = CoreLevel(width, height, grid)
        self.work = Workspace(self.level)
        self.work.set_root()
        self.won = False     # the win check runs at the end of a turn, never at load
        self.illegal = None
        self.dead = not self.work.lists.count[L_YOU] and not self.work.lists.count[L_MOVE]

    def step(self, int action):
        if action < 0 or action > WAIT:
            raise ValueError(f"action must be 0..4, not {action}")
        if self.illegal is not None:
            raise RuntimeError(f"the game cannot go on after an illegal turn: {self.illegal}")
        cdef int flags = self.work.play(action)
        if flags & TURN_ILLEGAL:
            self.illegal = self.illegal_reason()
            self.won = False
            return
        self.work.adopt_turn(flags)
        self.won = (flags & TURN_WON) != 0
        self.dead = (flags & TURN_DEAD) != 0

    cdef str illegal_reason(self):
        cdef int thing = self.work.turn.illegal_thing
        cdef int width = self.level.geo.width, pad = self.level.geo.pad
        cdef int cell = self.work.pos.cell[thing]
        name = f"{tiles.NAMES[self.work.pos.tile[thing]]} at ({cell % width - pad}, {cell // width - pad})"
        return ILLEGAL_REASONS[self.work.turn.illegal].format(thing=name)

    cdef tuple xy(self, int cell):
        return (cell % self.level.geo.width - self.level.geo.pad,
                cell // self.level.geo.width - self.level.geo.pad)

    def objects(self):
        """(tile, x, y, facing, hidden) of every object in creation order."""
        cdef const Position* pos = &self.work.pos
        cdef int i
        out = []
        for i in list(range(self.level.geo.n_base_objects)) + list(range(self.level.geo.n_base, pos.n_things)):
            if pos.alive[i]:
                x, y = self.xy(pos.cell[i])
                out.append((pos.tile[i], x, y, pos.facing[i], pos.slot[pos.cell[i]] != i))
        return out

    def texts(self):
        """(tile, x, y, hidden) of every text in load order."""
        cdef const Position* pos = &self.work.pos
        cdef int i
        out = []
        for i in range(self.level.geo.n_base_objects, self.level.geo.n_base):
            x, y = self.xy(pos.cell[i])
            out.append((pos.tile[i], x, y, pos.slot[pos.cell[i]] != i))
        return out

    def rules(self):
        return [(self.work.props.rule_left[i], self.work.props.rule_right[i])
                for i in range(self.work.props.n_rules)]

    def pack(self):
        """The canonical state bytes of the current position."""
        cdef bytearray out = bytearray(self.work.max_record)
        cdef int length = self.work.pack(<uint8_t*><char*>out)
        return bytes(out[:length])

    def unpack(self, bytes record):
        """Replace the position by a packed state."""
        if self.work.load(record, len(record)) < 0:
            raise ValueError("not a packed state of this level")
        self.won = False
        self.illegal = None
        self.dead = not self.work.lists.count[L_YOU] and not self.work.lists.count[L_MOVE]


# ------------------------------------------------------- batch expansion --

cdef class Expander:
    """Expands ranges of stored states in C, without the GIL: every action is
    played from each state, won children are reported, dead ends and turns
    the judge cannot play dropped, and new children are appended to the store.

    Expansion runs in two steps. `generate` plays a range of states into
    this expander's own list of children and only reads the store, so several
    expanders (one per thread) can generate at once; `insert_generated` then
    adds the children to the store, in order. `expand` does both."""
    cdef CoreLevel level
    cdef StateStore store
    cdef Workspace work
    # The children generated, in order: child i is
    # out_bytes[out_start[i]:out_start[i + 1]].
    cdef uint8_t* out_bytes
    cdef size_t out_used, out_capacity
    cdef uint32_t* out_start
    cdef uint64_t* out_hash
    cdef uint32_t* out_parent
    cdef uint8_t* out_action
    cdef size_t out_count, out_room
    cdef public bint incremental    # decode a state from the last one, pack children from their parent
    cdef readonly int n_actions
    cdef readonly uint64_t generated, expanded, dead_ends, illegal
    cdef readonly int64_t won_parent
    cdef readonly int won_action

    def __cinit__(self, CoreLevel level, StateStore store):
        self.level = level
        self.store = store
        self.work = Workspace(level)
        self.out_capacity = 1 << 16
        while self.out_capacity < 4 * <size_t>self.work.max_record:
            self.out_capacity *= 2
        self.out_room = 1 << 12
        self.out_bytes = <uint8_t*>safe_realloc(NULL, self.out_capacity)
        self.out_start = <uint32_t*>safe_realloc(NULL, (self.out_room + 1) * sizeof(uint32_t))
        self.out_hash = <uint64_t*>safe_realloc(NULL, self.out_room * sizeof(uint64_t))
        self.out_parent = <uint32_t*>safe_realloc(NULL, self.out_room * sizeof(uint32_t))
        self.out_action = <uint8_t*>safe_realloc(NULL, self.out_room)
        self.out_count = self.out_used = 0
        self.out_start[0] = 0
        self.incremental = True
        # Waiting changes nothing but by MOVE objects or by destruction that
        # new rules made due; both need texts, so a level without `is` has 4.
        self.n_actions = 5 if level.geo.n_is else 4
        self.generated = self.expanded = self.dead_ends = self.illegal = 0
        self.won_parent = -1
        self.won_action = -1

    def __dealloc__(self):
        free(self.out_bytes)
        free(self.out_start)
        free(self.out_hash)
        free(self.out_parent)
        free(self.out_action)

    def add_root(self):
        """Store the level's initial state as state 0."""
        cdef bytearray out = bytearray(self.work.max_record)
        cdef int length
        self.work.set_root()
        length = self.work.pack(<uint8_t*><char*>out)
        return self.store.add(bytes(out[:length]))

    def root_is_dead(self):
        """True when the level as loaded has no YOU and no MOVE object."""
        self.work.set_root()
        return not self.work.lists.count[L_YOU] and not self.work.lists.count[L_MOVE]

    def expand(self, size_t start, size_t stop):
        """Expand states [start, stop) and store their new children. Returns
        1 when a child wins (see won_parent / won_action; the children before
        it are stored), 0 otherwise; raises MemoryError when the store cannot
        grow."""
        cdef int won = self.generate(start, stop)
        self.insert_generated()
        return won

    def generate(self, size_t start, size_t stop):
        """Play every action from states [start, stop) into this expander's
        list of children (replacing the last list), stopping at the first
        child that wins (returns 1; the list holds the children before it).
        Reads the store but does not change it."""
        cdef int result
        if stop > <size_t>len(self.store) or start > stop:
            raise IndexError(f"states [{start}, {stop}) are not all stored")
        with nogil:
            result = self.expand_range(start, stop)
        if result == -1:
            raise MemoryError("no memory for the children of a batch")
        if result == -2:
            raise ValueError("a stored state does not decode: the store holds another level's states")
        return result

    def insert_generated(self):
        """Add the children listed by the last `generate` to the store, in
        order (those already there are dropped)."""
        cdef int result
        with nogil:
            result = self.insert_children()
        if result < 0:
            raise MemoryError("the visited table could not grow")

    cdef int make_room(self) noexcept nogil:
        """Room for one more child of the largest size."""
        cdef size_t capacity, room
        cdef void* grown
        cdef size_t need = self.out_used + self.work.max_record + ARENA_SLACK
        if need > self.out_capacity:
            capacity = self.out_capacity * 2
            while need > capacity:
                capacity *= 2
            grown = realloc(self.out_bytes, capacity)
            if not grown:
                return -1
            self.out_bytes = <uint8_t*>grown
            self.out_capacity = capacity
        if self.out_count == self.out_room:
            room = self.out_room * 2
            grown = realloc(self.out_start, (room + 1) * sizeof(uint32_t))
            if not grown:
                return -1
            self.out_start = <uint32_t*>grown
            grown = realloc(self.out_hash, room * sizeof(uint64_t))
            if not grown:
                return -1
            self.out_hash = <uint64_t*>grown
            grown = realloc(self.out_parent, room * sizeof(uint32_t))
            if not grown:
                return -1
            self.out_parent = <uint32_t*>grown
            grown = realloc(self.out_action, room)
            if not grown:
                return -1
            self.out_action = <uint8_t*>grown
            self.out_room = room
        return 0

    cdef inline void keep_child(self, int length, uint32_t parent, uint8_t action) noexcept nogil:
        """List the child packed at out_bytes + out_used."""
        cdef size_t i = self.out_count
        self.out_hash[i] = self.store.hash_record(self.out_bytes + self.out_used, length)
        self.out_parent[i] = parent
        self.out_action[i] = action
        self.out_used += length
        self.out_count = i + 1
        self.out_start[i + 1] = <uint32_t>self.out_used

    cdef int insert_children(self) noexcept nogil:
        """Insert the listed children in order. Each one's table slot is
        prefetched INSERT_LAG children before its insert, the state found
        there at PEEK_LAG, and that state's bytes at FETCH_LAG, so an
        insert rarely waits for memory."""
        cdef size_t i, j, n = self.out_count
        cdef int64_t candidates[QUEUE_SIZE]
        cdef int64_t child
        for i in range(n + INSERT_LAG):
            if i < n:
                self.store.prefetch(self.out_hash[i])
            if PEEK_LAG <= i < n + PEEK_LAG:
                j = i - PEEK_LAG
                candidates[j % QUEUE_SIZE] = self.store.peek(self.out_hash[j])
            if FETCH_LAG <= i < n + FETCH_LAG:
                j = i - FETCH_LAG
                self.store.fetch(candidates[j % QUEUE_SIZE])
            if i >= INSERT_LAG:
                j = i - INSERT_LAG
                child = self.store.insert_hashed(
                    self.out_bytes + self.out_start[j], <int>(self.out_start[j + 1] - self.out_start[j]),
                    self.out_hash[j], self.out_parent[j], self.out_action[j])
                if child == -2:
                    return -1
        self.out_count = self.out_used = 0
        return 0

    cdef int expand_range(self, size_t start, size_t stop) noexcept nogil:
        cdef const Geometry* geo = &self.level.geo
        cdef size_t index
        cdef int action, flags, length, loaded
        cdef const uint8_t* record
        self.out_count = self.out_used = 0
        for index in range(start, stop):
            # The arena does not move while generating: inserts come after.
            record = self.store.arena + self.store.offsets[index]
            length = <int>(self.store.offsets[index + 1] - self.store.offsets[index])
            loaded = self.work.load_near(record, length) if index != start and self.incremental else 1
            if loaded == 1:
                loaded = self.work.load(record, length)
                copy_position(geo, &self.work.saved, &self.work.pos)
            if loaded < 0:
                return -2
            self.work.prepare_parent()
            self.expanded += 1
            for action in range(self.n_actions):
                if action == WAIT and index != 0 and self.work.wait_is_idle():
                    break
                flags = self.work.play(action)
                self.generated += 1
                if flags & TURN_ILLEGAL:
                    self.illegal += 1
                elif flags & TURN_WON:
                    self.won_parent = <int64_t>index
                    self.won_action = action
                    self.work.restore()
                    return 1
                elif not flags & TURN_CHANGED:
                    pass            # the child is its parent
                elif flags & TURN_DEAD:
                    self.dead_ends += 1
                else:
                    if self.make_room() < 0:
                        self.work.restore()
                        return -1
                    if self.incremental:
                        length = self.work.pack_child(flags, self.out_bytes + self.out_used)
                    else:
                        length = pack_position(geo, &self.work.pos,
                                               &self.work.turn.props if self.work.turn.props_changed else &self.work.props,
                                               self.work.flags_now(flags, False),
                                               self.out_bytes + self.out_used)
                    self.keep_child(length, <uint32_t>index, <uint8_t>action)
                self.work.restore()
        return 0


include "_bestfirst.pxi"
