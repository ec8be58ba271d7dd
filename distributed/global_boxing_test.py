"""Boxing on real processes: every 1-D sbp conversion on 1-4 ranks (even and uneven shapes), every
2-D conversion on a 2x2 placement, placement changes, forward values and gradients against one
process. Values must match exactly (sums to 1e-6)."""

import itertools
import os

import numpy as np
import pytest
from global_testing import Checks, assert_check, worker_main

import oneflow as flow

CHECKS = Checks()
B, P, S = flow.sbp.broadcast, flow.sbp.partial_sum, flow.sbp.split
SHAPES_1D = [(6, 4), (5, 3), (2, 1, 3), (7,)]
SHAPES_2D = [(4, 6), (5, 3), (3, 2)]


def _sbps(ndim):
    return [S(d) for d in range(ndim)] + [B, P]


def _full(shape, seed=0):
    # Values exactly representable, so that partial sums are exact.
    rng = np.random.RandomState(seed)
    return (rng.randint(-8, 8, size=shape) * 0.5).astype(np.float32)


def _conversions(f, placement, nd_options, shapes):
    for shape in shapes:
        full = _full(shape)
        weight = _full(shape, seed=1)
        for src in nd_options(len(shape)):
            for dst in nd_options(len(shape)):
                name = f"{shape} {src} -> {dst}"
                x = flow.tensor(full, placement=placement, sbp=src, requires_grad=True)
                y = x.to_global(sbp=dst)
                f.true(name + " sbp", y.sbp == tuple(dst), f"got {y.sbp}")
                f.true(name + " shape", tuple(y.shape) == shape, f"got {tuple(y.shape)}")
                f.close(name, y.detach().numpy(), full, exact=True)
                w = flow.tensor(weight, placement=placement, sbp=B if placement.ndim == 1 else (B, B))
                (y * w).sum().backward()
                f.true(name + " grad sbp", x.grad.sbp == tuple(s if s.is_split() else B for s in x.sbp),
                       f"got {x.grad.sbp}")
                f.close(name + " grad", x.grad.numpy(), weight, atol=1e-6)


@CHECKS()
def one_d_conversions(f):
    n = flow.env.get_world_size()
    placement = flow.placement("cpu", list(range(n)))
    _conversions(f, placement, lambda nd: [(s,) for s in _sbps(nd)], SHAPES_1D)


@CHECKS(worlds=[4])
def two_d_conversions(f):
    placement = flow.placement("cpu", [[0, 1], [2, 3]])
    _conversions(f, placement, lambda nd: list(itertools.product(_sbps(nd), repeat=2)), SHAPES_2D)


@CHECKS(worlds=[4])
def two_d_unsorted_ranks(f):
    # Rank arrays in any order: groups follow the array, not the sorted ranks.
    placement = flow.placement("cpu", [[3, 1], [0, 2]])
    _conversions(f, placement, lambda nd: [(S(0), S(1)), (S(1), S(0)), (B, P), (P, S(0))], [(5, 6)])


@CHECKS(min_world=2)
def local_parts(f):
    # The local tensors are the tensor_split pieces, in rank order.
    n, rank = flow.env.get_world_size(), flow.env.get_rank()
    placement = flow.placement("cpu", list(range(n)))
    full = _full((7, 5))
    for d in range(2):
        x = flow.tensor(full, placement=placement, sbp=S(d))
        f.close(f"split({d}) part", x.to_local().numpy(), np.array_split(full, n, axis=d)[rank], exact=True)
    p = flow.tensor(full, placement=placement, sbp=P).to_local().numpy()
    f.close("partial part", p, full if rank == 0 else np.zeros_like(full), exact=True)
    # Local -> global: every rank's piece, its size checked and summed into the global shape.
    sizes = [len(a) for a in np.array_split(np.arange(7), n)]
    piece = flow.tensor(np.full((sizes[rank], 2), rank, np.float32))
    g = piece.to_global(placement, S(0))
    f.true("local_to_global shape", tuple(g.shape) == (7, 2), str(g.shape))
    f.close("local_to_global", g.numpy(), np.concatenate([np.full((m, 2), r) for r, m in enumerate(sizes)]))
    bad = flow.tensor(np.full((rank + 1, 2), rank, np.float32))
    try:
        bad.to_global(placement, S(0))
        f.true("pieces of other sizes than tensor_split's are rejected", False, "no error")
    except ValueError as e:
        f.true("message", "tensor_split sizes" in str(e), str(e))


@CHECKS(min_world=2)
def local_to_global_gradient(f):
    n = flow.env.get_world_size()
    placement = flow.placement("cpu", list(range(n)))
    full = _full((4, 3))
    for sbp in (B, S(0), P):
        local = flow.tensor(full if not sbp.is_split() else np.array_split(full, n)[flow.env.get_rank()],
                            requires_grad=True)
        g = local.to_global(placement, sbp)
        (g * 3).sum().backward()
        # A broadcast or partial-sum local part gets the whole gradient (3), a split one its slice.
        f.close(f"{sbp} local grad", local.grad.numpy(), np.full(tuple(local.shape), 3.0), exact=True)


@CHECKS(worlds=[3, 4])
def placement_changes(f):
    n = flow.env.get_world_size()
    full = _full((5, 4))
    pairs = [([0], [1, 2]), ([0, 1], [1, 2]), ([0, 1, 2], [2, 0]), ([1], [0])]
    if n == 4:
        pairs += [([[0, 1], [2, 3]], [3, 1]), ([0, 2], [[1, 3], [0, 2]])]
    for src_ranks, dst_ranks in pairs:
        src = flow.placement("cpu", src_ranks)
        dst = flow.placement("cpu", dst_ranks)
        for s_sbp in ([S(0), B, P] if src.ndim == 1 else [(S(0), S(1)), (P, B)]):
            for d_sbp in ([S(1), B, P] if dst.ndim == 1 else [(S(1), S(0)), (B, P)]):
                name = f"{src_ranks} {s_sbp} -> {dst_ranks} {d_sbp}"
                x = flow.tensor(full, placement=src, sbp=s_sbp, requires_grad=True)
                y = x.to_global(placement=dst, sbp=d_sbp)
                f.true(name + " meta", y.placement == dst and tuple(y.shape) == full.shape, f"{y.placement} {y.shape}")
                if flow.env.get_rank() in dst.flat_ranks:
                    f.close(name, y.detach().numpy(), full, exact=True)
                (y * 2).sum().backward()
                if flow.env.get_rank() in src.flat_ranks:
                    f.close(name + " grad", x.grad.numpy(), np.full(full.shape, 2.0), exact=True)


@CHECKS()
def explain_text(f):
    text = flow.boxing.explain(S(0), B, (8, 4), flow.placement("cpu", [0, 1]) if flow.env.get_world_size() > 1
                               else None)
    if flow.env.get_world_size() > 1:
        f.true("explain", "all-gather" in text and "64 bytes per rank" in text, text)
    text = flow.boxing.explain((S(0), S(1)), (B, B), (4, 4), flow.placement("cpu", [[0]]))
    f.true("explain 2d", "nothing" not in text and "axis 1: S(1) -> B (all-gather)" in text, text)


SCRIPT = os.path.abspath(__file__)
CASES = CHECKS.cases()


@pytest.mark.parametrize("n,name", CASES, ids=[f"{n}ranks-{name}" for n, name in CASES])
def test_boxing(n, name):
    assert_check(SCRIPT, n, name)


if __name__ == "__main__":
    import sys

    if sys.argv[1:] == ["checks"]:
        worker_main(CHECKS)
