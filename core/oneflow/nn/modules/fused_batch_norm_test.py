"""OneFlow's FusedBatchNorm1d/2d/3d (relu(batch_norm(x) + addend)), against torch's batch norm
followed by the same addition and relu: outputs, gradients and running statistics."""

import numpy as np
import pytest
import torch

import oneflow as flow

SHAPES = {1: [(6, 3), (4, 3, 5)], 2: [(4, 3, 5, 2)], 3: [(2, 3, 2, 3, 4)]}
CASES = [(n, s) for n, shapes in SHAPES.items() for s in shapes]


def torch_reference(n, x, addend, train, momentum=0.1, affine=True, track=True, steps=2, weight=None, bias=None):
    bn = getattr(torch.nn, f"BatchNorm{n}d")(x.shape[1], momentum=momentum, affine=affine, track_running_stats=track)
    if weight is not None:
        with torch.no_grad():
            bn.weight.copy_(torch.tensor(weight))
            bn.bias.copy_(torch.tensor(bias))
    bn.train(train)
    tx = torch.tensor(x, requires_grad=True)
    ta = None if addend is None else torch.tensor(addend, requires_grad=True)
    for _ in range(steps - 1):
        bn(tx)
    y = bn(tx)
    out = torch.relu(y if ta is None else y + ta)
    return bn, tx, ta, out


@pytest.mark.parametrize("n,shape", CASES)
@pytest.mark.parametrize("with_addend", [True, False])
@pytest.mark.parametrize("train", [True, False])
def test_matches_batch_norm_add_relu(n, shape, with_addend, train):
    rng = np.random.RandomState(n)
    x = rng.randn(*shape).astype(np.float32)
    addend = rng.randn(*shape).astype(np.float32) if with_addend else None
    weight, bias = rng.rand(shape[1]).astype(np.float32) + 0.5, rng.randn(shape[1]).astype(np.float32)
    m = getattr(flow.nn, f"FusedBatchNorm{n}d")(shape[1], eps=1e-5, momentum=0.1)
    with flow.no_grad():
        m.weight.copy_(flow.tensor(weight))
        m.bias.copy_(flow.tensor(bias))
    m.train(train)
    fx = flow.tensor(x, requires_grad=True)
    fa = None if addend is None else flow.tensor(addend, requires_grad=True)
    m(fx, fa)
    out = m(fx, addend=fa)
    bn, tx, ta, want = torch_reference(n, x, addend, train, weight=weight, bias=bias)
    np.testing.assert_allclose(out.detach().numpy(), want.detach().numpy(), rtol=1e-4, atol=1e-5)
    assert (out.detach().numpy() >= 0).all()
    np.testing.assert_allclose(m.running_mean.numpy(), bn.running_mean.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(m.running_var.numpy(), bn.running_var.numpy(), rtol=1e-5, atol=1e-6)
    g = np.random.RandomState(7).randn(*shape).astype(np.float32)
    out.backward(flow.tensor(g))
    want.backward(torch.tensor(g))
    np.testing.assert_allclose(fx.grad.numpy(), tx.grad.numpy(), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(m.weight.grad.numpy(), bn.weight.grad.numpy(), rtol=1e-4, atol=1e-4)
    if with_addend:
        np.testing.assert_allclose(fa.grad.numpy(), ta.grad.numpy(), rtol=1e-5, atol=1e-6)


def test_hand_values_and_options():
    # Per channel over N: [-1, 1] and [2, 4] both normalize to [-1, 1]; then relu(y + addend).
    x = np.array([[-1.0, 2.0], [1.0, 4.0]], dtype=np.float32)
    m = flow.nn.FusedBatchNorm1d(2, eps=0.0)
    out = m(flow.tensor(x), flow.tensor(np.array([[1.5, 1.0], [-2.0, 0.5]], dtype=np.float32)))
    np.testing.assert_allclose(out.detach().numpy(), [[0.5, 0.0], [0.0, 1.5]])
    # No running statistics: batch statistics in eval mode too.
    m = flow.nn.FusedBatchNorm2d(3, affine=False, track_running_stats=False).eval()
    assert m.weight is None and m.running_mean is None
    x = np.random.RandomState(0).randn(2, 3, 4, 4).astype(np.float32)
    _, _, _, want = torch_reference(2, x, None, False, affine=False, track=False, steps=1)
    np.testing.assert_allclose(m(flow.tensor(x)).detach().numpy(), want.detach().numpy(), rtol=1e-4, atol=1e-5)
    assert "FusedBatchNorm2d(3" in repr(m)


def test_bad_input():
    m = flow.nn.FusedBatchNorm2d(3)
    with pytest.raises(ValueError, match=r"FusedBatchNorm2d: expected 4D input \(got 3D input\)"):
        m(flow.ones(2, 3, 4))
    with pytest.raises(ValueError, match=r"FusedBatchNorm1d: expected 2D or 3D input \(got 4D input\)"):
        flow.nn.FusedBatchNorm1d(3)(flow.ones(2, 3, 4, 4))
    with pytest.raises(ValueError, match=r"FusedBatchNorm3d: expected 5D input"):
        flow.nn.FusedBatchNorm3d(3)(flow.ones(2, 3, 4, 4))
    with pytest.raises(ValueError, match=r"addend must have the input's shape \(2, 3, 4, 4\), got \(2, 3, 4\)"):
        m(flow.ones(2, 3, 4, 4), flow.ones(2, 3, 4))
    with pytest.raises(TypeError, match="addend must be a Tensor or None, got list"):
        m(flow.ones(2, 3, 4, 4), [1.0])
    with pytest.raises(TypeError, match="addend must have the input's dtype"):
        m(flow.ones(2, 3, 4, 4), flow.ones(2, 3, 4, 4, dtype=flow.float64))
    with pytest.raises(TypeError, match="FusedBatchNorm2d: x must be a Tensor"):
        m(np.ones((2, 3, 4, 4)))
