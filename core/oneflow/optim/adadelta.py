"""Adadelta: step sizes from running averages of squared gradients and squared updates."""

from __future__ import annotations

from typing import Any

import oneflow
from oneflow.optim.optimizer import Optimizer, ParamsT, _check_lr, _check_nonnegative, _to_scalar, _zero_step

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    r"""Adadelta.

    With gradient :math:`g_t` (negated if ``maximize``, plus :math:`\lambda\theta_{t-1}`
    with weight decay), each step computes

    .. math::
        v_t = \rho v_{t-1} + (1 - \rho) g_t^2, \quad
        \Delta_t = \frac{\sqrt{u_{t-1} + \epsilon}}{\sqrt{v_t + \epsilon}} g_t, \\
        u_t = \rho u_{t-1} + (1 - \rho) \Delta_t^2, \quad
        \theta_t = \theta_{t-1} - \gamma \Delta_t

    Args:
        params (iterable): parameters to optimize or dicts defining parameter groups.
        lr (float): coefficient :math:`\gamma` scaling the delta (default: 1.0).
        rho (float): running-average coefficient :math:`\rho` (default: 0.9).
        eps (float): term added inside the square roots (default: 1e-6).
        weight_decay (float): L2 penalty :math:`\lambda` (default: 0).
        foreach (bool, optional): accepted for PyTorch compatibility (no effect).
        maximize (bool): maximize the objective (default: ``False``).

    State per parameter: ``step``, ``square_avg`` (:math:`v`) and ``acc_delta`` (:math:`u`).
    """

    def __init__(
        self,
        params: ParamsT,
        lr: float = 1.0,
        rho: float = 0.9,
        eps: float = 1e-6,
        weight_decay: float = 0,
        foreach: bool | None = None,
        *,
        maximize: bool = False,
    ) -> None:
        _check_lr(lr)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        _check_nonnegative("epsilon", eps)
        _check_nonnegative("weight_decay", weight_decay)
        defaults = {
            "lr": lr,
            "rho": rho,
            "eps": eps,
            "weight_decay": weight_decay,
            "maximize": maximize,
            "foreach": foreach,
        }
        super().__init__(params, defaults)

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
            rho, eps = group["rho"], group["eps"]
            weight_decay, maximize = group["weight_decay"], group["maximize"]
            for p, grad, state in self._grads(group):
                if len(state) == 0:
                    state["step"] = _zero_step()
                    state["square_avg"] = oneflow.zeros_like(p)
                    state["acc_delta"] = oneflow.zeros_like(p)
                state["step"].add_(1)
                if maximize:
                    grad = grad.neg()
                if weight_decay != 0:
                    grad = grad.add(p, alpha=weight_decay)
                square_avg, acc_delta = state["square_avg"], state["acc_delta"]
                square_avg.mul_(rho).addcmul_(grad, grad, value=1 - rho)
                std = square_avg.add(eps).sqrt_()
                delta = acc_delta.add(eps).sqrt_().div_(std).mul_(grad)
                acc_delta.mul_(rho).addcmul_(delta, delta, value=1 - rho)
                p.add_(delta, alpha=-lr)
        return loss
