"""RMSprop: gradient steps scaled by a running RMS of the gradients."""

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

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    r"""RMSprop.

    With gradient :math:`g_t` (negated if ``maximize``, plus :math:`\lambda\theta_{t-1}`
    with weight decay), each step computes

    .. math::
        v_t = \alpha v_{t-1} + (1 - \alpha) g_t^2, \quad
        \tilde v_t = v_t - \bar g_t^2 \text{ if centered, with }
            \bar g_t = \alpha \bar g_{t-1} + (1 - \alpha) g_t, \\
        b_t = \mu b_{t-1} + g_t / (\sqrt{\tilde v_t} + \epsilon), \quad
        \theta_t = \theta_{t-1} - \gamma b_t

    (without momentum :math:`\theta_t = \theta_{t-1} - \gamma g_t / (\sqrt{\tilde v_t} + \epsilon)`).

    Args:
        params (iterable): parameters to optimize or dicts defining parameter groups.
        lr (float): learning rate :math:`\gamma` (default: 1e-3, as in OneFlow; PyTorch's is 1e-2).
        alpha (float): smoothing constant :math:`\alpha` (default: 0.99).
        eps (float): term added to the denominator (default: 1e-8).
        weight_decay (float): L2 penalty :math:`\lambda` (default: 0).
        momentum (float): momentum factor :math:`\mu` (default: 0).
        centered (bool): normalize by an estimate of the gradient's variance (default: ``False``).
        foreach (bool, optional): accepted for PyTorch compatibility (no effect).
        maximize (bool): maximize the objective (default: ``False``).
        contiguous_params (bool): OneFlow's packing of a group's parameters into one
            buffer; accepted, the update is the same (default: ``False``).

    State per parameter: ``step``, ``square_avg``, and ``momentum_buffer`` /
    ``grad_avg`` when momentum / centered are used.
    """

    def __init__(
        self,
        params: ParamsT,
        lr: float = 1e-3,
        alpha: float = 0.99,
        eps: float = 1e-8,
        weight_decay: float = 0,
        momentum: float = 0,
        centered: bool = False,
        foreach: bool | None = None,
        maximize: bool = False,
        *,
        contiguous_params: bool = False,
    ) -> None:
        _check_flag(type(self).__name__, "contiguous_params", contiguous_params)
        _check_lr(lr)
        _check_nonnegative("epsilon", eps)
        _check_nonnegative("momentum", momentum)
        _check_nonnegative("weight_decay", weight_decay)
        _check_nonnegative("alpha", alpha)
        defaults = {
            "lr": lr,
            "momentum": momentum,
            "alpha": alpha,
            "eps": eps,
            "centered": centered,
            "weight_decay": weight_decay,
            "foreach": foreach,
            "maximize": maximize,
        }
        super().__init__(params, defaults)

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("momentum", 0)
            group.setdefault("centered", False)
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
            alpha, eps, weight_decay = group["alpha"], group["eps"], group["weight_decay"]
            momentum, centered, maximize = group["momentum"], group["centered"], group["maximize"]
            for p, grad, state in self._grads(group):
                if len(state) == 0:
                    state["step"] = _zero_step()
                    state["square_avg"] = oneflow.zeros_like(p)
                    if momentum > 0:
                        state["momentum_buffer"] = oneflow.zeros_like(p)
                    if centered:
                        state["grad_avg"] = oneflow.zeros_like(p)
                state["step"].add_(1)
                if maximize:
                    grad = grad.neg()
                if weight_decay != 0:
                    grad = grad.add(p, alpha=weight_decay)

                square_avg = state["square_avg"]
                square_avg.mul_(alpha).addcmul_(grad, grad, value=1 - alpha)
                if centered:
                    grad_avg = state["grad_avg"]
                    grad_avg.lerp_(grad, 1 - alpha)
                    avg = square_avg.addcmul(grad_avg, grad_avg, value=-1).sqrt_()
                else:
                    avg = square_avg.sqrt()
                avg.add_(eps)

                if momentum > 0:
                    buf = state["momentum_buffer"]
                    buf.mul_(momentum).addcdiv_(grad, avg)
                    p.add_(buf, alpha=-lr)
                else:
                    p.addcdiv_(grad, avg, value=-lr)
        return loss
