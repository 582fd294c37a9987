"""A replay, frame by frame, made as it is read.

A solution may hold a million moves (notation.MAX_MOVES), and a frame
holds every object and text of its position: kept all at once, the
frames of a long replay exhaust memory. `FrameStream` plays the solution
once without frames to learn how it ends and how many frames it has, then
plays it again for each reader, one frame at a time, so `show` (terminal,
JSON, PNG, GIF, HTML) and the bench's replay pages never hold more than
the frame they are drawing.
"""
from __future__ import annotations

from itertools import islice
from typing import Any, Iterator, Optional, Sequence

from ..game import Frame, Replay, Simulation, replay
from ..level import Level

__all__ = ["FrameStream"]


def _frame(sim: Any, turn: int, action: Optional[int]) -> Frame:
    return Frame(turn, action, sim.objects(), sim.texts(), sim.rules(), bool(sim.won), bool(sim.dead), sim.illegal)


class FrameStream:
    """The frames of `actions` played on `level` up to the first win or
    the first turn the judge cannot play: the level as loaded (turn 0),
    then one per turn played. `result` is how the replay ends; `len()` is
    the number of frames. Each iteration plays the replay afresh."""

    def __init__(self, level: Level, actions: Sequence[int]) -> None:
        self.level = level
        self.actions = actions
        self.result: Replay = replay(level, actions)

    def __len__(self) -> int:
        return self.result.played + 1

    def __iter__(self) -> Iterator[Frame]:
        sim = Simulation(self.level)
        yield _frame(sim, 0, None)
        for turn, action in enumerate(islice(self.actions, self.result.played), start=1):
            sim.step(action)
            yield _frame(sim, turn, action)

    def frame(self, step: int) -> Frame:
        """The frame after `step` turns (0 <= step < len(self))."""
        if not 0 <= step < len(self):
            raise IndexError(step)
        sim = Simulation(self.level)
        action = None
        for action in islice(self.actions, step):
            sim.step(action)
        return _frame(sim, step, action)
