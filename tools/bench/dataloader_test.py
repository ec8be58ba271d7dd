"""The DataLoader benchmark runs end to end on a tiny dataset (no timing assertions)."""

import contextlib
import io

import dataloader


def test_benchmark_delivers_every_sample_and_prints_the_ratio():
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        dataloader.main(["--samples", "300", "--batch_size", "32", "--repeats", "1"])
    lines = out.getvalue().splitlines()
    assert lines[1].startswith("oneflow") and lines[2].startswith("torch")
    assert lines[3].startswith("oneflow / torch = ") and lines[3].endswith("x")
