"""oneflow's aliases and short compositions (oneflow/_compat.py) against torch, and OneFlow's
broadcast_like against NumPy."""

import numpy as np
import pytest
import torch
from parity import raises_like_torch

import oneflow as flow


def _pair(a):
    return flow.tensor(a), torch.tensor(a)


@pytest.mark.parametrize("name", ["arccos", "arcsin", "arctan", "arctanh"])
def test_trig_aliases(name):
    x, t = _pair(np.linspace(-0.9, 0.9, 7, dtype=np.float32))
    np.testing.assert_allclose(getattr(flow, name)(x).numpy(), getattr(torch, name)(t).numpy(), rtol=1e-6)
    np.testing.assert_allclose(getattr(x, name)().numpy(), getattr(t, name)().numpy(), rtol=1e-6)


def test_hyperbolic_aliases():
    x, t = _pair(np.linspace(1.1, 3.0, 5, dtype=np.float32))
    np.testing.assert_allclose(flow.arccosh(x).numpy(), torch.arccosh(t).numpy(), rtol=1e-6)
    np.testing.assert_allclose(flow.arcsinh(x).numpy(), torch.arcsinh(t).numpy(), rtol=1e-6)


def test_clip_negative_concat_swap():
    a = np.arange(-3, 3, dtype=np.float32).reshape(2, 3)
    x, t = _pair(a)
    np.testing.assert_array_equal(flow.clip(x, -1, 1).numpy(), torch.clip(t, -1, 1).numpy())
    np.testing.assert_array_equal(x.clip(min=0).numpy(), t.clip(min=0).numpy())
    y = x.clone()
    y.clip_(-2, 0)
    np.testing.assert_array_equal(y.numpy(), t.clone().clip_(-2, 0).numpy())
    np.testing.assert_array_equal(flow.negative(x).numpy(), torch.negative(t).numpy())
    np.testing.assert_array_equal(flow.concat([x, x], 1).numpy(), torch.concat([t, t], 1).numpy())
    np.testing.assert_array_equal(flow.swapaxes(x, 0, 1).numpy(), torch.swapaxes(t, 0, 1).numpy())
    np.testing.assert_array_equal(x.swapdims(0, 1).numpy(), t.swapdims(0, 1).numpy())
    assert x.ndimension() == t.ndimension() == 2


def test_predicates():
    x, t = _pair(np.array([[0.0, 2.0], [3.0, 0.0]], dtype=np.float32))
    assert flow.is_floating_point(x) is True
    assert flow.is_floating_point(flow.tensor([1])) is False
    assert flow.is_nonzero(flow.tensor([2.0])) is True and flow.is_nonzero(flow.tensor(0)) is False
    raises_like_torch(lambda m: m.is_nonzero(m.tensor([1.0, 2.0])))
    raises_like_torch(lambda m: m.is_nonzero(m.tensor([])))
    np.testing.assert_array_equal(flow.argwhere(x).numpy(), torch.argwhere(t).numpy())
    np.testing.assert_array_equal(x.argwhere().numpy(), t.argwhere().numpy())
    assert flow.equal(x, x.clone()) is True
    assert flow.equal(x, x + 1) is False
    assert flow.equal(x, x.reshape(4)) is torch.equal(t, t.reshape(4)) is False


@pytest.mark.parametrize(("source", "destination"), [(0, 2), (-1, 0), ((0, 1), (2, 0)), ([2], [1])])
def test_movedim(source, destination):
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    x, t = _pair(a)
    np.testing.assert_array_equal(
        flow.movedim(x, source, destination).numpy(), torch.movedim(t, source, destination).numpy()
    )


def test_movedim_errors():
    raises_like_torch(lambda m: m.movedim(m.zeros(2, 3), 0, 2))
    raises_like_torch(lambda m: m.movedim(m.zeros(2, 3), (0, 0), (0, 1)))
    raises_like_torch(lambda m: m.movedim(m.zeros(2, 3), (0, 1), (0,)))


@pytest.mark.parametrize("spec", [2, [1, 3], (0,)])
def test_hsplit_vsplit(spec):
    a = np.arange(48, dtype=np.float32).reshape(4, 4, 3)
    x, t = _pair(a)
    for name in ("hsplit", "vsplit"):
        ours, theirs = getattr(flow, name)(x, spec), getattr(torch, name)(t, spec)
        assert len(ours) == len(theirs)
        for o, e in zip(ours, theirs):
            np.testing.assert_array_equal(o.numpy(), e.numpy())
    one = flow.arange(6.0)
    assert [p.tolist() for p in flow.hsplit(one, 3)] == [p.tolist() for p in torch.hsplit(torch.arange(6.0), 3)]


def test_split_errors():
    raises_like_torch(lambda m: m.hsplit(m.zeros(3, 5), 2))
    raises_like_torch(lambda m: m.vsplit(m.zeros(5), 1))
    raises_like_torch(lambda m: m.hsplit(m.tensor(1.0), 1))


def test_broadcast_like():
    x = flow.tensor([[1.0], [2.0], [3.0]])
    like = flow.zeros(2, 3, 4)
    expected = np.broadcast_to(np.array([[1.0], [2.0], [3.0]]), (2, 3, 4))
    np.testing.assert_array_equal(flow.broadcast_like(x, like).numpy(), expected)
    # With the axes named: input holds like's shape without them.
    y = flow.tensor([1.0, 2.0, 3.0])
    out = flow.broadcast_like(y, like, broadcast_axes=(0, 2))
    np.testing.assert_array_equal(out.numpy(), np.broadcast_to(np.array([1.0, 2.0, 3.0])[None, :, None], (2, 3, 4)))
    with pytest.raises(RuntimeError, match="broadcast_like"):
        flow.broadcast_like(flow.zeros(4), like, broadcast_axes=(0, 2))
    with pytest.raises(RuntimeError, match="has more dims than like's shape"):
        flow.broadcast_like(flow.zeros(1, 1, 1, 1), like)
    with pytest.raises(TypeError, match="argument 'like' must be Tensor"):
        flow.broadcast_like(x, [2, 3, 4])


def test_broadcast_like_gradient_sums_over_broadcast_axes():
    x = flow.tensor([[1.0], [2.0]], requires_grad=True)
    flow.broadcast_like(x, flow.zeros(2, 5)).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[5.0], [5.0]])


@pytest.mark.parametrize(("dim", "size", "step"), [(0, 2, 1), (1, 3, 2), (-1, 4, 4), (0, 4, 3)])
def test_tensor_unfold(dim, size, step):
    a = np.arange(20, dtype=np.float32).reshape(4, 5)
    x, t = _pair(a)
    np.testing.assert_array_equal(x.unfold(dim, size, step).numpy(), t.unfold(dim, size, step).numpy())


def test_tensor_unfold_gradient_and_errors():
    x = flow.arange(6.0, requires_grad=True)
    t = torch.arange(6.0, requires_grad=True)
    x.unfold(0, 3, 2).sum().backward()
    t.unfold(0, 3, 2).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), t.grad.numpy())
    raises_like_torch(lambda m: m.arange(5.0).unfold(0, 6, 1))
    raises_like_torch(lambda m: m.arange(5.0).unfold(0, 2, 0))


def test_tensor_misc_methods():
    a = np.array([[1.0, -2.0], [3.0, -4.0]], dtype=np.float32)
    x, t = _pair(a)
    cond = x > 0
    np.testing.assert_array_equal(x.where(cond, flow.zeros(2, 2)).numpy(), t.where(t > 0, torch.zeros(2, 2)).numpy())
    assert x.get_device() == t.get_device() == -1
    y = x.clone()
    assert y.zeros_() is y and y.abs().sum().item() == 0
    assert x.is_lazy is False
    targets, predictions = flow.tensor([0, 1]), flow.tensor([[0.9, 0.1, 0.5], [0.2, 0.1, 0.7]])
    assert targets.in_top_k(predictions, 1).tolist() == flow.in_top_k(targets, predictions, 1).tolist() == [True, False]
    c = x.cast(flow.int32)
    assert c.dtype == flow.int32 and c.tolist() == [[1, -2], [3, -4]]
    z = flow.tensor([1.5, -0.5])
    assert flow.floor_(z) is z and z.tolist() == [1.0, -1.0]
    s = flow.tensor([0.0])
    assert flow.sin_(s) is s and s.tolist() == [0.0]


def test_bad_arguments_name_the_function():
    with pytest.raises(TypeError, match=r"equal\(\): argument 'other' must be Tensor"):
        flow.equal(flow.zeros(1), [0])
    with pytest.raises(TypeError, match=r"movedim\(\): argument 'source'"):
        flow.movedim(flow.zeros(2, 2), "0", 1)
    with pytest.raises(TypeError, match=r"hsplit\(\): argument 'indices_or_sections'"):
        flow.hsplit(flow.zeros(2, 2), 1.5)


def test_slice_and_logical_slice():
    a = np.arange(3 * 6 * 9, dtype=np.float32).reshape(3, 6, 9)
    x = flow.tensor(a)
    for fn in (flow.slice, flow.logical_slice):
        y = fn(x, [[None, None, None], [0, 5, 2], [0, 6, 3]])
        np.testing.assert_array_equal(y.numpy(), a[:, 0:5:2, 0:6:3])
        y += 1  # a new tensor: x is unchanged
        np.testing.assert_array_equal(x.numpy(), a)
    np.testing.assert_array_equal(flow.slice(x, [[1, 3, 1]]).numpy(), a[1:3])
    # The registry's form, with a dim: a view.
    np.testing.assert_array_equal(flow.slice(x, 1, 1, 4, 2).numpy(), a[:, 1:4:2])
    np.testing.assert_array_equal(flow.slice(x, dim=2, start=3).numpy(), a[:, :, 3:])
    with pytest.raises(ValueError, match=r"slice\(\): slice step must be positive"):
        flow.slice(x, [[0, 2, 0]])
    with pytest.raises(ValueError, match=r"slice_tup_list\[0\] must be \(start, stop, step\)"):
        flow.slice(x, [[0, 2]])
    with pytest.raises(ValueError, match="at most 3"):
        flow.logical_slice(x, [[0, 1, 1]] * 4)


@pytest.mark.parametrize("dim", [None, 1, (0, 1)])
def test_var_mean_std_mean(dim):
    a = np.random.default_rng(3).standard_normal((3, 4)).astype(np.float32)
    x, t = _pair(a)
    for name in ("var_mean", "std_mean"):
        ours = getattr(flow, name)(x) if dim is None else getattr(flow, name)(x, dim, keepdim=True)
        theirs = getattr(torch, name)(t) if dim is None else getattr(torch, name)(t, dim, keepdim=True)
        for o, e in zip(ours, theirs):
            np.testing.assert_allclose(o.numpy(), e.numpy(), rtol=1e-5, atol=1e-6)
    ours = flow.var_mean(x, 0, correction=0)
    theirs = torch.var_mean(t, 0, correction=0)
    np.testing.assert_allclose(ours[0].numpy(), theirs[0].numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize(
    ("name", "dtype"),
    [
        ("FloatTensor", "float32"),
        ("DoubleTensor", "float64"),
        ("LongTensor", "int64"),
        ("IntTensor", "int32"),
        ("ByteTensor", "uint8"),
        ("BoolTensor", "bool"),
        ("HalfTensor", "float16"),
    ],
)
def test_typed_tensor_classes(name, dtype):
    cls, tcls = getattr(flow, name), getattr(torch, name)
    assert cls(2, 3).shape == tcls(2, 3).shape and cls(2, 3).dtype == getattr(flow, dtype)
    assert cls().shape == tcls().shape
    data = [[1, 0], [0, 1]]
    np.testing.assert_array_equal(cls(data).numpy(), tcls(data).numpy())
    assert isinstance(cls(data), cls) and isinstance(flow.zeros(1, dtype=getattr(flow, dtype)), cls)
    assert not isinstance(flow.zeros(1, dtype=flow.int8), cls)  # CharTensor is not among the cases
    assert not isinstance(data, cls)
    # The CUDA classes exist; a CPU tensor is none of them.
    assert not isinstance(cls(data), getattr(flow.cuda, name))
    with pytest.raises(TypeError, match=name):
        cls(1, "2")


def test_where_forms():
    a = np.array([[1.0, -2.0], [0.0, 4.0]], dtype=np.float32)
    x, t = _pair(a)
    ours, theirs = flow.where(x > 0), torch.where(t > 0)
    assert len(ours) == len(theirs) == 2
    for o, e in zip(ours, theirs):
        np.testing.assert_array_equal(o.numpy(), e.numpy())
    np.testing.assert_array_equal(flow.where(x > 0, x, -x).numpy(), torch.where(t > 0, t, -t).numpy())
    np.testing.assert_array_equal(flow.where(x > 0, x, 0.0).numpy(), torch.where(t > 0, t, 0.0).numpy())
    with pytest.raises(TypeError, match=r"where\(\): expected \(condition\) or \(condition, input, other\)"):
        flow.where(x > 0, x)
