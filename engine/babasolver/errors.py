"""Exceptions the package raises for bad user input.

Every exception here is meant to be shown to a user as it is: ``str(error)``
is a single line without a traceback. The command line turns them into
``baba: error: <message>`` and exit status 2.
"""

from __future__ import annotations

import os
from typing import Optional, Union

__all__ = ["BabaError", "LevelError", "file_error"]


def file_error(e: OSError) -> Optional[str]:
    """"<file>: <reason>" for an error the system raised about a file; None
    for one that names no file."""
    if e.filename is not None and e.strerror:
        return f"{e.filename}: {e.strerror}"
    return None


#: A message longer than this quotes a huge piece of its input (a tile name
#: of a megabyte, say): its middle is left out, and it says how much.
MAX_MESSAGE = 1000


def _one_line(text: str) -> str:
    """Collapse line breaks so that a message always fits on one line, and
    bound its length (its start, where the file and line are, is kept)."""
    if "\n" in text or "\r" in text:
        text = " ".join(text.splitlines())
    if len(text) > MAX_MESSAGE:
        cut = len(text) - MAX_MESSAGE * 4 // 5
        text = f"{text[:MAX_MESSAGE * 3 // 5]} [... {cut:,} characters left out ...] {text[-(MAX_MESSAGE // 5):]}"
    return text


class BabaError(Exception):
    """Base class of every user-facing error of babasolver.

    ``str()`` is a one-line message fit for printing after ``baba: error:``.
    """

    def __init__(self, message: str = "") -> None:
        super().__init__(_one_line(str(message)))

    @property
    def message(self) -> str:
        return self.args[0] if self.args else ""


class LevelError(BabaError):
    """A level file or folder cannot be read.

    Build it either from a complete message, ``LevelError("x.json: bad")``,
    or from a problem and where it was found,
    ``LevelError("unknown tile name 'Bob'", path=p, line=3, col=3)``, which
    reads ``p:3:3: unknown tile name 'Bob'``. The parts stay available as
    ``problem``, ``path``, ``line`` and ``col`` (``None`` when not given).
    """

    def __init__(
        self,
        problem: str,
        path: Optional[Union[str, "os.PathLike[str]"]] = None,
        line: Optional[int] = None,
        col: Optional[int] = None,
    ) -> None:
        self.problem = _one_line(str(problem))
        self.path = None if path is None else os.fspath(path)
        self.line = line
        self.col = col
        where = ""
        if self.path is not None:
            where = self.path
            if line is not None:
                where += f":{line}"
                if col is not None:
                    where += f":{col}"
            where += ": "
        super().__init__(where + self.problem)
