"""The model benchmark runs end to end with tiny sizes and counts (no timing assertions): each
model built with both frameworks computes the same outputs (or first training loss), which
models.py checks before timing, and every row is reported."""

import contextlib
import io

import models


def test_every_case_runs_and_the_two_frameworks_agree():
    out = io.StringIO()
    cases = ("gpt2_train,gpt2_train_bf16,gpt2_infer,bert_infer,resnet50_infer,resnet50_train,"
             "resnet50_infer_cl,resnet50_train_cl,vit_b16_infer,gpt2_rss")
    with contextlib.redirect_stdout(out):
        rows = models.main(["--batch", "1", "--lm-batch", "1", "--seq", "16", "--layers", "1", "--size", "64",
                            "--repeats", "1", "--warmup", "0", "--cases", cases])
    assert [r[0] for r in rows] == [
        "GPT-2 small AdamW training step", "GPT-2 small AdamW step, bf16 autocast", "GPT-2 small inference",
        "BERT-base forward", "ResNet-50 inference", "ResNet-50 SGD training step",
        "ResNet-50 inference (channels_last)", "ResNet-50 SGD training step (channels_last)",
        "ViT-B/16 inference", "GPT-2 small training peak RSS"]
    assert all(a > 0 and b > 0 for _, _, a, b in rows)
    assert "bf16 autocast / fp32" in out.getvalue()
