"""The benchmark's cases compute the same values in both frameworks, and every
entry point runs (tiny repeat counts; timings are not checked)."""

import contextlib
import io

import eager_overhead as bench
import numpy as np
import pytest


@pytest.mark.parametrize("case", bench.CASES, ids=lambda c: c.name)
def test_both_frameworks_compute_the_same(case):
    ours, theirs = bench.make_steps(case)
    for _ in range(2):  # the second step starts from the state the first left (grads reset)
        got, want = ours(), theirs()
        assert len(got) == len(want)
        for o, t in zip(got, want):
            assert tuple(o.shape) == tuple(t.shape)
            np.testing.assert_allclose(o.detach().numpy(), t.detach().numpy(), rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize("case", bench.CASES, ids=lambda c: c.name)
def test_measure_reports_positive_times(case):
    ours, theirs = bench.measure(case, repeats=2, min_time=0.0, number=1)
    assert ours > 0 and theirs > 0


def test_main_prints_one_row_per_case():
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        bench.main(["--repeats", "1", "--min_time", "0", "--cases", "add_1", "relu_1000"])
    rows = out.getvalue().strip().splitlines()[2:]
    assert [r.split()[0] for r in rows] == ["add_1", "relu_1000"]
    for r in rows:
        ours, theirs, ratio = map(float, r.split()[1:])
        assert ours > 0 and theirs > 0 and ratio == pytest.approx(ours / theirs, rel=0.01, abs=0.01)
