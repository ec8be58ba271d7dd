"""Weight normalization (https://arxiv.org/abs/1602.07868): a parameter ``w`` is replaced by a
magnitude ``w_g`` and a direction ``w_v``, and recomputed as ``w_g * w_v / ||w_v||`` before every
forward. The same API as ``torch.nn.utils.weight_norm`` / ``remove_weight_norm`` (and OneFlow's)."""

from __future__ import annotations

from typing import Any, TypeVar

import oneflow
from oneflow.nn.modules.module import Module
from oneflow.nn.parameter import Parameter

__all__ = ["WeightNorm", "remove_weight_norm", "weight_norm"]


def _norm_except_dim(v: oneflow.Tensor, dim: int) -> oneflow.Tensor:
    """The 2-norm of ``v`` over every dim but ``dim``, kept with size 1 (``dim=-1``: the whole
    tensor, as in PyTorch, a 0-d tensor)."""
    if dim == -1:
        return oneflow.linalg.vector_norm(v, 2)
    reduce = [d for d in range(v.dim()) if d != dim % v.dim()]
    if not reduce:  # a 1-D weight normalized along its only dim: each element is its own norm
        return v.abs()
    return oneflow.linalg.vector_norm(v, 2, dim=reduce, keepdim=True)


class WeightNorm:
    """The forward pre-hook that recomputes ``module.<name>`` from ``<name>_g`` and ``<name>_v``."""

    name: str
    dim: int

    def __init__(self, name: str, dim: int | None) -> None:
        self.name = name
        self.dim = -1 if dim is None else dim

    def compute_weight(self, module: Module) -> oneflow.Tensor:
        g = getattr(module, self.name + "_g")
        v = getattr(module, self.name + "_v")
        return v * (g / _norm_except_dim(v, self.dim))

    @staticmethod
    def apply(module: Module, name: str, dim: int | None) -> WeightNorm:
        if not isinstance(module, Module):
            raise TypeError(f"weight_norm: module must be an nn.Module, got {type(module).__name__}")
        if not isinstance(name, str):
            raise TypeError(f"weight_norm: name must be a str, got {type(name).__name__}")
        if dim is not None and (isinstance(dim, bool) or not isinstance(dim, int)):
            raise TypeError(f"weight_norm: dim must be an int or None, got {type(dim).__name__}")
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise RuntimeError(f"weight_norm: cannot register two weight_norm hooks on the same parameter {name}")
        weight = module._parameters.get(name) if name in module._parameters else None
        if weight is None:
            raise ValueError(f"weight_norm: module {type(module).__name__} has no parameter named {name!r}")
        if dim is not None and dim != -1 and not -weight.dim() <= dim < weight.dim():
            raise IndexError(f"weight_norm: dim out of range (expected to be in [{-weight.dim()}, "
                             f"{weight.dim() - 1}] for the {weight.dim()}-D parameter {name!r}), got {dim}")
        fn = WeightNorm(name, dim)
        del module._parameters[name]
        with oneflow.no_grad():
            g = _norm_except_dim(weight, fn.dim).clone()
            v = weight.detach().clone()
        module.register_parameter(name + "_g", Parameter(g))
        module.register_parameter(name + "_v", Parameter(v))
        setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module: Module) -> None:
        with oneflow.no_grad():
            weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        setattr(module, self.name, Parameter(weight))

    def __call__(self, module: Module, inputs: Any) -> None:
        setattr(module, self.name, self.compute_weight(module))


T_module = TypeVar("T_module", bound=Module)


def weight_norm(module: T_module, name: str = "weight", dim: int | None = 0) -> T_module:
    r"""Applies weight normalization to the parameter ``name`` of ``module``:

    .. math:: \mathbf{w} = g \dfrac{\mathbf{v}}{\|\mathbf{v}\|}

    The parameter is replaced by ``<name>_g`` (the magnitude) and ``<name>_v`` (the direction);
    a forward pre-hook recomputes ``<name>`` from them before every call.

    Args:
        module: the module holding the parameter.
        name: the parameter's name. Default: ``"weight"``.
        dim: the dim kept by the norm (per output channel with 0); ``None`` normalizes the whole
            tensor. Default: 0.

    Returns:
        ``module``, with the hook registered.

    Example::

        >>> m = flow.nn.utils.weight_norm(flow.nn.Linear(20, 40), name="weight")
        >>> m.weight_g.size(), m.weight_v.size()
        (oneflow.Size([40, 1]), oneflow.Size([40, 20]))
    """
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module: T_module, name: str = "weight") -> T_module:
    """Removes the weight normalization of ``name`` from ``module``: ``<name>`` becomes a plain
    parameter again, holding the current normalized value.

    Raises:
        ValueError: when ``module`` has no weight normalization on ``name``.
    """
    if not isinstance(module, Module):
        raise TypeError(f"remove_weight_norm: module must be an nn.Module, got {type(module).__name__}")
    for key, hook in module._forward_pre_hooks.items():
        if isinstance(hook, WeightNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            return module
    raise ValueError(f"remove_weight_norm: weight_norm of {name!r} not found in {module}")
