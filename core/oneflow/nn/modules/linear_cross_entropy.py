"""``LinearCrossEntropyLoss`` (a linear head fused with cross entropy) and
``LinearCrossEntropyOptions``, with PyTorch's interface."""

from __future__ import annotations

import dataclasses
import math

import oneflow
import oneflow.nn.functional as F
from oneflow import Tensor
from oneflow.nn.modules.linear import Linear
from oneflow.nn.modules.loss import _WeightedLoss

__all__ = ["LinearCrossEntropyLoss", "LinearCrossEntropyOptions"]

_ACC_POLICIES = ("auto", "accurate", "balanced", "compact")


@dataclasses.dataclass(frozen=True)
class LinearCrossEntropyOptions:
    r"""Options of the chunked evaluation of :func:`oneflow.nn.functional.linear_cross_entropy`,
    validated as in PyTorch. Chunking is a memory optimization only: oneflow computes the same
    loss and gradients in one piece whatever the options say.

    Args:
        allow_retain_graph: allow ``retain_graph=True`` on backward. Default: ``False``.
        batch_chunk_size: rows per chunk, a positive int or ``None`` (one chunk).
        chunking_method: ``"auto"``, ``"aspect_ratio"``, ``"aspect_ratio:N"`` or ``None``.
        acc_policy: ``"auto"``, ``"accurate"``, ``"balanced"`` or ``"compact"``.
        acc_dtype: accumulation dtype, a floating dtype or ``None``.
    """

    allow_retain_graph: bool = False
    batch_chunk_size: int | None = None
    chunking_method: str | None = "auto"
    acc_policy: str = "auto"
    acc_dtype: oneflow.dtype | None = None

    def __post_init__(self) -> None:
        if self.acc_policy not in _ACC_POLICIES:
            raise ValueError(f"invalid acc_policy: {self.acc_policy!r}")
        if self.chunking_method is not None and self.chunking_method != "auto":
            name, sep, factor = str(self.chunking_method).partition(":")
            factor = factor if sep else "1"
            if not (name == "aspect_ratio" and factor.isdigit() and int(factor) > 0):
                raise ValueError(f"invalid chunking_method: {self.chunking_method!r}")
        if not (
            self.batch_chunk_size is None
            or (
                isinstance(self.batch_chunk_size, int)
                and not isinstance(self.batch_chunk_size, bool)
                and self.batch_chunk_size > 0
            )
        ):
            raise ValueError(f"batch_chunk_size must be positive int or None, got {self.batch_chunk_size!r}")
        supported = (oneflow.float16, oneflow.bfloat16, oneflow.float32, oneflow.float64)
        if self.acc_dtype is not None and self.acc_dtype not in supported:
            raise ValueError(
                "acc_dtype must be one of {None, oneflow.float16, oneflow.bfloat16, oneflow.float32, "
                f"oneflow.float64}}, got {self.acc_dtype!r}. Pass acc_dtype=None to let the op pick automatically."
            )


class LinearCrossEntropyLoss(_WeightedLoss):
    r"""Cross entropy of the logits of an internal linear layer: ``forward(input, target)`` is
    ``cross_entropy(linear(input), target)``, via
    :func:`oneflow.nn.functional.linear_cross_entropy`.

    Args:
        in_features: the size of each input sample.
        num_classes: the number of classes :math:`C`.
        out_features: extra dims :math:`(d_1, ..., d_K)` for a K-dimensional loss. Default: ``()``.
        bias: give the linear layer a bias. Default: ``False``.
        weight: ``(C,)`` class weights. Default: ``None``.
        reduction: ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.
        ignore_index: a class index that does not count; ``None`` means -100 for indices.
        label_smoothing: in [0, 1]. Default: 0.
        options: a :class:`LinearCrossEntropyOptions` or ``None``.

    The linear layer is ``self.linear`` with ``C * prod(out_features)`` outputs (flat storage).
    """

    def __init__(
        self,
        in_features: int,
        num_classes: int,
        *,
        out_features: tuple[int, ...] = (),
        bias: bool = False,
        device=None,
        dtype=None,
        reduction: str = "mean",
        weight: Tensor | None = None,
        ignore_index: int | None = None,
        label_smoothing: float = 0.0,
        options: LinearCrossEntropyOptions | None = None,
    ) -> None:
        if weight is not None and tuple(weight.shape) != (num_classes,):
            raise RuntimeError(f"expected weight shape to be {(num_classes,)}, got {tuple(weight.shape)}")
        if label_smoothing < 0 or label_smoothing > 1.0:
            raise RuntimeError(f"expected label_smoothing to be in range [0, 1], got {label_smoothing}")
        super().__init__(weight=weight, size_average=None, reduce=None, reduction=reduction)
        self.num_classes = num_classes
        self.out_features = tuple(out_features)
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing
        self.linear = Linear(in_features, math.prod(out_features) * num_classes, bias=bias, device=device, dtype=dtype)
        self.options = options

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        weight = self.linear.weight.reshape(self.num_classes, *self.out_features, self.linear.in_features)
        bias = None if self.linear.bias is None else self.linear.bias.reshape(self.num_classes, *self.out_features)
        return F.linear_cross_entropy(
            input,
            weight,
            target,
            linear_bias=bias,
            weight=self.weight,
            reduction=self.reduction,
            ignore_index=self.ignore_index,
            label_smoothing=self.label_smoothing,
            options=self.options,
        )
