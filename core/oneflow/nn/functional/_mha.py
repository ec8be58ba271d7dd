"""``multi_head_attention_forward``: the computation behind ``nn.MultiheadAttention`` with
``torch.nn.functional``'s signature (input projections, optional key/value biases and zero
attention, masks, dropout on the weights, output projection), composed from differentiable ops."""

from __future__ import annotations

import math
import warnings

import oneflow
from oneflow import _C

__all__ = ["multi_head_attention_forward"]


def _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads: int) -> bool:
    """Whether the inputs are batched, checking the ranks against each other."""
    if query.dim() == 3:
        if key.dim() != 3 or value.dim() != 3:
            raise AssertionError(
                "For batched (3-D) `query`, expected `key` and `value` to be 3-D but found "
                f"{key.dim()}-D and {value.dim()}-D tensors respectively"
            )
        if key_padding_mask is not None and key_padding_mask.dim() != 2:
            raise AssertionError(
                "For batched (3-D) `query`, expected `key_padding_mask` to be `None` or 2-D but found "
                f"{key_padding_mask.dim()}-D tensor instead"
            )
        if attn_mask is not None and attn_mask.dim() not in (2, 3):
            raise AssertionError(
                "For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but found "
                f"{attn_mask.dim()}-D tensor instead"
            )
        return True
    if query.dim() == 2:
        if key.dim() != 2 or value.dim() != 2:
            raise AssertionError(
                "For unbatched (2-D) `query`, expected `key` and `value` to be 2-D but found "
                f"{key.dim()}-D and {value.dim()}-D tensors respectively"
            )
        if key_padding_mask is not None and key_padding_mask.dim() != 1:
            raise AssertionError(
                "For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` or 1-D but found "
                f"{key_padding_mask.dim()}-D tensor instead"
            )
        if attn_mask is not None:
            if attn_mask.dim() not in (2, 3):
                raise AssertionError(
                    "For unbatched (2-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but found "
                    f"{attn_mask.dim()}-D tensor instead"
                )
            if attn_mask.dim() == 3:
                expected = (num_heads, query.shape[0], key.shape[0])
                if tuple(attn_mask.shape) != expected:
                    raise AssertionError(
                        f"Expected `attn_mask` shape to be {expected} but got {tuple(attn_mask.shape)}"
                    )
        return False
    raise AssertionError(f"query should be unbatched 2D or batched 3D tensor but received {query.dim()}-D query tensor")


def _canonical_mask(mask, name: str, dtype):
    """A boolean mask (True = masked out) as an additive float mask; float masks pass through."""
    if mask is None:
        return None
    if mask.dtype == oneflow.bool:
        return oneflow.zeros(mask.shape, dtype=dtype, device=mask.device).masked_fill(mask, float("-inf"))
    if not mask.dtype.is_floating_point:
        raise AssertionError(f"only bool and floating types of {name} are supported")
    return mask


def _pad_last(t, n: int = 1):
    return oneflow.cat([t, oneflow.zeros(*t.shape[:-1], n, dtype=t.dtype, device=t.device)], dim=-1)


def multi_head_attention_forward(
    query,
    key,
    value,
    embed_dim_to_check: int,
    num_heads: int,
    in_proj_weight,
    in_proj_bias,
    bias_k,
    bias_v,
    add_zero_attn: bool,
    dropout_p: float,
    out_proj_weight,
    out_proj_bias,
    training: bool = True,
    key_padding_mask=None,
    need_weights: bool = True,
    attn_mask=None,
    use_separate_proj_weight: bool = False,
    q_proj_weight=None,
    k_proj_weight=None,
    v_proj_weight=None,
    static_k=None,
    static_v=None,
    average_attn_weights: bool = True,
    is_causal: bool = False,
):
    r"""Multi-head attention, as ``nn.MultiheadAttention`` computes it.

    Args:
        query, key, value: ``(L, N, E)``, ``(S, N, E_k)``, ``(S, N, E_v)`` (or unbatched
            ``(L, E)``, ``(S, E_k)``, ``(S, E_v)``).
        embed_dim_to_check: the expected ``E``.
        num_heads: the number of heads (must divide ``E``).
        in_proj_weight, in_proj_bias: the packed ``(3E, E)`` input projection and its ``(3E,)``
            bias (the bias is also split when ``use_separate_proj_weight``).
        bias_k, bias_v: ``(1, 1, E)`` biases appended to the keys and values, or ``None``.
        add_zero_attn: append a zero key and value to every sequence.
        dropout_p: dropout probability on the attention weights (when ``training``).
        out_proj_weight, out_proj_bias: the output projection.
        training: apply dropout. Default: ``True``.
        key_padding_mask: ``(N, S)`` (bool: True = ignore; float: added to the scores).
        need_weights: also return the attention weights. Default: ``True``.
        attn_mask: ``(L, S)`` or ``(N * num_heads, L, S)``, bool or float like the padding mask.
        use_separate_proj_weight: project with ``q/k/v_proj_weight`` instead of the packed weight.
        static_k, static_v: ``(N * num_heads, S, E / num_heads)`` keys/values used as they are.
        average_attn_weights: average the returned weights over the heads. Default: ``True``.
        is_causal: a hint that ``attn_mask`` is the causal mask (it is then required).

    Returns:
        ``(attn_output, attn_weights)``: ``(L, N, E)`` and ``(N, L, S)`` (per head
        ``(N, num_heads, L, S)``), or ``None`` for the weights when ``need_weights`` is False.
    """
    is_batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not is_batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]

    if key_padding_mask is not None and attn_mask is not None and key_padding_mask.dtype != attn_mask.dtype:
        warnings.warn(
            "Support for mismatched key_padding_mask and attn_mask is deprecated. Use same type for both instead.",
            stacklevel=2,
        )
    key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask", query.dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError(
            "Need attn_mask if specifying the is_causal hint. You may use the Transformer module method "
            "`generate_square_subsequent_mask` to create this mask."
        )
    if is_causal and key_padding_mask is None and not need_weights:
        # The hint is trusted: the causal mask is applied whatever attn_mask holds.
        attn_mask = oneflow.zeros((tgt_len, src_len), dtype=query.dtype, device=query.device).masked_fill(
            oneflow.ones((tgt_len, src_len), dtype=oneflow.bool, device=query.device).triu(1), float("-inf")
        )
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", query.dtype)

    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if tuple(key.shape[:2]) != tuple(value.shape[:2]):
            raise AssertionError(
                f"key's sequence and batch dims {tuple(key.shape[:2])} do not match value's {tuple(value.shape[:2])}"
            )
    elif tuple(key.shape) != tuple(value.shape):
        raise AssertionError(f"key shape {tuple(key.shape)} does not match value shape {tuple(value.shape)}")

    if not use_separate_proj_weight:
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        w_q, w_k, w_v = in_proj_weight.chunk(3)
    else:
        for name, w in (("q", q_proj_weight), ("k", k_proj_weight), ("v", v_proj_weight)):
            if w is None:
                raise AssertionError(f"use_separate_proj_weight is True but {name}_proj_weight is None")
        w_q, w_k, w_v = q_proj_weight, k_proj_weight, v_proj_weight
    b_q = b_k = b_v = None
    if in_proj_bias is not None:
        b_q, b_k, b_v = in_proj_bias.chunk(3)
    q = _C.ops.linear(query, w_q, b_q)
    k = _C.ops.linear(key, w_k, b_k)
    v = _C.ops.linear(value, w_v, b_v)

    if attn_mask is not None:
        if attn_mask.dim() == 2:
            if tuple(attn_mask.shape) != (tgt_len, src_len):
                raise RuntimeError(
                    f"The shape of the 2D attn_mask is {tuple(attn_mask.shape)}, but should be {(tgt_len, src_len)}."
                )
            attn_mask = attn_mask.unsqueeze(0)
        elif attn_mask.dim() == 3:
            if tuple(attn_mask.shape) != (bsz * num_heads, tgt_len, src_len):
                raise RuntimeError(
                    f"The shape of the 3D attn_mask is {tuple(attn_mask.shape)}, but should be "
                    f"{(bsz * num_heads, tgt_len, src_len)}."
                )
        else:
            raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")

    if bias_k is not None and bias_v is not None:
        if static_k is not None:
            raise AssertionError("bias cannot be added to static key.")
        if static_v is not None:
            raise AssertionError("bias cannot be added to static value.")
        k = oneflow.cat([k, bias_k.repeat(1, bsz, 1)])
        v = oneflow.cat([v, bias_v.repeat(1, bsz, 1)])
        if attn_mask is not None:
            attn_mask = _pad_last(attn_mask)
        if key_padding_mask is not None:
            key_padding_mask = _pad_last(key_padding_mask)
    elif bias_k is not None:
        raise AssertionError("bias_k is set but bias_v is None")
    elif bias_v is not None:
        raise AssertionError("bias_v is set but bias_k is None")

    # (seq, batch, E) -> (batch * heads, seq, head_dim)
    q = q.reshape(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    k = _static_or_split(static_k, k, "static_k", bsz * num_heads, head_dim)
    v = _static_or_split(static_v, v, "static_v", bsz * num_heads, head_dim)

    if add_zero_attn:
        zeros = oneflow.zeros((bsz * num_heads, 1, head_dim), dtype=k.dtype, device=k.device)
        k = oneflow.cat([k, zeros], dim=1)
        v = oneflow.cat([v, zeros], dim=1)
        if attn_mask is not None:
            attn_mask = _pad_last(attn_mask)
        if key_padding_mask is not None:
            key_padding_mask = _pad_last(key_padding_mask)

    src_len = k.shape[1]
    if key_padding_mask is not None:
        if tuple(key_padding_mask.shape) != (bsz, src_len):
            raise AssertionError(
                f"expecting key_padding_mask shape of {(bsz, src_len)}, but got {tuple(key_padding_mask.shape)}"
            )
        kpm = key_padding_mask.reshape(bsz, 1, 1, src_len).expand(bsz, num_heads, 1, src_len)
        kpm = kpm.reshape(bsz * num_heads, 1, src_len)
        attn_mask = kpm if attn_mask is None else attn_mask + kpm
    if not training:
        dropout_p = 0.0

    scores = oneflow.bmm(q * math.sqrt(1.0 / float(head_dim)), k.transpose(1, 2))
    if attn_mask is not None:
        scores = scores + attn_mask
    weights = _C.ops.softmax(scores, dim=-1)
    if dropout_p > 0.0:
        weights = oneflow.nn.functional.dropout(weights, p=dropout_p)
    out = oneflow.bmm(weights, v).transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
    out = _C.ops.linear(out, out_proj_weight, out_proj_bias).reshape(tgt_len, bsz, -1)
    if need_weights:
        weights = weights.reshape(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            weights = weights.mean(dim=1)
        if not is_batched:
            weights = weights.squeeze(0)
    else:
        weights = None
    if not is_batched:
        out = out.squeeze(1)
    return out, weights


def _static_or_split(static, t, name: str, rows: int, head_dim: int):
    if static is None:
        return t.reshape(t.shape[0], rows, head_dim).transpose(0, 1)
    if static.size(0) != rows:
        raise AssertionError(f"expecting {name}.size(0) of {rows}, but got {static.size(0)}")
    if static.size(2) != head_dim:
        raise AssertionError(f"expecting {name}.size(2) of {head_dim}, but got {static.size(2)}")
    return static
