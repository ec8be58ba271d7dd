"""``pdist``: the distances between every pair of rows of a matrix."""

from __future__ import annotations

import numpy as np

import oneflow

__all__ = ["pdist"]


def pdist(input, p: float = 2.0):
    r"""The ``p``-norm distance between every pair of rows of ``input`` (:math:`N \times M`): the
    upper triangle of the distance matrix, row by row, :math:`N (N - 1) / 2` values.

    Examples::

        >>> oneflow.nn.functional.pdist(oneflow.tensor([[0.0, 0.0], [3.0, 4.0], [6.0, 8.0]]))
        tensor([ 5., 10.,  5.], dtype=oneflow.float32)
    """
    if not isinstance(input, oneflow.Tensor):
        raise TypeError(f"pdist(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    if input.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.dim()}D")
    if not input.is_floating_point():
        raise RuntimeError("pdist only supports floating-point dtypes")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    rows, cols = np.triu_indices(input.shape[0], k=1)
    first = oneflow.tensor(rows, dtype=oneflow.int64, device=input.device)
    second = oneflow.tensor(cols, dtype=oneflow.int64, device=input.device)
    diff = input.index_select(0, first) - input.index_select(0, second)
    return oneflow.linalg.vector_norm(diff, p, dim=1)
