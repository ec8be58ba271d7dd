"""Student's t distribution."""

from __future__ import annotations

import math

import oneflow
from oneflow.distributions import _special, constraints
from oneflow.distributions.distribution import Distribution
from oneflow.distributions.gamma import Chi2
from oneflow.distributions.utils import broadcast_all

__all__ = ["StudentT"]


class StudentT(Distribution):
    """Student's t distribution with ``df`` degrees of freedom, location ``loc`` and scale
    ``scale``; ``rsample`` is ``loc + scale * X / sqrt(Z / df)`` with ``X`` normal and ``Z``
    chi-squared (reparameterized through the Gamma).

    Args:
        df (float or Tensor): degrees of freedom (> 0).
        loc (float or Tensor): the location. Default: 0.
        scale (float or Tensor): the scale (> 0). Default: 1.
        validate_args (bool, optional): check the parameters and values.
    """

    arg_constraints = {"df": constraints.positive, "loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, df, loc=0.0, scale=1.0, validate_args=None):
        self.df, self.loc, self.scale = broadcast_all(df, loc, scale)
        self._chi2 = Chi2(self.df)
        super().__init__(self.df.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(StudentT, _instance)
        batch_shape = oneflow.Size(tuple(batch_shape))
        new.df = self.df.expand(batch_shape)
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        new._chi2 = self._chi2.expand(batch_shape)
        super(StudentT, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return oneflow.where(self.df <= 1, oneflow.full_like(self.loc, math.nan), self.loc)

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        finite = self.scale.pow(2) * self.df / (self.df - 2)
        result = oneflow.where(self.df > 2, finite, oneflow.full_like(finite, math.inf))
        return oneflow.where(self.df <= 1, oneflow.full_like(finite, math.nan), result)

    def rsample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        x = oneflow.randn(shape, dtype=self.df.dtype, device=self.df.device)
        z = self._chi2.rsample(sample_shape)
        return self.loc + self.scale * x * oneflow.rsqrt(z / self.df)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        y = (value - self.loc) / self.scale
        z = (
            self.scale.log()
            + 0.5 * self.df.log()
            + 0.5 * math.log(math.pi)
            + oneflow.lgamma(0.5 * self.df)
            - oneflow.lgamma(0.5 * (self.df + 1.0))
        )
        return -0.5 * (self.df + 1.0) * oneflow.log1p(y**2.0 / self.df) - z

    def entropy(self):
        lbeta = oneflow.lgamma(0.5 * self.df) + math.lgamma(0.5) - oneflow.lgamma(0.5 * (self.df + 1))
        return (
            self.scale.log()
            + 0.5 * (self.df + 1) * (_special.digamma(0.5 * (self.df + 1)) - _special.digamma(0.5 * self.df))
            + 0.5 * self.df.log()
            + lbeta
        )
