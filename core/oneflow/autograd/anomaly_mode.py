"""Anomaly detection: with it on, a backward that produces NaN raises at the op that made it."""

from __future__ import annotations

import threading

import oneflow
from oneflow import _C

__all__ = ["detect_anomaly", "is_anomaly_enabled", "is_anomaly_check_nan_enabled", "set_detect_anomaly"]

_lock = threading.Lock()
_state = {"enabled": False, "check_nan": True}


def _check(node_name: str, grads: list) -> None:
    # Called by the engine right after `node_name`'s backward returned `grads`.
    for i, g in enumerate(grads):
        if g is not None and g.is_floating_point() and bool(oneflow.isnan(g.detach()).any()):
            raise RuntimeError(f"Function '{node_name}' returned nan values in its {i}th output.")


def _apply(enabled: bool, check_nan: bool) -> None:
    with _lock:
        _state["enabled"] = enabled
        _state["check_nan"] = check_nan
        _C._set_anomaly_check(_check if enabled and check_nan else None)


def is_anomaly_enabled() -> bool:
    """Whether anomaly detection is on."""
    return _state["enabled"]


def is_anomaly_check_nan_enabled() -> bool:
    """Whether anomaly detection checks the gradients for NaN."""
    return _state["check_nan"]


class set_detect_anomaly:
    """Turns anomaly detection on or off; usable as a function, a context manager or a decorator.

    With it on, every backward function's results are checked: a NaN raises a ``RuntimeError``
    naming the function that produced it (e.g. ``Function 'DivBackward0' returned nan values in
    its 0th output.``). The check costs a pass over every gradient, so use it for debugging only.

    Args:
        mode (bool): turn anomaly detection on (``True``) or off (``False``).
        check_nan (bool, optional): check the gradients for NaN. Default: ``True``.
    """

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self.prev = (is_anomaly_enabled(), is_anomaly_check_nan_enabled())
        _apply(bool(mode), bool(check_nan))

    def __enter__(self) -> None:
        pass

    def __exit__(self, *args) -> None:
        _apply(*self.prev)

    def __call__(self, fn):
        mode, check_nan = is_anomaly_enabled(), is_anomaly_check_nan_enabled()
        _apply(*self.prev)  # the decorator form applies only while `fn` runs

        def wrapped(*args, **kwargs):
            with set_detect_anomaly(mode, check_nan):
                return fn(*args, **kwargs)

        wrapped.__name__ = getattr(fn, "__name__", "wrapped")
        wrapped.__doc__ = getattr(fn, "__doc__", None)
        return wrapped


class detect_anomaly:
    """Context manager (and decorator) that turns anomaly detection on inside it.

        >>> with oneflow.autograd.detect_anomaly():
        ...     x = oneflow.tensor([0.0], requires_grad=True)
        ...     (x.sqrt() * 0).sum().backward()  # doctest: +SKIP
        RuntimeError: Function 'SqrtBackward0' returned nan values in its 0th output.

    Args:
        check_nan (bool, optional): check the gradients for NaN. Default: ``True``.
    """

    def __init__(self, check_nan: bool = True) -> None:
        self.check_nan = check_nan
        self.prev = None

    def __enter__(self) -> None:
        self.prev = (is_anomaly_enabled(), is_anomaly_check_nan_enabled())
        _apply(True, self.check_nan)

    def __exit__(self, *args) -> None:
        _apply(*self.prev)

    def __call__(self, fn):
        check_nan = self.check_nan

        def wrapped(*args, **kwargs):
            with detect_anomaly(check_nan):
                return fn(*args, **kwargs)

        wrapped.__name__ = getattr(fn, "__name__", "wrapped")
        wrapped.__doc__ = getattr(fn, "__doc__", None)
        return wrapped
