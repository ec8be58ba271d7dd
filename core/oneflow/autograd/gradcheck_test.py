"""The rest of torch.autograd against torch: gradcheck/gradgradcheck, anomaly detection, Variable,
NestedIOFunction and set_multithreading_enabled."""

import importlib

import numpy as np
import pytest
import torch

import oneflow as flow


def both(fn):
    return fn(flow), fn(torch)


def wrong_backward(m):
    """x*x whose backward forgets the factor 2 (first derivative wrong)."""

    class Square(m.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a * a

        @staticmethod
        def backward(ctx, g):
            (a,) = ctx.saved_tensors
            return g * a

    return Square.apply


def detached_backward(m):
    """x**3 whose backward is right but not differentiable (second derivative wrong)."""

    class Cube(m.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a**3

        @staticmethod
        def backward(ctx, g):
            (a,) = ctx.saved_tensors
            return g * 3 * a.detach() ** 2

    return Cube.apply


def test_gradcheck_agrees_with_torch():
    def run(m):
        x = m.tensor([[0.3, -1.2], [0.7, 2.0]], dtype=m.float64, requires_grad=True)
        y = m.tensor([0.5, 1.5], dtype=m.float64, requires_grad=True)
        good = m.autograd.gradcheck(lambda a, b: (a.sin() * b, (a @ b).exp()), (x, y))
        good2 = m.autograd.gradgradcheck(lambda a, b: (a.tanh() * b**2).sum(1), (x, y))
        bad = m.autograd.gradcheck(wrong_backward(m), (x,), raise_exception=False)
        bad2 = m.autograd.gradgradcheck(detached_backward(m), (y,), raise_exception=False)
        first_ok = m.autograd.gradcheck(detached_backward(m), (y,))
        return good, good2, bad, bad2, first_ok

    assert both(run) == ((True, True, False, False, True), (True, True, False, False, True))


def test_gradcheck_errors():
    x = flow.tensor([1.0, 2.0], dtype=flow.float64, requires_grad=True)
    with pytest.raises(RuntimeError, match="Jacobian mismatch for output 0 with respect to input 0"):
        flow.autograd.gradcheck(wrong_backward(flow), x)
    with pytest.raises(importlib.import_module("oneflow.autograd.gradcheck").GradcheckError):
        flow.autograd.gradcheck(wrong_backward(flow), x)
    with pytest.raises(ValueError, match="at least one input tensor to require gradient"):
        flow.autograd.gradcheck(lambda a: a * 2, flow.tensor([1.0]))
    with pytest.raises(ValueError, match="at least one input tensor to require gradient"):
        torch.autograd.gradcheck(lambda a: a * 2, torch.tensor([1.0]))
    with pytest.warns(UserWarning, match="not a double precision"):
        flow.autograd.gradcheck(lambda a: a * 2, flow.tensor([1.0], requires_grad=True), eps=1e-3, atol=1e-2)
    # a custom atol loose enough accepts the wrong derivative's error of |a| <= 2
    assert flow.autograd.gradcheck(wrong_backward(flow), x, atol=2.5)


@pytest.mark.parametrize("op", ["sqrt", "div", "log"])
def test_detect_anomaly_names_the_op(op):
    def make(m):
        x = m.tensor([0.0, 1.0], requires_grad=True)
        if op == "sqrt":
            return x, x.sqrt() * 0
        if op == "div":
            return x, (x / x) * 0
        return x, x.log() * 0

    expected = {"sqrt": "SqrtBackward0", "div": "DivBackward0", "log": "LogBackward0"}[op]
    for m in (flow, torch):
        with m.autograd.detect_anomaly():
            x, y = make(m)
            with pytest.raises(RuntimeError, match=f"Function '{expected}' returned nan values in its 0th output"):
                y.sum().backward()
    # off again: the NaN goes through silently, as in torch
    (x, y), (tx, ty) = make(flow), make(torch)
    y.sum().backward()
    ty.sum().backward()
    np.testing.assert_array_equal(np.isnan(x.grad.numpy()), np.isnan(tx.grad.numpy()))
    assert np.isnan(x.grad.numpy()).any()


def test_set_detect_anomaly_forms():
    from oneflow.autograd.anomaly_mode import is_anomaly_enabled

    x = flow.tensor([0.0], requires_grad=True)
    flow.autograd.set_detect_anomaly(True)
    try:
        assert is_anomaly_enabled()
        with pytest.raises(RuntimeError, match="SqrtBackward0"):
            flow.autograd.grad((x.sqrt() * 0).sum(), x)
    finally:
        flow.autograd.set_detect_anomaly(False)
    assert not is_anomaly_enabled()
    with flow.autograd.set_detect_anomaly(True):
        assert is_anomaly_enabled()
    assert not is_anomaly_enabled()
    with flow.autograd.set_detect_anomaly(True, check_nan=False):
        flow.autograd.grad((x.sqrt() * 0).sum(), x)  # nothing checked

    @flow.autograd.detect_anomaly()
    def step():
        assert is_anomaly_enabled()
        return flow.autograd.grad((x.sqrt() * 0).sum(), x)

    with pytest.raises(RuntimeError, match="SqrtBackward0"):
        step()
    assert not is_anomaly_enabled()
    # finite gradients pass the check unchanged
    with flow.autograd.detect_anomaly():
        y = flow.tensor([1.0, 4.0], requires_grad=True)
        (g,) = flow.autograd.grad(y.sqrt().sum(), y)
    np.testing.assert_allclose(g.numpy(), [0.5, 0.25])


def test_variable():
    def run(m):
        t = m.tensor([1.0, 2.0])
        v = m.autograd.Variable(t)
        w = m.autograd.Variable(t, requires_grad=True)
        return (
            v is t,
            v.requires_grad,
            w.requires_grad,
            w.is_leaf,
            isinstance(t, m.autograd.Variable),
            isinstance(3, m.autograd.Variable),
            tuple(m.autograd.Variable().shape),
        )

    f, t = both(run)
    assert f == t == (False, False, True, True, True, False, (0,))
    t = flow.tensor([1.0, 2.0])
    v = flow.autograd.Variable(t)
    v[0] = 5.0  # shares the data, as torch's
    assert float(t[0]) == 5.0
    with pytest.raises(TypeError, match="Variable data has to be a tensor, but got list"):
        flow.autograd.Variable([1.0])
    with pytest.raises(TypeError, match="Variable data has to be a tensor, but got list"):
        torch.autograd.Variable([1.0])
    assert flow.autograd.variable.Variable is flow.autograd.Variable


def test_nested_io_function():
    class MulAdd(flow.autograd.NestedIOFunction):
        def forward_extended(self, pair, c):
            a, b = pair
            self.save_for_backward(a, (b, c))
            return a * b + c, [a - c]

        def backward_extended(self, g_out, g_list):
            a, (b, c) = self.saved_tensors
            return (g_out * b + g_list[0], g_out * a), g_out - g_list[0]

    a = flow.tensor([1.0, 2.0], requires_grad=True)
    b = flow.tensor([3.0, -1.0], requires_grad=True)
    c = flow.tensor([0.5, 0.5], requires_grad=True)
    out, (diff,) = MulAdd()((a, b), c)
    np.testing.assert_allclose(out.detach().numpy(), [3.5, -1.5])
    np.testing.assert_allclose(diff.detach().numpy(), [0.5, 1.5])
    (out.sum() + 2 * diff.sum()).backward()
    np.testing.assert_allclose(a.grad.numpy(), [5.0, 1.0])
    np.testing.assert_allclose(b.grad.numpy(), [1.0, 2.0])
    np.testing.assert_allclose(c.grad.numpy(), [-1.0, -1.0])


def test_set_multithreading_enabled():
    x = flow.tensor([1.0, 2.0], requires_grad=True)
    with flow.autograd.set_multithreading_enabled(False):
        assert flow.autograd.set_multithreading_enabled._enabled is False
        (x * x).sum().backward()
    assert flow.autograd.set_multithreading_enabled._enabled is True
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 4.0])
    with torch.autograd.set_multithreading_enabled(False):
        pass


def test_enforce_grad_layout_policy():
    policy = flow.autograd.enforce_grad_layout_policy
    for m in (flow, torch):
        for enable in (True, False):
            with m.autograd.enforce_grad_layout_policy(enable):
                if m is flow:
                    assert policy.is_enabled() is enable
                p = m.ones(2, 3, 4).permute(2, 0, 1).requires_grad_()
                (p * 2).sum().backward()
                if enable or m is flow:  # relaxed, torch may keep the incoming contiguous gradient
                    assert p.grad.stride() == p.stride() == (1, 12, 4)
    assert policy.is_enabled() is True


def test_detect_anomaly_in_custom_function_and_double_backward():
    class NanGrad(flow.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, g):
            return g * float("nan")

    x = flow.tensor([1.0, 2.0], requires_grad=True)
    with flow.autograd.detect_anomaly():
        with pytest.raises(RuntimeError, match="Function 'NanGradBackward' returned nan values in its 0th output"):
            NanGrad.apply(x).sum().backward()
        # second order: the NaN appears only in the backward of the backward
        y = flow.tensor([0.0, 1.0], requires_grad=True)
        (g,) = flow.autograd.grad((y**1.5).sum(), y, create_graph=True)
        with pytest.raises(RuntimeError, match="returned nan values"):
            flow.autograd.grad((g * 0).sum() + (g.sqrt() * 0).sum(), y)
    assert x.grad is None
