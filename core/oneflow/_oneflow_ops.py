"""OneFlow-only ops: names of OneFlow's API built from this package's ops (issue 15).

Each op here composes registry ops (indexing, gather, index_put, softmax, dropout, layer_norm,
...), so autograd comes from theirs. OneFlow's functional names that OneFlow code calls as
``oneflow._C.<name>`` (LiBai's fused layers, its layer norm and losses) are attached to
``oneflow._C`` at the end of this module.
"""

import math
import numbers
from collections.abc import Sequence

import oneflow as flow
from oneflow import _C

__all__ = [
    "batch_gather",
    "gather_nd",
    "in_top_k",
    "matmul",
    "scatter_nd",
    "slice_update",
    "tensor_scatter_nd_update",
]

_INDEX_DTYPES = ("int32", "int64")


def _dtype_name(dtype) -> str:
    return str(dtype).rsplit(".", 1)[-1]


def _tensor(fn: str, name: str, value) -> None:
    if not isinstance(value, flow.Tensor):
        raise TypeError(f"{fn}(): argument '{name}' must be Tensor, not {type(value).__name__}")


def _index_tensor(fn: str, name: str, value) -> None:
    _tensor(fn, name, value)
    if _dtype_name(value.dtype) not in _INDEX_DTYPES:
        raise TypeError(f"{fn}(): argument '{name}' must be an int32 or int64 tensor, got {value.dtype}")


def _int(fn: str, name: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{fn}(): argument '{name}' must be int, not {type(value).__name__}")
    return int(value)


def _float(fn: str, name: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{fn}(): argument '{name}' must be float, not {type(value).__name__}")
    return float(value)


def _bool(fn: str, name: str, value) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{fn}(): argument '{name}' must be bool, not {type(value).__name__}")
    return value


def _probability(fn: str, value) -> float:
    p = _float(fn, "p", value)
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"{fn}(): argument 'p' must be a probability in [0, 1], got {p}")
    return p


def _axis(fn: str, name: str, value, ndim: int) -> int:
    axis = _int(fn, name, value)
    if not -ndim <= axis < max(ndim, 1):
        raise IndexError(
            f"{fn}(): argument '{name}' is out of range for a {ndim}-d tensor "
            f"(expected in [{-ndim}, {ndim - 1}], got {axis})"
        )
    return axis % ndim if ndim else 0


def _check_nd_index(fn: str, index, shape: Sequence[int]) -> int:
    """Validates the last-dim index of the *_nd ops and returns its depth."""
    if index.dim() == 0:
        raise ValueError(f"{fn}(): argument 'index' must have at least 1 dimension, got a 0-d tensor")
    depth = index.shape[-1]
    if depth > len(shape):
        raise ValueError(
            f"{fn}(): index.shape[-1] ({depth}) must be at most the rank of the indexed tensor ({len(shape)})"
        )
    if index.numel() and depth:
        flat = index.reshape(-1, depth)
        low, high = flat.amin(0).tolist(), flat.amax(0).tolist()
        for d in range(depth):
            if low[d] < 0 or high[d] >= shape[d]:
                bad = low[d] if low[d] < 0 else high[d]
                raise IndexError(f"{fn}(): index {bad} is out of bounds for dimension {d} with size {shape[d]}")
    return depth


def _nd_indices(index, depth: int) -> tuple:
    return tuple(index[..., d].long() for d in range(depth))


# ---------------------------------------------------------------------------------------------
# oneflow.<name>


def slice_update(input, update, slice_tup_list):
    """Writes ``update`` into a slice of ``input`` in place and returns ``input``.

    Like ``input[start:stop:step, ...] = update``. ``slice_tup_list`` holds one
    ``(start, stop, step)`` per leading dimension (``None`` for a default); dimensions it does not
    name are taken whole. ``update`` is cast to ``input``'s dtype.

    Example::

        >>> x = flow.ones(5)
        >>> flow.slice_update(x, flow.tensor([2.0, 3.0, 4.0]), [[1, 4, 1]])
        tensor([1., 2., 3., 4., 1.], dtype=oneflow.float32)
    """
    fn = "slice_update"
    _tensor(fn, "input", input)
    _tensor(fn, "update", update)
    if not isinstance(slice_tup_list, (list, tuple)):
        raise TypeError(
            f"{fn}(): argument 'slice_tup_list' must be a list of (start, stop, step), "
            f"not {type(slice_tup_list).__name__}"
        )
    if len(slice_tup_list) > input.dim():
        raise ValueError(f"{fn}(): slice_tup_list has {len(slice_tup_list)} entries for a {input.dim()}-d input")
    slices = []
    for d, tup in enumerate(slice_tup_list):
        if not isinstance(tup, (list, tuple)) or len(tup) != 3:
            raise TypeError(f"{fn}(): slice_tup_list[{d}] must be (start, stop, step), got {tup!r}")
        start, stop, step = (None if v is None else _int(fn, f"slice_tup_list[{d}]", v) for v in tup)
        if step is not None and step <= 0:
            raise ValueError(f"{fn}(): slice_tup_list[{d}] step must be positive, got {step}")
        slices.append(slice(start, stop, step))
    view = input[tuple(slices)]
    if update.dtype != input.dtype:
        update = update.to(input.dtype)
    if tuple(update.shape) != tuple(view.shape):
        try:
            update = update.expand(view.shape)
        except RuntimeError:
            raise ValueError(
                f"{fn}(): update of shape {tuple(update.shape)} does not fit the slice of shape {tuple(view.shape)}"
            ) from None
    input[tuple(slices)] = update
    return input


def gather_nd(input, index):
    """Gathers slices of ``input`` at the N-d indices in ``index``'s last dimension.

    ``output[i_0, ..., i_{K-2}] = input[index[i_0, ..., i_{K-2}]]``: the output has shape
    ``index.shape[:-1] + input.shape[index.shape[-1]:]``.
    """
    fn = "gather_nd"
    _tensor(fn, "input", input)
    _index_tensor(fn, "index", index)
    depth = _check_nd_index(fn, index, input.shape)
    if depth == 0:
        return input.expand(*index.shape[:-1], *input.shape)
    return input[_nd_indices(index, depth)]


def scatter_nd(index, update, shape):
    """A new zero tensor of ``shape`` with ``update`` added at the N-d indices of ``index``.

    ``update`` has shape ``index.shape[:-1] + shape[index.shape[-1]:]``; repeated indices
    accumulate, as in OneFlow's kernel.
    """
    fn = "scatter_nd"
    _index_tensor(fn, "index", index)
    _tensor(fn, "update", update)
    if not isinstance(shape, (list, tuple, flow.Size)):
        raise TypeError(f"{fn}(): argument 'shape' must be a sequence of ints, not {type(shape).__name__}")
    shape = tuple(_int(fn, "shape", s) for s in shape)
    depth = _check_nd_index(fn, index, shape)
    expected = tuple(index.shape[:-1]) + shape[depth:]
    if tuple(update.shape) != expected:
        raise ValueError(
            f"{fn}(): update must have shape index.shape[:-1] + shape[index.shape[-1]:] = "
            f"{expected}, got {tuple(update.shape)}"
        )
    out = flow.zeros(shape, dtype=update.dtype, device=update.device)
    if depth == 0:
        return out + update.reshape(-1, *shape).sum(0)
    return out.index_put(_nd_indices(index, depth), update, accumulate=True)


def tensor_scatter_nd_update(tensor, indices, updates):
    """A copy of ``tensor`` with ``updates`` written at the N-d indices of ``indices``.

    Like :func:`scatter_nd`, but onto ``tensor`` rather than zeros, and assigning rather than
    adding. ``tensor`` itself is left unchanged.
    """
    fn = "tensor_scatter_nd_update"
    _tensor(fn, "tensor", tensor)
    _index_tensor(fn, "indices", indices)
    _tensor(fn, "updates", updates)
    depth = _check_nd_index(fn, indices, tensor.shape)
    expected = tuple(indices.shape[:-1]) + tuple(tensor.shape[depth:])
    if tuple(updates.shape) != expected:
        raise ValueError(
            f"{fn}(): updates must have shape indices.shape[:-1] + tensor.shape[indices.shape[-1]:]"
            f" = {expected}, got {tuple(updates.shape)}"
        )
    if updates.dtype != tensor.dtype:
        updates = updates.to(tensor.dtype)
    if depth == 0:
        return updates.reshape(-1, *tensor.shape)[-1] + tensor * 0
    return tensor.index_put(_nd_indices(indices, depth), updates)


def batch_gather(in_, indices):
    """Gathers along the first non-batch dimension of ``in_``, batch by batch.

    With ``k = indices.dim()``, the leading ``k - 1`` dimensions of ``in_`` and ``indices`` are
    batch dimensions (they must match) and
    ``out[b..., m] = in_[b..., indices[b..., m]]``; the output has shape
    ``indices.shape + in_.shape[k:]``.
    """
    fn = "batch_gather"
    _tensor(fn, "in", in_)
    _index_tensor(fn, "indices", indices)
    k = indices.dim()
    if k == 0:
        raise ValueError(f"{fn}(): argument 'indices' must have at least 1 dimension, got 0-d")
    if k > in_.dim():
        raise ValueError(f"{fn}(): indices ({k}-d) must not have more dimensions than in ({in_.dim()}-d)")
    if tuple(indices.shape[: k - 1]) != tuple(in_.shape[: k - 1]):
        raise ValueError(
            f"{fn}(): the batch dimensions of indices {tuple(indices.shape[: k - 1])} must equal "
            f"those of in {tuple(in_.shape[: k - 1])}"
        )
    size = in_.shape[k - 1]
    if indices.numel():
        low, high = indices.min().item(), indices.max().item()
        if low < 0 or high >= size:
            bad = low if low < 0 else high
            raise IndexError(f"{fn}(): index {bad} is out of bounds for dimension {k - 1} with size {size}")
    rest = tuple(in_.shape[k:])
    index = indices.long().reshape(*indices.shape, *([1] * len(rest))).expand(*indices.shape, *rest)
    return flow.gather(in_, k - 1, index)


def in_top_k(targets, predictions, k):
    """Whether each target's prediction is among the ``k`` largest of its row (ties count in).

    ``out[i] = #{j : predictions[i, j] > predictions[i, targets[i]]} < k``, a bool tensor of
    ``targets``' shape.
    """
    fn = "in_top_k"
    _index_tensor(fn, "targets", targets)
    _tensor(fn, "predictions", predictions)
    k = _int(fn, "k", k)
    if not predictions.is_floating_point():
        raise TypeError(f"{fn}(): argument 'predictions' must be a floating tensor, got {predictions.dtype}")
    if targets.dim() != 1 or predictions.dim() != 2:
        raise ValueError(
            f"{fn}(): expected 1-d targets and 2-d predictions, got {targets.dim()}-d and {predictions.dim()}-d"
        )
    if targets.shape[0] != predictions.shape[0]:
        raise ValueError(
            f"{fn}(): targets has {targets.shape[0]} entries but predictions has {predictions.shape[0]} rows"
        )
    classes = predictions.shape[1]
    if targets.numel() and (targets.min().item() < 0 or targets.max().item() >= classes):
        raise IndexError(f"{fn}(): targets must be class ids in [0, {classes}), got {targets.tolist()}")
    with flow.no_grad():
        target_pred = flow.gather(predictions, 1, targets.long().unsqueeze(1))
        above = (predictions > target_pred).sum(1)
        return above < k


_registry_matmul = _C.ops.matmul


def matmul(input, other, transpose_a: bool = False, transpose_b: bool = False, alpha: float = 1.0):
    """Matrix product of ``input`` and ``other``, as ``torch.matmul``, with OneFlow's options.

    ``transpose_a``/``transpose_b`` transpose the last two dimensions of ``input``/``other``
    first, and the product is scaled by ``alpha``.
    """
    fn = "matmul"
    if transpose_a is False and transpose_b is False and alpha == 1.0 and not isinstance(alpha, bool):
        return _registry_matmul(input, other)
    _tensor(fn, "input", input)
    _tensor(fn, "other", other)
    transpose_a = _bool(fn, "transpose_a", transpose_a)
    transpose_b = _bool(fn, "transpose_b", transpose_b)
    alpha = _float(fn, "alpha", alpha)
    for name, t, flag in (("input", input, transpose_a), ("other", other, transpose_b)):
        if flag and t.dim() < 2:
            raise ValueError(f"{fn}(): transpose of '{name}' needs at least 2 dimensions, got {t.dim()}-d")
    a = input.transpose(-2, -1) if transpose_a else input
    b = other.transpose(-2, -1) if transpose_b else other
    out = _registry_matmul(a, b)
    return out if alpha == 1.0 else out * alpha


# ---------------------------------------------------------------------------------------------
# oneflow._C.<name>: OneFlow's functional API, as OneFlow code calls it


def _dropout_mask_scale(x, p: float, generator):
    """Keeps each element with probability 1 - p and scales the kept ones by 1 / (1 - p)."""
    if p == 1.0:
        return x * 0
    keep = flow.rand(x.shape, generator=generator, device=x.device) >= p
    return x * keep.to(x.dtype) * (1.0 / (1.0 - p))


def _c_dropout(input, p: float = 0.5, training: bool = True, inplace: bool = False, generator=None, *, addend=None):
    """``oneflow._C.dropout``: dropout of ``input``, plus ``addend`` when given."""
    fn = "dropout"
    _tensor(fn, "input", input)
    p = _probability(fn, p)
    training = _bool(fn, "training", training)
    inplace = _bool(fn, "inplace", inplace)
    if addend is not None:
        _tensor(fn, "addend", addend)
    if generator is not None and not isinstance(generator, flow.Generator):
        raise TypeError(f"{fn}(): argument 'generator' must be Generator, not {type(generator).__name__}")
    if not training or p == 0.0:
        out = input
    elif generator is not None:
        out = _dropout_mask_scale(input, p, generator)
    else:
        out = flow.nn.functional.dropout(input, p, True)
    if addend is not None:
        out = out + addend
    if inplace:
        return input if out is input else input.copy_(out)
    return out


def _bias_along(fn: str, a, b, axis):
    _tensor(fn, "a", a)
    _tensor(fn, "b", b)
    axis = _axis(fn, "axis", axis, a.dim())
    if b.dim() != 1 or b.shape[0] != a.shape[axis]:
        raise ValueError(
            f"{fn}(): bias must be 1-d of size a.shape[{axis}] = {a.shape[axis]}, got shape {tuple(b.shape)}"
        )
    return a + b.reshape(-1, *([1] * (a.dim() - axis - 1)))


def _c_fused_bias_add_gelu(a, b, *, axis):
    """``oneflow._C.fused_bias_add_gelu``: ``gelu(a + b)``, ``b`` broadcast along ``axis``."""
    return flow.nn.functional.gelu(_bias_along("fused_bias_add_gelu", a, b, axis))


def _c_fused_bias_add_dropout(a, b, *, p: float = 0.5, axis, generator=None):
    """``oneflow._C.fused_bias_add_dropout``: ``dropout(a + b, p)``, ``b`` broadcast along ``axis``."""
    fn = "fused_bias_add_dropout"
    p = _probability(fn, p)
    return _c_dropout(_bias_along(fn, a, b, axis), p, True, False, generator)


def _masked_scaled(fn: str, x, mask, fill_value, scale):
    _tensor(fn, "x", x)
    _tensor(fn, "mask", mask)
    fill_value = _float(fn, "fill_value", fill_value)
    scale = 1.0 if scale is None else _float(fn, "scale", scale)
    xs, ms = tuple(x.shape)[::-1], tuple(mask.shape)[::-1]
    if len(ms) > len(xs) or any(m not in (1, d) for m, d in zip(ms, xs)):
        raise ValueError(f"{fn}(): mask of shape {tuple(mask.shape)} does not broadcast to x of shape {tuple(x.shape)}")
    keep = mask if mask.dtype == flow.bool else mask != 0
    return flow.where(keep, x * scale, flow.full((), fill_value, dtype=x.dtype, device=x.device))


def _c_fused_scale_mask_softmax(x, mask, *, fill_value: float = 0.0, scale: float = 1.0):
    """``oneflow._C.fused_scale_mask_softmax``: softmax over the last dim of
    ``where(mask, x * scale, fill_value)``."""
    fn = "fused_scale_mask_softmax"
    return flow.softmax(_masked_scaled(fn, x, mask, fill_value, scale), -1)


def _c_fused_scale_mask_softmax_dropout(
    x, mask, *, fill_value: float = 0.0, scale: float = 1.0, p: float = 0.5, training: bool = True, generator=None
):
    """``oneflow._C.fused_scale_mask_softmax_dropout``: ``(dropout(y), y)`` with ``y`` the
    :func:`fused_scale_mask_softmax` of ``x``."""
    fn = "fused_scale_mask_softmax_dropout"
    p = _probability(fn, p)
    softmax_y = flow.softmax(_masked_scaled(fn, x, mask, fill_value, scale), -1)
    return _c_dropout(softmax_y, p, _bool(fn, "training", training), False, generator), softmax_y


def _c_fused_scale_tril_softmax_mask_scale(a, *, p: float = 0.5, diagonal, tril_scale_value, generator=None):
    """``oneflow._C.fused_scale_tril_softmax_mask_scale``: ``(dropout(y), y)`` with ``y`` the
    softmax over the last dim of ``a * tril_scale_value`` whose entries above ``diagonal`` are
    masked out (causal attention)."""
    fn = "fused_scale_tril_softmax_mask_scale"
    _tensor(fn, "a", a)
    if a.dim() < 2:
        raise ValueError(f"{fn}(): argument 'a' must have at least 2 dimensions, got {a.dim()}-d")
    p = _probability(fn, p)
    diagonal = _int(fn, "diagonal", diagonal)
    scale = 1.0 if tril_scale_value is None else _float(fn, "tril_scale_value", tril_scale_value)
    rows, cols = a.shape[-2], a.shape[-1]
    keep = flow.ones(rows, cols, dtype=flow.bool, device=a.device).tril(diagonal)
    scores = flow.where(keep, a * scale, flow.full((), -math.inf, dtype=a.dtype, device=a.device))
    softmax_y = flow.softmax(scores, -1)
    return _c_dropout(softmax_y, p, True, False, generator), softmax_y


def _norm_axes(fn: str, x, begin_norm_axis, begin_params_axis):
    _tensor(fn, "x", x)
    norm = _axis(fn, "begin_norm_axis", begin_norm_axis, x.dim())
    params = _axis(fn, "begin_params_axis", begin_params_axis, x.dim())
    return norm, params


def _c_layer_norm(x, begin_norm_axis, begin_params_axis, epsilon):
    """``oneflow._C.layer_norm``: normalizes ``x`` over the dims from ``begin_norm_axis``."""
    fn = "layer_norm"
    norm, _ = _norm_axes(fn, x, begin_norm_axis, begin_params_axis)
    eps = _float(fn, "epsilon", epsilon)
    return flow.nn.functional.layer_norm(x, tuple(x.shape[norm:]), None, None, eps)


def _c_layer_norm_affine(x, gamma, beta, begin_norm_axis, begin_params_axis, epsilon):
    """``oneflow._C.layer_norm_affine``: :func:`layer_norm`, then ``* gamma + beta`` over the
    dims from ``begin_params_axis``."""
    fn = "layer_norm_affine"
    norm, params = _norm_axes(fn, x, begin_norm_axis, begin_params_axis)
    eps = _float(fn, "epsilon", epsilon)
    _tensor(fn, "gamma", gamma)
    _tensor(fn, "beta", beta)
    param_shape = tuple(x.shape[params:])
    for name, t in (("gamma", gamma), ("beta", beta)):
        if tuple(t.shape) != param_shape:
            raise ValueError(
                f"{fn}(): {name} must have shape x.shape[begin_params_axis:] = {param_shape}, got {tuple(t.shape)}"
            )
    if norm == params:
        return flow.nn.functional.layer_norm(x, param_shape, gamma, beta, eps)
    y = flow.nn.functional.layer_norm(x, tuple(x.shape[norm:]), None, None, eps)
    return y * gamma + beta


def _c_sparse_softmax_cross_entropy(logits, label):
    """``oneflow._C.sparse_softmax_cross_entropy``: per-sample ``-log_softmax(logits)[label]``
    over the last dim of ``logits``, unreduced (shape of ``label``)."""
    fn = "sparse_softmax_cross_entropy"
    _tensor(fn, "logits", logits)
    _index_tensor(fn, "label", label)
    if logits.dim() < 1 or tuple(label.shape) != tuple(logits.shape[:-1]):
        raise ValueError(
            f"{fn}(): label must have shape logits.shape[:-1] = {tuple(logits.shape[:-1])}, got {tuple(label.shape)}"
        )
    depth = logits.shape[-1]
    if label.numel() and (label.min().item() < 0 or label.max().item() >= depth):
        raise IndexError(f"{fn}(): label values must be in [0, {depth})")
    logp = flow.log_softmax(logits, -1)
    return -flow.gather(logp, -1, label.long().unsqueeze(-1)).squeeze(-1)


def _c_softmax_cross_entropy(logits, label):
    """``oneflow._C.softmax_cross_entropy``: ``-sum(label * log_softmax(logits))`` over the last
    dim; ``label`` holds probabilities of ``logits``' shape."""
    fn = "softmax_cross_entropy"
    _tensor(fn, "logits", logits)
    _tensor(fn, "label", label)
    if tuple(label.shape) != tuple(logits.shape):
        raise ValueError(f"{fn}(): label must have the shape of logits {tuple(logits.shape)}, got {tuple(label.shape)}")
    return -(label * flow.log_softmax(logits, -1)).sum(-1)


def _c_gelu_with_approximate(x, approximate: str = "none"):
    """``oneflow._C.gelu_with_approximate``: GELU, exact (``"none"``) or ``"tanh"``-approximated."""
    fn = "gelu_with_approximate"
    _tensor(fn, "x", x)
    if approximate not in ("none", "tanh"):
        raise ValueError(f"{fn}(): argument 'approximate' must be 'none' or 'tanh', got {approximate!r}")
    return flow.nn.functional.gelu(x, approximate=approximate)


def _c_fast_gelu(x):
    """``oneflow._C.fast_gelu``: the tanh approximation of GELU."""
    _tensor("fast_gelu", "x", x)
    return flow.nn.functional.gelu(x, approximate="tanh")


def _divide_operands(fn: str, x, y):
    _tensor(fn, "x", x)
    if not isinstance(y, (flow.Tensor, numbers.Number)) or isinstance(y, bool):
        raise TypeError(f"{fn}(): argument 'y' must be Tensor or a number, not {type(y).__name__}")


def _c_trunc_divide(x, y):
    """``oneflow._C.trunc_divide``: ``x / y`` rounded toward zero."""
    _divide_operands("trunc_divide", x, y)
    return flow.div(x, y, rounding_mode="trunc")


def _c_floor_divide(x, y, *, inplace: bool = False):
    """``oneflow._C.floor_divide``: ``x / y`` rounded toward minus infinity."""
    _divide_operands("floor_divide", x, y)
    if _bool("floor_divide", "inplace", inplace):
        return x.copy_(flow.div(x, y, rounding_mode="floor"))
    return flow.div(x, y, rounding_mode="floor")


def _c_reshape_like(in_, like):
    """``oneflow._C.reshape_like``: ``in_`` reshaped to ``like``'s shape."""
    fn = "reshape_like"
    _tensor(fn, "in", in_)
    _tensor(fn, "like", like)
    if in_.numel() != like.numel():
        raise ValueError(
            f"{fn}(): in of shape {tuple(in_.shape)} ({in_.numel()} elements) cannot take like's "
            f"shape {tuple(like.shape)} ({like.numel()} elements)"
        )
    return in_.reshape(like.shape)


def _c_amp_white_identity(in_):
    """``oneflow._C.amp_white_identity``: ``in_`` itself (an autocast marker in OneFlow's graphs)."""
    _tensor("amp_white_identity", "in", in_)
    return in_



def _c_gather(x, indices, axis):
    """``oneflow._C.gather``: the slices of ``x`` along ``axis`` that ``indices`` name, of shape
    ``x.shape[:axis] + indices.shape + x.shape[axis + 1:]`` (an embedding lookup with ``axis=0``).

        >>> oneflow._C.gather(oneflow.tensor([[1, 2], [3, 4], [5, 6]]), oneflow.tensor([[2, 0]]), axis=0)
        tensor([[[5, 6],
                 [1, 2]]], dtype=oneflow.int64)
    """
    fn = "gather"
    _tensor(fn, "x", x)
    _index_tensor(fn, "indices", indices)
    axis = _axis(fn, "axis", axis, x.dim())
    picked = flow.index_select(x, axis, indices.reshape(-1))
    return picked.reshape(*x.shape[:axis], *indices.shape, *x.shape[axis + 1:])


def _c_relu(x, inplace: bool = False):
    """``oneflow._C.relu``: ``max(x, 0)``, into ``x`` with ``inplace``."""
    _tensor("relu", "x", x)
    return flow.nn.functional.relu(x, inplace=_bool("relu", "inplace", inplace))


def _c_cross_entropy(input, target, weight=None, ignore_index: int = -100, reduction: str = "mean",
                     label_smoothing: float = 0.0):
    """``oneflow._C.cross_entropy``: :func:`oneflow.nn.functional.cross_entropy` positionally."""
    fn = "cross_entropy"
    _tensor(fn, "input", input)
    _tensor(fn, "target", target)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{fn}(): argument 'reduction' must be 'none', 'mean' or 'sum', got {reduction!r}")
    return flow.nn.functional.cross_entropy(
        input, target, weight, ignore_index=_int(fn, "ignore_index", ignore_index), reduction=reduction,
        label_smoothing=_float(fn, "label_smoothing", label_smoothing),
    )


def _c_global_arange(start, end=None, step=1, *, dtype=None, placement, sbp):
    """``oneflow._C.global_arange``: :func:`oneflow.arange` as a global tensor of ``placement``
    and ``sbp`` (both required)."""
    if placement is None or sbp is None:
        raise TypeError("global_arange(): arguments 'placement' and 'sbp' are required")
    return flow.arange(start, end, step, dtype=dtype, placement=placement, sbp=sbp)


_C_FUNCTIONS = {
    "amp_white_identity": _c_amp_white_identity,
    "dropout": _c_dropout,
    "fast_gelu": _c_fast_gelu,
    "floor_divide": _c_floor_divide,
    "fused_bias_add_dropout": _c_fused_bias_add_dropout,
    "fused_bias_add_gelu": _c_fused_bias_add_gelu,
    "fused_scale_mask_softmax": _c_fused_scale_mask_softmax,
    "fused_scale_mask_softmax_dropout": _c_fused_scale_mask_softmax_dropout,
    "fused_scale_tril_softmax_mask_scale": _c_fused_scale_tril_softmax_mask_scale,
    "gelu_with_approximate": _c_gelu_with_approximate,
    "layer_norm": _c_layer_norm,
    "layer_norm_affine": _c_layer_norm_affine,
    "matmul": matmul,
    "reshape_like": _c_reshape_like,
    "softmax_cross_entropy": _c_softmax_cross_entropy,
    "sparse_softmax_cross_entropy": _c_sparse_softmax_cross_entropy,
    "trunc_divide": _c_trunc_divide,
    "scatternd": scatter_nd,
    "batch_gather": batch_gather,
    "gather_nd": gather_nd,
    "in_top_k": in_top_k,
    "tensor_scatter_nd_update": tensor_scatter_nd_update,
    "cross_entropy": _c_cross_entropy,
    "gather": _c_gather,
    "global_arange": _c_global_arange,
    "relu": _c_relu,
}


def _install_c_functions() -> None:
    for name, function in _C_FUNCTIONS.items():
        if function.__name__.startswith("_c_"):
            function.__name__ = function.__qualname__ = name
        setattr(_C, name, function)


_install_c_functions()
