"""Parity rows for embedding, embedding_renorm_ and one_hot (ops/defs/embedding.cc).

Indices come from a float input in (-2, 2) mapped to 0..7 inside the row (so every shape
gets its own indices); the weight has at least 8 rows.
"""

import random

import numpy as np
import pytest
import torch
from parity import OpCase, raises_like_torch, run_case

import oneflow as flow

FLOATS = ("float32", "float64")
ALL_FLOATS = ("float32", "float64", "float16", "bfloat16")

_rng = random.Random(3)
RANDOM = [((tuple(_rng.randint(1, 6) for _ in range(_rng.randint(1, 3)))), (_rng.randint(8, 12), _rng.randint(1, 6)))
          for _ in range(3)]
# (index source shape, weight shape)
SHAPES = [((2, 3), (10, 4)), ((7,), (8, 3)), ((), (9, 2)), ((0, 3), (8, 5)), ((3, 2, 2), (8, 0))] + RANDOM


def F(m):
    return m.nn.functional


def idx(m, s, dtype=None):
    """0..7 from values in (-2, 2)."""
    i = ((s.detach().float() + 2) * 2).floor().clamp(0, 7).long()
    return i if dtype is None else i.to(dtype)


def _emb(m, s, w, **kw):
    return F(m).embedding(idx(m, s), w, **kw)


def _renorm(m, s, w, max_norm, norm_type):
    w = w.detach() * 3
    out = F(m).embedding(idx(m, s), w, max_norm=max_norm, norm_type=norm_type)
    return out, w  # the rows looked up are renormalized in place


def _grad_of(m, f, w):
    y = f(w)
    r = m.arange(y.numel()).to(y.dtype).reshape(y.shape) / 7.0 - 0.5
    (g,) = m.autograd.grad((y * y * r).sum(), w, create_graph=True)
    return g


CASES = [
    OpCase(ops=("embedding",), fn=_emb, shapes=SHAPES, dtypes=ALL_FLOATS, no_grad_inputs=(0,)),
    OpCase(ops=("embedding",), name="embedding_int32_indices",
           fn=lambda m, s, w: F(m).embedding(idx(m, s, m.int32), w), shapes=SHAPES[:3], no_grad_inputs=(0,)),
    OpCase(ops=("embedding",), name="embedding_padding", fn=lambda m, s, w: _emb(m, s, w, padding_idx=3),
           shapes=SHAPES, no_grad_inputs=(0,)),
    OpCase(ops=("embedding",), name="embedding_negative_padding", fn=lambda m, s, w: _emb(m, s, w, padding_idx=-7),
           shapes=SHAPES[:3], no_grad_inputs=(0,)),
    OpCase(ops=("embedding",), name="embedding_scale_grad_by_freq",
           fn=lambda m, s, w: _emb(m, s, w, scale_grad_by_freq=True), shapes=SHAPES, no_grad_inputs=(0,)),
    OpCase(ops=("embedding",), name="embedding_freq_and_padding",
           fn=lambda m, s, w: _emb(m, s, w, padding_idx=2, scale_grad_by_freq=True), shapes=SHAPES[:3],
           no_grad_inputs=(0,)),
    OpCase(ops=("embedding",), name="embedding_aten",
           fn=lambda m, s, w: m.embedding(w, idx(m, s), 1, True, False), shapes=SHAPES[:3], no_grad_inputs=(0,)),
    OpCase(ops=("embedding",), name="embedding_int_weight", fn=_emb, shapes=SHAPES[:3], dtypes=("int64", "int32")),
    # (with scale_grad_by_freq torch's double backward leaves out the 1 / frequency factor of its
    # own first-order gradient; ours keeps it, so that combination is not compared)
    OpCase(ops=("embedding",), name="embedding_double_backward",
           fn=lambda m, s, w: _grad_of(m, lambda t: _emb(m, s, t, padding_idx=1), w),
           shapes=SHAPES[:2], dtypes=("float64",), no_grad_inputs=(0,)),
    # max_norm renormalizes the looked-up rows of the weight in place (no gradient through it).
    OpCase(ops=("embedding_renorm_",), fn=lambda m, s, w: _renorm(m, s, w, 1.0, 2.0), shapes=SHAPES[:3] + RANDOM,
           grad=False),
    OpCase(ops=("embedding_renorm_",), name="embedding_renorm_norms",
           fn=lambda m, s, w: (_renorm(m, s, w, 0.5, 1.0), _renorm(m, s, w, 2.0, 3.0),
                               _renorm(m, s, w, 0.7, float("inf"))),
           shapes=SHAPES[:2], grad=False),
    OpCase(ops=("embedding_renorm_",), name="embedding_renorm_direct",
           fn=lambda m, s, w: (m if m is torch else m._C.ops).embedding_renorm_(w.detach() * 2, idx(m, s), 1.5, 2.0), shapes=SHAPES[:2],
           grad=False),
    # one_hot
    OpCase(ops=("one_hot",), fn=lambda m, s: F(m).one_hot(idx(m, s)), shapes=[((2, 3),), ((5,),), ((),)]),
    OpCase(ops=("one_hot",), name="one_hot_classes", fn=lambda m, s: F(m).one_hot(idx(m, s), 10),
           shapes=[((2, 3),), ((0,),), ((4, 1, 2),)]),
    OpCase(ops=("one_hot",), name="one_hot_method", fn=lambda m, s: idx(m, s).one_hot(num_classes=8) if m is flow
           else F(m).one_hot(idx(m, s), num_classes=8), shapes=[((3, 2),)]),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_parity(case):
    if case.name == "embedding_renorm_norms":
        case = OpCase(ops=case.ops, name=case.name, shapes=case.shapes, grad=False,
                      fn=lambda m, s, w, f=case.fn: [t for pair in f(m, s, w) for t in pair])
    assert run_case(case) > 0


def test_embedding_backward_is_a_row_sum():
    w = flow.zeros(6, 3, requires_grad=True)
    i = flow.tensor([[1, 1, 4], [5, 1, 0]])
    g = flow.arange(18.0).reshape(2, 3, 3)
    F(flow).embedding(i, w).backward(g)
    expected = np.zeros((6, 3))
    for pos, row in enumerate(i.numpy().reshape(-1)):
        expected[row] += g.numpy().reshape(-1, 3)[pos]
    np.testing.assert_array_equal(w.grad.numpy(), expected)


def test_large_table_lookup_matches_torch():
    rng = np.random.default_rng(0)
    w = rng.standard_normal((5000, 64)).astype(np.float32)
    ids = rng.integers(0, 5000, size=(4, 128))
    g = rng.standard_normal((4, 128, 64)).astype(np.float32)
    results = []
    for m in (torch, flow):
        tw = m.tensor(w).requires_grad_()
        y = F(m).embedding(m.tensor(ids), tw)
        y.backward(m.tensor(g))
        results.append((y.detach().numpy(), tw.grad.numpy()))
    np.testing.assert_array_equal(results[0][0], results[1][0])
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-6, atol=1e-6)


def test_sparse_is_not_supported():
    with pytest.raises(NotImplementedError, match="sparse"):
        F(flow).embedding(flow.tensor([0, 1]), flow.ones(3, 2), sparse=True)


def test_errors():
    w = lambda m: m.ones(5, 3)
    msg = raises_like_torch(lambda m: F(m).embedding(m.tensor([0, 7]), w(m)))
    assert "embedding" in msg and "7" in msg and "[5, 3]" in msg and "index out of range" in msg
    msg = raises_like_torch(lambda m: F(m).embedding(m.tensor([[0, -1]]), w(m)))
    assert "embedding" in msg and "-1" in msg and "[5, 3]" in msg
    msg = raises_like_torch(lambda m: F(m).embedding(m.tensor([0.0, 1.0]), w(m)))
    assert "embedding" in msg and "indices" in msg and "float32" in msg
    msg = raises_like_torch(lambda m: F(m).embedding(m.tensor([0, 1]), m.ones(5)))
    assert "embedding" in msg and "2-D" in msg and "[5]" in msg
    msg = raises_like_torch(lambda m: F(m).embedding(m.tensor([0, 1]), w(m), padding_idx=5))
    assert "Padding_idx" in msg
    msg = raises_like_torch(lambda m: F(m).embedding(m.tensor([0, 1]), w(m), padding_idx=-6))
    assert "Padding_idx" in msg
    msg = raises_like_torch(lambda m: F(m).one_hot(m.tensor([0, 3]), 3))
    assert "one_hot" in msg and "smaller than num_classes" in msg and "3" in msg
    msg = raises_like_torch(lambda m: F(m).one_hot(m.tensor([0, -1]), 3))
    assert "one_hot" in msg and "non-negative" in msg and "-1" in msg
    msg = raises_like_torch(lambda m: F(m).one_hot(m.tensor([0.0, 1.0]), 3))
    assert "one_hot" in msg and "LongTensor" in msg
    msg = raises_like_torch(lambda m: F(m).one_hot(m.tensor([], dtype=m.int64)))
    assert "one_hot" in msg and "empty" in msg
