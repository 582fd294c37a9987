# The narrow door into the C-level core: its types and the nogil functions
# that run one turn, read the rules and pack a board into state bytes.
from libc.stdint cimport uint8_t, uint16_t, uint32_t, uint64_t

cdef enum:
    MAX_CELLS = 1024        # a packed entry keeps the cell in 10 bits
    CELL_WORDS = 16         # MAX_CELLS bits in 64-bit words
    MAX_RULES = 128
    MAX_NOUNS = 64
    MAX_RECORD = 12 * MAX_CELLS  # objects never multiply: <= 3 entries of <= 3 bytes each
    ARENA_SLACK = 16        # spare bytes after the arena, for whole-word copies
    N_DIRECTIONS = 4
    WAIT = 4                # actions 0..3 are up, down, left, right
    MAX_OBJECTS_PER_CELL = 16
    INDEX_BITS = 26         # a store slot: 6 tag bits over a 26-bit state index
    TAG_BITS = 6
    INDEX_MASK = (1 << 26) - 1
    MAX_STATES = (1 << 26) - 2
    FULL_PACK_SHARE = 16    # a child changing over 1/16 of the cells is packed whole
    FULL_PACK_SHARE_FACING = 4  # over 1/4 when facings are kept (a board pass costs more)
    TOGGLE_LIMIT = 32       # above this many keys, boards are rebuilt and scanned whole
    REHASH_AHEAD = 16       # states hashed ahead of their insert when the table grows
    QUEUE_SIZE = 16         # children in flight while inserting (a power of two)
    INSERT_LAG = 15         # children between prefetching a slot and inserting
    PEEK_LAG = 5            # ... and looking at the state named in that slot
    FETCH_LAG = 10          # ... and fetching that state's bytes

cdef enum TurnFlags:
    TURN_WON = 1
    TURN_DEAD = 2

ctypedef struct Props:
    # Object masks per property; `push` includes every text.
    uint64_t you, win, stop, push, move, kill, sink, hot, melt
    uint64_t movable
    uint64_t protected      # nouns with an `X is X` rule
    int n_you
    uint8_t you_order[MAX_NOUNS]
    int n_move
    uint8_t move_order[MAX_NOUNS]
    int n_transforms
    uint8_t transform_from[MAX_RULES]
    uint8_t transform_to[MAX_RULES]
    int n_rules
    uint8_t rule_left[MAX_RULES]
    uint8_t rule_right[MAX_RULES]

ctypedef struct Geometry:
    int width               # padded width: cells outside the level are border
    int height
    int ncells
    int pad                 # 1 when a border ring was added around the level
    int first               # first and one-past-last cell that can hold objects
    int stop
    int delta[N_DIRECTIONS]
    bint track_facing
    uint64_t facing_mask    # tiles whose facing a state keeps: those that can become MOVE
    int n_kinds             # tiles this level can ever hold, numbered densely
    uint64_t kind_divisor   # ceil(2**32 / n_kinds): key // n_kinds without a division
    uint64_t kinds_mask     # the tiles that have a kind
    uint8_t kind_of_tile[64]
    uint8_t tile_of_kind[64]
    # The cells of each kind on the initial board, in reading order: kind k
    # is at initial_cells[kind_start[k]:kind_start[k + 1]].
    int* initial_cells
    int kind_start[65]

ctypedef struct Board:
    uint64_t* grid          # one tile mask per cell
    uint64_t* face0         # three bit planes aligned with the tile bits:
    uint64_t* face1         # the facing code of tile t in cell c is
    uint64_t* face2         # bit t of (face0, face1, face2)[c]

ctypedef struct Scratch:
    uint64_t* moved         # tiles that moved into each cell this turn
    int* touched            # cells whose `moved` entry must be cleared
    int n_touched
    int* snapshot
    uint8_t* snapshot_moved
    bint movers_known       # mover_cells lists the MOVE objects before the turn:
    int* mover_cells        # those of props.move_order[i] at
    int mover_start[MAX_NOUNS + 1]  # mover_cells[mover_start[i]:mover_start[i + 1]]
    int* player_cells       # the players' step order, fixed before anyone moves
    uint8_t* player_tiles
    int* danger_cells       # cells where destruction was due before the turn
    int n_danger
    int* changed            # cells whose contents or facings the turn changed, once each
    int n_changed
    uint64_t changed_bits[CELL_WORDS]   # a bit per cell listed in `changed`
    bint destroyed          # destruction removed something this turn
    bint text_moved

cdef void read_rules(const Geometry* geo, Board* board, Props* props, bint transform) noexcept nogil
cdef void read_rules_at(const Geometry* geo, Board* board, Props* props, const int* is_cells,
                        int n_is_cells, bint transform) noexcept nogil
cdef int list_players(const Geometry* geo, const Board* board, const Props* props,
                      const int* key_cells, const uint8_t* key_kinds, int n_keys,
                      int* cells, uint8_t* tiles) noexcept nogil
cdef bint play_turn(const Geometry* geo, Board* board, Scratch* scratch, const Props* props,
                    int action, const int* player_cells, const uint8_t* player_tiles,
                    int n_players) noexcept nogil
cdef int list_danger_cells(const Geometry* geo, const Board* board, const Props* props,
                           const int* key_cells, const uint8_t* key_kinds, int n_keys,
                           int* cells) noexcept nogil
cdef int assess(const Geometry* geo, const Board* board, const Props* props) noexcept nogil
cdef int pack_board(const Geometry* geo, const Board* board, const uint64_t* initial,
                    uint8_t* out) noexcept nogil
cdef void decode_record(const Geometry* geo, const uint8_t* record, int length, uint32_t* keys,
                        int* key_ends, int* n_keys, uint32_t* facings, int* n_facings) noexcept nogil
cdef void board_from_keys(const Geometry* geo, Board* board, const uint64_t* initial,
                          const uint32_t* keys, int n_keys,
                          const uint32_t* facings, int n_facings) noexcept nogil
cdef uint64_t hash_bytes(const uint8_t* data, int length) noexcept nogil
