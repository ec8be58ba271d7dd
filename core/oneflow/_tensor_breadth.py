"""The ``torch.Tensor`` attributes and methods the registry and ``_torch_breadth_methods`` leave out
(issue 16): PyTorch's aliases (``divide``, ``multiply``, ``greater``, ...), in-place twins
(``gt_``, ``arccos_``, ``cumsum_``, ...), the matrix views (``mT``, ``mH``, ``H``), the metadata
(``is_cpu``, ``nbytes``, ``itemsize``, ``type()``), the random fills (``exponential_``,
``cauchy_``, ...) and a few compositions (``renorm``, ``put_``, ``repeat_interleave``, ...).

Each one composes existing ops, so autograd comes for free. Names the Tensor already has are left
alone: the registry's and ``_torch_breadth_methods``' win. ``Tensor.type()`` follows OneFlow and
names the legacy class ``oneflow.FloatTensor`` (``oneflow.cuda.FloatTensor`` on CUDA) where
PyTorch says ``torch.FloatTensor``; both spellings are accepted as arguments."""

from __future__ import annotations

import math

import numpy as np

import oneflow as _flow
from oneflow import _compat, return_types
from oneflow._torch_breadth import _dtype_name
from oneflow._torch_breadth_methods import _inplace

_Tensor = _flow.Tensor

# PyTorch's alias -> the Tensor method it names.
ALIASES = {
    "divide": "div", "divide_": "div_", "multiply": "mul", "multiply_": "mul_", "subtract": "sub",
    "subtract_": "sub_", "greater": "gt", "greater_equal": "ge", "less": "lt", "less_equal": "le",
    "absolute": "abs", "absolute_": "abs_", "arctan2": "atan2", "fix": "trunc", "fix_": "trunc_", "sgn": "sign",
    "ger": "outer", "broadcast_to": "expand", "unsafe_chunk": "chunk", "unsafe_split": "split",
}  # fmt: skip

# In-place twins computed out of place and copied into self (the shape and dtype checks of
# _torch_breadth_methods._inplace): name -> the out-of-place Tensor method.
INPLACE = {
    "eq_": "eq", "ne_": "ne", "lt_": "lt", "le_": "le", "gt_": "gt", "ge_": "ge", "greater_": "gt",
    "greater_equal_": "ge", "less_": "lt", "less_equal_": "le", "arccos_": "acos", "arccosh_": "acosh",
    "arcsin_": "asin", "arcsinh_": "asinh", "arctan_": "atan", "arctanh_": "atanh", "arctan2_": "atan2",
    "logical_and_": "logical_and", "logical_or_": "logical_or", "logical_xor_": "logical_xor",
    "logical_not_": "logical_not", "cumsum_": "cumsum", "cumprod_": "cumprod", "digamma_": "digamma",
    "sgn_": "sign", "exp2_": "exp2", "renorm_": "renorm", "bitwise_left_shift_": "bitwise_left_shift",
    "bitwise_right_shift_": "bitwise_right_shift",
}  # fmt: skip


def _check_tensor(fn: str, name: str, value) -> None:
    if not isinstance(value, _Tensor):
        raise TypeError(f"{fn}(): argument '{name}' (position 1) must be Tensor, not {type(value).__name__}")


# ---- metadata -------------------------------------------------------------------------------------


def _mT(self):
    if self.dim() < 2:
        raise RuntimeError(
            f"tensor.mT is only supported on matrices or batches of matrices. Got {self.dim()}-D tensor."
        )
    return self.transpose(-2, -1)


def _H(self):
    if self.dim() not in (0, 2):
        raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got {self.dim()}-D tensor.")
    return self if self.dim() == 0 else self.transpose(0, 1)


def _mH(self):
    if self.dim() < 2:
        raise RuntimeError(
            f"tensor.mH is only supported on matrices or batches of matrices. Got {self.dim()}-D tensor."
        )
    return self.transpose(-2, -1)  # real dtypes: the conjugate is the tensor itself


def adjoint(self):
    """The conjugate transpose of the last two dimensions (``mH``)."""
    if self.dim() < 2:
        raise RuntimeError("adjoint() is only supported on matrices or batches of matrices")
    return self.transpose(-2, -1)


_LEGACY_DTYPES = {name: cls.dtype for name, cls in _compat._CPU_TENSOR_TYPES.items()}


def tensor_type(self, dtype=None, non_blocking: bool = False, **kwargs):
    """``type()``: the legacy type name, ``'oneflow.FloatTensor'`` (OneFlow's spelling of PyTorch's
    ``'torch.FloatTensor'``). ``type(dtype)``: this tensor cast to ``dtype``, a dtype, a legacy
    class (``oneflow.LongTensor``) or its name (``'oneflow.LongTensor'``, ``'torch.cuda.FloatTensor'``);
    ``self`` when it already has that type."""
    from oneflow.nn.modules.module import _legacy_tensor_type

    if dtype is None:
        return _legacy_tensor_type(self)
    device = self.device
    if isinstance(dtype, str):
        name = dtype
        for prefix in ("oneflow.", "torch."):
            if name.startswith(prefix):
                name = name[len(prefix) :]
                break
        else:
            raise ValueError(f"invalid type: '{dtype}'")
        if name.startswith("cuda."):
            name, device = name[len("cuda.") :], _flow.device("cuda")
        elif device.type != "cpu":
            device = _flow.device("cpu")
        if name not in _LEGACY_DTYPES:
            raise ValueError(f"invalid type: '{dtype}'")
        dtype = _LEGACY_DTYPES[name]
    elif isinstance(dtype, _compat._TypedTensorMeta):
        dtype, device = dtype.dtype, _flow.device(dtype.device_type)
    elif not isinstance(dtype, _flow.dtype):
        raise TypeError(f"type(): argument 'dtype' must be a dtype or a type name, not {type(dtype).__name__}")
    if dtype == self.dtype and device.type == self.device.type:
        return self
    return self.to(device=device, dtype=dtype)


def _str_name(value) -> str:
    return type(value).__name__


def is_signed(self) -> bool:
    """Whether the dtype holds negative values (not ``uint8`` nor ``bool``)."""
    return self.dtype not in (_flow.uint8, _flow.bool)


def is_complex(self) -> bool:
    """Whether the dtype is complex."""
    return bool(getattr(self.dtype, "is_complex", False))


def is_nonzero(self) -> bool:
    """Whether the single element of ``self`` is nonzero."""
    n = self.numel()
    if n == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if n > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(self.item() != 0)


def is_same_size(self, other) -> bool:
    """Whether ``other`` has ``self``'s shape."""
    _check_tensor("is_same_size", "other", other)
    return tuple(self.shape) == tuple(other.shape)


def dim_order(self) -> tuple:
    """The dimensions from outermost to innermost in memory (by decreasing stride)."""
    strides = self.stride()
    return tuple(sorted(range(self.dim()), key=lambda d: -strides[d]))


def _false(self) -> bool:
    return False


def _self(self):
    return self


# ---- elementwise compositions ---------------------------------------------------------------------


def _floating(x):
    return x if x.is_floating_point() else x.to(_flow.get_default_dtype())


def exp2(self):
    """``2 ** self``, elementwise."""
    return _flow.pow(2.0, _floating(self))


def logaddexp2(self, other):
    """``log2(2 ** self + 2 ** other)``, computed without overflow."""
    _check_tensor("logaddexp2", "other", other)
    a, b = _floating(self), _floating(other)
    m = _flow.maximum(a, b).detach()
    m = _flow.where(m.isinf(), _flow.zeros_like(m), m)
    return m + ((a - m).exp2() + (b - m).exp2()).log2()


def angle(self):
    """The argument of each element: ``pi`` for negative reals, 0 otherwise (NaN stays NaN)."""
    x = _floating(self)
    return _flow.where(x.isnan(), x, (x < 0).to(x.dtype) * math.pi)


def isposinf(self):
    """Whether each element is ``+inf``."""
    return self.isinf() & (self > 0)


def isneginf(self):
    """Whether each element is ``-inf``."""
    return self.isinf() & (self < 0)


def isreal(self):
    """Whether each element has zero imaginary part (all, for real dtypes)."""
    return _flow.ones_like(self, dtype=_flow.bool)


def imag(self):
    raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")


def dist(self, other, p: float = 2):
    """The ``p``-norm of ``self - other``."""
    _check_tensor("dist", "other", other)
    return _flow.linalg.vector_norm(self - other, p)


def diagflat(self, offset: int = 0):
    """A 2-D tensor with the flattened ``self`` on diagonal ``offset``."""
    return _flow.diag(self.flatten(), offset)


def split_with_sizes(self, split_sizes, dim: int = 0):
    """Splits along ``dim`` into pieces of the given sizes (which must sum to that dimension)."""
    if sum(split_sizes) != self.shape[dim]:
        raise RuntimeError(
            f"split_with_sizes expects split_sizes to sum exactly to {self.shape[dim]} (input tensor's size at "
            f"dimension {dim}), but got split_sizes={list(split_sizes)}"
        )
    return self.split(list(split_sizes), dim)


def renorm(self, p: float, dim: int, maxnorm: float):
    """Rescales each slice along ``dim`` whose ``p``-norm exceeds ``maxnorm`` to norm ``maxnorm``."""
    if p <= 0:
        raise RuntimeError(f"renorm: non-positive-norm not supported, got p={p}")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    if not self.is_floating_point():
        raise RuntimeError(f"renorm: expected a floating point tensor, got {self.dtype}")
    dim = dim % max(self.dim(), 1)
    others = [d for d in range(self.dim()) if d != dim]
    norm = _flow.linalg.vector_norm(self, p, dim=others, keepdim=True) if others else self.abs()
    # PyTorch's factor: maxnorm / (norm + 1e-7) where the norm is over maxnorm; its gradient too.
    factor = _flow.where(norm > maxnorm, maxnorm / (norm + 1e-7), _flow.ones_like(norm))
    return self * factor


def matrix_power(self, n: int):
    """``self`` (a square matrix or batch of them) multiplied by itself ``n`` times."""
    if self.dim() < 2 or self.shape[-1] != self.shape[-2]:
        raise RuntimeError(
            "linalg.matrix_power: A must be batches of square matrices, but they are "
            f"{self.shape[-2] if self.dim() >= 2 else 1} by {self.shape[-1] if self.dim() else 1} matrices"
        )
    if not isinstance(n, int):
        raise TypeError(f"matrix_power(): argument 'n' must be int, not {_str_name(n)}")
    if n == 0:
        eye = _flow.eye(self.shape[-1], dtype=self.dtype, device=self.device)
        # PyTorch's result is connected to the graph (with a zero gradient).
        return self * 0 + eye
    base = _flow.linalg.inv(self) if n < 0 else self
    n, result = abs(n), None
    while n:
        if n & 1:
            result = base if result is None else result @ base
        n >>= 1
        if n:
            base = base @ base
    return result


def repeat_interleave(self, repeats, dim: int | None = None, *, output_size: int | None = None):
    """Repeats each element (each slice along ``dim``; of the flattened tensor when ``dim`` is None)
    ``repeats`` times (an int, or a 1-D tensor of one count per element)."""
    x = self.flatten() if dim is None else self
    dim = 0 if dim is None else dim % max(x.dim(), 1)
    n = x.shape[dim] if x.dim() else 1
    counts = repeats.detach().cpu().numpy() if isinstance(repeats, _Tensor) else repeats
    if isinstance(counts, (list, np.ndarray)) and np.size(counts) == 1:
        counts = int(np.reshape(counts, -1)[0])
    if isinstance(counts, (list, np.ndarray)) and np.size(counts) != n:
        raise RuntimeError("repeats must have the same size as input along dim")
    if np.any(np.asarray(counts) < 0):
        raise RuntimeError("repeats can not be negative")
    index = _flow.tensor(np.repeat(np.arange(n), counts), dtype=_flow.int64, device=self.device)
    if output_size is not None and index.numel() != output_size:
        raise RuntimeError(f"repeat_interleave: output_size {output_size} does not match the repeats")
    return x.index_select(dim, index) if x.dim() else x.reshape(1).index_select(0, index)


def repeat_interleave_function(input, repeats=None, dim: int | None = None, *, output_size: int | None = None):
    """oneflow.repeat_interleave(input, repeats, dim=None, *, output_size=None) -> Tensor

    Repeats each element of ``input`` (each slice along ``dim``; of the flattened tensor when
    ``dim`` is None) ``repeats`` times, an int or a 1-D tensor of one count per element. Called
    with only a 1-D integer tensor of counts, it repeats each index ``i`` ``counts[i]`` times.

    Example::

        >>> oneflow.repeat_interleave(oneflow.tensor([[1, 2], [3, 4]]), oneflow.tensor([1, 2]), dim=0)
        tensor([[1, 2],
                [3, 4],
                [3, 4]])
        >>> oneflow.repeat_interleave(oneflow.tensor([2, 0, 1]))
        tensor([0, 0, 2])
    """
    if not isinstance(input, _Tensor):
        name = "repeats" if repeats is None else "input"
        raise TypeError(f"repeat_interleave(): argument '{name}' (position 1) must be Tensor, not {_str_name(input)}")
    if repeats is not None:
        return repeat_interleave(input, repeats, dim, output_size=output_size)
    if input.dim() != 1:
        raise RuntimeError(f"repeat_interleave: repeats must be a 1-D tensor, got {input.dim()}-D")
    if input.is_floating_point() or input.dtype == _flow.bool:
        raise RuntimeError(f"repeat_interleave: repeats must be an integer tensor, got {input.dtype}")
    index = _flow.arange(input.shape[0], dtype=input.dtype, device=input.device)
    return repeat_interleave(index, input, 0, output_size=output_size)


def movedim(self, source, destination):
    """``oneflow.movedim(self, source, destination)``."""
    return _flow.movedim(self, source, destination)


def vdot(self, other):
    """The dot product of two 1-D tensors (the first conjugated: the same for real dtypes)."""
    _check_tensor("vdot", "other", other)
    if self.dim() != 1 or other.dim() != 1:
        raise RuntimeError(f"1D tensors expected, but got {self.dim()}D and {other.dim()}D tensors")
    if self.dtype != other.dtype:
        raise RuntimeError(f"vdot : expected both vectors to have same dtype, but found {self.dtype} and {other.dtype}")
    if self.shape[0] != other.shape[0]:
        raise RuntimeError(
            f"inconsistent tensor size, expected tensor [{self.shape[0]}] and src [{other.shape[0]}] to have the "
            f"same number of elements, but got {self.shape[0]} and {other.shape[0]} elements respectively"
        )
    return (self * other).sum()


def _shift_amount(name: str, self, other):
    if self.is_floating_point() or self.dtype == _flow.bool:
        raise NotImplementedError(f"\"{name}_cpu\" not implemented for '{_dtype_name(self.dtype)}'")
    other = other if isinstance(other, _Tensor) else _flow.tensor(other, dtype=self.dtype, device=self.device)
    return _flow.pow(2, other.to(self.dtype))


def bitwise_left_shift(self, other):
    """``self << other``, elementwise, for integer tensors."""
    return self * _shift_amount("lshift", self, other)


def bitwise_right_shift(self, other):
    """``self >> other`` (arithmetic), elementwise, for integer tensors."""
    return _flow.floor_divide(self, _shift_amount("rshift", self, other))


def frexp(self):
    """``(mantissa, exponent)`` with ``self = mantissa * 2 ** exponent`` and ``0.5 <= |mantissa| < 1``
    (both 0 for 0); the exponent is ``int32``."""
    if not self.is_floating_point():
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    mantissa, exponent = np.frexp(self.detach().cpu().numpy())
    values = (_flow.tensor(mantissa, device=self.device), _flow.tensor(exponent.astype(np.int32), device=self.device))
    return return_types.make("frexp", ("mantissa", "exponent"), values)


def nonzero_static(self, *, size: int, fill_value: int = -1):
    """The indices of the nonzero elements, truncated or padded with ``fill_value`` to ``size`` rows."""
    nz = self.nonzero()[:size]
    pad = size - nz.shape[0]
    if pad > 0:
        fill = _flow.full((pad, self.dim()), fill_value, dtype=nz.dtype, device=nz.device)
        nz = _flow.cat([nz, fill])
    return nz


# ---- random fills ---------------------------------------------------------------------------------


def _uniform_like(self):
    return _flow.rand(*self.shape, dtype=self.dtype, device=self.device)


def _check_floating(name: str, self) -> None:
    if not self.is_floating_point():
        raise RuntimeError(f"{name} expects floating point dtypes, got {self.dtype}")


def exponential_(self, lambd: float = 1.0, *, generator=None):
    """Fills ``self`` with draws from the exponential distribution of rate ``lambd``."""
    _check_floating("exponential_", self)
    if lambd <= 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd}")
    return self.copy_(-(1 - _uniform_like(self)).log() / lambd)


def geometric_(self, p: float, *, generator=None):
    """Fills ``self`` with the number of Bernoulli(``p``) trials up to the first success (>= 1)."""
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p}")
    u = 1 - _flow.rand(*self.shape, dtype=_flow.float64, device=self.device)
    return self.copy_((u.log() / math.log1p(-p)).ceil().clamp(min=1).to(self.dtype))


def cauchy_(self, median: float = 0.0, sigma: float = 1.0, *, generator=None):
    """Fills ``self`` with draws from the Cauchy distribution."""
    _check_floating("cauchy_", self)
    if sigma <= 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={sigma}")
    return self.copy_(median + sigma * (math.pi * (_uniform_like(self) - 0.5)).tan())


def log_normal_(self, mean: float = 1.0, std: float = 2.0, *, generator=None):
    """Fills ``self`` with ``exp`` of draws from the normal distribution ``N(mean, std)``."""
    _check_floating("log_normal_", self)
    if std <= 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={std}")
    return self.copy_(_flow.randn(*self.shape, dtype=self.dtype, device=self.device).mul(std).add(mean).exp())


# ---- in-place writes ------------------------------------------------------------------------------


def fill_diagonal_(self, fill_value, wrap: bool = False):
    """Fills the main diagonal of ``self`` (2-D, or all dimensions equal) with ``fill_value``; with
    ``wrap``, a tall matrix's diagonal restarts every ``columns + 1`` rows."""
    if self.dim() < 2:
        raise RuntimeError("dimensions must larger than 1")
    if self.dim() > 2 and len(set(self.shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    contiguous_strides = np.cumprod((1, *self.shape[::-1][:-1]))[::-1]
    step = int(contiguous_strides.sum())
    numel = self.numel()
    end = numel if (wrap and self.dim() == 2) else min(numel, min(self.shape) * step)
    mask = np.zeros(numel, dtype=bool)
    mask[np.arange(0, end, step)] = True
    if self.dim() == 2 and wrap:
        mask = mask & (np.arange(numel) // self.shape[1] % (self.shape[1] + 1) != self.shape[1])
    return self.masked_fill_(_flow.tensor(mask.reshape(tuple(self.shape)), device=self.device), fill_value)


def put(self, index, source, accumulate: bool = False):
    """A copy of ``self`` with ``source`` written at the flat positions ``index``."""
    _check_tensor("put", "index", index)
    _check_tensor("put", "source", source)
    if index.dtype != _flow.int64:
        raise RuntimeError(f"put_(): Expected a long tensor for index, but got {index.dtype}")
    if index.numel() != source.numel():
        raise IndexError(
            f"put_(): Expected source and index to have the same number of elements, but got "
            f"source.numel() = {source.numel()}, index.numel() = {index.numel()}"
        )
    if self.dtype != source.dtype:
        raise RuntimeError(
            f"put_(): self and source expected to have the same dtype, but got self.dtype = {self.dtype} and "
            f"source.dtype = {source.dtype}"
        )
    flat_index = index.flatten() % max(self.numel(), 1)
    if index.numel() and (index.max().item() >= self.numel() or index.min().item() < -self.numel()):
        raise IndexError(f"put_(): index out of range for a tensor of {self.numel()} elements")
    flat = self.reshape(-1).index_put((flat_index,), source.flatten(), accumulate)
    return flat.reshape(self.shape)


def put_(self, index, source, accumulate: bool = False):
    """Writes ``source`` into ``self`` at the flat positions ``index`` (added when ``accumulate``)."""
    return self.copy_(put(self, index, source, accumulate))


def _check_cpu(name: str, self) -> None:
    if self.device.type != "cpu":
        raise TypeError(f"{name} is only implemented on CPU tensors")


def apply_(self, callable):
    """Replaces each element ``x`` of ``self`` (a CPU tensor) with ``callable(x)``."""
    _check_cpu("apply_", self)
    values = [callable(v) for v in self.flatten().tolist()]
    return self.copy_(_flow.tensor(values, dtype=self.dtype).reshape(self.shape))


def map_(self, tensor, callable):
    """Replaces each element of ``self`` with ``callable(self_value, tensor_value)``, ``tensor``
    broadcast to ``self``'s shape."""
    _check_cpu("map_", self)
    _check_tensor("map_", "tensor", tensor)
    other = tensor.expand(*self.shape).flatten().tolist()
    values = [callable(a, b) for a, b in zip(self.flatten().tolist(), other)]
    return self.copy_(_flow.tensor(values, dtype=self.dtype).reshape(self.shape))


def map2_(self, x, y, callable):
    """Replaces each element of ``self`` with ``callable(self_value, x_value, y_value)``."""
    _check_cpu("map2_", self)
    xs = x.expand(*self.shape).flatten().tolist()
    ys = y.expand(*self.shape).flatten().tolist()
    values = [callable(a, b, c) for a, b, c in zip(self.flatten().tolist(), xs, ys)]
    return self.copy_(_flow.tensor(values, dtype=self.dtype).reshape(self.shape))


def _check_resizable(name: str, self) -> None:
    if self.requires_grad:
        raise RuntimeError("cannot resize variables that require grad")


def resize_(self, *sizes, memory_format=None):
    """Gives ``self`` the shape ``sizes``, keeping its leading values in row-major order (new
    elements are uninitialized)."""
    _check_resizable("resize_", self)
    if len(sizes) == 1 and isinstance(sizes[0], (tuple, list, _flow.Size)):
        sizes = tuple(sizes[0])
    if any(not isinstance(s, int) for s in sizes):
        raise TypeError(f"resize_(): argument 'size' must be tuple of ints, but found {sizes!r}")
    if any(s < 0 for s in sizes):
        raise RuntimeError(f"Trying to create tensor with negative dimension: {list(sizes)}")
    numel = int(np.prod(sizes)) if sizes else 1
    new = _flow.empty(numel, dtype=self.dtype, device=self.device)
    keep = min(numel, self.numel())
    if keep:
        new[:keep] = self.detach().reshape(-1)[:keep]
    self.data = new.reshape(sizes)
    return self


def resize_as_(self, the_template, memory_format=None):
    """``resize_`` to the shape of ``the_template``."""
    _check_tensor("resize_as_", "the_template", the_template)
    return resize_(self, tuple(the_template.shape))


def _reshape_inplace(name: str, view):
    def method(self, *args):
        if self.requires_grad:
            raise RuntimeError(
                f"{name}(): changing the shape in place of a tensor that requires grad is not supported "
                f"here; use the out-of-place {name[:-1]}() instead"
            )
        self.data = view(self, *args)
        return self

    method.__name__ = name
    method.__doc__ = f"In-place ``{name[:-1]}``: ``self`` takes the new shape."
    return method


def new(self, *args, **kwargs):
    """PyTorch's legacy constructor: an uninitialized tensor of the given sizes (or of the given
    data) with ``self``'s dtype and device."""
    dtype, device = kwargs.pop("dtype", self.dtype), kwargs.pop("device", self.device)
    if not args:
        return _flow.empty(0, dtype=dtype, device=device)
    if all(isinstance(a, int) for a in args):
        return _flow.empty(*args, dtype=dtype, device=device)
    if len(args) == 1 and isinstance(args[0], _flow.Size):
        return _flow.empty(*args[0], dtype=dtype, device=device)
    if len(args) == 1:
        return _flow.tensor(args[0], dtype=dtype, device=device)
    raise TypeError(f"new(): expected sizes (ints) or data, got {args!r}")


def new_empty_strided(self, size, stride, *, dtype=None, device=None, requires_grad: bool = False, **kwargs):
    """An uninitialized tensor of ``size`` and ``stride``, with ``self``'s dtype and device by default."""
    if len(size) != len(stride):
        raise RuntimeError(f"mismatch in length of strides and shape: {len(stride)} vs {len(size)}")
    storage = 1 + sum((s - 1) * st for s, st in zip(size, stride)) if all(size) else 0
    base = _flow.empty(storage, dtype=dtype or self.dtype, device=device or self.device)
    return base.as_strided(tuple(size), tuple(stride)).requires_grad_(requires_grad)


METHODS = {
    "adjoint": adjoint, "type": tensor_type, "is_signed": is_signed, "is_complex": is_complex,
    "is_nonzero": is_nonzero, "is_same_size": is_same_size, "dim_order": dim_order, "exp2": exp2,
    "logaddexp2": logaddexp2, "angle": angle, "isposinf": isposinf, "isneginf": isneginf, "isreal": isreal,
    "dist": dist, "diagflat": diagflat, "split_with_sizes": split_with_sizes, "renorm": renorm,
    "matrix_power": matrix_power, "repeat_interleave": repeat_interleave, "movedim": movedim,
    "nonzero_static": nonzero_static, "vdot": vdot, "bitwise_left_shift": bitwise_left_shift,
    "bitwise_right_shift": bitwise_right_shift, "frexp": frexp, "exponential_": exponential_, "geometric_": geometric_,
    "cauchy_": cauchy_, "log_normal_": log_normal_, "fill_diagonal_": fill_diagonal_, "put": put, "put_": put_,
    "apply_": apply_, "map_": map_, "map2_": map2_, "resize_": resize_, "resize_as_": resize_as_, "new": new,
    "new_empty_strided": new_empty_strided, "is_inference": _false, "is_shared": _false,
    "is_pinned": _false, "is_distributed": _false, "is_conj": _false, "is_neg": _false,
    "is_coalesced": _false, "share_memory_": _self, "conj": _self, "resolve_conj": _self,
    "resolve_neg": _self, "imag": property(imag), "real": property(_self),
    "squeeze_": _reshape_inplace("squeeze_", lambda t, *a: t.squeeze(*a)),
    "unsqueeze_": _reshape_inplace("unsqueeze_", lambda t, d: t.unsqueeze(d)),
    "transpose_": _reshape_inplace("transpose_", lambda t, a, b: t.transpose(a, b)),
    "swapaxes_": _reshape_inplace("swapaxes_", lambda t, a, b: t.transpose(a, b)),
    "swapdims_": _reshape_inplace("swapdims_", lambda t, a, b: t.transpose(a, b)),
    "t_": _reshape_inplace("t_", lambda t: t.t()),
    "mT": property(_mT), "mH": property(_mH), "H": property(_H),
    "is_cpu": property(lambda self: self.device.type == "cpu"),
    "nbytes": property(lambda self: self.numel() * self.element_size()),
    "itemsize": property(lambda self: self.element_size()),
    "is_meta": property(_false), "is_sparse": property(_false), "is_sparse_csr": property(_false),
    "is_quantized": property(_false), "is_mkldnn": property(_false), "is_nested": property(_false),
}  # fmt: skip


def install() -> list:
    """Sets the Tensor attributes this module adds (where the Tensor lacks them); returns their names."""
    added = []

    def put_method(name, value):
        if not hasattr(_Tensor, name):
            setattr(_Tensor, name, value)
            added.append(name)

    for name, value in METHODS.items():
        put_method(name, value)
    for alias, target in ALIASES.items():
        put_method(alias, getattr(_Tensor, target))
    for name, target in INPLACE.items():
        put_method(name, _inplace(name[:-1], getattr(_Tensor, target)))
    return added
