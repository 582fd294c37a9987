"""A small pure-Python simulator of the judge's game, written straight from RULES.md.

It is meant to be read, not to be fast: the Cython core
(``babasolver.game.Simulation``) is checked against it turn by turn, and
both are checked against the judge itself (``babasolver.conformance``).

A position is what RULES.md says it is: the objects in creation order, the
texts in load order, each cell's object-layer slot (``slot``: cell -> the
thing in it; anything else on the cell is hidden), the nouns that ever had
objects, and the rule list of the last reading.
"""

from __future__ import annotations

from collections import Counter
from typing import Dict, List, Optional, Set, Tuple

from . import tiles as T
from .notation import DOWN, LEFT, RIGHT, UP, WAIT, Action

__all__ = ["ReferenceSimulation"]

STEP: Dict[int, Tuple[int, int]] = {UP: (0, -1), DOWN: (0, 1), LEFT: (-1, 0), RIGHT: (1, 0)}
OPPOSITE = {1: 2, 2: 1, 3: 4, 4: 3}       # facings: 1 up, 2 down, 3 left, 4 right

Cell = Tuple[int, int]


def _is_text(tile: int) -> bool:
    return bool((T.TEXT_MASK >> tile) & 1)


def _is_noun_text(tile: int) -> bool:
    return bool((T.NOUN_TEXT_MASK >> tile) & 1)


class Thing:
    """An object or a text. Identity matters: a list holds things, not cells."""

    __slots__ = ("tile", "x", "y", "facing")

    def __init__(self, tile: int, x: int, y: int) -> None:
        self.tile, self.x, self.y, self.facing = tile, x, y, 0

    @property
    def cell(self) -> Cell:
        return (self.x, self.y)

    @property
    def text(self) -> bool:
        return _is_text(self.tile)


class ReferenceSimulation:
    """One level being played by the judge's rules. Same interface as
    ``babasolver.game.Simulation``."""

    def __init__(self, level) -> None:
        self.width, self.height = level.width, level.height
        self.border: Set[Cell] = set()
        self._objects: List[Thing] = []
        self._texts: List[Thing] = []
        for index, tile in enumerate(level.grid):
            x, y = index % level.width, index // level.width
            if tile == T.BORDER:
                self.border.add((x, y))
            elif tile != T.EMPTY:
                (self._texts if _is_text(tile) else self._objects).append(Thing(tile, x, y))
        # At load every thing holds its own cell's slot.
        self.slot: Dict[Cell, Optional[Thing]] = {t.cell: t for t in self._objects + self._texts}
        self.ever: Set[int] = {o.tile for o in self._objects}
        self.rule_list: List[Tuple[int, int]] = []
        self.won = False
        self.illegal: Optional[str] = None
        self.turns = 0
        self._read_rules()

    # ------------------------------------------------------------- views

    def objects(self) -> List[Tuple[int, int, int, int, bool]]:
        return [(o.tile, o.x, o.y, o.facing, self.slot.get(o.cell) is not o) for o in self._objects]

    def texts(self) -> List[Tuple[int, int, int, bool]]:
        return [(t.tile, t.x, t.y, self.slot.get(t.cell) is not t) for t in self._texts]

    def rules(self) -> List[Tuple[int, int]]:
        return list(self.rule_list)

    @property
    def dead(self) -> bool:
        return not self._list(T.YOU_TEXT) and not self._list(T.MOVE_TEXT)

    # ------------------------------------------------------------- rules

    def _nouns(self, *properties: int) -> List[int]:
        """Object tiles with a rule `N is P` for P in `properties`, rule by rule."""
        return [T.NOUN_TARGET[left] for left, right in self.rule_list
                if right in properties and _is_noun_text(left)]

    def _list(self, *properties: int) -> List[Thing]:
        """The objects of those nouns, noun by noun, each in creation order."""
        return [o for noun in self._nouns(*properties) for o in self._objects if o.tile == noun]

    def _has(self, thing: Thing, prop: int) -> bool:
        return not thing.text and thing.tile in self._nouns(prop)

    def _read_rules(self) -> None:
        """Scan, transform, then properties and layers."""
        found: List[Tuple[int, int]] = []
        for connector in self._texts:
            if connector.tile != T.IS_TEXT:
                continue
            x, y = connector.cell
            for a, b in (((x - 1, y), (x + 1, y)), ((x, y - 1), (x, y + 1))):
                first, second = self.slot.get(a), self.slot.get(b)
                if first is not None and second is not None and first.text and second.text:
                    if (first.tile, second.tile) not in found:
                        found.append((first.tile, second.tile))
        self.rule_list = found
        protected = {T.NOUN_TARGET[l] for l, r in found if l == r and _is_noun_text(l)
                     and T.NOUN_TARGET[l] in self.ever}
        for left, right in found:
            if not (_is_noun_text(left) and _is_noun_text(right)):
                continue
            source, target = T.NOUN_TARGET[left], T.NOUN_TARGET[right]
            if source in protected:
                continue
            for old in [o for o in self._objects if o.tile == source]:
                new = Thing(target, old.x, old.y)
                self._objects.remove(old)
                self._objects.append(new)
                if self.slot.get(old.cell) is old:
                    self.slot[old.cell] = new
                self.ever.add(target)
        self._reset()

    def _reset(self) -> None:
        """Properties (MOVE objects facing none turn right) and relayering."""
        for o in self._list(T.MOVE_TEXT):
            if o.facing == 0:
                o.facing = 4
        layer = (T.YOU_TEXT, T.MOVE_TEXT, T.PUSH_TEXT, T.STOP_TEXT)
        for o in self._objects:
            self.slot[o.cell] = o if any(self._has(o, p) for p in layer) else None
        for t in self._texts:
            self.slot[t.cell] = t

    # -------------------------------------------------------------- a turn

    def step_keke(self, letters: str) -> None:
        for letter in letters:
            self.step(Action.from_letter(letter))

    def step(self, action: int) -> None:
        if self.illegal is not None:
            raise RuntimeError(f"the game cannot go on after an illegal turn: {self.illegal}")
        moved: Set[int] = set()             # ids of the things that moved this turn
        self.turns += 1
        if action != WAIT:
            for player in self._list(T.YOU_TEXT):
                self._move(player, action, moved)
            if not self._destroy():
                return
        for mover in self._list(T.MOVE_TEXT):
            if not self._move(mover, mover.facing - 1, moved):
                mover.facing = OPPOSITE[mover.facing]
        if not self._destroy():
            return
        for _ in range(sum(1 for t in self._texts if id(t) in moved)):
            self._read_rules()
        wins = {w.cell for w in self._list(T.WIN_TEXT)}
        self.won = any(y.cell in wins for y in self._list(T.YOU_TEXT))

    def _blocked(self, cell: Cell) -> bool:
        x, y = cell
        return cell in self.border or not (0 <= x < self.width and 0 <= y < self.height)

    def _move(self, thing: Thing, direction: int, moved: Set[int]) -> bool:
        if id(thing) in moved:
            return False
        mobile = (T.YOU_TEXT, T.MOVE_TEXT, T.PUSH_TEXT)
        if not thing.text and not any(self._has(thing, p) for p in mobile):
            return False
        dx, dy = STEP[direction]
        target = (thing.x + dx, thing.y + dy)
        if self._blocked(target):
            return False
        other = self.slot.get(target)
        if other is not None:
            if other.text:
                if not self._move(other, direction, moved):
                    return False
            elif self._has(other, T.STOP_TEXT):
                return False
            elif self._has(other, T.PUSH_TEXT):
                if not self._move(other, direction, moved):
                    return False
            elif self._has(other, T.YOU_TEXT):
                if self._has(thing, T.YOU_TEXT):
                    return False
            elif self._has(other, T.MOVE_TEXT):
                return False
        self.slot[thing.cell] = None
        thing.x, thing.y = target
        self.slot[target] = thing
        if not thing.text:
            thing.facing = direction + 1
        moved.add(id(thing))
        return True

    def _destroy(self) -> bool:
        """The three checks; False (and `illegal` set) if the judge cannot play them."""
        sinks = self._list(T.SINK_TEXT)     # the SINK check keeps the list the step began with
        checks = (
            ("KILL", lambda: [(y, k) for y in self._list(T.YOU_TEXT)
                              for k in self._list(T.KILL_TEXT, T.SINK_TEXT) if y.cell == k.cell]),
            ("SINK", lambda: [(x, s) for x in self._objects for s in sinks
                              if x is not s and x.cell == s.cell]),
            ("HOT/MELT", lambda: [(h, m) for h in self._list(T.HOT_TEXT)
                                  for m in self._list(T.MELT_TEXT) if h.cell == m.cell]),
        )
        for name, find in checks:
            pairs = find()
            if not pairs:
                continue
            named = Counter(id(t) for pair in pairs for t in pair)
            gone = [t for pair in pairs for t in pair if t not in self._objects]
            twice = [t for pair in pairs for t in pair if named[id(t)] > 1]
            if gone or twice:
                bad = (gone or twice)[0]
                what = "pairs" if gone else "names"
                self.illegal = (f"the {name} check {what} {T.NAMES[bad.tile]} at ({bad.x}, {bad.y})"
                                + (", which the KILL check already destroyed" if gone else " more than once"))
                return False
            for a, b in pairs:
                self._objects.remove(a)
                self._objects.remove(b)
                self.slot[a.cell] = None
            self._reset()
        return True
