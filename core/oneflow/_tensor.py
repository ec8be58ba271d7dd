"""Python-level methods of oneflow.Tensor (the class itself is defined in C++).

Everything per element or per view runs in C++; this module adds what is
Python by nature: printing, conversion to Python objects, the protocol
methods, argument parsing of ``to`` and basic indexing.
"""

from __future__ import annotations

import builtins

import numpy as np

import oneflow
from oneflow import _tensor_str

Tensor = oneflow.Tensor


def _repr(self) -> str:
    values = self if self.dtype != oneflow.bfloat16 else self._to_dtype(oneflow.float32)
    suffixes = []
    if self.device.type != "cpu":
        suffixes.append(f"device='{self.device}'")
    suffixes.append(f"dtype={self.dtype!r}")
    if self.grad_fn is not None:
        suffixes.append(f"grad_fn=<{self.grad_fn.name()}>")
    elif self.requires_grad:
        suffixes.append("requires_grad=True")
    # NumPy reads any layout in place, so even a huge expanded tensor prints without a copy.
    array = values.detach().numpy() if self.device.type == "cpu" else values.cpu().numpy()
    return _tensor_str.format_tensor(array, self.dtype._name, shape=tuple(self.shape), suffixes=suffixes)


def _tolist(self):
    """The tensor as nested Python lists (a Python number for a 0-d tensor)."""
    t = self.detach()
    if t.dtype == oneflow.bfloat16:
        t = t._to_dtype(oneflow.float32)
    return t.numpy().tolist()


def _len(self) -> int:
    if self.ndim == 0:
        raise TypeError("len() of a 0-d tensor")
    return self.shape[0]


def _iter(self):
    if self.ndim == 0:
        raise TypeError("iteration over a 0-d tensor")
    return (self.select(0, i) for i in range(self.shape[0]))


def _scalar_value(self, kind: str):
    if self.numel() != 1:
        raise RuntimeError(
            f"{kind}: a Tensor with {self.numel()} elements cannot be converted to Scalar"
        )
    return self.item()


def _bool(self) -> builtins.bool:
    if self.numel() != 1:
        raise RuntimeError(
            f"Boolean value of Tensor with {'no values' if self.numel() == 0 else 'more than one value'} is ambiguous"
        )
    return builtins.bool(self.item())


def _index(self) -> int:
    if self.dtype.is_floating_point or self.dtype == oneflow.bool or self.numel() != 1:
        raise TypeError("only integer tensors of a single element can be converted to an index")
    return self.item()


def _array(self, dtype=None, copy=None):
    a = self.detach().numpy() if self.dtype != oneflow.bfloat16 else self._to_dtype(oneflow.float32).numpy()
    return a.astype(dtype) if dtype is not None else a


def _parse_to(args, kwargs):
    """Splits Tensor.to's overloads into (device, dtype, copy)."""
    device = kwargs.pop("device", None)
    dtype = kwargs.pop("dtype", None)
    copy = kwargs.pop("copy", False)
    kwargs.pop("non_blocking", None)
    if kwargs:
        raise TypeError(f"to() got an unexpected keyword argument '{next(iter(kwargs))}'")
    for a in args:
        if isinstance(a, oneflow.dtype):
            dtype = a
        elif isinstance(a, Tensor):
            device, dtype = a.device, a.dtype
        elif isinstance(a, (str, oneflow.device, builtins.int)) and not isinstance(a, builtins.bool):
            device = oneflow.device(a)
        elif isinstance(a, builtins.bool):
            copy = a
        else:
            raise TypeError(f"to() received an invalid combination of arguments: got {type(a).__name__}")
    return (oneflow.device(device) if device is not None else None), dtype, copy


def _to(self, *args, **kwargs):
    """Converts dtype and/or device: ``t.to(oneflow.float64)``, ``t.to("cuda:0")``, ``t.to(other)``.

    Returns ``self`` when nothing changes and ``copy`` is False.
    """
    device, dtype, copy = _parse_to(args, dict(kwargs))
    out = self
    if dtype is not None and dtype != out.dtype or copy:
        out = out._to_dtype(dtype or out.dtype, copy=True)
    if device is not None and (device.type != out.device.type or
                               (device.index is not None and device.index != (out.device.index or 0))):
        out = oneflow.empty(out.shape, dtype=out.dtype, device=device).copy_(out)
    return out


# Basic indexing: ints, slices (with positive steps), None, Ellipsis.
def _expand_index(self, index):
    if not isinstance(index, tuple):
        index = (index,)
    for i in index:
        if not (i is None or i is Ellipsis or isinstance(i, slice) or
                (hasattr(i, "__index__") and not isinstance(i, (builtins.bool, Tensor)))):
            raise TypeError(
                "only integers, slices (`:`), ellipsis (`...`) and None are valid indices "
                f"so far (got {type(i).__name__}); tensor and boolean indices are not supported yet"
            )
    consumed = builtins.sum(1 for i in index if i is not None and i is not Ellipsis)
    if consumed > self.ndim:
        raise IndexError(f"too many indices for tensor of dimension {self.ndim}")
    if Ellipsis in index:
        at = index.index(Ellipsis)
        # Like PyTorch, the first ellipsis takes all unindexed dims and any later one none.
        rest = tuple(i for i in index[at + 1:] if i is not Ellipsis)
        index = index[:at] + (slice(None),) * (self.ndim - consumed) + rest
    return index


def _getitem(self, index):
    out = self
    dim = 0
    for i in _expand_index(self, index):
        if i is None:
            out = out.unsqueeze(dim)
            dim += 1
        elif isinstance(i, slice):
            step = 1 if i.step is None else i.step.__index__()
            start = None if i.start is None else i.start.__index__()
            stop = None if i.stop is None else i.stop.__index__()
            out = out.slice(dim, start, stop, step)
            dim += 1
        else:
            i = i.__index__()
            if not -(2**63) <= i < 2**63:
                raise IndexError(f"index {i} is out of bounds for dimension {dim} with size {out.shape[dim]}")
            out = out.select(dim, i)
    # Indexing always returns a new view, even when it selects everything.
    return out if out is not self else self.view(self.shape)


def _setitem(self, index, value) -> None:
    """``t[index] = value`` for basic indices: a number fills, a tensor is broadcast and copied."""
    target = _getitem(self, index)
    if isinstance(value, Tensor):
        target.copy_(value._to_dtype(self.dtype))
    elif isinstance(value, (builtins.bool, builtins.int, builtins.float, np.generic)):
        target.fill_(value)
    else:
        raise TypeError(f"can't assign a {type(value).__name__} to a oneflow.Tensor")


def _reduce(self):
    """Pickles (and deep-copies) the values, dtype and requires_grad; never the memory address."""
    values = self.detach()
    if self.dtype == oneflow.bfloat16:
        values = values._to_dtype(oneflow.float32)
    return (_rebuild, (values.contiguous().numpy().copy(), self.dtype, self.requires_grad))


def _rebuild(array, dtype, requires_grad):
    return oneflow.tensor(array, dtype=dtype, requires_grad=requires_grad)


def _backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None) -> None:
    """Computes the gradient of this tensor w.r.t. the graph leaves (see oneflow.autograd.backward)."""
    if inputs is not None:
        grads = oneflow.autograd.grad(self, inputs, gradient, retain_graph, create_graph)
        for t, g in zip((inputs,) if isinstance(inputs, Tensor) else inputs, grads):
            t.grad = g if t.grad is None else t.grad + g
        return
    oneflow.autograd.backward(self, gradient, retain_graph, create_graph)


class _RemovableHandle:
    """Returned by register_hook; ``remove()`` disables the hook."""

    def __init__(self, holder: list):
        self._holder = holder

    def remove(self) -> None:
        self._holder[0] = None


def _register_hook(self, hook):
    """Registers ``hook(grad) -> Tensor or None`` to run when this tensor's gradient is computed.

    A returned tensor replaces the gradient. Returns a handle with ``remove()``.
    """
    holder = [hook]

    def call(grad):
        fn = holder[0]
        return None if fn is None else fn(grad)

    self._register_hook(call)
    return _RemovableHandle(holder)


def _make_cast(dtype_name: str):
    def cast(self):
        return self.to(getattr(oneflow, dtype_name))

    cast.__name__ = dtype_name
    cast.__doc__ = f"``self.to(oneflow.{dtype_name})``."
    return cast


def _install():
    methods = {
        "__repr__": _repr,
        "__str__": _repr,
        "tolist": _tolist,
        "__len__": _len,
        "__iter__": _iter,
        "__bool__": _bool,
        "__float__": lambda self: builtins.float(_scalar_value(self, "float()")),
        "__int__": lambda self: builtins.int(_scalar_value(self, "int()")),
        "__index__": _index,
        "__array__": _array,
        "__getitem__": _getitem,
        "__setitem__": _setitem,
        "__reduce__": _reduce,
        "to": _to,
        "backward": _backward,
        "register_hook": _register_hook,
        "cpu": lambda self: self.to("cpu"),
        "cuda": lambda self, device=None: self.to(oneflow.device("cuda", device) if isinstance(device, builtins.int) else device or "cuda"),
        "is_floating_point": lambda self: self.dtype.is_floating_point,
        "type_as": lambda self, other: self.to(other.dtype),
        "view_as": lambda self, other: self.view(other.shape),
        "reshape_as": lambda self, other: self.reshape(other.shape),
        "expand_as": lambda self, other: self.expand(other.shape),
        "T": property(lambda self: self.permute(*reversed(range(self.ndim)))),
    }
    for name in ("float", "double", "half", "bfloat16", "long", "int", "short", "char", "byte", "bool"):
        target = {"char": "int8", "byte": "uint8"}.get(name, name)
        methods[name] = _make_cast(target)
    for name, fn in methods.items():
        setattr(Tensor, name, fn)
    Tensor.__hash__ = object.__hash__
    Tensor.__array_priority__ = 1000  # NumPy defers binary ops to us


_install()
