"""The continuous Bernoulli distribution on [0, 1] (Loaiza-Ganem and Cunningham, 2019)."""

from __future__ import annotations

import math
import numbers

import oneflow
from oneflow.distributions import constraints
from oneflow.distributions.bernoulli import _bce_with_logits
from oneflow.distributions.exp_family import ExponentialFamily
from oneflow.distributions.utils import broadcast_all, clamp_probs, lazy_property, logits_to_probs, probs_to_logits

__all__ = ["ContinuousBernoulli"]


class ContinuousBernoulli(ExponentialFamily):
    """A continuous Bernoulli distribution: density proportional to ``p^x (1 - p)^(1 - x)`` on
    [0, 1]. Near ``p = 0.5`` (inside ``lims``) the normalizer and moments switch to Taylor
    expansions, where the closed forms lose precision.

    Args:
        probs (Number or Tensor): the parameter p, in (0, 1).
        logits (Number or Tensor): its log-odds.
        lims (tuple, optional): the interval around 0.5 that uses Taylor expansions.
        validate_args (bool, optional): check the parameters and values.
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    _mean_carrier_measure = 0
    has_rsample = True

    def __init__(self, probs=None, logits=None, lims=(0.499, 0.501), validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            is_scalar = isinstance(probs, numbers.Number)
            (self.probs,) = broadcast_all(probs)
            if validate_args is not None and not bool(self.arg_constraints["probs"].check(self.probs).all()):
                raise ValueError("The parameter probs has invalid values")
            self.probs = clamp_probs(self.probs)
        else:
            is_scalar = isinstance(logits, numbers.Number)
            (self.logits,) = broadcast_all(logits)
        self._param = self.probs if probs is not None else self.logits
        self._lims = lims
        super().__init__(oneflow.Size() if is_scalar else self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(ContinuousBernoulli, _instance)
        new._lims = self._lims
        batch_shape = oneflow.Size(tuple(batch_shape))
        if "probs" in self.__dict__:
            new.probs = self.probs.expand(batch_shape)
            new._param = new.probs
        if "logits" in self.__dict__:
            new.logits = self.logits.expand(batch_shape)
            new._param = new.logits
        super(ContinuousBernoulli, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _stable(self):
        return (self.probs <= self._lims[0]) | (self.probs > self._lims[1])

    def _cut_probs(self):
        return oneflow.where(self._stable(), self.probs, oneflow.full_like(self.probs, self._lims[0]))

    def _cont_bern_log_norm(self):
        cut = self._cut_probs()
        below = oneflow.where(cut <= 0.5, cut, oneflow.zeros_like(cut))
        above = oneflow.where(cut >= 0.5, cut, oneflow.ones_like(cut))
        log_norm = oneflow.log((oneflow.log1p(-cut) - oneflow.log(cut)).abs()) - oneflow.where(
            cut <= 0.5, oneflow.log1p(-2.0 * below), oneflow.log(2.0 * above - 1.0)
        )
        x = (self.probs - 0.5).pow(2)
        taylor = math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * x) * x
        return oneflow.where(self._stable(), log_norm, taylor)

    @property
    def mean(self):
        cut = self._cut_probs()
        mus = cut / (2.0 * cut - 1.0) + 1.0 / (oneflow.log1p(-cut) - oneflow.log(cut))
        x = self.probs - 0.5
        taylor = 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * x.pow(2)) * x
        return oneflow.where(self._stable(), mus, taylor)

    @property
    def stddev(self):
        return self.variance.sqrt()

    @property
    def variance(self):
        cut = self._cut_probs()
        variances = cut * (cut - 1.0) / (1.0 - 2.0 * cut).pow(2) + 1.0 / (oneflow.log1p(-cut) - oneflow.log(cut)).pow(2)
        x = (self.probs - 0.5).pow(2)
        taylor = 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * x) * x
        return oneflow.where(self._stable(), variances, taylor)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return clamp_probs(logits_to_probs(self.logits, is_binary=True))

    @property
    def param_shape(self):
        return self._param.size()

    def sample(self, sample_shape=()):
        u = oneflow.rand(tuple(self._extended_shape(sample_shape)), dtype=self.probs.dtype, device=self.probs.device)
        with oneflow.no_grad():
            return self.icdf(u)

    def rsample(self, sample_shape=()):
        u = oneflow.rand(tuple(self._extended_shape(sample_shape)), dtype=self.probs.dtype, device=self.probs.device)
        return self.icdf(u)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -_bce_with_logits(logits, value) + self._cont_bern_log_norm()

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        cut = self._cut_probs()
        cdfs = (cut.pow(value) * (1.0 - cut).pow(1.0 - value) + cut - 1.0) / (2.0 * cut - 1.0)
        unbounded = oneflow.where(self._stable(), cdfs, value)
        return oneflow.where(
            value <= 0.0, oneflow.zeros_like(value), oneflow.where(value >= 1.0, oneflow.ones_like(value), unbounded)
        )

    def icdf(self, value):
        cut = self._cut_probs()
        inverse = (oneflow.log1p(-cut + value * (2.0 * cut - 1.0)) - oneflow.log1p(-cut)) / (
            oneflow.log(cut) - oneflow.log1p(-cut)
        )
        return oneflow.where(self._stable(), inverse, value)

    def entropy(self):
        log_probs0 = oneflow.log1p(-self.probs)
        log_probs1 = oneflow.log(self.probs)
        return self.mean * (log_probs0 - log_probs1) - self._cont_bern_log_norm() - log_probs0

    @property
    def _natural_params(self):
        return (self.logits,)

    def _log_normalizer(self, x):
        stable = (x <= self._lims[0] - 0.5) | (x > self._lims[1] - 0.5)
        cut = oneflow.where(stable, x, oneflow.full_like(x, self._lims[0] - 0.5))
        log_norm = oneflow.log(oneflow.expm1(cut).abs()) - oneflow.log(cut.abs())
        taylor = 0.5 * x + x.pow(2) / 24.0 - x.pow(4) / 2880.0
        return oneflow.where(stable, log_norm, taylor)
