"""The reference engine against the Keke reference solutions.

Every stored solution of demo, test and full_biy must win, except RULES.md's
six known non-winning levels (reported, not counted) and the levels listed
in ``REFERENCE_DEFECT_LEVELS`` (they win under the Keke simulator only
through defects RULES.md says not to copy).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from babasolver import conformance
from babasolver.reference import ReferenceSimulation

from util import make_level

SHARED_DIR = Path(__file__).resolve().parent.parent.parent / "shared"


@pytest.fixture(scope="module")
def report():
    if not (SHARED_DIR / "levels" / "keke").is_dir():
        pytest.skip("../shared is absent: the Keke level sets live there")
    return conformance.run(SHARED_DIR, ReferenceSimulation, engine="reference")


def test_reference_wins_every_reference_solution(report):
    assert report.failures == [], "\n".join(report.lines())


def test_level_counts(report):
    # 14 demo + 3 test + 184 full_biy = 201 levels, six of them excluded.
    assert len(report.outcomes) == 201
    assert len(report.excluded) == 6
    assert len(report.counted) == 195
    assert report.passed + report.failed == 195


def test_excluded_levels_are_reported_with_their_outcome(report):
    excluded = {(o.set_name, o.level_id) for o in report.excluded}
    assert excluded == {("full_biy", i) for i in conformance.KNOWN_NON_WINNING["full_biy"]}
    for outcome in report.excluded:
        assert outcome.label() in "\n".join(report.lines())


def test_reference_defect_levels_are_exactly_the_listed_ones(report):
    # If one of them starts winning, or another level joins them, the list
    # in babasolver.conformance (and the report to the lead) must change.
    not_winning = {(o.set_name, o.level_id) for o in report.counted if not o.won}
    listed = {
        (set_name, level_id)
        for set_name, ids in conformance.REFERENCE_DEFECT_LEVELS.items()
        for level_id in ids
    }
    assert not_winning == listed


def test_summary_line(report):
    assert report.summary().startswith(
        f"conformance: {report.passed} of 195 reference solutions win ("
    )
    assert "; 6 excluded" in report.summary()


def test_replay_stops_at_the_first_win():
    level = make_level(["B12.", "F13.", "bf.."])
    assert conformance.replay(ReferenceSimulation(level), "rr") == 1
    assert conformance.replay(ReferenceSimulation(level), [4, 3]) == 2
    assert conformance.replay(ReferenceSimulation(level), "lS") is None


def test_main_prints_the_figure(capsys):
    if not (SHARED_DIR / "levels" / "keke").is_dir():
        pytest.skip("../shared is absent: the Keke level sets live there")
    status = conformance.main(["--engine", "reference", "--shared", str(SHARED_DIR)])
    out = capsys.readouterr().out
    assert status == 0
    assert out.splitlines()[-1].startswith("conformance: ")
    assert "excluded full_biy 21:" in out


# ---------------------------------------------------------------------------
# Extras of the reference engine (not part of the shared API)


def test_props_lists_every_property_word():
    sim = ReferenceSimulation(make_level(["B12.", "R15.", "R16.", "br.."]))
    props = sim.props()
    assert set(props) == {"you", "win", "stop", "push", "move", "kill", "sink", "hot", "melt"}
    assert props["you"] == [1]  # baba
    assert props["push"] == [7] and props["stop"] == [7]  # rock
    assert props["win"] == []


def test_copy_is_independent():
    sim = ReferenceSimulation(make_level(["B12.", "b..."]))
    twin = sim.copy()
    sim.step(3)
    assert twin.objects() != sim.objects()
    twin.step(3)
    assert twin.objects() == sim.objects()
    assert twin.rules() == sim.rules()


def test_step_keke_takes_either_case_and_rejects_other_letters():
    a = ReferenceSimulation(make_level(["B12.", "....", "b..."]))
    b = a.copy()
    a.step_keke("RUs")
    for action in (3, 0, 4):
        b.step(action)
    assert a.objects() == b.objects()
    with pytest.raises(ValueError):
        a.step_keke("x")
    with pytest.raises(ValueError):
        a.step(5)
