"""``oneflow.cuda``: whether CUDA is there, device selection, seeding and synchronization.

Safe to import and call on any build: without CUDA (a CPU-only build, or no visible GPU)
``is_available()`` is False and ``device_count()`` 0; seeding is silently ignored and
``synchronize``/``empty_cache`` do nothing, as OneFlow documents; ``set_device`` on a real
index raises. As in OneFlow (and unlike PyTorch), ``current_device()`` is this process's local
rank (``LOCAL_RANK``, 0 without a launcher).
"""

from __future__ import annotations

import ctypes
import functools
import os
from typing import Union

import oneflow
from oneflow._compat import _typed_tensor_classes

__all__ = [
    "BFloat16Tensor",
    "BoolTensor",
    "ByteTensor",
    "CharTensor",
    "DoubleTensor",
    "FloatTensor",
    "HalfTensor",
    "IntTensor",
    "LongTensor",
    "ShortTensor",
    "current_device",
    "device_count",
    "empty_cache",
    "is_available",
    "manual_seed",
    "manual_seed_all",
    "set_device",
    "synchronize",
]

# The legacy typed-tensor classes of CUDA tensors (oneflow.cuda.FloatTensor, ...).
globals().update(_typed_tensor_classes("cuda", "oneflow.cuda"))

DeviceLike = Union["oneflow.device", str, int, None]


@functools.cache
def _built_with_cuda() -> bool:
    """True when this build has CUDA kernels (``--config=cuda``)."""
    # Every declared op by its full name ("max.dim"): the part of its schema before "(".
    names = (schema.split("(", 1)[0] for schema in oneflow._C._op_schemas())
    return any("cuda" in oneflow._C.op_info(name)["kernels"] for name in names)


@functools.cache
def _driver_device_count() -> int:
    """The GPUs the CUDA driver shows this process (honouring CUDA_VISIBLE_DEVICES); 0 when the
    driver is missing or fails. Asks the driver API directly, so no device context is created."""
    try:
        driver = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return 0
    count = ctypes.c_int(0)
    if driver.cuInit(0) != 0 or driver.cuDeviceGetCount(ctypes.byref(count)) != 0:
        return 0
    return int(count.value)


def device_count() -> int:
    """The number of GPUs available: 0 on a build without CUDA or without a visible GPU."""
    return _driver_device_count() if _built_with_cuda() else 0


def is_available() -> bool:
    """True when this build has CUDA and at least one GPU is visible."""
    return device_count() > 0


def current_device() -> int:
    """The local rank as device index (OneFlow's semantics; PyTorch returns the selected device).

    ``set_device`` changes it for this process.
    """
    if _selected is not None:
        return _selected
    value = os.environ.get("LOCAL_RANK", "")
    return int(value) if value.strip().lstrip("-").isdigit() else 0


_selected: int | None = None


def _device_index(fn: str, device: DeviceLike, optional: bool) -> int:
    """The CUDA index ``device`` names; ``current_device()`` for None when ``optional``."""
    if device is None and optional:
        return current_device()
    if isinstance(device, str):
        device = oneflow.device(device)
    if isinstance(device, oneflow.device):
        if device.type != "cuda":
            raise ValueError(f"{fn}(): expected a cuda device, got {device}")
        return current_device() if device.index is None else device.index
    if isinstance(device, int) and not isinstance(device, bool):
        return device
    raise TypeError(f"{fn}(): argument 'device' must be oneflow.device, str or int, not {type(device).__name__}")


def set_device(device: DeviceLike) -> None:
    """Selects the current CUDA device; a negative index is a no-op (as in PyTorch)."""
    index = _device_index("set_device", device, optional=False)
    if index < 0:
        return
    count = device_count()
    if index >= count:
        raise RuntimeError(
            f"set_device(): cuda:{index} is not available: this process sees {count} CUDA device(s)"
            + ("" if _built_with_cuda() else " (this build of oneflow has no CUDA support)")
        )
    global _selected
    _selected = index


def synchronize(device: DeviceLike = None) -> None:
    """Waits until the work queued on ``device`` (default: the current device) has finished.

    Without CUDA there is nothing to wait for: it returns at once, as the CPU runs every op
    synchronously.
    """
    index = _device_index("synchronize", device, optional=True)
    if index < 0 or not is_available():
        return
    # A device-to-host copy waits for the device's stream (one stream per device).
    oneflow.zeros(1, device=oneflow.device("cuda", index)).cpu()


def _check_seed(fn: str, seed) -> int:
    try:
        return int(seed)
    except (TypeError, ValueError):
        raise TypeError(f"{fn}(): argument 'seed' must be int, not {type(seed).__name__}") from None


def manual_seed(seed: int) -> None:
    """Seeds the random numbers of the current GPU; silently ignored without CUDA.

    Every device draws from oneflow's one default generator, so with CUDA this is
    ``oneflow.manual_seed(seed)``.
    """
    seed = _check_seed("manual_seed", seed)
    if is_available():
        oneflow.manual_seed(seed)


def manual_seed_all(seed: int) -> None:
    """Seeds the random numbers of every GPU; silently ignored without CUDA."""
    seed = _check_seed("manual_seed_all", seed)
    if is_available():
        oneflow.manual_seed(seed)


def empty_cache() -> None:
    """Releases the cached, unused GPU memory of the caching allocator; a no-op without CUDA."""
    return None
