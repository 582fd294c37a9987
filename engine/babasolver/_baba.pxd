# The commercial game's rule set (RULES-baba.md) behind the seam of
# _ruleset.pxd: stacks of any number of things per cell, each with its own
# facing; two movement phases resolved in passes; one transformation link
# and destruction once, at the end of the turn.
from libc.stdint cimport uint8_t, uint16_t, uint32_t, int32_t

from babasolver._ruleset cimport CoreLevel, Pool, Workspace, CACHE_LINE_GAP
from babasolver._tiles cimport N_TILES

cdef enum:
    G_MAX_RULES = 4096      # stacked texts can make many combinations; a turn that reads more is refused
    # Property bits (the Keke "kill" is the game's DEFEAT).
    G_YOU = 1
    G_WIN = 2
    G_STOP = 4
    G_PUSH = 8
    G_MOVE = 16
    G_DEFEAT = 32
    G_SINK = 64
    G_HOT = 128
    G_MELT = 256

ctypedef struct Board:
    # The level's fixed facts. Things are numbered: the map's objects in
    # reading order, then its texts in reading order, then objects made by
    # transformations (in the order they were made).
    int width               # padded: a ring of border cells
    int height
    int ncells
    int pad
    int delta[4]            # per action: up, down, left, right
    uint8_t* border
    int n_base_objects
    int n_texts
    int n_base
    int capacity            # the most things a position holds
    uint16_t* base_tile
    uint16_t* base_cell
    uint8_t* base_facing
    uint16_t* prop_bits     # per tile: the G_* bits a property text gives its noun
    bint keeps_facing       # some text says MOVE: facings are part of a state
    int n_kinds             # object tiles that can be in play, numbered for the guides
    int* kind_of
    int n_text_kinds        # text tiles on the map, numbered for the guides
    int* text_kind_of
    uint32_t* root_value    # each map thing's packed value as loaded

ctypedef struct Things:
    int n                   # map things plus created objects (dead ones included until compacted)
    uint16_t* tile
    uint16_t* cell
    uint8_t* facing         # 1 up, 2 down, 3 left, 4 right (texts: 0)
    uint8_t* alive

ctypedef struct Rules:
    int n
    bint overflow                   # the texts formed more than G_MAX_RULES rules: not all are here
    uint16_t left[G_MAX_RULES]      # noun text
    uint16_t right[G_MAX_RULES]     # noun or property text
    uint16_t noun_props[N_TILES]    # G_* bits per object tile
    uint16_t move_count[N_TILES]    # `X is move` rules per object tile (up to G_MAX_RULES)
    uint8_t protected[N_TILES]      # `X is X`: no transformation of X
    uint8_t transforms[N_TILES]     # `X is Y` rules (Y another noun) per object tile
    int n_you
    uint16_t you[G_MAX_RULES]       # YOU nouns, each once, in rule order
    int n_move
    uint16_t move[G_MAX_RULES]      # MOVE nouns, each once, in rule order
    int max_moves


cdef class GameLevel(CoreLevel):
    cdef Board board
    cdef Things root
    cdef Rules root_rules


cdef class GameWorkspace(Workspace):
    cdef GameLevel level
    cdef Pool mem
    cdef Things pos
    cdef Things saved
    cdef Rules parent_rules         # the rules of `pos`: always a scan of its texts
    cdef Rules child_rules          # after play, when the turn read them again
    cdef bint child_read
    cdef int32_t* head              # per cell: its first thing (cell chains of the things in play)
    cdef int32_t* next_on_cell      # per thing
    cdef int32_t* stamp             # per cell: a marker
    cdef int32_t epoch
    cdef int* movers
    cdef uint8_t* mover_pass
    cdef uint8_t* mover_dir
    cdef uint16_t* mover_steps      # steps left, with several MOVE rules (§4.8)
    cdef int32_t* pending           # per thing: the cell it leaves for this phase, -1 for none
    cdef uint8_t* pending_dir
    cdef uint8_t* leaving           # per thing: a bit per direction of every move pending, not only the last
    cdef uint8_t* fresh_dirs        # the same for the moves decided this pass
    cdef int* pending_list
    cdef int n_pending
    cdef int* fresh                 # moves decided this pass: thing, cell, dir
    cdef int32_t* fresh_at          # per thing: its entry in `fresh`, -1 for none
    cdef int n_fresh
    cdef uint8_t* doomed            # destruction marks
    cdef int* scratch
    cdef int illegal_kind
    cdef char thread_gap[CACHE_LINE_GAP]

    cdef void chain_cells(self) noexcept nogil
    cdef int judge(self, int target, int direction) noexcept nogil
    cdef bint push_line(self, int start, int direction) noexcept nogil
    cdef void decide(self, int thing, int target, int direction) noexcept nogil
    cdef int phase(self, int n, bint moving, bint further) noexcept nogil
    cdef int list_movers(self, const Rules* rules, bint you) noexcept nogil
    cdef bint transform(self, const Rules* rules) noexcept nogil
    cdef bint destroy(self, const Rules* rules) noexcept nogil
    cdef void destroy_where(self, const Rules* rules, uint16_t victim, uint16_t killer) noexcept nogil
    cdef bint won(self, const Rules* rules) noexcept nogil
    cdef bint read_child_rules(self) noexcept nogil
    cdef bint transforms_due(self, const Rules* rules) noexcept nogil
    cdef bint destruction_due(self, const Rules* rules) noexcept nogil
    cdef bint dead_with(self, const Rules* rules) noexcept nogil
    cdef void compact(self) noexcept nogil
    cdef const Rules* rules_now(self) noexcept nogil
    cdef tuple xy(self, int cell)
