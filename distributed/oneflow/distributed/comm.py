"""``oneflow.comm``: collectives on local tensors among all ranks, with OneFlow's names.

Thin wrappers of the ``oneflow.distributed`` functions on the default group; the communication
layer starts on first use (see :mod:`oneflow.env`). Every rank of the job must call them.
"""

from __future__ import annotations

import oneflow
from oneflow.distributed import env

__all__ = [
    "all_gather",
    "all_reduce",
    "all_to_all",
    "barrier",
    "broadcast",
    "gather",
    "recv",
    "reduce",
    "reduce_scatter",
    "scatter",
    "send",
]


def _dist():
    env.init()
    import oneflow.distributed as dist

    return dist


def _check_local(fn: str, t) -> None:
    if not isinstance(t, oneflow.Tensor):
        raise TypeError(f"oneflow.comm.{fn}: expected a tensor, got {type(t).__name__}")
    if getattr(t, "is_global", False):
        raise TypeError(f"oneflow.comm.{fn}: expected a local tensor, got a global one (use to_local())")


def _single() -> bool:
    return env.get_world_size() == 1


def all_reduce(tensor) -> None:
    """Sums ``tensor`` over all ranks, in place."""
    _check_local("all_reduce", tensor)
    if not _single():
        _dist().all_reduce(tensor)


def all_gather(tensor_list: list, tensor) -> None:
    """Fills ``tensor_list`` (one tensor per rank) with every rank's ``tensor``."""
    _check_local("all_gather", tensor)
    if _single():
        tensor_list[0].copy_(tensor)
        return
    _dist().all_gather(tensor_list, tensor)


def broadcast(tensor, src: int) -> None:
    """Copies rank ``src``'s ``tensor`` into ``tensor`` on every rank."""
    _check_local("broadcast", tensor)
    if not _single():
        _dist().broadcast(tensor, src)


def reduce(tensor, dst: int) -> None:
    """Sums ``tensor`` over all ranks into ``tensor`` of rank ``dst``."""
    _check_local("reduce", tensor)
    if not _single():
        _dist().reduce(tensor, dst)


def reduce_scatter(output, input_list: list) -> None:
    """Sums ``input_list[i]`` over all ranks into rank ``i``'s ``output``."""
    _check_local("reduce_scatter", output)
    if _single():
        output.copy_(input_list[0])
        return
    _dist().reduce_scatter(output, input_list)


def all_to_all(output_tensor_list: list, input_tensor_list: list) -> None:
    """Sends ``input_tensor_list[j]`` to rank ``j``; receives rank ``i``'s into
    ``output_tensor_list[i]``."""
    if _single():
        output_tensor_list[0].copy_(input_tensor_list[0])
        return
    _dist().all_to_all(output_tensor_list, input_tensor_list)


def gather(tensor, gather_list: list | None = None, dst: int = 0) -> None:
    """Collects every rank's ``tensor`` into ``gather_list`` on rank ``dst``."""
    _check_local("gather", tensor)
    if _single():
        gather_list[0].copy_(tensor)
        return
    _dist().gather(tensor, gather_list, dst)


def scatter(tensor, scatter_list: list | None = None, src: int = 0) -> None:
    """Copies ``scatter_list[i]`` of rank ``src`` into rank ``i``'s ``tensor``."""
    _check_local("scatter", tensor)
    if _single():
        tensor.copy_(scatter_list[0])
        return
    _dist().scatter(tensor, scatter_list, src)


def barrier() -> None:
    """Waits until every rank gets here."""
    if not _single():
        _dist().barrier()


def send(tensor, dst: int, send_meta: bool = True) -> None:
    """Sends ``tensor`` to rank ``dst``; with ``send_meta`` its shape and dtype go first, so that
    :func:`recv` needs no shape."""
    _check_local("send", tensor)
    dist = _dist()
    if send_meta:
        meta = [list(oneflow._C.dtypes).index(tensor.dtype), tensor.ndim] + list(tensor.shape)
        dist.send(oneflow.tensor([len(meta)], dtype=oneflow.int64), dst)
        dist.send(oneflow.tensor(meta, dtype=oneflow.int64), dst)
    dist.send(tensor.contiguous(), dst)


def recv(src: int, shape=None, dtype=None, device=None, *, out=None):
    """Receives a tensor from rank ``src``: of ``shape`` and ``dtype`` (or into ``out``), or, when
    neither is given, of the shape and dtype the sender sent first (``send(send_meta=True)``)."""
    dist = _dist()
    if out is None and shape is None:
        n = oneflow.empty(1, dtype=oneflow.int64)
        dist.recv(n, src)
        meta = oneflow.empty(int(n.item()), dtype=oneflow.int64)
        dist.recv(meta, src)
        values = meta.tolist()
        dtype = oneflow._C.dtypes[values[0]]
        shape = tuple(values[2:2 + values[1]])
    if out is None:
        out = oneflow.empty(tuple(shape), dtype=dtype or oneflow.float32, device=device)
    dist.recv(out, src)
    return out
