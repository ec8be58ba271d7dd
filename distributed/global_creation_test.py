"""OneFlow's placement=/sbp= on the creation ops (linspace, logspace, the *_like ops, Tensor.new_*):
in one process on placement("cpu", [0]), and on 2 and 3 real processes through the launcher, the
global value equals the local op's (random ops: the same-seeded local call's)."""

import os
import sys

import numpy as np
import pytest
import torch
from global_testing import Checks, assert_check, worker_main

import oneflow as flow

CHECKS = Checks()
B, P, S = flow.sbp.broadcast, flow.sbp.partial_sum, flow.sbp.split
SCRIPT = os.path.abspath(__file__)


# ---- one process -------------------------------------------------------------------------------


def test_logspace_matches_torch():
    for args, kw in [
        ((0, 2, 3), {}),
        ((-1, 2, 4), {"base": 2.0}),
        ((1, 0, 5), {"base": 3}),
        ((0, 1, 1), {}),
        ((0, 3, 4), {"dtype": "int64"}),
        ((-2.5, 1.5, 7), {"dtype": "float64"}),
    ]:
        dt = kw.pop("dtype", None)
        got = flow.logspace(*args, **kw, dtype=getattr(flow, dt) if dt else None)
        want = torch.logspace(*args, **kw, dtype=getattr(torch, dt) if dt else None)
        assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)
    assert flow.logspace(0, 1, 3, requires_grad=True).requires_grad


def test_logspace_bad_input():
    with pytest.raises(TypeError, match="'base' must be a real number, not str"):
        flow.logspace(0, 1, 3, base="x")
    with pytest.raises(TypeError):
        flow.logspace("a", 1, 3)
    with pytest.raises((RuntimeError, ValueError)):
        flow.logspace(0, 1, -1)


def test_one_process_linspace_and_logspace_global():
    pl = flow.placement("cpu", [0])
    x = flow.linspace(0, 1, 5, placement=pl, sbp=S(0))
    assert x.is_global and x.sbp == (S(0),) and x.placement == pl
    np.testing.assert_allclose(x.numpy(), np.linspace(0, 1, 5), rtol=1e-6)
    y = flow.logspace(0, 2, 3, placement=pl, sbp=B, requires_grad=True)
    assert y.is_global and y.requires_grad and y.sbp == (B,)
    np.testing.assert_allclose(y.numpy(), [1, 10, 100], rtol=1e-6)


def test_one_process_like_ops_with_placement():
    pl = flow.placement("cpu", [0])
    local = flow.ones(2, 3, dtype=flow.float64)
    for op in (flow.zeros_like, flow.ones_like, flow.empty_like, flow.rand_like, flow.randn_like):
        g = op(local, placement=pl, sbp=S(1))
        assert g.is_global and g.sbp == (S(1),) and tuple(g.shape) == (2, 3) and g.dtype == flow.float64, op
    assert (flow.zeros_like(local, placement=pl, sbp=B).numpy() == 0).all()
    assert (flow.ones_like(local, placement=pl, sbp=B).numpy() == 1).all()
    assert (flow.full_like(local, 7, placement=pl, sbp=B).numpy() == 7).all()
    r = flow.randint_like(local, 3, 9, placement=pl, sbp=S(0)).numpy()
    assert r.shape == (2, 3) and ((r >= 3) & (r < 9)).all()
    # A global input keeps its placement and sbp unless told otherwise.
    z = flow.zeros(4, 3, placement=pl, sbp=S(1))
    assert flow.zeros_like(z).sbp == (S(1),) and flow.ones_like(z, sbp=B).sbp == (B,)
    assert flow.rand_like(z).sbp == (S(1),) and flow.randint_like(z, 5).sbp == (S(1),)
    # Random *_like values equal the same-seeded local call's.
    flow.manual_seed(5)
    want = flow.randn(2, 3, dtype=flow.float64).numpy()
    flow.manual_seed(5)
    np.testing.assert_array_equal(flow.randn_like(local, placement=pl, sbp=S(0)).numpy(), want)


def test_one_process_new_methods():
    pl = flow.placement("cpu", [0])
    local = flow.ones(2, 3, dtype=flow.float64)
    g = local.new_zeros(2, placement=pl, sbp=B)
    assert g.is_global and g.dtype == flow.float64 and (g.numpy() == 0).all()
    assert local.new_full([2], 4, placement=pl, sbp=B).numpy().tolist() == [4, 4]
    assert local.new_ones((2, 2), placement=pl, sbp=S(0)).sbp == (S(0),)
    assert local.new_empty(3, placement=pl, sbp=B).is_global
    assert local.new_tensor([1, 2], placement=pl, sbp=B).is_global
    assert not local.new_zeros(2).is_global and tuple(local.new_zeros(flow.Size([2, 3])).shape) == (2, 3)
    # OneFlow: a global tensor's new_* keep its placement and sbp; a split axis the shape lacks is broadcast.
    z = flow.zeros(4, 3, placement=pl, sbp=S(1))
    assert z.new_zeros(2, 5).sbp == (S(1),) and z.new_zeros(2).sbp == (B,)
    assert z.new_ones((2, 5), sbp=B).sbp == (B,) and z.new_empty(3, 3).sbp == (S(1),)
    assert z.new_full((2,), 3.0).numpy().tolist() == [3.0, 3.0]


def test_placement_needs_both_and_typed_input():
    pl = flow.placement("cpu", [0])
    with pytest.raises(ValueError, match="needs both placement= and sbp="):
        flow.zeros_like(flow.ones(2), placement=pl)
    with pytest.raises(ValueError, match="needs both placement= and sbp="):
        flow.linspace(0, 1, 3, sbp=B)
    with pytest.raises(TypeError, match="must be Tensor, not list"):
        flow.ones_like([1.0], placement=pl, sbp=B)
    with pytest.raises(TypeError, match="placement must be a oneflow.placement"):
        flow.logspace(0, 1, 3, placement="cpu", sbp=B)


# ---- several processes -------------------------------------------------------------------------


@CHECKS(worlds=[2, 3])
def creation_ops_with_placement(f):
    n = flow.env.get_world_size()
    pl = flow.placement("cpu", list(range(n)))
    local = flow.arange(6 * n, dtype=flow.float32).reshape(2 * n, 3)
    for sbp in (B, S(0), S(1), P):
        f.close(
            f"linspace {sbp}",
            flow.linspace(-1, 1, 3 * n, placement=pl, sbp=B if sbp == S(1) else sbp).numpy(),
            np.linspace(-1, 1, 3 * n),
            exact=False,
        )
        f.close(
            f"logspace {sbp}",
            flow.logspace(0, 2, 2 * n, placement=pl, sbp=B if sbp == S(1) else sbp).numpy(),
            np.logspace(0, 2, 2 * n),
            rtol=1e-5,
        )
        f.close(f"zeros_like {sbp}", flow.zeros_like(local, placement=pl, sbp=sbp).numpy(), np.zeros((2 * n, 3)))
        f.close(f"full_like {sbp}", flow.full_like(local, 2.5, placement=pl, sbp=sbp).numpy(), np.full((2 * n, 3), 2.5))
        f.close(f"new_ones {sbp}", local.new_ones(2 * n, 3, placement=pl, sbp=sbp).numpy(), np.ones((2 * n, 3)))
        flow.manual_seed(7)
        want = flow.randint(0, 100, (2 * n, 3)).numpy()
        flow.manual_seed(7)
        got = flow.randint_like(local, 0, 100, dtype=flow.int64, placement=pl, sbp=sbp)
        f.close(f"randint_like {sbp}", got.numpy(), want, exact=True)
    g = flow.zeros(2 * n, 3, placement=pl, sbp=S(0))
    f.true("new_zeros keeps sbp", g.new_zeros(4 * n, 2).sbp == (S(0),), str(g.new_zeros(4 * n, 2).sbp))
    f.true("zeros_like keeps sbp", flow.zeros_like(g).sbp == (S(0),), "")


TEST_CASES = CHECKS.cases(worlds=(2, 3))


@pytest.mark.parametrize("n,name", TEST_CASES, ids=[f"{n}ranks-{name}" for n, name in TEST_CASES])
def test_global_creation(n, name):
    assert_check(SCRIPT, n, name)


if __name__ == "__main__":
    if sys.argv[1:] == ["checks"]:
        worker_main(CHECKS)
    else:
        sys.exit(pytest.main([__file__, "-q"]))
