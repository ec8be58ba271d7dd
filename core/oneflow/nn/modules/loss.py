"""Loss layers: the ``reduction`` (and class ``weight``) of a loss function, held as a module.

Each module maps onto the loss function of ``oneflow.nn.functional``; class weights
(``weight``, ``pos_weight``) are registered as buffers, so they appear in
``state_dict()`` and follow ``.to()``. The deprecated ``size_average``/``reduce`` pair
is turned into a ``reduction`` name when the module is built, with a warning. The few
losses without a registry op (``SoftMarginLoss``, ``PoissonNLLLoss``, ...) are written
with elementwise ops here.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable

import oneflow
from oneflow.nn import functional as F
from oneflow.nn.modules.module import Module

__all__ = [
    "BCELoss",
    "BCEWithLogitsLoss",
    "CTCLoss",
    "CosineEmbeddingLoss",
    "CrossEntropyLoss",
    "GaussianNLLLoss",
    "HingeEmbeddingLoss",
    "HuberLoss",
    "KLDivLoss",
    "L1Loss",
    "MSELoss",
    "MarginRankingLoss",
    "MultiLabelSoftMarginLoss",
    "MultiMarginLoss",
    "NLLLoss",
    "PoissonNLLLoss",
    "SmoothL1Loss",
    "SoftMarginLoss",
    "TripletMarginLoss",
    "TripletMarginWithDistanceLoss",
]

Tensor = oneflow.Tensor


def _legacy_reduction(size_average, reduce) -> str:
    """The reduction that the deprecated ``size_average``/``reduce`` flags stand for."""
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    reduction = ("mean" if size_average else "sum") if reduce else "none"
    warnings.warn(
        f"size_average and reduce are deprecated; they mean reduction='{reduction}' here, pass that instead.",
        stacklevel=3)
    return reduction


def _reduce(loss: Tensor, reduction: str) -> Tensor:
    if reduction == "none":
        return loss
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    raise ValueError(f"{reduction} is not a valid value for reduction")


class _Loss(Module):
    def __init__(self, size_average=None, reduce=None, reduction: str = "mean") -> None:
        super().__init__()
        if size_average is not None or reduce is not None:
            self.reduction = _legacy_reduction(size_average, reduce)
        else:
            self.reduction = reduction


class _WeightedLoss(_Loss):
    def __init__(self, weight: Tensor | None = None, size_average=None, reduce=None,
                 reduction: str = "mean") -> None:
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)


class L1Loss(_Loss):
    r"""Mean absolute error :math:`|x_n - y_n|`, reduced by ``reduction``.

    Args:
        size_average, reduce: deprecated; use ``reduction``.
        reduction: ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.
    """

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.l1_loss(input, target, reduction=self.reduction)


class MSELoss(_Loss):
    r"""Squared error :math:`(x_n - y_n)^2`, reduced by ``reduction`` (arguments as :class:`L1Loss`)."""

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.mse_loss(input, target, reduction=self.reduction)


class NLLLoss(_WeightedLoss):
    r"""Negative log likelihood :math:`-w_{y_n} x_{n, y_n}` of log-probabilities ``input``
    :math:`(N, C, *)` for class indices ``target`` :math:`(N, *)`.

    Args:
        weight: a manual rescaling weight for each class, of size ``C``.
        ignore_index: a target value that contributes neither loss nor gradient. Default: -100.
        reduction: ``'none'``, ``'mean'`` (weighted mean) or ``'sum'``. Default: ``'mean'``.
        size_average, reduce: deprecated; use ``reduction``.
    """

    def __init__(self, weight: Tensor | None = None, size_average=None, ignore_index: int = -100, reduce=None,
                 reduction: str = "mean") -> None:
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.nll_loss(input, target, weight=self.weight, ignore_index=self.ignore_index,
                          reduction=self.reduction)


class CrossEntropyLoss(_WeightedLoss):
    r"""Cross entropy between the logits ``input`` :math:`(N, C, *)` and a target of class
    indices :math:`(N, *)` or class probabilities :math:`(N, C, *)`.

    Args:
        weight: a manual rescaling weight for each class, of size ``C``.
        ignore_index: a target index that contributes neither loss nor gradient. Default: -100.
        reduction: ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.
        label_smoothing: mixes the target with the uniform distribution by this amount. Default: 0.
        size_average, reduce: deprecated; use ``reduction``.
    """

    def __init__(self, weight: Tensor | None = None, size_average=None, ignore_index: int = -100, reduce=None,
                 reduction: str = "mean", label_smoothing: float = 0.0) -> None:
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.cross_entropy(input, target, weight=self.weight, ignore_index=self.ignore_index,
                               reduction=self.reduction, label_smoothing=self.label_smoothing)


class BCELoss(_WeightedLoss):
    r"""Binary cross entropy :math:`-w_n [y_n \log x_n + (1 - y_n) \log(1 - x_n)]` of probabilities.

    Args:
        weight: a rescaling weight broadcast against the input.
        reduction: ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.
        size_average, reduce: deprecated; use ``reduction``.
    """

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.binary_cross_entropy(input, target, weight=self.weight, reduction=self.reduction)


class BCEWithLogitsLoss(_Loss):
    r"""Binary cross entropy of ``sigmoid(input)``, computed stably from the logits.

    Args:
        weight: a rescaling weight broadcast against the input.
        reduction: ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.
        pos_weight: a weight of the positive examples, broadcast along the class dim.
        size_average, reduce: deprecated; use ``reduction``.
    """

    def __init__(self, weight: Tensor | None = None, size_average=None, reduce=None, reduction: str = "mean",
                 pos_weight: Tensor | None = None) -> None:
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.register_buffer("pos_weight", pos_weight)

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.binary_cross_entropy_with_logits(input, target, self.weight, pos_weight=self.pos_weight,
                                                  reduction=self.reduction)


class SmoothL1Loss(_Loss):
    r"""Squared error below ``beta`` and absolute error above: :math:`0.5 (x - y)^2 / \beta` if
    :math:`|x - y| < \beta`, else :math:`|x - y| - 0.5 \beta`.

    Args:
        reduction: ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.
        beta: the switch point (non-negative). Default: 1.
        size_average, reduce: deprecated; use ``reduction``.
    """

    def __init__(self, size_average=None, reduce=None, reduction: str = "mean", beta: float = 1.0) -> None:
        super().__init__(size_average, reduce, reduction)
        self.beta = beta

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)


class HuberLoss(_Loss):
    r"""Squared error below ``delta`` and ``delta``-scaled absolute error above:
    :math:`0.5 (x - y)^2` if :math:`|x - y| < \delta`, else :math:`\delta (|x - y| - 0.5 \delta)`.

    Args:
        reduction: ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.
        delta: the switch point (positive). Default: 1.
    """

    def __init__(self, reduction: str = "mean", delta: float = 1.0) -> None:
        super().__init__(reduction=reduction)
        self.delta = delta

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.huber_loss(input, target, reduction=self.reduction, delta=self.delta)


class KLDivLoss(_Loss):
    r"""Kullback-Leibler divergence :math:`y (\log y - x)` of the log-probabilities ``input`` from
    ``target``.

    Args:
        reduction: ``'none'``, ``'batchmean'`` (the mathematical KL divergence), ``'sum'`` or
            ``'mean'`` (per element). Default: ``'mean'``.
        log_target: ``target`` holds log-probabilities too. Default: ``False``.
        size_average, reduce: deprecated; use ``reduction``.
    """

    def __init__(self, size_average=None, reduce=None, reduction: str = "mean", log_target: bool = False) -> None:
        super().__init__(size_average, reduce, reduction)
        self.log_target = log_target

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.kl_div(input, target, reduction=self.reduction, log_target=self.log_target)


class MarginRankingLoss(_Loss):
    r""":math:`\max(0, -y (x_1 - x_2) + \text{margin})`: ``input1`` should rank higher than
    ``input2`` where ``target`` is 1 and lower where it is -1.

    Args:
        margin: the required gap. Default: 0.
        reduction: ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.
        size_average, reduce: deprecated; use ``reduction``.
    """

    def __init__(self, margin: float = 0.0, size_average=None, reduce=None, reduction: str = "mean") -> None:
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input1: Tensor, input2: Tensor, target: Tensor) -> Tensor:
        return F.margin_ranking_loss(input1, input2, target, margin=self.margin, reduction=self.reduction)


class TripletMarginLoss(_Loss):
    r""":math:`\max(d(a, p) - d(a, n) + \text{margin}, 0)` with the p-norm distance :math:`d`.

    Args:
        margin: the required gap (positive). Default: 1.
        p: the norm degree. Default: 2.
        eps: added to the differences. Default: 1e-6.
        swap: use the smaller of :math:`d(a, n)` and :math:`d(p, n)`. Default: ``False``.
        reduction: ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.
        size_average, reduce: deprecated; use ``reduction``.
    """

    def __init__(self, margin: float = 1.0, p: float = 2.0, eps: float = 1e-6, swap: bool = False,
                 size_average=None, reduce=None, reduction: str = "mean") -> None:
        super().__init__(size_average, reduce, reduction)
        if margin <= 0:
            raise ValueError(f"TripletMarginLoss: expected margin to be greater than 0, got {margin} instead")
        self.margin = margin
        self.p = p
        self.eps = eps
        self.swap = swap

    def forward(self, anchor: Tensor, positive: Tensor, negative: Tensor) -> Tensor:
        return F.triplet_margin_loss(anchor, positive, negative, margin=self.margin, p=self.p, eps=self.eps,
                                     swap=self.swap, reduction=self.reduction)


class CosineEmbeddingLoss(_Loss):
    r""":math:`1 - \cos(x_1, x_2)` where ``target`` is 1 and :math:`\max(0, \cos(x_1, x_2) - \text{margin})`
    where it is -1.

    Args:
        margin: between -1 and 1. Default: 0.
        reduction: ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.
        size_average, reduce: deprecated; use ``reduction``.
    """

    def __init__(self, margin: float = 0.0, size_average=None, reduce=None, reduction: str = "mean") -> None:
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input1: Tensor, input2: Tensor, target: Tensor) -> Tensor:
        return F.cosine_embedding_loss(input1, input2, target, margin=self.margin, reduction=self.reduction)


class CTCLoss(_Loss):
    r"""Connectionist temporal classification: the negative log likelihood of the target sequences
    summed over all their alignments with the (longer) input sequences.

    Args:
        blank: the blank label. Default: 0.
        reduction: ``'none'``, ``'mean'`` (each loss divided by its target length, then averaged)
            or ``'sum'``. Default: ``'mean'``.
        zero_infinity: replace infinite losses (impossible alignments) and their gradients by zero.

    ``forward(log_probs, targets, input_lengths, target_lengths)``: ``log_probs`` :math:`(T, N, C)`
    or :math:`(T, C)`, ``targets`` :math:`(N, S)` or concatenated, lengths per sample.
    """

    def __init__(self, blank: int = 0, reduction: str = "mean", zero_infinity: bool = False) -> None:
        super().__init__(reduction=reduction)
        self.blank = blank
        self.zero_infinity = zero_infinity

    def forward(self, log_probs: Tensor, targets: Tensor, input_lengths, target_lengths) -> Tensor:
        return F.ctc_loss(log_probs, targets, input_lengths, target_lengths, self.blank, self.reduction,
                          self.zero_infinity)


class SoftMarginLoss(_Loss):
    r"""Two-class logistic loss :math:`\log(1 + e^{-y x})` for targets :math:`y \in \{1, -1\}`.

    Args:
        reduction: ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.
        size_average, reduce: deprecated; use ``reduction``.
    """

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        # log(1 + e^z) = softplus(z), stable for large z.
        return _reduce(F.softplus(-target * input), self.reduction)


class HingeEmbeddingLoss(_Loss):
    r""":math:`x` where ``target`` is 1 and :math:`\max(0, \text{margin} - x)` where it is -1 (``input``
    usually a distance).

    Args:
        margin: Default: 1.
        reduction: ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.
        size_average, reduce: deprecated; use ``reduction``.
    """

    def __init__(self, margin: float = 1.0, size_average=None, reduce=None, reduction: str = "mean") -> None:
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        zeros = oneflow.zeros_like(input)
        margin_part = oneflow.where(target != 1, (self.margin - input).clamp_min(0), zeros)
        self_part = oneflow.where(target != -1, input, zeros)
        return _reduce(margin_part + self_part, self.reduction)


class PoissonNLLLoss(_Loss):
    r"""Negative log likelihood of ``target`` under a Poisson distribution of rate ``input``:
    :math:`e^x - y x` for log-rates, :math:`x - y \log(x + \epsilon)` otherwise.

    Args:
        log_input: ``input`` holds log-rates. Default: ``True``.
        full: add the Stirling approximation of :math:`\log(y!)`. Default: ``False``.
        eps: keeps the log finite when ``log_input=False``. Default: 1e-8.
        reduction: ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.
        size_average, reduce: deprecated; use ``reduction``.
    """

    def __init__(self, log_input: bool = True, full: bool = False, size_average=None, eps: float = 1e-8,
                 reduce=None, reduction: str = "mean") -> None:
        super().__init__(size_average, reduce, reduction)
        self.log_input = log_input
        self.full = full
        self.eps = eps

    def forward(self, log_input: Tensor, target: Tensor) -> Tensor:
        if self.log_input:
            loss = oneflow.exp(log_input) - target * log_input
        else:
            loss = log_input - target * oneflow.log(log_input + self.eps)
        if self.full:
            # target * log(target) - target + 0.5 * log(2 pi target), only where target > 1.
            safe = oneflow.where(target > 1, target, oneflow.ones_like(target))
            stirling = safe * oneflow.log(safe) - safe + 0.5 * oneflow.log(2 * math.pi * safe)
            loss = loss + oneflow.where(target > 1, stirling, oneflow.zeros_like(stirling))
        return _reduce(loss, self.reduction)


class GaussianNLLLoss(Module):
    r"""Negative log likelihood of ``target`` under a Gaussian of mean ``input`` and variance ``var``:
    :math:`\frac{1}{2}(\log \max(\sigma^2, \epsilon) + (x - y)^2 / \max(\sigma^2, \epsilon))`.

    Args:
        full: add the constant :math:`\frac{1}{2} \log(2\pi)`. Default: ``False``.
        eps: lower clamp of the variance (the clamp passes gradients through). Default: 1e-6.
        reduction: ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.

    ``forward(input, target, var)``: ``var`` has the input's shape, or one dim fewer / a last dim
    of 1 (one variance per sample).
    """

    def __init__(self, *, full: bool = False, eps: float = 1e-6, reduction: str = "mean") -> None:
        super().__init__()
        self.full = full
        self.eps = eps
        self.reduction = reduction

    def forward(self, input: Tensor, target: Tensor, var: Tensor | float) -> Tensor:
        if not isinstance(var, oneflow.Tensor):
            var = oneflow.full(input.shape, float(var), dtype=input.dtype, device=input.device)
        if tuple(var.shape) != tuple(input.shape):
            if tuple(input.shape[:-1]) == tuple(var.shape):
                var = var.unsqueeze(-1)
            elif not (tuple(input.shape[:-1]) == tuple(var.shape[:-1]) and var.shape[-1] == 1):
                raise ValueError("var is of incorrect size")
        if self.reduction not in ("none", "mean", "sum"):
            raise ValueError(f"{self.reduction} is not a valid value for reduction")
        if bool((var < 0).any()):
            raise ValueError("var has negative entry/entries")
        # Clamped values with the gradient of the identity, as PyTorch's in-place clamp under no_grad.
        var = var + (var.clamp_min(self.eps) - var).detach()
        loss = 0.5 * (oneflow.log(var) + (input - target) ** 2 / var)
        if self.full:
            loss = loss + 0.5 * math.log(2 * math.pi)
        return _reduce(loss, self.reduction)


class MultiLabelSoftMarginLoss(_WeightedLoss):
    r"""Multi-label one-versus-all logistic loss: the mean over the ``C`` classes of
    :math:`-w_c [y_c \log \sigma(x_c) + (1 - y_c) \log \sigma(-x_c)]`, for ``input`` and 0/1
    ``target`` of shape :math:`(N, C)` or :math:`(C)`.

    Args:
        weight: a rescaling weight for each class, of size ``C``.
        reduction: ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.
        size_average, reduce: deprecated; use ``reduction``.
    """

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        loss = -(target * F.logsigmoid(input) + (1 - target) * F.logsigmoid(-input))
        if self.weight is not None:
            loss = loss * self.weight
        class_dim = input.dim() - 1
        loss = loss.sum(dim=class_dim) / input.size(class_dim)
        return _reduce(loss, self.reduction)


class MultiMarginLoss(_WeightedLoss):
    r"""Multi-class hinge loss: :math:`\frac{1}{C} \sum_{i \ne y} \max(0, \text{margin} - x_y + x_i)^p`
    per sample, for ``input`` :math:`(N, C)` or :math:`(C)` and class indices ``target``.

    Args:
        p: 1 or 2. Default: 1.
        margin: Default: 1.
        weight: a rescaling weight for each class (indexed by the target), of size ``C``.
        reduction: ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.
        size_average, reduce: deprecated; use ``reduction``.
    """

    def __init__(self, p: int = 1, margin: float = 1.0, weight: Tensor | None = None, size_average=None,
                 reduce=None, reduction: str = "mean") -> None:
        super().__init__(weight, size_average, reduce, reduction)
        if p not in (1, 2):
            raise ValueError("only p == 1 and p == 2 supported")
        if weight is not None and weight.dim() != 1:
            raise ValueError(
                f"MultiMarginLoss: expected weight to be None or 1D tensor, got {weight.dim()}D instead")
        self.p = p
        self.margin = margin

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        batched = input.dim() == 2
        if input.dim() not in (1, 2) or target.dim() > 1:
            raise RuntimeError(
                f"multi_margin_loss: expected input (N, C) or (C) and target (N) or (), got input of shape "
                f"{list(input.shape)} and target of shape {list(target.shape)}")
        x = input if batched else input.unsqueeze(0)
        y = target.reshape(-1)
        n, c = x.shape
        if y.shape[0] != n:
            raise RuntimeError(
                f"multi_margin_loss: target of shape {list(target.shape)} does not match input of shape "
                f"{list(input.shape)}")
        x_y = x.gather(1, y.unsqueeze(1))
        z = (self.margin - x_y + x).clamp_min(0)
        if self.p == 2:
            z = z * z
        if self.weight is not None:
            z = z * self.weight[y].unsqueeze(1)
        not_target = 1 - F.one_hot(y, c).to(z.dtype)
        loss = (z * not_target).sum(dim=1) / c
        if not batched:
            loss = loss.squeeze(0)
        return _reduce(loss, self.reduction)


class TripletMarginWithDistanceLoss(_Loss):
    r""":math:`\max(d(a, p) - d(a, n) + \text{margin}, 0)` with any distance function :math:`d`.

    Args:
        distance_function: maps two tensors to their distances; default
            :func:`oneflow.nn.functional.pairwise_distance`.
        margin: the required gap (positive). Default: 1.
        swap: use the smaller of :math:`d(a, n)` and :math:`d(p, n)`. Default: ``False``.
        reduction: ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.
    """

    def __init__(self, *, distance_function: Callable[[Tensor, Tensor], Tensor] | None = None, margin: float = 1.0,
                 swap: bool = False, reduction: str = "mean") -> None:
        super().__init__(size_average=None, reduce=None, reduction=reduction)
        if margin <= 0:
            raise ValueError(
                f"TripletMarginWithDistanceLoss: expected margin to be greater than 0, got {margin} instead")
        self.distance_function = distance_function if distance_function is not None else F.pairwise_distance
        self.margin = margin
        self.swap = swap

    def forward(self, anchor: Tensor, positive: Tensor, negative: Tensor) -> Tensor:
        dist_pos = self.distance_function(anchor, positive)
        dist_neg = self.distance_function(anchor, negative)
        if self.swap:
            dist_neg = oneflow.minimum(dist_neg, self.distance_function(positive, negative))
        loss = (self.margin + dist_pos - dist_neg).clamp_min(0)
        return _reduce(loss, self.reduction)
