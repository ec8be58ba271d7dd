"""PyTorch's window functions (``hann_window``, ``hamming_window``, ``blackman_window``,
``bartlett_window``, ``kaiser_window``), its function transforms ``vmap`` and ``cond``, and
``compile``; and the complex-part functions on real tensors (``real``, ``imag``, ``conj``,
``angle``, ``sgn``, ``is_complex``, ...), which behave as PyTorch's do for real dtypes.

This oneflow has no complex dtypes yet (issue 16): a complex tensor cannot be made, so the
complex-part functions only ever see real tensors, and ``imag`` raises as PyTorch does for them.
``compile`` returns what it is given (the model still runs, uncompiled; ``oneflow.nn.Graph`` is
OneFlow's compiler); ``vmap`` runs the function once per slice and stacks the results.
"""

from __future__ import annotations

import math

import oneflow as _flow

__all__ = [
    "angle",
    "bartlett_window",
    "blackman_window",
    "compile",
    "cond",
    "conj",
    "conj_physical",
    "conj_physical_",
    "hamming_window",
    "hann_window",
    "imag",
    "is_complex",
    "is_conj",
    "kaiser_window",
    "real",
    "resolve_conj",
    "sgn",
    "vmap",
]

_Tensor = _flow.Tensor


def _window_length(fn: str, window_length) -> int:
    if isinstance(window_length, bool) or not isinstance(window_length, int):
        raise TypeError(f"{fn}(): argument 'window_length' must be int, not {type(window_length).__name__}")
    if window_length < 0:
        raise RuntimeError(f"{fn} requires non-negative window_length, got window_length={window_length}")
    return window_length


def _window(fn: str, window_length, periodic: bool, make, dtype, device, requires_grad):
    n = _window_length(fn, window_length)
    dtype = dtype or _flow.get_default_dtype()
    if not dtype.is_floating_point:
        raise RuntimeError(f"{fn} expects floating point dtypes, got: {dtype}")
    if n == 0:
        return _flow.empty(0, dtype=dtype, device=device, requires_grad=requires_grad)
    if n == 1:
        return _flow.ones(1, dtype=dtype, device=device, requires_grad=requires_grad)
    m = n + 1 if periodic else n  # a periodic window is the symmetric one of length n + 1, cut
    k = _flow.arange(m, dtype=_flow.float64)
    w = make(k, m)[:n]
    return w.to(dtype=dtype, device=device).requires_grad_(requires_grad)


def _cosine_sum(coefficients):
    def make(k, m):
        x = 2 * math.pi * k / (m - 1)
        out = _flow.zeros_like(k) + coefficients[0]
        for j, a in enumerate(coefficients[1:], start=1):
            out = out + (-1) ** j * a * _flow.cos(j * x)
        return out

    return make


def hann_window(
    window_length, periodic=True, *, dtype=None, layout=None, device=None, pin_memory=False, requires_grad=False
):
    """The Hann window, ``0.5 - 0.5 cos(2 pi n / (N - 1))`` (N = length + 1 when ``periodic``)."""
    return _window("hann_window", window_length, periodic, _cosine_sum((0.5, 0.5)), dtype, device, requires_grad)


def hamming_window(
    window_length,
    periodic=True,
    alpha=0.54,
    beta=0.46,
    *,
    dtype=None,
    layout=None,
    device=None,
    pin_memory=False,
    requires_grad=False,
):
    """The Hamming window, ``alpha - beta cos(2 pi n / (N - 1))``."""
    return _window("hamming_window", window_length, periodic, _cosine_sum((alpha, beta)), dtype, device, requires_grad)


def blackman_window(
    window_length, periodic=True, *, dtype=None, layout=None, device=None, pin_memory=False, requires_grad=False
):
    """The Blackman window, ``0.42 - 0.5 cos(2 pi n / (N - 1)) + 0.08 cos(4 pi n / (N - 1))``."""
    return _window(
        "blackman_window", window_length, periodic, _cosine_sum((0.42, 0.5, 0.08)), dtype, device, requires_grad
    )


def bartlett_window(
    window_length, periodic=True, *, dtype=None, layout=None, device=None, pin_memory=False, requires_grad=False
):
    """The Bartlett (triangular) window, ``1 - |2n / (N - 1) - 1|``."""

    def make(k, m):
        return 1 - (2 * k / (m - 1) - 1).abs()

    return _window("bartlett_window", window_length, periodic, make, dtype, device, requires_grad)


def kaiser_window(
    window_length,
    periodic=True,
    beta=12.0,
    *,
    dtype=None,
    layout=None,
    device=None,
    pin_memory=False,
    requires_grad=False,
):
    """The Kaiser window, ``I0(beta sqrt(1 - (2n / (N - 1) - 1)^2)) / I0(beta)``."""

    def make(k, m):
        r = 2 * k / (m - 1) - 1
        return _flow.special.i0(beta * (1 - r * r).clamp_min(0).sqrt()) / _flow.special.i0(
            _flow.tensor(float(beta), dtype=_flow.float64)
        )

    return _window("kaiser_window", window_length, periodic, make, dtype, device, requires_grad)


# ---- complex parts of real tensors --------------------------------------------------------------


def _check(fn: str, input) -> None:
    if not isinstance(input, _Tensor):
        raise TypeError(f"{fn}(): argument 'input' must be Tensor, not {type(input).__name__}")


def is_complex(input) -> bool:
    """Whether ``input`` has a complex dtype (never, in this oneflow)."""
    _check("is_complex", input)
    return False


def is_conj(input) -> bool:
    """Whether ``input`` is a lazily conjugated view (never: real tensors are their conjugate)."""
    _check("is_conj", input)
    return False


def real(input):
    """The real part: a real tensor itself."""
    _check("real", input)
    return input


def imag(input):
    """The imaginary part; real tensors have none (a RuntimeError, as PyTorch raises)."""
    _check("imag", input)
    raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")


def conj(input):
    """The complex conjugate: a real tensor itself."""
    _check("conj", input)
    return input


def resolve_conj(input):
    """``input`` with any lazy conjugation applied: a real tensor itself."""
    _check("resolve_conj", input)
    return input


def conj_physical(input):
    """The conjugate as a new tensor: a copy of a real tensor."""
    _check("conj_physical", input)
    return input.clone()


def conj_physical_(input):
    """Conjugates in place: nothing to do for a real tensor."""
    _check("conj_physical_", input)
    return input


def angle(input):
    """The argument of each element: 0 for non-negative reals, pi for negative ones, NaN for NaN
    (a float result, as in PyTorch; integers promote to the default float dtype)."""
    _check("angle", input)
    x = input if input.is_floating_point() else input.to(_flow.get_default_dtype())
    out = _flow.where(x < 0, _flow.full_like(x, math.pi), _flow.zeros_like(x))
    return _flow.where(_flow.isnan(x), x, out)


def sgn(input):
    """``input / |input|`` (0 at 0): the sign, for real tensors."""
    _check("sgn", input)
    return _flow.sign(input)


# ---- function transforms -----------------------------------------------------------------------


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """``func`` mapped over a dimension of its inputs: ``vmap(f)(x)[i] == f(x[i])``.

    ``in_dims`` is an int (every input) or one entry per positional input (None: not mapped);
    ``out_dims`` places the mapped dimension in the outputs. Runs ``func`` once per slice and
    stacks the results (the same values as PyTorch's vectorized map, without its batching rules).
    """
    if not callable(func):
        raise TypeError(f"vmap(): func must be callable, got {type(func).__name__}")

    def mapped(*args):
        dims = in_dims if isinstance(in_dims, (tuple, list)) else (in_dims,) * len(args)
        if len(dims) != len(args):
            raise ValueError(f"vmap(): in_dims has {len(dims)} entries for {len(args)} inputs")
        sizes = {a.shape[d] for a, d in zip(args, dims) if d is not None and isinstance(a, _Tensor)}
        if len(sizes) != 1:
            raise ValueError(f"vmap(): the mapped dimensions must have one size, got {sorted(sizes)}")
        (n,) = sizes
        results = []
        for i in range(n):
            call = [a.select(d, i) if d is not None and isinstance(a, _Tensor) else a for a, d in zip(args, dims)]
            results.append(func(*call))
        if isinstance(results[0], (tuple, list)):
            outs = out_dims if isinstance(out_dims, (tuple, list)) else (out_dims,) * len(results[0])
            return type(results[0])(_flow.stack([r[j] for r in results], dim=outs[j]) for j in range(len(outs)))
        return _flow.stack(results, dim=out_dims)

    return mapped


def cond(pred, true_fn, false_fn, operands=()):
    """``true_fn(*operands)`` when ``pred`` holds, else ``false_fn(*operands)`` (``pred``: a bool
    or a one-element tensor)."""
    if isinstance(pred, _Tensor):
        if pred.numel() != 1:
            raise RuntimeError(f"cond(): expected pred to have one element, got shape {tuple(pred.shape)}")
        pred = bool(pred.item())
    elif not isinstance(pred, bool):
        raise RuntimeError(f"cond(): pred must be a bool or a one-element tensor, got {type(pred).__name__}")
    return (true_fn if pred else false_fn)(*tuple(operands))


def compile(model=None, *, fullgraph=False, dynamic=None, backend="inductor", mode=None, options=None, disable=False):
    """Returns ``model`` as it is: there is no TorchDynamo here, so code calling ``torch.compile``
    runs uncompiled (``oneflow.nn.Graph`` compiles ``nn.Module`` code). Usable as a decorator,
    with or without arguments."""
    if model is None:
        return lambda m: m
    if not callable(model):
        raise RuntimeError(f"compile(): expected a callable or nn.Module, got {type(model).__name__}")
    return model
