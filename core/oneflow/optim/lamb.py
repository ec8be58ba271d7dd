"""LAMB: layer-wise adaptive moments (OneFlow's optimizer; PyTorch has none)."""

from __future__ import annotations

from typing import Any

import oneflow
from oneflow.optim.optimizer import (
    Optimizer,
    ParamsT,
    _check_betas,
    _check_flag,
    _check_lr,
    _check_nonnegative,
    _init_adam_state,
    _to_scalar,
)

__all__ = ["LAMB"]


class LAMB(Optimizer):
    r"""LAMB: Adam's update rescaled per parameter by a trust ratio.

    From "Large Batch Optimization for Deep Learning: Training BERT in 76
    minutes". With gradient :math:`g_t`, each step computes

    .. math::
        m_t = \beta_1 m_{t-1} + (1 - \beta_1) g_t, \quad
        v_t = \beta_2 v_{t-1} + (1 - \beta_2) g_t^2, \\
        u_t = \frac{m_t / (1 - \beta_1^t)}{\sqrt{v_t / (1 - \beta_2^t)} + \epsilon}
            + \lambda \theta_{t-1}, \quad
        r_t = \frac{\lVert\theta_{t-1}\rVert_2}{\lVert u_t\rVert_2}, \quad
        \theta_t = \theta_{t-1} - \gamma r_t u_t

    where the norms are over the whole parameter tensor, :math:`r_t = 1` when
    either norm is 0, and the bias corrections are dropped when
    ``do_bias_correction`` is ``False``. With ``adam_w_mode=False`` the weight
    decay is an L2 penalty instead: :math:`\lambda\theta_{t-1}` is added to
    :math:`g_t` before the moments, and not to :math:`u_t`.

    Args:
        params (iterable): parameters to optimize or dicts defining parameter groups.
        lr (float): learning rate :math:`\gamma` (default: 1e-3).
        betas (Tuple[float, float]): :math:`(\beta_1, \beta_2)` (default: (0.9, 0.999)).
        eps (float): term added to the denominator (default: 1e-8).
        weight_decay (float): :math:`\lambda` (default: 0).
        adam_w_mode (bool): decoupled weight decay (default: ``True``).
        do_bias_correction (bool): divide the moments by :math:`1 - \beta^t` (default: ``True``).
        amsgrad (bool): use the running maximum of :math:`v_t` (default: ``False``).
        contiguous_params (bool): OneFlow's packing of a group's parameters into one
            buffer; accepted, the update is the same (default: ``False``).

    State per parameter: ``step``, ``exp_avg``, ``exp_avg_sq`` (and
    ``max_exp_avg_sq`` with ``amsgrad``).
    """

    def __init__(
        self,
        params: ParamsT,
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        adam_w_mode: bool = True,
        do_bias_correction: bool = True,
        amsgrad: bool = False,
        contiguous_params: bool = False,
    ) -> None:
        _check_flag(type(self).__name__, "contiguous_params", contiguous_params)
        _check_lr(lr)
        _check_nonnegative("epsilon", eps)
        _check_betas(betas)
        _check_nonnegative("weight_decay", weight_decay)
        defaults = {
            "lr": lr,
            "betas": tuple(betas),
            "eps": eps,
            "weight_decay": weight_decay,
            "adam_w_mode": adam_w_mode,
            "do_bias_correction": do_bias_correction,
            "amsgrad": amsgrad,
        }
        super().__init__(params, defaults)

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("amsgrad", False)

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
            adam_w_mode, amsgrad = group["adam_w_mode"], group["amsgrad"]
            bias_correction = group["do_bias_correction"]
            for p, grad, state in self._grads(group):
                if len(state) == 0:
                    _init_adam_state(state, p, amsgrad)
                step = state["step"].add_(1).item()
                if weight_decay != 0 and not adam_w_mode:
                    grad = grad.add(p, alpha=weight_decay)

                exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
                exp_avg.lerp_(grad, 1 - beta1)
                exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
                if amsgrad:
                    exp_avg_sq = state["max_exp_avg_sq"].clamp_(min=exp_avg_sq)

                denom = exp_avg_sq.sqrt()
                inv_bias_correction1 = 1.0
                if bias_correction:
                    denom.div_((1 - beta2**step) ** 0.5)
                    inv_bias_correction1 = 1 / (1 - beta1**step)
                denom.add_(eps)
                if weight_decay != 0 and adam_w_mode:
                    update = p.mul(weight_decay).addcdiv_(exp_avg, denom, value=inv_bias_correction1)
                else:
                    update = exp_avg.div(denom)
                    if bias_correction:
                        update.mul_(inv_bias_correction1)

                weight_norm = p.norm().item()
                update_norm = update.norm().item()
                trust_ratio = weight_norm / update_norm if weight_norm > 0 and update_norm > 0 else 1.0
                p.add_(update, alpha=-lr * trust_ratio)
        return loss
