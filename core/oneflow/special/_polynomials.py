"""Classical orthogonal polynomials of a tensor degree ``n``: Chebyshev (T, U, V, W and their
shifted forms on [0, 1]), Hermite (H, He), Laguerre and Legendre. Elementwise, with PyTorch's
conventions: ``n`` is truncated to an integer, a negative degree gives 0, the trigonometric closed
forms of the Chebyshev polynomials are used inside (-1, 1) for larger degrees, and the three-term
recurrence elsewhere."""

from __future__ import annotations

import oneflow as _flow
from oneflow.special._common import where


def _recurrence(x, n, p0, p1, step, needed):
    """p_n(x) for each element from p_0, p_1 and p_{k+1} = step(k, p_{k-1}, p_k), run up to the
    largest degree among the elements where ``needed`` holds."""
    with _flow.no_grad():
        degrees = n[needed]
        top = int(degrees.max()) if degrees.numel() else 1
    result = where(n == 0, p0, p1)
    p, q = p0, p1
    for k in range(1, top):
        r = step(k, p, q)
        result = where(n == k + 1, r, result)
        p, q = q, r
    return result


def _sign(n):
    return where(_flow.remainder(n, 2) == 0, _flow.ones_like(n), -_flow.ones_like(n))


def chebyshev_t(x, n):
    ones = _flow.ones_like(x)
    inside = (_flow.abs(x) < 1) & (n > 6)
    rec = _recurrence(x, n, ones, x, lambda k, p, q: 2 * x * q - p, ~inside & (n >= 0))
    trig = _flow.cos(n * _flow.acos(_flow.clamp(x, -1.0, 1.0)))
    out = where(inside, trig, rec)
    out = where(_flow.abs(x) == 1, where(x > 0, ones, _sign(n)), out)
    return where(n < 0, _flow.zeros_like(x), out)


def chebyshev_u(x, n):
    ones = _flow.ones_like(x)
    inside = (_flow.abs(x) < 1) & (n > 8)
    rec = _recurrence(x, n, ones, 2 * x, lambda k, p, q: 2 * x * q - p, ~inside & (n >= 0))
    theta = _flow.acos(_flow.clamp(x, -1.0, 1.0))
    s = _flow.sin(theta)
    safe_s = where(s != 0, s, ones)
    trig = where(s != 0, _flow.sin((n + 1) * theta) / safe_s, (n + 1) * _flow.cos((n + 1) * theta) / x)
    out = where(inside, trig, rec)
    out = where(_flow.abs(x) == 1, where(x > 0, n + 1, _sign(n) * (n + 1)), out)
    return where(n < 0, _flow.zeros_like(x), out)


def chebyshev_v(x, n):
    ones = _flow.ones_like(x)
    inside = (_flow.abs(x) < 1) & (n > 8)
    rec = _recurrence(x, n, ones, 2 * x - 1, lambda k, p, q: 2 * x * q - p, ~inside & (n >= 0))
    theta = _flow.acos(_flow.clamp(x, -1.0, 1.0))
    half_c = _flow.cos(theta / 2)
    edge = _flow.sin(theta / 2) == 1
    trig = where(edge, _sign(n) * (2 * n + 1), _flow.cos((n + 0.5) * theta) / where(edge, ones, half_c))
    out = where(inside, trig, rec)
    out = where(_flow.abs(x) == 1, where(x > 0, ones, _sign(n) * (2 * n + 1)), out)
    return where(n < 0, _flow.zeros_like(x), out)


def chebyshev_w(x, n):
    ones = _flow.ones_like(x)
    inside = (_flow.abs(x) < 1) & (n > 8)
    rec = _recurrence(x, n, ones, 2 * x + 1, lambda k, p, q: 2 * x * q - p, ~inside & (n >= 0))
    theta = _flow.acos(_flow.clamp(x, -1.0, 1.0))
    half_s = _flow.sin(theta / 2)
    edge = _flow.cos(theta / 2) == 1
    at_edge = where(x > 0, 2 * n + 1, _sign(n))
    trig = where(edge, at_edge, _flow.sin((n + 0.5) * theta) / where(edge, ones, half_s))
    out = where(inside, trig, rec)
    out = where(_flow.abs(x) == 1, where(x > 0, 2 * n + 1, _sign(n)), out)
    return where(n < 0, _flow.zeros_like(x), out)


def hermite_h(x, n):
    ones = _flow.ones_like(x)
    out = _recurrence(x, n, ones, 2 * x, lambda k, p, q: 2 * x * q - 2 * k * p, n >= 0)
    return where(n < 0, _flow.zeros_like(x), out)


def hermite_he(x, n):
    ones = _flow.ones_like(x)
    out = _recurrence(x, n, ones, x, lambda k, p, q: x * q - k * p, n >= 0)
    return where(n < 0, _flow.zeros_like(x), out)


def laguerre_l(x, n):
    ones = _flow.ones_like(x)
    out = _recurrence(x, n, ones, 1 - x, lambda k, p, q: ((2 * k + 1 - x) * q - k * p) / (k + 1), n >= 0)
    out = where(x == 0, ones, out)
    return where(n < 0, _flow.zeros_like(x), out)


def legendre_p(x, n):
    ones = _flow.ones_like(x)
    out = _recurrence(x, n, ones, x, lambda k, p, q: ((2 * k + 1) * x * q - k * p) / (k + 1), n >= 0)
    out = where(_flow.abs(x) == 1, where(x > 0, ones, _sign(n)), out)
    return where(n < 0, _flow.zeros_like(x), out)


POLYNOMIALS = {
    "chebyshev_polynomial_t": (chebyshev_t, False),
    "chebyshev_polynomial_u": (chebyshev_u, False),
    "chebyshev_polynomial_v": (chebyshev_v, False),
    "chebyshev_polynomial_w": (chebyshev_w, False),
    "shifted_chebyshev_polynomial_t": (chebyshev_t, True),
    "shifted_chebyshev_polynomial_u": (chebyshev_u, True),
    "shifted_chebyshev_polynomial_v": (chebyshev_v, True),
    "shifted_chebyshev_polynomial_w": (chebyshev_w, True),
    "hermite_polynomial_h": (hermite_h, False),
    "hermite_polynomial_he": (hermite_he, False),
    "laguerre_polynomial_l": (laguerre_l, False),
    "legendre_polynomial_p": (legendre_p, False),
}
