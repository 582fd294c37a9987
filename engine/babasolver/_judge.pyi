"""Type stubs for the Keke judge's rule set (babasolver._judge)."""
from typing import Dict, Sequence

from ._ruleset import CoreLevel

NAME: str
PROPERTY_BITS: Dict[str, int]

class JudgeLevel(CoreLevel):
    def __init__(self, width: int, height: int, grid: Sequence[int], facings: Sequence[int] = ...) -> None: ...
    @property
    def record_widths(self) -> tuple[int, int, tuple[int, ...]]: ...
    @property
    def created_widths(self) -> tuple[int, int, tuple[tuple[int, int], ...]]: ...
