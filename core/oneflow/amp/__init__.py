"""Automatic mixed precision: :class:`autocast` regions and the :class:`GradScaler`.

``oneflow.autocast`` (also ``oneflow.amp.autocast``) runs matmuls and
convolutions in bfloat16/float16 and precision-sensitive ops in float32; the
casting is done by the C++ dispatcher from a per-op policy table. The
``GradScaler`` keeps small gradients of a low-precision forward pass from
underflowing by scaling the loss.
"""

from oneflow.amp.autocast_mode import (
    autocast,
    autocast_decrement_nesting,
    autocast_increment_nesting,
    clear_autocast_cache,
    get_autocast_cpu_dtype,
    get_autocast_dtype,
    get_autocast_gpu_dtype,
    is_autocast_available,
    is_autocast_cache_enabled,
    is_autocast_cpu_enabled,
    is_autocast_enabled,
    set_autocast_cache_enabled,
    set_autocast_dtype,
    set_autocast_enabled,
)
from oneflow.amp.grad_scaler import GradScaler, OptState

__all__ = [
    "GradScaler",
    "OptState",
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
