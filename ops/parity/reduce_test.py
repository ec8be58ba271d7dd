"""Parity rows for reductions (ops/defs/reduce.cc)."""

import pytest
from parity import OpCase, run_case

SHAPES = [((2, 3, 4),), ((5,),), ((),), ((0, 3),), ((3, 1),)]
NUMERIC = ("float32", "float64", "int64", "int32")

CASES = [
    OpCase(ops=("sum",), fn=lambda m, x: x.sum(), shapes=SHAPES, dtypes=NUMERIC + ("bool",)),
    OpCase(ops=("sum",), name="sum_dim", fn=lambda m, x: m.sum(x, -1), shapes=[s for s in SHAPES if s[0]], dtypes=NUMERIC),
    OpCase(ops=("sum",), name="sum_dims_keepdim", fn=lambda m, x: x.sum((0, 2), keepdim=True),
           shapes=[((2, 3, 4),), ((1, 2, 0),)]),
    OpCase(ops=("sum",), name="sum_dtype", fn=lambda m, x: x.sum(dtype=m.float64), shapes=SHAPES[:2]),
    OpCase(ops=("mean",), fn=lambda m, x: x.mean(), shapes=SHAPES[:3]),
    OpCase(ops=("mean",), name="mean_dim", fn=lambda m, x: m.mean(x, (0, 1)), shapes=[((2, 3, 4),), ((3, 1),)]),
    OpCase(ops=("mean",), name="mean_int_refused", fn=lambda m, x: x.mean(), shapes=SHAPES[:1], dtypes=("int64",)),
    OpCase(ops=("sum_to_size",), fn=lambda m, x: x.sum_to_size(3, 1), shapes=[((2, 3, 4),), ((3, 4),)]),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_parity(case):
    assert run_case(case) > 0
