"""Parity rows for the matrix products (ops/defs/linalg.cc)."""

import numpy as np
import parity
import pytest
import torch
from parity import OpCase, run_case

import oneflow as flow

FLOATS = ("float32", "float64")
NUMERIC = ("float32", "float64", "int64")
HALF = ("float16", "bfloat16")

MATMUL_SHAPES = [
    # 2-D @ 2-D, and the 1-D cases: dot, matrix @ vector, vector @ matrix.
    ((3, 4), (4, 5)),
    ((4,), (4,)),
    ((3, 4), (4,)),
    ((4,), (4, 5)),
    # Batched, with broadcast batch dims (including size-1 ones) on either side.
    ((2, 3, 4), (4, 5)),
    ((3, 4), (2, 4, 5)),
    ((2, 3, 4), (2, 4, 5)),
    ((2, 1, 3, 4), (5, 4, 2)),
    ((1, 3, 4), (2, 1, 4, 5)),
    ((4,), (2, 4, 5)),
    ((2, 3, 4), (4,)),
    ((2, 2, 3, 4), (4,)),
    # Empty dims: k == 0 gives zeros.
    ((2, 0), (0, 3)),
    ((0, 3), (3, 2)),
    ((2, 3), (3, 0)),
    ((0,), (0,)),
    ((2, 0, 3), (3, 4)),
    # Larger than one register tile / cache block (float64 and int64 take our
    # own blocked loop, float32 oneDNN's sgemm).
    ((37, 70), (70, 45)),
    ((2, 50), (50, 30)),
    ((100, 300), (300, 1030)),
    # Errors: inner dims, batch dims that do not broadcast, 0-D operands.
    ((2, 3), (4, 5)),
    ((3,), (4,)),
    ((3, 2, 3), (2, 3, 5)),
    ((), (3,)),
]

MM_SHAPES = [((3, 4), (4, 5)), ((1, 1), (1, 1)), ((2, 0), (0, 3)), ((0, 4), (4, 2)), ((2, 3), (4, 5)), ((3,), (3, 4)),
             ((2, 3, 4), (4, 5))]
BMM_SHAPES = [((2, 3, 4), (2, 4, 5)), ((1, 1, 1), (1, 1, 1)), ((0, 3, 4), (0, 4, 2)), ((2, 3, 0), (2, 0, 4)),
              ((2, 3, 4), (3, 4, 5)), ((2, 3, 4), (2, 5, 4)), ((3, 4), (4, 5))]
ADDMM_SHAPES = [((3, 5), (3, 4), (4, 5)), ((5,), (3, 4), (4, 5)), ((3, 1), (3, 4), (4, 5)), ((), (3, 4), (4, 5)),
                ((3, 5), (3, 0), (0, 5)), ((0, 5), (0, 4), (4, 5)),
                # self must expand to the product's shape
                ((4,), (3, 4), (4, 5)), ((2, 3, 5), (3, 4), (4, 5)), ((3, 5), (3, 4), (3, 5))]
BADDBMM_SHAPES = [((2, 3, 5), (2, 3, 4), (2, 4, 5)), ((5,), (2, 3, 4), (2, 4, 5)), ((3, 1), (2, 3, 4), (2, 4, 5)),
                  ((), (2, 3, 4), (2, 4, 5)), ((2, 3, 5), (2, 3, 0), (2, 0, 5)), ((4,), (2, 3, 4), (2, 4, 5)),
                  ((2, 3, 5), (2, 3, 4), (3, 4, 5))]
MV_SHAPES = [((3, 4), (4,)), ((0, 4), (4,)), ((3, 0), (0,)), ((60, 70), (70,)), ((3, 4), (5,)), ((4,), (4,)),
             ((3, 4), (4, 1))]
DOT_SHAPES = [((4,), (4,)), ((0,), (0,)), ((1000,), (1000,)), ((3,), (4,)), ((3,), (3, 1))]
OUTER_SHAPES = [((3,), (4,)), ((0,), (4,)), ((1,), (1,)), ((3, 1), (4,))]


def inplace_shapes(shapes):
    """Rows whose self already has the product's shape (in-place needs that)."""
    return [s for s in shapes if len(s[0]) == len(s[1]) and s[0][-1] == s[2][-1] and s[0][-2] == s[1][-2]
            and s[1][-1] == s[2][-2]]


CASES = [
    OpCase(ops=("matmul",), fn=lambda m, a, b: m.matmul(a, b), shapes=MATMUL_SHAPES, dtypes=NUMERIC,
           rtol=1e-4, atol=1e-4),
    OpCase(ops=("matmul",), name="matmul_operator", fn=lambda m, a, b: a @ b, shapes=MATMUL_SHAPES[:12]),
    OpCase(ops=("matmul",), name="matmul_half", fn=lambda m, a, b: m.matmul(a, b), shapes=MATMUL_SHAPES[:12],
           dtypes=HALF),
    OpCase(ops=("matmul",), name="matmul_small_ints", fn=lambda m, a, b: m.matmul(a, b), shapes=MATMUL_SHAPES[:12],
           dtypes=("int32", "int16", "int8", "uint8")),
    # Transposed, expanded and strided views go in without copies.
    OpCase(ops=("matmul",), name="matmul_views", fn=lambda m, a, b: m.matmul(a.t(), b[:, ::2].expand(3, 4, 3)),
           shapes=[((4, 3), (4, 6))], dtypes=NUMERIC),
    OpCase(ops=("matmul",), name="matmul_dtype_mismatch", fn=lambda m, a, b: m.matmul(a, b.double()),
           shapes=[((3, 4), (4, 5))], dtypes=("float32",)),
    OpCase(ops=("matmul",), name="matmul_bool", fn=lambda m, a, b: m.matmul(a, b), shapes=[((3, 4), (4, 5))],
           dtypes=("bool",)),
    OpCase(ops=("mm",), fn=lambda m, a, b: m.mm(a, b), shapes=MM_SHAPES, dtypes=NUMERIC + HALF),
    OpCase(ops=("mm",), name="mm_transposed", fn=lambda m, a, b: m.mm(a.t(), b.t()), shapes=[((4, 3), (5, 4))],
           dtypes=NUMERIC),
    OpCase(ops=("mm",), name="mm_dtype_mismatch", fn=lambda m, a, b: m.mm(a, b.double()),
           shapes=[((3, 4), (4, 5))], dtypes=("float32",)),
    OpCase(ops=("bmm",), fn=lambda m, a, b: m.bmm(a, b), shapes=BMM_SHAPES, dtypes=NUMERIC + HALF),
    OpCase(ops=("addmm",), fn=lambda m, s, a, b: m.addmm(s, a, b), shapes=ADDMM_SHAPES, dtypes=NUMERIC),
    OpCase(ops=("addmm",), name="addmm_beta_alpha", fn=lambda m, s, a, b: m.addmm(s, a, b, beta=0.5, alpha=-2.0),
           shapes=ADDMM_SHAPES, dtypes=FLOATS + HALF),
    OpCase(ops=("addmm",), name="addmm_int_beta_alpha", fn=lambda m, s, a, b: m.addmm(s, a, b, beta=2, alpha=3),
           shapes=ADDMM_SHAPES[:6], dtypes=("int64", "int32")),
    OpCase(ops=("addmm",), name="addmm_beta0", fn=lambda m, s, a, b: m.addmm(s, a, b, beta=0),
           shapes=ADDMM_SHAPES[:6]),
    OpCase(ops=("addmm",), name="addmm_method", fn=lambda m, s, a, b: s.addmm(a, b, alpha=0.5),
           shapes=ADDMM_SHAPES[:4]),
    # (integer beta: PyTorch refuses a float beta for integer self when k == 0)
    OpCase(ops=("addmm_",), fn=lambda m, s, a, b: s.clone().addmm_(a, b, beta=3, alpha=2),
           shapes=inplace_shapes(ADDMM_SHAPES) + [((5,), (3, 4), (4, 5))], dtypes=NUMERIC),
    OpCase(ops=("baddbmm",), fn=lambda m, s, a, b: m.baddbmm(s, a, b), shapes=BADDBMM_SHAPES, dtypes=NUMERIC),
    OpCase(ops=("baddbmm",), name="baddbmm_beta_alpha",
           fn=lambda m, s, a, b: m.baddbmm(s, a, b, beta=-1.5, alpha=0.25), shapes=BADDBMM_SHAPES,
           dtypes=FLOATS + HALF),
    OpCase(ops=("baddbmm_",), fn=lambda m, s, a, b: s.clone().baddbmm_(a, b, beta=3, alpha=2),
           shapes=inplace_shapes(BADDBMM_SHAPES) + [((5,), (2, 3, 4), (2, 4, 5))], dtypes=NUMERIC),
    OpCase(ops=("mv",), fn=lambda m, a, v: m.mv(a, v), shapes=MV_SHAPES, dtypes=NUMERIC + HALF),
    OpCase(ops=("mv",), name="mv_transposed", fn=lambda m, a, v: m.mv(a.t(), v), shapes=[((4, 3), (4,))],
           dtypes=NUMERIC),
    OpCase(ops=("dot",), fn=lambda m, a, b: m.dot(a, b), shapes=DOT_SHAPES, dtypes=NUMERIC + HALF, rtol=1e-4,
           atol=1e-4),
    OpCase(ops=("dot",), name="dot_dtype_mismatch", fn=lambda m, a, b: m.dot(a, b.double()),
           shapes=[((3,), (3,))], dtypes=("float32",)),
    OpCase(ops=("outer",), fn=lambda m, a, b: m.outer(a, b), shapes=OUTER_SHAPES, dtypes=NUMERIC + ("bool",)),
    # outer is a broadcast product: it promotes.
    OpCase(ops=("outer",), name="outer_promotes", fn=lambda m, a, b: m.outer(a, b.to(m.int64)),
           shapes=OUTER_SHAPES[:2], dtypes=FLOATS),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_parity(case):
    assert run_case(case) > 0


def _message(fn, *args):
    with pytest.raises(RuntimeError) as info:
        fn(*args)
    return str(info.value)


def test_error_messages_name_the_op_and_shapes():
    msg = _message(flow.mm, flow.ones(2, 3), flow.ones(4, 5))
    assert "mm" in msg and "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)" in msg
    msg = _message(flow.matmul, flow.ones(2, 2, 3), flow.ones(4, 5))
    assert "matmul" in msg and "2x2x3" in msg and "4x5" in msg
    msg = _message(flow.mm, flow.ones(2, 3), flow.ones(3, 4, dtype=flow.float64))
    assert "expected m1 and m2 to have the same dtype, but got: float != double" in msg
    assert "bmm" in _message(flow.bmm, flow.ones(2, 3, 4), flow.ones(3, 4, 5))
    assert "mv" in _message(flow.mv, flow.ones(2, 3), flow.ones(4))
    assert "dot" in _message(flow.dot, flow.ones(3), flow.ones(4))
    assert "addmm" in _message(flow.addmm, flow.ones(4), flow.ones(2, 3), flow.ones(3, 5))
    with pytest.raises(NotImplementedError):
        flow.mm(flow.ones(2, 2, dtype=flow.bool), flow.ones(2, 2, dtype=flow.bool))


def test_beta_zero_ignores_nan_in_self():
    nan = flow.full((2, 2), float("nan"))
    out = flow.addmm(nan, flow.ones(2, 3), flow.ones(3, 2), beta=0)
    np.testing.assert_array_equal(out.numpy(), np.full((2, 2), 3.0, dtype=np.float32))
    out = flow.baddbmm(flow.full((1, 2, 2), float("nan")), flow.ones(1, 2, 3), flow.ones(1, 3, 2), beta=0)
    np.testing.assert_array_equal(out.numpy(), np.full((1, 2, 2), 3.0, dtype=np.float32))


def test_inplace_addmm_with_self_as_operand():
    # The product reads the operands before the result overwrites them (PyTorch
    # returns a partly overwritten result here).
    a = np.random.default_rng(0).uniform(-1, 1, (4, 4)).astype(np.float32)
    ours = flow.tensor(a)
    ours.addmm_(ours, ours, beta=0.5)
    np.testing.assert_allclose(ours.numpy(), 0.5 * a + a @ a, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_large_batched_and_transposed_layouts(dtype):
    # Every combination of row- and column-major operands and output layouts.
    rng = np.random.default_rng(1)
    a = rng.integers(-3, 4, (3, 67, 130)).astype(dtype)
    b = rng.integers(-3, 4, (3, 130, 90)).astype(dtype)
    want = np.matmul(a, b)
    for ta in (False, True):
        for tb in (False, True):
            fa = flow.tensor(np.ascontiguousarray(a.transpose(0, 2, 1))).transpose(1, 2) if ta else flow.tensor(a)
            fb = flow.tensor(np.ascontiguousarray(b.transpose(0, 2, 1))).transpose(1, 2) if tb else flow.tensor(b)
            np.testing.assert_allclose(flow.matmul(fa, fb).numpy(), want, rtol=1e-5)
            # A transposed output buffer (in-place into a column-major tensor).
            out = flow.zeros(3, 90, 67, dtype=getattr(flow, dtype)).transpose(1, 2)
            out.baddbmm_(fa, fb, beta=0)
            np.testing.assert_allclose(out.numpy(), want, rtol=1e-5)


def test_double_backward_through_matmul():
    rng = np.random.default_rng(2)
    a, b = rng.uniform(-1, 1, (2, 3, 4)), rng.uniform(-1, 1, (4,))
    grads = []
    for m in (flow, torch):
        x = m.tensor(a, requires_grad=True)
        y = m.tensor(b, requires_grad=True)
        (gx,) = m.autograd.grad(m.matmul(x, y).sum(), [x], create_graph=True)
        (gy,) = m.autograd.grad((gx * gx).sum(), [y])
        grads.append(gy.detach().numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-9)


_ISA_SCRIPT = """
import numpy as np, oneflow as flow
rng = np.random.default_rng(3)
for dtype in ("float64", "int64", "int32", "int8"):
    for (n, k, m) in ((1, 70, 33), (3, 40, 9), (37, 300, 45), (100, 260, 1030), (1030, 64, 100)):
        a = rng.integers(-3, 4, (n, k)).astype(dtype)
        b = rng.integers(-3, 4, (k, m)).astype(dtype)
        want = (a.astype(np.int64) @ b.astype(np.int64)).astype(dtype)
        for bt in (False, True):
            fb = flow.tensor(np.ascontiguousarray(b.T)).t() if bt else flow.tensor(b)
            np.testing.assert_array_equal(flow.mm(flow.tensor(a), fb).numpy(), want)
print("ok")
"""


@pytest.mark.parametrize("isa", parity.ISAS)
def test_blocked_loop_on_each_instruction_set(isa):
    # Skinny and blocked paths, both B layouts, and products large enough to be
    # split over threads by rows and by columns.
    parity.assert_script_passes_on_isa(_ISA_SCRIPT, isa)
