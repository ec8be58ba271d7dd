"""nn.Graph (inference): graphs give eager's results, bit for bit, on the traced call and on replays."""

import numpy as np
import pytest

import oneflow as flow
import oneflow.nn as nn
from oneflow.nn.graph import GraphModule


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(8, 16)
        self.act = nn.GELU()
        self.fc2 = nn.Linear(16, 4)
        self.norm = nn.LayerNorm(4)

    def forward(self, x):
        return self.norm(self.fc2(self.act(self.fc1(x)))).softmax(-1)


class Plain(nn.Graph):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def build(self, x):
        return self.model(x)


def test_outputs_equal_eager_on_the_traced_call_and_on_replays():
    flow.manual_seed(0)
    model = MLP().eval()
    graph = Plain(model)
    assert not graph.is_compiled
    for step in range(3):
        x = flow.randn(5, 8)
        got = graph(x)
        assert graph.is_compiled
        np.testing.assert_array_equal(got.numpy(), model(x).detach().numpy(), err_msg=f"call {step}")
    assert not got.requires_grad


def test_a_new_input_signature_compiles_again():
    model = MLP().eval()
    graph = Plain(model)
    for shape, dtype in [
        ((2, 8), flow.float32),
        ((7, 8), flow.float32),
        ((2, 8), flow.float64),
        ((2, 8), flow.float32),
    ]:
        x = flow.randn(*shape, dtype=dtype)
        expected = model.to(dtype)(x).detach().numpy()
        np.testing.assert_allclose(graph(x).numpy(), expected, rtol=0, atol=0)
        model.to(flow.float32)
    assert len(graph._plans) == 3


def test_nested_inputs_and_outputs_with_constants():
    class Nested(nn.Graph):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(3, 3)

        def build(self, x, extra, scale=2.0):
            a, (b, nothing) = extra["pair"], extra["rest"]
            assert nothing is None
            y = self.lin(x) * scale
            return {"y": y, "list": [a + b, None, "tag"], "same": x, "n": extra["n"]}

    graph = Nested()
    for _ in range(2):
        x, a, b = flow.randn(2, 3), flow.randn(2, 3), flow.randn(2, 3)
        out = graph(x, {"pair": a, "rest": (b, None), "n": 7}, scale=3.0)
        np.testing.assert_array_equal(out["y"].numpy(), (graph.lin(x) * 3.0).detach().numpy())
        np.testing.assert_array_equal(out["list"][0].numpy(), (a + b).numpy())
        assert out["list"][1] is None and out["list"][2] == "tag" and out["n"] == 7
        np.testing.assert_array_equal(out["same"].numpy(), x.numpy())
    graph(x, {"pair": a, "rest": (b, None), "n": 7}, scale=4.0)
    assert len(graph._plans) == 2  # a different constant argument is another signature


def test_parameters_and_captured_tensors_are_shared_with_eager():
    model = nn.Linear(4, 2)
    offset = flow.zeros(2)

    class WithOffset(nn.Graph):
        def __init__(self):
            super().__init__()
            self.model = model

        def build(self, x):
            return self.model(x) + offset

    graph = WithOffset()
    x = flow.randn(3, 4)
    graph(x)
    with flow.no_grad():
        model.weight.fill_(0.5)
        offset.fill_(10.0)
    np.testing.assert_array_equal(graph(x).numpy(), (model(x) + offset).detach().numpy())


def test_random_ops_draw_anew_on_every_replay():
    class Drop(nn.Graph):
        def build(self, x):
            return flow.nn.functional.dropout(x, p=0.5, training=True)

    graph = Drop()
    x = flow.ones(1000)
    masks = [(graph(x).numpy() == 0) for _ in range(3)]
    assert not (masks[0] == masks[1]).all() and not (masks[1] == masks[2]).all()
    assert all(0.4 < m.mean() < 0.6 for m in masks)


def test_in_place_ops_on_inputs_as_eager():
    class AddOne(nn.Graph):
        def build(self, x):
            x.add_(1.0)
            return x * 2

    graph = AddOne()
    for _ in range(2):
        x = flow.zeros(3)
        y = graph(x)
        assert x.tolist() == [1.0, 1.0, 1.0] and y.tolist() == [2.0, 2.0, 2.0]


def test_autocast_inside_build_is_recorded():
    class Mixed(nn.Graph):
        def __init__(self, model):
            super().__init__()
            self.model = model

        def build(self, x):
            with flow.autocast("cpu", dtype=flow.bfloat16):
                return self.model(x)

    model = nn.Linear(8, 8)
    graph = Mixed(model)
    for _ in range(2):
        x = flow.randn(4, 8)
        with flow.autocast("cpu", dtype=flow.bfloat16):
            expected = model(x)
        got = graph(x)
        assert got.dtype == expected.dtype == flow.bfloat16
        np.testing.assert_array_equal(got.float().numpy(), expected.float().detach().numpy())


def test_value_dependent_control_flow_names_the_module_and_line():
    class Branchy(nn.Module):
        def forward(self, x):
            if x.sum() > 0:  # reads a value: not traceable
                return x
            return -x

    class G(nn.Graph):
        def __init__(self):
            super().__init__()
            self.inner = nn.Sequential(nn.Identity(), Branchy())

        def build(self, x):
            return self.inner(x)

    graph = G()
    with pytest.raises(RuntimeError, match="item\\(\\)") as info:
        graph(flow.ones(2))
    note = "\n".join(getattr(info.value, "__notes__", []))
    assert f"{graph.name}.inner.1" in note and "if x.sum() > 0" in note, note
    assert not graph.is_compiled
    assert not flow._C._trace_active()
    np.testing.assert_array_equal(nn.Linear(2, 2)(flow.ones(2)).shape, (2,))  # eager still works


def test_graph_module_proxies_names_and_repr():
    model = MLP()
    graph = Plain(model)
    assert graph.name.startswith("Plain_")
    proxy = graph.model
    assert isinstance(proxy, GraphModule) and proxy.to(GraphModule) is proxy
    assert proxy.to(nn.Module) is model and proxy.origin is model
    assert proxy.name == "model" and proxy.name_prefix == graph.name + "." and proxy.type == "MODULE"
    assert proxy.fc1 is model.fc1
    proxy.config.activation_checkpointing = True
    assert proxy.activation_checkpointing
    before = repr(graph)
    assert "(MODULE:" in before and "Linear" in before and "COMPILED" not in before
    graph(flow.randn(2, 8))
    after = repr(graph)
    assert "COMPILED" in after and ("addmm" in after or "linear" in after)
    assert flow.nn.Graph is type(graph).__mro__[1]
    state = graph.state_dict()
    assert list(state) == ["model"] and list(state["model"]) == list(model.state_dict())


def test_bad_input():
    graph = Plain(MLP())
    with pytest.raises(NotImplementedError, match="build"):
        nn.Graph()(flow.ones(1))
    with pytest.raises(TypeError, match="neither a tensor"):
        graph([1, 2], {1, 2})
    with pytest.raises(AttributeError, match="add_optimizer"):
        graph.opt = flow.optim.SGD(graph.model.parameters(), lr=0.1)
    graph(flow.randn(2, 8))
    with pytest.raises(RuntimeError, match="before the first call"):
        graph.load_state_dict(graph.state_dict())
    with pytest.raises(TypeError, match="v_level"):
        graph.debug("1")


def test_debug_prints_stages_and_ops(capsys):
    graph = Plain(MLP().eval())
    graph.debug(1)
    graph(flow.randn(2, 8))
    out = capsys.readouterr().out
    assert "compiling" in out and "compiled:" in out and "graph(%0)" in out and "return" in out


def test_eval_batch_norm_folds_into_the_convolution_and_follows_the_module():
    flow.manual_seed(0)
    model = nn.Sequential(
        nn.Conv2d(3, 8, 3, bias=False), nn.BatchNorm2d(8), nn.ReLU(), nn.Conv2d(8, 4, 1), nn.BatchNorm2d(4)
    )
    with flow.no_grad():
        for bn in (model[1], model[4]):
            bn.running_mean.uniform_(-1, 1)
            bn.running_var.uniform_(0.5, 2)
            bn.weight.uniform_(0.5, 1.5)
            bn.bias.uniform_(-1, 1)
    model.eval()
    graph = Plain(model)
    x = flow.randn(2, 3, 10, 10)
    np.testing.assert_allclose(graph(x).numpy(), model(x).detach().numpy(), rtol=1e-5, atol=1e-5)
    plan = next(iter(graph._plans.values())).plan
    assert "native_batch_norm" not in plan.op_names and plan.op_names.count("convolution") == 2
    with flow.no_grad():  # eager changes reach the folded weights
        model[1].running_mean.add_(0.5)
        model[3].weight.mul_(2.0)
    np.testing.assert_allclose(graph(x).numpy(), model(x).detach().numpy(), rtol=1e-5, atol=1e-5)


def test_detached_outputs_follow_the_inputs():
    class Detaching(nn.Graph):
        def build(self, x):
            y = x * 3
            return y.detach(), (y + 1).data, x

    graph = Detaching()
    for value in (1.0, 2.0, 5.0):
        x = flow.full((2,), value)
        a, b, same = graph(x)
        assert a.tolist() == [3 * value] * 2 and b.tolist() == [3 * value + 1] * 2
        assert same.tolist() == [value] * 2
