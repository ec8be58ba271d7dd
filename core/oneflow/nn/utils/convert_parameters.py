"""Flattening parameters into one vector and back (e.g. for second-order optimizers)."""

from __future__ import annotations

from collections.abc import Iterable

import oneflow

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def _check_same_device(param: oneflow.Tensor, device):
    if device is None:
        return param.device
    if param.device != device:
        raise TypeError("Found two parameters on different devices, this is currently not supported.")
    return device


def parameters_to_vector(parameters: Iterable[oneflow.Tensor]) -> oneflow.Tensor:
    """All ``parameters`` flattened and concatenated into one 1-D tensor (a copy)."""
    device = None
    pieces = []
    for param in parameters:
        device = _check_same_device(param, device)
        pieces.append(param.reshape(-1))
    return oneflow.cat(pieces)


def vector_to_parameters(vec: oneflow.Tensor, parameters: Iterable[oneflow.Tensor]) -> None:
    """Splits the 1-D ``vec`` into consecutive pieces and makes them the values of
    ``parameters`` (the parameters then share ``vec``'s memory)."""
    if not isinstance(vec, oneflow.Tensor):
        raise TypeError(f"expected oneflow.Tensor, but got: {type(vec).__name__}")
    device = None
    offset = 0
    for param in parameters:
        device = _check_same_device(param, device)
        n = param.numel()
        param.data = vec[offset:offset + n].view_as(param).data
        offset += n
