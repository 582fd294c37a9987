"""What the commands share: argument types and options, the progress line,
safe printing, and the exit statuses."""
from __future__ import annotations

import argparse
import json
import shutil
import sys
from typing import TYPE_CHECKING, Any, Callable, List, Optional, Sequence, TextIO, Tuple, TypeVar

from ..app import limits
from ..errors import BabaError
from ..level import printable
from ..rulesets import DEFAULT_RULES, JUDGE_RULES, RULE_SETS
from ..solver import MODES, DEFAULT_MODE

PROG = "baba"

#: Exit statuses: the work is done; the answer is "no" (not solved, does
#: not win, a bug found); bad input; stopped by Ctrl-C.
EXIT_OK = 0
EXIT_NO = 1
EXIT_ERROR = 2
EXIT_INTERRUPTED = 130

if TYPE_CHECKING:
    Subparsers = argparse._SubParsersAction[argparse.ArgumentParser]
else:
    Subparsers = argparse._SubParsersAction


# --------------------------------------------------------------------------
# Argument types: each reads a value with app.limits, so that every command
# accepts the same values and words the same errors, and every number is
# finite and within the range its message names. An option that takes a
# number uses one of these, never a bare int or float.


T = TypeVar("T")


def _argument_type(parse: Callable[[str], T], name: str) -> Callable[[str], T]:
    def read(text: str) -> T:
        try:
            return parse(text)
        except ValueError as e:
            raise argparse.ArgumentTypeError(str(e)) from None
    read.__name__ = name
    return read


seconds = _argument_type(limits.parse_seconds, "seconds")
state_count = _argument_type(limits.parse_state_count, "state count")
thread_count = _argument_type(limits.parse_threads, "threads")
job_count = _argument_type(limits.parse_jobs, "jobs")
gigabytes = _argument_type(limits.parse_gigabytes, "GB")
search_gigabytes = _argument_type(limits.parse_search_gigabytes, "GB")
delay_seconds = _argument_type(limits.parse_delay, "seconds")
step_number = _argument_type(limits.parse_step, "step")
worker_count = _argument_type(limits.parse_workers, "workers")


def path_argument(text: str) -> str:
    """A path as given. An empty one is a usage error: to the system it
    names the current folder, which nobody means by it."""
    if not text:
        raise argparse.ArgumentTypeError("expected a path, got an empty string")
    return text


def add_level_arguments(parser: argparse.ArgumentParser) -> None:
    """LEVEL and --id ID (args.level, args.level_id)."""
    parser.add_argument(
        "level", metavar="LEVEL", type=path_argument,
        help="a level folder (tiles.txt + content.txt) or a Keke .json level set (then give --id)",
    )
    parser.add_argument("--id", dest="level_id", metavar="ID", default=None,
                        help="level id inside a Keke .json level set")


def add_limit_arguments(parser: argparse.ArgumentParser, many_default: bool) -> None:
    """--timeout and --max-states, alike for every command."""
    shown = f"{limits.MANY_DEFAULT_TIMEOUT:g}" if many_default else "none"
    many = f"; with many levels: {limits.MANY_DEFAULT_TIMEOUT:g}" if not many_default else ""
    parser.add_argument("--timeout", type=seconds, metavar="S",
                        default=limits.MANY_DEFAULT_TIMEOUT if many_default else None,
                        help=f"stop each level's search after S seconds, at most {limits.MAX_SECONDS:,.0f}"
                             f" (default: {shown}{many})")
    parser.add_argument("--max-states", type=state_count, default=limits.DEFAULT_MAX_STATES, metavar="N",
                        help="stop once N distinct states are stored, e.g. 2e7 (default: no limit but"
                             f" --memory; at most the store's {limits.STORE_CAPACITY:_})")
    parser.add_argument("--memory", type=search_gigabytes, default=None, metavar="GB",
                        help="stop once the searches' visited states hold GB gigabytes, before the"
                             f" system runs out (default: {limits.SEARCH_MEMORY_SHARE * 100:.0f}%% of the memory"
                             " available when the search starts, or of a bench worker's --memory-limit;"
                             f" from {limits.MIN_SEARCH_GB:g} to the machine's memory)")


def add_mode_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--mode", choices=MODES, default=DEFAULT_MODE,
        help="both: breadth-first search, and where it does not finish quickly, a satisficing search "
        "for a first solution that breadth-first search then proves shortest or bounds, within one "
        "budget; shortest: breadth-first search only; fast: stop at the first solution of the "
        f"satisficing search, shortened (default: {DEFAULT_MODE})",
    )


def add_judge_argument(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument("--judge", metavar="DIR", default=None, type=path_argument,
                        help=f"also replay {what} in the Keke competition's judge (DIR holds its"
                             f" simulation.js, e.g. ../shared/keke-reference), with node; only with"
                             f" --rules {JUDGE_RULES}, the rules it plays")


def add_rules_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--rules", choices=tuple(RULE_SETS), default=DEFAULT_RULES,
        help="the rule set the level is played by: " + "; ".join(
            f"{r.name}: {r.summary}" for r in RULE_SETS.values()) + f" (default: {DEFAULT_RULES})")


def check_judge_rules(args: argparse.Namespace) -> None:
    """--judge replays in the Keke judge, which plays one rule set only."""
    if getattr(args, "judge", None) is not None and args.rules != JUDGE_RULES:
        raise BabaError(f"--judge plays the {JUDGE_RULES} rules; it cannot judge --rules {args.rules}")


# --------------------------------------------------------------------------
# Output


def safe(text: object) -> str:
    """A name, id or note from a level file, printable on any terminal:
    control characters and lone surrogates escaped."""
    return printable(str(text))


def dump_json(value: Any) -> None:
    """`value` as one line of UTF-8 JSON, whatever stdout's encoding: under
    PYTHONIOENCODING=ascii a name came out as "\\xe9", which is no JSON.
    A file name read under a narrow locale (its bytes as surrogates) is
    given back its bytes when they are UTF-8; other text no UTF-8 can hold
    is escaped as JSON escapes it."""
    write_utf8(json_utf8(value) + b"\n")


def json_utf8(value: Any) -> bytes:
    """`value` as UTF-8 JSON (see dump_json)."""
    try:
        data = json.dumps(value, ensure_ascii=False).encode("utf-8", "surrogateescape")
        data.decode("utf-8")
        return data
    except UnicodeError:
        return json.dumps(value).encode("ascii")


def write_utf8(data: bytes, flush: bool = True) -> None:
    """UTF-8 bytes onto stdout, past its text encoding (flushed, so that a
    failed write is raised here, not at the exit)."""
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is None:                  # a stream of text only (a test's, say)
        sys.stdout.write(data.decode("utf-8"))
    else:
        sys.stdout.flush()
        buffer.write(data)
    if flush:
        sys.stdout.flush()              # a text stream flushes its buffer too


def best_so_far(best: Optional[int]) -> str:
    """The satisficing searches' progress: the shortest solution yet."""
    return "no solution yet" if best is None else f"best {plural(best, 'move')} so far"


def count(n: int) -> str:
    return f"{n:,}"


def plural(n: int, word: str) -> str:
    """`n` and `word`, with an s unless n is 1: "1 move", "1,024 states"."""
    return f"{n:,} {word}" + ("" if n == 1 else "s")


def print_rows(rows: Sequence[Tuple[str, str]]) -> None:
    """'label: value' lines, the values aligned."""
    width = max(len(label) for label, _ in rows) + 1
    for label, value in rows:
        print(f"{label + ':':<{width}} {value}")


def aligned(rows: Sequence[Sequence[str]], right: Sequence[bool]) -> List[str]:
    """Table lines, each column padded to its widest cell."""
    widths = [max(len(row[c]) for row in rows) for c in range(len(right))]
    return ["  ".join(cell.rjust(w) if r else cell.ljust(w) for cell, w, r in zip(row, widths, right)).rstrip()
            for row in rows]


class StatusLine:
    """Progress on a terminal: a transient line redrawn in place with '\\r',
    and lasting lines printed above it. Prints nothing when the stream is
    not a terminal."""

    def __init__(self, stream: Optional[TextIO] = None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        try:
            self.enabled = bool(self.stream.isatty())
        except (AttributeError, ValueError):
            self.enabled = False
        self.shown = False

    def update(self, text: str) -> None:
        if not self.enabled:
            return
        width = shutil.get_terminal_size((80, 24)).columns
        if width > 1 and len(text) > width - 1:
            text = text[: width - 1]
        self.stream.write("\r" + text + "\x1b[K")
        self.stream.flush()
        self.shown = True

    def clear(self) -> None:
        if self.shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self.shown = False

    def line(self, text: str) -> None:
        """A line that stays."""
        if not self.enabled:
            return
        self.clear()
        self.stream.write(text + "\n")
        self.stream.flush()
