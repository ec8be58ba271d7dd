"""OneFlow's own learning-rate schedulers and arguments (PyTorch has no such names or spellings).

* :class:`CosineDecayLR`: cosine decay to ``alpha * initial_lr`` over ``decay_steps``, then flat.
* :class:`PolynomialLR`: OneFlow's ``decay_batch`` / ``end_learning_rate`` / ``cycle``
  arguments, alongside PyTorch's ``total_iters`` form.
* :class:`WarmupLR`: a linear or constant warmup before (or over the start of) another schedule.

They are re-exported by :mod:`oneflow.optim.lr_scheduler`. Like every scheduler
there, they also accept OneFlow's ``last_step=`` and ``verbose=`` keywords.
OneFlow's schedulers compute each lr in closed form from ``initial_lr`` and the
step, which is what these do.
"""

from __future__ import annotations

import copy
import math
import warnings
from typing import Any

from oneflow.optim.lr_scheduler import LRScheduler, ReduceLROnPlateau
from oneflow.optim.lr_scheduler import PolynomialLR as _TorchPolynomialLR
from oneflow.optim.optimizer import Optimizer

__all__ = ["CosineDecayLR", "PolynomialLR", "WarmupLR"]


def _check_int(owner: str, name: str, value, minimum: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{owner}: {name} must be an int, but got {type(value).__name__}")
    if value < minimum:
        raise ValueError(f"{owner}: {name} must be >= {minimum}, but got {value}")


def _check_real(owner: str, name: str, value) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{owner}: {name} must be a number, but got {type(value).__name__}")


class CosineDecayLR(LRScheduler):
    r"""Cosine decay of the lr over ``decay_steps`` steps, then constant. OneFlow's scheduler.

    .. math::
        \eta_t = \eta_0 \left((1 - \alpha)\,\tfrac12\left(1 + \cos\frac{\pi \min(t, T)}{T}\right)
            + \alpha\right)

    with :math:`\eta_0` the group's ``initial_lr`` and :math:`T` = ``decay_steps``:
    the lr falls from :math:`\eta_0` to :math:`\alpha\eta_0` and stays there.

    Args:
        optimizer (Optimizer): wrapped optimizer.
        decay_steps (int): :math:`T`, the number of decay steps (positive).
        alpha (float): :math:`\alpha`, the final lr as a fraction of the initial one (default: 0).
        last_step (int): index of the last step when resuming (default: -1).
        verbose (bool): print each new lr (default: ``False``).

    Example::

        >>> sched = flow.optim.lr_scheduler.CosineDecayLR(opt, decay_steps=100, alpha=0.1)
    """

    def __init__(self, optimizer: Optimizer, decay_steps: int, alpha: float = 0.0, last_epoch: int = -1) -> None:
        _check_int("CosineDecayLR", "decay_steps", decay_steps, 1)
        _check_real("CosineDecayLR", "alpha", alpha)
        self.decay_steps = decay_steps
        self.alpha = alpha
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        """The closed form at :attr:`last_step`."""
        self._warn_if_called_outside_step()
        return self._get_closed_form_lr()

    def _get_closed_form_lr(self) -> list[float]:
        t = min(max(self.last_epoch, 0), self.decay_steps)
        cos_decay = 0.5 * (1.0 + math.cos(math.pi * t / self.decay_steps))
        factor = (1.0 - self.alpha) * cos_decay + self.alpha
        return [base_lr * factor for base_lr in self.base_lrs]


class PolynomialLR(_TorchPolynomialLR):
    r"""Polynomial decay of the lr, called as in OneFlow or as in PyTorch.

    OneFlow's form, ``PolynomialLR(optimizer, decay_batch, end_learning_rate=1e-4,
    power=1.0, cycle=False, last_step=-1, verbose=False)``, sets with
    :math:`\eta_0` = ``initial_lr``, :math:`D` = ``decay_batch``, :math:`e` =
    ``end_learning_rate`` and :math:`p` = ``power``

    .. math::
        \eta_t = (\eta_0 - e)\left(1 - \frac{t'}{D'}\right)^p + e

    where without ``cycle`` :math:`t' = \min(t, D)`, :math:`D' = D` (the lr stays
    at :math:`e` after :math:`D` steps), and with ``cycle`` :math:`t' = t`,
    :math:`D' = D \lceil \max(t, 1) / D \rceil` (the decay restarts, from a lower
    peak, every :math:`D` steps).

    PyTorch's form, ``PolynomialLR(optimizer, total_iters=5, power=1.0,
    last_epoch=-1)`` (``total_iters`` by keyword, or no decay length at all),
    decays to 0 over ``total_iters`` epochs as in PyTorch. A decay length given
    positionally is OneFlow's ``decay_batch`` (so the third positional argument
    is ``end_learning_rate``, not PyTorch's ``power``).
    """

    _oneflow_form = False

    def __init__(
        self,
        optimizer: Optimizer,
        decay_batch: int | None = None,
        end_learning_rate: float | None = None,
        power: float = 1.0,
        cycle: bool = False,
        last_epoch: int = -1,
        *,
        total_iters: int | None = None,
    ) -> None:
        if decay_batch is not None and total_iters is not None:
            raise TypeError(
                "PolynomialLR: give OneFlow's decay_batch or PyTorch's total_iters, not both "
                f"(got decay_batch={decay_batch}, total_iters={total_iters})"
            )
        _check_real("PolynomialLR", "power", power)
        if not isinstance(cycle, bool):
            raise TypeError(f"PolynomialLR: cycle must be a bool, but got {type(cycle).__name__}")
        if decay_batch is not None or end_learning_rate is not None or cycle:
            self._oneflow_form = True  # set only here, so PyTorch's form keeps PyTorch's state dict
            if decay_batch is None:
                raise TypeError("PolynomialLR: OneFlow's form (end_learning_rate=, cycle=) needs decay_batch")
            _check_int("PolynomialLR", "decay_batch", decay_batch, 1)
            end_learning_rate = 1e-4 if end_learning_rate is None else end_learning_rate
            _check_real("PolynomialLR", "end_learning_rate", end_learning_rate)
            self.decay_batch = decay_batch
            self.end_learning_rate = end_learning_rate
            self.cycle = cycle
            total_iters = decay_batch
        else:
            total_iters = 5 if total_iters is None else total_iters
            _check_int("PolynomialLR", "total_iters", total_iters, 1)
        super().__init__(optimizer, total_iters, power, last_epoch)

    def get_lr(self) -> list[float]:
        """OneFlow's closed form, or PyTorch's chainable update."""
        if not self._oneflow_form:
            return super().get_lr()
        self._warn_if_called_outside_step()
        return self._get_closed_form_lr()

    def _get_closed_form_lr(self) -> list[float]:
        if not self._oneflow_form:
            return super()._get_closed_form_lr()
        t, decay = max(self.last_epoch, 0), self.decay_batch
        if self.cycle:
            decay = decay * math.ceil(max(t, 1) / decay)
        else:
            t = min(t, decay)
        factor = (1.0 - t / decay) ** self.power
        return [(base_lr - self.end_learning_rate) * factor + self.end_learning_rate for base_lr in self.base_lrs]


class WarmupLR(LRScheduler):
    r"""Warms the lr up before, or over the first steps of, another schedule. OneFlow's scheduler.

    With :math:`\eta_0` the group's ``initial_lr``, :math:`w` = ``warmup_factor``,
    :math:`n` = ``warmup_iters`` and :math:`s_t` the lr the wrapped scheduler
    gives at step :math:`t` (:math:`\eta_0` when an optimizer is given), the lr at step :math:`t` is

    .. math::
        \eta_t = \begin{cases}
            \eta_0 \left(w + (e - w)\, t / n\right) & t < n, \text{ "linear"} \\
            \eta_0\, w & t < n, \text{ "constant"} \\
            s_t & t \ge n \\
        \end{cases}

    where :math:`e = s_n / \eta_0`: the linear warmup rises from :math:`w\eta_0`
    to exactly where the wrapped schedule is at step :math:`n`, and the schedule
    takes over from there. With ``warmup_prefix=True`` the wrapped schedule
    starts after the warmup instead (:math:`s_{t-n}` replaces :math:`s_t`, and
    :math:`e = 1`). The wrapped scheduler steps along with this one (held at its
    step 0 during a prefix warmup); its chainable updates never see the warmup.

    Args:
        scheduler_or_optimizer (LRScheduler or Optimizer): the schedule to warm up,
            or an optimizer (warm up to its lr).
        warmup_factor (float): :math:`w`, the lr's fraction at step 0 (default: 1/3).
        warmup_iters (int): :math:`n`, the number of warmup steps (default: 5).
        warmup_method (str): ``"linear"`` or ``"constant"`` (default: ``"linear"``).
        warmup_prefix (bool): warm up before the wrapped schedule instead of over
            its first steps (default: ``False``).
        last_step (int): index of the last step (default: -1).
        verbose (bool): print each new lr (default: ``False``).

    Example::

        >>> cosine = flow.optim.lr_scheduler.CosineDecayLR(opt, decay_steps=5, alpha=0.1)
        >>> sched = flow.optim.lr_scheduler.WarmupLR(cosine, warmup_factor=0.5, warmup_iters=2)
    """

    def __init__(
        self,
        scheduler_or_optimizer: LRScheduler | Optimizer,
        warmup_factor: float = 1.0 / 3,
        warmup_iters: int = 5,
        warmup_method: str = "linear",
        warmup_prefix: bool = False,
        last_epoch: int = -1,
    ) -> None:
        if warmup_method not in ("linear", "constant"):
            raise ValueError(f"WarmupLR: warmup_method must be 'linear' or 'constant', but got {warmup_method!r}")
        _check_int("WarmupLR", "warmup_iters", warmup_iters, 0)
        _check_real("WarmupLR", "warmup_factor", warmup_factor)
        if isinstance(scheduler_or_optimizer, LRScheduler):
            if isinstance(scheduler_or_optimizer, ReduceLROnPlateau):
                raise ValueError("WarmupLR cannot wrap ReduceLROnPlateau: its step needs a metric")
            self._scheduler: LRScheduler | None = scheduler_or_optimizer
            optimizer = scheduler_or_optimizer.optimizer
        elif isinstance(scheduler_or_optimizer, Optimizer):
            if warmup_iters == 0:
                raise ValueError("WarmupLR: warmup_iters must be positive when warming up an optimizer, but got 0")
            self._scheduler = None
            optimizer = scheduler_or_optimizer
        else:
            raise TypeError(
                "WarmupLR: scheduler_or_optimizer must be an LRScheduler or an Optimizer, "
                f"but got {type(scheduler_or_optimizer).__name__}"
            )
        self.warmup_factor = warmup_factor
        self.warmup_iters = warmup_iters
        self.warmup_method = warmup_method
        self.warmup_prefix = warmup_prefix
        self._inner_lrs = None  # the wrapped scheduler's latest lrs, without the warmup
        self._end_lrs = None  # where a linear warmup ends: the wrapped schedule's lrs at step n
        if self._scheduler is not None and not warmup_prefix and warmup_method == "linear" and warmup_iters > 0:
            self._end_lrs = self._look_ahead(self._scheduler, warmup_iters)
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _look_ahead(scheduler: LRScheduler, steps: int) -> list[float]:
        """The lrs ``scheduler`` gives ``steps`` steps from now; it and its optimizer are left as they were."""
        groups = scheduler.optimizer.param_groups
        saved_lrs = [group["lr"] for group in groups]
        saved_state = copy.deepcopy(scheduler.state_dict())
        try:
            for group, lr in zip(groups, scheduler.get_last_lr()):
                group["lr"] = lr
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                verbose, scheduler.verbose = scheduler.verbose, False
                try:
                    for _ in range(steps):
                        scheduler.step()
                finally:
                    scheduler.verbose = verbose
            return list(scheduler.get_last_lr())
        finally:
            scheduler.load_state_dict(saved_state)
            for group, lr in zip(groups, saved_lrs):
                group["lr"] = lr

    def get_lr(self) -> list[float]:
        """The warmup's lr during the warmup, the wrapped schedule's after it."""
        self._warn_if_called_outside_step()
        t, n = self.last_epoch, self.warmup_iters
        if t >= n:
            return list(self._inner_lrs)
        if self.warmup_method == "constant":
            return [base_lr * self.warmup_factor for base_lr in self.base_lrs]
        end_lrs = self._end_lrs if self._end_lrs is not None else self.base_lrs
        w = self.warmup_factor
        # eta_0 * (w + (e - w) t / n) with e = end / eta_0, written without dividing by eta_0.
        return [base_lr * w + (end_lr - base_lr * w) * t / n for base_lr, end_lr in zip(self.base_lrs, end_lrs)]

    def _update_lr(self, epoch: int | None = None) -> None:
        target = self.last_epoch + 1 if epoch is None else epoch
        inner = self._scheduler
        if inner is None:
            self._inner_lrs = list(self.base_lrs)
        elif self._is_initial:
            self._inner_lrs = list(inner.get_last_lr())  # it made its step 0 when it was built
        elif not self.warmup_prefix or target > self.warmup_iters:
            # Give the wrapped scheduler back its own lr before it steps.
            for group, lr in zip(self.optimizer.param_groups, self._inner_lrs):
                group["lr"] = lr
            if epoch is None:
                inner.step()
            else:
                inner._update_lr(target - self.warmup_iters if self.warmup_prefix else target)
            self._inner_lrs = list(inner.get_last_lr())
        super()._update_lr(epoch)

    def state_dict(self) -> dict[str, Any]:
        """The scheduler's state, with the wrapped scheduler's state under ``"_scheduler"``."""
        state = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "_scheduler")}
        state["_scheduler"] = None if self._scheduler is None else self._scheduler.state_dict()
        return state

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Loads a state returned by :meth:`state_dict`."""
        state_dict = dict(state_dict)
        inner_state = state_dict.pop("_scheduler")
        self.__dict__.update(state_dict)
        if inner_state is not None and self._scheduler is not None:
            self._scheduler.load_state_dict(inner_state)
