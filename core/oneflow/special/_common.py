"""Helpers shared by the ``oneflow.special`` implementations: argument checks, the float64
working precision every function computes in, and an elementwise autograd node whose derivative is
a closed form (``i0' = i1``), so a gradient does not differentiate a series truncation."""

from __future__ import annotations

import numbers

import oneflow as _flow
from oneflow.autograd import Function

_Tensor = _flow.Tensor


def check_tensor(fn: str, name: str, value) -> None:
    if not isinstance(value, _Tensor):
        raise TypeError(f"special.{fn}(): argument '{name}' must be Tensor, not {type(value).__name__}")


def result_dtype(*tensors):
    """The floating dtype of the result: the operands' promoted float dtype, integers and bools
    promoting to the default float dtype, as PyTorch's special functions do."""
    floats = [t.dtype for t in tensors if isinstance(t, _Tensor) and t.dtype.is_floating_point]
    if not floats:
        return _flow.get_default_dtype()
    order = {_flow.float16: 0, _flow.bfloat16: 0, _flow.float32: 1, _flow.float64: 2}
    best = max(floats, key=lambda d: order.get(d, 1))
    if _flow.float16 in floats and _flow.bfloat16 in floats and best != _flow.float64:
        return _flow.float32 if best != _flow.float32 else best
    return best


def as_float(fn: str, name: str, value, like=None):
    """``value`` (a Tensor or a Python number) as a float64 tensor on ``like``'s device."""
    if isinstance(value, _Tensor):
        return value.to(_flow.float64)
    if isinstance(value, numbers.Number) and not isinstance(value, complex):
        device = like.device if isinstance(like, _Tensor) else None
        return _flow.tensor(float(value), dtype=_flow.float64, device=device)
    raise TypeError(f"special.{fn}(): argument '{name}' must be Tensor or Number, not {type(value).__name__}")


def unary(fn: str, x, compute, derivative=None):
    """``compute`` (float64 tensor -> float64 tensor) applied to ``x`` in float64, returned in
    ``x``'s floating dtype; ``derivative`` (x, result) -> d result / dx, or None where PyTorch's
    function has no gradient (the result then does not require grad)."""
    check_tensor(fn, "input", x)
    dtype = result_dtype(x)
    x64 = x.detach().to(_flow.float64)
    if derivative is None or not (x.requires_grad and _flow.is_grad_enabled()):
        with _flow.no_grad():
            return compute(x64).to(dtype)
    return _Elementwise.apply(x.to(dtype), compute, derivative)


class _Elementwise(Function):
    @staticmethod
    def forward(ctx, x, compute, derivative):
        result = compute(x.to(_flow.float64))
        ctx.save_for_backward(x, result)
        ctx.derivative = derivative
        return result.to(x.dtype)

    @staticmethod
    def backward(ctx, grad):
        x, result = ctx.saved_tensors
        return (grad * ctx.derivative(x.to(_flow.float64), result).to(grad.dtype)), None, None


def full_like(x, value):
    return _flow.full_like(x, value)


def where(cond, a, b):
    return _flow.where(cond, a, b)


def horner(coefficients, t):
    """sum(c[k] * t**k), Horner's scheme over Python-float coefficients."""
    result = _flow.full_like(t, coefficients[-1])
    for c in reversed(coefficients[:-1]):
        result = result * t + c
    return result
