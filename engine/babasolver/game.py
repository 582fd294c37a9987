"""Play a level turn by turn on the Cython core, and replay solutions.

A position is what the judge sees: objects in creation order, texts in
load order, which thing holds each cell's object-layer slot (the others
there are hidden), and the rule list. A turn the judge cannot play
(RULES.md, "Turns the judge cannot play") ends the game with `illegal` set.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Iterable, List, Optional, Tuple

from . import tiles
from ._core import CoreSimulation
from .level import Level
from .rulesets import DEFAULT_RULES, core_level, rule_set
from .notation import Action, Facing

ObjectView = Tuple[int, int, int, int, bool]     # tile, x, y, facing, hidden
TextView = Tuple[int, int, int, bool]            # tile, x, y, hidden


def rule_text(left: int, right: int) -> str:
    """A rule as words, e.g. "baba is you"."""
    return f"{tiles.WORDS[left]} is {tiles.WORDS[right]}"


class Simulation:
    """A level in play under its rule set (``level.rules``). Construction
    reads the rules once, with transformations, as the judge does at load;
    the win check runs only at the end of a turn."""

    def __init__(self, level: Level) -> None:
        self.level = level
        self._core = CoreSimulation(core_level(level))
        self.turns = 0

    def step(self, action: int) -> None:
        """Play one turn (0 up, 1 down, 2 left, 3 right, 4 wait). Raises
        RuntimeError after a turn the judge cannot play."""
        self._core.step(action)
        self.turns += 1

    def step_keke(self, letters: str) -> None:
        for letter in letters:
            self.step(Action.from_letter(letter))

    def objects(self) -> List[ObjectView]:
        """(tile, x, y, facing, hidden) of every object, in creation order."""
        return self._core.objects()

    def texts(self) -> List[TextView]:
        """(tile, x, y, hidden) of every text, in load order."""
        return self._core.texts()

    def rules(self) -> List[Tuple[int, int]]:
        """The rule list, in order, as (left text tile, right text tile)."""
        return self._core.rules()

    @property
    def won(self) -> bool:
        return self._core.won

    @property
    def dead(self) -> bool:
        """No YOU and no MOVE object is left."""
        return self._core.dead

    @property
    def illegal(self) -> Optional[str]:
        """Why the last turn is one the judge cannot play, or None."""
        return self._core.illegal

    def pack(self) -> bytes:
        return self._core.pack()

    def unpack(self, record: bytes) -> None:
        """Make a packed state the position: bytes `pack` gives, and no
        others (ValueError, and the position stays as it was)."""
        self._core.unpack(record)


@dataclass
class Frame:
    """The position after `turn` actions (turn 0: the level as loaded)."""

    turn: int
    action: Optional[int]
    objects: List[ObjectView]
    texts: List[TextView]
    rules: List[Tuple[int, int]]
    won: bool
    dead: bool
    illegal: Optional[str]

    def record(self) -> Dict[str, Any]:
        """The frame in the judge's terms, as `baba show --json` prints it."""
        return {
            "step": self.turn,
            "action": None if self.action is None else Action(self.action).word,
            "objects": [
                {"tile": tiles.NAMES[t], "x": x, "y": y, "facing": Facing(f).word, "hidden": h}
                for t, x, y, f, h in self.objects
            ],
            "texts": [{"tile": tiles.NAMES[t], "x": x, "y": y, "hidden": h} for t, x, y, h in self.texts],
            "rules": [rule_text(left, right) for left, right in self.rules],
            "won": self.won,
            "dead": self.dead,
            "illegal": self.illegal,
        }


def _frame(sim: Any, turn: int, action: Optional[int]) -> Frame:
    return Frame(turn, action, sim.objects(), sim.texts(), sim.rules(),
                 bool(sim.won), bool(sim.dead), sim.illegal)


@dataclass
class Replay:
    """How a sequence of actions plays out. It stops at the first win or at
    the first turn the judge cannot play."""

    played: int = 0                      # turns played
    won_at: Optional[int] = None         # the 1-based turn that won
    illegal_at: Optional[int] = None     # the 1-based turn the judge cannot play
    illegal: Optional[str] = None        # why
    dead: bool = False                   # no YOU and no MOVE object at the end
    frames: List[Frame] = field(default_factory=list)   # every frame, with keep_frames
    last: Optional[Frame] = None         # the position where the replay stopped
    rules: str = DEFAULT_RULES           # the level's rule set: who cannot play a turn

    @property
    def won(self) -> bool:
        return self.won_at is not None

    def summary(self, total: int) -> str:
        """One line: how the replay of `total` actions ended."""
        end = ending(self.won_at, self.illegal_at, total)
        if self.illegal_at is not None:
            return f"{end}: {rule_set(self.rules).refuser} cannot play it ({self.illegal})"
        if end is not None:
            return end
        return f"does not win ({self.played} steps played; dead: {'yes' if self.dead else 'no'})"


def ending(won_at: Optional[int], illegal_at: Optional[int], total: Optional[int] = None) -> Optional[str]:
    """How a play ended, in the words every output uses: "breaks at step k"
    (the first turn the judge cannot play) or "wins at step k", and " of
    total" with `total`; None when it did neither."""
    of = "" if total is None else f" of {total}"
    if illegal_at is not None:
        return f"breaks at step {illegal_at}{of}"
    if won_at is not None:
        return f"wins at step {won_at}{of}"
    return None


def replay(level: Level, actions: Iterable[int], keep_frames: bool = False,
           engine: Callable[[Level], Any] = Simulation) -> Replay:
    """Play `actions` on `level` until they win or break. `engine` makes the
    simulation (the pure-Python `reference.ReferenceSimulation` plays the
    same game)."""
    sim = engine(level)
    result = Replay(rules=level.rules)
    if keep_frames:
        result.frames.append(_frame(sim, 0, None))
    for turn, action in enumerate(actions, start=1):
        sim.step(action)
        result.played = turn
        if keep_frames:
            result.frames.append(_frame(sim, turn, action))
        if sim.illegal is not None:
            result.illegal_at, result.illegal = turn, sim.illegal
            break
        if sim.won:
            result.won_at = turn
            break
    result.dead = bool(sim.dead)
    result.last = result.frames[-1] if result.frames else _frame(sim, result.played, None)
    return result
