"""NAdam: Adam with Nesterov momentum (and momentum decay)."""

from __future__ import annotations

from typing import Any

import oneflow
from oneflow.optim.optimizer import (
    Optimizer,
    ParamsT,
    _check_betas,
    _check_lr,
    _check_nonnegative,
    _scalar_dtype,
    _to_scalar,
    _zero_step,
)

__all__ = ["NAdam"]


class NAdam(Optimizer):
    r"""NAdam: Adam with Nesterov momentum.

    With gradient :math:`g_t` (negated if ``maximize``) and momentum decay
    :math:`\psi`, each step computes

    .. math::
        \mu_t = \beta_1 (1 - \tfrac12 0.96^{t\psi}), \quad
        m_t = \beta_1 m_{t-1} + (1 - \beta_1) g_t, \quad
        v_t = \beta_2 v_{t-1} + (1 - \beta_2) g_t^2, \\
        \theta_t = \theta_{t-1}
            - \gamma \frac{(1 - \mu_t) g_t}{1 - \prod_{i \le t} \mu_i} \big/ d_t
            - \gamma \frac{\mu_{t+1} m_t}{1 - \prod_{i \le t+1} \mu_i} \big/ d_t,
        \quad d_t = \sqrt{v_t / (1 - \beta_2^t)} + \epsilon

    Weight decay :math:`\lambda` adds :math:`\lambda\theta_{t-1}` to the gradient,
    or with ``decoupled_weight_decay`` multiplies the weights by :math:`1 - \gamma\lambda`.

    Args:
        params (iterable): parameters to optimize or dicts defining parameter groups.
        lr (float): learning rate :math:`\gamma` (default: 2e-3).
        betas (Tuple[float, float]): :math:`(\beta_1, \beta_2)` (default: (0.9, 0.999)).
        eps (float): term added to the denominator (default: 1e-8).
        weight_decay (float): :math:`\lambda` (default: 0).
        momentum_decay (float): :math:`\psi` (default: 4e-3).
        decoupled_weight_decay (bool): decoupled (AdamW-style) weight decay (default: ``False``).
        foreach (bool, optional): accepted for PyTorch compatibility (no effect).
        maximize (bool): maximize the objective (default: ``False``).

    State per parameter: ``step``, ``mu_product`` (scalar tensors, like
    PyTorch's: the product is kept in the scalar dtype), ``exp_avg``, ``exp_avg_sq``.
    """

    def __init__(
        self,
        params: ParamsT,
        lr: float = 2e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        momentum_decay: float = 4e-3,
        decoupled_weight_decay: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
    ) -> None:
        _check_lr(lr)
        _check_nonnegative("epsilon", eps)
        _check_betas(betas)
        _check_nonnegative("weight_decay", weight_decay)
        _check_nonnegative("momentum_decay", momentum_decay)
        defaults = {
            "lr": lr,
            "betas": tuple(betas),
            "eps": eps,
            "weight_decay": weight_decay,
            "momentum_decay": momentum_decay,
            "decoupled_weight_decay": decoupled_weight_decay,
            "maximize": maximize,
            "foreach": foreach,
        }
        super().__init__(params, defaults)

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        for group in self.param_groups:
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
            momentum_decay, decoupled = group["momentum_decay"], group["decoupled_weight_decay"]
            maximize = group["maximize"]
            for p, grad, state in self._grads(group):
                if len(state) == 0:
                    state["step"] = _zero_step()
                    state["mu_product"] = oneflow.tensor(1.0, dtype=_scalar_dtype())
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

                bias_correction2 = 1 - beta2**step
                mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * momentum_decay)))
                mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * momentum_decay)))
                # The product lives in a scalar tensor (rounded to its dtype each step, as in PyTorch).
                mu_product = state["mu_product"].mul_(mu).item()
                mu_product_next = mu_product * mu_next

                exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
                exp_avg.lerp_(grad, 1 - beta1)
                exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
                denom = exp_avg_sq.div(bias_correction2).sqrt_().add_(eps)
                p.addcdiv_(grad, denom, value=-lr * (1.0 - mu) / (1.0 - mu_product))
                p.addcdiv_(exp_avg, denom, value=-lr * mu_next / (1.0 - mu_product_next))
        return loss
