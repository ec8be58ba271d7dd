"""Upsampling layers: ``Upsample`` (any ``F.interpolate`` mode) and the fixed-mode
``UpsamplingNearest2d`` and ``UpsamplingBilinear2d``.
"""

from __future__ import annotations

import oneflow
from oneflow.nn import functional as F
from oneflow.nn.modules.module import Module

__all__ = ["Upsample", "UpsamplingBilinear2d", "UpsamplingNearest2d"]


class Upsample(Module):
    r"""Resamples :math:`(N, C, *spatial)` inputs to ``size`` or by ``scale_factor``.

    Args:
        size: the output spatial size (an int or one per spatial dim).
        scale_factor: multiplier of the spatial size (a float or one per spatial dim).
        mode: ``'nearest'``, ``'linear'``, ``'bilinear'``, ``'bicubic'``, ``'trilinear'``,
            ``'area'`` or ``'nearest-exact'``. Default: ``'nearest'``.
        align_corners: for the interpolating modes, align the corner pixels' centres of input and
            output. Default: ``None`` (``False``).
        recompute_scale_factor: recompute the scale from the rounded output size.
    """

    def __init__(self, size=None, scale_factor=None, mode: str = "nearest", align_corners: bool | None = None,
                 recompute_scale_factor: bool | None = None) -> None:
        super().__init__()
        self.name = type(self).__name__
        self.size = size
        if isinstance(scale_factor, tuple):
            self.scale_factor = tuple(float(factor) for factor in scale_factor)
        else:
            self.scale_factor = float(scale_factor) if scale_factor else None
        self.mode = mode
        self.align_corners = align_corners
        self.recompute_scale_factor = recompute_scale_factor

    def forward(self, input: oneflow.Tensor) -> oneflow.Tensor:
        return F.interpolate(input, self.size, self.scale_factor, self.mode, self.align_corners,
                             recompute_scale_factor=self.recompute_scale_factor)

    def extra_repr(self) -> str:
        if self.scale_factor is not None:
            info = f"scale_factor={self.scale_factor!r}"
        else:
            info = f"size={self.size!r}"
        return info + f", mode={self.mode!r}"


class UpsamplingNearest2d(Upsample):
    r"""Nearest-neighbour upsampling of :math:`(N, C, H, W)` to ``size`` or by ``scale_factor``."""

    def __init__(self, size=None, scale_factor=None) -> None:
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    r"""Bilinear upsampling of :math:`(N, C, H, W)` with ``align_corners=True``, to ``size`` or by
    ``scale_factor``."""

    def __init__(self, size=None, scale_factor=None) -> None:
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)
