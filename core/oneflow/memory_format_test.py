"""Memory formats (oneflow.channels_last and friends), checked against PyTorch: the strides that
to/contiguous/empty/clone/Module.to produce, is_contiguous, and the layout that elementwise ops,
convolutions, batch_norm and pooling give their results (values and gradients are checked in
ops/parity with channels_last inputs)."""

import numpy as np
import pytest
import torch

import oneflow as flow

FORMATS = ["contiguous_format", "channels_last", "channels_last_3d", "preserve_format"]
SHAPES_4D = [(2, 3, 4, 5), (1, 3, 4, 5), (2, 1, 4, 5), (2, 3, 1, 1), (2, 3, 1, 5), (1, 1, 1, 1), (0, 3, 2, 2),
             (2, 3, 0, 4), (1, 3, 1, 1), (4, 8, 2, 1)]
SHAPES_5D = [(2, 3, 4, 5, 6), (1, 3, 1, 1, 2), (2, 1, 2, 2, 2)]


def pair(shape, seed=0):
    data = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    return flow.tensor(data), torch.tensor(data)


def fmt(name):
    return getattr(flow, name), getattr(torch, name)


def same_layout(ours, theirs, rtol=0.0):
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert ours.stride() == theirs.stride(), (ours.stride(), theirs.stride())
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=rtol, atol=rtol)


def test_objects():
    for name in FORMATS:
        f, t = fmt(name)
        assert repr(f) == repr(t).replace("torch", "oneflow")
        assert str(f) == repr(f)
        assert isinstance(f, flow.memory_format)
    assert flow.channels_last == flow.channels_last and flow.channels_last != flow.contiguous_format
    import pickle

    assert pickle.loads(pickle.dumps(flow.channels_last)) is flow.channels_last


@pytest.mark.parametrize("shape", SHAPES_4D + SHAPES_5D)
def test_to_contiguous_is_contiguous(shape):
    a, b = pair(shape)
    for name in FORMATS:
        f, t = fmt(name)
        assert a.is_contiguous(memory_format=f) == b.is_contiguous(memory_format=t)
        for make in (lambda x, m: x.to(memory_format=m), lambda x, m: x.contiguous(memory_format=m),
                     lambda x, m: x.clone(memory_format=m)):
            try:
                expected = make(b, t)
            except RuntimeError:
                with pytest.raises(RuntimeError):
                    make(a, f)
                continue
            got = make(a, f)
            same_layout(got, expected)
            assert (got is a) == (expected is b)
            for name2 in FORMATS:
                f2, t2 = fmt(name2)
                assert got.is_contiguous(memory_format=f2) == expected.is_contiguous(memory_format=t2)
                assert got.is_contiguous() == expected.is_contiguous()


@pytest.mark.parametrize("shape", SHAPES_4D + SHAPES_5D)
def test_creation(shape):
    a, b = pair(shape)
    for name in FORMATS:
        f, t = fmt(name)
        for make_f, make_t in (
            (lambda: flow.empty(shape, memory_format=f), lambda: torch.empty(shape, memory_format=t)),
            (lambda: flow.empty_like(a, memory_format=f), lambda: torch.empty_like(b, memory_format=t)),
            (lambda: flow.zeros_like(a, memory_format=f), lambda: torch.zeros_like(b, memory_format=t)),
            (lambda: flow.ones_like(a, memory_format=f), lambda: torch.ones_like(b, memory_format=t)),
            (lambda: flow.full_like(a, 2.0, memory_format=f), lambda: torch.full_like(b, 2.0, memory_format=t)),
            (lambda: flow.clone(a, memory_format=f), lambda: torch.clone(b, memory_format=t)),
        ):
            try:
                expected = make_t()
            except RuntimeError:
                with pytest.raises(RuntimeError):
                    make_f()
                continue
            got = make_f()
            assert got.stride() == expected.stride()


def test_preserve_keeps_layout():
    a, b = pair((2, 3, 4, 5))
    a, b = a.to(memory_format=flow.channels_last), b.to(memory_format=torch.channels_last)
    for make_f, make_t in (
        (lambda: flow.empty_like(a), lambda: torch.empty_like(b)),
        (lambda: a.clone(), lambda: b.clone()),
        (lambda: a.to(flow.float64), lambda: b.to(torch.float64)),
        (lambda: a.to(flow.float64, memory_format=flow.contiguous_format),
         lambda: b.to(torch.float64, memory_format=torch.contiguous_format)),
        (lambda: a.contiguous(), lambda: b.contiguous()),
    ):
        assert make_f().stride() == make_t().stride()
    c, d = pair((2, 3, 4, 5))
    assert c.to(flow.float64, memory_format=flow.channels_last).stride() == \
        d.to(torch.float64, memory_format=torch.channels_last).stride()


def test_errors():
    a = flow.zeros(2, 3, 4)
    with pytest.raises(RuntimeError, match="rank 4"):
        a.contiguous(memory_format=flow.channels_last)
    with pytest.raises(RuntimeError, match="rank 5"):
        a.to(memory_format=flow.channels_last_3d)
    assert a.contiguous(memory_format=flow.preserve_format) is a  # already contiguous, as in torch
    with pytest.raises(RuntimeError, match="preserve"):
        a.transpose(0, 1).contiguous(memory_format=flow.preserve_format)
    with pytest.raises(TypeError):
        a.to(memory_format="channels_last")


def test_view_flatten_reshape():
    a, b = pair((2, 3, 4, 5))
    a, b = a.contiguous(memory_format=flow.channels_last), b.contiguous(memory_format=torch.channels_last)
    with pytest.raises(RuntimeError):
        b.view(2, -1)
    with pytest.raises(RuntimeError):
        a.view(2, -1)
    same_layout(a.reshape(2, -1), b.reshape(2, -1))
    same_layout(a.flatten(1), b.flatten(1))
    p, q = flow.nn.functional.adaptive_avg_pool2d(a, 1), torch.nn.functional.adaptive_avg_pool2d(b, 1)
    same_layout(p, q, rtol=1e-6)
    np.testing.assert_allclose(p.flatten(1).numpy(), q.flatten(1).numpy(), rtol=1e-6)
    assert p.flatten(1).stride() == q.flatten(1).stride()
    assert p.view(2, -1).stride() == q.view(2, -1).stride()


def test_module_to():
    def build(m):
        return m.nn.Sequential(m.nn.Conv2d(3, 4, 3), m.nn.BatchNorm2d(4), m.nn.Flatten(), m.nn.Linear(4, 5))

    ours, theirs = build(flow), build(torch)
    assert ours.to(memory_format=flow.channels_last) is ours
    theirs.to(memory_format=torch.channels_last)
    assert [p.stride() for p in ours.parameters()] == [p.stride() for p in theirs.parameters()]
    assert [b.stride() for b in ours.buffers()] == [b.stride() for b in theirs.buffers()]
    ours.to(flow.float64, memory_format=flow.contiguous_format)
    assert ours[0].weight.dtype == flow.float64 and ours[0].weight.is_contiguous()
    with pytest.raises(RuntimeError):
        flow.nn.Conv3d(2, 2, 2).to(memory_format=flow.channels_last)


def cl_pair(shape, seed=0):
    a, b = pair(shape, seed)
    return a.to(memory_format=flow.channels_last), b.to(memory_format=torch.channels_last)


def test_elementwise_layouts():
    a, b = pair((2, 3, 4, 5))
    c, d = cl_pair((2, 3, 4, 5), 1)
    bias, tbias = pair((3, 1, 1), 2)
    small, tsmall = cl_pair((1, 3, 1, 1), 3)
    cases = [
        (a + c, b + d), (c + a, d + b), (c * c, d * d), (c + 1, d + 1), (flow.relu(c), torch.relu(d)),
        (c + bias, d + tbias), (bias + c, tbias + d), (c + a[:, :1], d + b[:, :1]), (small + a, tsmall + b),
        (flow.where(c > 0, c, 0.0), torch.where(d > 0, d, 0.0)), (-c, -d), (c.exp(), d.exp()),
        (a.permute(0, 2, 3, 1) + 1, b.permute(0, 2, 3, 1) + 1), (a[..., ::2] * 2, b[..., ::2] * 2),
    ]
    for ours, theirs in cases:
        assert ours.stride() == theirs.stride()
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6)
    x, y = cl_pair((2, 3, 4, 5))
    x.relu_(), y.relu_()
    same_layout(x, y)
    z, w = pair((2, 3, 4, 5))
    z.add_(c), w.add_(d)
    same_layout(z, w)


def test_nn_layouts():
    F, G = flow.nn.functional, torch.nn.functional
    x, y = cl_pair((2, 3, 8, 8))
    wx, wy = pair((6, 3, 3, 3), 1)
    xa, ya = pair((2, 3, 8, 8))
    rm, rv = np.zeros(3, np.float32), np.ones(3, np.float32)
    cases = [
        (lambda m, f, t: m.conv2d(t, f(wx, wy)), True),
        (lambda m, f, t: m.conv2d(f(xa, ya), f(wx, wy).contiguous(memory_format=m.channels_last)), False),
        (lambda m, f, t: m.nn.functional.max_pool2d(t, 2), True),
        (lambda m, f, t: m.nn.functional.max_pool2d(t, 3, 2, 1, return_indices=True)[1], True),
        (lambda m, f, t: m.nn.functional.avg_pool2d(t, 2), True),
        (lambda m, f, t: m.nn.functional.adaptive_avg_pool2d(t, 1), True),
        (lambda m, f, t: m.nn.functional.adaptive_avg_pool2d(t, (3, 2)), True),
        (lambda m, f, t: m.nn.functional.adaptive_max_pool2d(t, (3, 2)), True),
        (lambda m, f, t: m.nn.functional.batch_norm(t, m.tensor(rm), m.tensor(rv), training=True), True),
        (lambda m, f, t: m.nn.functional.batch_norm(t, m.tensor(rm), m.tensor(rv)), True),
    ]
    pick = lambda a, b: a
    pick_t = lambda a, b: b
    for fn, _ in cases:
        ours, theirs = fn(flow, pick, x), fn(torch, pick_t, y)
        assert ours.stride() == theirs.stride()
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-4, atol=1e-5)
    del F, G


def test_conv_bn_grads_layout():
    def run(m, x_np, w_np):
        x = m.tensor(x_np).to(memory_format=m.channels_last).requires_grad_()
        conv = m.nn.Conv2d(3, 4, 3, bias=False)
        with m.no_grad():
            conv.weight.copy_(m.tensor(w_np))
        conv.to(memory_format=m.channels_last)
        bn = m.nn.BatchNorm2d(4)
        out = m.nn.functional.max_pool2d(m.relu(bn(conv(x))), 2)
        (out * out).sum().backward()
        return out, x.grad, conv.weight.grad, bn.weight.grad

    rng = np.random.default_rng(0)
    x_np = rng.standard_normal((2, 3, 9, 9)).astype(np.float32)
    w_np = rng.standard_normal((4, 3, 3, 3)).astype(np.float32)
    for ours, theirs in zip(run(flow, x_np, w_np), run(torch, x_np, w_np)):
        assert ours.stride() == theirs.stride()
        np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-4, atol=1e-4)


class Bottleneck(flow.nn.Module):
    def __init__(self, cin, width, stride):
        super().__init__()
        nn = flow.nn
        self.conv1, self.bn1 = nn.Conv2d(cin, width, 1, bias=False), nn.BatchNorm2d(width)
        self.conv2, self.bn2 = nn.Conv2d(width, width, 3, stride, 1, bias=False), nn.BatchNorm2d(width)
        self.conv3, self.bn3 = nn.Conv2d(width, width * 4, 1, bias=False), nn.BatchNorm2d(width * 4)
        self.down = None
        if stride != 1 or cin != width * 4:
            self.down = nn.Sequential(nn.Conv2d(cin, width * 4, 1, stride, bias=False), nn.BatchNorm2d(width * 4))

    def forward(self, x):
        out = flow.relu(self.bn1(self.conv1(x)))
        out = flow.relu(self.bn2(self.conv2(out)))
        out = self.bn3(self.conv3(out))
        return flow.relu(out + (x if self.down is None else self.down(x)))


def resnet50():
    """ResNet-50 as flowvision builds it (torchvision's layout), without the pretrained weights."""
    nn = flow.nn
    layers = [nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64), nn.ReLU(inplace=True),
              nn.MaxPool2d(3, 2, 1)]
    cin = 64
    for width, blocks, stride in ((64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)):
        for i in range(blocks):
            layers.append(Bottleneck(cin, width, stride if i == 0 else 1))
            cin = width * 4
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(2048, 1000)]
    return nn.Sequential(*layers)


@pytest.mark.parametrize("train", [False, True])
def test_resnet50_channels_last_matches_nchw(train):
    flow.manual_seed(0)
    model = resnet50().train(train)
    x = flow.tensor(np.random.default_rng(0).standard_normal((2, 3, 64, 64)).astype(np.float32))
    with flow.no_grad():
        for m in model.modules():  # non-trivial statistics for evaluation mode
            if isinstance(m, flow.nn.BatchNorm2d):
                m.running_mean.uniform_(-0.1, 0.1)
                m.running_var.uniform_(0.5, 1.5)
    state = {k: v.clone() for k, v in model.state_dict().items()}
    # A loss whose gradient differs per sample (the gradient of a plain sum() is constant over
    # each channel of the last batch_norm, where training mode cancels it to rounding noise).
    r = flow.tensor(np.random.default_rng(1).standard_normal((2, 1000)).astype(np.float32))
    ref = model(x)
    (ref * r).sum().backward()
    ref_grad = model[0].weight.grad.clone()
    model.load_state_dict(state)
    model.zero_grad()
    model.to(memory_format=flow.channels_last)
    assert model[0].weight.is_contiguous(memory_format=flow.channels_last)
    out = model(x.to(memory_format=flow.channels_last))
    (out * r).sum().backward()
    # Training mode normalizes with the statistics of a 2-image batch (down to 2x2 maps), which
    # magnifies the float32 differences of the two summation orders.
    tol = 1e-3 if train else 1e-4
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=tol, atol=tol)
    if not train:  # (through 50 training-mode batch_norms of a 2-image batch the gradient is chaotic)
        np.testing.assert_allclose(model[0].weight.grad.numpy(), ref_grad.numpy(), rtol=1e-3, atol=1e-3)
    assert model[0].weight.grad.is_contiguous(memory_format=flow.channels_last)


@pytest.mark.parametrize("act", ["relu", "gelu", "silu", "hardtanh"])
def test_activations_keep_channels_last_forward_and_backward(act):
    """Activations and their gradients map channels_last operands in place (no row-major copies):
    same values and strides as torch."""
    x = np.random.default_rng(3).standard_normal((2, 5, 4, 3)).astype(np.float32)
    g = np.random.default_rng(4).standard_normal((2, 5, 4, 3)).astype(np.float32)
    results = []
    for m in (flow, torch):
        t = m.tensor(x).to(memory_format=m.channels_last).requires_grad_()
        y = getattr(m.nn.functional, act)(t)
        y.backward(m.tensor(g).to(memory_format=m.channels_last))
        results.append((y.detach().numpy(), t.grad.numpy(), y.stride(), t.grad.stride()))
    (y0, g0, ys0, gs0), (y1, g1, ys1, gs1) = results
    np.testing.assert_allclose(y0, y1, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(g0, g1, rtol=1e-5, atol=1e-6)
    assert ys0 == ys1 and gs0 == gs1
