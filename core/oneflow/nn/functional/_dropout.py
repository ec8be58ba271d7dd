"""Dropout with ``torch.nn.functional``'s signatures (ops: ops/defs/dropout.cc).

Elements (``dropout``) or whole channels (``dropout1d/2d/3d``) are zeroed with
probability ``p`` and the rest scaled by ``1 / (1 - p)``, drawing from the
default Generator (``oneflow.manual_seed``). Outside training, or with
``p == 0``, the input itself is returned. ``alpha_dropout`` and
``feature_alpha_dropout`` (for SELU networks) are composites of ``bernoulli_``
and elementwise ops.
"""

import warnings

import oneflow
from oneflow import _C

__all__ = ["alpha_dropout", "dropout", "dropout1d", "dropout2d", "dropout3d", "feature_alpha_dropout"]


def _check_p(p) -> None:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def dropout(input, p=0.5, training=True, inplace=False):
    _check_p(p)
    return _C.ops.dropout_(input, p, training) if inplace else _C.ops.dropout(input, p, training)


def _feature_dropout(input, p, training, inplace, batched):
    # An unbatched input gets a batch dim of 1 (a view, so in-place dropout still writes the input).
    x = input if batched else input.unsqueeze(0)
    if inplace:
        _C.ops.feature_dropout_(x, p, training)
        return input
    out = _C.ops.feature_dropout(x, p, training)
    return out if batched else out.squeeze(0)


def dropout1d(input, p=0.5, training=True, inplace=False):
    """Zeroes whole channels of an (N, C, L) or (C, L) input."""
    _check_p(p)
    inp_dim = input.dim()
    if inp_dim not in (2, 3):
        raise RuntimeError(
            f"dropout1d: expected a 2-D (C, L) or 3-D (N, C, L) input, got {inp_dim}-D with shape "
            f"{list(input.shape)}; it drops whole channels of inputs with one spatial dim."
        )
    return _feature_dropout(input, p, training, inplace, inp_dim == 3)


def dropout2d(input, p=0.5, training=True, inplace=False):
    """Zeroes whole channels of an (N, C, H, W) input (a 3-D input is read as (N, C, L), as PyTorch does)."""
    _check_p(p)
    inp_dim = input.dim()
    if inp_dim not in (3, 4):
        warnings.warn(
            f"dropout2d: got a {inp_dim}-D input; it expects 3-D (C, H, W) or 4-D (N, C, H, W) inputs and other "
            "ranks are deprecated. Use dropout for element-wise dropout.",
            stacklevel=2,
        )
    if inp_dim == 3:
        warnings.warn(
            "dropout2d: a 3-D input is read as (N, C, L) and gets 1-D channel dropout, as in PyTorch; that reading "
            "is deprecated. Use dropout1d for (N, C, L) inputs.",
            stacklevel=2,
        )
    return _feature_dropout(input, p, training, inplace, True)


def dropout3d(input, p=0.5, training=True, inplace=False):
    """Zeroes whole channels of an (N, C, D, H, W) or (C, D, H, W) input."""
    _check_p(p)
    inp_dim = input.dim()
    if inp_dim not in (4, 5):
        warnings.warn(
            f"dropout3d: got a {inp_dim}-D input; it expects 4-D (C, D, H, W) or 5-D (N, C, D, H, W) inputs and "
            "other ranks are deprecated. Use dropout for element-wise dropout.",
            stacklevel=2,
        )
    return _feature_dropout(input, p, training, inplace, inp_dim == 5)


# SELU's negative saturation value -scale * alpha: dropped units are set to it.
_ALPHA_PRIME = -1.0507009873554804934193349852946 * 1.6732632423543772848170429916717


def _alpha_dropout(input, p, training, inplace, feature):
    _check_p(p)
    if not training or p == 0 or input.numel() == 0:
        return input
    if p == 1:
        out = input.mul(0.0)
    else:
        if feature:
            if input.dim() < 2:
                raise RuntimeError(
                    f"feature_alpha_dropout: expected an input with at least 2 dims (N, C, ...), got {input.dim()}-D"
                )
            mask_shape = list(input.shape[:2]) + [1] * (input.dim() - 2)
        else:
            mask_shape = list(input.shape)
        keep = oneflow.empty(mask_shape, dtype=input.dtype, device=input.device).bernoulli_(1 - p)
        # a and b keep the mean and variance of a SELU-normalized input unchanged: the mean
        # (1 - p) * b + p * (a * alpha' + b) is 0 for b = -p * a * alpha'.
        a = ((1 - p) * (1 + p * _ALPHA_PRIME**2)) ** -0.5
        b = -_ALPHA_PRIME * a * p
        out = (input * keep + (1 - keep) * _ALPHA_PRIME) * a + b
    # copy_ keeps the in-place result differentiable.
    return input.copy_(out) if inplace else out


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Dropout for SELU networks: dropped elements take SELU's negative saturation value and an
    affine map keeps a normalized input's mean and variance."""
    return _alpha_dropout(input, p, training, inplace, feature=False)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    """``alpha_dropout`` of whole channels of (N, C, *)."""
    return _alpha_dropout(input, p, training, inplace, feature=True)
