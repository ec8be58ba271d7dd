"""Global tensors in checkpoints: OneFlow's ``oneflow.save(obj, path, global_dst_rank=)`` and
``oneflow.load(path, global_src_rank=)``.

Saving gathers each global tensor's global value to rank ``global_dst_rank``, which alone writes
the file (a plain checkpoint of local tensors); the other ranks take part in the gathering and do
no disk I/O. Loading reads the file on rank ``global_src_rank`` alone; every rank then gets the
same object, whose tensors are global tensors on ``placement(<device type>, [global_src_rank])``
with a broadcast sbp (convert them with ``to_global``). Every rank must call both alike.

The core's :mod:`oneflow.serialization` reaches this module through the ``global_checkpoint``
hook.
"""

from __future__ import annotations

import io
import pickle

import oneflow
from oneflow.distributed import env
from oneflow.distributed.global_tensor import GlobalParameter, GlobalTensor, make_global
from oneflow.distributed.placement import placement as Placement
from oneflow.distributed.sbp import B

__all__ = ["check_rank", "gather_to", "rank", "share_loaded"]


def rank() -> int:
    """This process's rank in the job."""
    return env.get_rank()


def check_rank(fn: str, arg: str, value) -> int:
    """``value`` as a rank of the job, or a TypeError/ValueError naming ``fn`` and ``arg``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{fn}(): argument '{arg}' must be an int rank, not {type(value).__name__}")
    world = env.get_world_size()
    if not 0 <= value < world:
        raise ValueError(f"{fn}(): {arg}={value} is not a rank of the job (world size {world})")
    return value


def gather_to(t: GlobalTensor, dst: int):
    """The global value of ``t`` as a local tensor on rank ``dst`` (None on the other ranks, which
    take part in the collective). A global parameter gives an ``nn.Parameter``; ``requires_grad``
    is kept."""
    with oneflow.no_grad():
        if t.placement.coord(dst) is not None:
            whole = t.to_global(sbp=tuple(B for _ in t.sbp))
        else:
            whole = t.to_global(placement=Placement(t.placement.type, [dst]), sbp=(B,))
    if rank() != dst:
        return None
    local = whole.to_local().detach().clone()
    if local.device.type != "cpu":
        local = local.cpu()
    if isinstance(t, GlobalParameter):
        return oneflow.nn.Parameter(local, requires_grad=t.requires_grad)
    return local.requires_grad_(t.requires_grad)


class _Skeleton(pickle.Pickler):
    """Pickles the loaded object with each tensor replaced by its meta (the data stays on the
    source rank)."""

    def __init__(self, file, tensors: list) -> None:
        super().__init__(file, protocol=4)
        self.tensors = tensors
        self.index: dict = {}

    def persistent_id(self, obj):
        if not isinstance(obj, oneflow.Tensor):
            return None
        if id(obj) not in self.index:
            self.index[id(obj)] = len(self.tensors)
            self.tensors.append(obj)
        return (
            "tensor",
            self.index[id(obj)],
            tuple(obj.shape),
            str(obj.dtype).split(".")[-1],
            obj.device.type,
            bool(obj.requires_grad),
            isinstance(obj, oneflow.nn.Parameter),
        )


class _Rebuild(pickle.Unpickler):
    def __init__(self, file, tensors: list, src: int) -> None:
        super().__init__(file)
        self.tensors = tensors
        self.src = src
        self.made: dict = {}

    def persistent_load(self, pid):
        _, i, shape, dtype_name, device_type, requires_grad, is_param = pid
        if i in self.made:
            return self.made[i]
        dtype = getattr(oneflow, dtype_name)
        here = rank() == self.src

        def make(local_shape, dev):
            if here:
                return self.tensors[i].detach().to(device=dev).clone()
            return oneflow.zeros(local_shape, dtype=dtype, device=dev)

        placement = Placement(device_type, [self.src])
        g = make_global(make, placement, (B,), False, shape=shape)
        g = GlobalParameter(g, requires_grad) if is_param else g.requires_grad_(requires_grad)
        self.made[i] = g
        return g


def share_loaded(obj, src: int):
    """``obj`` (loaded on rank ``src``; ignored elsewhere) on every rank, each of its tensors a
    global tensor on ``placement(<its device type>, [src])`` with a broadcast sbp."""
    env.init()
    tensors: list = []
    payload = [None]
    if rank() == src:
        buf = io.BytesIO()
        _Skeleton(buf, tensors).dump(obj)
        payload = [buf.getvalue()]
    if env.get_world_size() > 1:
        import oneflow.distributed as dist

        dist.broadcast_object_list(payload, src=src)
    return _Rebuild(io.BytesIO(payload[0]), tensors, src).load()


def _install() -> None:
    import sys

    from oneflow import _plugin

    _plugin.register_hook("global_checkpoint", sys.modules[__name__])


_install()
