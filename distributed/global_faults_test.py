"""Bad input and faults in Global Tensor programs, on real processes through the launcher.

Bad input (placement ranks outside the job, an sbp tuple of the wrong length, a split axis out
of range, global and local tensors in one op, global tensors of different placements in one op,
local tensors that disagree in to_global) must raise the same clear exception on every rank,
placement members or not, at once (no rank left waiting in a collective), and leave the ranks in
step. A rank that raises, calls sys.exit(3) or is killed in the middle of global work must make
every other rank exit non-zero with an error naming it within the configured timeout (here they
fail as soon as its connections close), and the launcher must exit non-zero.
"""

import os
import re
import subprocess
import sys
import time

import numpy as np
import pytest
from global_testing import Checks, assert_check, child_env, free_port, worker_main

import oneflow as flow

CHECKS = Checks()
B, P, S = flow.sbp.broadcast, flow.sbp.partial_sum, flow.sbp.split
SCRIPT = os.path.abspath(__file__)
# A bad call must raise well before the collectives' timeout (global_testing.COMM_TIMEOUT, 30 s)
# would end a rank waiting for the others.
FAST = 10.0


def _expect(f, name: str, fn, exc, *fragments) -> None:
    """Records a failure unless ``fn()`` raises ``exc`` with every fragment in its message, fast."""
    start = time.time()
    try:
        fn()
        f.true(name, False, "no error")
    except exc as e:
        missing = [x for x in fragments if x not in str(e)]
        f.true(name, not missing, f"{type(e).__name__}: {e} (lacks {missing})")
    except Exception as e:
        f.true(name, False, f"raised {type(e).__name__} instead of {exc.__name__}: {e}")
    elapsed = time.time() - start
    f.true(f"{name}: raised at once", elapsed < FAST, f"took {elapsed:.1f} s")


def _in_step(f, name: str) -> None:
    """Every rank still runs the same collectives: a bad call left nobody behind."""
    t = flow.ones(2)
    flow.comm.all_reduce(t)
    f.close(f"{name}: ranks in step", t.numpy(), np.full(2, float(flow.env.get_world_size())))


def _placements():
    n = flow.env.get_world_size()
    everyone = flow.placement("cpu", list(range(n)))
    # Rank 0 is not a member: it must raise as the members do.
    others = flow.placement("cpu", list(range(1, n)))
    grid = flow.placement("cpu", [[0, 1], [2, 3]] if n == 4 else [list(range(n))])
    return n, everyone, others, grid


# ---- bad input --------------------------------------------------------------------------------------


@CHECKS(min_world=2)
def placement_ranks_outside_the_world(f):
    n = flow.env.get_world_size()
    _expect(f, "one rank", lambda: flow.placement("cpu", [0, n]), ValueError,
            f"rank [{n}] is outside the job (world size {n}, ranks 0..{n - 1})")
    _expect(f, "several, 2-D", lambda: flow.placement("cpu", [[0, n], [n + 1, 1]]), ValueError,
            f"ranks [{n}, {n + 1}] are outside the job")
    _expect(f, "negative", lambda: flow.placement("cpu", [-1]), ValueError, "rank [-1] is outside the job")
    _expect(f, "in creation", lambda: flow.zeros(2, placement=flow.placement("cpu", range(n + 1)), sbp=B),
            ValueError, "outside the job")
    _in_step(f, "placements")


@CHECKS(min_world=2)
def sbp_tuple_length_must_match_the_placement(f):
    n, everyone, others, grid = _placements()
    _expect(f, "creation", lambda: flow.zeros(4, 2, placement=everyone, sbp=(B, S(0))), ValueError,
            "sbp has 2 entries but the placement has 1 dimension")
    _expect(f, "2-D placement, one sbp", lambda: flow.randn(4, 4, placement=grid, sbp=(S(0),)), ValueError,
            "sbp has 1 entries but the placement has 2 dimensions")
    _expect(f, "2-D placement, three", lambda: flow.ones(4, 4, placement=grid, sbp=(B, B, B)), ValueError,
            "sbp has 3 entries but the placement has 2 dimensions")
    _expect(f, "local to_global", lambda: flow.ones(4).to_global(others, (B, B)), ValueError,
            "sbp has 2 entries but the placement has 1 dimension")
    _expect(f, "grad_sbp", lambda: flow.ones(4).to_global(everyone, B, grad_sbp=(B, P)), ValueError,
            "grad_sbp has 2 entries")
    g = flow.ones(4, 4, placement=everyone, sbp=S(0))
    _expect(f, "global to_global", lambda: g.to_global(sbp=(B, B)), ValueError,
            "sbp has 2 entries but the placement has 1 dimension")
    _expect(f, "new 2-D placement without sbp", lambda: g.to_global(placement=grid), ValueError,
            "give the sbp for")
    _expect(f, "not an sbp", lambda: flow.ones(4).to_global(everyone, "S(0)"), TypeError,
            "sbp must be a oneflow.sbp.sbp or a tuple of them")
    _in_step(f, "sbp length")


@CHECKS(min_world=2)
def split_axis_out_of_range(f):
    n, everyone, others, grid = _placements()
    _expect(f, "creation", lambda: flow.zeros(4, 2, placement=everyone, sbp=S(2)), IndexError,
            "split axis 2 is out of range for a tensor with 2 dimensions")
    _expect(f, "negative", lambda: flow.randn(4, 2, placement=everyone, sbp=S(-3)), IndexError,
            "split axis -3 is out of range for a tensor with 2 dimensions")
    _expect(f, "0-d", lambda: flow.tensor(1.0, placement=everyone, sbp=S(0)), IndexError,
            "split axis 0 is out of range for a tensor with 0 dimensions")
    _expect(f, "2-D placement", lambda: flow.ones(4, 4, placement=grid, sbp=(S(0), S(3))), IndexError,
            "split axis 3 is out of range")
    # Rank 0 is outside the placement, holds no part and cannot see the mistake by itself: the
    # members' local meta reaches every rank first, then every rank raises.
    _expect(f, "local to_global, non-members too", lambda: flow.ones(4).to_global(others, S(1)), IndexError,
            "to_global(): sbp: split axis 1 is out of range for a tensor with 1 dimension")
    _expect(f, "local to_global, negative", lambda: flow.ones(4, 2).to_global(others, S(-3)), IndexError,
            "split axis -3 is out of range for a tensor with 2 dimensions")
    g = flow.ones(4, 4, placement=everyone, sbp=B)
    _expect(f, "global to_global", lambda: g.to_global(sbp=S(2)), IndexError,
            "split axis 2 is out of range for a tensor with 2 dimensions")
    _expect(f, "global to_global, other placement", lambda: g.to_global(placement=others, sbp=S(5)), IndexError,
            "split axis 5 is out of range")
    _in_step(f, "split axis")


@CHECKS(min_world=2)
def global_and_local_tensors_in_one_op(f):
    n, everyone, others, _ = _placements()
    g = flow.ones(4, 3, placement=everyone, sbp=S(0))
    local = flow.ones(4, 3)
    want = "expected all tensor arguments to be global"
    _expect(f, "add", lambda: g + local, RuntimeError, "add(): " + want, "local tensor of shape [4, 3]", "to_global(")
    _expect(f, "local first", lambda: local * g, RuntimeError, "mul(): " + want, "argument 'self'")
    _expect(f, "matmul", lambda: g @ flow.ones(3, 2), RuntimeError, "matmul(): " + want)
    _expect(f, "linear weight", lambda: flow.nn.functional.linear(g, flow.ones(2, 3)), RuntimeError, want)
    _expect(f, "cat", lambda: flow.cat([g, local]), RuntimeError, "cat(): " + want)
    _expect(f, "in place", lambda: g.add_(local), RuntimeError, "add_(): " + want)
    _expect(f, "where", lambda: flow.where(g > 0, g, local), RuntimeError, want)
    sub = flow.ones(4, 3, placement=others, sbp=B)  # rank 0 holds a stand-in: it raises too
    _expect(f, "non-members too", lambda: sub - local, RuntimeError, "sub(): " + want)
    _expect(f, "comm rejects global", lambda: flow.comm.all_reduce(g), TypeError, "expected a local tensor")
    f.close("unchanged by the failed in-place op", g.numpy(), np.ones((4, 3)))
    _in_step(f, "mixing")


@CHECKS(min_world=2)
def different_placements_need_an_explicit_to_global(f):
    n, everyone, others, grid = _placements()
    a = flow.ones(4, placement=everyone, sbp=B)
    want = "the global tensor arguments have different placements"
    _expect(f, "subset", lambda: a + flow.ones(4, placement=others, sbp=B), RuntimeError, "add(): " + want,
            repr(everyone), repr(others), "to_global(placement=...)")
    reverse = flow.placement("cpu", list(range(n))[::-1])
    _expect(f, "same ranks, other order", lambda: a * flow.ones(4, placement=reverse, sbp=B), RuntimeError, want)
    flat = flow.placement("cpu", [r for row in grid.ranks.tolist() for r in row])
    _expect(f, "1-D and 2-D", lambda: flow.ones(4, placement=flat, sbp=B) + flow.ones(4, placement=grid, sbp=(B, B)),
            RuntimeError, want)
    _expect(f, "in place", lambda: a.add_(flow.ones(4, placement=others, sbp=B)), RuntimeError, want)
    _expect(f, "matmul", lambda: flow.ones(2, 4, placement=others, sbp=B) @ flow.ones(4, 2, placement=everyone, sbp=B),
            RuntimeError, "matmul(): " + want)
    # The explicit conversion is the way.
    c = a + flow.full((4,), 2.0, placement=others, sbp=B).to_global(placement=everyone, sbp=B)
    f.close("after to_global(placement=...)", c.numpy(), np.full(4, 3.0))
    _in_step(f, "placements")


@CHECKS(min_world=2)
def local_tensors_that_disagree_in_to_global(f):
    n, everyone, others, _ = _placements()
    rank = flow.env.get_rank()
    _expect(f, "broadcast shapes", lambda: flow.ones(rank + 1).to_global(everyone, B), ValueError,
            "rank 1 holds a local tensor of shape [2]")
    _expect(f, "dims", lambda: flow.ones(*([2] * (1 + rank % 2))).to_global(everyone, S(0)), ValueError,
            "the local tensors disagree", "rank 1 has 2 dims")
    dtype = flow.float64 if rank == n - 1 else flow.float32
    _expect(f, "dtypes", lambda: flow.ones(2, dtype=dtype).to_global(everyone, S(0)), ValueError,
            "the local tensors disagree")
    _in_step(f, "disagree")


# ---- a rank that fails during global work ----------------------------------------------------------------


def _fault_worker(how: str, victim: int, timeout: float, stamp: str) -> None:
    """Data-parallel steps with boxing in forward and backward; ``victim`` fails at step 3."""
    import datetime

    import oneflow.distributed as dist

    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=timeout))
    rank, n = dist.get_rank(), dist.get_world_size()
    pl = flow.placement("cpu", list(range(n)))
    flow.manual_seed(0)
    w = flow.randn(32, 16, placement=pl, sbp=B, requires_grad=True)
    for step in range(1000):
        x = flow.randn(8 * n, 32, placement=pl, sbp=S(0))
        loss = (x @ w).tanh().sum()
        loss.backward()
        if step == 3 and rank == victim:
            with open(stamp, "w") as out:
                out.write(str(time.time()))
            print(f"rank {rank} fails now ({how})", file=sys.stderr, flush=True)
            if how == "raise":
                raise ValueError(f"rank {rank} fails on purpose")
            if how == "exit":
                sys.exit(3)
            os.kill(os.getpid(), 9)
        with flow.no_grad():
            w -= 0.01 * w.grad
            w.grad = None
        flow.comm.barrier()
    print(f"rank {rank}: the victim's failure went unnoticed", file=sys.stderr, flush=True)


_CODES = {"raise": 1, "exit": 3, "kill": 128 + 9}
TIMEOUT = 20.0  # the configured collective timeout of the fault runs


def _named(victim: int, text: str) -> bool:
    """Whether an error in ``text`` names rank ``victim`` as the one missing or gone."""
    for ranks, _ in re.findall(r"ranks \[([0-9, ]*)\] (never arrived|exited)", text):
        if victim in [int(r) for r in ranks.split(", ")]:
            return True
    return victim == 0 and "rank 0 hosts the store: did it exit?" in text


def _launcher(tmp_path, tag: str, port: int, nproc: int, args: list, nnodes: int = 1, node_rank: int = 0):
    cmd = [sys.executable, "-m", "oneflow.distributed.launch", "--nproc_per_node", str(nproc), "--nnodes",
           str(nnodes), "--node_rank", str(node_rank), "--master_port", str(port), "--grace_period", "5",
           "--logdir", str(tmp_path / tag), SCRIPT, *args]
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=child_env())


def _wait_all(procs: list, limit: float) -> list:
    """(exit code, end time, stderr) of each process; kills them all after ``limit`` seconds."""
    deadline = time.time() + limit
    ends = [None] * len(procs)
    while any(e is None for e in ends) and time.time() < deadline:
        for i, p in enumerate(procs):
            if ends[i] is None and p.poll() is not None:
                ends[i] = time.time()
        time.sleep(0.02)
    for p in procs:
        if p.poll() is None:
            p.kill()
    return [(p.wait(), end, p.stderr.read()) for p, end in zip(procs, ends)]


@pytest.mark.parametrize("how,victim", [("raise", 2), ("exit", 2), ("kill", 2), ("raise", 0), ("kill", 0)])
def test_every_other_rank_fails_naming_the_failed_one(tmp_path, how, victim):
    """One launcher per rank (--nnodes 3 on loopback), so that each survivor exits on its own:
    no launcher stops it. Each must exit non-zero with an error naming the victim, within the
    configured timeout of the failure, and each launcher exits non-zero."""
    port = free_port()
    stamp = str(tmp_path / "failed_at")
    args = ["fault", how, str(victim), str(TIMEOUT), stamp]
    procs = [_launcher(tmp_path, f"node{k}", port, 1, args, nnodes=3, node_rank=k) for k in range(3)]
    runs = _wait_all(procs, 120)
    assert os.path.exists(stamp), [err[-2000:] for _, _, err in runs]
    with open(stamp) as f:
        failed_at = float(f.read())
    for k, (code, end, err) in enumerate(runs):
        with open(tmp_path / f"node{k}" / f"rank_{k}" / "stderr.log") as f:
            log = f.read()
        if k == victim:
            assert code == _CODES[how], (code, err, log)
            continue
        assert code not in (0, None), (k, code, err, log)
        assert end is not None and end - failed_at < TIMEOUT, (k, end - failed_at if end else None, log[-3000:])
        assert "oneflow.distributed.Distributed" in log and _named(victim, log), (k, log[-3000:])
        assert "went unnoticed" not in log


@pytest.mark.parametrize("how,victim", [("raise", 1), ("kill", 3), ("exit", 0), ("raise", 0)])
def test_launcher_stops_the_job_and_exits_non_zero(tmp_path, how, victim):
    """One launcher for 4 ranks: once a rank fails it stops the others and exits non-zero, well
    within the configured timeout. (The survivors fail within milliseconds of the victim, so
    the launcher, which looks at its processes every 50 ms, may report one of them as the first
    failure; the victim's own exit code is checked in the test above.)"""
    stamp = str(tmp_path / "failed_at")
    (code, end, err), = _wait_all([_launcher(tmp_path, "node", free_port(), 4, ["fault", how, str(victim),
                                                                               str(TIMEOUT), stamp])], 120)
    assert code not in (0, None), err[-3000:]
    assert re.search(r"rank \d \(local rank \d, pid \d+\) (exited with code|was killed by)", err), err
    assert os.path.exists(stamp), f"the job stopped before the victim's step:\n{err[-3000:]}"
    with open(stamp) as f:
        assert end - float(f.read()) < TIMEOUT
    for r in range(4):
        with open(tmp_path / "node" / f"rank_{r}" / "stderr.log") as f:
            assert "went unnoticed" not in f.read()


TEST_CASES = CHECKS.cases(worlds=(2, 3, 4))


@pytest.mark.parametrize("n,name", TEST_CASES, ids=[f"{n}ranks-{name}" for n, name in TEST_CASES])
def test_bad_input(n, name):
    assert_check(SCRIPT, n, name)


if __name__ == "__main__":
    if sys.argv[1:] == ["checks"]:
        worker_main(CHECKS)
    elif sys.argv[1] == "fault":
        _fault_worker(sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), sys.argv[5])
