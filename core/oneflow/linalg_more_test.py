"""The oneflow.linalg functions composed in Python (_linalg_lu, _linalg_functions,
_linalg_householder, _linalg_ldl) and the legacy top-level names (_linalg_torch_names) against
torch: values, integer outputs (pivots, info, rank), gradients and the errors bad input raises."""

import math

import numpy as np
import pytest
import torch
from parity import raises_like_torch

import oneflow as flow

TOL = {"float32": 2e-4, "float64": 1e-9}


def ours(t):
    return flow.tensor(t.detach().numpy(), requires_grad=t.requires_grad)


def assert_close(a, b, tol=1e-9):
    a = a.detach().numpy() if isinstance(a, flow.Tensor) else np.asarray(a)
    b = b.detach().numpy()
    assert a.shape == b.shape, (a.shape, b.shape)
    assert a.dtype == b.dtype, (a.dtype, b.dtype)
    if a.size:
        finite = np.isfinite(b)
        assert (np.isfinite(a) == finite).all(), (a, b)
        assert np.abs(np.where(finite, a - b, 0)).max() <= tol, np.abs(np.where(finite, a - b, 0)).max()


def check(fo, ft, *inputs, tol=1e-9, grad=True):
    """fo(oneflow inputs) against ft(torch inputs), outputs and (float64) input gradients."""
    theirs_in = [t.detach().clone().requires_grad_(grad and t.is_floating_point()) for t in inputs]
    ours_in = [ours(t) for t in theirs_in]
    t_out, o_out = ft(*theirs_in), fo(*ours_in)
    t_list = list(t_out) if isinstance(t_out, tuple) else [t_out]
    o_list = list(o_out) if isinstance(o_out, tuple) else [o_out]
    assert len(o_list) == len(t_list)
    for o, t in zip(o_list, t_list):
        assert_close(o, t, tol)
    if not grad:
        return
    loss_t = sum((t * torch.linspace(-1, 1, t.numel(), dtype=t.dtype).reshape(t.shape)).sum()
                 for t in t_list if t.requires_grad)  # fmt: skip
    loss_o = sum((o * flow.linspace(-1, 1, o.numel(), dtype=o.dtype).reshape(o.shape)).sum()
                 for o in o_list if o.requires_grad)  # fmt: skip
    loss_t.backward()
    loss_o.backward()
    for o, t in zip(ours_in, theirs_in):
        if t.grad is not None:
            assert_close(o.grad, t.grad, tol * 10)


def rand(*shape, dtype="float64", seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=g, dtype=getattr(torch, dtype))


SHAPES = [(4, 4), (2, 3, 5, 5), (5, 3), (3, 5), (2, 0, 0)]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_lu_factor_and_lu(shape, dtype):
    A = rand(*shape, dtype=dtype)
    check(lambda a: tuple(flow.linalg.lu_factor_ex(a)), lambda a: tuple(torch.linalg.lu_factor_ex(a)), A,
          tol=TOL[dtype], grad=dtype == "float64")  # fmt: skip
    check(lambda a: tuple(flow.linalg.lu(a)), lambda a: tuple(torch.linalg.lu(a)), A, tol=TOL[dtype],
          grad=dtype == "float64")  # fmt: skip
    if A.numel():
        check(lambda a: tuple(flow.linalg.lu_factor(a)), lambda a: tuple(torch.linalg.lu_factor(a)), A,
              tol=TOL[dtype], grad=dtype == "float64")  # fmt: skip
        LU, piv = torch.linalg.lu_factor(A)
        check(lambda lu, p: tuple(flow.lu_unpack(lu, p)), lambda lu, p: tuple(torch.lu_unpack(lu, p)), LU, piv,
              tol=TOL[dtype], grad=dtype == "float64")  # fmt: skip


def test_lu_singular_and_errors():
    Z = torch.zeros(2, 3, 3, dtype=torch.float64)
    Z[0] = torch.eye(3)
    check(lambda a: tuple(flow.linalg.lu_factor_ex(a)), lambda a: tuple(torch.linalg.lu_factor_ex(a)), Z, grad=False)
    msg = raises_like_torch(lambda m: m.linalg.lu_factor(ours(Z) if m is flow else Z))
    assert "(Batch element 1): U[1,1] is zero" in msg
    assert "not implemented" in raises_like_torch(lambda m: m.linalg.lu_factor(m.eye(3), pivot=False))
    assert "at least 2 dimensions" in raises_like_torch(lambda m: m.linalg.lu_factor(m.ones(3)))
    assert "A must be batches of square" in raises_like_torch(lambda m: m.linalg.matrix_exp(m.ones(2, 3)))
    with pytest.raises(RuntimeError, match="int32"):
        flow.linalg.lu_solve(flow.eye(3), flow.tensor([1, 2, 3]), flow.ones(3, 1))
    assert "Incompatible shapes" in raises_like_torch(
        lambda m: m.linalg.lu_solve(m.eye(3), m.tensor([1, 2, 3], dtype=m.int32), m.ones(2, 3))
    )


@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("adjoint", [True, False])
def test_lu_solve(left, adjoint):
    A = rand(2, 4, 4)
    B = rand(2, 4, 3, seed=1) if left else rand(2, 3, 4, seed=1)
    LU, piv = torch.linalg.lu_factor(A)
    check(lambda lu, p, b: flow.linalg.lu_solve(lu, p, b, left=left, adjoint=adjoint),
          lambda lu, p, b: torch.linalg.lu_solve(lu, p, b, left=left, adjoint=adjoint), LU, piv, B)  # fmt: skip
    if left and not adjoint:
        check(lambda lu, p, b: flow.lu_solve(b, lu, p), lambda lu, p, b: torch.lu_solve(b, lu, p), LU, piv, B)
        check(lambda a: flow.lu(a), lambda a: torch.lu(a), A)
        check(lambda a: tuple(a.lu(get_infos=True)), lambda a: tuple(a.lu(get_infos=True)), A)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_ex_variants(dtype):
    A = rand(2, 4, 4, dtype=dtype)
    tol = TOL[dtype]
    check(lambda a: tuple(flow.linalg.inv_ex(a)), lambda a: tuple(torch.linalg.inv_ex(a)), A, tol=tol * 10)
    B = rand(2, 4, dtype=dtype, seed=2)
    check(lambda a, b: tuple(flow.linalg.solve_ex(a, b)), lambda a, b: tuple(torch.linalg.solve_ex(a, b)), A, B,
          tol=tol * 10)  # fmt: skip
    S = A @ A.mT + torch.eye(4, dtype=A.dtype)
    for upper in (False, True):
        check(lambda s: tuple(flow.linalg.cholesky_ex(s, upper=upper)),
              lambda s: tuple(torch.linalg.cholesky_ex(s, upper=upper)), S, tol=tol)  # fmt: skip
    Z = torch.zeros(2, 3, 3, dtype=A.dtype)
    Z[0] = torch.eye(3)
    check(lambda a: tuple(flow.linalg.inv_ex(a)), lambda a: tuple(torch.linalg.inv_ex(a)), Z, grad=False)
    msg = raises_like_torch(lambda m: m.linalg.inv_ex(ours(Z) if m is flow else Z, check_errors=True))
    assert "(Batch element 1): The diagonal element 1 is zero" in msg
    msg = raises_like_torch(lambda m: m.linalg.solve_ex(ours(Z) if m is flow else Z, m.ones(2, 3, dtype=m.float64
                            if dtype == "float64" else m.float32), check_errors=True))  # fmt: skip
    assert "singular" in msg
    # Not positive-definite: LAPACK's info and the partial factor it leaves.
    M = torch.tensor([[[1.0, 2, 0], [2, 1, 0], [0, 0, 1]], [[4.0, 2, 0], [2, 3, 0], [0, 0, -1]]], dtype=A.dtype)
    check(lambda a: tuple(flow.linalg.cholesky_ex(a)), lambda a: tuple(torch.linalg.cholesky_ex(a)), M, grad=False)
    msg = raises_like_torch(lambda m: m.linalg.cholesky_ex(ours(M) if m is flow else M, check_errors=True))
    assert "leading minor of order 2" in msg


@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_solve_inverse(upper):
    A = rand(2, 4, 4)
    L = torch.linalg.cholesky(A @ A.mT + torch.eye(4, dtype=A.dtype), upper=upper)
    B = rand(2, 4, 3, seed=3)
    check(lambda b, f: flow.cholesky_solve(b, f, upper), lambda b, f: torch.cholesky_solve(b, f, upper), B, L)
    check(lambda b, f: b.cholesky_solve(f, upper), lambda b, f: b.cholesky_solve(f, upper), B, L)
    check(lambda f: flow.cholesky_inverse(f, upper), lambda f: torch.cholesky_inverse(f, upper), L)
    check(lambda f: f.cholesky_inverse(upper), lambda f: f.cholesky_inverse(upper), L)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_matrix_exp_and_power(dtype):
    for scale in (0.1, 1.0, 6.0):
        A = rand(2, 4, 4, dtype=dtype) * scale
        tol = TOL[dtype] * (50 if scale > 1 else 1)
        check(flow.linalg.matrix_exp, torch.linalg.matrix_exp, A, tol=tol * max(1.0, scale**3))
        check(flow.matrix_exp, torch.matrix_exp, A, tol=tol * max(1.0, scale**3), grad=False)
        check(lambda a: a.matrix_exp(), lambda a: a.matrix_exp(), A, tol=tol * max(1.0, scale**3), grad=False)
    A = rand(3, 3, dtype=dtype) + 2 * torch.eye(3, dtype=getattr(torch, dtype))
    for n in (-2, 0, 3):
        check(lambda a: flow.linalg.matrix_power(a, n), lambda a: torch.linalg.matrix_power(a, n), A, tol=TOL[dtype])
        check(lambda a: flow.matrix_power(a, n), lambda a: torch.matrix_power(a, n), A, tol=TOL[dtype], grad=False)
    assert "Expected a floating point" in raises_like_torch(lambda m: m.linalg.matrix_exp(m.ones(2, 2, dtype=m.int64)))


@pytest.mark.parametrize("shape", [(4, 4), (2, 5, 3), (3, 5)])
def test_pinv_rank_lstsq_cond(shape):
    A = rand(*shape)
    check(flow.linalg.pinv, torch.linalg.pinv, A)
    check(lambda a: flow.pinverse(a), lambda a: torch.pinverse(a), A)
    check(lambda a: a.pinverse(), lambda a: a.pinverse(), A)
    check(flow.linalg.matrix_rank, torch.linalg.matrix_rank, A, grad=False)
    B = rand(*shape[:-1], 2, seed=4)
    for driver in (None, "gels", "gelsy", "gelsd", "gelss"):
        check(lambda a, b: tuple(flow.linalg.lstsq(a, b, driver=driver)),
              lambda a, b: tuple(torch.linalg.lstsq(a, b, driver=driver)), A, B, grad=driver is None)  # fmt: skip
    for p in (None, 2, -2):
        check(lambda a: flow.linalg.cond(a, p), lambda a: torch.linalg.cond(a, p), A)


def test_rank_deficient_and_tolerances():
    R = rand(5, 5)
    R[:, 4] = R[:, 3]
    check(flow.linalg.pinv, torch.linalg.pinv, R, grad=False)
    check(flow.linalg.matrix_rank, torch.linalg.matrix_rank, R, grad=False)
    S = rand(4, 4)
    S = S + S.T
    check(lambda s: flow.linalg.pinv(s, hermitian=True), lambda s: torch.linalg.pinv(s, hermitian=True), S)
    for kwargs in ({"atol": 1.0}, {"rtol": 0.3}, {"atol": 0.5, "rtol": 0.2}, {"hermitian": True, "atol": 1.0}):
        check(lambda s: flow.linalg.matrix_rank(s, **kwargs), lambda s: torch.linalg.matrix_rank(s, **kwargs), S,
              grad=False)  # fmt: skip
        check(lambda s: flow.linalg.pinv(s, **kwargs), lambda s: torch.linalg.pinv(s, **kwargs), S, grad=False)
    check(lambda s: flow.linalg.matrix_rank(s, 0.3), lambda s: torch.linalg.matrix_rank(s, 0.3), S, grad=False)
    check(lambda s: flow.pinverse(s, rcond=0.3), lambda s: torch.pinverse(s, rcond=0.3), S, grad=False)
    b = rand(5, seed=5)
    check(lambda a, v: tuple(flow.linalg.lstsq(a, v)), lambda a, v: tuple(torch.linalg.lstsq(a, v)), R, b, grad=False)
    for p in ("fro", math.inf, -math.inf, 1, -1, "nuc"):
        check(lambda a: flow.linalg.cond(a, p), lambda a: torch.linalg.cond(a, p), S, grad=False)
        if p != "nuc":  # PyTorch's nuclear norm of its all-inf inverse is an artifact
            Z = R.clone()
            Z[:, 4] = 0  # an exact zero pivot in any LU
            check(lambda a: flow.linalg.cond(a, p), lambda a: torch.linalg.cond(a, p), Z, grad=False)
    assert "invalid norm type" in raises_like_torch(lambda m: m.linalg.cond(m.ones(3, 3), "foo"))
    assert "square" in raises_like_torch(lambda m: m.linalg.cond(m.ones(2, 3), 1))
    assert "driver" in raises_like_torch(lambda m: m.linalg.lstsq(m.ones(3, 3), m.ones(3, 1), driver="foo"))
    assert "should match" in raises_like_torch(lambda m: m.linalg.lstsq(m.ones(3, 3), m.ones(2, 1)))
    assert "2 or more dimensions" in raises_like_torch(lambda m: m.linalg.pinv(m.ones(3)))
    assert "at least 2 dimensions" in raises_like_torch(lambda m: m.linalg.matrix_rank(m.ones(3)))


def test_multi_dot_tensorinv_tensorsolve_vander_vecdot():
    a, b, c = rand(3), rand(3, 4, seed=1), rand(4, seed=2)
    check(lambda *x: flow.linalg.multi_dot(x), lambda *x: torch.linalg.multi_dot(x), a, b, c)
    check(lambda *x: flow.linalg.multi_dot(x), lambda *x: torch.linalg.multi_dot(x), b.T, b, b.T)
    assert "at least 2 tensors" in raises_like_torch(lambda m: m.linalg.multi_dot([m.ones(3)]))
    assert "cannot be multiplied" in raises_like_torch(lambda m: m.linalg.multi_dot([m.ones(2, 3), m.ones(2, 3)]))
    assert "must be 2D" in raises_like_torch(lambda m: m.linalg.multi_dot([m.ones(2, 2), m.ones(2), m.ones(2)]))
    T = rand(4, 6, 8, 3)
    check(lambda x: flow.linalg.tensorinv(x, 2), lambda x: torch.linalg.tensorinv(x, 2), T)
    assert "strictly positive" in raises_like_torch(lambda m: m.linalg.tensorinv(m.ones(4, 2, 2), ind=0))
    A, B = T.reshape(4, 6, 4, 6), rand(4, 6, seed=3)
    check(flow.linalg.tensorsolve, torch.linalg.tensorsolve, A, B)
    check(lambda x, y: flow.linalg.tensorsolve(x, y, dims=(0,)),
          lambda x, y: torch.linalg.tensorsolve(x, y, dims=(0,)), A, B.reshape(6, 4))  # fmt: skip
    x = torch.tensor([[0.0, 2, 3], [1, -1, 0.5]], dtype=torch.float64)
    check(flow.linalg.vander, torch.linalg.vander, x)
    check(lambda v: flow.linalg.vander(v, N=5), lambda v: torch.linalg.vander(v, N=5), x)
    check(lambda v: flow.linalg.vander(v, N=2), lambda v: torch.linalg.vander(v, N=2), torch.tensor([1, 2, 3]),
          grad=False)  # fmt: skip
    assert "N must be greater than 1" in raises_like_torch(lambda m: m.linalg.vander(m.tensor([1.0]), N=0))
    check(lambda u, v: flow.linalg.vecdot(u, v, dim=0), lambda u, v: torch.linalg.vecdot(u, v, dim=0), x, x[:1])
    assert "same dtype" in raises_like_torch(lambda m: m.linalg.vecdot(m.ones(3), m.ones(3, dtype=m.float64)))


@pytest.mark.parametrize("shape", [(5, 3), (2, 4, 4), (3, 3)])
def test_householder(shape):
    M = rand(*shape)
    check(lambda m: tuple(flow.geqrf(m)), lambda m: tuple(torch.geqrf(m)), M, grad=False)
    check(lambda m: tuple(m.geqrf()), lambda m: tuple(m.geqrf()), M, grad=False)
    a, tau = torch.geqrf(M)
    check(flow.linalg.householder_product, torch.linalg.householder_product, a, tau)
    check(flow.orgqr, torch.orgqr, a, tau)
    check(lambda x, t: x.orgqr(t), lambda x, t: x.orgqr(t), a, tau, grad=False)
    C = rand(*shape[:-2], shape[-2], 2, seed=6)
    for transpose in (False, True):
        check(lambda x, t, c: flow.ormqr(x, t, c, True, transpose),
              lambda x, t, c: torch.ormqr(x, t, c, True, transpose), a, tau, C)  # fmt: skip
        check(lambda x, t, c: x.ormqr(t, c, False, transpose), lambda x, t, c: x.ormqr(t, c, False, transpose),
              a, tau, C.mT)  # fmt: skip
    assert "greater than or equal" in raises_like_torch(lambda m: m.linalg.householder_product(m.ones(2, 3), m.ones(2)))
    assert "at least 2 dimensions" in raises_like_torch(lambda m: m.geqrf(m.ones(3)))


@pytest.mark.parametrize("upper", [True, False])
@pytest.mark.parametrize("transpose", [True, False])
@pytest.mark.parametrize("unitriangular", [True, False])
def test_triangular_solve(upper, transpose, unitriangular):
    U = rand(2, 3, 3).triu() + 3 * torch.eye(3, dtype=torch.float64)
    A = U if upper else U.mT
    b = rand(2, 3, 2, seed=7)
    args = (upper, transpose, unitriangular)
    solve_o = lambda x, y: tuple(flow.triangular_solve(x, y, *args))
    solve_t = lambda x, y: tuple(torch.triangular_solve(x, y, *args))
    check(solve_o, solve_t, b, A)
    check(lambda x, y: x.triangular_solve(y, *args).solution, lambda x, y: x.triangular_solve(y, *args).solution,
          b, A)  # fmt: skip


@pytest.mark.parametrize("shape", [(5, 5), (3, 6, 6), (1, 1), (8, 8)])
@pytest.mark.parametrize("kind", ["indefinite", "definite", "small diagonal"])
def test_ldl(shape, kind):
    A = rand(*shape, seed=len(shape) + shape[-1])
    A = A + A.mT
    if kind == "definite":
        A = A + 10 * torch.eye(shape[-1], dtype=A.dtype)
    if kind == "small diagonal":
        A.diagonal(dim1=-2, dim2=-1).mul_(0.01)  # forces 2x2 pivots
    check(lambda a: tuple(flow.linalg.ldl_factor_ex(a)), lambda a: tuple(torch.linalg.ldl_factor_ex(a)), A, grad=False)
    check(lambda a: tuple(flow.linalg.ldl_factor(a)), lambda a: tuple(torch.linalg.ldl_factor(a)), A, grad=False)
    LD, piv = torch.linalg.ldl_factor(A)
    B = rand(*shape[:-1], 3, seed=8)
    check(flow.linalg.ldl_solve, torch.linalg.ldl_solve, LD, piv, B, tol=1e-8, grad=False)


def test_ldl_singular():
    A = torch.ones(3, 3, dtype=torch.float64)
    check(lambda a: tuple(flow.linalg.ldl_factor_ex(a)), lambda a: tuple(torch.linalg.ldl_factor_ex(a)), A, grad=False)
    with pytest.raises(flow.linalg.LinAlgError, match="singular"):
        flow.linalg.ldl_factor(flow.ones(3, 3))


NEW_NAMES = (
    "cholesky_ex inv_ex solve_ex lu_factor lu_factor_ex lu lu_solve lstsq matrix_exp matrix_power matrix_rank pinv "
    "cond multi_dot householder_product ldl_factor ldl_factor_ex ldl_solve tensorinv tensorsolve vander vecdot"
).split()


def test_names_exist():
    for name in NEW_NAMES:
        assert callable(getattr(flow.linalg, name)) and name in flow.linalg.__all__


@pytest.mark.parametrize("kwargs", [{"k": 2}, {"k": 2, "largest": False}, {"k": 3, "B": True}])
def test_lobpcg(kwargs):
    A = rand(9, 9)
    A = A @ A.T + torch.eye(9, dtype=A.dtype)
    B = rand(9, 9, seed=9)
    B = B @ B.T + 9 * torch.eye(9, dtype=A.dtype)
    theirs_kw = {**kwargs, "B": B} if "B" in kwargs else kwargs
    ours_kw = {**kwargs, "B": ours(B)} if "B" in kwargs else kwargs
    At, Ao = A.clone().requires_grad_(), ours(A).requires_grad_()
    (E, X), (e, x) = torch.lobpcg(At, **theirs_kw), flow.lobpcg(Ao, **ours_kw)
    assert_close(e, E, 1e-9)
    assert_close(x.abs(), X.abs(), 1e-5)  # PyTorch's iteration stops at its tolerance; signs are free
    if "B" not in kwargs:  # PyTorch has no derivative with B yet
        E.sum().backward()
        e.sum().backward()
        assert_close(Ao.grad, At.grad, 1e-5)
    assert "smaller than 3 x" in raises_like_torch(lambda m: m.lobpcg(m.eye(9), k=4))


def test_broadcasting_and_edge_shapes():
    A, B = rand(2, 5, 3), rand(1, 5, 2, seed=10)
    for driver in ("gelsy", "gelsd"):
        check(lambda a, b: tuple(flow.linalg.lstsq(a, b, driver=driver)),
              lambda a, b: tuple(torch.linalg.lstsq(a, b, driver=driver)), A, B, grad=False)  # fmt: skip
    v = rand(2, 5, seed=11)  # a batch of vectors
    check(lambda a, b: tuple(flow.linalg.lstsq(a, b)), lambda a, b: tuple(torch.linalg.lstsq(a, b)), A, v, grad=False)
    S = rand(3, 4, 4, seed=12)
    check(lambda a, b: tuple(flow.linalg.solve_ex(a, b, left=False)),
          lambda a, b: tuple(torch.linalg.solve_ex(a, b, left=False)), S, rand(3, 2, 4, seed=13))  # fmt: skip
    LU, piv = torch.linalg.lu_factor(S[0])
    check(lambda lu, p, b: flow.linalg.lu_solve(lu, p, b), lambda lu, p, b: torch.linalg.lu_solve(lu, p, b),
          LU, piv, rand(3, 4, 2, seed=14))  # fmt: skip
    atol = torch.tensor([0.5, 1.0, 2.0], dtype=torch.float64)
    check(lambda s, t: flow.linalg.matrix_rank(s, atol=t), lambda s, t: torch.linalg.matrix_rank(s, atol=t), S, atol,
          grad=False)  # fmt: skip
    check(
        lambda a: tuple(flow.linalg.lu(a)),
        lambda a: tuple(torch.linalg.lu(a)),
        torch.zeros(1, 1, dtype=torch.float64),
        grad=False,  # singular: PyTorch's derivative divides by U's zero
    )
    M = torch.tensor([[4.0, 2, 0], [2, 1, 0], [0, 0, 1]], dtype=torch.float64)
    # Only info: what LAPACK leaves past the failing pivot is its own.
    check(lambda a: flow.linalg.cholesky_ex(a, upper=True).info,
          lambda a: torch.linalg.cholesky_ex(a, upper=True).info, M, grad=False)  # fmt: skip
    check(lambda a, t, c: flow.ormqr(a, t, c), lambda a, t, c: torch.ormqr(a, t, c), A, rand(2, 3, seed=15),
          rand(2, 5, 2, seed=16))  # fmt: skip
    for args in (((5, 3), (2,), (5, 2)), ((5, 3), (3,), (4, 2)), ((2, 5, 3), (2, 3), (5, 2))):
        raises_like_torch(lambda m: m.ormqr(*(m.ones(*s) for s in args)))


def test_linalg_errors_on_singular_input():
    for fn in (lambda m: m.linalg.tensorinv(m.zeros(4, 2, 2), ind=1),
               lambda m: m.linalg.matrix_power(m.zeros(3, 3), -1),
               lambda m: m.linalg.tensorsolve(m.zeros(2, 3, 6), m.ones(2, 3))):  # fmt: skip
        raises_like_torch(fn)
        with pytest.raises(flow.linalg.LinAlgError):
            fn(flow)
