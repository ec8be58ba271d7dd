"""The Dirichlet and Beta distributions."""

from __future__ import annotations

import numbers

import oneflow
from oneflow.distributions import _special, constraints
from oneflow.distributions.exp_family import ExponentialFamily

__all__ = ["Beta", "Dirichlet"]


class Dirichlet(ExponentialFamily):
    """A Dirichlet distribution on the simplex of ``K = concentration.size(-1)`` components.

    ``rsample`` normalizes reparameterized Gamma draws, so gradients flow to ``concentration``.

    Args:
        concentration (Tensor): concentration parameters (> 0), at least one-dimensional.
        validate_args (bool, optional): check the parameters and values.
    """

    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration, validate_args=None):
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        batch_shape, event_shape = concentration.shape[:-1], concentration.shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Dirichlet, _instance)
        batch_shape = oneflow.Size(tuple(batch_shape))
        new.concentration = self.concentration.expand(tuple(batch_shape) + tuple(self.event_shape))
        super(Dirichlet, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def rsample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        gammas = _special.standard_gamma(self.concentration.expand(shape))
        value = gammas / gammas.sum(-1, keepdim=True)
        tiny = oneflow.finfo(value.dtype).tiny
        return value.clamp(min=tiny, max=1 - oneflow.finfo(value.dtype).eps)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        c = self.concentration
        return oneflow.xlogy(c - 1.0, value).sum(-1) + oneflow.lgamma(c.sum(-1)) - oneflow.lgamma(c).sum(-1)

    @property
    def mean(self):
        return self.concentration / self.concentration.sum(-1, keepdim=True)

    @property
    def mode(self):
        cm1 = (self.concentration - 1).clamp(min=0.0)
        mode = cm1 / cm1.sum(-1, keepdim=True)
        # every concentration below 1: the density peaks at a vertex, the largest one's
        below_one = (self.concentration < 1).all(-1, keepdim=True)
        k = self.concentration.shape[-1]
        vertex = oneflow.nn.functional.one_hot(self.concentration.argmax(-1), k).to(mode.dtype)
        return oneflow.where(below_one, vertex, mode)

    @property
    def variance(self):
        con0 = self.concentration.sum(-1, keepdim=True)
        return self.concentration * (con0 - self.concentration) / (con0.pow(2) * (con0 + 1))

    def entropy(self):
        c = self.concentration
        k = c.size(-1)
        a0 = c.sum(-1)
        return (
            oneflow.lgamma(c).sum(-1)
            - oneflow.lgamma(a0)
            - (k - a0) * _special.digamma(a0)
            - ((c - 1.0) * _special.digamma(c)).sum(-1)
        )

    @property
    def _natural_params(self):
        return (self.concentration,)

    def _log_normalizer(self, x):
        return x.lgamma().sum(-1) - oneflow.lgamma(x.sum(-1))


class Beta(ExponentialFamily):
    """A Beta distribution on [0, 1] with shape parameters ``concentration1`` (alpha) and
    ``concentration0`` (beta).

    Args:
        concentration1 (float or Tensor): alpha (> 0).
        concentration0 (float or Tensor): beta (> 0).
        validate_args (bool, optional): check the parameters and values.
    """

    arg_constraints = {"concentration1": constraints.positive, "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None):
        if isinstance(concentration1, numbers.Number) and isinstance(concentration0, numbers.Number):
            both = oneflow.tensor([float(concentration1), float(concentration0)], dtype=oneflow.get_default_dtype())
        else:
            from oneflow.distributions.utils import broadcast_all

            concentration1, concentration0 = broadcast_all(concentration1, concentration0)
            both = oneflow.stack([concentration1, concentration0], -1)
        self._dirichlet = Dirichlet(both, validate_args=validate_args)
        super().__init__(self._dirichlet._batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Beta, _instance)
        batch_shape = oneflow.Size(tuple(batch_shape))
        new._dirichlet = self._dirichlet.expand(batch_shape)
        super(Beta, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return self.concentration1 / (self.concentration1 + self.concentration0)

    @property
    def mode(self):
        return self._dirichlet.mode[..., 0]

    @property
    def variance(self):
        total = self.concentration1 + self.concentration0
        return self.concentration1 * self.concentration0 / (total.pow(2) * (total + 1))

    def rsample(self, sample_shape=()):
        return self._dirichlet.rsample(sample_shape).select(-1, 0)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        heads_tails = oneflow.stack([value, 1.0 - value], -1)
        return self._dirichlet.log_prob(heads_tails)

    def entropy(self):
        return self._dirichlet.entropy()

    @property
    def concentration1(self):
        result = self._dirichlet.concentration[..., 0]
        return result

    @property
    def concentration0(self):
        return self._dirichlet.concentration[..., 1]

    @property
    def _natural_params(self):
        return (self.concentration1, self.concentration0)

    def _log_normalizer(self, x, y):
        return oneflow.lgamma(x) + oneflow.lgamma(y) - oneflow.lgamma(x + y)
