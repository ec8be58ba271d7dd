"""SqueezeNet 1.0 and 1.1 in torchvision's layout.

``features`` stacks "Fire" modules (a 1x1 squeeze convolution feeding parallel 1x1 and 3x3
expand convolutions whose outputs are concatenated) between ceil-mode max pools; the
classifier is dropout, a 1x1 convolution to ``num_classes`` channels, ReLU and global
average pooling.
"""

from __future__ import annotations

import oneflow as flow
from flowvision.models._weights import load_pretrained
from flowvision.models.registry import ModelCreator
from oneflow import nn

__all__ = ["Fire", "SqueezeNet", "squeezenet1_0", "squeezenet1_1"]


class Fire(nn.Module):
    """A Fire module: squeeze to ``squeeze_planes`` channels, expand to
    ``expand1x1_planes + expand3x3_planes`` channels."""

    def __init__(self, inplanes: int, squeeze_planes: int, expand1x1_planes: int, expand3x3_planes: int) -> None:
        super().__init__()
        self.inplanes = inplanes
        self.squeeze = nn.Conv2d(inplanes, squeeze_planes, kernel_size=1)
        self.squeeze_activation = nn.ReLU(inplace=True)
        self.expand1x1 = nn.Conv2d(squeeze_planes, expand1x1_planes, kernel_size=1)
        self.expand1x1_activation = nn.ReLU(inplace=True)
        self.expand3x3 = nn.Conv2d(squeeze_planes, expand3x3_planes, kernel_size=3, padding=1)
        self.expand3x3_activation = nn.ReLU(inplace=True)

    def forward(self, x: flow.Tensor) -> flow.Tensor:
        """Squeezes, then concatenates both expansions along the channels."""
        x = self.squeeze_activation(self.squeeze(x))
        return flow.cat([self.expand1x1_activation(self.expand1x1(x)),
                         self.expand3x3_activation(self.expand3x3(x))], 1)


class SqueezeNet(nn.Module):
    """SqueezeNet.

    Args:
        version: ``"1_0"`` (the paper's) or ``"1_1"`` (2.4x less computation, same accuracy).
        num_classes: outputs of the classifier.
        dropout: dropout probability before the final convolution.
    """

    def __init__(self, version: str = "1_0", num_classes: int = 1000, dropout: float = 0.5) -> None:
        super().__init__()
        self.num_classes = num_classes
        if version == "1_0":
            self.features = nn.Sequential(
                nn.Conv2d(3, 96, kernel_size=7, stride=2),
                nn.ReLU(inplace=True),
                nn.MaxPool2d(kernel_size=3, stride=2, ceil_mode=True),
                Fire(96, 16, 64, 64),
                Fire(128, 16, 64, 64),
                Fire(128, 32, 128, 128),
                nn.MaxPool2d(kernel_size=3, stride=2, ceil_mode=True),
                Fire(256, 32, 128, 128),
                Fire(256, 48, 192, 192),
                Fire(384, 48, 192, 192),
                Fire(384, 64, 256, 256),
                nn.MaxPool2d(kernel_size=3, stride=2, ceil_mode=True),
                Fire(512, 64, 256, 256),
            )
        elif version == "1_1":
            self.features = nn.Sequential(
                nn.Conv2d(3, 64, kernel_size=3, stride=2),
                nn.ReLU(inplace=True),
                nn.MaxPool2d(kernel_size=3, stride=2, ceil_mode=True),
                Fire(64, 16, 64, 64),
                Fire(128, 16, 64, 64),
                nn.MaxPool2d(kernel_size=3, stride=2, ceil_mode=True),
                Fire(128, 32, 128, 128),
                Fire(256, 32, 128, 128),
                nn.MaxPool2d(kernel_size=3, stride=2, ceil_mode=True),
                Fire(256, 48, 192, 192),
                Fire(384, 48, 192, 192),
                Fire(384, 64, 256, 256),
                Fire(512, 64, 256, 256),
            )
        else:
            raise ValueError(f"Unsupported SqueezeNet version {version}: 1_0 or 1_1 expected")
        final_conv = nn.Conv2d(512, self.num_classes, kernel_size=1)
        self.classifier = nn.Sequential(nn.Dropout(p=dropout), final_conv, nn.ReLU(inplace=True),
                                        nn.AdaptiveAvgPool2d((1, 1)))
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                if m is final_conv:
                    nn.init.normal_(m.weight, mean=0.0, std=0.01)
                else:
                    nn.init.kaiming_uniform_(m.weight)
                if m.bias is not None:
                    nn.init.constant_(m.bias, 0)

    def forward(self, x: flow.Tensor) -> flow.Tensor:
        """Classifies a batch ``(N, 3, H, W)`` into logits ``(N, num_classes)``."""
        return flow.flatten(self.classifier(self.features(x)), 1)


def _squeezenet(version: str, pretrained: bool, progress: bool, **kwargs) -> SqueezeNet:
    model = SqueezeNet(version, **kwargs)
    if pretrained:
        load_pretrained(model, "squeezenet" + version, progress)
    return model


@ModelCreator.register_model
def squeezenet1_0(pretrained: bool = False, progress: bool = True, **kwargs) -> SqueezeNet:
    """SqueezeNet 1.0 from "SqueezeNet: AlexNet-level accuracy with 50x fewer parameters and
    <0.5MB model size" (Iandola et al., 2016).

    Args:
        pretrained: load ImageNet weights from the flowvision cache.
        progress: unused (nothing is downloaded); kept for torchvision compatibility.
        **kwargs: passed to :class:`SqueezeNet` (``num_classes=``, ``dropout=``).
    """
    return _squeezenet("1_0", pretrained, progress, **kwargs)


@ModelCreator.register_model
def squeezenet1_1(pretrained: bool = False, progress: bool = True, **kwargs) -> SqueezeNet:
    """SqueezeNet 1.1 (from the SqueezeNet repository): fewer early channels and earlier
    pooling; arguments as in :func:`squeezenet1_0`."""
    return _squeezenet("1_1", pretrained, progress, **kwargs)
