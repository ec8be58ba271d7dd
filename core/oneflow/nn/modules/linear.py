"""Affine layers: ``Linear`` (``y = x A^T + b``), ``Bilinear`` (``y = x1^T A x2 + b``) and
OneFlow's ``FusedMLP`` (ReLU layers, each one product with the bias and ReLU in its epilogue).

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

__all__ = ["Bilinear", "FusedMLP", "Linear", "NonDynamicallyQuantizableLinear"]


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


class FusedMLP(Module):
    r"""A multi-layer perceptron whose every layer is one product: ``x = relu(x W_i^T + b_i)``.

    As OneFlow's ``nn.FusedMLP``: the product's epilogue adds the bias and applies the ReLU as
    it writes the layer's output (``oneflow._C.fused_mlp``), so each activation is written once.

    Args:
        in_features: size of each input sample.
        hidden_features: sizes of the hidden layers, in order (may be empty).
        out_features: size of each output sample.
        hidden_dropout_rate: dropout after each hidden layer's ReLU (in training). Default: 0.
        out_dropout_rate: dropout after the last layer (in training). Default: 0.
        skip_final_activation: leave the last layer without its ReLU. Default: ``False``.

    Attributes:
        weight_i, bias_i: layer i's ``(out_i, in_i)`` weight and ``(out_i,)`` bias, drawn as
            ``Linear``'s.

    Examples::

        >>> m = oneflow.nn.FusedMLP(16, (32, 32), 8, skip_final_activation=True)
        >>> m(oneflow.randn(4, 16)).size()
        oneflow.Size([4, 8])
    """

    def __init__(self, in_features: int, hidden_features, out_features: int, hidden_dropout_rate: float = 0.0,
                 out_dropout_rate: float = 0.0, skip_final_activation: bool = False, device=None,
                 dtype=None) -> None:
        super().__init__()
        self.in_features = in_features
        self.hidden_features = tuple(hidden_features)
        self.out_features = out_features
        self.hidden_dropout_rate = hidden_dropout_rate
        self.out_dropout_rate = out_dropout_rate
        self.skip_final_activation = skip_final_activation
        sizes = (in_features, *self.hidden_features, out_features)
        self.num_layers = len(sizes) - 1
        for i in range(self.num_layers):
            self.register_parameter(
                f"weight_{i}", Parameter(oneflow.empty((sizes[i + 1], sizes[i]), device=device, dtype=dtype)))
            self.register_parameter(f"bias_{i}", Parameter(oneflow.empty(sizes[i + 1], device=device, dtype=dtype)))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Redraws every layer as ``Linear.reset_parameters`` does."""
        for i in range(self.num_layers):
            weight, bias = self.weight(i), self.bias(i)
            init.kaiming_uniform_(weight, a=math.sqrt(5))
            bound = 1 / math.sqrt(weight.shape[1]) if weight.shape[1] > 0 else 0
            init.uniform_(bias, -bound, bound)

    def weight(self, i: int) -> Parameter:
        return getattr(self, f"weight_{i}")

    def bias(self, i: int) -> Parameter:
        return getattr(self, f"bias_{i}")

    def forward(self, x):
        weights = [self.weight(i) for i in range(self.num_layers)]
        biases = [self.bias(i) for i in range(self.num_layers)]
        dropout = self.training and (self.hidden_dropout_rate > 0 or self.out_dropout_rate > 0)
        if not dropout:
            return oneflow._C.fused_mlp(x, weights, biases, self.skip_final_activation)
        for i in range(self.num_layers):
            last = i == self.num_layers - 1
            act = "none" if last and self.skip_final_activation else "relu"
            x = oneflow.fused_linear(x, weights[i], biases[i], act)
            x = F.dropout(x, self.out_dropout_rate if last else self.hidden_dropout_rate, training=True)
        return x

    def extra_repr(self) -> str:
        return (f"in_features={self.in_features}, hidden_features={self.hidden_features}, "
                f"out_features={self.out_features}, skip_final_activation={self.skip_final_activation}")
