"""The top-level names of oneflow/_torch_breadth_more.py and _torch_breadth_switches.py against
torch: values, gradients, Tensor methods, in-place forms, sampling statistics, global switches and
the errors of bad input."""

import math

import numpy as np
import pytest
import torch

import oneflow as flow
from oneflow import _torch_breadth_more, _torch_breadth_switches

RNG = np.random.default_rng(7)


def _pair(array, requires_grad=False):
    return (
        flow.tensor(array, requires_grad=requires_grad),
        torch.tensor(array, requires_grad=requires_grad),
    )


def _np(x):
    if isinstance(x, (tuple, list)):
        return [_np(v) for v in x]
    return x.detach().numpy() if hasattr(x, "detach") else np.asarray(x)


def _same(ours, ref, rtol=1e-12, atol=1e-12):
    if isinstance(ref, (tuple, list)):
        assert len(ours) == len(ref)
        for a, b in zip(ours, ref):
            _same(a, b, rtol, atol)
        return
    if isinstance(ref, torch.Tensor):
        assert tuple(ours.shape) == tuple(ref.shape)
        assert str(ours.dtype).split(".")[-1] == str(ref.dtype).split(".")[-1]
    np.testing.assert_allclose(_np(ours), _np(ref), rtol=rtol, atol=atol)


def test_every_name_is_installed_and_public():
    names = [n for n in _torch_breadth_more.FUNCTIONS + _torch_breadth_switches.PUBLIC]
    names += [n for n in _torch_breadth_more.TENSOR_METHOD_FUNCTIONS]
    for name in names:
        assert hasattr(flow, name), name
        assert hasattr(torch, name), name
        assert name in flow.__all__ or name in dir(flow), name
    assert flow.GradScaler is flow.amp.GradScaler


UNARY_INPLACE = [
    "abs_", "acos_", "acosh_", "arccos_", "arccosh_", "arcsin_", "arcsinh_", "arctan_", "arctanh_", "asin_",
    "asinh_", "atan_", "atanh_", "ceil_", "cos_", "cosh_", "erf_", "erfc_", "exp2_", "exp_", "expm1_", "fix_",
    "log10_", "log1p_", "log2_", "log_", "neg_", "negative_", "reciprocal_", "relu_", "round_", "rsqrt_",
    "sigmoid_", "sinh_", "sqrt_", "tan_", "tanh_", "trunc_", "zero_", "i0_", "selu_", "celu_",
]  # fmt: skip


@pytest.mark.parametrize("name", UNARY_INPLACE)
def test_unary_inplace_functions(name):
    domain = {"acosh_": (1.1, 3), "arccosh_": (1.1, 3)}.get(name, (0.1, 0.9))
    values = RNG.uniform(*domain, (3, 4))
    ours, ref = _pair(values)
    out = getattr(flow, name)(ours)
    want = getattr(torch, name)(ref)
    assert out is ours
    _same(ours, want)


BINARY = ["arctan2", "divide", "multiply", "subtract", "greater", "greater_equal", "less", "less_equal",
          "logaddexp2", "dist", "vdot"]  # fmt: skip


@pytest.mark.parametrize("name", BINARY)
def test_binary_aliases(name):
    shape = (5,) if name == "vdot" else (3, 4)
    a, b = RNG.uniform(-2, 2, shape), RNG.uniform(0.5, 2, shape)
    fa, ta = _pair(a, requires_grad=True)
    fb, tb = _pair(b, requires_grad=True)
    ours, ref = getattr(flow, name)(fa, fb), getattr(torch, name)(ta, tb)
    _same(ours, ref)
    if ref.dtype.is_floating_point:
        ours.sum().backward()
        ref.sum().backward()
        _same(fa.grad, ta.grad)
        _same(fb.grad, tb.grad)


def test_method_forms():
    x = RNG.uniform(-3, 3, (3, 4))
    f, t = _pair(x)
    cases = [
        ("absolute", ()), ("adjoint", ()), ("broadcast_to", ((2, 3, 4),)), ("clamp_", (-1.0, 1.0)),
        ("clamp_min_", (0.0,)), ("clamp_max_", (0.5,)), ("clip_", (-0.5, 0.5)), ("detach", ()),
        ("diagflat", ()), ("fix", ()), ("frexp", ()), ("is_inference", ()), ("is_same_size", (f,)),
        ("is_signed", ()), ("isneginf", ()), ("isposinf", ()), ("isreal", ()), ("renorm", (2, 0, 1.0)),
        ("split_with_sizes", ([1, 2],)), ("unsafe_split", (2,)), ("unsafe_chunk", (2,)),
        ("unsafe_split_with_sizes", ([2, 1],)), ("fill", (2.5,)), ("exp2", ()), ("i0", ()),
    ]  # fmt: skip
    for name, args in cases:
        targs = tuple(t if a is f else a for a in args)
        ours, ref = getattr(flow, name)(f.clone(), *args), getattr(torch, name)(t.clone(), *targs)
        if isinstance(ref, bool):
            assert ours == ref, name
        else:
            _same(ours, ref)
    m = RNG.uniform(-1, 1, (3, 3))
    _same(flow.matrix_power(flow.tensor(m), 3), torch.matrix_power(torch.tensor(m), 3))
    _same(flow.rsub(f, 2.0, alpha=3), torch.rsub(t, 2.0, alpha=3))
    _same(flow.rsub(f, f * 2), torch.rsub(t, t * 2))
    _same(flow.concatenate([f, f], 1), torch.concatenate([t, t], 1))
    _same(flow.repeat_interleave(flow.tensor([2, 0, 1])), torch.repeat_interleave(torch.tensor([2, 0, 1])))
    _same(flow.repeat_interleave(f, 2, dim=0), torch.repeat_interleave(t, 2, dim=0))
    st = flow.scalar_tensor(3)
    assert st.dtype == flow.float32 and st.shape == () and st.item() == 3.0


def test_isin():
    a, b = RNG.integers(0, 10, (4, 5)), RNG.integers(0, 10, (6,))
    for invert in (False, True):
        _same(
            flow.isin(flow.tensor(a), flow.tensor(b), invert=invert),
            torch.isin(torch.tensor(a), torch.tensor(b), invert=invert),
        )
    _same(flow.isin(flow.tensor(a), 3), torch.isin(torch.tensor(a), 3))
    _same(flow.isin(4, flow.tensor(b)), torch.isin(4, torch.tensor(b)))
    with pytest.raises(TypeError, match="isin"):
        flow.isin(1, 2)


def test_gamma_family_and_methods():
    a, x = RNG.uniform(0.5, 5, (3, 4)), RNG.uniform(0.1, 6, (3, 4))
    fa, ta = _pair(a)
    fx, tx = _pair(x, requires_grad=True)
    _same(flow.igamma(fa, fx), torch.igamma(ta, tx), rtol=1e-11)
    _same(flow.igammac(fa, fx), torch.igammac(ta, tx), rtol=1e-11)
    _same(fa.igamma(fx), ta.igamma(tx), rtol=1e-11)
    flow.igamma(fa, fx).sum().backward()
    torch.igamma(ta, tx).sum().backward()
    _same(fx.grad, tx.grad)
    y = x + 2
    _same(flow.mvlgamma(flow.tensor(y), 3), torch.mvlgamma(torch.tensor(y), 3))
    _same(flow.tensor(y).mvlgamma(2), torch.tensor(y).mvlgamma(2))
    _same(flow.polygamma(2, flow.tensor(y)), torch.polygamma(2, torch.tensor(y)))
    _same(flow.tensor(y).polygamma(1), torch.tensor(y).polygamma(1), rtol=1e-9)
    _same(flow.i0(fa), torch.i0(ta))
    for name, args in (("i0_", ()), ("igamma_", (fx.detach(),)), ("mvlgamma_", (2,)), ("polygamma_", (1,))):
        f, t = _pair(y)
        targs = tuple(torch.tensor(v.numpy()) if isinstance(v, flow.Tensor) else v for v in args)
        assert getattr(f, name)(*args) is f
        getattr(t, name)(*targs)
        _same(f, t, rtol=1e-9)


def test_layers():
    x = RNG.normal(size=(2, 6, 3))
    f, t = _pair(x)
    _same(flow.alpha_dropout(f, 0.3, False), torch.alpha_dropout(t, 0.3, False))
    _same(flow.feature_alpha_dropout(f, 0.3, False), torch.feature_alpha_dropout(t, 0.3, False))
    _same(flow.rrelu(f), torch.rrelu(t))
    _same(flow.channel_shuffle(f, 2), torch.channel_shuffle(t, 2))
    _same(flow.threshold_(f.clone(), 0.1, -5.0), torch.threshold_(t.clone(), 0.1, -5.0))
    m = RNG.normal(size=(5, 3))
    _same(flow.pdist(flow.tensor(m)), torch.pdist(torch.tensor(m)))
    _same(flow.pdist(flow.tensor(m), 1.5), torch.pdist(torch.tensor(m), 1.5))
    target = np.sign(RNG.normal(size=(4, 3)))
    inp = RNG.normal(size=(4, 3))
    for reduction in (0, 1, 2):
        _same(
            flow.hinge_embedding_loss(flow.tensor(inp), flow.tensor(target), 0.5, reduction),
            torch.hinge_embedding_loss(torch.tensor(inp), torch.tensor(target), 0.5, reduction),
        )
        _same(
            flow.poisson_nll_loss(flow.tensor(inp), flow.tensor(np.abs(target)), True, True, 1e-8, reduction),
            torch.poisson_nll_loss(torch.tensor(inp), torch.tensor(np.abs(target)), True, True, 1e-8, reduction),
        )
    dropped = flow.alpha_dropout(flow.ones(1000, dtype=flow.float64), 0.5, True)
    values, counts = np.unique(dropped.numpy(), return_counts=True)
    assert len(values) == 2 and 350 < counts[0] < 650  # kept and dropped, each affinely mapped
    g = flow.tensor(x, requires_grad=True)
    flow.alpha_dropout_(g.clone(), 0.2, False).sum().backward()
    np.testing.assert_allclose(g.grad.numpy(), np.ones_like(x))


def test_gradient_and_cumulative_trapezoid():
    y = RNG.normal(size=(5, 6))
    f, t = _pair(y, requires_grad=True)
    for kwargs in (
        {},
        {"spacing": 2.0},
        {"dim": 1},
        {"spacing": [0.5, 2.0]},
        {"edge_order": 2},
        {"dim": 0, "edge_order": 2},
    ):
        _same(flow.gradient(f, **kwargs), torch.gradient(t, **kwargs))
    coords = np.cumsum(RNG.uniform(0.5, 1.5, 6))
    for edge in (1, 2):
        _same(
            flow.gradient(f, spacing=(flow.tensor(coords),), dim=1, edge_order=edge),
            torch.gradient(t, spacing=(torch.tensor(coords),), dim=1, edge_order=edge),
        )
    sum(g.sum() for g in flow.gradient(f)).backward()
    sum(g.sum() for g in torch.gradient(t)).backward()
    _same(f.grad, t.grad)
    _same(flow.cumulative_trapezoid(f), torch.cumulative_trapezoid(t))
    _same(flow.cumulative_trapezoid(f, dx=0.5, dim=0), torch.cumulative_trapezoid(t, dx=0.5, dim=0))
    _same(flow.cumulative_trapezoid(f, flow.tensor(coords)), torch.cumulative_trapezoid(t, torch.tensor(coords)))
    with pytest.raises(RuntimeError, match="edge_order"):
        flow.gradient(f, edge_order=3)


def test_matrix_functions():
    a = RNG.normal(size=(2, 4, 4))
    f, t = _pair(a, requires_grad=True)
    _same(flow.matrix_exp(f), torch.matrix_exp(t), rtol=1e-11)
    _same(f.matrix_exp(), t.matrix_exp(), rtol=1e-11)
    big = a * 8
    _same(flow.matrix_exp(flow.tensor(big)), torch.matrix_exp(torch.tensor(big)), rtol=1e-9)
    flow.matrix_exp(f).sum().backward()
    torch.matrix_exp(t).sum().backward()
    _same(f.grad, t.grad, rtol=1e-9)
    r = RNG.normal(size=(5, 3))
    _same(flow.pinverse(flow.tensor(r)), torch.pinverse(torch.tensor(r)), rtol=1e-10)
    _same(flow.tensor(r).pinverse(), torch.tensor(r).pinverse(), rtol=1e-10)
    _same(flow.nuclear_norm(flow.tensor(r)), torch.nuclear_norm(torch.tensor(r)))
    _same(flow.nuclear_norm(flow.tensor(a), (1, 2)), torch.nuclear_norm(torch.tensor(a), (1, 2)))
    _same(flow.frobenius_norm(flow.tensor(a), (1, 2)), torch.frobenius_norm(torch.tensor(a), (1, 2)))
    with pytest.raises(RuntimeError, match="square"):
        flow.matrix_exp(flow.tensor(r))


def test_sampling():
    flow.manual_seed(0)
    w = flow.tensor([0.1, 0.2, 0.7], dtype=flow.float64)
    draws = flow.multinomial(w, 20000, replacement=True)
    assert draws.dtype == flow.int64 and draws.shape == (20000,)
    freq = np.bincount(draws.numpy(), minlength=3) / 20000
    np.testing.assert_allclose(freq, [0.1, 0.2, 0.7], atol=0.02)
    rows = flow.multinomial(flow.tensor([[1.0, 0, 3, 0], [0, 2.0, 0, 2]]), 2)
    assert rows.shape == (2, 2)
    assert sorted(rows[0].tolist()) == [0, 2] and sorted(rows[1].tolist()) == [1, 3]
    assert flow.tensor([0.5, 0.5]).multinomial(1).shape == (1,)
    with pytest.raises(RuntimeError, match="without replacement"):
        flow.multinomial(flow.tensor([1.0, 1.0]), 3)
    for weights, n, replacement in [
        ([1.0, -1.0], 1, True),
        ([1.0, -1.0], 2, True),
        ([1.0, math.nan], 2, True),
        ([1.0, math.inf], 2, True),
        ([1.0, math.nan], 1, False),
        ([0.0, 0.0], 1, False),
        ([0.0, 0.0], 2, True),
    ]:
        with pytest.raises(RuntimeError) as theirs:
            torch.multinomial(torch.tensor(weights), n, replacement)
        with pytest.raises(RuntimeError) as ours:
            flow.multinomial(flow.tensor(weights), n, replacement)
        assert str(ours.value) == str(theirs.value)
    rates = flow.tensor([0.0, 0.5, 4.0, 30.0, 400.0], dtype=flow.float64).repeat(4000, 1)
    samples = flow.poisson(rates)
    assert samples.dtype == flow.float64
    np.testing.assert_allclose(samples.mean(0).numpy(), [0.0, 0.5, 4.0, 30.0, 400.0], rtol=0.03, atol=0.03)
    np.testing.assert_allclose(samples.var(0).numpy(), [0.0, 0.5, 4.0, 30.0, 400.0], rtol=0.1, atol=0.05)
    assert bool((samples == samples.round()).all())
    counts = flow.tensor([10.0, 50.0, 0.0]).repeat(3000, 1)
    probs = flow.tensor([0.5, 0.2, 0.3]).repeat(3000, 1)
    b = flow.binomial(counts, probs)
    np.testing.assert_allclose(b.mean(0).numpy(), [5.0, 10.0, 0.0], rtol=0.05, atol=0.01)


def test_constants_and_switches():
    assert (flow.pi, flow.e, flow.inf, flow.newaxis) == (math.pi, math.e, math.inf, None)
    assert math.isnan(flow.nan)
    assert flow.tensor([1.0]).layout is flow.strided
    assert isinstance(flow.strided, flow.layout)
    assert issubclass(flow.OutOfMemoryError, RuntimeError)
    assert flow.typename(flow.tensor([1.0])) == "oneflow.FloatTensor"
    assert flow.typename(3) == torch.typename(3) == "int"
    assert not flow.is_storage(flow.tensor([1.0]))
    try:
        flow.use_deterministic_algorithms(True, warn_only=True)
        assert flow.are_deterministic_algorithms_enabled()
        assert flow.is_deterministic_algorithms_warn_only_enabled()
        assert flow.get_deterministic_debug_mode() == 1
        flow.set_deterministic_debug_mode("error")
        assert flow.get_deterministic_debug_mode() == 2
    finally:
        flow.use_deterministic_algorithms(False)
    assert flow.get_deterministic_debug_mode() == 0
    with pytest.raises(RuntimeError, match="debug_mode"):
        flow.set_deterministic_debug_mode("loud")
    flow.set_float32_matmul_precision("high")
    assert flow.get_float32_matmul_precision() == "high"
    flow.set_float32_matmul_precision("highest")
    with pytest.raises(RuntimeError, match="precision"):
        flow.set_float32_matmul_precision("low")
    flow.set_num_interop_threads(2)
    assert flow.get_num_interop_threads() == 2
    assert flow.get_default_device() == flow.device("cpu")
    flow.set_default_device("cpu")
    flow.set_default_device(None)
    flow.set_default_tensor_type("torch.DoubleTensor")
    try:
        assert flow.get_default_dtype() == flow.float64
    finally:
        flow.set_default_dtype(flow.float32)
    with pytest.raises(TypeError, match="invalid type"):
        flow.set_default_tensor_type("torch.Nope")
    flow.set_warn_always(True)
    assert flow.is_warn_always_enabled()
    flow.set_warn_always(False)
    assert not flow.is_anomaly_enabled()
    assert flow.get_device_module("cpu") is flow.cpu


def test_creation_helpers():
    arr = np.arange(6, dtype=np.float32)
    t = flow.asarray(arr)
    arr[0] = 7
    assert t[0].item() == 7.0  # shares memory
    assert flow.asarray([1, 2]).dtype == flow.int64
    assert flow.asarray(t, dtype=flow.float64).dtype == flow.float64
    buf = bytearray(np.arange(4, dtype=np.int32).tobytes())
    fb = flow.frombuffer(buf, dtype=flow.int32)
    _same(fb, torch.frombuffer(bytearray(buf), dtype=torch.int32))
    _same(
        flow.frombuffer(buf, dtype=flow.int32, count=2, offset=4),
        torch.frombuffer(bytearray(buf), dtype=torch.int32, count=2, offset=4),
    )
    es = flow.empty_strided((2, 3), (1, 2))
    assert es.shape == (2, 3) and es.stride() == torch.empty_strided((2, 3), (1, 2)).stride()
    ep = flow.empty_permuted((2, 3, 4), (0, 2, 1))
    assert ep.shape == (2, 3, 4) and ep.stride() == torch.empty_permuted((2, 3, 4), (0, 2, 1)).stride()


def test_from_file(tmp_path):
    path = tmp_path / "data.bin"
    np.arange(5, dtype=np.float64).tofile(path)
    _same(
        flow.from_file(str(path), size=5, dtype=flow.float64), torch.from_file(str(path), size=5, dtype=torch.float64)
    )
    with pytest.raises(RuntimeError, match="EOF"):
        flow.from_file(str(path), size=9, dtype=flow.float64)


def test_bad_input():
    with pytest.raises(TypeError, match=r"abs_\(\): argument 'input' must be Tensor, not list"):
        flow.abs_([1.0])
    with pytest.raises(TypeError, match="scalar_tensor"):
        flow.scalar_tensor("3")
    with pytest.raises(RuntimeError, match="fill only supports 0-dimension"):
        flow.fill(flow.tensor([1.0]), flow.tensor([1.0, 2.0]))
    with pytest.raises(RuntimeError, match="p has to be greater than or equal to 1"):
        flow.mvlgamma(flow.tensor([3.0]), 0)
    with pytest.raises(TypeError, match="gradient"):
        flow.gradient([1.0, 2.0])


def test_histogramdd():
    points = RNG.normal(size=(50, 3))
    f, t = _pair(points)
    for kwargs in (
        {"bins": 4},
        {"bins": [2, 3, 4]},
        {"bins": [3, 3, 3], "range": [-1.0, 1.0, -2.0, 2.0, 0.0, 1.0]},
        {"bins": 3, "density": True},
    ):
        ours, ref = flow.histogramdd(f, **kwargs), torch.histogramdd(t, **kwargs)
        _same(ours.hist, ref.hist)
        _same(ours.bin_edges, ref.bin_edges)
    w = RNG.uniform(size=50)
    ours = flow.histogramdd(f, bins=2, weight=flow.tensor(w))
    _same(ours.hist, torch.histogramdd(t, bins=2, weight=torch.tensor(w)).hist)
    edges = [np.array([-3.0, 0.0, 3.0]), np.array([-1.0, 1.0]), np.array([-2.0, -1.0, 0.0, 2.0])]
    ours = flow.histogramdd(f, bins=[flow.tensor(e) for e in edges])
    _same(ours.hist, torch.histogramdd(t, bins=[torch.tensor(e) for e in edges]).hist)
    with pytest.raises(RuntimeError, match="histogramdd"):
        flow.histogramdd(f, bins=[2, 2])


def test_strided_scatter_neg_and_streams():
    base, src = RNG.normal(size=(3, 3)), RNG.normal(size=(2, 2))
    fb, tb = _pair(base)
    fs, ts = _pair(src)
    _same(flow.as_strided_scatter(fb, fs, (2, 2), (3, 1), 1), torch.as_strided_scatter(tb, ts, (2, 2), (3, 1), 1))
    _same(fb.as_strided_scatter(fs, (2, 2), (1, 3)), tb.as_strided_scatter(ts, (2, 2), (1, 3)))
    assert flow.is_neg(fb) is False and flow.resolve_neg(fb) is fb
    start, end = flow.Event(enable_timing=True), flow.Event(enable_timing=True)
    stream = flow.Stream()
    stream.record_event(start)
    end.record()
    assert end.query() and stream.query() and end.elapsed_time(start) <= 0 <= start.elapsed_time(end)
    with pytest.raises(ValueError, match="enable_timing"):
        flow.Event().elapsed_time(end)
    assert issubclass(flow.AcceleratorError, RuntimeError)
    assert flow.has_lapack and flow.has_openmp and not flow.has_mkl


def test_inference_mode_enabled():
    assert flow.is_inference_mode_enabled() is False
    with flow.inference_mode():
        assert flow.is_inference_mode_enabled()
        with flow.inference_mode(False):
            assert not flow.is_inference_mode_enabled()
        assert flow.is_inference_mode_enabled()
    assert not flow.is_inference_mode_enabled()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_embedding_bag_aten_form(dtype):
    w = RNG.normal(size=(6, 3))
    cases = [
        ((1, 2, 4, 5, 4, 3), (0, 2, 2, 4), False, None),
        ((4, 4, 1), (0, 2), False, 4),
        ((1, 2, 4, 5, 4, 3), (0, 2, 2, 4, 6), True, None),
        ((1, 2, 4, 5, 4, 3), (0, 2, 2, 4), False, 4),
    ]
    for idx, off, last, pad in cases:
        for mode in (0, 1, 2):
            fw = flow.tensor(w, dtype=getattr(flow, dtype), requires_grad=True)
            tw = torch.tensor(w, dtype=getattr(torch, dtype), requires_grad=True)
            ours = flow.embedding_bag(fw, flow.tensor(idx), flow.tensor(off), False, mode, False, None, last, pad)
            ref = torch.embedding_bag(tw, torch.tensor(idx), torch.tensor(off), False, mode, False, None, last, pad)
            _same(list(ours), list(ref))
            ours[0].sum().backward()
            ref[0].sum().backward()
            _same(fw.grad, tw.grad)
    with pytest.raises(RuntimeError, match="mode"):
        flow.embedding_bag(flow.tensor(w), flow.tensor([0]), flow.tensor([0]), False, 3)


class _GeneratorProbe(flow.utils.data.Dataset):
    def __len__(self):
        return 2

    def __getitem__(self, i):
        return flow.thread_safe_generator() is None


def test_thread_safe_generator():
    assert flow.thread_safe_generator() is None  # main process
    loader = flow.utils.data.DataLoader(_GeneratorProbe(), batch_size=None, num_workers=1)
    assert [bool(v) for v in loader] == [True, True]  # process workers
