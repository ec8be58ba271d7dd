"""The torchvision CNN families of flowvision: every constructor builds with torchvision's
published parameter count, runs forward and backward, and names its weights like torchvision.

The forward/backward cases use the smallest convenient input each architecture allows
(64x64 for the stride-32 networks, 299x299 for Inception v3 with its auxiliary head) to
keep the target fast; the parameter counts are torchvision's documented ones.
"""

import math
import warnings

import numpy as np
import pytest

import oneflow as flow
from flowvision import models
from flowvision.models import ModelCreator

# torchvision's documented parameter counts (default arguments, 1000 classes).
PARAM_COUNTS = {
    "resnet18": 11_689_512,
    "resnet34": 21_797_672,
    "resnet50": 25_557_032,
    "resnet101": 44_549_160,
    "resnet152": 60_192_808,
    "resnext50_32x4d": 25_028_904,
    "resnext101_32x8d": 88_791_336,
    "resnext101_64x4d": 83_455_272,
    "wide_resnet50_2": 68_883_240,
    "wide_resnet101_2": 126_886_696,
    "vgg11": 132_863_336,
    "vgg11_bn": 132_868_840,
    "vgg13": 133_047_848,
    "vgg13_bn": 133_053_736,
    "vgg16": 138_357_544,
    "vgg16_bn": 138_365_992,
    "vgg19": 143_667_240,
    "vgg19_bn": 143_678_248,
    "alexnet": 61_100_840,
    "squeezenet1_0": 1_248_424,
    "squeezenet1_1": 1_235_496,
    "densenet121": 7_978_856,
    "densenet161": 28_681_000,
    "densenet169": 14_149_480,
    "densenet201": 20_013_928,
    # With the two auxiliary classifiers (the default); 6,624,904 without them.
    "googlenet": 13_004_888,
    "inception_v3": 27_161_264,
    "mobilenet_v2": 3_504_872,
    "mobilenet_v3_large": 5_483_032,
    "mobilenet_v3_small": 2_542_856,
    "shufflenet_v2_x0_5": 1_366_792,
    "shufflenet_v2_x1_0": 2_278_604,
    "shufflenet_v2_x1_5": 3_503_624,
    "shufflenet_v2_x2_0": 7_393_996,
    "mnasnet0_5": 2_218_512,
    "mnasnet0_75": 3_170_208,
    "mnasnet1_0": 4_383_312,
    "mnasnet1_3": 6_282_256,
    "efficientnet_b0": 5_288_548,
    "efficientnet_b1": 7_794_184,
    "efficientnet_b2": 9_109_994,
    "efficientnet_b3": 12_233_232,
    "efficientnet_b4": 19_341_616,
    "efficientnet_b5": 30_389_784,
    "efficientnet_b6": 43_040_704,
    "efficientnet_b7": 66_347_960,
    "efficientnet_v2_s": 21_458_488,
    "efficientnet_v2_m": 54_139_356,
    "efficientnet_v2_l": 118_515_272,
    "regnet_x_400mf": 5_495_976,
    "regnet_x_800mf": 7_259_656,
    "regnet_x_1_6gf": 9_190_136,
    "regnet_x_3_2gf": 15_296_552,
    "regnet_x_8gf": 39_572_648,
    "regnet_x_16gf": 54_278_536,
    "regnet_x_32gf": 107_811_560,
    "regnet_y_400mf": 4_344_144,
    "regnet_y_800mf": 6_432_512,
    "regnet_y_1_6gf": 11_202_430,
    "regnet_y_3_2gf": 19_436_338,
    "regnet_y_8gf": 39_381_472,
    "regnet_y_16gf": 83_590_140,
    "regnet_y_32gf": 145_046_770,
}

FAMILIES = {"resnet", "vgg", "alexnet", "squeezenet", "densenet", "googlenet", "inception", "mobilenetv2",
            "mobilenetv3", "shufflenetv2", "mnasnet", "efficientnet", "regnet"}

# Input side per model: the smallest convenient one (stride-32 nets work from 32; AlexNet
# needs 63; Inception v3's auxiliary head needs the native 299).
SIDE = {"inception_v3": 299, "alexnet": 64}

# The biggest models (100M+ parameters, or deep): their build test replaces the normal-family
# initializers by a uniform fill of the same variance (oneflow's normal_ is several times slower
# than torch's, and these models spend most of their test in it). Each one's family keeps a
# smaller member built with the real initialization, which the init test also checks.
FAST_INIT = {"vgg11", "vgg13", "vgg13_bn", "vgg16", "vgg16_bn", "vgg19", "vgg19_bn", "wide_resnet101_2",
             "resnext101_32x8d", "resnext101_64x4d", "wide_resnet50_2", "regnet_x_32gf", "regnet_y_32gf",
             "regnet_y_16gf", "regnet_x_16gf", "regnet_x_8gf", "regnet_y_8gf", "efficientnet_v2_l",
             "efficientnet_v2_m", "efficientnet_b7", "efficientnet_b6", "resnet152", "resnet101"}


def _fast_init(monkeypatch):
    init = flow.nn.init

    def std_of(tensor, a, mode, nonlinearity):
        receptive = math.prod(tensor.shape[2:]) if tensor.dim() > 2 else 1
        fan = (tensor.shape[1] if mode == "fan_in" else tensor.shape[0]) * receptive
        return init.calculate_gain(nonlinearity, a) / math.sqrt(fan)

    def uniform_like(tensor, mean, std):
        with flow.no_grad():
            return tensor.uniform_(mean - std * math.sqrt(3.0), mean + std * math.sqrt(3.0))

    monkeypatch.setattr(init, "kaiming_normal_", lambda t, a=0, mode="fan_in", nonlinearity="leaky_relu", **_:
                        uniform_like(t, 0.0, std_of(t, a, mode, nonlinearity)))
    monkeypatch.setattr(init, "normal_", lambda t, mean=0.0, std=1.0, **_: uniform_like(t, mean, std))
    monkeypatch.setattr(init, "trunc_normal_", lambda t, mean=0.0, std=1.0, a=-2.0, b=2.0, **_:
                        uniform_like(t, mean, std))


def _check_inception_init(m):
    # Truncated normal, std 0.1 (0.001 for the auxiliary fc), cut at +-2.
    return float(m.fc.weight.abs().max()) <= 2.0 and abs(float(m.AuxLogits.fc.weight.std()) - 0.001) < 0.0002


# Per-model checks of default arguments done on the model the build test constructs anyway.
EXTRA_CHECKS = {
    "efficientnet_b0": lambda m: m.classifier[0].p == 0.2 and m.features[0][1].eps == 1e-5,
    "efficientnet_b3": lambda m: m.classifier[0].p == 0.3,
    "efficientnet_b4": lambda m: m.classifier[0].p == 0.4 and m.features[0][1].eps == 1e-5,
    "efficientnet_b5": lambda m: m.features[0][1].eps == 1e-3 and m.features[0][1].momentum == 0.01,
    "efficientnet_b7": lambda m: m.classifier[0].p == 0.5 and m.features[0][1].eps == 1e-3,
    "efficientnet_v2_s": lambda m: m.features[0][1].eps == 1e-3 and m.features[0][1].momentum == 0.1,
    "inception_v3": _check_inception_init,
    "squeezenet1_0": lambda m: m.classifier[0].p == 0.5,
    "mnasnet0_5": lambda m: abs(m.layers[1].momentum - (1 - 0.9997)) < 1e-12,
    "mobilenet_v2": lambda m: m.classifier[0].p == 0.2,
    "vgg11": lambda m: m.classifier[2].p == 0.5,
    "densenet121": lambda m: m.features.denseblock1.denselayer1.drop_rate == 0.0,
}


def _build(name, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # GoogLeNet/Inception's init_weights notice
        return ModelCreator.create_model(name, **kwargs)


def _num_params(model):
    return sum(p.numel() for p in model.parameters())


def _outputs(out):
    return list(out) if isinstance(out, tuple) else [out]


def test_all_constructors_registered():
    mine = {n for n in ModelCreator.model_list() if ModelCreator._registry[n].__module__.rsplit(".", 1)[-1]
            in FAMILIES}
    assert mine == set(PARAM_COUNTS)
    for name in PARAM_COUNTS:
        assert getattr(models, name) is ModelCreator._registry[name]


def _check_build_forward_backward(name, monkeypatch):
    flow.manual_seed(0)
    fast = name in FAST_INIT
    if fast:
        _fast_init(monkeypatch)
    model = _build(name)
    assert _num_params(model) == PARAM_COUNTS[name], name
    if name in EXTRA_CHECKS:
        assert EXTRA_CHECKS[name](model), name
    side = SIDE.get(name, 32 if fast else 64)
    x = flow.randn(2, 3, side, side)
    model.train()
    outs = _outputs(model(x))
    expected_outputs = {"googlenet": 3, "inception_v3": 2}.get(name, 1)
    assert len(outs) == expected_outputs
    for out in outs:
        assert tuple(out.shape) == (2, 1000)
        assert bool(flow.isfinite(out).all())
    sum(o.sum() for o in outs).backward()
    missing = [n for n, p in model.named_parameters() if p.grad is None]
    assert not missing, f"{name}: parameters without a gradient: {missing[:5]}"
    bad = [n for n, p in model.named_parameters() if not bool(flow.isfinite(p.grad).all())]
    assert not bad, f"{name}: non-finite gradients in {bad[:5]}"
    # Eval mode returns plain logits (no auxiliary outputs), deterministically.
    model.eval()
    with flow.no_grad():
        y1 = model(x)
        assert isinstance(y1, flow.Tensor) and tuple(y1.shape) == (2, 1000)
        if not fast:
            np.testing.assert_array_equal(y1.numpy(), model(x).numpy())


# Two Bazel targets run this file: models_cnn_heavy_test runs test_build_heavy, models_cnn_test
# everything else (see flowvision/BUILD).
@pytest.mark.parametrize("name", [n for n in PARAM_COUNTS if n not in FAST_INIT])
def test_build(name, monkeypatch):
    _check_build_forward_backward(name, monkeypatch)


@pytest.mark.parametrize("name", sorted(FAST_INIT))
def test_build_heavy(name, monkeypatch):
    _check_build_forward_backward(name, monkeypatch)


def test_forward_224_and_num_classes():
    """The 224x224 ImageNet size and another class count, on the cheap models."""
    x = flow.randn(2, 3, 224, 224)
    for name in ("resnet18", "mobilenet_v3_small", "shufflenet_v2_x0_5", "squeezenet1_1", "efficientnet_b0",
                 "regnet_y_400mf", "mnasnet0_5", "densenet121", "googlenet"):
        extra = {"init_weights": False} if name == "googlenet" else {}
        model = _build(name, num_classes=10, **extra).eval()
        with flow.no_grad():
            assert tuple(model(x).shape) == (2, 10), name


def test_inception_v3_small_input_without_aux():
    model = _build("inception_v3", aux_logits=False, num_classes=7, init_weights=False)
    assert model.AuxLogits is None
    out = model(flow.randn(2, 3, 107, 107))
    assert tuple(out.shape) == (2, 7)
    out.sum().backward()
    assert model.Conv2d_1a_3x3.conv.weight.grad is not None


def test_googlenet_without_aux():
    model = _build("googlenet", aux_logits=False, num_classes=5, init_weights=False)
    assert _num_params(model) == 6_624_904 - 1024 * 995 - 995
    assert model.aux1 is None and model.aux2 is None
    out = model(flow.randn(2, 3, 64, 64))
    assert isinstance(out, flow.Tensor) and tuple(out.shape) == (2, 5)


def test_googlenet_inception_transform_input():
    """transform_input maps ImageNet-normalized inputs to the [-1, 1] normalization."""
    for name in ("googlenet", "inception_v3"):
        model = _build(name, transform_input=True, init_weights=False)
        x = flow.randn(1, 3, 8, 8)
        y = model._transform_input(x).numpy()
        mean, std = np.array([0.485, 0.456, 0.406]), np.array([0.229, 0.224, 0.225])
        expected = (x.numpy() * std[None, :, None, None] + mean[None, :, None, None] - 0.5) / 0.5
        np.testing.assert_allclose(y, expected, rtol=1e-5, atol=1e-6)


# Keys (with shapes) that only torchvision's exact module structure produces.
TORCHVISION_KEYS = {
    "resnet50": {"layer1.0.downsample.0.weight": (256, 64, 1, 1), "layer4.2.bn3.running_var": (2048,),
                 "fc.weight": (1000, 2048), "layer2.0.conv2.weight": (128, 128, 3, 3)},
    "resnext50_32x4d": {"layer1.0.conv2.weight": (128, 4, 3, 3)},
    "vgg16_bn": {"features.1.running_mean": (64,), "features.40.weight": (512, 512, 3, 3),
                 "classifier.6.weight": (1000, 4096)},
    "alexnet": {"features.10.weight": (256, 256, 3, 3), "classifier.4.weight": (4096, 4096)},
    "squeezenet1_1": {"features.12.expand3x3.weight": (256, 64, 3, 3), "classifier.1.weight": (1000, 512, 1, 1)},
    "densenet121": {"features.denseblock4.denselayer16.conv2.weight": (32, 128, 3, 3),
                    "features.transition3.conv.weight": (512, 1024, 1, 1), "features.norm5.weight": (1024,)},
    "googlenet": {"inception4e.branch3.1.conv.weight": (128, 32, 3, 3), "aux2.fc1.weight": (1024, 2048),
                  "inception5b.branch4.1.bn.running_mean": (128,)},
    "inception_v3": {"Mixed_7c.branch3x3dbl_3b.conv.weight": (384, 384, 3, 1),
                     "AuxLogits.conv1.conv.weight": (768, 128, 5, 5), "AuxLogits.fc.weight": (1000, 768)},
    "mobilenet_v2": {"features.1.conv.0.0.weight": (32, 1, 3, 3), "features.17.conv.2.weight": (320, 960, 1, 1),
                     "features.18.1.num_batches_tracked": (), "classifier.1.weight": (1000, 1280)},
    "mobilenet_v3_large": {"features.4.block.2.fc1.weight": (24, 72, 1, 1), "features.16.0.weight": (960, 160, 1, 1),
                           "classifier.3.weight": (1000, 1280)},
    "mobilenet_v3_small": {"features.1.block.1.fc2.bias": (16,), "classifier.0.weight": (1024, 576)},
    "shufflenet_v2_x1_0": {"stage2.0.branch1.0.weight": (24, 1, 3, 3), "stage4.3.branch2.6.running_var": (232,),
                           "conv5.0.weight": (1024, 464, 1, 1)},
    "mnasnet1_0": {"layers.8.0.layers.3.weight": (48, 1, 3, 3), "layers.15.weight": (1280,),
                   "layers.14.weight": (1280, 320, 1, 1)},
    "efficientnet_b0": {"features.1.0.block.1.fc1.weight": (8, 32, 1, 1), "features.8.0.weight": (1280, 320, 1, 1),
                        "features.6.3.block.0.1.running_mean": (1152,)},
    "efficientnet_v2_s": {"features.1.1.block.0.0.weight": (24, 24, 3, 3), "features.2.0.block.1.0.weight":
                          (48, 96, 1, 1)},
    "regnet_y_400mf": {"trunk_output.block1.block1-0.f.se.fc1.weight": (8, 48, 1, 1),
                       "trunk_output.block1.block1-0.proj.0.weight": (48, 32, 1, 1), "stem.0.weight": (32, 3, 3, 3)},
    "regnet_x_400mf": {"trunk_output.block4.block4-6.f.c.1.weight": (400,), "fc.weight": (1000, 400)},
}


@pytest.mark.parametrize("name", sorted(TORCHVISION_KEYS))
def test_torchvision_names_and_shapes(name):
    sd = _build(name).state_dict()
    for key, shape in TORCHVISION_KEYS[name].items():
        assert key in sd, f"{name}: no {key}"
        assert tuple(sd[key].shape) == shape, key
    # Every floating entry is a parameter or a running statistic; counts are integers.
    for key, value in sd.items():
        if key.endswith("num_batches_tracked"):
            assert value.dtype == flow.int64


def test_weight_init_like_torchvision():
    flow.manual_seed(0)
    r = _build("resnet50", zero_init_residual=True)
    w = r.layer3[0].conv2.weight  # kaiming_normal_(fan_out, relu): std sqrt(2 / (256 * 9))
    assert abs(float(w.std()) / math.sqrt(2 / (256 * 9)) - 1) < 0.05
    assert float(r.layer1[0].bn3.weight.abs().sum()) == 0.0
    assert float(r.bn1.weight.min()) == 1.0 and float(r.bn1.bias.abs().sum()) == 0.0
    m = _build("mobilenet_v3_large")
    assert abs(float(m.classifier[0].weight.std()) - 0.01) < 0.001
    assert float(m.classifier[0].bias.abs().sum()) == 0.0
    bn = m.features[1].block[0][1]
    assert bn.eps == 0.001 and bn.momentum == 0.01
    e = _build("efficientnet_b0")
    fc = e.classifier[1]
    bound = 1 / math.sqrt(1000)
    assert float(fc.weight.abs().max()) <= bound and float(fc.weight.abs().max()) > 0.9 * bound
    g = _build("regnet_y_400mf")
    conv = g.stem[0]
    assert abs(float(conv.weight.std()) / math.sqrt(2 / (9 * 32)) - 1) < 0.25


def test_default_arguments_like_torchvision():
    e = _build("efficientnet_b0", dropout=0.1)
    assert e.classifier[0].p == 0.1
    sds = [b.stochastic_depth.p for stage in e.features[1:-1] for b in stage]
    assert sds[0] == 0.0 and sds[-1] == pytest.approx(0.2 * 15 / 16)  # linear in the block index
    assert [b.stochastic_depth.p for stage in _build("efficientnet_b0", stochastic_depth_prob=0.0).features[1:-1]
            for b in stage] == [0.0] * 16


def test_stochastic_depth():
    from flowvision.models._cnn_blocks import StochasticDepth, stochastic_depth

    x = flow.ones(1000, 4)
    flow.manual_seed(0)
    y = stochastic_depth(x, 0.25, "row", training=True).numpy()
    rows = y[:, 0]
    assert np.all((rows == 0) | np.isclose(rows, 1 / 0.75))
    assert abs((rows == 0).mean() - 0.25) < 0.05
    assert (y == y[:, :1]).all()  # a whole row is kept or dropped
    batch = stochastic_depth(x, 0.5, "batch", training=True).numpy()
    assert len(np.unique(batch)) == 1
    assert stochastic_depth(x, 0.9, "row", training=False) is x
    module = StochasticDepth(0.3, "row").eval()
    assert module(x) is x
    with pytest.raises(ValueError, match="between 0 and 1"):
        stochastic_depth(x, 1.5, "row")
    with pytest.raises(ValueError, match="mode"):
        stochastic_depth(x, 0.5, "col")


def test_dilation_and_reduced_tail_variants():
    r = _build("resnet50", replace_stride_with_dilation=[False, True, True], num_classes=3)
    # The first block of a dilated stage keeps the previous dilation, as in torchvision.
    assert r.layer4[0].conv2.dilation == (2, 2) and r.layer4[1].conv2.dilation == (4, 4)
    assert r.layer4[0].conv2.stride == (1, 1) and r.layer4[0].downsample[0].stride == (1, 1)
    assert tuple(r(flow.randn(1, 3, 64, 64)).shape) == (1, 3)
    m = _build("mobilenet_v3_large", reduced_tail=True, dilated=True, num_classes=3)
    assert m.features[-1][0].in_channels == 80
    assert tuple(m.eval()(flow.randn(1, 3, 64, 64)).shape) == (1, 3)
    w = _build("mobilenet_v2", width_mult=0.5, num_classes=3)
    assert w.features[0][0].out_channels == 16 and w.last_channel == 1280


def test_bad_arguments():
    with pytest.raises(ValueError, match="groups=1"):
        models.resnet.BasicBlock(64, 64, groups=2)
    with pytest.raises(ValueError, match="'groups' expected value 32 but got 8"):
        _build("resnext50_32x4d", groups=8)
    with pytest.raises(ValueError, match="replace_stride_with_dilation"):
        _build("resnet18", replace_stride_with_dilation=[True])
    with pytest.raises(ValueError, match="Unsupported SqueezeNet version 2_0"):
        models.SqueezeNet("2_0")
    with pytest.raises(ValueError, match="alpha"):
        models.MNASNet(0.0)
    with pytest.raises(ValueError, match="stages_repeats"):
        models.ShuffleNetV2([4, 8], [24, 48, 96, 192, 1024])
    with pytest.raises(ValueError, match="inverted_residual_setting"):
        models.MobileNetV3([], 1280)
    with pytest.raises(ValueError, match="Unsupported model type"):
        models.mobilenetv3._mobilenet_v3_conf("mobilenet_v3_medium")
    with pytest.raises(ValueError, match="inverted_residual_setting"):
        models.MobileNetV2(inverted_residual_setting=[[1, 16, 1]])
    with pytest.raises(ValueError, match="Invalid RegNet settings"):
        models.BlockParams.from_init_params(depth=10, w_0=20, w_a=10.0, w_m=2.0, group_width=8)
    with pytest.raises(ValueError, match="Unknown model|unknown model"):
        _build("resnet51")


def test_wrong_input_rank_or_mode_raises():
    """As with torchvision: an unbatched image reaches the first batch norm, which wants 4-D;
    a grayscale (1-channel) batch fails at the first convolution, naming both channel counts."""
    model = _build("resnet18").eval()
    with pytest.raises(ValueError, match="expected 4D input \\(got 3D input\\)"):
        model(flow.randn(3, 64, 64))
    with pytest.raises(RuntimeError, match="to have 3 channels, but got 1 channels"):
        model(flow.randn(2, 1, 64, 64))


def test_densenet_loads_legacy_torchvision_keys():
    """torchvision's published DenseNet files say ``norm.1`` where the module says ``norm1``."""
    src = _build("densenet121", num_classes=4)
    sd = src.state_dict()
    legacy = {}
    for k, v in sd.items():
        if ".denselayer" in k and k.endswith("num_batches_tracked"):
            continue  # the old files predate the batch counter
        for old, new in (("norm1.", "norm.1."), ("norm2.", "norm.2."), ("conv1.", "conv.1."), ("conv2.", "conv.2.")):
            if ".denselayer" in k and f".{old}" in k:
                k = k.replace(f".{old}", f".{new}")
        legacy[k] = v.detach().numpy()
    assert "features.denseblock1.denselayer1.norm.1.weight" in legacy
    dst = _build("densenet121", num_classes=4)
    dst.load_state_dict(legacy)
    np.testing.assert_array_equal(dst.features.denseblock2.denselayer3.conv2.weight.detach().numpy(),
                                  src.features.denseblock2.denselayer3.conv2.weight.detach().numpy())


def test_state_dict_for_other_num_classes_names_fc_and_shapes(tmp_path):
    """A 1000-class checkpoint into a 10-class model: the error names each fc key with both
    shapes, and nothing else (also through ModelCreator.create_model(checkpoint=...))."""
    sd = {k: v.detach().numpy() for k, v in _build("resnet18").state_dict().items()}
    with pytest.raises(RuntimeError) as info:
        _build("resnet18", num_classes=10).load_state_dict(sd)
    lines = [line.strip() for line in str(info.value).splitlines()[1:]]
    assert len(lines) == 2, lines
    assert lines[0].startswith("size mismatch for fc.weight") and "[1000, 512]" in lines[0] and "[10, 512]" in lines[0]
    assert lines[1].startswith("size mismatch for fc.bias") and "[1000]" in lines[1] and "[10]" in lines[1]
    np.savez(tmp_path / "r18.npz", **sd)
    with pytest.raises(RuntimeError, match=r"fc\.weight.*\[1000, 512\].*\[10, 512\]"):
        ModelCreator.create_model("resnet18", checkpoint=str(tmp_path / "r18.npz"), num_classes=10)
    m = _build("mobilenet_v3_large", num_classes=10)
    sd = {k: v.detach().numpy() for k, v in _build("mobilenet_v3_large").state_dict().items()}
    with pytest.raises(RuntimeError, match=r"classifier\.3\.weight.*\[1000, 1280\].*\[10, 1280\]"):
        m.load_state_dict(sd)


def test_pretrained_without_cache_raises(tmp_path, monkeypatch):
    monkeypatch.setenv("FLOWVISION_CACHE", str(tmp_path))
    for name in ("resnet50", "mobilenet_v3_large", "googlenet", "inception_v3", "efficientnet_b0"):
        with pytest.raises(FileNotFoundError) as info:
            getattr(models, name)(pretrained=True)
        msg = str(info.value)
        assert str(tmp_path) in msg and f"{name}.of" in msg
        assert "convert_torch_checkpoint" in msg


def test_pretrained_loads_from_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("FLOWVISION_CACHE", str(tmp_path))
    src = _build("squeezenet1_1")
    np.savez(tmp_path / "squeezenet1_1.npz", **{k: v.numpy() for k, v in src.state_dict().items()})
    dst = models.squeezenet1_1(pretrained=True)
    np.testing.assert_array_equal(dst.classifier[1].weight.detach().numpy(),
                                  src.classifier[1].weight.detach().numpy())
    # googlenet: loaded with the auxiliary heads, which are then dropped unless asked for.
    g = _build("googlenet", aux_logits=True)
    flow.save(g.state_dict(), str(tmp_path / "googlenet.of"))
    loaded = models.googlenet(pretrained=True)
    assert loaded.aux1 is None and loaded.transform_input
    np.testing.assert_array_equal(loaded.fc.weight.detach().numpy(), g.fc.weight.detach().numpy())
    assert models.googlenet(pretrained=True, aux_logits=True).aux2 is not None
