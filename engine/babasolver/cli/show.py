"""baba show: print a level, or replay a solution on it: animated, as
frames, as JSON records, or as pictures (PNG, GIF, HTML)."""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import List, Optional, Tuple

from .. import render, tiles
from ..app import limits
from ..app.replaying import FrameStream
from ..app.tasks import input_files, load_one
from ..errors import BabaError
from ..files import check_output
from ..game import Frame, rule_text
from ..level import KekeLevel, Level
from ..notation import Action, parse_solution
from ..rulesets import rule_set
from .common import (
    EXIT_NO, EXIT_OK, Subparsers, add_level_arguments, add_rules_argument, delay_seconds, json_utf8, path_argument,
    plural, safe, step_number, write_utf8,
)


def add_parser(subparsers: Subparsers) -> None:
    p = subparsers.add_parser(
        "show",
        help="print a level, or replay a solution on it step by step",
        description="Without SOLUTION, print a level's name, its grid in Keke map characters "
        "('.' empty, '_' border) and a legend of the characters used. With SOLUTION, replay it: "
        "animated on a terminal, one static frame per step otherwise (or with --frames), one JSON "
        "record per step with --json (see the README for the record). The replay stops at the first win, or at a turn the judge cannot play.",
    )
    add_level_arguments(p)
    p.add_argument(
        "solution",
        metavar="SOLUTION",
        nargs="?",
        default=None,
        help="moves to replay (Keke letters or arrow runs)",
    )
    p.add_argument("--frames", action="store_true", help="print a static frame per step, no animation")
    p.add_argument(
        "--json",
        action="store_true",
        help="print a JSON array with one record per turn, starting with the level as loaded: "
        "objects in creation order, texts in load order, rules, won, dead, illegal",
    )
    p.add_argument(
        "--delay",
        type=delay_seconds,
        metavar="S",
        default=0.25,
        help="seconds between animation steps, and per GIF or HTML frame, from 0 to"
             f" {limits.MAX_DELAY:g} (default: 0.25)",
    )
    p.add_argument("--png", metavar="OUT.png", default=None, type=path_argument,
                   help="draw one frame as a PNG: the level, or with SOLUTION its last frame (see --step)")
    p.add_argument("--step", type=step_number, metavar="K", default=None,
                   help="with --png: draw the frame after K steps instead")
    p.add_argument("--gif", metavar="OUT.gif", default=None, type=path_argument,
                   help="write the replay as an animated GIF, a frame per step (the last one holds)")
    p.add_argument("--html", metavar="OUT.html", default=None, type=path_argument,
                   help="write the replay as one self-contained HTML page to step through")
    setattr(p, "allow_intermixed", True)  # LEVEL [--id ID] SOLUTION in any order (cli._SubcommandParser)
    add_rules_argument(p)
    p.set_defaults(run=run)


def render_level(level: Level, entry: Optional[KekeLevel] = None) -> str:
    """The text ``baba show`` prints for a level."""
    lines = [safe(level.name)]
    info = f"{level.width}x{level.height}"
    if entry is not None and entry.author:
        info += f", by {safe(entry.author)}"
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
        lines.append(f"stored solution ({plural(len(entry.solution), 'move')}): {safe(entry.solution)}")
    return "\n".join(lines)


def render_grid(level: Level, frame: "Frame") -> str:
    """The grid of a position in Keke characters, one per cell: '.' empty,
    '_' border, otherwise the thing in the cell's object-layer slot, or, when
    the slot is empty, a hidden thing there (the last one listed)."""
    w, h = level.width, level.height
    top = [tiles.BORDER if tid == tiles.BORDER else tiles.EMPTY for tid in level.grid]
    visible = [False] * (w * h)
    things = [(t, x, y, hidden) for t, x, y, _facing, hidden in frame.objects] + list(frame.texts)
    for tid, x, y, hidden in things:
        if 0 <= x < w and 0 <= y < h and not visible[y * w + x]:
            top[y * w + x] = tid
            visible[y * w + x] = not hidden
    chars = ["." if tid == tiles.EMPTY else tiles.KEKE_CHARS[tid] for tid in top]
    return "\n".join("".join(chars[y * w:(y + 1) * w]) for y in range(h))


def _frame_text(level: Level, frame: "Frame", total: int) -> str:
    what = "start" if frame.action is None else Action(frame.action).word
    header = f"step {frame.turn} of {total}: {what}"
    if frame.illegal is not None:
        header += f"  ({rule_set(level.rules).refuser} cannot play this turn: {frame.illegal})"
    elif frame.won:
        header += "  (won)"
    elif frame.dead:
        header += "  (dead: nothing is YOU or MOVE)"
    rules = ", ".join(rule_text(left, right) for left, right in frame.rules) or "(none)"
    return f"{header}\n{render_grid(level, frame)}\nrules: {rules}"


def _picture_targets(args: argparse.Namespace) -> List[Tuple[str, str]]:
    """(option, path) of each picture asked for, each checked before any
    work: its folder exists, and what it names, if anything, is a regular
    file that the user may write and that is not one of the level's own
    (a rename would replace it whatever it is)."""
    inputs = input_files(args.level)
    targets = [(option, path) for option, path in (("--png", args.png), ("--gif", args.gif), ("--html", args.html))
               if path is not None]
    for option, path in targets:
        if not Path(path).parent.is_dir():
            raise BabaError(f"{path}: cannot write {option}: no such folder {Path(path).parent}")
        check_output(path, option, inputs)
    return targets


def _write_pictures(args: argparse.Namespace, level: Level, frames: FrameStream) -> None:
    """The --png, --gif and --html outputs of show, each drawn from the
    replay streamed afresh."""
    if args.step is not None and not 0 <= args.step < len(frames):
        raise BabaError(f"--step must be between 0 and {len(frames) - 1} (the steps played), got {args.step}")
    delay_ms = max(10, int(args.delay * 1000))
    if args.png:
        render.write_png(level, frames.frame(args.step if args.step is not None else len(frames) - 1), args.png)
    if args.gif:
        render.write_gif(level, frames, args.gif, delay_ms=delay_ms)
    if args.html:
        render.write_html(level, frames, args.html, title=level.name, delay_ms=delay_ms, count=len(frames))


def _print_json(frames: FrameStream, rules: str) -> None:
    """The JSON array of records, a record at a time."""
    write_utf8(b"[\n", flush=False)
    for k, frame in enumerate(frames):
        write_utf8((b",\n" if k else b"") + json_utf8({"rule_set": rules, **frame.record()}), flush=False)
    write_utf8(b"\n]\n")


def run(args: argparse.Namespace) -> int:
    level, entry = load_one(args.level, args.level_id, args.rules)
    if args.solution is None and not (args.json or args.png or args.gif or args.html):
        print(render_level(level, entry))
        return 0

    actions = parse_solution(args.solution) if args.solution is not None else []
    total = len(actions)
    pictures = _picture_targets(args)
    frames = FrameStream(level, actions)
    result = frames.result
    status = EXIT_OK if result.won or args.solution is None else EXIT_NO

    if pictures:
        _write_pictures(args, level, frames)
        if not args.json:
            print(result.summary(total) if args.solution is not None else safe(level.name))
            return status

    if args.json:
        _print_json(frames, level.rules)
        return status

    animate = not args.frames and sys.stdout.isatty()
    for k, frame in enumerate(frames):
        if animate:
            if k:
                time.sleep(args.delay)
            sys.stdout.write("\x1b[H\x1b[2J")
            print(safe(level.name))
            print(_frame_text(level, frame, total))
            sys.stdout.flush()
        else:
            if k:
                print()
            print(_frame_text(level, frame, total))
    if not animate:
        print()
    print(result.summary(total))
    return status
