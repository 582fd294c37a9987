"""The Cython core against the pure-Python reference step, turn by turn, on
random small maps and random action sequences: everything a frame holds
(objects in creation order with facing and hidden flag, texts, rules, won,
dead, and whether the judge could play the turn)."""
from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from babasolver import tiles
from babasolver.game import Simulation
from babasolver.level import Level
from babasolver.reference import ReferenceSimulation

# Read by the terminal summary hook in conftest.py.
STEPS_COMPARED = [0]

NOUNS = "bkrfw"
NOUN_TEXTS = "BKRFW"
PROPERTIES = "2345678906"
# Mostly empty cells; objects and texts often enough to form and break rules.
PALETTE = "." * 10 + NOUNS * 2 + NOUN_TEXTS + "1" * 3 + PROPERTIES + "_"


@st.composite
def levels(draw):
    width = draw(st.integers(4, 7))
    height = draw(st.integers(3, 6))
    cells = draw(st.lists(st.sampled_from(PALETTE), min_size=width * height, max_size=width * height))
    # Seed a few rules in the first row so most maps start playable.
    # Sentences where creation order, stacking and hidden slots matter:
    # several YOU or MOVE nouns, transformations (and cycles), sinks and kills.
    starts = draw(st.lists(st.sampled_from(
        ["B12", "K17", "R15", "W16", "F13", "B1R", "R1F", "K12", "W14", "F10", "B19", "R18", "K1K",
         "R1B", "R12", "F17", "B10", "K14"]),
        min_size=1, max_size=3))
    for row, rule in enumerate(starts[:height]):
        for column, char in enumerate(rule[:width]):
            cells[row * width + column] = char
    grid = tuple(tiles.EMPTY if char == "." else tiles.BY_KEKE_CHAR[char] for char in cells)
    return Level(name="random", width=width, height=height, grid=grid)


def state_of(sim):
    return sim.objects(), sim.texts(), sim.rules(), sim.won, sim.dead, sim.illegal is not None


@settings(max_examples=600, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(level=levels(), actions=st.lists(st.integers(0, 4), min_size=10, max_size=40))
def test_core_matches_reference_step_by_step(level, actions):
    core = Simulation(level)
    reference = ReferenceSimulation(level)
    assert state_of(core) == state_of(reference)
    for turn, action in enumerate(actions, start=1):
        core.step(action)
        reference.step(action)
        STEPS_COMPARED[0] += 1
        if core.illegal is not None or reference.illegal is not None:
            # The judge cannot play this turn: both must say so, and stop.
            assert core.illegal is not None and reference.illegal is not None, f"turn {turn}"
            return
        assert state_of(core) == state_of(reference), f"turn {turn}, action {action}"
