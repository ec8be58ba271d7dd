"""Distances between pairs of vectors: ``PairwiseDistance`` (p-norm of the difference) and
``CosineSimilarity``."""

from __future__ import annotations

import oneflow
from oneflow.nn import functional as F
from oneflow.nn.modules.module import Module

__all__ = ["CosineSimilarity", "PairwiseDistance"]


class PairwiseDistance(Module):
    r""":math:`\lVert x_1 - x_2 + \epsilon \rVert_p` along the last dim.

    Args:
        p: the norm degree. Default: 2.
        eps: added to the difference to avoid division by zero. Default: 1e-6.
        keepdim: keep the reduced dim (size 1). Default: ``False``.
    """

    def __init__(self, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> None:
        super().__init__()
        self.norm = p
        self.eps = eps
        self.keepdim = keepdim

    def forward(self, x1: oneflow.Tensor, x2: oneflow.Tensor) -> oneflow.Tensor:
        return F.pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)


class CosineSimilarity(Module):
    r""":math:`\frac{x_1 \cdot x_2}{\max(\lVert x_1 \rVert_2 \lVert x_2 \rVert_2, \epsilon)}` along ``dim``.

    Args:
        dim: the dim along which the similarity is computed. Default: 1.
        eps: lower bound of the norm product. Default: 1e-8.
    """

    def __init__(self, dim: int = 1, eps: float = 1e-8) -> None:
        super().__init__()
        self.dim = dim
        self.eps = eps

    def forward(self, x1: oneflow.Tensor, x2: oneflow.Tensor) -> oneflow.Tensor:
        return F.cosine_similarity(x1, x2, self.dim, self.eps)
