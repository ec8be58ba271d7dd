"""Special functions the distributions need beyond the op set: a differentiable digamma, and
Gamma sampling with implicit reparameterization gradients."""

from __future__ import annotations

import numpy as np

import oneflow
from oneflow.autograd import Function


def trigamma(x):
    """psi'(x) for x > 0, by shifting x up by 6 and the asymptotic series (error < 1e-12)."""
    total = oneflow.zeros_like(x)
    for k in range(6):
        total = total + 1.0 / (x + k) ** 2
    z = x + 6
    iz = 1.0 / z
    iz2 = iz * iz
    series = iz + iz2 / 2 + iz * iz2 * (1.0 / 6 - iz2 * (1.0 / 30 - iz2 * (1.0 / 42 - iz2 / 30)))
    return total + series


class _Digamma(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return oneflow.digamma(x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * trigamma(x)


def digamma(x):
    """psi(x), differentiable (its derivative is :func:`trigamma`)."""
    return _Digamma.apply(x)


def lbeta(a, b):
    """log B(a, b) = lgamma(a) + lgamma(b) - lgamma(a + b)."""
    return oneflow.lgamma(a) + oneflow.lgamma(b) - oneflow.lgamma(a + b)


def _lgamma(a: np.ndarray) -> np.ndarray:
    return oneflow.lgamma(oneflow.tensor(a, dtype=oneflow.float64)).numpy()


def _lower_gamma_regularized(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """P(a, x), the regularized lower incomplete gamma function, in float64 (series for
    x < a + 1, Lentz's continued fraction for Q = 1 - P otherwise)."""
    a, x = np.broadcast_arrays(np.asarray(a, np.float64), np.asarray(x, np.float64))
    shape = a.shape
    a, x = a.ravel(), x.ravel()
    out = np.zeros_like(x)
    positive = x > 0
    with np.errstate(divide="ignore", invalid="ignore", over="ignore", under="ignore"):
        series = np.nonzero(positive & (x < a + 1))[0]
        if series.size:
            sa, sx = a[series], x[series]
            term = 1.0 / sa
            total = term.copy()
            ap = sa.copy()
            for _ in range(1000):  # the terms shrink at least geometrically once n > x - a
                ap = ap + 1
                term = term * sx / ap
                total = total + term
                if np.all(np.abs(term) <= np.abs(total) * 1e-16):
                    break
            out[series] = np.exp(sa * np.log(sx) - sx - _lgamma(sa)) * total
        frac = np.nonzero(positive & (x >= a + 1))[0]
        if frac.size:
            fa, fx = a[frac], x[frac]
            tiny = 1e-300
            b = fx + 1 - fa
            c = np.full_like(fx, 1 / tiny)
            d = 1 / b
            h = d.copy()
            for i in range(1, 1000):
                an = -i * (i - fa)
                b = b + 2
                d = an * d + b
                d = 1 / np.where(np.abs(d) < tiny, tiny, d)
                c = b + an / c
                c = np.where(np.abs(c) < tiny, tiny, c)
                delta = d * c
                h = h * delta
                if np.all(np.abs(delta - 1) <= 1e-15):
                    break
            out[frac] = 1 - np.exp(fa * np.log(fx) - fx - _lgamma(fa)) * h
    return out.reshape(shape)


def standard_gamma_grad(alpha, x):
    """d x / d alpha for x ~ Gamma(alpha, 1) held at a fixed quantile (implicit
    reparameterization): ``-(dP/dalpha)(alpha, x) / pdf(x; alpha)``, the derivative of P taken
    by central differences of a float64 P."""
    a = alpha.detach().to(oneflow.float64).numpy()
    v = x.detach().to(oneflow.float64).numpy()
    a, v = np.broadcast_arrays(a, v)
    a, v = a.astype(np.float64).copy(), v.astype(np.float64).copy()
    h = 1e-5 * np.maximum(a, 1.0)
    dp = (_lower_gamma_regularized(a + h, v) - _lower_gamma_regularized(a - h, v)) / (2 * h)
    lg = _lgamma(a)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        log_pdf = (a - 1) * np.log(v) - v - lg
        grad = -dp / np.exp(log_pdf)
    grad = np.where(np.isfinite(grad), grad, 0.0)
    return oneflow.tensor(grad, dtype=x.dtype, device=x.device)


def _sample_standard_gamma(alpha):
    """Gamma(alpha, 1) draws shaped as ``alpha``, by Marsaglia and Tsang's method (alpha < 1 is
    boosted to alpha + 1 and scaled by U^(1/alpha))."""
    a = alpha.detach().to(oneflow.float64)
    boost = a < 1
    a1 = oneflow.where(boost, a + 1, a)
    d = a1 - 1.0 / 3
    c = 1.0 / oneflow.sqrt(9 * d)
    result = oneflow.zeros_like(a)
    done = oneflow.zeros(a.shape, dtype=oneflow.bool, device=a.device)
    for _ in range(100):  # each round accepts with probability > 0.95
        z = oneflow.randn(a.shape, dtype=oneflow.float64, device=a.device)
        u = oneflow.rand(a.shape, dtype=oneflow.float64, device=a.device)
        v = (1 + c * z) ** 3
        ok = (v > 0) & (oneflow.log(u) < 0.5 * z * z + d - d * v + d * oneflow.log(v.clamp(min=1e-300)))
        take = ok & ~done
        result = oneflow.where(take, d * v, result)
        done = done | ok
        if bool(done.all()):
            break
    u = oneflow.rand(a.shape, dtype=oneflow.float64, device=a.device)
    scale = oneflow.where(boost, u ** (1.0 / a), oneflow.ones_like(a))
    tiny = oneflow.finfo(alpha.dtype).tiny
    return (result * scale).clamp(min=tiny).to(alpha.dtype)


class _StandardGamma(Function):
    @staticmethod
    def forward(ctx, alpha):
        x = _sample_standard_gamma(alpha)
        ctx.save_for_backward(alpha, x)
        return x

    @staticmethod
    def backward(ctx, grad):
        alpha, x = ctx.saved_tensors
        return grad * standard_gamma_grad(alpha, x)


def standard_gamma(alpha):
    """Gamma(alpha, 1) draws shaped as ``alpha``, reparameterized: the gradient with respect to
    ``alpha`` is the implicit one (the sample's quantile held fixed)."""
    return _StandardGamma.apply(alpha)


class _GammaInc(Function):
    @staticmethod
    def forward(ctx, a, x):
        ctx.save_for_backward(a, x)
        an = a.detach().to(oneflow.float64).numpy()
        xn = x.detach().to(oneflow.float64).numpy()
        an, xn = np.broadcast_arrays(an, xn)
        p = _lower_gamma_regularized(an.astype(np.float64).copy(), xn.astype(np.float64).copy())
        return oneflow.tensor(p, dtype=x.dtype, device=x.device)

    @staticmethod
    def backward(ctx, grad):
        a, x = ctx.saved_tensors
        an = a.detach().to(oneflow.float64).numpy()
        xn = x.detach().to(oneflow.float64).numpy()
        an, xn = np.broadcast_arrays(an, xn)
        an, xn = an.astype(np.float64).copy(), xn.astype(np.float64).copy()
        h = 1e-5 * np.maximum(an, 1.0)
        da = (_lower_gamma_regularized(an + h, xn) - _lower_gamma_regularized(an - h, xn)) / (2 * h)
        lg = _lgamma(an)
        with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
            dx = np.where(xn > 0, np.exp((an - 1) * np.log(np.where(xn > 0, xn, 1.0)) - xn - lg), 0.0)
        ga = grad * oneflow.tensor(da, dtype=grad.dtype, device=grad.device)
        gx = grad * oneflow.tensor(dx, dtype=grad.dtype, device=grad.device)
        return _reduce_to(ga, a.shape), _reduce_to(gx, x.shape)


def _reduce_to(g, shape):
    """Sums a broadcast gradient back to ``shape``."""
    shape = tuple(shape)
    while g.dim() > len(shape):
        g = g.sum(0)
    for i, n in enumerate(shape):
        if n == 1 and g.shape[i] != 1:
            g = g.sum(i, keepdim=True)
    return g


def gammainc(a, x):
    """The regularized lower incomplete gamma function P(a, x), differentiable in both."""
    return _GammaInc.apply(a, x)
