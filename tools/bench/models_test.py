"""The model benchmark runs end to end with tiny counts (no timing assertions): the plain
references take flowvision's weights and compute the same outputs."""

import contextlib
import io

import models


def test_every_case_runs_and_the_references_agree():
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rows = models.main(["--batch", "1", "--size", "64", "--repeats", "1", "--warmup", "0",
                            "--cases", "resnet50_infer,resnet50_train,vit_b16_infer"])
    assert [r[0] for r in rows] == ["ResNet-50 inference", "ResNet-50 SGD training step", "ViT-B/16 inference"]
    assert all(a > 0 and b > 0 for _, a, b in rows)
    assert "ratio" in out.getvalue()
