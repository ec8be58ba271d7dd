"""Adamax: Adam's variant with an infinity-norm second moment."""

from __future__ import annotations

from typing import Any

import oneflow
from oneflow.optim.optimizer import (
    Optimizer,
    ParamsT,
    _check_betas,
    _check_lr,
    _check_nonnegative,
    _to_scalar,
    _zero_step,
)

__all__ = ["Adamax"]


class Adamax(Optimizer):
    r"""Adamax.

    With gradient :math:`g_t` (negated if ``maximize``, plus :math:`\lambda\theta_{t-1}`
    with weight decay), each step computes

    .. math::
        m_t = \beta_1 m_{t-1} + (1 - \beta_1) g_t, \quad
        u_t = \max(\beta_2 u_{t-1}, |g_t| + \epsilon), \quad
        \theta_t = \theta_{t-1} - \frac{\gamma}{1 - \beta_1^t} \frac{m_t}{u_t}

    Args:
        params (iterable): parameters to optimize or dicts defining parameter groups.
        lr (float): learning rate :math:`\gamma` (default: 2e-3).
        betas (Tuple[float, float]): :math:`(\beta_1, \beta_2)` (default: (0.9, 0.999)).
        eps (float): term added to :math:`|g_t|` (default: 1e-8).
        weight_decay (float): L2 penalty :math:`\lambda` (default: 0).
        foreach (bool, optional): accepted for PyTorch compatibility (no effect).
        maximize (bool): maximize the objective (default: ``False``).

    State per parameter: ``step``, ``exp_avg`` and ``exp_inf``.
    """

    def __init__(
        self,
        params: ParamsT,
        lr: float = 2e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        foreach: bool | None = None,
        *,
        maximize: bool = False,
    ) -> None:
        _check_lr(lr)
        _check_nonnegative("epsilon", eps)
        _check_betas(betas)
        _check_nonnegative("weight_decay", weight_decay)
        defaults = {
            "lr": lr,
            "betas": tuple(betas),
            "eps": eps,
            "weight_decay": weight_decay,
            "foreach": foreach,
            "maximize": maximize,
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
            beta1, beta2 = group["betas"]
            eps, weight_decay, maximize = group["eps"], group["weight_decay"], group["maximize"]
            for p, grad, state in self._grads(group):
                if len(state) == 0:
                    state["step"] = _zero_step()
                    state["exp_avg"] = oneflow.zeros_like(p)
                    state["exp_inf"] = oneflow.zeros_like(p)
                step = state["step"].add_(1).item()
                if maximize:
                    grad = grad.neg()
                if weight_decay != 0:
                    grad = grad.add(p, alpha=weight_decay)
                exp_avg, exp_inf = state["exp_avg"], state["exp_inf"]
                exp_avg.lerp_(grad, 1 - beta1)
                # u_t = max(beta2 * u, |g| + eps), in place.
                exp_inf.mul_(beta2).clamp_(min=grad.abs().add_(eps))
                clr = lr / (1 - beta1**step)
                p.addcdiv_(exp_avg, exp_inf, value=-clr)
        return loss
