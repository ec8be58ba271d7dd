"""The last ``torch.Tensor`` attributes of issue 16 outside complex numbers, FFTs and special
functions: in-place metadata changes (``as_strided_``, ``set_``, ``detach_``), storages, layout and
name, the autograd extras (``register_post_accumulate_grad_hook``, ``grad_dtype``,
``as_subclass``) and a few compositions (``as_strided_scatter``, ``resize``, ``hash_tensor``, ...).

Metadata changes in place go through ``Tensor.data = view`` (the tensor object keeps its identity
and shows the view's memory); like ``squeeze_`` and friends in ``_tensor_breadth`` they refuse
tensors that require grad, as PyTorch does for leaves.
"""

from __future__ import annotations

import numpy as np

import oneflow as _flow
from oneflow import _tensor_storage

_Tensor = _flow.Tensor


class layout:
    """A tensor memory layout (``oneflow.strided`` for dense tensors, the only one here)."""

    def __init__(self, name: str):
        self._name = name

    def __repr__(self) -> str:
        return f"oneflow.{self._name}"

    def __reduce__(self):
        return self._name


strided = layout("strided")


def _no_grad_inplace(self) -> None:
    if self.requires_grad:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")


def as_strided_(self, size, stride, storage_offset=None):
    """In-place ``as_strided``: ``self`` shows its memory with ``size``, ``stride`` and ``storage_offset``."""
    _no_grad_inplace(self)
    self.data = self.as_strided(tuple(size), tuple(stride), storage_offset)
    return self


def as_strided_scatter(self, src, size, stride, storage_offset=None):
    """A copy of ``self`` with ``src`` written into its view ``as_strided(size, stride, storage_offset)``;
    differentiable in both (the overwritten elements get no gradient through ``self``)."""
    if tuple(src.shape) != tuple(size):
        raise RuntimeError(
            f"expected src to have a size equal to the slice of self. src size = {list(src.shape)}, "
            f"slice size = {list(size)}"
        )
    base = self.contiguous()
    index = _flow.arange(base.numel(), device=self.device).reshape(base.shape)
    positions = index.as_strided(tuple(size), tuple(stride), storage_offset).reshape(-1)
    flat = base.reshape(-1).scatter(0, positions, src.reshape(-1).to(self.dtype))
    return flat.reshape(self.shape)


class _AsSubclass(_flow.autograd.Function):
    @staticmethod
    def forward(ctx, x, cls):
        out = cls.__new__(cls)
        _Tensor.__init__(out, x)
        return out

    @staticmethod
    def backward(ctx, grad):
        return grad, None


def as_subclass(self, cls):
    """``self``'s memory as an instance of ``cls`` (a Tensor subclass), attached to ``self``'s
    autograd graph; ``cls.__init__`` is not called."""
    if not (isinstance(cls, type) and issubclass(cls, _Tensor)):
        raise TypeError(
            "Creating a Tensor subclass from a class that does not inherit from Tensor is not possible. "
            "Make sure your class inherits from Tensor."
        )
    if self.requires_grad and _flow.is_grad_enabled():
        return _AsSubclass.apply(self, cls)
    out = cls.__new__(cls)
    _Tensor.__init__(out, self)
    return out


def detach_(self):
    """Detaches ``self`` from the graph that made it in place (it becomes a leaf that does not
    require grad). Views cannot be detached in place."""
    if self.is_leaf:
        return self.requires_grad_(False)
    if getattr(self, "_is_view", lambda: False)():
        raise RuntimeError("Can't detach views in-place. Use detach() instead.")
    raise RuntimeError(
        "detach_(): detaching a tensor computed with autograd history in place is not supported here; "
        "use detach() instead"
    )


_UNSET = object()


def _grad_dtype_set(self, dtype) -> None:
    if not self.is_leaf:
        raise RuntimeError("grad_dtype can only be set on leaf tensors.")
    if dtype is not None and not isinstance(dtype, _flow.dtype):
        raise RuntimeError(f"grad_dtype must be a oneflow.dtype or None, but got {type(dtype).__name__}")
    previous = getattr(self, "_grad_dtype_hook", None)
    if previous is not None:
        previous.remove()
        self._grad_dtype_hook = None
    self._grad_dtype = dtype  # None: gradients of any dtype are accumulated as they come
    if dtype is not None and dtype != self.dtype and self.requires_grad:
        self._grad_dtype_hook = self.register_hook(lambda g: g.to(dtype))


def _grad_dtype_property():
    def getter(self):
        value = getattr(self, "_grad_dtype", _UNSET)
        return self.dtype if value is _UNSET else value

    return property(getter, _grad_dtype_set, doc="The dtype of the gradient accumulated into ``.grad``.")


def is_set_to(self, tensor) -> bool:
    """Whether ``self`` and ``tensor`` show the same memory: same storage, offset, size and stride."""
    if not isinstance(tensor, _Tensor):
        raise TypeError(f"is_set_to(): argument 'tensor' must be Tensor, not {type(tensor).__name__}")
    return (
        self._storage_ptr() == tensor._storage_ptr()
        and self.storage_offset() == tensor.storage_offset()
        and tuple(self.shape) == tuple(tensor.shape)
        and tuple(self.stride()) == tuple(tensor.stride())
        and self.dtype == tensor.dtype
    )


def module_load(self, other, assign: bool = False):
    """What ``nn.Module.load_state_dict`` stores for this parameter given the state-dict value
    ``other``: ``other`` detached with ``assign``, else ``self`` with ``other`` copied in, detached."""
    if assign:
        return other.detach()
    return self.copy_(other).detach()


def pin_memory(self, device=None):
    """A copy of ``self`` for fast host-to-device transfers (on this CPU build, a plain copy)."""
    if self.device.type != "cpu":
        raise RuntimeError(f"cannot pin '{self.device.type}' memory: only dense CPU tensors can be pinned")
    return self.clone()


def record_stream(self, stream) -> None:
    """Marks ``self`` as used by ``stream``; the caching allocator then keeps its memory until the
    stream's work is done. Tensors are freed in stream order here, so there is nothing to record."""
    if stream is None or isinstance(stream, (int, float, str, bool)):
        raise RuntimeError("unknown parameter type")


class _RemovableHandle:
    """Returned by ``register_post_accumulate_grad_hook``; ``remove()`` disables the hook."""

    def __init__(self, holder: list):
        self._holder = holder

    def remove(self) -> None:
        self._holder[0] = None


def register_post_accumulate_grad_hook(self, hook):
    """Registers ``hook(tensor)`` to run once ``tensor.grad`` holds the gradient accumulated by a
    backward pass (``Tensor.backward``/``autograd.backward``, not ``autograd.grad``). Leaves only.
    Returns a handle with ``remove()``."""
    from oneflow import autograd

    if not self.requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if not self.is_leaf:
        raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
    holder = [hook]
    tensor = self

    def fire():
        if holder[0] is not None and holder[0](tensor) is not None:
            raise RuntimeError("post accumulate grad hooks should not return anything (return None)")

    def on_gradient(grad):
        # The gradient is accumulated into .grad right after the tensor's hooks; the pass's final
        # callbacks run once it is.
        if holder[0] is not None and autograd._backward_running():
            autograd._queue_callback(fire)

    self.register_hook(on_gradient)
    # Tensor.backward(inputs=...) accumulates in Python and calls these itself.
    self._post_accumulate_grad_hooks = [*getattr(self, "_post_accumulate_grad_hooks", ()), fire]
    return _RemovableHandle(holder)


def _sizes(args):
    if len(args) == 1 and isinstance(args[0], (tuple, list, _flow.Size)):
        return tuple(args[0])
    return tuple(args)


def resize(self, *sizes):
    """``self`` reshaped to ``sizes`` (same number of elements), with autograd (the deprecated
    out-of-place ``resize``)."""
    sizes = _sizes(sizes)
    numel = int(np.prod(sizes)) if sizes else 1
    if numel != self.numel():
        shape = "x".join(str(s) for s in self.shape)
        raise RuntimeError(
            f"requested resize to {'x'.join(str(s) for s in sizes)} ({numel} elements in total), but the given "
            f"tensor has a size of {shape} ({self.numel()} elements). autograd's resize can only change the "
            "shape of a given tensor, while preserving the number of elements."
        )
    return self.contiguous().view(*sizes)


def resize_as(self, tensor):
    """``resize`` to ``tensor``'s shape."""
    return resize(self, tuple(tensor.shape))


def set_(self, source=None, storage_offset: int = 0, size=None, stride=None):
    """Makes ``self`` show other memory: nothing (``set_()``: empty), ``source``'s (a tensor), or a
    storage's elements from ``storage_offset`` with ``size`` and ``stride`` (contiguous by default)."""
    _no_grad_inplace(self)
    if source is None:
        self.data = _flow.empty(0, dtype=self.dtype, device=self.device)
        return self
    if isinstance(source, _Tensor) and size is None:
        self.data = source.detach()
        return self
    if isinstance(source, (_tensor_storage.TypedStorage, _tensor_storage.UntypedStorage)):
        flat = source._as_tensor()
    elif isinstance(source, _Tensor):
        flat = source.detach().as_strided((source.storage_offset() + source.numel(),), (1,), 0)
    else:
        raise TypeError(f"set_(): expected a Tensor or a storage, got {type(source).__name__}")
    size = tuple(size) if size is not None else (flat.numel() - storage_offset,)
    if stride is None:
        stride, step = [], 1
        for s in reversed(size):
            stride.insert(0, step)
            step *= max(s, 1)
    if flat.dtype != self.dtype and isinstance(source, _tensor_storage.UntypedStorage):
        raise RuntimeError("set_(): an untyped storage of another dtype cannot be shown as this tensor's dtype")
    self.data = flat.as_strided(size, tuple(stride), storage_offset)
    return self


def slice_inverse(self, src, dim: int = 0, start=None, end=None, step: int = 1):
    """The inverse of ``slice``: ``self`` (a slice of a base like ``src``) seen with ``src``'s size,
    stride and storage offset, which is the base when ``self`` was sliced from it."""
    return self.as_strided(tuple(src.shape), tuple(src.stride()), src.storage_offset())


def to_dense(self, dtype=None, *, masked_grad=None):
    """``self`` (already dense), converted to ``dtype`` when given."""
    return self if dtype is None or dtype == self.dtype else self.to(dtype)


def unsafe_split_with_sizes(self, split_sizes, dim: int = 0):
    """``split_with_sizes`` (the views are not tracked for in-place changes in PyTorch)."""
    return self.split_with_sizes(split_sizes, dim)


def hash_tensor(self, dim=(), *, keepdim: bool = False, mode: int = 0):
    """The xor of the elements' 64-bit patterns over ``dim`` (all dims by default): floating values
    as float64 bits, integers and bools as unsigned integers. An int64 tensor holding the unsigned
    value's bits (oneflow has no uint64)."""
    if mode != 0:
        raise RuntimeError(f"hash_tensor: mode {mode} is not supported; only mode=0 (xor sum)")
    if self.numel() == 0 and dim in ((), None, []):
        raise RuntimeError(
            "hash_tensor: Expected reduction dim to be specified for input.numel() == 0. Specify the "
            "reduction dim with the 'dim' argument."
        )
    values = self.detach().cpu().numpy()
    bits = values.astype(np.float64).view(np.uint64) if values.dtype.kind == "f" else values.astype(np.uint64)
    dims = tuple(range(bits.ndim)) if dim in ((), None, []) else ((dim,) if isinstance(dim, int) else tuple(dim))
    reduced = np.bitwise_xor.reduce(bits, axis=dims, keepdims=keepdim) if bits.ndim else bits
    return _flow.tensor(np.asarray(reduced).view(np.int64), dtype=_flow.int64, device=self.device)


METHODS = {
    "as_strided_": as_strided_, "as_strided_scatter": as_strided_scatter, "as_subclass": as_subclass,
    "const_data_ptr": lambda self: self.data_ptr(), "detach_": detach_,
    "grad_dtype": _grad_dtype_property(), "is_set_to": is_set_to,
    "layout": property(lambda self: strided), "module_load": module_load,
    "name": property(lambda self: None), "pin_memory": pin_memory, "record_stream": record_stream,
    "register_post_accumulate_grad_hook": register_post_accumulate_grad_hook, "resize": resize,
    "resize_as": resize_as, "set_": set_, "slice_inverse": slice_inverse,
    "storage": _tensor_storage.storage, "untyped_storage": _tensor_storage.untyped_storage,
    "storage_type": _tensor_storage.storage_type, "to_dense": to_dense,
    "unsafe_split_with_sizes": unsafe_split_with_sizes, "hash_tensor": hash_tensor,
}  # fmt: skip


def install(namespace: dict) -> list:
    """Sets the Tensor attributes above (where the Tensor lacks them) and puts ``strided``,
    ``layout`` and the storage classes into ``namespace``; returns the names added there."""
    for name, value in METHODS.items():
        if not hasattr(_Tensor, name):
            setattr(_Tensor, name, value)
    added = []
    names = {"strided": strided, "layout": layout, "TypedStorage": _tensor_storage.TypedStorage,
             "UntypedStorage": _tensor_storage.UntypedStorage}  # fmt: skip
    for dtype in _tensor_storage._LEGACY_NAMES:
        cls = _tensor_storage.storage_class(dtype)
        names[cls.__name__] = cls
    for name, value in names.items():
        if name not in namespace:
            namespace[name] = value
            added.append(name)
    return added
