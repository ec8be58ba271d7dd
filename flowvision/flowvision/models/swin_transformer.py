"""Swin Transformer, from "Swin Transformer: Hierarchical Vision Transformer using Shifted
Windows" (Liu et al., 2021).

Self-attention inside non-overlapping windows, with the windows shifted by half a
window in every other block so information crosses window borders, a learned relative
position bias per head, and patch merging (2x2 neighbourhoods concatenated and
projected) between the four stages. Tensors inside the network are channels-last,
``(N, H, W, C)``. Module and parameter names follow torchvision (``features.1.0.attn.qkv``,
``features.1.0.attn.relative_position_bias_table``, ``features.2.reduction``,
``features.1.0.mlp.0``, ``head``...), as do the constructor names (``swin_t/s/b``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial

import oneflow as flow
from flowvision.layers import DropPath, trunc_normal_
from flowvision.models._weights import load_pretrained
from flowvision.models.registry import ModelCreator
from oneflow import nn
from oneflow.nn import functional as F

__all__ = ["SwinTransformer", "swin_b", "swin_s", "swin_t"]


class Permute(nn.Module):
    """Permutes the dimensions of its input (a module so it can sit in a Sequential)."""

    def __init__(self, dims: Sequence[int]) -> None:
        super().__init__()
        self.dims = list(dims)

    def forward(self, x: flow.Tensor) -> flow.Tensor:
        return x.permute(*self.dims)


class PatchMerging(nn.Module):
    """Halves H and W: each 2x2 neighbourhood is concatenated (4C), normalised, projected to 2C."""

    def __init__(self, dim: int, norm_layer: Callable[[int], nn.Module] = nn.LayerNorm) -> None:
        super().__init__()
        self.dim = dim
        self.reduction = nn.Linear(4 * dim, 2 * dim, bias=False)
        self.norm = norm_layer(4 * dim)

    def forward(self, x: flow.Tensor) -> flow.Tensor:
        h, w = x.shape[-3], x.shape[-2]
        x = F.pad(x, (0, 0, 0, w % 2, 0, h % 2))  # odd sizes get a zero row/column
        x0 = x[..., 0::2, 0::2, :]
        x1 = x[..., 1::2, 0::2, :]
        x2 = x[..., 0::2, 1::2, :]
        x3 = x[..., 1::2, 1::2, :]
        x = flow.cat([x0, x1, x2, x3], -1)
        return self.reduction(self.norm(x))


def _attention_mask(pad_h: int, pad_w: int, window: list[int], shift: list[int], like: flow.Tensor) -> flow.Tensor:
    """-100 between tokens of a shifted window that came from different regions, else 0.

    Shape ``(num_windows, window_tokens, window_tokens)``.
    """
    region = flow.zeros(pad_h, pad_w, dtype=like.dtype, device=like.device)
    h_slices = ((0, -window[0]), (-window[0], -shift[0]), (-shift[0], None))
    w_slices = ((0, -window[1]), (-window[1], -shift[1]), (-shift[1], None))
    label = 0
    for hs in h_slices:
        for ws in w_slices:
            region[hs[0]:hs[1], ws[0]:ws[1]] = label
            label += 1
    num_windows = (pad_h // window[0]) * (pad_w // window[1])
    region = region.view(pad_h // window[0], window[0], pad_w // window[1], window[1])
    region = region.permute(0, 2, 1, 3).reshape(num_windows, window[0] * window[1])
    diff = region.unsqueeze(1) - region.unsqueeze(2)
    return diff.masked_fill(diff != 0, -100.0).masked_fill(diff == 0, 0.0)


class ShiftedWindowAttention(nn.Module):
    """Window multi-head self-attention with relative position bias and an optional cyclic shift.

    Args:
        dim: channels.
        window_size: window height and width.
        shift_size: cyclic shift (0 for plain windows).
        num_heads: attention heads.
        qkv_bias, proj_bias: biases of the projections.
        attention_dropout: dropout on the attention weights.
        dropout: dropout after the output projection.
    """

    def __init__(self, dim: int, window_size: list[int], shift_size: list[int], num_heads: int,
                 qkv_bias: bool = True, proj_bias: bool = True, attention_dropout: float = 0.0,
                 dropout: float = 0.0) -> None:
        super().__init__()
        if len(window_size) != 2 or len(shift_size) != 2:
            raise ValueError("ShiftedWindowAttention: window_size and shift_size must have length 2")
        self.window_size = list(window_size)
        self.shift_size = list(shift_size)
        self.num_heads = num_heads
        self.attention_dropout = attention_dropout
        self.dropout = dropout
        self.qkv = nn.Linear(dim, dim * 3, bias=qkv_bias)
        self.proj = nn.Linear(dim, dim, bias=proj_bias)

        wh, ww = self.window_size
        # One learned bias per head for each relative offset in [-(w-1), w-1]^2.
        self.relative_position_bias_table = nn.Parameter(flow.zeros((2 * wh - 1) * (2 * ww - 1), num_heads))
        trunc_normal_(self.relative_position_bias_table, std=0.02)
        coords = flow.stack(flow.meshgrid(flow.arange(wh), flow.arange(ww), indexing="ij"))  # (2, wh, ww)
        coords = coords.flatten(1)
        rel = (coords[:, :, None] - coords[:, None, :]).permute(1, 2, 0).contiguous()  # (N, N, 2)
        rel[:, :, 0] += wh - 1
        rel[:, :, 1] += ww - 1
        rel[:, :, 0] *= 2 * ww - 1
        self.register_buffer("relative_position_index", rel.sum(-1).flatten())

    def get_relative_position_bias(self) -> flow.Tensor:
        """The bias added to the attention logits, ``(1, heads, N, N)`` for N tokens per window."""
        n = self.window_size[0] * self.window_size[1]
        bias = self.relative_position_bias_table[self.relative_position_index]
        return bias.view(n, n, -1).permute(2, 0, 1).contiguous().unsqueeze(0)

    def forward(self, x: flow.Tensor) -> flow.Tensor:
        b, h, w, c = x.shape
        wh, ww = self.window_size
        # Pad H and W up to multiples of the window.
        pad_r = (ww - w % ww) % ww
        pad_b = (wh - h % wh) % wh
        x = F.pad(x, (0, 0, 0, pad_r, 0, pad_b))
        _, pad_h, pad_w, _ = x.shape
        shift = list(self.shift_size)
        # A window as large as the feature map needs no shift.
        if wh >= pad_h:
            shift[0] = 0
        if ww >= pad_w:
            shift[1] = 0
        shifted = sum(shift) > 0
        if shifted:
            x = flow.roll(x, shifts=(-shift[0], -shift[1]), dims=(1, 2))

        # Partition into windows: (B * num_windows, wh * ww, C).
        num_windows = (pad_h // wh) * (pad_w // ww)
        x = x.view(b, pad_h // wh, wh, pad_w // ww, ww, c)
        x = x.permute(0, 1, 3, 2, 4, 5).reshape(b * num_windows, wh * ww, c)

        bn, n = x.shape[0], x.shape[1]
        qkv = self.qkv(x).reshape(bn, n, 3, self.num_heads, c // self.num_heads).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        q = q * (c // self.num_heads) ** -0.5
        attn = q.matmul(k.transpose(-2, -1)) + self.get_relative_position_bias()
        if shifted:
            mask = _attention_mask(pad_h, pad_w, self.window_size, shift, x)
            attn = attn.view(bn // num_windows, num_windows, self.num_heads, n, n)
            attn = attn + mask.unsqueeze(1).unsqueeze(0)
            attn = attn.view(-1, self.num_heads, n, n)
        attn = F.softmax(attn, dim=-1)
        attn = F.dropout(attn, p=self.attention_dropout, training=self.training)
        x = attn.matmul(v).transpose(1, 2).reshape(bn, n, c)
        x = F.dropout(self.proj(x), p=self.dropout, training=self.training)

        # Merge the windows back and undo the shift and the padding.
        x = x.view(b, pad_h // wh, pad_w // ww, wh, ww, c)
        x = x.permute(0, 1, 3, 2, 4, 5).reshape(b, pad_h, pad_w, c)
        if shifted:
            x = flow.roll(x, shifts=(shift[0], shift[1]), dims=(1, 2))
        return x[:, :h, :w, :].contiguous()


class SwinMLP(nn.Sequential):
    """Linear -> GELU -> Dropout -> Linear -> Dropout (indices 0 and 3 hold the weights)."""

    def __init__(self, dim: int, hidden: int, dropout: float = 0.0) -> None:
        super().__init__(nn.Linear(dim, hidden), nn.GELU(), nn.Dropout(dropout), nn.Linear(hidden, dim),
                         nn.Dropout(dropout))


class SwinTransformerBlock(nn.Module):
    """``x + drop_path(attn(norm1(x)))`` then ``x + drop_path(mlp(norm2(x)))``, channels-last."""

    def __init__(self, dim: int, num_heads: int, window_size: list[int], shift_size: list[int],
                 mlp_ratio: float = 4.0, dropout: float = 0.0, attention_dropout: float = 0.0,
                 stochastic_depth_prob: float = 0.0, norm_layer: Callable[[int], nn.Module] = nn.LayerNorm,
                 attn_layer: Callable[..., nn.Module] = ShiftedWindowAttention) -> None:
        super().__init__()
        self.norm1 = norm_layer(dim)
        self.attn = attn_layer(dim, window_size, shift_size, num_heads, attention_dropout=attention_dropout,
                               dropout=dropout)
        self.stochastic_depth = DropPath(stochastic_depth_prob)
        self.norm2 = norm_layer(dim)
        self.mlp = SwinMLP(dim, int(dim * mlp_ratio), dropout)

    def forward(self, x: flow.Tensor) -> flow.Tensor:
        x = x + self.stochastic_depth(self.attn(self.norm1(x)))
        return x + self.stochastic_depth(self.mlp(self.norm2(x)))


class SwinTransformer(nn.Module):
    """Swin Transformer.

    Args:
        patch_size: stem patch size (height, width).
        embed_dim: channels of the first stage (doubled at each merging).
        depths: blocks per stage.
        num_heads: attention heads per stage.
        window_size: attention window (height, width).
        mlp_ratio: hidden width of the MLPs relative to the channels.
        dropout: dropout rate.
        attention_dropout: dropout on the attention weights.
        stochastic_depth_prob: drop-path rate of the last block (it grows linearly from 0).
        num_classes: classes of the head.
        norm_layer: normalisation (default LayerNorm with eps 1e-5).
        block: the block class.
    """

    def __init__(self, patch_size: list[int], embed_dim: int, depths: list[int], num_heads: list[int],
                 window_size: list[int], mlp_ratio: float = 4.0, dropout: float = 0.0,
                 attention_dropout: float = 0.0, stochastic_depth_prob: float = 0.1, num_classes: int = 1000,
                 norm_layer: Callable[[int], nn.Module] | None = None,
                 block: Callable[..., nn.Module] | None = None) -> None:
        super().__init__()
        if len(depths) != len(num_heads):
            raise ValueError(f"SwinTransformer: depths {depths} and num_heads {num_heads} differ in length")
        self.num_classes = num_classes
        block = block or SwinTransformerBlock
        norm_layer = norm_layer or partial(nn.LayerNorm, eps=1e-5)

        layers: list[nn.Module] = [nn.Sequential(
            nn.Conv2d(3, embed_dim, kernel_size=(patch_size[0], patch_size[1]),
                      stride=(patch_size[0], patch_size[1])),
            Permute([0, 2, 3, 1]),
            norm_layer(embed_dim),
        )]
        total = sum(depths)
        block_id = 0
        for i_stage, depth in enumerate(depths):
            dim = embed_dim * 2**i_stage
            stage = []
            for i_layer in range(depth):
                sd_prob = stochastic_depth_prob * block_id / (total - 1) if total > 1 else 0.0
                stage.append(block(dim, num_heads[i_stage], window_size=window_size,
                                   shift_size=[0 if i_layer % 2 == 0 else w // 2 for w in window_size],
                                   mlp_ratio=mlp_ratio, dropout=dropout, attention_dropout=attention_dropout,
                                   stochastic_depth_prob=sd_prob, norm_layer=norm_layer))
                block_id += 1
            layers.append(nn.Sequential(*stage))
            if i_stage < len(depths) - 1:
                layers.append(PatchMerging(dim, norm_layer))
        self.features = nn.Sequential(*layers)

        num_features = embed_dim * 2 ** (len(depths) - 1)
        self.num_features = num_features
        self.norm = norm_layer(num_features)
        self.permute = Permute([0, 3, 1, 2])  # back to (N, C, H, W) for the pooling
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.flatten = nn.Flatten(1)
        self.head = nn.Linear(num_features, num_classes)

        for m in self.modules():
            if isinstance(m, nn.Linear):
                trunc_normal_(m.weight, std=0.02)
                if m.bias is not None:
                    nn.init.zeros_(m.bias)

    def forward(self, x: flow.Tensor) -> flow.Tensor:
        if x.ndim != 4 or x.shape[1] != 3:
            raise ValueError(f"SwinTransformer: expected an (N, 3, H, W) image batch, got shape {tuple(x.shape)}")
        x = self.features(x)
        x = self.norm(x)
        x = self.permute(x)
        x = self.avgpool(x)
        x = self.flatten(x)
        return self.head(x)


def _swin(name: str, pretrained: bool, progress: bool, defaults: dict, kwargs: dict) -> SwinTransformer:
    model = SwinTransformer(**{**defaults, **kwargs})
    if pretrained:
        load_pretrained(model, name, progress)
    return model


@ModelCreator.register_model
def swin_t(pretrained: bool = False, progress: bool = True, **kwargs) -> SwinTransformer:
    """Swin-T: 96 channels, depths 2-2-6-2, window 7, drop path 0.2 (28.3M parameters)."""
    return _swin("swin_t", pretrained, progress,
                 dict(patch_size=[4, 4], embed_dim=96, depths=[2, 2, 6, 2], num_heads=[3, 6, 12, 24],
                      window_size=[7, 7], stochastic_depth_prob=0.2), kwargs)


@ModelCreator.register_model
def swin_s(pretrained: bool = False, progress: bool = True, **kwargs) -> SwinTransformer:
    """Swin-S: 96 channels, depths 2-2-18-2, window 7, drop path 0.3 (49.6M parameters)."""
    return _swin("swin_s", pretrained, progress,
                 dict(patch_size=[4, 4], embed_dim=96, depths=[2, 2, 18, 2], num_heads=[3, 6, 12, 24],
                      window_size=[7, 7], stochastic_depth_prob=0.3), kwargs)


@ModelCreator.register_model
def swin_b(pretrained: bool = False, progress: bool = True, **kwargs) -> SwinTransformer:
    """Swin-B: 128 channels, depths 2-2-18-2, window 7, drop path 0.5 (87.8M parameters)."""
    return _swin("swin_b", pretrained, progress,
                 dict(patch_size=[4, 4], embed_dim=128, depths=[2, 2, 18, 2], num_heads=[4, 8, 16, 32],
                      window_size=[7, 7], stochastic_depth_prob=0.5), kwargs)
