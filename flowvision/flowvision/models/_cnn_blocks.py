"""Building blocks shared by the torchvision-style CNN families (MobileNet, EfficientNet, RegNet, ...).

``Conv2dNormActivation`` is a ``Sequential`` of convolution, norm and activation, so its
parameters are named ``<i>.weight`` exactly like torchvision's, and ``SqueezeExcitation``
names its two 1x1 convolutions ``fc1``/``fc2``; checkpoints converted from torchvision
therefore load unchanged. Nothing here has parameters of its own beyond the layers it holds.
"""

from __future__ import annotations

from collections.abc import Callable

import oneflow as flow
from oneflow import nn

__all__: list[str] = []  # private helpers; the model modules export the public names


def _overwrite_named_param(kwargs: dict, param: str, new_value) -> None:
    """Sets ``kwargs[param]`` to the value a named variant fixes; a different value passed by the
    caller is an error (e.g. ``resnext50_32x4d(groups=8)``)."""
    if param in kwargs and kwargs[param] != new_value:
        raise ValueError(f"The parameter '{param}' expected value {new_value} but got {kwargs[param]} instead.")
    kwargs[param] = new_value


def _make_divisible(v: float, divisor: int, min_value: int | None = None) -> int:
    """Rounds ``v`` to the nearest multiple of ``divisor`` (at least ``min_value``), never
    going more than 10% below ``v``; the channel rounding of the MobileNet papers."""
    if min_value is None:
        min_value = divisor
    new_v = max(min_value, int(v + divisor / 2) // divisor * divisor)
    if new_v < 0.9 * v:
        new_v += divisor
    return new_v


class Conv2dNormActivation(nn.Sequential):
    """A 2-d convolution followed by an optional norm layer and an optional activation.

    Args:
        in_channels: input channels.
        out_channels: output channels.
        kernel_size: convolution kernel size.
        stride: convolution stride.
        padding: convolution padding; ``None`` keeps the spatial size at stride 1
            (``(kernel_size - 1) // 2 * dilation``).
        groups: convolution groups.
        norm_layer: a constructor taking the channel count, or ``None`` for no norm (the
            convolution then has a bias).
        activation_layer: an activation constructor, or ``None`` for no activation.
        dilation: convolution dilation.
        inplace: passed to the activation as ``inplace=`` (``None``: not passed).
        bias: whether the convolution has a bias; ``None`` means "only without a norm".
    """

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int = 3, stride: int = 1,
                 padding: int | None = None, groups: int = 1,
                 norm_layer: Callable[..., nn.Module] | None = nn.BatchNorm2d,
                 activation_layer: Callable[..., nn.Module] | None = nn.ReLU, dilation: int = 1,
                 inplace: bool | None = True, bias: bool | None = None) -> None:
        if padding is None:
            padding = (kernel_size - 1) // 2 * dilation
        if bias is None:
            bias = norm_layer is None
        layers: list[nn.Module] = [nn.Conv2d(in_channels, out_channels, kernel_size, stride, padding,
                                             dilation=dilation, groups=groups, bias=bias)]
        if norm_layer is not None:
            layers.append(norm_layer(out_channels))
        if activation_layer is not None:
            layers.append(activation_layer() if inplace is None else activation_layer(inplace=inplace))
        super().__init__(*layers)
        self.out_channels = out_channels


class SqueezeExcitation(nn.Module):
    """Squeeze-and-excitation: rescales each channel by a gate computed from the global average.

    Args:
        input_channels: channels of the input (and of the gate).
        squeeze_channels: channels of the bottleneck between ``fc1`` and ``fc2``.
        activation: the activation after ``fc1``.
        scale_activation: the gate's activation (sigmoid; hard sigmoid in MobileNetV3).
    """

    def __init__(self, input_channels: int, squeeze_channels: int,
                 activation: Callable[..., nn.Module] = nn.ReLU,
                 scale_activation: Callable[..., nn.Module] = nn.Sigmoid) -> None:
        super().__init__()
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.fc1 = nn.Conv2d(input_channels, squeeze_channels, 1)
        self.fc2 = nn.Conv2d(squeeze_channels, input_channels, 1)
        self.activation = activation()
        self.scale_activation = scale_activation()

    def _scale(self, x: flow.Tensor) -> flow.Tensor:
        scale = self.avgpool(x)
        scale = self.activation(self.fc1(scale))
        return self.scale_activation(self.fc2(scale))

    def forward(self, x: flow.Tensor) -> flow.Tensor:
        """Returns ``x`` times its per-channel gate."""
        return self._scale(x) * x


def stochastic_depth(x: flow.Tensor, p: float, mode: str, training: bool = True) -> flow.Tensor:
    """Randomly drops the residual branch ``x`` (per sample for ``mode="row"``, for the whole
    batch for ``mode="batch"``) with probability ``p``, scaling survivors by ``1 / (1 - p)``.

    The identity when not ``training`` or when ``p == 0``.
    """
    if p < 0.0 or p > 1.0:
        raise ValueError(f"stochastic_depth: drop probability has to be between 0 and 1, but got {p}")
    if mode not in ("batch", "row"):
        raise ValueError(f"stochastic_depth: mode has to be either 'batch' or 'row', but got {mode!r}")
    if not training or p == 0.0:
        return x
    survival_rate = 1.0 - p
    size = [x.shape[0]] + [1] * (x.dim() - 1) if mode == "row" else [1] * x.dim()
    noise = flow.empty(size, dtype=x.dtype, device=x.device).bernoulli_(survival_rate)
    if survival_rate > 0.0:
        noise.div_(survival_rate)
    return x * noise


class StochasticDepth(nn.Module):
    """Module form of :func:`stochastic_depth` (no parameters); active in training mode only."""

    def __init__(self, p: float, mode: str) -> None:
        super().__init__()
        self.p = p
        self.mode = mode

    def forward(self, x: flow.Tensor) -> flow.Tensor:
        """Drops ``x`` per sample (or per batch) with probability ``p`` while training."""
        return stochastic_depth(x, self.p, self.mode, self.training)

    def extra_repr(self) -> str:
        """Shows ``p`` and ``mode``."""
        return f"p={self.p}, mode={self.mode}"
