"""The von Mises distribution on the circle."""

from __future__ import annotations

import math

import oneflow
from oneflow.distributions import constraints
from oneflow.distributions.distribution import Distribution
from oneflow.distributions.utils import broadcast_all, lazy_property

__all__ = ["VonMises"]

# Polynomial approximations of the modified Bessel functions I0 and I1 (Abramowitz and Stegun,
# 9.8.1 to 9.8.4): in (x / 3.75)^2 below 3.75, in 3.75 / x (times e^x / sqrt(x)) above.
_BESSEL_SMALL = {
    0: [1.0, 3.5156229, 3.0899424, 1.2067492, 0.2659732, 0.360768e-1, 0.45813e-2],
    1: [0.5, 0.87890594, 0.51498869, 0.15084934, 0.2658733e-1, 0.301532e-2, 0.32411e-3],
}
_BESSEL_LARGE = {
    0: [0.39894228, 0.1328592e-1, 0.225319e-2, -0.157565e-2, 0.916281e-2, -0.2057706e-1, 0.2635537e-1,
        -0.1647633e-1, 0.392377e-2],
    1: [0.39894228, -0.3988024e-1, -0.362018e-2, 0.163801e-2, -0.1031555e-1, 0.2282967e-1, -0.2895312e-1,
        0.1787654e-1, -0.420059e-2],
}  # fmt: skip


def _horner(y, coefficients):
    result = coefficients[-1]
    for c in reversed(coefficients[:-1]):
        result = c + y * result
    return result


def _log_bessel_i(x, order: int):
    """log I_order(x) for x > 0 and order 0 or 1."""
    y = (x / 3.75) ** 2
    small = _horner(y, _BESSEL_SMALL[order])
    if order == 1:
        small = x.abs() * small
    large = x - 0.5 * x.log() + _horner(3.75 / x, _BESSEL_LARGE[order]).log()
    return oneflow.where(x < 3.75, small.log(), large)


class VonMises(Distribution):
    """A circular von Mises distribution with mean direction ``loc`` (radians) and concentration
    ``concentration``. Values and ``loc`` may be any real numbers, read modulo 2 pi; samples lie in
    [-pi, pi). The mean and variance are the circular ones.

    Args:
        loc (Tensor): the mean direction.
        concentration (Tensor): the concentration kappa (> 0).
        validate_args (bool, optional): check the parameters and values.
    """

    arg_constraints = {"loc": constraints.real, "concentration": constraints.positive}
    support = constraints.real
    has_rsample = False

    def __init__(self, loc, concentration, validate_args=None):
        self.loc, self.concentration = broadcast_all(loc, concentration)
        super().__init__(self.loc.shape, oneflow.Size(), validate_args)

    def expand(self, batch_shape, _instance=None):
        validate_args = self.__dict__.get("_validate_args")
        batch_shape = tuple(batch_shape)
        return type(self)(self.loc.expand(batch_shape), self.concentration.expand(batch_shape), validate_args)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        log_prob = self.concentration * oneflow.cos(value - self.loc)
        return log_prob - math.log(2 * math.pi) - _log_bessel_i(self.concentration, 0)

    @lazy_property
    def _proposal_r(self):
        kappa = self.concentration.to(oneflow.float64)
        tau = 1 + (1 + 4 * kappa**2).sqrt()
        rho = (tau - (2 * tau).sqrt()) / (2 * kappa)
        return oneflow.where(kappa < 1e-5, 1 / kappa + kappa, (1 + rho**2) / (2 * rho))

    def sample(self, sample_shape=()):
        # Best and Fisher (1979) rejection sampling, in float64 (float32 stalls for tiny kappa)
        shape = tuple(self._extended_shape(sample_shape))
        with oneflow.no_grad():
            loc = self.loc.to(oneflow.float64).expand(shape)
            kappa = self.concentration.to(oneflow.float64).expand(shape)
            r = self._proposal_r.expand(shape)
            x = oneflow.zeros(shape, dtype=oneflow.float64, device=loc.device)
            done = oneflow.zeros(shape, dtype=oneflow.bool, device=loc.device)
            while not bool(done.all()):
                u1, u2, u3 = (oneflow.rand(shape, dtype=oneflow.float64, device=loc.device) for _ in range(3))
                z = oneflow.cos(math.pi * u1)
                f = (1 + r * z) / (r + z)
                c = kappa * (r - f)
                accept = ((c * (2 - c) - u2) > 0) | ((c / u2).log() + 1 - c >= 0)
                x = oneflow.where(accept & ~done, (u3 - 0.5).sign() * f.clamp(-1, 1).acos(), x)
                done = done | accept
            return ((x + math.pi + loc) % (2 * math.pi) - math.pi).to(self.loc.dtype)

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @lazy_property
    def variance(self):
        ratio = (_log_bessel_i(self.concentration, 1) - _log_bessel_i(self.concentration, 0)).exp()
        return 1 - ratio
