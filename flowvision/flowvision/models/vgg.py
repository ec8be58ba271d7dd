"""VGG 11/13/16/19, with and without batch norm, in torchvision's layout.

``features`` is one ``Sequential`` of 3x3 convolutions (each followed by batch norm in the
``_bn`` variants, then ReLU) and 2x2 max pools; ``avgpool`` pools to 7x7; ``classifier`` is
three linear layers with ReLU and dropout. Indices inside ``features``/``classifier`` match
torchvision, so converted checkpoints load unchanged.
"""

from __future__ import annotations

import oneflow as flow
from flowvision.models._weights import load_pretrained
from flowvision.models.registry import ModelCreator
from oneflow import nn

__all__ = ["VGG", "vgg11", "vgg11_bn", "vgg13", "vgg13_bn", "vgg16", "vgg16_bn", "vgg19", "vgg19_bn"]

# Output channels of each 3x3 convolution; "M" is a 2x2 max pool. Configurations A, B, D, E of
# the paper (VGG 11, 13, 16, 19).
_CFGS: dict[str, list[int | str]] = {
    "A": [64, "M", 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"],
    "B": [64, 64, "M", 128, 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"],
    "D": [64, 64, "M", 128, 128, "M", 256, 256, 256, "M", 512, 512, 512, "M", 512, 512, 512, "M"],
    "E": [64, 64, "M", 128, 128, "M", 256, 256, 256, 256, "M", 512, 512, 512, 512, "M", 512, 512, 512, 512, "M"],
}


class VGG(nn.Module):
    """A VGG network around a given feature extractor.

    Args:
        features: the convolutional part (see :func:`make_layers`), ending with 512 channels.
        num_classes: outputs of the classifier.
        init_weights: initialize like torchvision (Kaiming-normal convolutions, N(0, 0.01)
            linear layers, zero biases); ``False`` keeps the layers' default initialization.
        dropout: dropout probability in the classifier.
    """

    def __init__(self, features: nn.Module, num_classes: int = 1000, init_weights: bool = True,
                 dropout: float = 0.5) -> None:
        super().__init__()
        self.features = features
        self.avgpool = nn.AdaptiveAvgPool2d((7, 7))
        self.classifier = nn.Sequential(
            nn.Linear(512 * 7 * 7, 4096),
            nn.ReLU(True),
            nn.Dropout(p=dropout),
            nn.Linear(4096, 4096),
            nn.ReLU(True),
            nn.Dropout(p=dropout),
            nn.Linear(4096, num_classes),
        )
        if init_weights:
            for m in self.modules():
                if isinstance(m, nn.Conv2d):
                    nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
                    if m.bias is not None:
                        nn.init.constant_(m.bias, 0)
                elif isinstance(m, nn.BatchNorm2d):
                    nn.init.constant_(m.weight, 1)
                    nn.init.constant_(m.bias, 0)
                elif isinstance(m, nn.Linear):
                    nn.init.normal_(m.weight, 0, 0.01)
                    nn.init.constant_(m.bias, 0)

    def forward(self, x: flow.Tensor) -> flow.Tensor:
        """Classifies a batch ``(N, 3, H, W)`` into logits ``(N, num_classes)``."""
        x = self.avgpool(self.features(x))
        return self.classifier(flow.flatten(x, 1))


def make_layers(cfg: list[int | str], batch_norm: bool = False) -> nn.Sequential:
    """Builds VGG's ``features`` from a configuration list (channel counts and ``"M"`` pools)."""
    layers: list[nn.Module] = []
    in_channels = 3
    for v in cfg:
        if v == "M":
            layers.append(nn.MaxPool2d(kernel_size=2, stride=2))
            continue
        layers.append(nn.Conv2d(in_channels, v, kernel_size=3, padding=1))
        if batch_norm:
            layers.append(nn.BatchNorm2d(v))
        layers.append(nn.ReLU(inplace=True))
        in_channels = v
    return nn.Sequential(*layers)


def _vgg(name: str, cfg: str, batch_norm: bool, pretrained: bool, progress: bool, **kwargs) -> VGG:
    if pretrained:
        kwargs["init_weights"] = False
    model = VGG(make_layers(_CFGS[cfg], batch_norm=batch_norm), **kwargs)
    if pretrained:
        load_pretrained(model, name, progress)
    return model


@ModelCreator.register_model
def vgg11(pretrained: bool = False, progress: bool = True, **kwargs) -> VGG:
    """VGG-11 (configuration A) from "Very Deep Convolutional Networks for Large-Scale Image
    Recognition" (Simonyan & Zisserman, 2014).

    Args:
        pretrained: load ImageNet weights from the flowvision cache.
        progress: unused (nothing is downloaded); kept for torchvision compatibility.
        **kwargs: passed to :class:`VGG` (``num_classes=``, ``dropout=``, ...).
    """
    return _vgg("vgg11", "A", False, pretrained, progress, **kwargs)


@ModelCreator.register_model
def vgg11_bn(pretrained: bool = False, progress: bool = True, **kwargs) -> VGG:
    """VGG-11 with batch norm after every convolution; arguments as in :func:`vgg11`."""
    return _vgg("vgg11_bn", "A", True, pretrained, progress, **kwargs)


@ModelCreator.register_model
def vgg13(pretrained: bool = False, progress: bool = True, **kwargs) -> VGG:
    """VGG-13 (configuration B); arguments as in :func:`vgg11`."""
    return _vgg("vgg13", "B", False, pretrained, progress, **kwargs)


@ModelCreator.register_model
def vgg13_bn(pretrained: bool = False, progress: bool = True, **kwargs) -> VGG:
    """VGG-13 with batch norm; arguments as in :func:`vgg11`."""
    return _vgg("vgg13_bn", "B", True, pretrained, progress, **kwargs)


@ModelCreator.register_model
def vgg16(pretrained: bool = False, progress: bool = True, **kwargs) -> VGG:
    """VGG-16 (configuration D); arguments as in :func:`vgg11`."""
    return _vgg("vgg16", "D", False, pretrained, progress, **kwargs)


@ModelCreator.register_model
def vgg16_bn(pretrained: bool = False, progress: bool = True, **kwargs) -> VGG:
    """VGG-16 with batch norm; arguments as in :func:`vgg11`."""
    return _vgg("vgg16_bn", "D", True, pretrained, progress, **kwargs)


@ModelCreator.register_model
def vgg19(pretrained: bool = False, progress: bool = True, **kwargs) -> VGG:
    """VGG-19 (configuration E); arguments as in :func:`vgg11`."""
    return _vgg("vgg19", "E", False, pretrained, progress, **kwargs)


@ModelCreator.register_model
def vgg19_bn(pretrained: bool = False, progress: bool = True, **kwargs) -> VGG:
    """VGG-19 with batch norm; arguments as in :func:`vgg11`."""
    return _vgg("vgg19_bn", "E", True, pretrained, progress, **kwargs)
