"""Polynomial decay with linear warmup and restarts."""

from __future__ import annotations

from typing import Any

from flowvision.scheduler.scheduler import _CycleScheduler

__all__ = ["PolyLRScheduler"]


class PolyLRScheduler(_CycleScheduler):
    """Polynomial decay from the base lr to ``lr_min`` over each cycle, after a linear warmup.

    Warmup, cycles, ``warmup_prefix`` and the state after ``cycle_limit`` cycles work as in
    :class:`CosineLRScheduler`; within cycle ``i`` (length ``t_i``, ``t_curr`` steps in):
    ``lr = lr_min + (base_lr * cycle_decay ** i - lr_min) * (1 - t_curr ** k / t_i ** k) ** power``
    with ``k = k_decay``.

    Args:
        optimizer: the optimizer; each group's lr at construction is its base lr.
        t_initial: the length of the first cycle.
        power: the polynomial's exponent (1 is linear decay; the default 0.5 decays late).
        lr_min, cycle_mul, cycle_decay, cycle_limit, warmup_t, warmup_lr_init, warmup_prefix,
        t_in_epochs, noise_range_t, noise_type, noise_pct, noise_std, noise_seed, k_decay, initialize:
            as for :class:`CosineLRScheduler`.

    Example::

        >>> scheduler = PolyLRScheduler(optimizer, t_initial=1000, power=1.0, t_in_epochs=False)
        >>> for num_updates in range(1, 1001):
        ...     train_step(...)
        ...     scheduler.step_update(num_updates)
    """

    def __init__(self, optimizer: Any, t_initial: int, power: float = 0.5, lr_min: float = 0.0,
                 cycle_mul: float = 1.0, cycle_decay: float = 1.0, cycle_limit: int = 1, warmup_t: int = 0,
                 warmup_lr_init: float = 0.0, warmup_prefix: bool = False, t_in_epochs: bool = True,
                 noise_range_t: Any = None, noise_type: str = "normal",
                 noise_pct: float = 0.67, noise_std: float = 1.0, noise_seed: int = 42,
                 k_decay: float = 1.0, initialize: bool = True) -> None:
        super().__init__(optimizer, t_initial, lr_min, cycle_mul, cycle_decay, cycle_limit, warmup_t,
                         warmup_lr_init, warmup_prefix, t_in_epochs, noise_range_t, noise_type, noise_pct, noise_std,
                         noise_seed, initialize)
        self.power = power
        self.k_decay = k_decay
        self._init_warmup(self.base_values)

    def _decay(self, lr_max: float, t_curr: float, t_i: float) -> float:
        k = self.k_decay
        return self.lr_min + (lr_max - self.lr_min) * (1 - t_curr ** k / t_i ** k) ** self.power
