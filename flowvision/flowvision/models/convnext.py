"""ConvNeXt, from "A ConvNet for the 2020s" (Liu et al., 2022).

Four stages of ConvNeXt blocks (7x7 depthwise conv, LayerNorm, an inverted MLP and a
per-channel layer scale, with stochastic depth) between a 4x4 patchify stem and
LayerNorm + 2x2 strided convs that downsample. Module and parameter names follow
torchvision (``features.1.0.block.0``, ``features.1.0.layer_scale``,
``classifier.2``...), so its state dicts load unchanged.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial

import oneflow as flow
from flowvision.layers import DropPath, LayerNorm2d, trunc_normal_
from flowvision.models._weights import load_pretrained
from flowvision.models.registry import ModelCreator
from oneflow import nn

__all__ = [
    "CNBlockConfig",
    "ConvNeXt",
    "convnext_base",
    "convnext_large",
    "convnext_small",
    "convnext_tiny",
]


class Permute(nn.Module):
    """Permutes the dimensions of its input (a module so it can sit in a Sequential)."""

    def __init__(self, dims: Sequence[int]) -> None:
        super().__init__()
        self.dims = list(dims)

    def forward(self, x: flow.Tensor) -> flow.Tensor:
        return x.permute(*self.dims)


class CNBlock(nn.Module):
    """ConvNeXt block: ``x + drop_path(layer_scale * pwconvs(norm(dwconv(x))))``.

    ``block`` is dwconv 7x7 -> to channels-last -> LayerNorm -> Linear(C, 4C) -> GELU
    -> Linear(4C, C) -> back to channels-first.
    """

    def __init__(self, dim: int, layer_scale: float, stochastic_depth_prob: float,
                 norm_layer: Callable[[int], nn.Module] | None = None) -> None:
        super().__init__()
        norm_layer = norm_layer or partial(nn.LayerNorm, eps=1e-6)
        self.block = nn.Sequential(
            nn.Conv2d(dim, dim, kernel_size=7, padding=3, groups=dim, bias=True),
            Permute([0, 2, 3, 1]),
            norm_layer(dim),
            nn.Linear(dim, 4 * dim, bias=True),
            nn.GELU(),
            nn.Linear(4 * dim, dim, bias=True),
            Permute([0, 3, 1, 2]),
        )
        self.layer_scale = nn.Parameter(flow.ones(dim, 1, 1) * layer_scale)
        self.stochastic_depth = DropPath(stochastic_depth_prob)

    def forward(self, x: flow.Tensor) -> flow.Tensor:
        return x + self.stochastic_depth(self.layer_scale * self.block(x))


class CNBlockConfig:
    """One stage: its width, the width of the next stage (None for the last) and its depth."""

    def __init__(self, input_channels: int, out_channels: int | None, num_layers: int) -> None:
        self.input_channels = input_channels
        self.out_channels = out_channels
        self.num_layers = num_layers

    def __repr__(self) -> str:
        return (f"CNBlockConfig(input_channels={self.input_channels}, out_channels={self.out_channels}, "
                f"num_layers={self.num_layers})")


class ConvNeXt(nn.Module):
    """ConvNeXt.

    Args:
        block_setting: one :class:`CNBlockConfig` per stage.
        stochastic_depth_prob: drop-path rate of the last block (it grows linearly from 0).
        layer_scale: initial value of each block's layer scale.
        num_classes: classes of the classifier.
        block: the block class (default :class:`CNBlock`).
        norm_layer: the channels-first norm of the stem, downsampling and classifier
            (default :class:`~flowvision.layers.LayerNorm2d` with eps 1e-6).
    """

    def __init__(self, block_setting: list[CNBlockConfig], stochastic_depth_prob: float = 0.0,
                 layer_scale: float = 1e-6, num_classes: int = 1000,
                 block: Callable[..., nn.Module] | None = None,
                 norm_layer: Callable[[int], nn.Module] | None = None) -> None:
        super().__init__()
        if not block_setting:
            raise ValueError("ConvNeXt: block_setting should not be empty")
        if not all(isinstance(s, CNBlockConfig) for s in block_setting):
            raise TypeError("ConvNeXt: block_setting should be a list of CNBlockConfig")
        block = block or CNBlock
        norm_layer = norm_layer or partial(LayerNorm2d, eps=1e-6)

        first = block_setting[0].input_channels
        # Stem: 4x4 patchify conv (with bias) and a norm; named features.0.0 / features.0.1.
        layers: list[nn.Module] = [nn.Sequential(
            nn.Conv2d(3, first, kernel_size=4, stride=4, padding=0, bias=True), norm_layer(first))]

        total_blocks = sum(s.num_layers for s in block_setting)
        block_id = 0
        for setting in block_setting:
            stage = []
            for _ in range(setting.num_layers):
                sd_prob = stochastic_depth_prob * block_id / (total_blocks - 1.0) if total_blocks > 1 else 0.0
                stage.append(block(setting.input_channels, layer_scale, sd_prob))
                block_id += 1
            layers.append(nn.Sequential(*stage))
            if setting.out_channels is not None:
                layers.append(nn.Sequential(
                    norm_layer(setting.input_channels),
                    nn.Conv2d(setting.input_channels, setting.out_channels, kernel_size=2, stride=2),
                ))
        self.features = nn.Sequential(*layers)
        self.avgpool = nn.AdaptiveAvgPool2d(1)

        last = block_setting[-1].out_channels or block_setting[-1].input_channels
        self.classifier = nn.Sequential(norm_layer(last), nn.Flatten(1), nn.Linear(last, num_classes))

        for m in self.modules():
            if isinstance(m, (nn.Conv2d, nn.Linear)):
                trunc_normal_(m.weight, std=0.02)
                if m.bias is not None:
                    nn.init.zeros_(m.bias)

    def forward(self, x: flow.Tensor) -> flow.Tensor:
        if x.ndim != 4 or x.shape[1] != 3:
            raise ValueError(f"ConvNeXt: expected an (N, 3, H, W) image batch, got shape {tuple(x.shape)}")
        x = self.features(x)
        x = self.avgpool(x)
        return self.classifier(x)


def _convnext(name: str, setting: list[CNBlockConfig], sd_prob: float, pretrained: bool, progress: bool,
              kwargs: dict) -> ConvNeXt:
    kwargs = {"stochastic_depth_prob": sd_prob, **kwargs}
    model = ConvNeXt(setting, **kwargs)
    if pretrained:
        load_pretrained(model, name, progress)
    return model


def _stages(widths: Sequence[int], depths: Sequence[int]) -> list[CNBlockConfig]:
    nxt = [*widths[1:], None]
    return [CNBlockConfig(w, o, d) for w, o, d in zip(widths, nxt, depths)]


@ModelCreator.register_model
def convnext_tiny(pretrained: bool = False, progress: bool = True, **kwargs) -> ConvNeXt:
    """ConvNeXt-T: widths 96-768, depths 3-3-9-3, drop path 0.1 (28.6M parameters)."""
    return _convnext("convnext_tiny", _stages([96, 192, 384, 768], [3, 3, 9, 3]), 0.1, pretrained, progress,
                     kwargs)


@ModelCreator.register_model
def convnext_small(pretrained: bool = False, progress: bool = True, **kwargs) -> ConvNeXt:
    """ConvNeXt-S: widths 96-768, depths 3-3-27-3, drop path 0.4 (50.2M parameters)."""
    return _convnext("convnext_small", _stages([96, 192, 384, 768], [3, 3, 27, 3]), 0.4, pretrained, progress,
                     kwargs)


@ModelCreator.register_model
def convnext_base(pretrained: bool = False, progress: bool = True, **kwargs) -> ConvNeXt:
    """ConvNeXt-B: widths 128-1024, depths 3-3-27-3, drop path 0.5 (88.6M parameters)."""
    return _convnext("convnext_base", _stages([128, 256, 512, 1024], [3, 3, 27, 3]), 0.5, pretrained, progress,
                     kwargs)


@ModelCreator.register_model
def convnext_large(pretrained: bool = False, progress: bool = True, **kwargs) -> ConvNeXt:
    """ConvNeXt-L: widths 192-1536, depths 3-3-27-3, drop path 0.5 (197.8M parameters)."""
    return _convnext("convnext_large", _stages([192, 384, 768, 1536], [3, 3, 27, 3]), 0.5, pretrained, progress,
                     kwargs)
