"""Parity rows for linear and bilinear (ops/defs/linear_nn.cc)."""

import random

import pytest
import torch
from parity import OpCase, run_case

import oneflow as flow

FLOATS = ("float32", "float64")
HALF_TOL = {"rtol": 3e-2, "atol": 3e-2}

_rng = random.Random(2)


def _random_linear():
    batch = tuple(_rng.randint(1, 5) for _ in range(_rng.randint(0, 3)))
    i, o = _rng.randint(1, 9), _rng.randint(1, 9)
    return (batch + (i,), (o, i), (o,))


LINEAR = [((4, 3), (5, 3), (5,)), ((2, 3, 4), (6, 4), (6,)), ((3,), (2, 3), (2,)), ((0, 3), (4, 3), (4,)),
          ((2, 3), (0, 3), (0,)), ((2, 0), (3, 0), (3,)), ((5, 2, 3, 8), (7, 8), (7,))] + [_random_linear()
                                                                                       for _ in range(3)]
BILINEAR = [((4, 3), (4, 5), (6, 3, 5), (6,)), ((2, 3, 4), (2, 3, 2), (5, 4, 2), (5,)), ((3,), (2,), (4, 3, 2), (4,)),
            ((0, 3), (0, 2), (4, 3, 2), (4,))]


def F(m):
    return m.nn.functional


CASES = [
    OpCase(ops=("linear",), fn=lambda m, x, w, b: F(m).linear(x, w, b), shapes=LINEAR),
    OpCase(ops=("linear",), name="linear_no_bias", fn=lambda m, x, w: F(m).linear(x, w),
           shapes=[s[:2] for s in LINEAR]),
    OpCase(ops=("linear",), name="linear_half", fn=lambda m, x, w, b: F(m).linear(x, w, b), shapes=LINEAR[:3],
           dtypes=("float16", "bfloat16"), **HALF_TOL),
    OpCase(ops=("linear",), name="linear_vector_weight", fn=lambda m, x, w: F(m).linear(x, w),
           shapes=[((4, 3), (3,)), ((3,), (3,))]),
    OpCase(ops=("linear",), name="linear_2d_bias", fn=lambda m, x, w, b: F(m).linear(x, w, b),
           shapes=[((4, 3), (5, 3), (4, 5)), ((2, 4, 3), (5, 3), (4, 1))]),
    OpCase(ops=("linear",), name="linear_keywords", fn=lambda m, x, w, b: F(m).linear(input=x, weight=w, bias=b),
           shapes=LINEAR[:1]),
    OpCase(ops=("bilinear",), fn=lambda m, a, b, w, bias: F(m).bilinear(a, b, w, bias), shapes=BILINEAR),
    OpCase(ops=("bilinear",), name="bilinear_no_bias", fn=lambda m, a, b, w: F(m).bilinear(a, b, w),
           shapes=[s[:3] for s in BILINEAR]),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_parity(case):
    assert run_case(case) > 0


def _raises(fn):
    with pytest.raises(Exception) as theirs:
        fn(torch)
    with pytest.raises(Exception) as ours:
        fn(flow)
    assert type(ours.value).__name__ == type(theirs.value).__name__, (
        f"torch raised {type(theirs.value).__name__}: {theirs.value}; we raised {type(ours.value).__name__}: "
        f"{ours.value}")
    return str(ours.value)


def test_errors():
    msg = _raises(lambda m: F(m).linear(m.ones(3, 4), m.ones(5, 6)))
    assert "linear" in msg and "3x4" in msg and "6x5" in msg
    msg = _raises(lambda m: F(m).linear(m.ones(3, 4), m.ones(5, 4), m.ones(6)))
    assert "linear" in msg and "[6]" in msg and "[3, 5]" in msg
    msg = _raises(lambda m: F(m).linear(m.ones(3, 4), m.ones(5, 4).double()))
    assert "dtype" in msg
    msg = _raises(lambda m: F(m).bilinear(m.ones(3, 4), m.ones(3, 5), m.ones(6, 4, 6)))
    assert "bilinear" in msg and "input2" in msg and "5" in msg and "6" in msg
    msg = _raises(lambda m: F(m).bilinear(m.ones(3, 4), m.ones(2, 5), m.ones(6, 4, 5)))
    assert "bilinear" in msg and "batch" in msg and "3" in msg and "2" in msg
    msg = _raises(lambda m: F(m).bilinear(m.ones(3, 4), m.ones(3, 5), m.ones(6, 3, 5)))
    assert "bilinear" in msg and "input1" in msg
    msg = _raises(lambda m: F(m).bilinear(m.ones(3, 4), m.ones(3, 5), m.ones(6, 4, 5), m.ones(5)))
    assert "bilinear" in msg and "bias" in msg
