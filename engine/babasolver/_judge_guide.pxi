# What the satisficing searches ask of a judge's position: an estimate of
# how far it is from a win, and its novelty atoms. Included by _judge.pyx.

cdef enum:
    H_MAX = 0xFFFF
    H_NO_RULE = 24          # added when no noun with objects is YOU, or none is WIN


cdef inline int manhattan(const Geometry* geo, int a, int b) noexcept nogil:
    cdef int dx = a % geo.width - b % geo.width
    cdef int dy = a // geo.width - b // geo.width
    return (dx if dx >= 0 else -dx) + (dy if dy >= 0 else -dy)


cdef int rule_distance(const Geometry* geo, const Position* pos, uint16_t property,
                       const uint64_t* nouns) noexcept nogil:
    """How far the texts are from forming `N is P` for an object tile N in
    `nouns` and a property text P giving `property`: over every `is` text,
    the distance of such a property text to one side and a noun text to the
    other."""
    cdef int i, j, k, side, is_cell, best = H_MAX, near_noun, near_prop, d
    for i in range(geo.n_is):
        is_cell = pos.cell[geo.is_things[i]]
        for side in range(2):
            k = 1 if side == 0 else geo.width      # across, then down
            near_noun = near_prop = H_MAX
            for j in range(geo.n_base_objects, geo.n_base):
                if geo.prop_bits[pos.tile[j]] & property:
                    d = manhattan(geo, pos.cell[j], is_cell + k)
                    if d < near_prop:
                        near_prop = d
                elif is_noun_text(pos.tile[j]) and tile_in(nouns, NOUN_TARGET[pos.tile[j]]):
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
    far the texts are from a rule that makes one (GUIDE_RULES), plus a
    penalty."""
    cdef int i, j, d, best = H_MAX, h = 0
    cdef int n_you = lists.count[L_YOU], n_win = lists.count[L_WIN]
    cdef uint64_t alive_nouns[TILE_WORDS]
    if guide == GUIDE_BLIND or guide == GUIDE_PAIRS:
        return 0
    if n_you and n_win:
        for i in range(n_you):
            for j in range(n_win):
                d = manhattan(geo, pos.cell[lists.items[L_YOU][i]], pos.cell[lists.items[L_WIN][j]])
                if d < best:
                    best = d
        return best if best < H_MAX else H_MAX - 1
    memset(alive_nouns, 0, sizeof(alive_nouns))
    for i in range(geo.n_base_objects):
        if pos.alive[i]:
            tile_add(alive_nouns, pos.tile[i])
    for i in range(geo.n_base, pos.n_things):
        if pos.alive[i]:
            tile_add(alive_nouns, pos.tile[i])
    if not n_you:
        h += H_NO_RULE + min(rule_distance(geo, pos, P_YOU, alive_nouns), H_NO_RULE)
    if not n_win:
        h += H_NO_RULE + min(rule_distance(geo, pos, P_WIN, alive_nouns), H_NO_RULE)
    return h


cdef inline int thing_atom(const Geometry* geo, const Position* pos, int i, size_t* out) noexcept nogil:
    """Thing i's atom, if it has one, into out[0]: a text on its cell, or a
    live object's tile on its cell; how many (0 or 1)."""
    if geo.n_base_objects <= i < geo.n_base:
        out[0] = <size_t>(i - geo.n_base_objects) * geo.ncells + pos.cell[i]
        return 1
    if not pos.alive[i]:
        return 0
    out[0] = <size_t>geo.n_texts * geo.ncells + <size_t>geo.kind_of[pos.tile[i]] * geo.ncells + pos.cell[i]
    return 1


cdef inline int rule_atoms(const Geometry* geo, const Props* props, size_t* out) noexcept nogil:
    """Each rule in force's atom; how many."""
    cdef int i
    cdef size_t base = <size_t>(geo.n_texts + geo.n_kinds) * geo.ncells
    for i in range(props.n_rules):
        out[i] = (base + <size_t>geo.text_kind_of[props.rule_left[i]] * geo.n_text_kinds
                  + geo.text_kind_of[props.rule_right[i]])
    return props.n_rules


cdef int position_atoms(const Geometry* geo, const Position* pos, const Props* props,
                        size_t* out) noexcept nogil:
    """Each text on its cell, each object tile on a cell, each rule in force,
    numbered in that order (below JudgeLevel.n_atoms)."""
    cdef int i, n = 0
    for i in range(pos.n_things):
        n += thing_atom(geo, pos, i, out + n)
    return n + rule_atoms(geo, props, out + n)


cdef int position_new_atoms(const Geometry* geo, const Position* pos, const Position* parent,
                            const Props* props, size_t* out) noexcept nogil:
    """The atoms of `pos` its parent may lack: those of the things that
    moved, changed tile, came or went, and each rule's."""
    cdef int i, n = 0
    for i in range(pos.n_things):
        if (i < parent.n_things and pos.cell[i] == parent.cell[i] and pos.alive[i] == parent.alive[i]
                and pos.tile[i] == parent.tile[i]):
            continue
        n += thing_atom(geo, pos, i, out + n)
    return n + rule_atoms(geo, props, out + n)


cdef inline int first_you_cell(const Geometry* geo, const Position* pos, const Lists* lists) noexcept nogil:
    """The cell of the first YOU object, or ncells for none."""
    return pos.cell[lists.items[L_YOU][0]] if lists.count[L_YOU] else geo.ncells


cdef inline size_t pair_atom(const Geometry* geo, int you, int text, int cell) noexcept nogil:
    return (<size_t>you * geo.n_texts + text) * geo.ncells + cell


cdef int position_pair_atoms(const Geometry* geo, const Position* pos, const Lists* lists,
                             size_t* out) noexcept nogil:
    """(the first YOU object's cell or none, a text, its cell) per text: an
    IW(2) on those pairs (below JudgeLevel.n_pair_atoms)."""
    cdef int i
    cdef int you = first_you_cell(geo, pos, lists)
    for i in range(geo.n_texts):
        out[i] = pair_atom(geo, you, i, pos.cell[geo.n_base_objects + i])
    return geo.n_texts


cdef int position_new_pair_atoms(const Geometry* geo, const Position* pos, const Lists* lists,
                                 const Position* parent, const Lists* parent_lists,
                                 size_t* out) noexcept nogil:
    """The pair atoms of `pos` its parent may lack: every one when the
    first YOU object's cell changed, else those of the texts that moved."""
    cdef int i, n = 0
    cdef int you = first_you_cell(geo, pos, lists)
    if you != first_you_cell(geo, parent, parent_lists):
        return position_pair_atoms(geo, pos, lists, out)
    for i in range(geo.n_texts):
        if pos.cell[geo.n_base_objects + i] != parent.cell[geo.n_base_objects + i]:
            out[n] = pair_atom(geo, you, i, pos.cell[geo.n_base_objects + i])
            n += 1
    return n
