"""Adafactor: Adam-like steps with factored second moments (memory sublinear in the weights)."""

from __future__ import annotations

from typing import Any

import oneflow
from oneflow.optim.optimizer import Optimizer, ParamsT, _to_scalar, _zero_step

__all__ = ["Adafactor"]


class Adafactor(Optimizer):
    r"""Adafactor (Shazeer and Stern, 2018), as PyTorch implements it.

    For a parameter with at least two dimensions only the row and column means of
    the squared gradient are kept (over the last two dimensions), and the second
    moment is estimated by their outer product; a vector keeps its full second
    moment. With gradient :math:`G_t` (negated if ``maximize``), step :math:`t` and
    :math:`\hat\beta_{2,t} = 1 - t^{c}` (:math:`c` = ``beta2_decay``):

    .. math::
        \rho_t = \min(\gamma, 1/\sqrt t), \quad
        \alpha_t = \max(\epsilon_2, \mathrm{RMS}(\theta_{t-1}))\rho_t, \\
        R_t = \hat\beta_{2,t} R_{t-1} + (1 - \hat\beta_{2,t}) \operatorname{mean}_{cols}(G_t^2), \quad
        C_t = \hat\beta_{2,t} C_{t-1} + (1 - \hat\beta_{2,t}) \operatorname{mean}_{rows}(G_t^2), \\
        \hat V_t = \frac{R_t C_t}{\max(\operatorname{mean}(R_t), \epsilon_1)}, \quad
        U_t = \frac{G_t}{\sqrt{\max(\hat V_t, \epsilon_1^2)}}, \quad
        \theta_t = \theta_{t-1} - \frac{\alpha_t}{\max(1, \mathrm{RMS}(U_t)/d)} U_t

    Weight decay :math:`\lambda` multiplies the weights by :math:`1 - \gamma\lambda`
    first (decoupled, as in AdamW). Unlike the paper, there is no first moment
    and the learning rate :math:`\gamma` caps the relative step size :math:`\rho_t`.

    Args:
        params (iterable): parameters to optimize or dicts defining parameter groups.
        lr (float): learning rate :math:`\gamma` (default: 1e-2).
        beta2_decay (float): :math:`c`, the decay rate of :math:`\hat\beta_2` (default: -0.8).
        eps (Tuple[float | None, float]): :math:`(\epsilon_1, \epsilon_2)`; ``None``
            for :math:`\epsilon_1` takes the parameter dtype's machine epsilon
            (default: (None, 1e-3)).
        d (float): clipping threshold :math:`d` of the update's RMS (default: 1.0).
        weight_decay (float): :math:`\lambda` (default: 0.0).
        foreach (bool, optional): accepted for PyTorch compatibility (no effect).
        maximize (bool): maximize the objective (default: ``False``).

    State per parameter (as in PyTorch): ``step`` (a scalar tensor) and either
    ``row_var`` and ``col_var`` (parameters of 2 or more dimensions) or ``variance``.
    """

    def __init__(
        self,
        params: ParamsT,
        lr: float = 1e-2,
        beta2_decay: float = -0.8,
        eps: tuple[float | None, float] = (None, 1e-3),
        d: float = 1.0,
        weight_decay: float = 0.0,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
    ) -> None:
        if isinstance(lr, oneflow.Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= _to_scalar(lr):
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 >= beta2_decay:
            raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
        if eps[0] is not None and not 0.0 <= eps[0]:
            raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
        if not 0.0 <= eps[1]:
            raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
        if not 1.0 <= d:
            raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight_decay should be >= 0 but is: {weight_decay}")
        defaults = {
            "lr": lr,
            "beta2_decay": beta2_decay,
            "eps": eps,
            "d": d,
            "weight_decay": weight_decay,
            "foreach": foreach,
            "maximize": maximize,
        }
        super().__init__(params, defaults)

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("foreach", None)

    @oneflow.no_grad()
    def step(self, closure=None):
        r"""Performs a single optimization step.

        Args:
            closure (Callable, optional): re-evaluates the model and returns the loss.
        """
        loss = self._eval_closure(closure)
        for group in self.param_groups:
            lr = _to_scalar(group["lr"])
            beta2_decay, d = group["beta2_decay"], group["d"]
            weight_decay, maximize = group["weight_decay"], group["maximize"]
            eps1, eps2 = group["eps"]
            for p, grad, state in self._grads(group):
                if getattr(p.dtype, "is_complex", False):
                    raise RuntimeError("Adafactor does not support complex parameters")
                if len(state) == 0:
                    state["step"] = _zero_step()
                    if grad.dim() > 1:
                        row_shape, col_shape = list(grad.shape), list(grad.shape)
                        row_shape[-1] = 1
                        col_shape[-2] = 1
                        state["row_var"] = grad.new_zeros(row_shape)
                        state["col_var"] = grad.new_zeros(col_shape)
                    else:
                        state["variance"] = oneflow.zeros_like(grad)
                if maximize:
                    grad = grad.neg()
                if eps1 is None:
                    # As in PyTorch: the first parameter's dtype fixes it for the group's step.
                    eps1 = oneflow.finfo(p.dtype).eps
                step = state["step"].add_(1).item()
                beta2_weight = step**beta2_decay
                rho = min(lr, 1 / step**0.5)
                alpha = max(eps2, p.norm(2).item() / p.numel() ** 0.5) * rho
                if weight_decay != 0:
                    p.mul_(1 - lr * weight_decay)

                if grad.dim() > 1:
                    row_var, col_var = state["row_var"], state["col_var"]
                    row_var.lerp_(grad.norm(dim=-1, keepdim=True).square_().div_(grad.shape[-1]), beta2_weight)
                    col_var.lerp_(grad.norm(dim=-2, keepdim=True).square_().div_(grad.shape[-2]), beta2_weight)
                    # The outer product of the row and column statistics (a matmul with k = 1).
                    var_estimate = row_var * col_var
                    var_estimate.div_(row_var.mean(dim=-2, keepdim=True).clamp_(min=eps1))
                else:
                    variance = state["variance"]
                    variance.lerp_(grad * grad, beta2_weight)
                    var_estimate = variance.clone()
                update = var_estimate.clamp_(min=eps1 * eps1).rsqrt_().mul_(grad)
                denom = max(1.0, update.norm(2).item() / (update.numel() ** 0.5 * d))
                p.add_(update, alpha=-alpha / denom)
        return loss
