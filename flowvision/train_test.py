"""flowvision/tools/train.py: tiny runs on FakeData and the bundled image folder, checkpoints, resume."""

import contextlib
import io
import math
import os
import pickle
import re

import numpy as np
import pytest
import train

import oneflow as flow
from flowvision.datasets import TINY_IMAGEFOLDER
from flowvision.models import ModelCreator

SEEN_DTYPES = []


class _Probe(flow.nn.Module):
    """A tiny classifier that records the dtype its linear layer computes in."""

    def __init__(self, num_classes: int = 10) -> None:
        super().__init__()
        self.conv = flow.nn.Conv2d(3, 4, 3, padding=1)
        self.bn = flow.nn.BatchNorm2d(4)
        self.fc = flow.nn.Linear(4, num_classes)

    def forward(self, x):
        x = flow.nn.functional.adaptive_avg_pool2d(self.bn(self.conv(x)).relu(), 1).flatten(1)
        out = self.fc(x)
        SEEN_DTYPES.append(out.dtype)
        return out


def train_test_probe(pretrained: bool = False, progress: bool = True, **kwargs) -> _Probe:
    """The probe model (registered for these tests only)."""
    return _Probe(**kwargs)


if "train_test_probe" not in ModelCreator.model_list():
    ModelCreator.register_model(train_test_probe)

TINY = ["--dataset", "fake", "--img-size", "32", "--batch-size", "8", "--fake-size", "32", "--fake-val-size", "16",
        "--lr", "0.02", "--no-progress"]


def run(*argv):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        metrics = train.main([str(a) for a in argv])
    return metrics, out.getvalue()


def eval_lines(text, prefix="eval"):
    pattern = rf"^{prefix} epoch (\d+)/(\d+): loss (\S+)  top-1 (\S+)  top-5 (\S+)$"
    return [tuple(float(g) for g in m.groups()) for m in re.finditer(pattern, text, re.M)]


def train_losses(text):
    return [float(m.group(1)) for m in re.finditer(r"^epoch \d+/\d+: train loss (\S+)  lr", text, re.M)]


def test_resnet18_two_epochs_then_resume(tmp_path):
    out = tmp_path / "run"
    metrics, text = run("--model", "resnet18", *TINY, "--epochs", 2, "--warmup-epochs", 1, "--model-ema",
                        "--model-ema-decay", "0.9", "--workers", 2, "--output", out)
    assert text.startswith("model resnet18: 11.18M parameters, 10 classes; 32 training and 16 validation images")
    evals = eval_lines(text)
    assert [e[0] for e in evals] == [1, 2] and len(eval_lines(text, "ema eval")) == 2
    for _, _, loss, top1, top5 in evals + eval_lines(text, "ema eval"):
        assert math.isfinite(loss) and 0 <= top1 <= top5 <= 100
        assert top1 * 16 / 100 == pytest.approx(round(top1 * 16 / 100))  # a whole number of 16 images
    losses = train_losses(text)
    assert len(losses) == 2 and all(math.isfinite(v) for v in losses)
    assert metrics["top1"] == pytest.approx(evals[-1][3], abs=0.005)
    assert metrics["top5"] == pytest.approx(evals[-1][4], abs=0.005)

    state = flow.load(str(out / "last.of"))
    assert set(state) == {"model", "optimizer", "scheduler", "ema", "epoch", "num_updates", "rng_state",
                          "best_top1", "metrics", "args"}
    assert state["epoch"] == 2 and state["num_updates"] == 2 * 4  # 32 images / batch 8, two epochs
    model = ModelCreator.create_model("resnet18", num_classes=10)
    assert list(state["model"]) == list(model.state_dict())
    model.load_state_dict(state["model"])
    assert list(state["ema"]) == ["module." + k for k in model.state_dict()]
    assert len(state["optimizer"]["state"]) == len(list(model.parameters()))  # momentum buffers
    assert state["scheduler"]["t_initial"] == 8 and state["scheduler"]["warmup_t"] == 4
    assert state["args"]["model"] == "resnet18" and state["metrics"]["top1"] == metrics["top1"]
    assert (out / "best.of").exists()

    metrics3, text3 = run("--model", "resnet18", *TINY, "--epochs", 3, "--warmup-epochs", 1, "--model-ema",
                          "--model-ema-decay", "0.9", "--workers", 2, "--output", out, "--resume", out / "last.of")
    assert f"resumed from {out / 'last.of'} after epoch 2 (8 updates)" in text3
    assert [e[0] for e in eval_lines(text3)] == [3] and len(train_losses(text3)) == 1
    assert math.isfinite(train_losses(text3)[0])
    state3 = flow.load(str(out / "last.of"))
    assert state3["epoch"] == 3 and state3["num_updates"] == 12
    # --epochs grew from 2 to 3: the schedule is stretched to the new length.
    assert state3["scheduler"]["t_initial"] == 12
    changed = [k for k in state["model"] if k.endswith("weight")
               and not np.array_equal(state["model"][k].numpy(), state3["model"][k].numpy())]
    assert changed, "the resumed epoch did not train"


def test_resume_matches_an_uninterrupted_run(tmp_path, monkeypatch):
    common = ["--model", "train_test_probe", *TINY, "--model-ema", "--mixup", "0.8", "--cutmix", "1.0",
              "--smoothing", "0.1", "--opt", "adamw", "--warmup-epochs", "1", "--workers", "2", "--epochs", 3]
    run(*common, "--output", tmp_path / "straight")

    # The same run, interrupted (Ctrl-C) right after the second epoch's checkpoint.
    real_save = train.save_checkpoint

    def save_then_interrupt(path, state):
        real_save(path, state)
        if state["epoch"] == 2:
            raise KeyboardInterrupt

    monkeypatch.setattr(train, "save_checkpoint", save_then_interrupt)
    with pytest.raises(KeyboardInterrupt):
        run(*common, "--output", tmp_path / "split")
    monkeypatch.setattr(train, "save_checkpoint", real_save)
    _, text = run(*common, "--output", tmp_path / "split", "--resume", tmp_path / "split" / "last.of")
    assert [e[0] for e in eval_lines(text)] == [3]
    a, b = flow.load(str(tmp_path / "straight" / "last.of")), flow.load(str(tmp_path / "split" / "last.of"))
    assert a["epoch"] == b["epoch"] == 3 and a["num_updates"] == b["num_updates"] == 12
    for part in ("model", "ema"):
        for key in a[part]:
            np.testing.assert_array_equal(a[part][key].numpy(), b[part][key].numpy(), err_msg=f"{part} {key}")
    assert a["metrics"] == b["metrics"]


def test_imagefolder_amp_label_smoothing_and_per_epoch_schedule(tmp_path):
    root = tmp_path / "data"
    root.mkdir()
    os.symlink(TINY_IMAGEFOLDER, root / "train")
    os.symlink(TINY_IMAGEFOLDER, root / "val")
    SEEN_DTYPES.clear()
    metrics, text = run("--model", "train_test_probe", "--data-dir", root, "--img-size", "16", "--batch-size", 4,
                        "--epochs", 2, "--amp", "--smoothing", "0.1", "--sched-on-epochs", "--lr", "0.1",
                        "--min-lr", "0.0", "--workers", 0, "--output", tmp_path / "out", "--no-progress")
    assert "3 classes; 6 training and 6 validation images" in text
    assert SEEN_DTYPES and set(SEEN_DTYPES) == {flow.bfloat16}  # --amp: the linear layer ran in bfloat16
    evals = eval_lines(text)
    assert len(evals) == 2 and all(math.isfinite(e[2]) for e in evals)
    assert all(e[4] == 100.0 for e in evals)  # top-5 of 3 classes is always right
    # Per-epoch cosine over 2 epochs: after epoch 1 the lr is the curve's midpoint.
    lrs = [float(m) for m in re.findall(r"train loss \S+  lr (\S+)", text)]
    assert lrs[0] == pytest.approx(0.05, rel=1e-3) and lrs[1] == pytest.approx(0.0, abs=1e-12)
    assert math.isfinite(metrics["train_loss"])

    SEEN_DTYPES.clear()
    run("--model", "train_test_probe", "--data-dir", root, "--img-size", "16", "--batch-size", 4, "--epochs", 1,
        "--workers", 0, "--output", tmp_path / "out32", "--no-progress")
    assert set(SEEN_DTYPES) == {flow.float32}


def write_tiny_cifar10(root, per_batch=4, test=8):
    """The official "python version" layout, with a few random images per batch."""
    folder = os.path.join(root, "cifar-10-batches-py")
    os.makedirs(folder)
    rng = np.random.default_rng(0)

    def dump(name, entry):
        with open(os.path.join(folder, name), "wb") as f:
            pickle.dump(entry, f)

    for name, n in [(f"data_batch_{i}", per_batch) for i in range(1, 6)] + [("test_batch", test)]:
        dump(name, {"data": rng.integers(0, 256, (n, 3072), dtype=np.uint8), "labels": list(rng.integers(0, 10, n))})
    dump("batches.meta", {"label_names": [f"class{i}" for i in range(10)]})


def test_cifar10_from_local_files(tmp_path):
    write_tiny_cifar10(str(tmp_path))
    metrics, text = run("--model", "train_test_probe", "--dataset", "cifar10", "--data-dir", tmp_path,
                        "--img-size", 32, "--batch-size", 5, "--epochs", 1, "--workers", 0, "--mixup", 0.2,
                        "--output", tmp_path / "out", "--no-progress")
    assert "10 classes; 20 training and 8 validation images" in text
    assert len(eval_lines(text)) == 1 and math.isfinite(metrics["loss"]) and math.isfinite(metrics["train_loss"])
    assert flow.load(str(tmp_path / "out" / "last.of"))["num_updates"] == 4


def test_bad_command_lines(tmp_path):
    with pytest.raises(SystemExit, match="no checkpoint at"):
        run("--model", "train_test_probe", *TINY, "--epochs", 1, "--resume", tmp_path / "missing.of")
    with pytest.raises(SystemExit, match="no train/ folder"):
        run("--model", "train_test_probe", "--data-dir", tmp_path, "--epochs", 1)
    with pytest.raises(SystemExit, match="needs --data-dir"):
        run("--model", "train_test_probe", "--dataset", "cifar10", "--epochs", 1)
    with pytest.raises(RuntimeError, match="dataset not found"):
        run("--model", "train_test_probe", "--dataset", "cifar100", "--data-dir", tmp_path, "--epochs", 1)
    with pytest.raises(ValueError, match="unknown model 'resnet1'.*resnet18"):
        run("--model", "resnet1", *TINY, "--epochs", 1)
    with pytest.raises(SystemExit, match="fewer than --batch-size 64"):
        run("--model", "train_test_probe", "--dataset", "fake", "--fake-size", 10, "--batch-size", 64)
    with pytest.raises(SystemExit, match="expected key=value"):
        run("--model", "train_test_probe", *TINY, "--model-kwargs", "oops")
