"""The Tensor attributes of oneflow/_tensor_breadth_more.py and _tensor_storage.py against torch:
storages, in-place metadata changes, the autograd extras and the compositions."""

import numpy as np
import pytest
import torch
from parity import raises_like_torch

import oneflow as flow


def same(a, b):
    assert a.shape == tuple(b.shape) if isinstance(a, np.ndarray) else tuple(a.shape) == tuple(b.shape)
    np.testing.assert_array_equal(a.detach().numpy() if isinstance(a, flow.Tensor) else a, b.detach().numpy())


def test_storage():
    for dtype in ("float32", "float64", "int64", "bool"):
        t, o = torch.arange(6).to(getattr(torch, dtype)), flow.arange(6).to(getattr(flow, dtype))
        ts, os_ = t.storage(), o.storage()
        assert (os_.size(), len(os_), os_.element_size(), os_.tolist()) == (ts.size(), len(ts), ts.element_size(),
                                                                              ts.tolist())  # fmt: skip
        assert os_.nbytes() == ts.nbytes() and os_.data_ptr() == o.data_ptr()
        assert o.storage_type().__name__ == t.storage_type().__name__
        assert o.untyped_storage().nbytes() == t.untyped_storage().nbytes()
        assert o.untyped_storage().tolist() == list(t.untyped_storage().tolist())
    o = flow.arange(6.0)
    view = o[2:]
    assert view.storage().size() == 6 and view.storage()[0] == 0.0
    view.storage()[1] = 7.0  # writes through
    assert o[1].item() == 7.0
    assert flow.FloatStorage is flow.arange(2.0).storage_type()


def test_layout_name_grad_dtype():
    o, t = flow.ones(2), torch.ones(2)
    assert str(o.layout) == "oneflow.strided" and o.layout is flow.strided and t.layout is torch.strided
    assert o.name is None and t.name is None
    assert o.grad_dtype == flow.float32 and flow.ones(2, dtype=flow.int64).grad_dtype == flow.int64
    a = flow.ones(2, requires_grad=True)
    a.grad_dtype = flow.float64
    (a * 2).sum().backward()
    assert a.grad.dtype == flow.float64 and a.grad_dtype == flow.float64
    a.grad_dtype = None
    assert a.grad_dtype is None
    raises_like_torch(lambda m: setattr(m.ones(2, requires_grad=True) * 2, "grad_dtype", m.float64))
    assert "dtype or None" in raises_like_torch(lambda m: setattr(m.ones(2), "grad_dtype", 3))


def test_is_set_to_and_set_():
    for m in (torch, flow):
        b = m.arange(6.0)
        assert b.is_set_to(b) and not b.is_set_to(b.clone()) and not b[1:].is_set_to(b)
        assert not b.view(2, 3).is_set_to(b)
    b, tb = flow.arange(6.0), torch.arange(6.0)
    for args in ((2, (2,), (2,)), (1, (2,))):
        c, tc = flow.zeros(1), torch.zeros(1)
        c.set_(b.storage(), *args)
        tc.set_(tb.storage(), *args)
        same(c, tc)
        assert c.data_ptr() == b.data_ptr() + args[0] * 4
    c = flow.zeros(1)
    c.set_(b.untyped_storage(), 2, (2,), (2,))
    same(c, torch.tensor([2.0, 4.0]))
    c.set_()
    assert c.shape == (0,)
    c.set_(b)
    assert c.is_set_to(b)
    raises_like_torch(lambda m: m.ones(2, requires_grad=True).set_(m.zeros(3)))


def test_as_strided_inplace_and_scatter():
    o, t = flow.arange(4.0), torch.arange(4.0)
    assert o.as_strided_((2,), (2,), 1) is o
    t.as_strided_((2,), (2,), 1)
    same(o, t)
    raises_like_torch(lambda m: m.ones(2, requires_grad=True).as_strided_((1,), (1,)))
    same(flow.zeros(2, 3).as_strided_scatter(flow.ones(2), (2,), (3,), 1),
         torch.zeros(2, 3).as_strided_scatter(torch.ones(2), (2,), (3,), 1))  # fmt: skip
    x, src = flow.zeros(6, requires_grad=True), flow.ones(2, requires_grad=True)
    x.as_strided_scatter(src, (2,), (2,), 1).backward(flow.arange(6.0))
    same(src.grad, torch.tensor([1.0, 3.0]))
    same(x.grad, torch.tensor([0.0, 0.0, 2.0, 0.0, 4.0, 5.0]))  # the overwritten elements get none
    with pytest.raises(RuntimeError, match="src to have a size"):
        flow.zeros(6).as_strided_scatter(flow.ones(3), (2,), (2,), 1)


def test_slice_inverse_and_resize():
    b, tb = flow.arange(10.0), torch.arange(10.0)
    r, tr = b[2:8:2].slice_inverse(b, 0, 2, 8, 2), tb[2:8:2].slice_inverse(tb, 0, 2, 8, 2)
    same(r, tr)
    assert r.data_ptr() == b.data_ptr()
    x, tx = flow.arange(6.0, requires_grad=True), torch.arange(6.0, requires_grad=True)
    y, ty = x.resize(3, 2), tx.resize(3, 2)
    same(y, ty)
    (y * flow.arange(6.0).reshape(3, 2)).sum().backward()
    (ty * torch.arange(6.0).reshape(3, 2)).sum().backward()
    same(x.grad, tx.grad)
    same(flow.ones(2, 3).resize_as(flow.ones(6)), torch.ones(2, 3).resize_as(torch.ones(6)))
    assert "preserving the number of elements" in raises_like_torch(lambda m: m.ones(2, 3).resize(4))


def test_post_accumulate_grad_hook():
    seen = {}
    for m in (torch, flow):
        x = m.ones(2, requires_grad=True)
        log = seen.setdefault(m.__name__, [])
        handle = x.register_post_accumulate_grad_hook(lambda p, log=log: log.append(p.grad.tolist()))
        (x * 2).sum().backward()
        (x * 3).sum().backward()
        m.autograd.grad((x * 4).sum(), x)  # accumulates nothing: no call
        (x * 1).sum().backward(inputs=[x])
        handle.remove()
        (x * 3).sum().backward()
        assert x.grad.tolist() == [9.0, 9.0]
    assert seen["oneflow"] == seen["torch"] == [[2.0, 2.0], [5.0, 5.0], [6.0, 6.0]]
    raises_like_torch(lambda m: m.ones(2).register_post_accumulate_grad_hook(lambda p: None))
    raises_like_torch(lambda m: (m.ones(2, requires_grad=True) * 1).register_post_accumulate_grad_hook(lambda p: None))


def test_as_subclass_and_detach_():
    class Mine(flow.Tensor):
        pass

    x = flow.ones(2, requires_grad=True)
    y = (x * 2).as_subclass(Mine)
    assert type(y) is Mine and y.grad_fn is not None
    (y * 3).sum().backward()
    same(x.grad, torch.tensor([6.0, 6.0]))
    z = flow.arange(3.0).as_subclass(Mine)
    assert type(z) is Mine and z.tolist() == [0.0, 1.0, 2.0]
    raises_like_torch(lambda m: m.ones(2).as_subclass(int))
    leaf = flow.ones(2, requires_grad=True)
    assert leaf.detach_() is leaf and not leaf.requires_grad


def test_small_methods():
    o, t = flow.tensor([[1.0, 2], [3, 4]]), torch.tensor([[1.0, 2], [3, 4]])
    assert o.const_data_ptr() == o.data_ptr()
    for a, b in zip(o.unsafe_split_with_sizes([1, 1]), t.unsafe_split_with_sizes([1, 1])):
        same(a, b)
    assert o.to_dense() is o
    same(
        flow.ones(2, dtype=flow.int64).to_dense(flow.float32), torch.ones(2, dtype=torch.int64).to_dense(torch.float32)
    )
    same(flow.ones(2).module_load(flow.zeros(2)), torch.ones(2).module_load(torch.zeros(2)))
    same(flow.ones(2).module_load(flow.zeros(2), assign=True), torch.zeros(2))
    p = o.pin_memory()
    same(p, t)
    assert p.data_ptr() != o.data_ptr()
    assert o.record_stream(flow.cuda.current_stream() if hasattr(flow.cuda, "current_stream") else object()) is None
    for values, kwargs in (([1.0, 2, 3], {}), ([[1.0, 2], [3, 4]], {"dim": 1}), ([1, 2, 3], {}),
                           ([True, False], {}), ([[1.0, 2], [3, 4]], {"dim": 0, "keepdim": True})):  # fmt: skip
        ours, theirs = flow.tensor(values).hash_tensor(**kwargs), torch.tensor(values).hash_tensor(**kwargs)
        np.testing.assert_array_equal(ours.numpy().view(np.uint64), theirs.numpy())
    assert "reduction dim" in raises_like_torch(lambda m: m.tensor([]).hash_tensor())
