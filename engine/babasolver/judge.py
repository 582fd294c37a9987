"""Replay solutions in the Keke competition's judge, with node.

The judge is the competition's reference simulator, `simulation.js`; a
solution counts only if it accepts it. `Judge(folder)` finds node and the
judge in `folder` (the competition's `Keke_JS/js`, or
`../shared/keke-reference`), and plays batches of levels in one node process
through our driver, `judge_driver.js`, which also notes the turns whose
destruction the judge cannot book (RULES.md, "Turns the judge cannot play").
Nothing of the judge is copied here: it is loaded from the user's folder.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

from . import tiles
from .errors import BabaError
from .game import ObjectView, TextView, ending
from .level import Level
from .notation import Facing, to_keke

__all__ = ["Judge", "JudgeError", "Verdict", "JudgeFrame", "keke_map"]

DRIVER = Path(__file__).with_name("judge_driver.js")
OBJECT_BY_WORD = {tiles.WORDS[t]: t for t in range(len(tiles.WORDS)) if (tiles.OBJECT_MASK >> t) & 1}
TEXT_BY_WORD = {tiles.WORDS[t]: t for t in range(len(tiles.WORDS)) if (tiles.TEXT_MASK >> t) & 1}


class JudgeError(BabaError):
    """node or the judge cannot be run; the message is one line."""


@dataclass
class JudgeFrame:
    """The judge's view after a turn, in the engine's terms (tile ids, the
    level's own coordinates)."""

    objects: List[ObjectView]
    texts: List[TextView]
    rules: List[Tuple[int, int]]
    won: bool
    illegal: bool                  # a turn the judge cannot play (the engine's `illegal`)


@dataclass
class Verdict:
    """How the judge played one action sequence."""

    won_at: Optional[int]          # the first turn that wins
    illegal_at: Optional[int]      # the first turn the judge cannot play
    played: int
    frames: List[JudgeFrame] = field(default_factory=list)

    def accepts(self, moves: int) -> bool:
        """The judge accepts these `moves` as a solution: it wins on the
        last move and never before, through no turn it cannot play."""
        return self.illegal_at is None and self.won_at == moves

    def describe(self, moves: int) -> str:
        if self.accepts(moves):
            return "accepted"
        end = ending(self.won_at, self.illegal_at)
        if self.illegal_at is not None:
            return f"rejected: {end} in the judge: it cannot play that turn"
        if self.won_at is not None:
            return f"rejected: {end} in the judge, before the last move"
        return f"rejected: does not win in the judge ({self.played} turns played)"


def keke_map(level: Level) -> Tuple[str, int]:
    """The level as a Keke map the judge can load, and how far its cells
    moved: the judge needs a ring of border, so a level without one gets it
    (offset 1)."""
    w, h = level.width, level.height
    grid = level.grid
    ringed = w >= 3 and h >= 3 and all(
        grid[i] == tiles.BORDER for i in list(range(w)) + list(range((h - 1) * w, h * w))
        + [y * w for y in range(h)] + [y * w + w - 1 for y in range(h)])
    rows = ["".join(tiles.KEKE_CHARS[t] for t in grid[y * w:(y + 1) * w]) for y in range(h)]
    if ringed:
        return "\n".join(rows), 0
    edge = "_" * (w + 2)
    return "\n".join([edge] + ["_" + row + "_" for row in rows] + [edge]), 1


def _frame(data: Dict[str, Any], offset: int) -> JudgeFrame:
    objects = [(OBJECT_BY_WORD[name], x - offset, y - offset, int(Facing.from_word(facing)), hidden)
               for name, x, y, facing, hidden in data["objects"]]
    texts = [(TEXT_BY_WORD[name], x - offset, y - offset, hidden) for name, x, y, hidden in data["texts"]]
    rules = []
    for rule in data["rules"]:
        left, _is, right = rule.split(" ")
        rules.append((TEXT_BY_WORD[left], TEXT_BY_WORD[right]))
    return JudgeFrame(objects, texts, rules, data["won"], data["illegal"])


def _node_error(stderr: str) -> str:
    """The line of node's stderr that names the error ("Error: write
    ENOBUFS"), else its last line: after an uncaught exception the last
    line is only node's version."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    for line in lines:
        if re.match(r"[A-Za-z]*(Error|Exception)\b.*:", line):
            return line
    return lines[-1] if lines else "no message"


class Judge:
    """The judge in `folder`, run by node."""

    def __init__(self, folder: "os.PathLike[str] | str", node: Optional[str] = None) -> None:
        self.folder = Path(folder)
        found = node or shutil.which("node")
        if found is None:
            raise JudgeError("--judge needs Node.js: no 'node' command on PATH")
        self.node: str = found
        if not (self.folder / "simulation.js").is_file():
            raise JudgeError(f"{self.folder}: no simulation.js (the Keke judge) in this folder")

    def run(self, jobs: Sequence[Dict[str, Any]], timeout: float = 3600.0) -> List[Dict[str, Any]]:
        """Play raw jobs ({"ascii", "actions", "frames"}) in one node process."""
        if not jobs:
            return []
        text = "".join(json.dumps(job) + "\n" for job in jobs)
        try:
            done = subprocess.run([self.node, str(DRIVER), str(self.folder)], input=text,
                                  capture_output=True, text=True, timeout=timeout)
        except (OSError, subprocess.TimeoutExpired) as e:
            raise JudgeError(f"node could not play the judge: {e}") from None
        if done.returncode != 0:
            raise JudgeError(f"the judge in {self.folder} failed (exit {done.returncode}): {_node_error(done.stderr)}")
        lines = done.stdout.splitlines()
        if len(lines) != len(jobs):
            raise JudgeError(f"the judge answered {len(lines)} of {len(jobs)} jobs")
        return [json.loads(line) for line in lines]

    def verdicts(self, plays: Sequence[Tuple[Level, Sequence[int]]],
                 frames: bool = False) -> List[Verdict]:
        """How the judge plays each (level, actions)."""
        maps = [keke_map(level) for level, _ in plays]
        jobs = [{"ascii": ascii, "actions": to_keke(list(actions)), "frames": frames}
                for (ascii, _), (_, actions) in zip(maps, plays)]
        out = []
        for (_, offset), data in zip(maps, self.run(jobs)):
            out.append(Verdict(data["won_at"], data["illegal_at"], data["played"],
                               [_frame(f, offset) for f in data.get("frames", [])]))
        return out

    def verdict(self, level: Level, actions: Sequence[int], frames: bool = False) -> Verdict:
        return self.verdicts([(level, actions)], frames)[0]
