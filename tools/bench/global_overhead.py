"""Per-op cost on small Global Tensors against the same local op.

Starts 2 CPU ranks through ``python -m oneflow.distributed.launch``. In each rank it times small
ops three ways: on local tensors, on global tensors placed on one rank (``placement("cpu", [0])``;
rank 1 holds stand-ins and runs the same ops) and on global tensors placed on both ranks. The
global inputs already have the sbp the op's cheapest signature wants, so no data moves: what is
measured is the cost of dispatch (choosing the signature, boxing nothing, wrapping the outputs).
The variants run in interleaved turns; a turn times ``--number`` calls, the report gives the
median per call over ``--repeats`` turns, from the slowest rank, and the ratio global / local.

    ./tools/bazel run //tools/bench:global_overhead -- --repeats 9 --number 2000
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

from machine import describe
from ranks import child_env, free_port

# name -> (op, shape of x, shape of the other input, sbp of x, sbp of the other input)
CASES = {
    "add_16x16_BB": ("add", (16, 16), (16, 16), "B", "B"),
    "add_16x16_S0S0": ("add", (16, 16), (16, 16), "S0", "S0"),
    "matmul_64x64_S0B": ("matmul", (64, 64), (64, 64), "S0", "B"),
}
VARIANTS = ("local", "1-rank", "2-rank")


# ---- one rank ------------------------------------------------------------------------------------


def _steps(flow, name: str):
    """The step of each variant of case ``name``, and its result's expected global value."""
    import numpy as np

    op, xshape, yshape, xsbp, ysbp = CASES[name]
    rng = np.random.default_rng(0)
    xa = rng.standard_normal(xshape).astype(np.float32)
    ya = rng.standard_normal(yshape).astype(np.float32)
    want = xa + ya if op == "add" else xa @ ya
    sbps = {"B": flow.sbp.broadcast, "S0": flow.sbp.split(0)}

    def make(a, b):
        return (lambda: a + b) if op == "add" else (lambda: a @ b)

    steps = {"local": make(flow.tensor(xa), flow.tensor(ya))}
    for variant, ranks in (("1-rank", [0]), ("2-rank", [0, 1])):
        placement = flow.placement("cpu", ranks)
        x = flow.tensor(xa, placement=placement, sbp=sbps[xsbp])
        y = flow.tensor(ya, placement=placement, sbp=sbps[ysbp])
        steps[variant] = make(x, y)
    return steps, want


def _worker(args) -> int:
    import numpy as np

    import oneflow as flow
    import oneflow.distributed as dist

    dist.init_process_group("gloo")
    rank = dist.get_rank()
    times, checks = {}, {}
    for name in args.cases.split(","):
        steps, want = _steps(flow, name)
        for variant, step in steps.items():
            out = step()
            # numpy() is a collective of the placement's ranks; rank 1 holds a stand-in on [0].
            if variant == "1-rank" and rank != 0:
                continue
            checks[f"{name} {variant}"] = bool(np.allclose(out.numpy(), want, rtol=1e-4, atol=1e-4))
        per = {v: [] for v in steps}
        dist.barrier()
        for _turn in range(args.repeats):
            for variant, step in steps.items():
                start = time.perf_counter()
                for _ in range(args.number):
                    step()
                per[variant].append((time.perf_counter() - start) / args.number)
        times[name] = {v: statistics.median(t) for v, t in per.items()}
    every = [None] * dist.get_world_size()
    dist.all_gather_object(every, (times, checks))
    if rank == 0:
        report = {"cases": {}, "checks": {}}
        for name in times:
            report["cases"][name] = {v: max(e[0][name][v] for e in every) for v in VARIANTS}
        for key in checks:
            report["checks"][key] = all(e[1].get(key, True) for e in every)
        print("BENCH " + json.dumps(report), flush=True)
    dist.barrier()
    return 0


# ---- the driver ----------------------------------------------------------------------------------


def run_ranks(args) -> dict:
    """Runs the 2 ranks through the launcher; returns rank 0's report."""
    cmd = [sys.executable, "-m", "oneflow.distributed.launch", "--nproc_per_node", "2", "--master_port",
           str(free_port()), os.path.abspath(__file__), "--worker", "--repeats", str(args.repeats), "--number",
           str(args.number), "--cases", args.cases]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=child_env(), timeout=args.timeout)
    lines = [line for line in proc.stdout.splitlines() if line.startswith("BENCH ")]
    if proc.returncode != 0 or not lines:
        raise RuntimeError(f"the benchmark failed (launcher exit {proc.returncode}):\n{proc.stdout[-3000:]}\n"
                           f"{proc.stderr[-5000:]}")
    return json.loads(lines[-1][len("BENCH "):])


def format_report(report: dict) -> list:
    """One line per case: us per call of each variant and the global / local ratios."""
    lines = []
    for name, t in report["cases"].items():
        local = t["local"]
        parts = [f"{name:<18} local {local * 1e6:7.2f} us"]
        for v in VARIANTS[1:]:
            parts.append(f"{v} {t[v] * 1e6:7.2f} us {t[v] / local:6.2f}x")
        lines.append("  ".join(parts))
    return lines


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=7, help="timed turns (the median is reported; default 7)")
    parser.add_argument("--number", type=int, default=1000, help="calls per turn (default 1000)")
    parser.add_argument("--cases", default=",".join(CASES), help="comma-separated case names (default all)")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds for the whole run")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        sys.exit(_worker(args))
    if args.repeats < 1 or args.number < 1:
        parser.error("--repeats and --number must be at least 1")
    unknown = [c for c in args.cases.split(",") if c not in CASES]
    if unknown:
        parser.error(f"unknown cases {unknown}; known: {', '.join(CASES)}")
    load = os.getloadavg()[0]
    print(f"{describe()}; global overhead benchmark: 2 CPU ranks, median of {args.repeats} interleaved turns of "
          f"{args.number} calls, slowest rank; load average {load:.2f} on {os.cpu_count()} cores")
    report = run_ranks(args)
    for line in format_report(report):
        print(line)
    bad = [name for name, good in report["checks"].items() if not good]
    if bad:
        print(f"WRONG VALUES from {', '.join(bad)}")
        raise SystemExit(1)


if __name__ == "__main__":
    main()
