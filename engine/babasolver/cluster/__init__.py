"""Past one machine, on Ray (the optional extra ``[cluster]``): ``bench``'s
levels as Ray tasks (cluster.bench), and breadth-first search over a
visited set split by hash among Ray actors (cluster.bfs, cluster.actor).

Ray and numpy are imported only here, when a command asks for a cluster,
so the default install never needs them."""
from __future__ import annotations

import logging
import os
from types import ModuleType
from typing import Optional

from ..errors import BabaError

__all__ = ["INSTALL", "LOCAL", "require_ray", "connect", "disconnect", "cluster_cpus", "one_line"]

#: How to get the extra, as every error that needs it says.
INSTALL = "pip install 'babasolver[cluster]'"
#: The address that starts an embedded Ray on this machine.
LOCAL = "local"


def require_ray() -> ModuleType:
    """The ray module; a BabaError naming the extra when it (or numpy) is missing."""
    try:
        import numpy  # noqa: F401 - the packets between workers are numpy buffers
        import ray
    except ImportError as e:
        raise BabaError(f"--cluster needs Ray and numpy, which are not installed ({e.name} is missing):"
                        f" {INSTALL}") from None
    return ray


def connect(address: Optional[str], cpus: int) -> bool:
    """Join the Ray cluster at `address` ("local": start one here with
    `cpus` CPUs and no dashboard; "auto", None or "": RAY_ADDRESS, else a
    cluster already running on this machine). True when this
    call started Ray, which `disconnect` then stops; False when Ray was
    already up in this process (a test's session, say)."""
    ray = require_ray()
    if ray.is_initialized():
        return False
    quiet = dict(logging_level=logging.ERROR, log_to_driver=False)
    if address == LOCAL:
        ray.init(num_cpus=cpus, include_dashboard=False, **quiet)
        return True
    if address in (None, "", "auto"):
        address = os.environ.get("RAY_ADDRESS") or "auto"
    try:
        ray.init(address=address, **quiet)
    except (ConnectionError, RuntimeError, ValueError) as e:
        raise BabaError(f"--cluster {address}: cannot join the Ray cluster: {' '.join(str(e).split())}") from None
    return True


def disconnect(started: bool) -> None:
    if started:
        require_ray().shutdown()


def cluster_cpus() -> int:
    """The CPUs of the cluster Ray is connected to."""
    return max(1, int(require_ray().cluster_resources().get("CPU", 1)))


def one_line(e: BaseException) -> str:
    """A Ray error's cause in one line: its first line that says something."""
    cause = next((line.strip() for line in str(e).splitlines() if line.strip()), "")
    return f"{type(e).__name__}: {cause}" if cause else type(e).__name__
