"""Worker threads that are known to have started.

A thread needs address space for its stack and, under glibc, for a malloc
arena of its own (64 MiB reserved on 64-bit Linux). Under a small
address-space limit (`prlimit --as`, or a bench worker's --memory-limit)
starting one fails with RuntimeError ("can't start new thread"), and a
ThreadPoolExecutor only tries when a task is submitted, in the middle of a
search. `started_pool` starts them all up front and settles for as many as
it could start, so that a search asked for two threads runs on one rather
than failing.

Under such a limit the arenas are worse than a failed start: a thread
that starts while there is room may reserve its 64 MiB, which the
default --memory (drawn before the threads start) had counted as the
stores', and the search then stops at a fraction of what it was given
(one run in some ten of a test under a 100 MB cap, depending on the
timing). So under a limit every thread shares glibc's main arena. The
searches' threads hardly call malloc (the GIL serializes Python's, and
the core allocates only when a buffer doubles), so sharing one arena
costs them nothing measurable."""
from __future__ import annotations

import functools
import resource
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Optional, Tuple

__all__ = ["started_pool", "address_space_cap"]


#: mallopt's parameter for the most arenas glibc may create (malloc.h).
_M_ARENA_MAX = -8


@functools.lru_cache(maxsize=None)
def _share_one_malloc_arena() -> bool:
    """From now on, let no thread reserve a malloc arena of its own (glibc
    only; elsewhere, or where it fails, nothing changes). Whether it took
    effect."""
    if not sys.platform.startswith("linux"):
        return False
    import ctypes
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):       # a C library without mallopt
        return False
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    return bool(mallopt(_M_ARENA_MAX, 1))


def address_space_cap() -> int:
    """This process's soft address-space limit, or 0 if none."""
    try:
        cap = resource.getrlimit(resource.RLIMIT_AS)[0]
    except (AttributeError, ValueError, OSError):
        return 0
    return 0 if cap == resource.RLIM_INFINITY or cap < 0 else cap


def _start(workers: int) -> Tuple[ThreadPoolExecutor, int]:
    """A pool of `workers` threads and how many of them started. Every
    thread is held at a barrier until all are up, so that each submit
    must start a thread of its own."""
    pool = ThreadPoolExecutor(workers)
    barrier = threading.Barrier(workers + 1)
    started = 0
    try:
        for _ in range(workers):
            pool.submit(barrier.wait)
            started += 1
    except RuntimeError:
        barrier.abort()           # the started ones return (BrokenBarrierError, in their futures)
        return pool, started
    try:
        barrier.wait()
    except BaseException:         # Ctrl-C: no thread may wait at the barrier for ever (exit would hang)
        barrier.abort()
        pool.shutdown()
        raise
    return pool, started


def started_pool(workers: int) -> Tuple[Optional[ThreadPoolExecutor], int]:
    """A pool whose threads, at most `workers`, have all started, and their
    number; (None, 0) if not even one could start."""
    if address_space_cap():
        _share_one_malloc_arena()
    while workers > 0:
        pool, started = _start(workers)
        if started == workers:
            return pool, workers
        # A failed submit leaves its task queued and the pool short of
        # threads, to try again at the next submit: start a smaller one.
        pool.shutdown()
        workers = started
    return None, 0
