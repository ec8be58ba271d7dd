"""RAdam: Adam with a rectified (variance-corrected) adaptive learning rate."""

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

__all__ = ["RAdam"]


class RAdam(Optimizer):
    r"""RAdam: rectified Adam (Liu et al., 2019).

    With gradient :math:`g_t` (negated if ``maximize``), each step computes

    .. math::
        m_t = \beta_1 m_{t-1} + (1 - \beta_1) g_t, \quad
        v_t = \beta_2 v_{t-1} + (1 - \beta_2) g_t^2, \quad
        \hat m_t = m_t / (1 - \beta_1^t), \\
        \rho_\infty = \frac{2}{1 - \beta_2} - 1, \quad
        \rho_t = \rho_\infty - \frac{2 t \beta_2^t}{1 - \beta_2^t}

    and, while the variance estimate is not yet reliable (:math:`\rho_t \le 5`),
    takes the plain momentum step :math:`\theta_t = \theta_{t-1} - \gamma \hat m_t`;
    afterwards

    .. math::
        r_t = \sqrt{\frac{(\rho_t - 4)(\rho_t - 2)\rho_\infty}{(\rho_\infty - 4)(\rho_\infty - 2)\rho_t}},
        \quad
        \theta_t = \theta_{t-1} - \gamma \hat m_t r_t \frac{\sqrt{1 - \beta_2^t}}{\sqrt{v_t} + \epsilon}.

    Weight decay :math:`\lambda` adds :math:`\lambda\theta_{t-1}` to the gradient,
    or with ``decoupled_weight_decay`` multiplies the weights by :math:`1 - \gamma\lambda`.

    Args:
        params (iterable): parameters to optimize or dicts defining parameter groups.
        lr (float): learning rate :math:`\gamma` (default: 1e-3).
        betas (Tuple[float, float]): :math:`(\beta_1, \beta_2)` (default: (0.9, 0.999)).
        eps (float): term added to the denominator (default: 1e-8).
        weight_decay (float): :math:`\lambda` (default: 0).
        decoupled_weight_decay (bool): decoupled (AdamW-style) weight decay (default: ``False``).
        foreach, capturable, differentiable: accepted for PyTorch compatibility (no effect).
        maximize (bool): maximize the objective (default: ``False``).

    State per parameter (as in PyTorch): ``step`` (a scalar tensor), ``exp_avg``, ``exp_avg_sq``.

    Example::

        >>> opt = flow.optim.RAdam(model.parameters(), lr=1e-3, weight_decay=0.01,
        ...                        decoupled_weight_decay=True)
    """

    def __init__(
        self,
        params: ParamsT,
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        decoupled_weight_decay: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
    ) -> None:
        _check_lr(lr)
        _check_nonnegative("epsilon", eps)
        _check_betas(betas)
        _check_nonnegative("weight_decay", weight_decay)
        defaults = {
            "lr": lr,
            "betas": betas,
            "eps": eps,
            "weight_decay": weight_decay,
            "maximize": maximize,
            "foreach": foreach,
            "decoupled_weight_decay": decoupled_weight_decay,
        }
        super().__init__(params, defaults)

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("foreach", None)
            group.setdefault("maximize", False)
            group.setdefault("decoupled_weight_decay", False)

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
            eps, weight_decay = group["eps"], group["weight_decay"]
            decoupled, maximize = group["decoupled_weight_decay"], group["maximize"]
            rho_inf = 2 / (1 - beta2) - 1
            for p, grad, state in self._grads(group):
                if len(state) == 0:
                    state["step"] = _zero_step()
                    state["exp_avg"] = oneflow.zeros_like(p)
                    state["exp_avg_sq"] = oneflow.zeros_like(p)
                step = state["step"].add_(1).item()
                if maximize:
                    grad = grad.neg()
                if weight_decay != 0:
                    if decoupled:
                        p.mul_(1 - lr * weight_decay)
                    else:
                        grad = grad.add(p, alpha=weight_decay)

                exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
                exp_avg.lerp_(grad, 1 - beta1)
                exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
                bias_correction1 = 1 - beta1**step
                bias_correction2 = 1 - beta2**step
                corrected = exp_avg / bias_correction1
                rho_t = rho_inf - 2 * step * (beta2**step) / bias_correction2
                if rho_t > 5.0:
                    rect = ((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
                    adaptive = bias_correction2**0.5 / exp_avg_sq.sqrt().add_(eps)
                    p.sub_(corrected * lr * adaptive * rect)
                else:
                    p.sub_(corrected * lr)
        return loss
