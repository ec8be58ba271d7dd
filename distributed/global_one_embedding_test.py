"""oneflow.one_embedding with global ids: rows sharded over 1, 2 and 3 real processes (rank
key mod world owns a row) equal the same embedding trained in one process on the whole batch."""

import os
import sys
import tempfile

import numpy as np
import pytest
from global_testing import Checks, assert_check, worker_main

import oneflow as flow

CHECKS = Checks()
B, S = flow.sbp.broadcast, flow.sbp.split
SCRIPT = os.path.abspath(__file__)
oe = flow.one_embedding


def _embedding(name: str, rank: int):
    tables = [
        oe.make_table_options(oe.make_uniform_initializer(-0.5, 0.5)),
        oe.make_table_options(oe.make_normal_initializer(0.0, 0.3)),
    ]
    path = os.path.join(tempfile.gettempdir(), f"oe_{name}_{os.environ.get('MASTER_PORT', 'x')}_{rank}")
    store = oe.make_cached_host_mem_store_options(64, path, capacity=1000)
    return oe.MultiTableEmbedding(name, 4, flow.float64, flow.int64, tables, store)


def _batches(steps: int):
    rng = np.random.default_rng(0)
    # 12 rows of (table-0 id, table-1 id): repeated keys within and across ranks' parts.
    return [(rng.integers(0, 9, (12, 2)) * np.array([1, 100]), rng.standard_normal((12, 2, 4))) for _ in range(steps)]


def _optimizer(kind: str, emb):
    if kind == "sgd":
        return flow.optim.SGD(emb.parameters(), lr=0.2, momentum=0.9, weight_decay=0.01)
    return flow.optim.Adam(emb.parameters(), lr=0.05)


def _train_local(kind: str, steps: int):
    emb = _embedding(f"local_{kind}", flow.env.get_rank())
    opt = _optimizer(kind, emb)
    outs = []
    for ids, weight in _batches(steps):
        out = emb(flow.tensor(ids))
        (out * flow.tensor(weight)).sum().backward()
        opt.step()
        opt.zero_grad()
        outs.append(out.detach().numpy())
    return emb, outs


def _check_training(f, kind: str, mode: str, steps: int = 3):
    n, rank = flow.env.get_world_size(), flow.env.get_rank()
    pl = flow.placement("cpu", list(range(n)))
    ref, ref_outs = _train_local(kind, steps)
    emb = _embedding(f"global_{kind}_{mode}", rank)
    opt = _optimizer(kind, emb)
    part = slice(rank * 12 // n, (rank + 1) * 12 // n)
    for step, (ids, weight) in enumerate(_batches(steps)):
        if mode == "split":
            gids = flow.tensor(ids[part]).to_global(pl, S(0))
            gweight = flow.tensor(weight[part]).to_global(pl, S(0))
        else:
            gids = flow.tensor(ids).to_global(pl, B)
            gweight = flow.tensor(weight).to_global(pl, B)
        out = emb(gids)
        f.true(f"step {step} meta", out.is_global and out.sbp == gids.sbp and tuple(out.shape) == (12, 2, 4), "")
        f.close(f"step {step} rows", out.to_global(sbp=B).to_local().detach().numpy(), ref_outs[step], atol=1e-12)
        (out * gweight).sum().backward()
        opt.step()
        opt.zero_grad()
    owned = {k: v for k, v in emb._rows.items()}
    f.true("owns only its keys", all(k % n == rank for k in owned), str(sorted(owned)))
    for k, row in owned.items():
        f.close(f"trained row {k}", row, ref._rows[k], atol=1e-12)
    everyone: list = [None] * n
    if n > 1:
        flow.distributed.all_gather_object(everyone, sorted(owned))
    else:
        everyone = [sorted(owned)]
    union = sorted(k for keys in everyone for k in keys)
    f.true("every row has one owner", union == sorted(ref._rows), f"{union} vs {sorted(ref._rows)}")


@CHECKS(worlds=[1, 2, 3])
def sgd_split_ids(f):
    _check_training(f, "sgd", "split")


@CHECKS(worlds=[1, 2, 3])
def adam_split_ids(f):
    _check_training(f, "adam", "split")


@CHECKS(worlds=[2, 3])
def sgd_broadcast_ids(f):
    _check_training(f, "sgd", "broadcast")


@CHECKS(worlds=[2])
def bad_global_ids(f):
    n = flow.env.get_world_size()
    emb = _embedding("bad", flow.env.get_rank())
    ids = flow.tensor([[1, 2], [3, 4]]).to_global(flow.placement("cpu", list(range(n))), S(1))
    try:
        emb(ids)
        f.true("split(1) ids raise", False, "no error")
    except NotImplementedError as e:
        f.true("split(1) ids raise", "split(0) or broadcast" in str(e), str(e))
    ok = _embedding("mixed", flow.env.get_rank())
    ok(flow.tensor([[1, 2]]).to_global(flow.placement("cpu", list(range(n))), B))
    try:
        ok(flow.tensor([[1, 2]]))
        f.true("local ids after global raise", False, "no error")
    except RuntimeError as e:
        f.true("local ids after global raise", "global ids" in str(e), str(e))


def test_rows_do_not_depend_on_lookup_order():
    a, b = _embedding("order_a", 0), _embedding("order_b", 0)
    flow.manual_seed(7)
    ra = a(flow.tensor([[3, 500], [8, 100]])).detach().numpy()
    b(flow.tensor([[1, 200]]))
    rb = b(flow.tensor([[3, 500], [8, 100]])).detach().numpy()
    np.testing.assert_array_equal(ra, rb)


TEST_CASES = CHECKS.cases(worlds=(1, 2, 3))


@pytest.mark.parametrize("n,name", TEST_CASES, ids=[f"{n}ranks-{name}" for n, name in TEST_CASES])
def test_global_one_embedding(n, name):
    assert_check(SCRIPT, n, name)


if __name__ == "__main__":
    if sys.argv[1:] == ["checks"]:
        worker_main(CHECKS)
    else:
        sys.exit(pytest.main([__file__, "-q"]))
