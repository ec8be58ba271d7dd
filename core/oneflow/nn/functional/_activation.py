"""Activation functions with ``torch.nn.functional``'s signatures.

The ops live in the registry (ops/defs/activation.cc); these wrappers only map
PyTorch's arguments onto them (``inplace=True`` picks the ``op_`` twin, ``input``
may be passed by keyword).
"""

import oneflow
from oneflow import _C

_ops = _C.ops

__all__ = [
    "celu",
    "celu_",
    "elu",
    "elu_",
    "gelu",
    "glu",
    "hardshrink",
    "hardsigmoid",
    "hardswish",
    "hardtanh",
    "hardtanh_",
    "leaky_relu",
    "leaky_relu_",
    "logsigmoid",
    "mish",
    "prelu",
    "quick_gelu",
    "relu",
    "relu6",
    "rrelu",
    "rrelu_",
    "selu",
    "selu_",
    "silu",
    "softplus",
    "softshrink",
    "softsign",
    "tanhshrink",
    "threshold",
    "threshold_",
]


def _pick(name, inplace):
    return getattr(_ops, name + "_" if inplace else name)


def relu(input, inplace=False):
    return _pick("relu", inplace)(input)


def relu6(input, inplace=False):
    return _pick("relu6", inplace)(input)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    if min_val > max_val:
        raise ValueError("hardtanh(): min_val cannot be greater than max_val")
    return _pick("hardtanh", inplace)(input, min_val, max_val)


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    return hardtanh(input, min_val, max_val, inplace=True)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    return _pick("leaky_relu", inplace)(input, negative_slope)


def leaky_relu_(input, negative_slope=0.01):
    return _ops.leaky_relu_(input, negative_slope)


def elu(input, alpha=1.0, inplace=False):
    return _pick("elu", inplace)(input, alpha)


def elu_(input, alpha=1.0):
    return _ops.elu_(input, alpha)


def selu(input, inplace=False):
    return _pick("selu", inplace)(input)


def selu_(input):
    return _ops.selu_(input)


def celu(input, alpha=1.0, inplace=False):
    return _pick("celu", inplace)(input, alpha)


def celu_(input, alpha=1.0):
    return _ops.celu_(input, alpha)


def gelu(input, approximate="none"):
    return _ops.gelu(input, approximate=approximate)


def quick_gelu(input):
    """``input * sigmoid(1.702 * input)`` (OneFlow's fast GELU approximation)."""
    return _ops.quick_gelu(input)


def silu(input, inplace=False):
    return _pick("silu", inplace)(input)


def mish(input, inplace=False):
    return _pick("mish", inplace)(input)


def hardswish(input, inplace=False):
    return _pick("hardswish", inplace)(input)


def hardsigmoid(input, inplace=False):
    return _pick("hardsigmoid", inplace)(input)


def hardshrink(input, lambd=0.5):
    return _ops.hardshrink(input, lambd)


def softshrink(input, lambd=0.5):
    return _ops.softshrink(input, lambd)


def tanhshrink(input):
    return _ops.tanhshrink(input)


def softplus(input, beta=1.0, threshold=20.0):
    return _ops.softplus(input, beta, threshold)


def softsign(input):
    return _ops.softsign(input)


def logsigmoid(input):
    return _ops.logsigmoid(input)


def prelu(input, weight):
    return _ops.prelu(input, weight)


def glu(input, dim=-1):
    return _ops.glu(input, dim)


def threshold(input, threshold, value, inplace=False):
    return _pick("threshold", inplace)(input, threshold, value)


def threshold_(input, threshold, value):
    return _ops.threshold_(input, threshold, value)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    """Leaky ReLU whose negative slope is drawn from U(lower, upper) per element in training
    (and is (lower + upper) / 2 otherwise)."""
    if not training:
        return leaky_relu(input, (lower + upper) / 2, inplace)
    slope = oneflow.empty_like(input).uniform_(lower, upper)
    out = oneflow.where(input > 0, input, input * slope)
    # copy_ keeps the in-place result differentiable (its gradient is the drawn slope).
    return input.copy_(out) if inplace else out


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False):
    return rrelu(input, lower, upper, training, inplace=True)
