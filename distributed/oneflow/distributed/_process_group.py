"""Process groups: ``init_process_group``, ``new_group``, the state behind them, and the bridge to
the compiled communication layer (the extension ``oneflow.distributed._native``).

The world group is set up the way torch's ``env://`` does it: rank 0 hosts a TCP key-value
store on ``MASTER_ADDR:MASTER_PORT``, every rank connects to it, and the groups' backends
exchange their addresses through it. A :class:`ProcessGroup` holds one C++ process group per
backend it uses (``_native.ProcessGroup``, one interface over gloo and NCCL): a gloo one always (CPU
tensors), an NCCL one besides on the ``"nccl"`` backend (CUDA tensors); :func:`backend_group`
picks the one for a tensor, so the collectives never name a backend.
"""

from __future__ import annotations

import dataclasses
import datetime
import enum
import ipaddress
import os
import socket
import threading
from collections.abc import Sequence

from oneflow.distributed import _native

DistributedError = _native.DistributedError
DistributedTimeoutError = _native.DistributedTimeoutError
for _cls in (DistributedError, DistributedTimeoutError):
    _cls.__module__ = "oneflow.distributed"
DistributedError.__doc__ = (
    "A collective or point-to-point operation failed: a peer exited, lost its connection, or "
    "called a different collective. The message names the operation, the group's ranks and the "
    "ranks at fault. The group cannot be used afterwards."
)
DistributedTimeoutError.__doc__ = (
    "A collective did not complete within the group's timeout. The message names the collective, "
    "the group's ranks and the ranks that never arrived. The group cannot be used afterwards."
)

#: The timeout of every collective unless ``init_process_group``/``new_group`` say otherwise.
default_pg_timeout = datetime.timedelta(seconds=300)


class ReduceOp(enum.Enum):
    """How ``all_reduce``, ``reduce`` and ``reduce_scatter`` combine the ranks' values.

    ``SUM``, ``PRODUCT``, ``MIN``, ``MAX`` work on every dtype (on bool, ``SUM``/``MAX`` are a
    logical or, ``PRODUCT``/``MIN`` a logical and). ``AVG`` is the sum divided by the group's
    size (integers truncate, as NCCL's average does; not defined for bool). ``BAND``, ``BOR``,
    ``BXOR`` are bitwise, for integer and bool tensors. float16 and bfloat16 reduce in float32
    and round once.
    """

    # The values are the names the C++ layer parses (reduce_ops.cc); keep them in sync.
    SUM = "sum"
    PRODUCT = "product"
    MIN = "min"
    MAX = "max"
    AVG = "avg"
    BAND = "band"
    BOR = "bor"
    BXOR = "bxor"

    def __repr__(self) -> str:
        return f"ReduceOp.{self.name}"


class Backend:
    """Names of communication backends: ``Backend.GLOO`` (CPU, this build) and ``Backend.NCCL``."""

    GLOO = "gloo"
    NCCL = "nccl"


class ProcessGroup:
    """A set of ranks that run collectives together, from ``init_process_group`` or ``new_group``.

    Ranks passed to the collectives (``src``, ``dst``) are global ranks, as in torch; this
    object translates them. On a rank that is not a member, ``rank()`` is -1 and the
    collectives return without doing anything.
    """

    def __init__(self, gloo: _native.ProcessGroup | None, ranks: Sequence[int], name: str, timeout: float,
                 nccl: _native.ProcessGroup | None = None, backend: str = "gloo"):
        self._gloo = gloo  # for CPU tensors; None on a rank that is not a member
        self._nccl = nccl  # for CUDA tensors (backend "nccl", on members)
        self._backend = backend
        self._ranks = list(ranks)
        self._name = name
        self._timeout = timeout

    def rank(self) -> int:
        """This process's rank within the group, or -1 when it is not a member."""
        return self._gloo.rank if self._gloo is not None else -1

    def _close(self) -> None:
        """Drops the C++ groups: their contexts go, and their connections with them."""
        self._gloo = self._nccl = None

    def size(self) -> int:
        """The number of ranks in the group."""
        return len(self._ranks)

    @property
    def ranks(self) -> list[int]:
        """The global ranks of the members, in group-rank order."""
        return list(self._ranks)

    @property
    def timeout(self) -> datetime.timedelta:
        """The timeout of each collective on this group."""
        return datetime.timedelta(seconds=self._timeout)

    def __repr__(self) -> str:
        return f"ProcessGroup(ranks={self._ranks}, timeout={self._timeout:g}s)"


@dataclasses.dataclass(eq=False)
class _World:
    """What init_process_group sets up; one per process."""

    server: object
    store: object
    group: ProcessGroup
    rank: int
    world_size: int
    local_rank: int
    hostname: str
    timeout: float
    groups_created: int = 0
    groups: list[ProcessGroup] = dataclasses.field(init=False)

    def __post_init__(self):
        self.groups = [self.group]


_world: _World | None = None
_lock = threading.Lock()
# Worlds of a parent process, kept alive (never torn down) in a forked child.
_inherited: list = []


def _forget_world_in_child() -> None:
    """A forked child (a DataLoader worker, say) is not a rank: its copy of the process groups
    shares the parent's sockets, so it keeps them untouched and sees no default group."""
    global _world, _lock
    _lock = threading.Lock()
    if _world is not None:
        _inherited.append(_world)
        _world = None


os.register_at_fork(after_in_child=_forget_world_in_child)


def _seconds(fn: str, timeout) -> float:
    if isinstance(timeout, datetime.timedelta):
        seconds = timeout.total_seconds()
    elif isinstance(timeout, (int, float)) and not isinstance(timeout, bool):
        seconds = float(timeout)
    else:
        raise TypeError(f"{fn}: timeout must be a datetime.timedelta, got {type(timeout).__name__}")
    if not seconds > 0:
        raise ValueError(f"{fn}: timeout must be positive, got {timeout}")
    return seconds


def _env_int(fn: str, var: str, given: int, what: str) -> int:
    if given is not None and given >= 0:
        return int(given)
    text = os.environ.get(var)
    if text is None:
        raise ValueError(
            f"{fn}: {what} was not given and the environment variable {var} is not set "
            "(start the processes with `python -m oneflow.distributed.launch`, or set MASTER_ADDR, "
            "MASTER_PORT, WORLD_SIZE and RANK)"
        )
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"{fn}: environment variable {var}={text!r} is not an integer") from None


def _local_address(master_addr: str) -> str:
    """The address of this host that the master (and so, the other hosts) can reach."""
    override = os.environ.get("ONEFLOW_COMM_HOSTNAME")
    if override:
        return override
    try:
        family, _, _, _, sockaddr = socket.getaddrinfo(master_addr, None, type=socket.SOCK_DGRAM)[0]
    except socket.gaierror as e:
        raise ValueError(f"init_process_group: cannot resolve MASTER_ADDR={master_addr!r}: {e}") from None
    if ipaddress.ip_address(sockaddr[0]).is_loopback:
        return sockaddr[0]
    # The source address the kernel picks to reach the master; no packet is sent.
    with socket.socket(family, socket.SOCK_DGRAM) as s:
        s.connect((sockaddr[0], 9))
        return s.getsockname()[0]


def _parse_init_method(init_method: str | None) -> tuple[str | None, int | None]:
    if init_method is None or init_method == "env://":
        return None, None
    if init_method.startswith("tcp://"):
        hostport = init_method[len("tcp://"):].split("?")[0].rstrip("/")
        host, sep, port = hostport.rpartition(":")
        if sep and port.isdigit():
            return host.strip("[]"), int(port)
    raise ValueError(
        f"init_process_group: unsupported init_method {init_method!r}; use 'env://' (MASTER_ADDR and "
        "MASTER_PORT from the environment) or 'tcp://host:port'"
    )


def init_process_group(
    backend: str | None = None,
    init_method: str | None = None,
    timeout: datetime.timedelta = default_pg_timeout,
    world_size: int = -1,
    rank: int = -1,
    store=None,
    group_name: str = "",
    pg_options=None,
) -> None:
    r"""Initializes the default (world) process group.

    With ``init_method="env://"`` (the default) the job is described by the environment, as
    ``python -m oneflow.distributed.launch`` sets it: ``MASTER_ADDR`` and ``MASTER_PORT`` (where
    rank 0 hosts the rendezvous store), ``WORLD_SIZE``, ``RANK`` and ``LOCAL_RANK``.
    ``world_size`` and ``rank`` given here take precedence; ``init_method="tcp://host:port"``
    names the store's address instead of ``MASTER_ADDR``/``MASTER_PORT``. The call returns once
    every rank has joined, or raises :class:`DistributedTimeoutError` naming the missing ranks.

    Args:
        backend (str, optional): ``"gloo"`` (CPU tensors over TCP, the default). ``"nccl"``
            needs a build with ``--config=cuda`` and a CUDA GPU (``LOCAL_RANK`` picks it); it
            adds an NCCL group for CUDA tensors (``all_reduce``, ``broadcast``,
            ``all_gather_into_tensor``, ``reduce_scatter_tensor``, ``all_to_all_single``)
            beside the gloo one, which keeps serving CPU tensors.
        init_method (str, optional): ``"env://"`` or ``"tcp://host:port"``.
        timeout (datetime.timedelta, optional): how long any collective (and the rendezvous)
            may take before it raises :class:`DistributedTimeoutError`. Default: 300 s.
        world_size (int, optional): the number of processes (default: ``WORLD_SIZE``).
        rank (int, optional): this process's rank (default: ``RANK``).
        store, group_name, pg_options: accepted for compatibility with torch; ``store`` must be
            None.

    Example::

        >>> # run with: python -m oneflow.distributed.launch --nproc_per_node 2 script.py
        >>> import oneflow as flow
        >>> import oneflow.distributed as dist
        >>> dist.init_process_group("gloo")
        >>> t = flow.ones(3) * (dist.get_rank() + 1)
        >>> dist.all_reduce(t)
        >>> t
        tensor([3., 3., 3.])
    """
    global _world
    fn = "init_process_group"
    backend = Backend.GLOO if backend is None else str(backend).lower()
    use_nccl = backend == Backend.NCCL or backend.startswith("cuda") or "nccl" in backend
    if use_nccl and not is_nccl_available():
        raise RuntimeError(
            f"{fn}: backend {backend!r} needs NCCL, which needs oneflow built with `--config=cuda` (with the "
            "nvidia-nccl wheel in the build's virtualenv) and a CUDA GPU; this build has no NCCL. Use "
            "backend='gloo' with CPU tensors."
        )
    if not use_nccl and backend not in (Backend.GLOO, "cpu:gloo"):
        raise ValueError(f"{fn}: unknown backend {backend!r}; expected 'gloo' (or 'nccl' on CUDA builds)")
    if store is not None:
        raise ValueError(f"{fn}: passing a store is not supported; use init_method='env://' or 'tcp://host:port'")
    seconds = _seconds(fn, timeout)
    host, port = _parse_init_method(init_method)
    world_size = _env_int(fn, "WORLD_SIZE", world_size, "world_size")
    rank = _env_int(fn, "RANK", rank, "rank")
    if world_size < 1:
        raise ValueError(f"{fn}: world_size must be at least 1, got {world_size}")
    if not 0 <= rank < world_size:
        raise ValueError(f"{fn}: rank must be in [0, {world_size - 1}] for world_size {world_size}, got {rank}")
    if host is None:
        host = os.environ.get("MASTER_ADDR")
        if host is None:
            raise ValueError(f"{fn}: environment variable MASTER_ADDR is not set (the address of rank 0's host)")
        port = _env_int(fn, "MASTER_PORT", None, "the store's port")
    if not 0 < port < 65536:
        raise ValueError(f"{fn}: the store's port must be in [1, 65535], got {port}")
    local_text = os.environ.get("LOCAL_RANK")
    try:
        local_rank = int(local_text) if local_text else 0
    except ValueError:
        raise ValueError(f"{fn}: environment variable LOCAL_RANK={local_text!r} is not an integer") from None

    with _lock:
        if _world is not None:
            raise RuntimeError(f"{fn}: the default process group is already initialized; "
                               "call destroy_process_group() first")
        hostname = _local_address(host)
        server = _native.TCPStoreServer(port) if rank == 0 else None
        try:
            client = _native.TCPStore(host, port, rank, seconds)
            # gloo always: CPU tensors, objects and the fault diagnosis; NCCL besides for CUDA tensors.
            gloo = _native.new_group(Backend.GLOO, client, "world", rank, list(range(world_size)), seconds,
                                hostname=hostname)
            nccl = _nccl_group(fn, client, "world_nccl", rank, list(range(world_size)), local_rank,
                               seconds) if use_nccl else None
        except BaseException:
            del server
            raise
        backend = Backend.NCCL if use_nccl else Backend.GLOO
        group = ProcessGroup(gloo, range(world_size), "world", seconds, nccl, backend)
        _world = _World(server, client, group, rank, world_size, local_rank, hostname, seconds)


def _nccl_group(fn: str, store, name: str, rank: int, members: list, device: int, seconds: float):
    try:
        return _native.new_group(Backend.NCCL, store, name, rank, members, seconds, device=device)
    except DistributedError as e:
        raise RuntimeError(f"{fn}: the NCCL group of ranks {members} could not start on GPU {device} (LOCAL_RANK): "
                           f"{e}") from e


def _require_world(fn: str) -> _World:
    if _world is None:
        raise RuntimeError(
            f"{fn}: the default process group is not initialized; call "
            "oneflow.distributed.init_process_group() first"
        )
    return _world


def _group(fn: str, group: ProcessGroup | None) -> ProcessGroup:
    world = _require_world(fn)
    if group is None:
        return world.group
    if not isinstance(group, ProcessGroup):
        raise TypeError(f"{fn}: group must be a oneflow.distributed.ProcessGroup or None, got {type(group).__name__}")
    if group not in world.groups:
        raise ValueError(f"{fn}: {group} was destroyed or belongs to an earlier init_process_group")
    return group


def backend_group(fn: str, group: ProcessGroup | None, tensor=None):
    """The C++ group of ``group`` (default: the world) that runs ``fn`` on ``tensor``, or None
    when this rank is not a member (nothing to do): the NCCL one for a CUDA ``tensor``, else the
    gloo one. They take the same arguments: buffers as (address, element count, :func:`dtype_name`)."""
    g = _group(fn, group)
    if tensor is None or tensor.device.type == "cpu":
        return g._gloo
    if g._backend != Backend.NCCL:
        raise RuntimeError(
            f"{fn}: the tensors are on {tensor.device}, but the group's backend is gloo, which works on CPU "
            "tensors; CUDA tensors need init_process_group('nccl') (a `--config=cuda` build)"
        )
    if g._nccl is not None and tensor.device.index not in (None, g._nccl.device):
        raise ValueError(f"{fn}: the tensors are on {tensor.device}, but this rank's NCCL group works on "
                         f"cuda:{g._nccl.device} (its LOCAL_RANK)")
    return g._nccl


def dtype_name(t) -> str:
    """The name of ``t``'s dtype as the C++ groups take it ("float32", ...)."""
    return str(t.dtype).rsplit(".", 1)[-1]


def is_available() -> bool:
    """True: this build supports distributed (gloo over TCP)."""
    return True


def is_gloo_available() -> bool:
    """True: the gloo backend is built in."""
    return True


def is_nccl_available() -> bool:
    """Whether this build has the NCCL backend (a ``--config=cuda`` build with NCCL)."""
    return Backend.NCCL in _native.backends()


def is_initialized() -> bool:
    """Whether ``init_process_group`` has been called (and not undone)."""
    return _world is not None


def get_backend(group: ProcessGroup | None = None) -> str:
    """The backend of ``group`` (default: the world): ``"gloo"`` or ``"nccl"``."""
    return _group("get_backend", group)._backend


def get_rank(group: ProcessGroup | None = None) -> int:
    """This process's rank in ``group`` (default: the world); -1 when it is not a member."""
    return _group("get_rank", group).rank()


def get_world_size(group: ProcessGroup | None = None) -> int:
    """The number of ranks in ``group`` (default: the world)."""
    return _group("get_world_size", group).size()


def get_local_rank() -> int:
    """This process's rank on its node (``LOCAL_RANK``; 0 when it is unset)."""
    return _require_world("get_local_rank").local_rank


def get_process_group_ranks(group: ProcessGroup) -> list[int]:
    """The global ranks of ``group``'s members, in group-rank order."""
    return _group("get_process_group_ranks", group).ranks


def get_global_rank(group: ProcessGroup, group_rank: int) -> int:
    """The global rank of ``group_rank`` in ``group``."""
    g = _group("get_global_rank", group)
    if not 0 <= group_rank < g.size():
        raise ValueError(f"get_global_rank: group rank {group_rank} is outside the group {g.ranks}")
    return g.ranks[group_rank]


def get_group_rank(group: ProcessGroup, global_rank: int) -> int:
    """The rank within ``group`` of global rank ``global_rank``."""
    g = _group("get_group_rank", group)
    if global_rank not in g.ranks:
        raise ValueError(f"get_group_rank: rank {global_rank} is not a member of the group {g.ranks}")
    return g.ranks.index(global_rank)


def new_group(
    ranks: Sequence[int] | None = None,
    timeout: datetime.timedelta | None = None,
    backend: str | None = None,
    pg_options=None,
) -> ProcessGroup:
    r"""Creates a process group of a subset of the world's ranks.

    Every rank of the world must call ``new_group`` with the same ``ranks``, in the same order
    as its other ``new_group`` calls (members and non-members alike), as in torch. Members
    connect to each other before it returns; non-members get a group whose ``rank()`` is -1.

    Args:
        ranks (list of int, optional): the members' global ranks (default: the whole world).
            Group ranks follow the sorted global ranks.
        timeout (datetime.timedelta, optional): the timeout of this group's collectives
            (default: the one given to ``init_process_group``).
        backend (str, optional): ``"gloo"``, or ``"nccl"`` (an NCCL group beside the gloo one,
            as in :func:`init_process_group`); default: the world's backend.

    Example::

        >>> evens = dist.new_group([0, 2])
        >>> if dist.get_rank() in (0, 2):
        ...     dist.all_reduce(t, group=evens)
    """
    fn = "new_group"
    world = _require_world(fn)
    name_of = Backend.GLOO if backend is None else str(backend).lower()
    if name_of not in (Backend.GLOO, Backend.NCCL) or (name_of == Backend.NCCL and not is_nccl_available()):
        raise RuntimeError(f"{fn}: backend {backend!r} is not available in this build; use 'gloo'")
    use_nccl = name_of == Backend.NCCL or (backend is None and world.group._backend == Backend.NCCL)
    seconds = world.timeout if timeout is None else _seconds(fn, timeout)
    if ranks is None:
        members = list(range(world.world_size))
    else:
        members = sorted(int(r) for r in ranks)
        bad = [r for r in members if not 0 <= r < world.world_size]
        if bad:
            raise ValueError(f"{fn}: ranks {bad} are outside the world of {world.world_size} ranks")
        if len(set(members)) != len(members):
            raise ValueError(f"{fn}: ranks must be distinct, got {list(ranks)}")
        if not members:
            raise ValueError(f"{fn}: ranks must not be empty")
    with _lock:
        world.groups_created += 1
        name = f"group{world.groups_created}"
    gloo = nccl = None
    if world.rank in members:
        gloo = _native.new_group(Backend.GLOO, world.store, name, members.index(world.rank), members, seconds,
                            hostname=world.hostname)
        if use_nccl:
            nccl = _nccl_group(fn, world.store, name + "_nccl", members.index(world.rank), members,
                               world.local_rank, seconds)
    group = ProcessGroup(gloo, members, name, seconds, nccl, Backend.NCCL if use_nccl else Backend.GLOO)
    world.groups.append(group)
    return group


def destroy_process_group(group: ProcessGroup | None = None) -> None:
    """Tears down ``group``, or with no argument every group and the default one.

    After the default group is destroyed, ``init_process_group`` may be called again. On rank 0
    this also stops the store, so other ranks should be done with their collectives.
    """
    global _world
    with _lock:
        world = _require_world("destroy_process_group")
        if group is None or group is world.group:
            for g in world.groups:
                g._close()
            world.store.close()
            _world = None
            return
        if group not in world.groups:
            raise ValueError(f"destroy_process_group: {group} was already destroyed")
        world.groups.remove(group)
        group._close()
