"""Transformer layers: ``TransformerEncoderLayer``, ``TransformerDecoderLayer``, their stacks
``TransformerEncoder`` / ``TransformerDecoder``, and the full encoder-decoder ``Transformer``.

Submodule and parameter names follow PyTorch (``self_attn``, ``linear1``, ``norm1``,
``layers.0...``), so state dicts are interchangeable. Attention is
:class:`~oneflow.nn.MultiheadAttention`; ``norm_first`` selects pre-norm blocks and
``activation`` is ``'relu'``, ``'gelu'`` or any callable (a Module is registered as a
submodule).
"""

from __future__ import annotations

import copy
import warnings
from collections.abc import Callable

import oneflow
from oneflow.nn import functional as F
from oneflow.nn import init
from oneflow.nn.modules.activation import GELU, MultiheadAttention, ReLU, _float_mask
from oneflow.nn.modules.container import ModuleList
from oneflow.nn.modules.dropout import Dropout
from oneflow.nn.modules.linear import Linear
from oneflow.nn.modules.module import Module
from oneflow.nn.modules.normalization import LayerNorm

__all__ = [
    "Transformer",
    "TransformerDecoder",
    "TransformerDecoderLayer",
    "TransformerEncoder",
    "TransformerEncoderLayer",
]

Tensor = oneflow.Tensor


def _get_activation_fn(activation: str) -> Callable[[Tensor], Tensor]:
    if activation == "relu":
        return F.relu
    if activation == "gelu":
        return F.gelu
    raise RuntimeError(f"activation should be relu/gelu, not {activation}")


def _relu_or_gelu(activation) -> int:
    """1 for ReLU, 2 for GELU (function or module), else 0: the activations of PyTorch's fused path."""
    if activation is F.relu or isinstance(activation, ReLU):
        return 1
    if activation is F.gelu or isinstance(activation, GELU):
        return 2
    return 0


def _canonical_masks(mask, mask_name: str, padding_mask, padding_name: str, dtype):
    """Both masks as additive float masks, warning (as PyTorch does) when their types differ."""
    if mask is not None and padding_mask is not None and mask.dtype != padding_mask.dtype:
        warnings.warn(f"Support for mismatched {padding_name} and {mask_name} is deprecated. Use same type for "
                      "both instead.", stacklevel=3)
    return _float_mask(mask, mask_name, dtype), _float_mask(padding_mask, padding_name, dtype)


def _get_clones(module: Module, n: int) -> ModuleList:
    return ModuleList([copy.deepcopy(module) for _ in range(n)])


def _generate_square_subsequent_mask(sz: int, device=None, dtype=None) -> Tensor:
    """An additive causal mask: ``-inf`` above the diagonal, 0 elsewhere."""
    if dtype is None:
        dtype = oneflow.float32
    return oneflow.full((sz, sz), float("-inf"), dtype=dtype, device=device).triu(1)


def _seq_len(src: Tensor, batch_first: bool) -> int:
    if src.dim() == 2:  # unbatched (S, E)
        return src.size(0)
    return src.size(1 if batch_first else 0)


def _detect_is_causal_mask(mask: Tensor | None, is_causal: bool | None, size: int | None) -> bool:
    """``is_causal`` when given; otherwise whether ``mask`` is exactly the causal mask."""
    make_causal = is_causal is True
    if is_causal is None and mask is not None:
        sz = size if size is not None else mask.size(-2)
        causal = _generate_square_subsequent_mask(sz, device=mask.device, dtype=mask.dtype)
        if tuple(mask.shape) == tuple(causal.shape):
            make_causal = bool((mask == causal).all())
        else:
            make_causal = False
    return make_causal


class TransformerEncoderLayer(Module):
    r"""Self-attention followed by a feed-forward network, each with a residual connection and
    layer normalization (after the residual sum, or before the block with ``norm_first``).

    Args:
        d_model: features of the input.
        nhead: number of attention heads.
        dim_feedforward: hidden size of the feed-forward network. Default: 2048.
        dropout: dropout probability. Default: 0.1.
        activation: of the feed-forward network: ``'relu'``, ``'gelu'`` or a callable. Default: relu.
        layer_norm_eps: eps of the layer norms. Default: 1e-5.
        batch_first: inputs and output are ``(N, S, E)``. Default: ``False`` (``(S, N, E)``).
        norm_first: normalize before attention and feed-forward (pre-norm). Default: ``False``.
        bias: learn biases in the linear layers and layer norms. Default: ``True``.

    ``forward(src, src_mask=None, src_key_padding_mask=None, is_causal=False)``.
    """

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048, dropout: float = 0.1,
                 activation: str | Callable[[Tensor], Tensor] = F.relu, layer_norm_eps: float = 1e-5,
                 batch_first: bool = False, norm_first: bool = False, bias: bool = True, device=None,
                 dtype=None) -> None:
        super().__init__()
        kw = {"device": device, "dtype": dtype}
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first,
                                            **kw)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **kw)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **kw)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        if isinstance(activation, str):
            activation = _get_activation_fn(activation)
        self.activation_relu_or_gelu = _relu_or_gelu(activation)
        self.activation = activation

    def forward(self, src: Tensor, src_mask: Tensor | None = None, src_key_padding_mask: Tensor | None = None,
                is_causal: bool = False) -> Tensor:
        src_mask, src_key_padding_mask = _canonical_masks(src_mask, "src_mask", src_key_padding_mask,
                                                          "src_key_padding_mask", src.dtype)
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask, is_causal)
            x = x + self._ff_block(self.norm2(x))
        else:
            x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask, is_causal))
            x = self.norm2(x + self._ff_block(x))
        return x

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask, need_weights=False,
                           is_causal=is_causal)[0]
        return self.dropout1(x)

    def _ff_block(self, x):
        x = self.linear2(self.dropout(self.activation(self.linear1(x))))
        return self.dropout2(x)


class TransformerDecoderLayer(Module):
    r"""Self-attention, attention over the encoder output (``memory``) and a feed-forward network,
    each with a residual connection and layer normalization (pre-norm with ``norm_first``).

    Arguments are those of :class:`TransformerEncoderLayer`.

    ``forward(tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
    memory_key_padding_mask=None, tgt_is_causal=False, memory_is_causal=False)``.
    """

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048, dropout: float = 0.1,
                 activation: str | Callable[[Tensor], Tensor] = F.relu, layer_norm_eps: float = 1e-5,
                 batch_first: bool = False, norm_first: bool = False, bias: bool = True, device=None,
                 dtype=None) -> None:
        super().__init__()
        kw = {"device": device, "dtype": dtype}
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first, bias=bias,
                                            **kw)
        self.multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first,
                                                 bias=bias, **kw)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **kw)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **kw)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.norm3 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.dropout3 = Dropout(dropout)
        if isinstance(activation, str):
            activation = _get_activation_fn(activation)
        self.activation = activation

    def forward(self, tgt: Tensor, memory: Tensor, tgt_mask: Tensor | None = None, memory_mask: Tensor | None = None,
                tgt_key_padding_mask: Tensor | None = None, memory_key_padding_mask: Tensor | None = None,
                tgt_is_causal: bool = False, memory_is_causal: bool = False) -> Tensor:
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask, tgt_is_causal)
            x = x + self._mha_block(self.norm2(x), memory, memory_mask, memory_key_padding_mask, memory_is_causal)
            x = x + self._ff_block(self.norm3(x))
        else:
            x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask, tgt_is_causal))
            x = self.norm2(x + self._mha_block(x, memory, memory_mask, memory_key_padding_mask, memory_is_causal))
            x = self.norm3(x + self._ff_block(x))
        return x

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask, is_causal=is_causal,
                           need_weights=False)[0]
        return self.dropout1(x)

    def _mha_block(self, x, mem, attn_mask, key_padding_mask, is_causal):
        x = self.multihead_attn(x, mem, mem, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                                is_causal=is_causal, need_weights=False)[0]
        return self.dropout2(x)

    def _ff_block(self, x):
        x = self.linear2(self.dropout(self.activation(self.linear1(x))))
        return self.dropout3(x)


class TransformerEncoder(Module):
    r"""A stack of ``num_layers`` copies of ``encoder_layer`` (each with its own parameters),
    optionally followed by ``norm``.

    Args:
        encoder_layer: the layer to copy (it is not itself registered).
        num_layers: number of layers.
        norm: a final normalization, e.g. ``LayerNorm``. Default: ``None``.
        enable_nested_tensor: allow PyTorch's nested-tensor inference path (batch-first stacks of
            standard encoder layers; a warning says why when it cannot apply). Default: ``True``.
        mask_check: take that path only for padding masks whose kept positions come first.
            Default: ``True``.

    On that path (eval mode, no gradient, a ``src_key_padding_mask`` and no ``mask``) PyTorch drops
    the padded positions, so they come back as zeros; this module returns the same.

    ``forward(src, mask=None, src_key_padding_mask=None, is_causal=None)``; ``is_causal=None``
    detects a causal ``mask``.
    """

    def __init__(self, encoder_layer: TransformerEncoderLayer, num_layers: int, norm: Module | None = None,
                 enable_nested_tensor: bool = True, mask_check: bool = True) -> None:
        super().__init__()
        self.layers = _get_clones(encoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm
        self.enable_nested_tensor = enable_nested_tensor
        self.use_nested_tensor = enable_nested_tensor
        self.mask_check = mask_check
        why_not = _why_not_nested(encoder_layer)
        if enable_nested_tensor and why_not:
            warnings.warn(f"enable_nested_tensor is True, but self.use_nested_tensor is False because {why_not}",
                          stacklevel=2)
            self.use_nested_tensor = False

    def _drops_padding(self, src: Tensor, mask: Tensor | None, src_key_padding_mask: Tensor | None) -> bool:
        """Whether PyTorch would run this call on nested tensors (its inference fast path), where
        padded positions are dropped and come back as zeros."""
        if (not self.use_nested_tensor or not len(self.layers) or self.layers[0].training or src.dim() != 3
                or src_key_padding_mask is None or mask is not None):
            return False
        if oneflow.is_grad_enabled() and (src.requires_grad
                                          or any(p.requires_grad for p in self.layers[0].parameters())):
            return False
        if self.mask_check:
            # Only masks whose kept positions come first in every sequence qualify.
            kept = src_key_padding_mask.logical_not().to(oneflow.int64)
            if bool((kept[:, 1:] > kept[:, :-1]).any()):
                return False
        return True

    def forward(self, src: Tensor, mask: Tensor | None = None, src_key_padding_mask: Tensor | None = None,
                is_causal: bool | None = None) -> Tensor:
        mask, src_key_padding_mask = _canonical_masks(mask, "mask", src_key_padding_mask, "src_key_padding_mask",
                                                      src.dtype)
        batch_first = self.layers[0].self_attn.batch_first if len(self.layers) else False
        is_causal = _detect_is_causal_mask(mask, is_causal, _seq_len(src, batch_first))
        drop_padding = self._drops_padding(src, mask, src_key_padding_mask)
        output = src
        for mod in self.layers:
            output = mod(output, src_mask=mask, is_causal=is_causal, src_key_padding_mask=src_key_padding_mask)
        if drop_padding:
            # (N, S) padded positions of a batch-first output: zeros, as PyTorch's nested path returns.
            output = output.masked_fill((src_key_padding_mask != 0).unsqueeze(-1), 0.0)
        if self.norm is not None:
            output = self.norm(output)
        return output


def _why_not_nested(layer) -> str:
    """Why PyTorch's nested-tensor inference path cannot serve stacks of ``layer`` ('' if it can)."""
    if not isinstance(layer, TransformerEncoderLayer):
        return f"{type(layer).__name__} is not a TransformerEncoderLayer"
    attn = layer.self_attn
    if layer.norm_first:
        return "encoder_layer.norm_first was True"
    if not attn.batch_first:
        return "encoder_layer.self_attn.batch_first was not True (use batch_first for better inference performance)"
    if not attn._qkv_same_embed_dim:
        return "encoder_layer.self_attn._qkv_same_embed_dim was not True"
    if attn.in_proj_bias is None:
        return "encoder_layer.self_attn was passed bias=False"
    if not layer.activation_relu_or_gelu:
        return "encoder_layer.activation_relu_or_gelu was not True"
    if layer.norm1.eps != layer.norm2.eps:
        return "encoder_layer.norm1.eps was not equal to encoder_layer.norm2.eps"
    if attn.num_heads % 2 == 1:
        return "num_head is odd"
    return ""


class TransformerDecoder(Module):
    r"""A stack of ``num_layers`` copies of ``decoder_layer``, optionally followed by ``norm``.

    Args:
        decoder_layer: the layer to copy (it is not itself registered).
        num_layers: number of layers.
        norm: a final normalization. Default: ``None``.

    ``forward(tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
    memory_key_padding_mask=None, tgt_is_causal=None, memory_is_causal=False)``.
    """

    def __init__(self, decoder_layer: TransformerDecoderLayer, num_layers: int, norm: Module | None = None) -> None:
        super().__init__()
        self.layers = _get_clones(decoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, tgt: Tensor, memory: Tensor, tgt_mask: Tensor | None = None, memory_mask: Tensor | None = None,
                tgt_key_padding_mask: Tensor | None = None, memory_key_padding_mask: Tensor | None = None,
                tgt_is_causal: bool | None = None, memory_is_causal: bool = False) -> Tensor:
        batch_first = self.layers[0].self_attn.batch_first if len(self.layers) else False
        tgt_is_causal = _detect_is_causal_mask(tgt_mask, tgt_is_causal, _seq_len(tgt, batch_first))
        output = tgt
        for mod in self.layers:
            output = mod(output, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                         tgt_key_padding_mask=tgt_key_padding_mask, memory_key_padding_mask=memory_key_padding_mask,
                         tgt_is_causal=tgt_is_causal, memory_is_causal=memory_is_causal)
        if self.norm is not None:
            output = self.norm(output)
        return output


class Transformer(Module):
    r"""The encoder-decoder transformer of "Attention Is All You Need".

    Args:
        d_model: features of the encoder and decoder inputs. Default: 512.
        nhead: number of attention heads. Default: 8.
        num_encoder_layers: encoder depth. Default: 6.
        num_decoder_layers: decoder depth. Default: 6.
        dim_feedforward, dropout, activation, layer_norm_eps, batch_first, norm_first, bias: as in
            :class:`TransformerEncoderLayer`.
        custom_encoder, custom_decoder: modules to use instead of the default stacks.

    ``forward(src, tgt, src_mask=None, tgt_mask=None, memory_mask=None, src_key_padding_mask=None,
    tgt_key_padding_mask=None, memory_key_padding_mask=None, src_is_causal=None,
    tgt_is_causal=None, memory_is_causal=False)`` returns the decoder output ``(T, N, E)``.
    Every parameter with more than one dim starts Xavier-uniform.
    """

    def __init__(self, d_model: int = 512, nhead: int = 8, num_encoder_layers: int = 6, num_decoder_layers: int = 6,
                 dim_feedforward: int = 2048, dropout: float = 0.1,
                 activation: str | Callable[[Tensor], Tensor] = F.relu, custom_encoder: Module | None = None,
                 custom_decoder: Module | None = None, layer_norm_eps: float = 1e-5, batch_first: bool = False,
                 norm_first: bool = False, bias: bool = True, device=None, dtype=None) -> None:
        super().__init__()
        kw = {"device": device, "dtype": dtype}
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            encoder_layer = TransformerEncoderLayer(d_model, nhead, dim_feedforward, dropout, activation,
                                                    layer_norm_eps, batch_first, norm_first, bias, **kw)
            encoder_norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
            self.encoder = TransformerEncoder(encoder_layer, num_encoder_layers, encoder_norm)
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            decoder_layer = TransformerDecoderLayer(d_model, nhead, dim_feedforward, dropout, activation,
                                                    layer_norm_eps, batch_first, norm_first, bias, **kw)
            decoder_norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
            self.decoder = TransformerDecoder(decoder_layer, num_decoder_layers, decoder_norm)
        self._reset_parameters()
        self.d_model = d_model
        self.nhead = nhead
        self.batch_first = batch_first

    def forward(self, src: Tensor, tgt: Tensor, src_mask: Tensor | None = None, tgt_mask: Tensor | None = None,
                memory_mask: Tensor | None = None, src_key_padding_mask: Tensor | None = None,
                tgt_key_padding_mask: Tensor | None = None, memory_key_padding_mask: Tensor | None = None,
                src_is_causal: bool | None = None, tgt_is_causal: bool | None = None,
                memory_is_causal: bool = False) -> Tensor:
        is_batched = src.dim() == 3
        if not self.batch_first and src.size(1) != tgt.size(1) and is_batched:
            raise RuntimeError("the batch number of src and tgt must be equal")
        if self.batch_first and src.size(0) != tgt.size(0) and is_batched:
            raise RuntimeError("the batch number of src and tgt must be equal")
        if src.size(-1) != self.d_model or tgt.size(-1) != self.d_model:
            raise RuntimeError("the feature number of src and tgt must be equal to d_model")
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask,
                              is_causal=src_is_causal)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask, tgt_is_causal=tgt_is_causal,
                            memory_is_causal=memory_is_causal)

    @staticmethod
    def generate_square_subsequent_mask(sz: int, device=None, dtype=None) -> Tensor:
        """The ``(sz, sz)`` causal mask: ``-inf`` where a position would attend to a later one, else 0."""
        return _generate_square_subsequent_mask(sz, device=device, dtype=dtype)

    def _reset_parameters(self) -> None:
        for p in self.parameters():
            if p.dim() > 1:
                init.xavier_uniform_(p)
