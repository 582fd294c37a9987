"""The limits of a search, read and checked in one place.

`solve`, `solve --all`, `bench` and the Python API take the same limits
with the same defaults and the same messages. Each `parse_*` reads a
command-line value and raises ValueError with the reason; `Limits` checks
values given from Python and raises BabaError.
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import Optional

from .._core import STORE_CAPACITY
from ..errors import BabaError
from ..solver import DEFAULT_MAX_STATES, DEFAULT_MODE, MODES, default_threads

__all__ = [
    "Limits", "DEFAULT_MAX_STATES", "DEFAULT_MODE", "MODES", "MANY_DEFAULT_TIMEOUT", "MIN_WORKER_GB",
    "STORE_CAPACITY", "default_threads", "parse_seconds", "parse_state_count", "parse_threads",
    "parse_jobs", "parse_gigabytes",
]

#: The time per level when many levels are run (`solve --all`, `bench`).
MANY_DEFAULT_TIMEOUT = 10.0
#: The least address space a worker process needs to start Python and the core.
MIN_WORKER_GB = 0.25


def _positive(text: str, unit: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"expected a number of {unit}, got {text!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise ValueError(f"must be more than 0 {unit}, got {text!r}")
    return value


def parse_seconds(text: str) -> float:
    """A time limit: a number of seconds, more than 0."""
    return _positive(text, "seconds")


def parse_state_count(text: str) -> int:
    """A state limit: '20000000', '20_000_000' or '2e7', from 1 to the
    store's capacity."""
    try:
        value = int(text)
    except ValueError:
        try:
            number = float(text)
        except ValueError:
            raise ValueError(f"expected a whole number, got {text!r}") from None
        if not math.isfinite(number) or number != int(number):
            raise ValueError(f"expected a whole number, got {text!r}") from None
        value = int(number)
    _check_states(value, text)
    return value


def _check_states(value: int, shown: object) -> None:
    if value < 1:
        raise ValueError(f"must be at least 1, got {shown}")
    if value > STORE_CAPACITY:
        raise ValueError(f"the visited store holds at most {STORE_CAPACITY:,} states, got {shown}")


def _whole(text: str, least: int, meaning: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise ValueError(f"expected a whole number, got {text!r}") from None
    if value < least:
        raise ValueError(f"must be at least {meaning}, got {text!r}")
    return value


def parse_threads(text: str) -> int:
    """Threads per search: a whole number, at least 1."""
    return _whole(text, 1, "1")


def parse_jobs(text: str) -> int:
    """Levels at once: a whole number, 0 meaning one per CPU."""
    return _whole(text, 0, "1 (or 0 for every CPU)") or (os.cpu_count() or 1)


def parse_gigabytes(text: str) -> float:
    """An address-space limit per worker, in GB: at least MIN_WORKER_GB."""
    value = _positive(text, "GB")
    if value < MIN_WORKER_GB:
        raise ValueError(f"{value:g} GB is too small for a worker process to start"
                         f" (at least {MIN_WORKER_GB:g} GB)")
    return value


@dataclass(frozen=True)
class Limits:
    """The budget of one level's search: seconds (None: no time limit) and
    distinct states stored."""

    timeout: Optional[float] = None
    max_states: int = DEFAULT_MAX_STATES

    def __post_init__(self) -> None:
        if self.timeout is not None:
            if isinstance(self.timeout, bool) or not isinstance(self.timeout, (int, float)):
                raise BabaError(f"timeout must be a number of seconds, got {self.timeout!r}")
            if not math.isfinite(self.timeout) or self.timeout <= 0:
                raise BabaError(f"timeout must be more than 0 seconds, got {self.timeout!r}")
        if isinstance(self.max_states, bool) or not isinstance(self.max_states, int):
            raise BabaError(f"max_states must be a whole number, got {self.max_states!r}")
        try:
            _check_states(self.max_states, self.max_states)
        except ValueError as e:
            raise BabaError(f"max_states {e}") from None

    @classmethod
    def for_many(cls, timeout: Optional[float] = None, max_states: Optional[int] = None) -> "Limits":
        """The limits per level of a run over many levels: 10 s by default."""
        return cls(MANY_DEFAULT_TIMEOUT if timeout is None else timeout,
                   DEFAULT_MAX_STATES if max_states is None else max_states)


def check_mode(mode: str) -> str:
    if mode not in MODES:
        raise BabaError(f"mode must be one of {', '.join(MODES)}, got {mode!r}")
    return mode


def check_threads(threads: Optional[int]) -> int:
    """`threads`, or every CPU this process may use when None."""
    if threads is None:
        return default_threads()
    if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
        raise BabaError(f"threads must be a whole number of at least 1, got {threads!r}")
    return threads
