"""The Gamma distribution (and its special case, the Exponential)."""

from __future__ import annotations

import numbers

import oneflow
from oneflow.distributions import _special, constraints
from oneflow.distributions.exp_family import ExponentialFamily
from oneflow.distributions.utils import broadcast_all

__all__ = ["Chi2", "Exponential", "Gamma"]


class Gamma(ExponentialFamily):
    """A Gamma distribution with shape ``concentration`` and inverse scale ``rate``.

    ``rsample`` is reparameterized: the gradient with respect to ``concentration`` is the implicit
    one (the sample's quantile held fixed), as PyTorch's.

    Args:
        concentration (float or Tensor): shape parameter (alpha > 0).
        rate (float or Tensor): rate = 1 / scale (beta > 0).
        validate_args (bool, optional): check the parameters and values.
    """

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, concentration, rate, validate_args=None):
        self.concentration, self.rate = broadcast_all(concentration, rate)
        if isinstance(concentration, numbers.Number) and isinstance(rate, numbers.Number):
            batch_shape = oneflow.Size()
        else:
            batch_shape = self.concentration.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Gamma, _instance)
        batch_shape = oneflow.Size(tuple(batch_shape))
        new.concentration = self.concentration.expand(batch_shape)
        new.rate = self.rate.expand(batch_shape)
        super(Gamma, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return self.concentration / self.rate

    @property
    def mode(self):
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self):
        return self.concentration / self.rate.pow(2)

    def rsample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        value = _special.standard_gamma(self.concentration.expand(shape)) / self.rate.expand(shape)
        return value.clamp(min=oneflow.finfo(value.dtype).tiny)

    def log_prob(self, value):
        value = oneflow.as_tensor(value, dtype=self.rate.dtype)
        if self._validate_args:
            self._validate_sample(value)
        return (
            oneflow.xlogy(self.concentration, self.rate)
            + oneflow.xlogy(self.concentration - 1, value)
            - self.rate * value
            - oneflow.lgamma(self.concentration)
        )

    def entropy(self):
        c = self.concentration
        return c - oneflow.log(self.rate) + oneflow.lgamma(c) + (1.0 - c) * _special.digamma(c)

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return _special.gammainc(self.concentration, self.rate * value)

    @property
    def _natural_params(self):
        return (self.concentration - 1, -self.rate)

    def _log_normalizer(self, x, y):
        return oneflow.lgamma(x + 1) + (x + 1) * oneflow.log(-y.reciprocal())


class Exponential(ExponentialFamily):
    """An exponential distribution with rate ``rate`` (mean ``1 / rate``).

    Args:
        rate (float or Tensor): rate = 1 / scale (> 0).
        validate_args (bool, optional): check the parameters and values.
    """

    arg_constraints = {"rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, rate, validate_args=None):
        (self.rate,) = broadcast_all(rate)
        batch_shape = oneflow.Size() if isinstance(rate, numbers.Number) else self.rate.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Exponential, _instance)
        batch_shape = oneflow.Size(tuple(batch_shape))
        new.rate = self.rate.expand(batch_shape)
        super(Exponential, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return self.rate.reciprocal()

    @property
    def mode(self):
        return oneflow.zeros_like(self.rate)

    @property
    def stddev(self):
        return self.rate.reciprocal()

    @property
    def variance(self):
        return self.rate.pow(-2)

    def rsample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        u = oneflow.rand(shape, dtype=self.rate.dtype, device=self.rate.device).clamp(
            min=oneflow.finfo(self.rate.dtype).tiny
        )
        return -oneflow.log(u) / self.rate

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return self.rate.log() - self.rate * value

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 1 - oneflow.exp(-self.rate * value)

    def icdf(self, value):
        return -oneflow.log1p(-value) / self.rate

    def entropy(self):
        return 1.0 - oneflow.log(self.rate)

    @property
    def _natural_params(self):
        return (-self.rate,)

    def _log_normalizer(self, x):
        return -oneflow.log(-x)


class Chi2(Gamma):
    """A chi-squared distribution with ``df`` degrees of freedom: ``Gamma(df / 2, 1 / 2)``.

    Args:
        df (float or Tensor): degrees of freedom (> 0).
        validate_args (bool, optional): check the parameters and values.
    """

    arg_constraints = {"df": constraints.positive}

    def __init__(self, df, validate_args=None):
        df = df if isinstance(df, oneflow.Tensor) else oneflow.tensor(float(df), dtype=oneflow.get_default_dtype())
        super().__init__(0.5 * df, 0.5, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Chi2, _instance)
        return super().expand(batch_shape, new)

    @property
    def df(self):
        return self.concentration * 2
