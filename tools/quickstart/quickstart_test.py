"""The quickstart trains to the promised accuracy, checkpoints, and resumes exactly."""

import contextlib
import io

import numpy as np
import pytest
import quickstart

import oneflow as flow


def run(*argv):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        accuracy = quickstart.main(list(argv))
    return accuracy, out.getvalue()


def test_default_run_reaches_95_percent_and_checkpoints(tmp_path):
    ckpt = tmp_path / "digits.of"
    accuracy, text = run("--checkpoint", str(ckpt))
    assert accuracy >= 0.95, text
    losses = [float(line.split("loss ")[1].split()[0]) for line in text.splitlines() if ": loss " in line]
    assert len(losses) == 8 and losses[-1] < losses[0] * 0.2, text
    assert f"test accuracy {accuracy:.4f} on 360 images" in text
    state = flow.load(str(ckpt))
    assert state["epoch"] == 8
    model = quickstart.Net()
    model.load_state_dict(state["model"])
    _, test_set = quickstart.split_digits()
    loader = flow.utils.data.DataLoader(test_set, batch_size=100)
    assert quickstart.evaluate(model, loader) == accuracy


def test_resume_ends_with_the_weights_of_an_uninterrupted_run(tmp_path, monkeypatch):
    straight, split = tmp_path / "straight.of", tmp_path / "split.of"
    run("--epochs", "3", "--checkpoint", str(straight))

    # The same run, interrupted (Ctrl-C) right after the first epoch's checkpoint.
    real_save = flow.save

    def save_then_interrupt(obj, path):
        real_save(obj, path)
        raise KeyboardInterrupt

    monkeypatch.setattr(flow, "save", save_then_interrupt)
    with pytest.raises(KeyboardInterrupt):
        run("--epochs", "3", "--checkpoint", str(split))
    monkeypatch.setattr(flow, "save", real_save)
    accuracy, text = run("--epochs", "3", "--resume", "--checkpoint", str(split))
    assert "resumed from" in text and "after epoch 1" in text
    assert [line.split(":")[0] for line in text.splitlines() if ": loss " in line] == ["epoch 2/3", "epoch 3/3"]
    a, b = flow.load(str(straight)), flow.load(str(split))
    assert a["epoch"] == b["epoch"] == 3
    assert list(a["model"]) == list(b["model"])
    for key in a["model"]:
        np.testing.assert_array_equal(a["model"][key].numpy(), b["model"][key].numpy(), err_msg=key)
    assert a["scheduler"]["last_epoch"] == b["scheduler"]["last_epoch"]


def test_resume_without_a_checkpoint_says_so(tmp_path):
    with pytest.raises(SystemExit, match="no checkpoint at"):
        run("--resume", "--checkpoint", str(tmp_path / "missing.of"))
