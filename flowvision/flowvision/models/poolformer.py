"""PoolFormer, from "MetaFormer Is Actually What You Need for Vision" (Yu et al., 2022).

A MetaFormer whose token mixer is plain average pooling (``pool(x) - x``), with
GroupNorm(1) as the norm, 1x1-conv MLPs and per-channel layer scales, in four stages
joined by strided-conv patch embeddings. Names follow the original release and timm
0.6 (``patch_embed.proj``, ``network.0.0.token_mixer``, ``network.0.0.mlp.fc1``,
``network.0.0.layer_scale_1``, ``network.1.proj``, ``norm``, ``head``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import oneflow as flow
from flowvision.layers import DropPath, Mlp, trunc_normal_
from flowvision.models._weights import load_pretrained
from flowvision.models.registry import ModelCreator
from oneflow import nn

__all__ = [
    "PoolFormer",
    "poolformer_m36",
    "poolformer_m48",
    "poolformer_s12",
    "poolformer_s24",
    "poolformer_s36",
]


class PatchEmbed(nn.Module):
    """A strided convolution (``proj``) with padding, then an optional norm; stays ``(N, C, H, W)``."""

    def __init__(self, patch_size: int = 16, stride: int = 16, padding: int = 0, in_chans: int = 3,
                 embed_dim: int = 768, norm_layer: Callable[[int], nn.Module] | None = None) -> None:
        super().__init__()
        self.proj = nn.Conv2d(in_chans, embed_dim, kernel_size=patch_size, stride=stride, padding=padding)
        self.norm = norm_layer(embed_dim) if norm_layer else nn.Identity()

    def forward(self, x: flow.Tensor) -> flow.Tensor:
        return self.norm(self.proj(x))


class GroupNorm1(nn.GroupNorm):
    """GroupNorm with a single group: normalises over C, H and W together."""

    def __init__(self, num_channels: int, **kwargs) -> None:
        super().__init__(1, num_channels, **kwargs)


class Pooling(nn.Module):
    """The token mixer: 3x3 average pooling (padding excluded from the mean) minus the input."""

    def __init__(self, pool_size: int = 3) -> None:
        super().__init__()
        self.pool = nn.AvgPool2d(pool_size, stride=1, padding=pool_size // 2, count_include_pad=False)

    def forward(self, x: flow.Tensor) -> flow.Tensor:
        return self.pool(x) - x


class PoolFormerBlock(nn.Module):
    """``x + drop_path(ls1 * pool_mixer(norm1(x)))`` then ``x + drop_path(ls2 * mlp(norm2(x)))``."""

    def __init__(self, dim: int, pool_size: int = 3, mlp_ratio: float = 4.0,
                 act_layer: Callable[[], nn.Module] = nn.GELU, norm_layer: Callable[[int], nn.Module] = GroupNorm1,
                 drop: float = 0.0, drop_path: float = 0.0, layer_scale_init_value: float | None = 1e-5) -> None:
        super().__init__()
        self.norm1 = norm_layer(dim)
        self.token_mixer = Pooling(pool_size=pool_size)
        self.norm2 = norm_layer(dim)
        self.mlp = Mlp(dim, int(dim * mlp_ratio), act_layer=act_layer, drop=drop, use_conv=True)
        self.drop_path = DropPath(drop_path) if drop_path > 0.0 else nn.Identity()
        if layer_scale_init_value:
            self.layer_scale_1 = nn.Parameter(layer_scale_init_value * flow.ones(dim))
            self.layer_scale_2 = nn.Parameter(layer_scale_init_value * flow.ones(dim))
        else:
            self.layer_scale_1 = None
            self.layer_scale_2 = None

    def forward(self, x: flow.Tensor) -> flow.Tensor:
        if self.layer_scale_1 is not None:
            x = x + self.drop_path(self.layer_scale_1.view(-1, 1, 1) * self.token_mixer(self.norm1(x)))
            return x + self.drop_path(self.layer_scale_2.view(-1, 1, 1) * self.mlp(self.norm2(x)))
        x = x + self.drop_path(self.token_mixer(self.norm1(x)))
        return x + self.drop_path(self.mlp(self.norm2(x)))


class PoolFormer(nn.Module):
    """PoolFormer.

    Args:
        layers: blocks per stage.
        embed_dims: channels per stage.
        mlp_ratios: MLP expansion per stage.
        downsamples: whether a strided patch embedding follows each stage.
        pool_size: pooling window of the token mixer.
        norm_layer: normalisation (default GroupNorm with one group).
        act_layer: MLP activation.
        num_classes: classes of the head (0: no head).
        in_patch_size, in_stride, in_pad: the stem convolution.
        down_patch_size, down_stride, down_pad: the downsampling convolutions.
        drop_rate: dropout inside the MLPs.
        drop_path_rate: stochastic depth rate, increasing linearly to this over the blocks.
        layer_scale_init_value: initial layer scale (none: no layer scale).
    """

    def __init__(self, layers: Sequence[int], embed_dims: Sequence[int] = (64, 128, 320, 512),
                 mlp_ratios: Sequence[float] = (4, 4, 4, 4), downsamples: Sequence[bool] = (True, True, True, True),
                 pool_size: int = 3, norm_layer: Callable[[int], nn.Module] = GroupNorm1,
                 act_layer: Callable[[], nn.Module] = nn.GELU, num_classes: int = 1000, in_patch_size: int = 7,
                 in_stride: int = 4, in_pad: int = 2, down_patch_size: int = 3, down_stride: int = 2,
                 down_pad: int = 1, drop_rate: float = 0.0, drop_path_rate: float = 0.0,
                 layer_scale_init_value: float | None = 1e-5, in_chans: int = 3) -> None:
        super().__init__()
        self.num_classes = num_classes
        self.num_features = embed_dims[-1]
        self.patch_embed = PatchEmbed(patch_size=in_patch_size, stride=in_stride, padding=in_pad,
                                      in_chans=in_chans, embed_dim=embed_dims[0])
        total = sum(layers)
        network: list[nn.Module] = []
        for i, depth in enumerate(layers):
            start = sum(layers[:i])
            stage = [
                PoolFormerBlock(embed_dims[i], pool_size=pool_size, mlp_ratio=mlp_ratios[i], act_layer=act_layer,
                                norm_layer=norm_layer, drop=drop_rate,
                                drop_path=drop_path_rate * (start + j) / (total - 1) if total > 1 else 0.0,
                                layer_scale_init_value=layer_scale_init_value)
                for j in range(depth)
            ]
            network.append(nn.Sequential(*stage))
            if i < len(layers) - 1 and (downsamples[i] or embed_dims[i] != embed_dims[i + 1]):
                network.append(PatchEmbed(patch_size=down_patch_size, stride=down_stride, padding=down_pad,
                                          in_chans=embed_dims[i], embed_dim=embed_dims[i + 1]))
        self.network = nn.Sequential(*network)
        self.norm = norm_layer(embed_dims[-1])
        self.head = nn.Linear(embed_dims[-1], num_classes) if num_classes > 0 else nn.Identity()

        for m in self.modules():
            if isinstance(m, nn.Linear):
                trunc_normal_(m.weight, std=0.02)
                if m.bias is not None:
                    nn.init.zeros_(m.bias)

    def forward_features(self, x: flow.Tensor) -> flow.Tensor:
        """The normalised last feature map, ``(N, C, H/32, W/32)``."""
        if x.ndim != 4:
            raise ValueError(f"PoolFormer: expected an (N, C, H, W) image batch, got shape {tuple(x.shape)}")
        return self.norm(self.network(self.patch_embed(x)))

    def forward(self, x: flow.Tensor) -> flow.Tensor:
        return self.head(self.forward_features(x).mean([-2, -1]))


def _poolformer(name: str, pretrained: bool, progress: bool, defaults: dict, kwargs: dict) -> PoolFormer:
    model = PoolFormer(**{**defaults, **kwargs})
    if pretrained:
        load_pretrained(model, name, progress)
    return model


_S_DIMS = (64, 128, 320, 512)
_M_DIMS = (96, 192, 384, 768)


@ModelCreator.register_model
def poolformer_s12(pretrained: bool = False, progress: bool = True, **kwargs) -> PoolFormer:
    """PoolFormer-S12: depths 2-2-6-2, widths 64-512 (11.9M parameters)."""
    return _poolformer("poolformer_s12", pretrained, progress, dict(layers=[2, 2, 6, 2], embed_dims=_S_DIMS), kwargs)


@ModelCreator.register_model
def poolformer_s24(pretrained: bool = False, progress: bool = True, **kwargs) -> PoolFormer:
    """PoolFormer-S24: depths 4-4-12-4, widths 64-512 (21.4M parameters)."""
    return _poolformer("poolformer_s24", pretrained, progress, dict(layers=[4, 4, 12, 4], embed_dims=_S_DIMS),
                       kwargs)


@ModelCreator.register_model
def poolformer_s36(pretrained: bool = False, progress: bool = True, **kwargs) -> PoolFormer:
    """PoolFormer-S36: depths 6-6-18-6, widths 64-512, layer scale 1e-6 (30.9M parameters)."""
    return _poolformer("poolformer_s36", pretrained, progress,
                       dict(layers=[6, 6, 18, 6], embed_dims=_S_DIMS, layer_scale_init_value=1e-6), kwargs)


@ModelCreator.register_model
def poolformer_m36(pretrained: bool = False, progress: bool = True, **kwargs) -> PoolFormer:
    """PoolFormer-M36: depths 6-6-18-6, widths 96-768, layer scale 1e-6 (56.2M parameters)."""
    return _poolformer("poolformer_m36", pretrained, progress,
                       dict(layers=[6, 6, 18, 6], embed_dims=_M_DIMS, layer_scale_init_value=1e-6), kwargs)


@ModelCreator.register_model
def poolformer_m48(pretrained: bool = False, progress: bool = True, **kwargs) -> PoolFormer:
    """PoolFormer-M48: depths 8-8-24-8, widths 96-768, layer scale 1e-6 (73.5M parameters)."""
    return _poolformer("poolformer_m48", pretrained, progress,
                       dict(layers=[8, 8, 24, 8], embed_dims=_M_DIMS, layer_scale_init_value=1e-6), kwargs)
