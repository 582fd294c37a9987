"""The core's own machinery: packed states, the visited store, batch expansion."""
from __future__ import annotations

import random
import sys

import pytest

from babasolver import tiles
from babasolver._core import STORE_CAPACITY, Expander, SearchOutcome, StateStore, take_generated
from babasolver._judge import JudgeLevel
from babasolver.rulesets import core_level
from babasolver.game import Simulation
from babasolver.level import load_level, played_by

from util import make_level

MOVER_LEVEL = [
    "B12.K17.....",
    "F13.R15.....",
    "b..r..k...f.",
    "..r....k....",
    "W16.wwww....",
]

# Maps where creation order, stacking, hidden slots and destruction matter.
MAPS = [
    MOVER_LEVEL,
    ["B12..", "F13.f", ".b.r.", "R15..", "A10.a"],
    ["B12.S10..", "F13....s.", "b...L14..", "..l..fl..", "K1B......"],     # sinks, kills, keke is baba
    ["B12.L18.", "A19.l.a.", "b..aa.l.", "K17.k...", "F13...f."],          # hot, melt, a mover
    ["B12.R1B.", "bb.r..r.", "K12.F13.", "k..f....", "........"],          # two babas, rock is baba
    ["B12...", "b.a5..", "A17..k", "K12...", "......"],                    # grass moves, texts onto YOU
]


def random_walk(level, steps, seed):
    """Records along a random play that stops at a win or an illegal turn."""
    rng = random.Random(seed)
    sim = Simulation(level)
    seen = [sim.pack()]
    for _ in range(steps):
        sim.step(rng.choice([0, 1, 2, 3, 4, 3, 2]))
        if sim.illegal is not None or sim.won:
            break
        seen.append(sim.pack())
    return sim, seen


def keeps_facing(level, tile):
    """Whether states keep `tile`'s facing: only nouns that can ever be MOVE."""
    return tiles.MOVE_TEXT in level.grid and tiles.OBJECT_TEXT[tile] in level.grid


@pytest.mark.parametrize("rows", MAPS)
@pytest.mark.parametrize("seed", range(4))
def test_pack_then_unpack_is_the_identity(rows, seed):
    level = make_level(rows)
    sim, records = random_walk(level, 40, seed)
    other = Simulation(level)
    for record in records:
        other.unpack(record)
        assert other.pack() == record
    if sim.illegal is None and not sim.won:
        other.unpack(records[-1])
        assert other.objects() == [(t, x, y, f if keeps_facing(level, t) else 0, h)
                                   for t, x, y, f, h in sim.objects()]
        assert other.texts() == sim.texts()
        assert other.rules() == sim.rules()


def test_equal_positions_pack_equal_and_different_positions_differ():
    level = make_level(["B12.", "b..."])
    first, second = Simulation(level), Simulation(level)
    first.step_keke("rlr")
    second.step_keke("r")
    assert first.pack() == second.pack()
    first.step_keke("l")
    assert first.pack() != second.pack()


# A record's map entries, read and written from the format's description in
# _judge_record.pxi: bit fields, least significant first, with the level's
# widths. A value is 0 (out of play) or 1 + (cell << 4 | facing << 1 | surprise).

def value_from_fields(surprise, facing, code):
    """A value from its fields as a record writes them (code: cell + 1, 0 out of play)."""
    return 0 if code == 0 else 1 + ((code - 1) << 4 | facing << 1 | surprise)


def fields_of_value(value):
    """(surprise, facing, cell + 1) of a value; all 0 out of play."""
    bits = value - 1
    return (bits & 1, (bits >> 1) & 7, (bits >> 4) + 1) if value else (0, 0, 0)


def read_entries(level, data, at):
    """[(thing, value)] of the entries from byte `at` on."""
    gap_bits, cell_bits, facing_bits = core_level(level).record_widths
    number = int.from_bytes(data[at:], "little")
    left, thing, out = 8 * (len(data) - at), -1, []

    def take(n):
        nonlocal number, left
        value, number, left = number & ((1 << n) - 1), number >> n, left - n
        return value

    while left >= 8:
        gap = take(gap_bits) + 1 if take(1) else 0
        thing += gap + 1
        fb = facing_bits[thing]
        surprise, facing, code = take(1), take(fb), take(cell_bits)
        out.append((thing, value_from_fields(surprise, facing, code)))
    assert number == 0
    return out


def write_entries(level, entries):
    gap_bits, cell_bits, facing_bits = core_level(level).record_widths
    number, width, last = 0, 0, -1

    def put(value, n):
        nonlocal number, width
        number |= value << width
        width += n

    for thing, value in entries:
        gap = thing - last - 1
        last = thing
        if gap:
            put(1, 1)
            put(gap - 1, gap_bits)
        else:
            put(0, 1)
        surprise, facing, code = fields_of_value(value)
        put(surprise, 1)
        put(facing, facing_bits[thing])
        put(code, cell_bits)
    return number.to_bytes((width + 7) // 8, "little")


def read_created(level, data, at, count):
    """([(tile, value)] of `count` created objects from byte `at` on, the
    byte after them)."""
    kind_bits, cell_bits, kinds = core_level(level).created_widths
    number, used, out = int.from_bytes(data[at:], "little"), 0, []

    def take(n):
        nonlocal used
        used += n
        return (number >> (used - n)) & ((1 << n) - 1)

    for _ in range(count):
        tile, fb = kinds[take(kind_bits)]
        surprise, facing, code = take(1), take(fb), take(cell_bits)
        assert code > 0                             # cell + 1: a created object is in play
        out.append((tile, value_from_fields(surprise, facing, code)))
    return out, at + (used + 7) // 8


def write_created(level, objects):
    kind_bits, cell_bits, kinds = core_level(level).created_widths
    number, width = 0, 0
    for tile, value in objects:
        kind = [t for t, _ in kinds].index(tile)
        surprise, facing, code = fields_of_value(value)
        for field, n in ((kind, kind_bits), (surprise, 1), (facing, kinds[kind][1]), (code, cell_bits)):
            number |= field << width
            width += n
    return number.to_bytes((width + 7) // 8, "little")


def test_a_hidden_flag_alone_makes_another_state():
    # Keke pushes PUSH onto baba (YOU), which hides baba; baba walks away,
    # which empties the slot: PUSH is hidden. A record with the same cells
    # and PUSH in its slot is another position, with other bytes.
    level = make_level(["B12.", "K12.", ".k5b"])
    sim = Simulation(level)
    sim.step_keke("ru")
    texts = sim.texts()
    assert texts[-1][0] == tiles.PUSH_TEXT and texts[-1][3]      # hidden
    record = sim.pack()
    assert record[:2] == b"\0\0"                  # no object tiles gained, no created objects
    entries = read_entries(level, record, 2)
    assert write_entries(level, entries) == record[2:]
    # The last entry is PUSH, the last thing; flip its "unexpected hidden" bit.
    thing, value = entries[-1]
    entries[-1] = (thing, ((value - 1) ^ 1) + 1)
    flipped = b"\0\0" + write_entries(level, entries)
    other = Simulation(level)
    other.unpack(flipped)
    assert other.pack() == flipped != record
    assert other.texts()[:-1] == texts[:-1]
    assert other.texts()[-1] == texts[-1][:3] + (False,)
    assert [o[:3] + o[4:] for o in other.objects()] == [o[:3] + o[4:] for o in sim.objects()]


def test_creation_order_alone_makes_another_state():
    # "rock is baba" at load: the new baba comes after the map's in the
    # object list, and the record lists it whole. Swapping the two babas'
    # values gives the same cells in the other order: another position.
    level = make_level(["B12..", "R1B..", "b.r..", "....."])
    sim = Simulation(level)
    objects = sim.objects()
    assert [t for t, *_ in objects] == [tiles.BABA, tiles.BABA]
    sim.step_keke("d")
    record = sim.pack()
    assert record[:2] == bytes([0, 1])              # no object tile gained; one created object
    created, at = read_created(level, record, 2, 1)
    assert write_created(level, created) == record[2:at]
    (created_tile, created_value), = created
    assert created_tile == tiles.BABA
    entries = read_entries(level, record, at)
    baba_thing, baba_value = entries[0]
    assert baba_thing == 0                          # the map's baba is thing 0
    swapped = (bytes([0, 1]) + write_created(level, [(tiles.BABA, baba_value)])
               + write_entries(level, [(0, created_value)] + entries[1:]))
    other = Simulation(level)
    other.unpack(swapped)
    assert other.pack() == swapped != record
    def cells(sim):   # facings are not kept: nothing here can be MOVE
        return [o[:3] + o[4:] for o in sim.objects()]
    assert sorted(cells(other)) == sorted(cells(sim))
    assert cells(other) != cells(sim)


def test_a_moved_thing_is_one_byte_in_a_small_level():
    # 4 things (gap 2 bits), 4x2 cells in a ring of 6x4 (cell 6 bits, the
    # least), no MOVE text (no facing): baba's move is a one-byte entry,
    # where a gap and a value as varints took three.
    level = make_level(["B12.", "b..."])
    assert core_level(level).record_widths == (2, 6, (0, 0, 0, 0))
    sim = Simulation(level)
    sim.step_keke("r")
    record = sim.pack()
    assert len(record) == 2 + 1
    assert read_entries(level, record, 2) == [(0, 1 + ((2 * 6 + 2) << 4))]   # row 2, column 2 of the ring


def test_root_records():
    # No `is`: nothing can be made, so no created-object count.
    assert Simulation(make_level(["b.f."])).pack() == b"\0"
    assert Simulation(make_level(["B12.", "b..."])).pack() == b"\0\0"


@pytest.mark.parametrize("record", [
    b"", b"\x80", b"\x01\0\0\xff\x7f",
    b"\0\0\x01",             # an entry cut short
    b"\0\0\x01\x00",         # a text out of play
    b"\0\0\x85\x80\x00",     # an entry past the last thing
    b"\0\0\xfc",             # a cell past the map
    b"\0\0\x85\x04",         # a text moved, then padding that is not zero
    # Bytes that decode, but to a position that packs to other bytes:
    b"\0\0\x38",             # baba's entry on the cell it starts on (the level's own value)
    b"\x02\0",               # "a pair stands due", in a level where nothing can destroy
])
def test_unpack_refuses_bytes_that_are_not_a_state_of_the_level(record):
    sim = Simulation(make_level(["B12.", "b..."]))
    sim.step_keke("r")
    before = sim.pack()
    with pytest.raises(ValueError, match="not a packed state"):
        sim.unpack(record)
    assert sim.pack() == before                     # the position stays as it was
    sim.step_keke("r")
    assert sim.pack() != before


@pytest.mark.parametrize("rules", ["keke", "baba"])
@pytest.mark.parametrize("rows", MAPS)
def test_unpack_takes_only_what_pack_gives(rows, rules):
    """Every one-bit change of a record reached in play either is refused,
    with the position kept, or is a record that packs back to itself: no
    position loads under a second name."""
    level = played_by(make_level(rows), rules)
    sim, records = random_walk(level, 30, seed=len(rows[0]))
    refused = 0
    for record in records:
        for bit in range(8 * len(record)):
            changed = bytearray(record)
            changed[bit >> 3] ^= 1 << (bit & 7)
            before = sim.pack()
            try:
                sim.unpack(bytes(changed))
            except ValueError:
                refused += 1
                assert sim.pack() == before
                continue
            assert sim.pack() == bytes(changed)
    assert refused > 0


def test_unpack_refuses_created_objects_that_are_not_of_the_level():
    # "rock is baba" with a flag on the map: three object kinds, two bits.
    level = make_level(["B12..", "R1B..", "b.rf.", "....."])
    kind_bits, cell_bits, kinds = core_level(level).created_widths
    assert kind_bits == 2 and [t for t, _ in kinds] == sorted([tiles.BABA, tiles.ROCK, tiles.FLAG])
    sim = Simulation(level)
    sim.step_keke("d")
    record = sim.pack()
    created, at = read_created(level, record, 2, 1)
    width = kind_bits + 1 + dict(kinds)[tiles.BABA] + cell_bits
    number = int.from_bytes(record[2:at], "little")
    assert number >> width == 0                     # zero padding
    def made(field):
        return record[:2] + field.to_bytes(at - 2, "little") + record[at:]
    bad = [made(number | 3),                                        # a fourth kind
           made(number | ((1 << cell_bits) - 1) << (width - cell_bits)),  # a cell past the map
           made(number & ~(((1 << cell_bits) - 1) << (width - cell_bits))),  # out of play
           record[:1] + b"\x02" + record[2:]]                      # two created objects, one there
    if width % 8:
        bad.append(made(number | 1 << width))                       # padding that is not zero
    for record in bad:
        with pytest.raises(ValueError, match="not a packed state"):
            Simulation(level).unpack(record)


@pytest.mark.parametrize("hash_mask", [0, 1, 7])
def test_store_deduplicates_exactly_under_forced_collisions(hash_mask):
    store = StateStore(16, hash_mask)
    rng = random.Random(hash_mask)
    records = {bytes(rng.randrange(256) for _ in range(rng.randrange(1, 12))) for _ in range(3000)}
    records = sorted(records)
    indices = [store.add(record) for record in records]
    assert indices == list(range(len(records)))
    assert all(store.add(record) == -1 for record in records)
    assert len(store) == len(records)
    assert [store.get(i) for i in range(len(records))] == records


def test_the_table_doubles_as_the_states_fill_it():
    # The breadth-first driver leaves a batch that grew the table out of its
    # batch sizing (the grow's pause is no measure of a state's cost).
    store = StateStore(16)
    slots = [store.table_slots]
    for k in range(5000):
        store.add(k.to_bytes(2, "little"))
        if store.table_slots != slots[-1]:
            slots.append(store.table_slots)
    assert len(slots) > 2 and all(b == 2 * a for a, b in zip(slots, slots[1:]))
    assert 5000 <= 0.8 * slots[-1] < 10000


def test_the_store_counts_the_states_it_takes_before_its_table_doubles():
    # Breadth-first search stops short of a doubling that would end past its deadline.
    store = StateStore(16)
    for k in range(5000):
        before, slots = store.states_before_grow, store.table_slots
        store.add(k.to_bytes(2, "little"))
        assert (store.table_slots == 2 * slots) == (before == 0)
        assert store.table_slots in (slots, 2 * slots)
        if before:
            assert store.states_before_grow == before - 1


def test_store_keeps_parents_and_rebuilds_paths():
    store = StateStore()
    assert store.add(b"root") == 0
    assert store.add(b"a", 0, 3) == 1
    assert store.add(b"b", 1, 0) == 2
    assert store.add(b"a", 2, 1) == -1
    assert store.parent(2) == (1, 0)
    assert store.path_to(2) == [3, 0]


def children_by_single_steps(level, record):
    """action -> (child record, won, dead, illegal) by Simulation steps."""
    children = {}
    sim = Simulation(level)
    for action in range(5):
        sim.unpack(record)
        sim.step(action)
        if sim.illegal is not None:
            children[action] = (None, False, False, True)
        else:
            children[action] = (sim.pack(), sim.won, sim.dead, False)
    return children


def expansion_matches_single_steps(level, core, record, as_root):
    """Expand `record` in a store (as the root, or behind one) and compare its
    children with single steps. Returns the action that won, if one did."""
    expected = children_by_single_steps(level, record)
    store = StateStore()
    if not as_root:
        store.add(b"root")
    index = store.add(record)
    expander = Expander(core, store)
    if expander.expand(index, index + 1):
        action = expander.won_action
        assert expected[action][1] and not expected[action][3]
        assert not any(expected[a][1] and not expected[a][3] for a in range(action))
        return action
    stored = {store.parent(i)[1]: store.get(i) for i in range(index + 1, len(store))}
    for action, (child, won, dead, illegal) in expected.items():
        assert not (won and not illegal)
        if dead or illegal:
            assert action not in stored
        elif child == record or child in [expected[a][0] for a in range(action)]:
            assert action not in stored
        else:
            assert stored[action] == child
    return None


@pytest.mark.parametrize("rows", MAPS)
@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("as_root", [True, False])
def test_batch_expansion_agrees_with_single_steps(rows, seed, as_root):
    # The expander looks for destruction only where things moved unless a
    # pair stands due, and packs children from their parent's differences;
    # single steps do neither.
    level = make_level(rows)
    _, records = random_walk(level, 30, seed)
    core = core_level(level)
    for record in records[::2]:
        expansion_matches_single_steps(level, core, record, as_root)


@pytest.mark.parametrize("rows, keke, wins", [
    # Keke (MOVE) pushes WIN into "flag is win" while baba stays on the flag.
    (["B12...", "F1.3.k", "K17...", "bf...."], "rs", True),
    # Baba pushes IS out of "baba is you": no YOU is left anywhere.
    (["......", "B12...", ".b...."], "", False),
    # Baba forms "flag is win" while the rock, also YOU, is held on the flag.
    (["B12...", "R12...", "F1.3.b", "fr...."], "l", True),
])
def test_batch_expansion_sees_rule_changes_away_from_the_moved_cells(rows, keke, wins):
    level = make_level(rows)
    sim = Simulation(level)
    sim.step_keke(keke)
    core = core_level(level)
    won_by = expansion_matches_single_steps(level, core, sim.pack(), as_root=False)
    assert (won_by is not None) == wins


def test_batch_expansion_destroys_where_a_new_rule_left_an_overlap():
    # Baba walks onto the rock as keke pushes KILL into "rock is kill": the
    # overlap is left standing, and destruction is due at the next turn
    # wherever baba does not step off the rock.
    level = make_level(["B12...", "K12...", "R1.4k.", "rb...."])
    sim = Simulation(level)
    sim.step_keke("l")
    record = sim.pack()
    assert record[0] & 2            # the record says a pair stands due
    assert (tiles.ROCK_TEXT, tiles.KILL_TEXT) in sim.rules()
    assert {(t, x, y) for t, x, y, *_ in sim.objects()} >= {(tiles.BABA, 0, 3), (tiles.ROCK, 0, 3)}
    core = core_level(level)
    assert expansion_matches_single_steps(level, core, record, as_root=False) is None
    destroyed = []
    for action in range(4):
        sim.unpack(record)
        sim.step(action)
        destroyed.append(all(t != tiles.BABA for t, *_ in sim.objects()))
    assert any(destroyed) and not all(destroyed)


def test_seed_level_00_is_won_by_eight_moves_right(repo_root):
    sim = Simulation(load_level(repo_root / "levels" / "00"))
    for turn in range(1, 9):
        sim.step(3)
        assert sim.won == (turn == 8)


def test_a_64_by_64_level_plays_and_searches():
    rows = ["." * 64 for _ in range(64)]
    rows[0] = "B12" + "." * 58 + "F13"
    rows[63] = "b" + "." * 62 + "f"
    level = make_level(rows)
    sim = Simulation(level)
    sim.step_keke("r" * 63)
    assert sim.won
    from babasolver.solver import solve
    result = solve(level, max_states=200_000)
    assert result.solved and len(result.solution) == 63


def test_level_too_large_is_refused():
    with pytest.raises(ValueError, match="too large"):
        JudgeLevel(300, 300, [tiles.EMPTY] * 90000)


def breadth_first_store(level, incremental, limit=20000):
    """The store of a breadth-first search, its win, and its counters."""
    core = core_level(level)
    store = StateStore()
    expander = Expander(core, store)
    expander.incremental = incremental
    expander.add_root()
    head = 0
    won = None
    while head < len(store) < limit:
        stop = min(len(store), head + 256)
        if expander.expand(head, stop):
            won = (expander.won_parent, expander.won_action)
            break
        head = stop
    counters = (expander.generated, expander.expanded, expander.dead_ends, expander.illegal)
    return store, won, counters


def assert_same_search(level, limit):
    """Incremental loading, packing and plain turns (and the turns a state
    comes back by, counted unplayed) change no stored state, no win and no
    counter: generated turns count those too."""
    incremental, won_incremental, counted_incremental = breadth_first_store(level, True, limit)
    full, won_full, counted_full = breadth_first_store(level, False, limit)
    assert won_incremental == won_full
    assert counted_incremental == counted_full
    assert len(incremental) == len(full)
    assert all(incremental.get(i) == full.get(i) for i in range(len(full)))
    assert all(incremental.parent(i) == full.parent(i) for i in range(len(full)))


@pytest.mark.parametrize("rows", MAPS + [
    ["B12..r..", "R15.rr..", "W16ww...", ".b..r...", "F13....."],     # no flag: explores
])
def test_incremental_packing_builds_the_same_store_as_full_packing(rows):
    assert_same_search(make_level(rows), 20000)


@pytest.mark.parametrize("level_id", ["43", "53", "59", "120", "126", "173"])
def test_incremental_loading_builds_the_same_store_on_levels_that_destroy(keke_sets, level_id):
    """Destruction checks use the parent's objects chained by cell, which a
    near load moves thing by thing; a sibling's load decodes only the
    entries that differ; a child whose turn read the rules in force is
    patched from its parent, its lists kept or filtered (these levels push
    texts every few turns); a plain turn (one YOU object, on 53, 120 and
    126; with MOVE objects, on 59 and 173) looks for a pair only on the
    cells it steps onto; a step where only the KILL check can pair (43,
    59, 173) first compares the YOU objects' cells with the KILL objects':
    the store must be the full decode's and the general turn's."""
    from babasolver.level import read_keke_level
    level = read_keke_level(keke_sets["full_biy"], level_id).level
    assert_same_search(level, 60000)


def states_that_come_back(level, limit):
    """A breadth-first store, and its states whose turn said that the
    opposite action makes the parent again."""
    store, _, _ = breadth_first_store(level, True, limit)
    return store, [i for i in range(1, len(store)) if store.comes_back(i)]


def assert_each_comes_back(level, store, states):
    sim = Simulation(level)
    for index in states:
        parent, action = store.parent(index)
        sim.unpack(store.get(index))
        sim.step(action ^ 1)
        assert sim.illegal is None and not sim.won and not sim.dead
        assert sim.pack() == store.get(parent), (index, action)


# No MOVE object: one YOU object, or two babas (where rock is baba), or a
# row of three that often steps into one another's cells.
COMING_BACK_MAPS = [MAPS[1], MAPS[2], MAPS[4], MAPS[5], ["B12.....", "........", ".bbb....", "........"]]


@pytest.mark.parametrize("rows", COMING_BACK_MAPS)
def test_a_state_that_comes_back_is_its_parent_again_by_the_opposite_action(rows):
    """The expander counts that turn without playing it: played, it must
    give the parent's very bytes (a stored state, so the store is the same).
    Here the movers step over sinks, kills and hidden texts."""
    level = make_level(rows)
    store, states = states_that_come_back(level, 3000)
    assert states
    assert_each_comes_back(level, store, states)


def test_no_state_comes_back_where_move_objects_move():
    for rows in (MAPS[0], MAPS[3]):
        assert states_that_come_back(make_level(rows), 3000)[1] == []


@pytest.mark.parametrize("level_id", ["53", "107", "126"])
def test_states_come_back_on_competition_levels(keke_sets, level_id):
    """On 107 and 126 the one YOU object's facing is not kept: most of the
    states stored come back (83% and 73% of the first 40,000). On 53 it is
    kept (a MOVE text is on the map), and only a step the way the mover
    already faced can come back (26%)."""
    from babasolver.level import read_keke_level
    level = read_keke_level(keke_sets["full_biy"], level_id).level
    store, states = states_that_come_back(level, 40000)
    assert len(states) > len(store) // (20 if level_id == "53" else 4)
    assert_each_comes_back(level, store, states[::7])


def swapped_turns(level, limit):
    """A breadth-first store, and its (state, action) pairs whose turn the
    expander counts without playing it because the swapped turns from an
    earlier state make its child (not the way back to the parent)."""
    store, _, _ = breadth_first_store(level, True, limit)
    expander = Expander(core_level(level), store)
    found = []
    for index in range(1, len(store)):
        back = store.parent(index)[1] ^ 1
        mask = expander.unplayed_actions(index)
        found += [(index, action) for action in range(4) if mask >> action & 1 and action != back]
    return store, found


def assert_each_swap_is_made_earlier(level, store, swaps):
    """Played, the turn gives what the parent's child by that action
    makes by the action the state was reached by: and that child is a
    state stored before this one, so its turns come first."""
    sim = Simulation(level)
    for index, action in swaps:
        parent, arrived = store.parent(index)
        assert arrived >> 1 != action >> 1 and action < arrived
        sim.unpack(store.get(index))
        sim.step(action)
        assert sim.illegal is None and not sim.won and not sim.dead
        child = sim.pack()
        sim.unpack(store.get(parent))
        sim.step(action)
        assert sim.illegal is None and not sim.won and not sim.dead
        side = store.find(sim.pack())
        assert 0 <= side < index, (index, action)
        sim.step(arrived)
        assert sim.pack() == child, (index, action)


# One baba, then three (the row steps into one another's cells, and a
# swap needs each to step into an empty slot both ways).
SWAPPING_MAPS = [["B12.....", "........", "..b..r..", "........", "........"],
                 ["B12.....", "........", ".bbb....", "........", "........"]]


@pytest.mark.parametrize("rows", SWAPPING_MAPS)
def test_a_turn_that_swapped_turns_make_from_an_earlier_state_is_counted_not_played(rows):
    level = make_level(rows)
    store, swaps = swapped_turns(level, 3000)
    assert swaps
    assert_each_swap_is_made_earlier(level, store, swaps)
    assert_same_search(level, 20000)


def test_no_turn_is_swapped_where_the_you_tile_keeps_its_facing():
    level = make_level(["B12..7..", "........", "..b.....", "........"])     # a loose MOVE text
    assert swapped_turns(level, 3000)[1] == []


@pytest.mark.parametrize("level_id", ["42", "107", "120"])
def test_swapped_turns_on_competition_levels(keke_sets, level_id):
    """On 107 and 120 (one YOU object) a fifth of the turns are counted
    this way; on 42 (three floors are YOU) a twentieth."""
    from babasolver.level import read_keke_level
    level = read_keke_level(keke_sets["full_biy"], level_id).level
    store, swaps = swapped_turns(level, 20000)
    assert len(swaps) > len(store) // 20
    assert_each_swap_is_made_earlier(level, store, swaps[::5])
    assert_same_search(level, 60000)


def test_a_mover_whose_facing_is_kept_comes_back_only_facing_the_way_back():
    level = make_level(["B12..7..", "........", "..b.....", "........"])     # a loose MOVE text
    store, states = states_that_come_back(level, 2000)
    assert states
    sim = Simulation(level)
    for index in states:
        parent, action = store.parent(index)
        sim.unpack(store.get(parent))
        facing = [f for t, x, y, f, h in sim.objects()][0]
        assert facing == (action ^ 1) + 1


def test_generate_only_reads_the_store_and_insert_adds_what_expand_would():
    level = make_level(MOVER_LEVEL)
    core = core_level(level)
    _, records = random_walk(level, 30, 3)
    n = min(12, len(records))
    by_expand, by_steps = StateStore(), StateStore()
    for record in records[:n]:
        by_expand.add(record)
        by_steps.add(record)
    n = len(by_expand)
    Expander(core, by_expand).expand(0, n)
    two_steps = Expander(core, by_steps)
    assert two_steps.generate(0, n) == 0
    assert len(by_steps) == n
    two_steps.insert_generated()
    assert [by_steps.get(i) for i in range(len(by_steps))] == [by_expand.get(i) for i in range(len(by_expand))]
    assert [by_steps.parent(i) for i in range(n, len(by_steps))] == [
        by_expand.parent(i) for i in range(n, len(by_expand))]
    with pytest.raises(IndexError):
        two_steps.generate(0, len(by_steps) + 1)


def test_staged_states_play_the_same_while_the_store_grows():
    """An expander generates from its own copy of the staged states, so
    inserting into the store meanwhile (growing, and so moving, its arena
    and its tables) changes none of the children."""
    level = make_level(MOVER_LEVEL)
    core = core_level(level)
    _, records = random_walk(level, 40, 5)
    store = StateStore(16)
    for record in records:
        store.add(record)
    n = len(store)
    assert n > 8
    plain = Expander(core, store)
    assert plain.generate(1, n) == SearchOutcome.SEARCH_GOING
    listed = plain.listed_children
    expected = take_generated(plain, 1, 0)
    staged = Expander(core, store)
    staged.stage(1, n)
    arena_before = store.memory_bytes
    added = store.add_counting(1 << 40, (1 << 40) + 2_000_000, 8)     # 8-byte records no state packs to
    assert added == 2_000_000 and store.memory_bytes > 100 * arena_before
    assert staged.generate_staged() == SearchOutcome.SEARCH_GOING
    assert staged.listed_children == listed > 0
    assert take_generated(staged, 1, 0) == expected
    assert staged.generate_staged() == SearchOutcome.SEARCH_GOING      # the copy stays until the next stage
    assert take_generated(staged, 1, 0) == expected
    assert staged.expanded == plain.expanded * 2 and staged.generated == plain.generated * 2
    with pytest.raises(RuntimeError, match="staged"):
        Expander(core, store).generate_staged()
    with pytest.raises(IndexError):
        staged.stage(0, len(store) + 1)


def test_store_holds_more_states_than_the_old_26_bit_index():
    """The store once stopped at 2**26 - 2 states; now memory does. Tiny
    4-byte records past that mark, each found again at its own index, with
    its parent and its path intact."""
    old_limit = (1 << 26) - 2
    n = old_limit + 100_000
    store = StateStore(1024)
    assert store.add_counting(0, n, 4) == n
    assert len(store) == n > old_limit
    assert STORE_CAPACITY >= 1 << 32
    for k in (0, 1, 4095, 4096, old_limit - 1, old_limit, old_limit + 1, n - 1):
        record = k.to_bytes(4, "little")
        assert store.find(record) == k and store.get(k) == record
        assert store.add(record) == -1
        if k:
            assert store.parent(k) == (k - 1, 0)
    assert store.add_counting(0, n, 4) == 0              # every one of them is a duplicate
    assert store.memory_bytes < 32 * n


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the store maps its arrays itself only on Linux")
def test_store_arrays_stay_on_2_mib_boundaries_as_they_grow():
    """mremap keeps a 2 MiB page whole only between 2 MiB boundaries: a
    table moved elsewhere is split into 4 KiB pages, and its random probes
    miss the TLB again."""
    store = StateStore(1024)
    huge = 2 << 20
    before = store.block_addresses()
    assert all(address % huge == 0 for address in before.values()), before
    assert store.add_counting(0, 3_000_000, 4) == 3_000_000      # every array grows, the table 8-fold
    after = store.block_addresses()
    assert all(address % huge == 0 for address in after.values()), after
    for k in (0, 4095, 4096, 2_999_999):
        assert store.find(k.to_bytes(4, "little")) == k


def test_store_refuses_to_grow_past_its_byte_limit():
    store = StateStore(1024, byte_limit=4 << 20)
    with pytest.raises(MemoryError):
        store.add_counting(0, 10**7, 4)
    assert 0 < len(store) < 10**7
    assert store.memory_bytes <= 4 << 20
    kept = len(store)
    assert store.find((kept - 1).to_bytes(4, "little")) == kept - 1
