# Greedy best-first search with novelty, for a first solution fast: the
# same rule set, records and store as breadth-first search, another order.
# Included by _core.pyx.
#
# A state's priority is (novelty, h, age): novelty 0 when it is the first
# state to show one of its atoms (the rule set numbers them: for the judge,
# a text on a cell, an object tile on a cell, a rule in force), else 1; h is
# the rule set's estimate of how far it is from a win (by the guide); among
# equals the older state goes first. With GUIDE_PAIRS the rule set's pair
# atoms count too. Solutions are not shortest; the driver shortens them.

cdef enum:
    MAX_PAIR_BYTES = 1 << 26
    # Per h bucket: a level with more atoms folds them onto this many (a
    # 100x100 level of 10,000 texts has 10^8; 64 buckets of them took
    # 6.6 GB a search, outside the memory budget, and the kernel killed
    # the solver). Folded atoms can share a mark: novelty is a guide.
    MAX_ATOM_SLOTS = 1 << 20
    H_BUCKETS = 64          # novelty is counted apart for each value of h (up to 63)
    NO_BOUND = 0xFFFF       # depths are 16-bit: a bound at or past this is none


cdef inline size_t atom_slots(CoreLevel level, size_t table_bytes) noexcept:
    """Atom marks per h bucket, within `table_bytes` for all buckets (0: MAX_ATOM_SLOTS)."""
    cdef size_t slots = min(level.n_atoms, <size_t>MAX_ATOM_SLOTS)
    if table_bytes:
        slots = min(slots, table_bytes // H_BUCKETS)
    return max(slots, <size_t>1)


cdef inline size_t pair_bytes(CoreLevel level, int guide, size_t table_bytes) noexcept:
    """Bytes of the pair marks, if the guide has them and they fit beside the atoms'."""
    cdef size_t atoms = atom_slots(level, table_bytes) * H_BUCKETS
    if not (guide == GUIDE_PAIRS or guide == GUIDE_RULE_PAIRS) or not 0 < level.n_pair_atoms <= MAX_PAIR_BYTES:
        return 0
    if table_bytes and atoms + level.n_pair_atoms > table_bytes:
        return 0
    return level.n_pair_atoms


def novelty_table_bytes(CoreLevel level, int guide, size_t table_bytes=0):
    """Bytes of the novelty tables a BestFirst with `guide` and
    `table_bytes` allocates on `level` when it starts, outside its store:
    up to 64 MiB and more on a big level, so a memory budget counts them."""
    return atom_slots(level, table_bytes) * H_BUCKETS + pair_bytes(level, guide, table_bytes)


cdef inline int h_bucket(int h) noexcept nogil:
    return h if h < H_BUCKETS else H_BUCKETS - 1


cdef int queued_before(const void* a, const void* b) noexcept nogil:
    cdef uint64_t x = (<const Queued*>a).key, y = (<const Queued*>b).key
    return -1 if x < y else (1 if x > y else 0)


cdef class BestFirst(Counted):
    """Greedy best-first search with novelty over a store, without the GIL
    while it runs. `run` expands up to a number of states and returns a
    SearchOutcome: SEARCH_WON (see won_parent / won_action), SEARCH_GOING
    when that many were expanded, SEARCH_EXHAUSTED when no state is left
    (every reachable state was seen: no solution), SEARCH_DRY when a beam
    ran dry or reached the bound (which proves nothing).

    With a `width` it is a beam search instead: layer by layer, it expands
    the `width` best children of the last layer by the same order. A state
    is first stored at its shallowest depth among the layers, so solutions
    are shorter than the greedy search's.

    `table_bytes` (0: no limit) bounds its novelty tables, allocated when it
    starts: more atoms are folded onto fewer marks."""
    cdef CoreLevel level
    cdef StateStore store
    cdef Workspace work
    cdef uint64_t* heap_key
    cdef size_t* heap_state
    cdef size_t heap_size, heap_room
    cdef uint64_t age
    cdef uint8_t* seen_atoms        # per h bucket, per atom of the rule set (folded onto atom_slots)
    cdef size_t atom_slots
    cdef uint8_t* seen_pairs        # per pair atom, with GUIDE_PAIRS
    cdef size_t* atoms              # scratch: one position's atoms
    cdef uint8_t* record
    cdef readonly int guide
    cdef readonly int bound         # > 0: only solutions of fewer moves; no state that deep is expanded
    cdef uint16_t* depths           # moves from the root per store index (greedy; a beam knows its layer)
    cdef size_t depth_room
    cdef readonly uint64_t reopened
    cdef readonly int width         # > 0: a beam of this many states per layer
    cdef readonly int layer_depth   # with a beam: the depth of the layer being expanded
    cdef Queued* layer
    cdef Queued* next_layer
    cdef size_t layer_n, layer_at, layer_room, next_n, next_room
    cdef readonly int64_t won_parent
    cdef readonly int won_action
    cdef char thread_gap[CACHE_LINE_GAP]

    def __cinit__(self, CoreLevel level, StateStore store, int guide=GUIDE_RULES, int bound=0,
                  int width=0, size_t table_bytes=0):
        if guide not in (GUIDE_BLIND, GUIDE_RULES, GUIDE_PAIRS, GUIDE_RULE_PAIRS):
            raise ValueError(f"guide must be 0 (blind), 1 (rules), 3 (pairs) or 4 (rules and pairs), "
                             f"not {guide}")
        if width < 0:
            raise ValueError(f"width must be 0 (no beam) or more, not {width}")
        self.level = level
        self.store = store
        self.guide = guide
        self.bound = bound if 0 < bound < NO_BOUND else 0
        self.width = width
        if width:
            self.layer_room = self.next_room = 1 << 10
            safe_realloc(&self.layer, self.layer_room)
            safe_realloc(&self.next_layer, self.next_room)
        else:
            # Depths, so that a bound can come later (tighten); a beam
            # knows them from its layers.
            self.depth_room = 1 << 16
            safe_realloc(&self.depths, self.depth_room)
        self.work = level.workspace()
        self.heap_room = 1 << 12
        safe_realloc(&self.heap_key, self.heap_room)
        safe_realloc(&self.heap_state, self.heap_room)
        self.atom_slots = atom_slots(level, table_bytes)
        safe_realloc(&self.seen_atoms, self.atom_slots * H_BUCKETS)
        memset(self.seen_atoms, 0, self.atom_slots * H_BUCKETS)
        if pair_bytes(level, guide, table_bytes):
            safe_realloc(&self.seen_pairs, level.n_pair_atoms)
            memset(self.seen_pairs, 0, level.n_pair_atoms)
        safe_realloc(&self.atoms, level.max_atoms + 1)
        safe_realloc(&self.record, self.work.max_record + ARENA_SLACK)
        self.won_parent = -1
        self.won_action = -1

    def __dealloc__(self):
        free(self.heap_key)
        free(self.heap_state)
        free(self.seen_atoms)
        free(self.seen_pairs)
        free(self.atoms)
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
        if index >= 0:
            if self.depths != NULL:
                self.set_depth(index, 0)
            self.novel(self.work.estimate(self.guide), -1)
            if self.width:
                self.layer[0].key, self.layer[0].state = 0, <size_t>index
                self.layer_n, self.layer_at = 1, 0
            else:
                self.push(0, <size_t>index)
        return index

    def tighten(self, int bound):
        """From now on only solutions of fewer than `bound` moves."""
        if 0 < bound < NO_BOUND and (not self.bound or bound < self.bound):
            self.bound = bound

    @property
    def queued(self):
        return self.heap_size + (self.layer_n - self.layer_at) + self.next_n

    cdef bint novel(self, int h, int parent_h) noexcept nogil:
        """Marks the atoms of the workspace's child (else its position)
        among the states with this h; whether one was new. The parent
        (with h `parent_h`, -1 for none) was stored, so its atoms are marked
        already: where it shares the child's h bucket, only the atoms it
        may lack are looked at, with the same outcome."""
        cdef bint new = False
        cdef int i, n
        cdef size_t atom, slots = self.atom_slots
        cdef uint8_t* seen = self.seen_atoms + slots * h_bucket(h)
        cdef size_t* atoms = self.atoms
        if parent_h >= 0 and h_bucket(h) == h_bucket(parent_h):
            n = self.work.new_atoms(atoms)
        else:
            n = self.work.atoms(atoms)
        for i in range(n):
            atom = atoms[i]
            if atom >= slots:
                atom %= slots
            if not seen[atom]:
                seen[atom] = 1
                new = True
        if self.seen_pairs != NULL:
            seen = self.seen_pairs
            n = self.work.new_pair_atoms(atoms) if parent_h >= 0 else self.work.pair_atoms(atoms)
            for i in range(n):
                if not seen[atoms[i]]:
                    seen[atoms[i]] = 1
                    new = True
        return new

    cdef int push(self, uint64_t key, size_t state) except -1 nogil:
        cdef size_t i, parent
        if self.heap_size == self.heap_room:
            safe_realloc(&self.heap_key, 2 * self.heap_room)
            safe_realloc(&self.heap_state, 2 * self.heap_room)
            self.heap_room *= 2
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

    cdef size_t pop(self) noexcept nogil:
        cdef size_t top = self.heap_state[0]
        cdef uint64_t key
        cdef size_t state
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
        """Expand up to `expansions` states; a SearchOutcome."""
        cdef int outcome
        with nogil:
            outcome = self.search(expansions)
        return SearchOutcome(outcome)

    cdef int set_depth(self, size_t index, int depth) except -1 nogil:
        cdef size_t room = self.depth_room
        while index >= room:
            room *= 2
        if room != self.depth_room:
            safe_realloc(&self.depths, room)
            self.depth_room = room
        self.depths[index] = <uint16_t>(depth if depth < NO_BOUND - 1 else NO_BOUND - 1)   # deeper than any bound
        return 0

    cdef int queue(self, uint64_t key, size_t state) except -1 nogil:
        """Into the heap, or with a beam into the next layer."""
        if not self.width:
            return self.push(key, state)
        if self.next_n == self.next_room:
            safe_realloc(&self.next_layer, 2 * self.next_room)
            self.next_room *= 2
        self.next_layer[self.next_n].key = key
        self.next_layer[self.next_n].state = state
        self.next_n += 1
        return 0

    cdef int next_state(self, size_t* index) noexcept nogil:
        """The next state to expand: SEARCH_GOING, or SEARCH_EXHAUSTED when
        none is left (greedy: every reachable state was seen), or SEARCH_DRY
        (a beam ran dry or reached the bound, which proves nothing)."""
        cdef Queued* swap
        cdef size_t room
        if not self.width:
            while True:
                if self.heap_size == 0:
                    return SEARCH_EXHAUSTED
                index[0] = self.pop()
                if not self.bound or self.depths[index[0]] + 1 < self.bound:
                    return SEARCH_GOING     # else its children would be no shorter than the bound
        if self.layer_at == self.layer_n:
            if self.next_n == 0 or (self.bound and self.layer_depth + 2 >= self.bound):
                return SEARCH_DRY
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
        return SEARCH_GOING

    cdef int64_t stored_child(self, size_t index, int action, int length) except -2 nogil:
        """Store the child packed in `record`; its index, or -1 when there
        is nothing to queue. Under a bound a state's depth matters: a
        shorter way to a stored state takes its place, and the state is
        queued again to pass the saving on."""
        cdef int64_t child = self.store.insert(self.record, length, index, <uint8_t>action)
        if child >= 0:
            if self.depths != NULL:
                self.set_depth(child, self.depths[index] + 1)
            return child
        if not self.bound or self.depths == NULL:
            return -1
        child = self.store.index_of(self.record, length)
        if self.depths[index] + 1 >= self.depths[child]:
            return -1
        self.store.reparent(child, index, <uint8_t>action)
        self.depths[child] = self.depths[index] + 1
        self.reopened += 1
        return child

    cdef int search(self, uint64_t expansions) except -1 nogil:
        cdef uint64_t done = 0, key
        cdef size_t index
        cdef int action, flags, length, h, parent_h, outcome, child_kind
        cdef int64_t child
        while done < expansions:
            outcome = self.next_state(&index)
            if outcome != SEARCH_GOING:
                return outcome
            if self.work.load(self.store.record_at(index), self.store.length_of(index), True) < 0:
                bad_record()
            self.counts.expanded += 1
            done += 1
            parent_h = self.work.estimate(self.guide)
            for action in range(self.level.n_actions):
                if skips_wait(self.work, action, index):
                    break
                child_kind = play_child(self.work, action, &self.counts, &flags)
                if child_kind == CHILD_WON:
                    self.won_parent = index
                    self.won_action = action
                    self.work.restore()
                    return SEARCH_WON
                if child_kind == CHILD_NEW:
                    length = self.work.pack_child(flags, self.record)
                    child = self.stored_child(index, action, length)
                    if child >= 0:
                        h = self.work.estimate(self.guide)
                        key = ((<uint64_t>(0 if self.novel(h, parent_h) else 1)) << 63
                               | (<uint64_t>h << 40) | (self.age & ((<uint64_t>1 << 40) - 1)))
                        self.age += 1
                        self.queue(key, <size_t>child)
                self.work.restore()
        return SEARCH_GOING
