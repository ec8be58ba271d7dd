"""Pooling layers: max, average, power-average, fractional max, adaptive (fixed output size) and
max-unpooling, in 1, 2 and 3 dims.

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
    "FractionalMaxPool2d",
    "FractionalMaxPool3d",
    "LPPool1d",
    "LPPool2d",
    "LPPool3d",
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


class _LPPoolNd(Module):
    def __init__(self, norm_type: float, kernel_size, stride=None, ceil_mode: bool = False) -> None:
        super().__init__()
        self.norm_type = norm_type
        self.kernel_size = kernel_size
        self.stride = stride
        self.ceil_mode = ceil_mode

    def extra_repr(self) -> str:
        return (f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, stride={self.stride}, "
                f"ceil_mode={self.ceil_mode}")


class LPPool1d(_LPPoolNd):
    r"""1-D power-average pooling over :math:`(N, C, L)` or :math:`(C, L)`:
    :math:`f(X) = \sqrt[p]{\sum_{x \in X} x^p}` over each window.

    ``p = 1`` gives sum pooling, :math:`p = \infty` max pooling.

    Args:
        norm_type: the power :math:`p`.
        kernel_size: size of the window.
        stride: step of the window. Default: ``kernel_size``.
        ceil_mode: round the output size up instead of down.
    """

    def forward(self, input: oneflow.Tensor) -> oneflow.Tensor:
        return F.lp_pool1d(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)


class LPPool2d(_LPPoolNd):
    r"""2-D power-average pooling over :math:`(N, C, H, W)` or :math:`(C, H, W)` (see :class:`LPPool1d`;
    sizes are an int or a pair)."""

    def forward(self, input: oneflow.Tensor) -> oneflow.Tensor:
        return F.lp_pool2d(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)


class LPPool3d(_LPPoolNd):
    r"""3-D power-average pooling over :math:`(N, C, D, H, W)` or :math:`(C, D, H, W)` (see
    :class:`LPPool1d`; sizes are an int or a triple)."""

    def forward(self, input: oneflow.Tensor) -> oneflow.Tensor:
        return F.lp_pool3d(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)


class _FractionalMaxPoolNd(Module):
    _dims = 2

    def __init__(self, kernel_size, output_size=None, output_ratio=None, return_indices: bool = False,
                 _random_samples: oneflow.Tensor | None = None) -> None:
        super().__init__()
        name = type(self).__name__
        t = _pair if self._dims == 2 else _triple
        self.kernel_size = t(kernel_size)
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = t(output_size) if output_size is not None else None
        self.output_ratio = t(output_ratio) if output_ratio is not None else None
        if output_size is None and output_ratio is None:
            raise ValueError(f"{name} requires specifying either an output size, or a pooling ratio")
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None and not all(0 < r < 1 for r in self.output_ratio):
            raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")


class FractionalMaxPool2d(_FractionalMaxPoolNd):
    r"""2-D fractional max pooling (Graham, 2014) over :math:`(N, C, H, W)` or :math:`(C, H, W)`:
    the max of ``kernel_size`` windows at pseudo-random, overlapping positions, one draw per plane.

    Args:
        kernel_size: the window, an int or a pair.
        output_size: the output's (H, W), an int or a pair.
        output_ratio: the output's size as a fraction in (0, 1) of the input's, a float or a pair.
        return_indices: also return the indices of the maxima (for :class:`MaxUnpool2d`).
        _random_samples: fixed ``(N, C, 2)`` samples in [0, 1) placing the windows (a buffer);
            drawn from oneflow's generator at each call when not given.

    Examples::

        >>> m = oneflow.nn.FractionalMaxPool2d(3, output_ratio=(0.5, 0.5))
        >>> m(oneflow.randn(20, 16, 50, 32)).shape
        oneflow.Size([20, 16, 25, 16])
    """

    _dims = 2

    def forward(self, input: oneflow.Tensor):
        return F.fractional_max_pool2d(input, self.kernel_size, self.output_size, self.output_ratio,
                                       self.return_indices, _random_samples=self._random_samples)


class FractionalMaxPool3d(_FractionalMaxPoolNd):
    r"""3-D fractional max pooling over :math:`(N, C, T, H, W)` or :math:`(C, T, H, W)` (see
    :class:`FractionalMaxPool2d`; sizes and ratios are an int/float or a triple, ``_random_samples``
    is ``(N, C, 3)``)."""

    _dims = 3

    def forward(self, input: oneflow.Tensor):
        return F.fractional_max_pool3d(input, self.kernel_size, self.output_size, self.output_ratio,
                                       self.return_indices, _random_samples=self._random_samples)
