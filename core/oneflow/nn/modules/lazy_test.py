"""The lazy layers of lazy.py against torch's: the parameters stay uninitialized until the first
forward, which infers their shapes, turns the module into the regular class and then computes as
that class does (forward and backward, with torch's layer holding the same values)."""

import numpy as np
import pytest
import torch
from parity import raises_like_torch

import oneflow as flow

LAYERS = [
    ("LazyLinear", (4,), {}, (2, 3)),
    ("LazyLinear", (4,), {"bias": False}, (2, 5, 3)),
    ("LazyConv1d", (4, 3), {"padding": 1}, (2, 3, 7)),
    ("LazyConv2d", (4, 3), {"stride": 2, "groups": 2}, (2, 6, 7, 7)),
    ("LazyConv2d", (4, 3), {"bias": False}, (3, 7, 7)),  # unbatched
    ("LazyConv3d", (2, 2), {}, (1, 3, 4, 4, 4)),
    ("LazyConvTranspose1d", (4, 3), {"groups": 2}, (2, 4, 6)),
    ("LazyConvTranspose2d", (3, 3), {"stride": 2, "output_padding": 1}, (2, 5, 4, 4)),
    ("LazyConvTranspose3d", (2, 2), {}, (1, 3, 3, 3, 3)),
    ("LazyBatchNorm1d", (), {}, (4, 3)),
    ("LazyBatchNorm1d", (), {"affine": False}, (4, 3, 5)),
    ("LazyBatchNorm2d", (), {"momentum": None}, (2, 3, 4, 4)),
    ("LazyBatchNorm3d", (), {"track_running_stats": False}, (2, 3, 2, 2, 2)),
    ("LazyInstanceNorm1d", (), {"affine": True}, (2, 3, 6)),
    ("LazyInstanceNorm2d", (), {"affine": True, "track_running_stats": True}, (2, 3, 4, 4)),
    ("LazyInstanceNorm3d", (), {}, (2, 3, 3, 3, 3)),
]


@pytest.mark.parametrize("name,args,kwargs,shape", LAYERS, ids=[f"{c[0]}-{i}" for i, c in enumerate(LAYERS)])
def test_lazy_layer_like_torch(name, args, kwargs, shape):
    ours, theirs = getattr(flow.nn, name)(*args, **kwargs), getattr(torch.nn, name)(*args, **kwargs)
    params = [n for n, _ in theirs.named_parameters()]
    assert [n for n, _ in ours.named_parameters()] == params
    for (_, o), (_, t) in zip(ours.named_parameters(), theirs.named_parameters()):
        assert isinstance(o, flow.nn.UninitializedParameter) and isinstance(t, torch.nn.UninitializedParameter)
    assert ours.has_uninitialized_params() == theirs.has_uninitialized_params()
    x = np.random.default_rng(0).standard_normal(shape)
    xo, xt = flow.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    ours.double()
    theirs.double()
    yo = ours(xo)
    theirs(xt)  # materializes torch's parameters; then give it ours
    assert type(ours).__name__ == type(theirs).__name__ == name[len("Lazy") :]
    assert not hasattr(ours, "_initialize_hook")
    for attr in ("in_features", "out_features", "in_channels", "out_channels", "num_features"):
        assert getattr(ours, attr, None) == getattr(theirs, attr, None), attr
    assert {k: tuple(v.shape) for k, v in ours.state_dict().items()} == {
        k: tuple(v.shape) for k, v in theirs.state_dict().items()
    }
    for k, v in theirs.state_dict().items():
        assert ours.state_dict()[k].dtype == getattr(flow, str(v.dtype).split(".")[1]), k
    with torch.no_grad():
        for (_, o), (_, t) in zip(ours.named_parameters(), theirs.named_parameters()):
            assert type(o) is flow.nn.Parameter and o.dtype == flow.float64
            t.copy_(torch.tensor(o.detach().numpy()))
    theirs.load_state_dict({k: torch.tensor(v.numpy()) for k, v in ours.state_dict().items()})
    xt.grad = None
    yt = theirs(xt)
    if "BatchNorm" in name or "InstanceNorm" in name:
        yo = ours(xo)  # the second batch, from the same running statistics as torch's
        xo.grad = None
    np.testing.assert_allclose(yo.detach().numpy(), yt.detach().numpy(), rtol=1e-9, atol=1e-9)
    g = np.random.default_rng(1).standard_normal(tuple(yt.shape))
    yo.backward(flow.tensor(g))
    yt.backward(torch.tensor(g))
    np.testing.assert_allclose(xo.grad.numpy(), xt.grad.numpy(), rtol=1e-9, atol=1e-9)
    for (n, o), (_, t) in zip(ours.named_parameters(), theirs.named_parameters()):
        np.testing.assert_allclose(o.grad.numpy(), t.grad.numpy(), rtol=1e-9, atol=1e-9, err_msg=n)


def test_initialization_follows_the_regular_layer():
    flow.manual_seed(0)
    m = flow.nn.LazyLinear(1000)
    m(flow.zeros(1, 16))
    bound = 1 / 4  # kaiming_uniform_(a=sqrt(5)) with fan_in 16
    assert m.weight.abs().max().item() <= bound and m.weight.abs().max().item() > 0.9 * bound
    bn = flow.nn.LazyBatchNorm2d()
    bn.eval()
    bn(flow.zeros(1, 3, 2, 2))
    assert bn.weight.tolist() == [1.0] * 3 and bn.running_var.tolist() == [1.0] * 3
    assert bn.num_batches_tracked.item() == 0


def test_unbatched_instance_norm():
    # torch 2.13 infers num_features from dim 1 even for an unbatched (C, L) input and then rejects
    # it; here the channel dimension of an unbatched input is dim 0, as InstanceNorm1d reads it.
    m = flow.nn.LazyInstanceNorm1d()
    x = flow.randn(3, 6)
    y = m(x)
    assert m.num_features == 3 and type(m) is flow.nn.InstanceNorm1d
    np.testing.assert_allclose(y.numpy(), flow.nn.InstanceNorm1d(3, affine=True)(x).detach().numpy(), atol=1e-6)


def test_load_state_dict_before_forward():
    source = flow.nn.Sequential(flow.nn.Conv2d(3, 4, 3), flow.nn.BatchNorm2d(4), flow.nn.Flatten(),
                                flow.nn.Linear(4, 2))  # fmt: skip
    lazy = flow.nn.Sequential(flow.nn.LazyConv2d(4, 3), flow.nn.LazyBatchNorm2d(), flow.nn.Flatten(),
                              flow.nn.LazyLinear(2))  # fmt: skip
    lazy.load_state_dict(source.state_dict())
    assert lazy[0].weight.shape == (4, 3, 3, 3) and lazy[3].in_features == 4
    assert not lazy[0].has_uninitialized_params()
    source.eval()
    lazy.eval()
    x = flow.randn(2, 3, 3, 3)
    np.testing.assert_allclose(lazy(x).detach().numpy(), source(x).detach().numpy(), rtol=1e-6)
    assert [type(m).__name__ for m in lazy] == ["Conv2d", "BatchNorm2d", "Flatten", "Linear"]


def test_uninitialized_parameter():
    p = flow.nn.UninitializedParameter()
    assert isinstance(p, flow.nn.Parameter) and p.requires_grad
    assert flow.nn.parameter.is_lazy(p) and not flow.nn.parameter.is_lazy(flow.nn.Parameter(flow.ones(1)))
    p.materialize((2, 3), dtype=flow.float64)
    assert type(p) is flow.nn.Parameter and p.shape == (2, 3) and p.dtype == flow.float64
    b = flow.nn.UninitializedBuffer()
    assert b.materialize(4).shape == (4,)
    assert repr(flow.nn.LazyLinear(3)) == repr(torch.nn.LazyLinear(3))


def test_optimizer_after_dry_run_trains():
    flow.manual_seed(0)
    model = flow.nn.Sequential(flow.nn.LazyLinear(8), flow.nn.ReLU(), flow.nn.LazyLinear(1))
    x, y = flow.randn(16, 5), flow.randn(16, 1)
    model(x)
    opt = flow.optim.SGD(model.parameters(), lr=0.1)
    losses = []
    for _ in range(20):
        opt.zero_grad()
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < losses[0]


BAD_INPUT = [
    lambda m: m.nn.LazyConv2d(4, 3, groups=2)(m.randn(1, 3, 5, 5)),
    lambda m: m.nn.LazyLinear(2)(m.randn(2, 3, dtype=m.float64)),
    lambda m: m.nn.LazyBatchNorm2d()(m.randn(2, 3)),
]


@pytest.mark.parametrize("index", range(len(BAD_INPUT)))
def test_bad_input_like_torch(index):
    raises_like_torch(BAD_INPUT[index])


if __name__ == "__main__":
    raise SystemExit(pytest.main([__file__, "-q"]))
