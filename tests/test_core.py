"""The core's own machinery: packed states, the visited store, batch expansion."""
from __future__ import annotations

import random

import pytest

from babasolver import tiles
from babasolver._core import CoreLevel, Expander, StateStore
from babasolver.game import Simulation
from babasolver.level import load_level

from util import make_level

MOVER_LEVEL = [
    "B12.K17.....",
    "F13.R15.....",
    "b..r..k...f.",
    "..r....k....",
    "W16.wwww....",
]


def random_walk(level, steps, seed):
    rng = random.Random(seed)
    sim = Simulation(level)
    seen = [sim.pack()]
    for _ in range(steps):
        sim.step(rng.randrange(5))
        seen.append(sim.pack())
    return sim, seen


@pytest.mark.parametrize("seed", range(5))
def test_pack_then_unpack_is_the_identity(seed):
    level = make_level(MOVER_LEVEL)
    sim, records = random_walk(level, 40, seed)
    other = Simulation(level)
    for record in records:
        other.unpack(record)
        assert other.pack() == record
    other.unpack(records[-1])
    assert other.objects() == sim.objects()
    assert other.rules() == sim.rules()


def test_equal_boards_pack_equal_and_different_boards_differ():
    level = make_level(["B12.", "b..."])
    first, second = Simulation(level), Simulation(level)
    first.step_keke("rlr")
    second.step_keke("r")
    assert first.pack() == second.pack()
    first.step_keke("l")
    assert first.pack() != second.pack()


@pytest.mark.parametrize("track_facing, root, child_length", [
    (False, b"", 2),            # no MOVE: a record is its keys alone
    (True, b"\0\0\0", 3 + 4),   # MOVE: a key count leads, so the facings can follow
])
def test_a_record_leads_with_a_key_count_only_when_facings_are_kept(track_facing, root, child_length):
    level = make_level(["B12.", "b..."])
    store = StateStore()
    expander = Expander(CoreLevel(level.width, level.height, level.grid, track_facing), store)
    expander.add_root()
    assert store.get(0) == root
    assert expander.expand(0, 1) == 0
    # Only right moves baba (the rest is border or its rule): one key off and
    # one on, plus its facing when facings are kept.
    assert len(store) == 2
    assert len(store.get(1)) == child_length


@pytest.mark.parametrize("record", [b"", b"\x80", b"\x01\0\0\xff\x7f", b"\0\0\0\x80"])
def test_unpack_refuses_bytes_that_are_not_a_state_of_the_level(record):
    sim = Simulation(make_level(["B12.", "b..."]))
    with pytest.raises(ValueError, match="not a packed state"):
        sim.unpack(record)


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


def test_store_keeps_parents_and_rebuilds_paths():
    store = StateStore()
    assert store.add(b"root") == 0
    assert store.add(b"a", 0, 3) == 1
    assert store.add(b"b", 1, 0) == 2
    assert store.add(b"a", 2, 1) == -1
    assert store.parent(2) == (1, 0)
    assert store.path_to(2) == [3, 0]


def children_by_single_steps(level, record, n_actions):
    children = {}
    sim = Simulation(level)
    for action in range(n_actions):
        sim.unpack(record)
        sim.step(action)
        children[action] = (sim.pack(), sim.won, sim.dead)
    return children


def standing_win(level, record):
    """Whether a YOU object already shares a cell with a WIN object."""
    sim = Simulation(level)
    sim.unpack(record)
    rules = sim.rules()
    you = {tiles.NOUN_TARGET[left] for left, right in rules if right == tiles.YOU_TEXT}
    win = {tiles.NOUN_TARGET[left] for left, right in rules if right == tiles.WIN_TEXT}
    cells = {}
    for tile, x, y, _ in sim.objects():
        cells.setdefault((x, y), set()).add(tile)
    return any(contents & you and contents & win for contents in cells.values())


def expansion_matches_single_steps(level, core, record, as_root):
    """Expand `record` in a store (as the root, or behind one) and compare its
    children with single steps. Returns the action that won, if one did."""
    expected = children_by_single_steps(level, record, 5)
    store = StateStore()
    if not as_root:
        store.add(b"root")
    index = store.add(record)
    expander = Expander(core, store)
    if expander.expand(index, index + 1):
        assert expected[expander.won_action][1]
        assert not any(expected[a][1] for a in range(expander.won_action))
        return expander.won_action
    stored = {store.parent(i)[1]: store.get(i) for i in range(index + 1, len(store))}
    for action, (child, won_child, dead_child) in expected.items():
        assert not won_child
        if dead_child:
            assert action not in stored
        elif child == record or child in [expected[a][0] for a in range(action)]:
            assert action not in stored
        else:
            assert stored[action] == child
    return None


@pytest.mark.parametrize("rows", [MOVER_LEVEL, ["B12..", "F13.f", ".b.r.", "R15..", "A10.a"]])
@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("as_root", [True, False])
def test_batch_expansion_agrees_with_single_steps(rows, seed, as_root):
    # The root is expanded with full checks; any later state takes the
    # shortcuts that rely on its parent being neither won nor dead.
    level = make_level(rows)
    _, records = random_walk(level, 25, seed)
    core = CoreLevel(level.width, level.height, level.grid, True, True)
    checked = 0
    for record in records[::3]:
        if not as_root and standing_win(level, record):
            continue        # a search never expands a won state
        expansion_matches_single_steps(level, core, record, as_root)
        checked += 1
    assert checked >= 3


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
    assert not standing_win(level, sim.pack())
    core = CoreLevel(level.width, level.height, level.grid, True, True)
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
    assert (tiles.ROCK_TEXT, tiles.KILL_TEXT) in sim.rules()
    assert {(t, x, y) for t, x, y, _ in sim.objects()} >= {(tiles.BABA, 0, 3), (tiles.ROCK, 0, 3)}
    core = CoreLevel(level.width, level.height, level.grid, True, True)
    assert expansion_matches_single_steps(level, core, record, as_root=False) is None
    destroyed = []
    for action in range(4):
        sim.unpack(record)
        sim.step(action)
        destroyed.append(all(t != tiles.BABA for t, _, _, _ in sim.objects()))
    assert any(destroyed) and not all(destroyed)


def test_seed_level_00_is_won_by_eight_moves_right(repo_root):
    sim = Simulation(load_level(repo_root / "levels" / "00"))
    for turn in range(1, 9):
        sim.step(3)
        assert sim.won == (turn == 8)


def test_level_too_large_is_refused():
    with pytest.raises(ValueError, match="too large"):
        CoreLevel(40, 40, [tiles.EMPTY] * 1600, False)


def breadth_first_store(level, incremental, limit=20000):
    core = CoreLevel(level.width, level.height, level.grid, tiles.MOVE_TEXT in level.grid)
    store = StateStore()
    expander = Expander(core, store)
    expander.incremental = incremental
    expander.add_root()
    head = 0
    while head < len(store) < limit:
        stop = min(len(store), head + 256)
        if expander.expand(head, stop):
            return store, (expander.won_parent, expander.won_action)
        head = stop
    return store, None


@pytest.mark.parametrize("rows", [
    MOVER_LEVEL,
    ["B12..r..", "R15.rr..", "W16ww...", ".b..r...", "F13....."],     # no flag: explores
    ["B12.S10..", "F13....s.", "b...L14..", "..l..fl..", "K1B......"],  # sinks and kills
    ["B12.L18.", "A19.l.a.", "b..aa.l.", "K17.k...", "F13...f."],     # hot, melt, a mover
])
def test_incremental_packing_builds_the_same_store_as_full_packing(rows):
    level = make_level(rows)
    incremental, won_incremental = breadth_first_store(level, True)
    full, won_full = breadth_first_store(level, False)
    assert won_incremental == won_full
    assert len(incremental) == len(full)
    assert all(incremental.get(i) == full.get(i) for i in range(len(full)))


def test_generate_only_reads_the_store_and_insert_adds_what_expand_would():
    level = make_level(MOVER_LEVEL)
    core = CoreLevel(level.width, level.height, level.grid, True, True)
    _, records = random_walk(level, 30, 3)
    by_expand, by_steps = StateStore(), StateStore()
    for record in records[:12]:
        by_expand.add(record)
        by_steps.add(record)
    Expander(core, by_expand).expand(0, 12)
    two_steps = Expander(core, by_steps)
    assert two_steps.generate(0, 12) == 0
    assert len(by_steps) == 12
    two_steps.insert_generated()
    assert [by_steps.get(i) for i in range(len(by_steps))] == [by_expand.get(i) for i in range(len(by_expand))]
    assert [by_steps.parent(i) for i in range(12, len(by_steps))] == [
        by_expand.parent(i) for i in range(12, len(by_expand))]
    with pytest.raises(IndexError):
        two_steps.generate(0, len(by_steps) + 1)
