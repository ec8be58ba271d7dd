"""Matrix functions behind ``oneflow.linalg`` (issue 16): ``matrix_exp``, ``matrix_rank``,
``pinv``, ``lstsq``, ``cond``, ``multi_dot``, ``tensorinv``/``tensorsolve``, ``vander`` and
``vecdot``, all compositions of the native decompositions (SVD, eigh, inverse, solve).

``pinv`` (and ``lstsq``, which solves through it) carries the closed-form derivative of the
pseudo-inverse rather than one through the SVD, so it is defined for repeated singular values too.
"""

from __future__ import annotations

import math

import oneflow
from oneflow import return_types
from oneflow._linalg_lu import _check_float_matrix


def matrix_power(A, n: int):
    """``A`` (a square matrix or a batch of them) multiplied by itself ``n`` times; the inverse's
    powers for negative ``n`` and the identity for ``n = 0``."""
    if not isinstance(A, oneflow.Tensor):
        raise TypeError(f"linalg.matrix_power(): argument 'A' must be Tensor, not {type(A).__name__}")
    return A.matrix_power(n)


def matrix_exp(A):
    """The matrix exponential of each square matrix in ``A`` (scaling and squaring with a
    degree-18 Taylor polynomial; differentiable)."""
    name = "linalg.matrix_exp"
    if not isinstance(A, oneflow.Tensor):
        raise TypeError(f"{name}(): argument 'A' must be Tensor, not {type(A).__name__}")
    if A.dim() < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(
            f"{name}: A must be batches of square matrices, but they are {A.shape[-2]} by {A.shape[-1]} matrices"
        )
    if A.dtype not in (oneflow.float32, oneflow.float64):
        raise RuntimeError(f"{name}: Expected a floating point tensor as input. Got {A.dtype}")
    n = A.shape[-1]
    if A.numel() == 0:
        return A.clone()
    # Halve each matrix until its 1-norm is at most 1/2: the Taylor tail is then below 1e-23.
    norm = A.detach().abs().sum(-2).amax(-1)
    squarings = oneflow.ceil(oneflow.log2(norm.clamp(min=1e-300) / 0.5)).clamp(min=0)
    steps = int(squarings.max().item())
    X = A / (2.0**squarings).unsqueeze(-1).unsqueeze(-1)
    eye = oneflow.eye(n, dtype=A.dtype, device=A.device)
    result = eye + X
    term = X
    for k in range(2, 19):
        term = (term @ X) / k
        result = result + term
    for i in range(steps):
        squared = result @ result
        result = oneflow.where((squarings > i).unsqueeze(-1).unsqueeze(-1), squared, result)
    return result


def _tolerance(name, A, S_max, atol, rtol):
    """PyTorch's threshold max(atol, rtol * largest singular value): rtol defaults to eps * max(m, n),
    or to 0 when only a positive atol is given."""
    m, n = A.shape[-2], A.shape[-1]
    eps = oneflow.finfo(A.dtype).eps
    as_tensor = lambda v: v.to(A.dtype) if isinstance(v, oneflow.Tensor) else v
    if rtol is None:
        positive_atol = atol is not None and (bool((atol > 0).any()) if isinstance(atol, oneflow.Tensor) else atol > 0)
        rtol = 0.0 if positive_atol else eps * max(m, n)
    atol = 0.0 if atol is None else as_tensor(atol)
    tol = as_tensor(rtol) * S_max
    return oneflow.maximum(tol, oneflow.zeros_like(tol) + atol)


def matrix_rank(A, tol=None, hermitian: bool = False, *, atol=None, rtol=None):
    """The number of singular values of each matrix in ``A`` above ``max(atol, rtol * S_max)``
    (eigenvalue magnitudes with ``hermitian=True``); ``tol`` is the legacy name of ``atol``."""
    _check_float_matrix("torch.linalg.matrix_rank", A, "input")
    if tol is not None:
        if atol is not None or rtol is not None:
            raise RuntimeError("linalg.matrix_rank: tol cannot be given together with atol or rtol")
        atol, rtol = tol, 0.0
    S = oneflow.linalg.eigvalsh(A).abs() if hermitian else oneflow.linalg.svdvals(A)
    if S.shape[-1] == 0:
        return oneflow.zeros(tuple(S.shape[:-1]), dtype=oneflow.int64, device=A.device)
    threshold = _tolerance("linalg.matrix_rank", A, S.amax(-1), atol, rtol)
    return (S > threshold.unsqueeze(-1)).sum(-1).to(oneflow.int64)


class _PseudoInverse(oneflow.autograd.Function):
    @staticmethod
    def forward(ctx, A, threshold, hermitian):
        with oneflow.no_grad():
            if hermitian:
                w, V = oneflow.linalg.eigh(A)
                keep = w.abs() > threshold.unsqueeze(-1)
                w_inv = oneflow.where(keep, 1.0 / oneflow.where(keep, w, oneflow.ones_like(w)), oneflow.zeros_like(w))
                X = (V * w_inv.unsqueeze(-2)) @ V.mT
            else:
                U, S, Vh = oneflow.linalg.svd(A, full_matrices=False)
                keep = S > threshold.unsqueeze(-1)
                s_inv = oneflow.where(keep, 1.0 / oneflow.where(keep, S, oneflow.ones_like(S)), oneflow.zeros_like(S))
                X = (Vh.mT * s_inv.unsqueeze(-2)) @ U.mT
        ctx.save_for_backward(A, X)
        return X

    @staticmethod
    def backward(ctx, G):
        # d(A+) = -X dA X + X X^T dA^T (I - A X) + (I - X A) dA^T X^T X, with X = A+.
        A, X = ctx.saved_tensors
        XT = X.mT
        left = G.mT - (A @ X) @ G.mT  # (I - A X) G^T
        right = G.mT - G.mT @ (X @ A)  # G^T (I - X A)
        gA = -(XT @ G @ XT) + left @ (X @ XT) + (XT @ X) @ right
        return gA, None, None


def pinv(A, rcond=None, hermitian: bool = False, *, atol=None, rtol=None):
    """The Moore-Penrose pseudo-inverse of each matrix in ``A``: singular values (eigenvalue
    magnitudes with ``hermitian=True``) at or below ``max(atol, rtol * S_max)`` count as zero;
    ``rcond`` is the legacy name of ``rtol``."""
    if not isinstance(A, oneflow.Tensor) or A.dim() < 2 or A.dtype not in (oneflow.float32, oneflow.float64):
        what = f"{A.dtype}{list(A.shape)}" if isinstance(A, oneflow.Tensor) else type(A).__name__
        raise RuntimeError(f"linalg.pinv({what}): expected a tensor with 2 or more dimensions of float or double types")
    if rcond is not None:
        if rtol is not None:
            raise RuntimeError("linalg.pinv: rcond cannot be given together with rtol")
        rtol = rcond
    with oneflow.no_grad():
        S = oneflow.linalg.eigvalsh(A).abs() if hermitian else oneflow.linalg.svdvals(A)
        S_max = S.amax(-1) if S.shape[-1] else S.sum(-1)
        threshold = _tolerance("linalg.pinv", A, S_max, atol, rtol)
    if A.numel() == 0:
        return A.new_zeros(*A.shape[:-2], A.shape[-1], A.shape[-2]) + A.sum() * 0
    return _PseudoInverse.apply(A, threshold, hermitian)


def pinverse(input, rcond: float = 1e-15):
    """``linalg.pinv(input, rtol=rcond)``."""
    return pinv(input, rtol=rcond)


_LSTSQ_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")


def lstsq(A, B, rcond=None, *, driver=None):
    """``(solution, residuals, rank, singular_values)`` of the least-squares problem
    ``min ||A X - B||`` (the minimum-norm solution), with the outputs PyTorch's LAPACK ``driver``
    reports (CPU default ``"gelsy"``: the rank; ``"gelsd"``/``"gelss"``: rank and singular values;
    all but ``"gelsy"``: the squared residuals when ``m > n`` and every matrix has full rank)."""
    name = "torch.linalg.lstsq"
    _check_float_matrix(name, A, "input")
    if not isinstance(B, oneflow.Tensor) or B.dim() < 1:
        raise RuntimeError(
            f"{name}: input.dim() must be greater or equal to other.dim() and (input.dim() - other.dim()) <= 1"
        )
    if B.dtype != A.dtype:
        raise RuntimeError(
            f"{name}: Expected input and other to have the same dtype, but got "
            f"input's dtype {A.dtype} and other's dtype {B.dtype}"
        )
    driver = "gelsy" if driver is None else driver
    if driver not in _LSTSQ_DRIVERS:
        raise RuntimeError(f"{name}: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)")
    vector = B.dim() == 1 or (B.dim() == A.dim() - 1 and tuple(B.shape) == tuple(A.shape[:-1]))
    if B.dim() > A.dim() or A.dim() - B.dim() > 1:
        raise RuntimeError(
            f"{name}: input.dim() must be greater or equal to other.dim() and (input.dim() - other.dim()) <= 1"
        )
    b = B.unsqueeze(-1) if vector else B
    m, n = A.shape[-2], A.shape[-1]
    if b.shape[-2] != m:
        raise RuntimeError(f"{name}: input.size(-2) should match other.size(-2)")
    batch = oneflow.broadcast_shapes(tuple(A.shape[:-2]), tuple(b.shape[:-2]))
    A = A.expand(*batch, m, n)
    b = b.expand(*batch, m, b.shape[-1])
    eps = oneflow.finfo(A.dtype).eps
    rtol = eps * max(m, n) if rcond is None or rcond < 0 else rcond
    X = pinv(A, rtol=rtol) @ b
    with oneflow.no_grad():
        S = oneflow.linalg.svdvals(A)
        S_max = S.amax(-1, keepdim=True) if S.shape[-1] else S.sum(-1, keepdim=True)
        rank = (S > rtol * S_max).sum(-1).to(oneflow.int64)
    empty = A.new_empty(0)
    residuals = empty
    if driver != "gelsy" and m > n and bool((rank == n).all()):
        residuals = ((A @ X - b) ** 2).sum(-2)
        residuals = residuals.squeeze(-1) if vector else residuals
    rank_out = oneflow.zeros(0, dtype=oneflow.int64, device=A.device) if driver == "gels" else rank
    sv = S if driver in ("gelsd", "gelss") else empty
    return return_types.make(
        "linalg_lstsq", ("solution", "residuals", "rank", "singular_values"),
        (X.squeeze(-1) if vector else X, residuals, rank_out, sv),
    )  # fmt: skip


_COND_NORMS = (None, 2, -2, "fro", "nuc", math.inf, -math.inf, 1, -1)


def cond(A, p=None):
    """The condition number of each matrix in ``A`` for the norm ``p``: the ratio of extreme
    singular values for ``p`` in (None, 2, -2); ``norm(A, p) * norm(A^-1, p)`` for ``"fro"``,
    ``"nuc"``, +-inf and +-1 (square matrices; ``inf`` where a matrix is singular)."""
    if not isinstance(A, oneflow.Tensor) or A.dim() < 2:
        raise RuntimeError("linalg.cond: The input tensor must have at least 2 dimensions.")
    if p not in _COND_NORMS or isinstance(p, bool):
        raise RuntimeError(f"linalg.cond got an invalid norm type: {p}")
    _check_float_matrix("linalg.cond", A)
    if p in (None, 2, -2):
        if A.numel() == 0:
            return A.new_zeros(tuple(A.shape[:-2]))
        S = oneflow.linalg.svdvals(A)
        big, small = S[..., 0], S[..., -1]
        return small / big if p == -2 else big / small
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(
            f"linalg.cond(ord={p}): A must be batches of square matrices, but they are "
            f"{A.shape[-2]} by {A.shape[-1]} matrices"
        )
    if A.numel() == 0:
        return A.new_zeros(tuple(A.shape[:-2]))
    inverse, info = oneflow.linalg.inv_ex(A)
    result = oneflow.linalg.matrix_norm(A, p) * oneflow.linalg.matrix_norm(inverse, p)
    return oneflow.where(info != 0, oneflow.full_like(result, math.inf), result)


def multi_dot(tensors):
    """The product of a chain of matrices; the first may be a 1-D row vector and the last a
    1-D column vector (dropped from the result's shape)."""
    tensors = list(tensors)
    if len(tensors) < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {len(tensors)}")
    first, last = tensors[0], tensors[-1]
    if first.dim() not in (1, 2):
        raise RuntimeError(f"multi_dot(): the first tensor must be 1D or 2D but got {first.dim()}D")
    if last.dim() not in (1, 2):
        raise RuntimeError(f"multi_dot(): the last tensor must be 1D or 2D but got {last.dim()}D")
    for i, t in enumerate(tensors[1:-1], 1):
        if t.dim() != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {t.dim()}D")
    for i, t in enumerate(tensors):
        if t.dtype != first.dtype:
            raise RuntimeError(
                f"multi_dot(): all tensors must have be the same dtype but tensor 0 is "
                f"{first.dtype} and tensor {i} {t.dtype}"
            )
    mats = [first.unsqueeze(0) if first.dim() == 1 else first, *tensors[1:-1],
            last.unsqueeze(-1) if last.dim() == 1 else last]  # fmt: skip
    result = mats[0]
    for i, t in enumerate(mats[1:], 1):
        if result.shape[-1] != t.shape[0]:
            raise RuntimeError(
                f"multi_dot(): tensors {i - 1} and {i} with shapes "
                f"{list(tensors[i - 1].shape)} and {list(tensors[i].shape)} cannot be multiplied"
            )
        result = result @ t
    if first.dim() == 1:
        result = result.squeeze(0)
    if last.dim() == 1:
        result = result.squeeze(-1)
    return result


def tensorinv(A, ind: int = 2):
    """The tensor ``X`` with ``tensordot(X, A, ind)`` the identity: ``A`` reshaped to a square matrix
    (its first ``ind`` dims against the rest), inverted and reshaped to ``A.shape[ind:] + A.shape[:ind]``."""
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    rows, cols = math.prod(A.shape[:ind]), math.prod(A.shape[ind:])
    if rows != cols:
        raise RuntimeError(
            "Expected self to satisfy the requirement prod(self.shape[ind:]) == "
            f"prod(self.shape[:ind]), but got {cols} != {rows}"
        )
    return oneflow.linalg.inv(A.reshape(rows, cols)).reshape(*A.shape[ind:], *A.shape[:ind])


def tensorsolve(A, B, dims=None):
    """The tensor ``X`` with ``tensordot(A, X, X.ndim) = B``; ``dims`` are dims of ``A`` moved to
    its end first."""
    if dims is not None:
        dims = [d % A.dim() for d in dims]
        rest = [d for d in range(A.dim()) if d not in dims]
        A = A.permute(*rest, *dims)
    rows = math.prod(A.shape[: B.dim()])
    cols = math.prod(A.shape[B.dim() :])
    if rows != cols or B.numel() != rows:
        raise RuntimeError(
            "Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == "
            f"prod(self.shape[:other.ndim]), but got {cols} != {rows}"
        )
    X = oneflow.linalg.solve(A.reshape(rows, cols), B.reshape(rows))
    return X.reshape(*A.shape[B.dim() :])


def vander(x, *, N=None):
    """The Vandermonde matrix of ``x`` (batched over leading dims): column ``j`` holds ``x ** j``,
    for ``j < N`` (``N = x.shape[-1]`` by default)."""
    if not isinstance(x, oneflow.Tensor):
        raise TypeError(f"linalg.vander(): argument 'x' must be Tensor, not {type(x).__name__}")
    if x.dim() == 0:
        raise RuntimeError("N must be greater than 1.")
    N = x.shape[-1] if N is None else N
    if N <= 1:
        raise RuntimeError("N must be greater than 1.")
    ones = oneflow.ones_like(x).unsqueeze(-1)
    powers = oneflow.cumprod(x.unsqueeze(-1).expand(*x.shape, N - 1), -1)
    return oneflow.cat([ones, powers], -1)


def vecdot(x, y, *, dim: int = -1):
    """The dot product of ``x`` and ``y`` along ``dim`` (batch dims broadcast)."""
    if x.dtype != y.dtype:
        raise RuntimeError(
            f"linalg.vecdot: Expected x and y to have the same dtype, but found x of type "
            f"{x.dtype} and y of type {y.dtype} instead"
        )
    return (x * y).sum(dim)


def lobpcg(A, k=None, B=None, X=None, n=None, iK=None, niter=None, tol=None, largest=None, method=None,
           tracker=None, ortho_iparams=None, ortho_fparams=None, ortho_bparams=None):  # fmt: skip
    """``(E, X)``: the ``k`` largest (smallest with ``largest=False``) eigenpairs of the symmetric
    positive-definite generalized problem ``A X = B X diag(E)`` (``B`` the identity by default),
    batched. The dense problem is solved exactly (through ``eigh`` of ``L^-1 A L^-T``, ``B = L L^T``),
    which is where PyTorch's iteration converges; the iteration parameters (``X`` as a start,
    ``niter``, ``tol``, ``method``, ``tracker``, ...) only size the result. Differentiable in ``A``
    and ``B``."""
    if not isinstance(A, oneflow.Tensor) or A.dim() < 2 or A.shape[-1] != A.shape[-2]:
        raise AssertionError(f"A must be square, got shape {getattr(A, 'shape', type(A).__name__)}")
    _check_float_matrix("lobpcg", A)
    if B is not None and tuple(B.shape) != tuple(A.shape):
        raise AssertionError(f"A and B must have the same shapes, got {tuple(A.shape)} and {tuple(B.shape)}")
    m = A.shape[-1]
    k = (1 if X is None else X.shape[-1]) if k is None else k
    n = (k if X is None else X.shape[-1]) if n is None else n
    if m < 3 * n:
        raise ValueError(
            f"LOBPCG algorithm is not applicable when the number of A rows (={m}) is smaller than 3 x the "
            f"number of requested eigenpairs (={n})"
        )
    largest = True if largest is None else largest
    if B is None:
        w, V = oneflow.linalg.eigh(A)
    else:
        L = oneflow.linalg.cholesky(B)
        solve = oneflow.linalg.solve_triangular
        C = solve(L, solve(L, A, upper=False).mT, upper=False)  # L^-1 A L^-T (A symmetric)
        w, V = oneflow.linalg.eigh(C)
        V = solve(L.mT, V, upper=True)
    if largest:
        return w[..., -k:].flip(-1), V[..., -k:].flip(-1)
    return w[..., :k], V[..., :k]
