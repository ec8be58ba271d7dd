"""Grad modes: context managers (and decorators) that switch graph recording."""

from __future__ import annotations

import functools

from oneflow import _C


class _GradModeContext:
    """Base: sets the mode on enter, restores the previous one on exit; also a decorator."""

    _enabled: bool = True

    def __enter__(self):
        self._prev = _C.is_grad_enabled()
        _C._set_grad_enabled(self._enabled)
        return self

    def __exit__(self, *exc) -> None:
        _C._set_grad_enabled(self._prev)

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.__class__():
                return fn(*args, **kwargs)

        return wrapper


class no_grad(_GradModeContext):
    """Ops inside do not record the autograd graph.

        >>> with oneflow.no_grad():
        ...     y = x * 2  # y.requires_grad is False
    """

    _enabled = False


class enable_grad(_GradModeContext):
    """Ops inside record the autograd graph (undoes an enclosing ``no_grad``)."""

    _enabled = True


class inference_mode(_GradModeContext):
    """Like ``no_grad``: for inference code (``inference_mode(False)`` records again)."""

    def __init__(self, mode: bool = True):
        self._enabled = not mode

    def __call__(self, fn):
        if not callable(fn):  # inference_mode(True/False) used as a decorator factory
            return inference_mode(fn)
        mode = not self._enabled

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with inference_mode(mode):
                return fn(*args, **kwargs)

        return wrapper


class set_grad_enabled(_GradModeContext):
    """Sets grad mode to ``mode`` now (as a function) or within a ``with`` block."""

    def __init__(self, mode: bool):
        self._prev = _C.is_grad_enabled()
        self._enabled = bool(mode)
        _C._set_grad_enabled(self._enabled)

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        _C._set_grad_enabled(self._prev)
