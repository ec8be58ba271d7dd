"""``channel_shuffle``: interleaving the channel groups of a grouped convolution's output.

A reshape of the channel dim into ``(groups, C / groups)``, a transpose and a reshape back
(a copy, as in PyTorch); the gradient follows from the views.
"""

from __future__ import annotations

import oneflow

__all__ = ["channel_shuffle", "native_channel_shuffle"]


def channel_shuffle(input: oneflow.Tensor, groups: int) -> oneflow.Tensor:
    r"""Splits the channels of :math:`(N, C, *)` into ``groups`` groups and interleaves them:
    output channel ``i * groups + g`` is input channel ``g * (C / groups) + i``.

    Args:
        input: at least 3-D, channels in dim 1.
        groups: the number of groups; must divide ``C``.
    """
    if isinstance(groups, bool) or not isinstance(groups, int):
        raise TypeError(f"channel_shuffle(): argument 'groups' (position 2) must be int, not {type(groups).__name__}")
    if input.dim() <= 2:
        raise RuntimeError(f"channel_shuffle expects input with > 2 dims, but got input with sizes {list(input.shape)}")
    if groups <= 0:
        raise RuntimeError(
            f"channel_shuffle: Number of groups to divide channels in must be positive. Value of "
            f"groups:{groups} (input of shape {list(input.shape)})"
        )
    shape = list(input.shape)
    channels = shape[1]
    if channels % groups != 0:
        raise RuntimeError(
            f"channel_shuffle: Number of channels must be divisible by groups. Got {channels} channels "
            f"and {groups} groups (input of shape {shape})."
        )
    grouped = input.reshape(shape[0], groups, channels // groups, *shape[2:])
    return grouped.transpose(1, 2).contiguous().reshape(shape)


def native_channel_shuffle(input: oneflow.Tensor, groups: int) -> oneflow.Tensor:
    r"""The same as :func:`channel_shuffle` (PyTorch's non-quantized native kernel)."""
    return channel_shuffle(input, groups)
