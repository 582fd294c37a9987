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

__all__ = ["INSTALL", "LOCAL", "require_ray", "connect", "disconnect"]

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
    `cpus` CPUs and no dashboard; None or "": RAY_ADDRESS). True when this
    call started Ray, which `disconnect` then stops; False when Ray was
    already up in this process (a test's session, say)."""
    ray = require_ray()
    if ray.is_initialized():
        return False
    quiet = dict(logging_level=logging.ERROR, log_to_driver=False)
    if address == LOCAL:
        ray.init(num_cpus=cpus, include_dashboard=False, **quiet)
        return True
    address = address or os.environ.get("RAY_ADDRESS")
    if not address:
        raise BabaError("--cluster: give the cluster's ADDRESS (or 'local'), or set RAY_ADDRESS")
    try:
        ray.init(address=address, **quiet)
    except (ConnectionError, RuntimeError, ValueError) as e:
        raise BabaError(f"--cluster {address}: cannot join the Ray cluster: {' '.join(str(e).split())}") from None
    return True


def disconnect(started: bool) -> None:
    if started:
        require_ray().shutdown()
