"""Activation layers (``ReLU``, ``GELU``, ``Softmax``, ...) and ``MultiheadAttention``.

Each activation module stores its arguments and calls the matching function of
``oneflow.nn.functional`` (``inplace=True`` where PyTorch offers it picks the in-place
op). ``MultiheadAttention`` has PyTorch's parameters (``in_proj_weight`` or
``q/k/v_proj_weight``, ``in_proj_bias``, ``bias_k``/``bias_v``, ``out_proj``) and
computes attention with batched matrix products, so autograd gives its backward.
"""

from __future__ import annotations

import math
import warnings

import oneflow
from oneflow.nn import functional as F
from oneflow.nn import init as _init
from oneflow.nn.modules.linear import NonDynamicallyQuantizableLinear
from oneflow.nn.modules.module import Module
from oneflow.nn.parameter import Parameter

__all__ = [
    "CELU",
    "ELU",
    "GELU",
    "GLU",
    "Hardshrink",
    "Hardsigmoid",
    "Hardswish",
    "Hardtanh",
    "LeakyReLU",
    "LogSigmoid",
    "LogSoftmax",
    "Mish",
    "MultiheadAttention",
    "PReLU",
    "QuickGELU",
    "RReLU",
    "ReLU",
    "ReLU6",
    "SELU",
    "SiLU",
    "Sigmoid",
    "Softmax",
    "Softmax2d",
    "Softmin",
    "Softplus",
    "Softshrink",
    "Softsign",
    "Tanh",
    "Tanhshrink",
    "Threshold",
]

Tensor = oneflow.Tensor


def _inplace_suffix(inplace: bool) -> str:
    return ", inplace=True" if inplace else ""


class _InplaceActivation(Module):
    """An elementwise activation whose only option is ``inplace`` (printed when set, as
    PyTorch does); a subclass names its functional form in ``_function``."""

    _function: str

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return getattr(F, self._function)(input, inplace=self.inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class Threshold(Module):
    r"""Replaces every element not greater than ``threshold`` by ``value``.

    Args:
        threshold: the value to threshold at.
        value: the replacement.
        inplace: do the operation in place. Default: ``False``.
    """

    def __init__(self, threshold: float, value: float, inplace: bool = False) -> None:
        super().__init__()
        self.threshold = threshold
        self.value = value
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self) -> str:
        return f"threshold={self.threshold}, value={self.value}{_inplace_suffix(self.inplace)}"


class ReLU(_InplaceActivation):
    r""":math:`\max(0, x)` elementwise.

    Args:
        inplace: do the operation in place. Default: ``False``.
    """

    _function = "relu"


class RReLU(Module):
    r"""Randomized leaky ReLU: negative inputs are multiplied by a slope drawn from
    :math:`\mathcal{U}(\text{lower}, \text{upper})` per element in training, and by
    :math:`(\text{lower} + \text{upper}) / 2` in eval mode.

    Args:
        lower: lower bound of the slope. Default: 1/8.
        upper: upper bound of the slope. Default: 1/3.
        inplace: do the operation in place. Default: ``False``.
    """

    def __init__(self, lower: float = 1.0 / 8, upper: float = 1.0 / 3, inplace: bool = False) -> None:
        super().__init__()
        self.lower = lower
        self.upper = upper
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"lower={self.lower}, upper={self.upper}{_inplace_suffix(self.inplace)}"


class Hardtanh(Module):
    r"""Clamps every element to ``[min_val, max_val]``.

    Args:
        min_val: lower end of the linear region. Default: -1.
        max_val: upper end of the linear region. Default: 1.
        inplace: do the operation in place. Default: ``False``.
        min_value, max_value: deprecated spellings of ``min_val`` and ``max_val``.
    """

    def __init__(self, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False,
                 min_value: float | None = None, max_value: float | None = None) -> None:
        super().__init__()
        if min_value is not None:
            warnings.warn("Hardtanh: keyword argument `min_value` is deprecated; use `min_val` instead.",
                          FutureWarning, stacklevel=2)
            min_val = min_value
        if max_value is not None:
            warnings.warn("Hardtanh: keyword argument `max_value` is deprecated; use `max_val` instead.",
                          FutureWarning, stacklevel=2)
            max_val = max_value
        self.min_val = min_val
        self.max_val = max_val
        self.inplace = inplace
        assert self.max_val > self.min_val, "Hardtanh: max_val must be greater than min_val"

    def forward(self, input: Tensor) -> Tensor:
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self) -> str:
        return f"min_val={self.min_val}, max_val={self.max_val}{_inplace_suffix(self.inplace)}"


class ReLU6(Hardtanh):
    r""":math:`\min(\max(0, x), 6)` elementwise.

    Args:
        inplace: do the operation in place. Default: ``False``.
    """

    def __init__(self, inplace: bool = False) -> None:
        super().__init__(0.0, 6.0, inplace)

    def forward(self, input: Tensor) -> Tensor:
        return F.relu6(input, self.inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class Sigmoid(Module):
    r""":math:`1 / (1 + e^{-x})` elementwise."""

    def forward(self, input: Tensor) -> Tensor:
        return oneflow.sigmoid(input)


class Hardsigmoid(Module):
    r"""The piecewise-linear sigmoid :math:`\mathrm{clamp}(x / 6 + 1 / 2, 0, 1)`.

    Args:
        inplace: do the operation in place. Default: ``False``.
    """

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.hardsigmoid(input, self.inplace)


class Tanh(Module):
    r"""The hyperbolic tangent elementwise."""

    def forward(self, input: Tensor) -> Tensor:
        return oneflow.tanh(input)


class SiLU(_InplaceActivation):
    r""":math:`x \cdot \sigma(x)` elementwise (the swish function).

    Args:
        inplace: do the operation in place. Default: ``False``.
    """

    _function = "silu"


class Mish(_InplaceActivation):
    r""":math:`x \cdot \tanh(\mathrm{softplus}(x))` elementwise.

    Args:
        inplace: do the operation in place. Default: ``False``.
    """

    _function = "mish"


class Hardswish(Module):
    r""":math:`x \cdot \mathrm{hardsigmoid}(x)` elementwise.

    Args:
        inplace: do the operation in place. Default: ``False``.
    """

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.hardswish(input, self.inplace)


class ELU(Module):
    r""":math:`x` for positive inputs, :math:`\alpha (e^x - 1)` otherwise.

    Args:
        alpha: the scale of the negative part. Default: 1.
        inplace: do the operation in place. Default: ``False``.
    """

    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.elu(input, self.alpha, self.inplace)

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}{_inplace_suffix(self.inplace)}"


class CELU(Module):
    r""":math:`\max(0, x) + \min(0, \alpha (e^{x / \alpha} - 1))` elementwise.

    Args:
        alpha: the :math:`\alpha` of the formula. Default: 1.
        inplace: do the operation in place. Default: ``False``.
    """

    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.celu(input, self.alpha, self.inplace)

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}{_inplace_suffix(self.inplace)}"


class SELU(_InplaceActivation):
    r"""The self-normalizing ELU: :math:`\lambda \, \mathrm{ELU}_\alpha(x)` with the fixed constants
    :math:`\alpha \approx 1.6733` and :math:`\lambda \approx 1.0507`.

    Args:
        inplace: do the operation in place. Default: ``False``.
    """

    _function = "selu"


class GLU(Module):
    r"""Gated linear unit: ``input`` is split in halves :math:`a, b` along ``dim`` and the result
    is :math:`a \otimes \sigma(b)`.

    Args:
        dim: the dim to split. Default: -1.
    """

    def __init__(self, dim: int = -1) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        return F.glu(input, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class GELU(Module):
    r"""Gaussian error linear unit :math:`x \Phi(x)`; ``approximate='tanh'`` uses the tanh
    approximation.

    Args:
        approximate: ``'none'`` or ``'tanh'``. Default: ``'none'``.
    """

    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        self.approximate = approximate

    def forward(self, input: Tensor) -> Tensor:
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self) -> str:
        return f"approximate={self.approximate!r}"


class QuickGELU(Module):
    r"""OneFlow's fast GELU approximation :math:`x \cdot \sigma(1.702 x)`."""

    def forward(self, input: Tensor) -> Tensor:
        return F.quick_gelu(input)


class Hardshrink(Module):
    r"""Zeroes the elements in :math:`[-\lambda, \lambda]` and keeps the others.

    Args:
        lambd: :math:`\lambda`. Default: 0.5.
    """

    def __init__(self, lambd: float = 0.5) -> None:
        super().__init__()
        self.lambd = lambd

    def forward(self, input: Tensor) -> Tensor:
        return F.hardshrink(input, self.lambd)

    def extra_repr(self) -> str:
        return f"{self.lambd}"


class LeakyReLU(Module):
    r""":math:`x` for non-negative inputs, ``negative_slope * x`` otherwise.

    Args:
        negative_slope: the slope of the negative part. Default: 0.01.
        inplace: do the operation in place. Default: ``False``.
    """

    def __init__(self, negative_slope: float = 1e-2, inplace: bool = False) -> None:
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self) -> str:
        return f"negative_slope={self.negative_slope}{_inplace_suffix(self.inplace)}"


class LogSigmoid(Module):
    r""":math:`\log(1 / (1 + e^{-x}))` elementwise."""

    def forward(self, input: Tensor) -> Tensor:
        return F.logsigmoid(input)


class Softplus(Module):
    r""":math:`\frac{1}{\beta} \log(1 + e^{\beta x})`, linear where :math:`\beta x` exceeds ``threshold``.

    Args:
        beta: the :math:`\beta` of the formula. Default: 1.
        threshold: above this :math:`\beta x` the result is :math:`x`. Default: 20.
    """

    def __init__(self, beta: float = 1.0, threshold: float = 20.0) -> None:
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def forward(self, input: Tensor) -> Tensor:
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self) -> str:
        return f"beta={self.beta}, threshold={self.threshold}"


class Softshrink(Module):
    r"""Shrinks every element towards 0 by :math:`\lambda` (0 inside :math:`[-\lambda, \lambda]`).

    Args:
        lambd: :math:`\lambda` (non-negative). Default: 0.5.
    """

    def __init__(self, lambd: float = 0.5) -> None:
        super().__init__()
        self.lambd = lambd

    def forward(self, input: Tensor) -> Tensor:
        return F.softshrink(input, self.lambd)

    def extra_repr(self) -> str:
        return str(self.lambd)


class PReLU(Module):
    r""":math:`\max(0, x) + a \min(0, x)` with a learnable slope :math:`a`, shared by all channels
    or one per channel (dim 1 of the input).

    Args:
        num_parameters: 1, or the number of channels. Default: 1.
        init: the initial slope. Default: 0.25.

    Attributes:
        weight: the learnable slopes, of shape ``(num_parameters,)``.
    """

    def __init__(self, num_parameters: int = 1, init: float = 0.25, device=None, dtype=None) -> None:
        super().__init__()
        self.num_parameters = num_parameters
        self.init = init
        self.weight = Parameter(oneflow.empty(num_parameters, device=device, dtype=dtype))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Sets every slope to ``init``."""
        _init.constant_(self.weight, self.init)

    def forward(self, input: Tensor) -> Tensor:
        return F.prelu(input, self.weight)

    def extra_repr(self) -> str:
        return f"num_parameters={self.num_parameters}"


class Softsign(Module):
    r""":math:`x / (1 + |x|)` elementwise."""

    def forward(self, input: Tensor) -> Tensor:
        return F.softsign(input)


class Tanhshrink(Module):
    r""":math:`x - \tanh(x)` elementwise."""

    def forward(self, input: Tensor) -> Tensor:
        return F.tanhshrink(input)


class Softmin(Module):
    r"""Softmax of the negated input along ``dim``: small values get large weights.

    Args:
        dim: the dim along which the outputs sum to 1.
    """

    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        return F.softmin(input, self.dim, _stacklevel=5)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class Softmax(Module):
    r""":math:`e^{x_i} / \sum_j e^{x_j}` along ``dim``, so that the outputs along it sum to 1.

    Args:
        dim: the dim to normalize along (``None`` picks PyTorch's legacy choice, with a warning).
    """

    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        return F.softmax(input, self.dim, _stacklevel=5)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class Softmax2d(Module):
    r"""Softmax over the channels of every spatial location of :math:`(N, C, H, W)` or
    :math:`(C, H, W)`."""

    def forward(self, input: Tensor) -> Tensor:
        if input.dim() not in (3, 4):
            raise ValueError(f"Softmax2d: expected input to be 3D or 4D, got {input.dim()}D instead")
        return F.softmax(input, -3, _stacklevel=5)


class LogSoftmax(Module):
    r""":math:`\log(\mathrm{softmax}(x))` along ``dim``, computed stably.

    Args:
        dim: the dim to normalize along.
    """

    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        return F.log_softmax(input, self.dim, _stacklevel=5)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


def _float_mask(mask, name: str, dtype):
    """An additive float mask: a bool mask becomes -inf where True and 0 elsewhere."""
    if mask is None:
        return None
    if mask.dtype == oneflow.bool:
        return oneflow.zeros(mask.shape, dtype=dtype, device=mask.device).masked_fill(mask, float("-inf"))
    if not mask.dtype.is_floating_point:
        raise AssertionError(f"only bool and floating types of {name} are supported")
    return mask


class MultiheadAttention(Module):
    r"""Multi-head attention: :math:`\mathrm{Concat}(head_1, \dots, head_h) W^O` with
    :math:`head_i = \mathrm{Attention}(Q W_i^Q, K W_i^K, V W_i^V)`.

    Args:
        embed_dim: model dimension :math:`E` (split across the heads).
        num_heads: number of parallel heads; must divide ``embed_dim``.
        dropout: dropout probability on the attention weights (training only). Default: 0.
        bias: learn input and output projection biases. Default: ``True``.
        add_bias_kv: learn a bias appended to the key and value sequences. Default: ``False``.
        add_zero_attn: append a zero batch of keys and values. Default: ``False``.
        kdim, vdim: feature sizes of key and value (default ``embed_dim``); when they differ from
            ``embed_dim`` the projections are separate ``q/k/v_proj_weight`` parameters.
        batch_first: inputs and outputs are ``(batch, seq, feature)``. Default: ``False``.

    ``forward(query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
    average_attn_weights=True, is_causal=False)`` returns ``(attn_output, attn_weights)``:
    the output ``(L, N, E)`` (``(N, L, E)`` batch-first, ``(L, E)`` unbatched) and the
    attention weights ``(N, L, S)`` (per head ``(N, num_heads, L, S)`` when
    ``average_attn_weights=False``), or ``None`` when ``need_weights=False``. Boolean masks
    are ``True`` where attention is not allowed; float masks are added to the scores.
    """

    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0, bias: bool = True,
                 add_bias_kv: bool = False, add_zero_attn: bool = False, kdim: int | None = None,
                 vdim: int | None = None, batch_first: bool = False, device=None, dtype=None) -> None:
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(
                f"embed_dim and num_heads must be greater than 0, got embed_dim={embed_dim} and "
                f"num_heads={num_heads} instead")
        super().__init__()
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        assert self.head_dim * num_heads == self.embed_dim, "embed_dim must be divisible by num_heads"
        kw = {"device": device, "dtype": dtype}
        if not self._qkv_same_embed_dim:
            self.q_proj_weight = Parameter(oneflow.empty((embed_dim, embed_dim), **kw))
            self.k_proj_weight = Parameter(oneflow.empty((embed_dim, self.kdim), **kw))
            self.v_proj_weight = Parameter(oneflow.empty((embed_dim, self.vdim), **kw))
            self.register_parameter("in_proj_weight", None)
        else:
            self.in_proj_weight = Parameter(oneflow.empty((3 * embed_dim, embed_dim), **kw))
            self.register_parameter("q_proj_weight", None)
            self.register_parameter("k_proj_weight", None)
            self.register_parameter("v_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(oneflow.empty(3 * embed_dim, **kw))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias, **kw)
        if add_bias_kv:
            self.bias_k = Parameter(oneflow.empty((1, 1, embed_dim), **kw))
            self.bias_v = Parameter(oneflow.empty((1, 1, embed_dim), **kw))
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self) -> None:
        if self._qkv_same_embed_dim:
            _init.xavier_uniform_(self.in_proj_weight)
        else:
            _init.xavier_uniform_(self.q_proj_weight)
            _init.xavier_uniform_(self.k_proj_weight)
            _init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            _init.constant_(self.in_proj_bias, 0.0)
            _init.constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            _init.xavier_normal_(self.bias_k)
        if self.bias_v is not None:
            _init.xavier_normal_(self.bias_v)

    def _check_shapes(self, query, key, value, key_padding_mask, attn_mask) -> bool:
        """Whether the inputs are batched, checking the ranks against each other as PyTorch does."""
        if query.dim() == 3:
            if key.dim() != 3 or value.dim() != 3:
                raise AssertionError(
                    "For batched (3-D) `query`, expected `key` and `value` to be 3-D but found "
                    f"{key.dim()}-D and {value.dim()}-D tensors respectively")
            if key_padding_mask is not None and key_padding_mask.dim() != 2:
                raise AssertionError(
                    "For batched (3-D) `query`, expected `key_padding_mask` to be `None` or 2-D but found "
                    f"{key_padding_mask.dim()}-D tensor instead")
            if attn_mask is not None and attn_mask.dim() not in (2, 3):
                raise AssertionError(
                    "For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but found "
                    f"{attn_mask.dim()}-D tensor instead")
            return True
        if query.dim() == 2:
            if key.dim() != 2 or value.dim() != 2:
                raise AssertionError(
                    "For unbatched (2-D) `query`, expected `key` and `value` to be 2-D but found "
                    f"{key.dim()}-D and {value.dim()}-D tensors respectively")
            if key_padding_mask is not None and key_padding_mask.dim() != 1:
                raise AssertionError(
                    "For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` or 1-D but found "
                    f"{key_padding_mask.dim()}-D tensor instead")
            if attn_mask is not None:
                if attn_mask.dim() not in (2, 3):
                    raise AssertionError(
                        "For unbatched (2-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but found "
                        f"{attn_mask.dim()}-D tensor instead")
                if attn_mask.dim() == 3:
                    expected = (self.num_heads, query.shape[0], key.shape[0])
                    if tuple(attn_mask.shape) != expected:
                        raise AssertionError(
                            f"Expected `attn_mask` shape to be {expected} but got {tuple(attn_mask.shape)}")
            return False
        raise AssertionError(
            f"query should be unbatched 2D or batched 3D tensor but received {query.dim()}-D query tensor")

    def _projections(self):
        e = self.embed_dim
        if self._qkv_same_embed_dim:
            w_q, w_k, w_v = self.in_proj_weight[:e], self.in_proj_weight[e:2 * e], self.in_proj_weight[2 * e:]
        else:
            w_q, w_k, w_v = self.q_proj_weight, self.k_proj_weight, self.v_proj_weight
        if self.in_proj_bias is None:
            return (w_q, None), (w_k, None), (w_v, None)
        b = self.in_proj_bias
        return (w_q, b[:e]), (w_k, b[e:2 * e]), (w_v, b[2 * e:])

    def forward(self, query: Tensor, key: Tensor, value: Tensor, key_padding_mask: Tensor | None = None,
                need_weights: bool = True, attn_mask: Tensor | None = None, average_attn_weights: bool = True,
                is_causal: bool = False) -> tuple[Tensor, Tensor | None]:
        is_batched = self._check_shapes(query, key, value, key_padding_mask, attn_mask)
        if self.batch_first and is_batched:
            query, key, value = (x.transpose(1, 0) for x in (query, key, value))
        if not is_batched:
            query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
            if key_padding_mask is not None:
                key_padding_mask = key_padding_mask.unsqueeze(0)
        tgt_len, bsz, embed_dim = query.shape
        src_len = key.shape[0]
        heads, head_dim = self.num_heads, self.head_dim
        if embed_dim != self.embed_dim:
            raise AssertionError(f"was expecting embedding dimension of {self.embed_dim}, but got {embed_dim}")
        if self._qkv_same_embed_dim:
            if tuple(key.shape) != tuple(value.shape):
                raise AssertionError(
                    f"key shape {tuple(key.shape)} does not match value shape {tuple(value.shape)}")
        elif tuple(key.shape[:2]) != tuple(value.shape[:2]):
            raise AssertionError(
                f"key's sequence and batch dims {tuple(key.shape[:2])} do not match value's "
                f"{tuple(value.shape[:2])}")

        if is_causal:
            if attn_mask is None:
                raise RuntimeError(
                    "MultiheadAttention: is_causal=True needs attn_mask (the causal mask itself, e.g. from "
                    "Transformer.generate_square_subsequent_mask); is_causal is only a hint about it")
            if key_padding_mask is None and not need_weights:
                # PyTorch trusts the hint here and applies a causal mask whatever attn_mask holds.
                attn_mask = oneflow.ones((tgt_len, src_len), dtype=oneflow.bool, device=query.device).triu(1)

        if key_padding_mask is not None and attn_mask is not None and key_padding_mask.dtype != attn_mask.dtype:
            warnings.warn("Support for mismatched key_padding_mask and attn_mask is deprecated. Use same type for "
                          "both instead.", stacklevel=2)
        key_padding_mask = _float_mask(key_padding_mask, "key_padding_mask", query.dtype)
        attn_mask = _float_mask(attn_mask, "attn_mask", query.dtype)

        (w_q, b_q), (w_k, b_k), (w_v, b_v) = self._projections()
        q = F.linear(query, w_q, b_q)
        k = F.linear(key, w_k, b_k)
        v = F.linear(value, w_v, b_v)

        if attn_mask is not None:
            if attn_mask.dim() == 2:
                if tuple(attn_mask.shape) != (tgt_len, src_len):
                    raise RuntimeError(
                        f"The shape of the 2D attn_mask is {tuple(attn_mask.shape)}, but should be "
                        f"{(tgt_len, src_len)}.")
                attn_mask = attn_mask.unsqueeze(0)
            elif tuple(attn_mask.shape) != (bsz * heads, tgt_len, src_len):
                raise RuntimeError(
                    f"The shape of the 3D attn_mask is {tuple(attn_mask.shape)}, but should be "
                    f"{(bsz * heads, tgt_len, src_len)}.")

        if self.bias_k is not None and self.bias_v is not None:
            k = oneflow.cat([k, self.bias_k.repeat(1, bsz, 1)])
            v = oneflow.cat([v, self.bias_v.repeat(1, bsz, 1)])
            if attn_mask is not None:
                attn_mask = F.pad(attn_mask, [0, 1])
            if key_padding_mask is not None:
                key_padding_mask = F.pad(key_padding_mask, [0, 1])

        # (seq, batch, E) -> (batch * heads, seq, head_dim)
        q = q.reshape(tgt_len, bsz * heads, head_dim).transpose(0, 1)
        k = k.reshape(k.shape[0], bsz * heads, head_dim).transpose(0, 1)
        v = v.reshape(v.shape[0], bsz * heads, head_dim).transpose(0, 1)

        if self.add_zero_attn:
            zeros = oneflow.zeros((bsz * heads, 1, head_dim), dtype=k.dtype, device=k.device)
            k = oneflow.cat([k, zeros], dim=1)
            v = oneflow.cat([v, zeros], dim=1)
            if attn_mask is not None:
                attn_mask = F.pad(attn_mask, [0, 1])
            if key_padding_mask is not None:
                key_padding_mask = F.pad(key_padding_mask, [0, 1])

        src_len = k.shape[1]
        if key_padding_mask is not None:
            if tuple(key_padding_mask.shape) != (bsz, src_len):
                raise AssertionError(
                    f"expecting key_padding_mask shape of {(bsz, src_len)}, but got "
                    f"{tuple(key_padding_mask.shape)}")
            kpm = key_padding_mask.reshape(bsz, 1, 1, src_len).expand(bsz, heads, 1, src_len)
            kpm = kpm.reshape(bsz * heads, 1, src_len)
            attn_mask = kpm if attn_mask is None else attn_mask + kpm

        scores = oneflow.bmm(q * (1.0 / math.sqrt(head_dim)), k.transpose(1, 2))
        if attn_mask is not None:
            scores = scores + attn_mask
        weights = F.softmax(scores, dim=-1)
        if self.training and self.dropout > 0.0:
            weights = F.dropout(weights, p=self.dropout)
        out = oneflow.bmm(weights, v)  # (batch * heads, L, head_dim)
        out = out.transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
        out = F.linear(out, self.out_proj.weight, self.out_proj.bias).reshape(tgt_len, bsz, embed_dim)

        if need_weights:
            weights = weights.reshape(bsz, heads, tgt_len, src_len)
            if average_attn_weights:
                weights = weights.mean(dim=1)
            if not is_batched:
                weights = weights.squeeze(0)
        else:
            weights = None
        if not is_batched:
            out = out.squeeze(1)
        elif self.batch_first:
            out = out.transpose(1, 0)
        return out, weights
