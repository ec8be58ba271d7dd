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


_native_numpy = Tensor.numpy


def _numpy(self) -> np.ndarray:
    """The values as a NumPy array; for a CPU tensor it shares the tensor's memory.

    OneFlow's semantics, not PyTorch's: a tensor that requires grad gives its values (the array
    is outside autograd, as ``detach().numpy()``), and a tensor on a GPU is copied to the host.
    """
    t = self.detach() if self.requires_grad else self
    if t.device.type != "cpu":
        t = t.cpu()
    return _native_numpy(t)


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
        raise RuntimeError(f"{kind}: a Tensor with {self.numel()} elements cannot be converted to Scalar")
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
    """Converts dtype, device and/or memory format: ``t.to(oneflow.float64)``, ``t.to("cuda:0")``,
    ``t.to(other)``, ``t.to(memory_format=oneflow.channels_last)``.

    Returns ``self`` when nothing changes and ``copy`` is False (as in PyTorch, a memory format
    counts as met when the strides suggest it, see ``oneflow.memory_format``).
    """
    kwargs = dict(kwargs)
    fmt = kwargs.pop("memory_format", None)
    if fmt is not None and not isinstance(fmt, oneflow.memory_format):
        raise TypeError(f"to(): argument 'memory_format' must be oneflow.memory_format, not {type(fmt).__name__}")
    if fmt is oneflow.preserve_format:
        fmt = None
    device, dtype, copy = _parse_to(args, kwargs)
    out = self
    new_dtype = dtype is not None and dtype != out.dtype
    if fmt is not None and (new_dtype or copy or out._suggest_memory_format() != fmt.__index__()):
        out = out.clone(memory_format=fmt)
        if new_dtype:
            out = out._to_dtype(dtype)
    elif new_dtype or copy:
        out = out._to_dtype(dtype or out.dtype, copy=True)
    if device is not None and (
        device.type != out.device.type or (device.index is not None and device.index != (out.device.index or 0))
    ):
        out = oneflow.empty(out.shape, dtype=out.dtype, device=device).copy_(out)
    return out


# Indexing, with PyTorch's rules. Basic indices (ints, slices, None, Ellipsis)
# become views; advanced indices (int and bool tensors, sequences, NumPy arrays,
# Python bools) are left over to gather from that view with the _index op (or
# to write with index_put_), each at the dim of the view it indexes. A bool mask
# indexes as many dims as it has. The advanced indices broadcast together; when
# their dims are adjacent the broadcast dims take their place in the result,
# otherwise they come first.
_BAD_INDEX = "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid indices (got {})"
_INDEX_SEQUENCES = (builtins.list, builtins.tuple, builtins.range)
_INTEGER_DTYPES = ("int8", "int16", "int32", "int64")


def _index_tuple(index):
    """The index as a tuple. Like PyTorch, a short list holding a sequence, tensor, slice, None or
    Ellipsis is read as a tuple of indices, and any other list as one index tensor."""
    if isinstance(index, builtins.tuple):
        return index
    if isinstance(index, (builtins.list, builtins.range)) and len(index) < 32:
        for i in index:
            if i is None or i is Ellipsis or isinstance(i, (Tensor, slice, str, np.ndarray) + _INDEX_SEQUENCES):
                return builtins.tuple(index)
    return (index,)


def _index_tensor(data):
    """A sequence or NumPy array used as an index: an int64 tensor, or a bool/uint8 mask."""
    t = oneflow.tensor(data)
    return t if t.dtype in (oneflow.bool, oneflow.uint8) else t._to_dtype(oneflow.int64)


def _classify_index(i):
    """One index as (kind, value); kind is one of none, ellipsis, slice, int, bool, tensor."""
    if i is None:
        return "none", None
    if i is Ellipsis:
        return "ellipsis", None
    if isinstance(i, slice):
        return "slice", i
    if isinstance(i, builtins.bool):
        return "bool", i
    if isinstance(i, Tensor):
        if i.ndim == 0 and i.dtype._name in _INTEGER_DTYPES:
            return "int", i.item()  # a 0-d integer tensor selects, like an int
        if i.ndim == 0 and i.dtype in (oneflow.bool, oneflow.uint8):
            return "bool", builtins.bool(i.item())
        return "tensor", i
    if isinstance(i, np.ndarray):
        if i.ndim == 0 and i.dtype.kind in "iu":
            return "int", i.item()
        return "tensor", _index_tensor(i)
    if isinstance(i, str):
        raise TypeError(f"invalid index of type str: {i!r}")
    if isinstance(i, _INDEX_SEQUENCES):
        return "tensor", _index_tensor(builtins.list(i))
    if hasattr(i, "__index__") and not isinstance(i, np.bool_):
        return "int", i.__index__()
    raise IndexError(_BAD_INDEX.format(type(i).__name__))


def _is_mask(t) -> builtins.bool:
    return t.dtype in (oneflow.bool, oneflow.uint8)


def _expand_index(self, index):
    """The index as a list of (kind, value), with the first Ellipsis replaced by the full slices it
    stands for (like PyTorch, any later Ellipsis stands for none)."""
    items = [_classify_index(i) for i in _index_tuple(index)]
    consumed = 0
    for kind, value in items:
        if kind in ("int", "slice"):
            consumed += 1
        elif kind == "tensor":
            consumed += value.ndim if _is_mask(value) else 1
    if consumed > self.ndim:
        raise IndexError(f"too many indices for tensor of dimension {self.ndim}")
    expanded = []
    ellipsis_seen = False
    for kind, value in items:
        if kind == "ellipsis":
            if not ellipsis_seen:
                expanded.extend([("slice", slice(None))] * (self.ndim - consumed))
            ellipsis_seen = True
        else:
            expanded.append((kind, value))
    return expanded


def _apply_basic_index(self, index):
    """Applies the basic indices as views of self; returns the view and the advanced indices left
    to apply to it, as (tensors, the dims of the view they index)."""
    out = self
    dim = 0
    tensors, dims = [], []
    for kind, value in _expand_index(self, index):
        if kind == "none":
            out = out.unsqueeze(dim)
            dim += 1
        elif kind == "slice":
            step = 1 if value.step is None else value.step.__index__()
            start = None if value.start is None else value.start.__index__()
            stop = None if value.stop is None else value.stop.__index__()
            if not (start is None and stop is None and step == 1):
                out = out.slice(dim, start, stop, step)
            dim += 1
        elif kind == "int":
            if not -(2**63) <= value < 2**63:
                raise IndexError(f"index {value} is out of bounds for dimension {dim} with size {out.shape[dim]}")
            out = out.select(dim, value)
        elif kind == "bool":
            # True indexes a new size-1 dim with [0], False with [].
            out = out.unsqueeze(dim)
            tensors.append(oneflow.zeros(1 if value else 0, dtype=oneflow.int64, device=out.device))
            dims.append(dim)
            dim += 1
        else:
            tensors.append(value)
            dims.append(dim)
            dim += value.ndim if _is_mask(value) else 1
    return out, tensors, dims


def _getitem(self, index):
    out, tensors, dims = _apply_basic_index(self, index)
    if tensors:
        return out._index(tensors, dims, out.shape)
    if out is not self:
        return out
    # Basic indexing always returns a new view, even when it selects everything (keeping the strides).
    return self.slice(0) if self.ndim else self.view(())


def _strip_leading_ones(value):
    """Like PyTorch, leading size-1 dims of an assigned tensor are ignored."""
    k = 0
    while k < value.ndim and value.shape[k] == 1:
        k += 1
    return value if k == 0 else value.reshape(builtins.tuple(value.shape[k:]))


def _indexed_view(self, index):
    """The basic-index part of ``self[index]`` as a view of ``self``, also with views disabled
    (``ONEFLOW_DISABLE_VIEW``): assignment writes through it, as OneFlow's ``setitem`` does."""
    if oneflow._C._views_enabled():
        return _apply_basic_index(self, index)
    oneflow._C._set_views_enabled(True)
    try:
        return _apply_basic_index(self, index)
    finally:
        oneflow._C._set_views_enabled(False)


def _setitem(self, index, value) -> None:
    """``t[index] = value``: a number fills, a tensor is broadcast and copied. With advanced indices
    this is ``index_put_`` on the basic view (a tensor value must then have t's dtype, as in PyTorch)."""
    if not isinstance(value, (Tensor, builtins.bool, builtins.int, builtins.float, np.generic)):
        raise TypeError(f"can't assign a {type(value).__name__} to a oneflow.Tensor")
    target, tensors, dims = _indexed_view(self, index)
    if isinstance(value, Tensor):
        value = _strip_leading_ones(value)
    if not tensors:
        if isinstance(value, Tensor):
            target.copy_(value._to_dtype(self.dtype))
        else:
            target.fill_(value)
        return
    if not isinstance(value, Tensor):
        value = oneflow.full((), value, dtype=self.dtype, device=self.device)
    target.index_put_(tensors, value, dims=dims)


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
            for fire in getattr(t, "_post_accumulate_grad_hooks", ()):  # register_post_accumulate_grad_hook
                fire()
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


# ---- global tensors --------------------------------------------------------------------
# A local tensor answers is_global/is_local and converts with to_global; everything else about
# global tensors lives in the oneflow-distributed plugin (its GlobalTensor subclass overrides these).


def _to_global(
    self, placement=None, sbp=None, *, grad_sbp=None, check_meta: builtins.bool = True, copy: builtins.bool = False
):
    """This rank's local tensor as the local part of a global tensor on ``placement`` with ``sbp``.

    Every rank of ``placement`` calls it with its own part; with a broadcast sbp the parts must be
    equal, with a split sbp they are the slices in rank order (see ``oneflow.placement`` and
    ``oneflow.sbp``). ``grad_sbp`` sets the sbp the gradient is converted to in backward.
    """
    return oneflow._creation._global_plugin().to_global(
        self, placement, sbp, grad_sbp=grad_sbp, check_meta=check_meta, copy=copy
    )


def _local_to_global(self, placement=None, sbp=None, *, check_meta: builtins.bool = True, copy: builtins.bool = False):
    """``to_global`` for a local tensor."""
    return _to_global(self, placement, sbp, check_meta=check_meta, copy=copy)


def _global_to_global(
    self, placement=None, sbp=None, *, grad_sbp=None, check_meta: builtins.bool = False, copy: builtins.bool = False
):
    """``to_global`` between global tensors; a local tensor raises RuntimeError."""
    raise RuntimeError("global_to_global(): expected a global tensor, got a local one; use to_global()")


def _to_local(self, *, copy: builtins.bool = False):
    """The local part of a global tensor; a local tensor returns itself (a copy with ``copy``)."""
    return self.clone() if copy else self


def _no_global_attribute(name: str):
    def get(self):
        raise RuntimeError(
            f"Tensor.{name}: a local tensor has no {name}; it exists for global tensors (see Tensor.to_global)"
        )

    return property(get, doc=f"The {name} of a global tensor (a local tensor raises RuntimeError).")


def nonzero(input, *, as_tuple: builtins.bool = False):
    """Indices of the non-zero elements: an (n, ndim) int64 tensor, or one 1-D tensor per dim."""
    if as_tuple:
        return oneflow._C.ops.nonzero(input, as_tuple=True)
    return oneflow._C.ops.nonzero(input)


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
        "numpy": _numpy,
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
        "nonzero": nonzero,
        "cpu": lambda self: self.to("cpu"),
        "cuda": lambda self, device=None: self.to(
            oneflow.device("cuda", device) if isinstance(device, builtins.int) else device or "cuda"
        ),
        "is_floating_point": lambda self: self.dtype.is_floating_point,
        "type_as": lambda self, other: self.to(other.dtype),
        "view_as": lambda self, other: self.view(other.shape),
        "reshape_as": lambda self, other: self.reshape(other.shape),
        "expand_as": lambda self, other: self.expand(other.shape),
        "T": property(lambda self: self.permute(*reversed(range(self.ndim)))),
        "to_global": _to_global,
        "local_to_global": _local_to_global,
        "global_to_global": _global_to_global,
        "to_local": _to_local,
        "is_global": property(lambda self: False, doc="True for a global tensor (see to_global)."),
        "is_local": property(lambda self: True, doc="True for a local (non-global) tensor."),
        "placement": _no_global_attribute("placement"),
        "sbp": _no_global_attribute("sbp"),
    }
    for name in ("float", "double", "half", "bfloat16", "long", "int", "short", "char", "byte", "bool"):
        target = {"char": "int8", "byte": "uint8"}.get(name, name)
        methods[name] = _make_cast(target)
    for name, fn in methods.items():
        setattr(Tensor, name, fn)
    Tensor.__hash__ = object.__hash__
    Tensor.__array_priority__ = 1000  # NumPy defers binary ops to us


_install()


# ---- new_* ----------------------------------------------------------------------------
# Tensor.new_tensor/new_empty/new_zeros/new_ones/new_full: new tensors with this tensor's
# dtype and device unless given; with OneFlow's placement=/sbp=, global ones (a global tensor's
# own new_* methods default to its placement and sbp).


def _new_like(self, dtype, device):
    return dtype or self.dtype, device if device is not None else self.device


def _new_tensor(self, data, dtype=None, device=None, requires_grad: builtins.bool = False, placement=None, sbp=None):
    if placement is not None or sbp is not None:
        return oneflow.tensor(
            data, dtype=dtype or self.dtype, device=device, requires_grad=requires_grad, placement=placement, sbp=sbp
        )
    dtype, device = _new_like(self, dtype, device)
    return oneflow.tensor(data, dtype=dtype, device=device, requires_grad=requires_grad)


def _make_new_filled(name: str, fill):
    def new(self, *size, dtype=None, device=None, requires_grad: builtins.bool = False, placement=None, sbp=None):
        if len(size) == 1 and isinstance(size[0], (tuple, list, oneflow.Size)):
            size = tuple(size[0])
        if placement is not None or sbp is not None:
            dtype = dtype or self.dtype
        else:
            dtype, device = _new_like(self, dtype, device)
        kw = dict(dtype=dtype, device=device, requires_grad=requires_grad, placement=placement, sbp=sbp)
        if fill is None:
            return oneflow.empty(*size, **kw)
        return oneflow.full(size, fill, **kw)

    new.__name__ = name
    new.__doc__ = (
        f"``oneflow.{name[4:]}(size)`` with this tensor's dtype and device unless given; a global "
        "tensor with ``placement`` and ``sbp`` (OneFlow's)."
    )
    return new


def _new_full(
    self, size, fill_value, *, dtype=None, device=None, requires_grad: builtins.bool = False, placement=None, sbp=None
):
    """``oneflow.full(size, fill_value)`` with this tensor's dtype and device unless given; a global
    tensor with ``placement`` and ``sbp`` (OneFlow's)."""
    if placement is not None or sbp is not None:
        return oneflow.full(
            size,
            fill_value,
            dtype=dtype or self.dtype,
            device=device,
            requires_grad=requires_grad,
            placement=placement,
            sbp=sbp,
        )
    dtype, device = _new_like(self, dtype, device)
    return oneflow.full(size, fill_value, dtype=dtype, device=device, requires_grad=requires_grad)


def _install_new_methods():
    Tensor.new_tensor = _new_tensor
    Tensor.new_empty = _make_new_filled("new_empty", None)
    Tensor.new_zeros = _make_new_filled("new_zeros", 0)
    Tensor.new_ones = _make_new_filled("new_ones", 1)
    Tensor.new_full = _new_full


_install_new_methods()
