"""``PixelShuffle`` and ``PixelUnshuffle``: moving values between channels and spatial dims.

``PixelShuffle(r)`` turns :math:`(*, C r^2, H, W)` into :math:`(*, C, H r, W r)` (sub-pixel
convolution); ``PixelUnshuffle(r)`` is its inverse.
"""

from __future__ import annotations

import oneflow
from oneflow.nn import functional as F
from oneflow.nn.modules.module import Module

__all__ = ["PixelShuffle", "PixelUnshuffle"]


class PixelShuffle(Module):
    r"""Rearranges :math:`(*, C \times r^2, H, W)` into :math:`(*, C, H \times r, W \times r)`.

    Args:
        upscale_factor: the factor :math:`r` by which the spatial dims grow.
    """

    def __init__(self, upscale_factor: int) -> None:
        super().__init__()
        self.upscale_factor = upscale_factor

    def forward(self, input: oneflow.Tensor) -> oneflow.Tensor:
        return F.pixel_shuffle(input, self.upscale_factor)

    def extra_repr(self) -> str:
        return f"upscale_factor={self.upscale_factor}"


class PixelUnshuffle(Module):
    r"""Rearranges :math:`(*, C, H \times r, W \times r)` into :math:`(*, C \times r^2, H, W)`.

    Args:
        downscale_factor: the factor :math:`r` by which the spatial dims shrink.
    """

    def __init__(self, downscale_factor: int) -> None:
        super().__init__()
        self.downscale_factor = downscale_factor

    def forward(self, input: oneflow.Tensor) -> oneflow.Tensor:
        return F.pixel_unshuffle(input, self.downscale_factor)

    def extra_repr(self) -> str:
        return f"downscale_factor={self.downscale_factor}"
