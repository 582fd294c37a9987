"""Shortest solutions of Baba Is You levels, played exactly as the Keke AI
Competition's judge plays them.

    >>> from babasolver import load_level, solve, replay
    >>> level = load_level("levels/00")
    >>> result = solve(level, timeout=10)
    >>> result.status, result.proven_shortest, result.keke
    (<Status.SOLVED: 'solved'>, True, 'rrrrrrrr')
    >>> replay(level, result.solution).won_at
    8

The names below are loaded when first used, so that importing the package
(and starting the ``baba`` command) stays quick.
"""
# Nothing is imported at the top, not even typing: `baba` imports this
# package before it can catch a Ctrl-C (babasolver._entry).
TYPE_CHECKING = False

__version__ = "0.1.0"

# public name -> the module that defines it
_WHERE = {
    "Action": "notation", "Facing": "notation", "parse_solution": "notation", "to_arrows": "notation",
    "to_keke": "notation",
    "Status": "status",
    "Level": "level", "KekeLevel": "level", "load_level": "level", "read_keke_set": "level",
    "Simulation": "game", "Replay": "game", "Frame": "game", "replay": "game",
    "SearchResult": "solver", "SearchStats": "solver",
    "solve": "app.solving",
    "Limits": "app.limits",
    "LevelTask": "app.tasks", "load_tasks": "app.tasks",
    "LevelOutcome": "app.running", "run_many": "app.running",
    "Summary": "app.report", "summarize": "app.report",
    "BabaError": "errors", "LevelError": "errors",
}

__all__ = sorted(_WHERE) + ["__version__"]


def __getattr__(name: str) -> "Any":
    from importlib import import_module

    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'babasolver' has no attribute {name!r}")
    value = getattr(import_module(f"babasolver.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list:
    return __all__


if TYPE_CHECKING:
    from typing import Any

    from .app.limits import Limits
    from .app.report import Summary, summarize
    from .app.running import LevelOutcome, run_many
    from .app.solving import solve
    from .app.tasks import LevelTask, load_tasks
    from .errors import BabaError, LevelError
    from .game import Frame, Replay, Simulation, replay
    from .level import KekeLevel, Level, load_level, read_keke_set
    from .notation import Action, Facing, parse_solution, to_arrows, to_keke
    from .solver import SearchResult, SearchStats
    from .status import Status
