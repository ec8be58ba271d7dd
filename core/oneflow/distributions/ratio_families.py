"""Distributions on bounded or ratio scales built from others: FisherSnedecor (a ratio of
chi-squares), Kumaraswamy (a transformed uniform) and LogisticNormal (a normal stick-broken onto
the simplex)."""

from __future__ import annotations

import math
import numbers

import oneflow
from oneflow.distributions import _special, constraints
from oneflow.distributions.distribution import Distribution
from oneflow.distributions.gamma import Gamma
from oneflow.distributions.normal import Normal
from oneflow.distributions.structured_transforms import StickBreakingTransform
from oneflow.distributions.transformed_distribution import TransformedDistribution
from oneflow.distributions.transforms import AffineTransform, PowerTransform
from oneflow.distributions.uniform import Uniform
from oneflow.distributions.utils import broadcast_all

__all__ = ["FisherSnedecor", "Kumaraswamy", "LogisticNormal"]

_EULER = 0.57721566490153286060


class FisherSnedecor(Distribution):
    """An F distribution with ``df1`` and ``df2`` degrees of freedom.

    Args:
        df1 (float or Tensor): numerator degrees of freedom (> 0).
        df2 (float or Tensor): denominator degrees of freedom (> 0).
        validate_args (bool, optional): check the parameters and values.
    """

    arg_constraints = {"df1": constraints.positive, "df2": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, df1, df2, validate_args=None):
        self.df1, self.df2 = broadcast_all(df1, df2)
        self._gamma1 = Gamma(self.df1 * 0.5, self.df1)
        self._gamma2 = Gamma(self.df2 * 0.5, self.df2)
        if isinstance(df1, numbers.Number) and isinstance(df2, numbers.Number):
            batch_shape = oneflow.Size()
        else:
            batch_shape = self.df1.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(FisherSnedecor, _instance)
        batch_shape = oneflow.Size(tuple(batch_shape))
        new.df1 = self.df1.expand(batch_shape)
        new.df2 = self.df2.expand(batch_shape)
        new._gamma1 = self._gamma1.expand(batch_shape)
        new._gamma2 = self._gamma2.expand(batch_shape)
        super(FisherSnedecor, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        df2 = oneflow.where(self.df2 <= 2, oneflow.full_like(self.df2, math.nan), self.df2)
        return df2 / (df2 - 2)

    @property
    def mode(self):
        mode = (self.df1 - 2) / self.df1 * self.df2 / (self.df2 + 2)
        return oneflow.where(self.df1 <= 2, oneflow.full_like(mode, math.nan), mode)

    @property
    def variance(self):
        df2 = oneflow.where(self.df2 <= 4, oneflow.full_like(self.df2, math.nan), self.df2)
        return 2 * df2.pow(2) * (self.df1 + df2 - 2) / (self.df1 * (df2 - 2).pow(2) * (df2 - 4))

    def rsample(self, sample_shape=()):
        tiny = oneflow.finfo(self.df1.dtype).tiny
        x1 = self._gamma1.rsample(sample_shape)
        x2 = self._gamma2.rsample(sample_shape).clamp(min=tiny)
        return (x1 / x2).clamp(min=tiny)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        ct1 = self.df1 * 0.5
        ct2 = self.df2 * 0.5
        ct3 = self.df1 / self.df2
        t1 = (ct1 + ct2).lgamma() - ct1.lgamma() - ct2.lgamma()
        t2 = ct1 * ct3.log() + (ct1 - 1) * oneflow.log(value)
        t3 = (ct1 + ct2) * oneflow.log1p(ct3 * value)
        return t1 + t2 - t3


def _kumaraswamy_moment(a, b, n: int):
    arg1 = 1 + n / a
    return b * oneflow.exp(oneflow.lgamma(arg1) + oneflow.lgamma(b) - oneflow.lgamma(arg1 + b))


class Kumaraswamy(TransformedDistribution):
    """A Kumaraswamy distribution on [0, 1]: ``(1 - U ** (1 / b)) ** (1 / a)`` for a uniform
    ``U``; like a Beta, with a closed-form CDF.

    Args:
        concentration1 (float or Tensor): a (> 0).
        concentration0 (float or Tensor): b (> 0).
        validate_args (bool, optional): check the parameters and values.
    """

    arg_constraints = {"concentration1": constraints.positive, "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None):
        self.concentration1, self.concentration0 = broadcast_all(concentration1, concentration0)
        base = Uniform(
            oneflow.full_like(self.concentration0, 0), oneflow.full_like(self.concentration0, 1), validate_args=False
        )
        transforms = [
            PowerTransform(exponent=self.concentration0.reciprocal()),
            AffineTransform(loc=1.0, scale=-1.0),
            PowerTransform(exponent=self.concentration1.reciprocal()),
        ]
        super().__init__(base, transforms, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Kumaraswamy, _instance)
        new.concentration1 = self.concentration1.expand(tuple(batch_shape))
        new.concentration0 = self.concentration0.expand(tuple(batch_shape))
        return super().expand(batch_shape, _instance=new)

    @property
    def mean(self):
        return _kumaraswamy_moment(self.concentration1, self.concentration0, 1)

    @property
    def mode(self):
        a, b = self.concentration1, self.concentration0
        log_mode = b.reciprocal() * (-b).log1p() - (-b * a).log1p()
        log_mode = oneflow.where((b < 1) | (a < 1), oneflow.full_like(log_mode, math.nan), log_mode)
        return log_mode.exp()

    @property
    def variance(self):
        return _kumaraswamy_moment(self.concentration1, self.concentration0, 2) - self.mean.pow(2)

    def entropy(self):
        t1 = 1 - self.concentration1.reciprocal()
        t0 = 1 - self.concentration0.reciprocal()
        h0 = _special.digamma(self.concentration0 + 1) + _EULER
        return t0 + t1 * h0 - oneflow.log(self.concentration1) - oneflow.log(self.concentration0)


class LogisticNormal(TransformedDistribution):
    """A logistic-normal distribution on the simplex: a Normal of ``K - 1`` coordinates mapped
    by stick breaking onto ``K`` components.

    Args:
        loc (float or Tensor): the mean of the underlying Normal.
        scale (float or Tensor): its standard deviation (> 0).
        validate_args (bool, optional): check the parameters and values.
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        base = Normal(loc, scale, validate_args=validate_args)
        if not base.batch_shape:
            base = base.expand([1])
        super().__init__(base, StickBreakingTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LogisticNormal, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def loc(self):
        return self.base_dist.base_dist.loc

    @property
    def scale(self):
        return self.base_dist.base_dist.scale
