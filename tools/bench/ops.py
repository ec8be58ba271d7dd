"""nn op speed: oneflow against torch, in one process (time ratio per case).

Same method as eager_overhead.py (interleaved runs, medians), on the shapes
the models use: ResNet convolutions, transformer norms/softmax/GELU/GEMMs,
embedding and the LM-head cross entropy, attention.

    ./tools/bazel run //tools/bench:ops -- --repeats 5 --min_time 0.3

The header names the CPU and the instruction set the kernels ran with. The AVX2 (or baseline)
rows of an AVX-512 machine come from a second run with the kernels pinned:

    ONEFLOW_VEC_ISA=avx2 ./tools/bazel run //tools/bench:ops -- --cases softmax_fwd softmax_fwd_bwd
"""

from __future__ import annotations

import argparse

import numpy as np
import torch
from eager_overhead import Case, format_row, measure
from machine import describe

import oneflow as flow


def F(m):
    return m.nn.functional


def _grad_step(m, inputs, forward):
    """forward(*inputs) then backward of its sum; returns output and input grads."""
    def step():
        for t in inputs:
            t.grad = None
        out = forward(*inputs)
        out.sum().backward()
        return (out, *[t.grad for t in inputs])

    return step


def _conv(stride, padding, backward):
    def make(m, x, w):
        x, w = m.tensor(x), m.tensor(w)
        if not backward:
            return lambda: (F(m).conv2d(x, w, stride=stride, padding=padding),)
        x.requires_grad_()
        w.requires_grad_()
        return _grad_step(m, [x, w], lambda a, b: F(m).conv2d(a, b, stride=stride, padding=padding))

    return make


def _layer_norm(backward):
    def make(m, x, w, b):
        x, w, b = m.tensor(x), m.tensor(w), m.tensor(b)
        fwd = lambda a, g, h: F(m).layer_norm(a, (768,), g, h)
        if not backward:
            return lambda: (fwd(x, w, b),)
        for t in (x, w, b):
            t.requires_grad_()
        return _grad_step(m, [x, w, b], fwd)

    return make


def _unary(name, backward=False):
    def make(m, x):
        x = m.tensor(x)
        f = getattr(m, name) if name == "exp" else getattr(F(m), name)
        fn = (lambda a: f(a, -1)) if name in ("softmax", "log_softmax") else f
        if not backward:
            return lambda: (fn(x),)
        x.requires_grad_()
        return _grad_step(m, [x], fn)

    return make


def _matmul(m, a, b):
    a, b = m.tensor(a), m.tensor(b)
    return lambda: (m.matmul(a, b),)


def _rfft(backward):
    def make(m, x):
        x = m.tensor(x)
        fn = lambda a: m.fft.rfft(a).abs()  # the magnitude: a real output on both sides
        if not backward:
            return lambda: (fn(x),)
        x.requires_grad_()
        return _grad_step(m, [x], fn)

    return make


def _embedding(m, idx, w):
    idx, w = m.tensor(idx).long(), m.tensor(w).requires_grad_()
    return _grad_step(m, [w], lambda weight: F(m).embedding(idx, weight))


def _cross_entropy(backward):
    def make(m, logits, target):
        logits, target = m.tensor(logits), m.tensor(target).long()
        if not backward:
            return lambda: (F(m).cross_entropy(logits, target),)
        logits.requires_grad_()
        return _grad_step(m, [logits], lambda z: F(m).cross_entropy(z, target))

    return make


def _sdpa(m, q, k, v):
    q, k, v = m.tensor(q), m.tensor(k), m.tensor(v)
    return lambda: (F(m).scaled_dot_product_attention(q, k, v, is_causal=True),)


def _adam(amsgrad, dtype):
    """One Adam(W) step over a group of parameters: our fused kernel against torch's."""
    def make(m, *arrays):
        params = []
        for a in arrays:
            p = m.tensor(a.astype(dtype)).requires_grad_()
            p.grad = m.tensor((a * 0.5 + 0.1).astype(dtype))
            params.append(p)
        kwargs = {"fused": True} if m is torch else {}
        opt = (m.optim.Adam(params, lr=1e-3, weight_decay=1e-2, amsgrad=True, **kwargs) if amsgrad
               else m.optim.AdamW(params, lr=1e-3, weight_decay=1e-2, **kwargs))

        def step():
            opt.step()
            return tuple(params)

        return step

    return make


def _cdist(m, a, b):
    a, b = m.tensor(a), m.tensor(b)
    return lambda: (m.cdist(a, b),)


def _repeat_interleave(m, x, repeats):
    x, repeats = m.tensor(x), m.tensor(repeats)
    return lambda: (m.repeat_interleave(x, repeats, dim=0),)


def _scatter_reduce(reduce):
    """Rows of src reduced into 1024 buckets (a GNN's message aggregation), include_self=False."""
    def make(m, index, src):
        index, src = m.tensor(index).long(), m.tensor(src)
        index = index[:, None].expand(-1, src.shape[1])
        out = m.zeros(1024, src.shape[1])
        return lambda: (out.scatter_reduce(0, index, src, reduce=reduce, include_self=False),)

    return make


def _lbfgs(m, x, y, w1, w2):
    """One L-BFGS step (20 iterations, no line search) on a 64-128-1 tanh MLP from fixed weights."""
    x, y = m.tensor(x), m.tensor(y)[:, None]
    model = m.nn.Sequential(m.nn.Linear(64, 128), m.nn.Tanh(), m.nn.Linear(128, 1))
    start = [m.tensor(w1), m.zeros(128), m.tensor(w2), m.zeros(1)]

    def step():
        with m.no_grad():
            for p, p0 in zip(model.parameters(), start):
                p.copy_(p0)
        opt = m.optim.LBFGS(model.parameters(), lr=0.5, max_iter=20, tolerance_grad=0, tolerance_change=0)

        def closure():
            opt.zero_grad()
            loss = m.nn.functional.mse_loss(model(x), y)
            loss.backward()
            return loss

        return (opt.step(closure), *model.parameters())

    return step


# A GPT-2 block's weights (7.1M values).
_BLOCK_WEIGHTS = ((768, 2304), (768, 768), (768, 3072), (3072, 768), (3072,), (768,))


def _uniform(*shapes):
    return lambda rng: [rng.uniform(-1, 1, s).astype(np.float32) for s in shapes]


def _ints(shape, high, *more_shapes):
    return lambda rng: [rng.integers(0, high, shape).astype(np.int64),
                        *[rng.uniform(-1, 1, s).astype(np.float32) for s in more_shapes]]


def _ce_arrays(rng):
    return [rng.uniform(-1, 1, (4096, 50257)).astype(np.float32), rng.integers(0, 50257, (4096,))]


CASES = [
    Case("conv3x3_64_fwd", _conv(1, 1, False), _uniform((8, 64, 56, 56), (64, 64, 3, 3))),
    Case("conv3x3_64_fwd_bwd", _conv(1, 1, True), _uniform((8, 64, 56, 56), (64, 64, 3, 3))),
    Case("conv7x7_s2_fwd", _conv(2, 3, False), _uniform((8, 3, 224, 224), (64, 3, 7, 7))),
    Case("layer_norm_fwd", _layer_norm(False), _uniform((8, 512, 768), (768,), (768,))),
    Case("layer_norm_fwd_bwd", _layer_norm(True), _uniform((8, 512, 768), (768,), (768,))),
    Case("softmax_fwd", _unary("softmax"), _uniform((8, 12, 512, 512))),
    Case("softmax_fwd_bwd", _unary("softmax", True), _uniform((8, 12, 512, 512))),
    Case("log_softmax_fwd", _unary("log_softmax"), _uniform((8, 12, 512, 512))),
    Case("log_softmax_fwd_bwd", _unary("log_softmax", True), _uniform((8, 12, 512, 512))),
    Case("exp_softmax_shape", _unary("exp"), _uniform((8, 12, 512, 512))),  # softmax's floor
    Case("gelu_fwd", _unary("gelu"), _uniform((8, 512, 3072))),
    Case("gelu_fwd_bwd", _unary("gelu", True), _uniform((8, 512, 3072))),
    Case("matmul_4096x768x3072", _matmul, _uniform((4096, 768), (768, 3072))),
    Case("bmm_attention", _matmul, _uniform((96, 512, 64), (96, 64, 512))),
    Case("embedding_fwd_bwd", _embedding, _ints((4, 128), 50257, (50257, 768))),
    Case("cross_entropy_fwd", _cross_entropy(False), _ce_arrays),
    Case("cross_entropy_fwd_bwd", _cross_entropy(True), _ce_arrays),
    Case("adamw_step", _adam(False, np.float32), _uniform(*_BLOCK_WEIGHTS)),
    Case("adam_amsgrad_f64_step", _adam(True, np.float64), _uniform(*_BLOCK_WEIGHTS)),
    Case("cdist_1024x1024x64", _cdist, _uniform((1024, 64), (1024, 64))),
    Case("repeat_interleave", _repeat_interleave, lambda rng: [rng.uniform(-1, 1, (4096, 64)).astype(np.float32),
                                                               rng.integers(0, 5, 4096)]),
    Case("scatter_reduce_sum", _scatter_reduce("sum"), _ints((65536,), 1024, (65536, 64))),
    Case("scatter_reduce_amax", _scatter_reduce("amax"), _ints((65536,), 1024, (65536, 64))),
    Case("lbfgs_step_mlp", _lbfgs, lambda rng: [rng.uniform(-1, 1, s).astype(np.float32)
                                                for s in ((512, 64), (512,), (128, 64), (1, 128))]),
    Case("rfft_64x4096_fwd", _rfft(False), _uniform((64, 4096))),
    Case("rfft_64x4096_fwd_bwd", _rfft(True), _uniform((64, 4096))),
    Case("rfft_64x1000_fwd", _rfft(False), _uniform((64, 1000))),  # Bluestein length
    Case("sdpa_causal_fwd", _sdpa, _uniform((8, 12, 512, 64), (8, 12, 512, 64), (8, 12, 512, 64))),
]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=5, help="interleaved runs per framework")
    parser.add_argument("--min_time", type=float, default=0.3, help="seconds per run")
    parser.add_argument("--cases", nargs="*", default=None, help="names of the cases to run")
    args = parser.parse_args(argv)
    print(f"{describe()}; torch {torch.__version__}, {torch.get_num_threads()} threads, "
          f"oneflow {flow.get_num_threads()} threads; median of {args.repeats} interleaved runs")
    print(f"{'case':<24} {'oneflow us':>12} {'torch us':>12} {'ratio':>8}")
    for case in CASES:
        if args.cases and case.name not in args.cases:
            continue
        try:
            ours, theirs = measure(case, args.repeats, args.min_time)
        except (AttributeError, NotImplementedError, RuntimeError, TypeError) as e:
            print(f"{case.name:<24} not run: {type(e).__name__}: {str(e)[:60]}", flush=True)
            continue
        print(format_row(case.name, ours, theirs), flush=True)


if __name__ == "__main__":
    main()
