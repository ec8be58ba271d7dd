"""flowvision.layers: DropPath, trunc_normal_, LayerNorm2d, SE/ECA, Mlp, PatchEmbed, helpers.

Statistics are checked against their exact values; the layers with weights against
references written in plain PyTorch, with the weights copied over by name.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
import torch.nn.functional as TF
from torch import nn as tnn

import oneflow as flow
from flowvision import layers
from flowvision.layers import (
    DropPath,
    EcaModule,
    LayerNorm2d,
    Mlp,
    PatchEmbed,
    SEModule,
    SqueezeExcite,
    drop_path,
    make_divisible,
    to_2tuple,
    trunc_normal_,
)

# ----------------------------------------------------------------------------------------------
# DropPath
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("p", [0.1, 0.3, 0.7])
def test_drop_path_train_statistics(p):
    flow.manual_seed(0)
    n = 20000
    x = flow.ones(n, 4, 3)
    y = DropPath(p).train()(x).numpy().reshape(n, -1)
    # Whole samples are either dropped or kept (and rescaled by 1 / keep).
    per_sample = y[:, :1]
    assert np.all(y == per_sample)
    values = np.unique(per_sample)
    np.testing.assert_allclose(values, [0.0, 1.0 / (1.0 - p)], rtol=1e-6)
    dropped = float((per_sample == 0).mean())
    # Binomial: the standard error is sqrt(p(1-p)/n) < 0.0036; allow 5 of them.
    assert abs(dropped - p) < 5 * math.sqrt(p * (1 - p) / n), dropped
    # The expectation is unchanged.
    assert abs(float(y.mean()) - 1.0) < 5 * math.sqrt(p / (1 - p) / n)


def test_drop_path_eval_and_zero_rate_are_identity():
    x = flow.randn(8, 3, 5, 5)
    m = DropPath(0.5).eval()
    assert m(x) is x
    assert DropPath(0.0).train()(x) is x
    assert drop_path(x, 0.5, training=False) is x
    assert drop_path(x, 0.0, training=True) is x


def test_drop_path_no_rescale_and_all_dropped():
    flow.manual_seed(1)
    x = flow.ones(1000, 2)
    y = drop_path(x, 0.4, training=True, scale_by_keep=False).numpy()
    assert set(np.unique(y).tolist()) == {0.0, 1.0}
    assert not np.any(drop_path(x, 1.0, training=True).numpy())


def test_drop_path_gradient_is_the_mask():
    flow.manual_seed(2)
    x = flow.randn(64, 7, requires_grad=True)
    y = drop_path(x, 0.5, training=True)
    y.sum().backward()
    mask = x.grad.numpy()
    np.testing.assert_allclose(y.detach().numpy(), x.detach().numpy() * mask, rtol=1e-6)
    assert set(np.unique(mask).tolist()) <= {0.0, 2.0}


def test_drop_path_is_seeded():
    x = flow.ones(100, 3)
    flow.manual_seed(5)
    a = drop_path(x, 0.5, training=True).numpy()
    flow.manual_seed(5)
    b = drop_path(x, 0.5, training=True).numpy()
    np.testing.assert_array_equal(a, b)


def test_drop_path_repr_and_bad_rate():
    assert "drop_prob=0.250" in repr(DropPath(0.25))
    with pytest.raises(ValueError, match="drop_prob"):
        drop_path(flow.ones(2, 2), 1.5, training=True)


# ----------------------------------------------------------------------------------------------
# trunc_normal_
# ----------------------------------------------------------------------------------------------


def _truncated_moments(mean, std, a, b):
    alpha, beta = (a - mean) / std, (b - mean) / std
    pdf = lambda t: math.exp(-t * t / 2) / math.sqrt(2 * math.pi)
    cdf = lambda t: 0.5 * (1 + math.erf(t / math.sqrt(2)))
    z = cdf(beta) - cdf(alpha)
    m = mean + std * (pdf(alpha) - pdf(beta)) / z
    v = std**2 * (1 + (alpha * pdf(alpha) - beta * pdf(beta)) / z - ((pdf(alpha) - pdf(beta)) / z) ** 2)
    return m, v


@pytest.mark.parametrize("mean,std,a,b", [
    (0.0, 0.02, -2.0, 2.0),  # the models' call: bounds far in the tails
    (0.0, 1.0, -2.0, 2.0),
    (0.5, 1.0, -1.0, 3.0),
    (0.0, 2.0, -1.0, 1.0),  # bounds inside one std: close to uniform
    (1.0, 0.5, 0.0, 1.2),
])
def test_trunc_normal_bounds_and_moments(mean, std, a, b):
    flow.manual_seed(0)
    n = 200_000
    t = flow.empty(n)
    out = trunc_normal_(t, mean=mean, std=std, a=a, b=b)
    assert out is t
    v = t.numpy().astype(np.float64)
    assert v.min() >= a and v.max() <= b
    m_exact, var_exact = _truncated_moments(mean, std, a, b)
    sd = math.sqrt(var_exact)
    assert abs(v.mean() - m_exact) < 5 * sd / math.sqrt(n), (v.mean(), m_exact)
    assert abs(v.var() - var_exact) < 0.02 * var_exact, (v.var(), var_exact)
    # Same distribution as torch's (two-sample comparison of a few quantiles).
    torch.manual_seed(0)
    ref = tnn.init.trunc_normal_(torch.empty(n), mean=mean, std=std, a=a, b=b).numpy()
    qs = [0.01, 0.1, 0.5, 0.9, 0.99]
    np.testing.assert_allclose(np.quantile(v, qs), np.quantile(ref, qs), atol=0.02 * (b - a))


def test_trunc_normal_is_seeded_and_keeps_no_grad():
    w = flow.nn.Parameter(flow.empty(50, 20))
    flow.manual_seed(3)
    trunc_normal_(w, std=0.02)
    first = w.detach().numpy().copy()
    flow.manual_seed(3)
    trunc_normal_(w, std=0.02)
    np.testing.assert_array_equal(first, w.detach().numpy())
    assert w.grad is None and w.requires_grad
    assert abs(float(first.std()) - 0.02) < 0.002


def test_layers_reexports():
    for name in layers.__all__:
        assert getattr(layers, name) is not None
    assert to_2tuple(3) == (3, 3)
    assert to_2tuple((4, 5)) == (4, 5)
    assert to_2tuple([1, 2]) == (1, 2)
    assert to_2tuple("ab") == ("ab", "ab")
    assert make_divisible(37, 8) == 40
    assert make_divisible(33, 8) == 32
    assert make_divisible(9, 8) == 16  # 8 would lose more than 10%
    assert make_divisible(3, 8) == 8
    assert make_divisible(16 * 0.5, 4) == 8


# ----------------------------------------------------------------------------------------------
# LayerNorm2d
# ----------------------------------------------------------------------------------------------


def test_layer_norm_2d_matches_permuted_layer_norm():
    torch.manual_seed(0)
    x = torch.randn(3, 16, 7, 5, requires_grad=True)
    weight = torch.randn(16, requires_grad=True)
    bias = torch.randn(16, requires_grad=True)
    ref = TF.layer_norm(x.permute(0, 2, 3, 1), (16,), weight, bias, 1e-6).permute(0, 3, 1, 2)
    upstream = torch.randn_like(ref)
    ref.backward(upstream)

    m = LayerNorm2d(16)
    assert m.eps == 1e-6 and tuple(m.weight.shape) == (16,) and tuple(m.bias.shape) == (16,)
    assert sorted(m.state_dict()) == ["bias", "weight"]
    m.load_state_dict({"weight": weight.detach().numpy(), "bias": bias.detach().numpy()})
    fx = flow.tensor(x.detach().numpy(), requires_grad=True)
    out = m(fx)
    out.backward(flow.tensor(upstream.numpy()))
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(fx.grad.numpy(), x.grad.numpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(m.weight.grad.numpy(), weight.grad.numpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(m.bias.grad.numpy(), bias.grad.numpy(), rtol=1e-4, atol=1e-5)
    # Each position is normalised over the channels only.
    y = out.detach().numpy()
    plain = LayerNorm2d(16)
    z = plain(fx).detach().numpy()
    np.testing.assert_allclose(z.mean(axis=1), 0.0, atol=1e-5)
    np.testing.assert_allclose(z.var(axis=1), 1.0, atol=1e-3)
    assert y.shape == (3, 16, 7, 5)


def test_layer_norm_2d_rejects_other_ranks():
    with pytest.raises(ValueError, match=r"LayerNorm2d: expected an \(N, C, H, W\) input, got shape \(2, 16\)"):
        LayerNorm2d(16)(flow.randn(2, 16))


# ----------------------------------------------------------------------------------------------
# SE / ECA against torch references
# ----------------------------------------------------------------------------------------------


class RefSEModule(tnn.Module):
    def __init__(self, c, rd, bn):
        super().__init__()
        self.fc1 = tnn.Conv2d(c, rd, 1)
        self.bn = tnn.BatchNorm2d(rd) if bn else tnn.Identity()
        self.act = tnn.ReLU()
        self.fc2 = tnn.Conv2d(rd, c, 1)

    def forward(self, x):
        s = x.mean((2, 3), keepdim=True)
        return x * torch.sigmoid(self.fc2(self.act(self.bn(self.fc1(s)))))


class RefSqueezeExcite(tnn.Module):
    def __init__(self, c, rd):
        super().__init__()
        self.conv_reduce = tnn.Conv2d(c, rd, 1)
        self.conv_expand = tnn.Conv2d(rd, c, 1)

    def forward(self, x):
        s = self.conv_expand(TF.relu(self.conv_reduce(x.mean((2, 3), keepdim=True))))
        return x * TF.hardsigmoid(s)


class RefEca(tnn.Module):
    def __init__(self, k):
        super().__init__()
        self.conv = tnn.Conv1d(1, 1, k, padding=k // 2, bias=False)

    def forward(self, x):
        y = self.conv(x.mean((2, 3))[:, None, :])
        return x * torch.sigmoid(y)[:, 0, :, None, None]


def _compare_module(ref: tnn.Module, ours, x: torch.Tensor, train: bool) -> None:
    assert sorted(ref.state_dict()) == sorted(ours.state_dict())
    ours.load_state_dict({k: v.numpy() for k, v in ref.state_dict().items()})
    ref.train(train)
    ours.train(train)
    x = x.clone().requires_grad_(True)
    expected = ref(x)
    upstream = torch.randn_like(expected)
    expected.backward(upstream)
    fx = flow.tensor(x.detach().numpy(), requires_grad=True)
    got = ours(fx)
    got.backward(flow.tensor(upstream.numpy()))
    np.testing.assert_allclose(got.detach().numpy(), expected.detach().numpy(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(fx.grad.numpy(), x.grad.numpy(), rtol=1e-4, atol=1e-5)
    our_params = dict(ours.named_parameters())
    for name, p in ref.named_parameters():
        np.testing.assert_allclose(our_params[name].grad.numpy(), p.grad.numpy(), rtol=1e-4, atol=1e-5,
                                   err_msg=name)
    if train:
        for name, b in ref.named_buffers():
            np.testing.assert_allclose(ours.state_dict()[name].numpy(), b.numpy(), rtol=1e-5, atol=1e-6,
                                       err_msg=name)


@pytest.mark.parametrize("bn,train", [(False, True), (True, True), (True, False)])
def test_se_module_matches_torch(bn, train):
    torch.manual_seed(0)
    ours = SEModule(32, rd_channels=8, norm_layer=flow.nn.BatchNorm2d if bn else None)
    assert tuple(ours.fc1.weight.shape) == (8, 32, 1, 1)
    _compare_module(RefSEModule(32, 8, bn), ours, torch.randn(4, 32, 6, 6), train)


def test_se_module_reduction_rule():
    assert SEModule(64).fc1.out_channels == 8  # 64 / 16, rounded to a multiple of 8
    assert SEModule(64, rd_ratio=0.25, rd_divisor=1).fc1.out_channels == 16
    se = SEModule(16, rd_channels=4, add_maxpool=True)
    x = flow.randn(2, 16, 3, 3)
    with flow.no_grad():
        pooled = 0.5 * x.mean((2, 3), keepdim=True) + 0.5 * x.amax((2, 3), keepdim=True)
        expected = x * flow.sigmoid(se.fc2(flow.relu(se.fc1(pooled))))
        np.testing.assert_allclose(se(x).numpy(), expected.numpy(), rtol=1e-5, atol=1e-6)


def test_squeeze_excite_matches_torch():
    torch.manual_seed(1)
    ours = SqueezeExcite(40, rd_ratio=0.25, gate_layer="hard_sigmoid")
    assert ours.conv_reduce.out_channels == 10
    _compare_module(RefSqueezeExcite(40, 10), ours, torch.randn(3, 40, 5, 4), True)


@pytest.mark.parametrize("channels,kernel", [(64, 3), (256, 5), (512, 5), (1024, 5), (2048, 7)])
def test_eca_kernel_rule_and_matches_torch(channels, kernel):
    torch.manual_seed(2)
    ours = EcaModule(channels)
    assert ours.conv.kernel_size == (kernel,)
    assert tuple(ours.conv.weight.shape) == (1, 1, kernel)
    _compare_module(RefEca(kernel), ours, torch.randn(2, channels, 3, 3), True)


def test_attention_blocks_reject_bad_rank():
    for m in (SEModule(8, rd_channels=2), SqueezeExcite(8), EcaModule(8)):
        with pytest.raises(ValueError, match=r"expected an \(N, C, H, W\) input"):
            m(flow.randn(2, 8))
    with pytest.raises(ValueError, match="odd"):
        EcaModule(kernel_size=4)


# ----------------------------------------------------------------------------------------------
# Mlp and PatchEmbed
# ----------------------------------------------------------------------------------------------


def test_mlp_matches_torch_and_names():
    torch.manual_seed(3)
    ref = tnn.Sequential()
    ref.fc1 = tnn.Linear(24, 48)
    ref.act = tnn.GELU()
    ref.fc2 = tnn.Linear(48, 10)
    ours = Mlp(24, 48, 10)
    _compare_module(ref, ours, torch.randn(5, 7, 24), True)
    conv = Mlp(8, 16, use_conv=True)
    assert tuple(conv.fc1.weight.shape) == (16, 8, 1, 1)
    assert tuple(conv(flow.randn(2, 8, 3, 3)).shape) == (2, 8, 3, 3)


def test_patch_embed_matches_torch():
    torch.manual_seed(4)
    pe = PatchEmbed(img_size=32, patch_size=8, in_chans=3, embed_dim=12)
    assert pe.num_patches == 16 and pe.grid_size == (4, 4)
    ref = tnn.Module()
    ref.proj = tnn.Conv2d(3, 12, 8, 8)
    pe.load_state_dict({k: v.numpy() for k, v in ref.state_dict().items()})
    x = torch.randn(2, 3, 32, 32)
    expected = ref.proj(x).flatten(2).transpose(1, 2).detach().numpy()
    got = pe(flow.tensor(x.numpy())).detach().numpy()
    assert got.shape == (2, 16, 12)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)
    # Not flattened: a feature map; with a norm: normalised tokens.
    assert tuple(PatchEmbed(32, 8, 3, 12, flatten=False)(flow.randn(1, 3, 32, 32)).shape) == (1, 12, 4, 4)
    normed = PatchEmbed(32, 8, 3, 12, norm_layer=flow.nn.LayerNorm)(flow.randn(1, 3, 32, 32)).detach().numpy()
    np.testing.assert_allclose(normed.mean(-1), 0.0, atol=1e-5)


def test_patch_embed_bad_input():
    pe = PatchEmbed(img_size=32, patch_size=8, in_chans=3, embed_dim=12)
    with pytest.raises(ValueError, match=r"input image size \(16x32\) doesn't match the model \(32x32\)"):
        pe(flow.randn(1, 3, 16, 32))
    with pytest.raises(ValueError, match=r"expected an \(N, 3, H, W\) image batch, got shape \(3, 32, 32\)"):
        pe(flow.randn(3, 32, 32))
    with pytest.raises(ValueError, match=r"got shape \(1, 1, 32, 32\)"):
        pe(flow.randn(1, 1, 32, 32))
    loose = PatchEmbed(img_size=32, patch_size=8, in_chans=3, embed_dim=12, strict_img_size=False)
    assert tuple(loose(flow.randn(1, 3, 16, 24)).shape) == (1, 6, 12)
    with pytest.raises(ValueError, match="not a multiple of the patch size"):
        loose(flow.randn(1, 3, 20, 24))
