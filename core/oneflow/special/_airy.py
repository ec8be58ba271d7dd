"""The Airy function Ai in float64 from tensor ops.

Around 0 (-3 <= x <= 1.5) the Maclaurin series Ai = c1 f(x) - c2 g(x). For x > 1.5,
Ai(x) = sqrt(x / 3) K_{1/3}(zeta) / pi with zeta = 2/3 x^(3/2), K by the trapezoidal rule of
``_bessel``. For x < -3, Ai(x) = sqrt(-x) (J_{1/3}(zeta) + J_{-1/3}(zeta)) / 3 (A&S 10.4.15), the J
of fractional order by Miller's backward recurrence normalized with Gegenbauer's sum
(z/2)^nu = sum_k (nu + 2k) Gamma(nu + k) / k! J_{nu+2k}(z) for zeta <= 25, Hankel's expansion beyond.
"""

from __future__ import annotations

import math

import oneflow as _flow
from oneflow.special._bessel import jy_hankel, k_scaled_trapezoid
from oneflow.special._common import where

_AI0 = 0.355028053887817239260  # Ai(0)
_DAI0 = 0.258819403792806798405  # -Ai'(0)
_START = 70


def _series(x):
    cube = x * x * x
    f = _flow.ones_like(x)
    g = x
    tf, tg = f, g
    for k in range(1, 40):
        tf = tf * cube / ((3 * k - 1) * (3 * k))
        tg = tg * cube / ((3 * k) * (3 * k + 1))
        f = f + tf
        g = g + tg
    return _AI0 * f - _DAI0 * g


def _j_fractional(z, nu: float):
    """(J_nu(z), J_{nu+1}(z)) for 2 <= z <= 25 and 0 < nu < 1."""
    weights = [math.gamma(nu + k) / math.factorial(k) for k in range(_START // 2 + 1)]
    upper = _flow.zeros_like(z)
    current = _flow.full_like(z, 1e-250)
    norm = _flow.zeros_like(z)
    for n in range(_START, 0, -1):
        if n % 2 == 0:
            norm = norm + (nu + n) * weights[n // 2] * current
        lower = 2 * (nu + n) / z * current - upper
        upper, current = current, lower
    norm = norm + nu * weights[0] * current
    scale = _flow.pow(z / 2, nu) / norm
    return current * scale, upper * scale


def _negative(z):
    """Ai(-z) for z >= 3."""
    zeta = 2.0 / 3.0 * z * _flow.sqrt(z)
    zm = _flow.clamp(zeta, max=25.0)
    j_third, _ = _j_fractional(zm, 1.0 / 3.0)
    j_two_thirds, j_five_thirds = _j_fractional(zm, 2.0 / 3.0)
    j_minus_third = 4.0 / (3.0 * zm) * j_two_thirds - j_five_thirds
    middle = j_third + j_minus_third
    zl = _flow.clamp(zeta, min=25.0)
    large = jy_hankel(zl, 1.0 / 3.0)[0] + jy_hankel(zl, -1.0 / 3.0)[0]
    return _flow.sqrt(z) / 3 * where(zeta <= 25, middle, large)


def airy_ai(x):
    xs = _flow.clamp(x, min=-3.0, max=1.5)
    xp = _flow.clamp(x, min=1.5)
    zeta = 2.0 / 3.0 * xp * _flow.sqrt(xp)
    positive = _flow.sqrt(xp / 3) / math.pi * k_scaled_trapezoid(zeta, 1.0 / 3.0) * _flow.exp(-zeta)
    negative = _negative(_flow.clamp(-x, min=3.0))
    out = where(x > 1.5, positive, where(x < -3, negative, _series(xs)))
    return where(_flow.isinf(x), _flow.full_like(x, math.nan), out)
