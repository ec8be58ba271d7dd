"""SyncBatchNorm against torch's: in one process it is BatchNorm (forward, backward, running
statistics); the synced path, run with a one-rank all-reduce, computes the same statistics and
gradients; convert_sync_batchnorm swaps the layers as torch's does. Also F.pdist."""

import numpy as np
import pytest
import torch
from parity import OpCase, raises_like_torch, run_case

import oneflow as flow


def _pair(shape, seed=0):
    x = np.random.default_rng(seed).standard_normal(shape)
    return flow.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)


@pytest.mark.parametrize("shape", [(4, 3), (4, 3, 5), (2, 3, 4, 4), (2, 3, 2, 2, 2)])
@pytest.mark.parametrize("synced", [False, True])
def test_sync_batch_norm_like_torch(shape, synced):
    ours, theirs = flow.nn.SyncBatchNorm(3).double(), torch.nn.SyncBatchNorm(3).double()
    with flow.no_grad():
        ours.weight.copy_(flow.tensor([0.5, 1.5, -1.0], dtype=flow.float64))
        ours.bias.copy_(flow.tensor([0.1, 0.0, 0.3], dtype=flow.float64))
    with torch.no_grad():
        theirs.weight.copy_(torch.tensor([0.5, 1.5, -1.0], dtype=torch.float64))
        theirs.bias.copy_(torch.tensor([0.1, 0.0, 0.3], dtype=torch.float64))
    for step in range(2):
        xo, xt = _pair(shape, step)
        yo = ours._synced_forward(xo, lambda t: t) if synced else ours(xo)
        yt = theirs(xt)
        np.testing.assert_allclose(yo.detach().numpy(), yt.detach().numpy(), rtol=1e-9, atol=1e-9)
        g = np.random.default_rng(9).standard_normal(shape)
        yo.backward(flow.tensor(g))
        yt.backward(torch.tensor(g))
        np.testing.assert_allclose(xo.grad.numpy(), xt.grad.numpy(), rtol=1e-8, atol=1e-9)
    np.testing.assert_allclose(ours.weight.grad.numpy(), theirs.weight.grad.numpy(), rtol=1e-8)
    np.testing.assert_allclose(ours.bias.grad.numpy(), theirs.bias.grad.numpy(), rtol=1e-8)
    for name in ("running_mean", "running_var", "num_batches_tracked"):
        np.testing.assert_allclose(getattr(ours, name).numpy(), getattr(theirs, name).numpy(), rtol=1e-9)
    ours.eval()
    theirs.eval()
    xo, xt = _pair(shape, 5)
    np.testing.assert_allclose(ours(xo).detach().numpy(), theirs(xt).detach().numpy(), rtol=1e-9)


def test_convert_sync_batchnorm():
    def build(m):
        return m.nn.Sequential(m.nn.Conv2d(3, 4, 3), m.nn.BatchNorm2d(4, momentum=0.3),
                               m.nn.Sequential(m.nn.BatchNorm1d(2, affine=False)))  # fmt: skip

    ours, theirs = build(flow), build(torch)
    ours[1].eval()
    converted = flow.nn.SyncBatchNorm.convert_sync_batchnorm(ours)
    expected = torch.nn.SyncBatchNorm.convert_sync_batchnorm(theirs)
    assert [type(m).__name__ for m in converted.modules()] == [type(m).__name__ for m in expected.modules()]
    assert converted[1].weight is ours[1].weight and converted[1].momentum == 0.3 and not converted[1].training
    assert converted[2][0].weight is None
    assert list(converted.state_dict()) == list(expected.state_dict())
    bn = flow.nn.SyncBatchNorm(2)
    assert flow.nn.SyncBatchNorm.convert_sync_batchnorm(bn) is bn


SYNC_BAD_INPUT = [
    lambda m: m.nn.SyncBatchNorm(3)(m.randn(3)),
    lambda m: m.nn.SyncBatchNorm(0)(m.randn(2, 0)),
]


@pytest.mark.parametrize("index", range(len(SYNC_BAD_INPUT)))
def test_sync_batch_norm_bad_input_like_torch(index):
    raises_like_torch(SYNC_BAD_INPUT[index])


PDIST = [
    OpCase(ops=("pdist",), fn=lambda m, a: m.nn.functional.pdist(a), shapes=[((5, 3),), ((2, 7),), ((1, 4),)]),
    OpCase(
        ops=("pdist_p",),
        fn=lambda m, a: (m.nn.functional.pdist(a, 1), m.nn.functional.pdist(a, 3.5)),
        shapes=[((4, 3),)],
    ),  # fmt: skip
    OpCase(ops=("pdist_inf",), fn=lambda m, a: m.nn.functional.pdist(a, float("inf")), shapes=[((4, 3),)]),
]


@pytest.mark.parametrize("case", PDIST, ids=lambda c: c.name)
def test_pdist(case):
    assert run_case(case) > 0


PDIST_BAD_INPUT = [
    lambda m: m.nn.functional.pdist(m.ones(2, 3, 4)),
    lambda m: m.nn.functional.pdist(m.ones(3, 2), -1.0),
    lambda m: m.nn.functional.pdist(m.ones(3, 2, dtype=m.int64)),
    lambda m: m.nn.functional.pdist([[1.0, 2.0]]),
]


@pytest.mark.parametrize("index", range(len(PDIST_BAD_INPUT)))
def test_pdist_bad_input_like_torch(index):
    raises_like_torch(PDIST_BAD_INPUT[index])


if __name__ == "__main__":
    raise SystemExit(pytest.main([__file__, "-q"]))
