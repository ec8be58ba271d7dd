"""Counting distributions: Poisson, Binomial and Geometric."""

from __future__ import annotations

import numbers

import oneflow
from oneflow.distributions import constraints
from oneflow.distributions.distribution import Distribution
from oneflow.distributions.exp_family import ExponentialFamily
from oneflow.distributions.utils import broadcast_all, lazy_property, logits_to_probs, probs_to_logits

__all__ = ["Binomial", "Geometric", "Poisson"]


def _sample_poisson(rate):
    """Poisson draws shaped as ``rate`` (float64 math): multiplying uniforms below rate 10,
    Hormann's transformed rejection (PTRS) above."""
    lam = rate.detach().to(oneflow.float64)
    result = oneflow.zeros_like(lam)
    small = lam < 10
    # small rates: count uniforms until their product drops below exp(-lam)
    limit = oneflow.exp(-lam)
    product = oneflow.ones_like(lam)
    count = oneflow.zeros_like(lam)
    active = small.clone()
    for _ in range(200):
        if not bool(active.any()):
            break
        product = product * oneflow.rand(lam.shape, dtype=oneflow.float64, device=lam.device)
        still = active & (product > limit)
        count = count + still.to(oneflow.float64)
        active = still
    result = oneflow.where(small, count, result)
    # large rates: PTRS
    lam_l = oneflow.where(small, oneflow.full_like(lam, 10.0), lam)
    slam, loglam = lam_l.sqrt(), lam_l.log()
    b = 0.931 + 2.53 * slam
    a = -0.059 + 0.02483 * b
    invalpha = 1.1239 + 1.1328 / (b - 3.4)
    vr = 0.9277 - 3.6224 / (b - 2)
    done = small.clone()
    for _ in range(100):
        if bool(done.all()):
            break
        u = oneflow.rand(lam.shape, dtype=oneflow.float64, device=lam.device) - 0.5
        v = oneflow.rand(lam.shape, dtype=oneflow.float64, device=lam.device)
        us = 0.5 - u.abs()
        k = oneflow.floor((2 * a / us + b) * u + lam_l + 0.43)
        quick = (us >= 0.07) & (v <= vr)
        valid = (k >= 0) & ~((us < 0.013) & (v > us))
        bound = -lam_l + k * loglam - oneflow.lgamma(k.clamp(min=0) + 1)
        slow = valid & (oneflow.log(v) + oneflow.log(invalpha) - oneflow.log(a / (us * us) + b) <= bound)
        accept = (quick | slow) & ~done
        result = oneflow.where(accept, k, result)
        done = done | accept
    return result.to(rate.dtype)


class Poisson(ExponentialFamily):
    """A Poisson distribution with mean ``rate``.

    Args:
        rate (Number or Tensor): the rate (>= 0).
        validate_args (bool, optional): check the parameters and values.
    """

    arg_constraints = {"rate": constraints.nonnegative}
    support = constraints.nonnegative_integer
    _mean_carrier_measure = None

    def __init__(self, rate, validate_args=None):
        (self.rate,) = broadcast_all(rate)
        batch_shape = oneflow.Size() if isinstance(rate, numbers.Number) else self.rate.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Poisson, _instance)
        batch_shape = oneflow.Size(tuple(batch_shape))
        new.rate = self.rate.expand(batch_shape)
        super(Poisson, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return self.rate

    @property
    def mode(self):
        return self.rate.floor()

    @property
    def variance(self):
        return self.rate

    def sample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        with oneflow.no_grad():
            return _sample_poisson(self.rate.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        rate, value = broadcast_all(self.rate, value)
        return oneflow.xlogy(value, rate) - rate - oneflow.lgamma(value + 1)

    @property
    def _natural_params(self):
        return (oneflow.log(self.rate),)

    def _log_normalizer(self, x):
        return oneflow.exp(x)


class Binomial(Distribution):
    """The number of successes in ``total_count`` independent trials of probability ``probs``.
    Give exactly one of ``probs`` and ``logits``.

    Args:
        total_count (int or Tensor): the number of trials.
        probs (Tensor): the success probability.
        logits (Tensor): the success log-odds.
        validate_args (bool, optional): check the parameters and values.
    """

    arg_constraints = {
        "total_count": constraints.nonnegative_integer,
        "probs": constraints.unit_interval,
        "logits": constraints.real,
    }
    has_enumerate_support = True

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
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
        new = self._get_checked_instance(Binomial, _instance)
        batch_shape = oneflow.Size(tuple(batch_shape))
        new.total_count = self.total_count.expand(batch_shape)
        if "probs" in self.__dict__:
            new.probs = self.probs.expand(batch_shape)
            new._param = new.probs
        if "logits" in self.__dict__:
            new.logits = self.logits.expand(batch_shape)
            new._param = new.logits
        super(Binomial, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        return constraints.integer_interval(0, self.total_count)

    @property
    def mean(self):
        return self.total_count * self.probs

    @property
    def mode(self):
        return ((self.total_count + 1) * self.probs).floor().clamp(max=self.total_count)

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

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
        shape = tuple(self._extended_shape(sample_shape))
        with oneflow.no_grad():
            n_max = int(self.total_count.max()) if self.total_count.numel() else 0
            probs = self.probs.expand(shape).unsqueeze(-1).expand(shape + (n_max,))
            trials = oneflow.bernoulli(probs)
            index = oneflow.arange(n_max, dtype=probs.dtype, device=probs.device)
            counted = trials * (index < self.total_count.expand(shape).unsqueeze(-1)).to(probs.dtype)
            return counted.sum(-1)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        log_factorial_n = oneflow.lgamma(self.total_count + 1)
        log_factorial_k = oneflow.lgamma(value + 1)
        log_factorial_nmk = oneflow.lgamma(self.total_count - value + 1)
        normalize_term = (
            self.total_count * self.logits.clamp(min=0)
            + self.total_count * oneflow.log1p(oneflow.exp(-self.logits.abs()))
            - log_factorial_n
        )
        return value * self.logits - log_factorial_k - log_factorial_nmk - normalize_term

    def entropy(self):
        total_count = int(self.total_count.max())
        if not int(self.total_count.min()) == total_count:
            raise NotImplementedError("Inhomogeneous total count not supported by `entropy`.")
        log_prob = self.log_prob(self.enumerate_support(False))
        return -(oneflow.exp(log_prob) * log_prob).sum(0)

    def enumerate_support(self, expand: bool = True):
        total_count = int(self.total_count.max())
        if not int(self.total_count.min()) == total_count:
            raise NotImplementedError("Inhomogeneous total count not supported by `enumerate_support`.")
        values = oneflow.arange(1 + total_count, dtype=self._param.dtype, device=self._param.device)
        values = values.reshape((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + tuple(self._batch_shape))
        return values


class Geometric(Distribution):
    """The number of failures before the first success in trials of probability ``probs``.
    Give exactly one of ``probs`` (in (0, 1]) and ``logits``.

    Args:
        probs (Number or Tensor): the success probability.
        logits (Number or Tensor): the success log-odds.
        validate_args (bool, optional): check the parameters and values.
    """

    arg_constraints = {"probs": constraints.interval(0.0, 1.0), "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            (self.probs,) = broadcast_all(probs)
        else:
            (self.logits,) = broadcast_all(logits)
        probs_or_logits = probs if probs is not None else logits
        if isinstance(probs_or_logits, numbers.Number):
            batch_shape = oneflow.Size()
        else:
            batch_shape = (self.probs if probs is not None else self.logits).size()
        super().__init__(batch_shape, validate_args=validate_args)
        if self._validate_args and probs is not None:
            value = self.probs
            if not bool((value > 0).all()):
                raise ValueError(
                    f"Expected parameter probs ({type(value).__name__} of shape {tuple(value.shape)}) of"
                    f" distribution {self!r} to satisfy the constraint"
                    f" {constraints.interval(0.0, 1.0)!r} and > 0, but found invalid values:\n{value}"
                )

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Geometric, _instance)
        batch_shape = oneflow.Size(tuple(batch_shape))
        if "probs" in self.__dict__:
            new.probs = self.probs.expand(batch_shape)
        if "logits" in self.__dict__:
            new.logits = self.logits.expand(batch_shape)
        super(Geometric, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return 1.0 / self.probs - 1.0

    @property
    def mode(self):
        return oneflow.zeros_like(self.probs)

    @property
    def variance(self):
        return (1.0 / self.probs - 1.0) / self.probs

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)

    def sample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        tiny = oneflow.finfo(self.probs.dtype).tiny
        with oneflow.no_grad():
            u = oneflow.rand(shape, dtype=self.probs.dtype, device=self.probs.device).clamp(min=tiny)
            return (u.log() / (-self.probs).log1p()).floor()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value, probs = broadcast_all(value, self.probs)
        probs = oneflow.where((probs == 1) & (value == 0), oneflow.zeros_like(probs), probs)
        return value * (-probs).log1p() + self.probs.log()

    def entropy(self):
        from oneflow.distributions.bernoulli import _bce_with_logits

        return _bce_with_logits(self.logits, self.probs) / self.probs
