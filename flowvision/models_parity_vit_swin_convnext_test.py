"""Parity of ViT-B/16, Swin-T and ConvNeXt-T with references written in plain PyTorch.

Each reference below has the architecture and the parameter names of timm's ViT or
torchvision's Swin/ConvNeXt. Its weights are copied into our model through
``load_state_dict`` of NumPy arrays (which also checks that every name and shape
matches); then the eval-mode logits must agree to 1e-4, a training step (forward,
cross-entropy, backward; dropout and stochastic depth off) must give the same
gradients to 1e-3, and after one SGD step both models must again give the same logits.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as TF
from torch import nn as tnn

import oneflow as flow
from flowvision import models

# ----------------------------------------------------------------------------------------------
# Plain-PyTorch references.
# ----------------------------------------------------------------------------------------------


class RefViTAttention(tnn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.qkv = tnn.Linear(dim, 3 * dim)
        self.proj = tnn.Linear(dim, dim)

    def forward(self, x):
        b, n, c = x.shape
        q, k, v = self.qkv(x).view(b, n, 3, self.heads, c // self.heads).permute(2, 0, 3, 1, 4)
        w = torch.softmax(q @ k.transpose(-1, -2) / (c // self.heads) ** 0.5, dim=-1)
        return self.proj((w @ v).transpose(1, 2).reshape(b, n, c))


class RefMlp(tnn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.fc1 = tnn.Linear(dim, hidden)
        self.act = tnn.GELU()
        self.fc2 = tnn.Linear(hidden, dim)

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))


class RefViTBlock(tnn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.norm1 = tnn.LayerNorm(dim, eps=1e-6)
        self.attn = RefViTAttention(dim, heads)
        self.norm2 = tnn.LayerNorm(dim, eps=1e-6)
        self.mlp = RefMlp(dim, 4 * dim)

    def forward(self, x):
        x = x + self.attn(self.norm1(x))
        return x + self.mlp(self.norm2(x))


class RefPatchEmbed(tnn.Module):
    def __init__(self, patch, dim):
        super().__init__()
        self.proj = tnn.Conv2d(3, dim, patch, patch)

    def forward(self, x):
        return self.proj(x).flatten(2).transpose(1, 2)


class RefViT(tnn.Module):
    """timm's VisionTransformer (class token, learned position embedding, pre-norm blocks)."""

    def __init__(self, patch=16, dim=768, depth=12, heads=12, num_classes=1000, img=224):
        super().__init__()
        self.cls_token = tnn.Parameter(torch.randn(1, 1, dim) * 0.02)
        self.pos_embed = tnn.Parameter(torch.randn(1, (img // patch) ** 2 + 1, dim) * 0.02)
        self.patch_embed = RefPatchEmbed(patch, dim)
        self.blocks = tnn.Sequential(*[RefViTBlock(dim, heads) for _ in range(depth)])
        self.norm = tnn.LayerNorm(dim, eps=1e-6)
        self.head = tnn.Linear(dim, num_classes)

    def forward(self, x):
        x = self.patch_embed(x)
        x = torch.cat([self.cls_token.expand(x.shape[0], -1, -1), x], 1) + self.pos_embed
        return self.head(self.norm(self.blocks(x))[:, 0])


class RefPermute(tnn.Module):
    def __init__(self, *dims):
        super().__init__()
        self.dims = dims

    def forward(self, x):
        return x.permute(*self.dims)


class RefWindowAttention(tnn.Module):
    """torchvision's ShiftedWindowAttention (v1), written out with torch ops."""

    def __init__(self, dim, window, shift, heads):
        super().__init__()
        self.window, self.shift, self.heads = window, shift, heads
        self.qkv = tnn.Linear(dim, 3 * dim)
        self.proj = tnn.Linear(dim, dim)
        self.relative_position_bias_table = tnn.Parameter(torch.randn((2 * window - 1) ** 2, heads) * 0.02)
        ys, xs = torch.meshgrid(torch.arange(window), torch.arange(window), indexing="ij")
        coords = torch.stack([ys.flatten(), xs.flatten()])  # (2, N)
        rel = coords[:, :, None] - coords[:, None, :] + (window - 1)  # offsets, shifted to >= 0
        self.register_buffer("relative_position_index", (rel[0] * (2 * window - 1) + rel[1]).flatten())

    def forward(self, x):
        b, h, w, c = x.shape
        ws = self.window
        ph, pw = (ws - h % ws) % ws, (ws - w % ws) % ws
        x = TF.pad(x, (0, 0, 0, pw, 0, ph))
        hh, ww = x.shape[1], x.shape[2]
        shift = self.shift if ws < hh else 0
        shift_w = self.shift if ws < ww else 0
        if shift or shift_w:
            x = torch.roll(x, (-shift, -shift_w), (1, 2))
        nh, nw = hh // ws, ww // ws
        win = x.view(b, nh, ws, nw, ws, c).permute(0, 1, 3, 2, 4, 5).reshape(b * nh * nw, ws * ws, c)
        n = ws * ws
        q, k, v = self.qkv(win).view(-1, n, 3, self.heads, c // self.heads).permute(2, 0, 3, 1, 4)
        logits = (q * (c // self.heads) ** -0.5) @ k.transpose(-1, -2)
        bias = self.relative_position_bias_table[self.relative_position_index].view(n, n, -1).permute(2, 0, 1)
        logits = logits + bias[None]
        if shift or shift_w:
            # Label the regions a cyclic shift brings together; block attention across labels.
            label = torch.zeros(hh, ww)
            cuts_h = [0, hh - ws, hh - shift, hh]
            cuts_w = [0, ww - ws, ww - shift_w, ww]
            for i in range(3):
                for j in range(3):
                    label[cuts_h[i]:cuts_h[i + 1], cuts_w[j]:cuts_w[j + 1]] = 3 * i + j
            label = label.view(nh, ws, nw, ws).permute(0, 2, 1, 3).reshape(nh * nw, n)
            mask = torch.where(label[:, None, :] != label[:, :, None], -100.0, 0.0)
            logits = (logits.view(b, nh * nw, self.heads, n, n) + mask[None, :, None]).view(-1, self.heads, n, n)
        out = self.proj((logits.softmax(-1) @ v).transpose(1, 2).reshape(-1, n, c))
        out = out.view(b, nh, nw, ws, ws, c).permute(0, 1, 3, 2, 4, 5).reshape(b, hh, ww, c)
        if shift or shift_w:
            out = torch.roll(out, (shift, shift_w), (1, 2))
        return out[:, :h, :w].contiguous()


class RefSwinBlock(tnn.Module):
    def __init__(self, dim, heads, shift):
        super().__init__()
        self.norm1 = tnn.LayerNorm(dim)
        self.attn = RefWindowAttention(dim, 7, shift, heads)
        self.norm2 = tnn.LayerNorm(dim)
        self.mlp = tnn.Sequential(tnn.Linear(dim, 4 * dim), tnn.GELU(), tnn.Dropout(0.0), tnn.Linear(4 * dim, dim),
                                  tnn.Dropout(0.0))

    def forward(self, x):
        x = x + self.attn(self.norm1(x))
        return x + self.mlp(self.norm2(x))


class RefPatchMerging(tnn.Module):
    def __init__(self, dim):
        super().__init__()
        self.reduction = tnn.Linear(4 * dim, 2 * dim, bias=False)
        self.norm = tnn.LayerNorm(4 * dim)

    def forward(self, x):
        x = TF.pad(x, (0, 0, 0, x.shape[2] % 2, 0, x.shape[1] % 2))
        x = torch.cat([x[:, 0::2, 0::2], x[:, 1::2, 0::2], x[:, 0::2, 1::2], x[:, 1::2, 1::2]], -1)
        return self.reduction(self.norm(x))


class RefSwin(tnn.Module):
    """torchvision's swin_t layout: features.{0: stem, odd: stages, even: merging}, norm, head."""

    def __init__(self, dim=96, depths=(2, 2, 6, 2), heads=(3, 6, 12, 24), num_classes=1000):
        super().__init__()
        layers = [tnn.Sequential(tnn.Conv2d(3, dim, 4, 4), RefPermute(0, 2, 3, 1), tnn.LayerNorm(dim))]
        for i, (depth, h) in enumerate(zip(depths, heads)):
            d = dim * 2**i
            layers.append(tnn.Sequential(*[RefSwinBlock(d, h, 0 if j % 2 == 0 else 3) for j in range(depth)]))
            if i < len(depths) - 1:
                layers.append(RefPatchMerging(d))
        self.features = tnn.Sequential(*layers)
        self.norm = tnn.LayerNorm(dim * 8)
        self.head = tnn.Linear(dim * 8, num_classes)

    def forward(self, x):
        return self.head(self.norm(self.features(x)).mean((1, 2)))


class RefLayerNorm2d(tnn.LayerNorm):
    def forward(self, x):
        return TF.layer_norm(x.permute(0, 2, 3, 1), self.normalized_shape, self.weight, self.bias,
                             self.eps).permute(0, 3, 1, 2)


class RefCNBlock(tnn.Module):
    def __init__(self, dim):
        super().__init__()
        self.block = tnn.Sequential(tnn.Conv2d(dim, dim, 7, padding=3, groups=dim), RefPermute(0, 2, 3, 1),
                                    tnn.LayerNorm(dim, eps=1e-6), tnn.Linear(dim, 4 * dim), tnn.GELU(),
                                    tnn.Linear(4 * dim, dim), RefPermute(0, 3, 1, 2))
        # Large random scales, so that every block matters (the default 1e-6 would hide them).
        self.layer_scale = tnn.Parameter(torch.rand(dim, 1, 1) * 0.8 + 0.2)

    def forward(self, x):
        return x + self.layer_scale * self.block(x)


class RefConvNeXt(tnn.Module):
    """torchvision's convnext_tiny layout: features, avgpool, classifier (norm, flatten, linear)."""

    def __init__(self, widths=(96, 192, 384, 768), depths=(3, 3, 9, 3), num_classes=1000):
        super().__init__()
        layers = [tnn.Sequential(tnn.Conv2d(3, widths[0], 4, 4), RefLayerNorm2d(widths[0], eps=1e-6))]
        for i, depth in enumerate(depths):
            layers.append(tnn.Sequential(*[RefCNBlock(widths[i]) for _ in range(depth)]))
            if i < len(depths) - 1:
                layers.append(tnn.Sequential(RefLayerNorm2d(widths[i], eps=1e-6),
                                             tnn.Conv2d(widths[i], widths[i + 1], 2, 2)))
        self.features = tnn.Sequential(*layers)
        self.avgpool = tnn.AdaptiveAvgPool2d(1)
        self.classifier = tnn.Sequential(RefLayerNorm2d(widths[-1], eps=1e-6), tnn.Flatten(1),
                                         tnn.Linear(widths[-1], num_classes))

    def forward(self, x):
        return self.classifier(self.avgpool(self.features(x)))


# ----------------------------------------------------------------------------------------------
# Helpers.
# ----------------------------------------------------------------------------------------------


def _copy_weights(ref: tnn.Module, ours) -> None:
    ref_sd = ref.state_dict()
    ours_sd = ours.state_dict()
    assert sorted(ref_sd) == sorted(ours_sd), (
        f"names differ: only in the reference {sorted(set(ref_sd) - set(ours_sd))[:10]}, "
        f"only in ours {sorted(set(ours_sd) - set(ref_sd))[:10]}")
    for k, v in ref_sd.items():
        assert tuple(ours_sd[k].shape) == tuple(v.shape), (k, tuple(ours_sd[k].shape), tuple(v.shape))
    ours.load_state_dict({k: v.detach().numpy() for k, v in ref_sd.items()})


def _close(ours: np.ndarray, ref: np.ndarray, tol: float, what: str) -> None:
    """Max abs difference within ``tol`` of the reference's largest magnitude (and 1e-7 absolute)."""
    err = float(np.abs(ours - ref).max())
    scale = float(np.abs(ref).max())
    assert err <= tol * scale + 1e-7, f"{what}: max abs diff {err:.3g} > {tol} * {scale:.3g}"


def _check_parity(ref: tnn.Module, ours, shape=(2, 3, 224, 224), num_classes: int = 1000) -> None:
    torch.manual_seed(1)
    _copy_weights(ref, ours)
    x = torch.randn(*shape)
    target = torch.randint(0, num_classes, (shape[0],))

    # Eval-mode logits.
    ref.eval()
    ours.eval()
    with torch.no_grad():
        ref_logits = ref(x).numpy()
    with flow.no_grad():
        our_logits = ours(flow.tensor(x.numpy())).numpy()
    assert our_logits.shape == ref_logits.shape == (shape[0], num_classes)
    np.testing.assert_allclose(our_logits, ref_logits, rtol=1e-4, atol=1e-4)

    # One training step: same loss, same gradient of every parameter.
    ref.train()
    ours.train()
    ref_loss = TF.cross_entropy(ref(x), target)
    ref_loss.backward()
    our_loss = flow.nn.functional.cross_entropy(ours(flow.tensor(x.numpy())), flow.tensor(target.numpy()))
    our_loss.backward()
    np.testing.assert_allclose(our_loss.item(), ref_loss.item(), rtol=1e-4, atol=1e-5)
    ref_params = dict(ref.named_parameters())
    our_params = dict(ours.named_parameters())
    assert sorted(ref_params) == sorted(our_params)
    for name, p in ref_params.items():
        g = our_params[name].grad
        assert g is not None, f"no gradient for {name}"
        _close(g.numpy(), p.grad.numpy(), 1e-3, f"grad of {name}")

    # After one SGD step both give the same logits again.
    ref_opt = torch.optim.SGD(ref.parameters(), lr=0.1, momentum=0.9)
    our_opt = flow.optim.SGD(ours.parameters(), lr=0.1, momentum=0.9)
    ref_opt.step()
    our_opt.step()
    for name, p in ref_params.items():
        _close(our_params[name].detach().numpy(), p.detach().numpy(), 1e-4, f"updated {name}")
    ref.eval()
    ours.eval()
    with torch.no_grad():
        ref_logits = ref(x).numpy()
    with flow.no_grad():
        our_logits = ours(flow.tensor(x.numpy())).numpy()
    np.testing.assert_allclose(our_logits, ref_logits, rtol=1e-3, atol=1e-3)


# ----------------------------------------------------------------------------------------------
# Tests.
# ----------------------------------------------------------------------------------------------


def test_vit_base_patch16_224_parity():
    torch.manual_seed(0)
    ref = RefViT()
    ours = models.vit_base_patch16_224()
    assert sum(p.numel() for p in ref.parameters()) == 86_567_656
    _check_parity(ref, ours)


def test_swin_t_parity():
    torch.manual_seed(0)
    ref = RefSwin()
    ours = models.swin_t(stochastic_depth_prob=0.0)
    assert sum(p.numel() for p in ref.parameters()) == 28_288_354
    _check_parity(ref, ours)


def test_swin_t_parity_padded_input():
    """A 100x100 input pads every stage to whole windows (25 -> 28, 13 -> 14, 7, 4 -> 7)."""
    torch.manual_seed(0)
    ref = RefSwin(num_classes=10)
    ours = models.swin_t(stochastic_depth_prob=0.0, num_classes=10)
    _copy_weights(ref, ours)
    x = torch.randn(2, 3, 100, 100)
    ref.eval()
    ours.eval()
    with torch.no_grad():
        expected = ref(x).numpy()
    with flow.no_grad():
        got = ours(flow.tensor(x.numpy())).numpy()
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4)


def test_convnext_tiny_parity():
    torch.manual_seed(0)
    ref = RefConvNeXt()
    ours = models.convnext_tiny(stochastic_depth_prob=0.0)
    assert sum(p.numel() for p in ref.parameters()) == 28_589_128
    _check_parity(ref, ours)


@pytest.mark.parametrize("name", ["vit_base_patch16_224", "swin_t", "convnext_tiny"])
def test_state_dict_round_trip(name):
    """Our state dict, converted to torch tensors, loads into the reference with strict names."""
    ref = {"vit_base_patch16_224": RefViT, "swin_t": RefSwin, "convnext_tiny": RefConvNeXt}[name](num_classes=10)
    ours = getattr(models, name)(num_classes=10)
    ref.load_state_dict({k: torch.from_numpy(v.numpy().copy()) for k, v in ours.state_dict().items()})
    for k, v in ref.state_dict().items():
        np.testing.assert_array_equal(v.numpy(), ours.state_dict()[k].numpy())
