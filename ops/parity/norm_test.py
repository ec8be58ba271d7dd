"""Parity rows for the normalization ops (ops/defs/norm.cc): batch_norm, layer_norm,
group_norm, instance_norm, rms_norm and their native forms.

Running statistics are made inside the row (from an input, so each shape gets its own
values) and returned as outputs, so their in-place update is compared with torch's too.
"""

import random

import numpy as np
import pytest
import torch
from parity import OpCase, raises_like_torch, run_case

import oneflow as flow

FLOATS = ("float32", "float64")
ALL_FLOATS = ("float32", "float64", "float16", "bfloat16")
HALF_TOL = {"rtol": 6e-2, "atol": 6e-2}

_rng = random.Random(0)
# Random shapes (fixed by the seed): [N, C, *spatial].
RANDOM_NCHW = [tuple(_rng.randint(1, 6) for _ in range(4)) for _ in range(3)]
RANDOM_ROWS = [tuple(_rng.randint(1, 7) for _ in range(2)) + (_rng.randint(2, 9),) for _ in range(3)]


def F(m):
    return m.nn.functional


# ---- layer_norm / rms_norm ------------------------------------------------------------

LN_SHAPES = [((4, 5), (5,), (5,)), ((2, 3, 8), (8,), (8,)), ((7,), (7,), (7,)), ((0, 4), (4,), (4,)),
             ((3, 0, 4), (4,), (4,))] + [((s), (s[-1],), (s[-1],)) for s in RANDOM_ROWS]
LN_SHAPES_2D = [((2, 3, 4), (3, 4), (3, 4)), ((5, 2, 6), (2, 6), (2, 6))]


def _ln(m, x, w, b, k=1, eps=1e-5):
    return F(m).layer_norm(x, x.shape[-k:], w, b, eps)


def _rms(m, x, w, k=1, eps=None):
    return F(m).rms_norm(x, x.shape[-k:], w, eps)


# ---- batch_norm -------------------------------------------------------------------------


def _running(m, x, r):
    """Running statistics of x's channel count from the input r: (mean, positive var)."""
    c = x.shape[1]
    r = r.detach().reshape(-1)[:c].to(x.dtype)
    return r * 0.5, r.abs() + 0.5


def _bn_train(m, x, w, b, r, momentum=0.1):
    rm, rv = _running(m, x, r)
    y = F(m).batch_norm(x, rm, rv, w, b, training=True, momentum=momentum)
    return y, rm, rv


def _bn_eval(m, x, w, b, r):
    rm, rv = _running(m, x, r)
    return F(m).batch_norm(x, rm, rv, w, b, training=False)


def _bn_mixed(m, x, w, b, r):
    # A 16-bit input with float32 parameters and statistics (PyTorch's mixed precision on CPU).
    rm, rv = _running(m, x, r)
    y = F(m).batch_norm(x.bfloat16(), rm, rv, w, b, training=True)
    return y.float(), rm, rv


def _channels(shape):
    return (shape[1],)


BN_SHAPES = [(s, _channels(s), _channels(s), (8,)) for s in [(4, 3), (2, 3, 5), (2, 4, 3, 3), (3, 2, 2, 2, 2)]]
BN_SHAPES += [(s, _channels(s), _channels(s), (8,)) for s in RANDOM_NCHW if s[0] * s[2] * s[3] > 1]
# (torch fails on zero channels: IndexError from its kernel)
BN_ZERO = [((0, 3), (3,), (3,), (8,)), ((0, 2, 4), (2,), (2,), (8,))]


# ---- group_norm / instance_norm ----------------------------------------------------------

GN_SHAPES = [((2, 6, 5), (6,), (6,)), ((3, 4, 2, 3), (4,), (4,)), ((2, 6), (6,), (6,)), ((1, 6, 2, 2, 2), (6,), (6,)),
             ((0, 6, 3), (6,), (6,))]


def _in_stats(m, x, w, b, r, momentum=0.1):
    rm, rv = _running(m, x, r)
    y = F(m).instance_norm(x, rm, rv, w, b, use_input_stats=True, momentum=momentum)
    return y, rm, rv


def _in_eval(m, x, w, b, r):
    rm, rv = _running(m, x, r)
    return F(m).instance_norm(x, rm, rv, w, b, use_input_stats=False)


IN_SHAPES = [(s, _channels(s), _channels(s), (8,)) for s in [(2, 3, 5), (3, 4, 2, 3), (1, 2, 2, 2, 3)]]


def _grad_of(m, f, *xs):
    """Gradients of sum(f(xs) * ramp) w.r.t. the input and the weight (xs[:2]), with their graph
    (for double backward)."""
    y = f(*xs)
    w = m.arange(y.numel()).to(y.dtype).reshape(y.shape) / 7.0 - 0.5
    return m.autograd.grad((y * w).sum(), xs[:2], create_graph=True)


def _native(m, name):
    """A private native op: torch.<name>, oneflow._C.ops.<name>."""
    return getattr(m if m is torch else m._C.ops, name)


CASES = [
    # ---- layer_norm ----
    OpCase(ops=("layer_norm",), fn=_ln, shapes=LN_SHAPES, dtypes=FLOATS),
    OpCase(ops=("layer_norm",), name="layer_norm_half", fn=_ln, shapes=LN_SHAPES[:3], dtypes=("float16", "bfloat16"),
           **HALF_TOL),
    OpCase(ops=("layer_norm",), name="layer_norm_2d", fn=lambda m, x, w, b: _ln(m, x, w, b, k=2), shapes=LN_SHAPES_2D),
    OpCase(ops=("layer_norm",), name="layer_norm_no_affine", fn=lambda m, x: F(m).layer_norm(x, x.shape[-1:]),
           shapes=[((4, 5),), ((2, 3, 8),)]),
    OpCase(ops=("layer_norm",), name="layer_norm_weight_only_eps",
           fn=lambda m, x, w: F(m).layer_norm(x, [x.shape[-1]], weight=w, eps=0.1), shapes=[((4, 5), (5,))]),
    OpCase(ops=("layer_norm",), name="layer_norm_bias_only", fn=lambda m, x, b: m.layer_norm(x, (5,), None, b),
           shapes=[((4, 5), (5,))]),
    OpCase(ops=("layer_norm",), name="layer_norm_mixed",
           fn=lambda m, x, w, b: F(m).layer_norm(x.bfloat16(), [x.shape[-1]], w, b).float(), shapes=LN_SHAPES[:2],
           dtypes=("float32",), **HALF_TOL),
    # The backward of a sum: a gradient broadcast from one value.
    OpCase(ops=("layer_norm",), name="layer_norm_sum_backward", fn=lambda m, x, w, b: _ln(m, x, w, b).sum(),
           shapes=LN_SHAPES[:3]),
    OpCase(ops=("rms_norm",), name="rms_norm_sum_backward", fn=lambda m, x, w: _rms(m, x, w).sum(),
           shapes=[(s[0], s[1]) for s in LN_SHAPES[:3]]),
    OpCase(ops=("layer_norm",), name="layer_norm_long_rows", fn=_ln, shapes=[((3, 5000), (5000,), (5000,))],
           dtypes=("float32",), rtol=1e-4, atol=1e-4),
    OpCase(ops=("layer_norm",), name="layer_norm_double_backward",
           fn=lambda m, x, w, b: _grad_of(m, lambda x, w, b: _ln(m, x, w, b), x, w, b), shapes=LN_SHAPES[:2],
           dtypes=("float64",)),
    OpCase(ops=("native_layer_norm",), fn=lambda m, x, w, b: m.native_layer_norm(x, [x.shape[-1]], w, b, 1e-5),
           shapes=LN_SHAPES[:3], dtypes=ALL_FLOATS, rtol=6e-2, atol=6e-2),
    OpCase(ops=("native_layer_norm",), name="native_layer_norm_f64",
           fn=lambda m, x, w, b: m.native_layer_norm(x, [x.shape[-1]], w, b, 1e-5), shapes=LN_SHAPES,
           dtypes=("float64",)),
    # ---- rms_norm ----
    OpCase(ops=("rms_norm",), fn=lambda m, x, w: _rms(m, x, w), shapes=[(s[0], s[1]) for s in LN_SHAPES],
           dtypes=FLOATS),
    OpCase(ops=("rms_norm",), name="rms_norm_half", fn=lambda m, x, w: _rms(m, x, w),
           shapes=[(s[0], s[1]) for s in LN_SHAPES[:3]], dtypes=("float16", "bfloat16"), **HALF_TOL),
    OpCase(ops=("rms_norm",), name="rms_norm_eps_2d", fn=lambda m, x, w: _rms(m, x, w, k=2, eps=1e-3),
           shapes=[(s[0], s[1]) for s in LN_SHAPES_2D]),
    OpCase(ops=("rms_norm",), name="rms_norm_no_weight", fn=lambda m, x: F(m).rms_norm(x, [x.shape[-1]]),
           shapes=[((4, 5),), ((2, 3, 8),)]),
    OpCase(ops=("rms_norm",), name="rms_norm_double_backward",
           fn=lambda m, x, w: _grad_of(m, lambda x, w: _rms(m, x, w), x, w), shapes=[((3, 4), (4,))],
           dtypes=("float64",)),
    OpCase(ops=("_fused_rms_norm",), fn=lambda m, x, w: _native(m, "_fused_rms_norm")(x, [x.shape[-1]], w, 1e-6),
           shapes=[(s[0], s[1]) for s in LN_SHAPES[:4]], dtypes=ALL_FLOATS, rtol=6e-2, atol=6e-2),
    # ---- batch_norm ----
    OpCase(ops=("batch_norm",), fn=_bn_train, shapes=BN_SHAPES + BN_ZERO, no_grad_inputs=(3,)),
    OpCase(ops=("batch_norm",), name="batch_norm_momentum", fn=lambda m, *a: _bn_train(m, *a, momentum=0.7),
           shapes=BN_SHAPES[:2], no_grad_inputs=(3,)),
    OpCase(ops=("batch_norm",), name="batch_norm_half", fn=_bn_train, shapes=BN_SHAPES[:3],
           dtypes=("float16", "bfloat16"), no_grad_inputs=(3,), **HALF_TOL),
    OpCase(ops=("batch_norm",), name="batch_norm_mixed", fn=_bn_mixed, shapes=BN_SHAPES[:3], dtypes=("float32",),
           no_grad_inputs=(3,), **HALF_TOL),
    OpCase(ops=("batch_norm",), name="batch_norm_eval", fn=_bn_eval, shapes=BN_SHAPES + BN_ZERO,
           no_grad_inputs=(3,)),
    # Statistics gathered from several blocks and row groups (merged pairwise), far from zero.
    OpCase(ops=("batch_norm",), name="batch_norm_merged_moments",
           fn=lambda m, x, w, b, r: _bn_train(m, x * 0.5 + 40, w, b, r),
           shapes=[((2, 3, 5000), (3,), (3,), (8,)), ((600, 20), (20,), (20,), (20,))], no_grad_inputs=(3,),
           dtypes=("float64",)),
    OpCase(ops=("batch_norm",), name="batch_norm_no_stats",
           fn=lambda m, x: F(m).batch_norm(x, None, None, training=True), shapes=[((4, 3),), ((2, 3, 4, 4),)]),
    OpCase(ops=("batch_norm",), name="batch_norm_aten",
           fn=lambda m, x, w, b, r: m.batch_norm(x, w, b, *_running(m, x, r), True, 0.2, 1e-3, False),
           shapes=BN_SHAPES[:2], no_grad_inputs=(3,)),
    OpCase(ops=("batch_norm",), name="batch_norm_double_backward",
           fn=lambda m, x, w, b: _grad_of(m, lambda x, w, b: F(m).batch_norm(x, None, None, w, b, training=True),
                                          x, w, b), shapes=[((4, 3), (3,), (3,)), ((2, 3, 4), (3,), (3,))],
           dtypes=("float64",)),
    OpCase(ops=("native_batch_norm",),
           fn=lambda m, x, w, b, r: m.native_batch_norm(x, w, b, *_running(m, x, r), True, 0.1, 1e-5),
           shapes=BN_SHAPES[:3], no_grad_inputs=(3,)),
    OpCase(ops=("native_batch_norm",), name="native_batch_norm_eval",
           fn=lambda m, x, w, b, r: m.native_batch_norm(x, w, b, *_running(m, x, r), False, 0.1, 1e-5),
           shapes=BN_SHAPES[:3], no_grad_inputs=(3,)),
    # ---- group_norm ----
    OpCase(ops=("group_norm",), fn=lambda m, x, w, b: F(m).group_norm(x, 2, w, b), shapes=GN_SHAPES),
    OpCase(ops=("group_norm",), name="group_norm_groups",
           fn=lambda m, x: (F(m).group_norm(x, 1), F(m).group_norm(x, x.shape[1])),
           shapes=[((2, 6, 5),), ((3, 4, 2, 2),)]),
    OpCase(ops=("group_norm",), name="group_norm_half", fn=lambda m, x, w, b: F(m).group_norm(x, 2, w, b),
           shapes=GN_SHAPES[:2], dtypes=("float16", "bfloat16"), **HALF_TOL),
    OpCase(ops=("group_norm",), name="group_norm_random",
           fn=lambda m, x, w: F(m).group_norm(x, 1, w, eps=1e-3), shapes=[(s, (s[1],)) for s in RANDOM_NCHW]),
    OpCase(ops=("group_norm",), name="group_norm_double_backward",
           fn=lambda m, x, w, b: _grad_of(m, lambda x, w, b: F(m).group_norm(x, 2, w, b), x, w, b),
           shapes=GN_SHAPES[:2], dtypes=("float64",)),
    OpCase(ops=("native_group_norm",),
           fn=lambda m, x, w, b: m.native_group_norm(x, w, b, x.shape[0], x.shape[1], x[0, 0].numel(), 3, 1e-5),
           shapes=[((2, 6, 5), (6,), (6,)), ((3, 3, 2, 2), (3,), (3,))], noncontiguous=False),
    # ---- instance_norm ----
    OpCase(ops=("instance_norm",), fn=_in_stats, shapes=IN_SHAPES, no_grad_inputs=(3,)),
    OpCase(ops=("instance_norm",), name="instance_norm_momentum", fn=lambda m, *a: _in_stats(m, *a, momentum=0.5),
           shapes=IN_SHAPES[:1], no_grad_inputs=(3,)),
    OpCase(ops=("instance_norm",), name="instance_norm_no_stats", fn=lambda m, x: F(m).instance_norm(x),
           shapes=[((2, 3, 5),), ((2, 2, 3, 3),), ((0, 3, 4),)]),
    OpCase(ops=("instance_norm",), name="instance_norm_eval", fn=_in_eval, shapes=IN_SHAPES, no_grad_inputs=(3,)),
    OpCase(ops=("instance_norm",), name="instance_norm_half", fn=lambda m, x: F(m).instance_norm(x),
           shapes=[((2, 3, 5),)], dtypes=("float16", "bfloat16"), **HALF_TOL),
    # ---- batch_norm on channels_last (NHWC) inputs: per-channel column reductions
    OpCase(ops=("batch_norm",), name="batch_norm_channels_last",
           fn=lambda m, x, w, b, r: _bn_train(m, x.contiguous(memory_format=m.channels_last), w, b, r),
           shapes=[((2, 16, 5, 5), (16,), (16,), (16,)), ((3, 3, 4, 4), (3,), (3,), (3,)),
                   ((4, 24, 1, 1), (24,), (24,), (24,))], no_grad_inputs=(3,)),
    OpCase(ops=("batch_norm",), name="batch_norm_channels_last_eval",
           fn=lambda m, x, w, b, r: _bn_eval(m, x.contiguous(memory_format=m.channels_last), w, b, r),
           shapes=[((2, 16, 5, 5), (16,), (16,), (16,))], no_grad_inputs=(3,)),
    OpCase(ops=("batch_norm",), name="batch_norm_channels_last_3d",
           fn=lambda m, x, w, b, r: _bn_train(m, x.contiguous(memory_format=m.channels_last_3d), w, b, r),
           shapes=[((2, 8, 3, 3, 3), (8,), (8,), (8,))], no_grad_inputs=(3,)),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_parity(case):
    assert run_case(case) > 0


def test_running_stats_update_in_place_like_torch():
    results = []
    for m in (torch, flow):
        x = m.arange(24.0).reshape(4, 3, 2)
        rm, rv = m.zeros(3), m.ones(3)
        F(m).batch_norm(x, rm, rv, training=True, momentum=0.5)
        results.append(rm.tolist() + rv.tolist())
    np.testing.assert_allclose(results[1], results[0], rtol=1e-6)


def test_two_forwards_then_backward_in_training():
    # The running statistics change between the forwards; the backward does not need them.
    for m in (torch, flow):
        x = m.ones(4, 3).requires_grad_()
        rm, rv = m.zeros(3), m.ones(3)
        y1 = F(m).batch_norm(x * m.arange(4.0).reshape(4, 1), rm, rv, training=True)
        y2 = F(m).batch_norm(x * 2, rm, rv, training=True)
        (y1.sum() + y2.sum()).backward()
        assert x.grad is not None


def test_grad_fn_names_match_torch():
    def names(m):
        x = m.ones(2, 3, 4, requires_grad=True)
        return [F(m).layer_norm(x, [4]).grad_fn.name(), F(m).batch_norm(x, None, None, training=True).grad_fn.name(),
                F(m).group_norm(x, 1).grad_fn.name()]

    assert names(flow) == names(torch)


def test_errors():
    x = lambda m: m.ones(4, 3, 5)
    msg = raises_like_torch(lambda m: F(m).layer_norm(x(m), [6]))
    assert "layer_norm" in msg and "[6]" in msg and "[4, 3, 5]" in msg
    msg = raises_like_torch(lambda m: F(m).layer_norm(x(m), [3, 4]))
    assert "layer_norm" in msg and "[3, 4]" in msg and "[4, 3, 5]" in msg
    msg = raises_like_torch(lambda m: F(m).layer_norm(x(m), [5], m.ones(4)))
    assert "layer_norm" in msg and "weight" in msg and "[4]" in msg and "[5]" in msg
    msg = raises_like_torch(lambda m: F(m).layer_norm(x(m), [5], None, m.ones(2)))
    assert "layer_norm" in msg and "bias" in msg and "[2]" in msg
    msg = raises_like_torch(lambda m: F(m).layer_norm(x(m), []))
    assert "layer_norm" in msg and "[]" in msg
    msg = raises_like_torch(lambda m: F(m).rms_norm(x(m), [4]))
    assert "rms_norm" in msg and "[4]" in msg and "[4, 3, 5]" in msg
    # Fewer input dims than normalized_shape is a ValueError in PyTorch (after the checks of
    # normalized_shape and weight, before the dtype's).
    for shape, ns in (((5,), [3, 5]), ((5,), [5, 5]), ((), [5]), ((2, 5), [1, 2, 5])):
        msg = raises_like_torch(lambda m, shape=shape, ns=ns: F(m).rms_norm(m.zeros(shape), ns))
        assert "rms_norm" in msg and str(ns) in msg and str(list(shape)) in msg
    assert "rms_norm" in raises_like_torch(lambda m: F(m).rms_norm(m.zeros(5, dtype=m.int64), [2, 5]))
    msg = raises_like_torch(lambda m: F(m).rms_norm(m.zeros(5), [2, 5], m.ones(3)))
    assert "rms_norm" in msg and "weight" in msg and "[3]" in msg
    msg = raises_like_torch(lambda m: F(m).rms_norm(m.zeros(5), []))
    assert "rms_norm" in msg and "[]" in msg
    msg = raises_like_torch(lambda m: F(m).rms_norm(m.zeros(5, dtype=m.int64), [5]))
    assert "rms_norm" in msg
    msg = raises_like_torch(lambda m: F(m).batch_norm(x(m), m.zeros(4), m.ones(3)))
    assert "batch_norm" in msg and "running_mean" in msg and "3" in msg and "4" in msg
    msg = raises_like_torch(lambda m: F(m).batch_norm(x(m), m.zeros(3), m.ones(2), training=True))
    assert "batch_norm" in msg and "running_var" in msg and "2" in msg
    msg = raises_like_torch(lambda m: F(m).batch_norm(x(m), None, None, m.ones(7), training=True))
    assert "batch_norm" in msg and "weight" in msg and "7" in msg
    msg = raises_like_torch(lambda m: F(m).batch_norm(m.ones(1, 3), None, None, training=True))
    assert "more than 1 value per channel" in msg and "[1, 3]" in msg
    msg = raises_like_torch(lambda m: F(m).batch_norm(m.ones(1, 3, 1, 1), None, None, training=True))
    assert "more than 1 value per channel" in msg and "[1, 3, 1, 1]" in msg
    msg = raises_like_torch(lambda m: m.batch_norm(x(m), None, None, None, None, False, 0.1, 1e-5, True))
    assert "running_mean" in msg and "evaluation" in msg
    msg = raises_like_torch(lambda m: F(m).group_norm(x(m), 2))
    assert "group_norm" in msg and "[4, 3, 5]" in msg and "num_groups=2" in msg
    msg = raises_like_torch(lambda m: F(m).group_norm(x(m), 3, m.ones(4)))
    assert "group_norm" in msg and "[4]" in msg and "[4, 3, 5]" in msg
    msg = raises_like_torch(lambda m: F(m).group_norm(m.ones(1, 4), 4))
    assert "more than 1 value per channel" in msg
    msg = raises_like_torch(lambda m: F(m).instance_norm(m.ones(2, 3, 1)))
    assert "spatial" in msg and "[2, 3, 1]" in msg
    msg = raises_like_torch(lambda m: F(m).instance_norm(x(m), m.zeros(4), m.ones(4)))
    assert "instance_norm" in msg and "running_mean" in msg and "4" in msg
    msg = raises_like_torch(lambda m: m.native_layer_norm(x(m).double(), [5], m.ones(5), None, 1e-5))
    assert "layer_norm" in msg and "mixed dtype" in msg
