"""``oneflow.cuda``: whether CUDA is there, device selection, seeding and synchronization.

Safe to import and call on any build: without CUDA (a CPU-only build, or no visible GPU)
``is_available()`` is False and ``device_count()`` 0; seeding is silently ignored and
``synchronize``/``empty_cache`` do nothing, as OneFlow documents; ``set_device`` on a real
index raises. As in OneFlow (and unlike PyTorch), ``current_device()`` is this process's local
rank (``LOCAL_RANK``, 0 without a launcher).
"""

from __future__ import annotations

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
    "max_memory_allocated",
    "max_memory_reserved",
    "memory_allocated",
    "memory_reserved",
    "memory_stats",
    "reset_peak_memory_stats",
    "set_device",
    "synchronize",
]

# The legacy typed-tensor classes of CUDA tensors (oneflow.cuda.FloatTensor, ...).
globals().update(_typed_tensor_classes("cuda", "oneflow.cuda"))

DeviceLike = Union["oneflow.device", str, int, None]


def _built_with_cuda() -> bool:
    """True when this build has the CUDA backend (``--config=cuda``)."""
    return bool(oneflow._C._cuda_built())


def device_count() -> int:
    """The number of GPUs available: 0 on a build without CUDA or without a visible GPU."""
    return int(oneflow._C._cuda_device_count()) if _built_with_cuda() else 0


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
    oneflow._C._cuda_set_device(index)


def synchronize(device: DeviceLike = None) -> None:
    """Waits until the work queued on ``device`` (default: the current device) has finished.

    Without CUDA there is nothing to wait for: it returns at once, as the CPU runs every op
    synchronously.
    """
    index = _device_index("synchronize", device, optional=True)
    if index < 0 or not is_available():
        return
    oneflow._C._cuda_synchronize(index)


def _check_seed(fn: str, seed) -> int:
    try:
        return int(seed)
    except (TypeError, ValueError):
        raise TypeError(f"{fn}(): argument 'seed' must be int, not {type(seed).__name__}") from None


def manual_seed(seed: int) -> None:
    """Seeds the random numbers of the GPUs (one CUDA generator); ignored without CUDA."""
    seed = _check_seed("manual_seed", seed)
    if _built_with_cuda():
        oneflow._C._cuda_manual_seed(seed % (1 << 64))


def manual_seed_all(seed: int) -> None:
    """Seeds the random numbers of every GPU; ignored without CUDA."""
    manual_seed(seed)


def empty_cache() -> None:
    """Returns the cached, unused GPU memory of the caching allocator to the driver; a no-op
    without CUDA."""
    if _built_with_cuda():
        oneflow._C._cuda_empty_cache()


def _stats_index(fn: str, device: DeviceLike) -> int:
    index = _device_index(fn, device, optional=True)
    if not is_available():
        raise RuntimeError(f"{fn}(): CUDA is not available (no GPU, or a build without CUDA)")
    return index


def memory_stats(device: DeviceLike = None) -> dict:
    """The CUDA caching allocator's counters for ``device``, in ``torch.cuda.memory_stats`` keys."""
    return dict(oneflow._C._cuda_memory_stats(_stats_index("memory_stats", device)))


def memory_allocated(device: DeviceLike = None) -> int:
    """Bytes held by live tensors on ``device``."""
    return memory_stats(device)["allocated_bytes.all.current"]


def max_memory_allocated(device: DeviceLike = None) -> int:
    """The peak of ``memory_allocated`` since the start or the last ``reset_peak_memory_stats``."""
    return memory_stats(device)["allocated_bytes.all.peak"]


def memory_reserved(device: DeviceLike = None) -> int:
    """Bytes the caching allocator holds from the driver on ``device`` (live plus cached)."""
    return memory_stats(device)["reserved_bytes.all.current"]


def max_memory_reserved(device: DeviceLike = None) -> int:
    """The peak of ``memory_reserved``."""
    return memory_stats(device)["reserved_bytes.all.peak"]


def reset_peak_memory_stats(device: DeviceLike = None) -> None:
    """Sets the peaks to the current values."""
    oneflow._C._cuda_reset_peak_memory_stats(_stats_index("reset_peak_memory_stats", device))
