# The interface of a rule set (see _ruleset.pxd). The base classes do
# nothing: a level of no rule set cannot be made.
from libc.stdlib cimport calloc, free


def unknown_words(words, grid) -> list:
    """The property words of the texts in `grid` that are not in `words`."""
    from babasolver import tiles

    return sorted({tiles.WORDS[t] for t in set(grid)
                   if 0 <= t < tiles.N_TILES and tiles.IS_PROPERTY_TEXT[t] and tiles.WORDS[t] not in words})


def refuse_unknown_words(name, words, grid):
    """ValueError, in one line, when `grid` uses a property word the rule set
    `name` does not implement (`words`)."""
    unknown = unknown_words(words, grid)
    if unknown:
        raise ValueError(f"the {name} rules give no meaning to {', '.join(map(repr, unknown))} "
                         f"(they implement {', '.join(words)})")


cdef class Pool:
    def __cinit__(self):
        self.addresses = []

    cdef void* alloc(self, size_t count, size_t size) except NULL:
        if size and count > (<size_t>-1) // size:
            raise MemoryError(f"cannot allocate {count} x {size} bytes")
        cdef void* p = calloc(count if count else 1, size if size else 1)
        if p == NULL:
            raise MemoryError(f"could not allocate {count * size} bytes")
        self.addresses.append(<size_t>p)
        return p

    def __dealloc__(self):
        if self.addresses is not None:
            for address in self.addresses:
                free(<void*><size_t>address)


cdef class Workspace:
    def __cinit__(self, *args, **kwargs):
        self.max_record = 0
        self.incremental = True

    cdef void set_root(self) noexcept nogil:
        pass

    cdef int load(self, const uint8_t* record, int length, bint near) noexcept nogil:
        return -1

    cdef int play(self, int action) noexcept nogil:
        return TURN_ILLEGAL

    cdef void restore(self) noexcept nogil:
        pass

    cdef void adopt(self, int flags) noexcept nogil:
        pass

    cdef int pack(self, uint8_t* out) noexcept nogil:
        return 0

    cdef int pack_child(self, int flags, uint8_t* out) noexcept nogil:
        return 0

    cdef bint wait_is_idle(self) noexcept nogil:
        return True

    cdef bint is_dead(self) noexcept nogil:
        return True

    cdef int estimate(self, int guide) noexcept nogil:
        return 0

    cdef int atoms(self, size_t* out) noexcept nogil:
        return 0

    cdef int pair_atoms(self, size_t* out) noexcept nogil:
        return 0

    cdef list objects(self):
        return []

    cdef list texts(self):
        return []

    cdef list rules(self):
        return []

    cdef str illegal_reason(self):
        return ""


cdef class CoreLevel:
    def __cinit__(self, *args, **kwargs):
        self.mem = Pool()
        self.rules = ""

    def __init__(self, *args, **kwargs):
        if type(self) is CoreLevel:
            raise TypeError("CoreLevel is the interface of a rule set's levels: "
                            "make one with babasolver.rulesets.core_level")

    cdef Workspace workspace(self):
        raise TypeError("CoreLevel is an interface")
