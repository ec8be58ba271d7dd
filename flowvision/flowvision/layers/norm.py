"""Normalisation layers for channels-first feature maps."""

from __future__ import annotations

import oneflow as flow
from oneflow import nn
from oneflow.nn import functional as F

__all__ = ["LayerNorm2d"]


class LayerNorm2d(nn.LayerNorm):
    """LayerNorm over the channels of an ``(N, C, H, W)`` tensor, at each position.

    The statistics are taken over ``C`` only (as :class:`oneflow.nn.LayerNorm` does on
    the last dimension of ``(N, H, W, C)``); ``weight`` and ``bias`` have shape ``(C,)``,
    as in torchvision's ConvNeXt.
    """

    def __init__(self, num_channels: int, eps: float = 1e-6, elementwise_affine: bool = True) -> None:
        super().__init__(num_channels, eps=eps, elementwise_affine=elementwise_affine)

    def forward(self, x: flow.Tensor) -> flow.Tensor:
        if x.ndim != 4:
            raise ValueError(f"LayerNorm2d: expected an (N, C, H, W) input, got shape {tuple(x.shape)}")
        x = x.permute(0, 2, 3, 1)
        x = F.layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps)
        return x.permute(0, 3, 1, 2)
