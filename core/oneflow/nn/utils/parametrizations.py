"""Ready-made parametrizations built on :mod:`oneflow.nn.utils.parametrize`: ``weight_norm``,
``spectral_norm`` and ``orthogonal``, with the same buffers and state-dict keys as
``torch.nn.utils.parametrizations`` (``parametrizations.weight.original0``/``original1`` for
weight norm, ``parametrizations.weight.original`` plus ``_u``/``_v`` for spectral norm)."""

from __future__ import annotations

import oneflow
import oneflow.nn.functional as F
from oneflow.nn.modules.module import Module
from oneflow.nn.utils import parametrize
from oneflow.nn.utils._orthogonal import _OrthMaps, _Orthogonal
from oneflow.nn.utils.weight_norm import _norm_except_dim

__all__ = ["orthogonal", "spectral_norm", "weight_norm"]


def _named_tensor(module: Module, name: str, fn: str) -> oneflow.Tensor:
    if not isinstance(module, Module):
        raise TypeError(f"{fn}: module must be an nn.Module, got {type(module).__name__}")
    weight = getattr(module, name, None)
    if not isinstance(weight, oneflow.Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    return weight


def orthogonal(
    module: Module, name: str = "weight", orthogonal_map: str | None = None, *, use_trivialization: bool = True
) -> Module:
    r"""Parametrizes the matrix (or batch of matrices) ``module.<name>`` to be orthogonal:
    :math:`Q^T Q = I` when it has more rows than columns, :math:`Q Q^T = I` otherwise.

    The unconstrained tensor is mapped to an orthogonal one by ``"matrix_exp"`` (the
    exponential of a skew-symmetric matrix), ``"cayley"`` (the Cayley transform) or
    ``"householder"`` (a product of Householder reflectors). With ``use_trivialization`` (the
    default) the result is multiplied by a stored orthogonal ``base`` (a buffer of the
    parametrization) that assignment to ``module.<name>`` resets.

    Args:
        module: the module holding the tensor.
        name: the tensor's name. Default: ``"weight"``.
        orthogonal_map: ``"matrix_exp"``, ``"cayley"`` or ``"householder"``. Default:
            ``"matrix_exp"`` for square matrices, ``"householder"`` otherwise.
        use_trivialization: use the dynamic trivialization framework. Default: ``True``.

    Returns:
        ``module``, with the parametrization registered.

    Example::

        >>> m = orthogonal(nn.Linear(20, 40))
        >>> Q = m.weight
        >>> bool(flow.allclose(Q.T @ Q, flow.eye(20), atol=1e-5))
        True
    """
    weight = _named_tensor(module, name, "orthogonal")
    if weight.ndim < 2:
        raise ValueError(f"Expected a matrix or batch of matrices. Got a tensor of {weight.ndim} dimensions.")
    if orthogonal_map is None:
        orthogonal_map = "matrix_exp" if weight.size(-2) == weight.size(-1) else "householder"
    orth_enum = getattr(_OrthMaps, orthogonal_map, None) if isinstance(orthogonal_map, str) else None
    if orth_enum is None:
        raise ValueError(
            f'orthogonal_map has to be one of "matrix_exp", "cayley", "householder". Got: {orthogonal_map}'
        )
    orth = _Orthogonal(weight, orth_enum, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, orth, unsafe=True)
    return module


class _WeightNorm(Module):
    """``weight = g * v / ||v||``, the norm taken over every dim but ``dim`` (the whole tensor
    when ``dim`` is -1)."""

    def __init__(self, dim: int | None = 0) -> None:
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g: oneflow.Tensor, weight_v: oneflow.Tensor) -> oneflow.Tensor:
        return weight_v * (weight_g / _norm_except_dim(weight_v, self.dim))

    def right_inverse(self, weight: oneflow.Tensor) -> tuple[oneflow.Tensor, oneflow.Tensor]:
        return _norm_except_dim(weight, self.dim), weight


def weight_norm(module: Module, name: str = "weight", dim: int | None = 0) -> Module:
    r"""Applies weight normalization to ``module.<name>`` as a parametrization:

    .. math:: \mathbf{w} = g \dfrac{\mathbf{v}}{\|\mathbf{v}\|}

    The magnitude ``g`` and direction ``v`` are stored as
    ``module.parametrizations.<name>.original0`` and ``original1``. A state dict written by the
    old :func:`oneflow.nn.utils.weight_norm` (keys ``<name>_g``/``<name>_v``) still loads.

    Args:
        module: the module holding the tensor.
        name: the tensor's name. Default: ``"weight"``.
        dim: the dim kept by the norm; ``None`` normalizes the whole tensor. Default: 0.

    Returns:
        ``module``, with the parametrization registered.

    Example::

        >>> m = weight_norm(nn.Linear(20, 40))
        >>> m.parametrizations.weight.original0.size()
        oneflow.Size([40, 1])
    """
    weight = _named_tensor(module, name, "weight_norm")
    if dim is not None and (isinstance(dim, bool) or not isinstance(dim, int)):
        raise TypeError(f"weight_norm: dim must be an int or None, got {type(dim).__name__}")
    if dim is not None and dim != -1 and not -weight.dim() <= dim < weight.dim():
        raise IndexError(
            f"weight_norm: dim out of range (expected to be in [{-weight.dim()}, {weight.dim() - 1}]), got {dim}"
        )
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)

    def _weight_norm_compat_hook(
        state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs
    ) -> None:
        g_key, v_key = f"{prefix}{name}_g", f"{prefix}{name}_v"
        if g_key in state_dict and v_key in state_dict:
            state_dict[f"{prefix}parametrizations.{name}.original0"] = state_dict.pop(g_key)
            state_dict[f"{prefix}parametrizations.{name}.original1"] = state_dict.pop(v_key)

    module._register_load_state_dict_pre_hook(_weight_norm_compat_hook)
    return module


class _SpectralNorm(Module):
    """``weight / sigma``, with ``sigma`` the largest singular value of the weight (reshaped to a
    matrix with ``dim`` first) estimated by power iteration on the buffers ``_u`` and ``_v``."""

    def __init__(self, weight: oneflow.Tensor, n_power_iterations: int = 1, dim: int = 0, eps: float = 1e-12) -> None:
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of [-{ndim}, {ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError(
                f"Expected n_power_iterations to be positive, but got n_power_iterations={n_power_iterations}"
            )
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            weight_mat = self._reshape_weight_to_matrix(weight)
            h, w = weight_mat.size()
            u = weight_mat.new_empty(h).normal_(0, 1)
            v = weight_mat.new_empty(w).normal_(0, 1)
            self.register_buffer("_u", F.normalize(u, dim=0, eps=self.eps))
            self.register_buffer("_v", F.normalize(v, dim=0, eps=self.eps))
            # Start from a good estimate, so the first forward is already close to 1-Lipschitz.
            self._power_method(weight_mat, 15)

    def _reshape_weight_to_matrix(self, weight: oneflow.Tensor) -> oneflow.Tensor:
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.dim()) if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, weight_mat: oneflow.Tensor, n_power_iterations: int) -> None:
        with oneflow.no_grad():
            weight_mat = weight_mat.detach()
            for _ in range(n_power_iterations):
                # In place, so that views of the buffers (and the state dict) see the update.
                self._u.copy_(F.normalize(oneflow.mv(weight_mat, self._v), dim=0, eps=self.eps))
                self._v.copy_(F.normalize(oneflow.mv(weight_mat.T, self._u), dim=0, eps=self.eps))

    def forward(self, weight: oneflow.Tensor) -> oneflow.Tensor:
        if weight.ndim == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        u, v = self._u.clone(), self._v.clone()
        sigma = (u * oneflow.mv(weight_mat, v)).sum()
        return weight / sigma

    def right_inverse(self, value: oneflow.Tensor) -> oneflow.Tensor:
        return value


def spectral_norm(
    module: Module, name: str = "weight", n_power_iterations: int = 1, eps: float = 1e-12, dim: int | None = None
) -> Module:
    r"""Applies spectral normalization to ``module.<name>`` as a parametrization:

    .. math:: \mathbf{W}_{SN} = \dfrac{\mathbf{W}}{\sigma(\mathbf{W})}

    :math:`\sigma` is estimated by ``n_power_iterations`` steps of power iteration on every
    forward in training mode (the vectors are the buffers ``_u`` and ``_v`` of
    ``module.parametrizations.<name>[0]``); in eval mode the stored vectors are used as they are.

    Args:
        module: the module holding the tensor.
        name: the tensor's name. Default: ``"weight"``.
        n_power_iterations: power iteration steps per forward. Default: 1.
        eps: epsilon for numerical stability of the normalizations. Default: ``1e-12``.
        dim: the dim of the output channels; default 1 for ``ConvTranspose*d``, else 0.

    Returns:
        ``module``, with the parametrization registered.

    Example::

        >>> m = spectral_norm(nn.Linear(20, 40))
        >>> m.parametrizations.weight.original.size()
        oneflow.Size([40, 20])
    """
    weight = _named_tensor(module, name, "spectral_norm")
    if dim is None:
        conv_transposed = (oneflow.nn.ConvTranspose1d, oneflow.nn.ConvTranspose2d, oneflow.nn.ConvTranspose3d)
        dim = 1 if isinstance(module, conv_transposed) else 0
    parametrize.register_parametrization(module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module
