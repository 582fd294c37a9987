"""The type hints of the installed package hold, `.pyi` stub included."""
from __future__ import annotations

import subprocess
import sys


def test_mypy_finds_no_error_in_the_installed_package(tmp_path):
    done = subprocess.run([sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path), "-p", "babasolver"],
                          capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "no issues found" in done.stdout
