"""A small pure-Python simulator of the commercial game's rules, written
straight from RULES-baba.md (``--rules baba``).

It is meant to be read, not to be fast, and it shares no code with the
Cython core or with the judge's reference (``babasolver.reference``): it is
the yardstick a faster engine of these rules is checked against. Section
numbers (§) below are RULES-baba.md's.

A position is every object in creation order with its tile, cell and
facing, and every text still in play in load order with its tile and cell.
Cells hold any number of things (§1.2), so nothing is ever hidden. The rules
are not part of it: they are re-read from the texts at the end of every turn
(§3 steps 5, 7 and 10), so they always follow from the texts.

Where RULES-baba.md leaves a choice open, this engine decides as follows:

* U3: at load the rules are read, and nothing else happens (no
  transformation, destruction or win check before the first input).
* U4: two identical ``X is Y`` rules make two Y objects (the code's reading).
* U5 and §2's rule order: rules are ordered by their first text's load
  order, a row's rule before a column's, then by the other texts' load
  order; movers are taken rule by rule, each rule's objects in creation order.
  (The game's parser puts a chain's second rule, `B is C` of `A is B is C`,
  after all others; only §4.9's corners and the order of transformed objects
  could show the difference.)
* U6: every further step of an object under several MOVE rules starts at
  pass 10, as in the 2019 scripts (§4.8).
* U8: an object the level gives no facing faces right.
* Dead (§7.3): there is no YOU object and, since with none the input no
  longer matters, waiting turn after turn never brings one back (this is
  played out until a position repeats).
"""

from __future__ import annotations

import struct
from collections import Counter
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Set, Tuple

from . import tiles as T
from .level import Level
from .notation import DOWN, LEFT, RIGHT, UP, WAIT, Action

__all__ = ["BabaReferenceSimulation", "WORDS", "PROPERTIES"]

# The properties of these rules, by the generated tile names.
YOU, WIN, STOP, PUSH, MOVE = T.YOU_TEXT, T.WIN_TEXT, T.STOP_TEXT, T.PUSH_TEXT, T.MOVE_TEXT
DEFEAT, SINK, HOT, MELT = T.KILL_TEXT, T.SINK_TEXT, T.HOT_TEXT, T.MELT_TEXT    # DEFEAT is the Keke "kill"

#: The property texts this rule set gives a meaning. A rule naming any other
#: property text of tiles.json is read (rules() lists it) but does nothing.
PROPERTIES: Tuple[int, ...] = (YOU, WIN, STOP, PUSH, MOVE, DEFEAT, SINK, HOT, MELT)
#: The same, as the words tiles.json gives them.
WORDS: Tuple[str, ...] = tuple(T.PROPERTY_WORDS[p] for p in PROPERTIES)

Cell = Tuple[int, int]

# Facing ids are action ids + 1 (0 none, 1 up, 2 down, 3 left, 4 right).
STEP: Dict[int, Tuple[int, int]] = {UP: (0, -1), DOWN: (0, 1), LEFT: (-1, 0), RIGHT: (1, 0)}
OPPOSITE = {1: 2, 2: 1, 3: 4, 4: 3}
FACING_RIGHT = RIGHT + 1

# Verdicts on the cell a thing tries to enter (§4.2).
FREE, PUSHING, BLOCKED = 0, 1, 2
# A further step of an object under several MOVE rules starts at this pass (§4.8).
LATE_PASS = 10


def _is_text(tile: int) -> bool:
    return bool(T.IS_TEXT_TILE[tile])


def _is_noun(tile: int) -> bool:
    return bool(T.IS_NOUN_TEXT[tile])


class Thing:
    """An object or a text. Identity matters: cells hold things, not tiles."""

    __slots__ = ("tile", "x", "y", "facing")

    def __init__(self, tile: int, x: int, y: int, facing: int) -> None:
        self.tile, self.x, self.y, self.facing = tile, x, y, facing

    @property
    def cell(self) -> Cell:
        return (self.x, self.y)

    @property
    def text(self) -> bool:
        return _is_text(self.tile)


@dataclass(eq=False)
class Mover:
    """One entry of a movement phase's list (§4.3): `state` is the pass it
    waits for, `steps` how many steps it still has to make."""

    thing: Thing
    reason: int                     # YOU or MOVE: which phase listed it
    steps: int = 1
    state: int = 0


@dataclass(eq=False)
class Pending:
    """A decided move: the thing's absolute destination and facing (§4.1)."""

    thing: Thing
    x: int
    y: int
    facing: int


@dataclass(eq=False)
class Phase:
    """One movement phase's bookkeeping: the moves visible to judgements
    (`pending`, from earlier passes) and those decided in the current pass."""

    pending: List[Pending] = field(default_factory=list)
    this_pass: List[Pending] = field(default_factory=list)


class BabaReferenceSimulation:
    """One level played by the commercial game's rules. Same interface as
    ``babasolver.game.Simulation``."""

    def __init__(self, level: Level) -> None:
        self.width, self.height = level.width, level.height
        self.border: Set[Cell] = set()
        self._objects: List[Thing] = []
        self._texts: List[Thing] = []
        self._at: Optional[Dict[Cell, List[Thing]]] = None     # cell index, rebuilt after changes
        self._load(level)
        self.won = False
        self.illegal: Optional[str] = None      # the game plays every turn
        self.turns = 0
        self._dead: Optional[bool] = None
        self._rules: List[Tuple[int, int]] = []
        self._counts: Counter[Tuple[int, int]] = Counter()     # (object tile, property) -> rules
        self._rules_read_from: Optional[Tuple[Tuple[int, int, int], ...]] = None
        self._read_rules()                       # U3: only the rules at load

    def _load(self, level: Level) -> None:
        facings = level.facings
        for index, tile in enumerate(level.grid):
            x, y = index % level.width, index // level.width
            if tile == T.BORDER:
                self.border.add((x, y))
            elif _is_text(tile):
                self._texts.append(Thing(tile, x, y, 0))    # a text's facing is never read
            elif tile != T.EMPTY:
                facing = (facings[index] if facings else 0) or FACING_RIGHT     # U8
                self._objects.append(Thing(tile, x, y, facing))

    # ------------------------------------------------------------- views

    def objects(self) -> List[Tuple[int, int, int, int, bool]]:
        """(tile, x, y, facing, hidden) of every object, in creation order."""
        return [(o.tile, o.x, o.y, o.facing, False) for o in self._objects]

    def texts(self) -> List[Tuple[int, int, int, bool]]:
        """(tile, x, y, hidden) of every text still in play, in load order."""
        return [(t.tile, t.x, t.y, False) for t in self._texts]

    def rules(self) -> List[Tuple[int, int]]:
        return list(self._rules)

    @property
    def dead(self) -> bool:
        if self._dead is None:
            self._dead = self._never_you_again()
        return self._dead

    def _never_you_again(self) -> bool:
        """With no YOU object the input no longer matters (§3 step 1 moves
        nobody), so the future is the waiting one: play it until a YOU
        object appears or a position repeats."""
        if self._all_with(YOU):
            return False
        probe = self.copy()
        seen = {probe.pack()}
        while True:
            probe._turn(WAIT)
            if probe._all_with(YOU):
                return False
            record = probe.pack()
            if record in seen:
                return True
            seen.add(record)

    def copy(self) -> "BabaReferenceSimulation":
        other = BabaReferenceSimulation.__new__(BabaReferenceSimulation)
        other.width, other.height, other.border = self.width, self.height, self.border
        other.turns = self.turns
        other.unpack(self.pack())
        other.won = self.won
        return other

    # ------------------------------------------------------ packed positions

    def pack(self) -> bytes:
        """The position as bytes: the object count, then per object tile, x,
        y, facing in creation order, then per text tile, x, y in load order.
        Texts have no facing here: nothing in these rules reads it."""
        fields = [len(self._objects)]
        for o in self._objects:
            fields += [o.tile, o.x, o.y, o.facing]
        for t in self._texts:
            fields += [t.tile, t.x, t.y]
        return struct.pack(f"<{len(fields)}H", *fields)

    def unpack(self, record: bytes) -> None:
        """Replace the position by a packed one (the rules are re-read)."""
        if len(record) % 2 or not record:
            raise ValueError("not a packed state of this level")
        fields = struct.unpack(f"<{len(record) // 2}H", record)
        count, rest = fields[0], fields[1:]
        if len(rest) < 4 * count or (len(rest) - 4 * count) % 3:
            raise ValueError("not a packed state of this level")
        self._objects = [Thing(rest[i], rest[i + 1], rest[i + 2], rest[i + 3]) for i in range(0, 4 * count, 4)]
        self._texts = [Thing(rest[i], rest[i + 1], rest[i + 2], 0) for i in range(4 * count, len(rest), 3)]
        self._at, self._rules_read_from = None, None
        self.won, self.illegal, self._dead = False, None, None
        self._read_rules()

    # ------------------------------------------------------------- rules (§2)

    def _read_rules(self) -> None:
        """Every `noun is noun|property` along a row or a column, with one
        text per cell in every combination (§2.2, §2.3), duplicates kept
        (§2.4). Order: the first text's load order, a row before a column.
        Rules follow from the texts alone, so unmoved texts are not re-read."""
        key = tuple((t.tile, t.x, t.y) for t in self._texts)
        if key == self._rules_read_from:
            return
        self._rules_read_from = key
        texts_at: Dict[Cell, List[Thing]] = {}
        for t in self._texts:
            texts_at.setdefault(t.cell, []).append(t)
        found: List[Tuple[int, int]] = []
        for first in self._texts:
            if not _is_noun(first.tile):
                continue
            for dx, dy in ((1, 0), (0, 1)):
                middles = texts_at.get((first.x + dx, first.y + dy), [])
                lasts = texts_at.get((first.x + 2 * dx, first.y + 2 * dy), [])
                for middle in middles:
                    if middle.tile != T.IS_TEXT:
                        continue
                    found += [(first.tile, last.tile) for last in lasts
                              if _is_noun(last.tile) or T.IS_PROPERTY_TEXT[last.tile]]
        self._rules = found
        self._counts = Counter((T.NOUN_TARGET[left], right) for left, right in found if _is_noun(left))

    def _count(self, thing: Thing, prop: int) -> int:
        """How many rules give `thing` the property. Texts are PUSH by the
        built-in TEXT IS PUSH and nothing else (§1.4)."""
        if thing.text:
            return int(prop == PUSH)
        return self._counts[(thing.tile, prop)]

    def _has(self, thing: Thing, prop: int) -> bool:
        return self._count(thing, prop) > 0

    def _all_with(self, prop: int) -> List[Thing]:
        """Objects with the property, rule by rule, each rule's objects in
        creation order, each object once (§4)."""
        nouns: List[int] = []
        for left, right in self._rules:
            if right == prop and _is_noun(left) and T.NOUN_TARGET[left] not in nouns:
                nouns.append(T.NOUN_TARGET[left])
        return [o for noun in nouns for o in self._objects if o.tile == noun]

    # ------------------------------------------------------------ a turn (§3)

    def step_keke(self, letters: str) -> None:
        for letter in letters:
            self.step(Action.from_letter(letter))

    def step(self, action: int) -> None:
        """Play one turn (0 up, 1 down, 2 left, 3 right, 4 wait)."""
        if action not in (UP, DOWN, LEFT, RIGHT, WAIT):
            raise ValueError(f"action must be 0..4, not {action!r}")
        self._turn(action)
        self.turns += 1

    def _turn(self, action: int) -> None:
        self._dead = None
        if action != WAIT:
            self._you_phase(action)
        self._move_phase()
        self._read_rules()                  # step 5: the turn's rules from here on
        self._transform()                   # step 6 (step 7 changes nothing: §5.4)
        self._destroy()                     # step 8
        self.won = self._win()              # step 9
        self._read_rules()                  # step 10: texts a SINK took are gone

    def _you_phase(self, action: int) -> None:
        """Every YOU object turns to the input, blocked or not, then all try
        to step that way together (§3 step 1)."""
        players = self._all_with(YOU)
        for player in players:
            player.facing = action + 1
        self._run([Mover(p, YOU) for p in players])

    def _move_phase(self) -> None:
        """Every MOVE object steps along its facing, once per rule (§3 step 3)."""
        self._run([Mover(o, MOVE, steps=self._count(o, MOVE)) for o in self._all_with(MOVE)])

    # -------------------------------------------------- movement phases (§4)

    def _run(self, movers: List[Mover]) -> None:
        """One movement phase. Movers with steps left after it go round
        again, from pass 10, after the moves so far are applied (§4.8)."""
        while movers:
            phase = Phase()
            again = self._passes(movers, phase)
            for move in phase.pending:      # absolute destinations: last write wins
                move.thing.x, move.thing.y, move.thing.facing = move.x, move.y, move.facing
            if phase.pending:
                self._at = None
            movers = again

    def _passes(self, movers: List[Mover], phase: Phase) -> List[Mover]:
        """Passes over the list until every mover has moved or given up
        (§4.3); returns the movers with steps left, in the order they finished."""
        active, again = list(movers), []
        while active:
            current = min(m.state for m in active)
            for mover in list(active):
                if mover.state != current:  # includes those a reset sent back this pass
                    continue
                if self._judge(mover, current, phase, active):
                    active.remove(mover)
                    if mover.steps > 1:
                        again.append(Mover(mover.thing, mover.reason, mover.steps - 1, LATE_PASS))
            phase.pending += phase.this_pass
            phase.this_pass = []
        return again

    def _judge(self, mover: Mover, current: int, phase: Phase, active: List[Mover]) -> bool:
        """One mover in one pass: True when it has moved or given up."""
        thing = mover.thing
        if current == 3 and mover.reason == MOVE:
            thing.facing = OPPOSITE[thing.facing]      # turns at once, for good (§4.5)
        direction = thing.facing - 1
        verdict, pushables = self._look(thing.cell, direction, phase)
        if verdict == PUSHING:
            if current < 1:
                mover.state = 1
                return False
            if all(self._can_move(q, direction, phase) for q in pushables):
                for q in pushables:
                    self._push(q, direction, phase)
                verdict = FREE
            else:
                verdict = BLOCKED
        if verdict == FREE:
            self._record(thing, direction, phase)
            if current > 0:
                self._reset(active, mover)
            return True
        return self._blocked(mover, current)

    @staticmethod
    def _blocked(mover: Mover, current: int) -> bool:
        """Wait for the next chance, or give up (§4.3)."""
        if current < 2:
            mover.state = 2
        elif current < 3:
            mover.state = 3
        elif mover.reason == MOVE and current < 4:
            mover.state = 4
        else:
            return True
        return False

    @staticmethod
    def _reset(active: List[Mover], succeeded: Mover) -> None:
        """A success after pass 0 sends everyone waiting for pass 2, 3 or 4
        (or a late step) back to pass 0 (§4.3 reset rule)."""
        for other in active:
            if other is not succeeded and other.state >= 2:
                other.state = 0

    def _record(self, thing: Thing, direction: int, phase: Phase) -> None:
        dx, dy = STEP[direction]
        phase.this_pass.append(Pending(thing, thing.x + dx, thing.y + dy, direction + 1))

    def _things_at(self, cell: Cell) -> List[Thing]:
        """The things on a cell, objects first, each kind in its order."""
        if self._at is None:
            self._at = {}
            for thing in self._objects + self._texts:
                self._at.setdefault(thing.cell, []).append(thing)
        return self._at.get(cell, [])

    def _blocked_cell(self, cell: Cell) -> bool:
        x, y = cell
        return cell in self.border or not (0 <= x < self.width and 0 <= y < self.height)

    def _look(self, origin: Cell, direction: int, phase: Phase) -> Tuple[int, List[Thing]]:
        """What stands in the way of a step from `origin` (§4.2): the verdict
        and, when it is a push, the things to push."""
        dx, dy = STEP[direction]
        target = (origin[0] + dx, origin[1] + dy)
        if self._blocked_cell(target):
            return BLOCKED, []
        beyond = (target[0] + dx, target[1] + dy)
        solid, pushables = False, []
        for other in self._things_at(target):
            if self._leaving(other, (origin, beyond), phase):
                continue
            if self._has(other, PUSH):
                pushables.append(other)         # PUSH wins over STOP
            elif self._has(other, STOP):
                solid = True
        if solid:
            return BLOCKED, []
        return (PUSHING, pushables) if pushables else (FREE, [])

    @staticmethod
    def _leaving(thing: Thing, along: Tuple[Cell, Cell], phase: Phase) -> bool:
        """A thing already bound for the mover's cell or the cell beyond is
        out of the way; one leaving sideways is not (the §4.2 quirk)."""
        return any(m.thing is thing and (m.x, m.y) in along for m in phase.pending)

    def _can_move(self, thing: Thing, direction: int, phase: Phase) -> bool:
        """Whether a pushed thing can go, chain included (§4.4)."""
        verdict, pushables = self._look(thing.cell, direction, phase)
        if verdict == PUSHING:
            return all(self._can_move(q, direction, phase) for q in pushables)
        return verdict == FREE

    def _push(self, thing: Thing, direction: int, phase: Phase) -> None:
        """Record the push of a thing and of what it pushes in turn; each
        turns to face the push (§4.4)."""
        _, pushables = self._look(thing.cell, direction, phase)
        for q in pushables:
            self._push(q, direction, phase)
        self._record(thing, direction, phase)

    # ------------------------------------------------- transformation (§5)

    def _transform(self) -> None:
        """One link per turn: each object whose noun has `is NOUN` rules is
        replaced in place by one new object per rule, facing kept; the new
        ones come last in creation order and change no more this turn."""
        targets: Dict[int, List[int]] = {}
        for left, right in self._rules:
            if _is_noun(left) and _is_noun(right):
                targets.setdefault(T.NOUN_TARGET[left], []).append(T.NOUN_TARGET[right])
        made: List[Thing] = []
        gone: Set[int] = set()
        for source, into in targets.items():
            if source in into:              # `X is X` blocks X's transformations (§2.5)
                continue
            for old in [o for o in self._objects if o.tile == source]:
                made += [Thing(tile, old.x, old.y, old.facing) for tile in into]
                gone.add(id(old))
        if made:
            self._objects = [o for o in self._objects if id(o) not in gone] + made
            self._at = None

    # -------------------------------------------------- destruction (§6)

    def _destroy(self) -> None:
        """SINK, then HOT/MELT, then DEFEAT, each step on what the one
        before left, all with this turn's rules (§6.4)."""
        self._remove(self._sunk())
        self._remove([m for m in self._all_with(MELT) if self._shares(m, HOT)])
        self._remove([y for y in self._all_with(YOU) if self._shares(y, DEFEAT)])

    def _sunk(self) -> List[Thing]:
        """Everything on a cell holding a SINK object and anything else."""
        cells = {s.cell for s in self._all_with(SINK)}
        out: List[Thing] = []
        for cell in cells:
            here = self._things_at(cell)
            if len(here) > 1:
                out += here
        return out

    def _shares(self, thing: Thing, prop: int) -> bool:
        """Whether a thing on `thing`'s cell has the property (itself counts)."""
        return any(self._has(other, prop) for other in self._things_at(thing.cell))

    def _remove(self, doomed: List[Thing]) -> None:
        if not doomed:
            return
        ids = {id(t) for t in doomed}
        self._objects = [o for o in self._objects if id(o) not in ids]
        self._texts = [t for t in self._texts if id(t) not in ids]
        self._at = None

    # ---------------------------------------------------------- winning (§7)

    def _win(self) -> bool:
        return any(self._shares(y, WIN) for y in self._all_with(YOU))
