"""oneflow.nn.utils.spectral_norm / remove_spectral_norm (the hook-based form) against torch's:
buffers and state-dict keys, power iteration in training mode from the same u/v, gradients,
eval mode, removal, state-dict version metadata and the version-0 loading path, bad input."""

import numpy as np
import pytest
import torch

import oneflow as flow
from oneflow.nn.utils.spectral_norm import (
    SpectralNorm,
    SpectralNormLoadStateDictPreHook,
    SpectralNormStateDictHook,
    remove_spectral_norm,
    spectral_norm,
)

pytestmark = pytest.mark.filterwarnings("ignore::FutureWarning")


def _np(t):
    return t.detach().numpy()


def _pair(cls, args, **kw):
    fm, tm = getattr(flow.nn, cls)(*args).double(), getattr(torch.nn, cls)(*args).double()
    spectral_norm(fm, **kw)
    torch.nn.utils.spectral_norm(tm, **kw)
    # the same weight_orig, weight_u, weight_v: torch's values copied into ours
    fm.load_state_dict({k: v.numpy() for k, v in tm.state_dict().items()})
    return fm, tm


CASES = [
    ("Linear", (5, 3), (2, 5), {}),
    ("Linear", (5, 3), (2, 5), {"n_power_iterations": 3, "eps": 1e-6}),
    ("Conv2d", (2, 4, 3), (1, 2, 5, 5), {}),
    ("ConvTranspose2d", (3, 2, 2), (1, 3, 3, 3), {}),
    ("Conv1d", (2, 3, 2), (2, 2, 4), {"dim": 1}),
]


@pytest.mark.parametrize("cls,args,x_shape,kw", CASES)
def test_matches_torch(cls, args, x_shape, kw):
    fm, tm = _pair(cls, args, **kw)
    assert list(fm.state_dict()) == list(tm.state_dict())
    assert sorted(n for n, _ in fm.named_buffers()) == ["weight_u", "weight_v"]
    assert sorted(n for n, _ in fm.named_parameters()) == sorted(n for n, _ in tm.named_parameters())
    x = np.random.RandomState(0).randn(*x_shape)
    for step in range(3):
        yf, yt = fm(flow.tensor(x)), tm(torch.tensor(x))
        np.testing.assert_allclose(_np(yf), _np(yt), atol=1e-9, err_msg=f"step {step}")
        for b in ("weight_u", "weight_v"):
            np.testing.assert_allclose(_np(getattr(fm, b)), _np(getattr(tm, b)), atol=1e-9)
    np.testing.assert_allclose(_np(fm.weight), _np(tm.weight), atol=1e-9)
    yf.sum().backward()
    yt.sum().backward()
    for (nf, pf), (_nt, pt) in zip(fm.named_parameters(), tm.named_parameters()):
        np.testing.assert_allclose(_np(pf.grad), _np(pt.grad), atol=1e-8, err_msg=nf)
    fm.eval()
    tm.eval()
    u = _np(fm.weight_u).copy()
    np.testing.assert_allclose(_np(fm(flow.tensor(x))), _np(tm(torch.tensor(x))), atol=1e-9)
    np.testing.assert_array_equal(_np(fm.weight_u), u)


def test_sigma_converges_to_largest_singular_value():
    m = spectral_norm(flow.nn.Linear(6, 4).double(), n_power_iterations=30)
    m(flow.zeros(1, 6, dtype=flow.float64))
    w = _np(m.weight_orig)
    sigma = np.linalg.svd(w, compute_uv=False)[0]
    np.testing.assert_allclose(_np(m.weight), w / sigma, atol=1e-8)


def test_remove():
    fm, tm = _pair("Linear", (4, 3))
    x = np.random.RandomState(1).randn(2, 4)
    fm(flow.tensor(x))
    tm(torch.tensor(x))
    remove_spectral_norm(fm)
    torch.nn.utils.remove_spectral_norm(tm)
    assert isinstance(fm.weight, flow.nn.Parameter)
    assert list(fm.state_dict()) == list(tm.state_dict()) == ["bias", "weight"]
    np.testing.assert_allclose(_np(fm.weight), _np(tm.weight), atol=1e-9)
    assert not any(isinstance(h, SpectralNorm) for h in fm._forward_pre_hooks.values())
    assert not any(isinstance(h, SpectralNormStateDictHook) for h in fm._state_dict_hooks.values())
    assert not any(isinstance(h, SpectralNormLoadStateDictPreHook) for h in fm._load_state_dict_pre_hooks.values())
    with pytest.raises(ValueError, match="spectral_norm of 'weight' not found"):
        remove_spectral_norm(fm)


def test_state_dict_metadata_and_round_trip():
    fm, _ = _pair("Linear", (4, 3))
    sd = fm.state_dict()
    assert sd._metadata[""]["spectral_norm"] == {"weight.version": 1}
    other = spectral_norm(flow.nn.Linear(4, 3).double())
    other.load_state_dict(sd)
    for k in sd:
        np.testing.assert_array_equal(_np(other.state_dict()[k]), _np(sd[k]))


def test_loads_version_0_checkpoint():
    # Version 0 stored the normalized weight and no weight_v; v is recovered from them.
    fm, tm = _pair("Linear", (4, 3))
    tm.eval()
    tm(torch.zeros(1, 4, dtype=torch.float64))
    old = {k: v.numpy() for k, v in tm.state_dict().items()}
    old["weight"] = tm.weight.detach().numpy()
    del old["weight_v"]
    fm.load_state_dict(old)
    fm.eval()
    fm(flow.zeros(1, 4, dtype=flow.float64))
    np.testing.assert_allclose(_np(fm.weight), tm.weight.detach().numpy(), atol=1e-7)
    missing = spectral_norm(flow.nn.Linear(4, 3))
    with pytest.raises(RuntimeError, match="Missing key"):
        missing.load_state_dict({"weight_orig": np.zeros((3, 4), np.float32), "bias": np.zeros(3, np.float32)})


def test_errors():
    m = spectral_norm(flow.nn.Linear(3, 2))
    with pytest.raises(RuntimeError, match="Cannot register two spectral_norm hooks"):
        spectral_norm(m)
    with pytest.raises(ValueError, match="n_power_iterations to be positive"):
        spectral_norm(flow.nn.Linear(3, 2), n_power_iterations=0)
    with pytest.raises(KeyError, match="no parameter named 'w'"):
        spectral_norm(flow.nn.Linear(3, 2), name="w")
    with pytest.raises(ValueError, match="parameter `bias` is None"):
        spectral_norm(flow.nn.Linear(3, 2, bias=False), name="bias")
    with pytest.raises(TypeError, match="module must be an nn.Module"):
        spectral_norm("linear")
