"""The transformer and timm-named model families: every constructor builds and trains.

Each registered constructor of convnext, vision_transformer, deit, swin_transformer,
rexnet, res2net, ghostnet, mlp_mixer and poolformer is built (with 10 classes), run
forward and backward on a 2x3x224x224 batch in training mode (every parameter gets a
finite gradient) and forward in eval mode; parameter counts are checked against the
published ones. The constructors are split into shards by the FLOWVISION_TEST_SHARD
environment variable (set by the Bazel targets, which also run the other tests only
in the "light" shard) so that each target stays short; without it every constructor runs.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

import oneflow as flow
from flowvision import models
from flowvision.models import ModelCreator

FAMILIES = ("convnext", "deit", "ghostnet", "mlp_mixer", "poolformer", "res2net", "rexnet", "swin_transformer",
            "vision_transformer")

# Shards of roughly equal time (1-2 minutes on a loaded 2-core machine); "light" also runs the other tests.
SHARDS = {
    "light": ["convnext_tiny", "deit_tiny_patch16_224", "deit_tiny_distilled_patch16_224", "deit_small_patch16_224",
              "deit_small_distilled_patch16_224", "ghostnet_050", "ghostnet_100", "ghostnet_130", "mixer_s16_224",
              "mixer_s32_224", "mixer_b32_224", "poolformer_s12", "poolformer_s24", "rexnet_100", "swin_t",
              "vit_tiny_patch16_224", "vit_small_patch16_224", "vit_small_patch32_224"],
    "medium_a": ["mixer_b16_224", "poolformer_s36", "res2net50_14w_8s", "res2net50_26w_4s", "res2net50_48w_2s",
                 "rexnet_130", "rexnet_150", "rexnet_200", "rexnet_300", "vit_base_patch32_224"],
    "medium_b": ["convnext_small", "res2net101_26w_4s", "res2net50_26w_6s", "res2net50_26w_8s", "res2next50",
                 "swin_s"],
    "heavy_a": ["convnext_base", "deit_base_patch16_224", "poolformer_m36", "poolformer_m48", "swin_b"],
    "heavy_b": ["deit_base_distilled_patch16_224", "mixer_l16_224", "mixer_l32_224", "vit_base_patch16_224"],
    "heavy_c": ["convnext_large", "vit_large_patch32_224"],
    "heavy_d": ["vit_large_patch16_224"],
}
SHARD = os.environ.get("FLOWVISION_TEST_SHARD")
ALL_NAMES = sorted(n for names in SHARDS.values() for n in names)
NAMES = sorted(SHARDS[SHARD]) if SHARD else ALL_NAMES

# Exact published parameter counts (1000 classes): torchvision's model tables and timm.
EXACT_PARAMS = {
    "vit_base_patch16_224": 86_567_656,
    "vit_base_patch32_224": 88_224_232,
    "vit_large_patch16_224": 304_326_632,
    "vit_large_patch32_224": 306_535_400,
    "deit_tiny_patch16_224": 5_717_416,
    "deit_base_patch16_224": 86_567_656,
    "swin_t": 28_288_354,
    "swin_s": 49_606_258,
    "swin_b": 87_768_224,
    "convnext_tiny": 28_589_128,
    "convnext_small": 50_223_688,
    "convnext_base": 88_591_464,
    "convnext_large": 197_767_336,
}
# Published counts in millions, to the two decimals the model tables give.
APPROX_PARAMS_M = {
    "vit_tiny_patch16_224": 5.72,
    "vit_small_patch16_224": 22.05,
    "deit_small_patch16_224": 22.05,
    "deit_tiny_distilled_patch16_224": 5.91,
    "deit_small_distilled_patch16_224": 22.44,
    "deit_base_distilled_patch16_224": 87.34,
    "rexnet_100": 4.80,
    "rexnet_130": 7.56,
    "rexnet_150": 9.73,
    "rexnet_200": 16.37,
    "ghostnet_050": 2.59,
    "ghostnet_100": 5.18,
    "ghostnet_130": 7.36,
    "res2net50_26w_4s": 25.70,
    "res2net50_48w_2s": 25.29,
    "res2net50_14w_8s": 25.06,
    "res2net50_26w_6s": 37.05,
    "res2net50_26w_8s": 48.40,
    "res2net101_26w_4s": 45.21,
    "res2next50": 24.67,
    "mixer_b16_224": 59.88,
    "mixer_l16_224": 208.20,
    "poolformer_s12": 11.92,
    "poolformer_s24": 21.39,
    "poolformer_s36": 30.86,
    "poolformer_m36": 56.17,
    "poolformer_m48": 73.47,
}


def _classifier_widths(model) -> list[int]:
    """in_features of the classification heads (their size depends on num_classes)."""
    heads = []
    for name, m in model.named_modules():
        if isinstance(m, flow.nn.Linear) and m.out_features == 10 and name.split(".")[-1] in (
                "head", "head_dist", "fc", "classifier", "2"):
            heads.append(m.in_features)
    return heads


def test_every_constructor_is_sharded_once():
    registered = sorted(n for n in ModelCreator.model_list()
                        if ModelCreator._registry[n].__module__.rsplit(".", 1)[-1] in FAMILIES)
    assert registered == ALL_NAMES
    assert len(ALL_NAMES) == len(set(ALL_NAMES)) == 46


@pytest.mark.parametrize("name", NAMES)
def test_build_forward_backward(name):
    flow.manual_seed(0)
    model = getattr(models, name)(num_classes=10)
    # Parameter count for 1000 classes: ours with 10 classes plus 990 more rows per head.
    n10 = sum(p.numel() for p in model.parameters())
    heads = _classifier_widths(model)
    assert heads, "no classification head found"
    n1000 = n10 + sum(990 * (w + 1) for w in heads)
    if name in EXACT_PARAMS:
        assert n1000 == EXACT_PARAMS[name]
    if name in APPROX_PARAMS_M:
        assert round(n1000 / 1e6, 2) == pytest.approx(APPROX_PARAMS_M[name], abs=0.011), n1000

    x = flow.randn(2, 3, 224, 224)
    model.train()
    out = model(x)
    assert tuple(out.shape) == (2, 10)
    loss = flow.nn.functional.cross_entropy(out, flow.tensor([1, 7]))
    loss.backward()
    assert np.isfinite(loss.item())
    for pname, p in model.named_parameters():
        assert p.grad is not None, f"{name}: no gradient for {pname}"
        assert np.isfinite(p.grad.numpy()).all(), f"{name}: non-finite gradient for {pname}"

    model.eval()
    with flow.no_grad():
        logits = model(x).numpy()
    assert logits.shape == (2, 10) and np.isfinite(logits).all()


def test_create_model_and_table():
    m = ModelCreator.create_model("deit_tiny_patch16_224", num_classes=3)
    assert isinstance(m, models.VisionTransformer) and m.head.out_features == 3
    table = ModelCreator.model_table("swin_*")
    assert "swin_t" in table and "swin_b" in table and "swin_transformer" in table
    with pytest.raises(ValueError, match="vit_base_patch16_224"):
        ModelCreator.create_model("vit_base_patch16")


def test_deit_distilled_heads():
    flow.manual_seed(0)
    m = models.deit_tiny_distilled_patch16_224(num_classes=5)
    assert tuple(m.dist_token.shape) == (1, 1, 192)
    assert tuple(m.pos_embed.shape) == (1, 198, 192)
    assert {"dist_token", "head_dist.weight", "head_dist.bias"} <= set(m.state_dict())
    x = flow.randn(2, 3, 224, 224)
    m.eval()
    with flow.no_grad():
        tokens = m.forward_features(x)
        expected = (m.head(tokens[:, 0]) + m.head_dist(tokens[:, 1])) / 2
        np.testing.assert_allclose(m(x).numpy(), expected.numpy(), rtol=1e-5, atol=1e-6)
    m.train()
    assert tuple(m(x).shape) == (2, 5)  # averaged unless distilled training is on
    m.set_distilled_training(True)
    cls_logits, dist_logits = m(x)
    assert tuple(cls_logits.shape) == tuple(dist_logits.shape) == (2, 5)
    (cls_logits.sum() + dist_logits.sum()).backward()
    assert m.head_dist.weight.grad is not None and m.dist_token.grad is not None
    m.eval()
    assert tuple(m(x).shape) == (2, 5)


def test_vit_options():
    flow.manual_seed(0)
    m = models.vit_tiny_patch16_224(num_classes=0, img_size=64)
    assert tuple(m.pos_embed.shape) == (1, 17, 192)
    assert tuple(m(flow.randn(2, 3, 64, 64)).shape) == (2, 192)  # no head: pooled features
    avg = models.vit_tiny_patch16_224(num_classes=4, img_size=32, global_pool="avg", init_values=1e-5)
    assert "fc_norm.weight" in avg.state_dict() and "blocks.0.ls1.gamma" in avg.state_dict()
    assert "norm.weight" not in avg.state_dict()
    assert tuple(avg(flow.randn(1, 3, 32, 32)).shape) == (1, 4)
    with pytest.raises(ValueError, match="global_pool"):
        models.vit_tiny_patch16_224(global_pool="max")


def test_drop_path_rates_follow_depth():
    m = models.convnext_tiny(num_classes=2)
    rates = [b.stochastic_depth.drop_prob for stage in m.features[1::2] for b in stage]
    np.testing.assert_allclose(rates, np.linspace(0, 0.1, 18))
    s = models.swin_t(num_classes=2)
    rates = [b.stochastic_depth.drop_prob for stage in s.features[1::2] for b in stage]
    np.testing.assert_allclose(rates, np.linspace(0, 0.2, 12))
    v = models.vit_tiny_patch16_224(num_classes=2, drop_path_rate=0.1)
    np.testing.assert_allclose([getattr(b.drop_path1, "drop_prob", 0.0) for b in v.blocks], np.linspace(0, 0.1, 12))
    assert isinstance(v.blocks[0].drop_path1, flow.nn.Identity)  # rate 0: no module
    # Stochastic depth makes training forwards random and leaves eval deterministic.
    v.train()
    x = flow.randn(2, 3, 224, 224)
    flow.manual_seed(1)
    a = v(x).detach().numpy()
    flow.manual_seed(2)
    b = v(x).detach().numpy()
    assert not np.allclose(a, b)


def test_swin_buffers_and_names():
    m = models.swin_t(num_classes=2)
    sd = m.state_dict()
    idx = sd["features.1.0.attn.relative_position_index"]
    assert idx.dtype == flow.int64 and tuple(idx.shape) == (2401,)
    values = idx.numpy()
    assert values.min() == 0 and values.max() == 168 and values[0] == 84  # offset (0, 0) is the centre
    assert tuple(sd["features.1.0.attn.relative_position_bias_table"].shape) == (169, 3)
    assert tuple(sd["features.2.reduction.weight"].shape) == (192, 384)
    assert tuple(sd["features.1.1.mlp.3.weight"].shape) == (96, 384)
    # A non-square input that is not a multiple of the window works (padding).
    assert tuple(m(flow.randn(1, 3, 96, 160)).shape) == (1, 2)


def test_timm_names():
    """A few parameter names and shapes per family, as in timm's / torchvision's state dicts."""
    expected = {
        "rexnet_100": {"stem.conv.weight": (32, 3, 3, 3), "features.0.conv_dw.conv.weight": (32, 1, 3, 3),
                       "features.3.se.fc1.weight": (19, 228, 1, 1), "features.3.se.bn.running_mean": (19,),
                       "features.16.conv.weight": (1280, 185, 1, 1), "head.fc.weight": (1000, 1280)},
        "res2net50_26w_4s": {"conv1.weight": (64, 3, 7, 7), "layer1.0.conv1.weight": (104, 64, 1, 1),
                             "layer1.0.convs.2.weight": (26, 26, 3, 3), "layer1.0.bns.0.running_var": (26,),
                             "layer1.0.downsample.0.weight": (256, 64, 1, 1), "fc.weight": (1000, 2048)},
        "ghostnet_100": {"conv_stem.weight": (16, 3, 3, 3), "blocks.0.0.ghost1.primary_conv.0.weight": (8, 16, 1, 1),
                         "blocks.0.0.ghost1.cheap_operation.0.weight": (8, 1, 3, 3),
                         "blocks.3.0.se.conv_reduce.weight": (20, 72, 1, 1), "blocks.9.0.conv.weight": (960, 160, 1, 1),
                         "blocks.9.0.bn1.running_var": (960,),
                         "blocks.1.0.shortcut.2.weight": (24, 16, 1, 1), "conv_head.weight": (1280, 960, 1, 1),
                         "classifier.weight": (1000, 1280)},
        "mixer_s32_224": {"stem.proj.weight": (512, 3, 32, 32), "blocks.0.mlp_tokens.fc1.weight": (256, 49),
                          "blocks.0.mlp_channels.fc2.weight": (512, 2048), "norm.weight": (512,),
                          "head.weight": (1000, 512)},
        "poolformer_s12": {"patch_embed.proj.weight": (64, 3, 7, 7), "network.0.0.norm1.weight": (64,),
                           "network.0.0.mlp.fc1.weight": (256, 64, 1, 1), "network.0.0.layer_scale_1": (64,),
                           "network.1.proj.weight": (128, 64, 3, 3), "network.6.1.layer_scale_2": (512,),
                           "norm.weight": (512,), "head.weight": (1000, 512)},
        "deit_tiny_patch16_224": {"cls_token": (1, 1, 192), "pos_embed": (1, 197, 192),
                                  "patch_embed.proj.weight": (192, 3, 16, 16), "blocks.11.attn.qkv.weight": (576, 192),
                                  "blocks.0.mlp.fc2.weight": (192, 768), "head.weight": (1000, 192)},
        "convnext_tiny": {"features.0.0.weight": (96, 3, 4, 4), "features.0.1.weight": (96,),
                          "features.1.0.block.0.weight": (96, 1, 7, 7), "features.1.0.block.3.weight": (384, 96),
                          "features.1.0.layer_scale": (96, 1, 1), "features.2.1.weight": (192, 96, 2, 2),
                          "classifier.0.weight": (768,), "classifier.2.weight": (1000, 768)},
    }
    for name, shapes in expected.items():
        sd = getattr(models, name)().state_dict()
        for key, shape in shapes.items():
            assert key in sd, f"{name}: {key} missing"
            assert tuple(sd[key].shape) == shape, (name, key, tuple(sd[key].shape))


def test_bad_input():
    vit = models.vit_tiny_patch16_224(num_classes=2)
    with pytest.raises(ValueError, match=r"input image size \(112x112\) doesn't match the model \(224x224\)"):
        vit(flow.randn(1, 3, 112, 112))
    with pytest.raises(ValueError, match=r"got shape \(3, 224, 224\)"):
        vit(flow.randn(3, 224, 224))
    mixer = models.mixer_s32_224(num_classes=2)
    with pytest.raises(ValueError, match="doesn't match the model"):
        mixer(flow.randn(1, 3, 192, 224))
    for ctor in (models.convnext_tiny, models.swin_t):
        m = ctor(num_classes=2)
        with pytest.raises(ValueError, match=r"expected an \(N, 3, H, W\) image batch, got shape \(1, 1, 64, 64\)"):
            m(flow.randn(1, 1, 64, 64))
    for ctor in (models.rexnet_100, models.res2net50_26w_4s, models.ghostnet_050, models.poolformer_s12):
        with pytest.raises(ValueError, match=r"image batch, got shape \(3, 64, 64\)"):
            ctor(num_classes=2)(flow.randn(3, 64, 64))
    # A checkpoint for another number of classes names the keys and shapes.
    small = models.deit_tiny_patch16_224(num_classes=10)
    with pytest.raises(RuntimeError, match="head.weight"):
        small.load_state_dict(models.deit_tiny_patch16_224().state_dict())


def test_convnets_take_other_sizes():
    flow.manual_seed(0)
    for ctor in (models.convnext_tiny, models.rexnet_100, models.res2net50_26w_4s, models.ghostnet_050,
                 models.poolformer_s12, models.swin_t):
        m = ctor(num_classes=3).eval()
        with flow.no_grad():
            assert tuple(m(flow.randn(1, 3, 96, 128)).shape) == (1, 3), ctor.__name__
