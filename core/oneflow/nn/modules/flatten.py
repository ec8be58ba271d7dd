"""``Flatten`` merges a range of dims into one; ``Unflatten`` splits one dim into several."""

from __future__ import annotations

import oneflow
from oneflow.nn.modules.module import Module

__all__ = ["Flatten", "Unflatten"]


class Flatten(Module):
    r"""Flattens the dims ``start_dim`` to ``end_dim`` into one (a view where possible).

    Args:
        start_dim: first dim to flatten. Default: 1 (keeps the batch dim).
        end_dim: last dim to flatten. Default: -1.
    """

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input: oneflow.Tensor) -> oneflow.Tensor:
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    r"""Splits dim ``dim`` into the shape ``unflattened_size`` (one entry may be -1).

    Args:
        dim: the dim to split.
        unflattened_size: the sizes that dim becomes; their product must equal its size.
    """

    def __init__(self, dim: int, unflattened_size) -> None:
        super().__init__()
        self._require_tuple_int(unflattened_size)
        self.dim = dim
        self.unflattened_size = unflattened_size

    @staticmethod
    def _require_tuple_int(value) -> None:
        if isinstance(value, (tuple, list)):
            for idx, elem in enumerate(value):
                if not isinstance(elem, int):
                    raise TypeError(f"unflattened_size must be tuple of ints, but found element of type "
                                    f"{type(elem).__name__} at pos {idx}")
            return
        raise TypeError(f"unflattened_size must be a tuple of ints, but found type {type(value).__name__}")

    def forward(self, input: oneflow.Tensor) -> oneflow.Tensor:
        dim = self.dim
        if not isinstance(dim, int):
            raise TypeError(f"unflatten(): dim must be an int, not {type(dim).__name__}")
        shape = list(input.shape)
        ndim = len(shape)
        if not -max(ndim, 1) <= dim < max(ndim, 1):
            raise IndexError(
                f"Dimension out of range (expected to be in range of [{-max(ndim, 1)}, {max(ndim, 1) - 1}], "
                f"but got {dim})")
        if ndim == 0:
            raise RuntimeError(f"unflatten: dim {dim} given, but the input is a 0-d tensor (it has no dims to split)")
        dim %= ndim
        sizes = list(self.unflattened_size)
        if len(sizes) == 0:
            raise RuntimeError("unflatten: sizes must be non-empty")
        if sizes.count(-1) > 1:
            raise RuntimeError("unflatten: only one dimension can be inferred")
        known = 1
        for s in sizes:
            if s != -1:
                known *= s
        if -1 in sizes:
            if known == 0 or shape[dim] % known != 0:
                raise RuntimeError(
                    f"unflatten: Provided sizes {sizes} don't multiply up to the size of dim {self.dim} "
                    f"({shape[dim]}) in the input tensor")
            sizes[sizes.index(-1)] = shape[dim] // known
        elif known != shape[dim]:
            raise RuntimeError(
                f"unflatten: Provided sizes {sizes} don't multiply up to the size of dim {self.dim} "
                f"({shape[dim]}) in the input tensor")
        return input.reshape(shape[:dim] + sizes + shape[dim + 1:])

    def extra_repr(self) -> str:
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"
