"""Adam (and, with decoupled weight decay, AdamW's update)."""

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
from oneflow.optim.sgd import _fusable

__all__ = ["Adam"]


class Adam(Optimizer):
    r"""Adam: adaptive moment estimation.

    With gradient :math:`g_t` (negated if ``maximize``), each step computes

    .. math::
        m_t = \beta_1 m_{t-1} + (1 - \beta_1) g_t, \quad
        v_t = \beta_2 v_{t-1} + (1 - \beta_2) g_t^2, \\
        \theta_t = \theta_{t-1} - \frac{\gamma}{1 - \beta_1^t}
            \frac{m_t}{\sqrt{\hat v_t} / \sqrt{1 - \beta_2^t} + \epsilon}

    where :math:`\hat v_t = v_t`, or its running maximum with ``amsgrad``.
    Weight decay :math:`\lambda` is added to the gradient
    (:math:`g_t + \lambda\theta_{t-1}`), or with ``decoupled_weight_decay``
    applied to the weights (:math:`\theta_{t-1}(1 - \gamma\lambda)`, AdamW).

    Args:
        params (iterable): parameters to optimize or dicts defining parameter groups.
        lr (float): learning rate :math:`\gamma` (default: 1e-3).
        betas (Tuple[float, float]): :math:`(\beta_1, \beta_2)` (default: (0.9, 0.999)).
        eps (float): :math:`\epsilon` added to the denominator (default: 1e-8).
        weight_decay (float): :math:`\lambda` (default: 0).
        amsgrad (bool): use the AMSGrad variant (default: ``False``).
        do_bias_correction (bool): OneFlow's switch: ``False`` drops the bias
            corrections :math:`1 - \beta_1^t` and :math:`\sqrt{1 - \beta_2^t}`
            above (default: ``True``).
        contiguous_params (bool): OneFlow's switch for packing a group's parameters
            into one buffer; accepted, the update is the same (default: ``False``).
        foreach (bool, optional): ``False`` updates parameter by parameter; ``None``
            (default) or ``True`` updates all parameters of a group with one fused
            multi-tensor kernel when they are dense CPU tensors of one dtype.
        maximize (bool): maximize the objective (default: ``False``).
        decoupled_weight_decay (bool): AdamW's decoupled weight decay (default: ``False``).
        fused (bool, optional): ``False`` disables the fused multi-tensor kernel.

    State per parameter (as in PyTorch): ``step`` (a scalar tensor),
    ``exp_avg``, ``exp_avg_sq`` and, with ``amsgrad``, ``max_exp_avg_sq``.
    """

    def __init__(
        self,
        params: ParamsT,
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        amsgrad: bool = False,
        do_bias_correction: bool = True,
        contiguous_params: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
        decoupled_weight_decay: bool = False,
        fused: bool | None = None,
    ) -> None:
        _check_flag(type(self).__name__, "do_bias_correction", do_bias_correction)
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
            "amsgrad": amsgrad,
            "do_bias_correction": do_bias_correction,
            "maximize": maximize,
            "foreach": foreach,
            "decoupled_weight_decay": decoupled_weight_decay,
            "fused": fused,
        }
        super().__init__(params, defaults)

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("amsgrad", False)
            group.setdefault("maximize", False)
            group.setdefault("decoupled_weight_decay", False)
            group.setdefault("do_bias_correction", True)

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
            amsgrad, decoupled = group["amsgrad"], group["decoupled_weight_decay"]
            maximize = group["maximize"]
            bias_correction = group.get("do_bias_correction", True)
            items = self._grads(group)
            if self._takes_fused_step(group, items):
                self._fused_step(items, lr, beta1, beta2, eps, weight_decay, amsgrad, maximize, decoupled)
                continue
            for p, grad, state in items:
                if len(state) == 0:
                    _init_adam_state(state, p, amsgrad)
                exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
                step = state["step"].add_(1).item()

                if maximize:
                    grad = grad.neg()
                if weight_decay != 0:
                    if decoupled:
                        p.mul_(1 - lr * weight_decay)
                    else:
                        grad = grad.add(p, alpha=weight_decay)

                exp_avg.lerp_(grad, 1 - beta1)
                exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
                if amsgrad:
                    # In-place running maximum: clamp_(min=) keeps the state tensor's identity.
                    exp_avg_sq = state["max_exp_avg_sq"].clamp_(min=exp_avg_sq)

                if bias_correction:
                    step_size = lr / (1 - beta1**step)
                    denom = exp_avg_sq.sqrt().div_((1 - beta2**step) ** 0.5).add_(eps)
                else:
                    step_size = lr
                    denom = exp_avg_sq.sqrt().add_(eps)
                p.addcdiv_(exp_avg, denom, value=-step_size)
        return loss

    @staticmethod
    def _takes_fused_step(group: dict, items: list) -> bool:
        """Whether ``group``'s step (its parameters with gradients: ``items``) runs the fused
        multi-tensor kernel. The kernel always corrects the bias; without correction, and for
        what the kernel does not cover, the step goes per parameter."""
        decoupled = group["decoupled_weight_decay"]
        keys = ("exp_avg", "exp_avg_sq") + (("max_exp_avg_sq",) if group["amsgrad"] else ())
        return (
            group.get("do_bias_correction", True)
            and _fusable(group, items, keys, op="_fused_adamw_" if decoupled else "_fused_adam_")
            and all(not s or isinstance(s.get("step"), oneflow.Tensor) for _, _, s in items)
        )

    @staticmethod
    def _fused_step(items, lr, beta1, beta2, eps, weight_decay, amsgrad, maximize, decoupled) -> None:
        """All parameters of a group in one ``_fused_adam_`` / ``_fused_adamw_`` call; the
        state is the per-parameter path's (same keys, same tensors), so checkpoints
        interchange."""
        for p, _, state in items:
            if len(state) == 0:
                _init_adam_state(state, p, amsgrad)
            state["step"].add_(1)
        states = [s for _, _, s in items]
        op = oneflow._C.ops._fused_adamw_ if decoupled else oneflow._C.ops._fused_adam_
        op(
            [p for p, _, _ in items],
            [g for _, g, _ in items],
            [s["exp_avg"] for s in states],
            [s["exp_avg_sq"] for s in states],
            [s["max_exp_avg_sq"] for s in states] if amsgrad else [],
            [s["step"] for s in states],
            lr=float(lr),
            beta1=float(beta1),
            beta2=float(beta2),
            weight_decay=float(weight_decay),
            eps=float(eps),
            amsgrad=bool(amsgrad),
            maximize=bool(maximize),
        )
