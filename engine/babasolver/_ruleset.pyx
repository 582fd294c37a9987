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

    cdef int swapped_actions(self, int arrived, int candidates) noexcept nogil:
        return 0

    cdef bint is_dead(self) noexcept nogil:
        return True

    cdef int estimate(self, int guide) noexcept nogil:
        return 0

    cdef int atoms(self, size_t* out) noexcept nogil:
        return 0

    cdef int pair_atoms(self, size_t* out) noexcept nogil:
        return 0

    cdef int new_atoms(self, size_t* out) noexcept nogil:
        return self.atoms(out)

    cdef int new_pair_atoms(self, size_t* out) noexcept nogil:
        return self.pair_atoms(out)

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

    cdef list take_grid(self, str name, object words, int width, int height, object grid):
        """A rule set's level begins here: the size, the tile ids and the
        property words checked (ValueError, in one line), the grid as a list."""
        from babasolver import tiles

        cdef Py_ssize_t n = len(grid)
        if width < 1 or height < 1 or n != width * height:
            raise ValueError(f"grid has {n} cells, expected {width}x{height}")
        cells = [int(t) for t in grid]
        for t in cells:
            if t < 0 or t >= tiles.N_TILES:
                raise ValueError(f"unknown tile id {t}")
        refuse_unknown_words(name, words, cells)
        self.level_width, self.level_height, self.rules = width, height, name
        return cells
