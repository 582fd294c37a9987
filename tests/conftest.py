"""Shared fixtures.

``repo_root`` is this repository; ``shared_dir`` is ``../shared`` next to it,
where the Keke level sets live. Tests that need it are skipped only when that
folder is absent; those that need ``judge`` also when node is.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Dict

import pytest
from hypothesis import settings

from babasolver.judge import Judge

# A Hypothesis deadline is a timing assertion: on a loaded CI machine an
# example that usually takes 50 ms can take 300, and Hypothesis then fails
# the test as flaky. Speed is measured by `baba bench`, never by the tests.
settings.register_profile("no-deadline", deadline=None)
settings.load_profile("no-deadline")

REPO_ROOT = Path(__file__).resolve().parent.parent
SHARED_DIR = REPO_ROOT.parent / "shared"

#: The Keke level sets, by short name, and how many levels each holds.
KEKE_SET_FILES = {
    "demo": "demo_LEVELS.json",
    "test": "test_LEVELS.json",
    "full_biy": "full_biy_LEVELS.json",
}
KEKE_SET_SIZES = {"demo": 14, "test": 3, "full_biy": 184}


@pytest.fixture(scope="session")
def repo_root() -> Path:
    """The repository's root folder (holds pyproject.toml, levels/, tests/)."""
    return REPO_ROOT


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """``../shared`` relative to the repository root; skips if it is absent."""
    if not SHARED_DIR.is_dir():
        pytest.skip("../shared is absent: the Keke level sets live there")
    return SHARED_DIR


@pytest.fixture(scope="session")
def keke_sets(shared_dir: Path) -> Dict[str, Path]:
    """The three Keke JSON level sets: ``{"demo": path, "test": path, "full_biy": path}``."""
    return {key: shared_dir / "levels" / "keke" / name for key, name in KEKE_SET_FILES.items()}


@pytest.fixture(scope="session")
def judge(shared_dir: Path) -> Judge:
    """The Keke competition's judge in ``../shared/keke-reference``, run by
    node; skips if node is absent."""
    if shutil.which("node") is None:
        pytest.skip("node is absent: the judge runs on Node.js")
    return Judge(shared_dir / "keke-reference")


def pytest_terminal_summary(terminalreporter) -> None:
    """Say how much random play the differential test compared this run."""
    import sys

    module = sys.modules.get("test_differential")
    if module is not None and module.STEPS_COMPARED[0]:
        terminalreporter.write_line(
            f"differential test: {module.STEPS_COMPARED[0]} random action steps compared "
            "between the Cython core and the reference step")
    module = sys.modules.get("test_baba_core")
    if module is not None and module.TURNS_COMPARED[0]:
        terminalreporter.write_line(
            f"game-rules differential: {module.TURNS_COMPARED[0]} turns identical between the Cython core "
            "and the reference engine")
    module = sys.modules.get("test_judge_differential")
    if module is not None and any(module.TURNS_COMPARED.values()):
        terminalreporter.write_line(
            "judge differential: " + ", ".join(f"{engine} {turns} turns identical to the judge's"
                                               for engine, turns in module.TURNS_COMPARED.items()))
