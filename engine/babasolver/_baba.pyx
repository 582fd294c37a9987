# The commercial game's rule set (../shared/RULES-baba.md) behind the seam
# of _ruleset.pxd. Section numbers (§) are RULES-baba.md's. Compiler
# directives are set once, in setup.py.
from libc.stdint cimport uint8_t, uint16_t, uint32_t, int32_t
from libc.string cimport memcpy, memset, memcmp

from babasolver._ruleset cimport (
    CoreLevel, Pool, Workspace, WAIT, N_ACTIONS, TURN_CHANGED, TURN_WON, TURN_DEAD, TURN_ILLEGAL,
    GUIDE_BLIND, GUIDE_PAIRS,
)
from babasolver._tiles cimport *

from babasolver import tiles

#: The rule set's name, as --rules spells it.
NAME = "baba"

#: The property words this rule set gives a meaning (the Keke "kill" is the
#: game's DEFEAT), and the bits each sets.
PROPERTY_BITS = {
    "you": G_YOU, "win": G_WIN, "stop": G_STOP, "push": G_PUSH, "move": G_MOVE,
    "kill": G_DEFEAT, "sink": G_SINK, "hot": G_HOT, "melt": G_MELT,
}

cdef enum:
    NOBODY = -1
    # Where a mover of a phase stands (§4.3): waiting for pass 0 to 4, or
    # for the one judgement a further MOVE step gets (§4.8, "pass 10"); done.
    PASS_FURTHER = 10
    DONE = 255
    # Verdicts on a cell (§4.2).
    FREE = 0
    PUSHABLE = 1
    BLOCKED = 2
    ILLEGAL_CROWD = 1       # more things than the engine holds
    ILLEGAL_RULES = 2       # more rules than the engine reads
    H_MAX = 0xFFFF
    H_NO_RULE = 24


cdef inline int opposite(int direction) noexcept nogil:
    # actions: 0 up <-> 1 down, 2 left <-> 3 right
    return direction ^ 1


cdef inline bint is_text_tile(int tile) noexcept nogil:
    return KIND_NOUN_TEXT <= TILE_KIND[tile] <= KIND_PROPERTY_TEXT


cdef inline uint16_t thing_bits(const Things* pos, const Rules* rules, int thing) noexcept nogil:
    """A thing's properties: a text's noun is `text`, and TEXT IS PUSH is
    built in (§1.4)."""
    if is_text_tile(pos.tile[thing]):
        return G_PUSH
    return rules.noun_props[pos.tile[thing]]


# ------------------------------------------------------------- rules --

cdef void add_rule(Rules* rules, int left, int right) noexcept nogil:
    if rules.n < G_MAX_RULES:
        rules.left[rules.n] = <uint16_t>left
        rules.right[rules.n] = <uint16_t>right
        rules.n += 1
    else:
        rules.overflow = True


cdef inline bint first_transform(const Rules* rules, int r) noexcept nogil:
    """Whether rule r is its noun's first `X is NOUN` rule."""
    cdef int k
    for k in range(r):
        if rules.left[k] == rules.left[r] and TILE_KIND[rules.right[k]] == KIND_NOUN_TEXT:
            return False
    return True


cdef void read_line(const Board* board, const Things* pos, const int32_t* head, const int32_t* next_on_cell,
                    Rules* rules, int noun, int step) noexcept nogil:
    """Every `NOUN is NOUN|PROPERTY` that the noun text `noun` begins one
    way (`step` cells apart): one text per cell, every combination of the
    texts stacked there, each cell's in thing order (§2.2, §2.3)."""
    cdef int middle = pos.cell[noun] + step, a, b
    if board.border[middle]:
        return                  # the last cell would lie past the ring
    a = head[middle]
    while a >= 0:
        if pos.tile[a] == T_IS_TEXT:
            b = head[middle + step]
            while b >= 0:
                if TILE_KIND[pos.tile[b]] == KIND_NOUN_TEXT or (
                        TILE_KIND[pos.tile[b]] == KIND_PROPERTY_TEXT and board.prop_bits[pos.tile[b]]):
                    add_rule(rules, pos.tile[noun], pos.tile[b])
                b = next_on_cell[b]
        a = next_on_cell[a]


cdef void read_rules(const Board* board, const Things* pos, const int32_t* head, const int32_t* next_on_cell,
                     Rules* rules) noexcept nogil:
    """The rules of the texts in play (cell chains already built), in the
    order U5 is decided by (as reference_baba.py): by their noun text's
    thing order, across before down, then by the other texts' thing order;
    duplicates kept (§2.4). Then what they make each noun."""
    cdef int i, r, left, right, noun, j
    cdef bint known
    rules.n = 0
    rules.overflow = False
    for i in range(board.n_base_objects, board.n_base):
        if pos.alive[i] and TILE_KIND[pos.tile[i]] == KIND_NOUN_TEXT:
            read_line(board, pos, head, next_on_cell, rules, i, 1)
            read_line(board, pos, head, next_on_cell, rules, i, board.width)
    memset(rules.noun_props, 0, sizeof(rules.noun_props))
    memset(rules.move_count, 0, sizeof(rules.move_count))
    memset(rules.protected, 0, sizeof(rules.protected))
    memset(rules.transforms, 0, sizeof(rules.transforms))
    rules.n_you = rules.n_move = rules.max_moves = 0
    for r in range(rules.n):
        left, right = rules.left[r], rules.right[r]
        noun = NOUN_TARGET[left]
        if TILE_KIND[right] == KIND_NOUN_TEXT:
            if NOUN_TARGET[right] == noun:
                rules.protected[noun] = 1
            elif rules.transforms[noun] < 255:
                rules.transforms[noun] += 1
            continue
        rules.noun_props[noun] |= board.prop_bits[right]
        if board.prop_bits[right] & G_YOU:
            known = False
            for j in range(rules.n_you):
                known = known or rules.you[j] == noun
            if not known:
                rules.you[rules.n_you] = <uint16_t>noun
                rules.n_you += 1
        if board.prop_bits[right] & G_MOVE:
            if rules.move_count[noun] == 0:
                rules.move[rules.n_move] = <uint16_t>noun
                rules.n_move += 1
            rules.move_count[noun] += 1     # at most G_MAX_RULES: no overflow
            if rules.move_count[noun] > rules.max_moves:
                rules.max_moves = rules.move_count[noun]


# ------------------------------------------------------------ records --
# A record: varint n, then n created objects in creation order (varint
# tile, varint value), then per map thing whose value differs from the
# level as loaded, varint (gap to the previous one - 1), varint value. A
# value is 0 for a thing out of play, else 1 + (cell << 2 | facing - 1),
# the facing kept only when some text can make a noun MOVE. The rules are
# not stored: at the end of every turn they are a scan of the texts.

cdef inline int put_varint(uint8_t* out, int length, uint32_t value) noexcept nogil:
    while value >= 0x80:
        out[length] = <uint8_t>(value | 0x80)
        value >>= 7
        length += 1
    out[length] = <uint8_t>value
    return length + 1


cdef inline int get_varint(const uint8_t* data, int at, int length, uint32_t* value) noexcept nogil:
    cdef uint32_t result = 0
    cdef int shift = 0
    while True:
        if at >= length or shift > 28:
            return -1
        result |= (<uint32_t>(data[at] & 0x7F)) << shift
        if not data[at] & 0x80:
            value[0] = result
            return at + 1
        shift += 7
        at += 1


cdef inline uint32_t thing_value(const Board* board, const Things* pos, int thing) noexcept nogil:
    if not pos.alive[thing]:
        return 0
    return 1 + ((<uint32_t>pos.cell[thing] << 2)
                | (pos.facing[thing] - 1 if board.keeps_facing and pos.facing[thing] else 0))


cdef inline bint place(const Board* board, Things* pos, int thing, uint32_t value) noexcept nogil:
    """A thing from its value; False when the value is not of this level."""
    if value == 0:
        pos.alive[thing] = 0
        return True
    value -= 1
    if (value >> 2) >= <uint32_t>board.ncells or board.border[value >> 2]:
        return False
    pos.alive[thing] = 1
    pos.cell[thing] = <uint16_t>(value >> 2)
    if is_text_tile(pos.tile[thing]):
        pos.facing[thing] = 0
    elif board.keeps_facing:
        pos.facing[thing] = <uint8_t>((value & 3) + 1)
    else:
        pos.facing[thing] = 4
    return True


cdef int pack_things(const Board* board, const Things* pos, uint8_t* out) noexcept nogil:
    cdef int i, n = 0, last = -1, length
    cdef uint32_t value
    for i in range(board.n_base, pos.n):
        n += pos.alive[i]
    length = put_varint(out, 0, n)
    for i in range(board.n_base, pos.n):
        if pos.alive[i]:
            length = put_varint(out, length, pos.tile[i])
            length = put_varint(out, length, thing_value(board, pos, i))
    for i in range(board.n_base):
        value = thing_value(board, pos, i)
        if value != board.root_value[i]:
            length = put_varint(out, length, <uint32_t>(i - last - 1))
            length = put_varint(out, length, value)
            last = i
    return length


cdef int unpack_things(const Board* board, const uint8_t* record, int length, Things* pos) noexcept nogil:
    cdef uint32_t count, tile, value, gap
    cdef int at, k, i, next_diff = -1
    at = get_varint(record, 0, length, &count)
    if at < 0 or count > <uint32_t>(board.capacity - board.n_base):
        return -1
    pos.n = board.n_base + <int>count
    for k in range(board.n_base, pos.n):
        at = get_varint(record, at, length, &tile)
        if at < 0 or tile >= N_TILES or board.kind_of[tile] < 0:
            return -1
        pos.tile[k] = <uint16_t>tile
        at = get_varint(record, at, length, &value)
        if at < 0 or value == 0 or not place(board, pos, k, value):
            return -1
    if at < length:
        at = get_varint(record, at, length, &gap)
        if at < 0:
            return -1
        next_diff = <int>gap
    for i in range(board.n_base):
        pos.tile[i] = board.base_tile[i]
        if i == next_diff:
            at = get_varint(record, at, length, &value)
            if at < 0:
                return -1
            next_diff = -1
            if at < length:
                at = get_varint(record, at, length, &gap)
                if at < 0:
                    return -1
                next_diff = i + 1 + <int>gap
        else:
            value = board.root_value[i]
        if not place(board, pos, i, value):
            return -1
    if at != length or next_diff != -1:
        return -1
    return 0


cdef void copy_things(Things* dst, const Things* src) noexcept nogil:
    memcpy(dst.tile, src.tile, src.n * sizeof(uint16_t))
    memcpy(dst.cell, src.cell, src.n * sizeof(uint16_t))
    memcpy(dst.facing, src.facing, src.n)
    memcpy(dst.alive, src.alive, src.n)
    dst.n = src.n


cdef bint same_things(const Things* a, const Things* b) noexcept nogil:
    return (a.n == b.n and memcmp(a.tile, b.tile, a.n * sizeof(uint16_t)) == 0
            and memcmp(a.cell, b.cell, a.n * sizeof(uint16_t)) == 0
            and memcmp(a.facing, b.facing, a.n) == 0 and memcmp(a.alive, b.alive, a.n) == 0)


cdef int alloc_things(Pool mem, int capacity, Things* pos) except -1:
    pos.tile = <uint16_t*>mem.alloc(capacity, sizeof(uint16_t))
    pos.cell = <uint16_t*>mem.alloc(capacity, sizeof(uint16_t))
    pos.facing = <uint8_t*>mem.alloc(capacity, 1)
    pos.alive = <uint8_t*>mem.alloc(capacity, 1)
    pos.n = 0
    return 0


# ------------------------------------------------------------- level --

cdef class GameLevel(CoreLevel):
    """The fixed facts of a level under the game's rules, and the level as
    loaded: every thing in its cell with its facing (right where the level
    gives none, §1.3), the rules read; nothing transformed, destroyed or won
    before the first input (U3: unconfirmed, the proposal here)."""

    def __cinit__(self, int width, int height, grid, facings=()):
        cdef int x, y, cell, tile, pad = 1, i, k
        cells = self.take_grid(NAME, PROPERTY_BITS, width, height, grid)
        facings = tuple(facings) or (0,) * len(cells)
        if len(facings) != len(cells):
            raise ValueError(f"facings has {len(facings)} cells, expected {len(cells)}")
        cdef int pw = width + 2, ph = height + 2
        if pw * ph > 65535:
            raise ValueError(f"level is too large: {width}x{height} is {width * height} cells")
        cdef Board* board = &self.board
        board.width, board.height, board.ncells, board.pad = pw, ph, pw * ph, pad
        board.delta[0], board.delta[1], board.delta[2], board.delta[3] = -pw, pw, -1, 1
        board.border = <uint8_t*>self.mem.alloc(board.ncells, 1)
        memset(board.border, 1, board.ncells)
        objects, texts, present = [], [], set()
        for y in range(height):
            for x in range(width):
                tile = cells[y * width + x]
                cell = (y + 1) * pw + x + 1
                if tile != T_BORDER:
                    board.border[cell] = 0
                if TILE_KIND[tile] == KIND_OBJECT:
                    objects.append((tile, cell, facings[y * width + x] or 4))
                elif is_text_tile(tile):
                    texts.append((tile, cell, 0))
                present.add(tile)
        board.n_base_objects = len(objects)
        board.n_texts = len(texts)
        board.n_base = len(objects) + len(texts)
        board.prop_bits = <uint16_t*>self.mem.alloc(N_TILES, sizeof(uint16_t))
        for t in range(N_TILES):
            if TILE_KIND[t] == KIND_PROPERTY_TEXT:
                board.prop_bits[t] = PROPERTY_BITS.get(tiles.WORDS[t], 0)
        noun_texts = sorted(t for t in present if TILE_KIND[t] == KIND_NOUN_TEXT)
        board.keeps_facing = any(board.prop_bits[t] & G_MOVE for t in present)
        in_play = sorted({t for t, c, f in objects} | {NOUN_TARGET[t] for t in noun_texts})
        text_tiles = sorted({t for t, c, f in texts})
        board.kind_of = <int*>self.mem.alloc(N_TILES, sizeof(int))
        board.text_kind_of = <int*>self.mem.alloc(N_TILES, sizeof(int))
        for t in range(N_TILES):
            board.kind_of[t] = board.text_kind_of[t] = -1
        for i, t in enumerate(in_play):
            board.kind_of[t] = i
        for i, t in enumerate(text_tiles):
            board.text_kind_of[t] = i
        board.n_kinds = len(in_play)
        board.n_text_kinds = len(text_tiles)
        # Transformations can multiply objects (rock is flag and rock is
        # keke makes two of each rock); past this the engine refuses a turn.
        board.capacity = board.n_base + 8 * board.n_base_objects + 64
        board.base_tile = <uint16_t*>self.mem.alloc(board.n_base + 1, sizeof(uint16_t))
        board.base_cell = <uint16_t*>self.mem.alloc(board.n_base + 1, sizeof(uint16_t))
        board.base_facing = <uint8_t*>self.mem.alloc(board.n_base + 1, 1)
        board.root_value = <uint32_t*>self.mem.alloc(board.n_base + 1, sizeof(uint32_t))
        alloc_things(self.mem, board.capacity, &self.root)
        for i, (t, c, f) in enumerate(objects + texts):
            board.base_tile[i] = self.root.tile[i] = t
            board.base_cell[i] = self.root.cell[i] = c
            board.base_facing[i] = self.root.facing[i] = f
            self.root.alive[i] = 1
        self.root.n = board.n_base
        for i in range(board.n_base):
            board.root_value[i] = thing_value(board, &self.root, i)
        self.n_actions = N_ACTIONS
        self.n_atoms = (<size_t>board.n_texts * (board.ncells + 1) + <size_t>board.n_kinds * board.ncells
                        + <size_t>board.n_text_kinds * board.n_text_kinds)
        self.n_pair_atoms = (<size_t>board.ncells + 1) * board.n_texts * (board.ncells + 1)
        self.max_atoms = board.capacity + G_MAX_RULES
        cdef GameWorkspace work = GameWorkspace(self)
        work.set_root()
        read_rules(board, &work.pos, work.head, work.next_on_cell, &self.root_rules)
        if self.root_rules.overflow:
            raise ValueError(f"level has too many rules for the engine: its texts form more than {G_MAX_RULES}"
                             " rules at once (stacked texts combine), and the engine reads up to that many")

    cdef Workspace workspace(self):
        return GameWorkspace(self)


# --------------------------------------------------------- workspace --

cdef class GameWorkspace(Workspace):
    """A position of the game and the scratch to play turns on it."""

    def __cinit__(self, GameLevel level):
        cdef const Board* board = &level.board
        cdef int n = board.capacity
        cdef Pool mem = Pool()
        self.level = level
        self.mem = mem
        alloc_things(mem, n, &self.pos)
        alloc_things(mem, n, &self.saved)
        self.head = <int32_t*>mem.alloc(board.ncells, sizeof(int32_t))
        self.next_on_cell = <int32_t*>mem.alloc(n, sizeof(int32_t))
        self.stamp = <int32_t*>mem.alloc(board.ncells, sizeof(int32_t))
        self.movers = <int*>mem.alloc(n, sizeof(int))
        self.mover_pass = <uint8_t*>mem.alloc(n, 1)
        self.mover_dir = <uint8_t*>mem.alloc(n, 1)
        self.pending = <int32_t*>mem.alloc(n, sizeof(int32_t))
        self.pending_dir = <uint8_t*>mem.alloc(n, 1)
        self.leaving = <uint8_t*>mem.alloc(n, 1)
        self.fresh_dirs = <uint8_t*>mem.alloc(n, 1)
        self.pending_list = <int*>mem.alloc(n, sizeof(int))
        self.fresh = <int*>mem.alloc(3 * n, sizeof(int))
        self.fresh_at = <int32_t*>mem.alloc(n, sizeof(int32_t))
        memset(self.fresh_at, 0xFF, n * sizeof(int32_t))
        self.doomed = <uint8_t*>mem.alloc(n, 1)
        self.scratch = <int*>mem.alloc(2 * n, sizeof(int))
        self.mover_steps = <uint16_t*>mem.alloc(n, sizeof(uint16_t))
        memset(self.pending, 0xFF, n * sizeof(int32_t))
        memset(self.head, 0xFF, board.ncells * sizeof(int32_t))
        self.max_record = 16 + 10 * n
        self.epoch = 0

    cdef const Rules* rules_now(self) noexcept nogil:
        return &self.child_rules if self.child_read else &self.parent_rules

    cdef void chain_cells(self) noexcept nogil:
        """Cell chains of the things in play, each cell's in thing order."""
        cdef int i, cell
        cdef Things* pos = &self.pos
        memset(self.head, 0xFF, self.level.board.ncells * sizeof(int32_t))
        for i in range(pos.n - 1, -1, -1):
            if pos.alive[i]:
                cell = pos.cell[i]
                self.next_on_cell[i] = self.head[cell]
                self.head[cell] = i

    # -------------------------------------------------------- a phase

    cdef int judge(self, int target, int direction) noexcept nogil:
        """What stands in the way of a thing moving into `target` in
        `direction` (§4.2): a thing with a move pending along that line,
        either way, is ignored."""
        cdef int o, verdict = FREE
        cdef int along = (1 << direction) | (1 << opposite(direction))
        cdef uint16_t bits
        cdef const Rules* rules = &self.parent_rules
        if self.level.board.border[target]:
            return BLOCKED
        o = self.head[target]
        while o >= 0:
            if not self.leaving[o] & along:
                bits = thing_bits(&self.pos, rules, o)
                if bits & G_PUSH:
                    verdict = PUSHABLE
                elif bits & G_STOP:
                    return BLOCKED
            o = self.next_on_cell[o]
        return verdict

    cdef void decide(self, int thing, int target, int direction) noexcept nogil:
        """Record a move of this pass; a later one of the same thing replaces
        it, but both count as pending for what is leaving along a line."""
        cdef int k = self.fresh_at[thing]
        self.fresh_dirs[thing] |= <uint8_t>(1 << direction)
        if k < 0:
            k = self.fresh_at[thing] = self.n_fresh
            self.n_fresh += 1
        self.fresh[3 * k] = thing
        self.fresh[3 * k + 1] = target
        self.fresh[3 * k + 2] = direction

    cdef bint push_line(self, int start, int direction) noexcept nogil:
        """A push from `start` into the next cell (§4.4): every pushable
        thing there, and down the line, must be able to move; then each
        gets its move. All or nothing."""
        cdef int delta = self.level.board.delta[direction]
        cdef int along = (1 << direction) | (1 << opposite(direction))
        cdef int cell = start + delta, last, o
        cdef uint16_t bits
        while True:
            verdict = self.judge(cell + delta, direction)
            if verdict == BLOCKED:
                return False
            if verdict == FREE:
                break
            cell += delta
        last = cell
        cell = start + delta
        while True:
            o = self.head[cell]
            while o >= 0:
                if not self.leaving[o] & along:
                    bits = thing_bits(&self.pos, &self.parent_rules, o)
                    if bits & G_PUSH:
                        self.decide(o, cell + delta, direction)
                o = self.next_on_cell[o]
            if cell == last:
                return True
            cell += delta

    cdef int phase(self, int n, bint moving, bint further) noexcept nogil:
        """One movement phase of movers[:n] (§4.1-4.4), each in mover_dir:
        passes 0 to 4 with the reset rule; every decided move is applied
        when the phase ends. A further MOVE step (§4.8) starts at pass 10
        and gives up when blocked, unless a reset sends it back to pass 0
        first. The movers with steps left move again, in the order they
        finished (moved or gave up): they are left in movers[:returned]."""
        cdef int m, thing, p, verdict, target, k, direction, n_again = 0
        cdef bint success
        cdef Things* pos = &self.pos
        cdef const Board* board = &self.level.board
        for m in range(n):
            self.mover_pass[m] = PASS_FURTHER if further else 0
        self.n_pending = 0
        while True:
            p = DONE
            for m in range(n):
                if self.mover_pass[m] < p:
                    p = self.mover_pass[m]
            if p == DONE:
                break
            self.n_fresh = 0
            for m in range(n):
                if self.mover_pass[m] != p:
                    continue            # waits for another pass, or a reset sent it back
                thing = self.movers[m]
                if p == 3 and moving:
                    # A MOVE mover turns around at once, even if it then stays.
                    self.mover_dir[m] = <uint8_t>opposite(self.mover_dir[m])
                    pos.facing[thing] = self.mover_dir[m] + 1
                direction = self.mover_dir[m]
                target = pos.cell[thing] + board.delta[direction]
                verdict = self.judge(target, direction)
                if verdict == PUSHABLE and p == 0:
                    self.mover_pass[m] = 1
                    continue
                success = verdict == FREE or (verdict == PUSHABLE and self.push_line(pos.cell[thing], direction))
                if success:
                    self.decide(thing, target, direction)
                    if p != 0:
                        # The reset rule: everyone waiting for pass 2, 3 or 4
                        # (or a further step's pass 10) starts again at 0.
                        for k in range(n):
                            if k != m and 2 <= self.mover_pass[k] <= PASS_FURTHER:
                                self.mover_pass[k] = 0
                elif p < 2:
                    self.mover_pass[m] = 2
                    continue
                elif p == 2 or (p == 3 and moving):
                    self.mover_pass[m] = p + 1
                    continue
                self.mover_pass[m] = DONE
                if self.mover_steps[m] > 1:
                    self.scratch[n_again] = m
                    n_again += 1
            # Moves decided in a pass count from the next pass on (§4.1);
            # two moves of one thing: the later one is made (§4.4), but
            # either leaves the way free along its line (§4.2).
            for k in range(self.n_fresh):
                thing = self.fresh[3 * k]
                self.leaving[thing] |= self.fresh_dirs[thing]
                self.fresh_dirs[thing] = 0
                if self.pending[thing] < 0:
                    self.pending_list[self.n_pending] = thing
                    self.n_pending += 1
                self.pending[thing] = self.fresh[3 * k + 1]
                self.pending_dir[thing] = <uint8_t>self.fresh[3 * k + 2]
                self.fresh_at[thing] = NOBODY
        for k in range(self.n_pending):
            thing = self.pending_list[k]
            pos.cell[thing] = <uint16_t>self.pending[thing]
            if not is_text_tile(pos.tile[thing]):
                pos.facing[thing] = self.pending_dir[thing] + 1
            self.pending[thing] = NOBODY
            self.leaving[thing] = 0
        if self.n_pending:
            self.chain_cells()
        # The next round: those with steps left, in the order they finished,
        # in their facing as it is now.
        for k in range(n_again):
            m = self.scratch[k]
            self.scratch[k] = self.movers[m]
            self.scratch[n + k] = self.mover_steps[m] - 1
        for k in range(n_again):
            self.movers[k] = self.scratch[k]
            self.mover_steps[k] = <uint16_t>self.scratch[n + k]
            self.mover_dir[k] = pos.facing[self.movers[k]] - 1
        return n_again

    cdef int list_movers(self, const Rules* rules, bint you) noexcept nogil:
        """The movers of a phase: for each YOU (or MOVE) noun in rule order,
        its objects in creation order (§4), a MOVE object with a step per
        `X is move` rule (§4.8)."""
        cdef int j, i, noun, n = 0
        cdef Things* pos = &self.pos
        cdef int count = rules.n_you if you else rules.n_move
        for j in range(count):
            noun = rules.you[j] if you else rules.move[j]
            for i in range(pos.n):
                if pos.alive[i] and pos.tile[i] == noun:
                    self.movers[n] = i
                    self.mover_dir[n] = pos.facing[i] - 1
                    self.mover_steps[n] = 1 if you else rules.move_count[noun]
                    n += 1
        return n

    # ------------------------------------------- the end of the turn

    cdef bint transform(self, const Rules* rules) noexcept nogil:
        """One link of `X is Y` (§5): each object of X becomes one new
        object per rule, in place, keeping its facing. The new objects come
        last, in the order U5 is decided by (as reference_baba.py): noun by
        noun in the order of each one's first such rule, a noun's objects
        in thing order, an object's per rule. False when that would pass
        the engine's room for things."""
        cdef int i, r, first, n = self.pos.n, noun
        cdef Things* pos = &self.pos
        for first in range(rules.n):
            noun = NOUN_TARGET[rules.left[first]]
            if (TILE_KIND[rules.right[first]] != KIND_NOUN_TEXT or rules.protected[noun]
                    or not first_transform(rules, first)):
                continue
            for i in range(n):
                if not pos.alive[i] or pos.tile[i] != noun:
                    continue
                for r in range(first, rules.n):
                    if NOUN_TARGET[rules.left[r]] == noun and TILE_KIND[rules.right[r]] == KIND_NOUN_TEXT:
                        if pos.n == self.level.board.capacity:
                            return False
                        pos.tile[pos.n] = NOUN_TARGET[rules.right[r]]
                        pos.cell[pos.n] = pos.cell[i]
                        pos.facing[pos.n] = pos.facing[i]
                        pos.alive[pos.n] = 1
                        pos.n += 1
                pos.alive[i] = 0
        return True

    cdef bint destroy(self, const Rules* rules) noexcept nogil:
        """SINK, then MELT on HOT, then YOU on DEFEAT, each deleting before
        the next looks (§6). Whether a text was destroyed."""
        cdef int i, o, n
        cdef bint texts_gone = False
        cdef Things* pos = &self.pos
        cdef uint16_t bits
        self.chain_cells()
        # SINK: a cell with a SINK object and anything else loses everything.
        memset(self.doomed, 0, pos.n)
        for i in range(pos.n):
            if pos.alive[i] and thing_bits(pos, rules, i) & G_SINK:
                o, n = self.head[pos.cell[i]], 0
                while o >= 0:
                    n += 1
                    o = self.next_on_cell[o]
                if n > 1:
                    o = self.head[pos.cell[i]]
                    while o >= 0:
                        self.doomed[o] = 1
                        o = self.next_on_cell[o]
        for i in range(pos.n):
            if self.doomed[i]:
                pos.alive[i] = 0
                texts_gone = texts_gone or is_text_tile(pos.tile[i])
        self.destroy_where(rules, G_MELT, G_HOT)
        self.destroy_where(rules, G_YOU, G_DEFEAT)
        self.chain_cells()
        return texts_gone

    cdef void destroy_where(self, const Rules* rules, uint16_t victim, uint16_t killer) noexcept nogil:
        """Every `victim` thing on a cell that holds a `killer` thing (itself
        counting) leaves play; the killers stay."""
        cdef int i, o
        cdef Things* pos = &self.pos
        self.chain_cells()
        memset(self.doomed, 0, pos.n)
        for i in range(pos.n):
            if pos.alive[i] and thing_bits(pos, rules, i) & victim:
                o = self.head[pos.cell[i]]
                while o >= 0:
                    if thing_bits(pos, rules, o) & killer:
                        self.doomed[i] = 1
                        break
                    o = self.next_on_cell[o]
        for i in range(pos.n):
            if self.doomed[i]:
                pos.alive[i] = 0

    cdef bint won(self, const Rules* rules) noexcept nogil:
        """A YOU object on a cell with a WIN object (itself counting, §7)."""
        cdef int i, o
        cdef Things* pos = &self.pos
        for i in range(pos.n):
            if pos.alive[i] and thing_bits(pos, rules, i) & G_YOU:
                o = self.head[pos.cell[i]]
                while o >= 0:
                    if thing_bits(pos, rules, o) & G_WIN:
                        return True
                    o = self.next_on_cell[o]
        return False

    cdef bint transforms_due(self, const Rules* rules) noexcept nogil:
        cdef int i
        for i in range(self.pos.n):
            if (self.pos.alive[i] and not is_text_tile(self.pos.tile[i]) and rules.transforms[self.pos.tile[i]]
                    and not rules.protected[self.pos.tile[i]]):
                return True
        return False

    cdef bint destruction_due(self, const Rules* rules) noexcept nogil:
        """Whether the checks of §6 would destroy something as the position
        stands (cell chains built)."""
        cdef int i, o
        cdef uint16_t bits, other
        cdef Things* pos = &self.pos
        for i in range(pos.n):
            if not pos.alive[i]:
                continue
            bits = thing_bits(pos, rules, i)
            if not bits & (G_SINK | G_MELT | G_YOU):
                continue
            o = self.head[pos.cell[i]]
            while o >= 0:
                other = thing_bits(pos, rules, o)
                if (bits & G_SINK and o != i) or (bits & G_MELT and other & G_HOT) or (
                        bits & G_YOU and other & G_DEFEAT):
                    return True
                o = self.next_on_cell[o]
        return False

    cdef void compact(self) noexcept nogil:
        """Drop the created objects out of play, keeping creation order."""
        cdef int i, kept = self.level.board.n_base
        cdef Things* pos = &self.pos
        for i in range(kept, pos.n):
            if pos.alive[i]:
                if i != kept:
                    pos.tile[kept], pos.cell[kept], pos.facing[kept] = pos.tile[i], pos.cell[i], pos.facing[i]
                    pos.alive[kept] = 1
                kept += 1
        pos.n = kept

    # ------------------------------------------------- the interface

    cdef void set_root(self) noexcept nogil:
        copy_things(&self.pos, &self.level.root)
        copy_things(&self.saved, &self.level.root)
        self.parent_rules = self.level.root_rules
        self.child_read = False
        self.chain_cells()

    cdef int load(self, const uint8_t* record, int length, bint near) noexcept nogil:
        if unpack_things(&self.level.board, record, length, &self.pos) < 0:
            return -1
        copy_things(&self.saved, &self.pos)
        self.chain_cells()
        read_rules(&self.level.board, &self.pos, self.head, self.next_on_cell, &self.parent_rules)
        self.child_read = False
        return 0

    cdef bint read_child_rules(self) noexcept nogil:
        """Read the rules again from the child, once texts moved or went:
        False, the turn illegal, when they are more than the engine reads."""
        read_rules(&self.level.board, &self.pos, self.head, self.next_on_cell, &self.child_rules)
        self.child_read = True
        if self.child_rules.overflow:
            self.illegal_kind = ILLEGAL_RULES
            return False
        return True

    cdef int play(self, int action) noexcept nogil:
        """One turn (§3)."""
        cdef Things* pos = &self.pos
        cdef const Rules* rules = &self.parent_rules
        cdef int n, i, flags = 0
        cdef bint texts_moved = False, texts_gone, further
        self.child_read = False
        self.chain_cells()
        if action != WAIT:
            n = self.list_movers(rules, True)
            for i in range(n):
                # YOU objects face the input, whether or not they can move.
                pos.facing[self.movers[i]] = <uint8_t>(action + 1)
                self.mover_dir[i] = <uint8_t>action
            self.phase(n, False, False)
        n = self.list_movers(rules, False)
        further = False
        while n:
            n = self.phase(n, True, further)
            further = True
        for i in range(self.level.board.n_base_objects, self.level.board.n_base):
            if pos.cell[i] != self.saved.cell[i]:
                texts_moved = True
        if texts_moved:
            if not self.read_child_rules():
                return TURN_ILLEGAL
            rules = &self.child_rules
        if not self.transform(rules):
            self.illegal_kind = ILLEGAL_CROWD
            return TURN_ILLEGAL
        texts_gone = self.destroy(rules)
        if self.won(rules):
            flags |= TURN_WON
        if texts_gone:
            if not self.read_child_rules():
                return TURN_ILLEGAL
            rules = &self.child_rules
        self.compact()
        if not same_things(pos, &self.saved):
            flags |= TURN_CHANGED
        if self.dead_with(rules):
            flags |= TURN_DEAD
        return flags

    cdef bint dead_with(self, const Rules* rules) noexcept nogil:
        """No YOU and no MOVE object, and no transformation to come: nothing
        can change any more but by destruction (§7.3)."""
        cdef int i
        for i in range(self.pos.n):
            if self.pos.alive[i] and thing_bits(&self.pos, rules, i) & (G_YOU | G_MOVE):
                return False
        return not self.transforms_due(rules)

    cdef void restore(self) noexcept nogil:
        copy_things(&self.pos, &self.saved)
        self.child_read = False
        self.chain_cells()

    cdef void adopt(self, int flags) noexcept nogil:
        if self.child_read:
            self.parent_rules = self.child_rules
        self.child_read = False
        copy_things(&self.saved, &self.pos)
        self.chain_cells()

    cdef int pack(self, uint8_t* out) noexcept nogil:
        return pack_things(&self.level.board, &self.pos, out)

    cdef int pack_child(self, int flags, uint8_t* out) noexcept nogil:
        return pack_things(&self.level.board, &self.pos, out)

    cdef bint wait_is_idle(self) noexcept nogil:
        """Waiting changes nothing: no MOVE object, nothing to transform,
        destroy or win (the rules of the position as loaded)."""
        cdef int i
        for i in range(self.pos.n):
            if self.pos.alive[i] and thing_bits(&self.pos, &self.parent_rules, i) & G_MOVE:
                return False
        return (not self.transforms_due(&self.parent_rules) and not self.destruction_due(&self.parent_rules)
                and not self.won(&self.parent_rules))

    cdef bint is_dead(self) noexcept nogil:
        return self.dead_with(&self.parent_rules)

    # ------------------------------------------------------- guides

    cdef int estimate(self, int guide) noexcept nogil:
        """The distance from the nearest YOU object to the nearest WIN
        object, or a penalty for each that is missing."""
        cdef const Rules* rules = self.rules_now()
        cdef Things* pos = &self.pos
        cdef int i, j, d, dx, dy, best = H_MAX, width = self.level.board.width
        cdef bint any_you = False, any_win = False
        if guide == GUIDE_BLIND or guide == GUIDE_PAIRS:
            return 0
        for i in range(pos.n):
            if pos.alive[i]:
                any_you = any_you or (thing_bits(pos, rules, i) & G_YOU) != 0
                any_win = any_win or (thing_bits(pos, rules, i) & G_WIN) != 0
        if not (any_you and any_win):
            return (0 if any_you else H_NO_RULE) + (0 if any_win else H_NO_RULE)
        for i in range(pos.n):
            if not (pos.alive[i] and thing_bits(pos, rules, i) & G_YOU):
                continue
            for j in range(pos.n):
                if pos.alive[j] and thing_bits(pos, rules, j) & G_WIN:
                    dx = pos.cell[i] % width - pos.cell[j] % width
                    dy = pos.cell[i] // width - pos.cell[j] // width
                    d = (dx if dx >= 0 else -dx) + (dy if dy >= 0 else -dy)
                    if d < best:
                        best = d
        return best

    cdef int atoms(self, size_t* out) noexcept nogil:
        """Each map text on its cell (or gone), each object tile on a cell,
        each rule in force (below GameLevel.n_atoms)."""
        cdef const Board* board = &self.level.board
        cdef const Rules* rules = self.rules_now()
        cdef Things* pos = &self.pos
        cdef int i, n = 0
        cdef size_t base = <size_t>board.n_texts * (board.ncells + 1)
        for i in range(board.n_texts):
            out[n] = <size_t>i * (board.ncells + 1) + (pos.cell[board.n_base_objects + i]
                                                      if pos.alive[board.n_base_objects + i] else board.ncells)
            n += 1
        for i in range(pos.n):
            if pos.alive[i] and not is_text_tile(pos.tile[i]):
                out[n] = base + <size_t>board.kind_of[pos.tile[i]] * board.ncells + pos.cell[i]
                n += 1
        base += <size_t>board.n_kinds * board.ncells
        for i in range(rules.n):
            out[n] = (base + <size_t>board.text_kind_of[rules.left[i]] * board.n_text_kinds
                      + board.text_kind_of[rules.right[i]])
            n += 1
        return n

    cdef int pair_atoms(self, size_t* out) noexcept nogil:
        """(the first YOU object's cell or none, a map text, its cell or gone)."""
        cdef const Board* board = &self.level.board
        cdef const Rules* rules = self.rules_now()
        cdef Things* pos = &self.pos
        cdef int i, you = board.ncells
        cdef size_t base
        for i in range(pos.n):
            if pos.alive[i] and thing_bits(pos, rules, i) & G_YOU:
                you = pos.cell[i]
                break
        base = <size_t>you * board.n_texts * (board.ncells + 1)
        for i in range(board.n_texts):
            out[i] = base + <size_t>i * (board.ncells + 1) + (pos.cell[board.n_base_objects + i]
                                                              if pos.alive[board.n_base_objects + i] else board.ncells)
        return board.n_texts

    # ------------------------------------------------ views, with the GIL

    cdef tuple xy(self, int cell):
        return (cell % self.level.board.width - 1, cell // self.level.board.width - 1)

    cdef list objects(self):
        out = []
        for i in range(self.pos.n):
            if self.pos.alive[i] and not is_text_tile(self.pos.tile[i]):
                x, y = self.xy(self.pos.cell[i])
                out.append((self.pos.tile[i], x, y, self.pos.facing[i], False))
        return out

    cdef list texts(self):
        out = []
        for i in range(self.pos.n):
            if self.pos.alive[i] and is_text_tile(self.pos.tile[i]):
                x, y = self.xy(self.pos.cell[i])
                out.append((self.pos.tile[i], x, y, False))
        return out

    cdef list rules(self):
        cdef const Rules* rules = self.rules_now()
        return [(rules.left[i], rules.right[i]) for i in range(rules.n)]

    cdef str illegal_reason(self):
        if self.illegal_kind == ILLEGAL_RULES:
            return f"the turn would form more than the {G_MAX_RULES} rules the engine reads"
        return (f"the turn would make more than the {self.level.board.capacity} things the engine holds"
                " for this level")
