"""GhostNet, from "GhostNet: More Features from Cheap Operations" (Han et al., 2020).

A Ghost module makes half of its output channels with an ordinary 1x1 conv and the
other half from those with a cheap depthwise conv; Ghost bottlenecks stack two of them
(with a strided depthwise conv and squeeze-and-excitation where configured). Names
follow timm (``conv_stem``, ``blocks.N.M.ghost1.primary_conv.0``,
``blocks.N.M.ghost1.cheap_operation.0``, ``blocks.N.M.se.conv_reduce``, ``conv_head``,
``classifier``; constructors ``ghostnet_050/100/130``).
"""

from __future__ import annotations

import math
from functools import partial

import oneflow as flow
from flowvision.layers import SqueezeExcite, make_divisible
from flowvision.models._weights import load_pretrained
from flowvision.models.registry import ModelCreator
from oneflow import nn
from oneflow.nn import functional as F

__all__ = ["GhostNet", "ghostnet_050", "ghostnet_100", "ghostnet_130"]

_SE_LAYER = partial(SqueezeExcite, gate_layer="hard_sigmoid", rd_round_fn=partial(make_divisible, divisor=4))

# Per stage, per block: kernel size, expansion (mid) channels, output channels, SE ratio, stride.
_CFGS = [
    [[3, 16, 16, 0, 1]],
    [[3, 48, 24, 0, 2]],
    [[3, 72, 24, 0, 1]],
    [[5, 72, 40, 0.25, 2]],
    [[5, 120, 40, 0.25, 1]],
    [[3, 240, 80, 0, 2]],
    [[3, 200, 80, 0, 1], [3, 184, 80, 0, 1], [3, 184, 80, 0, 1], [3, 480, 112, 0.25, 1], [3, 672, 112, 0.25, 1]],
    [[5, 672, 160, 0.25, 2]],
    [[5, 960, 160, 0, 1], [5, 960, 160, 0.25, 1], [5, 960, 160, 0, 1], [5, 960, 160, 0.25, 1]],
]


class GhostModule(nn.Module):
    """``primary_conv`` makes ``ceil(out/ratio)`` channels; ``cheap_operation`` derives the rest."""

    def __init__(self, in_chs: int, out_chs: int, kernel_size: int = 1, ratio: int = 2, dw_size: int = 3,
                 stride: int = 1, use_act: bool = True) -> None:
        super().__init__()
        self.out_chs = out_chs
        init_chs = math.ceil(out_chs / ratio)
        new_chs = init_chs * (ratio - 1)
        self.primary_conv = nn.Sequential(
            nn.Conv2d(in_chs, init_chs, kernel_size, stride, kernel_size // 2, bias=False),
            nn.BatchNorm2d(init_chs),
            nn.ReLU(inplace=True) if use_act else nn.Identity(),
        )
        self.cheap_operation = nn.Sequential(
            nn.Conv2d(init_chs, new_chs, dw_size, 1, dw_size // 2, groups=init_chs, bias=False),
            nn.BatchNorm2d(new_chs),
            nn.ReLU(inplace=True) if use_act else nn.Identity(),
        )

    def forward(self, x: flow.Tensor) -> flow.Tensor:
        x1 = self.primary_conv(x)
        x2 = self.cheap_operation(x1)
        return flow.cat([x1, x2], dim=1)[:, :self.out_chs]


class GhostBottleneck(nn.Module):
    """Ghost module (ReLU) -> [strided depthwise conv] -> [SE] -> Ghost module (linear), plus shortcut."""

    def __init__(self, in_chs: int, mid_chs: int, out_chs: int, dw_kernel_size: int = 3, stride: int = 1,
                 se_ratio: float = 0.0) -> None:
        super().__init__()
        self.stride = stride
        self.ghost1 = GhostModule(in_chs, mid_chs, use_act=True)
        if stride > 1:
            self.conv_dw = nn.Conv2d(mid_chs, mid_chs, dw_kernel_size, stride=stride,
                                     padding=(dw_kernel_size - 1) // 2, groups=mid_chs, bias=False)
            self.bn_dw = nn.BatchNorm2d(mid_chs)
        else:
            self.conv_dw = None
            self.bn_dw = None
        self.se = _SE_LAYER(mid_chs, rd_ratio=se_ratio) if se_ratio else None
        self.ghost2 = GhostModule(mid_chs, out_chs, use_act=False)
        if in_chs == out_chs and stride == 1:
            self.shortcut = nn.Sequential()
        else:
            self.shortcut = nn.Sequential(
                nn.Conv2d(in_chs, in_chs, dw_kernel_size, stride=stride, padding=(dw_kernel_size - 1) // 2,
                          groups=in_chs, bias=False),
                nn.BatchNorm2d(in_chs),
                nn.Conv2d(in_chs, out_chs, 1, stride=1, padding=0, bias=False),
                nn.BatchNorm2d(out_chs),
            )

    def forward(self, x: flow.Tensor) -> flow.Tensor:
        shortcut = x
        x = self.ghost1(x)
        if self.conv_dw is not None:
            x = self.bn_dw(self.conv_dw(x))
        if self.se is not None:
            x = self.se(x)
        x = self.ghost2(x)
        return x + self.shortcut(shortcut)


class ConvBnAct(nn.Module):
    """Conv2d (no bias) -> BatchNorm2d -> ReLU, named ``conv`` / ``bn1`` as in timm's EfficientNet blocks."""

    def __init__(self, in_chs: int, out_chs: int, kernel_size: int, stride: int = 1) -> None:
        super().__init__()
        self.conv = nn.Conv2d(in_chs, out_chs, kernel_size, stride, (kernel_size - 1) // 2, bias=False)
        self.bn1 = nn.BatchNorm2d(out_chs)
        self.act = nn.ReLU(inplace=True)

    def forward(self, x: flow.Tensor) -> flow.Tensor:
        return self.act(self.bn1(self.conv(x)))


class GhostNet(nn.Module):
    """GhostNet.

    Args:
        cfgs: per stage, per block ``[kernel, mid_chs, out_chs, se_ratio, stride]``.
        num_classes: classes of the classifier (0: no classifier).
        width: width multiplier.
        in_chans: input channels.
        drop_rate: dropout before the classifier.
    """

    def __init__(self, cfgs: list | None = None, num_classes: int = 1000, width: float = 1.0, in_chans: int = 3,
                 drop_rate: float = 0.2) -> None:
        super().__init__()
        cfgs = cfgs or _CFGS
        self.num_classes = num_classes
        self.drop_rate = drop_rate
        stem_chs = make_divisible(16 * width, 4)
        self.conv_stem = nn.Conv2d(in_chans, stem_chs, 3, 2, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(stem_chs)
        self.act1 = nn.ReLU(inplace=True)
        prev = stem_chs
        stages: list[nn.Module] = []
        exp_size = 16
        for cfg in cfgs:
            layers = []
            for k, exp_size, c, se_ratio, s in cfg:
                out_chs = make_divisible(c * width, 4)
                mid_chs = make_divisible(exp_size * width, 4)
                layers.append(GhostBottleneck(prev, mid_chs, out_chs, k, s, se_ratio=se_ratio))
                prev = out_chs
            stages.append(nn.Sequential(*layers))
        out_chs = make_divisible(exp_size * width, 4)
        stages.append(nn.Sequential(ConvBnAct(prev, out_chs, 1)))
        self.pool_dim = prev = out_chs
        self.blocks = nn.Sequential(*stages)

        self.num_features = 1280
        self.global_pool = nn.AdaptiveAvgPool2d(1)
        self.conv_head = nn.Conv2d(prev, self.num_features, 1, 1, 0, bias=True)
        self.act2 = nn.ReLU(inplace=True)
        self.flatten = nn.Flatten(1)
        self.classifier = nn.Linear(self.num_features, num_classes) if num_classes > 0 else nn.Identity()

    def forward_features(self, x: flow.Tensor) -> flow.Tensor:
        """The last feature map, ``(N, pool_dim, H/32, W/32)``."""
        if x.ndim != 4:
            raise ValueError(f"GhostNet: expected an (N, C, H, W) image batch, got shape {tuple(x.shape)}")
        return self.blocks(self.act1(self.bn1(self.conv_stem(x))))

    def forward(self, x: flow.Tensor) -> flow.Tensor:
        x = self.act2(self.conv_head(self.global_pool(self.forward_features(x))))
        x = F.dropout(self.flatten(x), p=self.drop_rate, training=self.training)
        return self.classifier(x)


def _ghostnet(name: str, width: float, pretrained: bool, progress: bool, kwargs: dict) -> GhostNet:
    model = GhostNet(width=width, **kwargs)
    if pretrained:
        load_pretrained(model, name, progress)
    return model


@ModelCreator.register_model
def ghostnet_050(pretrained: bool = False, progress: bool = True, **kwargs) -> GhostNet:
    """GhostNet-0.5x (2.6M parameters)."""
    return _ghostnet("ghostnet_050", 0.5, pretrained, progress, kwargs)


@ModelCreator.register_model
def ghostnet_100(pretrained: bool = False, progress: bool = True, **kwargs) -> GhostNet:
    """GhostNet-1.0x (5.2M parameters)."""
    return _ghostnet("ghostnet_100", 1.0, pretrained, progress, kwargs)


@ModelCreator.register_model
def ghostnet_130(pretrained: bool = False, progress: bool = True, **kwargs) -> GhostNet:
    """GhostNet-1.3x (7.4M parameters)."""
    return _ghostnet("ghostnet_130", 1.3, pretrained, progress, kwargs)
