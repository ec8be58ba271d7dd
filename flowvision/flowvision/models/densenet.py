"""DenseNet 121/161/169/201 in torchvision's layout.

``features`` holds the stem (``conv0``, ``norm0``, ``relu0``, ``pool0``), dense blocks
``denseblock1``..``denseblock4`` (layers ``denselayer1``... each adding ``growth_rate``
channels computed from the concatenation of everything before it), transitions
``transition1``..``transition3`` (halve channels and resolution) and ``norm5``; then ReLU,
global average pooling and ``classifier``.
"""

from __future__ import annotations

import re
import warnings
from collections import OrderedDict

import oneflow as flow
import oneflow.nn.functional as F
from flowvision.models._weights import load_pretrained
from flowvision.models.registry import ModelCreator
from oneflow import nn

# torchvision's published DenseNet checkpoints predate its current layer names: they say
# "denselayer1.norm.1.weight" where the module has "denselayer1.norm1.weight".
_LEGACY_KEY = re.compile(
    r"^(.*denselayer\d+\.(?:norm|relu|conv))\.((?:[12])\.(?:weight|bias|running_mean|running_var))$"
)

__all__ = ["DenseNet", "densenet121", "densenet161", "densenet169", "densenet201"]


class _DenseLayer(nn.Module):
    """BN-ReLU-1x1 conv (to ``bn_size * growth_rate``) then BN-ReLU-3x3 conv (to ``growth_rate``)."""

    def __init__(self, num_input_features: int, growth_rate: int, bn_size: int, drop_rate: float,
                 memory_efficient: bool = False) -> None:
        super().__init__()
        self.norm1 = nn.BatchNorm2d(num_input_features)
        self.relu1 = nn.ReLU(inplace=True)
        self.conv1 = nn.Conv2d(num_input_features, bn_size * growth_rate, kernel_size=1, stride=1, bias=False)
        self.norm2 = nn.BatchNorm2d(bn_size * growth_rate)
        self.relu2 = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv2d(bn_size * growth_rate, growth_rate, kernel_size=3, stride=1, padding=1, bias=False)
        self.drop_rate = float(drop_rate)
        self.memory_efficient = memory_efficient

    def forward(self, features: list[flow.Tensor] | flow.Tensor) -> flow.Tensor:
        """Computes the new ``growth_rate`` channels from all previous feature maps."""
        if isinstance(features, flow.Tensor):
            features = [features]
        x = flow.cat(features, 1)
        x = self.conv1(self.relu1(self.norm1(x)))
        x = self.conv2(self.relu2(self.norm2(x)))
        if self.drop_rate > 0:
            x = F.dropout(x, p=self.drop_rate, training=self.training)
        return x


class _DenseBlock(nn.ModuleDict):
    """``num_layers`` dense layers; returns the input concatenated with every layer's output."""

    def __init__(self, num_layers: int, num_input_features: int, bn_size: int, growth_rate: int,
                 drop_rate: float, memory_efficient: bool = False) -> None:
        super().__init__()
        for i in range(num_layers):
            layer = _DenseLayer(num_input_features + i * growth_rate, growth_rate=growth_rate, bn_size=bn_size,
                                drop_rate=drop_rate, memory_efficient=memory_efficient)
            self.add_module(f"denselayer{i + 1}", layer)

    def forward(self, init_features: flow.Tensor) -> flow.Tensor:
        """Runs the layers, each on the concatenation of all earlier outputs."""
        features = [init_features]
        for _, layer in self.items():
            features.append(layer(features))
        return flow.cat(features, 1)


class _Transition(nn.Sequential):
    """BN-ReLU-1x1 conv to ``num_output_features``, then 2x2 average pooling."""

    def __init__(self, num_input_features: int, num_output_features: int) -> None:
        super().__init__()
        self.norm = nn.BatchNorm2d(num_input_features)
        self.relu = nn.ReLU(inplace=True)
        self.conv = nn.Conv2d(num_input_features, num_output_features, kernel_size=1, stride=1, bias=False)
        self.pool = nn.AvgPool2d(kernel_size=2, stride=2)


class DenseNet(nn.Module):
    """Densely connected convolutional network.

    Args:
        growth_rate: channels each dense layer adds (``k`` in the paper).
        block_config: the number of layers in each of the four dense blocks.
        num_init_features: output channels of the stem convolution.
        bn_size: bottleneck width multiplier (the 1x1 convolution has ``bn_size * k`` outputs).
        drop_rate: dropout after each dense layer.
        num_classes: outputs of the classifier.
        memory_efficient: torchvision recomputes the concatenations in the backward pass to
            save memory; oneflow has no activation checkpointing, so ``True`` warns and runs the
            ordinary (numerically identical) computation.
    """

    def __init__(self, growth_rate: int = 32, block_config: tuple[int, int, int, int] = (6, 12, 24, 16),
                 num_init_features: int = 64, bn_size: int = 4, drop_rate: float = 0, num_classes: int = 1000,
                 memory_efficient: bool = False) -> None:
        super().__init__()
        if memory_efficient:
            warnings.warn("DenseNet(memory_efficient=True): oneflow has no activation checkpointing "
                          "(oneflow.utils.checkpoint); running without it", stacklevel=2)
        self.features = nn.Sequential(OrderedDict([
            ("conv0", nn.Conv2d(3, num_init_features, kernel_size=7, stride=2, padding=3, bias=False)),
            ("norm0", nn.BatchNorm2d(num_init_features)),
            ("relu0", nn.ReLU(inplace=True)),
            ("pool0", nn.MaxPool2d(kernel_size=3, stride=2, padding=1)),
        ]))
        num_features = num_init_features
        for i, num_layers in enumerate(block_config):
            block = _DenseBlock(num_layers=num_layers, num_input_features=num_features, bn_size=bn_size,
                                growth_rate=growth_rate, drop_rate=drop_rate, memory_efficient=memory_efficient)
            self.features.add_module(f"denseblock{i + 1}", block)
            num_features = num_features + num_layers * growth_rate
            if i != len(block_config) - 1:
                trans = _Transition(num_input_features=num_features, num_output_features=num_features // 2)
                self.features.add_module(f"transition{i + 1}", trans)
                num_features = num_features // 2
        self.features.add_module("norm5", nn.BatchNorm2d(num_features))
        self.classifier = nn.Linear(num_features, num_classes)

        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight)
            elif isinstance(m, nn.BatchNorm2d):
                nn.init.constant_(m.weight, 1)
                nn.init.constant_(m.bias, 0)
            elif isinstance(m, nn.Linear):
                nn.init.constant_(m.bias, 0)

    def _load_from_state_dict(self, state_dict: dict, prefix: str, local_metadata: dict, strict: bool,
                              missing_keys: list, unexpected_keys: list, error_msgs: list) -> None:
        # Renames legacy keys in place; the children's state dicts are taken from this one.
        for key in list(state_dict):
            match = _LEGACY_KEY.match(key)
            if match and key.startswith(prefix):
                state_dict[match.group(1) + match.group(2)] = state_dict.pop(key)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                      error_msgs)

    def forward(self, x: flow.Tensor) -> flow.Tensor:
        """Classifies a batch ``(N, 3, H, W)`` into logits ``(N, num_classes)``."""
        out = F.relu(self.features(x), inplace=True)
        out = flow.flatten(F.adaptive_avg_pool2d(out, (1, 1)), 1)
        return self.classifier(out)


def _densenet(name: str, growth_rate: int, block_config: tuple[int, int, int, int], num_init_features: int,
              pretrained: bool, progress: bool, **kwargs) -> DenseNet:
    model = DenseNet(growth_rate, block_config, num_init_features, **kwargs)
    if pretrained:
        load_pretrained(model, name, progress)
    return model


@ModelCreator.register_model
def densenet121(pretrained: bool = False, progress: bool = True, **kwargs) -> DenseNet:
    """DenseNet-121 from "Densely Connected Convolutional Networks" (Huang et al., 2016).

    Args:
        pretrained: load ImageNet weights from the flowvision cache.
        progress: unused (nothing is downloaded); kept for torchvision compatibility.
        **kwargs: passed to :class:`DenseNet` (``num_classes=``, ``drop_rate=``, ...).
    """
    return _densenet("densenet121", 32, (6, 12, 24, 16), 64, pretrained, progress, **kwargs)


@ModelCreator.register_model
def densenet161(pretrained: bool = False, progress: bool = True, **kwargs) -> DenseNet:
    """DenseNet-161 (growth rate 48, 96 stem channels); arguments as in :func:`densenet121`."""
    return _densenet("densenet161", 48, (6, 12, 36, 24), 96, pretrained, progress, **kwargs)


@ModelCreator.register_model
def densenet169(pretrained: bool = False, progress: bool = True, **kwargs) -> DenseNet:
    """DenseNet-169; arguments as in :func:`densenet121`."""
    return _densenet("densenet169", 32, (6, 12, 32, 32), 64, pretrained, progress, **kwargs)


@ModelCreator.register_model
def densenet201(pretrained: bool = False, progress: bool = True, **kwargs) -> DenseNet:
    """DenseNet-201; arguments as in :func:`densenet121`."""
    return _densenet("densenet201", 32, (6, 12, 48, 32), 64, pretrained, progress, **kwargs)
