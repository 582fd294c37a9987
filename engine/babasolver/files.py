"""Writing files so that readers see the old file or the whole new one."""
from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

__all__ = ["write_atomic"]


def write_atomic(path: "os.PathLike[str] | str", data: bytes) -> None:
    """Write `data` to a temporary file in the same folder, flush it to disk
    and rename it over `path`; on any failure the temporary file is removed,
    so nothing partial is left behind. The file gets the usual permissions
    (0666 less the umask), not mkstemp's 0600."""
    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
