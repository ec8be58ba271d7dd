"""Weight initialisers used by the transformer models (timm's conventions)."""

from __future__ import annotations

import math

import oneflow as flow
from oneflow import nn

__all__ = ["lecun_normal_", "trunc_normal_"]

# Standard deviations beyond which the normal tail mass (< 1.3e-15) is negligible.
_NEGLIGIBLE_TAIL = 8.0


def trunc_normal_(tensor: flow.Tensor, mean: float = 0.0, std: float = 1.0, a: float = -2.0,
                  b: float = 2.0) -> flow.Tensor:
    """Fills ``tensor`` in place with N(mean, std**2) samples restricted to ``[a, b]``.

    ``a`` and ``b`` are absolute bounds (not multiples of ``std``), as in timm; the
    models call it as ``trunc_normal_(w, std=0.02)``, which truncates at +-2.

    When both bounds lie more than 8 standard deviations from the mean (the usual
    ``std=0.02`` with bounds +-2), the truncation removes less than 1e-15 of the mass,
    so a normal draw clamped to the bounds is the same distribution; that path skips
    the inverse-CDF transform, which dominates the construction time of large models.
    """
    if std > 0 and (a - mean) / std <= -_NEGLIGIBLE_TAIL and (b - mean) / std >= _NEGLIGIBLE_TAIL:
        with flow.no_grad():
            tensor.normal_(mean, std)
            return tensor.clamp_(min=a, max=b)
    return nn.init.trunc_normal_(tensor, mean=mean, std=std, a=a, b=b)


def lecun_normal_(tensor: flow.Tensor) -> flow.Tensor:
    """Fills ``tensor`` with a normal of variance 1/fan_in truncated at two standard deviations."""
    if tensor.ndim < 2:
        raise ValueError(f"lecun_normal_: needs a tensor with at least 2 dimensions, got shape {tuple(tensor.shape)}")
    fan_in = tensor.shape[1] * math.prod(tensor.shape[2:])
    # The std of N(0, 1) truncated to [-2, 2] is 0.8796...; divide it out so the variance is 1/fan_in.
    std = math.sqrt(1.0 / fan_in) / 0.87962566103423978
    return nn.init.trunc_normal_(tensor, std=std, a=-2.0 * std, b=2.0 * std)
