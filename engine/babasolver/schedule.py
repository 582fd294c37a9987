"""The budget of mode "both", declared once: its phases, their shares of
the time and of the states, and what moves the solver from one to the next;
and the `Budget` that hands the shares out and holds every store of every
search to one total.

The phases, in order (`SCHEDULE`):

=============  ============  ==============  =======================================================
phase          time share    state share     moves on
=============  ============  ==============  =======================================================
breadth-first  0.1 of the    0.1 of the      a solution, or every state seen (unsolvable): done;
               budget,       states and      else, at its time, states or bytes: satisfice
               at most 1 s   bytes
satisfice      0.8 of the    0.8 of what     a solution: improve; a greedy search saw every state:
               budget        breadth-first   unsolvable, done; else, at its time or states:
                             leaves          prove, with no solution to prove. While breadth-first
                                             layers are near their peak, and once the race has
                                             run alone RACE_ALONE_TURNS turns, breadth-first
                                             search takes turns with the race, and its win or
                                             its last state (unsolvable) ends the phase: done
improve        0.3 of the    all             at its time: prove
               time left
prove          all of the    all             a shorter solution, or the solution's depth reached
               time left                     without a win (proven shortest): done; else, at its
               (0.15: no                     time or states: improve more. With no solution
               proof in                      found it runs to the deadline.
               sight)
improve more   all of the    all             at its time: shorten
               time left
shorten        0.1 of the    what is left    at the deadline: done
               budget, kept
               back
=============  ============  ==============  =======================================================

"The time left" is what remains before the shortening reserve when the
phase starts, so the shares never add up to more than the budget:
breadth-first, satisfice and shorten take 0.1 + 0.8 + 0.1 of it, and the
three phases after the first solution divide what the first two left. A
proof is in sight when the solution is at most PROOF_GAP moves deeper than
breadth-first search has reached, and breadth-first search, its layers
growing as the last one did, would store LAYERS_AHEAD more of them within
SIGHT_SHARE of the time left. Breadth-first layers are near their peak
when the last two grew by at most FLAT_GROWTH each, or when their growth
has been falling and, falling on as it did over the last PEAK_SPAN
layers, stops within PEAK_LAYERS more (`near_peak`): then the search may
end soon, so in the satisfice phase it takes turns with the race, each as
long as its first phase ran (at least MIN_TURN seconds). Otherwise the
race runs alone for RACE_ALONE_TURNS such turns, and then, with no
solution found, breadth-first search takes turns with it anyway.

Every phase's searches, with the stores the earlier phases left, hold at
most `max_states` states and `memory` bytes together, at every moment: a
search is granted room before each batch for the most states (and bytes)
the batch can add, and the grants of searches running side by side are
held back from each other (`Budget.grant`).
"""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Callable, List, Optional, Protocol, Sequence, Tuple

__all__ = ["CALL_SECONDS", "next_chunk", "TablePauses",
           "Phase", "SCHEDULE", "FIRST_BFS", "SATISFICE", "IMPROVE", "PROVE", "IMPROVE_MORE", "SHORTEN",
           "BUDGET", "LEFT", "PROOF_GAP", "LAYERS_AHEAD", "SIGHT_SHARE", "FLAT_GROWTH", "PEAK_SPAN", "PEAK_LAYERS",
           "MIN_TURN", "RACE_ALONE_TURNS", "Budget", "Grant", "proof_in_sight", "near_peak"]

#: What a phase's time share is a share of.
BUDGET = "budget"          # the whole timeout
LEFT = "left"              # the time left before the shortening reserve when the phase starts


@dataclass(frozen=True)
class Phase:
    """One phase of mode "both"."""

    name: str
    time_share: float               # of `of`
    of: str                         # BUDGET or LEFT
    state_share: float              # of the states and bytes the stores of earlier phases leave
    moves_on: str                   # when the phase ends, and what comes next
    max_seconds: Optional[float] = None   # at most this long (without a timeout too)
    share_without_proof: Optional[float] = None   # the time share when no proof is in sight
    reserved: bool = False          # kept back at the end of the budget


FIRST_BFS = Phase(
    "breadth-first", 0.1, BUDGET, 0.1, max_seconds=1.0,
    # Breadth-first search proves what it can prove in 10 s almost always
    # within its first second (on full_biy, 3 levels of 158 took longer, none
    # over 5 s), so the satisficing searches can have most of the rest.
    moves_on="a solution, or every state seen: done; its time, states or bytes: satisfice")
SATISFICE = Phase(
    "satisfice", 0.8, BUDGET, 0.8,
    moves_on="a solution: improve; a greedy search saw every state: unsolvable; "
             "its time or states: prove, with no solution; breadth-first search, taking turns "
             "with the race while its layers are near their peak or once the race has run alone "
             "RACE_ALONE_TURNS turns, wins or sees every state: done")
IMPROVE = Phase(
    # The narrowest beams: cheap, and a shorter solution is easier to prove.
    "improve", 0.3, LEFT, 1.0, moves_on="its time: prove")
PROVE = Phase(
    # The levels full_biy proves after the first second had a solution at
    # most 7 moves deeper than breadth-first search had reached by then,
    # and it found the shortest within 3 layers. With a proof in sight it
    # has all the time left: on a busy machine, level 120 (bound 27, a
    # solution of 32 at depth 23 or 24) was proven on 5 of 9 runs with half
    # of it, on 7 of 7 with all; the beams after it had improved none of
    # the levels with a proof in sight (66, 119, 120) anyway.
    "prove", 1.0, LEFT, 1.0, share_without_proof=0.15,
    moves_on="a shorter solution, or the solution's depth reached: done; its time or states: improve more")
IMPROVE_MORE = Phase("improve more", 1.0, LEFT, 1.0, moves_on="its time: shorten")
SHORTEN = Phase("shorten", 0.1, BUDGET, 1.0, reserved=True, moves_on="the deadline: done")

SCHEDULE: Tuple[Phase, ...] = (FIRST_BFS, SATISFICE, IMPROVE, PROVE, IMPROVE_MORE, SHORTEN)

#: A proof is in sight when the solution is at most this many moves deeper
#: than breadth-first search has reached ...
PROOF_GAP = 10
#: ... and this many more layers would be stored ...
LAYERS_AHEAD = 2
#: ... within this share of the time left.
SIGHT_SHARE = 0.5

#: Breadth-first layers are near their peak when the last two grew by at
#: most this factor each, on average ...
FLAT_GROWTH = 1.15
#: ... or when their growth, falling on at its average rate over the last
#: PEAK_SPAN layers, falls to 1 within PEAK_LAYERS more.
#: An unsolvable level's layers grow, peak and shrink to nothing. On a
#: small one, breadth-first search proved it in 1.8 s, but the greedy
#: search, sharing two threads with the beams, took 10 s, so mode both
#: was 5.7 times slower than mode shortest. At the end of the first phase
#: the 26 full_biy levels that get past it are not near their peak by
#: either test (the closest, 87, grows by 1.16 a layer, falling 0.02 a
#: layer: 7.5 layers from 1), except 190 (flat, 1.12), which no search
#: solves in 10 s. Slower falls wait for RACE_ALONE_TURNS: on a generated
#: unsolvable level whose growth fell 0.036 a layer (1.24 over two, 7
#: layers from 1), mode both had taken 39 s and mode shortest 10 s.
PEAK_SPAN = 3
PEAK_LAYERS = 5
#: The shortest turn of breadth-first search in the race (seconds).
MIN_TURN = 0.1
#: Turns the race runs alone, when breadth-first layers are not near their
#: peak, before breadth-first search takes turns with it anyway. The race
#: then has half the time, and breadth-first search proves an unsolvable
#: level in about twice its own time plus these turns. Before, it waited
#: for the greedy search to see every state or the race to run out of
#: states: on a 4-rock room with the flag walled off (21M states, its
#: growth falling 0.04 a layer, 7 layers from 1 at the first phase's end),
#: mode both took 46 s where mode shortest took 12 s (now 33 s; 21 s
#: instead of 23 s with 11M states). On full_biy, the race's first
#: solution came within 6 s of the first phase's end on every level that
#: has one (the latest, 189, at 4.3-5.9 s in four runs; with 5 turns it
#: was found later, once not in 10 s), and with a timeout of 10 s the race
#: ends before 10 turns of 1 s, so the bench is as before.
RACE_ALONE_TURNS = 10


def near_peak(sizes: Sequence[int]) -> bool:
    """Whether breadth-first layers of these sizes (the root's first) are
    near their peak (see FLAT_GROWTH and PEAK_LAYERS). A layer's growth is
    taken over two layers, as many levels' layers alternate between odd
    and even depths (full_biy 162 grows by 1.05 and 1.39 in turn)."""
    def growth(i: int) -> float:
        return float((sizes[i] / max(1, sizes[i - 2])) ** 0.5)
    if len(sizes) < 3:
        return False
    if growth(len(sizes) - 1) <= FLAT_GROWTH:
        return True
    if len(sizes) < 2 * PEAK_SPAN + 3:     # the first layers' growth says little
        return False
    first, last = growth(len(sizes) - 1 - PEAK_SPAN), growth(len(sizes) - 1)
    fall = (first - last) / PEAK_SPAN
    return fall > 0 and last - 1 <= PEAK_LAYERS * fall


class Holder(Protocol):
    """What the budget needs of a search: the states and bytes its stores hold."""

    @property
    def live_states(self) -> int: ...

    @property
    def memory_bytes(self) -> int: ...


@dataclass
class Grant:
    """Room for one batch of one search: at most `states` more states, and
    `bytes` more bytes in its store (with a memory limit)."""

    states: int
    bytes: int


class Budget:
    """The time, states and bytes of one solve, shared by its searches.

    `holders` are the searches whose stores count (each with
    `live_states` and `memory_bytes`). A search asks for a `grant` before
    each batch; grants not yet returned count as held, so searches that
    run side by side never take the same room twice."""

    def __init__(self, timeout: Optional[float], max_states: int, memory: Optional[int] = None,
                 started: Optional[float] = None) -> None:
        self.timeout = timeout
        self.max_states = max_states
        self.memory = memory
        self.started = time.perf_counter() if started is None else started
        self.deadline = None if timeout is None else self.started + timeout
        self.holders: List[Holder] = []
        self._lock = threading.Lock()
        self._granted_states = 0
        self._granted_bytes = 0
        # The caps of the phase under way (shares of what the others leave).
        self.state_cap = max_states
        self.byte_cap = memory

    # -- time

    @property
    def reserve_start(self) -> Optional[float]:
        """When the shortening reserve begins (None: no timeout)."""
        if self.deadline is None or self.timeout is None:
            return None
        return self.deadline - SHORTEN.time_share * self.timeout

    def seconds(self, phase: Phase, share: Optional[float] = None, now: Optional[float] = None) -> Optional[float]:
        """The seconds `phase` may take from `now` (None: no end)."""
        now = time.perf_counter() if now is None else now
        share = phase.time_share if share is None else share
        if self.timeout is None:
            return phase.max_seconds
        end = self.deadline if phase.reserved else self.reserve_start
        assert end is not None
        left = max(0.0, end - now)
        seconds = share * (self.timeout if phase.of == BUDGET else left)
        if phase.max_seconds is not None:
            seconds = min(seconds, phase.max_seconds)
        return min(seconds, left)

    def until(self, phase: Phase, share: Optional[float] = None) -> Optional[float]:
        """When `phase` started now must end (None: no end)."""
        now = time.perf_counter()
        seconds = self.seconds(phase, share, now)
        return None if seconds is None else now + seconds

    # -- states and bytes

    def held_states(self, without: Optional[Holder] = None) -> int:
        return sum(h.live_states for h in self.holders if h is not without)

    def held_bytes(self, without: Optional[Holder] = None) -> int:
        return sum(h.memory_bytes for h in self.holders if h is not without)

    def enter(self, phase: Phase, own: Optional[Holder] = None) -> None:
        """Caps for `phase`: its share of what the stores of the others
        (all but `own`, the search that goes on into the phase) leave."""
        held = self.held_states(without=own)
        self.state_cap = held + int(phase.state_share * (self.max_states - held))
        if self.memory is not None:
            held_bytes = self.held_bytes(without=own)
            self.byte_cap = held_bytes + int(phase.state_share * (self.memory - held_bytes))

    def room_states(self) -> int:
        """States the phase's searches may still add."""
        return max(0, self.state_cap - self.held_states() - self._granted_states)

    def room_bytes(self) -> Optional[int]:
        """Bytes the stores may still grow by (None: no limit)."""
        if self.memory is None or self.byte_cap is None:
            return None
        return max(0, min(self.byte_cap, self.memory) - self.held_bytes() - self._granted_bytes)

    def byte_share_spent(self) -> bool:
        """The phase's share of the bytes, short of the memory limit, is held."""
        return (self.memory is not None and self.byte_cap is not None and self.byte_cap < self.memory
                and self.room_bytes() == 0)

    def grant(self, states: int, sharers: int = 1) -> Grant:
        """Room for a batch that can add at most `states` states, shared
        with `sharers - 1` other searches running beside it; returned with
        `give_back`."""
        with self._lock:
            room = self.room_states() // max(1, sharers)
            granted = Grant(min(states, room), 0)
            room_bytes = self.room_bytes()
            if room_bytes is not None:
                granted.bytes = room_bytes // max(1, sharers)
            self._granted_states += granted.states
            self._granted_bytes += granted.bytes
            return granted

    def give_back(self, granted: Grant) -> None:
        """The batch is done: what it added is held by its store now."""
        with self._lock:
            self._granted_states -= granted.states
            self._granted_bytes -= granted.bytes


def proof_in_sight(solution_moves: int, depth: int, seconds_to_reach: Callable[[int], float],
                   seconds: float) -> bool:
    """Whether breadth-first search, at `depth`, can likely prove a solution
    of `solution_moves` within `seconds` (see the module's doc)."""
    if solution_moves - 1 - depth > PROOF_GAP:
        return False
    return seconds_to_reach(min(solution_moves - 1, depth + LAYERS_AHEAD)) <= seconds


#: About the longest one call into the core may run: the time limit and
#: Ctrl-C are acted on between calls (a call runs without the GIL).
CALL_SECONDS = 0.1


def next_chunk(chunk: int, done: int, took: float, most: int) -> int:
    """The work (states, expansions) of the next call into the core, after
    one that did `done` of it in `took` seconds: cut to about CALL_SECONDS'
    worth after a slow call, doubled back towards `most` after a quick one.
    On most levels a call of `most` takes a few milliseconds and the size
    never changes; where a state costs milliseconds (thousands of objects
    multiplying), a call of `most` took seconds, and --timeout 5 ran 12 s,
    a Ctrl-C 4-8 s."""
    if took > CALL_SECONDS and done > 0:
        return max(1, int(done * CALL_SECONDS / took))
    if took < CALL_SECONDS / 4:
        return min(most, 2 * chunk)
    return min(most, chunk)


class TablePauses:
    """When a store's next table doubling would end: the doubling pauses
    its search while every state is rehashed, in the core, where no
    deadline is looked at (3 s at 54 million states; --timeout 30 ran
    32 s). The pause is guessed from the last one, per state rehashed; a
    call into the core that grew the table took that pause beside its work,
    which is guessed from the last call that did not."""

    def __init__(self) -> None:
        self.seconds_per_item = 0.0     # per state expanded, at the last call that did not grow the table
        self.seconds_per_state = 0.0    # rehashed, at the last doubling

    def measure(self, store: "SizedStore", slots_before: int, items: int, took: float) -> bool:
        """Learn from a call that did `items` of work in `took` seconds, the
        store's table having `slots_before` slots before it; whether the
        table grew."""
        if store.table_slots == slots_before:
            self.seconds_per_item = took / max(1, items)
            return False
        pause = max(0.0, took - items * self.seconds_per_item)
        self.seconds_per_state = pause / max(1, len(store))
        return True

    def room_before_late_grow(self, store: "SizedStore", final: Optional[float]) -> Optional[int]:
        """States the store may still add when doubling its table would end
        after `final`, else None. Stopping short of it is no loss: no state
        past it could come before `final`."""
        if final is None or not self.seconds_per_state:
            return None
        pause = self.seconds_per_state * (len(store) + store.states_before_grow)
        if time.perf_counter() + pause < final:
            return None
        return store.states_before_grow


class SizedStore(Protocol):
    """What TablePauses reads of a StateStore."""

    @property
    def table_slots(self) -> int: ...

    @property
    def states_before_grow(self) -> int: ...

    def __len__(self) -> int: ...
