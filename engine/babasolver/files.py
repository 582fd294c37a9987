"""The files the program reads and writes: only regular files (and folders
of them), and writes that readers see as the old file or the whole new one.

Opening a FIFO blocks until a writer comes, and a device never ends; so
an input that is neither a regular file nor a folder is refused in one
line before it is opened. An output is written to a temporary file and
renamed into place, and a rename replaces whatever the name held: so an
existing target that is not a regular file (a FIFO, a device such as
/dev/null, a socket, a folder) is refused, never replaced. The rename needs
only the folder's permission, so a file the user may not write (which a
shell's `>` would refuse) and a file the command reads (its level set, a
level folder's files) are refused too.
"""
from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from pathlib import Path
from typing import Iterable, Iterator, Optional, Union

from . import stopping
from .errors import BabaError

__all__ = ["OutputError", "check_input", "check_output", "written_path", "write_atomic", "write_atomic_chunks",
           "kind_of"]

PathLike = Union[str, "os.PathLike[str]"]

_KINDS = ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a folder"))


class OutputError(BabaError):
    """An output cannot be written; the message names the file."""


def kind_of(path: PathLike) -> Optional[str]:
    """None for a regular file or a path that does not exist (or cannot be
    looked at: the open that follows words that); else what it is, e.g.
    "a FIFO". Symbolic links are followed."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return None
    if stat.S_ISREG(mode):
        return None
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def check_input(path: PathLike, folders: bool = True) -> None:
    """Raise BabaError unless `path` is a regular file, a folder (when
    `folders`) or absent (its reader then says so)."""
    kind = kind_of(path)
    if kind is None or (folders and kind == "a folder"):
        return
    raise BabaError(f"{os.fspath(path)}: is {kind}, not a regular file; levels and solutions are read"
                    " from regular files only")


def written_path(path: PathLike) -> Path:
    """The file a write to `path` replaces: as a shell's `>` writes through
    a symbolic link, so does a write here, rather than replace the link.
    An OutputError for a path that names a folder (its last part empty,
    '.' or '..': pathlib would drop the '/' or '.', and write the file
    before it)."""
    text = os.fspath(path)
    if os.path.basename(text) in ("", ".", ".."):
        raise OutputError(f"{text}: cannot write: the path names a folder, not a file")
    target = Path(text)
    if not os.path.islink(target):
        return target
    try:
        os.stat(target)
    except FileNotFoundError:           # a dangling link: the write makes the file it names
        if os.readlink(target).endswith(("/", "/.")):
            raise OutputError(f"{text}: cannot write: the link names a folder, not a file") from None
    except OSError as e:                # a loop, or more links in a row than the system follows
        raise OutputError(f"{text}: cannot write: {e.strerror or e}") from None
    return Path(os.path.realpath(target))


def check_output(path: PathLike, what: str = "", inputs: Iterable[PathLike] = ()) -> Path:
    """Raise OutputError when writing `path` would replace what was not
    asked to be replaced: a target that is not a regular file, a file the
    user may not write, or one of `inputs` (the files the command reads).
    Else the file the write replaces (written_path)."""
    where = f" {what}" if what else ""

    def refuse(why: str) -> OutputError:
        return OutputError(f"{os.fspath(path)}: cannot write{where}: {why}")

    target = written_path(path)
    kind = kind_of(target)
    if kind is not None:
        raise refuse(f"it is {kind}, not a regular file, and would be replaced")
    if not os.path.exists(target):
        return target
    for read in inputs:
        with contextlib.suppress(OSError, ValueError):
            if os.path.samefile(target, read):
                raise refuse("this command reads it, and it would be replaced")
    if not os.access(target, os.W_OK):
        raise refuse("permission denied (the file is read-only, and would be replaced)")
    return target


def _failed(target: PathLike, e: OSError) -> OutputError:
    return OutputError(f"{os.fspath(target)}: cannot write: {e.strerror or e}")


@contextlib.contextmanager
def _temporary(path: PathLike) -> Iterator["tuple[int, str]"]:
    target = check_output(path)
    folder = target.parent if str(target.parent) else Path(".")
    fd = -1
    try:
        # A Ctrl-C between mkstemp's return and the `try` below would leave
        # the file behind: it is acted on once the name is known.
        with stopping.deferred():
            fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
    except OSError as e:
        raise _failed(path, e) from None
    except KeyboardInterrupt:
        if fd >= 0:
            os.close(fd)
            os.unlink(tmp)
        raise
    try:
        yield fd, tmp
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        # The name may have become a FIFO or a device while we wrote.
        check_output(path)
        os.replace(tmp, target)
    except BaseException as e:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(e, OSError):
            raise _failed(path, e) from None
        raise


def write_atomic_chunks(path: PathLike, chunks: Iterable[bytes]) -> None:
    """Write the chunks, as they come, to a temporary file in the same
    folder, flush it to disk and rename it over `path`. On any failure
    (a chunk's producer may raise too) the temporary file is removed, so
    nothing partial is left behind, and an OSError becomes an OutputError
    naming `path`. The file gets the usual permissions (0666 less the
    umask), not mkstemp's 0600. An existing `path` that is not a regular
    file is refused (OutputError) and left alone."""
    with _temporary(path) as (fd, _tmp):
        with os.fdopen(fd, "wb") as f:
            for chunk in chunks:
                f.write(chunk)
            f.flush()
            os.fsync(f.fileno())


def write_atomic(path: PathLike, data: bytes) -> None:
    """`write_atomic_chunks` of one chunk."""
    write_atomic_chunks(path, (data,))
