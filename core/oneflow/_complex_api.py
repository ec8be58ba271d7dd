"""Installs complex dtypes, complex-aware creation and dispatch into ``oneflow``."""

from __future__ import annotations

import functools

import numpy as np

import oneflow
from oneflow import _complex
from oneflow._complex import ComplexDtype, ComplexTensor

_DISPATCHED = (
    "abs", "absolute", "sgn", "exp", "log", "sqrt", "pow", "reciprocal", "neg", "negative", "add", "sub",
    "mul", "multiply", "div", "divide", "sum", "mean", "matmul", "isfinite", "isnan",
    "reshape", "flatten", "permute", "transpose", "movedim", "unsqueeze", "squeeze", "roll", "clone",
)  # fmt: skip


def _dispatch(name, original):
    def fn(input, *args, **kwargs):
        if isinstance(input, ComplexTensor):
            return getattr(input, name)(*args, **kwargs)
        if name in ("add", "sub", "mul", "multiply", "div", "divide", "matmul", "pow") and args:
            if isinstance(args[0], ComplexTensor):
                return getattr(_complex.as_complex(input, args[0].dtype), name)(*args, **kwargs)
        return original(input, *args, **kwargs)

    return functools.wraps(original)(fn)


def _complex_first(complex_fn, original):
    def fn(input, *args, **kwargs):
        if isinstance(input, ComplexTensor):
            return complex_fn(input, *args, **kwargs)
        return original(input, *args, **kwargs)

    return functools.wraps(original)(fn)


def _joining(original):
    def fn(tensors, dim=0, **kwargs):
        tensors = list(tensors)
        complexes = [t for t in tensors if isinstance(t, ComplexTensor)]
        if not complexes:
            return original(tensors, dim, **kwargs)
        dtype = complexes[0].dtype
        parts = [_complex.as_complex(t, dtype)._ri for t in tensors]
        return ComplexTensor(original(parts, dim if dim >= 0 else dim - 1, **kwargs))

    return functools.wraps(original)(fn)


def _creation(original):
    def fn(*size, dtype=None, **kwargs):
        if isinstance(dtype, ComplexDtype):
            size = size[0] if len(size) == 1 and isinstance(size[0], (tuple, list)) else size
            if original.__name__ in ("randn", "rand"):
                # Both parts random; randn's complex variance 1 splits evenly between them.
                ri = original(*size, 2, dtype=dtype.real_dtype, **kwargs).detach()
                ri = ri * (0.5**0.5) if original.__name__ == "randn" else ri
            else:
                real = original(*size, dtype=dtype.real_dtype, **kwargs)
                ri = oneflow.stack([real, oneflow.zeros_like(real)], -1).detach()
            ri.requires_grad_(bool(kwargs.get("requires_grad", False)))
            return ComplexTensor(ri)
        return original(*size, dtype=dtype, **kwargs)

    return functools.wraps(original)(fn)


def _tensor(original):
    def tensor(data, dtype=None, device=None, requires_grad=False, **kwargs):
        if isinstance(data, ComplexTensor):
            out = data.detach().clone() if dtype is None else data.detach().to(dtype).clone()
            return out.requires_grad_(requires_grad)
        array = None
        if isinstance(dtype, ComplexDtype):
            array = np.asarray(data, dtype=dtype.numpy_dtype)
        elif dtype is None and not isinstance(data, oneflow.Tensor):
            probe = None
            if isinstance(data, np.ndarray):
                probe = data
            elif isinstance(data, (list, tuple, complex, np.complexfloating)):
                try:
                    probe = np.asarray(data)
                except (ValueError, TypeError):  # ragged or odd data: the real constructor explains
                    probe = None
            if probe is not None and np.iscomplexobj(probe):
                if isinstance(data, np.ndarray):
                    array = probe.astype(np.complex64 if probe.dtype != np.complex128 else np.complex128)
                else:  # Python numbers take the default dtype's complex counterpart, as in torch
                    array = probe.astype(_complex._complex_of(oneflow.get_default_dtype()).numpy_dtype)
        if array is not None:
            return _complex.from_numpy_complex(array, requires_grad=requires_grad, device=device)
        return original(data, dtype=dtype, device=device, requires_grad=requires_grad, **kwargs)

    return functools.wraps(original)(tensor)


def _real_to_complex(dtype):
    def method(self):
        return _complex.as_complex(self.to(dtype.real_dtype), dtype)

    return method


def _tensor_to(original):
    def to(self, *args, **kwargs):
        target = kwargs.get("dtype")
        if target is None:
            target = next((a for a in args if isinstance(a, ComplexDtype)), None)
        if isinstance(target, ComplexDtype):
            rest = [a for a in args if not isinstance(a, ComplexDtype)]
            kwargs.pop("dtype", None)
            moved = original(self, *rest, **kwargs) if rest or kwargs else self
            return _complex.as_complex(moved.to(target.real_dtype), target)
        return original(self, *args, **kwargs)

    return to


def install(namespace: dict) -> None:
    namespace["complex64"] = namespace["cfloat"] = _complex.complex64
    namespace["complex128"] = namespace["cdouble"] = _complex.complex128
    namespace["complex32"] = namespace["chalf"] = _complex.complex32
    for name in ("view_as_real", "view_as_complex", "complex", "polar", "isreal"):
        namespace[name] = getattr(_complex, name)
    # Real tensors keep the real-dtype versions already installed (and their argument checks).
    for name in ("real", "imag", "conj", "angle", "conj_physical", "conj_physical_", "is_complex"):
        mine = getattr(_complex, name)
        namespace[name] = _complex_first(mine, namespace[name]) if name in namespace else mine
    for name in ("resolve_conj", "resolve_neg"):
        namespace[name] = _complex_first(_complex._resolve, namespace.get(name, _complex._resolve))
    for name in ("is_conj", "is_neg"):
        namespace[name] = _complex_first(_complex._is_false, namespace.get(name, _complex._is_false))
    namespace.setdefault("sgn", namespace["sign"])
    c_module = namespace["_C"]
    for name in _DISPATCHED:
        if name in namespace:
            original = namespace[name]
            namespace[name] = _dispatch(name, original)
            if getattr(c_module, name, None) is original:  # oneflow._C.<name> is the same function
                setattr(c_module, name, namespace[name])
    for name in ("cat", "concat", "concatenate", "stack"):
        if name in namespace:
            namespace[name] = _joining(namespace[name])
    for name in ("zeros", "ones", "empty", "randn", "rand"):
        if name in namespace:
            namespace[name] = _creation(namespace[name])
    namespace["tensor"] = _tensor(namespace["tensor"])
    is_tensor = namespace["is_tensor"]
    namespace["is_tensor"] = lambda obj: isinstance(obj, ComplexTensor) or is_tensor(obj)
    namespace["is_tensor"].__doc__ = is_tensor.__doc__

    T = oneflow.Tensor
    T.cfloat = _real_to_complex(_complex.complex64)
    T.cdouble = _real_to_complex(_complex.complex128)
    T.chalf = _real_to_complex(_complex.complex32)
    real_methods = {"conj_physical_": lambda self: self}
    T.to = _tensor_to(T.to)
    for name in ("conj", "conj_physical", "resolve_conj", "resolve_neg"):
        real_methods[name] = lambda self: self
    real_methods["is_conj"] = real_methods["is_neg"] = lambda self: False
    real_methods["isreal"] = lambda self: _complex.isreal(self)
    real_methods["angle"] = lambda self: _complex.angle(self)
    for name, method in real_methods.items():
        if not hasattr(T, name):  # the real-dtype versions installed elsewhere win
            setattr(T, name, method)
    if not hasattr(T, "real"):
        T.real = property(lambda self: self)
