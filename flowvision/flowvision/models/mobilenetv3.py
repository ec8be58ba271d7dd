"""MobileNetV3 small and large in torchvision's layout.

``features`` is a stem (3x3 stride-2 conv, Hardswish), the inverted residual blocks of the
paper's tables (each block's layers in ``block``: optional 1x1 expansion, depthwise conv,
optional squeeze-excitation with a hard-sigmoid gate, 1x1 projection) and a final 1x1
conv; ``classifier`` is linear, Hardswish, dropout, linear. Batch norms use eps 1e-3 and
momentum 0.01.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import oneflow as flow
from flowvision.models._cnn_blocks import Conv2dNormActivation, SqueezeExcitation, _make_divisible
from flowvision.models._weights import load_pretrained
from flowvision.models.registry import ModelCreator
from oneflow import nn

__all__ = ["MobileNetV3", "mobilenet_v3_large", "mobilenet_v3_small"]


class InvertedResidualConfig:
    """One row of the architecture table; channel counts are scaled by ``width_mult``.

    Args:
        input_channels, kernel, expanded_channels, out_channels: block shape.
        use_se: whether the block has squeeze-excitation.
        activation: ``"RE"`` (ReLU) or ``"HS"`` (Hardswish).
        stride, dilation: of the depthwise convolution.
        width_mult: channel multiplier.
    """

    def __init__(self, input_channels: int, kernel: int, expanded_channels: int, out_channels: int, use_se: bool,
                 activation: str, stride: int, dilation: int, width_mult: float) -> None:
        self.input_channels = self.adjust_channels(input_channels, width_mult)
        self.kernel = kernel
        self.expanded_channels = self.adjust_channels(expanded_channels, width_mult)
        self.out_channels = self.adjust_channels(out_channels, width_mult)
        self.use_se = use_se
        self.use_hs = activation == "HS"
        self.stride = stride
        self.dilation = dilation

    @staticmethod
    def adjust_channels(channels: int, width_mult: float) -> int:
        """Scales ``channels`` by ``width_mult``, rounded to a multiple of 8."""
        return _make_divisible(channels * width_mult, 8)


# MobileNetV3's squeeze-excitation gates with a hard sigmoid.
_SE_LAYER = partial(SqueezeExcitation, scale_activation=nn.Hardsigmoid)


class InvertedResidual(nn.Module):
    """A MobileNetV3 block (see the module docstring); residual when shapes allow."""

    def __init__(self, cnf: InvertedResidualConfig, norm_layer: Callable[..., nn.Module],
                 se_layer: Callable[..., nn.Module] = _SE_LAYER) -> None:
        super().__init__()
        if not 1 <= cnf.stride <= 2:
            raise ValueError(f"illegal stride value {cnf.stride}")
        self.use_res_connect = cnf.stride == 1 and cnf.input_channels == cnf.out_channels
        activation_layer = nn.Hardswish if cnf.use_hs else nn.ReLU
        layers: list[nn.Module] = []
        if cnf.expanded_channels != cnf.input_channels:
            layers.append(Conv2dNormActivation(cnf.input_channels, cnf.expanded_channels, kernel_size=1,
                                               norm_layer=norm_layer, activation_layer=activation_layer))
        stride = 1 if cnf.dilation > 1 else cnf.stride
        layers.append(Conv2dNormActivation(cnf.expanded_channels, cnf.expanded_channels, kernel_size=cnf.kernel,
                                           stride=stride, dilation=cnf.dilation, groups=cnf.expanded_channels,
                                           norm_layer=norm_layer, activation_layer=activation_layer))
        if cnf.use_se:
            layers.append(se_layer(cnf.expanded_channels, _make_divisible(cnf.expanded_channels // 4, 8)))
        layers.append(Conv2dNormActivation(cnf.expanded_channels, cnf.out_channels, kernel_size=1,
                                           norm_layer=norm_layer, activation_layer=None))
        self.block = nn.Sequential(*layers)
        self.out_channels = cnf.out_channels
        self._is_cn = cnf.stride > 1

    def forward(self, x: flow.Tensor) -> flow.Tensor:
        """Returns the block's output (plus ``x`` when residual)."""
        result = self.block(x)
        if self.use_res_connect:
            result = result + x
        return result


class MobileNetV3(nn.Module):
    """MobileNetV3.

    Args:
        inverted_residual_setting: the block table (see :func:`_mobilenet_v3_conf`).
        last_channel: width of the hidden classifier layer.
        num_classes: outputs of the classifier.
        block: the block class (``InvertedResidual`` by default).
        norm_layer: the norm constructor (BatchNorm2d with eps 1e-3, momentum 0.01 by default).
        dropout: dropout in the classifier.
    """

    def __init__(self, inverted_residual_setting: list[InvertedResidualConfig], last_channel: int,
                 num_classes: int = 1000, block: Callable[..., nn.Module] | None = None,
                 norm_layer: Callable[..., nn.Module] | None = None, dropout: float = 0.2) -> None:
        super().__init__()
        if not inverted_residual_setting:
            raise ValueError("The inverted_residual_setting should not be empty")
        if not all(isinstance(s, InvertedResidualConfig) for s in inverted_residual_setting):
            raise TypeError("The inverted_residual_setting should be a list of InvertedResidualConfig")
        if block is None:
            block = InvertedResidual
        if norm_layer is None:
            norm_layer = partial(nn.BatchNorm2d, eps=0.001, momentum=0.01)
        first = inverted_residual_setting[0].input_channels
        layers: list[nn.Module] = [Conv2dNormActivation(3, first, kernel_size=3, stride=2, norm_layer=norm_layer,
                                                        activation_layer=nn.Hardswish)]
        layers += [block(cnf, norm_layer) for cnf in inverted_residual_setting]
        lastconv_input_channels = inverted_residual_setting[-1].out_channels
        lastconv_output_channels = 6 * lastconv_input_channels
        layers.append(Conv2dNormActivation(lastconv_input_channels, lastconv_output_channels, kernel_size=1,
                                           norm_layer=norm_layer, activation_layer=nn.Hardswish))
        self.features = nn.Sequential(*layers)
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.classifier = nn.Sequential(
            nn.Linear(lastconv_output_channels, last_channel),
            nn.Hardswish(inplace=True),
            nn.Dropout(p=dropout, inplace=True),
            nn.Linear(last_channel, num_classes),
        )
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out")
                if m.bias is not None:
                    nn.init.zeros_(m.bias)
            elif isinstance(m, (nn.BatchNorm2d, nn.GroupNorm)):
                nn.init.ones_(m.weight)
                nn.init.zeros_(m.bias)
            elif isinstance(m, nn.Linear):
                nn.init.normal_(m.weight, 0, 0.01)
                nn.init.zeros_(m.bias)

    def forward(self, x: flow.Tensor) -> flow.Tensor:
        """Classifies a batch ``(N, 3, H, W)`` into logits ``(N, num_classes)``."""
        x = flow.flatten(self.avgpool(self.features(x)), 1)
        return self.classifier(x)


def _mobilenet_v3_conf(arch: str, width_mult: float = 1.0, reduced_tail: bool = False, dilated: bool = False,
                       ) -> tuple[list[InvertedResidualConfig], int]:
    """The block table and classifier width of ``mobilenet_v3_large`` or ``mobilenet_v3_small``.

    ``reduced_tail`` halves the channels of the last stage; ``dilated`` replaces its stride
    with dilation 2 (both for dense prediction backbones).
    """
    reduce_divider = 2 if reduced_tail else 1
    dilation = 2 if dilated else 1
    bneck_conf = partial(InvertedResidualConfig, width_mult=width_mult)
    rd = reduce_divider
    if arch == "mobilenet_v3_large":
        setting = [
            bneck_conf(16, 3, 16, 16, False, "RE", 1, 1),
            bneck_conf(16, 3, 64, 24, False, "RE", 2, 1),
            bneck_conf(24, 3, 72, 24, False, "RE", 1, 1),
            bneck_conf(24, 5, 72, 40, True, "RE", 2, 1),
            bneck_conf(40, 5, 120, 40, True, "RE", 1, 1),
            bneck_conf(40, 5, 120, 40, True, "RE", 1, 1),
            bneck_conf(40, 3, 240, 80, False, "HS", 2, 1),
            bneck_conf(80, 3, 200, 80, False, "HS", 1, 1),
            bneck_conf(80, 3, 184, 80, False, "HS", 1, 1),
            bneck_conf(80, 3, 184, 80, False, "HS", 1, 1),
            bneck_conf(80, 3, 480, 112, True, "HS", 1, 1),
            bneck_conf(112, 3, 672, 112, True, "HS", 1, 1),
            bneck_conf(112, 5, 672, 160 // rd, True, "HS", 2, dilation),
            bneck_conf(160 // rd, 5, 960 // rd, 160 // rd, True, "HS", 1, dilation),
            bneck_conf(160 // rd, 5, 960 // rd, 160 // rd, True, "HS", 1, dilation),
        ]
        last_channel = 1280 // rd
    elif arch == "mobilenet_v3_small":
        setting = [
            bneck_conf(16, 3, 16, 16, True, "RE", 2, 1),
            bneck_conf(16, 3, 72, 24, False, "RE", 2, 1),
            bneck_conf(24, 3, 88, 24, False, "RE", 1, 1),
            bneck_conf(24, 5, 96, 40, True, "HS", 2, 1),
            bneck_conf(40, 5, 240, 40, True, "HS", 1, 1),
            bneck_conf(40, 5, 240, 40, True, "HS", 1, 1),
            bneck_conf(40, 5, 120, 48, True, "HS", 1, 1),
            bneck_conf(48, 5, 144, 48, True, "HS", 1, 1),
            bneck_conf(48, 5, 288, 96 // rd, True, "HS", 2, dilation),
            bneck_conf(96 // rd, 5, 576 // rd, 96 // rd, True, "HS", 1, dilation),
            bneck_conf(96 // rd, 5, 576 // rd, 96 // rd, True, "HS", 1, dilation),
        ]
        last_channel = 1024 // rd
    else:
        raise ValueError(f"Unsupported model type {arch}")
    return setting, InvertedResidualConfig.adjust_channels(last_channel, width_mult)


def _mobilenet_v3(arch: str, pretrained: bool, progress: bool, **kwargs) -> MobileNetV3:
    conf_args = {k: kwargs.pop(k) for k in ("width_mult", "reduced_tail", "dilated") if k in kwargs}
    setting, last_channel = _mobilenet_v3_conf(arch, **conf_args)
    model = MobileNetV3(setting, last_channel, **kwargs)
    if pretrained:
        load_pretrained(model, arch, progress)
    return model


@ModelCreator.register_model
def mobilenet_v3_large(pretrained: bool = False, progress: bool = True, **kwargs) -> MobileNetV3:
    """MobileNetV3-Large from "Searching for MobileNetV3" (Howard et al., 2019).

    Args:
        pretrained: load ImageNet weights from the flowvision cache.
        progress: unused (nothing is downloaded); kept for torchvision compatibility.
        **kwargs: ``width_mult``, ``reduced_tail``, ``dilated`` select the table; the rest go to
            :class:`MobileNetV3` (``num_classes=``, ``dropout=``, ...).
    """
    return _mobilenet_v3("mobilenet_v3_large", pretrained, progress, **kwargs)


@ModelCreator.register_model
def mobilenet_v3_small(pretrained: bool = False, progress: bool = True, **kwargs) -> MobileNetV3:
    """MobileNetV3-Small from "Searching for MobileNetV3"; arguments as in
    :func:`mobilenet_v3_large`."""
    return _mobilenet_v3("mobilenet_v3_small", pretrained, progress, **kwargs)
