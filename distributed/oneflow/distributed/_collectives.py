"""torch.distributed-style collectives on local oneflow tensors, the public ones of
``oneflow.distributed`` (``all_reduce``, ``all_gather``, ...; DDP's).

Each function checks its arguments on the calling rank (types, dtypes, sizes, ranks) and
raises an exception naming the function and what it expected; then it hands contiguous
buffers to the group's C++ process group for the tensors' device (``backend_group``), copying in
and out for non-contiguous tensors.
Ranks in arguments (``src``, ``dst``) are global ranks. The calls block until done; with
``async_op=True`` they return a :class:`Work` that is already complete.
"""

from __future__ import annotations

import pickle
from collections.abc import Sequence

import numpy as np

import oneflow as flow
from oneflow.distributed._process_group import ProcessGroup, ReduceOp, _group, backend_group, dtype_name

__all__ = [
    "Work",
    "all_gather",
    "all_gather_into_tensor",
    "all_gather_object",
    "all_reduce",
    "all_to_all",
    "all_to_all_single",
    "barrier",
    "broadcast",
    "broadcast_object_list",
    "gather",
    "recv",
    "reduce",
    "reduce_scatter",
    "reduce_scatter_tensor",
    "scatter",
    "send",
]


class Work:
    """The handle an ``async_op=True`` call returns. Calls complete before returning, so
    ``wait()`` returns at once."""

    def wait(self, timeout=None) -> bool:
        """Returns True: the operation is complete."""
        return True

    def is_completed(self) -> bool:
        """True: the operation is complete."""
        return True

    def is_success(self) -> bool:
        """True: a failed operation raises instead of returning a handle."""
        return True


_DONE = Work()


def _done(async_op: bool) -> Work | None:
    return _DONE if async_op else None


def _check_tensor(fn: str, arg: str, t, cuda: bool = False) -> None:
    """``cuda``: the collective also takes CUDA tensors (on the NCCL backend)."""
    if not isinstance(t, flow.Tensor):
        raise TypeError(f"{fn}: {arg} must be a oneflow.Tensor, got {type(t).__name__}")
    if t.device.type != "cpu" and not (cuda and t.device.type == "cuda"):
        raise RuntimeError(
            f"{fn}: {arg} is on {t.device}, but the gloo backend works on CPU tensors "
            "(CUDA tensors need NCCL, which needs a `--config=cuda` build)"
        )
    if getattr(t, "is_global", False):
        raise RuntimeError(f"{fn}: {arg} is a global tensor; collectives take local tensors (use .to_local())")


def _check_list(fn: str, arg: str, tensors, n: int | None, dtype=None) -> list:
    if not isinstance(tensors, (list, tuple)):
        raise TypeError(f"{fn}: {arg} must be a list of oneflow.Tensor, got {type(tensors).__name__}")
    if n is not None and len(tensors) != n:
        raise ValueError(f"{fn}: {arg} has {len(tensors)} tensors, expected {n} (one per rank of the group)")
    for i, t in enumerate(tensors):
        _check_tensor(fn, f"{arg}[{i}]", t)
        if dtype is not None and t.dtype != dtype:
            raise TypeError(f"{fn}: {arg}[{i}] has dtype {t.dtype}, expected {dtype} (the input's dtype)")
    return list(tensors)


def _check_device(fn: str, output, input) -> None:
    if output.device != input.device:
        raise ValueError(f"{fn}: the output is on {output.device} but the input on {input.device}")


def _check_dtype(fn: str, arg: str, t, dtype) -> None:
    if t.dtype != dtype:
        raise TypeError(f"{fn}: {arg} has dtype {t.dtype}, expected {dtype} (the input's dtype)")


def _op(fn: str, op) -> str:
    if isinstance(op, ReduceOp):
        return op.value
    if isinstance(op, str) and op.lower() in {o.value for o in ReduceOp}:
        return op.lower()
    raise TypeError(f"{fn}: op must be a oneflow.distributed.ReduceOp, got {op!r}")


def _group_rank(fn: str, arg: str, group: ProcessGroup | None, rank) -> int:
    g = _group(fn, group)
    if isinstance(rank, bool) or not isinstance(rank, int):
        raise TypeError(f"{fn}: {arg} must be an int rank, got {type(rank).__name__}")
    if rank not in g.ranks:
        raise ValueError(f"{fn}: {arg}={rank} is not a rank of the group {g.ranks}")
    return g.ranks.index(rank)


def _ptr(t) -> int:
    return t.data_ptr()


def _contiguous(t):
    return t if t.is_contiguous() else t.contiguous()


def _write_back(dst, src) -> None:
    """Copies the buffer a collective wrote (src) into the caller's tensor (dst), unless they
    are the same memory."""
    if src is not dst:
        with flow.no_grad():
            dst.copy_(src.reshape(dst.shape))


def _flat(tensors: Sequence, dtype):
    if not tensors:
        return flow.empty(0, dtype=dtype)
    return _contiguous(flow.cat([t.reshape(-1) for t in tensors]))


def _unflatten(flat, tensors: Sequence) -> None:
    offset = 0
    for t in tensors:
        n = t.numel()
        _write_back(t, flat[offset:offset + n])
        offset += n


def all_reduce(tensor, op: ReduceOp = ReduceOp.SUM, group: ProcessGroup | None = None, async_op: bool = False):
    r"""Reduces ``tensor`` over the ranks of ``group``, in place: every rank gets the result.

    Args:
        tensor (Tensor): input and output, of any dtype (float16/bfloat16 reduce in float32).
        op (ReduceOp, optional): ``SUM`` (default), ``PRODUCT``, ``MIN``, ``MAX``, ``AVG``,
            ``BAND``, ``BOR``, ``BXOR``.
        group (ProcessGroup, optional): default: the world.
        async_op (bool, optional): return a (completed) :class:`Work`.

    Example::

        >>> t = flow.tensor([1.0, 2.0]) * (dist.get_rank() + 1)   # 2 ranks
        >>> dist.all_reduce(t)
        >>> t
        tensor([3., 6.])
    """
    fn = "all_reduce"
    _check_tensor(fn, "tensor", tensor, cuda=True)
    name = _op(fn, op)
    pg = backend_group(fn, group, tensor)
    if pg is None:
        return None
    buf = _contiguous(tensor)
    pg.all_reduce(_ptr(buf), buf.numel(), dtype_name(buf), name)
    _write_back(tensor, buf)
    return _done(async_op)


def reduce(tensor, dst: int, op: ReduceOp = ReduceOp.SUM, group: ProcessGroup | None = None,
           async_op: bool = False):
    r"""Reduces ``tensor`` over the ranks of ``group`` into ``tensor`` on rank ``dst``.

    The other ranks' ``tensor`` is left unchanged.

    Args:
        tensor (Tensor): input, and output on ``dst``.
        dst (int): the global rank that receives the result.
        op (ReduceOp, optional): as in :func:`all_reduce`.
    """
    fn = "reduce"
    _check_tensor(fn, "tensor", tensor)
    name = _op(fn, op)
    pg = backend_group(fn, group)
    if pg is None:
        return None
    root = _group_rank(fn, "dst", group, dst)
    buf = _contiguous(tensor)
    pg.reduce(_ptr(buf), buf.numel(), dtype_name(buf), name, root)
    if pg.rank == root:
        _write_back(tensor, buf)
    return _done(async_op)


def broadcast(tensor, src: int, group: ProcessGroup | None = None, async_op: bool = False):
    r"""Copies ``tensor`` of rank ``src`` into ``tensor`` of every rank of ``group``.

    Args:
        tensor (Tensor): the data on ``src``; the output elsewhere (same shape and dtype).
        src (int): the global rank that sends.
    """
    fn = "broadcast"
    _check_tensor(fn, "tensor", tensor, cuda=True)
    pg = backend_group(fn, group, tensor)
    if pg is None:
        return None
    root = _group_rank(fn, "src", group, src)
    buf = _contiguous(tensor)
    pg.broadcast(_ptr(buf), buf.numel(), dtype_name(buf), root)
    if pg.rank != root:
        _write_back(tensor, buf)
    return _done(async_op)


def _blocks_per_rank(fn: str, arg: str, tensor, list_arg: str, tensors, what: str, group):
    """all_gather and reduce_scatter: a list of one tensor per rank of the group (sizes may
    differ), whose entry for this rank (its ``what``) has ``tensor``'s size. Returns (backend
    group, the checked list, the entries' element counts), or (None, None, None) on a rank
    outside the group."""
    _check_tensor(fn, arg, tensor)
    g = _group(fn, group)
    pg = backend_group(fn, g)
    if pg is None:
        return None, None, None
    checked = _check_list(fn, list_arg, tensors, g.size(), tensor.dtype)
    counts = [t.numel() for t in checked]
    if counts[pg.rank] != tensor.numel():
        raise ValueError(
            f"{fn}: {list_arg}[{pg.rank}] (this rank's {what}) has {counts[pg.rank]} elements but {arg} has "
            f"{tensor.numel()} (shape {tuple(tensor.shape)})"
        )
    return pg, checked, counts


def all_gather(tensor_list: list, tensor, group: ProcessGroup | None = None, async_op: bool = False):
    r"""Gathers every rank's ``tensor`` into ``tensor_list`` on every rank.

    Sizes may differ between ranks: ``tensor_list[i]`` must have as many elements as rank
    ``i``'s ``tensor`` (the same on every rank), and the dtype of ``tensor``.

    Args:
        tensor_list (list of Tensor): one output per rank of the group, in group-rank order.
        tensor (Tensor): this rank's contribution.

    Example::

        >>> t = flow.arange(dist.get_rank() + 1)          # rank 0: [0], rank 1: [0, 1]
        >>> out = [flow.empty(1, dtype=t.dtype), flow.empty(2, dtype=t.dtype)]
        >>> dist.all_gather(out, t)
        >>> out
        [tensor([0]), tensor([0, 1])]
    """
    fn = "all_gather"
    pg, outputs, counts = _blocks_per_rank(fn, "tensor", tensor, "tensor_list", tensor_list, "slot", group)
    if pg is None:
        return None
    src = _contiguous(tensor)
    flat = flow.empty(sum(counts), dtype=tensor.dtype)
    pg.all_gather(_ptr(src), _ptr(flat), counts, dtype_name(src))
    _unflatten(flat, outputs)
    return _done(async_op)


def _equal_blocks(fn: str, output_arg: str, output, input_arg: str, input, group, gathers: bool):
    """all_gather_into_tensor (``gathers``: the output holds one input per rank of the group) and
    reduce_scatter_tensor (the input holds one output per rank), on tensors of the same dtype
    and device. Returns (backend group, elements per block), or (None, None) on a rank outside
    the group."""
    _check_tensor(fn, output_arg, output, cuda=True)
    _check_tensor(fn, input_arg, input, cuda=True)
    whole_arg, whole, block_arg, block = (
        (output_arg, output, input_arg, input) if gathers else (input_arg, input, output_arg, output)
    )
    _check_dtype(fn, whole_arg, whole, block.dtype)
    _check_device(fn, output, input)
    g = _group(fn, group)
    pg = backend_group(fn, group, input)
    if pg is None:
        return None, None
    n = block.numel()
    if whole.numel() != n * g.size():
        raise ValueError(
            f"{fn}: {whole_arg} has {whole.numel()} elements (shape {tuple(whole.shape)}), expected "
            f"{g.size()} x {n} (group size x {block_arg}'s elements)"
        )
    return pg, n


def all_gather_into_tensor(output_tensor, input_tensor, group: ProcessGroup | None = None,
                           async_op: bool = False):
    r"""Gathers every rank's ``input_tensor`` into ``output_tensor``, concatenated in rank order.

    ``output_tensor`` has ``world_size`` times the elements of ``input_tensor``: its shape is
    either the inputs concatenated along dim 0 or stacked along a new dim 0.
    """
    fn = "all_gather_into_tensor"
    pg, n = _equal_blocks(fn, "output_tensor", output_tensor, "input_tensor", input_tensor, group, gathers=True)
    if pg is None:
        return None
    src = _contiguous(input_tensor)
    out = _contiguous(output_tensor)
    pg.all_gather(_ptr(src), _ptr(out), [n] * pg.size, dtype_name(src))
    _write_back(output_tensor, out)
    return _done(async_op)


def reduce_scatter(output, input_list: list, op: ReduceOp = ReduceOp.SUM, group: ProcessGroup | None = None,
                   async_op: bool = False):
    r"""Reduces ``input_list[i]`` over the ranks and leaves the result in rank ``i``'s ``output``.

    Sizes may differ between entries: ``input_list[i]`` must have as many elements as rank
    ``i``'s ``output`` (the same on every rank).

    Args:
        output (Tensor): this rank's result.
        input_list (list of Tensor): one block per rank of the group, in group-rank order.
        op (ReduceOp, optional): as in :func:`all_reduce`.
    """
    fn = "reduce_scatter"
    name = _op(fn, op)
    pg, inputs, counts = _blocks_per_rank(fn, "output", output, "input_list", input_list, "block", group)
    if pg is None:
        return None
    flat = _flat(inputs, output.dtype)
    out = _contiguous(output)
    pg.reduce_scatter(_ptr(flat), _ptr(out), counts, dtype_name(out), name)
    _write_back(output, out)
    return _done(async_op)


def reduce_scatter_tensor(output, input, op: ReduceOp = ReduceOp.SUM, group: ProcessGroup | None = None,
                          async_op: bool = False):
    r"""Reduces ``input`` over the ranks and gives rank ``i`` the ``i``-th of ``world_size`` equal
    blocks (in memory order) in ``output``.

    ``input`` has ``world_size`` times the elements of ``output``.
    """
    fn = "reduce_scatter_tensor"
    name = _op(fn, op)
    pg, n = _equal_blocks(fn, "output", output, "input", input, group, gathers=False)
    if pg is None:
        return None
    src = _contiguous(input)
    out = _contiguous(output)
    pg.reduce_scatter(_ptr(src), _ptr(out), [n] * pg.size, dtype_name(out), name)
    _write_back(output, out)
    return _done(async_op)


def all_to_all(output_tensor_list: list, input_tensor_list: list, group: ProcessGroup | None = None,
               async_op: bool = False):
    r"""Sends ``input_tensor_list[j]`` to rank ``j`` and receives rank ``i``'s into
    ``output_tensor_list[i]``.

    Sizes may differ: ``output_tensor_list[i]`` on rank ``j`` must have as many elements as
    ``input_tensor_list[j]`` on rank ``i``; every rank checks this and raises a ValueError
    naming the pair when it does not hold.
    """
    fn = "all_to_all"
    g = _group(fn, group)
    pg = backend_group(fn, g)
    if pg is None:
        return None
    inputs = _check_list(fn, "input_tensor_list", input_tensor_list, g.size())
    dtype = inputs[0].dtype
    _check_list(fn, "input_tensor_list", inputs, g.size(), dtype)
    outputs = _check_list(fn, "output_tensor_list", output_tensor_list, g.size(), dtype)
    in_counts = [t.numel() for t in inputs]
    out_counts = [t.numel() for t in outputs]
    flat_in = _flat(inputs, dtype)
    flat_out = flow.empty(sum(out_counts), dtype=dtype)
    pg.all_to_all(_ptr(flat_in), in_counts, _ptr(flat_out), out_counts, dtype_name(flat_in))
    _unflatten(flat_out, outputs)
    return _done(async_op)


def _splits(fn: str, arg: str, sizes, rows: int, n: int) -> list[int]:
    if sizes is None or len(sizes) == 0:
        if rows % n:
            raise ValueError(
                f"{fn}: {arg} not given, so dim 0 ({rows}) must divide evenly among {n} ranks"
            )
        return [rows // n] * n
    sizes = [int(s) for s in sizes]
    if len(sizes) != n or any(s < 0 for s in sizes):
        raise ValueError(f"{fn}: {arg} must be {n} non-negative sizes (one per rank), got {sizes}")
    if sum(sizes) != rows:
        raise ValueError(f"{fn}: {arg} {sizes} sum to {sum(sizes)}, but dim 0 has {rows} rows")
    return sizes


def all_to_all_single(output, input, output_split_sizes: Sequence[int] | None = None,
                      input_split_sizes: Sequence[int] | None = None, group: ProcessGroup | None = None,
                      async_op: bool = False):
    r"""Splits ``input`` along dim 0, sends block ``j`` to rank ``j``, and concatenates the blocks
    received from ranks ``0..n-1`` along dim 0 into ``output``.

    Args:
        output (Tensor): the received rows.
        input (Tensor): the rows to send.
        output_split_sizes (list of int, optional): rows received from each rank (default:
            equal blocks).
        input_split_sizes (list of int, optional): rows sent to each rank (default: equal
            blocks).

    Example::

        >>> # 2 ranks; rank r sends r + 1 rows to each rank
        >>> x = flow.full((2 * (r + 1), 3), float(r))
        >>> out = flow.empty(3, 3)
        >>> dist.all_to_all_single(out, x, [1, 2], [r + 1, r + 1])
    """
    fn = "all_to_all_single"
    _check_tensor(fn, "output", output, cuda=True)
    _check_tensor(fn, "input", input, cuda=True)
    _check_dtype(fn, "output", output, input.dtype)
    _check_device(fn, output, input)
    g = _group(fn, group)
    pg = backend_group(fn, group, input)
    if pg is None:
        return None
    n = g.size()
    in_rows = input.shape[0] if input.dim() > 0 else 1
    out_rows = output.shape[0] if output.dim() > 0 else 1
    in_row = input.numel() // in_rows if in_rows else 0
    out_row = output.numel() // out_rows if out_rows else 0
    if input.dim() > 1 and output.dim() > 1 and tuple(input.shape[1:]) != tuple(output.shape[1:]):
        raise ValueError(
            f"{fn}: input {tuple(input.shape)} and output {tuple(output.shape)} must agree beyond dim 0"
        )
    in_splits = _splits(fn, "input_split_sizes", input_split_sizes, in_rows, n)
    out_splits = _splits(fn, "output_split_sizes", output_split_sizes, out_rows, n)
    src = _contiguous(input)
    out = _contiguous(output)
    pg.all_to_all(_ptr(src), [s * in_row for s in in_splits], _ptr(out), [s * out_row for s in out_splits],
                  dtype_name(src))
    _write_back(output, out)
    return _done(async_op)


def _rooted_blocks(fn: str, tensor, blocks, arg: str, root_rank, root_arg: str, group):
    """gather and scatter: checks ``tensor`` and the list ``blocks`` (named ``arg``), one tensor
    of ``tensor``'s size per rank on the root (``root_arg``), None elsewhere. Returns (backend
    group, root within the group, the checked list on the root or None), or (None, None, None)
    on a rank outside the group."""
    _check_tensor(fn, "tensor", tensor)
    g = _group(fn, group)
    pg = backend_group(fn, g)
    if pg is None:
        return None, None, None
    root = _group_rank(fn, root_arg, group, root_rank)
    if pg.rank != root:
        if blocks:
            raise ValueError(
                f"{fn}: {arg} must be None on rank {g.ranks[pg.rank]}, which is not {root_arg} {root_rank}"
            )
        return pg, root, None
    if blocks is None:
        where = "destination" if root_arg == "dst" else "source"
        raise ValueError(f"{fn}: {arg} is required on the {where} rank {root_rank}")
    checked = _check_list(fn, arg, blocks, g.size(), tensor.dtype)
    for i, t in enumerate(checked):
        if t.numel() != tensor.numel():
            raise ValueError(f"{fn}: {arg}[{i}] has {t.numel()} elements, expected {tensor.numel()} (tensor's)")
    return pg, root, checked


def gather(tensor, gather_list: list | None = None, dst: int = 0, group: ProcessGroup | None = None,
           async_op: bool = False):
    r"""Gathers every rank's ``tensor`` into ``gather_list`` on rank ``dst``.

    Args:
        tensor (Tensor): this rank's contribution (same shape and dtype on every rank).
        gather_list (list of Tensor, optional): on ``dst``, one output per rank of the group;
            None elsewhere.
        dst (int): the global rank that receives.
    """
    pg, root, outputs = _rooted_blocks("gather", tensor, gather_list, "gather_list", dst, "dst", group)
    if pg is None:
        return None
    src = _contiguous(tensor)
    flat = None if outputs is None else flow.empty(tensor.numel() * len(outputs), dtype=tensor.dtype)
    pg.gather(_ptr(src), 0 if flat is None else _ptr(flat), tensor.numel(), dtype_name(src), root)
    if flat is not None:
        _unflatten(flat, outputs)
    return _done(async_op)


def scatter(tensor, scatter_list: list | None = None, src: int = 0, group: ProcessGroup | None = None,
            async_op: bool = False):
    r"""Sends ``scatter_list[i]`` of rank ``src`` to rank ``i``'s ``tensor``.

    Args:
        tensor (Tensor): this rank's output.
        scatter_list (list of Tensor, optional): on ``src``, one block per rank of the group
            (each shaped like ``tensor``); None elsewhere.
        src (int): the global rank that sends.
    """
    pg, root, inputs = _rooted_blocks("scatter", tensor, scatter_list, "scatter_list", src, "src", group)
    if pg is None:
        return None
    out = _contiguous(tensor)
    flat = None if inputs is None else _flat(inputs, tensor.dtype)
    pg.scatter(0 if flat is None else _ptr(flat), _ptr(out), tensor.numel(), dtype_name(out), root)
    _write_back(tensor, out)
    return _done(async_op)


def _check_tag(fn: str, tag) -> int:
    if isinstance(tag, bool) or not isinstance(tag, int) or not 0 <= tag < 2**32:
        raise ValueError(f"{fn}: tag must be an int in [0, 2**32), got {tag!r}")
    return tag


def send(tensor, dst: int, group: ProcessGroup | None = None, tag: int = 0) -> None:
    r"""Sends ``tensor`` to rank ``dst``; returns once ``dst`` has received it.

    The receiver's ``recv`` must use the same ``tag`` and a tensor of the same size and dtype
    (else it raises a ValueError saying what was sent).
    """
    fn = "send"
    _check_tensor(fn, "tensor", tensor)
    _check_tag(fn, tag)
    pg = backend_group(fn, group)
    if pg is None:
        return
    peer = _group_rank(fn, "dst", group, dst)
    src = _contiguous(tensor)
    pg.send(_ptr(src), src.numel(), dtype_name(src), peer, tag)


def recv(tensor, src: int | None = None, group: ProcessGroup | None = None, tag: int = 0) -> int:
    r"""Receives into ``tensor`` what rank ``src`` (default: any rank) sends with ``tag``.

    Returns:
        int: the global rank of the sender.
    """
    fn = "recv"
    _check_tensor(fn, "tensor", tensor)
    _check_tag(fn, tag)
    g = _group(fn, group)
    pg = backend_group(fn, g)
    if pg is None:
        return -1
    peer = -1 if src is None else _group_rank(fn, "src", group, src)
    out = _contiguous(tensor)
    sender = pg.recv(_ptr(out), out.numel(), dtype_name(out), peer, tag)
    _write_back(tensor, out)
    return g.ranks[sender]


def barrier(group: ProcessGroup | None = None, async_op: bool = False, device_ids=None):
    """Blocks until every rank of ``group`` has entered the barrier."""
    pg = backend_group("barrier", group)
    if pg is None:
        return None
    pg.barrier()
    return _done(async_op)


def _object_bytes(obj) -> np.ndarray:
    return np.frombuffer(pickle.dumps(obj), dtype=np.uint8)


def all_gather_object(object_list: list, obj, group: ProcessGroup | None = None) -> None:
    """Gathers a picklable ``obj`` from every rank into ``object_list`` (one entry per rank).

    Unpickling runs arbitrary code: use it only among trusted processes, as with torch.
    """
    fn = "all_gather_object"
    g = _group(fn, group)
    pg = backend_group(fn, g)
    if pg is None:
        return
    if not isinstance(object_list, list) or len(object_list) != g.size():
        raise ValueError(f"{fn}: object_list must be a list of {g.size()} entries (one per rank)")
    data = flow.from_numpy(_object_bytes(obj).copy())
    sizes = flow.zeros(g.size(), dtype=flow.int64)
    mine = flow.tensor([data.numel()], dtype=flow.int64)
    pg.all_gather(_ptr(mine), _ptr(sizes), [1] * g.size(), "int64")
    counts = [int(s) for s in sizes.numpy()]
    flat = flow.empty(sum(counts), dtype=flow.uint8)
    pg.all_gather(_ptr(data), _ptr(flat), counts, "uint8")
    raw = flat.numpy().tobytes()
    offset = 0
    for i, n in enumerate(counts):
        object_list[i] = pickle.loads(raw[offset:offset + n])
        offset += n


def broadcast_object_list(object_list: list, src: int = 0, group: ProcessGroup | None = None) -> None:
    """Replaces ``object_list``'s entries on every rank with those of rank ``src`` (picklable
    objects; the lists must have the same length everywhere)."""
    fn = "broadcast_object_list"
    g = _group(fn, group)
    pg = backend_group(fn, g)
    if pg is None:
        return
    root = _group_rank(fn, "src", group, src)
    if not isinstance(object_list, list):
        raise TypeError(f"{fn}: object_list must be a list, got {type(object_list).__name__}")
    payload = _object_bytes(list(object_list)) if pg.rank == root else np.zeros(0, np.uint8)
    size = flow.tensor([payload.size], dtype=flow.int64)
    pg.broadcast(_ptr(size), 1, "int64", root)
    n = int(size.numpy()[0])
    data = flow.from_numpy(payload.copy()) if pg.rank == root else flow.empty(n, dtype=flow.uint8)
    pg.broadcast(_ptr(data), n, "uint8", root)
    if pg.rank != root:
        received = pickle.loads(data.numpy().tobytes())
        if len(received) != len(object_list):
            raise ValueError(f"{fn}: rank {src} sent {len(received)} objects but object_list has {len(object_list)}")
        object_list[:] = received
