"""``oneflow.backends.cudnn``: the cuDNN switches scripts set (PyTorch's names).

``enabled``, ``benchmark``, ``deterministic`` and ``allow_tf32`` are plain module flags: set them
as ``oneflow.backends.cudnn.benchmark = True``. This build picks its convolution algorithms
itself, so they are recorded and read back but change no result.
"""

from __future__ import annotations

__all__ = ["allow_tf32", "benchmark", "deterministic", "enabled", "is_available", "set_reserved_mem_mbytes", "version"]

enabled = True
benchmark = False
deterministic = False
allow_tf32 = True

_reserved_mem_mbytes: int | None = None


def is_available() -> bool:
    """True when CUDA is available (cuDNN comes with this build's CUDA support)."""
    from oneflow import cuda

    return cuda.is_available()


def version() -> int | None:
    """The cuDNN version, or None when cuDNN is not available (as PyTorch)."""
    return None


def set_reserved_mem_mbytes(mbytes: int) -> None:
    """OneFlow's reserve of device memory for cuDNN workspaces, in MiB (recorded; see module doc)."""
    if isinstance(mbytes, bool) or not isinstance(mbytes, int) or mbytes < 0:
        raise TypeError(f"set_reserved_mem_mbytes(): argument 'mbytes' must be an int >= 0, got {mbytes!r}")
    global _reserved_mem_mbytes
    _reserved_mem_mbytes = mbytes
