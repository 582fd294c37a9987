# What the searches of _core.pyx share: the one checked allocation, the
# counters, and how a child of a stored state is told apart (the same for
# breadth-first, best-first and beam search, under any rule set).
from libc.stdint cimport uint8_t, uint16_t, uint32_t, uint64_t
from libc.stdlib cimport realloc

from babasolver._ruleset cimport Workspace, WAIT, TURN_CHANGED, TURN_WON, TURN_DEAD, TURN_ILLEGAL

ctypedef struct Queued:     # a state waiting in a best-first heap or a beam layer
    uint64_t key
    size_t state

ctypedef fused realloc_ptr:
    (uint8_t*)
    (uint16_t*)
    (uint32_t*)
    (uint64_t*)
    (size_t*)
    (Queued*)
    (uint8_t**)
    (uint32_t**)
    (uint64_t**)


cdef inline int safe_realloc(realloc_ptr* p, size_t nelems) except -1 nogil:
    """Grow or make `*p` to hold `nelems` elements; MemoryError (never a
    null pointer) when the size overflows or the memory is not there."""
    cdef size_t size = sizeof(p[0][0])
    cdef size_t nbytes = nelems * size
    cdef realloc_ptr grown
    if nelems and nbytes // nelems != size:
        with gil:
            raise MemoryError(f"could not allocate {nelems} elements of {size} bytes")
    grown = <realloc_ptr>realloc(p[0], nbytes if nbytes else 1)
    if grown == NULL:
        with gil:
            raise MemoryError(f"could not allocate {nbytes} bytes")
    p[0] = grown
    return 0


ctypedef struct Counters:
    uint64_t generated      # turns played
    uint64_t expanded       # states whose turns were played
    uint64_t dead_ends      # children with nothing left to move
    uint64_t illegal        # turns the rule set cannot play


cdef enum Child:
    CHILD_NONE = 0          # nothing to store: illegal, dead, or the parent again
    CHILD_NEW = 1           # a position to pack and store
    CHILD_WON = 2


cdef inline bint skips_wait(Workspace work, int action, size_t index) noexcept nogil:
    """Waiting is the last action, and is played only where it can change
    something (always from the root, whose flags are not known)."""
    return action == WAIT and index != 0 and work.wait_is_idle()


cdef inline int play_child(Workspace work, int action, Counters* counts, int* turn_flags) noexcept nogil:
    """Play `action` from the loaded parent and say what the child is (the
    turn's flags go to `turn_flags`, for pack_child). The caller packs or
    scores a new child, then restores the parent."""
    cdef int flags = work.play(action)
    turn_flags[0] = flags
    counts.generated += 1
    if flags & TURN_ILLEGAL:
        counts.illegal += 1
        return CHILD_NONE
    if flags & TURN_WON:
        return CHILD_WON
    if not flags & TURN_CHANGED:
        return CHILD_NONE
    if flags & TURN_DEAD:
        counts.dead_ends += 1
        return CHILD_NONE
    return CHILD_NEW
