"""oneflow.nn.utils fuse_*_bn_*, stateless.functional_call, skip_init and
convert_conv*_weight_memory_format against torch: fused weights and outputs, calls with
replaced parameters and their gradients, tied weights, strict checking, and bad input."""

import numpy as np
import pytest
import torch

import oneflow as flow
from oneflow.nn.utils import stateless

pytestmark = pytest.mark.filterwarnings("ignore::FutureWarning")


def _np(t):
    return t.detach().numpy()


def _same(fm, tm, seed=0):
    rng = np.random.RandomState(seed)
    sd = {}
    for k, v in tm.state_dict().items():
        if v.dtype.is_floating_point:
            val = rng.rand(*v.shape) + 0.5 if "running_var" in k else rng.randn(*v.shape)
            sd[k] = val.astype(v.numpy().dtype)
        else:
            sd[k] = v.numpy()
    tm.load_state_dict({k: torch.tensor(v) for k, v in sd.items()})
    fm.load_state_dict(sd)


CONV_CASES = [
    ("Conv2d", (3, 4, 3), "BatchNorm2d", 4, (2, 3, 6, 6), False, {}),
    ("Conv1d", (2, 5, 2), "BatchNorm1d", 5, (2, 2, 7), False, {"bias": False}),
    ("Conv3d", (2, 3, 2), "BatchNorm3d", 3, (1, 2, 4, 4, 4), False, {}),
    ("ConvTranspose2d", (3, 4, 2), "BatchNorm2d", 4, (1, 3, 4, 4), True, {}),
]


@pytest.mark.parametrize("conv,args,bn,c,x_shape,transpose,kw", CONV_CASES)
@pytest.mark.parametrize("affine", [True, False])
def test_fuse_conv_bn_eval(conv, args, bn, c, x_shape, transpose, kw, affine):
    fc, tc = getattr(flow.nn, conv)(*args, **kw).double().eval(), getattr(torch.nn, conv)(*args, **kw).double().eval()
    fb, tb = (
        getattr(flow.nn, bn)(c, affine=affine).double().eval(),
        getattr(torch.nn, bn)(c, affine=affine).double().eval(),
    )
    _same(fc, tc)
    _same(fb, tb, seed=1)
    ff = flow.nn.utils.fuse_conv_bn_eval(fc, fb, transpose=transpose)
    tf = torch.nn.utils.fuse_conv_bn_eval(tc, tb, transpose=transpose)
    assert ff is not fc and isinstance(ff.weight, flow.nn.Parameter) and isinstance(ff.bias, flow.nn.Parameter)
    np.testing.assert_allclose(_np(ff.weight), _np(tf.weight), atol=1e-12)
    np.testing.assert_allclose(_np(ff.bias), _np(tf.bias), atol=1e-12)
    x = np.random.RandomState(2).randn(*x_shape)
    np.testing.assert_allclose(_np(ff(flow.tensor(x))), _np(fb(fc(flow.tensor(x)))), atol=1e-10)
    # the original conv is untouched
    np.testing.assert_allclose(_np(fc.weight), _np(tc.weight))


def test_fuse_conv_bn_weights_dtypes_and_requires_grad():
    w = flow.randn(4, 3, 2, 2, dtype=flow.float64, requires_grad=True)
    rm, rv = flow.randn(4), flow.rand(4) + 0.5
    fw, fb = flow.nn.utils.fuse_conv_bn_weights(w, None, rm, rv, 1e-5, None, None)
    tw, tb = torch.nn.utils.fuse_conv_bn_weights(
        torch.tensor(_np(w), requires_grad=True), None, torch.tensor(_np(rm)), torch.tensor(_np(rv)), 1e-5, None, None
    )
    assert fw.dtype == flow.float64 and fb.dtype == flow.float64 and tb.dtype == torch.float64
    assert fw.requires_grad and not fb.requires_grad
    assert fw.requires_grad == tw.requires_grad and fb.requires_grad == tb.requires_grad
    np.testing.assert_allclose(_np(fw), _np(tw), atol=1e-12)
    np.testing.assert_allclose(_np(fb), _np(tb), atol=1e-6)


@pytest.mark.parametrize("features", [4, 1])
def test_fuse_linear_bn_eval(features):
    fl, tl = flow.nn.Linear(3, 4).double().eval(), torch.nn.Linear(3, 4).double().eval()
    fb, tb = flow.nn.BatchNorm1d(features).double().eval(), torch.nn.BatchNorm1d(features).double().eval()
    _same(fl, tl)
    _same(fb, tb, seed=1)
    ff = flow.nn.utils.fuse_linear_bn_eval(fl, fb)
    tf = torch.nn.utils.fuse_linear_bn_eval(tl, tb)
    np.testing.assert_allclose(_np(ff.weight), _np(tf.weight), atol=1e-12)
    np.testing.assert_allclose(_np(ff.bias), _np(tf.bias), atol=1e-12)
    x = np.random.RandomState(3).randn(5, 3)
    np.testing.assert_allclose(_np(ff(flow.tensor(x))), _np(tf(torch.tensor(x))), atol=1e-10)


def test_fuse_errors():
    with pytest.raises(AssertionError, match="Fusion only for eval"):
        flow.nn.utils.fuse_conv_bn_eval(flow.nn.Conv2d(1, 2, 1), flow.nn.BatchNorm2d(2).eval())
    with pytest.raises(AssertionError, match="Fusion only for eval"):
        flow.nn.utils.fuse_linear_bn_eval(flow.nn.Linear(2, 2).eval(), flow.nn.BatchNorm1d(2))
    with pytest.raises(AssertionError, match="linear.out_features must equal bn.num_features"):
        flow.nn.utils.fuse_linear_bn_eval(flow.nn.Linear(2, 3).eval(), flow.nn.BatchNorm1d(2).eval())
    with pytest.raises(AssertionError, match="running statistics"):
        flow.nn.utils.fuse_linear_bn_eval(
            flow.nn.Linear(2, 2).eval(), flow.nn.BatchNorm1d(2, track_running_stats=False).eval()
        )


# ---- stateless.functional_call ------------------------------------------------------------------


class _Net:
    @staticmethod
    def make(lib):
        class Net(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = lib.nn.Linear(3, 3)
                self.bn = lib.nn.BatchNorm1d(3)
                self.out = lib.nn.Linear(3, 3)
                self.out.weight = self.fc.weight  # tied

            def forward(self, x, scale=1.0):
                return self.out(self.bn(self.fc(x))) * scale

        return Net().double()


@pytest.mark.parametrize("tie_weights", [True, False])
def test_functional_call(tie_weights):
    fm, tm = _Net.make(flow), _Net.make(torch)
    _same(fm, tm)
    rng = np.random.RandomState(5)
    w = rng.randn(3, 3)
    b = rng.randn(3)
    fw, tw = flow.tensor(w, requires_grad=True), torch.tensor(w, requires_grad=True)
    fb, tb = flow.tensor(b, requires_grad=True), torch.tensor(b, requires_grad=True)
    x = rng.randn(4, 3)
    before = _np(fm.fc.weight).copy()
    yf = stateless.functional_call(
        fm, {"fc.weight": fw, "out.bias": fb}, (flow.tensor(x),), {"scale": 2.0}, tie_weights=tie_weights
    )
    yt = torch.nn.utils.stateless.functional_call(
        tm, {"fc.weight": tw, "out.bias": tb}, (torch.tensor(x),), {"scale": 2.0}, tie_weights=tie_weights
    )
    np.testing.assert_allclose(_np(yf), _np(yt), atol=1e-10)
    (yf**2).sum().backward()
    (yt**2).sum().backward()
    np.testing.assert_allclose(_np(fw.grad), _np(tw.grad), atol=1e-9)
    np.testing.assert_allclose(_np(fb.grad), _np(tb.grad), atol=1e-9)
    # the module is restored, and running stats were updated in place (training mode)
    np.testing.assert_array_equal(_np(fm.fc.weight), before)
    assert fm.out.weight is fm.fc.weight and isinstance(fm.fc.weight, flow.nn.Parameter)
    np.testing.assert_allclose(_np(fm.bn.running_mean), _np(tm.bn.running_mean), atol=1e-12)
    # a single non-tuple argument is one positional argument
    y1 = stateless.functional_call(fm, {}, flow.tensor(x))
    np.testing.assert_allclose(_np(y1), _np(tm(torch.tensor(x))), atol=1e-10)


def test_functional_call_errors():
    m = _Net.make(flow)
    x = flow.zeros(2, 3, dtype=flow.float64)
    with pytest.raises(ValueError, match="which are tied"):
        stateless.functional_call(m, {"fc.weight": flow.zeros(3, 3), "out.weight": flow.ones(3, 3)}, x)
    with pytest.raises(RuntimeError, match="Unexpected key\\(s\\): 'nope'"):
        stateless.functional_call(m, {"nope": flow.zeros(1)}, x, strict=True)
    with pytest.raises(RuntimeError, match="Missing key"):
        stateless.functional_call(m, {"fc.weight": flow.zeros(3, 3)}, x, strict=True)
    with pytest.raises(TypeError, match="must be a Tensor"):
        stateless.functional_call(m, {"fc.bias": [1.0, 2.0, 3.0]}, x)
    with pytest.raises(TypeError, match="module must be an nn.Module"):
        stateless.functional_call(lambda x: x, {}, x)
    # a failed call leaves the module as it was
    w = m.fc.weight
    with pytest.raises(RuntimeError):
        stateless.functional_call(m, {"fc.weight": flow.zeros(5, 5, dtype=flow.float64)}, x)
    assert m.fc.weight is w


# ---- skip_init, memory format -------------------------------------------------------------------


def test_skip_init():
    m = flow.nn.utils.skip_init(flow.nn.Linear, 5, 2, bias=False, dtype=flow.float64)
    assert isinstance(m, flow.nn.Linear) and tuple(m.weight.shape) == (2, 5) and m.bias is None
    assert m.weight.dtype == flow.float64 and m.weight.device == flow.device("cpu") and m.weight.requires_grad
    with pytest.raises(RuntimeError, match="Expected a Module"):
        flow.nn.utils.skip_init(int)

    class NoDevice(flow.nn.Module):
        def __init__(self, n):
            super().__init__()

    with pytest.raises(RuntimeError, match="must support a 'device' arg"):
        flow.nn.utils.skip_init(NoDevice, 3)


def test_convert_weight_memory_format():
    m = flow.nn.Sequential(
        flow.nn.Conv2d(3, 4, 3), flow.nn.Sequential(flow.nn.ConvTranspose2d(4, 2, 2)), flow.nn.Conv3d(2, 2, 2)
    )
    t = torch.nn.Sequential(
        torch.nn.Conv2d(3, 4, 3), torch.nn.Sequential(torch.nn.ConvTranspose2d(4, 2, 2)), torch.nn.Conv3d(2, 2, 2)
    )
    w0 = m[0].weight
    values = _np(w0).copy()
    assert flow.nn.utils.convert_conv2d_weight_memory_format(m, flow.channels_last) is m
    torch.nn.utils.convert_conv2d_weight_memory_format(t, torch.channels_last)
    assert m[0].weight is w0
    np.testing.assert_array_equal(_np(m[0].weight), values)
    for fm, tm in ((m[0], t[0]), (m[1][0], t[1][0]), (m[2], t[2])):
        assert tuple(fm.weight.stride()) == tuple(tm.weight.stride())
    flow.nn.utils.convert_conv3d_weight_memory_format(m, flow.channels_last_3d)
    torch.nn.utils.convert_conv3d_weight_memory_format(t, torch.channels_last_3d)
    assert tuple(m[2].weight.stride()) == tuple(t[2].weight.stride())
    with pytest.raises(TypeError, match="module must be an nn.Module"):
        flow.nn.utils.convert_conv2d_weight_memory_format("conv", flow.channels_last)
