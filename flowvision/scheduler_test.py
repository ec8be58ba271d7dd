"""flowvision.scheduler: lr sequences against closed-form NumPy evaluations of timm's formulas.

The reference finds each step's cycle from the cumulative sum of the cycle lengths (not from
the logarithm the schedulers invert), then evaluates the documented formula.
"""

import math

import numpy as np
import pytest

import oneflow as flow
from flowvision.scheduler import CosineLRScheduler, PolyLRScheduler, Scheduler, TanhLRScheduler

BASE_LRS = (0.1, 0.02)


def make_optimizer(lrs=BASE_LRS, **group_extra):
    params = [flow.nn.Parameter(flow.zeros(2)) for _ in lrs]
    groups = [{"params": [p], "lr": lr, **group_extra} for p, lr in zip(params, lrs)]
    return flow.optim.SGD(groups, lr=lrs[0], momentum=0.9)


def shape(kind, lr_max, lr_min, t_curr, t_i, k=1.0, power=0.5, lb=-7.0, ub=3.0):
    if kind == "cosine":
        return lr_min + 0.5 * (lr_max - lr_min) * (1 + np.cos(np.pi * t_curr ** k / t_i ** k))
    if kind == "poly":
        return lr_min + (lr_max - lr_min) * (1 - t_curr ** k / t_i ** k) ** power
    r = t_curr / t_i
    return lr_min + 0.5 * (lr_max - lr_min) * (1 - np.tanh(lb * (1 - r) + ub * r))


def reference(kind, steps, base, t_initial, lr_min=0.0, cycle_mul=1.0, cycle_decay=1.0, cycle_limit=1,
              warmup_t=0, warmup_lr_init=0.0, warmup_prefix=False, **shape_kw):
    """lr at t = 0 .. steps - 1 for one param group with base lr ``base``."""
    t = np.arange(steps, dtype=np.float64)
    tt = t - warmup_t if warmup_prefix else t
    lengths = t_initial * cycle_mul ** np.arange(64, dtype=np.float64)
    starts = np.concatenate([[0.0], np.cumsum(lengths)])
    i = np.searchsorted(starts, tt, side="right") - 1
    i_safe = np.clip(i, 0, 63)
    t_i, t_curr = lengths[i_safe], tt - starts[i_safe]
    with np.errstate(invalid="ignore"):
        lr = shape(kind, base * cycle_decay ** i_safe, lr_min, t_curr, t_i, **shape_kw)
    lr = np.where((i >= cycle_limit) | (i >= 63), lr_min, lr)
    if warmup_t:
        if kind == "tanh" and not warmup_prefix:
            # Tanh warms up to the curve's own value at warmup_t (still in the first cycle here).
            target = shape("tanh", base, lr_min, warmup_t, t_initial, **shape_kw)
        else:
            target = base
        warm = warmup_lr_init + t * (target - warmup_lr_init) / warmup_t
        lr = np.where(t < warmup_t, warm, lr)
    return lr


CLASSES = {"cosine": CosineLRScheduler, "poly": PolyLRScheduler, "tanh": TanhLRScheduler}

CONFIGS = [
    # (kind, scheduler kwargs, number of steps)
    ("cosine", dict(t_initial=50), 80),
    ("cosine", dict(t_initial=50, lr_min=1e-4, warmup_t=5, warmup_lr_init=1e-5), 120),
    ("cosine", dict(t_initial=20, lr_min=1e-3, warmup_t=4, warmup_lr_init=0.0, warmup_prefix=True), 60),
    ("cosine", dict(t_initial=10, lr_min=1e-4, cycle_limit=4, cycle_mul=2.0, cycle_decay=0.5), 200),
    ("cosine", dict(t_initial=10, cycle_limit=6, cycle_mul=1.5, cycle_decay=0.8, warmup_t=3,
                    warmup_lr_init=1e-4, warmup_prefix=True), 250),
    ("cosine", dict(t_initial=3, cycle_limit=7, cycle_mul=3.0), 1200),  # log_3(243) rounds below 5
    ("cosine", dict(t_initial=16, cycle_limit=3, k_decay=0.5, lr_min=1e-5), 60),
    ("cosine", dict(t_initial=16, cycle_limit=3, k_decay=2.0, warmup_t=2, warmup_lr_init=1e-3), 60),
    ("cosine", dict(t_initial=12, cycle_limit=5), 80),
    ("cosine", dict(t_initial=30, cycle_limit=3, cycle_mul=0.5), 100),  # shrinking cycles, then lr_min
    ("poly", dict(t_initial=40), 60),
    ("poly", dict(t_initial=40, power=1.0, lr_min=1e-4, warmup_t=5, warmup_lr_init=1e-6), 60),
    ("poly", dict(t_initial=15, power=2.0, cycle_limit=3, cycle_mul=2.0, cycle_decay=0.7, warmup_t=3,
                  warmup_prefix=True), 140),
    ("poly", dict(t_initial=25, power=0.9, k_decay=1.5, cycle_limit=2), 70),
    ("tanh", dict(t_initial=40), 60),
    ("tanh", dict(t_initial=40, lb=-6.0, ub=4.0, lr_min=1e-4, warmup_t=5, warmup_lr_init=1e-5), 60),
    ("tanh", dict(t_initial=20, warmup_t=6, warmup_lr_init=1e-4, warmup_prefix=True, cycle_limit=3,
                  cycle_mul=1.5, cycle_decay=0.5), 120),
]


def run_schedule(cls, kwargs, steps, per_update):
    optimizer = make_optimizer()
    scheduler = cls(optimizer, t_in_epochs=not per_update, **kwargs)
    lrs = []
    for t in range(steps):
        if per_update:
            scheduler.step(t)  # ignored when stepping per update
            scheduler.step_update(t)
        else:
            scheduler.step_update(t)  # ignored when stepping per epoch
            scheduler.step(t)
        lrs.append([g["lr"] for g in optimizer.param_groups])
    return np.array(lrs)


@pytest.mark.parametrize("per_update", [False, True])
@pytest.mark.parametrize("kind,kwargs,steps", CONFIGS)
def test_lr_sequence_matches_closed_form(kind, kwargs, steps, per_update):
    got = run_schedule(CLASSES[kind], kwargs, steps, per_update)
    kw = dict(kwargs)
    shape_kw = {}
    if "k_decay" in kw:
        shape_kw["k"] = kw.pop("k_decay")
    for name in ("power", "lb", "ub"):
        if name in kw:
            shape_kw[name] = kw.pop(name)
    if kind == "poly":
        shape_kw.setdefault("power", 0.5)
    for g, base in enumerate(BASE_LRS):
        want = reference(kind, steps, base, **kw, **shape_kw)
        np.testing.assert_allclose(got[:, g], want, rtol=1e-9, atol=1e-12, err_msg=f"group {g}")


def test_landmark_values():
    # Cosine: base at 0, the midpoint halfway to lr_min, restarts at each cycle with the decayed peak.
    got = run_schedule(CosineLRScheduler, dict(t_initial=10, lr_min=0.01, cycle_limit=2, cycle_decay=0.5), 25, False)
    assert got[0, 0] == pytest.approx(0.1) and got[5, 0] == pytest.approx(0.055)
    assert got[10, 0] == pytest.approx(0.05) and got[15, 0] == pytest.approx(0.03)
    assert got[20, 0] == got[24, 0] == pytest.approx(0.01)
    # Warmup (not a prefix): linear from warmup_lr_init, then the cosine already warmup_t steps in.
    got = run_schedule(CosineLRScheduler, dict(t_initial=10, warmup_t=4, warmup_lr_init=0.02), 6, False)
    np.testing.assert_allclose(got[:4, 0], [0.02, 0.04, 0.06, 0.08])
    assert got[4, 0] == pytest.approx(0.05 * (1 + math.cos(math.pi * 0.4)))
    # Poly with power 1 is linear.
    got = run_schedule(PolyLRScheduler, dict(t_initial=10, power=1.0), 12, False)
    np.testing.assert_allclose(got[:10, 0], 0.1 * (1 - np.arange(10) / 10), rtol=1e-12)
    np.testing.assert_allclose(got[10:, 0], 0.0)
    # Tanh starts near the base (tanh(-7) ~ -1) and warms up to its own curve without a jump.
    got = run_schedule(TanhLRScheduler, dict(t_initial=20, warmup_t=5, warmup_lr_init=0.0), 8, False)
    assert got[0, 0] == 0.0
    assert got[5, 0] - got[4, 0] == pytest.approx(got[4, 0] - got[3, 0], rel=1e-9)


def test_warmup_sets_the_initial_lr_at_construction():
    optimizer = make_optimizer()
    CosineLRScheduler(optimizer, t_initial=10, warmup_t=3, warmup_lr_init=1e-6)
    assert [g["lr"] for g in optimizer.param_groups] == [1e-6, 1e-6]
    assert [g["initial_lr"] for g in optimizer.param_groups] == list(BASE_LRS)
    optimizer = make_optimizer()
    PolyLRScheduler(optimizer, t_initial=10)
    assert [g["lr"] for g in optimizer.param_groups] == list(BASE_LRS)


def test_lr_scale_multiplies_each_group():
    optimizer = make_optimizer(lr_scale=0.5)
    scheduler = CosineLRScheduler(optimizer, t_initial=10)
    scheduler.step(5)
    assert [g["lr"] for g in optimizer.param_groups] == pytest.approx([0.025, 0.005])


def test_initialize_false_needs_initial_lr():
    optimizer = make_optimizer()
    with pytest.raises(KeyError, match="initial_lr"):
        CosineLRScheduler(optimizer, t_initial=10, initialize=False)
    for g in optimizer.param_groups:
        g["initial_lr"] = g["lr"] * 2
    scheduler = CosineLRScheduler(optimizer, t_initial=10, initialize=False)
    assert scheduler.base_values == [0.2, 0.04]


def test_existing_initial_lr_is_kept_as_base():
    optimizer = make_optimizer()
    CosineLRScheduler(optimizer, t_initial=10).step(5)
    # A second scheduler on the same optimizer (e.g. rebuilt on resume) keeps the base lrs.
    scheduler = CosineLRScheduler(optimizer, t_initial=10)
    assert scheduler.base_values == list(BASE_LRS)


@pytest.mark.parametrize("cls", [CosineLRScheduler, PolyLRScheduler, TanhLRScheduler])
def test_state_dict_resume_continues_the_sequence(cls, tmp_path):
    kwargs = dict(t_initial=30, lr_min=1e-4, warmup_t=4, warmup_lr_init=1e-5, cycle_limit=2, cycle_decay=0.5,
                  t_in_epochs=False, noise_range_t=(10, 40), noise_seed=7)
    straight = run_schedule(cls, {k: v for k, v in kwargs.items() if k != "t_in_epochs"}, 70, True)[:, 0]
    optimizer = make_optimizer()
    scheduler = cls(optimizer, **kwargs)
    for t in range(25):
        scheduler.step_update(t)
    state = scheduler.state_dict()
    assert "optimizer" not in state and state["t_initial"] == 30 and state["base_values"] == list(BASE_LRS)
    flow.save({"scheduler": state, "optimizer": optimizer.state_dict()}, str(tmp_path / "ckpt.of"))
    loaded = flow.load(str(tmp_path / "ckpt.of"))
    # A fresh scheduler built with other settings takes the saved ones.
    optimizer2 = make_optimizer()
    optimizer2.load_state_dict(loaded["optimizer"])
    resumed = cls(optimizer2, t_initial=5, t_in_epochs=False)
    resumed.load_state_dict(loaded["scheduler"])
    rest = []
    for t in range(25, 70):
        resumed.step_update(t)
        rest.append(optimizer2.param_groups[0]["lr"])
    np.testing.assert_allclose(rest, straight[25:], rtol=1e-12)


def test_noise_is_bounded_deterministic_and_only_in_range():
    kw = dict(t_initial=50, noise_range_t=(10, 30), noise_pct=0.2, noise_seed=3)
    plain = run_schedule(CosineLRScheduler, dict(t_initial=50), 40, False)[:, 0]
    noisy = run_schedule(CosineLRScheduler, kw, 40, False)[:, 0]
    again = run_schedule(CosineLRScheduler, kw, 40, False)[:, 0]
    np.testing.assert_array_equal(noisy, again)
    np.testing.assert_array_equal(noisy[:10], plain[:10])
    np.testing.assert_array_equal(noisy[30:], plain[30:])
    rel = noisy[10:30] / plain[10:30] - 1
    assert np.all(np.abs(rel) < 0.2) and np.std(rel) > 0.01
    uniform = run_schedule(CosineLRScheduler, dict(kw, noise_type="uniform", noise_range_t=10), 40, False)[:, 0]
    rel = uniform[10:] / plain[10:] - 1
    assert np.all(np.abs(rel) <= 0.2) and np.std(rel) > 0.01
    # The noise depends on t, not on how many steps were taken before.
    optimizer = make_optimizer()
    scheduler = CosineLRScheduler(optimizer, **kw)
    scheduler.step(17)
    assert optimizer.param_groups[0]["lr"] == noisy[17]


def test_get_cycle_length():
    opt = make_optimizer()
    assert CosineLRScheduler(opt, t_initial=10, cycle_limit=3).get_cycle_length() == 30
    assert CosineLRScheduler(opt, t_initial=10, cycle_limit=3, cycle_mul=2.0).get_cycle_length() == 70
    assert CosineLRScheduler(opt, t_initial=10, warmup_t=5, warmup_prefix=True).get_cycle_length() == 15
    assert PolyLRScheduler(opt, t_initial=10, cycle_limit=2, cycle_mul=1.5).get_cycle_length(3) == 47
    assert TanhLRScheduler(opt, t_initial=8).get_cycle_length() == 8


def test_base_class_needs_get_lr_and_metric_is_recorded():
    opt = make_optimizer()
    base = Scheduler(opt, "lr")
    with pytest.raises(NotImplementedError):
        base.step(1)
    scheduler = CosineLRScheduler(opt, t_initial=10)
    scheduler.step(1, metric=0.5)
    assert scheduler.metric == 0.5


def test_bad_arguments():
    opt = make_optimizer()
    with pytest.raises(ValueError, match="t_initial should be positive, got 0"):
        CosineLRScheduler(opt, t_initial=0)
    with pytest.raises(ValueError, match="lr_min should be >= 0"):
        PolyLRScheduler(opt, t_initial=10, lr_min=-1.0)
    with pytest.raises(ValueError, match="lb should be less than ub"):
        TanhLRScheduler(opt, t_initial=10, lb=3.0, ub=-7.0)
    with pytest.raises(ValueError, match="warmup_t should be >= 0"):
        CosineLRScheduler(opt, t_initial=10, warmup_t=-1)
    with pytest.raises(ValueError, match="noise_type"):
        CosineLRScheduler(opt, t_initial=10, noise_type="pink")
    with pytest.raises(TypeError, match="optimizer with param_groups"):
        CosineLRScheduler([flow.zeros(1)], t_initial=10)
