"""Parity rows for dropout (ops/defs/dropout.cc) and F.dropout / dropout1d / dropout2d / dropout3d.

The masks cannot match torch's generator, so rows in training compare structure instead of
values (`check`): every output element is either 0 or input / (1 - p), the kept fraction is
near 1 - p, and channel-wise dropout zeroes whole channels. Rows whose result is not random
(evaluation, p == 0, p == 1) compare values and gradients with torch as usual.
"""

import numpy as np
import pytest
import torch
from parity import OpCase, raises_like_torch, run_case

import oneflow as flow

FLOATS = ("float32", "float64")
ALL_FLOATS = ("float32", "float64", "float16", "bfloat16")
SHAPES = [((40, 50),), ((7,),), ((3, 0),), ((2, 3, 4, 5),)]
NONEMPTY = [s for s in SHAPES if 0 not in s[0]]


def F(m):
    return m.nn.functional


def _np(t):
    if str(t.dtype).endswith("bfloat16"):
        t = t.float()
    return t.detach().numpy().astype(np.float64)


def _check_dropped(who, out, x, p, dtype, channel_dims):
    out, x = _np(out), _np(x)
    tol = 2e-2 if dtype in ("float16", "bfloat16") else 1e-6
    kept = np.isclose(out, x / (1 - p), rtol=tol, atol=tol) & (x != 0)
    zero = out == 0
    assert np.all(kept | zero), f"{who}: values other than 0 and x / (1 - p)"
    if channel_dims is not None and out.size:
        per_channel = zero.reshape(zero.shape[: zero.ndim - channel_dims] + (-1,))
        assert np.all(per_channel.all(-1) | (~per_channel).all(-1)), f"{who}: partly dropped channels"
    units = out.size if channel_dims is None else out.size // max(1, int(np.prod(out.shape[-channel_dims:])))
    if units >= 1000:
        frac = zero.mean()
        assert abs(frac - p) < 0.08, f"{who}: dropped fraction {frac} for p={p}"


def dropped(p, channel_dims=None):
    """Check of (output, input): out is 0 or x / (1 - p) everywhere and about a fraction p is
    dropped (for large enough tensors); with channel_dims (the dims of one channel), whole
    channels are dropped together."""

    def check(ours, theirs, dtype):
        for who, outs in (("ours", ours), ("torch", theirs)):
            _check_dropped(who, outs[0], outs[1], p, dtype, channel_dims)

    return check


def native_dropped(p):
    """Check of (output, mask, input): as `dropped`, and the mask is true where the output is kept."""

    def check(ours, theirs, dtype):
        for who, (out, mask, x) in (("ours", ours), ("torch", theirs)):
            _check_dropped(who, out, x, p, dtype, None)
            nonzero = _np(x) != 0
            assert np.array_equal(_np(mask).astype(bool)[nonzero], (_np(out) != 0)[nonzero]), f"{who}: mask"

    return check


def _with_input(out, x):
    return out, x * 1


CASES = [
    # native_dropout: (output, mask); the mask is true exactly where the output is kept.
    # (torch returns a float mask for empty inputs, so those are left out)
    OpCase(ops=("native_dropout",), fn=lambda m, x: (*m.native_dropout(x, 0.3, True), x * 1), shapes=NONEMPTY,
           dtypes=ALL_FLOATS, grad=False, check=native_dropped(0.3)),
    OpCase(ops=("native_dropout",), name="native_dropout_eval", fn=lambda m, x: m.native_dropout(x, 0.3, False),
           shapes=NONEMPTY),
    # dropout
    OpCase(ops=("dropout",), fn=lambda m, x: _with_input(F(m).dropout(x, 0.5), x), shapes=SHAPES, dtypes=ALL_FLOATS,
           grad=False, check=dropped(0.5)),
    OpCase(ops=("dropout",), name="dropout_p_small", fn=lambda m, x: _with_input(F(m).dropout(x, 0.1), x),
           shapes=SHAPES[:1], grad=False, check=dropped(0.1)),
    OpCase(ops=("dropout",), name="dropout_p_large", fn=lambda m, x: _with_input(m.dropout(x, 0.9, True), x),
           shapes=[((100, 100),)], grad=False, check=dropped(0.9)),
    OpCase(ops=("dropout",), name="dropout_eval", fn=lambda m, x: F(m).dropout(x, 0.5, training=False),
           shapes=SHAPES, dtypes=ALL_FLOATS),
    OpCase(ops=("dropout",), name="dropout_p0", fn=lambda m, x: F(m).dropout(x * 2, 0.0), shapes=SHAPES),
    OpCase(ops=("dropout",), name="dropout_p1", fn=lambda m, x: F(m).dropout(x, 1.0), shapes=SHAPES,
           dtypes=ALL_FLOATS),
    OpCase(ops=("dropout",), name="dropout_int_eval", fn=lambda m, x: F(m).dropout(x, 0.5, False), shapes=SHAPES[:2],
           dtypes=("int64",)),
    # in place
    OpCase(ops=("dropout_",), fn=lambda m, x: (F(m).dropout(x * 1, 0.4, inplace=True), x), shapes=SHAPES,
           grad=False, check=dropped(0.4)),
    OpCase(ops=("dropout_",), name="dropout__eval", fn=lambda m, x: F(m).dropout(x * 1, 0.4, False, inplace=True),
           shapes=SHAPES),
    OpCase(ops=("dropout_",), name="dropout__p1", fn=lambda m, x: F(m).dropout(x * 1, 1.0, True, True),
           shapes=SHAPES),
    # channel-wise
    OpCase(ops=("feature_dropout",), fn=lambda m, x: _with_input(m.feature_dropout(x, 0.5, True), x),
           shapes=[((40, 30, 3),), ((2, 3, 4, 5),)], grad=False, check=dropped(0.5, channel_dims=1)),
    OpCase(ops=("feature_dropout",), name="dropout1d", fn=lambda m, x: _with_input(F(m).dropout1d(x, 0.5), x),
           shapes=[((40, 30, 3),), ((30, 4),)], grad=False, check=dropped(0.5, channel_dims=1)),
    OpCase(ops=("feature_dropout",), name="dropout2d", fn=lambda m, x: _with_input(F(m).dropout2d(x, 0.5), x),
           shapes=[((40, 30, 3, 2),)], grad=False, check=dropped(0.5, channel_dims=2)),
    # A 3-D input to dropout2d is read as (N, C, L), as torch does (with a warning).
    OpCase(ops=("feature_dropout",), name="dropout2d_3d", fn=lambda m, x: _with_input(F(m).dropout2d(x, 0.5), x),
           shapes=[((30, 40, 5),)], grad=False, check=dropped(0.5, channel_dims=1)),
    OpCase(ops=("feature_dropout",), name="dropout3d", fn=lambda m, x: _with_input(F(m).dropout3d(x, 0.5), x),
           shapes=[((10, 30, 2, 2, 2),), ((30, 2, 3, 2),)], grad=False, check=dropped(0.5, channel_dims=3)),
    OpCase(ops=("feature_dropout",), name="dropout2d_eval", fn=lambda m, x: F(m).dropout2d(x, 0.5, training=False),
           shapes=[((2, 3, 4, 5),)]),
    OpCase(ops=("feature_dropout",), name="dropout2d_p1", fn=lambda m, x: F(m).dropout2d(x, 1.0),
           shapes=[((2, 3, 4, 5),)]),
    OpCase(ops=("feature_dropout_",), fn=lambda m, x: (F(m).dropout2d(x * 1, 0.5, inplace=True), x),
           shapes=[((40, 30, 3, 2),)], grad=False, check=dropped(0.5, channel_dims=2)),
    OpCase(ops=("feature_dropout_",), name="dropout1d_unbatched_inplace",
           fn=lambda m, x: (F(m).dropout1d(x * 1, 0.5, inplace=True), x), shapes=[((30, 4),)], grad=False,
           check=dropped(0.5, channel_dims=1)),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_parity(case):
    assert run_case(case) > 0


def test_manual_seed_reproduces_the_mask():
    x = flow.ones(64, 64)
    flow.manual_seed(7)
    a = F(flow).dropout(x, 0.5).numpy()
    b = F(flow).dropout(x, 0.5).numpy()
    flow.manual_seed(7)
    c = F(flow).dropout(x, 0.5).numpy()
    np.testing.assert_array_equal(a, c)
    assert not np.array_equal(a, b)
    flow.manual_seed(7)
    d = F(flow).dropout2d(flow.ones(8, 16, 2, 2), 0.5).numpy()
    flow.manual_seed(7)
    np.testing.assert_array_equal(d, F(flow).dropout2d(flow.ones(8, 16, 2, 2), 0.5).numpy())


def test_mask_does_not_depend_on_the_thread_count():
    x = flow.ones(300, 1000)
    saved = flow.get_num_threads()
    try:
        flow.set_num_threads(1)
        flow.manual_seed(3)
        one = F(flow).dropout(x, 0.3).numpy()
        flow.set_num_threads(max(2, saved))
        flow.manual_seed(3)
        many = F(flow).dropout(x, 0.3).numpy()
    finally:
        flow.set_num_threads(saved)
    np.testing.assert_array_equal(one, many)


@pytest.mark.parametrize("inplace", [False, True])
def test_gradient_is_mask_times_scale(inplace):
    x = flow.tensor(np.random.default_rng(0).standard_normal((50, 40))).requires_grad_()
    g = flow.tensor(np.random.default_rng(1).standard_normal((50, 40)))
    y = F(flow).dropout(x * 1, 0.25, inplace=inplace)
    y.backward(g)
    kept = y.detach().numpy() != 0
    np.testing.assert_allclose(x.grad.numpy(), np.where(kept, g.numpy() / 0.75, 0.0), rtol=1e-12)


def test_double_backward_through_dropout():
    x = flow.tensor(np.random.default_rng(0).standard_normal((30, 20))).requires_grad_()
    y = F(flow).dropout(x, 0.5)
    (gx,) = flow.autograd.grad((y * y).sum(), x, create_graph=True)
    (ggx,) = flow.autograd.grad(gx.sum(), x)
    kept = y.detach().numpy() != 0
    np.testing.assert_allclose(ggx.numpy(), np.where(kept, 2 * 4.0, 0.0), rtol=1e-12)


def test_eval_and_p0_return_the_input_itself():
    for m in (torch, flow):
        x = m.ones(3, 4)
        assert F(m).dropout(x, 0.5, training=False) is x
        assert F(m).dropout(x, 0.0) is x
        assert F(m).dropout2d(x.reshape(1, 3, 4), 0.5, training=False).shape == (1, 3, 4)


def test_errors():
    msg = raises_like_torch(lambda m: F(m).dropout(m.ones(3), 1.5))
    assert "dropout probability" in msg and "1.5" in msg
    msg = raises_like_torch(lambda m: F(m).dropout2d(m.ones(2, 3, 4), -0.1))
    assert "dropout probability" in msg and "-0.1" in msg
    msg = raises_like_torch(lambda m: F(m).dropout1d(m.ones(2, 3, 4, 5)))
    assert "dropout1d" in msg and "4-D" in msg and "[2, 3, 4, 5]" in msg
    msg = raises_like_torch(lambda m: m.dropout(m.ones(3), 2.0, True))
    assert "dropout" in msg and "2" in msg
    msg = raises_like_torch(lambda m: m.feature_dropout(m.ones(3), 0.5, True))
    assert "dropout" in msg and "[3]" in msg
