"""How the ``baba`` command stops on a signal.

Ctrl-C (SIGINT), SIGTERM and SIGHUP each stop the command the way a Ctrl-C
does, through KeyboardInterrupt: the workers are stopped, partial files
removed and the rows so far printed, whichever signal came. Only the first
signal does so. The ones after it are ignored while that cleanup runs: a
second Ctrl-C a few milliseconds after the first used to raise inside the
cleanup itself (in a lock's release, in a garbage collector's callback),
printing a traceback or ending the process by SIGINT.

The handlers are the command's alone: the library leaves Python's own.
"""
import signal
from typing import List

__all__ = ["install", "exit_status", "message", "cause"]

#: Exit status after a Ctrl-C; after another signal n, 128 + n.
EXIT_INTERRUPTED = 128 + signal.SIGINT

_STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))
_received: List[int] = []


def _stop(signum: int, frame: object) -> None:
    if _received:                   # a handler put back by code that saved it before the first signal
        return
    _received.append(signum)
    for number in _STOP_SIGNALS:
        signal.signal(number, signal.SIG_IGN)
    raise KeyboardInterrupt


def install() -> None:
    """Stop on each of the signals, except one already ignored (``nohup``)."""
    for number in _STOP_SIGNALS:
        if signal.getsignal(number) is not signal.SIG_IGN:
            signal.signal(number, _stop)


def exit_status(status: int) -> int:
    """The command's exit status: an interrupted one says which signal stopped it."""
    if status == EXIT_INTERRUPTED and _received:
        return 128 + _received[0]
    return status


def cause() -> str:
    """What stopped the command: "Ctrl-C" unless another signal did."""
    if not _received or _received[0] == signal.SIGINT:
        return "Ctrl-C"
    return signal.Signals(_received[0]).name


def message() -> str:
    """What the command says as it stops on a signal."""
    return "interrupted" if cause() == "Ctrl-C" else f"stopped by {cause()}"
