"""PyTorch's top-level constants, global switches, creation helpers and small classes (issue 16):
``pi``/``e``/``inf``/``nan``/``newaxis``, ``use_deterministic_algorithms`` and the other process-wide
settings, ``typename``, ``layout``/``strided``, ``asarray``/``frombuffer``/``from_file``/``empty_strided``,
``GradScaler`` and ``OutOfMemoryError``.

Settings this package has no machinery behind (matmul precision, interop threads, anomaly
detection, deterministic algorithms: every kernel here already is) are recorded and read back, so
code that sets and queries them runs unchanged."""

from __future__ import annotations

import builtins
import math
import time

import numpy as _np

import oneflow as _flow
from oneflow.autograd.grad_mode import is_inference_mode_enabled  # noqa: F401 (re-exported)

pi = math.pi
e = math.e
inf = math.inf
nan = math.nan
newaxis = None


class layout:
    """The memory layout of a tensor; this package's tensors are all ``oneflow.strided``."""

    def __init__(self, name: str):
        self._name = name

    def __repr__(self) -> str:
        return f"oneflow.{self._name}"

    def __reduce__(self):
        return self._name


strided = layout("strided")


class OutOfMemoryError(RuntimeError):
    """Raised when a device runs out of memory."""


class AcceleratorError(RuntimeError):
    """Raised when an accelerator (GPU) reports an error."""


class FatalError(Exception):
    """Raised on an unrecoverable internal error."""


# What this build has: LAPACK-style linear algebra (oneflow.linalg) and OpenMP threads, no MKL.
has_lapack = True
has_mkl = False
has_openmp = True


def _synchronize(device) -> None:
    if device.type == "cuda":
        _flow.cuda.synchronize(device)


class Stream:
    """An ordered queue of work on a device. Ops here run in order on each device, so a stream
    is always idle once its work was issued: ``query`` is True, ``synchronize`` waits for the
    device."""

    def __init__(self, device=None, *, priority: int = 0, **kwargs):
        self.device = _flow.device(device or "cpu")
        self.priority = priority

    @property
    def device_type(self) -> str:
        return self.device.type

    @property
    def device_index(self) -> int:
        return -1 if self.device.index is None else self.device.index

    @property
    def stream_id(self) -> int:
        return 0

    def query(self) -> bool:
        """Whether all work on the stream has finished."""
        return True

    def synchronize(self) -> None:
        """Waits for the stream's work to finish."""
        _synchronize(self.device)

    def wait_event(self, event) -> None:
        """Makes later work on this stream wait for ``event``."""
        event.synchronize()

    def wait_stream(self, stream) -> None:
        """Makes later work on this stream wait for ``stream``'s current work."""
        stream.synchronize()

    def record_event(self, event=None):
        """Records ``event`` (a new one if None) on the stream and returns it."""
        event = event or Event(self.device)
        event.record(self)
        return event

    def __eq__(self, other) -> bool:
        return isinstance(other, Stream) and other.device == self.device

    def __hash__(self) -> int:
        return hash((Stream, str(self.device)))

    def __repr__(self) -> str:
        return f"oneflow.Stream device_type={self.device_type}, device_index={self.device_index}, stream_id=0"


class Event:
    """A marker in a stream's work, for synchronization and timing (``elapsed_time`` in ms)."""

    def __init__(self, device=None, *, enable_timing: bool = False, blocking: bool = False, interprocess=False):
        self.device = _flow.device(device or "cpu")
        self._enable_timing = enable_timing
        self._time = None

    def record(self, stream=None) -> None:
        """Marks the point after the work issued so far."""
        _synchronize(self.device)
        self._time = time.perf_counter()

    def query(self) -> bool:
        """Whether the work before the event has finished."""
        return True

    def synchronize(self) -> None:
        """Waits for the work before the event."""
        _synchronize(self.device)

    def wait(self, stream=None) -> None:
        """Makes ``stream``'s later work wait for this event."""
        self.synchronize()

    def elapsed_time(self, end_event) -> float:
        """Milliseconds between this event's and ``end_event``'s records."""
        if not (self._enable_timing and end_event._enable_timing):
            raise ValueError("Both events must be created with argument 'enable_timing=True'.")
        if self._time is None or end_event._time is None:
            raise ValueError("Both events must be recorded before calculating elapsed time.")
        return (end_event._time - self._time) * 1000.0


_SETTINGS = {
    "deterministic": False,
    "deterministic_warn_only": False,
    "matmul_precision": "highest",
    "interop_threads": 1,
    "warn_always": False,
    "anomaly": False,
    "anomaly_check_nan": True,
    "default_device": None,
    "flush_denormal": False,
}


def use_deterministic_algorithms(mode: bool, *, warn_only: bool = False) -> None:
    """Asks for deterministic algorithms (every kernel of this package already is one)."""
    if not isinstance(mode, builtins.bool):
        raise TypeError(f"use_deterministic_algorithms(): argument 'mode' must be bool, not {type(mode).__name__}")
    _SETTINGS["deterministic"] = mode
    _SETTINGS["deterministic_warn_only"] = builtins.bool(warn_only)


def are_deterministic_algorithms_enabled() -> bool:
    """Whether ``use_deterministic_algorithms(True)`` is in effect."""
    return _SETTINGS["deterministic"]


def is_deterministic_algorithms_warn_only_enabled() -> bool:
    """Whether ``use_deterministic_algorithms(True, warn_only=True)`` is in effect."""
    return _SETTINGS["deterministic_warn_only"]


def set_deterministic_debug_mode(debug_mode) -> None:
    """``"default"``/0, ``"warn"``/1 or ``"error"``/2: ``use_deterministic_algorithms`` by level."""
    levels = {"default": 0, "warn": 1, "error": 2}
    if isinstance(debug_mode, str):
        if debug_mode not in levels:
            raise RuntimeError(
                f"invalid value of debug_mode, expected one of `default`, `warn`, `error`, but got {debug_mode}"
            )
        debug_mode = levels[debug_mode]
    if debug_mode not in (0, 1, 2):
        raise RuntimeError(f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}")
    use_deterministic_algorithms(debug_mode != 0, warn_only=debug_mode == 1)


def get_deterministic_debug_mode() -> int:
    """0 (off), 1 (warn) or 2 (error), as set by ``set_deterministic_debug_mode``."""
    if not _SETTINGS["deterministic"]:
        return 0
    return 1 if _SETTINGS["deterministic_warn_only"] else 2


def set_float32_matmul_precision(precision: str) -> None:
    """``"highest"``, ``"high"`` or ``"medium"``: the float32 matmul precision allowed."""
    if precision not in ("highest", "high", "medium"):
        raise RuntimeError(f"Invalid precision: {precision!r}, expected one of 'highest', 'high', 'medium'")
    _SETTINGS["matmul_precision"] = precision


def get_float32_matmul_precision() -> str:
    """The float32 matmul precision set by ``set_float32_matmul_precision``."""
    return _SETTINGS["matmul_precision"]


def set_num_interop_threads(num: int) -> None:
    """The number of threads for inter-op parallelism (ops here run one after another)."""
    if not isinstance(num, builtins.int) or num <= 0:
        raise RuntimeError("Expected positive number of threads")
    _SETTINGS["interop_threads"] = num


def get_num_interop_threads() -> int:
    """The number of inter-op threads set by ``set_num_interop_threads``."""
    return _SETTINGS["interop_threads"]


def init_num_threads() -> None:
    """Initializes the intra-op thread pool (it is ready when the package is imported)."""


def set_warn_always(b: bool) -> None:
    """When true, warnings that are shown once are shown every time."""
    _SETTINGS["warn_always"] = builtins.bool(b)


def is_warn_always_enabled() -> bool:
    """Whether ``set_warn_always(True)`` is in effect."""
    return _SETTINGS["warn_always"]


def set_anomaly_enabled(enabled: bool, check_nan: bool = True) -> None:
    """Records whether autograd anomaly detection is on."""
    _SETTINGS["anomaly"] = builtins.bool(enabled)
    _SETTINGS["anomaly_check_nan"] = builtins.bool(check_nan)


def is_anomaly_enabled() -> bool:
    """Whether anomaly detection is on."""
    return _SETTINGS["anomaly"]


def is_anomaly_check_nan_enabled() -> bool:
    """Whether anomaly detection checks for nan."""
    return _SETTINGS["anomaly_check_nan"]


def set_flush_denormal(mode: bool) -> bool:
    """Asks to flush denormal floats to zero; returns False: not supported on this build."""
    return False


def set_autocast_cpu_enabled(enabled: bool) -> None:
    """``set_autocast_enabled("cpu", enabled)``."""
    _flow.set_autocast_enabled("cpu", enabled)


def set_autocast_cpu_dtype(dtype) -> None:
    """``set_autocast_dtype("cpu", dtype)``."""
    _flow.set_autocast_dtype("cpu", dtype)


def set_autocast_gpu_dtype(dtype) -> None:
    """``set_autocast_dtype("cuda", dtype)``."""
    _flow.set_autocast_dtype("cuda", dtype)


def set_default_device(device) -> None:
    """Records the default device of factory functions; only the CPU (or None) is accepted, as
    the factories here create on the CPU unless told otherwise."""
    if device is not None and _flow.device(device).type != "cpu":
        raise RuntimeError(
            f"set_default_device(): only 'cpu' is supported as the default device, got {device!r}; pass "
            "device= to the factory functions instead"
        )
    _SETTINGS["default_device"] = device


def get_default_device():
    """The device factory functions create tensors on by default."""
    return _flow.device(_SETTINGS["default_device"] or "cpu")


_TENSOR_TYPES = {
    "torch.FloatTensor": "float32", "torch.DoubleTensor": "float64", "torch.HalfTensor": "float16",
    "torch.BFloat16Tensor": "bfloat16", "oneflow.FloatTensor": "float32", "oneflow.DoubleTensor": "float64",
    "oneflow.HalfTensor": "float16", "oneflow.BFloat16Tensor": "bfloat16",
}  # fmt: skip


def set_default_tensor_type(t) -> None:
    """Sets the default floating dtype from a tensor type name (``"torch.DoubleTensor"``) or a
    dtype; deprecated in PyTorch in favour of ``set_default_dtype``."""
    if isinstance(t, _flow.dtype):
        _flow.set_default_dtype(t)
        return
    name = t if isinstance(t, str) else getattr(t, "__name__", str(t))
    if name not in _TENSOR_TYPES:
        raise TypeError(f"invalid type: '{name}'")
    _flow.set_default_dtype(getattr(_flow, _TENSOR_TYPES[name]))


def typename(obj) -> str:
    """The type name of ``obj``: ``oneflow.FloatTensor`` for a float32 tensor, else the class's
    qualified name."""
    if isinstance(obj, _flow.Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    name = getattr(obj, "__qualname__", None) or type(obj).__qualname__
    if not hasattr(obj, "__qualname__"):
        module = type(obj).__module__
    if module in ("", "builtins"):
        return name
    return f"{module}.{name}"


def is_storage(obj) -> bool:
    """Whether ``obj`` is a storage object (this package exposes none)."""
    return False


def get_device_module(device=None):
    """The module of a device type: ``oneflow.cuda`` for ``"cuda"``, ``oneflow.cpu`` for ``"cpu"``."""
    kind = "cpu" if device is None else (device if isinstance(device, str) else _flow.device(device).type)
    kind = kind.split(":")[0]
    if kind == "cpu":
        return _flow.cpu
    if kind == "cuda":
        return _flow.cuda
    raise RuntimeError(f"Device '{kind}' does not have a corresponding module registered as 'oneflow.{kind}'.")


PUBLIC = (
    "is_inference_mode_enabled", "AcceleratorError", "FatalError", "has_lapack", "has_mkl", "has_openmp",
    "Stream", "Event", "thread_safe_generator",
    "pi", "e", "inf", "nan", "newaxis", "layout", "strided", "OutOfMemoryError", "use_deterministic_algorithms",
    "are_deterministic_algorithms_enabled", "is_deterministic_algorithms_warn_only_enabled",
    "set_deterministic_debug_mode", "get_deterministic_debug_mode", "set_float32_matmul_precision",
    "get_float32_matmul_precision", "set_num_interop_threads", "get_num_interop_threads", "init_num_threads",
    "set_warn_always", "is_warn_always_enabled", "set_anomaly_enabled", "is_anomaly_enabled",
    "is_anomaly_check_nan_enabled", "set_flush_denormal", "set_autocast_cpu_enabled", "set_autocast_cpu_dtype",
    "set_autocast_gpu_dtype", "set_default_device", "get_default_device", "set_default_tensor_type", "typename",
    "is_storage", "get_device_module", "asarray", "frombuffer", "from_file", "empty_strided", "empty_permuted",
)  # fmt: skip


def thread_safe_generator():
    """The calling DataLoader thread worker's own generator, or None (the default generator is
    then used) in the main process and in process workers, the only kind this package's
    DataLoader starts."""
    from oneflow.utils.data import get_worker_info

    info = get_worker_info()
    if info is not None and getattr(info, "worker_method", None) == "thread":
        rng = getattr(info, "rng", None)
        return getattr(rng, "generator", None)
    return None


# ---- creation helpers -----------------------------------------------------------------------------


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False):
    """``obj`` (a tensor, NumPy array, buffer, number or nested sequence) as a tensor, sharing
    memory with a tensor or array where dtype and device allow and ``copy`` is not True."""
    if isinstance(obj, _flow.Tensor):
        out = obj
        if dtype is not None or device is not None:
            out = out.to(device=device or out.device, dtype=dtype or out.dtype)
        if copy and out is obj:
            out = obj.clone()
        return out.requires_grad_(requires_grad) if requires_grad else out
    if isinstance(obj, _np.ndarray) and not copy and obj.dtype.kind in "biuf":
        out = _flow.from_numpy(obj)
        if dtype is not None or device is not None:
            out = out.to(device=device or out.device, dtype=dtype or out.dtype)
        return out.requires_grad_(requires_grad) if requires_grad else out
    if isinstance(obj, (bytes, bytearray, memoryview)):
        return frombuffer(obj, dtype=dtype or _flow.get_default_dtype(), requires_grad=requires_grad)
    return _flow.tensor(obj, dtype=dtype, device=device, requires_grad=requires_grad)


def _numpy_dtype(dtype):
    return _np.dtype(str(dtype).split(".")[-1] if dtype != _flow.bfloat16 else "uint16")


def frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False):
    """A 1-D tensor over the bytes of an object with the buffer protocol (``count`` elements of
    ``dtype`` from byte ``offset``; all of them with ``count=-1``)."""
    data = memoryview(buffer)
    itemsize = _numpy_dtype(dtype).itemsize
    available = data.nbytes - offset
    if offset < 0 or offset >= data.nbytes:
        raise ValueError(
            f"both buffer length ({data.nbytes}) and offset ({offset}) must be positive and offset < length"
        )
    if count == -1:
        if available % itemsize:
            raise ValueError(
                f"buffer length ({available} bytes) after offset ({offset} bytes) must be a multiple of element size "
                f"({itemsize})"
            )
        count = available // itemsize
    if count <= 0 or count * itemsize > available:
        raise ValueError(f"requested buffer length ({count} * {itemsize} bytes) after offset ({offset} bytes) must "
                         f"not be greater than actual buffer length ({data.nbytes} bytes)")  # fmt: skip
    array = _np.frombuffer(data, dtype=_numpy_dtype(dtype), count=count, offset=offset)
    out = _flow.from_numpy(array.copy() if not array.flags.writeable else array)
    if dtype == _flow.bfloat16:
        out = out.view(_flow.bfloat16)
    return out.requires_grad_(requires_grad) if requires_grad else out


def from_file(filename, shared=None, size=0, *, dtype=None, device=None, requires_grad=False, **kwargs):
    """A 1-D tensor of ``size`` elements of ``dtype`` read from the start of the file ``filename``."""
    dtype = dtype or _flow.get_default_dtype()
    array = _np.fromfile(filename, dtype=_numpy_dtype(dtype), count=size)
    if array.size < size:
        raise RuntimeError(f"unexpected EOF, expected {size} elements of {dtype} but the file has {array.size}")
    out = _flow.from_numpy(array)
    if device is not None:
        out = out.to(device)
    return out.requires_grad_(requires_grad) if requires_grad else out


def empty_strided(size, stride, *, dtype=None, device=None, requires_grad=False, **kwargs):
    """An uninitialized tensor of ``size`` with the element strides ``stride``."""
    size, stride = list(size), list(stride)
    if len(size) != len(stride):
        raise RuntimeError(
            f"mismatch in length of strides and shape: size has {len(size)} dims, stride has {len(stride)}"
        )
    extent = 1 + builtins.sum((s - 1) * st for s, st in zip(size, stride)) if all(size) else 0
    base = _flow.empty(extent, dtype=dtype, device=device)
    out = _flow.as_strided(base, size, stride)
    return out.requires_grad_(requires_grad) if requires_grad else out


def empty_permuted(size, physical_layout, *, dtype=None, device=None, requires_grad=False, **kwargs):
    """An uninitialized tensor of ``size`` whose dimensions lie in memory in the order
    ``physical_layout`` (outermost first)."""
    size, order = list(size), list(physical_layout)
    if sorted(order) != list(range(len(size))):
        raise RuntimeError(
            f"Number of dimensions in size does not match the length of the physical_layout; "
            f"size={size}, physical_layout={order}"
        )
    physical = _flow.empty([size[d] for d in order], dtype=dtype, device=device)
    inverse = [order.index(d) for d in range(len(size))]
    out = physical.permute(*inverse)
    return out.requires_grad_(requires_grad) if requires_grad else out
