# The judge's records: a position's canonical bytes. Included by _judge.pyx.
#
#   varint meta = (how many object tiles ever had objects, beyond those at load) << 2
#       | pairs_standing << 1 (a destruction check would find a pair as it stands)
#       | rules_stored
#   then those object tiles, ascending: varint tile each
#   [when the level can transform] varint n, then n created objects in
#       creation order as bit fields (least significant first): the tile's
#       kind number (kind_bits), surprise (1), facing (3 if the tile keeps
#       facings, else 0), cell + 1 (cell_bits), as an entry's; zero bits to
#       the end of the byte
#   [when rules_stored] varint n, then n rules: varint left tile, varint right tile
#       (the rule list, stored only when it differs from a scan of the slots)
#   then, in thing order, each map thing whose value differs from the root
#       position's, as bit fields (least significant first) to the end:
#       0, or 1 and gap_bits of (gap - 1): the gap past the previous entry's thing
#       surprise (1 bit), facing (facing_bits of the thing), cell + 1 (cell_bits;
#       0 for an object out of play)
#   and zero bits to the end of the last byte.
# A value is 0 for an object out of play, else 1 + (cell << 4 | facing << 1 | surprise),
# the facing kept only for nouns that can ever be MOVE. `surprise` is whether
# the thing's hidden flag differs from its layer's: texts and YOU, MOVE, PUSH
# and STOP objects are expected in their slot, other objects hidden. So a
# rule that sends a hundred walls to the background changes no wall's value.
#
# Entries are bit fields sized to the level rather than varints: on full_biy
# level 119 a moved thing takes 16 bits instead of 24, and the records of
# breadth-first search are most of its memory. An entry is at least
# ENTRY_MIN_BITS wide, so the last byte's padding never reads as an entry.

cdef enum:
    RECORD_RULES = 1        # the rule list is stored
    RECORD_STANDING = 2     # a pair stands due for destruction


cdef inline int few_bits(uint64_t word) noexcept nogil:
    """The bits set in a word that has few: a loop per bit, where the
    builtin is a library call without -mpopcnt."""
    cdef int n = 0
    while word:
        word &= word - 1
        n += 1
    return n


cdef inline int lowest_bit(uint64_t word) noexcept nogil:
    return __builtin_ctzll(word)


cdef inline bint is_text_tile(uint32_t tile) noexcept nogil:
    return tile < N_TILES and KIND_NOUN_TEXT <= TILE_KIND[tile] <= KIND_PROPERTY_TEXT


cdef inline bint on_map_text(const Geometry* geo, uint32_t tile) noexcept nogil:
    return tile < N_TILES and geo.text_kind_of[tile] >= 0


cdef inline bint can_be_in_play(const Geometry* geo, uint32_t tile) noexcept nogil:
    """An object tile on the map, or one a noun text on the map can make."""
    return tile < N_TILES and geo.kind_of[tile] >= 0


cdef inline int put_varint(uint8_t* out, int length, uint32_t value) noexcept nogil:
    while value >= 0x80:
        out[length] = <uint8_t>(value | 0x80)
        value >>= 7
        length += 1
    out[length] = <uint8_t>value
    return length + 1


cdef inline int get_varint(const uint8_t* data, int pos, int length, uint32_t* value) noexcept nogil:
    """Reads a varint at pos; -1 when it runs past `length` or is too long."""
    cdef uint32_t result = 0
    cdef int shift = 0
    while True:
        if pos >= length or shift > 28:
            return -1
        result |= (<uint32_t>(data[pos] & 0x7F)) << shift
        if not data[pos] & 0x80:
            value[0] = result
            return pos + 1
        shift += 7
        pos += 1


ctypedef struct BitWriter:
    uint8_t* out
    int length              # bytes written
    uint64_t pending        # bits not yet written, least significant first
    int n_pending


ctypedef struct BitReader:
    const uint8_t* data
    int at                  # the next byte to read
    int length
    uint64_t pending        # bits read but not taken
    int n_pending


cdef extern from *:
    """
    /* Eight bytes at once where the byte order allows: a record buffer
       always has ARENA_SLACK spare bytes past its longest record. */
    static inline void judge_store64(uint8_t* p, uint64_t v) {
    #if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        memcpy(p, &v, 8);
    #else
        for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
    #endif
    }
    static inline uint64_t judge_load64(const uint8_t* p) {
    #if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        uint64_t v;
        memcpy(&v, p, 8);
        return v;
    #else
        uint64_t v = 0;
        for (int i = 0; i < 8; i++) v |= (uint64_t)p[i] << (8 * i);
        return v;
    #endif
    }
    """
    void judge_store64(uint8_t* p, uint64_t v) nogil
    uint64_t judge_load64(const uint8_t* p) nogil


cdef inline void copy_words(uint8_t* to, const uint8_t* data, int length) noexcept nogil:
    """`length` bytes, a word at a time: records are short, and both
    buffers have ARENA_SLACK spare bytes past the end."""
    cdef int i = 0
    while i < length:
        judge_store64(to + i, judge_load64(data + i))
        i += 8


cdef inline void put_bits(BitWriter* w, uint64_t value, int n) noexcept nogil:
    """n (at most 56 - 8) more bits; whole bytes go out at once."""
    cdef int whole
    w.pending |= value << w.n_pending
    w.n_pending += n
    whole = w.n_pending >> 3
    if whole:
        judge_store64(w.out + w.length, w.pending)
        w.length += whole
        w.pending >>= whole * 8
        w.n_pending &= 7


cdef inline void open_writer(BitWriter* w, uint8_t* out, int length) noexcept nogil:
    """Bits to be written after the first `length` bytes of `out`."""
    w.out = out
    w.length = length
    w.pending = 0
    w.n_pending = 0


cdef inline int close_bits(BitWriter* w) noexcept nogil:
    """The record's length, its last byte padded with zero bits."""
    if w.n_pending:
        w.out[w.length] = <uint8_t>w.pending
        w.length += 1
        w.pending = 0
        w.n_pending = 0
    return w.length


cdef inline int bits_left(const BitReader* r) noexcept nogil:
    return (r.length - r.at) * 8 + r.n_pending


cdef inline void refill(BitReader* r) noexcept nogil:
    """At least 56 bits pending, or every bit left: whole bytes of one
    word, as a record has ARENA_SLACK readable bytes past its end."""
    cdef int whole = (63 - r.n_pending) >> 3
    if whole > r.length - r.at:
        whole = r.length - r.at
    r.pending |= (judge_load64(r.data + r.at) & ((<uint64_t>1 << (whole * 8)) - 1)) << r.n_pending
    r.at += whole
    r.n_pending += whole * 8


cdef inline void open_bits(BitReader* r, const uint8_t* data, int at, int length) noexcept nogil:
    r.data = data
    r.at = at
    r.length = length
    r.pending = 0
    r.n_pending = 0


cdef inline bint more_entries(const BitReader* r) noexcept nogil:
    return bits_left(r) >= ENTRY_MIN_BITS


cdef inline bint bits_done(const BitReader* r) noexcept nogil:
    """Only zero padding is left: the canonical end."""
    return r.at == r.length and r.pending == 0


cdef inline int tile_facing_bits(const Geometry* geo, int tile) noexcept nogil:
    """The bits of an object's facing in its value's fields: only tiles that
    keep a facing store one."""
    return FACING_BITS if geo.keeps_facing[tile] else 0


cdef inline uint64_t value_field(uint32_t value, int fb) noexcept nogil:
    """A value as bit fields (least significant first): surprise (1),
    facing (fb), cell + 1 (cell_bits); all 0 for an object out of play."""
    cdef uint64_t bits = value - 1
    if not value:
        return 0
    return ((((bits >> 4) + 1) << fb | ((bits >> 1) & 7)) << 1) | (bits & 1)


cdef inline int field_value(const Geometry* geo, uint64_t field, int fb, uint32_t* value) noexcept nogil:
    """The value value_field wrote as `field`; -1 for bits that are none
    of this level's."""
    cdef uint64_t code = field >> (1 + fb)
    cdef uint64_t facing = (field >> 1) & ((<uint64_t>1 << fb) - 1)
    if code == 0:
        if field != 0:
            return -1
        value[0] = 0
    elif code > <uint64_t>geo.ncells or facing > 4:
        return -1
    else:
        value[0] = <uint32_t>(1 + (((code - 1) << 4) | (facing << 1) | (field & 1)))
    return 0


cdef inline uint64_t entry_bits(const Geometry* geo, int thing, int gap, uint32_t value,
                                int* width) noexcept nogil:
    """A map thing's entry, `gap` things past the entry before it, and its width."""
    cdef int fb = geo.facing_bits[thing]
    cdef uint64_t field = value_field(value, fb)
    if gap == 0:
        width[0] = 2 + fb + geo.cell_bits
        return field << 1
    width[0] = 2 + geo.gap_bits + fb + geo.cell_bits
    return ((field << geo.gap_bits | <uint64_t>(gap - 1)) << 1) | 1


cdef inline void put_entry_bits(const Geometry* geo, BitWriter* w, int thing, int gap,
                                uint32_t value) noexcept nogil:
    cdef int width
    cdef uint64_t bits = entry_bits(geo, thing, gap, value, &width)
    put_bits(w, bits, width)


cdef inline void write_field_over(const Geometry* geo, uint8_t* out, int end, int thing,
                                  uint32_t value) noexcept nogil:
    """Write a map thing's value fields over those of its entry ending at
    bit `end` of `out`, whose words copy_words has just written: the gap
    before them stays. The fields (at most 20 bits) are changed in the one
    or two of those words they lie in, never through a word at another
    offset: a load that straddles two recent stores waits for them to
    reach the cache, where a load of one is forwarded at once."""
    cdef int fb = geo.facing_bits[thing]
    cdef int width = 1 + fb + geo.cell_bits
    cdef int bit = end - width
    cdef int shift = bit & 63
    cdef uint64_t bits = value_field(value, fb)
    cdef uint64_t mask = (<uint64_t>1 << width) - 1
    cdef uint8_t* at = out + ((bit >> 6) << 3)
    judge_store64(at, (judge_load64(at) & ~(mask << shift)) | (bits << shift))
    if shift + width > 64:
        judge_store64(at + 8, (judge_load64(at + 8) & ~(mask >> (64 - shift))) | (bits >> (64 - shift)))


cdef inline int read_entry(const Geometry* geo, BitReader* r, int* thing, uint32_t* value) noexcept nogil:
    """The next entry: moves `thing` on to its thing and sets its value;
    -1 for bits that are not an entry of this level. An entry is at most
    1 + 16 + 1 + 3 + 16 bits, so one refill holds it."""
    cdef uint64_t word, field
    cdef int used = 1, gap = 0, fb, width
    refill(r)
    word = r.pending
    if word & 1:
        gap = <int>((word >> 1) & ((<uint64_t>1 << geo.gap_bits) - 1)) + 1
        used += geo.gap_bits
    thing[0] += gap + 1
    if thing[0] >= geo.n_base:
        return -1
    fb = geo.facing_bits[thing[0]]
    width = 1 + fb + geo.cell_bits
    field = (word >> used) & ((<uint64_t>1 << width) - 1)
    used += width
    if used > r.n_pending:
        return -1
    r.pending >>= used
    r.n_pending -= used
    if field_value(geo, field, fb, value) < 0 or (value[0] == 0 and thing[0] >= geo.n_base_objects):
        return -1                   # texts never leave play
    return 0


cdef int read_meta(const Geometry* geo, const uint8_t* record, int length, Position* pos,
                   uint32_t* meta) noexcept nogil:
    """The record's meta and the object tiles that ever had objects; the
    offset after them, or -1."""
    cdef uint32_t tile, k
    cdef int at = get_varint(record, 0, length, meta)
    if at < 0 or (meta[0] >> 2) > N_TILES:
        return -1
    memcpy(pos.ever, geo.root_ever, sizeof(pos.ever))
    for k in range(meta[0] >> 2):
        at = get_varint(record, at, length, &tile)
        if at < 0 or not can_be_in_play(geo, tile) or tile_in(pos.ever, tile):
            return -1
        tile_add(pos.ever, tile)
    return at


cdef inline uint32_t object_value(const Geometry* geo, const Position* pos, const Props* props,
                                  int thing) noexcept nogil:
    cdef uint32_t facing = 0, surprise
    cdef int cell, tile
    if not pos.alive[thing]:
        return 0
    cell = pos.cell[thing]
    tile = pos.tile[thing]
    surprise = (pos.slot[cell] != thing) ^ ((props.noun_props[tile] & P_LAYER) == 0)
    if geo.keeps_facing[tile]:
        facing = pos.facing[thing]
    return 1 + ((<uint32_t>cell << 4) | (facing << 1) | surprise)


cdef inline uint32_t text_value(const Position* pos, int thing) noexcept nogil:
    """Texts never leave play, keep no facing and belong in their slot."""
    cdef int cell = pos.cell[thing]
    return 1 + ((<uint32_t>cell << 4) | (pos.slot[cell] != thing))


cdef inline uint32_t thing_value(const Geometry* geo, const Position* pos, const Props* props,
                                 int thing) noexcept nogil:
    if is_text(geo, thing):
        return text_value(pos, thing)
    return object_value(geo, pos, props, thing)


cdef inline bint same_dangers(const Props* a, const Props* b) noexcept nogil:
    """Whether two rule sets make the same nouns YOU, KILL, SINK, HOT and MELT
    (four nouns' bits a word)."""
    cdef int t = 0
    cdef uint64_t mask = <uint64_t>P_DANGER * 0x0001000100010001ULL
    while t + 4 <= N_TILES:
        if (judge_load64(<const uint8_t*>&a.noun_props[t]) ^ judge_load64(<const uint8_t*>&b.noun_props[t])) & mask:
            return False
        t += 4
    while t < N_TILES:
        if (a.noun_props[t] ^ b.noun_props[t]) & P_DANGER:
            return False
        t += 1
    return True


cdef inline bint same_rules(const Props* a, const Props* b) noexcept nogil:
    return (a.n_rules == b.n_rules
            and memcmp(a.rule_left, b.rule_left, a.n_rules * sizeof(uint16_t)) == 0
            and memcmp(a.rule_right, b.rule_right, a.n_rules * sizeof(uint16_t)) == 0)


cdef inline void put_created(const Geometry* geo, BitWriter* w, int tile, uint32_t value) noexcept nogil:
    """A created object (always in play): its tile's kind number, then its
    value's fields as an entry has them."""
    cdef int fb = tile_facing_bits(geo, tile)
    put_bits(w, value_field(value, fb) << geo.kind_bits | <uint64_t>geo.kind_of[tile],
             geo.kind_bits + 1 + fb + geo.cell_bits)


cdef inline int read_created(const Geometry* geo, BitReader* r, uint32_t* tile, uint32_t* value) noexcept nogil:
    """The next created object's tile and value; -1 for bits that are not one."""
    cdef uint64_t word
    cdef uint32_t kind
    cdef int fb, width
    refill(r)
    word = r.pending
    kind = <uint32_t>(word & ((<uint64_t>1 << geo.kind_bits) - 1))
    if kind >= <uint32_t>geo.n_kinds:
        return -1
    tile[0] = <uint32_t>geo.kind_tile[kind]
    fb = tile_facing_bits(geo, tile[0])
    width = geo.kind_bits + 1 + fb + geo.cell_bits
    if width > r.n_pending:
        return -1
    r.pending >>= width
    r.n_pending -= width
    word = (word >> geo.kind_bits) & ((<uint64_t>1 << (width - geo.kind_bits)) - 1)
    if field_value(geo, word, fb, value) < 0 or value[0] == 0:
        return -1                   # created objects out of play are not listed
    return 0


cdef int pack_head(const Geometry* geo, const Position* pos, const Props* props,
                   int flags, uint8_t* out) noexcept nogil:
    """The record up to the map things' entries. `flags`: RECORD_* bits."""
    cdef int i, word, n = 0, length
    cdef uint64_t extra
    cdef bint rules_stored = flags & RECORD_RULES
    cdef BitWriter w
    for word in range(TILE_WORDS):
        n += few_bits(pos.ever[word] & ~geo.root_ever[word])
    length = put_varint(out, 0, (<uint32_t>n << 2) | flags)
    if n:
        for word in range(TILE_WORDS):
            extra = pos.ever[word] & ~geo.root_ever[word]
            while extra:
                length = put_varint(out, length, <uint32_t>(word * 64 + lowest_bit(extra)))
                extra &= extra - 1
    if geo.can_create:
        n = 0
        for i in range(geo.n_base, pos.n_things):
            n += pos.alive[i]
        length = put_varint(out, length, n)
        if n:
            open_writer(&w, out, length)
            for i in range(geo.n_base, pos.n_things):
                if pos.alive[i]:
                    put_created(geo, &w, pos.tile[i], object_value(geo, pos, props, i))
            length = close_bits(&w)
    if rules_stored:
        length = put_varint(out, length, props.n_rules)
        for i in range(props.n_rules):
            length = put_varint(out, length, props.rule_left[i])
            length = put_varint(out, length, props.rule_right[i])
    return length




cdef inline void put_value(const Geometry* geo, BitWriter* w, int thing, uint32_t value,
                           int* last) noexcept nogil:
    """A map thing's entry for `value`, if it differs from the root's."""
    if value == geo.root_value[thing]:
        return
    put_entry_bits(geo, w, thing, thing - last[0] - 1, value)
    last[0] = thing


cdef inline void put_entry(const Geometry* geo, const Position* pos, const Props* props,
                           int thing, int* last, BitWriter* w) noexcept nogil:
    """A map thing's entry, if its value differs from the root's."""
    put_value(geo, w, thing, thing_value(geo, pos, props, thing), last)


cdef int pack_position(const Geometry* geo, const Position* pos, const Props* props,
                       int flags, uint8_t* out) noexcept nogil:
    """A whole-position pass: every map thing compared with the root. The
    objects, then the texts, whose values need no rules (texts never leave
    play, keep no facing and belong in their slot)."""
    cdef int i, last = -1
    cdef BitWriter w
    open_writer(&w, out, pack_head(geo, pos, props, flags, out))
    for i in range(geo.n_base_objects):
        put_value(geo, &w, i, object_value(geo, pos, props, i), &last)
    for i in range(geo.n_base_objects, geo.n_base):
        put_value(geo, &w, i, text_value(pos, i), &last)
    return close_bits(&w)


cdef inline void copy_bits(BitWriter* w, const uint8_t* data, int start, int stop) noexcept nogil:
    """Bits [start, stop) of `data` as they are, 48 at a time (`data` has
    eight readable bytes past any bit)."""
    cdef int n
    while start < stop:
        n = stop - start
        if n > 48:
            n = 48
        put_bits(w, (judge_load64(data + (start >> 3)) >> (start & 7)) & ((<uint64_t>1 << n) - 1), n)
        start += n


cdef int pack_changed(const Geometry* geo, const Position* pos, const Props* props, int flags,
                      const Entries* parent, const int* touched, int n_touched, uint8_t* out) noexcept nogil:
    """The same record from the parent's entries and the things the turn
    touched (sorted): only they can differ from the root. A thing the turn
    did not touch keeps its parent's value: the rules are the parent's (a
    rule reading packs the whole position), and a thing whose slot changed
    hands is touched. So a run of the parent's entries between touched
    things is the parent's bits, copied; only its first entry is written
    again when the entry before it is another thing than in the parent
    (its gap changed)."""
    cdef int i = 0, j = 0, stop, thing, next_touched, last = -1
    cdef BitWriter w
    open_writer(&w, out, pack_head(geo, pos, props, flags, out))
    while i < parent.n or j < n_touched:
        next_touched = touched[j] if j < n_touched else geo.n_base
        if i < parent.n and parent.thing[i] < next_touched:
            stop = i + 1
            while stop < parent.n and parent.thing[stop] < next_touched:
                stop += 1
            if last != (parent.thing[i - 1] if i else -1):
                put_entry_bits(geo, &w, parent.thing[i], parent.thing[i] - last - 1, parent.value[i])
                i += 1
            copy_bits(&w, parent.data, parent.bit[i], parent.bit[stop])
            last = parent.thing[stop - 1]
            i = stop
            continue
        thing = touched[j]
        if i < parent.n and parent.thing[i] == thing:
            i += 1
        j += 1
        put_entry(geo, pos, props, thing, &last, &w)
    return close_bits(&w)


cdef inline bint patch_entry(const Geometry* geo, const Position* pos, const Props* props,
                             const Entries* parent, int thing, uint8_t* out) noexcept nogil:
    """Write a map thing's entry in `pos` over its entry in `parent`'s
    record, copied to `out`: False when it would need an entry the parent
    lacks or drop one it has (the width would change). -1 and created
    objects are passed over."""
    cdef uint32_t value
    cdef int j
    if thing < 0 or thing >= geo.n_base:
        return True
    value = thing_value(geo, pos, props, thing)
    j = parent.index[thing]
    if j < 0:
        return value == geo.root_value[thing]
    if value != parent.value[j]:
        if value == geo.root_value[thing]:
            return False
        write_field_over(geo, out, parent.bit[j + 1], thing, value)
    return True


cdef inline int bit_at(const BitReader* r) noexcept nogil:
    """Bits taken so far from the reader's data."""
    return r.at * 8 - r.n_pending


cdef inline int next_diff_bit(const uint8_t* a, const uint8_t* b, int bit, int length) noexcept nogil:
    """The first bit from `bit` on where the first `length` bytes of two
    records differ, or -1 (a word at a time: both have spare bytes)."""
    cdef int i = bit >> 3
    cdef uint64_t x
    if i >= length:
        return -1
    x = ((judge_load64(a + i) ^ judge_load64(b + i)) >> (bit & 7)) << (bit & 7)
    while True:
        if length - i < 8:
            x &= (<uint64_t>1 << ((length - i) * 8)) - 1
        if x:
            return i * 8 + lowest_bit(x)
        i += 8
        if i >= length:
            return -1
        x = judge_load64(a + i) ^ judge_load64(b + i)


cdef int diff_entries(const Geometry* geo, const Entries* now, const uint8_t* record, int length,
                      int* changed, uint32_t* values) noexcept nogil:
    """When `record` is the record of `now` with some entries written over
    at the same bits (the same head, each such entry the same thing and
    width: siblings patched from one parent are), the indices of those
    entries in `now` into `changed` and their new values into `values`;
    how many. -1 otherwise: the caller reads the record whole. Bits that
    agree decode alike from the same offset, so only the entries holding
    a differing bit are decoded."""
    cdef int k = 0, n = 0, thing, p
    cdef uint32_t value
    cdef BitReader r
    if length != now.length or not now.n:
        return -1
    if next_diff_bit(record, now.data, 0, now.bit[0] >> 3) >= 0:
        return -1
    p = next_diff_bit(record, now.data, now.bit[0], length)
    while p >= 0:
        while k < now.n and now.bit[k + 1] <= p:
            k += 1
        if k == now.n:
            return -1
        open_bits(&r, record, now.bit[k] >> 3, length)
        refill(&r)
        r.pending >>= now.bit[k] & 7
        r.n_pending -= now.bit[k] & 7
        thing = now.thing[k - 1] if k else -1
        if (read_entry(geo, &r, &thing, &value) < 0 or thing != now.thing[k]
                or bit_at(&r) != now.bit[k + 1]):
            return -1
        changed[n] = k
        values[n] = value
        n += 1
        k += 1
        p = next_diff_bit(record, now.data, now.bit[k], length)
    return n


cdef int read_entries(const Geometry* geo, const uint8_t* record, int at, int length,
                      Entries* e) noexcept nogil:
    """A record's entries, from byte `at` to its end, into `e` with their
    bits and a copy of the record; -1 for bits that are not entries of this
    level."""
    cdef BitReader bits
    cdef int k, thing = -1
    cdef uint32_t value
    for k in range(e.n):
        e.index[e.thing[k]] = -1
    e.n = 0
    e.known = False
    open_bits(&bits, record, at, length)
    while more_entries(&bits):
        e.bit[e.n] = bit_at(&bits)
        if read_entry(geo, &bits, &thing, &value) < 0:
            return -1
        e.thing[e.n] = thing
        e.value[e.n] = value
        e.index[thing] = e.n
        e.n += 1
    e.bit[e.n] = bit_at(&bits)
    if not bits_done(&bits):
        return -1
    copy_words(e.data, record, length)
    e.length = length
    e.known = True
    return 0


cdef inline void place(const Geometry* geo, Position* pos, int thing, uint32_t value,
                       uint8_t* surprise) noexcept nogil:
    """A thing from its value. A text's slot is known at once; an object's
    waits for the rules (see place_objects)."""
    cdef uint32_t bits
    if value == 0:
        pos.alive[thing] = 0
        return
    bits = value - 1
    pos.alive[thing] = 1
    pos.cell[thing] = <uint16_t>(bits >> 4)
    pos.facing[thing] = <uint8_t>((bits >> 1) & 7)
    surprise[thing] = bits & 1
    if is_text(geo, thing) and not bits & 1:
        pos.slot[bits >> 4] = thing


cdef void place_objects(const Geometry* geo, Position* pos, const Props* props,
                        const uint8_t* surprise) noexcept nogil:
    """The objects' slots, once the rules say which layer each is in."""
    cdef int i
    for i in range(geo.n_base_objects):
        if pos.alive[i] and (surprise[i] ^ (0 if props.noun_props[pos.tile[i]] & P_LAYER else 1)) == 0:
            pos.slot[pos.cell[i]] = i
    for i in range(geo.n_base, pos.n_things):
        if pos.alive[i] and (surprise[i] ^ (0 if props.noun_props[pos.tile[i]] & P_LAYER else 1)) == 0:
            pos.slot[pos.cell[i]] = i


cdef int decode_record(const Geometry* geo, const uint8_t* record, int length, Position* pos,
                       Props* props, int* flags, Entries* entries, uint8_t* surprise) noexcept nogil:
    """Unpack a record into `pos` (and its stored rules into `props`); its
    entries go to `entries`. Objects' slots are left to place_objects.
    Returns -1 for bytes that are not a record of this level (checked, as
    unpack takes untrusted bytes)."""
    cdef uint32_t meta, count, value, tile, left, right
    cdef int at, i, k, thing
    cdef BitReader bits
    entries.known = False
    at = read_meta(geo, record, length, pos, &meta)
    if at < 0:
        return -1
    flags[0] = meta & 3
    memset(pos.slot, 0xFF, geo.ncells * sizeof(int32_t))
    pos.n_things = geo.n_base
    if geo.can_create:
        at = get_varint(record, at, length, &count)
        if at < 0 or count > <uint32_t>(geo.capacity - geo.n_base):
            return -1
        if count:
            open_bits(&bits, record, at, length)
            for k in range(<int>count):
                if read_created(geo, &bits, &tile, &value) < 0:
                    return -1
                thing = pos.n_things
                pos.tile[thing] = <uint16_t>tile
                place(geo, pos, thing, value, surprise)
                pos.n_things += 1
            # The rest of the last byte is zero padding; what follows starts
            # on the next byte.
            if bits.pending & ((<uint64_t>1 << (bits.n_pending & 7)) - 1):
                return -1
            at = bits.at - (bits.n_pending >> 3)
    if flags[0] & RECORD_RULES:
        at = get_varint(record, at, length, &count)
        if at < 0 or count > MAX_RULES:
            return -1
        props.n_rules = count
        for k in range(<int>count):
            at = get_varint(record, at, length, &left)
            if at < 0:
                return -1
            at = get_varint(record, at, length, &right)
            if at < 0 or not (on_map_text(geo, left) and on_map_text(geo, right)):
                return -1
            props.rule_left[k] = <uint16_t>left
            props.rule_right[k] = <uint16_t>right
    # The map things: the entries' values, the root's elsewhere.
    if read_entries(geo, record, at, length, entries) < 0:
        return -1
    k = 0
    for i in range(geo.n_base):
        if k < entries.n and entries.thing[k] == i:
            value = entries.value[k]
            k += 1
        else:
            value = geo.root_value[i]
        place(geo, pos, i, value, surprise)
    return 0
