"""``skip_init``: build a module without running its parameter initialization."""

from __future__ import annotations

import inspect
from typing import Any, TypeVar

from oneflow.nn.modules.module import Module

__all__ = ["skip_init"]

T = TypeVar("T", bound=Module)


def skip_init(module_cls: type[T], *args: Any, **kwargs: Any) -> T:
    r"""Instantiates ``module_cls(*args, **kwargs)`` without initializing its parameters and
    buffers: they hold uninitialized memory on ``kwargs["device"]`` (default CPU).

    The class must accept a ``device`` keyword argument. OneFlow has no ``meta`` device, so the
    module is built on the target device (its initializers do run) and then given fresh,
    uninitialized storage with ``to_empty``; what the caller gets is the same as in PyTorch.

    Example::

        >>> m = skip_init(nn.Linear, 5, 1)
        >>> m.weight.shape
        oneflow.Size([1, 5])
    """
    if not (isinstance(module_cls, type) and issubclass(module_cls, Module)):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    final_device = kwargs.pop("device", "cpu")
    kwargs["device"] = final_device
    return module_cls(*args, **kwargs).to_empty(device=final_device)
