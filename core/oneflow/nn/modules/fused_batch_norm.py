"""OneFlow's ``FusedBatchNorm1d/2d/3d``: batch normalization, an optional residual added, then ReLU,
``out = ReLU(BatchNorm(x) + addend)`` (one kernel on OneFlow's GPUs; here the composition of the
same ops, on every device)."""

from __future__ import annotations

import oneflow
from oneflow.nn import functional as F
from oneflow.nn.modules.normalization import _BatchNorm

__all__ = ["FusedBatchNorm1d", "FusedBatchNorm2d", "FusedBatchNorm3d"]


class _FusedBatchNorm(_BatchNorm):
    def forward(self, x: oneflow.Tensor, addend: oneflow.Tensor | None = None) -> oneflow.Tensor:
        name = type(self).__name__
        if not isinstance(x, oneflow.Tensor):
            raise TypeError(f"{name}: x must be a Tensor, got {type(x).__name__}")
        if addend is not None:
            if not isinstance(addend, oneflow.Tensor):
                raise TypeError(f"{name}: addend must be a Tensor or None, got {type(addend).__name__}")
            if tuple(addend.shape) != tuple(x.shape):
                raise ValueError(f"{name}: addend must have the input's shape {tuple(x.shape)}, "
                                 f"got {tuple(addend.shape)}")
            if addend.dtype != x.dtype:
                raise TypeError(f"{name}: addend must have the input's dtype {x.dtype}, got {addend.dtype}")
        y = super().forward(x)
        if addend is not None:
            y = y + addend
        return F.relu(y)


class FusedBatchNorm1d(_FusedBatchNorm):
    r"""``ReLU(BatchNorm1d(x) + addend)`` over a 2-D :math:`(N, C)` or 3-D :math:`(N, C, L)` input.

    .. math:: out = \mathrm{ReLU}\left(\frac{x - \mathrm{E}[x]}{\sqrt{\mathrm{Var}[x] + \epsilon}}
              * \gamma + \beta + addend\right)

    The constructor's arguments, parameters and running statistics are
    :class:`~oneflow.nn.BatchNorm1d`'s; ``forward(x, addend=None)`` takes an optional tensor of
    ``x``'s shape and dtype, added before the ReLU.
    """

    def _check_input_dim(self, input) -> None:
        if input.dim() != 2 and input.dim() != 3:
            raise ValueError(f"FusedBatchNorm1d: expected 2D or 3D input (got {input.dim()}D input)")


class FusedBatchNorm2d(_FusedBatchNorm):
    r"""``ReLU(BatchNorm2d(x) + addend)`` over a 4-D :math:`(N, C, H, W)` input (arguments as
    :class:`FusedBatchNorm1d`).

    Example::

        >>> m = flow.nn.FusedBatchNorm2d(2)
        >>> x, res = flow.randn(4, 2, 8, 3), flow.randn(4, 2, 8, 3)
        >>> y = m(x, addend=res)  # relu(bn(x) + res)
    """

    def _check_input_dim(self, input) -> None:
        if input.dim() != 4:
            raise ValueError(f"FusedBatchNorm2d: expected 4D input (got {input.dim()}D input)")


class FusedBatchNorm3d(_FusedBatchNorm):
    r"""``ReLU(BatchNorm3d(x) + addend)`` over a 5-D :math:`(N, C, D, H, W)` input (arguments as
    :class:`FusedBatchNorm1d`)."""

    def _check_input_dim(self, input) -> None:
        if input.dim() != 5:
            raise ValueError(f"FusedBatchNorm3d: expected 5D input (got {input.dim()}D input)")
