"""``oneflow.amp.GradScaler``: dynamic loss scaling for mixed-precision training.

Gradients of a low-precision forward pass can underflow to zero. The scaler
multiplies the loss by a large factor before ``backward`` and divides the
gradients by it again before the optimizer step; when that produced inf or NaN
gradients the step is skipped and the factor shrinks, and after
``growth_interval`` clean steps in a row it grows again.

The scaler works with any optimizer-like object that has ``param_groups``
(a list of dicts whose ``"params"`` hold tensors) and a ``step()`` method.
"""

from __future__ import annotations

import enum
import math
import struct
import warnings
from collections import abc, defaultdict
from collections.abc import Iterable
from typing import Any

import oneflow

__all__ = ["GradScaler", "OptState"]


class OptState(enum.Enum):
    """Where an optimizer is in the current iteration, as far as the scaler knows."""

    READY = 0
    UNSCALED = 1
    STEPPED = 2


def _fresh_optimizer_state() -> dict[str, Any]:
    return {"stage": OptState.READY, "found_inf_per_device": {}}


def _to_float32(x: float) -> float:
    """``x`` rounded to the nearest float32 (the scale lives in a float32 tensor)."""
    return struct.unpack("f", struct.pack("f", x))[0]


def _cuda_available() -> bool:
    cuda = getattr(oneflow, "cuda", None)
    is_available = getattr(cuda, "is_available", None)
    return bool(is_available()) if callable(is_available) else False


class GradScaler:
    """Scales the loss and unscales the gradients so low-precision training does not underflow.

    Typical use, with ``optimizer`` any object that has ``param_groups`` and ``step()``::

        scaler = oneflow.amp.GradScaler()
        for input, target in data:
            optimizer.zero_grad()
            with oneflow.autocast("cpu"):
                loss = loss_fn(model(input), target)
            scaler.scale(loss).backward()
            scaler.step(optimizer)   # unscales, then steps unless a gradient is inf/NaN
            scaler.update()          # adjusts the scale for the next iteration

    Args:
        device (str): the device type the scale tensor lives on, ``"cpu"`` (the
            default here; PyTorch's default is ``"cuda"``) or ``"cuda"``. Asking
            for ``"cuda"`` without a CUDA device warns and disables the scaler.
        init_scale (float): the initial scale factor. Default: ``2.0**16``.
        growth_factor (float): the factor (> 1) the scale is multiplied by after
            ``growth_interval`` consecutive steps without inf/NaN gradients. Default: 2.0.
        backoff_factor (float): the factor (< 1) the scale is multiplied by after a
            step with inf/NaN gradients. Default: 0.5.
        growth_interval (int): how many clean steps in a row grow the scale. Default: 2000.
        enabled (bool): ``False`` makes every method a no-op (``step`` just calls
            ``optimizer.step()``). Default: ``True``.
    """

    def __init__(
        self,
        device: str = "cpu",
        init_scale: float = 2.0**16,
        growth_factor: float = 2.0,
        backoff_factor: float = 0.5,
        growth_interval: int = 2000,
        enabled: bool = True,
    ) -> None:
        self._device = device
        self._enabled = enabled
        if device == "cuda" and enabled and not _cuda_available():
            warnings.warn(
                "GradScaler(device='cuda') is enabled, but CUDA is not available; disabling it.",
                stacklevel=2,
            )
            self._enabled = False
        if self._enabled:
            if growth_factor <= 1.0:
                raise AssertionError("GradScaler: growth_factor must be > 1.0.")
            if backoff_factor >= 1.0:
                raise AssertionError("GradScaler: backoff_factor must be < 1.0.")
            self._init_scale = init_scale
            self._scale: oneflow.Tensor | None = None
            self._growth_factor = growth_factor
            self._backoff_factor = backoff_factor
            self._growth_interval = growth_interval
            self._init_growth_tracker = 0
            self._growth_tracker: int | None = None
            self._per_optimizer_states: dict[int, dict[str, Any]] = defaultdict(_fresh_optimizer_state)

    # -- scale ---------------------------------------------------------------------------

    def _lazy_init(self, device: Any) -> None:
        self._scale = oneflow.full((), self._init_scale, dtype=oneflow.float32, device=device)
        self._growth_tracker = self._init_growth_tracker

    def _check_initialized(self, funcname: str) -> oneflow.Tensor:
        if self._scale is None:
            raise AssertionError(
                f"GradScaler.{funcname}() was called before scale(): call "
                "scaler.scale(loss).backward() earlier in the iteration."
            )
        return self._scale

    def scale(self, outputs: oneflow.Tensor | Iterable[oneflow.Tensor]) -> oneflow.Tensor | Iterable[oneflow.Tensor]:
        """Multiplies ``outputs`` (a tensor, or nested lists/tuples/iterables of tensors) by the scale.

        Returns the scaled outputs in the same structure; returns ``outputs``
        unchanged when the scaler is disabled.
        """
        if not self._enabled:
            return outputs

        def apply(value: Any) -> Any:
            if isinstance(value, oneflow.Tensor):
                if self._scale is None:
                    self._lazy_init(value.device)
                return value * self._scale
            if isinstance(value, abc.Iterable):
                scaled = map(apply, value)
                if isinstance(value, (list, tuple)):
                    return type(value)(scaled)
                return scaled
            raise ValueError("outputs must be a Tensor or an iterable of Tensors")

        return apply(outputs)

    # -- unscale / step ------------------------------------------------------------------

    def _unscale_grads(self, optimizer: Any, inv_scale: float, allow_fp16: bool) -> dict[Any, oneflow.Tensor]:
        """Multiplies every gradient by ``inv_scale``; returns a found-inf flag per device."""
        found: dict[Any, bool] = {}
        with oneflow.no_grad():
            for group in optimizer.param_groups:
                for param in group["params"]:
                    if not isinstance(param, oneflow.Tensor):
                        raise AssertionError(
                            f"GradScaler: expected the optimizer's params to be tensors, got {type(param).__name__}"
                        )
                    grad = param.grad
                    if grad is None:
                        continue
                    if not allow_fp16 and grad.dtype == oneflow.float16:
                        raise ValueError("Attempting to unscale FP16 gradients.")
                    key = str(grad.device)
                    # NaN and +-inf both count; the gradient is unscaled either way.
                    bad = not bool(oneflow.isfinite(grad).all())
                    found[key] = found.get(key, False) or bad
                    if inv_scale != 1.0:
                        grad.mul_(inv_scale)
        return {
            dev: oneflow.full((), 1.0 if bad else 0.0, dtype=oneflow.float32, device=dev) for dev, bad in found.items()
        }

    def unscale_(self, optimizer: Any) -> None:
        """Divides ``optimizer``'s gradients by the scale, in place, and checks them for inf/NaN.

        Optional: :meth:`step` unscales when it was not called. Call it (once per
        optimizer per iteration, after all gradients were accumulated) to work
        with the true gradients before the step, e.g. to clip them.

        Raises:
            RuntimeError: when called twice for ``optimizer`` in one iteration, or after ``step``.
            ValueError: for float16 gradients (keep the master weights in float32).
        """
        if not self._enabled:
            return
        scale = self._check_initialized("unscale_")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since the last update().")
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        # The reciprocal in double precision, rounded once to float32.
        inv_scale = _to_float32(1.0 / float(scale.item()))
        state["found_inf_per_device"] = self._unscale_grads(optimizer, inv_scale, False)
        state["stage"] = OptState.UNSCALED

    def step(self, optimizer: Any, *args: Any, **kwargs: Any) -> Any:
        """Unscales the gradients (unless :meth:`unscale_` did) and steps unless one is inf/NaN.

        ``args`` and ``kwargs`` go to ``optimizer.step``; its return value is
        returned (``None`` when the step was skipped). Closures are not supported
        while the scaler is enabled.
        """
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        self._check_initialized("step")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if state["stage"] is OptState.READY:
            self.unscale_(optimizer)
        if len(state["found_inf_per_device"]) == 0:
            raise AssertionError(
                "GradScaler.step(): no inf checks were recorded for this optimizer (none of its "
                "parameters has a gradient)."
            )
        result = None
        if not sum(v.item() for v in state["found_inf_per_device"].values()):
            result = optimizer.step(*args, **kwargs)
        state["stage"] = OptState.STEPPED
        return result

    # -- update --------------------------------------------------------------------------

    def update(self, new_scale: float | oneflow.Tensor | None = None) -> None:
        """Adjusts the scale at the end of an iteration.

        Without ``new_scale``: if any optimizer stepped this iteration saw inf/NaN
        gradients, the scale is multiplied by ``backoff_factor`` and the run of
        clean steps restarts; otherwise the run grows by one, and when it reaches
        ``growth_interval`` the scale is multiplied by ``growth_factor`` (kept
        finite) and the run restarts. ``new_scale`` (a float or a one-element
        tensor) sets the scale directly instead.
        """
        if not self._enabled:
            return
        scale = self._check_initialized("update")
        if new_scale is not None:
            if isinstance(new_scale, oneflow.Tensor):
                reason = (
                    "new_scale should be a float or a one-element float tensor on the scaler's "
                    "device with requires_grad=False."
                )
                if new_scale.device.type != scale.device.type:
                    raise AssertionError(reason)
                if new_scale.numel() != 1:
                    raise AssertionError(reason)
                if new_scale.requires_grad:
                    raise AssertionError(reason)
                value = float(new_scale.item())
            else:
                value = float(new_scale)
            with oneflow.no_grad():
                scale.fill_(value)
        else:
            found_infs = [
                flag.item()
                for state in self._per_optimizer_states.values()
                for flag in state["found_inf_per_device"].values()
            ]
            if len(found_infs) == 0:
                raise AssertionError("GradScaler.update(): no inf checks were recorded before it.")
            current = float(scale.item())
            if sum(found_infs):
                updated = _to_float32(current * self._backoff_factor)
                self._growth_tracker = 0
            else:
                successful = (self._growth_tracker or 0) + 1
                updated = current
                if successful == self._growth_interval:
                    grown = _to_float32(current * self._growth_factor)
                    if math.isfinite(grown):
                        updated = grown
                    successful = 0
                self._growth_tracker = successful
            with oneflow.no_grad():
                scale.fill_(updated)
        self._per_optimizer_states = defaultdict(_fresh_optimizer_state)

    # -- accessors and state -------------------------------------------------------------

    def get_scale(self) -> float:
        """The current scale as a Python float (1.0 when the scaler is disabled)."""
        if not self._enabled:
            return 1.0
        return float(self._init_scale) if self._scale is None else float(self._scale.item())

    def get_growth_factor(self) -> float:
        """The factor the scale grows by."""
        return self._growth_factor

    def set_growth_factor(self, new_factor: float) -> None:
        """Sets the factor the scale grows by."""
        self._growth_factor = new_factor

    def get_backoff_factor(self) -> float:
        """The factor the scale shrinks by."""
        return self._backoff_factor

    def set_backoff_factor(self, new_factor: float) -> None:
        """Sets the factor the scale shrinks by."""
        self._backoff_factor = new_factor

    def get_growth_interval(self) -> int:
        """How many clean steps in a row grow the scale."""
        return self._growth_interval

    def set_growth_interval(self, new_interval: int) -> None:
        """Sets how many clean steps in a row grow the scale."""
        self._growth_interval = new_interval

    def _get_growth_tracker(self) -> int:
        if not self._enabled:
            return 0
        return self._init_growth_tracker if self._growth_tracker is None else self._growth_tracker

    def is_enabled(self) -> bool:
        """Whether the scaler scales at all."""
        return self._enabled

    def state_dict(self) -> dict[str, Any]:
        """The scaler's state: ``scale``, ``growth_factor``, ``backoff_factor``,
        ``growth_interval`` and ``_growth_tracker`` (the current run of clean steps).

        Empty when the scaler is disabled. Take it after :meth:`update`.
        """
        if not self._enabled:
            return {}
        return {
            "scale": self.get_scale(),
            "growth_factor": self._growth_factor,
            "backoff_factor": self._backoff_factor,
            "growth_interval": self._growth_interval,
            "_growth_tracker": self._get_growth_tracker(),
        }

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restores a state from :meth:`state_dict` (a no-op when the scaler is disabled).

        Raises:
            RuntimeError: when ``state_dict`` is empty (saved from a disabled scaler).
        """
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError(
                "The source state dict is empty, possibly because it was saved from a disabled instance of GradScaler."
            )
        self._init_scale = float(state_dict["scale"])
        if self._scale is not None:
            with oneflow.no_grad():
                self._scale.fill_(self._init_scale)
        self._growth_factor = float(state_dict["growth_factor"])
        self._backoff_factor = float(state_dict["backoff_factor"])
        self._growth_interval = int(state_dict["growth_interval"])
        self._init_growth_tracker = int(state_dict["_growth_tracker"])
        if self._growth_tracker is not None:
            self._growth_tracker = self._init_growth_tracker

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        if self._enabled:
            if len(self._per_optimizer_states) != 0:
                raise AssertionError(
                    "A GradScaler can only be pickled at the start of an iteration or after scaler.update()."
                )
            # Plain numbers instead of the live tensor; it is re-created on first use.
            state["_init_scale"] = self.get_scale()
            state["_init_growth_tracker"] = self._get_growth_tracker()
            state["_scale"] = None
            state["_growth_tracker"] = None
            state["_per_optimizer_states"] = None
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        if self._enabled:
            self._per_optimizer_states = defaultdict(_fresh_optimizer_state)

    def _found_inf_per_device(self, optimizer: Any) -> dict[Any, oneflow.Tensor]:
        return self._per_optimizer_states[id(optimizer)]["found_inf_per_device"]
