"""ShuffleNetV2 (x0.5, x1.0, x1.5, x2.0) in torchvision's layout.

A stem ``conv1`` (3x3 stride 2) and ``maxpool``, three stages ``stage2``..``stage4`` of
units that split the channels in two, transform one half (1x1, depthwise 3x3, 1x1) and
shuffle the concatenation, a 1x1 ``conv5``, global average pooling and ``fc``.
"""

from __future__ import annotations

import oneflow as flow
from flowvision.models._weights import load_pretrained
from flowvision.models.registry import ModelCreator
from oneflow import nn

__all__ = ["ShuffleNetV2", "shufflenet_v2_x0_5", "shufflenet_v2_x1_0", "shufflenet_v2_x1_5", "shufflenet_v2_x2_0"]


def channel_shuffle(x: flow.Tensor, groups: int) -> flow.Tensor:
    """Interleaves the channels of ``groups`` equal groups: (g, c/g) -> (c/g, g)."""
    batchsize, num_channels, height, width = x.shape
    channels_per_group = num_channels // groups
    x = x.view(batchsize, groups, channels_per_group, height, width)
    x = flow.transpose(x, 1, 2).contiguous()
    return x.view(batchsize, -1, height, width)


def _depthwise_conv(i: int, o: int, kernel_size: int, stride: int = 1, padding: int = 0,
                    bias: bool = False) -> nn.Conv2d:
    return nn.Conv2d(i, o, kernel_size, stride, padding, bias=bias, groups=i)


class InvertedResidual(nn.Module):
    """A ShuffleNetV2 unit. With stride 1 half of the input passes through unchanged; with
    stride 2 both halves come from the whole input (``branch1`` downsamples it)."""

    def __init__(self, inp: int, oup: int, stride: int) -> None:
        super().__init__()
        if not 1 <= stride <= 3:
            raise ValueError("illegal stride value")
        self.stride = stride
        branch_features = oup // 2
        if self.stride == 1 and inp != branch_features << 1:
            raise ValueError(f"Invalid combination of stride {stride}, inp {inp} and oup {oup} values. "
                             "If stride == 1 then inp should be equal to oup // 2 << 1.")
        if self.stride > 1:
            self.branch1 = nn.Sequential(
                _depthwise_conv(inp, inp, kernel_size=3, stride=self.stride, padding=1),
                nn.BatchNorm2d(inp),
                nn.Conv2d(inp, branch_features, kernel_size=1, stride=1, padding=0, bias=False),
                nn.BatchNorm2d(branch_features),
                nn.ReLU(inplace=True),
            )
        else:
            self.branch1 = nn.Sequential()
        self.branch2 = nn.Sequential(
            nn.Conv2d(inp if self.stride > 1 else branch_features, branch_features, kernel_size=1, stride=1,
                      padding=0, bias=False),
            nn.BatchNorm2d(branch_features),
            nn.ReLU(inplace=True),
            _depthwise_conv(branch_features, branch_features, kernel_size=3, stride=self.stride, padding=1),
            nn.BatchNorm2d(branch_features),
            nn.Conv2d(branch_features, branch_features, kernel_size=1, stride=1, padding=0, bias=False),
            nn.BatchNorm2d(branch_features),
            nn.ReLU(inplace=True),
        )

    def forward(self, x: flow.Tensor) -> flow.Tensor:
        """Returns the shuffled concatenation of the two branches."""
        if self.stride == 1:
            x1, x2 = x.chunk(2, dim=1)
            out = flow.cat((x1, self.branch2(x2)), dim=1)
        else:
            out = flow.cat((self.branch1(x), self.branch2(x)), dim=1)
        return channel_shuffle(out, 2)


class ShuffleNetV2(nn.Module):
    """ShuffleNetV2.

    Args:
        stages_repeats: units in each of the three stages.
        stages_out_channels: output channels of the stem, the three stages and ``conv5``.
        num_classes: outputs of the classifier.
        inverted_residual: the unit class.
    """

    def __init__(self, stages_repeats: list[int], stages_out_channels: list[int], num_classes: int = 1000,
                 inverted_residual: type[nn.Module] = InvertedResidual) -> None:
        super().__init__()
        if len(stages_repeats) != 3:
            raise ValueError("expected stages_repeats as list of 3 positive ints")
        if len(stages_out_channels) != 5:
            raise ValueError("expected stages_out_channels as list of 5 positive ints")
        self._stage_out_channels = stages_out_channels
        input_channels = 3
        output_channels = self._stage_out_channels[0]
        self.conv1 = nn.Sequential(
            nn.Conv2d(input_channels, output_channels, 3, 2, 1, bias=False),
            nn.BatchNorm2d(output_channels),
            nn.ReLU(inplace=True),
        )
        input_channels = output_channels
        self.maxpool = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)
        for name, repeats, output_channels in zip(("stage2", "stage3", "stage4"), stages_repeats,
                                                  self._stage_out_channels[1:]):
            seq = [inverted_residual(input_channels, output_channels, 2)]
            seq += [inverted_residual(output_channels, output_channels, 1) for _ in range(repeats - 1)]
            setattr(self, name, nn.Sequential(*seq))
            input_channels = output_channels
        output_channels = self._stage_out_channels[-1]
        self.conv5 = nn.Sequential(
            nn.Conv2d(input_channels, output_channels, 1, 1, 0, bias=False),
            nn.BatchNorm2d(output_channels),
            nn.ReLU(inplace=True),
        )
        self.fc = nn.Linear(output_channels, num_classes)

    def forward(self, x: flow.Tensor) -> flow.Tensor:
        """Classifies a batch ``(N, 3, H, W)`` into logits ``(N, num_classes)``."""
        x = self.maxpool(self.conv1(x))
        x = self.stage4(self.stage3(self.stage2(x)))
        x = self.conv5(x)
        return self.fc(x.mean([2, 3]))


def _shufflenetv2(name: str, pretrained: bool, progress: bool, *args, **kwargs) -> ShuffleNetV2:
    model = ShuffleNetV2(*args, **kwargs)
    if pretrained:
        load_pretrained(model, name, progress)
    return model


@ModelCreator.register_model
def shufflenet_v2_x0_5(pretrained: bool = False, progress: bool = True, **kwargs) -> ShuffleNetV2:
    """ShuffleNetV2 with 0.5x output channels, from "ShuffleNet V2: Practical Guidelines for
    Efficient CNN Architecture Design" (Ma et al., 2018).

    Args:
        pretrained: load ImageNet weights from the flowvision cache.
        progress: unused (nothing is downloaded); kept for torchvision compatibility.
        **kwargs: passed to :class:`ShuffleNetV2` (``num_classes=``).
    """
    return _shufflenetv2("shufflenet_v2_x0_5", pretrained, progress, [4, 8, 4], [24, 48, 96, 192, 1024], **kwargs)


@ModelCreator.register_model
def shufflenet_v2_x1_0(pretrained: bool = False, progress: bool = True, **kwargs) -> ShuffleNetV2:
    """ShuffleNetV2 with 1.0x output channels; arguments as in :func:`shufflenet_v2_x0_5`."""
    return _shufflenetv2("shufflenet_v2_x1_0", pretrained, progress, [4, 8, 4], [24, 116, 232, 464, 1024], **kwargs)


@ModelCreator.register_model
def shufflenet_v2_x1_5(pretrained: bool = False, progress: bool = True, **kwargs) -> ShuffleNetV2:
    """ShuffleNetV2 with 1.5x output channels; arguments as in :func:`shufflenet_v2_x0_5`."""
    return _shufflenetv2("shufflenet_v2_x1_5", pretrained, progress, [4, 8, 4], [24, 176, 352, 704, 1024], **kwargs)


@ModelCreator.register_model
def shufflenet_v2_x2_0(pretrained: bool = False, progress: bool = True, **kwargs) -> ShuffleNetV2:
    """ShuffleNetV2 with 2.0x output channels; arguments as in :func:`shufflenet_v2_x0_5`."""
    return _shufflenetv2("shufflenet_v2_x2_0", pretrained, progress, [4, 8, 4], [24, 244, 488, 976, 2048], **kwargs)
