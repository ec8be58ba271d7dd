"""Parity rows for cosine_similarity, pairwise_distance and normalize (ops/defs/distance.cc) through
``nn.functional``: dims, broadcasting, norms, eps at zero vectors, values and gradients; bad input."""

import numpy as np
import pytest
import torch
from parity import OpCase, run_case

import oneflow as flow


def F(m):
    return m.nn.functional


PAIRS = [((4, 5), (4, 5)), ((3, 4), (4,)), ((2, 1, 3), (4, 3)), ((6,), (6,)), ((0, 3), (0, 3))]

CASES = [
    OpCase(ops=("cosine_similarity",), fn=lambda m, a, b: F(m).cosine_similarity(a, b), shapes=PAIRS[:3] + PAIRS[4:]),
    OpCase(ops=("cosine_similarity",), name="cosine_similarity_dim0",
           fn=lambda m, a, b: F(m).cosine_similarity(a, b, dim=0), shapes=PAIRS),
    OpCase(ops=("cosine_similarity",), name="cosine_similarity_last_dim",
           fn=lambda m, a, b: F(m).cosine_similarity(a, b, -1, 1e-3), shapes=PAIRS),
    OpCase(ops=("cosine_similarity",), name="cosine_similarity_scalars",
           fn=lambda m, a, b: F(m).cosine_similarity(a, b, dim=0), shapes=[((), ())]),
    # A zero vector: the norm is clamped at eps but its gradient is the unclamped norm's.
    OpCase(ops=("cosine_similarity",), name="cosine_similarity_zero_vector",
           fn=lambda m, a, b: F(m).cosine_similarity(a * m.tensor([[0.0], [1.0]]).to(a.dtype), b), shapes=[((2, 3), (2, 3))]),
    OpCase(ops=("cosine_similarity",), name="cosine_similarity_function", fn=lambda m, a, b: m.cosine_similarity(a, b),
           shapes=PAIRS[:1]),
    OpCase(ops=("cosine_similarity",), name="cosine_similarity_half", fn=lambda m, a, b: F(m).cosine_similarity(a, b),
           shapes=PAIRS[:1], dtypes=("bfloat16",)),
    OpCase(ops=("pairwise_distance",), fn=lambda m, a, b: F(m).pairwise_distance(a, b), shapes=PAIRS),
    *[OpCase(ops=("pairwise_distance",), name=f"pairwise_distance_p{p}",
             fn=lambda m, a, b, p=p: F(m).pairwise_distance(a, b, p=p, keepdim=True), shapes=PAIRS[:4])
      for p in (1, 1.5, 3, float("inf"))],
    OpCase(ops=("pairwise_distance",), name="pairwise_distance_eps",
           fn=lambda m, a, b: F(m).pairwise_distance(a, b, 2.0, 0.5), shapes=PAIRS[:2]),
    OpCase(ops=("pairwise_distance",), name="pairwise_distance_scalars",
           fn=lambda m, a, b: F(m).pairwise_distance(a, b), shapes=[((), ()), ((), (3,))]),
    OpCase(ops=("pairwise_distance",), name="pairwise_distance_int", fn=lambda m, a, b: F(m).pairwise_distance(a, b),
           shapes=PAIRS[:1], dtypes=("int64",)),
    OpCase(ops=("normalize",), fn=lambda m, x: F(m).normalize(x), shapes=[((4, 5),), ((2, 3, 4),), ((0, 3),)]),
    *[OpCase(ops=("normalize",), name=f"normalize_p{p}_dim{d}", fn=lambda m, x, p=p, d=d: F(m).normalize(x, p, d),
             shapes=[((4, 5),), ((2, 3, 4),)]) for p in (1.0, 3.0) for d in (0, -1)],
    OpCase(ops=("normalize",), name="normalize_1d", fn=lambda m, x: F(m).normalize(x, dim=0), shapes=[((6,),)]),
    OpCase(ops=("normalize",), name="normalize_eps",
           fn=lambda m, x: F(m).normalize(x * m.tensor([[0.0], [1.0]]).to(x.dtype), eps=1e-3), shapes=[((2, 3),)]),
    # Refusals: torch raises, we must raise the same type.
    OpCase(ops=("cosine_similarity",), name="cosine_similarity_shapes", fn=lambda m, a, b: F(m).cosine_similarity(a, b),
           shapes=[((3, 4), (3, 5))]),
    OpCase(ops=("cosine_similarity",), name="cosine_similarity_int", fn=lambda m, a, b: F(m).cosine_similarity(a, b),
           shapes=[((3, 4), (3, 4))], dtypes=("int64",)),
    OpCase(ops=("normalize",), name="normalize_int", fn=lambda m, x: F(m).normalize(x), shapes=[((3, 4),)],
           dtypes=("int64",)),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_parity(case):
    assert run_case(case) > 0


def test_case_names_are_unique():
    names = [c.name for c in CASES]
    assert len(names) == len(set(names))


def test_double_backward():
    rng = np.random.default_rng(3)
    a, b, v = rng.uniform(-1, 1, (3, 4)), rng.uniform(-1, 1, (3, 4)), rng.uniform(-1, 1, (3, 4))
    for fn in (lambda m, x, y: F(m).cosine_similarity(x, y).sum(),
               lambda m, x, y: F(m).pairwise_distance(x, y, p=3).sum(),
               lambda m, x, y: (F(m).normalize(x) * y).sum()):
        outs = []
        for m in (flow, torch):
            x, y = m.tensor(a, requires_grad=True), m.tensor(b)
            (gx,) = m.autograd.grad(fn(m, x, y), [x], create_graph=True)
            (ggx,) = m.autograd.grad((gx * m.tensor(v)).sum(), [x])
            outs.append(ggx.detach().numpy())
        np.testing.assert_allclose(outs[0], outs[1], rtol=1e-8, atol=1e-10)


ERRORS = [
    # (name, fn(m), exception type name, words our message must contain)
    ("cosine_similarity_shapes", lambda m: F(m).cosine_similarity(m.ones(3, 4), m.ones(3, 5)), "RuntimeError",
     ["cosine_similarity", "[3, 4]", "[3, 5]"]),
    ("cosine_similarity_dim", lambda m: F(m).cosine_similarity(m.ones(3, 4), m.ones(3, 4), dim=2), "IndexError",
     ["range", "2"]),
    ("cosine_similarity_int", lambda m: F(m).cosine_similarity(m.ones(3, dtype=m.int64), m.ones(3, dtype=m.int64), 0),
     "RuntimeError", ["cosine_similarity", "floating point"]),
    ("pairwise_distance_shapes", lambda m: F(m).pairwise_distance(m.ones(3, 4), m.ones(3, 5)), "RuntimeError",
     ["[3, 4]", "[3, 5]"]),
    ("normalize_dim", lambda m: F(m).normalize(m.ones(3, 4), dim=2), "IndexError", ["range", "2"]),
]


@pytest.mark.parametrize("name, fn, kind, words", ERRORS, ids=[e[0] for e in ERRORS])
def test_errors(name, fn, kind, words):
    with pytest.raises(Exception) as theirs:
        fn(torch)
    assert type(theirs.value).__name__ == kind
    with pytest.raises(Exception) as ours:
        fn(flow)
    assert type(ours.value).__name__ == kind, f"we raised {type(ours.value).__name__}: {ours.value}"
    for w in words:
        assert w in str(ours.value), f"{w!r} not in {ours.value!r}"
