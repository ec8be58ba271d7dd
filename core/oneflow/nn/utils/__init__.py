"""Utilities for training: gradient clipping, parameter/vector conversion, weight and spectral
normalization, ``parametrize``/``parametrizations``, conv/linear + batch-norm fusion,
``stateless.functional_call``, and ``rnn`` (padding of variable-length sequences)."""

from oneflow.nn.utils import parametrizations, parametrize, rnn, stateless
from oneflow.nn.utils.clip_grad import (
    clip_grad_norm,
    clip_grad_norm_,
    clip_grad_value_,
    clip_grads_with_norm_,
    get_total_norm,
)
from oneflow.nn.utils.convert_parameters import parameters_to_vector, vector_to_parameters
from oneflow.nn.utils.fusion import (
    fuse_conv_bn_eval,
    fuse_conv_bn_weights,
    fuse_linear_bn_eval,
    fuse_linear_bn_weights,
)
from oneflow.nn.utils.init import skip_init
from oneflow.nn.utils.memory_format import (
    convert_conv2d_weight_memory_format,
    convert_conv3d_weight_memory_format,
)
from oneflow.nn.utils.spectral_norm import remove_spectral_norm, spectral_norm
from oneflow.nn.utils.weight_norm import remove_weight_norm, weight_norm

__all__ = [
    "clip_grad_norm",
    "clip_grad_norm_",
    "clip_grad_value_",
    "clip_grads_with_norm_",
    "convert_conv2d_weight_memory_format",
    "convert_conv3d_weight_memory_format",
    "fuse_conv_bn_eval",
    "fuse_conv_bn_weights",
    "fuse_linear_bn_eval",
    "fuse_linear_bn_weights",
    "get_total_norm",
    "parameters_to_vector",
    "parametrizations",
    "parametrize",
    "remove_spectral_norm",
    "remove_weight_norm",
    "rnn",
    "skip_init",
    "spectral_norm",
    "stateless",
    "vector_to_parameters",
    "weight_norm",
]
