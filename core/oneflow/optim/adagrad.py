"""Adagrad: per-coordinate step sizes from the accumulated squared gradients."""

from __future__ import annotations

from typing import Any

import oneflow
from oneflow.optim.optimizer import (
    Optimizer,
    ParamsT,
    _check_flag,
    _check_lr,
    _check_nonnegative,
    _to_scalar,
    _zero_step,
)

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    r"""Adagrad.

    With gradient :math:`g_t` (negated if ``maximize``, plus :math:`\lambda\theta_{t-1}`
    with weight decay), each step computes

    .. math::
        \tilde\gamma = \frac{\gamma}{1 + (t - 1)\eta}, \quad
        s_t = s_{t-1} + g_t^2, \quad
        \theta_t = \theta_{t-1} - \tilde\gamma \frac{g_t}{\sqrt{s_t} + \epsilon}

    with :math:`s_0` = ``initial_accumulator_value``.

    Args:
        params (iterable): parameters to optimize or dicts defining parameter groups.
        lr (float): learning rate :math:`\gamma` (default: 1e-3, as in OneFlow; PyTorch's is 1e-2).
        lr_decay (float): learning rate decay :math:`\eta` (default: 0).
        weight_decay (float): L2 penalty :math:`\lambda` (default: 0).
        initial_accumulator_value (float): initial value of the sums (default: 0).
        eps (float): term added to the denominator (default: 1e-10).
        foreach (bool, optional): accepted for PyTorch compatibility (no effect).
        maximize (bool): maximize the objective (default: ``False``).
        contiguous_params (bool): OneFlow's packing of a group's parameters into one
            buffer; accepted, the update is the same (default: ``False``).

    As in PyTorch, the state (``step`` and ``sum``) is created for every
    parameter when the optimizer is constructed.
    """

    def __init__(
        self,
        params: ParamsT,
        lr: float = 1e-3,
        lr_decay: float = 0,
        weight_decay: float = 0,
        initial_accumulator_value: float = 0,
        eps: float = 1e-10,
        foreach: bool | None = None,
        *,
        maximize: bool = False,
        contiguous_params: bool = False,
    ) -> None:
        _check_flag(type(self).__name__, "contiguous_params", contiguous_params)
        _check_lr(lr)
        _check_nonnegative("lr_decay", lr_decay)
        _check_nonnegative("weight_decay", weight_decay)
        _check_nonnegative("initial_accumulator_value", initial_accumulator_value)
        _check_nonnegative("epsilon", eps)
        defaults = {
            "lr": lr,
            "lr_decay": lr_decay,
            "eps": eps,
            "weight_decay": weight_decay,
            "initial_accumulator_value": initial_accumulator_value,
            "foreach": foreach,
            "maximize": maximize,
        }
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                self._init_state(self.state[p], p, group)

    @staticmethod
    def _init_state(state: dict, p, group: dict) -> None:
        state["step"] = _zero_step()
        state["sum"] = oneflow.full_like(p, group["initial_accumulator_value"])

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("maximize", False)

    @oneflow.no_grad()
    def step(self, closure=None):
        r"""Performs a single optimization step.

        Args:
            closure (Callable, optional): re-evaluates the model and returns the loss.
        """
        loss = self._eval_closure(closure)
        for group in self.param_groups:
            lr = _to_scalar(group["lr"])
            lr_decay, eps = group["lr_decay"], group["eps"]
            weight_decay, maximize = group["weight_decay"], group["maximize"]
            for p, grad, state in self._grads(group):
                if len(state) == 0:  # a parameter of a group added after construction
                    self._init_state(state, p, group)
                step = state["step"].add_(1).item()
                if maximize:
                    grad = grad.neg()
                if weight_decay != 0:
                    grad = grad.add(p, alpha=weight_decay)
                clr = lr / (1 + (step - 1) * lr_decay)
                state_sum = state["sum"]
                state_sum.addcmul_(grad, grad, value=1)
                std = state_sum.sqrt().add_(eps)
                p.addcdiv_(grad, std, value=-clr)
        return loss
