"""Folding an eval-mode batch norm into the preceding convolution or linear layer: the fused
layer computes ``bn(layer(x))`` in one affine map (the same API as ``torch.nn.utils.fusion``)."""

from __future__ import annotations

import copy
from typing import TypeVar

import oneflow
from oneflow.nn.modules.module import Module
from oneflow.nn.parameter import Parameter

__all__ = ["fuse_conv_bn_eval", "fuse_conv_bn_weights", "fuse_linear_bn_eval", "fuse_linear_bn_weights"]

ConvT = TypeVar("ConvT", bound=Module)
LinearT = TypeVar("LinearT", bound=Module)


def _check_eval(fn: str, layer: Module, bn: Module) -> None:
    if layer.training or bn.training:
        raise AssertionError(f"{fn}: Fusion only for eval!")
    if bn.running_mean is None or bn.running_var is None:
        raise AssertionError(f"{fn}: the batch norm must track running statistics (track_running_stats=True)")


def fuse_conv_bn_eval(conv: ConvT, bn: Module, transpose: bool = False) -> ConvT:
    r"""A copy of the eval-mode ``conv`` with the eval-mode batch norm ``bn`` folded in.

    Args:
        conv: a convolution module (``Conv*d``, or ``ConvTranspose*d`` with ``transpose``).
        bn: a ``BatchNorm*d`` with running statistics.
        transpose: ``conv`` is a transposed convolution. Default: ``False``.

    Returns:
        the fused convolution (``conv`` itself is left unchanged).
    """
    _check_eval("fuse_conv_bn_eval", conv, bn)
    fused = copy.deepcopy(conv)
    fused.weight, fused.bias = fuse_conv_bn_weights(
        fused.weight, fused.bias, bn.running_mean, bn.running_var, bn.eps, bn.weight, bn.bias, transpose
    )
    return fused


def fuse_conv_bn_weights(
    conv_w: oneflow.Tensor,
    conv_b: oneflow.Tensor | None,
    bn_rm: oneflow.Tensor,
    bn_rv: oneflow.Tensor,
    bn_eps: float,
    bn_w: oneflow.Tensor | None,
    bn_b: oneflow.Tensor | None,
    transpose: bool = False,
) -> tuple[Parameter, Parameter]:
    r"""The weight and bias of a convolution with a batch norm folded in:
    :math:`w' = w \cdot \gamma / \sqrt{\sigma^2 + \epsilon}` (per output channel) and
    :math:`b' = (b - \mu) \gamma / \sqrt{\sigma^2 + \epsilon} + \beta`.

    Args:
        conv_w, conv_b: the convolution's weight and bias (``None``: zero).
        bn_rm, bn_rv: the batch norm's running mean and variance.
        bn_eps: the batch norm's epsilon.
        bn_w, bn_b: the batch norm's affine weight and bias (``None``: 1 and 0).
        transpose: the output channels are dim 1 of the weight (transposed convolution).

    Returns:
        ``(weight, bias)`` as new parameters, in the convolution's dtypes.
    """
    weight_dtype = conv_w.dtype
    bias_dtype = conv_b.dtype if conv_b is not None else weight_dtype
    if conv_b is None:
        conv_b = oneflow.zeros_like(bn_rm)
    if bn_w is None:
        bn_w = oneflow.ones_like(bn_rm)
    if bn_b is None:
        bn_b = oneflow.zeros_like(bn_rm)
    var_rsqrt = oneflow.rsqrt(bn_rv + bn_eps)
    shape = ([1, -1] if transpose else [-1, 1]) + [1] * (conv_w.ndim - 2)
    fused_w = (conv_w * (bn_w * var_rsqrt).reshape(shape)).to(dtype=weight_dtype)
    fused_b = ((conv_b - bn_rm) * var_rsqrt * bn_w + bn_b).to(dtype=bias_dtype)
    return Parameter(fused_w.detach(), conv_w.requires_grad), Parameter(fused_b.detach(), conv_b.requires_grad)


def fuse_linear_bn_eval(linear: LinearT, bn: Module) -> LinearT:
    r"""A copy of the eval-mode ``linear`` with the eval-mode ``BatchNorm1d`` ``bn`` folded in.

    The batch norm must normalize the linear layer's outputs: ``bn.num_features`` equals
    ``linear.out_features`` (or is 1, broadcast over them).

    Returns:
        the fused linear layer (``linear`` itself is left unchanged).
    """
    _check_eval("fuse_linear_bn_eval", linear, bn)
    if not (linear.out_features == bn.num_features or bn.num_features == 1):
        raise AssertionError(
            "To fuse, linear.out_features must equal bn.num_features or bn.num_features must equal 1, got "
            f"linear.out_features={linear.out_features} and bn.num_features={bn.num_features}"
        )
    fused = copy.deepcopy(linear)
    fused.weight, fused.bias = fuse_linear_bn_weights(
        fused.weight, fused.bias, bn.running_mean, bn.running_var, bn.eps, bn.weight, bn.bias
    )
    return fused


def fuse_linear_bn_weights(
    linear_w: oneflow.Tensor,
    linear_b: oneflow.Tensor | None,
    bn_rm: oneflow.Tensor,
    bn_rv: oneflow.Tensor,
    bn_eps: float,
    bn_w: oneflow.Tensor,
    bn_b: oneflow.Tensor,
) -> tuple[Parameter, Parameter]:
    r"""The weight and bias of a linear layer with a batch norm folded in:
    :math:`W' = W \cdot \gamma / \sqrt{\sigma^2 + \epsilon}` (per output row) and
    :math:`b' = (b - \mu) \gamma / \sqrt{\sigma^2 + \epsilon} + \beta`.

    Returns:
        ``(weight, bias)`` as new parameters, in the linear layer's dtypes.
    """
    weight_dtype = linear_w.dtype
    bias_dtype = linear_b.dtype if linear_b is not None else weight_dtype
    if linear_b is None:
        linear_b = oneflow.zeros_like(bn_rm)
    scale = bn_w * oneflow.rsqrt(bn_rv + bn_eps)
    fused_w = linear_w * scale.unsqueeze(-1).to(dtype=weight_dtype)
    fused_b = ((linear_b - bn_rm) * scale + bn_b).to(dtype=bias_dtype)
    return Parameter(fused_w.detach(), linear_w.requires_grad), Parameter(fused_b.detach(), linear_b.requires_grad)
