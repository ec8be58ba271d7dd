"""``Embedding`` and ``EmbeddingBag``: lookup tables from integer indices to learnable vectors.

The table is ``weight`` of shape ``(num_embeddings, embedding_dim)``, initialised from
:math:`\\mathcal{N}(0, 1)` with the ``padding_idx`` row zeroed, as in PyTorch. The lookups
are ``F.embedding`` and ``F.embedding_bag`` (dense gradients only).
"""

from __future__ import annotations

import oneflow
from oneflow.nn import functional as F
from oneflow.nn import init
from oneflow.nn.modules.module import Module
from oneflow.nn.parameter import Parameter

__all__ = ["Embedding", "EmbeddingBag"]


class Embedding(Module):
    r"""A table of ``num_embeddings`` vectors of size ``embedding_dim``, looked up by index.

    Args:
        num_embeddings: size of the table.
        embedding_dim: size of each vector.
        padding_idx: this row gets no gradient (and starts as zeros); negative values count
            from the end.
        max_norm: looked-up rows with a larger ``norm_type``-norm are renormalized to it, in place.
        norm_type: the p of the p-norm for ``max_norm``. Default: 2.
        scale_grad_by_freq: scale gradients by the inverse frequency of the indices in the batch.
        sparse: sparse gradients (not supported; must be ``False``).

    Shape: input :math:`(*)` integer indices, output :math:`(*, \text{embedding\_dim})`.

    Attributes:
        weight: the learnable table, drawn from :math:`\mathcal{N}(0, 1)`.
    """

    def __init__(self, num_embeddings: int, embedding_dim: int, padding_idx: int | None = None,
                 max_norm: float | None = None, norm_type: float = 2.0, scale_grad_by_freq: bool = False,
                 sparse: bool = False, _weight: oneflow.Tensor | None = None, _freeze: bool = False, device=None,
                 dtype=None) -> None:
        super().__init__()
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        if padding_idx is not None:
            if padding_idx > 0:
                assert padding_idx < self.num_embeddings, "Padding_idx must be within num_embeddings"
            elif padding_idx < 0:
                assert padding_idx >= -self.num_embeddings, "Padding_idx must be within num_embeddings"
                padding_idx = self.num_embeddings + padding_idx
        self.padding_idx = padding_idx
        self.max_norm = max_norm
        self.norm_type = norm_type
        self.scale_grad_by_freq = scale_grad_by_freq
        if _weight is None:
            self.weight = Parameter(oneflow.empty((num_embeddings, embedding_dim), device=device, dtype=dtype),
                                    requires_grad=not _freeze)
            self.reset_parameters()
        else:
            assert list(_weight.shape) == [num_embeddings, embedding_dim], \
                "Shape of weight does not match num_embeddings and embedding_dim"
            self.weight = Parameter(_weight, requires_grad=not _freeze)
        self.sparse = sparse

    def reset_parameters(self) -> None:
        """Redraws the table from :math:`\\mathcal{N}(0, 1)` and zeroes the padding row."""
        init.normal_(self.weight)
        self._fill_padding_idx_with_zero()

    def _fill_padding_idx_with_zero(self) -> None:
        if self.padding_idx is not None:
            with oneflow.no_grad():
                self.weight[self.padding_idx].fill_(0)

    def forward(self, input: oneflow.Tensor) -> oneflow.Tensor:
        return F.embedding(input, self.weight, self.padding_idx, self.max_norm, self.norm_type,
                           self.scale_grad_by_freq, self.sparse)

    def extra_repr(self) -> str:
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        if self.max_norm is not None:
            s += f", max_norm={self.max_norm}"
        if self.norm_type != 2:
            s += f", norm_type={self.norm_type}"
        if self.scale_grad_by_freq is not False:
            s += f", scale_grad_by_freq={self.scale_grad_by_freq}"
        if self.sparse is not False:
            s += ", sparse=True"
        return s

    @classmethod
    def from_pretrained(cls, embeddings: oneflow.Tensor, freeze: bool = True, padding_idx: int | None = None,
                        max_norm: float | None = None, norm_type: float = 2.0, scale_grad_by_freq: bool = False,
                        sparse: bool = False) -> Embedding:
        r"""An Embedding whose table is ``embeddings`` (2-D, shared, not copied).

        Args:
            embeddings: the ``(num_embeddings, embedding_dim)`` table.
            freeze: keep the table fixed (``weight.requires_grad = False``). Default: ``True``.
            padding_idx, max_norm, norm_type, scale_grad_by_freq, sparse: as in :class:`Embedding`.
        """
        assert embeddings.dim() == 2, "Embeddings parameter is expected to be 2-dimensional"
        rows, cols = embeddings.shape
        return cls(num_embeddings=rows, embedding_dim=cols, _weight=embeddings, _freeze=freeze,
                   padding_idx=padding_idx, max_norm=max_norm, norm_type=norm_type,
                   scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)


class EmbeddingBag(Module):
    r"""Sums, means or maxima of bags of rows of a table, without keeping the looked-up rows.

    Args:
        num_embeddings: size of the table.
        embedding_dim: size of each vector.
        max_norm: looked-up rows with a larger ``norm_type``-norm are renormalized to it, in place.
        norm_type: the p of the p-norm for ``max_norm``. Default: 2.
        scale_grad_by_freq: scale gradients by the inverse frequency of the indices (not with ``'max'``).
        mode: ``'sum'``, ``'mean'`` or ``'max'``. Default: ``'mean'``.
        sparse: sparse gradients (not supported; must be ``False``).
        include_last_offset: ``offsets`` holds one more entry, the end of the last bag.
        padding_idx: rows at this index are left out of the bags (and start as zeros); negative
            values count from the end.

    ``forward(input, offsets=None, per_sample_weights=None)``: a 1-D ``input`` with the start of
    each bag in ``offsets``, or a 2-D :math:`(B, N)` ``input`` (``B`` bags of ``N``);
    ``per_sample_weights`` (``'sum'`` only) scale the rows. Output :math:`(B, \text{embedding\_dim})`.

    Attributes:
        weight: the learnable table, drawn from :math:`\mathcal{N}(0, 1)`.
    """

    def __init__(self, num_embeddings: int, embedding_dim: int, max_norm: float | None = None,
                 norm_type: float = 2.0, scale_grad_by_freq: bool = False, mode: str = "mean", sparse: bool = False,
                 _weight: oneflow.Tensor | None = None, include_last_offset: bool = False,
                 padding_idx: int | None = None, device=None, dtype=None) -> None:
        super().__init__()
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        self.max_norm = max_norm
        self.norm_type = norm_type
        self.scale_grad_by_freq = scale_grad_by_freq
        if padding_idx is not None:
            if padding_idx > 0:
                assert padding_idx < self.num_embeddings, "padding_idx must be within num_embeddings"
            elif padding_idx < 0:
                assert padding_idx >= -self.num_embeddings, "padding_idx must be within num_embeddings"
                padding_idx = self.num_embeddings + padding_idx
        self.padding_idx = padding_idx
        if _weight is None:
            self.weight = Parameter(oneflow.empty((num_embeddings, embedding_dim), device=device, dtype=dtype))
            self.reset_parameters()
        else:
            assert list(_weight.shape) == [num_embeddings, embedding_dim], \
                "Shape of weight does not match num_embeddings and embedding_dim"
            self.weight = Parameter(_weight)
        self.mode = mode
        self.sparse = sparse
        self.include_last_offset = include_last_offset

    def reset_parameters(self) -> None:
        """Redraws the table from :math:`\\mathcal{N}(0, 1)` and zeroes the padding row."""
        init.normal_(self.weight)
        if self.padding_idx is not None:
            with oneflow.no_grad():
                self.weight[self.padding_idx].fill_(0)

    def forward(self, input: oneflow.Tensor, offsets: oneflow.Tensor | None = None,
                per_sample_weights: oneflow.Tensor | None = None) -> oneflow.Tensor:
        return F.embedding_bag(input, self.weight, offsets, self.max_norm, self.norm_type, self.scale_grad_by_freq,
                               self.mode, self.sparse, per_sample_weights, self.include_last_offset,
                               self.padding_idx)

    def extra_repr(self) -> str:
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.max_norm is not None:
            s += f", max_norm={self.max_norm}"
        if self.norm_type != 2:
            s += f", norm_type={self.norm_type}"
        if self.scale_grad_by_freq is not False:
            s += f", scale_grad_by_freq={self.scale_grad_by_freq}"
        s += f", mode={self.mode!r}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        return s

    @classmethod
    def from_pretrained(cls, embeddings: oneflow.Tensor, freeze: bool = True, max_norm: float | None = None,
                        norm_type: float = 2.0, scale_grad_by_freq: bool = False, mode: str = "mean",
                        sparse: bool = False, include_last_offset: bool = False,
                        padding_idx: int | None = None) -> EmbeddingBag:
        r"""An EmbeddingBag whose table is ``embeddings`` (2-D, shared, not copied).

        Args:
            embeddings: the ``(num_embeddings, embedding_dim)`` table.
            freeze: keep the table fixed (``weight.requires_grad = False``). Default: ``True``.
            max_norm, norm_type, scale_grad_by_freq, mode, sparse, include_last_offset, padding_idx: as in
                :class:`EmbeddingBag`.
        """
        assert embeddings.dim() == 2, "Embeddings parameter is expected to be 2-dimensional"
        rows, cols = embeddings.shape
        bag = cls(num_embeddings=rows, embedding_dim=cols, _weight=embeddings, max_norm=max_norm,
                  norm_type=norm_type, scale_grad_by_freq=scale_grad_by_freq, mode=mode, sparse=sparse,
                  include_last_offset=include_last_offset, padding_idx=padding_idx)
        bag.weight.requires_grad = not freeze
        return bag
