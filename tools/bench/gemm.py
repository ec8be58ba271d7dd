"""fp32 GEMM speed on GPT-2's Linear shapes, oneflow against torch, as a share of the peak.

The machine's fp32 FMA peak comes from the probe in tools/bench/peak (run as a subprocess,
or given with --peak). For each shape (tokens x in_features -> out_features) the script times
``nn.functional.linear(x, w)`` and ``matmul(x, w_t)`` (w_t a contiguous in x out matrix) in both
frameworks, in turns, and prints the median GFLOP/s of each and its fraction of the peak.
The same weight is reused across calls, as in a training step's forward between updates.

The probe reports its peak per second of CPU time, which other processes on the machine do not
lower; so each GEMM is also given per second of this process' CPU time, times the thread count
(the "cpu" columns). On a quiet machine the two agree; on a busy one the wall-clock figures fall
and only the CPU-time ones compare with the peak. (OpenMP threads that spin while waiting count
as busy, so run with OMP_WAIT_POLICY=PASSIVE for the CPU-time figures.)

    ./tools/bazel run //tools/bench:gemm -- --repeats 7
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import time
from collections.abc import Callable

import numpy as np
import torch
from machine import describe

import oneflow as flow

SHAPES = [(4096, 768, 3072), (4096, 3072, 768)]


def _peak_binary() -> str:
    here = os.path.dirname(os.path.abspath(__file__))
    candidates = [os.path.join(here, "peak", "peak")]
    workspace = os.environ.get("BUILD_WORKSPACE_DIRECTORY")
    if workspace:
        candidates.append(os.path.join(workspace, "bazel-bin", "tools", "bench", "peak", "peak"))
    for path in candidates:
        if os.access(path, os.X_OK):
            return path
    raise FileNotFoundError(
        "the peak probe was not found (build //tools/bench/peak) and no --peak was given"
    )


def probe_peak(seconds: float = 1.0) -> float:
    """Runs the peak probe; returns this machine's fp32 FMA peak in GFLOP/s."""
    out = subprocess.run(
        [_peak_binary(), "--seconds", str(seconds), "--value"],
        check=True,
        capture_output=True,
        text=True,
    )
    return float(out.stdout.strip())


def _time_once(fn: Callable[[], object], number: int) -> tuple[float, float]:
    """(wall seconds, process CPU seconds) per call."""
    start, cpu = time.perf_counter(), time.process_time()
    for _ in range(number):
        fn()
    return (time.perf_counter() - start) / number, (time.process_time() - cpu) / number


def make_cases(m, n: int, k: int, out: int, seed: int = 0) -> dict[str, Callable[[], object]]:
    """The timed calls for one framework `m` (oneflow or torch) and one shape."""
    rng = np.random.default_rng(seed)
    x = m.tensor(rng.standard_normal((n, k), dtype=np.float32))
    w = m.tensor((rng.standard_normal((out, k)) / np.sqrt(k)).astype(np.float32))
    w_t = m.tensor(np.ascontiguousarray(w.numpy().T))
    return {
        "linear": lambda: m.nn.functional.linear(x, w),
        "matmul": lambda: m.matmul(x, w_t),
    }


def measure(
    shape: tuple[int, int, int], repeats: int, number: int
) -> dict[str, tuple[tuple[float, float], tuple[float, float]]]:
    """Median (wall, CPU) seconds per call, {case: (oneflow, torch)}, timed in turns."""
    ours, theirs = make_cases(flow, *shape), make_cases(torch, *shape)
    result = {}
    with torch.no_grad(), flow.no_grad():
        for name in ours:
            for fn in (ours[name], theirs[name]):  # warm-up: packing, caches, thread pools
                fn()
                fn()
            a, b = [], []
            for _ in range(repeats):
                a.append(_time_once(ours[name], number))
                b.append(_time_once(theirs[name], number))
            result[name] = tuple(
                (statistics.median(t[0] for t in ts), statistics.median(t[1] for t in ts))
                for ts in (a, b)
            )
    return result


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--number", type=int, default=3, help="calls per timed repeat")
    parser.add_argument("--peak", type=float, default=None, help="GFLOP/s; default: probe it")
    args = parser.parse_args(argv)
    peak = args.peak if args.peak is not None else probe_peak()
    threads = flow.get_num_threads()
    print(f"{describe()}; fp32 FMA peak: {peak:.1f} GFLOP/s; threads: oneflow {threads}, "
          f"torch {torch.get_num_threads()}; load average {os.getloadavg()[0]:.1f}")
    print(f"{'shape':<18}{'call':<8}{'oneflow GF/s':>13}{'of peak':>8}{'cpu':>6}"
          f"{'torch GF/s':>12}{'of peak':>8}{'cpu':>6}{'ours/torch':>12}")
    for n, k, out in SHAPES:
        flops = 2.0 * n * k * out
        for name, times in measure((n, k, out), args.repeats, args.number).items():
            (wall_ours, cpu_ours), (wall_torch, cpu_torch) = times
            g_ours, g_torch = flops / wall_ours * 1e-9, flops / wall_torch * 1e-9
            c_ours = flops / cpu_ours * threads * 1e-9
            c_torch = flops / cpu_torch * torch.get_num_threads() * 1e-9
            print(f"{f'{n}x{k}->{out}':<18}{name:<8}{g_ours:>13.1f}{g_ours / peak:>8.0%}"
                  f"{c_ours / peak:>6.0%}{g_torch:>12.1f}{g_torch / peak:>8.0%}"
                  f"{c_torch / peak:>6.0%}{g_ours / g_torch:>11.2f}x")


if __name__ == "__main__":
    main()
