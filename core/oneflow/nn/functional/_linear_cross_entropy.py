"""``linear_cross_entropy``: cross entropy of a linear projection's logits, with
``torch.nn.functional``'s signature (``LinearCrossEntropyOptions`` is accepted; the reference
computation serves every configuration)."""

from __future__ import annotations

import math

import oneflow
from oneflow import _C

__all__ = ["linear_cross_entropy"]


def linear_cross_entropy(
    input,
    linear_weight,
    target,
    *,
    linear_bias=None,
    weight=None,
    reduction: str = "mean",
    ignore_index: int | None = None,
    label_smoothing: float = 0.0,
    options=None,
):
    r"""Cross entropy between ``target`` and the logits ``linear(input, linear_weight, linear_bias)``:
    the same as ``cross_entropy(linear(input, linear_weight), target, ...)``.

    Args:
        input: ``(in_features,)`` or ``(N, in_features)``.
        linear_weight: ``(C, in_features)``, or ``(C, d_1, ..., d_K, in_features)`` for a
            K-dimensional loss (batched input only).
        target: class indices (``()``, ``(N,)`` or ``(N, d_1, ..., d_K)``), or class
            probabilities shaped like the logits.
        linear_bias: ``(C,)`` or ``(C, d_1, ..., d_K)``. Default: ``None``.
        weight: ``(C,)`` class weights. Default: ``None``.
        reduction: ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.
        ignore_index: a class index that does not count (indices only); ``None`` means -100.
        label_smoothing: in [0, 1]. Default: 0.
        options: a ``LinearCrossEntropyOptions`` (chunking in PyTorch, a memory optimization);
            the result is the same, computed in one piece here.
    """
    if options is not None and type(options).__name__ != "LinearCrossEntropyOptions":
        raise TypeError(
            f"linear_cross_entropy(): options must be a LinearCrossEntropyOptions or None, got {type(options).__name__}"
        )
    if input.dim() < 1 or input.dim() > 2:
        raise RuntimeError(f"expected input with dimensionality 1 or 2, got {input.dim()}")
    if linear_weight.dim() < 2:
        raise RuntimeError(f"expected linear_weight with dimensionality at least 2, got {linear_weight.dim()}")
    num_batches = tuple(input.shape[:-1])
    in_features = input.shape[-1]
    if in_features != linear_weight.shape[-1]:
        raise RuntimeError(
            "expected equal input and linear_weight last dimensions (in_features), "
            f"got {input.shape[-1]} and {linear_weight.shape[-1]}, respectively"
        )
    num_classes = linear_weight.shape[0]
    out_features = tuple(linear_weight.shape[1:-1])
    if linear_bias is not None and tuple(linear_bias.shape) != (num_classes, *out_features):
        raise RuntimeError(f"expected linear_bias shape {(num_classes, *out_features)}, got {tuple(linear_bias.shape)}")
    if out_features and not num_batches:
        raise RuntimeError(
            f"K-dimensional loss defined by linear_weight shape {tuple(linear_weight.shape)} requires batched input, "
            f"(N, {in_features}), got unbatched input with shape {tuple(input.shape)}"
        )
    logits_shape = (*num_batches, num_classes, *out_features)
    if tuple(target.shape) == logits_shape and ignore_index is not None:
        raise RuntimeError("ignore_index cannot be specified when target contains probabilities")
    ignore_index = -100 if ignore_index is None else ignore_index
    if out_features:
        rows = math.prod(out_features) * num_classes
        linear_weight = linear_weight.reshape(rows, in_features)
        if linear_bias is not None:
            linear_bias = linear_bias.reshape(rows)
    logits = _C.ops.linear(input, linear_weight, linear_bias).reshape(logits_shape)
    return oneflow.nn.functional.cross_entropy(
        logits, target, weight=weight, reduction=reduction, ignore_index=ignore_index, label_smoothing=label_smoothing
    )
