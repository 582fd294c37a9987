"""Both engines against the judge, turn by turn.

The judge (the Keke competition's `simulation.js`, in
`../shared/keke-reference`) is the oracle: every frame an engine shows after
a turn (objects in creation order with facing and hidden flag, texts in load
order, the rule list, won, and whether the judge could play the turn) must
be the judge's. The plays compared are:

- random action strings on every level of the three shipped sets;
- random small maps built from rule templates, which reach what the shipped
  levels rarely do (several YOU or MOVE objects of one noun, nouns that are
  both KILL and SINK, HOT and MELT, transformation chains and cycles,
  `X is X`, texts pushed onto YOU objects);
- the sets' stored solutions, whose outcome (the turn they win, or the turn
  the judge cannot play, or the final position) must be the judge's.

Run the full comparison as::

    python -m babasolver.conformance --judge ../shared/keke-reference --strings 20 --turns 60

(`--engine reference` for the pure-Python engine, `--maps N` for the number
of generated maps). It prints the counts and every mismatch, and exits 1 if
there is one.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence, Tuple, Union

from .errors import BabaError
from .game import Frame, Simulation, ending, replay
from .judge import Judge, JudgeFrame, Verdict
from .level import KekeLevel, Level, level_from_ascii, read_keke_set
from .notation import parse_solution, to_keke
from .reference import ReferenceSimulation

__all__ = ["SETS", "ENGINES", "Differential", "StoredSolution", "shipped_levels", "random_actions",
           "template_levels", "winnable_levels", "compare", "stored_solutions", "main"]

SETS = ("demo", "test", "full_biy")
ENGINES: Dict[str, Callable[[Level], Union[Simulation, ReferenceSimulation]]] = {"core": Simulation, "reference": ReferenceSimulation}

Play = Tuple[str, Level, List[int]]       # (label, level, actions)
# Plays the judge answers in one node process, frames and all: the
# documented full run's frames took 11.7 GB when all were held at once.
COMPARE_BATCH = 250
PROGRESS_SECONDS = 10.0
# Told after each batch: (what is compared, the result so far, plays in all).
Progress = Callable[[str, "Differential", int], None]


def shipped_levels(shared: Path) -> List[Tuple[str, KekeLevel]]:
    """(label, KekeLevel) of every level of the three sets."""
    out = []
    for name in SETS:
        for entry in read_keke_set(shared / "levels" / "keke" / f"{name}_LEVELS.json"):
            out.append((f"{name} {entry.id}", entry))
    return out


def random_actions(rng: random.Random, turns: int) -> List[int]:
    """Runs of one action (players tend to walk), waits among them."""
    out: List[int] = []
    while len(out) < turns:
        out += [rng.choice([0, 1, 2, 3, 0, 1, 2, 3, 4])] * rng.choice([1, 1, 2, 3, 4])
    return out[:turns]


# Rule sentences the generated maps are built from, in Keke characters.
TEMPLATES = (
    "F13", "R15", "W16", "K17", "B17", "R17", "K15",                     # win, push, stop, move
    "L14", "G10", "R10", "S14", "B14", "B10", "K14",                     # kill, sink (and on YOU)
    "L18", "B19", "R19", "L19", "A18", "A19", "K18",                     # hot, melt (both on one noun)
    "B1R", "R1B", "R1F", "F1K", "K1B", "B1B", "R1R", "A1F", "K1K",       # transformations, X is X
    "V15", "V13", "O17", "A17",
)
YOU_SENTENCES = ("B12", "K12", "R12", "A12")
WIN_SENTENCES = ("F13", "F13", "R13", "B13", "K13")       # flag twice as often
OBJECT_OF = {"B": "b", "K": "k", "R": "r", "F": "f", "W": "w", "L": "l", "G": "g", "S": "s",
             "A": "a", "O": "o", "V": "v"}
LOOSE_TEXTS = "BKRFL12345678901"


class _Map:
    """A map being drawn: `width` x `height` empty cells inside a border."""

    def __init__(self, rng: random.Random, width: int, height: int) -> None:
        self.rng, self.width, self.height = rng, width, height
        self.grid = [["." for _ in range(width)] for _ in range(height)]

    def _free(self, cells: Sequence[Tuple[int, int]]) -> bool:
        return all(0 <= x < self.width and 0 <= y < self.height and self.grid[y][x] == "." for x, y in cells)

    def put(self, chars: str, gap: bool = False) -> bool:
        """`chars` in a line across or down on free cells (with `gap`, three
        of them with one cell left free before the last); whether it fit."""
        rng = self.rng
        for _ in range(30):
            x, y = rng.randrange(self.width), rng.randrange(self.height)
            across = rng.random() < 0.6
            offsets = [0, 1, 3] if gap else list(range(len(chars)))
            cells = [(x + i, y) if across else (x, y + i) for i in offsets]
            if self._free(cells):
                for (cx, cy), char in zip(cells, chars):
                    self.grid[cy][cx] = char
                return True
        return False

    def scatter(self, char: str, n: int) -> None:
        """`char` on up to `n` random cells, those that are free."""
        for _ in range(n):
            x, y = self.rng.randrange(self.width), self.rng.randrange(self.height)
            if self.grid[y][x] == ".":
                self.grid[y][x] = char

    def level(self, name: str) -> Level:
        border = "_" * (self.width + 2)
        rows = [border] + ["_" + "".join(row) + "_" for row in self.grid] + [border]
        return level_from_ascii("\n".join(rows), name=name)


def _nouns(sentences: Sequence[str]) -> List[str]:
    return sorted({c for sentence in sentences for c in sentence if c in OBJECT_OF})


def template_levels(rng: random.Random, count: int) -> List[Tuple[str, Level]]:
    """Small random maps: a YOU rule with several objects of its noun, two
    to four more rule sentences (some one push away from forming), objects
    of every noun they name, loose texts, and texts between YOU objects."""
    out = []
    for k in range(count):
        drawn = _Map(rng, rng.randint(7, 10), rng.randint(6, 9))
        sentences = [rng.choice(YOU_SENTENCES)] + rng.sample(TEMPLATES, rng.randint(2, 4))
        for i, sentence in enumerate(sentences):
            drawn.put(sentence, gap=i > 0 and rng.random() < 0.3)
        you = OBJECT_OF[sentences[0][0]]
        drawn.scatter(you, rng.randint(2, 3))
        if rng.random() < 0.5:      # a text between two YOU objects, to be pushed onto one
            drawn.put(you + rng.choice(LOOSE_TEXTS) + you)
        for noun in _nouns(sentences):
            drawn.scatter(OBJECT_OF[noun], rng.randint(1, 3))
        for char in rng.sample(LOOSE_TEXTS, rng.randint(0, 2)):
            drawn.scatter(char, 1)
        out.append((f"map {k}", drawn.level(f"map {k}")))
    return out


def winnable_levels(rng: random.Random, count: int) -> List[Tuple[str, Level]]:
    """Smaller maps (5-7 by 4-6 cells) for searches: a YOU rule, a WIN rule
    and up to two more sentences, each whole, objects of every noun they
    name, at times a loose text. Breadth-first search decides most of them
    in a few thousand states, many with a win."""
    out: List[Tuple[str, Level]] = []
    while len(out) < count:
        drawn = _Map(rng, rng.randint(5, 7), rng.randint(4, 6))
        sentences = [rng.choice(YOU_SENTENCES), rng.choice(WIN_SENTENCES)] + rng.sample(TEMPLATES, rng.randint(0, 2))
        if not all(drawn.put(sentence) for sentence in sentences):
            continue
        drawn.scatter(OBJECT_OF[sentences[0][0]], rng.randint(1, 2))
        for noun in _nouns(sentences):
            drawn.scatter(OBJECT_OF[noun], rng.randint(1, 2))
        for char in rng.sample(LOOSE_TEXTS, rng.randint(0, 1)):
            drawn.scatter(char, 1)
        name = f"small map {len(out)}"
        out.append((name, drawn.level(name)))
    return out


@dataclass
class Differential:
    """How an engine compared with the judge."""

    engine: str
    strings: int = 0
    turns: int = 0
    identical: int = 0                      # strings identical on every turn
    mismatches: List[str] = field(default_factory=list)

    def add(self, other: "Differential") -> None:
        self.strings += other.strings
        self.turns += other.turns
        self.identical += other.identical
        self.mismatches += other.mismatches

    def line(self, what: str) -> str:
        return (f"{self.engine} vs judge, {what}: {self.strings} strings, {self.turns} turns, "
                f"{self.identical} identical, {len(self.mismatches)} mismatching")


def _engine_frame(sim) -> JudgeFrame:
    return JudgeFrame(sim.objects(), sim.texts(), sim.rules(), bool(sim.won), sim.illegal is not None)


def _judge_view(frame: Frame) -> JudgeFrame:
    return JudgeFrame(frame.objects, frame.texts, frame.rules, frame.won, frame.illegal is not None)


def _difference(ours: JudgeFrame, theirs: JudgeFrame) -> Optional[str]:
    """What differs; on a turn the judge cannot play, only that both say so
    (the judge's own position is then no longer the game)."""
    if ours.illegal or theirs.illegal:
        return None if ours.illegal == theirs.illegal else f"illegal: engine {ours.illegal} / judge {theirs.illegal}"
    for name in ("objects", "texts", "rules", "won"):
        a, b = getattr(ours, name), getattr(theirs, name)
        if a != b:
            return f"{name}: engine {a} / judge {b}"
    return None


def compare(judge: Judge, engine: str, plays: Sequence[Play],
            progress: Optional[Progress] = None, what: str = "plays") -> Differential:
    """Play each (label, level, actions) in the engine and the judge, and
    compare every frame until the judge's play stops (a win or a turn it
    cannot play). `progress(what, so_far, plays)` is called after each batch."""
    result = Differential(engine)
    for start in range(0, len(plays), COMPARE_BATCH):
        batch = plays[start:start + COMPARE_BATCH]
        verdicts = judge.verdicts([(level, actions) for _, level, actions in batch], frames=True)
        result.add(_compare_batch(engine, batch, verdicts))
        if progress is not None:
            progress(what, result, len(plays))
    return result


def _compare_batch(engine: str, plays: Sequence[Play], verdicts: Sequence[Verdict]) -> Differential:
    make = ENGINES[engine]
    result = Differential(engine)
    for (label, level, actions), verdict in zip(plays, verdicts):
        sim = make(level)
        result.strings += 1
        problem = _difference(_engine_frame(sim), verdict.frames[0])
        turn = 0
        for turn, frame in enumerate(verdict.frames[1:], start=1):
            if problem is not None:
                break
            sim.step(actions[turn - 1])
            result.turns += 1
            problem = _difference(_engine_frame(sim), frame)
        if problem is None:
            result.identical += 1
        else:
            keke = to_keke(actions[:turn])
            result.mismatches.append(f"{label} after '{keke}' (turn {turn}): {problem}")
    return result


@dataclass
class StoredSolution:
    label: str
    moves: int
    engine: str                 # "wins at step k", "breaks at step k" or "does not win" (game.ending)
    judge: str
    same_end: bool              # the final positions agree (when neither wins nor breaks)

    @property
    def agree(self) -> bool:
        return self.engine == self.judge and self.same_end


def _outcome(won_at: Optional[int], illegal_at: Optional[int]) -> str:
    return ending(won_at, illegal_at) or "does not win"


def stored_solutions(judge: Judge, engine: str, entries: Sequence[Tuple[str, KekeLevel]]) -> List[StoredSolution]:
    """Each stored solution's outcome in the engine and in the judge."""
    make = ENGINES[engine]
    plays = [(label, entry.level, parse_solution(entry.solution)) for label, entry in entries]
    verdicts = judge.verdicts([(level, actions) for _, level, actions in plays], frames=True)
    rows = []
    for (label, level, actions), verdict in zip(plays, verdicts):
        played = replay(level, actions, engine=make)
        same_end = True
        if played.won_at is None and played.illegal_at is None and played.last is not None:
            same_end = _difference(_judge_view(played.last), verdict.frames[-1]) is None
        rows.append(StoredSolution(label, len(actions), _outcome(played.won_at, played.illegal_at),
                                   _outcome(verdict.won_at, verdict.illegal_at), same_end))
    return rows


def run(judge: Judge, shared: Path, engine: str, strings: int, turns: int, maps: int,
        seed: int = 0, progress: Optional[Progress] = None,
        ) -> Tuple[Differential, Differential, List[StoredSolution]]:
    """The whole comparison: (shipped levels, generated maps, stored
    solutions); `progress` is told after each batch."""
    rng = random.Random(seed)
    entries = shipped_levels(shared)
    shipped = compare(judge, engine, [(label, entry.level, random_actions(rng, turns))
                                      for label, entry in entries for _ in range(strings)], progress, "shipped levels")
    generated = compare(judge, engine, [(label, level, random_actions(rng, turns))
                                        for label, level in template_levels(rng, maps)
                                        for _ in range(max(1, strings // 4))], progress, "generated maps")
    return shipped, generated, stored_solutions(judge, engine, entries)


class _ProgressLines:
    """A line on stderr at most every PROGRESS_SECONDS: a long run says how
    far it is."""

    def __init__(self) -> None:
        self.next = time.monotonic() + PROGRESS_SECONDS

    def __call__(self, what: str, so_far: Differential, plays: int) -> None:
        now = time.monotonic()
        if now >= self.next or so_far.strings == plays:
            self.next = now + PROGRESS_SECONDS
            print(f"{what}: {so_far.strings:,} of {plays:,} strings, {so_far.turns:,} turns, "
                  f"{len(so_far.mismatches)} mismatching", file=sys.stderr, flush=True)


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m babasolver.conformance",
                                     description="Compare an engine with the Keke judge, turn by turn.")
    parser.add_argument("--judge", required=True, metavar="DIR", help="folder holding simulation.js")
    parser.add_argument("--shared", default=None, metavar="DIR",
                        help="folder holding levels/keke (default: the judge folder's parent)")
    parser.add_argument("--engine", choices=sorted(ENGINES), default="core")
    parser.add_argument("--strings", type=int, default=20, help="random strings per shipped level")
    parser.add_argument("--turns", type=int, default=60, help="turns per string")
    parser.add_argument("--maps", type=int, default=400, help="generated maps")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    try:
        judge = Judge(args.judge)
        shared = Path(args.shared) if args.shared else Path(args.judge).resolve().parent
        shipped, generated, stored = run(judge, shared, args.engine, args.strings, args.turns,
                                         args.maps, args.seed, _ProgressLines())
    except BabaError as e:
        print(f"conformance: error: {e}", file=sys.stderr)
        return 2
    print(shipped.line("shipped levels"))
    print(generated.line("generated maps"))
    agree = sum(1 for row in stored if row.agree)
    print(f"{args.engine} vs judge, stored solutions: {agree} of {len(stored)} agree")
    counts: Dict[str, int] = {}
    for row in stored:
        kind = row.judge.split(" at ")[0]
        counts[kind] = counts.get(kind, 0) + 1
    print("  judge: " + ", ".join(f"{n} {kind}" for kind, n in sorted(counts.items())))
    for row in stored:
        if not row.judge.startswith("wins"):
            print(f"  {row.label}: judge {row.judge}, engine {row.engine}"
                  + ("" if row.same_end else ", final positions differ"))
    for line in shipped.mismatches + generated.mismatches:
        print("MISMATCH " + line)
    for row in stored:
        if not row.agree:
            print(f"MISMATCH stored solution {row.label}: engine {row.engine}, judge {row.judge}"
                  + ("" if row.same_end else ", final positions differ"))
    bad = shipped.mismatches or generated.mismatches or any(not row.agree for row in stored)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
