"""Parameter initialization, as ``torch.nn.init``: fill a tensor in place and return it.

Everything runs under ``no_grad`` and draws from ``oneflow``'s random generator
(the default one, or the ``generator=`` given), so the statistics match
PyTorch's but not the exact values (the generators differ). Fan-in/fan-out are
PyTorch's: ``size(1)`` and ``size(0)`` times the product of the remaining dims.
"""

from __future__ import annotations

import math
import warnings

import oneflow

__all__ = [
    "calculate_gain",
    "constant_",
    "dirac_",
    "eye_",
    "kaiming_normal_",
    "kaiming_uniform_",
    "normal_",
    "ones_",
    "orthogonal_",
    "sparse_",
    "trunc_normal_",
    "uniform_",
    "xavier_normal_",
    "xavier_uniform_",
    "zeros_",
]

Tensor = oneflow.Tensor

_LINEAR = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d")


def calculate_gain(nonlinearity: str, param: float | None = None) -> float:
    """The recommended scale of the weights for a layer followed by ``nonlinearity``.

    ``linear``/``conv*``/``sigmoid``: 1; ``tanh``: 5/3; ``relu``: sqrt(2);
    ``leaky_relu``: sqrt(2 / (1 + negative_slope**2)) with ``param`` the negative
    slope (0.01 when None); ``selu``: 3/4.
    """
    if nonlinearity in _LINEAR or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif isinstance(param, (int, float)) and not isinstance(param, bool):
            slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + slope**2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor: Tensor) -> tuple[int, int]:
    """``(fan_in, fan_out)``: input/output features times the receptive field (the product of
    the dims after the first two)."""
    if tensor.dim() < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
    receptive = 1
    for s in tensor.shape[2:]:
        receptive *= s
    return tensor.size(1) * receptive, tensor.size(0) * receptive


def _calculate_correct_fan(tensor: Tensor, mode: str) -> int:
    mode = mode.lower()
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of ['fan_in', 'fan_out']")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0, generator: oneflow.Generator | None = None) -> Tensor:
    """Fills ``tensor`` with samples of U(a, b)."""
    with oneflow.no_grad():
        return tensor.uniform_(a, b, generator=generator)


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0,
            generator: oneflow.Generator | None = None) -> Tensor:
    """Fills ``tensor`` with samples of N(mean, std**2)."""
    with oneflow.no_grad():
        return tensor.normal_(mean, std, generator=generator)


def trunc_normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, a: float = -2.0, b: float = 2.0,
                  generator: oneflow.Generator | None = None) -> Tensor:
    """Fills ``tensor`` with samples of N(mean, std**2) restricted to [a, b].

    Uniform samples between the normal CDF's values at ``a`` and ``b`` are mapped
    through the inverse CDF, so no sample is redrawn.
    """
    if mean < a - 2 * std or mean > b + 2 * std:
        warnings.warn(
            "mean is more than 2 std from [a, b] in nn.init.trunc_normal_. "
            "The distribution of values may be incorrect.",
            stacklevel=2,
        )

    def cdf(x: float) -> float:  # of the standard normal
        return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0

    with oneflow.no_grad():
        lo, hi = cdf((a - mean) / std), cdf((b - mean) / std)
        # erfinv maps U(2lo-1, 2hi-1) to a truncated normal of std 1/sqrt(2).
        tensor.uniform_(2 * lo - 1, 2 * hi - 1, generator=generator)
        tensor.erfinv_()
        tensor.mul_(std * math.sqrt(2.0))
        tensor.add_(mean)
        tensor.clamp_(min=a, max=b)
        return tensor


def constant_(tensor: Tensor, val: float) -> Tensor:
    """Fills ``tensor`` with ``val``."""
    with oneflow.no_grad():
        return tensor.fill_(val)


def ones_(tensor: Tensor) -> Tensor:
    """Fills ``tensor`` with ones."""
    return constant_(tensor, 1.0)


def zeros_(tensor: Tensor) -> Tensor:
    """Fills ``tensor`` with zeros."""
    with oneflow.no_grad():
        return tensor.zero_()


def eye_(tensor: Tensor) -> Tensor:
    """Fills a 2-D ``tensor`` with the identity matrix (ones on the main diagonal)."""
    if tensor.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    with oneflow.no_grad():
        tensor.copy_(oneflow.eye(*tensor.shape, dtype=tensor.dtype, device=tensor.device))
    return tensor


def dirac_(tensor: Tensor, groups: int = 1) -> Tensor:
    """Fills a 3-, 4- or 5-D convolution weight with the Dirac delta, so the convolution
    passes its input channels through (per group; extra channels get zeros)."""
    dims = tensor.ndim
    if dims not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tensor.shape
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    out_per_group = sizes[0] // groups
    channels = min(out_per_group, sizes[1])
    center = tuple(s // 2 for s in sizes[2:])
    with oneflow.no_grad():
        tensor.zero_()
        for g in range(groups):
            for d in range(channels):
                tensor[(g * out_per_group + d, d, *center)] = 1
    return tensor


def xavier_uniform_(tensor: Tensor, gain: float = 1.0, generator: oneflow.Generator | None = None) -> Tensor:
    """Glorot initialization: U(-a, a) with a = gain * sqrt(6 / (fan_in + fan_out))."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    bound = math.sqrt(3.0) * gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return uniform_(tensor, -bound, bound, generator)


def xavier_normal_(tensor: Tensor, gain: float = 1.0, generator: oneflow.Generator | None = None) -> Tensor:
    """Glorot initialization: N(0, std**2) with std = gain * sqrt(2 / (fan_in + fan_out))."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return normal_(tensor, 0.0, std, generator)


def _kaiming_std(tensor: Tensor, a: float, mode: str, nonlinearity: str) -> float:
    fan = _calculate_correct_fan(tensor, mode)
    return calculate_gain(nonlinearity, a) / math.sqrt(fan)


def kaiming_uniform_(tensor: Tensor, a: float = 0, mode: str = "fan_in", nonlinearity: str = "leaky_relu",
                     generator: oneflow.Generator | None = None) -> Tensor:
    """He initialization: U(-bound, bound) with bound = gain * sqrt(3 / fan), where ``fan``
    is fan_in or fan_out (``mode``) and ``gain = calculate_gain(nonlinearity, a)``."""
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    bound = math.sqrt(3.0) * _kaiming_std(tensor, a, mode, nonlinearity)
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor: Tensor, a: float = 0, mode: str = "fan_in", nonlinearity: str = "leaky_relu",
                    generator: oneflow.Generator | None = None) -> Tensor:
    """He initialization: N(0, std**2) with std = gain / sqrt(fan) (see kaiming_uniform_)."""
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    return normal_(tensor, 0.0, _kaiming_std(tensor, a, mode, nonlinearity), generator)


def orthogonal_(tensor: Tensor, gain: float = 1, generator: oneflow.Generator | None = None) -> Tensor:
    """Fills ``tensor`` (2 or more dims, viewed as ``size(0)`` rows) with a (semi-)orthogonal
    matrix times ``gain``: the Q factor of a Gaussian matrix, with signs fixed so the
    distribution is uniform."""
    if tensor.ndim < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.size(0)
    cols = tensor.numel() // rows
    with oneflow.no_grad():
        flat = oneflow.empty(rows, cols, dtype=oneflow.float32 if tensor.dtype != oneflow.float64 else tensor.dtype)
        flat.normal_(0, 1, generator=generator)
        if rows < cols:
            flat = flat.t()
        q, r = oneflow.linalg.qr(flat)
        # Multiplying by the signs of R's diagonal makes the factorization unique.
        q = q * oneflow.diagonal(r, 0, -2, -1).sign()
        if rows < cols:
            q = q.t()
        tensor.view_as(q).copy_(q.to(tensor.dtype))
        tensor.mul_(gain)
    return tensor


def sparse_(tensor: Tensor, sparsity: float, std: float = 0.01, generator: oneflow.Generator | None = None) -> Tensor:
    """Fills a 2-D ``tensor`` with N(0, std**2) samples, then zeros ``ceil(sparsity * rows)``
    random entries of every column."""
    if tensor.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    num_zeros = int(math.ceil(sparsity * rows))
    with oneflow.no_grad():
        tensor.normal_(0, std, generator=generator)
        for col in range(cols):
            zero_rows = oneflow.randperm(rows, generator=generator)[:num_zeros]
            tensor[zero_rows, col] = 0
    return tensor


def _deprecated(fn):
    name = fn.__name__[:-1]

    def old(*args, **kwargs):
        warnings.warn(f"`nn.init.{name}` is now deprecated in favor of `nn.init.{fn.__name__}`.",
                      FutureWarning, stacklevel=2)
        return fn(*args, **kwargs)

    old.__name__ = name
    old.__doc__ = f"Deprecated alias of :func:`{fn.__name__}`."
    return old


# PyTorch's old names without the trailing underscore.
uniform = _deprecated(uniform_)
normal = _deprecated(normal_)
constant = _deprecated(constant_)
eye = _deprecated(eye_)
dirac = _deprecated(dirac_)
xavier_uniform = _deprecated(xavier_uniform_)
xavier_normal = _deprecated(xavier_normal_)
kaiming_uniform = _deprecated(kaiming_uniform_)
kaiming_normal = _deprecated(kaiming_normal_)
orthogonal = _deprecated(orthogonal_)
sparse = _deprecated(sparse_)
