"""EfficientNet B0-B7 and EfficientNetV2 S/M/L in torchvision's layout.

``features`` is a stem ``Conv2dNormActivation`` (3x3 stride 2, SiLU), one ``Sequential``
per stage of MBConv blocks (V2's first stages use FusedMBConv) whose layers sit in
``block`` and whose residual branch is dropped by stochastic depth (probability rising
linearly with depth up to ``stochastic_depth_prob``), and a final 1x1
``Conv2dNormActivation``; then global average pooling and ``classifier`` (dropout, linear).
B1-B7 scale widths and depths of B0 by the compound coefficients of the paper.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Sequence
from functools import partial

import oneflow as flow
from flowvision.models._cnn_blocks import Conv2dNormActivation, SqueezeExcitation, StochasticDepth, _make_divisible
from flowvision.models._weights import load_pretrained
from flowvision.models.registry import ModelCreator
from oneflow import nn

__all__ = [
    "EfficientNet",
    "MBConvConfig",
    "FusedMBConvConfig",
    "efficientnet_b0",
    "efficientnet_b1",
    "efficientnet_b2",
    "efficientnet_b3",
    "efficientnet_b4",
    "efficientnet_b5",
    "efficientnet_b6",
    "efficientnet_b7",
    "efficientnet_v2_s",
    "efficientnet_v2_m",
    "efficientnet_v2_l",
]


class _MBConvConfig:
    """Shape of one stage: ``num_layers`` blocks of the class ``block``."""

    def __init__(self, expand_ratio: float, kernel: int, stride: int, input_channels: int, out_channels: int,
                 num_layers: int, block: Callable[..., nn.Module]) -> None:
        self.expand_ratio = expand_ratio
        self.kernel = kernel
        self.stride = stride
        self.input_channels = input_channels
        self.out_channels = out_channels
        self.num_layers = num_layers
        self.block = block

    @staticmethod
    def adjust_channels(channels: int, width_mult: float, min_value: int | None = None) -> int:
        """Scales ``channels`` by ``width_mult``, rounded to a multiple of 8."""
        return _make_divisible(channels * width_mult, 8, min_value)

    def __repr__(self) -> str:
        fields = ("expand_ratio", "kernel", "stride", "input_channels", "out_channels", "num_layers")
        return f"{type(self).__name__}(" + ", ".join(f"{f}={getattr(self, f)}" for f in fields) + ")"


class MBConvConfig(_MBConvConfig):
    """An MBConv stage, with channels scaled by ``width_mult`` and depth by ``depth_mult``."""

    def __init__(self, expand_ratio: float, kernel: int, stride: int, input_channels: int, out_channels: int,
                 num_layers: int, width_mult: float = 1.0, depth_mult: float = 1.0,
                 block: Callable[..., nn.Module] | None = None) -> None:
        input_channels = self.adjust_channels(input_channels, width_mult)
        out_channels = self.adjust_channels(out_channels, width_mult)
        num_layers = int(math.ceil(num_layers * depth_mult))
        super().__init__(expand_ratio, kernel, stride, input_channels, out_channels, num_layers,
                         MBConv if block is None else block)


class FusedMBConvConfig(_MBConvConfig):
    """A FusedMBConv stage (EfficientNetV2); channels and depth are used as given."""

    def __init__(self, expand_ratio: float, kernel: int, stride: int, input_channels: int, out_channels: int,
                 num_layers: int, block: Callable[..., nn.Module] | None = None) -> None:
        super().__init__(expand_ratio, kernel, stride, input_channels, out_channels, num_layers,
                         FusedMBConv if block is None else block)


class MBConv(nn.Module):
    """Mobile inverted bottleneck: 1x1 expansion, depthwise conv, squeeze-excitation (SiLU,
    sigmoid gate), linear 1x1 projection; residual with stochastic depth when shapes allow."""

    def __init__(self, cnf: MBConvConfig, stochastic_depth_prob: float, norm_layer: Callable[..., nn.Module],
                 se_layer: Callable[..., nn.Module] = SqueezeExcitation) -> None:
        super().__init__()
        if not 1 <= cnf.stride <= 2:
            raise ValueError(f"illegal stride value {cnf.stride}")
        self.use_res_connect = cnf.stride == 1 and cnf.input_channels == cnf.out_channels
        activation_layer = nn.SiLU
        layers: list[nn.Module] = []
        expanded_channels = cnf.adjust_channels(cnf.input_channels, cnf.expand_ratio)
        if expanded_channels != cnf.input_channels:
            layers.append(Conv2dNormActivation(cnf.input_channels, expanded_channels, kernel_size=1,
                                               norm_layer=norm_layer, activation_layer=activation_layer))
        layers.append(Conv2dNormActivation(expanded_channels, expanded_channels, kernel_size=cnf.kernel,
                                           stride=cnf.stride, groups=expanded_channels, norm_layer=norm_layer,
                                           activation_layer=activation_layer))
        squeeze_channels = max(1, cnf.input_channels // 4)
        layers.append(se_layer(expanded_channels, squeeze_channels, activation=partial(nn.SiLU, inplace=True)))
        layers.append(Conv2dNormActivation(expanded_channels, cnf.out_channels, kernel_size=1, norm_layer=norm_layer,
                                           activation_layer=None))
        self.block = nn.Sequential(*layers)
        self.stochastic_depth = StochasticDepth(stochastic_depth_prob, "row")
        self.out_channels = cnf.out_channels

    def forward(self, x: flow.Tensor) -> flow.Tensor:
        """Returns the block's output (plus ``x`` when residual)."""
        result = self.block(x)
        if self.use_res_connect:
            result = self.stochastic_depth(result) + x
        return result


class FusedMBConv(nn.Module):
    """Fused MBConv (EfficientNetV2): a full ``kernel`` conv does the expansion (then a 1x1
    projection), or the whole block when ``expand_ratio == 1``; no squeeze-excitation."""

    def __init__(self, cnf: FusedMBConvConfig, stochastic_depth_prob: float,
                 norm_layer: Callable[..., nn.Module]) -> None:
        super().__init__()
        if not 1 <= cnf.stride <= 2:
            raise ValueError(f"illegal stride value {cnf.stride}")
        self.use_res_connect = cnf.stride == 1 and cnf.input_channels == cnf.out_channels
        activation_layer = nn.SiLU
        layers: list[nn.Module] = []
        expanded_channels = cnf.adjust_channels(cnf.input_channels, cnf.expand_ratio)
        if expanded_channels != cnf.input_channels:
            layers.append(Conv2dNormActivation(cnf.input_channels, expanded_channels, kernel_size=cnf.kernel,
                                               stride=cnf.stride, norm_layer=norm_layer,
                                               activation_layer=activation_layer))
            layers.append(Conv2dNormActivation(expanded_channels, cnf.out_channels, kernel_size=1,
                                               norm_layer=norm_layer, activation_layer=None))
        else:
            layers.append(Conv2dNormActivation(cnf.input_channels, cnf.out_channels, kernel_size=cnf.kernel,
                                               stride=cnf.stride, norm_layer=norm_layer,
                                               activation_layer=activation_layer))
        self.block = nn.Sequential(*layers)
        self.stochastic_depth = StochasticDepth(stochastic_depth_prob, "row")
        self.out_channels = cnf.out_channels

    def forward(self, x: flow.Tensor) -> flow.Tensor:
        """Returns the block's output (plus ``x`` when residual)."""
        result = self.block(x)
        if self.use_res_connect:
            result = self.stochastic_depth(result) + x
        return result


class EfficientNet(nn.Module):
    """EfficientNet (V1 and V2).

    Args:
        inverted_residual_setting: one config per stage (:class:`MBConvConfig` or
            :class:`FusedMBConvConfig`).
        dropout: dropout before the linear classifier.
        stochastic_depth_prob: drop probability of the last block's residual branch (block
            ``i`` of ``n`` uses ``stochastic_depth_prob * i / n``).
        num_classes: outputs of the classifier.
        norm_layer: the norm constructor (``BatchNorm2d`` by default).
        last_channel: channels of the final 1x1 conv (default: 4x the last stage's).
    """

    def __init__(self, inverted_residual_setting: Sequence[_MBConvConfig], dropout: float,
                 stochastic_depth_prob: float = 0.2, num_classes: int = 1000,
                 norm_layer: Callable[..., nn.Module] | None = None, last_channel: int | None = None) -> None:
        super().__init__()
        if not inverted_residual_setting:
            raise ValueError("The inverted_residual_setting should not be empty")
        if not all(isinstance(s, _MBConvConfig) for s in inverted_residual_setting):
            raise TypeError("The inverted_residual_setting should be a list of MBConvConfig/FusedMBConvConfig")
        if norm_layer is None:
            norm_layer = nn.BatchNorm2d
        firstconv_output_channels = inverted_residual_setting[0].input_channels
        layers: list[nn.Module] = [Conv2dNormActivation(3, firstconv_output_channels, kernel_size=3, stride=2,
                                                        norm_layer=norm_layer, activation_layer=nn.SiLU)]
        total_stage_blocks = sum(cnf.num_layers for cnf in inverted_residual_setting)
        stage_block_id = 0
        for cnf in inverted_residual_setting:
            stage: list[nn.Module] = []
            for _ in range(cnf.num_layers):
                block_cnf = copy.copy(cnf)
                if stage:  # later blocks of a stage keep channels and resolution
                    block_cnf.input_channels = block_cnf.out_channels
                    block_cnf.stride = 1
                sd_prob = stochastic_depth_prob * float(stage_block_id) / total_stage_blocks
                stage.append(block_cnf.block(block_cnf, sd_prob, norm_layer))
                stage_block_id += 1
            layers.append(nn.Sequential(*stage))
        lastconv_input_channels = inverted_residual_setting[-1].out_channels
        lastconv_output_channels = last_channel if last_channel is not None else 4 * lastconv_input_channels
        layers.append(Conv2dNormActivation(lastconv_input_channels, lastconv_output_channels, kernel_size=1,
                                           norm_layer=norm_layer, activation_layer=nn.SiLU))
        self.features = nn.Sequential(*layers)
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        # torchvision's dropout here is in place; oneflow's in-place dropout on a view (the
        # flattened pooling output) breaks the backward pass, so this one is not (same values).
        self.classifier = nn.Sequential(nn.Dropout(p=dropout),
                                        nn.Linear(lastconv_output_channels, num_classes))

        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out")
                if m.bias is not None:
                    nn.init.zeros_(m.bias)
            elif isinstance(m, (nn.BatchNorm2d, nn.GroupNorm)):
                nn.init.ones_(m.weight)
                nn.init.zeros_(m.bias)
            elif isinstance(m, nn.Linear):
                init_range = 1.0 / math.sqrt(m.out_features)
                nn.init.uniform_(m.weight, -init_range, init_range)
                nn.init.zeros_(m.bias)

    def forward(self, x: flow.Tensor) -> flow.Tensor:
        """Classifies a batch ``(N, 3, H, W)`` into logits ``(N, num_classes)``."""
        x = flow.flatten(self.avgpool(self.features(x)), 1)
        return self.classifier(x)


def _efficientnet_conf(arch: str, width_mult: float = 1.0, depth_mult: float = 1.0,
                       ) -> tuple[list[_MBConvConfig], int | None]:
    """The stage table and last-conv width of ``arch`` (``efficientnet_b*`` or ``efficientnet_v2_*``)."""
    if arch.startswith("efficientnet_b"):
        bneck_conf = partial(MBConvConfig, width_mult=width_mult, depth_mult=depth_mult)
        setting: list[_MBConvConfig] = [
            bneck_conf(1, 3, 1, 32, 16, 1),
            bneck_conf(6, 3, 2, 16, 24, 2),
            bneck_conf(6, 5, 2, 24, 40, 2),
            bneck_conf(6, 3, 2, 40, 80, 3),
            bneck_conf(6, 5, 1, 80, 112, 3),
            bneck_conf(6, 5, 2, 112, 192, 4),
            bneck_conf(6, 3, 1, 192, 320, 1),
        ]
        return setting, None
    if arch == "efficientnet_v2_s":
        setting = [
            FusedMBConvConfig(1, 3, 1, 24, 24, 2),
            FusedMBConvConfig(4, 3, 2, 24, 48, 4),
            FusedMBConvConfig(4, 3, 2, 48, 64, 4),
            MBConvConfig(4, 3, 2, 64, 128, 6),
            MBConvConfig(6, 3, 1, 128, 160, 9),
            MBConvConfig(6, 3, 2, 160, 256, 15),
        ]
    elif arch == "efficientnet_v2_m":
        setting = [
            FusedMBConvConfig(1, 3, 1, 24, 24, 3),
            FusedMBConvConfig(4, 3, 2, 24, 48, 5),
            FusedMBConvConfig(4, 3, 2, 48, 80, 5),
            MBConvConfig(4, 3, 2, 80, 160, 7),
            MBConvConfig(6, 3, 1, 160, 176, 14),
            MBConvConfig(6, 3, 2, 176, 304, 18),
            MBConvConfig(6, 3, 1, 304, 512, 5),
        ]
    elif arch == "efficientnet_v2_l":
        setting = [
            FusedMBConvConfig(1, 3, 1, 32, 32, 4),
            FusedMBConvConfig(4, 3, 2, 32, 64, 7),
            FusedMBConvConfig(4, 3, 2, 64, 96, 7),
            MBConvConfig(4, 3, 2, 96, 192, 10),
            MBConvConfig(6, 3, 1, 192, 224, 19),
            MBConvConfig(6, 3, 2, 224, 384, 25),
            MBConvConfig(6, 3, 1, 384, 640, 7),
        ]
    else:
        raise ValueError(f"Unsupported model type {arch}")
    return setting, 1280


def _efficientnet(arch: str, width_mult: float, depth_mult: float, default_dropout: float, pretrained: bool,
                  progress: bool, **kwargs) -> EfficientNet:
    setting, last_channel = _efficientnet_conf(arch, width_mult, depth_mult)
    model = EfficientNet(setting, kwargs.pop("dropout", default_dropout), last_channel=last_channel, **kwargs)
    if pretrained:
        load_pretrained(model, arch, progress)
    return model


_DOC_ARGS = """
    Args:
        pretrained: load ImageNet weights from the flowvision cache.
        progress: unused (nothing is downloaded); kept for torchvision compatibility.
        **kwargs: passed to :class:`EfficientNet` (``num_classes=``, ``dropout=``,
            ``stochastic_depth_prob=``, ``norm_layer=``).
"""


@ModelCreator.register_model
def efficientnet_b0(pretrained: bool = False, progress: bool = True, **kwargs) -> EfficientNet:
    """EfficientNet-B0 from "EfficientNet: Rethinking Model Scaling for Convolutional Neural
    Networks" (Tan & Le, 2019); native resolution 224.
    """
    return _efficientnet("efficientnet_b0", 1.0, 1.0, 0.2, pretrained, progress, **kwargs)


@ModelCreator.register_model
def efficientnet_b1(pretrained: bool = False, progress: bool = True, **kwargs) -> EfficientNet:
    """EfficientNet-B1 (width 1.0, depth 1.1); native resolution 240."""
    return _efficientnet("efficientnet_b1", 1.0, 1.1, 0.2, pretrained, progress, **kwargs)


@ModelCreator.register_model
def efficientnet_b2(pretrained: bool = False, progress: bool = True, **kwargs) -> EfficientNet:
    """EfficientNet-B2 (width 1.1, depth 1.2); native resolution 260 (torchvision: 288)."""
    return _efficientnet("efficientnet_b2", 1.1, 1.2, 0.3, pretrained, progress, **kwargs)


@ModelCreator.register_model
def efficientnet_b3(pretrained: bool = False, progress: bool = True, **kwargs) -> EfficientNet:
    """EfficientNet-B3 (width 1.2, depth 1.4); native resolution 300."""
    return _efficientnet("efficientnet_b3", 1.2, 1.4, 0.3, pretrained, progress, **kwargs)


@ModelCreator.register_model
def efficientnet_b4(pretrained: bool = False, progress: bool = True, **kwargs) -> EfficientNet:
    """EfficientNet-B4 (width 1.4, depth 1.8); native resolution 380."""
    return _efficientnet("efficientnet_b4", 1.4, 1.8, 0.4, pretrained, progress, **kwargs)


def _tf_bn() -> Callable[..., nn.Module]:
    # B5-B7 were ported from TensorFlow weights: TensorFlow's batch-norm epsilon and momentum.
    return partial(nn.BatchNorm2d, eps=0.001, momentum=0.01)


@ModelCreator.register_model
def efficientnet_b5(pretrained: bool = False, progress: bool = True, **kwargs) -> EfficientNet:
    """EfficientNet-B5 (width 1.6, depth 2.2; batch norm eps 1e-3, momentum 0.01); native
    resolution 456."""
    kwargs.setdefault("norm_layer", _tf_bn())
    return _efficientnet("efficientnet_b5", 1.6, 2.2, 0.4, pretrained, progress, **kwargs)


@ModelCreator.register_model
def efficientnet_b6(pretrained: bool = False, progress: bool = True, **kwargs) -> EfficientNet:
    """EfficientNet-B6 (width 1.8, depth 2.6; batch norm eps 1e-3, momentum 0.01); native
    resolution 528."""
    kwargs.setdefault("norm_layer", _tf_bn())
    return _efficientnet("efficientnet_b6", 1.8, 2.6, 0.5, pretrained, progress, **kwargs)


@ModelCreator.register_model
def efficientnet_b7(pretrained: bool = False, progress: bool = True, **kwargs) -> EfficientNet:
    """EfficientNet-B7 (width 2.0, depth 3.1; batch norm eps 1e-3, momentum 0.01); native
    resolution 600."""
    kwargs.setdefault("norm_layer", _tf_bn())
    return _efficientnet("efficientnet_b7", 2.0, 3.1, 0.5, pretrained, progress, **kwargs)


@ModelCreator.register_model
def efficientnet_v2_s(pretrained: bool = False, progress: bool = True, **kwargs) -> EfficientNet:
    """EfficientNetV2-S from "EfficientNetV2: Smaller Models and Faster Training" (Tan & Le,
    2021); batch norm eps 1e-3, native resolution 384."""
    kwargs.setdefault("norm_layer", partial(nn.BatchNorm2d, eps=1e-03))
    return _efficientnet("efficientnet_v2_s", 1.0, 1.0, 0.2, pretrained, progress, **kwargs)


@ModelCreator.register_model
def efficientnet_v2_m(pretrained: bool = False, progress: bool = True, **kwargs) -> EfficientNet:
    """EfficientNetV2-M; batch norm eps 1e-3, native resolution 480."""
    kwargs.setdefault("norm_layer", partial(nn.BatchNorm2d, eps=1e-03))
    return _efficientnet("efficientnet_v2_m", 1.0, 1.0, 0.3, pretrained, progress, **kwargs)


@ModelCreator.register_model
def efficientnet_v2_l(pretrained: bool = False, progress: bool = True, **kwargs) -> EfficientNet:
    """EfficientNetV2-L; batch norm eps 1e-3, native resolution 480."""
    kwargs.setdefault("norm_layer", partial(nn.BatchNorm2d, eps=1e-03))
    return _efficientnet("efficientnet_v2_l", 1.0, 1.0, 0.4, pretrained, progress, **kwargs)


for _fn in (efficientnet_b0, efficientnet_b1, efficientnet_b2, efficientnet_b3, efficientnet_b4, efficientnet_b5,
            efficientnet_b6, efficientnet_b7, efficientnet_v2_s, efficientnet_v2_m, efficientnet_v2_l):
    _fn.__doc__ = (_fn.__doc__ or "").rstrip() + "\n" + _DOC_ARGS
del _fn
