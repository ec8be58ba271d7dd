"""Loss functions with ``torch.nn.functional``'s signatures.

The ops live in the registry (ops/defs/loss.cc); these wrappers map PyTorch's
arguments onto them: the deprecated ``size_average``/``reduce`` pair becomes a
``reduction`` name, and ``ctc_loss`` lengths given as tensors become lists.
The losses without an op (``soft_margin_loss``, ``multi_margin_loss``,
``multilabel_margin_loss``, ``poisson_nll_loss``, ...) are composites of
elementwise ops and reductions here, their gradients following from those.
"""

from __future__ import annotations

import math
import warnings

import oneflow
from oneflow import _C

_ops = _C.ops

__all__ = [
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "cosine_embedding_loss",
    "cross_entropy",
    "ctc_loss",
    "gaussian_nll_loss",
    "hinge_embedding_loss",
    "huber_loss",
    "kl_div",
    "l1_loss",
    "margin_ranking_loss",
    "mse_loss",
    "multi_margin_loss",
    "multilabel_margin_loss",
    "multilabel_soft_margin_loss",
    "nll_loss",
    "poisson_nll_loss",
    "smooth_l1_loss",
    "soft_margin_loss",
    "triplet_margin_loss",
    "triplet_margin_with_distance_loss",
]


def _reduction(size_average, reduce, reduction):
    """PyTorch's mapping of the legacy size_average/reduce flags onto a reduction name."""
    if size_average is not None or reduce is not None:
        size_average = True if size_average is None else size_average
        reduce = True if reduce is None else reduce
        reduction = "mean" if size_average and reduce else "sum" if reduce else "none"
        warnings.warn(
            f"size_average and reduce are deprecated; they mean reduction='{reduction}' here.",
            stacklevel=3,
        )
    if reduction == "elementwise_mean":
        warnings.warn("reduction='elementwise_mean' is a deprecated spelling of reduction='mean'.", stacklevel=3)
        reduction = "mean"
    return reduction


def cross_entropy(
    input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean", label_smoothing=0.0
):
    """Cross entropy of the logits ``input`` (N, C, *) against class indices (N, *) or class probabilities (N, C, *)."""
    return _ops.cross_entropy(
        input, target, weight, _reduction(size_average, reduce, reduction), ignore_index, label_smoothing
    )


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
    """Negative log likelihood of the log-probabilities ``input`` (N, C, *) at the class indices ``target`` (N, *)."""
    return _ops.nll_loss(input, target, weight, _reduction(size_average, reduce, reduction), ignore_index)


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    """Binary cross entropy of the probabilities ``input`` against ``target`` (same shape)."""
    return _ops.binary_cross_entropy(input, target, weight, _reduction(size_average, reduce, reduction))


def binary_cross_entropy_with_logits(
    input, target, weight=None, size_average=None, reduce=None, reduction="mean", pos_weight=None
):
    """Binary cross entropy of ``sigmoid(input)``, computed stably from the logits."""
    return _ops.binary_cross_entropy_with_logits(
        input, target, weight, pos_weight, _reduction(size_average, reduce, reduction)
    )


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """Squared error ``(input - target)^2``, reduced."""
    return _ops.mse_loss(input, target, _reduction(size_average, reduce, reduction), weight)


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """Absolute error ``|input - target|``, reduced."""
    return _ops.l1_loss(input, target, _reduction(size_average, reduce, reduction), weight)


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    """Squared error below ``beta`` (divided by it), absolute error minus ``beta / 2`` above."""
    return _ops.smooth_l1_loss(input, target, _reduction(size_average, reduce, reduction), beta)


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    """Squared error below ``delta``, ``delta``-scaled absolute error above."""
    return _ops.huber_loss(input, target, _reduction(None, None, reduction), delta, weight)


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    """Kullback-Leibler divergence of the log-probabilities ``input`` from ``target``."""
    if reduction == "mean" and size_average is None and reduce is None:
        warnings.warn(
            "kl_div: reduction='mean' averages over every element, not over the batch; reduction='batchmean' "
            "gives the mathematical KL divergence (sum over the batch divided by its size).",
            stacklevel=2,
        )
    return _ops.kl_div(input, target, _reduction(size_average, reduce, reduction), log_target=log_target)


def margin_ranking_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"):
    """``max(0, -target * (input1 - input2) + margin)`` for targets of 1 and -1."""
    _check_broadcast("margin_ranking_loss", input1, input2)
    return _ops.margin_ranking_loss(input1, input2, target, margin, _reduction(size_average, reduce, reduction))


def triplet_margin_loss(
    anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False, size_average=None, reduce=None, reduction="mean"
):
    """``max(d(anchor, positive) - d(anchor, negative) + margin, 0)`` with the p-norm distance."""
    return _ops.triplet_margin_loss(
        anchor, positive, negative, margin, p, eps, swap, _reduction(size_average, reduce, reduction)
    )


def cosine_embedding_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"):
    """``1 - cos(x1, x2)`` where ``target`` is 1, ``max(0, cos(x1, x2) - margin)`` where it is -1."""
    _check_broadcast("cosine_embedding_loss", input1, input2)
    return _ops.cosine_embedding_loss(input1, input2, target, margin, _reduction(size_average, reduce, reduction))


def _lengths(lengths):
    """Sequence lengths as a list of ints, from a list, a tuple, an int or a tensor (0-d for one sequence)."""
    values = lengths.tolist() if hasattr(lengths, "tolist") else lengths
    return [int(v) for v in values] if isinstance(values, (list, tuple)) else [int(values)]


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean", zero_infinity=False):
    """Connectionist temporal classification loss of ``log_probs`` (T, N, C) against the target sequences."""
    return _ops.ctc_loss(
        log_probs,
        targets,
        _lengths(input_lengths),
        _lengths(target_lengths),
        blank,
        _reduction(None, None, reduction),
        zero_infinity,
    )


# ---- composite losses ------------------------------------------------------------------------


def _reduce(loss, reduction: str):
    if reduction == "none":
        return loss
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    raise ValueError(f"{reduction} is not a valid value for reduction")


def _check_reduction(op: str, reduction: str) -> None:
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{op}: {reduction} is not a valid value for reduction")


def _check_broadcast(op: str, input, target) -> None:
    """PyTorch's broadcasting error, naming the loss and both shapes (``input`` and ``target`` stand
    for the two operands)."""
    a, b = list(input.shape), list(target.shape)
    for i in range(1, min(len(a), len(b)) + 1):
        if a[-i] != b[-i] and a[-i] != 1 and b[-i] != 1:
            raise RuntimeError(
                f"{op}: The size of tensor a ({a[-i]}) must match the size of tensor b ({b[-i]}) at "
                f"non-singleton dimension {max(len(a), len(b)) - i} (input of shape {a}, target of "
                f"shape {b})"
            )


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    r"""Two-class logistic loss :math:`\log(1 + e^{-y x})` for targets :math:`y \in \{1, -1\}`."""
    reduction = _reduction(size_average, reduce, reduction)
    _check_reduction("soft_margin_loss", reduction)
    _check_broadcast("soft_margin_loss", input, target)
    # log(1 + e^z) as softplus(z), stable for large z.
    return _reduce(_ops.softplus(-target * input), reduction)


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    r"""One-versus-all logistic loss averaged over the classes (last dim) of ``input``:
    :math:`-\frac{1}{C}\sum_c w_c [y_c \log \sigma(x_c) + (1 - y_c) \log \sigma(-x_c)]`."""
    reduction = _reduction(size_average, reduce, reduction)
    _check_reduction("multilabel_soft_margin_loss", reduction)
    _check_broadcast("multilabel_soft_margin_loss", input, target)
    loss = -(target * _ops.logsigmoid(input) + (1 - target) * _ops.logsigmoid(-input))
    if weight is not None:
        _check_broadcast("multilabel_soft_margin_loss", loss, weight)
        loss = loss * weight
    class_dim = input.dim() - 1
    loss = loss.sum(dim=class_dim) / input.size(class_dim)
    return _reduce(loss, reduction)


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None, reduction="mean"):
    r""":math:`x` where ``target`` is 1 and :math:`\max(0, \text{margin} - x)` where it is -1."""
    reduction = _reduction(size_average, reduce, reduction)
    _check_reduction("hinge_embedding_loss", reduction)
    _check_broadcast("hinge_embedding_loss", input, target)
    zeros = oneflow.zeros((), dtype=input.dtype)
    below_margin = oneflow.where(target != 1, (margin - input).clamp_min(0), zeros)
    itself = oneflow.where(target != -1, input, zeros)
    return _reduce(below_margin + itself, reduction)


def poisson_nll_loss(
    input, target, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None, reduction="mean"
):
    r"""Negative log likelihood of ``target`` under a Poisson distribution of rate ``input``:
    :math:`e^x - y x` for log-rates, :math:`x - y \log(x + \epsilon)` otherwise; ``full`` adds the
    Stirling term :math:`y \log y - y + \frac{1}{2}\log(2\pi y)` where :math:`y > 1`."""
    reduction = _reduction(size_average, reduce, reduction)
    _check_reduction("poisson_nll_loss", reduction)
    _check_broadcast("poisson_nll_loss", input, target)
    if log_input:
        loss = oneflow.exp(input) - target * input
    else:
        loss = input - target * oneflow.log(input + eps)
    if full:
        # Only where target > 1; elsewhere a safe 1 keeps the logs (and their gradients) finite.
        above_one = target > 1
        safe = oneflow.where(above_one, target, oneflow.ones((), dtype=target.dtype))
        stirling = safe * oneflow.log(safe) - safe + 0.5 * oneflow.log(2 * math.pi * safe)
        loss = loss + oneflow.where(above_one, stirling, oneflow.zeros((), dtype=stirling.dtype))
    return _reduce(loss, reduction)


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    r"""Negative log likelihood of ``target`` under a Gaussian of mean ``input`` and variance ``var``:
    :math:`\frac{1}{2}(\log \max(\sigma^2, \epsilon) + (x - y)^2 / \max(\sigma^2, \epsilon))`.

    ``var`` is a float, has the input's shape, or is homoscedastic: one dim fewer (the last), or one
    dim of size 1 where the input's is larger. The clamp at ``eps`` passes gradients through.
    """
    if isinstance(var, (int, float)):
        if var < 0:
            raise ValueError("gaussian_nll_loss: var has negative entry/entries")
        var = oneflow.full(tuple(input.shape), float(var), dtype=input.dtype)
    elif bool((var < 0).any()):
        raise ValueError("gaussian_nll_loss: var has negative entry/entries")
    in_shape, var_shape = list(input.shape), list(var.shape)
    if var_shape != in_shape:
        if in_shape[:-1] == var_shape:
            var = var.unsqueeze(-1)
        elif not (len(in_shape) == len(var_shape) and sum(v for i, v in zip(in_shape, var_shape) if i != v) == 1):
            raise ValueError(
                f"gaussian_nll_loss: var is of incorrect size: var of shape {var_shape} for input of shape {in_shape}"
            )
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"gaussian_nll_loss: {reduction} is not valid")
    # The clamped values with the identity's gradient.
    var = var + (var.clamp_min(eps) - var).detach()
    loss = 0.5 * (oneflow.log(var) + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction)


def _class_scores(op: str, input, target):
    """``input`` as ``(N, C)``, and whether it was batched; PyTorch's shape checks."""
    shape = list(input.shape)
    if not (input.dim() == 0 or (input.dim() == 1 and shape[0] > 0) or (input.dim() == 2 and shape[1] > 0)):
        raise RuntimeError(
            f"{op}: Expected non-empty vector or matrix with optional 0-dim batch size, but got: input of shape {shape}"
        )
    if target.dtype != oneflow.int64:
        raise RuntimeError(
            f"{op}: expected scalar type Long but found {target.dtype} (target of shape {list(target.shape)})"
        )
    if not input.is_floating_point():
        raise NotImplementedError(f"{op}: not implemented for {input.dtype} (input of shape {shape})")
    return input.reshape(-1, shape[-1] if shape else 1), input.dim() == 2


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None, reduce=None, reduction="mean"):
    r"""Multi-class hinge loss: :math:`\frac{1}{C} \sum_{i \ne y} w_y \max(0, \text{margin} - x_y + x_i)^p`
    per sample, for ``input`` :math:`(N, C)` or :math:`(C)` and class indices ``target``."""
    reduction = _reduction(size_average, reduce, reduction)
    _check_reduction("multi_margin_loss", reduction)
    if p not in (1, 2):
        raise ValueError(f"multi_margin_loss: only p == 1 and p == 2 supported, but got p={p}")
    if weight is not None and weight.dim() != 1:
        raise ValueError(
            f"multi_margin_loss: weight must be one-dimensional, but got weight of shape {list(weight.shape)}"
        )
    x, batched = _class_scores("multi_margin_loss", input, target)
    n, c = x.shape
    if (batched and list(target.shape) != [n]) or (not batched and target.numel() != 1):
        raise RuntimeError(
            f"multi_margin_loss: target tensor should be 1-D with size equal to the number of input samples (batch "
            f"size). Expected target size [{n}], but got {list(target.shape)}. Input has shape {list(input.shape)}."
        )
    if weight is not None and list(weight.shape) != [c]:
        raise RuntimeError(f"multi_margin_loss: inconsistent weight size, expected {c} but got {list(weight.shape)}")
    if weight is not None and weight.dtype != input.dtype:
        raise RuntimeError(
            f"multi_margin_loss: expected weight of the input's dtype {input.dtype}, but got {weight.dtype}"
        )
    y = target.reshape(-1)
    if n and (bool((y < 0).any()) or bool((y >= c).any())):
        raise RuntimeError(
            f"multi_margin_loss: target out of range: values must be in [0, {c}) (input of shape {list(input.shape)})"
        )
    z = (margin - x.gather(1, y.unsqueeze(1)) + x).clamp_min(0)
    if p == 2:
        z = z * z
    if weight is not None:
        z = z * weight[y].unsqueeze(1)
    not_target = _ops.one_hot(y, c) == 0
    loss = oneflow.where(not_target, z, oneflow.zeros((), dtype=z.dtype)).sum(dim=1) / c
    if not batched:
        loss = loss.reshape(target.shape)
    return _reduce(loss, reduction)


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    r"""Multi-label hinge loss: for each sample,
    :math:`\frac{1}{C}\sum_{j}\sum_{i \notin y} \max(0, 1 - (x_{y_j} - x_i))`, where the targets
    :math:`y_j` are the class indices in ``target`` before its first -1.

    Args:
        input: :math:`(C)` or :math:`(N, C)` scores.
        target: int64 of the input's shape; each row lists target classes, ended by -1 (or full).
        reduction: ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.
        size_average, reduce: deprecated; use ``reduction``.
    """
    reduction = _reduction(size_average, reduce, reduction)
    _check_reduction("multilabel_margin_loss", reduction)
    x, batched = _class_scores("multilabel_margin_loss", input, target)
    if list(target.shape) != list(input.shape):
        raise RuntimeError(
            f"multilabel_margin_loss: inconsistent target size: {list(target.shape)} for input of "
            f"size: {list(input.shape)}"
        )
    n, c = x.shape
    t = target.reshape(n, c)
    # Targets count up to the first -1 of each row; every entry must be a class or -1 all the same.
    listed = oneflow.cumprod((t != -1).to(oneflow.int64), dim=1) != 0
    if bool(((t < -1) | (t >= c)).any()):
        raise RuntimeError(
            f"multilabel_margin_loss: target out of range: values must be in [-1, {c}) "
            f"(target of shape {list(target.shape)})"
        )
    t = oneflow.where(listed, t, oneflow.zeros((), dtype=t.dtype))
    is_target = oneflow.zeros(n, c, dtype=oneflow.int64).scatter_add(1, t, listed.to(oneflow.int64)) > 0
    # The listed targets are a prefix of each row: the pairwise margins need only the longest prefix.
    longest = int(listed.sum(dim=1).max()) if n else 0
    t, listed = t[:, :longest], listed[:, :longest]
    # margins[n, j, i] = 1 - x[n, y_j] + x[n, i], counted for listed j and non-target i.
    margins = (1 - x.gather(1, t).unsqueeze(2) + x.unsqueeze(1)).clamp_min(0)
    counted = listed.unsqueeze(2) & ~is_target.unsqueeze(1)
    loss = oneflow.where(counted, margins, oneflow.zeros((), dtype=margins.dtype)).sum(dim=(1, 2)) / c
    if not batched:
        loss = loss.reshape(())
    return _reduce(loss, reduction)


def triplet_margin_with_distance_loss(
    anchor, positive, negative, *, distance_function=None, margin=1.0, swap=False, reduction="mean"
):
    r""":math:`\max(d(a, p) - d(a, n) + \text{margin}, 0)` with any distance function :math:`d`
    (default :func:`pairwise_distance`); ``swap`` uses the smaller of :math:`d(a, n)` and :math:`d(p, n)`."""
    _check_reduction("triplet_margin_with_distance_loss", reduction)
    if margin <= 0:
        raise ValueError(f"triplet_margin_with_distance_loss: margin must be greater than 0, got {margin}")
    dims = (anchor.dim(), positive.dim(), negative.dim())
    if len(set(dims)) != 1:
        raise RuntimeError(
            "triplet_margin_with_distance_loss: The anchor, positive, and negative tensors are expected to have the "
            f"same number of dimensions, but got: anchor {dims[0]}D, positive {dims[1]}D, and negative {dims[2]}D "
            f"inputs (shapes {list(anchor.shape)}, {list(positive.shape)}, {list(negative.shape)})"
        )
    distance = _ops.pairwise_distance if distance_function is None else distance_function
    dist_pos = distance(anchor, positive)
    dist_neg = distance(anchor, negative)
    if swap:
        dist_neg = oneflow.minimum(dist_neg, distance(positive, negative))
    return _reduce((margin + dist_pos - dist_neg).clamp_min(0), reduction)
