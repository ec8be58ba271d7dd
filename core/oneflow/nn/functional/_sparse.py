"""Lookup tables with ``torch.nn.functional``'s signatures (ops: ops/defs/embedding.cc).

``embedding`` maps PyTorch's arguments onto the ``embedding`` op (weight first,
padding_idx=-1 for none), renormalizing the looked-up rows in place first when
``max_norm`` is given. Sparse gradients are not supported.
"""

from oneflow import _C

__all__ = ["embedding", "one_hot"]

one_hot = _C.ops.one_hot


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False, sparse=False):
    """Rows of ``weight`` at the indices in ``input``; the row at ``padding_idx`` gets no gradient."""
    if padding_idx is not None:
        if padding_idx > 0:
            if padding_idx >= weight.size(0):
                raise AssertionError("Padding_idx must be within num_embeddings")
        elif padding_idx < 0:
            if padding_idx < -weight.size(0):
                raise AssertionError("Padding_idx must be within num_embeddings")
            padding_idx = weight.size(0) + padding_idx
    else:
        padding_idx = -1
    if sparse:
        raise NotImplementedError("embedding: sparse=True (sparse gradients) is not supported; use sparse=False")
    if max_norm is not None:
        from oneflow.autograd import no_grad

        with no_grad():
            _C.ops.embedding_renorm_(weight, input.contiguous(), max_norm, norm_type)
    return _C.ops.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)
