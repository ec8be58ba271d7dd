"""oneflow.optim.lr_scheduler against torch.optim.lr_scheduler.

Every scheduler runs 100 steps next to PyTorch's on an optimizer with two
parameter groups; the learning rates (and cycled momenta) must agree to 1e-9
at every step. WarmupLR, which PyTorch lacks, is checked against its
documented definition, with PyTorch's schedulers providing the wrapped lrs.
"""

import copy
import math
import warnings

import numpy as np
import pytest
import torch

import oneflow as flow

STEPS = 100


def _optimizer(m, name="SGD", **kwargs):
    params = [m.zeros(2, requires_grad=True), m.zeros(3, requires_grad=True)]
    kwargs.setdefault("lr", 0.1)
    if name == "SGD":
        kwargs.setdefault("momentum", 0.9)
    groups = [{"params": [params[0]]}, {"params": [params[1]], "lr": kwargs["lr"] / 2}]
    return getattr(m.optim, name)(groups, **kwargs)


def _restarting(s) -> dict:
    """OneFlow's SequentialLR argument for PyTorch's semantics (none for PyTorch's own)."""
    return {"interval_rescaling": True} if s is flow.optim.lr_scheduler else {}


def _snapshot(opt, scheduler) -> list[float]:
    """Every scheduled quantity: lrs, last lrs, and the momentum or beta1 of each group."""
    values = [float(g["lr"]) for g in opt.param_groups]
    values += [float(lr) for lr in scheduler.get_last_lr()]
    for g in opt.param_groups:
        if "momentum" in g:
            values.append(float(g["momentum"]))
        if "betas" in g:
            values.append(float(g["betas"][0]))
    return values


def _trace(m, make, steps=STEPS, opt_name="SGD", metrics=None, epochs=None, opt_kwargs=None):
    """The snapshots after construction and after each step (of a fresh optimizer and scheduler)."""
    opt = _optimizer(m, opt_name, **(opt_kwargs or {}))
    scheduler = make(m.optim.lr_scheduler, opt)
    trace = [_snapshot(opt, scheduler)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # step(epoch)'s deprecation warning
        for i in range(steps):
            opt.step()
            if metrics is not None:
                scheduler.step(metrics[i])
            elif epochs is not None:
                scheduler.step(epochs[i])
            else:
                scheduler.step()
            trace.append(_snapshot(opt, scheduler))
    return np.array(trace)


def _assert_same_schedule(make, **kwargs):
    ours = _trace(flow, make, **kwargs)
    theirs = _trace(torch, make, **kwargs)
    assert ours.shape == theirs.shape
    np.testing.assert_allclose(ours, theirs, rtol=1e-9, atol=1e-12)
    return ours


class Decay:
    """A callable object: LambdaLR saves its __dict__ in the state dict."""

    def __init__(self, rate: float):
        self.rate = rate

    def __call__(self, epoch: int) -> float:
        return self.rate**epoch


SCHEDULES = {
    "LambdaLR": lambda s, o: s.LambdaLR(o, lambda e: 0.95**e),
    "LambdaLR-list": lambda s, o: s.LambdaLR(o, [lambda e: 1 / (1 + e), Decay(0.9)]),
    "MultiplicativeLR": lambda s, o: s.MultiplicativeLR(o, lambda e: 0.97),
    "MultiplicativeLR-list": lambda s, o: s.MultiplicativeLR(o, [lambda e: 0.9 if e % 3 == 0 else 1.0, lambda e: 0.99]),
    "StepLR": lambda s, o: s.StepLR(o, step_size=7, gamma=0.5),
    "StepLR-1": lambda s, o: s.StepLR(o, step_size=1, gamma=0.9),
    "MultiStepLR": lambda s, o: s.MultiStepLR(o, milestones=[10, 30, 30, 70], gamma=0.3),
    "ExponentialLR": lambda s, o: s.ExponentialLR(o, gamma=0.95),
    "CosineAnnealingLR": lambda s, o: s.CosineAnnealingLR(o, T_max=30, eta_min=0.001),
    "CosineAnnealingLR-100": lambda s, o: s.CosineAnnealingLR(o, T_max=100),
    "CosineAnnealingLR-7": lambda s, o: s.CosineAnnealingLR(o, T_max=7),
    "CosineAnnealingWarmRestarts": lambda s, o: s.CosineAnnealingWarmRestarts(o, T_0=10),
    "CosineAnnealingWarmRestarts-mult": lambda s, o: s.CosineAnnealingWarmRestarts(o, T_0=5, T_mult=2, eta_min=0.01),
    "PolynomialLR": lambda s, o: s.PolynomialLR(o),
    "PolynomialLR-power": lambda s, o: s.PolynomialLR(o, total_iters=40, power=2.0),
    "LinearLR": lambda s, o: s.LinearLR(o, start_factor=0.25, total_iters=20),
    "LinearLR-down": lambda s, o: s.LinearLR(o, start_factor=1.0, end_factor=0.1, total_iters=50),
    "ConstantLR": lambda s, o: s.ConstantLR(o),
    "ConstantLR-half": lambda s, o: s.ConstantLR(o, factor=0.5, total_iters=10),
    "OneCycleLR": lambda s, o: s.OneCycleLR(o, max_lr=0.5, total_steps=STEPS),
    "OneCycleLR-linear": lambda s, o: s.OneCycleLR(o, max_lr=[0.5, 0.2], total_steps=STEPS, anneal_strategy="linear"),
    "OneCycleLR-three_phase": lambda s, o: s.OneCycleLR(
        o, max_lr=0.3, epochs=10, steps_per_epoch=10, pct_start=0.25, three_phase=True, div_factor=10.0
    ),
    "OneCycleLR-no_momentum": lambda s, o: s.OneCycleLR(
        o, max_lr=0.3, total_steps=120, cycle_momentum=False, final_div_factor=100.0
    ),
    "CyclicLR": lambda s, o: s.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=10),
    "CyclicLR-triangular2": lambda s, o: s.CyclicLR(
        o, base_lr=[0.01, 0.02], max_lr=[0.1, 0.3], step_size_up=10, step_size_down=5, mode="triangular2"
    ),
    "CyclicLR-exp_range": lambda s, o: s.CyclicLR(
        o, base_lr=0.01, max_lr=0.1, step_size_up=8, mode="exp_range", gamma=0.97, base_momentum=0.7
    ),
    "CyclicLR-scale_fn": lambda s, o: s.CyclicLR(
        o, base_lr=0.01, max_lr=0.1, step_size_up=6, scale_fn=lambda x: 0.5 ** (x / 10), scale_mode="iterations"
    ),
    "CyclicLR-no_momentum": lambda s, o: s.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=7, cycle_momentum=False),
    # PyTorch's SequentialLR restarts each scheduler at a milestone: OneFlow's interval_rescaling=True.
    "SequentialLR": lambda s, o: s.SequentialLR(
        o,
        [s.LinearLR(o, start_factor=0.1, total_iters=5), s.ExponentialLR(o, gamma=0.9)],
        milestones=[5],
        **_restarting(s),
    ),
    "SequentialLR-three": lambda s, o: s.SequentialLR(
        o,
        [s.ConstantLR(o, factor=0.5, total_iters=5), s.StepLR(o, step_size=4, gamma=0.7), s.CosineAnnealingLR(o, 20)],
        milestones=[10, 40],
        **_restarting(s),
    ),
    "ChainedScheduler": lambda s, o: s.ChainedScheduler([s.ExponentialLR(o, gamma=0.95), s.StepLR(o, 10, 0.5)]),
    "ChainedScheduler-warmup_cosine": lambda s, o: s.ChainedScheduler(
        [s.ConstantLR(o, factor=0.5, total_iters=4), s.CosineAnnealingLR(o, T_max=20)], optimizer=o
    ),
}


@pytest.mark.parametrize("name", list(SCHEDULES))
def test_schedule_matches_torch(name):
    _assert_same_schedule(SCHEDULES[name])


ADAM_SCHEDULES = {
    "OneCycleLR": lambda s, o: s.OneCycleLR(o, max_lr=0.01, total_steps=STEPS),
    "CyclicLR": lambda s, o: s.CyclicLR(o, base_lr=0.001, max_lr=0.01, step_size_up=9, base_momentum=0.85),
    "CyclicLR-triangular2": lambda s, o: s.CyclicLR(o, base_lr=1e-4, max_lr=1e-3, step_size_up=5, mode="triangular2"),
    "CosineAnnealingLR": lambda s, o: s.CosineAnnealingLR(o, T_max=25),
}


@pytest.mark.parametrize("opt_name", ["Adam", "AdamW", "NAdam"])
@pytest.mark.parametrize("name", list(ADAM_SCHEDULES))
def test_schedule_with_betas_matches_torch(name, opt_name):
    trace = _assert_same_schedule(ADAM_SCHEDULES[name], opt_name=opt_name)
    if name.startswith(("OneCycle", "Cyclic")):
        assert np.ptp(trace[:, -1]) > 0.01  # beta1 was cycled


def _plateau_metrics(n=STEPS) -> list[float]:
    # Improving for 15 epochs, then a noisy plateau, a second improvement, and a long plateau.
    out = []
    for i in range(n):
        if i < 15:
            out.append(1.0 / (1 + i))
        elif i < 50:
            out.append(0.07 + 0.002 * ((i * 7) % 5))
        elif i < 60:
            out.append(0.06 - 0.004 * (i - 50))
        else:
            out.append(0.03 + 0.0001 * (i % 3))
    return out


PLATEAU = {
    "default": lambda s, o: s.ReduceLROnPlateau(o),
    "patience3-cooldown2": lambda s, o: s.ReduceLROnPlateau(o, factor=0.5, patience=3, cooldown=2),
    "abs-min_lr": lambda s, o: s.ReduceLROnPlateau(
        o, factor=0.3, patience=2, threshold=0.01, threshold_mode="abs", min_lr=[0.01, 0.001]
    ),
    "rel-eps": lambda s, o: s.ReduceLROnPlateau(o, factor=0.9, patience=1, threshold=0.1, eps=1e-3),
}


@pytest.mark.parametrize("name", list(PLATEAU))
@pytest.mark.parametrize("mode", ["min", "max"])
def test_reduce_lr_on_plateau_matches_torch(name, mode):
    metrics = _plateau_metrics()
    if mode == "max":
        metrics = [-x for x in metrics]

    def make(s, o):
        scheduler = PLATEAU[name](s, o)
        scheduler._init_is_better(mode, scheduler.threshold, scheduler.threshold_mode)
        return scheduler

    trace = _assert_same_schedule(make, metrics=metrics)
    assert trace[-1][0] < trace[0][0]  # it did reduce


CLOSED_FORM = {
    "StepLR": lambda s, o: s.StepLR(o, step_size=3, gamma=0.5),
    "MultiStepLR": lambda s, o: s.MultiStepLR(o, milestones=[2, 5, 5, 9], gamma=0.5),
    "ExponentialLR": lambda s, o: s.ExponentialLR(o, gamma=0.9),
    "CosineAnnealingLR": lambda s, o: s.CosineAnnealingLR(o, T_max=8, eta_min=0.01),
    "LinearLR": lambda s, o: s.LinearLR(o, start_factor=0.2, total_iters=6),
    "ConstantLR": lambda s, o: s.ConstantLR(o, factor=0.4, total_iters=5),
    "PolynomialLR": lambda s, o: s.PolynomialLR(o, total_iters=9, power=1.5),
    "LambdaLR": lambda s, o: s.LambdaLR(o, lambda e: 1 / (1 + e)),
}
EPOCHS = [1, 2, 5, 3, 10, 0, 7, 7, 8, 12, 4, 20]


@pytest.mark.parametrize("name", list(CLOSED_FORM))
def test_step_with_epoch_uses_closed_form_like_torch(name):
    _assert_same_schedule(CLOSED_FORM[name], steps=len(EPOCHS), epochs=EPOCHS)


@pytest.mark.parametrize("t_mult", [1, 2, 3])
def test_warm_restarts_fractional_epochs(t_mult):
    epochs = [e + i / 4 for e in range(30) for i in range(4)]
    epochs += [3.5, 0.25, 41.0, 12.75]  # and out of order
    _assert_same_schedule(
        lambda s, o: s.CosineAnnealingWarmRestarts(o, T_0=3, T_mult=t_mult, eta_min=0.001),
        steps=len(epochs),
        epochs=epochs,
    )


# -- state dicts -----------------------------------------------------------------------------

STATE_CASES = [
    "LambdaLR-list",
    "MultiplicativeLR",
    "StepLR",
    "MultiStepLR",
    "CosineAnnealingLR",
    "CosineAnnealingWarmRestarts-mult",
    "PolynomialLR-power",
    "LinearLR",
    "OneCycleLR-three_phase",
    "CyclicLR-exp_range",
    "CyclicLR-scale_fn",
    "SequentialLR-three",
    "ChainedScheduler",
]


def _plain(value):
    """State-dict values comparable across frameworks (callables and closures aside)."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_plain(v) for v in value)
    if callable(value):
        return "<callable>"
    return value


@pytest.mark.parametrize("name", STATE_CASES)
def test_state_dict_matches_torch(name):
    dicts = []
    for m in (flow, torch):
        opt = _optimizer(m)
        scheduler = SCHEDULES[name](m.optim.lr_scheduler, opt)
        for _ in range(23):
            opt.step()
            scheduler.step()
        dicts.append(_plain(scheduler.state_dict()))
    ours, theirs = dicts
    theirs.pop("_scale_fn_ref", None)  # PyTorch keeps the built-in scale function object
    ours.pop("interval_rescaling", None)  # OneFlow's SequentialLR argument
    assert set(ours) == set(theirs)
    for key in theirs:
        assert ours[key] == theirs[key], key  # nested schedulers' states included


@pytest.mark.parametrize("name", STATE_CASES + ["WarmupLR"])
def test_state_dict_round_trip(name):
    def make(s, o):
        if name == "WarmupLR":
            return s.WarmupLR(s.StepLR(o, step_size=4, gamma=0.5), warmup_factor=0.1, warmup_iters=30)
        return SCHEDULES[name](s, o)

    opt = _optimizer(flow)
    scheduler = make(flow.optim.lr_scheduler, opt)
    for _ in range(20):
        opt.step()
        scheduler.step()
    saved_opt = copy.deepcopy(opt.state_dict())
    saved = copy.deepcopy(scheduler.state_dict())

    opt2 = _optimizer(flow)
    scheduler2 = make(flow.optim.lr_scheduler, opt2)
    opt2.load_state_dict(saved_opt)
    scheduler2.load_state_dict(saved)
    for _ in range(40):
        opt.step()
        scheduler.step()
        opt2.step()
        scheduler2.step()
        assert _snapshot(opt2, scheduler2) == _snapshot(opt, scheduler)


def test_lambda_state_dict_saves_callable_objects():
    decay = Decay(0.9)
    opt = _optimizer(flow)
    scheduler = flow.optim.lr_scheduler.LambdaLR(opt, [lambda e: 1.0, decay])
    state = scheduler.state_dict()
    assert state["lr_lambdas"] == [None, {"rate": 0.9}]
    state["lr_lambdas"][1] = {"rate": 0.5}
    scheduler.load_state_dict(state)
    assert decay.rate == 0.5


def test_torch_state_dict_loads():
    """A PyTorch scheduler's state dict (plain Python values) resumes the same schedule here."""
    t_opt = _optimizer(torch)
    t_sched = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(t_opt, T_0=7, T_mult=2)
    for _ in range(10):
        t_opt.step()
        t_sched.step()
    opt = _optimizer(flow)
    sched = flow.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=7, T_mult=2)
    for group, t_group in zip(opt.param_groups, t_opt.param_groups):
        group.update({k: v for k, v in t_group.items() if k != "params"})
    sched.load_state_dict(t_sched.state_dict())
    for _ in range(30):
        t_opt.step()
        t_sched.step()
        opt.step()
        sched.step()
        assert sched.get_last_lr() == pytest.approx(t_sched.get_last_lr(), rel=1e-12)


# -- WarmupLR ------------------------------------------------------------------------------------


def _warmup_factor(t: int, factor: float, iters: int, method: str) -> float:
    """WarmupLR's multiplier at epoch t, from its definition."""
    if t >= iters:
        return 1.0
    return factor if method == "constant" else factor + (1 - factor) * t / iters


def _torch_lrs(make, steps) -> list[list[float]]:
    opt = _optimizer(torch)
    scheduler = make(torch.optim.lr_scheduler, opt)
    lrs = [list(scheduler.get_last_lr())]
    for _ in range(steps):
        opt.step()
        scheduler.step()
        lrs.append(list(scheduler.get_last_lr()))
    return lrs


INNER = {
    "StepLR": lambda s, o: s.StepLR(o, step_size=4, gamma=0.5),
    "CosineAnnealingLR": lambda s, o: s.CosineAnnealingLR(o, T_max=25, eta_min=0.001),
    "ExponentialLR": lambda s, o: s.ExponentialLR(o, gamma=0.97),
    "MultiStepLR": lambda s, o: s.MultiStepLR(o, milestones=[3, 12, 40], gamma=0.2),
}


@pytest.mark.parametrize("prefix", [False, True], ids=["concurrent", "prefix"])
@pytest.mark.parametrize("method", ["linear", "constant"])
@pytest.mark.parametrize("inner", list(INNER))
def test_warmup_wrapping_a_scheduler(inner, method, prefix):
    factor, iters = 0.1, 10
    inner_lrs = _torch_lrs(INNER[inner], STEPS)
    opt = _optimizer(flow)
    scheduler = flow.optim.lr_scheduler.WarmupLR(
        INNER[inner](flow.optim.lr_scheduler, opt),
        warmup_factor=factor,
        warmup_iters=iters,
        warmup_method=method,
        warmup_prefix=prefix,
    )
    for t in range(STEPS + 1):
        if t > 0:
            opt.step()
            scheduler.step()
        if prefix:  # warmup to the base lr, then the wrapped schedule from its step 0
            f = _warmup_factor(t, factor, iters, method)
            expected = [f * lr for lr in inner_lrs[max(0, t - iters)]]
        elif t >= iters:
            expected = inner_lrs[t]
        elif method == "constant":
            expected = [factor * base for base in inner_lrs[0]]
        else:  # OneFlow: linear from factor * base to the wrapped schedule's lr at step `iters`
            expected = [b * factor + (e - b * factor) * t / iters for b, e in zip(inner_lrs[0], inner_lrs[iters])]
        assert scheduler.get_last_lr() == pytest.approx(expected, rel=1e-9, abs=1e-15), t
        assert [g["lr"] for g in opt.param_groups] == scheduler.get_last_lr()


@pytest.mark.parametrize("method", ["linear", "constant"])
def test_warmup_on_an_optimizer(method):
    opt = _optimizer(flow)
    scheduler = flow.optim.lr_scheduler.WarmupLR(opt, warmup_factor=0.25, warmup_iters=8, warmup_method=method)
    for t in range(30):
        if t > 0:
            opt.step()
            scheduler.step()
        f = _warmup_factor(t, 0.25, 8, method)
        assert scheduler.get_last_lr() == pytest.approx([0.1 * f, 0.05 * f], rel=1e-12)
    # The defaults: factor 1/3 over 5 epochs, linear.
    opt = _optimizer(flow)
    scheduler = flow.optim.lr_scheduler.WarmupLR(opt)
    assert scheduler.get_last_lr() == pytest.approx([0.1 / 3, 0.05 / 3])
    for _ in range(5):
        opt.step()
        scheduler.step()
    assert scheduler.get_last_lr() == pytest.approx([0.1, 0.05])


def test_warmup_in_a_training_loop_drives_the_optimizer():
    w = flow.tensor([1.0], dtype=flow.float64, requires_grad=True)
    opt = flow.optim.SGD([w], lr=1.0)
    scheduler = flow.optim.lr_scheduler.WarmupLR(
        flow.optim.lr_scheduler.ExponentialLR(opt, gamma=0.5), warmup_factor=0.5, warmup_iters=2
    )
    steps = []
    for _ in range(4):
        before = float(w.detach())
        opt.zero_grad()
        w.sum().backward()  # gradient 1: each step moves w by the lr
        opt.step()
        scheduler.step()
        steps.append(before - float(w.detach()))
    # lrs: epoch 0: 0.5 * 1, epoch 1: 0.75 * 0.5, epoch 2: 0.25, epoch 3: 0.125
    assert steps == pytest.approx([0.5, 0.375, 0.25, 0.125])


def test_warmup_bad_input():
    opt = _optimizer(flow)
    with pytest.raises(ValueError):
        flow.optim.lr_scheduler.WarmupLR(opt, warmup_method="cosine")
    with pytest.raises(ValueError):
        flow.optim.lr_scheduler.WarmupLR(opt, warmup_iters=-1)
    with pytest.raises(TypeError):
        flow.optim.lr_scheduler.WarmupLR(object())
    with pytest.raises(ValueError):
        flow.optim.lr_scheduler.WarmupLR(flow.optim.lr_scheduler.ReduceLROnPlateau(opt))


# -- warnings and bad input ----------------------------------------------------------------------


def test_warnings_like_torch():
    for m in (flow, torch):
        opt = _optimizer(m)
        scheduler = m.optim.lr_scheduler.StepLR(opt, 3)
        with pytest.warns(UserWarning, match="optimizer.step()"):
            scheduler.step()  # before any optimizer step
        with pytest.warns(UserWarning, match="get_last_lr"):
            scheduler.get_lr()
        with pytest.warns(UserWarning, match="epoch"):
            scheduler.step(4)
        opt = _optimizer(m)
        scheduler = m.optim.lr_scheduler.StepLR(opt, 3)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            opt.step()
            scheduler.step()


def _raises_like_torch(make):
    with pytest.raises(Exception) as theirs:
        make(torch.optim.lr_scheduler, _optimizer(torch))
    with pytest.raises(type(theirs.value)):
        make(flow.optim.lr_scheduler, _optimizer(flow))


BAD = {
    "not-an-optimizer": lambda s, o: s.StepLR(object(), 3),
    "resume-without-initial_lr": lambda s, o: s.StepLR(o, 3, last_epoch=5),
    "ConstantLR-factor": lambda s, o: s.ConstantLR(o, factor=1.5),
    "LinearLR-start": lambda s, o: s.LinearLR(o, start_factor=0.0),
    "LinearLR-end": lambda s, o: s.LinearLR(o, end_factor=2.0),
    "LambdaLR-count": lambda s, o: s.LambdaLR(o, [lambda e: 1.0]),
    "MultiplicativeLR-not-callable": lambda s, o: s.MultiplicativeLR(o, 0.5),
    "OneCycleLR-no-length": lambda s, o: s.OneCycleLR(o, max_lr=0.1),
    "OneCycleLR-total": lambda s, o: s.OneCycleLR(o, max_lr=0.1, total_steps=0),
    "OneCycleLR-pct": lambda s, o: s.OneCycleLR(o, max_lr=0.1, total_steps=10, pct_start=1.5),
    "OneCycleLR-anneal": lambda s, o: s.OneCycleLR(o, max_lr=0.1, total_steps=10, anneal_strategy="exp"),
    "OneCycleLR-max_lr-count": lambda s, o: s.OneCycleLR(o, max_lr=[0.1], total_steps=10),
    "CyclicLR-mode": lambda s, o: s.CyclicLR(o, 0.01, 0.1, mode="square"),
    "CosineAnnealingWarmRestarts-T_0": lambda s, o: s.CosineAnnealingWarmRestarts(o, T_0=0),
    "CosineAnnealingWarmRestarts-T_mult": lambda s, o: s.CosineAnnealingWarmRestarts(o, T_0=2, T_mult=0),
    "CosineAnnealingWarmRestarts-epoch": lambda s, o: s.CosineAnnealingWarmRestarts(o, T_0=2).step(-1),
    "ReduceLROnPlateau-factor": lambda s, o: s.ReduceLROnPlateau(o, factor=1.0),
    "ReduceLROnPlateau-mode": lambda s, o: s.ReduceLROnPlateau(o, mode="up"),
    "ReduceLROnPlateau-threshold_mode": lambda s, o: s.ReduceLROnPlateau(o, threshold_mode="pct"),
    "ReduceLROnPlateau-min_lr": lambda s, o: s.ReduceLROnPlateau(o, min_lr=[0.1]),
    "SequentialLR-milestones": lambda s, o: s.SequentialLR(o, [s.StepLR(o, 2), s.StepLR(o, 3)], milestones=[]),
    "SequentialLR-empty": lambda s, o: s.SequentialLR(o, [], milestones=[]),
    "SequentialLR-plateau": lambda s, o: s.SequentialLR(o, [s.ReduceLROnPlateau(o)], milestones=[]),
    "ChainedScheduler-empty": lambda s, o: s.ChainedScheduler([]),
}


@pytest.mark.parametrize("name", list(BAD))
def test_bad_input_like_torch(name):
    _raises_like_torch(BAD[name])


def test_one_cycle_past_the_end_raises():
    for m in (flow, torch):
        opt = _optimizer(m)
        scheduler = m.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.1, total_steps=3)
        for _ in range(3):
            opt.step()
            scheduler.step()
        with pytest.raises(ValueError, match="Tried to step 4 times"):
            scheduler.step()


def test_cycle_momentum_needs_momentum():
    for m in (flow, torch):
        opt = m.optim.Adagrad([m.zeros(2, requires_grad=True)])
        with pytest.raises(ValueError, match="momentum"):
            m.optim.lr_scheduler.CyclicLR(opt, 0.01, 0.1)


def test_resume_with_last_epoch_like_torch():
    """With ``initial_lr`` in the groups, last_epoch >= 0 resumes (the cosine jumps to its closed form)."""

    def make(s, o):
        for group in o.param_groups:
            group["initial_lr"] = group["lr"] * 2
        return s.CosineAnnealingLR(o, T_max=10, last_epoch=4)

    _assert_same_schedule(make, steps=20)
    assert math.isclose(_trace(flow, make, steps=0)[0][0], 0.2 * (1 + math.cos(math.pi * 5 / 10)) / 2)
