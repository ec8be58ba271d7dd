"""oneflow._C.<name>: OneFlow's functional names (as LiBai calls them), checked against torch
compositions of the same math, forward and gradient, and their bad-input errors."""

import math

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import oneflow as flow

RNG = np.random.default_rng(1)
C = flow._C


def _pair(shape, requires_grad=True):
    a = RNG.standard_normal(shape).astype(np.float32)
    return flow.tensor(a, requires_grad=requires_grad), torch.tensor(a, requires_grad=requires_grad)


def _close(a, b, tol=1e-5):
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=tol, atol=tol)


def _check(ours_fn, torch_fn, *pairs, tol=1e-5):
    ours = ours_fn(*(p[0] for p in pairs))
    theirs = torch_fn(*(p[1] for p in pairs))
    _close(ours, theirs, tol)
    w = RNG.standard_normal(tuple(theirs.shape)).astype(np.float32)
    (ours * flow.tensor(w)).sum().backward()
    (theirs * torch.tensor(w)).sum().backward()
    for ours_in, theirs_in in pairs:
        _close(ours_in.grad, theirs_in.grad, tol)


def test_fused_bias_add_gelu():
    _check(
        lambda a, b: C.fused_bias_add_gelu(a, b, axis=2),
        lambda a, b: TF.gelu(a + b),
        _pair((2, 3, 5)),
        _pair((5,)),
    )
    _check(
        lambda a, b: C.fused_bias_add_gelu(a, b, axis=1),
        lambda a, b: TF.gelu(a + b[:, None]),
        _pair((2, 4, 3)),
        _pair((4,)),
    )
    with pytest.raises(ValueError, match=r"bias must be 1-d of size a.shape\[2\] = 5"):
        C.fused_bias_add_gelu(flow.zeros(2, 3, 5), flow.zeros(3), axis=2)
    with pytest.raises(IndexError, match="'axis' is out of range"):
        C.fused_bias_add_gelu(flow.zeros(2, 3), flow.zeros(3), axis=2)
    with pytest.raises(TypeError, match="missing 1 required keyword-only argument: 'axis'"):
        C.fused_bias_add_gelu(flow.zeros(2, 3), flow.zeros(3))


def test_fused_bias_add_dropout():
    _check(
        lambda a, b: C.fused_bias_add_dropout(a, b, p=0.0, axis=1),
        lambda a, b: a + b,
        _pair((4, 6)),
        _pair((6,)),
    )
    a = flow.ones(200, 50)
    out = C.fused_bias_add_dropout(a, flow.ones(50), p=0.5, axis=1)
    values = set(np.unique(out.numpy()).tolist())
    assert values <= {0.0, 4.0} and 0.4 < (out.numpy() == 0).mean() < 0.6
    with pytest.raises(ValueError, match="probability in \\[0, 1\\], got 1.5"):
        C.fused_bias_add_dropout(a, flow.ones(50), p=1.5, axis=1)


def test_dropout():
    x, tx = _pair((3, 4))
    assert C.dropout(x, 0.3, False) is x
    _check(lambda x, y: C.dropout(x, p=0.0, addend=y), lambda x, y: x + y, _pair((3, 4)), _pair((3, 4)))
    out = C.dropout(flow.ones(100, 100), p=0.2)
    assert set(np.unique(out.numpy()).tolist()) <= {0.0, 1.25}
    g1, g2 = flow.Generator(), flow.Generator()
    g1.manual_seed(7)
    g2.manual_seed(7)
    a = C.dropout(flow.ones(64), 0.5, generator=g1)
    b = C.dropout(flow.ones(64), 0.5, generator=g2)
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    # Gradient of dropout: the same mask and scale as the forward.
    y = flow.ones(50, 50, requires_grad=True)
    out = C.dropout(y, 0.5)
    out.sum().backward()
    np.testing.assert_array_equal(y.grad.numpy(), out.detach().numpy())
    z = flow.ones(8)
    assert C.dropout(z, 0.5, True, True) is z
    with pytest.raises(TypeError, match="dropout.*'input' must be Tensor"):
        C.dropout([1.0])
    with pytest.raises(TypeError, match="'generator' must be Generator"):
        C.dropout(z, 0.5, False, generator=0)
    with pytest.raises(TypeError, match="'training' must be bool"):
        C.dropout(z, 0.5, 1)


def test_fused_scale_mask_softmax():
    mask = flow.tensor(RNG.random((2, 1, 4, 5)) > 0.3)
    tmask = torch.tensor(mask.numpy())
    for m, tm in ((mask, tmask), (mask.to(flow.int8), tmask.to(torch.int8))):
        _check(
            lambda x: C.fused_scale_mask_softmax(x, m, fill_value=-1e4, scale=0.5),
            lambda x: torch.softmax(torch.where(tm.bool(), x * 0.5, torch.tensor(-1e4)), -1),
            _pair((2, 3, 4, 5)),
        )
    with pytest.raises(ValueError, match="does not broadcast"):
        C.fused_scale_mask_softmax(flow.zeros(2, 3), flow.ones(4, dtype=flow.bool))
    with pytest.raises(TypeError, match="'fill_value' must be float"):
        C.fused_scale_mask_softmax(flow.zeros(2, 3), flow.ones(3, dtype=flow.bool), fill_value="x")


def test_fused_scale_mask_softmax_dropout():
    mask = flow.tensor(RNG.random((4, 6)) > 0.5)
    tmask = torch.tensor(mask.numpy())
    x, tx = _pair((2, 4, 6))
    y, softmax_y = C.fused_scale_mask_softmax_dropout(x, mask, fill_value=-1e4, scale=2.0, p=0.0)
    ref = torch.softmax(torch.where(tmask, tx * 2.0, torch.tensor(-1e4)), -1)
    _close(y, ref)
    _close(softmax_y, ref)
    y.sum().backward()
    ref.sum().backward()
    _close(x.grad, tx.grad)
    y, softmax_y = C.fused_scale_mask_softmax_dropout(flow.zeros(50, 40), flow.ones(40, dtype=flow.bool), p=0.5)
    kept = y.numpy() != 0
    np.testing.assert_allclose(y.numpy()[kept], 2 * softmax_y.numpy()[kept], rtol=1e-6)


def test_fused_scale_tril_softmax_mask_scale():
    x, tx = _pair((2, 5, 5))
    y, softmax_y = C.fused_scale_tril_softmax_mask_scale(x, p=0.0, diagonal=0, tril_scale_value=0.5)
    causal = torch.ones(5, 5, dtype=torch.bool).tril()
    ref = torch.softmax((tx * 0.5).masked_fill(~causal, -math.inf), -1)
    _close(y, ref)
    _close(softmax_y, ref)
    y.sum().backward()
    ref.sum().backward()
    _close(x.grad, tx.grad)


@pytest.mark.parametrize("shape,norm_axis", [((2, 3, 8), 2), ((2, 3, 8), 1), ((4, 6), -1)])
def test_layer_norm_affine(shape, norm_axis):
    dims = tuple(shape[norm_axis:])
    _check(
        lambda x, g, b: C.layer_norm_affine(
            x, g, b, begin_norm_axis=norm_axis, begin_params_axis=norm_axis, epsilon=1e-5
        ),
        lambda x, g, b: TF.layer_norm(x, dims, g, b, 1e-5),
        _pair(shape),
        _pair(dims),
        _pair(dims),
        tol=1e-4,
    )
    _check(
        lambda x: C.layer_norm(x, begin_norm_axis=norm_axis, begin_params_axis=norm_axis, epsilon=1e-6),
        lambda x: TF.layer_norm(x, dims, eps=1e-6),
        _pair(shape),
        tol=1e-4,
    )


def test_layer_norm_affine_params_axis_after_norm_axis():
    # Normalize over the last two dims; the affine parameters cover only the last one.
    _check(
        lambda x, g, b: C.layer_norm_affine(x, g, b, 1, 2, 1e-5),
        lambda x, g, b: TF.layer_norm(x, (3, 8), eps=1e-5) * g + b,
        _pair((2, 3, 8)),
        _pair((8,)),
        _pair((8,)),
        tol=1e-4,
    )
    with pytest.raises(ValueError, match=r"gamma must have shape.*\(8,\), got \(3,\)"):
        C.layer_norm_affine(flow.zeros(2, 8), flow.ones(3), flow.zeros(8), 1, 1, 1e-5)
    with pytest.raises(IndexError, match="'begin_norm_axis' is out of range"):
        C.layer_norm(flow.zeros(2, 8), 2, 1, 1e-5)
    with pytest.raises(TypeError, match="'epsilon' must be float"):
        C.layer_norm(flow.zeros(2, 8), 1, 1, None)


def test_sparse_softmax_cross_entropy():
    label = RNG.integers(0, 7, (3, 4))
    for dtype in (flow.int32, flow.int64):
        _check(
            lambda x: C.sparse_softmax_cross_entropy(x, flow.tensor(label, dtype=dtype)),
            lambda x: TF.cross_entropy(x.permute(0, 2, 1), torch.tensor(label), reduction="none"),
            _pair((3, 4, 7)),
        )
    with pytest.raises(ValueError, match=r"label must have shape logits.shape\[:-1\]"):
        C.sparse_softmax_cross_entropy(flow.zeros(3, 7), flow.zeros(4, dtype=flow.int64))
    with pytest.raises(IndexError, match=r"\[0, 7\)"):
        C.sparse_softmax_cross_entropy(flow.zeros(1, 7), flow.tensor([7]))
    with pytest.raises(TypeError, match="'label' must be an int32 or int64"):
        C.sparse_softmax_cross_entropy(flow.zeros(1, 7), flow.tensor([0.0]))


def test_softmax_cross_entropy():
    probs = torch.softmax(torch.randn(5, 6), -1).numpy()
    _check(
        lambda x: C.softmax_cross_entropy(x, flow.tensor(probs)),
        lambda x: TF.cross_entropy(x, torch.tensor(probs), reduction="none"),
        _pair((5, 6)),
    )
    with pytest.raises(ValueError, match="label must have the shape of logits"):
        C.softmax_cross_entropy(flow.zeros(5, 6), flow.zeros(5))


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_with_approximate(approximate):
    _check(
        lambda x: C.gelu_with_approximate(x, approximate),
        lambda x: TF.gelu(x, approximate=approximate),
        _pair((4, 5)),
    )
    with pytest.raises(ValueError, match="'approximate' must be 'none' or 'tanh'"):
        C.gelu_with_approximate(flow.zeros(2), "fast")


def test_fast_gelu():
    _check(C.fast_gelu, lambda x: TF.gelu(x, approximate="tanh"), _pair((3, 4)))


def test_divides():
    a = flow.tensor([7.0, -7.0, 5.5, -5.5])
    b = flow.tensor([2.0, 2.0, -2.0, -2.0])
    np.testing.assert_array_equal(C.trunc_divide(a, b).numpy(), [3, -3, -2, 2])
    np.testing.assert_array_equal(C.floor_divide(a, b).numpy(), [3, -4, -3, 2])
    np.testing.assert_array_equal(C.floor_divide(a, 2).numpy(), [3, -4, 2, -3])
    c = a.clone()
    assert C.floor_divide(c, 2, inplace=True) is c
    np.testing.assert_array_equal(c.numpy(), [3, -4, 2, -3])
    with pytest.raises(TypeError, match="trunc_divide.*'y'"):
        C.trunc_divide(a, "2")


def test_reshape_like_and_identity():
    _check(lambda x: C.reshape_like(x, flow.zeros(3, 4)), lambda x: x.reshape(3, 4), _pair((2, 6)))
    with pytest.raises(ValueError, match="reshape_like.*12 elements.*10 elements"):
        C.reshape_like(flow.zeros(2, 6), flow.zeros(2, 5))
    x = flow.zeros(2)
    assert C.amp_white_identity(x) is x


@pytest.mark.parametrize("axis, index_shape", [(0, (2, 3)), (1, (4,)), (-1, (2, 2)), (0, ())])
def test_gather(axis, index_shape):
    # OneFlow's gather takes whole slices (an embedding lookup): index_select, then the index shape.
    index = RNG.integers(0, 3, index_shape)
    ours_index, torch_index = flow.tensor(index), torch.tensor(index)

    def reference(x):
        d = axis % x.dim()
        picked = torch.index_select(x, d, torch_index.reshape(-1))
        return picked.reshape(*x.shape[:d], *torch_index.shape, *x.shape[d + 1:])

    _check(lambda x: C.gather(x, ours_index, axis=axis), reference, _pair((3, 3, 5)))


def test_gather_bad_input():
    with pytest.raises(TypeError, match="gather.*'indices' must be an int32 or int64 tensor"):
        C.gather(flow.zeros(3, 2), flow.zeros(2), axis=0)
    with pytest.raises(IndexError, match="gather.*'axis' is out of range"):
        C.gather(flow.zeros(3, 2), flow.tensor([0]), axis=2)
    with pytest.raises(TypeError, match="gather.*'x' must be Tensor"):
        C.gather([1, 2], flow.tensor([0]), axis=0)


def test_relu_and_cross_entropy():
    _check(lambda x: C.relu(x), TF.relu, _pair((4, 5)))
    target = RNG.integers(0, 5, (4,))
    target[1] = -1
    _check(
        lambda x: C.cross_entropy(x, flow.tensor(target), None, -1, "none"),
        lambda x: TF.cross_entropy(x, torch.tensor(target), None, ignore_index=-1, reduction="none"),
        _pair((4, 5)),
    )
    with pytest.raises(ValueError, match="cross_entropy.*'reduction'"):
        C.cross_entropy(flow.zeros(2, 3), flow.tensor([0, 1]), reduction="avg")
    with pytest.raises(TypeError, match="relu.*'inplace' must be bool"):
        C.relu(flow.zeros(2), inplace=1)


def test_global_arange_requires_placement_and_sbp():
    with pytest.raises(TypeError, match="global_arange.*'placement' and 'sbp' are required"):
        C.global_arange(0, 4, placement=None, sbp=None)


def test_functional_names_on_C():
    for name in (
        "dropout",
        "fused_bias_add_gelu",
        "fused_bias_add_dropout",
        "fused_scale_mask_softmax",
        "fused_scale_mask_softmax_dropout",
        "fused_scale_tril_softmax_mask_scale",
        "layer_norm_affine",
        "layer_norm",
        "sparse_softmax_cross_entropy",
        "softmax_cross_entropy",
        "gelu_with_approximate",
        "trunc_divide",
        "floor_divide",
        "reshape_like",
        "fast_gelu",
        "matmul",
        "gather_nd",
        "scatternd",
        "batch_gather",
        "in_top_k",
        "tensor_scatter_nd_update",
        "gather",
        "relu",
        "cross_entropy",
        "global_arange",
    ):
        assert callable(getattr(flow._C, name)), name
    assert flow._C.dropout.__name__ == "dropout"
