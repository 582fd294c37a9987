"""The satisficing search, shortening, and the verdicts of the combined modes."""
from __future__ import annotations

import random
import time

import pytest

from babasolver import solver
from babasolver.app import running
from babasolver.app.limits import Limits
from babasolver.app.tasks import LevelTask
from babasolver._core import BestFirst, CoreSimulation, StateStore
from babasolver.rulesets import core_level
from babasolver.game import replay
from babasolver.level import keke_ids, load_level, read_keke_level
from babasolver._core import SearchOutcome
from babasolver.satisfice import (GUIDE_BLIND, GUIDE_PAIRS, GUIDES, Pool, Search,
                                  cut_cycles, first_solution, improve, race, shorten)

from util import make_level

# Levels with a known shortest length (breadth-first search proves it).
KNOWN = [
    (["B12.....", "........", "b......f", "F13....."], None),
    (["B12..r..", "R15.rr..", "W16ww...", ".b..r...", "F13....f"], None),
    (["B12.S10..", "F13....s.", "b...L14..", "..l..fl..", "K1B......"], None),
]


def shortest_length(level):
    result = solver.solve(level, mode="shortest", max_states=2_000_000)
    assert result.status == solver.SOLVED and result.proven_shortest
    return len(result.solution)


@pytest.mark.parametrize("threads", [1, 2])
def test_first_solution_finds_what_a_tiny_breadth_first_budget_cannot(repo_root, threads):
    level = load_level(repo_root / "levels" / "01")
    assert solver.solve(level, mode="shortest", max_states=20_000).status == solver.LIMIT_STATES
    found = first_solution(core_level(level), 2_000_000, None, threads)
    assert found.solution is not None and not found.exhausted
    assert replay(level, found.solution).won_at == len(found.solution)


@pytest.mark.parametrize("guide", GUIDES)
def test_each_search_of_the_portfolio_solves_a_level_alone(repo_root, guide):
    level = load_level(repo_root / "levels" / "01")
    core, store = core_level(level), StateStore(1 << 16)
    search = BestFirst(core, store, guide)
    search.add_root()
    while (outcome := search.run(2_000)) == SearchOutcome.SEARCH_GOING:
        assert len(store) < 3_000_000
    assert outcome == SearchOutcome.SEARCH_WON and search.guide == guide
    path = store.path_to(search.won_parent) + [search.won_action]
    assert replay(level, path).won_at == len(path)


def test_an_unknown_guide_is_refused(repo_root):
    level = load_level(repo_root / "levels" / "00")
    with pytest.raises(ValueError, match="guide"):
        BestFirst(core_level(level), StateStore(1 << 16), 9)


def test_first_solution_proves_a_level_unsolvable_by_exhausting_it():
    level = make_level(["B12..w.", "F13..w.", "W16..wf", "..b..w."])
    found = first_solution(core_level(level), 1_000_000, None)
    assert found.solution is None and found.exhausted


@pytest.mark.parametrize("seed", range(6))
def test_shortening_never_lengthens_and_keeps_winning(repo_root, seed):
    # A solution with a random detour in front: shortening must still win,
    # and must not be longer; cycle cutting alone removes an out-and-back.
    level = load_level(repo_root / "levels" / "00")
    rng = random.Random(seed)
    # Out-and-back moves baba can always make in level 00, and waiting.
    detour = [a for _ in range(rng.randrange(1, 4)) for a in rng.choice([[0, 1], [1, 0], [2, 3], [4]])]
    actions = detour + [3] * 8
    assert replay(level, actions).won_at == len(actions)
    core = core_level(level)
    cut = cut_cycles(core, actions)
    assert len(cut) <= len(actions) and replay(level, cut).won_at == len(cut)
    steps = []
    shorter = shorten(core, actions, on_step=steps.append)
    assert len(shorter) <= len(cut)
    assert replay(level, shorter).won_at == len(shorter)
    assert shorter == [3] * 8
    # Progress comes before each search for a shortcut, with the length so far.
    assert steps and steps == sorted(steps, reverse=True) and steps[0] <= len(cut)


def test_shortening_ends_at_the_deadline_within_a_search_for_a_shortcut(repo_root):
    # A search for a shortcut looks at the deadline after each call into the
    # core, not only between searches: on a level where a state costs
    # milliseconds a window of WINDOW_STATES ran for seconds past it.
    from babasolver.satisfice import _Late, _path_records, _shortcut

    level = load_level(repo_root / "levels" / "00")
    core = core_level(level)
    actions = [1, 2, 0] + [3] * 9          # "dlu" then right: the root again after "dlur"
    records = _path_records(core, actions)
    later = {records[j]: j for j in range(2, len(records))}
    assert _shortcut(core, records[0], 0, later, len(actions) - 1, 20_000, 100_000) is not None
    with pytest.raises(_Late):
        _shortcut(core, records[0], 0, later, len(actions) - 1, 20_000, 100_000, deadline=time.perf_counter())
    # At a deadline passed, the shortening keeps what cutting cycles gave.
    assert shorten(core, actions, deadline=time.perf_counter()) == cut_cycles(core, actions)


@pytest.mark.parametrize("rows", [rows for rows, _ in KNOWN])
def test_a_small_budget_reports_a_lower_bound_at_most_the_shortest_length(rows):
    level = make_level(rows)
    best = shortest_length(level)
    for max_states in (50, 500, 5_000):
        result = solver.solve(level, max_states=max_states)
        assert 1 <= result.lower_bound <= best
        if result.solved:
            assert len(result.solution) >= best
            assert replay(level, result.solution).won_at == len(result.solution)
            if result.proven_shortest:
                assert len(result.solution) == best


def test_modes_agree_on_a_level_breadth_first_search_finishes(repo_root):
    level = load_level(repo_root / "levels" / "00")
    both = solver.solve(level)
    shortest = solver.solve(level, mode="shortest")
    fast = solver.solve(level, mode="fast")
    assert both.solution == shortest.solution == [3] * 8
    assert both.proven_shortest and shortest.proven_shortest
    assert fast.solved and len(fast.solution) == 8


def test_an_unknown_mode_is_refused(repo_root):
    with pytest.raises(ValueError, match="mode"):
        solver.solve(load_level(repo_root / "levels" / "00"), mode="greedy")


def test_splicing_takes_the_breadth_first_way_to_a_state_of_the_path(repo_root):
    from babasolver._core import Expander, StateStore
    from babasolver.satisfice import splice_from_store

    level = load_level(repo_root / "levels" / "00")
    core = core_level(level)
    store = StateStore()
    expander = Expander(core, store)
    expander.add_root()
    expander.expand(0, 1)                   # depth 1
    expander.expand(1, len(store))          # depth 2
    assert store.find(store.get(3)) == 3 and store.find(b"\\xff") == -1
    # Down, left, up, then right all the way: after "dlur" baba is back
    # where it started (facings are not kept where nothing can be MOVE), the
    # root, which the store reaches in no move: that saves four.
    actions = [1, 2, 0] + [3] * 9
    assert replay(level, actions).won_at == len(actions)
    spliced = splice_from_store(core, store, actions)
    assert spliced == [3] * 8
    assert replay(level, spliced).won_at == len(spliced)


def test_a_bounded_search_finds_only_shorter_solutions(repo_root):
    level = load_level(repo_root / "levels" / "00")            # shortest: 8 moves
    core = core_level(level)
    for bound, can_win in ((8, False), (9, True)):
        store = StateStore(1 << 16)
        search = BestFirst(core, store, GUIDES[0], bound)
        search.add_root()
        while (outcome := search.run(2_000)) == SearchOutcome.SEARCH_GOING:
            pass
        assert search.bound == bound
        if can_win:
            assert outcome == SearchOutcome.SEARCH_WON
            assert len(store.path_to(search.won_parent)) + 1 < bound
        else:
            assert outcome == SearchOutcome.SEARCH_EXHAUSTED  # nothing shorter than 8 exists


def test_improving_never_lengthens_and_keeps_winning(repo_root):
    level = load_level(repo_root / "levels" / "01")
    core = core_level(level)
    found = first_solution(core, 2_000_000, None)
    first = list(found.solution)
    better = improve(found, 2_000_000, time.perf_counter() + 20).solution
    assert 20 <= len(better) <= len(first)
    assert replay(level, better).won_at == len(better)


def _run_to_end(search):
    while (outcome := search.run(2_000)) == SearchOutcome.SEARCH_GOING:
        pass
    return outcome


@pytest.mark.parametrize("guide, width", [(GUIDE_PAIRS, 10_000), (GUIDE_BLIND, 1_000)])
def test_a_beam_finds_a_winning_solution_layer_by_layer(repo_root, guide, width):
    level = load_level(repo_root / "levels" / "01")
    core, store = core_level(level), StateStore(1 << 16)
    beam = BestFirst(core, store, guide, 0, width)
    beam.add_root()
    assert beam.width == width and _run_to_end(beam) == SearchOutcome.SEARCH_WON
    path = store.path_to(beam.won_parent) + [beam.won_action]
    assert replay(level, path).won_at == len(path)
    # A beam expands layer by layer: the win is one move below its last layer.
    assert len(path) == beam.layer_depth + 1


def test_a_beam_at_its_bound_runs_dry_which_proves_nothing(repo_root):
    level = load_level(repo_root / "levels" / "00")            # shortest: 8 moves
    core = core_level(level)
    beam = BestFirst(core, StateStore(1 << 16), GUIDE_BLIND, 0, 10_000)
    beam.add_root()
    beam.tighten(8)
    assert beam.bound == 8 and _run_to_end(beam) == SearchOutcome.SEARCH_DRY
    loose = BestFirst(core, StateStore(1 << 16), GUIDE_BLIND, 0, 10_000)
    loose.add_root()
    loose.tighten(9)
    assert _run_to_end(loose) == SearchOutcome.SEARCH_WON
    # A beam alone never claims a level unsolvable.
    unsolvable = make_level(["B12..w.", "F13..w.", "W16..wf", "..b..w."])
    found = race(Pool(core_level(unsolvable)),
                 [Search(GUIDE_BLIND, 100)], 1_000_000, None)
    assert found.solution is None and not found.exhausted


def test_tightening_mid_run_only_lowers_the_bound(repo_root):
    level = load_level(repo_root / "levels" / "00")            # shortest: 8 moves
    core = core_level(level)
    for bound, can_win in ((8, False), (9, True)):
        store = StateStore(1 << 16)
        greedy = BestFirst(core, store, GUIDE_BLIND)
        greedy.add_root()
        assert greedy.run(3) == SearchOutcome.SEARCH_GOING and greedy.bound == 0
        greedy.tighten(bound)
        greedy.tighten(bound + 10)                              # never raised
        assert greedy.bound == bound
        outcome = _run_to_end(greedy)
        if can_win:
            assert outcome == SearchOutcome.SEARCH_WON and len(store.path_to(greedy.won_parent)) + 1 < bound
        else:
            assert outcome == SearchOutcome.SEARCH_EXHAUSTED  # nothing shorter than 8 exists


def test_a_bounded_greedy_search_reopens_states_and_keeps_its_paths_valid(repo_root):
    # Reaching a stored state in fewer moves reparents it: every path the
    # store gives must still replay, be as long as its depth says, and any
    # solution must be below the bound.
    level = load_level(repo_root / "levels" / "01")             # shortest: 20 moves
    core = core_level(level)
    store = StateStore(1 << 16)
    search = BestFirst(core, store, GUIDES[0], 21)
    search.add_root()
    assert _run_to_end(search) == SearchOutcome.SEARCH_WON
    assert search.reopened > 0
    path = store.path_to(search.won_parent) + [search.won_action]
    assert len(path) == 20 and replay(level, path).won_at == 20
    for index in random.Random(0).sample(range(len(store)), 50):
        path = store.path_to(index)
        assert len(path) == store.depth(index)
        assert replay(level, path).won_at is None


@pytest.mark.parametrize("rows", [
    None,                                                       # levels/01
    ["B12..r.", "R.1B...", "b.r....", "..r...."],               # rock is baba can form: objects change tile
    ["B12.k..", "K15.k..", "b...kR1", "..k.r.4", "..r...."],    # pushed keke; rock is kill can form
])
@pytest.mark.parametrize("guide, width", [(GUIDE_PAIRS, 1_000), (GUIDE_BLIND, 0)])
def test_a_search_stores_the_records_its_paths_give(repo_root, rows, guide, width):
    # A search loads each state from the one it expanded before (only what
    # differs is decoded): every stored record must still be what playing
    # its path from the root packs.
    level = load_level(repo_root / "levels" / "01") if rows is None else make_level(rows)
    core, store = core_level(level), StateStore(1 << 16)
    search = BestFirst(core, store, guide, 0, width)
    search.add_root()
    for _ in range(20):
        if search.run(500) != SearchOutcome.SEARCH_GOING:
            break
    assert len(store) > 100
    for index in random.Random(1).sample(range(len(store)), 60):
        sim = CoreSimulation(core)
        for action in store.path_to(index):
            sim.step(action)
        assert sim.pack() == store.get(index)


def _check_new_atoms_on_playouts(level, playouts, turns, seed):
    """Random playouts: at each position, for every action, the child's new
    atoms (pair atoms) hold every atom of the child the position lacks, and
    nothing the child lacks. Returns how many children were checked."""
    core, rng, checked = core_level(level), random.Random(seed), 0
    for _ in range(playouts):
        sim = CoreSimulation(core)
        for _ in range(turns):
            for action in range(5):
                atoms, pairs, child, child_pairs, new, new_pairs = sim.novelty_atoms(action)
                assert set(child) - set(atoms) <= set(new) <= set(child), action
                assert set(child_pairs) - set(pairs) <= set(new_pairs) <= set(child_pairs), action
                checked += 1
            sim.step(rng.randrange(5))
            if sim.won or sim.illegal is not None:
                break
    return checked


@pytest.mark.parametrize("rows", [
    None,                                                       # levels/01
    ["B12..r.", "R.1B...", "b.r....", "..r...."],               # rock is baba can form: objects change tile
    ["B12.k..", "K15.k..", "b...kR1", "..k.r.4", "..r...."],    # pushed keke; rock is kill can form
])
def test_a_childs_new_atoms_hold_what_its_parent_lacks(repo_root, rows):
    # The searches look only at the new atoms of a child in its parent's h
    # bucket (the parent's are marked): a novelty missed would reorder them.
    level = load_level(repo_root / "levels" / "01") if rows is None else make_level(rows)
    assert _check_new_atoms_on_playouts(level, 20, 40, 7) > 1_000


def test_new_atoms_hold_what_the_parent_lacks_on_the_keke_levels(keke_sets):
    checked = 0
    for lid in keke_ids(keke_sets["full_biy"]):
        checked += _check_new_atoms_on_playouts(read_keke_level(keke_sets["full_biy"], lid).level, 3, 40, int(lid))
    assert checked > 50_000


@pytest.mark.parametrize("lead", [False, True])
def test_a_race_names_its_winner_and_the_searches_that_ended(repo_root, lead):
    level = load_level(repo_root / "levels" / "01")
    core = core_level(level)
    portfolio = [Search(GUIDE_PAIRS, 1_000), Search(GUIDES[0]), Search(GUIDE_BLIND, 100)]
    found = race(Pool(core), portfolio, 2_000_000, None, threads=2, until_each_ends=True, lead=lead)
    assert found.solution is not None and found.winner in portfolio
    assert replay(level, found.solution).won_at == len(found.solution)
    # Run until each ended: every search ended, and none won with less.
    assert found.ended == frozenset(portfolio)


def test_a_pool_goes_on_where_a_race_stopped_and_never_lengthens(repo_root):
    level = load_level(repo_root / "levels" / "01")
    core = core_level(level)
    pool = Pool(core)
    beam = Search(GUIDE_PAIRS, 10_000)
    race(pool, [beam], 2_000_000, time.perf_counter() + 0.05)
    expanded = pool.expanded
    assert pool.racers[beam].outcome == SearchOutcome.SEARCH_GOING and expanded > 0      # stopped by the deadline
    race(pool, [beam, Search(GUIDES[0])], 2_000_000, None, until_each_ends=True)
    assert pool.racers[beam].expanded > expanded                # went on, not again from the root
    assert pool.solution is not None and pool.ended == {beam, Search(GUIDES[0])}
    assert replay(level, pool.solution).won_at == len(pool.solution)
    # Searches started after the solution look only for shorter ones.
    length = len(pool.solution)
    improve(pool, 2_000_000, None, widths=(1_000,), greedy=False)
    assert len(pool.solution) <= length and pool.bound == len(pool.solution)
    assert replay(level, pool.solution).won_at == len(pool.solution)


@pytest.mark.parametrize("threads", [1, 2])
def test_the_satisficing_searches_report_progress(repo_root, threads):
    level = load_level(repo_root / "levels" / "01")
    reports = []
    result = solver.solve(level, mode="fast", progress=reports.append, progress_every=0.0, threads=threads)
    assert result.solved and reports
    assert all(r.satisficing for r in reports) and reports[-1].unique > 0
    assert all(r.best is None or r.best >= len(result.solution) for r in reports)


def test_only_breadth_first_reports_sample_the_visited_table(repo_root):
    # A small state budget stops breadth-first search's first slice early,
    # so the satisficing searches run and report too (progress_every holds
    # for them as well); the scaling samples must follow breadth-first
    # search's table alone.
    task = LevelTask("01", load_level(repo_root / "levels" / "01"))
    reports = []
    outcome = running.run_level(task, Limits(None, 60_000), on_progress=reports.append, progress_every=0.0)
    racing = [r for r in reports if r.satisficing]
    # One sample per breadth-first report, and perhaps one for the end.
    assert racing and len(outcome.samples) - (len(reports) - len(racing)) in (0, 1)


def test_calls_into_the_core_are_split_by_time_and_never_change_a_turn(repo_root, monkeypatch):
    """A racer's turn runs in calls that grow from FIRST_PIECE; calls of a
    and b expansions do what one of a + b does, so a turn of 2,000 is the
    same search however it is split. Only a turn that took CALL_SECONDS
    ends early (on levels where a state costs milliseconds), so that the
    time limit and Ctrl-C are acted on."""
    from babasolver import satisfice

    level = core_level(load_level(repo_root / "levels" / "01"))
    spec = Search(GUIDE_PAIRS)
    split, whole = satisfice._Racer(level, spec, 0, 1 << 16), satisfice._Racer(level, spec, 0, 1 << 16)
    whole.piece = satisfice.CHUNK_EXPANSIONS
    for _ in range(3):
        assert split.run(2_000) == whole.run(2_000) == SearchOutcome.SEARCH_GOING
        assert (split.expanded, split.generated, split.stored) == (whole.expanded, whole.generated, whole.stored)
    assert split.expanded == 6_000
    monkeypatch.setattr(satisfice, "CALL_SECONDS", 0.0)      # every call is too slow
    slow = satisfice._Racer(level, spec, 0, 1 << 16)
    slow.run(2_000)
    assert slow.expanded == satisfice.FIRST_PIECE


@pytest.mark.parametrize("chunk, done, took, expected", [
    (8192, 8192, 0.004, 8192),        # quick at the most: stays
    (16, 16, 0.001, 32),              # quick: doubles
    (1024, 1024, 0.001, 2000),        # ... up to the most
    (2000, 2000, 2.0, 100),           # slow: about CALL_SECONDS' worth
    (16, 16, 10.0, 1),                # never below one
    (64, 64, 0.05, 64),               # neither: stays
])
def test_the_next_call_is_sized_to_about_call_seconds(chunk, done, took, expected):
    from babasolver.schedule import CALL_SECONDS, next_chunk

    assert CALL_SECONDS == 0.1
    assert next_chunk(chunk, done, took, 8192 if chunk == 8192 else 2000) == expected
