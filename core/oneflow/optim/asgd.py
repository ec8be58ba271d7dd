"""ASGD: averaged stochastic gradient descent."""

from __future__ import annotations

from typing import Any

import oneflow
from oneflow.optim.optimizer import (
    Optimizer,
    ParamsT,
    _check_lr,
    _check_nonnegative,
    _scalar_dtype,
    _to_scalar,
    _zero_step,
)

__all__ = ["ASGD"]


class ASGD(Optimizer):
    r"""ASGD: averaged stochastic gradient descent (Polyak and Juditsky, 1992).

    With gradient :math:`g_t` (negated if ``maximize``, plus :math:`\lambda_{wd}\theta_{t-1}`
    with weight decay), each step computes

    .. math::
        \theta_t = \theta_{t-1}(1 - \lambda\eta_t) - \eta_t g_t, \quad
        \bar\theta_t = \bar\theta_{t-1} + \mu_t(\theta_t - \bar\theta_{t-1}), \\
        \eta_{t+1} = \frac{\gamma}{(1 + \lambda\gamma t)^\alpha}, \quad
        \mu_{t+1} = \frac{1}{\max(1, t - t_0)}

    with :math:`\eta_1 = \gamma` and :math:`\mu_1 = 1` (so the average starts as a
    copy of the weights). The average :math:`\bar\theta` is kept in the state as
    ``ax``; the parameters themselves follow the plain (decayed) SGD iterate.

    Args:
        params (iterable): parameters to optimize or dicts defining parameter groups.
        lr (float): learning rate :math:`\gamma` (default: 1e-2).
        lambd (float): decay term :math:`\lambda` (default: 1e-4).
        alpha (float): power :math:`\alpha` of the :math:`\eta` update (default: 0.75).
        t0 (float): step :math:`t_0` at which averaging starts (default: 1e6).
        weight_decay (float): :math:`\lambda_{wd}` (default: 0).
        foreach, capturable, differentiable: accepted for PyTorch compatibility (no effect).
        maximize (bool): maximize the objective (default: ``False``).

    State per parameter (as in PyTorch): ``step``, ``eta``, ``mu`` (scalar tensors)
    and ``ax``.
    """

    def __init__(
        self,
        params: ParamsT,
        lr: float = 1e-2,
        lambd: float = 1e-4,
        alpha: float = 0.75,
        t0: float = 1e6,
        weight_decay: float = 0,
        foreach: bool | None = None,
        maximize: bool = False,
        differentiable: bool = False,
        capturable: bool = False,
    ) -> None:
        _check_lr(lr)
        _check_nonnegative("weight_decay", weight_decay)
        defaults = {
            "lr": lr,
            "lambd": lambd,
            "alpha": alpha,
            "t0": t0,
            "weight_decay": weight_decay,
            "foreach": foreach,
            "maximize": maximize,
        }
        super().__init__(params, defaults)

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("foreach", None)
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
            lambd, alpha, t0 = group["lambd"], group["alpha"], group["t0"]
            weight_decay, maximize = group["weight_decay"], group["maximize"]
            for p, grad, state in self._grads(group):
                if len(state) == 0:
                    state["step"] = _zero_step()
                    # eta and mu live in scalar tensors: their values are rounded to the
                    # scalar dtype each step, as PyTorch's are.
                    state["eta"] = oneflow.tensor(lr, dtype=_scalar_dtype())
                    state["mu"] = oneflow.tensor(1.0, dtype=_scalar_dtype())
                    state["ax"] = oneflow.zeros_like(p)
                step = state["step"].add_(1).item()
                if maximize:
                    grad = grad.neg()
                if weight_decay != 0:
                    grad = grad.add(p, alpha=weight_decay)
                eta = state["eta"].item()
                p.mul_(1 - lambd * eta)
                p.add_(grad, alpha=-eta)

                ax, mu = state["ax"], state["mu"].item()
                if mu != 1:
                    ax.add_(p.sub(ax).mul_(mu))
                else:
                    ax.copy_(p)
                # PyTorch rounds the new values to the default dtype (a tensor made from a Python
                # float) before storing them, whatever the state's dtype: so do we.
                state["eta"].fill_(oneflow.tensor(lr / ((1 + lambd * lr * step) ** alpha)).item())
                state["mu"].fill_(oneflow.tensor(1 / max(1, step - t0)).item())
        return loss
