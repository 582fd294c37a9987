# The visited store: every state a search has seen, exactly once, and the
# hash it files them by. Included by _core.pyx; it knows nothing of the rules.

cdef enum:
    INDEX_BITS = 26         # a store slot: 6 tag bits over a 26-bit state index
    TAG_BITS = 6
    INDEX_MASK = (1 << 26) - 1
    MAX_STATES = (1 << 26) - 2
    REHASH_AHEAD = 16       # states hashed ahead of their insert when the table grows
    QUEUE_SIZE = 16         # children in flight while inserting (a power of two)
    INSERT_LAG = 15         # children between prefetching a slot and inserting
    PEEK_LAG = 5            # ... and looking at the state named in that slot
    FETCH_LAG = 10          # ... and fetching that state's bytes

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



cdef int64_t full_store() except -2 nogil:
    with gil:
        raise MemoryError("the visited table could not grow")


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
    cdef size_t count, capacity       # states held, and the room all three arrays have
    cdef size_t offsets_room, parents_room, actions_room   # each array's own room, in states
    cdef uint32_t* slots            # 0 = free, else (tag << INDEX_BITS) | (state index + 1)
    cdef size_t slot_mask
    cdef uint64_t hash_mask         # a test hook narrows it to force collisions

    def __cinit__(self, size_t expected=1024, uint64_t hash_mask=0xFFFFFFFFFFFFFFFFULL):
        cdef size_t slot_count = 1024
        while slot_count < 2 * expected:
            slot_count *= 2
        self.capacity = self.offsets_room = self.parents_room = self.actions_room = 1024
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
        core_block_free(self.offsets, (self.offsets_room + 1) * sizeof(uint32_t))
        core_block_free(self.parents, self.parents_room * sizeof(uint32_t))
        core_block_free(self.actions, self.actions_room)
        core_block_free(self.slots, (self.slot_mask + 1) * sizeof(uint32_t))

    cdef int grow_states(self) noexcept nogil:
        # Each array keeps its own room, so that after a grow that failed
        # part way every mapping is still freed at the size it has.
        cdef size_t capacity = self.capacity * 2
        cdef void* grown
        if self.offsets_room < capacity:
            grown = core_block_grow(self.offsets, (self.offsets_room + 1) * sizeof(uint32_t),
                                    (capacity + 1) * sizeof(uint32_t))
            if not grown:
                return -1
            self.offsets, self.offsets_room = <uint32_t*>grown, capacity
        if self.parents_room < capacity:
            grown = core_block_grow(self.parents, self.parents_room * sizeof(uint32_t),
                                    capacity * sizeof(uint32_t))
            if not grown:
                return -1
            self.parents, self.parents_room = <uint32_t*>grown, capacity
        if self.actions_room < capacity:
            grown = core_block_grow(self.actions, self.actions_room, capacity)
            if not grown:
                return -1
            self.actions, self.actions_room = <uint8_t*>grown, capacity
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

    cdef int64_t insert(self, const uint8_t* record, int length, uint32_t parent,
                        uint8_t action) except -2 nogil:
        return self.insert_hashed(record, length, self.hash_record(record, length), parent, action)

    cdef int64_t insert_hashed(self, const uint8_t* record, int length, uint64_t h,
                               uint32_t parent, uint8_t action) except -2 nogil:
        """Index of a new state, or -1 if it was already there; MemoryError
        when the store is full or cannot grow."""
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
            return full_store()
        if self.count == self.capacity and self.grow_states() < 0:
            return full_store()
        # Offsets are 32-bit: the arena stops at 4 GiB, which reads as a full store.
        if self.arena_used + length > 0xFFFFFFFFULL:
            return full_store()
        if self.arena_used + length > self.arena_capacity:
            capacity = self.arena_capacity * 2
            while self.arena_used + length > capacity:
                capacity *= 2
            arena = <uint8_t*>core_block_grow(self.arena, self.arena_capacity + ARENA_SLACK,
                                              capacity + ARENA_SLACK)
            if not arena:
                return full_store()
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
            return full_store()
        return index

    def add(self, bytes record, uint32_t parent=0xFFFFFFFFU, uint8_t action=255):
        """Add a packed state; its index, or -1 if it was already stored."""
        return self.insert(record, len(record), parent, action)

    cdef int64_t index_of(self, const uint8_t* record, int length) noexcept nogil:
        """The index of a stored state, or -1."""
        cdef uint64_t h = self.hash_record(record, length)
        cdef size_t slot = h & self.slot_mask
        cdef uint32_t tag = <uint32_t>(h >> (64 - TAG_BITS)) << INDEX_BITS
        cdef uint32_t entry, index
        while True:
            entry = self.slots[slot]
            if not entry:
                return -1
            if (entry & ~INDEX_MASK) == tag:
                index = (entry & INDEX_MASK) - 1
                if (self.offsets[index + 1] - self.offsets[index] == <uint32_t>length
                        and memcmp(self.arena + self.offsets[index], record, length) == 0):
                    return index
            slot = (slot + 1) & self.slot_mask

    cdef inline void reparent(self, size_t index, uint32_t parent, uint8_t action) noexcept nogil:
        """A shorter way to a stored state: its parent must be reached in
        fewer moves than it, so following parents still ends at the root."""
        self.parents[index] = parent
        self.actions[index] = action

    def find(self, bytes record):
        """The index of a stored state, or -1."""
        return self.index_of(record, len(record))

    def depth(self, size_t index):
        """Moves from the root (state 0) to state `index`."""
        cdef int n = 0
        if index >= self.count:
            raise IndexError(index)
        while index != 0:
            index = self.parents[index]
            n += 1
        return n

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

