"""MNASNet (depth multipliers 0.5, 0.75, 1.0, 1.3) in torchvision's layout.

One ``layers`` Sequential: a stem (3x3 conv, depthwise separable conv), six stacks of
inverted residual blocks with 3x3 or 5x5 depthwise kernels, and a 1x1 conv to 1280
channels; then global average pooling and ``classifier`` (dropout, linear). Batch norms
use TensorFlow's momentum (1 - 0.9997).
"""

from __future__ import annotations

import oneflow as flow
from flowvision.models._weights import load_pretrained
from flowvision.models.registry import ModelCreator
from oneflow import nn

__all__ = ["MNASNet", "mnasnet0_5", "mnasnet0_75", "mnasnet1_0", "mnasnet1_3"]

# PyTorch's momentum is 1 - TensorFlow's decay (0.9997 in the reference implementation).
_BN_MOMENTUM = 1 - 0.9997


class _InvertedResidual(nn.Module):
    """1x1 expansion, depthwise ``kernel_size`` conv, linear 1x1 projection; residual when the
    stride is 1 and the channel count is unchanged."""

    def __init__(self, in_ch: int, out_ch: int, kernel_size: int, stride: int, expansion_factor: int,
                 bn_momentum: float = 0.1) -> None:
        super().__init__()
        if stride not in (1, 2):
            raise ValueError(f"stride should be 1 or 2 instead of {stride}")
        if kernel_size not in (3, 5):
            raise ValueError(f"kernel_size should be 3 or 5 instead of {kernel_size}")
        mid_ch = in_ch * expansion_factor
        self.apply_residual = in_ch == out_ch and stride == 1
        self.layers = nn.Sequential(
            nn.Conv2d(in_ch, mid_ch, 1, bias=False),
            nn.BatchNorm2d(mid_ch, momentum=bn_momentum),
            nn.ReLU(inplace=True),
            nn.Conv2d(mid_ch, mid_ch, kernel_size, padding=kernel_size // 2, stride=stride, groups=mid_ch,
                      bias=False),
            nn.BatchNorm2d(mid_ch, momentum=bn_momentum),
            nn.ReLU(inplace=True),
            nn.Conv2d(mid_ch, out_ch, 1, bias=False),
            nn.BatchNorm2d(out_ch, momentum=bn_momentum),
        )

    def forward(self, x: flow.Tensor) -> flow.Tensor:
        """Returns the block's output (plus ``x`` when residual)."""
        if self.apply_residual:
            return self.layers(x) + x
        return self.layers(x)


def _stack(in_ch: int, out_ch: int, kernel_size: int, stride: int, exp_factor: int, repeats: int,
           bn_momentum: float) -> nn.Sequential:
    """``repeats`` blocks; only the first changes channels and resolution."""
    if repeats < 1:
        raise ValueError(f"repeats should be >= 1, instead got {repeats}")
    first = _InvertedResidual(in_ch, out_ch, kernel_size, stride, exp_factor, bn_momentum=bn_momentum)
    remaining = [_InvertedResidual(out_ch, out_ch, kernel_size, 1, exp_factor, bn_momentum=bn_momentum)
                 for _ in range(1, repeats)]
    return nn.Sequential(first, *remaining)


def _round_to_multiple_of(val: float, divisor: int, round_up_bias: float = 0.9) -> int:
    """Rounds ``val`` to a multiple of ``divisor``, rounding up when rounding to the nearest
    would lose more than ``1 - round_up_bias`` of it."""
    if not 0.0 < round_up_bias < 1.0:
        raise ValueError(f"round_up_bias should be greater than 0.0 and smaller than 1.0 instead of {round_up_bias}")
    new_val = max(divisor, int(val + divisor / 2) // divisor * divisor)
    return new_val if new_val >= round_up_bias * val else new_val + divisor


def _get_depths(alpha: float) -> list[int]:
    """The channel counts of the stages for depth multiplier ``alpha``."""
    depths = [32, 16, 24, 40, 80, 96, 192, 320]
    return [_round_to_multiple_of(depth * alpha, 8) for depth in depths]


class MNASNet(nn.Module):
    """MNASNet.

    Args:
        alpha: depth (channel) multiplier; must be positive.
        num_classes: outputs of the classifier.
        dropout: dropout before the linear classifier.
    """

    # Version 2 scales the stem with alpha (version 1 checkpoints do not; flowvision has none).
    _version = 2

    def __init__(self, alpha: float, num_classes: int = 1000, dropout: float = 0.2) -> None:
        super().__init__()
        if alpha <= 0.0:
            raise ValueError(f"alpha should be greater than 0.0 instead of {alpha}")
        self.alpha = alpha
        self.num_classes = num_classes
        depths = _get_depths(alpha)
        layers = [
            # First layer: regular conv.
            nn.Conv2d(3, depths[0], 3, padding=1, stride=2, bias=False),
            nn.BatchNorm2d(depths[0], momentum=_BN_MOMENTUM),
            nn.ReLU(inplace=True),
            # Depthwise separable, no skip.
            nn.Conv2d(depths[0], depths[0], 3, padding=1, stride=1, groups=depths[0], bias=False),
            nn.BatchNorm2d(depths[0], momentum=_BN_MOMENTUM),
            nn.ReLU(inplace=True),
            nn.Conv2d(depths[0], depths[1], 1, padding=0, stride=1, bias=False),
            nn.BatchNorm2d(depths[1], momentum=_BN_MOMENTUM),
            # The inverted residual stacks.
            _stack(depths[1], depths[2], 3, 2, 3, 3, _BN_MOMENTUM),
            _stack(depths[2], depths[3], 5, 2, 3, 3, _BN_MOMENTUM),
            _stack(depths[3], depths[4], 5, 2, 6, 3, _BN_MOMENTUM),
            _stack(depths[4], depths[5], 3, 1, 6, 2, _BN_MOMENTUM),
            _stack(depths[5], depths[6], 5, 2, 6, 4, _BN_MOMENTUM),
            _stack(depths[6], depths[7], 3, 1, 6, 1, _BN_MOMENTUM),
            # Final mapping to the classifier input.
            nn.Conv2d(depths[7], 1280, 1, padding=0, stride=1, bias=False),
            nn.BatchNorm2d(1280, momentum=_BN_MOMENTUM),
            nn.ReLU(inplace=True),
        ]
        self.layers = nn.Sequential(*layers)
        self.classifier = nn.Sequential(nn.Dropout(p=dropout, inplace=True), nn.Linear(1280, num_classes))

        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
                if m.bias is not None:
                    nn.init.zeros_(m.bias)
            elif isinstance(m, nn.BatchNorm2d):
                nn.init.ones_(m.weight)
                nn.init.zeros_(m.bias)
            elif isinstance(m, nn.Linear):
                nn.init.kaiming_uniform_(m.weight, mode="fan_out", nonlinearity="sigmoid")
                nn.init.zeros_(m.bias)

    def forward(self, x: flow.Tensor) -> flow.Tensor:
        """Classifies a batch ``(N, 3, H, W)`` into logits ``(N, num_classes)``."""
        x = self.layers(x)
        return self.classifier(x.mean([2, 3]))


def _mnasnet(name: str, alpha: float, pretrained: bool, progress: bool, **kwargs) -> MNASNet:
    model = MNASNet(alpha, **kwargs)
    if pretrained:
        load_pretrained(model, name, progress)
    return model


@ModelCreator.register_model
def mnasnet0_5(pretrained: bool = False, progress: bool = True, **kwargs) -> MNASNet:
    """MNASNet with depth multiplier 0.5, from "MnasNet: Platform-Aware Neural Architecture
    Search for Mobile" (Tan et al., 2018).

    Args:
        pretrained: load ImageNet weights from the flowvision cache.
        progress: unused (nothing is downloaded); kept for torchvision compatibility.
        **kwargs: passed to :class:`MNASNet` (``num_classes=``, ``dropout=``).
    """
    return _mnasnet("mnasnet0_5", 0.5, pretrained, progress, **kwargs)


@ModelCreator.register_model
def mnasnet0_75(pretrained: bool = False, progress: bool = True, **kwargs) -> MNASNet:
    """MNASNet with depth multiplier 0.75; arguments as in :func:`mnasnet0_5`."""
    return _mnasnet("mnasnet0_75", 0.75, pretrained, progress, **kwargs)


@ModelCreator.register_model
def mnasnet1_0(pretrained: bool = False, progress: bool = True, **kwargs) -> MNASNet:
    """MNASNet with depth multiplier 1.0; arguments as in :func:`mnasnet0_5`."""
    return _mnasnet("mnasnet1_0", 1.0, pretrained, progress, **kwargs)


@ModelCreator.register_model
def mnasnet1_3(pretrained: bool = False, progress: bool = True, **kwargs) -> MNASNet:
    """MNASNet with depth multiplier 1.3; arguments as in :func:`mnasnet0_5`."""
    return _mnasnet("mnasnet1_3", 1.3, pretrained, progress, **kwargs)
