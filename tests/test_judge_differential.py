"""Both engines against the judge, turn by turn (babasolver.conformance).

The judge is ../shared/keke-reference/simulation.js, run with node; these
tests skip, saying why, only when ../shared or node is absent. CI compares
over 50,000 turns on the Cython core; the documented full run
(`python -m babasolver.conformance --judge ../shared/keke-reference
--strings 20 --turns 60`) compares far more.
"""
from __future__ import annotations

import random

import pytest

from babasolver import conformance
from babasolver.notation import parse_solution

ENGINES = ["core", "reference"]
# Strings per shipped level, turns per string, generated maps, per engine:
# the pure-Python reference is slower, so it plays less.
BUDGET = {"core": (5, 60, 400), "reference": (1, 40, 150)}
TURNS_COMPARED = {"core": 0, "reference": 0}

BREAKS = {"full_biy 84": 1, "full_biy 136": 14, "full_biy 187": 2, "full_biy 190": 14}
NOT_WINNING = {f"full_biy {i}" for i in (21, 33, 37, 41, 46, 77)}


@pytest.fixture(scope="module")
def entries(shared_dir):
    return conformance.shipped_levels(shared_dir)


@pytest.mark.parametrize("engine", ENGINES)
def test_stored_solutions_win_break_or_fail_where_rules_md_says(engine, entries):
    # RULES.md, "Known facts about the public level sets".
    make = conformance.ENGINES[engine]
    wins, breaks, ends = 0, {}, set()
    for label, entry in entries:
        sim = make(entry.level)
        for turn, action in enumerate(parse_solution(entry.solution), start=1):
            sim.step(action)
            if sim.illegal is not None:
                breaks[label] = turn
                break
            if sim.won:
                wins += 1
                break
        else:
            ends.add(label)
    assert wins == 191
    assert breaks == BREAKS
    assert ends == NOT_WINNING


@pytest.mark.parametrize("engine", ENGINES)
def test_stored_solutions_end_as_in_the_judge(engine, judge, entries):
    rows = conformance.stored_solutions(judge, engine, entries)
    assert len(rows) == 201
    assert [row.label for row in rows if not row.agree] == []
    assert sum(row.judge.startswith("wins") for row in rows) == 191
    assert {row.label: int(row.judge.split()[-1]) for row in rows if row.judge.startswith("breaks")} == BREAKS


@pytest.mark.parametrize("engine", ENGINES)
def test_random_play_on_every_shipped_level_is_the_judges(engine, judge, entries):
    strings, turns, _ = BUDGET[engine]
    rng = random.Random(11)
    plays = [(label, entry.level, conformance.random_actions(rng, turns))
             for label, entry in entries for _ in range(strings)]
    result = conformance.compare(judge, engine, plays)
    TURNS_COMPARED[engine] += result.turns
    assert result.strings == len(plays) == result.identical, "\n".join(result.mismatches[:5])


@pytest.mark.parametrize("engine", ENGINES)
def test_random_play_on_generated_maps_is_the_judges(engine, judge):
    _, turns, maps = BUDGET[engine]
    rng = random.Random(12)
    plays = [(label, level, conformance.random_actions(rng, turns))
             for label, level in conformance.template_levels(rng, maps)]
    result = conformance.compare(judge, engine, plays)
    TURNS_COMPARED[engine] += result.turns
    assert result.strings == len(plays) == result.identical, "\n".join(result.mismatches[:5])


def test_the_core_was_compared_over_fifty_thousand_turns(judge):
    # Runs after the comparisons above (pytest keeps file order).
    assert TURNS_COMPARED["core"] >= 50_000


def test_generated_maps_reach_what_shipped_levels_rarely_do():
    # Transformations, destruction, hidden texts and turns the judge cannot
    # play all occur in the generated maps' random play.
    from babasolver.game import Simulation

    rng = random.Random(12)
    seen = set()
    for _, level in conformance.template_levels(rng, 150):
        sim = Simulation(level)
        for action in conformance.random_actions(rng, 40):
            before = [o[0] for o in sim.objects()]
            sim.step(action)
            if sim.illegal is not None:
                seen.add("illegal")
                break
            after = [o[0] for o in sim.objects()]
            if len(after) < len(before):
                seen.add("destroyed")
            elif after != before:
                seen.add("transformed")
            if any(hidden for *_, hidden in sim.texts()):
                seen.add("hidden text")
            if sim.won:
                break
    assert seen == {"illegal", "destroyed", "transformed", "hidden text"}


NODE_CRASH = """node:events:502
      throw er; // Unhandled 'error' event
      ^

Error: write ENOBUFS
    at afterWriteDispatched (node:internal/stream_base_commons:161:15)
Emitted 'error' event on Socket instance at:
    at emitErrorNT (node:internal/streams/destroy:169:8) {
  errno: -105,
  code: 'ENOBUFS',
  syscall: 'write'
}

Node.js v20.20.2
"""


@pytest.mark.parametrize("stderr, said", [
    (NODE_CRASH, "Error: write ENOBUFS"),     # the last line was all it said: "Node.js v20.20.2"
    ("/x/simulation.js:3\nSyntaxError: Unexpected token '}'\n\nNode.js v20.20.2\n", "SyntaxError: Unexpected token '}'"),
    ("x/simulation.js: not the Keke judge (no destroyObjs to watch)\n",
     "x/simulation.js: not the Keke judge (no destroyObjs to watch)"),
    ("", "no message"),
])
def test_a_judge_that_fails_is_reported_by_the_line_naming_its_error(stderr, said):
    from babasolver.judge import _node_error

    assert _node_error(stderr) == said


def test_the_judge_is_asked_in_batches_and_each_batch_is_reported(judge, entries, monkeypatch):
    monkeypatch.setattr(conformance, "COMPARE_BATCH", 3)
    rng = random.Random(13)
    plays = [(label, entry.level, conformance.random_actions(rng, 10)) for label, entry in entries[:7]]
    seen = []
    result = conformance.compare(judge, "core", plays, lambda what, so_far, n: seen.append((what, so_far.strings, n)),
                                 "shipped levels")
    assert seen == [("shipped levels", 3, 7), ("shipped levels", 6, 7), ("shipped levels", 7, 7)]
    assert result.strings == result.identical == 7 and result.turns > 0
