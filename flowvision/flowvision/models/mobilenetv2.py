"""MobileNetV2 in torchvision's layout.

``features`` is a stem ``Conv2dNormActivation`` (3x3, stride 2, ReLU6), a series of
inverted residual blocks (1x1 expansion, 3x3 depthwise, linear 1x1 projection, each block's
layers in ``conv``) and a final 1x1 ``Conv2dNormActivation`` to ``last_channel``;
``classifier`` is dropout and a linear layer.
"""

from __future__ import annotations

from collections.abc import Callable

import oneflow as flow
from flowvision.models._cnn_blocks import Conv2dNormActivation, _make_divisible
from flowvision.models._weights import load_pretrained
from flowvision.models.registry import ModelCreator
from oneflow import nn

__all__ = ["MobileNetV2", "mobilenet_v2"]


class InvertedResidual(nn.Module):
    """Expand (1x1, unless ``expand_ratio == 1``), depthwise 3x3, project (1x1, no activation);
    residual when the stride is 1 and the channel count is unchanged."""

    def __init__(self, inp: int, oup: int, stride: int, expand_ratio: int,
                 norm_layer: Callable[..., nn.Module] | None = None) -> None:
        super().__init__()
        if stride not in (1, 2):
            raise ValueError(f"stride should be 1 or 2 instead of {stride}")
        if norm_layer is None:
            norm_layer = nn.BatchNorm2d
        self.stride = stride
        hidden_dim = int(round(inp * expand_ratio))
        self.use_res_connect = stride == 1 and inp == oup
        layers: list[nn.Module] = []
        if expand_ratio != 1:
            layers.append(Conv2dNormActivation(inp, hidden_dim, kernel_size=1, norm_layer=norm_layer,
                                               activation_layer=nn.ReLU6))
        layers += [
            Conv2dNormActivation(hidden_dim, hidden_dim, stride=stride, groups=hidden_dim, norm_layer=norm_layer,
                                 activation_layer=nn.ReLU6),
            nn.Conv2d(hidden_dim, oup, 1, 1, 0, bias=False),
            norm_layer(oup),
        ]
        self.conv = nn.Sequential(*layers)
        self.out_channels = oup
        self._is_cn = stride > 1

    def forward(self, x: flow.Tensor) -> flow.Tensor:
        """Returns the block's output (plus ``x`` when residual)."""
        if self.use_res_connect:
            return x + self.conv(x)
        return self.conv(x)


class MobileNetV2(nn.Module):
    """MobileNetV2.

    Args:
        num_classes: outputs of the classifier.
        width_mult: channel multiplier.
        inverted_residual_setting: rows ``[t, c, n, s]`` (expansion, channels, repeats,
            first stride); the paper's by default.
        round_nearest: channel counts are rounded to a multiple of this.
        block: the block class (``InvertedResidual`` by default).
        norm_layer: the norm constructor (``BatchNorm2d`` by default).
        dropout: dropout before the linear classifier.
    """

    def __init__(self, num_classes: int = 1000, width_mult: float = 1.0,
                 inverted_residual_setting: list[list[int]] | None = None, round_nearest: int = 8,
                 block: Callable[..., nn.Module] | None = None,
                 norm_layer: Callable[..., nn.Module] | None = None, dropout: float = 0.2) -> None:
        super().__init__()
        if block is None:
            block = InvertedResidual
        if norm_layer is None:
            norm_layer = nn.BatchNorm2d
        input_channel = 32
        last_channel = 1280
        if inverted_residual_setting is None:
            inverted_residual_setting = [
                [1, 16, 1, 1],
                [6, 24, 2, 2],
                [6, 32, 3, 2],
                [6, 64, 4, 2],
                [6, 96, 3, 1],
                [6, 160, 3, 2],
                [6, 320, 1, 1],
            ]
        if len(inverted_residual_setting) == 0 or len(inverted_residual_setting[0]) != 4:
            raise ValueError("inverted_residual_setting should be non-empty and a 4-element list, "
                             f"got {inverted_residual_setting}")
        input_channel = _make_divisible(input_channel * width_mult, round_nearest)
        self.last_channel = _make_divisible(last_channel * max(1.0, width_mult), round_nearest)
        features: list[nn.Module] = [Conv2dNormActivation(3, input_channel, stride=2, norm_layer=norm_layer,
                                                          activation_layer=nn.ReLU6)]
        for t, c, n, s in inverted_residual_setting:
            output_channel = _make_divisible(c * width_mult, round_nearest)
            for i in range(n):
                features.append(block(input_channel, output_channel, s if i == 0 else 1, expand_ratio=t,
                                      norm_layer=norm_layer))
                input_channel = output_channel
        features.append(Conv2dNormActivation(input_channel, self.last_channel, kernel_size=1, norm_layer=norm_layer,
                                             activation_layer=nn.ReLU6))
        self.features = nn.Sequential(*features)
        self.classifier = nn.Sequential(nn.Dropout(p=dropout), nn.Linear(self.last_channel, num_classes))

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
        x = self.features(x)
        x = flow.flatten(nn.functional.adaptive_avg_pool2d(x, (1, 1)), 1)
        return self.classifier(x)


@ModelCreator.register_model
def mobilenet_v2(pretrained: bool = False, progress: bool = True, **kwargs) -> MobileNetV2:
    """MobileNetV2 from "MobileNetV2: Inverted Residuals and Linear Bottlenecks" (Sandler et al.,
    2018).

    Args:
        pretrained: load ImageNet weights from the flowvision cache.
        progress: unused (nothing is downloaded); kept for torchvision compatibility.
        **kwargs: passed to :class:`MobileNetV2` (``num_classes=``, ``width_mult=``, ...).
    """
    model = MobileNetV2(**kwargs)
    if pretrained:
        load_pretrained(model, "mobilenet_v2", progress)
    return model
