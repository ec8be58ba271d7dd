"""Cross-entropy variants with timm's semantics.

``LabelSmoothingCrossEntropy`` trains against ``(1 - s) * onehot + s / C`` (the same value as
``F.cross_entropy(..., label_smoothing=s)``); ``SoftTargetCrossEntropy`` takes a full target
distribution per sample, as Mixup/CutMix produce. Both average over the batch.
"""

from __future__ import annotations

import oneflow as flow
import oneflow.nn.functional as F
from oneflow import nn

__all__ = ["LabelSmoothingCrossEntropy", "SoftTargetCrossEntropy"]


def _check_logits(name: str, x: flow.Tensor) -> None:
    if not isinstance(x, flow.Tensor):
        raise TypeError(f"{name}: expected logits as a oneflow tensor, got {type(x).__name__}")
    if x.ndim < 1 or not x.is_floating_point():
        raise ValueError(f"{name}: expected floating-point logits of shape (N, C), got {x.dtype} "
                         f"of shape {tuple(x.shape)}")


class LabelSmoothingCrossEntropy(nn.Module):
    """Negative log-likelihood with label smoothing, averaged over the batch.

    For logits ``x`` of shape (N, C) and class indices ``target`` of shape (N,), the loss of a
    sample is ``(1 - smoothing) * -log_softmax(x)[target] + smoothing * mean(-log_softmax(x))``:
    the cross entropy against a target that puts ``1 - smoothing`` on the true class and spreads
    ``smoothing`` evenly over all C classes.

    Args:
        smoothing: the probability mass spread over all classes, in [0, 1).

    Example::

        >>> loss_fn = LabelSmoothingCrossEntropy(smoothing=0.1)
        >>> loss = loss_fn(flow.randn(8, 10), flow.randint(0, 10, (8,)))
    """

    def __init__(self, smoothing: float = 0.1) -> None:
        super().__init__()
        if not 0.0 <= smoothing < 1.0:
            raise ValueError(f"LabelSmoothingCrossEntropy: smoothing should be in [0, 1), got {smoothing}")
        self.smoothing = float(smoothing)
        self.confidence = 1.0 - self.smoothing

    def forward(self, x: flow.Tensor, target: flow.Tensor) -> flow.Tensor:
        name = type(self).__name__
        _check_logits(name, x)
        if not isinstance(target, flow.Tensor) or target.is_floating_point() or \
                tuple(target.shape) != tuple(x.shape[:-1]):
            got = f"{target.dtype} of shape {tuple(target.shape)}" if isinstance(target, flow.Tensor) \
                else type(target).__name__
            raise ValueError(f"{name}: expected integer class indices of shape {tuple(x.shape[:-1])} for logits of "
                             f"shape {tuple(x.shape)}, got {got} (use SoftTargetCrossEntropy for soft targets)")
        logprobs = F.log_softmax(x, dim=-1)
        nll = -logprobs.gather(-1, target.to(flow.int64).unsqueeze(-1)).squeeze(-1)
        smooth = -logprobs.mean(dim=-1)
        return (self.confidence * nll + self.smoothing * smooth).mean()

    def extra_repr(self) -> str:
        return f"smoothing={self.smoothing}"


class SoftTargetCrossEntropy(nn.Module):
    """Cross entropy against a target distribution, averaged over the batch.

    For logits ``x`` and targets of the same shape (N, C) (rows are probability vectors, e.g.
    the mixed one-hot targets of Mixup/CutMix), the loss is
    ``mean over samples of sum_c -target[:, c] * log_softmax(x)[:, c]``.

    Example::

        >>> loss_fn = SoftTargetCrossEntropy()
        >>> loss = loss_fn(flow.randn(8, 10), flow.softmax(flow.randn(8, 10), dim=-1))
    """

    def forward(self, x: flow.Tensor, target: flow.Tensor) -> flow.Tensor:
        name = type(self).__name__
        _check_logits(name, x)
        if not isinstance(target, flow.Tensor) or tuple(target.shape) != tuple(x.shape):
            got = f"shape {tuple(target.shape)}" if isinstance(target, flow.Tensor) else type(target).__name__
            raise ValueError(f"{name}: expected soft targets of the logits' shape {tuple(x.shape)}, got {got} "
                             "(use LabelSmoothingCrossEntropy or nn.CrossEntropyLoss for class indices)")
        return flow.sum(-target.to(x.dtype) * F.log_softmax(x, dim=-1), dim=-1).mean()
