"""Dropout layers: ``Dropout`` zeroes single elements, ``Dropout1d/2d/3d`` whole channels.

In training, kept elements are scaled by ``1 / (1 - p)`` so that expectations are
unchanged; in eval mode the layers return their input. Random draws come from the
default generator (``oneflow.manual_seed``).
"""

from __future__ import annotations

import oneflow
from oneflow.nn import functional as F
from oneflow.nn.modules.module import Module

__all__ = ["AlphaDropout", "Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "FeatureAlphaDropout"]


class _DropoutNd(Module):
    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class Dropout(_DropoutNd):
    r"""Zeroes each element with probability ``p`` in training (and scales the rest by
    :math:`1 / (1 - p)`); the identity in eval mode.

    Args:
        p: probability of an element being zeroed. Default: 0.5.
        inplace: do the operation in place. Default: ``False``.
    """

    def forward(self, input: oneflow.Tensor) -> oneflow.Tensor:
        return F.dropout(input, self.p, self.training, self.inplace)


class Dropout1d(_DropoutNd):
    r"""Zeroes whole channels of :math:`(N, C, L)` or :math:`(C, L)` with probability ``p`` in training.

    Args:
        p: probability of a channel being zeroed. Default: 0.5.
        inplace: do the operation in place. Default: ``False``.
    """

    def forward(self, input: oneflow.Tensor) -> oneflow.Tensor:
        return F.dropout1d(input, self.p, self.training, self.inplace)


class Dropout2d(_DropoutNd):
    r"""Zeroes whole channels of :math:`(N, C, H, W)` or :math:`(C, H, W)` with probability ``p``
    in training (arguments as :class:`Dropout1d`)."""

    def forward(self, input: oneflow.Tensor) -> oneflow.Tensor:
        return F.dropout2d(input, self.p, self.training, self.inplace)


class Dropout3d(_DropoutNd):
    r"""Zeroes whole channels of :math:`(N, C, D, H, W)` or :math:`(C, D, H, W)` with probability
    ``p`` in training (arguments as :class:`Dropout1d`)."""

    def forward(self, input: oneflow.Tensor) -> oneflow.Tensor:
        return F.dropout3d(input, self.p, self.training, self.inplace)


class AlphaDropout(_DropoutNd):
    r"""Dropout for self-normalizing (SELU) networks: dropped elements take SELU's negative
    saturation value and an affine correction keeps the input's mean and variance.

    Args:
        p: probability of an element being dropped. Default: 0.5.
        inplace: do the operation in place. Default: ``False``.
    """

    def forward(self, input: oneflow.Tensor) -> oneflow.Tensor:
        return F.alpha_dropout(input, self.p, self.training, self.inplace)


class FeatureAlphaDropout(_DropoutNd):
    r""":class:`AlphaDropout` of whole channels of :math:`(N, C, *)`."""

    def forward(self, input: oneflow.Tensor) -> oneflow.Tensor:
        return F.feature_alpha_dropout(input, self.p, self.training, self.inplace)
