"""Function forms of Tensor methods: ``oneflow.reshape(t, shape)`` == ``t.reshape(shape)``."""

from __future__ import annotations

import oneflow


def reshape(input, shape):
    """Returns a tensor with ``input``'s data and the given shape (a view when possible)."""
    return input.reshape(shape)


def transpose(input, dim0: int, dim1: int):
    """A view of ``input`` with ``dim0`` and ``dim1`` swapped."""
    return input.transpose(dim0, dim1)


def permute(input, dims):
    """A view of ``input`` with its dims reordered."""
    return input.permute(dims)


def narrow(input, dim: int, start: int, length: int):
    """A view of ``length`` elements of ``input`` along ``dim``, starting at ``start``."""
    return input.narrow(dim, start, length)


def expand(input, *sizes):
    """A view of ``input`` broadcast to ``sizes`` (-1 keeps a dim)."""
    return input.expand(*sizes)


def squeeze(input, dim=None):
    """A view of ``input`` without its size-1 dims (or only ``dim``, when given)."""
    return input.squeeze(dim)


def unsqueeze(input, dim: int):
    """A view of ``input`` with a size-1 dim inserted at ``dim``."""
    return input.unsqueeze(dim)


def flatten(input, start_dim: int = 0, end_dim: int = -1):
    """``input`` with dims ``start_dim``..``end_dim`` merged into one."""
    return input.flatten(start_dim, end_dim)


def select(input, dim: int, index: int):
    """A view of ``input`` at ``index`` along ``dim``, without that dim."""
    return input.select(dim, index)


def numel(input) -> int:
    """The number of elements of ``input``."""
    if not isinstance(input, oneflow.Tensor):
        raise TypeError(f"numel(): argument 'input' must be Tensor, not {type(input).__name__}")
    return input.numel()
