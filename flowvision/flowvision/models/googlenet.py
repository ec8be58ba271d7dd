"""GoogLeNet (Inception v1) in torchvision's layout, with its two auxiliary classifiers.

Every convolution is a ``BasicConv2d`` (bias-free conv, batch norm with eps 1e-3, ReLU).
Inception modules ``inception3a``..``inception5b`` concatenate four branches. As in
torchvision, the "5x5" branch uses a 3x3 kernel (the published weights were trained so).
In training mode with ``aux_logits`` the model returns ``GoogLeNetOutputs(logits,
aux_logits2, aux_logits1)``; otherwise the logits alone.
"""

from __future__ import annotations

import warnings
from collections import namedtuple
from typing import Any

import oneflow as flow
import oneflow.nn.functional as F
from flowvision.models._weights import load_pretrained
from flowvision.models.registry import ModelCreator
from oneflow import nn

__all__ = ["GoogLeNet", "GoogLeNetOutputs", "googlenet"]

GoogLeNetOutputs = namedtuple("GoogLeNetOutputs", ["logits", "aux_logits2", "aux_logits1"])
GoogLeNetOutputs.__doc__ = "GoogLeNet's training-mode outputs: the logits and both auxiliary logits."


class BasicConv2d(nn.Module):
    """Bias-free convolution, batch norm (eps 1e-3) and ReLU; ``**kwargs`` go to the convolution."""

    def __init__(self, in_channels: int, out_channels: int, **kwargs: Any) -> None:
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, bias=False, **kwargs)
        self.bn = nn.BatchNorm2d(out_channels, eps=0.001)

    def forward(self, x: flow.Tensor) -> flow.Tensor:
        """Returns ``relu(bn(conv(x)))``."""
        return F.relu(self.bn(self.conv(x)), inplace=True)


class Inception(nn.Module):
    """An Inception module: 1x1, 1x1-3x3, 1x1-3x3 and maxpool-1x1 branches, concatenated."""

    def __init__(self, in_channels: int, ch1x1: int, ch3x3red: int, ch3x3: int, ch5x5red: int, ch5x5: int,
                 pool_proj: int) -> None:
        super().__init__()
        self.branch1 = BasicConv2d(in_channels, ch1x1, kernel_size=1)
        self.branch2 = nn.Sequential(BasicConv2d(in_channels, ch3x3red, kernel_size=1),
                                     BasicConv2d(ch3x3red, ch3x3, kernel_size=3, padding=1))
        self.branch3 = nn.Sequential(BasicConv2d(in_channels, ch5x5red, kernel_size=1),
                                     BasicConv2d(ch5x5red, ch5x5, kernel_size=3, padding=1))
        self.branch4 = nn.Sequential(nn.MaxPool2d(kernel_size=3, stride=1, padding=1, ceil_mode=True),
                                     BasicConv2d(in_channels, pool_proj, kernel_size=1))

    def forward(self, x: flow.Tensor) -> flow.Tensor:
        """Concatenates the four branches along the channels."""
        return flow.cat([self.branch1(x), self.branch2(x), self.branch3(x), self.branch4(x)], 1)


class InceptionAux(nn.Module):
    """An auxiliary classifier: 4x4 average pool, 1x1 conv to 128, two linear layers."""

    def __init__(self, in_channels: int, num_classes: int, dropout: float = 0.7) -> None:
        super().__init__()
        self.conv = BasicConv2d(in_channels, 128, kernel_size=1)
        self.fc1 = nn.Linear(2048, 1024)
        self.fc2 = nn.Linear(1024, num_classes)
        self.dropout = nn.Dropout(p=dropout)

    def forward(self, x: flow.Tensor) -> flow.Tensor:
        """Returns auxiliary logits ``(N, num_classes)``."""
        x = self.conv(F.adaptive_avg_pool2d(x, (4, 4)))
        x = F.relu(self.fc1(flow.flatten(x, 1)), inplace=True)
        return self.fc2(self.dropout(x))


class GoogLeNet(nn.Module):
    """GoogLeNet.

    Args:
        num_classes: outputs of the classifiers.
        aux_logits: build the auxiliary classifiers ``aux1``/``aux2`` (used in training).
        transform_input: map inputs normalized with ImageNet statistics to the [-1, 1]
            normalization the original weights expect.
        init_weights: truncated-normal (std 0.01) init of convolutions and linear layers;
            ``None`` means ``True`` with a warning (torchvision's behaviour).
        dropout: dropout before the final classifier.
        dropout_aux: dropout in the auxiliary classifiers.
    """

    def __init__(self, num_classes: int = 1000, aux_logits: bool = True, transform_input: bool = False,
                 init_weights: bool | None = None, dropout: float = 0.2, dropout_aux: float = 0.7) -> None:
        super().__init__()
        if init_weights is None:
            warnings.warn("The default weight initialization of GoogleNet will be changed in future releases; "
                          "pass init_weights=True to keep the current one (truncated normal).", FutureWarning,
                          stacklevel=2)
            init_weights = True
        self.aux_logits = aux_logits
        self.transform_input = transform_input

        self.conv1 = BasicConv2d(3, 64, kernel_size=7, stride=2, padding=3)
        self.maxpool1 = nn.MaxPool2d(3, stride=2, ceil_mode=True)
        self.conv2 = BasicConv2d(64, 64, kernel_size=1)
        self.conv3 = BasicConv2d(64, 192, kernel_size=3, padding=1)
        self.maxpool2 = nn.MaxPool2d(3, stride=2, ceil_mode=True)

        self.inception3a = Inception(192, 64, 96, 128, 16, 32, 32)
        self.inception3b = Inception(256, 128, 128, 192, 32, 96, 64)
        self.maxpool3 = nn.MaxPool2d(3, stride=2, ceil_mode=True)

        self.inception4a = Inception(480, 192, 96, 208, 16, 48, 64)
        self.inception4b = Inception(512, 160, 112, 224, 24, 64, 64)
        self.inception4c = Inception(512, 128, 128, 256, 24, 64, 64)
        self.inception4d = Inception(512, 112, 144, 288, 32, 64, 64)
        self.inception4e = Inception(528, 256, 160, 320, 32, 128, 128)
        self.maxpool4 = nn.MaxPool2d(2, stride=2, ceil_mode=True)

        self.inception5a = Inception(832, 256, 160, 320, 32, 128, 128)
        self.inception5b = Inception(832, 384, 192, 384, 48, 128, 128)

        if aux_logits:
            self.aux1 = InceptionAux(512, num_classes, dropout=dropout_aux)
            self.aux2 = InceptionAux(528, num_classes, dropout=dropout_aux)
        else:
            self.aux1 = None
            self.aux2 = None

        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.dropout = nn.Dropout(p=dropout)
        self.fc = nn.Linear(1024, num_classes)

        if init_weights:
            for m in self.modules():
                if isinstance(m, (nn.Conv2d, nn.Linear)):
                    nn.init.trunc_normal_(m.weight, mean=0.0, std=0.01, a=-2, b=2)
                elif isinstance(m, nn.BatchNorm2d):
                    nn.init.constant_(m.weight, 1)
                    nn.init.constant_(m.bias, 0)

    def _transform_input(self, x: flow.Tensor) -> flow.Tensor:
        if not self.transform_input:
            return x
        # (x * std + mean - 0.5) / 0.5 per channel: ImageNet normalization -> [-1, 1].
        mean, std = (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)
        channels = [flow.unsqueeze(x[:, c], 1) * (std[c] / 0.5) + (mean[c] - 0.5) / 0.5 for c in range(3)]
        return flow.cat(channels, 1)

    def forward(self, x: flow.Tensor) -> GoogLeNetOutputs | flow.Tensor:
        """Logits ``(N, num_classes)``; in training mode with auxiliary classifiers,
        ``GoogLeNetOutputs(logits, aux_logits2, aux_logits1)``."""
        x = self._transform_input(x)
        x = self.maxpool1(self.conv1(x))
        x = self.maxpool2(self.conv3(self.conv2(x)))
        x = self.maxpool3(self.inception3b(self.inception3a(x)))
        x = self.inception4a(x)
        aux1 = self.aux1(x) if self.aux1 is not None and self.training else None
        x = self.inception4d(self.inception4c(self.inception4b(x)))
        aux2 = self.aux2(x) if self.aux2 is not None and self.training else None
        x = self.maxpool4(self.inception4e(x))
        x = self.inception5b(self.inception5a(x))
        x = self.fc(self.dropout(flow.flatten(self.avgpool(x), 1)))
        if self.training and self.aux_logits:
            return GoogLeNetOutputs(x, aux2, aux1)
        return x


@ModelCreator.register_model
def googlenet(pretrained: bool = False, progress: bool = True, **kwargs) -> GoogLeNet:
    """GoogLeNet from "Going Deeper with Convolutions" (Szegedy et al., 2014).

    With ``pretrained=True``, ``transform_input`` defaults to ``True`` and the auxiliary
    classifiers are dropped after loading unless ``aux_logits=True`` is passed (they are not
    trained in the published weights), as in torchvision.

    Args:
        pretrained: load ImageNet weights from the flowvision cache.
        progress: unused (nothing is downloaded); kept for torchvision compatibility.
        **kwargs: passed to :class:`GoogLeNet` (``num_classes=``, ``aux_logits=``, ...).
    """
    if not pretrained:
        return GoogLeNet(**kwargs)
    kwargs.setdefault("transform_input", True)
    original_aux_logits = kwargs.get("aux_logits", False)
    kwargs["aux_logits"] = True
    kwargs["init_weights"] = False
    model = GoogLeNet(**kwargs)
    load_pretrained(model, "googlenet", progress)
    if not original_aux_logits:
        model.aux_logits = False
        model.aux1 = None
        model.aux2 = None
    return model
