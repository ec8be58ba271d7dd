"""Res2Net, from "Res2Net: A New Multi-scale Backbone Architecture" (Gao et al., 2019).

A ResNet whose bottleneck splits the 1x1-conv output into ``scale`` groups of
``width`` channels; each group but the last gets its own 3x3 conv, fed with the
previous group's output added to its own split (hierarchical residual connections).
Names follow timm (``conv1``, ``bn1``, ``layer1.0.convs.0``, ``layer1.0.bns.0``,
``layer1.0.downsample.0``, ``fc``; constructors ``res2net50_26w_4s``...).
"""

from __future__ import annotations

import math

import oneflow as flow
from flowvision.models._weights import load_pretrained
from flowvision.models.registry import ModelCreator
from oneflow import nn

__all__ = [
    "Bottle2neck",
    "Res2Net",
    "res2net101_26w_4s",
    "res2net50_14w_8s",
    "res2net50_26w_4s",
    "res2net50_26w_6s",
    "res2net50_26w_8s",
    "res2net50_48w_2s",
    "res2next50",
]


class Bottle2neck(nn.Module):
    """Res2Net bottleneck: 1x1 conv -> hierarchical 3x3 convs over ``scale`` splits -> 1x1 conv."""

    expansion = 4

    def __init__(self, inplanes: int, planes: int, stride: int = 1, downsample: nn.Module | None = None,
                 cardinality: int = 1, base_width: int = 26, scale: int = 4) -> None:
        super().__init__()
        self.scale = scale
        # The first block of a stage (strided or projected) does not chain its splits.
        self.is_first = stride > 1 or downsample is not None
        self.num_scales = max(1, scale - 1)
        width = int(math.floor(planes * (base_width / 64.0))) * cardinality
        self.width = width
        outplanes = planes * self.expansion

        self.conv1 = nn.Conv2d(inplanes, width * scale, kernel_size=1, bias=False)
        self.bn1 = nn.BatchNorm2d(width * scale)
        self.convs = nn.ModuleList([
            nn.Conv2d(width, width, kernel_size=3, stride=stride, padding=1, groups=cardinality, bias=False)
            for _ in range(self.num_scales)
        ])
        self.bns = nn.ModuleList([nn.BatchNorm2d(width) for _ in range(self.num_scales)])
        # The last split is passed through (pooled to the new resolution in a first block).
        self.pool = nn.AvgPool2d(kernel_size=3, stride=stride, padding=1) if self.is_first else None
        self.conv3 = nn.Conv2d(width * scale, outplanes, kernel_size=1, bias=False)
        self.bn3 = nn.BatchNorm2d(outplanes)
        self.relu = nn.ReLU(inplace=True)
        self.downsample = downsample

    def zero_init_last(self) -> None:
        """Zeroes the last BatchNorm's scale so the block starts as the identity."""
        nn.init.zeros_(self.bn3.weight)

    def forward(self, x: flow.Tensor) -> flow.Tensor:
        shortcut = x
        out = self.relu(self.bn1(self.conv1(x)))
        spx = flow.split(out, self.width, 1)
        spo = []
        sp = spx[0]
        for i, (conv, bn) in enumerate(zip(self.convs, self.bns)):
            sp = spx[i] if i == 0 or self.is_first else sp + spx[i]
            sp = self.relu(bn(conv(sp)))
            spo.append(sp)
        if self.scale > 1:
            spo.append(self.pool(spx[-1]) if self.pool is not None else spx[-1])
        out = self.bn3(self.conv3(flow.cat(spo, 1)))
        if self.downsample is not None:
            shortcut = self.downsample(x)
        return self.relu(out + shortcut)


class Res2Net(nn.Module):
    """A ResNet of :class:`Bottle2neck` blocks.

    Args:
        layers: blocks per stage.
        num_classes: classes of the classifier (0: no classifier).
        in_chans: input channels.
        cardinality: groups of the 3x3 convs.
        base_width: width of each split per 64 planes.
        scale: number of splits.
        zero_init_last: zero the last BatchNorm scale of every block.
    """

    def __init__(self, layers: list[int], num_classes: int = 1000, in_chans: int = 3, cardinality: int = 1,
                 base_width: int = 26, scale: int = 4, zero_init_last: bool = True) -> None:
        super().__init__()
        self.num_classes = num_classes
        self.inplanes = 64
        self.conv1 = nn.Conv2d(in_chans, 64, kernel_size=7, stride=2, padding=3, bias=False)
        self.bn1 = nn.BatchNorm2d(64)
        self.act1 = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)
        block_args = dict(cardinality=cardinality, base_width=base_width, scale=scale)
        self.layer1 = self._make_layer(64, layers[0], 1, block_args)
        self.layer2 = self._make_layer(128, layers[1], 2, block_args)
        self.layer3 = self._make_layer(256, layers[2], 2, block_args)
        self.layer4 = self._make_layer(512, layers[3], 2, block_args)
        self.num_features = 512 * Bottle2neck.expansion
        self.global_pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(self.num_features, num_classes) if num_classes > 0 else nn.Identity()

        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
            elif isinstance(m, nn.BatchNorm2d):
                nn.init.ones_(m.weight)
                nn.init.zeros_(m.bias)
        if zero_init_last:
            for m in self.modules():
                if isinstance(m, Bottle2neck):
                    m.zero_init_last()

    def _make_layer(self, planes: int, blocks: int, stride: int, block_args: dict) -> nn.Sequential:
        downsample = None
        outplanes = planes * Bottle2neck.expansion
        if stride != 1 or self.inplanes != outplanes:
            downsample = nn.Sequential(
                nn.Conv2d(self.inplanes, outplanes, kernel_size=1, stride=stride, bias=False),
                nn.BatchNorm2d(outplanes),
            )
        layers = [Bottle2neck(self.inplanes, planes, stride, downsample, **block_args)]
        self.inplanes = outplanes
        layers += [Bottle2neck(self.inplanes, planes, **block_args) for _ in range(1, blocks)]
        return nn.Sequential(*layers)

    def forward_features(self, x: flow.Tensor) -> flow.Tensor:
        """The last feature map, ``(N, 2048, H/32, W/32)``."""
        if x.ndim != 4:
            raise ValueError(f"Res2Net: expected an (N, C, H, W) image batch, got shape {tuple(x.shape)}")
        x = self.maxpool(self.act1(self.bn1(self.conv1(x))))
        return self.layer4(self.layer3(self.layer2(self.layer1(x))))

    def forward(self, x: flow.Tensor) -> flow.Tensor:
        x = self.global_pool(self.forward_features(x)).flatten(1)
        return self.fc(x)


def _res2net(name: str, pretrained: bool, progress: bool, defaults: dict, kwargs: dict) -> Res2Net:
    model = Res2Net(**{**defaults, **kwargs})
    if pretrained:
        load_pretrained(model, name, progress)
    return model


@ModelCreator.register_model
def res2net50_26w_4s(pretrained: bool = False, progress: bool = True, **kwargs) -> Res2Net:
    """Res2Net-50, 26 channels per split, 4 splits (25.7M parameters)."""
    return _res2net("res2net50_26w_4s", pretrained, progress, dict(layers=[3, 4, 6, 3], base_width=26, scale=4),
                    kwargs)


@ModelCreator.register_model
def res2net101_26w_4s(pretrained: bool = False, progress: bool = True, **kwargs) -> Res2Net:
    """Res2Net-101, 26 channels per split, 4 splits (45.2M parameters)."""
    return _res2net("res2net101_26w_4s", pretrained, progress, dict(layers=[3, 4, 23, 3], base_width=26, scale=4),
                    kwargs)


@ModelCreator.register_model
def res2net50_26w_6s(pretrained: bool = False, progress: bool = True, **kwargs) -> Res2Net:
    """Res2Net-50, 26 channels per split, 6 splits (37.1M parameters)."""
    return _res2net("res2net50_26w_6s", pretrained, progress, dict(layers=[3, 4, 6, 3], base_width=26, scale=6),
                    kwargs)


@ModelCreator.register_model
def res2net50_26w_8s(pretrained: bool = False, progress: bool = True, **kwargs) -> Res2Net:
    """Res2Net-50, 26 channels per split, 8 splits (48.4M parameters)."""
    return _res2net("res2net50_26w_8s", pretrained, progress, dict(layers=[3, 4, 6, 3], base_width=26, scale=8),
                    kwargs)


@ModelCreator.register_model
def res2net50_48w_2s(pretrained: bool = False, progress: bool = True, **kwargs) -> Res2Net:
    """Res2Net-50, 48 channels per split, 2 splits (25.3M parameters)."""
    return _res2net("res2net50_48w_2s", pretrained, progress, dict(layers=[3, 4, 6, 3], base_width=48, scale=2),
                    kwargs)


@ModelCreator.register_model
def res2net50_14w_8s(pretrained: bool = False, progress: bool = True, **kwargs) -> Res2Net:
    """Res2Net-50, 14 channels per split, 8 splits (25.1M parameters)."""
    return _res2net("res2net50_14w_8s", pretrained, progress, dict(layers=[3, 4, 6, 3], base_width=14, scale=8),
                    kwargs)


@ModelCreator.register_model
def res2next50(pretrained: bool = False, progress: bool = True, **kwargs) -> Res2Net:
    """Res2NeXt-50: 8 groups of 4 channels per split, 4 splits (24.7M parameters)."""
    return _res2net("res2next50", pretrained, progress,
                    dict(layers=[3, 4, 6, 3], base_width=4, cardinality=8, scale=4), kwargs)
