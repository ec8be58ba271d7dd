"""Collectives on local tensors among a tuple of world ranks, for boxing and global tensors.

A thin layer over the torch-style functions of ``oneflow.distributed`` (``_collectives``): it maps
a tuple of ranks to its process group, gives results as new tensors, and handles
the split/concatenate bookkeeping of the sbp conversions. Groups are made collectively: every
rank creates the groups of a placement, in the same order, the first time the placement is used
(see :func:`register_placement`), whether or not it is a member.
"""

from __future__ import annotations

import math

import oneflow
from oneflow.distributed import env
from oneflow.distributed._process_group import backend_group, dtype_name

_groups: dict = {}  # tuple of world ranks -> process group (None: the default group)
_registered: set = set()


def _dist():
    import oneflow.distributed as dist

    return dist


def register_placement(placement) -> None:
    """Creates (collectively, on every rank) the process groups ``placement`` needs: one per
    group of ranks along each placement axis, and one for the whole placement."""
    if placement in _registered:
        return
    env.init()
    wanted = [tuple(placement.flat_ranks)]
    for axis in range(placement.ndim):
        wanted.extend(placement.axis_groups(axis))
    for ranks in wanted:
        _group(ranks, create=True)
    _registered.add(placement)


def _group(ranks: tuple, create: bool = False):
    key = tuple(sorted(ranks))
    if key in _groups:
        return _groups[key]
    world = env.get_world_size()
    if key == tuple(range(world)):
        _groups[key] = None
        return None
    if not create:
        raise RuntimeError(f"internal error: no process group for ranks {list(ranks)}")
    group = _dist().new_group(list(key))
    _groups[key] = group
    return group


def _group_order(ranks: tuple) -> list:
    """Position p of a process group (whose ranks are sorted) holds ``ranks[order[p]]``."""
    return sorted(range(len(ranks)), key=lambda i: ranks[i])


def _to_front(t, dim: int):
    """``t`` with dimension ``dim`` moved to the front (contiguous)."""
    if dim == 0:
        return t
    order = [dim] + [d for d in range(t.ndim) if d != dim]
    return t.permute(order).contiguous()


def _from_front(t, dim: int):
    """Undoes :func:`_to_front`."""
    if dim == 0:
        return t
    order = list(range(1, dim + 1)) + [0] + list(range(dim + 1, t.ndim))
    return t.permute(order).contiguous()


def _plain(t):
    """A contiguous plain (local) tensor sharing ``t``'s values."""
    t = oneflow.Tensor.detach(t)
    return t if t.is_contiguous() else t.contiguous()


def sync_default_generator() -> None:
    """Gives every rank rank 0's default random generator state (called once, at init)."""
    state = oneflow.default_generator.get_state()
    state = _plain(state).clone()
    _dist().broadcast(state, 0)
    oneflow.default_generator.set_state(state)


def all_reduce(t, ranks: tuple):
    """The elementwise sum over ``ranks`` of ``t`` (a new tensor)."""
    if len(ranks) == 1:
        return t
    out = _plain(t).clone()
    _dist().all_reduce(out, group=_group(ranks))
    return out


def all_gather(t, ranks: tuple, dim: int, sizes: list):
    """The concatenation along ``dim`` of every rank's ``t`` (rank i's has ``sizes[i]`` there)."""
    if len(ranks) == 1:
        return t
    src = _to_front(_plain(t), dim)
    rest = tuple(src.shape[1:])
    order = _group_order(ranks)
    if src.device.type != "cpu":  # the collectives' own checks explain what is missing
        parts = [oneflow.empty((n,) + rest, dtype=src.dtype, device=src.device) for n in sizes]
        _dist().all_gather([parts[i] for i in order], src, group=_group(ranks))
        return _from_front(oneflow.cat(parts, 0), dim)
    # Straight into one buffer (the process group lays the pieces out in group-rank order):
    # no per-piece tensors and no concatenation, the copies that made boxing slower than a
    # raw all-gather.
    inner = math.prod(rest)
    out = oneflow.empty((sum(sizes),) + rest, dtype=src.dtype)
    backend_group("all_gather", _group(ranks)).all_gather(
        src.data_ptr(), out.data_ptr(), [sizes[i] * inner for i in order], dtype_name(src))
    if order != sorted(order):
        # Back to the placement's order along the axis.
        starts, start = {}, 0
        for i in order:
            starts[i] = start
            start += sizes[i]
        out = oneflow.cat([out.narrow(0, starts[i], sizes[i]) for i in range(len(ranks))], 0)
    return _from_front(out, dim)


def reduce_scatter(t, ranks: tuple, me: int, dim: int, sizes: list):
    """Piece ``me`` (``sizes`` along ``dim``) of the sum over ``ranks`` of ``t``."""
    if len(ranks) == 1:
        return t
    src = _to_front(_plain(t), dim)
    pieces, start = [], 0
    for n in sizes:
        pieces.append(src.narrow(0, start, n).contiguous())
        start += n
    out = oneflow.empty((sizes[me],) + tuple(src.shape[1:]), dtype=src.dtype, device=src.device)
    _dist().reduce_scatter(out, [pieces[i] for i in _group_order(ranks)], group=_group(ranks))
    return _from_front(out, dim)


def all_to_all(t, ranks: tuple, me: int, split_dim: int, split_sizes: list, cat_dim: int, cat_sizes: list):
    """Cuts ``t`` along ``split_dim`` into ``split_sizes`` pieces, sends piece j to rank j, and
    concatenates along ``cat_dim`` what every rank sent (rank i's with ``cat_sizes[i]`` there)."""
    if len(ranks) == 1:
        return t
    src = _plain(t)
    inputs, start = [], 0
    for n in split_sizes:
        inputs.append(src.narrow(split_dim, start, n).contiguous())
        start += n
    outputs = []
    for i in range(len(ranks)):
        shape = list(src.shape)
        shape[split_dim] = split_sizes[me]
        shape[cat_dim] = cat_sizes[i]
        outputs.append(oneflow.empty(tuple(shape), dtype=src.dtype, device=src.device))
    order = _group_order(ranks)
    _dist().all_to_all([outputs[i] for i in order], [inputs[i] for i in order], group=_group(ranks))
    return oneflow.cat(outputs, cat_dim)


def broadcast(t, ranks: tuple, src_rank: int):
    """``t`` of world rank ``src_rank`` on every rank of ``ranks`` (``t`` gives the shape elsewhere)."""
    if len(ranks) == 1:
        return t
    out = _plain(t).clone()
    _dist().broadcast(out, src_rank, group=_group(ranks))
    return out


def send(t, dst: int) -> None:
    """Sends ``t`` to world rank ``dst``."""
    _dist().send(_plain(t), dst)


def recv(shape, dtype, device, src: int):
    """Receives a tensor of ``shape`` and ``dtype`` from world rank ``src``."""
    out = oneflow.empty(tuple(shape), dtype=dtype, device=device)
    _dist().recv(out, src)
    return out


def all_gather_object_ints(values: list, ranks: tuple) -> list:
    """Every rank's list of ints (all the same length), in rank order."""
    t = oneflow.tensor(values, dtype=oneflow.int64)
    if len(ranks) == 1:
        return [list(values)]
    out = all_gather(t.reshape(1, -1), ranks, 0, [1] * len(ranks))
    return [[int(v) for v in row] for row in out.tolist()]
