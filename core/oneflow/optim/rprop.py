"""Rprop: resilient backpropagation."""

from __future__ import annotations

from typing import Any

import oneflow
from oneflow.optim.optimizer import Optimizer, ParamsT, _check_lr, _to_scalar, _zero_step

__all__ = ["Rprop"]


class Rprop(Optimizer):
    r"""Rprop: resilient backpropagation (Riedmiller and Braun, 1993).

    Only the signs of the gradients are used. Each entry keeps its own step size
    :math:`\Delta` (starting at ``lr``); with gradient :math:`g_t` (negated if
    ``maximize``) and the previous step's :math:`g_{t-1}`, each step computes

    .. math::
        \Delta_t = \operatorname{clip}\left(\Delta_{t-1} \cdot
            \begin{cases} \eta_+ & g_t g_{t-1} > 0 \\ \eta_- & g_t g_{t-1} < 0 \\ 1 & \text{else}
            \end{cases}, \Delta_{\min}, \Delta_{\max}\right), \quad
        \theta_t = \theta_{t-1} - \Delta_t \operatorname{sign}(g_t)

    where an entry whose gradient changed sign does not move, and its gradient is
    remembered as zero (so its next step size is not changed).

    Args:
        params (iterable): parameters to optimize or dicts defining parameter groups.
        lr (float): initial step size (default: 1e-2).
        etas (Tuple[float, float]): :math:`(\eta_-, \eta_+)`, the factors that shrink
            and grow the step sizes (default: (0.5, 1.2)).
        step_sizes (Tuple[float, float]): :math:`(\Delta_{\min}, \Delta_{\max})`
            (default: (1e-6, 50)).
        foreach, capturable, differentiable: accepted for PyTorch compatibility (no effect).
        maximize (bool): maximize the objective (default: ``False``).

    State per parameter (as in PyTorch): ``step`` (a scalar tensor), ``prev`` and ``step_size``.
    """

    def __init__(
        self,
        params: ParamsT,
        lr: float = 1e-2,
        etas: tuple[float, float] = (0.5, 1.2),
        step_sizes: tuple[float, float] = (1e-6, 50),
        *,
        capturable: bool = False,
        foreach: bool | None = None,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        _check_lr(lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        defaults = {
            "lr": lr,
            "etas": etas,
            "step_sizes": step_sizes,
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
            etaminus, etaplus = group["etas"]
            step_size_min, step_size_max = group["step_sizes"]
            maximize = group["maximize"]
            for p, grad, state in self._grads(group):
                if len(state) == 0:
                    state["step"] = _zero_step()
                    state["prev"] = oneflow.zeros_like(p)
                    state["step_size"] = oneflow.full_like(grad, _to_scalar(group["lr"]))
                state["step"].add_(1)
                if maximize:
                    grad = grad.neg()
                prev, step_size = state["prev"], state["step_size"]
                agreement = grad.mul(prev)
                flipped = agreement.lt(0)
                factor = oneflow.where(
                    agreement.gt(0),
                    oneflow.full_like(grad, etaplus),
                    oneflow.where(flipped, oneflow.full_like(grad, etaminus), oneflow.ones_like(grad)),
                )
                step_size.mul_(factor).clamp_(step_size_min, step_size_max)
                # After a sign change the entry rests this step and forgets its gradient.
                grad = oneflow.where(flipped, oneflow.zeros_like(grad), grad)
                p.addcmul_(grad.sign(), step_size, value=-1)
                prev.copy_(grad)
        return loss
