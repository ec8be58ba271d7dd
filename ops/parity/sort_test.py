"""Parity rows for sorting, selection and counting (ops/defs/sort.cc): sort/argsort/msort, topk,
kthvalue, median/nanmedian, mode, cummax/cummin, quantile/nanquantile, unique, searchsorted/bucketize,
bincount, histc."""

import numpy as np
import pytest
import torch
from parity import OpCase, run_case

import oneflow as flow

FLOATS = ("float32", "float64")
NUMERIC = ("float32", "float64", "int64")
ALL = ("float32", "float64", "int64", "bool")
# Integer inputs in a small range have ties, where PyTorch's choice of index is
# unspecified for topk and kthvalue (and for sort on long rows unless stable):
# those rows compare values only.
TIES = (-3, 4)


def _t(m, data, dtype=None):
    return m.tensor(data) if dtype is None else m.tensor(data, dtype=getattr(m, dtype))


def _with_nans(m, x):
    """x with NaN where it is below -1 (a fixed pattern of the drawn data)."""
    return m.where(x < -1, x * float("nan"), x)


def _values(fn):
    def run(m, *xs):
        return fn(m, *xs)[0]

    return run


def _quantile_q(m, values, dtype):
    return m.tensor(values, dtype=getattr(m, dtype))


CASES = [
    # ---- sort / argsort / msort (stable: equal elements keep their order, so indices match too)
    OpCase(ops=("sort",), fn=lambda m, x: m.sort(x), shapes=[((5,),), ((3, 4),), ((0, 3),), ((),), ((2, 3, 4),)], dtypes=ALL,
           int_domain=TIES),
    OpCase(ops=("sort",), name="sort_dim_desc", fn=lambda m, x: x.sort(0, True), shapes=[((5, 3),), ((4, 2, 3),)], dtypes=ALL,
           int_domain=TIES),
    OpCase(ops=("sort",), name="sort_stable_kw", fn=lambda m, x: m.sort(x, stable=True, dim=-2, descending=True),
           shapes=[((6, 3),)], dtypes=NUMERIC, int_domain=TIES),
    OpCase(ops=("sort",), name="sort_stable_default", fn=lambda m, x: x.sort(stable=False), shapes=[((4, 6),)], dtypes=NUMERIC,
           int_domain=TIES),
    OpCase(ops=("sort",), name="sort_nan", fn=lambda m, x: m.sort(_with_nans(m, x), dim=1), shapes=[((4, 6),)]),
    OpCase(ops=("sort",), name="sort_nan_desc", fn=lambda m, x: m.sort(_with_nans(m, x), descending=True), shapes=[((4, 6),)]),
    OpCase(ops=("sort",), name="sort_long_rows", fn=lambda m, x: m.sort(x, stable=True), shapes=[((3, 2000),)], dtypes=("float32", "int64")),
    OpCase(ops=("sort",), name="sort_half", fn=lambda m, x: m.sort(x, 0), shapes=[((6, 3),)], dtypes=("float16", "bfloat16")),
    OpCase(ops=("sort",), name="sort_bad_dim", fn=lambda m, x: m.sort(x, 2), shapes=[((3, 4),)]),
    OpCase(ops=("argsort",), fn=lambda m, x: m.argsort(x), shapes=[((5,),), ((3, 4),), ((0,),)], dtypes=ALL, int_domain=TIES),
    OpCase(ops=("argsort",), name="argsort_kw", fn=lambda m, x: x.argsort(dim=0, descending=True), shapes=[((5, 3),)],
           dtypes=NUMERIC, int_domain=TIES),
    OpCase(ops=("argsort",), name="argsort_stable", fn=lambda m, x: m.argsort(x, stable=True, dim=0), shapes=[((5, 3),)],
           dtypes=NUMERIC, int_domain=TIES),
    OpCase(ops=("msort",), fn=lambda m, x: m.msort(x), shapes=[((5, 3),), ((4,),)], dtypes=NUMERIC),
    # ---- topk
    OpCase(ops=("topk",), fn=lambda m, x: m.topk(x, 2), shapes=[((5,),), ((3, 4),), ((2, 3, 4),)]),
    OpCase(ops=("topk",), name="topk_smallest_dim", fn=lambda m, x: x.topk(3, dim=0, largest=False), shapes=[((5, 3),)]),
    OpCase(ops=("topk",), name="topk_unsorted", fn=lambda m, x: m.topk(x, 3, sorted=False)[0].sort()[0], shapes=[((4, 6),)]),
    OpCase(ops=("topk",), name="topk_k0_all", fn=lambda m, x: m.topk(x, 0)[0].sum() + m.topk(x, 4)[0].sum(),
           shapes=[((3, 4),)]),
    OpCase(ops=("topk",), name="topk_ints", fn=_values(lambda m, x: m.topk(x, 3)), shapes=[((4, 7),)],
           dtypes=("int64", "int32"), int_domain=TIES),
    # (several NaNs tie: which index comes first is unspecified)
    OpCase(ops=("topk",), name="topk_nan", fn=_values(lambda m, x: m.topk(_with_nans(m, x), 2)), shapes=[((3, 5),)]),
    OpCase(ops=("topk",), name="topk_scalar_empty", fn=lambda m, x: m.topk(x, 1) if x.ndim == 0 else m.topk(x, 0),
           shapes=[((),), ((0,),)]),
    OpCase(ops=("topk",), name="topk_k_out_of_range", fn=lambda m, x: m.topk(x, 5), shapes=[((3, 4),)]),
    OpCase(ops=("topk",), name="topk_k_negative", fn=lambda m, x: m.topk(x, -1), shapes=[((3, 4),)]),
    # ---- kthvalue / median / nanmedian / mode
    OpCase(ops=("kthvalue",), fn=lambda m, x: m.kthvalue(x, 2), shapes=[((5,),), ((3, 4),), ((),)]),
    OpCase(ops=("kthvalue",), name="kthvalue_dim_keepdim", fn=lambda m, x: x.kthvalue(3, 0, True), shapes=[((5, 3),)]),
    OpCase(ops=("kthvalue",), name="kthvalue_ints", fn=_values(lambda m, x: m.kthvalue(x, 4, 1)), shapes=[((3, 7),)],
           dtypes=("int64",), int_domain=TIES),
    OpCase(ops=("kthvalue",), name="kthvalue_k_out_of_range", fn=lambda m, x: m.kthvalue(x, 5), shapes=[((3, 4),)]),
    OpCase(ops=("median",), fn=lambda m, x: m.median(x), shapes=[((5,),), ((3, 4),), ((),), ((0,),)]),
    OpCase(ops=("median",), name="median_ints", fn=lambda m, x: m.median(x), shapes=[((3, 4),)], dtypes=("int64",),
           int_domain=TIES),
    OpCase(ops=("median",), name="median_ties_grad", fn=lambda m, x: m.median(x.round()), shapes=[((3, 4),)]),
    OpCase(ops=("median",), name="median_dim", fn=lambda m, x: m.median(x, 1), shapes=[((3, 4),), ((3, 5),), ((0, 2),)]),
    OpCase(ops=("median",), name="median_dim_keepdim", fn=lambda m, x: x.median(dim=0, keepdim=True), shapes=[((4, 3),)]),
    OpCase(ops=("median",), name="median_nan", fn=lambda m, x: m.median(_with_nans(m, x), 1), shapes=[((4, 5),)],
           domain=(-1.5, 2)),
    OpCase(ops=("median",), name="median_nan_all", fn=lambda m, x: m.median(_with_nans(m, x)), shapes=[((4, 5),)]),
    OpCase(ops=("median",), name="median_empty_dim", fn=lambda m, x: m.median(x, 1), shapes=[((2, 0),)]),
    OpCase(ops=("nanmedian",), fn=lambda m, x: m.nanmedian(_with_nans(m, x)), shapes=[((4, 5),), ((3,),)]),
    OpCase(ops=("nanmedian",), name="nanmedian_dim", fn=lambda m, x: m.nanmedian(_with_nans(m, x), 1),
           shapes=[((4, 5),), ((6, 2),)]),
    OpCase(ops=("nanmedian",), name="nanmedian_plain", fn=lambda m, x: x.nanmedian(0, True), shapes=[((4, 5),)],
           dtypes=NUMERIC),
    OpCase(ops=("mode",), fn=lambda m, x: m.mode(x), shapes=[((9,),), ((3, 8),), ((),)], dtypes=NUMERIC + ("bool",),
           int_domain=TIES),
    OpCase(ops=("mode",), name="mode_dim_keepdim", fn=lambda m, x: x.round().mode(0, True), shapes=[((8, 3),)]),
    OpCase(ops=("mode",), name="mode_empty_dim", fn=lambda m, x: m.mode(x, 1), shapes=[((2, 0),)]),
    # ---- cummax / cummin
    OpCase(ops=("cummax",), fn=lambda m, x: m.cummax(x, 0), shapes=[((5,),), ((4, 3),), ((),), ((0, 2),)], dtypes=NUMERIC,
           int_domain=TIES),
    OpCase(ops=("cummax",), name="cummax_dim1_ties", fn=lambda m, x: x.round().cummax(1), shapes=[((3, 6),)]),
    OpCase(ops=("cummax",), name="cummax_nan", fn=lambda m, x: m.cummax(_with_nans(m, x), 1), shapes=[((3, 6),)]),
    OpCase(ops=("cummin",), fn=lambda m, x: m.cummin(x, -1), shapes=[((5,),), ((4, 3),), ((),)], dtypes=NUMERIC,
           int_domain=TIES),
    OpCase(ops=("cummin",), name="cummin_ties_nan", fn=lambda m, x: _with_nans(m, x.round()).cummin(0), shapes=[((6, 3),)]),
    OpCase(ops=("cummin",), name="cummin_bool", fn=lambda m, x: m.cummin(x, 0), shapes=[((6,),)], dtypes=("bool",)),
    # ---- quantile / nanquantile
    OpCase(ops=("quantile",), fn=lambda m, x: m.quantile(x, 0.3), shapes=[((7,),), ((3, 4),), ((),)]),
    OpCase(ops=("quantile",), name="quantile_tensor_q_dim",
           fn=lambda m, x: m.quantile(x, _quantile_q(m, [0.0, 0.25, 0.5, 1.0], str(x.dtype).split(".")[-1]), dim=1),
           shapes=[((3, 5),), ((3, 1),)]),
    OpCase(ops=("quantile",), name="quantile_keepdim",
           fn=lambda m, x: x.quantile(_quantile_q(m, [0.1, 0.9], str(x.dtype).split(".")[-1]), dim=0, keepdim=True),
           shapes=[((4, 3, 2),)]),
    OpCase(ops=("quantile",), name="quantile_keepdim_all", fn=lambda m, x: m.quantile(x, 0.6, keepdim=True), shapes=[((4, 3),)]),
    OpCase(ops=("quantile",), name="quantile_0d_q", fn=lambda m, x: m.quantile(x, _quantile_q(m, 0.4, str(x.dtype).split(".")[-1]),
                                                                               dim=-1), shapes=[((4, 3),)]),
    *[OpCase(ops=("quantile",), name=f"quantile_{mode}",
             fn=lambda m, x, mode=mode: m.quantile(x, _quantile_q(m, [0.2, 0.5, 0.7], str(x.dtype).split(".")[-1]), dim=0,
                                                   interpolation=mode),
             shapes=[((5, 3),), ((4, 2),)]) for mode in ("linear", "lower", "higher", "midpoint", "nearest")],
    OpCase(ops=("quantile",), name="quantile_nan", fn=lambda m, x: m.quantile(_with_nans(m, x), 0.5, dim=1), shapes=[((4, 5),)]),
    OpCase(ops=("quantile",), name="quantile_q_out_of_range", fn=lambda m, x: m.quantile(x, 1.5), shapes=[((4,),)]),
    OpCase(ops=("quantile",), name="quantile_q_2d",
           fn=lambda m, x: m.quantile(x, _quantile_q(m, [[0.5]], str(x.dtype).split(".")[-1])), shapes=[((4,),)]),
    OpCase(ops=("quantile",), name="quantile_q_dtype", fn=lambda m, x: m.quantile(x, m.tensor([0.5], dtype=m.float64)),
           shapes=[((4,),)], dtypes=("float32",)),
    OpCase(ops=("quantile",), name="quantile_int", fn=lambda m, x: m.quantile(x, 0.5), shapes=[((4,),)], dtypes=("int64",)),
    OpCase(ops=("quantile",), name="quantile_empty", fn=lambda m, x: m.quantile(x, 0.5), shapes=[((0,),), ((2, 0),)]),
    OpCase(ops=("quantile",), name="quantile_bad_interpolation", fn=lambda m, x: m.quantile(x, 0.5, interpolation="foo"),
           shapes=[((4,),)]),
    OpCase(ops=("nanquantile",), fn=lambda m, x: m.nanquantile(_with_nans(m, x), 0.4, dim=0), shapes=[((5, 3),), ((7,),)]),
    OpCase(ops=("nanquantile",), name="nanquantile_all_nan", fn=lambda m, x: m.nanquantile(x * float("nan"), 0.4),
           shapes=[((3,),)], grad=False),
    OpCase(ops=("nanquantile",), name="nanquantile_tensor_q",
           fn=lambda m, x: x.nanquantile(_quantile_q(m, [0.3, 0.8], str(x.dtype).split(".")[-1]), dim=1,
                                         interpolation="midpoint"), shapes=[((3, 6),)]),
    # ---- unique / unique_consecutive (sorted always; inverse and counts as asked)
    OpCase(ops=("_unique2",), name="unique", fn=lambda m, x: m.unique(x), shapes=[((8,),), ((3, 4),), ((),), ((0,),)],
           dtypes=ALL, int_domain=TIES, grad=False),
    OpCase(ops=("_unique2",), name="unique_inverse_counts",
           fn=lambda m, x: m.unique(x, return_inverse=True, return_counts=True), shapes=[((3, 5),)], dtypes=NUMERIC,
           int_domain=TIES, grad=False),
    OpCase(ops=("_unique2",), name="unique_method", fn=lambda m, x: x.round().unique(sorted=False, return_counts=True),
           shapes=[((10,),)], grad=False),
    OpCase(ops=("_unique2",), name="unique_nan", fn=lambda m, x: m.unique(_with_nans(m, x.round()), return_inverse=True),
           shapes=[((10,),)], grad=False),
    OpCase(ops=("_unique_dim",), name="unique_dim", fn=lambda m, x: m.unique(x, dim=0, return_inverse=True, return_counts=True),
           shapes=[((6, 2),), ((0, 2),)], dtypes=NUMERIC, int_domain=(0, 2), grad=False),
    OpCase(ops=("_unique_dim",), name="unique_dim1", fn=lambda m, x: x.unique(dim=1, return_inverse=True),
           shapes=[((2, 6, 2),)], dtypes=("int64", "bool"), int_domain=(0, 2), grad=False),
    OpCase(ops=("_unique_dim",), name="unique_dim_zero_sized", fn=lambda m, x: m.unique(x, dim=0), shapes=[((2, 0),)],
           grad=False),
    OpCase(ops=("_unique_consecutive",), name="unique_consecutive",
           fn=lambda m, x: m.unique_consecutive(x, return_inverse=True, return_counts=True), shapes=[((12,),), ((3, 4),), ((0,),)],
           dtypes=ALL, int_domain=(0, 2), grad=False),
    OpCase(ops=("_unique_consecutive",), name="unique_consecutive_dim",
           fn=lambda m, x: x.unique_consecutive(return_counts=True, dim=0), shapes=[((6, 2),)], dtypes=("int64",),
           int_domain=(0, 2), grad=False),
    OpCase(ops=("_unique_consecutive",), name="unique_consecutive_plain", fn=lambda m, x: m.unique_consecutive(x.round()),
           shapes=[((8,),)], grad=False),
    # ---- searchsorted / bucketize
    OpCase(ops=("searchsorted",), fn=lambda m, s, v: m.searchsorted(s.sort()[0], v), shapes=[((10,), (3, 4)), ((10,), ()),
                                                                                           ((0,), (3,)), ((4, 6), (4, 3))],
           dtypes=NUMERIC, int_domain=TIES, grad=False),
    OpCase(ops=("searchsorted",), name="searchsorted_right", fn=lambda m, s, v: m.searchsorted(s.sort()[0], v, right=True),
           shapes=[((10,), (3, 4)), ((2, 6), (2, 3))], dtypes=NUMERIC, int_domain=TIES, grad=False),
    OpCase(ops=("searchsorted",), name="searchsorted_side_int32",
           fn=lambda m, s, v: m.searchsorted(s.sort()[0], v, side="right", out_int32=True), shapes=[((10,), (5,))],
           dtypes=("int64",), int_domain=TIES, grad=False),
    OpCase(ops=("searchsorted",), name="searchsorted_sorter",
           fn=lambda m, s, v: m.searchsorted(s, v, sorter=s.argsort(stable=True)), shapes=[((10,), (5,)), ((3, 5), (3, 2))],
           dtypes=NUMERIC, int_domain=TIES, grad=False),
    OpCase(ops=("searchsorted",), name="searchsorted_scalar", fn=lambda m, s: m.searchsorted(s.sort()[0], 0.5),
           shapes=[((10,),)], grad=False),
    OpCase(ops=("searchsorted",), name="searchsorted_mixed_dtypes", fn=lambda m, s, v: m.searchsorted(s.sort()[0], v.double()),
           shapes=[((10,), (4,))], dtypes=("int64", "float32"), grad=False),
    OpCase(ops=("searchsorted",), name="searchsorted_nan", fn=lambda m, s, v: m.searchsorted(s.sort()[0], _with_nans(m, v)),
           shapes=[((10,), (6,))], grad=False),
    OpCase(ops=("searchsorted",), name="searchsorted_bad_shape", fn=lambda m, s, v: m.searchsorted(s, v),
           shapes=[((2, 3), (3, 1)), ((), (3,))], grad=False),
    OpCase(ops=("searchsorted",), name="searchsorted_bad_side", fn=lambda m, s, v: m.searchsorted(s, v, side="left", right=True),
           shapes=[((3,), (2,))], grad=False),
    OpCase(ops=("searchsorted",), name="searchsorted_bad_sorter", fn=lambda m, s, v: m.searchsorted(s, v, sorter=s.argsort()[:2]),
           shapes=[((3,), (2,))], grad=False),
    OpCase(ops=("bucketize",), fn=lambda m, x, b: m.bucketize(x, b.sort()[0]), shapes=[((3, 4), (6,)), ((), (6,))],
           dtypes=NUMERIC, int_domain=TIES, grad=False),
    OpCase(ops=("bucketize",), name="bucketize_right_int32", fn=lambda m, x, b: m.bucketize(x, b.sort()[0], right=True,
                                                                                           out_int32=True),
           shapes=[((5,), (6,))], dtypes=("int64",), int_domain=TIES, grad=False),
    OpCase(ops=("bucketize",), name="bucketize_bad_boundaries", fn=lambda m, x, b: m.bucketize(x, b), shapes=[((3,), (2, 3))],
           grad=False),
    # ---- bincount / histc
    OpCase(ops=("bincount",), fn=lambda m, x: m.bincount(x), shapes=[((10,),), ((0,),)], dtypes=("int64", "int32", "uint8"),
           int_domain=(0, 6), grad=False),
    OpCase(ops=("bincount",), name="bincount_weights_minlength", fn=lambda m, x, w: m.bincount(x.long().abs(), w, minlength=8),
           shapes=[((10,), (10,))], grad=False),
    OpCase(ops=("bincount",), name="bincount_int_weights", fn=lambda m, x, w: x.bincount(w, 3), shapes=[((10,), (10,))],
           dtypes=("int64",), int_domain=(0, 6), grad=False),
    OpCase(ops=("bincount",), name="bincount_negative", fn=lambda m, x: m.bincount(x), shapes=[((5,),)], dtypes=("int64",),
           int_domain=(-3, 0), grad=False),
    OpCase(ops=("bincount",), name="bincount_2d", fn=lambda m, x: m.bincount(x), shapes=[((2, 2),)], dtypes=("int64",),
           int_domain=(0, 3), grad=False),
    OpCase(ops=("bincount",), name="bincount_float", fn=lambda m, x: m.bincount(x), shapes=[((3,),)], grad=False),
    OpCase(ops=("bincount",), name="bincount_bad_weights", fn=lambda m, x, w: m.bincount(x, w), shapes=[((3,), (4,))],
           dtypes=("int64",), int_domain=(0, 3), grad=False),
    OpCase(ops=("histc",), fn=lambda m, x: m.histc(x), shapes=[((50,),), ((4, 5),), ((0,),)], grad=False),
    OpCase(ops=("histc",), name="histc_range", fn=lambda m, x: x.histc(bins=7, min=-1, max=1), shapes=[((100,),)], grad=False),
    OpCase(ops=("histc",), name="histc_constant", fn=lambda m, x: m.histc(x * 0 + 1, bins=3), shapes=[((4,),)], grad=False),
    OpCase(ops=("histc",), name="histc_bad_bins", fn=lambda m, x: m.histc(x, bins=0), shapes=[((4,),)], grad=False),
    OpCase(ops=("histc",), name="histc_bad_range", fn=lambda m, x: m.histc(x, bins=3, min=3, max=1), shapes=[((4,),)],
           grad=False),
    OpCase(ops=("histc",), name="histc_int", fn=lambda m, x: m.histc(x, bins=3), shapes=[((4,),)], dtypes=("int64",), grad=False),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_parity(case):
    assert run_case(case) > 0


def test_sort_is_stable_on_long_rows_with_ties():
    rng = np.random.default_rng(0)
    x = rng.integers(0, 5, (4, 5000))
    for descending in (False, True):
        ours = flow.sort(flow.tensor(x), dim=1, descending=descending)
        theirs = torch.sort(torch.tensor(x), dim=1, descending=descending, stable=True)
        np.testing.assert_array_equal(ours.values.numpy(), theirs.values.numpy())
        np.testing.assert_array_equal(ours.indices.numpy(), theirs.indices.numpy())


def test_return_types():
    x = flow.tensor([[3.0, 1.0, 2.0]])
    assert flow.sort(x).values.shape == (1, 3)
    assert flow.topk(x, 1).indices.item() == 0
    assert flow.kthvalue(x, 1).values.item() == 1.0
    assert flow.median(x, 1).indices.item() == 2
    assert flow.mode(x).values.item() == 1.0
    assert flow.cummax(x, 1).indices.tolist() == [[0, 0, 0]]


def _message(exc, fn, *args, **kwargs):
    with pytest.raises(exc) as info:
        fn(*args, **kwargs)
    return str(info.value)


def test_errors():
    x = flow.ones(3, 4)
    msg = _message(RuntimeError, flow.topk, x, 5)
    assert "topk" in msg and "k out of range" in msg and "[3, 4]" in msg
    msg = _message(RuntimeError, flow.kthvalue, x, 0)
    assert "kthvalue" in msg and "out of range" in msg and "[3, 4]" in msg
    msg = _message(RuntimeError, flow.bincount, flow.tensor([1, -2]))
    assert "bincount" in msg and "non-negative" in msg and "-2" in msg
    msg = _message(RuntimeError, flow.bincount, flow.tensor([[1]]))
    assert "bincount" in msg and "[1, 1]" in msg
    msg = _message(RuntimeError, flow.quantile, flow.ones(3), 1.5)
    assert "quantile" in msg and "[0, 1]" in msg
    msg = _message(RuntimeError, flow.searchsorted, flow.ones(2, 3), flow.ones(3, 1))
    assert "searchsorted" in msg and "[2, 3]" in msg and "[3, 1]" in msg
    msg = _message(IndexError, flow.median, flow.ones(2, 0), 1)
    assert "median" in msg and "[2, 0]" in msg
