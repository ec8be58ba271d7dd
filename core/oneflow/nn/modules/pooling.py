"""Pooling layers: max, average, adaptive (fixed output size) and max-unpooling, in 1, 2 and 3 dims.

The modules store their arguments (with PyTorch's conventions for what is kept as given
and what is made a tuple, which shows in the repr) and call the pooling functions of
``oneflow.nn.functional``.
"""

from __future__ import annotations

import oneflow
from oneflow.nn import functional as F
from oneflow.nn.modules.conv import _pair, _single, _triple
from oneflow.nn.modules.module import Module

__all__ = [
    "AdaptiveAvgPool1d",
    "AdaptiveAvgPool2d",
    "AdaptiveAvgPool3d",
    "AdaptiveMaxPool1d",
    "AdaptiveMaxPool2d",
    "AdaptiveMaxPool3d",
    "AvgPool1d",
    "AvgPool2d",
    "AvgPool3d",
    "MaxPool1d",
    "MaxPool2d",
    "MaxPool3d",
    "MaxUnpool1d",
    "MaxUnpool2d",
    "MaxUnpool3d",
]


class _MaxPoolNd(Module):
    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices: bool = False,
                 ceil_mode: bool = False) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def extra_repr(self) -> str:
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
                f"dilation={self.dilation}, ceil_mode={self.ceil_mode}")


class MaxPool1d(_MaxPoolNd):
    r"""1-D max pooling over :math:`(N, C, L)` or :math:`(C, L)`.

    Args:
        kernel_size: size of the window.
        stride: step of the window. Default: ``kernel_size``.
        padding: implicit negative-infinity padding on both sides. Default: 0.
        dilation: spacing between window elements. Default: 1.
        return_indices: also return the flat indices of the maxima (for :class:`MaxUnpool1d`).
        ceil_mode: round the output size up instead of down.
    """

    def forward(self, input: oneflow.Tensor):
        return F.max_pool1d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            ceil_mode=self.ceil_mode, return_indices=self.return_indices)


class MaxPool2d(_MaxPoolNd):
    r"""2-D max pooling over :math:`(N, C, H, W)` or :math:`(C, H, W)`.

    Arguments are those of :class:`MaxPool1d`; sizes are an int (both dims) or a pair.

    Examples::

        >>> m = oneflow.nn.MaxPool2d((3, 2), stride=(2, 1))
        >>> m(oneflow.randn(20, 16, 50, 32)).shape
        oneflow.Size([20, 16, 24, 31])
    """

    def forward(self, input: oneflow.Tensor):
        return F.max_pool2d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            ceil_mode=self.ceil_mode, return_indices=self.return_indices)


class MaxPool3d(_MaxPoolNd):
    r"""3-D max pooling over :math:`(N, C, D, H, W)` or :math:`(C, D, H, W)`.

    Arguments are those of :class:`MaxPool1d`; sizes are an int (all dims) or a triple.
    """

    def forward(self, input: oneflow.Tensor):
        return F.max_pool3d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            ceil_mode=self.ceil_mode, return_indices=self.return_indices)


class _AvgPoolNd(Module):
    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool1d(_AvgPoolNd):
    r"""1-D average pooling over :math:`(N, C, L)` or :math:`(C, L)`.

    Args:
        kernel_size: size of the window.
        stride: step of the window. Default: ``kernel_size``.
        padding: implicit zero padding on both sides. Default: 0.
        ceil_mode: round the output size up instead of down.
        count_include_pad: count the padding zeros in the averages. Default: ``True``.
    """

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
                 count_include_pad: bool = True) -> None:
        super().__init__()
        self.kernel_size = _single(kernel_size)
        self.stride = _single(stride if stride is not None else kernel_size)
        self.padding = _single(padding)
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad

    def forward(self, input: oneflow.Tensor) -> oneflow.Tensor:
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad)


class _AvgPool(_AvgPoolNd):
    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode: bool = False, count_include_pad: bool = True,
                 divisor_override: int | None = None) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override


class AvgPool2d(_AvgPool):
    r"""2-D average pooling over :math:`(N, C, H, W)` or :math:`(C, H, W)`.

    Arguments are those of :class:`AvgPool1d` (sizes an int or a pair), plus
    ``divisor_override``: divide every window sum by this instead of the window size.
    """

    def forward(self, input: oneflow.Tensor) -> oneflow.Tensor:
        return F.avg_pool2d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad, self.divisor_override)


class AvgPool3d(_AvgPool):
    r"""3-D average pooling over :math:`(N, C, D, H, W)` or :math:`(C, D, H, W)`.

    Arguments are those of :class:`AvgPool2d`; sizes are an int or a triple.
    """

    def forward(self, input: oneflow.Tensor) -> oneflow.Tensor:
        return F.avg_pool3d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad, self.divisor_override)


class _AdaptiveAvgPoolNd(Module):
    def __init__(self, output_size) -> None:
        super().__init__()
        self.output_size = output_size

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1d(_AdaptiveAvgPoolNd):
    r"""1-D adaptive average pooling: the output has length ``output_size`` whatever the input's.

    Shape: :math:`(N, C, L_{in})` or :math:`(C, L_{in})` to :math:`(N, C, L_{out})` or :math:`(C, L_{out})`.
    """

    def forward(self, input: oneflow.Tensor) -> oneflow.Tensor:
        return F.adaptive_avg_pool1d(input, self.output_size)


class AdaptiveAvgPool2d(_AdaptiveAvgPoolNd):
    r"""2-D adaptive average pooling to ``output_size`` (an int, or a pair whose ``None`` entries keep
    the input's size)."""

    def forward(self, input: oneflow.Tensor) -> oneflow.Tensor:
        return F.adaptive_avg_pool2d(input, self.output_size)


class AdaptiveAvgPool3d(_AdaptiveAvgPoolNd):
    r"""3-D adaptive average pooling to ``output_size`` (an int, or a triple whose ``None`` entries
    keep the input's size)."""

    def forward(self, input: oneflow.Tensor) -> oneflow.Tensor:
        return F.adaptive_avg_pool3d(input, self.output_size)


class _AdaptiveMaxPoolNd(Module):
    def __init__(self, output_size, return_indices: bool = False) -> None:
        super().__init__()
        self.output_size = output_size
        self.return_indices = return_indices

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveMaxPool1d(_AdaptiveMaxPoolNd):
    r"""1-D adaptive max pooling to length ``output_size``; with ``return_indices`` also the
    indices of the maxima."""

    def forward(self, input: oneflow.Tensor):
        return F.adaptive_max_pool1d(input, self.output_size, self.return_indices)


class AdaptiveMaxPool2d(_AdaptiveMaxPoolNd):
    r"""2-D adaptive max pooling to ``output_size`` (``None`` entries keep the input's size)."""

    def forward(self, input: oneflow.Tensor):
        return F.adaptive_max_pool2d(input, self.output_size, self.return_indices)


class AdaptiveMaxPool3d(_AdaptiveMaxPoolNd):
    r"""3-D adaptive max pooling to ``output_size`` (``None`` entries keep the input's size)."""

    def forward(self, input: oneflow.Tensor):
        return F.adaptive_max_pool3d(input, self.output_size, self.return_indices)


class _MaxUnpoolNd(Module):
    _tuple = staticmethod(_single)

    def __init__(self, kernel_size, stride=None, padding=0) -> None:
        super().__init__()
        t = self._tuple
        self.kernel_size = t(kernel_size)
        self.stride = t(stride if stride is not None else kernel_size)
        self.padding = t(padding)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpoolNd):
    r"""The partial inverse of :class:`MaxPool1d`: puts each value back at its index, zeros elsewhere.

    ``forward(input, indices, output_size=None)`` takes the values and indices returned by
    ``MaxPool1d(..., return_indices=True)``; ``output_size`` resolves the ambiguity of strided pooling.
    """

    _tuple = staticmethod(_single)

    def forward(self, input: oneflow.Tensor, indices: oneflow.Tensor, output_size=None) -> oneflow.Tensor:
        return F.max_unpool1d(input, indices, self.kernel_size, self.stride, self.padding, output_size)


class MaxUnpool2d(_MaxUnpoolNd):
    r"""The partial inverse of :class:`MaxPool2d` (see :class:`MaxUnpool1d`)."""

    _tuple = staticmethod(_pair)

    def forward(self, input: oneflow.Tensor, indices: oneflow.Tensor, output_size=None) -> oneflow.Tensor:
        return F.max_unpool2d(input, indices, self.kernel_size, self.stride, self.padding, output_size)


class MaxUnpool3d(_MaxUnpoolNd):
    r"""The partial inverse of :class:`MaxPool3d` (see :class:`MaxUnpool1d`)."""

    _tuple = staticmethod(_triple)

    def forward(self, input: oneflow.Tensor, indices: oneflow.Tensor, output_size=None) -> oneflow.Tensor:
        return F.max_unpool3d(input, indices, self.kernel_size, self.stride, self.padding, output_size)
