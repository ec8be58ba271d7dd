"""Loss functions with ``torch.nn.functional``'s signatures.

The ops live in the registry (ops/defs/loss.cc); these wrappers map PyTorch's
arguments onto them: the deprecated ``size_average``/``reduce`` pair becomes a
``reduction`` name, and ``ctc_loss`` lengths given as tensors become lists.
"""

import warnings

from oneflow import _C

_ops = _C.ops

__all__ = [
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "cosine_embedding_loss",
    "cross_entropy",
    "ctc_loss",
    "huber_loss",
    "kl_div",
    "l1_loss",
    "margin_ranking_loss",
    "mse_loss",
    "nll_loss",
    "smooth_l1_loss",
    "triplet_margin_loss",
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


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
                  reduction="mean", label_smoothing=0.0):
    return _ops.cross_entropy(input, target, weight, _reduction(size_average, reduce, reduction), ignore_index,
                              label_smoothing)


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
    return _ops.nll_loss(input, target, weight, _reduction(size_average, reduce, reduction), ignore_index)


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    return _ops.binary_cross_entropy(input, target, weight, _reduction(size_average, reduce, reduction))


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None, reduction="mean",
                                     pos_weight=None):
    return _ops.binary_cross_entropy_with_logits(input, target, weight, pos_weight,
                                                 _reduction(size_average, reduce, reduction))


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    return _ops.mse_loss(input, target, _reduction(size_average, reduce, reduction), weight)


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    return _ops.l1_loss(input, target, _reduction(size_average, reduce, reduction), weight)


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    return _ops.smooth_l1_loss(input, target, _reduction(size_average, reduce, reduction), beta)


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    return _ops.huber_loss(input, target, _reduction(None, None, reduction), delta, weight)


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    if reduction == "mean" and size_average is None and reduce is None:
        warnings.warn(
            "kl_div: reduction='mean' averages over every element, not over the batch; reduction='batchmean' "
            "gives the mathematical KL divergence (sum over the batch divided by its size).",
            stacklevel=2,
        )
    return _ops.kl_div(input, target, _reduction(size_average, reduce, reduction), log_target=log_target)


def margin_ranking_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"):
    return _ops.margin_ranking_loss(input1, input2, target, margin, _reduction(size_average, reduce, reduction))


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False, size_average=None,
                        reduce=None, reduction="mean"):
    return _ops.triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap,
                                    _reduction(size_average, reduce, reduction))


def cosine_embedding_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"):
    return _ops.cosine_embedding_loss(input1, input2, target, margin, _reduction(size_average, reduce, reduction))


def _lengths(lengths):
    return [int(v) for v in (lengths.tolist() if hasattr(lengths, "tolist") else lengths)]


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean", zero_infinity=False):
    return _ops.ctc_loss(log_probs, targets, _lengths(input_lengths), _lengths(target_lengths), blank,
                         _reduction(None, None, reduction), zero_infinity)
