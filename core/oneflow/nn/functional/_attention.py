"""Attention with ``torch.nn.functional``'s signature (op: ops/defs/attention.cc).

``scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
is_causal=False, *, scale=None, enable_gqa=False)`` is the registry op itself,
listed here for ``from oneflow.nn.functional import *``.
"""

from oneflow import _C

__all__ = ["scaled_dot_product_attention"]

scaled_dot_product_attention = _C.ops.scaled_dot_product_attention
