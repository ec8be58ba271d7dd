"""The less common distributions (LogNormal, HalfNormal, Laplace, Cauchy, Poisson, Binomial,
Geometric, Chi2, Independent), transforms and TransformedDistribution, against torch: values and
parameter gradients, sample moments, and their KL divergences."""

import numpy as np
import pytest
import torch

import oneflow as flow

RNG = np.random.default_rng(2)
N = 200_000


def pos(*shape, low=0.5, high=3.0):
    return RNG.uniform(low, high, size=shape)


def run_both(make, arrays, fn, atol=1e-9, dtype="float64"):
    out = []
    for m in (flow, torch):
        ps = [m.tensor(a, dtype=getattr(m, dtype), requires_grad=True) for a in arrays]
        value = fn(make(m, *ps), m)
        grads = None
        if value.requires_grad:
            w = m.tensor(np.linspace(0.5, 1.5, value.numel()).reshape(tuple(value.shape)), dtype=value.dtype)
            grads = m.autograd.grad((value * w).sum(), ps, allow_unused=True)
        out.append((value, grads))
    (fv, fg), (tv, tg) = out
    assert tuple(fv.shape) == tuple(tv.shape)
    np.testing.assert_allclose(fv.detach().numpy(), tv.detach().numpy(), atol=atol, rtol=1e-9)
    assert (fg is None) == (tg is None)
    if tg is not None:
        for a, b in zip(fg, tg):
            if b is not None:
                np.testing.assert_allclose(a.numpy(), b.numpy(), atol=max(atol, 1e-8), rtol=1e-7)


CASES = {
    "lognormal": (lambda m, a, b: m.distributions.LogNormal(a, b), [RNG.normal(size=(2, 3)), pos(2, 3)], pos(4, 2, 3)),
    "halfnormal": (lambda m, s: m.distributions.HalfNormal(s), [pos(3)], pos(2, 3, low=0.0)),
    "laplace": (
        lambda m, a, b: m.distributions.Laplace(a, b),
        [RNG.normal(size=(3,)), pos(3)],
        RNG.normal(size=(2, 3)),
    ),
    "cauchy": (lambda m, a, b: m.distributions.Cauchy(a, b), [RNG.normal(size=(3,)), pos(3)], RNG.normal(size=(2, 3))),
    "poisson": (lambda m, r: m.distributions.Poisson(r), [pos(4, high=20.0)], RNG.integers(0, 15, (3, 4)) * 1.0),
    "binomial": (
        lambda m, p: m.distributions.Binomial(10, probs=p),
        [RNG.uniform(0.1, 0.9, (3,))],
        RNG.integers(0, 11, (2, 3)) * 1.0,
    ),
    "binomial_logits": (
        lambda m, lg: m.distributions.Binomial(m.tensor([3.0, 7.0], dtype=m.float64), logits=lg),
        [RNG.normal(size=(2,))],
        np.array([[0.0, 7.0], [3.0, 2.0]]),
    ),
    "geometric": (
        lambda m, p: m.distributions.Geometric(p),
        [RNG.uniform(0.1, 0.9, (3,))],
        RNG.integers(0, 9, (2, 3)) * 1.0,
    ),
    "chi2": (lambda m, df: m.distributions.Chi2(df), [pos(3, high=8.0)], pos(2, 3, low=0.1)),
    "independent": (
        lambda m, a, b: m.distributions.Independent(m.distributions.Normal(a, b), 1),
        [RNG.normal(size=(2, 3)), pos(2, 3)],
        RNG.normal(size=(4, 2, 3)),
    ),
}
CASES.update(
    {
        "fisher": (
            lambda m, a, b: m.distributions.FisherSnedecor(a, b),
            [pos(3), pos(3, low=5.0, high=9.0)],
            pos(2, 3),
        ),
        "kumaraswamy": (
            lambda m, a, b: m.distributions.Kumaraswamy(a, b),
            [pos(3, low=1.2), pos(3, low=1.2)],
            RNG.uniform(0.05, 0.95, (2, 3)),
        ),
    }
)
NO_ENTROPY = {"fisher", "poisson", "binomial_logits"}  # torch has none for these


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_and_gradients(name):
    make, arrays, value = CASES[name]
    run_both(make, arrays, lambda d, m: d.log_prob(m.tensor(value, dtype=m.float64)))
    for attr in ("mean", "variance", "mode"):
        run_both(make, arrays, lambda d, m: getattr(d, attr) * 1.0)
    if name not in NO_ENTROPY:
        run_both(make, arrays, lambda d, m: d.entropy())
    if name in ("lognormal", "halfnormal", "laplace", "cauchy", "halfcauchy"):
        run_both(make, arrays, lambda d, m: d.cdf(m.tensor(value, dtype=m.float64)))
        q = RNG.uniform(0.05, 0.95, (3,))
        run_both(make, arrays, lambda d, m: d.icdf(m.tensor(q)))
    fd = make(flow, *[flow.tensor(a) for a in arrays])
    td = make(torch, *[torch.tensor(a) for a in arrays])
    assert tuple(fd.batch_shape) == tuple(td.batch_shape) and tuple(fd.event_shape) == tuple(td.event_shape)
    assert fd.has_rsample == td.has_rsample
    for shape in [(), (4,), (2, 3)]:
        s = fd.sample(shape)
        assert tuple(s.shape) == tuple(td.sample(shape).shape)
        assert bool(fd.support.check(s).all())
    fe = fd.expand((5,) + tuple(fd.batch_shape))
    assert tuple(fe.batch_shape) == tuple(td.expand((5,) + tuple(td.batch_shape)).batch_shape)


MOMENT_CASES = [
    ("lognormal", lambda: flow.distributions.LogNormal(flow.tensor([0.0, 0.5]), flow.tensor([0.3, 0.5]))),
    ("halfnormal", lambda: flow.distributions.HalfNormal(flow.tensor([1.0, 3.0]))),
    ("laplace", lambda: flow.distributions.Laplace(flow.tensor([1.0, -2.0]), flow.tensor([0.5, 2.0]))),
    ("poisson", lambda: flow.distributions.Poisson(flow.tensor([0.2, 3.0, 9.9, 10.0, 45.0, 300.0]))),
    ("binomial", lambda: flow.distributions.Binomial(flow.tensor([5.0, 20.0]), probs=flow.tensor([0.3, 0.8]))),
    ("geometric", lambda: flow.distributions.Geometric(flow.tensor([0.2, 0.7]))),
    ("chi2", lambda: flow.distributions.Chi2(flow.tensor([1.0, 6.0]))),
    ("gumbel", lambda: flow.distributions.Gumbel(flow.tensor([1.0, -1.0]), flow.tensor([0.5, 2.0]))),
    ("weibull", lambda: flow.distributions.Weibull(flow.tensor([1.0, 2.0]), flow.tensor([1.5, 3.0]))),
    ("pareto", lambda: flow.distributions.Pareto(flow.tensor([1.0, 2.0]), flow.tensor([9.0, 10.0]))),
    ("inversegamma", lambda: flow.distributions.InverseGamma(flow.tensor([6.0, 9.0]), flow.tensor([1.0, 2.0]))),
    ("student_t", lambda: flow.distributions.StudentT(flow.tensor([7.0, 12.0]), flow.tensor([1.0, 0.0]))),
]


@pytest.mark.parametrize("name,make", MOMENT_CASES, ids=[c[0] for c in MOMENT_CASES])
def test_sample_moments(name, make):
    flow.manual_seed(99)
    d = make()
    s = d.sample((N,)).to(flow.float64).numpy()
    mean, var = d.mean.to(flow.float64).numpy(), d.variance.to(flow.float64).numpy()
    np.testing.assert_array_less(np.abs(s.mean(0) - mean), 6 * np.sqrt(var / N))
    np.testing.assert_array_less(np.abs(s.var(0) - var), 6 * np.sqrt(20 * var**2 / N) + 1e-9)


def test_rsample_gradients_through_transforms():
    flow.manual_seed(4)
    loc = flow.tensor([0.2], dtype=flow.float64, requires_grad=True)
    scale = flow.tensor([0.4], dtype=flow.float64, requires_grad=True)
    x = flow.distributions.LogNormal(loc, scale).rsample((N,))
    gl, gs = flow.autograd.grad(x.mean(), (loc, scale))
    mean = float(np.exp(0.2 + 0.08))
    np.testing.assert_allclose([gl.item(), gs.item()], [mean, 0.4 * mean], rtol=0.02)
    b = flow.tensor([2.0], dtype=flow.float64, requires_grad=True)
    y = flow.distributions.Laplace(flow.tensor([0.0], dtype=flow.float64), b).rsample((N,))
    (g,) = flow.autograd.grad(y.abs().mean(), b)  # E|y| = b
    np.testing.assert_allclose(g.item(), 1.0, atol=0.02)


TRANSFORMS = [
    ("exp", lambda m: m.distributions.ExpTransform()),
    (
        "affine",
        lambda m: m.distributions.AffineTransform(
            m.tensor([1.0, -2.0, 0.5], dtype=m.float64), m.tensor([2.0, -0.5, 3.0], dtype=m.float64)
        ),
    ),
    ("affine_scalar", lambda m: m.distributions.AffineTransform(1.5, -2.0)),
    ("sigmoid", lambda m: m.distributions.SigmoidTransform()),
    ("tanh", lambda m: m.distributions.TanhTransform()),
    ("softplus", lambda m: m.distributions.SoftplusTransform()),
    (
        "compose",
        lambda m: m.distributions.ComposeTransform(
            [
                m.distributions.AffineTransform(0.5, 2.0),
                m.distributions.ExpTransform(),
                m.distributions.PowerTransform(m.tensor(0.5, dtype=m.float64)),
            ]
        ),
    ),
    ("inverse", lambda m: m.distributions.ExpTransform().inv),
]


@pytest.mark.parametrize("name,make_t", TRANSFORMS, ids=[t[0] for t in TRANSFORMS])
def test_transforms_and_transformed_distribution(name, make_t):
    x_np = RNG.normal(size=(2, 3)) * 0.8
    if name == "inverse":
        x_np = np.abs(x_np) + 0.1
    results = []
    for m in (flow, torch):
        t = make_t(m)
        x = m.tensor(x_np, dtype=m.float64, requires_grad=True)
        y = t(x)
        back = t.inv(y)
        ladj = t.log_abs_det_jacobian(x, y)
        (g,) = m.autograd.grad((y.sum() + ladj.sum()), x)
        results.append([y.detach().numpy(), back.detach().numpy(), ladj.detach().numpy(), g.numpy()])
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, atol=1e-9)
    np.testing.assert_allclose(results[0][1], x_np, atol=1e-9)
    if name == "inverse":
        return
    # TransformedDistribution of a Normal through the transform
    loc_np, scale_np = RNG.normal(size=(3,)), pos(3)
    flow_vals = []
    for m in (flow, torch):
        base = m.distributions.Normal(m.tensor(loc_np), m.tensor(scale_np))
        d = m.distributions.TransformedDistribution(base, [make_t(m)])
        y = make_t(m)(m.tensor(x_np))
        flow_vals.append(d.log_prob(y).numpy())
        assert tuple(d.sample((4,)).shape) == (4, 3)
    np.testing.assert_allclose(flow_vals[0], flow_vals[1], atol=1e-8)


def test_transform_properties():
    T = flow.distributions
    assert T.ExpTransform() == T.ExpTransform() and T.ExpTransform().inv.inv == T.ExpTransform()
    assert T.ExpTransform().sign == 1 and T.ExpTransform().inv.sign == 1
    assert T.AffineTransform(0.0, -2.0).sign == -1
    assert T.identity_transform(flow.tensor([1.0])).item() == 1.0
    t = T.ExpTransform().with_cache(1)
    x = flow.tensor([0.5])
    y = t(x)
    assert t.inv(y) is x  # the cached pair
    with pytest.raises(ValueError, match="cache_size must be 0 or 1"):
        T.Transform(cache_size=2)
    r = T.ReshapeTransform((2, 3), (6,))
    assert tuple(r(flow.zeros(4, 2, 3)).shape) == (4, 6) and tuple(r.inv(flow.zeros(6)).shape) == (2, 3)
    with pytest.raises(ValueError, match="different numbers of elements"):
        T.ReshapeTransform((2, 3), (5,))


KL_CASES = {
    "laplace": (lambda m, a, b, c, d: (m.distributions.Laplace(a, b), m.distributions.Laplace(c, d)), 4),
    "cauchy": (lambda m, a, b, c, d: (m.distributions.Cauchy(a, b), m.distributions.Cauchy(c, d)), 4),
    "poisson": (lambda m, a, b: (m.distributions.Poisson(a), m.distributions.Poisson(b)), 2),
    "geometric": (lambda m, a, b: (m.distributions.Geometric(a / 4), m.distributions.Geometric(b / 4)), 2),
    "binomial": (lambda m, a, b: (m.distributions.Binomial(6, a / 4), m.distributions.Binomial(6, b / 4)), 2),
    "halfnormal": (lambda m, a, b: (m.distributions.HalfNormal(a), m.distributions.HalfNormal(b)), 2),
    "lognormal": (lambda m, a, b, c, d: (m.distributions.LogNormal(a, b), m.distributions.LogNormal(c, d)), 4),
    "independent": (
        lambda m, a, b, c, d: (
            m.distributions.Independent(m.distributions.Normal(a, b), 1),
            m.distributions.Independent(m.distributions.Normal(c, d), 1),
        ),
        4,
    ),
    "gumbel": (lambda m, a, b, c, d: (m.distributions.Gumbel(a, b), m.distributions.Gumbel(c, d)), 4),
    "pareto": (lambda m, a, b, c, d: (m.distributions.Pareto(a, b), m.distributions.Pareto(c, d)), 4),
    "normal_gamma": (lambda m, a, b, c, d: (m.distributions.Normal(a, b), m.distributions.Gamma(c, d)), 4),
    "gamma_uniform": (lambda m, a, b, c, d: (m.distributions.Gamma(a, b), m.distributions.Uniform(c, c + d)), 4),
}


@pytest.mark.parametrize("name", sorted(KL_CASES))
def test_kl(name):
    make, n = KL_CASES[name]
    arrays = [pos(2, 3) for _ in range(n)]
    run_both(lambda m, *ps: m.distributions.kl_divergence(*make(m, *ps)), arrays, lambda kl, m: kl)


def test_exponential_family_bregman_kl():
    # the generic (ExponentialFamily, ExponentialFamily) rule agrees with the closed forms
    from oneflow.distributions.kl import _kl_expfamily_expfamily

    D = flow.distributions
    p, q = (
        D.Poisson(flow.tensor([2.0, 5.0], dtype=flow.float64)),
        D.Poisson(flow.tensor([3.0, 1.0], dtype=flow.float64)),
    )
    np.testing.assert_allclose(_kl_expfamily_expfamily(p, q).numpy(), D.kl_divergence(p, q).numpy(), atol=1e-10)
    with pytest.raises(NotImplementedError, match="different exponential families"):
        _kl_expfamily_expfamily(p, D.Exponential(flow.tensor([1.0, 1.0], dtype=flow.float64)))


def test_bad_parameters():
    for m in (flow, torch):
        with pytest.raises(ValueError, match="constraint"):
            m.distributions.Poisson(m.tensor([-1.0]))
        with pytest.raises(ValueError, match="constraint"):
            m.distributions.Laplace(m.tensor([0.0]), m.tensor([0.0]))
        with pytest.raises(ValueError, match="constraint"):
            m.distributions.Binomial(m.tensor([2.5]), probs=m.tensor([0.5]))
        with pytest.raises(ValueError, match="support"):
            m.distributions.Poisson(m.tensor([1.0])).log_prob(m.tensor([1.5]))
        with pytest.raises(ValueError, match="support"):
            m.distributions.LogNormal(m.tensor([0.0]), m.tensor([1.0])).log_prob(m.tensor([-1.0]))
        with pytest.raises(ValueError, match="Expected reinterpreted_batch_ndims"):
            m.distributions.Independent(m.distributions.Normal(m.zeros(2), m.ones(2)), 2)


def test_binomial_inhomogeneous_entropy_raises_as_torch():
    for m in (flow, torch):
        d = m.distributions.Binomial(m.tensor([3.0, 7.0]), probs=m.tensor([0.5, 0.5]))
        with pytest.raises(NotImplementedError, match="Inhomogeneous total count"):
            d.entropy()


def test_multinomial_negative_binomial_straight_through():
    probs = RNG.uniform(0.1, 1.0, (2, 3))
    probs /= probs.sum(-1, keepdims=True)
    counts = np.array([[[1.0, 2.0, 2.0], [0.0, 0.0, 5.0]], [[5.0, 0.0, 0.0], [2.0, 2.0, 1.0]]])

    def multinomial(m, p):
        return m.distributions.Multinomial(5, probs=p)

    run_both(multinomial, [probs], lambda d, m: d.log_prob(m.tensor(counts)))
    # torch takes lgamma(total_count + 1) in float32
    run_both(multinomial, [probs], lambda d, m: d.entropy(), atol=1e-6)
    run_both(multinomial, [probs], lambda d, m: d.mean + d.variance)

    def negbin(m, n, p):
        return m.distributions.NegativeBinomial(n, probs=p)

    arrays = [pos(3), RNG.uniform(0.1, 0.8, (3,))]
    values = RNG.integers(0, 9, (2, 3)) * 1.0
    run_both(negbin, arrays, lambda d, m: d.log_prob(m.tensor(values)))
    run_both(negbin, arrays, lambda d, m: d.mean + d.variance + d.mode)
    flow.manual_seed(8)
    d = flow.distributions.Multinomial(7, probs=flow.tensor(probs))
    s = d.sample((N // 10,))
    assert tuple(s.shape) == (N // 10, 2, 3) and bool((s.sum(-1) == 7).all())
    np.testing.assert_allclose(s.numpy().mean(0), 7 * probs, atol=0.05)
    nb = flow.distributions.NegativeBinomial(flow.tensor([3.0, 8.0]), probs=flow.tensor([0.3, 0.6]))
    s = nb.sample((N,)).numpy()
    mean, var = nb.mean.numpy(), nb.variance.numpy()
    np.testing.assert_array_less(np.abs(s.mean(0) - mean), 6 * np.sqrt(var / N))
    # straight-through: one-hot values, gradients of probs
    logits = flow.tensor([0.2, -0.3, 1.0], requires_grad=True)
    st = flow.distributions.OneHotCategoricalStraightThrough(logits=logits)
    assert st.has_rsample and torch.distributions.OneHotCategoricalStraightThrough.has_rsample
    x = st.rsample((4,))
    assert bool(((x == 0) | (x == 1)).all()) and bool((x.sum(-1) == 1).all())
    (g,) = flow.autograd.grad((x * flow.tensor([1.0, 2.0, 3.0])).sum(), logits)
    p = flow.softmax(logits.detach(), 0)
    want = 4 * p * (flow.tensor([1.0, 2.0, 3.0]) - (p * flow.tensor([1.0, 2.0, 3.0])).sum())
    np.testing.assert_allclose(g.numpy(), want.numpy(), atol=1e-6)
    with pytest.raises(NotImplementedError, match="inhomogeneous total_count"):
        flow.distributions.Multinomial(flow.tensor(3), probs=flow.tensor(probs))


def test_logistic_normal():
    loc, scale = RNG.normal(size=(2, 3)), pos(2, 3)
    simplex = RNG.uniform(0.1, 1.0, (5, 2, 4))
    simplex /= simplex.sum(-1, keepdims=True)
    run_both(
        lambda m, a, b: m.distributions.LogisticNormal(a, b), [loc, scale], lambda d, m: d.log_prob(m.tensor(simplex))
    )
    d = flow.distributions.LogisticNormal(flow.tensor(loc), flow.tensor(scale))
    td = torch.distributions.LogisticNormal(torch.tensor(loc), torch.tensor(scale))
    assert tuple(d.event_shape) == tuple(td.event_shape) == (4,)
    s = d.rsample((3,))
    assert tuple(s.shape) == (3, 2, 4) and bool(flow.distributions.constraints.simplex.check(s).all())
    scalar = flow.distributions.LogisticNormal(0.0, 1.0)
    assert tuple(scalar.event_shape) == tuple(torch.distributions.LogisticNormal(0.0, 1.0).event_shape) == (2,)


def test_continuous_bernoulli():
    probs = np.array([0.2, 0.4995, 0.5005, 0.9])  # both sides of the Taylor region around 0.5
    values = RNG.uniform(0.01, 0.99, (3, 4))

    def make(m, p):
        return m.distributions.ContinuousBernoulli(probs=p)

    run_both(make, [probs], lambda d, m: d.log_prob(m.tensor(values)))
    run_both(make, [probs], lambda d, m: d.mean + d.variance)
    run_both(make, [probs], lambda d, m: d.entropy())
    run_both(make, [probs], lambda d, m: d.cdf(m.tensor(values)))
    run_both(make, [probs], lambda d, m: d.icdf(m.tensor(values)))
    q = np.array([0.7, 0.3, 0.5002, 0.1])
    run_both(
        lambda m, a, b: m.distributions.kl_divergence(make(m, a), m.distributions.ContinuousBernoulli(logits=b)),
        [probs, q],
        lambda kl, m: kl,
    )
    flow.manual_seed(6)
    d = make(flow, flow.tensor(probs))
    s = d.sample((N,)).numpy()
    np.testing.assert_allclose(s.mean(0), d.mean.numpy(), atol=0.01)
    assert d.rsample((2,)).shape == (2, 4) and bool(d.support.check(d.sample((5,))).all())


def test_generalized_pareto():
    loc, scale, conc = RNG.normal(size=(4,)), pos(4), np.array([-0.3, 0.0, 0.2, 0.4])
    values = loc + pos(3, 4, low=0.05, high=1.0)  # inside the support for every shape parameter here

    def make(m, a, b, c):
        return m.distributions.GeneralizedPareto(a, b, c)

    arrays = [loc, scale, conc]
    # float32: torch's GeneralizedPareto compares the shape with a float32 zero (float64 fails there)
    f32 = {"atol": 2e-5, "dtype": "float32"}
    run_both(make, arrays, lambda d, m: d.log_prob(m.tensor(values, dtype=m.float32)), **f32)
    run_both(make, arrays, lambda d, m: d.cdf(m.tensor(values, dtype=m.float32)), **f32)
    run_both(make, arrays, lambda d, m: d.icdf(m.tensor([0.3, 0.5, 0.7, 0.9], dtype=m.float32)), **f32)
    run_both(make, arrays, lambda d, m: d.entropy(), **f32)
    run_both(make, [loc, scale, np.array([-0.3, 0.0, 0.2, 0.1])], lambda d, m: d.mean + d.variance, **f32)
    flow.manual_seed(12)
    d = make(flow, flow.tensor(loc), flow.tensor(scale), flow.tensor([-0.3, 0.0, 0.1, 0.2]))
    s = d.sample((N,)).numpy()
    np.testing.assert_array_less(np.abs(s.mean(0) - d.mean.numpy()), 6 * np.sqrt(d.variance.numpy() / N))
    assert bool(d.support.check(flow.tensor(s)).all())
