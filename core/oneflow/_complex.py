"""Complex tensors: ``oneflow.complex64`` / ``complex128`` and the ops on them.

A complex tensor stores a real tensor with a trailing dimension of 2 holding the
interleaved real and imaginary parts, exactly the layout ``view_as_real`` exposes.
Every complex op is a composition of real ops on that tensor, so autograd comes for
free; the gradient of the stored real tensor is ``[dL/dRe, dL/dIm]``, which read as
a complex number is PyTorch's convention (the conjugate Wirtinger derivative times 2).
"""

from __future__ import annotations

import builtins
import math

import numpy as np

import oneflow


class ComplexDtype:
    """A complex dtype; its real counterpart holds each part."""

    is_complex = True
    is_floating_point = False
    is_signed = True

    def __init__(self, name: str, real_dtype, numpy_dtype):
        self._name = name
        self.real_dtype = real_dtype
        self.numpy_dtype = numpy_dtype
        self.itemsize = np.dtype(numpy_dtype).itemsize

    def to_real(self):
        return self.real_dtype

    def to_complex(self):
        return self

    def __repr__(self) -> str:
        return f"oneflow.{self._name}"

    def __reduce__(self):
        return (getattr, (oneflow, self._name))


# NumPy has no complex32, so its values convert through complex64.
complex32 = ComplexDtype("complex32", oneflow.float16, np.complex64)
complex64 = ComplexDtype("complex64", oneflow.float32, np.complex64)
complex128 = ComplexDtype("complex128", oneflow.float64, np.complex128)
_BY_REAL = {oneflow.float16: complex32, oneflow.float32: complex64, oneflow.float64: complex128}


def _complex_of(real_dtype) -> ComplexDtype:
    if real_dtype in _BY_REAL:
        return _BY_REAL[real_dtype]
    return _BY_REAL[oneflow.get_default_dtype()]


def _dim(d: int, ndim: int) -> int:
    """A dim of the complex tensor as a dim of its real storage (the trailing 2 excluded)."""
    return d if d >= 0 else d - 1


class ComplexTensor:
    """A complex tensor (see the module docstring for its layout)."""

    __slots__ = ("_ri",)

    def __init__(self, ri):
        self._ri = ri

    # ---- parts and metadata -------------------------------------------------------------
    @property
    def real(self):
        return self._ri.select(-1, 0)

    @property
    def imag(self):
        return self._ri.select(-1, 1)

    @property
    def shape(self):
        return oneflow.Size(tuple(self._ri.shape)[:-1])

    def size(self, dim=None):
        return self.shape if dim is None else self.shape[dim]

    @property
    def ndim(self) -> int:
        return self._ri.ndim - 1

    def dim(self) -> int:
        return self.ndim

    def numel(self) -> int:
        return self._ri.numel() // 2

    def __len__(self) -> int:
        if self.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self.shape[0]

    @property
    def dtype(self):
        return _complex_of(self._ri.dtype)

    @property
    def device(self):
        return self._ri.device

    @property
    def is_leaf(self):
        return self._ri.is_leaf

    @property
    def grad_fn(self):
        return self._ri.grad_fn

    @property
    def requires_grad(self):
        return self._ri.requires_grad

    @requires_grad.setter
    def requires_grad(self, value):
        self._ri.requires_grad = value

    def requires_grad_(self, requires_grad=True):
        self._ri.requires_grad_(requires_grad)
        return self

    @property
    def grad(self):
        g = self._ri.grad
        return None if g is None else ComplexTensor(g)

    @grad.setter
    def grad(self, value):
        self._ri.grad = None if value is None else value._ri

    def retain_grad(self):
        self._ri.retain_grad()

    def backward(self, gradient=None, retain_graph=None, create_graph=False):
        """Backpropagates from this tensor; a complex output needs a complex ``gradient``."""
        if gradient is None:
            raise RuntimeError("backward: grad can be implicitly created only for real scalar outputs")
        self._ri.backward(as_complex(gradient)._ri, retain_graph=retain_graph, create_graph=create_graph)

    def is_complex(self) -> bool:
        return True

    def is_floating_point(self) -> bool:
        return False

    def is_conj(self) -> bool:
        return False

    def is_neg(self) -> bool:
        return False

    def resolve_conj(self):
        return self

    def resolve_neg(self):
        return self

    def detach(self):
        return ComplexTensor(self._ri.detach())

    def clone(self):
        return ComplexTensor(self._ri.clone())

    def contiguous(self):
        return ComplexTensor(self._ri.contiguous())

    def to(self, *args, **kwargs):
        dtype = kwargs.pop("dtype", None)
        rest = []
        for a in args:
            if isinstance(a, ComplexDtype) or a in _BY_REAL or isinstance(a, oneflow.dtype):
                dtype = a
            else:
                rest.append(a)
        ri = self._ri.to(*rest, **kwargs) if rest or kwargs else self._ri
        if dtype is None:
            return ComplexTensor(ri)
        if isinstance(dtype, ComplexDtype):
            return ComplexTensor(ri.to(dtype.real_dtype))
        raise TypeError(f"to: casting complex values to {dtype} discards the imaginary part; use .real")

    def chalf(self):
        return ComplexTensor(self._ri.to(oneflow.float16))

    def conj_physical_(self):
        self._ri.select(-1, 1).neg_()
        return self

    def cfloat(self):
        return ComplexTensor(self._ri.to(oneflow.float32))

    def cdouble(self):
        return ComplexTensor(self._ri.to(oneflow.float64))

    def cpu(self):
        return ComplexTensor(self._ri.cpu())

    def numpy(self) -> np.ndarray:
        """The values as a NumPy complex array (a copy)."""
        arr = np.ascontiguousarray(self._ri.detach().cpu().numpy())
        if arr.dtype == np.float16:
            arr = arr.astype(np.float32)
        return arr.view(self.dtype.numpy_dtype)[..., 0]

    def tolist(self):
        return self.numpy().tolist()

    def item(self):
        if self.numel() != 1:
            raise RuntimeError(f"item: a tensor with {self.numel()} elements cannot be converted to a scalar")
        return complex(self.numpy().reshape(-1)[0])

    def __repr__(self) -> str:
        values = self.numpy()
        integral = bool(np.all(values.real == np.round(values.real)) and np.all(values.imag == np.round(values.imag)))
        mode = {} if integral else {"floatmode": "fixed", "precision": 4}
        body = np.array2string(values, separator=", ", prefix="tensor(", **mode)
        suffix = "" if self.dtype is _complex_of(oneflow.get_default_dtype()) else f", dtype={self.dtype!r}"
        if self.grad_fn is not None:
            suffix += f", grad_fn=<{self.grad_fn.name()}>"
        elif self.requires_grad:
            suffix += ", requires_grad=True"
        return f"tensor({body}{suffix})"

    __str__ = __repr__

    # ---- views --------------------------------------------------------------------------
    def __getitem__(self, key):
        if not isinstance(key, tuple):
            key = (key,)
        if any(k is Ellipsis for k in key):
            return ComplexTensor(self._ri[key + (slice(None),)])
        return ComplexTensor(self._ri[key + (Ellipsis, slice(None))])

    def __setitem__(self, key, value):
        if not isinstance(key, tuple):
            key = (key,)
        tail = (slice(None),) if any(k is Ellipsis for k in key) else (Ellipsis, slice(None))
        self._ri[key + tail] = as_complex(value, self.dtype)._ri

    def reshape(self, *shape):
        shape = shape[0] if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape
        return ComplexTensor(self._ri.reshape(*shape, 2))

    view = reshape

    def flatten(self, start_dim=0, end_dim=-1):
        return ComplexTensor(self._ri.flatten(_dim(start_dim, self.ndim), _dim(end_dim, self.ndim)))

    def permute(self, *dims):
        dims = dims[0] if len(dims) == 1 and isinstance(dims[0], (tuple, list)) else dims
        nd = self.ndim
        return ComplexTensor(self._ri.permute(*[d % nd for d in dims], nd))

    def transpose(self, d0, d1):
        return ComplexTensor(self._ri.transpose(_dim(d0, self.ndim), _dim(d1, self.ndim)))

    def movedim(self, source, destination):
        return ComplexTensor(self._ri.movedim(_dim(source, self.ndim), _dim(destination, self.ndim)))

    @property
    def T(self):
        return self.permute(*reversed(range(self.ndim)))

    @property
    def mT(self):
        return self.transpose(-2, -1)

    @property
    def mH(self):
        return self.transpose(-2, -1).conj()

    def unsqueeze(self, d):
        return ComplexTensor(self._ri.unsqueeze(d if d >= 0 else d - 1))

    def squeeze(self, d=None):
        if d is None:
            shape = [s for s in self.shape if s != 1]
            return self.reshape(*shape)
        return ComplexTensor(self._ri.squeeze(_dim(d, self.ndim)))

    def expand(self, *shape):
        shape = shape[0] if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape
        return ComplexTensor(self._ri.expand(*shape, 2))

    def roll(self, shifts, dims):
        if isinstance(dims, int):
            dims = (dims,)
            shifts = (shifts,)
        return ComplexTensor(self._ri.roll(tuple(shifts), tuple(_dim(d, self.ndim) for d in dims)))

    # ---- elementwise --------------------------------------------------------------------
    def conj(self):
        return ComplexTensor(oneflow.stack([self.real, -self.imag], -1))

    conj_physical = conj

    def abs(self):
        return oneflow.sqrt(self.real * self.real + self.imag * self.imag)

    absolute = abs

    def angle(self):
        return oneflow.atan2(self.imag, self.real)

    def sgn(self):
        mag = self.abs()
        safe = oneflow.where(mag == 0, oneflow.ones_like(mag), mag)
        return _pack(self.real / safe, self.imag / safe)

    def __neg__(self):
        return ComplexTensor(-self._ri)

    neg = __neg__

    def __pos__(self):
        return self

    def __add__(self, other):
        o = as_complex(other, self.dtype)
        return _pack(self.real + o.real, self.imag + o.imag)

    __radd__ = add = __add__

    def __sub__(self, other):
        o = as_complex(other, self.dtype)
        return _pack(self.real - o.real, self.imag - o.imag)

    sub = __sub__

    def __rsub__(self, other):
        return as_complex(other, self.dtype) - self

    def __mul__(self, other):
        if isinstance(other, (int, float)) or (isinstance(other, oneflow.Tensor) and not is_complex(other)):
            o = other if not isinstance(other, oneflow.Tensor) else other.unsqueeze(-1)
            return ComplexTensor(self._ri * o)
        o = as_complex(other, self.dtype)
        a, b, c, d = self.real, self.imag, o.real, o.imag
        return _pack(a * c - b * d, a * d + b * c)

    __rmul__ = mul = __mul__

    def __truediv__(self, other):
        if isinstance(other, (int, float)) or (isinstance(other, oneflow.Tensor) and not is_complex(other)):
            o = other if not isinstance(other, oneflow.Tensor) else other.unsqueeze(-1)
            return ComplexTensor(self._ri / o)
        o = as_complex(other, self.dtype)
        a, b, c, d = self.real, self.imag, o.real, o.imag
        den = c * c + d * d
        return _pack((a * c + b * d) / den, (b * c - a * d) / den)

    div = divide = __truediv__

    def __rtruediv__(self, other):
        return as_complex(other, self.dtype) / self

    def reciprocal(self):
        den = self.real * self.real + self.imag * self.imag
        return _pack(self.real / den, -self.imag / den)

    def exp(self):
        mag = oneflow.exp(self.real)
        return _pack(mag * oneflow.cos(self.imag), mag * oneflow.sin(self.imag))

    def log(self):
        return _pack(oneflow.log(self.abs()), self.angle())

    def sqrt(self):
        return self.pow(0.5)

    def pow(self, exponent):
        if isinstance(exponent, (int, float)):
            r = self.abs() ** exponent
            theta = self.angle() * exponent
            return _pack(r * oneflow.cos(theta), r * oneflow.sin(theta))
        return (as_complex(exponent, self.dtype) * self.log()).exp()

    __pow__ = pow

    def __rpow__(self, base):
        return (self * as_complex(base, self.dtype).log()).exp()

    def __eq__(self, other):
        o = as_complex(other, self.dtype)
        return (self.real == o.real) & (self.imag == o.imag)

    def __ne__(self, other):
        return ~(self == other)

    __hash__ = object.__hash__

    def isreal(self):
        return self.imag == 0

    def isfinite(self):
        return oneflow.isfinite(self.real) & oneflow.isfinite(self.imag)

    def isnan(self):
        return oneflow.isnan(self.real) | oneflow.isnan(self.imag)

    # ---- reductions and contractions ------------------------------------------------------
    def _reduce(self, fn, dim=None, keepdim=False):
        if dim is None:
            return ComplexTensor(fn(self._ri.reshape(-1, 2), 0))
        dims = (dim,) if isinstance(dim, int) else tuple(dim)
        return ComplexTensor(fn(self._ri, tuple(_dim(d, self.ndim) for d in dims), keepdim=keepdim))

    def sum(self, dim=None, keepdim=False):
        return self._reduce(oneflow.sum, dim, keepdim)

    def mean(self, dim=None, keepdim=False):
        return self._reduce(oneflow.mean, dim, keepdim)

    def matmul(self, other):
        o = as_complex(other, self.dtype)
        a, b, c, d = self.real, self.imag, o.real, o.imag
        return _pack(a @ c - b @ d, a @ d + b @ c)

    __matmul__ = matmul

    def __rmatmul__(self, other):
        return as_complex(other, self.dtype).matmul(self)

    # ---- spectral --------------------------------------------------------------------------
    def istft(self, *args, **kwargs):
        from oneflow._spectral import istft

        return istft(self, *args, **kwargs)


def _pack(re, im) -> ComplexTensor:
    return ComplexTensor(oneflow.stack([re, im], -1))


def is_complex(input) -> bool:
    """is_complex(input) -> bool

    Whether ``input`` has a complex dtype.
    """
    return isinstance(input, ComplexTensor) or bool(getattr(getattr(input, "dtype", None), "is_complex", False))


def as_complex(value, dtype: ComplexDtype | None = None) -> ComplexTensor:
    """``value`` (complex tensor, real tensor or Python number) as a complex tensor."""
    if isinstance(value, ComplexTensor):
        return value if dtype is None or value.dtype is dtype else value.to(dtype)
    real = dtype.real_dtype if dtype is not None else None
    if isinstance(value, oneflow.Tensor):
        re = value if real is None or value.dtype == real else value.to(real)
        if not re.is_floating_point():
            re = re.to(oneflow.get_default_dtype())
        return _pack(re, oneflow.zeros_like(re))
    if isinstance(value, (builtins.int, builtins.float, builtins.complex, np.number)):
        c = builtins.complex(value)
        real = real or oneflow.get_default_dtype()
        return ComplexTensor(oneflow.tensor([c.real, c.imag], dtype=real))
    raise TypeError(f"expected a tensor or a number, got {type(value).__name__}")


def from_numpy_complex(array: np.ndarray, requires_grad: bool = False, device=None) -> ComplexTensor:
    real = oneflow.float64 if array.dtype == np.complex128 else oneflow.float32
    ri = np.stack([array.real, array.imag], -1)
    return ComplexTensor(oneflow.tensor(ri, dtype=real, device=device, requires_grad=requires_grad))


def view_as_real(input):
    """view_as_real(input) -> Tensor

    A real view of a complex tensor with a trailing dimension of size 2 (real, imaginary);
    it shares ``input``'s storage.
    """
    if not isinstance(input, ComplexTensor):
        raise RuntimeError(f"view_as_real: expected a complex tensor, got dtype {input.dtype}")
    return input._ri


def view_as_complex(input):
    """view_as_complex(input) -> Tensor

    A complex view of a real tensor whose last dimension has size 2; shares its storage.
    """
    if not isinstance(input, oneflow.Tensor) or input.dtype not in _BY_REAL:
        got = getattr(input, "dtype", type(input).__name__)
        raise RuntimeError(f"view_as_complex: expected a float16, float32 or float64 tensor, got {got}")
    if input.ndim == 0 or input.shape[-1] != 2:
        raise RuntimeError(f"view_as_complex: the last dimension must have size 2, got shape {tuple(input.shape)}")
    if input.stride(-1) != 1:
        raise RuntimeError("view_as_complex: the last dimension must have stride 1")
    return ComplexTensor(input)


def complex(real, imag):
    """complex(real, imag) -> Tensor

    The complex tensor ``real + 1j * imag``; both must be float32 or float64 of the same dtype.
    """
    for name, t in (("real", real), ("imag", imag)):
        if not isinstance(t, oneflow.Tensor) or t.dtype not in _BY_REAL:
            got = getattr(t, "dtype", type(t).__name__)
            raise RuntimeError(f"complex: expected {name} to be a float16, float32 or float64 tensor, got {got}")
    if real.dtype != imag.dtype:
        raise RuntimeError(f"complex: expected real and imag to have the same dtype, got {real.dtype} and {imag.dtype}")
    re, im = oneflow.broadcast_tensors(real, imag)
    return _pack(re, im)


def polar(abs, angle):
    """polar(abs, angle) -> Tensor

    The complex tensor ``abs * (cos(angle) + 1j * sin(angle))``.
    """
    return complex(abs * oneflow.cos(angle), abs * oneflow.sin(angle))


def _unary(name, real_fn):
    def fn(input, *args, **kwargs):
        if isinstance(input, ComplexTensor):
            return getattr(input, name)(*args, **kwargs)
        return real_fn(input, *args, **kwargs)

    fn.__name__ = name
    fn.__doc__ = f"{name}(input) -> Tensor\n\nLike PyTorch's ``{name}``; complex inputs are supported."
    return fn


def real(input):
    """real(input) -> Tensor

    The real part of a complex tensor (a view); a real tensor is returned as is.
    """
    return input.real if isinstance(input, ComplexTensor) else input


def imag(input):
    """imag(input) -> Tensor

    The imaginary part of a complex tensor (a view).
    """
    if not isinstance(input, ComplexTensor):
        raise RuntimeError("imag: imag is not implemented for tensors with non-complex dtypes")
    return input.imag


def conj(input):
    """conj(input) -> Tensor

    The complex conjugate; a real tensor is returned as is.
    """
    return input.conj() if isinstance(input, ComplexTensor) else input


def angle(input):
    """angle(input) -> Tensor

    The argument of each element in radians (0 or pi for real input).
    """
    if isinstance(input, ComplexTensor):
        return input.angle()
    x = input if input.is_floating_point() else input.to(oneflow.get_default_dtype())
    return oneflow.where(x < 0, oneflow.full_like(x, math.pi), oneflow.zeros_like(x)) + x * 0


def isreal(input):
    """isreal(input) -> Tensor

    Whether each element has a zero imaginary part (always true for real input).
    """
    if isinstance(input, ComplexTensor):
        return input.isreal()
    return oneflow.ones_like(input, dtype=oneflow.bool)


def conj_physical(input):
    """conj_physical(input) -> Tensor

    The complex conjugate, computed eagerly; a real tensor is returned as is.
    """
    return conj(input)


def conj_physical_(input):
    """conj_physical_(input) -> Tensor

    In-place :func:`conj_physical`.
    """
    return input.conj_physical_() if isinstance(input, ComplexTensor) else input


def _resolve(input):
    return input


def _is_false(input) -> bool:
    return False
