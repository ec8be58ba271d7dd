"""ResNet, ResNeXt and Wide ResNet with torchvision's module structure and parameter names.

A stem (7x7 convolution, batch norm, ReLU, 3x3 max pool), four stages ``layer1``..``layer4``
of residual blocks, global average pooling and a linear classifier ``fc``. Blocks are
``BasicBlock`` (two 3x3 convolutions; ResNet-18/34) or ``Bottleneck`` (1x1, 3x3, 1x1 with
4x expansion; the others, grouped for ResNeXt and wider for Wide ResNet). The stride of a
bottleneck sits on its 3x3 convolution (ResNet v1.5), as in torchvision.
"""

from __future__ import annotations

from collections.abc import Callable

import oneflow as flow
from flowvision.models._cnn_blocks import _overwrite_named_param
from flowvision.models._weights import load_pretrained
from flowvision.models.registry import ModelCreator
from oneflow import nn

__all__ = [
    "BasicBlock",
    "Bottleneck",
    "ResNet",
    "resnet18",
    "resnet34",
    "resnet50",
    "resnet101",
    "resnet152",
    "resnext50_32x4d",
    "resnext101_32x8d",
    "resnext101_64x4d",
    "wide_resnet50_2",
    "wide_resnet101_2",
]


def conv3x3(in_planes: int, out_planes: int, stride: int = 1, groups: int = 1, dilation: int = 1) -> nn.Conv2d:
    """A bias-free 3x3 convolution that keeps the spatial size at stride 1."""
    return nn.Conv2d(in_planes, out_planes, kernel_size=3, stride=stride, padding=dilation, groups=groups,
                     bias=False, dilation=dilation)


def conv1x1(in_planes: int, out_planes: int, stride: int = 1) -> nn.Conv2d:
    """A bias-free 1x1 convolution."""
    return nn.Conv2d(in_planes, out_planes, kernel_size=1, stride=stride, bias=False)


class BasicBlock(nn.Module):
    """Two 3x3 convolutions with a residual connection (ResNet-18/34).

    Args:
        inplanes: input channels.
        planes: output channels.
        stride: stride of the first convolution.
        downsample: the projection of the shortcut when shapes change, or ``None``.
        groups, base_width: must be 1 and 64 (only the bottleneck supports them).
        dilation: must be 1.
        norm_layer: the norm constructor (``BatchNorm2d`` by default).
    """

    expansion: int = 1

    def __init__(self, inplanes: int, planes: int, stride: int = 1, downsample: nn.Module | None = None,
                 groups: int = 1, base_width: int = 64, dilation: int = 1,
                 norm_layer: Callable[..., nn.Module] | None = None) -> None:
        super().__init__()
        if norm_layer is None:
            norm_layer = nn.BatchNorm2d
        if groups != 1 or base_width != 64:
            raise ValueError("BasicBlock only supports groups=1 and base_width=64")
        if dilation > 1:
            raise NotImplementedError("Dilation > 1 not supported in BasicBlock")
        self.conv1 = conv3x3(inplanes, planes, stride)
        self.bn1 = norm_layer(planes)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = conv3x3(planes, planes)
        self.bn2 = norm_layer(planes)
        self.downsample = downsample
        self.stride = stride

    def forward(self, x: flow.Tensor) -> flow.Tensor:
        """Returns ``relu(x' + shortcut(x))``."""
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        if self.downsample is not None:
            identity = self.downsample(x)
        out += identity
        return self.relu(out)


class Bottleneck(nn.Module):
    """1x1 reduce, 3x3 (strided, grouped), 1x1 expand (4x) with a residual connection.

    Args:
        inplanes: input channels.
        planes: the block's base width; the output has ``planes * 4`` channels.
        stride: stride of the 3x3 convolution.
        downsample: the projection of the shortcut when shapes change, or ``None``.
        groups: groups of the 3x3 convolution (ResNeXt cardinality).
        base_width: channels per group at ``planes == 64`` (ResNeXt/Wide ResNet width).
        dilation: dilation of the 3x3 convolution.
        norm_layer: the norm constructor (``BatchNorm2d`` by default).
    """

    expansion: int = 4

    def __init__(self, inplanes: int, planes: int, stride: int = 1, downsample: nn.Module | None = None,
                 groups: int = 1, base_width: int = 64, dilation: int = 1,
                 norm_layer: Callable[..., nn.Module] | None = None) -> None:
        super().__init__()
        if norm_layer is None:
            norm_layer = nn.BatchNorm2d
        width = int(planes * (base_width / 64.0)) * groups
        self.conv1 = conv1x1(inplanes, width)
        self.bn1 = norm_layer(width)
        self.conv2 = conv3x3(width, width, stride, groups, dilation)
        self.bn2 = norm_layer(width)
        self.conv3 = conv1x1(width, planes * self.expansion)
        self.bn3 = norm_layer(planes * self.expansion)
        self.relu = nn.ReLU(inplace=True)
        self.downsample = downsample
        self.stride = stride

    def forward(self, x: flow.Tensor) -> flow.Tensor:
        """Returns ``relu(x' + shortcut(x))``."""
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        out = self.bn3(self.conv3(out))
        if self.downsample is not None:
            identity = self.downsample(x)
        out += identity
        return self.relu(out)


class ResNet(nn.Module):
    """The ResNet family (torchvision layout).

    Args:
        block: ``BasicBlock`` or ``Bottleneck``.
        layers: the number of blocks in each of the four stages.
        num_classes: outputs of the classifier.
        zero_init_residual: start each block's last batch-norm scale at zero, so that every
            residual branch starts as the identity.
        groups: groups of the bottleneck 3x3 convolutions.
        width_per_group: channels per group of the first stage's bottleneck.
        replace_stride_with_dilation: three booleans; for stages 2-4, replace the stride 2
            with a dilation (keeps the resolution, for dense prediction).
        norm_layer: the norm constructor (``BatchNorm2d`` by default).
    """

    def __init__(self, block: type[BasicBlock | Bottleneck], layers: list[int], num_classes: int = 1000,
                 zero_init_residual: bool = False, groups: int = 1, width_per_group: int = 64,
                 replace_stride_with_dilation: list[bool] | None = None,
                 norm_layer: Callable[..., nn.Module] | None = None) -> None:
        super().__init__()
        if norm_layer is None:
            norm_layer = nn.BatchNorm2d
        self._norm_layer = norm_layer
        self.inplanes = 64
        self.dilation = 1
        if replace_stride_with_dilation is None:
            replace_stride_with_dilation = [False, False, False]
        if len(replace_stride_with_dilation) != 3:
            raise ValueError("replace_stride_with_dilation should be None or a 3-element tuple, "
                             f"got {replace_stride_with_dilation}")
        self.groups = groups
        self.base_width = width_per_group
        self.conv1 = nn.Conv2d(3, self.inplanes, kernel_size=7, stride=2, padding=3, bias=False)
        self.bn1 = norm_layer(self.inplanes)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)
        self.layer1 = self._make_layer(block, 64, layers[0])
        self.layer2 = self._make_layer(block, 128, layers[1], stride=2, dilate=replace_stride_with_dilation[0])
        self.layer3 = self._make_layer(block, 256, layers[2], stride=2, dilate=replace_stride_with_dilation[1])
        self.layer4 = self._make_layer(block, 512, layers[3], stride=2, dilate=replace_stride_with_dilation[2])
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(512 * block.expansion, num_classes)

        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
            elif isinstance(m, (nn.BatchNorm2d, nn.GroupNorm)):
                nn.init.constant_(m.weight, 1)
                nn.init.constant_(m.bias, 0)
        if zero_init_residual:
            for m in self.modules():
                if isinstance(m, Bottleneck) and m.bn3.weight is not None:
                    nn.init.constant_(m.bn3.weight, 0)
                elif isinstance(m, BasicBlock) and m.bn2.weight is not None:
                    nn.init.constant_(m.bn2.weight, 0)

    def _make_layer(self, block: type[BasicBlock | Bottleneck], planes: int, blocks: int, stride: int = 1,
                    dilate: bool = False) -> nn.Sequential:
        norm_layer = self._norm_layer
        downsample = None
        previous_dilation = self.dilation
        if dilate:
            self.dilation *= stride
            stride = 1
        if stride != 1 or self.inplanes != planes * block.expansion:
            downsample = nn.Sequential(conv1x1(self.inplanes, planes * block.expansion, stride),
                                       norm_layer(planes * block.expansion))
        layers = [block(self.inplanes, planes, stride, downsample, self.groups, self.base_width, previous_dilation,
                        norm_layer)]
        self.inplanes = planes * block.expansion
        for _ in range(1, blocks):
            layers.append(block(self.inplanes, planes, groups=self.groups, base_width=self.base_width,
                                dilation=self.dilation, norm_layer=norm_layer))
        return nn.Sequential(*layers)

    def forward(self, x: flow.Tensor) -> flow.Tensor:
        """Classifies a batch ``(N, 3, H, W)`` into logits ``(N, num_classes)``."""
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer1(x)
        x = self.layer2(x)
        x = self.layer3(x)
        x = self.layer4(x)
        x = flow.flatten(self.avgpool(x), 1)
        return self.fc(x)


def _resnet(name: str, block: type[BasicBlock | Bottleneck], layers: list[int], pretrained: bool, progress: bool,
            **kwargs) -> ResNet:
    model = ResNet(block, layers, **kwargs)
    if pretrained:
        load_pretrained(model, name, progress)
    return model


@ModelCreator.register_model
def resnet18(pretrained: bool = False, progress: bool = True, **kwargs) -> ResNet:
    """ResNet-18 from "Deep Residual Learning for Image Recognition" (He et al., 2015).

    Args:
        pretrained: load ImageNet weights from the flowvision cache.
        progress: unused (nothing is downloaded); kept for torchvision compatibility.
        **kwargs: passed to :class:`ResNet` (``num_classes=``, ...).
    """
    return _resnet("resnet18", BasicBlock, [2, 2, 2, 2], pretrained, progress, **kwargs)


@ModelCreator.register_model
def resnet34(pretrained: bool = False, progress: bool = True, **kwargs) -> ResNet:
    """ResNet-34 (basic blocks 3-4-6-3); arguments as in :func:`resnet18`."""
    return _resnet("resnet34", BasicBlock, [3, 4, 6, 3], pretrained, progress, **kwargs)


@ModelCreator.register_model
def resnet50(pretrained: bool = False, progress: bool = True, **kwargs) -> ResNet:
    """ResNet-50 (bottlenecks 3-4-6-3); arguments as in :func:`resnet18`."""
    return _resnet("resnet50", Bottleneck, [3, 4, 6, 3], pretrained, progress, **kwargs)


@ModelCreator.register_model
def resnet101(pretrained: bool = False, progress: bool = True, **kwargs) -> ResNet:
    """ResNet-101 (bottlenecks 3-4-23-3); arguments as in :func:`resnet18`."""
    return _resnet("resnet101", Bottleneck, [3, 4, 23, 3], pretrained, progress, **kwargs)


@ModelCreator.register_model
def resnet152(pretrained: bool = False, progress: bool = True, **kwargs) -> ResNet:
    """ResNet-152 (bottlenecks 3-8-36-3); arguments as in :func:`resnet18`."""
    return _resnet("resnet152", Bottleneck, [3, 8, 36, 3], pretrained, progress, **kwargs)


@ModelCreator.register_model
def resnext50_32x4d(pretrained: bool = False, progress: bool = True, **kwargs) -> ResNet:
    """ResNeXt-50 32x4d from "Aggregated Residual Transformations for Deep Neural Networks"
    (Xie et al., 2016): 32 groups of 4 channels; arguments as in :func:`resnet18`."""
    _overwrite_named_param(kwargs, "groups", 32)
    _overwrite_named_param(kwargs, "width_per_group", 4)
    return _resnet("resnext50_32x4d", Bottleneck, [3, 4, 6, 3], pretrained, progress, **kwargs)


@ModelCreator.register_model
def resnext101_32x8d(pretrained: bool = False, progress: bool = True, **kwargs) -> ResNet:
    """ResNeXt-101 32x8d (32 groups of 8 channels); arguments as in :func:`resnet18`."""
    _overwrite_named_param(kwargs, "groups", 32)
    _overwrite_named_param(kwargs, "width_per_group", 8)
    return _resnet("resnext101_32x8d", Bottleneck, [3, 4, 23, 3], pretrained, progress, **kwargs)


@ModelCreator.register_model
def resnext101_64x4d(pretrained: bool = False, progress: bool = True, **kwargs) -> ResNet:
    """ResNeXt-101 64x4d (64 groups of 4 channels); arguments as in :func:`resnet18`."""
    _overwrite_named_param(kwargs, "groups", 64)
    _overwrite_named_param(kwargs, "width_per_group", 4)
    return _resnet("resnext101_64x4d", Bottleneck, [3, 4, 23, 3], pretrained, progress, **kwargs)


@ModelCreator.register_model
def wide_resnet50_2(pretrained: bool = False, progress: bool = True, **kwargs) -> ResNet:
    """Wide ResNet-50-2 from "Wide Residual Networks" (Zagoruyko & Komodakis, 2016): ResNet-50
    with bottlenecks twice as wide (the outer widths are unchanged); arguments as in
    :func:`resnet18`."""
    _overwrite_named_param(kwargs, "width_per_group", 64 * 2)
    return _resnet("wide_resnet50_2", Bottleneck, [3, 4, 6, 3], pretrained, progress, **kwargs)


@ModelCreator.register_model
def wide_resnet101_2(pretrained: bool = False, progress: bool = True, **kwargs) -> ResNet:
    """Wide ResNet-101-2: ResNet-101 with bottlenecks twice as wide; arguments as in
    :func:`resnet18`."""
    _overwrite_named_param(kwargs, "width_per_group", 64 * 2)
    return _resnet("wide_resnet101_2", Bottleneck, [3, 4, 23, 3], pretrained, progress, **kwargs)
