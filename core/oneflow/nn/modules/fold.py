"""``Unfold`` extracts sliding local blocks as columns (im2col); ``Fold`` sums columns back
into an image (col2im). Both work on :math:`(N, C, H, W)` images and
:math:`(N, C \\cdot \\prod k, L)` columns.
"""

from __future__ import annotations

import oneflow
from oneflow.nn import functional as F
from oneflow.nn.modules.module import Module

__all__ = ["Fold", "Unfold"]


class Fold(Module):
    r"""Sums the blocks stored as columns of :math:`(N, C \times \prod(\text{kernel\_size}), L)` into an
    :math:`(N, C, *\text{output\_size})` image; overlapping values add up.

    Args:
        output_size: spatial size of the image.
        kernel_size: size of the blocks.
        dilation: spacing of the elements within a block. Default: 1.
        padding: implicit zero padding of the image on both sides. Default: 0.
        stride: step between blocks. Default: 1.
    """

    def __init__(self, output_size, kernel_size, dilation=1, padding=0, stride=1) -> None:
        super().__init__()
        self.output_size = output_size
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def forward(self, input: oneflow.Tensor) -> oneflow.Tensor:
        return F.fold(input, self.output_size, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self) -> str:
        return (f"output_size={self.output_size}, kernel_size={self.kernel_size}, dilation={self.dilation}, "
                f"padding={self.padding}, stride={self.stride}")


class Unfold(Module):
    r"""Extracts the sliding blocks of an :math:`(N, C, H, W)` image as the columns of
    :math:`(N, C \times \prod(\text{kernel\_size}), L)`.

    Args:
        kernel_size: size of the blocks.
        dilation: spacing of the elements within a block. Default: 1.
        padding: implicit zero padding on both sides. Default: 0.
        stride: step between blocks. Default: 1.
    """

    def __init__(self, kernel_size, dilation=1, padding=0, stride=1) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def forward(self, input: oneflow.Tensor) -> oneflow.Tensor:
        return F.unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self) -> str:
        return (f"kernel_size={self.kernel_size}, dilation={self.dilation}, padding={self.padding}, "
                f"stride={self.stride}")
