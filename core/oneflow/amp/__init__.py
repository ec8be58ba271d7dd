"""Automatic mixed precision: :class:`autocast` regions and the :class:`GradScaler`.

``oneflow.autocast`` (also ``oneflow.amp.autocast``) runs matmuls and
convolutions in bfloat16/float16 and precision-sensitive ops in float32; the
casting is done by the C++ dispatcher from a per-op policy table. The
``GradScaler`` keeps small gradients of a low-precision forward pass from
underflowing by scaling the loss.
"""

from oneflow.amp import autocast_mode
from oneflow.amp.autocast_mode import *  # noqa: F403 - the names in autocast_mode.__all__
from oneflow.amp.grad_scaler import GradScaler, OptState

__all__ = ["GradScaler", "OptState", *autocast_mode.__all__]
