"""The global overhead benchmark runs end to end on 2 ranks with tiny counts (no timing assertions)."""

import contextlib
import io
import re

import global_overhead


def test_benchmark_checks_values_and_prints_the_ratios():
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        global_overhead.main(["--repeats", "1", "--number", "2", "--timeout", "300"])
    lines = out.getvalue().splitlines()
    # The header names the machine first (tools/bench/machine.py).
    assert "kernels " in lines[0] and "; global overhead benchmark: 2 CPU ranks" in lines[0], lines
    assert not any("WRONG VALUES" in line for line in lines), lines
    assert [line.split()[0] for line in lines[1:]] == list(global_overhead.CASES), lines
    number = r"\d+\.\d\d us"
    for line in lines[1:]:
        assert re.search(rf"local +{number}  1-rank +{number} +\d+\.\d\dx  2-rank +{number} +\d+\.\d\dx$", line), line
