"""A small pure-Python simulator of one turn, written straight from RULES.md.

This module is the executable form of ``../shared/RULES.md`` plus the
"Model decisions" of ``docs/DESIGN.md``. It is meant to be read, not to be
fast: the Cython core (``babasolver.game.Simulation``) is checked against it
turn by turn, and it is checked against the Keke reference solutions by
``babasolver.conformance``.

State: a dict ``cell -> {tile id: _Obj}``. A cell holds at most one object
of a given tile (the bit-field model of the seed). Every object and every
text is an ``_Obj`` with a tile id, a position and a facing. Cells outside
the grid and cells holding a ``border`` tile block everything; borders are
not objects.

Properties belong to nouns, not to single objects: ``NOUN is PROPERTY``
gives the property to every object of that noun, so they are looked up
through the current rule list each time they are needed. Texts are always
PUSH, never STOP, and are never transformed or destroyed.

Object order within a noun is the reading order of the objects' cells at
the start of each step, not creation order: see ``_ordered``, where that
simplification lives.
"""

from __future__ import annotations

from typing import Dict, Iterator, List, Set, Tuple

from . import tiles as T

__all__ = ["ReferenceSimulation", "ACTIONS", "KEKE_ACTIONS", "PROPERTIES"]

# Action ids and the (dx, dy) they move by; facing id = action id + 1.
UP, DOWN, LEFT, RIGHT, WAIT = 0, 1, 2, 3, 4
ACTIONS = {UP: (0, -1), DOWN: (0, 1), LEFT: (-1, 0), RIGHT: (1, 0)}
OPPOSITE = {UP: DOWN, DOWN: UP, LEFT: RIGHT, RIGHT: LEFT}
KEKE_ACTIONS = {"u": UP, "d": DOWN, "l": LEFT, "r": RIGHT, "s": WAIT}

FACING_NONE = 0

# The property words, in the order of their texts' tile ids.
PROPERTIES: Tuple[str, ...] = tuple(
    T.PROPERTY_WORDS[tile] for tile in sorted(T.PROPERTY_WORDS)
)

Cell = Tuple[int, int]


def _is_text(tile: int) -> bool:
    return bool((1 << tile) & T.TEXT_MASK)


def _is_noun_text(tile: int) -> bool:
    return bool((1 << tile) & T.NOUN_TEXT_MASK)


def _is_property_text(tile: int) -> bool:
    return bool((1 << tile) & T.PROPERTY_TEXT_MASK)


class _Obj:
    """One object or text on the grid. Identity matters: the "moved this
    turn" bookkeeping follows the object, not its cell."""

    __slots__ = ("tile", "x", "y", "facing")

    def __init__(self, tile: int, x: int, y: int, facing: int = FACING_NONE) -> None:
        self.tile = tile
        self.x = x
        self.y = y
        self.facing = facing

    @property
    def cell(self) -> Cell:
        return (self.x, self.y)

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return f"_Obj({T.NAMES[self.tile]!r}, {self.x}, {self.y}, facing={self.facing})"


class ReferenceSimulation:
    """One level being played under the Keke competition rules.

    API shared with ``babasolver.game.Simulation``: ``step(action)``,
    ``objects()``, ``rules()``, ``won``, ``dead``. Extras for tests:
    ``copy()``, ``props()``, ``step_keke(letters)`` and ``render()``.
    """

    def __init__(self, level) -> None:
        self.width: int = level.width
        self.height: int = level.height
        self.name: str = getattr(level, "name", "")
        self._border: Set[Cell] = set()
        self._grid: Dict[Cell, Dict[int, _Obj]] = {}
        for index, tile in enumerate(level.grid):
            x, y = index % self.width, index // self.width
            if tile == T.BORDER:
                self._border.add((x, y))
            elif tile != T.EMPTY:
                self._grid.setdefault((x, y), {})[tile] = _Obj(tile, x, y)
        self._rules: List[Tuple[int, int]] = []
        # noun object tile -> set of property words it has under _rules
        self._noun_props: Dict[int, Set[str]] = {}
        self.won: bool = False
        # Construction reads the rules once, with transformations, as the
        # Keke reference simulator does when it loads a level.
        self._read_rules()

    # ------------------------------------------------------------------
    # Public API

    def copy(self) -> "ReferenceSimulation":
        other = ReferenceSimulation.__new__(ReferenceSimulation)
        other.width, other.height, other.name = self.width, self.height, self.name
        other._border = set(self._border)
        other._grid = {
            cell: {tile: _Obj(o.tile, o.x, o.y, o.facing) for tile, o in here.items()}
            for cell, here in self._grid.items()
        }
        other._rules = list(self._rules)
        other._noun_props = {noun: set(words) for noun, words in self._noun_props.items()}
        other.won = self.won
        return other

    def objects(self) -> List[Tuple[int, int, int, int]]:
        """Sorted ``(tile, x, y, facing)`` of every object and text."""
        return sorted((o.tile, o.x, o.y, o.facing) for o in self._all_objs())

    def rules(self) -> List[Tuple[int, int]]:
        """Every ``is`` triple found at the last reading, as
        ``(left tile, right tile)``, in reading order, duplicates dropped."""
        return list(self._rules)

    def props(self) -> Dict[str, List[int]]:
        """Property word -> sorted object tile ids that have it (every
        property word is a key, possibly with an empty list)."""
        out: Dict[str, List[int]] = {word: [] for word in PROPERTIES}
        for noun, words in self._noun_props.items():
            for word in words:
                out[word].append(noun)
        return {word: sorted(nouns) for word, nouns in out.items()}

    @property
    def dead(self) -> bool:
        """No YOU object and no MOVE object is left: nothing can ever move."""
        return not any(
            self._has(o, "you") or self._has(o, "move") for o in self._all_objs()
        )

    def step_keke(self, letters: str) -> None:
        """Apply the turns of a Keke solution string (``udlrs``, any case)."""
        for letter in letters:
            try:
                action = KEKE_ACTIONS[letter.lower()]
            except KeyError:
                raise ValueError(f"not a Keke action letter: {letter!r}") from None
            self.step(action)

    def render(self) -> str:
        """The grid as Keke map characters, one line per row (for
        debugging; a cell with several tiles shows the highest tile id)."""
        rows = []
        for y in range(self.height):
            row = []
            for x in range(self.width):
                if (x, y) in self._border:
                    row.append("_")
                elif self._grid.get((x, y)):
                    row.append(T.KEKE_CHARS[max(self._grid[(x, y)])])
                else:
                    row.append(".")
            rows.append("".join(row))
        return "\n".join(rows)

    def step(self, action: int) -> None:
        """Apply one turn (RULES.md, "A turn")."""
        if action not in (UP, DOWN, LEFT, RIGHT, WAIT):
            raise ValueError(f"action must be 0..4, not {action!r}")
        # The objects that walked, were pushed or auto-moved this turn. It
        # spans the players' and the movers' steps of the turn.
        moved: Set[_Obj] = set()

        # 1. Players move (not on wait).
        if action != WAIT:
            for obj in self._ordered("you"):
                self._move(obj, action, moved)
        # 2. Destruction (also after a wait).
        self._destroy()
        # 3. Movers move, each in its facing direction (none counts as
        # right). One that cannot move (blocked, or it already moved this
        # turn: walked as YOU or was pushed) turns to the opposite direction
        # of the way it faces now and stays.
        for obj in self._ordered("move"):
            direction = obj.facing - 1 if obj.facing != FACING_NONE else RIGHT
            if not self._move(obj, direction, moved):
                obj.facing = OPPOSITE[direction] + 1
        # 4. Destruction again.
        self._destroy()
        # 5. Rules are read again only if a text moved this turn.
        if any(_is_text(o.tile) for o in moved):
            self._read_rules()
        # 6. Win check, only here at the end of a turn.
        self.won = self._check_win()

    # ------------------------------------------------------------------
    # Properties

    def _has(self, obj: _Obj, word: str) -> bool:
        """Whether an object (never a text) has a property by the rules."""
        return word in self._noun_props.get(obj.tile, ())

    def _is_movable(self, obj: _Obj) -> bool:
        return _is_text(obj.tile) or any(
            self._has(obj, w) for w in ("you", "move", "push")
        )

    def _is_pushable(self, obj: _Obj) -> bool:
        return _is_text(obj.tile) or self._has(obj, "push")

    def _is_stop(self, obj: _Obj) -> bool:
        return not _is_text(obj.tile) and self._has(obj, "stop")

    def _is_blocking(self, obj: _Obj) -> bool:
        """YOU, MOVE, PUSH, STOP or a text: the objects others interact with
        when entering a cell. Everything else is walked over."""
        return _is_text(obj.tile) or any(
            self._has(obj, w) for w in ("you", "move", "push", "stop")
        )

    # ------------------------------------------------------------------
    # Grid helpers

    def _all_objs(self) -> Iterator[_Obj]:
        for here in self._grid.values():
            yield from here.values()

    def _in_play(self, cell: Cell) -> bool:
        x, y = cell
        return 0 <= x < self.width and 0 <= y < self.height and cell not in self._border

    def _place(self, obj: _Obj, cell: Cell) -> None:
        here = self._grid[obj.cell]
        del here[obj.tile]
        if not here:
            del self._grid[obj.cell]
        obj.x, obj.y = cell
        target = self._grid.setdefault(cell, {})
        # Movement never brings two objects of one tile into one cell (the
        # one already there blocks or is pushed away first).
        assert obj.tile not in target, "two objects of one tile in a cell"
        target[obj.tile] = obj

    def _remove(self, obj: _Obj) -> None:
        here = self._grid[obj.cell]
        del here[obj.tile]
        if not here:
            del self._grid[obj.cell]

    def _ordered(self, word: str) -> List[_Obj]:
        """The objects having a property, in the order they act: by rule
        order of the ``NOUN is word`` rules, then, within one noun, by the
        reading order of their cells now (at the start of the step).

        SIMPLIFICATION (allowed by RULES.md, "A turn", step 1): the Keke
        reference takes the objects of one noun in creation order (reading
        order at load, objects made by a transformation after the others).
        With one object per noun per cell there is no creation order, so
        both engines take reading order of the current cells instead. The
        orders differ only when two YOU (or MOVE) objects of one noun are
        adjacent along the move and their creation order is not their
        reading order.
        """
        out: List[_Obj] = []
        for left, right in self._rules:
            if (
                _is_noun_text(left)
                and _is_property_text(right)
                and T.PROPERTY_WORDS[right] == word
            ):
                noun = T.NOUN_TARGET[left]
                out.extend(
                    sorted(
                        (o for o in self._all_objs() if o.tile == noun),
                        key=lambda o: (o.y, o.x),
                    )
                )
        return out

    # ------------------------------------------------------------------
    # Movement

    def _move(self, obj: _Obj, direction: int, moved: Set[_Obj]) -> bool:
        """Try to move ``obj`` one cell; True if it moved (RULES.md,
        "Moving one object X one cell in direction d", and DESIGN.md's
        resolution of a cell with several blocking occupants)."""
        if obj in moved or not self._is_movable(obj):
            return False
        dx, dy = ACTIONS[direction]
        target = (obj.x + dx, obj.y + dy)
        if not self._in_play(target):
            return False
        occupants = sorted(
            (o for o in self._grid.get(target, {}).values() if self._is_blocking(o)),
            key=lambda o: o.tile,
        )
        # STOP wins over everything, even over PUSH on the same object.
        if any(self._is_stop(o) for o in occupants):
            return False
        mover_is_you = self._has(obj, "you")
        for occupant in occupants:  # ascending tile id
            if self._is_pushable(occupant):
                # Pushed first, recursively; a push already done stays done
                # even if a later occupant blocks.
                if not self._move(occupant, direction, moved):
                    return False
            elif self._has(occupant, "you"):
                if mover_is_you:
                    # A YOU object is blocked by another YOU object.
                    return False
                # Anything else that moves may enter a YOU object's cell.
            else:
                # A MOVE object (not YOU, not PUSH) blocks everything.
                return False
        self._place(obj, target)
        obj.facing = direction + 1
        moved.add(obj)
        return True

    # ------------------------------------------------------------------
    # Destruction (DESIGN.md, "Model decisions": per cell, objects only)

    def _destroy(self) -> None:
        # KILL: a cell with a YOU object and a KILL or SINK object loses all
        # its YOU objects and all its KILL/SINK objects (the killer dies too;
        # an object both YOU and KILL destroys itself).
        for cell in list(self._grid):
            objs = self._objects_in(cell)
            you = [o for o in objs if self._has(o, "you")]
            killers = [o for o in objs if self._has(o, "kill") or self._has(o, "sink")]
            if you and killers:
                for obj in {*you, *killers}:
                    self._remove(obj)
        # SINK: a cell with a SINK object and at least one other object
        # loses all its objects.
        for cell in list(self._grid):
            objs = self._objects_in(cell)
            if len(objs) >= 2 and any(self._has(o, "sink") for o in objs):
                for obj in objs:
                    self._remove(obj)
        # HOT/MELT: a cell with a HOT and a MELT object (possibly one object
        # that is both) loses its HOT and MELT objects.
        for cell in list(self._grid):
            objs = self._objects_in(cell)
            hot = [o for o in objs if self._has(o, "hot")]
            melt = [o for o in objs if self._has(o, "melt")]
            if hot and melt:
                for obj in {*hot, *melt}:
                    self._remove(obj)

    def _objects_in(self, cell: Cell) -> List[_Obj]:
        """The objects (never texts) in a cell."""
        return [o for o in self._grid.get(cell, {}).values() if not _is_text(o.tile)]

    # ------------------------------------------------------------------
    # Rules

    def _read_rules(self) -> None:
        """Read every ``is`` triple, then transform (RULES.md, "Rules")."""
        rules: List[Tuple[int, int]] = []
        # The is-texts are visited in reading order of the cells they are in
        # now (RULES.md). The Keke simulator walks them in the order its
        # list was built at load instead, which gives another rule order once
        # an is-text has moved past another; RULES.md's order is the one
        # both engines implement.
        for y in range(self.height):
            for x in range(self.width):
                if T.IS_TEXT not in self._grid.get((x, y), {}):
                    continue
                # Horizontal triple first, then the vertical one.
                for before, after in (((x - 1, y), (x + 1, y)), ((x, y - 1), (x, y + 1))):
                    for left in self._texts_in(before):
                        for right in self._texts_in(after):
                            if (left, right) not in rules:
                                rules.append((left, right))
        self._rules = rules
        self._transform()
        self._noun_props = {}
        for left, right in self._rules:
            if _is_noun_text(left) and _is_property_text(right):
                self._noun_props.setdefault(T.NOUN_TARGET[left], set()).add(
                    T.PROPERTY_WORDS[right]
                )

    def _texts_in(self, cell: Cell) -> List[int]:
        """Text tiles in a cell, ascending (there is at most one in play:
        texts always push each other away)."""
        return sorted(t for t in self._grid.get(cell, {}) if _is_text(t))

    def _transform(self) -> None:
        """``NOUN is NOUN`` rules, in rule order, chaining; ``X is X``
        protects X. Transformed objects get facing none; one meeting an
        object of its new noun in its cell merges into it (that one keeps
        its facing)."""
        nouns = [
            (T.NOUN_TARGET[l], T.NOUN_TARGET[r])
            for l, r in self._rules
            if _is_noun_text(l) and _is_noun_text(r)
        ]
        protected = {a for a, b in nouns if a == b}
        for a, b in nouns:
            if a in protected:
                continue
            for cell in list(self._grid):
                here = self._grid[cell]
                if a not in here:
                    continue
                del here[a]
                if b not in here:
                    here[b] = _Obj(b, cell[0], cell[1], FACING_NONE)

    # ------------------------------------------------------------------
    # Winning

    def _check_win(self) -> bool:
        for cell in self._grid:
            objs = self._objects_in(cell)
            if any(self._has(o, "you") for o in objs) and any(
                self._has(o, "win") for o in objs
            ):
                return True
        return False

