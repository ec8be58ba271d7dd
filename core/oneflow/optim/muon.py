"""Muon (https://kellerjordan.github.io/posts/muon/): SGD momentum whose update is orthogonalized
by a Newton-Schulz iteration, for the 2-D weights of hidden layers. The same hyper-parameters,
defaults and state (``momentum_buffer``) as ``torch.optim.Muon``."""

from __future__ import annotations

import math

import oneflow
from oneflow.optim.optimizer import Optimizer, ParamsT, _check_lr, _to_scalar

__all__ = ["Muon"]

EPS = 1e-7
DEFAULT_A = 3.4445
DEFAULT_B = -4.775
DEFAULT_C = 2.0315
DEFAULT_NS_STEPS = 5


def _zeropower_via_newtonschulz(
    grad: oneflow.Tensor, ns_coefficients: tuple[float, float, float], ns_steps: int, eps: float
) -> oneflow.Tensor:
    """An approximately orthogonal matrix with ``grad``'s row/column spaces: ``ns_steps`` steps of
    X <- a X + (b G + c G^2) X with G = X X^T, from X = grad / ||grad||, in bfloat16."""
    if ns_steps >= 100:
        raise ValueError("Number of steps must be less than 100 for computational efficiency")
    if grad.dim() != 2:
        raise ValueError("Input tensor gradient must be a 2D matrix")
    if len(ns_coefficients) != 3:
        raise ValueError("Coefficients must be a tuple of exactly 3 values")
    a, b, c = ns_coefficients
    bf16, f32 = oneflow.bfloat16, oneflow.float32
    # bfloat16 values, each product-and-sum rounded once (as a bfloat16 GEMM with float32
    # accumulation does): computed in float32, rounded to bfloat16 at the same points.
    x = grad.to(bf16)
    tall = grad.size(0) > grad.size(1)
    if tall:
        x = x.T
    norm = x.to(f32).norm().to(bf16).to(f32).clamp(min=eps)
    x = (x.to(f32) / norm).to(bf16)
    for _ in range(ns_steps):
        xf = x.to(f32)
        gram = (xf @ xf.T).to(bf16).to(f32)
        update = (b * gram + c * (gram @ gram)).to(bf16).to(f32)
        x = (a * xf + update @ xf).to(bf16)
    return x.T if tall else x


def _adjust_lr(lr: float, adjust_lr_fn: str | None, shape) -> float:
    rows, cols = shape[:2]
    if adjust_lr_fn is None or adjust_lr_fn == "original":
        ratio = math.sqrt(max(1, rows / cols))
    elif adjust_lr_fn == "match_rms_adamw":
        ratio = 0.2 * math.sqrt(max(rows, cols))
    else:
        ratio = 1.0
    return lr * ratio


class Muon(Optimizer):
    r"""Muon: momentum SGD with orthogonalized updates, for 2-D parameters.

    Each step: :math:`B_t = \mu B_{t-1} + (1 - \mu) g_t` (kept as ``momentum_buffer``); the
    update is :math:`\mathrm{lerp}(g_t, B_t, \mu)` with ``nesterov``, else :math:`B_t`; it is
    orthogonalized by ``ns_steps`` Newton-Schulz steps with coefficients ``ns_coefficients``;
    then :math:`\theta \leftarrow \theta (1 - \gamma\lambda) - \gamma' O_t`, with
    :math:`\gamma'` the learning rate adjusted to the shape :math:`(A, B)`:
    :math:`\gamma\sqrt{\max(1, A/B)}` (``"original"``, the default) or
    :math:`0.2\gamma\sqrt{\max(A, B)}` (``"match_rms_adamw"``).

    Args:
        params: the 2-D parameters (optimize biases and embeddings with e.g. AdamW).
        lr: learning rate. Default: 1e-3.
        weight_decay: decoupled weight decay. Default: 0.1.
        momentum: momentum factor. Default: 0.95.
        nesterov: use Nesterov momentum. Default: ``True``.
        ns_coefficients: the Newton-Schulz polynomial's ``(a, b, c)``.
            Default: ``(3.4445, -4.775, 2.0315)``.
        eps: stabilizes the initial normalization. Default: 1e-7.
        ns_steps: Newton-Schulz steps. Default: 5.
        adjust_lr_fn: ``None``/``"original"`` or ``"match_rms_adamw"``.

    Example::

        >>> opt = flow.optim.Muon([p for p in model.parameters() if p.ndim == 2], lr=0.02)
    """

    def __init__(
        self,
        params: ParamsT,
        lr: float = 1e-3,
        weight_decay: float = 0.1,
        momentum: float = 0.95,
        nesterov: bool = True,
        ns_coefficients: tuple[float, float, float] = (DEFAULT_A, DEFAULT_B, DEFAULT_C),
        eps: float = EPS,
        ns_steps: int = DEFAULT_NS_STEPS,
        adjust_lr_fn: str | None = None,
    ) -> None:
        _check_lr(lr)
        if not 0.0 <= momentum:
            raise ValueError(f"momentum should be >= 0 but is: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight decay should be >= 0 but is: {weight_decay}")
        if adjust_lr_fn is not None and adjust_lr_fn not in ("original", "match_rms_adamw"):
            raise ValueError(f"Adjust learning rate function {adjust_lr_fn} is not supported")
        defaults = {
            "lr": lr,
            "weight_decay": weight_decay,
            "momentum": momentum,
            "nesterov": nesterov,
            "ns_coefficients": ns_coefficients,
            "eps": eps,
            "ns_steps": ns_steps,
            "adjust_lr_fn": adjust_lr_fn,
        }
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                if p.ndim != 2:
                    raise ValueError(
                        f"Muon only supports 2D parameters whereas we found a parameter with size: {tuple(p.size())}"
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
            weight_decay, momentum = group["weight_decay"], group["momentum"]
            for p, grad, state in self._grads(group):
                if p.is_complex():
                    raise RuntimeError("Muon does not support complex parameters")
                if grad.dim() != 2:
                    raise ValueError("Param gradient must be a 2D matrix")
                if "momentum_buffer" not in state:
                    state["momentum_buffer"] = oneflow.zeros_like(grad)
                buf = state["momentum_buffer"]
                buf.lerp_(grad, 1 - momentum)
                update = grad.lerp(buf, momentum) if group["nesterov"] else buf
                update = _zeropower_via_newtonschulz(update, group["ns_coefficients"], group["ns_steps"], group["eps"])
                adjusted_lr = _adjust_lr(lr, group["adjust_lr_fn"], p.shape)
                p.mul_(1 - lr * weight_decay)
                p.add_(update.to(p.dtype), alpha=-adjusted_lr)
        return loss
