"""Parity rows for oneflow.linalg and the decompositions of ops/defs/linalg_more.cc: inv, det, slogdet,
logdet, solve, solve_triangular, cholesky, qr, svd, eigh and the norms.

Inputs are made well-conditioned inside the row functions (A + n I, or A A^T + n I where a symmetric
positive-definite matrix is needed). Where a decomposition's signs are not unique (SVD, eigh), rows
compare what is: singular values and eigenvalues, |U|, |V|, reconstructions, and the gradients of
those gauge-invariant functions. QR follows LAPACK's sign convention, so Q and R compare directly.
"""

import numpy as np
import pytest
import torch
from parity import OpCase, run_case

import oneflow as flow

FLOATS = ("float32", "float64")
# float32 inputs are decomposed in float64 here and in float32 by LAPACK in PyTorch.
TOL = 1e-4


def _eye(m, x):
    n = x.shape[-1]
    return m.eye(n, dtype=x.dtype)


def _well(m, x):
    """x + n I: comfortably invertible."""
    return x + x.shape[-1] * _eye(m, x)


def _spd(m, x):
    """x x^T + n I: symmetric positive-definite."""
    return x @ x.transpose(-2, -1) + x.shape[-1] * _eye(m, x)


def _sym(m, x):
    return x + x.transpose(-2, -1)


def _svd_invariants(U, S, Vh):
    k = S.shape[-1]
    U1, Vh1 = U[..., :k], Vh[..., :k, :]
    return S, U1.abs(), Vh1.abs(), (U1 * S.unsqueeze(-2)) @ Vh1


def _svd(full):
    def run(m, x):
        return _svd_invariants(*m.linalg.svd(x, full_matrices=full))

    return run


def _torch_svd(some):
    def run(m, x):
        U, S, V = m.svd(x, some=some)
        return _svd_invariants(U, S, V.transpose(-2, -1))

    return run


def _orthonormal_columns(m, x, full):
    """U^T U and Vh Vh^T of a full SVD (the completed columns included): identities."""
    U, _, Vh = m.linalg.svd(x.detach(), full_matrices=full)
    return U.transpose(-2, -1) @ U, Vh @ Vh.transpose(-2, -1)


def _eigh(uplo):
    def run(m, x):
        w, V = m.linalg.eigh(x, UPLO=uplo)
        return w, V.abs(), (V * w.unsqueeze(-2)) @ V.transpose(-2, -1)

    return run


SQUARE = [((3, 3),), ((2, 4, 4),), ((1, 1),), ((0, 0),), ((2, 0, 0),), ((2, 1, 3, 3),)]
RECT = [((5, 3),), ((3, 5),), ((4, 4),), ((2, 6, 2),), ((2, 2, 6),), ((1, 1),)]
ORDS = ["fro", "nuc", 1, -1, 2, -2, float("inf"), -float("inf")]
VECTOR_ORDS = [2, 1, 0, 3.5, -1, -2.5, float("inf"), -float("inf")]

CASES = [
    # ---- inverse
    OpCase(ops=("_linalg_inv",), name="linalg_inv", fn=lambda m, x: m.linalg.inv(_well(m, x)), shapes=SQUARE, rtol=TOL, atol=TOL),
    OpCase(ops=("inverse",), fn=lambda m, x: m.inverse(_well(m, x)) + _well(m, x).inverse(), shapes=SQUARE[:3], rtol=TOL,
           atol=TOL),
    OpCase(ops=("_linalg_inv",), name="inv_singular", fn=lambda m, x: m.linalg.inv(x * 0), shapes=[((3, 3),), ((2, 2, 2),)]),
    OpCase(ops=("_linalg_inv",), name="inv_singular_row",
           fn=lambda m, x: m.linalg.inv(m.cat([x[:1], x[:1] * 2, x[2:]], 0)), shapes=[((3, 3),)]),
    OpCase(ops=("inverse",), name="inverse_singular", fn=lambda m, x: m.inverse(x * 0), shapes=[((2, 2),)]),
    OpCase(ops=("_linalg_inv",), name="inv_not_square", fn=lambda m, x: m.linalg.inv(x), shapes=[((2, 3),), ((3,),)]),
    OpCase(ops=("_linalg_inv",), name="inv_int", fn=lambda m, x: m.linalg.inv(x), shapes=[((2, 2),)], dtypes=("int64",)),
    OpCase(ops=("_linalg_inv",), name="inv_half", fn=lambda m, x: m.linalg.inv(x), shapes=[((2, 2),)], dtypes=("float16",)),
    # ---- determinants
    OpCase(ops=("_linalg_det",), name="linalg_det", fn=lambda m, x: m.linalg.det(x), shapes=SQUARE, rtol=TOL, atol=TOL),
    OpCase(ops=("det",), fn=lambda m, x: m.det(x) + x.det(), shapes=SQUARE[:3], rtol=TOL, atol=TOL),
    OpCase(ops=("_linalg_det",), name="det_singular", fn=lambda m, x: m.linalg.det(x[..., :1].expand(*x.shape)),
           shapes=[((3, 3),)], grad=False),
    OpCase(ops=("_linalg_slogdet",), name="linalg_slogdet", fn=lambda m, x: m.linalg.slogdet(_well(m, x) - 2 * _eye(m, x)),
           shapes=SQUARE, rtol=TOL, atol=TOL),
    OpCase(ops=("slogdet",), fn=lambda m, x: x.slogdet(), shapes=SQUARE[:3], rtol=TOL, atol=TOL),
    OpCase(ops=("_linalg_slogdet",), name="slogdet_singular", fn=lambda m, x: m.linalg.slogdet(x * 0), shapes=[((2, 2),)],
           grad=False),
    OpCase(ops=("logdet",), fn=lambda m, x: m.logdet(_spd(m, x)) + m.logdet(x).nan_to_num(), shapes=SQUARE[:3], rtol=TOL,
           atol=TOL),
    OpCase(ops=("_linalg_det",), name="det_not_square", fn=lambda m, x: m.linalg.det(x), shapes=[((2, 3),)]),
    # ---- solve
    OpCase(ops=("_linalg_solve", "_linalg_solve_matrix"), name="linalg_solve",
           fn=lambda m, a, b: m.linalg.solve(_well(m, a), b),
           shapes=[((3, 3), (3,)), ((3, 3), (3, 2)), ((2, 3, 3), (3, 4)), ((3, 3), (2, 3, 1)), ((2, 3, 3), (2, 3)),
                   ((2, 1, 3, 3), (4, 3, 2)), ((0, 0), (0, 2)), ((3, 3), (3, 0))],
           rtol=TOL, atol=TOL),
    OpCase(ops=("_linalg_solve", "_linalg_solve_matrix"), name="linalg_solve_right",
           fn=lambda m, a, b: m.linalg.solve(_well(m, a), b, left=False),
           shapes=[((3, 3), (2, 3)), ((2, 3, 3), (4, 3)), ((2, 3, 3), (3,)), ((1, 1), (1,))],
           rtol=TOL, atol=TOL),
    OpCase(ops=("_linalg_solve",), name="solve_singular", fn=lambda m, a, b: m.linalg.solve(a * 0, b), shapes=[((3, 3), (3,))]),
    OpCase(ops=("_linalg_solve",), name="solve_bad_shapes", fn=lambda m, a, b: m.linalg.solve(a, b),
           shapes=[((2, 2), (3,)), ((2, 2), (3, 2)), ((2, 3), (2,))]),
    OpCase(ops=("_linalg_solve",), name="solve_bad_dtype", fn=lambda m, a, b: m.linalg.solve(a, b.double()),
           shapes=[((2, 2), (2,))], dtypes=("float32",)),
    OpCase(ops=("_linalg_solve_triangular", "_linalg_solve_triangular_matrix"), name="linalg_solve_triangular",
           fn=lambda m, a, b: m.linalg.solve_triangular(_well(m, a).triu(), b, upper=True),
           shapes=[((3, 3), (3, 2)), ((2, 3, 3), (3, 4)), ((3, 3), (2, 3, 1))], rtol=TOL, atol=TOL),
    OpCase(ops=("_linalg_solve_triangular", "_linalg_solve_triangular_matrix"), name="solve_triangular_lower_right_unit",
           fn=lambda m, a, b: m.linalg.solve_triangular(a, b, upper=False, left=False, unitriangular=True),
           shapes=[((3, 3), (2, 3)), ((2, 4, 4), (2, 1, 4))], rtol=TOL, atol=TOL),
    OpCase(ops=("_linalg_solve_triangular",), name="solve_triangular_reads_one_triangle",
           fn=lambda m, a, b: m.linalg.solve_triangular(_well(m, a), b, upper=False), shapes=[((3, 3), (3, 2))],
           rtol=TOL, atol=TOL),
    OpCase(ops=("_linalg_solve_triangular",), name="solve_triangular_vector_b",
           fn=lambda m, a, b: m.linalg.solve_triangular(a, b, upper=True), shapes=[((3, 3), (3,))]),
    # ---- cholesky
    OpCase(ops=("_linalg_cholesky",), name="linalg_cholesky", fn=lambda m, x: m.linalg.cholesky(_spd(m, x)), shapes=SQUARE,
           rtol=TOL, atol=TOL),
    OpCase(ops=("_linalg_cholesky",), name="linalg_cholesky_upper", fn=lambda m, x: m.linalg.cholesky(_spd(m, x), upper=True),
           shapes=SQUARE[:3], rtol=TOL, atol=TOL),
    OpCase(ops=("cholesky",), fn=lambda m, x: m.cholesky(_spd(m, x)) + _spd(m, x).cholesky(upper=True), shapes=SQUARE[:3],
           rtol=TOL, atol=TOL),
    OpCase(ops=("_linalg_cholesky",), name="cholesky_not_pd", fn=lambda m, x: m.linalg.cholesky(-_spd(m, x)),
           shapes=[((3, 3),), ((2, 3, 3),)]),
    OpCase(ops=("cholesky",), name="cholesky_not_pd_torch_name", fn=lambda m, x: m.cholesky(x * 0), shapes=[((2, 2),)]),
    OpCase(ops=("_linalg_cholesky",), name="cholesky_not_square", fn=lambda m, x: m.linalg.cholesky(x), shapes=[((2, 3),)]),
    # ---- qr
    OpCase(ops=("_linalg_qr",), name="linalg_qr", fn=lambda m, x: m.linalg.qr(x), shapes=RECT + [((0, 3),), ((3, 0),)],
           rtol=TOL, atol=TOL),
    OpCase(ops=("_linalg_qr",), name="linalg_qr_complete", fn=lambda m, x: m.linalg.qr(x, mode="complete"),
           shapes=[((3, 5),), ((4, 4),), ((2, 2, 3),)], rtol=TOL, atol=TOL),
    # (PyTorch cannot differentiate complete mode for tall inputs)
    OpCase(ops=("_linalg_qr",), name="linalg_qr_complete_tall", fn=lambda m, x: m.linalg.qr(x, mode="complete"),
           shapes=[((5, 3),), ((2, 4, 1),)], rtol=TOL, atol=TOL, grad=False),
    OpCase(ops=("_linalg_qr",), name="linalg_qr_r", fn=lambda m, x: m.linalg.qr(x, mode="r"), shapes=[((5, 3),), ((3, 5),)],
           rtol=TOL, atol=TOL, grad=False),
    OpCase(ops=("_linalg_qr",), name="linalg_qr_zero_column", fn=lambda m, x: m.linalg.qr(x * m.tensor([1.0, 0.0, 1.0],
                                                                                                          dtype=x.dtype)),
           shapes=[((4, 3),)], rtol=TOL, atol=TOL, grad=False),
    OpCase(ops=("qr",), fn=lambda m, x: m.qr(x), shapes=[((5, 3),), ((3, 5),)], rtol=TOL, atol=TOL),
    OpCase(ops=("qr",), name="qr_some_false", fn=lambda m, x: x.qr(some=False), shapes=[((5, 3),)], rtol=TOL, atol=TOL,
           grad=False),
    OpCase(ops=("_linalg_qr",), name="qr_bad_mode", fn=lambda m, x: m.linalg.qr(x, mode="x"), shapes=[((3, 3),)]),
    # ---- svd
    OpCase(ops=("_linalg_svd",), name="linalg_svd", fn=_svd(False), shapes=RECT, rtol=TOL, atol=TOL),
    OpCase(ops=("_linalg_svd",), name="linalg_svd_full", fn=_svd(True), shapes=RECT, rtol=TOL, atol=TOL),
    OpCase(ops=("_linalg_svd",), name="linalg_svd_orthonormal", fn=lambda m, x: _orthonormal_columns(m, x, True),
           shapes=RECT + [((0, 3),), ((3, 0),)], rtol=TOL, atol=TOL, grad=False),
    OpCase(ops=("_linalg_svd",), name="linalg_svd_rank_deficient",
           fn=lambda m, x: _orthonormal_columns(m, x[..., :1].expand(*x.shape), False), shapes=[((4, 3),)], rtol=TOL,
           atol=TOL, grad=False),
    OpCase(ops=("_linalg_svd",), name="linalg_svd_rank_deficient_values",
           fn=lambda m, x: m.linalg.svd(x[..., :1].expand(*x.shape))[1], shapes=[((4, 3),), ((3, 4),)], rtol=TOL, atol=TOL,
           grad=False),
    OpCase(ops=("_linalg_svd",), name="linalg_svd_empty", fn=lambda m, x: m.linalg.svd(x)[1], shapes=[((0, 3),), ((2, 0),)]),
    OpCase(ops=("_linalg_svdvals",), name="linalg_svdvals", fn=lambda m, x: m.linalg.svdvals(x), shapes=RECT, rtol=TOL,
           atol=TOL),
    OpCase(ops=("svd",), fn=_torch_svd(True), shapes=RECT[:3], rtol=TOL, atol=TOL),
    OpCase(ops=("svd",), name="svd_some_false", fn=_torch_svd(False), shapes=RECT[:3], rtol=TOL, atol=TOL),
    OpCase(ops=("svd",), name="svd_no_uv", fn=lambda m, x: m.svd(x, compute_uv=False), shapes=RECT[:3], rtol=TOL, atol=TOL),
    OpCase(ops=("_linalg_svd",), name="svd_int", fn=lambda m, x: m.linalg.svd(x), shapes=[((2, 2),)], dtypes=("int64",)),
    # ---- eigh
    OpCase(ops=("_linalg_eigh",), name="linalg_eigh", fn=lambda m, x: _eigh("L")(m, _sym(m, x)), shapes=SQUARE, rtol=TOL,
           atol=TOL),
    OpCase(ops=("_linalg_eigh",), name="linalg_eigh_upper", fn=lambda m, x: _eigh("U")(m, _sym(m, x)), shapes=SQUARE[:3],
           rtol=TOL, atol=TOL),
    # Only the named triangle is read (the other may hold anything).
    OpCase(ops=("_linalg_eigh",), name="linalg_eigh_one_triangle", fn=lambda m, x: m.linalg.eigh(x)[0], shapes=[((4, 4),)],
           rtol=TOL, atol=TOL, grad=False),
    OpCase(ops=("_linalg_eigvalsh",), name="linalg_eigvalsh", fn=lambda m, x: m.linalg.eigvalsh(_sym(m, x), UPLO="U"),
           shapes=SQUARE[:3], rtol=TOL, atol=TOL),
    OpCase(ops=("_linalg_eigh",), name="eigh_bad_uplo", fn=lambda m, x: m.linalg.eigh(x, UPLO="X"), shapes=[((2, 2),)]),
    OpCase(ops=("_linalg_eigh",), name="eigh_not_square", fn=lambda m, x: m.linalg.eigh(x), shapes=[((2, 3),)]),
    # ---- norms
    *[OpCase(ops=("_linalg_vector_norm",), name=f"vector_norm_{o}", fn=lambda m, x, o=o: m.linalg.vector_norm(x, o),
             shapes=[((3, 4),), ((5,),)], rtol=TOL, atol=TOL) for o in VECTOR_ORDS],
    OpCase(ops=("_linalg_vector_norm",), name="vector_norm_dim_keepdim",
           fn=lambda m, x: m.linalg.vector_norm(x, 3, dim=(0, 2), keepdim=True), shapes=[((2, 3, 4),)], rtol=TOL, atol=TOL),
    OpCase(ops=("_linalg_vector_norm",), name="vector_norm_dtype", fn=lambda m, x: m.linalg.vector_norm(x, dim=1, dtype=m.float64),
           shapes=[((2, 3),)], dtypes=("float32",)),
    OpCase(ops=("_linalg_vector_norm",), name="vector_norm_int", fn=lambda m, x: m.linalg.vector_norm(x), shapes=[((3,),)],
           dtypes=("int64",)),
    *[OpCase(ops=("_linalg_matrix_norm",), name=f"matrix_norm_{o}", fn=lambda m, x, o=o: m.linalg.matrix_norm(x, o),
             shapes=[((3, 4),), ((2, 4, 3),)], rtol=TOL, atol=TOL) for o in ORDS],
    *[OpCase(ops=("_linalg_matrix_norm",), name=f"matrix_norm_dims_{o}",
             fn=lambda m, x, o=o: m.linalg.matrix_norm(x, o, dim=(2, 0), keepdim=True), shapes=[((3, 2, 4),)], rtol=TOL,
             atol=TOL) for o in ORDS],
    OpCase(ops=("_linalg_matrix_norm",), name="matrix_norm_default", fn=lambda m, x: m.linalg.matrix_norm(x), shapes=[((3, 4),)]),
    OpCase(ops=("_linalg_matrix_norm",), name="matrix_norm_bad_ord", fn=lambda m, x: m.linalg.matrix_norm(x, 3),
           shapes=[((3, 4),)]),
    OpCase(ops=("_linalg_matrix_norm",), name="matrix_norm_bad_str", fn=lambda m, x: m.linalg.matrix_norm(x, "abc"),
           shapes=[((3, 4),)]),
    OpCase(ops=("_linalg_matrix_norm",), name="matrix_norm_1d", fn=lambda m, x: m.linalg.matrix_norm(x), shapes=[((3,),)]),
    OpCase(ops=("_linalg_norm",), name="linalg_norm", fn=lambda m, x: m.linalg.norm(x), shapes=[((2, 3, 4),), ((5,),), ((),)],
           rtol=TOL, atol=TOL),
    *[OpCase(ops=("_linalg_norm",), name=f"linalg_norm_2d_{o}", fn=lambda m, x, o=o: m.linalg.norm(x, o), shapes=[((3, 4),)],
             rtol=TOL, atol=TOL) for o in ORDS],
    OpCase(ops=("_linalg_norm",), name="linalg_norm_1d_ord", fn=lambda m, x: m.linalg.norm(x, 3), shapes=[((5,),)], rtol=TOL,
           atol=TOL),
    OpCase(ops=("_linalg_norm",), name="linalg_norm_dims", fn=lambda m, x: m.linalg.norm(x, -2, dim=(0, 2), keepdim=True),
           shapes=[((2, 3, 4),)], rtol=TOL, atol=TOL),
    OpCase(ops=("_linalg_norm",), name="linalg_norm_dim", fn=lambda m, x: m.linalg.norm(x, dim=1), shapes=[((2, 3, 4),)],
           rtol=TOL, atol=TOL),
    OpCase(ops=("_linalg_norm",), name="linalg_norm_3d_ord", fn=lambda m, x: m.linalg.norm(x, "fro"), shapes=[((2, 3, 4),)]),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_parity(case):
    assert run_case(case) > 0


def test_linalg_error_type():
    assert issubclass(flow.linalg.LinAlgError, RuntimeError)
    for fn, args in ((flow.linalg.inv, (flow.zeros(2, 2),)), (flow.inverse, (flow.zeros(2, 2),)),
                     (flow.linalg.solve, (flow.zeros(2, 2), flow.ones(2))),
                     (flow.linalg.cholesky, (-flow.eye(2),)), (flow.cholesky, (-flow.eye(2),)),
                     (lambda a: a.inverse(), (flow.zeros(2, 2),))):
        with pytest.raises(flow.linalg.LinAlgError):
            fn(*args)


def test_larger_matrices():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((60, 60)) + 60 * np.eye(60)
    for name in ("inv", "det", "cholesky"):
        arg = a @ a.T if name == "cholesky" else a
        ours = getattr(flow.linalg, name)(flow.tensor(arg)).numpy()
        theirs = getattr(torch.linalg, name)(torch.tensor(arg)).numpy()
        np.testing.assert_allclose(ours, theirs, rtol=1e-9, atol=1e-12)
    b = rng.standard_normal((40, 25))
    np.testing.assert_allclose(flow.linalg.svdvals(flow.tensor(b)).numpy(), np.linalg.svd(b, compute_uv=False), rtol=1e-10)
    s = b @ b.T
    np.testing.assert_allclose(flow.linalg.eigvalsh(flow.tensor(s)).numpy(), np.linalg.eigvalsh(s), rtol=1e-9, atol=1e-9)
    q, r = flow.linalg.qr(flow.tensor(b))
    np.testing.assert_allclose((q @ r).numpy(), b, atol=1e-12)


def test_double_backward_through_inv():
    rng = np.random.default_rng(2)
    a = rng.standard_normal((3, 3)) + 3 * np.eye(3)
    grads = []
    for m in (flow, torch):
        x = m.tensor(a, requires_grad=True)
        (gx,) = m.autograd.grad(m.linalg.inv(x).sum(), [x], create_graph=True)
        (gg,) = m.autograd.grad((gx * gx).sum(), [x])
        grads.append(gg.detach().numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-9)


def _message(exc, fn, *args, **kwargs):
    with pytest.raises(exc) as info:
        fn(*args, **kwargs)
    return str(info.value)


def test_errors():
    msg = _message(RuntimeError, flow.linalg.inv, flow.ones(2, 3))
    assert "linalg.inv" in msg and "2 by 3" in msg
    msg = _message(flow.linalg.LinAlgError, flow.linalg.inv, flow.zeros(3, 2, 2))
    assert "linalg.inv" in msg and "Batch element 0" in msg and "singular" in msg
    msg = _message(flow.linalg.LinAlgError, flow.linalg.solve, flow.zeros(2, 2), flow.ones(2))
    assert "linalg.solve" in msg and "singular" in msg
    msg = _message(RuntimeError, flow.linalg.solve, flow.eye(2), flow.ones(3, 2))
    assert "linalg.solve" in msg and "2x2" in msg and "3x2" in msg
    msg = _message(RuntimeError, flow.linalg.solve, flow.ones(2, 3), flow.ones(2))
    assert "linalg.solve" in msg and "2 by 3" in msg
    msg = _message(flow.linalg.LinAlgError, flow.linalg.cholesky, -flow.eye(3))
    assert "linalg.cholesky" in msg and "order 1" in msg
    msg = _message(RuntimeError, flow.linalg.det, flow.ones(2, 2, dtype=flow.int64))
    assert "linalg.det" in msg and "Long" in msg
    msg = _message(RuntimeError, flow.linalg.eigh, flow.ones(2, 3))
    assert "linalg.eigh" in msg and "2 by 3" in msg
