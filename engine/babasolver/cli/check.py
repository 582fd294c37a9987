"""baba check: replay a solution and say whether, and when, it wins."""
from __future__ import annotations

import argparse
from pathlib import Path

from ..app.checking import check_solution, find_solution
from ..app.tasks import load_one
from ..judge import Judge
from ..notation import to_arrows
from ..rulesets import solution_files_text
from .common import (
    EXIT_NO, EXIT_OK, PROG, Subparsers, add_judge_argument, add_level_arguments, add_rules_argument,
    check_judge_rules, dump_json, plural, safe,
)
from .solve import solution_json


def add_parser(subparsers: Subparsers) -> None:
    p = subparsers.add_parser(
        "check",
        help="replay a solution and say whether (and when) it wins",
        description="Replay SOLUTION (Keke letters like 'rrud' or arrow runs like '3→ 1↑'). Without "
        "SOLUTION, the level folder's solution file for --rules is read (" + solution_files_text() + "), "
        "or, for a Keke set, the level's stored solution. Exit status: 0 wins, 1 does not win, 2 bad input.",
    )
    add_level_arguments(p)
    p.add_argument("solution", metavar="SOLUTION", nargs="?", default=None,
                   help="the moves to play (default: the folder's solution file for --rules, or the Keke set's"
                        " stored solution)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    add_judge_argument(p, "the solution")
    add_rules_argument(p)
    setattr(p, "allow_intermixed", True)  # LEVEL [--id ID] SOLUTION in any order (cli._SubcommandParser)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    check_judge_rules(args)
    level, entry = load_one(args.level, args.level_id, args.rules)
    actions, source = find_solution(Path(args.level), args.solution, entry, PROG, level.rules)
    judge = Judge(args.judge) if args.judge is not None else None
    check = check_solution(level, actions, source, judge)
    result, verdict, n = check.replay, check.verdict, len(actions)
    if args.json:
        dump_json({
            "level": level.name, "rule_set": level.rules, "source": source, "solution": solution_json(actions),
            "won": result.won, "win_step": result.won_at, "played": result.played, "dead": result.dead,
            "illegal": None if result.illegal_at is None else {"turn": result.illegal_at, "reason": result.illegal},
            "judge": None if verdict is None else {
                "accepted": verdict.accepts(n), "verdict": verdict.describe(n),
                "win_step": verdict.won_at, "illegal_step": verdict.illegal_at,
            },
        })
    else:
        print(f"{safe(level.name)}: {to_arrows(actions) or '(empty)'} ({plural(n, 'move')}, from {safe(source)})")
        print(result.summary(n))
        if verdict is not None:
            print(f"judge: {verdict.describe(n)}")
    return EXIT_OK if check.accepted else EXIT_NO
