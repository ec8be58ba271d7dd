"""Converting the weights of the convolutions in a module to a memory format (the same API as
``torch.nn.utils.memory_format``)."""

from __future__ import annotations

from typing import TypeVar

import oneflow
from oneflow.nn.modules.module import Module

__all__ = ["convert_conv2d_weight_memory_format", "convert_conv3d_weight_memory_format"]

T = TypeVar("T", bound=Module)


def _convert(module: T, memory_format, conv_types: tuple, fn: str) -> T:
    if not isinstance(module, Module):
        raise TypeError(f"{fn}: module must be an nn.Module, got {type(module).__name__}")
    if isinstance(module, conv_types):
        with oneflow.no_grad():
            module.weight.data = module.weight.detach().contiguous(memory_format=memory_format)
    for child in module.children():
        _convert(child, memory_format, conv_types, fn)
    return module


def convert_conv2d_weight_memory_format(module: T, memory_format) -> T:
    r"""Converts the weight of every ``Conv2d`` and ``ConvTranspose2d`` in ``module`` (itself
    included, recursively) to ``memory_format``, e.g. ``oneflow.channels_last``. The values and
    the parameter objects stay the same; only the strides change.

    Args:
        module: the module to convert in place.
        memory_format: the target memory format.

    Returns:
        ``module``.
    """
    conv_types = (oneflow.nn.Conv2d, oneflow.nn.ConvTranspose2d)
    return _convert(module, memory_format, conv_types, "convert_conv2d_weight_memory_format")


def convert_conv3d_weight_memory_format(module: T, memory_format) -> T:
    r"""Converts the weight of every ``Conv3d`` and ``ConvTranspose3d`` in ``module`` (itself
    included, recursively) to ``memory_format``, e.g. ``oneflow.channels_last_3d``.

    Args:
        module: the module to convert in place.
        memory_format: the target memory format.

    Returns:
        ``module``.
    """
    conv_types = (oneflow.nn.Conv3d, oneflow.nn.ConvTranspose3d)
    return _convert(module, memory_format, conv_types, "convert_conv3d_weight_memory_format")
