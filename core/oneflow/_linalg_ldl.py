"""The LDL^T factorization of symmetric matrices behind ``oneflow.linalg.ldl_factor`` (issue 16).

Bunch-Kaufman diagonal pivoting as in LAPACK's unblocked ``sytf2`` on the lower triangle: 1x1 and
2x2 blocks in D, pivots 1-based (a negative pair marks a 2x2 block), so ``LD`` and ``pivots``
match PyTorch's. The pivot choices are data dependent and, as in PyTorch, neither the factorization
nor ``ldl_solve`` has a derivative, so both run per matrix on the host in float64.
"""

from __future__ import annotations

import math

import numpy as np

import oneflow
from oneflow import return_types
from oneflow._linalg_lu import _batch_label, _check_float_matrix, _first_failure

_ALPHA = (1.0 + math.sqrt(17.0)) / 8.0


def _sytf2_lower(a: np.ndarray):
    """Factors ``a`` (n x n, float64) in place; returns (pivots, info)."""
    n = a.shape[0]
    ipiv = np.zeros(n, dtype=np.int32)
    info = 0
    k = 0
    while k < n:
        kstep = 1
        absakk = abs(a[k, k])
        if k < n - 1:
            imax = k + 1 + int(np.argmax(np.abs(a[k + 1 :, k])))
            colmax = abs(a[imax, k])
        else:
            imax, colmax = k, 0.0
        if max(absakk, colmax) == 0.0 or math.isnan(absakk):
            info = info or k + 1
            kp = k
        else:
            if absakk >= _ALPHA * colmax:
                kp = k
            else:
                jmax = k + int(np.argmax(np.abs(a[imax, k:imax])))
                rowmax = abs(a[imax, jmax])
                if imax < n - 1:
                    jmax = imax + 1 + int(np.argmax(np.abs(a[imax + 1 :, imax])))
                    rowmax = max(rowmax, abs(a[jmax, imax]))
                if absakk >= _ALPHA * colmax * (colmax / rowmax):
                    kp = k
                elif abs(a[imax, imax]) >= _ALPHA * rowmax:
                    kp = imax
                else:
                    kp, kstep = imax, 2
            kk = k + kstep - 1
            if kp != kk:
                # Swap rows and columns kk and kp of the trailing lower triangle.
                a[kp + 1 :, [kk, kp]] = a[kp + 1 :, [kp, kk]]
                seg = a[kk + 1 : kp, kk].copy()
                a[kk + 1 : kp, kk] = a[kp, kk + 1 : kp]
                a[kp, kk + 1 : kp] = seg
                a[kk, kk], a[kp, kp] = a[kp, kp], a[kk, kk]
                if kstep == 2:
                    a[k + 1, k], a[kp, k] = a[kp, k], a[k + 1, k]
            if kstep == 1:
                if k < n - 1:
                    x = a[k + 1 :, k].copy()
                    a[k + 1 :, k + 1 :] -= np.tril(np.outer(x, x)) / a[k, k]
                    a[k + 1 :, k] = x / a[k, k]
            elif k < n - 2:
                d21 = a[k + 1, k]
                d11 = a[k + 1, k + 1] / d21
                d22 = a[k, k] / d21
                d21 = (1.0 / (d11 * d22 - 1.0)) / d21
                wk = d21 * (d11 * a[k + 2 :, k] - a[k + 2 :, k + 1])
                wkp1 = d21 * (d22 * a[k + 2 :, k + 1] - a[k + 2 :, k])
                a[k + 2 :, k + 2 :] -= np.tril(np.outer(a[k + 2 :, k], wk) + np.outer(a[k + 2 :, k + 1], wkp1))
                a[k + 2 :, k] = wk
                a[k + 2 :, k + 1] = wkp1
        if kstep == 1:
            ipiv[k] = kp + 1
        else:
            ipiv[k] = ipiv[k + 1] = -(kp + 1)
        k += kstep
    return ipiv, info


def _host(t) -> np.ndarray:
    return t.detach().to(oneflow.float64).cpu().numpy().copy()


def ldl_factor_ex(A, *, hermitian: bool = False, check_errors: bool = False):
    """``(LD, pivots, info)``: the Bunch-Kaufman ``A = P L D L^T P^T`` of each symmetric matrix in
    ``A`` (its lower triangle is read) in LAPACK's compact form, and ``info`` (``i`` when ``D[i-1, i-1]``
    is exactly zero, the matrix being singular; else 0)."""
    name = "torch.linalg.ldl_factor_ex"
    _check_float_matrix(name, A, square=True)
    n = A.shape[-1]
    batch = tuple(A.shape[:-2])
    mats = _host(A).reshape(-1, n, n)
    pivots = np.zeros((mats.shape[0], n), dtype=np.int32)
    infos = np.zeros(mats.shape[0], dtype=np.int32)
    for i, a in enumerate(mats):
        pivots[i], infos[i] = _sytf2_lower(a)
    LD = oneflow.tensor(np.tril(mats).reshape(*batch, n, n), dtype=A.dtype, device=A.device)
    piv = oneflow.tensor(pivots.reshape(*batch, n), dtype=oneflow.int32, device=A.device)
    info = oneflow.tensor(infos.reshape(batch), dtype=oneflow.int32, device=A.device)
    if check_errors:
        bad = _first_failure(info)
        if bad is not None:
            raise oneflow.linalg.LinAlgError(
                f"{name}: {_batch_label(info, bad[0])}The factorization could not be completed because "
                f"the input is singular (D[{bad[1]},{bad[1]}] is zero)."
            )
    return return_types.make("linalg_ldl_factor_ex", ("LD", "pivots", "info"), (LD, piv, info))


def ldl_factor(A, *, hermitian: bool = False):
    """``(LD, pivots)`` of :func:`ldl_factor_ex`; raises :class:`LinAlgError` for a singular matrix."""
    LD, pivots, _ = ldl_factor_ex(A, hermitian=hermitian, check_errors=True)
    return return_types.make("linalg_ldl_factor", ("LD", "pivots"), (LD, pivots))


def _sytrs_lower(a: np.ndarray, ipiv: np.ndarray, b: np.ndarray) -> None:
    """Solves ``A X = b`` in place from the compact factorization ``(a, ipiv)``."""
    n = a.shape[0]
    k = 0
    while k < n:  # L D Y = P^T B
        if ipiv[k] > 0:
            kp = ipiv[k] - 1
            b[[k, kp]] = b[[kp, k]]
            b[k + 1 :] -= np.outer(a[k + 1 :, k], b[k])
            b[k] /= a[k, k]
            k += 1
        else:
            kp = -ipiv[k] - 1
            b[[k + 1, kp]] = b[[kp, k + 1]]
            b[k + 2 :] -= np.outer(a[k + 2 :, k], b[k]) + np.outer(a[k + 2 :, k + 1], b[k + 1])
            akm1k = a[k + 1, k]
            akm1, ak = a[k, k] / akm1k, a[k + 1, k + 1] / akm1k
            denom = akm1 * ak - 1.0
            bkm1, bk = b[k] / akm1k, b[k + 1] / akm1k
            b[k], b[k + 1] = (ak * bkm1 - bk) / denom, (akm1 * bk - bkm1) / denom
            k += 2
    k = n - 1
    while k >= 0:  # L^T P^T X = Y
        if ipiv[k] > 0:
            b[k] -= a[k + 1 :, k] @ b[k + 1 :]
            kp = ipiv[k] - 1
            b[[k, kp]] = b[[kp, k]]
            k -= 1
        else:
            b[k] -= a[k + 1 :, k] @ b[k + 1 :]
            b[k - 1] -= a[k + 1 :, k - 1] @ b[k + 1 :]
            kp = -ipiv[k] - 1
            b[[k, kp]] = b[[kp, k]]
            k -= 2


def ldl_solve(LD, pivots, B, *, hermitian: bool = False):
    """The solution X of ``A X = B`` for ``A`` given by its :func:`ldl_factor` ``(LD, pivots)``;
    batch dims broadcast."""
    name = "torch.linalg.ldl_solve"
    _check_float_matrix(name, LD, "LD", square=True)
    _check_float_matrix(name, B, "B")
    if not isinstance(pivots, oneflow.Tensor) or pivots.dtype != oneflow.int32:
        raise RuntimeError(f"{name}: Expected pivots to be integers. Got {getattr(pivots, 'dtype', pivots)}")
    if B.dtype != LD.dtype:
        raise RuntimeError(f"{name}: LD dtype {LD.dtype} does not match b dtype {B.dtype}")
    n = LD.shape[-1]
    if B.shape[-2] != n:
        raise RuntimeError(f"{name}: Incompatible shapes of A and B for the equation AX = B "
                           f"({n}x{n} and {B.shape[-2]}x{B.shape[-1]})")  # fmt: skip
    if tuple(pivots.shape) != (*LD.shape[:-2], n):
        raise RuntimeError(f"{name}: expected pivots of shape {[*LD.shape[:-2], n]}, got {list(pivots.shape)}")
    batch = oneflow.broadcast_shapes(tuple(LD.shape[:-2]), tuple(B.shape[:-2]))
    mats = np.broadcast_to(_host(LD), (*batch, n, n)).reshape(-1, n, n)
    pivs = np.broadcast_to(pivots.cpu().numpy(), (*batch, n)).reshape(-1, n)
    rhs = np.broadcast_to(_host(B), (*batch, n, B.shape[-1])).reshape(-1, n, B.shape[-1]).copy()
    for a, p, b in zip(mats, pivs, rhs):
        _sytrs_lower(a, p, b)
    return oneflow.tensor(rhs.reshape(*batch, n, B.shape[-1]), dtype=B.dtype, device=B.device)
