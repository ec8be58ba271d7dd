"""Stochastic Weight Averaging (https://arxiv.org/abs/1803.05407) and exponential moving averages
of a model's weights: :class:`AveragedModel`, the averaging functions, :func:`update_bn` and the
:class:`SWALR` scheduler. The same API as ``torch.optim.swa_utils``."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable
from copy import deepcopy
from typing import Any, Literal

import oneflow
from oneflow.nn.modules.module import Module
from oneflow.nn.modules.normalization import _BatchNorm
from oneflow.optim.lr_scheduler import LRScheduler, _per_group
from oneflow.optim.optimizer import Optimizer

__all__ = [
    "SWALR",
    "AveragedModel",
    "get_ema_avg_fn",
    "get_ema_multi_avg_fn",
    "get_swa_avg_fn",
    "get_swa_multi_avg_fn",
    "update_bn",
]

PARAM_LIST = "tuple[oneflow.Tensor, ...] | list[oneflow.Tensor]"


def _check_decay(decay: float) -> None:
    if decay < 0.0 or decay > 1.0:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in [0,1] range.")


def _is_float(t: oneflow.Tensor) -> bool:
    return t.is_floating_point() or t.is_complex()


def get_ema_multi_avg_fn(decay: float = 0.999) -> Callable[[PARAM_LIST, PARAM_LIST, Any], None]:
    r"""An in-place exponential-moving-average update of a list of averaged tensors:
    :math:`W^{EMA} \leftarrow decay \cdot W^{EMA} + (1 - decay) \cdot W^{model}`, for
    :class:`AveragedModel`'s ``multi_avg_fn``.

    Args:
        decay: the decay rate, in [0, 1]. Default: 0.999.
    """
    _check_decay(decay)

    def ema_update(ema_param_list: PARAM_LIST, current_param_list: PARAM_LIST, _num_averaged) -> None:
        with oneflow.no_grad():
            for p_ema, p_model in zip(ema_param_list, current_param_list):
                if _is_float(p_ema):
                    p_ema.lerp_(p_model, 1 - decay)
                else:
                    p_ema.copy_(p_ema * decay + p_model * (1 - decay))

    return ema_update


def get_swa_multi_avg_fn() -> Callable[[PARAM_LIST, PARAM_LIST, Any], None]:
    r"""An in-place equal-weight running average of a list of averaged tensors:
    :math:`W^{SWA} \leftarrow W^{SWA} + (W^{model} - W^{SWA}) / (n + 1)`, for
    :class:`AveragedModel`'s ``multi_avg_fn``."""

    def swa_update(averaged_param_list: PARAM_LIST, current_param_list: PARAM_LIST, num_averaged) -> None:
        with oneflow.no_grad():
            for p_avg, p_model in zip(averaged_param_list, current_param_list):
                if _is_float(p_avg):
                    p_avg.lerp_(p_model, float(1 / (num_averaged + 1)))
                else:  # as torch: addcdiv refuses integer division (num_batches_tracked)
                    p_avg.addcdiv_(p_model - p_avg, oneflow.full_like(p_avg, num_averaged + 1))

    return swa_update


def get_ema_avg_fn(decay: float = 0.999) -> Callable[[oneflow.Tensor, oneflow.Tensor, Any], oneflow.Tensor]:
    r"""An exponential-moving-average step for one tensor,
    :math:`decay \cdot W^{EMA} + (1 - decay) \cdot W^{model}`, for :class:`AveragedModel`'s
    ``avg_fn``.

    Args:
        decay: the decay rate, in [0, 1]. Default: 0.999.
    """
    _check_decay(decay)

    def ema_update(ema_param: oneflow.Tensor, current_param: oneflow.Tensor, num_averaged) -> oneflow.Tensor:
        with oneflow.no_grad():
            return decay * ema_param + (1 - decay) * current_param

    return ema_update


def get_swa_avg_fn() -> Callable[[oneflow.Tensor, oneflow.Tensor, Any], oneflow.Tensor]:
    r"""An equal-weight running-average step for one tensor,
    :math:`W^{SWA} + (W^{model} - W^{SWA}) / (n + 1)`, for :class:`AveragedModel`'s ``avg_fn``."""

    def swa_update(averaged_param: oneflow.Tensor, current_param: oneflow.Tensor, num_averaged) -> oneflow.Tensor:
        with oneflow.no_grad():
            return averaged_param + (current_param - averaged_param) / (num_averaged + 1)

    return swa_update


class AveragedModel(Module):
    r"""Keeps a running average of a model's parameters (SWA by default, or EMA and others
    through ``avg_fn``/``multi_avg_fn``).

    The averaged copy is a deep copy of ``model`` (moved to ``device`` if given), called like
    the model itself. Each :meth:`update_parameters` folds the model's current parameters (and,
    with ``use_buffers``, its buffers) into the average; the first call copies them. Without
    ``use_buffers`` the buffers are copied from the model on every update (recompute batch-norm
    statistics with :func:`update_bn`). ``n_averaged`` counts the updates (a buffer).

    Args:
        model: the model to average.
        device: where to keep the averaged model. Default: the model's device.
        avg_fn: ``avg_fn(averaged, current, num_averaged) -> new averaged`` for one tensor.
        multi_avg_fn: ``multi_avg_fn(averaged_list, current_list, num_averaged)``, updating the
            averaged tensors in place. At most one of ``avg_fn``/``multi_avg_fn``; with neither,
            an equally weighted average.
        use_buffers: average the buffers as well as the parameters. Default: ``False``.

    Example::

        >>> swa_model = AveragedModel(model)
        >>> ema_model = AveragedModel(model, multi_avg_fn=get_ema_multi_avg_fn(0.9), use_buffers=True)
        >>> for epoch in range(epochs):
        ...     train_one_epoch(model, optimizer)
        ...     swa_model.update_parameters(model)
        >>> update_bn(loader, swa_model)
    """

    n_averaged: oneflow.Tensor

    def __init__(
        self,
        model: Module,
        device=None,
        avg_fn: Callable | None = None,
        multi_avg_fn: Callable | None = None,
        use_buffers: bool = False,
    ) -> None:
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        if not isinstance(model, Module):
            raise TypeError(f"AveragedModel: model must be an nn.Module, got {type(model).__name__}")
        self.module = deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", oneflow.tensor(0, dtype=oneflow.long, device=device))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args, **kwargs):
        """Calls the averaged model."""
        return self.module(*args, **kwargs)

    def update_parameters(self, model: Module) -> None:
        """Folds ``model``'s current parameters (and buffers with ``use_buffers``) into the
        average; the first call copies them."""
        if self.use_buffers:
            own = itertools.chain(self.module.parameters(), self.module.buffers())
            theirs = itertools.chain(model.parameters(), model.buffers())
        else:
            own, theirs = self.parameters(), model.parameters()
        averaged, current = [], []
        first = bool(self.n_averaged == 0)
        with oneflow.no_grad():
            for p_avg, p_model in zip(own, theirs):
                p_model_ = p_model.detach().to(p_avg.device)
                averaged.append(p_avg.detach())
                current.append(p_model_)
                if first:
                    p_avg.detach().copy_(p_model_)
            if not first:
                n = self.n_averaged
                if self.avg_fn is not None:
                    for p_avg, p_model in zip(averaged, current):
                        p_avg.copy_(self.avg_fn(p_avg, p_model, n.to(p_avg.device)))
                else:
                    for (device, _dtype), pairs in _group_by_device_and_dtype(averaged, current).items():
                        avg_list, cur_list = [p for p, _ in pairs], [q for _, q in pairs]
                        if self.multi_avg_fn is not None:
                            self.multi_avg_fn(avg_list, cur_list, n.to(device))
                        else:
                            swa = get_swa_avg_fn()
                            for p_avg, p_model in zip(avg_list, cur_list):
                                p_avg.copy_(swa(p_avg, p_model, n.to(device)))
            if not self.use_buffers:
                for b_swa, b_model in zip(self.module.buffers(), model.buffers()):
                    b_swa.detach().copy_(b_model.detach().to(b_swa.device))
            self.n_averaged += 1


def _group_by_device_and_dtype(averaged: list, current: list) -> dict:
    groups: dict = {}
    for p, q in zip(averaged, current):
        groups.setdefault((p.device, p.dtype), []).append((p, q))
    return groups


def update_bn(loader: Iterable[Any], model: Module, device=None) -> None:
    r"""Recomputes the running statistics of every batch norm in ``model`` with one pass over
    ``loader`` (a cumulative average over its batches, in training mode); the model's mode and
    the batch norms' momenta are restored afterwards.

    Args:
        loader: the batches; each a tensor, or a list/tuple whose first element is the input.
        model: the model (e.g. an :class:`AveragedModel`).
        device: if given, each batch is moved there first.
    """
    with oneflow.no_grad():
        momenta = {}
        for module in model.modules():
            if isinstance(module, _BatchNorm):
                module.reset_running_stats()
                momenta[module] = module.momentum
        if not momenta:
            return
        was_training = model.training
        model.train()
        for module in momenta:
            module.momentum = None
        for batch in loader:
            if isinstance(batch, (list, tuple)):
                batch = batch[0]
            if device is not None:
                batch = batch.to(device)
            model(batch)
        for module, momentum in momenta.items():
            module.momentum = momentum
        model.train(was_training)


class SWALR(LRScheduler):
    r"""Anneals each group's learning rate to a fixed ``swa_lr`` over ``anneal_epochs`` epochs,
    then holds it there; meant for the averaging phase of SWA.

    Args:
        optimizer: the wrapped optimizer.
        swa_lr: the final learning rate, one for all groups or a list with one per group
            (stored as each group's ``"swa_lr"``).
        anneal_epochs: epochs of the annealing phase. Default: 10.
        anneal_strategy: ``"cos"`` (cosine) or ``"linear"``. Default: ``"cos"``.
        last_epoch: the index of the last epoch. Default: -1.

    Example::

        >>> swa_scheduler = SWALR(optimizer, swa_lr=0.05, anneal_epochs=5, anneal_strategy="linear")
        >>> for epoch in range(epochs):
        ...     train_one_epoch(model, optimizer)
        ...     swa_scheduler.step()
    """

    def __init__(
        self,
        optimizer: Optimizer,
        swa_lr: float | list[float],
        anneal_epochs: int = 10,
        anneal_strategy: Literal["cos", "linear"] = "cos",
        last_epoch: int = -1,
    ) -> None:
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        swa_lrs = _per_group("swa_lr", optimizer, swa_lr)
        for lr, group in zip(swa_lrs, optimizer.param_groups):
            group["swa_lr"] = lr
        if anneal_strategy not in ["cos", "linear"]:
            raise ValueError(f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}")
        self._set_anneal_func(anneal_strategy)
        if isinstance(anneal_epochs, bool) or not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got {anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _linear_anneal(t: float) -> float:
        return t

    @staticmethod
    def _cosine_anneal(t: float) -> float:
        return (1 - math.cos(math.pi * t)) / 2

    @staticmethod
    def _get_initial_lr(lr: float, swa_lr: float, alpha: float) -> float:
        # Inverts one annealing step: the lr before it, given the lr after it.
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)

    def get_lr(self) -> list[float]:
        """The learning rates of the current epoch (computed by :meth:`step`)."""
        self._warn_if_called_outside_step()
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        prev_t = max(0, min(1, (step - 1) / max(1, self.anneal_epochs)))
        prev_alpha = self.anneal_func(prev_t)
        prev_lrs = [self._get_initial_lr(g["lr"], g["swa_lr"], prev_alpha) for g in self.optimizer.param_groups]
        t = max(0, min(1, step / max(1, self.anneal_epochs)))
        alpha = self.anneal_func(t)
        return [g["swa_lr"] * alpha + lr * (1 - alpha) for g, lr in zip(self.optimizer.param_groups, prev_lrs)]

    def _set_anneal_func(self, anneal_strategy: str) -> None:
        self._anneal_strategy = anneal_strategy
        self.anneal_func = self._cosine_anneal if anneal_strategy == "cos" else self._linear_anneal

    def state_dict(self) -> dict[str, Any]:
        """The scheduler's state: every attribute except the optimizer and the anneal function."""
        return {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "anneal_func")}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Loads a state returned by :meth:`state_dict`."""
        self.__dict__.update(state_dict)
        self._set_anneal_func(self._anneal_strategy)
