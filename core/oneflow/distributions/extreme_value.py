"""Extreme-value and power-law distributions: Gumbel, Weibull and Pareto (transforms of simpler
ones) and the generalized Pareto."""

from __future__ import annotations

import math
import numbers

import oneflow
from oneflow.distributions import constraints
from oneflow.distributions.distribution import Distribution
from oneflow.distributions.gamma import Exponential
from oneflow.distributions.transformed_distribution import TransformedDistribution
from oneflow.distributions.transforms import AffineTransform, ExpTransform, PowerTransform
from oneflow.distributions.uniform import Uniform
from oneflow.distributions.utils import broadcast_all

__all__ = ["GeneralizedPareto", "Gumbel", "Pareto", "Weibull"]

_EULER = 0.57721566490153286060


class Gumbel(TransformedDistribution):
    """A Gumbel (type I extreme value) distribution: ``loc - scale * log(-log(U))``.

    Args:
        loc (float or Tensor): the location.
        scale (float or Tensor): the scale (> 0).
        validate_args (bool, optional): check the parameters and values.
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        finfo = oneflow.finfo(self.loc.dtype)
        base = Uniform(
            oneflow.full_like(self.loc, finfo.tiny), oneflow.full_like(self.loc, 1 - finfo.eps), validate_args=False
        )
        transforms = [
            ExpTransform().inv,
            AffineTransform(loc=0, scale=-oneflow.ones_like(self.scale)),
            ExpTransform().inv,
            AffineTransform(loc=self.loc, scale=-self.scale),
        ]
        super().__init__(base, transforms, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Gumbel, _instance)
        new.loc = self.loc.expand(tuple(batch_shape))
        new.scale = self.scale.expand(tuple(batch_shape))
        return super().expand(batch_shape, _instance=new)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        y = (self.loc - value) / self.scale
        return (y - y.exp()) - self.scale.log()

    @property
    def mean(self):
        return self.loc + self.scale * _EULER

    @property
    def mode(self):
        return self.loc

    @property
    def stddev(self):
        return (math.pi / math.sqrt(6)) * self.scale

    @property
    def variance(self):
        return self.stddev.pow(2)

    def entropy(self):
        return self.scale.log() + (1 + _EULER)


class Weibull(TransformedDistribution):
    """A two-parameter Weibull distribution: ``scale * E ** (1 / concentration)`` with
    ``E ~ Exponential(1)``.

    Args:
        scale (float or Tensor): the scale (lambda > 0).
        concentration (float or Tensor): the shape (k > 0).
        validate_args (bool, optional): check the parameters and values.
    """

    arg_constraints = {"scale": constraints.positive, "concentration": constraints.positive}
    support = constraints.positive

    def __init__(self, scale, concentration, validate_args=None):
        self.scale, self.concentration = broadcast_all(scale, concentration)
        self.concentration_reciprocal = self.concentration.reciprocal()
        base = Exponential(oneflow.ones_like(self.scale), validate_args=validate_args)
        transforms = [PowerTransform(exponent=self.concentration_reciprocal), AffineTransform(0, self.scale)]
        super().__init__(base, transforms, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Weibull, _instance)
        batch_shape = tuple(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        new.concentration = self.concentration.expand(batch_shape)
        new.concentration_reciprocal = new.concentration.reciprocal()
        base = self.base_dist.expand(batch_shape)
        transforms = [PowerTransform(exponent=new.concentration_reciprocal), AffineTransform(0, new.scale)]
        TransformedDistribution.__init__(new, base, transforms, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return self.scale * oneflow.exp(oneflow.lgamma(1 + self.concentration_reciprocal))

    @property
    def mode(self):
        return self.scale * ((self.concentration - 1) / self.concentration) ** self.concentration.reciprocal()

    @property
    def variance(self):
        return self.scale.pow(2) * (
            oneflow.exp(oneflow.lgamma(1 + 2 * self.concentration_reciprocal))
            - oneflow.exp(2 * oneflow.lgamma(1 + self.concentration_reciprocal))
        )

    def entropy(self):
        return (
            _EULER * (1 - self.concentration_reciprocal) + oneflow.log(self.scale * self.concentration_reciprocal) + 1
        )


class Pareto(TransformedDistribution):
    """A Pareto type I distribution: ``scale * exp(E)`` with ``E ~ Exponential(alpha)``.

    Args:
        scale (float or Tensor): the minimum value (> 0).
        alpha (float or Tensor): the tail index (> 0).
        validate_args (bool, optional): check the parameters and values.
    """

    arg_constraints = {"alpha": constraints.positive, "scale": constraints.positive}

    def __init__(self, scale, alpha, validate_args=None):
        self.scale, self.alpha = broadcast_all(scale, alpha)
        base = Exponential(self.alpha, validate_args=validate_args)
        super().__init__(base, [ExpTransform(), AffineTransform(loc=0, scale=self.scale)], validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Pareto, _instance)
        new.scale = self.scale.expand(tuple(batch_shape))
        new.alpha = self.alpha.expand(tuple(batch_shape))
        return super().expand(batch_shape, _instance=new)

    @property
    def mean(self):
        a = self.alpha.clamp(min=1)
        return a * self.scale / (a - 1)

    @property
    def mode(self):
        return self.scale

    @property
    def variance(self):
        a = self.alpha.clamp(min=2)
        return self.scale.pow(2) * a / ((a - 1).pow(2) * (a - 2))

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        return constraints.greater_than_eq(self.scale)

    def entropy(self):
        return (self.scale / self.alpha).log() + (1 + self.alpha.reciprocal())


class GeneralizedPareto(Distribution):
    """A generalized Pareto distribution (peaks over a threshold) with location ``loc``, scale
    ``scale`` and shape ``concentration`` (0 gives an exponential tail, < 0 a bounded support).

    Args:
        loc (float or Tensor): the location.
        scale (float or Tensor): the scale (> 0).
        concentration (float or Tensor): the shape xi.
        validate_args (bool, optional): check the parameters and values.
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive, "concentration": constraints.real}
    has_rsample = True

    def __init__(self, loc, scale, concentration, validate_args=None):
        self.loc, self.scale, self.concentration = broadcast_all(loc, scale, concentration)
        numbers_only = all(isinstance(v, numbers.Number) for v in (loc, scale, concentration))
        super().__init__(oneflow.Size() if numbers_only else self.loc.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(GeneralizedPareto, _instance)
        batch_shape = oneflow.Size(tuple(batch_shape))
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        new.concentration = self.concentration.expand(batch_shape)
        super(GeneralizedPareto, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _zero_and_safe(self):
        # xi == 0 is the exponential limit; elsewhere divide by a xi kept away from 0
        eq_zero = self.concentration.abs() <= 1e-8
        return eq_zero, oneflow.where(eq_zero, oneflow.ones_like(self.concentration), self.concentration)

    def rsample(self, sample_shape=()):
        u = oneflow.rand(tuple(self._extended_shape(sample_shape)), dtype=self.loc.dtype, device=self.loc.device)
        return self.icdf(u)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = (value - self.loc) / self.scale
        eq_zero, safe = self._zero_and_safe()
        y = 1 / safe + oneflow.ones_like(z)
        nonzero = oneflow.where(y == 0, y, y * oneflow.log1p(safe * z))
        return -self.scale.log() - oneflow.where(eq_zero, z, nonzero)

    def log_survival_function(self, value):
        """``log(1 - cdf(value))``."""
        if self._validate_args:
            self._validate_sample(value)
        z = (value - self.loc) / self.scale
        eq_zero, safe = self._zero_and_safe()
        return oneflow.where(eq_zero, -z, -oneflow.log1p(safe * z) / safe)

    def log_cdf(self, value):
        """``log(cdf(value))``."""
        return oneflow.log1p(-oneflow.exp(self.log_survival_function(value)))

    def cdf(self, value):
        return oneflow.exp(self.log_cdf(value))

    def icdf(self, value):
        eq_zero, safe = self._zero_and_safe()
        logu = oneflow.log1p(-value)
        nonzero = self.loc + self.scale / safe * oneflow.expm1(-safe * logu)
        return oneflow.where(eq_zero, self.loc - self.scale * logu, nonzero)

    @property
    def mean(self):
        valid = self.concentration < 1
        safe = oneflow.where(valid, self.concentration, oneflow.full_like(self.concentration, 0.5))
        result = self.loc + self.scale / (1 - safe)
        return oneflow.where(valid, result, oneflow.full_like(result, math.nan))

    @property
    def variance(self):
        valid = self.concentration < 0.5
        safe = oneflow.where(valid, self.concentration, oneflow.full_like(self.concentration, 0.25))
        result = self.scale**2 / ((1 - safe) ** 2 * (1 - 2 * safe))
        return oneflow.where(valid, result, oneflow.full_like(result, math.nan))

    def entropy(self):
        return (oneflow.log(self.scale) + self.concentration + 1).expand(tuple(self._batch_shape))

    @property
    def mode(self):
        return self.loc

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        lower = self.loc
        upper = oneflow.where(
            self.concentration < 0, lower - self.scale / self.concentration, oneflow.full_like(lower, math.inf)
        )
        return constraints.interval(lower, upper)
