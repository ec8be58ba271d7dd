"""Householder reflectors in LAPACK's compact form (issue 16): ``geqrf`` writes them,
``linalg.householder_product``/``orgqr`` multiply them out and ``ormqr`` applies them, plus the
legacy ``triangular_solve``.

A reflector is ``H_i = I - tau_i v_i v_i^T`` with ``v_i`` zero above row ``i``, one at row ``i`` and
column ``i`` of the compact matrix below it; ``Q = H_0 H_1 ... H_{k-1}``. ``geqrf`` picks LAPACK's
signs (``beta = -sign(alpha) * ||x||``), so its output matches PyTorch's; like PyTorch it has no
derivative, while the products are compositions and differentiate in both inputs.
"""

from __future__ import annotations

import oneflow
from oneflow import return_types
from oneflow._linalg_lu import _check_float_matrix


def _reflector(A, i: int):
    """``v_i`` of the compact matrix ``A`` as (..., m)."""
    m = A.shape[-2]
    rows = oneflow.arange(m, device=A.device)
    col = A[..., :, i]
    v = oneflow.where(rows > i, col, oneflow.zeros_like(col))
    return oneflow.where(rows == i, oneflow.ones_like(col), v)


def geqrf(input):
    """``(a, tau)``: the QR factorization of each matrix in ``input`` in LAPACK's compact form, R on
    and above the diagonal of ``a``, the Householder vectors below it and their scales in ``tau``."""
    name = "torch.geqrf"
    if not isinstance(input, oneflow.Tensor) or input.dim() < 2:
        raise RuntimeError(f"{name}: input must have at least 2 dimensions.")
    _check_float_matrix(name, input, "input")
    m, n = input.shape[-2], input.shape[-1]
    k = min(m, n)
    batch = tuple(input.shape[:-2])
    rows = oneflow.arange(m, device=input.device)
    cols = oneflow.arange(n, device=input.device)
    taus = []
    with oneflow.no_grad():
        A = input.clone()
        for j in range(k):
            alpha = A[..., j, j]
            x = oneflow.where(rows > j, A[..., :, j], oneflow.zeros_like(A[..., :, j]))
            xnorm = oneflow.linalg.vector_norm(x, dim=-1)
            flat = xnorm == 0
            sign = oneflow.where(alpha < 0, -oneflow.ones_like(alpha), oneflow.ones_like(alpha))
            beta = -sign * oneflow.sqrt(alpha * alpha + xnorm * xnorm)
            safe_beta = oneflow.where(flat, oneflow.ones_like(beta), beta)
            tau = oneflow.where(flat, oneflow.zeros_like(beta), (beta - alpha) / safe_beta)
            scale = oneflow.where(flat, oneflow.ones_like(beta), 1.0 / (alpha - safe_beta))
            v = oneflow.where(rows == j, oneflow.ones_like(x), x * scale.unsqueeze(-1))
            # Apply H to the columns right of j, then store beta and the vector in column j.
            w = (v.unsqueeze(-1) * A).sum(-2)
            w = oneflow.where(cols > j, w, oneflow.zeros_like(w))
            A = A - tau.unsqueeze(-1).unsqueeze(-1) * v.unsqueeze(-1) * w.unsqueeze(-2)
            column = oneflow.where(
                rows.unsqueeze(-1) == j, oneflow.where(flat, alpha, beta).unsqueeze(-1).unsqueeze(-1), v.unsqueeze(-1)
            )
            column = oneflow.where(rows.unsqueeze(-1) < j, A[..., :, j : j + 1], column)
            A = oneflow.cat([A[..., :, :j], column, A[..., :, j + 1 :]], -1)
            taus.append(tau)
        tau = oneflow.stack(taus, -1) if taus else input.new_zeros(*batch, 0)
    return return_types.make("geqrf", ("a", "tau"), (A, tau))


def _check_reflectors(name: str, A, tau) -> None:
    _check_float_matrix(name, A, "input")
    if not isinstance(tau, oneflow.Tensor) or tau.dim() < 1:
        raise RuntimeError(f"{name}: tau must be a Tensor with at least 1 dimension")
    if tau.shape[-1] > A.shape[-1]:
        raise RuntimeError(f"{name}: input.shape[-1] must be greater than or equal to tau.shape[-1]")
    if tuple(tau.shape[:-1]) != tuple(A.shape[:-2]):
        raise RuntimeError(
            f"{name}: Expected batch dimensions of tau to be equal to input.shape[:-2], but got {list(tau.shape[:-1])}"
        )
    if tau.dtype != A.dtype:
        raise RuntimeError(f"{name}: tau dtype {tau.dtype} does not match input dtype {A.dtype}")


def _apply(A, tau, C, i: int, side: str):
    """``H_i C`` (side ``"left"``) or ``C H_i`` (``"right"``)."""
    v = _reflector(A, i)
    t = tau[..., i].unsqueeze(-1).unsqueeze(-1)
    if side == "left":
        w = (v.unsqueeze(-1) * C).sum(-2, keepdim=True)  # v^T C
        return C - t * v.unsqueeze(-1) * w
    w = (C * v.unsqueeze(-2)).sum(-1, keepdim=True)  # C v
    return C - t * w * v.unsqueeze(-2)


def householder_product(A, tau):
    """The first ``n`` columns of ``H_0 H_1 ... H_{k-1}`` for the Householder vectors in the columns
    of ``A`` (m x n, ``m >= n``) and the scales ``tau`` (k <= n); differentiable in both."""
    name = "torch.linalg.householder_product"
    _check_float_matrix(name, A, "input")
    m, n = A.shape[-2], A.shape[-1]
    if m < n:
        raise RuntimeError(f"{name}: input.shape[-2] must be greater than or equal to input.shape[-1]")
    _check_reflectors(name, A, tau)
    Q = oneflow.eye(m, n, dtype=A.dtype, device=A.device).expand(*A.shape[:-2], m, n)
    for i in reversed(range(tau.shape[-1])):
        Q = _apply(A, tau, Q, i, "left")
    return Q


def orgqr(input, tau):
    """``linalg.householder_product(input, tau)``."""
    return householder_product(input, tau)


def ormqr(input, tau, other, left: bool = True, transpose: bool = False):
    """``Q @ other`` (``other @ Q`` with ``left=False``; ``Q^T`` with ``transpose=True``) for the
    ``Q = H_0 ... H_{k-1}`` of the Householder vectors in ``input`` and scales ``tau``."""
    name = "torch.ormqr"
    _check_reflectors(name, input, tau)
    _check_float_matrix(name, other, "other")
    if other.dim() != input.dim():
        raise RuntimeError(
            f"{name}: Expected other to have the same number of dimensions as input, but got "
            f"other.ndim equal to {other.dim()} and input.ndim is equal to {input.dim()}"
        )
    which = "other.shape[-2]" if left else "other.shape[-1]"
    size = other.shape[-2] if left else other.shape[-1]
    if input.shape[-2] != size:
        raise RuntimeError(f"{name}: {which} must be equal to input.shape[-2]")
    if tau.shape[-1] != min(size, input.shape[-1]):
        raise RuntimeError(f"{name}: tau.shape[-1] must be equal to min({which}, input.shape[-1])")
    if other.dtype != input.dtype:
        raise RuntimeError(f"{name}: other dtype {other.dtype} does not match input dtype {input.dtype}")
    order = list(range(tau.shape[-1]))
    # Q C applies H_{k-1} first; Q^T C and C Q apply H_0 first; C Q^T applies H_{k-1} first.
    if left != transpose:
        order.reverse()
    C = other
    for i in order:
        C = _apply(input, tau, C, i, "left" if left else "right")
    return C


def triangular_solve(b, A, upper: bool = True, transpose: bool = False, unitriangular: bool = False):
    """``(solution, cloned_coefficient)``: the solution X of ``A X = b`` (``A^T X = b`` with
    ``transpose``) for triangular ``A`` (its ``upper`` or lower triangle), and a copy of ``A``."""
    name = "torch.triangular_solve"
    _check_float_matrix(name, b, "self")
    _check_float_matrix(name, A, "A", square=True)
    if b.shape[-2] != A.shape[-1]:
        raise RuntimeError(
            f"{name}: Incompatible matrix sizes for triangular_solve: each A matrix is "
            f"{A.shape[-1]} by {A.shape[-1]} but each b matrix is {b.shape[-2]} by {b.shape[-1]}"
        )
    coefficient = A.mT if transpose else A
    X = oneflow.linalg.solve_triangular(coefficient, b, upper=upper != transpose, unitriangular=unitriangular)
    return return_types.make("triangular_solve", ("solution", "cloned_coefficient"), (X, A.clone()))
