"""Shortest solutions of Baba Is You levels, played exactly as the Keke AI
Competition's judge plays them.

    >>> from babasolver import load_level, solve, replay
    >>> level = load_level("levels/00")
    >>> result = solve(level, timeout=10)
    >>> result.status, result.proven_shortest, "".join(a.letter for a in result.solution)
    (<Status.SOLVED: 'solved'>, True, 'rrrrrrrr')
    >>> replay(level, result.solution).won_at
    8
"""

__version__ = "0.1.0"

from .game import Frame, Replay, Simulation, replay
from .level import KekeLevel, Level, load_level, read_keke_set
from .notation import Action, parse_solution, to_arrows, to_keke
from .solver import SearchResult, SearchStats, Status, solve

__all__ = [
    "Action", "Frame", "KekeLevel", "Level", "Replay", "SearchResult", "SearchStats", "Simulation",
    "Status", "load_level", "parse_solution", "read_keke_set", "replay", "solve", "to_arrows", "to_keke",
    "__version__",
]
