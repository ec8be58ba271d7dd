"""Parity rows for clamp, lerp, addcmul and addcdiv (ops/defs/ternary.cc; `where` has its
rows in elementwise_test.py)."""

import numpy as np
import pytest
import torch
from parity import OpCase, run_case

import oneflow as flow

FLOATS = ("float32", "float64")
NUMERIC = ("float32", "float64", "int64", "int32")
HALF = ("float16", "bfloat16")

UNARY_SHAPES = [((2, 3),), ((),), ((0, 4),), ((3, 1, 2),)]
# (self, a, b): equal shapes, broadcasting on every side, an output larger than
# self (functional only), empty.
TERNARY_SHAPES = [((2, 3), (2, 3), (2, 3)), ((2, 3), (3,), ()), ((2, 1), (1, 3), (2, 3)), ((), (2, 3), ()),
                  ((0, 3), (3,), (1, 3)), ((3, 1, 2), (2,), (3, 1, 1))]
BINARY_SHAPES = [((2, 3), (2, 3)), ((2, 3), (3,)), ((2, 1), (1, 3)), ((), (2, 3)), ((0, 3), (3,))]


def inplace_shapes(shapes):
    """Rows whose broadcast shape is self's (in-place ops keep self's shape)."""
    out = []
    for s in shapes:
        full = np.broadcast_shapes(*s)
        if tuple(s[0]) == tuple(full):
            out.append(s)
    return out


CASES = [
    # clamp with Python numbers (Scalar bounds): both, one side, min > max; type promotion.
    OpCase(ops=("clamp",), fn=lambda m, x: m.clamp(x, -0.5, 0.5), shapes=UNARY_SHAPES, dtypes=FLOATS + HALF),
    OpCase(ops=("clamp",), name="clamp_int", fn=lambda m, x: m.clamp(x, -2, 3), shapes=UNARY_SHAPES,
           dtypes=NUMERIC + ("int8", "uint8")),
    OpCase(ops=("clamp",), name="clamp_min_only", fn=lambda m, x: m.clamp(x, min=0.25), shapes=UNARY_SHAPES,
           dtypes=FLOATS),
    OpCase(ops=("clamp",), name="clamp_max_only", fn=lambda m, x: x.clamp(max=-0.25), shapes=UNARY_SHAPES,
           dtypes=FLOATS),
    OpCase(ops=("clamp",), name="clamp_inverted", fn=lambda m, x: m.clamp(x, 1.0, -1.0), shapes=UNARY_SHAPES,
           dtypes=FLOATS),
    OpCase(ops=("clamp",), name="clamp_int_float_bound", fn=lambda m, x: m.clamp(x, min=0.5), shapes=UNARY_SHAPES,
           dtypes=("int64", "int32")),
    OpCase(ops=("clamp",), name="clamp_bool", fn=lambda m, x: m.clamp(x, min=0), shapes=UNARY_SHAPES[:2],
           dtypes=("bool",)),
    OpCase(ops=("clamp",), name="clamp_none", fn=lambda m, x: m.clamp(x), shapes=UNARY_SHAPES[:1]),
    # Gradients at the boundaries: integer-valued floats hit min and max exactly.
    OpCase(ops=("clamp",), name="clamp_boundaries", fn=lambda m, x: m.clamp(x.round(), -1.0, 1.0),
           shapes=UNARY_SHAPES, dtypes=FLOATS),
    # clamp with tensor bounds: broadcasting, gradients to the bounds.
    # (PyTorch's backward fails for a 0-dim self with both bounds larger: values only there)
    OpCase(ops=("clamp",), name="clamp_tensor", fn=lambda m, x, lo, hi: m.clamp(x, lo, hi),
           shapes=[s for s in TERNARY_SHAPES if s[0] != ()], dtypes=NUMERIC),
    OpCase(ops=("clamp",), name="clamp_tensor_0dim_self", fn=lambda m, x, lo, hi: m.clamp(x, lo, hi),
           shapes=[((), (2, 3), ())], dtypes=NUMERIC, grad=False),
    OpCase(ops=("clamp",), name="clamp_tensor_min", fn=lambda m, x, lo: m.clamp(x, min=lo), shapes=BINARY_SHAPES,
           dtypes=NUMERIC),
    OpCase(ops=("clamp",), name="clamp_tensor_max", fn=lambda m, x, hi: m.clamp(x, max=hi), shapes=BINARY_SHAPES,
           dtypes=NUMERIC),
    OpCase(ops=("clamp",), name="clamp_tensor_boundaries",
           fn=lambda m, x, lo, hi: m.clamp(x.round(), lo.round(), hi.round()), shapes=TERNARY_SHAPES[:3],
           dtypes=FLOATS, domain=(-1.5, 1.5)),
    OpCase(ops=("clamp",), name="clamp_tensor_half", fn=lambda m, x, lo, hi: m.clamp(x, lo, hi),
           shapes=TERNARY_SHAPES[:3], dtypes=HALF),
    # A float bound promotes an integer self; a 0-dim tensor bound counts as a number.
    OpCase(ops=("clamp",), name="clamp_tensor_promotes", fn=lambda m, x, lo: m.clamp(x.to(m.int64), min=lo),
           shapes=BINARY_SHAPES, dtypes=("float32", "float64")),
    OpCase(ops=("clamp_",), fn=lambda m, x: x.clone().clamp_(-0.5, 0.5), shapes=UNARY_SHAPES,
           dtypes=NUMERIC),
    OpCase(ops=("clamp_",), name="clamp__tensor", fn=lambda m, x, lo, hi: x.clone().clamp_(lo, hi),
           shapes=inplace_shapes(TERNARY_SHAPES) + [((), (2, 3), ())], dtypes=NUMERIC),
    # An integer tensor cannot take a float result in place.
    OpCase(ops=("clamp_",), name="clamp__int_float_bound", fn=lambda m, x: x.clone().clamp_(min=0.5),
           shapes=UNARY_SHAPES[:1], dtypes=("int64",)),
    OpCase(ops=("clamp_min",), fn=lambda m, x, lo: m.clamp_min(x, lo), shapes=BINARY_SHAPES, dtypes=NUMERIC),
    OpCase(ops=("clamp_min",), name="clamp_min_scalar", fn=lambda m, x: x.clamp_min(0.5), shapes=UNARY_SHAPES),
    OpCase(ops=("clamp_max",), fn=lambda m, x, hi: m.clamp_max(x, hi), shapes=BINARY_SHAPES, dtypes=NUMERIC),
    OpCase(ops=("clamp_max",), name="clamp_max_scalar", fn=lambda m, x: m.clamp_max(x, -0.5), shapes=UNARY_SHAPES),
    OpCase(ops=("clamp_min_",), fn=lambda m, x, lo: x.clone().clamp_min_(lo), shapes=inplace_shapes(BINARY_SHAPES),
           dtypes=NUMERIC),
    OpCase(ops=("clamp_max_",), fn=lambda m, x: x.clone().clamp_max_(0.5), shapes=UNARY_SHAPES, dtypes=NUMERIC),
    # lerp: Python-number weights on both sides of 0.5 (two formulas), tensor weights.
    OpCase(ops=("lerp",), fn=lambda m, a, b: m.lerp(a, b, 0.3), shapes=BINARY_SHAPES, dtypes=FLOATS + HALF),
    OpCase(ops=("lerp",), name="lerp_scalar_high", fn=lambda m, a, b: a.lerp(b, 0.8), shapes=BINARY_SHAPES),
    OpCase(ops=("lerp",), name="lerp_tensor", fn=lambda m, a, b, w: m.lerp(a, b, w), shapes=TERNARY_SHAPES,
           dtypes=FLOATS + HALF),
    OpCase(ops=("lerp",), name="lerp_0dim_weight", fn=lambda m, a, b, w: m.lerp(a, b, w.double()),
           shapes=[((2, 3), (2, 3), ())], dtypes=("float32",)),
    OpCase(ops=("lerp",), name="lerp_int", fn=lambda m, a, b: m.lerp(a, b, 0.5), shapes=BINARY_SHAPES[:1],
           dtypes=("int64",)),
    OpCase(ops=("lerp",), name="lerp_dtype_mismatch", fn=lambda m, a, b: m.lerp(a, b.double(), 0.5),
           shapes=BINARY_SHAPES[:1], dtypes=("float32",)),
    OpCase(ops=("lerp",), name="lerp_weight_dtype_mismatch", fn=lambda m, a, b, w: m.lerp(a, b, w.double()),
           shapes=TERNARY_SHAPES[:1], dtypes=("float32",)),
    OpCase(ops=("lerp_",), fn=lambda m, a, b: a.clone().lerp_(b, 0.7), shapes=inplace_shapes(BINARY_SHAPES)),
    OpCase(ops=("lerp_",), name="lerp__tensor", fn=lambda m, a, b, w: a.clone().lerp_(b, w),
           shapes=inplace_shapes(TERNARY_SHAPES) + [((), (2, 3), ())]),
    # addcmul / addcdiv: promotion over the three tensors, value cast to the result dtype.
    OpCase(ops=("addcmul",), fn=lambda m, s, a, b: m.addcmul(s, a, b), shapes=TERNARY_SHAPES,
           dtypes=NUMERIC + HALF),
    OpCase(ops=("addcmul",), name="addcmul_value", fn=lambda m, s, a, b: m.addcmul(s, a, b, value=-2.5),
           shapes=TERNARY_SHAPES, dtypes=FLOATS),
    OpCase(ops=("addcmul",), name="addcmul_int_value", fn=lambda m, s, a, b: s.addcmul(a, b, value=3),
           shapes=TERNARY_SHAPES, dtypes=("int64",)),
    OpCase(ops=("addcmul",), name="addcmul_promotes", fn=lambda m, s, a, b: m.addcmul(s.to(m.int64), a, b, value=0.5),
           shapes=TERNARY_SHAPES[:3], dtypes=FLOATS),
    OpCase(ops=("addcmul",), name="addcmul_bool", fn=lambda m, s, a, b: m.addcmul(s, a, b),
           shapes=TERNARY_SHAPES[:1], dtypes=("bool",)),
    OpCase(ops=("addcmul_",), fn=lambda m, s, a, b: s.clone().addcmul_(a, b, value=0.5),
           shapes=inplace_shapes(TERNARY_SHAPES) + [((), (2, 3), ())], dtypes=NUMERIC),
    OpCase(ops=("addcdiv",), fn=lambda m, s, a, b: m.addcdiv(s, a, b, value=1.5), shapes=TERNARY_SHAPES,
           dtypes=FLOATS + HALF, domain=(0.5, 2.0)),
    OpCase(ops=("addcdiv",), name="addcdiv_negative", fn=lambda m, s, a, b: m.addcdiv(s, a, -b),
           shapes=TERNARY_SHAPES, dtypes=FLOATS, domain=(0.5, 2.0)),
    OpCase(ops=("addcdiv",), name="addcdiv_int", fn=lambda m, s, a, b: m.addcdiv(s, a, b), shapes=TERNARY_SHAPES[:1],
           dtypes=("int64",), int_domain=(1, 5)),
    OpCase(ops=("addcdiv",), name="addcdiv_int_self", fn=lambda m, s, a, b: m.addcdiv(s.to(m.int64), a, b),
           shapes=TERNARY_SHAPES[:3], dtypes=FLOATS, domain=(0.5, 2.0)),
    OpCase(ops=("addcdiv_",), fn=lambda m, s, a, b: s.clone().addcdiv_(a, b, value=-0.5),
           shapes=inplace_shapes(TERNARY_SHAPES) + [((), (2, 3), ())], dtypes=FLOATS, domain=(0.5, 2.0)),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_parity(case):
    assert run_case(case) > 0


def test_clamp_nan_propagates():
    nan = float("nan")
    for m in (flow, torch):
        x = m.tensor([0.0, nan, 2.0, 3.0])
        lo = m.tensor([1.0, 1.0, nan, 1.0])
        np.testing.assert_array_equal(m.clamp(x, lo).numpy(), np.array([1.0, nan, nan, 3.0], dtype=np.float32))
        np.testing.assert_array_equal(m.clamp(x, min=nan).numpy(), np.full(4, nan, dtype=np.float32))
        np.testing.assert_array_equal(m.clamp(x, 0.5, 1.0).numpy(), np.array([0.5, nan, 1.0, 1.0], dtype=np.float32))


def test_clamp_gradient_at_boundaries_and_inverted_bounds():
    for m in (flow, torch):
        x = m.tensor([0.0, 1.0, 2.0, 3.0], requires_grad=True)
        m.clamp(x, 1, 2).sum().backward()
        np.testing.assert_array_equal(x.grad.numpy(), [0, 1, 1, 0])
        x = m.tensor([0.0, 1.0, 2.0, 3.0], requires_grad=True)
        lo = m.tensor([3.0, 3.0, 3.0, 3.0], requires_grad=True)
        hi = m.tensor([2.0, 2.0, 2.0, 2.0], requires_grad=True)
        m.clamp(x, lo, hi).sum().backward()
        np.testing.assert_array_equal(x.grad.numpy(), [0, 0, 0, 0])
        np.testing.assert_array_equal(lo.grad.numpy(), [0, 0, 0, 0])
        np.testing.assert_array_equal(hi.grad.numpy(), [1, 1, 1, 1])


def test_where_still_works():
    c = flow.tensor([True, False, True])
    np.testing.assert_array_equal(flow.where(c, flow.ones(3), flow.zeros(3)).numpy(), [1, 0, 1])
