"""Worker threads that are known to have started.

A thread needs address space for its stack and, under glibc, for a malloc
arena of its own (64 MiB reserved on 64-bit Linux). Under a small
address-space limit (`prlimit --as`, or a bench worker's --memory-limit)
starting one fails with RuntimeError ("can't start new thread"), and a
ThreadPoolExecutor only tries when a task is submitted, in the middle of a
search. `started_pool` starts them all up front and settles for as many as
it could start, so that a search asked for two threads runs on one rather
than failing."""
from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Optional, Tuple

__all__ = ["started_pool"]


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
    while workers > 0:
        pool, started = _start(workers)
        if started == workers:
            return pool, workers
        # A failed submit leaves its task queued and the pool short of
        # threads, to try again at the next submit: start a smaller one.
        pool.shutdown()
        workers = started
    return None, 0
