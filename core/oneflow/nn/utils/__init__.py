"""Utilities for training: gradient clipping, parameter/vector conversion, weight normalization,
and ``rnn`` (padding of variable-length sequences)."""

from oneflow.nn.utils import rnn
from oneflow.nn.utils.clip_grad import (
    clip_grad_norm,
    clip_grad_norm_,
    clip_grad_value_,
    clip_grads_with_norm_,
    get_total_norm,
)
from oneflow.nn.utils.convert_parameters import parameters_to_vector, vector_to_parameters
from oneflow.nn.utils.weight_norm import remove_weight_norm, weight_norm

__all__ = [
    "clip_grad_norm",
    "clip_grad_norm_",
    "clip_grad_value_",
    "clip_grads_with_norm_",
    "get_total_norm",
    "parameters_to_vector",
    "remove_weight_norm",
    "rnn",
    "vector_to_parameters",
    "weight_norm",
]
