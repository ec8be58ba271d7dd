"""Multi-process OneFlow: Global Tensor and its runtime (the oneflow-distributed wheel).

This package contributes the ``oneflow.distributed`` name to the core package. It holds:

- the communication layer: ``init_process_group`` (rendezvous through a TCP store that rank 0
  hosts on ``MASTER_ADDR:MASTER_PORT``, as torch's ``env://``), ``new_group`` for subsets of
  ranks, and torch.distributed-style collectives on local CPU tensors over gloo's TCP transport
  (``all_reduce``, ``all_gather`` with uneven sizes, ``reduce_scatter``, ``broadcast``,
  ``all_to_all``, ``send``/``recv``, ``barrier``, ``gather``, ``scatter``, ``reduce``). Every
  collective has a timeout (300 s unless ``init_process_group``/``new_group`` say otherwise);
  a collective that cannot complete raises :class:`DistributedTimeoutError` (or
  :class:`DistributedError` when a peer exits) naming the collective, the group's ranks and
  the ranks that never arrived;
- the launcher, ``python -m oneflow.distributed.launch``.

Placement, SBP and boxing, and DistributedDataParallel build on these and come next.

The compiled part (``oneflow/distributed/_native.so``) links the system's gloo library at run
time: install it with ``apt-get install libgloo0`` (Debian/Ubuntu; ``libgloo-dev`` to build).
The NCCL backend needs a ``--config=cuda`` build and a GPU.
"""

try:
    from oneflow._plugin import check_oneflow_requirement as _check
    from oneflow._plugin import register_hook as _register_hook
except ImportError as e:  # no oneflow, or one older than the plugin mechanism
    raise ImportError(f"oneflow-distributed needs the oneflow package; install a oneflow wheel first ({e})") from e

from oneflow.distributed._version import ONEFLOW_REQUIREMENT, __version__  # noqa: F401 (public names)

_check("oneflow-distributed", ONEFLOW_REQUIREMENT)

try:
    from oneflow.distributed import _native  # noqa: F401 (fails here, with a clear message, if libgloo is missing)
except ImportError as e:
    raise ImportError(
        f"oneflow.distributed: its compiled part could not be loaded ({e}). It needs the system gloo "
        "library: apt-get install libgloo0 (Debian/Ubuntu)."
    ) from e

# The collectives (all_reduce, broadcast, ...): the names _collectives.__all__ lists.
from oneflow.distributed import _collectives  # noqa: E402 (after the version check)
from oneflow.distributed._collectives import *  # noqa: E402, F403
from oneflow.distributed._process_group import (  # noqa: E402
    Backend,
    DistributedError,
    DistributedTimeoutError,
    ProcessGroup,
    ReduceOp,
    default_pg_timeout,
    destroy_process_group,
    get_backend,
    get_global_rank,
    get_group_rank,
    get_local_rank,
    get_process_group_ranks,
    get_rank,
    get_world_size,
    init_process_group,
    is_available,
    is_gloo_available,
    is_initialized,
    is_nccl_available,
    new_group,
)


def _world():
    """(world size, rank) of the initialized default process group, or None: the core's
    ``process_group_world`` hook (DistributedSampler's defaults)."""
    if is_available() and is_initialized():
        return get_world_size(), get_rank()
    return None


_register_hook("process_group_world", _world)


def _group_all_reduce(group):
    """(size, in-place sum over ``group``) for the initialized default process group (the world
    when ``group`` is None), or None: the core's ``process_group_all_reduce`` hook
    (``nn.SyncBatchNorm``)."""
    if not (is_available() and is_initialized()):
        return None

    def reduce(t):
        _collectives.all_reduce(t, group=group)
        return t

    return get_world_size(group), reduce


_register_hook("process_group_all_reduce", _group_all_reduce)

__all__ = [
    "Backend",
    "DistributedError",
    "DistributedTimeoutError",
    "ProcessGroup",
    "ReduceOp",
    "default_pg_timeout",
    "destroy_process_group",
    "get_backend",
    "get_global_rank",
    "get_group_rank",
    "get_local_rank",
    "get_process_group_ranks",
    "get_rank",
    "get_world_size",
    "init_process_group",
    "is_available",
    "is_gloo_available",
    "is_initialized",
    "is_nccl_available",
    "new_group",
    *_collectives.__all__,
]
