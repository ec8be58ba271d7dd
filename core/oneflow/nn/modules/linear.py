"""Affine layers: ``Linear`` (``y = x A^T + b``) and ``Bilinear`` (``y = x1^T A x2 + b``).

Parameters have PyTorch's names, shapes and initial distributions, so a
``state_dict`` moves between the two frameworks unchanged. The maps themselves
are the ``linear`` and ``bilinear`` ops (``oneflow.nn.functional``).
"""

from __future__ import annotations

import math

import oneflow
from oneflow.nn import functional as F
from oneflow.nn import init
from oneflow.nn.modules.module import Module
from oneflow.nn.parameter import Parameter

__all__ = ["Bilinear", "Linear", "NonDynamicallyQuantizableLinear"]


class Linear(Module):
    r"""Applies the affine map :math:`y = xA^T + b` to the last dimension of the input.

    Args:
        in_features: size of each input sample.
        out_features: size of each output sample.
        bias: if ``False``, no additive bias is learned. Default: ``True``.

    Shape:
        - Input: :math:`(*, H_{in})` with :math:`H_{in} = \text{in\_features}`.
        - Output: :math:`(*, H_{out})` with :math:`H_{out} = \text{out\_features}`.

    Attributes:
        weight: learnable ``(out_features, in_features)`` matrix, drawn from
            :math:`\mathcal{U}(-\sqrt{k}, \sqrt{k})` with :math:`k = 1 / \text{in\_features}`.
        bias: learnable ``(out_features,)`` vector with the same distribution.

    Examples::

        >>> m = oneflow.nn.Linear(20, 30)
        >>> m(oneflow.randn(128, 20)).size()
        oneflow.Size([128, 30])
    """

    def __init__(self, in_features: int, out_features: int, bias: bool = True, device=None, dtype=None) -> None:
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(oneflow.empty((out_features, in_features), device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(oneflow.empty(out_features, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Redraws weight and bias from :math:`\\mathcal{U}(-1/\\sqrt{in}, 1/\\sqrt{in})`."""
        # kaiming_uniform_ with a = sqrt(5) is exactly that bound for the weight.
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input: oneflow.Tensor) -> oneflow.Tensor:
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"


class NonDynamicallyQuantizableLinear(Linear):
    """A ``Linear`` under PyTorch's name for the output projection of ``MultiheadAttention``.

    It exists so that printed modules and scripts that name the class match PyTorch's; it
    behaves exactly like :class:`Linear`.
    """


class Bilinear(Module):
    r"""Applies :math:`y = x_1^T A x_2 + b` to a pair of inputs.

    Args:
        in1_features: size of each first input sample.
        in2_features: size of each second input sample.
        out_features: size of each output sample.
        bias: if ``False``, no additive bias is learned. Default: ``True``.

    Shape:
        - Input1: :math:`(*, H_{in1})`, Input2: :math:`(*, H_{in2})` with the same leading dims.
        - Output: :math:`(*, H_{out})`.

    Attributes:
        weight: learnable ``(out_features, in1_features, in2_features)`` tensor, drawn from
            :math:`\mathcal{U}(-\sqrt{k}, \sqrt{k})` with :math:`k = 1 / \text{in1\_features}`.
        bias: learnable ``(out_features,)`` vector with the same distribution.
    """

    def __init__(self, in1_features: int, in2_features: int, out_features: int, bias: bool = True, device=None,
                 dtype=None) -> None:
        super().__init__()
        self.in1_features = in1_features
        self.in2_features = in2_features
        self.out_features = out_features
        self.weight = Parameter(
            oneflow.empty((out_features, in1_features, in2_features), device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(oneflow.empty(out_features, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Redraws weight and bias from :math:`\\mathcal{U}(-1/\\sqrt{in1}, 1/\\sqrt{in1})`."""
        bound = 1 / math.sqrt(self.weight.size(1))
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1: oneflow.Tensor, input2: oneflow.Tensor) -> oneflow.Tensor:
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")
