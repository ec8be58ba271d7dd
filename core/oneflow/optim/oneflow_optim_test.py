"""OneFlow's own optim API: empty parameter lists, Adam's do_bias_correction,
per-group gradient clipping (clip_grad), the schedulers PyTorch lacks
(CosineDecayLR, WarmupLR, PolynomialLR's OneFlow arguments) and the
last_step=/verbose= keywords. Expected values are derived by hand from
OneFlow's documented formulas; PyTorch is the oracle where it has the same thing.
"""

import math

import numpy as np
import pytest
import torch

import oneflow as flow

S = flow.optim.lr_scheduler


def _sgd(lr=1.0, lrs=None):
    ps = [flow.zeros(2, requires_grad=True), flow.zeros(3, requires_grad=True)]
    if lrs is None:
        return flow.optim.SGD([ps[0]], lr=lr)
    return flow.optim.SGD([{"params": [p], "lr": x} for p, x in zip(ps, lrs)], lr=lr)


def _run(opt, scheduler, steps):
    lrs = [scheduler.get_last_lr()]
    for _ in range(steps):
        opt.step()
        scheduler.step()
        lrs.append(scheduler.get_last_lr())
    return lrs


# -- optimizers ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "LAMB"])
def test_empty_parameter_list_is_accepted(name):
    opt = getattr(flow.optim, name)([], lr=0.1)
    assert len(opt.param_groups) == 1 and opt.param_groups[0]["params"] == []
    opt.step()  # nothing to update
    opt.zero_grad()
    p = flow.ones(2, requires_grad=True)
    opt.add_param_group({"params": [p]})
    assert opt.param_groups[1]["params"][0] is p
    # A scheduler over the empty group works too.
    S.StepLR(opt, step_size=1)


def _adam_reference(grads, lr, betas, eps, weight_decay, decoupled, bias_correction):
    """Adam by hand (NumPy), with or without bias correction."""
    x = np.array([1.0, -2.0, 3.0])
    m, v = np.zeros(3), np.zeros(3)
    for t, g in enumerate(grads, 1):
        g = g + 0.0
        if weight_decay and decoupled:
            x = x * (1 - lr * weight_decay)
        elif weight_decay:
            g = g + weight_decay * x
        m = betas[0] * m + (1 - betas[0]) * g
        v = betas[1] * v + (1 - betas[1]) * g * g
        if bias_correction:
            x = x - lr / (1 - betas[0] ** t) * m / (np.sqrt(v) / math.sqrt(1 - betas[1] ** t) + eps)
        else:
            x = x - lr * m / (np.sqrt(v) + eps)
    return x


@pytest.mark.parametrize("name", ["Adam", "AdamW"])
@pytest.mark.parametrize("bias_correction", [True, False])
def test_adam_do_bias_correction(name, bias_correction):
    grads = [np.array([0.5, -1.0, 2.0]), np.array([0.1, 0.3, -0.7]), np.array([-1.5, 0.2, 0.4])]
    p = flow.tensor([1.0, -2.0, 3.0], dtype=flow.float64, requires_grad=True)
    opt = getattr(flow.optim, name)([p], lr=0.1, weight_decay=0.05, do_bias_correction=bias_correction)
    assert opt.param_groups[0]["do_bias_correction"] is bias_correction
    for g in grads:
        p.grad = flow.tensor(g, dtype=flow.float64)
        opt.step()
    expected = _adam_reference(grads, 0.1, (0.9, 0.999), 1e-8, 0.05, name == "AdamW", bias_correction)
    np.testing.assert_allclose(p.detach().numpy(), expected, rtol=1e-12)


def test_adam_with_bias_correction_matches_torch():
    t = torch.tensor([1.0, -2.0, 3.0], dtype=torch.float64, requires_grad=True)
    p = flow.tensor([1.0, -2.0, 3.0], dtype=flow.float64, requires_grad=True)
    topt, fopt = torch.optim.Adam([t], lr=0.1), flow.optim.Adam([p], lr=0.1, do_bias_correction=True)
    for g in ([0.5, -1.0, 2.0], [0.1, 0.3, -0.7]):
        t.grad, p.grad = torch.tensor(g, dtype=torch.float64), flow.tensor(g, dtype=flow.float64)
        topt.step()
        fopt.step()
    np.testing.assert_allclose(p.detach().numpy(), t.detach().numpy(), rtol=1e-12)


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "LAMB"])
def test_contiguous_params_is_accepted_and_checked(name):
    p = flow.zeros(2, requires_grad=True)
    getattr(flow.optim, name)([p], lr=0.1, contiguous_params=False)
    with pytest.raises(TypeError, match="contiguous_params must be a bool"):
        getattr(flow.optim, name)([p], lr=0.1, contiguous_params="yes")


def test_do_bias_correction_rejects_non_bool():
    with pytest.raises(TypeError, match="Adam: do_bias_correction must be a bool"):
        flow.optim.Adam([flow.zeros(2, requires_grad=True)], do_bias_correction=1)


# -- clip_grad ----------------------------------------------------------------------------------


@pytest.mark.parametrize("norm_type", [2.0, 1.0, float("inf")])
def test_clip_grad_clips_each_group_by_its_own_norm(norm_type):
    a = flow.zeros(3, requires_grad=True)
    b = flow.zeros(2, requires_grad=True)
    c = flow.zeros(2, requires_grad=True)
    ga, gb, gc = np.array([3.0, -4.0, 12.0]), np.array([1.0, -2.0]), np.array([0.1, 0.2])
    opt = flow.optim.SGD(
        [
            {"params": [a, b], "clip_grad_max_norm": 1.5, "clip_grad_norm_type": norm_type},
            {"params": [c], "clip_grad_max_norm": 10.0, "clip_grad_norm_type": norm_type},
        ],
        lr=1.0,
    )
    for p, g in ((a, ga), (b, gb), (c, gc)):
        p.grad = flow.tensor(g, dtype=flow.float32)
    assert opt.clip_grad() is None
    # Group 0: one norm over both gradients, scaled down to 1.5 (clip_grad_norm_'s 1e-6 in the denominator).
    joint = np.concatenate([ga, gb])
    total = np.abs(joint).max() if math.isinf(norm_type) else (np.abs(joint) ** norm_type).sum() ** (1 / norm_type)
    scale = min(1.0, 1.5 / (total + 1e-6))
    np.testing.assert_allclose(a.grad.numpy(), ga * scale, rtol=1e-5)
    np.testing.assert_allclose(b.grad.numpy(), gb * scale, rtol=1e-5)
    # Group 1: its norm is under 10, so it is left as it is.
    np.testing.assert_allclose(c.grad.numpy(), gc, rtol=1e-6)


def test_clip_grad_warns_for_groups_without_the_options():
    p = flow.zeros(2, requires_grad=True)
    p.grad = flow.tensor([30.0, 40.0])
    opt = flow.optim.Adam([p], lr=0.1)
    with pytest.warns(UserWarning, match="clip_grad_max_norm"):
        opt.clip_grad()
    np.testing.assert_allclose(p.grad.numpy(), [30.0, 40.0])


def test_clip_grad_raises_on_nonfinite_norm():
    p = flow.zeros(2, requires_grad=True)
    p.grad = flow.tensor([float("nan"), 1.0])
    opt = flow.optim.SGD([{"params": [p], "clip_grad_max_norm": 1.0, "clip_grad_norm_type": 2}], lr=0.1)
    with pytest.raises(RuntimeError):
        opt.clip_grad()


def test_clip_options_are_checked():
    p = flow.zeros(2, requires_grad=True)
    with pytest.raises(TypeError, match="'clip_grad_max_norm' must be a number, but got str"):
        flow.optim.SGD([{"params": [p], "clip_grad_max_norm": "1", "clip_grad_norm_type": 2.0}], lr=0.1)
    with pytest.raises(ValueError, match="'clip_grad_max_norm' must be positive"):
        flow.optim.SGD([{"params": [p], "clip_grad_max_norm": 0.0, "clip_grad_norm_type": 2.0}], lr=0.1)


# -- schedulers ---------------------------------------------------------------------------------


@pytest.mark.parametrize("alpha", [0.0, 0.1])
def test_cosine_decay_lr(alpha):
    opt = _sgd(lrs=[0.1, 0.02])
    lrs = _run(opt, S.CosineDecayLR(opt, decay_steps=8, alpha=alpha), 12)
    for t, got in enumerate(lrs):
        factor = (1 - alpha) * 0.5 * (1 + math.cos(math.pi * min(t, 8) / 8)) + alpha
        assert got == pytest.approx([0.1 * factor, 0.02 * factor], rel=1e-12), t
    assert lrs[-1] == pytest.approx([0.1 * alpha, 0.02 * alpha], abs=1e-15)


def test_cosine_decay_lr_checks_arguments():
    with pytest.raises(ValueError, match="CosineDecayLR: decay_steps must be >= 1, but got 0"):
        S.CosineDecayLR(_sgd(), decay_steps=0)
    with pytest.raises(TypeError, match="CosineDecayLR: decay_steps must be an int, but got float"):
        S.CosineDecayLR(_sgd(), decay_steps=2.5)


@pytest.mark.parametrize("cycle", [False, True])
@pytest.mark.parametrize("power", [1.0, 2.0])
def test_polynomial_lr_oneflow_form(cycle, power):
    opt = _sgd(lr=0.1)
    sched = S.PolynomialLR(opt, decay_batch=4, end_learning_rate=0.01, power=power, cycle=cycle)
    lrs = _run(opt, sched, 10)
    for t, (got,) in enumerate(lrs):
        if cycle:
            d = 4 * math.ceil(max(t, 1) / 4)
            expected = (0.1 - 0.01) * (1 - t / d) ** power + 0.01
        else:
            expected = (0.1 - 0.01) * (1 - min(t, 4) / 4) ** power + 0.01
        assert got == pytest.approx(expected, rel=1e-12), t


def test_polynomial_lr_oneflow_defaults_and_positional_form():
    opt = _sgd(lr=0.1)
    lrs = _run(opt, S.PolynomialLR(opt, 2), 3)  # decay_batch=2, end_learning_rate=1e-4, power 1
    assert [x[0] for x in lrs] == pytest.approx([0.1, (0.1 - 1e-4) * 0.5 + 1e-4, 1e-4, 1e-4])


def test_polynomial_lr_torch_form_matches_torch():
    opt = _sgd(lr=0.1)
    tp = torch.zeros(2, requires_grad=True)
    topt = torch.optim.SGD([tp], lr=0.1)
    ours = _run(opt, S.PolynomialLR(opt, total_iters=6, power=2.0), 8)
    theirs = _run(topt, torch.optim.lr_scheduler.PolynomialLR(topt, total_iters=6, power=2.0), 8)
    assert [x[0] for x in ours] == pytest.approx([x[0] for x in theirs], rel=1e-12)


def test_polynomial_lr_checks_arguments():
    with pytest.raises(TypeError, match="not both"):
        S.PolynomialLR(_sgd(), decay_batch=3, total_iters=3)
    with pytest.raises(ValueError, match="decay_batch must be >= 1"):
        S.PolynomialLR(_sgd(), decay_batch=0)
    with pytest.raises(TypeError, match="needs decay_batch"):
        S.PolynomialLR(_sgd(), end_learning_rate=0.1)


def test_warmup_over_cosine_decay_as_documented():
    # OneFlow's documented example: lr 0.001, CosineDecayLR(decay_steps=5, alpha=0.1),
    # linear warmup with factor 0.5 over 2 steps.
    opt = _sgd(lr=0.001)
    cosine = S.CosineDecayLR(opt, decay_steps=5, alpha=0.1)
    lrs = [x[0] for x in _run(opt, S.WarmupLR(cosine, warmup_factor=0.5, warmup_iters=2), 7)]

    def cos(t):
        return 0.001 * (0.9 * 0.5 * (1 + math.cos(math.pi * min(t, 5) / 5)) + 0.1)

    expected = [0.0005, 0.0005 + (cos(2) - 0.0005) / 2] + [cos(t) for t in range(2, 8)]
    assert lrs == pytest.approx(expected, rel=1e-12)
    assert lrs[2] == pytest.approx(0.000689, abs=1e-6)  # the value OneFlow's docs give


def test_warmup_prefix_and_constant():
    opt = _sgd(lr=1.0)
    sched = S.WarmupLR(S.ExponentialLR(opt, gamma=0.5), warmup_factor=0.2, warmup_iters=3, warmup_prefix=True)
    lrs = [x[0] for x in _run(opt, sched, 6)]
    assert lrs == pytest.approx([0.2, 0.2 + 0.8 / 3, 0.2 + 1.6 / 3, 1.0, 0.5, 0.25, 0.125])
    opt = _sgd(lr=1.0)
    sched = S.WarmupLR(S.ExponentialLR(opt, gamma=0.5), warmup_factor=0.2, warmup_iters=3, warmup_method="constant")
    lrs = [x[0] for x in _run(opt, sched, 5)]
    assert lrs == pytest.approx([0.2, 0.2, 0.2, 0.125, 0.0625, 0.03125])


def test_warmup_checks_arguments():
    with pytest.raises(ValueError, match="warmup_iters must be positive"):
        S.WarmupLR(_sgd(), warmup_iters=0)
    with pytest.raises(ValueError, match="warmup_method must be 'linear' or 'constant'"):
        S.WarmupLR(_sgd(), warmup_method="cosine")
    with pytest.raises(TypeError, match="must be an LRScheduler or an Optimizer, but got list"):
        S.WarmupLR([])
    # Without warmup steps a wrapped scheduler runs unchanged.
    opt = _sgd(lr=1.0)
    lrs = [x[0] for x in _run(opt, S.WarmupLR(S.StepLR(opt, 2, 0.5), warmup_iters=0), 4)]
    assert lrs == pytest.approx([1.0, 1.0, 0.5, 0.5, 0.25])


@pytest.mark.parametrize(
    "make",
    [
        lambda o, **k: S.StepLR(o, step_size=2, **k),
        lambda o, **k: S.MultiStepLR(o, milestones=[2, 4], **k),
        lambda o, **k: S.ExponentialLR(o, gamma=0.9, **k),
        lambda o, **k: S.CosineAnnealingLR(o, T_max=5, **k),
        lambda o, **k: S.LinearLR(o, **k),
        lambda o, **k: S.ConstantLR(o, **k),
        lambda o, **k: S.LambdaLR(o, lambda t: 0.5**t, **k),
        lambda o, **k: S.CosineDecayLR(o, decay_steps=5, **k),
        lambda o, **k: S.PolynomialLR(o, decay_batch=5, **k),
        lambda o, **k: S.WarmupLR(o, **k),
    ],
)
def test_last_step_and_verbose_keywords(make, capsys):
    opt = _sgd(lr=1.0)
    sched = make(opt, last_step=-1, verbose=True)
    assert sched.last_step == sched.last_epoch == 0
    opt.step()
    sched.step()
    assert sched.last_step == 1
    assert "lr of param_groups[0] set to" in capsys.readouterr().out
    # Resuming with last_step, as OneFlow's checkpoints do.
    resumed = make(opt, last_step=1)
    assert resumed.last_step == 2
    with pytest.raises(TypeError, match="both 'last_step' and 'last_epoch'"):
        make(opt, last_step=0, last_epoch=0)
    with pytest.raises(TypeError, match="verbose must be a bool"):
        make(opt, verbose="no")


def test_reduce_lr_on_plateau_accepts_verbose():
    S.ReduceLROnPlateau(_sgd(), verbose=False)
