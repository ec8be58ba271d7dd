"""Loss layers: the ``reduction`` (and class ``weight``) of a loss function, held as a module.

Each module maps onto the loss function of ``oneflow.nn.functional``; class weights
(``weight``, ``pos_weight``) are registered as buffers, so they appear in
``state_dict()`` and follow ``.to()``. The deprecated ``size_average``/``reduce`` pair
is turned into a ``reduction`` name when the module is built, with a warning.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable

import oneflow
from oneflow.nn import functional as F
from oneflow.nn.modules.distance import PairwiseDistance
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
    "MultiLabelMarginLoss",
    "MultiLabelSoftMarginLoss",
    "MultiMarginLoss",
    "NLLLoss",
    "NLLLoss2d",
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


class NLLLoss2d(NLLLoss):
    r"""The deprecated 2-D spelling of :class:`NLLLoss` (which takes :math:`(N, C, H, W)` itself)."""

    def __init__(self, weight: Tensor | None = None, size_average=None, ignore_index: int = -100, reduce=None,
                 reduction: str = "mean") -> None:
        warnings.warn("NLLLoss2d is deprecated; NLLLoss takes the same arguments and inputs.", FutureWarning,
                      stacklevel=2)
        super().__init__(weight, size_average, ignore_index, reduce, reduction)


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
        return F.soft_margin_loss(input, target, reduction=self.reduction)


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
        return F.hinge_embedding_loss(input, target, margin=self.margin, reduction=self.reduction)


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
        return F.poisson_nll_loss(log_input, target, log_input=self.log_input, full=self.full, eps=self.eps,
                                  reduction=self.reduction)


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
        return F.gaussian_nll_loss(input, target, var, full=self.full, eps=self.eps, reduction=self.reduction)


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
        return F.multilabel_soft_margin_loss(input, target, weight=self.weight, reduction=self.reduction)


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
        return F.multi_margin_loss(input, target, p=self.p, margin=self.margin, weight=self.weight,
                                   reduction=self.reduction)


class MultiLabelMarginLoss(_Loss):
    r"""Multi-label hinge loss: per sample,
    :math:`\frac{1}{C}\sum_{j}\sum_{i \notin y} \max(0, 1 - (x_{y_j} - x_i))` over the target classes
    :math:`y_j` (the entries of ``target`` before its first -1) and the other classes :math:`i`.

    Args:
        reduction: ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.
        size_average, reduce: deprecated; use ``reduction``.

    Shape: ``input`` :math:`(C)` or :math:`(N, C)`; ``target`` int64 of the same shape.
    """

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.multilabel_margin_loss(input, target, reduction=self.reduction)


class TripletMarginWithDistanceLoss(_Loss):
    r""":math:`\max(d(a, p) - d(a, n) + \text{margin}, 0)` with any distance function :math:`d`.

    Args:
        distance_function: maps two tensors to their distances; default
            :class:`oneflow.nn.PairwiseDistance`.
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
        # The default is a PairwiseDistance module, so it shows in the repr and the module tree.
        self.distance_function = distance_function if distance_function is not None else PairwiseDistance()
        self.margin = margin
        self.swap = swap

    def forward(self, anchor: Tensor, positive: Tensor, negative: Tensor) -> Tensor:
        return F.triplet_margin_with_distance_loss(anchor, positive, negative, distance_function=self.distance_function,
                                                   margin=self.margin, swap=self.swap, reduction=self.reduction)
