"""OneFlow's extra functional ops: square_relu against torch, gumbel_softmax by its
distribution, ctc_greedy_decoder against best paths worked out by hand."""

import numpy as np
import pytest
import torch

import oneflow as flow
import oneflow.nn.functional as F


def test_square_relu_and_gradient():
    a = np.linspace(-2, 2, 9, dtype=np.float32)
    x = flow.tensor(a, requires_grad=True)
    t = torch.tensor(a, requires_grad=True)
    y, e = F.square_relu(x), torch.relu(t) ** 2
    np.testing.assert_allclose(y.detach().numpy(), e.detach().numpy())
    y.sum().backward()
    e.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy())
    with pytest.raises(TypeError, match=r"square_relu\(\): argument 'x' must be Tensor"):
        F.square_relu([1.0])


def test_gumbel_softmax_samples_follow_the_softmax():
    flow.manual_seed(0)
    logits = flow.tensor([[1.0, 0.0, -1.0, 2.0]]).repeat(4000, 1)
    soft = F.gumbel_softmax(logits, tau=0.5)
    np.testing.assert_allclose(soft.sum(-1).numpy(), np.ones(4000), rtol=1e-5)
    assert (soft.numpy() >= 0).all() and (soft.numpy() <= 1).all()
    # Gumbel-max: the argmax of logits + gumbel noise is distributed as softmax(logits).
    counts = np.bincount(soft.argmax(-1).numpy(), minlength=4) / 4000
    p = np.exp([1.0, 0.0, -1.0, 2.0])
    np.testing.assert_allclose(counts, p / p.sum(), atol=0.03)


def test_gumbel_softmax_hard_is_one_hot_with_the_soft_gradient():
    flow.manual_seed(1)
    logits = flow.randn(5, 3, requires_grad=True)
    hard = F.gumbel_softmax(logits, hard=True, dim=1)
    assert set(np.unique(hard.detach().numpy())) <= {0.0, 1.0}
    np.testing.assert_array_equal(hard.detach().sum(1).numpy(), np.ones(5))
    (hard * flow.arange(3.0)).sum().backward()
    assert logits.grad is not None and np.isfinite(logits.grad.numpy()).all()
    assert np.abs(logits.grad.numpy()).sum() > 0
    with pytest.raises(ValueError, match="tau must be positive"):
        F.gumbel_softmax(logits, tau=0)
    with pytest.raises(RuntimeError, match="floating point"):
        F.gumbel_softmax(flow.tensor([1, 2]))


# (T=4, N=2, C=5) log-probabilities; blank is C - 1 = 4.
LOG_PROBS = [
    [[-1.54, -1.20, -1.95, -1.65, -1.81], [-1.84, -1.74, -1.58, -1.55, -1.12]],
    [[-1.68, -1.48, -1.89, -1.30, -2.07], [-1.13, -1.45, -1.24, -1.61, -1.66]],
    [[-1.56, -1.40, -2.83, -1.67, -1.48], [-1.20, -2.01, -2.05, -1.95, -1.24]],
    [[-2.09, -1.76, -1.36, -1.67, -1.45], [-1.85, -1.48, -1.34, -2.16, -1.55]],
]


def test_ctc_greedy_decoder_best_paths():
    # Best paths: batch 0 takes labels 1, 3, 1, 2; batch 1 takes 4 (blank), 0, 0, 2.
    decoded, neg = F.ctc_greedy_decoder(flow.tensor(LOG_PROBS), flow.tensor([4, 4]))
    assert decoded.dtype == flow.int64 and decoded.tolist() == [[1, 3, 1, 2], [0, 2, 0, 0]]
    np.testing.assert_allclose(neg.numpy(), [[1.20 + 1.30 + 1.40 + 1.36], [1.12 + 1.13 + 1.20 + 1.34]], rtol=1e-6)
    # Without merging, the repeated 0 of batch 1 stays; lengths cut the paths.
    decoded, neg = F.ctc_greedy_decoder(flow.tensor(LOG_PROBS), flow.tensor([2, 3]), merge_repeated=False)
    assert decoded.tolist() == [[1, 3, 0, 0], [0, 0, 0, 0]]
    np.testing.assert_allclose(neg.numpy(), [[1.20 + 1.30], [1.12 + 1.13 + 1.20]], rtol=1e-6)


def test_ctc_greedy_decoder_errors():
    with pytest.raises(RuntimeError, match=r"log_probs must be \(input_length, batch_size, num_labels\)"):
        F.ctc_greedy_decoder(flow.zeros(4, 5), flow.tensor([4]))
    with pytest.raises(RuntimeError, match="input_lengths must be an integer tensor of shape"):
        F.ctc_greedy_decoder(flow.zeros(4, 2, 5), flow.tensor([4]))
    with pytest.raises(RuntimeError, match=r"input_lengths must be in \[0, 4\]"):
        F.ctc_greedy_decoder(flow.zeros(4, 2, 5), flow.tensor([4, 5]))


def test_sparse_softmax_cross_entropy_takes_labels_first():
    logits = np.array([[1.0, 2.0, 0.5], [0.1, -1.0, 3.0]], dtype=np.float32)
    labels = np.array([1, 2])
    out = F.sparse_softmax_cross_entropy(flow.tensor(labels), flow.tensor(logits))
    expected = torch.nn.functional.cross_entropy(torch.tensor(logits), torch.tensor(labels), reduction="none")
    np.testing.assert_allclose(out.numpy(), expected.numpy(), rtol=1e-5, atol=1e-6)
