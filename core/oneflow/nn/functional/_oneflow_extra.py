"""Functions of OneFlow's ``oneflow.nn.functional`` beyond PyTorch's: ``square_relu`` and
``ctc_greedy_decoder``; and ``gumbel_softmax``, which both have."""

from __future__ import annotations

import numpy as np

import oneflow

__all__ = ["ctc_greedy_decoder", "gumbel_softmax", "sparse_softmax_cross_entropy", "square_relu"]


def _check_tensor(fn: str, name: str, value) -> None:
    if not isinstance(value, oneflow.Tensor):
        raise TypeError(f"{fn}(): argument '{name}' must be Tensor, not {type(value).__name__}")


def square_relu(x):
    """OneFlow's square_relu: relu(x) ** 2."""
    _check_tensor("square_relu", "x", x)
    r = oneflow.relu(x)
    return r * r


def gumbel_softmax(logits, tau: float = 1.0, hard: bool = False, eps: float = 1e-10, dim: int = -1):
    """Samples from the Gumbel-softmax distribution over ``dim``: softmax((logits + g) / tau) with
    g = -log(E), E ~ Exponential(1). ``hard=True`` returns the one-hot of its argmax, with the
    soft sample's gradient (straight-through). ``eps`` is unused, as in PyTorch."""
    _check_tensor("gumbel_softmax", "logits", logits)
    if not logits.is_floating_point():
        raise RuntimeError(f"gumbel_softmax(): expected a floating point logits tensor, got {logits.dtype}")
    if tau <= 0:
        raise ValueError(f"gumbel_softmax(): tau must be positive, got {tau}")
    # E = -log(U) ~ Exponential(1) for U ~ Uniform(0, 1); U kept off 0, drawn in float32 at least.
    noise_dtype = oneflow.float64 if logits.dtype == oneflow.float64 else oneflow.float32
    u = oneflow.rand(*logits.shape, dtype=noise_dtype, device=logits.device).clamp(min=1e-30)
    gumbels = (-(-u.log()).log()).to(logits.dtype)
    soft = oneflow.softmax((logits + gumbels) / tau, dim)
    if not hard:
        return soft
    index = soft.argmax(dim, keepdim=True)
    one_hot = oneflow.zeros_like(logits).scatter_(dim, index, 1.0)
    return one_hot - soft.detach() + soft


def ctc_greedy_decoder(log_probs, input_lengths, merge_repeated: bool = True):
    """OneFlow's greedy (best path) CTC decoding of ``log_probs`` (T, N, C), blank = C - 1.

    Returns ``decoded`` (N, T) int64, each row the labels of the best path with blanks removed
    (and consecutive repeats merged when ``merge_repeated``), padded with 0; and
    ``neg_sum_logits`` (N, 1), minus the sum over the first ``input_lengths[n]`` steps of the
    greatest log-probability."""
    _check_tensor("ctc_greedy_decoder", "log_probs", log_probs)
    _check_tensor("ctc_greedy_decoder", "input_lengths", input_lengths)
    if log_probs.dim() != 3:
        raise RuntimeError(
            f"ctc_greedy_decoder(): log_probs must be (input_length, batch_size, num_labels), got shape "
            f"{tuple(log_probs.shape)}"
        )
    t_max, n, c = log_probs.shape
    if tuple(input_lengths.shape) != (n,) or input_lengths.is_floating_point():
        raise RuntimeError(
            f"ctc_greedy_decoder(): input_lengths must be an integer tensor of shape ({n},), got "
            f"{tuple(input_lengths.shape)} {input_lengths.dtype}"
        )
    lengths = input_lengths.numpy()
    if (lengths < 0).any() or (lengths > t_max).any():
        raise RuntimeError(f"ctc_greedy_decoder(): input_lengths must be in [0, {t_max}], got {lengths.tolist()}")
    best, best_index = log_probs.detach().max(2)
    best, best_index = best.numpy(), best_index.numpy()
    decoded = np.zeros((n, t_max), dtype=np.int64)
    neg_sum = np.zeros((n, 1), dtype=best.dtype)
    blank = c - 1
    for b in range(n):
        out, previous = [], -1
        for t in range(int(lengths[b])):
            label = int(best_index[t, b])
            neg_sum[b, 0] -= best[t, b]
            if label != blank and not (merge_repeated and label == previous):
                out.append(label)
            previous = label
        decoded[b, : len(out)] = out
    return oneflow.from_numpy(decoded), oneflow.from_numpy(neg_sum)


def sparse_softmax_cross_entropy(labels, logits):
    """OneFlow's (and TensorFlow's) argument order, labels first: the per-sample cross entropy of
    ``logits`` (..., C) against class indices ``labels`` (...), oneflow._C.sparse_softmax_cross_entropy."""
    return oneflow._C.sparse_softmax_cross_entropy(logits, labels)
