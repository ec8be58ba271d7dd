"""oneflow.autograd.functional (jacobian, hessian, vjp, jvp, vhp, hvp) against torch's: values,
output structure (tensor vs tuple, nested tuples), create_graph and strict, and bad input."""

import numpy as np
import pytest
import torch

import oneflow as flow
from oneflow.autograd import functional as F

T = torch.autograd.functional


def close(a, b, atol=1e-10):
    """Same structure (tensor / nested tuples) and values."""
    if isinstance(b, tuple):
        assert isinstance(a, tuple) and len(a) == len(b), (type(a), a, b)
        for x, y in zip(a, b):
            close(x, y, atol)
        return
    assert isinstance(a, flow.Tensor) and not isinstance(a, tuple), type(a)
    assert tuple(a.shape) == tuple(b.shape), (a.shape, b.shape)
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), atol=atol, rtol=0)


def pair(*arrays):
    """The same float64 values as a oneflow tuple and a torch tuple."""
    rng = np.random.default_rng(sum(a for a in (len(arrays),)))
    values = [rng.uniform(0.5, 1.5, size=s) for s in arrays]
    return tuple(flow.tensor(v) for v in values), tuple(torch.tensor(v) for v in values)


# Each: (function taking the module, input shapes); the function is run on both libraries.
FUNCS = [
    (lambda m: lambda x: x.exp() * x.sum(), [(3,)]),
    (lambda m: lambda x: (x @ x.T).sin(), [(2, 3)]),
    (lambda m: lambda x, y: (x * y.sum(), m.tanh(x) + y[:1]), [(3,), (2,)]),
    (lambda m: lambda x, y: x.unsqueeze(1) * y, [(2,), (2, 3)]),
    (lambda m: lambda x, y: (x.sum() * y, x.prod()), [(2, 2), ()]),
]
SCALAR_FUNCS = [
    (lambda m: lambda x: (x.sin() * x**3).sum(), [(4,)]),
    (lambda m: lambda x: m.logsumexp(x, 0).sum() + (x * x).prod(), [(2, 3)]),
    (lambda m: lambda x, y: (x.exp() * y.sum() ** 2).sum() + (y.log() * y).sum(), [(3,), (2,)]),
    (lambda m: lambda x, y: (x @ y).tanh().sum(), [(2, 3), (3,)]),
]


def call(fn_maker, module):
    fn = fn_maker(module)
    return fn


# A bare tensor input only where the function takes one input (several inputs need a tuple).
CASES = [
    (case, as_tuple) for case in range(len(FUNCS)) for as_tuple in (True, False) if as_tuple or len(FUNCS[case][1]) == 1
]


@pytest.mark.parametrize("case,as_tuple", CASES)
def test_jacobian_vjp_jvp(case, as_tuple):
    maker, shapes = FUNCS[case]
    fx, tx = pair(*shapes)
    fin, tin = (fx, tx) if as_tuple else (fx[0], tx[0])
    close(F.jacobian(maker(flow), fin), T.jacobian(maker(torch), tin))
    close(F.jacobian(maker(flow), fin, vectorize=True), T.jacobian(maker(torch), tin, vectorize=True))
    fo, to = maker(flow)(*fx), maker(torch)(*tx)
    outs = to if isinstance(to, tuple) else (to,)
    rng = np.random.default_rng(3)
    vo = [rng.normal(size=tuple(o.shape)) for o in outs]
    fv = tuple(flow.tensor(v) for v in vo)
    tv = tuple(torch.tensor(v) for v in vo)
    if not isinstance(to, tuple):
        fv, tv = fv[0], tv[0]
    close(F.vjp(maker(flow), fin, fv), T.vjp(maker(torch), tin, tv))
    vi = [rng.normal(size=s) for s in shapes]
    fvi = tuple(flow.tensor(v) for v in vi) if as_tuple else flow.tensor(vi[0])
    tvi = tuple(torch.tensor(v) for v in vi) if as_tuple else torch.tensor(vi[0])
    close(F.jvp(maker(flow), fin, fvi), T.jvp(maker(torch), tin, tvi))
    del fo


@pytest.mark.parametrize("case", range(len(SCALAR_FUNCS)))
def test_hessian_vhp_hvp(case):
    maker, shapes = SCALAR_FUNCS[case]
    fx, tx = pair(*shapes)
    close(F.hessian(maker(flow), fx), T.hessian(maker(torch), tx))
    if len(shapes) == 1:
        close(F.hessian(maker(flow), fx[0]), T.hessian(maker(torch), tx[0]))
    rng = np.random.default_rng(5)
    vs = [rng.normal(size=s) for s in shapes]
    fv, tv = tuple(flow.tensor(v) for v in vs), tuple(torch.tensor(v) for v in vs)
    close(F.vhp(maker(flow), fx, fv), T.vhp(maker(torch), tx, tv))
    close(F.hvp(maker(flow), fx, fv), T.hvp(maker(torch), tx, tv))
    if len(shapes) == 1:
        close(F.hvp(maker(flow), fx[0], fv[0]), T.hvp(maker(torch), tx[0], tv[0]))


def test_scalar_defaults_for_v():
    def run(m, lib):
        x = m.tensor(0.7, dtype=m.float64)
        return (
            lib.vjp(lambda a: a.sin() * a, x),
            lib.jvp(lambda a: a.sin() * a, x),
            lib.vhp(lambda a: a.sin() * a, x),
            lib.hvp(lambda a: a.sin() * a, x),
        )

    close(run(flow, F), run(torch, T))


def test_create_graph_makes_results_differentiable():
    def run(m, lib):
        x = m.tensor([0.3, 1.2], dtype=m.float64, requires_grad=True)
        jac = lib.jacobian(lambda a: a**3, x, create_graph=True)
        (g,) = m.autograd.grad(jac.sum(), x)
        _, v = lib.vjp(lambda a: a.exp() * a, x, m.ones(2, dtype=m.float64), create_graph=True)
        (g2,) = m.autograd.grad(v.sum(), x)
        h = lib.hessian(lambda a: (a**4).sum(), x, create_graph=True)
        (g3,) = m.autograd.grad(h.sum(), x)
        return jac.requires_grad, g, g2, g3

    (fr, *fg), (tr, *tg) = run(flow, F), run(torch, T)
    assert fr is True and tr is True
    close(tuple(fg), tuple(tg))
    # without create_graph nothing requires grad
    x = flow.tensor([0.3, 1.2], dtype=flow.float64, requires_grad=True)
    assert not F.jacobian(lambda a: a**3, x).requires_grad
    out, v = F.vjp(lambda a: a**3, x, flow.ones(2, dtype=flow.float64))
    assert not out.requires_grad and not v.requires_grad and x.grad is None


def test_independent_inputs_give_zeros_or_raise_in_strict_mode():
    def fn(a, b):
        return a * 2

    fx, tx = pair((2,), (3,))
    close(F.jacobian(fn, fx), T.jacobian(fn, tx))
    close(F.vjp(fn, fx, flow.ones(2, dtype=flow.float64)), T.vjp(fn, tx, torch.ones(2, dtype=torch.float64)))
    with pytest.raises(RuntimeError, match="independent of input 1"):
        F.jacobian(fn, fx, strict=True)
    with pytest.raises(RuntimeError, match="independent of input 1"):
        T.jacobian(fn, tx, strict=True)
    with pytest.raises(RuntimeError, match="independent of input 1"):
        F.vjp(fn, fx, flow.ones(2, dtype=flow.float64), strict=True)
    # a constant output: all zeros
    close(F.jacobian(lambda a: flow.ones(3, dtype=flow.float64), fx[0]), T.jacobian(lambda a: torch.ones(3), tx[0]))


def test_bad_input():
    x = flow.tensor([1.0, 2.0], dtype=flow.float64)
    with pytest.raises(TypeError, match="inputs given to jacobian must be either a Tensor or a tuple"):
        F.jacobian(lambda a: a, [x, 3])
    with pytest.raises(TypeError, match="outputs of the user-provided function given to vjp"):
        F.vjp(lambda a: 3.0, x, x)
    with pytest.raises(RuntimeError, match="v can only be None"):
        F.vjp(lambda a: a * 2, x)
    with pytest.raises(RuntimeError, match="v can only be None"):
        T.vjp(lambda a: a * 2, torch.tensor([1.0, 2.0]))
    with pytest.raises(RuntimeError, match="Mismatch in shape"):
        F.vjp(lambda a: a * 2, x, flow.ones(3, dtype=flow.float64))
    with pytest.raises(RuntimeError, match="should return a single Tensor"):
        F.hessian(lambda a: (a.sum(), a.sum()), x)
    with pytest.raises(RuntimeError, match="should contain a single element"):
        F.hessian(lambda a: a * 2, x)
    with pytest.raises(RuntimeError, match="should contain a single element"):
        T.hessian(lambda a: a * 2, torch.tensor([1.0, 2.0]))
    with pytest.raises(ValueError, match="strategy"):
        F.jacobian(lambda a: a, x, strategy="sideways")
    with pytest.raises(NotImplementedError, match="vectorize=True"):
        F.jacobian(lambda a: a, x, strategy="forward-mode")
    with pytest.raises(NotImplementedError, match="vectorize=True"):
        T.jacobian(lambda a: a, torch.tensor([1.0]), strategy="forward-mode")
    close(
        F.jacobian(lambda a: a.sin(), x, vectorize=True, strategy="forward-mode"),
        T.jacobian(
            lambda a: a.sin(), torch.tensor([1.0, 2.0], dtype=torch.float64), vectorize=True, strategy="forward-mode"
        ),
    )
