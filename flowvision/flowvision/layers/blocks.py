"""Transformer building blocks: the two-layer ``Mlp`` and the ViT ``PatchEmbed``."""

from __future__ import annotations

from collections.abc import Callable

import oneflow as flow
from flowvision.layers.helpers import to_2tuple
from oneflow import nn

__all__ = ["Mlp", "PatchEmbed"]


class Mlp(nn.Module):
    """Linear -> activation -> dropout -> (norm) -> linear -> dropout, as in ViT and MLP-Mixer.

    Args:
        in_features: input width.
        hidden_features: hidden width (default ``in_features``).
        out_features: output width (default ``in_features``).
        act_layer: activation class.
        norm_layer: optional normalisation of the hidden features.
        bias: linear layers with bias.
        drop: dropout rate after each layer.
        use_conv: 1x1 convolutions instead of linear layers, for ``(N, C, H, W)`` inputs.
    """

    def __init__(self, in_features: int, hidden_features: int | None = None, out_features: int | None = None,
                 act_layer: Callable[[], nn.Module] = nn.GELU, norm_layer: Callable[[int], nn.Module] | None = None,
                 bias: bool = True, drop: float = 0.0, use_conv: bool = False) -> None:
        super().__init__()
        out_features = out_features or in_features
        hidden_features = hidden_features or in_features
        bias1, bias2 = to_2tuple(bias)
        drop1, drop2 = to_2tuple(drop)

        def layer(i: int, o: int, b: bool) -> nn.Module:
            return nn.Conv2d(i, o, kernel_size=1, bias=b) if use_conv else nn.Linear(i, o, bias=b)

        self.fc1 = layer(in_features, hidden_features, bias1)
        self.act = act_layer()
        self.drop1 = nn.Dropout(drop1)
        self.norm = norm_layer(hidden_features) if norm_layer is not None else nn.Identity()
        self.fc2 = layer(hidden_features, out_features, bias2)
        self.drop2 = nn.Dropout(drop2)

    def forward(self, x: flow.Tensor) -> flow.Tensor:
        x = self.drop1(self.act(self.fc1(x)))
        return self.drop2(self.fc2(self.norm(x)))


class PatchEmbed(nn.Module):
    """Splits an image into non-overlapping patches and projects each to ``embed_dim``.

    A ``patch_size``-strided convolution (``proj``), then optional ``norm``; with
    ``flatten`` the output is ``(N, num_patches, embed_dim)``, else ``(N, C, H', W')``.
    With ``strict_img_size`` the input must be ``img_size``; otherwise any size that is
    a multiple of the patch size is accepted.
    """

    def __init__(self, img_size: int | tuple[int, int] = 224, patch_size: int | tuple[int, int] = 16,
                 in_chans: int = 3, embed_dim: int = 768, norm_layer: Callable[[int], nn.Module] | None = None,
                 flatten: bool = True, bias: bool = True, strict_img_size: bool = True) -> None:
        super().__init__()
        self.img_size = to_2tuple(img_size)
        self.patch_size = to_2tuple(patch_size)
        self.grid_size = (self.img_size[0] // self.patch_size[0], self.img_size[1] // self.patch_size[1])
        self.num_patches = self.grid_size[0] * self.grid_size[1]
        self.in_chans = in_chans
        self.flatten = flatten
        self.strict_img_size = strict_img_size
        self.proj = nn.Conv2d(in_chans, embed_dim, kernel_size=self.patch_size, stride=self.patch_size, bias=bias)
        self.norm = norm_layer(embed_dim) if norm_layer else nn.Identity()

    def forward(self, x: flow.Tensor) -> flow.Tensor:
        if x.ndim != 4 or x.shape[1] != self.in_chans:
            raise ValueError(f"PatchEmbed: expected an (N, {self.in_chans}, H, W) image batch, "
                             f"got shape {tuple(x.shape)}")
        _, _, h, w = x.shape
        if self.strict_img_size and (h, w) != self.img_size:
            raise ValueError(f"PatchEmbed: input image size ({h}x{w}) doesn't match the model "
                             f"({self.img_size[0]}x{self.img_size[1]})")
        if h % self.patch_size[0] or w % self.patch_size[1]:
            raise ValueError(f"PatchEmbed: input image size ({h}x{w}) is not a multiple of the patch size "
                             f"{self.patch_size}")
        x = self.proj(x)
        if self.flatten:
            x = x.flatten(2).transpose(1, 2)  # (N, C, H, W) -> (N, H*W, C)
        return self.norm(x)
