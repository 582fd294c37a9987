"""How the program stops on a signal.

Ctrl-C (SIGINT), SIGTERM and SIGHUP each stop the ``baba`` command the way
a Ctrl-C does, through KeyboardInterrupt: the workers are stopped, partial
files removed and the rows so far printed, whichever signal came
(`install`). Only the first signal does so. The ones after it do nothing
while that clean-up runs: a second Ctrl-C a few milliseconds after the
first used to raise inside the clean-up itself (in a lock's release, in a
garbage collector's callback), printing a traceback or ending the process
by SIGINT. (They are not set to be ignored: a signal already on its way
would then be reported as "ignored due to race condition".)

Some code must not be interrupted half way, as a KeyboardInterrupt raised
inside the standard library's locks can leave one held for ever:
`deferred` notes a stop signal there instead, for the code to act on at a
point of its choosing. It works for the library too, where Ctrl-C is
Python's own.
"""
import contextlib
import os
import signal
import sys
import threading
from typing import Iterator, List

__all__ = ["install", "deferred", "Deferral", "exit_status", "message", "cause"]

#: Exit status after a Ctrl-C; after another signal n, 128 + n.
EXIT_INTERRUPTED = 128 + signal.SIGINT

_STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))
_received: List[int] = []       # the first stop signal, once it came
_deferring: List[bool] = []     # a `deferred` block is open (its nesting)


def _stop(signum: int, frame: object) -> None:
    if _received:
        return
    _received.append(signum)
    if not _deferring:
        raise KeyboardInterrupt


def install() -> None:
    """Stop on each of the signals, except one already ignored (``nohup``)."""
    for number in _STOP_SIGNALS:
        if signal.getsignal(number) is not signal.SIG_IGN:
            signal.signal(number, _stop)


class Deferral:
    """What a `deferred` block knows of the stop signals that came."""

    def __init__(self) -> None:
        self.noted = False              # Python's own Ctrl-C handler was swapped, and a Ctrl-C came
        self.acted = False
        self._first = len(_received)

    def requested(self) -> bool:
        return self.noted or len(_received) > self._first

    def act(self) -> None:
        """Raise KeyboardInterrupt if a stop signal came."""
        if self.requested():
            self.acted = True
            raise KeyboardInterrupt


@contextlib.contextmanager
def deferred() -> Iterator[Deferral]:
    """A block where a stop signal is noted, not raised: the block calls
    `act()` where it can stop. One noted and not acted on is raised as the
    block ends (after the block's last statement has run). Signals reach
    Python in the main thread only: elsewhere the block changes nothing."""
    state = Deferral()
    if threading.current_thread() is not threading.main_thread():
        yield state
        return

    def note(signum: int, frame: object) -> None:
        state.noted = True

    # The command's handler defers through `_deferring`; Python's own
    # Ctrl-C handler (the library's case) is swapped for `note`.
    swapped = signal.getsignal(signal.SIGINT) is signal.default_int_handler
    if swapped:
        signal.signal(signal.SIGINT, note)
    _deferring.append(True)
    try:
        yield state
    finally:
        _deferring.pop()
        if swapped:
            signal.signal(signal.SIGINT, signal.default_int_handler)
    if state.requested() and not state.acted and not _deferring:
        raise KeyboardInterrupt


def exit_status(status: int) -> int:
    """The command's exit status: an interrupted one says which signal
    stopped it. Its handlers change for Python's exit. With no stop signal
    so far, the output is flushed and the first stop signal from here on
    ends the process at once, with 128 + its number: `_stop` would raise
    inside an atexit call (a thread pool's join, logging's shutdown),
    which Python prints as a traceback before it exits 0. After a stop
    signal, the others are ignored from here on: Python's exit gives a
    signal with a handler its default action back, and a second Ctrl-C
    then ended the process by SIGINT, not with this status. (Set now, as
    the program ends, a signal already on its way can no longer find the
    handler gone: the exit clears it.)"""
    if not _received:
        _flush_output()
    for number in _STOP_SIGNALS:
        if signal.getsignal(number) is _stop:
            signal.signal(number, signal.SIG_IGN if _received else _exit_now)
    if status == EXIT_INTERRUPTED and _received:
        return 128 + _received[0]
    return status


def _flush_output() -> None:
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError, AttributeError):    # closed, a broken pipe, or None
            stream.flush()


def _exit_now(signum: int, frame: object) -> None:
    os._exit(128 + signum)


def cause() -> str:
    """What stopped the command: "Ctrl-C" unless another signal did."""
    if not _received or _received[0] == signal.SIGINT:
        return "Ctrl-C"
    return signal.Signals(_received[0]).name


def message() -> str:
    """What the command says as it stops on a signal."""
    return "interrupted" if cause() == "Ctrl-C" else f"stopped by {cause()}"
