"""``oneflow.env``: where this process stands in the job.

The launcher (``python -m oneflow.distributed.launch``) sets ``RANK``, ``WORLD_SIZE``,
``LOCAL_RANK``, ``LOCAL_WORLD_SIZE`` and ``GROUP_WORLD_SIZE`` (the number of nodes); a process
started without it is rank 0 of a world of one. The communication layer is initialized on
first need (the first global tensor that needs a collective), from the same variables
(``env://``), unless the program called ``oneflow.distributed.init_process_group`` itself.
"""

from __future__ import annotations

import atexit
import os
import threading

__all__ = ["all_device_placement", "get_local_rank", "get_node_size", "get_rank", "get_world_size", "init"]

_lock = threading.Lock()
_initialized = False


def _int_env(name: str, default: int) -> int:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    try:
        return int(value)
    except ValueError:
        raise ValueError(f"environment variable {name}={value!r} is not an integer") from None


def _dist():
    import oneflow.distributed as dist

    return dist


def _process_group_ready() -> bool:
    dist = _dist()
    is_init = getattr(dist, "is_initialized", None)
    return bool(is_init and is_init())


def get_rank() -> int:
    """This process's rank in the job (0 without a launcher)."""
    if _process_group_ready():
        return _dist().get_rank()
    return _int_env("RANK", 0)


def get_world_size() -> int:
    """The number of processes in the job (1 without a launcher)."""
    if _process_group_ready():
        return _dist().get_world_size()
    return _int_env("WORLD_SIZE", 1)


def get_local_rank() -> int:
    """This process's rank on its node (``LOCAL_RANK``; 0 without a launcher)."""
    return _int_env("LOCAL_RANK", 0)


def get_node_size() -> int:
    """The number of nodes (machines) of the job."""
    nodes = _int_env("GROUP_WORLD_SIZE", 0)
    if nodes > 0:
        return nodes
    local = _int_env("LOCAL_WORLD_SIZE", 0)
    world = get_world_size()
    return max(1, world // local) if local > 0 else 1


def init() -> None:
    """Initializes communication for global tensors (idempotent; a no-op in a world of one).

    Starts the default process group from the environment (``env://``, gloo) unless the program
    already did, then makes every rank's default random generator state equal to rank 0's, so
    random global tensors and random ops on broadcast tensors agree on every rank.
    """
    global _initialized
    if _initialized:
        return
    with _lock:
        if _initialized:
            return
        if get_world_size() > 1:
            dist = _dist()
            if not _process_group_ready():
                dist.init_process_group(backend="gloo")
            from oneflow.distributed import _coll

            _coll.sync_default_generator()
            atexit.register(_leave_together)
        _initialized = True


def _leave_together() -> None:
    """At exit, waits for every rank: rank 0 hosts the rendezvous store, and ranks still setting up
    process groups (for placements that do not include rank 0) need it until they are done."""
    if _process_group_ready():
        try:
            _dist().barrier()
        except Exception:
            pass


def all_device_placement(device_type: str = "cpu"):
    """The placement of every rank of the job (``oneflow.placement.all(device_type)``)."""
    from oneflow.distributed.placement import placement

    return placement.all(device_type)
