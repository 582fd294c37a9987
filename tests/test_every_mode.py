"""What the solver reports, in every mode, on small random maps: every
solution is a win at its length (in the judge, for its rules; on replay,
for the game's), none is shorter than a proven one, and the modes agree on
what they prove.

The maps (conformance.winnable_levels) are small enough for breadth-first
search to decide most of them. The searches run on one thread with state
limits only, so every run gives the same results. The judge's test skips,
saying why, only when ../shared or node is absent.
"""
from __future__ import annotations

import random
from dataclasses import replace
from typing import List, Tuple

from babasolver import solver
from babasolver.app.solving import why_not_a_win
from babasolver.conformance import winnable_levels
from babasolver.level import Level
from babasolver.status import Status

SEED = 20261129
MAPS = 40
MAX_STATES = 200_000
# The other modes get less, so that breadth-first search's first phase
# (a tenth of the states) ends undecided and the satisficing searches find
# and shorten solutions.
MODE_STATES = (2_000, 20_000)


def solutions_of_every_mode(rules: str) -> List[Tuple[str, Level, list]]:
    """(label, level, solution) of every solution each mode reports on the
    small maps played by `rules`, after checking the modes against
    breadth-first search: none shorter than a proven solution, none where
    the level was proven unsolvable, every proof of the same length."""
    rng = random.Random(SEED)       # the other modes' state limits
    out: List[Tuple[str, Level, list]] = []
    statuses = set()
    found_by = set()
    for _, keke_level in winnable_levels(random.Random(SEED), MAPS):
        level = replace(keke_level, rules=rules)
        proven = solver.solve(level, mode="shortest", threads=1, timeout=None, max_states=MAX_STATES)
        statuses.add(proven.status)
        decided = proven.status in (Status.SOLVED, Status.UNSOLVABLE)
        for mode in ("shortest", "both", "fast"):
            found = proven if mode == "shortest" else solver.solve(level, mode=mode, threads=1, timeout=None,
                                                                   max_states=rng.choice(MODE_STATES))
            row = f"{level.name} {mode}: {found.status} {found.keke!r} / shortest {proven.status} {proven.keke!r}"
            if decided and proven.solution is None:
                assert found.solution is None, row
            if found.solution is not None:
                found_by.add(found.found_by)
                out.append((row, level, found.solution))
                if decided:
                    assert len(found.solution) >= len(proven.solution), row
                if found.proven_shortest:
                    assert decided and len(found.solution) == len(proven.solution), row
    # The seed gives solved and unsolvable maps both, and dozens of solutions,
    # found by breadth-first search and by the satisficing searches.
    assert {Status.SOLVED, Status.UNSOLVABLE} <= statuses
    assert len(out) >= 60
    assert {"breadth-first", "satisfice"} <= found_by, found_by
    return out


def test_every_mode_reports_what_the_judge_plays_and_what_breadth_first_search_proves(judge):
    found = solutions_of_every_mode("keke")
    for (row, _, solution), verdict in zip(found, judge.verdicts([(level, s) for _, level, s in found])):
        assert (verdict.won_at, verdict.illegal_at) == (len(solution), None), row


def test_under_the_games_rules_every_mode_reports_wins_and_what_breadth_first_search_proves():
    for row, level, solution in solutions_of_every_mode("baba"):
        assert why_not_a_win(level, solution) is None, row
