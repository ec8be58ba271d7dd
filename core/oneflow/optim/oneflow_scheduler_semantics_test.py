"""OneFlow's semantics of SequentialLR (interval_rescaling) and CosineAnnealingWarmRestarts
(decay_rate, restart_limit), against values derived by hand from OneFlow's definitions, and
LinearLR/ChainedScheduler with OneFlow's keywords."""

import math

import pytest

import oneflow as flow
from oneflow.optim import lr_scheduler as sched


def _opt(lr=1.0):
    return flow.optim.SGD([flow.zeros(2, requires_grad=True)], lr=lr)


def _lrs(opt, scheduler, steps):
    out = []
    for _ in range(steps):
        out.append(opt.param_groups[0]["lr"])
        opt.step()
        scheduler.step()
    return out


def test_sequential_lr_shares_the_step_by_default():
    # OneFlow's example: ConstantLR then ExponentialLR at the shared step t: 0.9 ** t.
    opt = _opt()
    s = sched.SequentialLR(
        opt, [sched.ConstantLR(opt, factor=0.1, total_iters=2), sched.ExponentialLR(opt, 0.9)], milestones=[2]
    )
    assert _lrs(opt, s, 6) == pytest.approx([0.1, 0.1, 0.9**2, 0.9**3, 0.9**4, 0.9**5])


def test_sequential_lr_interval_rescaling_restarts():
    opt = _opt()
    s = sched.SequentialLR(
        opt, [sched.ConstantLR(opt, factor=0.1, total_iters=2), sched.ExponentialLR(opt, 0.9)], [2], True
    )
    assert _lrs(opt, s, 5) == pytest.approx([0.1, 0.1, 1.0, 0.9, 0.81])
    # One flag per milestone: restart at the first, share the step at the second.
    opt = _opt()
    s = sched.SequentialLR(
        opt,
        [
            sched.ConstantLR(opt, factor=0.5, total_iters=9),
            sched.LinearLR(opt, 0.1, 1.0, total_iters=4),
            sched.StepLR(opt, step_size=3, gamma=0.5),
        ],
        milestones=[2, 5],
        interval_rescaling=[True, False],
    )
    want = [0.5, 0.5] + [0.1 + 0.9 * t / 4 for t in range(3)] + [0.5 ** (t // 3) for t in range(5, 9)]
    assert _lrs(opt, s, 9) == pytest.approx(want)


def test_sequential_lr_bad_input():
    opt = _opt()
    make = lambda: [sched.StepLR(opt, 2), sched.StepLR(opt, 3)]
    with pytest.raises(ValueError, match="one bool per milestone"):
        sched.SequentialLR(opt, make(), [2], interval_rescaling=[True, False])
    with pytest.raises(TypeError, match="interval_rescaling must be a bool or a list of bools"):
        sched.SequentialLR(opt, make(), [2], interval_rescaling="yes")
    # PyTorch's positional last_epoch still works in the fourth place.
    s = sched.SequentialLR(opt, make(), [2], -1)
    assert s.interval_rescaling == [False] and s.last_epoch == 0


def _sgdr(t, T_0, T_mult, eta_min, decay_rate, restart_limit, base=1.0):
    """OneFlow's closed form of CosineAnnealingWarmRestarts at step t."""
    if T_mult > 1:
        n = math.floor(math.log(1 - t / T_0 * (1 - T_mult), T_mult))
        period = T_mult**n * T_0
        t_cur = t - (1 - T_mult**n) / (1 - T_mult) * T_0
    else:
        n, period = t // T_0, T_0
        t_cur = t - n * T_0
    if restart_limit and n >= restart_limit:
        return eta_min
    return eta_min + (base * decay_rate**n - eta_min) * 0.5 * (1 + math.cos(math.pi * t_cur / period))


@pytest.mark.parametrize(
    "T_0,T_mult,eta_min,decay_rate,restart_limit",
    [
        (5, 1, 0.0, 1.0, 0),
        (5, 1, 0.01, 0.5, 0),
        (4, 2, 0.0, 0.8, 0),
        (3, 1, 0.1, 0.9, 2),
        (2, 3, 0.0, 0.5, 2),
    ],
)
def test_cosine_annealing_warm_restarts_decay_and_limit(T_0, T_mult, eta_min, decay_rate, restart_limit):
    opt = _opt()
    s = sched.CosineAnnealingWarmRestarts(opt, T_0, T_mult, eta_min, decay_rate=decay_rate, restart_limit=restart_limit)
    want = [_sgdr(t, T_0, T_mult, eta_min, decay_rate, restart_limit) for t in range(40)]
    assert _lrs(opt, s, 40) == pytest.approx(want, abs=1e-12)


def test_cosine_annealing_warm_restarts_bad_input():
    with pytest.raises(TypeError, match="decay_rate must be a number"):
        sched.CosineAnnealingWarmRestarts(_opt(), 5, decay_rate="x")
    with pytest.raises(ValueError, match="restart_limit must be an int >= 0"):
        sched.CosineAnnealingWarmRestarts(_opt(), 5, restart_limit=-1)


def test_linear_lr_and_chained_scheduler_with_oneflow_keywords():
    # OneFlow: LinearLR(optimizer, start_factor=1/3, end_factor=1.0, total_iters=5, last_step=-1, verbose=False).
    opt = _opt()
    s = sched.LinearLR(opt, start_factor=0.2, end_factor=1.0, total_iters=4, last_step=-1, verbose=False)
    assert _lrs(opt, s, 6) == pytest.approx([0.2, 0.4, 0.6, 0.8, 1.0, 1.0])
    # ChainedScheduler(schedulers): the product of the factors.
    opt = _opt()
    s = sched.ChainedScheduler([sched.ConstantLR(opt, factor=0.5, total_iters=2), sched.ExponentialLR(opt, 0.9)])
    assert _lrs(opt, s, 4) == pytest.approx([0.5, 0.45, 0.81, 0.729])
