"""Saved graphs: oneflow.save(graph, path) and oneflow.nn.graph.load(path), which runs in a fresh
process that has none of the model's code and gives the graph's results."""

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import oneflow as flow
import oneflow.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.bn = nn.BatchNorm2d(4)
        self.fc = nn.Linear(4, 5)

    def forward(self, x):
        h = self.bn(self.conv(x)).relu()
        return self.fc(h.mean(dim=(2, 3))).softmax(-1)


class Infer(nn.Graph):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def build(self, x, extra):
        y = self.model(x)
        return {"probs": y, "pair": (y.argmax(-1), extra["scale"] * y.sum()), "tag": "v1"}


def compiled_graph():
    flow.manual_seed(0)
    graph = Infer(Net().eval())
    graph(flow.randn(2, 3, 8, 8), {"scale": flow.tensor(2.0)})
    return graph


def test_save_then_load_in_a_fresh_process(tmp_path):
    graph = compiled_graph()
    path = str(tmp_path / "g")
    flow.save(graph, path)
    assert sorted(os.listdir(path)) == ["constants", "graph.json"]
    with open(os.path.join(path, "graph.json")) as f:
        doc = json.load(f)
    assert doc["format"] == "oneflow-graph" and doc["version"] == 1 and doc["inputs"][0]["shape"] == [2, 3, 8, 8]
    x = np.random.default_rng(1).standard_normal((2, 3, 8, 8)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    expected = graph(flow.tensor(x), {"scale": flow.tensor(2.0)})
    code = textwrap.dedent(
        f"""
        import numpy as np, oneflow as flow, oneflow.nn.graph
        g = oneflow.nn.graph.load({path!r})
        out = g(flow.tensor(np.load({str(tmp_path / "x.npy")!r})), {{"scale": flow.tensor(2.0)}})
        np.save({str(tmp_path / "probs.npy")!r}, out["probs"].numpy())
        np.save({str(tmp_path / "argmax.npy")!r}, out["pair"][0].numpy())
        print(out["tag"], float(out["pair"][1].item()))
        """
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    tag, total = done.stdout.split()
    assert tag == "v1" and float(total) == pytest.approx(float(expected["pair"][1].item()), rel=1e-6)
    np.testing.assert_array_equal(np.load(tmp_path / "probs.npy"), expected["probs"].numpy())
    np.testing.assert_array_equal(np.load(tmp_path / "argmax.npy"), expected["pair"][0].numpy())


def test_loaded_graph_in_process_and_run_entry(tmp_path):
    graph = compiled_graph()
    flow.save(graph, str(tmp_path / "g"))
    loaded = flow.nn.graph.load(str(tmp_path / "g"))
    x = flow.randn(2, 3, 8, 8)
    got = loaded(x, {"scale": flow.tensor(3.0)})
    want = graph(x, {"scale": flow.tensor(3.0)})
    np.testing.assert_array_equal(got["probs"].numpy(), want["probs"].numpy())
    flat = loaded.run([x, flow.tensor(3.0)])
    np.testing.assert_array_equal(flat[0].numpy(), want["probs"].numpy())
    assert loaded.outputs[0]["shape"] == [2, 5] and "SavedGraph" in repr(loaded)


def test_saving_over_a_graph_is_atomic(tmp_path):
    graph = compiled_graph()
    path = str(tmp_path / "g")
    flow.save(graph, path)
    before = open(os.path.join(path, "graph.json")).read()

    class Odd(nn.Graph):
        def build(self, x):
            return x * 2, object()  # not JSON data: the save fails before touching path

    odd = Odd()
    odd(flow.ones(2))
    with pytest.raises(TypeError, match="not JSON data"):
        flow.save(odd, path)
    assert open(os.path.join(path, "graph.json")).read() == before
    assert sorted(os.listdir(tmp_path)) == ["g"]  # no temporary directory left behind
    other = Infer(Net().eval())
    other(flow.randn(1, 3, 4, 4), {"scale": flow.tensor(1.0)})
    flow.save(other, path)  # replaces the previous graph
    assert flow.nn.graph.load(path).inputs[0]["shape"] == [1, 3, 4, 4]
    assert sorted(os.listdir(tmp_path)) == ["g"]


def test_bad_input(tmp_path):
    graph = Infer(Net().eval())
    with pytest.raises(RuntimeError, match="not compiled"):
        flow.save(graph, str(tmp_path / "a"))
    graph(flow.randn(2, 3, 8, 8), {"scale": flow.tensor(2.0)})
    graph(flow.randn(1, 3, 8, 8), {"scale": flow.tensor(2.0)})
    with pytest.raises(RuntimeError, match="2 input signatures"):
        flow.save(graph, str(tmp_path / "a"))

    class Train(nn.Graph):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(2, 2)
            self.add_optimizer(flow.optim.SGD(self.lin.parameters(), lr=0.1))

        def build(self, x):
            loss = self.lin(x).sum()
            loss.backward()
            return loss

    train = Train()
    train(flow.ones(1, 2))
    with pytest.raises(NotImplementedError, match="training graph"):
        flow.save(train, str(tmp_path / "t"))

    good = compiled_graph()
    path = str(tmp_path / "g")
    flow.save(good, path)
    loaded = flow.nn.graph.load(path)
    with pytest.raises(ValueError, match=r"input 0 has shape \[1, 3, 8, 8\]"):
        loaded(flow.randn(1, 3, 8, 8), {"scale": flow.tensor(2.0)})
    with pytest.raises(ValueError, match="saved structure"):
        loaded(flow.randn(2, 3, 8, 8))
    with pytest.raises(FileNotFoundError, match="no saved graph"):
        flow.nn.graph.load(str(tmp_path / "missing"))
    doc = json.load(open(os.path.join(path, "graph.json")))
    doc["version"] = 99
    json.dump(doc, open(os.path.join(path, "graph.json"), "w"))
    with pytest.raises(ValueError, match="format version 99"):
        flow.nn.graph.load(path)
