# Greedy best-first search with novelty, for a first solution fast: the
# same positions, turn, records and store as breadth-first search, another
# order. Included by _core.pyx.
#
# A state's priority is (novelty, h, age): novelty 0 when it is the first
# state to show one of its atoms (a text on a cell, a YOU noun on a cell, a
# rule in force), else 1; h estimates how far it is from a win; among equals
# the older state goes first. The guide chooses h (none, or distances with or
# without rule hints) and, with GUIDE_PAIRS, adds pairs (cell of the first
# YOU object, text, its cell) to the atoms. Solutions are not shortest; the
# driver shortens them.

cdef enum:
    GUIDE_BLIND = 0         # no estimate: novelty, then age (breadth-first among equals)
    GUIDE_RULES = 1         # distances, and how far texts are from a missing YOU or WIN rule
    GUIDE_PLAIN = 2         # distances, and a flat penalty for a missing rule
    GUIDE_PAIRS = 3         # blind, and novelty also counts pairs (first YOU cell, text cell)
    GUIDE_RULE_PAIRS = 4    # GUIDE_RULES's estimate with GUIDE_PAIRS's atoms
    MAX_PAIR_BYTES = 1 << 26
    H_BUCKETS = 64          # novelty is counted apart for each value of h (up to 63)
    H_MAX = 0xFFFF
    H_NO_RULE = 24          # added when no noun with objects is YOU, or none is WIN


cdef inline int manhattan(const Geometry* geo, int a, int b) noexcept nogil:
    cdef int dx = a % geo.width - b % geo.width
    cdef int dy = a // geo.width - b // geo.width
    return (dx if dx >= 0 else -dx) + (dy if dy >= 0 else -dy)


cdef int rule_distance(const Geometry* geo, const Position* pos, int property,
                       uint64_t nouns) noexcept nogil:
    """How far the texts are from forming `N is property` for a noun N in
    `nouns` (a mask of noun tiles): over every `is` text, the distance of a
    property text to one side and a noun text to the other."""
    cdef int i, j, k, side, is_cell, best = H_MAX, near_noun, near_prop, d
    for i in range(geo.n_is):
        is_cell = pos.cell[geo.is_things[i]]
        for side in range(2):
            k = 1 if side == 0 else geo.width      # across, then down
            near_noun = near_prop = H_MAX
            for j in range(geo.n_base_objects, geo.n_base):
                if pos.tile[j] == property:
                    d = manhattan(geo, pos.cell[j], is_cell + k)
                    if d < near_prop:
                        near_prop = d
                elif is_noun_text(pos.tile[j]) and (nouns >> NOUN_TARGET[pos.tile[j]]) & 1:
                    d = manhattan(geo, pos.cell[j], is_cell - k)
                    if d < near_noun:
                        near_noun = d
            if near_noun + near_prop < best:
                best = near_noun + near_prop
    return best


cdef int estimate(const Geometry* geo, const Position* pos, const Lists* lists,
                  int guide) noexcept nogil:
    """How far the position looks from a win: the distance from the nearest
    YOU object to the nearest WIN object; where no object is YOU or WIN, how
    far the texts are from a rule that makes one (with GUIDE_RULES), plus
    a penalty."""
    cdef int i, j, d, best = H_MAX, h = 0
    cdef int n_you = lists.count[L_YOU], n_win = lists.count[L_WIN]
    cdef uint64_t alive_nouns = 0
    if guide == GUIDE_BLIND or guide == GUIDE_PAIRS:
        return 0
    if guide == GUIDE_RULE_PAIRS:
        guide = GUIDE_RULES
    if n_you and n_win:
        for i in range(n_you):
            for j in range(n_win):
                d = manhattan(geo, pos.cell[lists.items[L_YOU][i]], pos.cell[lists.items[L_WIN][j]])
                if d < best:
                    best = d
        return best if best < H_MAX else H_MAX - 1
    if guide != GUIDE_RULES:
        return (H_NO_RULE if not n_you else 0) + (H_NO_RULE if not n_win else 0)
    for i in range(geo.n_base_objects):
        if pos.alive[i]:
            alive_nouns |= (<uint64_t>1) << pos.tile[i]
    for i in range(geo.n_base, pos.n_things):
        if pos.alive[i]:
            alive_nouns |= (<uint64_t>1) << pos.tile[i]
    if not n_you:
        h += H_NO_RULE + min(rule_distance(geo, pos, T_YOU_TEXT, alive_nouns), H_NO_RULE)
    if not n_win:
        h += H_NO_RULE + min(rule_distance(geo, pos, T_WIN_TEXT, alive_nouns), H_NO_RULE)
    return h


ctypedef struct Queued:
    uint64_t key
    uint32_t state


cdef int queued_before(const void* a, const void* b) noexcept nogil:
    cdef uint64_t x = (<const Queued*>a).key, y = (<const Queued*>b).key
    return -1 if x < y else (1 if x > y else 0)


cdef class BestFirst:
    """Greedy best-first search with novelty over a store, without the GIL
    while it runs. `run` expands up to a number of states and returns 1 on a
    win (see won_parent / won_action), 0 when that many were expanded, -1
    when no state is left (every reachable state was seen: no solution), -2
    when the store cannot grow, -4 when a beam ran dry or reached the bound
    (which proves nothing).

    With a `width` it is a beam search instead: layer by layer, it expands
    the `width` best children of the last layer by the same order. A state
    is first stored at its shallowest depth among the layers, so solutions
    are shorter than the greedy search's."""
    cdef CoreLevel level
    cdef StateStore store
    cdef Workspace work
    cdef uint64_t* heap_key
    cdef uint32_t* heap_state
    cdef size_t heap_size, heap_room
    cdef uint64_t age
    cdef uint8_t* seen_atoms
    cdef size_t n_atoms
    cdef uint8_t* seen_pairs          # (first YOU cell or none, text, cell), with GUIDE_PAIRS
    cdef uint8_t* record
    cdef readonly int guide         # GUIDE_BLIND ... GUIDE_RULE_PAIRS
    cdef readonly int bound         # > 0: only solutions of fewer moves; no state that deep is expanded
    cdef uint16_t* depths           # moves from the root per store index (greedy; a beam knows its layer)
    cdef size_t depth_room
    cdef readonly uint64_t generated, expanded, dead_ends, illegal, reopened
    cdef readonly int width         # > 0: a beam of this many states per layer
    cdef readonly int layer_depth   # with a beam: the depth of the layer being expanded
    cdef Queued* layer
    cdef Queued* next_layer
    cdef size_t layer_n, layer_at, layer_room, next_n, next_room
    cdef readonly int64_t won_parent
    cdef readonly int won_action

    def __cinit__(self, CoreLevel level, StateStore store, int guide=GUIDE_RULES, int bound=0,
                  int width=0):
        if not GUIDE_BLIND <= guide <= GUIDE_RULE_PAIRS:
            raise ValueError(f"guide must be from 0 to 4 (blind, rules, plain, pairs, rules and pairs), not {guide}")
        if width < 0:
            raise ValueError(f"width must be 0 (no beam) or more, not {width}")
        self.level = level
        self.store = store
        self.guide = guide
        self.bound = bound if 0 < bound < 0xFFFF else 0
        self.width = width
        self.layer_depth = 0
        self.layer_room = self.next_room = 1 << 10
        self.layer = <Queued*>safe_realloc(NULL, self.layer_room * sizeof(Queued)) if width else NULL
        self.next_layer = <Queued*>safe_realloc(NULL, self.next_room * sizeof(Queued)) if width else NULL
        self.layer_n = self.layer_at = self.next_n = 0
        # Depths, so that a bound can come later (tighten); a beam knows
        # them from its layers.
        self.depth_room = 0 if width else 1 << 16
        self.depths = <uint16_t*>safe_realloc(NULL, self.depth_room * sizeof(uint16_t)) if self.depth_room else NULL
        self.work = Workspace(level)
        self.heap_room = 1 << 12
        self.heap_key = <uint64_t*>safe_realloc(NULL, self.heap_room * sizeof(uint64_t))
        self.heap_state = <uint32_t*>safe_realloc(NULL, self.heap_room * sizeof(uint32_t))
        self.heap_size = 0
        self.age = 0
        # Atoms: each text on each cell, each noun on each cell, each rule.
        self.n_atoms = (<size_t>level.geo.n_texts + 64) * level.geo.ncells + 64 * 64
        self.seen_atoms = <uint8_t*>safe_realloc(NULL, self.n_atoms * H_BUCKETS)
        memset(self.seen_atoms, 0, self.n_atoms * H_BUCKETS)
        self.seen_pairs = NULL
        cdef size_t pairs = (<size_t>level.geo.ncells + 1) * level.geo.n_texts * level.geo.ncells
        if (guide == GUIDE_PAIRS or guide == GUIDE_RULE_PAIRS) and 0 < pairs <= MAX_PAIR_BYTES:
            self.seen_pairs = <uint8_t*>safe_realloc(NULL, pairs)
            memset(self.seen_pairs, 0, pairs)
        self.record = <uint8_t*>safe_realloc(NULL, self.work.max_record + ARENA_SLACK)
        self.generated = self.expanded = self.dead_ends = self.illegal = self.reopened = 0
        self.won_parent = -1
        self.won_action = -1

    def __dealloc__(self):
        free(self.heap_key)
        free(self.heap_state)
        free(self.seen_atoms)
        free(self.seen_pairs)
        free(self.depths)
        free(self.layer)
        free(self.next_layer)
        free(self.record)

    def add_root(self):
        """Store the level as loaded (state 0) and queue it."""
        cdef int length
        self.work.set_root()
        length = self.work.pack(self.record)
        index = self.store.add(bytes(self.record[:length]))
        if index >= 0 and self.depths != NULL:
            self.set_depth(index, 0)
        if index >= 0:
            self.novel(&self.work.lists, estimate(&self.level.geo, &self.work.pos, &self.work.lists, self.guide))
            if self.width:
                self.layer[0].key, self.layer[0].state = 0, <uint32_t>index
                self.layer_n, self.layer_at = 1, 0
            elif self.push(0, <uint32_t>index) < 0:
                raise MemoryError()
        return index

    def tighten(self, int bound):
        """From now on only solutions of fewer than `bound` moves."""
        if 0 < bound < 0xFFFF and (not self.bound or bound < self.bound):
            self.bound = bound

    @property
    def queued(self):
        return self.heap_size + (self.layer_n - self.layer_at) + self.next_n

    cdef inline bint claim(self, size_t atom) noexcept nogil:
        if self.seen_atoms[atom]:
            return False
        self.seen_atoms[atom] = 1
        return True

    cdef bint novel(self, const Lists* lists, int h) noexcept nogil:
        """Marks the atoms of `work.pos` among the states with this h; whether
        one was new."""
        cdef const Geometry* geo = &self.level.geo
        cdef const Position* pos = &self.work.pos
        cdef const Props* props = &self.work.turn.props if self.work.turn.props_changed else &self.work.props
        cdef bint new = False
        cdef int i, thing, you
        cdef size_t atom
        cdef size_t start = self.n_atoms * (h if h < H_BUCKETS else H_BUCKETS - 1)
        cdef size_t base = start + <size_t>geo.n_texts * geo.ncells
        for i in range(geo.n_texts):
            new |= self.claim(start + <size_t>i * geo.ncells + pos.cell[geo.n_base_objects + i])
        for i in range(pos.n_things):
            if i == geo.n_base_objects:
                continue
            if geo.n_base_objects < i < geo.n_base or not pos.alive[i]:
                continue
            new |= self.claim(base + <size_t>pos.tile[i] * geo.ncells + pos.cell[i])
        base += <size_t>64 * geo.ncells
        for i in range(props.n_rules):
            new |= self.claim(base + (props.rule_left[i] & 63) * 64 + (props.rule_right[i] & 63))
        if self.seen_pairs != NULL:
            you = pos.cell[lists.items[L_YOU][0]] if lists.count[L_YOU] else geo.ncells
            base = <size_t>you * geo.n_texts * geo.ncells
            for i in range(geo.n_texts):
                atom = base + <size_t>i * geo.ncells + pos.cell[geo.n_base_objects + i]
                if not self.seen_pairs[atom]:
                    self.seen_pairs[atom] = 1
                    new = True
        return new

    cdef int push(self, uint64_t key, uint32_t state) noexcept nogil:
        cdef size_t i, parent, room
        cdef void* grown
        if self.heap_size == self.heap_room:
            room = self.heap_room * 2
            grown = realloc(self.heap_key, room * sizeof(uint64_t))
            if not grown:
                return -1
            self.heap_key = <uint64_t*>grown
            grown = realloc(self.heap_state, room * sizeof(uint32_t))
            if not grown:
                return -1
            self.heap_state = <uint32_t*>grown
            self.heap_room = room
        i = self.heap_size
        self.heap_size += 1
        while i > 0:
            parent = (i - 1) >> 1
            if self.heap_key[parent] <= key:
                break
            self.heap_key[i] = self.heap_key[parent]
            self.heap_state[i] = self.heap_state[parent]
            i = parent
        self.heap_key[i] = key
        self.heap_state[i] = state
        return 0

    cdef uint32_t pop(self) noexcept nogil:
        cdef uint32_t top = self.heap_state[0]
        cdef uint64_t key
        cdef uint32_t state
        cdef size_t i = 0, child, n
        self.heap_size -= 1
        n = self.heap_size
        key = self.heap_key[n]
        state = self.heap_state[n]
        while True:
            child = 2 * i + 1
            if child >= n:
                break
            if child + 1 < n and self.heap_key[child + 1] < self.heap_key[child]:
                child += 1
            if self.heap_key[child] >= key:
                break
            self.heap_key[i] = self.heap_key[child]
            self.heap_state[i] = self.heap_state[child]
            i = child
        if n:
            self.heap_key[i] = key
            self.heap_state[i] = state
        return top

    def run(self, uint64_t expansions):
        cdef int result
        with nogil:
            result = self.search(expansions)
        if result == -2:
            raise MemoryError("the visited table could not grow")
        if result == -3:
            raise ValueError("a stored state does not decode: the store holds another level's states")
        return result

    cdef int set_depth(self, size_t index, int depth) noexcept nogil:
        cdef size_t room = self.depth_room
        cdef void* grown
        while index >= room:
            room *= 2
        if room != self.depth_room:
            grown = realloc(self.depths, room * sizeof(uint16_t))
            if not grown:
                return -1
            self.depths = <uint16_t*>grown
            self.depth_room = room
        self.depths[index] = <uint16_t>(depth if depth < 0xFFFE else 0xFFFE)   # deeper than any bound
        return 0

    cdef int queue(self, uint64_t key, uint32_t state) noexcept nogil:
        """Into the heap, or with a beam into the next layer."""
        cdef size_t room
        cdef void* grown
        if not self.width:
            return self.push(key, state)
        if self.next_n == self.next_room:
            room = self.next_room * 2
            grown = realloc(self.next_layer, room * sizeof(Queued))
            if not grown:
                return -1
            self.next_layer = <Queued*>grown
            self.next_room = room
        self.next_layer[self.next_n].key = key
        self.next_layer[self.next_n].state = state
        self.next_n += 1
        return 0

    cdef int next_state(self, uint32_t* index) noexcept nogil:
        """The next state to expand: 0, or -1 when none is left (greedy: every
        reachable state was seen; beam: the beam ran dry or reached the
        bound, which proves nothing)."""
        cdef Queued* swap
        cdef size_t room
        if not self.width:
            while True:
                if self.heap_size == 0:
                    return -1
                index[0] = self.pop()
                if not self.bound or self.depths[index[0]] + 1 < self.bound:
                    return 0        # else its children would be no shorter than the bound
        if self.layer_at == self.layer_n:
            if self.next_n == 0 or (self.bound and self.layer_depth + 2 >= self.bound):
                return -4
            if self.next_n > <size_t>self.width:
                qsort(self.next_layer, self.next_n, sizeof(Queued), queued_before)
                self.next_n = self.width
            swap, room = self.layer, self.layer_room
            self.layer, self.layer_room = self.next_layer, self.next_room
            self.next_layer, self.next_room = swap, room
            self.layer_n, self.layer_at, self.next_n = self.next_n, 0, 0
            self.layer_depth += 1
        index[0] = self.layer[self.layer_at].state
        self.layer_at += 1
        return 0

    cdef int search(self, uint64_t expansions) noexcept nogil:
        cdef const Geometry* geo = &self.level.geo
        cdef uint64_t done = 0, key
        cdef uint32_t index
        cdef int action, flags, length, h, result
        cdef int64_t child
        cdef const Lists* lists
        while done < expansions:
            result = self.next_state(&index)
            if result < 0:
                return result
            if self.work.load(self.store.arena + self.store.offsets[index],
                              <int>(self.store.offsets[index + 1] - self.store.offsets[index])) < 0:
                return -3
            copy_position(geo, &self.work.saved, &self.work.pos)
            self.work.prepare_parent()
            self.expanded += 1
            done += 1
            for action in range(5):
                if action == WAIT and index != 0 and self.work.wait_is_idle():
                    break
                flags = self.work.play(action)
                self.generated += 1
                if flags & TURN_ILLEGAL:
                    self.illegal += 1
                elif flags & TURN_WON:
                    self.won_parent = index
                    self.won_action = action
                    self.work.restore()
                    return 1
                elif not flags & TURN_CHANGED:
                    pass
                elif flags & TURN_DEAD:
                    self.dead_ends += 1
                else:
                    length = self.work.pack_child(flags, self.record)
                    child = self.store.insert(self.record, length, index, <uint8_t>action)
                    if child == -2:
                        self.work.restore()
                        return -2
                    if child == -1 and self.bound and self.depths != NULL:
                        # Under a bound a state's depth matters: a shorter
                        # way to a stored state takes its place, and the
                        # state is queued again to pass the saving on.
                        child = self.store.index_of(self.record, length)
                        if self.depths[index] + 1 < self.depths[child]:
                            self.store.reparent(child, index, <uint8_t>action)
                            self.depths[child] = self.depths[index] + 1
                            self.reopened += 1
                        else:
                            child = -1
                    elif child >= 0 and self.depths != NULL and self.set_depth(child, self.depths[index] + 1) < 0:
                        self.work.restore()
                        return -2
                    if child >= 0:
                        lists = &self.work.turn.lists if self.work.turn.lists_changed else &self.work.lists
                        h = estimate(geo, &self.work.pos, lists, self.guide)
                        key = ((<uint64_t>(0 if self.novel(lists, h) else 1)) << 63
                               | (<uint64_t>h << 40) | (self.age & ((<uint64_t>1 << 40) - 1)))
                        self.age += 1
                        if self.queue(key, <uint32_t>child) < 0:
                            self.work.restore()
                            return -2
                self.work.restore()
        return 0
