"""``oneflow.save`` and ``oneflow.load``: checkpoints of tensors and Python objects.

File format
-----------
A checkpoint is an uncompressed zip archive (zip64 when large) with these
entries, all under the folder ``archive/``:

The entries come in this order, each stored uncompressed with a fixed date
(so saving the same object twice gives the same bytes):

``archive/format``
    The text ``oneflow.save 1``: the format and its version. A reader refuses
    other versions.
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
      the data entry (``None`` for a tensor without elements, which loads on the
      CPU); ``dtype`` is a oneflow dtype name (``"bfloat16"``); ``shape`` and
      ``stride`` are tuples of ints (strides in elements); ``storage_offset``
      counts elements from the start of the buffer the tensor lived in (the data
      entry holds the span of it from its ``offset`` on); ``class`` is ``None`` for a
      plain tensor, else the ``module:qualname`` of a Tensor subclass such as
      ``oneflow.nn.Parameter``; ``attributes`` is the tensor's ``__dict__`` (or
      ``None``).
    - ``("ndarray", index, storage, shape)``: a NumPy array (bool, integer,
      floating or complex), C-contiguous and little-endian in its data entry.
      It loads as a NumPy array again, so state dicts of NumPy arrays
      (converted PyTorch checkpoints) round-trip, also with ``weights_only=True``.
    - ``("dtype", name)`` and ``("device", "cpu")``.
``archive/storages.json``
    For each data entry: ``dtype`` (a oneflow dtype name, or for NumPy arrays a
    NumPy dtype string such as ``"<f4"``), ``offset`` (the buffer element the
    entry starts at), ``numel``, ``nbytes`` and the ``device`` the tensor was on
    (``map_location`` maps it).
``archive/data/<storage>``
    The raw bytes of one storage: ``numel`` elements, ``nbytes`` bytes.

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
error midway (an object that cannot be pickled, a full disk, an interrupt)
leaves the previous checkpoint at that path intact and no temporary file
behind. (Saving to a file object writes straight into it; pickling finishes
before the first byte is written.) Storages stream from tensor memory into the
file, and back into the new tensors on load, in bounded chunks.

``load`` raises ``RuntimeError`` naming the file and saying it is truncated or
corrupt when the archive is cut short, its checksums (every zip entry carries
a CRC-32) do not match, or a record is inconsistent (a tensor reaching outside
its storage, a size that does not match its data entry, an unknown dtype);
sizes are checked before anything is allocated.

``load`` uses ``weights_only=True`` by default, as PyTorch 2.6+ does: a
restricted unpickler that rebuilds only tensors (plain or ``nn.Parameter``),
NumPy arrays and scalars, dtypes, devices, numbers, strings, ``bytes``,
``bytearray``, ``complex`` and the containers ``dict``, ``list``, ``tuple``,
``set``, ``OrderedDict`` and ``Counter``, plus what :func:`add_safe_globals`
allows. Anything else raises ``pickle.UnpicklingError`` before it is built;
``weights_only=False`` loads it (only for trusted files).

Files written by ``torch.save`` cannot be read (their tensors are pickled as
calls into PyTorch); convert them to a state dict of NumPy arrays and save that.
"""

from __future__ import annotations

import _compat_pickle
import collections
import importlib
import inspect
import io
import json
import os
import pickle
import sys
import zipfile
from typing import IO, Any, BinaryIO

import oneflow
from oneflow._checkpoint_format import (
    _FORMAT,
    _READ_CHUNK,
    FileLike,
    MapLocation,
    _byteswapped,
    _Corrupt,
    _dtype_from_name,
    _global_checkpoint,
    _is_rank_arg,
    _raw,
)
from oneflow._checkpoint_save import save

try:  # NumPy is optional for oneflow.save/load (needed only to save or load arrays)
    import numpy as np
except ImportError:  # pragma: no cover - NumPy is installed alongside oneflow
    np = None

__all__ = ["add_safe_globals", "clear_safe_globals", "get_safe_globals", "load", "save"]

# --------------------------------------------------------------------------------------------
# Loading
# --------------------------------------------------------------------------------------------


class WeightsOnlyUnpicklingError(pickle.UnpicklingError):
    """``load(..., weights_only=True)`` met a global it does not allow."""


# Globals a weights_only load rebuilds, as PyTorch's weights_only unpickler allows them: the
# containers and value types that have no pickle opcode of their own.
_SAFE_GLOBALS: dict[tuple[str, str], Any] = {
    ("collections", "OrderedDict"): collections.OrderedDict,
    ("collections", "Counter"): collections.Counter,
    ("builtins", "set"): set,
    ("builtins", "complex"): complex,
    ("builtins", "bytearray"): bytearray,
    # Protocol 2 pickles bytes as _codecs.encode(text, "latin1").
    ("_codecs", "encode"): __import__("codecs").encode,
    ("oneflow._size", "Size"): oneflow.Size,
}
if np is not None:
    # NumPy scalars (np.float32(1.5), common in converted checkpoints) pickle as
    # numpy.core.multiarray.scalar(dtype, bytes): plain values, so they are allowed too.
    _SAFE_GLOBALS[("numpy", "dtype")] = np.dtype
    for _module in ("numpy.core.multiarray", "numpy._core.multiarray"):
        try:
            _SAFE_GLOBALS[(_module, "scalar")] = importlib.import_module(_module).scalar
        except (ImportError, AttributeError):  # pragma: no cover - depends on the NumPy version
            pass

# Globals the user allowed with add_safe_globals: "module.qualname" -> (object, as given).
_USER_SAFE_GLOBALS: dict[str, tuple[Any, Any]] = {}


def add_safe_globals(safe_globals: list[Any]) -> None:
    """Allows ``load(..., weights_only=True)`` to rebuild the given classes and functions.

    Args:
        safe_globals (list): classes or functions (also Tensor subclasses), or
            ``(object, "module.name")`` pairs for objects whose name in the
            checkpoint differs from ``module.qualname``.

    Example::

        >>> oneflow.serialization.add_safe_globals([MyConfig])
        >>> oneflow.load("checkpoint.pt")  # may now hold MyConfig objects
    """
    for entry in safe_globals:
        if isinstance(entry, tuple):
            if len(entry) != 2 or not isinstance(entry[1], str):
                raise TypeError("add_safe_globals(): a pair must be (object, 'module.name')")
            _USER_SAFE_GLOBALS[entry[1]] = (entry[0], entry)
        else:
            module = getattr(entry, "__module__", None)
            qualname = getattr(entry, "__qualname__", None)
            if not (isinstance(module, str) and isinstance(qualname, str)):
                raise TypeError(f"add_safe_globals(): {entry!r} has no __module__ and __qualname__")
            _USER_SAFE_GLOBALS[f"{module}.{qualname}"] = (entry, entry)


def get_safe_globals() -> list[Any]:
    """The objects allowed by :func:`add_safe_globals`, as they were given."""
    return [given for _, given in _USER_SAFE_GLOBALS.values()]


def clear_safe_globals() -> None:
    """Forgets every object allowed by :func:`add_safe_globals`."""
    _USER_SAFE_GLOBALS.clear()


def _safe_global(module: str, name: str) -> Any:
    """The allowed global ``module.name`` (protocol 2 names mapped to Python 3's), else None."""
    if (module, name) in _compat_pickle.NAME_MAPPING:
        module, name = _compat_pickle.NAME_MAPPING[(module, name)]
    elif module in _compat_pickle.IMPORT_MAPPING:
        module = _compat_pickle.IMPORT_MAPPING[module]
    found = _SAFE_GLOBALS.get((module, name))
    if found is None:
        found = _USER_SAFE_GLOBALS.get(f"{module}.{name}", (None, None))[0]
    return found


def _weights_only_hint(what: str) -> str:
    return (
        f"Weights only load failed: {what}. weights_only=True rebuilds only tensors, NumPy arrays, "
        "numbers, strings and plain containers. If you trust the source of the checkpoint, load it "
        "with weights_only=False, or allow the object with oneflow.serialization.add_safe_globals."
    )


def _tensor_class(path: str, weights_only: bool) -> type:
    """The Tensor subclass named ``module:qualname``. weights_only allows, like PyTorch, only
    ``nn.Parameter`` and the classes given to add_safe_globals."""
    module_name, _, qualname = path.partition(":")
    cls: Any
    if weights_only:
        cls = _USER_SAFE_GLOBALS.get(f"{module_name}.{qualname}", (None, None))[0]
        if cls is None:
            parameter = oneflow.nn.Parameter
            if (module_name, qualname) != (parameter.__module__, parameter.__qualname__):
                raise WeightsOnlyUnpicklingError(_weights_only_hint(f"the tensor class {path} is not allowed"))
            cls = parameter
    else:
        cls = importlib.import_module(module_name)
        for part in qualname.split("."):
            cls = getattr(cls, part)
    if not (isinstance(cls, type) and issubclass(cls, oneflow.Tensor)):
        if weights_only:
            raise WeightsOnlyUnpicklingError(_weights_only_hint(f"{path} is not a tensor class"))
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


def _int_tuple(value: Any, what: str) -> tuple[int, ...]:
    if not isinstance(value, (tuple, list)) or not all(type(v) is int for v in value):
        raise _Corrupt(f"bad {what} {value!r}")
    return tuple(value)


def _numel(shape: tuple[int, ...]) -> int:
    n = 1
    for s in shape:
        if s < 0:
            raise _Corrupt(f"negative size in shape {shape}")
        n *= s
    return n


class _Loader:
    """Rebuilds storages, tensors and arrays from an open archive."""

    def __init__(self, zf: zipfile.ZipFile, prefix: str, meta: Any, map_location: MapLocation, weights_only: bool):
        if not isinstance(meta, dict):
            raise _Corrupt("bad storage table")
        self.zf = zf
        self.prefix = prefix
        self.map_location = map_location
        self.weights_only = weights_only
        self.meta: dict[str, dict[str, Any]] = meta
        self.storages: dict[str, Any] = {}
        self.tensors: dict[int, Any] = {}
        self.arrays: dict[int, Any] = {}

    def _entry(self, key: Any) -> tuple[dict[str, Any], zipfile.ZipInfo]:
        """The storage table row and the zip entry of storage ``key``."""
        info = self.meta.get(key) if isinstance(key, str) else None
        if not isinstance(info, dict):
            raise _Corrupt(f"storage {key!r} is missing from the storage table")
        name = self.prefix + "data/" + key
        try:
            zinfo = self.zf.getinfo(name)
        except KeyError as e:
            raise _Corrupt(f"data entry {name} is missing") from e
        return info, zinfo

    def _read_into(self, zinfo: zipfile.ZipInfo, target: memoryview) -> None:
        """Fills ``target`` with the entry's bytes, a bounded chunk at a time (no full-size copy)."""
        if zinfo.file_size != target.nbytes:
            raise _Corrupt(f"data entry {zinfo.filename} holds {zinfo.file_size} bytes, expected {target.nbytes}")
        try:
            with self.zf.open(zinfo) as src:
                got = 0
                while got < target.nbytes:
                    chunk = src.read(min(_READ_CHUNK, target.nbytes - got))
                    if not chunk:
                        break
                    target[got : got + len(chunk)] = chunk
                    got += len(chunk)
                # Reading to the end makes zipfile verify the entry's CRC-32.
                if got != target.nbytes or src.read(1):
                    raise _Corrupt(f"data entry {zinfo.filename} is cut short")
        except _Corrupt:
            raise
        except MemoryError:
            raise
        except Exception as e:  # zipfile reports damage as BadZipFile, ValueError, OSError, ...
            raise _Corrupt(f"data entry {zinfo.filename}: {e}") from e

    def _location(self, base: oneflow.Tensor, saved: str) -> oneflow.Tensor:
        where = self.map_location
        if callable(where) and not isinstance(where, (str, oneflow.device)):
            result = where(base, saved)
            if result is None:  # like PyTorch: None means the default placement
                where = None
            elif not isinstance(result, oneflow.Tensor):
                raise TypeError(f"load(): map_location must return a Tensor or None, not {type(result).__name__}")
            else:
                return result
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

    def storage(self, key: Any) -> tuple[oneflow.Tensor, int]:
        """The storage's tensor (one dimension) and the buffer element it starts at."""
        found = self.storages.get(key) if isinstance(key, str) else None
        if found is not None:
            return found
        info, zinfo = self._entry(key)
        dtype = _dtype_from_name(info.get("dtype"))
        numel, start = info.get("numel"), info.get("offset", 0)
        if type(numel) is not int or type(start) is not int or numel < 0 or start < 0:
            raise _Corrupt(f"bad entry for storage {key!r}")
        itemsize = oneflow.empty((0,), dtype=dtype).element_size()
        if zinfo.file_size != numel * itemsize:  # checked before allocating numel elements
            raise _Corrupt(f"data entry {zinfo.filename} holds {zinfo.file_size} bytes, expected {numel * itemsize}")
        base = oneflow.empty((numel,), dtype=dtype)
        if numel:
            target = _raw(base._data_ptr_read(), numel * itemsize)  # a fresh tensor
            self._read_into(zinfo, target)
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
        dtype = _dtype_from_name(dtype_name)
        shape = _int_tuple(shape, "tensor shape")
        stride = _int_tuple(stride, "tensor stride")
        numel = _numel(shape)
        if key is None:
            if numel:
                raise _Corrupt(f"tensor of shape {shape} has no data entry")
            t = oneflow.empty(shape, dtype=dtype)
            if isinstance(self.map_location, (str, oneflow.device)):
                # Tensors without elements have no storage (nor saved device): a device given
                # as map_location places them; otherwise they load on the CPU.
                t = self._location(t, "cpu")
        else:
            base, start = self.storage(key)
            if base.dtype != dtype:
                raise _Corrupt(f"tensor dtype {dtype_name} does not match its storage")
            if type(offset) is not int or len(stride) != len(shape):
                raise _Corrupt("bad tensor record")
            try:
                # A detached alias: shares the storage but is not an autograd view of it.
                t = oneflow.as_strided(base, shape, stride, offset - start).detach()
            except RuntimeError as e:
                raise _Corrupt(f"tensor record outside its storage ({e})") from e
        try:
            if cls_path is not None:
                if not isinstance(cls_path, str):
                    raise _Corrupt("bad tensor class")
                t = _make_subclass(_tensor_class(cls_path, self.weights_only), t, bool(requires_grad))
            elif requires_grad:
                t.requires_grad_(True)
        except RuntimeError as e:  # e.g. requires_grad on an integer tensor
            raise _Corrupt(f"bad tensor record ({e})") from e
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
        info, zinfo = self._entry(key)
        try:
            dtype = np.dtype(str(info["dtype"]))
        except Exception as e:
            raise _Corrupt(f"bad entry for storage {key!r} ({e})") from e
        if dtype.kind not in "biufc":
            raise _Corrupt(f"bad array dtype {dtype}")
        shape = _int_tuple(shape, "array shape")
        numel = _numel(shape)
        if info.get("numel") != numel or zinfo.file_size != numel * dtype.itemsize:
            raise _Corrupt(f"array of shape {shape} does not match its data entry {zinfo.filename}")
        buffer = bytearray(numel * dtype.itemsize)
        if numel:
            self._read_into(zinfo, memoryview(buffer))
        array = np.frombuffer(buffer, dtype=dtype)
        if dtype.byteorder == ">" or (dtype.byteorder == "=" and sys.byteorder == "big"):
            array = array.astype(dtype.newbyteorder("="))  # pragma: no cover
        elif dtype.byteorder == "<" and sys.byteorder == "little":
            array = array.view(dtype.newbyteorder("="))
        array = array.reshape(shape)
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
        if kind == "device" and len(pid) == 2 and isinstance(pid[1], str):
            try:
                return oneflow.device(pid[1])
            except Exception as e:
                raise _Corrupt(f"bad device {pid[1]!r}") from e
        raise _Corrupt(f"unknown persistent id kind {kind!r}")


class _PersistentLoads:
    """Unpickler mixin that resolves persistent ids through a _Loader."""

    def __init__(self, file: IO[bytes], loader: _Loader, **kwargs: Any) -> None:
        super().__init__(file, **kwargs)
        self._loader = loader

    def persistent_load(self, pid: Any) -> Any:
        return self._loader.persistent_load(pid)


class _Unpickler(_PersistentLoads, pickle.Unpickler):
    """The standard unpickler with oneflow's persistent ids (weights_only=False)."""


class _WeightsOnlyUnpickler(_Unpickler):
    """Rebuilds only the allow-listed globals (see _SAFE_GLOBALS and add_safe_globals)."""

    def find_class(self, module: str, name: str) -> Any:
        found = _safe_global(module, name)
        if found is None:
            raise WeightsOnlyUnpicklingError(_weights_only_hint(f"unsupported global {module}.{name}"))
        return found


def _unpickler_class(pickle_module: Any, weights_only: bool) -> type:
    if weights_only:
        return _WeightsOnlyUnpickler
    if pickle_module is None or pickle_module is pickle:
        return _Unpickler
    base = getattr(pickle_module, "Unpickler", None)
    if not (isinstance(base, type) and issubclass(base, (pickle.Unpickler, pickle._Unpickler))):
        raise TypeError(f"load(): pickle_module {pickle_module!r} has no Unpickler class")
    return type("_Unpickler", (_PersistentLoads, base), {})


def _open_for_read(f: FileLike) -> tuple[BinaryIO, bool, str]:
    """A seekable binary stream for ``f``, whether load must close it, and a name for messages."""
    if isinstance(f, (str, os.PathLike)):
        path = os.fspath(f)
        return open(path, "rb"), True, repr(os.fsdecode(path))
    if not hasattr(f, "read"):
        raise TypeError(f"load(): f must be a path or a readable binary file object, not {type(f).__name__}")
    name = getattr(f, "name", None)
    name = repr(name) if isinstance(name, (str, bytes)) else f"<{type(f).__name__} object>"
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


class _NotOurs(Exception):
    """Internal: a readable archive that oneflow.save did not write."""


def _archive_prefix(zf: zipfile.ZipFile) -> str:
    names = zf.namelist()
    for name in names:
        if name.endswith("/format") and name.count("/") == 1:
            return name[: -len("format")]
    if any(n.endswith("/data.pkl") for n in names) and any(n.endswith("/version") for n in names):
        raise _NotOurs(
            "it was written by torch.save, whose tensors oneflow.load cannot rebuild; load it with "
            "torch.load, convert the tensors to NumPy arrays ({k: v.numpy() for k, v in "
            "state_dict.items()}) and save that with oneflow.save"
        )
    raise _NotOurs("the archive has no 'format' entry (was it written by oneflow.save?)")


def _open_archive(stream: BinaryIO) -> tuple[zipfile.ZipFile, str, bytes, Any]:
    """Opens the archive and reads its small entries: (zip, folder prefix, pickle, storage table)."""
    zf = zipfile.ZipFile(stream)
    try:
        prefix = _archive_prefix(zf)
        version = _read_entry(zf, prefix + "format").strip()
        if version != _FORMAT:
            if version.startswith(b"oneflow.save "):
                raise _NotOurs(f"its format version {version.decode(errors='replace')!r} is not supported")
            raise _Corrupt(f"bad format entry {version[:40]!r}")
        if _read_entry(zf, prefix + "byteorder").strip() != b"little":
            raise _Corrupt("unsupported byte order")
        data = _read_entry(zf, prefix + "data.pkl")
        try:
            meta = json.loads(_read_entry(zf, prefix + "storages.json").decode("utf-8"))
        except ValueError as e:
            raise _Corrupt(f"bad storage table ({e})") from e
    except BaseException:
        zf.close()
        raise
    return zf, prefix, data, meta


def load(
    f: FileLike,
    map_location: MapLocation = None,
    pickle_module: Any = None,
    *,
    weights_only: bool | None = None,
    mmap: bool | None = None,
    global_src_rank: int | None = None,
    **pickle_load_args: Any,
) -> Any:
    """Loads an object saved by :func:`save`.

    Args:
        f: a path (``str`` or ``os.PathLike``) or a readable binary file object.
        map_location: where tensors go: ``None`` (the device they were saved
            from), a device or device string (``"cpu"``), a dict mapping saved
            device strings to devices, or a callable ``fn(storage, location)``
            that gets each storage as a one-dimensional CPU tensor and the saved
            device string and returns the tensor to use (or ``None`` for the
            default placement).
        pickle_module: the module whose ``Unpickler`` unpickles the object
            structure (only with ``weights_only=False``). Default: :mod:`pickle`.
        weights_only (bool, optional): unpickle with a restricted unpickler that
            only rebuilds tensors (and ``nn.Parameter``), NumPy arrays and
            scalars, dtypes, devices, numbers, strings, bytes and plain
            containers, plus what :func:`add_safe_globals` allows; anything else
            raises ``pickle.UnpicklingError``. Default: ``True`` unless
            ``pickle_module`` is given. Pass ``False`` only for trusted files.
        mmap: not supported (checkpoints are read into memory); must be ``None`` or ``False``.
        global_src_rank (int, optional): OneFlow's: only this rank reads ``f``; every rank
            (all call ``load`` alike) gets the object, each tensor of it a global tensor on
            ``oneflow.placement(<its device type>, [global_src_rank])`` with a broadcast sbp. As
            in OneFlow it may also be the second positional argument.
        pickle_load_args: passed to the unpickler (e.g. ``encoding``).

    Raises:
        RuntimeError: when the file is truncated or corrupt, or was not written
            by :func:`save`.
        pickle.UnpicklingError: with ``weights_only=True``, for disallowed content.
    """
    if _is_rank_arg(map_location):  # OneFlow's order: load(path, global_src_rank, map_location)
        if global_src_rank is not None:
            raise TypeError("load(): got global_src_rank twice (as the second argument and by keyword)")
        global_src_rank, map_location = map_location, None
        if pickle_module is not None and not inspect.ismodule(pickle_module):  # OneFlow's third: map_location
            map_location, pickle_module = pickle_module, None
    if global_src_rank is not None:
        plugin = _global_checkpoint("global_src_rank")
        src = plugin.check_rank("load", "global_src_rank", global_src_rank)
        obj = None
        if plugin.rank() == src:
            obj = load(f, map_location, pickle_module, weights_only=weights_only, mmap=mmap, **pickle_load_args)
        return plugin.share_loaded(obj, src)
    if mmap:
        raise NotImplementedError("load(): mmap=True is not supported; checkpoints are read into memory")
    if weights_only is None:
        weights_only = pickle_module is None
    if weights_only and pickle_module is not None:
        raise RuntimeError("load(): cannot load weights safely when an explicit pickle_module is given")
    unpickler_type = _unpickler_class(pickle_module, bool(weights_only))
    stream, close, name = _open_for_read(f)
    try:
        try:
            zf, prefix, data, meta = _open_archive(stream)
        except _NotOurs as e:
            raise RuntimeError(f"load(): cannot read the checkpoint {name}: {e}") from e
        except MemoryError:
            raise
        except Exception as e:  # zipfile reports damage as BadZipFile, ValueError, OSError, ...
            detail = str(e) if isinstance(e, _Corrupt) else f"{type(e).__name__}: {e}"
            raise RuntimeError(
                f"load(): the checkpoint {name} is truncated or corrupt, or was not written by oneflow.save ({detail})"
            ) from e
        with zf:
            try:
                loader = _Loader(zf, prefix, meta, map_location, bool(weights_only))
                return unpickler_type(io.BytesIO(data), loader, **pickle_load_args).load()
            except WeightsOnlyUnpicklingError:
                raise
            except (_Corrupt, EOFError, pickle.UnpicklingError) as e:
                raise RuntimeError(f"load(): the checkpoint {name} is truncated or corrupt ({e})") from e
    finally:
        if close:
            stream.close()
