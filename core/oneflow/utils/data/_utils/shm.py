"""Moving batches from DataLoader workers to the main process through shared memory.

A worker pickles its batch with every oneflow CPU tensor taken out (pickle's
persistent ids), copies those tensors into one shared-memory file (under
/dev/shm) and sends the small remainder through the result queue. The main
process maps the file, unlinks it at once (the mapping outlives the name), and
rebuilds each tensor with ``oneflow.from_numpy`` over the mapping, so the batch's
data is not copied again; the memory is released when the last tensor using it is
gone.

Every file of one DataLoader iterator shares a name prefix, so files that were
written but never received (an iterator shut down early, a worker killed) are
removed with :func:`remove_prefix` once the workers have stopped.
"""

from __future__ import annotations

import glob
import io
import itertools
import mmap
import os
import pickle
import secrets
import tempfile
from typing import Any

import numpy as np

import oneflow

_SHM_DIR = "/dev/shm" if os.path.isdir("/dev/shm") else tempfile.gettempdir()
_ALIGN = 64  # bytes: each tensor starts on a cache line
_counter = itertools.count()


def new_prefix() -> str:
    """A fresh name prefix for the shared-memory files of one DataLoader iterator."""
    return f"oneflow_dl_{os.getpid()}_{secrets.token_hex(4)}_"


def remove_prefix(prefix: str) -> None:
    """Removes the shared-memory files whose names start with ``prefix`` (those never received)."""
    for path in glob.glob(os.path.join(_SHM_DIR, glob.escape(prefix) + "*")):
        try:
            os.unlink(path)
        except OSError:
            pass


class SharedBatch:
    """A batch in transit: the pickled batch without its tensors, and where the tensors are.

    ``metas`` holds, per tensor, its byte offset in the file, shape, NumPy dtype and
    requires_grad flag.
    """

    __slots__ = ("metas", "path", "payload", "size")

    def __init__(self, payload: bytes, path: str | None, size: int, metas: list) -> None:
        self.payload = payload
        self.path = path
        self.size = size
        self.metas = metas

    def __getstate__(self):
        return (self.payload, self.path, self.size, self.metas)

    def __setstate__(self, state) -> None:
        self.payload, self.path, self.size, self.metas = state


class _TensorPickler(pickle.Pickler):
    """Pickles a batch, replacing each oneflow CPU tensor with its index in ``tensors``."""

    def __init__(self, file, tensors: list) -> None:
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self._tensors = tensors
        self._index: dict[int, int] = {}

    def persistent_id(self, obj):
        if not isinstance(obj, oneflow.Tensor):
            return None
        # bfloat16 has no NumPy twin, and tensors on devices go through ordinary pickling.
        if obj.device.type != "cpu" or obj.dtype == oneflow.bfloat16:
            return None
        key = id(obj)
        if key not in self._index:
            self._index[key] = len(self._tensors)
            self._tensors.append(obj)
        return self._index[key]


class _TensorUnpickler(pickle.Unpickler):
    def __init__(self, file, tensors: list) -> None:
        super().__init__(file)
        self._tensors = tensors

    def persistent_load(self, pid):
        return self._tensors[pid]


def pack(batch: Any, prefix: str) -> SharedBatch:
    """Pickles ``batch`` (in a worker), writing its CPU tensors into a new shared-memory file."""
    buf = io.BytesIO()
    tensors: list = []
    _TensorPickler(buf, tensors).dump(batch)
    payload = buf.getvalue()
    if not tensors:
        return SharedBatch(payload, None, 0, [])
    arrays = [t.detach().numpy() for t in tensors]
    metas = []
    size = 0
    for t, a in zip(tensors, arrays):
        metas.append((size, a.shape, a.dtype.str, t.requires_grad))
        size += (a.nbytes + _ALIGN - 1) // _ALIGN * _ALIGN
    if size == 0:  # only empty tensors
        return SharedBatch(payload, None, 0, metas)
    path = os.path.join(_SHM_DIR, f"{prefix}{os.getpid()}_{next(_counter)}")
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.ftruncate(fd, size)
        for (offset, _, _, _), a in zip(metas, arrays):
            if a.nbytes:
                os.pwrite(fd, np.ascontiguousarray(a).data, offset)
    except BaseException:
        os.unlink(path)
        raise
    finally:
        os.close(fd)
    return SharedBatch(payload, path, size, metas)


def unpack(batch: SharedBatch) -> Any:
    """Rebuilds a batch (in the main process); its tensors use the shared memory without a copy."""
    tensors = []
    if batch.metas:
        mm = None
        if batch.path is not None:
            fd = os.open(batch.path, os.O_RDWR)
            try:
                mm = mmap.mmap(fd, batch.size)
            finally:
                os.close(fd)
                os.unlink(batch.path)
        for offset, shape, dtype, requires_grad in batch.metas:
            dt = np.dtype(dtype)
            count = int(np.prod(shape, dtype=np.int64))
            if count == 0:
                arr = np.empty(shape, dtype=dt)
            else:
                arr = np.frombuffer(mm, dtype=dt, count=count, offset=offset).reshape(shape)
            t = oneflow.from_numpy(arr)
            if requires_grad:
                t.requires_grad_(True)
            tensors.append(t)
    return _TensorUnpickler(io.BytesIO(batch.payload), tensors).load()


def release(batch: Any) -> None:
    """Frees the shared memory of a batch that will not be unpacked."""
    if isinstance(batch, SharedBatch) and batch.path is not None:
        try:
            os.unlink(batch.path)
        except OSError:
            pass
