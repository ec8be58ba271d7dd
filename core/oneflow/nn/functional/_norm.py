"""Normalization with ``torch.nn.functional``'s signatures (ops: ops/defs/norm.cc and
ops/defs/softmax.cc).

``batch_norm``, ``instance_norm`` and ``group_norm`` map their arguments onto
the registry ops and, like PyTorch, refuse statistics over a single value with
ValueError; ``layer_norm`` and ``rms_norm`` are the registry ops themselves.
``softmax``, ``softmin`` and ``log_softmax`` (normalizing exponentials along a dim) pick
PyTorch's legacy dim when none is given. ``local_response_norm`` is a composite: an average
pool over the squared input's padded channel axis.
"""

import warnings

from oneflow import _C

__all__ = [
    "batch_norm",
    "group_norm",
    "instance_norm",
    "layer_norm",
    "local_response_norm",
    "log_softmax",
    "rms_norm",
    "softmax",
    "softmin",
]

layer_norm = _C.ops.layer_norm
rms_norm = _C.ops.rms_norm


def _verify_batch_size(size) -> None:
    size_prods = size[0]
    for i in range(len(size) - 2):
        size_prods *= size[i + 2]
    if size_prods == 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input size {size}")


def _verify_spatial_size(size) -> None:
    size_prods = 1
    for i in range(2, len(size)):
        size_prods *= size[i]
    if size_prods == 1:
        raise ValueError(f"Expected more than 1 spatial element when training, got input size {size}")


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-05):
    """Normalizes each channel (dim 1) over the batch and spatial dims; in training the
    running statistics, when given, are updated in place (the variance unbiased)."""
    if training:
        _verify_batch_size(input.size())
    return _C.ops.batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, False)


def instance_norm(
    input, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True, momentum=0.1, eps=1e-05
):
    """Normalizes each (sample, channel) over its spatial dims."""
    if use_input_stats:
        _verify_spatial_size(input.size())
    return _C.ops.instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps, False)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05):
    """Normalizes each (sample, group of channels) over the group's channels and spatial dims."""
    if input.dim() < 2:
        raise RuntimeError(f"group_norm: Expected at least 2 dimensions for input tensor but received {input.dim()}")
    _verify_batch_size([input.size(0) * input.size(1) // num_groups, num_groups] + list(input.size()[2:]))
    return _C.ops.group_norm(input, num_groups, weight, bias, eps)


def _get_softmax_dim(name: str, ndim: int, stacklevel: int) -> int:
    warnings.warn(
        f"{name}: called without dim, so dim is guessed from the input's rank (deprecated); pass dim explicitly.",
        stacklevel=stacklevel,
    )
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    """exp(x) / sum(exp(x)) along ``dim`` (computed in ``dtype`` when given)."""
    if dim is None:
        dim = _get_softmax_dim("softmax", input.dim(), _stacklevel)
    return _C.ops.softmax(input, dim, dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    """x - log(sum(exp(x))) along ``dim`` (computed in ``dtype`` when given)."""
    if dim is None:
        dim = _get_softmax_dim("log_softmax", input.dim(), _stacklevel)
    return _C.ops.log_softmax(input, dim, dtype)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    """softmax(-x) along ``dim``: the smallest values get the largest weights."""
    if dim is None:
        dim = _get_softmax_dim("softmin", input.dim(), _stacklevel)
    return _C.ops.softmax(-input, dim, dtype)


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """Divides each element of (N, C, *) by ``(k + alpha / size * sum of squares over the size
    channels around it) ** beta``."""
    dim = input.dim()
    if dim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality input (got {dim} dimensions)")
    if input.numel() == 0:
        return input
    # The channel window average as an average pool over a zero-padded channel axis.
    div = input.mul(input).unsqueeze(1)
    front, back = size // 2, (size - 1) // 2
    if dim == 3:
        div = _C.ops._pad(div, [0, 0, front, back], "constant", None)
        div = _C.ops.avg_pool2d(div, [size, 1], [1, 1]).squeeze(1)
    else:
        sizes = list(input.shape)
        div = div.reshape(sizes[0], 1, sizes[1], sizes[2], -1)
        div = _C.ops._pad(div, [0, 0, 0, 0, front, back], "constant", None)
        div = _C.ops.avg_pool3d(div, [size, 1, 1], [1, 1, 1]).squeeze(1).reshape(sizes)
    return input / div.mul(alpha).add(k).pow(beta)
