"""CombinedMarginLoss against its formula in NumPy, and its gradient against torch."""

import numpy as np
import pytest
import torch

import oneflow as flow


def _reference(x, label, m1, m2, m3):
    out = x.copy()
    for i, c in enumerate(label):
        if 0 <= c < x.shape[1]:
            out[i, c] = np.cos(m1 * np.arccos(x[i, c]) + m2) - m3
    return out


@pytest.mark.parametrize(("m1", "m2", "m3"), [(1.0, 0.5, 0.0), (1.0, 0.0, 0.35), (1.35, 0.1, 0.2)])
def test_combined_margin_loss_formula(m1, m2, m3):
    rng = np.random.default_rng(0)
    x = rng.uniform(-0.95, 0.95, (6, 5)).astype(np.float32)
    label = np.array([0, 4, 2, -1, 3, 1])
    out = flow.nn.CombinedMarginLoss(m1, m2, m3)(flow.tensor(x), flow.tensor(label))
    np.testing.assert_allclose(out.numpy(), _reference(x, label, m1, m2, m3), rtol=1e-5, atol=1e-6)


def test_combined_margin_loss_gradient():
    rng = np.random.default_rng(1)
    a = rng.uniform(-0.9, 0.9, (4, 3)).astype(np.float32)
    label = np.array([2, 0, 1, 2])
    x = flow.tensor(a, requires_grad=True)
    flow.nn.CombinedMarginLoss(1.0, 0.3, 0.1)(x, flow.tensor(label)).pow(2).sum().backward()
    t = torch.tensor(a, requires_grad=True)
    mask = torch.nn.functional.one_hot(torch.tensor(label), 3).bool()
    target = (t * mask).sum(1, keepdim=True)
    torch.where(mask, torch.cos(torch.acos(target) + 0.3) - 0.1, t).pow(2).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-5, atol=1e-6)


def test_combined_margin_loss_errors():
    m = flow.nn.CombinedMarginLoss(1.0, 0.5)
    assert "m2=0.5" in repr(m)
    with pytest.raises(RuntimeError, match=r"x must be a floating \(N, C\) tensor"):
        m(flow.zeros(3), flow.tensor([0, 1, 2]))
    with pytest.raises(RuntimeError, match=r"label must be an integer tensor of shape \(2,\)"):
        m(flow.zeros(2, 3), flow.tensor([0.0, 1.0]))
    with pytest.raises(TypeError, match="expected \\(x, label\\) tensors"):
        m(flow.zeros(2, 3), [0, 1])
