"""Stochastic depth: dropping the residual branch of whole samples during training."""

from __future__ import annotations

import oneflow as flow
from oneflow import nn

__all__ = ["DropPath", "drop_path"]


def drop_path(
    x: flow.Tensor, drop_prob: float = 0.0, training: bool = False, scale_by_keep: bool = True
) -> flow.Tensor:
    """Zeroes each sample of ``x`` (its first dimension) with probability ``drop_prob``.

    Used on the residual branch of a block, this drops the whole block for that sample
    ("Deep Networks with Stochastic Depth"). Kept samples are divided by the keep
    probability when ``scale_by_keep`` is set, so the expectation is unchanged. Outside
    training, or with ``drop_prob == 0``, ``x`` is returned as is.
    """
    if drop_prob == 0.0 or not training:
        return x
    if not 0.0 <= drop_prob <= 1.0:
        raise ValueError(f"drop_path: drop_prob must be in [0, 1], got {drop_prob}")
    keep_prob = 1.0 - drop_prob
    # One draw per sample, broadcast over every other dimension.
    mask_shape = (x.shape[0],) + (1,) * (x.ndim - 1)
    mask = x.new_empty(mask_shape).bernoulli_(keep_prob)
    if keep_prob > 0.0 and scale_by_keep:
        mask.div_(keep_prob)
    return x * mask


class DropPath(nn.Module):
    """Stochastic depth per sample, as a module (see :func:`drop_path`).

    Args:
        drop_prob: the probability that a sample's branch is dropped.
        scale_by_keep: divide the kept samples by ``1 - drop_prob``.
    """

    def __init__(self, drop_prob: float = 0.0, scale_by_keep: bool = True) -> None:
        super().__init__()
        self.drop_prob = drop_prob
        self.scale_by_keep = scale_by_keep

    def forward(self, x: flow.Tensor) -> flow.Tensor:
        return drop_path(x, self.drop_prob, self.training, self.scale_by_keep)

    def extra_repr(self) -> str:
        return f"drop_prob={round(self.drop_prob, 3):0.3f}"
