"""Parity rows for pooling (ops/defs/pooling.cc): max/avg pooling in 1-3 dims with every window
argument, adaptive average and max pooling, max_unpool; values, indices and input gradients,
batched and unbatched inputs; plus second-order gradients and the error messages."""

import numpy as np
import pytest
import torch
from parity import OpCase, run_case

import oneflow as flow

FLOATS = ("float32", "float64")
INTS = ("int64",)


def F(m):
    return m.nn.functional


def pool(name, *args, **kwargs):
    return lambda m, x: getattr(F(m), name)(x, *args, **kwargs)


SHAPES_2D = [((2, 3, 9, 9),), ((3, 8, 7),), ((0, 3, 9, 9),), ((1, 1, 4, 6),), ((2, 32, 12, 12),)]
SHAPES_1D = [((2, 3, 11),), ((3, 8),), ((0, 3, 11),), ((2, 16, 20),)]
SHAPES_3D = [((2, 3, 6, 7, 5),), ((3, 5, 6, 4),), ((0, 2, 5, 5, 5),), ((1, 16, 6, 6, 6),)]

CL_SHAPES = [((2, 3, 9, 9),), ((1, 16, 7, 8),), ((2, 32, 12, 12),)]


def cl(m, t):
    """`t` in channels_last (NHWC) memory format."""
    return t.contiguous(memory_format=m.channels_last)


CASES = [
    # ---- max pooling
    OpCase(ops=("max_pool2d", "max_pool2d_with_indices"), fn=pool("max_pool2d", 3, 2, 1), shapes=SHAPES_2D),
    OpCase(ops=("max_pool2d",), name="max_pool2d_default_stride", fn=pool("max_pool2d", 2), shapes=SHAPES_2D),
    OpCase(ops=("max_pool2d",), name="max_pool2d_args",
           fn=pool("max_pool2d", (3, 2), stride=(2, 1), padding=(1, 0), dilation=(2, 1)), shapes=SHAPES_2D),
    OpCase(ops=("max_pool2d",), name="max_pool2d_ceil", fn=pool("max_pool2d", 3, 2, 1, ceil_mode=True),
           shapes=SHAPES_2D + [((1, 2, 8, 8),)]),
    OpCase(ops=("max_pool2d_with_indices",), name="max_pool2d_indices",
           fn=pool("max_pool2d", 3, 2, 1, 1, True, True), shapes=SHAPES_2D),
    OpCase(ops=("max_pool2d",), name="max_pool2d_ints", fn=pool("max_pool2d", 2, 1, 1, return_indices=True),
           shapes=SHAPES_2D[:2], dtypes=INTS + ("float16", "bfloat16")),
    OpCase(ops=("max_pool2d",), name="max_pool2d_pad_too_large", fn=pool("max_pool2d", 3, padding=2),
           shapes=SHAPES_2D[:1]),
    OpCase(ops=("max_pool2d",), name="max_pool2d_output_too_small", fn=pool("max_pool2d", 5),
           shapes=[((1, 2, 3, 3),)]),
    OpCase(ops=("max_pool2d",), name="max_pool2d_bad_rank", fn=pool("max_pool2d", 2), shapes=[((4, 4),)]),
    OpCase(ops=("max_pool2d",), name="max_pool2d_empty_channels", fn=pool("max_pool2d", 2),
           shapes=[((2, 0, 4, 4),)]),
    OpCase(ops=("max_pool1d", "max_pool1d_with_indices"), fn=pool("max_pool1d", 3, 2, 1), shapes=SHAPES_1D),
    OpCase(ops=("max_pool1d",), name="max_pool1d_args",
           fn=pool("max_pool1d", 4, 3, 2, dilation=2, ceil_mode=True, return_indices=True), shapes=SHAPES_1D),
    OpCase(ops=("max_pool3d", "max_pool3d_with_indices"), fn=pool("max_pool3d", 3, 2, 1), shapes=SHAPES_3D),
    OpCase(ops=("max_pool3d",), name="max_pool3d_args",
           fn=pool("max_pool3d", (2, 3, 2), (1, 2, 2), (1, 1, 0), (1, 1, 2), True, True), shapes=SHAPES_3D),
    # ---- average pooling
    OpCase(ops=("avg_pool2d",), fn=pool("avg_pool2d", 3, 2, 1), shapes=SHAPES_2D),
    OpCase(ops=("avg_pool2d",), name="avg_pool2d_default_stride", fn=pool("avg_pool2d", (2, 3)), shapes=SHAPES_2D),
    OpCase(ops=("avg_pool2d",), name="avg_pool2d_ceil",
           fn=pool("avg_pool2d", 3, 2, 1, ceil_mode=True), shapes=SHAPES_2D + [((1, 2, 8, 8),)]),
    OpCase(ops=("avg_pool2d",), name="avg_pool2d_exclude_pad",
           fn=pool("avg_pool2d", 3, 2, 1, ceil_mode=True, count_include_pad=False), shapes=SHAPES_2D),
    OpCase(ops=("avg_pool2d",), name="avg_pool2d_divisor", fn=pool("avg_pool2d", 3, 2, 1, divisor_override=4),
           shapes=SHAPES_2D),
    OpCase(ops=("avg_pool2d",), name="avg_pool2d_divisor_zero", fn=pool("avg_pool2d", 3, divisor_override=0),
           shapes=SHAPES_2D[:1]),
    OpCase(ops=("avg_pool2d",), name="avg_pool2d_ints", fn=pool("avg_pool2d", 2, 1, 1), shapes=SHAPES_2D[:2],
           dtypes=INTS + ("float16", "bfloat16")),
    OpCase(ops=("avg_pool2d",), name="avg_pool2d_pad_too_large", fn=pool("avg_pool2d", 2, padding=2),
           shapes=SHAPES_2D[:1]),
    OpCase(ops=("avg_pool1d",), fn=pool("avg_pool1d", 3, 2, 1), shapes=SHAPES_1D),
    OpCase(ops=("avg_pool1d",), name="avg_pool1d_args",
           fn=pool("avg_pool1d", 4, 3, 2, ceil_mode=True, count_include_pad=False), shapes=SHAPES_1D),
    OpCase(ops=("avg_pool1d",), name="avg_pool1d_ceil_include_pad", fn=pool("avg_pool1d", 2, 2, 1, True, True),
           shapes=[((1, 1, 5),), ((2, 3, 10),)]),
    OpCase(ops=("avg_pool3d",), fn=pool("avg_pool3d", 3, 2, 1), shapes=SHAPES_3D),
    OpCase(ops=("avg_pool3d",), name="avg_pool3d_args",
           fn=pool("avg_pool3d", (2, 3, 2), (1, 2, 2), (1, 1, 0), True, False, None), shapes=SHAPES_3D),
    OpCase(ops=("avg_pool3d",), name="avg_pool3d_divisor",
           fn=pool("avg_pool3d", 2, ceil_mode=True, divisor_override=3), shapes=SHAPES_3D),
    # ---- adaptive pooling
    OpCase(ops=("adaptive_avg_pool2d",), fn=pool("adaptive_avg_pool2d", (4, 3)), shapes=SHAPES_2D),
    OpCase(ops=("adaptive_avg_pool2d",), name="adaptive_avg_pool2d_sizes", fn=pool("adaptive_avg_pool2d", 1),
           shapes=SHAPES_2D),
    OpCase(ops=("adaptive_avg_pool2d",), name="adaptive_avg_pool2d_none", fn=pool("adaptive_avg_pool2d", (None, 5)),
           shapes=SHAPES_2D[:2]),
    OpCase(ops=("adaptive_avg_pool2d",), name="adaptive_avg_pool2d_upsample", fn=pool("adaptive_avg_pool2d", 11),
           shapes=SHAPES_2D[:2]),
    OpCase(ops=("adaptive_avg_pool2d",), name="adaptive_avg_pool2d_empty_spatial",
           fn=pool("adaptive_avg_pool2d", 2), shapes=[((2, 3, 0, 4),)]),
    OpCase(ops=("adaptive_avg_pool2d",), name="adaptive_avg_pool2d_long", fn=pool("adaptive_avg_pool2d", 2),
           shapes=SHAPES_2D[:1], dtypes=INTS),
    OpCase(ops=("adaptive_avg_pool1d",), fn=pool("adaptive_avg_pool1d", 4), shapes=SHAPES_1D),
    OpCase(ops=("adaptive_avg_pool3d",), fn=pool("adaptive_avg_pool3d", (3, 2, 4)), shapes=SHAPES_3D),
    OpCase(ops=("adaptive_max_pool2d",), fn=pool("adaptive_max_pool2d", (4, 3)), shapes=SHAPES_2D),
    OpCase(ops=("adaptive_max_pool2d",), name="adaptive_max_pool2d_indices",
           fn=pool("adaptive_max_pool2d", (5, None), return_indices=True), shapes=SHAPES_2D),
    OpCase(ops=("adaptive_max_pool1d",), fn=pool("adaptive_max_pool1d", 4, True), shapes=SHAPES_1D),
    OpCase(ops=("adaptive_max_pool3d",), fn=pool("adaptive_max_pool3d", (3, 2, 4), True), shapes=SHAPES_3D),
    OpCase(ops=("adaptive_max_pool3d",), name="adaptive_max_pool3d_bad_size", fn=pool("adaptive_max_pool3d", (3, 2)),
           shapes=SHAPES_3D[:1]),
    # ---- max_unpool (of max_pool's indices; the gradient flows through both)
    OpCase(ops=("max_unpool2d",),
           fn=lambda m, x: F(m).max_unpool2d(*F(m).max_pool2d(x, 2, return_indices=True), 2),
           shapes=SHAPES_2D),
    OpCase(ops=("max_unpool2d",), name="max_unpool2d_output_size",
           fn=lambda m, x: F(m).max_unpool2d(*F(m).max_pool2d(x, 3, 2, 1, return_indices=True), 3, 2, 1,
                                             output_size=x.shape[-2:]),
           shapes=SHAPES_2D),
    OpCase(ops=("max_unpool2d",), name="max_unpool2d_bad_output_size",
           fn=lambda m, x: F(m).max_unpool2d(*F(m).max_pool2d(x, 2, return_indices=True), 2, output_size=(9, 9)),
           shapes=[((1, 2, 6, 6),)]),
    OpCase(ops=("max_unpool2d",), name="max_unpool2d_invalid_index",
           fn=lambda m, x: F(m).max_unpool2d(*F(m).max_pool2d(x, 2, return_indices=True), 2, output_size=(3, 3)),
           shapes=[((1, 2, 6, 6),)]),
    OpCase(ops=("max_unpool1d",),
           fn=lambda m, x: F(m).max_unpool1d(*F(m).max_pool1d(x, 3, 2, 1, return_indices=True), 3, 2, 1),
           shapes=SHAPES_1D),
    OpCase(ops=("max_unpool3d",),
           fn=lambda m, x: F(m).max_unpool3d(*F(m).max_pool3d(x, 2, return_indices=True), 2), shapes=SHAPES_3D),
    OpCase(ops=("max_unpool3d",), name="max_unpool3d_half",
           fn=lambda m, x: F(m).max_unpool3d(*F(m).max_pool3d(x, 2, return_indices=True), 2),
           shapes=SHAPES_3D[3:], dtypes=("float16", "bfloat16", "int64")),
    # ---- channels_last (NHWC) inputs: pooled per channel vector, outputs stay channels_last
    OpCase(ops=("max_pool2d", "max_pool2d_with_indices"), name="max_pool2d_channels_last",
           fn=lambda m, x: F(m).max_pool2d(cl(m, x), 3, 2, 1, return_indices=True), shapes=CL_SHAPES),
    OpCase(ops=("max_pool2d",), name="max_pool2d_channels_last_dilated",
           fn=lambda m, x: F(m).max_pool2d(cl(m, x), 2, 1, 1, 2, ceil_mode=True), shapes=CL_SHAPES),
    OpCase(ops=("avg_pool2d",), name="avg_pool2d_channels_last", fn=lambda m, x: F(m).avg_pool2d(cl(m, x), 3, 2, 1),
           shapes=CL_SHAPES),
    OpCase(ops=("adaptive_avg_pool2d",), name="adaptive_avg_pool2d_channels_last",
           fn=lambda m, x: F(m).adaptive_avg_pool2d(cl(m, x), 1), shapes=CL_SHAPES),
    OpCase(ops=("adaptive_avg_pool2d",), name="adaptive_avg_pool2d_channels_last_windows",
           fn=lambda m, x: F(m).adaptive_avg_pool2d(cl(m, x), (4, 3)), shapes=CL_SHAPES),
    OpCase(ops=("adaptive_max_pool2d",), name="adaptive_max_pool2d_channels_last",
           fn=lambda m, x: F(m).adaptive_max_pool2d(cl(m, x), (4, 3), return_indices=True), shapes=CL_SHAPES),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_parity(case):
    assert run_case(case) > 0


def test_nan_and_ties_pick_pytorchs_index():
    rows = [[1.0, float("nan"), 3.0, float("nan")], [3.0, 3.0, 3.0, 1.0], [-float("inf")] * 4]
    for row in rows:
        got = [t.numpy() for t in F(flow).max_pool1d(flow.tensor([[row]]), 4, return_indices=True)]
        want = [t.numpy() for t in F(torch).max_pool1d(torch.tensor([[row]]), 4, return_indices=True)]
        np.testing.assert_array_equal(got[0], want[0])
        np.testing.assert_array_equal(got[1], want[1])
        got = [t.numpy() for t in F(flow).adaptive_max_pool1d(flow.tensor([[row]]), 1, True)]
        want = [t.numpy() for t in F(torch).adaptive_max_pool1d(torch.tensor([[row]]), 1, True)]
        np.testing.assert_array_equal(got[0], want[0])
        np.testing.assert_array_equal(got[1], want[1])


def _second_order(fn, shape, seed=0):
    """Gradients and a second-order gradient (of sum(gx * gx * x)), ours against torch."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(-1, 1, shape)
    v = None
    res = []
    for m in (flow, torch):
        xt = m.tensor(x).requires_grad_(True)
        out = fn(m, xt)
        if v is None:
            v = rng.uniform(-1, 1, tuple(out.shape))
        (gx,) = m.autograd.grad([out], [xt], [m.tensor(v)], create_graph=True)
        (ggx,) = m.autograd.grad([(gx * gx * xt).sum()], [xt])
        res.append((gx.detach().numpy(), ggx.detach().numpy()))
    np.testing.assert_allclose(res[0][0], res[1][0], rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(res[0][1], res[1][1], rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("fn,shape", [
    (pool("max_pool2d", 3, 2, 1), (2, 3, 7, 7)),
    (pool("avg_pool2d", 3, 2, 1, ceil_mode=True, count_include_pad=False), (2, 3, 7, 7)),
    (pool("avg_pool1d", 2), (2, 3, 7)),
    (pool("adaptive_avg_pool2d", (3, 4)), (2, 3, 7, 7)),
    (pool("adaptive_max_pool2d", (3, 4)), (2, 3, 7, 7)),
    (lambda m, x: F(m).max_unpool2d(*F(m).max_pool2d(x, 2, return_indices=True), 2), (2, 3, 6, 6)),
], ids=["max_pool2d", "avg_pool2d", "avg_pool1d", "adaptive_avg_pool2d", "adaptive_max_pool2d", "max_unpool2d"])
def test_second_order_gradients(fn, shape):
    _second_order(fn, shape)


def _raises(fn):
    """Runs fn with oneflow and torch: both raise the same exception type; returns our message."""
    with pytest.raises(Exception) as theirs:
        fn(torch)
    with pytest.raises(type(theirs.value)) as ours:
        fn(flow)
    return str(ours.value)


def test_errors():
    x = lambda m, *s: m.ones(*s)
    msg = _raises(lambda m: F(m).max_pool2d(x(m, 1, 1, 5, 5), 3, padding=2))
    assert "max_pool2d" in msg and "pad should be at most half" in msg and "[1, 1, 5, 5]" in msg
    msg = _raises(lambda m: F(m).avg_pool3d(x(m, 1, 1, 5, 5, 5), 2, padding=2))
    assert "avg_pool3d" in msg and "pad should be at most half" in msg and "[1, 1, 5, 5, 5]" in msg
    msg = _raises(lambda m: F(m).max_pool2d(x(m, 1, 2, 2, 2), 3))
    assert "max_pool2d" in msg and "Output size is too small" in msg and "2x2" in msg
    msg = _raises(lambda m: F(m).max_pool1d(x(m, 1, 2, 5), 2, padding=-1))
    assert "max_pool1d" in msg and "[1, 2, 5]" in msg
    msg = _raises(lambda m: F(m).max_pool3d(x(m, 4, 4, 4), 2))
    assert "max_pool3d" in msg and "[4, 4, 4]" in msg
    msg = _raises(lambda m: F(m).max_pool2d(x(m, 1, 1, 5, 5), 2, stride=0))
    assert "max_pool2d" in msg and "stride" in msg and "[1, 1, 5, 5]" in msg
    msg = _raises(lambda m: F(m).adaptive_avg_pool2d(x(m, 2, 3, 0, 4), 2))
    assert "adaptive_avg_pool2d" in msg and "[2, 3, 0, 4]" in msg
    msg = _raises(lambda m: F(m).adaptive_max_pool2d(x(m, 2, 3, 4, 4), (2, 2, 2)))
    assert "adaptive_max_pool2d" in msg and "output_size must be 2" in msg
    values, indices = F(flow).max_pool2d(flow.randn(1, 1, 6, 6), 2, return_indices=True)
    with pytest.raises(RuntimeError) as info:
        flow._C.ops.max_unpool2d(values, indices, [2, 2])
    assert "max_unpool2d" in str(info.value) and "invalid max index" in str(info.value)
    assert "2x2" in str(info.value)
    msg = _raises(lambda m: F(m).max_unpool2d(m.ones(1, 1, 3, 3), m.zeros(1, 1, 3, 3, dtype=m.int32), 2))
    assert "max_unpool2d" in msg and "int64" in msg and "int32" in msg
