"""Dropout with ``torch.nn.functional``'s signatures (ops: ops/defs/dropout.cc).

Elements (``dropout``) or whole channels (``dropout1d/2d/3d``) are zeroed with
probability ``p`` and the rest scaled by ``1 / (1 - p)``, drawing from the
default Generator (``oneflow.manual_seed``). Outside training, or with
``p == 0``, the input itself is returned.
"""

import warnings

from oneflow import _C

__all__ = ["dropout", "dropout1d", "dropout2d", "dropout3d"]


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
            f"{list(input.shape)}; it drops whole channels of inputs with one spatial dim.")
    return _feature_dropout(input, p, training, inplace, inp_dim == 3)


def dropout2d(input, p=0.5, training=True, inplace=False):
    """Zeroes whole channels of an (N, C, H, W) input (a 3-D input is read as (N, C, L), as PyTorch does)."""
    _check_p(p)
    inp_dim = input.dim()
    if inp_dim not in (3, 4):
        warnings.warn(
            f"dropout2d: got a {inp_dim}-D input; it expects 3-D (C, H, W) or 4-D (N, C, H, W) inputs and other "
            "ranks are deprecated. Use dropout for element-wise dropout.", stacklevel=2)
    if inp_dim == 3:
        warnings.warn(
            "dropout2d: a 3-D input is read as (N, C, L) and gets 1-D channel dropout, as in PyTorch; that reading "
            "is deprecated. Use dropout1d for (N, C, L) inputs.", stacklevel=2)
    return _feature_dropout(input, p, training, inplace, True)


def dropout3d(input, p=0.5, training=True, inplace=False):
    """Zeroes whole channels of an (N, C, D, H, W) or (C, D, H, W) input."""
    _check_p(p)
    inp_dim = input.dim()
    if inp_dim not in (4, 5):
        warnings.warn(
            f"dropout3d: got a {inp_dim}-D input; it expects 4-D (C, D, H, W) or 5-D (N, C, D, H, W) inputs and "
            "other ranks are deprecated. Use dropout for element-wise dropout.", stacklevel=2)
    return _feature_dropout(input, p, training, inplace, inp_dim == 5)
