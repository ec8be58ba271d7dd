"""Automatic differentiation: ``backward``, ``grad``, grad modes and custom ``Function``s.

The graph is recorded and run in C++ (oneflow._C); this module is its Python face.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Optional, Union  # noqa: F401 (Optional used in annotations)

from oneflow import _C
from oneflow.autograd.function import Function, FunctionCtx, NestedIOFunction
from oneflow.autograd.grad_mode import enable_grad, inference_mode, no_grad, set_grad_enabled

__all__ = [
    "Function",
    "FunctionCtx",
    "NestedIOFunction",
    "Variable",
    "backward",
    "detect_anomaly",
    "enable_grad",
    "enforce_grad_layout_policy",
    "functional",
    "grad",
    "gradcheck",
    "gradgradcheck",
    "inference_mode",
    "no_grad",
    "set_detect_anomaly",
    "set_grad_enabled",
    "set_multithreading_enabled",
    "variable",
]

TensorOrTensors = Union["oneflow.Tensor", Sequence["oneflow.Tensor"]]  # noqa: F821


def _as_tuple(x) -> tuple:
    if x is None:
        return ()
    if isinstance(x, (list, tuple)):
        return tuple(x)
    return (x,)


# Per thread (the engine runs on the calling thread): one entry per backward pass in progress,
# innermost last; a list of final callbacks for Tensor.backward/autograd.backward, None for
# autograd.grad (which accumulates nothing).
_passes = threading.local()


def _stack() -> list:
    stack = getattr(_passes, "stack", None)
    if stack is None:
        stack = _passes.stack = []
    return stack


def _backward_running() -> bool:
    """True while a backward pass that accumulates into ``.grad`` (Tensor.backward /
    autograd.backward, not autograd.grad) runs on this thread, e.g. inside a tensor hook."""
    stack = _stack()
    return bool(stack) and stack[-1] is not None


def _queue_callback(callback: Callable[[], None]) -> None:
    """Runs ``callback()`` once the backward pass running on this thread has finished, before
    ``backward()`` returns (torch's ``Variable._execution_engine.queue_callback``).

    Called from a hook during Tensor.backward/autograd.backward. In a backward started from
    within another one (a Function's backward calling backward), the callback waits for the
    outermost pass: what it finalizes (e.g. DistributedDataParallel's gradient all-reduce)
    concerns the whole pass. Callbacks run in the order queued, also those queued by
    callbacks; they do not run when the pass raises.
    """
    for frame in _stack():
        if frame is not None:
            frame.append(callback)
            return
    raise RuntimeError("final callbacks can only be installed during the backward pass (Tensor.backward / "
                       "oneflow.autograd.backward), e.g. from a tensor hook")


def _run_pass(frame: list | None, fn, *args):
    stack = _stack()
    stack.append(frame)
    try:
        result = fn(*args)
        i = 0
        while frame and i < len(frame):  # callbacks may queue more
            frame[i]()
            i += 1
    finally:
        stack.pop()
    return result


def _any_global(*groups) -> bool:
    # Global tensors exist only once the oneflow-distributed plugin has made some.
    return any(getattr(t, "is_global", False) is True for group in groups for t in group)


def _global_plugin():
    from oneflow._creation import _global_plugin

    return _global_plugin()


def backward(
    tensors: TensorOrTensors,
    grad_tensors: TensorOrTensors | None = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
) -> None:
    """Accumulates into the ``.grad`` of the leaves the gradients of ``tensors``.

    ``grad_tensors`` seeds each tensor's gradient (may be omitted for scalars).
    The graph is freed unless ``retain_graph`` (default: ``create_graph``); with
    ``create_graph`` the gradients themselves have a graph, for higher order.
    """
    tensors = _as_tuple(tensors)
    grads = _as_tuple(grad_tensors) or (None,) * len(tensors)
    if len(grads) != len(tensors):
        raise RuntimeError(f"got {len(tensors)} tensors and {len(grads)} gradients")
    if _any_global(tensors, grads):  # global roots: the plugin gives their seeds' local parts
        grads = _global_plugin().global_seeds("backward", tensors, grads)
    keep = create_graph if retain_graph is None else retain_graph
    _run_pass([], _C._run_backward, tensors, grads, keep, create_graph)


def grad(
    outputs: TensorOrTensors,
    inputs: TensorOrTensors,
    grad_outputs: TensorOrTensors | None = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    allow_unused: bool = False,
) -> tuple:
    """The gradients of ``outputs`` with respect to ``inputs``, without touching any ``.grad``.

        >>> x = oneflow.tensor(3.0, requires_grad=True)
        >>> (g,) = oneflow.autograd.grad(x * x, x, create_graph=True)
        >>> oneflow.autograd.grad(g, x)
        (tensor(2., dtype=oneflow.float32),)
    """
    outputs = _as_tuple(outputs)
    inputs = _as_tuple(inputs)
    grads = _as_tuple(grad_outputs) or (None,) * len(outputs)
    is_global = _any_global(outputs, inputs, grads)
    if is_global:  # as in backward; the plugin also makes the gradients of global inputs global
        grads = _global_plugin().global_seeds("grad", outputs, grads)
    keep = create_graph if retain_graph is None else retain_graph
    result = _run_pass(None, _C._run_grad, outputs, inputs, grads, keep, create_graph, allow_unused)
    return _global_plugin().global_grads(inputs, result, create_graph) if is_global else result


class set_multithreading_enabled:
    """Context manager (or function) that turns the engine's worker threads on or off.

    The engine runs every backward pass on the calling thread, so there are no worker threads to
    turn off: the setting is recorded (and restored on exit) and otherwise changes nothing.

    Args:
        mode (bool): whether multithreaded backward is allowed.
    """

    _enabled = True

    def __init__(self, mode: bool) -> None:
        self.prev = set_multithreading_enabled._enabled
        set_multithreading_enabled._enabled = bool(mode)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *args) -> None:
        set_multithreading_enabled._enabled = self.prev

    def clone(self) -> set_multithreading_enabled:
        return self.__class__(set_multithreading_enabled._enabled)


_layout = threading.local()


class enforce_grad_layout_policy:
    """Context manager (or function) that sets whether accumulated gradients must follow the
    gradient layout contract: ``.grad`` has its parameter's strides (for a dense, non-overlapping
    parameter), else is row-major contiguous.

    The engine builds every accumulated gradient in its parameter's layout, so the contract
    always holds; relaxing it (``enable=False``) is allowed, as in PyTorch, to change nothing.
    The setting is per thread and restored on exit.

    Args:
        enable (bool): enforce the contract (``True``, default) or relax it (``False``).
    """

    def __init__(self, enable: bool = True) -> None:
        self.prev = enforce_grad_layout_policy.is_enabled()
        _layout.enabled = bool(enable)

    @staticmethod
    def is_enabled() -> bool:
        """Whether the gradient layout contract is enforced on this thread."""
        return getattr(_layout, "enabled", True)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *args) -> None:
        _layout.enabled = self.prev

    def __call__(self, fn):
        enable = enforce_grad_layout_policy.is_enabled()
        _layout.enabled = self.prev

        def wrapped(*args, **kwargs):
            with enforce_grad_layout_policy(enable):
                return fn(*args, **kwargs)

        return wrapped


# Last: these modules use the functions above.
from oneflow.autograd import functional, variable  # noqa: E402
from oneflow.autograd.anomaly_mode import detect_anomaly, set_detect_anomaly  # noqa: E402
from oneflow.autograd.gradcheck import gradcheck, gradgradcheck  # noqa: E402
from oneflow.autograd.variable import Variable  # noqa: E402
