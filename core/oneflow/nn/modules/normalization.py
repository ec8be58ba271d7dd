"""Normalization layers: batch, instance, layer, group and RMS normalization, and local
response normalization.

``BatchNorm*d`` and ``InstanceNorm*d`` keep PyTorch's running-statistics buffers
(``running_mean``, ``running_var``, ``num_batches_tracked``); with ``momentum=None`` the
running statistics are a cumulative average over the batches seen.
"""

from __future__ import annotations

import numbers
import warnings

import oneflow
from oneflow.nn import functional as F
from oneflow.nn import init
from oneflow.nn.modules.module import Module
from oneflow.nn.parameter import Parameter

__all__ = [
    "BatchNorm1d",
    "BatchNorm2d",
    "BatchNorm3d",
    "GroupNorm",
    "InstanceNorm1d",
    "InstanceNorm2d",
    "InstanceNorm3d",
    "LayerNorm",
    "LocalResponseNorm",
    "RMSNorm",
]


class _NormBase(Module):
    """Affine parameters and running-statistics buffers shared by batch and instance norm."""

    # Version 2 added num_batches_tracked; state dicts without a version may lack it.
    _version = 2

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1, affine: bool = True,
                 track_running_stats: bool = True, device=None, dtype=None, *, bias: bool = True) -> None:
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = Parameter(oneflow.empty(num_features, device=device, dtype=dtype))
            if bias:
                self.bias = Parameter(oneflow.empty(num_features, device=device, dtype=dtype))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", oneflow.zeros(num_features, device=device, dtype=dtype))
            self.register_buffer("running_var", oneflow.ones(num_features, device=device, dtype=dtype))
            self.register_buffer("num_batches_tracked", oneflow.tensor(0, dtype=oneflow.long, device=device))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self) -> None:
        """Resets the running mean to 0, the running variance to 1 and the batch count to 0."""
        if self.track_running_stats:
            with oneflow.no_grad():
                self.running_mean.zero_()
                self.running_var.fill_(1)
                self.num_batches_tracked.zero_()

    def reset_parameters(self) -> None:
        """Resets the running statistics, the weight to 1 and the bias to 0."""
        self.reset_running_stats()
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def _check_input_dim(self, input) -> None:
        raise NotImplementedError

    def _load_from_state_dict(self, state_dict: dict, prefix: str, local_metadata: dict, strict: bool,
                              missing_keys: list, unexpected_keys: list, error_msgs: list) -> None:
        version = local_metadata.get("version", None)
        key = prefix + "num_batches_tracked"
        if (version is None or version < 2) and self.track_running_stats and key not in state_dict:
            # An old checkpoint (or a plain dict) without the batch count: keep the current one.
            state_dict[key] = self.num_batches_tracked.clone()
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                      error_msgs)

    def extra_repr(self) -> str:
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
                f"bias={self.bias is not None}, track_running_stats={self.track_running_stats}")


class _BatchNorm(_NormBase):
    def forward(self, input: oneflow.Tensor) -> oneflow.Tensor:
        self._check_input_dim(input)
        exponential_average_factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            with oneflow.no_grad():
                self.num_batches_tracked.add_(1)
            if self.momentum is None:
                # Cumulative moving average: batch k gets weight 1 / k.
                exponential_average_factor = 1.0 / float(self.num_batches_tracked)
            else:
                exponential_average_factor = self.momentum
        # Batch statistics in training, and in eval when there are no running statistics.
        use_batch_stats = self.training or (self.running_mean is None and self.running_var is None)
        # Buffers are updated only when they are tracked and the module trains.
        update = not self.training or self.track_running_stats
        return F.batch_norm(input, self.running_mean if update else None, self.running_var if update else None,
                            self.weight, self.bias, use_batch_stats, exponential_average_factor, self.eps)


class BatchNorm1d(_BatchNorm):
    r"""Batch normalization over a 2-D :math:`(N, C)` or 3-D :math:`(N, C, L)` input.

    .. math:: y = \frac{x - \mathrm{E}[x]}{\sqrt{\mathrm{Var}[x] + \epsilon}} * \gamma + \beta

    per channel, with statistics over the batch (and length) in training and the running
    estimates in eval mode.

    Args:
        num_features: the number of channels :math:`C`.
        eps: added to the variance for numerical stability. Default: 1e-5.
        momentum: weight of the new batch in the running statistics; ``None`` for a
            cumulative average. Default: 0.1.
        affine: learn :math:`\gamma` (``weight``) and :math:`\beta` (``bias``). Default: ``True``.
        track_running_stats: keep ``running_mean``/``running_var`` buffers; without them the
            batch statistics are used in eval mode too. Default: ``True``.
        bias (keyword-only): with ``affine``, whether to learn :math:`\beta` too. Default: ``True``.
    """

    def _check_input_dim(self, input) -> None:
        if input.dim() != 2 and input.dim() != 3:
            raise ValueError(f"expected 2D or 3D input (got {input.dim()}D input)")


class BatchNorm2d(_BatchNorm):
    r"""Batch normalization over a 4-D :math:`(N, C, H, W)` input (arguments as :class:`BatchNorm1d`)."""

    def _check_input_dim(self, input) -> None:
        if input.dim() != 4:
            raise ValueError(f"expected 4D input (got {input.dim()}D input)")


class BatchNorm3d(_BatchNorm):
    r"""Batch normalization over a 5-D :math:`(N, C, D, H, W)` input (arguments as :class:`BatchNorm1d`)."""

    def _check_input_dim(self, input) -> None:
        if input.dim() != 5:
            raise ValueError(f"expected 5D input (got {input.dim()}D input)")


class _InstanceNorm(_NormBase):
    _no_batch_dim = 2
    _dims = (2, 3)

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1, affine: bool = False,
                 track_running_stats: bool = False, device=None, dtype=None, *, bias: bool = True) -> None:
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias)

    def _check_input_dim(self, input) -> None:
        if input.dim() not in self._dims:
            raise ValueError(f"expected {self._dims[0]}D or {self._dims[1]}D input (got {input.dim()}D input)")

    def _apply_instance_norm(self, input):
        return F.instance_norm(input, self.running_mean, self.running_var, self.weight, self.bias,
                               self.training or not self.track_running_stats,
                               self.momentum if self.momentum is not None else 0.0, self.eps)

    def forward(self, input: oneflow.Tensor) -> oneflow.Tensor:
        self._check_input_dim(input)
        feature_dim = input.dim() - self._no_batch_dim
        if input.size(feature_dim) != self.num_features:
            if self.affine:
                raise ValueError(
                    f"expected input's size at dim={feature_dim} to match num_features ({self.num_features}), "
                    f"but got: {input.size(feature_dim)}.")
            warnings.warn(
                f"input's size at dim={feature_dim} does not match num_features. You can silence this warning by "
                "not passing in num_features, which is not used because affine=False", stacklevel=2)
        if input.dim() == self._no_batch_dim:
            return self._apply_instance_norm(input.unsqueeze(0)).squeeze(0)
        return self._apply_instance_norm(input)


class InstanceNorm1d(_InstanceNorm):
    r"""Instance normalization: each (sample, channel) of :math:`(N, C, L)` or :math:`(C, L)` is
    normalized over its length.

    Args:
        num_features: the number of channels :math:`C`.
        eps: added to the variance. Default: 1e-5.
        momentum: weight of the new statistics in the running ones (``None``: 0). Default: 0.1.
        affine: learn a per-channel weight and bias. Default: ``False``.
        track_running_stats: keep running statistics and use them in eval mode. Default: ``False``.
    """

    _no_batch_dim = 2
    _dims = (2, 3)


class InstanceNorm2d(_InstanceNorm):
    r"""Instance normalization over :math:`(N, C, H, W)` or :math:`(C, H, W)` (arguments as
    :class:`InstanceNorm1d`)."""

    _no_batch_dim = 3
    _dims = (3, 4)


class InstanceNorm3d(_InstanceNorm):
    r"""Instance normalization over :math:`(N, C, D, H, W)` or :math:`(C, D, H, W)` (arguments as
    :class:`InstanceNorm1d`)."""

    _no_batch_dim = 4
    _dims = (4, 5)


def _shape_tuple(normalized_shape) -> tuple:
    if isinstance(normalized_shape, numbers.Integral):
        return (normalized_shape,)
    return tuple(normalized_shape)


class LayerNorm(Module):
    r"""Layer normalization: the last ``len(normalized_shape)`` dims of each sample are normalized
    to mean 0 and variance 1, then scaled by ``weight`` and shifted by ``bias``.

    Args:
        normalized_shape: the trailing shape to normalize over (an int for the last dim).
        eps: added to the variance. Default: 1e-5.
        elementwise_affine: learn ``weight`` (ones) and ``bias`` (zeros) of ``normalized_shape``.
            Default: ``True``.
        bias: with ``elementwise_affine``, whether to learn the bias too. Default: ``True``.
    """

    def __init__(self, normalized_shape, eps: float = 1e-5, elementwise_affine: bool = True, bias: bool = True,
                 device=None, dtype=None) -> None:
        super().__init__()
        self.normalized_shape = _shape_tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(oneflow.empty(self.normalized_shape, device=device, dtype=dtype))
            if bias:
                self.bias = Parameter(oneflow.empty(self.normalized_shape, device=device, dtype=dtype))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Sets the weight to 1 and the bias to 0."""
        if self.elementwise_affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def forward(self, input: oneflow.Tensor) -> oneflow.Tensor:
        return F.layer_norm(input, list(self.normalized_shape), self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}, "
                f"bias={self.bias is not None}")


class GroupNorm(Module):
    r"""Group normalization: the channels of :math:`(N, C, *)` are split into ``num_groups``
    groups, each normalized over its channels and spatial dims per sample.

    Args:
        num_groups: number of groups (must divide ``num_channels``).
        num_channels: the number of channels :math:`C`.
        eps: added to the variance. Default: 1e-5.
        affine: learn a per-channel ``weight`` (ones) and ``bias`` (zeros). Default: ``True``.
        bias (keyword-only): with ``affine``, whether to learn the bias too. Default: ``True``.
    """

    def __init__(self, num_groups: int, num_channels: int, eps: float = 1e-5, affine: bool = True, device=None,
                 dtype=None, *, bias: bool = True) -> None:
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError("num_channels must be divisible by num_groups")
        self.num_groups = num_groups
        self.num_channels = num_channels
        self.eps = eps
        self.affine = affine
        if affine:
            self.weight = Parameter(oneflow.empty(num_channels, device=device, dtype=dtype))
            if bias:
                self.bias = Parameter(oneflow.empty(num_channels, device=device, dtype=dtype))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Sets the weight to 1 and the bias to 0."""
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def forward(self, input: oneflow.Tensor) -> oneflow.Tensor:
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}, "
                f"bias={self.bias is not None}")


class RMSNorm(Module):
    r"""Root-mean-square normalization: :math:`y = x / \sqrt{\mathrm{mean}(x^2) + \epsilon} * \gamma`
    over the last ``len(normalized_shape)`` dims.

    Args:
        normalized_shape: the trailing shape to normalize over (an int for the last dim).
        eps: added to the mean square; ``None`` for the dtype's machine epsilon. Default: ``None``.
        elementwise_affine: learn ``weight`` (ones) of ``normalized_shape``. Default: ``True``.
    """

    def __init__(self, normalized_shape, eps: float | None = None, elementwise_affine: bool = True, device=None,
                 dtype=None) -> None:
        super().__init__()
        self.normalized_shape = _shape_tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(oneflow.empty(self.normalized_shape, device=device, dtype=dtype))
        else:
            self.register_parameter("weight", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Sets the weight to 1."""
        if self.elementwise_affine:
            init.ones_(self.weight)

    def forward(self, x: oneflow.Tensor) -> oneflow.Tensor:
        return F.rms_norm(x, list(self.normalized_shape), self.weight, self.eps)

    def extra_repr(self) -> str:
        return f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"


class LocalResponseNorm(Module):
    r"""Local response normalization across channels:
    :math:`b_c = a_c \left(k + \frac{\alpha}{n} \sum_{c'} a_{c'}^2\right)^{-\beta}`, the sum over
    the ``size`` channels around :math:`c`.

    Args:
        size: number of neighbouring channels in each sum.
        alpha: multiplicative factor. Default: 1e-4.
        beta: exponent. Default: 0.75.
        k: additive factor. Default: 1.
    """

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0) -> None:
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input: oneflow.Tensor) -> oneflow.Tensor:
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self) -> str:
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"
