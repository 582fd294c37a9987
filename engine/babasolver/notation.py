"""Writing and reading move sequences.

Actions are ints: 0 up, 1 down, 2 left, 3 right, 4 wait.

Two notations are written:

* Keke letters, one per turn: ``u d l r s`` (``s`` = "space", wait), e.g.
  ``rrrrruuld`` (:func:`to_keke`). This is the notation of the Keke level
  sets and the form the reference simulator accepts.
* Arrow runs, the seed's readable notation: equal consecutive actions merged
  into ``<count><arrow>``, separated by spaces, e.g. ``6→ 3← 1↓ 5→ 1↑``;
  waiting is written with the letter ``s``, e.g. ``2s`` (:func:`to_arrows`).

:func:`parse_solution` reads both, and mixtures of them. The text is a
sequence of moves, each an optional count (decimal, at least 1) directly
followed by one direction symbol:

========  =====================================================
action    symbols accepted
========  =====================================================
up        ``u`` ``U`` ``↑`` ``^``
down      ``d`` ``D`` ``↓`` ``v`` ``V``
left      ``l`` ``L`` ``←`` ``<``
right     ``r`` ``R`` ``→`` ``>``
wait      ``s`` ``S``
========  =====================================================

Whitespace and commas between moves are ignored. So ``rrr``, ``RRR``,
``3r``, ``3→`` and ``> > >`` all mean three steps right. A solution holds
at most :data:`MAX_MOVES` moves, one count at most :data:`MAX_RUN`.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Iterable, List, Tuple

from .errors import BabaError

__all__ = [
    "Action", "Facing", "UP", "DOWN", "LEFT", "RIGHT", "WAIT", "ACTIONS",
    "KEKE_LETTERS", "ARROWS", "WORDS", "MAX_RUN", "MAX_MOVES",
    "to_keke", "to_arrows", "runs", "parse_solution",
]

#: Keke letter per action id.
KEKE_LETTERS = "udlrs"
#: Arrow-run symbol per action id (wait is the letter ``s``).
ARROWS = ("↑", "↓", "←", "→", "s")
#: Word per action id (as in ``show --json``).
WORDS = ("up", "down", "left", "right", "wait")


class Action(IntEnum):
    """A turn's action. Its value is the action id the core takes; facing
    ids are action id + 1 (0 is facing none)."""

    UP = 0
    DOWN = 1
    LEFT = 2
    RIGHT = 3
    WAIT = 4

    @property
    def letter(self) -> str:
        return KEKE_LETTERS[self]

    @property
    def arrow(self) -> str:
        return ARROWS[self]

    @property
    def word(self) -> str:
        return WORDS[self]

    @classmethod
    def from_letter(cls, letter: str) -> "Action":
        """u d l r s, either case."""
        index = KEKE_LETTERS.find(letter.lower()) if len(letter) == 1 else -1
        if index < 0:
            raise ValueError(f"not a Keke action letter: {letter!r}")
        return cls(index)


class Facing(IntEnum):
    """Where an object faces: an object that has moved faces the way of its
    last move (facing id = action id + 1); one that never moved faces none."""

    NONE = 0
    UP = 1
    DOWN = 2
    LEFT = 3
    RIGHT = 4

    @property
    def word(self) -> str:
        return "none" if self is Facing.NONE else WORDS[self - 1]

    @classmethod
    def from_word(cls, word: str) -> "Facing":
        for facing in cls:
            if facing.word == word:
                return facing
        raise ValueError(f"not a facing: {word!r}")


UP, DOWN, LEFT, RIGHT, WAIT = Action
ACTIONS = tuple(Action)

# The longest run one count may ask for; guards against "999999999999r".
MAX_RUN = 1_000_000
#: The most moves a solution may have: "1000000r 1000000l ..." is refused
#: when it passes this, before its moves are made, so that a short text
#: never becomes a list too long to hold or replay.
MAX_MOVES = 1_000_000

_SYMBOLS = {
    "u": UP, "U": UP, "↑": UP, "^": UP,
    "d": DOWN, "D": DOWN, "↓": DOWN, "v": DOWN, "V": DOWN,
    "l": LEFT, "L": LEFT, "←": LEFT, "<": LEFT,
    "r": RIGHT, "R": RIGHT, "→": RIGHT, ">": RIGHT,
    "s": WAIT, "S": WAIT,
}
_DIGITS = "0123456789"
_SEPARATORS = ","


def _check(actions: Iterable[int]) -> List[int]:
    out = list(actions)
    for i, a in enumerate(out):
        if isinstance(a, bool) or a not in ACTIONS:
            raise ValueError(f"action {a!r} at index {i} is not one of 0 up, 1 down, 2 left, 3 right, 4 wait")
    return out


def to_keke(actions: Iterable[int]) -> str:
    """Keke letters, one per action: ``[3, 3, 0, 4]`` -> ``"rrus"``."""
    return "".join(KEKE_LETTERS[a] for a in _check(actions))


def runs(actions: Iterable[int]) -> List[Tuple[int, int]]:
    """Runs of equal consecutive actions as ``(action, count)`` pairs."""
    out: List[List[int]] = []
    for a in _check(actions):
        if out and out[-1][0] == a:
            out[-1][1] += 1
        else:
            out.append([a, 1])
    return [(a, n) for a, n in out]


def to_arrows(actions: Iterable[int]) -> str:
    """Arrow runs: ``[3]*6 + [2]*3 + [4]*2`` -> ``"6→ 3← 2s"``; ``[]`` -> ``""``."""
    return " ".join(f"{n}{ARROWS[a]}" for a, n in runs(actions))


def _describe(ch: str) -> str:
    if ch.isprintable() and not ch.isspace():
        return repr(ch)
    return f"{ch!r} (U+{ord(ch):04X})"


def parse_solution(text: str) -> List[Action]:
    """Actions from Keke letters or arrow runs (see the module docs).

    Raises :class:`~babasolver.errors.BabaError` naming the first bad
    character and its 1-based position, or the count that takes the
    solution past MAX_MOVES moves. ``""`` gives ``[]``.
    """
    actions: List[Action] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch.isspace() or ch in _SEPARATORS:
            i += 1
            continue
        count = 1
        start = i
        if ch in _DIGITS:
            while i < n and text[i] in _DIGITS:
                i += 1
            digits = text[start:i]
            shown = digits if len(digits) <= 20 else f"{digits[:17]}... ({len(digits)} digits)"
            if i == n:
                raise BabaError(
                    f"bad solution: count {shown} at position {start + 1} is not followed by a direction"
                )
            # Python refuses to convert more than 4,300 digits; no count needs more than a few.
            significant = digits.lstrip("0")
            count = int(significant or "0") if len(significant) <= len(str(MAX_RUN)) else MAX_RUN + 1
            if count < 1:
                raise BabaError(f"bad solution: count {shown} at position {start + 1} must be at least 1")
            if count > MAX_RUN:
                raise BabaError(
                    f"bad solution: count {shown} at position {start + 1} is larger than {MAX_RUN}"
                )
            ch = text[i]
            if ch not in _SYMBOLS:
                raise BabaError(
                    f"bad solution: character {_describe(ch)} at position {i + 1}:"
                    f" expected a direction (u d l r s or arrows) after the count {shown}"
                )
        action = _SYMBOLS.get(ch)
        if action is None:
            raise BabaError(
                f"bad solution: character {_describe(ch)} at position {i + 1}:"
                " expected u, d, l, r, s (any case), an arrow ↑ ↓ ← → ^ v < > or a count"
            )
        if len(actions) + count > MAX_MOVES:
            raise BabaError(f"bad solution: more than {MAX_MOVES:,} moves (the most a solution may have)"
                            f" at position {start + 1}")
        actions.extend([Action(action)] * count)
        i += 1
    return actions

