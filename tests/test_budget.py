"""The budget of mode "both" (babasolver.schedule): its time shares, and the
states and bytes of all the searches' stores together, hold at every
moment; a result's status and its proof never disagree."""
from __future__ import annotations

import time

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from babasolver import satisfice, schedule, solver
from babasolver._core import SearchOutcome
from babasolver.game import replay
from babasolver.level import load_level
from babasolver.schedule import BUDGET, LEFT, PROVE, SCHEDULE, SHORTEN, Budget
from babasolver.status import LIMITS, Status

from util import make_level

# Levels breadth-first search needs some thousands to millions of states
# for, so small budgets stop it and the other phases run.
LEVELS = {
    "01": None,
    "rocks": ["B12..r..", "R15.rr..", "W16ww...", ".b..r...", "F13....f"],
    "keys": ["B12.S10..", "F13....s.", "b...L14..", "..l..fl..", "K1B......"],
    "walled": ["B12..w.", "F13..w.", "W16..wf", "..b..w."],
}


@pytest.fixture(scope="module")
def levels(repo_root):
    return {name: load_level(repo_root / "levels" / "01") if rows is None else make_level(rows)
            for name, rows in LEVELS.items()}


def test_the_schedule_declares_each_phase_once_in_order():
    names = [phase.name for phase in SCHEDULE]
    assert len(set(names)) == len(names) == 6
    assert names[0] == "breadth-first" and names[-1] == SHORTEN.name
    # The whole-budget shares leave nothing over; the others split what is left.
    assert sum(p.time_share for p in SCHEDULE if p.of == BUDGET) <= 1.0
    assert all(0 < p.time_share <= 1 and p.of in (BUDGET, LEFT) and 0 < p.state_share <= 1 for p in SCHEDULE)
    assert PROVE.share_without_proof is not None and PROVE.share_without_proof < PROVE.time_share
    assert [p for p in SCHEDULE if p.reserved] == [SHORTEN]
    # The module's doc is the one place the schedule is told: a row per phase, in order.
    rows = [line.split("  ")[0] for line in schedule.__doc__.splitlines() if line[:1].isalpha()]
    assert [row for row in rows if row in names] == names


@given(timeout=st.floats(0.0, 1000.0), used=st.lists(st.floats(0.0, 1.0), min_size=6, max_size=6),
       in_sight=st.booleans())
def test_the_time_shares_never_add_up_to_more_than_the_budget(timeout, used, in_sight):
    """Each phase takes some part of the time it is given; whatever the
    phases before took, none is given time past the shortening reserve
    (the reserve none past the deadline), so together they take at most
    the budget."""
    budget = Budget(timeout, 1000, started=0.0)
    now = 0.0
    for phase, part in zip(SCHEDULE, used):
        share = None if phase is not PROVE or in_sight else PROVE.share_without_proof
        seconds = budget.seconds(phase, share, now)
        assert seconds is not None and 0 <= seconds <= (phase.max_seconds or timeout)
        end = budget.deadline if phase.reserved else budget.reserve_start
        assert now + seconds <= end + 1e-9
        now += part * seconds
    assert now <= timeout + 1e-9


def _agrees(result) -> None:
    """A status and its proof never disagree."""
    if result.status in LIMITS or result.status == Status.WRONG:
        assert not result.proven_shortest and result.proved_by is None
    if result.status == Status.UNSOLVABLE:
        assert result.proven_shortest and result.solution is None and result.proved_by is not None
    if result.status == Status.SOLVED:
        assert result.solution is not None and result.found_by is not None
        assert result.lower_bound <= len(result.solution)
        assert result.proven_shortest == (len(result.solution) == result.lower_bound and result.proved_by is not None)
    assert (result.proved_by is not None) == result.proven_shortest


class _Watch:
    """Checks, wherever a search asks for room, that the stores of all
    searches hold no more than the budget, and that no shortcut search is
    given more than the others leave."""

    def __init__(self, monkeypatch):
        self.checks = 0
        self.peak_states = 0
        self.budget = None          # the budget last asked
        room_states = Budget.room_states
        watch = self

        def checked(budget):
            held = budget.held_states()
            assert held <= budget.max_states, (held, budget.max_states)
            if budget.memory is not None:
                assert budget.held_bytes() <= budget.memory, (budget.held_bytes(), budget.memory)
            watch.checks += 1
            watch.budget = budget
            watch.peak_states = max(watch.peak_states, held)
            return room_states(budget)

        monkeypatch.setattr(Budget, "room_states", checked)
        real_shortcut = satisfice._shortcut

        def shortcut(core, start, origin, later, limit, states, cap, byte_limit=0, deadline=None):
            budget = watch.budget
            assert 1 <= cap and (budget is None or budget.held_states() + cap <= budget.max_states)
            return real_shortcut(core, start, origin, later, limit, states, cap, byte_limit, deadline)

        monkeypatch.setattr(satisfice, "_shortcut", shortcut)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.sampled_from(sorted(LEVELS)), max_states=st.integers(30, 400_000),
       memory_mb=st.one_of(st.none(), st.integers(2, 48)), mode=st.sampled_from(solver.MODES),
       threads=st.integers(1, 2))
# A beam started with less room than its empty table takes went 253 bytes over.
@example(name="01", max_states=55158, memory_mb=2, mode="both", threads=1)
def test_the_stores_together_never_hold_more_than_the_budget(monkeypatch, levels, name, max_states, memory_mb,
                                                               mode, threads):
    with monkeypatch.context() as patch:
        watch = _Watch(patch)
        level = levels[name]
        memory = None if memory_mb is None else memory_mb * 2**20
        result = solver.solve(level, max_states=max_states, memory=memory, mode=mode, threads=threads,
                              timeout=5)
    assert watch.checks > 0
    assert watch.peak_states <= max_states
    if mode != "fast":      # there `unique` counts every state any search stored, ended searches' too
        assert result.stats.unique <= max_states
    _agrees(result)
    if result.solution is not None:
        assert replay(level, result.solution).won_at == len(result.solution)


def test_states_add_up_across_the_phases_of_a_long_run(monkeypatch, levels):
    """Level 01 under a budget breadth-first search cannot prove it within:
    every phase runs, and the pool and breadth-first search share one
    total (they once held 1.7 times it together)."""
    with monkeypatch.context() as patch:
        watch = _Watch(patch)
        result = solver.solve(levels["01"], max_states=200_000, timeout=4, threads=2)
    assert result.solved and watch.peak_states <= 200_000
    assert result.found_by in {phase.name for phase in SCHEDULE}
    _agrees(result)


def test_reaching_the_solutions_depth_proves_it_and_says_solved(levels):
    """Breadth-first search bounded by a known solution, reaching its depth
    without a win, reports it SOLVED and proven (never STATE_LIMIT)."""
    level = levels["01"]
    budget = Budget(None, 10_000_000)
    search = solver._BreadthFirst(solver.core_level(level), budget, 1, None, 0.5)
    try:
        known = solver.solve(level, mode="shortest").solution
        search.known = [int(a) for a in known]
        result = search.run(None)
    finally:
        search.close()
    assert result.status == Status.SOLVED and result.proven_shortest
    assert result.solution == known and result.lower_bound == len(known)
    _agrees(result)


@pytest.mark.parametrize("mode", solver.MODES)
def test_progress_comes_every_progress_every_in_every_phase(levels, mode):
    """A budget small enough that breadth-first search pauses, so the races
    run; with progress_every 0 each phase reports, the races too."""
    reports = []
    result = solver.solve(levels["01"], max_states=60_000, mode=mode, progress=reports.append, progress_every=0.0,
                          timeout=10)
    assert reports
    racing = [r for r in reports if r.satisficing]
    if mode != "shortest":
        assert racing
    if mode != "fast":
        assert len(reports) > len(racing)
    _agrees(result)


def _layers(*growth: float) -> list[int]:
    sizes = [1, 4, 12]
    for g in growth:
        sizes.append(round(sizes[-1] * g))
    return sizes


@pytest.mark.parametrize("sizes, near", [
    ([1, 4], False), (_layers(2.0, 1.9, 1.8), False),
    (_layers(1.5, 1.2, 1.1, 1.1), True),                 # flat
    (_layers(1.5, 1.2, 1.0, 0.8), True),                 # shrinking
    (_layers(1.6, 1.52, 1.44, 1.36, 1.28, 1.2), True),   # 1.24 over two, falling 0.08 a layer
    (_layers(1.6, 1.58, 1.56, 1.54, 1.52, 1.5), False),  # falling 0.02 a layer: 1 is 25 away
    (_layers(1.3, 1.05, 1.39, 1.04, 1.36, 1.05, 1.39, 1.15), False),   # full_biy 162: odd and even
    (_layers(1.2, 1.25, 1.3, 1.35, 1.4), False)])        # rising
def test_layers_are_near_their_peak_when_growth_is_low_or_falls_fast(sizes, near):
    assert schedule.near_peak(sizes) is near


# Unsolvable: the flag is walled off, the walls are STOP and their rule out of
# reach. 42,832 states; breadth-first layers peak near 4,000 at depth 21.
WALLED_OFF = make_level([
    "B12..F13..W16",
    ".............",
    ".wwwwwwwwwww.",
    ".w.........w.",
    ".w.r...r...w.",
    ".w....b....w.",
    ".w.........w.",
    ".wwwwwwwwwww.",
    ".....wwwww...",
    "R15..wfw.....",
    ".....wwwww...",
], "walled off")


class _Clock:
    """A clock that moves on a fixed step each time it is read: the turns of
    mode both are measured in time, so with it they are the same on every
    run, however loaded the machine."""

    def __init__(self, step: float) -> None:
        self.now, self.step = 1000.0, step

    def perf_counter(self) -> float:
        self.now += self.step
        return self.now


def test_breadth_first_search_takes_turns_with_the_race_once_its_layers_stop_growing(monkeypatch):
    """Mode both's first phase stops (at a tenth of the states) where the
    layers have flattened: breadth-first search then takes turns with the
    race and proves the level unsolvable in that phase, having seen every
    state. Before, the race ran alone until its stores ran out of states
    (here) or its greedy search saw every state, and breadth-first search
    went on only after it. On the real clock the proof landed in the next
    phase once in a few runs of the whole suite: breadth-first search,
    slowed, had less of each turn and the race saw every state first."""
    clock = _Clock(0.001)
    for module in (solver, satisfice, schedule):
        monkeypatch.setattr(module, "time", clock)
    whole = solver.solve(WALLED_OFF, mode="shortest", threads=1)
    assert whole.status == Status.UNSOLVABLE and whole.stats.unique == 42_832
    result = solver.solve(WALLED_OFF, mode="both", max_states=300_000, threads=1, timeout=None)
    assert result.status == Status.UNSOLVABLE and result.proven_shortest
    assert result.proved_by == schedule.SATISFICE.name
    assert (result.stats.unique, result.stats.depth) == (whole.stats.unique, whole.stats.depth)


class _Stalled:
    """A satisficing search that expands and finds nothing."""
    outcome = SearchOutcome.SEARCH_GOING
    stored = 0

    def __init__(self) -> None:
        self.expanded = 0


def test_breadth_first_search_takes_turns_once_the_race_has_run_alone(monkeypatch):
    """Layers that are not near their peak leave the race alone for
    RACE_ALONE_TURNS turns only: then, with no solution found, breadth-first
    search takes turns with it anyway and proves the level unsolvable. Before,
    the race ran alone until its greedy search saw every state or its stores
    ran out of states (on a level whose growth fell slowly, mode both took 46 s
    where mode shortest took 12 s); here it would run forever."""
    monkeypatch.setattr(solver, "near_peak", lambda sizes: False)
    races = []

    def race(pool, portfolio, limit, deadline, threads=1, **options):
        assert deadline is not None, "the race was left to run alone until it ends"
        racer = pool.racers.setdefault("stalled", _Stalled())
        races.append((time.perf_counter(), deadline))
        time.sleep(max(0.0, deadline - time.perf_counter()))
        racer.expanded += 1
        return pool

    monkeypatch.setattr(solver, "race", race)
    whole = solver.solve(WALLED_OFF, mode="shortest", threads=1)
    result = solver.solve(WALLED_OFF, mode="both", max_states=300_000, threads=1, timeout=None)
    assert result.status == Status.UNSOLVABLE and result.proved_by == schedule.SATISFICE.name
    assert (result.stats.unique, result.stats.depth) == (whole.stats.unique, whole.stats.depth)
    (started, alone_until), *turns = races
    assert alone_until - started >= schedule.RACE_ALONE_TURNS * schedule.MIN_TURN * 0.99
    assert turns and all(until - begun <= 0.5 * (alone_until - started) for begun, until in turns)


def test_breadth_first_search_stops_short_of_a_table_doubling_that_would_end_past_its_deadline(monkeypatch):
    """Doubling the table pauses the search while every state is rehashed,
    in the core, where no deadline is looked at (3 s at 54 million
    states): --timeout 30 ran 32 s. When the last doubling's pause says the
    next would end past the deadline, the search stops before it."""
    monkeypatch.setattr(solver, "INITIAL_TABLE_STATES", 1024)
    core = solver.core_level(WALLED_OFF)
    search = solver._BreadthFirst(core, Budget(None, 10_000_000), 1, None, 0.5)
    try:
        slots = search.store.table_slots
        search.pauses.seconds_per_state = 10.0      # as if measured: hours for the next doubling
        deadline = time.perf_counter() + 3600
        result = search.run(deadline, final=deadline)
        assert result is not None and result.status == Status.TIME_LIMIT
        assert search.store.table_slots == slots and search.store.states_before_grow < search.n_actions
        assert result.lower_bound == result.stats.depth + 1
    finally:
        search.close()
    # Without a deadline nothing stops it: the doubling only takes time.
    search = solver._BreadthFirst(core, Budget(None, 10_000_000), 1, None, 0.5)
    try:
        search.pauses.seconds_per_state = 10.0
        assert search.run(None).status == Status.UNSOLVABLE
    finally:
        search.close()


def test_a_satisficing_search_runs_dry_short_of_a_table_doubling_that_would_end_past_the_time_limit():
    """The satisficing searches' tables double too, as a race's searches
    go on from phase to phase. When the last doubling's pause says the next
    would end past the time limit, the search stops before it and runs dry,
    proving nothing, as when its store reaches its share of the memory."""
    core = solver.core_level(WALLED_OFF)
    spec = satisfice.Search(satisfice.GUIDE_PAIRS)
    pool = satisfice.Pool(core)
    racer = pool.racer(spec, expected=1024)
    assert racer is not None and racer.store is not None
    store, slots = racer.store, racer.store.table_slots
    racer.pauses.seconds_per_state = 10.0       # as if measured: hours for the next doubling
    budget = Budget(3600, 10_000_000)
    satisfice.race(pool, [spec], budget, budget.deadline)
    assert racer.outcome == SearchOutcome.SEARCH_DRY and not pool.exhausted and pool.solution is None
    assert store.table_slots == slots and store.states_before_grow < core.n_actions
    # Without a time limit nothing stops it: the doubling only takes time,
    # and the search sees every state (the level is unsolvable).
    pool = satisfice.Pool(core)
    racer = pool.racer(spec, expected=1024)
    assert racer is not None
    racer.pauses.seconds_per_state = 10.0
    satisfice.race(pool, [spec], Budget(None, 10_000_000), None)
    assert racer.outcome == SearchOutcome.SEARCH_EXHAUSTED and pool.exhausted
