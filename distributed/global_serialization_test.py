"""OneFlow's oneflow.save(obj, path, global_dst_rank=) and oneflow.load(path, global_src_rank=): global
tensors gathered to / loaded from one rank; in one process and on 2 and 3 real processes."""

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


def _state(pl, n):
    w = flow.nn.Parameter(flow.arange(4 * n * 3, dtype=flow.float32).reshape(4 * n, 3).to_global(pl, B))
    w = flow.nn.Parameter(w.to_global(sbp=S(0)))
    b = flow.arange(2 * n, dtype=flow.float64).to_global(pl, B).to_global(sbp=S(0))
    return {"w": w, "b": b, "step": 3, "pair": [b, b], "local": flow.ones(2)}


# ---- one process -------------------------------------------------------------------------------


def test_one_process_save_gathers_and_load_shares(tmp_path):
    pl = flow.placement("cpu", [0])
    state = _state(pl, 1)
    path = str(tmp_path / "ckpt")
    flow.save(state, path, global_dst_rank=0)
    plain = flow.load(path)
    assert type(plain["w"]) is flow.nn.Parameter and not plain["w"].is_global and plain["w"].requires_grad
    np.testing.assert_array_equal(plain["w"].detach().numpy(), np.arange(12).reshape(4, 3))
    assert plain["b"].dtype == flow.float64 and plain["b"].tolist() == [0.0, 1.0]
    assert plain["pair"][0] is plain["pair"][1] and plain["step"] == 3
    loaded = flow.load(path, global_src_rank=0)
    w = loaded["w"]
    assert w.is_global and w.placement == pl and w.sbp == (B,) and isinstance(w, flow.nn.Parameter)
    np.testing.assert_array_equal(w.numpy(), np.arange(12).reshape(4, 3))
    assert loaded["pair"][0] is loaded["pair"][1] and loaded["local"].is_global
    assert loaded["step"] == 3


def test_oneflow_positional_order(tmp_path):
    pl = flow.placement("cpu", [0])
    path = str(tmp_path / "ckpt")
    flow.save({"x": flow.ones(2, placement=pl, sbp=B)}, path, 0)  # save(obj, path, global_dst_rank)
    got = flow.load(path, 0)  # load(path, global_src_rank)
    assert got["x"].is_global and got["x"].numpy().tolist() == [1.0, 1.0]
    got = flow.load(path, 0, "cpu")  # load(path, global_src_rank, map_location)
    assert got["x"].placement.type == "cpu"


def test_global_tensors_need_a_destination_and_ranks_are_checked(tmp_path):
    pl = flow.placement("cpu", [0])
    path = str(tmp_path / "ckpt")
    with pytest.raises(TypeError, match="global_dst_rank"):
        flow.save({"x": flow.ones(2, placement=pl, sbp=B)}, path)
    assert not os.path.exists(path)
    with pytest.raises(ValueError, match=r"global_dst_rank=5 is not a rank of the job \(world size 1\)"):
        flow.save({}, path, global_dst_rank=5)
    with pytest.raises(TypeError, match="'global_dst_rank' must be an int rank, not str"):
        flow.save({}, path, global_dst_rank="0")
    flow.save({}, path)
    with pytest.raises(ValueError, match="global_src_rank=-1"):
        flow.load(path, global_src_rank=-1)
    with pytest.raises(TypeError, match="twice"):
        flow.save({}, path, 0, global_dst_rank=0)


# ---- several processes -------------------------------------------------------------------------


@CHECKS(worlds=[2, 3])
def save_to_and_load_from_one_rank(f):
    import oneflow.distributed as dist

    n, rank = flow.env.get_world_size(), flow.env.get_rank()
    pl = flow.placement("cpu", list(range(n)))
    path = os.path.join(tempfile.gettempdir(), f"global_ckpt_{os.environ['MASTER_PORT']}")
    dst = n - 1
    flow.save(_state(pl, n), path, global_dst_rank=dst)
    dist.barrier()
    f.true("only the destination wrote", os.path.exists(path), path)
    if rank == dst:
        plain = flow.load(path)
        f.close("gathered w", plain["w"].detach().numpy(), np.arange(12 * n).reshape(4 * n, 3), exact=True)
        f.close("gathered b", plain["b"].numpy(), np.arange(2 * n), exact=True)
    dist.barrier()
    loaded = flow.load(path, global_src_rank=dst)
    w = loaded["w"]
    f.true(
        "loaded meta",
        w.is_global and w.placement == flow.placement("cpu", [dst]) and w.sbp == (B,),
        f"{w.placement} {w.sbp}",
    )
    everywhere = w.to_global(placement=pl, sbp=S(0)).to_global(sbp=B).to_local()
    f.close("loaded value", everywhere.detach().numpy(), np.arange(12 * n).reshape(4 * n, 3), exact=True)
    f.true("shared object", loaded["pair"][0] is loaded["pair"][1] and loaded["step"] == 3, "")
    dist.barrier()
    if rank == dst:
        os.unlink(path)


TEST_CASES = CHECKS.cases(worlds=(2, 3))


@pytest.mark.parametrize("n,name", TEST_CASES, ids=[f"{n}ranks-{name}" for n, name in TEST_CASES])
def test_global_serialization(n, name):
    assert_check(SCRIPT, n, name)


if __name__ == "__main__":
    if sys.argv[1:] == ["checks"]:
        worker_main(CHECKS)
    else:
        sys.exit(pytest.main([__file__, "-q"]))
