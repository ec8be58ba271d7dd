"""nn.Graph training: build() with loss.backward() and add_optimizer() trains exactly as the same
eager loop does (same seeds, so even dropout's masks agree), step after step."""

import copy

import numpy as np
import pytest

import oneflow as flow
import oneflow.nn as nn


class Net(nn.Module):
    def __init__(self, dropout: float = 0.0):
        super().__init__()
        self.fc1 = nn.Linear(6, 16)
        self.bn = nn.BatchNorm1d(16)
        self.act = nn.ReLU(inplace=True)  # an in-place op under autograd
        self.drop = nn.Dropout(dropout)
        self.fc2 = nn.Linear(16, 3)

    def forward(self, x):
        return self.fc2(self.drop(self.act(self.bn(self.fc1(x)))))


class TrainGraph(nn.Graph):
    def __init__(self, model, opt, sch=None):
        super().__init__()
        self.model = model
        self.add_optimizer(opt, lr_sch=sch)

    def build(self, x, y):
        logits = self.model(x)
        loss = nn.functional.cross_entropy(logits, y.detach())
        loss.backward()
        return loss, logits


def batches(n: int):
    rng = np.random.default_rng(0)
    return [
        (flow.tensor(rng.standard_normal((8, 6)), dtype=flow.float32), flow.tensor(rng.integers(0, 3, 8)))
        for _ in range(n)
    ]


def run_eager(model, opt, sch, data):
    losses = []
    for x, y in data:
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        if any(g.get("clip_grad_max_norm") is not None for g in opt.param_groups):
            opt.clip_grad()
        opt.step()
        if sch is not None:
            sch.step()
        opt.zero_grad(set_to_none=True)
        losses.append(loss.item())
    return losses


OPTIMIZERS = {
    "sgd_momentum": lambda ps: (flow.optim.SGD(ps, lr=0.1, momentum=0.9, weight_decay=1e-3), None),
    "adam_steplr": lambda ps: (
        (o := flow.optim.Adam(ps, lr=0.01)),
        flow.optim.lr_scheduler.StepLR(o, step_size=2, gamma=0.5),
    ),
    "adamw_warmup_cosine": lambda ps: (
        (o := flow.optim.AdamW(ps, lr=0.02)),
        flow.optim.lr_scheduler.WarmupLR(
            flow.optim.lr_scheduler.CosineDecayLR(o, decay_steps=6), warmup_factor=0.1, warmup_iters=2
        ),
    ),
    "sgd_clip": lambda ps: (
        flow.optim.SGD([{"params": ps, "clip_grad_max_norm": 0.05, "clip_grad_norm_type": 2.0}], lr=0.5),
        None,
    ),
}


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
@pytest.mark.parametrize("dropout", [0.0, 0.3])
def test_training_equals_eager(name, dropout):
    flow.manual_seed(0)
    eager_model = Net(dropout).train()
    graph_model = copy.deepcopy(eager_model)
    data = batches(6)
    opt, sch = OPTIMIZERS[name](list(eager_model.parameters()))
    flow.manual_seed(1)
    expected = run_eager(eager_model, opt, sch, data)

    gopt, gsch = OPTIMIZERS[name](list(graph_model.parameters()))
    graph = TrainGraph(graph_model, gopt, gsch)
    assert graph.training
    flow.manual_seed(1)
    got = []
    for x, y in data:
        loss, logits = graph(x, y)
        assert not loss.requires_grad and tuple(logits.shape) == (8, 3)
        got.append(loss.item())
    assert len(graph._plans) == 1
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-7)
    for (n, p), q in zip(graph_model.named_parameters(), eager_model.parameters()):
        np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), rtol=1e-5, atol=1e-6, err_msg=n)
    np.testing.assert_allclose(
        graph_model.bn.running_mean.numpy(), eager_model.bn.running_mean.numpy(), rtol=1e-5, atol=1e-6
    )
    assert gopt.param_groups[0]["lr"] == pytest.approx(opt.param_groups[0]["lr"])
    assert all(p.grad is None for p in graph_model.parameters())


def test_two_uses_of_a_parameter_sum_their_gradients():
    flow.manual_seed(0)
    lin = nn.Linear(4, 4)
    ref = copy.deepcopy(lin)

    class Twice(nn.Graph):
        def __init__(self):
            super().__init__()
            self.lin = lin
            self.add_optimizer(flow.optim.SGD(lin.parameters(), lr=0.1))

        def build(self, x):
            loss = self.lin(self.lin(x)).pow(2).mean()
            loss.backward()
            return loss

    graph, opt = Twice(), flow.optim.SGD(ref.parameters(), lr=0.1)
    for _ in range(3):
        x = flow.randn(2, 4)
        got = graph(x)
        loss = ref(ref(x)).pow(2).mean()
        loss.backward()
        opt.step()
        opt.zero_grad()
        np.testing.assert_allclose(got.numpy(), loss.detach().numpy(), rtol=1e-6)
    np.testing.assert_allclose(lin.weight.detach().numpy(), ref.weight.detach().numpy(), rtol=1e-6, atol=1e-7)


def test_training_bad_input():
    model = Net()
    opt = flow.optim.SGD(model.parameters(), lr=0.1)
    other = flow.optim.SGD(Net().parameters(), lr=0.1)
    graph = TrainGraph(model, opt)
    with pytest.raises(ValueError, match="another optimizer"):
        graph.add_optimizer(opt, lr_sch=flow.optim.lr_scheduler.StepLR(other, 1))
    with pytest.raises(TypeError, match="expected an optimizer"):
        graph.add_optimizer(model)
    x, y = batches(1)[0]
    graph(x, y)
    with pytest.raises(RuntimeError, match="before the first call"):
        graph.add_optimizer(flow.optim.SGD(model.parameters(), lr=0.1))

    class ViewInPlace(nn.Graph):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(3, 3)
            self.add_optimizer(flow.optim.SGD(self.lin.parameters(), lr=0.1))

        def build(self, x):
            h = self.lin(x)
            h[:, 0].mul_(2.0)
            h.sum().backward()
            return h

    with pytest.raises(NotImplementedError, match="in-place op on a view"):
        ViewInPlace()(flow.randn(2, 3))
    assert not flow._C._trace_active()


def test_state_dict_resumes_bit_for_bit(tmp_path):
    def fresh():
        flow.manual_seed(0)
        model = Net(0.3).train()
        opt, sch = OPTIMIZERS["adam_steplr"](list(model.parameters()))
        return model, TrainGraph(model, opt, sch)

    data = batches(6)
    _, whole = fresh()
    flow.manual_seed(5)
    expected = [whole(x, y)[0].item() for x, y in data]

    _, first = fresh()
    flow.manual_seed(5)
    got = [first(x, y)[0].item() for x, y in data[:3]]
    state = first.state_dict()
    assert state["System-Train-TrainStep"].tolist() == [3]
    assert {"model.fc1.weight-m", "model.fc1.weight-v", "model.bn.bias-m"} <= set(state)
    assert set(state["model"]) == set(first.model.to(nn.Module).state_dict())
    flow.save(state, str(tmp_path / "ckpt"))
    rng_state = flow.get_rng_state()

    model, second = fresh()
    second.load_state_dict(flow.load(str(tmp_path / "ckpt")))
    flow.set_rng_state(rng_state)
    got += [second(x, y)[0].item() for x, y in data[3:]]
    assert got == expected
    assert second.state_dict()["System-Train-TrainStep"].tolist() == [6]
    for p, q in zip(model.parameters(), whole.model.to(nn.Module).parameters()):
        np.testing.assert_array_equal(p.detach().numpy(), q.detach().numpy())
