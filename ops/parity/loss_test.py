"""Parity rows for the losses (ops/defs/loss.cc) through ``nn.functional`` with torch's signatures:
every reduction, class weights, ignore_index hits, label smoothing, probability targets, N-D
inputs, 0-size batches, values and gradients; double backward; each vector instruction set; bad
input."""

import warnings

import numpy as np
import parity
import pytest
import torch
from parity import OpCase, run_case

import oneflow as flow

FLOATS = ("float32", "float64")
REDUCTIONS = ("none", "mean", "sum")


def F(m):
    return m.nn.functional


def _seeded(shape, salt):
    return np.random.default_rng(abs(hash((tuple(shape), salt))) % (2**32))


def _classes(m, x, ignore=None, hits=0, class_dim=1):
    """Class indices for input x ((C), (N, C) or (N, C, d...)), with `hits` entries set to `ignore`."""
    shape = list(x.shape)
    classes = shape.pop(class_dim if len(shape) > 1 else 0)
    if len(x.shape) == 1:
        shape = []
    t = _seeded(shape, classes).integers(0, max(classes, 1), size=shape)
    if ignore is not None and t.size:
        t.reshape(-1)[: min(hits, t.size)] = ignore
    return m.tensor(t, dtype=m.int64)


def _weight(m, x, class_dim=1):
    classes = x.shape[class_dim if x.dim() > 1 else 0]
    return m.tensor(np.linspace(0.5, 2.0, classes)).to(x.dtype)


def _const(m, x, values):
    return m.tensor(np.asarray(values)).to(x.dtype)


def _signs(m, x):
    """A +-1 target shaped like x."""
    return _const(m, x, np.where(np.arange(x.numel()) % 3 == 0, -1.0, 1.0).reshape(tuple(x.shape)))


def _pairs(m, x):
    """cosine_embedding_loss targets: similar, dissimilar, and one ignored (0)."""
    return _const(m, x, [1, -1, 1, -1, 0][: x.shape[0]])


CLASS_SHAPES = [((4, 5),), ((1, 7),), ((6, 3),), ((3, 5, 2),), ((2, 4, 3, 2),), ((5,),), ((0, 5),), ((2, 3, 0),)]


def _ce_rows():
    rows = []
    for red in REDUCTIONS:
        rows.append(OpCase(ops=("cross_entropy", "_softmax_cross_entropy"), name=f"cross_entropy_{red}",
                           fn=lambda m, x, red=red: F(m).cross_entropy(x, _classes(m, x), reduction=red),
                           shapes=CLASS_SHAPES, domain=(-4.0, 4.0)))
        rows.append(OpCase(ops=("cross_entropy", "_softmax_cross_entropy"), name=f"cross_entropy_weight_{red}",
                           fn=lambda m, x, red=red: F(m).cross_entropy(x, _classes(m, x), _weight(m, x),
                                                                       reduction=red), shapes=CLASS_SHAPES))
        rows.append(OpCase(ops=("cross_entropy", "_softmax_cross_entropy"), name=f"cross_entropy_ignore_{red}",
                           fn=lambda m, x, red=red: F(m).cross_entropy(x, _classes(m, x, -100, 2), _weight(m, x),
                                                                       reduction=red), shapes=CLASS_SHAPES[:5]))
        rows.append(OpCase(ops=("cross_entropy", "_softmax_cross_entropy"), name=f"cross_entropy_smoothing_{red}",
                           fn=lambda m, x, red=red: F(m).cross_entropy(x, _classes(m, x, 1, 1), ignore_index=1,
                                                                       reduction=red, label_smoothing=0.2),
                           shapes=CLASS_SHAPES))
        rows.append(OpCase(ops=("cross_entropy", "_softmax_cross_entropy"),
                           name=f"cross_entropy_smoothing_weight_{red}",
                           fn=lambda m, x, red=red: F(m).cross_entropy(x, _classes(m, x, -100, 1), _weight(m, x),
                                                                       reduction=red, label_smoothing=0.35),
                           shapes=CLASS_SHAPES))
        rows.append(OpCase(ops=("cross_entropy",), name=f"cross_entropy_probs_{red}",
                           fn=lambda m, x, p, red=red: F(m).cross_entropy(x, p, reduction=red),
                           shapes=[((4, 5), (4, 5)), ((3, 4, 2), (3, 4, 2)), ((5,), (5,)), ((0, 3), (0, 3))],
                           domain=(0.0, 1.0)))
        rows.append(OpCase(ops=("cross_entropy",), name=f"cross_entropy_probs_weight_smoothing_{red}",
                           fn=lambda m, x, p, red=red: F(m).cross_entropy(x, p, _weight(m, x), reduction=red,
                                                                          label_smoothing=0.1),
                           shapes=[((4, 5), (4, 5)), ((2, 3, 2, 2), (2, 3, 2, 2))], domain=(0.0, 1.0)))
    return rows


def _nll_rows():
    # torch's own nll_loss backward rejects a non-contiguous N-D input ("grad_input must be
    # contiguous"): N-D shapes run contiguous only.
    rows = []
    flat = [s for s in CLASS_SHAPES if len(s[0]) <= 2]
    spatial = [s for s in CLASS_SHAPES if len(s[0]) > 2]
    for red in REDUCTIONS:
        for tag, shapes, noncontiguous in (("", flat, True), ("_nd", spatial, False)):
            rows.append(OpCase(ops=("nll_loss", "_nll_loss"), name=f"nll_loss{tag}_{red}",
                               fn=lambda m, x, red=red: F(m).nll_loss(x, _classes(m, x), reduction=red),
                               shapes=shapes, noncontiguous=noncontiguous))
            rows.append(OpCase(ops=("nll_loss", "_nll_loss"), name=f"nll_loss{tag}_weight_ignore_{red}",
                               fn=lambda m, x, red=red: F(m).nll_loss(x, _classes(m, x, 3, 2), _weight(m, x),
                                                                      ignore_index=3, reduction=red),
                               shapes=shapes, noncontiguous=noncontiguous))
    return rows


LOGITS = (-3.0, 3.0)
UNIT = (0.02, 0.98)
PAIR_SHAPES = [((3, 4), (3, 4)), ((7,), (7,)), ((), ()), ((2, 3, 4), (2, 3, 4)), ((0, 3), (0, 3))]
BCAST_SHAPES = [((2, 3), (3,)), ((3, 1), (3, 4))]

CASES = [
    *_ce_rows(),
    *_nll_rows(),
    OpCase(ops=("cross_entropy",), name="cross_entropy_ignore_index_is_a_class",
           fn=lambda m, x: F(m).cross_entropy(x, _classes(m, x), ignore_index=0), shapes=CLASS_SHAPES[:5]),
    OpCase(ops=("cross_entropy",), name="cross_entropy_all_ignored",
           fn=lambda m, x: F(m).cross_entropy(x, _classes(m, x, -100, 100)), shapes=[((3, 4),)]),
    OpCase(ops=("cross_entropy",), name="cross_entropy_uint8_target",
           fn=lambda m, x: F(m).cross_entropy(x, _classes(m, x).to(m.uint8)), shapes=[((3, 4),)]),
    OpCase(ops=("cross_entropy",), name="cross_entropy_wide_rows",
           fn=lambda m, x: F(m).cross_entropy(x, _classes(m, x), label_smoothing=0.05), shapes=[((3, 1000),), ((2, 37),)],
           domain=(-20.0, 20.0)),
    OpCase(ops=("cross_entropy",), name="cross_entropy_half", fn=lambda m, x: F(m).cross_entropy(x, _classes(m, x)),
           shapes=[((4, 5),), ((3, 5, 2),)], dtypes=("bfloat16",)),
    OpCase(ops=("cross_entropy",), name="cross_entropy_legacy_flags",
           fn=lambda m, x: F(m).cross_entropy(x, _classes(m, x), size_average=False), shapes=[((4, 5),)]),
    OpCase(ops=("nll_loss",), name="nll_loss_legacy_flags",
           fn=lambda m, x: F(m).nll_loss(x, _classes(m, x), reduce=False), shapes=[((4, 5),)]),
    # (torch's backward fails on its own result here: values only)
    OpCase(ops=("nll_loss",), name="nll_loss_1d_target_of_one", fn=lambda m, x: F(m).nll_loss(x, m.tensor([2])),
           shapes=[((5,),)], grad=False),
    # binary cross entropy
    *[OpCase(ops=("binary_cross_entropy", "_binary_cross_entropy"), name=f"binary_cross_entropy_{red}",
             fn=lambda m, x, t, red=red: F(m).binary_cross_entropy(x, t, reduction=red), shapes=PAIR_SHAPES,
             domain=UNIT) for red in REDUCTIONS],
    OpCase(ops=("binary_cross_entropy",), name="binary_cross_entropy_weight",
           fn=lambda m, x, t, w: F(m).binary_cross_entropy(x, t, w), shapes=[((3, 4), (3, 4), (4,)), ((3, 4), (3, 4), (3, 4))],
           domain=UNIT, no_grad_inputs=(2,)),
    OpCase(ops=("binary_cross_entropy",), name="binary_cross_entropy_edges",
           fn=lambda m, x, t: F(m).binary_cross_entropy(x * 0 + _const(m, x, [0.0, 1.0, 0.5, 1e-30]), t,
                                                        reduction="none"), shapes=[((4,), (4,))], domain=UNIT),
    OpCase(ops=("binary_cross_entropy",), name="binary_cross_entropy_half",
           fn=lambda m, x, t: F(m).binary_cross_entropy(x, t), shapes=[((3, 4), (3, 4))], domain=UNIT,
           dtypes=("bfloat16",)),
    *[OpCase(ops=("binary_cross_entropy_with_logits",), name=f"binary_cross_entropy_with_logits_{red}",
             fn=lambda m, x, t, red=red: F(m).binary_cross_entropy_with_logits(x * 4 - 2, t, reduction=red),
             shapes=PAIR_SHAPES, domain=(0.0, 1.0)) for red in REDUCTIONS],
    OpCase(ops=("binary_cross_entropy_with_logits",), name="binary_cross_entropy_with_logits_weights",
           fn=lambda m, x, t, w, pw: F(m).binary_cross_entropy_with_logits(x * 40 - 20, t, w, pos_weight=pw),
           shapes=[((3, 4), (3, 4), (4,), (4,)), ((2, 3, 4), (2, 3, 4), (3, 4), (1,))], domain=(0.0, 1.0),
           no_grad_inputs=(2, 3)),
    OpCase(ops=("binary_cross_entropy_with_logits",), name="binary_cross_entropy_with_logits_pos_weight_sum",
           fn=lambda m, x, t, pw: F(m).binary_cross_entropy_with_logits(x, t, pos_weight=pw, reduction="sum"),
           shapes=[((3, 4), (3, 4), (4,))], domain=(0.0, 1.0), no_grad_inputs=(2,)),
    # regression losses
    *[OpCase(ops=(name, "_pointwise_loss"), name=f"{name}_{red}", fn=lambda m, x, t, name=name, red=red: getattr(F(m), name)(
        x, t, reduction=red), shapes=PAIR_SHAPES + BCAST_SHAPES, domain=LOGITS)
      for name in ("mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss") for red in REDUCTIONS],
    *[OpCase(ops=(name,), name=f"{name}_weight_{red}", fn=lambda m, x, t, w, name=name, red=red: getattr(F(m), name)(
        x, t, reduction=red, weight=w), shapes=[((3, 4), (3, 4), (3, 4)), ((5,), (5,), (5,))], domain=LOGITS)
      for name in ("mse_loss", "l1_loss", "huber_loss") for red in REDUCTIONS],
    OpCase(ops=("l1_loss",), name="l1_loss_ties", fn=lambda m, x, t: F(m).l1_loss(x, x.detach() + t * 0, reduction="sum"),
           shapes=[((3,), (3,))]),
    *[OpCase(ops=("smooth_l1_loss",), name=f"smooth_l1_loss_beta{b}",
             fn=lambda m, x, t, b=b: F(m).smooth_l1_loss(x, t, beta=b, reduction="none"), shapes=PAIR_SHAPES[:2],
             domain=LOGITS) for b in (0.0, 0.25, 3.0)],
    OpCase(ops=("smooth_l1_loss",), name="smooth_l1_loss_kinks",
           fn=lambda m, x, t: F(m).smooth_l1_loss(x + _const(m, x, [-1.0, 0.0, 1.0, 0.5]), t, reduction="none"),
           shapes=[((4,), (4,))], domain=(0.0, 0.0)),
    *[OpCase(ops=("huber_loss",), name=f"huber_loss_delta{d}",
             fn=lambda m, x, t, d=d: F(m).huber_loss(x, t, delta=d, reduction="none"), shapes=PAIR_SHAPES[:2],
             domain=LOGITS) for d in (0.25, 3.0)],
    OpCase(ops=("huber_loss",), name="huber_loss_kinks",
           fn=lambda m, x, t: F(m).huber_loss(x + _const(m, x, [-1.0, 0.0, 1.0, 0.5]), t, reduction="none"),
           shapes=[((4,), (4,))], domain=(0.0, 0.0)),
    # kl_div ('batchmean' included)
    *[OpCase(ops=("kl_div",), name=f"kl_div_{red}", fn=lambda m, x, t, red=red: F(m).kl_div(x, t * t + 0.01, reduction=red),
             shapes=PAIR_SHAPES, domain=(-1.0, 1.0)) for red in REDUCTIONS + ("batchmean",)],
    *[OpCase(ops=("kl_div",), name=f"kl_div_log_target_{red}",
             fn=lambda m, x, t, red=red: F(m).kl_div(x, t, reduction=red, log_target=True), shapes=PAIR_SHAPES,
             domain=(-1.0, 1.0)) for red in REDUCTIONS + ("batchmean",)],
    OpCase(ops=("kl_div",), name="kl_div_zero_target",
           fn=lambda m, x: F(m).kl_div(x, _const(m, x, [0.0, 0.5, 1.0]), reduction="sum"), shapes=[((3,),)]),
    # The target's gradient where it is 0 (NaN in PyTorch: the derivative of xlogy(t, t) in its
    # second argument is t / t) and where it is negative (NaN forward too).
    *[OpCase(ops=("kl_div",), name=f"kl_div_zero_target_grad_{red}",
             fn=lambda m, x, t, red=red: F(m).kl_div(x, t * _const(m, t, [[0.0, 1.0, 1.0], [1.0, 0.0, 1.0]]),
                                                     reduction=red), shapes=[((2, 3), (2, 3))], domain=(0.1, 1.0))
      for red in REDUCTIONS + ("batchmean",)],
    OpCase(ops=("kl_div",), name="kl_div_negative_target",
           fn=lambda m, x, t: F(m).kl_div(x, t - 2.0, reduction="none"), shapes=[((5,), (5,))]),
    # ranking and embedding losses
    *[OpCase(ops=("margin_ranking_loss",), name=f"margin_ranking_loss_{red}",
             fn=lambda m, a, b, red=red: F(m).margin_ranking_loss(a, b, _signs(m, a), margin=0.2, reduction=red),
             shapes=[((5,), (5,)), ((2, 3), (2, 3)), ((0,), (0,))]) for red in REDUCTIONS],
    OpCase(ops=("margin_ranking_loss",), name="margin_ranking_loss_target_grad",
           fn=lambda m, a, b, y: F(m).margin_ranking_loss(a, b, y), shapes=[((5,), (5,), (5,))]),
    *[OpCase(ops=("triplet_margin_loss",), name=f"triplet_margin_loss_{red}",
             fn=lambda m, a, p, n, red=red: F(m).triplet_margin_loss(a, p, n, reduction=red),
             shapes=[((4, 3), (4, 3), (4, 3)), ((5,), (5,), (5,)), ((2, 3, 4), (2, 3, 4), (2, 3, 4))])
      for red in REDUCTIONS],
    *[OpCase(ops=("triplet_margin_loss",), name=f"triplet_margin_loss_p{p}_swap{s}",
             fn=lambda m, a, pos, n, p=p, s=s: F(m).triplet_margin_loss(a, pos, n, margin=0.5, p=p, eps=1e-3, swap=s),
             shapes=[((4, 3), (4, 3), (4, 3))]) for p in (1, 1.5, 3) for s in (False, True)],
    *[OpCase(ops=("cosine_embedding_loss",), name=f"cosine_embedding_loss_{red}",
             fn=lambda m, a, b, red=red: F(m).cosine_embedding_loss(a, b, _pairs(m, a), margin=0.1, reduction=red),
             shapes=[((4, 3), (4, 3)), ((1, 5), (1, 5))]) for red in REDUCTIONS],
    OpCase(ops=("cosine_embedding_loss",), name="cosine_embedding_loss_1d",
           fn=lambda m, a, b: F(m).cosine_embedding_loss(a, b, _const(m, a, -1.0), margin=-0.5), shapes=[((6,), (6,))]),
]


# ---- ctc_loss ------------------------------------------------------------------------------------

def _log_softmax(x):
    return x - x.logsumexp(-1, keepdim=True)


def _ctc(padded, reduction="mean", blank=0, zero_infinity=False, input_lengths=(6, 4, 5), target_lengths=(3, 2, 0),
         as_tensors=False):
    def fn(m, x):
        rng = np.random.default_rng(7)
        classes = x.shape[-1]
        labels = [c for c in range(classes) if c != blank]
        rows = [[labels[v] for v in rng.integers(0, len(labels), size=4)] for _ in target_lengths]
        if padded:
            targets = m.tensor(np.array(rows), dtype=m.int64)
        else:
            targets = m.tensor(np.concatenate([r[:n] for r, n in zip(rows, target_lengths)]).astype(np.int64))
        il, tl = list(input_lengths), list(target_lengths)
        if as_tensors:
            il, tl = m.tensor(il), m.tensor(tl)
        return F(m).ctc_loss(_log_softmax(x), targets, il, tl, blank=blank, reduction=reduction,
                             zero_infinity=zero_infinity)

    return fn


CTC_SHAPES = [((6, 3, 5),)]
CASES += [
    *[OpCase(ops=("ctc_loss", "_ctc_loss"), name=f"ctc_loss_{red}_{'padded' if p else 'concatenated'}",
             fn=_ctc(p, red), shapes=CTC_SHAPES, domain=LOGITS, noncontiguous=False)
      for red in REDUCTIONS for p in (True, False)],
    OpCase(ops=("ctc_loss",), name="ctc_loss_blank_last", fn=_ctc(True, "sum", blank=4), shapes=CTC_SHAPES,
           domain=LOGITS, noncontiguous=False),
    OpCase(ops=("ctc_loss",), name="ctc_loss_tensor_lengths", fn=_ctc(True, as_tensors=True), shapes=CTC_SHAPES,
           domain=LOGITS, noncontiguous=False),
    OpCase(ops=("ctc_loss",), name="ctc_loss_repeats_and_long", fn=_ctc(True, "none", input_lengths=(9, 9, 2),
                                                                       target_lengths=(4, 4, 1)),
           shapes=[((9, 3, 4),)], domain=LOGITS, noncontiguous=False),
    OpCase(ops=("ctc_loss",), name="ctc_loss_zero_infinity",
           fn=_ctc(True, "sum", zero_infinity=True, input_lengths=(2, 4, 5), target_lengths=(3, 2, 1)),
           shapes=CTC_SHAPES, domain=LOGITS, noncontiguous=False),
    OpCase(ops=("ctc_loss",), name="ctc_loss_infinite",
           fn=_ctc(True, "none", input_lengths=(2, 4, 5), target_lengths=(3, 2, 1)),
           shapes=CTC_SHAPES, domain=LOGITS, noncontiguous=False, grad=False),
    OpCase(ops=("ctc_loss",), name="ctc_loss_unbatched",
           fn=lambda m, x: F(m).ctc_loss(_log_softmax(x), m.tensor([1, 2, 2]), [6], [3]), shapes=[((6, 4),)],
           domain=LOGITS),
    OpCase(ops=("ctc_loss",), name="ctc_loss_unbatched_none",
           fn=lambda m, x: F(m).ctc_loss(_log_softmax(x), m.tensor([3, 1]), [5], [2], reduction="none"),
           shapes=[((5, 4),)], domain=LOGITS),
    OpCase(ops=("ctc_loss",), name="ctc_loss_noncontiguous",
           fn=lambda m, x: F(m).ctc_loss(_log_softmax(x.transpose(0, 1)), m.tensor([[1, 2], [3, 3]]), [5, 4], [2, 2]),
           shapes=[((2, 5, 4),)], domain=LOGITS),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_parity(case):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert run_case(case) > 0


def test_case_names_are_unique():
    names = [c.name for c in CASES]
    assert len(names) == len(set(names))


# ---- double backward ---------------------------------------------------------------------------

DOUBLE = [
    ("cross_entropy", lambda m, x: F(m).cross_entropy(x, m.tensor([0, 2, 1, 2]), reduction="sum")),
    ("cross_entropy_mean_weight_smoothing", lambda m, x: F(m).cross_entropy(
        x, m.tensor([0, -100, 1, 2]), m.tensor([0.5, 1.0, 2.0], dtype=m.float64), label_smoothing=0.3)),
    ("cross_entropy_none", lambda m, x: (F(m).cross_entropy(x, m.tensor([1, 2, 0, 0]), reduction="none") *
                                         m.tensor([1.0, -2.0, 0.5, 3.0], dtype=m.float64)).sum()),
    ("nll_loss", lambda m, x: F(m).nll_loss(x.exp(), m.tensor([0, 2, 1, 2]), m.tensor([0.5, 1.0, 2.0], dtype=m.float64))),
    ("nll_loss_none", lambda m, x: (F(m).nll_loss(x * x, m.tensor([0, 2, 1, 2]), reduction="none") * 3).sum()),
    ("binary_cross_entropy", lambda m, x: F(m).binary_cross_entropy(x.sigmoid(), x.detach().sigmoid() * 0.5)),
    ("binary_cross_entropy_with_logits", lambda m, x: F(m).binary_cross_entropy_with_logits(
        x, x.detach().sigmoid(), pos_weight=m.tensor([1.0, 2.0, 0.5], dtype=m.float64))),
    ("smooth_l1_loss", lambda m, x: F(m).smooth_l1_loss(x * x, x.detach())),
    ("smooth_l1_loss_target", lambda m, x: F(m).smooth_l1_loss(x.detach() * 2, x * x, beta=0.5, reduction="sum")),
    ("huber_loss", lambda m, x: F(m).huber_loss(x * x, x.sin(), delta=0.7)),
    ("mse_loss", lambda m, x: F(m).mse_loss(x * x, x.sin(), reduction="sum")),
    ("l1_loss", lambda m, x: F(m).l1_loss(x * x, x.sin())),
    ("kl_div", lambda m, x: F(m).kl_div(x * x, x.sigmoid(), reduction="batchmean")),
    ("kl_div_log_target", lambda m, x: F(m).kl_div(x * x, x, reduction="sum", log_target=True)),
]


@pytest.mark.parametrize("name, fn", DOUBLE, ids=[d[0] for d in DOUBLE])
def test_double_backward(name, fn):
    rng = np.random.default_rng(8)
    a, v = rng.uniform(-2, 2, (4, 3)), rng.uniform(-1, 1, (4, 3))
    outs = []
    for m in (flow, torch):
        x = m.tensor(a, requires_grad=True)
        (gx,) = m.autograd.grad(fn(m, x), [x], create_graph=True)
        (ggx,) = m.autograd.grad((gx * m.tensor(v)).sum(), [x])
        outs.append(ggx.detach().numpy())
    np.testing.assert_allclose(outs[0], outs[1], rtol=1e-8, atol=1e-10)


def test_cross_entropy_double_backward_through_grad_output():
    a = np.random.default_rng(9).uniform(-2, 2, (3, 5))
    outs = []
    for m in (flow, torch):
        x = m.tensor(a, requires_grad=True)
        y = F(m).cross_entropy(x, m.tensor([4, 0, 2]), reduction="none", label_smoothing=0.1)
        g = m.ones_like(y, requires_grad=True)
        (gx,) = m.autograd.grad(y, [x], g, create_graph=True)
        (gg,) = m.autograd.grad((gx * gx).sum(), [g])
        outs.append(gg.detach().numpy())
    np.testing.assert_allclose(outs[0], outs[1], rtol=1e-9)


# ---- the fused cross entropy on each instruction set ---------------------------------------------

_ISA_SCRIPT = """
import numpy as np, oneflow as flow, torch
F, TF = flow.nn.functional, torch.nn.functional
rng = np.random.default_rng(10)
# Row lengths around each vector width exercise the main loops and the tails.
for classes in (1, 3, 4, 7, 8, 15, 16, 17, 33, 1000):
    x = (rng.standard_normal((6, classes)) * 5).astype(np.float32)
    t = rng.integers(0, classes, 6)
    w = rng.uniform(0.5, 2, classes).astype(np.float32)
    for kw in ({}, {"label_smoothing": 0.2}, {"weight": w, "label_smoothing": 0.1}, {"reduction": "none"}):
        args = [dict(kw, weight=m.tensor(kw["weight"])) if "weight" in kw else kw for m in (flow, torch)]
        a, b = flow.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
        y, z = F.cross_entropy(a, flow.tensor(t), **args[0]), TF.cross_entropy(b, torch.tensor(t), **args[1])
        np.testing.assert_allclose(y.detach().numpy(), z.detach().numpy(), rtol=1e-5, atol=1e-5)
        y.sum().backward(); z.sum().backward()
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-5, atol=1e-6)
# A NaN or an infinity in a row.
x = np.zeros((3, 20), dtype=np.float32); x[0, 3] = np.nan; x[1, 5] = np.inf; x[2, 7] = -np.inf
y = F.cross_entropy(flow.tensor(x), flow.tensor([0, 0, 0]), reduction="none").numpy()
z = TF.cross_entropy(torch.tensor(x), torch.tensor([0, 0, 0]), reduction="none").numpy()
np.testing.assert_allclose(y, z, rtol=1e-6, equal_nan=True)
print("ok")
"""


@pytest.mark.parametrize("isa", parity.ISAS)
def test_cross_entropy_on_each_instruction_set(isa):
    parity.assert_script_passes_on_isa(_ISA_SCRIPT, isa)


def test_cross_entropy_does_not_depend_on_thread_count():
    x = flow.tensor(np.random.default_rng(11).standard_normal((64, 3000)).astype(np.float32))
    t = flow.tensor(np.random.default_rng(12).integers(0, 3000, 64))
    old = flow.get_num_threads()
    try:
        flow.set_num_threads(1)
        one = F(flow).cross_entropy(x, t).numpy()
        flow.set_num_threads(max(2, old))
        many = F(flow).cross_entropy(x, t).numpy()
    finally:
        flow.set_num_threads(old)
    assert one == many


# ---- bad input ------------------------------------------------------------------------------------

def _ones(m, *shape):
    return m.ones(*shape)


ERRORS = [
    # (name, fn(m), exception type name, words our message must contain)
    *[(f"{name}_bad_reduction", lambda m, name=name, args=args: getattr(F(m), name)(*args(m), reduction="avg"),
       "ValueError", [name, "avg", "reduction"])
      for name, args in [
          ("cross_entropy", lambda m: (_ones(m, 2, 3), m.tensor([0, 1]))),
          ("nll_loss", lambda m: (_ones(m, 2, 3), m.tensor([0, 1]))),
          ("binary_cross_entropy", lambda m: (_ones(m, 2) * 0.5, _ones(m, 2))),
          ("binary_cross_entropy_with_logits", lambda m: (_ones(m, 2), _ones(m, 2))),
          ("mse_loss", lambda m: (_ones(m, 2), _ones(m, 2))),
          ("l1_loss", lambda m: (_ones(m, 2), _ones(m, 2))),
          ("smooth_l1_loss", lambda m: (_ones(m, 2), _ones(m, 2))),
          ("huber_loss", lambda m: (_ones(m, 2), _ones(m, 2))),
          ("kl_div", lambda m: (_ones(m, 2), _ones(m, 2))),
          ("margin_ranking_loss", lambda m: (_ones(m, 2), _ones(m, 2), _ones(m, 2))),
          ("triplet_margin_loss", lambda m: (_ones(m, 2, 3), _ones(m, 2, 3), _ones(m, 2, 3))),
          ("cosine_embedding_loss", lambda m: (_ones(m, 2, 3), _ones(m, 2, 3), _ones(m, 2))),
          ("ctc_loss", lambda m: (_ones(m, 3, 1, 2), m.tensor([[1]]), [3], [1])),
      ]],
    ("mse_batchmean", lambda m: F(m).mse_loss(_ones(m, 2), _ones(m, 2), reduction="batchmean"), "ValueError",
     ["batchmean"]),
    ("cross_entropy_target_out_of_range", lambda m: F(m).cross_entropy(_ones(m, 3, 5), m.tensor([0, 1, 5])),
     "IndexError", ["cross_entropy", "Target 5", "out of bounds"]),
    ("cross_entropy_negative_target", lambda m: F(m).cross_entropy(_ones(m, 3, 5), m.tensor([0, -1, 2])),
     "IndexError", ["cross_entropy", "Target -1"]),
    ("nll_loss_target_out_of_range", lambda m: F(m).nll_loss(_ones(m, 3, 5), m.tensor([0, 7, 1])), "IndexError",
     ["nll_loss", "Target 7"]),
    ("cross_entropy_batch_mismatch", lambda m: F(m).cross_entropy(_ones(m, 3, 5), m.tensor([0, 1])), "ValueError",
     ["cross_entropy", "batch_size (3)", "batch_size (2)", "[3, 5]", "[2]"]),
    ("nll_loss_batch_mismatch", lambda m: F(m).nll_loss(_ones(m, 4, 5), m.tensor([0, 1])), "ValueError",
     ["nll_loss", "batch_size (4)", "[4, 5]"]),
    ("cross_entropy_spatial_mismatch",
     lambda m: F(m).cross_entropy(_ones(m, 2, 3, 4), m.tensor([[0, 1, 2], [1, 1, 1]])), "RuntimeError",
     ["cross_entropy", "[2, 4]", "[2, 3]"]),
    ("cross_entropy_int32_target", lambda m: F(m).cross_entropy(_ones(m, 3, 5), m.tensor([0, 1, 2], dtype=m.int32)),
     "RuntimeError", ["cross_entropy", "Long or Byte"]),
    ("nll_loss_float_target", lambda m: F(m).nll_loss(_ones(m, 3, 5), m.tensor([0.0, 1.0, 2.0])), "RuntimeError",
     ["nll_loss", "Long or Byte"]),
    ("cross_entropy_probs_int_target", lambda m: F(m).cross_entropy(m.ones(3), m.tensor([0, 1, 2])), "RuntimeError",
     ["cross_entropy", "floating point"]),
    ("cross_entropy_multi_target", lambda m: F(m).cross_entropy(_ones(m, 3, 5), m.zeros(3, 4, dtype=m.int64)),
     "RuntimeError", ["cross_entropy", "multi-target"]),
    ("cross_entropy_weight_size", lambda m: F(m).cross_entropy(_ones(m, 3, 5), m.tensor([0, 1, 2]), m.ones(4)),
     "RuntimeError", ["cross_entropy", "5 classes", "[4]"]),
    ("cross_entropy_label_smoothing", lambda m: F(m).cross_entropy(_ones(m, 3, 5), m.tensor([0, 1, 2]),
                                                                   label_smoothing=1.5), "RuntimeError",
     ["label_smoothing", "1.5"]),
    ("nll_loss_scalar_input", lambda m: F(m).nll_loss(m.ones(()), m.tensor(1)), "ValueError",
     ["nll_loss", "dimensions"]),
    ("binary_cross_entropy_size", lambda m: F(m).binary_cross_entropy(_ones(m, 3) * 0.5, _ones(m, 3, 1)), "ValueError",
     ["binary_cross_entropy", "[3, 1]", "[3]"]),
    ("binary_cross_entropy_range", lambda m: F(m).binary_cross_entropy(m.tensor([1.5, 0.5]), _ones(m, 2)),
     "RuntimeError", ["binary_cross_entropy", "between 0 and 1"]),
    ("binary_cross_entropy_with_logits_size",
     lambda m: F(m).binary_cross_entropy_with_logits(_ones(m, 3), _ones(m, 3, 1)), "ValueError",
     ["binary_cross_entropy_with_logits", "[3, 1]", "[3]"]),
    ("mse_loss_shapes", lambda m: F(m).mse_loss(_ones(m, 3), _ones(m, 2)), "RuntimeError", ["3", "2"]),
    ("mse_loss_weight_size", lambda m: F(m).mse_loss(_ones(m, 3), _ones(m, 3), weight=_ones(m, 2)), "ValueError",
     ["mse_loss", "same size"]),
    ("margin_ranking_loss_dims", lambda m: F(m).margin_ranking_loss(_ones(m, 3), _ones(m, 3, 1), _ones(m, 3)),
     "RuntimeError", ["margin_ranking_loss", "[3, 1]"]),
    ("triplet_margin_loss_dims", lambda m: F(m).triplet_margin_loss(_ones(m, 3, 2), _ones(m, 3, 2), _ones(m, 3)),
     "RuntimeError", ["triplet_margin_loss", "1D"]),
    ("cosine_embedding_loss_target", lambda m: F(m).cosine_embedding_loss(_ones(m, 3, 2), _ones(m, 3, 2),
                                                                          _ones(m, 3, 2)),
     "RuntimeError", ["cosine_embedding_loss", "multi-target"]),
    ("cosine_embedding_loss_dims", lambda m: F(m).cosine_embedding_loss(_ones(m, 3, 2), _ones(m, 3), _ones(m, 3)),
     "RuntimeError", ["cosine_embedding_loss", "[3, 2]", "[3]"]),
    ("ctc_loss_input_length",
     lambda m: F(m).ctc_loss(_ones(m, 3, 1, 4), m.tensor([[1, 2]]), m.tensor([5]), m.tensor([2])), "RuntimeError",
     ["ctc_loss", "input_lengths", "5"]),
    ("ctc_loss_target_length",
     lambda m: F(m).ctc_loss(_ones(m, 5, 2, 4), m.tensor([[1, 2], [1, 1]]), m.tensor([5, 5]), m.tensor([2, 3])),
     "RuntimeError", ["ctc_loss", "size at least 3", "targets"]),
]


@pytest.mark.parametrize("name, fn, kind, words", ERRORS, ids=[e[0] for e in ERRORS])
def test_errors(name, fn, kind, words):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(Exception) as theirs:
            fn(torch)
        assert type(theirs.value).__name__ == kind, f"torch raised {type(theirs.value).__name__}: {theirs.value}"
        with pytest.raises(Exception) as ours:
            fn(flow)
    assert type(ours.value).__name__ == kind, f"we raised {type(ours.value).__name__}: {ours.value}"
    for w in words:
        assert w in str(ours.value), f"{w!r} not in {ours.value!r}"
