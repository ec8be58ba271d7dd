"""oneflow.nn.parallel.DistributedDataParallel on real processes (gloo on loopback, 1-4 ranks).

Each world size is one run of this file through ``python -m oneflow.distributed.launch``: every
rank runs every check below in order (always issuing the same collectives, so a failed
comparison is recorded rather than raised) and prints one ``RESULT {json}`` line per check; the
pytest side turns each (world size, check) into a test case. References are single-process
oneflow runs on the whole global batch, computed on every rank.
"""

from __future__ import annotations

import datetime
import functools
import json
import os
import socket
import subprocess
import sys
import time
import traceback

import pytest

COMM_TIMEOUT = 30.0  # seconds: a rank stuck in a collective fails its run instead of hanging it
WORLDS = (1, 2, 3, 4)
GLOBAL_BATCH = 12  # divisible by every world size
N_SAMPLES = 24


# ---- the worker side ------------------------------------------------------------------------------


class Failures:
    """Failed comparisons of one check, collected without raising (the ranks stay in step)."""

    def __init__(self) -> None:
        self.items: list = []

    def close(self, name: str, got, want, atol: float = 1e-5, rtol: float = 1e-5) -> None:
        import numpy as np

        got, want = np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64)
        if got.shape != want.shape:
            self.items.append(f"{name}: shape {got.shape} != {want.shape}")
        elif not np.allclose(got, want, atol=atol, rtol=rtol):
            self.items.append(f"{name}: max diff {np.abs(got - want).max()}")

    def true(self, name: str, cond: bool, detail: str = "") -> None:
        if not cond:
            self.items.append(f"{name}: {detail}")


class Ctx:
    def __init__(self, rank: int, world: int) -> None:
        self.rank, self.world = rank, world
        self.fails = Failures()


CHECKS: dict = {}  # name -> (function, world sizes)


def check(worlds=WORLDS):
    def register(fn):
        CHECKS[fn.__name__] = (fn, tuple(worlds))
        return fn

    return register


def _flow():
    import oneflow as flow

    return flow


def _ddp(*args, **kwargs):
    # Reached as an attribute, without importing oneflow.nn.parallel, as users do.
    return _flow().nn.parallel.DistributedDataParallel(*args, **kwargs)


def _flat(tensors) -> object:
    flow = _flow()
    return flow.cat([t.detach().reshape(-1).to(flow.float64) for t in tensors])


def _same_on_all_ranks(ctx: Ctx, name: str, tensors) -> None:
    """The tensors are bitwise equal on every rank (all-gathered, compared with rank 0's)."""
    import oneflow.distributed as dist

    mine = _flat(tensors)
    everyone = [mine.clone() for _ in range(ctx.world)]
    dist.all_gather(everyone, mine)
    for r, theirs in enumerate(everyone):
        ctx.fails.true(f"{name}: rank {r} == rank 0", bool((theirs == everyone[0]).all()),
                       f"max diff {(theirs - everyone[0]).abs().max().item()}")


def _data(n: int = N_SAMPLES, shape=(4,), out: int = 2):
    flow = _flow()
    flow.manual_seed(123)
    return flow.randn(n, *shape), flow.randn(n, out)


def _perturb(model, rank: int) -> None:
    """Makes the replicas differ before DDP: its construction must broadcast rank 0's."""
    flow = _flow()
    with flow.no_grad():
        for p in model.parameters():
            p.add_(0.25 * rank)
        for b in model.buffers():
            if b.is_floating_point():
                b.add_(0.5 * rank)


def _shards(world: int, epoch: int):
    """Each rank's sample indices for ``epoch``, as DistributedSampler gives them."""
    flow = _flow()
    ds = flow.utils.data.TensorDataset(flow.zeros(N_SAMPLES))
    out = []
    for r in range(world):
        s = flow.utils.data.DistributedSampler(ds, num_replicas=world, rank=r, shuffle=True, seed=7)
        s.set_epoch(epoch)
        out.append(list(s))
    return out


def _mlp():
    nn = _flow().nn
    return nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 16), nn.Tanh(), nn.Linear(16, 2))


def _conv_bn():
    nn = _flow().nn
    return nn.Sequential(
        nn.Conv2d(2, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.Conv2d(4, 4, 3, stride=2),
        nn.BatchNorm2d(4), nn.Flatten(), nn.Linear(16, 2),
    )


class _TwoDtypes:
    """A float32 and a float64 branch: their parameters go to buckets of their own dtype."""

    @staticmethod
    def make():
        flow = _flow()

        class Net(flow.nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.f = flow.nn.Linear(4, 8)
                self.d = flow.nn.Linear(4, 8).double()
                self.head = flow.nn.Linear(8, 2)

            def forward(self, x):
                return self.head(self.f(x).tanh() + self.d(x.double()).tanh().float())

        return Net()


def _mse(out, y):
    return _flow().nn.functional.mse_loss(out, y)


def _train(ctx: Ctx, make, X, Y, epochs: int = 2, **ddp_kwargs):
    """Trains make() under DDP on this rank's DistributedSampler share; returns (model, ddp)."""
    flow = _flow()
    flow.manual_seed(0)
    model = make()
    _perturb(model, ctx.rank)
    ddp = _ddp(model, **ddp_kwargs)
    opt = flow.optim.SGD(ddp.parameters(), lr=0.1, momentum=0.9)
    ds = flow.utils.data.TensorDataset(X, Y)
    sampler = flow.utils.data.DistributedSampler(ds, shuffle=True, seed=7)
    loader = flow.utils.data.DataLoader(ds, batch_size=GLOBAL_BATCH // ctx.world, sampler=sampler)
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        for x, y in loader:
            opt.zero_grad()
            _mse(ddp(x), y).backward()
            opt.step()
    return model, ddp


def _reference(world: int, make, X, Y, epochs: int = 2, per_replica_stats: bool = False):
    """The same training in one process on the global batches (the ranks' shares together).

    With ``per_replica_stats`` (BatchNorm) each rank's share goes through the model on its own,
    as on the replicas (BatchNorm normalizes with each replica's statistics; rank 0's running
    statistics are the ones DDP broadcasts), and the gradients of the shares' losses / world
    accumulate."""
    flow = _flow()
    flow.manual_seed(0)
    model = make()
    opt = flow.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    b = GLOBAL_BATCH // world
    for epoch in range(epochs):
        shards = _shards(world, epoch)
        for k in range(len(shards[0]) // b):
            opt.zero_grad()
            parts = [s[k * b:(k + 1) * b] for s in shards]
            if not per_replica_stats:
                idx = flow.tensor(sum(parts, []))
                _mse(model(X[idx]), Y[idx]).backward()
            else:
                before = [t.clone() for t in model.buffers()]
                after0 = None
                for r, part in enumerate(parts):
                    with flow.no_grad():
                        for t, v in zip(model.buffers(), before):
                            t.copy_(v)
                    idx = flow.tensor(part)
                    (_mse(model(X[idx]), Y[idx]) / world).backward()
                    if r == 0:
                        after0 = [t.clone() for t in model.buffers()]
                with flow.no_grad():
                    for t, v in zip(model.buffers(), after0):
                        t.copy_(v)
            opt.step()
    return model


def _compare_training(ctx: Ctx, model, ref, buffers: bool = False) -> None:
    _same_on_all_ranks(ctx, "parameters", list(model.parameters()))
    for (name, p), q in zip(model.named_parameters(), ref.parameters()):
        ctx.fails.close(f"{name} vs single process", p.detach().numpy(), q.detach().numpy())
    if buffers and ctx.rank == 0:
        for (name, t), u in zip(model.named_buffers(), ref.buffers()):
            ctx.fails.close(f"buffer {name} vs single process", t.numpy(), u.numpy())


@check()
def train_mlp(ctx: Ctx):
    """An MLP trained 4 SGD steps under DDP equals the single-process run on the full batches."""
    X, Y = _data()
    model, _ = _train(ctx, _mlp, X, Y)
    _compare_training(ctx, model, _reference(ctx.world, _mlp, X, Y))


@check()
def train_conv_batchnorm(ctx: Ctx):
    """Conv/BatchNorm/Linear: parameters equal the reference with per-replica BatchNorm
    statistics; rank 0's running statistics equal the reference's (broadcast every forward)."""
    X, Y = _data(shape=(2, 5, 5))
    model, _ = _train(ctx, _conv_bn, X, Y)
    ref = _reference(ctx.world, _conv_bn, X, Y, per_replica_stats=True)
    _compare_training(ctx, model, ref, buffers=True)


@check()
def train_many_buckets(ctx: Ctx):
    """Tiny buckets (one per parameter), two dtypes, and gradients as bucket views."""
    X, Y = _data()
    for kwargs in ({"bucket_cap_mb": 1e-5}, {"bucket_cap_mb": 1e-6, "gradient_as_bucket_view": True}):
        model, ddp = _train(ctx, _mlp, X, Y, **kwargs)
        ctx.fails.true(f"{kwargs}: buckets", len(ddp._buckets) >= 5, f"{len(ddp._buckets)} buckets")
        _compare_training(ctx, model, _reference(ctx.world, _mlp, X, Y))
    model, ddp = _train(ctx, _TwoDtypes.make, X, Y, bucket_cap_mb=1e-3)
    dtypes = {str(b.dtype) for b in ddp._buckets}
    ctx.fails.true("two dtypes: bucket dtypes", dtypes == {"oneflow.float32", "oneflow.float64"}, str(dtypes))
    _compare_training(ctx, model, _reference(ctx.world, _TwoDtypes.make, X, Y))


@check()
def no_sync_accumulation(ctx: Ctx):
    """Two backward passes under no_sync() accumulate locally (no communication: each rank's
    .grad is its own), then a synced one averages the sum; the step equals the reference."""
    flow = _flow()
    X, Y = _data()
    shard = list(range(ctx.rank, N_SAMPLES, ctx.world))[:6]
    micro = [flow.tensor(shard[k:k + 2]) for k in (0, 2, 4)]

    flow.manual_seed(0)
    model = _mlp()
    ddp = _ddp(model)
    opt = flow.optim.SGD(ddp.parameters(), lr=0.1)
    flow.manual_seed(0)
    local = _mlp()  # this rank alone
    with ddp.no_sync():
        for idx in micro[:2]:
            _mse(ddp(X[idx]), Y[idx]).backward()
            _mse(local(X[idx]), Y[idx]).backward()
    for p, q in zip(model.parameters(), local.parameters()):
        ctx.fails.close("local grad under no_sync", p.grad.numpy(), q.grad.numpy())
    _mse(ddp(X[micro[2]]), Y[micro[2]]).backward()
    opt.step()

    flow.manual_seed(0)
    ref = _mlp()
    ref_opt = flow.optim.SGD(ref.parameters(), lr=0.1)
    for r in range(ctx.world):
        rows = list(range(r, N_SAMPLES, ctx.world))[:6]
        for k in (0, 2, 4):
            idx = flow.tensor(rows[k:k + 2])
            (_mse(ref(X[idx]), Y[idx]) / ctx.world).backward()
    ref_opt.step()
    _compare_training(ctx, model, ref)


def _branchy():
    flow = _flow()

    class Branchy(flow.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.a = flow.nn.Linear(4, 3)
            self.b = flow.nn.Linear(4, 3)
            self.c = flow.nn.Linear(4, 3)  # never used

        def forward(self, x, use_b: bool, extra: bool = False):
            y = self.a(x)
            if use_b:
                y = y + self.b(x).tanh()
            return (y, self.c(x)) if extra else y

    return Branchy()


@check()
def find_unused_parameters(ctx: Ctx):
    """Parameters unused on some ranks get the average with zeros for those ranks; parameters
    no rank used keep .grad None; an output left out of the loss is fine; without the flag, the
    next forward raises on every rank."""
    flow = _flow()
    X, Y = _data(out=3)
    uses_b = [r % 2 == 0 for r in range(ctx.world)]
    flow.manual_seed(0)
    model = _branchy()
    ddp = _ddp(model, find_unused_parameters=True)
    opt = flow.optim.SGD(ddp.parameters(), lr=0.1)
    flow.manual_seed(0)
    ref = _branchy()
    ref_opt = flow.optim.SGD(ref.parameters(), lr=0.1)
    for step in range(3):
        rows = [flow.tensor([(step * 8 + 2 * r + i) % N_SAMPLES for i in range(2)]) for r in range(ctx.world)]
        opt.zero_grad()
        idx = rows[ctx.rank]
        _mse(ddp(X[idx], uses_b[ctx.rank]), Y[idx]).backward()
        ref_opt.zero_grad()
        for r in range(ctx.world):
            (_mse(ref(X[rows[r]], uses_b[r]), Y[rows[r]]) / ctx.world).backward()
        for name in ("a.weight", "a.bias", "b.weight", "b.bias"):
            ctx.fails.close(f"step {step} grad {name}", model.get_parameter(name).grad.numpy(),
                            ref.get_parameter(name).grad.numpy())
        ctx.fails.true(f"step {step}: c unused everywhere", model.c.weight.grad is None and model.c.bias.grad is None,
                       "c got a gradient")
        opt.step()
        ref_opt.step()
    _compare_training(ctx, model, ref)

    # An output that the loss leaves out: its parameters are found unused at the end of backward.
    flow.manual_seed(0)
    model2 = _branchy()
    ddp2 = _ddp(model2, find_unused_parameters=True)
    for _ in range(2):
        y, _ = ddp2(X[:2], True, extra=True)
        y.sum().backward()
    ctx.fails.true("output left out: c.grad", model2.c.weight.grad is None, "c got a gradient")

    # Without find_unused_parameters: the next forward raises on every rank, then recovers.
    flow.manual_seed(0)
    model3 = _branchy()
    ddp3 = _ddp(model3)
    ddp3(X[:2], False).sum().backward()
    try:
        ddp3(X[:2], False)
        ctx.fails.true("unused without the flag", False, "no error")
    except RuntimeError as e:
        ctx.fails.true("error names the flag", "find_unused_parameters=True" in str(e), str(e))
        ctx.fails.true("error names the parameters", "b.weight" in str(e) and "c.bias" in str(e), str(e))
    model3.c.requires_grad_(False)
    model3.zero_grad()
    ddp3 = _ddp(model3)
    ddp3(X[:2], True).sum().backward()
    ctx.fails.true("all used: grads", model3.b.weight.grad is not None, "no grad")


@check()
def broadcast_buffers(ctx: Ctx):
    """Construction broadcasts rank 0's parameters and buffers; each forward broadcasts rank
    0's buffers first (the forward sees them), unless broadcast_buffers=False or the previous
    forward ran without grad sync (as torch)."""
    flow = _flow()

    class WithBuffer(flow.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.lin = flow.nn.Linear(2, 2)
            self.register_buffer("scale", flow.ones(2))
            self.seen: list = []

        def forward(self, x):
            self.seen.append(self.scale.tolist())
            return self.lin(x) * self.scale

    for flag in (True, False):
        flow.manual_seed(0)
        m = WithBuffer()
        _perturb(m, ctx.rank)
        ddp = _ddp(m, broadcast_buffers=flag)
        _same_on_all_ranks(ctx, f"construction ({flag}): parameters and buffers", list(m.parameters()) + [m.scale])
        ctx.fails.true(f"construction ({flag}): rank 0's buffer", m.scale.tolist() == [1.0, 1.0], str(m.scale.tolist()))
        with flow.no_grad():
            m.scale.fill_(10.0 + ctx.rank)
        ddp(flow.ones(1, 2)).sum().backward()
        want = [10.0, 10.0] if flag else [10.0 + ctx.rank] * 2
        ctx.fails.true(f"broadcast_buffers={flag}: forward saw", m.seen[-1] == want, f"{m.seen[-1]} != {want}")
        ctx.fails.true(f"broadcast_buffers={flag}: buffer after", m.scale.tolist() == want, str(m.scale.tolist()))
        if not flag:
            continue
        # As torch: a forward without grad sync (no_grad here) skips the next forward's broadcast.
        with flow.no_grad():
            ddp(flow.ones(1, 2))
            m.scale.fill_(20.0 + ctx.rank)
        ddp(flow.ones(1, 2))
        ctx.fails.true("after a no_grad forward: no broadcast", m.seen[-1] == [20.0 + ctx.rank] * 2, str(m.seen[-1]))
        with flow.no_grad():
            m.scale.fill_(30.0 + ctx.rank)
        ddp(flow.ones(1, 2))
        ctx.fails.true("then broadcast again", m.seen[-1] == [30.0] * 2, str(m.seen[-1]))


@check(worlds=(1, 2))
def state_dict_and_module(ctx: Ctx):
    """``.module`` is the wrapped module; state_dict keys carry the ``module.`` prefix and load
    back; parameters() are the module's."""
    flow = _flow()
    flow.manual_seed(0)
    m = _conv_bn()
    ddp = _ddp(m)
    ctx.fails.true(".module", ddp.module is m, "")
    want = ["module." + k for k in m.state_dict()]
    ctx.fails.true("state_dict keys", list(ddp.state_dict()) == want, f"{list(ddp.state_dict())} != {want}")
    ctx.fails.true("parameters", [id(p) for p in ddp.parameters()] == [id(p) for p in m.parameters()], "")
    sd = {k: v.clone() for k, v in ddp.state_dict().items()}
    with flow.no_grad():
        for p in m.parameters():
            p.zero_()
    ddp.load_state_dict(sd)
    ctx.fails.close("load_state_dict", _flat(m.state_dict().values()).numpy(), _flat(sd.values()).numpy())
    fresh = _conv_bn()
    fresh.load_state_dict({k[len("module."):]: v for k, v in sd.items()})
    ctx.fails.close("into a plain module", _flat(fresh.parameters()).numpy(), _flat(m.parameters()).numpy())


@check()
def sync_batchnorm_matches_whole_batch(ctx: Ctx):
    """nn.SyncBatchNorm on each rank's shard of the batch gives what BatchNorm gives on the whole
    batch: outputs, input gradients (each rank's rows), weight and bias gradients summed over the
    ranks, and running statistics."""
    import oneflow.distributed as dist

    flow = _flow()
    nn = flow.nn
    flow.manual_seed(5)
    x = flow.randn(GLOBAL_BATCH, 3, 4, 5, dtype=flow.float64)
    g = flow.randn(GLOBAL_BATCH, 3, 4, 5, dtype=flow.float64)
    ref = nn.BatchNorm2d(3).double()
    with flow.no_grad():
        ref.weight.copy_(flow.tensor([0.5, 1.5, -1.0], dtype=flow.float64))
        ref.bias.copy_(flow.tensor([0.1, -0.2, 0.3], dtype=flow.float64))
    sync = nn.SyncBatchNorm(3).double()
    sync.load_state_dict(ref.state_dict())
    xr = x.clone().requires_grad_()
    yr = ref(xr)
    yr.backward(g)
    per = GLOBAL_BATCH // ctx.world
    rows = slice(ctx.rank * per, (ctx.rank + 1) * per)
    xs = x[rows].clone().requires_grad_()
    y = sync(xs)
    y.backward(g[rows])
    ctx.fails.close("output", y.detach().numpy(), yr.detach().numpy()[rows], atol=1e-10)
    ctx.fails.close("input grad", xs.grad.numpy(), xr.grad.numpy()[rows], atol=1e-10)
    gw, gb = sync.weight.grad.clone(), sync.bias.grad.clone()
    dist.all_reduce(gw)
    dist.all_reduce(gb)
    ctx.fails.close("weight grad", gw.numpy(), ref.weight.grad.numpy(), atol=1e-10)
    ctx.fails.close("bias grad", gb.numpy(), ref.bias.grad.numpy(), atol=1e-10)
    ctx.fails.close("running mean", sync.running_mean.numpy(), ref.running_mean.numpy(), atol=1e-10)
    ctx.fails.close("running var", sync.running_var.numpy(), ref.running_var.numpy(), atol=1e-10)


@check()
def allreduce_overlaps_backward(ctx: Ctx):
    """Bucket 0's all-reduce is launched before the last gradient of the pass arrives and
    completes while backward is still running (a hook on the first layer's weight, whose
    gradient comes last, waits for it: were the all-reduces left to the end of backward, it
    would time out). backward() returns with averaged gradients, after every all-reduce."""
    flow = _flow()
    nn = flow.nn
    X, Y = _data(shape=(8,), out=4)
    flow.manual_seed(0)
    layers = [nn.Linear(8, 32), nn.Tanh(), nn.Linear(32, 32), nn.Tanh(), nn.Linear(32, 32), nn.Tanh(), nn.Linear(32, 4)]
    model = nn.Sequential(*layers)
    ddp = _ddp(model, bucket_cap_mb=1e-6)  # one bucket per parameter
    trace = ddp._trace = []
    observed = {}

    def first_weight_hook(grad):
        deadline = time.monotonic() + 60
        while ("allreduce_done", 0) not in trace and time.monotonic() < deadline:
            time.sleep(0.001)
        observed["bucket 0 done"] = ("allreduce_done", 0) in trace
        observed["finalized"] = ("finalize",) in trace

    model[0].weight.register_hook(first_weight_hook)
    rows = list(range(ctx.rank, N_SAMPLES, ctx.world))[:4]
    for step in range(2):  # the second after the buckets were rebuilt in arrival order
        trace.clear()
        observed.clear()
        model.zero_grad()
        _mse(ddp(X[rows]), Y[rows]).backward()
        n = len(ddp._buckets)
        ctx.fails.true(f"step {step}: buckets", n == 8, f"{n} buckets")
        ctx.fails.true(f"step {step}: bucket 0 done inside backward", observed.get("bucket 0 done") is True
                       and observed.get("finalized") is False, str(observed))
        grads = [i for i, e in enumerate(trace) if e[0] == "grad"]
        launch0 = trace.index(("launch", 0)) if ("launch", 0) in trace else len(trace)
        ctx.fails.true(f"step {step}: launch before the last gradient", launch0 < grads[-1], str(trace))
        launches = [e[1] for e in trace if e[0] == "launch"]
        ctx.fails.true(f"step {step}: launched in bucket order", launches == list(range(n)), str(launches))
        done = [e[1] for e in trace if e[0] == "allreduce_done"]
        ctx.fails.true(f"step {step}: finalize last", trace[-1] == ("finalize",) and sorted(done) == list(range(n)),
                       str(trace))

    flow.manual_seed(0)
    ref = nn.Sequential(nn.Linear(8, 32), nn.Tanh(), nn.Linear(32, 32), nn.Tanh(), nn.Linear(32, 32), nn.Tanh(),
                        nn.Linear(32, 4))
    for r in range(ctx.world):
        idx = list(range(r, N_SAMPLES, ctx.world))[:4]
        (_mse(ref(X[idx]), Y[idx]) / ctx.world).backward()
    for (name, p), q in zip(model.named_parameters(), ref.parameters()):
        ctx.fails.close(f"grad {name} when backward returns", p.grad.numpy(), q.grad.numpy())


@check()
def autograd_grad_and_errors(ctx: Ctx):
    """autograd.grad through a DDP output neither reduces nor touches .grad; bad arguments and
    different models on different ranks raise on every rank."""
    flow = _flow()
    X, _ = _data()
    flow.manual_seed(0)
    model = _mlp()
    ddp = _ddp(model)
    rows = list(range(ctx.rank, N_SAMPLES, ctx.world))[:3]
    grads = flow.autograd.grad(ddp(X[rows]).sum(), list(model.parameters()))
    flow.manual_seed(0)
    local = _mlp()
    local(X[rows]).sum().backward()
    for g, q in zip(grads, local.parameters()):
        ctx.fails.close("autograd.grad is local", g.numpy(), q.grad.numpy())
    ctx.fails.true("autograd.grad leaves .grad", all(p.grad is None for p in model.parameters()), "")
    ddp(X[rows]).sum().backward()  # a normal synchronized step still works
    _same_on_all_ranks(ctx, "grads after autograd.grad", [p.grad for p in model.parameters()])

    def raises(name, exc, fn, text):
        try:
            fn()
            ctx.fails.true(name, False, "no error")
        except exc as e:
            ctx.fails.true(name, text in str(e), str(e))

    raises("device_ids on CPU", ValueError, lambda: _ddp(_mlp(), device_ids=[0]), "device_ids")
    raises("no parameter needs grad", RuntimeError, lambda: _ddp(_mlp().requires_grad_(False)), "doesn't have any")
    raises("bucket_cap_mb", ValueError, lambda: _ddp(_mlp(), bucket_cap_mb=0), "bucket_cap_mb")
    if ctx.world > 1:
        nn = flow.nn
        raises("different models", RuntimeError, lambda: _ddp(nn.Linear(3, 2 if ctx.rank == 0 else 3)),
               "same model on every rank")


def worker_main() -> None:
    import oneflow.distributed as dist

    world = int(os.environ["WORLD_SIZE"])
    rank = int(os.environ["RANK"])
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=COMM_TIMEOUT))
    for name, (fn, worlds) in CHECKS.items():
        if world not in worlds:
            continue
        ctx = Ctx(rank, world)
        res = {"check": name, "rank": rank}
        crashed = False
        try:
            fn(ctx)
            res["ok"] = not ctx.fails.items
            res["error"] = "; ".join(ctx.fails.items)[:3000]
        except BaseException as e:
            crashed = True
            res["ok"] = False
            res["error"] = f"{type(e).__name__}: {e}\n{traceback.format_exc()[-2000:]}"
        # One write per line: the ranks share the launcher's stdout.
        sys.stdout.write("RESULT " + json.dumps(res) + "\n")
        sys.stdout.flush()
        if crashed:
            sys.exit(1)  # the ranks may be out of step: the remaining checks would only time out
    dist.barrier()


# ---- the pytest side ------------------------------------------------------------------------------


def _child_env() -> dict:
    """This process's import path for the children, with the script's own directory not put
    first (under Bazel it would be the source tree)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    env["PYTHONSAFEPATH"] = "1"
    env.pop("OMP_NUM_THREADS", None)
    return env


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@functools.cache
def _world_results(nproc: int) -> dict:
    cmd = [sys.executable, "-m", "oneflow.distributed.launch", "--nproc_per_node", str(nproc), "--master_port",
           str(_free_port()), os.path.abspath(__file__), "worker"]
    start = time.time()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=240, env=_child_env())
        code, out, err = proc.returncode, proc.stdout, proc.stderr
    except subprocess.TimeoutExpired as e:
        code = "timeout"
        out = e.stdout.decode() if isinstance(e.stdout, bytes) else e.stdout or ""
        err = e.stderr.decode() if isinstance(e.stderr, bytes) else e.stderr or ""
    by_check: dict = {"__run__": f"launcher exit {code} after {time.time() - start:.1f} s\nstdout tail:\n"
                                 f"{out[-3000:]}\nstderr tail:\n{err[-5000:]}"}
    for line in out.splitlines():
        if line.startswith("RESULT "):
            res = json.loads(line[len("RESULT "):])
            by_check.setdefault(res["check"], {})[res["rank"]] = res
    by_check["__code__"] = code
    return by_check


CASES = [(n, name) for n in WORLDS for name, (_, worlds) in CHECKS.items() if n in worlds]


@pytest.mark.parametrize("nproc,name", CASES, ids=[f"{n}ranks-{name}" for n, name in CASES])
def test_ddp(nproc: int, name: str) -> None:
    by_check = _world_results(nproc)
    got = by_check.get(name, {})
    assert len(got) == nproc, f"{name}: {len(got)} of {nproc} ranks reported\n{by_check['__run__']}"
    failed = [f"rank {r}: {res['error']}" for r, res in sorted(got.items()) if not res["ok"]]
    assert not failed, "\n".join(failed)


@pytest.mark.parametrize("nproc", WORLDS)
def test_launcher_exit_code(nproc: int) -> None:
    by_check = _world_results(nproc)
    assert by_check["__code__"] == 0, by_check["__run__"]


def _plugin_free_path() -> str:
    """sys.path without the entries that hold oneflow/nn/parallel (the oneflow-distributed package)."""
    keep = [p for p in sys.path if p and not os.path.isdir(os.path.join(p, "oneflow", "nn", "parallel"))]
    return os.pathsep.join(keep)


def test_attribute_and_lazy_import() -> None:
    """flow.nn.parallel works without importing it, and `import oneflow` does not load it."""
    code = (
        "import sys, oneflow as flow\n"
        "assert 'oneflow.nn.parallel' not in sys.modules and 'oneflow.distributed' not in sys.modules\n"
        "from oneflow.nn.parallel import DistributedDataParallel as D\n"
        "assert flow.nn.parallel.DistributedDataParallel is D\n"
        "assert flow.nn.parallel.distributed.DistributedDataParallel is D\n"
        "print('ok')\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=_child_env(), timeout=120)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr


def test_missing_plugin_message() -> None:
    """Without the oneflow-distributed package, flow.nn.parallel names the wheel to install."""
    env = _child_env()
    env["PYTHONPATH"] = _plugin_free_path()
    code = (
        "import oneflow as flow\n"
        "for get in (lambda: flow.nn.parallel, lambda: __import__('oneflow.nn', fromlist=['parallel']).parallel):\n"
        "    try:\n"
        "        get()\n"
        "    except ImportError as e:\n"
        "        print(e)\n"
        "try:\n"
        "    from oneflow.nn import parallel\n"
        "except ImportError as e:\n"
        "    print(e)\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.strip().splitlines()
    assert len(lines) == 3 and all("oneflow-distributed" in line and "DistributedDataParallel" in line
                                   for line in lines), r.stdout


def test_needs_process_group() -> None:
    import oneflow as flow

    with pytest.raises(RuntimeError, match="init_process_group"):
        flow.nn.parallel.DistributedDataParallel(flow.nn.Linear(2, 2))


if __name__ == "__main__" and sys.argv[1:] == ["worker"]:
    worker_main()
