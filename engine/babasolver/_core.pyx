# The C-level core: one turn of RULES.md on a bit-mask board, the rule scan,
# state packing, and batch expansion of BFS states into a visited store.
# Compiler directives are set once, in setup.py.
from libc.stdint cimport uint8_t, uint16_t, uint32_t, uint64_t, int64_t
from libc.stdlib cimport malloc, calloc, realloc, free
from libc.string cimport memcpy, memmove, memset, memcmp

from babasolver._tiles cimport *

cdef extern from *:
    """
    static inline int core_ctz(uint64_t x) { return __builtin_ctzll(x); }
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
    int core_ctz(uint64_t x) nogil
    void core_prefetch(const void* p) nogil
    uint64_t core_mix(uint64_t a, uint64_t b) nogil
    void* core_block_new(size_t n) nogil
    void* core_block_grow(void* p, size_t old_n, size_t new_n) nogil
    void core_block_free(void* p, size_t n) nogil


# ---------------------------------------------------------------- facing --

cdef inline int get_facing(const Board* board, int cell, uint64_t bit) noexcept nogil:
    cdef int code = 0
    if board.face0[cell] & bit:
        code |= 1
    if board.face1[cell] & bit:
        code |= 2
    if board.face2[cell] & bit:
        code |= 4
    return code


cdef inline void set_facing(Board* board, int cell, uint64_t bit, int code) noexcept nogil:
    board.face0[cell] = (board.face0[cell] & ~bit) | (bit if code & 1 else 0)
    board.face1[cell] = (board.face1[cell] & ~bit) | (bit if code & 2 else 0)
    board.face2[cell] = (board.face2[cell] & ~bit) | (bit if code & 4 else 0)


cdef inline void clear_facing(Board* board, int cell, uint64_t bits) noexcept nogil:
    board.face0[cell] &= ~bits
    board.face1[cell] &= ~bits
    board.face2[cell] &= ~bits


cdef inline int opposite(int code) noexcept nogil:
    # Facing codes are action + 1; "none" moves right, so it turns left.
    if code == 1:
        return 2
    if code == 2:
        return 1
    if code == 4:
        return 3
    return 4 if code == 3 else 3


# ----------------------------------------------------------------- rules --

cdef inline void add_noun(uint8_t* order, int* count, int noun) noexcept nogil:
    cdef int i
    for i in range(count[0]):
        if order[i] == noun:
            return
    order[count[0]] = <uint8_t>noun
    count[0] += 1


cdef void apply_rule(Props* props, int left, int right) noexcept nogil:
    cdef uint64_t left_bit = (<uint64_t>1) << left
    cdef uint64_t right_bit = (<uint64_t>1) << right
    cdef int noun, target
    cdef uint64_t noun_bit
    if not (left_bit & M_NOUN_TEXT):
        return
    noun = NOUN_TARGET[left]
    noun_bit = (<uint64_t>1) << noun
    if right_bit & M_NOUN_TEXT:
        target = NOUN_TARGET[right]
        if target == noun:
            props.protected |= noun_bit
        elif props.n_transforms < MAX_RULES:
            props.transform_from[props.n_transforms] = <uint8_t>noun
            props.transform_to[props.n_transforms] = <uint8_t>target
            props.n_transforms += 1
    elif right == T_YOU_TEXT:
        props.you |= noun_bit
        add_noun(props.you_order, &props.n_you, noun)
    elif right == T_WIN_TEXT:
        props.win |= noun_bit
    elif right == T_STOP_TEXT:
        props.stop |= noun_bit
    elif right == T_PUSH_TEXT:
        props.push |= noun_bit
    elif right == T_MOVE_TEXT:
        props.move |= noun_bit
        add_noun(props.move_order, &props.n_move, noun)
    elif right == T_KILL_TEXT:
        props.kill |= noun_bit
    elif right == T_SINK_TEXT:
        props.sink |= noun_bit
    elif right == T_HOT_TEXT:
        props.hot |= noun_bit
    elif right == T_MELT_TEXT:
        props.melt |= noun_bit


cdef inline void scan_triple(Props* props, uint64_t before, uint64_t after) noexcept nogil:
    cdef uint64_t left_text = before & M_TEXT
    cdef uint64_t right_text = after & M_TEXT
    cdef int left, right, i
    if not left_text or not right_text:
        return
    # A cell never holds two texts: texts are always pushed out of the way.
    left = core_ctz(left_text)
    right = core_ctz(right_text)
    for i in range(props.n_rules):
        if props.rule_left[i] == left and props.rule_right[i] == right:
            return
    if props.n_rules >= MAX_RULES:
        return
    props.rule_left[props.n_rules] = <uint8_t>left
    props.rule_right[props.n_rules] = <uint8_t>right
    props.n_rules += 1
    apply_rule(props, left, right)


cdef void transform(const Geometry* geo, Board* board, const Props* props) noexcept nogil:
    cdef int r, cell
    cdef uint64_t from_bit, to_bit
    # Rules are taken in order over the current board, so transformations
    # chain within one reading (baba is rock, then rock is flag).
    for r in range(props.n_transforms):
        from_bit = (<uint64_t>1) << props.transform_from[r]
        to_bit = (<uint64_t>1) << props.transform_to[r]
        if props.protected & from_bit:
            continue
        for cell in range(geo.first, geo.stop):
            if not (board.grid[cell] & from_bit):
                continue
            board.grid[cell] &= ~from_bit
            if geo.track_facing:
                clear_facing(board, cell, from_bit)
            if not (board.grid[cell] & to_bit):
                board.grid[cell] |= to_bit
                if geo.track_facing:
                    clear_facing(board, cell, to_bit)


cdef void read_rules(const Geometry* geo, Board* board, Props* props, bint transform_objects) noexcept nogil:
    cdef int cell, n_is_cells = 0
    cdef int is_cells[MAX_CELLS]
    for cell in range(geo.first, geo.stop):
        if board.grid[cell] & M_IS_TEXT:
            is_cells[n_is_cells] = cell
            n_is_cells += 1
    read_rules_at(geo, board, props, is_cells, n_is_cells, transform_objects)


cdef void read_rules_at(const Geometry* geo, Board* board, Props* props, const int* is_cells,
                        int n_is_cells, bint transform_objects) noexcept nogil:
    """read_rules when the cells holding `is` are known, in reading order."""
    cdef int i, cell
    # Only the masks and counts: the lists are read no further than their counts.
    props.you = props.win = props.stop = props.push = props.move = 0
    props.kill = props.sink = props.hot = props.melt = props.protected = 0
    props.n_you = props.n_move = props.n_transforms = props.n_rules = 0
    for i in range(n_is_cells):
        cell = is_cells[i]
        scan_triple(props, board.grid[cell - 1], board.grid[cell + 1])
        scan_triple(props, board.grid[cell - geo.width], board.grid[cell + geo.width])
    props.push |= M_TEXT
    props.stop &= M_OBJECT
    props.movable = props.you | props.move | props.push
    if transform_objects and props.n_transforms:
        transform(geo, board, props)


# ------------------------------------------------------------------ turn --

cdef inline void note_changed(Scratch* scratch, int cell) noexcept nogil:
    cdef uint64_t bit = (<uint64_t>1) << (cell & 63)
    if not (scratch.changed_bits[cell >> 6] & bit):
        scratch.changed_bits[cell >> 6] |= bit
        scratch.changed[scratch.n_changed] = cell
        scratch.n_changed += 1


cdef inline void forget_changes(Scratch* scratch) noexcept nogil:
    cdef int i
    for i in range(scratch.n_changed):
        scratch.changed_bits[scratch.changed[i] >> 6] = 0
    scratch.n_changed = 0


cdef void sort_changed(const Geometry* geo, Scratch* scratch) noexcept nogil:
    """Put the changed cells in reading order, read off their bits."""
    cdef int word, n = 0
    cdef uint64_t bits
    for word in range((geo.ncells + 63) >> 6):
        bits = scratch.changed_bits[word]
        while bits:
            scratch.changed[n] = (word << 6) + core_ctz(bits)
            bits &= bits - 1
            n += 1


cdef bint clear_the_way(const Geometry* geo, Board* board, Scratch* scratch, const Props* props,
                        uint64_t bit, int target, int direction, uint64_t blocking) noexcept nogil:
    """Whether the occupants of `target` let an object (`bit`) in, pushing
    the pushable ones on. Several can share a cell (a pushed rock resting on
    a YOU object): each is asked in ascending tile order."""
    cdef int occupant
    cdef uint64_t occupant_bit
    while blocking:
        occupant = core_ctz(blocking)
        occupant_bit = (<uint64_t>1) << occupant
        blocking &= blocking - 1
        if occupant_bit & props.push:
            if not move_object(geo, board, scratch, props, occupant, target, direction):
                return False
        elif occupant_bit & props.you:
            if bit & props.you:
                return False
        else:
            return False
    return True


cdef inline bint move_object(const Geometry* geo, Board* board, Scratch* scratch, const Props* props,
                             int tile, int cell, int direction) noexcept nogil:
    # Inline: most moves go into a cell nothing blocks, with no call at all.
    cdef uint64_t bit = (<uint64_t>1) << tile
    cdef int target
    cdef uint64_t contents, blocking
    if scratch.moved[cell] & bit or not (props.movable & bit):
        return False
    target = cell + geo.delta[direction]
    contents = board.grid[target]
    if contents & (M_BORDER | props.stop):
        return False
    blocking = contents & (props.you | props.move | props.push)
    if blocking and not clear_the_way(geo, board, scratch, props, bit, target, direction, blocking):
        return False
    board.grid[cell] &= ~bit
    board.grid[target] |= bit
    note_changed(scratch, cell)
    note_changed(scratch, target)
    if not scratch.moved[target]:
        scratch.touched[scratch.n_touched] = target
        scratch.n_touched += 1
    scratch.moved[target] |= bit
    if geo.track_facing:
        clear_facing(board, cell, bit)
        set_facing(board, target, bit, direction + 1)
    if bit & M_TEXT:
        scratch.text_moved = True
    return True


cdef inline uint64_t doomed(const Props* props, uint64_t objects) noexcept nogil:
    """The objects of one cell that destruction removes: KILL, then SINK,
    then HOT/MELT, each seeing the result of the one before."""
    cdef uint64_t killers = props.kill | props.sink
    cdef uint64_t gone = 0
    if objects & props.you and objects & killers:
        gone = objects & (props.you | killers)
    objects &= ~gone
    # A sink destroys itself with any other object (two or more objects).
    if objects & props.sink and objects & (objects - 1):
        gone |= objects
        objects = 0
    if objects & props.hot and objects & props.melt:
        gone |= objects & (props.hot | props.melt)
    return gone


cdef inline bint can_destroy(const Props* props) noexcept nogil:
    return ((props.you and (props.kill | props.sink)) or props.sink
            or (props.hot and props.melt)) != 0


cdef int list_danger_cells(const Geometry* geo, const Board* board, const Props* props,
                           const int* key_cells, const uint8_t* key_kinds, int n_keys,
                           int* cells) noexcept nogil:
    """Cells where destruction is due already (a transformation or a new rule
    at the end of the last turn can leave such overlaps), with room for
    2 * ncells entries. Every such cell holds a KILL, SINK or HOT object,
    so only those objects' cells are looked at, found from the keys when
    they are given (see cells_of_noun)."""
    cdef int i, j, count = 0, base, found, tile, cell
    cdef uint64_t suspects
    if not can_destroy(props):
        return 0
    suspects = props.sink
    if props.you:
        suspects |= props.kill
    if props.melt:
        suspects |= props.hot
    suspects &= M_OBJECT
    while suspects:
        tile = core_ctz(suspects)
        suspects &= suspects - 1
        # Found cells go past the kept ones, which only overwrite cells read.
        base = count
        found = cells_of_noun(geo, board, key_cells, key_kinds, n_keys, tile, cells + base)
        for i in range(found):
            cell = cells[base + i]
            if not doomed(props, board.grid[cell] & M_OBJECT):
                continue
            # A cell with two suspects is listed once.
            j = 0
            while j < count and cells[j] != cell:
                j += 1
            if j == count:
                cells[count] = cell
                count += 1
    return count


cdef inline void destroy_in(const Geometry* geo, Board* board, Scratch* scratch, const Props* props,
                            int cell) noexcept nogil:
    cdef uint64_t gone = doomed(props, board.grid[cell] & M_OBJECT)
    if gone:
        board.grid[cell] &= ~gone
        if geo.track_facing:
            clear_facing(board, cell, gone)
        scratch.destroyed = True
        note_changed(scratch, cell)


cdef void destroy(const Geometry* geo, Board* board, Scratch* scratch, const Props* props) noexcept nogil:
    """Destruction can only be due where it was due before the turn, or
    where something arrived during it."""
    cdef int i
    if not can_destroy(props):
        return
    for i in range(scratch.n_danger):
        destroy_in(geo, board, scratch, props, scratch.danger_cells[i])
    for i in range(scratch.n_touched):
        destroy_in(geo, board, scratch, props, scratch.touched[i])


cdef int list_players(const Geometry* geo, const Board* board, const Props* props,
                      const int* key_cells, const uint8_t* key_kinds, int n_keys,
                      int* cells, uint8_t* tiles) noexcept nogil:
    """The YOU objects in the order they move: YOU rules in rule order, then
    the objects of one noun in reading order of their cells (see
    cells_of_noun for the keys, which may be NULL)."""
    cdef int i, k, noun, n, count = 0
    for i in range(props.n_you):
        noun = props.you_order[i]
        n = cells_of_noun(geo, board, key_cells, key_kinds, n_keys, noun, cells + count)
        for k in range(count, count + n):
            tiles[k] = <uint8_t>noun
        count += n
    return count


cdef int cells_after_turn(const Board* board, const Scratch* scratch, uint64_t bits,
                          const int* before, int n_before, int* out) noexcept nogil:
    """The cells holding any of `bits` now, in reading order, from those that
    held them before the turn: only a cell the turn changed can have gained
    or lost one."""
    cdef int i, j, cell, n = 0
    for i in range(n_before):
        out[n] = before[i]
        n += (board.grid[before[i]] & bits) != 0
    for i in range(scratch.n_changed):
        cell = scratch.changed[i]
        if not (board.grid[cell] & bits):
            continue
        j = n
        while j > 0 and out[j - 1] > cell:
            j -= 1
        if j > 0 and out[j - 1] == cell:
            continue
        memmove(&out[j + 1], &out[j], (n - j) * sizeof(int))
        out[j] = cell
        n += 1
    return n


cdef int scan_cells(const Geometry* geo, const Board* board, uint64_t bit, int* out) noexcept nogil:
    """The cells holding `bit`, in reading order, by one pass over the board.
    Branch-free: every cell is written and only matches are kept, since
    which cells match is as good as random to the branch predictor."""
    cdef int cell, count = 0
    for cell in range(geo.first, geo.stop):
        out[count] = cell
        count += (board.grid[cell] & bit) != 0
    return count


cdef int cells_of_noun(const Geometry* geo, const Board* board, const int* key_cells,
                       const uint8_t* key_kinds, int n_keys, int noun, int* out) noexcept nogil:
    """The cells holding `noun` in reading order: from the board's keys over
    the initial one (split into cells and kinds) when they are given and
    few, else from one pass over the board."""
    cdef uint64_t bit = (<uint64_t>1) << noun
    if not (geo.kinds_mask & bit):
        return 0
    if key_cells != NULL and n_keys <= TOGGLE_LIMIT:
        return cells_of_kind(geo, key_cells, key_kinds, n_keys, geo.kind_of_tile[noun], out)
    return scan_cells(geo, board, bit, out)


cdef bint play_turn(const Geometry* geo, Board* board, Scratch* scratch, const Props* props,
                    int action, const int* player_cells, const uint8_t* player_tiles,
                    int n_players) noexcept nogil:
    """One turn of RULES.md up to the rule re-read. Returns whether a text
    moved, in which case the caller must read the rules again (and transform)."""
    cdef int i, j, k, count, tile, cell, code, near
    cdef uint64_t bit
    scratch.text_moved = False
    scratch.destroyed = False
    scratch.n_touched = 0
    forget_changes(scratch)

    if action != WAIT:
        for i in range(n_players):
            cell = player_cells[i]
            bit = (<uint64_t>1) << player_tiles[i]
            # Skipped if it was pushed away earlier in this step.
            if board.grid[cell] & bit and not (scratch.moved[cell] & bit):
                move_object(geo, board, scratch, props, player_tiles[i], cell, action)
    destroy(geo, board, scratch, props)

    for i in range(props.n_move):
        tile = props.move_order[i]
        bit = (<uint64_t>1) << tile
        # The snapshot is taken before any of the noun's objects moves, in
        # reading order of their cells, not in creation order: the
        # simplification RULES.md allows for a bit-mask board.
        if scratch.movers_known:
            count = cells_after_turn(board, scratch, bit, scratch.mover_cells + scratch.mover_start[i],
                                     scratch.mover_start[i + 1] - scratch.mover_start[i], scratch.snapshot)
        else:
            count = scan_cells(geo, board, bit, scratch.snapshot)
        for j in range(count):
            scratch.snapshot_moved[j] = (scratch.moved[scratch.snapshot[j]] & bit) != 0
        for j in range(count):
            cell = scratch.snapshot[j]
            if scratch.snapshot_moved[j]:
                # It moved already this turn (as YOU or pushed): blocked.
                set_facing(board, cell, bit, opposite(get_facing(board, cell, bit)))
                note_changed(scratch, cell)
            elif board.grid[cell] & bit and not (scratch.moved[cell] & bit):
                code = get_facing(board, cell, bit)
                if code == 0:
                    code = 4
                if not move_object(geo, board, scratch, props, tile, cell, code - 1):
                    set_facing(board, cell, bit, opposite(code))
                    note_changed(scratch, cell)
            else:
                # An earlier mover pushed it one cell this step; the pushed
                # object faces the way it went, which finds it.
                for k in range(N_DIRECTIONS):
                    near = cell + geo.delta[k]
                    if scratch.moved[near] & bit and get_facing(board, near, bit) == k + 1:
                        set_facing(board, near, bit, opposite(k + 1))
                        note_changed(scratch, near)
                        break
    destroy(geo, board, scratch, props)

    for i in range(scratch.n_touched):
        scratch.moved[scratch.touched[i]] = 0
    scratch.n_touched = 0
    return scratch.text_moved


cdef int assess(const Geometry* geo, const Board* board, const Props* props) noexcept nogil:
    """TURN_WON if a YOU object shares a cell with a WIN object, else
    TURN_DEAD if no YOU and no MOVE object is left, else 0."""
    cdef int cell
    cdef uint64_t contents
    cdef bint alive = False
    for cell in range(geo.first, geo.stop):
        contents = board.grid[cell]
        if contents & props.you and contents & props.win:
            return TURN_WON
        if contents & (props.you | props.move):
            alive = True
    return 0 if alive else TURN_DEAD


# --------------------------------------------------------------- packing --

cdef inline int put_varint(uint8_t* out, int length, uint32_t value) noexcept nogil:
    while value >= 0x80:
        out[length] = <uint8_t>(value | 0x80)
        value >>= 7
        length += 1
    out[length] = <uint8_t>value
    return length + 1


cdef inline int get_varint(const uint8_t* data, int pos, uint32_t* value) noexcept nogil:
    cdef uint32_t result = 0
    cdef int shift = 0
    while data[pos] & 0x80:
        result |= (<uint32_t>(data[pos] & 0x7F)) << shift
        shift += 7
        pos += 1
    value[0] = result | ((<uint32_t>data[pos]) << shift)
    return pos + 1


cdef inline int count_bytes(const Geometry* geo) noexcept nogil:
    """Bytes of the key count that leads a record: needed only to find where
    the facing entries start, so a level without MOVE spends none."""
    return 3 if geo.track_facing else 0


cdef inline void put_count(const Geometry* geo, uint8_t* out, int count) noexcept nogil:
    if geo.track_facing:
        out[0] = <uint8_t>(count & 0xFF)
        out[1] = <uint8_t>((count >> 8) & 0xFF)
        out[2] = <uint8_t>(count >> 16)


cdef int pack_board(const Geometry* geo, const Board* board, const uint64_t* initial,
                    uint8_t* out) noexcept nogil:
    """Pack a board into state bytes.

    A state is the set of (cell, tile) pairs whose presence differs from the
    initial board, so nothing that never moves costs a byte. Each pair is a
    key cell * n_kinds + kind; the keys are written in increasing order as
    varint gaps, so equal boards give equal bytes. When MOVE can arise, the
    keys are led by their count and the nonzero facings follow the same way,
    as (key * 4 + facing - 1)."""
    cdef int cell, tile, i, n_differ = 0, count = 0, length = count_bytes(geo)
    cdef uint64_t diff, bits
    cdef uint32_t key, last = 0
    cdef int n_kinds = geo.n_kinds
    cdef int differ[MAX_CELLS]
    # Gather the differing cells without a branch per cell: which cells
    # differ is as good as random, so a branch would often be mispredicted.
    if geo.track_facing:
        # One pass finds the cells with a key or a facing entry.
        for cell in range(geo.first, geo.stop):
            differ[n_differ] = cell
            n_differ += ((board.grid[cell] ^ initial[cell])
                         | ((board.face0[cell] | board.face1[cell] | board.face2[cell])
                            & geo.facing_mask)) != 0
    else:
        for cell in range(geo.first, geo.stop):
            differ[n_differ] = cell
            n_differ += (board.grid[cell] ^ initial[cell]) != 0
    for i in range(n_differ):
        cell = differ[i]
        diff = board.grid[cell] ^ initial[cell]
        while diff:
            tile = core_ctz(diff)
            diff &= diff - 1
            key = <uint32_t>(cell * n_kinds + geo.kind_of_tile[tile])
            length = put_varint(out, length, key - last)
            last = key
            count += 1
    put_count(geo, out, count)
    if geo.track_facing:
        last = 0
        for i in range(n_differ):
            cell = differ[i]
            bits = (board.face0[cell] | board.face1[cell] | board.face2[cell]) & geo.facing_mask
            while bits:
                tile = core_ctz(bits)
                bits &= bits - 1
                key = <uint32_t>((cell * n_kinds + geo.kind_of_tile[tile]) * 4
                                 + get_facing(board, cell, (<uint64_t>1) << tile) - 1)
                length = put_varint(out, length, key - last)
                last = key
    return length


cdef void decode_record(const Geometry* geo, const uint8_t* record, int length, uint32_t* keys,
                        int* key_ends, int* n_keys, uint32_t* facings, int* n_facings) noexcept nogil:
    """The sorted keys of a record, where each key's bytes end, and its sorted
    facing entries."""
    cdef int pos = count_bytes(geo), i = 0, count = MAX_RECORD   # no count: keys to the end
    cdef uint32_t key = 0, gap
    if pos:
        count = record[0] | (record[1] << 8) | (record[2] << 16)
    while i < count and pos < length:
        pos = get_varint(record, pos, &gap)
        key += gap
        keys[i] = key
        key_ends[i] = pos
        i += 1
    n_keys[0] = i
    key = 0
    i = 0
    while pos < length:
        pos = get_varint(record, pos, &gap)
        key += gap
        facings[i] = key
        i += 1
    n_facings[0] = i


cdef inline int cell_of_key(const Geometry* geo, uint32_t key) noexcept nogil:
    # Exact for keys below 2**16 (MAX_CELLS * 64 kinds), and cheaper than a division.
    return <int>((key * geo.kind_divisor) >> 32)


cdef void split_keys(const Geometry* geo, const uint32_t* keys, int n_keys,
                     int* cells, uint8_t* kinds) noexcept nogil:
    cdef int i, cell
    for i in range(n_keys):
        cell = cell_of_key(geo, keys[i])
        cells[i] = cell
        kinds[i] = <uint8_t>(keys[i] - <uint32_t>(cell * geo.n_kinds))


cdef int cells_of_kind(const Geometry* geo, const int* key_cells, const uint8_t* key_kinds,
                       int n_keys, int kind, int* out) noexcept nogil:
    """The cells holding `kind`, in reading order, on the board whose keys
    (split into cells and kinds) are given: its initial cells with the keys
    of that kind toggled."""
    cdef int i = geo.kind_start[kind], stop = geo.kind_start[kind + 1]
    cdef int j = 0, count = 0
    while True:
        while j < n_keys and key_kinds[j] != kind:
            j += 1
        if i < stop and (j == n_keys or geo.initial_cells[i] < key_cells[j]):
            out[count] = geo.initial_cells[i]
            count += 1
            i += 1
        elif j < n_keys and (i == stop or key_cells[j] < geo.initial_cells[i]):
            out[count] = key_cells[j]
            count += 1
            j += 1
        elif j < n_keys:
            i += 1          # there at first, gone now
            j += 1
        else:
            return count


cdef void toggle_keys(const Geometry* geo, Board* board, const uint32_t* keys,
                      int n_keys) noexcept nogil:
    """Add the keys' objects to the board, or take them away again."""
    cdef int i, cell
    for i in range(n_keys):
        cell = cell_of_key(geo, keys[i])
        board.grid[cell] ^= (<uint64_t>1) << geo.tile_of_kind[keys[i] - <uint32_t>(cell * geo.n_kinds)]


cdef void put_facings(const Geometry* geo, Board* board, const uint32_t* facings, int n_facings,
                      bint clear) noexcept nogil:
    """Set the facing entries on a board, or clear them back to none."""
    cdef int i, cell
    cdef uint32_t entry
    cdef uint64_t bit
    for i in range(n_facings):
        entry = facings[i] >> 2
        cell = cell_of_key(geo, entry)
        bit = (<uint64_t>1) << geo.tile_of_kind[entry - <uint32_t>(cell * geo.n_kinds)]
        if clear:
            clear_facing(board, cell, bit)
        else:
            set_facing(board, cell, bit, (facings[i] & 3) + 1)


cdef void board_from_keys(const Geometry* geo, Board* board, const uint64_t* initial,
                          const uint32_t* keys, int n_keys,
                          const uint32_t* facings, int n_facings) noexcept nogil:
    """The board a decoded record describes."""
    memcpy(board.grid, initial, geo.ncells * sizeof(uint64_t))
    toggle_keys(geo, board, keys, n_keys)
    if geo.track_facing:
        memset(board.face0, 0, geo.ncells * sizeof(uint64_t))
        memset(board.face1, 0, geo.ncells * sizeof(uint64_t))
        memset(board.face2, 0, geo.ncells * sizeof(uint64_t))
        put_facings(geo, board, facings, n_facings, False)


cdef int changed_keys(const Geometry* geo, const Board* parent, const Board* child,
                      Scratch* scratch, uint32_t* toggles) noexcept nogil:
    """The keys whose presence differs between parent and child, in order.
    Only the cells the turn changed can differ; they are sorted first, and
    kinds are numbered in tile order, so the keys come out sorted."""
    cdef int i, cell, count = 0
    cdef uint64_t diff
    sort_changed(geo, scratch)
    for i in range(scratch.n_changed):
        cell = scratch.changed[i]
        diff = parent.grid[cell] ^ child.grid[cell]
        while diff:
            toggles[count] = <uint32_t>(cell * geo.n_kinds + geo.kind_of_tile[core_ctz(diff)])
            diff &= diff - 1
            count += 1
    return count


cdef inline void copy_short(uint8_t* out, const uint8_t* source, int count) noexcept nogil:
    # Whole words, past the end on both sides: the output buffers have room,
    # and the arena ends with ARENA_SLACK spare bytes.
    cdef int done = 0
    while done < count:
        memcpy(out + done, source + done, 8)
        done += 8


cdef inline int copy_keys(uint8_t* out, int length, const uint8_t* record, const uint32_t* keys,
                          const int* key_ends, int first, int stop, uint32_t last) noexcept nogil:
    """Append the parent's keys [first, stop) after `last`: the first gap is
    new, the others are the parent's own bytes."""
    cdef int start
    if first == stop:
        return length
    length = put_varint(out, length, keys[first] - last)
    start = key_ends[first]
    copy_short(out + length, record + start, key_ends[stop - 1] - start)
    return length + key_ends[stop - 1] - start


cdef int pack_child(const Geometry* geo, const Board* parent, const Board* child, Scratch* scratch,
                    const uint8_t* parent_record, const uint32_t* parent_keys, const int* key_ends,
                    int n_parent_keys, const uint32_t* parent_facings, int n_parent_facings,
                    uint32_t* toggles, uint8_t* out) noexcept nogil:
    """pack_board for a child that differs from its parent only in the cells
    the turn changed: the parent's record with those cells' keys toggled.
    Gives exactly the bytes pack_board would."""
    cdef int n_toggles = changed_keys(geo, parent, child, scratch, toggles)
    cdef int i = 0, below, t, j, n_cells, cell, tile, length = count_bytes(geo)
    cdef int count = n_parent_keys
    cdef uint32_t key, last = 0, entry
    cdef uint64_t bits
    for t in range(n_toggles):
        key = toggles[t]
        below = i
        while below < n_parent_keys and parent_keys[below] < key:
            below += 1
        length = copy_keys(out, length, parent_record, parent_keys, key_ends, i, below, last)
        if below > i:
            last = parent_keys[below - 1]
        i = below
        if i < n_parent_keys and parent_keys[i] == key:
            i += 1          # back as it was at first
            count -= 1
        else:
            length = put_varint(out, length, key - last)
            last = key
            count += 1
    length = copy_keys(out, length, parent_record, parent_keys, key_ends, i, n_parent_keys, last)
    put_count(geo, out, count)
    if not geo.track_facing:
        return length
    # Facings: the parent's entries outside the changed cells (sorted by
    # changed_keys), merged with the child's entries inside them, in key order.
    n_cells = scratch.n_changed
    last = 0
    i = 0
    for j in range(n_cells + 1):
        cell = scratch.changed[j] if j < n_cells else geo.ncells
        while i < n_parent_facings and cell_of_key(geo, parent_facings[i] >> 2) < cell:
            length = put_varint(out, length, parent_facings[i] - last)
            last = parent_facings[i]
            i += 1
        while i < n_parent_facings and cell_of_key(geo, parent_facings[i] >> 2) == cell:
            i += 1
        if j == n_cells:
            break
        bits = (child.face0[cell] | child.face1[cell] | child.face2[cell]) & geo.facing_mask
        while bits:
            tile = core_ctz(bits)
            bits &= bits - 1
            entry = <uint32_t>((cell * geo.n_kinds + geo.kind_of_tile[tile]) * 4
                               + get_facing(child, cell, (<uint64_t>1) << tile) - 1)
            length = put_varint(out, length, entry - last)
            last = entry
    return length


cdef inline void restore_cells(const Geometry* geo, Board* board, const Board* saved,
                               const int* cells, int count) noexcept nogil:
    cdef int i, cell
    for i in range(count):
        cell = cells[i]
        board.grid[cell] = saved.grid[cell]
        if geo.track_facing:
            board.face0[cell] = saved.face0[cell]
            board.face1[cell] = saved.face1[cell]
            board.face2[cell] = saved.face2[cell]


cdef inline bint won_in_changed_cells(const Board* board, const Scratch* scratch,
                                      const Props* props) noexcept nogil:
    cdef int i
    cdef uint64_t contents
    if not (props.you and props.win):
        return False
    for i in range(scratch.n_changed):
        contents = board.grid[scratch.changed[i]]
        if contents & props.you and contents & props.win:
            return True
    return False


cdef inline uint64_t load8(const uint8_t* data) noexcept nogil:
    cdef uint64_t word
    memcpy(&word, data, 8)
    return word


cdef inline uint64_t load4(const uint8_t* data) noexcept nogil:
    cdef uint32_t word
    memcpy(&word, data, 4)
    return word


cdef uint64_t hash_bytes(const uint8_t* data, int length) noexcept nogil:
    """A multiply-mix hash of 16 bytes a round. The tail is read as two
    overlapping words, never past the end, and with no call for its length."""
    cdef uint64_t seed = 0xA0761D6478BD642FULL ^ <uint64_t>length
    cdef uint64_t a, b
    cdef int pos = 0
    while length - pos > 16:
        seed = core_mix(load8(data + pos) ^ 0xE7037ED1A0B428DBULL, load8(data + pos + 8) ^ seed)
        pos += 16
    if length - pos >= 8:
        a = load8(data + pos)
        b = load8(data + length - 8)
    elif length - pos >= 4:
        a = load4(data + pos)
        b = load4(data + length - 4)
    else:
        a = b = 0
        while pos < length:
            a = (a << 8) | data[pos]
            pos += 1
    return core_mix(0x8EBC6AF09C88C6E3ULL ^ <uint64_t>length,
                    core_mix(a ^ 0xE7037ED1A0B428DBULL, b ^ seed))


# ------------------------------------------------- Python-facing classes --

cdef bint record_is_valid(const Geometry* geo, const uint8_t* record, int length) noexcept nogil:
    """Whether untrusted bytes decode to keys inside the board."""
    cdef int count, pos = count_bytes(geo), i, shift
    cdef uint64_t key = 0, gap
    cdef int facing_keys = geo.ncells * geo.n_kinds * 4
    if length < pos:
        return False
    count = record[0] | (record[1] << 8) | (record[2] << 16) if pos else length
    i = 0
    while pos < length:
        gap = 0
        shift = 0
        while pos < length and record[pos] & 0x80 and shift < 28:
            gap |= (<uint64_t>(record[pos] & 0x7F)) << shift
            shift += 7
            pos += 1
        if pos >= length:
            return False
        gap |= (<uint64_t>record[pos]) << shift
        pos += 1
        if i == count:
            key = 0
        key += gap
        if i < count and key >= <uint64_t>(geo.ncells * geo.n_kinds):
            return False
        if i >= count and (not geo.track_facing or key >= <uint64_t>facing_keys):
            return False
        i += 1
    # Without a count (no facings), every entry read was a key.
    return i >= count or not geo.track_facing

cdef class CoreLevel:
    """The fixed facts of a level: geometry and the board after the load-time
    rule reading. Built once; every state of a search is a difference from it."""
    cdef Geometry geo
    cdef uint64_t* initial
    cdef Props initial_props
    cdef readonly int level_width, level_height

    def __cinit__(self, int width, int height, grid, bint track_facing, bint all_facings=False):
        cdef int x, y, cell, tile, pad = 0
        cdef int padded_width, padded_height
        cdef Board board
        cdef Py_ssize_t n = len(grid)
        if width < 1 or height < 1 or n != width * height:
            raise ValueError(f"grid has {n} cells, expected {width}x{height}")
        self.level_width = width
        self.level_height = height
        # Keke maps come with a ring of border cells; other levels get one,
        # so a move never needs a bounds check.
        for x in range(width):
            if grid[x] != T_BORDER or grid[(height - 1) * width + x] != T_BORDER:
                pad = 1
        for y in range(height):
            if grid[y * width] != T_BORDER or grid[y * width + width - 1] != T_BORDER:
                pad = 1
        if width < 3 or height < 3:
            pad = 1
        padded_width = width + 2 * pad
        padded_height = height + 2 * pad
        if padded_width * padded_height > MAX_CELLS:
            raise ValueError(
                f"level is too large: {width}x{height} cells, the engine handles up to {MAX_CELLS} cells")
        self.geo.width = padded_width
        self.geo.height = padded_height
        self.geo.ncells = padded_width * padded_height
        self.geo.pad = pad
        self.geo.first = padded_width
        self.geo.stop = self.geo.ncells - padded_width
        self.geo.delta[0] = -padded_width
        self.geo.delta[1] = padded_width
        self.geo.delta[2] = -1
        self.geo.delta[3] = 1
        self.geo.track_facing = track_facing
        self.initial = <uint64_t*>calloc(self.geo.ncells, sizeof(uint64_t))
        if not self.initial:
            raise MemoryError()
        for cell in range(self.geo.ncells):
            self.initial[cell] = M_BORDER
        for y in range(height):
            for x in range(width):
                tile = grid[y * width + x]
                if tile < 0 or tile >= N_TILES:
                    raise ValueError(f"unknown tile id {tile} at x={x}, y={y}")
                cell = (y + pad) * padded_width + x + pad
                self.initial[cell] = 0 if tile == T_EMPTY else (<uint64_t>1) << tile
        # Kinds: every tile present, and every object a noun text present can
        # name (a transformation may create it). Nothing else ever appears.
        cdef uint64_t possible = 0
        for cell in range(self.geo.ncells):
            possible |= self.initial[cell]
        for tile in range(N_TILES):
            if possible & ((<uint64_t>1) << tile) and NOUN_TARGET[tile]:
                possible |= (<uint64_t>1) << NOUN_TARGET[tile]
        possible &= ~M_BORDER
        self.geo.n_kinds = 0
        memset(self.geo.kind_of_tile, 0, 64)
        for tile in range(64):
            if possible & ((<uint64_t>1) << tile):
                self.geo.kind_of_tile[tile] = <uint8_t>self.geo.n_kinds
                self.geo.tile_of_kind[self.geo.n_kinds] = <uint8_t>tile
                self.geo.n_kinds += 1
        if self.geo.n_kinds == 0:
            self.geo.n_kinds = 1
        self.geo.kinds_mask = possible
        self.geo.kind_divisor = ((<uint64_t>1 << 32) + <uint64_t>self.geo.n_kinds - 1) // <uint64_t>self.geo.n_kinds
        # Facing only matters for MOVE, which only nouns whose text is on the
        # board can get; a state keeps no other facing (unless asked to).
        self.geo.facing_mask = 0
        for tile in range(N_TILES):
            if possible & ((<uint64_t>1) << tile) and NOUN_TARGET[tile]:
                self.geo.facing_mask |= (<uint64_t>1) << NOUN_TARGET[tile]
        if all_facings:
            self.geo.facing_mask = ~(<uint64_t>0)
        # The reference simulator reads the rules (and transforms) at load.
        board.grid = self.initial
        board.face0 = board.face1 = board.face2 = NULL
        cdef bint facing = self.geo.track_facing
        self.geo.track_facing = False      # nothing faces anywhere yet
        read_rules(&self.geo, &board, &self.initial_props, True)
        self.geo.track_facing = facing
        self.list_initial_cells()

    cdef list_initial_cells(self):
        cdef int cell, kind, count = 0
        cdef uint64_t bits
        cdef int[65] next_free
        memset(self.geo.kind_start, 0, sizeof(self.geo.kind_start))
        for cell in range(self.geo.first, self.geo.stop):
            bits = self.initial[cell] & self.geo.kinds_mask
            while bits:
                self.geo.kind_start[self.geo.kind_of_tile[core_ctz(bits)] + 1] += 1
                bits &= bits - 1
                count += 1
        for kind in range(self.geo.n_kinds):
            self.geo.kind_start[kind + 1] += self.geo.kind_start[kind]
            next_free[kind] = self.geo.kind_start[kind]
        self.geo.initial_cells = <int*>malloc((count + 1) * sizeof(int))
        if not self.geo.initial_cells:
            raise MemoryError()
        for cell in range(self.geo.first, self.geo.stop):
            bits = self.initial[cell] & self.geo.kinds_mask
            while bits:
                kind = self.geo.kind_of_tile[core_ctz(bits)]
                bits &= bits - 1
                self.geo.initial_cells[next_free[kind]] = cell
                next_free[kind] += 1

    def __dealloc__(self):
        free(self.initial)
        free(self.geo.initial_cells)

    @property
    def track_facing(self):
        return bool(self.geo.track_facing)


cdef class _Workspace:
    """Boards and scratch space for turns on one level."""
    cdef Board board
    cdef Board saved
    cdef Scratch scratch
    cdef uint32_t* keys         # a decoded record: its keys and facing entries
    cdef uint32_t* facings
    cdef int* key_ends          # where each key's bytes end in the record
    cdef int* key_cells         # the record's keys split into cell and kind
    cdef uint8_t* key_kinds
    cdef int* is_cells          # cells holding `is`: before the turn, and after it
    cdef int* is_cells_after
    cdef int ncells

    def __cinit__(self, CoreLevel level):
        cdef int n = level.geo.ncells
        self.ncells = n
        self.board.grid = <uint64_t*>calloc(4 * n, sizeof(uint64_t))
        self.saved.grid = <uint64_t*>calloc(4 * n, sizeof(uint64_t))
        self.scratch.moved = <uint64_t*>calloc(n, sizeof(uint64_t))
        self.scratch.touched = <int*>calloc(n, sizeof(int))
        self.scratch.snapshot = <int*>calloc(n, sizeof(int))
        self.scratch.snapshot_moved = <uint8_t*>calloc(n, sizeof(uint8_t))
        self.scratch.player_cells = <int*>calloc(n * MAX_OBJECTS_PER_CELL, sizeof(int))
        self.scratch.player_tiles = <uint8_t*>calloc(n * MAX_OBJECTS_PER_CELL, sizeof(uint8_t))
        self.scratch.mover_cells = <int*>calloc(n * MAX_OBJECTS_PER_CELL, sizeof(int))
        self.scratch.movers_known = False
        self.scratch.danger_cells = <int*>calloc(2 * n, sizeof(int))
        self.scratch.changed = <int*>calloc(n, sizeof(int))
        self.keys = <uint32_t*>malloc(MAX_RECORD * sizeof(uint32_t))
        self.facings = <uint32_t*>malloc(MAX_RECORD * sizeof(uint32_t))
        self.key_ends = <int*>malloc(MAX_RECORD * sizeof(int))
        self.key_cells = <int*>malloc(MAX_RECORD * sizeof(int))
        self.key_kinds = <uint8_t*>malloc(MAX_RECORD)
        self.is_cells = <int*>malloc(n * sizeof(int))
        self.is_cells_after = <int*>malloc(n * sizeof(int))
        if not (self.board.grid and self.saved.grid and self.scratch.moved and self.scratch.touched
                and self.scratch.snapshot and self.scratch.snapshot_moved
                and self.scratch.player_cells and self.scratch.player_tiles and self.scratch.mover_cells
                and self.scratch.danger_cells and self.scratch.changed
                and self.keys and self.facings and self.key_ends and self.key_cells and self.key_kinds
                and self.is_cells and self.is_cells_after):
            raise MemoryError()
        self.board.face0 = self.board.grid + n
        self.board.face1 = self.board.grid + 2 * n
        self.board.face2 = self.board.grid + 3 * n
        self.saved.face0 = self.saved.grid + n
        self.saved.face1 = self.saved.grid + 2 * n
        self.saved.face2 = self.saved.grid + 3 * n
        self.scratch.n_touched = 0

    def __dealloc__(self):
        free(self.board.grid)
        free(self.saved.grid)
        free(self.scratch.moved)
        free(self.scratch.touched)
        free(self.scratch.snapshot)
        free(self.scratch.snapshot_moved)
        free(self.scratch.player_cells)
        free(self.scratch.player_tiles)
        free(self.scratch.mover_cells)
        free(self.scratch.danger_cells)
        free(self.scratch.changed)
        free(self.keys)
        free(self.facings)
        free(self.key_ends)
        free(self.key_cells)
        free(self.key_kinds)
        free(self.is_cells)
        free(self.is_cells_after)


cdef class CoreSimulation:
    """One game played turn by turn: the Cython engine behind game.Simulation."""
    cdef CoreLevel level
    cdef _Workspace work
    cdef Props props
    cdef readonly bint won, dead

    def __cinit__(self, int width, int height, grid):
        self.level = CoreLevel(width, height, grid, True, True)
        self.work = _Workspace(self.level)
        memcpy(self.work.board.grid, self.level.initial, self.level.geo.ncells * sizeof(uint64_t))
        self.props = self.level.initial_props
        self.won = False     # the win check runs at the end of a turn, never at load
        self.dead = assess(&self.level.geo, &self.work.board, &self.props) == TURN_DEAD

    def step(self, int action):
        if action < 0 or action > WAIT:
            raise ValueError(f"action must be 0..4, not {action}")
        cdef Scratch* scratch = &self.work.scratch
        cdef int n_players = list_players(&self.level.geo, &self.work.board, &self.props, NULL, NULL, 0,
                                          scratch.player_cells, scratch.player_tiles)
        scratch.n_danger = list_danger_cells(&self.level.geo, &self.work.board, &self.props,
                                             NULL, NULL, 0, scratch.danger_cells)
        if play_turn(&self.level.geo, &self.work.board, scratch, &self.props,
                     action, scratch.player_cells, scratch.player_tiles, n_players):
            read_rules(&self.level.geo, &self.work.board, &self.props, True)
        cdef int flags = assess(&self.level.geo, &self.work.board, &self.props)
        self.won = (flags & TURN_WON) != 0
        self.dead = (flags & TURN_DEAD) != 0

    def objects(self):
        cdef list found = []
        cdef int cell, tile, pad = self.level.geo.pad, width = self.level.geo.width
        cdef uint64_t bits
        for cell in range(self.level.geo.ncells):
            bits = self.work.board.grid[cell] & ~M_BORDER
            while bits:
                tile = core_ctz(bits)
                bits &= bits - 1
                found.append((tile, cell % width - pad, cell // width - pad,
                              get_facing(&self.work.board, cell, (<uint64_t>1) << tile)))
        found.sort()
        return found

    def rules(self):
        return [(self.props.rule_left[i], self.props.rule_right[i]) for i in range(self.props.n_rules)]

    def pack(self):
        """The canonical state bytes of the current board (facings included)."""
        cdef uint8_t buffer[MAX_RECORD]
        cdef int length = pack_board(&self.level.geo, &self.work.board, self.level.initial, buffer)
        return bytes(buffer[:length])

    def unpack(self, bytes record):
        """Replace the board by a packed state (rules are read again)."""
        if not record_is_valid(&self.level.geo, record, len(record)):
            raise ValueError("not a packed state of this level")
        cdef int n_keys, n_facings
        decode_record(&self.level.geo, record, len(record), self.work.keys, self.work.key_ends, &n_keys,
                      self.work.facings, &n_facings)
        board_from_keys(&self.level.geo, &self.work.board, self.level.initial,
                        self.work.keys, n_keys, self.work.facings, n_facings)
        read_rules(&self.level.geo, &self.work.board, &self.props, False)
        self.won = False
        self.dead = assess(&self.level.geo, &self.work.board, &self.props) == TURN_DEAD


# ------------------------------------------------------- visited states --

cdef class StateStore:
    """Every state a search has seen, exactly once: packed bytes in a growable
    arena, an open-addressing table of indices into it (duplicates are found by
    comparing bytes, never by hash alone), and (parent, action) per state.
    States are numbered in insertion order, which for BFS is the FIFO order, so
    the frontier is just a range of indices."""
    cdef uint8_t* arena
    cdef size_t arena_used, arena_capacity
    cdef uint32_t* offsets          # state i is arena[offsets[i]:offsets[i+1]]
    cdef uint32_t* parents
    cdef uint8_t* actions
    cdef size_t count, capacity
    cdef uint32_t* slots            # 0 = free, else (tag << INDEX_BITS) | (state index + 1)
    cdef size_t slot_mask
    cdef uint64_t hash_mask         # a test hook narrows it to force collisions

    def __cinit__(self, size_t expected=1024, uint64_t hash_mask=0xFFFFFFFFFFFFFFFFULL):
        cdef size_t slot_count = 1024
        while slot_count < 2 * expected:
            slot_count *= 2
        self.capacity = 1024
        self.arena_capacity = 1 << 16
        self.slot_mask = slot_count - 1
        self.arena = <uint8_t*>core_block_new(self.arena_capacity + ARENA_SLACK)
        self.offsets = <uint32_t*>core_block_new((self.capacity + 1) * sizeof(uint32_t))
        self.parents = <uint32_t*>core_block_new(self.capacity * sizeof(uint32_t))
        self.actions = <uint8_t*>core_block_new(self.capacity)
        self.slots = <uint32_t*>core_block_new(slot_count * sizeof(uint32_t))
        if not (self.arena and self.offsets and self.parents and self.actions and self.slots):
            raise MemoryError()
        self.offsets[0] = 0
        self.arena_used = 0
        self.count = 0
        self.hash_mask = hash_mask

    def __dealloc__(self):
        core_block_free(self.arena, self.arena_capacity + ARENA_SLACK)
        core_block_free(self.offsets, (self.capacity + 1) * sizeof(uint32_t))
        core_block_free(self.parents, self.capacity * sizeof(uint32_t))
        core_block_free(self.actions, self.capacity)
        core_block_free(self.slots, (self.slot_mask + 1) * sizeof(uint32_t))

    cdef int grow_states(self) noexcept nogil:
        # Each array is grown and stored at once, so `capacity` describes
        # all three only when all three grew (the sizes freed stay right).
        cdef size_t old = self.capacity, capacity = self.capacity * 2
        cdef void* grown = core_block_grow(self.offsets, (old + 1) * sizeof(uint32_t),
                                           (capacity + 1) * sizeof(uint32_t))
        if not grown:
            return -1
        self.offsets = <uint32_t*>grown
        grown = core_block_grow(self.parents, old * sizeof(uint32_t), capacity * sizeof(uint32_t))
        if not grown:
            return -1
        self.parents = <uint32_t*>grown
        grown = core_block_grow(self.actions, old, capacity)
        if not grown:
            return -1
        self.actions = <uint8_t*>grown
        self.capacity = capacity
        return 0

    cdef int grow_slots(self) noexcept nogil:
        """Double the table in place: the mapping is grown (so only the new
        half is fresh memory, which is slow to fault in on a VM), the old
        half cleared, and every state hashed again from the arena. States go
        in index order, so the arena is read front to back; each slot is
        prefetched a few states before it is written, hiding the random
        access."""
        cdef size_t old_bytes = (self.slot_mask + 1) * sizeof(uint32_t)
        cdef size_t mask = self.slot_mask * 2 + 1
        cdef uint32_t* slots = <uint32_t*>core_block_grow(self.slots, old_bytes, old_bytes * 2)
        cdef uint64_t hashes[REHASH_AHEAD]
        cdef size_t i, slot, late
        cdef uint64_t h
        if not slots:
            return -1
        self.slots = slots
        self.slot_mask = mask
        memset(slots, 0, old_bytes)
        for i in range(self.count + REHASH_AHEAD):
            if i >= REHASH_AHEAD:
                late = i - REHASH_AHEAD
                h = hashes[late % REHASH_AHEAD]
                slot = h & mask
                while slots[slot]:
                    slot = (slot + 1) & mask
                slots[slot] = (<uint32_t>(h >> (64 - TAG_BITS)) << INDEX_BITS) | <uint32_t>(late + 1)
            if i < self.count:
                h = self.hash_of(i)
                hashes[i % REHASH_AHEAD] = h
                core_prefetch(&slots[h & mask])
        return 0

    cdef inline uint64_t hash_of(self, size_t index) noexcept nogil:
        return hash_bytes(self.arena + self.offsets[index],
                          <int>(self.offsets[index + 1] - self.offsets[index])) & self.hash_mask

    cdef inline uint64_t hash_record(self, const uint8_t* record, int length) noexcept nogil:
        return hash_bytes(record, length) & self.hash_mask

    cdef inline void prefetch(self, uint64_t h) noexcept nogil:
        core_prefetch(&self.slots[h & self.slot_mask])

    cdef inline int64_t peek(self, uint64_t h) noexcept nogil:
        """The state in the home slot of `h` if its tag matches (a likely
        duplicate, whose offset is then prefetched), else -1."""
        cdef uint32_t entry = self.slots[h & self.slot_mask]
        cdef size_t index
        if not entry or (entry & ~INDEX_MASK) != <uint32_t>(h >> (64 - TAG_BITS)) << INDEX_BITS:
            return -1
        index = (entry & INDEX_MASK) - 1
        core_prefetch(&self.offsets[index])
        return <int64_t>index

    cdef inline void fetch(self, int64_t index) noexcept nogil:
        """Prefetch the bytes of a stored state named by peek."""
        cdef const uint8_t* start
        if index < 0 or <size_t>index >= self.count:
            return
        start = self.arena + self.offsets[index]
        core_prefetch(start)
        core_prefetch(start + (self.offsets[index + 1] - self.offsets[index]) - 1)

    cdef int64_t insert(self, const uint8_t* record, int length, uint32_t parent, uint8_t action) noexcept nogil:
        return self.insert_hashed(record, length, self.hash_record(record, length), parent, action)

    cdef int64_t insert_hashed(self, const uint8_t* record, int length, uint64_t h,
                               uint32_t parent, uint8_t action) noexcept nogil:
        """Index of a new state, -1 if it was already there, -2 if out of memory."""
        cdef size_t slot = h & self.slot_mask
        # The slot keeps a few high hash bits beside the index, so most
        # probes reject a stranger without touching the arena.
        cdef uint32_t tag = <uint32_t>(h >> (64 - TAG_BITS)) << INDEX_BITS
        cdef uint32_t entry, index
        cdef size_t capacity
        cdef uint8_t* arena
        while True:
            entry = self.slots[slot]
            if not entry:
                break
            if (entry & ~INDEX_MASK) == tag:
                index = (entry & INDEX_MASK) - 1
                if (self.offsets[index + 1] - self.offsets[index] == <uint32_t>length
                        and memcmp(self.arena + self.offsets[index], record, length) == 0):
                    return -1
            slot = (slot + 1) & self.slot_mask
        if self.count >= MAX_STATES:
            return -2
        if self.count == self.capacity and self.grow_states() < 0:
            return -2
        # Offsets are 32-bit: the arena stops at 4 GiB, which reads as a full store.
        if self.arena_used + length > 0xFFFFFFFFULL:
            return -2
        if self.arena_used + length > self.arena_capacity:
            capacity = self.arena_capacity * 2
            while self.arena_used + length > capacity:
                capacity *= 2
            arena = <uint8_t*>core_block_grow(self.arena, self.arena_capacity + ARENA_SLACK,
                                              capacity + ARENA_SLACK)
            if not arena:
                return -2
            self.arena = arena
            self.arena_capacity = capacity
        memcpy(self.arena + self.arena_used, record, length)
        self.arena_used += length
        index = <uint32_t>self.count
        self.offsets[index + 1] = <uint32_t>self.arena_used
        self.parents[index] = parent
        self.actions[index] = action
        self.count += 1
        self.slots[slot] = tag | (index + 1)
        # Keep the load at most 5/8 so probes stay short.
        if self.count * 8 > (self.slot_mask + 1) * 5 and self.grow_slots() < 0:
            return -2
        return index

    def add(self, bytes record, uint32_t parent=0xFFFFFFFFU, uint8_t action=255):
        """Add a packed state; its index, or -1 if it was already stored."""
        cdef int64_t index = self.insert(record, len(record), parent, action)
        if index == -2:
            raise MemoryError("the visited table could not grow")
        return index

    def get(self, size_t index):
        if index >= self.count:
            raise IndexError(index)
        return bytes(self.arena[self.offsets[index]:self.offsets[index + 1]])

    def parent(self, size_t index):
        if index >= self.count:
            raise IndexError(index)
        return self.parents[index], self.actions[index]

    def path_to(self, size_t index):
        """Actions from the root (state 0) to state `index`."""
        cdef list path = []
        if index >= self.count:
            raise IndexError(index)
        while index != 0:
            path.append(self.actions[index])
            index = self.parents[index]
        path.reverse()
        return path

    def __len__(self):
        return self.count

    @property
    def memory_bytes(self):
        """Bytes held for the states (arena, offsets, parents, table), as used."""
        return (self.arena_used + (self.count + 1) * sizeof(uint32_t)
                + self.count * (sizeof(uint32_t) + 1) + (self.slot_mask + 1) * sizeof(uint32_t))


# ------------------------------------------------------- batch expansion --

cdef class Expander:
    """Expands ranges of stored states in C, without the GIL: every action is
    played from each state, won children are reported, dead ends dropped, and
    new children are appended to the store.

    Expansion runs in two steps. `generate` plays a range of states into
    this expander's own list of children and only reads the store, so several
    expanders (one per thread) can generate at once; `insert_generated` then
    adds the children to the store, in order. `expand` does both."""
    cdef CoreLevel level
    cdef StateStore store
    cdef _Workspace work
    cdef Props props
    cdef Props next_props
    # The children generated, in order: child i is
    # out_bytes[out_start[i]:out_start[i + 1]].
    cdef uint8_t* out_bytes
    cdef size_t out_used, out_capacity
    cdef uint32_t* out_start
    cdef uint64_t* out_hash
    cdef uint32_t* out_parent
    cdef uint8_t* out_action
    cdef size_t out_count, out_room
    cdef uint8_t* record            # where the next child is packed: out_bytes + out_used
    cdef uint32_t* toggles
    # The decoded keys and facings of the state being expanded, and of the
    # one before it: the boards go from one to the next by toggling both.
    cdef uint32_t* keys
    cdef uint32_t* facings
    cdef uint32_t* old_keys
    cdef uint32_t* old_facings
    cdef public bint incremental    # pack children from their parent's keys
    cdef readonly int n_actions
    cdef readonly uint64_t generated, expanded, dead_ends
    cdef readonly int64_t won_parent
    cdef readonly int won_action

    def __cinit__(self, CoreLevel level, StateStore store):
        self.level = level
        self.store = store
        self.work = _Workspace(level)
        self.out_capacity = 1 << 16
        self.out_room = 1 << 12
        self.out_bytes = <uint8_t*>malloc(self.out_capacity)
        self.out_start = <uint32_t*>malloc((self.out_room + 1) * sizeof(uint32_t))
        self.out_hash = <uint64_t*>malloc(self.out_room * sizeof(uint64_t))
        self.out_parent = <uint32_t*>malloc(self.out_room * sizeof(uint32_t))
        self.out_action = <uint8_t*>malloc(self.out_room)
        self.toggles = <uint32_t*>malloc(MAX_RECORD * sizeof(uint32_t))
        self.keys = <uint32_t*>malloc(MAX_RECORD * sizeof(uint32_t))
        self.facings = <uint32_t*>malloc(MAX_RECORD * sizeof(uint32_t))
        self.old_keys = <uint32_t*>malloc(MAX_RECORD * sizeof(uint32_t))
        self.old_facings = <uint32_t*>malloc(MAX_RECORD * sizeof(uint32_t))
        if not (self.out_bytes and self.out_start and self.out_hash and self.out_parent
                and self.out_action and self.toggles and self.keys and self.facings
                and self.old_keys and self.old_facings):
            raise MemoryError()
        self.out_count = self.out_used = 0
        self.out_start[0] = 0
        self.record = self.out_bytes
        self.incremental = True
        # Wait only matters when something can move by itself.
        self.n_actions = 5 if level.geo.track_facing else 4
        self.generated = self.expanded = self.dead_ends = 0
        self.won_parent = -1
        self.won_action = -1

    def __dealloc__(self):
        free(self.out_bytes)
        free(self.out_start)
        free(self.out_hash)
        free(self.out_parent)
        free(self.out_action)
        free(self.toggles)
        free(self.keys)
        free(self.facings)
        free(self.old_keys)
        free(self.old_facings)

    def add_root(self):
        """Store the level's initial state as state 0."""
        cdef int length
        memcpy(self.work.board.grid, self.level.initial, self.level.geo.ncells * sizeof(uint64_t))
        memset(self.work.board.face0, 0, 3 * self.level.geo.ncells * sizeof(uint64_t))
        length = pack_board(&self.level.geo, &self.work.board, self.level.initial, self.out_bytes)
        return self.store.add(bytes(self.out_bytes[:length]))

    def root_is_dead(self):
        """True when the initial board has no YOU and no MOVE object."""
        cdef int cell
        cdef const Props* p = &self.level.initial_props
        for cell in range(self.level.geo.first, self.level.geo.stop):
            if self.level.initial[cell] & (p.you | p.move):
                return False
        return True

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
        if result < 0:
            raise MemoryError("no memory for the children of a batch")
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
        if self.out_used + MAX_RECORD + ARENA_SLACK > self.out_capacity:
            capacity = self.out_capacity * 2
            while self.out_used + MAX_RECORD + ARENA_SLACK > capacity:
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
        self.record = self.out_bytes + self.out_used
        return 0

    cdef inline void keep_child(self, int length, uint32_t parent, uint8_t action) noexcept nogil:
        """List the child packed at self.record."""
        cdef size_t i = self.out_count
        self.out_hash[i] = self.store.hash_record(self.record, length)
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

    cdef void list_movers(self, int n_keys) noexcept nogil:
        """The MOVE objects of the state being expanded, for play_turn."""
        cdef Scratch* scratch = &self.work.scratch
        cdef int i, total = 0
        for i in range(self.props.n_move):
            scratch.mover_start[i] = total
            total += cells_of_noun(&self.level.geo, &self.work.saved, self.work.key_cells,
                                   self.work.key_kinds, n_keys, self.props.move_order[i],
                                   scratch.mover_cells + total)
        scratch.mover_start[self.props.n_move] = total
        scratch.movers_known = True

    cdef int expand_range(self, size_t start, size_t stop) noexcept nogil:
        cdef const Geometry* geo = &self.level.geo
        cdef Scratch* scratch = &self.work.scratch
        cdef size_t index, board_bytes = geo.ncells * sizeof(uint64_t)
        cdef int action, flags, length, n_players, n_keys, n_facings, record_length
        cdef int n_is_cells, n_is_after, n_old_keys, n_old_facings
        cdef const uint8_t* record
        cdef uint32_t* swap
        cdef const Props* rules
        cdef bint text_moved, outcome_may_differ, board_rewritten, boards_ready = False
        cdef int full_pack_share = FULL_PACK_SHARE
        if geo.track_facing:
            board_bytes *= 4
            full_pack_share = FULL_PACK_SHARE_FACING
        n_keys = n_facings = 0
        self.out_count = self.out_used = 0
        for index in range(start, stop):
            swap = self.old_keys
            self.old_keys = self.keys
            self.keys = swap
            swap = self.old_facings
            self.old_facings = self.facings
            self.facings = swap
            n_old_keys = n_keys
            n_old_facings = n_facings
            record = self.store.arena + self.store.offsets[index]
            record_length = <int>(self.store.offsets[index + 1] - self.store.offsets[index])
            decode_record(geo, record, record_length, self.keys, self.work.key_ends, &n_keys,
                          self.facings, &n_facings)
            if boards_ready and n_old_keys + n_keys <= TOGGLE_LIMIT:
                # Both boards hold the last state: take its keys out, put these in.
                toggle_keys(geo, &self.work.saved, self.old_keys, n_old_keys)
                toggle_keys(geo, &self.work.saved, self.keys, n_keys)
                toggle_keys(geo, &self.work.board, self.old_keys, n_old_keys)
                toggle_keys(geo, &self.work.board, self.keys, n_keys)
                if geo.track_facing:
                    put_facings(geo, &self.work.saved, self.old_facings, n_old_facings, True)
                    put_facings(geo, &self.work.saved, self.facings, n_facings, False)
                    put_facings(geo, &self.work.board, self.old_facings, n_old_facings, True)
                    put_facings(geo, &self.work.board, self.facings, n_facings, False)
            else:
                board_from_keys(geo, &self.work.saved, self.level.initial,
                                self.keys, n_keys, self.facings, n_facings)
                memcpy(self.work.board.grid, self.work.saved.grid, board_bytes)
                boards_ready = True
            split_keys(geo, self.keys, n_keys, self.work.key_cells, self.work.key_kinds)
            n_is_cells = cells_of_noun(geo, &self.work.saved, self.work.key_cells,
                                       self.work.key_kinds, n_keys, T_IS_TEXT, self.work.is_cells)
            read_rules_at(geo, &self.work.saved, &self.props, self.work.is_cells, n_is_cells, False)
            n_players = list_players(geo, &self.work.saved, &self.props, self.work.key_cells,
                                     self.work.key_kinds, n_keys,
                                     scratch.player_cells, scratch.player_tiles)
            self.list_movers(n_keys)
            scratch.n_danger = list_danger_cells(geo, &self.work.saved, &self.props,
                                                 self.work.key_cells, self.work.key_kinds, n_keys,
                                                 scratch.danger_cells)
            self.expanded += 1
            board_rewritten = False
            forget_changes(scratch)
            for action in range(self.n_actions + 1):
                # Put back what the last action changed, so the board is the parent's.
                if board_rewritten:
                    memcpy(self.work.board.grid, self.work.saved.grid, board_bytes)
                    board_rewritten = False
                else:
                    restore_cells(geo, &self.work.board, &self.work.saved, scratch.changed, scratch.n_changed)
                if action == self.n_actions:
                    break
                text_moved = play_turn(geo, &self.work.board, scratch, &self.props, action,
                                       scratch.player_cells, scratch.player_tiles, n_players)
                self.generated += 1
                if scratch.n_changed == 0 and index != 0:
                    continue        # nothing moved: the child is its parent
                rules = &self.props
                outcome_may_differ = scratch.destroyed or index == 0
                if text_moved:
                    n_is_after = cells_after_turn(&self.work.board, scratch, M_IS_TEXT, self.work.is_cells,
                                                  n_is_cells, self.work.is_cells_after)
                    read_rules_at(geo, &self.work.board, &self.next_props, self.work.is_cells_after,
                                  n_is_after, True)
                    rules = &self.next_props
                    board_rewritten = self.next_props.n_transforms != 0
                    outcome_may_differ = (outcome_may_differ or board_rewritten
                                          or self.next_props.you != self.props.you
                                          or self.next_props.win != self.props.win
                                          or self.next_props.move != self.props.move)
                if outcome_may_differ:
                    # New rules, lost objects or (at the root) a standing
                    # YOU-on-WIN can decide the turn anywhere on the board.
                    flags = assess(geo, &self.work.board, rules)
                elif won_in_changed_cells(&self.work.board, scratch, rules):
                    # Otherwise the parent neither won nor was dead, so only
                    # a cell the turn changed can win, and nothing can die.
                    flags = TURN_WON
                else:
                    flags = 0
                if flags & TURN_WON:
                    self.won_parent = <int64_t>index
                    self.won_action = action
                    return 1
                if flags & TURN_DEAD:
                    self.dead_ends += 1
                    continue
                if self.make_room() < 0:
                    return -1
                # A transformation may have changed cells anywhere; and when a
                # turn changed many cells, one pass over the board beats
                # merging that many keys into the parent's.
                if (board_rewritten or not self.incremental
                        or scratch.n_changed * full_pack_share > geo.ncells):
                    length = pack_board(geo, &self.work.board, self.level.initial, self.record)
                else:
                    # The arena may have moved since: an insert can grow it.
                    record = self.store.arena + self.store.offsets[index]
                    length = pack_child(geo, &self.work.saved, &self.work.board, scratch,
                                        record, self.keys, self.work.key_ends, n_keys,
                                        self.facings, n_facings, self.toggles, self.record)
                self.keep_child(length, <uint32_t>index, <uint8_t>action)
        return 0
