"""The machine's memory: how much there is, how much to give each worker,
and how much was used."""
from __future__ import annotations

import os
import resource
import sys
from typing import Optional, Tuple

__all__ = ["total_memory_bytes", "default_memory_limit", "peak_rss_mb"]


def total_memory_bytes() -> Optional[int]:
    """The machine's RAM: MemTotal of /proc/meminfo, else sysconf; None if unknown."""
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        return None


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
