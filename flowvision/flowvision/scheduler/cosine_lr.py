"""Cosine decay with linear warmup and warm restarts (SGDR, Loshchilov & Hutter 2017)."""

from __future__ import annotations

import math
from typing import Any

from flowvision.scheduler.scheduler import _CycleScheduler

__all__ = ["CosineLRScheduler"]


class CosineLRScheduler(_CycleScheduler):
    """Cosine annealing from the base lr to ``lr_min`` over each cycle, after a linear warmup.

    With ``t`` the epoch (``step``) or update count (``step_update``):

    * warmup, ``t < warmup_t``: ``lr = warmup_lr_init + t * (base_lr - warmup_lr_init) / warmup_t``;
    * then (with ``t -= warmup_t`` when ``warmup_prefix``), in cycle ``i`` of length
      ``t_i = t_initial * cycle_mul ** i`` at ``t_curr`` steps into it:
      ``lr = lr_min + 0.5 * (base_lr * cycle_decay ** i - lr_min) * (1 + cos(pi * t_curr ** k / t_i ** k))``
      with ``k = k_decay``;
    * after ``cycle_limit`` cycles: ``lr = lr_min``.

    Without ``warmup_prefix`` the warmup overlaps the first cycle (the cosine is already
    ``warmup_t`` steps in when warmup ends).

    Args:
        optimizer: the optimizer; each group's lr at construction is its base lr.
        t_initial: the length of the first cycle.
        lr_min: the lr at the end of each cycle.
        cycle_mul: each cycle is ``cycle_mul`` times longer than the previous one.
        cycle_decay: each cycle peaks ``cycle_decay`` times lower than the previous one.
        cycle_limit: the number of cycles.
        warmup_t: warmup length (0 for none).
        warmup_lr_init: the lr at ``t = 0`` of the warmup.
        warmup_prefix: True to start the first cycle after the warmup.
        t_in_epochs: True for ``step(epoch)``, False for ``step_update(num_updates)``.
        noise_range_t, noise_type, noise_pct, noise_std, noise_seed: lr noise (see :class:`Scheduler`).
        k_decay: the exponent ``k`` (< 1 decays later, > 1 earlier).
        initialize: see :class:`Scheduler`.

    Example::

        >>> scheduler = CosineLRScheduler(optimizer, t_initial=100, lr_min=1e-5, warmup_t=5, warmup_lr_init=1e-6)
        >>> for epoch in range(100):
        ...     train_one_epoch(...)
        ...     scheduler.step(epoch + 1)
    """

    def __init__(self, optimizer: Any, t_initial: int, lr_min: float = 0.0, cycle_mul: float = 1.0,
                 cycle_decay: float = 1.0, cycle_limit: int = 1, warmup_t: int = 0, warmup_lr_init: float = 0.0,
                 warmup_prefix: bool = False, t_in_epochs: bool = True, noise_range_t: Any = None,
                 noise_type: str = "normal", noise_pct: float = 0.67, noise_std: float = 1.0, noise_seed: int = 42,
                 k_decay: float = 1.0, initialize: bool = True) -> None:
        super().__init__(optimizer, t_initial, lr_min, cycle_mul, cycle_decay, cycle_limit, warmup_t,
                         warmup_lr_init, warmup_prefix, t_in_epochs, noise_range_t, noise_type, noise_pct, noise_std,
                         noise_seed, initialize)
        self.k_decay = k_decay
        self._init_warmup(self.base_values)

    def _decay(self, lr_max: float, t_curr: float, t_i: float) -> float:
        k = self.k_decay
        return self.lr_min + 0.5 * (lr_max - self.lr_min) * (1 + math.cos(math.pi * t_curr ** k / t_i ** k))
