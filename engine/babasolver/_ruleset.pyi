"""Type stubs for the rule-set interface (babasolver._ruleset)."""
from enum import IntEnum
from typing import Collection, Iterable, List

class Guide(IntEnum):
    """What a satisficing search asks the rule set's estimate and atoms for."""
    GUIDE_BLIND = 0
    GUIDE_RULES = 1
    GUIDE_PAIRS = 3
    GUIDE_RULE_PAIRS = 4

class CoreLevel:
    """A level's fixed facts under one rule set (made by a rule set's level class)."""
    level_width: int
    level_height: int
    rules: str
    n_actions: int
    n_atoms: int
    n_pair_atoms: int
    max_atoms: int

def unknown_words(words: Collection[str], grid: Iterable[int]) -> List[str]: ...
def refuse_unknown_words(name: str, words: Collection[str], grid: Iterable[int]) -> None: ...
