"""Hyperbolic-tangent decay with linear warmup and restarts (Hsueh et al. 2019)."""

from __future__ import annotations

import math
from typing import Any

from flowvision.scheduler.scheduler import _CycleScheduler

__all__ = ["TanhLRScheduler"]


class TanhLRScheduler(_CycleScheduler):
    """A tanh-shaped decay from the base lr to ``lr_min`` over each cycle, after a linear warmup.

    Cycles, ``cycle_limit`` and ``warmup_prefix`` work as in :class:`CosineLRScheduler`; within
    cycle ``i`` (length ``t_i``, ``t_curr`` steps in, ``r = t_curr / t_i``):
    ``lr = lr_min + 0.5 * (base_lr * cycle_decay ** i - lr_min) * (1 - tanh(lb * (1 - r) + ub * r))``.

    The warmup rises linearly from ``warmup_lr_init`` to the value the schedule has when it
    ends: the base lr with ``warmup_prefix``, otherwise the tanh curve's value at
    ``t = warmup_t`` (so there is no jump).

    Args:
        optimizer: the optimizer; each group's lr at construction is its base lr.
        t_initial: the length of the first cycle.
        lb, ub: the tanh's argument runs from ``lb`` to ``ub`` over a cycle (``lb < ub``).
        lr_min, cycle_mul, cycle_decay, cycle_limit, warmup_t, warmup_lr_init, warmup_prefix,
        t_in_epochs, noise_range_t, noise_type, noise_pct, noise_std, noise_seed, initialize:
            as for :class:`CosineLRScheduler`.
    """

    def __init__(self, optimizer: Any, t_initial: int, lb: float = -7.0, ub: float = 3.0, lr_min: float = 0.0,
                 cycle_mul: float = 1.0, cycle_decay: float = 1.0, cycle_limit: int = 1, warmup_t: int = 0,
                 warmup_lr_init: float = 0.0, warmup_prefix: bool = False, t_in_epochs: bool = True,
                 noise_range_t: Any = None, noise_type: str = "normal",
                 noise_pct: float = 0.67, noise_std: float = 1.0, noise_seed: int = 42,
                 initialize: bool = True) -> None:
        if not lb < ub:
            raise ValueError(f"TanhLRScheduler: lb should be less than ub, got lb={lb}, ub={ub}")
        super().__init__(optimizer, t_initial, lr_min, cycle_mul, cycle_decay, cycle_limit, warmup_t,
                         warmup_lr_init, warmup_prefix, t_in_epochs, noise_range_t, noise_type, noise_pct, noise_std,
                         noise_seed, initialize)
        self.lb = lb
        self.ub = ub
        # _get_lr(warmup_t) is past the warmup, so it does not need warmup_steps yet.
        self._init_warmup(self.base_values if warmup_prefix or not warmup_t else self._get_lr(warmup_t))

    def _decay(self, lr_max: float, t_curr: float, t_i: float) -> float:
        r = t_curr / t_i
        return self.lr_min + 0.5 * (lr_max - self.lr_min) * (1 - math.tanh(self.lb * (1.0 - r) + self.ub * r))
