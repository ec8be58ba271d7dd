"""Helpers shared by the distributions: broadcasting parameters, probs <-> logits, lazy_property."""

from __future__ import annotations

import numbers
from functools import update_wrapper

import oneflow

__all__ = [
    "broadcast_all",
    "clamp_probs",
    "lazy_property",
    "logits_to_probs",
    "probs_to_logits",
    "tril_matrix_to_vec",
    "vec_to_tril_matrix",
]


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
    tensors = [
        v if isinstance(v, oneflow.Tensor) else oneflow.tensor(v, dtype=like.dtype, device=like.device) for v in values
    ]
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


def _tril_selector(n: int, diag: int, dtype, device=None):
    """A (count, n * n) 0/1 matrix picking the entries on or below diagonal ``diag``, row by row."""
    rows = [i * n + j for i in range(n) for j in range(n) if j < i + diag + 1]
    select = oneflow.zeros((len(rows), n * n), dtype=dtype, device=device)
    for k, flat in enumerate(rows):
        select[k, flat] = 1
    return select


def tril_matrix_to_vec(mat, diag: int = 0):
    """The entries of (a batch of) ``n x n`` matrices on or below diagonal ``diag``, row by row."""
    n = mat.shape[-1]
    if diag < -n or diag >= n:
        raise ValueError(f"diag ({diag}) provided is outside [{-n}, {n - 1}].")
    flat = mat.reshape(tuple(mat.shape[:-2]) + (n * n,))
    return flat @ _tril_selector(n, diag, mat.dtype, mat.device).transpose(0, 1)


def vec_to_tril_matrix(vec, diag: int = 0):
    """The inverse of :func:`tril_matrix_to_vec`: (a batch of) lower-triangular ``n x n`` matrices
    whose entries on or below diagonal ``diag`` come from ``vec`` row by row.

    Raises:
        ValueError: when ``vec``'s length fits no square matrix.
    """
    m = vec.shape[-1]
    n = (-(1 + 2 * diag) + ((1 + 2 * diag) ** 2 + 8 * m + 4 * abs(diag) * (diag + 1)) ** 0.5) / 2
    if abs(round(n) - n) > 1e-6:
        raise ValueError(
            f"The size of last dimension is {m} which cannot be expressed as the lower triangular part of a"
            " square D x D matrix."
        )
    n = round(n)
    flat = vec @ _tril_selector(n, diag, vec.dtype, vec.device)
    return flat.reshape(tuple(vec.shape[:-1]) + (n, n))
