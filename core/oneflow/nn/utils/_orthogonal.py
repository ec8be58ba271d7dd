"""The orthogonal parametrization behind ``oneflow.nn.utils.parametrizations.orthogonal``, and the
linear-algebra pieces it needs composed from differentiable primitives: the matrix exponential
(scaling and squaring of a Taylor series), the product of Householder reflectors, and the
positive-diagonal QR factor."""

from __future__ import annotations

import math
from enum import Enum, auto

import numpy as np

import oneflow
from oneflow.nn.modules.module import Module


def _eye_like(x: oneflow.Tensor, n: int, k: int | None = None) -> oneflow.Tensor:
    return oneflow.eye(n, n if k is None else k, dtype=x.dtype, device=x.device)


def _matrix_exp(a: oneflow.Tensor) -> oneflow.Tensor:
    """exp(a) of a (batch of) square matrices: a Taylor series of a / 2**s, squared s times,
    with s chosen so that the scaled 1-norm is at most 1/2 (error below the dtype's epsilon)."""
    n = a.size(-1)
    norm = float(a.detach().abs().sum(-2).max()) if a.numel() else 0.0
    s = max(0, math.ceil(math.log2(norm)) + 1) if norm > 0 else 0
    scaled = a / (2.0**s)
    identity = _eye_like(a, n)
    result = identity + scaled
    term = scaled
    for i in range(2, 20):
        term = term @ scaled / i
        result = result + term
    for _ in range(s):
        result = result @ result
    return result


def _householder_product(a: oneflow.Tensor, tau: oneflow.Tensor) -> oneflow.Tensor:
    """The first k columns of H_1 ... H_k, H_i = I - tau_i v_i v_i^T, where v_i is column i of
    the unit lower-triangular part of ``a`` (n x k), as LAPACK's orgqr defines them."""
    n, k = a.size(-2), a.size(-1)
    vectors = a.tril(-1) + _eye_like(a, n, k)
    q = _eye_like(a, n).expand(*a.shape[:-2], n, n)
    for i in range(k):
        v = vectors[..., :, i : i + 1]
        q = q - (q @ v) * tau[..., i : i + 1].unsqueeze(-1) @ v.transpose(-2, -1)
    return q[..., :k]


def _make_orthogonal(a: oneflow.Tensor) -> oneflow.Tensor:
    """The Q factor of a's QR decomposition, signs chosen so that R has a positive diagonal."""
    q, r = oneflow.linalg.qr(a)
    return q * r.diagonal(dim1=-2, dim2=-1).sign().unsqueeze(-2)


def _is_orthogonal(q: oneflow.Tensor) -> bool:
    n, k = q.size(-2), q.size(-1)
    eps = 10.0 * n * float(np.finfo(np.float64 if q.dtype == oneflow.float64 else np.float32).eps)
    return bool(oneflow.allclose(q.transpose(-2, -1) @ q, _eye_like(q, k), atol=eps))


def _geqrf(a: oneflow.Tensor) -> tuple[oneflow.Tensor, oneflow.Tensor]:
    """LAPACK's compact QR (Householder vectors below the diagonal, R on and above it, and the
    reflector scales ``tau``), through NumPy's ``qr(mode="raw")``."""
    data = a.detach().cpu().numpy()
    batch = data.reshape(-1, *data.shape[-2:])
    hs, taus = [], []
    for m in batch:
        h, tau = np.linalg.qr(m, mode="raw")
        hs.append(h.T)
        taus.append(tau)
    h = np.stack(hs).reshape(data.shape)
    tau = np.stack(taus).reshape(*data.shape[:-2], -1)
    return (oneflow.tensor(h, dtype=a.dtype, device=a.device), oneflow.tensor(tau, dtype=a.dtype, device=a.device))


class _OrthMaps(Enum):
    matrix_exp = auto()
    cayley = auto()
    householder = auto()


class _Orthogonal(Module):
    """Maps an unconstrained tensor to an orthogonal one with ``orthogonal_map``, optionally
    composed with an orthogonal ``base`` buffer (dynamic trivialization)."""

    def __init__(self, weight: oneflow.Tensor, orthogonal_map: _OrthMaps, *, use_trivialization: bool = True) -> None:
        super().__init__()
        if weight.is_complex() and orthogonal_map == _OrthMaps.householder:
            raise ValueError("The householder parametrization does not support complex tensors.")
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, x: oneflow.Tensor) -> oneflow.Tensor:
        n, k = x.size(-2), x.size(-1)
        transposed = n < k
        if transposed:
            x = x.transpose(-2, -1)
            n, k = k, n
        if self.orthogonal_map in (_OrthMaps.matrix_exp, _OrthMaps.cayley):
            x = x.tril()
            if n != k:
                zeros = oneflow.zeros(n, n - k, dtype=x.dtype, device=x.device).expand(*x.shape[:-2], n, n - k)
                x = oneflow.cat([x, zeros], dim=-1)
            a = x - x.transpose(-2, -1)
            if self.orthogonal_map == _OrthMaps.matrix_exp:
                q = _matrix_exp(a)
            else:
                identity = _eye_like(a, n)
                q = oneflow.linalg.solve(identity - 0.5 * a, identity + 0.5 * a)
            if n != k:
                q = q[..., :k]
        else:
            a = x.tril(-1)
            tau = 2.0 / (1.0 + (a * a).sum(dim=-2))
            q = _householder_product(a, tau)
            # The sign of each reflector comes from the (integer part of the) diagonal.
            q = q * x.diagonal(dim1=-2, dim2=-1).int().to(q.dtype).unsqueeze(-2)
        if hasattr(self, "base"):
            q = self.base @ q
        if transposed:
            q = q.transpose(-2, -1)
        return q

    def right_inverse(self, q: oneflow.Tensor) -> oneflow.Tensor:
        if q.shape != self.shape:
            raise ValueError(
                f"Expected a matrix or batch of matrices of shape {self.shape}. Got a tensor of shape {q.shape}."
            )
        with oneflow.no_grad():
            q_init = q
            n, k = q.size(-2), q.size(-1)
            transpose = n < k
            if transpose:
                q = q.transpose(-2, -1)
                n, k = k, n
            if not hasattr(self, "base"):
                if self.orthogonal_map in (_OrthMaps.cayley, _OrthMaps.matrix_exp):
                    raise NotImplementedError(
                        "It is not possible to assign to the matrix exponential or the Cayley "
                        "parametrizations when use_trivialization=False."
                    )
                a, tau = _geqrf(q)
                # Diagonal +-1 picks each reflector's sign; a zero tau (no reflection) flips it.
                diag = a.diagonal(dim1=-2, dim2=-1).sign()
                diag = oneflow.where(tau == 0.0, -diag, diag)
                eye = _eye_like(a, a.size(-2), a.size(-1))
                a = a * (1 - eye) + eye * diag.unsqueeze(-2)
                return a.transpose(-2, -1) if transpose else a
            if n == k:
                q = q.clone() if _is_orthogonal(q) else _make_orthogonal(q)
            else:
                extra = oneflow.randn(*q.shape[:-2], n, n - k, dtype=q.dtype, device=q.device)
                q = _make_orthogonal(oneflow.cat([q, extra], dim=-1))
            self.base = q
            rows, cols = q_init.size(-2), q_init.size(-1)
            neg_id = (-_eye_like(q_init, rows, cols)).expand(*q_init.shape).clone()
            return neg_id
