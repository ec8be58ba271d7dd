"""Eager-mode cost per call: oneflow against torch, in one process.

Each case builds the same inputs (from one NumPy generator) in both frameworks
and times a step: tiny ops, where the framework's own overhead (argument
binding, dispatch, allocation, autograd recording) is most of the time, up to a
1024x1024 matmul, where the kernel is. The two frameworks are timed in turns,
`repeats` times, and each reports the median of its repeats, so drifting machine
load hits both alike. Prints one line per case: name, ours (us per call), torch
(us per call), and ours / torch.

    ./tools/bazel run //tools/bench:eager_overhead -- --repeats 9 --min_time 0.05
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import time
from collections.abc import Callable

import numpy as np
import torch
from machine import describe

import oneflow as flow


@dataclasses.dataclass
class Case:
    name: str
    # Given the module (oneflow or torch) and the case's arrays, returns the
    # step to time; the step returns the tensors that the test compares.
    make: Callable
    arrays: Callable  # rng -> list of float32 arrays


def _add(m, a, b):
    a, b = m.tensor(a), m.tensor(b)
    return lambda: (m.add(a, b),)


def _relu(m, x):
    x = m.tensor(x)
    return lambda: (m.relu(x),)


def _matmul(m, a, b):
    a, b = m.tensor(a), m.tensor(b)
    return lambda: (m.matmul(a, b),)


def _linear(m, x, w, b):
    x, w, b = m.tensor(x), m.tensor(w), m.tensor(b)
    return lambda: (m.nn.functional.linear(x, w, b),)


def _mlp(m, x, *weights):
    """Three 64-wide layers (matmul, add, relu), forward and backward at batch 1."""
    x = m.tensor(x)
    params = [m.tensor(w).requires_grad_() for w in weights]

    def step():
        for p in params:
            p.grad = None
        h = x
        for i in range(0, 6, 2):
            h = m.add(m.matmul(h, params[i]), params[i + 1])
            if i < 4:
                h = m.relu(h)
        loss = h.sum()
        loss.backward()
        return (loss, *[p.grad for p in params])

    return step


def _uniform(*shapes):
    return lambda rng: [rng.uniform(-1, 1, s).astype(np.float32) for s in shapes]


def _mlp_arrays(rng):
    arrays = [rng.uniform(-1, 1, (1, 64)).astype(np.float32)]
    for _ in range(3):
        arrays.append(rng.uniform(-0.2, 0.2, (64, 64)).astype(np.float32))
        arrays.append(rng.uniform(-0.2, 0.2, (64,)).astype(np.float32))
    return arrays


CASES = [
    Case("add_1", _add, _uniform((1,), (1,))),
    Case("add_1000", _add, _uniform((1000,), (1000,))),
    Case("relu_1000", _relu, _uniform((1000,))),
    Case("matmul_64x64", _matmul, _uniform((64, 64), (64, 64))),
    Case("linear_64_b1", _linear, _uniform((1, 64), (64, 64), (64,))),
    Case("mlp3x64_fwd_bwd", _mlp, _mlp_arrays),
    Case("matmul_1024x1024", _matmul, _uniform((1024, 1024), (1024, 1024))),
]


def make_steps(case: Case, seed: int = 0):
    """The case's step in oneflow and in torch, over the same values."""
    arrays = case.arrays(np.random.default_rng(seed))
    return case.make(flow, *arrays), case.make(torch, *arrays)


def _time_per_call(step, number: int) -> float:
    start = time.perf_counter()
    for _ in range(number):
        step()
    return (time.perf_counter() - start) / number * 1e6


def calls_for(step, min_time: float) -> int:
    """How many calls take about `min_time` seconds (at least one)."""
    step()  # warm up: caches, lazily built kernels
    per_call = _time_per_call(step, 3) * 1e-6
    return max(1, int(min_time / max(per_call, 1e-9)))


def measure(case: Case, repeats: int, min_time: float, number: int | None = None):
    """(ours us/call, torch us/call): medians of `repeats` interleaved runs."""
    ours, theirs = make_steps(case)
    n_ours = number or calls_for(ours, min_time)
    n_theirs = number or calls_for(theirs, min_time)
    ours_t, theirs_t = [], []
    for _ in range(repeats):
        ours_t.append(_time_per_call(ours, n_ours))
        theirs_t.append(_time_per_call(theirs, n_theirs))
    return statistics.median(ours_t), statistics.median(theirs_t)


def format_row(name: str, ours: float, theirs: float) -> str:
    return f"{name:<20} {ours:>12.2f} {theirs:>12.2f} {ours / theirs:>8.2f}"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=7, help="interleaved runs per framework")
    parser.add_argument("--min_time", type=float, default=0.05, help="seconds per run")
    parser.add_argument("--cases", nargs="*", default=None, help="names of the cases to run")
    args = parser.parse_args(argv)
    print(f"{describe()}; torch {torch.__version__}, {torch.get_num_threads()} threads; "
          f"median of {args.repeats} interleaved runs")
    print(f"{'case':<20} {'oneflow us':>12} {'torch us':>12} {'ratio':>8}")
    for case in CASES:
        if args.cases and case.name not in args.cases:
            continue
        print(format_row(case.name, *measure(case, args.repeats, args.min_time)), flush=True)


if __name__ == "__main__":
    main()
