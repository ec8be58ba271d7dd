"""An exponential moving average (EMA) of a model's weights, with timm's ``ModelEmaV2`` semantics.

The EMA copy is a deep copy of the model kept in eval mode. Every entry of the state dict
(parameters and buffers alike, in state-dict order) is averaged:
``ema = decay * ema + (1 - decay) * value``. Integer buffers such as BatchNorm's
``num_batches_tracked`` go through the same formula and are truncated back to integers, as
timm's in-place copy does.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import oneflow as flow
from oneflow import nn

__all__ = ["ModelEmaV2"]


class ModelEmaV2(nn.Module):
    """Keeps an exponential moving average of ``model``'s state dict.

    Args:
        model: the model being trained; it is deep-copied (so build the EMA after loading
            any checkpoint into ``model`` and before wrapping it for distributed training).
        decay: the weight of the old average at each :meth:`update`, in [0, 1].
        device: where the EMA copy lives (e.g. ``"cpu"`` to save accelerator memory);
            ``None`` keeps the model's device.

    The averaged model is ``ema.module`` (in eval mode); calling ``ema(x)`` runs it. It is a
    submodule, so ``ema.state_dict()`` holds its weights under ``module.``.

    Example::

        >>> ema = ModelEmaV2(model, decay=0.999)
        >>> for images, labels in loader:
        ...     loss_fn(model(images), labels).backward()
        ...     optimizer.step()
        ...     ema.update(model)
    """

    def __init__(self, model: nn.Module, decay: float = 0.9999, device: Any = None) -> None:
        super().__init__()
        if not isinstance(model, nn.Module):
            raise TypeError(f"ModelEmaV2: expected an nn.Module, got {type(model).__name__}")
        if not 0.0 <= decay <= 1.0:
            raise ValueError(f"ModelEmaV2: decay should be in [0, 1], got {decay}")
        self.module = copy.deepcopy(model)
        self.module.eval()
        self.decay = float(decay)
        self.device = device
        if device is not None:
            self.module.to(device)

    def _update(self, model: nn.Module, update_fn: Callable[[flow.Tensor, flow.Tensor], flow.Tensor]) -> None:
        ema_state = self.module.state_dict()
        model_state = model.state_dict()
        if list(ema_state) != list(model_state):
            missing = sorted(set(ema_state) - set(model_state))
            extra = sorted(set(model_state) - set(ema_state))
            raise ValueError(f"ModelEmaV2: the model's state dict does not match the EMA copy's "
                             f"(missing: {missing[:5]}, unexpected: {extra[:5]})")
        with flow.no_grad():
            for key, ema_v in ema_state.items():
                model_v = model_state[key]
                if tuple(ema_v.shape) != tuple(model_v.shape):
                    raise ValueError(f"ModelEmaV2: {key} has shape {tuple(model_v.shape)} in the model but "
                                     f"{tuple(ema_v.shape)} in the EMA copy")
                if self.device is not None:
                    model_v = model_v.to(self.device)
                # state_dict() values share storage with the module's tensors: copy in place.
                ema_v.copy_(update_fn(ema_v, model_v))

    def update(self, model: nn.Module) -> None:
        """Moves the average towards ``model``: ``ema = decay * ema + (1 - decay) * value``."""
        self._update(model, lambda e, m: self.decay * e + (1.0 - self.decay) * m)

    def set(self, model: nn.Module) -> None:
        """Copies ``model``'s state into the EMA copy (restarts the average)."""
        self._update(model, lambda e, m: m)

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        """Runs the averaged model."""
        return self.module(*args, **kwargs)
