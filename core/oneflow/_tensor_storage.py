"""A minimal ``Tensor.storage()`` / ``untyped_storage()`` (issue 16): PyTorch's ``TypedStorage``
and ``UntypedStorage`` as read-mostly views of a tensor's memory.

OneFlow tensors do not expose their allocation, so a storage here is the flat run of elements from
the start of the tensor's memory (its data pointer less its storage offset) to the last element the
tensor reaches; for a tensor that is not a view of a larger one that is the whole allocation, as in
PyTorch. Element access and ``tolist()`` read through a flat view, so they see later writes.
"""

from __future__ import annotations

import oneflow

_LEGACY_NAMES = {
    oneflow.float32: "FloatStorage", oneflow.float64: "DoubleStorage", oneflow.float16: "HalfStorage",
    oneflow.bfloat16: "BFloat16Storage", oneflow.int64: "LongStorage", oneflow.int32: "IntStorage",
    oneflow.int16: "ShortStorage", oneflow.int8: "CharStorage", oneflow.uint8: "ByteStorage",
    oneflow.bool: "BoolStorage",
}  # fmt: skip


def _flat(tensor):
    """The 1-D view of ``tensor``'s memory from offset 0 through its last reachable element."""
    extent = 1 + sum((s - 1) * st for s, st in zip(tensor.shape, tensor.stride())) if tensor.numel() else 0
    size = tensor.storage_offset() + extent
    return tensor.detach().as_strided((size,), (1,), 0)


class TypedStorage:
    """The elements of a tensor's memory with their dtype (``Tensor.storage()``)."""

    def __init__(self, tensor):
        self._flat = _flat(tensor)

    @property
    def dtype(self):
        return self._flat.dtype

    @property
    def device(self):
        return self._flat.device

    def size(self) -> int:
        """The number of elements."""
        return self._flat.numel()

    def __len__(self) -> int:
        return self.size()

    def element_size(self) -> int:
        """Bytes per element."""
        return self._flat.element_size()

    def nbytes(self) -> int:
        """The size in bytes."""
        return self.size() * self.element_size()

    def data_ptr(self) -> int:
        """The address of the first element."""
        return self._flat.data_ptr()

    def tolist(self) -> list:
        """The elements as a list of Python numbers."""
        return self._flat.tolist()

    def __getitem__(self, index):
        value = self._flat[index]
        return value.tolist()

    def __setitem__(self, index, value) -> None:
        self._flat[index] = value

    def __iter__(self):
        return iter(self.tolist())

    def untyped(self) -> UntypedStorage:
        """The same memory as bytes."""
        return UntypedStorage(self._flat)

    def _as_tensor(self):
        return self._flat

    def __repr__(self) -> str:
        values = "".join(f" {v}\n" for v in self.tolist())
        kind = f"{type(self).__module__}.{type(self).__name__}"
        return f"{values}[{kind}(dtype={self.dtype}, device={self.device}) of size {self.size()}]"


class UntypedStorage:
    """A tensor's memory as bytes (``Tensor.untyped_storage()``)."""

    def __init__(self, tensor):
        self._flat = _flat(tensor)

    @property
    def device(self):
        return self._flat.device

    def nbytes(self) -> int:
        """The size in bytes."""
        return self._flat.numel() * self._flat.element_size()

    def size(self) -> int:
        """The size in bytes."""
        return self.nbytes()

    def __len__(self) -> int:
        return self.nbytes()

    def element_size(self) -> int:
        return 1

    def data_ptr(self) -> int:
        """The address of the first byte."""
        return self._flat.data_ptr()

    def tolist(self) -> list:
        """The bytes as a list of ints."""
        return list(self._flat.cpu().numpy().tobytes())

    def _as_tensor(self):
        return self._flat


_TYPED_CLASSES: dict = {}


def storage_class(dtype) -> type:
    """PyTorch's legacy storage class of ``dtype`` (``FloatStorage`` for float32, ...)."""
    if dtype not in _TYPED_CLASSES:
        name = _LEGACY_NAMES.get(dtype, f"{str(dtype).split('.')[-1].capitalize()}Storage")
        _TYPED_CLASSES[dtype] = type(name, (TypedStorage,), {"__module__": "oneflow"})
    return _TYPED_CLASSES[dtype]


def storage(self) -> TypedStorage:
    """The tensor's memory as a typed storage (``size``, ``data_ptr``, ``element_size``,
    ``tolist``, indexing)."""
    return TypedStorage(self)


def untyped_storage(self) -> UntypedStorage:
    """The tensor's memory as bytes."""
    return UntypedStorage(self)


def storage_type(self) -> type:
    """The legacy storage class of the tensor's dtype (``oneflow.FloatStorage`` for float32)."""
    return storage_class(self.dtype)
