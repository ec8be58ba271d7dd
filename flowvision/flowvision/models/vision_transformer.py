"""Vision Transformer (ViT), from "An Image is Worth 16x16 Words" (Dosovitskiy et al., 2020).

The image is cut into patches (:class:`~flowvision.layers.PatchEmbed`), a class token
and learned position embeddings are added, and a stack of pre-norm transformer blocks
(:class:`Block`) follows; the class token's final feature feeds the ``head``.
Parameter names follow timm (``cls_token``, ``pos_embed``, ``patch_embed.proj``,
``blocks.N.attn.qkv``, ``blocks.N.mlp.fc1``, ``norm``, ``head``), as do the
constructor names (``vit_base_patch16_224``...).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import oneflow as flow
from flowvision.layers import DropPath, Mlp, PatchEmbed, trunc_normal_
from flowvision.models._weights import load_pretrained
from flowvision.models.registry import ModelCreator
from oneflow import nn

__all__ = [
    "VisionTransformer",
    "vit_base_patch16_224",
    "vit_base_patch32_224",
    "vit_large_patch16_224",
    "vit_large_patch32_224",
    "vit_small_patch16_224",
    "vit_small_patch32_224",
    "vit_tiny_patch16_224",
]


class Attention(nn.Module):
    """Multi-head self-attention with one fused ``qkv`` projection and an output ``proj``."""

    def __init__(self, dim: int, num_heads: int = 8, qkv_bias: bool = False, attn_drop: float = 0.0,
                 proj_drop: float = 0.0) -> None:
        super().__init__()
        if dim % num_heads != 0:
            raise ValueError(f"Attention: dim {dim} must be divisible by num_heads {num_heads}")
        self.num_heads = num_heads
        self.head_dim = dim // num_heads
        self.scale = self.head_dim**-0.5
        self.qkv = nn.Linear(dim, dim * 3, bias=qkv_bias)
        self.attn_drop = nn.Dropout(attn_drop)
        self.proj = nn.Linear(dim, dim)
        self.proj_drop = nn.Dropout(proj_drop)

    def forward(self, x: flow.Tensor) -> flow.Tensor:
        b, n, c = x.shape
        # (B, N, 3C) -> (3, B, heads, N, head_dim)
        qkv = self.qkv(x).reshape(b, n, 3, self.num_heads, self.head_dim).permute(2, 0, 3, 1, 4)
        q, k, v = qkv.unbind(0)
        attn = (q * self.scale) @ k.transpose(-2, -1)
        attn = self.attn_drop(attn.softmax(dim=-1))
        x = (attn @ v).transpose(1, 2).reshape(b, n, c)
        return self.proj_drop(self.proj(x))


class LayerScale(nn.Module):
    """Multiplies its input by a learned per-channel ``gamma`` (CaiT's LayerScale)."""

    def __init__(self, dim: int, init_values: float = 1e-5) -> None:
        super().__init__()
        self.gamma = nn.Parameter(init_values * flow.ones(dim))

    def forward(self, x: flow.Tensor) -> flow.Tensor:
        return x * self.gamma


class Block(nn.Module):
    """Pre-norm transformer block: ``x + attn(norm1(x))`` then ``x + mlp(norm2(x))``."""

    def __init__(self, dim: int, num_heads: int, mlp_ratio: float = 4.0, qkv_bias: bool = False,
                 proj_drop: float = 0.0, attn_drop: float = 0.0, init_values: float | None = None,
                 drop_path: float = 0.0, act_layer: Callable[[], nn.Module] = nn.GELU,
                 norm_layer: Callable[[int], nn.Module] = nn.LayerNorm) -> None:
        super().__init__()
        self.norm1 = norm_layer(dim)
        self.attn = Attention(dim, num_heads=num_heads, qkv_bias=qkv_bias, attn_drop=attn_drop, proj_drop=proj_drop)
        self.ls1 = LayerScale(dim, init_values) if init_values else nn.Identity()
        self.drop_path1 = DropPath(drop_path) if drop_path > 0.0 else nn.Identity()
        self.norm2 = norm_layer(dim)
        self.mlp = Mlp(dim, int(dim * mlp_ratio), act_layer=act_layer, drop=proj_drop)
        self.ls2 = LayerScale(dim, init_values) if init_values else nn.Identity()
        self.drop_path2 = DropPath(drop_path) if drop_path > 0.0 else nn.Identity()

    def forward(self, x: flow.Tensor) -> flow.Tensor:
        x = x + self.drop_path1(self.ls1(self.attn(self.norm1(x))))
        return x + self.drop_path2(self.ls2(self.mlp(self.norm2(x))))


class VisionTransformer(nn.Module):
    """Vision Transformer.

    Args:
        img_size: input image size.
        patch_size: patch size.
        in_chans: input channels.
        num_classes: classes of the head (0: no head, the pooled features are returned).
        global_pool: ``"token"`` (class token) or ``"avg"`` (mean of the patch tokens,
            then ``fc_norm`` instead of ``norm``).
        embed_dim: token width.
        depth: number of blocks.
        num_heads: attention heads.
        mlp_ratio: hidden width of the MLPs relative to ``embed_dim``.
        qkv_bias: bias in the qkv projection.
        init_values: LayerScale initial value (none: no LayerScale).
        class_token: use a class token.
        drop_rate: dropout before the head.
        pos_drop_rate: dropout after adding the position embedding.
        proj_drop_rate: dropout in the attention projection and the MLPs.
        attn_drop_rate: dropout on the attention weights.
        drop_path_rate: stochastic depth rate, increasing linearly to this over the blocks.
        norm_layer: normalisation (default LayerNorm with eps 1e-6).
        act_layer: MLP activation (default GELU).
    """

    def __init__(self, img_size: int | tuple[int, int] = 224, patch_size: int | tuple[int, int] = 16,
                 in_chans: int = 3, num_classes: int = 1000, global_pool: str = "token", embed_dim: int = 768,
                 depth: int = 12, num_heads: int = 12, mlp_ratio: float = 4.0, qkv_bias: bool = True,
                 init_values: float | None = None, class_token: bool = True, drop_rate: float = 0.0,
                 pos_drop_rate: float = 0.0, proj_drop_rate: float = 0.0, attn_drop_rate: float = 0.0,
                 drop_path_rate: float = 0.0, norm_layer: Callable[[int], nn.Module] | None = None,
                 act_layer: Callable[[], nn.Module] | None = None) -> None:
        super().__init__()
        if global_pool not in ("token", "avg"):
            raise ValueError(f"VisionTransformer: global_pool must be 'token' or 'avg', got {global_pool!r}")
        if global_pool == "token" and not class_token:
            raise ValueError("VisionTransformer: global_pool='token' needs class_token=True")
        norm_layer = norm_layer or partial(nn.LayerNorm, eps=1e-6)
        act_layer = act_layer or nn.GELU
        self.num_classes = num_classes
        self.global_pool = global_pool
        self.num_features = self.embed_dim = embed_dim
        self.num_prefix_tokens = 1 if class_token else 0

        self.patch_embed = PatchEmbed(img_size=img_size, patch_size=patch_size, in_chans=in_chans,
                                      embed_dim=embed_dim)
        num_patches = self.patch_embed.num_patches
        self.cls_token = nn.Parameter(flow.zeros(1, 1, embed_dim)) if class_token else None
        self.pos_embed = nn.Parameter(flow.zeros(1, num_patches + self.num_prefix_tokens, embed_dim))
        self.pos_drop = nn.Dropout(pos_drop_rate)
        dpr = [drop_path_rate * i / (depth - 1) for i in range(depth)] if depth > 1 else [0.0] * depth
        self.blocks = nn.Sequential(*[
            Block(embed_dim, num_heads, mlp_ratio=mlp_ratio, qkv_bias=qkv_bias, init_values=init_values,
                  proj_drop=proj_drop_rate, attn_drop=attn_drop_rate, drop_path=dpr[i],
                  norm_layer=norm_layer, act_layer=act_layer)
            for i in range(depth)
        ])
        use_fc_norm = global_pool == "avg"
        self.norm = norm_layer(embed_dim) if not use_fc_norm else nn.Identity()
        self.fc_norm = norm_layer(embed_dim) if use_fc_norm else nn.Identity()
        self.head_drop = nn.Dropout(drop_rate)
        self.head = nn.Linear(embed_dim, num_classes) if num_classes > 0 else nn.Identity()
        self._init_weights()

    def _init_weights(self) -> None:
        trunc_normal_(self.pos_embed, std=0.02)
        if self.cls_token is not None:
            nn.init.normal_(self.cls_token, std=1e-6)
        for m in self.modules():
            if isinstance(m, nn.Linear):
                trunc_normal_(m.weight, std=0.02)
                if m.bias is not None:
                    nn.init.zeros_(m.bias)

    def _prefix_tokens(self, x: flow.Tensor) -> list[flow.Tensor]:
        if self.cls_token is None:
            return []
        return [self.cls_token.expand(x.shape[0], -1, -1)]

    def forward_features(self, x: flow.Tensor) -> flow.Tensor:
        """The normalised tokens, ``(N, prefix + num_patches, embed_dim)``."""
        x = self.patch_embed(x)
        prefix = self._prefix_tokens(x)
        if prefix:
            x = flow.cat([*prefix, x], dim=1)
        x = self.pos_drop(x + self.pos_embed)
        x = self.blocks(x)
        return self.norm(x)

    def forward_head(self, x: flow.Tensor, pre_logits: bool = False) -> flow.Tensor:
        """Pools the tokens (class token or mean of the patch tokens) and applies the head."""
        if self.global_pool == "avg":
            x = x[:, self.num_prefix_tokens:].mean(dim=1)
        else:
            x = x[:, 0]
        x = self.head_drop(self.fc_norm(x))
        return x if pre_logits else self.head(x)

    def forward(self, x: flow.Tensor) -> flow.Tensor:
        return self.forward_head(self.forward_features(x))


def _vit(name: str, pretrained: bool, progress: bool, defaults: dict, kwargs: dict) -> VisionTransformer:
    model = VisionTransformer(**{**defaults, **kwargs})
    if pretrained:
        load_pretrained(model, name, progress)
    return model


@ModelCreator.register_model
def vit_tiny_patch16_224(pretrained: bool = False, progress: bool = True, **kwargs) -> VisionTransformer:
    """ViT-Ti/16 at 224x224: width 192, 12 blocks of 3 heads (5.7M parameters)."""
    return _vit("vit_tiny_patch16_224", pretrained, progress,
                dict(patch_size=16, embed_dim=192, depth=12, num_heads=3), kwargs)


@ModelCreator.register_model
def vit_small_patch16_224(pretrained: bool = False, progress: bool = True, **kwargs) -> VisionTransformer:
    """ViT-S/16 at 224x224: width 384, 12 blocks of 6 heads (22M parameters)."""
    return _vit("vit_small_patch16_224", pretrained, progress,
                dict(patch_size=16, embed_dim=384, depth=12, num_heads=6), kwargs)


@ModelCreator.register_model
def vit_small_patch32_224(pretrained: bool = False, progress: bool = True, **kwargs) -> VisionTransformer:
    """ViT-S/32 at 224x224: width 384, 12 blocks of 6 heads, 32x32 patches."""
    return _vit("vit_small_patch32_224", pretrained, progress,
                dict(patch_size=32, embed_dim=384, depth=12, num_heads=6), kwargs)


@ModelCreator.register_model
def vit_base_patch16_224(pretrained: bool = False, progress: bool = True, **kwargs) -> VisionTransformer:
    """ViT-B/16 at 224x224: width 768, 12 blocks of 12 heads (86.6M parameters)."""
    return _vit("vit_base_patch16_224", pretrained, progress,
                dict(patch_size=16, embed_dim=768, depth=12, num_heads=12), kwargs)


@ModelCreator.register_model
def vit_base_patch32_224(pretrained: bool = False, progress: bool = True, **kwargs) -> VisionTransformer:
    """ViT-B/32 at 224x224: width 768, 12 blocks of 12 heads, 32x32 patches (88.2M parameters)."""
    return _vit("vit_base_patch32_224", pretrained, progress,
                dict(patch_size=32, embed_dim=768, depth=12, num_heads=12), kwargs)


@ModelCreator.register_model
def vit_large_patch16_224(pretrained: bool = False, progress: bool = True, **kwargs) -> VisionTransformer:
    """ViT-L/16 at 224x224: width 1024, 24 blocks of 16 heads (304M parameters)."""
    return _vit("vit_large_patch16_224", pretrained, progress,
                dict(patch_size=16, embed_dim=1024, depth=24, num_heads=16), kwargs)


@ModelCreator.register_model
def vit_large_patch32_224(pretrained: bool = False, progress: bool = True, **kwargs) -> VisionTransformer:
    """ViT-L/32 at 224x224: width 1024, 24 blocks of 16 heads, 32x32 patches (306M parameters)."""
    return _vit("vit_large_patch32_224", pretrained, progress,
                dict(patch_size=32, embed_dim=1024, depth=24, num_heads=16), kwargs)

