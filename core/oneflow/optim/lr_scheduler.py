"""Learning-rate schedulers: adjust an optimizer's ``lr`` (and momentum) as training runs.

They follow ``torch.optim.lr_scheduler``: constructing a scheduler records each
group's ``initial_lr`` and performs step 0; each ``step()`` then moves to the
next epoch. Most schedulers update the learning rate multiplicatively from the
current ``group["lr"]`` (so several can be composed, e.g. by
:class:`ChainedScheduler`); ``step(epoch)`` (deprecated, as in PyTorch) uses the
closed form where one exists. OneFlow's own schedulers and spellings
(:class:`WarmupLR`, :class:`CosineDecayLR`, OneFlow's :class:`PolynomialLR`
arguments, ``last_step=``/``verbose=``) live in
:mod:`oneflow.optim.oneflow_lr_scheduler` and are re-exported here.

A scheduler's ``state_dict()`` is its ``__dict__`` without the optimizer, as in
PyTorch, so scheduler state dicts have the same keys in both frameworks.
"""

from __future__ import annotations

import math
import types
import warnings
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from oneflow.optim.optimizer import Optimizer
from oneflow.optim.scheduler_keywords import accept_oneflow_keywords

__all__ = [
    "ChainedScheduler",
    "ConstantLR",
    "CosineAnnealingLR",
    "CosineDecayLR",
    "CosineAnnealingWarmRestarts",
    "CyclicLR",
    "ExponentialLR",
    "LRScheduler",
    "LambdaLR",
    "LinearLR",
    "MultiStepLR",
    "MultiplicativeLR",
    "OneCycleLR",
    "PolynomialLR",
    "ReduceLROnPlateau",
    "SequentialLR",
    "StepLR",
    "WarmupLR",
]

_EPOCH_DEPRECATION_WARNING = (
    "Passing an epoch to `scheduler.step()` is deprecated: call `scheduler.step()` once per "
    "epoch instead. While it is supported, a given epoch makes the scheduler use its closed-form "
    "learning rate where it has one."
)


def _per_group(name: str, optimizer: Optimizer, value) -> list:
    """``value`` repeated for every group, or checked to have one entry per group."""
    if isinstance(value, (list, tuple)):
        if len(value) != len(optimizer.param_groups):
            raise ValueError(
                f"{name} must have the same length as optimizer.param_groups. "
                f"{name} has {len(value)} values, param_groups has {len(optimizer.param_groups)}."
            )
        return list(value)
    return [value] * len(optimizer.param_groups)


def _group_values(optimizer: Optimizer, key: str) -> list:
    return [group[key] for group in optimizer.param_groups]


def _callable_state(fns: Sequence[Callable]) -> list:
    """State of callables for a state dict: the ``__dict__`` of callable objects, None for functions."""
    return [None if isinstance(fn, types.FunctionType) else fn.__dict__.copy() for fn in fns]


class LRScheduler:
    r"""Base class of the learning-rate schedulers.

    Args:
        optimizer (Optimizer): the optimizer whose groups' ``lr`` is scheduled.
        last_epoch (int): index of the last epoch when resuming (default: -1,
            a fresh start; then each group's ``initial_lr`` is set from its ``lr``).

    Subclasses implement :meth:`get_lr` (the chainable form, computed from the
    current ``lr``) and optionally ``_get_closed_form_lr`` (from ``base_lrs``).
    """

    _get_lr_called_within_step: bool = False
    _is_initial: bool = False
    verbose: bool = False

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        init = cls.__dict__.get("__init__")
        if init is not None and not getattr(init, "_accepts_oneflow_keywords", False):
            cls.__init__ = accept_oneflow_keywords(init)

    @property
    def last_step(self) -> int:
        """OneFlow's name for :attr:`last_epoch` (its schedulers count steps)."""
        return self.last_epoch

    @last_step.setter
    def last_step(self, value: int) -> None:
        self.last_epoch = value

    def __init__(self, optimizer: Optimizer, last_epoch: int = -1) -> None:
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", group["lr"])
        else:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError(
                        f"param 'initial_lr' is not specified in param_groups[{i}] when resuming a "
                        "scheduler with last_epoch >= 0: load the optimizer's state first"
                    )
        self.base_lrs: list[float] = _group_values(optimizer, "initial_lr")
        self.last_epoch = last_epoch
        self._initial_step()

    def _initial_step(self) -> None:
        """Performs step 0 (done by the constructor)."""
        self._step_count = 0
        self._is_initial = True
        try:
            self.step()
        finally:
            self._is_initial = False

    def state_dict(self) -> dict[str, Any]:
        """The scheduler's state: every attribute except the optimizer."""
        return {key: value for key, value in self.__dict__.items() if key != "optimizer"}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Loads a state returned by :meth:`state_dict`."""
        self.__dict__.update(state_dict)

    def get_last_lr(self) -> list[float]:
        """The learning rates the last :meth:`step` set, one per group."""
        return self._last_lr

    def get_lr(self) -> list[float]:
        """The learning rates of the current epoch (computed by :meth:`step`)."""
        raise NotImplementedError

    def _warn_if_called_outside_step(self) -> None:
        if not self._get_lr_called_within_step:
            warnings.warn(
                "To get the last learning rate computed by the scheduler, please use `get_last_lr()`.",
                UserWarning,
                stacklevel=3,
            )

    def step(self, epoch: int | None = None) -> None:
        """Moves to the next epoch (or, deprecated, to ``epoch``) and sets the groups' ``lr``."""
        if self._step_count == 1 and not getattr(self.optimizer, "_opt_called", False):
            warnings.warn(
                "Detected call of `lr_scheduler.step()` before `optimizer.step()`: call "
                "`optimizer.step()` first, or the first value of the schedule is skipped.",
                UserWarning,
                stacklevel=2,
            )
        self._step_count += 1
        if epoch is not None:
            warnings.warn(_EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self._update_lr(epoch)

    def _set_lrs(self, values: Iterable[float]) -> None:
        for i, (group, lr) in enumerate(zip(self.optimizer.param_groups, values)):
            group["lr"] = lr
            if self.verbose:  # OneFlow's verbose=: report each new lr
                print(f"Last step {self.last_epoch} of {type(self).__name__}: lr of param_groups[{i}] set to {lr}")
        self._last_lr = _group_values(self.optimizer, "lr")

    def _update_lr(self, epoch: int | None = None) -> None:
        self._get_lr_called_within_step = True
        try:
            if epoch is None:
                self.last_epoch += 1
                values = self.get_lr()
            else:
                self.last_epoch = epoch
                closed_form = getattr(self, "_get_closed_form_lr", None)
                values = closed_form() if closed_form is not None else self.get_lr()
        finally:
            self._get_lr_called_within_step = False
        self._set_lrs(values)


_LRScheduler = LRScheduler


class LambdaLR(LRScheduler):
    r"""Sets each group's lr to ``initial_lr * lr_lambda(epoch)``.

    Args:
        optimizer (Optimizer): wrapped optimizer.
        lr_lambda (function or list): a function of the epoch, or one per group.
        last_epoch (int): index of the last epoch (default: -1).

    The state dict holds the ``__dict__`` of callable objects among the lambdas
    (plain functions and lambdas are not saved).
    """

    def __init__(
        self,
        optimizer: Optimizer,
        lr_lambda: Callable[[int], float] | list[Callable[[int], float]],
        last_epoch: int = -1,
    ) -> None:
        self.optimizer = optimizer
        if isinstance(lr_lambda, (list, tuple)):
            if len(lr_lambda) != len(optimizer.param_groups):
                raise ValueError(f"Expected {len(optimizer.param_groups)} lr_lambdas, but got {len(lr_lambda)}")
            self.lr_lambdas = list(lr_lambda)
        else:
            self.lr_lambdas = [lr_lambda] * len(optimizer.param_groups)
        super().__init__(optimizer, last_epoch)

    def state_dict(self) -> dict[str, Any]:
        """The scheduler's state; callable objects among the lambdas contribute their ``__dict__``."""
        state = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "lr_lambdas")}
        state["lr_lambdas"] = _callable_state(self.lr_lambdas)
        return state

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Loads a state returned by :meth:`state_dict`."""
        state_dict = dict(state_dict)
        lambdas = state_dict.pop("lr_lambdas")
        self.__dict__.update(state_dict)
        for fn, fn_state in zip(self.lr_lambdas, lambdas):
            if fn_state is not None:
                fn.__dict__.update(fn_state)

    def get_lr(self) -> list[float]:
        """``initial_lr * lr_lambda(last_epoch)`` for each group."""
        self._warn_if_called_outside_step()
        return [base_lr * fn(self.last_epoch) for fn, base_lr in zip(self.lr_lambdas, self.base_lrs)]


class MultiplicativeLR(LRScheduler):
    r"""Multiplies each group's lr by ``lr_lambda(epoch)`` every epoch after the first.

    Args:
        optimizer (Optimizer): wrapped optimizer.
        lr_lambda (function or list): a function of the epoch, or one per group.
        last_epoch (int): index of the last epoch (default: -1).
    """

    def __init__(
        self,
        optimizer: Optimizer,
        lr_lambda: Callable[[int], float] | list[Callable[[int], float]],
        last_epoch: int = -1,
    ) -> None:
        self.optimizer = optimizer
        if isinstance(lr_lambda, (list, tuple)):
            if len(lr_lambda) != len(optimizer.param_groups):
                raise ValueError(f"Expected {len(optimizer.param_groups)} lr_lambdas, but got {len(lr_lambda)}")
            self.lr_lambdas = list(lr_lambda)
        else:
            self.lr_lambdas = [lr_lambda] * len(optimizer.param_groups)
        for fn in self.lr_lambdas:
            if not callable(fn):
                raise TypeError(f"lr_lambda should be a function, but got {type(fn).__name__}")
        super().__init__(optimizer, last_epoch)

    state_dict = LambdaLR.state_dict
    load_state_dict = LambdaLR.load_state_dict

    def get_lr(self) -> list[float]:
        """The current lr times ``lr_lambda(last_epoch)`` (unchanged at construction)."""
        self._warn_if_called_outside_step()
        if self._is_initial:
            return _group_values(self.optimizer, "lr")
        return [group["lr"] * fn(self.last_epoch) for fn, group in zip(self.lr_lambdas, self.optimizer.param_groups)]


class StepLR(LRScheduler):
    r"""Multiplies the lr by ``gamma`` every ``step_size`` epochs.

    Args:
        optimizer (Optimizer): wrapped optimizer.
        step_size (int): period of the decay, in epochs.
        gamma (float): multiplicative factor (default: 0.1).
        last_epoch (int): index of the last epoch (default: -1).
    """

    def __init__(self, optimizer: Optimizer, step_size: int, gamma: float = 0.1, last_epoch: int = -1) -> None:
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        """The current lr, times ``gamma`` at multiples of ``step_size``."""
        self._warn_if_called_outside_step()
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return _group_values(self.optimizer, "lr")
        return [group["lr"] * self.gamma for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> list[float]:
        return [base_lr * self.gamma ** (self.last_epoch // self.step_size) for base_lr in self.base_lrs]


class MultiStepLR(LRScheduler):
    r"""Multiplies the lr by ``gamma`` at each milestone epoch.

    Args:
        optimizer (Optimizer): wrapped optimizer.
        milestones (list): epoch indices (a repeated milestone applies ``gamma`` once per repeat).
        gamma (float): multiplicative factor (default: 0.1).
        last_epoch (int): index of the last epoch (default: -1).
    """

    def __init__(self, optimizer: Optimizer, milestones: Iterable[int], gamma: float = 0.1, last_epoch: int = -1):
        self.milestones = Counter(milestones)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        """The current lr, times ``gamma`` (per repeat) at a milestone."""
        self._warn_if_called_outside_step()
        if self.last_epoch not in self.milestones:
            return _group_values(self.optimizer, "lr")
        factor = self.gamma ** self.milestones[self.last_epoch]
        return [group["lr"] * factor for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> list[float]:
        milestones = sorted(self.milestones.elements())
        return [base_lr * self.gamma ** bisect_right(milestones, self.last_epoch) for base_lr in self.base_lrs]


class ConstantLR(LRScheduler):
    r"""Multiplies the lr by ``factor`` for the first ``total_iters`` epochs.

    Args:
        optimizer (Optimizer): wrapped optimizer.
        factor (float): the factor, in [0, 1] (default: 1/3).
        total_iters (int): number of epochs with the factor (default: 5).
        last_epoch (int): index of the last epoch (default: -1).
    """

    def __init__(self, optimizer: Optimizer, factor: float = 1.0 / 3, total_iters: int = 5, last_epoch: int = -1):
        if factor > 1.0 or factor < 0:
            raise ValueError("Constant multiplicative factor expected to be between 0 and 1.")
        self.factor = factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        """``factor`` applied at epoch 0 and divided out at ``total_iters``."""
        self._warn_if_called_outside_step()
        if self.last_epoch == 0:
            return [group["lr"] * self.factor for group in self.optimizer.param_groups]
        if self.last_epoch != self.total_iters:
            return _group_values(self.optimizer, "lr")
        return [group["lr"] * (1.0 / self.factor) for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> list[float]:
        return [
            base_lr * (self.factor + (self.last_epoch >= self.total_iters) * (1 - self.factor))
            for base_lr in self.base_lrs
        ]


class LinearLR(LRScheduler):
    r"""Scales the lr by a factor moving linearly from ``start_factor`` to ``end_factor``.

    The factor reaches ``end_factor`` after ``total_iters`` epochs and stays there.

    Args:
        optimizer (Optimizer): wrapped optimizer.
        start_factor (float): factor at epoch 0, in (0, 1] (default: 1/3).
        end_factor (float): final factor, in [0, 1] (default: 1.0).
        total_iters (int): number of epochs of the ramp (default: 5).
        last_epoch (int): index of the last epoch (default: -1).
    """

    def __init__(
        self,
        optimizer: Optimizer,
        start_factor: float = 1.0 / 3,
        end_factor: float = 1.0,
        total_iters: int = 5,
        last_epoch: int = -1,
    ) -> None:
        if start_factor > 1.0 or start_factor <= 0:
            raise ValueError("Starting multiplicative factor expected to be greater than 0 and less or equal to 1.")
        if end_factor > 1.0 or end_factor < 0:
            raise ValueError("Ending multiplicative factor expected to be between 0 and 1.")
        self.start_factor = start_factor
        self.end_factor = end_factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        """The current lr times the ratio of this epoch's factor to the previous one's."""
        self._warn_if_called_outside_step()
        if self.last_epoch == 0:
            return [group["lr"] * self.start_factor for group in self.optimizer.param_groups]
        if self._is_initial or self.last_epoch > self.total_iters:
            return _group_values(self.optimizer, "lr")
        span = self.end_factor - self.start_factor
        ratio = 1.0 + span / (self.total_iters * self.start_factor + (self.last_epoch - 1) * span)
        return [group["lr"] * ratio for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> list[float]:
        return [
            base_lr
            * (
                self.start_factor
                + (self.end_factor - self.start_factor) * min(self.total_iters, self.last_epoch) / self.total_iters
            )
            for base_lr in self.base_lrs
        ]


class ExponentialLR(LRScheduler):
    r"""Multiplies the lr by ``gamma`` every epoch.

    Args:
        optimizer (Optimizer): wrapped optimizer.
        gamma (float): multiplicative factor.
        last_epoch (int): index of the last epoch (default: -1).
    """

    def __init__(self, optimizer: Optimizer, gamma: float, last_epoch: int = -1) -> None:
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        """The current lr times ``gamma`` (unchanged at construction)."""
        self._warn_if_called_outside_step()
        if self._is_initial:
            return _group_values(self.optimizer, "lr")
        return [group["lr"] * self.gamma for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> list[float]:
        return [base_lr * self.gamma**self.last_epoch for base_lr in self.base_lrs]


def _check_composite(owner: str, optimizer: Optimizer, schedulers: Sequence[LRScheduler]) -> None:
    for i, scheduler in enumerate(schedulers):
        if not hasattr(scheduler, "optimizer"):
            raise TypeError(f"{owner} at index {i} should have `optimizer` as its attribute.")
        if isinstance(scheduler, ReduceLROnPlateau):
            raise ValueError(
                f"{owner} does not support `ReduceLROnPlateau` scheduler as it requires additional "
                f"kwargs to be specified when calling `step`, but got one at index {i} in the given "
                "schedulers sequence."
            )
        if optimizer is not scheduler.optimizer:
            raise ValueError(
                f"{owner} expects all schedulers to belong to the same optimizer, but got scheduler "
                f"{type(scheduler).__name__} at index {i} with a different optimizer."
            )


def _composite_state_dict(self) -> dict[str, Any]:
    state = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "_schedulers")}
    state["_schedulers"] = [s.state_dict() for s in self._schedulers]
    return state


def _composite_load_state_dict(self, state_dict: dict[str, Any]) -> None:
    state_dict = dict(state_dict)
    schedulers = state_dict.pop("_schedulers")
    self.__dict__.update(state_dict)
    for scheduler, state in zip(self._schedulers, schedulers):
        scheduler.load_state_dict(state)


class SequentialLR(LRScheduler):
    r"""Runs schedulers one after another, switching at the milestone steps. OneFlow's semantics.

    At construction the groups' lr is reset to ``initial_lr`` and the schedulers are rewound by
    one step, so the first one starts from step 0. After a milestone, by default (OneFlow's
    ``interval_rescaling=False``) the next scheduler continues the shared step count: at step
    ``t`` it sets the lr its closed form gives at ``t``. With ``interval_rescaling=True`` for
    that milestone it restarts at its step 0 (its closed form), which is PyTorch's SequentialLR.

    Args:
        optimizer (Optimizer): wrapped optimizer.
        schedulers (list): schedulers of ``optimizer``, in order.
        milestones (list): steps at which the next scheduler takes over
            (one fewer than the schedulers).
        interval_rescaling (bool or list of bool): per milestone, whether the scheduler taking
            over restarts at step 0 (True) or continues the shared step (False, the default).
            As in OneFlow, the fourth positional argument; an int there is PyTorch's ``last_epoch``.
        last_epoch (int): index of the last step (default: -1); OneFlow's ``last_step``.

    Example::

        >>> # lr = 1: steps 0, 1 -> 0.1 (ConstantLR); step t >= 2 -> 0.9 ** t (ExponentialLR at the
        >>> # shared step); with interval_rescaling=True, 0.9 ** (t - 2).
        >>> s = SequentialLR(opt, [ConstantLR(opt, 0.1, total_iters=2), ExponentialLR(opt, 0.9)], [2])
    """

    def __init__(
        self,
        optimizer: Optimizer,
        schedulers: list[LRScheduler],
        milestones: list[int],
        interval_rescaling: bool | Sequence[bool] = False,
        last_epoch: int = -1,
    ) -> None:
        if isinstance(interval_rescaling, int) and not isinstance(interval_rescaling, bool):
            last_epoch, interval_rescaling = interval_rescaling, False  # PyTorch's positional last_epoch
        if len(schedulers) < 1:
            raise ValueError(f"{type(self).__name__} expects at least one scheduler, but got no scheduler.")
        _check_composite(type(self).__name__, optimizer, schedulers)
        if len(milestones) != len(schedulers) - 1:
            raise ValueError(
                "Sequential Schedulers expects number of schedulers provided to be one more than the "
                f"number of milestone points, but got number of schedulers {len(schedulers)} and the "
                f"number of milestones to be equal to {len(milestones)}"
            )
        if isinstance(interval_rescaling, bool):
            interval_rescaling = [interval_rescaling] * len(milestones)
        elif not isinstance(interval_rescaling, (list, tuple)) or not all(
            isinstance(r, bool) for r in interval_rescaling
        ):
            raise TypeError(
                "SequentialLR: interval_rescaling must be a bool or a list of bools, but got "
                f"{type(interval_rescaling).__name__}"
            )
        elif len(interval_rescaling) != len(milestones):
            raise ValueError(
                "SequentialLR: interval_rescaling needs one bool per milestone, but got "
                f"{len(interval_rescaling)} for {len(milestones)} milestones"
            )
        self.interval_rescaling = list(interval_rescaling)
        self._schedulers = schedulers
        self._milestones = milestones
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        # Undo the step each scheduler made when it was built; the active one redoes it below.
        for group in optimizer.param_groups:
            group["lr"] = group["initial_lr"]
        self._rewind(self)
        idx = bisect_right(self._milestones, 0)
        self._schedulers[idx]._initial_step()
        self._last_lr = schedulers[idx].get_last_lr()

    def _rewind(self, scheduler) -> None:
        if hasattr(scheduler, "_schedulers"):
            for s in scheduler._schedulers:
                self._rewind(s)
        elif hasattr(scheduler, "last_epoch"):
            scheduler.last_epoch -= 1

    def step(self) -> None:
        """Steps the scheduler active at the next step (see the class docstring)."""
        self.last_epoch += 1
        idx = bisect_right(self._milestones, self.last_epoch)
        scheduler = self._schedulers[idx]
        if idx > 0 and not self.interval_rescaling[idx - 1]:
            # OneFlow: the schedulers share the step; the active one's closed form at it.
            if isinstance(scheduler, CosineAnnealingWarmRestarts):
                scheduler.step(self.last_epoch)
            else:
                scheduler._update_lr(self.last_epoch)
        elif idx > 0 and self._milestones[idx - 1] == self.last_epoch:
            scheduler._update_lr(0)
        else:
            scheduler.step()
        self._last_lr = scheduler.get_last_lr()

    state_dict = _composite_state_dict
    load_state_dict = _composite_load_state_dict


class PolynomialLR(LRScheduler):
    r"""Decays the lr as ``(1 - epoch / total_iters) ** power`` until ``total_iters``.

    Args:
        optimizer (Optimizer): wrapped optimizer.
        total_iters (int): number of epochs of the decay (default: 5).
        power (float): power of the polynomial (default: 1.0).
        last_epoch (int): index of the last epoch (default: -1).
    """

    def __init__(self, optimizer: Optimizer, total_iters: int = 5, power: float = 1.0, last_epoch: int = -1):
        self.total_iters = total_iters
        self.power = power
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        """The current lr times this epoch's decay relative to the previous epoch's."""
        self._warn_if_called_outside_step()
        if self._is_initial or self.last_epoch > self.total_iters:
            return _group_values(self.optimizer, "lr")
        decay = (
            (1.0 - self.last_epoch / self.total_iters) / (1.0 - (self.last_epoch - 1) / self.total_iters)
        ) ** self.power
        return [group["lr"] * decay for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> list[float]:
        return [
            base_lr * (1.0 - min(self.total_iters, self.last_epoch) / self.total_iters) ** self.power
            for base_lr in self.base_lrs
        ]


class CosineAnnealingLR(LRScheduler):
    r"""Cosine annealing from ``initial_lr`` to ``eta_min`` over ``T_max`` epochs.

    .. math::
        \eta_t = \eta_{min} + \tfrac12(\eta_{max} - \eta_{min})(1 + \cos(\pi t / T_{max}))

    :meth:`step` applies it recursively (from the current lr, so it composes
    with other schedulers, as in PyTorch); past ``T_max`` the lr rises again.

    Args:
        optimizer (Optimizer): wrapped optimizer.
        T_max (int): number of epochs of a half period.
        eta_min (float): minimum learning rate (default: 0).
        last_epoch (int): index of the last epoch (default: -1).
    """

    def __init__(self, optimizer: Optimizer, T_max: int, eta_min: float = 0.0, last_epoch: int = -1) -> None:
        self.T_max = T_max
        self.eta_min = eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        """The recursive cosine update from the current lr."""
        self._warn_if_called_outside_step()
        groups = self.optimizer.param_groups
        if self._is_initial:
            return _group_values(self.optimizer, "lr")
        if self._step_count == 1 and self.last_epoch > 0:
            # Resumed (last_epoch given): jump to the closed form.
            return self._get_closed_form_lr()
        if (self.last_epoch - 1 - self.T_max) % (2 * self.T_max) == 0:
            # The minimum of the cosine, where the ratio below would divide by ~0.
            return [
                group["lr"] + (base_lr - self.eta_min) * (1 - math.cos(math.pi / self.T_max)) / 2
                for base_lr, group in zip(self.base_lrs, groups)
            ]
        ratio = (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / (
            1 + math.cos(math.pi * (self.last_epoch - 1) / self.T_max)
        )
        return [ratio * (group["lr"] - self.eta_min) + self.eta_min for group in groups]

    def _get_closed_form_lr(self) -> list[float]:
        return [
            self.eta_min + (base_lr - self.eta_min) * (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2
            for base_lr in self.base_lrs
        ]


class ChainedScheduler(LRScheduler):
    r"""Steps several schedulers of one optimizer together, composing their updates.

    Args:
        schedulers (sequence): the schedulers, stepped in order.
        optimizer (Optimizer, optional): their optimizer (default: the first one's).
    """

    def __init__(self, schedulers: Sequence[LRScheduler], optimizer: Optimizer | None = None) -> None:
        if len(schedulers) < 1:
            raise ValueError(
                f"{type(self).__name__} expects at least one scheduler to be chained, but got no scheduler."
            )
        optimizer = optimizer or schedulers[0].optimizer
        _check_composite(type(self).__name__, optimizer, schedulers)
        self._schedulers = schedulers
        self.optimizer = optimizer
        self._last_lr = _group_values(self._schedulers[-1].optimizer, "lr")

    def step(self) -> None:
        """Steps every scheduler once."""
        for scheduler in self._schedulers:
            scheduler.step()
        self._last_lr = _group_values(self._schedulers[-1].optimizer, "lr")

    state_dict = _composite_state_dict
    load_state_dict = _composite_load_state_dict


class ReduceLROnPlateau(LRScheduler):
    r"""Reduces the lr when a metric has stopped improving.

    ``step(metric)`` counts the epochs without improvement; after more than
    ``patience`` of them each group's lr is multiplied by ``factor`` (not below
    its ``min_lr``), followed by ``cooldown`` epochs in which bad epochs are
    not counted.

    Args:
        optimizer (Optimizer): wrapped optimizer.
        mode (str): ``"min"`` (the metric should decrease) or ``"max"`` (default: ``"min"``).
        factor (float): multiplicative factor, < 1 (default: 0.1).
        patience (int): bad epochs tolerated before reducing (default: 10).
        threshold (float): minimal change counted as an improvement (default: 1e-4).
        threshold_mode (str): ``"rel"`` (relative to the best value) or ``"abs"`` (default: ``"rel"``).
        cooldown (int): epochs to wait after a reduction (default: 0).
        min_lr (float or list): lower bound of the lr, or one per group (default: 0).
        eps (float): reductions smaller than this are skipped (default: 1e-8).
    """

    def __init__(
        self,
        optimizer: Optimizer,
        mode: str = "min",
        factor: float = 0.1,
        patience: int = 10,
        threshold: float = 1e-4,
        threshold_mode: str = "rel",
        cooldown: int = 0,
        min_lr: list[float] | float = 0,
        eps: float = 1e-8,
    ) -> None:
        if factor >= 1.0:
            raise ValueError("Factor should be < 1.0.")
        self.factor = factor
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        if isinstance(min_lr, (list, tuple)):
            if len(min_lr) != len(optimizer.param_groups):
                raise ValueError(f"expected {len(optimizer.param_groups)} min_lrs, got {len(min_lr)}")
            self.default_min_lr = None
            self.min_lrs = list(min_lr)
        else:
            self.default_min_lr = min_lr
            self.min_lrs = [min_lr] * len(optimizer.param_groups)
        self.patience = patience
        self.cooldown = cooldown
        self.eps = eps
        self.last_epoch = 0
        self._last_lr = _group_values(optimizer, "lr")
        self._init_is_better(mode, threshold, threshold_mode)
        self._reset()

    def _reset(self) -> None:
        self.best = self.mode_worse
        self.cooldown_counter = 0
        self.num_bad_epochs = 0

    def step(self, metrics, epoch=None) -> None:  # type: ignore[override]
        """Records ``metrics`` for the next epoch and reduces the lr if it has plateaued."""
        current = float(metrics)
        if epoch is None:
            epoch = self.last_epoch + 1
        else:
            warnings.warn(_EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self.last_epoch = epoch
        if self._is_better(current, self.best):
            self.best = current
            self.num_bad_epochs = 0
        else:
            self.num_bad_epochs += 1
        if self.in_cooldown:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0  # bad epochs in cooldown do not count
        if self.num_bad_epochs > self.patience:
            self._reduce_lr()
            self.cooldown_counter = self.cooldown
            self.num_bad_epochs = 0
        self._last_lr = _group_values(self.optimizer, "lr")

    def _reduce_lr(self) -> None:
        if len(self.optimizer.param_groups) != len(self.min_lrs):
            if self.default_min_lr is None:
                raise RuntimeError(
                    f"The number of param groups in the `optimizer` ({len(self.optimizer.param_groups)}) "
                    f"differs from when `ReduceLROnPlateau` was initialized ({len(self.min_lrs)}), usually "
                    "because a param group was added: set `min_lrs` to one value per group."
                )
            self.min_lrs = [self.default_min_lr] * len(self.optimizer.param_groups)
        for group, min_lr in zip(self.optimizer.param_groups, self.min_lrs):
            old_lr = float(group["lr"])
            new_lr = max(old_lr * self.factor, min_lr)
            if old_lr - new_lr > self.eps:
                group["lr"] = new_lr

    @property
    def in_cooldown(self) -> bool:
        """Whether the scheduler is in its cooldown after a reduction."""
        return self.cooldown_counter > 0

    def _is_better(self, a: float, best: float) -> bool:
        if self.mode == "min" and self.threshold_mode == "rel":
            return a < best * (1.0 - self.threshold)
        if self.mode == "min" and self.threshold_mode == "abs":
            return a < best - self.threshold
        if self.mode == "max" and self.threshold_mode == "rel":
            return a > best * (self.threshold + 1.0)
        return a > best + self.threshold

    def _init_is_better(self, mode: str, threshold: float, threshold_mode: str) -> None:
        if mode not in {"min", "max"}:
            raise ValueError("mode " + mode + " is unknown!")
        if threshold_mode not in {"rel", "abs"}:
            raise ValueError("threshold mode " + threshold_mode + " is unknown!")
        self.mode_worse = math.inf if mode == "min" else -math.inf
        self.mode = mode
        self.threshold = threshold
        self.threshold_mode = threshold_mode

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Loads a state returned by :meth:`state_dict`."""
        self.__dict__.update(state_dict)
        self._init_is_better(self.mode, self.threshold, self.threshold_mode)


def _set_momentum(group: dict, use_beta1: bool, momentum: float) -> None:
    if use_beta1:
        group["betas"] = (momentum, *group["betas"][1:])
    else:
        group["momentum"] = momentum


def _init_cycled_momentum(scheduler, optimizer: Optimizer, base_momentum, max_momentum, last_epoch: int) -> tuple:
    """Checks the optimizer has a momentum (or beta1) and, on a fresh start, sets it to ``max_momentum``."""
    if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
        raise ValueError("optimizer must support momentum or beta1 with `cycle_momentum` option enabled")
    scheduler.use_beta1 = "betas" in optimizer.defaults
    base_momentums = _per_group("base_momentum", optimizer, base_momentum)
    max_momentums = _per_group("max_momentum", optimizer, max_momentum)
    if last_epoch == -1:
        for max_m, base_m, group in zip(max_momentums, base_momentums, optimizer.param_groups):
            _set_momentum(group, scheduler.use_beta1, max_m)
            group["max_momentum"] = max_m
            group["base_momentum"] = base_m
    return base_momentums, max_momentums


class CyclicLR(LRScheduler):
    r"""Cyclical learning rate: the lr cycles between ``base_lr`` and ``max_lr``.

    Each cycle rises for ``step_size_up`` iterations and falls for
    ``step_size_down``; the amplitude is scaled by ``scale_fn`` of the cycle
    number (``scale_mode="cycle"``) or of the iteration (``"iterations"``).
    Built-in modes: ``"triangular"`` (constant amplitude), ``"triangular2"``
    (halved every cycle), ``"exp_range"`` (``gamma ** iteration``). With
    ``cycle_momentum`` the momentum (or Adam's beta1) cycles inversely between
    ``max_momentum`` and ``base_momentum``. Step it after every batch.

    Args:
        optimizer (Optimizer): wrapped optimizer.
        base_lr (float or list): lower lr bound (sets the groups' lr at construction).
        max_lr (float or list): upper lr bound.
        step_size_up (int): iterations in the rising half (default: 2000).
        step_size_down (int, optional): iterations in the falling half (default: ``step_size_up``).
        mode (str): ``"triangular"``, ``"triangular2"`` or ``"exp_range"`` (default: ``"triangular"``).
        gamma (float): base of ``"exp_range"`` (default: 1.0).
        scale_fn (function, optional): custom amplitude scaling (overrides ``mode``).
        scale_mode (str): ``"cycle"`` or ``"iterations"``, the argument of ``scale_fn`` (default: ``"cycle"``).
        cycle_momentum (bool): cycle the momentum too (default: ``True``).
        base_momentum (float or list): lower momentum bound (default: 0.8).
        max_momentum (float or list): upper momentum bound (default: 0.9).
        last_epoch (int): index of the last batch (default: -1).
    """

    def __init__(
        self,
        optimizer: Optimizer,
        base_lr: float | list[float],
        max_lr: float | list[float],
        step_size_up: int = 2000,
        step_size_down: int | None = None,
        mode: str = "triangular",
        gamma: float = 1.0,
        scale_fn: Callable[[float], float] | None = None,
        scale_mode: str = "cycle",
        cycle_momentum: bool = True,
        base_momentum: float | list[float] = 0.8,
        max_momentum: float | list[float] = 0.9,
        last_epoch: int = -1,
    ) -> None:
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        base_lrs = _per_group("base_lr", optimizer, base_lr)
        if last_epoch == -1:
            for lr, group in zip(base_lrs, optimizer.param_groups):
                group["lr"] = lr
        self.max_lrs = _per_group("max_lr", optimizer, max_lr)
        step_size_up = float(step_size_up)
        step_size_down = float(step_size_down) if step_size_down is not None else step_size_up
        self.total_size = step_size_up + step_size_down
        self.step_ratio = step_size_up / self.total_size
        if mode not in ("triangular", "triangular2", "exp_range") and scale_fn is None:
            raise ValueError("mode is invalid and scale_fn is None")
        self.mode = mode
        self.gamma = gamma
        self._scale_fn_custom = scale_fn
        self.scale_mode = scale_mode
        self._init_scale_fn()
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            self.base_momentums, self.max_momentums = _init_cycled_momentum(
                self, optimizer, base_momentum, max_momentum, last_epoch
            )
        super().__init__(optimizer, last_epoch)
        self.base_lrs = base_lrs

    def _init_scale_fn(self) -> None:
        # The built-in modes fix the scale mode; the functions themselves are looked up
        # by mode in scale_fn, so the state dict holds no callables.
        if self._scale_fn_custom is None:
            self.scale_mode = "iterations" if self.mode == "exp_range" else "cycle"

    def scale_fn(self, x: float) -> float:
        """The amplitude scale at ``x`` (a cycle number or an iteration, per ``scale_mode``)."""
        if self._scale_fn_custom is not None:
            return self._scale_fn_custom(x)
        if self.mode == "triangular":
            return 1.0
        if self.mode == "triangular2":
            return 1 / (2.0 ** (x - 1))
        return self.gamma**x

    def get_lr(self) -> list[float]:
        """The lr of the current iteration (also sets the cycled momentum)."""
        self._warn_if_called_outside_step()
        cycle = math.floor(1 + self.last_epoch / self.total_size)
        x = 1.0 + self.last_epoch / self.total_size - cycle
        if x <= self.step_ratio:
            scale_factor = x / self.step_ratio
        else:
            scale_factor = (x - 1) / (self.step_ratio - 1)
        scale = self.scale_fn(cycle if self.scale_mode == "cycle" else self.last_epoch)
        lrs = [
            base_lr + (max_lr - base_lr) * scale_factor * scale for base_lr, max_lr in zip(self.base_lrs, self.max_lrs)
        ]
        if self.cycle_momentum:
            for group, base_m, max_m in zip(self.optimizer.param_groups, self.base_momentums, self.max_momentums):
                _set_momentum(group, self.use_beta1, max_m - (max_m - base_m) * scale_factor * scale)
        return lrs

    def state_dict(self) -> dict[str, Any]:
        """The scheduler's state; a custom ``scale_fn`` contributes its ``__dict__`` if it is an object."""
        state = super().state_dict()
        fn = state.pop("_scale_fn_custom")
        state["_scale_fn_custom"] = None
        if fn is not None and not isinstance(fn, types.FunctionType):
            state["_scale_fn_custom"] = fn.__dict__.copy()
        return state

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Loads a state returned by :meth:`state_dict`."""
        state_dict = dict(state_dict)
        fn_state = state_dict.pop("_scale_fn_custom")
        state_dict.pop("_scale_fn_ref", None)  # present in PyTorch's state dicts
        super().load_state_dict(state_dict)
        if fn_state is not None:
            self._scale_fn_custom.__dict__.update(fn_state)
        self._init_scale_fn()


class CosineAnnealingWarmRestarts(LRScheduler):
    r"""Cosine annealing with warm restarts (SGDR).

    .. math::
        \eta_t = \eta_{min} + \tfrac12(\eta_{max} - \eta_{min})(1 + \cos(\pi T_{cur} / T_i))

    where :math:`T_{cur}` counts the epochs since the last restart and the
    period :math:`T_i` starts at ``T_0`` and is multiplied by ``T_mult`` at each
    restart. ``step(epoch)`` accepts fractional epochs (e.g. ``epoch + i / iters``).

    Args:
        optimizer (Optimizer): wrapped optimizer.
        T_0 (int): epochs until the first restart.
        T_mult (int): period growth factor, >= 1 (default: 1).
        eta_min (float): minimum learning rate (default: 0).
        decay_rate (float): OneFlow's: the peak lr of the ``n``-th period (counting from 0) is
            ``initial_lr * decay_rate ** n`` (default: 1, no decay).
        restart_limit (int): OneFlow's: after this many periods the lr stays at ``eta_min``;
            0 (the default) for unlimited restarts.
        last_epoch (int): index of the last epoch (default: -1).
    """

    def __init__(
        self,
        optimizer: Optimizer,
        T_0: int,
        T_mult: int = 1,
        eta_min: float = 0.0,
        decay_rate: float = 1.0,
        restart_limit: int = 0,
        last_epoch: int = -1,
    ):
        if isinstance(decay_rate, bool) or not isinstance(decay_rate, (float, int)):
            raise TypeError(
                f"CosineAnnealingWarmRestarts: decay_rate must be a number, but got {type(decay_rate).__name__}"
            )
        if isinstance(restart_limit, bool) or not isinstance(restart_limit, int) or restart_limit < 0:
            raise ValueError(
                f"CosineAnnealingWarmRestarts: restart_limit must be an int >= 0, but got {restart_limit!r}"
            )
        if decay_rate != 1.0 or restart_limit != 0:  # OneFlow's; PyTorch's state dict lacks them otherwise
            self.decay_rate = decay_rate
            self.restart_limit = restart_limit
        if T_0 <= 0 or not isinstance(T_0, int):
            raise ValueError(f"Expected positive integer T_0, but got {T_0}")
        if T_mult < 1 or not isinstance(T_mult, int):
            raise ValueError(f"Expected integer T_mult >= 1, but got {T_mult}")
        if not isinstance(eta_min, (float, int)):
            raise ValueError(f"Expected float or int eta_min, but got {eta_min} of type {type(eta_min)}")
        self.T_0 = T_0
        self.T_i = T_0
        self.T_mult = T_mult
        self.eta_min = eta_min
        self.T_cur = last_epoch
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        """The cosine lr at ``T_cur`` within the current period."""
        self._warn_if_called_outside_step()
        cos = 1 + math.cos(math.pi * self.T_cur / self.T_i)
        decay_rate, limit = getattr(self, "decay_rate", 1.0), getattr(self, "restart_limit", 0)
        n = self._period()
        if limit and n >= limit:
            return [self.eta_min for _ in self.base_lrs]
        return [self.eta_min + (base_lr * decay_rate**n - self.eta_min) * cos / 2 for base_lr in self.base_lrs]

    def _period(self) -> int:
        """How many restarts came before the current period (from ``T_i``, or from the epoch when
        the period does not grow)."""
        if self.T_mult == 1:
            return max(0, round((self.last_epoch - math.floor(self.T_cur)) / self.T_0))
        return max(0, round(math.log(self.T_i / self.T_0, self.T_mult)))

    def step(self, epoch: float | None = None) -> None:
        """Moves to the next epoch, or to ``epoch`` (which may be fractional)."""
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur = self.T_cur + 1
            if self.T_cur >= self.T_i:
                self.T_cur = self.T_cur % self.T_i
                self.T_i = self.T_i * self.T_mult
        else:
            if epoch < 0:
                raise ValueError(f"Expected non-negative epoch, but got {epoch}")
            if epoch >= self.T_0:
                if self.T_mult == 1:
                    self.T_cur = epoch % self.T_0
                else:
                    # Restarts happen at T_0 * (T_mult^n - 1) / (T_mult - 1): find the last one.
                    n = int(math.log(epoch / self.T_0 * (self.T_mult - 1) + 1, self.T_mult))
                    self.T_cur = epoch - self.T_0 * (self.T_mult**n - 1) / (self.T_mult - 1)
                    self.T_i = self.T_0 * self.T_mult**n
            else:
                self.T_i = self.T_0
                self.T_cur = epoch
        self.last_epoch = math.floor(epoch)
        self._get_lr_called_within_step = True
        try:
            values = self.get_lr()
        finally:
            self._get_lr_called_within_step = False
        self._set_lrs(values)


class OneCycleLR(LRScheduler):
    r"""The 1cycle policy: the lr rises from ``max_lr / div_factor`` to ``max_lr``, then anneals far below.

    The first ``pct_start`` of ``total_steps`` anneals the lr up to
    ``max_lr``; the rest anneals it down to ``initial_lr / final_div_factor``
    (with ``three_phase``, it first comes back down to the initial lr
    symmetrically, then goes to the minimum). With ``cycle_momentum`` the
    momentum (or Adam's beta1) moves inversely between ``max_momentum`` and
    ``base_momentum``. Step it after every batch.

    Args:
        optimizer (Optimizer): wrapped optimizer.
        max_lr (float or list): peak learning rate(s).
        total_steps (int, optional): number of steps in the cycle; else ``epochs * steps_per_epoch``.
        epochs (int, optional): number of epochs.
        steps_per_epoch (int, optional): steps per epoch.
        pct_start (float): fraction of the cycle spent increasing the lr (default: 0.3).
        anneal_strategy (str): ``"cos"`` or ``"linear"`` (default: ``"cos"``).
        cycle_momentum (bool): cycle the momentum too (default: ``True``).
        base_momentum (float or list): lower momentum bound (default: 0.85).
        max_momentum (float or list): upper momentum bound (default: 0.95).
        div_factor (float): ``initial_lr = max_lr / div_factor`` (default: 25).
        final_div_factor (float): ``min_lr = initial_lr / final_div_factor`` (default: 1e4).
        three_phase (bool): use the three-phase schedule (default: ``False``).
        last_epoch (int): index of the last batch (default: -1).
    """

    def __init__(
        self,
        optimizer: Optimizer,
        max_lr: float | list[float],
        total_steps: int | None = None,
        epochs: int | None = None,
        steps_per_epoch: int | None = None,
        pct_start: float = 0.3,
        anneal_strategy: str = "cos",
        cycle_momentum: bool = True,
        base_momentum: float | list[float] = 0.85,
        max_momentum: float | list[float] = 0.95,
        div_factor: float = 25.0,
        final_div_factor: float = 1e4,
        three_phase: bool = False,
        last_epoch: int = -1,
    ) -> None:
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        if total_steps is not None:
            if total_steps <= 0 or not isinstance(total_steps, int):
                raise ValueError(f"Expected positive integer total_steps, but got {total_steps}")
            self.total_steps = total_steps
        elif epochs is not None and steps_per_epoch is not None:
            if not isinstance(epochs, int) or epochs <= 0:
                raise ValueError(f"Expected positive integer epochs, but got {epochs}")
            if not isinstance(steps_per_epoch, int) or steps_per_epoch <= 0:
                raise ValueError(f"Expected positive integer steps_per_epoch, but got {steps_per_epoch}")
            self.total_steps = epochs * steps_per_epoch
        else:
            raise ValueError("You must define either total_steps OR (epochs AND steps_per_epoch)")

        def phase(end_step, start_lr, end_lr, start_momentum, end_momentum) -> dict:
            return {
                "end_step": end_step,
                "start_lr": start_lr,
                "end_lr": end_lr,
                "start_momentum": start_momentum,
                "end_momentum": end_momentum,
            }

        warm_end = float(pct_start * self.total_steps) - 1
        if three_phase:
            self._schedule_phases = [
                phase(warm_end, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
                phase(
                    float(2 * pct_start * self.total_steps) - 2, "max_lr", "initial_lr", "base_momentum", "max_momentum"
                ),
                phase(self.total_steps - 1, "initial_lr", "min_lr", "max_momentum", "max_momentum"),
            ]
        else:
            self._schedule_phases = [
                phase(warm_end, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
                phase(self.total_steps - 1, "max_lr", "min_lr", "base_momentum", "max_momentum"),
            ]
        if pct_start < 0 or pct_start > 1 or not isinstance(pct_start, float):
            raise ValueError(f"Expected float between 0 and 1 pct_start, but got {pct_start}")
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}")
        self._anneal_func_type = anneal_strategy

        max_lrs = _per_group("max_lr", optimizer, max_lr)
        if last_epoch == -1:
            for max_lr_i, group in zip(max_lrs, optimizer.param_groups):
                group["initial_lr"] = max_lr_i / div_factor
                group["max_lr"] = max_lr_i
                group["min_lr"] = group["initial_lr"] / final_div_factor
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            _init_cycled_momentum(self, optimizer, base_momentum, max_momentum, last_epoch)
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _annealing_cos(start: float, end: float, pct: float) -> float:
        """Cosine interpolation from ``start`` (pct 0) to ``end`` (pct 1)."""
        return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)

    @staticmethod
    def _annealing_linear(start: float, end: float, pct: float) -> float:
        """Linear interpolation from ``start`` (pct 0) to ``end`` (pct 1)."""
        return (end - start) * pct + start

    def _anneal(self, start: float, end: float, pct: float) -> float:
        if self._anneal_func_type == "cos":
            return self._annealing_cos(start, end, pct)
        return self._annealing_linear(start, end, pct)

    def get_lr(self) -> list[float]:
        """The lr of the current step (also sets the cycled momentum)."""
        self._warn_if_called_outside_step()
        step_num = self.last_epoch
        if step_num > self.total_steps:
            raise ValueError(
                f"Tried to step {step_num} times. The specified number of total steps is {self.total_steps}"
            )
        lrs = []
        last = len(self._schedule_phases) - 1
        for group in self.optimizer.param_groups:
            start_step = 0.0
            for i, ph in enumerate(self._schedule_phases):
                end_step = ph["end_step"]
                if step_num <= end_step or i == last:
                    pct = (step_num - start_step) / (end_step - start_step)
                    lrs.append(self._anneal(group[ph["start_lr"]], group[ph["end_lr"]], pct))
                    if self.cycle_momentum:
                        momentum = self._anneal(group[ph["start_momentum"]], group[ph["end_momentum"]], pct)
                        _set_momentum(group, self.use_beta1, momentum)
                    break
                start_step = ph["end_step"]
        return lrs


# OneFlow's schedulers; PolynomialLR is replaced by its subclass taking OneFlow's arguments too.
from oneflow.optim.oneflow_lr_scheduler import CosineDecayLR, PolynomialLR, WarmupLR  # noqa: E402, F811
