"""``oneflow.linalg``: PyTorch's ``torch.linalg`` on the native CPU decompositions.

Inverses, determinants and solves factor with LU and partial pivoting,
``qr`` with Householder reflections, ``svd`` with one-sided Jacobi and ``eigh``
with cyclic Jacobi, all batched over leading dims (float32 and float64; float32
is computed in float64 and rounded once). The ops live in
``ops/defs/linalg_more.cc``; these functions map PyTorch's arguments onto them
and raise :class:`LinAlgError` (a ``RuntimeError``) where PyTorch does: for a
singular matrix in ``inv``/``solve`` and a matrix that is not positive-definite
in ``cholesky``.
"""

from __future__ import annotations

import builtins
import functools

import oneflow
from oneflow import _C, return_types

__all__ = [
    "LinAlgError",
    "cholesky",
    "cross",
    "det",
    "diagonal",
    "eigh",
    "eigvalsh",
    "inv",
    "matmul",
    "matrix_norm",
    "norm",
    "qr",
    "slogdet",
    "solve",
    "solve_triangular",
    "svd",
    "svdvals",
    "vector_norm",
]


class _LinAlgError(RuntimeError):
    """A linear algebra routine failed on its input (a singular matrix, a matrix that
    is not positive-definite). The name matches ``torch.linalg.LinAlgError``'s."""


_LinAlgError.__module__ = "oneflow.linalg"
LinAlgError = _LinAlgError

# Messages of the kernels' numerical failures (ops/cpu/linalg_more_kernels.cc).
_FAILURES = ("input matrix is singular", "is not positive-definite")


def _raises_linalg_error(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except RuntimeError as e:
            if type(e) is RuntimeError and any(m in str(e) for m in _FAILURES):
                raise LinAlgError(str(e)) from None
            raise

    return wrapper


@_raises_linalg_error
def inv(A) -> oneflow.Tensor:
    """The inverse of each square matrix in ``A``."""
    return _C.ops._linalg_inv(A)


def det(A) -> oneflow.Tensor:
    """The determinant of each square matrix in ``A``."""
    return _C.ops._linalg_det(A)


def slogdet(A):
    """``(sign, logabsdet)`` of the determinant of each square matrix in ``A``."""
    sign, logabsdet = _C.ops._linalg_slogdet(A)
    return return_types.make("linalg_slogdet", ("sign", "logabsdet"), (sign, logabsdet))


@_raises_linalg_error
def solve(A, B, *, left: builtins.bool = True) -> oneflow.Tensor:
    """The solution X of ``A X = B`` (``X A = B`` with ``left=False``); B may be a
    (batch of) vector(s); batch dims broadcast."""
    return _C.ops._linalg_solve(A, B, left=left)


def solve_triangular(A, B, *, upper: builtins.bool, left: builtins.bool = True,
                     unitriangular: builtins.bool = False) -> oneflow.Tensor:
    """The solution X of ``A X = B`` for triangular ``A`` (only its ``upper`` or lower
    triangle is read; its diagonal is taken as ones with ``unitriangular``)."""
    return _C.ops._linalg_solve_triangular(A, B, upper=upper, left=left, unitriangular=unitriangular)


@_raises_linalg_error
def cholesky(A, *, upper: builtins.bool = False) -> oneflow.Tensor:
    """The lower Cholesky factor L (``A = L L^T``), or the upper one U (``A = U^T U``)."""
    return _C.ops._linalg_cholesky(A, upper=upper)


def qr(A, mode: str = "reduced"):
    """``(Q, R)`` with ``A = Q R``: ``mode`` is ``"reduced"``, ``"complete"`` or ``"r"``
    (R only; Q is empty)."""
    q, r = _C.ops._linalg_qr(A, mode)
    return return_types.make("linalg_qr", ("Q", "R"), (q, r))


def svd(A, full_matrices: builtins.bool = True):
    """``(U, S, Vh)`` with ``A = U diag(S) Vh``, S descending."""
    u, s, vh = _C.ops._linalg_svd(A, full_matrices)
    return return_types.make("linalg_svd", ("U", "S", "Vh"), (u, s, vh))


def svdvals(A) -> oneflow.Tensor:
    """The singular values of each matrix in ``A``, descending."""
    return _C.ops._linalg_svdvals(A)


def eigh(A, UPLO: str = "L"):
    """``(eigenvalues, eigenvectors)`` of each symmetric matrix in ``A`` (read from its
    lower triangle, or upper with ``UPLO="U"``), eigenvalues ascending."""
    w, v = _C.ops._linalg_eigh(A, UPLO)
    return return_types.make("linalg_eigh", ("eigenvalues", "eigenvectors"), (w, v))


def eigvalsh(A, UPLO: str = "L") -> oneflow.Tensor:
    """The eigenvalues of each symmetric matrix in ``A``, ascending."""
    return _C.ops._linalg_eigvalsh(A, UPLO)


def vector_norm(x, ord=2, dim=None, keepdim: builtins.bool = False, *, dtype=None) -> oneflow.Tensor:
    """The ``ord``-norm of ``x`` over ``dim`` (all of it when None) as a vector."""
    return _C.ops._linalg_vector_norm(x, ord, dim, keepdim, dtype=dtype)


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim: builtins.bool = False, *, dtype=None) -> oneflow.Tensor:
    """The matrix norm over the two dims ``dim``: ``"fro"``, ``"nuc"``, +-1, +-2, +-inf."""
    return _C.ops._linalg_matrix_norm(A, ord, list(dim), keepdim, dtype=dtype)


def norm(A, ord=None, dim=None, keepdim: builtins.bool = False, *, dtype=None) -> oneflow.Tensor:
    """A matrix norm (string ``ord``, a 2-tuple ``dim``, or ``ord`` for a 2-D input) or
    a vector norm (of the flattened input when neither ``ord`` nor ``dim`` is given)."""
    return _C.ops._linalg_norm(A, ord, dim, keepdim, dtype=dtype)


def cross(input, other, *, dim: int = -1) -> oneflow.Tensor:
    """The cross product along ``dim`` (of size 3); batch dims broadcast."""
    return _C.ops.cross(input, other, dim)


def diagonal(A, *, offset: int = 0, dim1: int = -2, dim2: int = -1) -> oneflow.Tensor:
    """A view of the diagonals of the matrices in ``A``."""
    return _C.ops.diagonal(A, offset, dim1, dim2)


def matmul(input, other) -> oneflow.Tensor:
    """``oneflow.matmul``."""
    return _C.ops.matmul(input, other)
