"""Automatic differentiation: ``backward``, ``grad``, grad modes and custom ``Function``s.

The graph is recorded and run in C++ (oneflow._C); this module is its Python face.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Optional, Union  # noqa: F401 (Optional used in annotations)

from oneflow import _C
from oneflow.autograd.function import Function, FunctionCtx
from oneflow.autograd.grad_mode import enable_grad, inference_mode, no_grad, set_grad_enabled

__all__ = [
    "Function",
    "FunctionCtx",
    "backward",
    "enable_grad",
    "grad",
    "inference_mode",
    "no_grad",
    "set_grad_enabled",
]

TensorOrTensors = Union["oneflow.Tensor", Sequence["oneflow.Tensor"]]  # noqa: F821


def _as_tuple(x) -> tuple:
    if x is None:
        return ()
    if isinstance(x, (list, tuple)):
        return tuple(x)
    return (x,)


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
    keep = create_graph if retain_graph is None else retain_graph
    _C._run_backward(tensors, grads, keep, create_graph)


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
    keep = create_graph if retain_graph is None else retain_graph
    return _C._run_grad(outputs, inputs, grads, keep, create_graph, allow_unused)
