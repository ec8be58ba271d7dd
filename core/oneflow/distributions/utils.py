"""Helpers shared by the distributions: broadcasting parameters, probs <-> logits, lazy_property."""

from __future__ import annotations

import numbers
from functools import update_wrapper

import oneflow

__all__ = ["broadcast_all", "clamp_probs", "lazy_property", "logits_to_probs", "probs_to_logits"]


def broadcast_all(*values):
    """Broadcasts tensors and numbers to one shape; numbers become tensors of the tensors' dtype
    (the default dtype when there is none).

    Raises:
        ValueError: if a value is neither a Tensor nor a number.
    """
    if not all(isinstance(v, (oneflow.Tensor, numbers.Number)) for v in values):
        raise ValueError("Input arguments must all be instances of numbers.Number or oneflow.Tensor.")
    if all(isinstance(v, numbers.Number) for v in values):
        dtype = oneflow.get_default_dtype()
        return tuple(oneflow.tensor(v, dtype=dtype) for v in values)
    like = next(v for v in values if isinstance(v, oneflow.Tensor))
    tensors = [v if isinstance(v, oneflow.Tensor) else oneflow.tensor(v, dtype=like.dtype) for v in values]
    shape = oneflow.broadcast_shapes(*[t.shape for t in tensors])
    return tuple(t.expand(shape) for t in tensors)


def _sum_rightmost(value, dim: int):
    """Sums the ``dim`` rightmost dimensions."""
    if dim == 0:
        return value
    return value.reshape(tuple(value.shape[: value.dim() - dim]) + (-1,)).sum(-1)


def clamp_probs(probs):
    """Clamps probabilities into the open interval (0, 1) (by the dtype's eps)."""
    eps = oneflow.finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def logits_to_probs(logits, is_binary: bool = False):
    """Probabilities from logits: a sigmoid when ``is_binary``, else a softmax over the last
    dimension."""
    if is_binary:
        return oneflow.sigmoid(logits)
    return oneflow.softmax(logits, dim=-1)


def probs_to_logits(probs, is_binary: bool = False):
    """Logits from probabilities (clamped away from 0 and 1): ``log(p) - log1p(-p)`` when
    ``is_binary``, else ``log(p)``."""
    ps_clamped = clamp_probs(probs)
    if is_binary:
        return oneflow.log(ps_clamped) - oneflow.log1p(-ps_clamped)
    return oneflow.log(ps_clamped)


class lazy_property:
    """A property computed on first access, with grad enabled, and then stored on the instance
    (it replaces itself), as for ``probs``/``logits`` which are derived from each other."""

    def __init__(self, wrapped):
        self.wrapped = wrapped
        update_wrapper(self, wrapped)

    def __get__(self, instance, obj_type=None):
        if instance is None:
            return self
        with oneflow.enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value
