"""Ops on global tensors on real processes (1-3 ranks, 1-D placements): for every sbp of every input,
forward values and input gradients equal one process's (1e-5), and the documented signatures
are the ones chosen. global_ops_2d_test.py runs the same cases on a 2x2 placement."""

import itertools
import os

import numpy as np
import pytest
from global_testing import Checks, assert_check, worker_main

import oneflow as flow
import oneflow.nn.functional as F

CHECKS = Checks()
B, P, S = flow.sbp.broadcast, flow.sbp.partial_sum, flow.sbp.split


def _inputs(specs, seed):
    rng = np.random.RandomState(seed)
    out = []
    for shape, kind in specs:
        if kind == "f":
            out.append(rng.randn(*shape).astype(np.float32))
        elif kind == "pos":
            out.append((rng.rand(*shape) + 0.5).astype(np.float32))
        else:  # "i:N": int64 in [0, N)
            out.append(rng.randint(0, int(kind[2:]), size=shape).astype(np.int64))
    return out


def _sbp_options(shape, kind, two_d):
    opts = [S(d) for d in range(len(shape))] + [B]
    if kind != "i" and not kind.startswith("i:"):
        opts.append(P)
    return list(itertools.product(opts, repeat=2)) if two_d else [(s,) for s in opts]


def _bs(t):
    return tuple(B for _ in t.sbp)


def _first(out):
    return out[0] if isinstance(out, (tuple, list)) else out


def run_case(f, placement, name, fn, specs, two_d=False, limit=None, atol=1e-5):
    arrays = _inputs(specs, seed=len(name))
    floats = [k in ("f", "pos") for _, k in specs]
    ref_in = [flow.tensor(a, requires_grad=fl) for a, fl in zip(arrays, floats)]
    ref = _first(fn(*ref_in))
    w = np.asarray(np.random.RandomState(7).randn(*tuple(ref.shape)), dtype=np.float32)
    if any(floats):
        (ref * flow.tensor(w)).sum().backward()
    combos = list(itertools.product(*[_sbp_options(s, k, two_d) for s, k in specs]))
    if limit is not None and len(combos) > limit:
        picks = np.random.RandomState(len(name)).choice(len(combos), limit, replace=False)
        combos = [combos[i] for i in sorted(picks)]
    bsbp = (B, B) if two_d else (B,)
    for combo in combos:
        label = f"{name} {[tuple(s.short() for s in c) for c in combo]}"
        try:
            xs = [flow.tensor(a, placement=placement, sbp=c, requires_grad=fl)
                  for a, c, fl in zip(arrays, combo, floats)]
            out = _first(fn(*xs))
            f.true(label + " global", out.is_global and tuple(out.shape) == tuple(ref.shape), f"{out.shape}")
            f.close(label, out.detach().numpy(), ref.detach().numpy(), atol=atol, rtol=atol)
            if any(floats):
                (out * flow.tensor(w, placement=placement, sbp=bsbp)).sum().backward()
                for i, (x, r) in enumerate(zip(xs, ref_in)):
                    if floats[i] and r.grad is not None:
                        f.close(f"{label} grad{i}", x.grad.numpy(), r.grad.numpy(), atol=atol, rtol=atol)
        except Exception as e:
            f.error(label, e)


# name -> (fn, input specs)
CASES = {
    "add": (lambda a, b: a + b, [((4, 6), "f"), ((4, 6), "f")]),
    "sub_broadcast": (lambda a, b: a - b, [((4, 6), "f"), ((6,), "f")]),
    "mul_broadcast": (lambda a, b: a * b, [((3, 1, 5), "f"), ((4, 5), "f")]),
    "div_scalar_pow": (lambda a: (a / 3 + 1) ** 2, [((5, 4), "f")]),
    "where": (lambda c, a, b: flow.where(c > 0, a, b), [((4, 5), "f"), ((4, 5), "f"), ((5,), "f")]),
    "unary_chain": (lambda a: a.exp().tanh() + a.sigmoid() * a.relu(), [((5, 3), "f")]),
    "gelu_silu": (lambda a: F.gelu(a) + F.silu(a), [((3, 7), "f")]),
    "matmul": (lambda a, b: a @ b, [((5, 6), "f"), ((6, 4), "f")]),
    "bmm": (lambda a, b: flow.bmm(a, b), [((3, 4, 5), "f"), ((3, 5, 2), "f")]),
    "matmul_batched_broadcast": (lambda a, b: flow.matmul(a, b), [((2, 3, 4), "f"), ((4, 5), "f")]),
    "linear_bias": (lambda x, w, b: F.linear(x, w, b), [((5, 6), "f"), ((3, 6), "f"), ((3,), "f")]),
    "softmax": (lambda a: flow.softmax(a, dim=-1), [((4, 6), "f")]),
    "log_softmax": (lambda a: F.log_softmax(a, dim=0), [((4, 6), "f")]),
    "sum_all": (lambda a: a.sum(), [((5, 4), "f")]),
    "sum_dim": (lambda a: a.sum(dim=1, keepdim=True), [((5, 4), "f")]),
    "mean_all": (lambda a: a.mean(), [((5, 4), "f")]),
    "mean_dim": (lambda a: a.mean(dim=0), [((5, 4), "f")]),
    "amax_dim": (lambda a: a.amax(dim=1), [((5, 4), "f")]),
    "max_dim": (lambda a: a.max(dim=0)[0], [((5, 4), "f")]),
    "var_dim": (lambda a: a.var(dim=1), [((5, 4), "f")]),
    "reshape": (lambda a: a.reshape(3, 8) * 2, [((4, 6), "f")]),
    "view_flatten": (lambda a: a.flatten(1).view(-1, 4), [((4, 2, 3), "f")]),
    "transpose_permute": (lambda a: a.permute(2, 0, 1).transpose(0, 1), [((2, 3, 4), "f")]),
    "unsqueeze_squeeze_expand": (lambda a: a.expand(4, 3, 5).unsqueeze(0).squeeze(0) * a.squeeze(1).unsqueeze(1),
                                 [((4, 1, 5), "f")]),
    "cat": (lambda a, b: flow.cat([a, b], dim=1), [((4, 3), "f"), ((4, 2), "f")]),
    "stack": (lambda a, b: flow.stack([a, b], dim=1), [((4, 3), "f"), ((4, 3), "f")]),
    "split_chunk": (lambda a: flow.cat([t * (i + 1) for i, t in enumerate(a.chunk(2, dim=1))], 0), [((4, 6), "f")]),
    "getitem": (lambda a: a[1:, ::2] + a[0, ::2], [((5, 6), "f")]),
    "layer_norm": (lambda a, w, b: F.layer_norm(a, (6,), w, b), [((4, 6), "f"), ((6,), "f"), ((6,), "f")]),
    "embedding": (lambda w, i: F.embedding(i, w), [((7, 4), "f"), ((3, 5), "i:7")]),
    "cross_entropy": (lambda x, t: F.cross_entropy(x, t), [((6, 5), "f"), ((6,), "i:5")]),
    "cross_entropy_ignore": (lambda x, t: F.cross_entropy(x, t, ignore_index=1), [((6, 5), "f"), ((6,), "i:5")]),
    "cross_entropy_sum": (lambda x, t: F.cross_entropy(x, t, reduction="sum"), [((6, 5), "f"), ((6,), "i:5")]),
    "cross_entropy_weight_smoothing": (lambda x, t, w: F.cross_entropy(x, t, weight=w.abs() + 0.5, label_smoothing=0.1),
                                       [((6, 5), "f"), ((6,), "i:5"), ((5,), "f")]),
    "nll_loss_3d": (lambda x, t: F.nll_loss(F.log_softmax(x, 1), t), [((3, 4, 5), "f"), ((3, 5), "i:4")]),
    "mse_loss": (lambda a, b: F.mse_loss(a, b), [((4, 3), "f"), ((4, 3), "f")]),
    "batch_norm_eval": (lambda x, w, b: F.batch_norm(x, flow.zeros(3, placement=x.placement, sbp=_bs(x))
                                                     if x.is_global else flow.zeros(3),
                                                     flow.ones(3, placement=x.placement, sbp=_bs(x))
                                                     if x.is_global else flow.ones(3), w, b, training=False),
                        [((4, 3, 2), "f"), ((3,), "f"), ((3,), "f")]),
    "interpolate": (lambda x: F.interpolate(x, scale_factor=2, mode="bilinear"), [((2, 3, 3, 3), "f")]),
    "pad": (lambda x: F.pad(x, (1, 2)), [((3, 4), "f")]),
    "sdpa": (lambda q, k, v: F.scaled_dot_product_attention(q, k, v), [((2, 3, 4), "f"), ((2, 5, 4), "f"),
                                                                        ((2, 5, 4), "f")]),
    "embedding_padding": (lambda w, i: F.embedding(i, w, padding_idx=2), [((7, 4), "f"), ((3, 5), "i:7")]),
    "conv2d": (lambda x, w, b: F.conv2d(x, w, b, padding=1), [((2, 3, 5, 5), "f"), ((4, 3, 3, 3), "f"), ((4,), "f")]),
    "max_pool2d": (lambda x: F.max_pool2d(x, 2), [((2, 3, 4, 4), "f")]),
    "index_select": (lambda a, i: a.index_select(1, i), [((4, 5), "f"), ((3,), "i:5")]),
    "gather": (lambda a, i: a.gather(1, i), [((4, 5), "f"), ((4, 5), "i:5")]),
    "cumsum_sort": (lambda a: a.cumsum(dim=0) + a.sort(dim=1)[0], [((4, 5), "f")]),
    "clamp_maximum": (lambda a, b: flow.maximum(a.clamp(-0.5, 0.5), b), [((4, 5), "f"), ((4, 5), "f")]),
}
def _register(name, fn, specs):
    def one_d(f):
        n = flow.env.get_world_size()
        # Every combination on 2 ranks; a sample on 3 (uneven splits) and on 1.
        run_case(f, flow.placement("cpu", list(range(n))), name, fn, specs, limit=None if n == 2 else 16)

    one_d.__name__ = name
    CHECKS(worlds=[1, 2, 3])(one_d)


for _name, (_fn, _specs) in CASES.items():
    _register(_name, _fn, _specs)


@CHECKS(worlds=[2, 3])
def chosen_signatures(f):
    """The matmul and linear tables: which sbp each input pair gives, without moving data."""
    n = flow.env.get_world_size()
    pl = flow.placement("cpu", list(range(n)))
    a = flow.randn(6, 4, placement=pl, sbp=B)
    b = flow.randn(4, 5, placement=pl, sbp=B)
    table = [((S(0), B), S(0)), ((B, S(1)), S(1)), ((S(1), S(0)), P), ((P, B), P), ((B, P), P), ((B, B), B)]
    for (sa, sb), want in table:
        out = a.to_global(sbp=sa) @ b.to_global(sbp=sb)
        f.true(f"matmul {sa.short()},{sb.short()}", out.sbp == (want,), f"got {out.sbp}")
    x = flow.randn(6, 4, placement=pl, sbp=B)
    w = flow.randn(8, 4, placement=pl, sbp=S(0))  # column parallel: split output features
    y = F.linear(x, w)
    f.true("column parallel", y.sbp == (S(1),), f"got {y.sbp}")
    w2 = flow.randn(3, 8, placement=pl, sbp=S(1))  # row parallel: split input features
    z = F.linear(y, w2, flow.randn(3, placement=pl, sbp=B))
    f.true("row parallel", z.sbp == (P,), f"got {z.sbp}")
    s = flow.randn(6, 4, placement=pl, sbp=S(0))
    f.true("sum over split dim", s.sum(dim=0).sbp == (P,), f"got {s.sum(dim=0).sbp}")
    f.true("sum keeps split", s.sum(dim=1).sbp == (S(0),), f"got {s.sum(dim=1).sbp}")
    f.true("softmax keeps split", flow.softmax(s, dim=1).sbp == (S(0),), "")
    f.true("elementwise S(0)+S(0)", (s + s).sbp == (S(0),), "")
    f.true("P + P", (s.sum(0) + s.sum(0)).sbp == (P,), "")
    f.true("P * 2", (s.sum(0) * 2).sbp == (P,), "")
    f.true("P + 1 boxes", (s.sum(0) + 1).sbp in ((B,), (S(0),)), f"got {(s.sum(0) + 1).sbp}")
    e = F.embedding(flow.randint(0, 6, (5,), placement=pl, sbp=B), flow.randn(6, 3, placement=pl, sbp=S(0)))
    f.true("vocab-parallel embedding", e.sbp == (P,), f"got {e.sbp}")
    r = s.reshape(3, 2, 4)
    f.true("reshape keeps split", r.sbp == (S(0),) or n == 2, f"got {r.sbp}")


@CHECKS(worlds=[2])
def inplace_and_random(f):
    pl = flow.placement("cpu", [0, 1])
    x = flow.zeros(4, 3, placement=pl, sbp=S(0))
    x.add_(1).mul_(3)
    f.close("in place", x.numpy(), np.full((4, 3), 3.0))
    x.fill_(2)
    f.close("fill_", x.numpy(), np.full((4, 3), 2.0))
    p = flow.ones(4, 3, placement=pl, sbp=P)
    p.fill_(5)
    f.close("fill_ partial", p.numpy(), np.full((4, 3), 5.0))
    y = flow.zeros(4, 3, placement=pl, sbp=S(0))
    y[:, 1] = 7.0  # a view along an unsplit dim: written through
    y[:, 2] += 1.0
    want = np.zeros((4, 3))
    want[:, 1], want[:, 2] = 7.0, 1.0
    f.close("setitem", y.numpy(), want)
    try:
        y[0] = 1.0  # along the split dim: the view is of a gathered copy
        f.true("setitem along the split dim raises", False, "no error")
    except NotImplementedError as e:
        f.true("setitem message", "would not reach the base" in str(e), str(e))
    flow.manual_seed(3)
    ref = flow.empty(4, 6).normal_()
    flow.manual_seed(3)
    g = flow.empty(4, 6, placement=pl, sbp=S(1)).normal_()
    f.close("normal_ equals one process", g.numpy(), ref.numpy(), exact=True)
    flow.manual_seed(4)
    r1 = F.dropout(flow.ones(8, 8), 0.5)
    flow.manual_seed(4)
    r2 = F.dropout(flow.ones(8, 8, placement=pl, sbp=S(0)), 0.5)
    f.close("dropout equals one process", r2.numpy(), r1.numpy(), exact=True)
    f.true("dropout keeps the sbp", r2.sbp == (S(0),), str(r2.sbp))


@CHECKS(min_world=2)
def errors_on_every_rank(f):
    n = flow.env.get_world_size()
    pl = flow.placement("cpu", list(range(n)))
    x = flow.ones(4, placement=pl, sbp=B)
    try:
        x + flow.ones(4)
        f.true("mixing", False, "no error")
    except RuntimeError as e:
        f.true("mixing message", "local tensor" in str(e) and "add" in str(e), str(e))
    other = flow.ones(4, placement=flow.placement("cpu", [0]), sbp=B)
    try:
        x + other
        f.true("placements", False, "no error")
    except RuntimeError as e:
        f.true("placements message", "different placements" in str(e), str(e))
    try:
        x.as_strided((2,), (1,))
        f.true("as_strided", False, "no error")
    except NotImplementedError as e:
        f.true("as_strided message", "as_strided" in str(e), str(e))
    try:
        flow.ones(4, 2, placement=pl, sbp=P).index_put_([flow.tensor([0], placement=pl, sbp=B)],
                                                        flow.ones(2, placement=pl, sbp=B))
        f.true("in-place on partial", False, "no error")
    except NotImplementedError as e:
        f.true("in-place message", "index_put_" in str(e) and "(P)" in str(e), str(e))


SCRIPT = os.path.abspath(__file__)
TEST_CASES = CHECKS.cases()


@pytest.mark.parametrize("n,name", TEST_CASES, ids=[f"{n}ranks-{name}" for n, name in TEST_CASES])
def test_global_op(n, name):
    assert_check(SCRIPT, n, name)


if __name__ == "__main__":
    import sys

    if sys.argv[1:] == ["checks"]:
        worker_main(CHECKS)
