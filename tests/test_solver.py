"""The breadth-first driver: shortest solutions, verdicts and limits."""
from __future__ import annotations

import threading
import time
from concurrent import futures

import pytest

from babasolver import solver
from babasolver.game import replay
from babasolver.level import load_level, read_keke_set
from babasolver.rulesets import core_level
from babasolver.schedule import Budget

from util import make_level

# Baba can walk, but the flag sits behind a wall that is STOP, and no text
# can be reached to break that rule: every reachable state loses.
WALLED_OFF = ["B12..w.", "F13..w.", "W16..wf", "..b..w."]


def test_seed_level_00_solves_in_eight_moves(repo_root):
    result = solver.solve(load_level(repo_root / "levels" / "00"))
    assert result.status == solver.SOLVED
    assert result.solution == [3] * 8
    stats = result.stats
    assert stats.depth == 8
    assert 1 <= stats.expanded <= stats.unique <= stats.generated + 1
    assert stats.elapsed > 0 and stats.memory_bytes > 0


def test_seed_level_01_solves_optimally_in_twenty_moves(repo_root):
    level = load_level(repo_root / "levels" / "01")
    result = solver.solve(level)
    assert result.status == solver.SOLVED
    assert len(result.solution) == 20
    assert replay(level, result.solution).won_at == 20


def test_walled_off_flag_is_proven_unsolvable():
    result = solver.solve(make_level(WALLED_OFF))
    assert result.status == solver.UNSOLVABLE
    assert result.solution is None
    assert result.stats.unique > 1


def test_level_without_you_is_a_dead_root():
    result = solver.solve(make_level(["F13.", "b.f."]))
    assert result.status == solver.UNSOLVABLE
    assert result.stats.expanded == 0


def test_state_limit_is_reported(repo_root):
    result = solver.solve(load_level(repo_root / "levels" / "01"), max_states=5000, mode="shortest")
    assert result.status == solver.LIMIT_STATES
    assert result.solution is None
    # The store never holds more than the limit; it stops when a state's
    # children (at most 5) might not fit.
    assert 5000 - 5 < result.stats.unique <= 5000
    assert result.limit == solver.LIMIT_STATES and not result.proven_shortest
    assert 1 <= result.lower_bound == result.stats.depth + 1 <= 20


def test_time_limit_is_reported(repo_root):
    result = solver.solve(load_level(repo_root / "levels" / "01"), timeout=0.0)
    assert result.status == solver.LIMIT_TIME


def test_progress_receives_counters(repo_root):
    seen = []
    solver.solve(load_level(repo_root / "levels" / "01"), progress=seen.append, progress_every=0.0,
                 max_states=300_000)
    assert seen and all(stats.unique > 0 for stats in seen)


def _outcome(result):
    s = result.stats
    return result.status, result.solution, s.generated, s.expanded, s.unique, s.dead_ends, s.depth


@pytest.mark.parametrize("threads", [2, 3])
def test_threads_change_nothing_but_the_time(monkeypatch, repo_root, threads):
    # Tiny batches, split even when small, so the winning child falls in
    # every part in turn; the store and the counters must match one thread's.
    monkeypatch.setattr(solver, "CHUNK", 3)
    monkeypatch.setattr(solver, "MIN_PART", 1)
    levels = [load_level(repo_root / "levels" / "00"), make_level(WALLED_OFF)]
    levels += [make_level(["B12..", "F13.f", ".b.r.", "R15..", "A10.a"])]
    # Breadth-first search; the satisficing portfolio's searches race on
    # their threads, so which finds the first solution may differ.
    for level in levels:
        for max_states in (200_000, 40):        # to the end, and to a state limit
            one = _outcome(solver.solve(level, max_states=max_states, mode="shortest", threads=1))
            assert _outcome(solver.solve(level, max_states=max_states, mode="shortest",
                                         threads=threads)) == one
            both = solver.solve(level, max_states=max_states, threads=threads)
            if one[0] in (solver.SOLVED, solver.UNSOLVABLE):
                # Breadth-first search alone finished: mode both proves the same.
                assert both.status == one[0] and both.proven_shortest
                assert (both.solution is None) == (one[1] is None)
                assert both.solution is None or len(both.solution) == len(one[1])
            else:                       # a state limit: a solution the satisficing search found, or the limit
                assert both.status in (solver.SOLVED, one[0])
            if both.solution is not None:
                assert replay(level, both.solution).won_at == len(both.solution)


def test_threads_change_nothing_on_the_keke_test_set(monkeypatch, keke_sets):
    monkeypatch.setattr(solver, "CHUNK", 64)
    monkeypatch.setattr(solver, "MIN_PART", 1)
    levels = read_keke_set(keke_sets["test"])

    def outcome(result):
        # Breadth-first search's first phase runs alike on any number of
        # threads. After it the satisficing searches race on the threads,
        # and which wins decides the rest: its solution may be another, or
        # longer (breadth-first search then found the shortest itself and
        # went one layer deeper). Then only the length and the proof must
        # agree.
        if result.found_by in (None, "breadth-first"):
            return _outcome(result)
        return result.status, len(result.solution), result.proven_shortest

    one = [outcome(solver.solve(keke.level, max_states=300_000)) for keke in levels]
    for keke, expected in zip(levels, one):
        assert outcome(solver.solve(keke.level, max_states=300_000, threads=2)) == expected, keke.id


@pytest.mark.parametrize("n_parts", [1, 2, 3, 8, 12])
@pytest.mark.parametrize("size", [12, 13, 100, 8192])
def test_a_batch_splits_into_parts_that_shrink_towards_its_end(n_parts, size):
    bounds = solver.part_bounds(1000, 1000 + size, n_parts)
    sizes = [b - a for a, b in zip(bounds, bounds[1:])]
    assert bounds[0] == 1000 and bounds[-1] == 1000 + size and len(sizes) == n_parts
    assert min(sizes) >= 1
    if size >= 100 * n_parts:           # rounding aside, each pair is no larger than the one before
        assert all(later <= earlier + 1 for earlier, later in zip(sizes, sizes[1:]))
        assert sizes[-1] < sizes[0] or n_parts <= 2


def test_threads_must_be_positive():
    with pytest.raises(ValueError, match="threads"):
        solver.solve(make_level(WALLED_OFF), threads=0)


@pytest.mark.parametrize("set_name", ["demo", "test"])
def test_keke_solutions_win_and_are_no_longer_than_the_reference(keke_sets, set_name):
    solved = 0
    for keke in read_keke_set(keke_sets[set_name]):
        result = solver.solve(keke.level, max_states=1_000_000, timeout=30)
        if result.status != solver.SOLVED:
            continue
        solved += 1
        assert replay(keke.level, result.solution).won_at == len(result.solution), keke.id
        assert len(result.solution) <= len(keke.solution), keke.id
    assert solved > 0


def _breadth_first(level, threads, max_states=200_000, memory=None, until=None):
    """Breadth-first search alone, as mode "shortest" runs it, and its
    store: (the result's outcome, every state's record, parent and action).
    With `until`, the search stops after every batch and goes on (each run
    a new call, as between the phases of mode "both")."""
    search = solver._BreadthFirst(core_level(level), Budget(None, max_states, memory), threads, None, 1.0)
    try:
        result = search.run(until)
        while result is None:
            result = search.run(until)
    finally:
        search.close()
    store = search.store
    return _outcome(result) + (result.stats.illegal,), [(store.get(i), store.parent(i)) for i in range(len(store))]


def _depths(states):
    """Each stored state's moves from the root, from (record, (parent, action)) in store order."""
    depth = []
    for _, (parent, _) in states:
        depth.append(0 if parent is None else depth[parent] + 1)
    return depth


def _with_known(level, known, threads):
    """Breadth-first search told of a solution `known` (as mode "both" tells
    it once a satisficing search found one): the result and the depth of
    every stored state."""
    search = solver._BreadthFirst(core_level(level), Budget(None, 200_000, None), threads, None, 1.0)
    search.known = known
    try:
        result = search.run(None)
    finally:
        search.close()
    store = search.store
    return result, _depths([(None, store.parent(i)) for i in range(len(store))])


@pytest.mark.parametrize("threads", [1, 2])
def test_a_known_solution_is_proven_without_storing_its_last_layer(monkeypatch, repo_root, threads):
    """With a known solution of L moves, the children of depth L - 1 are
    never expanded: they are played for a win but not stored, and the
    search still proves the known solution shortest."""
    monkeypatch.setattr(solver, "CHUNK", 3)        # several batches a layer, some begun ahead
    monkeypatch.setattr(solver, "MIN_PART", 1)
    level = load_level(repo_root / "levels" / "00")
    (status, solution, *_), states = _breadth_first(level, 1)
    assert status == solver.SOLVED and len(solution) == 8
    full = _depths(states)
    result, depths = _with_known(level, solution, threads)
    assert result.status == solver.SOLVED and result.proven_shortest
    assert result.solution == solution and result.lower_bound == 8
    # Every state up to depth 6 is stored, and none deeper, at any thread
    # count (batches of the last layer begun ahead take it too).
    assert sorted(depths) == sorted(d for d in full if d <= 6)


@pytest.mark.parametrize("threads", [1, 2])
def test_a_win_among_the_children_not_stored_is_found(monkeypatch, repo_root, threads):
    """A known solution one move longer than the shortest: the shortest one
    wins among the children that are played and not stored."""
    monkeypatch.setattr(solver, "CHUNK", 3)
    monkeypatch.setattr(solver, "MIN_PART", 1)
    level = load_level(repo_root / "levels" / "00")
    longer = [3] * 8 + [4]           # the length is what the search reads of it
    result, depths = _with_known(level, longer, threads)
    assert result.status == solver.SOLVED and result.proven_shortest
    assert len(result.solution) == 8 and replay(level, result.solution).won_at == 8
    assert max(depths) == 7          # the children of depth 8 were played, not stored


class _Spy:
    """Records, through the solver's own classes, which batches were
    generated ahead (while the batch before was inserted) and where wins
    fell. The timing of the threads, made sure: `eager`, the worst for the
    counters: a batch ahead is generated whole before the batch before it is
    inserted, and a win stops no thread, so that parts after it were played
    too; `late`: the other threads start each part late, so that the main
    thread inserts parts while a later one is still generated, and the
    counters are read while a batch ahead is."""

    def __init__(self, monkeypatch, timing):
        self.ahead = []                 # (start, stop) of each batch generated ahead
        self.wins = []                  # (part, parts, generated ahead) of each win
        expand, begin, wait_part = solver._Batches.expand, solver._Batches._begin, solver._Round.wait_part
        ahead_rounds = set()
        expanding = [0]                 # the first state of the batch being expanded

        def spied_expand(batches, start, *args):
            expanding[0] = start
            return expand(batches, start, *args)

        def spied_begin(batches, start, stop, *args):
            batch = begin(batches, start, stop, *args)
            if start != expanding[0]:   # the next batch, begun while this one is inserted
                self.ahead.append((start, stop))
                ahead_rounds.add(id(batch))
                if timing == "eager":
                    futures.wait(batch.workers)
            return batch

        def spied_wait_part(batch, part):
            outcome = wait_part(batch, part)
            if outcome == solver.SearchOutcome.SEARCH_WON:
                self.wins.append((part, len(batch.expanders), id(batch) in ahead_rounds))
            return outcome

        def generate_spied(batch):
            late = timing == "late" and threading.current_thread() is not threading.main_thread()
            part = batch._take()
            while part is not None:
                if late:
                    time.sleep(0.001)
                outcome = batch.outcomes[part] = batch.expanders[part].generate_staged()
                batch.done[part].set()
                if timing == "late" and outcome == solver.SearchOutcome.SEARCH_WON:
                    batch.stop_taking()
                part = batch._take()

        monkeypatch.setattr(solver._Batches, "expand", spied_expand)
        monkeypatch.setattr(solver._Batches, "_begin", spied_begin)
        monkeypatch.setattr(solver._Round, "wait_part", spied_wait_part)
        if timing != "free":
            monkeypatch.setattr(solver._Round, "generate", generate_spied)


@pytest.mark.parametrize("timing", ["free", "eager", "late"])
def test_pipelined_threads_build_the_store_of_one_thread(monkeypatch, repo_root, keke_sets, timing):
    """Two threads insert one batch while they generate the next ones: the store
    (every record, parent and action), the counters and the result are one
    thread's, whether the search ends solved, unsolvable, at a state limit,
    at its memory limit, or stops after every batch and goes on."""
    monkeypatch.setattr(solver, "MIN_PART", 1)
    spy = _Spy(monkeypatch, timing)
    demo = {keke.id: keke.level for keke in read_keke_set(keke_sets["demo"])}
    test = {keke.id: keke.level for keke in read_keke_set(keke_sets["test"])}
    level_01 = load_level(repo_root / "levels" / "01")
    cases = [       # (level, states per batch, limits): several batches per layer, of up to 8 parts
        (load_level(repo_root / "levels" / "00"), 3, {}),
        (make_level(WALLED_OFF), 2, {}),
        (demo["3"], 64, {}),                        # won in part 2 of 8 of a batch generated ahead
        (test["0"], 64, {}),                        # ... in part 5
        (test["0"], 64, {"until": 0.0}),            # stopped after every batch, a batch ahead dropped
        (level_01, 64, {"max_states": 30_000}),
        (level_01, 64, {"max_states": 30_001, "until": 0.0}),
        (level_01, 64, {"memory": 3 << 20}),
    ]
    statuses = set()
    crossed = False                 # a batch ahead began the next layer
    for level, chunk, limits in cases:
        monkeypatch.setattr(solver, "CHUNK", chunk)
        spy.ahead.clear()
        one = _breadth_first(level, 1, **limits)
        assert not spy.ahead                        # one thread generates nothing ahead
        two = _breadth_first(level, 2, **limits)
        assert two == one, (level.name, limits)
        assert spy.ahead, (level.name, limits)
        statuses.add(one[0][0])
        depth = _depths(one[1])
        crossed = crossed or any(depth[start] != depth[start - 1] for start, _ in spy.ahead)
    assert statuses == {solver.SOLVED, solver.UNSOLVABLE, solver.LIMIT_STATES, solver.LIMIT_MEMORY}
    assert crossed
    # Wins fell inside batches generated ahead, with parts after them dropped.
    assert any(ahead and 0 < part < parts - 1 for part, parts, ahead in spy.wins)


@pytest.mark.parametrize("calls", [1, 5, 40])
def test_ctrl_c_while_the_main_thread_generates_ahead_counts_each_batch_once(monkeypatch, repo_root, calls):
    """Ctrl-C while the main thread takes parts of a batch ahead (after it
    inserted the batch before): the search is interrupted with the counters
    of exactly the batches inserted, and the batches ahead are dropped, and
    counted out, once."""
    monkeypatch.setattr(solver, "MIN_PART", 1)
    monkeypatch.setattr(solver, "CHUNK", 64)
    generate, expand = solver._Round.generate, solver._Batches.expand
    taken = [0]
    inserted = [0]             # the end of the last batch expand was called for

    def generate_until_ctrl_c(batch):
        if threading.current_thread() is threading.main_thread():
            taken[0] += 1
            if taken[0] >= calls and batch.start == inserted[0]:   # a batch ahead
                raise KeyboardInterrupt
        generate(batch)

    def spied_expand(batches, start, stop, *args):
        inserted[0] = stop
        return expand(batches, start, stop, *args)

    monkeypatch.setattr(solver._Round, "generate", generate_until_ctrl_c)
    monkeypatch.setattr(solver._Batches, "expand", spied_expand)
    search = solver._BreadthFirst(core_level(load_level(repo_root / "levels" / "01")),
                                  Budget(None, 200_000, None), 2, None, 1.0)
    try:
        result = search.run(None)
        assert not search.batches.ahead
    finally:
        search.close()
    assert result.status == solver.INTERRUPTED
    assert result.stats.expanded == inserted[0]     # every state before it, once
    assert result.stats.unique == len(search.store)
