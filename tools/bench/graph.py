"""nn.Graph against eager, in one process: ours eager, ours graph and torch eager (and, with
--compile, torch.compile), timed in turns; each reports the median of its repeats.

    ./tools/bazel run //tools/bench:graph -- --repeats 5 --min_time 0.5 [--compile]

Cases: a 3-layer MLP training step (Adam) and forward at batch 1, where the framework's per-op
cost is most of the time (the issue's overhead-bound case), and ResNet-50 inference at batch 8.
Prints ms per step and the ratios eager/graph (above 1: the graph is faster) and torch/graph.
"""

from __future__ import annotations

import argparse
import copy
import statistics
import time

import numpy as np
import torch
from machine import describe

import oneflow as flow


def _mlp(lib, seed: int = 0):
    rng = np.random.default_rng(seed)
    layers = []
    for fan_in, fan_out in ((64, 64), (64, 64), (64, 10)):
        lin = lib.nn.Linear(fan_in, fan_out)
        with lib.no_grad():
            lin.weight.copy_(lib.tensor(rng.standard_normal((fan_out, fan_in)) * 0.1, dtype=lib.float32))
            lin.bias.zero_()
        layers += [lin, lib.nn.ReLU()]
    return lib.nn.Sequential(*layers[:-1])


class _TrainGraph(flow.nn.Graph):
    def __init__(self, model, opt):
        super().__init__()
        self.model = model
        self.add_optimizer(opt)

    def build(self, x, y):
        loss = flow.nn.functional.cross_entropy(self.model(x), y)
        loss.backward()
        return loss


class _InferGraph(flow.nn.Graph):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def build(self, x):
        return self.model(x)


def _train_steps(lib, model, x, y):
    opt = lib.optim.Adam(model.parameters(), lr=1e-3)

    def step():
        loss = lib.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        opt.zero_grad()
        return loss

    return step


def mlp_train(compile_torch: bool):
    x, y = np.random.default_rng(1).standard_normal((1, 64)).astype(np.float32), np.array([3])
    fx, fy, tx, ty = flow.tensor(x), flow.tensor(y), torch.tensor(x), torch.tensor(y)
    eager = _mlp(flow)
    graph_model = copy.deepcopy(eager)
    graph = _TrainGraph(graph_model, flow.optim.Adam(graph_model.parameters(), lr=1e-3))
    steps = {
        "ours eager": _train_steps(flow, eager, fx, fy),
        "ours graph": lambda: graph(fx, fy),
        "torch eager": _train_steps(torch, _mlp(torch), tx, ty),
    }
    if compile_torch:
        tm = _mlp(torch)
        topt = torch.optim.Adam(tm.parameters(), lr=1e-3)

        @torch.compile
        def fwd_bwd(a, b):
            loss = torch.nn.functional.cross_entropy(tm(a), b)
            loss.backward()
            return loss

        def compiled():
            loss = fwd_bwd(tx, ty)
            topt.step()
            topt.zero_grad()
            return loss

        steps["torch.compile"] = compiled
    return steps


def mlp_infer(compile_torch: bool):
    x = np.random.default_rng(2).standard_normal((1, 64)).astype(np.float32)
    fx, tx = flow.tensor(x), torch.tensor(x)
    eager, tm = _mlp(flow).eval(), _mlp(torch).eval()
    graph = _InferGraph(eager)
    steps = {
        "ours eager": lambda: _no_grad(flow, lambda: eager(fx)),
        "ours graph": lambda: graph(fx),
        "torch eager": lambda: _no_grad(torch, lambda: tm(tx)),
    }
    if compile_torch:
        ctm = torch.compile(tm)
        steps["torch.compile"] = lambda: _no_grad(torch, lambda: ctm(tx))
    return steps


def resnet50_infer(compile_torch: bool):
    import flowvision

    x = np.random.default_rng(3).standard_normal((8, 3, 224, 224)).astype(np.float32)
    fx = flow.tensor(x)
    model = flowvision.models.resnet50().eval()
    graph = _InferGraph(model)
    # No torch row: torchvision, the usual torch ResNet-50, has no CPU build for the project's torch.
    return {
        "ours eager": lambda: _no_grad(flow, lambda: model(fx)),
        "ours graph": lambda: graph(fx),
    }


def _no_grad(lib, fn):
    with lib.no_grad():
        return fn()


CASES = {"mlp_train_b1": mlp_train, "mlp_infer_b1": mlp_infer, "resnet50_infer_b8": resnet50_infer}


def _time(step, min_time: float) -> float:
    n, start = 0, time.perf_counter()
    while True:
        step()
        n += 1
        elapsed = time.perf_counter() - start
        if elapsed >= min_time:
            return elapsed / n * 1e3


def run(cases, repeats: int, min_time: float, compile_torch: bool) -> dict:
    print(f"# {describe()}; torch {torch.__version__}", flush=True)
    results = {}
    for name in cases:
        steps = CASES[name](compile_torch)
        for step in steps.values():
            step()  # compiles the graph / warms caches
            step()
        times = {k: [] for k in steps}
        for _ in range(repeats):
            for k, step in steps.items():
                times[k].append(_time(step, min_time))
        med = {k: statistics.median(v) for k, v in times.items()}
        results[name] = med
        graph_ms = med["ours graph"]
        parts = ", ".join(f"{k} {v:.3f} ms" for k, v in med.items())
        ratios = ", ".join(f"{k}/graph {v / graph_ms:.2f}x" for k, v in med.items() if k != "ours graph")
        print(f"{name}: {parts}; {ratios}", flush=True)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cases", nargs="*", default=list(CASES), choices=list(CASES))
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--min_time", type=float, default=0.3)
    parser.add_argument("--compile", action="store_true", help="also time torch.compile (slow to compile)")
    args = parser.parse_args()
    run(args.cases, args.repeats, args.min_time, args.compile)


if __name__ == "__main__":
    main()
