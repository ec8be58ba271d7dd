"""MixtureSameFamily, the relaxed (Gumbel-softmax) distributions, biject_to/transform_to and the
structural transforms, against torch on the same parameters and values."""

import numpy as np
import pytest
import torch

import oneflow as flow

RNG = np.random.default_rng(3)


def both(fn):
    return fn(flow), fn(torch)


def assert_close(a, b, atol=1e-9):
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), atol=atol, rtol=1e-9)


def grads_close(make, arrays, fn, atol=1e-9):
    """fn(make(m, *params), m): values and parameter gradients match torch's."""
    out = []
    for m in (flow, torch):
        ps = [m.tensor(a, dtype=m.float64, requires_grad=True) for a in arrays]
        value = fn(make(m, *ps), m)
        out.append((value, m.autograd.grad(value.sum(), ps, allow_unused=True)))
    (fv, fg), (tv, tg) = out
    assert tuple(fv.shape) == tuple(tv.shape)
    assert_close(fv, tv, atol)
    for a, b in zip(fg, tg):
        assert (a is None) == (b is None)
        if b is not None:
            assert_close(a, b, 1e-8)


GMM = [RNG.normal(size=(2, 3)), RNG.normal(size=(2, 3)), RNG.uniform(0.5, 2.0, (2, 3))]


def gmm(m, w, loc, scale):
    return m.distributions.MixtureSameFamily(m.distributions.Categorical(logits=w), m.distributions.Normal(loc, scale))


def mvn_mixture(m, w, loc):
    comp = m.distributions.Independent(m.distributions.Normal(loc, m.ones_like(loc)), 1)
    return m.distributions.MixtureSameFamily(m.distributions.Categorical(logits=w), comp)


def test_mixture_same_family():
    x = RNG.normal(size=(4, 2))
    grads_close(gmm, GMM, lambda d, m: d.log_prob(m.tensor(x)))
    grads_close(gmm, GMM, lambda d, m: d.cdf(m.tensor(x)))
    grads_close(gmm, GMM, lambda d, m: d.mean + d.variance)
    arrays = [RNG.normal(size=(3,)), RNG.normal(size=(3, 2))]
    y = RNG.normal(size=(5, 2))
    grads_close(mvn_mixture, arrays, lambda d, m: d.log_prob(m.tensor(y)))
    grads_close(mvn_mixture, arrays, lambda d, m: d.mean.sum() + d.variance.sum())
    fd, td = gmm(flow, *[flow.tensor(a) for a in GMM]), gmm(torch, *[torch.tensor(a) for a in GMM])
    assert tuple(fd.batch_shape) == tuple(td.batch_shape) == (2,)
    assert tuple(fd.sample((5,)).shape) == tuple(td.sample((5,)).shape) == (5, 2)
    fm = mvn_mixture(flow, *[flow.tensor(a) for a in arrays])
    assert tuple(fm.sample((4,)).shape) == (4, 2) and tuple(fm.event_shape) == (2,)
    assert tuple(fd.expand((3, 2)).sample().shape) == (3, 2)
    flow.manual_seed(0)
    s = fd.sample((100_000,)).numpy()
    np.testing.assert_allclose(s.mean(0), fd.mean.numpy(), atol=0.05)
    np.testing.assert_allclose(s.var(0), fd.variance.numpy(), rtol=0.05)
    for m in (flow, torch):
        with pytest.raises(ValueError, match="does not equal"):
            m.distributions.MixtureSameFamily(
                m.distributions.Categorical(logits=m.zeros(2)), m.distributions.Normal(m.zeros(3), m.ones(3))
            )
        with pytest.raises(ValueError, match="Mixture distribution needs to be"):
            m.distributions.MixtureSameFamily(m.distributions.Normal(0.0, 1.0), m.distributions.Normal(0.0, 1.0))


def test_relaxed_distributions():
    t = np.array(0.7)
    logits = RNG.normal(size=(2, 3))

    def rb(m, temp, lg):
        return m.distributions.RelaxedBernoulli(temp, logits=lg)

    def rc(m, temp, lg):
        return m.distributions.RelaxedOneHotCategorical(temp, logits=lg)

    u = RNG.uniform(0.05, 0.95, (2, 3))
    grads_close(rb, [t, logits], lambda d, m: d.log_prob(m.tensor(u)))
    simplex = RNG.uniform(0.1, 1.0, (4, 2, 3))
    simplex /= simplex.sum(-1, keepdims=True)
    grads_close(rc, [t, logits], lambda d, m: d.log_prob(m.tensor(simplex)))
    for make, support in ((rb, "unit_interval"), (rc, "simplex")):
        d = make(flow, flow.tensor(t), flow.tensor(logits, requires_grad=True))
        s = d.rsample((6,))
        assert tuple(s.shape) == tuple(make(torch, torch.tensor(t), torch.tensor(logits)).rsample((6,)).shape)
        assert bool(getattr(flow.distributions.constraints, support).check(s).all())
        assert s.requires_grad
    # a low temperature gives nearly one-hot samples whose frequencies follow the probabilities
    flow.manual_seed(2)
    probs = np.array([0.2, 0.5, 0.3])
    s = flow.distributions.RelaxedOneHotCategorical(flow.tensor(0.05), probs=flow.tensor(probs)).sample((50_000,))
    np.testing.assert_allclose(s.numpy().mean(0), probs, atol=0.02)


def test_biject_to_and_transform_to():
    C = flow.distributions.constraints
    TC = torch.distributions.constraints
    cases = [
        ("positive", C.positive, TC.positive, (2, 3)),
        ("greater_than", C.greater_than(1.5), TC.greater_than(1.5), (4,)),
        ("less_than", C.less_than(-1.0), TC.less_than(-1.0), (4,)),
        ("interval", C.interval(-2.0, 3.0), TC.interval(-2.0, 3.0), (4,)),
        ("unit_interval", C.unit_interval, TC.unit_interval, (4,)),
        ("simplex", C.simplex, TC.simplex, (2, 3)),
        ("real_vector", C.real_vector, TC.real_vector, (2, 3)),
        ("independent", C.independent(C.positive, 1), TC.independent(TC.positive, 1), (2, 3)),
    ]
    for name, c, tc, shape in cases:
        x = RNG.normal(size=shape)
        for reg in ("biject_to", "transform_to"):
            t = getattr(flow.distributions, reg)(c)
            tt = getattr(torch.distributions, reg)(tc)
            fx = flow.tensor(x, requires_grad=True)
            tx = torch.tensor(x, requires_grad=True)
            y, ty = t(fx), tt(tx)
            assert_close(y, ty)
            assert bool(c.check(y).all()), (name, reg)
            assert t.bijective == tt.bijective
            if t.bijective:  # softmax (transform_to(simplex)) has no Jacobian, in torch neither
                assert_close(t.log_abs_det_jacobian(fx, y), tt.log_abs_det_jacobian(tx, ty), atol=1e-8)
                assert_close(t.inv(y), tx)
    for c, name in ((C.lower_cholesky, "lower_cholesky"), (C.positive_definite, "positive_definite")):
        x = RNG.normal(size=(3, 3))
        y = flow.distributions.transform_to(c)(flow.tensor(x))
        ty = torch.distributions.transform_to(getattr(TC, name))(torch.tensor(x))
        assert_close(y, ty, atol=1e-12)
        with pytest.raises(NotImplementedError, match="Cannot transform"):
            flow.distributions.biject_to(c)
    with pytest.raises(NotImplementedError, match="Cannot transform"):
        flow.distributions.transform_to(C.boolean)
    with pytest.raises(TypeError, match="Constraint subclass or instance"):
        flow.distributions.biject_to.register(int, lambda c: None)


def test_structural_transforms():
    D, TD = flow.distributions, torch.distributions
    x = RNG.normal(size=(2, 5))

    def cat(m):
        d = m.distributions
        return d.CatTransform([d.ExpTransform(), d.SigmoidTransform(), d.AffineTransform(1.0, 2.0)], 1, [2, 2, 1])

    def stack(m):
        d = m.distributions
        return d.StackTransform([d.ExpTransform(), d.TanhTransform()], 0)

    for make in (cat, stack):
        (f, t) = both(make)
        fx, tx = flow.tensor(x), torch.tensor(x)
        y, ty = f(fx), t(tx)
        assert_close(y, ty)
        assert_close(f.inv(y), tx, atol=1e-9)
        assert_close(f.log_abs_det_jacobian(fx, y), t.log_abs_det_jacobian(tx, ty))
    sb, tsb = D.StickBreakingTransform(), TD.StickBreakingTransform()
    fx = flow.tensor(x, requires_grad=True)
    tx = torch.tensor(x, requires_grad=True)
    y, ty = sb(fx), tsb(tx)
    assert tuple(y.shape) == (2, 6) and bool(D.constraints.simplex.check(y).all())
    assert_close(y, ty)
    assert_close(sb.inv(y), tx)
    ladj, tladj = sb.log_abs_det_jacobian(fx, y), tsb.log_abs_det_jacobian(tx, ty)
    assert_close(ladj, tladj)
    (g,) = flow.autograd.grad(ladj.sum() + y[:, 0].sum(), fx)
    (tg,) = torch.autograd.grad(tladj.sum() + ty[:, 0].sum(), tx)
    assert_close(g, tg)
    normal, tnormal = D.Normal(flow.tensor(0.5), flow.tensor(2.0)), TD.Normal(torch.tensor(0.5), torch.tensor(2.0))
    c, tc = D.CumulativeDistributionTransform(normal), TD.CumulativeDistributionTransform(tnormal)
    v = RNG.normal(size=(4,)).astype(np.float32)
    assert_close(c(flow.tensor(v)), tc(torch.tensor(v)), atol=1e-6)
    assert_close(c.log_abs_det_jacobian(flow.tensor(v), None), tc.log_abs_det_jacobian(torch.tensor(v), None), 1e-6)
    # a Dirichlet-like distribution on the simplex through stick breaking
    base = D.Independent(D.Normal(flow.zeros(3, dtype=flow.float64), flow.ones(3, dtype=flow.float64)), 1)
    tbase = TD.Independent(TD.Normal(torch.zeros(3, dtype=torch.float64), torch.ones(3, dtype=torch.float64)), 1)
    fd = D.TransformedDistribution(base, [D.StickBreakingTransform()])
    td = TD.TransformedDistribution(tbase, [TD.StickBreakingTransform()])
    assert tuple(fd.event_shape) == tuple(td.event_shape) == (4,)
    s = RNG.uniform(0.1, 1.0, (5, 4))
    s /= s.sum(-1, keepdims=True)
    assert_close(fd.log_prob(flow.tensor(s)), td.log_prob(torch.tensor(s)))


def test_lowrank_multivariate_normal():
    loc, W, D = RNG.normal(size=(2, 4)), RNG.normal(size=(4, 2)), RNG.uniform(0.5, 2.0, (2, 4))
    x = RNG.normal(size=(3, 2, 4))

    def make(m, a, w, d):
        return m.distributions.LowRankMultivariateNormal(a, w, d)

    grads_close(make, [loc, W, D], lambda d, m: d.log_prob(m.tensor(x)))
    grads_close(make, [loc, W, D], lambda d, m: d.entropy())
    for attr in ("variance", "covariance_matrix", "precision_matrix", "scale_tril"):
        grads_close(make, [loc, W, D], lambda d, m: getattr(d, attr))
    fd = make(flow, *[flow.tensor(a) for a in (loc, W, D)])
    full = flow.distributions.MultivariateNormal(fd.loc, fd.covariance_matrix)
    np.testing.assert_allclose(fd.log_prob(flow.tensor(x)).numpy(), full.log_prob(flow.tensor(x)).numpy(), atol=1e-10)
    flow.manual_seed(1)
    s = fd.rsample((100_000,)).numpy()[:, 0]
    np.testing.assert_allclose(np.cov(s.T), fd.covariance_matrix.numpy()[0], atol=0.1)
    assert tuple(fd.expand((3, 2)).sample().shape) == (3, 2, 4)
    for m in (flow, torch):
        with pytest.raises(ValueError, match="cov_factor must be a batch of matrices"):
            m.distributions.LowRankMultivariateNormal(m.zeros(4), m.zeros(3, 2), m.ones(4))


def test_lowrank_kl():
    arrays = [RNG.normal(size=(3,)), RNG.normal(size=(3, 2)), RNG.uniform(0.5, 2.0, (3,))]
    arrays += [RNG.normal(size=(3,)), RNG.normal(size=(3, 1)), RNG.uniform(0.5, 2.0, (3,))]
    cov = RNG.normal(size=(3, 3))
    arrays.append(cov @ cov.T + 3 * np.eye(3))

    def kls(m, a, w, d, b, v, e, c):
        D = m.distributions
        p, q = D.LowRankMultivariateNormal(a, w, d), D.LowRankMultivariateNormal(b, v, e)
        full = D.MultivariateNormal(b, covariance_matrix=c)
        return m.stack([D.kl_divergence(p, q), D.kl_divergence(p, full), D.kl_divergence(full, p)])

    grads_close(kls, arrays, lambda d, m: d, atol=1e-9)


def test_von_mises():
    loc, kappa = RNG.normal(size=(4,)), np.array([0.3, 1.0, 3.0, 12.0])  # both Bessel branches
    x = RNG.uniform(-7.0, 7.0, (3, 4))

    def make(m, a, k):
        return m.distributions.VonMises(a, k)

    grads_close(make, [loc, kappa], lambda d, m: d.log_prob(m.tensor(x)))
    grads_close(make, [loc, kappa], lambda d, m: d.variance + d.mean)
    flow.manual_seed(3)
    d = make(flow, flow.tensor(loc), flow.tensor(kappa))
    s = d.sample((100_000,)).numpy()
    assert s.shape == (100_000, 4) and (np.abs(s) <= np.pi).all()
    # circular moments: E[exp(i(x - loc))] = I1/I0 = 1 - variance
    resultant = np.cos(s - loc).mean(0)
    np.testing.assert_allclose(resultant, 1 - d.variance.numpy(), atol=0.01)
    assert tuple(d.expand((2, 4)).sample().shape) == (2, 4)


def test_corr_cholesky_and_lkj():
    x = RNG.normal(size=(2, 6))
    (t, tt) = both(lambda m: m.distributions.CorrCholeskyTransform())
    fx, tx = flow.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    y, ty = t(fx), tt(tx)
    assert tuple(y.shape) == (2, 4, 4) and bool(flow.distributions.constraints.corr_cholesky.check(y).all())
    assert_close(y, ty)
    assert_close(t.inv(y), tx)
    ladj, tladj = t.log_abs_det_jacobian(fx, y), tt.log_abs_det_jacobian(tx, ty)
    assert_close(ladj, tladj)
    (g,) = flow.autograd.grad(ladj.sum() + y.sum(), fx)
    (tg,) = torch.autograd.grad(tladj.sum() + ty.sum(), tx)
    assert_close(g, tg)
    assert isinstance(flow.distributions.biject_to(flow.distributions.constraints.corr_cholesky), type(t))
    from torch.distributions import utils as tu

    from oneflow.distributions.utils import tril_matrix_to_vec, vec_to_tril_matrix

    mat = RNG.normal(size=(3, 4, 4))
    for diag in (-2, -1, 0, 1):
        v = tril_matrix_to_vec(flow.tensor(mat), diag)
        assert_close(v, tu.tril_matrix_to_vec(torch.tensor(mat), diag))
        assert_close(vec_to_tril_matrix(v, diag), tu.vec_to_tril_matrix(torch.tensor(v.numpy()), diag))
    with pytest.raises(ValueError, match="cannot be expressed"):
        vec_to_tril_matrix(flow.zeros(4))

    eta = np.array([0.5, 2.0])
    sample = torch.distributions.LKJCholesky(4, torch.tensor(eta)).sample((5,)).numpy()
    grads_close(lambda m, e: m.distributions.LKJCholesky(4, e), [eta], lambda d, m: d.log_prob(m.tensor(sample)))
    flow.manual_seed(10)
    d = flow.distributions.LKJCholesky(3, flow.tensor(eta, dtype=flow.float64))
    s = d.sample((40_000,))
    assert tuple(s.shape) == (40_000, 2, 3, 3) and bool(d.support.check(s).all())
    corr = (s @ s.transpose(-2, -1)).numpy()[..., 1, 0]  # the marginal of one correlation
    beta = eta - 1 + 3 / 2  # (r + 1) / 2 ~ Beta(beta, beta)
    np.testing.assert_allclose(corr.mean(0), 0.0, atol=0.02)
    np.testing.assert_allclose(corr.var(0), 1 / (2 * beta + 1), rtol=0.05)
    with pytest.raises(ValueError, match="greater than or equal to 2"):
        flow.distributions.LKJCholesky(1)


def _spd(n, batch=()):
    a = RNG.normal(size=batch + (n, n))
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


@pytest.mark.parametrize("param", ["covariance_matrix", "precision_matrix", "scale_tril"])
def test_wishart(param):
    df = np.array([4.5, 6.0])
    mat = _spd(3, (2,))
    if param == "scale_tril":
        mat = np.linalg.cholesky(mat)
    x = np.stack([_spd(3, (2,)) for _ in range(3)])

    def make(m, nu, p):
        # tril(): torch's cholesky_solve gives the unused upper triangle a gradient, ours does not
        return m.distributions.Wishart(nu, **{param: p.tril() if param == "scale_tril" else p})

    grads_close(make, [df, mat], lambda d, m: d.log_prob(m.tensor(x)), atol=1e-8)
    grads_close(make, [df, mat], lambda d, m: d.entropy(), atol=1e-8)
    grads_close(make, [df, mat], lambda d, m: d.mean + d.variance + d.mode, atol=1e-8)
    d = make(flow, flow.tensor(df), flow.tensor(mat))
    s = d.rsample((4,))
    assert tuple(s.shape) == (4, 2, 3, 3) and bool(d.support.check(s).all())
    if param == "covariance_matrix":
        flow.manual_seed(4)
        s = d.sample((20_000,)).numpy()
        np.testing.assert_allclose(s.mean(0), d.mean.numpy(), rtol=0.05, atol=0.3)
        for m in (flow, torch):
            with pytest.raises(ValueError, match="expected to be greater than ndim - 1"):
                m.distributions.Wishart(m.tensor(1.0), m.eye(3))
