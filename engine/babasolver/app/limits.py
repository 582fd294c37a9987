"""The limits of a search, and the bounds of every number an option takes,
read and checked in one place.

`solve`, `solve --all`, `bench`, `show` and the Python API take the same
limits with the same defaults and the same messages. Each `parse_*` reads
a command-line value and raises ValueError with the reason, naming the
range; `Limits` checks values given from Python and raises BabaError.
Every number is finite and bounded: a value past what the machine can
hold (threads, processes, memory) fails here in one line, not deep in the
core or in a worker process.
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import Optional

from .._core import STORE_CAPACITY
from ..errors import BabaError
from ..notation import MAX_MOVES
from ..solver import DEFAULT_MAX_STATES, DEFAULT_MODE, MODES, default_threads
from .memory import SEARCH_MEMORY_SHARE, default_search_memory, total_memory_bytes

__all__ = [
    "Limits", "DEFAULT_MAX_STATES", "DEFAULT_MODE", "MODES", "MANY_DEFAULT_TIMEOUT", "MIN_WORKER_GB",
    "STORE_CAPACITY", "MAX_SECONDS", "MAX_DELAY", "PER_CPU", "MAX_MOVES", "default_threads", "max_threads",
    "max_gigabytes", "parse_seconds", "parse_state_count", "parse_threads", "parse_jobs", "parse_gigabytes",
    "parse_delay", "parse_step", "parse_search_gigabytes", "MIN_SEARCH_GB", "SEARCH_MEMORY_SHARE",
]

#: The time per level when many levels are run (`solve --all`, `bench`).
MANY_DEFAULT_TIMEOUT = 10.0
#: The least address space a worker process needs to start Python and the core.
MIN_WORKER_GB = 0.25
#: The least memory a search's stores may be given (--memory): a first table.
MIN_SEARCH_GB = 0.01
#: The longest time limit: past it a deadline means nothing (and times
#: derived from it, such as a worker's grace, must stay finite).
MAX_SECONDS = 1_000_000.0
#: The longest pause between replay frames (a GIF frame holds at most 655 s).
MAX_DELAY = 60.0
#: Threads per search, and levels at once, per CPU of the machine: more
#: only costs memory (a workspace each) and gains nothing.
PER_CPU = 4
#: Bytes of memory assumed when the machine does not say.
_UNKNOWN_MEMORY = 1 << 43


def _shown(text: str) -> str:
    """A value as a message quotes it: a 5,000-digit one is cut short."""
    return repr(text) if len(text) <= 40 else repr(text[:37]) + "..."


def _number(text: str, unit: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"expected a number of {unit}, got {_shown(text)}") from None
    if not math.isfinite(value):
        raise ValueError(f"expected a finite number of {unit}, got {_shown(text)}")
    return value


def _positive(text: str, unit: str, most: float) -> float:
    value = _number(text, unit)
    if not 0 < value <= most:
        raise ValueError(f"must be more than 0 and at most {most:,.0f} {unit}, got {_shown(text)}")
    return value


def parse_seconds(text: str) -> float:
    """A time limit: a number of seconds, more than 0, at most MAX_SECONDS."""
    return _positive(text, "seconds", MAX_SECONDS)


def parse_delay(text: str) -> float:
    """A pause between replay frames: 0 to MAX_DELAY seconds."""
    value = _number(text, "seconds")
    if not 0 <= value <= MAX_DELAY:
        raise ValueError(f"must be from 0 to {MAX_DELAY:g} seconds, got {_shown(text)}")
    return value


def parse_state_count(text: str) -> int:
    """A state limit: '20000000', '20_000_000' or '2e7', from 1 to the
    store's capacity."""
    try:
        value = int(text)
    except ValueError:
        try:
            number = float(text)
        except ValueError:
            raise ValueError(f"expected a whole number, got {_shown(text)}") from None
        if not math.isfinite(number) or number != int(number):
            raise ValueError(f"expected a whole number, got {_shown(text)}") from None
        value = int(number)
    _check_states(value, _shown(text))
    return value


def _check_states(value: int, shown: object) -> None:
    if value < 1:
        raise ValueError(f"must be at least 1, got {shown}")
    if value > STORE_CAPACITY:
        raise ValueError(f"the visited store holds at most {STORE_CAPACITY:,} states, got {shown}")


def _whole(text: str, least: int, most: int, meaning: str) -> int:
    """A whole number from `least` to `most`; `meaning` words the range."""
    try:
        value = int(text)
    except ValueError:
        raise ValueError(f"expected a whole number, got {_shown(text)}") from None
    if not least <= value <= most:
        raise ValueError(f"must be {meaning}, got {_shown(text)}")
    return value


def max_threads() -> int:
    """The most threads per search, and levels at once: PER_CPU per CPU."""
    return PER_CPU * (os.cpu_count() or 1)


def parse_threads(text: str) -> int:
    """Threads per search: a whole number from 1 to max_threads()."""
    return _whole(text, 1, max_threads(), f"from 1 to {max_threads()} ({PER_CPU} per CPU)")


def parse_jobs(text: str) -> int:
    """Levels at once: a whole number up to max_threads(), 0 meaning one per CPU."""
    meaning = f"from 1 to {max_threads()} ({PER_CPU} per CPU), or 0 for one per CPU"
    return _whole(text, 0, max_threads(), meaning) or (os.cpu_count() or 1)


#: The most workers of a search split over a cluster: beyond this, a
#: worker's share of a layer is too small to pay for a round's messages.
MAX_WORKERS = 4096


def parse_workers(text: str) -> int:
    """Workers of a search split over a cluster: a whole number from 1 to MAX_WORKERS."""
    return _whole(text, 1, MAX_WORKERS, f"from 1 to {MAX_WORKERS:,}")


def parse_step(text: str) -> int:
    """A replay step: a whole number from 0 to the longest solution read."""
    return _whole(text, 0, MAX_MOVES, f"from 0 to {MAX_MOVES:,}")


def max_gigabytes() -> float:
    """The largest address-space limit: the machine's memory, in GB."""
    return (total_memory_bytes() or _UNKNOWN_MEMORY) / 2**30


def parse_gigabytes(text: str) -> float:
    """An address-space limit per worker, in GB: at least MIN_WORKER_GB, at
    most the machine's memory."""
    value = _number(text, "GB")
    if value < MIN_WORKER_GB:
        raise ValueError(f"{value:g} GB is too small for a worker process to start"
                         f" (at least {MIN_WORKER_GB:g} GB)")
    most = max_gigabytes()
    if value > most:
        raise ValueError(f"must be from {MIN_WORKER_GB:g} GB to the machine's memory, {most:.1f} GB,"
                         f" got {_shown(text)}")
    return value


def _check_search_gigabytes(value: float, shown: str) -> None:
    most = max_gigabytes()
    if not MIN_SEARCH_GB <= value <= most:      # nan fails too
        raise ValueError(f"must be from {MIN_SEARCH_GB:g} GB to the machine's memory, {most:.1f} GB,"
                         f" got {shown}")


def parse_search_gigabytes(text: str) -> float:
    """What a search's stores may hold, in GB: at least MIN_SEARCH_GB, at
    most the machine's memory."""
    value = _number(text, "GB")
    _check_search_gigabytes(value, _shown(text))
    return value


@dataclass(frozen=True)
class Limits:
    """The budget of one level's search: seconds (None: no time limit),
    distinct states stored, and the GB the stores of its searches may hold
    together (None: SEARCH_MEMORY_SHARE of the memory available when the
    search starts, or of a worker's cap)."""

    timeout: Optional[float] = None
    max_states: int = DEFAULT_MAX_STATES
    memory: Optional[float] = None

    def __post_init__(self) -> None:
        if self.timeout is not None:
            if isinstance(self.timeout, bool) or not isinstance(self.timeout, (int, float)):
                raise BabaError(f"timeout must be a number of seconds, got {self.timeout!r}")
            if not math.isfinite(self.timeout) or not 0 < self.timeout <= MAX_SECONDS:
                raise BabaError(f"timeout must be more than 0 and at most {MAX_SECONDS:,.0f} seconds,"
                                f" got {self.timeout!r}")
        if isinstance(self.max_states, bool) or not isinstance(self.max_states, int):
            raise BabaError(f"max_states must be a whole number, got {self.max_states!r}")
        try:
            _check_states(self.max_states, self.max_states)
        except ValueError as e:
            raise BabaError(f"max_states {e}") from None
        if self.memory is not None:
            if isinstance(self.memory, bool) or not isinstance(self.memory, (int, float)):
                raise BabaError(f"memory must be a number of GB, got {self.memory!r}")
            try:
                _check_search_gigabytes(self.memory, _shown(repr(self.memory)))
            except ValueError as e:
                raise BabaError(f"memory {e}") from None

    def memory_bytes(self) -> Optional[int]:
        """The bytes the stores may hold, the default resolved now."""
        return default_search_memory() if self.memory is None else int(self.memory * 2**30)

    @classmethod
    def for_many(cls, timeout: Optional[float] = None, max_states: Optional[int] = None,
                 memory: Optional[float] = None) -> "Limits":
        """The limits per level of a run over many levels: 10 s by default."""
        return cls(MANY_DEFAULT_TIMEOUT if timeout is None else timeout,
                   DEFAULT_MAX_STATES if max_states is None else max_states, memory)


def check_mode(mode: str) -> str:
    if mode not in MODES:
        raise BabaError(f"mode must be one of {', '.join(MODES)}, got {mode!r}")
    return mode


def check_threads(threads: Optional[int]) -> int:
    """`threads`, or every CPU this process may use when None."""
    if threads is None:
        return default_threads()
    if isinstance(threads, bool) or not isinstance(threads, int) or not 1 <= threads <= max_threads():
        raise BabaError(f"threads must be a whole number from 1 to {max_threads()}, got {threads!r}")
    return threads
