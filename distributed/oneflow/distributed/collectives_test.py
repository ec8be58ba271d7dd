"""Collectives on 1 to 4 real processes, checked against NumPy.

Each world size starts its processes once (this file, run as a script, is the worker): every
rank runs every check below and prints one JSON line per check. A check builds every rank's
input from a seed, so each rank computes the expected result of the whole collective with
NumPy in its own process and compares: exactly for integers, bool and the 16-bit float sums
(which must equal the float32 sum rounded once), closely for other float results.
"""

from __future__ import annotations

import functools
import json
import os
import re
import socket
import subprocess
import sys
import time

import numpy as np
import pytest

WORLD_SIZES = [1, 2, 3, 4]
DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"]
INTEGRAL = ["bool", "uint8", "int8", "int16", "int32", "int64"]
OPS = ["sum", "product", "min", "max", "avg", "band", "bor", "bxor"]
# Seconds the workers of one world may take, all checks included.
RUN_TIMEOUT = 90


# ----------------------------------------------------------------------------- data


def np_dtype(dtype: str):
    return np.float32 if dtype == "bfloat16" else np.dtype(dtype)


def make(dtype: str, rank: int, shape, seed: int, low: float = 0.5, high: float = 1.5) -> np.ndarray:
    """Rank ``rank``'s input: small values (products of 4 stay in range), exactly representable
    in ``dtype`` (bfloat16 data is float32 with the low 16 bits cleared)."""
    rng = np.random.default_rng([seed, rank])
    if dtype == "bool":
        return rng.integers(0, 2, shape).astype(bool)
    if dtype == "uint8":
        return rng.integers(0, 4, shape).astype(np.uint8)
    if dtype in INTEGRAL:
        return rng.integers(-3, 4, shape).astype(dtype)
    a = rng.uniform(low, high, shape).astype(np.float32)
    if dtype == "bfloat16":
        return (a.view(np.uint32) & np.uint32(0xFFFF0000)).view(np.float32)
    return a.astype(dtype)


def to_flow(a: np.ndarray, dtype: str):
    import oneflow as flow

    t = flow.from_numpy(np.ascontiguousarray(a).copy())
    return t.to(flow.bfloat16) if dtype == "bfloat16" else t


def to_np(t, dtype: str) -> np.ndarray:
    return t.float().numpy() if dtype == "bfloat16" else t.numpy()


def round_to(a: np.ndarray, dtype: str) -> np.ndarray:
    """float32 values rounded once to ``dtype`` (bfloat16: round to nearest even)."""
    if dtype == "bfloat16":
        bits = a.astype(np.float32).view(np.uint32).astype(np.uint64)
        bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
        return bits.astype(np.uint32).view(np.float32)
    return a.astype(np_dtype(dtype))


def reference(op: str, inputs: list[np.ndarray], dtype: str) -> np.ndarray:
    """The reduction of the ranks' inputs, as the framework defines it, in NumPy."""
    n = len(inputs)
    if dtype == "bool":
        stack = np.stack(inputs)
        if op in ("sum", "max", "bor"):
            return stack.any(0)
        if op in ("product", "min", "band"):
            return stack.all(0)
        return np.bitwise_xor.reduce(stack, 0)
    if dtype in INTEGRAL:
        stack = np.stack(inputs).astype(np.int64)
        out = {
            "sum": lambda: stack.sum(0),
            "product": lambda: stack.prod(0),
            "min": lambda: stack.min(0),
            "max": lambda: stack.max(0),
            "avg": lambda: np.sign(stack.sum(0)) * (np.abs(stack.sum(0)) // n),  # truncates, as NCCL
            "band": lambda: np.bitwise_and.reduce(stack, 0),
            "bor": lambda: np.bitwise_or.reduce(stack, 0),
            "bxor": lambda: np.bitwise_xor.reduce(stack, 0),
        }[op]()
        return out.astype(dtype)
    # Floats: 16-bit types reduce in float32 and round once.
    wide = np.float64 if dtype == "float64" else np.float32
    stack = np.stack(inputs).astype(wide)
    out = {
        "sum": lambda: stack.sum(0),
        "product": lambda: stack.prod(0),
        "min": lambda: stack.min(0),
        "max": lambda: stack.max(0),
        "avg": lambda: stack.sum(0) / wide(n),
    }[op]()
    return round_to(out, dtype) if dtype in ("float16", "bfloat16") else out.astype(dtype)


TOLERANCE = {"float16": 2e-3, "bfloat16": 1.6e-2, "float32": 1e-6, "float64": 1e-12}


def assert_same(got: np.ndarray, want: np.ndarray, dtype: str, exact: bool = False, what: str = "") -> None:
    assert got.shape == want.shape, f"{what}: shape {got.shape} != {want.shape}"
    if dtype in INTEGRAL or exact:
        np.testing.assert_array_equal(got, np.asarray(want, dtype=got.dtype), err_msg=what)
    else:
        tol = TOLERANCE[dtype]
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol, err_msg=what)


# ----------------------------------------------------------------------------- checks
# Each check runs on every rank (rank r of n) with the world group initialized.

CHECKS: dict = {}


def check(name: str, min_ranks: int = 1):
    def register(fn):
        CHECKS[name] = (fn, min_ranks)
        return fn

    return register


def _all_reduce_check(op: str, dtype: str):
    def run(r: int, n: int) -> None:
        import oneflow.distributed as dist

        seed = 1000 + OPS.index(op) * 17 + DTYPES.index(dtype)
        inputs = [make(dtype, k, (5, 7), seed) for k in range(n)]
        t = to_flow(inputs[r], dtype)
        dist.all_reduce(t, op=getattr(dist.ReduceOp, op.upper()))
        # float32 sums depend on the ring's order; sums of float16/bfloat16 (in float32) and
        # float64 inputs of float32 precision are exact in any order.
        exact = op in ("min", "max") or (op == "sum" and dtype != "float32") or dtype in INTEGRAL
        assert_same(to_np(t, dtype), reference(op, inputs, dtype), dtype, exact, f"all_reduce {op} {dtype}")

    return run


for _op in OPS:
    for _dtype in DTYPES:
        if _op in ("band", "bor", "bxor") and _dtype not in INTEGRAL:
            continue
        if _op == "avg" and _dtype == "bool":
            continue
        check(f"all_reduce_{_op}_{_dtype}")(_all_reduce_check(_op, _dtype))


@check("all_reduce_16bit_floats_accumulate_in_float32", min_ranks=3)
def _(r, n):
    import oneflow as flow
    import oneflow.distributed as dist

    # 1024 + 0.5 + 0.5 (+ 0.5): float16 sums taken pairwise stay at 1024 (each half rounds to
    # even), while the float32 sum, 1025 (1025.5), rounds once to 1025 (1026).
    values = [1024.0] + [0.5] * (n - 1)
    wants = {"float16": np.float16(sum(values)), "bfloat16": round_to(np.float32([sum(values)]), "bfloat16")[0]}
    for dtype, want in wants.items():
        t = flow.full((4,), values[r], dtype=getattr(flow, dtype))
        dist.all_reduce(t)
        got = t.float().numpy()
        assert (got == np.float32(want)).all(), (dtype, got, want)


@check("all_reduce_non_contiguous_scalar_empty")
def _(r, n):
    import oneflow as flow
    import oneflow.distributed as dist

    inputs = [make("float32", k, (4, 6), 7) for k in range(n)]
    base = to_flow(inputs[r], "float32")
    view = base.t()  # non-contiguous: the result must land in base's memory, transposed
    assert not view.is_contiguous()
    dist.all_reduce(view, op=dist.ReduceOp.MAX)
    assert_same(base.numpy(), np.max(np.stack(inputs), 0), "float32", exact=True, what="non-contiguous")
    strided = flow.arange(8, dtype=flow.int64)[::2]
    dist.all_reduce(strided)
    assert strided.numpy().tolist() == [0, 2 * n, 4 * n, 6 * n]
    s = flow.tensor(float(r + 1), dtype=flow.float64)
    dist.all_reduce(s)
    assert s.dim() == 0 and float(s) == n * (n + 1) / 2
    e = flow.empty(0, 3)
    dist.all_reduce(e)
    assert tuple(e.shape) == (0, 3)


@check("all_gather_uneven_every_dtype")
def _(r, n):
    import oneflow as flow
    import oneflow.distributed as dist

    for dtype in DTYPES:
        # rank k contributes k + 1 rows
        inputs = [make(dtype, k, (k + 1, 3), 50 + DTYPES.index(dtype)) for k in range(n)]
        out = [flow.empty(k + 1, 3, dtype=getattr(flow, dtype)) for k in range(n)]
        dist.all_gather(out, to_flow(inputs[r], dtype))
        for k in range(n):
            assert_same(to_np(out[k], dtype), inputs[k], dtype, exact=True, what=f"all_gather {dtype} from {k}")
    # an empty contribution and a non-contiguous output
    sizes = [0 if k == 0 else 2 for k in range(n)]
    out = [flow.zeros(3, s).t() for s in sizes]
    dist.all_gather(out, flow.full((sizes[r], 3), float(r)))
    for k in range(n):
        assert (out[k].numpy() == k).all() and tuple(out[k].shape) == (sizes[k], 3)


@check("all_gather_into_tensor")
def _(r, n):
    import oneflow as flow
    import oneflow.distributed as dist

    inputs = [make("int32", k, (2, 3), 60) for k in range(n)]
    cat = flow.empty(2 * n, 3, dtype=flow.int32)
    dist.all_gather_into_tensor(cat, to_flow(inputs[r], "int32"))
    assert_same(cat.numpy(), np.concatenate(inputs), "int32")
    stacked = flow.empty(n, 2, 3, dtype=flow.int32)
    dist.all_gather_into_tensor(stacked, to_flow(inputs[r], "int32"))
    assert_same(stacked.numpy(), np.stack(inputs), "int32")


@check("reduce_scatter_uneven")
def _(r, n):
    import oneflow as flow
    import oneflow.distributed as dist

    for dtype, op in (("float32", "sum"), ("int64", "max"), ("float16", "sum"), ("bfloat16", "avg"), ("bool", "sum"),
                      ("int8", "product"), ("float64", "min")):
        # block j (for rank j) has j + 2 elements, shaped (j + 2,)
        inputs = [[make(dtype, k, (j + 2,), 70 + j) for j in range(n)] for k in range(n)]
        out = flow.empty(r + 2, dtype=getattr(flow, dtype))
        dist.reduce_scatter(out, [to_flow(a, dtype) for a in inputs[r]], op=getattr(dist.ReduceOp, op.upper()))
        want = reference(op, [inputs[k][r] for k in range(n)], dtype)
        assert_same(to_np(out, dtype), want, dtype, op != "avg", f"reduce_scatter {dtype} {op}")


@check("reduce_scatter_tensor")
def _(r, n):
    import oneflow.distributed as dist

    inputs = [make("float32", k, (n * 4, 2), 80) for k in range(n)]
    out = to_flow(np.zeros((4, 2), np.float32), "float32")
    dist.reduce_scatter_tensor(out, to_flow(inputs[r], "float32"))
    want = np.sum(np.stack(inputs), 0)[4 * r:4 * r + 4]
    assert_same(out.numpy(), want, "float32")


@check("broadcast_from_every_rank")
def _(r, n):
    import oneflow.distributed as dist

    for src in range(n):
        for dtype in ("float32", "bfloat16", "int16", "bool"):
            inputs = [make(dtype, k, (3, 4), 90 + src) for k in range(n)]
            t = to_flow(inputs[r], dtype)
            view = t.t()
            dist.broadcast(view, src)
            assert_same(to_np(t, dtype), inputs[src], dtype, exact=True, what=f"broadcast {dtype} from {src}")


@check("all_to_all_uneven")
def _(r, n):
    import oneflow as flow
    import oneflow.distributed as dist

    def block(i, j):  # what rank i sends to rank j: i + j + 1 elements encoding (i, j)
        return np.arange(i + j + 1, dtype=np.int64) + 100 * i + 10 * j

    out = [flow.empty(k + r + 1, dtype=flow.int64) for k in range(n)]
    dist.all_to_all(out, [flow.from_numpy(block(r, j)) for j in range(n)])
    for k in range(n):
        assert out[k].numpy().tolist() == block(k, r).tolist(), (k, out[k].numpy())


@check("all_to_all_with_an_idle_rank")
def _(r, n):
    import oneflow as flow
    import oneflow.distributed as dist

    # Only ranks 0 and 1 exchange anything; the last rank (n >= 3) sends and receives nothing
    # but must still take part, or the others wait for it until the timeout.
    def count(i, j):
        return 2 if i < 2 and j < 2 and n >= 2 else 0

    out = [flow.empty(count(k, r), dtype=flow.int64) for k in range(n)]
    dist.all_to_all(out, [flow.full((count(r, j),), 10 * r + j, dtype=flow.int64) for j in range(n)])
    for k in range(n):
        assert out[k].numpy().tolist() == [10 * k + r] * count(k, r), (k, out[k].numpy())


@check("all_to_all_single")
def _(r, n):
    import oneflow as flow
    import oneflow.distributed as dist

    # even blocks: rank r sends row block j to rank j
    x = flow.from_numpy(np.arange(n * 2 * 3, dtype=np.float32).reshape(n * 2, 3) + 1000 * r)
    out = flow.empty(n * 2, 3)
    dist.all_to_all_single(out, x)
    want = np.concatenate([(np.arange(n * 2 * 3, dtype=np.float32).reshape(n * 2, 3) + 1000 * k)[2 * r:2 * r + 2]
                           for k in range(n)])
    assert_same(out.numpy(), want, "float32", exact=True)
    # uneven: rank i sends i + j rows to rank j
    rows = [r + j for j in range(n)]
    x = flow.from_numpy(np.concatenate([np.full((rows[j], 2), 10 * r + j, np.int32) for j in range(n)]))
    out = flow.empty(sum(k + r for k in range(n)), 2, dtype=flow.int32)
    dist.all_to_all_single(out, x, output_split_sizes=[k + r for k in range(n)], input_split_sizes=rows)
    want = np.concatenate([np.full((k + r, 2), 10 * k + r, np.int32) for k in range(n)])
    assert_same(out.numpy(), want, "int32")


@check("send_recv_ring_and_any_source", min_ranks=2)
def _(r, n):
    import oneflow as flow
    import oneflow.distributed as dist

    nxt, prv = (r + 1) % n, (r - 1) % n
    for tag in (0, 5):
        payload = flow.full((3, 2), float(10 * r + tag))
        got = flow.empty(3, 2)
        # even ranks send first; with an odd ring the last rank also sends first (to rank 0)
        if r % 2 == 0:
            dist.send(payload, nxt, tag=tag)
            assert dist.recv(got, prv, tag=tag) == prv
        else:
            assert dist.recv(got, prv, tag=tag) == prv
            dist.send(payload, nxt, tag=tag)
        assert (got.numpy() == 10 * prv + tag).all()
    # every other rank sends to rank 0, which receives from any source
    if r == 0:
        seen = set()
        for _ in range(n - 1):
            t = flow.empty(4, dtype=flow.int64)
            src = dist.recv(t, tag=9)
            assert t.numpy().tolist() == [src] * 4
            seen.add(src)
        assert seen == set(range(1, n))
    else:
        dist.send(flow.full((4,), r, dtype=flow.int64), 0, tag=9)


@check("barrier_gather_scatter_reduce")
def _(r, n):
    import oneflow as flow
    import oneflow.distributed as dist

    dist.barrier()
    assert dist.barrier(async_op=True).wait()
    for root in range(n):
        inputs = [make("float64", k, (2, 2), 110 + root) for k in range(n)]
        gl = [flow.empty(2, 2, dtype=flow.float64) for _ in range(n)] if r == root else None
        dist.gather(to_flow(inputs[r], "float64"), gl, dst=root)
        if r == root:
            for k in range(n):
                assert_same(gl[k].numpy(), inputs[k], "float64", exact=True)
        out = flow.empty(2, 2, dtype=flow.int32)
        sl = [flow.full((2, 2), 7 * k + root, dtype=flow.int32) for k in range(n)] if r == root else None
        dist.scatter(out, sl, src=root)
        assert (out.numpy() == 7 * r + root).all()
        for op in ("sum", "max"):
            t = to_flow(inputs[r], "float64")
            before = t.numpy().copy()
            dist.reduce(t, root, op=getattr(dist.ReduceOp, op.upper()))
            want = reference(op, inputs, "float64") if r == root else before
            assert_same(t.numpy(), want, "float64", what=f"reduce {op} to {root}")


@check("subgroups", min_ranks=2)
def _(r, n):
    import oneflow as flow
    import oneflow.distributed as dist

    evens = dist.new_group([k for k in range(n) if k % 2 == 0])
    tail = dist.new_group([n - 1, 0])  # group ranks follow sorted global ranks: 0, n - 1
    with_timeout = dist.new_group(list(range(n)), timeout=__import__("datetime").timedelta(seconds=20))
    members = [k for k in range(n) if k % 2 == 0]
    assert dist.get_world_size(evens) == len(members)
    assert dist.get_rank(evens) == (members.index(r) if r in members else -1)
    assert dist.get_process_group_ranks(tail) == sorted({0, n - 1})
    assert with_timeout.timeout.total_seconds() == 20
    t = flow.full((3,), float(r + 1))
    result = dist.all_reduce(t, group=evens)
    if r in members:
        assert (t.numpy() == sum(k + 1 for k in members)).all()
    else:
        assert result is None and (t.numpy() == r + 1).all()  # not a member: untouched
    if r in (0, n - 1):
        u = flow.full((2,), float(r))
        dist.broadcast(u, n - 1, group=tail)
        assert (u.numpy() == n - 1).all()
        gathered = [flow.empty(k + 1) for k in range(dist.get_world_size(tail))]
        mine = dist.get_rank(tail)
        dist.all_gather(gathered, flow.full((mine + 1,), float(r)), group=tail)
        assert [g.numpy().tolist() for g in gathered] == [[0.0], [float(n - 1)] * 2][: len(gathered)]
        v = flow.full((2,), float(r))
        if r == 0:
            dist.send(v, n - 1, group=tail, tag=3)
        else:
            dist.recv(v, 0, group=tail, tag=3)
            assert (v.numpy() == 0).all()
    w = flow.full((2,), 1, dtype=flow.int32)
    dist.all_reduce(w, group=with_timeout)
    assert (w.numpy() == n).all()
    dist.destroy_process_group(evens)


@check("objects_and_async_handles")
def _(r, n):
    import oneflow as flow
    import oneflow.distributed as dist

    objs = [None] * n
    dist.all_gather_object(objs, {"rank": r, "data": list(range(r))})
    assert objs == [{"rank": k, "data": list(range(k))} for k in range(n)]
    lst = [("from", r), r * 1.5] if r == n - 1 else [None, None]
    dist.broadcast_object_list(lst, src=n - 1)
    assert lst == [("from", n - 1), (n - 1) * 1.5]
    work = dist.all_reduce(flow.ones(2), async_op=True)
    assert work.wait() and work.is_completed()


@check("argument_mismatch_is_an_error_and_the_group_survives", min_ranks=2)
def _(r, n):
    import oneflow as flow
    import oneflow.distributed as dist

    # rank 0 sends one element more to rank 1 than rank 1 expects: every rank raises ValueError
    sends = [1] * n
    expects = [1] * n
    if r == 0:
        sends[1] = 2
    x = flow.zeros(sum(sends))
    out = flow.zeros(sum(expects))
    try:
        dist.all_to_all_single(out, x, output_split_sizes=expects, input_split_sizes=sends)
        raise AssertionError("all_to_all_single with mismatched splits did not raise")
    except ValueError as e:
        assert "rank 0 sends 2 elements to rank 1, which expects 1" in str(e), str(e)
    # a recv of the wrong size raises on the receiver; the sender completes
    if r == 0:
        dist.send(flow.zeros(5), 1, tag=1)
    elif r == 1:
        try:
            dist.recv(flow.zeros(4), 0, tag=1)
            raise AssertionError("recv of the wrong size did not raise")
        except ValueError as e:
            assert "rank 0 sent 20 bytes" in str(e) and "expects 16 bytes" in str(e), str(e)
    t = flow.ones(3)
    dist.all_reduce(t)
    assert (t.numpy() == n).all()


def emit(record: dict) -> None:
    """One result line in one write, so lines of processes sharing a pipe never interleave."""
    if "error" in record and isinstance(record["error"], str):
        record["error"] = record["error"][:2000]
    os.write(1, ("RESULT " + json.dumps(record) + "\n").encode())


def _run_checks(r: int, n: int) -> int:
    import oneflow.distributed as dist

    dist.init_process_group("gloo", timeout=__import__("datetime").timedelta(seconds=30))
    assert dist.is_initialized() and dist.get_rank() == r and dist.get_world_size() == n
    assert dist.get_local_rank() == r
    failures = 0
    for name, (fn, min_ranks) in CHECKS.items():
        if n < min_ranks:
            continue
        start = time.time()
        try:
            fn(r, n)
            result = {"check": name, "ok": True}
        except Exception as e:  # reported to the parent, which fails the test case
            failures += 1
            result = {"check": name, "ok": False, "error": f"{type(e).__name__}: {e}"}
        result["seconds"] = round(time.time() - start, 3)
        emit(dict(result, rank=r))
    dist.barrier()
    dist.destroy_process_group()
    return 1 if failures else 0


# ----------------------------------------------------------------------------- faults
# Scenarios with a 2 s timeout: each rank prints one JSON line describing what it saw.


def _fault_worker(scenario: str, r: int, n: int) -> int:
    import datetime
    import threading

    import oneflow as flow
    import oneflow.distributed as dist

    def report(**kw):
        emit(kw)

    timeout = datetime.timedelta(seconds=2)
    if scenario == "rendezvous":  # only rank 0 of 2 is started
        start = time.time()
        try:
            dist.init_process_group("gloo", timeout=timeout)
            report(error=None)
        except Exception as e:
            report(type=type(e).__name__, error=str(e), seconds=time.time() - start)
        return 0
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=30) if scenario == "subgroup" else timeout)
    dist.barrier()
    victim = {"skip": 1, "exit": n - 1, "exit_store_host": 0, "mismatch": 1, "subgroup": 1}[scenario]
    group = dist.new_group([0, 1], timeout=datetime.timedelta(seconds=1)) if scenario == "subgroup" else None
    if r == victim:
        if scenario in ("skip", "subgroup"):
            time.sleep(4)
            report(victim=True)
            return 0
        if scenario in ("exit", "exit_store_host"):
            os._exit(7)
        if scenario == "mismatch":
            try:
                dist.barrier()
            except dist.DistributedTimeoutError as e:
                report(victim=True, type=type(e).__name__, error=str(e))
            time.sleep(1)  # stay connected until rank 0 has timed out too
            return 0
    if scenario == "subgroup" and r not in (0, 1):
        report(bystander=True)
        return 0
    # A Python thread keeps running while this rank waits: the wait does not hold the GIL.
    ticks = [0]
    stop = threading.Event()

    def tick():
        while not stop.is_set():
            ticks[0] += 1
            time.sleep(0.01)

    thread = threading.Thread(target=tick, daemon=True)
    thread.start()
    start = time.time()
    t = flow.ones(1000)
    try:
        dist.all_reduce(t, group=group)
        report(error=None)
        return 0
    except dist.DistributedError as e:
        elapsed = time.time() - start
        stop.set()
        later = None
        try:
            dist.all_reduce(t, group=group)
        except dist.DistributedError as e2:
            later = str(e2)
        report(type=type(e).__name__, error=str(e), seconds=elapsed, ticks=ticks[0], later=later)
        time.sleep(0.5)  # let the others read the store (rank 0 hosts it) before exiting
        return 0


# ----------------------------------------------------------------------------- pytest side


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def spawn(n: int, args: list[str], timeout: float, ranks=None) -> list[tuple[int, str, str]]:
    """Runs this file as rank r of n for r in ``ranks`` (default: all); returns (code, stdout,
    stderr) per rank. The fault scenarios start their processes themselves, not through the
    launcher, which would stop the survivors as soon as the victim exits."""
    port = free_port()
    procs = []
    for r in range(n) if ranks is None else ranks:
        env = dict(os.environ, MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), WORLD_SIZE=str(n), RANK=str(r),
                   LOCAL_RANK=str(r), OMP_NUM_THREADS="1")
        procs.append(subprocess.Popen([sys.executable, __file__, *args], env=env, stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, text=True))
    deadline = time.time() + timeout
    out = []
    for p in procs:
        try:
            stdout, stderr = p.communicate(timeout=max(0.1, deadline - time.time()))
        except subprocess.TimeoutExpired:
            for q in procs:
                q.kill()
            stdout, stderr = p.communicate()
            pytest.fail(f"{args} on {n} ranks did not finish within {timeout} s:\n{stdout}\n{stderr}")
        out.append((p.returncode, stdout, stderr))
    return out


def results(stdout: str) -> list[dict]:
    return [json.loads(line[len("RESULT "):]) for line in stdout.splitlines() if line.startswith("RESULT ")]


@functools.cache
def world_results(n: int) -> dict:
    """check name -> [(rank, result)] for one run of every check on n ranks, started by the
    launcher (python -m oneflow.distributed.launch)."""
    cmd = [sys.executable, "-m", "oneflow.distributed.launch", "--nproc_per_node", str(n),
           "--master_port", str(free_port()), __file__, "checks"]
    try:
        run = subprocess.run(cmd, capture_output=True, text=True, timeout=RUN_TIMEOUT)
    except subprocess.TimeoutExpired as e:
        pytest.fail(f"the checks on {n} ranks did not finish within {RUN_TIMEOUT} s:\n{e.stdout}\n{e.stderr}")
    by_check: dict = {"__stderr__": f"exit code {run.returncode}\n{run.stderr[-5000:]}"}
    for res in results(run.stdout):
        by_check.setdefault(res["check"], []).append((res["rank"], res))
    return by_check


CASES = [(n, name) for n in WORLD_SIZES for name, (_, m) in CHECKS.items() if n >= m]


@pytest.mark.parametrize("n,name", CASES, ids=[f"{n}ranks-{name}" for n, name in CASES])
def test_collective(n, name):
    by_check = world_results(n)
    got = by_check.get(name, [])
    assert sorted(r for r, _ in got) == list(range(n)), f"{name}: ranks {[r for r, _ in got]} reported\n" + by_check[
        "__stderr__"]
    failed = [f"rank {r}: {res['error']}" for r, res in got if not res["ok"]]
    assert not failed, "\n".join(failed)


def _fault(scenario: str, n: int, ranks=None) -> list[dict]:
    runs = spawn(n, ["fault", scenario], 20, ranks)
    out = []
    for code, stdout, stderr in runs:
        res = results(stdout)
        out.append({"code": code, **(res[0] if res else {"missing": stderr[-2000:]})})
    return out


def test_rank_that_skips_a_collective_times_out_naming_it():
    seen = _fault("skip", 3)
    for r in (0, 2):
        res = seen[r]
        assert res.get("type") == "DistributedTimeoutError", res
        assert 1.5 < res["seconds"] < 4.0, res
        msg = res["error"]
        assert "all_reduce timed out after 2 s" in msg and "ranks [0, 1, 2]" in msg, msg
        assert "ranks [1] never arrived" in msg, msg
        assert res["ticks"] > 20, res  # the GIL was free while waiting
        assert "unusable after an earlier failure" in res["later"], res
    assert seen[1].get("victim"), seen[1]


def test_rank_that_exits_makes_the_others_fail_fast_naming_it():
    seen = _fault("exit", 3)
    assert seen[2]["code"] == 7
    for r in (0, 1):
        res = seen[r]
        assert res.get("type") in ("DistributedError", "DistributedTimeoutError"), res
        assert res["seconds"] < 3.0, res
        msg = res["error"]
        assert "all_reduce" in msg and "ranks [0, 1, 2]" in msg, msg
        # The victim is named (as exited or as never arrived); a survivor that fails within a
        # millisecond may also list the other survivor, which had not reached the collective yet.
        named = [m.group(1).split(", ") for m in re.finditer(r"ranks \[([\d, ]+)\] (?:never arrived|exited)", msg)]
        assert any("2" in ranks for ranks in named), msg


def test_store_host_exit_makes_the_others_fail():
    seen = _fault("exit_store_host", 2)
    assert seen[0]["code"] == 7
    res = seen[1]
    assert res.get("type") in ("DistributedError", "DistributedTimeoutError"), res
    assert res["seconds"] < 3.0, res
    assert "all_reduce" in res["error"] and "ranks [0, 1]" in res["error"], res


def test_different_collectives_on_two_ranks_name_each_other():
    seen = _fault("mismatch", 2)
    # Rank 0 times out, or (on a loaded machine) sees rank 1 close the connection after rank 1's
    # own timeout: either way its message names what rank 1 entered instead.
    assert seen[0].get("type") in ("DistributedTimeoutError", "DistributedError"), seen[0]
    assert "rank 1 entered barrier() instead of all_reduce" in seen[0]["error"], seen[0]
    assert "rank 0 entered all_reduce(float32, 1000 elements, sum) instead of barrier" in seen[1]["error"], seen[1]


def test_subgroup_timeout_is_its_own():
    seen = _fault("subgroup", 3)
    res = seen[0]
    assert res.get("type") == "DistributedTimeoutError", res
    assert 0.7 < res["seconds"] < 2.5, res  # the group's 1 s, not the world's 30 s
    assert "timed out after 1 s on the group of ranks [0, 1]" in res["error"], res
    assert "ranks [1] never arrived" in res["error"], res


def test_rendezvous_names_the_rank_that_never_joined():
    (res,) = _fault("rendezvous", 2, ranks=[0])
    assert res.get("type") == "DistributedTimeoutError", res
    assert res["seconds"] < 6, res
    assert "ranks [1] never joined" in res["error"], res


# ----------------------------------------------------------------------------- bad input
# In this process, as the only rank of a world of one.


@pytest.fixture(scope="module")
def world():
    import oneflow.distributed as dist

    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{free_port()}", world_size=1, rank=0)
    yield dist
    dist.destroy_process_group()


def test_bad_input_names_the_function_and_what_it_expected(world):
    import oneflow as flow

    dist = world
    x = flow.ones(2, 3)
    cases = [
        (lambda: dist.all_reduce([1, 2]), TypeError, "all_reduce: tensor must be a oneflow.Tensor, got list"),
        (lambda: dist.all_reduce(x, op="mean"), TypeError, "all_reduce: op must be a oneflow.distributed.ReduceOp"),
        (lambda: dist.all_reduce(x, op=dist.ReduceOp.BAND), ValueError,
         "all_reduce: ReduceOp.BAND needs an integer or bool tensor, got float32"),
        (lambda: dist.all_reduce(flow.ones(2, dtype=flow.bool), op=dist.ReduceOp.AVG), ValueError,
         "all_reduce: ReduceOp.AVG is not defined for bool tensors"),
        (lambda: dist.all_gather([x, x], x), ValueError,
         r"all_gather: tensor_list has 2 tensors, expected 1 \(one per rank of the group\)"),
        (lambda: dist.all_gather([flow.ones(6, dtype=flow.int64)], x), TypeError,
         "all_gather: tensor_list\\[0\\] has dtype oneflow.int64, expected oneflow.float32"),
        (lambda: dist.all_gather([flow.ones(4)], x), ValueError,
         r"all_gather: tensor_list\[0\] \(this rank's slot\) has 4 elements but tensor has 6 \(shape \(2, 3\)\)"),
        (lambda: dist.all_gather_into_tensor(flow.ones(5), x), ValueError,
         r"all_gather_into_tensor: output_tensor has 5 elements \(shape \(5,\)\), expected 1 x 6"),
        (lambda: dist.reduce_scatter_tensor(flow.ones(4), x), ValueError,
         r"reduce_scatter_tensor: input has 6 elements \(shape \(2, 3\)\), expected 1 x 4"),
        (lambda: dist.reduce_scatter(flow.ones(6), [flow.ones(6, dtype=flow.float64)]), TypeError,
         "reduce_scatter: input_list\\[0\\] has dtype oneflow.float64, expected oneflow.float32"),
        (lambda: dist.broadcast(x, 3), ValueError, r"broadcast: src=3 is not a rank of the group \[0\]"),
        (lambda: dist.reduce(x, dst=-1), ValueError, r"reduce: dst=-1 is not a rank of the group \[0\]"),
        (lambda: dist.send(x, 0), ValueError, "send: a rank cannot send to itself"),
        (lambda: dist.recv(x, 0, tag=-1), ValueError, r"recv: tag must be an int in \[0, 2\*\*32\), got -1"),
        (lambda: dist.all_to_all_single(flow.ones(3), flow.ones(3), input_split_sizes=[2]), ValueError,
         r"all_to_all_single: input_split_sizes \[2\] sum to 2, but dim 0 has 3 rows"),
        (lambda: dist.all_to_all([flow.ones(2)], [flow.ones(2), flow.ones(2)]), ValueError,
         "all_to_all: input_tensor_list has 2 tensors, expected 1"),
        (lambda: dist.gather(x, None, dst=0), ValueError, "gather: gather_list is required on the destination rank 0"),
        (lambda: dist.scatter(x, [flow.ones(5)], src=0), ValueError,
         r"scatter: scatter_list\[0\] has 5 elements, expected 6 \(tensor's\)"),
    ]
    for call, exc, pattern in cases:
        with pytest.raises(exc, match=pattern):
            call()
    # nothing above broke the group
    t = flow.full((2,), 3.0)
    dist.all_reduce(t, op=dist.ReduceOp.AVG)
    assert t.numpy().tolist() == [3.0, 3.0]


if __name__ == "__main__":
    _rank, _n = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    if sys.argv[1] == "checks":
        sys.exit(_run_checks(_rank, _n))
    sys.exit(_fault_worker(sys.argv[2], _rank, _n))
