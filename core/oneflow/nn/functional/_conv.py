"""Convolution functions of ``torch.nn.functional``.

``conv1d/2d/3d`` and ``conv_transpose1d/2d/3d`` are registry ops with PyTorch's schemas
(ops/defs/conv.cc), ``padding='same'|'valid'`` being the string overloads of conv*d. These
wrappers only give them ``torch.nn.functional``'s Python signatures (names, defaults, keyword
arguments, introspection); the ops check every argument.
"""

from oneflow import _C

__all__ = [
    "conv1d",
    "conv2d",
    "conv3d",
    "conv_transpose1d",
    "conv_transpose2d",
    "conv_transpose3d",
]


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """1-D convolution over (C, L) or (N, C, L); ``padding`` may be ``'same'`` or ``'valid'``."""
    return _C.ops.conv1d(input, weight, bias, stride, padding, dilation, groups)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """2-D convolution over (C, H, W) or (N, C, H, W); ``padding`` may be ``'same'`` or ``'valid'``."""
    return _C.ops.conv2d(input, weight, bias, stride, padding, dilation, groups)


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """3-D convolution over (C, D, H, W) or (N, C, D, H, W); ``padding`` may be ``'same'`` or ``'valid'``."""
    return _C.ops.conv3d(input, weight, bias, stride, padding, dilation, groups)


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """1-D transposed convolution ("deconvolution") over (C, L) or (N, C, L)."""
    return _C.ops.conv_transpose1d(input, weight, bias, stride, padding, output_padding, groups, dilation)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """2-D transposed convolution ("deconvolution") over (C, H, W) or (N, C, H, W)."""
    return _C.ops.conv_transpose2d(input, weight, bias, stride, padding, output_padding, groups, dilation)


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """3-D transposed convolution ("deconvolution") over (C, D, H, W) or (N, C, D, H, W)."""
    return _C.ops.conv_transpose3d(input, weight, bias, stride, padding, output_padding, groups, dilation)
