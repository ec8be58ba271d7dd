"""Training with global tensors on real processes: a 2-layer MLP trained 20 steps with pure data
parallelism (input split, weights broadcast), pure tensor parallelism (column- then row-split
weights) and, on 4 ranks, 2x2 data x tensor parallelism, must give the losses and weights of one
process within 1e-5 (SGD with momentum, and Adam)."""

import os

import numpy as np
import pytest
from global_testing import Checks, assert_check, worker_main

import oneflow as flow
from oneflow import nn

CHECKS = Checks()
B, P, S = flow.sbp.broadcast, flow.sbp.partial_sum, flow.sbp.split
STEPS = 20
TP_SBP = {"0.weight": S(0), "0.bias": S(0), "2.weight": S(1), "2.bias": B}


def _data():
    rng = np.random.RandomState(1)
    return rng.randn(12, 8).astype(np.float32), rng.randn(12, 4).astype(np.float32)


def _model():
    flow.manual_seed(0)
    return nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 4))


def _train(model, x, y, optimizer: str):
    if optimizer == "sgd":
        opt = flow.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    else:
        opt = flow.optim.Adam(model.parameters(), lr=0.01)
    losses = []
    for _ in range(STEPS):
        loss = nn.functional.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses, [p.detach().numpy() for p in model.parameters()]


def _global_model(placement, sbp_of):
    """The local model made global: broadcast (every rank made the same one), then each parameter
    converted to its sbp."""
    model = _model().to_global(placement, tuple(B for _ in range(placement.ndim)))
    for prefix, mod in model.named_modules():
        for name, param in list(mod._parameters.items()):
            full = f"{prefix}.{name}" if prefix else name
            mod._parameters[name] = nn.Parameter(param.detach().to_global(sbp=sbp_of(full)))
    return model


def _compare(f, label, placement, sbp_of, x_sbp, optimizer):
    X, Y = _data()
    ref_losses, ref_weights = _train(_model(), flow.tensor(X), flow.tensor(Y), optimizer)
    model = _global_model(placement, sbp_of)
    for p in model.parameters():
        f.true(f"{label} parameter is global", p.is_global and isinstance(p, nn.Parameter), type(p).__name__)
    x = flow.tensor(X, placement=placement, sbp=x_sbp)
    y = flow.tensor(Y, placement=placement, sbp=x_sbp)
    losses, weights = _train(model, x, y, optimizer)
    f.close(f"{label} losses", losses, ref_losses, atol=1e-5, rtol=1e-5)
    for i, (w, r) in enumerate(zip(weights, ref_weights)):
        f.close(f"{label} weight {i}", w, r, atol=1e-5, rtol=1e-5)
    return losses[-1]


def _one_d(optimizer):
    def check(f):
        n = flow.env.get_world_size()
        pl = flow.placement("cpu", list(range(n)))
        _compare(f, "data parallel", pl, lambda name: B, S(0), optimizer)
        _compare(f, "tensor parallel", pl, lambda name: TP_SBP[name], B, optimizer)

    check.__name__ = f"mlp_{optimizer}"
    return check


for _opt in ("sgd", "adam"):
    CHECKS()(_one_d(_opt))


@CHECKS(worlds=[4])
def mlp_data_x_tensor_parallel(f):
    pl = flow.placement("cpu", [[0, 1], [2, 3]])
    for optimizer in ("sgd", "adam"):
        _compare(f, f"2x2 {optimizer}", pl, lambda name: (B, TP_SBP[name]), (S(0), B), optimizer)


@CHECKS(min_world=2)
def parallel_layers_made_global(f):
    """LiBai style: layers whose parameters are created global (column- and row-parallel linear)."""
    n = flow.env.get_world_size()
    pl = flow.placement("cpu", list(range(n)))

    class ColumnRow(nn.Module):
        def __init__(self):
            super().__init__()
            flow.manual_seed(5)
            self.w1 = nn.Parameter(flow.randn(16, 8, placement=pl, sbp=S(0)) * 0.3)
            self.w2 = nn.Parameter(flow.randn(4, 16, placement=pl, sbp=S(1)) * 0.3)
            self.b2 = nn.Parameter(flow.zeros(4, placement=pl, sbp=B))

        def forward(self, x):
            return nn.functional.linear(nn.functional.relu(nn.functional.linear(x, self.w1)), self.w2, self.b2)

    class Local(nn.Module):
        def __init__(self):
            super().__init__()
            flow.manual_seed(5)
            self.w1 = nn.Parameter(flow.randn(16, 8) * 0.3)
            self.w2 = nn.Parameter(flow.randn(4, 16) * 0.3)
            self.b2 = nn.Parameter(flow.zeros(4))

        def forward(self, x):
            return nn.functional.linear(nn.functional.relu(nn.functional.linear(x, self.w1)), self.w2, self.b2)

    X, Y = _data()
    ref_losses, ref_w = _train(Local(), flow.tensor(X), flow.tensor(Y), "sgd")
    model = ColumnRow()
    f.true("sbp kept", model.w1.sbp == (S(0),) and model.w2.sbp == (S(1),), f"{model.w1.sbp} {model.w2.sbp}")
    hidden = nn.functional.linear(flow.tensor(X, placement=pl, sbp=B), model.w1)
    f.true("column parallel output", hidden.sbp == (S(1),), str(hidden.sbp))
    losses, weights = _train(model, flow.tensor(X, placement=pl, sbp=B), flow.tensor(Y, placement=pl, sbp=B), "sgd")
    f.close("losses", losses, ref_losses)
    for i, (w, r) in enumerate(zip(weights, ref_w)):
        f.close(f"weight {i}", w, r)


SCRIPT = os.path.abspath(__file__)
TEST_CASES = CHECKS.cases()


@pytest.mark.parametrize("n,name", TEST_CASES, ids=[f"{n}ranks-{name}" for n, name in TEST_CASES])
def test_training(n, name):
    assert_check(SCRIPT, n, name)


if __name__ == "__main__":
    import sys

    if sys.argv[1:] == ["checks"]:
        worker_main(CHECKS)
