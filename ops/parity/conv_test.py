"""Parity rows for the convolutions (ops/defs/conv.cc): conv1d/2d/3d with every padding mode,
conv_transpose1d/2d/3d and the convolution op under them, forward and gradients of input,
weight and bias; plus second-order gradients and the error messages."""

import numpy as np
import pytest
import torch
from parity import OpCase, run_case

import oneflow as flow

FLOATS = ("float32", "float64")
# Sums of up to a few hundred products: float32 differs from torch's order of summation.
TOL = {"rtol": 1e-4, "atol": 1e-4}


def F(m):
    return m.nn.functional


def conv(name, **kwargs):
    """fn(m, x, w[, b]) calling F.<name>(x, w, b, **kwargs)."""
    return lambda m, x, w, b=None: getattr(F(m), name)(x, w, b, **kwargs)


CONV2D_SHAPES = [
    ((2, 4, 7, 7), (6, 4, 3, 3), (6,)),
    ((2, 4, 7, 7), (6, 4, 3, 3)),
    ((1, 3, 5, 6), (2, 3, 1, 1), (2,)),
    ((3, 2, 6, 5), (4, 2, 3, 2), (4,)),
    # Unbatched input, empty batch.
    ((4, 7, 7), (6, 4, 3, 3), (6,)),
    ((0, 4, 7, 7), (6, 4, 3, 3), (6,)),
    # Wider channels (oneDNN's blocked layouts) and a 3-channel first layer.
    ((2, 32, 10, 10), (48, 32, 3, 3), (48,)),
    ((2, 3, 20, 20), (16, 3, 7, 7), (16,)),
    # Errors: channel count, kernel larger than the padded input, bias size, rank.
    ((2, 4, 5, 5), (3, 3, 3, 3)),
    ((2, 4, 2, 2), (3, 4, 5, 5)),
    ((2, 4, 5, 5), (3, 4, 3, 3), (4,)),
    ((5, 5), (3, 4, 3, 3)),
]

GROUPED_SHAPES = [
    ((2, 6, 8, 8), (9, 2, 3, 3), (9,)),
    ((2, 6, 8, 8), (6, 2, 3, 3)),
    # groups not dividing the weight's out channels / the input's channels
    ((2, 6, 8, 8), (8, 2, 3, 3)),
    ((2, 5, 8, 8), (6, 2, 3, 3)),
]

DEPTHWISE_SHAPES = [
    ((2, 6, 9, 9), (6, 1, 3, 3), (6,)),
    ((2, 6, 9, 9), (12, 1, 3, 3), (12,)),
    ((2, 16, 9, 9), (16, 1, 5, 5), (16,)),
]

CONV1D_SHAPES = [
    ((2, 4, 9), (6, 4, 3), (6,)),
    ((4, 9), (6, 4, 3), (6,)),
    ((2, 4, 9), (6, 4, 1)),
    ((0, 4, 9), (6, 4, 3), (6,)),
    ((2, 16, 20), (24, 16, 5), (24,)),
    ((2, 4, 9), (6, 3, 3)),
]

CONV3D_SHAPES = [
    ((2, 3, 5, 6, 5), (4, 3, 3, 3, 3), (4,)),
    ((3, 5, 6, 5), (4, 3, 3, 2, 3), (4,)),
    ((2, 16, 6, 6, 6), (16, 16, 3, 3, 3), (16,)),
    ((1, 2, 4, 4, 4), (4, 2, 1, 1, 1)),
    ((2, 3, 5, 6, 5), (4, 2, 3, 3, 3)),
]

# conv_transpose weights are (in_channels, out_channels / groups, *kernel).
CONVT2D_SHAPES = [
    ((2, 4, 5, 5), (4, 3, 3, 3), (3,)),
    ((2, 4, 5, 5), (4, 3, 3, 3)),
    ((4, 5, 5), (4, 3, 2, 3), (3,)),
    ((0, 4, 5, 5), (4, 3, 3, 3), (3,)),
    ((2, 32, 6, 6), (32, 24, 3, 3), (24,)),
    ((2, 16, 6, 6), (16, 3, 4, 4), (3,)),
    ((2, 4, 5, 5), (3, 3, 3, 3)),
    ((2, 4, 5, 5), (4, 3, 3, 3), (4,)),
]

CONVT_GROUPED_SHAPES = [
    ((2, 4, 5, 5), (4, 2, 3, 3), (4,)),
    ((2, 6, 5, 5), (6, 1, 3, 3), (3,)),
    ((2, 6, 5, 5), (6, 3, 3, 3)),
    # in_channels not divisible by groups
    ((2, 5, 5, 5), (5, 2, 3, 3)),
]

CONVT1D_SHAPES = [((2, 4, 7), (4, 3, 3), (3,)), ((4, 7), (4, 3, 3), (3,)), ((2, 16, 8), (16, 8, 5), (8,))]
CONVT3D_SHAPES = [((2, 4, 3, 4, 3), (4, 3, 3, 3, 3), (3,)), ((4, 3, 4, 3), (4, 2, 2, 3, 2)),
                  ((1, 16, 3, 3, 3), (16, 16, 3, 3, 3), (16,))]


def cl(m, t):
    """`t` in channels_last (NHWC) memory format."""
    return t.contiguous(memory_format=m.channels_last)


CASES = [
    # ---- conv2d
    OpCase(ops=("conv2d", "convolution"), fn=conv("conv2d"), shapes=CONV2D_SHAPES, **TOL),
    OpCase(ops=("conv2d",), name="conv2d_stride_padding", fn=conv("conv2d", stride=2, padding=1),
           shapes=CONV2D_SHAPES[:8], **TOL),
    OpCase(ops=("conv2d",), name="conv2d_asymmetric", fn=conv("conv2d", stride=(2, 1), padding=(1, 2)),
           shapes=CONV2D_SHAPES[:4] + CONV2D_SHAPES[6:8], **TOL),
    OpCase(ops=("conv2d",), name="conv2d_dilation",
           fn=conv("conv2d", stride=(1, 2), padding=(2, 1), dilation=(2, 3)),
           shapes=[((2, 4, 9, 11), (6, 4, 3, 3), (6,)), ((2, 32, 9, 11), (16, 32, 3, 2), (16,))], **TOL),
    OpCase(ops=("conv2d",), name="conv2d_padding_larger_than_kernel", fn=conv("conv2d", padding=3),
           shapes=[((2, 4, 5, 5), (3, 4, 3, 3), (3,))], **TOL),
    OpCase(ops=("conv2d",), name="conv2d_stride_leaves_remainder", fn=conv("conv2d", stride=3),
           shapes=[((2, 4, 8, 10), (3, 4, 3, 3), (3,)), ((2, 32, 8, 10), (32, 32, 2, 2), (32,))], **TOL),
    OpCase(ops=("conv2d",), name="conv2d_groups", fn=conv("conv2d", groups=3, padding=1), shapes=GROUPED_SHAPES,
           **TOL),
    OpCase(ops=("conv2d",), name="conv2d_depthwise", fn=conv("conv2d", groups=6, stride=2, padding=1),
           shapes=DEPTHWISE_SHAPES[:2], **TOL),
    OpCase(ops=("conv2d",), name="conv2d_depthwise16", fn=conv("conv2d", groups=16, padding=2),
           shapes=DEPTHWISE_SHAPES[2:], **TOL),
    OpCase(ops=("conv2d",), name="conv2d_same", fn=conv("conv2d", padding="same"),
           shapes=[((2, 4, 7, 8), (6, 4, 3, 3), (6,)), ((2, 4, 7, 8), (6, 4, 4, 2), (6,)),
                   ((2, 4, 7, 8), (6, 4, 2, 5)), ((4, 6, 5), (3, 4, 4, 4), (3,))], **TOL),
    OpCase(ops=("conv2d",), name="conv2d_same_dilated", fn=conv("conv2d", padding="same", dilation=(2, 1)),
           shapes=[((2, 4, 9, 8), (6, 4, 3, 4), (6,)), ((2, 16, 9, 8), (16, 16, 2, 2))], **TOL),
    OpCase(ops=("conv2d",), name="conv2d_valid", fn=conv("conv2d", padding="valid", stride=2),
           shapes=[((2, 4, 7, 8), (6, 4, 3, 3), (6,))], **TOL),
    OpCase(ops=("conv2d",), name="conv2d_same_strided_error", fn=conv("conv2d", padding="same", stride=2),
           shapes=[((2, 4, 7, 8), (6, 4, 3, 3))]),
    OpCase(ops=("conv2d",), name="conv2d_bad_padding_string", fn=conv("conv2d", padding="full"),
           shapes=[((2, 4, 7, 8), (6, 4, 3, 3))]),
    OpCase(ops=("conv2d",), name="conv2d_negative_padding", fn=conv("conv2d", padding=-1),
           shapes=[((2, 4, 7, 8), (6, 4, 3, 3))]),
    OpCase(ops=("conv2d",), name="conv2d_bad_stride", fn=conv("conv2d", stride=0),
           shapes=[((2, 4, 7, 8), (6, 4, 3, 3))]),
    OpCase(ops=("conv2d",), name="conv2d_bad_groups", fn=conv("conv2d", groups=0),
           shapes=[((2, 4, 7, 8), (6, 4, 3, 3))]),
    OpCase(ops=("conv2d",), name="conv2d_positional", fn=lambda m, x, w, b: F(m).conv2d(x, w, b, 1, 1, 1, 1),
           shapes=[((2, 4, 7, 8), (6, 4, 3, 3), (6,))], **TOL),
    OpCase(ops=("conv2d",), name="conv2d_method_chain", fn=lambda m, x, w: m.conv2d(x * 2, w.permute(0, 1, 3, 2)),
           shapes=[((2, 4, 7, 8), (6, 4, 3, 3))], **TOL),
    OpCase(ops=("conv2d",), name="conv2d_half", fn=conv("conv2d", padding=1),
           shapes=[((2, 4, 7, 7), (6, 4, 3, 3), (6,)), ((2, 16, 6, 6), (16, 16, 3, 3))], dtypes=("float16",),
           rtol=2e-2, atol=5e-2),
    OpCase(ops=("conv2d",), name="conv2d_bfloat16", fn=conv("conv2d", padding=1),
           shapes=[((2, 4, 7, 7), (6, 4, 3, 3), (6,)), ((2, 16, 6, 6), (16, 16, 3, 3))], dtypes=("bfloat16",),
           rtol=5e-2, atol=3e-1),
    OpCase(ops=("conv2d",), name="conv2d_int", fn=conv("conv2d", padding=1, stride=2),
           shapes=[((2, 4, 7, 7), (6, 4, 3, 3), (6,))], dtypes=("int64",)),
    OpCase(ops=("conv2d",), name="conv2d_dtype_mismatch", fn=lambda m, x, w: F(m).conv2d(x, w.double()),
           shapes=[((2, 4, 7, 7), (6, 4, 3, 3))], dtypes=("float32",)),
    # ---- conv1d / conv3d
    OpCase(ops=("conv1d",), fn=conv("conv1d"), shapes=CONV1D_SHAPES, **TOL),
    OpCase(ops=("conv1d",), name="conv1d_args", fn=conv("conv1d", stride=2, padding=2, dilation=2),
           shapes=CONV1D_SHAPES[:5], **TOL),
    OpCase(ops=("conv1d",), name="conv1d_groups", fn=conv("conv1d", groups=2, padding=1),
           shapes=[((2, 4, 9), (6, 2, 3), (6,)), ((2, 16, 20), (16, 1, 3))], **TOL),
    OpCase(ops=("conv1d",), name="conv1d_same", fn=conv("conv1d", padding="same", dilation=3),
           shapes=[((2, 4, 9), (6, 4, 2), (6,)), ((2, 4, 9), (6, 4, 3))], **TOL),
    OpCase(ops=("conv3d",), fn=conv("conv3d"), shapes=CONV3D_SHAPES, **TOL),
    OpCase(ops=("conv3d",), name="conv3d_args", fn=conv("conv3d", stride=(1, 2, 2), padding=1, dilation=(2, 1, 1)),
           shapes=CONV3D_SHAPES[:4], **TOL),
    OpCase(ops=("conv3d",), name="conv3d_same", fn=conv("conv3d", padding="same"),
           shapes=[((2, 3, 5, 6, 5), (4, 3, 2, 3, 2), (4,))], **TOL),
    OpCase(ops=("conv3d",), name="conv3d_depthwise", fn=conv("conv3d", groups=4, padding=1),
           shapes=[((2, 4, 5, 5, 5), (8, 1, 3, 3, 3), (8,))], **TOL),
    # ---- transposed
    OpCase(ops=("conv_transpose2d", "convolution"), fn=conv("conv_transpose2d"), shapes=CONVT2D_SHAPES, **TOL),
    OpCase(ops=("conv_transpose2d",), name="conv_transpose2d_stride",
           fn=conv("conv_transpose2d", stride=2, padding=1, output_padding=1), shapes=CONVT2D_SHAPES[:6], **TOL),
    OpCase(ops=("conv_transpose2d",), name="conv_transpose2d_asymmetric",
           fn=conv("conv_transpose2d", stride=(3, 2), padding=(2, 0), output_padding=(1, 0), dilation=(1, 2)),
           shapes=CONVT2D_SHAPES[:2] + CONVT2D_SHAPES[4:6], **TOL),
    # output_padding >= stride is allowed when it is below the dilation
    OpCase(ops=("conv_transpose2d",), name="conv_transpose2d_dilated_output_padding",
           fn=conv("conv_transpose2d", dilation=3, output_padding=2, padding=1),
           shapes=CONVT2D_SHAPES[:2] + CONVT2D_SHAPES[4:5], **TOL),
    OpCase(ops=("conv_transpose2d",), name="conv_transpose2d_groups",
           fn=conv("conv_transpose2d", groups=2, stride=2), shapes=CONVT_GROUPED_SHAPES, **TOL),
    OpCase(ops=("conv_transpose2d",), name="conv_transpose2d_depthwise",
           fn=conv("conv_transpose2d", groups=6, stride=2, padding=1, output_padding=1),
           shapes=[((2, 6, 5, 5), (6, 1, 3, 3), (6,)), ((2, 6, 5, 5), (6, 2, 3, 3), (12,))], **TOL),
    OpCase(ops=("conv_transpose2d",), name="conv_transpose2d_bad_output_padding",
           fn=conv("conv_transpose2d", stride=2, output_padding=2), shapes=CONVT2D_SHAPES[:1]),
    OpCase(ops=("conv_transpose2d",), name="conv_transpose2d_output_too_small",
           fn=conv("conv_transpose2d", padding=3), shapes=[((2, 4, 2, 2), (4, 3, 3, 3))]),
    OpCase(ops=("conv_transpose2d",), name="conv_transpose2d_negative_output_padding",
           fn=conv("conv_transpose2d", output_padding=-1), shapes=CONVT2D_SHAPES[:1]),
    OpCase(ops=("conv_transpose1d",), fn=conv("conv_transpose1d", stride=2, padding=1, output_padding=1),
           shapes=CONVT1D_SHAPES, **TOL),
    OpCase(ops=("conv_transpose1d",), name="conv_transpose1d_groups", fn=conv("conv_transpose1d", groups=4),
           shapes=[((2, 4, 7), (4, 2, 3), (8,)), ((2, 16, 8), (16, 1, 3), (16,))], **TOL),
    OpCase(ops=("conv_transpose3d",), fn=conv("conv_transpose3d", stride=(1, 2, 2), padding=1),
           shapes=CONVT3D_SHAPES, **TOL),
    OpCase(ops=("conv_transpose3d",), name="conv_transpose3d_output_padding",
           fn=conv("conv_transpose3d", stride=2, output_padding=(1, 0, 1), dilation=(1, 2, 1)),
           shapes=CONVT3D_SHAPES[:2], **TOL),
    OpCase(ops=("conv_transpose2d",), name="conv_transpose2d_bfloat16", fn=conv("conv_transpose2d", stride=2),
           shapes=[((2, 16, 5, 5), (16, 8, 3, 3), (8,))], dtypes=("bfloat16",), rtol=5e-2, atol=3e-1),
    OpCase(ops=("conv_transpose2d",), name="conv_transpose2d_half", fn=conv("conv_transpose2d", stride=2),
           shapes=[((2, 16, 5, 5), (16, 8, 3, 3), (8,))], dtypes=("float16",), rtol=2e-2, atol=5e-2),
    OpCase(ops=("conv_transpose2d",), name="conv_transpose2d_int", fn=conv("conv_transpose2d", stride=2),
           shapes=[((2, 4, 5, 5), (4, 3, 3, 3), (3,))], dtypes=("int64",)),
    # ---- convolution (PyTorch's aten::convolution)
    OpCase(ops=("convolution",), name="convolution_op",
           fn=lambda m, x, w, b: m.convolution(x, w, b, [2, 1], [1, 0], [1, 2], False, [0, 0], 2),
           shapes=[((2, 4, 7, 8), (6, 2, 3, 3), (6,))], **TOL),
    OpCase(ops=("convolution",), name="convolution_transposed_op",
           fn=lambda m, x, w, b: m.convolution(x, w, b, [2], [1], [1], True, [1], 1),
           shapes=[((2, 4, 7), (4, 3, 3), (3,)), ((2, 4, 7, 6), (4, 3, 3, 3), (3,))], **TOL),
    # ---- channels_last (NHWC) inputs and weights: oneDNN computes in that layout
    OpCase(ops=("conv2d",), name="conv2d_channels_last", fn=lambda m, x, w, b: F(m).conv2d(cl(m, x), w, b, padding=1),
           shapes=[((2, 16, 9, 9), (24, 16, 3, 3), (24,)), ((2, 3, 10, 10), (16, 3, 7, 7), (16,)),
                   ((1, 8, 5, 5), (8, 8, 1, 1), (8,))], **TOL),
    OpCase(ops=("conv2d",), name="conv2d_channels_last_both",
           fn=lambda m, x, w: F(m).conv2d(cl(m, x), cl(m, w), stride=2, padding=1),
           shapes=[((2, 16, 9, 9), (24, 16, 3, 3)), ((2, 32, 8, 8), (64, 32, 1, 1))], **TOL),
    OpCase(ops=("conv2d",), name="conv2d_channels_last_weight", fn=lambda m, x, w: F(m).conv2d(x, cl(m, w)),
           shapes=[((2, 16, 6, 6), (24, 16, 3, 3))], **TOL),
    OpCase(ops=("conv2d",), name="conv2d_channels_last_groups",
           fn=lambda m, x, w: F(m).conv2d(cl(m, x), w, padding=1, groups=4),
           shapes=[((2, 16, 6, 6), (16, 4, 3, 3))], **TOL),
    OpCase(ops=("conv3d",), name="conv3d_channels_last_3d",
           fn=lambda m, x, w: F(m).conv3d(x.contiguous(memory_format=m.channels_last_3d), w, padding=1),
           shapes=[((2, 8, 4, 5, 5), (8, 8, 3, 3, 3))], **TOL),
    OpCase(ops=("conv_transpose2d",), name="conv_transpose2d_channels_last",
           fn=lambda m, x, w: F(m).conv_transpose2d(cl(m, x), w, stride=2),
           shapes=[((2, 16, 5, 5), (16, 8, 3, 3))], **TOL),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_parity(case):
    assert run_case(case) > 0


# ---- second-order gradients ----------------------------------------------------------

def _second_order(fn, shapes, dtype="float64", seed=0):
    """d(sum(grad . v))/d(inputs) with create_graph, ours against torch."""
    rng = np.random.default_rng(seed)
    arrays = [rng.uniform(-1, 1, s) for s in shapes]
    results = []
    for m in (flow, torch):
        inputs = [m.tensor(a).to(getattr(m, dtype)).requires_grad_(True) for a in arrays]
        out = fn(m, *inputs)
        v = m.tensor(np.random.default_rng(seed + 1).uniform(-1, 1, tuple(out.shape))).to(out.dtype)
        grads = m.autograd.grad([out], inputs, [v], create_graph=True)
        total = sum((g * g).sum() for g in grads)
        second = m.autograd.grad([total], inputs, allow_unused=True)
        second = [np.zeros(a.shape) if g is None else g.detach().numpy() for g, a in zip(second, arrays)]
        results.append([*[g.detach().numpy() for g in grads], *second])
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=1e-7, atol=1e-8)


@pytest.mark.parametrize("fn,shapes", [
    (conv("conv2d", stride=2, padding=1), [(2, 4, 7, 7), (6, 4, 3, 3), (6,)]),
    (conv("conv2d", groups=2, dilation=2), [(2, 4, 9, 9), (6, 2, 3, 3), (6,)]),
    (conv("conv_transpose2d", stride=2, output_padding=1), [(2, 4, 5, 5), (4, 3, 3, 3), (3,)]),
    (conv("conv1d", padding="same"), [(2, 3, 8), (4, 3, 4), (4,)]),
    (conv("conv_transpose3d", stride=(1, 2, 1)), [(1, 2, 3, 3, 3), (2, 2, 2, 2, 2), (2,)]),
], ids=["conv2d", "conv2d_groups_dilated", "conv_transpose2d", "conv1d_same", "conv_transpose3d"])
def test_second_order_gradients(fn, shapes):
    _second_order(fn, shapes)


def test_float32_second_order_goes_through_onednn():
    # The gradient ops' own gradients are convolutions again (oneDNN for float32).
    rng = np.random.default_rng(3)
    x, w = rng.uniform(-1, 1, (2, 16, 6, 6)), rng.uniform(-1, 1, (16, 16, 3, 3))
    res = []
    for m in (flow, torch):
        xt = m.tensor(x).float().requires_grad_(True)
        wt = m.tensor(w).float().requires_grad_(True)
        y = F(m).conv2d(xt, wt, padding=1)
        (gx,) = m.autograd.grad([y.sum()], [xt], create_graph=True)
        (gw,) = m.autograd.grad([(gx * gx).sum()], [wt])
        res.append(gw.detach().numpy())
    np.testing.assert_allclose(res[0], res[1], rtol=1e-4, atol=1e-3)


# ---- layouts and caching ------------------------------------------------------------------

def test_channels_last_and_strided_inputs():
    rng = np.random.default_rng(1)
    x, w = rng.uniform(-1, 1, (2, 8, 9, 9)).astype(np.float32), rng.uniform(-1, 1, (16, 8, 3, 3)).astype(np.float32)
    want = F(torch).conv2d(torch.tensor(x), torch.tensor(w), padding=1).numpy()
    ox, ow = flow.tensor(x), flow.tensor(w)
    # NHWC memory, a sliced view, and an expanded (stride-0) batch.
    nhwc = ox.permute(0, 2, 3, 1).contiguous().permute(0, 3, 1, 2)
    got = F(flow).conv2d(nhwc, ow, padding=1).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
    wide = flow.tensor(np.concatenate([x, x], axis=3))[:, :, :, ::2]
    want_wide = F(torch).conv2d(torch.tensor(np.concatenate([x, x], axis=3))[:, :, :, ::2], torch.tensor(w)).numpy()
    np.testing.assert_allclose(F(flow).conv2d(wide, ow).numpy(), want_wide, rtol=1e-4, atol=1e-4)
    expanded = ox[:1].expand(3, 8, 9, 9)
    want_exp = F(torch).conv2d(torch.tensor(x)[:1].expand(3, 8, 9, 9), torch.tensor(w)).numpy()
    np.testing.assert_allclose(F(flow).conv2d(expanded, ow).numpy(), want_exp, rtol=1e-4, atol=1e-4)


def test_repeated_calls_reuse_primitives_and_stay_correct():
    # The second call with the same geometry takes the cached primitive; a new shape makes another.
    rng = np.random.default_rng(2)
    w = rng.uniform(-1, 1, (8, 4, 3, 3)).astype(np.float32)
    for n in (2, 2, 3, 2):
        x = rng.uniform(-1, 1, (n, 4, 6, 6)).astype(np.float32)
        got = F(flow).conv2d(flow.tensor(x), flow.tensor(w), padding=1).numpy()
        want = F(torch).conv2d(torch.tensor(x), torch.tensor(w), padding=1).numpy()
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


# ---- errors ------------------------------------------------------------------------------

def _raises(fn, *args, **kwargs):
    """Runs fn with oneflow and torch: both raise the same exception type; returns our message."""
    with pytest.raises(Exception) as theirs:
        fn(torch, *args, **kwargs)
    with pytest.raises(type(theirs.value)) as ours:
        fn(flow, *args, **kwargs)
    return str(ours.value)


def test_errors():
    ones = lambda m, *s: m.ones(*s)
    msg = _raises(lambda m: F(m).conv2d(ones(m, 2, 4, 5, 5), ones(m, 3, 3, 3, 3)))
    assert "conv2d" in msg and "[2, 4, 5, 5]" in msg and "[3, 3, 3, 3]" in msg and "to have 3 channels" in msg
    msg = _raises(lambda m: F(m).conv2d(ones(m, 2, 4, 5, 5), ones(m, 3, 2, 3, 3), groups=2))
    assert "conv2d" in msg and "groups=2" in msg and "[3, 2, 3, 3]" in msg
    msg = _raises(lambda m: F(m).conv2d(ones(m, 2, 5, 5, 5), ones(m, 4, 2, 3, 3), groups=2))
    assert "conv2d" in msg and "[2, 5, 5, 5]" in msg and "[4, 2, 3, 3]" in msg
    msg = _raises(lambda m: F(m).conv2d(ones(m, 1, 1, 2, 2), ones(m, 1, 1, 3, 3)))
    assert "conv2d" in msg and "(2 x 2)" in msg and "(3 x 3)" in msg and "[1, 1, 2, 2]" in msg
    msg = _raises(lambda m: F(m).conv2d(ones(m, 1, 1, 5, 5), ones(m, 1, 1, 3, 3), padding=-1))
    assert "conv2d" in msg and "negative padding" in msg and "[1, 1, 5, 5]" in msg
    msg = _raises(lambda m: F(m).conv2d(ones(m, 1, 1, 5, 5), ones(m, 1, 1, 3, 3), padding="same", stride=2))
    assert "conv2d" in msg and "padding='same' is not supported for strided convolutions" in msg
    assert "[1, 1, 5, 5]" in msg
    msg = _raises(lambda m: F(m).conv1d(ones(m, 2, 4, 9), ones(m, 3, 4, 3), bias=ones(m, 4)))
    assert "conv1d" in msg and "bias" in msg and "[4]" in msg
    msg = _raises(lambda m: F(m).conv3d(ones(m, 4, 4), ones(m, 3, 4, 3, 3, 3)))
    assert "conv3d" in msg and "[4, 4]" in msg
    msg = _raises(lambda m: F(m).conv_transpose2d(ones(m, 2, 4, 5, 5), ones(m, 4, 3, 3, 3), output_padding=1))
    assert "conv_transpose2d" in msg and "output padding must be smaller than either stride or dilation" in msg
    msg = _raises(lambda m: F(m).conv_transpose2d(ones(m, 2, 4, 5, 5), ones(m, 3, 3, 3, 3)))
    assert "conv_transpose2d" in msg and "[2, 4, 5, 5]" in msg and "[3, 3, 3, 3]" in msg
    msg = _raises(lambda m: F(m).conv2d(ones(m, 1, 1, 5, 5), ones(m, 1, 1, 3, 3).double()))
    assert "conv2d" in msg and "should be the same" in msg
