"""oneflow.profiler: per-op kernel times."""

import pytest

import oneflow as flow


def test_counts_each_kernel_and_self_time_never_exceeds_total():
    x = flow.randn(64, 64, requires_grad=True)
    w = flow.randn(64, 64)
    with flow.profiler.profile() as prof:
        for _ in range(3):
            y = flow.mm(x, w).relu().sum()
        y.backward()
    rows = {e.key: e for e in prof.key_averages()}
    assert rows["mm"].count >= 3 + 1  # three forwards and the gradient of x
    assert rows["relu"].count == 3
    assert rows["sum"].count == 3
    for e in rows.values():
        assert 0 <= e.self_cpu_time_total <= e.cpu_time_total + 1e-6
        assert e.cpu_time == pytest.approx(e.cpu_time_total / e.count)
    assert sum(e.self_cpu_time_total for e in rows.values()) <= prof.wall_time_us
    table = prof.key_averages().table(sort_by="count", row_limit=2)
    assert table.splitlines()[0].startswith("Name")
    assert len([line for line in table.splitlines() if "%" in line and "Name" not in line]) == 2


def test_nothing_is_recorded_outside_a_profile():
    flow.ones(3).add(1)
    with flow.profiler.profile() as prof:
        pass
    assert list(prof.key_averages()) == []
    assert not flow._C._profiler_enabled()


def test_misuse_raises():
    with flow.profiler.profile():
        with pytest.raises(RuntimeError, match="already active"):
            flow.profiler.profile().__enter__()
    with pytest.raises(RuntimeError, match="has not finished"):
        flow.profiler.profile().key_averages()
    with pytest.raises(NotImplementedError, match="record_shapes"):
        flow.profiler.profile(record_shapes=True)
    with pytest.raises(ValueError, match="sort_by"):
        with flow.profiler.profile() as prof:
            pass
        prof.key_averages().table(sort_by="bogus")
    with flow.profiler.profile(activities=[flow.profiler.ProfilerActivity.CPU]):
        pass
