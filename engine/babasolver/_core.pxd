# The narrow door into the C-level core: the level's fixed facts, the
# position a turn plays on, the rule set's derived properties, and the
# nogil functions of the judge's turn and of state packing.
from libc.stdint cimport uint8_t, uint16_t, uint32_t, uint64_t, int32_t

cdef enum:
    MAX_CELLS = 65535       # cells are uint16 in a position (a 64x64 level is 4356 with its ring)
    MAX_RULES = 128
    N_DIRECTIONS = 4
    WAIT = 4                # actions 0..3 are up, down, left, right
    NO_THING = -1           # an empty object-layer slot
    ARENA_SLACK = 16        # spare bytes after the arena, for whole-word copies
    INDEX_BITS = 26         # a store slot: 6 tag bits over a 26-bit state index
    TAG_BITS = 6
    INDEX_MASK = (1 << 26) - 1
    MAX_STATES = (1 << 26) - 2
    REHASH_AHEAD = 16       # states hashed ahead of their insert when the table grows
    QUEUE_SIZE = 16         # children in flight while inserting (a power of two)
    INSERT_LAG = 15         # children between prefetching a slot and inserting
    PEEK_LAG = 5            # ... and looking at the state named in that slot
    FETCH_LAG = 10          # ... and fetching that state's bytes
    TOUCHED_LIMIT = 96      # a turn logging more changes than this is packed whole

# Property bits of a noun under the rules in force.
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

cdef enum TurnOutcome:
    TURN_CHANGED = 1        # the position differs from before the turn
    TURN_WON = 2
    TURN_DEAD = 4           # no YOU and no MOVE object is left
    TURN_ILLEGAL = 8        # the judge cannot play this turn (RULES.md)
    TURN_RELAYERED = 16     # a rule reading or destruction rewrote layers: pack the whole position

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
    int delta[N_DIRECTIONS]
    uint8_t* border         # 1 per border cell
    int n_base_objects
    int n_texts
    int n_base              # n_base_objects + n_texts
    int capacity            # room for things, created ones included, during a turn
    uint8_t* base_tile      # tile of each map thing
    uint16_t* base_cell
    int n_is                # the `is` texts, in load order (thing ids)
    int* is_things
    # Map objects of each noun tile, in reading order:
    # noun_objects[noun_start[t]:noun_start[t + 1]].
    int* noun_objects
    int noun_start[65]
    uint64_t facing_nouns   # nouns whose facing a state keeps: those that can ever be MOVE
    bint can_create         # a transformation is possible: states list created objects
    bint can_destroy        # the map has texts that can make KILL, SINK or HOT and MELT
    uint32_t root_ever      # nouns with objects at load
    uint32_t* root_value    # each map thing's packed value in the root position
    int value_facing        # facings stored in a value (5 when some noun can be MOVE, else 1)

ctypedef struct Position:
    # Everything the judge's next turns depend on. `slot[c]` is the thing
    # holding cell c's object-layer slot; a thing elsewhere on c is hidden.
    int n_things            # map things plus created objects (dead ones included)
    uint8_t* tile           # tile id per thing
    uint16_t* cell
    uint8_t* facing         # 0 none, 1 up, 2 down, 3 left, 4 right
    uint8_t* alive          # objects leave play when destroyed or transformed
    int32_t* slot
    uint32_t ever           # nouns that ever had objects (the `X is X` guard)

ctypedef struct Props:
    int n_rules
    uint8_t rule_left[MAX_RULES]
    uint8_t rule_right[MAX_RULES]
    uint16_t noun_props[64]         # P_* bits per noun tile
    uint8_t kill_mult[64]           # how often each noun is in the KILL list (KILL, SINK)
    int n_nouns[N_LISTS]            # the nouns of each list, in rule order
    uint8_t nouns[N_LISTS][MAX_RULES]

ctypedef struct Lists:
    # Thing ids of each list's objects: nouns in rule order, each noun's
    # objects in creation order.
    int count[N_LISTS]
    int* items[N_LISTS]

ctypedef struct UndoLog:
    # What a turn changed, newest last, to put the parent back.
    int n
    int capacity
    int32_t* where          # thing id, or cell (for slot entries) + UNDO_SLOT_BASE
    int32_t* before
    uint8_t* kind

ctypedef struct Turn:
    # Scratch for one turn.
    uint8_t* moved          # things that moved this turn
    int* moved_list
    int n_moved
    int texts_moved
    bint relayered          # a rule reading or destruction rewrote layers
    bint text_slots_changed # a slot holding a text changed hands (the rule scan may read otherwise)
    bint props_changed      # the turn read the rules: its own are in `props`
    bint lists_changed      # the turn rebuilt the lists: its own are in `lists`
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
    bint fast               # the parent had no pair standing: look only where things moved
    int32_t* parent_stamp   # per cell: parent_epoch when parent_head is this parent's
    int32_t* parent_head    # per cell: the parent's first object there, -1 for none
    int* parent_next        # per thing: the parent's next object on its cell
    int32_t parent_epoch
    int* snapshot           # a list as it stood at the start of a step
    int* snapshot2
    int* snapshot3
