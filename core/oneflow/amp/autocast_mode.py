"""``oneflow.autocast``: regions in which ops run in mixed precision.

The casting itself happens in the C++ dispatcher (``core/framework/autocast.cc``):
every op call, whether made from Python, from a Python composite or from
another op's C++ code, checks the calling thread's autocast state and casts its
floating tensor arguments according to the op's policy (lower precision for
matmuls and convolutions, float32 for losses and precision-sensitive ops,
promotion for ops such as ``cat``). This module only manages that state.

The state is per thread and per device type (``"cpu"``, ``"cuda"``): whether
autocast is on, its lower-precision dtype, whether weight casts are cached, and
how deeply autocast regions are nested (the cache is dropped when the outermost
region exits).
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from typing import Any, TypeVar

import oneflow
from oneflow import _C

__all__ = [
    "autocast",
    "autocast_decrement_nesting",
    "autocast_increment_nesting",
    "clear_autocast_cache",
    "get_autocast_cpu_dtype",
    "get_autocast_dtype",
    "get_autocast_gpu_dtype",
    "is_autocast_available",
    "is_autocast_cache_enabled",
    "is_autocast_cpu_enabled",
    "is_autocast_enabled",
    "set_autocast_cache_enabled",
    "set_autocast_dtype",
    "set_autocast_enabled",
]

_DEVICE_TYPES = ("cpu", "cuda")
# The lower-precision dtypes autocast accepts (oneflow's dtypes exist before this module loads).
_SUPPORTED_DTYPES = (oneflow.bfloat16, oneflow.float16)
_F = TypeVar("_F", bound=Callable[..., Any])


def is_autocast_available(device_type: str) -> bool:
    """Whether autocast supports ``device_type`` (``"cpu"`` or ``"cuda"``).

    Args:
        device_type (str): a device type such as ``"cpu"``.
    """
    return device_type in _DEVICE_TYPES


def is_autocast_enabled(device_type: str | None = None) -> bool:
    """Whether autocast is enabled on this thread.

    Args:
        device_type (str, optional): the device type to ask about. Without it the
            answer is for ``"cuda"``, as in PyTorch (use ``"cpu"`` for CPU autocast).
    """
    return _C.is_autocast_enabled("cuda" if device_type is None else device_type)


def set_autocast_enabled(device_type: str, enabled: bool) -> None:
    """Turns autocast on or off for ``device_type`` on this thread (prefer :class:`autocast`)."""
    _C.set_autocast_enabled(device_type, bool(enabled))


def get_autocast_dtype(device_type: str) -> oneflow.dtype:
    """The lower-precision dtype autocast uses for ``device_type``.

    ``oneflow.bfloat16`` for ``"cpu"`` and ``oneflow.float16`` for ``"cuda"``
    unless an enclosing :class:`autocast` (or :func:`set_autocast_dtype`) chose another.
    """
    return _C.get_autocast_dtype(device_type)


def set_autocast_dtype(device_type: str, dtype: oneflow.dtype) -> None:
    """Sets the lower-precision dtype of ``device_type`` on this thread (prefer :class:`autocast`)."""
    _C.set_autocast_dtype(device_type, dtype)


def is_autocast_cpu_enabled() -> bool:
    """Whether CPU autocast is enabled (the same as ``is_autocast_enabled("cpu")``)."""
    return _C.is_autocast_enabled("cpu")


def get_autocast_cpu_dtype() -> oneflow.dtype:
    """The CPU autocast dtype (the same as ``get_autocast_dtype("cpu")``)."""
    return _C.get_autocast_dtype("cpu")


def get_autocast_gpu_dtype() -> oneflow.dtype:
    """The CUDA autocast dtype (the same as ``get_autocast_dtype("cuda")``)."""
    return _C.get_autocast_dtype("cuda")


def is_autocast_cache_enabled() -> bool:
    """Whether casts of weights (float32 leaves that require grad) are cached in autocast regions."""
    return _C.is_autocast_cache_enabled()


def set_autocast_cache_enabled(enabled: bool) -> None:
    """Turns the weight cast cache on or off on this thread."""
    _C.set_autocast_cache_enabled(bool(enabled))


def autocast_increment_nesting() -> int:
    """Records entering an autocast region; returns the new depth."""
    return _C.autocast_increment_nesting()


def autocast_decrement_nesting() -> int:
    """Records leaving an autocast region; returns the new depth."""
    return _C.autocast_decrement_nesting()


def clear_autocast_cache() -> None:
    """Drops the cached weight casts of this thread."""
    _C.clear_autocast_cache()


class autocast:
    """A context manager (and function decorator) that runs ops in mixed precision.

    Inside the region, ops on ``device_type`` tensors follow their autocast
    policy: matrix multiplications, linear layers, convolutions and attention
    run in ``dtype``; losses and other precision-sensitive ops run in float32;
    ops such as ``cat`` and ``stack`` promote mixed inputs to the widest one.
    Other ops run in the dtype of their inputs. Casts are differentiable, so
    the gradients of float32 leaves come back in float32. ``float64`` tensors
    are never cast.

    Args:
        device_type (str): ``"cpu"`` (the default here; PyTorch requires the
            argument) or ``"cuda"``. ``"cuda"`` regions are recorded even without
            a CUDA device, but only affect ops on CUDA tensors.
        dtype (oneflow.dtype, optional): the lower-precision dtype,
            ``oneflow.bfloat16`` or ``oneflow.float16``. Default: the device
            type's autocast dtype (bfloat16 for CPU, float16 for CUDA). Other
            dtypes warn and disable autocast, as in PyTorch.
        enabled (bool): ``False`` turns autocast off inside the region (also
            inside an enclosing autocast region). Default: ``True``.
        cache_enabled (bool, optional): cache the casts of weights within the
            region. Default: the current setting (``True`` unless changed).

    Example::

        >>> with oneflow.autocast("cpu"):
        ...     y = oneflow.mm(a, b)        # bfloat16
        ...     loss = F.mse_loss(y, t)     # float32
        >>> loss.backward()                 # a.grad is float32 like a
    """

    def __init__(
        self,
        device_type: str = "cpu",
        dtype: oneflow.dtype | None = None,
        enabled: bool = True,
        cache_enabled: bool | None = None,
    ) -> None:
        if not isinstance(device_type, str):
            raise ValueError(f"autocast: device_type must be a str such as 'cpu', got {type(device_type).__name__}")
        if not is_autocast_available(device_type):
            raise RuntimeError(f"autocast: unsupported device_type '{device_type}' (expected 'cpu' or 'cuda')")
        self.device = device_type
        self.fast_dtype = get_autocast_dtype(device_type) if dtype is None else dtype
        self._cache_enabled = is_autocast_cache_enabled() if cache_enabled is None else bool(cache_enabled)
        if enabled and self.fast_dtype not in _SUPPORTED_DTYPES:
            warnings.warn(
                f"autocast on {device_type} supports only oneflow.bfloat16 and oneflow.float16; "
                f"got {self.fast_dtype}, so autocast is disabled in this region.",
                stacklevel=2,
            )
            enabled = False
        self._enabled = bool(enabled)
        self._saved: list = []

    def __enter__(self) -> autocast:
        # A stack, so one instance may be entered again while active (recursion).
        self._saved.append(
            (
                is_autocast_enabled(self.device),
                get_autocast_dtype(self.device),
                is_autocast_cache_enabled(),
            )
        )
        set_autocast_enabled(self.device, self._enabled)
        set_autocast_dtype(self.device, self.fast_dtype)
        autocast_increment_nesting()
        set_autocast_cache_enabled(self._cache_enabled)
        return self

    def __exit__(self, exc_type: Any, exc_val: Any, exc_tb: Any) -> bool:
        if autocast_decrement_nesting() == 0:
            clear_autocast_cache()
        enabled, dtype, cache = self._saved.pop()
        set_autocast_enabled(self.device, enabled)
        set_autocast_dtype(self.device, dtype)
        set_autocast_cache_enabled(cache)
        return False

    def __call__(self, func: _F) -> _F:
        """Decorates ``func`` so that each call runs inside this autocast region."""
        if not callable(func):
            raise TypeError(
                f"autocast()(func) expects a callable, got {type(func).__name__}; to use autocast "
                "as a context manager write `with oneflow.autocast(...):`"
            )

        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with self:
                return func(*args, **kwargs)

        return wrapper  # type: ignore[return-value]

    def __repr__(self) -> str:
        return (
            f"oneflow.autocast(device_type={self.device!r}, dtype={self.fast_dtype}, "
            f"enabled={self._enabled}, cache_enabled={self._cache_enabled})"
        )
