# The judge's turn (RULES.md): one turn of the Keke competition's reference
# simulator, quirks included, on a Position. Included by _judge.pyx.

# ------------------------------------------------------------ undo log --
# Every change to a position goes through these setters, which log what
# they overwrite so the expander can put the parent back. Once a turn has
# rewritten layers (a rule reading or destruction) the log is abandoned and
# the parent is copied back whole.

cdef enum:
    UNDO_MOVE = 0           # a thing moved one cell: its cell, facing and both slots
    UNDO_FACING = 1


cdef inline Change* log_change(UndoLog* log, uint8_t kind, int32_t thing, int32_t before) noexcept nogil:
    """The next entry, or NULL when the log is abandoned (a full log is)."""
    cdef int n = log.n
    cdef Change* change
    if n < 0:
        return NULL             # abandoned: the parent is restored whole
    if n == log.capacity:
        log.n = -1
        return NULL
    change = &log.changes[n]
    change.kind = kind
    change.thing = thing
    change.before = before
    log.n = n + 1
    return change


cdef inline bint is_text(const Geometry* geo, int thing) noexcept nogil:
    return geo.n_base_objects <= thing < geo.n_base


cdef inline void set_facing(Position* pos, UndoLog* log, int thing, int facing) noexcept nogil:
    if pos.facing[thing] != facing:
        log_change(log, UNDO_FACING, thing, pos.facing[thing])
        pos.facing[thing] = <uint8_t>facing


cdef inline void undo(Position* pos, const UndoLog* log) noexcept nogil:
    cdef int i, target
    cdef const Change* change
    for i in range(log.n - 1, -1, -1):
        change = &log.changes[i]
        if change.kind == UNDO_MOVE:
            target = pos.cell[change.thing]
            pos.facing[change.thing] = change.facing
            pos.slot[target] = change.slot_to
            pos.cell[change.thing] = <uint16_t>change.before
            pos.slot[change.before] = change.slot_from
        else:
            pos.facing[change.thing] = <uint8_t>change.before


cdef inline void forget_moves(Turn* turn, UndoLog* log) noexcept nogil:
    """Clear the moved marks and the log a turn left (the position stays)."""
    cdef int i
    for i in range(turn.n_moved):
        turn.moved[turn.moved_list[i]] = 0
    turn.n_moved = 0
    log.n = 0


cdef inline int changed_thing(const Change* change, int k) noexcept nogil:
    """The things a logged change may have changed the value of, k = 0, 1,
    2: a mover and the holders its two slots lost, or a thing that turned;
    -1 for none. (Slots change unlogged only in relayering and destruction,
    which abandon the log.)"""
    if change.kind == UNDO_MOVE:
        if k == 0:
            return change.thing
        if k == 1:
            return change.slot_from if change.slot_from != change.thing else -1
        return change.slot_to
    return change.thing if k == 0 else -1


# ---------------------------------------------------------- shortcuts --

cdef inline bint shortcut_due(int* misses) noexcept nogil:
    """Whether to try a shortcut that gives up where it does not apply (a
    plain turn, a patched record), given how many tries failed in a row.
    Where it fails at nearly every try (on full_biy 173, 99.5% of patches,
    and 85% of plain turns), each failure is work thrown away: after
    SHORTCUT_PATIENCE failures in a row it is left alone, and tried again
    only at SHORTCUT_RETRY. Either way gives the same result."""
    if misses[0] < SHORTCUT_PATIENCE:
        return True
    if misses[0] < SHORTCUT_RETRY:
        misses[0] += 1
        return False
    misses[0] = SHORTCUT_PATIENCE - 1        # one more failure and it waits again
    return True


# ------------------------------------------------------------- rules --

cdef inline int live_objects(const Geometry* geo, const Position* pos, int* out) noexcept nogil:
    """The objects in play, in creation order (map objects, then created)."""
    cdef int i, n = 0
    for i in range(geo.n_base_objects):
        if pos.alive[i]:
            out[n] = i
            n += 1
    for i in range(geo.n_base, pos.n_things):
        if pos.alive[i]:
            out[n] = i
            n += 1
    return n


cdef inline int opposite(int facing) noexcept nogil:
    # 1 up <-> 2 down, 3 left <-> 4 right
    return facing + 1 if facing & 1 else facing - 1


cdef inline bint is_noun_text(int tile) noexcept nogil:
    return TILE_KIND[tile] == KIND_NOUN_TEXT


cdef inline bint tile_in(const uint64_t* tile_set, int tile) noexcept nogil:
    return (tile_set[tile >> 6] >> (tile & 63)) & 1


cdef inline void tile_add(uint64_t* tile_set, int tile) noexcept nogil:
    tile_set[tile >> 6] |= (<uint64_t>1) << (tile & 63)


cdef void scan_rules(const Geometry* geo, const Position* pos, Props* props) noexcept nogil:
    """Step 1 of a rule reading: the `is` texts in load order, each with its
    left/right, then its up/down neighbours' slots."""
    cdef int i, k, j, cell, a, b, left, right
    cdef bint known
    props.n_rules = 0
    for i in range(geo.n_is):
        cell = pos.cell[geo.is_things[i]]
        for k in range(2):
            if k == 0:
                a = pos.slot[cell - 1]
                b = pos.slot[cell + 1]
            else:
                a = pos.slot[cell - geo.width]
                b = pos.slot[cell + geo.width]
            if a < 0 or b < 0 or not is_text(geo, a) or not is_text(geo, b):
                continue
            left = pos.tile[a]
            right = pos.tile[b]
            known = False
            for j in range(props.n_rules):
                if props.rule_left[j] == left and props.rule_right[j] == right:
                    known = True
                    break
            if not known and props.n_rules < MAX_RULES:
                props.rule_left[props.n_rules] = <uint16_t>left
                props.rule_right[props.n_rules] = <uint16_t>right
                props.n_rules += 1


# The properties that put a noun's objects in each list.
cdef uint16_t LIST_BITS[N_LISTS]
LIST_BITS[:] = [P_YOU, P_MOVE, P_WIN, P_KILL | P_SINK, P_SINK, P_HOT, P_MELT]


cdef void derive_props(const Geometry* geo, Props* props) noexcept nogil:
    """Step 3's nouns: each property's nouns in rule order."""
    cdef int r, noun, which
    cdef uint16_t bits
    memset(props.noun_props, 0, sizeof(props.noun_props))
    memset(props.kill_mult, 0, sizeof(props.kill_mult))
    memset(props.n_nouns, 0, sizeof(props.n_nouns))
    for r in range(props.n_rules):
        bits = geo.prop_bits[props.rule_right[r]]
        if not bits or not is_noun_text(props.rule_left[r]):
            continue
        noun = NOUN_TARGET[props.rule_left[r]]
        props.noun_props[noun] |= bits
        if bits & (P_KILL | P_SINK):
            props.kill_mult[noun] += 1
        for which in range(N_LISTS):
            if bits & LIST_BITS[which]:
                props.nouns[which][props.n_nouns[which]] = <uint16_t>noun
                props.n_nouns[which] += 1


cdef void build_lists(const Geometry* geo, const Position* pos, const Props* props,
                      Lists* lists) noexcept nogil:
    cdef int which, j, noun, i, n
    cdef int* items
    for which in range(N_LISTS):
        n = 0
        items = lists.items[which]
        for j in range(props.n_nouns[which]):
            noun = props.nouns[which][j]
            for i in range(geo.noun_start[noun], geo.noun_start[noun + 1]):
                if pos.alive[geo.noun_objects[i]]:
                    items[n] = geo.noun_objects[i]
                    n += 1
            for i in range(geo.n_base, pos.n_things):
                if pos.alive[i] and pos.tile[i] == noun:
                    items[n] = i
                    n += 1
        lists.count[which] = n


# ------------------------------------------------------ cell markers --
# A per-cell array of stamps tells which cells an epoch has marked, so a
# mark costs no clearing; chains of things by cell hang off such stamps.

cdef inline int32_t advance_epoch(int32_t* epoch, int32_t* stamps, int ncells) noexcept nogil:
    """A new marker for `stamps`. Long searches play billions of turns:
    before the counter would wrap, the stamps are cleared, so an old stamp
    never matches."""
    if epoch[0] == INT32_MAX:
        memset(stamps, 0, ncells * sizeof(int32_t))
        epoch[0] = 0
    epoch[0] += 1
    return epoch[0]


cdef inline void push_on_chain(int32_t* stamp, int32_t* head, int* next, int32_t epoch,
                               int cell, int item) noexcept nogil:
    """Put `item` first on the chain of `cell` (a cell stamped in another
    epoch has no chain yet)."""
    if stamp[cell] != epoch:
        stamp[cell] = epoch
        head[cell] = -1
    next[item] = head[cell]
    head[cell] = item


cdef inline int32_t next_epoch(const Geometry* geo, Turn* turn) noexcept nogil:
    """A new marker for turn.stamp."""
    return advance_epoch(&turn.epoch, turn.stamp, geo.ncells)


cdef inline void reslotted(Turn* turn, int thing) noexcept nogil:
    """Note a thing whose slot or facing a reading changed, for the child's
    record (see JudgeWorkspace.patchable_reading)."""
    if thing < 0 or turn.n_reslotted < 0:
        return
    if turn.n_reslotted == TOUCHED_LIMIT:
        turn.n_reslotted = -1
        return
    turn.reslotted[turn.n_reslotted] = thing
    turn.n_reslotted += 1


cdef inline void take_slot(const Geometry* geo, Position* pos, Turn* turn, int cell,
                           int32_t thing) noexcept nogil:
    """set_slot once the log is abandoned: nothing to log, the two holders noted."""
    cdef int32_t before = pos.slot[cell]
    if before != thing:
        if (before >= 0 and is_text(geo, before)) or (thing >= 0 and is_text(geo, thing)):
            turn.text_slots_changed = True
        reslotted(turn, before)
        reslotted(turn, thing)
        pos.slot[cell] = thing


cdef inline void layer_object(const Geometry* geo, Position* pos, Turn* turn, const Props* props,
                              int thing) noexcept nogil:
    """An object in play takes its cell's slot, or empties it if not in the layer."""
    if pos.alive[thing]:
        take_slot(geo, pos, turn, pos.cell[thing],
                  thing if props.noun_props[pos.tile[thing]] & P_LAYER else NO_THING)


cdef void relayer(const Geometry* geo, Position* pos, Turn* turn, const Props* props) noexcept nogil:
    """Step 4: objects in creation order (map objects, then created ones)
    take or empty their cell's slot, then every text takes its slot. Only
    a rule reading or destruction relayers, and both abandon the log first."""
    cdef int i
    for i in range(geo.n_base_objects):
        layer_object(geo, pos, turn, props, i)
    for i in range(geo.n_base, pos.n_things):
        layer_object(geo, pos, turn, props, i)
    for i in range(geo.n_base_objects, geo.n_base):
        take_slot(geo, pos, turn, pos.cell[i], i)


cdef void filter_lists(const Position* pos, const Lists* src, Lists* lists) noexcept nogil:
    """The lists of `src` less the objects that left play since (it may be
    `lists`): what build_lists makes when the rules are those `src` was
    built under and no object was made since."""
    cdef int which, i, n, thing
    cdef int* items
    for which in range(N_LISTS):
        n = 0
        items = lists.items[which]
        for i in range(src.count[which]):
            thing = src.items[which][i]
            items[n] = thing            # kept only if in play: no branch to mispredict
            n += pos.alive[thing]
        lists.count[which] = n


cdef void reset_all(const Geometry* geo, Position* pos, UndoLog* log, Turn* turn,
                    const Props* props, Lists* lists, const Lists* kept) noexcept nogil:
    """Steps 3 and 4 of a rule reading: lists, MOVE facings, layers.
    `kept`: lists built under these rules before objects only left play
    (destruction, or a reading that found the rules in force), filtered
    rather than built again; NULL to build them. When no object left play
    this turn, `kept` are the lists as they stand: `lists` is left alone and
    turn.lists_kept says so."""
    cdef int i
    turn.lists_kept = kept != NULL and turn.n_died == 0
    if turn.lists_kept:
        lists = <Lists*>kept
    elif kept != NULL:
        filter_lists(pos, kept, lists)
    else:
        build_lists(geo, pos, props, lists)
    for i in range(lists.count[L_MOVE]):
        if pos.facing[lists.items[L_MOVE][i]] == 0:
            set_facing(pos, log, lists.items[L_MOVE][i], 4)
            reslotted(turn, lists.items[L_MOVE][i])
    relayer(geo, pos, turn, props)
    turn.relayered = True


cdef bint transform(const Geometry* geo, Position* pos, UndoLog* log, Turn* turn,
                    const Props* props) noexcept nogil:
    """Step 2: `A is B` turns A's objects into new B objects, rule by rule.
    Returns whether any object was made."""
    cdef uint64_t protected[TILE_WORDS]
    cdef int r, left, right, i, n, noun, target, made = 0
    cdef int* objects = turn.snapshot
    memset(protected, 0, sizeof(protected))
    for r in range(props.n_rules):
        left = props.rule_left[r]
        if left == props.rule_right[r] and is_noun_text(left) and tile_in(pos.ever, NOUN_TARGET[left]):
            tile_add(protected, NOUN_TARGET[left])
    for r in range(props.n_rules):
        left = props.rule_left[r]
        right = props.rule_right[r]
        if not (is_noun_text(left) and is_noun_text(right)):
            continue
        noun = NOUN_TARGET[left]
        if tile_in(protected, noun):
            continue
        target = NOUN_TARGET[right]
        n = 0
        for i in range(live_objects(geo, pos, turn.snapshot3)):
            if pos.tile[turn.snapshot3[i]] == noun:
                objects[n] = turn.snapshot3[i]
                n += 1
        for i in range(n):
            if pos.n_things == geo.capacity:
                return made != 0     # unreachable: capacity covers a reading
            made += 1
            pos.tile[pos.n_things] = <uint16_t>target
            pos.cell[pos.n_things] = pos.cell[objects[i]]
            pos.facing[pos.n_things] = 0
            pos.alive[pos.n_things] = 1
            pos.alive[objects[i]] = 0
            if pos.slot[pos.cell[objects[i]]] == objects[i]:
                pos.slot[pos.cell[objects[i]]] = pos.n_things
            tile_add(pos.ever, target)
            pos.n_things += 1
    return made != 0


cdef void compact_created(const Geometry* geo, Position* pos) noexcept nogil:
    """Drop the created objects that left play, keeping creation order."""
    cdef int i, kept = geo.n_base
    for i in range(geo.n_base, pos.n_things):
        if not pos.alive[i]:
            continue
        if i != kept:
            pos.tile[kept] = pos.tile[i]
            pos.cell[kept] = pos.cell[i]
            pos.facing[kept] = pos.facing[i]
            pos.alive[kept] = 1
            if pos.slot[pos.cell[i]] == i:
                pos.slot[pos.cell[i]] = kept
        kept += 1
    pos.n_things = kept


cdef void read_rules(const Geometry* geo, Position* pos, UndoLog* log, Turn* turn,
                     Props* props, Lists* lists, int readings, const Props* before,
                     const Lists* before_lists) noexcept nogil:
    """`readings` full rule readings (scan, transformations, properties,
    layers). Each scan sees the layers the reading before it left, so texts
    it made visible count. Once a reading finds the rules it found before
    and transforms nothing, the rest would repeat it exactly. Sets
    turn.rules_settled when a scan of the slots it leaves would find `props`
    again: its last scan came after the layers were last set, or their
    setting moved no text's slot. `before` and `before_lists`: the rules in
    force and their lists (NULL at load), whose lists a reading that finds
    the same rules and makes nothing only filters."""
    cdef int k, n_before = -1
    cdef bint made = True, texts_before
    cdef const Lists* kept
    cdef uint16_t left_before[MAX_RULES]
    cdef uint16_t right_before[MAX_RULES]
    turn.log_kept = log.n       # the moves before it stay in the log, for the child's record
    log.n = -1                  # layers get rewritten: restore the parent whole
    turn.rules_settled = True
    for k in range(readings):
        scan_rules(geo, pos, props)
        if (not made and props.n_rules == n_before
                and memcmp(props.rule_left, left_before, n_before * sizeof(uint16_t)) == 0
                and memcmp(props.rule_right, right_before, n_before * sizeof(uint16_t)) == 0):
            turn.rules_settled = True
            break
        derive_props(geo, props)
        made = transform(geo, pos, log, turn, props)
        if made:
            turn.made = True
            compact_created(geo, pos)
        texts_before = turn.text_slots_changed
        turn.text_slots_changed = False
        kept = before_lists if before_lists != NULL and not turn.made and same_rules(props, before) else NULL
        reset_all(geo, pos, log, turn, props, lists, kept)
        if kept == NULL and before_lists == lists:
            before_lists = NULL     # written over with other rules' lists
        turn.rules_settled = not turn.text_slots_changed
        turn.text_slots_changed = turn.text_slots_changed or texts_before
        if not made and turn.rules_settled:
            break       # a scan reads only texts' slots, which this reading left: the same rules
        n_before = props.n_rules
        memcpy(left_before, props.rule_left, n_before * sizeof(uint16_t))
        memcpy(right_before, props.rule_right, n_before * sizeof(uint16_t))


# -------------------------------------------------------------- a turn --

cdef inline bint move_thing(const Geometry* geo, Position* pos, UndoLog* log, Turn* turn,
                            const Props* props, int thing, int direction) noexcept nogil:
    """Moving one thing one cell (RULES.md), pushing what is in the way.
    Most moves are blocked at once or go into an empty slot, and a YOU
    object is often blocked by another (a row of walls that are YOU, say):
    those are decided here; only other things in the way are left to
    push_into."""
    cdef int cell, target
    cdef int32_t slot_from, slot_to, other
    cdef Change* change
    cdef bint is_object = not is_text(geo, thing)
    if turn.moved[thing]:
        return False
    if is_object and not (props.noun_props[pos.tile[thing]] & P_MOBILE):
        return False
    cell = pos.cell[thing]
    target = cell + geo.delta[direction]
    if geo.border[target]:
        return False
    other = pos.slot[target]
    if other >= 0:
        if (is_object and not is_text(geo, other) and props.noun_props[pos.tile[thing]] & P_YOU
                and (props.noun_props[pos.tile[other]] & (P_STOP | P_PUSH | P_YOU)) == P_YOU):
            return False
        if not push_into(geo, pos, log, turn, props, thing, is_object, other, direction):
            return False
    slot_from = pos.slot[cell]
    slot_to = pos.slot[target]
    change = log_change(log, UNDO_MOVE, thing, cell)
    if change != NULL:
        change.facing = pos.facing[thing]
        change.slot_from = slot_from
        change.slot_to = slot_to
    if ((slot_from >= 0 and is_text(geo, slot_from)) or (slot_to >= 0 and is_text(geo, slot_to))
            or not is_object):
        turn.text_slots_changed = True
    pos.slot[cell] = NO_THING
    pos.cell[thing] = <uint16_t>target
    pos.slot[target] = thing
    if is_object:
        pos.facing[thing] = <uint8_t>(direction + 1)
    else:
        turn.texts_moved += 1
    turn.moved[thing] = 1
    turn.moved_list[turn.n_moved] = thing
    turn.n_moved += 1
    return True


cdef bint push_into(const Geometry* geo, Position* pos, UndoLog* log, Turn* turn,
                    const Props* props, int thing, bint is_object, int other,
                    int direction) noexcept nogil:
    """Whether `thing` may go on into the cell `other` holds: a text or a
    PUSH object there must move first, STOP and MOVE objects block, and
    YOU objects block YOU objects."""
    cdef uint16_t here
    if is_text(geo, other):
        return move_thing(geo, pos, log, turn, props, other, direction)
    here = props.noun_props[pos.tile[other]]
    if here & P_STOP:
        return False
    if here & P_PUSH:
        return move_thing(geo, pos, log, turn, props, other, direction)
    if here & P_YOU:
        return not (is_object and props.noun_props[pos.tile[thing]] & P_YOU)
    return not here & P_MOVE


cdef inline bint pair_names_twice(Turn* turn, int n_pairs) noexcept nogil:
    """Whether a check's pairs name one object more than once (the judge
    then removes the wrong object)."""
    cdef int i
    cdef bint twice = False
    for i in range(n_pairs):
        turn.seen[turn.pair_a[i]] += 1
        turn.seen[turn.pair_b[i]] += 1
    for i in range(n_pairs):
        if turn.seen[turn.pair_a[i]] > 1 or turn.seen[turn.pair_b[i]] > 1:
            twice = True
    for i in range(n_pairs):
        turn.seen[turn.pair_a[i]] = 0
        turn.seen[turn.pair_b[i]] = 0
    return twice


cdef void destroy_pairs(const Geometry* geo, Position* pos, UndoLog* log, Turn* turn,
                        const Props* props, const Lists* before, Lists* lists, int n_pairs) noexcept nogil:
    """Destroy the pairs and reset: the rules are those `before` was built
    under, so its lists less the destroyed are the new lists."""
    cdef int i
    log.n = -1
    for i in range(n_pairs):
        pos.alive[turn.pair_a[i]] = 0
        pos.alive[turn.pair_b[i]] = 0
        pos.slot[pos.cell[turn.pair_a[i]]] = NO_THING
    reset_all(geo, pos, log, turn, props, lists, before)


cdef inline int pairs_by_cell(const Geometry* geo, const Position* pos, Turn* turn, const int* a, int n_a,
                              const int* b, int n_b, bint distinct) noexcept nogil:
    """Every (x in a, y in b) on one cell (x != y when `distinct`). The
    members of b are chained by cell first, so each x meets only those on
    its own cell."""
    cdef int i, j, cell, n = 0
    next_epoch(geo, turn)
    for j in range(n_b):
        push_on_chain(turn.stamp, turn.chain_head, turn.chain_next, turn.epoch, pos.cell[b[j]], j)
    for i in range(n_a):
        cell = pos.cell[a[i]]
        if turn.stamp[cell] != turn.epoch:
            continue
        j = turn.chain_head[cell]
        while j >= 0:
            if not (distinct and a[i] == b[j]):
                if n == turn.max_pairs:
                    return n        # more pairs than objects: one repeats, the turn is illegal
                turn.pair_a[n] = a[i]
                turn.pair_b[n] = b[j]
                n += 1
            j = turn.chain_next[j]
    return n


cdef enum:
    CHECK_KILL = 0
    CHECK_SINK = 1
    CHECK_HOT = 2
    KILL_SCAN_LIMIT = 32    # YOU and KILL objects that check_step looks at for the KILL check alone


cdef void chain_moved(const Geometry* geo, const Position* pos, Turn* turn) noexcept nogil:
    """Chain the objects that moved this turn by the cell they are on, in
    the order they moved, for objects_on."""
    cdef int k, thing
    cdef int32_t epoch = advance_epoch(&turn.moved_epoch, turn.moved_stamp, geo.ncells)
    for k in range(turn.n_moved - 1, -1, -1):
        thing = turn.moved_list[k]
        if not is_text(geo, thing):
            push_on_chain(turn.moved_stamp, turn.moved_head, turn.moved_next, epoch, pos.cell[thing], k)


cdef int objects_on(const Geometry* geo, const Position* pos, const Turn* turn, int cell,
                    int* out) noexcept nogil:
    """The objects on `cell` that were in play when the step began: those
    the parent had there and have not moved, then those that moved there
    (chained by chain_moved)."""
    cdef int j, k, thing, n = 0
    if turn.parent_stamp[cell] == turn.parent_epoch:
        j = turn.parent_head[cell]
        while j >= 0:
            if pos.cell[j] == cell and (pos.alive[j] or turn.died[j] == turn.step):
                out[n] = j
                n += 1
            j = turn.parent_next[j]
    if turn.moved_stamp[cell] == turn.moved_epoch:
        k = turn.moved_head[cell]
        while k >= 0:
            thing = turn.moved_list[k]
            if pos.alive[thing] or turn.died[thing] == turn.step:
                out[n] = thing
                n += 1
            k = turn.moved_next[k]
    return n


cdef inline bint add_pair(Turn* turn, int* n, int a, int b) noexcept nogil:
    if n[0] == turn.max_pairs:
        return False        # more pairs than objects: one repeats, the turn is illegal
    turn.pair_a[n[0]] = a
    turn.pair_b[n[0]] = b
    n[0] += 1
    return True


cdef inline int next_step_cell(const Geometry* geo, const Position* pos, Turn* turn, int* i) noexcept nogil:
    """The next cell, from moved_list[i] on, that an object moved onto this
    step and the current epoch has not marked (it is marked now); -1 when
    there is none."""
    cdef int thing, cell
    while i[0] < turn.n_moved:
        thing = turn.moved_list[i[0]]
        i[0] += 1
        if is_text(geo, thing):
            continue
        cell = pos.cell[thing]
        if turn.stamp[cell] != turn.epoch:
            turn.stamp[cell] = turn.epoch
            return cell
    return -1


cdef int pairs_near_moves(const Geometry* geo, const Position* pos, Turn* turn, const Props* props,
                          int check, int step_start) noexcept nogil:
    """A check's pairs when the step began with none standing: every pair
    then has an object that moved this step, so only those cells are looked
    at (the moves chained by chain_moved)."""
    cdef int i = step_start, j, a, b, k, r, cell, n_here, n = 0
    cdef int* here = turn.snapshot3
    cdef uint16_t pa, pb
    next_epoch(geo, turn)
    cell = next_step_cell(geo, pos, turn, &i)
    while cell >= 0:
        n_here = objects_on(geo, pos, turn, cell, here)
        for j in range(n_here):
            a = here[j]
            if not pos.alive[a]:
                continue
            pa = props.noun_props[pos.tile[a]]
            if check == CHECK_KILL and not pa & P_YOU:
                continue
            if check == CHECK_HOT and not pa & P_HOT:
                continue
            for k in range(n_here):
                b = here[k]
                pb = props.noun_props[pos.tile[b]]
                if check == CHECK_KILL:
                    if pos.alive[b]:
                        for r in range(props.kill_mult[pos.tile[b]]):
                            if not add_pair(turn, &n, a, b):
                                return n
                elif check == CHECK_SINK:
                    if b != a and pb & P_SINK:
                        if not add_pair(turn, &n, a, b):
                            return n
                elif pos.alive[b] and pb & P_MELT:
                    if not add_pair(turn, &n, a, b):
                        return n
        cell = next_step_cell(geo, pos, turn, &i)
    return n


cdef bint pairs_near_moves_possible(const Geometry* geo, const Position* pos, Turn* turn,
                                    const Props* props, int step_start,
                                    bint kill, bint sink, bint hot) noexcept nogil:
    """Whether any check that can pair (`kill`, `sink`, `hot`) could find a
    pair on a cell where an object moved this step (see pairs_near_moves):
    one look at each such cell for all three checks, as a pair is rare and
    each check alone would look again."""
    cdef int i = step_start, j, k, a, b, cell, n_here
    cdef int* here = turn.snapshot3
    cdef uint16_t pa, pb
    next_epoch(geo, turn)
    cell = next_step_cell(geo, pos, turn, &i)
    while cell >= 0:
        n_here = objects_on(geo, pos, turn, cell, here)
        for j in range(n_here):
            a = here[j]
            if not pos.alive[a]:
                continue
            pa = props.noun_props[pos.tile[a]]
            for k in range(n_here):
                b = here[k]
                pb = props.noun_props[pos.tile[b]]
                if kill and pa & P_YOU and pos.alive[b] and props.kill_mult[pos.tile[b]]:
                    return True
                if sink and b != a and pb & P_SINK:
                    return True
                if hot and pa & P_HOT and pos.alive[b] and pb & P_MELT:
                    return True
        cell = next_step_cell(geo, pos, turn, &i)
    return False


cdef inline uint16_t pair_roles(const Props* props, int tile) noexcept nogil:
    """What an object of `tile` can be in a check's pair: YOU, SINK, HOT and
    MELT as they are, and P_KILL for a noun in the KILL list."""
    return ((props.noun_props[tile] & (P_YOU | P_SINK | P_HOT | P_MELT))
            | (P_KILL if props.kill_mult[tile] else 0))


cdef inline bint could_pair_on(const Position* pos, const Turn* turn, const Props* props, int cell,
                               uint16_t roles, int n, bint kill, bint sink, bint hot) noexcept nogil:
    """Whether `n` objects of `roles` on `cell`, with the objects the parent
    had there, hold the roles of a pair that a check which can pair (`kill`,
    `sink`, `hot`) looks for: YOU and KILL, HOT and MELT, or SINK and
    another object."""
    cdef int j
    if turn.parent_stamp[cell] == turn.parent_epoch:
        j = turn.parent_head[cell]
        while j >= 0:
            roles |= pair_roles(props, pos.tile[j])
            n += 1
            j = turn.parent_next[j]
    return ((kill and roles & P_YOU and roles & P_KILL) or (hot and roles & P_HOT and roles & P_MELT)
            or (sink and roles & P_SINK and n > 1))


cdef bint roles_could_pair(const Geometry* geo, const Position* pos, Turn* turn, const Props* props,
                           int step_start, bint kill, bint sink, bint hot) noexcept nogil:
    """Whether some cell an object moved onto this step holds the roles of
    a pair (see pairs_near_moves): YOU and KILL, HOT and MELT, or SINK and
    another object. The roles counted are a superset of those there: of the
    parent's objects on the cell (some may have left) and of every object
    that moved there this turn. When none does, no check can pair, and
    nothing need be chained or gathered."""
    cdef int k, thing, cell
    cdef int32_t epoch = next_epoch(geo, turn)
    for k in range(turn.n_moved):
        thing = turn.moved_list[k]
        if is_text(geo, thing):
            continue
        cell = pos.cell[thing]
        if turn.stamp[cell] != epoch:
            turn.stamp[cell] = epoch
            turn.roles_at[cell] = 0
            turn.movers_at[cell] = 0
        turn.roles_at[cell] |= pair_roles(props, pos.tile[thing])
        turn.movers_at[cell] += 1
    for k in range(step_start, turn.n_moved):
        thing = turn.moved_list[k]
        if is_text(geo, thing):
            continue
        cell = pos.cell[thing]
        if could_pair_on(pos, turn, props, cell, turn.roles_at[cell], turn.movers_at[cell], kill, sink, hot):
            return True
    return False


cdef inline bint check_can_pair(const Turn* turn, const Lists* now, int check) noexcept nogil:
    if check == CHECK_KILL:
        return now.count[L_YOU] and now.count[L_KILL]
    if check == CHECK_SINK:
        return turn.n_sink != 0
    return now.count[L_HOT] and now.count[L_MELT]


cdef int pairs_everywhere(const Geometry* geo, const Position* pos, Turn* turn,
                          const Lists* now, int check) noexcept nogil:
    """A check's pairs from its whole lists (the SINK list as the step began)."""
    cdef int n_live
    if not check_can_pair(turn, now, check):
        return 0
    if check == CHECK_KILL:
        return pairs_by_cell(geo, pos, turn, now.items[L_YOU], now.count[L_YOU],
                             now.items[L_KILL], now.count[L_KILL], False)
    if check == CHECK_SINK:
        n_live = live_objects(geo, pos, turn.snapshot3)
        return pairs_by_cell(geo, pos, turn, turn.snapshot3, n_live, turn.snapshot2, turn.n_sink, True)
    return pairs_by_cell(geo, pos, turn, now.items[L_HOT], now.count[L_HOT],
                         now.items[L_MELT], now.count[L_MELT], False)


cdef bint settle(const Geometry* geo, Position* pos, UndoLog* log, Turn* turn,
                 const Props* props, Lists** lists, int check, int n) noexcept nogil:
    """Destroy a check's pairs, or say the judge cannot (turn.illegal)."""
    cdef int i
    cdef const Lists* before
    if not n:
        return True
    if check == CHECK_SINK:
        for i in range(n):
            if not pos.alive[turn.pair_b[i]]:
                turn.illegal = ILLEGAL_SINK_GONE
                turn.illegal_thing = turn.pair_b[i]
                return False
    if pair_names_twice(turn, n):
        turn.illegal = ILLEGAL_KILL if check == CHECK_KILL else (
            ILLEGAL_SINK if check == CHECK_SINK else ILLEGAL_HOT)
        turn.illegal_thing = turn.pair_b[0] if check == CHECK_SINK else turn.pair_a[0]
        return False
    for i in range(n):
        turn.died[turn.pair_a[i]] = turn.step
        turn.died[turn.pair_b[i]] = turn.step
        turn.died_list[turn.n_died] = turn.pair_a[i]
        turn.died_list[turn.n_died + 1] = turn.pair_b[i]
        turn.n_died += 2
    before = lists[0]
    lists[0] = &turn.lists
    destroy_pairs(geo, pos, log, turn, props, before, lists[0], n)
    return True


cdef inline bint destruction(const Geometry* geo, Position* pos, UndoLog* log, Turn* turn,
                             const Props* props, Lists** lists, int step_start) noexcept nogil:
    """The three checks after a step (KILL, SINK, HOT/MELT), each destroying
    what it finds before the next looks. Returns False when the judge cannot
    play them (turn.illegal says which). A step that moved nothing, where
    nothing stood due, is passed over here, without a call."""
    turn.step += 1
    turn.n_sink = lists[0].count[L_SINK]
    if turn.fast and turn.n_moved == step_start:
        return True
    return check_step(geo, pos, log, turn, props, lists, step_start)


cdef bint check_step(const Geometry* geo, Position* pos, UndoLog* log, Turn* turn,
                     const Props* props, Lists** lists, int step_start) noexcept nogil:
    """destruction's checks, once something moved or a pair stands due.
    When only the KILL check can pair and its lists are short, whether a
    YOU object shares a cell with a KILL object (lists_overlap: else the
    check pairs nothing anywhere) is cheaper to ask than summing the roles
    on every cell something moved onto (roles_could_pair): on full_biy
    173, fifteen MOVE and KILL kekes move every turn and the YOU list
    holds one baba."""
    cdef int check, n
    cdef bint kill, sink, hot
    if not turn.fast:
        memcpy(turn.snapshot2, lists[0].items[L_SINK], turn.n_sink * sizeof(int))
    if turn.fast:
        kill = check_can_pair(turn, lists[0], CHECK_KILL)
        sink = check_can_pair(turn, lists[0], CHECK_SINK)
        hot = check_can_pair(turn, lists[0], CHECK_HOT)
        if not (kill or sink or hot):
            return True
        if (turn.plain_turns and not (sink or hot)
                and lists[0].count[L_YOU] + lists[0].count[L_KILL] <= KILL_SCAN_LIMIT):
            if not lists_overlap(geo, pos, turn, lists[0], L_YOU, L_KILL):
                return True
        elif not roles_could_pair(geo, pos, turn, props, step_start, kill, sink, hot):
            return True
        chain_moved(geo, pos, turn)     # nothing moves between the checks
        if not pairs_near_moves_possible(geo, pos, turn, props, step_start, kill, sink, hot):
            return True
    for check in range(3):
        if turn.fast:
            if not check_can_pair(turn, lists[0], check):
                continue
            n = pairs_near_moves(geo, pos, turn, props, check, step_start)
        else:
            n = pairs_everywhere(geo, pos, turn, lists[0], check)
        if not settle(geo, pos, log, turn, props, lists, check, n):
            return False
    return True


cdef bint pairs_standing(const Geometry* geo, const Position* pos, Turn* turn,
                         const Lists* now) noexcept nogil:
    """Whether any check would find a pair in this position as it stands
    (after a turn's final checks, only a rule reading can leave one)."""
    cdef int check
    turn.n_sink = now.count[L_SINK]
    memcpy(turn.snapshot2, now.items[L_SINK], turn.n_sink * sizeof(int))
    for check in range(3):
        if pairs_everywhere(geo, pos, turn, now, check):
            return True
    return False


cdef inline bint lists_overlap(const Geometry* geo, const Position* pos, Turn* turn, const Lists* lists,
                               int a, int b) noexcept nogil:
    cdef int i
    if not lists.count[a] or not lists.count[b]:
        return False
    next_epoch(geo, turn)
    for i in range(lists.count[b]):
        turn.stamp[pos.cell[lists.items[b][i]]] = turn.epoch
    for i in range(lists.count[a]):
        if turn.stamp[pos.cell[lists.items[a][i]]] == turn.epoch:
            return True
    return False


# ------------------------------------------------------- plain turns --
# Most turns of a search only step the one YOU object, and the MOVE objects
# if any, into empty cells or against a wall: no push, no text moved, no
# pair anywhere. Such a turn is played here, without the general
# machinery of a turn (above all its destruction checks); any other is
# left, as it was, to play_turn's general path. Both give the same
# position, log and flags.

cdef enum:
    STEP_BLOCKED = 0
    STEP_MOVED = 1
    STEP_OTHER = 2          # a push, a shared cell, a possible pair: not plain


cdef inline bint could_pair_at(const Geometry* geo, const Position* pos, const Turn* turn,
                               const Props* props, int thing, int target) noexcept nogil:
    """Whether `thing` stepping onto `target` could make a destruction pair
    there, counting its roles and those of every object the parent had
    there (a superset, as some may have left: see roles_could_pair)."""
    return geo.can_destroy and could_pair_on(pos, turn, props, target, pair_roles(props, pos.tile[thing]),
                                             1, True, True, True)


cdef inline void step_into(Position* pos, UndoLog* log, Turn* turn, int thing, int cell,
                           int target, int direction) noexcept nogil:
    """move_thing's move of an object holding its slot into an empty one
    (the caller has made sure the log has room)."""
    cdef Change* change = log_change(log, UNDO_MOVE, thing, cell)
    change.facing = pos.facing[thing]
    change.slot_from = thing
    change.slot_to = NO_THING
    pos.slot[cell] = NO_THING
    pos.cell[thing] = <uint16_t>target
    pos.slot[target] = thing
    pos.facing[thing] = <uint8_t>(direction + 1)
    turn.moved[thing] = 1
    turn.moved_list[turn.n_moved] = thing
    turn.n_moved += 1


cdef inline int end_flags(const Geometry* geo, const Position* pos, const UndoLog* log, Turn* turn,
                          const Lists* now) noexcept nogil:
    """The flags every turn ends with, under the lists `now` it ends with:
    a YOU object on a WIN object wins, none that can move is dead, and a
    logged change is a change."""
    cdef int flags = 0
    if lists_overlap(geo, pos, turn, now, L_YOU, L_WIN):
        flags |= TURN_WON
    if not now.count[L_YOU] and not now.count[L_MOVE]:
        flags |= TURN_DEAD
    if log.n != 0:
        flags |= TURN_CHANGED
    return flags


cdef inline bint faces_back(const Geometry* geo, int tile, int facing, int action) noexcept nogil:
    """Whether a mover of `tile` that faced `facing` before stepping by
    `action` faces the same again after the opposite step: its facing is
    not recorded, or already was the way back."""
    return not geo.keeps_facing[tile] or facing == opposite(action + 1)


cdef inline void plain_checks_done(const Geometry* geo, Turn* turn, const Lists* now,
                                   int action) noexcept nogil:
    """What destruction's calls leave in the turn when they find nothing."""
    if geo.can_destroy:
        turn.step = 2 if action != WAIT else 1
        turn.n_sink = now.count[L_SINK]
    turn.lists_changed = False


cdef int lone_turn(const Geometry* geo, Position* pos, UndoLog* log, Turn* turn,
                   const Props* props, const Lists* now, int action) noexcept nogil:
    """play_turn's flags when the one YOU object, and nothing else, steps
    from the slot it holds into a cell with an empty slot, no WIN object
    and no possible pair; else -1, having changed nothing.

    Such a turn comes back (TURN_COMES_BACK) when the mover faces_back:
    from the child, the opposite step is again a lone step into an empty
    slot (the one it left), among the same objects as in the parent, where
    no pair stood (turn.fast) and no WIN object lay (a stored parent is no
    win), so it makes the parent again."""
    cdef int thing = now.items[L_YOU][0]
    cdef int cell = pos.cell[thing]
    cdef int target = cell + geo.delta[action]
    cdef int i, facing = pos.facing[thing]
    if (is_text(geo, thing) or geo.border[target] or pos.slot[target] != NO_THING
            or pos.slot[cell] != thing or (geo.can_destroy and not turn.fast)
            or could_pair_at(geo, pos, turn, props, thing, target)):
        return -1
    for i in range(now.count[L_WIN]):
        if now.items[L_WIN][i] == thing or pos.cell[now.items[L_WIN][i]] == target:
            return -1
    step_into(pos, log, turn, thing, cell, target, action)
    plain_checks_done(geo, turn, now, action)
    turn.lone = True
    if faces_back(geo, pos.tile[thing], facing, action):
        return TURN_CHANGED | TURN_COMES_BACK
    return TURN_CHANGED


cdef inline int plain_step(const Geometry* geo, Position* pos, UndoLog* log, Turn* turn,
                           const Props* props, int thing, int direction) noexcept nogil:
    """move_thing for an object holding its slot, when the way is empty or
    blocked outright; STEP_OTHER, having changed nothing, otherwise."""
    cdef int cell, target
    cdef int32_t other
    cdef uint16_t here
    if turn.moved[thing]:
        return STEP_BLOCKED
    cell = pos.cell[thing]
    if is_text(geo, thing) or pos.slot[cell] != thing:
        return STEP_OTHER
    target = cell + geo.delta[direction]
    if geo.border[target]:
        return STEP_BLOCKED
    other = pos.slot[target]
    if other >= 0:
        if is_text(geo, other):
            return STEP_OTHER
        here = props.noun_props[pos.tile[other]]
        if here & P_STOP:
            return STEP_BLOCKED
        if here & P_PUSH:
            return STEP_OTHER
        if here & P_YOU:
            return STEP_BLOCKED if props.noun_props[pos.tile[thing]] & P_YOU else STEP_OTHER
        return STEP_BLOCKED if here & P_MOVE else STEP_OTHER
    if could_pair_at(geo, pos, turn, props, thing, target):
        return STEP_OTHER
    step_into(pos, log, turn, thing, cell, target, direction)
    return STEP_MOVED


cdef int moving_turn(const Geometry* geo, Position* pos, UndoLog* log, Turn* turn,
                     const Props* props, const Lists* now, int action) noexcept nogil:
    """play_turn's flags for a plain turn with MOVE objects and at most one
    YOU object, else -1 with the position as it was."""
    cdef int i, thing, step
    if now.count[L_YOU] > 1 or (geo.can_destroy and not turn.fast):
        return -1
    if now.count[L_MOVE] >= log.capacity:
        return -1           # each mover logs one change at most: the log is never abandoned
    if action != WAIT and now.count[L_YOU]:
        if plain_step(geo, pos, log, turn, props, now.items[L_YOU][0], action) == STEP_OTHER:
            return -1
    for i in range(now.count[L_MOVE]):
        thing = now.items[L_MOVE][i]
        # (a reading turns a MOVE object facing none: the general turn
        # decides what one does, should it ever be met)
        step = STEP_OTHER if pos.facing[thing] == 0 else plain_step(
            geo, pos, log, turn, props, thing, pos.facing[thing] - 1)
        if step == STEP_OTHER:
            undo(pos, log)
            return -1
        if step == STEP_BLOCKED:
            set_facing(pos, log, thing, opposite(pos.facing[thing]))
    plain_checks_done(geo, turn, now, action)
    return end_flags(geo, pos, log, turn, now)


cdef inline int plain_turn(const Geometry* geo, Position* pos, UndoLog* log, Turn* turn,
                           const Props* props, const Lists* now, int action) noexcept nogil:
    """play_turn's flags for a plain turn, else -1 with the position and
    the turn as they were. A turn with MOVE objects is tried only while
    such turns keep being plain (shortcut_due)."""
    cdef int flags
    if not now.count[L_MOVE]:
        if action == WAIT or now.count[L_YOU] != 1:
            return -1
        return lone_turn(geo, pos, log, turn, props, now, action)
    if not shortcut_due(&turn.plain_misses):
        return -1
    flags = moving_turn(geo, pos, log, turn, props, now, action)
    if flags >= 0:
        turn.plain_misses = 0
        return flags
    turn.plain_misses += 1
    forget_moves(turn, log)
    return -1


cdef bint steps_come_back(const Geometry* geo, const Position* pos, const UndoLog* log, Turn* turn,
                          const Props* props, const Lists* now, int action) noexcept nogil:
    """Whether a general turn comes back (TURN_COMES_BACK): every YOU
    object, and nothing else, stepped from the slot it held into an empty
    one, no mover onto a cell another left, and no MOVE object, text,
    destruction or standing pair was there. The opposite step then moves
    each back into the empty slot it left (in creation order too: none is
    in another's way), among the objects of the parent, so it makes the
    parent again, as lone_turn's reason says (and faces_back)."""
    cdef int i, epoch
    cdef const Change* change
    if (action == WAIT or now.count[L_MOVE] or turn.texts_moved or turn.n_died
            or (geo.can_destroy and not turn.fast) or log.n <= 0 or log.n != now.count[L_YOU]):
        return False
    epoch = next_epoch(geo, turn)
    for i in range(log.n):
        change = &log.changes[i]
        if (change.kind != UNDO_MOVE or change.slot_from != change.thing or change.slot_to != NO_THING
                or is_text(geo, change.thing) or not props.noun_props[pos.tile[change.thing]] & P_YOU
                or not faces_back(geo, pos.tile[change.thing], change.facing, action)):
            return False
        turn.stamp[change.before] = epoch
    for i in range(log.n):
        if turn.stamp[pos.cell[log.changes[i].thing]] == epoch:
            return False
    return True


cdef int play_turn(const Geometry* geo, Position* pos, UndoLog* log, Turn* turn,
                   const Props* props, const Lists* lists, int action) noexcept nogil:
    """One turn from a position whose rules are `props` and lists `lists`.
    Leaves the turn's own rules and lists in turn.props / turn.lists when it
    changed them (turn.props_changed / turn.lists_changed say so). Returns
    TURN_* flags."""
    cdef Lists* now = <Lists*>lists
    cdef const Props* rules = props
    cdef int i, thing, step_start, flags
    forget_moves(turn, log)
    turn.texts_moved = 0
    turn.relayered = False
    turn.text_slots_changed = False
    turn.illegal = ILLEGAL_NONE
    turn.props_changed = False
    turn.made = False
    turn.lists_kept = False
    turn.lone = False
    turn.log_kept = -1
    turn.n_reslotted = 0
    for i in range(turn.n_died):
        turn.died[turn.died_list[i]] = 0
    turn.n_died = 0
    turn.step = 0
    if turn.plain_turns:
        flags = plain_turn(geo, pos, log, turn, rules, now, action)
        if flags >= 0:
            return flags
    if action != WAIT:
        for i in range(now.count[L_YOU]):
            move_thing(geo, pos, log, turn, rules, now.items[L_YOU][i], action)
        # A level with no text that can make KILL, SINK or HOT and MELT never destroys.
        if geo.can_destroy and not destruction(geo, pos, log, turn, rules, &now, 0):
            return TURN_ILLEGAL
    step_start = turn.n_moved
    for i in range(now.count[L_MOVE]):
        thing = now.items[L_MOVE][i]
        if not move_thing(geo, pos, log, turn, rules, thing, pos.facing[thing] - 1):
            set_facing(pos, log, thing, opposite(pos.facing[thing]))
    if geo.can_destroy and not destruction(geo, pos, log, turn, rules, &now, step_start):
        return TURN_ILLEGAL
    if turn.texts_moved:
        read_rules(geo, pos, log, turn, &turn.props, &turn.lists, turn.texts_moved, props, now)
        rules = &turn.props
        if not turn.lists_kept:
            now = &turn.lists
        turn.props_changed = True
    turn.lists_changed = now != lists
    flags = end_flags(geo, pos, log, turn, now)
    if turn.relayered:
        flags |= TURN_RELAYERED
    elif flags == TURN_CHANGED and steps_come_back(geo, pos, log, turn, rules, now, action):
        flags |= TURN_COMES_BACK
    return flags
