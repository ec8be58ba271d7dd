"""Convolution layers: ``Conv1d/2d/3d`` and ``ConvTranspose1d/2d/3d``.

The modules hold the weight (``(out, in / groups, *kernel)``, or ``(in, out / groups,
*kernel)`` when transposed) and bias with PyTorch's initialisation, and call the
``conv*d`` / ``conv_transpose*d`` ops. Padding modes other than ``'zeros'`` pad
explicitly with ``F.pad`` and then convolve without padding, as PyTorch does.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import oneflow
from oneflow.nn import functional as F
from oneflow.nn import init
from oneflow.nn.modules.module import Module
from oneflow.nn.parameter import Parameter

__all__ = ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d"]


def _ntuple(n: int, name: str = "parse"):
    """A parser that repeats a scalar ``n`` times and passes sequences through as tuples."""

    def parse(x):
        if isinstance(x, Iterable) and not isinstance(x, str):
            return tuple(x)
        return tuple([x] * n)

    parse.__name__ = name
    return parse


_single = _ntuple(1, "_single")
_pair = _ntuple(2, "_pair")
_triple = _ntuple(3, "_triple")

_PADDING_MODES = ("zeros", "reflect", "replicate", "circular")
_PADDING_STRINGS = ("same", "valid")


class _ConvNd(Module):
    """The parameters, checks, initialisation and repr shared by every convolution layer."""

    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation, transposed,
                 output_padding, groups, bias, padding_mode, device=None, dtype=None) -> None:
        super().__init__()
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        if isinstance(padding, str):
            if padding not in _PADDING_STRINGS:
                raise ValueError(f"Invalid padding string {padding!r}, should be one of {set(_PADDING_STRINGS)}")
            if padding == "same" and any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
        if padding_mode not in _PADDING_MODES:
            raise ValueError(
                f"padding_mode must be one of {set(_PADDING_MODES)}, but got padding_mode='{padding_mode}'")
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = kernel_size
        self.stride = stride
        self.padding = padding
        self.dilation = dilation
        self.transposed = transposed
        self.output_padding = output_padding
        self.groups = groups
        self.padding_mode = padding_mode
        # F.pad wants the padding of the last dim first, each as (before, after).
        if isinstance(padding, str):
            pads = [0, 0] * len(kernel_size)
            if padding == "same":
                for d, k, i in zip(dilation, kernel_size, range(len(kernel_size) - 1, -1, -1)):
                    total = d * (k - 1)
                    left = total // 2
                    pads[2 * i] = left
                    pads[2 * i + 1] = total - left
            self._reversed_padding_repeated_twice = pads
        else:
            self._reversed_padding_repeated_twice = [p for p in reversed(padding) for _ in range(2)]
        if transposed:
            shape = (in_channels, out_channels // groups, *kernel_size)
        else:
            shape = (out_channels, in_channels // groups, *kernel_size)
        self.weight = Parameter(oneflow.empty(shape, device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(oneflow.empty(out_channels, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Redraws weight and bias from :math:`\\mathcal{U}(-1/\\sqrt{k}, 1/\\sqrt{k})`, k the weight's fan-in."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def extra_repr(self) -> str:
        s = f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}"
        if self.padding != (0,) * len(self.kernel_size):
            s += f", padding={self.padding}"
        if self.dilation != (1,) * len(self.dilation):
            s += f", dilation={self.dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            s += f", output_padding={self.output_padding}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s


class _Conv(_ConvNd):
    _tuple = staticmethod(_single)
    _conv = staticmethod(F.conv1d)

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0, dilation=1,
                 groups: int = 1, bias: bool = True, padding_mode: str = "zeros", device=None, dtype=None) -> None:
        t = self._tuple
        super().__init__(in_channels, out_channels, t(kernel_size), t(stride),
                         padding if isinstance(padding, str) else t(padding), t(dilation), False, t(0), groups,
                         bias, padding_mode, device, dtype)

    def _conv_forward(self, input, weight, bias):
        if self.padding_mode != "zeros":
            padded = F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
            return self._conv(padded, weight, bias, self.stride, self._tuple(0), self.dilation, self.groups)
        return self._conv(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)

    def forward(self, input: oneflow.Tensor) -> oneflow.Tensor:
        return self._conv_forward(input, self.weight, self.bias)


class Conv1d(_Conv):
    r"""1-D convolution over an input of shape :math:`(N, C_{in}, L)` or :math:`(C_{in}, L)`.

    Args:
        in_channels: channels of the input.
        out_channels: channels produced by the convolution.
        kernel_size: size of the convolving kernel.
        stride: step of the kernel. Default: 1.
        padding: implicit padding on both sides, or ``'valid'`` (none) / ``'same'`` (output as
            long as the input; stride 1 only). Default: 0.
        dilation: spacing between kernel elements. Default: 1.
        groups: number of blocked connections from input to output channels. Default: 1.
        bias: if ``True``, adds a learnable bias. Default: ``True``.
        padding_mode: ``'zeros'``, ``'reflect'``, ``'replicate'`` or ``'circular'``. Default: ``'zeros'``.

    Attributes:
        weight: ``(out_channels, in_channels / groups, kernel_size)``, drawn from
            :math:`\mathcal{U}(-\sqrt{k}, \sqrt{k})` with :math:`k = groups / (C_{in} \cdot kernel\_size)`.
        bias: ``(out_channels,)`` with the same distribution.
    """

    _tuple = staticmethod(_single)
    _conv = staticmethod(F.conv1d)


class Conv2d(_Conv):
    r"""2-D convolution over an input of shape :math:`(N, C_{in}, H, W)` or :math:`(C_{in}, H, W)`.

    Arguments and attributes are those of :class:`Conv1d`, with ``kernel_size``, ``stride``,
    ``padding`` and ``dilation`` given as an int (both dims) or a pair; the weight is
    ``(out_channels, in_channels / groups, kH, kW)``.

    Examples::

        >>> m = oneflow.nn.Conv2d(16, 33, (3, 5), stride=(2, 1), padding=(4, 2))
        >>> m(oneflow.randn(20, 16, 50, 100)).shape
        oneflow.Size([20, 33, 28, 100])
    """

    _tuple = staticmethod(_pair)
    _conv = staticmethod(F.conv2d)


class Conv3d(_Conv):
    r"""3-D convolution over an input of shape :math:`(N, C_{in}, D, H, W)` or :math:`(C_{in}, D, H, W)`.

    Arguments and attributes are those of :class:`Conv1d`, with sizes given as an int or a
    triple; the weight is ``(out_channels, in_channels / groups, kD, kH, kW)``.
    """

    _tuple = staticmethod(_triple)
    _conv = staticmethod(F.conv3d)


class _ConvTransposeNd(_ConvNd):
    _tuple = staticmethod(_single)
    _conv = staticmethod(F.conv_transpose1d)

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0, output_padding=0,
                 groups: int = 1, bias: bool = True, dilation=1, padding_mode: str = "zeros", device=None,
                 dtype=None) -> None:
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {self.__class__.__name__}')
        t = self._tuple
        super().__init__(in_channels, out_channels, t(kernel_size), t(stride), t(padding), t(dilation), True,
                         t(output_padding), groups, bias, padding_mode, device, dtype)

    def _output_padding(self, input, output_size, num_spatial_dims: int):
        """The output padding that makes the output ``output_size`` (checked to be reachable)."""
        if output_size is None:
            return self.output_padding
        has_batch_dim = input.dim() == num_spatial_dims + 2
        num_non_spatial_dims = 2 if has_batch_dim else 1
        output_size = list(output_size)
        if len(output_size) == num_non_spatial_dims + num_spatial_dims:
            output_size = output_size[num_non_spatial_dims:]
        if len(output_size) != num_spatial_dims:
            raise ValueError(
                f"ConvTranspose{num_spatial_dims}D: for {input.dim()}D input, output_size must have "
                f"{num_spatial_dims} or {num_non_spatial_dims + num_spatial_dims} elements (got {len(output_size)})")
        result = []
        for d in range(num_spatial_dims):
            dim_size = input.size(d + num_non_spatial_dims)
            smallest = ((dim_size - 1) * self.stride[d] - 2 * self.padding[d]
                        + self.dilation[d] * (self.kernel_size[d] - 1) + 1)
            largest = smallest + self.stride[d] - 1
            if not smallest <= output_size[d] <= largest:
                raise ValueError(
                    f"requested an output size of {output_size}, but valid sizes range from {smallest} to "
                    f"{largest} (for an input of {list(input.shape)[num_non_spatial_dims:]})")
            result.append(output_size[d] - smallest)
        return tuple(result)

    def forward(self, input: oneflow.Tensor, output_size: list[int] | None = None) -> oneflow.Tensor:
        num_spatial_dims = len(self.kernel_size)
        output_padding = self._output_padding(input, output_size, num_spatial_dims)
        return self._conv(input, self.weight, self.bias, self.stride, self.padding, output_padding, self.groups,
                          self.dilation)


class ConvTranspose1d(_ConvTransposeNd):
    r"""1-D transposed convolution (the gradient of :class:`Conv1d` with respect to its input).

    Args:
        in_channels, out_channels, kernel_size, stride, groups, bias, dilation: as in :class:`Conv1d`.
        padding: ``dilation * (kernel_size - 1) - padding`` zeros are implicitly added to each
            side of the input. Default: 0.
        output_padding: extra size added to one side of the output. Default: 0.
        padding_mode: only ``'zeros'``.

    ``forward(input, output_size=None)``: ``output_size`` picks among the output sizes a
    strided convolution could have come from.

    Attributes:
        weight: ``(in_channels, out_channels / groups, kernel_size)``, drawn from
            :math:`\mathcal{U}(-\sqrt{k}, \sqrt{k})` with :math:`k = groups / (C_{out} \cdot kernel\_size)`.
        bias: ``(out_channels,)`` with the same distribution.
    """

    _tuple = staticmethod(_single)
    _conv = staticmethod(F.conv_transpose1d)


class ConvTranspose2d(_ConvTransposeNd):
    r"""2-D transposed convolution over :math:`(N, C_{in}, H, W)` or :math:`(C_{in}, H, W)`.

    Arguments are those of :class:`ConvTranspose1d` with sizes given as an int or a pair; the
    weight is ``(in_channels, out_channels / groups, kH, kW)``.
    """

    _tuple = staticmethod(_pair)
    _conv = staticmethod(F.conv_transpose2d)


class ConvTranspose3d(_ConvTransposeNd):
    r"""3-D transposed convolution over :math:`(N, C_{in}, D, H, W)` or :math:`(C_{in}, D, H, W)`.

    Arguments are those of :class:`ConvTranspose1d` with sizes given as an int or a triple; the
    weight is ``(in_channels, out_channels / groups, kD, kH, kW)``.
    """

    _tuple = staticmethod(_triple)
    _conv = staticmethod(F.conv_transpose3d)
