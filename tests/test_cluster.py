"""The cluster extra (issue 22): the core's door for a search split by hash,
breadth-first search over Ray workers against the one-process search, and
bench's levels as Ray tasks.

One local Ray serves the session (2 CPUs, no dashboard); the tests that
need it skip, saying why, only when Ray is not installed."""
from __future__ import annotations

import json
import sys
import time
from typing import Dict, List

import pytest

from babasolver import solver
from babasolver._core import (
    Expander, SearchOutcome, StateStore, insert_records, owner_of_record, root_record, take_generated,
)
from babasolver.app.limits import Limits
from babasolver.app.solving import why_not_a_win
from babasolver.app.tasks import LevelTask, load_tasks
from babasolver.game import Simulation
from babasolver.level import level_from_ascii, played_by
from babasolver.rulesets import core_level
from babasolver.status import Status

from util import assert_one_line_error, make_level, run_cli

#: Quick full_biy levels (the one-process search ends each in well under a
#: second), the unsolvable 84, 136 and 187 among them.
QUICK_FULL_BIY = ["84", "136", "187", "1", "6", "8", "27", "40", "51", "67", "69", "76", "88", "91", "96",
                  "101", "128", "138", "140", "142", "147", "169", "177", "183"]


@pytest.fixture(scope="session")
def ray_session():
    ray = pytest.importorskip("ray", reason="Ray is not installed: pip install '.[cluster]' runs these tests")
    pytest.importorskip("numpy", reason="numpy is not installed: pip install '.[cluster]' runs these tests")
    import logging
    ray.init(num_cpus=2, include_dashboard=False, logging_level=logging.ERROR, log_to_driver=False)
    yield ray
    ray.shutdown()


@pytest.fixture(scope="module")
def full_biy(keke_sets) -> Dict[str, LevelTask]:
    return {t.id.strip(): t for t in load_tasks(keke_sets["full_biy"])}


# --------------------------------------------------------------------------
# The core's door (no Ray)


def _u32(data: bytes) -> memoryview:
    return memoryview(data).cast("I")


def _u64(data: bytes) -> memoryview:
    return memoryview(data).cast("Q")


def _insert(store: StateStore, packet) -> int:
    records, starts, hashes, parents, actions = packet
    return insert_records(store, records, _u32(starts), _u64(hashes), _u64(parents), actions)


LEVEL = make_level([
    "..........",
    ".B12..F13.",
    "..........",
    "..b....f..",
    "R15.......",
    "...r......",
])


def _first_layers(parts: int):
    """Two layers of breadth-first search played as the workers play them,
    each store holding the states it owns, beside one store's two layers."""
    core = core_level(LEVEL)
    whole = StateStore()
    one = Expander(core, whole)
    one.add_root()
    one.expand(0, 1)
    one.expand(1, len(whole))
    stores = [StateStore() for _ in range(parts)]
    expanders = [Expander(core, s) for s in stores]
    root = root_record(expanders[0])
    assert root == whole.get(0)
    stores[owner_of_record(root, parts)].add(root)
    layers = [(0, len(s)) for s in stores]
    for _ in range(2):
        packets = []
        for k, (e, (start, stop)) in enumerate(zip(expanders, layers)):
            assert e.generate(start, stop) == SearchOutcome.SEARCH_GOING
            packets.append(take_generated(e, parts, k))
        for k, store in enumerate(stores):
            for sender in range(parts):
                _insert(store, packets[sender][k])
        layers = [(stop, len(s)) for (start, stop), s in zip(layers, stores)]
    return whole, stores


@pytest.mark.parametrize("parts", [1, 3])
def test_split_stores_hold_what_one_store_holds(parts):
    whole, stores = _first_layers(parts)
    held = [stores[k].get(i) for k in range(parts) for i in range(len(stores[k]))]
    assert sorted(held) == sorted(whole.get(i) for i in range(len(whole)))
    assert len(held) == len(set(held))
    for k, store in enumerate(stores):
        for i in range(len(store)):
            assert owner_of_record(store.get(i), parts) == k


def test_split_stores_keep_which_states_come_back():
    """The action byte travels whole in a packet: a state whose opposite
    action makes its parent says so in its owner's store too, so its
    owner counts that turn unplayed, as one store does."""
    whole, stores = _first_layers(3)
    came_back = [store.comes_back(i) for store in stores for i in range(len(store))]
    assert came_back == [whole.comes_back(whole.find(store.get(i)))
                         for store in stores for i in range(len(store))]
    assert any(came_back)


def test_global_parents_lead_back_to_the_root_by_the_moves_played():
    parts = 3
    whole, stores = _first_layers(parts)
    for k, store in enumerate(stores):
        for i in range(len(store)):
            moves, part, index = [], k, i
            while True:
                parent, action = stores[part].parent(index)
                if parent is None:
                    break
                moves.append(action)
                part, index = parent % parts, parent // parts
            moves.reverse()
            assert len(moves) == whole.depth(whole.find(store.get(i)))
            sim = Simulation(LEVEL)
            for move in moves:
                sim.step(move)
            assert sim.pack() == store.get(i)


def test_a_malformed_packet_is_refused():
    store = StateStore()
    good = (b"abcd", bytes(4) + (4).to_bytes(4, "little"), bytes(8), bytes(8), bytes(1))
    assert _insert(store, good) == 1
    assert _insert(store, good) == 0                    # a duplicate
    with pytest.raises(ValueError):
        insert_records(store, b"abcd", _u32(bytes(4)), _u64(bytes(8)), _u64(bytes(8)), bytes(1))
    with pytest.raises(ValueError):                     # past the records
        insert_records(store, b"ab", _u32(bytes(4) + (4).to_bytes(4, "little")), _u64(bytes(8)),
                       _u64(bytes(8)), bytes(1))
    with pytest.raises(ValueError):                     # an action no turn has
        insert_records(store, b"efgh", _u32(bytes(4) + (4).to_bytes(4, "little")), _u64(bytes(8)),
                       _u64(bytes(8)), bytes([9]))
    with pytest.raises(ValueError):                     # a bit the action byte has no use for
        insert_records(store, b"efgh", _u32(bytes(4) + (4).to_bytes(4, "little")), _u64(bytes(8)),
                       _u64(bytes(8)), bytes([0x40 | 1]))
    came_back = (b"efgh", bytes(4) + (4).to_bytes(4, "little"), bytes(8), bytes(8), bytes([0x80 | 1]))
    assert _insert(store, came_back) == 1
    assert store.parent(len(store) - 1) == (0, 1) and store.comes_back(len(store) - 1)


def test_owners_are_balanced():
    counts = [0] * 4
    for n in range(4000):
        counts[owner_of_record(n.to_bytes(4, "little") + b"state", 4)] += 1
    assert min(counts) > 800


# --------------------------------------------------------------------------
# Without Ray


@pytest.mark.parametrize("missing", ["ray", "numpy"])
def test_cluster_without_ray_is_one_line_naming_the_extra(capsys, repo_root, monkeypatch, missing):
    # Without numpy alone, solve --cluster printed a traceback (cluster.bfs imports it).
    monkeypatch.setitem(sys.modules, missing, None)      # importing it fails
    for module in ("babasolver.cluster.bfs", "babasolver.cluster.actor"):
        monkeypatch.delitem(sys.modules, module, raising=False)
    level = next(p for p in sorted((repo_root / "levels").rglob("tiles.txt"))).parent
    code, out, err = run_cli(capsys, "solve", level, "--cluster", "local")
    assert_one_line_error(code, out, err)
    assert "pip install 'babasolver[cluster]'" in err
    code, out, err = run_cli(capsys, "bench", level.parent, "--cluster", "local")
    assert_one_line_error(code, out, err)
    assert "babasolver[cluster]" in err


# --------------------------------------------------------------------------
# Breadth-first search over Ray workers


def test_cluster_search_proves_what_one_process_proves(ray_session, full_biy):
    from babasolver.cluster.bfs import solve_on_cluster

    rows: List[str] = []
    for n, level_id in enumerate(QUICK_FULL_BIY):
        level = full_biy[level_id].level
        alone = solver.solve(level, threads=2, mode="shortest", timeout=60)
        # Small rounds on every other level: a layer then takes many rounds.
        split = solve_on_cluster(level, 2, timeout=60, round_states=64 if n % 2 else 1 << 15)
        rows.append(f"{level_id}: {alone.status} {len(alone.solution or [])} / {split.status}"
                    f" {len(split.solution or [])}")
        assert alone.status in (Status.SOLVED, Status.UNSOLVABLE), rows[-1]
        assert split.status == alone.status, rows[-1]
        assert split.proven_shortest and split.lower_bound == alone.lower_bound, rows[-1]
        assert (split.found_by, split.proved_by) == (alone.found_by, alone.proved_by), rows[-1]
        if alone.status == Status.SOLVED:
            assert len(split.solution) == len(alone.solution), rows[-1]
            assert why_not_a_win(level, split.solution) is None, rows[-1]
        else:
            assert split.stats.unique == alone.stats.unique, rows[-1]
            assert sum(split.stats.states_per_worker) == split.stats.unique
    assert any(level_id == "136" for level_id in QUICK_FULL_BIY)


def test_cluster_search_proves_what_one_process_proves_under_the_games_rules(ray_session, full_biy):
    """The workers build their levels from the Level they are sent, so its
    rule set travels with it: the commercial game's rules, here."""
    from babasolver.cluster.bfs import solve_on_cluster

    statuses = set()
    for level_id in ["166", "84", "1", "6", "27", "51", "187", "183"]:
        level = played_by(full_biy[level_id].level, "baba")
        alone = solver.solve(level, threads=1, mode="shortest", timeout=60)
        split = solve_on_cluster(level, 2, timeout=60, round_states=512)
        row = f"{level_id}: {alone.status} {len(alone.solution or [])} / {split.status} {len(split.solution or [])}"
        assert alone.status in (Status.SOLVED, Status.UNSOLVABLE), row
        assert (split.status, split.lower_bound) == (alone.status, alone.lower_bound), row
        if alone.status == Status.SOLVED:
            assert len(split.solution) == len(alone.solution), row
            assert why_not_a_win(level, split.solution) is None, row
        else:
            assert split.stats.unique == alone.stats.unique, row
        statuses.add(alone.status)
    assert statuses == {Status.SOLVED, Status.UNSOLVABLE}     # 166 is unsolvable under these rules


def test_a_dead_root_is_counted_as_one_process_counts_it(ray_session):
    """A level whose first position has nothing YOU or MOVE: the split
    search said 0 states stored, where one process says 1 (the root)."""
    from babasolver.cluster.bfs import solve_on_cluster

    level = level_from_ascii("_____\n_B12_\n_.k._\n_____")      # baba is you, and no baba
    alone = solver.solve(level, threads=1, mode="shortest")
    for workers in (1, 2):
        split = solve_on_cluster(level, workers)
        assert (split.status, split.lower_bound) == (alone.status, alone.lower_bound) == (Status.UNSOLVABLE, 1)
        assert split.stats.unique == alone.stats.unique == 1
        assert sorted(split.stats.states_per_worker) == [0] * (workers - 1) + [1]


def test_a_state_limit_gives_the_one_process_bound(ray_session, full_biy):
    from babasolver.cluster.bfs import solve_on_cluster

    level = full_biy["136"].level
    split = solve_on_cluster(level, 2, max_states=3000, round_states=1 << 15)
    assert split.status == Status.STATE_LIMIT and not split.proven_shortest
    # Its layers are smaller than a batch: both stop after the layer that passed the limit.
    alone = solver.solve(level, threads=1, mode="shortest", max_states=3000)
    assert alone.status == Status.STATE_LIMIT
    assert split.lower_bound == alone.lower_bound and split.stats.depth == alone.stats.depth
    assert split.stats.bytes_exchanged > 0


def test_memory_is_per_worker_and_its_limit_gives_a_bound(ray_session, full_biy):
    from babasolver.cluster.bfs import solve_on_cluster

    split = solve_on_cluster(full_biy["107"].level, 2, memory=40 * 2**20)
    assert split.status == Status.MEMORY_LIMIT and not split.proven_shortest and split.solution is None
    assert 2 <= split.lower_bound <= 26                  # 26 moves is the shortest
    assert split.stats.memory_bytes <= 2 * 40 * 2**20
    assert max(split.stats.states_per_worker) < 1.1 * min(split.stats.states_per_worker)


def test_a_killed_worker_gives_an_error_not_a_verdict(ray_session, full_biy):
    from babasolver.cluster.bfs import WORKER_NAME, solve_on_cluster

    ray = ray_session
    killed: List[str] = []

    def kill_one(stats) -> None:
        if not killed and stats.depth >= 3:
            name = next(n for n in ray.util.list_named_actors() if n.startswith(WORKER_NAME))
            ray.kill(ray.get_actor(name))
            killed.append(name)

    result = solve_on_cluster(full_biy["136"].level, 2, progress=kill_one, progress_every=0.0, round_states=32)
    assert killed
    assert result.status == Status.ERROR
    assert "worker" in result.note and "failed" in result.note
    assert not result.proven_shortest and result.solution is None
    assert 4 <= result.lower_bound <= 36


def test_solve_cli_on_the_session_cluster(ray_session, capsys, keke_sets):
    code, out, err = run_cli(capsys, "solve", keke_sets["full_biy"], "--id", "6", "--cluster", "local",
                             "--workers", "2", "--json")
    assert code == 0, err
    result = json.loads(out)
    assert result["status"] == "solved" and result["proven_shortest"] and result["solution"]["moves"] == 12
    assert len(result["stats"]["states_per_worker"]) == 2 and result["stats"]["bytes_exchanged"] > 0
    code, out, err = run_cli(capsys, "solve", keke_sets["full_biy"], "--id", "6", "--cluster", "local",
                             "--workers", "3")
    assert_one_line_error(code, out, err)
    assert "CPUs, and each worker needs one" in err


# --------------------------------------------------------------------------
# bench's levels as Ray tasks


def _without_times(report):
    if isinstance(report, dict):
        return {k: _without_times(v) for k, v in report.items()
                if not any(w in k for w in ("time", "second", "rss", "scaling"))}
    if isinstance(report, list):
        return [_without_times(v) for v in report]
    return report


def test_bench_demo_on_the_cluster_reports_as_without_it(ray_session, capsys, keke_sets, tmp_path):
    reports = []
    for where in (["--threads", "1"], ["--cluster", "local", "--jobs", "2"]):
        path = tmp_path / f"report{len(reports)}.json"
        code, out, err = run_cli(capsys, "bench", keke_sets["demo"], "--timeout", "10", "--report", path, *where)
        assert code == 0, err
        reports.append(_without_times(json.loads(path.read_text())))
    assert reports[0] == reports[1]
    assert reports[1]["summary"]["solved"] == 14


def test_a_level_past_its_time_limit_is_cancelled(ray_session, full_biy):
    from babasolver.cluster.bench import run_on_cluster

    def stuck(task, limits, mode, threads, write):      # a level that never returns
        if task.id.strip() == "6":
            time.sleep(3600)
        from babasolver.app.running import run_level
        return run_level(task, limits, mode, threads, write)

    tasks = [full_biy["6"], full_biy["1"]]
    outcomes = {}
    started = time.monotonic()
    completed = run_on_cluster(tasks, Limits.for_many(1.0), "shortest",
                               lambda index, outcome: outcomes.__setitem__(index, outcome),
                               slots=2, run=stuck, cancel_seconds=2.0)
    assert completed and time.monotonic() - started < 60
    assert outcomes[0].status == Status.TIME_LIMIT and "cancelled" in outcomes[0].note
    assert outcomes[1].status == Status.SOLVED and outcomes[1].moves == 12


def test_a_worker_that_dies_is_an_error_and_the_run_goes_on(ray_session, full_biy):
    from babasolver.cluster.bench import run_on_cluster

    def dies(task, limits, mode, threads, write):
        import os
        if task.id.strip() == "6":
            os._exit(3)
        from babasolver.app.running import run_level
        return run_level(task, limits, mode, threads, write)

    outcomes = {}
    completed = run_on_cluster([full_biy["6"], full_biy["1"]], Limits.for_many(10.0), "shortest",
                               lambda index, outcome: outcomes.__setitem__(index, outcome), slots=2, run=dies)
    assert completed
    assert outcomes[0].status == Status.ERROR and outcomes[0].note
    assert outcomes[1].status == Status.SOLVED


def test_a_level_on_the_cluster_gets_a_search_budget_not_an_address_space_cap():
    import pickle
    import resource

    from babasolver.cluster.bench import _within_budget

    before = resource.getrlimit(resource.RLIMIT_AS)
    seen = []
    job = pickle.dumps((LevelTask("x", LEVEL), Limits.for_many(1.0), "shortest", 1, False))
    _within_budget(2**30, lambda task, limits, *rest: seen.append(limits.memory), job)
    assert seen == [pytest.approx(0.8)]
    given = pickle.dumps((LevelTask("x", LEVEL), Limits.for_many(1.0, memory=0.5), "shortest", 1, False))
    _within_budget(2**30, lambda task, limits, *rest: seen.append(limits.memory), given)
    assert seen[-1] == 0.5
    assert resource.getrlimit(resource.RLIMIT_AS) == before
