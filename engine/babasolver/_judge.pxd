# The Keke judge's rule set (RULES.md) behind the seam of _ruleset.pxd:
# the level's fixed facts, the position a turn plays on, the rules' derived
# properties, the turn's scratch, and the two classes the searches see.
cimport cython
from libc.stdint cimport uint8_t, uint16_t, uint32_t, uint64_t, int32_t

from babasolver._ruleset cimport CoreLevel, Pool, Workspace, CACHE_LINE_GAP
from babasolver._tiles cimport N_TILES, TILE_WORDS

cdef enum:
    MAX_CELLS = 65535       # cells are uint16 in a position (a 64x64 level is 4356 with its ring)
    MAX_RULES = 128
    NO_THING = -1           # an empty object-layer slot
    TOUCHED_LIMIT = 96      # a turn logging more changes than this is packed whole
    SWAP_LIMIT = 16         # YOU objects that swapped_actions looks at
    TURN_RELAYERED = 256    # a rule reading or destruction rewrote layers: pack the whole position
    ENTRY_MIN_BITS = 8      # a record's entry is never narrower (see _judge_record.pxi)
    SORT_BY_INSERTION = 16  # a child's changed things are sorted by insertion up to this many
    SHORTCUT_PATIENCE = 8   # after this many tries of a shortcut fail in a row, it is left alone...
    SHORTCUT_RETRY = 40     # ... until this count, when it is tried again (shortcut_due)
    FACING_BITS = 3         # a kept facing, 0..4, in an entry

# Property bits of a noun under the rules in force. Which property text
# gives which bits is the rule set's word list (PROPERTY_BITS in _judge.pyx).
cdef enum:
    P_YOU = 1
    P_WIN = 2
    P_STOP = 4
    P_PUSH = 8
    P_MOVE = 16
    P_KILL = 32
    P_SINK = 64
    P_HOT = 128
    P_MELT = 256
    P_LAYER = 1 | 4 | 8 | 16    # YOU, STOP, PUSH or MOVE: the object layer
    P_MOBILE = 1 | 8 | 16       # YOU, PUSH or MOVE: can move
    P_DANGER = 1 | 32 | 64 | 128 | 256  # YOU, KILL, SINK, HOT, MELT: what destruction pairs

# The object lists a turn works from, built from the rules in force.
cdef enum:
    L_YOU = 0
    L_MOVE = 1
    L_WIN = 2
    L_KILL = 3              # KILL and SINK nouns, rule by rule (a noun with both is listed twice)
    L_SINK = 4
    L_HOT = 5
    L_MELT = 6
    N_LISTS = 7

cdef enum Illegal:
    ILLEGAL_NONE = 0
    ILLEGAL_KILL = 1        # the KILL check names an object twice
    ILLEGAL_SINK = 2        # the SINK check names an object twice
    ILLEGAL_SINK_GONE = 3   # the SINK check pairs a SINK object the KILL check destroyed
    ILLEGAL_HOT = 4         # the HOT/MELT check names an object twice

ctypedef struct Geometry:
    # The level's fixed facts. Things are numbered: the map's objects in
    # reading order (0 .. n_base_objects-1), then its texts in reading order,
    # then objects created by transformations.
    int width               # padded: cells outside the level are border
    int height
    int ncells
    int pad                 # 1 when a border ring was added around the level
    int delta[4]            # per direction
    uint8_t* border         # 1 per border cell
    int n_base_objects
    int n_texts
    int n_base              # n_base_objects + n_texts
    int capacity            # room for things, created ones included, during a turn
    uint16_t* base_tile     # tile of each map thing
    uint16_t* base_cell
    int n_is                # the `is` texts, in load order (thing ids)
    int* is_things
    # Map objects of each object tile, in reading order:
    # noun_objects[noun_start[t]:noun_start[t + 1]].
    int* noun_objects
    int* noun_start
    uint16_t* prop_bits     # per tile: the P_* bits a property text gives its noun
    uint8_t* keeps_facing   # per object tile: a state keeps its facing (it can ever be MOVE)
    # Level-local numbers for the guides' atoms: each object tile that can
    # ever be in play, and each text tile on the map.
    int n_kinds
    int* kind_of            # per tile, or -1
    int n_text_kinds
    int* text_kind_of       # per tile, or -1
    bint can_create         # a transformation is possible: states list created objects
    bint can_destroy        # the map has texts that can make KILL, SINK or HOT and MELT
    uint64_t root_ever[TILE_WORDS]  # object tiles with objects at load
    uint32_t* root_value    # each map thing's packed value in the root position
    # A record's entries are bit fields (_judge_record.pxi): these widths.
    int gap_bits            # a gap past 0 between listed map things
    int cell_bits           # a map thing's cell + 1 (0: out of play)
    uint8_t* facing_bits    # per map thing: 3 if its facing is kept, else 0
    int kind_bits           # a created object's kind_of number
    int* kind_tile          # per kind_of number, its object tile

ctypedef struct Position:
    # Everything the judge's next turns depend on. `slot[c]` is the thing
    # holding cell c's object-layer slot; a thing elsewhere on c is hidden.
    int n_things            # map things plus created objects (dead ones included)
    uint16_t* tile          # tile id per thing
    uint16_t* cell
    uint8_t* facing         # 0 none, 1 up, 2 down, 3 left, 4 right
    uint8_t* alive          # objects leave play when destroyed or transformed
    int32_t* slot
    uint64_t ever[TILE_WORDS]   # object tiles that ever had objects (the `X is X` guard)

ctypedef struct Props:
    int n_rules
    uint16_t rule_left[MAX_RULES]
    uint16_t rule_right[MAX_RULES]
    uint16_t noun_props[N_TILES]    # P_* bits per object tile
    uint8_t kill_mult[N_TILES]      # how often each noun is in the KILL list (KILL, SINK)
    int n_nouns[N_LISTS]            # the nouns of each list, in rule order
    uint16_t nouns[N_LISTS][MAX_RULES]

ctypedef struct Lists:
    # Thing ids of each list's objects: nouns in rule order, each noun's
    # objects in creation order.
    int count[N_LISTS]
    int* items[N_LISTS]

ctypedef struct Entries:
    # A record (`data`, `length` bytes) and its map-thing entries
    # (_judge_record.pxi) as read: each entry's thing and value, ascending
    # by thing, and the bit of `data` where it starts (bit[n] is where the
    # last one ends). A child's record is its parent's with the entries a
    # turn changed written over, or copies the runs of the parent's entries
    # that it left alone, rather than encode them again.
    int n
    int* thing
    uint32_t* value
    int* bit
    int* index              # per map thing: its entry, or -1
    uint8_t* data           # ARENA_SLACK spare bytes at its end, for whole-word reads
    int length
    bint known              # these are the entries of the current position

ctypedef struct Change:
    # One logged change (UNDO_* in _judge_turn.pxi). A move: `thing` left
    # cell `before`, where it faced `facing`, and the slots of that cell and
    # of its new one were held by `slot_from` and `slot_to`. A facing:
    # `thing`'s was `before`.
    int32_t thing
    int32_t before
    int32_t slot_from
    int32_t slot_to
    uint8_t facing
    uint8_t kind

ctypedef struct UndoLog:
    # What a turn changed, newest last, to put the parent back.
    int n                   # -1: abandoned, the parent is copied back whole
    int capacity
    Change* changes

ctypedef struct Turn:
    # Scratch for one turn.
    uint8_t* moved          # things that moved this turn
    int* moved_list
    int n_moved
    int texts_moved
    bint relayered          # a rule reading or destruction rewrote layers
    bint text_slots_changed # a slot holding a text changed hands (the rule scan may read otherwise)
    bint props_changed      # the turn read the rules: its own are in `props`
    bint made               # a reading of the turn transformed objects
    bint rules_settled      # ... and a scan of the slots it left finds its rules (read_rules)
    bint lists_changed      # the turn rebuilt the lists: its own are in `lists`
    bint lists_kept         # its last reading found the rules in force and nothing left play: the lists stand
    int log_kept            # changes the log held when a reading abandoned it (-1: none)
    int* reslotted          # things whose slot or facing a reading changed (unlogged)
    int n_reslotted         # -1: more than TOUCHED_LIMIT
    int max_pairs           # room for destruction pairs (more than objects: one repeats)
    int illegal
    int illegal_thing
    int* pair_a             # destruction pairs
    int* pair_b
    int* seen               # per thing: how many times a check names it
    int32_t* stamp          # per cell: a check's marker
    int32_t* chain_head     # per stamped cell: its first list member (an index), -1 for none
    int* chain_next         # per list member: the next one on its cell
    int32_t epoch
    Lists lists             # the turn's own lists, once it rebuilt them
    Props props             # the turn's own rules, once it read them again
    int step                # 1 the players' step, 2 the movers' (for `died`)
    int* died               # per thing: the step that destroyed it this turn, else 0
    int* died_list
    int n_died
    int n_sink              # the SINK list as the step began: snapshot2[:n_sink]
    bint plain_turns        # plain turns and the KILL look take their shortcuts (`incremental`)
    int plain_misses        # plain turns with MOVE objects that failed in a row (shortcut_due)
    bint lone               # a lone_turn: its one logged move is all that changed
    bint fast               # the parent had no pair standing: look only where things moved
    int32_t* parent_stamp   # per cell: parent_epoch when parent_head is this parent's
    int32_t* parent_head    # per cell: the parent's first object there, -1 for none
    int* parent_next        # per thing: the parent's next object on its cell
    int32_t parent_epoch
    int32_t* moved_stamp    # per cell: moved_epoch when moved_head is this check's
    int32_t* moved_head     # per cell: the first object (a moved_list index) that moved there, -1 for none
    int* moved_next         # per moved_list index: the next one on its cell
    int32_t moved_epoch
    uint16_t* roles_at      # per stamped cell: the roles of this turn's movers there (destruction)
    int* movers_at          # ... and how many there are
    int* snapshot           # a list as it stood at the start of a step
    int* snapshot2
    int* snapshot3


cdef class JudgeLevel(CoreLevel):
    cdef Geometry geo
    cdef Position root
    cdef Props root_props
    cdef int root_flags             # RECORD_* of the root position


@cython.final                   # its own methods call each other directly
cdef class JudgeWorkspace(Workspace):
    cdef JudgeLevel level
    cdef Pool mem
    cdef Position pos
    cdef Position saved             # the parent, to restore after a child
    cdef Props props                # the rules in force in `pos`
    cdef Lists lists
    cdef int record_flags           # RECORD_* of `pos`
    cdef Turn turn
    cdef UndoLog log
    cdef Props scanned              # scratch: a fresh scan
    cdef Entries entries            # the map things that differ from the root in `saved`
    cdef Entries incoming           # load_near: the next state's
    cdef int* touched
    cdef uint64_t* mark             # the touched things, a bit each
    cdef uint8_t* surprise          # decoding: each thing's unexpected-hidden bit
    cdef uint32_t* changed_values
    cdef int* old_cells
    cdef int n_changed              # load_near: the things it changed (touched, old_cells)
    cdef int patch_misses[2]        # pack_child: patches failed in a row, after few and after many logged changes
    cdef bint chained               # the turn's parent chains are those of `pos`
    cdef char thread_gap[CACHE_LINE_GAP]

    cdef void set_root_unread(self) noexcept nogil
    cdef int load_whole(self, const uint8_t* record, int length) noexcept nogil
    cdef int load_near(self, const uint8_t* record, int length) noexcept nogil
    cdef int moved_near(self, const uint8_t* record, int length, uint32_t meta, int changed,
                        bint patched) noexcept nogil
    cdef void prepare_parent(self) noexcept nogil
    cdef int flags_now(self, int flags, bint exact) noexcept nogil
    cdef int logged_things(self, int n_logged) noexcept nogil
    cdef bint short_log(self) noexcept nogil
    cdef int touch(self, int thing, int n) noexcept nogil
    cdef bint patchable_reading(self) noexcept nogil
    cdef int patch_parent(self, const Props* rules, int n_logged, int n_notes, uint8_t* out) noexcept nogil
    cdef const Props* rules_now(self) noexcept nogil
    cdef const Lists* lists_now(self) noexcept nogil
    cdef tuple xy(self, int cell)
