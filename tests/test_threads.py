"""Worker threads that could start (babasolver.threads)."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from babasolver.threads import started_pool


def test_a_pool_starts_every_thread_asked_for():
    pool, started = started_pool(3)
    assert pool is not None and started == 3
    assert len(pool._threads) == 3            # all up before any work is given
    assert sorted(pool.map(abs, [-1, -2, -3])) == [1, 2, 3]
    pool.shutdown()
    assert started_pool(0) == (None, 0)


@pytest.mark.skipif(not hasattr(__import__("resource"), "RLIMIT_AS"), reason="needs an address-space limit")
def test_under_a_small_address_space_a_pool_settles_for_fewer_threads():
    """Each thread's stack takes address space: under a cap a
    ThreadPoolExecutor fails at a submit in the middle of a search
    (RuntimeError: can't start new thread); started_pool gives fewer."""
    script = """
import resource, threading
from concurrent.futures import ThreadPoolExecutor
from babasolver.threads import started_pool
with open("/proc/self/status") as f:
    mapped = next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmSize:"))
resource.setrlimit(resource.RLIMIT_AS, (mapped + (48 << 20), resource.getrlimit(resource.RLIMIT_AS)[1]))
pool, started = started_pool(64)
assert pool is not None and 0 < started < 64, started
assert sorted(pool.map(abs, range(-10, 0))) == list(range(1, 11))
pool.shutdown()
barrier = threading.Barrier(65)
raw = ThreadPoolExecutor(64)
try:
    for _ in range(64):
        raw.submit(barrier.wait)
except RuntimeError as e:
    print("raw:", e)
    barrier.abort()
print("started:", started)
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert done.returncode == 0, done.stderr
    assert "raw: can't start new thread" in done.stdout and "started:" in done.stdout


@pytest.mark.skipif(not sys.platform.startswith("linux") or __import__("platform").libc_ver()[0] != "glibc",
                    reason="malloc arenas are glibc's")
def test_under_an_address_space_cap_the_threads_reserve_no_malloc_arenas():
    """Each thread's first malloc reserved 64 MiB of the cap for an arena
    of its own, room the default --memory had given the stores: a search
    under a 100 MB cap then stopped at 20 MB, now and then."""
    script = """
import resource
from babasolver.threads import started_pool
def mapped():
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmSize:"))
resource.setrlimit(resource.RLIMIT_AS, (mapped() + (1 << 30), resource.getrlimit(resource.RLIMIT_AS)[1]))
before = mapped()
pool, started = started_pool(2)
held = [f.result() for f in [pool.submit(bytearray, 1 << 16) for _ in range(8)]]    # malloc in each thread
print(started, (mapped() - before) >> 20)
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert done.returncode == 0, done.stderr
    started, grown_mb = map(int, done.stdout.split())
    assert started == 2
    assert grown_mb < 64, f"two threads mapped {grown_mb} MB: their stacks and malloc arenas of their own"


def test_a_ctrl_c_while_the_threads_start_leaves_none_waiting(monkeypatch):
    """A KeyboardInterrupt in the main thread's wait at the barrier must
    release the started threads: they are joined at exit, which would hang."""
    import threading

    from babasolver import threads

    real_wait = threading.Barrier.wait

    def interrupted(self, timeout=None):
        if threading.current_thread() is threading.main_thread():
            raise KeyboardInterrupt
        return real_wait(self, timeout)

    monkeypatch.setattr(threading.Barrier, "wait", interrupted)
    before = threading.active_count()
    with pytest.raises(KeyboardInterrupt):
        threads.started_pool(3)
    assert threading.active_count() == before      # every started thread has ended
