"""oneflow.nn.utils.weight_norm / remove_weight_norm against torch's: parameters, forward,
gradients of g and v, dim variants and removal."""

import numpy as np
import pytest
import torch

import oneflow as flow

# torch deprecates its weight_norm in favour of parametrizations; it is still the reference here.
pytestmark = pytest.mark.filterwarnings("ignore::FutureWarning")


def pair(make_flow, make_torch, seed=0):
    fm, tm = make_flow(), make_torch()
    rng = np.random.RandomState(seed)
    with torch.no_grad():
        for (_, fp), (_, tp) in zip(fm.named_parameters(), tm.named_parameters()):
            v = rng.randn(*tp.shape).astype(np.float32)
            tp.copy_(torch.tensor(v))
            with flow.no_grad():
                fp.copy_(flow.tensor(v))
    return fm, tm


CASES = [
    (lambda: flow.nn.Linear(5, 4), lambda: torch.nn.Linear(5, 4), (3, 5)),
    (lambda: flow.nn.Conv2d(3, 4, 3), lambda: torch.nn.Conv2d(3, 4, 3), (2, 3, 6, 6)),
    (lambda: flow.nn.Conv1d(2, 3, 2), lambda: torch.nn.Conv1d(2, 3, 2), (2, 2, 5)),
]


@pytest.mark.parametrize("make_f,make_t,in_shape", CASES)
@pytest.mark.parametrize("dim", [0, 1, -2, None])
def test_matches_torch(make_f, make_t, in_shape, dim):
    fm, tm = pair(make_f, make_t)
    fm = flow.nn.utils.weight_norm(fm, dim=dim)
    tm = torch.nn.utils.weight_norm(tm, dim=dim)
    assert sorted(n for n, _ in fm.named_parameters()) == sorted(n for n, _ in tm.named_parameters())
    assert tuple(fm.weight_g.shape) == tuple(tm.weight_g.shape)
    np.testing.assert_allclose(fm.weight_g.detach().numpy(), tm.weight_g.detach().numpy(), rtol=1e-5)
    with torch.no_grad(), flow.no_grad():  # move g away from ||v|| so the weight differs from v
        tm.weight_g.mul_(1.5)
        fm.weight_g.mul_(1.5)
    x = np.random.RandomState(1).randn(*in_shape).astype(np.float32)
    fo, to = fm(flow.tensor(x)), tm(torch.tensor(x))
    np.testing.assert_allclose(fo.detach().numpy(), to.detach().numpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(fm.weight.detach().numpy(), tm.weight.detach().numpy(), rtol=1e-5, atol=1e-6)
    fo.pow(2).sum().backward()
    to.pow(2).sum().backward()
    for name in ("weight_g", "weight_v", "bias"):
        np.testing.assert_allclose(getattr(fm, name).grad.numpy(), getattr(tm, name).grad.numpy(),
                                   rtol=1e-4, atol=1e-4)
    fm = flow.nn.utils.remove_weight_norm(fm)
    torch.nn.utils.remove_weight_norm(tm)
    assert isinstance(fm.weight, flow.nn.Parameter)
    assert sorted(n for n, _ in fm.named_parameters()) == ["bias", "weight"]
    np.testing.assert_allclose(fm.weight.detach().numpy(), tm.weight.detach().numpy(), rtol=1e-5, atol=1e-6)
    assert len(fm._forward_pre_hooks) == 0


def test_hand_values_and_state_dict():
    m = flow.nn.Linear(2, 2, bias=False)
    with flow.no_grad():
        m.weight.copy_(flow.tensor([[3.0, 4.0], [0.0, 2.0]]))
    flow.nn.utils.weight_norm(m)
    np.testing.assert_allclose(m.weight_g.detach().numpy(), [[5.0], [2.0]])
    with flow.no_grad():
        m.weight_g.copy_(flow.tensor([[10.0], [1.0]]))
    m(flow.ones(1, 2))
    np.testing.assert_allclose(m.weight.detach().numpy(), [[6.0, 8.0], [0.0, 1.0]], rtol=1e-6)
    assert set(m.state_dict()) == {"weight_g", "weight_v"}
    # A 1-D parameter with dim=0: each element is its own magnitude.
    b = flow.nn.utils.weight_norm(flow.nn.Linear(2, 2), name="bias")
    assert tuple(b.bias_g.shape) == (2,)


def test_bad_input():
    m = flow.nn.utils.weight_norm(flow.nn.Linear(2, 2))
    with pytest.raises(RuntimeError, match="cannot register two weight_norm hooks on the same parameter weight"):
        flow.nn.utils.weight_norm(m)
    with pytest.raises(ValueError, match="weight_norm: module Linear has no parameter named 'kernel'"):
        flow.nn.utils.weight_norm(flow.nn.Linear(2, 2), name="kernel")
    with pytest.raises(IndexError, match=r"weight_norm: dim out of range"):
        flow.nn.utils.weight_norm(flow.nn.Linear(2, 2), dim=2)
    with pytest.raises(TypeError, match="weight_norm: dim must be an int or None, got str"):
        flow.nn.utils.weight_norm(flow.nn.Linear(2, 2), dim="0")
    with pytest.raises(TypeError, match="weight_norm: module must be an nn.Module, got Linear"):
        flow.nn.utils.weight_norm(torch.nn.Linear(2, 2))
    with pytest.raises(ValueError, match="remove_weight_norm: weight_norm of 'bias' not found"):
        flow.nn.utils.remove_weight_norm(m, name="bias")
