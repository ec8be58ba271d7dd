"""``embedding_bag``: one sum, mean or maximum of embedding rows per bag of indices.

There is no registry op for it; it is a composite of ``embedding`` (which gives the gradient of
the table, ``scale_grad_by_freq`` included), ``index_add`` (sum and mean) and a masked ``max``
over the bags' rows padded to a common length (max; bags are grouped by size to bound the
padding). Rows at ``padding_idx`` are left out of the bags (and of the mean's count); empty bags
give zeros. The checks are PyTorch's, with its exception types; sparse gradients are not
supported.
"""

from __future__ import annotations

import warnings

import oneflow
from oneflow import _C

__all__ = ["embedding_bag"]

_MODES = ("sum", "mean", "max")


def _shape(t) -> list:
    return list(t.shape)


def _bag_offsets(input, offsets, include_last_offset: bool, length: int) -> list:
    """The bags' ``[start, end)`` bounds as Python ints, checked as PyTorch checks them."""
    if offsets.dtype not in (oneflow.int64, oneflow.int32):
        raise RuntimeError(
            f"embedding_bag: expected offsets of dtype int64 or int32, but got {offsets.dtype} "
            f"(offsets of shape {_shape(offsets)})"
        )
    bounds = [int(v) for v in offsets.tolist()]
    if bounds and bounds[0] != 0:
        raise RuntimeError(
            f"embedding_bag: offsets[0] has to be 0, i.e., the first sequence in the mini-batch "
            f"has to start from position 0. However, got {bounds[0]} "
            f"(offsets of shape {_shape(offsets)})"
        )
    if bounds and bounds[-1] > length:
        raise RuntimeError(
            f"embedding_bag: offsets[-1] can not be greater than input's length {length} but got "
            f"offsets[-1] of {bounds[-1]} (input of shape {_shape(input)})"
        )
    if any(b < a for a, b in zip(bounds, bounds[1:])):
        raise RuntimeError(
            f"embedding_bag: offsets must be non-decreasing, but got {bounds} for input of shape {_shape(input)}"
        )
    if include_last_offset:
        return bounds
    return [*bounds, length]


def embedding_bag(
    input,
    weight,
    offsets=None,
    max_norm=None,
    norm_type=2,
    scale_grad_by_freq=False,
    mode="mean",
    sparse=False,
    per_sample_weights=None,
    include_last_offset=False,
    padding_idx=None,
):
    r"""Reduces each bag of rows of ``weight`` to one vector: their sum, mean or elementwise max.

    Args:
        input: indices; 1-D with ``offsets`` (bag ``b`` is ``input[offsets[b]:offsets[b + 1]]``), or
            2-D :math:`(B, N)` without (each row a bag of ``N``).
        weight: the :math:`(\text{num\_embeddings}, \text{embedding\_dim})` table.
        offsets: the start of each bag in a 1-D ``input``.
        max_norm: looked-up rows with a larger ``norm_type``-norm are renormalized to it, in place.
        norm_type: the p of the p-norm for ``max_norm``. Default: 2.
        scale_grad_by_freq: scale gradients by the inverse frequency of the indices (not for ``max``).
        mode: ``'sum'``, ``'mean'`` or ``'max'``. Default: ``'mean'``.
        sparse: sparse gradients (not supported).
        per_sample_weights: weights of the looked-up rows (``'sum'`` only), of the input's shape.
        include_last_offset: ``offsets`` holds one more entry, the end of the last bag.
        padding_idx: rows at this index are left out of the bags.

    Returns:
        :math:`(B, \text{embedding\_dim})`.
    """
    if weight.dtype == oneflow.int64 and input.is_floating_point():
        warnings.warn(
            "embedding_bag(weight, input, ...) is the old argument order; pass embedding_bag(input, "
            "weight, ...) instead.",
            stacklevel=2,
        )
        weight, input = input, weight
    if per_sample_weights is not None and _shape(input) != _shape(per_sample_weights):
        raise ValueError(
            f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is not None, then it "
            f"must have the same shape as the input ({input.shape})"
        )
    if weight.dim() != 2:
        raise ValueError(
            f"embedding_bag: weight has to be a 2D Tensor, but got Tensor of dimension {weight.dim()} "
            f"(shape {_shape(weight)})"
        )
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError(
                "embedding_bag: if input is 2D, then offsets has to be None, as input is treated is a "
                "mini-batch of fixed length sequences. However, found offsets of type "
                f"{type(offsets)} (input of shape {_shape(input)})"
            )
        batch, cols = input.shape
        bounds = [b * cols for b in range(batch + 1)]
        input = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError(
                f"embedding_bag: offsets has to be a 1D Tensor but got None (input of shape {_shape(input)})"
            )
        if offsets.dim() != 1:
            raise ValueError(
                f"embedding_bag: offsets has to be a 1D Tensor, but got offsets of shape {_shape(offsets)}"
            )
        bounds = None
    else:
        raise ValueError(
            f"embedding_bag: input has to be 1D or 2D Tensor, but got Tensor of dimension {input.dim()} "
            f"(shape {_shape(input)})"
        )
    if mode not in _MODES:
        raise ValueError(f"embedding_bag: mode has to be one of sum, mean or max, but got {mode!r}")
    if mode == "max" and scale_grad_by_freq:
        raise ValueError("embedding_bag: max mode does not support scaling the gradient by the frequency")
    if mode == "max" and sparse:
        raise ValueError("embedding_bag: max mode does not support sparse weights")
    if input.dtype not in (oneflow.int64, oneflow.int32):
        raise RuntimeError(
            f"embedding_bag: expected indices of dtype int64 or int32, but got {input.dtype} "
            f"(input of shape {_shape(input)})"
        )
    if sparse:
        raise NotImplementedError("embedding_bag: sparse=True (sparse gradients) is not supported; use sparse=False")
    if max_norm is not None:
        with oneflow.no_grad():
            _C.ops.embedding_renorm_(weight, input.contiguous(), max_norm, norm_type)
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(
            "embedding_bag: per_sample_weights was not None. per_sample_weights is only supported for mode='sum' "
            f"(got mode='{mode}'). Please open a feature request on GitHub."
        )
    if per_sample_weights is not None and per_sample_weights.dtype != weight.dtype:
        raise RuntimeError(
            f"embedding_bag: expected per_sample_weights of the weight's dtype {weight.dtype}, but got "
            f"{per_sample_weights.dtype}"
        )
    num_embeddings = weight.size(0)
    if padding_idx is not None:
        if not -num_embeddings <= padding_idx < num_embeddings:
            raise RuntimeError(
                f"embedding_bag: padding_idx must be within the number of embeddings, "
                f"{-num_embeddings} through {num_embeddings - 1}, but got {padding_idx}"
            )
        padding_idx = padding_idx % num_embeddings
    length = input.numel()
    if bounds is None:
        bounds = _bag_offsets(input, offsets, include_last_offset, length)
    return _reduce_bags(input.long(), weight, bounds, mode, scale_grad_by_freq, per_sample_weights, padding_idx)


def _reduce_bags(input, weight, bounds, mode, scale_grad_by_freq, per_sample_weights, padding_idx):
    bags = max(len(bounds) - 1, 0)
    dim = weight.size(1)
    used = bounds[-1] if bags else 0  # entries past the last bag's end belong to no bag
    indices = input[:used]
    if used and (bool((indices < 0).any()) or bool((indices >= weight.size(0)).any())):
        bad = next(v for v in indices.tolist() if not 0 <= v < weight.size(0))
        raise RuntimeError(
            f"embedding_bag: index {bad} is not in the valid range [0, {weight.size(0)}) of weight of "
            f"shape {_shape(weight)}"
        )
    # One row per entry; embedding gives the table's gradient (scaled by frequency when asked).
    rows = _C.ops.embedding(weight, indices, -1 if padding_idx is None else padding_idx, scale_grad_by_freq, False)
    keep = indices != (-1 if padding_idx is None else padding_idx)
    lengths = [b - a for a, b in zip(bounds, bounds[1:])]
    if mode == "max" and max(lengths, default=0) > 0:
        return _max_bags(rows, keep, bounds, lengths, bags, dim)
    # Sums (and, with no rows at all, the zeros of every mode, still tied to the table for autograd).
    scale = keep.to(weight.dtype)
    if per_sample_weights is not None:
        scale = scale * per_sample_weights[:used]
    # The bag of each entry: the last bag starting at or before it (empty bags share their start).
    starts = oneflow.tensor(bounds[:-1], dtype=oneflow.int64)
    bag_of = oneflow.searchsorted(starts, oneflow.arange(used), right=True) - 1
    out = oneflow.zeros(bags, dim, dtype=weight.dtype).index_add(0, bag_of, rows * scale.unsqueeze(1))
    if mode != "sum":
        counts = oneflow.zeros(bags, dtype=weight.dtype).index_add(0, bag_of, keep.to(weight.dtype))
        out = out / counts.clamp_min(1).unsqueeze(1)
    return out


def _max_bags(rows, keep, bounds, lengths, bags, dim):
    # Bags are padded to a common length to take their max in one call; grouping them by the
    # power of two above their length keeps the padding under half of each group.
    groups: dict = {}
    for bag, n in enumerate(lengths):
        groups.setdefault(n.bit_length(), []).append(bag)
    parts, order = [], []
    for size_class, members in sorted(groups.items()):
        order.extend(members)
        if size_class == 0:
            parts.append(oneflow.zeros(len(members), dim, dtype=rows.dtype))
            continue
        parts.append(_padded_max(rows, keep, [bounds[b] for b in members], [lengths[b] for b in members], dim))
    out = parts[0] if len(parts) == 1 else oneflow.cat(parts, dim=0)
    if order != list(range(bags)):
        out = out[oneflow.argsort(oneflow.tensor(order, dtype=oneflow.int64))]
    return out


def _padded_max(rows, keep, starts, lengths, dim):
    """The max of the rows of each bag (``starts[i]``, ``lengths[i]``), zeros where no row is kept."""
    count, longest = len(starts), max(lengths)
    # Entry positions of each bag, padded to the longest; the padding points at the bag's start.
    steps = oneflow.arange(longest).unsqueeze(0)
    in_bag = steps < oneflow.tensor(lengths, dtype=oneflow.int64).unsqueeze(1)
    first = oneflow.tensor(starts, dtype=oneflow.int64).unsqueeze(1)
    positions = oneflow.where(in_bag, first + steps, first)
    valid = in_bag & keep[positions]
    gathered = rows[positions.reshape(-1)].reshape(count, longest, dim)
    lowest = oneflow.full((), float("-inf"), dtype=rows.dtype)
    values, _ = oneflow.where(valid.unsqueeze(2), gathered, lowest).max(dim=1)
    # Bags whose rows are all padding give zeros.
    filled = valid.any(dim=1, keepdim=True)
    return oneflow.where(filled, values, oneflow.zeros((), dtype=rows.dtype))
