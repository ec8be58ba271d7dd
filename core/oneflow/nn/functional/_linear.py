"""Linear maps with ``torch.nn.functional``'s signatures (ops: ops/defs/linear_nn.cc).

``linear(input, weight, bias=None)`` is ``input @ weight.T + bias`` and
``bilinear(input1, input2, weight, bias=None)`` is
``y[..., o] = input1 @ weight[o] @ input2 + bias[o]``; both are registry ops
with PyTorch's signatures, listed here for ``from oneflow.nn.functional import *``.
"""

from oneflow import _C

__all__ = ["bilinear", "linear"]

linear = _C.ops.linear
bilinear = _C.ops.bilinear
