"""Parity rows for reductions and scans (ops/defs/reduce.cc)."""


import numpy as np
import parity
import pytest
from parity import OpCase, run_case

import oneflow as flow

SHAPES = [((2, 3, 4),), ((5,),), ((),), ((0, 3),), ((3, 1),)]
NONEMPTY = [s for s in SHAPES if 0 not in s[0]]
WITH_DIMS = [s for s in SHAPES if s[0]]
NUMERIC = ("float32", "float64", "int64", "int32")
FLOATS = ("float32", "float64")
INTS = ("int64", "int32", "int16", "int8", "uint8")
NAN = float("nan")
INF = float("inf")


def _ties(x):
    """x rounded to integers, with x's gradient: many equal values, all differentiable."""
    return x - (x - x.round()).detach()


# Values injected into x (3, 4) keep x's gradient, so the reduction's
# gradient at those positions is compared too.
_ZERO_AT = [[0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [1.0, 0.0, 1.0, 0.0]]


def _zeros(m, x):
    """x (3, 4) with zeros: row 0 has one, row 1 none, row 2 two."""
    return x - (x * m.tensor(_ZERO_AT)).detach()


def _one_zero(m, x):
    """x (3, 4) with a single zero."""
    return x - (x * m.tensor([[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 0.0]])).detach()


def _nans(m, x):
    """x (3, 4) with NaN in columns 1 and 3."""
    return x + m.tensor([0.0, NAN, 0.0, NAN])


def _plus(m, x, values):
    """x plus constants (NaN, inf) at some positions."""
    return x + m.tensor(values)


def _grad_of(m, f, x):
    """The gradient of f(x) weighted by a fixed ramp, with its own graph (for double backward)."""
    y = f(x)
    w = m.arange(y.numel()).to(y.dtype).reshape(y.shape) / 7.0 - 0.5
    return m.autograd.grad((y * w).sum(), x, create_graph=True)[0]


ZERO_ROWS = [((3, 4),)]
HALVES = ("float16", "bfloat16")

CASES = [
    # ---- sum, mean, nansum -------------------------------------------------------------
    OpCase(ops=("sum",), fn=lambda m, x: x.sum(), shapes=SHAPES, dtypes=NUMERIC + ("bool",)),
    OpCase(ops=("sum",), name="sum_dim", fn=lambda m, x: m.sum(x, -1), shapes=WITH_DIMS, dtypes=NUMERIC),
    OpCase(ops=("sum",), name="sum_dims_keepdim", fn=lambda m, x: x.sum((0, 2), keepdim=True),
           shapes=[((2, 3, 4),), ((1, 2, 0),)]),
    OpCase(ops=("sum",), name="sum_dtype", fn=lambda m, x: x.sum(dtype=m.float64), shapes=SHAPES[:2]),
    OpCase(ops=("mean",), fn=lambda m, x: x.mean(), shapes=SHAPES[:3]),
    OpCase(ops=("mean",), name="mean_dim", fn=lambda m, x: m.mean(x, (0, 1)), shapes=[((2, 3, 4),), ((3, 1),)]),
    OpCase(ops=("mean",), name="mean_int_refused", fn=lambda m, x: x.mean(), shapes=SHAPES[:1], dtypes=("int64",)),
    OpCase(ops=("sum_to_size",), fn=lambda m, x: x.sum_to_size(3, 1), shapes=[((2, 3, 4),), ((3, 4),)]),
    OpCase(ops=("nansum",), fn=lambda m, x: m.nansum(x), shapes=SHAPES, dtypes=NUMERIC + ("bool", "uint8")),
    OpCase(ops=("nansum",), name="nansum_dim", fn=lambda m, x: x.nansum((0, -1), keepdim=True),
           shapes=[((2, 3, 4),), ((0, 3),), ((3, 1),)], dtypes=NUMERIC),
    OpCase(ops=("nansum",), name="nansum_nan", fn=lambda m, x: m.nansum(_nans(m, x), 1), shapes=ZERO_ROWS),
    OpCase(ops=("nansum",), name="nansum_nan_all", fn=lambda m, x: _nans(m, x).nansum(), shapes=ZERO_ROWS),
    OpCase(ops=("nansum",), name="nansum_dtype", fn=lambda m, x: m.nansum(x, 0, dtype=m.float64),
           shapes=[((2, 3),)], dtypes=("float32", "int32")),
    # ---- prod ---------------------------------------------------------------------------
    OpCase(ops=("prod",), fn=lambda m, x: x.prod(), shapes=SHAPES, dtypes=NUMERIC + ("bool", "uint8")),
    OpCase(ops=("prod",), name="prod_dim", fn=lambda m, x: m.prod(x, 1), shapes=[((2, 3, 4),), ((0, 3),), ((3, 1),)],
           dtypes=NUMERIC + ("int8",)),
    OpCase(ops=("prod",), name="prod_dim_keepdim", fn=lambda m, x: x.prod(-1, keepdim=True),
           shapes=[((2, 3, 4),), ((5,),), ((),), ((0, 3),)]),
    OpCase(ops=("prod",), name="prod_dim0_of_empty", fn=lambda m, x: x.prod(0), shapes=[((0, 3),)]),
    OpCase(ops=("prod",), name="prod_dtype", fn=lambda m, x: x.prod(dtype=m.float64), shapes=SHAPES[:2],
           dtypes=("float32", "int32")),
    OpCase(ops=("prod",), name="prod_dim_dtype", fn=lambda m, x: m.prod(x, 0, dtype=m.int8), shapes=[((4, 3),)],
           dtypes=("int64", "int8")),
    OpCase(ops=("prod",), name="prod_zeros_dim", fn=lambda m, x: _zeros(m, x).prod(1), shapes=ZERO_ROWS),
    OpCase(ops=("prod",), name="prod_zeros_dim0", fn=lambda m, x: _zeros(m, x).prod(0, keepdim=True),
           shapes=ZERO_ROWS),
    OpCase(ops=("prod",), name="prod_one_zero", fn=lambda m, x: _one_zero(m, x).prod(), shapes=ZERO_ROWS),
    OpCase(ops=("prod",), name="prod_two_zeros", fn=lambda m, x: _zeros(m, x)[1:3].prod(), shapes=ZERO_ROWS),
    OpCase(ops=("prod",), name="prod_many_zeros", fn=lambda m, x: _zeros(m, x).prod(), shapes=ZERO_ROWS),
    OpCase(ops=("prod",), name="prod_rounded", fn=lambda m, x: _ties(x).prod(-1), shapes=[((6, 3),), ((4, 2, 5),)]),
    OpCase(ops=("prod",), name="prod_nan", fn=lambda m, x: _nans(m, x).prod(1), shapes=ZERO_ROWS),
    OpCase(ops=("prod",), name="prod_nan_and_zero",
           fn=lambda m, x: _plus(m, _zeros(m, x), [[0.0, 0.0, NAN, 0.0], [0.0] * 4, [0.0, 0.0, 0.0, INF]]).prod(1),
           shapes=ZERO_ROWS, noncontiguous=False),
    OpCase(ops=("prod",), name="prod_nan_and_zero_all",
           fn=lambda m, x: _plus(m, _one_zero(m, x), [0.0, NAN, 0.0, 0.0]).prod(), shapes=ZERO_ROWS),
    OpCase(ops=("prod",), name="prod_inf", fn=lambda m, x: _plus(m, x, [0.0, INF, 0.0]).prod(),
           shapes=[((3,),)]),
    # ---- max, min ----------------------------------------------------------------------
    OpCase(ops=("max",), fn=lambda m, x: x.max(), shapes=SHAPES, dtypes=NUMERIC + ("bool", "uint8", "int8")),
    OpCase(ops=("min",), fn=lambda m, x: m.min(x), shapes=SHAPES, dtypes=NUMERIC + ("bool", "uint8")),
    OpCase(ops=("max",), name="max_ties", fn=lambda m, x: _ties(x).max(), shapes=[((2, 3, 4),), ((6,),)]),
    OpCase(ops=("min",), name="min_ties", fn=lambda m, x: _ties(x).min(), shapes=[((2, 3, 4),), ((6,),)]),
    OpCase(ops=("max",), name="max_nan", fn=lambda m, x: _nans(m, x).max(), shapes=ZERO_ROWS),
    OpCase(ops=("min",), name="min_nan", fn=lambda m, x: _nans(m, x).min(), shapes=ZERO_ROWS),
    OpCase(ops=("max",), name="max_dim", fn=lambda m, x: m.max(x, 1), shapes=[((2, 3, 4),), ((3, 1),), ((0, 3),)],
           dtypes=NUMERIC + ("bool", "uint8")),
    OpCase(ops=("max",), name="max_dim_last", fn=lambda m, x: x.max(-1), shapes=WITH_DIMS + [((),)]),
    OpCase(ops=("max",), name="max_dim_keepdim", fn=lambda m, x: x.max(dim=0, keepdim=True),
           shapes=[((2, 3, 4),), ((5,),), ((),), ((3, 0),)]),
    OpCase(ops=("max",), name="max_dim_empty_refused", fn=lambda m, x: x.max(0), shapes=[((0, 3),)]),
    OpCase(ops=("max",), name="max_dim_out_of_range", fn=lambda m, x: x.max(2), shapes=[((3, 4),), ((),)]),
    OpCase(ops=("max",), name="max_dim_ties", fn=lambda m, x: m.max(_ties(x), 1), shapes=[((4, 6),), ((2, 5, 3),)],
           dtypes=FLOATS),
    OpCase(ops=("max",), name="max_dim_int_ties", fn=lambda m, x: m.max(x, 0), shapes=[((8, 3),)],
           dtypes=("int64", "int32"), int_domain=(0, 3)),
    OpCase(ops=("max",), name="max_dim_nan", fn=lambda m, x: _nans(m, x).max(1), shapes=ZERO_ROWS),
    OpCase(ops=("max",), name="max_dim_nan0", fn=lambda m, x: _nans(m, x).max(0), shapes=ZERO_ROWS),
    OpCase(ops=("min",), name="min_dim", fn=lambda m, x: x.min(1, True), shapes=[((2, 3, 4),), ((3, 1),), ((0, 3),)],
           dtypes=NUMERIC + ("bool",)),
    OpCase(ops=("min",), name="min_dim_ties", fn=lambda m, x: m.min(_ties(x), dim=-1), shapes=[((4, 6),)]),
    OpCase(ops=("min",), name="min_dim_nan", fn=lambda m, x: _nans(m, x).min(1), shapes=ZERO_ROWS),
    OpCase(ops=("max",), name="max_other", fn=lambda m, x, y: m.max(x, other=y),
           shapes=[((2, 3), (2, 3)), ((2, 3), (3,)), ((), (4,))], dtypes=NUMERIC),
    OpCase(ops=("max",), name="max_other_ties", fn=lambda m, x, y: _ties(x).max(other=_ties(y)),
           shapes=[((4, 6), (4, 6))]),
    OpCase(ops=("min",), name="min_other", fn=lambda m, x, y: m.min(x, other=y),
           shapes=[((2, 3), (2, 3)), ((2, 3), (3,))], dtypes=NUMERIC),
    OpCase(ops=("max",), name="max_positional_other", fn=lambda m, x, y: m.max(x, y),
           shapes=[((2, 3), (2, 3)), ((2, 3), (3,))], dtypes=NUMERIC),
    OpCase(ops=("min",), name="min_positional_other", fn=lambda m, x, y: x.min(y), shapes=[((2, 3), (3,))]),
    OpCase(ops=("max",), name="max_number_refused", fn=lambda m, x: m.max(x, 1.5), shapes=[((2, 3),)]),
    # ---- amax, amin -------------------------------------------------------------------
    OpCase(ops=("amax",), fn=lambda m, x: x.amax(), shapes=SHAPES, dtypes=NUMERIC + ("bool", "uint8")),
    OpCase(ops=("amin",), fn=lambda m, x: m.amin(x), shapes=SHAPES, dtypes=NUMERIC + ("bool",)),
    OpCase(ops=("amax",), name="amax_dims", fn=lambda m, x: m.amax(x, (0, 2)), shapes=[((2, 3, 4),), ((2, 0, 3),)],
           dtypes=NUMERIC),
    OpCase(ops=("amax",), name="amax_dim_keepdim", fn=lambda m, x: x.amax(-1, keepdim=True),
           shapes=[((2, 3, 4),), ((5,),), ((),), ((0, 3),)]),
    OpCase(ops=("amax",), name="amax_empty_list", fn=lambda m, x: x.amax(dim=[], keepdim=True), shapes=[((2, 3),)]),
    OpCase(ops=("amax",), name="amax_empty_dim_refused", fn=lambda m, x: x.amax((1, 0)), shapes=[((0, 3),)]),
    OpCase(ops=("amax",), name="amax_repeated_dim_refused", fn=lambda m, x: x.amax((0, -2)), shapes=[((2, 3),)]),
    OpCase(ops=("amin",), name="amin_dims", fn=lambda m, x: x.amin((1,), True), shapes=[((2, 3, 4),), ((3, 0),)]),
    OpCase(ops=("amax",), name="amax_ties", fn=lambda m, x: _ties(x).amax(1), shapes=[((4, 6),), ((2, 5, 3),)]),
    OpCase(ops=("amax",), name="amax_ties_all", fn=lambda m, x: _ties(x).amax(), shapes=[((4, 6),)]),
    OpCase(ops=("amin",), name="amin_ties", fn=lambda m, x: _ties(x).amin((0, 2)), shapes=[((2, 5, 3),)]),
    OpCase(ops=("amax",), name="amax_nan", fn=lambda m, x: _nans(m, x).amax(0), shapes=ZERO_ROWS),
    OpCase(ops=("amin",), name="amin_nan", fn=lambda m, x: _nans(m, x).amin(1), shapes=ZERO_ROWS),
    # ---- argmax, argmin ------------------------------------------------------------------
    OpCase(ops=("argmax",), fn=lambda m, x: x.argmax(), shapes=SHAPES, dtypes=NUMERIC + ("uint8",)),
    OpCase(ops=("argmin",), fn=lambda m, x: m.argmin(x), shapes=SHAPES, dtypes=NUMERIC),
    OpCase(ops=("argmax",), name="argmax_dim", fn=lambda m, x: m.argmax(x, 1),
           shapes=[((2, 3, 4),), ((3, 1),), ((0, 3),)], dtypes=NUMERIC),
    OpCase(ops=("argmax",), name="argmax_keepdim", fn=lambda m, x: x.argmax(keepdim=True), shapes=NONEMPTY),
    OpCase(ops=("argmax",), name="argmax_dim_keepdim", fn=lambda m, x: x.argmax(-1, True),
           shapes=[((2, 3, 4),), ((5,),), ((),)]),
    OpCase(ops=("argmin",), name="argmin_dim", fn=lambda m, x: x.argmin(dim=0, keepdim=True),
           shapes=[((2, 3, 4),), ((5,),), ((),), ((0, 3),)], dtypes=NUMERIC),
    OpCase(ops=("argmax",), name="argmax_ties", fn=lambda m, x: m.argmax(x.round(), 1), shapes=[((5, 8),)]),
    OpCase(ops=("argmin",), name="argmin_int_ties", fn=lambda m, x: x.argmin(1), shapes=[((5, 8),)],
           dtypes=("int64", "int16"), int_domain=(0, 3)),
    OpCase(ops=("argmax",), name="argmax_nan", fn=lambda m, x: _nans(m, x).argmax(1), shapes=ZERO_ROWS),
    OpCase(ops=("argmin",), name="argmin_nan", fn=lambda m, x: _nans(m, x).argmin(), shapes=ZERO_ROWS),
    OpCase(ops=("argmax",), name="argmax_bool_refused", fn=lambda m, x: x.argmax(), shapes=[((3,),)],
           dtypes=("bool",)),
    # ---- std, var ----------------------------------------------------------------------
    OpCase(ops=("std",), fn=lambda m, x: x.std(), shapes=SHAPES),
    OpCase(ops=("var",), fn=lambda m, x: m.var(x), shapes=SHAPES),
    OpCase(ops=("std",), name="std_biased", fn=lambda m, x: m.std(x, False), shapes=SHAPES[:3]),
    OpCase(ops=("var",), name="var_unbiased_kw", fn=lambda m, x: x.var(unbiased=False), shapes=SHAPES[:3]),
    OpCase(ops=("std",), name="std_dim", fn=lambda m, x: x.std(1), shapes=[((2, 3, 4),), ((3, 1),), ((0, 3),), ((3, 0),)]),
    OpCase(ops=("var",), name="var_dims_keepdim", fn=lambda m, x: m.var(x, (0, 2), False, True),
           shapes=[((2, 3, 4),), ((1, 2, 0),)]),
    OpCase(ops=("std",), name="std_dim_kw", fn=lambda m, x: x.std(dim=-1, unbiased=False, keepdim=True),
           shapes=[((2, 3, 4),), ((5,),), ((),)]),
    OpCase(ops=("std",), name="std_correction", fn=lambda m, x: x.std(0, correction=2), shapes=[((4, 3),), ((5,),)]),
    OpCase(ops=("var",), name="var_correction", fn=lambda m, x: m.var(x, dim=(0, 1), correction=0, keepdim=True),
           shapes=[((2, 3, 4),), ((3, 1),)]),
    OpCase(ops=("var",), name="var_correction_float", fn=lambda m, x: x.var(correction=1.5), shapes=[((2, 3),)]),
    OpCase(ops=("var",), name="var_correction_too_big", fn=lambda m, x: x.var(1, correction=4), shapes=[((2, 3),)]),
    OpCase(ops=("std",), name="std_correction_too_big", fn=lambda m, x: x.std((0, 1), correction=7),
           shapes=[((2, 3),)]),
    # PyTorch's gradient of an all-dims var/std with N <= correction is an
    # artifact of its implementation (inf of the gradient's sign everywhere);
    # only the forward is compared.
    OpCase(ops=("var",), name="var_all_correction_too_big", fn=lambda m, x: x.var(correction=6), shapes=[((2, 3),)],
           grad=False),
    OpCase(ops=("std",), name="std_constant", fn=lambda m, x: (x * 0 + 1.5).std(1), shapes=[((2, 3),)]),
    OpCase(ops=("std",), name="std_nan", fn=lambda m, x: _nans(m, x).std(0), shapes=ZERO_ROWS),
    OpCase(ops=("std",), name="std_int_refused", fn=lambda m, x: x.std(), shapes=[((3,),)], dtypes=("int64", "bool")),
    OpCase(ops=("var",), name="var_dim_out_of_range", fn=lambda m, x: x.var(2), shapes=[((2, 3),)]),
    # ---- norm ---------------------------------------------------------------------------
    OpCase(ops=("norm",), fn=lambda m, x: x.norm(), shapes=SHAPES),
    *[
        OpCase(ops=("norm",), name=f"norm_p{p}", fn=lambda m, x, p=p: m.norm(x, p), shapes=NONEMPTY)
        for p in (0, 1, 3, 0.5, 1.5, -1, -2.5, INF, -INF)
    ],
    *[
        OpCase(ops=("norm",), name=f"norm_dim_p{p}", fn=lambda m, x, p=p: x.norm(p, 1),
               shapes=[((2, 3, 4),), ((3, 1),)])
        for p in (0, 1, 2, 3, 0.5, -1, INF, -INF)
    ],
    OpCase(ops=("norm",), name="norm_dims_keepdim", fn=lambda m, x: m.norm(x, dim=(0, 2), keepdim=True),
           shapes=[((2, 3, 4),), ((2, 0, 3),)]),
    OpCase(ops=("norm",), name="norm_p_none", fn=lambda m, x: m.norm(x, None, -1), shapes=WITH_DIMS),
    OpCase(ops=("norm",), name="norm_empty_dims", fn=lambda m, x: x.norm(3, ()), shapes=[((2, 3),)]),
    OpCase(ops=("norm",), name="norm_scalar_dim", fn=lambda m, x: x.norm(2, 0, True), shapes=[((),)]),
    OpCase(ops=("norm",), name="norm_dtype", fn=lambda m, x: x.norm(dtype=m.float64), shapes=SHAPES[:2],
           dtypes=("float32",)),
    OpCase(ops=("norm",), name="norm_narrowing_dtype_refused", fn=lambda m, x: x.norm(dtype=m.float32),
           shapes=[((3,),)], dtypes=("float64",)),
    OpCase(ops=("norm",), name="norm_int_refused", fn=lambda m, x: x.norm(), shapes=[((3,),)], dtypes=("int64",)),
    OpCase(ops=("norm",), name="norm_fro", fn=lambda m, x: m.norm(x, "fro", dim=(0, 1)), shapes=[((2, 3, 4),)]),
    OpCase(ops=("norm",), name="norm_fro_all", fn=lambda m, x: x.norm("fro"), shapes=[((2, 3, 4),), ((0, 2),)]),
    OpCase(ops=("norm",), name="norm_bad_str_refused", fn=lambda m, x: x.norm("abc"), shapes=[((2, 3),)]),
    OpCase(ops=("norm",), name="norm_inf_empty_refused", fn=lambda m, x: x.norm(INF), shapes=[((0, 3),)]),
    OpCase(ops=("norm",), name="norm_neg_empty_refused", fn=lambda m, x: x.norm(-1, 0), shapes=[((0, 3),)]),
    OpCase(ops=("norm",), name="norm_inf_empty_ok", fn=lambda m, x: x.norm(INF, 1), shapes=[((0, 3),)]),
    *[
        OpCase(ops=("norm",), name=f"norm_zeros_p{p}", fn=lambda m, x, p=p: _zeros(m, x).norm(p, 1),
               shapes=ZERO_ROWS)
        for p in (2, 1, 3, 1.5, 0.5, -1, INF, -INF)
    ],
    OpCase(ops=("norm",), name="norm_all_zero_row", fn=lambda m, x: (x - (x * m.tensor([[1.0], [0.0]])).detach()).norm(2.5, 1),
           shapes=[((2, 3),)]),
    OpCase(ops=("norm",), name="norm_inf_ties", fn=lambda m, x: _ties(x).norm(INF, 1), shapes=[((4, 6),)]),
    *[
        OpCase(ops=("norm",), name=f"norm_nan_p{p}", fn=lambda m, x, p=p: _nans(m, x).norm(p, 0),
               shapes=ZERO_ROWS)
        for p in (2, 1, 3, 0.5, 0, INF)
    ],
    # ---- logsumexp ---------------------------------------------------------------------
    OpCase(ops=("logsumexp",), fn=lambda m, x: m.logsumexp(x, 1), shapes=[((2, 3, 4),), ((3, 1),), ((0, 3),)],
           dtypes=NUMERIC + ("bool",)),
    OpCase(ops=("logsumexp",), name="logsumexp_dims_keepdim", fn=lambda m, x: x.logsumexp((0, -1), True),
           shapes=[((2, 3, 4),), ((0, 3, 2),)]),
    OpCase(ops=("logsumexp",), name="logsumexp_scalar", fn=lambda m, x: x.logsumexp(0), shapes=[((),), ((5,),)]),
    OpCase(ops=("logsumexp",), name="logsumexp_scalar_empty_dims", fn=lambda m, x: x.logsumexp(()), shapes=[((),)]),
    OpCase(ops=("logsumexp",), name="logsumexp_empty_dims_refused", fn=lambda m, x: x.logsumexp(()),
           shapes=[((2, 3),)]),
    OpCase(ops=("logsumexp",), name="logsumexp_large", fn=lambda m, x: m.logsumexp(x, -1), shapes=[((3, 4),)],
           domain=(690.0, 760.0)),
    OpCase(ops=("logsumexp",), name="logsumexp_very_negative", fn=lambda m, x: m.logsumexp(x, -1),
           shapes=[((3, 4),)], domain=(-800.0, -700.0)),
    OpCase(ops=("logsumexp",), name="logsumexp_inf",
           fn=lambda m, x: _plus(m, x, [[0.0, INF, 0.0], [-INF, -INF, -INF], [INF, -INF, 0.0], [NAN, INF, 0.0]])
           .logsumexp(1), shapes=[((4, 3),)]),
    OpCase(ops=("logsumexp",), name="logsumexp_nan", fn=lambda m, x: _nans(m, x).logsumexp(0), shapes=ZERO_ROWS),
    # ---- all, any ------------------------------------------------------------------------
    OpCase(ops=("all",), fn=lambda m, x: x.all(), shapes=SHAPES, dtypes=NUMERIC + ("bool", "uint8"),
           int_domain=(0, 4)),
    OpCase(ops=("any",), fn=lambda m, x: m.any(x), shapes=SHAPES, dtypes=NUMERIC + ("bool", "uint8"),
           int_domain=(-1, 2)),
    OpCase(ops=("all",), name="all_dim", fn=lambda m, x: m.all(x, 1), shapes=[((2, 3, 4),), ((3, 1),), ((0, 3),)],
           dtypes=INTS + ("bool",), int_domain=(0, 3)),
    OpCase(ops=("any",), name="any_dim_keepdim", fn=lambda m, x: x.any(-1, keepdim=True),
           shapes=[((2, 3, 4),), ((5,),), ((),), ((3, 0),)], dtypes=INTS + ("bool",), int_domain=(0, 2)),
    OpCase(ops=("all",), name="all_dims", fn=lambda m, x: x.all((0, 2)), shapes=[((2, 3, 4),), ((2, 0, 3),)],
           dtypes=("int64", "bool", "uint8"), int_domain=(0, 3)),
    OpCase(ops=("any",), name="any_dims_keepdim", fn=lambda m, x: m.any(x, dim=(1,), keepdim=True),
           shapes=[((2, 3, 4),), ((2, 0, 3),)], dtypes=("int32", "bool", "uint8"), int_domain=(-1, 2)),
    OpCase(ops=("all",), name="all_empty_dims", fn=lambda m, x: m.all(x, ()), shapes=[((2, 3),), ((),)],
           dtypes=("int64", "bool"), int_domain=(0, 2)),
    OpCase(ops=("any",), name="any_dim_none", fn=lambda m, x: x.any(dim=None, keepdim=True), shapes=SHAPES,
           dtypes=("int64", "bool"), int_domain=(0, 2)),
    OpCase(ops=("all",), name="all_float_zeros", fn=lambda m, x: (x * (x.abs() > 1)).all(1),
           shapes=[((4, 3),)], grad=False),
    OpCase(ops=("any",), name="any_float_nan", fn=lambda m, x: (_nans(m, x) * 0).any(0), shapes=ZERO_ROWS,
           grad=False),
    OpCase(ops=("all",), name="all_dim_out_of_range", fn=lambda m, x: x.all(2), shapes=[((2, 3),)],
           dtypes=("bool",)),
    # ---- cumsum, cumprod ------------------------------------------------------------------
    OpCase(ops=("cumsum",), fn=lambda m, x: m.cumsum(x, 0), shapes=SHAPES,
           dtypes=NUMERIC + ("bool", "uint8", "int8")),
    OpCase(ops=("cumsum",), name="cumsum_last", fn=lambda m, x: x.cumsum(-1), shapes=SHAPES, dtypes=NUMERIC),
    OpCase(ops=("cumsum",), name="cumsum_middle", fn=lambda m, x: x.cumsum(dim=1), shapes=[((2, 3, 4),)]),
    OpCase(ops=("cumsum",), name="cumsum_dtype", fn=lambda m, x: m.cumsum(x, 1, dtype=m.float64),
           shapes=[((2, 3),)], dtypes=("float32", "int32")),
    OpCase(ops=("cumsum",), name="cumsum_int8_dtype", fn=lambda m, x: m.cumsum(x, 0, dtype=m.int8),
           shapes=[((40,),)], dtypes=("int64",), int_domain=(0, 100)),
    OpCase(ops=("cumsum",), name="cumsum_out_of_range", fn=lambda m, x: x.cumsum(2), shapes=[((2, 3),), ((),)]),
    OpCase(ops=("cumsum",), name="cumsum_nan", fn=lambda m, x: _nans(m, x).cumsum(1), shapes=ZERO_ROWS),
    OpCase(ops=("cumprod",), fn=lambda m, x: m.cumprod(x, 0), shapes=SHAPES,
           dtypes=NUMERIC + ("bool", "uint8", "int8")),
    OpCase(ops=("cumprod",), name="cumprod_last", fn=lambda m, x: x.cumprod(-1), shapes=[((2, 3, 4),), ((3, 1),)]),
    OpCase(ops=("cumprod",), name="cumprod_dtype", fn=lambda m, x: x.cumprod(1, dtype=m.float64),
           shapes=[((2, 3),)], dtypes=("float32", "int64")),
    OpCase(ops=("cumprod",), name="cumprod_zeros", fn=lambda m, x: _zeros(m, x).cumprod(1), shapes=ZERO_ROWS),
    OpCase(ops=("cumprod",), name="cumprod_zeros_dim0", fn=lambda m, x: _zeros(m, x).cumprod(0), shapes=ZERO_ROWS),
    OpCase(ops=("cumprod",), name="cumprod_rounded", fn=lambda m, x: _ties(x).cumprod(-1), shapes=[((6, 5),)]),
    OpCase(ops=("cumprod",), name="cumprod_nan_after_zero",
           fn=lambda m, x: _plus(m, _zeros(m, x), [[0.0, 0.0, NAN, 0.0], [0.0, NAN, 0.0, 0.0], [0.0, 0.0, 0.0, INF]])
           .cumprod(1), shapes=ZERO_ROWS),
    OpCase(ops=("cumprod",), name="cumprod_int_wraps", fn=lambda m, x: x.cumprod(0), shapes=[((40,),)],
           dtypes=("int64", "int32"), int_domain=(-9, 10)),
]

# 16-bit floats compute in float (and accumulate in double).
CASES += [
    OpCase(ops=("prod",), name="prod_half", fn=lambda m, x: x.prod(1), shapes=[((3, 4),)], dtypes=HALVES),
    OpCase(ops=("max",), name="max_dim_half", fn=lambda m, x: x.max(1), shapes=[((3, 4),)], dtypes=HALVES),
    OpCase(ops=("amin",), name="amin_half", fn=lambda m, x: x.amin(), shapes=[((3, 4),)], dtypes=HALVES),
    OpCase(ops=("argmax",), name="argmax_half", fn=lambda m, x: x.argmax(0), shapes=[((3, 4),)], dtypes=HALVES),
    OpCase(ops=("std",), name="std_half", fn=lambda m, x: x.std(0), shapes=[((5, 4),)], dtypes=HALVES),
    OpCase(ops=("norm",), name="norm_half", fn=lambda m, x: x.norm(3, 1), shapes=[((3, 4),)], dtypes=HALVES),
    OpCase(ops=("logsumexp",), name="logsumexp_half", fn=lambda m, x: x.logsumexp(1), shapes=[((3, 4),)],
           dtypes=HALVES),
    OpCase(ops=("nansum",), name="nansum_half", fn=lambda m, x: _nans(m, x).nansum(1), shapes=ZERO_ROWS,
           dtypes=HALVES),
    OpCase(ops=("cumsum",), name="cumsum_half", fn=lambda m, x: x.cumsum(1), shapes=[((3, 4),)], dtypes=HALVES),
    OpCase(ops=("cumprod",), name="cumprod_half", fn=lambda m, x: x.cumprod(0), shapes=[((3, 4),)], dtypes=HALVES),
    OpCase(ops=("all",), name="all_half", fn=lambda m, x: (x * (x.abs() > 1)).all(1), shapes=[((3, 4),)],
           dtypes=HALVES, grad=False),
]

def _nan_below(x, v):
    """x with NaN where x < v: (x / 0) * 0 is NaN there, (x / 1) * 0 + x is x elsewhere."""
    return x / (x >= v) * 0 + x


# Column reductions (reduced dims before kept ones) read the input in place, a tile of columns at a
# time: widths that are not a multiple of the vector width, row counts that are not a multiple of
# the chunk, the rows split over threads when there are few columns, offset and strided views.
COLUMNS = [((37, 5),), ((300, 70),), ((17, 129),), ((64, 200),)]
CASES += [
    OpCase(ops=("sum",), name="sum_columns", fn=lambda m, x: x.sum(0), shapes=COLUMNS,
           dtypes=("float32", "float64", "int64")),
    OpCase(ops=("sum",), name="sum_columns_keepdim", fn=lambda m, x: x.sum(0, keepdim=True), shapes=COLUMNS[:2]),
    OpCase(ops=("sum",), name="sum_columns_many_rows", fn=lambda m, x: x.sum(0), shapes=[((30000, 3),), ((5000, 40),)],
           grad=False),
    OpCase(ops=("sum",), name="sum_leading_dims", fn=lambda m, x: x.sum((0, 1)),
           shapes=[((4, 33, 70),), ((3, 2, 130),)]),
    OpCase(ops=("sum",), name="sum_middle_dim", fn=lambda m, x: x.sum(1, keepdim=True),
           shapes=[((4, 33, 70),), ((3, 40, 5),)]),
    # Reduced dims on both sides of the kept ones (a lead): shorter and longer than the rows.
    OpCase(ops=("sum",), name="sum_dims_0_2", fn=lambda m, x: x.sum((0, 2)), shapes=[((4, 33, 70),), ((40, 6, 5),)],
           dtypes=("float32", "float64", "int64")),
    OpCase(ops=("sum",), name="sum_dims_0_2_3", fn=lambda m, x: x.sum((0, 2, 3), keepdim=True),
           shapes=[((3, 5, 7, 9),), ((20, 3, 2, 3),)]),
    OpCase(ops=("sum",), name="sum_dims_0_2_of_4d", fn=lambda m, x: x.sum((0, 2)), shapes=[((3, 5, 7, 9),)]),
    OpCase(ops=("mean",), name="mean_dims_0_2_3", fn=lambda m, x: x.mean((0, 2, 3)), shapes=[((20, 3, 2, 3),)],
           dtypes=("float32", "float64") + HALVES),
    OpCase(ops=("nansum",), name="nansum_dims_0_2", fn=lambda m, x: m.nansum(_nan_below(x, -1.5), (0, 2)),
           shapes=[((4, 33, 70),), ((40, 6, 5),)], grad=False),
    OpCase(ops=("sum",), name="sum_size1_dim", fn=lambda m, x: x.sum(1), shapes=[((300, 1),), ((7, 1, 9),)]),
    OpCase(ops=("sum",), name="sum_narrow_columns", fn=lambda m, x: x.sum(0), shapes=[((1000, 3),), ((333, 40),)],
           dtypes=("float32", "float64", "int64")),
    OpCase(ops=("sum",), name="sum_columns_offset_view", fn=lambda m, x: x[3:].sum(0), shapes=[((40, 70),)]),
    OpCase(ops=("sum",), name="sum_columns_strided_view", fn=lambda m, x: x[:, ::2].sum(0), shapes=[((40, 70),)]),
    OpCase(ops=("sum",), name="sum_columns_dtype", fn=lambda m, x: x.sum(0, dtype=m.float64), shapes=COLUMNS[:2]),
    OpCase(ops=("sum",), name="sum_columns_half", fn=lambda m, x: x.sum(0), shapes=COLUMNS[:3], dtypes=HALVES),
    OpCase(ops=("sum",), name="sum_columns_int", fn=lambda m, x: x.sum(0), shapes=COLUMNS[:2],
           dtypes=("int32", "int8", "uint8", "bool")),
    OpCase(ops=("sum",), name="sum_rows_long", fn=lambda m, x: x.sum(-1), shapes=[((3, 2000),), ((70000,),)],
           dtypes=("float32", "float64", "bfloat16")),
    OpCase(ops=("mean",), name="mean_columns", fn=lambda m, x: x.mean((0, 1)), shapes=[((4, 33, 70),), ((300, 70),)]),
    OpCase(ops=("mean",), name="mean_middle_dim", fn=lambda m, x: m.mean(x, 1), shapes=[((4, 33, 70),)],
           dtypes=("float32", "float64") + HALVES),
    OpCase(ops=("nansum",), name="nansum_columns", fn=lambda m, x: m.nansum(_nan_below(x, -1.5), 0),
           shapes=[((37, 70),), ((300, 5),)], grad=False),
    OpCase(ops=("nansum",), name="nansum_columns_half", fn=lambda m, x: m.nansum(_nan_below(x, -1.5), 0),
           shapes=[((37, 70),)], dtypes=HALVES, grad=False),
    OpCase(ops=("amax",), name="amax_columns", fn=lambda m, x: x.amax(0), shapes=COLUMNS,
           dtypes=("float32", "float64", "int64", "bool")),
    OpCase(ops=("amin",), name="amin_leading_dims", fn=lambda m, x: x.amin((0, 1), keepdim=True),
           shapes=[((4, 33, 70),)], dtypes=("float32",) + HALVES),
    OpCase(ops=("amax",), name="amax_columns_nan", fn=lambda m, x: _nan_below(x, -1.8).amax(0),
           shapes=[((37, 70),)], grad=False),
    OpCase(ops=("max",), name="max_dim_columns", fn=lambda m, x: x.max(0), shapes=COLUMNS[:3],
           dtypes=("float32", "int64")),
    OpCase(ops=("min",), name="min_dim_columns_ties", fn=lambda m, x: x.min(1), shapes=[((4, 33, 70),)],
           dtypes=("int64", "int32"), int_domain=(0, 3)),
    OpCase(ops=("max",), name="max_dim_columns_nan", fn=lambda m, x: _nan_below(x, -1.8).max(0), shapes=[((37, 70),)],
           grad=False),
    OpCase(ops=("argmax",), name="argmax_columns", fn=lambda m, x: x.argmax(0), shapes=COLUMNS[:3],
           dtypes=("float32", "int64")),
    OpCase(ops=("argmin",), name="argmin_columns_ties", fn=lambda m, x: x.argmin(1, keepdim=True),
           shapes=[((4, 33, 70),)], dtypes=("int64",), int_domain=(0, 3)),
    OpCase(ops=("argmax",), name="argmax_all_transposed", fn=lambda m, x: x.t().argmax(), shapes=[((37, 70),)]),
]

# Gradients are differentiable again (create_graph): the first gradient is
# compared, then backpropagated through.
CASES += [
    OpCase(ops=("prod",), name="prod_double_backward", fn=lambda m, x: _grad_of(m, lambda t: t.prod(1), x),
           shapes=[((3, 4),)]),
    OpCase(ops=("max",), name="max_dim_double_backward",
           fn=lambda m, x: _grad_of(m, lambda t: (t * t).max(1)[0], x), shapes=[((3, 4),)]),
    OpCase(ops=("amax",), name="amax_double_backward",
           fn=lambda m, x: _grad_of(m, lambda t: (_ties(t) * t).amax(0), x), shapes=[((4, 3),)]),
    OpCase(ops=("std",), name="std_double_backward", fn=lambda m, x: _grad_of(m, lambda t: t.std(1), x),
           shapes=[((3, 4),)]),
    OpCase(ops=("var",), name="var_double_backward", fn=lambda m, x: _grad_of(m, lambda t: t.var(), x),
           shapes=[((3, 4),)]),
    OpCase(ops=("norm",), name="norm_double_backward",
           fn=lambda m, x: _grad_of(m, lambda t: t.norm(3, 1) + t.norm() + t.norm(0.5), x), shapes=[((3, 4),)]),
    OpCase(ops=("logsumexp",), name="logsumexp_double_backward",
           fn=lambda m, x: _grad_of(m, lambda t: t.logsumexp(0), x), shapes=[((3, 4),)]),
    OpCase(ops=("nansum",), name="nansum_double_backward",
           fn=lambda m, x: _grad_of(m, lambda t: (_nans(m, t) * t).nansum(0), x), shapes=ZERO_ROWS),
    OpCase(ops=("cumsum",), name="cumsum_double_backward",
           fn=lambda m, x: _grad_of(m, lambda t: (t * t).cumsum(1), x), shapes=[((3, 4),)]),
    OpCase(ops=("cumprod",), name="cumprod_double_backward",
           fn=lambda m, x: _grad_of(m, lambda t: t.cumprod(1), x), shapes=[((3, 4),)]),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_parity(case):
    assert run_case(case) > 0


_ISA_SCRIPT = """
import numpy as np, oneflow as flow, torch
rng = np.random.default_rng(8)
for shape in ((1, 1), (3, 7), (16, 16), (17, 33), (100, 65), (200, 3), (2000, 130)):
    a = rng.standard_normal(shape)
    for dtype in ("float32", "float64", "bfloat16", "int64"):
        x = flow.tensor(a * (10 if dtype == "int64" else 1)).to(getattr(flow, dtype))
        t = torch.tensor(a * (10 if dtype == "int64" else 1)).to(getattr(torch, dtype))
        for dims in ((0,), (1,), (0, 1)):
            tol = 5e-2 if dtype == "bfloat16" else 2e-5
            y, z = x.sum(dims).float().numpy(), t.sum(dims).float().numpy()
            np.testing.assert_allclose(y, z, rtol=tol, atol=tol, err_msg=f"{shape} {dtype} {dims}")
print("ok")
"""


@pytest.mark.parametrize("isa", parity.ISAS)
def test_sum_loops_on_each_instruction_set(isa):
    parity.assert_script_passes_on_isa(_ISA_SCRIPT, isa)


def test_sum_accuracy_over_many_rows():
    # Lanes of float join double totals every few values: a long sum of float32 stays within
    # float rounding of the exact sum, rows and columns alike.
    a = np.random.default_rng(9).uniform(0.0, 1.0, size=(20000, 20)).astype(np.float32)
    exact = a.astype(np.float64)
    x = flow.tensor(a)
    np.testing.assert_allclose(x.sum(0).numpy(), exact.sum(0), rtol=1e-7)
    np.testing.assert_allclose(x.t().contiguous().sum(1).numpy(), exact.sum(0), rtol=1e-7)
    np.testing.assert_allclose(x.sum().numpy(), exact.sum(), rtol=1e-7)


def test_case_names_are_unique():
    names = [c.name for c in CASES]
    assert len(names) == len(set(names))
