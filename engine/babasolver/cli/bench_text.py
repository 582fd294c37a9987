"""The text of baba bench: the table, the summary and the scaling lines."""
from __future__ import annotations

import math
from typing import Dict, List, Optional, Sequence, Tuple

from ..app.report import LONG_SEARCH, SCALING_POINTS, ScalingRow, Summary
from ..app.running import PROGRESS_EVERY, LevelOutcome
from ..status import Status
from .common import aligned, plural, safe

__all__ = ["format_table", "format_summary", "format_scaling", "si"]


def si(x: Optional[float]) -> str:
    """1234567 -> '1.23M', 45678 -> '45.7k', 12.5 -> '12.5'; None -> '-'."""
    if x is None or not math.isfinite(x):
        return "-"
    for factor, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k"), (1.0, "")):
        if abs(x) >= factor * 0.9995 or factor == 1.0:
            v = x / factor
            decimals = 0 if abs(v) >= 99.95 else 1 if abs(v) >= 9.995 else 2
            return f"{v:.{decimals}f}{suffix}"
    return str(x)


def _power(p: int) -> str:
    """100000 -> '1e5'."""
    exponent = int(round(math.log10(p))) if p > 0 else 0
    return f"1e{exponent}" if 10 ** exponent == p else f"{p:,}"


def _seconds(x: float) -> str:
    return f"{x:.3f}" if x < 100 else f"{x:.1f}"


TABLE_COLUMNS = ("id", "status", "moves", "bound", "ref", "unique", "generated", "time s", "states/s",
                 "B/state", "note")
_RIGHT = {"moves", "bound", "ref", "unique", "generated", "time s", "states/s", "B/state"}


def _row(o: LevelOutcome) -> Tuple[str, ...]:
    bps = o.bytes_per_state
    return (
        safe(o.id),
        o.status.upper() if o.status in (Status.WRONG, Status.ERROR) else str(o.status),
        "" if o.moves is None else f"{o.moves}{'' if o.proven_shortest else '?'}",
        "" if o.proven_shortest or o.lower_bound is None else f">={o.lower_bound}",
        "" if o.reference_moves is None else str(o.reference_moves) + ("" if o.reference_wins is not False else "x"),
        f"{o.unique:,}",
        f"{o.generated:,}",
        _seconds(o.elapsed),
        si(o.states_per_second) if o.elapsed > 0 and o.generated else "-",
        "-" if bps is None else f"{bps:.1f}",
        safe(o.note),
    )


def format_table(outcomes: Sequence[LevelOutcome]) -> str:
    """One row per level, columns aligned."""
    rows = [TABLE_COLUMNS] + [_row(o) for o in outcomes]
    return "\n".join(aligned(rows, [column in _RIGHT for column in TABLE_COLUMNS]))


def _id_list(ids: Sequence[str], limit: int = 20) -> str:
    shown = ", ".join(safe(i) for i in ids[:limit])
    return shown + (f", ... ({len(ids)} in all)" if len(ids) > limit else "")


def _counts(counts: Dict[str, int]) -> str:
    """'satisfice 12, prove 3'; '-' for none."""
    return ", ".join(f"{name} {n}" for name, n in counts.items()) or "-"


def format_summary(s: Summary, title: str = "summary") -> str:
    """The summary as aligned 'label  value' lines."""
    lc = s.limit_counts
    rows: List[Tuple[str, str]] = [
        ("levels", f"{s.levels}" + ("" if s.completed else " (bench interrupted: the rest did not run)")),
        (str(Status.SOLVED), f"{s.solved} ({s.solved_percent:.1f}%)"
                   + (", every solution replayed to a win" if s.solved and not s.wrong else "")),
        ("proven shortest", f"{s.proven_shortest}"),
        ("solved, not proven shortest", f"{s.not_proven}"
         + (f" (quality: {s.quality_not_longer} of {s.quality_levels} no longer than the stored"
            f" solution, mean length ratio {s.quality_ratio:.2f})" if s.quality_ratio is not None else "")),
        ("proven unsolvable", f"{s.unsolvable}"),
        ("found by / proved by", f"{_counts(s.found_by)} / {_counts(s.proved_by)}"),
        ("limit reached", f"{s.limits} (state {lc[Status.STATE_LIMIT]}, time {lc[Status.TIME_LIMIT]}, "
                          f"memory {lc[Status.MEMORY_LIMIT]}, interrupted {lc[Status.INTERRUPTED]})"),
    ]
    if s.judged:
        rows.append(("judge", f"{s.judge_accepted} of {s.judged} solutions accepted"
                              + (f" (REJECTED: {_id_list(s.judge_rejected_ids)})" if s.judge_rejected_ids else "")))
    if s.wrong:
        rows.append(("SOLUTIONS THAT FAILED TO REPLAY", f"{s.wrong}: {_id_list(s.wrong_ids)}  <-- BUG"))
    if s.errors:
        rows.append(("errors", f"{s.errors}: {_id_list(s.error_ids)} (see the notes in the table)"))
    rows += [
        ("median / mean time", f"{_seconds(s.median_time)} s / {_seconds(s.mean_time)} s"
                               f" (search total {_seconds(s.total_time)} s"
                               + ("" if s.wall_time is None else f", wall {_seconds(s.wall_time)} s") + ")"),
        ("mean solution length", "-" if s.mean_moves is None else f"{s.mean_moves:.2f} moves"),
        ("vs reference", f"{len(s.shorter_than_reference)} shorter, {len(s.longer_than_reference)} longer"
                         + (f" (LONGER: {_id_list(s.longer_than_reference)})" if s.longer_than_reference else "")),
        ("total unique states", f"{s.total_unique:,}"),
        ("generated states/s", f"{si(s.states_per_second)} ({s.total_generated:,} generated"
                               f" in {_seconds(s.total_time)} s of search)"),
        (f"median states/s (searches >= {LONG_SEARCH:g} s)",
         "-" if s.median_states_per_second_long is None
         else f"{si(s.median_states_per_second_long)} (over {plural(s.long_searches, 'level')})"),
        ("peak RSS", f"{s.peak_rss_mb:.1f} MB (this process {s.peak_rss_self_mb:.1f} MB,"
                     f" largest child process {s.peak_rss_children_mb:.1f} MB)"),
        ("bytes per unique state",
         ("max - (no level reached 100k states)" if s.max_bytes_per_state is None
          else f"max {s.max_bytes_per_state:.1f} (level {safe(s.max_bytes_per_state_id)},"
               f" over the {s.big_searches} largest {'search' if s.big_searches == 1 else 'searches'})")
         + ("" if s.bytes_per_state_overall is None
            else f"; overall {s.bytes_per_state_overall:.1f} (all tables / all states)")),
    ]
    width = max(len(label) for label, _ in rows)
    lines = [f"{title}:"] + [f"  {label.ljust(width)}  {value}" for label, value in rows]
    lines.append("  unsolved:" + ("" if s.unsolved else " none"))
    bounds = dict(s.bounded_ids)

    def bound(lid: str, why: str) -> str:
        found = bounds.get(lid)
        return "" if not found or why == "proven unsolvable" else f", every solution has at least {plural(found, 'move')}"

    lines += [f"    {safe(lid)}: {safe(why)}{bound(lid, why)}" for lid, why in s.unsolved]
    lines.append("  hardest (most unique states):")
    lines += [f"    {safe(lid)}: {unique:,} states, {status}" for lid, status, unique in s.hardest]
    return "\n".join(lines)


def format_scaling(rows: Sequence[ScalingRow]) -> str:
    """States/s as the visited table grows, for the largest searches."""
    lines = ["scaling (generated states/s while the visited table grew from N/2 to N unique states,"
             f" for N = {', '.join(_power(p) for p in SCALING_POINTS)}; a span holds at most one table doubling;"
             f" windows are {PROGRESS_EVERY:g} s):"]
    if not rows:
        lines.append("  no searches")
    for r in rows:
        points = ", ".join(
            f"{_power(p)}: " + ("not reached" if r.unique < p else si(rate)) for p, rate in r.at.items()
        )
        lines.append(f"  {safe(r.id)} ({plural(r.unique, 'state')}, {plural(r.samples, 'sample')}): {points};"
                     f" first window {si(r.first_window)}, last window {si(r.last_window)},"
                     f" overall {si(r.overall)}")
    return "\n".join(lines)
