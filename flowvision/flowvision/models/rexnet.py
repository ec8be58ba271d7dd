"""ReXNet, from "Rethinking Channel Dimensions for Efficient Model Design" (Han et al., 2021).

MobileNetV2-style inverted bottlenecks whose output widths grow linearly with depth,
SiLU after the expansion, ReLU6 after the depthwise conv, squeeze-and-excitation (with
BatchNorm) in the later blocks and a partial residual (added to the first input
channels only). Names follow timm (``stem.conv``, ``features.N.conv_exp.bn``,
``features.N.se.fc1``, ``head.fc``; constructors ``rexnet_100``, ``rexnet_130``...).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import oneflow as flow
from flowvision.layers import DropPath, SEModule, make_divisible
from flowvision.layers.attention import create_act_layer
from flowvision.models._weights import load_pretrained
from flowvision.models.registry import ModelCreator
from oneflow import nn

__all__ = ["RexNet", "rexnet_100", "rexnet_130", "rexnet_150", "rexnet_200", "rexnet_300"]


class ConvNormAct(nn.Module):
    """Conv2d (no bias, "same" padding) -> BatchNorm2d -> optional activation (``conv`` / ``bn``)."""

    def __init__(self, in_chs: int, out_chs: int, kernel_size: int = 1, stride: int = 1, groups: int = 1,
                 act_layer: str | Callable[[], nn.Module] | None = "swish", apply_act: bool = True) -> None:
        super().__init__()
        self.out_channels = out_chs
        self.conv = nn.Conv2d(in_chs, out_chs, kernel_size, stride=stride, padding=(kernel_size - 1) // 2,
                              groups=groups, bias=False)
        self.bn = nn.BatchNorm2d(out_chs)
        self.act = create_act_layer(act_layer if apply_act else None)

    def forward(self, x: flow.Tensor) -> flow.Tensor:
        return self.act(self.bn(self.conv(x)))


class LinearBottleneck(nn.Module):
    """Expand (1x1, SiLU) -> depthwise 3x3 -> SE -> ReLU6 -> project (1x1, linear), partial residual."""

    def __init__(self, in_chs: int, out_chs: int, stride: int, exp_ratio: float = 1.0, se_ratio: float = 0.0,
                 ch_div: int = 1, act_layer: str = "swish", dw_act_layer: str = "relu6",
                 drop_path: nn.Module | None = None) -> None:
        super().__init__()
        self.use_shortcut = stride == 1 and in_chs <= out_chs
        self.in_channels = in_chs
        self.out_channels = out_chs
        if exp_ratio != 1.0:
            dw_chs = make_divisible(round(in_chs * exp_ratio), divisor=ch_div)
            self.conv_exp = ConvNormAct(in_chs, dw_chs, act_layer=act_layer)
        else:
            dw_chs = in_chs
            self.conv_exp = None
        self.conv_dw = ConvNormAct(dw_chs, dw_chs, kernel_size=3, stride=stride, groups=dw_chs, apply_act=False)
        if se_ratio > 0:
            self.se = SEModule(dw_chs, rd_channels=make_divisible(int(dw_chs * se_ratio), ch_div),
                               norm_layer=nn.BatchNorm2d)
        else:
            self.se = None
        self.act_dw = create_act_layer(dw_act_layer)
        self.conv_pwl = ConvNormAct(dw_chs, out_chs, 1, apply_act=False)
        self.drop_path = drop_path

    def forward(self, x: flow.Tensor) -> flow.Tensor:
        shortcut = x
        if self.conv_exp is not None:
            x = self.conv_exp(x)
        x = self.conv_dw(x)
        if self.se is not None:
            x = self.se(x)
        x = self.conv_pwl(self.act_dw(x))
        if self.use_shortcut:
            if self.drop_path is not None:
                x = self.drop_path(x)
            # The residual covers the input's channels; the new ones pass through.
            x = flow.cat([x[:, 0:self.in_channels] + shortcut, x[:, self.in_channels:]], dim=1)
        return x


def _block_cfg(width_mult: float, depth_mult: float, initial_chs: int, final_chs: int, se_ratio: float,
               ch_div: int) -> list[tuple[int, float, int, float]]:
    """(out_chs, exp_ratio, stride, se_ratio) of each bottleneck: widths grow linearly."""
    layers = [math.ceil(n * depth_mult) for n in [1, 2, 2, 3, 3, 5]]
    stage_strides = [1, 2, 2, 2, 1, 2]
    strides = sum(([s] + [1] * (n - 1) for s, n in zip(stage_strides, layers)), [])
    exp_ratios = [1] * layers[0] + [6] * sum(layers[1:])
    num_blocks = sum(layers)
    base_chs = initial_chs / width_mult if width_mult < 1.0 else initial_chs
    out_chs = []
    for _ in range(num_blocks):
        out_chs.append(make_divisible(round(base_chs * width_mult), divisor=ch_div))
        base_chs += final_chs / num_blocks
    se_ratios = [0.0] * (layers[0] + layers[1]) + [se_ratio] * sum(layers[2:])
    return list(zip(out_chs, exp_ratios, strides, se_ratios))


class RexNet(nn.Module):
    """ReXNet.

    Args:
        in_chans: input channels.
        num_classes: classes of the head (0: no head).
        initial_chs, final_chs: width of the first bottleneck and the total width increase.
        width_mult, depth_mult: scaling of widths and block counts.
        se_ratio: SE reduction of the later blocks.
        ch_div: channel divisor.
        act_layer: activation after the stem and the expansions (default SiLU).
        dw_act_layer: activation after the depthwise convs (default ReLU6).
        drop_rate: dropout before the classifier.
        drop_path_rate: stochastic depth rate, increasing linearly to this over the blocks.
    """

    def __init__(self, in_chans: int = 3, num_classes: int = 1000, initial_chs: int = 16, final_chs: int = 180,
                 width_mult: float = 1.0, depth_mult: float = 1.0, se_ratio: float = 1 / 12.0, ch_div: int = 1,
                 act_layer: str = "swish", dw_act_layer: str = "relu6", drop_rate: float = 0.2,
                 drop_path_rate: float = 0.0) -> None:
        super().__init__()
        self.num_classes = num_classes
        stem_base = 32 / width_mult if width_mult < 1.0 else 32
        stem_chs = make_divisible(round(stem_base * width_mult), divisor=ch_div)
        self.stem = ConvNormAct(in_chans, stem_chs, 3, stride=2, act_layer=act_layer)

        cfg = _block_cfg(width_mult, depth_mult, initial_chs, final_chs, se_ratio, ch_div)
        features: list[nn.Module] = []
        prev = stem_chs
        for i, (chs, exp_ratio, stride, se) in enumerate(cfg):
            dpr = drop_path_rate * i / (len(cfg) - 1) if len(cfg) > 1 else 0.0
            features.append(LinearBottleneck(prev, chs, stride, exp_ratio=exp_ratio, se_ratio=se, ch_div=ch_div,
                                             act_layer=act_layer, dw_act_layer=dw_act_layer,
                                             drop_path=DropPath(dpr) if dpr > 0.0 else None))
            prev = chs
        pen_chs = make_divisible(1280 * width_mult, divisor=ch_div)
        features.append(ConvNormAct(prev, pen_chs, act_layer=act_layer))
        self.num_features = pen_chs
        self.features = nn.Sequential(*features)
        self.head = ClassifierHead(pen_chs, num_classes, drop_rate)
        self._init_weights()

    def _init_weights(self) -> None:
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                # He init on the fan-out, as the EfficientNet family does.
                fan_out = m.kernel_size[0] * m.kernel_size[1] * m.out_channels // m.groups
                nn.init.normal_(m.weight, 0.0, math.sqrt(2.0 / fan_out))
                if m.bias is not None:
                    nn.init.zeros_(m.bias)
            elif isinstance(m, nn.BatchNorm2d):
                nn.init.ones_(m.weight)
                nn.init.zeros_(m.bias)
            elif isinstance(m, nn.Linear):
                bound = 1.0 / math.sqrt(m.weight.shape[0])
                nn.init.uniform_(m.weight, -bound, bound)
                nn.init.zeros_(m.bias)

    def forward_features(self, x: flow.Tensor) -> flow.Tensor:
        """The last feature map, ``(N, num_features, H/32, W/32)``."""
        if x.ndim != 4:
            raise ValueError(f"RexNet: expected an (N, C, H, W) image batch, got shape {tuple(x.shape)}")
        return self.features(self.stem(x))

    def forward(self, x: flow.Tensor) -> flow.Tensor:
        return self.head(self.forward_features(x))


class ClassifierHead(nn.Module):
    """Global average pooling -> dropout -> ``fc``."""

    def __init__(self, in_features: int, num_classes: int, drop_rate: float = 0.0) -> None:
        super().__init__()
        self.global_pool = nn.AdaptiveAvgPool2d(1)
        self.drop = nn.Dropout(drop_rate)
        self.fc = nn.Linear(in_features, num_classes) if num_classes > 0 else nn.Identity()
        self.flatten = nn.Flatten(1)

    def forward(self, x: flow.Tensor) -> flow.Tensor:
        x = self.flatten(self.global_pool(x))
        return self.fc(self.drop(x))


def _rexnet(name: str, width_mult: float, pretrained: bool, progress: bool, kwargs: dict) -> RexNet:
    model = RexNet(width_mult=width_mult, **kwargs)
    if pretrained:
        load_pretrained(model, name, progress)
    return model


@ModelCreator.register_model
def rexnet_100(pretrained: bool = False, progress: bool = True, **kwargs) -> RexNet:
    """ReXNet-1.0x (4.8M parameters)."""
    return _rexnet("rexnet_100", 1.0, pretrained, progress, kwargs)


@ModelCreator.register_model
def rexnet_130(pretrained: bool = False, progress: bool = True, **kwargs) -> RexNet:
    """ReXNet-1.3x (7.6M parameters)."""
    return _rexnet("rexnet_130", 1.3, pretrained, progress, kwargs)


@ModelCreator.register_model
def rexnet_150(pretrained: bool = False, progress: bool = True, **kwargs) -> RexNet:
    """ReXNet-1.5x (9.7M parameters)."""
    return _rexnet("rexnet_150", 1.5, pretrained, progress, kwargs)


@ModelCreator.register_model
def rexnet_200(pretrained: bool = False, progress: bool = True, **kwargs) -> RexNet:
    """ReXNet-2.0x (16.4M parameters)."""
    return _rexnet("rexnet_200", 2.0, pretrained, progress, kwargs)


@ModelCreator.register_model
def rexnet_300(pretrained: bool = False, progress: bool = True, **kwargs) -> RexNet:
    """ReXNet-3.0x (34.7M parameters)."""
    return _rexnet("rexnet_300", 3.0, pretrained, progress, kwargs)
