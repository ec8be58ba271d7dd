"""oneflow.distributions against torch.distributions on the same parameters and values:
log_prob, entropy, mean, mode, variance, stddev, cdf and icdf, and their gradients with respect
to the parameters; shapes, expand, repr and argument validation."""

import numpy as np
import pytest
import torch

import oneflow as flow

RNG = np.random.default_rng(0)


def params(m, arrays):
    """float64 leaves requiring grad in module m, from numpy arrays."""
    return [m.tensor(a, dtype=m.float64, requires_grad=True) for a in arrays]


def check(make, arrays, fn, atol=1e-9, grad_atol=1e-8, grad=True):
    """fn(dist, m) -> tensor on both libraries; values and parameter gradients must match."""
    results = []
    for m in (flow, torch):
        ps = params(m, arrays)
        out = fn(make(m, *ps), m)
        g = None
        if grad and out.requires_grad:
            w = m.tensor(np.linspace(0.5, 1.5, out.numel()).reshape(tuple(out.shape)), dtype=out.dtype)
            g = m.autograd.grad((out * w).sum(), ps, allow_unused=True)
        results.append((out, g))
    (fo, fg), (to, tg) = results
    assert tuple(fo.shape) == tuple(to.shape), (fo.shape, to.shape)
    np.testing.assert_allclose(fo.detach().numpy(), to.detach().numpy(), atol=atol, rtol=0)
    if grad:
        assert (fg is None) == (tg is None)
        if tg is not None:
            for a, b in zip(fg, tg):
                if b is None:
                    assert a is None or np.allclose(a.numpy(), 0)
                    continue
                np.testing.assert_allclose(a.numpy(), b.numpy(), atol=grad_atol, rtol=1e-7)


def pos(*shape, low=0.5, high=3.0):
    return RNG.uniform(low, high, size=shape)


def simplex(*shape):
    p = RNG.uniform(0.1, 1.0, size=shape)
    return p / p.sum(-1, keepdims=True)


# name -> (make(m, *params), parameter arrays, value arrays for log_prob)
CASES = {
    "normal": (
        lambda m, a, b: m.distributions.Normal(a, b),
        [RNG.normal(size=(2, 3)), pos(2, 3)],
        RNG.normal(size=(4, 2, 3)),
    ),
    "normal_bcast": (
        lambda m, a, b: m.distributions.Normal(a, b),
        [RNG.normal(size=(3,)), pos(2, 1)],
        RNG.normal(size=(2, 3)),
    ),
    "uniform": (lambda m, a, b: m.distributions.Uniform(a, a + b), [RNG.normal(size=(3,)), pos(3)], None),
    "bernoulli_probs": (
        lambda m, p: m.distributions.Bernoulli(probs=p),
        [RNG.uniform(0.1, 0.9, (2, 3))],
        RNG.integers(0, 2, (5, 2, 3)).astype(np.float64),
    ),
    "bernoulli_logits": (
        lambda m, lg: m.distributions.Bernoulli(logits=lg),
        [RNG.normal(size=(4,)) * 3],
        RNG.integers(0, 2, (4,)).astype(np.float64),
    ),
    "categorical_probs": (
        lambda m, p: m.distributions.Categorical(probs=p),
        [simplex(2, 5)],
        RNG.integers(0, 5, (3, 2)),
    ),
    "categorical_logits": (
        lambda m, lg: m.distributions.Categorical(logits=lg),
        [RNG.normal(size=(3, 4))],
        RNG.integers(0, 4, (3,)),
    ),
    "onehot": (
        lambda m, p: m.distributions.OneHotCategorical(probs=p),
        [simplex(2, 4)],
        np.eye(4)[RNG.integers(0, 4, (3, 2))],
    ),
    "gamma": (lambda m, c, r: m.distributions.Gamma(c, r), [pos(2, 3), pos(2, 3)], pos(4, 2, 3, low=0.1)),
    "exponential": (lambda m, r: m.distributions.Exponential(r), [pos(3)], pos(2, 3, low=0.0)),
    "beta": (lambda m, a, b: m.distributions.Beta(a, b), [pos(2, 3), pos(2, 3)], RNG.uniform(0.05, 0.95, (4, 2, 3))),
    "dirichlet": (lambda m, c: m.distributions.Dirichlet(c), [pos(2, 4)], simplex(3, 2, 4)),
}


def _spd(n, batch=()):
    a = RNG.normal(size=batch + (n, n))
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


def _tril(n, batch=()):
    a = np.tril(RNG.normal(size=batch + (n, n)))
    idx = np.arange(n)
    a[..., idx, idx] = np.abs(a[..., idx, idx]) + 0.5
    return a


CASES.update(
    {
        "mvn_cov": (
            lambda m, loc, c: m.distributions.MultivariateNormal(loc, covariance_matrix=c),
            [RNG.normal(size=(2, 3)), _spd(3)],
            RNG.normal(size=(4, 2, 3)),
        ),
        "mvn_prec": (
            lambda m, loc, p: m.distributions.MultivariateNormal(loc, precision_matrix=p),
            [RNG.normal(size=(3,)), _spd(3, (2,))],
            RNG.normal(size=(2, 3)),
        ),
        "mvn_tril": (
            lambda m, loc, s: m.distributions.MultivariateNormal(loc, scale_tril=s),
            [RNG.normal(size=(3,)), _tril(3)],
            RNG.normal(size=(5, 3)),
        ),
    }
)


def _value(m, name, dist, array):
    if array is None:  # uniform: values inside and outside the support
        lo = dist.low.detach().numpy()
        hi = dist.high.detach().numpy()
        array = lo + (hi - lo) * np.array([[0.1], [0.5], [0.9]])
    dtype = m.int64 if name.startswith("categorical") else m.float64
    return m.tensor(array, dtype=dtype)


@pytest.mark.parametrize("name", sorted(CASES))
def test_log_prob_and_moments(name):
    make, arrays, value = CASES[name]
    check(make, arrays, lambda d, m: d.log_prob(_value(m, name, d, value)))
    for attr in ("mean", "variance", "stddev"):
        if name.startswith("categorical"):
            check(make, arrays, lambda d, m: getattr(d, attr), grad=False)
        else:
            check(make, arrays, lambda d, m: getattr(d, attr))
    if not name.startswith("uniform"):
        check(make, arrays, lambda d, m: d.entropy(), atol=1e-8)
        check(make, arrays, lambda d, m: d.perplexity(), atol=1e-7)
    if name not in ("dirichlet",):
        check(make, arrays, lambda d, m: d.mode.to(m.float64), grad=False)


@pytest.mark.parametrize("name", ["uniform", "normal", "normal_bcast", "exponential", "gamma"])
def test_cdf_icdf(name):
    make, arrays, value = CASES[name]
    # torch has no derivative of the incomplete gamma function in its shape (see test_gamma_cdf_gradient)
    check(make, arrays, lambda d, m: d.cdf(_value(m, name, d, value)), atol=1e-8, grad=name != "gamma")
    if name != "gamma":
        q = RNG.uniform(0.05, 0.95, (2, 3)) if name != "uniform" else RNG.uniform(0.05, 0.95, (3,))
        check(make, arrays, lambda d, m: d.icdf(m.tensor(q)))


def test_uniform_entropy_and_outside_support():
    make, arrays, _ = CASES["uniform"]
    check(make, arrays, lambda d, m: d.entropy())
    for m in (flow, torch):
        d = m.distributions.Uniform(m.tensor([0.0]), m.tensor([2.0]), validate_args=False)
        lp = d.log_prob(m.tensor([-1.0, 0.5, 3.0]))
        assert np.isneginf(lp.numpy()[0]) and np.isneginf(lp.numpy()[2])


@pytest.mark.parametrize("name", sorted(CASES))
def test_shapes_expand_and_repr(name):
    make, arrays, _ = CASES[name]
    fd, td = make(flow, *params(flow, arrays)), make(torch, *params(torch, arrays))
    assert tuple(fd.batch_shape) == tuple(td.batch_shape)
    assert tuple(fd.event_shape) == tuple(td.event_shape)
    assert fd.has_rsample == td.has_rsample
    assert fd.has_enumerate_support == td.has_enumerate_support
    for sample_shape in [(), (5,), (2, 3)]:
        s, ts = fd.sample(sample_shape), td.sample(sample_shape)
        assert tuple(s.shape) == tuple(ts.shape), (sample_shape, s.shape, ts.shape)
        assert s.dtype == {torch.float64: flow.float64, torch.int64: flow.int64}[ts.dtype]
        assert not s.requires_grad
        assert bool(fd.support.check(s).all())
    batch = (4,) + tuple(td.batch_shape)
    fe, te = fd.expand(batch), td.expand(batch)
    assert type(fe) is type(fd) and tuple(fe.batch_shape) == tuple(te.batch_shape) == batch
    assert tuple(fe.sample((2,)).shape) == tuple(te.sample((2,)).shape)
    v = fe.sample()
    np.testing.assert_allclose(
        fe.log_prob(v).detach().numpy(), te.log_prob(torch.tensor(v.numpy())).detach().numpy(), atol=1e-9
    )
    assert repr(fd).replace("oneflow", "torch") == repr(td)


def test_enumerate_support():
    for name in ("bernoulli_probs", "categorical_probs", "onehot"):
        make, arrays, _ = CASES[name]
        fd, td = make(flow, *params(flow, arrays)), make(torch, *params(torch, arrays))
        for expand in (True, False):
            a, b = fd.enumerate_support(expand), td.enumerate_support(expand)
            assert tuple(a.shape) == tuple(b.shape)
            np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_probs_logits_conversions():
    p = simplex(2, 3)
    fc = flow.distributions.Categorical(probs=flow.tensor(p * 3))  # unnormalized probs are normalized
    tc = torch.distributions.Categorical(probs=torch.tensor(p * 3))
    np.testing.assert_allclose(fc.probs.numpy(), tc.probs.numpy(), atol=1e-12)
    np.testing.assert_allclose(fc.logits.numpy(), tc.logits.numpy(), atol=1e-12)
    lg = RNG.normal(size=(3,))
    fb, tb = (
        flow.distributions.Bernoulli(logits=flow.tensor(lg)),
        torch.distributions.Bernoulli(logits=torch.tensor(lg)),
    )
    np.testing.assert_allclose(fb.probs.numpy(), tb.probs.numpy(), atol=1e-12)
    assert tuple(fb.param_shape) == tuple(tb.param_shape)
    fm = flow.distributions.MultivariateNormal(flow.zeros(3, dtype=flow.float64), scale_tril=flow.tensor(_tril(3)))
    cov = _spd(3)
    fcov = flow.distributions.MultivariateNormal(flow.zeros(3, dtype=flow.float64), covariance_matrix=flow.tensor(cov))
    tcov = torch.distributions.MultivariateNormal(
        torch.zeros(3, dtype=torch.float64), covariance_matrix=torch.tensor(cov)
    )
    for attr in ("scale_tril", "precision_matrix", "covariance_matrix"):
        np.testing.assert_allclose(getattr(fcov, attr).numpy(), getattr(tcov, attr).numpy(), atol=1e-10)
    assert tuple(fm.covariance_matrix.shape) == (3, 3)


def _raises_both(make, match):
    for m in (flow, torch):
        with pytest.raises(ValueError, match=match):
            make(m)


def test_validate_args_bad_parameters():
    bad = "to satisfy the constraint"
    _raises_both(lambda m: m.distributions.Normal(m.tensor([0.0]), m.tensor([-1.0])), bad)
    _raises_both(lambda m: m.distributions.Normal(m.tensor([float("nan")]), m.tensor([1.0])), bad)
    _raises_both(lambda m: m.distributions.Bernoulli(probs=m.tensor([1.5])), bad)
    _raises_both(lambda m: m.distributions.Gamma(m.tensor([0.0]), m.tensor([1.0])), bad)
    _raises_both(lambda m: m.distributions.Beta(m.tensor([1.0]), m.tensor([-2.0])), bad)
    _raises_both(lambda m: m.distributions.Dirichlet(m.tensor([1.0, -1.0])), bad)
    _raises_both(lambda m: m.distributions.Categorical(probs=m.tensor([0.5, -0.5, 1.0])), bad)
    _raises_both(lambda m: m.distributions.Exponential(m.tensor([-1.0])), bad)
    _raises_both(lambda m: m.distributions.MultivariateNormal(m.zeros(2), m.tensor([[1.0, 2.0], [2.0, 1.0]])), bad)
    _raises_both(lambda m: m.distributions.MultivariateNormal(m.zeros(2), scale_tril=-m.eye(2)), bad)
    _raises_both(lambda m: m.distributions.Uniform(m.tensor([1.0]), m.tensor([0.0])), "LessThan")
    _raises_both(lambda m: m.distributions.Bernoulli(), "Either `probs` or `logits`")
    _raises_both(lambda m: m.distributions.Categorical(probs=m.ones(2), logits=m.ones(2)), "Either `probs` or")
    _raises_both(lambda m: m.distributions.MultivariateNormal(m.zeros(2)), "Exactly one of covariance_matrix")
    _raises_both(lambda m: m.distributions.MultivariateNormal(m.tensor(0.0), m.eye(2)), "at least one-dimensional")
    _raises_both(lambda m: m.distributions.Dirichlet(m.tensor(1.0)), "at least one-dimensional")
    # the message names the parameter, the distribution and the constraint, as torch's
    with pytest.raises(ValueError) as info:
        flow.distributions.Normal(flow.tensor([0.0]), flow.tensor([-1.0]))
    assert "Expected parameter scale (Tensor of shape (1,)) of distribution Normal(loc: tensor([0.]," in str(info.value)
    assert "GreaterThan(lower_bound=0.0)" in str(info.value)
    # validate_args=False skips the checks
    flow.distributions.Normal(flow.tensor([0.0]), flow.tensor([-1.0]), validate_args=False)


def test_validate_args_bad_values():
    support = "to be within the support"
    _raises_both(lambda m: m.distributions.Gamma(m.tensor([1.0]), m.tensor([1.0])).log_prob(m.tensor([-1.0])), support)
    _raises_both(lambda m: m.distributions.Bernoulli(m.tensor([0.3])).log_prob(m.tensor([0.5])), support)
    _raises_both(lambda m: m.distributions.Beta(m.tensor([2.0]), m.tensor([2.0])).log_prob(m.tensor([1.5])), support)
    _raises_both(lambda m: m.distributions.Categorical(m.ones(3)).log_prob(m.tensor([3])), support)
    _raises_both(lambda m: m.distributions.Dirichlet(m.ones(3)).log_prob(m.tensor([0.5, 0.6, 0.1])), support)
    _raises_both(lambda m: m.distributions.Uniform(m.tensor(0.0), m.tensor(1.0)).log_prob(m.tensor(2.0)), support)
    _raises_both(lambda m: m.distributions.Normal(0.0, 1.0).log_prob(3.0), "must be a Tensor")
    _raises_both(lambda m: m.distributions.Normal(m.zeros(3), m.ones(3)).log_prob(m.zeros(2)), "not broadcastable")
    _raises_both(
        lambda m: m.distributions.MultivariateNormal(m.zeros(3), m.eye(3)).log_prob(m.zeros(2)),
        "right-most size of value must match event_shape",
    )


def test_set_default_validate_args():
    D = flow.distributions.Distribution
    try:
        D.set_default_validate_args(False)
        d = flow.distributions.Normal(flow.tensor([0.0]), flow.tensor([-1.0]))  # no check
        assert not d._validate_args
        d = flow.distributions.Normal(flow.tensor([0.0]), flow.tensor([1.0]), validate_args=True)
        with pytest.raises(ValueError, match="support"):
            flow.distributions.Gamma(1.0, 1.0, validate_args=True).log_prob(flow.tensor(-1.0))
    finally:
        D.set_default_validate_args(True)
    with pytest.raises(ValueError):
        flow.distributions.Normal(flow.tensor([0.0]), flow.tensor([-1.0]))
    with pytest.raises(ValueError):
        D.set_default_validate_args("yes")


def test_scalar_parameters():
    for m in (flow, torch):
        d = m.distributions.Normal(0.0, 2.0)
        assert tuple(d.batch_shape) == () and d.loc.dtype == m.float32
        assert tuple(d.sample((3,)).shape) == (3,)
        b = m.distributions.Beta(2.0, 3.0)
        assert tuple(b.batch_shape) == () and tuple(b.sample().shape) == ()
    np.testing.assert_allclose(
        flow.distributions.Gamma(2.0, 3.0).log_prob(flow.tensor(0.5)).numpy(),
        torch.distributions.Gamma(2.0, 3.0).log_prob(torch.tensor(0.5)).numpy(),
        atol=1e-6,
    )


def test_not_implemented():
    class NoSupport(flow.distributions.Distribution):
        arg_constraints = {}

    d = NoSupport()
    for method in (d.rsample, d.entropy):
        with pytest.raises(NotImplementedError):
            method()
    with pytest.raises(NotImplementedError):
        d.sample()
    with pytest.raises(NotImplementedError, match="does not implement mean"):
        _ = d.mean


def test_gamma_cdf_gradient():
    from oneflow.distributions import _special

    a = flow.tensor(pos(5, low=0.3, high=8.0), dtype=flow.float64, requires_grad=True)
    x = flow.tensor(pos(5, low=0.05, high=10.0), dtype=flow.float64, requires_grad=True)
    assert flow.autograd.gradcheck(_special.gammainc, (a, x), eps=1e-6, atol=1e-6)
    # the rate and value derivatives against torch's (which has those)
    c, rate, value = pos(3), pos(3), pos(3)
    for m in (flow, torch):
        r = m.tensor(rate, dtype=m.float64, requires_grad=True)
        v = m.tensor(value, dtype=m.float64, requires_grad=True)
        out = m.distributions.Gamma(m.tensor(c), r).cdf(v)
        out.sum().backward()
        if m is flow:
            got = (out.detach().numpy(), r.grad.numpy(), v.grad.numpy())
        else:
            want = (out.detach().numpy(), r.grad.numpy(), v.grad.numpy())
    for a_, b_ in zip(got, want):
        np.testing.assert_allclose(a_, b_, atol=1e-9)
