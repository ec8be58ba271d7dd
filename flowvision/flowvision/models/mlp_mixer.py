"""MLP-Mixer, from "MLP-Mixer: An all-MLP Architecture for Vision" (Tolstikhin et al., 2021).

Patches are embedded as in ViT; each Mixer block mixes across tokens (an MLP applied
to every channel's sequence of patches) and then across channels (an MLP applied to
each token). Names follow timm (``stem.proj``, ``blocks.N.mlp_tokens.fc1``,
``blocks.N.mlp_channels.fc2``, ``norm``, ``head``; constructors ``mixer_b16_224``...).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import partial

import oneflow as flow
from flowvision.layers import DropPath, Mlp, PatchEmbed, lecun_normal_, to_2tuple
from flowvision.models._weights import load_pretrained
from flowvision.models.registry import ModelCreator
from oneflow import nn

__all__ = [
    "MixerBlock",
    "MlpMixer",
    "mixer_b16_224",
    "mixer_b32_224",
    "mixer_l16_224",
    "mixer_l32_224",
    "mixer_s16_224",
    "mixer_s32_224",
]


class MixerBlock(nn.Module):
    """Token mixing (``mlp_tokens`` over the patch axis) then channel mixing (``mlp_channels``)."""

    def __init__(self, dim: int, seq_len: int, mlp_ratio: float | tuple[float, float] = (0.5, 4.0),
                 norm_layer: Callable[[int], nn.Module] | None = None, act_layer: Callable[[], nn.Module] = nn.GELU,
                 drop: float = 0.0, drop_path: float = 0.0) -> None:
        super().__init__()
        norm_layer = norm_layer or partial(nn.LayerNorm, eps=1e-6)
        tokens_dim, channels_dim = (int(r * dim) for r in to_2tuple(mlp_ratio))
        self.norm1 = norm_layer(dim)
        self.mlp_tokens = Mlp(seq_len, tokens_dim, act_layer=act_layer, drop=drop)
        self.drop_path = DropPath(drop_path) if drop_path > 0.0 else nn.Identity()
        self.norm2 = norm_layer(dim)
        self.mlp_channels = Mlp(dim, channels_dim, act_layer=act_layer, drop=drop)

    def forward(self, x: flow.Tensor) -> flow.Tensor:
        x = x + self.drop_path(self.mlp_tokens(self.norm1(x).transpose(1, 2)).transpose(1, 2))
        return x + self.drop_path(self.mlp_channels(self.norm2(x)))


class MlpMixer(nn.Module):
    """MLP-Mixer.

    Args:
        num_classes: classes of the head (0: no head).
        img_size: input image size (the token MLPs depend on the number of patches).
        in_chans: input channels.
        patch_size: patch size.
        num_blocks: number of Mixer blocks.
        embed_dim: channels per token.
        mlp_ratio: hidden widths of the token and channel MLPs relative to ``embed_dim``.
        norm_layer: normalisation (default LayerNorm with eps 1e-6).
        act_layer: MLP activation.
        drop_rate: dropout before the head.
        proj_drop_rate: dropout inside the MLPs.
        drop_path_rate: stochastic depth rate (the same for every block).
        nlhb: initialise the head bias to ``-log(num_classes)``.
        stem_norm: normalise the patch embeddings.
    """

    def __init__(self, num_classes: int = 1000, img_size: int = 224, in_chans: int = 3, patch_size: int = 16,
                 num_blocks: int = 8, embed_dim: int = 512, mlp_ratio: float | tuple[float, float] = (0.5, 4.0),
                 norm_layer: Callable[[int], nn.Module] | None = None, act_layer: Callable[[], nn.Module] = nn.GELU,
                 drop_rate: float = 0.0, proj_drop_rate: float = 0.0, drop_path_rate: float = 0.0,
                 nlhb: bool = False, stem_norm: bool = False) -> None:
        super().__init__()
        norm_layer = norm_layer or partial(nn.LayerNorm, eps=1e-6)
        self.num_classes = num_classes
        self.num_features = self.embed_dim = embed_dim
        self.stem = PatchEmbed(img_size=img_size, patch_size=patch_size, in_chans=in_chans, embed_dim=embed_dim,
                               norm_layer=norm_layer if stem_norm else None)
        self.blocks = nn.Sequential(*[
            MixerBlock(embed_dim, self.stem.num_patches, mlp_ratio, norm_layer=norm_layer, act_layer=act_layer,
                       drop=proj_drop_rate, drop_path=drop_path_rate)
            for _ in range(num_blocks)
        ])
        self.norm = norm_layer(embed_dim)
        self.head_drop = nn.Dropout(drop_rate)
        self.head = nn.Linear(embed_dim, num_classes) if num_classes > 0 else nn.Identity()
        self._init_weights(-math.log(num_classes) if nlhb and num_classes > 0 else 0.0)

    def _init_weights(self, head_bias: float) -> None:
        for name, m in self.named_modules():
            if isinstance(m, nn.Linear):
                if name == "head":
                    nn.init.zeros_(m.weight)
                    nn.init.constant_(m.bias, head_bias)
                else:
                    nn.init.xavier_uniform_(m.weight)
                    if m.bias is not None:
                        # Tiny random biases inside the MLPs, zero elsewhere (as the JAX original).
                        if "mlp" in name:
                            nn.init.normal_(m.bias, std=1e-6)
                        else:
                            nn.init.zeros_(m.bias)
            elif isinstance(m, nn.Conv2d):
                lecun_normal_(m.weight)
                if m.bias is not None:
                    nn.init.zeros_(m.bias)

    def forward_features(self, x: flow.Tensor) -> flow.Tensor:
        """The normalised tokens, ``(N, num_patches, embed_dim)``."""
        return self.norm(self.blocks(self.stem(x)))

    def forward(self, x: flow.Tensor) -> flow.Tensor:
        x = self.forward_features(x).mean(dim=1)
        return self.head(self.head_drop(x))


def _mixer(name: str, pretrained: bool, progress: bool, defaults: dict, kwargs: dict) -> MlpMixer:
    model = MlpMixer(**{**defaults, **kwargs})
    if pretrained:
        load_pretrained(model, name, progress)
    return model


@ModelCreator.register_model
def mixer_s32_224(pretrained: bool = False, progress: bool = True, **kwargs) -> MlpMixer:
    """Mixer-S/32: 8 blocks of width 512 on 32x32 patches (19.1M parameters)."""
    return _mixer("mixer_s32_224", pretrained, progress, dict(patch_size=32, num_blocks=8, embed_dim=512), kwargs)


@ModelCreator.register_model
def mixer_s16_224(pretrained: bool = False, progress: bool = True, **kwargs) -> MlpMixer:
    """Mixer-S/16: 8 blocks of width 512 on 16x16 patches (18.5M parameters)."""
    return _mixer("mixer_s16_224", pretrained, progress, dict(patch_size=16, num_blocks=8, embed_dim=512), kwargs)


@ModelCreator.register_model
def mixer_b32_224(pretrained: bool = False, progress: bool = True, **kwargs) -> MlpMixer:
    """Mixer-B/32: 12 blocks of width 768 on 32x32 patches (60.3M parameters)."""
    return _mixer("mixer_b32_224", pretrained, progress, dict(patch_size=32, num_blocks=12, embed_dim=768), kwargs)


@ModelCreator.register_model
def mixer_b16_224(pretrained: bool = False, progress: bool = True, **kwargs) -> MlpMixer:
    """Mixer-B/16: 12 blocks of width 768 on 16x16 patches (59.9M parameters)."""
    return _mixer("mixer_b16_224", pretrained, progress, dict(patch_size=16, num_blocks=12, embed_dim=768), kwargs)


@ModelCreator.register_model
def mixer_l32_224(pretrained: bool = False, progress: bool = True, **kwargs) -> MlpMixer:
    """Mixer-L/32: 24 blocks of width 1024 on 32x32 patches (206.9M parameters)."""
    return _mixer("mixer_l32_224", pretrained, progress, dict(patch_size=32, num_blocks=24, embed_dim=1024), kwargs)


@ModelCreator.register_model
def mixer_l16_224(pretrained: bool = False, progress: bool = True, **kwargs) -> MlpMixer:
    """Mixer-L/16: 24 blocks of width 1024 on 16x16 patches (208.2M parameters)."""
    return _mixer("mixer_l16_224", pretrained, progress, dict(patch_size=16, num_blocks=24, embed_dim=1024), kwargs)
