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
import sys
import threading
import time

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
            from oneflow.distributed import _boxing_collectives

            _boxing_collectives.sync_default_generator()
            atexit.register(_leave_together)
            sys.excepthook = _noting_failure(sys.excepthook)
        _initialized = True


_failed = False  # this process is exiting because of an uncaught exception


def _noting_failure(hook):
    def excepthook(exc_type, exc, tb) -> None:
        global _failed
        _failed = True
        hook(exc_type, exc, tb)

    return excepthook


def _leave_together() -> None:
    """At exit: rank 0 hosts the rendezvous store, which the other ranks need until they are done
    (to set up process groups of placements without rank 0, or to diagnose a failure), so it
    waits for them to leave or exit, at most the timeout, before the store goes away; unless it
    is exiting because of an uncaught exception: then the launcher must see it fail first (the
    others fail because of it), and its peers name it as the store's host that exited.

    No collective: a rank that exits because of an error (an exception, ``sys.exit(1)``) must
    not wait for the others, who may be in a collective with it. Every rank first closes its
    connections to its peers, so that a peer waiting for this rank in a collective fails at
    once, naming it, instead of at the timeout.
    """
    from oneflow.distributed import _process_group

    world = _process_group._world
    if world is None:
        return
    try:
        store = world.store
        store.set(f"{_LEAVING}/{world.rank}", b"1")  # first, so that the peers' diagnosis sees it
        for group in world.groups:
            group._close()
        if world.rank != 0 or _failed:
            return
        pending = set(range(1, world.world_size))
        deadline = time.monotonic() + world.timeout
        while pending and time.monotonic() < deadline:
            pending = {r for r in pending if not (store.check([f"{_LEAVING}/{r}"]) or store.check([f"__exited__/{r}"]))}
            if pending:
                time.sleep(0.01)
    except Exception:  # the store is gone (rank 0 exited first): nothing left to wait for
        pass


# Store key a rank sets when it leaves; the process groups' failure diagnosis reads it
# (csrc/process_group.cc), as it reads "__exited__/<rank>", which the store's server sets for a rank
# whose connection closed without a goodbye (a rank that was killed).
_LEAVING = "__leaving__"


def all_device_placement(device_type: str = "cpu"):
    """The placement of every rank of the job (``oneflow.placement.all(device_type)``)."""
    from oneflow.distributed.placement import placement

    return placement.all(device_type)
