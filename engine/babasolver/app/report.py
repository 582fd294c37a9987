"""Summarize a run over many levels, check its solutions in the judge, and
write its report and replays. Nothing here prints: the CLI formats.
"""
from __future__ import annotations

import contextlib
import json
import os
import statistics
from dataclasses import asdict, dataclass, field
from pathlib import Path
from collections import Counter
from typing import Any, Dict, Iterable, List, Optional, Sequence, Set, Tuple

from .. import render
from ..errors import BabaError
from ..files import OutputError, check_output, kind_of, write_atomic, written_path
from ..judge import Judge
from ..level import Level
from ..notation import Action, to_keke
from ..rulesets import DEFAULT_RULES
from ..schedule import SCHEDULE
from ..status import LIMITS, Status
from .memory import peak_rss_mb
from .replaying import FrameStream
from .running import PROGRESS_EVERY, LevelOutcome, Sample
from .tasks import LevelTask

__all__ = ["AGENT", "Summary", "ScalingRow", "summarize", "scaling", "judge_outcomes", "write_replays",
           "check_replays_folder", "check_report_target",
           "build_report", "write_report", "LONG_SEARCH", "SCALING_POINTS"]

#: The agent name written into reports.
AGENT = "babasolver-bfs"

#: Searches at least this long count towards the median states/s.
LONG_SEARCH = 0.5
#: Bytes per state are read at the largest searches (the table starts at a
#: fixed 20 MiB, which dominates small ones): this many, of at least BIG_SEARCH states.
LARGEST_SEARCHES = 5
BIG_SEARCH = 100_000
#: Table sizes at which the scaling section reads the states/s.
SCALING_POINTS = (100_000, 1_000_000, 10_000_000)


def judge_outcomes(judge: "Judge", tasks: Sequence[LevelTask], outcomes: Sequence[LevelOutcome]) -> None:
    """Replay every verified solution in the judge, in one batch; sets
    each outcome's `judge`."""
    plays = _solved(tasks, outcomes)
    chosen = [o for o, _, _ in plays]
    verdicts = judge.verdicts([(level, solution) for _, level, solution in plays])
    for o, verdict in zip(chosen, verdicts):
        o.judge = verdict.describe(len(o.solution or []))


def _solved(tasks: Sequence[LevelTask],
            outcomes: Sequence[LevelOutcome]) -> List[Tuple[LevelOutcome, Level, List[Action]]]:
    """(outcome, level, solution) of every level solved and verified."""
    levels = {t.id: t.level for t in tasks}
    return [(o, level, o.solution) for o in outcomes
            if o.solved and o.verified and o.solution is not None and (level := levels.get(o.id)) is not None]


def check_replays_folder(folder: Path, ids: Sequence[str] = (),
                         inputs: Iterable["os.PathLike[str] | str"] = ()) -> None:
    """Raise OutputError unless `folder` is a folder or absent, and the
    pages of the levels `ids` and the index could be written there."""
    kind = kind_of(folder)
    if kind is not None and kind != "a folder":
        raise OutputError(f"{folder}: cannot write the replays: it is {kind}, not a folder")
    if kind is None and folder.exists():
        raise OutputError(f"{folder}: cannot write the replays: it is a file, not a folder")
    taken: Set[str] = set()
    for page in [*(folder / _page_name(i, taken) for i in ids), folder / "index.html"]:
        check_output(page, "the replays", inputs)


def _page_name(level_id: str, taken: Set[str]) -> str:
    """A file name for a level's page: from its id, short enough for any
    file system, and neither index.html nor another level's."""
    stem = "".join(c if c.isalnum() or c in "-_" else "_" for c in level_id)[:100] or "_"
    name, k = stem + ".html", 1
    while name in taken or name == "index.html":
        k += 1
        name = f"{stem}-{k}.html"
    taken.add(name)
    return name


def write_replays(folder: Path, tasks: Sequence[LevelTask], outcomes: Sequence[LevelOutcome],
                  title: str, inputs: Iterable["os.PathLike[str] | str"] = ()) -> Path:
    """An HTML replay per solved level and an index of every level; the
    index's path. Every page is checked before the first is written (none
    may replace one of `inputs`, or a file the user may not write). When a
    page cannot be written, the pages this run added and the folders it
    made are removed (OutputError names the file): a failed run leaves no
    empty folder behind, and never removes a file that was there before."""
    made = [f for f in [folder, *folder.parents] if not f.exists()]
    added: List[Path] = []
    playable = {o.id: (level, solution) for o, level, solution in _solved(tasks, outcomes)}
    taken: Set[str] = set()
    links = {o.id: _page_name(o.id, taken) for o in outcomes if o.id in playable}
    index = folder / "index.html"
    check_replays_folder(folder, [o.id for o in outcomes if o.id in playable], inputs)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        rows = []
        for o in outcomes:
            link = links.get(o.id)
            if link is not None:
                level, solution = playable[o.id]
                frames = FrameStream(level, solution)
                written = written_path(folder / link)       # through a link, as a shell's `>`
                existed = os.path.lexists(written)
                render.write_html(level, frames, folder / link, title=f"{title} #{o.id}", count=len(frames))
                if not existed:
                    added.append(written)
            status = o.status if o.proven_shortest or not o.solved else "solved, not proven shortest"
            rows.append((o.id, status, o.moves, link))
        render.write_index_html(rows, index, title)
        return index
    except BaseException as e:
        for path in added:
            with contextlib.suppress(OSError):
                path.unlink()
        for made_folder in made:          # the deepest first
            with contextlib.suppress(OSError):
                made_folder.rmdir()
        if isinstance(e, OSError):
            raise OutputError(f"{e.filename or folder}: cannot write the replays: {e.strerror or e}") from None
        raise


@dataclass
class ScalingRow:
    """States/s of one large search as its visited table grew."""

    id: str
    unique: int
    samples: int
    at: Dict[int, Optional[float]]        # table size N -> states/s over the span from N/2 to N
    first_window: Optional[float]
    last_window: Optional[float]
    overall: float


@dataclass
class Summary:
    levels: int
    solved: int
    solved_percent: float
    unsolvable: int
    limits: int                           # state + time + memory limit + interrupted
    limit_counts: Dict[str, int]
    wrong: int
    errors: int
    median_time: float
    mean_time: float
    total_time: float                     # seconds of search, summed over levels
    mean_moves: Optional[float]
    total_unique: int
    total_generated: int
    states_per_second: float              # total generated / total search time
    long_searches: int                    # searches of at least LONG_SEARCH seconds
    median_states_per_second_long: Optional[float]
    peak_rss_mb: float
    peak_rss_self_mb: float
    peak_rss_children_mb: float
    big_searches: int                     # the largest searches, at most LARGEST_SEARCHES
    max_bytes_per_state: Optional[float]  # over those
    max_bytes_per_state_id: Optional[str]
    bytes_per_state_overall: Optional[float]
    shorter_than_reference: List[str]
    longer_than_reference: List[str]
    unsolved: List[Tuple[str, str]]       # (id, why)
    hardest: List[Tuple[str, str, int]]   # (id, status, unique states), five largest searches
    wrong_ids: List[str]
    error_ids: List[str]
    scaling: List[ScalingRow]
    proven_shortest: int = 0              # solved, and no solution is shorter
    not_proven: int = 0                   # solved, not proven shortest
    bounded_ids: List[Tuple[str, Optional[int]]] = field(default_factory=list)  # unproven: (id, bound)
    quality_levels: int = 0               # unproven solutions whose level's stored solution wins
    quality_ratio: Optional[float] = None # their mean length / stored length
    quality_not_longer: int = 0           # of those, no longer than the stored solution
    judged: int = 0                       # solutions replayed in the judge (--judge)
    judge_accepted: int = 0
    judge_rejected_ids: List[str] = field(default_factory=list)
    found_by: Dict[str, int] = field(default_factory=dict)    # phase -> solutions it found
    proved_by: Dict[str, int] = field(default_factory=dict)   # phase -> proofs it made (shortest, unsolvable)
    wall_time: Optional[float] = None
    completed: bool = True


def _window_rates(samples: Sequence[Sample]) -> List[Tuple[int, Optional[float], float]]:
    """(unique at the window's end, states/s over the window, window length)
    for the windows between successive samples (the first from the start)."""
    rates: List[Tuple[int, Optional[float], float]] = []
    prev_gen, prev_t = 0, 0.0
    for unique, generated, elapsed in samples:
        dt = elapsed - prev_t
        rates.append((unique, (generated - prev_gen) / dt if dt > 0 else None, dt))
        prev_gen, prev_t = generated, elapsed
    return rates


def _span_rate(samples: Sequence[Sample], point: int) -> Optional[float]:
    """Generated states/s over the part of a search that took its table from
    ``point / 2`` to ``point`` unique states (widened to whole sample
    windows). A span of a factor of two holds one doubling of the visited
    table once the table has outgrown its starting size, so the rate
    carries that pause at its share of the work at that size; a single
    window would read the whole pause or miss it, by luck."""
    start: Sample = (0, 0, 0.0)
    for sample in samples:
        if sample[0] >= point:
            dt = sample[2] - start[2]
            return (sample[1] - start[1]) / dt if dt > 0 else None
        if sample[0] < point / 2:
            start = sample
    return None


def scaling(outcomes: Sequence[LevelOutcome], count: int = 3,
            points: Sequence[int] = SCALING_POINTS) -> List[ScalingRow]:
    """States/s as the ``count`` largest searches grew."""
    rows = []
    largest = sorted((o for o in outcomes if o.unique > 0), key=lambda o: -o.unique)[:count]
    for o in largest:
        rates = _window_rates(o.samples)
        measured = [rate for _, rate, _ in rates if rate is not None]
        # The last window ends when the search does, often after a sliver of
        # time; a full window says more about the rate at the end.
        full = [rate for _, rate, dt in rates if rate is not None and dt >= PROGRESS_EVERY / 2]
        rows.append(ScalingRow(
            id=o.id, unique=o.unique, samples=len(o.samples),
            at={point: _span_rate(o.samples, point) for point in points},
            first_window=measured[0] if measured else None,
            last_window=full[-1] if full else measured[-1] if measured else None,
            overall=o.states_per_second,
        ))
    return rows


def _why(outcome: LevelOutcome) -> str:
    if outcome.status == Status.UNSOLVABLE:
        return "proven unsolvable"
    if outcome.status in LIMITS:
        return str(outcome.status) if outcome.status == Status.INTERRUPTED else f"{outcome.status} reached"
    if outcome.status == Status.WRONG:
        return "solution failed to replay"
    return f"{outcome.status}: {outcome.note}" if outcome.note else str(outcome.status)


def _phase_counts(phases: Iterable[Optional[str]]) -> Dict[str, int]:
    """How often each phase is named, in the schedule's order."""
    counts = Counter(p for p in phases if p is not None)
    order = {phase.name: k for k, phase in enumerate(SCHEDULE)}
    return {p: counts[p] for p in sorted(counts, key=lambda p: (order.get(p, len(order)), p))}


def summarize(
    outcomes: Sequence[LevelOutcome],
    peak_rss: Optional[Tuple[float, float]] = None,
    wall_time: Optional[float] = None,
    completed: bool = True,
) -> Summary:
    """The bench's figures over ``outcomes``. ``peak_rss`` is (self, children)
    in MB, measured now when not given."""
    n = len(outcomes)
    by_status: Dict[str, int] = {}
    for o in outcomes:
        by_status[o.status] = by_status.get(o.status, 0) + 1
    solved = [o for o in outcomes if o.solved]
    times = [o.elapsed for o in outcomes]
    total_time = sum(times)
    total_generated = sum(o.generated for o in outcomes)
    long_rates = [o.states_per_second for o in outcomes if o.elapsed >= LONG_SEARCH]
    big = [o for o in sorted(outcomes, key=lambda o: -o.unique)[:LARGEST_SEARCHES]
           if o.unique >= BIG_SEARCH and o.bytes_per_state is not None]
    biggest_ratio = max(big, key=lambda o: o.bytes_per_state or 0.0) if big else None
    total_unique = sum(o.unique for o in outcomes)
    total_memory = sum(o.memory_bytes for o in outcomes)
    own, children = peak_rss if peak_rss is not None else peak_rss_mb()
    with_ref = [o for o in solved if o.reference_moves is not None and o.moves is not None]
    known = (Status.SOLVED, Status.UNSOLVABLE, Status.WRONG) + LIMITS
    unproven = [o for o in solved if not o.proven_shortest]
    quality = [o for o in unproven if o.reference_wins and o.reference_moves and o.moves is not None]
    ratios = [(o.moves or 0) / (o.reference_moves or 1) for o in quality]
    return Summary(
        levels=n,
        solved=len(solved),
        solved_percent=100.0 * len(solved) / n if n else 0.0,
        unsolvable=by_status.get(Status.UNSOLVABLE, 0),
        limits=sum(by_status.get(s, 0) for s in LIMITS),
        limit_counts={s: by_status.get(s, 0) for s in LIMITS},
        wrong=by_status.get(Status.WRONG, 0),
        errors=sum(c for s, c in by_status.items() if s not in known),
        median_time=statistics.median(times) if times else 0.0,
        mean_time=total_time / n if n else 0.0,
        total_time=total_time,
        mean_moves=statistics.mean(o.moves for o in solved if o.moves is not None) if solved else None,
        total_unique=total_unique,
        total_generated=total_generated,
        states_per_second=total_generated / total_time if total_time > 0 else 0.0,
        long_searches=len(long_rates),
        median_states_per_second_long=statistics.median(long_rates) if long_rates else None,
        peak_rss_mb=max(own, children),
        peak_rss_self_mb=own,
        peak_rss_children_mb=children,
        big_searches=len(big),
        max_bytes_per_state=biggest_ratio.bytes_per_state if biggest_ratio else None,
        max_bytes_per_state_id=biggest_ratio.id if biggest_ratio else None,
        bytes_per_state_overall=total_memory / total_unique if total_unique and total_memory else None,
        shorter_than_reference=[o.id for o in with_ref if (o.moves or 0) < (o.reference_moves or 0)],
        longer_than_reference=[o.id for o in with_ref
                               if o.reference_wins and (o.moves or 0) > (o.reference_moves or 0)],
        unsolved=[(o.id, _why(o)) for o in outcomes if not o.solved],
        hardest=[(o.id, o.status, o.unique) for o in sorted(outcomes, key=lambda o: -o.unique)[:5]],
        wrong_ids=[o.id for o in outcomes if o.status == Status.WRONG],
        error_ids=[o.id for o in outcomes if o.status not in known],
        scaling=scaling(outcomes),
        proven_shortest=sum(1 for o in solved if o.proven_shortest),
        not_proven=len(unproven),
        bounded_ids=[(o.id, o.lower_bound) for o in outcomes if not o.proven_shortest],
        quality_levels=len(quality),
        quality_ratio=statistics.mean(ratios) if ratios else None,
        quality_not_longer=sum(1 for r in ratios if r <= 1.0),
        judged=sum(1 for o in outcomes if o.judge is not None),
        judge_accepted=sum(1 for o in outcomes if o.judge == "accepted"),
        judge_rejected_ids=[o.id for o in outcomes if o.judge is not None and o.judge != "accepted"],
        found_by=_phase_counts(o.found_by for o in solved),
        proved_by=_phase_counts(o.proved_by for o in outcomes),
        wall_time=wall_time,
        completed=completed,
    )


def _level_entry(o: LevelOutcome) -> Dict[str, Any]:
    won = o.solved and o.verified
    entry: Dict[str, Any] = {
        "id": o.id,
        "won_level": won,
        "solution": to_keke(o.solution) if won and o.solution is not None else "",
        "time": round(o.elapsed, 6),
        "iterations": o.expanded,
        "unique_states": o.unique,
        "moves": len(o.solution) if won and o.solution is not None else None,
        "rule_set": o.rules,
        "status": o.status,
        "proven_shortest": o.proven_shortest,
        "lower_bound": o.lower_bound,
        "limit": o.limit,
        "found_by": o.found_by,
        "proved_by": o.proved_by,
        "verified": o.verified,
        "judge": o.judge,
        "reference_moves": o.reference_moves,
        "reference_wins": o.reference_wins,
        "generated": o.generated,
        "depth": o.depth,
        "memory_bytes": o.memory_bytes,
    }
    if o.status == Status.WRONG and o.solution is not None:
        entry["failed_solution"] = to_keke(o.solution)
    if o.note:
        entry["note"] = o.note
    return entry


def build_report(set_path: str, timeout: Optional[float], max_states: int,
                 outcomes: Sequence[LevelOutcome], summary: Summary,
                 rules: str = DEFAULT_RULES) -> Dict[str, Any]:
    """The report as JSON-ready data. Per level, ``id, won_level, solution,
    time, iterations, unique_states, moves`` match the Keke competition's
    report files; the rest is the bench's own."""
    return {
        "agent": AGENT,
        "set": set_path,
        "rule_set": rules,
        "timeout": timeout,
        "max_states": max_states,
        "levels": [_level_entry(o) for o in outcomes],
        "summary": asdict(summary),
    }


def check_report_target(path: "os.PathLike[str] | str", inputs: Iterable["os.PathLike[str] | str"] = ()) -> None:
    """Raise BabaError unless the report can be written at ``path``: its
    folder exists, and ``path`` is absent or a regular file the user may
    write that is none of `inputs` (the files the run reads)."""
    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    if not folder.is_dir():
        raise BabaError(f"{target}: cannot write the report: no such folder {folder}")
    check_output(path, "the report", inputs)


def write_report(path: "os.PathLike[str] | str", report: Dict[str, Any],
                 inputs: Iterable["os.PathLike[str] | str"] = ()) -> None:
    """Write ``report`` as JSON to ``path`` atomically (a temporary file in the
    same folder, then renamed over it)."""
    check_report_target(path, inputs)
    write_atomic(path, (json.dumps(report, indent=1, allow_nan=False) + "\n").encode("utf-8"))
