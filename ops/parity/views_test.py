"""Parity rows for views, copies and conversions (ops/defs/views.cc)."""

import parity
import pytest
from parity import OpCase, run_case

ALL = ("float32", "float64", "int64", "bool")

CASES = [
    OpCase(ops=("view",), fn=lambda m, x: x.view(3, -1), shapes=[((2, 3, 4),), ((6, 4),)]),
    OpCase(ops=("view",), name="view_tuple", fn=lambda m, x: x.view((4, 6)), shapes=[((2, 3, 4),)], noncontiguous=False),
    OpCase(ops=("reshape",), fn=lambda m, x: m.reshape(x, (-1, 2)), shapes=[((2, 3, 4),), ((4, 3),)], dtypes=ALL),
    OpCase(ops=("flatten",), fn=lambda m, x: m.flatten(x, 1), shapes=[((2, 3, 4),), ((5,),)], dtypes=ALL),
    OpCase(ops=("squeeze",), fn=lambda m, x: x.squeeze(), shapes=[((2, 1, 3),), ((1,),), ((),)]),
    OpCase(ops=("squeeze",), name="squeeze_dim", fn=lambda m, x: x.squeeze(1), shapes=[((2, 1, 3),), ((2, 3, 1),)]),
    OpCase(ops=("unsqueeze",), fn=lambda m, x: m.unsqueeze(x, -1), shapes=[((2, 3),), ((),)], dtypes=ALL),
    OpCase(ops=("expand",), fn=lambda m, x: x.expand(4, 2, 3), shapes=[((2, 1),), ((1, 3),), ((),)]),
    OpCase(ops=("transpose",), fn=lambda m, x: m.transpose(x, 0, -1), shapes=[((2, 3, 4),), ((3, 5),)], dtypes=ALL),
    OpCase(ops=("t",), fn=lambda m, x: x.t(), shapes=[((3, 5),), ((4,),)]),
    OpCase(ops=("permute",), fn=lambda m, x: x.permute(2, 0, 1), shapes=[((2, 3, 4),)], dtypes=ALL),
    OpCase(ops=("narrow",), fn=lambda m, x: m.narrow(x, 1, 1, 2), shapes=[((2, 4),), ((3, 5, 2),)]),
    OpCase(ops=("narrow",), name="narrow_neg", fn=lambda m, x: x.narrow(0, -2, 2), shapes=[((4, 3),)]),
    OpCase(ops=("select",), fn=lambda m, x: m.select(x, 1, -1), shapes=[((2, 4),), ((3, 5, 2),)]),
    OpCase(ops=("slice",), fn=lambda m, x: x[:, 1::2], shapes=[((2, 5),), ((3, 6, 2),)]),
    OpCase(ops=("slice", "select", "unsqueeze"), name="getitem_mixed", fn=lambda m, x: x[1, None, ..., ::2],
           shapes=[((3, 4, 5),)]),
    OpCase(ops=("contiguous",), fn=lambda m, x: x.transpose(0, 1).contiguous(), shapes=[((2, 3),)], dtypes=ALL),
    OpCase(ops=("clone",), fn=lambda m, x: x.clone(), shapes=[((2, 3),), ((),)], dtypes=ALL),
    OpCase(ops=("_to_dtype",), fn=lambda m, x: x.double() * 2, shapes=[((2, 3),)], dtypes=("float32", "float16")),
    OpCase(ops=("_to_dtype",), name="to_int", fn=lambda m, x: x.to(m.int32), shapes=[((2, 3),)], grad=False),
    OpCase(ops=("fill_",), fn=lambda m, x: (x * 1).fill_(2.5) + x, shapes=[((2, 3),)]),
    OpCase(ops=("zero_",), fn=lambda m, x: (x * 1).zero_() + x * 3, shapes=[((2, 3),)]),
    OpCase(ops=("copy_",), fn=lambda m, x, y: (x * 1).copy_(y) * x, shapes=[((2, 3), (2, 3)), ((2, 3), (3,))]),
    OpCase(ops=("copy_",), name="setitem", fn=lambda m, x, y: _setitem(x * 1, y), shapes=[((3, 4), (4,))]),
]


def _setitem(x, y):
    x[1] = y
    return x


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_parity(case):
    assert run_case(case) > 0


_BF16_CAST_SCRIPT = r"""
import numpy as np, torch, oneflow as flow
rng = np.random.default_rng(0)
special = np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, -np.nan, 3.4028235e38, -3.4028235e38,
                    1e-40, -1e-40, 1.0039062, 1.0117188, 1.00390625 + 2**-20], dtype=np.float32)
bits = rng.integers(0, 2**32, 4099, dtype=np.uint64).astype(np.uint32).view(np.float32)  # NaN payloads too
for a in (special, bits, rng.standard_normal(100003).astype(np.float32)):
    back = flow.tensor(a).to(flow.bfloat16).float().numpy()  # bfloat16 -> float32 is exact
    theirs = torch.tensor(a).to(torch.bfloat16).float().numpy()
    nan = np.isnan(a)
    assert np.array_equal(back[~nan].view(np.uint32), theirs[~nan].view(np.uint32)), "rounding differs"
    assert np.isnan(back[nan]).all() and np.array_equal(np.signbit(back[nan]), np.signbit(a[nan]))
print("ok")
"""


@pytest.mark.parametrize("isa", parity.ISAS)
def test_float_to_bfloat16_cast_on_each_isa(isa):
    """The vectorized float32 -> bfloat16 conversion rounds to nearest even as torch does and keeps
    NaNs NaN (sign kept) with every instruction set's copy."""
    parity.assert_script_passes_on_isa(_BF16_CAST_SCRIPT, isa)
