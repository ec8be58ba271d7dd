"""``oneflow.cpu``: statistics and control of the CPU caching allocator.

The names follow ``torch.cuda``'s memory API. Tensor storage on the CPU comes from a caching
allocator: a request of ``n`` bytes is rounded up to :func:`allocation_size` ``(n)`` (a multiple
of 64 bytes, at least 64; above 64 KiB, a multiple of 4 KiB pages) and every byte count here is
in those rounded sizes. Blocks above 64 KiB are carved out of large ranges of reserved address
space, of which only the blocks' pages are committed. A freed block stays committed (cached) for
later requests instead of being returned to the OS (which would make the next tensor there
page-fault all its memory in again); it merges with cached neighbours, and a request takes the
smallest cached range that fits and splits it, so memory freed by tensors of one size serves
tensors of other sizes. Only when no cached range fits is fresh memory committed, growing a cached
range that borders uncommitted space where possible. Smaller blocks go to glibc's arenas, which
keep small blocks themselves.

The cache holds at most ``ONEFLOW_CPU_CACHE_LIMIT_MB`` MiB (environment variable read at import;
default 8192, ``0`` disables caching); :func:`set_cache_limit` changes the bound at run time and
:func:`empty_cache` returns every cached block to the OS. An allocation that fails empties the
cache and retries once (``num_alloc_retries``) before raising ``RuntimeError`` (``num_ooms``).
"""

from __future__ import annotations

from typing import Any

from oneflow import _C

__all__ = [
    "allocation_size",
    "empty_cache",
    "max_memory_allocated",
    "max_memory_reserved",
    "memory_allocated",
    "memory_reserved",
    "memory_stats",
    "reset_accumulated_memory_stats",
    "reset_max_memory_allocated",
    "reset_peak_memory_stats",
    "set_cache_limit",
]


def _check_device(device: Any) -> None:
    # Accepts what torch.cuda's functions accept for their device argument, for the one CPU.
    if device is None:
        return
    text = str(device)
    if text not in ("cpu", "cpu:0", "0"):
        raise ValueError(f"oneflow.cpu memory statistics cover the CPU only, got device {device!r}")


def memory_stats(device: Any = None) -> dict[str, int]:
    """Returns the CPU caching allocator's counters as a dict, keys sorted.

    Keys follow ``torch.cuda.memory_stats``: ``"allocated_bytes.all.{current,peak,allocated,
    freed}"`` (bytes in tensors; allocated/freed are cumulative), ``"reserved_bytes.all.{current,
    peak,allocated,freed}"`` (bytes the allocator holds, in tensors or cached, and the cumulative
    bytes obtained from / returned to the system), ``"allocation.all.{current,peak,allocated,
    freed}"`` (block counts), ``"num_alloc_retries"``, ``"num_ooms"``, ``"num_device_alloc"``,
    ``"num_device_free"``, and oneflow's ``"cached_bytes.all.current"``, ``"num_cache_hits"`` and
    ``"cache_limit_bytes"``. ``num_cache_hits`` counts large allocations served from cached
    memory alone; ``num_device_alloc`` / ``num_device_free`` count commits and returns of large
    ranges plus glibc's small blocks.

    Args:
        device: ignored apart from validation (``None`` or ``"cpu"``).
    """
    _check_device(device)
    stats = _C._cpu_memory_stats()
    return dict(sorted(stats.items()))


def memory_allocated(device: Any = None) -> int:
    """Returns the bytes currently occupied by CPU tensors (rounded allocation sizes)."""
    _check_device(device)
    return int(_C._cpu_memory_allocated())


def max_memory_allocated(device: Any = None) -> int:
    """Returns the peak of :func:`memory_allocated` since the start or the last
    :func:`reset_peak_memory_stats`."""
    return memory_stats(device)["allocated_bytes.all.peak"]


def memory_reserved(device: Any = None) -> int:
    """Returns the bytes the CPU allocator holds: in tensors plus cached for reuse."""
    return memory_stats(device)["reserved_bytes.all.current"]


def max_memory_reserved(device: Any = None) -> int:
    """Returns the peak of :func:`memory_reserved` since the start or the last peak reset."""
    return memory_stats(device)["reserved_bytes.all.peak"]


def reset_peak_memory_stats(device: Any = None) -> None:
    """Sets every peak counter (allocated, reserved, block count) to its current value."""
    _check_device(device)
    _C._cpu_reset_peak_memory_stats()


def reset_max_memory_allocated(device: Any = None) -> None:
    """Same as :func:`reset_peak_memory_stats` (kept for PyTorch's older name)."""
    reset_peak_memory_stats(device)


def reset_accumulated_memory_stats(device: Any = None) -> None:
    """Zeroes the cumulative counters (``*.allocated``, ``*.freed``, retries, OOMs, hits)."""
    _check_device(device)
    _C._cpu_reset_accumulated_memory_stats()


def empty_cache() -> None:
    """Returns every cached (freed, unused) block to the operating system.

    Memory held by live tensors is not affected. Later allocations map fresh memory and
    page-fault it in, so call this only to lower the process' footprint.
    """
    _C._cpu_empty_cache()


def set_cache_limit(nbytes: int | None) -> None:
    """Bounds the bytes the cache may hold (``None``: the 8 GiB default).

    Cached blocks beyond the new bound are returned to the OS at once; freed blocks that do not
    fit are returned instead of cached. The initial bound comes from ``ONEFLOW_CPU_CACHE_LIMIT_MB``.
    """
    if nbytes is None:
        nbytes = 8 << 30
    if not isinstance(nbytes, int) or isinstance(nbytes, bool) or nbytes < 0:
        raise ValueError(f"set_cache_limit(): expected a non-negative int, got {nbytes!r}")
    _C._cpu_set_cache_limit(nbytes)


def allocation_size(nbytes: int) -> int:
    """Returns the bytes the CPU allocator reserves and counts for a request of ``nbytes``."""
    if not isinstance(nbytes, int) or isinstance(nbytes, bool) or nbytes < 0:
        raise ValueError(f"allocation_size(): expected a non-negative int, got {nbytes!r}")
    return int(_C._cpu_allocation_size(nbytes))
