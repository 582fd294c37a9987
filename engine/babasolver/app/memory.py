"""The machine's memory: how much there is, how much to give each worker,
and how much was used."""
from __future__ import annotations

import os
import resource
import sys
from typing import Optional, Tuple

from ..threads import address_space_cap

__all__ = ["total_memory_bytes", "available_memory_bytes", "default_memory_limit", "default_search_memory",
           "SEARCH_MEMORY_SHARE", "peak_rss_mb"]

#: Of the memory available when a search starts (or of the process's
#: address-space cap, if lower), what its visited states may hold: the rest
#: is the program, its other buffers and the machine's other work.
SEARCH_MEMORY_SHARE = 0.8


def _kib_field(path: str, field: str) -> Optional[int]:
    """A "Field: N kB" line of a /proc file, in bytes, or None."""
    try:
        with open(path, encoding="ascii") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def _meminfo(field: str) -> Optional[int]:
    """A field of /proc/meminfo in bytes, or None."""
    return _kib_field("/proc/meminfo", field)


def total_memory_bytes() -> Optional[int]:
    """The machine's RAM: MemTotal of /proc/meminfo, else sysconf; None if unknown."""
    total = _meminfo("MemTotal")
    if total is not None:
        return total
    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        return None


def available_memory_bytes() -> Optional[int]:
    """Memory the machine can give without swapping: MemAvailable of
    /proc/meminfo, else the RAM; None if unknown."""
    available = _meminfo("MemAvailable")
    return total_memory_bytes() if available is None else available


def default_search_memory() -> Optional[int]:
    """Bytes a search's stores may hold by default: SEARCH_MEMORY_SHARE of
    the memory available now, or of what this process's address-space cap
    (a bench worker's) leaves if that is lower; None if neither is known."""
    room = available_memory_bytes()
    cap = address_space_cap()
    if cap:
        # The cap counts the address space the program has already
        # mapped (the interpreter, the level's workspace), which at a cap
        # of 200 MB was most of it.
        cap = max(0, cap - _address_space_bytes())
        room = cap if room is None else min(room, cap)
    return None if room is None else int(room * SEARCH_MEMORY_SHARE)


def _address_space_bytes() -> int:
    """This process's mapped address space (VmSize), or 0 if unknown."""
    return _kib_field("/proc/self/status", "VmSize") or 0


def default_memory_limit(workers: int) -> Optional[int]:
    """Bytes of address space per worker: the RAM shared evenly, or None if unknown."""
    total = total_memory_bytes()
    return None if total is None else total // max(1, workers)


def peak_rss_mb() -> Tuple[float, float]:
    """(this process, largest finished child) peak resident set sizes in MB."""
    scale = 1024.0 if sys.platform != "darwin" else 1.0  # ru_maxrss: KiB on Linux, bytes on macOS
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale / 2**20
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * scale / 2**20
    return own, children
