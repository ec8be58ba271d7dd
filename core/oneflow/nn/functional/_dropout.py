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
            f"dropout1d: Expected 2D or 3D input, but received a {inp_dim}D input. Note that dropout1d exists to "
            "provide channel-wise dropout on inputs with 1 spatial dimension, a channel dimension, and an optional "
            "batch dimension (i.e. 2D or 3D inputs).")
    return _feature_dropout(input, p, training, inplace, inp_dim == 3)


def dropout2d(input, p=0.5, training=True, inplace=False):
    """Zeroes whole channels of an (N, C, H, W) input (a 3-D input is read as (N, C, L), as PyTorch does)."""
    _check_p(p)
    inp_dim = input.dim()
    if inp_dim not in (3, 4):
        warnings.warn(
            f"dropout2d: Received a {inp_dim}-D input to dropout2d, which is deprecated and will result in an error "
            "in a future release. To retain the behavior and silence this warning, please use dropout instead. Note "
            "that dropout2d exists to provide channel-wise dropout on inputs with 2 spatial dimensions, a channel "
            "dimension, and an optional batch dimension (i.e. 3D or 4D inputs).")
    if inp_dim == 3:
        warnings.warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout behavior is "
            "desired - input is interpreted as shape (N, C, L), where C is the channel dim. This behavior will "
            "change in a future release to interpret the input as one without a batch dimension, i.e. shape "
            "(C, H, W). To maintain the 1D channel-wise dropout behavior, please switch to using dropout1d instead.")
    return _feature_dropout(input, p, training, inplace, True)


def dropout3d(input, p=0.5, training=True, inplace=False):
    """Zeroes whole channels of an (N, C, D, H, W) or (C, D, H, W) input."""
    _check_p(p)
    inp_dim = input.dim()
    if inp_dim not in (4, 5):
        warnings.warn(
            f"dropout3d: Received a {inp_dim}-D input to dropout3d, which is deprecated and will result in an error "
            "in a future release. To retain the behavior and silence this warning, please use dropout instead. Note "
            "that dropout3d exists to provide channel-wise dropout on inputs with 3 spatial dimensions, a channel "
            "dimension, and an optional batch dimension (i.e. 4D or 5D inputs).")
    return _feature_dropout(input, p, training, inplace, inp_dim == 5)
