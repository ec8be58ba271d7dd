"""The boxing benchmark runs end to end on 2 ranks with a small tensor (no timing assertions)."""

import contextlib
import io
import re

import boxing


def test_benchmark_checks_values_and_prints_the_ratios():
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        boxing.main(["--nproc", "2", "--mib", "1", "--repeats", "1", "--timeout", "60"])
    lines = out.getvalue().splitlines()
    # The header names the machine first (tools/bench/machine.py).
    assert "kernels " in lines[0] and "; boxing benchmark: 1 MiB float32" in lines[0], lines
    assert not any("WRONG VALUES" in line for line in lines), lines
    assert [line.split()[2] for line in lines[1:]] == ["all_gather", "all_reduce"], lines
    for line in lines[1:]:
        assert line.startswith("2 ranks"), line
        assert re.search(r"oneflow/torch \d+\.\d\dx  boxing/torch \d+\.\d\dx$", line), line
