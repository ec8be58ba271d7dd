"""kl_divergence against torch's on the same parameters (values and gradients), the infinite
cases, and register_kl's dispatch."""

import numpy as np
import pytest
import torch

import oneflow as flow

RNG = np.random.default_rng(1)


def pos(*shape):
    return RNG.uniform(0.5, 3.0, size=shape)


def simplex(*shape):
    p = RNG.uniform(0.1, 1.0, size=shape)
    return p / p.sum(-1, keepdims=True)


def spd(n, batch=()):
    a = RNG.normal(size=batch + (n, n))
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


def tril(n, batch=()):
    a = np.tril(RNG.normal(size=batch + (n, n)))
    idx = np.arange(n)
    a[..., idx, idx] = np.abs(a[..., idx, idx]) + 0.5
    return a


# name -> (make(m, *params) -> (p, q), parameter arrays)
PAIRS = {
    "normal": (
        lambda m, a, b, c, d: (m.distributions.Normal(a, b), m.distributions.Normal(c, d)),
        [RNG.normal(size=(2, 3)), pos(2, 3), RNG.normal(size=(3,)), pos(2, 3)],
    ),
    "categorical": (
        lambda m, a, b: (m.distributions.Categorical(probs=a), m.distributions.Categorical(logits=b)),
        [simplex(2, 4), RNG.normal(size=(2, 4))],
    ),
    "onehot": (
        lambda m, a, b: (m.distributions.OneHotCategorical(logits=a), m.distributions.OneHotCategorical(probs=b)),
        [RNG.normal(size=(3,)), simplex(3)],
    ),
    "bernoulli": (
        lambda m, a, b: (m.distributions.Bernoulli(probs=a), m.distributions.Bernoulli(logits=b)),
        [RNG.uniform(0.1, 0.9, (4,)), RNG.normal(size=(4,))],
    ),
    "uniform": (
        lambda m, a, b: (m.distributions.Uniform(a, a + 1), m.distributions.Uniform(a - b, a + 1 + b)),
        [RNG.normal(size=(3,)), pos(3)],
    ),
    "beta": (
        lambda m, a, b, c, d: (m.distributions.Beta(a, b), m.distributions.Beta(c, d)),
        [pos(2, 3), pos(2, 3), pos(2, 3), pos(2, 3)],
    ),
    "gamma": (
        lambda m, a, b, c, d: (m.distributions.Gamma(a, b), m.distributions.Gamma(c, d)),
        [pos(3), pos(3), pos(3), pos(3)],
    ),
    "exponential": (
        lambda m, a, b: (m.distributions.Exponential(a), m.distributions.Exponential(b)),
        [pos(3), pos(3)],
    ),
    "dirichlet": (
        lambda m, a, b: (m.distributions.Dirichlet(a), m.distributions.Dirichlet(b)),
        [pos(2, 4), pos(2, 4)],
    ),
    "mvn": (
        lambda m, a, b, c, d: (
            m.distributions.MultivariateNormal(a, covariance_matrix=b),
            m.distributions.MultivariateNormal(c, scale_tril=d),
        ),
        [RNG.normal(size=(2, 3)), spd(3), RNG.normal(size=(3,)), tril(3, (2,))],
    ),
    "mvn_precision": (
        lambda m, a, b, c, d: (
            m.distributions.MultivariateNormal(a, precision_matrix=b),
            m.distributions.MultivariateNormal(c, covariance_matrix=d),
        ),
        [RNG.normal(size=(4,)), spd(4), RNG.normal(size=(4,)), spd(4)],
    ),
}


@pytest.mark.parametrize("name", sorted(PAIRS))
def test_kl_values_and_gradients(name):
    make, arrays = PAIRS[name]
    results = []
    for m in (flow, torch):
        ps = [m.tensor(a, dtype=m.float64, requires_grad=True) for a in arrays]
        p, q = make(m, *ps)
        kl = m.distributions.kl_divergence(p, q)
        w = m.tensor(np.linspace(0.5, 1.5, kl.numel()).reshape(tuple(kl.shape)), dtype=m.float64)
        grads = m.autograd.grad((kl * w).sum(), ps, allow_unused=True)
        results.append((kl, grads))
    (fk, fg), (tk, tg) = results
    assert tuple(fk.shape) == tuple(tk.shape)
    np.testing.assert_allclose(fk.detach().numpy(), tk.detach().numpy(), atol=1e-9, rtol=1e-9)
    assert bool((fk >= -1e-12).all())  # a divergence
    for a, b in zip(fg, tg):
        assert (a is None) == (b is None)
        if b is not None:
            np.testing.assert_allclose(a.numpy(), b.numpy(), atol=1e-8, rtol=1e-7)


def test_kl_of_a_distribution_from_itself_is_zero():
    for name, (make, arrays) in PAIRS.items():
        ps = [flow.tensor(a, dtype=flow.float64) for a in arrays]
        p, _ = make(flow, *ps)
        np.testing.assert_allclose(flow.distributions.kl_divergence(p, p).numpy(), 0.0, atol=1e-9, err_msg=name)


def test_infinite_kl():
    def run(m):
        D = m.distributions
        return (
            D.kl_divergence(
                D.Uniform(m.tensor([0.0, 0.0]), m.tensor([2.0, 1.0])),
                D.Uniform(m.tensor([0.5, -1.0]), m.tensor([3.0, 3.0])),
            ),
            D.kl_divergence(
                D.Categorical(probs=m.tensor([0.5, 0.5, 0.0])), D.Categorical(probs=m.tensor([1.0, 0.0, 0.0]))
            ),
            D.kl_divergence(D.Categorical(probs=m.tensor([1.0, 0.0])), D.Categorical(probs=m.tensor([0.5, 0.5]))),
            D.kl_divergence(
                D.Bernoulli(probs=m.tensor([0.0, 1.0, 0.3, 0.5])), D.Bernoulli(probs=m.tensor([0.5, 0.5, 0.0, 1.0]))
            ),
        )

    for a, b in zip(run(flow), run(torch)):
        np.testing.assert_allclose(a.numpy(), b.numpy(), atol=1e-6)
        if b.numel() > 1 or np.isinf(b.numpy()).any():
            np.testing.assert_array_equal(np.isinf(a.numpy()), np.isinf(b.numpy()))


def test_register_kl_dispatch_and_errors():
    D = flow.distributions

    class MyNormal(D.Normal):
        pass

    p, q = MyNormal(flow.tensor([0.0]), flow.tensor([1.0])), D.Normal(flow.tensor([1.0]), flow.tensor([2.0]))
    expected = D.kl_divergence(D.Normal(flow.tensor([0.0]), flow.tensor([1.0])), q)
    np.testing.assert_allclose(D.kl_divergence(p, q).numpy(), expected.numpy())  # inherited from (Normal, Normal)

    @D.register_kl(MyNormal, D.Normal)
    def _kl_mine(p, q):
        return flow.full(p.batch_shape, 42.0)

    assert float(D.kl_divergence(p, q)) == 42.0  # the more specific registration wins
    assert float(D.kl_divergence(q, p)) != 42.0

    message = "No KL\\(p \\|\\| q\\) is implemented for p type Normal and q type Categorical"
    with pytest.raises(NotImplementedError, match=message):
        D.kl_divergence(q, D.Categorical(flow.ones(2)))
    with pytest.raises(NotImplementedError, match=message):
        torch.distributions.kl_divergence(
            torch.distributions.Normal(0.0, 1.0), torch.distributions.Categorical(torch.ones(2))
        )
    with pytest.raises(TypeError, match="Distribution subclass"):
        D.register_kl(int, D.Normal)
    with pytest.raises(ValueError, match="different event shapes"):
        D.kl_divergence(
            D.MultivariateNormal(flow.zeros(2), flow.eye(2)), D.MultivariateNormal(flow.zeros(3), flow.eye(3))
        )


# One maker per family, on parameters drawn per test: (make(m, *params), parameter arrays).
def _families():
    u = RNG.uniform
    return {
        "Bernoulli": (lambda m, p: m.distributions.Bernoulli(p), [u(0.1, 0.9, 3)]),
        "Beta": (lambda m, a, b: m.distributions.Beta(a, b), [u(0.5, 3, 3), u(0.5, 3, 3)]),
        "Binomial": (lambda m, p: m.distributions.Binomial(5, p), [u(0.1, 0.9, 3)]),
        "ContinuousBernoulli": (lambda m, p: m.distributions.ContinuousBernoulli(p), [u(0.1, 0.9, 3)]),
        "Exponential": (lambda m, r: m.distributions.Exponential(r), [u(0.5, 3, 3)]),
        "Gamma": (lambda m, a, b: m.distributions.Gamma(a, b), [u(0.5, 3, 3), u(0.5, 3, 3)]),
        "Gumbel": (lambda m, a, b: m.distributions.Gumbel(a, b), [u(-1, 1, 3), u(0.5, 2, 3)]),
        "Laplace": (lambda m, a, b: m.distributions.Laplace(a, b), [u(-1, 1, 3), u(0.5, 2, 3)]),
        "Normal": (lambda m, a, b: m.distributions.Normal(a, b), [u(-1, 1, 3), u(0.5, 2, 3)]),
        "Pareto": (lambda m, s, a: m.distributions.Pareto(s, a), [u(0.1, 0.5, 3), np.array([0.8, 1.5, 3.0])]),
        "Poisson": (lambda m, r: m.distributions.Poisson(r), [u(0.5, 3, 3)]),
        # supports: [0.2, 0.7] inside (0, 1), [0.5, 2] past 1, [-0.5, 0.5] below 0
        "Uniform": (
            lambda m, a, b: m.distributions.Uniform(a, b),
            [np.array([0.2, 0.5, -0.5]), np.array([0.7, 2, 0.5])],
        ),
    }


def _cross_pairs():
    from oneflow.distributions.kl import _KL_REGISTRY

    names = set(_families())
    return sorted(
        (p.__name__, q.__name__) for p, q in _KL_REGISTRY if p is not q and p.__name__ in names and q.__name__ in names
    )


@pytest.mark.parametrize("pair", _cross_pairs(), ids=lambda pq: f"{pq[0]}-{pq[1]}")
def test_cross_family_kl(pair):
    fams = _families()
    (make_p, arrays_p), (make_q, arrays_q) = fams[pair[0]], fams[pair[1]]
    n = len(arrays_p)
    results = []
    for m in (flow, torch):
        ps = [m.tensor(a, dtype=m.float64, requires_grad=True) for a in arrays_p + arrays_q]
        kl = m.distributions.kl_divergence(make_p(m, *ps[:n]), make_q(m, *ps[n:]))
        finite = m.isfinite(kl)
        total = m.where(finite, kl, m.zeros_like(kl)).sum()
        grads = m.autograd.grad(total, ps, allow_unused=True) if total.requires_grad else [None] * len(ps)
        results.append((kl, grads))
    (fk, fg), (tk, tg) = results
    np.testing.assert_allclose(fk.detach().numpy(), tk.detach().numpy(), atol=1e-9, rtol=1e-9)
    for a, b, x in zip(fg, tg, arrays_p + arrays_q):
        a = np.zeros_like(x) if a is None else a.numpy()  # None: no path from that parameter
        b = np.zeros_like(x) if b is None else b.numpy()
        np.testing.assert_allclose(a, b, atol=1e-8, rtol=1e-7)
