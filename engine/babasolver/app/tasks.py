"""Levels to work on: one loader for one level and for many, one wording of
its errors.

A set is a Keke JSON level set (``{"levels": [...]}``) or a folder; in a
folder every level folder below it (one holding ``tiles.txt`` and
``content.txt``) is a level, named by its path relative to the folder. A
level that cannot be read becomes a task that carries its error, so that a
run over many levels reports it in its row and goes on.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional, Sequence, Tuple, Union

from ..errors import BabaError, LevelError, file_error
from ..files import check_input
from ..level import (
    CONTENT_FILE, TILES_FILE, KekeLevel, Level, find_level_folders, keke_entries, load_level, played_by,
    read_folder, read_keke_level,
)
from ..rulesets import DEFAULT_RULES, SOLUTION_FILES
from ..notation import parse_solution

__all__ = ["LevelTask", "load_tasks", "select_ids", "load_one", "is_level_folder", "check_level_files",
           "input_files"]

PathLike = Union[str, "os.PathLike[str]"]


@dataclass(frozen=True)
class LevelTask:
    """One level of a set: its id, the level (None when it cannot be read,
    and then `error` says why), the set's stored solution in Keke letters,
    the level folder it came from (None for a Keke set), and the rule set
    it is played by."""

    id: str
    level: Optional[Level]
    reference: Optional[str] = None
    folder: Optional[Path] = None
    error: Optional[str] = None
    rules: str = DEFAULT_RULES

    @property
    def reference_moves(self) -> Optional[int]:
        if not self.reference:
            return None
        try:
            return len(parse_solution(self.reference))
        except BabaError:
            return None


def is_level_folder(path: Path) -> bool:
    return (path / TILES_FILE).is_file() and (path / CONTENT_FILE).is_file()


def check_level_files(path: Path) -> None:
    """A level is read from regular files only: opening a FIFO would wait
    for a writer forever, and a device never ends. BabaError otherwise."""
    check_input(path)
    if path.is_dir():
        for name in (TILES_FILE, CONTENT_FILE):
            check_input(path / name, folders=False)


def input_files(path: PathLike, tasks: Sequence[LevelTask] = ()) -> List[Path]:
    """The files a command reads for the level or set at `path` (with the
    `tasks` loaded from it), which no output may replace: a Keke set, or
    each level folder's files, its solutions (under every rule set) included."""
    p = Path(path)
    folders = [t.folder for t in tasks if t.folder is not None] or ([p] if p.is_dir() else [])
    if not folders:
        return [p]
    return [folder / name for folder in folders for name in (TILES_FILE, CONTENT_FILE) + SOLUTION_FILES]


def _unlisted(folder: Path) -> Optional[str]:
    """Why `folder` cannot be listed, or None."""
    try:
        os.scandir(folder).close()
    except OSError as e:
        return f"{folder}: cannot read this folder: {e.strerror or e}"
    return None


def _folder_task(level_id: str, folder: Path, rules: str) -> LevelTask:
    """A folder that fails to read and cannot be listed says so: what it
    holds is unknown, its files' own errors (often "no such file") mislead."""
    try:
        check_level_files(folder)
        return LevelTask(level_id, played_by(read_folder(folder), rules, folder), None, folder, rules=rules)
    except BabaError as e:
        why = str(e)
    except OSError as e:
        why = file_error(e) or f"{folder}: {e.strerror or e}"
    return LevelTask(level_id, None, None, folder, error=_unlisted(folder) or why, rules=rules)


def _set_task(path: Path, lid: str, entry: Union[KekeLevel, LevelError], rules: str) -> LevelTask:
    if isinstance(entry, LevelError):
        return LevelTask(lid, None, error=str(entry), rules=rules)
    try:
        level = played_by(entry.level, rules)
    except LevelError as e:
        return LevelTask(lid, None, error=str(LevelError(f"level id {lid}: {e.problem}", path)), rules=rules)
    return LevelTask(lid, level, entry.solution or None, rules=rules)


def load_tasks(path: PathLike, rules: str = DEFAULT_RULES) -> List[LevelTask]:
    """The levels of a Keke JSON set, or of the level folders at or under a
    folder, in order, to be played by the rule set `rules`. Raises BabaError
    when the set itself cannot be read."""
    p = Path(path)
    if not p.exists():
        raise BabaError(f"{p}: no such level set or folder")
    check_input(p)
    if p.is_dir():
        folders = find_level_folders(p)
        if not folders:
            raise BabaError(f"{p}: no level folders (with {TILES_FILE} and {CONTENT_FILE}) in this folder")
        return [_folder_task(level_id, folder, rules) for level_id, folder in folders]
    if p.suffix.lower() != ".json":
        raise BabaError(f"{p}: not a level set: expected a Keke .json level set or a folder of level folders")
    tasks = [_set_task(p, lid, entry, rules) for lid, entry in keke_entries(p)]
    if not tasks:
        raise BabaError(f"{p}: the level set has no levels")
    return tasks


def select_ids(tasks: Sequence[LevelTask], ids: Optional[Sequence[str]]) -> List[LevelTask]:
    """The tasks whose ids are in `ids` (all of them when None), in set
    order. Ids match with or without spaces around them."""
    if ids is None:
        return list(tasks)
    wanted = [i.strip() for i in ids if i.strip()]
    if not wanted:
        raise BabaError("--ids: no level ids given")
    known = {t.id.strip() for t in tasks}
    unknown = [i for i in wanted if i not in known]
    if unknown:
        shown = ", ".join(t.id for t in tasks[:12]) + (", ..." if len(tasks) > 12 else "")
        raise BabaError(f"--ids: no level with id {', '.join(map(repr, unknown))} in the set (ids: {shown})")
    chosen = set(wanted)
    return [t for t in tasks if t.id.strip() in chosen]


def load_one(path: PathLike, level_id: Optional[str] = None,
             rules: str = DEFAULT_RULES) -> Tuple[Level, Optional[KekeLevel]]:
    """One level under the rule set `rules`, and its Keke set entry (author,
    stored solution) when it comes from a set."""
    p = Path(path)
    check_level_files(p)
    if level_id is not None and p.is_file() and p.suffix.lower() == ".json":
        entry = read_keke_level(p, level_id)
        try:
            return played_by(entry.level, rules), entry
        except LevelError as e:
            raise LevelError(f"level id {entry.id}: {e.problem}", p) from None
    return load_level(p, level_id, rules), None
