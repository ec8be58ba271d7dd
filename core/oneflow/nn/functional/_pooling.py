"""Pooling functions of ``torch.nn.functional`` whose signatures are not one op schema.

``max_pool*`` and ``adaptive_max_pool*`` take ``return_indices`` (a different op and a tuple
result), ``stride=None`` means the kernel size, adaptive output sizes may hold ``None`` (keep
the input's size) and ``max_unpool*`` computes its default output size from the pooling
arguments. Each maps its arguments onto the registry's ops (ops/defs/pooling.cc), which check
shapes; the checks left here are those PyTorch makes in Python, with its exception types.

Two families have no op and are composites: ``lp_pool*`` (an average pool of the p-th powers)
and ``fractional_max_pool*`` (a gather of pseudo-random windows and a max over each).
"""

import math

import numpy as np

import oneflow
from oneflow import _C

__all__ = [
    "adaptive_avg_pool1d",
    "adaptive_avg_pool2d",
    "adaptive_avg_pool3d",
    "adaptive_max_pool1d",
    "adaptive_max_pool2d",
    "adaptive_max_pool3d",
    "adaptive_max_pool1d_with_indices",
    "adaptive_max_pool2d_with_indices",
    "adaptive_max_pool3d_with_indices",
    "avg_pool1d",
    "avg_pool2d",
    "avg_pool3d",
    "fractional_max_pool2d",
    "fractional_max_pool2d_with_indices",
    "fractional_max_pool3d",
    "fractional_max_pool3d_with_indices",
    "lp_pool1d",
    "lp_pool2d",
    "lp_pool3d",
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


def avg_pool2d(
    input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True, divisor_override=None
):
    """Average pooling over (C, H, W) or (N, C, H, W)."""
    return _C.ops.avg_pool2d(
        input, kernel_size, _stride(stride), padding, ceil_mode, count_include_pad, divisor_override
    )


def avg_pool3d(
    input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True, divisor_override=None
):
    """Average pooling over (C, D, H, W) or (N, C, D, H, W)."""
    return _C.ops.avg_pool3d(
        input, kernel_size, _stride(stride), padding, ceil_mode, count_include_pad, divisor_override
    )


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


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=False):
    """Adaptive max pooling of (C, L) or (N, C, L); always ``(values, indices)``."""
    return _adaptive_max(_C.ops.adaptive_max_pool1d, input, output_size, True, 1)


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=False):
    """Adaptive max pooling of (C, H, W) or (N, C, H, W); always ``(values, indices)``."""
    return _adaptive_max(_C.ops.adaptive_max_pool2d, input, output_size, True, 2)


def adaptive_max_pool3d_with_indices(input, output_size, return_indices=False):
    """Adaptive max pooling of (C, D, H, W) or (N, C, D, H, W); always ``(values, indices)``."""
    return _adaptive_max(_C.ops.adaptive_max_pool3d, input, output_size, True, 3)


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
        raise ValueError(
            f"output_size should be a sequence containing {dims} or {dims + 2} elements, "
            f"but it has a length of '{len(output_size)}'"
        )
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


# ---- power-average pooling -------------------------------------------------------------------


def _lp_pool(avg_pool, input, norm_type, kernel_size, stride, ceil_mode, dims):
    # The window sum of x^p is the average times the window size; p-th root of it. The
    # sign * relu(abs) keeps a negative average (odd p) from reaching the root as its magnitude.
    window = math.prod(_tuple(kernel_size, dims))
    if norm_type in (math.inf, -math.inf):
        # The limits: the largest (smallest) magnitude in each window.
        max_pool = (max_pool1d, max_pool2d, max_pool3d)[dims - 1]
        if norm_type > 0:
            return max_pool(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
        return -max_pool(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    power = input.pow(norm_type)
    if stride is not None:
        out = avg_pool(power, kernel_size, stride, 0, ceil_mode)
    else:
        out = avg_pool(power, kernel_size, padding=0, ceil_mode=ceil_mode)
    return (oneflow.sign(out) * _C.ops.relu(oneflow.abs(out))).mul(window).pow(1.0 / norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    r"""Power-average pooling over (C, L) or (N, C, L): :math:`(\sum_{window} x^p)^{1/p}`.

    ``p = norm_type``; ``p = 1`` is sum pooling and :math:`p \to \infty` max pooling.
    ``stride`` defaults to ``kernel_size``; no padding.
    """
    return _lp_pool(avg_pool1d, input, norm_type, kernel_size, stride, ceil_mode, 1)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    r"""Power-average pooling over (C, H, W) or (N, C, H, W): :math:`(\sum_{window} x^p)^{1/p}`."""
    return _lp_pool(avg_pool2d, input, norm_type, kernel_size, stride, ceil_mode, 2)


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    r"""Power-average pooling over (C, D, H, W) or (N, C, D, H, W): :math:`(\sum_{window} x^p)^{1/p}`."""
    return _lp_pool(avg_pool3d, input, norm_type, kernel_size, stride, ceil_mode, 3)


# ---- fractional max pooling ------------------------------------------------------------------

_AXES = {2: ("height", "width"), 3: ("time", "height", "width")}


def _sizes(op, what, value, dims):
    """``value`` as ``dims`` ints: one int for all dims, or a sequence of ``dims``."""
    if isinstance(value, (list, tuple)):
        if len(value) == 1:
            value = list(value) * dims
        if len(value) != dims or not all(isinstance(v, (int, np.integer)) for v in value):
            raise RuntimeError(f"{op}: {what} must either be a single Int or tuple of {dims} Ints, but got {value}")
        return [int(v) for v in value]
    if not isinstance(value, (int, np.integer)) or isinstance(value, bool):
        raise RuntimeError(f"{op}: {what} must either be a single Int or tuple of {dims} Ints, but got {value}")
    return [int(value)] * dims


def _window_starts(samples: np.ndarray, in_size: int, out_size: int, kernel: int) -> np.ndarray:
    """The first input position of each output's window, per plane: ``(planes, out_size)``.

    Windows spread over the input as ``floor((i + u) * a) - floor(u * a)`` with
    ``a = (in - k) / (out - 1)`` and the plane's sample ``u`` in [0, 1); the last one is
    flush with the end. The arithmetic is in the samples' dtype, as PyTorch's kernel does it,
    so that equal samples give equal windows.
    """
    dtype = samples.dtype.type
    starts = np.empty(samples.shape + (out_size,), dtype=np.int64)
    if out_size > 1:
        alpha = dtype(in_size - kernel) / dtype(out_size - 1)
        steps = np.arange(out_size - 1).astype(samples.dtype)
        u = samples[..., None]
        starts[..., :-1] = ((steps + u) * alpha).astype(np.int64) - (u * alpha).astype(np.int64)
    if out_size > 0:
        starts[..., -1] = in_size - kernel
    return starts


def _fractional_max_pool(op, input, kernel_size, output_size, output_ratio, return_indices, _random_samples, dims):
    if input.dim() < dims + 1 and _random_samples is None:
        # PyTorch fails reading the channel count to draw the samples.
        raise IndexError(f"{op}(): Expected {dims + 1}D or {dims + 2}D tensor, but got: {list(input.shape)}")
    if input.dim() not in (dims + 1, dims + 2):
        raise RuntimeError(f"{op}(): Expected {dims + 1}D or {dims + 2}D tensor, but got: {list(input.shape)}")
    if not input.is_floating_point():
        raise NotImplementedError(f"{op}: not implemented for {input.dtype} (input of shape {list(input.shape)})")
    batched = input.dim() == dims + 2
    x = input if batched else input.unsqueeze(0)
    shape = list(x.shape)
    for d in range(1, dims + 2):
        if shape[d] == 0:
            raise RuntimeError(
                f"{op}(): Expected input to have non-zero size for non-batch dimensions, but got "
                f"{list(input.shape)} with dimension {d - (not batched)} being empty."
            )
    kernel = _sizes(op, "kernel_size", kernel_size, dims)
    if any(k <= 0 for k in kernel):
        raise RuntimeError(f"{op}: kernel_size must be positive, but got {kernel}")
    if output_size is None:
        if output_ratio is None:
            raise ValueError(f"{op} requires specifying either an output_size or an output_ratio")
        ratio = list(output_ratio) if isinstance(output_ratio, (list, tuple)) else [output_ratio] * dims
        if len(ratio) == 1:
            ratio = ratio * dims
        if len(ratio) != dims:
            raise ValueError(
                f"{op}: output_ratio must either be a single float or a tuple of {dims} floats, but got {output_ratio}"
            )
        out = [int(shape[2 + d] * ratio[d]) for d in range(dims)]
    else:
        out = _sizes(op, "output_size", output_size, dims)
    spatial = shape[2:]
    for d, axis in enumerate(_AXES[dims]):
        # PyTorch's 3-D kernel rejects a last window that ends exactly at the input's end.
        too_large = out[d] + kernel[d] - 1 >= spatial[d] if dims == 3 else out[d] + kernel[d] - 1 > spatial[d]
        if too_large:
            raise RuntimeError(
                f"{op}(): pool {axis} {kernel[d]} too large relative to input {axis} {spatial[d]} "
                f"(output {axis} {out[d]}, input of shape {list(input.shape)})"
            )
    batch, planes = shape[0], shape[1]
    if _random_samples is None:
        samples = oneflow.rand(batch, planes, dims, dtype=input.dtype)
    else:
        samples = _random_samples
        if samples.dim() != 3:
            raise RuntimeError(
                f"{op}: Expect _random_samples to have 3 dimensions, got {samples.dim()} (shape {list(samples.shape)})"
            )
        if samples.size(1) != planes:
            raise RuntimeError(
                f"{op}: Expect _random_samples.size(1) equals to input channel size, but got "
                f"_random_samples of shape {list(samples.shape)} for input of shape {list(input.shape)}"
            )
        if samples.size(2) != dims:
            raise RuntimeError(f"{op}: Expect _random_samples.size(2) equals to {dims}; got {samples.size(2)}.")
        if samples.size(0) < batch:
            raise RuntimeError(
                f"{op}: Expect _random_samples.size(0) to be at least the batch size {batch}, but got "
                f"_random_samples of shape {list(samples.shape)}"
            )
        if samples.dtype != input.dtype:
            raise RuntimeError(
                f"{op}: Expect _random_samples to have the same dtype as input, but got "
                f"{samples.dtype} and {input.dtype}"
            )
    u = samples.detach().numpy()[:batch]
    # Which sample places which dim follows PyTorch: (w, h) in 2-D but (t, h, w) in 3-D.
    column = [1, 0] if dims == 2 else [0, 1, 2]
    starts = [_window_starts(u[..., column[d]], spatial[d], out[d], kernel[d]) for d in range(dims)]
    # Flat input position of every (output, window element) pair: (N, C, *out, *kernel).
    flat = np.zeros((batch, planes, *out, *kernel), dtype=np.int64)
    stride = 1
    for d in reversed(range(dims)):
        pos = starts[d][..., :, None] + np.arange(kernel[d])  # (N, C, out_d, k_d)
        view = [batch, planes] + [1] * (2 * dims)
        view[2 + d], view[2 + dims + d] = out[d], kernel[d]
        flat = flat + pos.reshape(view) * stride
        stride *= spatial[d]
    window = math.prod(kernel)
    flat = oneflow.tensor(flat.reshape(batch, planes, math.prod(out) * window))
    gathered = x.reshape(batch, planes, math.prod(spatial)).gather(2, flat).reshape(batch, planes, *out, window)
    values, which = gathered.max(dim=-1)
    nan = gathered != gathered
    if bool(nan.any()):
        # PyTorch's kernel keeps the last NaN of a window (for the index and the gradient).
        last_nan = (nan.to(oneflow.int64) * oneflow.arange(1, window + 1)).argmax(dim=-1)
        which = oneflow.where(nan.any(dim=-1), last_nan, which)
        values = gathered.gather(-1, which.unsqueeze(-1)).squeeze(-1)
    if not batched:
        values = values.squeeze(0)
    if not return_indices:
        return values
    indices = flat.reshape(batch, planes, *out, window).gather(-1, which.unsqueeze(-1)).squeeze(-1)
    return values, indices if batched else indices.squeeze(0)


def fractional_max_pool2d(
    input, kernel_size, output_size=None, output_ratio=None, return_indices=False, _random_samples=None
):
    r"""Fractional max pooling over (C, H, W) or (N, C, H, W): the max of ``kernel_size`` windows at
    pseudo-random, overlapping positions, giving ``output_size`` (or ``int(size * output_ratio)``).

    Args:
        kernel_size: the window, an int or a pair.
        output_size: the output's (H, W), an int or a pair.
        output_ratio: the output's size as a fraction of the input's, a float or a pair.
        return_indices: also return the flat (H * W) indices of the maxima (for ``max_unpool2d``).
        _random_samples: ``(N, C, 2)`` samples in [0, 1) placing the windows (width first); drawn
            from oneflow's generator when not given.
    """
    return _fractional_max_pool(
        "fractional_max_pool2d", input, kernel_size, output_size, output_ratio, return_indices, _random_samples, 2
    )


def fractional_max_pool3d(
    input, kernel_size, output_size=None, output_ratio=None, return_indices=False, _random_samples=None
):
    r"""Fractional max pooling over (C, T, H, W) or (N, C, T, H, W); see :func:`fractional_max_pool2d`
    (``_random_samples`` is ``(N, C, 3)``, width first)."""
    return _fractional_max_pool(
        "fractional_max_pool3d", input, kernel_size, output_size, output_ratio, return_indices, _random_samples, 3
    )


def fractional_max_pool2d_with_indices(
    input, kernel_size, output_size=None, output_ratio=None, return_indices=False, _random_samples=None
):
    """:func:`fractional_max_pool2d` returning ``(values, indices)``."""
    return fractional_max_pool2d(input, kernel_size, output_size, output_ratio, True, _random_samples)


def fractional_max_pool3d_with_indices(
    input, kernel_size, output_size=None, output_ratio=None, return_indices=False, _random_samples=None
):
    """:func:`fractional_max_pool3d` returning ``(values, indices)``."""
    return fractional_max_pool3d(input, kernel_size, output_size, output_ratio, True, _random_samples)
