"""``oneflow.save``: writes the checkpoint format described in :mod:`oneflow.serialization`."""

from __future__ import annotations

import functools
import io
import json
import os
import pickle
import stat
import sys
import tempfile
import zipfile
from collections.abc import Callable
from typing import IO, Any

import oneflow
from oneflow._checkpoint_format import (
    _CHUNK,
    _DEFAULT_PROTOCOL,
    _FORMAT,
    _PREFIX,
    _ZIP_DATE,
    FileLike,
    _byteswapped,
    _dtype_name,
    _global_checkpoint,
    _is_rank_arg,
    _raw,
)

try:  # NumPy is optional for oneflow.save/load (needed only to save or load arrays)
    import numpy as np
except ImportError:  # pragma: no cover - NumPy is installed alongside oneflow
    np = None


# --------------------------------------------------------------------------------------------
# Saving
# --------------------------------------------------------------------------------------------


class _StorageGroup:
    """Tensors of one dtype sharing one buffer: the span of it that gets saved."""

    __slots__ = ("key", "dtype", "device", "lo", "hi", "tensor")

    def __init__(self, key: str, tensor: oneflow.Tensor, lo: int, hi: int) -> None:
        self.key = key
        self.dtype = tensor.dtype
        self.device = str(tensor.device)
        self.lo = lo  # first element saved, counted from the start of the buffer
        self.hi = hi  # one past the last
        self.tensor = tensor  # keeps the buffer alive until it is written


class _ArrayEntry:
    __slots__ = ("key", "array")

    def __init__(self, key: str, array: Any) -> None:
        self.key = key
        self.array = array


def _extent(t: oneflow.Tensor) -> tuple[int, int]:
    """The lowest and one-past-highest buffer element ``t`` reaches (it has elements)."""
    lo = hi = t.storage_offset()
    for size, stride in zip(t.shape, t.stride()):
        reach = (size - 1) * stride
        if reach < 0:
            lo += reach
        else:
            hi += reach
    return lo, hi + 1


class _PersistentIds:
    """Pickler mixin that turns tensors, arrays, dtypes and devices into persistent ids."""

    def __init__(self, file: IO[bytes], protocol: int) -> None:
        super().__init__(file, protocol)
        self.groups: dict[tuple[str, int, str], _StorageGroup] = {}
        self.arrays: list[_ArrayEntry] = []
        self._tensor_index: dict[int, int] = {}
        self._array_index: dict[int, tuple[int, str]] = {}
        self._keep: list[Any] = []  # objects whose id() is used as a key stay alive
        self._storage_count = 0

    def _next_key(self) -> str:
        key = str(self._storage_count)
        self._storage_count += 1
        return key

    def _tensor_pid(self, t: oneflow.Tensor) -> tuple:
        index = self._tensor_index.get(id(t))
        if index is None:
            index = len(self._tensor_index)
            self._tensor_index[id(t)] = index
            self._keep.append(t)
        key = None
        offset = 0
        if t.numel() > 0:
            lo, hi = _extent(t)
            gid = (str(t.device), t._storage_ptr(), _dtype_name(t.dtype))
            group = self.groups.get(gid)
            if group is None:
                group = _StorageGroup(self._next_key(), t.detach(), lo, hi)
                self.groups[gid] = group
            else:
                group.lo = min(group.lo, lo)
                group.hi = max(group.hi, hi)
            key = group.key
            # In elements from the start of the whole buffer; the storage table records
            # where the saved span starts (it may still grow while pickling goes on).
            offset = t.storage_offset()
        cls = type(t)
        cls_path = None if cls is oneflow.Tensor else f"{cls.__module__}:{cls.__qualname__}"
        attributes = dict(getattr(t, "__dict__", None) or {}) or None
        return (
            "tensor",
            index,
            key,
            _dtype_name(t.dtype),
            tuple(t.shape),
            tuple(t.stride()),
            offset,
            bool(t.requires_grad),
            cls_path,
            attributes,
        )

    def _array_pid(self, a: Any) -> tuple:
        found = self._array_index.get(id(a))
        if found is None:
            key = self._next_key()
            data = np.ascontiguousarray(a)
            if data.dtype.byteorder == ">" or (data.dtype.byteorder == "=" and sys.byteorder == "big"):
                data = data.astype(data.dtype.newbyteorder("<"))
            self.arrays.append(_ArrayEntry(key, data))
            found = (len(self._array_index), key)
            self._array_index[id(a)] = found
            self._keep.append(a)
        index, key = found
        return ("ndarray", index, key, tuple(int(s) for s in a.shape))

    # save(..., global_dst_rank=): global tensor -> its global value as a local tensor on the
    # destination rank, None on the others (set by save; None: global tensors are refused).
    global_to_local: Callable[[oneflow.Tensor], oneflow.Tensor | None] | None = None

    def _local_of_global(self, t: oneflow.Tensor) -> oneflow.Tensor | None:
        if self.global_to_local is None:
            raise TypeError(
                "save(): the object holds a global tensor; pass global_dst_rank= (OneFlow's) to gather "
                "global tensors to that rank, which writes the file, or save tensor.to_local()"
            )
        cache = self.__dict__.setdefault("_gathered", {})
        if id(t) not in cache:  # one global tensor saved twice is gathered (and stored) once
            self._keep.append(t)
            cache[id(t)] = self.global_to_local(t)
        return cache[id(t)]

    def persistent_id(self, obj: Any) -> tuple | None:
        if isinstance(obj, oneflow.Tensor):
            if getattr(obj, "is_global", False) is True:
                obj = self._local_of_global(obj)
                if obj is None:  # a rank that only takes part in gathering: it writes nothing
                    return ("tensor",)
            return self._tensor_pid(obj)
        if isinstance(obj, oneflow.dtype):
            return ("dtype", _dtype_name(obj))
        if isinstance(obj, oneflow.device):
            return ("device", str(obj))
        if np is not None and type(obj) is np.ndarray and obj.dtype.kind in "biufc":
            return self._array_pid(obj)
        return None


class _Pickler(_PersistentIds, pickle.Pickler):
    """The standard pickler with oneflow's persistent ids."""


def _pickler_class(pickle_module: Any) -> type:
    if pickle_module is pickle:
        return _Pickler
    base = getattr(pickle_module, "Pickler", None)
    if not (isinstance(base, type) and issubclass(base, (pickle.Pickler, pickle._Pickler))):
        raise TypeError(f"save(): pickle_module {pickle_module!r} has no Pickler class")
    return type("_Pickler", (_PersistentIds, base), {})


def _storages_json(pickler: _Pickler) -> dict[str, dict[str, Any]]:
    meta: dict[str, dict[str, Any]] = {}
    for g in pickler.groups.values():
        numel = g.hi - g.lo
        meta[g.key] = {
            "dtype": _dtype_name(g.dtype),
            "offset": g.lo,
            "numel": numel,
            "nbytes": numel * g.tensor.element_size(),
            "device": g.device,
        }
    for entry in pickler.arrays:
        meta[entry.key] = {
            "dtype": entry.array.dtype.str,
            "offset": 0,
            "numel": int(entry.array.size),
            "nbytes": int(entry.array.nbytes),
            "device": "cpu",
        }
    return meta


def _zip_info(name: str, size: int) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name, date_time=_ZIP_DATE)
    info.compress_type = zipfile.ZIP_STORED
    info.file_size = size
    info.external_attr = 0o644 << 16
    return info


def _write_bytes(zf: zipfile.ZipFile, name: str, data: bytes) -> None:
    zf.writestr(_zip_info(name, len(data)), data)


def _write_storage(zf: zipfile.ZipFile, name: str, data: memoryview) -> None:
    """Writes one storage's bytes as the entry ``name``, in chunks, without copying them first."""
    nbytes = data.nbytes
    with zf.open(_zip_info(name, nbytes), "w", force_zip64=nbytes >= zipfile.ZIP64_LIMIT) as dst:
        for start in range(0, nbytes, _CHUNK):
            dst.write(data[start : start + _CHUNK])


def _group_bytes(group: _StorageGroup) -> tuple[memoryview, Any]:
    """The saved span of a storage group as bytes, and the object that keeps them alive."""
    t = group.tensor
    n = group.hi - group.lo
    itemsize = t.element_size()
    if t.device.type != "cpu":
        span = oneflow.as_strided(t, (n,), (1,), group.lo).to("cpu").contiguous()
        keep = span
        address = span._data_ptr_read()
    else:
        keep = t
        address = t._storage_ptr() + group.lo * itemsize
    data = _raw(address, n * itemsize)
    if sys.byteorder != "little":  # pragma: no cover - no big-endian hosts in CI
        data = memoryview(_byteswapped(data, itemsize))
    return data, keep


def _array_bytes(entry: _ArrayEntry) -> memoryview:
    return memoryview(entry.array.reshape(-1).view(np.uint8)) if entry.array.size else memoryview(b"")


def _pickle_structure(obj: Any, pickle_module: Any, protocol: int, global_to_local=None):
    """(pickler, buffer) after pickling ``obj``'s structure into ``buffer``; the pickler has
    also found every storage and the span of it the tensors reach (and gathered global ones)."""
    buffer = io.BytesIO()
    pickler = _pickler_class(pickle_module)(buffer, protocol)
    pickler.global_to_local = global_to_local
    pickler.dump(obj)
    return pickler, buffer


def _save_to_stream(obj: Any, stream: IO[bytes], pickle_module: Any, protocol: int, global_to_local=None) -> None:
    pickler, buffer = _pickle_structure(obj, pickle_module, protocol, global_to_local)
    with zipfile.ZipFile(stream, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as zf:
        _write_bytes(zf, _PREFIX + "format", _FORMAT)
        _write_bytes(zf, _PREFIX + "byteorder", b"little")
        _write_bytes(zf, _PREFIX + "data.pkl", buffer.getvalue())
        meta = _storages_json(pickler)
        _write_bytes(zf, _PREFIX + "storages.json", json.dumps(meta, sort_keys=True).encode())
        for group in pickler.groups.values():
            data, keep = _group_bytes(group)
            _write_storage(zf, _PREFIX + "data/" + group.key, data)
            del data, keep
        for entry in pickler.arrays:
            _write_storage(zf, _PREFIX + "data/" + entry.key, _array_bytes(entry))


def _umask() -> int:
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except OSError:
        pass
    mask = os.umask(0o022)  # pragma: no cover - non-Linux fallback
    os.umask(mask)
    return mask


def _fsync_directory(directory: str) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:  # pragma: no cover - e.g. platforms without directory fds
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover
        pass
    finally:
        os.close(fd)


def save(
    obj: Any,
    f: FileLike,
    pickle_module: Any = pickle,
    pickle_protocol: int = _DEFAULT_PROTOCOL,
    global_dst_rank: int | None = None,
) -> None:
    """Saves ``obj`` (tensors, state dicts, containers, numbers, strings...) to a checkpoint.

    The checkpoint is a zip archive described in this module's docstring.
    Tensors keep their dtype (bfloat16 included), shape, strides,
    ``requires_grad`` and subclass (e.g. ``nn.Parameter``); tensors sharing
    memory are stored once and share it again after :func:`load`.

    Args:
        obj: the object to save.
        f: a path (``str`` or ``os.PathLike``) or a writable binary file object.
            A path is written atomically: a temporary file next to it is written,
            fsynced and renamed over it, so an error midway leaves any previous
            file at that path unchanged. A symbolic link is followed (its target
            is replaced). A file object is written from its current position.
        pickle_module: the module whose ``Pickler`` pickles the object
            structure. Default: :mod:`pickle`.
        pickle_protocol (int): the pickle protocol of the object structure. Default: 2.
        global_dst_rank (int, optional): OneFlow's: the rank that saves global tensors. Each
            global tensor in ``obj`` is gathered to that rank (a collective: every rank calls
            ``save`` alike) and saved as a local tensor of its global value; only that rank
            writes ``f``, the others do no disk I/O. Without it, a global tensor in ``obj`` is a
            TypeError. As in OneFlow it may also be the third positional argument.

    Example::

        >>> oneflow.save(model.state_dict(), "model.pt")
        >>> model.load_state_dict(oneflow.load("model.pt"))

    An object whose class defines ``_oneflow_save(obj, path)`` saves itself that way: a compiled
    ``nn.Graph`` writes a directory that ``oneflow.nn.graph.load`` runs without the model's code.
    """
    saver = getattr(type(obj), "_oneflow_save", None)
    if saver is not None:  # an object with its own saved format (nn.Graph: a directory)
        return saver(obj, f)
    if _is_rank_arg(pickle_module):  # OneFlow's order: save(obj, path, global_dst_rank)
        if global_dst_rank is not None:
            raise TypeError("save(): got global_dst_rank twice (as the third argument and by keyword)")
        pickle_module, global_dst_rank = pickle, pickle_module
    global_to_local = None
    if global_dst_rank is not None:
        plugin = _global_checkpoint("global_dst_rank")
        dst = plugin.check_rank("save", "global_dst_rank", global_dst_rank)
        global_to_local = functools.partial(plugin.gather_to, dst=dst)
        if plugin.rank() != dst:
            # Only the gathering: pickling visits the tensors in the same order on every rank.
            _pickle_structure(obj, pickle_module, pickle_protocol, global_to_local)
            return
    if isinstance(f, (str, os.PathLike)):
        path = os.fspath(f)
        if isinstance(path, bytes):
            path = os.fsdecode(path)
        if os.path.islink(path):
            path = os.path.realpath(path)  # like open(path, "wb"): write the link's target
        directory = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(directory):
            raise RuntimeError(f"Parent directory {directory} does not exist.")
        if os.path.isdir(path):
            raise IsADirectoryError(f"save(): {path!r} is a directory")
        try:
            mode = stat.S_IMODE(os.stat(path).st_mode)
        except OSError:
            mode = 0o666 & ~_umask()
        else:
            # Replacing a file we could not open for writing would bypass its permissions.
            if not os.access(path, os.W_OK):
                raise PermissionError(f"save(): permission denied: {path!r}")
        fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", suffix=".tmp", dir=directory)
        try:
            with os.fdopen(fd, "wb") as handle:
                _save_to_stream(obj, handle, pickle_module, pickle_protocol, global_to_local)
                handle.flush()
                os.fsync(handle.fileno())
            os.chmod(tmp, mode)
            os.replace(tmp, path)
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise
        _fsync_directory(directory)
        return
    if not hasattr(f, "write"):
        raise TypeError(f"save(): f must be a path or a writable binary file object, not {type(f).__name__}")
    _save_to_stream(obj, f, pickle_module, pickle_protocol, global_to_local)
    flush = getattr(f, "flush", None)
    if callable(flush):
        flush()
