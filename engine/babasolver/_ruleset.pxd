# The seam between the searches and a rule set. The store and the searches
# (_core.pyx) know a level and a position only through these two classes;
# each rule set (_judge.pyx: the Keke judge's) subclasses both, and its
# positions, records and turn stay its own. A record is a rule set's
# canonical bytes for a position: equal positions, equal bytes.
from libc.stdint cimport uint8_t

cdef enum:
    N_DIRECTIONS = 4
    WAIT = 4                # actions 0..3 are up, down, left, right: a direction's opposite is direction ^ 1
    N_ACTIONS = 5
    ARENA_SLACK = 16        # spare bytes after a record buffer, for whole-word copies
    # Bytes that end each object one thread writes while another thread
    # writes the next one: objects sit end to end in memory, and without the
    # gap the two threads would keep taking a cache line from each other.
    CACHE_LINE_GAP = 64

# What play() says of the turn it played.
cdef enum TurnFlag:
    TURN_CHANGED = 1        # the position differs from before the turn
    TURN_WON = 2
    TURN_DEAD = 4           # nothing can move any more: no YOU and no MOVE object
    TURN_ILLEGAL = 8        # the rule set cannot play this turn
    # The opposite direction played from the child gives back exactly the
    # parent's position (a rule set that cannot tell never says so): a
    # search may count that turn of the child without playing it.
    TURN_COMES_BACK = 16
    TURN_OWN = 256          # this bit and above are the rule set's own (for pack_child)

# What the satisficing guides ask of a position.
cpdef enum Guide:
    GUIDE_BLIND = 0         # no estimate: novelty, then age
    GUIDE_RULES = 1         # distances, and how far texts are from a missing YOU or WIN rule
    GUIDE_PAIRS = 3         # blind, and novelty also counts pairs (first YOU cell, text cell)
    GUIDE_RULE_PAIRS = 4    # GUIDE_RULES's estimate with GUIDE_PAIRS's atoms


cdef class Pool:
    """Zeroed memory that lives as long as its owner: an owner keeps one
    Pool, and what it allocates there is freed with it."""
    cdef list addresses
    cdef void* alloc(self, size_t count, size_t size) except NULL


cdef class Workspace:
    """One thread's position under a rule set, and the scratch to play turns
    on it. A search loads a stored record (the parent), plays an action,
    packs or scores the child, and restores the parent before the next
    action."""
    cdef readonly int max_record        # no record of this level is longer
    # Where the rule set can: load from the last parent, pack from the
    # parent, and play a plain turn by its shortcut.
    cdef public bint incremental

    cdef void set_root(self) noexcept nogil
    # Make `record` the current position (the parent of the next turns).
    # `near`: the last call loaded a record too, and the rule set may move
    # from it. 0, or -1 for bytes that are not a record of this level. The
    # record has ARENA_SLACK readable bytes past its end, as in a store.
    cdef int load(self, const uint8_t* record, int length, bint near) noexcept nogil
    cdef int play(self, int action) noexcept nogil          # TurnFlag bits
    cdef void restore(self) noexcept nogil                  # back to the parent after play
    cdef void adopt(self, int flags) noexcept nogil         # or make the child the position
    cdef int pack(self, uint8_t* out) noexcept nogil        # the position's record
    cdef int pack_child(self, int flags, uint8_t* out) noexcept nogil   # the child's, after play
    cdef bint wait_is_idle(self) noexcept nogil             # waiting cannot change the position
    # The actions (bit 1 << action) among `candidates`, of the other axis
    # than `arrived`, whose turn from the position makes the same state as
    # the turn `arrived` makes from the parent's child by that action, a
    # state to store: the position came back (TURN_COMES_BACK) from its
    # parent by `arrived`. 0 where the rule set cannot tell.
    cdef int swapped_actions(self, int arrived, int candidates) noexcept nogil
    cdef bint is_dead(self) noexcept nogil

    # The satisficing guides, of the child after play (else of the position).
    cdef int estimate(self, int guide) noexcept nogil       # how far from a win
    cdef int atoms(self, size_t* out) noexcept nogil        # novelty atoms, each below level.n_atoms
    cdef int pair_atoms(self, size_t* out) noexcept nogil   # ... each below level.n_pair_atoms
    # Those of the child's atoms (pair atoms) its parent may lack: at least
    # every one the parent has not; all of them where the rule set cannot tell.
    cdef int new_atoms(self, size_t* out) noexcept nogil
    cdef int new_pair_atoms(self, size_t* out) noexcept nogil

    # Views for the Python Simulation, with the GIL.
    cdef list objects(self)     # (tile, x, y, facing, hidden), creation order
    cdef list texts(self)       # (tile, x, y, hidden), load order
    cdef list rules(self)       # (left tile, right tile), as last read
    cdef str illegal_reason(self)


cdef class CoreLevel:
    """A level's fixed facts under one rule set."""
    cdef readonly int level_width, level_height
    cdef readonly str rules             # the rule set's name
    cdef readonly int n_actions         # WAIT is the last; 4 when waiting can never change anything
    cdef readonly size_t n_atoms
    cdef readonly size_t n_pair_atoms
    cdef readonly int max_atoms         # the most atoms (or pair atoms) of one position
    cdef Pool mem

    cdef Workspace workspace(self)
    cdef list take_grid(self, str name, object words, int width, int height, object grid)
