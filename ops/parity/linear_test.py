"""Parity rows for linear and bilinear (ops/defs/linear_nn.cc)."""

import random

import pytest
from parity import OpCase, raises_like_torch, run_case

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


ACTIVATIONS = {"none": lambda m, h: h, "relu": lambda m, h: m.relu(h), "gelu": lambda m, h: F(m).gelu(h),
               "gelu_tanh": lambda m, h: F(m).gelu(h, approximate="tanh"), "silu": lambda m, h: F(m).silu(h),
               "sigmoid": lambda m, h: m.sigmoid(h), "tanh": lambda m, h: m.tanh(h)}
# (input, weight, bias): 2-D, batched, a 1-D input, and one large enough for oneDNN's blocked kernels.
FUSED = [((4, 3), (5, 3), (5,)), ((2, 3, 4), (6, 4), (6,)), ((3,), (2, 3), (2,)), ((0, 3), (4, 3), (4,)),
         ((2, 0), (3, 0), (3,)), ((33, 70), (65, 70), (65,))]


def _fused_linear(act, bias=True):
    """fused_linear(x, w, b, act) against torch's act(linear(x, w, b))."""
    def fn(m, x, w, b=None):
        if m is flow:
            return flow.fused_linear(x, w, b, activation=act)
        return ACTIVATIONS[act](m, F(m).linear(x, w, b))
    return fn


def _fused_linear_act(act):
    """The kernel op itself (2-D input): its own backward (the pre-activation recomputed)."""
    def fn(m, x, w, b):
        if m is flow:
            return flow._C.ops._fused_linear_act(x, w, b, act)
        return ACTIVATIONS[act](m, F(m).linear(x, w, b))
    return fn


def _fused_matmul_bias(m, x, w, b, r=None):
    if m is flow:
        return flow._C.fused_matmul_bias(x, w, b, r)
    y = F(m).linear(x, w, b)
    return y if r is None else y + r


def _fused_mlp(skip):
    def fn(m, x, w0, b0, w1, b1):
        if m is flow:
            return flow._C.fused_mlp(x, [w0, w1], [b0, b1], skip)
        y = F(m).linear(m.relu(F(m).linear(x, w0, b0)), w1, b1)
        return y if skip else m.relu(y)
    return fn


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
    *[OpCase(ops=("fused_linear",), name=f"fused_linear_{act}", fn=_fused_linear(act), shapes=FUSED)
      for act in ACTIVATIONS],
    # Without gradients gelu and silu run as the product's epilogue too (with them, the
    # pre-activation is kept and the activation runs apart).
    *[OpCase(ops=("fused_linear",), name=f"fused_linear_{act}_no_grad", fn=_fused_linear(act), shapes=FUSED,
             grad=False) for act in ACTIVATIONS],
    OpCase(ops=("fused_linear",), name="fused_linear_no_bias", fn=_fused_linear("gelu"),
           shapes=[s[:2] for s in FUSED]),
    *[OpCase(ops=("fused_linear",), name=f"fused_linear_{act}_bf16", fn=_fused_linear(act), shapes=FUSED,
             dtypes=("bfloat16", "float16"), **HALF_TOL) for act in ("relu", "gelu")],
    *[OpCase(ops=("_fused_linear_act",), name=f"_fused_linear_act_{act}", fn=_fused_linear_act(act),
             shapes=[s for s in FUSED if len(s[0]) == 2]) for act in ACTIVATIONS],
    OpCase(ops=("fused_matmul_bias",), fn=_fused_matmul_bias, shapes=FUSED),
    OpCase(ops=("fused_matmul_bias",), name="fused_matmul_bias_add_to_output", fn=_fused_matmul_bias,
           shapes=[s + (s[0][:-1] + s[1][:1],) for s in FUSED]),
    *[OpCase(ops=("fused_mlp",), name=f"fused_mlp_skip_{skip}", fn=_fused_mlp(skip),
             shapes=[((4, 3), (5, 3), (5,), (2, 5), (2,)), ((2, 3, 8), (16, 8), (16,), (4, 16), (4,))])
      for skip in (False, True)],
    OpCase(ops=("bilinear",), fn=lambda m, a, b, w, bias: F(m).bilinear(a, b, w, bias), shapes=BILINEAR),
    OpCase(ops=("bilinear",), name="bilinear_no_bias", fn=lambda m, a, b, w: F(m).bilinear(a, b, w),
           shapes=[s[:3] for s in BILINEAR]),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_parity(case):
    assert run_case(case) > 0


def test_errors():
    msg = raises_like_torch(lambda m: F(m).linear(m.ones(3, 4), m.ones(5, 6)))
    assert "linear" in msg and "3x4" in msg and "6x5" in msg
    msg = raises_like_torch(lambda m: F(m).linear(m.ones(3, 4), m.ones(5, 4), m.ones(6)))
    assert "linear" in msg and "[6]" in msg and "[3, 5]" in msg
    msg = raises_like_torch(lambda m: F(m).linear(m.ones(3, 4), m.ones(5, 4).double()))
    assert "dtype" in msg
    msg = raises_like_torch(lambda m: F(m).bilinear(m.ones(3, 4), m.ones(3, 5), m.ones(6, 4, 6)))
    assert "bilinear" in msg and "input2" in msg and "5" in msg and "6" in msg
    msg = raises_like_torch(lambda m: F(m).bilinear(m.ones(3, 4), m.ones(2, 5), m.ones(6, 4, 5)))
    assert "bilinear" in msg and "batch" in msg and "3" in msg and "2" in msg
    msg = raises_like_torch(lambda m: F(m).bilinear(m.ones(3, 4), m.ones(3, 5), m.ones(6, 3, 5)))
    assert "bilinear" in msg and "input1" in msg
    msg = raises_like_torch(lambda m: F(m).bilinear(m.ones(3, 4), m.ones(3, 5), m.ones(6, 4, 5), m.ones(5)))
    assert "bilinear" in msg and "bias" in msg


def test_fused_errors():
    """Bad fused-linear input: the op, the argument and what was expected against what came."""
    with pytest.raises(RuntimeError, match=r"fused_linear\(\): activation must be one of .* got 'swish'"):
        flow.fused_linear(flow.ones(3, 4), flow.ones(5, 4), None, "swish")
    with pytest.raises(RuntimeError, match=r"fused_linear\(\): input and weight shapes cannot be multiplied \(3x4 and 6x5\)"):
        flow.fused_linear(flow.ones(3, 4), flow.ones(5, 6))
    with pytest.raises(RuntimeError, match=r"fused_linear\(\): expected a bias of size \[5\], but got \[6\]"):
        flow.fused_linear(flow.ones(3, 4), flow.ones(5, 4), flow.ones(6))
    with pytest.raises(RuntimeError, match=r"_fused_linear_act\(\): expected input, weight and bias of one dtype"):
        flow._C.ops._fused_linear_act(flow.ones(3, 4), flow.ones(5, 4).double(), None, "relu")
    with pytest.raises(RuntimeError, match=r"fused_mlp\(\): expected as many biases as weights .* 2 weights and 1"):
        flow._C.fused_mlp(flow.ones(3, 4), [flow.ones(5, 4), flow.ones(2, 5)], [flow.ones(5)], False)
    with pytest.raises(RuntimeError, match=r"fused_matmul_bias\(\): _add_to_output must have the output's size \[3, 5\]"):
        flow._C.fused_matmul_bias(flow.ones(3, 4), flow.ones(5, 4), flow.ones(5), flow.ones(5))

