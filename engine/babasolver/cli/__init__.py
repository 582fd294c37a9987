"""The ``baba`` command line: a package of thin commands.

Each command is a module with ``add_parser(subparsers)`` and ``run(args) ->
exit status``; it parses, calls the application layer (:mod:`babasolver.app`)
and formats. What they share is in :mod:`.common`. :func:`main` turns every
:class:`~babasolver.errors.BabaError` and :class:`OSError` into one line
``baba: error: <message>`` on stderr and exit status 2; argparse's usage
errors exit with 2 as well.
"""
from __future__ import annotations

import argparse
import contextlib
import errno
import os
import sys
from typing import Any, NoReturn, Optional, Sequence

from .. import __version__, stopping
from ..errors import BabaError, file_error
from . import bench, check, show, solve
from .common import EXIT_ERROR, EXIT_INTERRUPTED, EXIT_NO, PROG, safe

__all__ = ["main", "build_parser", "PROG"]

COMMANDS = (solve, check, show, bench)


class _UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    """Usage errors as one line, like every other error."""

    def error(self, message: str) -> "NoReturn":  # type: ignore[override]
        raise _UsageError(f"{message} (run '{self.prog} --help' for usage)")

    def _print_message(self, message: str, file: Any = None) -> None:
        # argparse drops a write error: `--help > /dev/full` printed
        # nothing and exited 0. The command's handling names it instead.
        if message:
            (file or sys.stderr).write(message)


class _SubcommandParser(_Parser):
    """A subcommand's parser. With ``allow_intermixed = True`` set on it, it
    reads options and positionals in any order, so that ``check LEVEL --id 3
    SOLUTION`` works (plain argparse gives up on the optional SOLUTION once
    ``--id`` sits between it and LEVEL)."""

    allow_intermixed = False
    _intermixing = False

    def parse_known_args(self, args=None, namespace=None):  # type: ignore[override]
        # After "--" every argument is positional, which the intermixed
        # parse gets wrong: `show -- --id` read --id as the option.
        if not self.allow_intermixed or self._intermixing or (args is not None and "--" in args):
            return super().parse_known_args(args, namespace)
        self._intermixing = True
        try:
            return self.parse_known_intermixed_args(args, namespace)
        finally:
            self._intermixing = False


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog=PROG,
        description="Shortest solutions of Baba Is You levels, played by the Keke AI Competition judge's "
                    "rules (--rules keke, the default) or the commercial game's (--rules baba).",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_SubcommandParser)
    for command in COMMANDS:
        command.add_parser(subparsers)
    return parser


def _error(message: str) -> None:
    print(f"{PROG}: error: {safe(' '.join(str(message).splitlines()))}", file=sys.stderr)


def _os_error_message(e: OSError) -> str:
    return file_error(e) or str(e) or type(e).__name__


def _silence_stdout() -> None:
    """After a broken pipe, point stdout at /dev/null so the exit flush is quiet."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


class _Closed:
    """A closed standard output: writing fails as it does on a closed descriptor."""

    def write(self, text: str) -> int:
        raise OSError(errno.EBADF, os.strerror(errno.EBADF))

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False

    def fileno(self) -> int:
        raise OSError(errno.EBADF, os.strerror(errno.EBADF))


class _StdoutNamed:
    """sys.stdout, whose write errors name it: `baba solve lv > /dev/full`
    said only "[Errno 28] No space left on device"."""

    NAME = "standard output"

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def write(self, text: Any) -> int:
        try:
            return self._stream.write(text)
        except OSError as e:
            raise self._named(e)

    def flush(self) -> None:
        try:
            self._stream.flush()
        except OSError as e:
            raise self._named(e)

    @property
    def buffer(self) -> "_StdoutNamed":
        """Its bytes (`dump_json` writes UTF-8 there), named as well."""
        return _StdoutNamed(self._stream.buffer)  # type: ignore[attr-defined]

    def _named(self, e: OSError) -> OSError:
        if e.filename is None and not isinstance(e, BrokenPipeError):
            e.filename = self.NAME
        return e

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def _tolerate_narrow_encodings() -> None:
    """Arrows and other non-ASCII output must not crash on a terminal whose
    encoding lacks them, nor a lone surrogate from a level file on any:
    escape what cannot be encoded instead."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(AttributeError, ValueError, OSError):
            stream.reconfigure(errors="backslashreplace")  # type: ignore[union-attr]


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run the ``baba`` command line; returns the exit status."""
    stdout, stderr = sys.stdout, sys.stderr
    # Closed (`>&-`), Python gives None: print() to it did nothing, and
    # bench failed on an AttributeError. Output to a closed stdout fails as
    # a shell's does; errors to a closed stderr (usage errors included) are
    # lost, not printed on stdout (print's stand-in for a None file), amid
    # the JSON.
    sys.stdout = _StdoutNamed(stdout if stdout is not None else _Closed())  # type: ignore[assignment]
    if stderr is None:
        sys.stderr = open(os.devnull, "w", encoding="utf-8")
    try:
        return _main(argv)
    finally:
        if sys.stderr is not stderr:
            sys.stderr.close()
        sys.stdout, sys.stderr = stdout, stderr


def _run(argv: Optional[Sequence[str]]) -> int:
    """Parse and run the command; its exit status."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except _UsageError as e:
        _error(str(e))
        return EXIT_ERROR
    except SystemExit as e:  # --help / --version
        return e.code if isinstance(e.code, int) else 0
    run = getattr(args, "run", None)
    if run is None:
        _error(f"choose a command: {', '.join(c.__name__.rsplit('.', 1)[-1] for c in COMMANDS)}"
               f" (run '{PROG} --help' for usage)")
        return EXIT_ERROR
    try:
        return int(run(args) or 0)
    except MemoryError as e:
        level = getattr(args, "level", None)        # bench and solve --all name theirs in their rows
        if level is not None and not getattr(args, "all", False):
            level_id = getattr(args, "level_id", None)
            e.level = f"{level}#{level_id}" if level_id is not None else str(level)  # type: ignore[attr-defined]
        raise


def _main(argv: Optional[Sequence[str]]) -> int:
    _tolerate_narrow_encodings()
    try:
        status = _run(argv)
        # A short output (--help to /dev/full) is still buffered: its
        # write error shows here, where at exit it was lost and the status 0.
        sys.stdout.flush()
        return status
    except BabaError as e:
        _error(str(e))
        return EXIT_ERROR
    except BrokenPipeError:
        # The reader went away (e.g. `baba ... | head`): stop quietly.
        _silence_stdout()
        return EXIT_NO
    except OSError as e:
        if e.filename == _StdoutNamed.NAME:
            _silence_stdout()
        _error(_os_error_message(e))
        return EXIT_ERROR
    except MemoryError as e:
        # Outside a search, which reports its own memory limit: a huge
        # level's workspace, say.
        what = f"out of memory ({e})" if str(e) else "out of memory"
        level = getattr(e, "level", None)
        _error(f"{level}: {what}" if level else what)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print(f"{PROG}: {stopping.message()}", file=sys.stderr)
        return EXIT_INTERRUPTED
