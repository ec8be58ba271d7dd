"""oneflow.Tensor(...) (PyTorch's legacy constructor), Tensor subclasses, and Tensor.data."""

import numpy as np
import pytest
import torch

import oneflow as flow


def both(fn):
    return fn(flow), fn(torch)


def describe(t):
    return tuple(t.shape), str(t.dtype).split(".")[-1]


# (constructor, whether it is made from data: sizes give uninitialized memory)
FORMS = [
    (lambda m: m.Tensor(2, 3), False),
    (lambda m: m.Tensor(0), False),
    (lambda m: m.Tensor(4), False),
    (lambda m: m.Tensor(np.int64(3)), False),
    (lambda m: m.Tensor(m.Size([2, 1, 3])), False),
    (lambda m: m.Tensor(3, device="cpu"), False),
    (lambda m: m.Tensor(), True),
    (lambda m: m.Tensor([]), True),
    (lambda m: m.Tensor([1, 2, 3]), True),
    (lambda m: m.Tensor([[1.5, 2], [3, 4]]), True),
    (lambda m: m.Tensor((2, 3)), True),  # a tuple is data, not sizes
    (lambda m: m.Tensor([True, False]), True),
    (lambda m: m.Tensor(np.arange(6, dtype=np.int64).reshape(2, 3)), True),
    (lambda m: m.Tensor(np.ones((2, 2), dtype=np.float64)), True),
]


@pytest.mark.parametrize("make, is_data", FORMS)
def test_constructor_forms_match_torch(make, is_data):
    ours, theirs = both(make)
    assert type(ours) is flow.Tensor
    assert describe(ours) == describe(theirs)
    if is_data:
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def test_constructor_data_values():
    np.testing.assert_array_equal(flow.Tensor([[1, 2], [3, 4]]).numpy(), np.array([[1, 2], [3, 4]], np.float32))
    np.testing.assert_array_equal(flow.Tensor(np.array([0.5, 2.5])).numpy(), np.array([0.5, 2.5], np.float32))


@pytest.mark.parametrize(
    "make",
    [
        lambda m: m.Tensor(2.5),
        lambda m: m.Tensor(True),
        lambda m: m.Tensor(2, "a"),
        lambda m: m.Tensor(-1),
        lambda m: m.Tensor([[1, 2], [3]]),
        lambda m: m.Tensor(2, dtype=m.float64),
        lambda m: m.Tensor("ab"),
    ],
)
def test_constructor_errors_have_torch_types(make):
    def run(m):
        try:
            make(m)
        except Exception as e:
            return type(e)

    ours, theirs = both(run)
    assert theirs is not None and ours is theirs


def test_constructor_follows_default_dtype():
    try:
        flow.set_default_dtype(flow.float64)
        assert flow.Tensor(2).dtype == flow.float64 and flow.Tensor([1, 2]).dtype == flow.float64
    finally:
        flow.set_default_dtype(flow.float32)
    assert flow.Tensor(2).dtype == flow.float32


def test_constructor_from_tensor_aliases_memory():
    a = flow.ones(2, 3, dtype=flow.float64)
    b = flow.Tensor(a)
    assert b is not a and b.data_ptr() == a.data_ptr() and b.dtype == flow.float64
    with flow.no_grad():
        b.add_(1)
    assert a.tolist() == [[2.0] * 3] * 2
    assert a._version == b._version == 1  # one version counter, as for detach()


class Tagged(flow.Tensor):
    """A Python subclass of Tensor, initialized from a tensor."""

    def __init__(self, data, tag):
        super().__init__(data)
        self.tag = tag


def test_python_subclass():
    base = flow.arange(4.0)
    t = Tagged(base, "x")
    assert isinstance(t, flow.Tensor) and type(t) is Tagged and t.tag == "x"
    assert t.data_ptr() == base.data_ptr() and not t.requires_grad
    assert t.add_(1) is t  # in-place ops hand back the subclass object itself
    assert type(t + 1) is flow.Tensor
    assert t.tolist() == [1.0, 2.0, 3.0, 4.0]


def test_data_getter_is_an_untracked_alias():
    def run(m):
        x = m.ones(2, requires_grad=True)
        y = x * x
        d = x.data
        out = [d is x.data, d.requires_grad, d.data_ptr() == x.data_ptr(), type(d).__name__]
        d.add_(1)  # invisible to autograd's version checks
        y.sum().backward()
        out += [x.grad.tolist(), x._version, x.tolist()]
        return out

    ours, theirs = both(run)
    assert ours == theirs


def test_data_setter_replaces_values_shape_and_dtype():
    def run(m):
        p = m.nn.Parameter(m.ones(2))
        q = p
        p.data = m.arange(6.0, dtype=m.float64).reshape(2, 3)
        out = [q is p, tuple(p.shape), str(p.dtype).split(".")[-1], p.requires_grad, p.is_leaf, p.tolist()]
        p.data = m.zeros(3)
        out.append(p.tolist())
        return out

    ours, theirs = both(run)
    assert ours == theirs


def test_data_setter_shares_memory_with_the_source():
    p = flow.nn.Parameter(flow.ones(2))
    src = flow.zeros(4)
    p.data = src[1:3]
    assert p.data_ptr() == src[1:3].data_ptr() and p.storage_offset() == 1
    with flow.no_grad():
        src.fill_(5.0)
    assert p.tolist() == [5.0, 5.0]


def test_data_setter_errors_have_torch_types():
    def run(m, value):
        p = m.nn.Parameter(m.ones(2))
        try:
            p.data = value(m)
        except Exception as e:
            return type(e)

    for value in (lambda m: 5, lambda m: m.tensor([1, 2])):
        ours, theirs = run(flow, value), run(torch, value)
        assert theirs is not None and ours is theirs


def test_set_data_method():
    t = flow.ones(2)
    t.set_data(flow.zeros(1, 3))
    assert tuple(t.shape) == (1, 3) and t.tolist() == [[0.0, 0.0, 0.0]]
