"""Type stubs for the commercial game's rule set (babasolver._baba)."""
from typing import Dict, Sequence

from ._ruleset import CoreLevel

NAME: str
PROPERTY_BITS: Dict[str, int]

class GameLevel(CoreLevel):
    def __init__(self, width: int, height: int, grid: Sequence[int], facings: Sequence[int] = ...) -> None: ...
