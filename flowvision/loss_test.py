"""flowvision.loss against plain-PyTorch references of timm's losses: values and gradients."""

import numpy as np
import pytest
import torch
import torch.nn.functional as tF

import oneflow as flow
from flowvision.loss import LabelSmoothingCrossEntropy, SoftTargetCrossEntropy


def torch_label_smoothing_ce(x, target, smoothing):
    logprobs = tF.log_softmax(x, dim=-1)
    nll = -logprobs.gather(dim=-1, index=target.unsqueeze(1)).squeeze(1)
    smooth = -logprobs.mean(dim=-1)
    return ((1.0 - smoothing) * nll + smoothing * smooth).mean()


def torch_soft_target_ce(x, target):
    return torch.sum(-target * tF.log_softmax(x, dim=-1), dim=-1).mean()


def both(array, requires_grad=False):
    ours = flow.tensor(array, requires_grad=requires_grad)
    ref = torch.tensor(array, requires_grad=requires_grad)
    return ours, ref


@pytest.mark.parametrize("smoothing", [0.0, 0.1, 0.3, 0.9])
@pytest.mark.parametrize("n,c", [(1, 2), (8, 10), (33, 1000)])
def test_label_smoothing_matches_timm_reference_and_gradients(smoothing, n, c):
    rng = np.random.default_rng(n * 1000 + c)
    logits = (rng.standard_normal((n, c)) * 3).astype(np.float32)
    labels = rng.integers(0, c, size=n)
    x, tx = both(logits, requires_grad=True)
    loss = LabelSmoothingCrossEntropy(smoothing)(x, flow.tensor(labels))
    ref = torch_label_smoothing_ce(tx, torch.tensor(labels), smoothing)
    assert loss.shape == () and loss.dtype == flow.float32
    np.testing.assert_allclose(loss.item(), ref.item(), rtol=1e-5, atol=1e-6)
    # timm's formula is the same loss as cross_entropy's label_smoothing.
    builtin = tF.cross_entropy(torch.tensor(logits), torch.tensor(labels), label_smoothing=smoothing)
    np.testing.assert_allclose(loss.item(), builtin.item(), rtol=1e-5, atol=1e-6)
    loss.backward()
    ref.backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-4, atol=1e-7)


def test_label_smoothing_int32_labels_and_double_logits():
    rng = np.random.default_rng(1)
    logits = rng.standard_normal((5, 7))
    labels = rng.integers(0, 7, size=5)
    loss = LabelSmoothingCrossEntropy(0.2)(flow.tensor(logits), flow.tensor(labels.astype(np.int32)))
    assert loss.dtype == flow.float64
    ref = torch_label_smoothing_ce(torch.tensor(logits), torch.tensor(labels), 0.2)
    np.testing.assert_allclose(loss.item(), ref.item(), rtol=1e-12)


def test_label_smoothing_default_and_repr():
    loss_fn = LabelSmoothingCrossEntropy()
    assert loss_fn.smoothing == 0.1 and loss_fn.confidence == pytest.approx(0.9)
    assert "smoothing=0.1" in repr(loss_fn)


@pytest.mark.parametrize("n,c", [(1, 3), (16, 10), (7, 100)])
def test_soft_target_matches_timm_reference_and_gradients(n, c):
    rng = np.random.default_rng(n + c)
    logits = (rng.standard_normal((n, c)) * 2).astype(np.float32)
    raw = rng.random((n, c)).astype(np.float32)
    targets = raw / raw.sum(1, keepdims=True)
    x, tx = both(logits, requires_grad=True)
    t, tt = both(targets, requires_grad=True)
    loss = SoftTargetCrossEntropy()(x, t)
    ref = torch_soft_target_ce(tx, tt)
    np.testing.assert_allclose(loss.item(), ref.item(), rtol=1e-5, atol=1e-6)
    loss.backward()
    ref.backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-4, atol=1e-7)
    # The targets get a gradient too (e.g. for distillation with a learned teacher).
    np.testing.assert_allclose(t.grad.numpy(), tt.grad.numpy(), rtol=1e-4, atol=1e-6)


def test_soft_target_with_one_hot_equals_cross_entropy():
    rng = np.random.default_rng(3)
    logits = rng.standard_normal((6, 4)).astype(np.float32)
    labels = rng.integers(0, 4, size=6)
    onehot = np.eye(4, dtype=np.float32)[labels]
    loss = SoftTargetCrossEntropy()(flow.tensor(logits), flow.tensor(onehot))
    np.testing.assert_allclose(loss.item(), tF.cross_entropy(torch.tensor(logits), torch.tensor(labels)).item(),
                               rtol=1e-5)


def test_soft_target_with_mixup_targets_trains():
    from flowvision.transforms import Mixup

    flow.manual_seed(0)
    images = flow.randn(8, 3, 4, 4)
    labels = flow.randint(0, 5, (8,))
    mixed, targets = Mixup(alpha=1.0, num_classes=5, label_smoothing=0.1)(images, labels)
    model = flow.nn.Sequential(flow.nn.Flatten(), flow.nn.Linear(48, 5))
    loss = SoftTargetCrossEntropy()(model(mixed), targets)
    loss.backward()
    assert np.isfinite(loss.item()) and model[1].weight.grad is not None


def test_bad_inputs_raise_clear_errors():
    with pytest.raises(ValueError, match=r"smoothing should be in \[0, 1\), got 1.0"):
        LabelSmoothingCrossEntropy(1.0)
    with pytest.raises(ValueError, match="smoothing"):
        LabelSmoothingCrossEntropy(-0.1)
    ls, st = LabelSmoothingCrossEntropy(), SoftTargetCrossEntropy()
    x = flow.randn(4, 3)
    with pytest.raises(ValueError, match=r"class indices of shape \(4,\).*shape \(4, 3\).*\(3,\)"):
        ls(x, flow.tensor([0, 1, 2]))
    with pytest.raises(ValueError, match="SoftTargetCrossEntropy for soft targets"):
        ls(x, flow.rand(4, 3))
    with pytest.raises(ValueError, match=r"floating-point logits.*int64"):
        ls(flow.tensor([[1, 2]]), flow.tensor([0]))
    with pytest.raises(ValueError, match=r"soft targets of the logits' shape \(4, 3\), got shape \(4,\)"):
        st(x, flow.tensor([0, 1, 2, 0]))
    with pytest.raises(TypeError, match="oneflow tensor"):
        st(np.zeros((4, 3), np.float32), flow.rand(4, 3))
