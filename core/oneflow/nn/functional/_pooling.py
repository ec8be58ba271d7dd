"""Pooling functions of ``torch.nn.functional`` whose signatures are not one op schema.

``max_pool*`` and ``adaptive_max_pool*`` take ``return_indices`` (a different op and a tuple
result), ``stride=None`` means the kernel size, adaptive output sizes may hold ``None`` (keep
the input's size) and ``max_unpool*`` computes its default output size from the pooling
arguments. Each maps its arguments onto the registry's ops (ops/defs/pooling.cc), which check
shapes; the checks left here are those PyTorch makes in Python, with its exception types.
"""

from oneflow import _C

__all__ = [
    "adaptive_avg_pool1d",
    "adaptive_avg_pool2d",
    "adaptive_avg_pool3d",
    "adaptive_max_pool1d",
    "adaptive_max_pool2d",
    "adaptive_max_pool3d",
    "avg_pool1d",
    "avg_pool2d",
    "avg_pool3d",
    "max_pool1d",
    "max_pool2d",
    "max_pool3d",
    "max_unpool1d",
    "max_unpool2d",
    "max_unpool3d",
]


def _stride(stride):
    # The ops read an empty stride as "the kernel size".
    return [] if stride is None else stride


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """Max pooling over (C, L) or (N, C, L); ``(values, indices)`` with ``return_indices``."""
    op = _C.ops.max_pool1d_with_indices if return_indices else _C.ops.max_pool1d
    return op(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """Max pooling over (C, H, W) or (N, C, H, W); ``(values, indices)`` with ``return_indices``."""
    op = _C.ops.max_pool2d_with_indices if return_indices else _C.ops.max_pool2d
    return op(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """Max pooling over (C, D, H, W) or (N, C, D, H, W); ``(values, indices)`` with ``return_indices``."""
    op = _C.ops.max_pool3d_with_indices if return_indices else _C.ops.max_pool3d
    return op(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    """Average pooling over (C, L) or (N, C, L)."""
    return _C.ops.avg_pool1d(input, kernel_size, _stride(stride), padding, ceil_mode, count_include_pad)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    """Average pooling over (C, H, W) or (N, C, H, W)."""
    return _C.ops.avg_pool2d(input, kernel_size, _stride(stride), padding, ceil_mode, count_include_pad,
                             divisor_override)


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    """Average pooling over (C, D, H, W) or (N, C, D, H, W)."""
    return _C.ops.avg_pool3d(input, kernel_size, _stride(stride), padding, ceil_mode, count_include_pad,
                             divisor_override)


def _adaptive_size(output_size, input, dims):
    """output_size as a list of ``dims`` ints; ``None`` entries keep the input's size."""
    if not isinstance(output_size, (list, tuple)):
        return output_size
    if len(output_size) != dims or all(s is not None for s in output_size):
        return output_size
    spatial = list(input.shape)[-dims:]
    return [spatial[i] if s is None else s for i, s in enumerate(output_size)]


def adaptive_avg_pool1d(input, output_size):
    """Adaptive average pooling of (C, L) or (N, C, L) to ``output_size``."""
    return _C.ops.adaptive_avg_pool1d(input, _adaptive_size(output_size, input, 1))


def adaptive_avg_pool2d(input, output_size):
    """Adaptive average pooling of (C, H, W) or (N, C, H, W) to ``output_size`` (``None`` keeps a size)."""
    return _C.ops.adaptive_avg_pool2d(input, _adaptive_size(output_size, input, 2))


def adaptive_avg_pool3d(input, output_size):
    """Adaptive average pooling of (C, D, H, W) or (N, C, D, H, W) to ``output_size``."""
    return _C.ops.adaptive_avg_pool3d(input, _adaptive_size(output_size, input, 3))


def _adaptive_max(op, input, output_size, return_indices, dims):
    values, indices = op(input, _adaptive_size(output_size, input, dims))
    return (values, indices) if return_indices else values


def adaptive_max_pool1d(input, output_size, return_indices=False):
    """Adaptive max pooling of (C, L) or (N, C, L); ``(values, indices)`` with ``return_indices``."""
    return _adaptive_max(_C.ops.adaptive_max_pool1d, input, output_size, return_indices, 1)


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """Adaptive max pooling of (C, H, W) or (N, C, H, W); ``(values, indices)`` with ``return_indices``."""
    return _adaptive_max(_C.ops.adaptive_max_pool2d, input, output_size, return_indices, 2)


def adaptive_max_pool3d(input, output_size, return_indices=False):
    """Adaptive max pooling of (C, D, H, W) or (N, C, D, H, W); ``(values, indices)`` with ``return_indices``."""
    return _adaptive_max(_C.ops.adaptive_max_pool3d, input, output_size, return_indices, 3)


def _tuple(value, dims):
    if isinstance(value, (list, tuple)):
        return list(value)
    return [value] * dims


def _unpool_output_size(input, kernel_size, stride, padding, output_size, dims):
    """PyTorch's default unpooled size ((in - 1) * stride - 2 * padding + kernel), or ``output_size``
    checked against it (a sequence of ``dims`` sizes, or with the leading (N, C) too)."""
    kernel_size = _tuple(kernel_size, dims)
    stride = kernel_size if stride is None else _tuple(stride, dims)
    padding = _tuple(padding, dims)
    in_size = list(input.shape)[-dims:]
    default = [(in_size[d] - 1) * stride[d] - 2 * padding[d] + kernel_size[d] for d in range(dims)]
    if output_size is None:
        return default, stride, padding
    output_size = list(output_size)
    if len(output_size) == dims + 2:
        output_size = output_size[2:]
    if len(output_size) != dims:
        raise ValueError(f"output_size should be a sequence containing {dims} or {dims + 2} elements, "
                         f"but it has a length of '{len(output_size)}'")
    for d in range(dims):
        lo, hi = default[d] - stride[d], default[d] + stride[d]
        if not lo < output_size[d] < hi:
            raise ValueError(f'invalid output_size "{tuple(output_size)}" (dim {d} must be between {lo} and {hi})')
    return output_size, stride, padding


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The inverse of max_pool1d: values placed at ``indices``, zeros elsewhere."""
    size, _, _ = _unpool_output_size(input, kernel_size, stride, padding, output_size, 1)
    return _C.ops.max_unpool1d(input, indices, size)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The inverse of max_pool2d: values placed at ``indices``, zeros elsewhere."""
    size, _, _ = _unpool_output_size(input, kernel_size, stride, padding, output_size, 2)
    return _C.ops.max_unpool2d(input, indices, size)


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The inverse of max_pool3d: values placed at ``indices``, zeros elsewhere."""
    size, stride, padding = _unpool_output_size(input, kernel_size, stride, padding, output_size, 3)
    return _C.ops.max_unpool3d(input, indices, size, stride, padding)
