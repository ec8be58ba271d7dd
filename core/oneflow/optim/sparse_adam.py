"""SparseAdam: Adam applied only to the rows a gradient touches (embedding tables)."""

from __future__ import annotations

import math

import oneflow
from oneflow.optim.optimizer import Optimizer, ParamsT, _check_betas, _to_scalar

__all__ = ["SparseAdam"]


class SparseAdam(Optimizer):
    r"""SparseAdam: a masked Adam for parameters with row-sparse gradients.

    PyTorch's ``SparseAdam`` is meant for embedding tables whose gradients are
    sparse (``nn.Embedding(..., sparse=True)``): only the rows present in the
    gradient have their moments and values updated, the others are left as they
    are (their moments do not decay). It raises for dense gradients.

    OneFlow has no sparse tensor layout, so gradients are dense here, and this
    optimizer reads a dense gradient as the sparse one it stands for: a *row*
    (an index along dimension 0; an entry for a 0-d or 1-d parameter) is present
    when any of its gradient entries is nonzero. For an embedding table's gradient
    this is exactly the set of rows PyTorch's sparse gradient holds (unless a
    looked-up row's gradient is exactly zero), so the trajectories agree. For a
    present row, with gradient :math:`g_t` (negated if ``maximize``):

    .. math::
        m_t = m_{t-1} + (1 - \beta_1)(g_t - m_{t-1}), \quad
        v_t = v_{t-1} + (1 - \beta_2)(g_t^2 - v_{t-1}), \\
        \theta_t = \theta_{t-1} - \gamma \frac{\sqrt{1 - \beta_2^t}}{1 - \beta_1^t}
            \frac{m_t}{\sqrt{v_t} + \epsilon}

    where :math:`t` counts the optimizer's steps (also those that touched no row).

    Args:
        params (iterable): parameters to optimize or dicts defining parameter groups.
        lr (float): learning rate :math:`\gamma` (default: 1e-3; must be positive).
        betas (Tuple[float, float]): :math:`(\beta_1, \beta_2)` (default: (0.9, 0.999)).
        eps (float): term added to the denominator (default: 1e-8; must be positive).
        maximize (bool): maximize the objective (default: ``False``).

    State per parameter (as in PyTorch): ``step`` (a Python int), ``exp_avg``, ``exp_avg_sq``.

    Example::

        >>> emb = flow.nn.Embedding(1000, 16)
        >>> opt = flow.optim.SparseAdam(emb.parameters(), lr=1e-2)
        >>> emb(flow.tensor([1, 5])).sum().backward(); opt.step()  # rows 1 and 5 move
    """

    def __init__(
        self,
        params: ParamsT,
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        maximize: bool = False,
    ) -> None:
        if isinstance(lr, oneflow.Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 < _to_scalar(lr):
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        _check_betas(betas)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "maximize": maximize}
        super().__init__(params, defaults)
        complex_params = [
            [i, j]
            for i, group in enumerate(self.param_groups)
            for j, p in enumerate(group["params"])
            if getattr(p.dtype, "is_complex", False)
        ]
        if complex_params:
            raise ValueError(
                f"Complex params at indices {complex_params}: SparseAdam does not support complex parameters"
            )

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
            eps, maximize = group["eps"], group.get("maximize", False)
            for p, grad, state in self._grads(group):
                if len(state) == 0:
                    state["step"] = 0
                    state["exp_avg"] = oneflow.zeros_like(p)
                    state["exp_avg_sq"] = oneflow.zeros_like(p)
                state["step"] += 1
                step = state["step"]
                if maximize:
                    grad = grad.neg()
                rows = grad.ne(0)
                if grad.dim() > 1:
                    rows = rows.reshape(grad.shape[0], -1).any(dim=1).reshape([grad.shape[0]] + [1] * (grad.dim() - 1))
                if not bool(rows.any()):
                    continue
                rows = rows.to(grad.dtype)
                exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
                avg_update = grad.sub(exp_avg).mul_(1 - beta1).mul_(rows)
                sq_update = (grad * grad).sub_(exp_avg_sq).mul_(1 - beta2).mul_(rows)
                numer = exp_avg.add(avg_update)
                denom = exp_avg_sq.add(sq_update).sqrt_().add_(eps)
                exp_avg.add_(avg_update)
                exp_avg_sq.add_(sq_update)
                step_size = lr * math.sqrt(1 - beta2**step) / (1 - beta1**step)
                p.add_(numer.div_(denom).mul_(rows).mul_(-step_size))
        return loss
