"""Bessel functions of integer order 0 and 1, computed in float64 from tensor ops.

- I0, I1 (and their exp-scaled forms): the power series (positive terms) for |x| <= 20, the
  large-argument expansion e^x / sqrt(2 pi x) * sum (-1)^k a_k(nu) / x^k beyond.
- K0, K1: the series around 0 for x <= 2; beyond, the trapezoidal rule on
  K_nu(x) e^x = x^-1/2 int_R exp(-x (cosh(u / sqrt x) - 1)) cosh(nu u / sqrt x) du / 2, which
  converges exponentially fast in the step for an integrand analytic in a strip.
- J0, J1, Y0, Y1: series for x <= 1; Miller's backward recurrence with the Neumann sums for Y on
  (1, 25]; Hankel's expansion for x > 25.

The coefficients a_k(nu) = prod_{j<=k} (4 nu^2 - (2j - 1)^2) / (k! 8^k) are computed here.
"""

from __future__ import annotations

import math

import oneflow as _flow
from oneflow.special._common import horner, where

_EULER = 0.57721566490153286061


def asymptotic_coefficients(nu: float, terms: int) -> list:
    out = []
    for k in range(terms):
        p = 1.0
        for j in range(1, k + 1):
            p *= 4 * nu * nu - (2 * j - 1) ** 2
        out.append(p / (math.factorial(k) * 8.0**k))
    return out


_A = {nu: asymptotic_coefficients(nu, 30) for nu in (0, 1)}


# ---- modified Bessel functions of the first kind ----------------------------------------------


def _i_series(ax, nu: int):
    """I_nu(ax) by its power series, for 0 <= ax <= 20."""
    y = ax * ax / 4
    term = _flow.ones_like(ax) if nu == 0 else ax / 2
    total = term
    for k in range(1, 50):
        term = term * y / (k * (k + nu))
        total = total + term
    return total


def _i_scaled_asymptotic(ax, nu: int):
    """I_nu(ax) e^-ax for ax >= 20."""
    a = _A[nu][:28]
    signed = [c * (-1) ** k for k, c in enumerate(a)]
    return horner(signed, 1 / ax) / _flow.sqrt(2 * math.pi * ax)


def _modified_i(x, nu: int, scaled: bool):
    ax = _flow.abs(x)
    small = ax <= 20
    ax_small = _flow.clamp(ax, max=20.0)
    ax_large = _flow.clamp(ax, min=20.0)
    series = _i_series(ax_small, nu)
    if scaled:
        series = series * _flow.exp(-ax_small)
        large = _i_scaled_asymptotic(ax_large, nu)
    else:
        # e^x overflows past x = 709.78 though I itself is finite up to ~713; PyTorch's i0 and
        # i1 also give inf there.
        large = _i_scaled_asymptotic(ax_large, nu) * _flow.exp(ax_large)
    out = where(small, series, large)
    if nu == 1:
        out = where(x < 0, -out, out)
    # +-inf gives nan, as PyTorch's i0/i1 (Cephes' Chebyshev forms) do; i0e/i1e give 0 there.
    if scaled:
        return where(_flow.isinf(x), _flow.zeros_like(x) * _flow.sign(x), out)
    return where(_flow.isinf(x), _flow.full_like(x, math.nan), out)


def i0(x):
    return _modified_i(x, 0, False)


def i0e(x):
    return _modified_i(x, 0, True)


def i1(x):
    return _modified_i(x, 1, False)


def i1e(x):
    return _modified_i(x, 1, True)


# ---- modified Bessel functions of the second kind ---------------------------------------------

_TRAPEZOID_STEP = 0.25
_TRAPEZOID_NODES = [k * _TRAPEZOID_STEP for k in range(0, 60)]


def k_scaled_trapezoid(x, nu: float):
    """K_nu(x) e^x for x >= 1 (any real order nu)."""
    root = _flow.sqrt(x)
    total = _flow.zeros_like(x)
    for u in _TRAPEZOID_NODES:
        t = u / root
        s = _flow.sinh(t / 2)
        f = _flow.exp(-2 * x * s * s)
        if nu:
            f = f * _flow.cosh(nu * t)
        total = total + (f if u == 0 else 2 * f)
    return total * (_TRAPEZOID_STEP / 2) / root


def _k_series(x, nu: int):
    """K_nu(x) for 0 < x <= 2, from the series of A&S 9.6.11."""
    y = x * x / 4
    log_half = _flow.log(x / 2)
    if nu == 0:
        term = _flow.ones_like(x)
        harmonic = 0.0
        total = _flow.zeros_like(x)
        for k in range(1, 30):
            harmonic += 1.0 / k
            term = term * y / (k * k)
            total = total + harmonic * term
        return -(log_half + _EULER) * _i_series(x, 0) + total
    # psi(k + 1) + psi(k + 2) = -2 gamma + H_k + H_{k+1}
    term = _flow.ones_like(x)
    h_k, h_k1 = 0.0, 1.0
    total = term * (-2 * _EULER + h_k + h_k1)
    for k in range(1, 30):
        h_k += 1.0 / k
        h_k1 += 1.0 / (k + 1)
        term = term * y / (k * (k + 1))
        total = total + (-2 * _EULER + h_k + h_k1) * term
    return 1 / x + log_half * _i_series(x, 1) - x / 4 * total


def _modified_k(x, nu: int, scaled: bool):
    small = x <= 2
    xs = _flow.clamp(x, min=1e-300, max=2.0)
    xl = _flow.clamp(x, min=2.0)
    series = _k_series(xs, nu)
    if scaled:
        series = series * _flow.exp(xs)
        large = k_scaled_trapezoid(xl, nu)
    else:
        large = k_scaled_trapezoid(xl, nu) * _flow.exp(-xl)
    out = where(small, series, large)
    out = where(x == 0, _flow.full_like(x, math.inf), out)
    out = where(_flow.isinf(x) & (x > 0), _flow.zeros_like(x), out)
    return where(x < 0, _flow.full_like(x, math.nan), out)


def k0(x):
    return _modified_k(x, 0, False)


def k1(x):
    return _modified_k(x, 1, False)


def k0e(x):
    return _modified_k(x, 0, True)


def k1e(x):
    return _modified_k(x, 1, True)


# ---- Bessel functions of the first and second kind --------------------------------------------


def _jy_series(x):
    """J0, J1, Y0, Y1 for 0 < x <= 1 (A&S 9.1.10 and 9.1.11)."""
    y = -x * x / 4
    t0 = _flow.ones_like(x)  # y^k / (k!)^2
    t1 = _flow.ones_like(x)  # y^k / (k! (k+1)!)
    j0 = t0
    j1 = t1
    psi1 = -_EULER
    s0 = psi1 * t0  # sum psi(k+1) y^k / (k!)^2
    s1 = (2 * psi1 + 1) * t1  # sum (psi(k+1) + psi(k+2)) y^k / (k!(k+1)!)
    for k in range(1, 20):
        t0 = t0 * y / (k * k)
        t1 = t1 * y / (k * (k + 1))
        psi_k = psi1 + sum(1.0 / j for j in range(1, k + 1))
        psi_k1 = psi_k + 1.0 / (k + 1)
        j0 = j0 + t0
        j1 = j1 + t1
        s0 = s0 + psi_k * t0
        s1 = s1 + (psi_k + psi_k1) * t1
    j1 = j1 * x / 2
    log_half = _flow.log(x / 2)
    y0 = 2 / math.pi * (log_half * j0 - s0)
    y1 = -2 / (math.pi * x) + 2 / math.pi * log_half * j1 - x / (2 * math.pi) * s1
    return j0, j1, y0, y1


_MILLER_START = 70  # even; J_70(25) / J_0(25) ~ 1e-20, so the start's error is ~1e-40


def _jy_miller(x):
    """J0, J1, Y0, Y1 for 1 <= x <= 25 by backward recurrence, normalized by
    J0 + 2 sum J_2k = 1; Y0 and Y1 from Neumann's series in the J_n."""
    inv = 2 / x
    upper = _flow.zeros_like(x)  # b_{n+1}
    current = _flow.full_like(x, 1e-250)  # b_n, n = _MILLER_START
    norm = _flow.zeros_like(x)
    y0_sum = _flow.zeros_like(x)  # sum_{k>=1} (-1)^k b_2k / k
    y1_sum = _flow.zeros_like(x)  # sum_{k>=1} (-1)^k (b_{2k-1} - b_{2k+1}) / k
    b1 = None
    for n in range(_MILLER_START, 0, -1):
        if n % 2 == 0:
            k = n // 2
            sign = -1.0 if k % 2 else 1.0
            norm = norm + 2 * current
            y0_sum = y0_sum + sign * current / k
            # b_{2k+1} is `upper`; b_{2k-1} comes next and is added then
            y1_sum = y1_sum - sign * upper / k
        else:
            k = (n + 1) // 2
            sign = -1.0 if k % 2 else 1.0
            y1_sum = y1_sum + sign * current / k
        lower = n * inv * current - upper  # b_{n-1}
        upper, current = current, lower
        if n == 1:
            b1 = upper
    b0 = current
    norm = norm + b0
    j0 = b0 / norm
    j1 = b1 / norm
    log_term = _flow.log(x / 2) + _EULER
    y0 = 2 / math.pi * log_term * j0 - 4 / math.pi * y0_sum / norm
    y1 = -2 / math.pi * j0 / x + 2 / math.pi * log_term * j1 + 2 / math.pi * y1_sum / norm
    return j0, j1, y0, y1


def jy_hankel(x, nu: float):
    """J_nu and Y_nu for x >= 25 (any real order nu)."""
    a = _A[nu][:22] if nu in _A else asymptotic_coefficients(nu, 22)
    p = horner([(-1) ** (k // 2) * a[k] for k in range(0, 22, 2)], 1 / (x * x))
    q = horner([(-1) ** (k // 2) * a[k] for k in range(1, 22, 2)], 1 / (x * x)) / x
    phase = x - (0.25 + nu / 2) * math.pi
    c, s = _flow.cos(phase), _flow.sin(phase)
    scale = _flow.sqrt(2 / (math.pi * x))
    return scale * (p * c - q * s), scale * (p * s + q * c)


def _jy(x, which: str):
    ax = _flow.abs(x)
    xs = _flow.clamp(ax, min=1e-300, max=1.0)
    xm = _flow.clamp(ax, min=1.0, max=25.0)
    xl = _flow.clamp(ax, min=25.0)
    nu = int(which[1])
    series = _jy_series(xs)
    miller = _jy_miller(xm)
    idx = {"j0": 0, "j1": 1, "y0": 2, "y1": 3}[which]
    if which[0] == "j":
        large = jy_hankel(xl, nu)[0]
    else:
        large = jy_hankel(xl, nu)[1]
    out = where(ax <= 1, series[idx], where(ax <= 25, miller[idx], large))
    nan = _flow.full_like(x, math.nan)
    if which == "j0":
        out = where(x == 0, _flow.ones_like(x), out)
    elif which == "j1":
        out = where(x == 0, x, where(x < 0, -out, out))
    else:
        out = where(x == 0, _flow.full_like(x, -math.inf), where(x < 0, nan, out))
    return where(_flow.isinf(x), nan, out)


def j0(x):
    return _jy(x, "j0")


def j1(x):
    return _jy(x, "j1")


def y0(x):
    return _jy(x, "y0")


def y1(x):
    return _jy(x, "y1")
