"""The base of the timm-style schedulers: param-group bookkeeping, stepping, noise, state."""

from __future__ import annotations

import math
from typing import Any

import oneflow as flow

__all__ = ["Scheduler"]


class Scheduler:
    """Sets a param-group field (the lr) of an optimizer from a function of time ``t``.

    Unlike ``oneflow.optim.lr_scheduler``, the caller passes the time explicitly: ``step(epoch)``
    at the end of every epoch (with the index of the next epoch, as timm's training loop does)
    or ``step_update(num_updates)`` after every optimizer update. ``t_in_epochs`` says which of
    the two drives the schedule; the other call does nothing.

    Subclasses implement :meth:`_get_lr` (``t`` -> one value per param group).

    Args:
        optimizer: the optimizer whose param groups are updated.
        param_group_field: the field set in each param group (``"lr"``).
        t_in_epochs: True to follow ``step(epoch)``, False to follow ``step_update(num_updates)``.
        noise_range_t: add noise to the value when ``t >= noise_range_t`` (a number) or
            ``noise_range_t[0] <= t < noise_range_t[1]`` (a pair); None for no noise.
        noise_type: ``"normal"`` (a normal draw, redrawn until its magnitude is under
            ``noise_pct``) or ``"uniform"`` (uniform in ``[-noise_pct, noise_pct)``).
        noise_pct: the bound of the relative noise.
        noise_std: the standard deviation of the normal draw.
        noise_seed: the noise at time ``t`` comes from a generator seeded with ``noise_seed + t``,
            so it is the same in a resumed run.
        initialize: True to record each group's current value as ``initial_<field>`` (unless
            already there); False to require that it is there (e.g. when resuming).

    The value actually written is ``value * group["lr_scale"]`` for groups that have an
    ``lr_scale`` entry (layer-wise lr decay).
    """

    def __init__(self, optimizer: Any, param_group_field: str, t_in_epochs: bool = True,
                 noise_range_t: Any = None, noise_type: str = "normal", noise_pct: float = 0.67,
                 noise_std: float = 1.0, noise_seed: int | None = None, initialize: bool = True) -> None:
        name = type(self).__name__
        if not hasattr(optimizer, "param_groups"):
            raise TypeError(f"{name}: expected an optimizer with param_groups, got {type(optimizer).__name__}")
        if noise_type not in ("normal", "uniform"):
            raise ValueError(f"{name}: noise_type should be 'normal' or 'uniform', got {noise_type!r}")
        self.optimizer = optimizer
        self.param_group_field = param_group_field
        self._initial_param_group_field = f"initial_{param_group_field}"
        for i, group in enumerate(self.optimizer.param_groups):
            if initialize:
                if param_group_field not in group:
                    raise KeyError(f"{name}: param group {i} has no {param_group_field!r}")
                group.setdefault(self._initial_param_group_field, group[param_group_field])
            elif self._initial_param_group_field not in group:
                raise KeyError(f"{name}: param group {i} has no {self._initial_param_group_field!r} "
                               "(pass initialize=True)")
        self.base_values = [group[self._initial_param_group_field] for group in self.optimizer.param_groups]
        self.metric = None
        self.t_in_epochs = t_in_epochs
        self.noise_range_t = noise_range_t
        self.noise_pct = noise_pct
        self.noise_type = noise_type
        self.noise_std = noise_std
        self.noise_seed = noise_seed if noise_seed is not None else 42
        self.update_groups(self.base_values)

    def state_dict(self) -> dict[str, Any]:
        """Everything but the optimizer (plain Python values; ``oneflow.save`` writes them)."""
        return {key: value for key, value in self.__dict__.items() if key != "optimizer"}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restores :meth:`state_dict`'s values (call ``step``/``step_update`` to apply them)."""
        self.__dict__.update(state_dict)

    def _get_lr(self, t: float) -> list[float]:
        raise NotImplementedError

    def _get_values(self, t: float, on_epoch: bool = True) -> list[float] | None:
        if on_epoch != self.t_in_epochs:
            return None
        return self._get_lr(t)

    def step(self, epoch: int, metric: Any = None) -> None:
        """Sets the value for ``epoch`` (when ``t_in_epochs``); call after each epoch with the next index."""
        self.metric = metric
        values = self._get_values(epoch, on_epoch=True)
        if values is not None:
            self.update_groups(self._add_noise(values, epoch))

    def step_update(self, num_updates: int, metric: Any = None) -> None:
        """Sets the value for ``num_updates`` optimizer updates so far (when not ``t_in_epochs``)."""
        self.metric = metric
        values = self._get_values(num_updates, on_epoch=False)
        if values is not None:
            self.update_groups(self._add_noise(values, num_updates))

    def update_groups(self, values: Any) -> None:
        """Writes ``values`` (one per group, or one for all) into the param groups."""
        if not isinstance(values, (list, tuple)):
            values = [values] * len(self.optimizer.param_groups)
        for group, value in zip(self.optimizer.param_groups, values):
            group[self.param_group_field] = value * group["lr_scale"] if "lr_scale" in group else value

    def _is_apply_noise(self, t: float) -> bool:
        if self.noise_range_t is None:
            return False
        if isinstance(self.noise_range_t, (list, tuple)):
            return self.noise_range_t[0] <= t < self.noise_range_t[1]
        return t >= self.noise_range_t

    def _calculate_noise(self, t: float) -> float:
        g = flow.Generator()
        g.manual_seed(int(self.noise_seed + t))
        if self.noise_type == "normal":
            while True:  # redraw out-of-range values; each draw lands inside with good odds
                noise = self.noise_std * float(flow.randn(1, generator=g).item())
                if abs(noise) < self.noise_pct:
                    return noise
        return 2.0 * (float(flow.rand(1, generator=g).item()) - 0.5) * self.noise_pct

    def _add_noise(self, values: list[float], t: float) -> list[float]:
        if self._is_apply_noise(t):
            noise = self._calculate_noise(t)
            values = [v + v * noise for v in values]
        return values


class _CycleScheduler(Scheduler):
    """Shared parts of the cosine/poly/tanh schedulers: warmup and the cycle arithmetic.

    Time after warmup (``t - warmup_t`` when ``warmup_prefix``, else ``t``) is split into
    cycles: cycle ``i`` lasts ``t_initial * cycle_mul ** i`` and peaks at
    ``base_lr * cycle_decay ** i``; after ``cycle_limit`` cycles the value stays at ``lr_min``.
    During warmup (``t < warmup_t``) the value rises linearly from ``warmup_lr_init``.
    """

    def __init__(self, optimizer: Any, t_initial: int, lr_min: float, cycle_mul: float, cycle_decay: float,
                 cycle_limit: int, warmup_t: int, warmup_lr_init: float, warmup_prefix: bool, t_in_epochs: bool,
                 noise_range_t: Any, noise_type: str, noise_pct: float, noise_std: float,
                 noise_seed: int | None, initialize: bool) -> None:
        name = type(self).__name__
        if not t_initial > 0:
            raise ValueError(f"{name}: t_initial should be positive, got {t_initial}")
        if not lr_min >= 0:
            raise ValueError(f"{name}: lr_min should be >= 0, got {lr_min}")
        if not cycle_mul > 0:
            raise ValueError(f"{name}: cycle_mul should be positive, got {cycle_mul}")
        if not cycle_limit >= 0:
            raise ValueError(f"{name}: cycle_limit should be >= 0, got {cycle_limit}")
        if not warmup_t >= 0:
            raise ValueError(f"{name}: warmup_t should be >= 0, got {warmup_t}")
        if not warmup_lr_init >= 0:
            raise ValueError(f"{name}: warmup_lr_init should be >= 0, got {warmup_lr_init}")
        super().__init__(optimizer, param_group_field="lr", t_in_epochs=t_in_epochs, noise_range_t=noise_range_t,
                         noise_type=noise_type, noise_pct=noise_pct, noise_std=noise_std,
                         noise_seed=noise_seed, initialize=initialize)
        self.t_initial = t_initial
        self.lr_min = lr_min
        self.cycle_mul = cycle_mul
        self.cycle_decay = cycle_decay
        self.cycle_limit = cycle_limit
        self.warmup_t = warmup_t
        self.warmup_lr_init = warmup_lr_init
        self.warmup_prefix = warmup_prefix

    def _init_warmup(self, targets: list[float]) -> None:
        """Linear warmup from ``warmup_lr_init`` towards ``targets`` (reached at ``t = warmup_t``)."""
        if self.warmup_t:
            self.warmup_steps = [(v - self.warmup_lr_init) / self.warmup_t for v in targets]
            self.update_groups(self.warmup_lr_init)
        else:
            self.warmup_steps = [1 for _ in self.base_values]

    def _cycle(self, t: float) -> tuple[int, float, float]:
        """(cycle index i, cycle length t_i, time into the cycle t_curr) for post-warmup time ``t``."""
        if self.cycle_mul != 1:
            mul = self.cycle_mul

            def start(j: int) -> float:  # cycle j starts at t_initial * (1 + mul + ... + mul**(j-1))
                return (1 - mul ** j) / (1 - mul) * self.t_initial

            arg = 1 - t / self.t_initial * (1 - mul)
            if arg <= 0:  # mul < 1: past the finite total length of all cycles
                return self.cycle_limit, 0.0, 0.0
            i = math.floor(math.log(arg, mul))
            # The logarithm may round across a cycle boundary (e.g. log_1.5(2.25) < 2): keep i
            # consistent with the cycle starts so that 0 <= t_curr < t_i.
            if start(i + 1) <= t:
                i += 1
            elif start(i) > t:
                i -= 1
            t_i = mul ** i * self.t_initial
            t_curr = t - start(i)
        else:
            i = int(t // self.t_initial)
            t_i = self.t_initial
            t_curr = t - self.t_initial * i
        return i, t_i, t_curr

    def _get_lr(self, t: float) -> list[float]:
        if t < self.warmup_t:
            return [self.warmup_lr_init + t * s for s in self.warmup_steps]
        if self.warmup_prefix:
            t = t - self.warmup_t
        i, t_i, t_curr = self._cycle(t)
        if i >= self.cycle_limit:
            return [self.lr_min for _ in self.base_values]
        gamma = self.cycle_decay ** i
        return [self._decay(v * gamma, t_curr, t_i) for v in self.base_values]

    def _decay(self, lr_max: float, t_curr: float, t_i: float) -> float:
        """The value ``t_curr`` into a cycle of length ``t_i`` that starts at ``lr_max``."""
        raise NotImplementedError

    def get_cycle_length(self, cycles: int = 0) -> int:
        """Steps (epochs or updates) in the first ``cycles`` cycles (default ``cycle_limit``),
        plus the warmup when it is a prefix: the length to train for."""
        cycles = max(1, cycles or self.cycle_limit)
        if self.cycle_mul == 1.0:
            t = self.t_initial * cycles
        else:
            t = int(math.floor(-self.t_initial * (self.cycle_mul ** cycles - 1) / (1 - self.cycle_mul)))
        return t + self.warmup_t if self.warmup_prefix else t
