"""What ``oneflow.save`` and ``oneflow.load`` share: the checkpoint format's constants, raw memory
access, dtype names, and the hook to the Global Tensor plugin. The format is described in
:mod:`oneflow.serialization`."""

from __future__ import annotations

import ctypes
import os
from collections.abc import Callable
from typing import IO, Any, BinaryIO

import oneflow

try:  # NumPy is optional for oneflow.save/load (needed only to save or load arrays)
    import numpy as np
except ImportError:  # pragma: no cover - NumPy is installed alongside oneflow
    np = None


_PREFIX = "archive/"
_FORMAT = b"oneflow.save 1"
_DEFAULT_PROTOCOL = 2
_ZIP_DATE = (1980, 1, 1, 0, 0, 0)  # fixed, so saving the same object twice gives the same bytes
_CHUNK = 1 << 24  # bytes written per call while streaming a storage into the archive
_READ_CHUNK = 1 << 22  # bytes read per call while loading one (bounds the temporary copies)

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


def _dtype_from_name(name: Any) -> oneflow.dtype:
    dtype = oneflow._C.dtype_from_name(name) if isinstance(name, str) else None
    if dtype is None:
        raise _Corrupt(f"unknown dtype {name!r}")
    return dtype


class _Corrupt(Exception):
    """Internal: the archive is damaged (reported as RuntimeError by load)."""


def _global_checkpoint(arg: str):
    """The plugin's side of global tensors in checkpoints (the ``global_checkpoint`` hook)."""
    from oneflow import _plugin

    return _plugin.load_hook(
        "global_checkpoint",
        f"{arg}= (global tensors in checkpoints) needs Global Tensor support, which the oneflow-distributed "
        "package provides; it is not installed. Install the oneflow-distributed wheel.",
    )


def _is_rank_arg(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
