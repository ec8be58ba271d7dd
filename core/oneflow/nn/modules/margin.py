"""OneFlow's CombinedMarginLoss: InsightFace's margin softmax (ArcFace, CosFace, SphereFace) on
cosine logits."""

from __future__ import annotations

import oneflow
from oneflow.nn.modules.module import Module

__all__ = ["CombinedMarginLoss"]


class CombinedMarginLoss(Module):
    """For each row i of the cosine logits ``x`` (N, C) and its ``label`` (N,), the logit of the
    label's class becomes cos(m1 * arccos(x) + m2) - m3; the other logits pass unchanged. A label
    outside [0, C) (e.g. -1, a class held by another rank) changes nothing in its row.
    m1 = 1, m3 = 0 is ArcFace (m2 the angular margin); m1 = 1, m2 = 0 is CosFace (m3)."""

    def __init__(self, m1: float = 1.0, m2: float = 0.0, m3: float = 0.0) -> None:
        super().__init__()
        self.m1, self.m2, self.m3 = float(m1), float(m2), float(m3)

    def forward(self, x, label):
        if not isinstance(x, oneflow.Tensor) or not isinstance(label, oneflow.Tensor):
            raise TypeError(
                f"CombinedMarginLoss: expected (x, label) tensors, got ({type(x).__name__}, {type(label).__name__})"
            )
        if x.dim() != 2 or not x.is_floating_point():
            raise RuntimeError(
                f"CombinedMarginLoss: x must be a floating (N, C) tensor of cosines, got shape "
                f"{tuple(x.shape)} {x.dtype}"
            )
        if tuple(label.shape) != (x.shape[0],) or label.is_floating_point():
            raise RuntimeError(
                f"CombinedMarginLoss: label must be an integer tensor of shape ({x.shape[0]},), got "
                f"{tuple(label.shape)} {label.dtype}"
            )
        classes = oneflow.arange(x.shape[1], device=x.device)
        mask = classes.unsqueeze(0) == label.unsqueeze(1)
        target = (x * mask.to(x.dtype)).sum(1, keepdim=True).clamp(-1.0, 1.0)
        margin = oneflow.cos(self.m1 * oneflow.acos(target) + self.m2) - self.m3
        return oneflow.where(mask, margin, x)

    def extra_repr(self) -> str:
        return f"m1={self.m1}, m2={self.m2}, m3={self.m3}"
