"""The Laplace and Cauchy distributions (location-scale families)."""

from __future__ import annotations

import math
import numbers

import oneflow
from oneflow.distributions import constraints
from oneflow.distributions.distribution import Distribution
from oneflow.distributions.utils import broadcast_all

__all__ = ["Cauchy", "Laplace"]


class _LocScale(Distribution):
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        if isinstance(loc, numbers.Number) and isinstance(scale, numbers.Number):
            batch_shape = oneflow.Size()
        else:
            batch_shape = self.loc.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(type(self), _instance)
        batch_shape = oneflow.Size(tuple(batch_shape))
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mode(self):
        return self.loc

    def _uniform(self, sample_shape, low: float):
        shape = tuple(self._extended_shape(sample_shape))
        finfo = oneflow.finfo(self.loc.dtype)
        return (
            oneflow.rand(shape, dtype=self.loc.dtype, device=self.loc.device) * (1 - low - finfo.eps) + low + finfo.eps
        )


class Laplace(_LocScale):
    """A Laplace distribution with location ``loc`` and scale ``scale``.

    Args:
        loc (float or Tensor): the mean.
        scale (float or Tensor): the scale (> 0).
        validate_args (bool, optional): check the parameters and values.
    """

    @property
    def mean(self):
        return self.loc

    @property
    def variance(self):
        return 2 * self.scale.pow(2)

    @property
    def stddev(self):
        return (2**0.5) * self.scale

    def rsample(self, sample_shape=()):
        u = self._uniform(sample_shape, -1.0)
        return self.loc - self.scale * u.sign() * oneflow.log1p(-u.abs())

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return -oneflow.log(2 * self.scale) - (value - self.loc).abs() / self.scale

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 - 0.5 * (value - self.loc).sign() * oneflow.expm1(-(value - self.loc).abs() / self.scale)

    def icdf(self, value):
        term = value - 0.5
        return self.loc - self.scale * term.sign() * oneflow.log1p(-2 * term.abs())

    def entropy(self):
        return 1 + oneflow.log(2 * self.scale)


class Cauchy(_LocScale):
    """A Cauchy (Lorentz) distribution with location ``loc`` and scale ``scale``; it has no mean
    or variance (they are NaN and infinity, as PyTorch's).

    Args:
        loc (float or Tensor): the mode (median).
        scale (float or Tensor): the half width at half maximum (> 0).
        validate_args (bool, optional): check the parameters and values.
    """

    @property
    def mean(self):
        return oneflow.full(tuple(self._extended_shape()), math.nan, dtype=self.loc.dtype, device=self.loc.device)

    @property
    def variance(self):
        return oneflow.full(tuple(self._extended_shape()), math.inf, dtype=self.loc.dtype, device=self.loc.device)

    def rsample(self, sample_shape=()):
        u = self._uniform(sample_shape, 0.0)
        return self.loc + self.scale * oneflow.tan(math.pi * (u - 0.5))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return -math.log(math.pi) - self.scale.log() - (((value - self.loc) / self.scale) ** 2).log1p()

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return oneflow.atan((value - self.loc) / self.scale) / math.pi + 0.5

    def icdf(self, value):
        return oneflow.tan(math.pi * (value - 0.5)) * self.scale + self.loc

    def entropy(self):
        return math.log(4 * math.pi) + self.scale.log()
