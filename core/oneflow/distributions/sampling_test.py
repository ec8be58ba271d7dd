"""Sampling from oneflow.distributions: moments of large samples (fixed seed, bounds of several
standard errors), reparameterized gradients through rsample, and the implicit Gamma gradient
against torch's."""

import numpy as np
import pytest
import torch

import oneflow as flow

D = flow.distributions
N = 200_000


def f64(x):
    return flow.tensor(x, dtype=flow.float64)


def assert_moments(samples, mean, var, sigmas=6.0):
    """The sample mean and variance lie within `sigmas` standard errors of the truth."""
    s = samples.to(flow.float64).numpy()
    mean, var = np.broadcast_to(mean, s.shape[1:]), np.broadcast_to(var, s.shape[1:])
    n = s.shape[0]
    np.testing.assert_array_less(np.abs(s.mean(0) - mean), sigmas * np.sqrt(var / n) + 1e-12)
    # the variance of the sample variance is at most ~ (m4 - var^2)/n; bound with a kurtosis of 10
    np.testing.assert_array_less(np.abs(s.var(0) - var), sigmas * np.sqrt(10 * var**2 / n) + 1e-12)


CASES = [
    ("normal", lambda: D.Normal(f64([0.0, 2.0]), f64([1.0, 0.5]))),
    ("uniform", lambda: D.Uniform(f64([-1.0, 2.0]), f64([1.0, 5.0]))),
    ("bernoulli", lambda: D.Bernoulli(probs=f64([0.1, 0.5, 0.9]))),
    ("categorical", lambda: D.Categorical(probs=f64([[0.2, 0.3, 0.5], [0.7, 0.2, 0.1]]))),
    ("onehot", lambda: D.OneHotCategorical(logits=f64([0.3, -1.0, 2.0]))),
    ("gamma", lambda: D.Gamma(f64([0.3, 1.0, 4.5]), f64([1.0, 2.0, 0.5]))),
    ("exponential", lambda: D.Exponential(f64([0.5, 3.0]))),
    ("beta", lambda: D.Beta(f64([0.5, 2.0, 5.0]), f64([0.5, 3.0, 1.0]))),
    ("dirichlet", lambda: D.Dirichlet(f64([0.5, 1.0, 3.0]))),
    (
        "mvn",
        lambda: D.MultivariateNormal(f64([1.0, -1.0, 0.0]), f64([[2.0, 0.5, 0.2], [0.5, 1.0, 0.3], [0.2, 0.3, 0.5]])),
    ),
]


@pytest.mark.parametrize("name,make", CASES, ids=[c[0] for c in CASES])
def test_sample_moments(name, make):
    flow.manual_seed(1234)
    d = make()
    s = d.sample((N,))
    assert tuple(s.shape) == (N,) + tuple(d.batch_shape) + tuple(d.event_shape)
    assert bool(d.support.check(s).all())
    if name == "categorical":
        counts = np.stack([(s.numpy() == k).mean(0) for k in range(3)], -1)
        p = d.probs.numpy()
        np.testing.assert_array_less(np.abs(counts - p), 6 * np.sqrt(p * (1 - p) / N))
        return
    assert_moments(s, d.mean.numpy(), d.variance.numpy())
    if name == "mvn":
        x = s.numpy() - s.numpy().mean(0)
        cov = x.T @ x / N
        np.testing.assert_allclose(cov, d.covariance_matrix.numpy(), atol=0.05)
    if d.has_rsample:
        r = d.rsample((N,))
        assert_moments(r, d.mean.numpy(), d.variance.numpy())


def test_seeded_sampling_is_reproducible():
    d = D.Gamma(f64([0.7, 2.0]), f64([1.0, 1.0]))
    flow.manual_seed(7)
    a = d.sample((5,))
    flow.manual_seed(7)
    b = d.sample((5,))
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    flow.manual_seed(7)
    c = D.Categorical(logits=f64([0.1, 0.2, 0.3])).sample((20,))
    flow.manual_seed(7)
    np.testing.assert_array_equal(c.numpy(), D.Categorical(logits=f64([0.1, 0.2, 0.3])).sample((20,)).numpy())


def test_rsample_gradients_location_scale():
    # d/d loc E[x] = 1, d/d scale E[x^2] = 2 scale (Normal); d/d low, high of the mean (Uniform)
    flow.manual_seed(3)
    loc = flow.tensor([1.0, -2.0], dtype=flow.float64, requires_grad=True)
    scale = flow.tensor([0.5, 2.0], dtype=flow.float64, requires_grad=True)
    x = D.Normal(loc, scale).rsample((N,))
    assert x.requires_grad
    gl, gs = flow.autograd.grad((x**2).mean(0).sum(), (loc, scale))
    np.testing.assert_allclose(gl.numpy(), 2 * loc.detach().numpy(), atol=0.05)
    np.testing.assert_allclose(gs.numpy(), 2 * scale.detach().numpy(), atol=0.05)
    low = flow.tensor([0.0], dtype=flow.float64, requires_grad=True)
    high = flow.tensor([2.0], dtype=flow.float64, requires_grad=True)
    u = D.Uniform(low, high).rsample((N,))
    gl, gh = flow.autograd.grad(u.mean(), (low, high))
    np.testing.assert_allclose([gl.item(), gh.item()], [0.5, 0.5], atol=0.01)
    # the MultivariateNormal sample is loc + L eps: d sum(x) / d loc = n samples per coordinate
    L = flow.tensor([[1.0, 0.0], [0.5, 2.0]], dtype=flow.float64, requires_grad=True)
    mloc = flow.zeros(2, dtype=flow.float64, requires_grad=True)
    x = D.MultivariateNormal(mloc, scale_tril=L).rsample((10,))
    gloc, gL = flow.autograd.grad(x.sum(), (mloc, L))
    np.testing.assert_allclose(gloc.numpy(), [10.0, 10.0])
    assert gL is not None and float(gL.abs().sum()) > 0


@pytest.mark.parametrize(
    "name,make,mean_grad",
    [
        # d E[x] / d params from the closed-form means
        ("gamma", lambda c, r: D.Gamma(c, r), lambda c, r: (1 / r, -c / r**2)),
        ("beta", lambda a, b: D.Beta(a, b), lambda a, b: (b / (a + b) ** 2, -a / (a + b) ** 2)),
    ],
)
def test_implicit_reparameterization_matches_mean_gradient(name, make, mean_grad):
    flow.manual_seed(11)
    a_np, b_np = np.array([0.4, 1.5, 6.0]), np.array([2.0, 0.7, 3.0])
    a = flow.tensor(a_np, requires_grad=True, dtype=flow.float64)
    b = flow.tensor(b_np, requires_grad=True, dtype=flow.float64)
    x = make(a, b).rsample((N,))
    ga, gb = flow.autograd.grad(x.mean(0).sum(), (a, b))
    wa, wb = mean_grad(a_np, b_np)
    np.testing.assert_allclose(ga.numpy(), wa, rtol=0.05, atol=0.01)
    np.testing.assert_allclose(gb.numpy(), wb, rtol=0.05, atol=0.01)


def test_dirichlet_rsample_gradient():
    # d E[x_0] / d c_0 = (s - c_0) / s^2 with s = sum(c)
    flow.manual_seed(5)
    c = flow.tensor([0.8, 2.0, 1.2], dtype=flow.float64, requires_grad=True)
    x = D.Dirichlet(c).rsample((N,))
    (g,) = flow.autograd.grad(x[:, 0].mean(), c)
    cs, s = c.detach().numpy(), float(c.detach().sum())
    want = np.array([(s - cs[0]) / s**2, -cs[0] / s**2, -cs[0] / s**2])
    np.testing.assert_allclose(g.numpy(), want, rtol=0.05, atol=0.005)


def test_standard_gamma_grad_against_torch():
    from oneflow.distributions import _special

    alpha = np.array([0.05, 0.3, 0.9, 1.0, 2.5, 7.0, 30.0, 0.5, 4.0, 100.0])
    x = np.array([0.001, 0.1, 0.5, 2.0, 1.0, 9.0, 25.0, 3.0, 0.2, 95.0])
    ours = _special.standard_gamma_grad(f64(alpha), f64(x)).numpy()
    theirs = torch._standard_gamma_grad(torch.tensor(alpha), torch.tensor(x)).numpy()
    # torch's is an approximation (rational fits, ~1e-4 relative); ours differentiates P in float64
    np.testing.assert_allclose(ours, theirs, rtol=2e-3)


def test_sample_has_no_grad_and_rsample_does():
    p = flow.tensor([0.3, 0.6], dtype=flow.float64, requires_grad=True)
    assert not D.Bernoulli(p).sample((3,)).requires_grad
    assert not D.Normal(p, p).sample().requires_grad
    assert D.Normal(p, p).rsample().requires_grad
    assert D.Gamma(p, p).rsample().requires_grad
    with pytest.raises(NotImplementedError):
        D.Bernoulli(p).rsample()
    with pytest.raises(NotImplementedError):
        torch.distributions.Bernoulli(torch.tensor([0.3])).rsample()
    with pytest.warns(UserWarning, match="sample_n"):
        assert tuple(D.Normal(p, p).sample_n(4).shape) == (4, 2)
