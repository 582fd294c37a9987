"""Play a level turn by turn on the Cython core, and look at the result."""
from __future__ import annotations

from typing import Iterable

from . import tiles
from ._core import CoreSimulation
from .level import Level

ACTION_BY_LETTER = {"u": 0, "d": 1, "l": 2, "r": 3, "s": 4}
FACING_NAMES = ("none", "up", "down", "left", "right")


def rule_text(left: int, right: int) -> str:
    """A rule as words, e.g. "baba is you"."""
    return f"{tiles.WORDS[left]} is {tiles.WORDS[right]}"


class Simulation:
    """A level in play. Construction reads the rules once, with
    transformations, as the reference simulator does at load."""

    def __init__(self, level: Level) -> None:
        self.level = level
        self._core = CoreSimulation(level.width, level.height, level.grid)
        self.turns = 0

    def step(self, action: int) -> None:
        self._core.step(action)
        self.turns += 1

    def step_keke(self, letters: str) -> None:
        for letter in letters:
            self.step(ACTION_BY_LETTER[letter.lower()])

    def objects(self) -> list[tuple[int, int, int, int]]:
        return self._core.objects()

    def rules(self) -> list[tuple[int, int]]:
        return self._core.rules()

    def rule_texts(self) -> list[str]:
        return [rule_text(left, right) for left, right in self._core.rules()]

    @property
    def won(self) -> bool:
        return self._core.won

    @property
    def dead(self) -> bool:
        return self._core.dead

    def pack(self) -> bytes:
        return self._core.pack()

    def unpack(self, record: bytes) -> None:
        self._core.unpack(record)


def replay(level: Level, actions: Iterable[int]) -> int | None:
    """The 1-based turn at which `actions` first win `level`, or None."""
    simulation = Simulation(level)
    for turn, action in enumerate(actions, start=1):
        simulation.step(action)
        if simulation.won:
            return turn
    return None
