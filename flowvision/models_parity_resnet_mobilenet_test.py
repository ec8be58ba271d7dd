"""Parity of flowvision's ResNet-50 and MobileNetV3-Large with plain-PyTorch references.

The references below are written here in plain PyTorch with torchvision's module structure
and parameter names (torchvision itself is not installed). Weights go torch -> flowvision
through ``state_dict`` (as NumPy arrays, the way a converted checkpoint loads); then the
eval-mode logits must agree to 1e-4 and, after one training step in train mode (batch-norm
batch statistics), the loss, every parameter gradient, the updated running statistics and
the post-step logits must agree.
"""

import copy

import numpy as np
import pytest
import torch
from torch import nn as tnn

import oneflow as flow
from flowvision import models

# ---------------------------------------------------------------------------------------------
# Plain-PyTorch ResNet-50 (torchvision layout: conv1/bn1/layer1..4/fc, bottleneck stride on 3x3).


class TorchBottleneck(tnn.Module):
    expansion = 4

    def __init__(self, inplanes, planes, stride=1, downsample=None):
        super().__init__()
        self.conv1 = tnn.Conv2d(inplanes, planes, 1, bias=False)
        self.bn1 = tnn.BatchNorm2d(planes)
        self.conv2 = tnn.Conv2d(planes, planes, 3, stride=stride, padding=1, bias=False)
        self.bn2 = tnn.BatchNorm2d(planes)
        self.conv3 = tnn.Conv2d(planes, planes * 4, 1, bias=False)
        self.bn3 = tnn.BatchNorm2d(planes * 4)
        self.relu = tnn.ReLU(inplace=True)
        self.downsample = downsample

    def forward(self, x):
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        out = self.bn3(self.conv3(out))
        shortcut = x if self.downsample is None else self.downsample(x)
        return self.relu(out + shortcut)


class TorchResNet50(tnn.Module):
    def __init__(self, num_classes=1000):
        super().__init__()
        self.inplanes = 64
        self.conv1 = tnn.Conv2d(3, 64, 7, stride=2, padding=3, bias=False)
        self.bn1 = tnn.BatchNorm2d(64)
        self.relu = tnn.ReLU(inplace=True)
        self.maxpool = tnn.MaxPool2d(3, stride=2, padding=1)
        self.layer1 = self._stage(64, 3, 1)
        self.layer2 = self._stage(128, 4, 2)
        self.layer3 = self._stage(256, 6, 2)
        self.layer4 = self._stage(512, 3, 2)
        self.avgpool = tnn.AdaptiveAvgPool2d((1, 1))
        self.fc = tnn.Linear(2048, num_classes)

    def _stage(self, planes, blocks, stride):
        downsample = None
        if stride != 1 or self.inplanes != planes * 4:
            downsample = tnn.Sequential(tnn.Conv2d(self.inplanes, planes * 4, 1, stride=stride, bias=False),
                                        tnn.BatchNorm2d(planes * 4))
        layers = [TorchBottleneck(self.inplanes, planes, stride, downsample)]
        self.inplanes = planes * 4
        layers += [TorchBottleneck(self.inplanes, planes) for _ in range(1, blocks)]
        return tnn.Sequential(*layers)

    def forward(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.fc(torch.flatten(self.avgpool(x), 1))


# ---------------------------------------------------------------------------------------------
# Plain-PyTorch MobileNetV3-Large (torchvision layout: features.<i>.block.<j>, SE fc1/fc2,
# Conv-BN-activation Sequentials, classifier.0/3).


def _divisible(v, divisor=8):
    new_v = max(divisor, int(v + divisor / 2) // divisor * divisor)
    return new_v + divisor if new_v < 0.9 * v else new_v


def _cna(cin, cout, k, stride=1, groups=1, act=None):
    norm = tnn.BatchNorm2d(cout, eps=0.001, momentum=0.01)
    layers = [tnn.Conv2d(cin, cout, k, stride, (k - 1) // 2, groups=groups, bias=False), norm]
    if act is not None:
        layers.append(act(inplace=True))
    return tnn.Sequential(*layers)


class TorchSE(tnn.Module):
    def __init__(self, channels, squeeze):
        super().__init__()
        self.avgpool = tnn.AdaptiveAvgPool2d(1)
        self.fc1 = tnn.Conv2d(channels, squeeze, 1)
        self.fc2 = tnn.Conv2d(squeeze, channels, 1)
        self.activation = tnn.ReLU()
        self.scale_activation = tnn.Hardsigmoid()

    def forward(self, x):
        s = self.scale_activation(self.fc2(self.activation(self.fc1(self.avgpool(x)))))
        return s * x


class TorchV3Block(tnn.Module):
    def __init__(self, cin, k, exp, cout, se, hs, stride):
        super().__init__()
        act = tnn.Hardswish if hs else tnn.ReLU
        layers = []
        if exp != cin:
            layers.append(_cna(cin, exp, 1, act=act))
        layers.append(_cna(exp, exp, k, stride, groups=exp, act=act))
        if se:
            layers.append(TorchSE(exp, _divisible(exp // 4)))
        layers.append(_cna(exp, cout, 1))
        self.block = tnn.Sequential(*layers)
        self.use_res_connect = stride == 1 and cin == cout

    def forward(self, x):
        out = self.block(x)
        return out + x if self.use_res_connect else out


_V3_LARGE = [  # input, kernel, expanded, output, SE, hardswish, stride
    (16, 3, 16, 16, False, False, 1), (16, 3, 64, 24, False, False, 2), (24, 3, 72, 24, False, False, 1),
    (24, 5, 72, 40, True, False, 2), (40, 5, 120, 40, True, False, 1), (40, 5, 120, 40, True, False, 1),
    (40, 3, 240, 80, False, True, 2), (80, 3, 200, 80, False, True, 1), (80, 3, 184, 80, False, True, 1),
    (80, 3, 184, 80, False, True, 1), (80, 3, 480, 112, True, True, 1), (112, 3, 672, 112, True, True, 1),
    (112, 5, 672, 160, True, True, 2), (160, 5, 960, 160, True, True, 1), (160, 5, 960, 160, True, True, 1),
]


class TorchMobileNetV3Large(tnn.Module):
    def __init__(self, num_classes=1000):
        super().__init__()
        layers = [_cna(3, 16, 3, 2, act=tnn.Hardswish)]
        layers += [TorchV3Block(*row) for row in _V3_LARGE]
        layers.append(_cna(160, 960, 1, act=tnn.Hardswish))
        self.features = tnn.Sequential(*layers)
        self.avgpool = tnn.AdaptiveAvgPool2d(1)
        self.classifier = tnn.Sequential(tnn.Linear(960, 1280), tnn.Hardswish(inplace=True),
                                         tnn.Dropout(p=0.2, inplace=True), tnn.Linear(1280, num_classes))

    def forward(self, x):
        return self.classifier(torch.flatten(self.avgpool(self.features(x)), 1))


# ---------------------------------------------------------------------------------------------


def _randomize_bn(model):
    """Non-trivial running statistics and affine parameters, so eval mode tests them."""
    g = torch.Generator().manual_seed(1)
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, tnn.BatchNorm2d):
                m.running_mean.copy_(torch.randn(m.num_features, generator=g) * 0.1)
                m.running_var.copy_(torch.rand(m.num_features, generator=g) * 0.5 + 0.75)
                m.weight.copy_(torch.rand(m.num_features, generator=g) * 0.5 + 0.75)
                m.bias.copy_(torch.randn(m.num_features, generator=g) * 0.1)


def _pair(name):
    torch.manual_seed(0)
    ref = {"resnet50": TorchResNet50, "mobilenet_v3_large": TorchMobileNetV3Large}[name]()
    _randomize_bn(ref)
    ours = getattr(models, name)()
    ref_sd = ref.state_dict()
    ours_sd = ours.state_dict()
    assert list(ref_sd) == list(ours_sd), "parameter/buffer names or order differ from torchvision's"
    for k in ref_sd:
        assert tuple(ref_sd[k].shape) == tuple(ours_sd[k].shape), k
    result = ours.load_state_dict({k: v.numpy() for k, v in ref_sd.items()})
    assert not result.missing_keys and not result.unexpected_keys
    return ref, ours


def _input(seed=0):
    x = np.random.default_rng(seed).standard_normal((2, 3, 224, 224)).astype(np.float32)
    return x, torch.from_numpy(x.copy()), flow.tensor(x)


LABELS = np.array([3, 917])


def _train_mode(*nets):
    # Dropout draws differ between the frameworks; the step is compared without them.
    for net in nets:
        net.train()
        for m in net.modules():
            if isinstance(m, (tnn.Dropout, flow.nn.Dropout)):
                m.eval()


def _torch_step(ref, x):
    loss = tnn.functional.cross_entropy(ref(x), torch.from_numpy(LABELS))
    loss.backward()
    return loss.item(), {k: p.grad.numpy().copy() for k, p in ref.named_parameters()}


def _flow_step(ours, x):
    loss = flow.nn.functional.cross_entropy(ours(x), flow.tensor(LABELS))
    loss.backward()
    return loss.item(), {k: p.grad.numpy().copy() for k, p in ours.named_parameters()}


def _max_err(a, b):
    return float(np.abs(np.asarray(a, np.float64) - np.asarray(b, np.float64)).max())


@pytest.mark.parametrize("name", ["resnet50", "mobilenet_v3_large"])
def test_eval_logits_match_torch(name):
    ref, ours = _pair(name)
    ref.eval()
    ours.eval()
    _, xt, xf = _input()
    with torch.no_grad():
        expected = ref(xt).numpy()
    with flow.no_grad():
        got = ours(xf).numpy()
    assert got.shape == (2, 1000)
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("name", ["resnet50", "mobilenet_v3_large"])
def test_training_step_matches_torch_float64(name):
    """One SGD step in train mode (batch-norm batch statistics) in float64, where rounding
    cannot hide a wrong formula: every gradient, running statistic, updated parameter and
    the logits after the step agree."""
    ref, ours = _pair(name)
    ref, ours = ref.double(), ours.double()
    _train_mode(ref, ours)
    x = _input(1)[0].astype(np.float64)
    opt_t = torch.optim.SGD(ref.parameters(), lr=0.1, momentum=0.9)
    opt_f = flow.optim.SGD(ours.parameters(), lr=0.1, momentum=0.9)
    loss_t, grads_t = _torch_step(ref, torch.from_numpy(x))
    loss_f, grads_f = _flow_step(ours, flow.tensor(x))
    assert abs(loss_f - loss_t) <= 1e-10 * abs(loss_t)
    global_scale = max(float(np.abs(g).max()) for g in grads_t.values())
    for key, g in grads_t.items():
        # A few biases feed straight into a train-mode batch norm, so their true gradient is
        # zero and both sides hold rounding noise: the floor is relative to the largest gradient.
        tol = 1e-3 * float(np.abs(g).max()) + 1e-9 * global_scale
        assert _max_err(grads_f[key], g) <= tol, f"grad of {key}"
    ref_buffers = dict(ref.named_buffers())
    for key, b in ours.named_buffers():
        if key.endswith("num_batches_tracked"):
            assert int(b.item()) == int(ref_buffers[key].item()) == 1, key
        else:
            np.testing.assert_allclose(b.numpy(), ref_buffers[key].numpy(), rtol=1e-9, atol=1e-12, err_msg=key)
    opt_t.step()
    opt_f.step()
    ref_params = dict(ref.named_parameters())
    for key, p in ours.named_parameters():
        np.testing.assert_allclose(p.detach().numpy(), ref_params[key].detach().numpy(), rtol=1e-7, atol=1e-10,
                                   err_msg=key)
    ref.eval()
    ours.eval()
    x2 = _input(2)[0].astype(np.float64)
    with torch.no_grad():
        expected = ref(torch.from_numpy(x2)).numpy()
    with flow.no_grad():
        got = ours(flow.tensor(x2)).numpy()
    np.testing.assert_allclose(got, expected, rtol=1e-7, atol=1e-9)


def _norm_err(a, b):
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return float(np.linalg.norm(a - b)), float(np.linalg.norm(b))


@pytest.mark.parametrize("name", ["resnet50", "mobilenet_v3_large"])
def test_training_step_matches_torch_float32(name):
    """The float32 training step: the loss and the running statistics agree to 1e-4, the
    classifier's gradients to 1e-3.

    Deeper float32 gradients of a train-mode network at batch 2 are ill-conditioned: the
    batch-norm backward subtracts the gradient's projection on (1, x_hat), which nearly cancels
    when a 7x7 average pool feeds it the same value everywhere, and ReLU masks flip on
    rounding. PyTorch's own float32 gradients of ResNet-50 differ from its float64 ones by
    ~2% (norm) and up to ~15% (elementwise) in some tensors, so an elementwise 1e-3 test of
    deep float32 gradients would fail PyTorch against itself. The float64 test above checks
    the formulas exactly; here the whole float32 gradient must be within 5% (norm) of the
    float64 truth, and every tensor close to PyTorch's (a wrong formula is off by O(1)).
    """
    ref, ours = _pair(name)
    truth = copy.deepcopy(ref).double()
    _train_mode(ref, ours, truth)
    x, xt, xf = _input(1)
    loss_t, grads_t = _torch_step(ref, xt)
    loss_f, grads_f = _flow_step(ours, xf)
    _, grads_64 = _torch_step(truth, torch.from_numpy(x.astype(np.float64)))
    np.testing.assert_allclose(loss_f, loss_t, rtol=1e-4)
    ref_buffers = dict(ref.named_buffers())
    for key, b in ours.named_buffers():
        if not key.endswith("num_batches_tracked"):
            np.testing.assert_allclose(b.numpy(), ref_buffers[key].numpy(), rtol=1e-4, atol=1e-4, err_msg=key)
    keys = list(grads_t)
    flat = {k: np.concatenate([g[key].ravel() for key in keys]) for k, g in
            (("ours", grads_f), ("torch", grads_t), ("truth", grads_64))}
    ours_err, truth_norm = _norm_err(flat["ours"], flat["truth"])
    classifier = "fc." if name == "resnet50" else "classifier."
    for key, g in grads_t.items():
        if key.startswith(classifier):
            assert _max_err(grads_f[key], g) <= 1e-3 * float(np.abs(g).max()), f"grad of {key}"
        diff, norm = _norm_err(grads_f[key], g)
        # The floor covers biases whose true gradient is zero (they feed a train-mode batch norm).
        assert diff <= 0.1 * norm + 1e-6 * truth_norm, f"grad of {key}: {diff:.3g} away from torch's (norm {norm:.3g})"
    # A fixed bound, not one relative to torch's error on this machine (machines differ):
    # ours is 2.1% (norm) from float64 for ResNet-50 and torch 1.9% on Zen 5; a wrong formula is O(1).
    torch_err, _ = _norm_err(flat["torch"], flat["truth"])
    assert ours_err <= 0.05 * truth_norm, (
        f"whole gradient: ours is {ours_err / truth_norm:.3g} (relative norm) from float64, "
        f"torch's float32 {torch_err / truth_norm:.3g}")
