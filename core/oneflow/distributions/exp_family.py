"""Exponential-family distributions: ``p(x) = h(x) exp(<t(x), theta> - F(theta))``."""

from __future__ import annotations

import oneflow
from oneflow.distributions.distribution import Distribution

__all__ = ["ExponentialFamily"]


class ExponentialFamily(Distribution):
    """Base class of exponential-family distributions. A subclass that gives
    ``_natural_params``, ``_log_normalizer`` and ``_mean_carrier_measure`` gets ``entropy`` (and
    the KL divergence to its own family) through the Bregman divergence of the log-normalizer."""

    @property
    def _natural_params(self):
        raise NotImplementedError

    def _log_normalizer(self, *natural_params):
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self):
        raise NotImplementedError

    def entropy(self):
        """The entropy, from the log-normalizer and its gradient."""
        result = -self._mean_carrier_measure
        nparams = [p.detach().requires_grad_() for p in self._natural_params]
        with oneflow.enable_grad():
            lg_normal = self._log_normalizer(*nparams)
            gradients = oneflow.autograd.grad(lg_normal.sum(), nparams, create_graph=True)
        result = result + lg_normal
        for np_, g in zip(nparams, gradients):
            result = result - (np_ * g).reshape(tuple(self._batch_shape) + (-1,)).sum(-1)
        return result
