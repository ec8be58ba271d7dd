"""The normal distribution's and the gamma family's special functions in float64 from tensor ops:
erfcx, ndtr, log_ndtr, ndtri, entr, Hurwitz's zeta and the regularized incomplete gamma functions.
"""

from __future__ import annotations

import math
from fractions import Fraction

import oneflow as _flow
from oneflow.special._common import where

_EPS = 1.1102230246251565e-16
_SQRT2 = math.sqrt(2.0)
_INV_SQRT_PI = 1.0 / math.sqrt(math.pi)


# ---- erfcx and the normal distribution ---------------------------------------------------------


def _exp_square(x):
    """exp(x * x) with x * x split exactly (Dekker), so that the rounding of x * x is not
    magnified by the exponential for large |x|."""
    c = 134217729.0 * x
    hi = c - (c - x)
    lo = x - hi
    return _flow.exp(hi * hi) * _flow.exp(2 * hi * lo + lo * lo)


def erfcx(x):
    """exp(x^2) erfc(x): the product below 12, the asymptotic series beyond."""
    ax = _flow.abs(x)
    small = _flow.clamp(ax, max=12.0)
    direct = _exp_square(small) * _flow.erfc(small)
    big = _flow.clamp(ax, min=12.0)
    t = 1 / (2 * big * big)
    series = _flow.ones_like(big)
    term = _flow.ones_like(big)
    for k in range(1, 14):
        term = -term * (2 * k - 1) * t
        series = series + term
    asymptotic = series * _INV_SQRT_PI / big
    positive = where(ax <= 12, direct, asymptotic)
    negative = 2 * _exp_square(_flow.clamp(ax, max=27.0)) - positive
    negative = where(ax > 26.7, _flow.full_like(x, math.inf), negative)
    return where(x < 0, negative, positive)


def erfcx_grad(x, result):
    return 2 * x * result - 2 * _INV_SQRT_PI


def ndtr(x):
    return 0.5 * _flow.erfc(-x / _SQRT2)


def ndtr_grad(x, result):
    return _flow.exp(-x * x / 2) / math.sqrt(2 * math.pi)


def log_ndtr(x):
    lower = _flow.clamp(x, max=-1.0)
    tail = _flow.log(erfcx(-lower / _SQRT2) / 2) - lower * lower / 2
    upper = _flow.clamp(x, min=-1.0)
    body = _flow.log1p(-_flow.erfc(upper / _SQRT2) / 2)
    return where(x < -1, tail, body)


def log_ndtr_grad(x, result):
    return _flow.exp(-(result + x * x / 2)) / math.sqrt(2 * math.pi)


def ndtri(p):
    """The inverse of ndtr: a rational first guess (A&S 26.2.23) refined by Newton's method on
    log ndtr, which stays well scaled in the far tails."""
    q = where(p > 0.5, 1 - p, p)  # exact for p >= 0.5
    qc = _flow.clamp(q, min=1e-320, max=0.5)
    t = _flow.sqrt(-2 * _flow.log(qc))
    num = 2.515517 + 0.802853 * t + 0.010328 * t * t
    den = 1 + 1.432788 * t + 0.189269 * t * t + 0.001308 * t * t * t
    z = -(t - num / den)
    log_q = _flow.log(qc)
    for _ in range(5):
        ln = log_ndtr(z)
        slope = _flow.exp(-z * z / 2 - 0.5 * math.log(2 * math.pi) - ln)
        z = z - (ln - log_q) / slope
    z = where(q == 0.5, _flow.zeros_like(z), z)
    z = where(p > 0.5, -z, z)
    z = where(p == 0, _flow.full_like(p, -math.inf), where(p == 1, _flow.full_like(p, math.inf), z))
    return where((p < 0) | (p > 1) | _flow.isnan(p), _flow.full_like(p, math.nan), z)


def ndtri_grad(p, result):
    return math.sqrt(2 * math.pi) * _flow.exp(result * result / 2)


def entr(x):
    value = -x * _flow.log(_flow.clamp(x, min=1e-320))
    out = where(x > 0, value, where(x == 0, _flow.zeros_like(x), _flow.full_like(x, -math.inf)))
    return where(_flow.isnan(x), x, out)


def entr_grad(x, result):
    return -(_flow.log(x) + 1)


# ---- Hurwitz's zeta -----------------------------------------------------------------------------


def _bernoulli(count: int) -> list:
    """B_0 .. B_{count-1} (B_1 = -1/2), by the Akiyama-Tanigawa algorithm."""
    out, row = [], []
    for m in range(count):
        row.append(Fraction(1, m + 1))
        for j in range(m, 0, -1):
            row[j - 1] = j * (row[j - 1] - row[j])
        out.append(row[0])
    return out


_B = _bernoulli(26)
# (2k)! / B_2k, k = 1..12: the Euler-Maclaurin remainder's denominators.
_EM = [float(math.factorial(2 * k) / _B[2 * k]) for k in range(1, 13)]


def zeta(x, q):
    """Hurwitz's zeta sum_{k>=0} (k + q)^-x by direct summation up to q + n >= 9 and the
    Euler-Maclaurin remainder (the scheme of Cephes' zeta)."""
    with _flow.no_grad():
        finite = q[_flow.isfinite(q)]
        q_min = float(finite.min()) if finite.numel() else 0.0
    n = int(min(max(9, math.floor(9 - q_min) + 1), 100000))
    s = _flow.pow(q, -x)
    a = q
    b = s
    for _ in range(n):
        a = a + 1
        b = _flow.pow(a, -x)
        s = s + b
    w = a
    s = s + b * w / (x - 1) - 0.5 * b
    fac = _flow.ones_like(s)
    k = 0.0
    done = _flow.zeros_like(s, dtype=_flow.bool)
    for denominator in _EM:
        fac = fac * (x + k)
        b = b / w
        t = fac * b / denominator
        s = where(done, s, s + t)
        done = done | (_flow.abs(t / s) < _EPS)
        k += 1
        fac = fac * (x + k)
        b = b / w
        k += 1
    nan = _flow.full_like(s, math.nan)
    inf = _flow.full_like(s, math.inf)
    non_positive = q <= 0
    s = where(non_positive & (x != _flow.floor(x)), nan, s)
    s = where(non_positive & (q == _flow.floor(q)), inf, s)
    s = where(x < 1, nan, s)
    s = where(x == 1, inf, s)
    return where(_flow.isnan(x) | _flow.isnan(q), nan, s)


# ---- regularized incomplete gamma ---------------------------------------------------------------

_MAX_ITERATIONS = 5000


def _prefactor(a, x):
    """x^a e^-x / Gamma(a)."""
    return _flow.exp(a * _flow.log(x) - x - _flow.lgamma(a))


def _lower_series(a, x):
    """P(a, x) by its power series (for x <= max(a, 1))."""
    r = a
    c = _flow.ones_like(x)
    total = _flow.ones_like(x)
    for i in range(_MAX_ITERATIONS):
        r = r + 1
        c = c * x / r
        total = total + c
        if i % 16 == 15 and not bool((c > _EPS * total).any()):
            break
    return total * _prefactor(a, x) / a


def _upper_fraction(a, x):
    """Q(a, x) by Legendre's continued fraction (for x > max(a, 1))."""
    big, inv_big = 4503599627370496.0, 2.22044604925031308085e-16
    y = 1 - a
    z = x + y + 1
    c = _flow.zeros_like(x)
    pkm2 = _flow.ones_like(x)
    qkm2 = x
    pkm1 = x + 1
    qkm1 = z * x
    ans = pkm1 / qkm1
    for i in range(_MAX_ITERATIONS):
        c = c + 1
        y = y + 1
        z = z + 2
        yc = y * c
        pk = pkm1 * z - pkm2 * yc
        qk = qkm1 * z - qkm2 * yc
        nonzero = qk != 0
        r = pk / where(nonzero, qk, _flow.ones_like(qk))
        t = where(nonzero, _flow.abs((ans - r) / r), _flow.ones_like(r))
        ans = where(nonzero, r, ans)
        pkm2, pkm1, qkm2, qkm1 = pkm1, pk, qkm1, qk
        rescale = _flow.abs(pk) > big
        factor = where(rescale, _flow.full_like(pk, inv_big), _flow.ones_like(pk))
        pkm2, pkm1, qkm2, qkm1 = pkm2 * factor, pkm1 * factor, qkm2 * factor, qkm1 * factor
        if i % 16 == 15 and not bool((t > _EPS).any()):
            break
    return ans * _prefactor(a, x)


def _incomplete_gamma(a, x, upper: bool):
    a, x = _flow.broadcast_tensors(a, x)
    use_fraction = (x > 1) & (x > a)
    safe_a = where(a > 0, a, _flow.ones_like(a))
    safe_a = where(_flow.isfinite(safe_a), safe_a, _flow.ones_like(a))
    safe_x = where((x > 0) & _flow.isfinite(x), x, _flow.ones_like(x))
    with_series = _lower_series(safe_a, where(use_fraction, _flow.ones_like(x) * 0.5, safe_x))
    with_fraction = _upper_fraction(safe_a, where(use_fraction, safe_x, safe_a + 2))
    if upper:
        out = where(use_fraction, with_fraction, 1 - with_series)
    else:
        out = where(use_fraction, 1 - with_fraction, with_series)
    zero, one = _flow.zeros_like(out), _flow.ones_like(out)
    nan = _flow.full_like(out, math.nan)
    low, high = (one, zero) if upper else (zero, one)
    out = where(_flow.isinf(x), high, out)
    out = where(_flow.isinf(a), where(_flow.isinf(x), nan, low), out)
    out = where(x == 0, low, out)
    out = where(a == 0, where(x > 0, high, nan), out)
    return where((x < 0) | (a < 0) | _flow.isnan(a) | _flow.isnan(x), nan, out)


def gammainc(a, x):
    return _incomplete_gamma(a, x, False)


def gammaincc(a, x):
    return _incomplete_gamma(a, x, True)


def gammainc_grad_x(a, x):
    return _flow.exp((a - 1) * _flow.log(x) - x - _flow.lgamma(a))
