"""init_process_group, new_group and destroy_process_group in this process (a world of one),
their errors, and the Python binding of the TCP store and of the C++ process groups."""

from __future__ import annotations

import datetime
import socket

import pytest

import oneflow as flow
import oneflow.distributed as dist
from oneflow.distributed import _native


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def env(monkeypatch):
    """The launcher's environment for rank 0 of a world of one."""
    port = free_port()
    for k, v in dict(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), WORLD_SIZE="1", RANK="0", LOCAL_RANK="0").items():
        monkeypatch.setenv(k, v)
    yield port
    if dist.is_initialized():
        dist.destroy_process_group()


def test_not_initialized_errors_name_the_function():
    assert not dist.is_initialized()
    for call, name in ((dist.get_rank, "get_rank"), (dist.get_world_size, "get_world_size"),
                       (dist.barrier, "barrier"), (lambda: dist.all_reduce(flow.ones(2)), "all_reduce"),
                       (lambda: dist.new_group([0]), "new_group"),
                       (dist.destroy_process_group, "destroy_process_group")):
        with pytest.raises(RuntimeError,
                           match=f"{name}: the default process group is not initialized.*init_process_group"):
            call()


def test_nccl_needs_a_cuda_build(env):
    assert dist.is_available() and dist.is_gloo_available()
    assert dist.is_nccl_available() is ("nccl" in _native.backends())
    if not dist.is_nccl_available():  # the default build (a --config=cuda one: csrc/nccl_process_group_test)
        with pytest.raises(RuntimeError, match=r"'nccl' needs NCCL.*--config=cuda.*CUDA GPU"):
            dist.init_process_group("nccl")
    with pytest.raises(ValueError, match="unknown backend 'mpi'"):
        dist.init_process_group("mpi")


def test_env_init_and_reinit(env):
    dist.init_process_group()
    assert dist.is_initialized() and dist.get_rank() == 0 and dist.get_world_size() == 1
    assert dist.get_backend() == "gloo" and dist.get_local_rank() == 0
    with pytest.raises(RuntimeError, match="already initialized"):
        dist.init_process_group("gloo")
    t = flow.tensor([1.0, 2.0])
    dist.all_reduce(t)
    assert t.numpy().tolist() == [1.0, 2.0]
    dist.destroy_process_group()
    assert not dist.is_initialized()
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=5))  # again, on the same port
    assert dist.get_world_size() == 1


def test_tcp_init_method_and_explicit_rank(monkeypatch):
    for k in ("MASTER_ADDR", "MASTER_PORT", "WORLD_SIZE", "RANK"):
        monkeypatch.delenv(k, raising=False)
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{free_port()}", world_size=1, rank=0)
    try:
        assert dist.get_rank() == 0
    finally:
        dist.destroy_process_group()


@pytest.mark.parametrize("var", ["MASTER_ADDR", "MASTER_PORT", "WORLD_SIZE", "RANK"])
def test_missing_environment_is_named(env, monkeypatch, var):
    monkeypatch.delenv(var)
    with pytest.raises(ValueError, match=f"init_process_group: .*{var}"):
        dist.init_process_group()
    assert not dist.is_initialized()


def test_bad_arguments(env, monkeypatch):
    with pytest.raises(ValueError, match=r"rank must be in \[0, 0\] for world_size 1, got 3"):
        dist.init_process_group(rank=3)
    with pytest.raises(ValueError, match="world_size must be at least 1"):
        dist.init_process_group(world_size=0)
    with pytest.raises(ValueError, match="timeout must be positive"):
        dist.init_process_group(timeout=datetime.timedelta(seconds=0))
    with pytest.raises(TypeError, match="timeout must be a datetime.timedelta"):
        dist.init_process_group(timeout="5s")
    with pytest.raises(ValueError, match="unsupported init_method 'file:///tmp/x'"):
        dist.init_process_group(init_method="file:///tmp/x")
    monkeypatch.setenv("RANK", "zero")
    with pytest.raises(ValueError, match="RANK='zero' is not an integer"):
        dist.init_process_group()


def test_port_in_use_is_reported(env):
    with socket.socket() as s:
        s.bind(("0.0.0.0", 0))
        s.listen()
        port = s.getsockname()[1]
        with pytest.raises(dist.DistributedError, match=f"cannot listen on port {port}"):
            dist.init_process_group(init_method=f"tcp://127.0.0.1:{port}", world_size=1, rank=0)
    assert not dist.is_initialized()


def test_new_group_and_group_queries(env):
    dist.init_process_group(timeout=datetime.timedelta(seconds=10))
    g = dist.new_group([0], timeout=datetime.timedelta(seconds=3))
    assert g.size() == 1 and g.rank() == 0 and g.ranks == [0]
    assert g.timeout == datetime.timedelta(seconds=3)
    assert dist.new_group().timeout == datetime.timedelta(seconds=10)
    assert dist.get_global_rank(g, 0) == 0 and dist.get_group_rank(g, 0) == 0
    with pytest.raises(ValueError, match=r"ranks \[1, 5\] are outside the world of 1 ranks"):
        dist.new_group([0, 1, 5])
    with pytest.raises(ValueError, match="ranks must be distinct"):
        dist.new_group([0, 0])
    with pytest.raises(ValueError, match="rank 4 is not a member"):
        dist.get_group_rank(g, 4)
    t = flow.ones(2)
    dist.all_reduce(t, group=g)
    dist.destroy_process_group(g)
    with pytest.raises(ValueError, match="was destroyed"):
        dist.all_reduce(t, group=g)
    with pytest.raises(TypeError, match="group must be a oneflow.distributed.ProcessGroup"):
        dist.all_reduce(t, group=[0])


def test_store_binding():
    server = _native.TCPStoreServer(0)
    store = _native.TCPStore("127.0.0.1", server.port, 0, 2.0)
    store.set("k", b"v\x00w")
    assert store.get("k") == b"v\x00w"
    assert store.add("n", 3) == 3 and store.add("n", 4) == 7
    assert store.check(["k", "n"]) and not store.check(["nope"])
    assert store.delete_key("k") and not store.delete_key("k")
    with pytest.raises(dist.DistributedTimeoutError, match="'nope'"):
        store.wait(["nope"], 0.1)
    store.close()
    del server


def test_one_process_group_class_for_every_backend():
    """new_group makes a group of a backend by name; every backend is the same Python class."""
    assert "gloo" in _native.backends() and _native.backends() == sorted(_native.backends())
    server = _native.TCPStoreServer(0)
    store = _native.TCPStore("127.0.0.1", server.port, 0, 5.0)
    with pytest.raises(ValueError, match="unknown process group backend 'mpi'; this build has: gloo"):
        _native.new_group("mpi", store, "g0", 0, [0], 5.0)
    pg = _native.new_group("gloo", store, "g1", 0, [3], 5.0)
    assert type(pg) is _native.ProcessGroup
    assert (pg.backend, pg.rank, pg.size, pg.global_ranks, pg.device, pg.timeout) == ("gloo", 0, 1, [3], -1, 5.0)
    t = flow.tensor([1.0, 2.0])
    pg.all_reduce(t.data_ptr(), 2, "float32", "max")
    pg.barrier()
    assert t.tolist() == [1.0, 2.0]
    with pytest.raises(ValueError, match="unsupported dtype 'complex64' for communication"):
        pg.all_reduce(t.data_ptr(), 2, "complex64", "sum")
    del pg
    store.close()
    del server


def test_errors_are_runtime_errors():
    assert issubclass(dist.DistributedTimeoutError, dist.DistributedError)
    assert issubclass(dist.DistributedError, RuntimeError)
    assert dist.DistributedTimeoutError.__module__ == "oneflow.distributed"
    assert repr(dist.ReduceOp.SUM) == "ReduceOp.SUM"
