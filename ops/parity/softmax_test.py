"""Parity rows for softmax and log_softmax (ops/defs/softmax.cc) and F.softmax/F.log_softmax."""

import random
import warnings

import numpy as np
import pytest
import torch
from parity import OpCase, raises_like_torch, run_case

import oneflow as flow

FLOATS = ("float32", "float64")
ALL_FLOATS = ("float32", "float64", "float16", "bfloat16")

_rng = random.Random(1)
RANDOM = [(tuple(_rng.randint(1, 9) for _ in range(_rng.randint(1, 4))),) for _ in range(4)]
SHAPES = [((2, 3, 4),), ((5,),), ((3, 1),), ((0, 4),), ((2, 0),), ((1000,),), ((3, 700),)] + RANDOM
SCALAR = [((),)]


def F(m):
    return m.nn.functional


def _masked(m, x):
    """x with -inf wherever x > 1 (whole rows may be -inf)."""
    return x.masked_fill(x > 1.0, float("-inf"))


def _grad_of(m, f, x):
    y = f(x)
    w = m.arange(y.numel()).to(y.dtype).reshape(y.shape) / 7.0 - 0.5
    return m.autograd.grad((y * w).sum(), x, create_graph=True)[0]


CASES = []
for _op in ("softmax", "log_softmax"):
    CASES += [
        OpCase(ops=(_op,), name=f"{_op}_last", fn=lambda m, x, op=_op: getattr(m, op)(x, -1), shapes=SHAPES,
               dtypes=ALL_FLOATS),
        OpCase(ops=(_op,), name=f"{_op}_dim0", fn=lambda m, x, op=_op: getattr(F(m), op)(x, dim=0),
               shapes=SHAPES[:5] + [((300, 5),)] + RANDOM, dtypes=ALL_FLOATS),
        OpCase(ops=(_op,), name=f"{_op}_middle", fn=lambda m, x, op=_op: getattr(x, op)(1),
               shapes=[((2, 3, 4),), ((2, 5, 300),), ((4, 2, 2, 3),), ((2, 0, 3),)], dtypes=FLOATS),
        OpCase(ops=(_op,), name=f"{_op}_scalar", fn=lambda m, x, op=_op: getattr(m, op)(x, 0), shapes=SCALAR),
        OpCase(ops=(_op,), name=f"{_op}_dtype", fn=lambda m, x, op=_op: getattr(F(m), op)(x, -1, dtype=m.float64),
               shapes=SHAPES[:3], dtypes=("float32", "float16", "int64")),
        OpCase(ops=(_op,), name=f"{_op}_half_to_float",
               fn=lambda m, x, op=_op: getattr(m, op)(x, 1, dtype=m.float32), shapes=SHAPES[:2],
               dtypes=("float16", "bfloat16")),
        OpCase(ops=(_op,), name=f"{_op}_large", fn=lambda m, x, op=_op: getattr(m, op)(x, -1),
               shapes=SHAPES[:3], domain=(-300.0, 300.0)),
        OpCase(ops=(_op,), name=f"{_op}_neg_inf", fn=lambda m, x, op=_op: getattr(m, op)(_masked(m, x), -1),
               shapes=[((6, 3),), ((4, 40),)], grad=False),
        OpCase(ops=(_op,), name=f"{_op}_int_input", fn=lambda m, x, op=_op: getattr(m, op)(x, -1),
               shapes=SHAPES[:2], dtypes=("int64",)),
        OpCase(ops=(_op,), name=f"{_op}_double_backward",
               fn=lambda m, x, op=_op: _grad_of(m, lambda t: getattr(m, op)(t, -1), x), shapes=SHAPES[:3],
               dtypes=("float64",)),
    ]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_parity(case):
    assert run_case(case) > 0


@pytest.mark.parametrize("ndim", [0, 1, 2, 3, 4])
def test_implicit_dim_follows_torch_legacy_rule(ndim):
    data = np.random.default_rng(ndim).standard_normal((2, 3, 4, 5)[:ndim])
    for name in ("softmax", "log_softmax"):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            ours = getattr(F(flow), name)(flow.tensor(data))
        assert any("called without dim" in str(w.message) for w in caught)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            theirs = getattr(F(torch), name)(torch.tensor(data))
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12, atol=1e-12)


def test_rows_sum_to_one_and_large_rows():
    x = flow.tensor(np.random.default_rng(0).standard_normal((3, 100000)).astype(np.float32) * 30)
    s = F(flow).softmax(x, dim=1)
    np.testing.assert_allclose(s.sum(1).numpy(), np.ones(3), rtol=1e-5)
    np.testing.assert_allclose(s.numpy(), torch.softmax(torch.tensor(x.numpy()), 1).numpy(), rtol=1e-5, atol=1e-9)


def test_grad_fn_names_match_torch():
    def names(m):
        x = m.ones(2, 3, requires_grad=True)
        return [m.softmax(x, 1).grad_fn.name(), m.log_softmax(x, 1).grad_fn.name()]

    ours, theirs = names(flow), names(torch)
    assert [n.replace("Backward0", "") for n in ours] == [n.replace("Backward0", "").lstrip("_") for n in theirs]


def test_errors():
    msg = raises_like_torch(lambda m: m.softmax(m.ones(2, 3), 2), allow_subclass=True)
    assert "range" in msg and "2" in msg
    msg = raises_like_torch(lambda m: F(m).log_softmax(m.ones(2, 3), -3), allow_subclass=True)
    assert "range" in msg and "-3" in msg
    msg = raises_like_torch(lambda m: m.softmax(m.ones(2, 3, dtype=m.int64), 1), allow_subclass=True)
    assert "softmax" in msg and "int64" in msg and "[2, 3]" in msg
