"""KL divergences between different families, in closed form: a distribution whose support
overflows the other's gets infinity; the rest are ``-H(p) - E_p[log q(x)]`` worked out per pair.
Imported for its registrations."""

from __future__ import annotations

import math

import oneflow
from oneflow.distributions import _special
from oneflow.distributions.bernoulli import Bernoulli
from oneflow.distributions.continuous_bernoulli import ContinuousBernoulli
from oneflow.distributions.dirichlet import Beta
from oneflow.distributions.discrete import Binomial, Poisson
from oneflow.distributions.extreme_value import Gumbel, Pareto
from oneflow.distributions.gamma import Exponential, Gamma
from oneflow.distributions.kl import register_kl
from oneflow.distributions.laplace import Laplace
from oneflow.distributions.normal import Normal
from oneflow.distributions.uniform import Uniform

_EULER = 0.57721566490153286060


def _inf_like(t):
    return oneflow.full_like(t, math.inf)


def _inf_where(mask, result):
    return oneflow.where(mask, _inf_like(result), result)


def _x_log_x(t):
    return t * t.log()


def _infinite(param: str):
    def kl(p, q):
        return _inf_like(getattr(p, param))

    return kl


for _p, _qs, _param in [
    (Beta, [Pareto], "concentration1"),
    (ContinuousBernoulli, [Pareto], "probs"),
    (Exponential, [Beta, ContinuousBernoulli, Pareto, Uniform], "rate"),
    (Gamma, [Beta, ContinuousBernoulli, Pareto, Uniform], "concentration"),
    (Gumbel, [Beta, ContinuousBernoulli, Exponential, Gamma, Pareto, Uniform], "loc"),
    (Laplace, [Beta, ContinuousBernoulli, Exponential, Gamma, Pareto, Uniform], "loc"),
    (Normal, [Beta, ContinuousBernoulli, Exponential, Gamma, Pareto, Uniform], "loc"),
    (Pareto, [Beta, ContinuousBernoulli, Uniform], "scale"),
    (Poisson, [Bernoulli, Binomial], "rate"),
]:
    for _q in _qs:
        register_kl(_p, _q)(_infinite(_param))


@register_kl(Bernoulli, Poisson)
def _kl_bernoulli_poisson(p, q):
    return -p.entropy() - (p.probs * q.rate.log() - q.rate)


@register_kl(Beta, ContinuousBernoulli)
@register_kl(Uniform, ContinuousBernoulli)
def _kl_to_continuous_bernoulli(p, q):
    result = -p.entropy() - p.mean * q.logits - oneflow.log1p(-q.probs) - q._cont_bern_log_norm()
    if isinstance(p, Uniform):
        result = _inf_where((p.high >= 1.0) | (p.low <= 0.0), result)
    return result


@register_kl(Beta, Exponential)
@register_kl(ContinuousBernoulli, Exponential)
@register_kl(Gamma, Exponential)
def _kl_to_exponential(p, q):
    # E_p[-log q] = rate * E[x] - log(rate)
    return -p.entropy() - q.rate.log() + q.rate * p.mean


@register_kl(Beta, Gamma)
def _kl_beta_gamma(p, q):
    a, b = p.concentration1, p.concentration0
    t2 = q.concentration.lgamma() - q.concentration * q.rate.log()
    t3 = (q.concentration - 1) * (_special.digamma(a) - _special.digamma(a + b))
    return -p.entropy() + t2 - t3 + q.rate * a / (a + b)


def _normal_cross_entropy(q, mean, second_moment):
    """E_p[-log q(x)] for a normal q, from the first two moments of p."""
    return 0.5 * (2 * math.pi * q.scale.pow(2)).log() + (second_moment - 2 * q.loc * mean + q.loc.pow(2)) / (
        2 * q.scale.pow(2)
    )


@register_kl(Beta, Normal)
@register_kl(ContinuousBernoulli, Normal)
def _kl_to_normal_by_moments(p, q):
    return -p.entropy() + _normal_cross_entropy(q, p.mean, p.variance + p.mean.pow(2))


@register_kl(Beta, Uniform)
@register_kl(ContinuousBernoulli, Uniform)
def _kl_unit_interval_uniform(p, q):
    result = -p.entropy() + (q.high - q.low).log()
    if isinstance(p, Beta):
        return _inf_where((q.low > 0.0) | (q.high < 1.0), result)
    return _inf_where((q.low >= 0.0) | (q.high <= 1.0), result)


@register_kl(Exponential, Gamma)
def _kl_exponential_gamma(p, q):
    ratio = q.rate / p.rate
    t1 = -q.concentration * oneflow.log(ratio)
    return t1 + ratio + q.concentration.lgamma() + q.concentration * _EULER - (1 + _EULER)


@register_kl(Exponential, Gumbel)
def _kl_exponential_gumbel(p, q):
    prod = p.rate * q.scale
    loc_ratio = q.loc / q.scale
    return prod.log() - 1 - loc_ratio + oneflow.exp(loc_ratio) * prod / (prod + 1) + prod.reciprocal()


@register_kl(Exponential, Normal)
@register_kl(Gamma, Normal)
def _kl_positive_normal(p, q):
    return -p.entropy() + _normal_cross_entropy(q, p.mean, p.variance + p.mean.pow(2))


@register_kl(Gamma, Gumbel)
def _kl_gamma_gumbel(p, q):
    c = p.concentration
    prod = p.rate * q.scale
    loc_ratio = q.loc / q.scale
    t1 = (c - 1) * _special.digamma(c) - c.lgamma() - c
    t2 = prod.log() + c / prod
    t3 = oneflow.exp(loc_ratio) * (1 + prod.reciprocal()).pow(-c) - loc_ratio
    return t1 + t2 + t3


@register_kl(Gumbel, Normal)
def _kl_gumbel_normal(p, q):
    ratio = p.scale / q.scale
    t1 = (ratio / math.sqrt(2 * math.pi)).log()
    t2 = (math.pi * ratio * 0.5).pow(2) / 3
    t3 = ((p.loc + p.scale * _EULER - q.loc) / q.scale).pow(2) * 0.5
    return -t1 + t2 + t3 - (_EULER + 1)


@register_kl(Laplace, Normal)
def _kl_laplace_normal(p, q):
    return -p.entropy() + _normal_cross_entropy(q, p.loc, 2 * p.scale.pow(2) + p.loc.pow(2))


@register_kl(Normal, Gumbel)
def _kl_normal_gumbel(p, q):
    mean_ratio = p.loc / q.scale
    var_ratio = (p.scale / q.scale).pow(2)
    loc_ratio = q.loc / q.scale
    t3 = oneflow.exp(-mean_ratio + 0.5 * var_ratio + loc_ratio)
    return -0.5 * var_ratio.log() + mean_ratio - loc_ratio + t3 - 0.5 * (1 + math.log(2 * math.pi))


@register_kl(Normal, Laplace)
def _kl_normal_laplace(p, q):
    diff = p.loc - q.loc
    ratio = diff / p.scale
    t2 = math.sqrt(2 / math.pi) * p.scale * oneflow.exp(-0.5 * ratio.pow(2))
    t3 = diff * oneflow.erf(math.sqrt(0.5) * ratio)
    return -oneflow.log(p.scale / q.scale) + (t2 + t3) / q.scale - 0.5 * (1 + math.log(0.5 * math.pi))


@register_kl(Pareto, Exponential)
def _kl_pareto_exponential(p, q):
    prod = p.scale * q.rate
    result = (p.alpha / prod).log() - p.alpha.reciprocal() + p.alpha * prod / (p.alpha - 1) - 1
    return _inf_where(p.alpha <= 1, result)


@register_kl(Pareto, Gamma)
def _kl_pareto_gamma(p, q):
    common = p.scale.log() + p.alpha.reciprocal()
    t2 = q.concentration.lgamma() - q.concentration * q.rate.log()
    t4 = q.rate * p.alpha * p.scale / (p.alpha - 1)
    result = p.alpha.log() - common + t2 + (1 - q.concentration) * common + t4 - 1
    return _inf_where(p.alpha <= 1, result)


@register_kl(Pareto, Normal)
def _kl_pareto_normal(p, q):
    common = p.scale / (p.alpha - 1)
    t1 = (math.sqrt(2 * math.pi) * q.scale * p.alpha / p.scale).log()
    t3 = p.alpha * common.pow(2) / (p.alpha - 2)
    t4 = (p.alpha * common - q.loc).pow(2)
    result = t1 - p.alpha.reciprocal() + (t3 + t4) / (2 * q.scale.pow(2)) - 1
    return _inf_where(p.alpha <= 2, result)


@register_kl(Uniform, Beta)
def _kl_uniform_beta(p, q):
    width = p.high - p.low
    t2 = (q.concentration1 - 1) * (_x_log_x(p.high) - _x_log_x(p.low) - width) / width
    t3 = (q.concentration0 - 1) * (_x_log_x(1 - p.high) - _x_log_x(1 - p.low) + width) / width
    t4 = q.concentration1.lgamma() + q.concentration0.lgamma() - (q.concentration1 + q.concentration0).lgamma()
    return _inf_where((p.high > 1.0) | (p.low < 0.0), t3 + t4 - width.log() - t2)


@register_kl(Uniform, Exponential)
def _kl_uniform_exponential(p, q):
    result = q.rate * (p.high + p.low) / 2 - ((p.high - p.low) * q.rate).log()
    return _inf_where(p.low < 0.0, result)


@register_kl(Uniform, Gamma)
def _kl_uniform_gamma(p, q):
    width = p.high - p.low
    t2 = q.concentration.lgamma() - q.concentration * q.rate.log()
    t3 = (1 - q.concentration) * (_x_log_x(p.high) - _x_log_x(p.low) - width) / width
    result = -width.log() + t2 + t3 + q.rate * (p.high + p.low) / 2
    return _inf_where(p.low < 0.0, result)


@register_kl(Uniform, Gumbel)
def _kl_uniform_gumbel(p, q):
    common = q.scale / (p.high - p.low)
    high = (p.high - q.loc) / q.scale
    low = (p.low - q.loc) / q.scale
    return common.log() + 0.5 * (high + low) - common * (oneflow.exp(-high) - oneflow.exp(-low))


@register_kl(Uniform, Normal)
def _kl_uniform_normal(p, q):
    width = p.high - p.low
    t1 = (math.sqrt(math.pi * 2) * q.scale / width).log()
    t3 = ((p.high + p.low - 2 * q.loc) / 2).pow(2)
    return t1 + 0.5 * (width.pow(2) / 12 + t3) / q.scale.pow(2)


@register_kl(Uniform, Pareto)
def _kl_uniform_pareto(p, q):
    width = p.high - p.low
    t1 = (q.alpha * q.scale.pow(q.alpha) * width).log()
    t2 = (_x_log_x(p.high) - _x_log_x(p.low) - width) / width
    return _inf_where(p.low < q.scale, t2 * (q.alpha + 1) - t1)
