"""oneflow.special against torch.special (and mpmath where torch's own Cephes forms are less
accurate): values over wide ranges in float64 and float32, non-finite inputs, gradients and the
errors of bad input."""

import math

import mpmath
import numpy as np
import pytest
import torch

import oneflow as flow
from oneflow import special as S

TS = torch.special
RNG = np.random.default_rng(16)

WIDE = np.concatenate(
    [
        np.linspace(-60, 60, 1201),
        np.logspace(-8, 3, 120),
        -np.logspace(-8, 3, 120),
        [0.0, -0.0, 1.0, 2.0, 20.0, 25.0, 700.0, 710.0, 800.0],
    ]
)
EDGES = np.array([math.inf, -math.inf, math.nan, 0.0, -0.0, -1.0, 1.0])


def _both(name, values, dtype="float64"):
    ours = getattr(S, name)(flow.tensor(values, dtype=getattr(flow, dtype))).numpy()
    ref = getattr(TS, name)(torch.tensor(values, dtype=getattr(torch, dtype))).numpy()
    return ours, ref


def _assert_close(ours, ref, rtol, atol=0.0):
    assert ours.dtype == ref.dtype
    np.testing.assert_array_equal(np.isnan(ours), np.isnan(ref))
    np.testing.assert_array_equal(np.isposinf(ours), np.isposinf(ref))
    np.testing.assert_array_equal(np.isneginf(ours), np.isneginf(ref))
    finite = np.isfinite(ref)
    np.testing.assert_allclose(ours[finite], ref[finite], rtol=rtol, atol=atol)


def test_namespace_has_torch_special():
    assert [n for n in TS.__all__ if not hasattr(S, n)] == []
    assert flow.special is S


# Functions where torch's results are accurate to a few ulps over the whole range.
TIGHT = {
    "i0": 1e-13,
    "i0e": 1e-13,
    "i1": 1e-13,
    "i1e": 1e-13,
    "modified_bessel_i0": 1e-13,
    "modified_bessel_i1": 1e-13,
    "modified_bessel_k0": 1e-13,
    "modified_bessel_k1": 1e-13,
    "scaled_modified_bessel_k0": 1e-13,
    "scaled_modified_bessel_k1": 1e-13,
    "ndtr": 1e-13,
    "log_ndtr": 1e-13,
    "erfcx": 1e-13,
    "entr": 1e-13,
    "spherical_bessel_j0": 1e-13,
}


@pytest.mark.parametrize("name", sorted(TIGHT))
def test_unary_float64_matches_torch(name):
    for values in (WIDE, EDGES):
        ours, ref = _both(name, values)
        _assert_close(ours, ref, rtol=TIGHT[name], atol=1e-15)


@pytest.mark.parametrize("name", sorted(TIGHT) + ["bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "airy_ai"])
def test_unary_float32(name):
    values = np.concatenate([np.linspace(-30, 30, 301), EDGES])
    ours, ref = _both(name, values, "float32")
    _assert_close(ours, ref, rtol=1e-5, atol=1e-5)


# torch's J/Y (Cephes' rational fits) are off by up to ~1e-6 around x = 5 and its Airy by ~3e-6 around
# x = -2.1: these are checked against torch loosely and against mpmath tightly.
MPMATH = {
    "bessel_j0": lambda v: mpmath.besselj(0, v),
    "bessel_j1": lambda v: mpmath.besselj(1, v),
    "bessel_y0": lambda v: mpmath.bessely(0, v),
    "bessel_y1": lambda v: mpmath.bessely(1, v),
    "airy_ai": mpmath.airyai,
}


@pytest.mark.parametrize("name", sorted(MPMATH))
def test_bessel_and_airy_against_mpmath(name):
    ours, ref = _both(name, WIDE)
    _assert_close(ours, ref, rtol=1e-5, atol=5e-6)
    ours_edges, ref_edges = _both(name, EDGES)
    _assert_close(ours_edges, ref_edges, rtol=0, atol=1e-15)
    points = np.concatenate([RNG.uniform(0.01, 60, 60), [0.5, 1.0, 5.01, 24.9, 25.1, 300.0]])
    if name in ("bessel_j0", "bessel_j1", "airy_ai"):
        points = np.concatenate([points, -points[:30]])
    if name == "airy_ai":
        points = points[np.abs(points) < 50]
    got = getattr(S, name)(flow.tensor(points, dtype=flow.float64)).numpy()
    exact = np.array([float(MPMATH[name](v)) for v in points])
    np.testing.assert_allclose(got, exact, rtol=1e-12, atol=2e-14)


def test_ndtri():
    p = np.concatenate([np.linspace(0, 1, 1001), [1e-300, 1e-100, 1e-20, 1 - 1e-16, -0.1, 1.1, math.nan]])
    ours, ref = _both("ndtri", p)
    _assert_close(ours, ref, rtol=1e-14, atol=1e-15)
    # round trip far into the tail
    x = flow.tensor([-37.0, -20.0, -5.0, -1.0], dtype=flow.float64)
    np.testing.assert_allclose(S.ndtri(S.ndtr(x)).numpy(), x.numpy(), rtol=1e-12)


def test_zeta_and_polygamma():
    x = np.concatenate([RNG.uniform(1.01, 20, 200), [2, 3, 1, 0.5, 4, 4, 2.5, math.nan]])
    q = np.concatenate([RNG.uniform(-30, 30, 200), [1, 1, 1, 1, -2, -2.5, -2.5, 1]])
    ours = S.zeta(flow.tensor(x), flow.tensor(q)).numpy()
    _assert_close(ours, TS.zeta(torch.tensor(x), torch.tensor(q)).numpy(), rtol=1e-13, atol=1e-300)
    assert S.zeta(2.0, flow.tensor([1.0], dtype=flow.float64)).item() == pytest.approx(math.pi**2 / 6, rel=1e-15)
    assert S.zeta(flow.tensor([2, 3]), 1).dtype == flow.float32
    points = np.concatenate([RNG.uniform(0.01, 5, 20), -RNG.uniform(0.01, 5, 20)])
    for n in (0, 1, 2, 3):
        got = S.polygamma(n, flow.tensor(points)).numpy()
        exact = np.array([float(mpmath.polygamma(n, v)) for v in points])
        np.testing.assert_allclose(got, exact, rtol=1e-9 if n == 0 else 1e-14, atol=1e-12)


def test_incomplete_gamma():
    a = np.concatenate([RNG.uniform(0.01, 60, 300), [0, 0, 1, math.inf, 2, -1, 3]])
    x = np.concatenate([RNG.uniform(0, 100, 300), [0, 1, 0, 3, math.inf, 1, -1]])
    for name in ("gammainc", "gammaincc"):
        ours = getattr(S, name)(flow.tensor(a), flow.tensor(x)).numpy()
        # torch's own asymptotic regime (a ~ x, a > 20) is good to ~4e-10
        _assert_close(ours, getattr(TS, name)(torch.tensor(a), torch.tensor(x)).numpy(), rtol=0, atol=1e-9)
    points = list(zip(RNG.uniform(0.1, 60, 40), RNG.uniform(0, 90, 40)))
    got = S.gammainc(flow.tensor([p[0] for p in points]), flow.tensor([p[1] for p in points])).numpy()
    exact = np.array([float(mpmath.gammainc(p[0], 0, p[1], regularized=True)) for p in points])
    np.testing.assert_allclose(got, exact, rtol=1e-12, atol=1e-15)


POLYNOMIALS = [n for n in TS.__all__ if "polynomial" in n]


@pytest.mark.parametrize("name", POLYNOMIALS)
def test_polynomials(name):
    x = np.concatenate([RNG.uniform(-1.5, 1.5, 200), [-1, 1, 0, 0.5, -0.5, 2, 1.0, 0.0]])
    n = np.concatenate([RNG.integers(-2, 25, 200), [5, 7, 9, 10, 11, 3, 12, 13]]).astype(np.float64)
    ours = getattr(S, name)(flow.tensor(x), flow.tensor(n)).numpy()
    ref = getattr(TS, name)(torch.tensor(x), torch.tensor(n)).numpy()
    np.testing.assert_allclose(ours, ref, rtol=1e-12, atol=1e-12)
    for args in ((flow.tensor(x, dtype=flow.float32), 3), (2.0, flow.tensor([3, 2])), (flow.tensor([2, 3]), 3)):
        targs = [torch.tensor(a.numpy()) if isinstance(a, flow.Tensor) else a for a in args]
        got, want = getattr(S, name)(*args), getattr(TS, name)(*targs)
        assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-4, atol=1e-5)
    assert not getattr(S, name)(flow.tensor([0.5], requires_grad=True), 3).requires_grad


GRADS = {
    "i0": (-8, 8),
    "i0e": (-8, 8),
    "i1": (-8, 8),
    "i1e": (-8, 8),
    "ndtr": (-6, 6),
    "ndtri": (0.01, 0.99),
    "log_ndtr": (-30, 6),
    "erfcx": (-5, 30),
    "entr": (0.01, 5),
    "sinc": (-3, 3),
    "logit": (0.05, 0.95),
    "gammaln": (0.1, 5),
    "digamma": (0.1, 5),
    "expit": (-5, 5),
    "erf": (-3, 3),
    "erfinv": (-0.9, 0.9),
    "exp2": (-3, 3),
}


@pytest.mark.parametrize("name", sorted(GRADS))
def test_gradients(name):
    v = RNG.uniform(*GRADS[name], 40)
    if name in ("i0", "i0e", "i1", "i1e"):
        v[0] = 0.0
    for dtype in ("float64", "float32"):
        fx = flow.tensor(v, dtype=getattr(flow, dtype), requires_grad=True)
        tx = torch.tensor(v, dtype=getattr(torch, dtype), requires_grad=True)
        fy, ty = getattr(S, name)(fx), getattr(TS, name)(tx)
        assert fy.dtype == fx.dtype
        (fy * fy).sum().backward()
        (ty * ty).sum().backward()
        tol, atol = (1e-9, 1e-15) if dtype == "float64" else (1e-4, 1e-6)
        np.testing.assert_allclose(fy.detach().numpy(), ty.detach().numpy(), rtol=tol, atol=atol)
        np.testing.assert_allclose(fx.grad.numpy(), tx.grad.numpy(), rtol=tol, atol=atol)


def test_binary_gradients():
    a = RNG.uniform(1.5, 5, (3, 4))
    q = RNG.uniform(0.5, 5, (4,))
    fq, tq = flow.tensor(q, requires_grad=True), torch.tensor(q, requires_grad=True)
    S.zeta(flow.tensor(a), fq).sum().backward()
    TS.zeta(torch.tensor(a), tq).sum().backward()
    np.testing.assert_allclose(fq.grad.numpy(), tq.grad.numpy(), rtol=1e-12)
    for name in ("gammainc", "gammaincc"):
        fx, tx = flow.tensor(q, requires_grad=True), torch.tensor(q, requires_grad=True)
        getattr(S, name)(flow.tensor(a), fx).sum().backward()
        getattr(TS, name)(torch.tensor(a), tx).sum().backward()
        np.testing.assert_allclose(fx.grad.numpy(), tx.grad.numpy(), rtol=1e-12)
        with pytest.raises(NotImplementedError, match="derivative for"):
            getattr(S, name)(flow.tensor(a, requires_grad=True), fx).sum().backward()
    with pytest.raises(NotImplementedError, match="derivative for 'zeta'"):
        S.zeta(flow.tensor(a, requires_grad=True), fq).sum().backward()
    x = np.array([0.0, 1.0, 2.0, 0.0])
    y = np.array([-1.0, 0.5, 3.0, 2.0])
    fx, fy = flow.tensor(x, requires_grad=True), flow.tensor(y, requires_grad=True)
    tx, ty = torch.tensor(x, requires_grad=True), torch.tensor(y, requires_grad=True)
    S.xlog1py(fx, fy).sum().backward()
    TS.xlog1py(tx, ty).sum().backward()
    np.testing.assert_allclose(S.xlog1py(fx, fy).detach().numpy(), TS.xlog1py(tx, ty).detach().numpy())
    np.testing.assert_allclose(fx.grad.numpy(), tx.grad.numpy())
    np.testing.assert_allclose(fy.grad.numpy(), ty.grad.numpy())
    assert S.xlog1py(flow.tensor([1, 2]), 2).dtype == flow.float32


def test_aliases_and_others():
    x = flow.tensor([[0.2, 1.5, -2.0], [3.0, -0.5, 0.1]], dtype=flow.float64)
    t = torch.tensor(x.numpy())
    for name in ("erf", "erfc", "expm1", "log1p", "expit", "exp2", "sinc", "round", "gammaln", "psi", "digamma"):
        # digamma's op is good to ~1e-10 at negative arguments
        np.testing.assert_allclose(getattr(S, name)(x).numpy(), getattr(TS, name)(t).numpy(), rtol=1e-9)
    for name in ("softmax", "log_softmax"):
        np.testing.assert_allclose(getattr(S, name)(x, 1).numpy(), getattr(TS, name)(t, 1).numpy(), rtol=1e-12)
        assert getattr(S, name)(x.float(), 0, dtype=flow.float64).dtype == flow.float64
    np.testing.assert_allclose(S.logsumexp(x, 1).numpy(), TS.logsumexp(t, 1).numpy(), rtol=1e-12)
    np.testing.assert_allclose(S.round(x, decimals=1).numpy(), TS.round(t, decimals=1).numpy())
    np.testing.assert_allclose(S.xlogy(x.abs(), x.abs()).numpy(), TS.xlogy(t.abs(), t.abs()).numpy(), rtol=1e-12)
    np.testing.assert_allclose(S.logit(x.abs() / 4, eps=0.1).numpy(), TS.logit(t.abs() / 4, eps=0.1).numpy())
    np.testing.assert_allclose(S.erfinv(x / 4).numpy(), TS.erfinv(t / 4).numpy(), rtol=1e-12)
    y = x.abs() + 1.5
    np.testing.assert_allclose(
        S.multigammaln(y, 3).numpy(), TS.multigammaln(torch.tensor(y.numpy()), 3).numpy(), rtol=1e-12
    )
    assert S.i0(flow.tensor([1, 2])).dtype == flow.float32
    assert S.exp2(flow.tensor([1, 2])).dtype == flow.float32


def test_bad_input():
    with pytest.raises(TypeError, match=r"special.i0\(\): argument 'input' must be Tensor, not list"):
        S.i0([1.0])
    with pytest.raises(TypeError, match="special.bessel_j0"):
        S.bessel_j0(1.0)
    with pytest.raises(TypeError, match="at least one Tensor"):
        S.zeta(1.0, 2.0)
    with pytest.raises(RuntimeError, match="p has to be greater than or equal to 1"):
        S.multigammaln(flow.tensor([3.0]), 0)
    with pytest.raises(RuntimeError, match="does not support negative n"):
        S.polygamma(-1, flow.tensor([1.0]))
    with pytest.raises(TypeError, match="argument 'n' must be int"):
        S.polygamma(1.5, flow.tensor([1.0]))
    with pytest.raises(TypeError, match="must be Tensor or Number"):
        S.xlog1py(flow.tensor([1.0]), "a")


@pytest.mark.parametrize("name", ["i0", "i0e", "i1", "i1e", "ndtr", "ndtri", "log_ndtr", "erfcx", "entr"])
def test_second_derivatives(name):
    v = {"ndtri": np.array([0.1, 0.4, 0.9]), "entr": np.array([0.3, 1.5, 4.0])}.get(
        name, np.array([0.3, 1.5, -2.0, 7.0])
    )
    fx, tx = flow.tensor(v, requires_grad=True), torch.tensor(v, requires_grad=True)
    (g,) = flow.autograd.grad(getattr(S, name)(fx).sum(), fx, create_graph=True)
    (g2,) = flow.autograd.grad(g.sum(), fx)
    (h,) = torch.autograd.grad(getattr(TS, name)(tx).sum(), tx, create_graph=True)
    (h2,) = torch.autograd.grad(h.sum(), tx)
    np.testing.assert_allclose(g2.numpy(), h2.numpy(), rtol=1e-10, atol=1e-12)
