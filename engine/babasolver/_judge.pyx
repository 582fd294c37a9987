# The Keke judge's rule set behind the seam of _ruleset.pxd: its level
# (JudgeLevel) and its workspace (JudgeWorkspace). The turn is in
# _judge_turn.pxi, the records in _judge_record.pxi, the satisficing guides
# in _judge_guide.pxi. Compiler directives are set once, in setup.py.
from libc.stdint cimport uint8_t, uint16_t, uint32_t, uint64_t, int32_t, int64_t, INT32_MAX
from libc.string cimport memcpy, memset, memcmp

from babasolver._ruleset cimport (
    CoreLevel, Pool, Workspace, N_DIRECTIONS, WAIT, N_ACTIONS, ARENA_SLACK, TURN_CHANGED, TURN_WON, TURN_DEAD,
    TURN_ILLEGAL, TURN_COMES_BACK, GUIDE_BLIND, GUIDE_RULES, GUIDE_PAIRS, GUIDE_RULE_PAIRS,
)
from babasolver._tiles cimport *

from babasolver import tiles

cdef extern from *:
    int __builtin_ctzll(unsigned long long) nogil

include "_judge_turn.pxi"
include "_judge_record.pxi"
include "_judge_guide.pxi"

#: The rule set's name, as --rules spells it.
NAME = "keke"

#: The property words this rule set gives a meaning, and the bits each sets.
#: A property text of tiles.json whose word is not here is refused at load.
PROPERTY_BITS = {
    "you": P_YOU, "win": P_WIN, "stop": P_STOP, "push": P_PUSH, "move": P_MOVE,
    "kill": P_KILL, "sink": P_SINK, "hot": P_HOT, "melt": P_MELT,
}

ILLEGAL_REASONS = {
    ILLEGAL_KILL: "the KILL check names {thing} more than once",
    ILLEGAL_SINK: "the SINK check names {thing} more than once",
    ILLEGAL_SINK_GONE: "the SINK check pairs {thing}, which the KILL check already destroyed",
    ILLEGAL_HOT: "the HOT/MELT check names {thing} more than once",
}


# ------------------------------------------------------------- level --

cdef class JudgeLevel(CoreLevel):
    """The fixed facts of a level under the judge's rules: geometry, the
    map's things in load order, and the root position (after the load-time
    rule reading) that every record is packed against."""

    def __cinit__(self, int width, int height, grid, facings=()):
        # The judge's game has no facings at load: `facings` is not read.
        cdef int x, y, cell, tile, pad = 0, n_objects, i, k
        cells = self.take_grid(NAME, PROPERTY_BITS, width, height, grid)
        # A ring of border cells around every level (Keke maps come with
        # one), so a move never needs a bounds check.
        for x in range(width):
            if cells[x] != T_BORDER or cells[(height - 1) * width + x] != T_BORDER:
                pad = 1
        for y in range(height):
            if cells[y * width] != T_BORDER or cells[y * width + width - 1] != T_BORDER:
                pad = 1
        if width < 3 or height < 3:
            pad = 1
        cdef int pw = width + 2 * pad, ph = height + 2 * pad
        if pw * ph > MAX_CELLS:
            raise ValueError(f"level is too large: {width}x{height} is {width * height} cells, "
                             f"the engine handles up to {MAX_CELLS - 2 * (width + height) - 4} cells")
        cdef Geometry* geo = &self.geo
        geo.width, geo.height, geo.ncells, geo.pad = pw, ph, pw * ph, pad
        geo.delta[0], geo.delta[1], geo.delta[2], geo.delta[3] = -pw, pw, -1, 1
        geo.border = <uint8_t*>self.mem.alloc(geo.ncells, 1)
        memset(geo.border, 1, geo.ncells)
        objects, texts, present = [], [], set()
        for y in range(height):
            for x in range(width):
                tile = cells[y * width + x]
                cell = (y + pad) * pw + x + pad
                if tile != T_BORDER:
                    geo.border[cell] = 0
                if TILE_KIND[tile] == KIND_OBJECT:
                    objects.append((tile, cell))
                elif is_text_tile(tile):
                    texts.append((tile, cell))
                present.add(tile)
        n_objects = len(objects)
        geo.n_base_objects = n_objects
        geo.n_texts = len(texts)
        geo.n_base = n_objects + len(texts)
        geo.base_tile = <uint16_t*>self.mem.alloc(geo.n_base + 1, sizeof(uint16_t))
        geo.base_cell = <uint16_t*>self.mem.alloc(geo.n_base + 1, sizeof(uint16_t))
        for i, (t, c) in enumerate(objects + texts):
            geo.base_tile[i] = t
            geo.base_cell[i] = c
        is_things = [n_objects + k for k, (t, c) in enumerate(texts) if t == T_IS_TEXT]
        geo.n_is = len(is_things)
        # A reading finds at most two rules per `is` (across and down), each
        # a pair of text tiles, and keeps each pair once: a level that could
        # form more than the rule table holds is refused, rather than read
        # short (the judge reads them all).
        geo.n_text_kinds = len({t for t, c in texts})
        most_rules = min(2 * geo.n_is, geo.n_text_kinds * geo.n_text_kinds)
        if most_rules > MAX_RULES:
            raise ValueError(f"level has too many rules for the engine: its {geo.n_is} 'is' texts and "
                             f"{geo.n_text_kinds} kinds of text can form {most_rules} rules at once, and the engine "
                             f"reads up to {MAX_RULES}")
        geo.is_things = <int*>self.mem.alloc(geo.n_is + 1, sizeof(int))
        for i, t in enumerate(is_things):
            geo.is_things[i] = t
        # The map's objects of each object tile, in reading order.
        geo.noun_start = <int*>self.mem.alloc(N_TILES + 1, sizeof(int))
        geo.noun_objects = <int*>self.mem.alloc(n_objects + 1, sizeof(int))
        for t, c in objects:
            geo.noun_start[t + 1] += 1
        for t in range(N_TILES):
            geo.noun_start[t + 1] += geo.noun_start[t]
        filled = [geo.noun_start[t] for t in range(N_TILES)]
        for k, (t, c) in enumerate(objects):
            geo.noun_objects[filled[t]] = k
            filled[t] += 1
        geo.prop_bits = <uint16_t*>self.mem.alloc(N_TILES, sizeof(uint16_t))
        for t in range(N_TILES):
            if TILE_KIND[t] == KIND_PROPERTY_TEXT:
                geo.prop_bits[t] = PROPERTY_BITS.get(tiles.WORDS[t], 0)
        # Level analysis: a noun can gain MOVE, or be made by a
        # transformation, only if its text is on the map.
        noun_texts = sorted(t for t in present if TILE_KIND[t] == KIND_NOUN_TEXT)
        given = 0
        for t in present:
            given |= geo.prop_bits[t]
        geo.keeps_facing = <uint8_t*>self.mem.alloc(N_TILES, 1)
        if given & P_MOVE:
            for t in noun_texts:
                geo.keeps_facing[NOUN_TARGET[t]] = 1
        geo.can_create = geo.n_is > 0 and len(noun_texts) > 0
        geo.can_destroy = geo.n_is > 0 and (given & (P_KILL | P_SINK) or (given & P_HOT and given & P_MELT))
        # During a turn, each reading can make an object per object and rule
        # before created objects are compacted; a scan finds at most two
        # rules per `is`.
        geo.capacity = geo.n_base + n_objects * (2 * geo.n_is + 1) + 1
        memset(geo.root_ever, 0, sizeof(geo.root_ever))
        for t, c in objects:
            tile_add(geo.root_ever, t)
        # Level-local numbers of the object tiles that can be in play and of
        # the text tiles on the map, for the guides' atoms.
        in_play = sorted({t for t, c in objects} | {NOUN_TARGET[t] for t in noun_texts})
        geo.kind_of = <int*>self.mem.alloc(N_TILES, sizeof(int))
        geo.text_kind_of = <int*>self.mem.alloc(N_TILES, sizeof(int))
        for t in range(N_TILES):
            geo.kind_of[t] = geo.text_kind_of[t] = -1
        geo.kind_tile = <int*>self.mem.alloc(len(in_play) + 1, sizeof(int))
        for i, t in enumerate(in_play):
            geo.kind_of[t] = i
            geo.kind_tile[i] = t
        for i, t in enumerate(sorted({t for t, c in texts})):
            geo.text_kind_of[t] = i
        geo.n_kinds = len(in_play)
        self.n_actions = N_ACTIONS if geo.n_is else WAIT   # waiting needs texts to change anything
        self.n_atoms = ((<size_t>geo.n_texts + geo.n_kinds) * geo.ncells
                        + <size_t>geo.n_text_kinds * geo.n_text_kinds)
        self.n_pair_atoms = (<size_t>geo.ncells + 1) * geo.n_texts * geo.ncells
        self.max_atoms = geo.capacity + MAX_RULES
        geo.root_value = <uint32_t*>self.mem.alloc(geo.n_base + 1, sizeof(uint32_t))
        # An entry is at least a byte wide, so the padding of a record's
        # last byte never reads as one more entry.
        geo.gap_bits = max(1, (geo.n_base - 1).bit_length())
        geo.cell_bits = max(ENTRY_MIN_BITS - 2, geo.ncells.bit_length())
        geo.kind_bits = (len(in_play) - 1).bit_length() if in_play else 0
        geo.facing_bits = <uint8_t*>self.mem.alloc(geo.n_base + 1, 1)
        for i in range(n_objects):
            geo.facing_bits[i] = tile_facing_bits(geo, geo.base_tile[i])
        # The root: every thing in its own slot, then the load-time reading.
        alloc_position(self.mem, geo, &self.root)
        for i in range(geo.n_base):
            self.root.tile[i] = geo.base_tile[i]
            self.root.cell[i] = geo.base_cell[i]
            self.root.alive[i] = 1
            self.root.slot[geo.base_cell[i]] = i
        self.root.n_things = geo.n_base
        memcpy(self.root.ever, geo.root_ever, sizeof(geo.root_ever))
        read_root(self)

    cdef Workspace workspace(self):
        return JudgeWorkspace(self)

    @property
    def record_widths(self):
        """(gap_bits, cell_bits, facing bits per map thing): the widths of
        a record's entries (_judge_record.pxi), for tools that read records."""
        return (self.geo.gap_bits, self.geo.cell_bits,
                tuple(self.geo.facing_bits[i] for i in range(self.geo.n_base)))

    @property
    def created_widths(self):
        """(kind_bits, cell_bits, (tile, facing bits) per kind number): the
        widths of a record's created objects (_judge_record.pxi)."""
        return (self.geo.kind_bits, self.geo.cell_bits,
                tuple((self.geo.kind_tile[k], tile_facing_bits(&self.geo, self.geo.kind_tile[k]))
                      for k in range(self.geo.n_kinds)))


cdef int alloc_position(Pool mem, const Geometry* geo, Position* pos) except -1:
    cdef int n = geo.capacity
    pos.tile = <uint16_t*>mem.alloc(n, sizeof(uint16_t))
    pos.cell = <uint16_t*>mem.alloc(n, sizeof(uint16_t))
    pos.facing = <uint8_t*>mem.alloc(n, 1)
    pos.alive = <uint8_t*>mem.alloc(n, 1)
    pos.slot = <int32_t*>mem.alloc(geo.ncells, sizeof(int32_t))
    memset(pos.slot, 0xFF, geo.ncells * sizeof(int32_t))
    memset(pos.ever, 0, sizeof(pos.ever))
    pos.n_things = 0
    return 0


cdef void copy_position(const Geometry* geo, Position* dst, const Position* src) noexcept nogil:
    cdef int n = src.n_things
    memcpy(dst.tile, src.tile, n * sizeof(uint16_t))
    memcpy(dst.cell, src.cell, n * sizeof(uint16_t))
    memcpy(dst.facing, src.facing, n)
    memcpy(dst.alive, src.alive, n)
    memcpy(dst.slot, src.slot, geo.ncells * sizeof(int32_t))
    dst.n_things = n
    memcpy(dst.ever, src.ever, sizeof(src.ever))


cdef int alloc_entries(Pool mem, const Geometry* geo, int max_record, Entries* e) except -1:
    e.thing = <int*>mem.alloc(geo.n_base + 1, sizeof(int))
    e.value = <uint32_t*>mem.alloc(geo.n_base + 1, sizeof(uint32_t))
    e.bit = <int*>mem.alloc(geo.n_base + 2, sizeof(int))
    e.index = <int*>mem.alloc(geo.n_base + 1, sizeof(int))
    e.data = <uint8_t*>mem.alloc(max_record + ARENA_SLACK, 1)
    e.n = 0
    e.length = 0
    e.known = False
    memset(e.index, 0xFF, (geo.n_base + 1) * sizeof(int))
    return 0


cdef void copy_lists(Lists* dst, const Lists* src) noexcept nogil:
    cdef int which
    for which in range(N_LISTS):
        memcpy(dst.items[which], src.items[which], src.count[which] * sizeof(int))
        dst.count[which] = src.count[which]


cdef void read_root(JudgeLevel level) except *:
    """The load-time rule reading, and the root values records are packed against."""
    cdef JudgeWorkspace work = JudgeWorkspace(level)
    cdef UndoLog no_log
    cdef int i
    no_log.n = -1
    read_rules(&level.geo, &level.root, &no_log, &work.turn, &level.root_props, &work.turn.lists, 1, NULL, NULL)
    compact_created(&level.geo, &level.root)
    for i in range(level.geo.n_base):
        level.geo.root_value[i] = thing_value(&level.geo, &level.root, &level.root_props, i)
    work.set_root_unread()
    level.root_flags = work.flags_now(0, True)


# --------------------------------------------------------- workspace --

cdef inline void chain_object(Turn* turn, int cell, int thing) noexcept nogil:
    """Put `thing` first on the parent's chain of `cell`."""
    push_on_chain(turn.parent_stamp, turn.parent_head, turn.parent_next, turn.parent_epoch, cell, thing)


cdef inline void unchain_object(Turn* turn, int cell, int thing) noexcept nogil:
    """Take `thing` off the chain of `cell`, where it is."""
    cdef int j = turn.parent_head[cell]
    if j == thing:
        turn.parent_head[cell] = turn.parent_next[thing]
        return
    while turn.parent_next[j] != thing:
        j = turn.parent_next[j]
    turn.parent_next[j] = turn.parent_next[thing]


cdef inline void rechain_object(Turn* turn, int cell, int thing) noexcept nogil:
    """Put `thing` on the chain of `cell`, in creation order (by id)."""
    cdef int j = turn.parent_head[cell] if turn.parent_stamp[cell] == turn.parent_epoch else -1
    if j < 0 or j > thing:
        chain_object(turn, cell, thing)
        return
    while turn.parent_next[j] >= 0 and turn.parent_next[j] < thing:
        j = turn.parent_next[j]
    turn.parent_next[thing] = turn.parent_next[j]
    turn.parent_next[j] = thing


cdef class JudgeWorkspace(Workspace):
    """A position of the judge's game and the scratch to play turns on it."""

    def __cinit__(self, JudgeLevel level):
        cdef const Geometry* geo = &level.geo
        cdef int n = geo.capacity, which, list_room = 2 * n + 2
        cdef Pool mem = Pool()
        self.level = level
        self.mem = mem
        alloc_position(mem, geo, &self.pos)
        alloc_position(mem, geo, &self.saved)
        for which in range(N_LISTS):
            self.lists.items[which] = <int*>mem.alloc(list_room, sizeof(int))
            self.turn.lists.items[which] = <int*>mem.alloc(list_room, sizeof(int))
            self.lists.count[which] = 0
            self.turn.lists.count[which] = 0
        self.turn.moved = <uint8_t*>mem.alloc(n, 1)
        self.turn.moved_list = <int*>mem.alloc(n, sizeof(int))
        self.turn.max_pairs = n
        self.turn.pair_a = <int*>mem.alloc(n + 1, sizeof(int))
        self.turn.pair_b = <int*>mem.alloc(n + 1, sizeof(int))
        self.turn.seen = <int*>mem.alloc(n, sizeof(int))
        self.turn.stamp = <int32_t*>mem.alloc(geo.ncells, sizeof(int32_t))
        self.turn.chain_head = <int32_t*>mem.alloc(geo.ncells, sizeof(int32_t))
        self.turn.chain_next = <int*>mem.alloc(list_room, sizeof(int))
        self.turn.died = <int*>mem.alloc(n, sizeof(int))
        self.turn.died_list = <int*>mem.alloc(2 * n + 2, sizeof(int))
        self.turn.reslotted = <int*>mem.alloc(TOUCHED_LIMIT, sizeof(int))
        self.turn.parent_stamp = <int32_t*>mem.alloc(geo.ncells, sizeof(int32_t))
        self.turn.parent_head = <int32_t*>mem.alloc(geo.ncells, sizeof(int32_t))
        self.turn.parent_next = <int*>mem.alloc(n, sizeof(int))
        self.turn.moved_stamp = <int32_t*>mem.alloc(geo.ncells, sizeof(int32_t))
        self.turn.moved_head = <int32_t*>mem.alloc(geo.ncells, sizeof(int32_t))
        self.turn.moved_next = <int*>mem.alloc(n, sizeof(int))
        self.turn.roles_at = <uint16_t*>mem.alloc(geo.ncells, sizeof(uint16_t))
        self.turn.movers_at = <int*>mem.alloc(geo.ncells, sizeof(int))
        self.turn.snapshot = <int*>mem.alloc(list_room, sizeof(int))
        self.turn.snapshot2 = <int*>mem.alloc(list_room, sizeof(int))
        self.turn.snapshot3 = <int*>mem.alloc(list_room, sizeof(int))
        # A turn without a rule reading or destruction changes each moved
        # thing's cell, facing and two slots. Past TOUCHED_LIMIT changes the
        # child is packed whole anyway, so the log is kept only while undoing
        # it is cheaper than copying the parent back (about 32 bytes a change):
        # when 80 walls are YOU, logging and undoing 320 changes cost more.
        self.log.capacity = TOUCHED_LIMIT + 1 + (geo.ncells * sizeof(int32_t) + n * 6) // sizeof(Change)
        self.log.changes = <Change*>mem.alloc(self.log.capacity, sizeof(Change))
        self.touched = <int*>mem.alloc(3 * self.log.capacity + 1, sizeof(int))
        self.mark = <uint64_t*>mem.alloc((n + 63) // 64, sizeof(uint64_t))
        self.surprise = <uint8_t*>mem.alloc(n, 1)
        self.changed_values = <uint32_t*>mem.alloc(2 * geo.n_base + 1, sizeof(uint32_t))
        self.old_cells = <int*>mem.alloc(2 * geo.n_base + 1, sizeof(int))
        # Varints of at most 3 bytes hold tiles and counts, 5 bytes values.
        self.max_record = 16 + 3 * geo.n_kinds + 8 * n + 6 * MAX_RULES + 10 * geo.n_base
        alloc_entries(mem, geo, self.max_record, &self.entries)
        alloc_entries(mem, geo, self.max_record, &self.incoming)
        # A map thing's tile never changes (a transformation makes a new object).
        memcpy(self.pos.tile, geo.base_tile, geo.n_base * sizeof(uint16_t))
        memcpy(self.saved.tile, geo.base_tile, geo.n_base * sizeof(uint16_t))

    cdef const Props* rules_now(self) noexcept nogil:
        return &self.turn.props if self.turn.props_changed else &self.props

    cdef const Lists* lists_now(self) noexcept nogil:
        return &self.turn.lists if self.turn.lists_changed else &self.lists

    cdef void set_root_unread(self) noexcept nogil:
        """The root position with the level's root rules, its flags not known yet."""
        copy_position(&self.level.geo, &self.pos, &self.level.root)
        self.props = self.level.root_props
        self.record_flags = 0
        self.turn.props_changed = self.turn.lists_changed = self.turn.text_slots_changed = False
        build_lists(&self.level.geo, &self.pos, &self.props, &self.lists)

    cdef void set_root(self) noexcept nogil:
        """The level as loaded, with its rules and lists."""
        self.set_root_unread()
        self.record_flags = self.level.root_flags
        self.turn.fast = False
        self.chained = False
        self.entries.known = False      # its record is not read: children are packed whole
        self.log.n = 0

    cdef int load(self, const uint8_t* record, int length, bint near) noexcept nogil:
        cdef int loaded = self.load_near(record, length) if near and self.incremental else 1
        if loaded == 1:
            loaded = self.load_whole(record, length)
            copy_position(&self.level.geo, &self.saved, &self.pos)
            self.chained = False
        if loaded < 0:
            self.chained = False
            return -1
        self.turn.props_changed = self.turn.lists_changed = False
        self.prepare_parent()
        return 0

    cdef int load_whole(self, const uint8_t* record, int length) noexcept nogil:
        """Decode a record into `pos`, with its rules and lists; -1 if invalid."""
        cdef const Geometry* geo = &self.level.geo
        if decode_record(geo, record, length, &self.pos, &self.props, &self.record_flags,
                         &self.entries, self.surprise) < 0:
            return -1
        if not self.record_flags & RECORD_RULES:
            scan_rules(geo, &self.pos, &self.props)     # reads only texts' slots
        derive_props(geo, &self.props)
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
        cdef Entries* now = &self.entries
        cdef Entries* new = &self.incoming
        cdef uint32_t meta, count, value, old
        cdef int at, a = 0, b = 0, thing, changed, k
        if self.record_flags & RECORD_RULES or pos.n_things != geo.n_base or not now.known:
            return 1
        # A sibling of the last state is mostly its record with entries
        # written over: then only those are decoded.
        changed = diff_entries(geo, now, record, length, self.old_cells, self.changed_values)
        if changed >= 0:
            for k in range(changed):     # old_cells held the changed entries' indices
                thing = now.thing[self.old_cells[k]]
                self.old_cells[k] = pos.cell[thing] if now.value[self.old_cells[k]] else -1
                self.touched[k] = thing
            return self.moved_near(record, length, self.record_flags, changed, True)
        changed = 0
        at = read_meta(geo, record, length, pos, &meta)
        if at < 0:
            return -1
        if meta & RECORD_RULES:
            return 1
        if geo.can_create:
            at = get_varint(record, at, length, &count)
            if at < 0:
                return -1
            if count:
                return 1
        if read_entries(geo, record, at, length, new) < 0:
            return -1
        # The things whose values differ between the two states.
        while a < now.n or b < new.n:
            # `now` holds the values of `pos` (the parent, restored).
            if b >= new.n or (a < now.n and now.thing[a] < new.thing[b]):
                thing = now.thing[a]
                old = now.value[a]
                value = geo.root_value[thing]
                a += 1
            else:
                thing = new.thing[b]
                value = new.value[b]
                old = geo.root_value[thing]
                if a < now.n and now.thing[a] == thing:
                    old = now.value[a]
                    a += 1
                b += 1
            if old != value:
                self.touched[changed] = thing
                self.changed_values[changed] = value
                self.old_cells[changed] = pos.cell[thing] if old else -1
                changed += 1
        return self.moved_near(record, length, meta, changed, False)

    cdef int moved_near(self, const uint8_t* record, int length, uint32_t meta, int changed,
                        bint patched) noexcept nogil:
        """load_near, once the `changed` things (touched, changed_values,
        old_cells) are known: move them. `patched`: the record is the last
        one's with their entries written over (see diff_entries), so the
        entries are updated in place; otherwise `incoming` holds the new
        record's entries."""
        cdef const Geometry* geo = &self.level.geo
        cdef Position* pos = &self.pos
        cdef Entries* now = &self.entries
        cdef Entries spare
        cdef int thing, k, cell
        cdef bint lists_stale = False
        # From here on `pos` is the new state's, or load() decodes it whole.
        now.known = False
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
        self.record_flags = meta & 3
        if patched:
            for k in range(changed):
                now.value[now.index[self.touched[k]]] = self.changed_values[k]
            copy_words(now.data, record, length)
            now.known = True
        else:
            spare = self.entries
            self.entries = self.incoming
            self.incoming = spare
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
        memcpy(self.saved.ever, pos.ever, sizeof(pos.ever))
        self.n_changed = changed
        return 0

    cdef int flags_now(self, int flags, bint exact) noexcept nogil:
        """The RECORD_* flags of `pos` after a turn with TURN_* `flags`: only a
        rule reading can leave a pair standing or make the rule list other than
        a scan of the slots; text slots changing hands can do the latter too.
        A turn's last destruction check leaves no pair under the rules it
        played by, so a reading that transformed nothing and kept the nouns
        that pair leaves none either. `exact` looks again whatever the turn did."""
        cdef const Props* rules = self.rules_now()
        cdef int out = self.record_flags & RECORD_RULES
        if not exact and self.turn.props_changed and self.turn.rules_settled:
            out = 0
        elif exact or self.turn.props_changed or self.turn.text_slots_changed or flags & TURN_RELAYERED:
            scan_rules(&self.level.geo, &self.pos, &self.scanned)
            out = 0 if same_rules(&self.scanned, rules) else RECORD_RULES
        if (self.level.geo.can_destroy and (exact or (self.turn.props_changed and (
                self.turn.made or not same_dangers(&self.props, rules))))):
            if pairs_standing(&self.level.geo, &self.pos, &self.turn, self.lists_now()):
                out |= RECORD_STANDING
        return out

    cdef int pack_child(self, int flags, uint8_t* out) noexcept nogil:
        """The record of `pos` after a turn from `saved` (whose map-thing
        entries are `entries`). After a logged turn (no rule reading, no
        destruction, not too many moves) only the things the log names can
        have changed: the parent's record with their entries written over
        (patch_parent, straight from the log), or else its runs copied
        around them (pack_changed, from the things gathered and sorted).
        After a lone turn, only the mover's entry is written over."""
        cdef const Geometry* geo = &self.level.geo
        cdef const Props* rules
        cdef int record_flags
        cdef int i, n, thing, j, length, n_logged, n_notes = 0
        cdef int* misses
        cdef uint64_t word
        if self.turn.lone and self.entries.known and self.pos.n_things == geo.n_base:
            # One thing moved and no rule, slot of another, layer or pair
            # changed: the parent's record with the mover's entry written
            # over, when it keeps its width (the flags are the parent's).
            copy_words(out, self.entries.data, self.entries.length)
            if patch_entry(geo, &self.pos, &self.props, &self.entries, self.log.changes[0].thing, out):
                return self.entries.length
        rules = self.rules_now()
        record_flags = self.flags_now(flags, False)
        if not self.incremental or not self.entries.known:
            return pack_position(geo, &self.pos, rules, record_flags, out)
        if flags & TURN_RELAYERED:
            if not self.patchable_reading():
                return pack_position(geo, &self.pos, rules, record_flags, out)
            n_logged = self.turn.log_kept
            n_notes = self.turn.n_reslotted
        elif self.log.n < 0 or self.log.n > TOUCHED_LIMIT:
            return pack_position(geo, &self.pos, rules, record_flags, out)
        else:
            n_logged = self.log.n
        misses = &self.patch_misses[n_logged + n_notes > SORT_BY_INSERTION]
        if record_flags == self.record_flags and self.pos.n_things == geo.n_base and shortcut_due(misses):
            length = self.patch_parent(rules, n_logged, n_notes, out)
            misses[0] = 0 if length >= 0 else misses[0] + 1
            if length >= 0:
                return length
        n = self.logged_things(n_logged)
        for i in range(n_notes):
            n = self.touch(self.turn.reslotted[i], n)
        if n <= SORT_BY_INSERTION:
            for i in range(1, n):
                thing = self.touched[i]
                j = i
                while j > 0 and self.touched[j - 1] > thing:
                    self.touched[j] = self.touched[j - 1]
                    j -= 1
                self.touched[j] = thing
            for i in range(n):
                self.mark[self.touched[i] >> 6] = 0
        else:                   # many moved: read their bits off in thing order
            n = 0
            for i in range((geo.n_base + 63) >> 6):
                word = self.mark[i]
                self.mark[i] = 0
                while word:
                    self.touched[n] = (i << 6) + lowest_bit(word)
                    n += 1
                    word &= word - 1
        return pack_changed(geo, &self.pos, rules, record_flags, &self.entries, self.touched, n, out)

    cdef bint patchable_reading(self) noexcept nogil:
        """Whether after a turn that read the rules only the things it
        names can differ from the parent: it read the rules in force (so
        every noun keeps its layer), made and destroyed nothing, and its
        log held every move before the reading; then a thing's value changes
        only with its cell, facing or whether it holds its cell's slot, and
        the log and the reading's notes (turn.reslotted) name all of those."""
        cdef const Turn* turn = &self.turn
        return (turn.log_kept >= 0 and turn.log_kept <= TOUCHED_LIMIT and turn.n_reslotted >= 0
                and not turn.made and turn.n_died == 0
                and (not turn.props_changed or same_rules(&turn.props, &self.props)))

    cdef int logged_things(self, int n_logged) noexcept nogil:
        """The map things the first `n_logged` changes of the log name (see
        changed_thing), each once and marked in `mark`, into `touched`; how
        many."""
        cdef int i, k, n = 0
        for i in range(n_logged):
            for k in range(3):
                n = self.touch(changed_thing(&self.log.changes[i], k), n)
        return n

    cdef inline int touch(self, int thing, int n) noexcept nogil:
        """Add a map thing (not -1, not a created object) to touched[:n]
        unless `mark` has it; how many are touched then."""
        cdef uint64_t bit
        if 0 <= thing < self.level.geo.n_base:
            bit = <uint64_t>1 << (thing & 63)
            if not self.mark[thing >> 6] & bit:
                self.mark[thing >> 6] |= bit
                self.touched[n] = thing
                n += 1
        return n

    cdef int patch_parent(self, const Props* rules, int n_logged, int n_notes, uint8_t* out) noexcept nogil:
        """The child's record as its parent's with the entries of the things
        named by the first `n_logged` changes of the log (changed_thing) and
        the first `n_notes` of the reading's notes written over in place,
        when each that changed had an entry and keeps one (it then has the
        same width); -1 when an entry comes or goes. A thing named twice is
        written twice with its one value: no need to gather the names
        first. The head is the parent's: the caller has checked that flags
        and created objects are."""
        cdef const Geometry* geo = &self.level.geo
        cdef const Position* pos = &self.pos
        cdef const Entries* parent = &self.entries
        cdef int i, k
        copy_words(out, parent.data, parent.length)
        for i in range(n_logged):
            for k in range(3):
                if not patch_entry(geo, pos, rules, parent, changed_thing(&self.log.changes[i], k), out):
                    return -1
        for i in range(n_notes):
            if not patch_entry(geo, pos, rules, parent, self.turn.reslotted[i], out):
                return -1
        return parent.length

    cdef int pack(self, uint8_t* out) noexcept nogil:
        """The record of `pos` as it stands, from scratch."""
        return pack_position(&self.level.geo, &self.pos, &self.props, self.record_flags, out)

    cdef void prepare_parent(self) noexcept nogil:
        """Before playing the children of `pos`: unless a pair stands due,
        turns look for destruction only where things moved, so chain the
        parent's objects by cell for them, in creation order. After a near
        load only the things it changed are chained again."""
        cdef const Geometry* geo = &self.level.geo
        cdef Turn* turn = &self.turn
        cdef int i, k, thing
        turn.fast = not self.record_flags & RECORD_STANDING
        if not turn.fast or not geo.can_destroy:
            self.chained = False
            return
        if self.chained:
            for k in range(self.n_changed):
                thing = self.touched[k]
                if thing < geo.n_base_objects:
                    if self.old_cells[k] >= 0:
                        unchain_object(turn, self.old_cells[k], thing)
                    if self.pos.alive[thing]:
                        rechain_object(turn, self.pos.cell[thing], thing)
            return
        advance_epoch(&turn.parent_epoch, turn.parent_stamp, geo.ncells)
        # From the last object made back to the first map object (texts
        # are not objects), each pushed on its cell's chain.
        for i in range(self.pos.n_things - 1, geo.n_base - 1, -1):
            if self.pos.alive[i]:
                chain_object(turn, self.pos.cell[i], i)
        for i in range(geo.n_base_objects - 1, -1, -1):
            if self.pos.alive[i]:
                chain_object(turn, self.pos.cell[i], i)
        self.chained = True

    cdef bint wait_is_idle(self) noexcept nogil:
        """Waiting from `pos` changes nothing: no MOVE object, no pair due."""
        return not self.lists.count[L_MOVE] and not self.record_flags & RECORD_STANDING

    cdef int swapped_actions(self, int arrived, int candidates) noexcept nogil:
        """`pos` came back from its parent by `arrived`: with no MOVE object,
        that turn stepped each YOU object from the slot it held into an
        empty one (none onto a cell another left) and changed nothing else.
        When no YOU tile keeps a facing, and a candidate action (of the
        other axis) steps each of them into an empty slot from the parent
        too (its `side`: a stored, living child, where no pair can form;
        the parent's slots are those here, but on the cells they left) and
        again into an empty slot from here (its `corner`, where none can
        either), both ways end with each object on its corner holding its
        slot, the cells it held before emptied and everything else as in
        the parent: one position, whose turn destroys and reads nothing.
        Several YOU objects are looked at only up to SWAP_LIMIT."""
        cdef const Geometry* geo = &self.level.geo
        cdef const Position* pos = &self.pos
        cdef const int* you = self.lists.items[L_YOU]
        cdef int n = self.lists.count[L_YOU]
        cdef int i, j, thing, cell, action, side, corner, back = geo.delta[arrived], found = 0
        if not n or n > SWAP_LIMIT or self.lists.count[L_MOVE] or self.record_flags & RECORD_STANDING:
            return 0
        for i in range(n):
            thing = you[i]
            if geo.keeps_facing[pos.tile[thing]] or pos.slot[pos.cell[thing]] != thing:
                return 0
        for action in range(4):
            if not candidates >> action & 1:
                continue
            for i in range(n):
                cell = pos.cell[you[i]]
                side = cell - back + geo.delta[action]
                corner = cell + geo.delta[action]
                if (geo.border[side] or pos.slot[side] != NO_THING
                        or geo.border[corner] or pos.slot[corner] != NO_THING
                        or could_pair_at(geo, pos, &self.turn, &self.props, you[i], side)
                        or could_pair_at(geo, pos, &self.turn, &self.props, you[i], corner)):
                    break
                for j in range(n):      # a cell another held in the parent
                    if side == pos.cell[you[j]] - back:
                        break
                else:
                    continue
                break
            else:
                found |= 1 << action
        return found

    cdef bint is_dead(self) noexcept nogil:
        return not self.lists.count[L_YOU] and not self.lists.count[L_MOVE]

    cdef void restore(self) noexcept nogil:
        """Put `pos` back to `saved` after a child."""
        if self.log.n < 0:
            copy_position(&self.level.geo, &self.pos, &self.saved)
        else:
            undo(&self.pos, &self.log)
        self.log.n = 0

    cdef int play(self, int action) noexcept nogil:
        self.turn.plain_turns = self.incremental
        return play_turn(&self.level.geo, &self.pos, &self.log, &self.turn, &self.props,
                         &self.lists, action)

    cdef void adopt(self, int flags) noexcept nogil:
        """Make the position after a turn the current one (no restore). Its
        parent's cell chains are gone, so the next turn checks everywhere."""
        self.record_flags = self.flags_now(flags, True)
        if self.turn.props_changed:
            self.props = self.turn.props
        if self.turn.lists_changed:
            copy_lists(&self.lists, &self.turn.lists)
        self.turn.props_changed = self.turn.lists_changed = False
        self.turn.fast = False
        self.chained = False
        self.entries.known = False      # the child's are not read
        self.log.n = 0

    cdef int estimate(self, int guide) noexcept nogil:
        return estimate(&self.level.geo, &self.pos, self.lists_now(), guide)

    cdef int atoms(self, size_t* out) noexcept nogil:
        return position_atoms(&self.level.geo, &self.pos, self.rules_now(), out)

    cdef int pair_atoms(self, size_t* out) noexcept nogil:
        return position_pair_atoms(&self.level.geo, &self.pos, self.lists_now(), out)

    cdef int new_atoms(self, size_t* out) noexcept nogil:
        """After a logged turn only the things it moved can have new atoms
        (undo puts back nothing else); after another, the things that
        differ from `saved`."""
        cdef const Geometry* geo = &self.level.geo
        cdef const Props* rules = self.rules_now()
        cdef int i, n = 0
        if not self.short_log():
            return position_new_atoms(geo, &self.pos, &self.saved, rules, out)
        for i in range(self.log.n):
            if self.log.changes[i].kind == UNDO_MOVE:
                n += thing_atom(geo, &self.pos, self.log.changes[i].thing, out + n)
        return n + rule_atoms(geo, rules, out + n)

    cdef int new_pair_atoms(self, size_t* out) noexcept nogil:
        cdef const Geometry* geo = &self.level.geo
        cdef const Lists* lists = self.lists_now()
        cdef int i, thing, you, n = 0
        if not self.short_log():
            return position_new_pair_atoms(geo, &self.pos, lists, &self.saved, &self.lists, out)
        you = first_you_cell(geo, &self.pos, lists)
        if you != first_you_cell(geo, &self.saved, &self.lists):
            return position_pair_atoms(geo, &self.pos, lists, out)
        for i in range(self.log.n):
            thing = self.log.changes[i].thing
            if self.log.changes[i].kind == UNDO_MOVE and is_text(geo, thing):
                out[n] = pair_atom(geo, you, thing - geo.n_base_objects, self.pos.cell[thing])
                n += 1
        return n

    cdef inline bint short_log(self) noexcept nogil:
        """The last turn was logged, with no more changes than map things
        (so its atoms fit where a position's do)."""
        return 0 <= self.log.n <= self.level.geo.n_base and self.pos.n_things == self.saved.n_things

    # ------------------------------------------------ views, with the GIL

    cdef tuple xy(self, int cell):
        return (cell % self.level.geo.width - self.level.geo.pad,
                cell // self.level.geo.width - self.level.geo.pad)

    cdef list objects(self):
        cdef const Position* pos = &self.pos
        cdef int i
        out = []
        for i in list(range(self.level.geo.n_base_objects)) + list(range(self.level.geo.n_base, pos.n_things)):
            if pos.alive[i]:
                x, y = self.xy(pos.cell[i])
                out.append((pos.tile[i], x, y, pos.facing[i], pos.slot[pos.cell[i]] != i))
        return out

    cdef list texts(self):
        cdef const Position* pos = &self.pos
        cdef int i
        out = []
        for i in range(self.level.geo.n_base_objects, self.level.geo.n_base):
            x, y = self.xy(pos.cell[i])
            out.append((pos.tile[i], x, y, pos.slot[pos.cell[i]] != i))
        return out

    cdef list rules(self):
        return [(self.props.rule_left[i], self.props.rule_right[i]) for i in range(self.props.n_rules)]

    cdef str illegal_reason(self):
        cdef int thing = self.turn.illegal_thing
        x, y = self.xy(self.pos.cell[thing])
        name = f"{tiles.NAMES[self.pos.tile[thing]]} at ({x}, {y})"
        return ILLEGAL_REASONS[self.turn.illegal].format(thing=name)
