"""The satisficing search, shortening, and the verdicts of the combined modes."""
from __future__ import annotations

import random
import time

import pytest

from babasolver import solver
from babasolver._core import BestFirst, CoreLevel, StateStore
from babasolver.game import replay
from babasolver.level import load_level
from babasolver.satisfice import GUIDES, cut_cycles, first_solution, improve, shorten

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
    found = first_solution(CoreLevel(level.width, level.height, level.grid), 2_000_000, None, threads)
    assert found.solution is not None and not found.exhausted
    assert replay(level, found.solution).won_at == len(found.solution)


@pytest.mark.parametrize("guide", GUIDES)
def test_each_search_of_the_portfolio_solves_a_level_alone(repo_root, guide):
    level = load_level(repo_root / "levels" / "01")
    core, store = CoreLevel(level.width, level.height, level.grid), StateStore(1 << 16)
    search = BestFirst(core, store, guide)
    search.add_root()
    while (outcome := search.run(2_000)) == 0:
        assert len(store) < 3_000_000
    assert outcome == 1 and search.guide == guide
    path = store.path_to(search.won_parent) + [search.won_action]
    assert replay(level, path).won_at == len(path)


def test_an_unknown_guide_is_refused(repo_root):
    level = load_level(repo_root / "levels" / "00")
    with pytest.raises(ValueError, match="guide"):
        BestFirst(CoreLevel(level.width, level.height, level.grid), StateStore(1 << 16), 9)


def test_first_solution_proves_a_level_unsolvable_by_exhausting_it():
    level = make_level(["B12..w.", "F13..w.", "W16..wf", "..b..w."])
    found = first_solution(CoreLevel(level.width, level.height, level.grid), 1_000_000, None)
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
    core = CoreLevel(level.width, level.height, level.grid)
    cut = cut_cycles(level, actions)
    assert len(cut) <= len(actions) and replay(level, cut).won_at == len(cut)
    shorter = shorten(level, core, actions)
    assert len(shorter) <= len(cut)
    assert replay(level, shorter).won_at == len(shorter)
    assert shorter == [3] * 8


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
            assert result.proven_shortest == (len(result.solution) == best) or not result.proven_shortest


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
    core = CoreLevel(level.width, level.height, level.grid)
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
    spliced = splice_from_store(level, store, actions)
    assert spliced == [3] * 8
    assert replay(level, spliced).won_at == len(spliced)


def test_a_bounded_search_finds_only_shorter_solutions(repo_root):
    level = load_level(repo_root / "levels" / "00")            # shortest: 8 moves
    core = CoreLevel(level.width, level.height, level.grid)
    for bound, can_win in ((8, False), (9, True)):
        store = StateStore(1 << 16)
        search = BestFirst(core, store, GUIDES[0], bound)
        search.add_root()
        while (outcome := search.run(2_000)) == 0:
            pass
        assert search.bound == bound
        if can_win:
            assert outcome == 1
            assert len(store.path_to(search.won_parent)) + 1 < bound
        else:
            assert outcome == -1                               # nothing shorter than 8 exists


def test_improving_never_lengthens_and_keeps_winning(repo_root):
    level = load_level(repo_root / "levels" / "01")
    core = CoreLevel(level.width, level.height, level.grid)
    found = first_solution(core, 2_000_000, None)
    better = improve(core, found.solution, 2_000_000, time.perf_counter() + 20)
    assert 20 <= len(better) <= len(found.solution)
    assert replay(level, better).won_at == len(better)
