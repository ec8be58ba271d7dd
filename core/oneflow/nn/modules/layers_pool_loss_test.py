"""The pooling, embedding, shuffle and loss layers of oneflow.nn, against PyTorch's.

Each case builds the same layer in both frameworks (``m`` is oneflow or torch), copies
torch's state into ours with ``load_state_dict``, runs both on the same inputs and
compares the outputs, the state after the call (``max_norm`` renormalizes in place),
the gradients of the floating inputs and of the parameters, ``requires_grad`` of the
parameters and the repr. Bad arguments must raise torch's exception type, with a
message that names the op and the shapes.
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Callable

import numpy as np
import pytest
import torch

import oneflow as flow


@dataclasses.dataclass
class Fixed:
    """A floating input that does not require grad (targets torch cannot differentiate)."""

    array: np.ndarray


@dataclasses.dataclass
class Case:
    id: str
    build: Callable  # m -> layer
    inputs: Callable  # rng -> list of arrays, Fixed arrays or Python values
    call: Callable | None = None  # (layer, m, *inputs) -> outputs; default layer(*inputs)
    rtol: float = 1e-5
    atol: float = 1e-6


def randn(rng, *shape, dtype=np.float32):
    return rng.standard_normal(shape).astype(dtype)


def uniform(rng, low, high, *shape):
    return rng.uniform(low, high, shape).astype(np.float32)


def ints(rng, low, high, *shape):
    return rng.integers(low, high, shape).astype(np.int64)


def signs(rng, *shape):
    return np.where(rng.random(shape) < 0.5, -1.0, 1.0).astype(np.float32)


def log_softmax(a, axis):
    a = a - a.max(axis=axis, keepdims=True)
    return (a - np.log(np.exp(a).sum(axis=axis, keepdims=True))).astype(np.float32)


_FIXED = np.random.default_rng(1234)
W4 = _FIXED.uniform(0.5, 1.5, 4).astype(np.float32)
W5 = _FIXED.uniform(0.5, 1.5, 5).astype(np.float32)
TABLE = _FIXED.standard_normal((10, 3)).astype(np.float32)
SAMPLES_2D = _FIXED.random((2, 3, 2)).astype(np.float32)
SAMPLES_2D_ONE = _FIXED.random((1, 3, 2)).astype(np.float32)
SAMPLES_3D = _FIXED.random((2, 2, 3)).astype(np.float64)


def T(m, array):
    return m.tensor(array)


def pooled(pool):
    """Calls an unpooling layer on what ``pool(m)`` returns for the input (values and indices)."""
    return lambda layer, m, x, *rest: layer(*pool(m)(x), *rest)


# ---- pooling, embedding and shuffle layers ---------------------------------------------------

LAYER_CASES = [
    Case("MaxPool1d", lambda m: m.nn.MaxPool1d(3, stride=2, padding=1, dilation=2, return_indices=True,
                                               ceil_mode=True), lambda r: [randn(r, 2, 3, 11)]),
    Case("MaxPool1d_unbatched", lambda m: m.nn.MaxPool1d(2), lambda r: [randn(r, 3, 9)]),
    Case("MaxPool2d", lambda m: m.nn.MaxPool2d((3, 2), stride=(2, 1), padding=1, dilation=(1, 2), ceil_mode=True,
                                               return_indices=True), lambda r: [randn(r, 2, 3, 9, 8)]),
    Case("MaxPool2d_unbatched", lambda m: m.nn.MaxPool2d(2), lambda r: [randn(r, 3, 6, 5)]),
    Case("MaxPool3d", lambda m: m.nn.MaxPool3d(2, stride=2, padding=1, ceil_mode=True, return_indices=True),
         lambda r: [randn(r, 1, 2, 5, 6, 5)]),
    Case("MaxPool3d_dilation", lambda m: m.nn.MaxPool3d((2, 3, 2), stride=1, dilation=(2, 1, 1)),
         lambda r: [randn(r, 1, 2, 5, 6, 5)]),
    Case("AvgPool1d", lambda m: m.nn.AvgPool1d(3, 2, 1, ceil_mode=True, count_include_pad=False),
         lambda r: [randn(r, 2, 3, 10)]),
    Case("AvgPool1d_default", lambda m: m.nn.AvgPool1d(4), lambda r: [randn(r, 3, 10)]),
    Case("AvgPool2d_ceil", lambda m: m.nn.AvgPool2d(3, 2, 1, ceil_mode=True), lambda r: [randn(r, 2, 3, 8, 7)]),
    Case("AvgPool2d_divisor", lambda m: m.nn.AvgPool2d((3, 2), stride=(2, 1), padding=(1, 0),
                                                       count_include_pad=False, divisor_override=3),
         lambda r: [randn(r, 2, 3, 8, 7)]),
    Case("AvgPool3d", lambda m: m.nn.AvgPool3d(3, 2, 1, ceil_mode=True, count_include_pad=False),
         lambda r: [randn(r, 1, 2, 6, 7, 5)]),
    Case("AvgPool3d_divisor", lambda m: m.nn.AvgPool3d(2, divisor_override=5), lambda r: [randn(r, 2, 4, 5, 4)]),
    Case("MaxUnpool1d", lambda m: m.nn.MaxUnpool1d(3, 2), lambda r: [randn(r, 2, 3, 11), [12]],
         call=lambda layer, m, x, size: layer(*m.nn.MaxPool1d(3, 2, return_indices=True)(x), output_size=size)),
    Case("MaxUnpool2d", lambda m: m.nn.MaxUnpool2d(2), lambda r: [randn(r, 2, 3, 6, 4)],
         call=pooled(lambda m: m.nn.MaxPool2d(2, return_indices=True))),
    Case("MaxUnpool2d_padded", lambda m: m.nn.MaxUnpool2d(3, stride=2, padding=1),
         lambda r: [randn(r, 1, 2, 7, 8), [7, 8]],
         call=lambda layer, m, x, size: layer(*m.nn.MaxPool2d(3, 2, 1, return_indices=True)(x), output_size=size)),
    Case("MaxUnpool3d", lambda m: m.nn.MaxUnpool3d(2), lambda r: [randn(r, 1, 2, 4, 6, 4)],
         call=pooled(lambda m: m.nn.MaxPool3d(2, return_indices=True))),
    Case("AdaptiveAvgPool1d", lambda m: m.nn.AdaptiveAvgPool1d(4), lambda r: [randn(r, 2, 3, 10)]),
    Case("AdaptiveAvgPool2d", lambda m: m.nn.AdaptiveAvgPool2d((None, 3)), lambda r: [randn(r, 2, 3, 5, 7)]),
    Case("AdaptiveAvgPool2d_unbatched", lambda m: m.nn.AdaptiveAvgPool2d(3), lambda r: [randn(r, 3, 7, 5)]),
    Case("AdaptiveAvgPool3d", lambda m: m.nn.AdaptiveAvgPool3d((2, None, 3)), lambda r: [randn(r, 1, 2, 5, 4, 7)]),
    Case("AdaptiveMaxPool1d", lambda m: m.nn.AdaptiveMaxPool1d(4, return_indices=True),
         lambda r: [randn(r, 2, 3, 10)]),
    Case("AdaptiveMaxPool2d", lambda m: m.nn.AdaptiveMaxPool2d((3, None), return_indices=True),
         lambda r: [randn(r, 2, 3, 7, 5)]),
    Case("AdaptiveMaxPool3d", lambda m: m.nn.AdaptiveMaxPool3d(2), lambda r: [randn(r, 1, 2, 5, 4, 7)]),
    Case("LPPool1d", lambda m: m.nn.LPPool1d(2, 3), lambda r: [uniform(r, 0.1, 2, 2, 3, 10)]),
    Case("LPPool1d_ceil", lambda m: m.nn.LPPool1d(3, 3, stride=2, ceil_mode=True),
         lambda r: [uniform(r, 0.1, 2, 2, 3, 10)]),
    Case("LPPool2d", lambda m: m.nn.LPPool2d(2, (3, 2), stride=(2, 1), ceil_mode=True),
         lambda r: [uniform(r, 0.1, 2, 2, 3, 8, 7)]),
    Case("LPPool2d_fractional_p", lambda m: m.nn.LPPool2d(1.5, 2), lambda r: [uniform(r, 0.1, 2, 3, 6, 5)]),
    Case("LPPool2d_p1_signed", lambda m: m.nn.LPPool2d(1, 2), lambda r: [randn(r, 2, 2, 4, 6)]),
    Case("LPPool2d_inf", lambda m: m.nn.LPPool2d(float("inf"), 2, stride=1), lambda r: [randn(r, 2, 3, 4, 5)]),
    Case("LPPool1d_minus_inf", lambda m: m.nn.LPPool1d(-float("inf"), 3), lambda r: [randn(r, 2, 3, 9)]),
    Case("LPPool3d", lambda m: m.nn.LPPool3d(2, 2, ceil_mode=True), lambda r: [uniform(r, 0.1, 2, 1, 2, 5, 4, 5)]),
    Case("FractionalMaxPool2d", lambda m: m.nn.FractionalMaxPool2d(3, output_size=(4, 5), return_indices=True,
                                                                   _random_samples=T(m, SAMPLES_2D)),
         lambda r: [randn(r, 2, 3, 9, 11)]),
    Case("FractionalMaxPool2d_ratio", lambda m: m.nn.FractionalMaxPool2d((2, 3), output_ratio=(0.5, 0.6),
                                                                         _random_samples=T(m, SAMPLES_2D)),
         lambda r: [randn(r, 2, 3, 10, 11)]),
    Case("FractionalMaxPool2d_unbatched", lambda m: m.nn.FractionalMaxPool2d(2, output_size=3, return_indices=True,
                                                                             _random_samples=T(m, SAMPLES_2D_ONE)),
         lambda r: [randn(r, 3, 6, 7)]),
    Case("FractionalMaxPool2d_ties", lambda m: m.nn.FractionalMaxPool2d(2, output_size=4, return_indices=True,
                                                                        _random_samples=T(m, SAMPLES_2D)),
         lambda r: [r.integers(0, 3, (2, 3, 7, 7)).astype(np.float32)]),
    Case("FractionalMaxPool2d_nan", lambda m: m.nn.FractionalMaxPool2d(2, output_size=4, return_indices=True,
                                                                       _random_samples=T(m, SAMPLES_2D)),
         lambda r: [np.where(r.random((2, 3, 7, 8)) < 0.1, np.nan, randn(r, 2, 3, 7, 8)).astype(np.float32)]),
    Case("FractionalMaxPool3d", lambda m: m.nn.FractionalMaxPool3d((2, 3, 1), output_size=(3, 4, 5),
                                                                   return_indices=True,
                                                                   _random_samples=T(m, SAMPLES_3D)),
         lambda r: [randn(r, 2, 2, 7, 8, 9, dtype=np.float64)]),
    Case("FractionalMaxPool3d_ratio_unbatched", lambda m: m.nn.FractionalMaxPool3d(
        2, output_ratio=0.6, _random_samples=T(m, SAMPLES_3D[:1])), lambda r: [randn(r, 2, 7, 8, 9, dtype=np.float64)]),
    Case("Embedding_padding", lambda m: m.nn.Embedding(10, 4, padding_idx=2),
         lambda r: [np.array([[2, 1, 5, 2, 9], [0, 2, 1, 1, 3], [4, 4, 2, 8, 7]])]),
    Case("Embedding_negative_padding", lambda m: m.nn.Embedding(10, 4, padding_idx=-1),
         lambda r: [np.array([9, 1, 9, 3])]),
    Case("Embedding_max_norm", lambda m: m.nn.Embedding(10, 4, max_norm=1.0), lambda r: [ints(r, 0, 10, 3, 6)]),
    Case("Embedding_max_norm_l1_freq", lambda m: m.nn.Embedding(10, 4, max_norm=0.5, norm_type=1.0,
                                                                scale_grad_by_freq=True),
         lambda r: [np.array([[1, 1, 3], [3, 1, 7]])]),
    Case("Embedding_from_pretrained_frozen", lambda m: m.nn.Embedding.from_pretrained(T(m, TABLE)),
         lambda r: [ints(r, 0, 10, 5)]),
    Case("Embedding_from_pretrained_trainable",
         lambda m: m.nn.Embedding.from_pretrained(T(m, TABLE), freeze=False, padding_idx=0),
         lambda r: [np.array([0, 1, 0, 4, 9])]),
    Case("EmbeddingBag_sum", lambda m: m.nn.EmbeddingBag(10, 3, mode="sum"),
         lambda r: [np.array([1, 2, 4, 5, 4, 3, 2, 9]), np.array([0, 3, 3, 5])]),
    Case("EmbeddingBag_mean_padding", lambda m: m.nn.EmbeddingBag(10, 3, padding_idx=4),
         lambda r: [np.array([1, 2, 4, 5, 4, 4, 2, 9]), np.array([0, 3, 5, 6])]),
    Case("EmbeddingBag_max_last_offset", lambda m: m.nn.EmbeddingBag(10, 3, mode="max", include_last_offset=True,
                                                                      padding_idx=-1),
         lambda r: [np.array([1, 2, 9, 5, 4, 3, 2, 9, 7]), np.array([0, 3, 3, 4, 9])]),
    Case("EmbeddingBag_sum_weights", lambda m: m.nn.EmbeddingBag(10, 3, mode="sum", padding_idx=2),
         lambda r: [np.array([1, 2, 4, 5, 4, 3, 2, 9]), np.array([0, 2, 6]), uniform(r, 0.5, 1.5, 8)]),
    Case("EmbeddingBag_2d_mean", lambda m: m.nn.EmbeddingBag(10, 3), lambda r: [ints(r, 0, 10, 4, 3)]),
    Case("EmbeddingBag_2d_sum_weights", lambda m: m.nn.EmbeddingBag(10, 3, mode="sum"),
         lambda r: [ints(r, 0, 10, 3, 4), None, uniform(r, 0.5, 1.5, 3, 4)]),
    Case("EmbeddingBag_2d_max", lambda m: m.nn.EmbeddingBag(10, 3, mode="max"), lambda r: [ints(r, 0, 10, 3, 4)]),
    Case("EmbeddingBag_max_norm", lambda m: m.nn.EmbeddingBag(10, 3, max_norm=1.0, norm_type=3.0),
         lambda r: [ints(r, 0, 10, 9), np.array([0, 4, 7])]),
    Case("EmbeddingBag_freq", lambda m: m.nn.EmbeddingBag(10, 3, mode="sum", scale_grad_by_freq=True),
         lambda r: [np.array([4, 1, 2, 4, 4]), np.array([0, 2])]),
    Case("EmbeddingBag_int32", lambda m: m.nn.EmbeddingBag(10, 3, mode="mean"),
         lambda r: [np.array([1, 1, 5, 2], dtype=np.int32), np.array([0, 1], dtype=np.int32)]),
    Case("EmbeddingBag_from_pretrained", lambda m: m.nn.EmbeddingBag.from_pretrained(T(m, TABLE), freeze=False,
                                                                                      mode="max"),
         lambda r: [ints(r, 0, 10, 7), np.array([0, 2, 2, 5])]),
    Case("EmbeddingBag_from_pretrained_frozen", lambda m: m.nn.EmbeddingBag.from_pretrained(T(m, TABLE)),
         lambda r: [ints(r, 0, 10, 2, 3)]),
    Case("PixelShuffle", lambda m: m.nn.PixelShuffle(2), lambda r: [randn(r, 2, 8, 3, 3)]),
    Case("PixelShuffle_unbatched", lambda m: m.nn.PixelShuffle(3), lambda r: [randn(r, 9, 2, 2)]),
    Case("PixelUnshuffle", lambda m: m.nn.PixelUnshuffle(2), lambda r: [randn(r, 2, 2, 4, 6)]),
    Case("ChannelShuffle", lambda m: m.nn.ChannelShuffle(3), lambda r: [randn(r, 2, 6, 3, 2)]),
    Case("ChannelShuffle_3d", lambda m: m.nn.ChannelShuffle(2), lambda r: [randn(r, 2, 4, 5)]),
    Case("ChannelShuffle_5d", lambda m: m.nn.ChannelShuffle(2), lambda r: [randn(r, 1, 4, 2, 3, 2)]),
]


# ---- losses: every class with every reduction ------------------------------------------------


def _ce_target(r):
    return [randn(r, 4, 5), ints(r, 0, 5, 4)]


def _probs(r, *shape):
    p = np.exp(randn(r, *shape))
    return (p / p.sum(axis=1, keepdims=True)).astype(np.float32)


def _multilabel_target(r):
    return [randn(r, 3, 5), np.array([[3, 0, -1, 1, 2], [0, 1, 2, 3, 4], [1, 1, 4, -1, -1]])]


def _ctc_inputs(r, concatenated=False):
    log_probs = log_softmax(randn(r, 6, 2, 4), 2)
    targets = np.array([[1, 2, 2], [3, 1, 0]])
    lengths = [3, 2]
    if concatenated:
        targets = np.array([1, 2, 2, 3, 1])
    return [log_probs, targets, [6, 5], lengths]


# (id, build(m, reduction), inputs, reductions)
_LOSSES = [
    ("L1Loss", lambda m, red: m.nn.L1Loss(reduction=red), lambda r: [randn(r, 3, 4), randn(r, 3, 4)]),
    ("MSELoss", lambda m, red: m.nn.MSELoss(reduction=red), lambda r: [randn(r, 3, 4), randn(r, 3, 4)]),
    ("HuberLoss", lambda m, red: m.nn.HuberLoss(reduction=red, delta=0.7),
     lambda r: [randn(r, 3, 4), randn(r, 3, 4)]),
    ("SmoothL1Loss", lambda m, red: m.nn.SmoothL1Loss(reduction=red, beta=0.6),
     lambda r: [randn(r, 3, 4), randn(r, 3, 4)]),
    ("SmoothL1Loss_beta0", lambda m, red: m.nn.SmoothL1Loss(reduction=red, beta=0.0),
     lambda r: [randn(r, 3, 4), randn(r, 3, 4)]),
    ("CrossEntropyLoss", lambda m, red: m.nn.CrossEntropyLoss(reduction=red), _ce_target),
    ("CrossEntropyLoss_weight", lambda m, red: m.nn.CrossEntropyLoss(T(m, W5), reduction=red), _ce_target),
    ("CrossEntropyLoss_ignore", lambda m, red: m.nn.CrossEntropyLoss(T(m, W5), ignore_index=1, reduction=red),
     lambda r: [randn(r, 4, 5), np.array([1, 0, 1, 4])]),
    ("CrossEntropyLoss_smoothing", lambda m, red: m.nn.CrossEntropyLoss(T(m, W5), ignore_index=2, reduction=red,
                                                                        label_smoothing=0.15),
     lambda r: [randn(r, 4, 5), np.array([2, 0, 1, 4])]),
    ("CrossEntropyLoss_probs", lambda m, red: m.nn.CrossEntropyLoss(T(m, W5), reduction=red, label_smoothing=0.1),
     lambda r: [randn(r, 4, 5), _probs(r, 4, 5)]),
    ("CrossEntropyLoss_kdim", lambda m, red: m.nn.CrossEntropyLoss(reduction=red, ignore_index=0),
     lambda r: [randn(r, 2, 5, 3, 2), ints(r, 0, 5, 2, 3, 2)]),
    ("CrossEntropyLoss_unbatched", lambda m, red: m.nn.CrossEntropyLoss(reduction=red),
     lambda r: [randn(r, 5), np.array(3)]),
    ("NLLLoss", lambda m, red: m.nn.NLLLoss(T(m, W5), ignore_index=3, reduction=red),
     lambda r: [log_softmax(randn(r, 4, 5), 1), np.array([3, 0, 1, 4])]),
    ("NLLLoss_kdim", lambda m, red: m.nn.NLLLoss(reduction=red),
     lambda r: [log_softmax(randn(r, 2, 5, 3), 1), ints(r, 0, 5, 2, 3)]),
    ("NLLLoss2d", lambda m, red: m.nn.NLLLoss2d(reduction=red),
     lambda r: [log_softmax(randn(r, 2, 5, 3, 2), 1), ints(r, 0, 5, 2, 3, 2)]),
    ("BCELoss", lambda m, red: m.nn.BCELoss(T(m, W4), reduction=red),
     lambda r: [uniform(r, 0.05, 0.95, 3, 4), uniform(r, 0, 1, 3, 4)]),
    ("BCEWithLogitsLoss", lambda m, red: m.nn.BCEWithLogitsLoss(T(m, W4), reduction=red,
                                                                pos_weight=T(m, W4[::-1].copy())),
     lambda r: [randn(r, 3, 4), uniform(r, 0, 1, 3, 4)]),
    ("BCEWithLogitsLoss_plain", lambda m, red: m.nn.BCEWithLogitsLoss(reduction=red),
     lambda r: [randn(r, 3, 4) * 5, uniform(r, 0, 1, 3, 4)]),
    ("KLDivLoss", lambda m, red: m.nn.KLDivLoss(reduction=red),
     lambda r: [log_softmax(randn(r, 3, 4), 1), _probs(r, 3, 4)]),
    ("KLDivLoss_log_target", lambda m, red: m.nn.KLDivLoss(reduction=red, log_target=True),
     lambda r: [log_softmax(randn(r, 3, 4), 1), log_softmax(randn(r, 3, 4), 1)]),
    ("SoftMarginLoss", lambda m, red: m.nn.SoftMarginLoss(reduction=red),
     lambda r: [randn(r, 3, 4) * 3, Fixed(signs(r, 3, 4))]),
    ("MultiLabelSoftMarginLoss", lambda m, red: m.nn.MultiLabelSoftMarginLoss(T(m, W4), reduction=red),
     lambda r: [randn(r, 3, 4), Fixed((r.random((3, 4)) < 0.5).astype(np.float32))]),
    ("MultiLabelMarginLoss", lambda m, red: m.nn.MultiLabelMarginLoss(reduction=red), _multilabel_target),
    ("MultiLabelMarginLoss_unbatched", lambda m, red: m.nn.MultiLabelMarginLoss(reduction=red),
     lambda r: [randn(r, 4), np.array([2, 0, -1, 3])]),
    ("MultiMarginLoss", lambda m, red: m.nn.MultiMarginLoss(reduction=red), _ce_target),
    ("MultiMarginLoss_p2_weight", lambda m, red: m.nn.MultiMarginLoss(p=2, margin=0.5, weight=T(m, W5),
                                                                      reduction=red), _ce_target),
    ("MultiMarginLoss_unbatched", lambda m, red: m.nn.MultiMarginLoss(reduction=red),
     lambda r: [randn(r, 5), np.array(2)]),
    ("CosineEmbeddingLoss", lambda m, red: m.nn.CosineEmbeddingLoss(margin=0.2, reduction=red),
     lambda r: [randn(r, 4, 5), randn(r, 4, 5), Fixed(signs(r, 4))]),
    ("MarginRankingLoss", lambda m, red: m.nn.MarginRankingLoss(margin=0.1, reduction=red),
     lambda r: [randn(r, 5), randn(r, 5), Fixed(signs(r, 5))]),
    ("HingeEmbeddingLoss", lambda m, red: m.nn.HingeEmbeddingLoss(margin=0.5, reduction=red),
     lambda r: [randn(r, 3, 4), Fixed(signs(r, 3, 4))]),
    ("TripletMarginLoss", lambda m, red: m.nn.TripletMarginLoss(reduction=red),
     lambda r: [randn(r, 4, 6), randn(r, 4, 6), randn(r, 4, 6)]),
    ("TripletMarginLoss_p1_swap", lambda m, red: m.nn.TripletMarginLoss(margin=0.5, p=1, swap=True, reduction=red),
     lambda r: [randn(r, 4, 6), randn(r, 4, 6), randn(r, 4, 6)]),
    ("TripletMarginWithDistanceLoss", lambda m, red: m.nn.TripletMarginWithDistanceLoss(reduction=red),
     lambda r: [randn(r, 4, 6), randn(r, 4, 6), randn(r, 4, 6)]),
    ("TripletMarginWithDistanceLoss_cosine", lambda m, red: m.nn.TripletMarginWithDistanceLoss(
        distance_function=lambda a, b: 1 - m.nn.functional.cosine_similarity(a, b), margin=0.3, swap=True,
        reduction=red), lambda r: [randn(r, 4, 6), randn(r, 4, 6), randn(r, 4, 6)]),
    ("PoissonNLLLoss", lambda m, red: m.nn.PoissonNLLLoss(reduction=red),
     lambda r: [randn(r, 3, 4), uniform(r, 0, 4, 3, 4)]),
    ("PoissonNLLLoss_full", lambda m, red: m.nn.PoissonNLLLoss(log_input=False, full=True, reduction=red),
     lambda r: [uniform(r, 0.1, 3, 3, 4), uniform(r, 0, 4, 3, 4)]),
    ("GaussianNLLLoss", lambda m, red: m.nn.GaussianNLLLoss(reduction=red),
     lambda r: [randn(r, 3, 4), randn(r, 3, 4), uniform(r, 0.1, 2, 3, 4)]),
    ("GaussianNLLLoss_full_homoscedastic", lambda m, red: m.nn.GaussianNLLLoss(full=True, eps=0.5, reduction=red),
     lambda r: [randn(r, 3, 4), randn(r, 3, 4), uniform(r, 0.1, 2, 3)]),
    ("GaussianNLLLoss_last_dim_one", lambda m, red: m.nn.GaussianNLLLoss(reduction=red),
     lambda r: [randn(r, 3, 4), randn(r, 3, 4), uniform(r, 0.1, 2, 3, 1)]),
    ("GaussianNLLLoss_broadcast_dim", lambda m, red: m.nn.GaussianNLLLoss(reduction=red),
     lambda r: [randn(r, 3, 4), randn(r, 3, 4), uniform(r, 0.1, 2, 1, 4)]),
    ("CTCLoss", lambda m, red: m.nn.CTCLoss(reduction=red), _ctc_inputs),
    ("CTCLoss_concatenated", lambda m, red: m.nn.CTCLoss(reduction=red, zero_infinity=True),
     lambda r: _ctc_inputs(r, concatenated=True)),
    ("CTCLoss_blank_infeasible", lambda m, red: m.nn.CTCLoss(blank=3, reduction=red, zero_infinity=True),
     lambda r: [log_softmax(randn(r, 3, 2, 4), 2), np.array([[1, 1, 2], [0, 2, 0]]), [3, 3], [3, 3]]),
]


def _loss_cases():
    cases = []
    for name, build, inputs in _LOSSES:
        reductions = ("none", "mean", "sum", "batchmean") if name.startswith("KLDiv") else ("none", "mean", "sum")
        for red in reductions:
            cases.append(Case(f"{name}-{red}", lambda m, b=build, red=red: b(m, red), inputs))
    return cases


LOSS_CASES = _loss_cases()
ALL_CASES = LAYER_CASES + LOSS_CASES


# ---- the comparison --------------------------------------------------------------------------


def _as_list(out):
    return list(out) if isinstance(out, (tuple, list)) else [out]


def _dtype_name(t) -> str:
    return str(t.dtype).split(".")[-1]


def _assert_same(ours, theirs, what: str, case: Case) -> None:
    assert _dtype_name(ours) == _dtype_name(theirs), f"{what}: dtype {ours.dtype} != {theirs.dtype}"
    assert list(ours.shape) == list(theirs.shape), f"{what}: shape {list(ours.shape)} != {list(theirs.shape)}"
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=case.rtol, atol=case.atol,
                               err_msg=what)


def _make_inputs(m, values):
    made, grads = [], []
    for v in values:
        if isinstance(v, Fixed):
            made.append(m.tensor(v.array))
        elif isinstance(v, np.ndarray):
            t = m.tensor(v)
            if np.issubdtype(v.dtype, np.floating):
                t.requires_grad_(True)
                grads.append(t)
            made.append(t)
        else:
            made.append(v)
    return made, grads


def _run(case: Case, m, layer, values, cotangent_rng):
    inputs, grads = _make_inputs(m, values)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = case.call(layer, m, *inputs) if case.call else layer(*inputs)
    outs = _as_list(out)
    total = None
    for o in outs:
        if o.is_floating_point() and o.requires_grad:
            cot = m.tensor(cotangent_rng.standard_normal(tuple(o.shape)).astype(str(o.dtype).split(".")[-1]))
            term = (o * cot).sum()
            total = term if total is None else total + term
    if total is not None:
        total.backward()
    return outs, grads


@pytest.mark.parametrize("case", ALL_CASES, ids=[c.id for c in ALL_CASES])
def test_layer_matches_torch(case: Case):
    values = case.inputs(np.random.default_rng(0))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs_layer = case.build(torch)
        ours_layer = case.build(flow)
    ours_layer.load_state_dict({k: v.detach().numpy() for k, v in theirs_layer.state_dict().items()})
    assert repr(ours_layer) == repr(theirs_layer)
    theirs, theirs_grads = _run(case, torch, theirs_layer, values, np.random.default_rng(1))
    ours, ours_grads = _run(case, flow, ours_layer, values, np.random.default_rng(1))
    assert len(ours) == len(theirs)
    for i, (a, b) in enumerate(zip(ours, theirs)):
        _assert_same(a, b, f"output {i}", case)
    ours_state, theirs_state = ours_layer.state_dict(), theirs_layer.state_dict()
    assert list(ours_state) == list(theirs_state)
    for k in theirs_state:
        _assert_same(ours_state[k], theirs_state[k], f"state {k} after the call", case)
    for i, (a, b) in enumerate(zip(ours_grads, theirs_grads)):
        assert (a.grad is None) == (b.grad is None), f"input {i}: grad presence differs"
        if b.grad is not None:
            _assert_same(a.grad, b.grad, f"grad of input {i}", case)
    ours_params = dict(ours_layer.named_parameters())
    theirs_params = dict(theirs_layer.named_parameters())
    assert list(ours_params) == list(theirs_params)
    for k, b in theirs_params.items():
        a = ours_params[k]
        assert a.requires_grad == b.requires_grad, k
        assert (a.grad is None) == (b.grad is None), f"grad of {k}: presence differs"
        if b.grad is not None:
            _assert_same(a.grad, b.grad, f"grad of {k}", case)


def test_functional_forms_match_torch():
    rng = np.random.default_rng(3)
    x = randn(rng, 2, 6, 7, 5)
    table = randn(rng, 10, 3)
    cases = [
        lambda m, a: m.nn.functional.lp_pool1d(m.tensor(a[0, 0]).abs(), 2, 3, stride=2),
        lambda m, a: m.nn.functional.lp_pool2d(m.tensor(a).abs(), 3.0, (2, 3), ceil_mode=True),
        lambda m, a: m.nn.functional.lp_pool3d(m.tensor(a).abs(), 2, 2),
        lambda m, a: m.nn.functional.channel_shuffle(m.tensor(a), 3),
        lambda m, a: m.nn.functional.native_channel_shuffle(m.tensor(a), 2),
        lambda m, a: m.nn.functional.fractional_max_pool2d(m.tensor(a), 2, output_ratio=(0.5, 0.5),
                                                           _random_samples=m.tensor(np.full((2, 6, 2), 0.3, "f4"))),
        lambda m, a: m.nn.functional.fractional_max_pool3d_with_indices(
            m.tensor(a), (1, 2, 2), output_size=(2, 3, 3), _random_samples=m.tensor(np.full((1, 2, 3), 0.7, "f4")))[1],
        lambda m, a: m.nn.functional.embedding_bag(m.tensor(np.array([1, 2, 3, 4])), m.tensor(table),
                                                   m.tensor(np.array([0, 1])), mode="max"),
        lambda m, a: m.nn.functional.multilabel_margin_loss(m.tensor(a[0, :, 0, 0]),
                                                            m.tensor(np.array([1, 5, -1, 0, 0, 0]))),
        lambda m, a: m.nn.functional.multi_margin_loss(m.tensor(a[0, :, 0, 0]), m.tensor(np.array([4])), p=2,
                                                       reduction="none"),
    ]
    for i, fn in enumerate(cases):
        ours, theirs = fn(flow, x), fn(torch, x)
        _assert_same(ours, theirs, f"functional case {i}", Case("f", None, None))


def test_fractional_max_pool_draws_from_oneflow_generator():
    x = flow.randn(2, 3, 10, 11)
    flow.manual_seed(7)
    drawn = flow.nn.FractionalMaxPool2d(3, output_size=4, return_indices=True)(x)
    flow.manual_seed(7)
    samples = flow.rand(2, 3, 2)
    given = flow.nn.functional.fractional_max_pool2d(x, 3, output_size=4, return_indices=True,
                                                     _random_samples=samples)
    for a, b in zip(drawn, given):
        assert np.array_equal(a.numpy(), b.numpy())
    # The same samples in torch give the same windows.
    theirs = torch.nn.functional.fractional_max_pool2d(torch.tensor(x.numpy()), 3, output_size=4, return_indices=True,
                                                       _random_samples=torch.tensor(samples.numpy()))
    assert np.array_equal(drawn[1].numpy(), theirs[1].numpy())
    # Different draws usually place the windows differently.
    third = flow.nn.functional.fractional_max_pool2d(x, 3, output_size=4, return_indices=True)[1]
    flow.manual_seed(8)
    fourth = flow.nn.functional.fractional_max_pool2d(x, 3, output_size=4, return_indices=True)[1]
    assert not np.array_equal(third.numpy(), fourth.numpy())


def test_embedding_max_norm_renormalizes_the_table_in_place():
    table = np.array([[3.0, 4.0], [0.3, 0.4], [6.0, 8.0]], dtype=np.float32)
    layer = flow.nn.Embedding.from_pretrained(flow.tensor(table), max_norm=1.0)
    weight = layer.weight
    layer(flow.tensor([0, 1]))
    assert layer.weight is weight
    np.testing.assert_allclose(weight.numpy(), [[0.6, 0.8], [0.3, 0.4], [6.0, 8.0]], rtol=1e-5)


def test_nll_loss2d_is_deprecated():
    with pytest.warns(FutureWarning):
        flow.nn.NLLLoss2d()


# ---- bad arguments ---------------------------------------------------------------------------


def _f(m):
    return m.nn.functional


ERROR_CASES = [
    ("MaxPool2d_too_small", lambda m: m.nn.MaxPool2d(5)(m.randn(1, 1, 3, 3)), ["max_pool2d", "3"]),
    ("AvgPool2d_big_padding", lambda m: m.nn.AvgPool2d(3, padding=2)(m.randn(1, 1, 3, 3)), ["avg_pool2d", "pad"]),
    ("AdaptiveAvgPool2d_1d", lambda m: m.nn.AdaptiveAvgPool2d(2)(m.randn(3)), ["adaptive_avg_pool2d", "[3]"]),
    ("MaxUnpool2d_bad_size", lambda m: m.nn.MaxUnpool2d(2)(m.randn(1, 1, 2, 2), m.zeros(1, 1, 2, 2).long(),
                                                           output_size=(9, 9)), ["output_size", "(9, 9)"]),
    ("LPPool1d_too_small", lambda m: m.nn.LPPool1d(2, 8)(m.randn(2, 3, 7)), ["avg_pool1d", "7"]),
    ("FractionalMaxPool2d_pool_too_large",
     lambda m: m.nn.FractionalMaxPool2d(2, output_size=(4, 5))(m.randn(1, 2, 4, 6)),
     ["fractional_max_pool2d", "height 2", "height 4"]),
    ("FractionalMaxPool3d_pool_too_large",
     lambda m: m.nn.FractionalMaxPool3d((1, 2, 1), output_size=(2, 3, 2))(m.randn(1, 2, 6, 4, 6)),
     ["fractional_max_pool3d", "height 4"]),
    ("FractionalMaxPool2d_2d_input", lambda m: m.nn.FractionalMaxPool2d(2, output_size=2)(m.randn(6, 6)),
     ["fractional_max_pool2d", "[6, 6]"]),
    ("FractionalMaxPool2d_empty_plane", lambda m: m.nn.FractionalMaxPool2d(2, output_size=2)(m.randn(2, 0, 6, 6)),
     ["fractional_max_pool2d", "[2, 0, 6, 6]"]),
    ("FractionalMaxPool2d_samples_channels",
     lambda m: _f(m).fractional_max_pool2d(m.randn(1, 2, 6, 6), 2, output_size=3, _random_samples=m.rand(1, 3, 2)),
     ["fractional_max_pool2d", "[1, 3, 2]"]),
    ("FractionalMaxPool2d_samples_dtype",
     lambda m: _f(m).fractional_max_pool2d(m.randn(1, 2, 6, 6), 2, output_size=3,
                                           _random_samples=m.rand(1, 2, 2, dtype=m.float64)),
     ["fractional_max_pool2d", "dtype"]),
    ("FractionalMaxPool2d_no_size", lambda m: m.nn.FractionalMaxPool2d(2), ["FractionalMaxPool2d", "output size"]),
    ("FractionalMaxPool2d_both", lambda m: m.nn.FractionalMaxPool2d(2, output_size=2, output_ratio=0.5),
     ["output_size", "output_ratio"]),
    ("FractionalMaxPool3d_ratio", lambda m: m.nn.FractionalMaxPool3d(2, output_ratio=1.5), ["output_ratio", "1.5"]),
    ("Embedding_out_of_range", lambda m: m.nn.Embedding(5, 2)(m.tensor([5])), ["embedding", "5", "[5, 2]"]),
    ("Embedding_float_indices", lambda m: m.nn.Embedding(5, 2)(m.tensor([1.0])), ["embedding"]),
    ("Embedding_padding_idx", lambda m: m.nn.Embedding(3, 2, padding_idx=3), ["adding_idx"]),
    ("Embedding_from_pretrained_1d", lambda m: m.nn.Embedding.from_pretrained(m.randn(3)), ["2-dimensional"]),
    ("EmbeddingBag_padding_idx", lambda m: m.nn.EmbeddingBag(10, 3, padding_idx=10), ["padding_idx"]),
    ("EmbeddingBag_weight_shape", lambda m: m.nn.EmbeddingBag(10, 3, _weight=m.randn(3, 3)), ["Shape of weight"]),
    ("EmbeddingBag_first_offset", lambda m: m.nn.EmbeddingBag(10, 3)(m.tensor([1, 2]), m.tensor([1])),
     ["embedding_bag", "offsets[0]", "[1]"]),
    ("EmbeddingBag_last_offset", lambda m: m.nn.EmbeddingBag(10, 3)(m.tensor([1, 2]), m.tensor([0, 3])),
     ["embedding_bag", "length 2"]),
    ("EmbeddingBag_2d_offsets", lambda m: m.nn.EmbeddingBag(10, 3)(m.tensor([[1, 2]]), m.tensor([0])),
     ["embedding_bag", "offsets"]),
    ("EmbeddingBag_no_offsets", lambda m: m.nn.EmbeddingBag(10, 3)(m.tensor([1, 2])), ["embedding_bag", "offsets"]),
    ("EmbeddingBag_3d", lambda m: m.nn.EmbeddingBag(10, 3)(m.zeros(1, 2, 2).long()),
     ["embedding_bag", "dimension 3"]),
    ("EmbeddingBag_weights_mean", lambda m: m.nn.EmbeddingBag(10, 3)(m.tensor([1, 2]), m.tensor([0]),
                                                                     m.ones(2)), ["embedding_bag", "mode='mean'"]),
    ("EmbeddingBag_weights_shape", lambda m: m.nn.EmbeddingBag(10, 3, mode="sum")(m.tensor([1, 2]), m.tensor([0]),
                                                                                  m.ones(3)),
     ["embedding_bag", "[3]", "[2]"]),
    ("EmbeddingBag_bad_mode", lambda m: m.nn.EmbeddingBag(10, 3, mode="min")(m.tensor([1]), m.tensor([0])),
     ["embedding_bag", "mode"]),
    ("EmbeddingBag_max_freq", lambda m: m.nn.EmbeddingBag(10, 3, mode="max", scale_grad_by_freq=True)(
        m.tensor([1]), m.tensor([0])), ["embedding_bag", "max mode"]),
    ("EmbeddingBag_index_range", lambda m: m.nn.EmbeddingBag(10, 3)(m.tensor([1, 12]), m.tensor([0])),
     ["embedding_bag", "12"]),
    ("EmbeddingBag_float_indices", lambda m: m.nn.EmbeddingBag(10, 3)(m.tensor([1.0]), m.tensor([0])),
     ["embedding_bag", "indices"]),
    ("ChannelShuffle_indivisible", lambda m: m.nn.ChannelShuffle(2)(m.randn(1, 3, 2)),
     ["channel_shuffle", "3 channels", "2 groups"]),
    ("ChannelShuffle_2d", lambda m: m.nn.ChannelShuffle(2)(m.randn(4, 2)), ["channel_shuffle", "[4, 2]"]),
    ("ChannelShuffle_zero_groups", lambda m: m.nn.ChannelShuffle(0)(m.randn(1, 4, 2)), ["channel_shuffle", "0"]),
    ("PixelShuffle_channels", lambda m: m.nn.PixelShuffle(2)(m.randn(1, 3, 2, 2)), ["pixel_shuffle", "3"]),
    ("PixelUnshuffle_height", lambda m: m.nn.PixelUnshuffle(2)(m.randn(1, 3, 3, 2)), ["pixel_unshuffle", "3"]),
    ("CrossEntropyLoss_batch", lambda m: m.nn.CrossEntropyLoss()(m.randn(3, 4), m.tensor([0, 1])),
     ["cross_entropy", "[3, 4]", "[2]"]),
    ("CrossEntropyLoss_smoothing", lambda m: m.nn.CrossEntropyLoss(label_smoothing=1.5)(m.randn(3, 4),
                                                                                        m.tensor([0, 1, 2])),
     ["label_smoothing", "1.5"]),
    ("CrossEntropyLoss_reduction", lambda m: m.nn.CrossEntropyLoss(reduction="bad")(m.randn(3, 4),
                                                                                    m.tensor([0, 1, 2])),
     ["cross_entropy", "bad"]),
    ("NLLLoss_target_range", lambda m: m.nn.NLLLoss()(m.randn(3, 4), m.tensor([0, 1, 5])), ["nll_loss", "5"]),
    ("NLLLoss_weight_size", lambda m: m.nn.NLLLoss(weight=m.ones(3))(m.randn(3, 4), m.tensor([0, 1, 2])),
     ["nll_loss", "weight", "[3]"]),
    ("MSELoss_shapes", lambda m: m.nn.MSELoss()(m.randn(3, 4), m.randn(2, 4)), ["[3, 4]", "[2, 4]"]),
    ("L1Loss_reduction", lambda m: m.nn.L1Loss(reduction="x")(m.randn(3, 4), m.randn(3, 4)), ["l1_loss", "x"]),
    ("HuberLoss_delta", lambda m: m.nn.HuberLoss(delta=0)(m.rand(3), m.rand(3)), ["huber_loss", "delta"]),
    ("SmoothL1Loss_beta", lambda m: m.nn.SmoothL1Loss(beta=-1)(m.rand(3), m.rand(3)), ["smooth_l1_loss", "beta"]),
    ("BCELoss_target_shape", lambda m: m.nn.BCELoss()(m.rand(3, 4), m.rand(3)),
     ["binary_cross_entropy", "[3]", "[3, 4]"]),
    ("BCELoss_range", lambda m: m.nn.BCELoss()(m.rand(3) + 1.5, m.rand(3)),
     ["binary_cross_entropy", "between 0 and 1"]),
    ("BCEWithLogitsLoss_target_shape", lambda m: m.nn.BCEWithLogitsLoss()(m.rand(3, 4), m.rand(3)),
     ["binary_cross_entropy_with_logits", "[3]", "[3, 4]"]),
    ("KLDivLoss_reduction", lambda m: m.nn.KLDivLoss(reduction="bad")(m.rand(3, 4), m.rand(3, 4)), ["kl_div", "bad"]),
    ("SoftMarginLoss_shapes", lambda m: m.nn.SoftMarginLoss()(m.randn(3, 4), m.ones(2, 4)),
     ["soft_margin_loss", "[3, 4]", "[2, 4]"]),
    ("MultiLabelSoftMarginLoss_shapes", lambda m: m.nn.MultiLabelSoftMarginLoss()(m.randn(3, 4), m.ones(2, 4)),
     ["multilabel_soft_margin_loss", "[3, 4]", "[2, 4]"]),
    ("MultiLabelMarginLoss_target_size",
     lambda m: m.nn.MultiLabelMarginLoss()(m.randn(3, 4), m.zeros(2, 4).long()),
     ["multilabel_margin_loss", "[2, 4]", "[3, 4]"]),
    ("MultiLabelMarginLoss_range",
     lambda m: m.nn.MultiLabelMarginLoss()(m.randn(3, 4), m.full((3, 4), 4).long()),
     ["multilabel_margin_loss", "target"]),
    ("MultiLabelMarginLoss_3d", lambda m: m.nn.MultiLabelMarginLoss()(m.randn(3, 2, 2), m.zeros(3, 2, 2).long()),
     ["multilabel_margin_loss", "[3, 2, 2]"]),
    ("MultiLabelMarginLoss_int_target", lambda m: m.nn.MultiLabelMarginLoss()(m.randn(3, 4), m.zeros(3, 4).int()),
     ["multilabel_margin_loss", "Long"]),
    ("MultiMarginLoss_p", lambda m: m.nn.MultiMarginLoss(p=3), ["p == 1"]),
    ("MultiMarginLoss_weight_dim", lambda m: m.nn.MultiMarginLoss(weight=m.ones(2, 2)), ["MultiMarginLoss", "2D"]),
    ("MultiMarginLoss_target_size", lambda m: m.nn.MultiMarginLoss()(m.randn(3, 4), m.tensor([0, 1])),
     ["multi_margin_loss", "[2]", "[3, 4]"]),
    ("MultiMarginLoss_range", lambda m: m.nn.MultiMarginLoss()(m.randn(3, 4), m.tensor([0, 1, 4])),
     ["multi_margin_loss", "target"]),
    ("MultiMarginLoss_weight_size", lambda m: m.nn.MultiMarginLoss(weight=m.ones(3))(m.randn(3, 4),
                                                                                      m.tensor([0, 1, 2])),
     ["multi_margin_loss", "[3]"]),
    ("CosineEmbeddingLoss_shapes", lambda m: m.nn.CosineEmbeddingLoss()(m.rand(3, 4), m.rand(3, 5), m.ones(3)),
     ["cosine_embedding_loss", "[3, 4]", "[3, 5]"]),
    ("MarginRankingLoss_shapes", lambda m: m.nn.MarginRankingLoss()(m.rand(3), m.rand(4), m.ones(3)),
     ["margin_ranking_loss", "[3]", "[4]"]),
    ("HingeEmbeddingLoss_shapes", lambda m: m.nn.HingeEmbeddingLoss()(m.randn(3, 4), m.ones(2, 4)),
     ["hinge_embedding_loss", "[3, 4]", "[2, 4]"]),
    ("TripletMarginLoss_margin", lambda m: m.nn.TripletMarginLoss(margin=0), ["TripletMarginLoss", "margin"]),
    ("TripletMarginLoss_dims", lambda m: m.nn.TripletMarginLoss()(m.randn(3, 4), m.randn(3, 4), m.randn(4)),
     ["triplet_margin_loss", "2D", "1D"]),
    ("TripletMarginWithDistanceLoss_margin", lambda m: m.nn.TripletMarginWithDistanceLoss(margin=-1),
     ["TripletMarginWithDistanceLoss", "-1"]),
    ("TripletMarginWithDistanceLoss_dims",
     lambda m: m.nn.TripletMarginWithDistanceLoss()(m.randn(3, 4), m.randn(3, 4), m.randn(4)),
     ["triplet_margin_with_distance_loss", "2D", "1D"]),
    ("PoissonNLLLoss_shapes", lambda m: m.nn.PoissonNLLLoss()(m.randn(3, 4), m.ones(2, 4)),
     ["poisson_nll_loss", "[3, 4]", "[2, 4]"]),
    ("PoissonNLLLoss_reduction", lambda m: m.nn.PoissonNLLLoss(reduction="bad")(m.randn(3), m.ones(3)),
     ["poisson_nll_loss", "bad"]),
    ("GaussianNLLLoss_var_size", lambda m: m.nn.GaussianNLLLoss()(m.randn(3, 4), m.ones(3, 4), m.ones(3, 2)),
     ["gaussian_nll_loss", "var", "incorrect size", "[3, 2]", "[3, 4]"]),
    ("GaussianNLLLoss_negative_var", lambda m: m.nn.GaussianNLLLoss()(m.randn(3, 4), m.ones(3, 4), -m.ones(3, 4)),
     ["gaussian_nll_loss", "var", "negative"]),
    ("GaussianNLLLoss_reduction", lambda m: m.nn.GaussianNLLLoss(reduction="x")(m.randn(3), m.ones(3), m.ones(3)),
     ["gaussian_nll_loss", "x"]),
    ("CTCLoss_input_lengths", lambda m: m.nn.CTCLoss()(m.randn(5, 2, 4).log_softmax(2), m.ones(2, 3).long(),
                                                       [5, 6], [3, 3]),
     ["ctc_loss", "input_lengths", "6"]),
]


@pytest.mark.parametrize("build, expected", [(c[1], c[2]) for c in ERROR_CASES], ids=[c[0] for c in ERROR_CASES])
def test_bad_arguments_raise_torch_exception_type(build, expected):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(Exception) as theirs:
            build(torch)
        with pytest.raises(Exception) as ours:
            build(flow)
    assert ours.type is theirs.type, f"ours {ours.type.__name__}: {ours.value}; torch {theirs.type.__name__}"
    message = str(ours.value)
    for part in expected:
        assert part in message, f"{part!r} not in {message!r}"
