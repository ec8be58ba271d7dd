"""Channel attention blocks: squeeze-and-excitation and efficient channel attention.

``SEModule`` (``fc1``/``bn``/``fc2``) is timm's generic SE block, used by ReXNet;
``SqueezeExcite`` (``conv_reduce``/``conv_expand``) is the one of the
EfficientNet-style blocks, used by GhostNet; ``EcaModule`` replaces the two 1x1 convs
by one 1-D conv across channels (ECA-Net).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import oneflow as flow
from flowvision.layers.helpers import make_divisible
from oneflow import nn

__all__ = ["EcaModule", "SEModule", "SqueezeExcite", "create_act_layer"]

_ACTIVATIONS: dict[str, Callable[[], nn.Module]] = {
    "relu": nn.ReLU,
    "relu6": nn.ReLU6,
    "sigmoid": nn.Sigmoid,
    "hard_sigmoid": nn.Hardsigmoid,
    "swish": nn.SiLU,
    "silu": nn.SiLU,
    "hard_swish": nn.Hardswish,
    "gelu": nn.GELU,
    "tanh": nn.Tanh,
}


def create_act_layer(act: str | Callable[[], nn.Module] | None) -> nn.Module:
    """An activation module from a name (``"relu"``, ``"swish"``, ``"hard_sigmoid"``...) or a class."""
    if act is None:
        return nn.Identity()
    if isinstance(act, str):
        if act not in _ACTIVATIONS:
            raise ValueError(f"unknown activation {act!r}; known: {', '.join(sorted(_ACTIVATIONS))}")
        return _ACTIVATIONS[act]()
    return act()


def _check_4d(name: str, x: flow.Tensor) -> None:
    if x.ndim != 4:
        raise ValueError(f"{name}: expected an (N, C, H, W) input, got shape {tuple(x.shape)}")


class SEModule(nn.Module):
    """Squeeze-and-excitation: scales each channel by a gate computed from the global mean.

    mean over H, W -> ``fc1`` (1x1 conv to ``rd_channels``) -> ``bn`` -> ``act`` ->
    ``fc2`` (1x1 conv back to ``channels``) -> ``gate`` -> multiply.

    Args:
        channels: channels of the input.
        rd_ratio: reduction ratio, used when ``rd_channels`` is not given.
        rd_channels: width of the bottleneck.
        rd_divisor: ``rd_channels`` computed from ``rd_ratio`` is a multiple of it.
        add_maxpool: average the global mean with the global max.
        bias: 1x1 convs with bias.
        act_layer: activation between the two convs.
        norm_layer: normalisation after ``fc1`` (e.g. ``nn.BatchNorm2d``), or none.
        gate_layer: the gate activation (a name or a class).
    """

    def __init__(self, channels: int, rd_ratio: float = 1.0 / 16, rd_channels: int | None = None,
                 rd_divisor: int = 8, add_maxpool: bool = False, bias: bool = True,
                 act_layer: str | Callable[[], nn.Module] = nn.ReLU,
                 norm_layer: Callable[[int], nn.Module] | None = None,
                 gate_layer: str | Callable[[], nn.Module] = "sigmoid") -> None:
        super().__init__()
        self.add_maxpool = add_maxpool
        if not rd_channels:
            rd_channels = make_divisible(channels * rd_ratio, rd_divisor, round_limit=0.0)
        self.fc1 = nn.Conv2d(channels, rd_channels, kernel_size=1, bias=bias)
        self.bn = norm_layer(rd_channels) if norm_layer else nn.Identity()
        self.act = create_act_layer(act_layer)
        self.fc2 = nn.Conv2d(rd_channels, channels, kernel_size=1, bias=bias)
        self.gate = create_act_layer(gate_layer)

    def forward(self, x: flow.Tensor) -> flow.Tensor:
        _check_4d("SEModule", x)
        x_se = x.mean((2, 3), keepdim=True)
        if self.add_maxpool:
            x_se = 0.5 * x_se + 0.5 * x.amax((2, 3), keepdim=True)
        x_se = self.fc2(self.act(self.bn(self.fc1(x_se))))
        return x * self.gate(x_se)


class SqueezeExcite(nn.Module):
    """Squeeze-and-excitation of EfficientNet-style blocks (``conv_reduce`` / ``conv_expand``).

    Args:
        in_chs: channels of the input.
        rd_ratio: reduction ratio, used when ``rd_channels`` is not given.
        rd_channels: width of the bottleneck.
        act_layer: activation between the two convs.
        gate_layer: the gate activation (a name or a class).
        rd_round_fn: rounds ``in_chs * rd_ratio`` to ``rd_channels`` (default: ``round``).
    """

    def __init__(self, in_chs: int, rd_ratio: float = 0.25, rd_channels: int | None = None,
                 act_layer: str | Callable[[], nn.Module] = nn.ReLU,
                 gate_layer: str | Callable[[], nn.Module] = nn.Sigmoid,
                 rd_round_fn: Callable[[float], int] | None = None) -> None:
        super().__init__()
        if rd_channels is None:
            rd_channels = (rd_round_fn or round)(in_chs * rd_ratio)
        self.conv_reduce = nn.Conv2d(in_chs, rd_channels, 1, bias=True)
        self.act1 = create_act_layer(act_layer)
        self.conv_expand = nn.Conv2d(rd_channels, in_chs, 1, bias=True)
        self.gate = create_act_layer(gate_layer)

    def forward(self, x: flow.Tensor) -> flow.Tensor:
        _check_4d("SqueezeExcite", x)
        x_se = x.mean((2, 3), keepdim=True)
        x_se = self.conv_expand(self.act1(self.conv_reduce(x_se)))
        return x * self.gate(x_se)


class EcaModule(nn.Module):
    """Efficient channel attention (ECA-Net): a 1-D conv across the channel means gates each channel.

    Args:
        channels: when given, the kernel size follows from it,
            ``|log2(channels) + beta| / gamma`` rounded up to an odd number (at least 3).
        kernel_size: the 1-D kernel size when ``channels`` is not given.
        gamma, beta: parameters of the kernel-size rule.
        gate_layer: the gate activation (a name or a class).
    """

    def __init__(self, channels: int | None = None, kernel_size: int = 3, gamma: int = 2, beta: int = 1,
                 gate_layer: str | Callable[[], nn.Module] = "sigmoid") -> None:
        super().__init__()
        if channels is not None:
            t = int(abs(math.log(channels, 2) + beta) / gamma)
            kernel_size = max(t if t % 2 else t + 1, 3)
        if kernel_size % 2 != 1:
            raise ValueError(f"EcaModule: kernel_size must be odd, got {kernel_size}")
        self.conv = nn.Conv1d(1, 1, kernel_size=kernel_size, padding=(kernel_size - 1) // 2, bias=False)
        self.gate = create_act_layer(gate_layer)

    def forward(self, x: flow.Tensor) -> flow.Tensor:
        _check_4d("EcaModule", x)
        y = x.mean((2, 3)).view(x.shape[0], 1, -1)
        y = self.gate(self.conv(y)).view(x.shape[0], -1, 1, 1)
        return x * y
