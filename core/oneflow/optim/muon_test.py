"""oneflow.optim.Muon against torch.optim.Muon: parameters after several steps (bfloat16
Newton-Schulz, nesterov or not, the lr adjustments, weight decay), the state and bad input."""

import numpy as np
import pytest
import torch

import oneflow as flow


def _run(lib, shapes, steps, seed=0, **kw):
    rng = np.random.RandomState(seed)
    params = [lib.nn.Parameter(lib.tensor(rng.randn(*s).astype(np.float32))) for s in shapes]
    opt = lib.optim.Muon(params, **kw)
    for _ in range(steps):
        for p in params:
            p.grad = lib.tensor(rng.randn(*p.shape).astype(np.float32))
        opt.step()
    return params, opt


@pytest.mark.parametrize(
    "kw",
    [
        {"lr": 0.02},
        {"lr": 0.05, "nesterov": False, "momentum": 0.9, "weight_decay": 0.0},
        {"lr": 0.01, "adjust_lr_fn": "match_rms_adamw", "ns_steps": 3},
        {"lr": 0.01, "adjust_lr_fn": "original", "ns_coefficients": (3.0, -3.2, 1.2), "eps": 1e-5},
    ],
)
def test_matches_torch(kw):
    shapes = [(6, 4), (4, 6), (5, 5), (32, 16)]
    fps, fopt = _run(flow, shapes, 3, **kw)
    tps, topt = _run(torch, shapes, 3, **kw)
    for f, t in zip(fps, tps):
        # a few bfloat16 roundings may land differently; far below the step size
        np.testing.assert_allclose(f.detach().numpy(), t.detach().numpy(), atol=1e-4)
    for f, t in zip(fps, tps):
        np.testing.assert_allclose(
            fopt.state[f]["momentum_buffer"].numpy(), topt.state[t]["momentum_buffer"].numpy(), atol=1e-6
        )
    assert set(fopt.param_groups[0]) == set(topt.param_groups[0])
    assert list(fopt.state_dict()["state"][0]) == list(topt.state_dict()["state"][0]) == ["momentum_buffer"]


def test_update_is_orthogonal():
    from oneflow.optim.muon import _zeropower_via_newtonschulz

    g = flow.tensor(np.random.RandomState(1).randn(8, 4).astype(np.float32))
    o = _zeropower_via_newtonschulz(g, (3.4445, -4.775, 2.0315), 5, 1e-7).float().numpy()
    s = np.linalg.svd(o, compute_uv=False)
    assert np.all(s > 0.5) and np.all(s < 1.3)  # the quintic iteration pushes singular values near 1


def test_errors():
    p = flow.nn.Parameter(flow.zeros(3, 3))
    with pytest.raises(ValueError, match="Muon only supports 2D parameters"):
        flow.optim.Muon([flow.nn.Parameter(flow.zeros(3))])
    with pytest.raises(ValueError, match="Invalid learning rate"):
        flow.optim.Muon([p], lr=-1.0)
    with pytest.raises(ValueError, match="momentum should be >= 0"):
        flow.optim.Muon([p], momentum=-0.1)
    with pytest.raises(ValueError, match="weight decay should be >= 0"):
        flow.optim.Muon([p], weight_decay=-0.1)
    with pytest.raises(ValueError, match="Adjust learning rate function spectral is not supported"):
        flow.optim.Muon([p], adjust_lr_fn="spectral")
    opt = flow.optim.Muon([p], ns_steps=100)
    p.grad = flow.ones(3, 3)
    with pytest.raises(ValueError, match="less than 100"):
        opt.step()
