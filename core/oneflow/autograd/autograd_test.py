"""The autograd engine and its Python API, against PyTorch."""

import numpy as np
import pytest
import torch

import oneflow as flow


def both(fn):
    """Runs fn(module) for oneflow and torch; returns both results."""
    return fn(flow), fn(torch)


def close(a, b, rtol=1e-6):
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=rtol, atol=1e-7)


def test_backward_accumulates_into_leaves():
    def run(m):
        x = m.tensor([1.0, -2.0, 3.0], requires_grad=True)
        w = m.tensor([[0.5], [2.0], [-1.0]], requires_grad=True)
        for _ in range(2):
            y = (m.exp(x) * w).sum() + (x * x).mean()
            y.backward()
        return x.grad, w.grad

    (gx, gw), (tx, tw) = both(run)
    close(gx, tx)
    close(gw, tw)


def test_graph_metadata():
    x = flow.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    z = y.sum()
    assert x.is_leaf and not y.is_leaf and x.grad_fn is None
    assert y.grad_fn.name() == "MulBackward0" and z.grad_fn.name() == "SumBackward0"
    assert z.grad_fn.next_functions[0][0] is not None
    assert y.requires_grad and not flow.tensor([1.0]).requires_grad
    assert repr(y) == "tensor([2., 4.], dtype=oneflow.float32, grad_fn=<MulBackward0>)"
    assert x.detach().requires_grad is False and x.detach().data_ptr() == x.data_ptr()


def test_autograd_grad_and_second_order():
    def run(m):
        x = m.tensor([0.5, 1.5, -1.0], requires_grad=True)
        y = (m.sin(x) * x**3).sum()
        (g,) = m.autograd.grad(y, x, create_graph=True)
        (gg,) = m.autograd.grad(g.sum(), x)
        return g, gg, x.grad

    (g, gg, xg), (tg, tgg, txg) = both(run)
    close(g, tg)
    close(gg, tgg)
    assert xg is None and txg is None  # autograd.grad does not touch .grad


def test_grad_with_grad_outputs_and_allow_unused():
    x = flow.tensor([1.0, 2.0], requires_grad=True)
    unused = flow.tensor([1.0], requires_grad=True)
    y = x * 3
    (g,) = flow.autograd.grad(y, x, grad_outputs=flow.tensor([1.0, 10.0]), retain_graph=True)
    assert g.tolist() == [3.0, 30.0]
    with pytest.raises(RuntimeError, match="allow_unused"):
        flow.autograd.grad(y.sum(), [x, unused], retain_graph=True)
    gx, gu = flow.autograd.grad(y.sum(), [x, unused], allow_unused=True)
    assert gu is None and gx.tolist() == [3.0, 3.0]


def test_errors_match_torch():
    def second_backward(m):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        y = (x * x).sum()
        y.backward()
        y.backward()

    def no_grad_backward(m):
        m.tensor([1.0]).sum().backward()

    def non_scalar(m):
        (m.tensor([1.0, 2.0], requires_grad=True) * 2).backward()

    def leaf_inplace(m):
        m.tensor([1.0], requires_grad=True).add_(1)

    def modified_saved(m):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        y = x * 1
        z = (y * y).sum()
        y.add_(1)
        z.backward()

    def view_of_leaf_inplace(m):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        x[0:1].mul_(2)

    for fn, match in [
        (second_backward, "backward through the graph a second time"),
        (no_grad_backward, "does not require grad"),
        (non_scalar, "only for scalar outputs"),
        (leaf_inplace, "leaf tensor that requires grad"),
        (modified_saved, "modified by an in-place operation"),
        (view_of_leaf_inplace, "view of a leaf tensor"),
    ]:
        with pytest.raises(RuntimeError):
            fn(torch)
        with pytest.raises(RuntimeError, match=match):
            fn(flow)


def test_retain_graph_allows_second_backward():
    x = flow.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    assert x.grad.tolist() == [4.0, 8.0]


def test_hooks_and_retain_grad():
    def run(m):
        x = m.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x * 2
        y.retain_grad()
        seen = []
        y.register_hook(lambda g: seen.append(g.tolist()))
        x.register_hook(lambda g: g * 10)
        (y * y).sum().backward()
        return x.grad, y.grad, seen

    (gx, gy, seen), (tx, ty, tseen) = both(run)
    close(gx, tx)
    close(gy, ty)
    assert seen == tseen


def test_hook_handle_removes():
    x = flow.tensor([1.0], requires_grad=True)
    h = x.register_hook(lambda g: g * 100)
    h.remove()
    (x * 2).sum().backward()
    assert x.grad.tolist() == [2.0]


def test_grad_modes():
    x = flow.tensor([1.0], requires_grad=True)
    with flow.no_grad():
        assert not (x * 2).requires_grad
        with flow.enable_grad():
            assert (x * 2).requires_grad
    assert (x * 2).requires_grad
    with flow.set_grad_enabled(False):
        assert not flow.is_grad_enabled()
    assert flow.is_grad_enabled()
    with flow.inference_mode():
        assert not (x * 2).requires_grad

    @flow.no_grad()
    def f():
        return x * 2

    assert not f().requires_grad
    flow.set_grad_enabled(False)
    assert not flow.is_grad_enabled()
    flow.set_grad_enabled(True)


def test_inplace_on_view_updates_base_and_its_gradient():
    def run(m):
        a = m.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        b = m.tensor([5.0, 6.0], requires_grad=True)
        base = a * 1
        row = base[1]
        row.mul_(b)
        base[:, 0].add_(10.0)
        (base * base).sum().backward()
        return base, a.grad, b.grad

    (base, ga, gb), (tbase, tga, tgb) = both(run)
    close(base, tbase)
    close(ga, tga)
    close(gb, tgb)


def test_inplace_on_plain_tensor_takes_requires_grad():
    def run(m):
        x = m.zeros(3)
        y = m.tensor([1.0, 2.0], requires_grad=True)
        x[1:].copy_(y * 2)
        x.sum().backward()
        return x.requires_grad, y.grad

    (rq, g), (trq, tg) = both(run)
    assert rq == trq
    close(g, tg)


def test_custom_function():
    class Cube(flow.autograd.Function):
        @staticmethod
        def forward(ctx, x, k):
            ctx.save_for_backward(x)
            ctx.k = k
            return x * x * x * k

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            assert ctx.needs_input_grad == (True, False)
            return grad * 3 * x * x * ctx.k, None

    x = flow.tensor([1.0, 2.0], requires_grad=True)
    y = Cube.apply(x, 2.0)
    assert y.grad_fn.name() == "CubeBackward"
    y.sum().backward()
    assert x.grad.tolist() == [6.0, 24.0]


def test_custom_function_non_differentiable_output():
    class SortLike(flow.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            idx = flow.tensor([1, 0])
            ctx.mark_non_differentiable(idx)
            return x * 2, idx

        @staticmethod
        def backward(ctx, g, g_idx):
            return g * 2

    x = flow.tensor([1.0, 2.0], requires_grad=True)
    y, idx = SortLike.apply(x)
    assert not idx.requires_grad and y.requires_grad
    y.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]


def test_grad_setter_checks_shape():
    x = flow.tensor([1.0, 2.0], requires_grad=True)
    x.grad = flow.tensor([1.0, 1.0])
    assert x.grad.tolist() == [1.0, 1.0]
    with pytest.raises(RuntimeError, match="different size"):
        x.grad = flow.tensor([1.0])
    x.grad = None
    assert x.grad is None


def test_requires_grad_rules():
    with pytest.raises(RuntimeError, match="floating point"):
        flow.tensor([1]).requires_grad_()
    y = flow.tensor([1.0], requires_grad=True) * 2
    with pytest.raises(RuntimeError, match="leaf tensors"):
        y.requires_grad_(False)


def test_relu_gradient_is_zero_where_inactive_even_for_nan_upstream():
    grads = []
    for m in (flow, torch):
        x = m.tensor([-1.0, 0.0, 2.0], requires_grad=True)
        m.relu(x).backward(m.tensor([float("nan"), float("nan"), 3.0]))
        grads.append(x.grad.numpy())
    np.testing.assert_array_equal(grads[0], grads[1])


def test_linear_weight_grad_has_the_weights_layout_like_torch():
    # linear computes x @ w.t(); the weight's gradient must come back contiguous like the
    # weight (torch's layout), not as a transposed buffer that .grad would have to copy.
    x = np.random.default_rng(0).standard_normal((5, 7)).astype(np.float32)
    got = []
    for m in (flow, torch):
        lin = m.nn.Linear(7, 3)
        with m.no_grad():
            lin.weight.copy_(m.from_numpy(np.arange(21, dtype=np.float32).reshape(3, 7) / 21))
            lin.bias.fill_(0.5)
        lin(m.from_numpy(x)).square().sum().backward()
        got.append((lin.weight.grad.stride(), lin.weight.grad.numpy()))
    assert got[0][0] == got[1][0] == (7, 1)
    np.testing.assert_allclose(got[0][1], got[1][1], rtol=1e-5, atol=1e-5)


def test_clone_of_a_transposed_tensor_keeps_layout_and_values():
    a = flow.from_numpy(np.arange(12, dtype=np.float32).reshape(3, 4)).t()
    c = a.clone()
    assert c.stride() == a.stride() == (1, 4)
    np.testing.assert_array_equal(c.numpy(), a.numpy())
    p = flow.from_numpy(np.arange(24, dtype=np.float32).reshape(2, 3, 4)).permute(2, 0, 1)
    np.testing.assert_array_equal(p.clone().numpy(), p.numpy())
    np.testing.assert_array_equal(p.contiguous().numpy(), p.numpy())


def test_grad_layout_follows_the_leaf_as_in_torch():
    """PyTorch's gradient layout contract: .grad is laid out like its (dense) parameter."""
    x = np.random.default_rng(0).standard_normal((2, 3, 4, 5)).astype(np.float32)
    for m in (flow, torch):
        w = m.tensor(x).to(memory_format=m.channels_last).requires_grad_()
        (w.contiguous() * 2).sum().backward()  # the gradient arrives contiguous
        assert w.grad.is_contiguous(memory_format=m.channels_last), m.__name__
        assert w.grad.stride() == w.stride()
        np.testing.assert_array_equal(w.grad.numpy(), np.full_like(x, 2))


def test_linear_weight_grad_is_taken_over_and_independent():
    """A Linear weight's gradient (the transpose of a fresh product) becomes .grad without a copy;
    it is a tensor of its own: writing it changes nothing else, and a second backward adds to it."""
    rng = np.random.default_rng(1)
    x, w = rng.standard_normal((6, 4)).astype(np.float32), rng.standard_normal((5, 4)).astype(np.float32)
    fw, tw = flow.tensor(w, requires_grad=True), torch.tensor(w, requires_grad=True)
    for m, t in ((flow, fw), (torch, tw)):
        m.nn.functional.linear(m.tensor(x), t).sum().backward()
    assert fw.grad.is_contiguous() and fw.grad.stride() == (4, 1)
    np.testing.assert_allclose(fw.grad.numpy(), tw.grad.numpy(), rtol=1e-6)
    first = fw.grad.numpy().copy()
    flow.nn.functional.linear(flow.tensor(x), fw).sum().backward()
    np.testing.assert_allclose(fw.grad.numpy(), 2 * first, rtol=1e-6)
    fw.grad.zero_()
    assert float(fw.detach().abs().sum()) > 0 and float(fw.grad.abs().sum()) == 0


def test_relu_gradient_passes_where_the_output_is_nan_like_torch():
    """relu's gradient is torch's threshold_backward(g, out, 0): out <= 0 ? 0 : g, so a NaN output
    lets the gradient through."""
    x = np.array([np.nan, -1.0, 0.0, 2.0], dtype=np.float32)
    g = np.array([3.0, np.nan, 5.0, 7.0], dtype=np.float32)
    grads = []
    for m in (flow, torch):
        t = m.tensor(x, requires_grad=True)
        m.relu(t).backward(m.tensor(g))
        grads.append(t.grad.numpy())
    np.testing.assert_array_equal(grads[0], grads[1])
    np.testing.assert_array_equal(grads[0], [3.0, 0.0, 0.0, 7.0])
