"""The ``baba`` command line.

Each subcommand is two functions in this module:

* ``add_<name>_parser(subparsers)``, decorated with :func:`command`, which
  adds the subcommand's parser and sets ``run=<function>`` as its default;
* the function that runs it, ``cmd_<name>(args) -> int`` (exit status).

To add a command, write those two functions; :func:`build_parser` calls
every registered ``add_*_parser`` in registration order. Commands that take a
level use :func:`add_level_arguments` and :func:`level_from_args`, so that
they all accept ``LEVEL [--id ID]`` the same way.

:func:`main` turns every :class:`~babasolver.errors.BabaError` and
:class:`OSError` into one line ``baba: error: <message>`` on stderr and exit
status 2; argparse's usage errors exit with 2 as well.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Callable, List, Optional, Sequence

from . import __version__, tiles
from .errors import BabaError
from .level import KekeLevel, Level, load_level, read_keke_level

__all__ = ["main", "build_parser", "command", "add_level_arguments", "level_from_args", "PROG"]

PROG = "baba"

#: Exit status of errors (bad input, missing files, usage).
EXIT_ERROR = 2

ParserSetup = Callable[["argparse._SubParsersAction[argparse.ArgumentParser]"], None]

#: The registered ``add_<name>_parser`` functions, in registration order.
COMMANDS: List[ParserSetup] = []


def command(setup: ParserSetup) -> ParserSetup:
    """Register a function that adds one subcommand's parser."""
    COMMANDS.append(setup)
    return setup


# --------------------------------------------------------------------------
# Shared argument helpers


def add_level_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``LEVEL`` and ``--id ID`` (stored as ``args.level``, ``args.level_id``)."""
    parser.add_argument(
        "level",
        metavar="LEVEL",
        help="a level folder (tiles.txt + content.txt) or a Keke .json level set (then give --id)",
    )
    parser.add_argument(
        "--id",
        dest="level_id",
        metavar="ID",
        default=None,
        help="level id inside a Keke .json level set",
    )


def level_from_args(args: argparse.Namespace) -> Level:
    """The level named by ``args.level`` / ``args.level_id``."""
    return load_level(args.level, args.level_id)


def keke_level_from_args(args: argparse.Namespace) -> Optional[KekeLevel]:
    """The Keke set entry (with author and stored solution) if LEVEL is a .json
    set and ``--id`` is given; ``None`` for a level folder."""
    path = Path(args.level)
    if args.level_id is not None and path.is_file() and path.suffix.lower() == ".json":
        return read_keke_level(path, args.level_id)
    return None


# --------------------------------------------------------------------------
# baba show


@command
def add_show_parser(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    p = subparsers.add_parser(
        "show",
        help="print a level as Keke map characters with a legend",
        description="Print a level's name, its grid in Keke map characters ('.' empty, '_' border) "
        "and a legend of the characters used.",
    )
    add_level_arguments(p)
    p.set_defaults(run=cmd_show)


def render_level(level: Level, entry: Optional[KekeLevel] = None) -> str:
    """The text ``baba show`` prints for a level."""
    lines = [level.name]
    info = f"{level.width}x{level.height}"
    if entry is not None and entry.author:
        info += f", by {entry.author}"
    lines.append(info)
    lines.append("")
    lines.append(level.to_text())
    lines.append("")
    lines.append("legend:")
    for tid in level.tiles_used():
        ch = "." if tid == tiles.EMPTY else tiles.KEKE_CHARS[tid]
        lines.append(f"  {ch} = {tiles.NAMES[tid]}")
    if entry is not None and entry.solution:
        lines.append("")
        lines.append(f"stored solution ({len(entry.solution)} moves): {entry.solution}")
    return "\n".join(lines)


def cmd_show(args: argparse.Namespace) -> int:
    entry = keke_level_from_args(args)
    level = entry.level if entry is not None else level_from_args(args)
    print(render_level(level, entry))
    return 0


# --------------------------------------------------------------------------
# The parser and main


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Shortest solutions of Baba Is You levels (Keke AI Competition rules).",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for setup in COMMANDS:
        setup(subparsers)
    return parser


def _error(message: str) -> None:
    message = " ".join(str(message).splitlines())
    print(f"{PROG}: error: {message}", file=sys.stderr)


def _os_error_message(e: OSError) -> str:
    if e.filename is not None and e.strerror:
        return f"{e.filename}: {e.strerror}"
    return str(e) or type(e).__name__


def _silence_stdout() -> None:
    """After a broken pipe, point stdout at /dev/null so the exit flush is quiet."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run the ``baba`` command line; returns the exit status."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:  # usage error (2), or --help / --version (0)
        code = e.code
        if code is None:
            return 0
        return code if isinstance(code, int) else EXIT_ERROR
    run = getattr(args, "run", None)
    if run is None:
        parser.print_usage(sys.stderr)
        _error("choose a command")
        return EXIT_ERROR
    try:
        return int(run(args) or 0)
    except BabaError as e:
        _error(str(e))
        return EXIT_ERROR
    except BrokenPipeError:
        # The reader went away (e.g. `baba ... | head`): stop quietly.
        _silence_stdout()
        return 1
    except OSError as e:
        _error(_os_error_message(e))
        return EXIT_ERROR
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
