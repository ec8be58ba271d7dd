"""Inception v3 in torchvision's layout, with its auxiliary classifier ``AuxLogits``.

The stem (``Conv2d_1a_3x3``..``Conv2d_4a_3x3`` with two max pools) is followed by the
Inception modules ``Mixed_5b``..``Mixed_7c`` (types A to E, with factorized 1xn/nx1
convolutions), global average pooling, dropout and ``fc``. The native input is 299x299
(the auxiliary classifier needs it; without ``aux_logits`` any input from 75x75 works). In
training mode with ``aux_logits`` the model returns ``InceptionOutputs(logits, aux_logits)``.
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

__all__ = ["Inception3", "InceptionOutputs", "inception_v3"]

InceptionOutputs = namedtuple("InceptionOutputs", ["logits", "aux_logits"])
InceptionOutputs.__doc__ = "Inception v3's training-mode outputs: the logits and the auxiliary logits."


class BasicConv2d(nn.Module):
    """Bias-free convolution, batch norm (eps 1e-3) and ReLU; ``**kwargs`` go to the convolution."""

    def __init__(self, in_channels: int, out_channels: int, **kwargs: Any) -> None:
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, bias=False, **kwargs)
        self.bn = nn.BatchNorm2d(out_channels, eps=0.001)

    def forward(self, x: flow.Tensor) -> flow.Tensor:
        """Returns ``relu(bn(conv(x)))``."""
        return F.relu(self.bn(self.conv(x)), inplace=True)


class InceptionA(nn.Module):
    """35x35 module: 1x1, 1x1-5x5, 1x1-3x3-3x3 and avgpool-1x1 branches."""

    def __init__(self, in_channels: int, pool_features: int) -> None:
        super().__init__()
        self.branch1x1 = BasicConv2d(in_channels, 64, kernel_size=1)
        self.branch5x5_1 = BasicConv2d(in_channels, 48, kernel_size=1)
        self.branch5x5_2 = BasicConv2d(48, 64, kernel_size=5, padding=2)
        self.branch3x3dbl_1 = BasicConv2d(in_channels, 64, kernel_size=1)
        self.branch3x3dbl_2 = BasicConv2d(64, 96, kernel_size=3, padding=1)
        self.branch3x3dbl_3 = BasicConv2d(96, 96, kernel_size=3, padding=1)
        self.branch_pool = BasicConv2d(in_channels, pool_features, kernel_size=1)

    def forward(self, x: flow.Tensor) -> flow.Tensor:
        """Concatenates the four branches along the channels."""
        branch1x1 = self.branch1x1(x)
        branch5x5 = self.branch5x5_2(self.branch5x5_1(x))
        branch3x3dbl = self.branch3x3dbl_3(self.branch3x3dbl_2(self.branch3x3dbl_1(x)))
        branch_pool = self.branch_pool(F.avg_pool2d(x, kernel_size=3, stride=1, padding=1))
        return flow.cat([branch1x1, branch5x5, branch3x3dbl, branch_pool], 1)


class InceptionB(nn.Module):
    """Grid reduction 35x35 -> 17x17: strided 3x3, 1x1-3x3-strided 3x3 and max pool."""

    def __init__(self, in_channels: int) -> None:
        super().__init__()
        self.branch3x3 = BasicConv2d(in_channels, 384, kernel_size=3, stride=2)
        self.branch3x3dbl_1 = BasicConv2d(in_channels, 64, kernel_size=1)
        self.branch3x3dbl_2 = BasicConv2d(64, 96, kernel_size=3, padding=1)
        self.branch3x3dbl_3 = BasicConv2d(96, 96, kernel_size=3, stride=2)

    def forward(self, x: flow.Tensor) -> flow.Tensor:
        """Concatenates the three branches along the channels."""
        branch3x3 = self.branch3x3(x)
        branch3x3dbl = self.branch3x3dbl_3(self.branch3x3dbl_2(self.branch3x3dbl_1(x)))
        branch_pool = F.max_pool2d(x, kernel_size=3, stride=2)
        return flow.cat([branch3x3, branch3x3dbl, branch_pool], 1)


class InceptionC(nn.Module):
    """17x17 module with 7x7 convolutions factorized into 1x7 and 7x1."""

    def __init__(self, in_channels: int, channels_7x7: int) -> None:
        super().__init__()
        c7 = channels_7x7
        self.branch1x1 = BasicConv2d(in_channels, 192, kernel_size=1)
        self.branch7x7_1 = BasicConv2d(in_channels, c7, kernel_size=1)
        self.branch7x7_2 = BasicConv2d(c7, c7, kernel_size=(1, 7), padding=(0, 3))
        self.branch7x7_3 = BasicConv2d(c7, 192, kernel_size=(7, 1), padding=(3, 0))
        self.branch7x7dbl_1 = BasicConv2d(in_channels, c7, kernel_size=1)
        self.branch7x7dbl_2 = BasicConv2d(c7, c7, kernel_size=(7, 1), padding=(3, 0))
        self.branch7x7dbl_3 = BasicConv2d(c7, c7, kernel_size=(1, 7), padding=(0, 3))
        self.branch7x7dbl_4 = BasicConv2d(c7, c7, kernel_size=(7, 1), padding=(3, 0))
        self.branch7x7dbl_5 = BasicConv2d(c7, 192, kernel_size=(1, 7), padding=(0, 3))
        self.branch_pool = BasicConv2d(in_channels, 192, kernel_size=1)

    def forward(self, x: flow.Tensor) -> flow.Tensor:
        """Concatenates the four branches along the channels."""
        branch1x1 = self.branch1x1(x)
        branch7x7 = self.branch7x7_3(self.branch7x7_2(self.branch7x7_1(x)))
        branch7x7dbl = self.branch7x7dbl_1(x)
        for layer in (self.branch7x7dbl_2, self.branch7x7dbl_3, self.branch7x7dbl_4, self.branch7x7dbl_5):
            branch7x7dbl = layer(branch7x7dbl)
        branch_pool = self.branch_pool(F.avg_pool2d(x, kernel_size=3, stride=1, padding=1))
        return flow.cat([branch1x1, branch7x7, branch7x7dbl, branch_pool], 1)


class InceptionD(nn.Module):
    """Grid reduction 17x17 -> 8x8: 1x1-strided 3x3, 1x1-1x7-7x1-strided 3x3 and max pool."""

    def __init__(self, in_channels: int) -> None:
        super().__init__()
        self.branch3x3_1 = BasicConv2d(in_channels, 192, kernel_size=1)
        self.branch3x3_2 = BasicConv2d(192, 320, kernel_size=3, stride=2)
        self.branch7x7x3_1 = BasicConv2d(in_channels, 192, kernel_size=1)
        self.branch7x7x3_2 = BasicConv2d(192, 192, kernel_size=(1, 7), padding=(0, 3))
        self.branch7x7x3_3 = BasicConv2d(192, 192, kernel_size=(7, 1), padding=(3, 0))
        self.branch7x7x3_4 = BasicConv2d(192, 192, kernel_size=3, stride=2)

    def forward(self, x: flow.Tensor) -> flow.Tensor:
        """Concatenates the three branches along the channels."""
        branch3x3 = self.branch3x3_2(self.branch3x3_1(x))
        branch7x7x3 = self.branch7x7x3_1(x)
        for layer in (self.branch7x7x3_2, self.branch7x7x3_3, self.branch7x7x3_4):
            branch7x7x3 = layer(branch7x7x3)
        branch_pool = F.max_pool2d(x, kernel_size=3, stride=2)
        return flow.cat([branch3x3, branch7x7x3, branch_pool], 1)


class InceptionE(nn.Module):
    """8x8 module whose 3x3 branches split into parallel 1x3 and 3x1 convolutions."""

    def __init__(self, in_channels: int) -> None:
        super().__init__()
        self.branch1x1 = BasicConv2d(in_channels, 320, kernel_size=1)
        self.branch3x3_1 = BasicConv2d(in_channels, 384, kernel_size=1)
        self.branch3x3_2a = BasicConv2d(384, 384, kernel_size=(1, 3), padding=(0, 1))
        self.branch3x3_2b = BasicConv2d(384, 384, kernel_size=(3, 1), padding=(1, 0))
        self.branch3x3dbl_1 = BasicConv2d(in_channels, 448, kernel_size=1)
        self.branch3x3dbl_2 = BasicConv2d(448, 384, kernel_size=3, padding=1)
        self.branch3x3dbl_3a = BasicConv2d(384, 384, kernel_size=(1, 3), padding=(0, 1))
        self.branch3x3dbl_3b = BasicConv2d(384, 384, kernel_size=(3, 1), padding=(1, 0))
        self.branch_pool = BasicConv2d(in_channels, 192, kernel_size=1)

    def forward(self, x: flow.Tensor) -> flow.Tensor:
        """Concatenates the (split) branches along the channels."""
        branch1x1 = self.branch1x1(x)
        branch3x3 = self.branch3x3_1(x)
        branch3x3 = flow.cat([self.branch3x3_2a(branch3x3), self.branch3x3_2b(branch3x3)], 1)
        branch3x3dbl = self.branch3x3dbl_2(self.branch3x3dbl_1(x))
        branch3x3dbl = flow.cat([self.branch3x3dbl_3a(branch3x3dbl), self.branch3x3dbl_3b(branch3x3dbl)], 1)
        branch_pool = self.branch_pool(F.avg_pool2d(x, kernel_size=3, stride=1, padding=1))
        return flow.cat([branch1x1, branch3x3, branch3x3dbl, branch_pool], 1)


class InceptionAux(nn.Module):
    """The auxiliary classifier on the 17x17 grid (5x5 average pool with stride 3, two convs)."""

    def __init__(self, in_channels: int, num_classes: int) -> None:
        super().__init__()
        self.conv0 = BasicConv2d(in_channels, 128, kernel_size=1)
        self.conv1 = BasicConv2d(128, 768, kernel_size=5)
        self.conv1.stddev = 0.01  # read by Inception3's weight init
        self.fc = nn.Linear(768, num_classes)
        self.fc.stddev = 0.001

    def forward(self, x: flow.Tensor) -> flow.Tensor:
        """Returns auxiliary logits ``(N, num_classes)`` from a 17x17 feature map."""
        x = F.avg_pool2d(x, kernel_size=5, stride=3)
        x = self.conv1(self.conv0(x))
        x = flow.flatten(F.adaptive_avg_pool2d(x, (1, 1)), 1)
        return self.fc(x)


class Inception3(nn.Module):
    """Inception v3.

    Args:
        num_classes: outputs of the classifiers.
        aux_logits: build the auxiliary classifier ``AuxLogits`` (used in training).
        transform_input: map inputs normalized with ImageNet statistics to the [-1, 1]
            normalization the original weights expect.
        init_weights: truncated-normal init (std 0.1, or a layer's ``stddev``) of convolutions
            and linear layers; ``None`` means ``True`` with a warning (torchvision's behaviour).
        dropout: dropout before ``fc``.
    """

    def __init__(self, num_classes: int = 1000, aux_logits: bool = True, transform_input: bool = False,
                 init_weights: bool | None = None, dropout: float = 0.5) -> None:
        super().__init__()
        if init_weights is None:
            warnings.warn("The default weight initialization of inception_v3 will be changed in future releases; "
                          "pass init_weights=True to keep the current one (truncated normal).", FutureWarning,
                          stacklevel=2)
            init_weights = True
        self.aux_logits = aux_logits
        self.transform_input = transform_input
        self.Conv2d_1a_3x3 = BasicConv2d(3, 32, kernel_size=3, stride=2)
        self.Conv2d_2a_3x3 = BasicConv2d(32, 32, kernel_size=3)
        self.Conv2d_2b_3x3 = BasicConv2d(32, 64, kernel_size=3, padding=1)
        self.maxpool1 = nn.MaxPool2d(kernel_size=3, stride=2)
        self.Conv2d_3b_1x1 = BasicConv2d(64, 80, kernel_size=1)
        self.Conv2d_4a_3x3 = BasicConv2d(80, 192, kernel_size=3)
        self.maxpool2 = nn.MaxPool2d(kernel_size=3, stride=2)
        self.Mixed_5b = InceptionA(192, pool_features=32)
        self.Mixed_5c = InceptionA(256, pool_features=64)
        self.Mixed_5d = InceptionA(288, pool_features=64)
        self.Mixed_6a = InceptionB(288)
        self.Mixed_6b = InceptionC(768, channels_7x7=128)
        self.Mixed_6c = InceptionC(768, channels_7x7=160)
        self.Mixed_6d = InceptionC(768, channels_7x7=160)
        self.Mixed_6e = InceptionC(768, channels_7x7=192)
        self.AuxLogits = InceptionAux(768, num_classes) if aux_logits else None
        self.Mixed_7a = InceptionD(768)
        self.Mixed_7b = InceptionE(1280)
        self.Mixed_7c = InceptionE(2048)
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.dropout = nn.Dropout(p=dropout)
        self.fc = nn.Linear(2048, num_classes)
        if init_weights:
            for m in self.modules():
                if isinstance(m, (nn.Conv2d, nn.Linear)):
                    stddev = float(m.stddev) if hasattr(m, "stddev") else 0.1
                    nn.init.trunc_normal_(m.weight, mean=0.0, std=stddev, a=-2, b=2)
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

    def forward(self, x: flow.Tensor) -> InceptionOutputs | flow.Tensor:
        """Logits ``(N, num_classes)``; in training mode with the auxiliary classifier,
        ``InceptionOutputs(logits, aux_logits)``."""
        x = self._transform_input(x)
        x = self.Conv2d_2b_3x3(self.Conv2d_2a_3x3(self.Conv2d_1a_3x3(x)))
        x = self.maxpool1(x)
        x = self.maxpool2(self.Conv2d_4a_3x3(self.Conv2d_3b_1x1(x)))
        for block in (self.Mixed_5b, self.Mixed_5c, self.Mixed_5d, self.Mixed_6a, self.Mixed_6b, self.Mixed_6c,
                      self.Mixed_6d, self.Mixed_6e):
            x = block(x)
        aux = self.AuxLogits(x) if self.AuxLogits is not None and self.training else None
        x = self.Mixed_7c(self.Mixed_7b(self.Mixed_7a(x)))
        x = flow.flatten(self.dropout(self.avgpool(x)), 1)
        x = self.fc(x)
        if self.training and self.aux_logits:
            return InceptionOutputs(x, aux)
        return x


@ModelCreator.register_model
def inception_v3(pretrained: bool = False, progress: bool = True, **kwargs) -> Inception3:
    """Inception v3 from "Rethinking the Inception Architecture for Computer Vision"
    (Szegedy et al., 2015); the native input size is 299x299.

    With ``pretrained=True``, ``transform_input`` defaults to ``True`` and the auxiliary
    classifier is dropped after loading unless ``aux_logits=True`` is passed, as in
    torchvision.

    Args:
        pretrained: load ImageNet weights from the flowvision cache.
        progress: unused (nothing is downloaded); kept for torchvision compatibility.
        **kwargs: passed to :class:`Inception3` (``num_classes=``, ``aux_logits=``, ...).
    """
    if not pretrained:
        return Inception3(**kwargs)
    kwargs.setdefault("transform_input", True)
    original_aux_logits = kwargs.get("aux_logits", True)
    kwargs["aux_logits"] = True
    kwargs["init_weights"] = False
    model = Inception3(**kwargs)
    load_pretrained(model, "inception_v3", progress)
    if not original_aux_logits:
        model.aux_logits = False
        model.AuxLogits = None
    return model
