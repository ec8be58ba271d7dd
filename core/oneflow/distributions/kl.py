"""KL divergence between distributions: a table of closed forms keyed by the pair of types."""

from __future__ import annotations

import math
import warnings
from functools import total_ordering

import oneflow
from oneflow.distributions import _special
from oneflow.distributions.bernoulli import Bernoulli
from oneflow.distributions.categorical import Categorical, OneHotCategorical
from oneflow.distributions.continuous_bernoulli import ContinuousBernoulli
from oneflow.distributions.dirichlet import Beta, Dirichlet
from oneflow.distributions.discrete import Binomial, Geometric, Poisson
from oneflow.distributions.distribution import Distribution
from oneflow.distributions.exp_family import ExponentialFamily
from oneflow.distributions.extreme_value import Gumbel, Pareto
from oneflow.distributions.gamma import Exponential, Gamma
from oneflow.distributions.independent import Independent
from oneflow.distributions.laplace import Cauchy, Laplace
from oneflow.distributions.lowrank_multivariate_normal import LowRankMultivariateNormal
from oneflow.distributions.multivariate_normal import MultivariateNormal, _batch_mahalanobis
from oneflow.distributions.normal import Normal
from oneflow.distributions.transformed import HalfNormal
from oneflow.distributions.transformed_distribution import TransformedDistribution
from oneflow.distributions.uniform import Uniform
from oneflow.distributions.utils import _sum_rightmost

__all__ = ["kl_divergence", "register_kl"]

_KL_REGISTRY: dict = {}  # (type_p, type_q) -> fn(p, q)
_KL_MEMOIZE: dict = {}  # (type_p, type_q) -> the most specific registered fn


def register_kl(type_p, type_q):
    """Decorator registering ``fn(p, q)`` as the KL divergence of a ``type_p`` from a ``type_q``.

        >>> @register_kl(Normal, Normal)
        ... def kl_normal_normal(p, q):
        ...     ...

    Lookup picks the most specific registered pair (by the classes' method resolution order); an
    ambiguous pair warns. Registering clears the lookup cache.

    Args:
        type_p (type): a subclass of :class:`Distribution`.
        type_q (type): a subclass of :class:`Distribution`.
    """
    if not isinstance(type_p, type) or not issubclass(type_p, Distribution):
        raise TypeError(f"Expected type_p to be a Distribution subclass but got {type_p}")
    if not isinstance(type_q, type) or not issubclass(type_q, Distribution):
        raise TypeError(f"Expected type_q to be a Distribution subclass but got {type_q}")

    def decorator(fn):
        _KL_REGISTRY[type_p, type_q] = fn
        _KL_MEMOIZE.clear()
        return fn

    return decorator


@total_ordering
class _Match:
    def __init__(self, *types):
        self.types = types

    def __eq__(self, other):
        return self.types == other.types

    def __le__(self, other):
        for x, y in zip(self.types, other.types):
            if not issubclass(x, y):
                return False
            if x is not y:
                break
        return True


def _dispatch_kl(type_p, type_q):
    matches = [(p, q) for p, q in _KL_REGISTRY if issubclass(type_p, p) and issubclass(type_q, q)]
    if not matches:
        return NotImplemented
    left_p, left_q = min(_Match(*m) for m in matches).types
    right_q, right_p = min(_Match(*reversed(m)) for m in matches).types
    left_fn = _KL_REGISTRY[left_p, left_q]
    right_fn = _KL_REGISTRY[right_p, right_q]
    if left_fn is not right_fn:
        warnings.warn(
            f"Ambiguous kl_divergence({type_p.__name__}, {type_q.__name__}). Please register_kl"
            f"({left_p.__name__}, {right_q.__name__})",
            RuntimeWarning,
            stacklevel=3,
        )
    return left_fn


def kl_divergence(p: Distribution, q: Distribution):
    """The Kullback-Leibler divergence ``KL(p || q) = E_p[log p(x) - log q(x)]``, over the batch.

    Args:
        p (Distribution): the distribution the expectation is taken under.
        q (Distribution): the reference distribution.

    Raises:
        NotImplementedError: when no closed form is registered for the two types.
    """
    key = (type(p), type(q))
    fn = _KL_MEMOIZE.get(key)
    if fn is None:
        fn = _dispatch_kl(*key)
        _KL_MEMOIZE[key] = fn
    if fn is NotImplemented:
        raise NotImplementedError(
            f"No KL(p || q) is implemented for p type {p.__class__.__name__} and q type {q.__class__.__name__}"
        )
    return fn(p, q)


def _infinite_like(t):
    return oneflow.full_like(t, math.inf)


@register_kl(Normal, Normal)
def _kl_normal_normal(p, q):
    var_ratio = (p.scale / q.scale).pow(2)
    t1 = ((p.loc - q.loc) / q.scale).pow(2)
    return 0.5 * (var_ratio + t1 - 1 - var_ratio.log())


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p, q):
    t = p.probs * (p.logits - q.logits)
    t = oneflow.where((q.probs == 0).expand_as(t), _infinite_like(t), t)
    t = oneflow.where((p.probs == 0).expand_as(t), oneflow.zeros_like(t), t)
    return t.sum(-1)


@register_kl(OneHotCategorical, OneHotCategorical)
def _kl_onehotcategorical_onehotcategorical(p, q):
    return _kl_categorical_categorical(p._categorical, q._categorical)


@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p, q):
    softplus = oneflow.nn.functional.softplus
    t1 = p.probs * (softplus(-q.logits) - softplus(-p.logits))
    t1 = oneflow.where(q.probs == 0, _infinite_like(t1), t1)
    t1 = oneflow.where(p.probs == 0, oneflow.zeros_like(t1), t1)
    t2 = (1 - p.probs) * (softplus(q.logits) - softplus(p.logits))
    t2 = oneflow.where(q.probs == 1, _infinite_like(t2), t2)
    t2 = oneflow.where(p.probs == 1, oneflow.zeros_like(t2), t2)
    return t1 + t2


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p, q):
    result = ((q.high - q.low) / (p.high - p.low)).log()
    outside = (q.low > p.low) | (q.high < p.high)
    return oneflow.where(outside, _infinite_like(result), result)


@register_kl(Beta, Beta)
def _kl_beta_beta(p, q):
    sum_p = p.concentration1 + p.concentration0
    sum_q = q.concentration1 + q.concentration0
    t1 = q.concentration1.lgamma() + q.concentration0.lgamma() + sum_p.lgamma()
    t2 = p.concentration1.lgamma() + p.concentration0.lgamma() + sum_q.lgamma()
    t3 = (p.concentration1 - q.concentration1) * _special.digamma(p.concentration1)
    t4 = (p.concentration0 - q.concentration0) * _special.digamma(p.concentration0)
    t5 = (sum_q - sum_p) * _special.digamma(sum_p)
    return t1 - t2 + t3 + t4 + t5


@register_kl(Gamma, Gamma)
def _kl_gamma_gamma(p, q):
    t1 = q.concentration * (p.rate / q.rate).log()
    t2 = q.concentration.lgamma() - p.concentration.lgamma()
    t3 = (p.concentration - q.concentration) * _special.digamma(p.concentration)
    t4 = (q.rate - p.rate) * (p.concentration / p.rate)
    return t1 + t2 + t3 + t4


@register_kl(Exponential, Exponential)
def _kl_exponential_exponential(p, q):
    rate_ratio = q.rate / p.rate
    return rate_ratio - 1 - rate_ratio.log()


@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(p, q):
    sum_p = p.concentration.sum(-1)
    sum_q = q.concentration.sum(-1)
    t1 = sum_p.lgamma() - sum_q.lgamma()
    t2 = (p.concentration.lgamma() - q.concentration.lgamma()).sum(-1)
    t3 = p.concentration - q.concentration
    t4 = _special.digamma(p.concentration) - _special.digamma(sum_p).unsqueeze(-1)
    return t1 - t2 + (t3 * t4).sum(-1)


@register_kl(MultivariateNormal, MultivariateNormal)
def _kl_multivariatenormal_multivariatenormal(p, q):
    if p.event_shape != q.event_shape:
        raise ValueError(
            "KL-divergence between two Multivariate Normals with different event shapes cannot be computed"
        )
    p_L, q_L = p._unbroadcasted_scale_tril, q._unbroadcasted_scale_tril
    half_term1 = q_L.diagonal(dim1=-2, dim2=-1).log().sum(-1) - p_L.diagonal(dim1=-2, dim2=-1).log().sum(-1)
    n = p.event_shape[0]
    batch = oneflow.broadcast_shapes(tuple(q_L.shape[:-2]), tuple(p_L.shape[:-2]))
    # tr(Sigma_q^{-1} Sigma_p) = || q_L^{-1} p_L ||_F^2
    solved = oneflow.linalg.solve_triangular(
        q_L.expand(tuple(batch) + (n, n)), p_L.expand(tuple(batch) + (n, n)), upper=False
    )
    term2 = solved.pow(2).reshape(tuple(batch) + (-1,)).sum(-1)
    term3 = _batch_mahalanobis(q_L, q.loc - p.loc)
    return half_term1 + 0.5 * (term2 + term3 - n)


@register_kl(Laplace, Laplace)
def _kl_laplace_laplace(p, q):
    scale_ratio = p.scale / q.scale
    loc_abs_diff = (p.loc - q.loc).abs()
    return -scale_ratio.log() + loc_abs_diff / q.scale + scale_ratio * oneflow.exp(-loc_abs_diff / p.scale) - 1


@register_kl(Cauchy, Cauchy)
def _kl_cauchy_cauchy(p, q):
    t1 = ((p.scale + q.scale).pow(2) + (p.loc - q.loc).pow(2)).log()
    return t1 - (4 * p.scale * q.scale).log()


@register_kl(Poisson, Poisson)
def _kl_poisson_poisson(p, q):
    return p.rate * (p.rate.log() - q.rate.log()) - (p.rate - q.rate)


@register_kl(Binomial, Binomial)
def _kl_binomial_binomial(p, q):
    if bool((p.total_count < q.total_count).any()):
        raise NotImplementedError("KL between Binomials where q.total_count > p.total_count is not implemented")
    kl = p.total_count * (p.probs * (p.logits - q.logits) + (-p.probs).log1p() - (-q.probs).log1p())
    return oneflow.where(p.total_count > q.total_count, _infinite_like(kl), kl)


@register_kl(Geometric, Geometric)
def _kl_geometric_geometric(p, q):
    return -p.entropy() - oneflow.log1p(-q.probs) / p.probs - q.logits


@register_kl(HalfNormal, HalfNormal)
def _kl_halfnormal_halfnormal(p, q):
    return _kl_normal_normal(p.base_dist, q.base_dist)


@register_kl(Independent, Independent)
def _kl_independent_independent(p, q):
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError("KL between Independents with different reinterpreted_batch_ndims")
    return _sum_rightmost(kl_divergence(p.base_dist, q.base_dist), p.reinterpreted_batch_ndims)


@register_kl(TransformedDistribution, TransformedDistribution)
def _kl_transformed_transformed(p, q):
    if p.transforms != q.transforms or p.event_shape != q.event_shape:
        raise NotImplementedError("KL between TransformedDistributions needs equal transforms and event shapes")
    return kl_divergence(p.base_dist, q.base_dist)


@register_kl(ExponentialFamily, ExponentialFamily)
def _kl_expfamily_expfamily(p, q):
    # the Bregman divergence of the log-normalizer between the natural parameters
    if type(p) is not type(q):
        raise NotImplementedError(
            "The cross KL-divergence between different exponential families cannot be computed using Bregman"
            " divergences"
        )
    p_nparams = [n.detach().requires_grad_() for n in p._natural_params]
    q_nparams = q._natural_params
    with oneflow.enable_grad():
        lg_normal = p._log_normalizer(*p_nparams)
        gradients = oneflow.autograd.grad(lg_normal.sum(), p_nparams, create_graph=True)
    result = q._log_normalizer(*q_nparams) - lg_normal
    for pnp, qnp, g in zip(p_nparams, q_nparams, gradients):
        result = result - _sum_rightmost((qnp - pnp) * g, len(q.event_shape))
    return result


@register_kl(Gumbel, Gumbel)
def _kl_gumbel_gumbel(p, q):
    ct1 = p.scale / q.scale
    ct2 = q.loc / q.scale
    ct3 = p.loc / q.scale
    t1 = -ct1.log() - ct2 + ct3
    t2 = ct1 * 0.57721566490153286060
    t3 = oneflow.exp(ct2 + (1 + ct1).lgamma() - ct3)
    return t1 + t2 + t3 - (1 + 0.57721566490153286060)


@register_kl(Pareto, Pareto)
def _kl_pareto_pareto(p, q):
    scale_ratio = p.scale / q.scale
    alpha_ratio = q.alpha / p.alpha
    result = q.alpha * scale_ratio.log() - alpha_ratio.log() + alpha_ratio - 1
    return oneflow.where(p.scale < q.scale, _infinite_like(result), result)


@register_kl(ContinuousBernoulli, ContinuousBernoulli)
def _kl_continuous_bernoulli_continuous_bernoulli(p, q):
    t1 = p.mean * (p.logits - q.logits)
    t2 = p._cont_bern_log_norm() + oneflow.log1p(-p.probs)
    t3 = -q._cont_bern_log_norm() - oneflow.log1p(-q.probs)
    return t1 + t2 + t3


def _as_full_mvn(d):
    if isinstance(d, LowRankMultivariateNormal):
        return MultivariateNormal(d.loc, scale_tril=d.scale_tril, validate_args=False)
    return d


@register_kl(LowRankMultivariateNormal, LowRankMultivariateNormal)
@register_kl(LowRankMultivariateNormal, MultivariateNormal)
@register_kl(MultivariateNormal, LowRankMultivariateNormal)
def _kl_lowrank_multivariatenormal(p, q):
    # through the dense Cholesky factor: O(n^3), exact
    if p.event_shape != q.event_shape:
        raise ValueError(
            "KL-divergence between two (Low Rank) Multivariate Normals with different event shapes cannot be computed"
        )
    return _kl_multivariatenormal_multivariatenormal(_as_full_mvn(p), _as_full_mvn(q))


def _infinite_kl(p, q):
    """KL of a distribution whose support is not inside the other's: infinite over the batch."""
    shape = oneflow.broadcast_shapes(tuple(p.batch_shape), tuple(q.batch_shape))
    like = next(v for v in vars(p).values() if isinstance(v, oneflow.Tensor))
    return oneflow.full(tuple(shape), math.inf, dtype=like.dtype, device=like.device)


# Supports that overflow the other's (real line into a half line or an interval, etc.).
for _p, _q in [
    (Normal, Gamma),
    (Normal, Beta),
    (Normal, Exponential),
    (Normal, Uniform),
    (Laplace, Gamma),
    (Laplace, Beta),
    (Laplace, Exponential),
    (Laplace, Uniform),
    (Gamma, Beta),
    (Gamma, Uniform),
    (Exponential, Beta),
    (Exponential, Uniform),
]:
    register_kl(_p, _q)(_infinite_kl)
