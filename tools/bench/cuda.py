"""oneflow against torch on the same GPU, in the same process: per-op eager overhead, GEMM
throughput, and a GPT-2-small training step (fp32, then bf16 autocast).

    python3 tools/bench/cuda.py [--quick]

Needs a GPU and a CUDA build of oneflow (the lent device machines: tools/cuda/device_build.sh).
Prints the GPU, then one line per case: ours, torch, and torch / ours (above 1: ours faster).
Every case runs both frameworks interleaved, after warm-up, timed with a device synchronize.
"""

from __future__ import annotations

import argparse
import math
import time
import traceback

import numpy as np
import torch

import oneflow as flow

try:  # the CPU line every benchmark prints (absent where tools/bench is not on the path)
    import machine
except ImportError:  # pragma: no cover
    machine = None


def sync(lib):
    lib.cuda.synchronize()


def timed(lib, fn, iters):
    fn()
    sync(lib)
    t0 = time.perf_counter()
    for _ in range(iters):
        fn()
    sync(lib)
    return (time.perf_counter() - t0) / iters


def best_of(lib, fn, iters, repeats=3):
    return min(timed(lib, fn, iters) for _ in range(repeats))


def row(name, ours, theirs, unit="us", scale=1e6):
    print(
        f"{name:<44} ours {ours * scale:10.2f} {unit}   torch {theirs * scale:10.2f} {unit}   "
        f"torch/ours {theirs / ours:5.2f}",
        flush=True,
    )


# ---- per-op overhead ----------------------------------------------------------------------


def overhead(iters):
    print("# per-op eager cost (small tensors: launch + dispatch overhead)")
    for shape in [(1,), (64, 64)]:
        a = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
        fx, fy = flow.tensor(a).cuda(), flow.tensor(a).cuda()
        tx, ty = torch.tensor(a).cuda(), torch.tensor(a).cuda()
        cases = {
            "add": (lambda: fx + fy, lambda: tx + ty),
            "mul scalar": (lambda: fx * 2.0, lambda: tx * 2.0),
            "relu": (lambda: flow.relu(fx), lambda: torch.relu(tx)),
            "sum": (lambda: fx.sum(), lambda: tx.sum()),
        }
        if len(shape) == 2:
            cases["mm"] = (lambda: flow.mm(fx, fy), lambda: torch.mm(tx, ty))
            cases["softmax"] = (lambda: flow.softmax(fx, dim=-1), lambda: torch.softmax(tx, dim=-1))
        for name, (ours, theirs) in cases.items():
            row(f"{name} {shape}", best_of(flow, ours, iters), best_of(torch, theirs, iters))


# ---- GEMM ---------------------------------------------------------------------------------------


def gemm(n, iters):
    print(f"# GEMM {n}x{n}x{n} (TFLOP/s; fp32 without TF32 in both)")
    torch.backends.cuda.matmul.allow_tf32 = False
    for fdt, tdt in [(flow.float32, torch.float32), (flow.bfloat16, torch.bfloat16), (flow.float16, torch.float16)]:
        a = flow.randn(n, n, device="cuda").to(fdt)
        b = flow.randn(n, n, device="cuda").to(fdt)
        ta = torch.randn(n, n, device="cuda", dtype=tdt)
        tb = torch.randn(n, n, device="cuda", dtype=tdt)
        ours = best_of(flow, lambda: flow.mm(a, b), iters)
        theirs = best_of(torch, lambda: torch.mm(ta, tb), iters)
        flops = 2 * n**3
        print(
            f"{str(tdt):<44} ours {flops / ours / 1e12:8.1f} TFLOP/s   torch {flops / theirs / 1e12:8.1f} "
            f"TFLOP/s   torch/ours {theirs / ours:5.2f}",
            flush=True,
        )


# ---- GPT-2 small training step ------------------------------------------------------------------


def make_gpt(lib, vocab, d, layers, heads, seq):
    nn = lib.nn

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
            self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
            self.fc, self.out = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)
            self.act = nn.GELU(approximate="tanh")

        def forward(self, x, mask):
            b, t, _ = x.shape
            q, k, v = self.qkv(self.ln1(x)).split(d, dim=-1)
            q = q.reshape(b, t, heads, d // heads).transpose(1, 2)
            k = k.reshape(b, t, heads, d // heads).transpose(1, 2)
            v = v.reshape(b, t, heads, d // heads).transpose(1, 2)
            att = lib.softmax(q @ k.transpose(-2, -1) * (1.0 / math.sqrt(d // heads)) + mask, dim=-1)
            y = (att @ v).transpose(1, 2).reshape(b, t, d)
            x = x + self.proj(y)
            return x + self.out(self.act(self.fc(self.ln2(x))))

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.wte, self.wpe = nn.Embedding(vocab, d), nn.Embedding(seq, d)
            self.blocks = nn.ModuleList([Block() for _ in range(layers)])
            self.ln = nn.LayerNorm(d)
            self.head = nn.Linear(d, vocab, bias=False)

        def forward(self, idx, pos, mask):
            x = self.wte(idx) + self.wpe(pos)
            for blk in self.blocks:
                x = blk(x, mask)
            return self.head(self.ln(x))

    return GPT()


def gpt_step(lib, cfg, steps, amp):
    vocab, d, layers, heads, seq, batch = cfg
    lib.manual_seed(0)
    model = make_gpt(lib, vocab, d, layers, heads, seq).cuda()
    opt = lib.optim.AdamW(model.parameters(), lr=1e-4)
    rng = np.random.default_rng(0)
    idx = lib.tensor(rng.integers(0, vocab, (batch, seq))).cuda()
    pos = lib.arange(seq).cuda()
    mask = lib.triu(lib.full((seq, seq), float("-inf")), diagonal=1).cuda()
    nparams = sum(p.numel() for p in model.parameters())

    def step():
        if amp:
            with lib.autocast("cuda", dtype=lib.bfloat16):
                logits = model(idx, pos, mask)
        else:
            logits = model(idx, pos, mask)
        loss = lib.nn.functional.cross_entropy(logits.float().reshape(-1, vocab), idx.reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss

    for _ in range(2):
        step()
    sync(lib)
    t0 = time.perf_counter()
    for _ in range(steps):
        loss = step()
    sync(lib)
    dt = (time.perf_counter() - t0) / steps
    return dt, float(loss.item()), nparams


def make_resnet50(lib, classes=1000):
    nn = lib.nn

    class Bottleneck(nn.Module):
        def __init__(self, cin, width, stride):
            super().__init__()
            cout = width * 4
            self.body = nn.Sequential(
                nn.Conv2d(cin, width, 1, bias=False),
                nn.BatchNorm2d(width),
                nn.ReLU(),
                nn.Conv2d(width, width, 3, stride=stride, padding=1, bias=False),
                nn.BatchNorm2d(width),
                nn.ReLU(),
                nn.Conv2d(width, cout, 1, bias=False),
                nn.BatchNorm2d(cout),
            )
            self.down = None
            if stride != 1 or cin != cout:
                self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride=stride, bias=False), nn.BatchNorm2d(cout))
            self.relu = nn.ReLU()

        def forward(self, x):
            return self.relu(self.body(x) + (x if self.down is None else self.down(x)))

    layers = [
        nn.Conv2d(3, 64, 7, stride=2, padding=3, bias=False),
        nn.BatchNorm2d(64),
        nn.ReLU(),
        nn.MaxPool2d(3, stride=2, padding=1),
    ]
    cin = 64
    for width, blocks, stride in [(64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)]:
        for i in range(blocks):
            layers.append(Bottleneck(cin, width, stride if i == 0 else 1))
            cin = width * 4
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(cin, classes)]
    return nn.Sequential(*layers)


def resnet_step(lib, batch, steps, size):
    lib.manual_seed(0)
    model = make_resnet50(lib).cuda()
    opt = lib.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    x = lib.randn(batch, 3, size, size).cuda()
    t = lib.tensor(np.random.default_rng(0).integers(0, 1000, batch)).cuda()

    def step():
        loss = lib.nn.functional.cross_entropy(model(x), t)
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss

    step()
    sync(lib)
    t0 = time.perf_counter()
    for _ in range(steps):
        loss = step()
    sync(lib)
    return (time.perf_counter() - t0) / steps, float(loss.item())


def resnet(steps, quick):
    batch, size = (4, 64) if quick else (64, 224)
    print(f"# ResNet-50 training step (fp32, no TF32 in either), batch {batch}, {size}x{size}, SGD momentum")
    torch.backends.cudnn.allow_tf32 = False
    try:
        ours, lo = resnet_step(flow, batch, steps, size)
        theirs, lt = resnet_step(torch, batch, steps, size)
    except Exception:
        print(f"resnet50: failed\n{traceback.format_exc(limit=3)}", flush=True)
        return
    print(
        f"{'resnet50 step fp32':<44} ours {ours * 1e3:8.1f} ms ({batch / ours:7.0f} img/s)   torch "
        f"{theirs * 1e3:8.1f} ms ({batch / theirs:7.0f} img/s)   torch/ours {theirs / ours:5.2f}   "
        f"loss {lo:.3f} vs {lt:.3f}",
        flush=True,
    )


def profile_gpt(quick):
    """Our GPT step under the op profiler with blocking launches, so each op's time is its GPU
    time (set CUDA_LAUNCH_BLOCKING=1 before starting Python)."""
    cfg = (50304, 768, 12, 12, 512, 8) if not quick else (1024, 128, 2, 4, 64, 4)
    for amp in (False, True):
        gpt_step(flow, cfg, 1, amp)
        with flow.profiler.profile() as prof:
            gpt_step(flow, cfg, 1, amp)
        print(f"# profile of our GPT step ({'bf16 autocast' if amp else 'fp32'}; warm-up steps included)")
        print(prof.key_averages().table(row_limit=28), flush=True)


def gpt(steps, quick):
    cfg = (50304, 768, 12, 12, 512, 8) if not quick else (1024, 128, 2, 4, 64, 4)
    vocab, d, layers, heads, seq, batch = cfg
    print(f"# GPT-2 small training step: {layers} layers, d={d}, seq {seq}, batch {batch}, AdamW")
    for amp in (False, True):
        name = "bf16 autocast" if amp else "fp32"
        try:
            ours, loss_ours, n = gpt_step(flow, cfg, steps, amp)
            theirs, loss_theirs, _ = gpt_step(torch, cfg, steps, amp)
        except Exception:
            print(f"{name}: failed\n{traceback.format_exc(limit=3)}", flush=True)
            continue
        tokens = batch * seq
        flops = 6 * n * tokens + 12 * layers * d * seq * tokens  # PaLM's estimate with attention
        print(
            f"{'gpt2 step ' + name:<44} ours {ours * 1e3:8.1f} ms ({tokens / ours:9.0f} tok/s, "
            f"{flops / ours / 1e12:6.1f} TFLOP/s)   torch {theirs * 1e3:8.1f} ms   torch/ours {theirs / ours:5.2f}"
            f"   loss {loss_ours:.3f} vs {loss_theirs:.3f}",
            flush=True,
        )


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--profile", action="store_true", help="only the GPT step's op profile")
    args = parser.parse_args()
    if args.profile:
        profile_gpt(args.quick)
        return
    if machine is not None:
        print(machine.describe(), flush=True)
    schemas = flow._C._op_schemas()
    with_cuda = sum("cuda" in flow._C.op_info(s.split("(")[0])["kernels"] for s in schemas)
    print(
        f"# GPU: {torch.cuda.get_device_name(0)}; torch {torch.__version__}; "
        f"oneflow CUDA kernels: {with_cuda} of {len(schemas)} ops",
        flush=True,
    )
    for fn in (
        lambda: overhead(200 if args.quick else 2000),
        lambda: gemm(1024 if args.quick else 8192, 3 if args.quick else 20),
        lambda: gpt(2 if args.quick else 10, args.quick),
        lambda: resnet(2 if args.quick else 5, args.quick),
    ):
        try:
            fn()
        except Exception:
            traceback.print_exc()


if __name__ == "__main__":
    main()
