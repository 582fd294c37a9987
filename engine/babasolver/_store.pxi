# The visited store: every state a search has seen, exactly once, and the
# hash it files them by. Included by _core.pyx; it knows nothing of the rules.

cdef enum:
    TAG_BITS = 6            # a table slot: 6 tag bits over a 34-bit state index (+ 1), 40 bits in all
    SLOT_BYTES = 5
    SLOT_SLACK = 8          # spare bytes after the table, for the whole-word read of its last slot
    BLOCK_SHIFT = 12        # states share a 64-bit arena base per 4,096; each keeps a 32-bit offset from it
    NO_ACTION = 7           # the root's action (3 bits, then 4 of the parent's high bits)
    ACTION_MASK = 7
    PARENT_HIGH_MASK = 15   # the parent's bits 32-35, in the action byte's bits 3-6 (NO_PARENT is 36 bits)
    COMES_BACK = 0x80       # the action byte's last bit: the opposite action from this state makes its parent
    STATE_BYTES = 10        # what a state adds beside its record: offset, parent, action, a share of a base
    REHASH_AHEAD = 16       # states hashed ahead of their insert when the table grows
    INSERT_LAG = 15         # children between prefetching a slot and inserting

# The 64-bit sizes: a C enum is an int, so they are macros.
cdef extern from *:
    """
    #define STORE_INDEX_BITS 34
    #define STORE_INDEX_MASK ((UINT64_C(1) << 34) - 1)
    #define STORE_MAX_STATES ((UINT64_C(1) << 34) - 2)
    #define STORE_NO_PARENT ((UINT64_C(1) << 36) - 1)
    """
    const int INDEX_BITS "STORE_INDEX_BITS"
    const uint64_t INDEX_MASK "STORE_INDEX_MASK"
    const uint64_t MAX_STATES "STORE_MAX_STATES"
    const uint64_t NO_PARENT "STORE_NO_PARENT"    # the root's parent (36 bits)

cdef inline uint64_t load8(const uint8_t* data) noexcept nogil:
    cdef uint64_t word
    memcpy(&word, data, 8)
    return word


cdef inline uint64_t load4(const uint8_t* data) noexcept nogil:
    cdef uint32_t word
    memcpy(&word, data, 4)
    return word


cdef inline bint same_record(const uint8_t* a, const uint8_t* b, int length) noexcept nogil:
    """Whether two records of `length` bytes agree: words, the last one
    overlapping, and no library call (records are short)."""
    cdef int n = 0
    if length < 8:
        while n < length:
            if a[n] != b[n]:
                return False
            n += 1
        return True
    while n + 8 < length:
        if load8(a + n) != load8(b + n):
            return False
        n += 8
    return load8(a + length - 8) == load8(b + length - 8)


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



cdef int grow_block(void** block, size_t* room, size_t want, size_t item, size_t spare) noexcept nogil:
    """Grow a block of (room + spare) items of `item` bytes to (want + spare)
    items, unless it has room already; -1 when it cannot grow."""
    cdef void* grown
    if room[0] >= want:
        return 0
    grown = core_block_grow(block[0], (room[0] + spare) * item, (want + spare) * item, False)
    if not grown:
        return -1
    block[0] = grown
    room[0] = want
    return 0


cdef int64_t full_store() except -2 nogil:
    with gil:
        raise MemoryError("the visited table could not grow")


cdef class StateStore:
    """Every state a search has seen, exactly once: packed bytes in a growable
    arena, an open-addressing table of indices into it (duplicates are found by
    comparing bytes, never by hash alone), and (parent, action) per state.
    States are numbered in insertion order, which for BFS is the FIFO order, so
    the frontier is just a range of indices.

    Per state it keeps the record's bytes, a 32-bit offset from its block's
    64-bit base, 32 bits of parent and a byte of action, parent's high
    bits and COMES_BACK (the opposite action from the state makes its
    parent, so a search may count that turn without playing it), and a
    40-bit slot at a load of at most 4/5: up to 2**34 - 2
    states, so memory, not the format, is what ends a search. `byte_limit`
    (0: none) caps what it holds; a grow past it raises MemoryError as a
    failed one does."""
    cdef uint8_t* arena
    cdef size_t arena_used, arena_capacity
    cdef uint32_t* starts           # state i starts at bases[i >> BLOCK_SHIFT] + starts[i]
    cdef uint64_t* bases
    cdef uint32_t* parents          # the low 32 bits of each state's parent
    cdef uint8_t* actions           # action | the parent's high bits << 3 | COMES_BACK
    cdef size_t count, capacity     # states held, and the room all the per-state arrays have
    cdef size_t starts_room, parents_room, actions_room, bases_room   # each array's own room
    cdef uint8_t* slots             # SLOT_BYTES each: 0 = free, else (tag << INDEX_BITS) | (index + 1)
    cdef size_t slot_mask
    cdef uint64_t hash_mask         # a test hook narrows it to force collisions
    cdef size_t limit               # byte_limit, 0 for none
    cdef int64_t unchecked          # bytes the store may take before it looks at its limit again
    cdef char thread_gap[CACHE_LINE_GAP]    # the satisficing races' stores are filled on several threads

    def __cinit__(self, size_t expected=1024, uint64_t hash_mask=0xFFFFFFFFFFFFFFFFULL, size_t byte_limit=0):
        cdef size_t slot_count = 1024
        while slot_count < 2 * expected:
            slot_count *= 2
        self.capacity = self.starts_room = self.parents_room = self.actions_room = 1 << BLOCK_SHIFT
        self.bases_room = 2
        self.arena_capacity = 1 << 16
        self.slot_mask = slot_count - 1
        self.arena = <uint8_t*>core_block_new(self.arena_capacity + ARENA_SLACK, False)
        self.starts = <uint32_t*>core_block_new((self.capacity + 1) * sizeof(uint32_t), False)
        self.bases = <uint64_t*>core_block_new(self.bases_room * sizeof(uint64_t), False)
        self.parents = <uint32_t*>core_block_new(self.capacity * sizeof(uint32_t), False)
        self.actions = <uint8_t*>core_block_new(self.capacity, False)
        self.slots = <uint8_t*>core_block_new(slot_count * SLOT_BYTES + SLOT_SLACK, True)
        if not (self.arena and self.starts and self.bases and self.parents and self.actions and self.slots):
            raise MemoryError()
        self.arena_used = 0
        self.count = 0
        self.hash_mask = hash_mask
        self.byte_limit = byte_limit

    @property
    def byte_limit(self):
        """The most bytes the store holds (0: no limit): a grow past it
        raises MemoryError, as a failed one does."""
        return self.limit

    @byte_limit.setter
    def byte_limit(self, size_t value):
        self.limit = value
        self.unchecked = 0

    def __dealloc__(self):
        core_block_free(self.arena, self.arena_capacity + ARENA_SLACK)
        core_block_free(self.starts, (self.starts_room + 1) * sizeof(uint32_t))
        core_block_free(self.bases, self.bases_room * sizeof(uint64_t))
        core_block_free(self.parents, self.parents_room * sizeof(uint32_t))
        core_block_free(self.actions, self.actions_room)
        core_block_free(self.slots, (self.slot_mask + 1) * SLOT_BYTES + SLOT_SLACK)

    def block_addresses(self):
        """Test hook: the address of each of the store's big arrays, by name."""
        return {"arena": <size_t>self.arena, "starts": <size_t>self.starts, "bases": <size_t>self.bases,
                "parents": <size_t>self.parents, "actions": <size_t>self.actions, "slots": <size_t>self.slots}

    # ----------------------------------------------------------- reading --

    cdef inline size_t start_of(self, size_t index) noexcept nogil:
        return <size_t>self.bases[index >> BLOCK_SHIFT] + self.starts[index]

    cdef inline const uint8_t* record_at(self, size_t index) noexcept nogil:
        return self.arena + self.start_of(index)

    cdef inline int length_of(self, size_t index) noexcept nogil:
        return <int>(self.start_of(index + 1) - self.start_of(index))

    cdef inline size_t parent_of(self, size_t index) noexcept nogil:
        return self.parents[index] | (<size_t>((self.actions[index] >> 3) & PARENT_HIGH_MASK) << 32)

    cdef inline int action_of(self, size_t index) noexcept nogil:
        return self.actions[index] & ACTION_MASK

    cdef inline void set_parent(self, size_t index, size_t parent, uint8_t action) noexcept nogil:
        """`action` may carry COMES_BACK; `parent` is below NO_PARENT or is it."""
        self.parents[index] = <uint32_t>parent
        self.actions[index] = <uint8_t>((action & (ACTION_MASK | COMES_BACK)) | ((parent >> 32) << 3))

    cdef inline uint64_t slot_entry(self, size_t slot) noexcept nogil:
        return core_load40(self.slots + slot * SLOT_BYTES)

    # ---------------------------------------------------------- growing --

    cdef inline size_t held_bytes(self) noexcept nogil:
        """What the store holds in memory: the arena as used, the per-state
        arrays as used, and the whole table."""
        return (self.arena_used + self.count * (sizeof(uint32_t) * 2 + 1)
                + (self.count >> BLOCK_SHIFT) * sizeof(uint64_t)
                + (self.slot_mask + 1) * SLOT_BYTES)

    cdef inline size_t grow_after(self) noexcept nogil:
        """The most states the table holds before it doubles: its load
        stays at most 4/5, so that with the tags a longer probe mostly
        stays in the cache line it started in."""
        return (self.slot_mask + 1) * 4 // 5

    cdef inline bint over_limit(self, size_t more) noexcept nogil:
        """Whether `more` bytes would take the store past its limit. The
        exact sum is made only once the bytes since the last one could
        reach the limit, so an insert pays a subtraction."""
        cdef size_t held
        if self.limit == 0:
            return False
        self.unchecked -= <int64_t>more
        if self.unchecked >= 0:
            return False
        held = self.held_bytes()
        if held + more > self.limit:
            self.unchecked = 0
            return True
        self.unchecked = <int64_t>(self.limit - held - more)
        return False

    cdef int grow_states(self) noexcept nogil:
        # Each array keeps its own room, so that after a grow that failed
        # part way every mapping is still freed at the size it has.
        cdef size_t capacity = self.capacity * 2
        cdef size_t blocks = (capacity >> BLOCK_SHIFT) + 2
        if (grow_block(<void**>&self.starts, &self.starts_room, capacity, sizeof(uint32_t), 1) < 0
                or grow_block(<void**>&self.bases, &self.bases_room, blocks, sizeof(uint64_t), 0) < 0
                or grow_block(<void**>&self.parents, &self.parents_room, capacity, sizeof(uint32_t), 0) < 0
                or grow_block(<void**>&self.actions, &self.actions_room, capacity, 1, 0) < 0):
            return -1
        self.capacity = capacity
        return 0

    cdef int grow_arena(self, size_t need) noexcept nogil:
        cdef size_t capacity = self.arena_capacity * 2
        cdef uint8_t* arena
        while need > capacity:
            capacity *= 2
        arena = <uint8_t*>core_block_grow(self.arena, self.arena_capacity + ARENA_SLACK, capacity + ARENA_SLACK, False)
        if not arena:
            return -1
        self.arena = arena
        self.arena_capacity = capacity
        return 0

    cdef int grow_slots(self) noexcept nogil:
        """Double the table in place: the mapping is grown (so only the new
        half is fresh memory, which is slow to fault in on a VM), the old
        half cleared, and every state hashed again from the arena. States go
        in index order, so the arena is read front to back; each slot is
        prefetched a few states before it is written, hiding the random
        access."""
        cdef size_t old_bytes = (self.slot_mask + 1) * SLOT_BYTES
        cdef size_t mask = self.slot_mask * 2 + 1
        cdef uint8_t* slots
        cdef uint64_t hashes[REHASH_AHEAD]
        cdef size_t i, slot, late
        cdef uint64_t h
        self.unchecked = 0              # the table's half is counted exactly
        if self.over_limit(old_bytes):
            return -1
        slots = <uint8_t*>core_block_grow(self.slots, old_bytes + SLOT_SLACK, old_bytes * 2 + SLOT_SLACK, True)
        if not slots:
            return -1
        self.slots = slots
        self.slot_mask = mask
        memset(slots, 0, old_bytes + SLOT_SLACK)
        for i in range(self.count + REHASH_AHEAD):
            if i >= REHASH_AHEAD:
                late = i - REHASH_AHEAD
                h = hashes[late % REHASH_AHEAD]
                slot = h & mask
                while core_load40(slots + slot * SLOT_BYTES):
                    slot = (slot + 1) & mask
                core_store40(slots + slot * SLOT_BYTES, ((h >> (64 - TAG_BITS)) << INDEX_BITS) | (late + 1))
            if i < self.count:
                h = self.hash_of(i)
                hashes[i % REHASH_AHEAD] = h
                core_prefetch(slots + (h & mask) * SLOT_BYTES)
        return 0

    # --------------------------------------------------------- hashing --

    cdef inline uint64_t hash_of(self, size_t index) noexcept nogil:
        return hash_bytes(self.record_at(index), self.length_of(index)) & self.hash_mask

    cdef inline uint64_t hash_record(self, const uint8_t* record, int length) noexcept nogil:
        return hash_bytes(record, length) & self.hash_mask

    cdef inline void prefetch(self, uint64_t h) noexcept nogil:
        """Ask for a hash's slot and the cache line after it: a new state
        probes to the first free slot, which near the 4/5 load takes some
        13 slots, 65 bytes, most often over a line's end (the second line:
        full_biy 107, 53, 42, 126, 119 median 1.045 in 5 paired runs; a
        third: 0.999). A prefetch never faults, so past the table's end
        it asks for nothing."""
        cdef const uint8_t* slot = self.slots + (h & self.slot_mask) * SLOT_BYTES
        core_prefetch(slot)
        core_prefetch(slot + 64)

    cdef inline bint holds_at(self, uint64_t entry, const uint8_t* record, int length) noexcept nogil:
        cdef size_t index = (entry & INDEX_MASK) - 1
        return self.length_of(index) == length and same_record(self.record_at(index), record, length)

    # -------------------------------------------------------- inserting --

    cdef int64_t insert(self, const uint8_t* record, int length, size_t parent, uint8_t action) except -2 nogil:
        return self.insert_hashed(record, length, self.hash_record(record, length), parent, action)

    cdef int64_t insert_hashed(self, const uint8_t* record, int length, uint64_t h,
                               size_t parent, uint8_t action) except -2 nogil:
        """Index of a new state, or -1 if it was already there; MemoryError
        when the store is full, past its byte limit, or cannot grow."""
        cdef size_t slot = h & self.slot_mask
        # The slot keeps a few high hash bits beside the index, so most
        # probes reject a stranger without touching the arena.
        cdef uint64_t tag = h >> (64 - TAG_BITS)
        cdef uint64_t entry
        cdef size_t index = self.count, base
        while True:
            entry = self.slot_entry(slot)
            if not entry:
                break
            if (entry >> INDEX_BITS) == tag and self.holds_at(entry, record, length):
                return -1
            slot = (slot + 1) & self.slot_mask
        if index >= MAX_STATES or self.over_limit(<size_t>length + STATE_BYTES):
            return full_store()
        if index == self.capacity and self.grow_states() < 0:
            return full_store()
        if self.arena_used + length > self.arena_capacity and self.grow_arena(self.arena_used + length) < 0:
            return full_store()
        # The next state's offset is from its own block's base: set it when
        # this state ends the block before.
        base = self.bases[index >> BLOCK_SHIFT]
        if self.arena_used + length - base > 0xFFFFFFFFULL:
            return full_store()         # 4,096 records of over 1 MiB each
        memcpy(self.arena + self.arena_used, record, length)
        self.arena_used += length
        if ((index + 1) & ((1 << BLOCK_SHIFT) - 1)) == 0:
            self.bases[(index + 1) >> BLOCK_SHIFT] = self.arena_used
        self.starts[index + 1] = <uint32_t>(self.arena_used - self.bases[(index + 1) >> BLOCK_SHIFT])
        self.set_parent(index, parent, action)
        self.count = index + 1
        core_store40(self.slots + slot * SLOT_BYTES, (tag << INDEX_BITS) | (index + 1))
        if self.count > self.grow_after() and self.grow_slots() < 0:
            return full_store()
        return <int64_t>index

    def add(self, bytes record, parent=None, action=None):
        """Add a packed state (the root, without a parent); its index, or -1
        if it was already stored."""
        cdef size_t up = NO_PARENT if parent is None else <size_t>parent
        cdef uint8_t move = NO_ACTION if action is None else <uint8_t>action
        if parent is not None and <size_t>parent >= self.count:
            raise IndexError(parent)
        if action is not None and not 0 <= action < NO_ACTION:
            raise ValueError(f"action must be 0..{NO_ACTION - 1}, not {action}")
        return self.insert(record, len(record), up, move)

    def add_counting(self, size_t start, size_t stop, int width):
        """Test hook: add the numbers [start, stop) as `width`-byte records,
        each the child of the state before it; how many were new."""
        cdef uint8_t record[8]
        cdef size_t n, new = 0
        cdef int64_t index
        if not 1 <= width <= 8:
            raise ValueError("width must be 1..8")
        with nogil:
            for n in range(start, stop):
                memcpy(record, &n, width)
                index = self.insert(record, width, self.count - 1 if self.count else NO_PARENT,
                                    0 if self.count else NO_ACTION)
                if index >= 0:
                    new += 1
        return new

    # ----------------------------------------------------------- lookup --

    cdef int64_t index_of(self, const uint8_t* record, int length) noexcept nogil:
        """The index of a stored state, or -1."""
        cdef uint64_t h = self.hash_record(record, length)
        cdef size_t slot = h & self.slot_mask
        cdef uint64_t tag = h >> (64 - TAG_BITS)
        cdef uint64_t entry
        while True:
            entry = self.slot_entry(slot)
            if not entry:
                return -1
            if (entry >> INDEX_BITS) == tag and self.holds_at(entry, record, length):
                return <int64_t>((entry & INDEX_MASK) - 1)
            slot = (slot + 1) & self.slot_mask

    cdef inline void reparent(self, size_t index, size_t parent, uint8_t action) noexcept nogil:
        """A shorter way to a stored state: its parent must be reached in
        fewer moves than it, so following parents still ends at the root."""
        self.set_parent(index, parent, action)

    def find(self, bytes record):
        """The index of a stored state, or -1."""
        return self.index_of(record, len(record))

    def depth(self, size_t index):
        """Moves from the root (state 0) to state `index`."""
        cdef int n = 0
        if index >= self.count:
            raise IndexError(index)
        while index != 0:
            index = self.parent_of(index)
            n += 1
        return n

    def get(self, size_t index):
        if index >= self.count:
            raise IndexError(index)
        return bytes(self.record_at(index)[:self.length_of(index)])

    def parent(self, size_t index):
        """(parent, action) of a state; (None, None) for the root."""
        if index >= self.count:
            raise IndexError(index)
        if self.action_of(index) == NO_ACTION:
            return None, None
        return self.parent_of(index), self.action_of(index)

    def comes_back(self, size_t index):
        """Whether the opposite of the state's action, played from it, is
        known to give back its parent (the turn that made it said so)."""
        if index >= self.count:
            raise IndexError(index)
        return bool(self.actions[index] & COMES_BACK)

    def path_to(self, size_t index):
        """Actions from the root (state 0) to state `index`."""
        cdef list path = []
        if index >= self.count:
            raise IndexError(index)
        while index != 0:
            path.append(self.action_of(index))
            index = self.parent_of(index)
        path.reverse()
        return path

    def __len__(self):
        return self.count

    @property
    def memory_bytes(self):
        """Bytes held for the states (arena, offsets, parents, table), as used."""
        return self.held_bytes()

    @property
    def table_slots(self):
        """The slots of its table (it doubles as the states fill it)."""
        return self.slot_mask + 1

    @property
    def states_before_grow(self):
        """States it can still add before its table doubles (a pause that
        rehashes every state)."""
        return self.grow_after() - self.count
