"""Distributions defined as transforms of others: LogNormal, HalfNormal, HalfCauchy and
InverseGamma."""

from __future__ import annotations

import math

import oneflow
from oneflow.distributions import _special, constraints
from oneflow.distributions.gamma import Gamma
from oneflow.distributions.laplace import Cauchy
from oneflow.distributions.normal import Normal
from oneflow.distributions.transformed_distribution import TransformedDistribution
from oneflow.distributions.transforms import AbsTransform, ExpTransform, PowerTransform

__all__ = ["HalfCauchy", "HalfNormal", "InverseGamma", "LogNormal"]


class LogNormal(TransformedDistribution):
    """The distribution of ``exp(X)`` for ``X ~ Normal(loc, scale)``.

    Args:
        loc (float or Tensor): the mean of the log.
        scale (float or Tensor): the standard deviation of the log (> 0).
        validate_args (bool, optional): check the parameters and values.
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        base_dist = Normal(loc, scale, validate_args=validate_args)
        super().__init__(base_dist, ExpTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LogNormal, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def loc(self):
        return self.base_dist.loc

    @property
    def scale(self):
        return self.base_dist.scale

    @property
    def mean(self):
        return (self.loc + self.scale.pow(2) / 2).exp()

    @property
    def mode(self):
        return (self.loc - self.scale.pow(2)).exp()

    @property
    def variance(self):
        scale_sq = self.scale.pow(2)
        return scale_sq.expm1() * (2 * self.loc + scale_sq).exp()

    def entropy(self):
        return self.base_dist.entropy() + self.loc


class _Folded(TransformedDistribution):
    """``|X|`` for ``X`` of a symmetric location-0 family ``_base(0, scale)``: twice the base's
    density on the non-negative half line."""

    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _base = None  # the family folded, set by each subclass

    def __init__(self, scale, validate_args=None):
        base_dist = self._base(0, scale, validate_args=False)
        super().__init__(base_dist, AbsTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        family = next(c for c in type(self).__mro__ if c.__dict__.get("_base") is not None)  # HalfNormal, ...
        new = self._get_checked_instance(family, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def scale(self):
        return self.base_dist.scale

    @property
    def mode(self):
        return oneflow.zeros_like(self.scale)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        log_prob = self.base_dist.log_prob(value) + math.log(2)
        return oneflow.where(value >= 0, log_prob, oneflow.full_like(log_prob, -math.inf))

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, prob):
        return self.base_dist.icdf((prob + 1) / 2)

    def entropy(self):
        return self.base_dist.entropy() - math.log(2)


class HalfNormal(_Folded):
    """The distribution of ``|X|`` for ``X ~ Normal(0, scale)``.

    Args:
        scale (float or Tensor): the scale of the underlying Normal (> 0).
        validate_args (bool, optional): check the parameters and values.
    """

    _base = Normal

    @property
    def mean(self):
        return self.scale * math.sqrt(2 / math.pi)

    @property
    def variance(self):
        return self.scale.pow(2) * (1 - 2 / math.pi)


class HalfCauchy(_Folded):
    """The distribution of ``|X|`` for ``X ~ Cauchy(0, scale)``.

    Args:
        scale (float or Tensor): the scale of the underlying Cauchy (> 0).
        validate_args (bool, optional): check the parameters and values.
    """

    _base = Cauchy

    @property
    def mean(self):
        return oneflow.full(tuple(self._extended_shape()), math.inf, dtype=self.scale.dtype, device=self.scale.device)

    @property
    def variance(self):
        return self.base_dist.variance


class InverseGamma(TransformedDistribution):
    """The distribution of ``1 / X`` for ``X ~ Gamma(concentration, rate)``.

    Args:
        concentration (float or Tensor): shape (> 0).
        rate (float or Tensor): scale of the inverse (> 0).
        validate_args (bool, optional): check the parameters and values.
    """

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, concentration, rate, validate_args=None):
        base_dist = Gamma(concentration, rate, validate_args=validate_args)
        neg_one = -oneflow.ones((), dtype=base_dist.rate.dtype, device=base_dist.rate.device)
        super().__init__(base_dist, PowerTransform(neg_one), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(InverseGamma, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def concentration(self):
        return self.base_dist.concentration

    @property
    def rate(self):
        return self.base_dist.rate

    @property
    def mean(self):
        result = self.rate / (self.concentration - 1)
        return oneflow.where(self.concentration > 1, result, oneflow.full_like(result, math.inf))

    @property
    def mode(self):
        return self.rate / (self.concentration + 1)

    @property
    def variance(self):
        result = self.rate.pow(2) / ((self.concentration - 1).pow(2) * (self.concentration - 2))
        return oneflow.where(self.concentration > 2, result, oneflow.full_like(result, math.inf))

    def entropy(self):
        c = self.concentration
        return c + self.rate.log() + c.lgamma() - (1 + c) * _special.digamma(c)
