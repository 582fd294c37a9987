# The searches' core, without the GIL: the visited store (_store.pxi),
# batch expansion for breadth-first search, best-first and beam search
# (_bestfirst.pxi), and the simulation behind game.Simulation. They reach a
# rule set only through the seam of _ruleset.pxd, so any rule set plugs in.
# Compiler directives are set once, in setup.py.
from libc.stdint cimport uint8_t, uint16_t, uint32_t, uint64_t, int64_t
from libc.stdlib cimport free, qsort
from libc.string cimport memcpy, memset, memcmp

from babasolver._ruleset cimport (
    CoreLevel, Workspace, N_ACTIONS, WAIT, ARENA_SLACK, CACHE_LINE_GAP, TURN_ILLEGAL, TURN_WON, TURN_DEAD,
    TURN_COMES_BACK,
)
from babasolver._ruleset cimport GUIDE_BLIND, GUIDE_RULES, GUIDE_PAIRS, GUIDE_RULE_PAIRS
from babasolver._search cimport (
    Queued, safe_realloc, Counters, Child, CHILD_NONE, CHILD_NEW, CHILD_WON, play_child, skips_wait,
)

cdef extern from *:
    """
    /* The empty asm makes the prefetch a side effect the compiler keeps: GCC
       takes a function whose only effect is __builtin_prefetch for pure and
       drops calls to it that are not inlined, with whatever only fed them
       (so the insert pipeline's later stages never ran until d231117). */
    static inline void core_prefetch(const void* p) {
        __builtin_prefetch(p);
    #if defined(__GNUC__)
        __asm__ volatile("" : : "r"(p));
    #endif
    }
    /* Both halves of a 64x64-bit product, folded: the mixing step of the hash. */
    static inline uint64_t core_mix(uint64_t a, uint64_t b) {
        __uint128_t product = (__uint128_t)a * b;
        return (uint64_t)product ^ (uint64_t)(product >> 64);
    }
    #include <string.h>
    #if defined(__linux__)
    #include <sys/mman.h>
    #endif
    /* The store's big arrays: zeroed blocks that grow. On Linux they are
       mappings grown by mremap, which moves pages instead of copying them
       (realloc copied the arena at every doubling, faulting in every page
       twice). The table (`huge`) asks for 2 MiB pages so random probes
       miss the TLB less; the arrays filled front to back do not: where the
       kernel gives back free memory to a VM's host, a 2 MiB page is mostly
       new to the host and its first touch waits (this 2-core VM: 0.3-0.5
       GB/s, against 2.8 GB/s for 4 KiB pages), and that wait cost more
       than the TLB misses of their random reads (a duplicate's bytes) save
       (119's proof, 86M states: 31-34 s, 36-37 s with the arena in 2 MiB
       pages too). Each mapping starts on a 2 MiB boundary and
       moves only to another: mremap keeps a 2 MiB page whole only between
       aligned addresses, and split into 4 KiB ones it costs a TLB miss
       again at nearly every random probe (119 at 10M states: 57 of 122 MB
       of the largest mapping in 2 MiB pages). Elsewhere, calloc and
       realloc. */
    #if defined(__linux__) && defined(MREMAP_MAYMOVE)
    #include <stdint.h>
    #include <unistd.h>
    #define CORE_HUGE_PAGE ((size_t)2 << 20)
    /* n fresh bytes (zero) on a 2 MiB boundary: a mapping 2 MiB longer,
       its ends cut off. */
    static void* core_map_aligned(size_t n) {
        size_t page = (size_t)sysconf(_SC_PAGESIZE), span, head, used;
        char* p;
        uintptr_t start;
        n = (n + page - 1) & ~(page - 1);
        span = n + CORE_HUGE_PAGE;
        p = (char*)mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) return NULL;
        start = ((uintptr_t)p + CORE_HUGE_PAGE - 1) & ~(uintptr_t)(CORE_HUGE_PAGE - 1);
        head = start - (uintptr_t)p;
        used = head + n;
        if (head) munmap(p, head);
        if (span > used) munmap(p + used, span - used);
        return (void*)start;
    }
    #endif
    static void* core_block_new(size_t n, int huge) {
    #if defined(__linux__) && defined(MREMAP_MAYMOVE)
        void* p = core_map_aligned(n);
        if (!p) return NULL;
        /* The whole mapping, so it stays one region that mremap can grow. */
    #if defined(MADV_HUGEPAGE)
        if (huge) madvise(p, n, MADV_HUGEPAGE);
    #endif
        return p;
    #else
        return calloc(n, 1);
    #endif
    }
    static void* core_block_grow(void* p, size_t old_n, size_t new_n, int huge) {
    #if defined(__linux__) && defined(MREMAP_MAYMOVE)
        /* Moved onto an aligned place taken for it (MREMAP_FIXED unmaps it first). */
        void* to = core_map_aligned(new_n);
        void* q;
        if (!to) return NULL;
        q = mremap(p, old_n, new_n, MREMAP_MAYMOVE | MREMAP_FIXED, to);
        if (q == MAP_FAILED) {
            munmap(to, new_n);
            return NULL;
        }
    #if defined(MADV_HUGEPAGE)
        if (huge) madvise(q, new_n, MADV_HUGEPAGE);
    #endif
        return q;
    #else
        char* q = (char*)realloc(p, new_n);
        if (q) memset(q + old_n, 0, new_n - old_n);
        return q;
    #endif
    }
    /* A table slot is 40 bits, read and written at any byte (the table
       keeps 8 spare bytes at its end for the whole-word read). */
    static inline uint64_t core_load40(const uint8_t* p) {
    #if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        uint64_t word;
        memcpy(&word, p, 8);
        return word & 0xFFFFFFFFFFULL;
    #else
        return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16
             | (uint64_t)p[3] << 24 | (uint64_t)p[4] << 32;
    #endif
    }
    static inline void core_store40(uint8_t* p, uint64_t value) {
        p[0] = (uint8_t)value; p[1] = (uint8_t)(value >> 8); p[2] = (uint8_t)(value >> 16);
        p[3] = (uint8_t)(value >> 24); p[4] = (uint8_t)(value >> 32);
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
    void* core_block_new(size_t n, bint huge) nogil
    void* core_block_grow(void* p, size_t old_n, size_t new_n, bint huge) nogil
    void core_block_free(void* p, size_t n) nogil
    uint64_t core_load40(const uint8_t* p) nogil
    void core_store40(uint8_t* p, uint64_t value) nogil



cpdef enum SearchOutcome:
    # What a search's run (or a batch expansion) ended with.
    SEARCH_GOING = 0        # its budget of expansions is spent; states are left
    SEARCH_WON = 1          # a child wins: see won_parent and won_action
    SEARCH_EXHAUSTED = 2    # every reachable state was expanded: no solution
    SEARCH_DRY = 3          # a beam ran dry or reached its bound, which proves nothing


include "_store.pxi"

#: The most states a StateStore holds (34-bit indices); memory runs out first.
STORE_CAPACITY = MAX_STATES


cdef int bad_record() except -1 nogil:
    with gil:
        raise ValueError("a stored state does not decode: the store holds another level's states")


cdef int insert_listed(StateStore store, const uint8_t* records, const uint32_t* starts,
                       const uint64_t* hashes, const uint64_t* parents, const uint8_t* actions,
                       size_t n) except -1 nogil:
    """Insert n listed records in order: record j is records[starts[j]:
    starts[j + 1]]. Each one's table slot is prefetched INSERT_LAG records
    before its insert. Prefetching the state named there and its bytes too
    only moved the wait onto those loads (see docs/DESIGN.md)."""
    cdef size_t i, j
    for i in range(n + INSERT_LAG):
        if i < n:
            store.prefetch(hashes[i])
        if i >= INSERT_LAG:
            j = i - INSERT_LAG
            store.insert_hashed(records + starts[j], <int>(starts[j + 1] - starts[j]),
                                hashes[j], parents[j], actions[j])
    return 0


# ------------------------------------------------- Python-facing classes --

cdef class CoreSimulation:
    """One game played turn by turn: the Cython engine behind game.Simulation."""
    cdef CoreLevel level
    cdef Workspace work
    cdef readonly bint won, dead
    cdef readonly object illegal

    def __cinit__(self, CoreLevel level):
        self.level = level
        self.work = level.workspace()
        self.work.set_root()
        self.won = False     # the win check runs at the end of a turn, never at load
        self.illegal = None
        self.dead = self.work.is_dead()

    def step(self, int action):
        if action < 0 or action > WAIT:
            raise ValueError(f"action must be 0..4, not {action}")
        if self.illegal is not None:
            raise RuntimeError(f"the game cannot go on after an illegal turn: {self.illegal}")
        cdef int flags = self.work.play(action)
        if flags & TURN_ILLEGAL:
            self.illegal = self.work.illegal_reason()
            self.won = False
            return
        self.work.adopt(flags)
        self.won = (flags & TURN_WON) != 0
        self.dead = (flags & TURN_DEAD) != 0

    def objects(self):
        """(tile, x, y, facing, hidden) of every object in creation order."""
        return self.work.objects()

    def texts(self):
        """(tile, x, y, hidden) of every text in load order."""
        return self.work.texts()

    def rules(self):
        return self.work.rules()

    def pack(self):
        """The canonical state bytes of the current position."""
        cdef bytearray out = bytearray(self.work.max_record + ARENA_SLACK)
        cdef int length = self.work.pack(<uint8_t*><char*>out)
        return bytes(out[:length])

    def unpack(self, bytes record):
        """Replace the position by a packed state: bytes that `pack` gives
        for some position of the level, and no others (ValueError, and the
        position stays as it was). A record's decoder checks its fields,
        but a field can hold a value that decodes and is still not what
        the position packs to (an entry equal to the level's own, flags the
        position does not have): such bytes would load a position under a
        second name. So the loaded position is packed again, its flags
        worked out afresh (adopt), and must give the same bytes."""
        cdef bytes before = self.pack()
        if self.load_exactly(record) < 0:
            self.load_exactly(before)
            raise ValueError("not a packed state of this level")
        self.won = False
        self.illegal = None
        self.dead = self.work.is_dead()

    cdef int load_exactly(self, bytes record) except -2:
        """Load a record and adopt it; -1 unless it packs back to itself."""
        cdef bytearray padded = bytearray(record) + bytearray(ARENA_SLACK)
        if self.work.load(<uint8_t*><char*>padded, len(record), False) < 0:
            return -1
        self.work.adopt(0)
        return 0 if self.pack() == record else -1

    def novelty_atoms(self, int action):
        """What a satisficing search reads of the position and its child by
        `action`: (the position's atoms, its pair atoms, the child's atoms,
        its pair atoms, the child's new atoms, its new pair atoms), each
        sorted, as the search's load (from the record) and play give them;
        the position stays. For tests: the new ones must hold every atom of
        the child the position lacks."""
        if action < 0 or action > WAIT:
            raise ValueError(f"action must be 0..4, not {action}")
        cdef bytearray record = bytearray(self.work.max_record + ARENA_SLACK)
        cdef int length = self.work.pack(<uint8_t*><char*>record)
        cdef size_t* out = NULL
        cdef list found = []
        safe_realloc(&out, self.level.max_atoms + 1)
        try:
            if self.work.load(<uint8_t*><char*>record, length, False) < 0:
                raise ValueError("not a packed state of this level")
            found.append(sorted(out[i] for i in range(self.work.atoms(out))))
            found.append(sorted(out[i] for i in range(self.work.pair_atoms(out))))
            self.work.play(action)
            found.append(sorted(out[i] for i in range(self.work.atoms(out))))
            found.append(sorted(out[i] for i in range(self.work.pair_atoms(out))))
            found.append(sorted(out[i] for i in range(self.work.new_atoms(out))))
            found.append(sorted(out[i] for i in range(self.work.new_pair_atoms(out))))
            self.work.restore()
        finally:
            free(out)
        return tuple(tuple(atoms) for atoms in found)


# ------------------------------------------------------- batch expansion --

cdef class Counted:
    """A search's counters, as its Python attributes."""
    cdef Counters counts

    @property
    def generated(self):
        """Turns played."""
        return self.counts.generated

    @property
    def expanded(self):
        """States whose turns were played."""
        return self.counts.expanded

    @property
    def dead_ends(self):
        """Children with nothing left that can move."""
        return self.counts.dead_ends

    @property
    def illegal(self):
        """Turns the rule set cannot play."""
        return self.counts.illegal


cdef class Expander(Counted):
    """Expands ranges of stored states in C, without the GIL: every action is
    played from each state, won children are reported, dead ends and turns
    the rule set cannot play dropped, and new children are appended to the
    store.

    Expansion runs in two steps. `generate` plays a range of states into
    this expander's own list of children and only reads the store, so several
    expanders (one per thread) can generate at once; `insert_generated` then
    adds the children to the store, in order. `expand` does both.

    `generate` is itself `stage` (copy the range's records out of the store)
    then `generate_staged` (play from that copy). Generating from a staged
    copy never touches the store, so it may run while another thread inserts
    into the store, whose arena an insert can move."""
    cdef CoreLevel level
    cdef StateStore store
    cdef Workspace work
    # The children generated, in order: child i is
    # out_bytes[out_start[i]:out_start[i + 1]].
    cdef uint8_t* out_bytes
    cdef size_t out_used, out_capacity
    cdef uint32_t* out_start
    cdef uint64_t* out_hash
    cdef uint64_t* out_parent
    cdef uint8_t* out_action
    cdef size_t out_count, out_room
    # The parents of the next generate_staged, copied out of the store:
    # parent staged_first + i is staged_bytes[staged_start[i]:staged_start[i + 1]],
    # with ARENA_SLACK readable bytes after the last, as in the arena.
    cdef uint8_t* staged_bytes
    cdef size_t staged_capacity
    cdef size_t* staged_start
    cdef uint8_t* staged_actions    # and its action byte (COMES_BACK)
    cdef size_t staged_room
    cdef size_t staged_first, staged_count
    cdef bint staged
    cdef readonly int64_t won_parent
    cdef readonly int won_action
    # Turns counted, not played, because their child is made by the same
    # turns swapped from an earlier state (Workspace.swapped_actions).
    cdef readonly uint64_t swapped_turns
    # Whether generate lists the new children to be stored. Off, it only
    # looks for a win: for a layer whose children will never be expanded (a
    # known solution is one move longer), so neither packing nor storing
    # them can change the search's outcome.
    cdef public bint lists_children
    # The store's hash mask, copied: a generating thread reads it for every
    # child, and in the store it shares a cache line with the counts that
    # the inserting thread writes for every insert.
    cdef uint64_t hash_mask
    cdef char thread_gap[CACHE_LINE_GAP]

    def __cinit__(self, CoreLevel level, StateStore store):
        self.level = level
        self.store = store
        self.hash_mask = store.hash_mask
        self.work = level.workspace()
        self.out_capacity = 1 << 16
        while self.out_capacity < 4 * <size_t>self.work.max_record:
            self.out_capacity *= 2
        self.out_room = 1 << 12
        safe_realloc(&self.out_bytes, self.out_capacity)
        safe_realloc(&self.out_start, self.out_room + 1)
        safe_realloc(&self.out_hash, self.out_room)
        safe_realloc(&self.out_parent, self.out_room)
        safe_realloc(&self.out_action, self.out_room)
        self.out_count = self.out_used = 0
        self.out_start[0] = 0
        self.staged_capacity = 1 << 12
        self.staged_room = 1 << 8
        safe_realloc(&self.staged_bytes, self.staged_capacity + ARENA_SLACK)
        safe_realloc(&self.staged_start, self.staged_room + 1)
        safe_realloc(&self.staged_actions, self.staged_room)
        self.staged = False
        self.won_parent = -1
        self.won_action = -1
        self.swapped_turns = 0
        self.lists_children = True

    def __dealloc__(self):
        free(self.out_bytes)
        free(self.out_start)
        free(self.out_hash)
        free(self.out_parent)
        free(self.out_action)
        free(self.staged_bytes)
        free(self.staged_start)
        free(self.staged_actions)

    @property
    def incremental(self):
        """Load a state from the last one, pack children from their parent
        and play plain turns by their shortcut where the rule set can (else
        whole and by the general turn, for the tests)."""
        return self.work.incremental

    @incremental.setter
    def incremental(self, bint value):
        self.work.incremental = value

    @property
    def n_actions(self):
        return self.level.n_actions

    @property
    def listed_children(self):
        """Children the last `generate` listed: at most what inserting them adds."""
        return self.out_count

    def add_root(self):
        """Store the level's initial state as state 0."""
        return self.store.add(root_record(self))

    def root_is_dead(self):
        """True when the level as loaded has no YOU and no MOVE object."""
        self.work.set_root()
        return self.work.is_dead()

    def expand(self, size_t start, size_t stop):
        """Expand states [start, stop) and store their new children. Returns
        SEARCH_WON when a child wins (see won_parent / won_action; the
        children before it are stored), else SEARCH_GOING; raises
        MemoryError when the store cannot grow."""
        cdef int outcome = self.generate(start, stop)
        self.insert_generated()
        return outcome

    def generate(self, size_t start, size_t stop):
        """Play every action from states [start, stop) into this expander's
        list of children (replacing the last list), stopping at the first
        child that wins (SEARCH_WON; the list holds the children before
        it). Reads the store but does not change it."""
        self.stage(start, stop)
        return self.generate_staged()

    def stage(self, size_t start, size_t stop):
        """Copy the records of states [start, stop) out of the store, the
        parents of the next `generate_staged`. No insert into the store may
        run meanwhile; once staged, the store may change at will."""
        if stop > <size_t>len(self.store) or start > stop:
            raise IndexError(f"states [{start}, {stop}) are not all stored")
        with nogil:
            self.stage_range(start, stop)

    def generate_staged(self):
        """`generate` from the states the last `stage` copied, without
        reading the store: it may run while another thread inserts."""
        cdef int outcome
        if not self.staged:
            raise RuntimeError("no states are staged: call stage(start, stop) first")
        with nogil:
            outcome = self.expand_staged()
        return SearchOutcome(outcome)

    def insert_generated(self):
        """Add the children listed by the last `generate` to the store, in
        order (those already there are dropped)."""
        with nogil:
            self.insert_children()

    cdef int make_room(self) except -1 nogil:
        """Room for one more child of the largest size."""
        cdef size_t capacity = self.out_capacity
        cdef size_t need = self.out_used + self.work.max_record + ARENA_SLACK
        if need > capacity:
            while need > capacity:
                capacity *= 2
            safe_realloc(&self.out_bytes, capacity)
            self.out_capacity = capacity
        if self.out_count == self.out_room:
            safe_realloc(&self.out_start, 2 * self.out_room + 1)
            safe_realloc(&self.out_hash, 2 * self.out_room)
            safe_realloc(&self.out_parent, 2 * self.out_room)
            safe_realloc(&self.out_action, 2 * self.out_room)
            self.out_room *= 2
        return 0

    cdef inline void keep_child(self, int length, size_t parent, uint8_t action) noexcept nogil:
        """List the child packed at out_bytes + out_used."""
        cdef size_t i = self.out_count
        self.out_hash[i] = hash_bytes(self.out_bytes + self.out_used, length) & self.hash_mask
        self.out_parent[i] = parent
        self.out_action[i] = action
        self.out_used += length
        self.out_count = i + 1
        self.out_start[i + 1] = <uint32_t>self.out_used

    cdef int insert_children(self) except -1 nogil:
        """Insert the listed children in order (see insert_listed)."""
        insert_listed(self.store, self.out_bytes, self.out_start, self.out_hash, self.out_parent,
                      self.out_action, self.out_count)
        self.out_count = self.out_used = 0
        return 0

    cdef int stage_range(self, size_t start, size_t stop) except -1 nogil:
        """Copy states [start, stop): their records lie end to end in the
        arena, so one copy takes them all."""
        cdef size_t n = stop - start
        cdef size_t first = self.store.start_of(start)
        cdef size_t nbytes = self.store.start_of(stop) - first
        cdef size_t i
        self.staged = False
        if nbytes > self.staged_capacity:
            self.staged_capacity = max(nbytes, 2 * self.staged_capacity)
            safe_realloc(&self.staged_bytes, self.staged_capacity + ARENA_SLACK)
        if n > self.staged_room:
            self.staged_room = max(n, 2 * self.staged_room)
            safe_realloc(&self.staged_start, self.staged_room + 1)
            safe_realloc(&self.staged_actions, self.staged_room)
        memcpy(self.staged_bytes, self.store.arena + first, nbytes)
        memcpy(self.staged_actions, self.store.actions + start, n)
        # A record is read a word at a time, up to ARENA_SLACK bytes past its
        # end (those bytes are read, never used): zeroed, they are defined.
        memset(self.staged_bytes + nbytes, 0, ARENA_SLACK)
        for i in range(n + 1):
            self.staged_start[i] = self.store.start_of(start + i) - first
        self.staged_first = start
        self.staged_count = n
        self.staged = True
        return 0

    cdef inline int unplayed(self, uint8_t arrival) noexcept nogil:
        """The actions (bit 1 << action) counted, not played, from the loaded
        state that `arrival`, its action byte, made (see expand_staged)."""
        cdef int arrived = arrival & ACTION_MASK
        if not arrival & COMES_BACK:
            return 0
        # Up and down (actions 0 and 1) are played before left and right:
        # only a state that came by left or right has swaps to ask for.
        if self.work.incremental and arrived >= 2:
            return 1 << (arrived ^ 1) | self.work.swapped_actions(arrived, 1 << 0 | 1 << 1)
        return 1 << (arrived ^ 1)

    def unplayed_actions(self, size_t index):
        """Test hook: the actions that expanding stored state `index`
        counts without playing them, as a bit mask (1 << action)."""
        if index >= <size_t>len(self.store):
            raise IndexError(index)
        record = self.store.get(index)
        cdef bytearray padded = bytearray(record) + bytearray(ARENA_SLACK)
        if self.work.load(<uint8_t*><char*>padded, len(record), False) < 0:
            bad_record()
        return self.unplayed(self.store.actions[index])

    cdef int expand_staged(self) except -1 nogil:
        """Play the staged states; the store is not read (the expander keeps
        its own copy of the hash mask), so inserts may run meanwhile. A
        state whose turn said it comes back (COMES_BACK) would make its
        parent, a stored state, by the opposite action: that turn is
        counted, not played (on full_biy 107, 119, 121 and 126 a fifth of
        all turns). So is a turn of the other axis whose child the rule set
        says the swapped turns make (swapped_actions) from the parent's child
        by it, when that action comes first: that child was stored before
        this state, so its own turns (or, by the same reason, an earlier
        state's) make this one's child before this state's children are
        inserted, and it would be dropped there as a duplicate."""
        cdef size_t i, index
        cdef int action, flags, length, child, back, skipped
        self.out_count = self.out_used = 0
        for i in range(self.staged_count):
            index = self.staged_first + i
            if self.work.load(self.staged_bytes + self.staged_start[i],
                              <int>(self.staged_start[i + 1] - self.staged_start[i]), i != 0) < 0:
                bad_record()
            self.counts.expanded += 1
            skipped = self.unplayed(self.staged_actions[i])
            back = (self.staged_actions[i] & ACTION_MASK) ^ 1
            for action in range(self.level.n_actions):
                if skips_wait(self.work, action, index):
                    break
                if skipped >> action & 1:
                    self.counts.generated += 1
                    if action != back:
                        self.swapped_turns += 1
                    continue
                child = play_child(self.work, action, &self.counts, &flags)
                if child == CHILD_WON:
                    self.won_parent = <int64_t>index
                    self.won_action = action
                    self.work.restore()
                    return SEARCH_WON
                if child == CHILD_NEW and self.lists_children:
                    if (self.out_used + <size_t>self.work.max_record + ARENA_SLACK > self.out_capacity
                            or self.out_count == self.out_room):
                        self.make_room()
                    length = self.work.pack_child(flags, self.out_bytes + self.out_used)
                    self.keep_child(length, index,
                                    <uint8_t>(action | (COMES_BACK if flags & TURN_COMES_BACK else 0)))
                self.work.restore()
        return SEARCH_GOING


include "_bestfirst.pxi"
include "_exchange.pxi"
