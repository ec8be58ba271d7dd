"""Parity rows for the tensor ops of ops/defs/tensor_ops.cc: einsum, tensordot, cross, diagonals,
index updates, masked_scatter, nan_to_num, take/take_along_dim, as_strided, meshgrid, diff, and the
Tensor.new_* methods."""

import numpy as np
import pytest
import torch
from parity import OpCase, run_case

import oneflow as flow

FLOATS = ("float32", "float64")
NUMERIC = ("float32", "float64", "int64")
ALL = ("float32", "float64", "int64", "bool")


def _t(m, data, dtype=None):
    return m.tensor(data) if dtype is None else m.tensor(data, dtype=getattr(m, dtype))


def _inplace(fn):
    """Runs an in-place op on a non-leaf copy of x (so autograd records it) and returns the copy."""

    def run(m, x, *rest):
        y = x.clone()
        fn(m, y, *rest)
        return y

    return run


def _einsum(eq, tol=None):
    return OpCase(ops=("einsum",), name=f"einsum[{eq}]", fn=lambda m, *xs: m.einsum(eq, *xs), shapes=[], rtol=tol,
                  atol=tol)


def _einsum_case(eq, shapes, dtypes=NUMERIC):
    case = _einsum(eq, 1e-5)
    case.shapes = shapes
    case.dtypes = dtypes
    return case


CASES = [
    # ---- einsum: products, contractions, diagonals, ellipses, broadcasting, implicit outputs
    _einsum_case("ij,jk->ik", [((2, 3), (3, 4)), ((0, 3), (3, 4)), ((2, 0), (0, 4)), ((1, 3), (3, 1))]),
    _einsum_case("ij,jk", [((2, 3), (3, 4))]),
    _einsum_case("bij,bjk->bik", [((2, 2, 3), (2, 3, 4)), ((0, 2, 3), (0, 3, 4))]),
    _einsum_case("ijk,jil->kl", [((2, 3, 4), (3, 2, 5))]),
    _einsum_case("i,j->ij", [((3,), (4,))]),
    _einsum_case("i,i->", [((5,), (5,)), ((0,), (0,))]),
    _einsum_case("i,i", [((5,), (5,))]),
    _einsum_case("ij->", [((2, 3),)]),
    _einsum_case("ij->ji", [((2, 3),)]),
    _einsum_case("ij", [((2, 3),)]),
    _einsum_case("ba", [((2, 3),)]),
    _einsum_case("ii->i", [((3, 3),)]),
    _einsum_case("ii", [((3, 3),)]),
    _einsum_case("iij->j", [((3, 3, 4),)]),
    _einsum_case("ijij->ij", [((2, 3, 2, 3),)]),
    _einsum_case("ii,ij->j", [((3, 3), (3, 2))]),
    _einsum_case("...ij,...jk", [((5, 1, 2, 3), (4, 3, 2)), ((2, 3), (3, 2))]),
    _einsum_case("...ij,...jk->...ik", [((2, 2, 3), (3, 4))]),
    _einsum_case("i...->...", [((3, 2, 4),)]),
    _einsum_case("...ij->ij", [((5, 2, 3),)]),
    _einsum_case("i...j,j...->...i", [((2, 4, 3), (3, 4))]),
    _einsum_case("...", [((),), ((2, 3),)]),
    _einsum_case("", [((),)]),
    _einsum_case("ij,jk", [((2, 3), (1, 4)), ((2, 1), (3, 4))]),
    _einsum_case("bij,bjk->bik", [((1, 2, 3), (4, 3, 2))]),
    _einsum_case("ab,bc,cd->ad", [((2, 3), (3, 4), (4, 5)), ((2, 30), (30, 1), (1, 40))]),
    _einsum_case("bn,anm,bm->ba", [((2, 3), (4, 3, 5), (2, 5))]),
    _einsum_case("ij,kl,jk", [((2, 3), (4, 2), (3, 4))]),
    _einsum_case("Ab,bC->AC", [((2, 3), (3, 4))]),
    _einsum_case("aB,Ba", [((2, 3), (3, 2))]),
    _einsum_case(" i j , j k -> i k ", [((2, 3), (3, 4))]),
    _einsum_case("ij,jk->ik", [((2, 3), (3, 4))], dtypes=("int32",)),
    OpCase(ops=("einsum",), name="einsum_list", fn=lambda m, a, b: m.einsum("ij,jk", [a, b]), shapes=[((2, 3), (3, 4))]),
    OpCase(ops=("einsum",), name="einsum_views", fn=lambda m, a, b: m.einsum("ij,jk->ik", a.t(), b[:, ::2]),
           shapes=[((3, 2), (3, 8))]),
    # errors: operand counts, subscripts, sizes, dtypes
    _einsum_case("ij,jk", [((2, 3),)]),
    _einsum_case("ij", [((2, 3), (3, 4))]),
    _einsum_case("ij,j1", [((2, 3), (3, 4))]),
    _einsum_case("ijk", [((2, 3),)]),
    _einsum_case("ij,jk", [((2, 3), (4, 4))]),
    _einsum_case("ij,jk->ii", [((2, 3), (3, 4))]),
    _einsum_case("ij,jk->l", [((2, 3), (3, 4))]),
    _einsum_case("..i", [((2, 3),)]),
    _einsum_case("ii", [((2, 3),)]),
    OpCase(ops=("einsum",), name="einsum_dtype_mismatch", fn=lambda m, a, b: m.einsum("ij,jk", a, b.double()),
           shapes=[((2, 3), (3, 4))], dtypes=("float32",)),
    # ---- tensordot
    OpCase(ops=("tensordot",), fn=lambda m, a, b: m.tensordot(a, b, dims=2), shapes=[((2, 3, 4), (3, 4, 5)), ((3, 4), (3, 4))],
           dtypes=NUMERIC, rtol=1e-5, atol=1e-5),
    OpCase(ops=("tensordot",), name="tensordot_int", fn=lambda m, a, b: m.tensordot(a, b, 1),
           shapes=[((2, 3), (3, 4)), ((2, 3), (1, 4)), ((2, 0), (0, 4))], dtypes=NUMERIC),
    OpCase(ops=("tensordot",), name="tensordot_outer", fn=lambda m, a, b: m.tensordot(a, b, dims=0), shapes=[((2, 3), (4,))]),
    OpCase(ops=("tensordot",), name="tensordot_lists", fn=lambda m, a, b: m.tensordot(a, b, dims=([0, 2], [1, 0])),
           shapes=[((2, 3, 4), (4, 2, 5))], dtypes=NUMERIC),
    OpCase(ops=("tensordot",), name="tensordot_int_lists", fn=lambda m, a, b: m.tensordot(a, b, ([-1], [0])),
           shapes=[((2, 3), (3, 4))]),
    OpCase(ops=("tensordot",), name="tensordot_tensor_dims",
           fn=lambda m, a, b: m.tensordot(a, b, m.tensor([[1], [0]])) + m.tensordot(a, b, m.tensor(1)), shapes=[((2, 3), (3, 4))]),
    OpCase(ops=("tensordot",), name="tensordot_pair_of_ints", fn=lambda m, a, b: m.tensordot(a, b, [1, 0]),
           shapes=[((2, 3), (3, 4))]),
    OpCase(ops=("tensordot",), name="tensordot_errors", fn=lambda m, a, b: m.tensordot(a, b, dims=([1], [0, 1])),
           shapes=[((2, 3), (3, 4))]),
    OpCase(ops=("tensordot",), name="tensordot_size_mismatch", fn=lambda m, a, b: m.tensordot(a, b, dims=1),
           shapes=[((2, 3), (4, 4))]),
    OpCase(ops=("tensordot",), name="tensordot_too_many_dims", fn=lambda m, a, b: m.tensordot(a, b, dims=3),
           shapes=[((2, 3), (3, 4))]),
    OpCase(ops=("tensordot",), name="tensordot_dtype", fn=lambda m, a, b: m.tensordot(a, b.double(), dims=1),
           shapes=[((2, 3), (3, 4))], dtypes=("float32",)),
    # ---- cross
    OpCase(ops=("cross",), fn=lambda m, a, b: m.cross(a, b, dim=-1), shapes=[((2, 3), (2, 3)), ((1, 3), (4, 3)), ((0, 3), (0, 3))],
           dtypes=NUMERIC),
    OpCase(ops=("cross",), name="cross_dim0", fn=lambda m, a, b: a.cross(b, 0), shapes=[((3, 2), (3, 2)), ((3,), (3,))]),
    OpCase(ops=("cross",), name="cross_default_dim", fn=lambda m, a, b: m.cross(a, b), shapes=[((2, 3), (2, 3)), ((3, 3, 2), (3, 3, 2))]),
    OpCase(ops=("cross",), name="linalg_cross", fn=lambda m, a, b: m.linalg.cross(a, b), shapes=[((4, 3), (1, 3)), ((2, 5, 3), (5, 3))]),
    OpCase(ops=("cross",), name="cross_bad_size", fn=lambda m, a, b: m.cross(a, b, dim=1), shapes=[((3, 2), (3, 2))]),
    OpCase(ops=("cross",), name="cross_no_size_3", fn=lambda m, a, b: m.cross(a, b), shapes=[((4, 2), (4, 2))]),
    OpCase(ops=("cross",), name="cross_bad_dtype", fn=lambda m, a, b: m.cross(a, b.double(), dim=0), shapes=[((3,), (3,))],
           dtypes=("float32",)),
    # ---- diag, diag_embed, diagonal, trace
    OpCase(ops=("diag",), fn=lambda m, x: m.diag(x), shapes=[((3,),), ((3, 4),), ((0,),), ((2, 0),)], dtypes=ALL),
    OpCase(ops=("diag",), name="diag_offsets", fn=lambda m, x: m.diag(x, 1) + m.diag(x, -2).sum(), shapes=[((3,),), ((3, 4),)],
           dtypes=NUMERIC),
    OpCase(ops=("diag",), name="diag_out_of_range_offset", fn=lambda m, x: x.diag(5), shapes=[((3, 4),)]),
    OpCase(ops=("diag",), name="diag_3d", fn=lambda m, x: m.diag(x), shapes=[((2, 3, 4),)]),
    OpCase(ops=("diag_embed",), fn=lambda m, x: m.diag_embed(x), shapes=[((3,),), ((2, 3),), ((2, 0),)], dtypes=ALL),
    OpCase(ops=("diag_embed",), name="diag_embed_dims", fn=lambda m, x: m.diag_embed(x, offset=-1, dim1=0, dim2=2),
           shapes=[((2, 3),)], dtypes=NUMERIC),
    OpCase(ops=("diag_embed",), name="diag_embed_same_dims", fn=lambda m, x: m.diag_embed(x, 0, 1, 1), shapes=[((2, 3),)]),
    OpCase(ops=("diagonal",), fn=lambda m, x: m.diagonal(x), shapes=[((3, 4),), ((4, 3),), ((0, 3),), ((2, 3, 4),)], dtypes=ALL),
    OpCase(ops=("diagonal",), name="diagonal_offset_dims",
           fn=lambda m, x: x.diagonal(1, 0, 2) * 2 + x.diagonal(-1, -1, 0).sum(), shapes=[((3, 2, 4),)], dtypes=NUMERIC),
    OpCase(ops=("diagonal",), name="diagonal_large_offset", fn=lambda m, x: m.diagonal(x, 7), shapes=[((3, 4),)]),
    OpCase(ops=("diagonal",), name="diagonal_linalg", fn=lambda m, x: m.linalg.diagonal(x, offset=1), shapes=[((2, 3, 4),)]),
    OpCase(ops=("diagonal",), name="diagonal_is_view", fn=lambda m, x: _write_diagonal(x), shapes=[((3, 3),)]),
    OpCase(ops=("diagonal",), name="diagonal_same_dims", fn=lambda m, x: m.diagonal(x, 0, 1, 1), shapes=[((3, 3),)]),
    OpCase(ops=("diagonal",), name="diagonal_1d", fn=lambda m, x: m.diagonal(x), shapes=[((3,),)]),
    OpCase(ops=("trace",), fn=lambda m, x: m.trace(x), shapes=[((3, 3),), ((3, 5),), ((0, 2),)], dtypes=NUMERIC + ("int32",)),
    OpCase(ops=("trace",), name="trace_3d", fn=lambda m, x: x.trace(), shapes=[((2, 3, 3),)]),
    # ---- index_add / index_copy / index_fill
    OpCase(ops=("index_add",), fn=lambda m, x, s: x.index_add(0, _t(m, [2, 0, 2]), s), shapes=[((3, 4), (3, 4)), ((4,), (3,))],
           dtypes=NUMERIC),
    OpCase(ops=("index_add",), name="index_add_alpha_dim", fn=lambda m, x, s: m.index_add(x, -1, _t(m, [1, 1], "int32"), s, alpha=-2.5),
           shapes=[((2, 3), (2, 2)), ((2, 0, 3), (2, 0, 2))]),
    OpCase(ops=("index_add",), name="index_add_int_alpha", fn=lambda m, x, s: x.index_add(1, _t(m, [0]), s, alpha=3),
           shapes=[((2, 3), (2, 1))], dtypes=("int64", "int32")),
    OpCase(ops=("index_add",), name="index_add_scalar", fn=lambda m, x, s: x.index_add(0, _t(m, [0]), s), shapes=[((), ())]),
    OpCase(ops=("index_add",), name="index_add_out_of_range", fn=lambda m, x, s: x.index_add(0, _t(m, [3]), s),
           shapes=[((3, 4), (1, 4))]),
    OpCase(ops=("index_add",), name="index_add_bad_count", fn=lambda m, x, s: x.index_add(0, _t(m, [0, 1]), s),
           shapes=[((3, 4), (3, 4))]),
    OpCase(ops=("index_add",), name="index_add_bad_dtype", fn=lambda m, x, s: x.index_add(0, _t(m, [0]), s.double()),
           shapes=[((3, 4), (1, 4))], dtypes=("float32",)),
    OpCase(ops=("index_add",), name="index_add_bad_index_dtype", fn=lambda m, x, s: x.index_add(0, _t(m, [0.0]), s),
           shapes=[((3, 4), (1, 4))]),
    OpCase(ops=("index_add",), name="index_add_2d_index", fn=lambda m, x, s: x.index_add(0, _t(m, [[0]]), s),
           shapes=[((3, 4), (1, 4))]),
    OpCase(ops=("index_add",), name="index_add_bad_shape", fn=lambda m, x, s: x.index_add(0, _t(m, [0]), s),
           shapes=[((3, 4), (1, 3)), ((3,), ())]),
    OpCase(ops=("index_add_",), fn=_inplace(lambda m, y, s: y.index_add_(1, _t(m, [0, 0, 2]), s, alpha=2)),
           shapes=[((2, 3), (2, 3))], dtypes=NUMERIC),
    OpCase(ops=("index_copy",), fn=lambda m, x, s: x.index_copy(1, _t(m, [3, 0]), s), shapes=[((2, 4), (2, 2)), ((2, 4, 2), (2, 2, 2))],
           dtypes=ALL),
    OpCase(ops=("index_copy",), name="index_copy_fn", fn=lambda m, x, s: m.index_copy(x, 0, _t(m, [1]), s), shapes=[((3,), (1,))]),
    OpCase(ops=("index_copy",), name="index_copy_out_of_range", fn=lambda m, x, s: x.index_copy(1, _t(m, [4]), s),
           shapes=[((2, 4), (2, 1))]),
    OpCase(ops=("index_copy_",), fn=_inplace(lambda m, y, s: y.index_copy_(0, _t(m, [2, 1]), s)), shapes=[((3, 2), (2, 2))],
           dtypes=ALL),
    OpCase(ops=("index_fill",), fn=lambda m, x: x.index_fill(1, _t(m, [2, 0, 2]), -1.5), shapes=[((2, 3),), ((2, 3, 2),)]),
    OpCase(ops=("index_fill",), name="index_fill_int", fn=lambda m, x: m.index_fill(x, 0, _t(m, [-1]), 7), shapes=[((3, 2),)],
           dtypes=ALL),
    OpCase(ops=("index_fill",), name="index_fill_tensor_value", fn=lambda m, x, v: x.index_fill(1, _t(m, [2, 0, 2]), v),
           shapes=[((2, 3), ())]),
    OpCase(ops=("index_fill",), name="index_fill_bad_value", fn=lambda m, x, v: x.index_fill(1, _t(m, [0]), v),
           shapes=[((2, 3), (1,))]),
    OpCase(ops=("index_fill",), name="index_fill_out_of_range", fn=lambda m, x: x.index_fill(1, _t(m, [3]), 0.0),
           shapes=[((2, 3),)]),
    OpCase(ops=("index_fill_",), fn=_inplace(lambda m, y: y.index_fill_(0, _t(m, [1]), 2)), shapes=[((3, 2),)], dtypes=ALL),
    # ---- masked_scatter
    OpCase(ops=("masked_scatter",), fn=lambda m, x, mask, s: x.masked_scatter(mask, s),
           shapes=[((2, 3), (2, 3), (2, 3)), ((2, 3), (3,), (7,)), ((3,), (2, 3), (2, 3)), ((0, 3), (0, 3), (0,))],
           dtypes=ALL, bool_inputs=(1,)),
    OpCase(ops=("masked_scatter",), name="masked_scatter_short_source", fn=lambda m, x, s: x.masked_scatter(x > -3, s),
           shapes=[((2, 3), (5,))]),
    OpCase(ops=("masked_scatter",), name="masked_scatter_bad_dtype", fn=lambda m, x, mask, s: x.masked_scatter(mask, s.double()),
           shapes=[((2, 3), (2, 3), (6,))], dtypes=("float32",), bool_inputs=(1,)),
    OpCase(ops=("masked_scatter_",), fn=_inplace(lambda m, y, mask, s: y.masked_scatter_(mask, s)),
           shapes=[((2, 3), (2, 3), (6,)), ((2, 3), (3,), (2, 4))], dtypes=ALL, bool_inputs=(1,)),
    # ---- nan_to_num: log gives NaN below 0, the where gives +-inf
    OpCase(ops=("nan_to_num",), fn=lambda m, x: m.nan_to_num(x.log()), shapes=[((3, 4),), ((0,),)]),
    OpCase(ops=("nan_to_num",), name="nan_to_num_values",
           fn=lambda m, x: _with_infs(m, x).nan_to_num(nan=0.5, posinf=3.0, neginf=-4.0), shapes=[((4, 5),)], grad=False),
    OpCase(ops=("nan_to_num",), name="nan_to_num_defaults", fn=lambda m, x: m.nan_to_num(_with_infs(m, x)),
           shapes=[((4, 5),)], grad=False),
    OpCase(ops=("nan_to_num",), name="nan_to_num_half", fn=lambda m, x: m.nan_to_num(_with_infs(m, x.float()).half()),
           shapes=[((4, 5),)], grad=False),
    OpCase(ops=("nan_to_num",), name="nan_to_num_ints", fn=lambda m, x: x.nan_to_num(1.0), shapes=[((3,),)],
           dtypes=("int64", "bool")),
    OpCase(ops=("nan_to_num_",), fn=_inplace(lambda m, y: y.log_().nan_to_num_(neginf=-1.0)), shapes=[((3, 4),)]),
    # ---- take / take_along_dim / narrow_copy
    OpCase(ops=("take",), fn=lambda m, x: m.take(x, _t(m, [[0, -1], [5, 2]])), shapes=[((2, 3),), ((6,),)], dtypes=ALL),
    OpCase(ops=("take",), name="take_repeat", fn=lambda m, x: x.take(_t(m, [1, 1, 1])), shapes=[((2, 2),), ((),)]),
    OpCase(ops=("take",), name="take_empty", fn=lambda m, x: x.take(m.zeros(0, dtype=m.int64)), shapes=[((2, 3),), ((0,),)]),
    OpCase(ops=("take",), name="take_out_of_range", fn=lambda m, x: x.take(_t(m, [6])), shapes=[((2, 3),)]),
    OpCase(ops=("take",), name="take_out_of_range_neg", fn=lambda m, x: x.take(_t(m, [-7])), shapes=[((2, 3),)]),
    OpCase(ops=("take_along_dim",), fn=lambda m, x: m.take_along_dim(x, _t(m, [[0], [2]]), 1), shapes=[((2, 3),)], dtypes=ALL),
    OpCase(ops=("take_along_dim",), name="take_along_dim_broadcast",
           fn=lambda m, x: x.take_along_dim(_t(m, [[0, 2, -1]]), dim=-1), shapes=[((4, 3),), ((1, 3),)]),
    OpCase(ops=("take_along_dim",), name="take_along_dim_sorted",
           fn=lambda m, x: m.take_along_dim(x, x.argsort(dim=0), dim=0), shapes=[((4, 3),)], dtypes=NUMERIC),
    # (torch views a non-contiguous input as 1-D here and fails; we flatten it)
    OpCase(ops=("take_along_dim",), name="take_along_dim_flat", fn=lambda m, x: m.take_along_dim(x, _t(m, [[5], [0]])),
           shapes=[((2, 3),)], noncontiguous=False),
    OpCase(ops=("take_along_dim",), name="take_along_dim_bad_ndim", fn=lambda m, x: m.take_along_dim(x, _t(m, [0]), 1),
           shapes=[((2, 3),)]),
    OpCase(ops=("take_along_dim",), name="take_along_dim_bad_dtype",
           fn=lambda m, x: m.take_along_dim(x, _t(m, [[0]], "int32"), 1), shapes=[((2, 3),)]),
    OpCase(ops=("narrow_copy",), fn=lambda m, x: m.narrow_copy(x, 1, 1, 2), shapes=[((2, 3),), ((2, 4, 2),)], dtypes=ALL),
    # (torch's own backward fails for a negative start)
    OpCase(ops=("narrow_copy",), name="narrow_copy_neg_start", fn=lambda m, x: x.narrow_copy(0, -2, 2), shapes=[((3, 2),)],
           grad=False),
    OpCase(ops=("narrow_copy",), name="narrow_copy_is_copy", fn=lambda m, x: _write_narrow_copy(x), shapes=[((3, 2),)]),
    OpCase(ops=("narrow_copy",), name="narrow_copy_out_of_range", fn=lambda m, x: x.narrow_copy(1, 2, 2), shapes=[((2, 3),)]),
    # ---- as_strided
    OpCase(ops=("as_strided",), fn=lambda m, x: m.as_strided(x, (2, 2), (1, 2)), shapes=[((2, 3),), ((6,),)], dtypes=ALL),
    OpCase(ops=("as_strided",), name="as_strided_offset", fn=lambda m, x: x.as_strided((3, 2), (2, 1), 1), shapes=[((2, 4),)]),
    OpCase(ops=("as_strided",), name="as_strided_overlapping", fn=lambda m, x: x.as_strided((3, 3), (1, 1)),
           shapes=[((6,),), ((2, 3),)]),
    OpCase(ops=("as_strided",), name="as_strided_of_view", fn=lambda m, x: x[1:].as_strided((2, 2), (1, 1)),
           shapes=[((6,),)]),
    OpCase(ops=("as_strided",), name="as_strided_empty", fn=lambda m, x: x.as_strided((0, 3), (3, 1)), shapes=[((2, 3),)]),
    OpCase(ops=("as_strided",), name="as_strided_is_view", fn=lambda m, x: _write_as_strided(x), shapes=[((2, 3),)]),
    OpCase(ops=("as_strided",), name="as_strided_out_of_bounds", fn=lambda m, x: x.as_strided((3, 3), (1, 1), 5),
           shapes=[((6,),)]),
    OpCase(ops=("as_strided",), name="as_strided_bad_strides", fn=lambda m, x: x.as_strided((3, 3), (1, 1, 1)),
           shapes=[((6,),)]),
    OpCase(ops=("as_strided",), name="as_strided_negative_stride", fn=lambda m, x: x.as_strided((2, 2), (1, -1)),
           shapes=[((6,),)]),
    # ---- meshgrid / cartesian_prod / diff
    OpCase(ops=("meshgrid",), fn=lambda m, a, b: m.meshgrid(a, b, indexing="ij"), shapes=[((2,), (3,)), ((0,), (3,))], dtypes=ALL),
    OpCase(ops=("meshgrid",), name="meshgrid_xy", fn=lambda m, a, b, c: m.meshgrid(a, b, c, indexing="xy"),
           shapes=[((2,), (3,), (4,)), ((), (3,), (2,))]),
    OpCase(ops=("meshgrid",), name="meshgrid_list", fn=lambda m, a, b: m.meshgrid([a, b], indexing="ij"), shapes=[((2,), (3,))]),
    OpCase(ops=("meshgrid",), name="meshgrid_one", fn=lambda m, a: m.meshgrid(a, indexing="xy"), shapes=[((3,),)]),
    OpCase(ops=("meshgrid",), name="meshgrid_bad_dtype", fn=lambda m, a, b: m.meshgrid(a, b.double(), indexing="ij"),
           shapes=[((2,), (3,))], dtypes=("float32",)),
    OpCase(ops=("meshgrid",), name="meshgrid_bad_indexing", fn=lambda m, a, b: m.meshgrid(a, b, indexing="ik"),
           shapes=[((2,), (3,))]),
    OpCase(ops=("meshgrid",), name="meshgrid_2d", fn=lambda m, a, b: m.meshgrid(a, b, indexing="ij"),
           shapes=[((2, 2), (3,))]),
    OpCase(ops=("cartesian_prod",), fn=lambda m, a, b: m.cartesian_prod(a, b), shapes=[((2,), (3,)), ((0,), (3,))], dtypes=ALL),
    OpCase(ops=("cartesian_prod",), name="cartesian_prod_three", fn=lambda m, a, b, c: m.cartesian_prod(a, b, c),
           shapes=[((2,), (3,), (2,))]),
    OpCase(ops=("cartesian_prod",), name="cartesian_prod_one", fn=lambda m, a: m.cartesian_prod(a) * 2, shapes=[((3,),)]),
    OpCase(ops=("cartesian_prod",), name="cartesian_prod_2d", fn=lambda m, a, b: m.cartesian_prod(a, b), shapes=[((2, 2), (3,))]),
    OpCase(ops=("diff",), fn=lambda m, x: m.diff(x), shapes=[((5,),), ((3, 4),), ((3, 0),), ((3, 1),)], dtypes=ALL),
    OpCase(ops=("diff",), name="diff_n_dim", fn=lambda m, x: x.diff(n=2, dim=0), shapes=[((4, 3),), ((2, 3),)], dtypes=NUMERIC),
    OpCase(ops=("diff",), name="diff_n0", fn=lambda m, x: m.diff(x, n=0) * 2, shapes=[((4, 3),)]),
    OpCase(ops=("diff",), name="diff_prepend_append", fn=lambda m, x, p, a: m.diff(x, 1, -1, prepend=p, append=a),
           shapes=[((2, 3), (2, 1), (2, 2))], dtypes=NUMERIC),
    OpCase(ops=("diff",), name="diff_append_only", fn=lambda m, x, a: m.diff(x, 3, 0, append=a), shapes=[((2, 3), (2, 3))]),
    OpCase(ops=("diff",), name="diff_0d", fn=lambda m, x: m.diff(x), shapes=[((),)]),
    OpCase(ops=("diff",), name="diff_bad_append", fn=lambda m, x, a: m.diff(x, append=a), shapes=[((2, 3), (3,))]),
    # ---- index_put as public oneflow.index_put
    OpCase(ops=("index_put",), name="index_put_public",
           fn=lambda m, x, v: m.index_put(x, (_t(m, [0, 2]), _t(m, [1, 3])), v), shapes=[((3, 4), (2,)), ((3, 4), ())],
           dtypes=ALL),
    OpCase(ops=("index_put",), name="index_put_public_accumulate",
           fn=lambda m, x, v: m.index_put(x, [_t(m, [0, 0])], v, accumulate=True), shapes=[((3, 4), (4,))], dtypes=NUMERIC),
    OpCase(ops=("index_put",), name="index_put_public_mask",
           fn=lambda m, x, v: m.index_put(x, (x > 0,), v), shapes=[((3, 4), ())]),
]


def _write_diagonal(x):
    """diagonal is a view: writing through it changes the base."""
    y = x.clone()
    y.diagonal().mul_(3)
    return y


def _write_as_strided(x):
    y = x.clone()
    y.as_strided((2,), (4,)).fill_(7)
    return y


def _write_narrow_copy(x):
    y = x.clone()
    y.narrow_copy(0, 0, 2).fill_(7)
    return y


def _with_infs(m, x):
    inf = float("inf")
    return m.where(x > 1, x * inf, m.where(x < -1, x * inf, x.log()))


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_parity(case):
    assert run_case(case) > 0


# ---- new_* methods and the *_like creation functions ------------------------------------------


@pytest.mark.parametrize("dtype", ["float32", "int64"])
def test_new_methods(dtype):
    for m in (flow, torch):
        x = m.ones(2, 3, dtype=getattr(m, dtype))
        checks = [
            (x.new_tensor([1, 2]), (2,), dtype),
            (x.new_tensor([[1.5]], dtype=m.float64), (1, 1), "float64"),
            (x.new_zeros(2, 3), (2, 3), dtype),
            (x.new_zeros((4,)), (4,), dtype),
            (x.new_ones([1, 2], dtype=m.int8), (1, 2), "int8"),
            (x.new_empty(3), (3,), dtype),
            (x.new_full((2, 2), 5), (2, 2), dtype),
        ]
        for t, shape, want in checks:
            assert tuple(t.shape) == shape
            assert str(t.dtype).split(".")[-1] == want
        np.testing.assert_array_equal(x.new_full((2,), 5).numpy(), [5, 5])
        np.testing.assert_array_equal(x.new_ones(2).numpy(), [1, 1])
        assert x.new_zeros(2, dtype=m.float32, requires_grad=True).requires_grad
        assert x.new_tensor([1.0], requires_grad=True, dtype=m.float64).requires_grad
        assert str(x.new_zeros(1).device) == "cpu"


def test_like_functions_take_dtype_device_requires_grad():
    for m in (flow, torch):
        x = m.ones(2, 3)
        for fn, args in ((m.zeros_like, ()), (m.ones_like, ()), (m.empty_like, ()), (m.full_like, (2.5,)),
                         (m.rand_like, ()), (m.randn_like, ())):
            t = fn(x, *args, dtype=m.float64, device="cpu", requires_grad=True)
            assert t.dtype == m.float64 and t.requires_grad and tuple(t.shape) == (2, 3)
        assert m.full_like(x, 7, dtype=m.int64).dtype == m.int64
        assert m.randint_like(x, 3, 5, dtype=m.int32).dtype == m.int32


# ---- behaviour beyond values -----------------------------------------------------------------------


def test_einsum_matches_a_chain_of_matmuls_in_any_order():
    rng = np.random.default_rng(0)
    a, b, c, d = (rng.standard_normal(s) for s in ((3, 40), (40, 2), (2, 50), (50, 4)))
    ours = flow.einsum("ab,bc,cd,de->ae", *(flow.tensor(t) for t in (a, b, c, d)))
    np.testing.assert_allclose(ours.numpy(), a @ b @ c @ d, rtol=1e-10)


def test_double_backward_through_einsum():
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((2, 3)), rng.standard_normal((3,))
    grads = []
    for m in (flow, torch):
        x = m.tensor(a, requires_grad=True)
        y = m.tensor(b, requires_grad=True)
        (gx,) = m.autograd.grad(m.einsum("ij,j->i", x, y).pow(2).sum(), [x], create_graph=True)
        (gy,) = m.autograd.grad(gx.sum(), [y])
        grads.append(gy.detach().numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-10)


def _message(exc, fn, *args, **kwargs):
    with pytest.raises(exc) as info:
        fn(*args, **kwargs)
    return str(info.value)


def test_errors():
    a, b = flow.ones(2, 3), flow.ones(3, 4)
    msg = _message(RuntimeError, flow.einsum, "ij,jk,kl", a, b)
    assert "einsum" in msg and "fewer operands" in msg
    msg = _message(RuntimeError, flow.einsum, "ij", a, b)
    assert "einsum" in msg and "more operands" in msg
    msg = _message(RuntimeError, flow.einsum, "ijk,jk", a, b)
    assert "einsum" in msg and "(3)" in msg and "(2)" in msg and "operand 0" in msg
    msg = _message(RuntimeError, flow.einsum, "ij,jk", a, flow.ones(4, 4))
    assert "einsum" in msg and "subscript j" in msg and "size 4" in msg and "size 3" in msg
    msg = _message(RuntimeError, flow.einsum, "i#,jk", a, b)
    assert "einsum" in msg and "invalid subscript" in msg
    msg = _message(RuntimeError, flow.cross, flow.ones(3, 2), flow.ones(3, 2), dim=1)
    assert "cross" in msg and "[3, 2]" in msg and "length 3" in msg
    msg = _message(RuntimeError, flow.tensordot, a, flow.ones(4, 4), dims=1)
    assert "tensordot" in msg and "[2, 3]" in msg and "[4, 4]" in msg
    msg = _message(RuntimeError, flow.as_strided, flow.ones(6), (3, 3), (1, 1), 5)
    assert "as_strided" in msg and "[3, 3]" in msg and "out of bounds" in msg
    msg = _message(RuntimeError, flow.index_add, flow.ones(3, 4), 0, flow.tensor([5]), flow.ones(1, 4))
    assert "index_add" in msg and "5" in msg and "size 3" in msg
    msg = _message(RuntimeError, flow.trace, flow.ones(2, 2, 2))
    assert "trace" in msg and "[2, 2, 2]" in msg
    msg = _message(RuntimeError, flow.diagonal, flow.ones(3, 3), 0, 1, 1)
    assert "diagonal" in msg and "[3, 3]" in msg
    msg = _message(RuntimeError, flow.ones(2, 3).masked_scatter, flow.ones(2, 3, dtype=flow.bool), flow.ones(4))
    assert "masked_scatter" in msg and "4 elements" in msg
    msg = _message(IndexError, flow.take, flow.ones(2, 3), flow.tensor([6]))
    assert "take" in msg and "6" in msg
