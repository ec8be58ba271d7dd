"""Boxing throughput: oneflow's collectives and Global Tensor boxing against torch.distributed.

For each world size (default 2 and 4 CPU ranks on loopback, gloo), the benchmark starts the
ranks through ``python -m oneflow.distributed.launch``. Each rank sets up both a
``oneflow.distributed`` process group and a ``torch.distributed`` gloo process group, so the two
frameworks run in the same processes on the same machine at the same moment. It then times,
on a float32 tensor of ``--mib`` MiB (the global size):

* all-gather: ``oneflow.distributed.all_gather_into_tensor``, the Global Tensor conversion
  S(0) -> B (``x.to_global(sbp=broadcast)``), and torch's ``all_gather_single``
  (``all_gather_into_tensor`` before 2.13); each rank contributes 1/n of the tensor and ends up
  with all of it;
* all-reduce: ``oneflow.distributed.all_reduce``, the conversion P -> B, and torch's
  ``all_reduce``; each rank holds the whole tensor.

The variants run in turns (interleaved, after one warm-up turn), each preceded by a barrier of
both frameworks; a variant's time in a turn is the slowest rank's, and the report gives the
median over ``--repeats`` turns as bandwidth: bytes of the global tensor / seconds (what
nccl-tests calls algorithm bandwidth). Ratios are oneflow / torch: higher is better for us.

    ./tools/bazel run //tools/bench:boxing -- --nproc 2,4 --mib 64 --repeats 7
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import statistics
import subprocess
import sys
import time

from machine import describe
from ranks import child_env, free_port

VARIANTS = {
    "all_gather": ("oneflow", "oneflow S(0)->B", "torch"),
    "all_reduce": ("oneflow", "oneflow P->B", "torch"),
}


# ---- one rank ------------------------------------------------------------------------------------


def _worker(args) -> int:
    import numpy as np
    import torch
    import torch.distributed as tdist

    import oneflow as flow
    import oneflow.distributed as dist

    rank, n = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    timeout = datetime.timedelta(seconds=args.timeout)
    dist.init_process_group("gloo", timeout=timeout)
    tdist.init_process_group("gloo", init_method=f"tcp://{os.environ['MASTER_ADDR']}:{args.torch_port}",
                             rank=rank, world_size=n, timeout=timeout)
    numel = max(n, args.mib * 2**20 // 4 // n * n)
    piece = numel // n
    placement = flow.placement("cpu", list(range(n)))
    B, P, S = flow.sbp.broadcast, flow.sbp.partial_sum, flow.sbp.split

    of_in, of_out = flow.full((piece,), float(rank + 1)), flow.empty(numel)
    of_sum = flow.ones(numel)
    th_in, th_out = torch.full((piece,), float(rank + 1)), torch.empty(numel)
    th_sum = torch.ones(numel)
    # torch 2.13 renamed all_gather_into_tensor (and warns about the old name).
    th_all_gather = getattr(tdist, "all_gather_single", None) or tdist.all_gather_into_tensor
    with flow.no_grad():
        g_split = flow.full((piece,), float(rank + 1)).to_global(placement, S(0))
        g_partial = flow.full((numel,), float(rank + 1)).to_global(placement, P)
    results = {}

    def gather_split():
        results["S(0)->B"] = g_split.to_global(sbp=B)

    def reduce_partial():
        results["P->B"] = g_partial.to_global(sbp=B)

    ops = {
        ("all_gather", "oneflow"): lambda: dist.all_gather_into_tensor(of_out, of_in),
        ("all_gather", "oneflow S(0)->B"): gather_split,
        ("all_gather", "torch"): lambda: th_all_gather(th_out, th_in),
        ("all_reduce", "oneflow"): lambda: dist.all_reduce(of_sum),
        ("all_reduce", "oneflow P->B"): reduce_partial,
        ("all_reduce", "torch"): lambda: tdist.all_reduce(th_sum),
    }
    times = {key: [] for key in ops}
    checks = {}
    for turn in range(args.repeats + 1):
        for key, op in ops.items():
            dist.barrier()
            tdist.barrier()
            start = time.perf_counter()
            with flow.no_grad():
                op()
            elapsed = time.perf_counter() - start
            if turn > 0:
                times[key].append(elapsed)
        if turn == 0:
            # The results of the warm-up turn, against what they must be.
            want_gather = np.repeat(np.arange(1, n + 1, dtype=np.float32), piece)
            checks["oneflow all_gather"] = bool(np.array_equal(of_out.numpy(), want_gather))
            checks["torch all_gather"] = bool(np.array_equal(th_out.numpy(), want_gather))
            checks["S(0)->B"] = bool(np.array_equal(results["S(0)->B"].to_local().numpy(), want_gather))
            checks["P->B"] = bool(np.all(results["P->B"].to_local().numpy() == n * (n + 1) / 2))
            checks["oneflow all_reduce"] = bool(np.all(of_sum.numpy() == n))
            checks["torch all_reduce"] = bool(np.all(th_sum.numpy() == n))
        results.clear()
    # Per turn, the slowest rank's time.
    mine = [times[key] for key in ops]
    every = [None] * n
    dist.all_gather_object(every, mine)
    all_checks = [None] * n
    dist.all_gather_object(all_checks, checks)
    if rank == 0:
        report = {"nproc": n, "mib": numel * 4 / 2**20, "bytes": numel * 4, "variants": {}, "checks": {}}
        for i, (collective, variant) in enumerate(ops):
            slowest = [max(every[r][i][t] for r in range(n)) for t in range(args.repeats)]
            report["variants"].setdefault(collective, {})[variant] = statistics.median(slowest)
        for name in checks:
            report["checks"][name] = all(c[name] for c in all_checks)
        print("BENCH " + json.dumps(report), flush=True)
    dist.barrier()
    tdist.destroy_process_group()
    return 0


# ---- the driver ----------------------------------------------------------------------------------


def run_world(nproc: int, args) -> dict:
    """Runs the ranks of one world size through the launcher; returns rank 0's report."""
    cmd = [sys.executable, "-m", "oneflow.distributed.launch", "--nproc_per_node", str(nproc), "--master_port",
           str(free_port()), os.path.abspath(__file__), "--worker", "--mib", str(args.mib), "--repeats",
           str(args.repeats), "--timeout", str(args.timeout), "--torch_port", str(free_port())]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=child_env(), timeout=args.timeout * 4 + 600)
    lines = [line for line in proc.stdout.splitlines() if line.startswith("BENCH ")]
    if proc.returncode != 0 or not lines:
        raise RuntimeError(f"the benchmark on {nproc} ranks failed (launcher exit {proc.returncode}):\n"
                           f"{proc.stdout[-3000:]}\n{proc.stderr[-5000:]}")
    return json.loads(lines[-1][len("BENCH "):])


def _gbps(nbytes: int, seconds: float) -> float:
    return nbytes / seconds / 1e9


def format_report(report: dict) -> list:
    """One line per collective: GB/s of each variant and the ratios against torch."""
    lines = []
    for collective, variants in report["variants"].items():
        ours, boxing, torch_name = VARIANTS[collective]
        speed = {v: _gbps(report["bytes"], t) for v, t in variants.items()}
        lines.append(
            f"{report['nproc']} ranks {collective:<10}  oneflow {speed[ours]:6.3f} GB/s  "
            f"{boxing.split(' ')[1]:<7} {speed[boxing]:6.3f} GB/s  torch {speed[torch_name]:6.3f} GB/s  "
            f"oneflow/torch {speed[ours] / speed[torch_name]:.2f}x  boxing/torch {speed[boxing] / speed[torch_name]:.2f}x"
        )
    return lines


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nproc", default="2,4", help="world sizes, comma-separated (default 2,4)")
    parser.add_argument("--mib", type=int, default=64, help="size of the global tensor in MiB (default 64)")
    parser.add_argument("--repeats", type=int, default=5, help="timed turns (the median is reported; default 5)")
    parser.add_argument("--timeout", type=float, default=300.0, help="collective timeout in seconds")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--torch_port", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        sys.exit(_worker(args))
    if args.repeats < 1 or args.mib < 1:
        parser.error("--repeats and --mib must be at least 1")
    load = os.getloadavg()[0]
    print(f"{describe()}; boxing benchmark: {args.mib} MiB float32, gloo on loopback, median of {args.repeats} interleaved "
          f"turns; load average {load:.2f} on {os.cpu_count()} cores")
    ok = True
    for nproc in (int(x) for x in args.nproc.split(",")):
        report = run_world(nproc, args)
        for line in format_report(report):
            print(line)
        bad = [name for name, good in report["checks"].items() if not good]
        if bad:
            ok = False
            print(f"{nproc} ranks: WRONG VALUES from {', '.join(bad)}")
    if not ok:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
