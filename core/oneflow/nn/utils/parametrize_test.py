"""oneflow.nn.utils.parametrize and .parametrizations against torch's: parametrized values and
gradients on the same weights, stacking, right_inverse (single and several tensors), removal,
caching, state-dict keys (torch's state dicts load as NumPy), and bad input."""

import numpy as np
import pytest
import torch

import oneflow as flow
import oneflow.nn.utils.parametrize as P
from oneflow.nn.utils import parametrizations as PS

TP = torch.nn.utils.parametrize


def _np(t):
    return t.detach().cpu().numpy() if isinstance(t, torch.Tensor) else t.detach().numpy()


def _copy_weights(fm, tm, seed=0):
    """Gives both modules the same random values (NumPy in, so the layouts must agree)."""
    rng = np.random.RandomState(seed)
    with torch.no_grad():
        for _name, tp in tm.state_dict(keep_vars=True).items():
            v = np.asarray(rng.randn(*tp.shape)).astype(_np(tp).dtype)
            tp.copy_(torch.tensor(v))
    fm.load_state_dict({k: _np(v) for k, v in tm.state_dict().items()})


def _make(module_lib, kind):
    nn = module_lib.nn
    lib = module_lib

    class Symmetric(nn.Module):
        def forward(self, x):
            return x.triu() + x.triu(1).transpose(-1, -2)

        def right_inverse(self, a):
            return a.triu()

    class Scale(nn.Module):
        def __init__(self):
            super().__init__()
            self.s = nn.Parameter(lib.tensor(2.0, dtype=lib.float64))

        def forward(self, x):
            return x * self.s

        def right_inverse(self, y):
            return y / self.s

    class Split(nn.Module):  # parametrized by two tensors
        def forward(self, a, b):
            return a + b

        def right_inverse(self, y):
            return y * 0.25, y * 0.75

    class NoInverse(nn.Module):
        def forward(self, x):
            return x * 3

    return {"sym": Symmetric, "scale": Scale, "split": Split, "noinv": NoInverse}[kind]()


@pytest.mark.parametrize("chain", [["sym"], ["scale"], ["sym", "scale"], ["split", "sym"], ["noinv", "scale"]])
def test_register_matches_torch(chain):
    fm, tm = flow.nn.Linear(4, 4).double(), torch.nn.Linear(4, 4).double()
    _copy_weights(fm, tm)
    for kind in chain:
        P.register_parametrization(fm, "weight", _make(flow, kind))
        TP.register_parametrization(tm, "weight", _make(torch, kind))
    assert type(fm).__name__ == type(tm).__name__ == "ParametrizedLinear"
    assert list(fm.state_dict()) == list(tm.state_dict())
    np.testing.assert_allclose(_np(fm.weight), _np(tm.weight), atol=1e-12)
    x = np.random.RandomState(1).randn(3, 4)
    yf, yt = fm(flow.tensor(x)), tm(torch.tensor(x))
    np.testing.assert_allclose(_np(yf), _np(yt), atol=1e-12)
    (yf**2).sum().backward()
    (yt**2).sum().backward()
    for (nf, pf), (nt, pt) in zip(fm.named_parameters(), tm.named_parameters()):
        assert nf == nt
        np.testing.assert_allclose(_np(pf.grad), _np(pt.grad), atol=1e-10, err_msg=nf)
    # torch's state dict, as NumPy, loads into ours and gives the same value
    tm2 = torch.nn.Linear(4, 4).double()
    for kind in chain:
        TP.register_parametrization(tm2, "weight", _make(torch, kind))
    _copy_weights(fm, tm2, seed=5)
    np.testing.assert_allclose(_np(fm.weight), _np(tm2.weight), atol=1e-12)


def test_original_and_right_inverse_assignment():
    fm, tm = flow.nn.Linear(3, 3).double(), torch.nn.Linear(3, 3).double()
    _copy_weights(fm, tm)
    original = fm.weight
    P.register_parametrization(fm, "weight", _make(flow, "sym"))
    TP.register_parametrization(tm, "weight", _make(torch, "sym"))
    # the original parameter object is kept (optimizers holding it stay valid)
    assert fm.parametrizations.weight.original is original
    np.testing.assert_allclose(_np(fm.parametrizations.weight.original), _np(tm.parametrizations.weight.original))
    a = np.random.RandomState(2).randn(3, 3)
    a = a + a.T
    fm.weight = flow.tensor(a)
    tm.weight = torch.tensor(a)
    np.testing.assert_allclose(_np(fm.weight), a, atol=1e-12)
    np.testing.assert_allclose(_np(fm.parametrizations.weight.original), _np(tm.parametrizations.weight.original))
    assert fm.parametrizations.weight.original is original


def test_assignment_without_right_inverse_raises():
    m = flow.nn.Linear(3, 3)
    P.register_parametrization(m, "weight", _make(flow, "noinv"))
    with pytest.raises(RuntimeError, match="does not implement right_inverse"):
        m.weight = flow.zeros(3, 3)


def test_several_originals():
    fm, tm = flow.nn.Linear(3, 2).double(), torch.nn.Linear(3, 2).double()
    _copy_weights(fm, tm)
    P.register_parametrization(fm, "weight", _make(flow, "split"))
    TP.register_parametrization(tm, "weight", _make(torch, "split"))
    keys = list(fm.state_dict())
    assert keys == list(tm.state_dict())
    assert "parametrizations.weight.original0" in keys and "parametrizations.weight.original1" in keys
    assert fm.parametrizations.weight.ntensors == 2 and not fm.parametrizations.weight.is_tensor
    np.testing.assert_allclose(_np(fm.parametrizations.weight.original1), _np(tm.parametrizations.weight.original1))
    with pytest.raises(ValueError, match="sequence of tensors"):
        P.remove_parametrizations(fm, "weight", leave_parametrized=False)
    P.remove_parametrizations(fm, "weight")
    TP.remove_parametrizations(tm, "weight")
    assert isinstance(fm.weight, flow.nn.Parameter)
    np.testing.assert_allclose(_np(fm.weight), _np(tm.weight), atol=1e-12)


@pytest.mark.parametrize("leave", [True, False])
def test_remove(leave):
    fm, tm = flow.nn.Linear(3, 3).double(), torch.nn.Linear(3, 3).double()
    _copy_weights(fm, tm)
    original = fm.weight
    for kind in ("sym", "scale"):
        P.register_parametrization(fm, "weight", _make(flow, kind))
        TP.register_parametrization(tm, "weight", _make(torch, kind))
    P.register_parametrization(fm, "bias", _make(flow, "scale"))
    P.remove_parametrizations(fm, "weight", leave_parametrized=leave)
    TP.remove_parametrizations(tm, "weight", leave_parametrized=leave)
    assert P.is_parametrized(fm) and not P.is_parametrized(fm, "weight") and P.is_parametrized(fm, "bias")
    assert fm.weight is original  # same object, new value
    np.testing.assert_allclose(_np(fm.weight), _np(tm.weight), atol=1e-12)
    P.remove_parametrizations(fm, "bias")
    assert type(fm) is flow.nn.Linear and not hasattr(fm, "parametrizations")
    assert list(fm.state_dict()) == ["weight", "bias"]
    with pytest.raises(ValueError, match="does not have a parametrization on weight"):
        P.remove_parametrizations(fm, "weight")


def test_buffer_parametrization_and_type_before():
    m = flow.nn.BatchNorm1d(3)
    P.register_parametrization(m, "running_mean", _make(flow, "scale"))
    assert "parametrizations.running_mean.original" in m.state_dict()
    assert not isinstance(m.parametrizations.running_mean.original, flow.nn.Parameter)
    assert P.type_before_parametrizations(m) is flow.nn.BatchNorm1d
    assert P.type_before_parametrizations(flow.nn.ReLU()) is flow.nn.ReLU
    assert isinstance(m.parametrizations.running_mean, P.ParametrizationList)


def test_cached():
    calls = []

    class Counting(flow.nn.Module):
        def forward(self, x):
            calls.append(1)
            return x * 2

    m = flow.nn.Linear(2, 2)
    P.register_parametrization(m, "weight", Counting())
    calls.clear()
    with P.cached():
        a, b = m.weight, m.weight
        with P.cached():
            c = m.weight
    assert len(calls) == 1 and a is b is c
    d = m.weight
    assert len(calls) == 2 and d is not a


def test_transfer_parametrizations_and_params():
    src = flow.nn.Linear(3, 3).double()
    P.register_parametrization(src, "weight", _make(flow, "sym"))
    dst = flow.nn.Linear(3, 3).double()
    P.transfer_parametrizations_and_params(src, dst)
    assert dst.parametrizations.weight.original is src.parametrizations.weight.original
    np.testing.assert_allclose(_np(dst.weight), _np(src.weight))
    # a tensor the target lacks is created
    empty = flow.nn.Module()
    P.transfer_parametrizations_and_params(src, empty, "weight")
    np.testing.assert_allclose(_np(empty.weight), _np(src.weight))
    # not parametrized: nothing happens
    plain = flow.nn.Linear(2, 2)
    assert P.transfer_parametrizations_and_params(flow.nn.Linear(2, 2), plain) is plain


def test_errors():
    m = flow.nn.Linear(3, 2)
    with pytest.raises(ValueError, match="does not have a parameter, a buffer"):
        P.register_parametrization(m, "nope", _make(flow, "scale"))

    class Shrink(flow.nn.Module):
        def forward(self, x):
            return x[:1]

    class ToInt(flow.nn.Module):
        def forward(self, x):
            return x.long()

    with pytest.raises(ValueError, match="may not change the shape"):
        P.register_parametrization(m, "weight", Shrink())
    with pytest.raises(ValueError, match="may not change the dtype"):
        P.register_parametrization(m, "weight", ToInt())
    assert not P.is_parametrized(m)
    P.register_parametrization(m, "weight", Shrink(), unsafe=True)
    assert tuple(m.weight.shape) == (1, 3)
    with pytest.raises(ValueError, match="may not change the dtype"):
        P.register_parametrization(m, "weight", ToInt())  # stacked on top
    assert len(m.parametrizations.weight) == 1
    with pytest.raises(ValueError, match="one or more modules"):
        P.ParametrizationList([], flow.zeros(2))
    with pytest.raises(TypeError, match="parametrization must be an nn.Module"):
        P.register_parametrization(flow.nn.Linear(2, 2), "weight", lambda x: x)
    with pytest.raises(RuntimeError, match="only supported through state_dict"):
        import pickle

        pickle.dumps(m)


# ---- parametrizations ---------------------------------------------------------------------------


@pytest.mark.parametrize("dim", [0, 1, None, -1])
@pytest.mark.parametrize("cls,args,x_shape", [("Linear", (4, 3), (2, 4)), ("Conv2d", (2, 3, 2), (1, 2, 4, 4))])
def test_weight_norm(dim, cls, args, x_shape):
    fm, tm = getattr(flow.nn, cls)(*args).double(), getattr(torch.nn, cls)(*args).double()
    _copy_weights(fm, tm)
    PS.weight_norm(fm, dim=dim)
    torch.nn.utils.parametrizations.weight_norm(tm, dim=dim)
    assert list(fm.state_dict()) == list(tm.state_dict())
    for k, v in tm.state_dict().items():
        np.testing.assert_allclose(_np(fm.state_dict()[k]), _np(v), atol=1e-12, err_msg=k)
    x = np.random.RandomState(3).randn(*x_shape)
    yf, yt = fm(flow.tensor(x)), tm(torch.tensor(x))
    np.testing.assert_allclose(_np(yf), _np(yt), atol=1e-10)
    yf.sum().backward()
    yt.sum().backward()
    for (nf, pf), (_nt, pt) in zip(fm.named_parameters(), tm.named_parameters()):
        np.testing.assert_allclose(_np(pf.grad), _np(pt.grad), atol=1e-10, err_msg=nf)


def test_weight_norm_loads_old_style_state_dict():
    old = flow.nn.utils.weight_norm(flow.nn.Linear(3, 2))
    sd = old.state_dict()
    assert "weight_g" in sd
    new = PS.weight_norm(flow.nn.Linear(3, 2))
    new.load_state_dict(sd)
    np.testing.assert_allclose(_np(new.weight), _np(old.weight), atol=1e-6)


@pytest.mark.parametrize(
    "cls,args,x_shape,dim",
    [
        ("Linear", (5, 3), (2, 5), None),
        ("Conv2d", (2, 4, 3), (1, 2, 5, 5), None),
        ("ConvTranspose2d", (3, 2, 2), (1, 3, 3, 3), None),
        ("Linear", (5, 3), (2, 5), 1),
    ],
)
@pytest.mark.parametrize("n_iter", [1, 3])
def test_spectral_norm_parametrization(cls, args, x_shape, dim, n_iter):
    fm, tm = getattr(flow.nn, cls)(*args).double(), getattr(torch.nn, cls)(*args).double()
    PS.spectral_norm(fm, n_power_iterations=n_iter, dim=dim)
    torch.nn.utils.parametrizations.spectral_norm(tm, n_power_iterations=n_iter, dim=dim)
    assert list(fm.state_dict()) == list(tm.state_dict())
    _copy_weights(fm, tm)  # also copies torch's _u and _v into ours
    x = np.random.RandomState(4).randn(*x_shape)
    for step in range(3):  # training mode: power iteration on every forward
        yf, yt = fm(flow.tensor(x)), tm(torch.tensor(x))
        np.testing.assert_allclose(_np(yf), _np(yt), atol=1e-9, err_msg=f"step {step}")
        np.testing.assert_allclose(
            _np(fm.parametrizations.weight[0]._u), _np(tm.parametrizations.weight[0]._u), atol=1e-9
        )
    yf.sum().backward()
    yt.sum().backward()
    for (nf, pf), (_nt, pt) in zip(fm.named_parameters(), tm.named_parameters()):
        np.testing.assert_allclose(_np(pf.grad), _np(pt.grad), atol=1e-8, err_msg=nf)
    fm.eval()
    tm.eval()
    np.testing.assert_allclose(_np(fm(flow.tensor(x))), _np(tm(torch.tensor(x))), atol=1e-9)
    u = _np(fm.parametrizations.weight[0]._u).copy()
    fm(flow.tensor(x))
    np.testing.assert_array_equal(_np(fm.parametrizations.weight[0]._u), u)  # eval: no iteration


def test_spectral_norm_parametrization_errors():
    with pytest.raises(IndexError, match="Dimension out of range"):
        PS.spectral_norm(flow.nn.Linear(2, 2), dim=2)
    with pytest.raises(ValueError, match="n_power_iterations to be positive"):
        PS.spectral_norm(flow.nn.Linear(2, 2), n_power_iterations=0)
    with pytest.raises(ValueError, match="no parameter or buffer with name 'w'"):
        PS.spectral_norm(flow.nn.Linear(2, 2), name="w")
    m = PS.spectral_norm(flow.nn.Linear(4, 3))
    sigma = np.linalg.svd(_np(m.parametrizations.weight.original), compute_uv=False)[0]
    np.testing.assert_allclose(np.linalg.svd(_np(m.weight), compute_uv=False)[0], 1.0, atol=1e-3 * sigma)


@pytest.mark.parametrize("orth_map", ["matrix_exp", "cayley", "householder"])
@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (3, 5)])
@pytest.mark.parametrize("trivial", [True, False])
def test_orthogonal(orth_map, shape, trivial):
    fm, tm = flow.nn.Linear(shape[1], shape[0]).double(), torch.nn.Linear(shape[1], shape[0]).double()
    _copy_weights(fm, tm)
    PS.orthogonal(fm, orthogonal_map=orth_map, use_trivialization=trivial)
    torch.nn.utils.parametrizations.orthogonal(tm, orthogonal_map=orth_map, use_trivialization=trivial)
    assert list(fm.state_dict()) == list(tm.state_dict())
    q = _np(fm.weight)
    small = min(shape)
    gram = q.T @ q if shape[0] >= shape[1] else q @ q.T
    np.testing.assert_allclose(gram, np.eye(small), atol=1e-10)
    # the same unconstrained tensor (and base) gives the same orthogonal matrix and gradients
    rng = np.random.RandomState(7)
    sd = {k: _np(v) for k, v in tm.state_dict().items()}
    sd["parametrizations.weight.original"] = 0.3 * rng.randn(*shape)
    with torch.no_grad():
        tm.parametrizations.weight.original.copy_(torch.tensor(sd["parametrizations.weight.original"]))
    fm.load_state_dict(sd)
    np.testing.assert_allclose(_np(fm.weight), _np(tm.weight), atol=1e-9)
    (fm.weight * flow.tensor(np.arange(q.size).reshape(shape))).sum().backward()
    (tm.weight * torch.tensor(np.arange(q.size).reshape(shape))).sum().backward()
    np.testing.assert_allclose(
        _np(fm.parametrizations.weight.original.grad), _np(tm.parametrizations.weight.original.grad), atol=1e-8
    )


def test_orthogonal_assignment_and_errors():
    m = PS.orthogonal(flow.nn.Linear(3, 3).double(), orthogonal_map="cayley")
    a = np.linalg.qr(np.random.RandomState(0).randn(3, 3))[0]
    m.weight = flow.tensor(a)
    np.testing.assert_allclose(_np(m.weight), a, atol=1e-10)
    m = PS.orthogonal(flow.nn.Linear(3, 4).double(), orthogonal_map="householder", use_trivialization=False)
    q = np.linalg.qr(np.random.RandomState(1).randn(4, 3))[0]
    m.weight = flow.tensor(q)
    np.testing.assert_allclose(_np(m.weight), q, atol=1e-10)
    with pytest.raises(ValueError, match="orthogonal_map has to be one of"):
        PS.orthogonal(flow.nn.Linear(2, 2), orthogonal_map="svd")
    with pytest.raises(ValueError, match="Expected a matrix or batch of matrices"):
        PS.orthogonal(flow.nn.Linear(2, 2), name="bias")
    m = PS.orthogonal(flow.nn.Linear(2, 2), orthogonal_map="matrix_exp", use_trivialization=False)
    with pytest.raises(RuntimeError):
        m.weight = flow.eye(2)
