"""``Optimizer``: the base class of oneflow.optim's algorithms.

An optimizer holds parameter groups (a dict per group: ``"params"`` plus the
group's hyper-parameters, missing ones filled from the optimizer's defaults) and
per-parameter state (``optimizer.state[param]``, a dict). ``state_dict()`` has
PyTorch's layout: parameters are replaced by integer ids, numbered in group order,
and the state is keyed by those ids, so a state dict saved here has the same
structure as one saved by ``torch.optim``.
"""

from __future__ import annotations

import functools
import warnings
from collections import OrderedDict, defaultdict
from collections.abc import Callable, Iterable
from copy import deepcopy
from itertools import chain
from typing import Any

import oneflow
from oneflow import Tensor

__all__ = ["Optimizer", "ParamsT", "required"]

ParamsT = Iterable[Tensor] | Iterable[dict[str, Any]] | Iterable[tuple[str, Tensor]]


class _RequiredParameter:
    """Marks a default that every parameter group has to give itself."""

    def __repr__(self) -> str:
        return "<required parameter>"


#: Use as a default value for hyper-parameters without a default (e.g. a required ``lr``).
required = _RequiredParameter()


class RemovableHandle:
    """Returned by the ``register_*_hook`` methods; ``remove()`` unregisters the hook."""

    _next_id = 0

    def __init__(self, hooks: OrderedDict):
        self._hooks = hooks
        self.id = RemovableHandle._next_id
        RemovableHandle._next_id += 1

    def remove(self) -> None:
        """Unregisters the hook (a second call does nothing)."""
        self._hooks.pop(self.id, None)


def _add_hook(hooks: OrderedDict, hook: Callable, prepend: bool) -> RemovableHandle:
    handle = RemovableHandle(hooks)
    hooks[handle.id] = hook
    if prepend:
        hooks.move_to_end(handle.id, last=False)
    return handle


def _wrap_step(step: Callable) -> Callable:
    """Runs the step hooks around ``step`` and records that the optimizer stepped.

    The record (``_opt_called``) lets a learning-rate scheduler warn when it is
    stepped before its optimizer. Hooks run only on the outermost call, so a
    subclass whose ``step`` calls ``super().step()`` does not run them twice.
    """

    @functools.wraps(step)
    def wrapper(self, *args, **kwargs):
        if self.__dict__.get("_in_step", False):
            return step(self, *args, **kwargs)
        self._opt_called = True
        self._in_step = True
        try:
            for hook in list(self._optimizer_step_pre_hooks.values()):
                result = hook(self, args, kwargs)
                if result is not None:
                    if not (isinstance(result, tuple) and len(result) == 2):
                        raise RuntimeError(
                            f"an optimizer step pre-hook must return None or a tuple (args, kwargs), got {result!r}"
                        )
                    args, kwargs = result
            out = step(self, *args, **kwargs)
            for hook in list(self._optimizer_step_post_hooks.values()):
                hook(self, args, kwargs)
            return out
        finally:
            self._in_step = False

    wrapper._hooked_step = True
    return wrapper


def _scalar_dtype():
    """dtype of scalar state such as ``step``: float64 when that is the default dtype, else float32."""
    return oneflow.float64 if oneflow.get_default_dtype() == oneflow.float64 else oneflow.float32


def _zero_step() -> Tensor:
    return oneflow.tensor(0.0, dtype=_scalar_dtype())


def _init_adam_state(state: dict, p: Tensor, amsgrad: bool) -> None:
    """Fills an empty state with the Adam family's entries (Adam, AdamW, LAMB; per-parameter and
    fused paths share them, so checkpoints interchange): step, exp_avg, exp_avg_sq and, with
    amsgrad, max_exp_avg_sq."""
    state["step"] = _zero_step()
    state["exp_avg"] = oneflow.zeros_like(p)
    state["exp_avg_sq"] = oneflow.zeros_like(p)
    if amsgrad:
        state["max_exp_avg_sq"] = oneflow.zeros_like(p)


def _to_scalar(x):
    """A Python number from ``x`` (a one-element tensor learning rate is read once per step)."""
    if isinstance(x, Tensor):
        if x.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        return x.item()
    return x


def _check_lr(lr) -> None:
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
    if not 0.0 <= _to_scalar(lr):
        raise ValueError(f"Invalid learning rate: {lr}")


def _check_betas(betas) -> None:
    if not 0.0 <= betas[0] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
    if not 0.0 <= betas[1] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")


def _check_flag(owner: str, name: str, value) -> None:
    if not isinstance(value, bool):
        raise TypeError(f"{owner}: {name} must be a bool, but got {type(value).__name__}")


def _check_nonnegative(name: str, value) -> None:
    if not 0.0 <= value:
        raise ValueError(f"Invalid {name} value: {value}")


def _check_clip_options(param_group: dict[str, Any]) -> None:
    """OneFlow's per-group clipping options, used by :meth:`Optimizer.clip_grad`, must be numbers."""
    for key in ("clip_grad_max_norm", "clip_grad_norm_type"):
        if key in param_group:
            value = param_group[key]
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise TypeError(f"optimizer param group: {key!r} must be a number, but got {type(value).__name__}")
    max_norm = param_group.get("clip_grad_max_norm")
    if max_norm is not None and not max_norm > 0:
        raise ValueError(f"optimizer param group: 'clip_grad_max_norm' must be positive, but got {max_norm}")


class Optimizer:
    r"""Base class for all optimizers.

    Args:
        params (iterable): the tensors to optimize (leaf tensors, e.g.
            :class:`oneflow.nn.Parameter`), ``(name, tensor)`` pairs, or dicts
            defining parameter groups (each with a ``"params"`` entry and
            optional per-group hyper-parameters).
        defaults (dict): the hyper-parameters' default values, used by groups
            that do not set them.

    Subclasses implement :meth:`step`; it runs under ``no_grad`` and updates the
    parameters in place, so they keep their identity.
    """

    def __init__(self, params: ParamsT, defaults: dict[str, Any]) -> None:
        self.defaults = defaults
        self._optimizer_step_pre_hooks: OrderedDict = OrderedDict()
        self._optimizer_step_post_hooks: OrderedDict = OrderedDict()
        self._optimizer_state_dict_pre_hooks: OrderedDict = OrderedDict()
        self._optimizer_state_dict_post_hooks: OrderedDict = OrderedDict()
        self._optimizer_load_state_dict_pre_hooks: OrderedDict = OrderedDict()
        self._optimizer_load_state_dict_post_hooks: OrderedDict = OrderedDict()

        if isinstance(params, Tensor):
            raise TypeError(
                "params argument given to the optimizer should be an iterable of Tensors or dicts, "
                f"but got {type(params).__module__}.{type(params).__name__}"
            )
        self.state: defaultdict[Tensor, Any] = defaultdict(dict)
        self.param_groups: list[dict[str, Any]] = []

        param_groups = list(params)
        if len(param_groups) == 0:
            # OneFlow accepts an empty list (one empty group; PyTorch raises), so a model without
            # parameters can still be given an optimizer, and a scheduler, before any are added.
            param_groups = [{"params": []}]
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for param_group in param_groups:
            self.add_param_group(param_group)

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        step = cls.__dict__.get("step")
        if step is not None and not getattr(step, "_hooked_step", False):
            cls.step = _wrap_step(step)

    def __getstate__(self) -> dict[str, Any]:
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        for name in (
            "_optimizer_step_pre_hooks",
            "_optimizer_step_post_hooks",
            "_optimizer_state_dict_pre_hooks",
            "_optimizer_state_dict_post_hooks",
            "_optimizer_load_state_dict_pre_hooks",
            "_optimizer_load_state_dict_post_hooks",
        ):
            if name not in self.__dict__:
                setattr(self, name, OrderedDict())

    def __repr__(self) -> str:
        text = self.__class__.__name__ + " ("
        for i, group in enumerate(self.param_groups):
            text += f"\nParameter Group {i}\n"
            for key in sorted(group.keys()):
                if key != "params":
                    text += f"    {key}: {group[key]}\n"
        return text + ")"

    # -- parameter groups ------------------------------------------------------------------

    def add_param_group(self, param_group: dict[str, Any]) -> None:
        r"""Adds a parameter group to :attr:`param_groups`.

        Useful to start training layers that were frozen. Hyper-parameters the
        group does not set take the optimizer's defaults.

        Args:
            param_group (dict): ``"params"`` (a tensor, or a list of tensors or
                ``(name, tensor)`` pairs) and optional group hyper-parameters.
        """
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            params = [params]
        elif isinstance(params, (set, frozenset)):
            raise TypeError(
                "optimizer parameters need to be organized in ordered collections, but the ordering "
                "of tensors in sets will change between runs. Please use a list instead."
            )
        else:
            params = list(params)

        tensors, names = [], []
        for param in params:
            if isinstance(param, tuple):
                names.append(param[0])
                tensors.append(param[1])
            else:
                tensors.append(param)
        param_group["params"] = tensors
        if names:
            if len(names) != len(tensors):
                raise ValueError("all optimizer params should be with/without names. Some param names are missing")
            param_group["param_names"] = names

        for param in tensors:
            if not isinstance(param, Tensor):
                raise TypeError(
                    "optimizer can only optimize Tensors, but one of the params is "
                    f"{type(param).__module__}.{type(param).__name__}"
                )
            if not param.is_leaf:
                raise ValueError("can't optimize a non-leaf Tensor")

        _check_clip_options(param_group)
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(f"parameter group didn't specify a value of required optimization parameter {name}")
            param_group.setdefault(name, default)

        new_ids = [id(p) for p in tensors]
        if len(new_ids) != len(set(new_ids)):
            warnings.warn(
                "optimizer contains a parameter group with duplicate parameters; in future, this will cause an error",
                stacklevel=3,
            )
        existing: set[int] = set()
        for group in self.param_groups:
            existing.update(id(p) for p in group["params"])
            if ("param_names" in param_group) != ("param_names" in group):
                which = "with names" if "param_names" in param_group else "without names"
                raise ValueError(
                    "all optimizer param groups should be with/without names. "
                    f"cannot add param group {which} to the optimizer"
                )
        if not existing.isdisjoint(new_ids):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)
        # A parameter standing for state kept elsewhere (oneflow.one_embedding's tables) learns of
        # the optimizers that hold it, to apply their updates there (e.g. with a step hook).
        for param in tensors:
            attach = getattr(param, "_attach_optimizer", None)
            if attach is not None:
                attach(self)

    # -- gradients and steps ---------------------------------------------------------------

    def clip_grad(self, error_if_nonfinite: bool = True) -> None:
        r"""Clips each parameter group's gradients by their joint norm. OneFlow's method.

        A group that sets both ``"clip_grad_max_norm"`` and ``"clip_grad_norm_type"``
        has its gradients rescaled in place as by
        :func:`oneflow.nn.utils.clip_grad_norm_` (one norm over the group's gradients,
        as if concatenated); a group without them is left as it is, with a warning.
        Call it between ``backward()`` and :meth:`step`.

        Args:
            error_if_nonfinite (bool): raise when a group's norm is nan or inf (default:
                ``True``, as OneFlow's ``clip_grad``).

        Example::

            >>> opt = flow.optim.SGD([{"params": model.parameters(), "clip_grad_max_norm": 1.0,
            ...                        "clip_grad_norm_type": 2.0}], lr=0.1)
            >>> loss.backward(); opt.clip_grad(); opt.step()
        """
        from oneflow.nn.utils.clip_grad import clip_grad_norm_

        for i, group in enumerate(self.param_groups):
            if "clip_grad_max_norm" in group and "clip_grad_norm_type" in group:
                params = [p for p in group["params"] if p.grad is not None]
                if params:
                    clip_grad_norm_(
                        params,
                        float(group["clip_grad_max_norm"]),
                        float(group["clip_grad_norm_type"]),
                        error_if_nonfinite=error_if_nonfinite,
                    )
            else:
                warnings.warn(
                    f"{type(self).__name__}.clip_grad: param_groups[{i}] sets no 'clip_grad_max_norm' "
                    "and 'clip_grad_norm_type', so its gradients are not clipped: pass both when "
                    "building the optimizer",
                    UserWarning,
                    stacklevel=2,
                )

    def zero_grad(self, set_to_none: bool = True) -> None:
        r"""Resets the gradients of all optimized tensors.

        Args:
            set_to_none (bool): set the gradients to ``None`` instead of filling
                them with zeros (default: ``True``). Optimizers skip parameters
                whose gradient is ``None``, but step with a zero gradient.
        """
        for group in self.param_groups:
            for p in group["params"]:
                grad = p.grad
                if grad is None:
                    continue
                if set_to_none:
                    p.grad = None
                    continue
                if grad.grad_fn is not None:
                    # A gradient recorded with create_graph: cut it from its graph first.
                    grad = grad.detach()
                    p.grad = grad
                else:
                    grad.requires_grad_(False)
                grad.zero_()

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        r"""Performs a single optimization step (parameter update).

        Args:
            closure (Callable, optional): re-evaluates the model and returns the
                loss; it runs with gradients enabled.
        """
        raise NotImplementedError

    @staticmethod
    def _eval_closure(closure: Callable[[], Any] | None) -> Any:
        if closure is None:
            return None
        with oneflow.enable_grad():
            return closure()

    # -- hooks -----------------------------------------------------------------------------

    def register_step_pre_hook(self, hook: Callable) -> RemovableHandle:
        r"""Registers ``hook(optimizer, args, kwargs) -> None or (args, kwargs)`` to run before each step."""
        return _add_hook(self._optimizer_step_pre_hooks, hook, False)

    def register_step_post_hook(self, hook: Callable) -> RemovableHandle:
        r"""Registers ``hook(optimizer, args, kwargs) -> None`` to run after each step."""
        return _add_hook(self._optimizer_step_post_hooks, hook, False)

    def register_state_dict_pre_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        r"""Registers ``hook(optimizer) -> None`` to run before :meth:`state_dict` builds its result."""
        return _add_hook(self._optimizer_state_dict_pre_hooks, hook, prepend)

    def register_state_dict_post_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        r"""Registers ``hook(optimizer, state_dict) -> state_dict or None`` to run on :meth:`state_dict`'s result."""
        return _add_hook(self._optimizer_state_dict_post_hooks, hook, prepend)

    def register_load_state_dict_pre_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        r"""Registers ``hook(optimizer, state_dict) -> state_dict or None`` to run before loading."""
        return _add_hook(self._optimizer_load_state_dict_pre_hooks, hook, prepend)

    def register_load_state_dict_post_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        r"""Registers ``hook(optimizer) -> None`` to run after :meth:`load_state_dict`."""
        return _add_hook(self._optimizer_load_state_dict_post_hooks, hook, prepend)

    # -- state dicts -----------------------------------------------------------------------

    def state_dict(self) -> dict[str, Any]:
        r"""Returns the optimizer's state as a dict with two entries.

        * ``state``: the per-parameter state, keyed by parameter id.
        * ``param_groups``: a list of the groups' hyper-parameters, each with
          ``params``, the list of its parameters' ids.

        Ids number the parameters in group order from 0, as PyTorch does. The
        state tensors are not copied.
        """
        for hook in self._optimizer_state_dict_pre_hooks.values():
            hook(self)
        ids: dict[int, int] = {}
        next_id = 0

        def pack(group: dict[str, Any]) -> dict[str, Any]:
            nonlocal next_id
            packed = {k: v for k, v in group.items() if k != "params"}
            for i, p in enumerate(group["params"], next_id):
                ids.setdefault(id(p), i)
            packed["params"] = [ids[id(p)] for p in group["params"]]
            next_id += len(packed["params"])
            return packed

        param_groups = [pack(g) for g in self.param_groups]
        state = {(ids[id(k)] if isinstance(k, Tensor) else k): v for k, v in self.state.items()}
        state_dict = {"state": state, "param_groups": param_groups}
        for hook in self._optimizer_state_dict_post_hooks.values():
            result = hook(self, state_dict)
            if result is not None:
                state_dict = result
        return state_dict

    @staticmethod
    def _cast_state(param: Tensor, value: Any, key: Any = None) -> Any:
        """``value`` with its tensors moved to ``param``'s device (and floating dtype).

        ``step`` keeps its own dtype: it counts steps, and casting it to a
        low-precision parameter dtype would lose counts.
        """
        if isinstance(value, Tensor):
            if key == "step":
                return value
            if param.is_floating_point():
                return value.to(dtype=param.dtype, device=param.device)
            return value.to(device=param.device)
        if isinstance(value, dict):
            return {k: Optimizer._cast_state(param, v, k) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return type(value)(Optimizer._cast_state(param, v) for v in value)
        return value

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        r"""Loads a state produced by :meth:`state_dict` (here or by ``torch.optim``, with its tensors converted).

        The groups must match this optimizer's in number and size; parameters
        are matched by position. State tensors are cast to their parameter's
        device and (for floating parameters) dtype, except ``step``.

        Args:
            state_dict (dict): the optimizer state.
        """
        state_dict = dict(state_dict)
        for hook in self._optimizer_load_state_dict_pre_hooks.values():
            result = hook(self, state_dict)
            if result is not None:
                state_dict = result

        groups = self.param_groups
        saved_groups = deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError(
                "loaded state dict contains a parameter group that doesn't match the size of optimizer's group"
            )

        id_map = dict(
            zip(
                chain.from_iterable(g["params"] for g in saved_groups),
                chain.from_iterable(g["params"] for g in groups),
            )
        )
        state: defaultdict[Any, Any] = defaultdict(dict)
        for key, value in state_dict["state"].items():
            if key in id_map:
                param = id_map[key]
                state[param] = self._cast_state(param, value)
            else:
                state[key] = value

        new_groups = []
        for group, saved in zip(groups, saved_groups):
            saved["params"] = group["params"]
            if "param_names" in group and "param_names" not in saved:
                saved["param_names"] = group["param_names"]
            new_groups.append(saved)
        self.__setstate__({"state": state, "param_groups": new_groups})

        for hook in self._optimizer_load_state_dict_post_hooks.values():
            hook(self)

    # -- helpers for subclasses --------------------------------------------------------------

    def _grads(self, group: dict[str, Any]) -> list[tuple[Tensor, Tensor, dict]]:
        """(param, grad, state) for the group's parameters that have a gradient."""
        out = []
        for p in group["params"]:
            grad = p.grad
            if grad is not None:
                out.append((p, grad, self.state[p]))
        return out
