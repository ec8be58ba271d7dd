"""``oneflow.jit``: OneFlow's stand-ins for ``torch.jit``'s decorators.

As in OneFlow, these exist so that code written with ``torch.jit`` annotations runs: ``script``
returns its argument unchanged, ``ignore``/``unused``/``interface``/``export`` leave the function
as it is, and ``is_scripting()``/``is_tracing()`` are False. Compilation is ``oneflow.nn.Graph``'s
job. ``trace`` is not provided (OneFlow has none): it raises, pointing at nn.Graph.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

__all__ = [
    "Final",
    "export",
    "ignore",
    "interface",
    "is_scripting",
    "is_tracing",
    "script",
    "script_if_tracing",
    "trace",
    "unused",
]


def script(obj: Any, optimize=None, _frames_up: int = 0, _rcb=None, example_inputs=None) -> Any:
    """Returns ``obj`` (a module, function or class) unchanged: no TorchScript in OneFlow."""
    return obj


def ignore(drop: Any = False, **kwargs) -> Any:
    """``@ignore`` or ``@ignore(drop=True)``: leaves the decorated function as it is."""
    if callable(drop):  # used bare: @oneflow.jit.ignore
        return drop
    if not isinstance(drop, bool):
        raise TypeError(f"ignore(): argument 'drop' must be bool or a function, not {type(drop).__name__}")
    return lambda fn: fn


def _identity_decorator(name: str) -> Callable:
    def decorator(fn: Callable) -> Callable:
        if not callable(fn):
            raise TypeError(f"{name}(): expected a function, method or class, got {type(fn).__name__}")
        return fn

    decorator.__name__ = decorator.__qualname__ = name
    decorator.__doc__ = f"Returns its argument unchanged, as OneFlow's ``jit.{name}``."
    return decorator


unused = _identity_decorator("unused")
export = _identity_decorator("export")
interface = _identity_decorator("interface")
script_if_tracing = _identity_decorator("script_if_tracing")
_script_if_tracing = script_if_tracing
_overload_method = _identity_decorator("_overload_method")


def is_scripting() -> bool:
    """False: code never runs under TorchScript here."""
    return False


def is_tracing() -> bool:
    """False: code never runs under torch.jit.trace here."""
    return False


def trace(func, example_inputs=None, *args, **kwargs):
    """Not supported, as in OneFlow: compile with ``oneflow.nn.Graph`` instead."""
    raise NotImplementedError(
        "oneflow.jit.trace(): OneFlow has no TorchScript tracing; compile the module with oneflow.nn.Graph "
        "(class G(oneflow.nn.Graph): build() calls the module) to get a static graph"
    )
