"""Gradient clipping: ``clip_grad_norm_`` (rescale all gradients so their joint norm is at
most ``max_norm``) and ``clip_grad_value_`` (clamp each element)."""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterable

import oneflow

__all__ = ["clip_grad_norm", "clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_", "get_total_norm"]

Tensor = oneflow.Tensor
TensorOrTensors = Tensor | Iterable[Tensor]


def _tensor_list(tensors) -> list:
    # One tensor, or any iterable of them (a generator such as model.parameters() included).
    return [tensors] if isinstance(tensors, Tensor) else list(tensors)


def get_total_norm(tensors: TensorOrTensors, norm_type: float = 2.0, error_if_nonfinite: bool = False,
                   foreach: bool | None = None) -> Tensor:
    """The ``norm_type``-norm of all ``tensors`` together, as if concatenated into one vector
    (``inf`` for the largest absolute value). 0 for no tensors."""
    tensors = [t for t in _tensor_list(tensors) if t is not None]
    norm_type = float(norm_type)
    if not tensors:
        return oneflow.tensor(0.0)
    with oneflow.no_grad():
        if norm_type == math.inf:
            norms = [t.detach().abs().max() for t in tensors]
            total = norms[0] if len(norms) == 1 else oneflow.stack(norms).max()
        else:
            norms = [oneflow.linalg.vector_norm(t.detach(), norm_type) for t in tensors]
            total = oneflow.linalg.vector_norm(oneflow.stack(norms), norm_type)
    if error_if_nonfinite and bool(total.isnan() | total.isinf()):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, so it "
            "cannot be clipped. To disable this error and scale the gradients by the non-finite norm "
            "anyway, set `error_if_nonfinite=False`"
        )
    return total


def clip_grads_with_norm_(parameters: TensorOrTensors, max_norm: float, total_norm: Tensor,
                          foreach: bool | None = None) -> None:
    """Scales the gradients of ``parameters`` by ``max_norm / (total_norm + 1e-6)`` when that is
    below 1 (given the norm from :func:`get_total_norm`)."""
    grads = [p.grad for p in _tensor_list(parameters) if p.grad is not None]
    if not grads:
        return
    with oneflow.no_grad():
        coef = (float(max_norm) / (total_norm + 1e-6)).clamp(max=1.0)
        for g in grads:
            g.mul_(coef.to(g.device).to(g.dtype))


def clip_grad_norm_(parameters: TensorOrTensors, max_norm: float, norm_type: float = 2.0,
                    error_if_nonfinite: bool = False, foreach: bool | None = None) -> Tensor:
    """Rescales the gradients of ``parameters`` in place so that their joint norm is at most
    ``max_norm``.

    Args:
        parameters: a tensor or an iterable of tensors whose ``.grad`` is clipped.
        max_norm (float): the largest norm allowed.
        norm_type (float): the p of the p-norm; ``inf`` for the max norm. Default: 2.
        error_if_nonfinite (bool): raise a RuntimeError when the norm is nan or inf.
        foreach: accepted for compatibility (every path is the same here).

    Returns:
        the total norm of the gradients before clipping (a 0-d tensor).
    """
    parameters = _tensor_list(parameters)
    grads = [p.grad for p in parameters if p.grad is not None]
    total = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total, foreach)
    return total


def clip_grad_norm(parameters: TensorOrTensors, max_norm: float, norm_type: float = 2.0,
                   error_if_nonfinite: bool = False, foreach: bool | None = None) -> Tensor:
    """Deprecated alias of :func:`clip_grad_norm_`."""
    warnings.warn(
        "`oneflow.nn.utils.clip_grad_norm` is now deprecated in favor of `oneflow.nn.utils.clip_grad_norm_`.",
        FutureWarning,
        stacklevel=2,
    )
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def clip_grad_value_(parameters: TensorOrTensors, clip_value: float, foreach: bool | None = None) -> None:
    """Clamps every gradient element of ``parameters`` to ``[-clip_value, clip_value]``, in place."""
    clip_value = float(clip_value)
    with oneflow.no_grad():
        for p in _tensor_list(parameters):
            if p.grad is not None:
                p.grad.clamp_(min=-clip_value, max=clip_value)
