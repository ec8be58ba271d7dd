"""PyTorch's linear-algebra names outside ``torch.linalg`` (issue 16): ``oneflow.lu``,
``lu_solve``, ``lu_unpack``, ``cholesky_solve``, ``cholesky_inverse``, ``triangular_solve``,
``geqrf``, ``orgqr``, ``ormqr``, ``pinverse``, ``matrix_power``, ``matrix_exp``, ``lobpcg`` and their Tensor
methods, each a thin mapping onto the ``oneflow.linalg`` implementations."""

from __future__ import annotations

import oneflow
from oneflow import return_types
from oneflow._linalg_functions import lobpcg, matrix_exp, matrix_power, pinverse
from oneflow._linalg_householder import geqrf, orgqr, ormqr, triangular_solve
from oneflow._linalg_lu import cholesky_inverse, cholesky_solve, lu_unpack


def lu(A, pivot: bool = True, get_infos: bool = False):
    """``(LU, pivots)`` of ``linalg.lu_factor`` (``(LU, pivots, infos)`` of ``lu_factor_ex`` with
    ``get_infos=True``, which does not raise for singular matrices)."""
    LU, pivots, infos = oneflow.linalg.lu_factor_ex(A, pivot=pivot, check_errors=not get_infos)
    if get_infos:
        return return_types.make("_lu_with_info", ("LU", "pivots", "info"), (LU, pivots, infos))
    return LU, pivots


def lu_solve(b, LU_data, LU_pivots):
    """``linalg.lu_solve(LU_data, LU_pivots, b)``: the solution X of ``A X = b`` (arguments in the
    legacy order)."""
    return oneflow.linalg.lu_solve(LU_data, LU_pivots, b)


FUNCTIONS = {
    "lu": lu, "lu_solve": lu_solve, "lu_unpack": lu_unpack, "cholesky_solve": cholesky_solve,
    "cholesky_inverse": cholesky_inverse, "triangular_solve": triangular_solve, "geqrf": geqrf,
    "orgqr": orgqr, "ormqr": ormqr, "pinverse": pinverse, "matrix_power": matrix_power,
    "matrix_exp": matrix_exp, "lobpcg": lobpcg,
}  # fmt: skip

METHODS = (
    "cholesky_inverse", "cholesky_solve", "geqrf", "lu", "lu_solve", "matrix_exp", "orgqr", "ormqr",
    "pinverse", "triangular_solve",
)  # fmt: skip


def _method(fn):
    def method(self, *args, **kwargs):
        return fn(self, *args, **kwargs)

    method.__name__ = fn.__name__
    method.__doc__ = fn.__doc__
    return method


def install(namespace: dict) -> list:
    """Puts the functions into ``namespace`` (``oneflow``'s) and the methods onto the Tensor, where
    neither has the name yet; returns the function names added."""
    added = []
    for name, fn in FUNCTIONS.items():
        if name not in namespace:
            namespace[name] = fn
            added.append(name)
    for name in METHODS:
        if not hasattr(oneflow.Tensor, name):
            setattr(oneflow.Tensor, name, _method(FUNCTIONS[name]))
    return added
