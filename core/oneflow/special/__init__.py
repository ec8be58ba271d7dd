"""``oneflow.special``: PyTorch's ``torch.special`` namespace.

The special functions (Bessel, Airy, the normal distribution's, zeta, the incomplete gamma
functions, orthogonal polynomials) compute in float64 from tensor ops (see ``_bessel``,
``_airy``, ``_gamma``, ``_polynomials``) and return the input's floating dtype; the others
are this package's ops under ``torch.special``'s names. Gradients follow PyTorch's: closed-form
derivatives where torch has them, none (a result that does not require grad) for the Bessel,
Airy and polynomial functions, and ``NotImplementedError`` on backward for the arguments torch
does not differentiate (``zeta``'s ``input``, ``gammainc``'s ``input``).
"""

from __future__ import annotations

import math
import numbers

import oneflow as _flow
from oneflow.autograd import Function as _Function
from oneflow.special import _airy, _bessel, _gamma
from oneflow.special._common import as_float as _as_float
from oneflow.special._common import check_tensor as _check_tensor
from oneflow.special._common import result_dtype as _result_dtype
from oneflow.special._common import unary as _unary
from oneflow.special._polynomials import POLYNOMIALS as _POLYNOMIALS

__all__ = [
    "airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "chebyshev_polynomial_t",
    "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w", "digamma", "entr", "erf",
    "erfc", "erfcx", "erfinv", "exp2", "expit", "expm1", "gammainc", "gammaincc", "gammaln",
    "hermite_polynomial_h", "hermite_polynomial_he", "i0", "i0e", "i1", "i1e", "laguerre_polynomial_l",
    "legendre_polynomial_p", "log1p", "log_ndtr", "log_softmax", "logit", "logsumexp", "modified_bessel_i0",
    "modified_bessel_i1", "modified_bessel_k0", "modified_bessel_k1", "multigammaln", "ndtr", "ndtri",
    "polygamma", "psi", "round", "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u",
    "shifted_chebyshev_polynomial_v", "shifted_chebyshev_polynomial_w", "scaled_modified_bessel_k0",
    "scaled_modified_bessel_k1", "sinc", "softmax", "spherical_bessel_j0", "xlog1py", "xlogy", "zeta",
]  # fmt: skip


def _float(fn: str, x):
    _check_tensor(fn, "input", x)
    return x if x.dtype.is_floating_point else x.to(_flow.get_default_dtype())


# ---- this package's ops under torch.special's names ---------------------------------------------


def erf(input):
    """The error function, elementwise: ``2/sqrt(pi) * integral_0^x exp(-t^2) dt``."""
    return _flow.erf(_float("erf", input))


def erfc(input):
    """The complementary error function ``1 - erf(x)``, elementwise."""
    return _flow.erfc(_float("erfc", input))


def erfinv(input):
    """The inverse of ``erf`` on (-1, 1), elementwise."""
    return _flow.erfinv(_float("erfinv", input))


def expit(input):
    """The logistic sigmoid ``1 / (1 + exp(-x))``, elementwise."""
    return _flow.sigmoid(_float("expit", input))


def expm1(input):
    """``exp(x) - 1``, accurate for small ``x``."""
    return _flow.expm1(_float("expm1", input))


def exp2(input):
    """``2 ** x``, elementwise."""
    return _flow.pow(2.0, _float("exp2", input))


def log1p(input):
    """``log(1 + x)``, accurate for small ``x``."""
    return _flow.log1p(_float("log1p", input))


def logit(input, eps=None):
    """``log(p / (1 - p))``; with ``eps``, ``p`` is first clamped to [eps, 1 - eps]."""
    return _flow.logit(_float("logit", input), eps)


def logsumexp(input, dim, keepdim=False):
    """``log(sum(exp(input), dim))``, computed without overflow."""
    _check_tensor("logsumexp", "input", input)
    return _flow.logsumexp(input, dim, keepdim=keepdim)


def softmax(input, dim, *, dtype=None):
    """``exp(x) / sum(exp(x), dim)``; ``dtype`` casts the input first."""
    _check_tensor("softmax", "input", input)
    return _flow.softmax(input if dtype is None else input.to(dtype), dim)


def log_softmax(input, dim, *, dtype=None):
    """``log(softmax(x, dim))``, computed stably; ``dtype`` casts the input first."""
    _check_tensor("log_softmax", "input", input)
    return _flow.log_softmax(input if dtype is None else input.to(dtype), dim)


def round(input, *, decimals=0):
    """Rounds half to even, to ``decimals`` decimal places."""
    _check_tensor("round", "input", input)
    if not decimals:
        return _flow.round(input)
    scale = 10.0 ** abs(decimals)
    return _flow.round(input * scale) / scale if decimals > 0 else _flow.round(input / scale) * scale


def sinc(input):
    """The normalized sinc ``sin(pi x) / (pi x)``, 1 at 0."""
    return _flow.sinc(_float("sinc", input))


def xlogy(input, other):
    """``input * log(other)``, 0 where ``input`` is 0 (unless ``other`` is nan)."""
    return _flow.xlogy(input, other)


def digamma(input):
    """The logarithmic derivative of the gamma function, ``Gamma'(x) / Gamma(x)``."""
    return _unary("digamma", input, _flow.digamma, lambda x, r: _gamma.zeta(_flow.full_like(x, 2.0), x))


psi = digamma


def gammaln(input):
    """``log(|Gamma(x)|)``, elementwise."""
    return _flow.lgamma(_float("gammaln", input))


def i0(input):
    """The modified Bessel function of the first kind of order 0, ``I0(x)``."""
    return _unary("i0", input, _bessel.i0, lambda x, r: _bessel.i1(x))


def multigammaln(input, p: int):
    """The multivariate log-gamma function of dimension ``p``:
    ``p (p - 1) / 4 * log(pi) + sum_{j<p} gammaln(input - j / 2)``."""
    _check_tensor("multigammaln", "input", input)
    if not isinstance(p, numbers.Integral) or isinstance(p, bool):
        raise TypeError(f"special.multigammaln(): argument 'p' must be int, not {type(p).__name__}")
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    x = _float("multigammaln", input)
    total = _flow.lgamma(x)
    for j in range(1, p):
        total = total + _flow.lgamma(x - j / 2)
    return total + p * (p - 1) / 4 * math.log(math.pi)


def polygamma(n: int, input):
    """The ``n``-th derivative of the digamma function: ``(-1)^(n+1) n! zeta(n + 1, x)``."""
    if not isinstance(n, numbers.Integral) or isinstance(n, bool):
        raise TypeError(f"special.polygamma(): argument 'n' must be int, not {type(n).__name__}")
    _check_tensor("polygamma", "input", input)
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    if n == 0:
        return digamma(input)
    return (-1) ** (n + 1) * math.factorial(n) * zeta(float(n + 1), _float("polygamma", input))


# ---- the normal distribution, erfcx, entr --------------------------------------------------------


def ndtr(input):
    """The standard normal CDF, ``(1 + erf(x / sqrt(2))) / 2``."""
    return _unary("ndtr", input, _gamma.ndtr, _gamma.ndtr_grad)


def ndtri(input):
    """The inverse of ``ndtr``: the ``x`` with ``ndtr(x) = p``; -inf at 0, inf at 1, nan outside
    [0, 1]."""
    return _unary("ndtri", input, _gamma.ndtri, _gamma.ndtri_grad)


def log_ndtr(input):
    """``log(ndtr(x))``, accurate far into the lower tail."""
    return _unary("log_ndtr", input, _gamma.log_ndtr, _gamma.log_ndtr_grad)


def erfcx(input):
    """The scaled complementary error function ``exp(x^2) erfc(x)``."""
    return _unary("erfcx", input, _gamma.erfcx, _gamma.erfcx_grad)


def entr(input):
    """The entropy term ``-x log(x)`` (0 at 0, -inf for x < 0), elementwise."""
    return _unary("entr", input, _gamma.entr, _gamma.entr_grad)


# ---- Bessel and Airy functions -------------------------------------------------------------------


def i0e(input):
    """The exponentially scaled modified Bessel function ``exp(-|x|) I0(x)``."""
    return _unary("i0e", input, _bessel.i0e, lambda x, r: _bessel.i1e(x) - _flow.sign(x) * r)


def _i1_grad(x, r):
    safe = _flow.where(x == 0, _flow.ones_like(x), x)
    return _flow.where(x == 0, _flow.full_like(x, 0.5), _bessel.i0(x) - r / safe)


def _i1e_grad(x, r):
    safe = _flow.where(x == 0, _flow.ones_like(x), x)
    return _flow.where(x == 0, _flow.full_like(x, 0.5), _bessel.i0e(x) - r * (_flow.sign(x) + 1 / safe))


def i1(input):
    """The modified Bessel function of the first kind of order 1, ``I1(x)``."""
    return _unary("i1", input, _bessel.i1, _i1_grad)


def i1e(input):
    """The exponentially scaled modified Bessel function ``exp(-|x|) I1(x)``."""
    return _unary("i1e", input, _bessel.i1e, _i1e_grad)


def _no_grad_unary(name: str, compute, doc: str):
    def fn(input):
        return _unary(name, input, compute)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return fn


modified_bessel_i0 = _no_grad_unary("modified_bessel_i0", _bessel.i0, "The modified Bessel function ``I0(x)``.")
modified_bessel_i1 = _no_grad_unary("modified_bessel_i1", _bessel.i1, "The modified Bessel function ``I1(x)``.")
modified_bessel_k0 = _no_grad_unary(
    "modified_bessel_k0", _bessel.k0, "The modified Bessel function of the second kind ``K0(x)``, x >= 0."
)
modified_bessel_k1 = _no_grad_unary(
    "modified_bessel_k1", _bessel.k1, "The modified Bessel function of the second kind ``K1(x)``, x >= 0."
)
scaled_modified_bessel_k0 = _no_grad_unary(
    "scaled_modified_bessel_k0", _bessel.k0e, "The exponentially scaled ``exp(x) K0(x)``."
)
scaled_modified_bessel_k1 = _no_grad_unary(
    "scaled_modified_bessel_k1", _bessel.k1e, "The exponentially scaled ``exp(x) K1(x)``."
)
bessel_j0 = _no_grad_unary("bessel_j0", _bessel.j0, "The Bessel function of the first kind ``J0(x)``.")
bessel_j1 = _no_grad_unary("bessel_j1", _bessel.j1, "The Bessel function of the first kind ``J1(x)``.")
bessel_y0 = _no_grad_unary("bessel_y0", _bessel.y0, "The Bessel function of the second kind ``Y0(x)``, x >= 0.")
bessel_y1 = _no_grad_unary("bessel_y1", _bessel.y1, "The Bessel function of the second kind ``Y1(x)``, x >= 0.")
airy_ai = _no_grad_unary("airy_ai", _airy.airy_ai, "The Airy function ``Ai(x)``.")


def _spherical_j0(x):
    small = _flow.abs(x) < 0.5
    xs = _flow.where(small, x, _flow.zeros_like(x))
    x2 = xs * xs
    # sin(x) / x = sum_k (-x^2)^k / (2k + 1)!
    coefficients = [(-1) ** k / math.factorial(2 * k + 1) for k in range(9)]
    series = _flow.full_like(x, coefficients[-1])
    for c in reversed(coefficients[:-1]):
        series = series * x2 + c
    xl = _flow.where(small, _flow.ones_like(x), x)
    out = _flow.where(small, series, _flow.sin(xl) / xl)
    return _flow.where(_flow.isinf(x), _flow.zeros_like(x), out)


spherical_bessel_j0 = _no_grad_unary(
    "spherical_bessel_j0", _spherical_j0, "The spherical Bessel function of the first kind ``j0(x) = sin(x) / x``."
)


# ---- two-argument functions ----------------------------------------------------------------------


def _binary_operands(fn: str, a, b, names=("input", "other")):
    if not isinstance(a, _flow.Tensor) and not isinstance(b, _flow.Tensor):
        raise TypeError(
            f"special.{fn}(): expected at least one Tensor among '{names[0]}' and '{names[1]}', got "
            f"{type(a).__name__} and {type(b).__name__}"
        )
    like = a if isinstance(a, _flow.Tensor) else b
    dtype = _result_dtype(*(t for t in (a, b) if isinstance(t, _flow.Tensor)))
    return _as_float(fn, names[0], a, like), _as_float(fn, names[1], b, like), dtype


class _Binary(_Function):
    @staticmethod
    def forward(ctx, a, b, compute, grad_a, grad_b):
        a64, b64 = _flow.broadcast_tensors(a.to(_flow.float64), b.to(_flow.float64))
        result = compute(a64, b64)
        ctx.save_for_backward(a64, b64, result)
        ctx.grads = (grad_a, grad_b)
        ctx.shapes = (tuple(a.shape), tuple(b.shape))
        ctx.dtypes = (a.dtype, b.dtype)
        return result

    @staticmethod
    def backward(ctx, grad):
        a, b, result = ctx.saved_tensors
        out = []
        for i, derivative in enumerate(ctx.grads):
            if not ctx.needs_input_grad[i]:
                out.append(None)
                continue
            if isinstance(derivative, str):
                raise NotImplementedError(derivative)
            g = grad.to(_flow.float64) * derivative(a, b, result)
            shape = ctx.shapes[i]
            extra = g.dim() - len(shape)
            if extra:
                g = g.sum(dim=tuple(range(extra)))
            dims = tuple(d for d, s in enumerate(shape) if s == 1 and g.shape[d] != 1)
            if dims:
                g = g.sum(dim=dims, keepdim=True)
            out.append(g.to(ctx.dtypes[i]))
        return out[0], out[1], None, None, None


def _binary(fn: str, a, b, compute, grad_a, grad_b, names=("input", "other")):
    a64, b64, dtype = _binary_operands(fn, a, b, names)
    tracked = _flow.is_grad_enabled() and any(isinstance(t, _flow.Tensor) and t.requires_grad for t in (a, b))
    if not tracked:
        with _flow.no_grad():
            a64, b64 = _flow.broadcast_tensors(a64, b64)
            return compute(a64, b64).to(dtype)
    ta = a.to(dtype) if isinstance(a, _flow.Tensor) else a64.to(dtype)
    tb = b.to(dtype) if isinstance(b, _flow.Tensor) else b64.to(dtype)
    return _Binary.apply(ta, tb, compute, grad_a, grad_b).to(dtype)


def _xlog1py(x, y):
    value = x * _flow.log1p(y)
    return _flow.where((x == 0) & ~_flow.isnan(y), _flow.zeros_like(value), value)


def _xlog1py_grad_x(x, y, r):
    g = _flow.log1p(y)
    return _flow.where((x == 0) & (y <= -1), _flow.zeros_like(g), g)


def xlog1py(input, other):
    """``input * log1p(other)``, 0 where ``input`` is 0 (unless ``other`` is nan)."""
    return _binary("xlog1py", input, other, _xlog1py, _xlog1py_grad_x, lambda x, y, r: x / (y + 1))


def zeta(input, other):
    """Hurwitz's zeta function ``sum_{k>=0} (k + other)^-input``; ``input`` is the exponent."""
    return _binary(
        "zeta",
        input,
        other,
        _gamma.zeta,
        "the derivative for 'zeta' is not implemented.",
        lambda x, q, r: -x * _gamma.zeta(x + 1, q),
    )


def gammainc(input, other):
    """The regularized lower incomplete gamma function ``P(input, other)``."""
    return _binary(
        "gammainc",
        input,
        other,
        _gamma.gammainc,
        "the derivative for 'igamma: input' is not implemented.",
        lambda a, x, r: _gamma.gammainc_grad_x(a, x),
    )


def gammaincc(input, other):
    """The regularized upper incomplete gamma function ``Q(input, other) = 1 - P(input, other)``."""
    return _binary(
        "gammaincc",
        input,
        other,
        _gamma.gammaincc,
        "the derivative for 'igammac: input' is not implemented.",
        lambda a, x, r: -_gamma.gammainc_grad_x(a, x),
    )


# ---- orthogonal polynomials ----------------------------------------------------------------------


def _polynomial(name: str, compute, shifted: bool):
    def fn(input, n):
        x64, n64, dtype = _binary_operands(name, input, n, ("input", "n"))
        with _flow.no_grad():
            x64, n64 = _flow.broadcast_tensors(x64, n64)
            x = 2 * x64 - 1 if shifted else x64
            return compute(x, _flow.trunc(n64)).to(dtype)

    fn.__name__ = fn.__qualname__ = name
    kind = name.replace("_polynomial", "").replace("_", " ")
    fn.__doc__ = f"The {kind} polynomial of degree ``n`` at ``input`` (elementwise; ``n`` < 0 gives 0)."
    return fn


for _name, (_compute, _shifted) in _POLYNOMIALS.items():
    globals()[_name] = _polynomial(_name, _compute, _shifted)
del _name, _compute, _shifted
