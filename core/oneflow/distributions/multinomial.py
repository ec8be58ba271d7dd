"""Count vectors and count-valued mixtures: Multinomial and NegativeBinomial."""

from __future__ import annotations

import oneflow
from oneflow.distributions import constraints
from oneflow.distributions.categorical import Categorical
from oneflow.distributions.discrete import Binomial, _sample_poisson
from oneflow.distributions.distribution import Distribution
from oneflow.distributions.gamma import Gamma
from oneflow.distributions.utils import broadcast_all, lazy_property, logits_to_probs, probs_to_logits

__all__ = ["Multinomial", "NegativeBinomial"]


class Multinomial(Distribution):
    """The counts of each of ``K`` categories in ``total_count`` independent categorical draws.

    Args:
        total_count (int): the number of draws (one number for the whole batch).
        probs (Tensor): event probabilities (normalized along the last dimension).
        logits (Tensor): event log-probabilities (unnormalized).
        validate_args (bool, optional): check the parameters and values.
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}

    def __init__(self, total_count: int = 1, probs=None, logits=None, validate_args=None):
        if not isinstance(total_count, int):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        self._categorical = Categorical(probs=probs, logits=logits)
        self._binomial = Binomial(total_count=total_count, probs=self.probs)
        batch_shape = self._categorical.batch_shape
        event_shape = self._categorical.param_shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Multinomial, _instance)
        batch_shape = oneflow.Size(tuple(batch_shape))
        new.total_count = self.total_count
        new._categorical = self._categorical.expand(batch_shape)
        new._binomial = Binomial(total_count=self.total_count, probs=new._categorical.probs)
        super(Multinomial, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property(is_discrete=True, event_dim=1)
    def support(self):
        return constraints.multinomial(self.total_count)

    @property
    def logits(self):
        return self._categorical.logits

    @property
    def probs(self):
        return self._categorical.probs

    @property
    def param_shape(self):
        return self._categorical.param_shape

    @property
    def mean(self):
        return self.probs * self.total_count

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape=()):
        sample_shape = tuple(sample_shape)
        k = self._categorical._num_events
        with oneflow.no_grad():
            draws = self._categorical.sample((self.total_count,) + sample_shape)
            one_hot = oneflow.nn.functional.one_hot(draws, k).to(self.probs.dtype)
            if self.total_count == 0:
                return oneflow.zeros(
                    tuple(self._extended_shape(sample_shape)), dtype=self.probs.dtype, device=self.probs.device
                )
            return one_hot.sum(0)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        log_factorial_n = oneflow.lgamma(value.sum(-1) + 1)
        log_factorial_xs = oneflow.lgamma(value + 1).sum(-1)
        # a category of probability 0 counted 0 times contributes 0, not 0 * -inf
        logits = oneflow.where((value == 0) & oneflow.isinf(logits), oneflow.zeros_like(logits), logits)
        return log_factorial_n - log_factorial_xs + (logits * value).sum(-1)

    def entropy(self):
        n = oneflow.tensor(float(self.total_count), dtype=self.probs.dtype, device=self.probs.device)
        term1 = n * self._categorical.entropy() - oneflow.lgamma(n + 1)
        support = self._binomial.enumerate_support(expand=False)[1:]
        binomial_probs = oneflow.exp(self._binomial.log_prob(support))
        weights = oneflow.lgamma(support + 1)
        term2 = (binomial_probs * weights).sum(0).sum(-1)
        return term1 + term2


class NegativeBinomial(Distribution):
    """The number of successes before ``total_count`` failures, each trial succeeding with
    probability ``probs``. Give exactly one of ``probs`` and ``logits``.

    Args:
        total_count (float or Tensor): the number of failures (> 0; need not be an integer).
        probs (Tensor): the success probability, in [0, 1).
        logits (Tensor): the success log-odds.
        validate_args (bool, optional): check the parameters and values.
    """

    arg_constraints = {
        "total_count": constraints.greater_than_eq(0),
        "probs": constraints.half_open_interval(0.0, 1.0),
        "logits": constraints.real,
    }
    support = constraints.nonnegative_integer

    def __init__(self, total_count, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            self.total_count, self.probs = broadcast_all(total_count, probs)
            self.total_count = self.total_count.to(self.probs.dtype)
        else:
            self.total_count, self.logits = broadcast_all(total_count, logits)
            self.total_count = self.total_count.to(self.logits.dtype)
        self._param = self.probs if probs is not None else self.logits
        super().__init__(self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(NegativeBinomial, _instance)
        batch_shape = oneflow.Size(tuple(batch_shape))
        new.total_count = self.total_count.expand(batch_shape)
        if "probs" in self.__dict__:
            new.probs = self.probs.expand(batch_shape)
            new._param = new.probs
        if "logits" in self.__dict__:
            new.logits = self.logits.expand(batch_shape)
            new._param = new.logits
        super(NegativeBinomial, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return self.total_count * oneflow.exp(self.logits)

    @property
    def mode(self):
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)

    @property
    def variance(self):
        return self.mean / oneflow.sigmoid(-self.logits)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self):
        return self._param.size()

    def sample(self, sample_shape=()):
        # a Poisson whose rate is Gamma(total_count, odds) distributed
        with oneflow.no_grad():
            rate = Gamma(self.total_count, oneflow.exp(-self.logits), validate_args=False).sample(sample_shape)
            return _sample_poisson(rate)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logsigmoid = oneflow.nn.functional.logsigmoid
        log_unnormalized_prob = self.total_count * logsigmoid(-self.logits) + value * logsigmoid(self.logits)
        log_normalization = (
            -oneflow.lgamma(self.total_count + value) + oneflow.lgamma(1.0 + value) + oneflow.lgamma(self.total_count)
        )
        zero = self.total_count + value == 0.0
        log_normalization = oneflow.where(zero, oneflow.zeros_like(log_normalization), log_normalization)
        return log_unnormalized_prob - log_normalization
