"""SGD: stochastic gradient descent with optional momentum (heavy-ball or Nesterov)."""

from __future__ import annotations

import functools
from typing import Any

import oneflow
from oneflow.optim.optimizer import Optimizer, ParamsT, _check_flag, _check_lr, _check_nonnegative, _to_scalar

__all__ = ["SGD"]


@functools.cache
def _has_kernel(op: str, device_type: str) -> bool:
    return device_type in oneflow._C.op_info(op)["kernels"]


def _fusable(group: dict[str, Any], items: list, state_keys: tuple[str, ...] = (), op: str = "") -> bool:
    """Whether a group's (param, grad, state) items can take one fused multi-tensor step.

    The fused kernels (``oneflow._C.ops._fused_sgd_`` / ``_fused_adam_`` / ``_fused_adamw_``)
    need dense tensors of one floating dtype on one device that has a kernel for ``op``
    (the CPU has all of them), gradients and state of the parameter's dtype, shape and
    device, and contiguous parameters and state; global tensors take the per-parameter
    path, whose ops know their SBP. ``foreach=False`` or ``fused=False`` keeps the
    per-parameter path.
    """
    if group.get("foreach") is False or group.get("fused") is False or not items:
        return False
    dtype, device = items[0][0].dtype, items[0][0].device
    if not dtype.is_floating_point or items[0][0].is_global:
        return False
    if device.type != "cpu" and not (op and _has_kernel(op, device.type)):
        return False
    for p, grad, state in items:
        if p.is_global or grad.is_global:
            return False
        if p.device != device or p.dtype != dtype or not p.is_contiguous():
            return False
        if grad.device != device or grad.dtype != dtype or grad.shape != p.shape:
            return False
        if state:
            for key in state_keys:
                t = state.get(key)
                if not isinstance(t, oneflow.Tensor) or t.dtype != dtype or t.shape != p.shape:
                    return False
                if t.device != device or not t.is_contiguous():
                    return False
    return True


class SGD(Optimizer):
    r"""Stochastic gradient descent, optionally with momentum.

    With gradient :math:`g_t` (negated if ``maximize``) and weight decay
    :math:`\lambda`, each step computes

    .. math::
        g_t \leftarrow g_t + \lambda \theta_{t-1}, \quad
        b_t = \mu b_{t-1} + (1 - \tau) g_t \;(b_1 = g_1), \quad
        \theta_t = \theta_{t-1} - \gamma \,(g_t + \mu b_t \text{ if nesterov else } b_t)

    (plain :math:`\theta_t = \theta_{t-1} - \gamma g_t` when ``momentum`` is 0).

    Args:
        params (iterable): parameters to optimize or dicts defining parameter groups.
        lr (float): learning rate :math:`\gamma` (default: 1e-3).
        momentum (float): momentum factor :math:`\mu` (default: 0).
        dampening (float): dampening :math:`\tau` for momentum (default: 0).
        weight_decay (float): L2 penalty :math:`\lambda` (default: 0).
        nesterov (bool): use Nesterov momentum (default: ``False``).
        maximize (bool): maximize the objective instead of minimizing it (default: ``False``).
        foreach (bool, optional): ``False`` updates parameter by parameter; ``None``
            (default) or ``True`` updates all parameters of a group with one fused
            multi-tensor kernel when they are dense CPU tensors of one dtype.
        fused (bool, optional): ``False`` disables the fused multi-tensor kernel.
        contiguous_params (bool): OneFlow's packing of a group's parameters into one
            buffer; accepted, the update is the same (default: ``False``).

    The momentum buffer is ``state[p]["momentum_buffer"]`` as in PyTorch.

    Example::

        >>> opt = oneflow.optim.SGD([w], lr=0.1, momentum=0.9)
        >>> opt.zero_grad(); loss_fn(w).backward(); opt.step()
    """

    def __init__(
        self,
        params: ParamsT,
        lr: float = 1e-3,
        momentum: float = 0,
        dampening: float = 0,
        weight_decay: float = 0,
        nesterov: bool = False,
        *,
        maximize: bool = False,
        foreach: bool | None = None,
        contiguous_params: bool = False,
        fused: bool | None = None,
    ) -> None:
        _check_flag(type(self).__name__, "contiguous_params", contiguous_params)
        _check_lr(lr)
        _check_nonnegative("momentum", momentum)
        _check_nonnegative("weight_decay", weight_decay)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        defaults = {
            "lr": lr,
            "momentum": momentum,
            "dampening": dampening,
            "weight_decay": weight_decay,
            "nesterov": nesterov,
            "maximize": maximize,
            "foreach": foreach,
            "fused": fused,
        }
        super().__init__(params, defaults)

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("nesterov", False)
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
            momentum, dampening = group["momentum"], group["dampening"]
            weight_decay, nesterov = group["weight_decay"], group["nesterov"]
            maximize = group["maximize"]
            items = self._grads(group)
            if self._takes_fused_step(group, items):
                self._fused_step(items, lr, momentum, dampening, weight_decay, nesterov, maximize)
                continue
            for p, grad, state in items:
                if maximize:
                    grad = grad.neg()
                if weight_decay != 0:
                    grad = grad.add(p, alpha=weight_decay)
                if momentum != 0:
                    buf = state.get("momentum_buffer")
                    if buf is None:
                        # The first buffer is the gradient itself (a copy: p.grad is the user's).
                        buf = grad.clone() if grad is p.grad else grad
                        state["momentum_buffer"] = buf
                    else:
                        buf.mul_(momentum).add_(grad, alpha=1 - dampening)
                    grad = grad.add(buf, alpha=momentum) if nesterov else buf
                p.add_(grad, alpha=-lr)
        return loss

    @staticmethod
    def _takes_fused_step(group: dict, items: list) -> bool:
        """Whether ``group``'s step (its parameters with gradients: ``items``) runs the fused
        multi-tensor kernel."""
        return _fusable(group, items, ("momentum_buffer",) if group["momentum"] != 0 else (), op="_fused_sgd_")

    @staticmethod
    def _fused_step(items, lr, momentum, dampening, weight_decay, nesterov, maximize) -> None:
        """One ``_fused_sgd_`` call per kind of parameter: those with a momentum buffer and
        those whose buffer the step creates (from the gradient, as the per-parameter path)."""
        kwargs = {
            "weight_decay": float(weight_decay),
            "momentum": float(momentum),
            "lr": float(lr),
            "dampening": float(dampening),
            "nesterov": bool(nesterov),
            "maximize": bool(maximize),
        }
        if momentum == 0:
            params = [p for p, _, _ in items]
            grads = [g for _, g, _ in items]
            oneflow._C.ops._fused_sgd_(params, grads, [], is_first_step=False, **kwargs)
            return
        for first in (False, True):
            chosen = [(p, g, s) for p, g, s in items if (s.get("momentum_buffer") is None) == first]
            if not chosen:
                continue
            if first:
                for p, _, s in chosen:
                    s["momentum_buffer"] = oneflow.empty_like(p)
            oneflow._C.ops._fused_sgd_(
                [p for p, _, _ in chosen],
                [g for _, g, _ in chosen],
                [s["momentum_buffer"] for _, _, s in chosen],
                is_first_step=first,
                **kwargs,
            )
