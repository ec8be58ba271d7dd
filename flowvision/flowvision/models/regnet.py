"""RegNetX and RegNetY (400MF to 32GF) in torchvision's layout.

A ``stem`` (3x3 stride-2 ``Conv2dNormActivation``), ``trunk_output`` with four stages
``block1``..``block4`` (blocks ``block<stage>-<i>``: a residual bottleneck ``f`` with
1x1 ``a``, grouped 3x3 ``b``, squeeze-excitation ``se`` for RegNetY, 1x1 ``c``, and a
projection ``proj`` where the shape changes), global average pooling and ``fc``. Stage
widths and depths come from the quantized linear rule of "Designing Network Design
Spaces" (Radosavovic et al., 2020), computed in float32 like torchvision.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Callable, Iterator
from functools import partial

import numpy as np

import oneflow as flow
from flowvision.models._cnn_blocks import Conv2dNormActivation, SqueezeExcitation, _make_divisible
from flowvision.models._weights import load_pretrained
from flowvision.models.registry import ModelCreator
from oneflow import nn

__all__ = [
    "BlockParams",
    "RegNet",
    "regnet_x_400mf",
    "regnet_x_800mf",
    "regnet_x_1_6gf",
    "regnet_x_3_2gf",
    "regnet_x_8gf",
    "regnet_x_16gf",
    "regnet_x_32gf",
    "regnet_y_400mf",
    "regnet_y_800mf",
    "regnet_y_1_6gf",
    "regnet_y_3_2gf",
    "regnet_y_8gf",
    "regnet_y_16gf",
    "regnet_y_32gf",
]


class SimpleStemIN(Conv2dNormActivation):
    """The stem: 3x3 stride-2 conv, norm, activation."""

    def __init__(self, width_in: int, width_out: int, norm_layer: Callable[..., nn.Module],
                 activation_layer: Callable[..., nn.Module]) -> None:
        super().__init__(width_in, width_out, kernel_size=3, stride=2, norm_layer=norm_layer,
                         activation_layer=activation_layer)


class BottleneckTransform(nn.Sequential):
    """The residual branch: 1x1 ``a``, grouped 3x3 ``b`` (carries the stride), optional
    squeeze-excitation ``se``, 1x1 ``c`` without activation."""

    def __init__(self, width_in: int, width_out: int, stride: int, norm_layer: Callable[..., nn.Module],
                 activation_layer: Callable[..., nn.Module], group_width: int, bottleneck_multiplier: float,
                 se_ratio: float | None) -> None:
        layers: OrderedDict[str, nn.Module] = OrderedDict()
        w_b = int(round(width_out * bottleneck_multiplier))
        g = w_b // group_width
        layers["a"] = Conv2dNormActivation(width_in, w_b, kernel_size=1, stride=1, norm_layer=norm_layer,
                                           activation_layer=activation_layer)
        layers["b"] = Conv2dNormActivation(w_b, w_b, kernel_size=3, stride=stride, groups=g, norm_layer=norm_layer,
                                           activation_layer=activation_layer)
        if se_ratio:
            # The squeeze width is a fraction of the block's *input* width, as in the paper.
            width_se_out = int(round(se_ratio * width_in))
            layers["se"] = SqueezeExcitation(input_channels=w_b, squeeze_channels=width_se_out,
                                             activation=activation_layer)
        layers["c"] = Conv2dNormActivation(w_b, width_out, kernel_size=1, stride=1, norm_layer=norm_layer,
                                           activation_layer=None)
        super().__init__(layers)


class ResBottleneckBlock(nn.Module):
    """Residual bottleneck block: ``activation(proj(x) + f(x))`` (``proj`` only when needed)."""

    def __init__(self, width_in: int, width_out: int, stride: int, norm_layer: Callable[..., nn.Module],
                 activation_layer: Callable[..., nn.Module], group_width: int = 1,
                 bottleneck_multiplier: float = 1.0, se_ratio: float | None = None) -> None:
        super().__init__()
        self.proj = None
        if width_in != width_out or stride != 1:
            self.proj = Conv2dNormActivation(width_in, width_out, kernel_size=1, stride=stride,
                                             norm_layer=norm_layer, activation_layer=None)
        self.f = BottleneckTransform(width_in, width_out, stride, norm_layer, activation_layer, group_width,
                                     bottleneck_multiplier, se_ratio)
        self.activation = activation_layer(inplace=True)

    def forward(self, x: flow.Tensor) -> flow.Tensor:
        """Returns ``activation(shortcut(x) + f(x))``."""
        shortcut = self.proj(x) if self.proj is not None else x
        return self.activation(shortcut + self.f(x))


class AnyStage(nn.Sequential):
    """``depth`` blocks named ``block<stage_index>-<i>``; the first one changes width and stride."""

    def __init__(self, width_in: int, width_out: int, stride: int, depth: int,
                 block_constructor: Callable[..., nn.Module], norm_layer: Callable[..., nn.Module],
                 activation_layer: Callable[..., nn.Module], group_width: int, bottleneck_multiplier: float,
                 se_ratio: float | None = None, stage_index: int = 0) -> None:
        super().__init__()
        for i in range(depth):
            block = block_constructor(width_in if i == 0 else width_out, width_out, stride if i == 0 else 1,
                                      norm_layer, activation_layer, group_width, bottleneck_multiplier, se_ratio)
            self.add_module(f"block{stage_index}-{i}", block)


class BlockParams:
    """Per-stage depths, widths, group widths, bottleneck multipliers and strides."""

    def __init__(self, depths: list[int], widths: list[int], group_widths: list[int],
                 bottleneck_multipliers: list[float], strides: list[int], se_ratio: float | None = None) -> None:
        self.depths = depths
        self.widths = widths
        self.group_widths = group_widths
        self.bottleneck_multipliers = bottleneck_multipliers
        self.strides = strides
        self.se_ratio = se_ratio

    @classmethod
    def from_init_params(cls, depth: int, w_0: int, w_a: float, w_m: float, group_width: int,
                         bottleneck_multiplier: float = 1.0, se_ratio: float | None = None) -> BlockParams:
        """Stage parameters from the RegNet rule: block ``j`` has width ``w_0 + w_a * j``,
        quantized to ``w_0 * w_m ** k`` (rounded to a multiple of 8); blocks of equal width
        form a stage.

        Args:
            depth: total number of blocks.
            w_0: initial width (a positive multiple of 8).
            w_a: width slope (>= 0).
            w_m: width quantization multiplier (> 1).
            group_width: channels per group of the 3x3 convolutions.
            bottleneck_multiplier: bottleneck width / block width.
            se_ratio: squeeze-excitation ratio (RegNetY), or ``None``.
        """
        quant, stride = 8, 2
        if w_a < 0 or w_0 <= 0 or w_m <= 1 or w_0 % 8 != 0:
            raise ValueError("Invalid RegNet settings")
        # float32 throughout, as torchvision computes it with default-dtype tensors.
        f32 = np.float32
        widths_cont = np.arange(depth).astype(f32) * f32(w_a) + f32(w_0)
        block_capacity = np.round(np.log(widths_cont / f32(w_0)) / f32(math.log(w_m)))
        block_widths = (np.round(f32(w_0) * np.power(f32(w_m), block_capacity) / f32(quant)) * quant)
        block_widths = [int(w) for w in block_widths.astype(np.int32)]
        num_stages = len(set(block_widths))
        # A stage starts wherever the width changes.
        split_helper = zip(block_widths + [0], [0] + block_widths, block_widths + [0], [0] + block_widths)
        splits = [w != wp or r != rp for w, wp, r, rp in split_helper]
        stage_widths = [w for w, t in zip(block_widths, splits[:-1]) if t]
        starts = [d for d, t in enumerate(splits) if t]
        stage_depths = [b - a for a, b in zip(starts[:-1], starts[1:])]
        strides = [stride] * num_stages
        bottleneck_multipliers = [bottleneck_multiplier] * num_stages
        group_widths = [group_width] * num_stages
        stage_widths, group_widths = cls._adjust_widths_groups_compatibilty(stage_widths, bottleneck_multipliers,
                                                                            group_widths)
        return cls(depths=stage_depths, widths=stage_widths, group_widths=group_widths,
                   bottleneck_multipliers=bottleneck_multipliers, strides=strides, se_ratio=se_ratio)

    def _get_expanded_params(self) -> Iterator[tuple[int, int, int, int, float]]:
        return zip(self.widths, self.strides, self.depths, self.group_widths, self.bottleneck_multipliers)

    @staticmethod
    def _adjust_widths_groups_compatibilty(stage_widths: list[int], bottleneck_ratios: list[float],
                                           group_widths: list[int]) -> tuple[list[int], list[int]]:
        """Makes each bottleneck width a multiple of its group width (group width at most the
        bottleneck width)."""
        widths = [int(w * b) for w, b in zip(stage_widths, bottleneck_ratios)]
        group_widths_min = [min(g, w_bot) for g, w_bot in zip(group_widths, widths)]
        ws_bot = [_make_divisible(w_bot, g) for w_bot, g in zip(widths, group_widths_min)]
        stage_widths = [int(w_bot / b) for w_bot, b in zip(ws_bot, bottleneck_ratios)]
        return stage_widths, group_widths_min


class RegNet(nn.Module):
    """RegNet.

    Args:
        block_params: the stage parameters (see :meth:`BlockParams.from_init_params`).
        num_classes: outputs of the classifier.
        stem_width: output channels of the stem.
        stem_type: the stem class (``SimpleStemIN`` by default).
        block_type: the block class (``ResBottleneckBlock`` by default).
        norm_layer: the norm constructor (``BatchNorm2d`` by default).
        activation: the activation constructor (``ReLU`` by default).
    """

    def __init__(self, block_params: BlockParams, num_classes: int = 1000, stem_width: int = 32,
                 stem_type: Callable[..., nn.Module] | None = None,
                 block_type: Callable[..., nn.Module] | None = None,
                 norm_layer: Callable[..., nn.Module] | None = None,
                 activation: Callable[..., nn.Module] | None = None) -> None:
        super().__init__()
        stem_type = SimpleStemIN if stem_type is None else stem_type
        norm_layer = nn.BatchNorm2d if norm_layer is None else norm_layer
        block_type = ResBottleneckBlock if block_type is None else block_type
        activation = nn.ReLU if activation is None else activation
        self.stem = stem_type(3, stem_width, norm_layer, activation)
        current_width = stem_width
        blocks = []
        for i, (width_out, stride, depth, group_width, bottleneck_multiplier) in enumerate(
                block_params._get_expanded_params()):
            blocks.append((f"block{i + 1}", AnyStage(current_width, width_out, stride, depth, block_type, norm_layer,
                                                     activation, group_width, bottleneck_multiplier,
                                                     block_params.se_ratio, stage_index=i + 1)))
            current_width = width_out
        self.trunk_output = nn.Sequential(OrderedDict(blocks))
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(in_features=current_width, out_features=num_classes)

        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                # He init with fan-out = k * k * out_channels.
                fan_out = m.kernel_size[0] * m.kernel_size[1] * m.out_channels
                nn.init.normal_(m.weight, mean=0.0, std=math.sqrt(2.0 / fan_out))
            elif isinstance(m, nn.BatchNorm2d):
                nn.init.ones_(m.weight)
                nn.init.zeros_(m.bias)
            elif isinstance(m, nn.Linear):
                nn.init.normal_(m.weight, mean=0.0, std=0.01)
                nn.init.zeros_(m.bias)

    def forward(self, x: flow.Tensor) -> flow.Tensor:
        """Classifies a batch ``(N, 3, H, W)`` into logits ``(N, num_classes)``."""
        x = self.trunk_output(self.stem(x))
        return self.fc(flow.flatten(self.avgpool(x), 1))


def _regnet(name: str, block_params: BlockParams, pretrained: bool, progress: bool, **kwargs) -> RegNet:
    norm_layer = kwargs.pop("norm_layer", partial(nn.BatchNorm2d, eps=1e-05, momentum=0.1))
    model = RegNet(block_params, norm_layer=norm_layer, **kwargs)
    if pretrained:
        load_pretrained(model, name, progress)
    return model


# (depth, w_0, w_a, w_m, group_width) of each model; RegNetY adds squeeze-excitation (ratio 0.25).
_X_PARAMS = {
    "regnet_x_400mf": (22, 24, 24.48, 2.54, 16),
    "regnet_x_800mf": (16, 56, 35.73, 2.28, 16),
    "regnet_x_1_6gf": (18, 80, 34.01, 2.25, 24),
    "regnet_x_3_2gf": (25, 88, 26.31, 2.25, 48),
    "regnet_x_8gf": (23, 80, 49.56, 2.88, 120),
    "regnet_x_16gf": (22, 216, 55.59, 2.1, 128),
    "regnet_x_32gf": (23, 320, 69.86, 2.0, 168),
}
_Y_PARAMS = {
    "regnet_y_400mf": (16, 48, 27.89, 2.09, 8),
    "regnet_y_800mf": (14, 56, 38.84, 2.4, 16),
    "regnet_y_1_6gf": (27, 48, 20.71, 2.65, 24),
    "regnet_y_3_2gf": (21, 80, 42.63, 2.66, 24),
    "regnet_y_8gf": (17, 192, 76.82, 2.19, 56),
    "regnet_y_16gf": (18, 200, 106.23, 2.48, 112),
    "regnet_y_32gf": (20, 232, 115.89, 2.53, 232),
}


def _build(name: str, pretrained: bool, progress: bool, **kwargs) -> RegNet:
    if name in _X_PARAMS:
        depth, w_0, w_a, w_m, group_width = _X_PARAMS[name]
        params = BlockParams.from_init_params(depth=depth, w_0=w_0, w_a=w_a, w_m=w_m, group_width=group_width)
    else:
        depth, w_0, w_a, w_m, group_width = _Y_PARAMS[name]
        params = BlockParams.from_init_params(depth=depth, w_0=w_0, w_a=w_a, w_m=w_m, group_width=group_width,
                                              se_ratio=0.25)
    return _regnet(name, params, pretrained, progress, **kwargs)


_DOC_ARGS = """
    Args:
        pretrained: load ImageNet weights from the flowvision cache.
        progress: unused (nothing is downloaded); kept for torchvision compatibility.
        **kwargs: passed to :class:`RegNet` (``num_classes=``, ``norm_layer=``, ...).
"""


@ModelCreator.register_model
def regnet_x_400mf(pretrained: bool = False, progress: bool = True, **kwargs) -> RegNet:
    """RegNetX-400MF from "Designing Network Design Spaces" (Radosavovic et al., 2020)."""
    return _build("regnet_x_400mf", pretrained, progress, **kwargs)


@ModelCreator.register_model
def regnet_x_800mf(pretrained: bool = False, progress: bool = True, **kwargs) -> RegNet:
    """RegNetX-800MF."""
    return _build("regnet_x_800mf", pretrained, progress, **kwargs)


@ModelCreator.register_model
def regnet_x_1_6gf(pretrained: bool = False, progress: bool = True, **kwargs) -> RegNet:
    """RegNetX-1.6GF."""
    return _build("regnet_x_1_6gf", pretrained, progress, **kwargs)


@ModelCreator.register_model
def regnet_x_3_2gf(pretrained: bool = False, progress: bool = True, **kwargs) -> RegNet:
    """RegNetX-3.2GF."""
    return _build("regnet_x_3_2gf", pretrained, progress, **kwargs)


@ModelCreator.register_model
def regnet_x_8gf(pretrained: bool = False, progress: bool = True, **kwargs) -> RegNet:
    """RegNetX-8GF."""
    return _build("regnet_x_8gf", pretrained, progress, **kwargs)


@ModelCreator.register_model
def regnet_x_16gf(pretrained: bool = False, progress: bool = True, **kwargs) -> RegNet:
    """RegNetX-16GF."""
    return _build("regnet_x_16gf", pretrained, progress, **kwargs)


@ModelCreator.register_model
def regnet_x_32gf(pretrained: bool = False, progress: bool = True, **kwargs) -> RegNet:
    """RegNetX-32GF."""
    return _build("regnet_x_32gf", pretrained, progress, **kwargs)


@ModelCreator.register_model
def regnet_y_400mf(pretrained: bool = False, progress: bool = True, **kwargs) -> RegNet:
    """RegNetY-400MF (RegNetX with squeeze-excitation) from "Designing Network Design Spaces"."""
    return _build("regnet_y_400mf", pretrained, progress, **kwargs)


@ModelCreator.register_model
def regnet_y_800mf(pretrained: bool = False, progress: bool = True, **kwargs) -> RegNet:
    """RegNetY-800MF."""
    return _build("regnet_y_800mf", pretrained, progress, **kwargs)


@ModelCreator.register_model
def regnet_y_1_6gf(pretrained: bool = False, progress: bool = True, **kwargs) -> RegNet:
    """RegNetY-1.6GF."""
    return _build("regnet_y_1_6gf", pretrained, progress, **kwargs)


@ModelCreator.register_model
def regnet_y_3_2gf(pretrained: bool = False, progress: bool = True, **kwargs) -> RegNet:
    """RegNetY-3.2GF."""
    return _build("regnet_y_3_2gf", pretrained, progress, **kwargs)


@ModelCreator.register_model
def regnet_y_8gf(pretrained: bool = False, progress: bool = True, **kwargs) -> RegNet:
    """RegNetY-8GF."""
    return _build("regnet_y_8gf", pretrained, progress, **kwargs)


@ModelCreator.register_model
def regnet_y_16gf(pretrained: bool = False, progress: bool = True, **kwargs) -> RegNet:
    """RegNetY-16GF."""
    return _build("regnet_y_16gf", pretrained, progress, **kwargs)


@ModelCreator.register_model
def regnet_y_32gf(pretrained: bool = False, progress: bool = True, **kwargs) -> RegNet:
    """RegNetY-32GF."""
    return _build("regnet_y_32gf", pretrained, progress, **kwargs)


for _name in __all__[2:]:
    _fn = globals()[_name]
    _fn.__doc__ = _fn.__doc__.rstrip() + "\n" + _DOC_ARGS
del _name, _fn
