"""One worker of breadth-first search split over workers: it owns the
states whose hash falls in its part (cluster.bfs drives the workers).

It is a plain class, made a Ray actor by cluster.bfs, so that it can also
be driven in one process. States are numbered in its own store in
insertion order, as in the one-process search, so its share of a layer is
a range of its store; a state's parent is a global id, the parent's index
in its own part's store * parts + that part."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional, Tuple

import numpy as np

from .._core import Expander, SearchOutcome, StateStore, insert_records, owner_of_record, root_record, take_generated
from ..level import Level
from ..rulesets import core_level

__all__ = ["PartWorker", "Expanded", "Stored", "as_arrays", "packet_bytes"]

#: A packet between workers: (records, starts, hashes, parents, actions).
Arrays = Tuple[Any, Any, Any, Any, Any]
TYPES = (np.uint8, np.uint32, np.uint64, np.uint64, np.uint8)


def as_arrays(packet: Tuple[bytes, ...]) -> Arrays:
    """A packet as numpy arrays over its bytes (no copy): Ray hands numpy
    buffers to an actor on the same node without copying them."""
    return tuple(np.frombuffer(part, dtype) for part, dtype in zip(packet, TYPES))  # type: ignore[return-value]


def packet_bytes(packet: Arrays) -> int:
    return sum(int(a.nbytes) for a in packet)


@dataclass
class Expanded:
    """What a worker's expansion of a round says to the driver."""
    generated: int
    expanded: int
    dead_ends: int
    illegal: int
    left: int                                 # states of the layer still to expand here
    sent: int                                 # bytes sent to the other workers so far
    won: Optional[Tuple[int, int]] = None     # (local parent, action) of a winning child
    full: Optional[str] = None                # why the store could not take the children


@dataclass
class Stored:
    """A worker's store after it took a round's packets."""
    states: int
    memory_bytes: int
    full: Optional[str] = None


class PartWorker:
    """Part `part` of `parts` of the visited set, with an expander over it."""

    def __init__(self, level: Level, parts: int, part: int, expected: int, memory: Optional[int]) -> None:
        self.parts, self.part = parts, part
        self.store = StateStore(expected, byte_limit=memory or 0)
        self.expander = Expander(core_level(level), self.store)
        self.head = self.layer_end = 0
        self.sent = 0
        root = root_record(self.expander)
        if owner_of_record(root, parts) == part:
            self.store.add(root)
            self.layer_end = 1

    def root_is_dead(self) -> bool:
        return bool(self.expander.root_is_dead())

    def expand(self, states: int) -> Tuple[Any, ...]:
        """Expand up to `states` more states of this worker's share of the
        layer. Returns one packet (or None) per part, the children it owns,
        then an Expanded; the children this worker owns are stored here at
        once. After a win the packets are all None."""
        start = self.head
        stop = min(start + states, self.layer_end)
        nothing: list = [None] * self.parts
        e = self.expander
        if start < stop and e.generate(start, stop) == SearchOutcome.SEARCH_WON:
            return (*nothing, self._expanded(won=(e.won_parent, e.won_action)))
        self.head = stop
        if start == stop:
            return (*nothing, self._expanded())
        try:
            packets = [as_arrays(p) for p in take_generated(e, self.parts, self.part)]
        except MemoryError as error:        # past the global ids' format
            return (*nothing, self._expanded(full=str(error)))
        full = self._insert([packets[self.part]])
        out = [p if k != self.part and len(p[2]) else None for k, p in enumerate(packets)]
        self.sent += sum(packet_bytes(p) for p in out if p is not None)
        return (*out, self._expanded(full=full))

    def receive(self, *packets: Optional[Arrays]) -> Stored:
        """Store the children other workers sent this worker (None: none)."""
        full = self._insert([p for p in packets if p is not None])
        return Stored(len(self.store), self.store.memory_bytes, full)

    def _insert(self, packets: list) -> Optional[str]:
        """Store the packets' new states; why not, when the store is full."""
        try:
            for packet in packets:
                insert_records(self.store, *packet)
        except MemoryError as e:
            return str(e) or "the visited table could not grow"
        return None

    def next_layer(self) -> int:
        """The layer is expanded everywhere and its children stored: the
        states stored since it began are the next one. Their number."""
        self.layer_end = len(self.store)
        return self.layer_end - self.head

    def parent(self, index: int) -> Tuple[Optional[int], Optional[int]]:
        """(global id of the parent, action) of a local state; (None, None) for the root."""
        return self.store.parent(index)

    def _expanded(self, won: Optional[Tuple[int, int]] = None, full: Optional[str] = None) -> Expanded:
        e = self.expander
        return Expanded(e.generated, e.expanded, e.dead_ends, e.illegal, self.layer_end - self.head, self.sent,
                        won, full)
