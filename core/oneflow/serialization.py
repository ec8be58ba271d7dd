"""``oneflow.save`` and ``oneflow.load``: checkpoints of tensors and Python objects.

File format
-----------
A checkpoint is an uncompressed zip archive (zip64 when large) with these
entries, all under the folder ``archive/``:

``archive/format``
    The text ``oneflow.save 1``: the format and its version.
``archive/byteorder``
    ``little``: every data entry holds little-endian values.
``archive/data.pkl``
    A pickle (protocol 2 by default) of the saved object in which each tensor,
    each NumPy array of plain numbers, each ``oneflow.dtype`` and each
    ``oneflow.device`` is a *persistent id* (a tuple of plain values) instead of
    pickled data:

    - ``("tensor", index, storage, dtype, shape, stride, storage_offset,
      requires_grad, class, attributes)``: ``index`` numbers the distinct tensor
      objects (one object saved twice loads as one object); ``storage`` names
      the data entry (``None`` for a tensor without elements); ``storage_offset``
      counts elements from the start of the buffer the tensor lived in (the data
      entry holds the span of it from its ``offset`` on); ``class`` is ``None`` for a
      plain tensor, else the ``module:qualname`` of a Tensor subclass such as
      ``oneflow.nn.Parameter``; ``attributes`` is the tensor's ``__dict__`` (or
      ``None``).
    - ``("ndarray", index, storage, shape)``: a NumPy array (bool, integer,
      floating or complex), C-contiguous in its data entry. It loads as a NumPy
      array again, so state dicts of NumPy arrays (converted PyTorch checkpoints)
      round-trip, also with ``weights_only=True``.
    - ``("dtype", name)`` and ``("device", "cpu")``.
``archive/storages.json``
    For each data entry: ``dtype`` (a oneflow dtype name, or for NumPy arrays a
    NumPy dtype string such as ``"<f4"``), ``offset`` (the buffer element the
    entry starts at), ``numel``, ``nbytes`` and the ``device`` the tensor was on.
``archive/data/<storage>``
    The raw bytes of one storage.

Views and shared storage
------------------------
Tensors that share memory (a tensor and its views, or several views of one
buffer) are saved once: their data entry holds the part of the shared buffer
from the lowest to the highest element any of the saved tensors reaches, and
each tensor keeps its shape, strides and offset into it. After loading they
share one new buffer again, so writing through one is seen by the others. A
small view of a large tensor therefore saves only the span it covers (not the
whole buffer as PyTorch does), while a strided view (a column, an expanded
tensor) saves the span between its first and last element without compacting.
NumPy arrays are saved as their own C-contiguous copies (memory shared between
arrays is not kept).

Safety and atomicity
--------------------
``save`` to a path writes a temporary file in the same directory, flushes and
fsyncs it and then renames it over the path (``os.replace``), so a crash or an
error midway leaves the previous checkpoint at that path intact. (Saving to a
file object writes straight into it.) ``load`` raises ``RuntimeError`` saying
the checkpoint is truncated or corrupt when the archive is cut short or its
checksums (every zip entry carries a CRC-32) do not match.
``load(..., weights_only=True)`` unpickles with a restricted unpickler that
only rebuilds tensors, NumPy arrays, dtypes, devices, numbers, strings, bytes
and the plain containers (``dict``, ``OrderedDict``, ``defaultdict``,
``list``, ``tuple``, ``set``); any other global is refused with
``pickle.UnpicklingError``.

Files written by ``torch.save`` cannot be read (their tensors are pickled as
calls into PyTorch); convert them to a state dict of NumPy arrays and save that.
"""

from __future__ import annotations

import collections
import ctypes
import importlib
import inspect
import io
import json
import os
import pickle
import stat
import sys
import tempfile
import zipfile
import zlib
from collections.abc import Callable
from typing import IO, Any, BinaryIO

import oneflow

try:  # NumPy is optional for oneflow.save/load (needed only to save or load arrays)
    import numpy as np
except ImportError:  # pragma: no cover - NumPy is installed alongside oneflow
    np = None

__all__ = ["load", "save"]

_PREFIX = "archive/"
_FORMAT = b"oneflow.save 1"
_DEFAULT_PROTOCOL = 2
_ZIP_DATE = (1980, 1, 1, 0, 0, 0)  # fixed, so saving the same object twice gives the same bytes
_CHUNK = 1 << 24

FileLike = str | os.PathLike | BinaryIO | IO[bytes]
MapLocation = None | str | oneflow.device | dict[str, str] | Callable[..., Any]


# --------------------------------------------------------------------------------------------
# Memory access helpers
# --------------------------------------------------------------------------------------------


def _raw(address: int, nbytes: int) -> memoryview:
    """The bytes at ``address`` as a writable memoryview (CPU memory owned by a live tensor)."""
    if nbytes == 0:
        return memoryview(bytearray())
    return memoryview((ctypes.c_char * nbytes).from_address(address)).cast("B")


def _byteswapped(data: bytes | memoryview, itemsize: int) -> bytes:
    """``data`` with each ``itemsize``-byte element reversed (for big-endian hosts)."""
    if itemsize == 1 or np is None:
        return bytes(data)
    return np.frombuffer(data, dtype=f"u{itemsize}").byteswap().tobytes()


def _dtype_name(dtype: oneflow.dtype) -> str:
    return str(dtype).rsplit(".", 1)[-1]


def _dtype_from_name(name: str) -> oneflow.dtype:
    return oneflow._C.dtype_from_name(name)


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


class _Pickler(pickle.Pickler):
    """A pickler that turns tensors, arrays, dtypes and devices into persistent ids."""

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

    def persistent_id(self, obj: Any) -> tuple | None:
        if isinstance(obj, oneflow.Tensor):
            return self._tensor_pid(obj)
        if isinstance(obj, oneflow.dtype):
            return ("dtype", _dtype_name(obj))
        if isinstance(obj, oneflow.device):
            return ("device", str(obj))
        if np is not None and type(obj) is np.ndarray and obj.dtype.kind in "biufc":
            return self._array_pid(obj)
        return None


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
        address = span.data_ptr()
    else:
        keep = t
        address = t._storage_ptr() + group.lo * itemsize
    data = _raw(address, n * itemsize)
    if sys.byteorder != "little":  # pragma: no cover - no big-endian hosts in CI
        data = memoryview(_byteswapped(data, itemsize))
    return data, keep


def _array_bytes(entry: _ArrayEntry) -> memoryview:
    return memoryview(entry.array.reshape(-1).view(np.uint8)) if entry.array.size else memoryview(b"")


def _save_to_stream(obj: Any, stream: IO[bytes], protocol: int) -> None:
    buffer = io.BytesIO()
    pickler = _Pickler(buffer, protocol)
    pickler.dump(obj)  # also finds every storage and the span of it the tensors reach
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


def save(obj: Any, f: FileLike, pickle_protocol: int = _DEFAULT_PROTOCOL) -> None:
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
            file at that path unchanged.
        pickle_protocol (int): the pickle protocol of the object structure. Default: 2.

    Example::

        >>> oneflow.save(model.state_dict(), "model.pt")
        >>> model.load_state_dict(oneflow.load("model.pt"))
    """
    if isinstance(f, (str, os.PathLike)):
        path = os.fspath(f)
        directory = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(directory):
            raise RuntimeError(f"Parent directory {directory} does not exist.")
        try:
            mode = stat.S_IMODE(os.stat(path).st_mode)
        except OSError:
            mode = 0o666 & ~_umask()
        fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", suffix=".tmp", dir=directory)
        try:
            with os.fdopen(fd, "wb") as handle:
                _save_to_stream(obj, handle, pickle_protocol)
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
    _save_to_stream(obj, f, pickle_protocol)
    flush = getattr(f, "flush", None)
    if callable(flush):
        flush()


# --------------------------------------------------------------------------------------------
# Loading
# --------------------------------------------------------------------------------------------


class _Corrupt(Exception):
    """Internal: the archive is damaged (reported as RuntimeError by load)."""


class WeightsOnlyUnpicklingError(pickle.UnpicklingError):
    """``load(..., weights_only=True)`` met a global it does not allow."""


# Globals a weights_only load may rebuild: plain containers and value types.
_SAFE_GLOBALS = {
    ("collections", "OrderedDict"): collections.OrderedDict,
    ("collections", "defaultdict"): collections.defaultdict,
    ("builtins", "set"): set,
    ("builtins", "frozenset"): frozenset,
    ("builtins", "complex"): complex,
    ("builtins", "slice"): slice,
    ("builtins", "range"): range,
    ("builtins", "bytearray"): bytearray,
    ("builtins", "list"): list,
    ("builtins", "dict"): dict,
    ("builtins", "tuple"): tuple,
    ("builtins", "int"): int,
    ("builtins", "float"): float,
    ("builtins", "str"): str,
    ("builtins", "bool"): bool,
    # Protocol 2 pickles bytes as _codecs.encode(text, "latin1").
    ("_codecs", "encode"): __import__("codecs").encode,
    ("oneflow._size", "Size"): oneflow.Size,
}
if np is not None:
    # NumPy scalars (np.float32(1.5)) pickle as numpy.core.multiarray.scalar(dtype, bytes).
    _SAFE_GLOBALS[("numpy", "dtype")] = np.dtype
    for _module in ("numpy.core.multiarray", "numpy._core.multiarray"):
        try:
            _SAFE_GLOBALS[(_module, "scalar")] = importlib.import_module(_module).scalar
        except (ImportError, AttributeError):  # pragma: no cover - depends on the NumPy version
            pass


def _tensor_class(path: str, weights_only: bool) -> type:
    """The Tensor subclass named ``module:qualname``; weights_only allows only loaded oneflow ones."""
    module_name, _, qualname = path.partition(":")
    if weights_only:
        module = sys.modules.get(module_name)
        if module is None or not (module_name == "oneflow" or module_name.startswith("oneflow.")):
            raise WeightsOnlyUnpicklingError(
                f"Weights only load failed: the tensor class {path} is not allowed (only oneflow's "
                "own tensor classes are); load with weights_only=False if you trust the file."
            )
    else:
        module = importlib.import_module(module_name)
    cls: Any = module
    for part in qualname.split("."):
        cls = getattr(cls, part)
    if not (isinstance(cls, type) and issubclass(cls, oneflow.Tensor)):
        if weights_only:
            raise WeightsOnlyUnpicklingError(f"Weights only load failed: {path} is not a tensor class")
        raise RuntimeError(f"load(): {path} is not a Tensor subclass")
    return cls


def _make_subclass(cls: type, t: oneflow.Tensor, requires_grad: bool) -> oneflow.Tensor:
    try:
        params = inspect.signature(cls.__init__).parameters
    except (TypeError, ValueError):  # pragma: no cover - builtin __init__ without a signature
        params = {}
    if "requires_grad" in params:
        return cls(t, requires_grad=requires_grad)
    out = cls(t)
    out.requires_grad_(requires_grad)
    return out


class _Loader:
    """Rebuilds storages, tensors and arrays from an open archive."""

    def __init__(self, zf: zipfile.ZipFile, prefix: str, map_location: MapLocation, weights_only: bool) -> None:
        self.zf = zf
        self.prefix = prefix
        self.map_location = map_location
        self.weights_only = weights_only
        try:
            meta = json.loads(_read_entry(zf, prefix + "storages.json").decode("utf-8"))
        except ValueError as e:
            raise _Corrupt(f"bad storage table ({e})") from e
        if not isinstance(meta, dict):
            raise _Corrupt("bad storage table")
        self.meta: dict[str, dict[str, Any]] = meta
        self.storages: dict[str, Any] = {}
        self.tensors: dict[int, Any] = {}
        self.arrays: dict[int, Any] = {}

    def _entry(self, key: str) -> dict[str, Any]:
        info = self.meta.get(key)
        if not isinstance(info, dict):
            raise _Corrupt(f"storage {key!r} is missing from the storage table")
        return info

    def _read_into(self, key: str, target: memoryview) -> None:
        name = self.prefix + "data/" + key
        try:
            zinfo = self.zf.getinfo(name)
        except KeyError as e:
            raise _Corrupt(f"data entry {name} is missing") from e
        if zinfo.file_size != target.nbytes:
            raise _Corrupt(f"data entry {name} holds {zinfo.file_size} bytes, expected {target.nbytes}")
        with self.zf.open(zinfo) as src:
            got = 0
            while got < target.nbytes:
                n = src.readinto(target[got:])
                if not n:
                    break
                got += n
            # Reading to the end makes zipfile verify the entry's CRC-32.
            if got != target.nbytes or src.read(1):
                raise _Corrupt(f"data entry {name} has the wrong size")

    def _location(self, base: oneflow.Tensor, saved: str) -> oneflow.Tensor:
        where = self.map_location
        if callable(where) and not isinstance(where, (str, oneflow.device)):
            result = where(base, saved)
            return base if result is None else result
        if isinstance(where, dict):
            target = where.get(saved, saved)
        elif where is None:
            target = saved
        else:
            target = str(where)
        if str(target) == "cpu":
            return base
        try:
            return base.to(target)
        except Exception as e:
            raise RuntimeError(
                f"load(): cannot place a tensor saved on '{saved}' on '{target}' ({e}); pass "
                "map_location='cpu' to load it on the CPU"
            ) from e

    def storage(self, key: str) -> tuple[oneflow.Tensor, int]:
        """The storage's tensor (one dimension) and the buffer element it starts at."""
        found = self.storages.get(key)
        if found is not None:
            return found
        info = self._entry(key)
        try:
            dtype = _dtype_from_name(info["dtype"])
            numel = int(info["numel"])
            start = int(info.get("offset", 0))
        except Exception as e:
            raise _Corrupt(f"bad entry for storage {key!r} ({e})") from e
        base = oneflow.empty((numel,), dtype=dtype)
        itemsize = base.element_size()
        if numel:
            target = _raw(base.data_ptr(), numel * itemsize)
            self._read_into(key, target)
            if sys.byteorder != "little":  # pragma: no cover - no big-endian hosts in CI
                target[:] = _byteswapped(target, itemsize)
        base = self._location(base, str(info.get("device", "cpu")))
        self.storages[key] = (base, start)
        return base, start

    def tensor(self, pid: tuple) -> oneflow.Tensor:
        try:
            _, index, key, dtype_name, shape, stride, offset, requires_grad, cls_path, attrs = pid
        except ValueError as e:
            raise _Corrupt(f"bad tensor record ({e})") from e
        found = self.tensors.get(index)
        if found is not None:
            return found
        if key is None:
            t = oneflow.empty(tuple(shape), dtype=_dtype_from_name(dtype_name))
        else:
            base, start = self.storage(key)
            if _dtype_name(base.dtype) != dtype_name:
                raise _Corrupt(f"tensor dtype {dtype_name} does not match its storage")
            try:
                # A detached alias: shares the storage but is not an autograd view of it.
                t = oneflow.as_strided(base, tuple(shape), tuple(stride), int(offset) - start)
                t = t.detach()
            except RuntimeError as e:
                raise _Corrupt(f"tensor record outside its storage ({e})") from e
        if cls_path is not None:
            t = _make_subclass(_tensor_class(cls_path, self.weights_only), t, bool(requires_grad))
        elif requires_grad:
            t.requires_grad_(True)
        if attrs:
            if not isinstance(attrs, dict):
                raise _Corrupt("bad tensor attributes")
            t.__dict__.update(attrs)
        self.tensors[index] = t
        return t

    def ndarray(self, pid: tuple) -> Any:
        try:
            _, index, key, shape = pid
        except ValueError as e:
            raise _Corrupt(f"bad array record ({e})") from e
        found = self.arrays.get(index)
        if found is not None:
            return found
        if np is None:  # pragma: no cover
            raise RuntimeError("load(): the checkpoint holds NumPy arrays; install numpy")
        info = self._entry(key)
        try:
            dtype = np.dtype(str(info["dtype"]))
            numel = int(info["numel"])
        except Exception as e:
            raise _Corrupt(f"bad entry for storage {key!r} ({e})") from e
        if dtype.kind not in "biufc":
            raise _Corrupt(f"bad array dtype {dtype}")
        buffer = bytearray(numel * dtype.itemsize)
        if numel:
            self._read_into(key, memoryview(buffer))
        array = np.frombuffer(buffer, dtype=dtype)
        if dtype.byteorder == ">" or (dtype.byteorder == "=" and sys.byteorder == "big"):
            array = array.astype(dtype.newbyteorder("="))  # pragma: no cover
        elif dtype.byteorder == "<" and sys.byteorder == "little":
            array = array.view(dtype.newbyteorder("="))
        try:
            array = array.reshape(tuple(shape))
        except ValueError as e:
            raise _Corrupt(f"array record does not match its storage ({e})") from e
        self.arrays[index] = array
        return array

    def persistent_load(self, pid: Any) -> Any:
        if not isinstance(pid, tuple) or not pid:
            raise _Corrupt(f"bad persistent id {pid!r}")
        kind = pid[0]
        if kind == "tensor":
            return self.tensor(pid)
        if kind == "ndarray":
            return self.ndarray(pid)
        if kind == "dtype" and len(pid) == 2:
            return _dtype_from_name(pid[1])
        if kind == "device" and len(pid) == 2:
            return oneflow.device(pid[1])
        raise _Corrupt(f"unknown persistent id kind {kind!r}")


class _Unpickler(pickle.Unpickler):
    def __init__(self, file: IO[bytes], loader: _Loader) -> None:
        super().__init__(file)
        self._loader = loader

    def persistent_load(self, pid: Any) -> Any:
        return self._loader.persistent_load(pid)


class _WeightsOnlyUnpickler(_Unpickler):
    """Rebuilds only the allow-listed globals (see _SAFE_GLOBALS)."""

    def find_class(self, module: str, name: str) -> Any:
        found = _SAFE_GLOBALS.get((module, name))
        if found is None:
            raise WeightsOnlyUnpicklingError(
                f"Weights only load failed: unsupported global {module}.{name}. weights_only=True "
                "rebuilds only tensors, NumPy arrays, numbers, strings and plain containers; load "
                "with weights_only=False if you trust the source of the file."
            )
        return found


def _open_for_read(f: FileLike) -> tuple[BinaryIO, bool, str]:
    """A seekable binary stream for ``f``, whether load must close it, and a name for messages."""
    if isinstance(f, (str, os.PathLike)):
        path = os.fspath(f)
        return open(path, "rb"), True, repr(path)
    if not hasattr(f, "read"):
        raise TypeError(f"load(): f must be a path or a readable binary file object, not {type(f).__name__}")
    name = repr(getattr(f, "name", "<file object>"))
    seekable = getattr(f, "seekable", None)
    if callable(seekable) and seekable():
        return f, False, name  # type: ignore[return-value]
    return io.BytesIO(f.read()), True, name


def _read_entry(zf: zipfile.ZipFile, name: str) -> bytes:
    """The bytes of entry ``name`` (CRC-checked by zipfile); _Corrupt when it is missing."""
    try:
        return zf.read(name)
    except KeyError as e:
        raise _Corrupt(f"entry {name} is missing") from e


def _archive_prefix(zf: zipfile.ZipFile) -> str:
    for name in zf.namelist():
        if name.endswith("/format"):
            return name[: -len("format")]
    raise _Corrupt("the archive has no 'format' entry (was it written by oneflow.save?)")


def load(
    f: FileLike,
    map_location: MapLocation = None,
    weights_only: bool = False,
) -> Any:
    """Loads an object saved by :func:`save`.

    Args:
        f: a path (``str`` or ``os.PathLike``) or a readable binary file object.
        map_location: where tensors go: ``None`` (the device they were saved
            from), a device or device string (``"cpu"``), a dict mapping saved
            device strings to devices, or a callable ``fn(storage, location)``
            that gets each storage as a one-dimensional CPU tensor and the saved
            device string and returns the tensor to use (or ``None`` to keep it).
        weights_only (bool): unpickle with a restricted unpickler that only
            rebuilds tensors, NumPy arrays, dtypes, devices, numbers, strings,
            bytes and plain containers; anything else raises
            ``pickle.UnpicklingError``. Use it for files from untrusted sources.
            Default: ``False``.

    Raises:
        RuntimeError: when the file is truncated or corrupt, or was not written
            by :func:`save`.
        pickle.UnpicklingError: with ``weights_only=True``, for disallowed content.
    """
    stream, close, name = _open_for_read(f)
    try:
        try:
            zf = zipfile.ZipFile(stream)
        except (zipfile.BadZipFile, EOFError, OSError, ValueError) as e:
            raise RuntimeError(
                f"load(): the checkpoint {name} is truncated or corrupt, or was not written by oneflow.save ({e})"
            ) from e
        with zf:
            try:
                prefix = _archive_prefix(zf)
                if _read_entry(zf, prefix + "format").strip() != _FORMAT:
                    raise _Corrupt("unknown format version")
                if _read_entry(zf, prefix + "byteorder").strip() != b"little":
                    raise _Corrupt("unsupported byte order")
                data = _read_entry(zf, prefix + "data.pkl")
                loader = _Loader(zf, prefix, map_location, weights_only)
                unpickler_type = _WeightsOnlyUnpickler if weights_only else _Unpickler
                return unpickler_type(io.BytesIO(data), loader).load()
            except WeightsOnlyUnpicklingError:
                raise
            except (_Corrupt, zipfile.BadZipFile, zlib.error, EOFError, pickle.UnpicklingError) as e:
                raise RuntimeError(f"load(): the checkpoint {name} is truncated or corrupt ({e})") from e
    finally:
        if close:
            stream.close()
