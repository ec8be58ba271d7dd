"""PyTorch's everyday top-level callables that are compositions of this package's ops (issue 16):
type promotion (``result_type``, ``promote_types``, ``can_cast``), elementwise math (``xlogy``,
``fmax``, ``copysign``, ``gcd``, ...), reductions (``nanmean``, ``aminmax``, ``count_nonzero``,
``logcumsumexp``) and stacking and splitting (``hstack``, ``atleast_2d``, ``dsplit``, ...).

Each is built from registry ops, so autograd runs through it with no derivative written here.
The index-based ones (``scatter_reduce``, ``cdist``, ``histogram``, ...) are in
``_torch_breadth_index``; both modules register their Tensor methods and in-place twins in
``install_methods``.
"""

from __future__ import annotations

import builtins
import math
import numbers
from collections.abc import Sequence

import oneflow as _flow
from oneflow import return_types as _return_types

_Tensor = _flow.Tensor


def _check_tensor(fn: str, name: str, value) -> None:
    if not isinstance(value, _Tensor):
        raise TypeError(f"{fn}(): argument '{name}' must be Tensor, not {type(value).__name__}")


def _dtype_name(dtype) -> str:
    """PyTorch's scalar-type name of ``dtype`` (Float, Long, ...), as its error messages use."""
    return {
        "bool": "Bool", "uint8": "Byte", "int8": "Char", "int16": "Short", "int32": "Int", "int64": "Long",
        "float16": "Half", "bfloat16": "BFloat16", "float32": "Float", "float64": "Double",
    }.get(str(dtype).split(".")[-1], str(dtype))  # fmt: skip


# ---- type promotion -------------------------------------------------------------------------------

# PyTorch's promotion lattice for the real dtypes: the larger rank wins, except the two pairs that
# promote to a third type (uint8 + int8 -> int16, float16 + bfloat16 -> float32).
_RANK = {"bool": 0, "uint8": 1, "int8": 1, "int16": 2, "int32": 3, "int64": 4,
         "float16": 5, "bfloat16": 5, "float32": 6, "float64": 7}  # fmt: skip


def _name(dtype) -> str:
    return str(dtype).split(".")[-1]


def _is_float(dtype) -> bool:
    return _name(dtype) in ("float16", "bfloat16", "float32", "float64")


def _check_dtype(fn: str, name: str, value) -> None:
    if not isinstance(value, _flow.dtype):
        raise TypeError(f"{fn}(): argument '{name}' must be torch.dtype, not {type(value).__name__}")


def promote_types(type1, type2):
    """The smallest dtype that neither ``type1`` nor ``type2`` loses values in, as arithmetic
    on tensors of the two dtypes gives: ``promote_types(oneflow.uint8, oneflow.int8)`` is int16."""
    _check_dtype("promote_types", "type1", type1)
    _check_dtype("promote_types", "type2", type2)
    a, b = _name(type1), _name(type2)
    if a == b:
        return type1
    if {a, b} == {"uint8", "int8"}:
        return _flow.int16
    if {a, b} == {"float16", "bfloat16"}:
        return _flow.float32
    return type1 if _RANK[a] > _RANK[b] else type2


def _category(dtype) -> int:
    n = _name(dtype)
    return 0 if n == "bool" else (2 if _is_float(dtype) else 1)


def _combine_categories(higher, lower):
    """PyTorch's rule between priority classes: a lower-priority operand only matters when it is of
    a higher category (a float scalar with an int tensor)."""
    if higher is None:
        return lower
    if lower is None:
        return higher
    if _is_float(higher):
        return higher
    if _name(higher) == "bool" or _is_float(lower):
        return promote_types(higher, lower)
    return higher


def _scalar_dtype(value):
    if isinstance(value, builtins.bool):
        return _flow.bool
    if isinstance(value, numbers.Integral):
        return _flow.int64
    if isinstance(value, numbers.Real):
        return _flow.get_default_dtype()
    raise TypeError(f"result_type(): expected Tensor or Number, got {type(value).__name__}")


def _result_dtype(*operands):
    """The dtype PyTorch computes an op of ``operands`` (tensors and Python numbers) in: tensors of
    one or more dims decide, then 0-dim tensors, then numbers, each only when of a higher category."""
    dim_r = zero_r = wrapped_r = None
    for v in operands:
        if isinstance(v, _Tensor):
            if v.dim() > 0:
                dim_r = v.dtype if dim_r is None else promote_types(dim_r, v.dtype)
            else:
                zero_r = v.dtype if zero_r is None else promote_types(zero_r, v.dtype)
        else:
            d = _scalar_dtype(v)
            wrapped_r = d if wrapped_r is None else promote_types(wrapped_r, d)
    return _combine_categories(dim_r, _combine_categories(zero_r, wrapped_r))


def result_type(tensor, other):
    """The dtype an arithmetic op on ``tensor`` and ``other`` (tensors or numbers) returns."""
    if not isinstance(tensor, (_Tensor, numbers.Number)) or not isinstance(other, (_Tensor, numbers.Number)):
        bad = other if isinstance(tensor, (_Tensor, numbers.Number)) else tensor
        raise TypeError(f"result_type() received an invalid combination of arguments - got ({type(bad).__name__})")
    return _result_dtype(tensor, other)


def can_cast(from_, to) -> bool:
    """Whether PyTorch's casting rules allow ``from_`` to become ``to`` in an op's output: never
    floating to integral, nor anything but bool to bool."""
    _check_dtype("can_cast", "from_", from_)
    _check_dtype("can_cast", "to", to)
    if _is_float(from_) and not _is_float(to):
        return False
    return not (_name(from_) != "bool" and _name(to) == "bool")


def _float_dtype(*operands):
    """The result dtype of a float-valued op: the promoted one, the default float for integers."""
    d = _result_dtype(*operands)
    return d if _is_float(d) else _flow.get_default_dtype()


def _as(value, dtype, like=None):
    """``value`` (a tensor or a number) as a tensor of ``dtype``."""
    if isinstance(value, _Tensor):
        return value if value.dtype == dtype else value.to(dtype)
    device = like.device if isinstance(like, _Tensor) else None
    return _flow.tensor(value, dtype=dtype, device=device)


def _operands(fn: str, input, other, dtype=None):
    """``input`` and ``other`` (one of them may be a number) as tensors of ``dtype`` (their
    promoted dtype when None)."""
    if not isinstance(input, _Tensor) and not isinstance(other, _Tensor):
        raise TypeError(f"{fn}(): argument 'input' must be Tensor, not {type(input).__name__}")
    for name, v in (("input", input), ("other", other)):
        if not isinstance(v, (_Tensor, numbers.Number)):
            raise TypeError(f"{fn}(): argument '{name}' must be Tensor, not {type(v).__name__}")
    like = input if isinstance(input, _Tensor) else other
    dtype = dtype or _result_dtype(input, other)
    return _as(input, dtype, like), _as(other, dtype, like)


def _not_for(fn: str, input, *, ints: bool = False, bools: bool = False) -> None:
    """PyTorch's NotImplementedError for a kernel that has no version for ``input``'s dtype."""
    n = _name(input.dtype)
    if (not ints and n in ("uint8", "int8", "int16", "int32", "int64")) or (not bools and n == "bool"):
        raise NotImplementedError(f"\"{fn}\" not implemented for '{_dtype_name(input.dtype)}'")


# ---- elementwise ---------------------------------------------------------------------------------


def isclose(input, other, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False):
    """Elementwise ``|input - other| <= atol + rtol * |other|`` (and equal infinities; NaNs equal
    when ``equal_nan``). Both tensors must have the same dtype."""
    _check_tensor("isclose", "input", input)
    _check_tensor("isclose", "other", other)
    if input.dtype != other.dtype:
        raise RuntimeError(f"{_dtype_name(input.dtype)} did not match {_dtype_name(other.dtype)}")
    if rtol < 0:
        raise RuntimeError(f"rtol must be greater than or equal to zero, but got {rtol}")
    if atol < 0:
        raise RuntimeError(f"atol must be greater than or equal to zero, but got {atol}")
    close = _flow.eq(input, other)
    if equal_nan and _is_float(input.dtype):
        close = close | (_flow.isnan(input) & _flow.isnan(other))
    if rtol == 0 and atol == 0:
        return close
    a, b = (
        (input, other)
        if input.dtype != _flow.bool
        else (input.to(_flow.get_default_dtype()), other.to(_flow.get_default_dtype()))
    )
    allowed = atol + (rtol * b).abs()
    actual = (a - b).abs()
    return close | (_flow.isfinite(actual) & (actual <= allowed))


def allclose(input, other, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> bool:
    """Whether ``isclose`` holds for every element."""
    _check_tensor("allclose", "input", input)
    _check_tensor("allclose", "other", other)
    return builtins.bool(isclose(input, other, rtol, atol, equal_nan).all().item())


def xlogy(input, other):
    """``input * log(other)``, 0 where ``input`` is 0 (unless ``other`` is NaN)."""
    x, y = _operands("xlogy", input, other, _float_dtype(input, other))
    out = _flow.where(x == 0, _flow.zeros_like(x), x * _flow.log(y))
    return _flow.where(_flow.isnan(y), y, out)


def sinc(input):
    """The normalized sinc, ``sin(pi x) / (pi x)``, and 1 at 0."""
    _check_tensor("sinc", "input", input)
    x = input if _is_float(input.dtype) else input.to(_flow.get_default_dtype())
    zero = x == 0
    # A safe denominator keeps the masked-out branch's gradient finite at 0.
    px = _flow.where(zero, _flow.ones_like(x), x) * math.pi
    return _flow.where(zero, _flow.ones_like(x), _flow.sin(px) / px)


def fmax(input, other):
    """Elementwise maximum that ignores NaN: the other value where one is NaN."""
    _check_tensor("fmax", "input", input)
    _check_tensor("fmax", "other", other)
    a, b = _operands("fmax", input, other)
    return _flow.where((a >= b) | _flow.isnan(b), a, b) if _is_float(a.dtype) else _flow.maximum(a, b)


def fmin(input, other):
    """Elementwise minimum that ignores NaN: the other value where one is NaN."""
    _check_tensor("fmin", "input", input)
    _check_tensor("fmin", "other", other)
    a, b = _operands("fmin", input, other)
    return _flow.where((a <= b) | _flow.isnan(b), a, b) if _is_float(a.dtype) else _flow.minimum(a, b)


def signbit(input):
    """Whether each element's sign bit is set (true for -0.0)."""
    _check_tensor("signbit", "input", input)
    if _name(input.dtype) == "bool":
        return _flow.zeros_like(input, dtype=_flow.bool)
    if not _is_float(input.dtype):
        return input < 0
    # -0.0 has its sign bit set; 1 / -0.0 = -inf tells it from +0.0.
    return (input < 0) | ((input == 0) & ((1.0 / input) < 0))


def copysign(input, other):
    """``|input|`` with the sign of ``other`` (as its sign bit: -0.0 counts as negative)."""
    a, b = _operands("copysign", input, other, _float_dtype(input, other))
    mag = a.abs()
    out = _flow.where(signbit(b.detach()), -mag, mag)
    # PyTorch's gradient of ``other`` is zero, not absent: a never-taken branch gives it.
    return _flow.where(_flow.zeros_like(out, dtype=_flow.bool), b, out) if b.requires_grad else out


def _check_integral(fn: str, *values) -> None:
    for v in values:
        if isinstance(v, _Tensor) and (_is_float(v.dtype) or _name(v.dtype) == "bool"):
            raise NotImplementedError(f"\"{fn}_cpu\" not implemented for '{_dtype_name(v.dtype)}'")


def gcd(input, other):
    """The elementwise greatest common divisor (non-negative) of integer tensors."""
    _check_tensor("gcd", "input", input)
    _check_integral("gcd", input, other)
    a, b = _operands("gcd", input, other)
    a, b = _flow.broadcast_tensors(a.abs(), b.abs())
    # Euclid's algorithm on every element at once; done elements keep b == 0.
    while builtins.bool((b != 0).any().item()):
        nz = b != 0
        safe = _flow.where(nz, b, _flow.ones_like(b))
        a, b = _flow.where(nz, b, a), _flow.where(nz, _flow.remainder(a, safe), b)
    return a


def lcm(input, other):
    """The elementwise least common multiple (non-negative) of integer tensors; 0 when either is 0."""
    _check_tensor("lcm", "input", input)
    _check_integral("lcm", input, other)
    a, b = _operands("lcm", input, other)
    g = gcd(a, b)
    safe = _flow.where(g == 0, _flow.ones_like(g), g)
    return _flow.where(g == 0, _flow.zeros_like(g), (_flow.div(a, safe, rounding_mode="trunc") * b).abs())


def frac(input):
    """The fractional part, ``input - trunc(input)``."""
    _check_tensor("frac", "input", input)
    _not_for("frac_cpu", input)
    return input - _flow.trunc(input)


def logit(input, eps: float | None = None):
    """``log(p / (1 - p))``, with ``p`` clamped to ``[eps, 1 - eps]`` when ``eps`` is given."""
    _check_tensor("logit", "input", input)
    x = input if _is_float(input.dtype) else input.to(_flow.get_default_dtype())
    if eps is not None:
        x = _flow.clamp(x, eps, 1 - eps)
    return _flow.log(x / (1 - x))


def heaviside(input, values):
    """The Heaviside step: 0 where ``input < 0``, ``values`` where it is 0, 1 where positive."""
    _check_tensor("heaviside", "input", input)
    _check_tensor("heaviside", "values", values)
    if input.dtype != values.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes")
    step = (input > 0).to(input.dtype)
    return _flow.where(input == 0, values.to(input.dtype), step)


def nextafter(input, other):
    """The next floating-point value after ``input`` towards ``other``.

    Needs the floats' bits, which no op exposes, so it runs in NumPy (not differentiable, as in
    PyTorch)."""
    import numpy as np

    _check_tensor("nextafter", "input", input)
    _check_tensor("nextafter", "other", other)
    if input.dtype != other.dtype:
        raise RuntimeError(f"expected scalar type {_dtype_name(input.dtype)} but found {_dtype_name(other.dtype)}")
    if not _is_float(input.dtype) or _name(input.dtype) == "bfloat16":  # NumPy has no bfloat16
        raise NotImplementedError(f"\"nextafter_cpu\" not implemented for '{_dtype_name(input.dtype)}'")
    out = np.nextafter(input.detach().cpu().numpy(), other.detach().cpu().numpy())
    return _flow.tensor(out, dtype=input.dtype, device=input.device)


def ldexp(input, other):
    """``input * 2 ** other``."""
    a, b = _operands("ldexp", input, other, _float_dtype(input, other))
    return a * _flow.pow(2.0, b)


def float_power(input, exponent):
    """``input ** exponent`` computed in float64."""
    a, b = _operands("float_power", input, exponent, _flow.float64)
    return _flow.pow(a, b)


def true_divide(dividend, divisor):
    """``div`` without rounding (an alias)."""
    return _flow.div(dividend, divisor)


def not_equal(input, other):
    """``input != other`` (an alias of ``ne``)."""
    return _flow.ne(input, other)


def positive(input):
    """``input`` itself (the unary ``+``); refused for bool tensors."""
    _check_tensor("positive", "input", input)
    if input.dtype == _flow.bool:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


def rad2deg(input):
    """Angles in radians to degrees."""
    _check_tensor("rad2deg", "input", input)
    x = input if _is_float(input.dtype) else input.to(_flow.get_default_dtype())
    return x * (180.0 / math.pi)


def deg2rad(input):
    """Angles in degrees to radians."""
    _check_tensor("deg2rad", "input", input)
    x = input if _is_float(input.dtype) else input.to(_flow.get_default_dtype())
    return x * (math.pi / 180.0)


# ---- reductions and scans ------------------------------------------------------------------------


def logcumsumexp(input, dim: int):
    """``log(cumsum(exp(input), dim))`` without overflow: a log-step scan of ``logaddexp``."""
    _check_tensor("logcumsumexp", "input", input)
    _not_for("logcumsumexp_out_cpu", input)
    if input.dim() == 0:
        _dims_of("logcumsumexp", dim, 0)
        return input.clone()
    d = _dims_of("logcumsumexp", dim, input.dim())[0]
    n = input.shape[d]
    out = input
    s = 1
    while s < n:
        head = out.narrow(d, 0, s)
        tail = _flow.logaddexp(out.narrow(d, s, n - s), out.narrow(d, 0, n - s))
        out = _flow.cat([head, tail], d)
        s *= 2
    return out if out is not input else input.clone()


def _dims_of(fn: str, dim, ndim: int) -> list:
    dims = [dim] if isinstance(dim, numbers.Integral) else list(dim)
    lo, hi = (-ndim, ndim - 1) if ndim else (-1, 0)
    out = []
    for d in dims:
        if isinstance(d, builtins.bool) or not isinstance(d, numbers.Integral):
            raise TypeError(f"{fn}(): argument 'dim' must be int or tuple of ints, not {type(d).__name__}")
        if not lo <= d <= hi:
            raise IndexError(f"Dimension out of range (expected to be in range of [{lo}, {hi}], but got {d})")
        out.append(d % ndim if ndim else 0)
    return out


def nanmean(input, dim=None, keepdim: bool = False, *, dtype=None):
    """The mean of the non-NaN elements (NaN where all are NaN)."""
    _check_tensor("nanmean", "input", input)
    if not _is_float(input.dtype):
        raise RuntimeError(
            f"nanmean(): expected input to have floating point or complex dtype but got {_dtype_name(input.dtype)}"
        )
    x = input if dtype is None else input.to(dtype)
    count = (~_flow.isnan(x)).sum(dim=dim, keepdim=keepdim) if dim is not None else (~_flow.isnan(x)).sum()
    total = _flow.nansum(x, dim=dim, keepdim=keepdim) if dim is not None else _flow.nansum(x)
    return total / count


def count_nonzero(input, dim=None):
    """How many elements are nonzero, over ``dim`` (an int or a tuple) or all of them."""
    _check_tensor("count_nonzero", "input", input)
    nz = input != 0
    if dim is None:
        return nz.sum()
    return nz.sum(dim=tuple(_dims_of("count_nonzero", dim, input.dim())))


def aminmax(input, *, dim=None, keepdim: bool = False):
    """``(min, max)`` of ``input`` over ``dim`` (all elements when None), as a named tuple."""
    _check_tensor("aminmax", "input", input)
    if input.numel() == 0 and dim is None:
        raise RuntimeError(
            "aminmax(): cannot compute aminmax over an empty dimension as the operation has no identity."
        )
    if dim is None:
        lo, hi = input.amin(), input.amax()
        if keepdim:
            shape = [1] * input.dim()
            lo, hi = lo.reshape(shape), hi.reshape(shape)
    else:
        _dims_of("aminmax", dim, input.dim())
        lo, hi = input.amin(dim, keepdim=keepdim), input.amax(dim, keepdim=keepdim)
    return _return_types.make("aminmax", ("min", "max"), (lo, hi))


def ravel(input):
    """``input`` flattened to 1-D (a view when it is contiguous)."""
    _check_tensor("ravel", "input", input)
    return input.reshape(-1)


# ---- broadcasting, stacking and splitting --------------------------------------------------------


def broadcast_shapes(*shapes):
    """The shape that tensors of ``shapes`` broadcast to."""
    dims: list = []
    for shape in shapes:
        shape = [shape] if isinstance(shape, numbers.Integral) else list(shape)
        for s in shape:
            if not isinstance(s, numbers.Integral) or isinstance(s, builtins.bool):
                raise RuntimeError(
                    f"Input shapes should be of type ints, a tuple of ints, or a list of ints, got {shape}"
                )
            if s < 0:
                raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {shape}")
        if len(shape) > len(dims):
            dims = [1] * (len(shape) - len(dims)) + dims
        for i, s in enumerate(shape):
            j = len(dims) - len(shape) + i
            if dims[j] == 1:
                dims[j] = s
            elif s != 1 and s != dims[j]:
                raise RuntimeError(
                    f"Shape mismatch: objects cannot be broadcast to a single shape: {tuple(shape)} and "
                    f"the previous shapes' broadcast {tuple(dims)} differ at non-singleton dimension {i}"
                )
    return _flow.Size(dims)


def broadcast_tensors(*tensors):
    """The tensors expanded (as views) to their common broadcast shape."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    for i, t in enumerate(tensors):
        if not isinstance(t, _Tensor):
            raise TypeError(f"broadcast_tensors(): expected Tensor as element {i}, but got {type(t).__name__}")
    shape = broadcast_shapes(*(tuple(t.shape) for t in tensors))
    return tuple(t.expand(*shape) for t in tensors)


def _atleast(fn: str, shape_of, tensors):
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        return tuple(_atleast(fn, shape_of, tuple(tensors[0])))
    if len(tensors) == 1:
        _check_tensor(fn, "input", tensors[0])
        t = tensors[0]
        return t.reshape(shape_of(tuple(t.shape))) if t.dim() < len(shape_of(())) else t
    return tuple(_atleast(fn, shape_of, (t,)) for t in tensors)


def atleast_1d(*tensors):
    """Each tensor with at least 1 dim (a 0-dim one as shape ``(1,)``)."""
    return _atleast("atleast_1d", lambda s: s or (1,), tensors)


def atleast_2d(*tensors):
    """Each tensor with at least 2 dims (``(n,)`` becomes ``(1, n)``)."""
    return _atleast("atleast_2d", lambda s: (1, *s) if len(s) == 1 else (s or (1, 1)), tensors)


def atleast_3d(*tensors):
    """Each tensor with at least 3 dims (``(n,)`` becomes ``(1, n, 1)``, ``(m, n)`` becomes
    ``(m, n, 1)``)."""
    return _atleast(
        "atleast_3d", lambda s: {0: (1, 1, 1), 1: (1, *s, 1), 2: (*s, 1)}.get(len(s), s) if len(s) < 3 else s, tensors
    )


def _tensor_list(fn: str, tensors) -> list:
    if not isinstance(tensors, (list, tuple)):
        raise TypeError(
            f"{fn}(): argument 'tensors' (position 1) must be tuple of Tensors, not {type(tensors).__name__}"
        )
    for i, t in enumerate(tensors):
        if not isinstance(t, _Tensor):
            raise TypeError(
                f"{fn}(): argument 'tensors' (position 1) must be tuple of Tensors, but found element "
                f"of type {type(t).__name__} at pos {i}"
            )
    if not tensors:
        raise RuntimeError(f"{fn} expects a non-empty TensorList")
    return list(tensors)


def hstack(tensors):
    """The tensors concatenated column-wise (along dim 1; dim 0 for 1-D ones)."""
    ts = atleast_1d(_tensor_list("hstack", tensors))
    return _flow.cat(list(ts), 0 if ts[0].dim() == 1 else 1)


def vstack(tensors):
    """The tensors, made at least 2-D, concatenated row-wise (along dim 0)."""
    return _flow.cat(list(atleast_2d(_tensor_list("vstack", tensors))), 0)


row_stack = vstack


def dstack(tensors):
    """The tensors, made at least 3-D, concatenated depth-wise (along dim 2)."""
    return _flow.cat(list(atleast_3d(_tensor_list("dstack", tensors))), 2)


def column_stack(tensors):
    """The tensors as columns: 0- and 1-D ones become ``(n, 1)``, then all are concatenated along
    dim 1."""
    ts = _tensor_list("column_stack", tensors)
    return _flow.cat([t.reshape(t.numel(), 1) if t.dim() <= 1 else t for t in ts], 1)


def dsplit(input, indices_or_sections):
    """Splits ``input`` (at least 3-D) along dim 2, as ``tensor_split`` does; an int must divide
    the dim."""
    _check_tensor("dsplit", "input", input)
    if input.dim() < 3:
        raise RuntimeError(
            f"torch.dsplit requires a tensor with at least 3 dimension, but got a tensor with {input.dim()} dimensions!"
        )
    if isinstance(indices_or_sections, numbers.Integral) and not isinstance(indices_or_sections, builtins.bool):
        size = input.shape[2]
        if indices_or_sections <= 0 or size % indices_or_sections != 0:
            raise RuntimeError(
                f"torch.dsplit attempted to split along dimension 2, but the size of the dimension {size} "
                f"is not divisible by the split_size {indices_or_sections}!"
            )
        return _flow.tensor_split(input, int(indices_or_sections), 2)
    if isinstance(indices_or_sections, Sequence):
        return _flow.tensor_split(input, list(indices_or_sections), 2)
    raise TypeError(
        "dsplit(): argument 'indices_or_sections' must be int or sequence of ints, "
        f"not {type(indices_or_sections).__name__}"
    )


def flipud(input):
    """``input`` flipped along dim 0."""
    _check_tensor("flipud", "input", input)
    if input.dim() < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return _flow.flip(input, [0])


def fliplr(input):
    """``input`` flipped along dim 1."""
    _check_tensor("fliplr", "input", input)
    if input.dim() < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return _flow.flip(input, [1])


def rot90(input, k: int = 1, dims=(0, 1)):
    """``input`` rotated by 90 degrees ``k`` times in the plane of ``dims``, from the first dim
    towards the second."""
    _check_tensor("rot90", "input", input)
    dims = list(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    nd = input.dim()
    if nd < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {nd}")
    d0, d1 = _dims_of("rot90", dims, nd)
    if d0 == d1:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {d0} and dim1 = {d1}")
    k = k % 4
    if k == 1:
        return _flow.flip(input, [d1]).transpose(d0, d1)
    if k == 2:
        return _flow.flip(input, [d0, d1])
    if k == 3:
        return _flow.flip(input, [d0]).transpose(d0, d1)
    return input.clone()


__all__ = [
    "promote_types", "result_type", "can_cast", "isclose", "allclose", "xlogy", "sinc", "fmax", "fmin",
    "signbit", "copysign", "gcd", "lcm", "frac", "logit", "heaviside", "nextafter", "ldexp", "float_power",
    "true_divide", "not_equal", "positive", "rad2deg", "deg2rad", "logcumsumexp", "nanmean", "count_nonzero",
    "aminmax", "ravel", "broadcast_shapes", "broadcast_tensors", "atleast_1d", "atleast_2d", "atleast_3d",
    "hstack", "vstack", "row_stack", "dstack", "column_stack", "dsplit", "flipud", "fliplr", "rot90",
]  # fmt: skip
