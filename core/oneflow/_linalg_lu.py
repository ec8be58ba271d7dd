"""LU, Cholesky-with-info and LDL factorizations behind ``oneflow.linalg`` (issue 16).

The LU is Gaussian elimination with partial pivoting written with tensor ops, one column per step,
batched over leading dims: each step is differentiable, so the factors get the gradient PyTorch
derives for ``lu_factor`` (the pivots are integer outputs). Pivots follow LAPACK's ``getrf``:
1-based int32 row interchanges, the first row of largest magnitude chosen. The ``*_ex`` variants
report failures in ``info`` as LAPACK does and raise only with ``check_errors=True``.
"""

from __future__ import annotations

import oneflow
from oneflow import return_types


def _check_float_matrix(name: str, A, what: str = "A", square: bool = False) -> None:
    if not isinstance(A, oneflow.Tensor):
        raise TypeError(f"{name}(): argument '{what}' must be Tensor, not {type(A).__name__}")
    if A.dim() < 2:
        raise RuntimeError(f"{name}: The input tensor {what} must have at least 2 dimensions.")
    if A.dtype not in (oneflow.float32, oneflow.float64):
        raise RuntimeError(f"{name}: Expected a floating point tensor as input ({what}). Got {A.dtype}")
    if square and A.shape[-1] != A.shape[-2]:
        raise RuntimeError(
            f"{name}: {what} must be batches of square matrices, but they are {A.shape[-2]} by {A.shape[-1]} matrices"
        )


def _batch_label(info, i: int) -> str:
    return f"(Batch element {i}): " if info.dim() else ""


def _first_failure(info):
    """(flat batch index, code) of the first nonzero entry of ``info``, or None."""
    flat = info.reshape(-1).tolist()
    for i, code in enumerate(flat):
        if code != 0:
            return i, code
    return None


def _lu_steps(A):
    """(LU, pivots as int64 0-based, info) of Gaussian elimination with partial pivoting.

    Step j only touches rows j.. (``W``, all columns: a row swap moves its L part too); row j is
    final after it, so the finished rows are set aside and joined at the end."""
    m, n = A.shape[-2], A.shape[-1]
    batch = tuple(A.shape[:-2])
    k = min(m, n)
    info = oneflow.zeros(batch, dtype=oneflow.int32, device=A.device)
    pivots, done = [], []
    W = A
    for j in range(k):
        rows = oneflow.arange(m - j, device=A.device)
        p = W[..., :, j].abs().argmax(-1)  # LAPACK takes the first largest magnitude
        pivots.append(p + j)
        pc = p.unsqueeze(-1)
        order = oneflow.where(rows == 0, pc, oneflow.where(rows == pc, oneflow.zeros_like(pc), rows))
        W = oneflow.gather(W, -2, order.unsqueeze(-1).expand(*batch, m - j, n))
        d = W[..., 0, j]
        zero = d == 0
        info = oneflow.where((info == 0) & zero, oneflow.full_like(info, j + 1), info)
        top, rest = W[..., :1, :], W[..., 1:, :]
        # A zero pivot has a zero column below it (it is the largest): LAPACK leaves it unscaled.
        f = rest[..., :, j : j + 1] / oneflow.where(zero, oneflow.ones_like(d), d).unsqueeze(-1).unsqueeze(-1)
        trailing = rest[..., :, j + 1 :] - f * top[..., :, j + 1 :]
        done.append(top)
        W = oneflow.cat([rest[..., :, :j], f, trailing], -1)
    LU = oneflow.cat([*done, W], -2) if done else A
    piv = oneflow.stack(pivots, -1) if pivots else oneflow.zeros((*batch, 0), dtype=oneflow.int64, device=A.device)
    return LU, piv, info


def _check_pivot(name: str, pivot: bool) -> None:
    if not pivot:
        raise RuntimeError(f"{name}: LU without pivoting is not implemented on the CPU")


def lu_factor_ex(A, *, pivot: bool = True, check_errors: bool = False):
    """``(LU, pivots, info)``: the compact LU factorization with partial pivoting of each matrix in
    ``A`` (``A = P L U``), its 1-based int32 row interchanges and LAPACK's ``info`` (``i`` when
    ``U[i-1, i-1]`` is zero, else 0).

    Example::

        >>> LU, pivots, info = oneflow.linalg.lu_factor_ex(oneflow.tensor([[0.0, 1.0], [2.0, 3.0]]))
        >>> pivots
        tensor([2, 2], dtype=oneflow.int32)
    """
    _check_float_matrix("torch.linalg.lu_factor_ex", A)
    _check_pivot("linalg.lu_factor", pivot)
    LU, piv, info = _lu_steps(A)
    if check_errors:
        _raise_on_zero_pivot("torch.linalg.lu_factor_ex", info)
    return return_types.make("linalg_lu_factor_ex", ("LU", "pivots", "info"), (LU, (piv + 1).to(oneflow.int32), info))


def _raise_on_zero_pivot(name: str, info) -> None:
    bad = _first_failure(info)
    if bad is not None:
        i, code = bad
        raise RuntimeError(
            f"{name}: {_batch_label(info, i)}U[{code},{code}] is zero and using it on lu_solve would "
            "result in a division by zero. If you still want to perform the factorization, consider "
            "calling linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)"
        )


def lu_factor(A, *, pivot: bool = True):
    """``(LU, pivots)``: the compact LU factorization of each matrix in ``A`` (see
    :func:`lu_factor_ex`); raises when a ``U`` has a zero on its diagonal."""
    _check_float_matrix("torch.linalg.lu_factor", A)
    _check_pivot("linalg.lu_factor", pivot)
    LU, piv, info = _lu_steps(A)
    _raise_on_zero_pivot("torch.linalg.lu_factor", info)
    return return_types.make("linalg_lu_factor", ("LU", "pivots"), (LU, (piv + 1).to(oneflow.int32)))


def _permutation(pivots, m: int):
    """The row order ``perm`` (``(P^T A)[i] = A[perm[i]]``) of LAPACK's 1-based interchanges."""
    batch = tuple(pivots.shape[:-1])
    rows = oneflow.arange(m, device=pivots.device)
    perm = rows.expand(*batch, m)
    piv = pivots.to(oneflow.int64) - 1
    for i in range(pivots.shape[-1]):
        p = piv[..., i : i + 1]
        at_p = oneflow.gather(perm, -1, p)
        at_i = perm[..., i : i + 1]
        perm = oneflow.where(rows == i, at_p, oneflow.where(rows == p, at_i, perm))
    return perm


def _check_pivots(name: str, LU, pivots) -> None:
    if not isinstance(pivots, oneflow.Tensor) or pivots.dtype != oneflow.int32:
        got = pivots.dtype if isinstance(pivots, oneflow.Tensor) else type(pivots).__name__
        raise RuntimeError(f"{name}: pivots should be a Tensor of scalar type torch.int32, got {got}")
    k = min(LU.shape[-2], LU.shape[-1])
    if tuple(pivots.shape) != (*LU.shape[:-2], k):
        raise RuntimeError(
            f"{name}: expected pivots of shape {[*LU.shape[:-2], k]} for LU of shape {list(LU.shape)}, "
            f"got {list(pivots.shape)}"
        )


def lu_unpack(LU_data, LU_pivots, unpack_data: bool = True, unpack_pivots: bool = True):
    """``(P, L, U)`` from the compact ``(LU, pivots)`` of :func:`lu_factor` (``A = P L U``); the
    parts not asked for (``unpack_data``/``unpack_pivots`` False) are empty tensors."""
    _check_float_matrix("torch.lu_unpack", LU_data, "LU_data")
    _check_pivots("torch.lu_unpack", LU_data, LU_pivots)
    m, n = LU_data.shape[-2], LU_data.shape[-1]
    k = min(m, n)
    empty = LU_data.new_empty(0)
    if unpack_data:
        eye = oneflow.eye(m, k, dtype=LU_data.dtype, device=LU_data.device)
        L = LU_data[..., :, :k].tril(-1) + eye
        U = LU_data[..., :k, :].triu()
    else:
        L = U = empty
    if unpack_pivots:
        perm = _permutation(LU_pivots, m)
        rows = oneflow.arange(m, device=LU_data.device)
        P = (perm.unsqueeze(-2) == rows.unsqueeze(-1)).to(LU_data.dtype)
    else:
        P = empty
    return return_types.make("lu_unpack", ("P", "L", "U"), (P, L, U))


def lu(A, *, pivot: bool = True):
    """``(P, L, U)`` with ``A = P L U``: P a permutation, L unit lower triangular (m x k) and U upper
    triangular (k x n), k = min(m, n); differentiable in L and U."""
    _check_float_matrix("torch.linalg.lu", A)
    _check_pivot("linalg.lu", pivot)
    LU, piv, _ = _lu_steps(A)
    P, L, U = lu_unpack(LU, (piv + 1).to(oneflow.int32))
    return return_types.make("linalg_lu", ("P", "L", "U"), (P, L, U))


def lu_solve(LU, pivots, B, *, left: bool = True, adjoint: bool = False):
    """The solution X of ``A X = B`` (``X A = B`` with ``left=False``; ``A^H`` for ``A`` with
    ``adjoint=True``) for ``A`` given by its :func:`lu_factor` ``(LU, pivots)``."""
    name = "linalg.lu_solve"
    _check_float_matrix(name, LU, "LU", square=True)
    _check_float_matrix(name, B, "B")
    _check_pivots(name, LU, pivots)
    if LU.dtype != B.dtype:
        raise RuntimeError(
            f"{name}: Expected LU and B to have the same dtype, but found LU of type "
            f"{LU.dtype} and B of type {B.dtype} instead"
        )
    n = LU.shape[-1]
    if (B.shape[-2] if left else B.shape[-1]) != n:
        eq = "AX = B" if left else "XA = B"
        raise RuntimeError(
            f"{name}: Incompatible shapes of A and B for the equation {eq} ({n}x{n} and {B.shape[-2]}x{B.shape[-1]})"
        )
    if not left:
        # X A = B  <=>  A^T X^T = B^T.
        return lu_solve(LU, pivots, B.mT, left=True, adjoint=not adjoint).mT
    batch = oneflow.broadcast_shapes(tuple(LU.shape[:-2]), tuple(B.shape[:-2]))
    LU = LU.expand(*batch, n, n)
    B = B.expand(*batch, *B.shape[-2:])
    perm = _permutation(pivots.expand(*batch, n), n)
    index = perm.unsqueeze(-1).expand(*batch, n, B.shape[-1])
    solve = oneflow.linalg.solve_triangular
    if not adjoint:
        # A = P L U: X = U^-1 L^-1 P^T B, with (P^T B)[i] = B[perm[i]].
        y = solve(LU, oneflow.gather(B, -2, index), upper=False, unitriangular=True)
        return solve(LU, y, upper=True)
    # A^T = U^T L^T P^T: X = P L^-T U^-T B, and (P Z)[perm[i]] = Z[i].
    z = solve(LU.mT, B, upper=False)
    z = solve(LU.mT, z, upper=True, unitriangular=True)
    return oneflow.zeros_like(z).scatter(-2, index, z)


def _lu_info(name: str, A):
    _check_float_matrix(name, A, square=True)
    return _lu_steps(A)


def inv_ex(A, *, check_errors: bool = False):
    """``(inverse, info)``: the inverse of each square matrix in ``A`` and LAPACK's ``info`` (``i``
    when ``U[i-1, i-1]`` of its LU is zero, the matrix being singular; else 0)."""
    LU, piv, info = _lu_info("linalg.inv_ex", A)
    bad = _first_failure(info)
    if bad is not None and check_errors:
        i, code = bad
        raise oneflow.linalg.LinAlgError(
            f"linalg.inv_ex: {_batch_label(info, i)}The diagonal element {code} is zero, the "
            "inversion could not be completed because the input matrix is singular."
        )
    if bad is None:
        inverse = oneflow.linalg.inv(A)
    else:
        eye = oneflow.eye(A.shape[-1], dtype=A.dtype, device=A.device)
        inverse = lu_solve(LU, (piv + 1).to(oneflow.int32), eye.expand_as(A))
    return return_types.make("linalg_inv_ex", ("inverse", "info"), (inverse, info))


def solve_ex(A, B, *, left: bool = True, check_errors: bool = False):
    """``(result, info)``: the solution of ``A X = B`` (``X A = B`` with ``left=False``) and
    LAPACK's ``info`` of the LU of ``A`` (nonzero where ``A`` is singular)."""
    LU, piv, info = _lu_info("linalg.solve_ex", A)
    bad = _first_failure(info)
    if bad is not None and check_errors:
        raise oneflow.linalg.LinAlgError(
            f"torch.linalg.solve_ex: {_batch_label(info, bad[0])}The solver failed because the input "
            "matrix is singular."
        )
    if bad is None:
        result = oneflow.linalg.solve(A, B, left=left)
    else:
        vector = B.dim() == 1 or (left and B.dim() == A.dim() - 1 and tuple(B.shape) == tuple(A.shape[:-1]))
        b = B.unsqueeze(-1) if vector else B
        result = lu_solve(LU, (piv + 1).to(oneflow.int32), b, left=left)
        result = result.squeeze(-1) if vector else result
    return return_types.make("linalg_solve_ex", ("result", "info"), (result, info))


def _cholesky_steps(A):
    """(lower factor, info) of a right-looking Cholesky; a failing matrix stops where LAPACK does,
    its non-positive pivot left on the diagonal."""
    n = A.shape[-1]
    batch = tuple(A.shape[:-2])
    rows = oneflow.arange(n, device=A.device)
    info = oneflow.zeros(batch, dtype=oneflow.int32, device=A.device)
    A = A.tril()
    for j in range(n):
        active = info == 0
        d = A[..., j, j]
        fails = active & ~(d > 0)
        info = oneflow.where(fails, oneflow.full_like(info, j + 1), info)
        go = (info == 0).unsqueeze(-1)
        root = oneflow.where(go.squeeze(-1), d, oneflow.ones_like(d)).sqrt()
        col = A[..., :, j] / root.unsqueeze(-1)
        col = oneflow.where(rows > j, col, oneflow.zeros_like(col))
        update = col.unsqueeze(-1) * col.unsqueeze(-2)
        new = (A - update).tril()
        new = oneflow.where((rows > j).unsqueeze(-1) & (rows == j), col.unsqueeze(-1), new)
        new = oneflow.where((rows == j).unsqueeze(-1) & (rows == j), root.view(*batch, 1, 1).expand_as(A), new)
        A = oneflow.where(go.unsqueeze(-1), new, A)
    return A, info


def cholesky_ex(A, *, upper: bool = False, check_errors: bool = False):
    """``(L, info)``: the Cholesky factor of each symmetric positive-definite matrix in ``A``
    (``U`` with ``upper=True``) and LAPACK's ``info`` (``i`` when the leading minor of order ``i``
    is not positive-definite; else 0)."""
    _check_float_matrix("linalg.cholesky_ex", A, square=True)
    try:
        L = oneflow.linalg.cholesky(A, upper=upper)
        info = oneflow.zeros(tuple(A.shape[:-2]), dtype=oneflow.int32, device=A.device)
    except oneflow.linalg.LinAlgError:
        L, info = _cholesky_steps(A.mT if upper else A)
        L = L.mT if upper else L
        bad = _first_failure(info)
        if check_errors:
            raise oneflow.linalg.LinAlgError(
                f"linalg.cholesky_ex: {_batch_label(info, bad[0])}The factorization could not be "
                "completed because the input is not positive-definite (the leading minor of order "
                f"{bad[1]} is not positive-definite)."
            ) from None
    return return_types.make("linalg_cholesky_ex", ("L", "info"), (L, info))


def cholesky_solve(B, L, upper: bool = False):
    """The solution X of ``A X = B`` given the Cholesky factor ``L`` of ``A`` (``A = L L^T``, or
    ``A = U^T U`` with ``upper=True``); batch dims broadcast."""
    _check_float_matrix("cholesky_solve", B, "B")
    _check_float_matrix("cholesky_solve", L, "A", square=True)
    if B.shape[-2] != L.shape[-1]:
        raise RuntimeError(
            f"cholesky_solve: Incompatible matrix sizes for cholesky_solve: each A matrix is "
            f"{L.shape[-1]} by {L.shape[-1]} but each b matrix is {B.shape[-2]} by {B.shape[-1]}"
        )
    return _CholeskySolve.apply(B, L, upper)


def _cholesky_solve_forward(B, L, upper: bool):
    lower = L.mT if upper else L
    solve = oneflow.linalg.solve_triangular
    return solve(lower.mT, solve(lower, B, upper=False), upper=True)


class _CholeskySolve(oneflow.autograd.Function):
    # PyTorch's derivative treats the whole factor as a matrix in A = L L^T (A = U^T U), so L gets a
    # full gradient: -(gB X^T + X gB^T) L (-U (...) for upper), with gB = A^-1 gX.
    @staticmethod
    def forward(ctx, B, L, upper):
        with oneflow.no_grad():
            X = _cholesky_solve_forward(B, L, upper)
        ctx.save_for_backward(L, X)
        ctx.upper, ctx.b_shape = upper, tuple(B.shape)
        return X

    @staticmethod
    def backward(ctx, gX):
        L, X = ctx.saved_tensors
        gB = _cholesky_solve_forward(gX, L, ctx.upper)
        common = gB @ X.mT
        common = common + common.mT
        gL = -(L @ common) if ctx.upper else -(common @ L)
        batch_L = tuple(L.shape[:-2])
        if tuple(gL.shape[:-2]) != batch_L:  # L was broadcast against B's batch
            gL = gL.sum_to_size(*batch_L, *L.shape[-2:])
        if tuple(gB.shape) != ctx.b_shape:
            gB = gB.sum_to_size(*ctx.b_shape)
        return gB, gL, None


def cholesky_inverse(L, upper: bool = False):
    """The inverse of ``A`` given its Cholesky factor ``L`` (``A = L L^T``, or ``U^T U`` with
    ``upper=True``)."""
    _check_float_matrix("cholesky_inverse", L, "input", square=True)
    eye = oneflow.eye(L.shape[-1], dtype=L.dtype, device=L.device).expand_as(L)
    return cholesky_solve(eye, L, upper)
