"""Spectral normalization (https://arxiv.org/abs/1802.05957) with a forward pre-hook: the
parameter ``w`` becomes ``w_orig`` plus buffers ``w_u`` and ``w_v`` (the power-iteration
vectors), and ``w = w_orig / sigma`` is recomputed before every forward. The same API and state
dict as ``torch.nn.utils.spectral_norm``; :func:`oneflow.nn.utils.parametrizations.spectral_norm`
is the newer form."""

from __future__ import annotations

from typing import Any, TypeVar

import numpy as np

import oneflow
import oneflow.nn.functional as F
from oneflow.nn.modules.module import Module
from oneflow.nn.parameter import Parameter

__all__ = [
    "SpectralNorm",
    "SpectralNormLoadStateDictPreHook",
    "SpectralNormStateDictHook",
    "remove_spectral_norm",
    "spectral_norm",
]


class SpectralNorm:
    """The forward pre-hook that recomputes ``module.<name>`` from ``<name>_orig``, running
    ``n_power_iterations`` steps of power iteration on ``<name>_u``/``<name>_v`` in training."""

    # Version 1 stores <name>_v; version 0 checkpoints have the normalized weight instead.
    _version: int = 1
    name: str
    dim: int
    n_power_iterations: int
    eps: float

    def __init__(self, name: str = "weight", n_power_iterations: int = 1, dim: int = 0, eps: float = 1e-12) -> None:
        self.name = name
        self.dim = dim
        if n_power_iterations <= 0:
            raise ValueError(
                f"Expected n_power_iterations to be positive, but got n_power_iterations={n_power_iterations}"
            )
        self.n_power_iterations = n_power_iterations
        self.eps = eps

    def reshape_weight_to_matrix(self, weight: oneflow.Tensor) -> oneflow.Tensor:
        """The weight as a matrix with the output dim (``dim``) as its rows."""
        weight_mat = weight
        if self.dim != 0:
            weight_mat = weight_mat.permute(self.dim, *[d for d in range(weight_mat.dim()) if d != self.dim])
        return weight_mat.reshape(weight_mat.size(0), -1)

    def compute_weight(self, module: Module, do_power_iteration: bool) -> oneflow.Tensor:
        """``<name>_orig / sigma``; with ``do_power_iteration`` the buffers ``<name>_u`` and
        ``<name>_v`` are first updated in place."""
        weight = getattr(module, self.name + "_orig")
        u = getattr(module, self.name + "_u")
        v = getattr(module, self.name + "_v")
        weight_mat = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            with oneflow.no_grad():
                mat = weight_mat.detach()
                for _ in range(self.n_power_iterations):
                    v.copy_(F.normalize(oneflow.mv(mat.T, u), dim=0, eps=self.eps))
                    u.copy_(F.normalize(oneflow.mv(mat, v), dim=0, eps=self.eps))
                # Clones, so that the in-place updates of the next forward don't touch tensors
                # this forward's graph saved.
                u, v = u.clone(), v.clone()
        sigma = (u * oneflow.mv(weight_mat, v)).sum()
        return weight / sigma

    def remove(self, module: Module) -> None:
        """Turns ``module.<name>`` back into a plain parameter holding the normalized weight."""
        with oneflow.no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        delattr(module, self.name)
        delattr(module, self.name + "_u")
        delattr(module, self.name + "_v")
        delattr(module, self.name + "_orig")
        module.register_parameter(self.name, Parameter(weight.detach()))

    def __call__(self, module: Module, inputs: Any) -> None:
        setattr(module, self.name, self.compute_weight(module, do_power_iteration=module.training))

    def _solve_v_and_rescale(
        self, weight_mat: oneflow.Tensor, u: oneflow.Tensor, target_sigma: oneflow.Tensor
    ) -> oneflow.Tensor:
        # The v with u^T W v = target_sigma closest to the least-squares solution of W v = u.
        # A one-off conversion at load time, without gradients: NumPy's pseudo-inverse will do.
        gram = (weight_mat.T @ weight_mat).detach().cpu().numpy()
        gram_pinv = oneflow.tensor(np.linalg.pinv(gram), dtype=weight_mat.dtype, device=weight_mat.device)
        v = (gram_pinv @ weight_mat.T @ u.unsqueeze(1)).squeeze(1)
        return v * (target_sigma / (u * oneflow.mv(weight_mat, v)).sum())

    @staticmethod
    def apply(module: Module, name: str, n_power_iterations: int, dim: int, eps: float) -> SpectralNorm:
        """Registers the hook (and the state-dict hooks) on ``module``; returns it."""
        if not isinstance(module, Module):
            raise TypeError(f"spectral_norm: module must be an nn.Module, got {type(module).__name__}")
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, SpectralNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two spectral_norm hooks on the same parameter {name}")
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        if name not in module._parameters:
            raise KeyError(f"spectral_norm: module {type(module).__name__} has no parameter named {name!r}")
        weight = module._parameters[name]
        if weight is None:
            raise ValueError(f"`SpectralNorm` cannot be applied as parameter `{name}` is None")
        if getattr(oneflow.nn.parameter, "is_lazy", lambda _: False)(weight):
            raise ValueError(
                "The module passed to `SpectralNorm` can't have uninitialized parameters. "
                "Make sure to run the dummy forward before applying spectral normalization"
            )
        if not -weight.dim() <= dim < max(weight.dim(), 1):
            raise IndexError(
                f"spectral_norm: dim out of range (expected to be in [{-weight.dim()}, {weight.dim() - 1}]), got {dim}"
            )
        with oneflow.no_grad():
            weight_mat = fn.reshape_weight_to_matrix(weight)
            h, w = weight_mat.size()
            u = F.normalize(weight.new_empty(h).normal_(0, 1), dim=0, eps=fn.eps)
            v = F.normalize(weight.new_empty(w).normal_(0, 1), dim=0, eps=fn.eps)
        delattr(module, fn.name)
        module.register_parameter(fn.name + "_orig", weight)
        # A plain attribute until the first forward replaces it by the normalized weight.
        setattr(module, fn.name, weight.detach())
        module.register_buffer(fn.name + "_u", u)
        module.register_buffer(fn.name + "_v", v)
        module.register_forward_pre_hook(fn)
        module._register_state_dict_hook(SpectralNormStateDictHook(fn))
        module._register_load_state_dict_pre_hook(SpectralNormLoadStateDictPreHook(fn))
        return fn


class SpectralNormLoadStateDictPreHook:
    """Loads version-0 checkpoints (which stored the normalized ``<name>`` but no ``<name>_v``):
    recovers ``<name>_v`` from the stored weight, ``<name>_orig`` and ``<name>_u``."""

    def __init__(self, fn: SpectralNorm) -> None:
        self.fn = fn

    def __call__(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs) -> None:
        fn = self.fn
        version = local_metadata.get("spectral_norm", {}).get(fn.name + ".version", None)
        if version is not None and version >= 1:
            return
        weight_key = prefix + fn.name
        if (
            version is None
            and all(weight_key + s in state_dict for s in ("_orig", "_u", "_v"))
            and weight_key not in state_dict
        ):
            return  # a current checkpoint saved without metadata
        has_missing_keys = False
        for suffix in ("_orig", "", "_u"):
            key = weight_key + suffix
            if key not in state_dict:
                has_missing_keys = True
                if strict:
                    missing_keys.append(key)
        if has_missing_keys:
            return
        with oneflow.no_grad():
            weight_orig = _to_flow(state_dict[weight_key + "_orig"])
            weight = _to_flow(state_dict.pop(weight_key))
            sigma = (weight_orig / weight).mean()
            weight_mat = fn.reshape_weight_to_matrix(weight_orig)
            u = _to_flow(state_dict[weight_key + "_u"])
            state_dict[weight_key + "_v"] = fn._solve_v_and_rescale(weight_mat, u, sigma)


def _to_flow(value: Any) -> oneflow.Tensor:
    return value if isinstance(value, oneflow.Tensor) else oneflow.tensor(value)


class SpectralNormStateDictHook:
    """Records the spectral-norm format version in the state dict's metadata."""

    def __init__(self, fn: SpectralNorm) -> None:
        self.fn = fn

    def __call__(self, module, state_dict, prefix, local_metadata) -> None:
        if "spectral_norm" not in local_metadata:
            local_metadata["spectral_norm"] = {}
        key = self.fn.name + ".version"
        if key in local_metadata["spectral_norm"]:
            raise RuntimeError(f"Unexpected key in metadata['spectral_norm']: {key}")
        local_metadata["spectral_norm"][key] = self.fn._version


T_module = TypeVar("T_module", bound=Module)


def spectral_norm(
    module: T_module, name: str = "weight", n_power_iterations: int = 1, eps: float = 1e-12, dim: int | None = None
) -> T_module:
    r"""Applies spectral normalization to the parameter ``name`` of ``module``:

    .. math:: \mathbf{W}_{SN} = \dfrac{\mathbf{W}}{\sigma(\mathbf{W})}

    :math:`\sigma`, the largest singular value of the weight (reshaped to a matrix), is
    estimated by power iteration before every forward in training mode. The parameter is
    replaced by ``<name>_orig`` and the buffers ``<name>_u`` and ``<name>_v``.

    Args:
        module: the module holding the parameter.
        name: the parameter's name. Default: ``"weight"``.
        n_power_iterations: power iteration steps per forward. Default: 1.
        eps: epsilon for numerical stability of the normalizations. Default: ``1e-12``.
        dim: the output dim; default 1 for ``ConvTranspose*d``, else 0.

    Returns:
        ``module``, with the hook registered.

    Example::

        >>> m = spectral_norm(nn.Linear(20, 40))
        >>> m.weight_u.size()
        oneflow.Size([40])
    """
    if dim is None:
        conv_transposed = (oneflow.nn.ConvTranspose1d, oneflow.nn.ConvTranspose2d, oneflow.nn.ConvTranspose3d)
        dim = 1 if isinstance(module, conv_transposed) else 0
    SpectralNorm.apply(module, name, n_power_iterations, dim, eps)
    return module


def remove_spectral_norm(module: T_module, name: str = "weight") -> T_module:
    r"""Removes the spectral normalization of ``name`` from ``module``: ``<name>`` becomes a plain
    parameter holding the normalized weight (without a further power iteration).

    Raises:
        ValueError: when ``module`` has no spectral normalization on ``name``.
    """
    for key, hook in module._forward_pre_hooks.items():
        if isinstance(hook, SpectralNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            break
    else:
        raise ValueError(f"spectral_norm of '{name}' not found in {module}")
    for key, hook in module._state_dict_hooks.items():
        if isinstance(hook, SpectralNormStateDictHook) and hook.fn.name == name:
            del module._state_dict_hooks[key]
            break
    for key, hook in module._load_state_dict_pre_hooks.items():
        if isinstance(hook, SpectralNormLoadStateDictPreHook) and hook.fn.name == name:
            del module._load_state_dict_pre_hooks[key]
            break
    return module
