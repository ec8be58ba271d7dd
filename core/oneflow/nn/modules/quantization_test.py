"""OneFlow's quantization-aware modules (OneFlow-only: no torch counterpart), against NumPy
versions of OneFlow's formulas (its docstrings and CPU kernels): MinMaxObserver,
MovingAverageMinMaxObserver, FakeQuantization, Quantization, QatConv1d/2d/3d."""

import numpy as np
import pytest
import torch

import oneflow as flow


def rng(seed=0):
    """A fresh generator per use, so each test sees the same data run alone or in the suite."""
    return np.random.RandomState(seed)


# ---- NumPy references (rounding half to even as std::nearbyint; zero points half away) ----

def np_min_max(x, formula, bit, scheme, per_layer):
    rows = x.reshape(1, -1) if per_layer else x.reshape(x.shape[0], -1)
    mx, mn = rows.max(axis=1), rows.min(axis=1)
    if formula == "cambricon":
        return np.floor(np.log2(np.maximum(abs(mx), abs(mn)))) - (bit - 2), np.zeros(1)
    if scheme == "symmetric":
        return np.maximum(abs(mx), abs(mn)) / (2.0 ** (bit - 1) - 1), np.zeros_like(mx)
    scale = (mx - mn) / (2.0 ** bit - 1)
    return scale, -np.rint(mn / scale)


def np_quant(x, scale, zp, formula, bit, scheme, dequantize):
    if formula == "cambricon":
        step = 2.0 ** np.trunc(scale.reshape(()))
        q = np.clip(np.rint(x / step), -(2 ** (bit - 1)), 2 ** (bit - 1) - 1)
        return q * step if dequantize else q
    view = (scale.size,) + (1,) * (x.ndim - 1) if scale.size > 1 else ()
    s = scale.reshape(view)
    if scheme == "symmetric":
        q = np.clip(np.rint(x / s), -(2 ** (bit - 1)), 2 ** (bit - 1) - 1)
        return q * s if dequantize else q
    z = zp.reshape(view)
    z = np.sign(z) * np.floor(np.abs(z) + 0.5)
    q = np.clip(np.rint(x / s + z), 0, 2 ** bit - 1)
    return (q - z) * s if dequantize else q


def t(a):
    return flow.tensor(a)


CONFIGS = [("google", b, sch, pl) for b in (8, 4, 2) for sch in ("symmetric", "affine") for pl in (True, False)]
CONFIGS += [("cambricon", 8, "symmetric", True), ("cambricon", 5, "symmetric", True)]


@pytest.mark.parametrize("formula,bit,scheme,per_layer", CONFIGS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_min_max_observer(formula, bit, scheme, per_layer, dtype):
    x = (rng().random_sample((3, 4, 5)) - 0.4).astype(dtype)
    scale, zp = flow.nn.MinMaxObserver(quantization_formula=formula, quantization_bit=bit,
                                       quantization_scheme=scheme, per_layer_quantization=per_layer)(t(x))
    es, ez = np_min_max(x.astype(np.float64), formula, bit, scheme, per_layer)
    assert tuple(scale.shape) == ((1,) if per_layer else (3,))
    assert tuple(zp.shape) == tuple(scale.shape)
    assert scale.dtype == zp.dtype == t(x).dtype
    np.testing.assert_allclose(scale.numpy(), es, rtol=1e-6)
    np.testing.assert_allclose(zp.numpy(), ez, atol=1e-6)


def test_min_max_observer_hand_values():
    x = np.array([[-1.0, 0.5], [2.0, -0.25]], dtype=np.float32)
    s, z = flow.nn.MinMaxObserver()(t(x))  # symmetric, 8 bits: 2 / 127
    np.testing.assert_allclose(s.numpy(), [2.0 / 127], rtol=1e-7)
    assert z.numpy().tolist() == [0.0]
    s, z = flow.nn.MinMaxObserver(quantization_scheme="affine", per_layer_quantization=False)(t(x))
    np.testing.assert_allclose(s.numpy(), [1.5 / 255, 2.25 / 255], rtol=1e-6)
    np.testing.assert_allclose(z.numpy(), [170.0, 28.0])  # -rint(-1 / (1.5/255)), -rint(-0.25 / (2.25/255))
    s, _ = flow.nn.MinMaxObserver(quantization_formula="cambricon")(t(x))
    assert s.numpy().tolist() == [-5.0]  # floor(log2(2)) - (8 - 2)


@pytest.mark.parametrize("formula,bit,scheme,per_layer", CONFIGS)
@pytest.mark.parametrize("dequantize", [True, False])
def test_fake_quantization_and_quantization(formula, bit, scheme, per_layer, dequantize):
    x = (rng().random_sample((4, 3, 5)) * 3 - 1.2).astype(np.float32)
    scale, zp = flow.nn.MinMaxObserver(formula, bit, scheme, per_layer)(t(x))
    # Values past the observed range exercise the clamps.
    y = np.concatenate([x, x * 1.7], axis=1)
    cls = flow.nn.FakeQuantization if dequantize else flow.nn.Quantization
    out = cls(quantization_formula=formula, quantization_bit=bit, quantization_scheme=scheme)(t(y), scale, zp)
    want = np_quant(y.astype(np.float64), scale.numpy().astype(np.float64), zp.numpy().astype(np.float64),
                    formula, bit, scheme, dequantize)
    assert out.dtype == flow.float32 and tuple(out.shape) == y.shape
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-5, atol=1e-6)


def test_quantization_hand_values():
    x = t(np.array([-3.0, -1.26, -0.5, 0.0, 0.5, 1.5, 2.5, 9.0], dtype=np.float32))
    one = t(np.array([1.0], dtype=np.float32))
    zero = t(np.array([0.0], dtype=np.float32))
    q = flow.nn.Quantization(quantization_bit=2)(x, one, zero)  # signed 2 bits: [-2, 1], half to even
    assert q.numpy().tolist() == [-2.0, -1.0, -0.0, 0.0, 0.0, 1.0, 1.0, 1.0]
    zp = t(np.array([1.5], dtype=np.float32))  # rounded half away: 2
    q = flow.nn.Quantization(quantization_bit=2, quantization_scheme="affine")(x, one, zp)
    assert q.numpy().tolist() == [0.0, 1.0, 2.0, 2.0, 2.0, 3.0, 3.0, 3.0]
    fq = flow.nn.FakeQuantization(quantization_bit=2, quantization_scheme="affine")(x, one, zp)
    assert fq.numpy().tolist() == [-2.0, -1.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0]
    shift = t(np.array([-1.0], dtype=np.float32))  # step 2^-1
    q = flow.nn.Quantization("cambricon", 3)(x, shift, zero)  # [-4, 3] on the half grid
    assert q.numpy().tolist() == [-4.0, -3.0, -1.0, 0.0, 1.0, 3.0, 3.0, 3.0]


def test_fake_quantization_straight_through_gradient():
    x = flow.tensor(rng().randn(2, 3, 4).astype(np.float32), requires_grad=True)
    scale, zp = flow.nn.MinMaxObserver()(x)
    assert not scale.requires_grad
    y = flow.nn.FakeQuantization()(x, scale, zp)
    assert y.requires_grad
    g = rng(1).randn(2, 3, 4).astype(np.float32)
    y.backward(t(g))
    np.testing.assert_array_equal(x.grad.numpy(), g)
    q = flow.nn.Quantization()(x, scale, zp)
    assert not q.requires_grad


def np_moving(xs, steps, training, formula, stop, bit, scheme, momentum):
    mmax = mmin = 0.0
    out = []
    for x, step in zip(xs, steps):
        if training and step <= stop:
            if scheme == "affine" and formula == "google":
                mmax = x.max() if mmax == 0 else mmax * momentum + x.max() * (1 - momentum)
                mmin = x.min() if mmin == 0 else mmin * momentum + x.min() * (1 - momentum)
            else:
                a = np.abs(x).max()
                mmax = a if mmax == 0 else mmax * momentum + a * (1 - momentum)
                mmin = mmax
        if formula == "cambricon":
            out.append((np.floor(np.log2(mmax)) - (bit - 2), 0.0))
        elif scheme == "symmetric":
            out.append((mmax / (2.0 ** (bit - 1) - 1), 0.0))
        else:
            s = (mmax - mmin) / (2.0 ** bit - 1)
            out.append((s, -mmin / s))
    return out, mmax, mmin


@pytest.mark.parametrize("formula,scheme", [("google", "symmetric"), ("google", "affine"), ("cambricon", "symmetric")])
@pytest.mark.parametrize("bit", [8, 3])
def test_moving_average_min_max_observer(formula, scheme, bit):
    xs = [(rng(i).random_sample((2, 3, 4)) - 0.3 + i * 0.2).astype(np.float64) for i in range(5)]
    steps = [0, 1, 2, 3, 1]
    m = flow.nn.MovingAverageMinMaxObserver(training=True, quantization_formula=formula, stop_update_after_iters=2,
                                            quantization_bit=bit, quantization_scheme=scheme, momentum=0.9)
    want, mmax, mmin = np_moving([x.astype(np.float32).astype(np.float64) for x in xs], steps, True, formula, 2,
                                 bit, scheme, 0.9)
    for x, step, (es, ez) in zip(xs, steps, want):
        s, z = m(t(x.astype(np.float32)), flow.tensor([step], dtype=flow.int64))
        assert tuple(s.shape) == tuple(z.shape) == (1,)
        np.testing.assert_allclose(s.numpy(), [es], rtol=1e-5)
        np.testing.assert_allclose(z.numpy(), [ez], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(m.moving_max.numpy(), [mmax], rtol=1e-6)
    np.testing.assert_allclose(m.moving_min.numpy(), [mmin], rtol=1e-6)
    # In eval mode the averages stay as they are.
    m.eval()
    s_eval, _ = m(t(xs[0].astype(np.float32) * 10), flow.tensor([0], dtype=flow.int64))
    np.testing.assert_allclose(s_eval.numpy(), [want[-1][0]], rtol=1e-5)
    np.testing.assert_allclose(m.moving_max.numpy(), [mmax], rtol=1e-6)


def test_moving_average_defaults_and_state():
    m = flow.nn.MovingAverageMinMaxObserver()
    assert not m.training and m.momentum == 0 and m.stop_update_after_iters == 0
    assert set(m.state_dict()) == {"moving_max", "moving_min"}
    m.train()
    x = np.array([[-4.0, 1.0]], dtype=np.float32)
    s, z = m(t(x), 0)
    np.testing.assert_allclose(s.numpy(), [4.0 / 127], rtol=1e-7)
    m.reset_running_stats()
    assert m.moving_max.numpy().tolist() == [0.0]


@pytest.mark.parametrize("n", [1, 2, 3])
@pytest.mark.parametrize("scheme,per_layer", [("symmetric", True), ("affine", False)])
def test_qat_conv(n, scheme, per_layer):
    cls = {1: flow.nn.QatConv1d, 2: flow.nn.QatConv2d, 3: flow.nn.QatConv3d}[n]
    tcls = {1: torch.nn.Conv1d, 2: torch.nn.Conv2d, 3: torch.nn.Conv3d}[n]
    m = cls(4, 6, 3, stride=1, padding=1, quantization_scheme=scheme, weight_quant_per_layer=per_layer,
            input_quant_momentum=0.95)
    assert isinstance(m, {1: flow.nn.Conv1d, 2: flow.nn.Conv2d, 3: flow.nn.Conv3d}[n])
    assert "current_train_step" in m.state_dict() and "input_min_max_observer.moving_max" in m.state_dict()
    x = rng().randn(2, 4, *([5] * n)).astype(np.float32)
    out = m(t(x))
    w = m.weight.detach().numpy().astype(np.float64)
    ws, wz = np_min_max(w, "google", 8, scheme, per_layer)
    [(in_s, in_z)], _, _ = np_moving([x.astype(np.float64)], [0], True, "google", 1, 8, scheme, 0.95)
    xq = np_quant(x.astype(np.float64), np.array([in_s]), np.array([in_z]), "google", 8, scheme, True)
    wq = np_quant(w, ws, wz, "google", 8, scheme, True)
    ref = tcls(4, 6, 3, padding=1)
    with torch.no_grad():
        ref.weight.copy_(torch.tensor(wq))
        ref.bias.copy_(torch.tensor(m.bias.detach().numpy()))
        want = ref.double()(torch.tensor(xq)).numpy()
    np.testing.assert_allclose(out.detach().numpy(), want, rtol=1e-4, atol=1e-4)
    out.sum().backward()
    assert m.weight.grad is not None and m.bias.grad is not None


def test_bad_input():
    with pytest.raises(ValueError, match="MinMaxObserver: quantization_formula"):
        flow.nn.MinMaxObserver(quantization_formula="tensorrt")
    with pytest.raises(ValueError, match=r"quantization_bit must be in \[2, 8\], got 9"):
        flow.nn.FakeQuantization(quantization_bit=9)
    with pytest.raises(TypeError, match="quantization_bit must be an int"):
        flow.nn.Quantization(quantization_bit=8.0)
    with pytest.raises(ValueError, match="quantization_scheme"):
        flow.nn.MovingAverageMinMaxObserver(quantization_scheme="asymmetric")
    with pytest.raises(ValueError, match="cambricon formula supports per-layer"):
        flow.nn.MinMaxObserver(quantization_formula="cambricon", per_layer_quantization=False)
    with pytest.raises(TypeError, match="MinMaxObserver: input must be a floating-point tensor, got oneflow.int64"):
        flow.nn.MinMaxObserver()(flow.tensor([1, 2]))
    with pytest.raises(TypeError, match="FakeQuantization: input must be a Tensor"):
        flow.nn.FakeQuantization()([1.0], flow.ones(1), flow.zeros(1))
    with pytest.raises(ValueError, match="per-channel scale needs one value per slice"):
        flow.nn.FakeQuantization()(flow.ones(3, 2), flow.ones(2), flow.zeros(2))
    with pytest.raises(ValueError, match="zero_point must have as many elements as scale"):
        flow.nn.Quantization(quantization_scheme="affine")(flow.ones(3, 2), flow.ones(3), flow.zeros(2))
    m = flow.nn.MovingAverageMinMaxObserver(training=True)
    with pytest.raises(TypeError, match="current_train_step must be an integer tensor"):
        m(flow.ones(2), flow.zeros(1))
    with pytest.raises(ValueError, match="current_train_step must have one element"):
        m(flow.ones(2), flow.zeros(2, dtype=flow.int64))
    with pytest.raises(ValueError, match="momentum must be in"):
        flow.nn.MovingAverageMinMaxObserver(momentum=1.5)
    with pytest.raises(TypeError, match="QatConv2d: weight_quant_per_layer must be a bool"):
        flow.nn.QatConv2d(2, 2, 3, weight_quant_per_layer="yes")
