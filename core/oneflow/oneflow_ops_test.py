"""OneFlow-only ops (oneflow._oneflow_ops): values by NumPy formulas, gradients against torch
compositions of the same math, and bad-input errors."""

import numpy as np
import pytest
import torch

import oneflow as flow

RNG = np.random.default_rng(0)


def _np(t):
    return t.detach().numpy()


def _pair(array, requires_grad=True):
    return (
        flow.tensor(array, requires_grad=requires_grad),
        torch.tensor(array, requires_grad=requires_grad),
    )


def _close(a, b, tol=1e-5):
    np.testing.assert_allclose(_np(a), b.detach().numpy() if isinstance(b, torch.Tensor) else b, rtol=tol, atol=tol)


# ---------------------------------------------------------------------------------------------
# oneflow.<name>


def test_slice_update_in_place_and_grad():
    x = flow.ones(5)
    out = flow.slice_update(x, flow.tensor([2, 3, 4]), [[1, 4, 1]])
    assert out is x
    np.testing.assert_array_equal(_np(x), [1, 2, 3, 4, 1])
    # Multi-dim, None entries, strides, trailing dims taken whole.
    a = RNG.standard_normal((4, 6, 3)).astype(np.float32)
    u = RNG.standard_normal((2, 3, 3)).astype(np.float32)
    expected = a.copy()
    expected[None:4:2, 0:6:2] = u
    got = flow.slice_update(flow.tensor(a), flow.tensor(u), [[None, None, 2], (0, 6, 2)])
    np.testing.assert_array_equal(_np(got), expected)
    # Gradient through a non-leaf: the overwritten slice gets no gradient from the input.
    base, tbase = _pair(a)
    upd, tupd = _pair(u)
    y = base * 2
    flow.slice_update(y, upd, [[0, 4, 2], [0, 6, 2]])
    ty = tbase * 2
    ty[0:4:2, 0:6:2] = tupd
    w = RNG.standard_normal(a.shape).astype(np.float32)
    (y * flow.tensor(w)).sum().backward()
    (ty * torch.tensor(w)).sum().backward()
    _close(base.grad, tbase.grad)
    _close(upd.grad, tupd.grad)


def test_slice_update_errors():
    x = flow.zeros(3, 4)
    with pytest.raises(TypeError, match="slice_update.*'input'"):
        flow.slice_update([1, 2], flow.ones(1), [[0, 1, 1]])
    with pytest.raises(TypeError, match="slice_tup_list"):
        flow.slice_update(x, flow.ones(1), "0:1")
    with pytest.raises(ValueError, match="step must be positive"):
        flow.slice_update(x, flow.ones(1), [[0, 1, 0]])
    with pytest.raises(ValueError, match="3 entries for a 2-d"):
        flow.slice_update(x, flow.ones(1), [[0, 1, 1]] * 3)
    with pytest.raises(ValueError, match=r"shape \(5,\) does not fit.*\(2, 4\)"):
        flow.slice_update(x, flow.ones(5), [[0, 2, 1]])


def _gather_nd_np(params, index):
    return params[tuple(index[..., d] for d in range(index.shape[-1]))]


@pytest.mark.parametrize("index_shape,depth", [((4,), 1), ((2, 3), 2), ((5,), 3), ((2, 2), 1)])
def test_gather_nd(index_shape, depth):
    params = RNG.standard_normal((3, 4, 5)).astype(np.float32)
    index = np.stack([RNG.integers(0, params.shape[d], index_shape) for d in range(depth)], -1)
    for dtype in (flow.int32, flow.int64):
        out = flow.gather_nd(flow.tensor(params), flow.tensor(index, dtype=dtype))
        np.testing.assert_array_equal(_np(out), _gather_nd_np(params, index))
    # Gradient: dy scattered back (and summed) at the gathered places.
    p, tp = _pair(params)
    out = flow.gather_nd(p, flow.tensor(index))
    w = RNG.standard_normal(tuple(out.shape)).astype(np.float32)
    (out * flow.tensor(w)).sum().backward()
    tout = tp[tuple(torch.tensor(index[..., d]) for d in range(depth))]
    (tout * torch.tensor(w)).sum().backward()
    _close(p.grad, tp.grad)


def test_scatter_nd_docs_example_and_accumulation():
    out = flow.scatter_nd(flow.tensor([[1], [6], [4]], dtype=flow.int), flow.tensor([10.2, 5.1, 12.7]), [8])
    np.testing.assert_allclose(_np(out), [0, 10.2, 0, 0, 12.7, 0, 5.1, 0], rtol=1e-6)
    index = np.array([[0, 1], [2, 3], [0, 1]])
    update = RNG.standard_normal((3, 5)).astype(np.float32)
    expected = np.zeros((3, 4, 5), np.float32)
    np.add.at(expected, (index[:, 0], index[:, 1]), update)
    u, tu = _pair(update)
    out = flow.scatter_nd(flow.tensor(index), u, (3, 4, 5))
    np.testing.assert_allclose(_np(out), expected, rtol=1e-6)
    w = RNG.standard_normal((3, 4, 5)).astype(np.float32)
    (out * flow.tensor(w)).sum().backward()
    # d/d update = gather_nd(dy, index)
    np.testing.assert_allclose(_np(u.grad), _gather_nd_np(w, index), rtol=1e-6)


def test_tensor_scatter_nd_update():
    out = flow.tensor_scatter_nd_update(flow.arange(8), flow.tensor([[1], [3], [5]]), flow.tensor([-1, -2, -3]))
    np.testing.assert_array_equal(_np(out), [0, -1, 2, -2, 4, -3, 6, 7])
    assert out.dtype == flow.int64
    base = RNG.standard_normal((4, 3)).astype(np.float32)
    index = np.array([[2], [0]])
    update = RNG.standard_normal((2, 3)).astype(np.float32)
    t, tt = _pair(base)
    u, tu = _pair(update)
    out = flow.tensor_scatter_nd_update(t, flow.tensor(index), u)
    expected = base.copy()
    expected[[2, 0]] = update
    np.testing.assert_array_equal(_np(out), expected)
    np.testing.assert_array_equal(_np(t), base)  # not in place
    w = RNG.standard_normal((4, 3)).astype(np.float32)
    (out * flow.tensor(w)).sum().backward()
    tout = tt.index_put((torch.tensor([2, 0]),), tu)
    (tout * torch.tensor(w)).sum().backward()
    _close(t.grad, tt.grad)
    _close(u.grad, tu.grad)


def test_nd_errors():
    params = flow.zeros(3, 4)
    with pytest.raises(TypeError, match="gather_nd.*'index'.*int32 or int64.*float32"):
        flow.gather_nd(params, flow.zeros(2, 1))
    with pytest.raises(ValueError, match=r"index.shape\[-1\] \(3\).*\(2\)"):
        flow.gather_nd(params, flow.zeros(2, 3, dtype=flow.int64))
    with pytest.raises(IndexError, match="index 4 is out of bounds for dimension 1 with size 4"):
        flow.gather_nd(params, flow.tensor([[0, 4]]))
    with pytest.raises(IndexError, match="index -1"):
        flow.scatter_nd(flow.tensor([[-1]]), flow.ones(1), [3])
    with pytest.raises(ValueError, match=r"scatter_nd.*\(2,\), got \(3,\)"):
        flow.scatter_nd(flow.tensor([[0], [1]]), flow.ones(3), [3])
    with pytest.raises(TypeError, match="scatter_nd.*'shape'"):
        flow.scatter_nd(flow.tensor([[0]]), flow.ones(1), 3)
    with pytest.raises(ValueError, match=r"tensor_scatter_nd_update.*\(1, 4\), got \(1, 3\)"):
        flow.tensor_scatter_nd_update(params, flow.tensor([[0]]), flow.ones(1, 3))
    with pytest.raises(TypeError, match="'tensor' must be Tensor"):
        flow.tensor_scatter_nd_update(np.zeros(3), flow.tensor([[0]]), flow.ones(1))


def test_batch_gather():
    x = np.array([[1, 2, 3], [4, 5, 6]], np.float32)
    np.testing.assert_array_equal(_np(flow.batch_gather(flow.tensor(x), flow.tensor([1, 0]))), x[[1, 0]])
    data = RNG.standard_normal((2, 3, 4, 5)).astype(np.float32)
    idx = RNG.integers(0, 4, (2, 3, 6))
    expected = np.stack([np.stack([data[b, c][idx[b, c]] for c in range(3)]) for b in range(2)])
    d, td = _pair(data)
    out = flow.batch_gather(d, flow.tensor(idx, dtype=flow.int32))
    assert tuple(out.shape) == (2, 3, 6, 5)
    np.testing.assert_array_equal(_np(out), expected)
    w = RNG.standard_normal((2, 3, 6, 5)).astype(np.float32)
    (out * flow.tensor(w)).sum().backward()
    tidx = torch.tensor(idx)[..., None].expand(2, 3, 6, 5)
    (torch.gather(td, 2, tidx) * torch.tensor(w)).sum().backward()
    _close(d.grad, td.grad)
    with pytest.raises(ValueError, match="batch dimensions"):
        flow.batch_gather(flow.zeros(2, 3), flow.zeros(3, 1, dtype=flow.int64))
    with pytest.raises(IndexError, match="index 3 is out of bounds"):
        flow.batch_gather(flow.zeros(2, 3), flow.tensor([[0, 3], [1, 1]]))
    with pytest.raises(TypeError, match="batch_gather.*'indices'"):
        flow.batch_gather(flow.zeros(2, 3), flow.zeros(2))


def test_in_top_k():
    targets = flow.tensor([3, 1], dtype=flow.int32)
    pred = flow.tensor([[0.0, 1.0, 2.0, 3.0], [3.0, 2.0, 1.0, 0.0]])
    np.testing.assert_array_equal(_np(flow.in_top_k(targets, pred, k=1)), [True, False])
    np.testing.assert_array_equal(_np(flow.in_top_k(targets, pred, 2)), [True, True])
    # Ties straddling the k boundary all count as in the top k.
    tied = flow.tensor([[1.0, 1.0, 1.0, 0.0]])
    np.testing.assert_array_equal(_np(flow.in_top_k(flow.tensor([2]), tied, 1)), [True])
    p = RNG.standard_normal((6, 10)).astype(np.float32)
    t = RNG.integers(0, 10, 6)
    expected = (p > p[np.arange(6), t][:, None]).sum(1) < 3
    out = flow.in_top_k(flow.tensor(t), flow.tensor(p), 3)
    assert out.dtype == flow.bool
    np.testing.assert_array_equal(_np(out), expected)
    with pytest.raises(TypeError, match="in_top_k.*'targets'"):
        flow.in_top_k(flow.tensor([1.0]), pred, 1)
    with pytest.raises(TypeError, match="'k' must be int"):
        flow.in_top_k(targets, pred, 1.5)
    with pytest.raises(ValueError, match="1-d targets and 2-d predictions"):
        flow.in_top_k(targets, pred[0], 1)
    with pytest.raises(IndexError, match=r"\[0, 4\)"):
        flow.in_top_k(flow.tensor([4, 0]), pred, 1)


@pytest.mark.parametrize("ta,tb", [(False, False), (True, False), (False, True), (True, True)])
@pytest.mark.parametrize("alpha", [1.0, 0.25])
def test_matmul_transpose_alpha(ta, tb, alpha):
    a = RNG.standard_normal((2, 4, 3) if ta else (2, 3, 4)).astype(np.float32)
    b = RNG.standard_normal((5, 4) if tb else (4, 5)).astype(np.float32)
    fa, ta_ = _pair(a)
    fb, tb_ = _pair(b)
    out = flow.matmul(fa, fb, transpose_a=ta, transpose_b=tb, alpha=alpha)
    ref = torch.matmul(ta_.transpose(-2, -1) if ta else ta_, tb_.t() if tb else tb_) * alpha
    _close(out, ref)
    out.sum().backward()
    ref.sum().backward()
    _close(fa.grad, ta_.grad)
    _close(fb.grad, tb_.grad)
    assert flow._C.matmul is flow.matmul


def test_matmul_stays_pytorch_compatible():
    a, b = flow.randn(3), flow.randn(3, 2)
    np.testing.assert_allclose(_np(flow.matmul(a, b)), _np(a) @ _np(b), rtol=1e-5)
    np.testing.assert_allclose(_np(flow.matmul(input=a, other=b)), _np(a) @ _np(b), rtol=1e-5)
    with pytest.raises(ValueError, match="transpose of 'input' needs at least 2 dimensions"):
        flow.matmul(a, b, transpose_a=True)
    with pytest.raises(TypeError, match="'transpose_b' must be bool"):
        flow.matmul(b, b, transpose_b=1)
    with pytest.raises(TypeError, match="'alpha' must be float"):
        flow.matmul(b, b.t(), alpha="2")
