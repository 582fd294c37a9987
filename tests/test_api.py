"""The public Python API, as the README and the package docstring show it."""
from __future__ import annotations

import doctest
import re

import babasolver


def test_the_package_docstring_example_runs(repo_root, monkeypatch):
    monkeypatch.chdir(repo_root)
    failures, tried = doctest.testmod(babasolver, raise_on_error=False)
    assert tried >= 4 and failures == 0


def test_the_readme_python_example_runs(repo_root, monkeypatch):
    monkeypatch.chdir(repo_root)
    readme = (repo_root / "README.md").read_text(encoding="utf-8")
    block = re.search(r"## Python API\n.*?```python\n(.*?)```", readme, re.S).group(1)
    namespace: dict = {}
    exec(compile(block, "README.md", "exec"), namespace)
    assert namespace["result"].solved


def test_the_api_exports_one_vocabulary():
    assert [a.letter for a in babasolver.Action] == list("udlrs")
    assert babasolver.Action.RIGHT.arrow == "→" and babasolver.Action.WAIT.word == "wait"
    assert babasolver.Status.TIME_LIMIT == "time limit" and f"{babasolver.Status.SOLVED}" == "solved"
    for name in babasolver.__all__:
        assert hasattr(babasolver, name)
