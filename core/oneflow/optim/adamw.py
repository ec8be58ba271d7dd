"""AdamW: Adam with decoupled weight decay."""

from __future__ import annotations

from typing import Any

from oneflow.optim.adam import Adam
from oneflow.optim.optimizer import ParamsT

__all__ = ["AdamW"]


class AdamW(Adam):
    r"""AdamW: Adam whose weight decay is applied to the weights, not the gradient.

    Each step first shrinks the weights, :math:`\theta \leftarrow \theta(1 - \gamma\lambda)`,
    then makes :class:`Adam`'s update with the raw gradient.

    Args:
        params (iterable): parameters to optimize or dicts defining parameter groups.
        lr (float): learning rate :math:`\gamma` (default: 1e-3).
        betas (Tuple[float, float]): :math:`(\beta_1, \beta_2)` (default: (0.9, 0.999)).
        eps (float): term added to the denominator (default: 1e-8).
        weight_decay (float): decoupled weight decay :math:`\lambda` (default: 0, as in OneFlow;
            PyTorch's is 1e-2).
        amsgrad (bool): use the AMSGrad variant (default: ``False``).
        do_bias_correction (bool): OneFlow's switch; ``False`` skips Adam's bias
            corrections (default: ``True``).
        contiguous_params (bool): OneFlow's parameter packing; accepted, same update.
        maximize (bool): maximize the objective (default: ``False``).
        foreach (bool, optional): ``False`` updates parameter by parameter; ``None``
            (default) or ``True`` uses one fused multi-tensor kernel per group when the
            parameters are dense CPU tensors of one dtype.
        fused (bool, optional): ``False`` disables the fused multi-tensor kernel.
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
        maximize: bool = False,
        foreach: bool | None = None,
        fused: bool | None = None,
    ) -> None:
        super().__init__(
            params,
            lr,
            betas,
            eps,
            weight_decay,
            amsgrad,
            do_bias_correction,
            contiguous_params,
            foreach=foreach,
            maximize=maximize,
            decoupled_weight_decay=True,
            fused=fused,
        )

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        # Whatever state is loaded, AdamW's weight decay stays decoupled.
        for group in self.param_groups:
            group["decoupled_weight_decay"] = True
