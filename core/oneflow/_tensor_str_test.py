"""Checks ``_tensor_str`` against PyTorch, whose ``repr`` is the reference.

The module is loaded from the file next to this one, so the tests run without
the ``oneflow`` package being importable.
"""

from __future__ import annotations

import importlib.util
import math
import re
from pathlib import Path

import numpy as np
import pytest
import torch

_spec = importlib.util.spec_from_file_location(
    "_tensor_str_under_test", Path(__file__).with_name("_tensor_str.py")
)
ts = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ts)

nan, inf = math.nan, math.inf


def _name(t: torch.Tensor) -> str:
    return str(t.dtype).removeprefix("torch.")


def _values(t: torch.Tensor) -> np.ndarray:
    """The array the framework would hand over for ``t``."""
    if t.dtype == torch.bfloat16:
        return t.float().numpy()
    return t.numpy()


def _check(t: torch.Tensor) -> None:
    """Our repr, given the suffixes torch shows, must equal torch's repr.

    The suffixes are passed spelled as torch spells them: renaming
    ``torch.`` to ``oneflow.`` makes them two columns longer, which can move
    torch's decision to wrap them onto a new line.
    """
    expected = repr(t)
    suffixes = re.findall(r"dtype=torch\.\w+", expected)
    assert ts.format_tensor(_values(t), _name(t), suffixes=suffixes) == expected


def _gen(seed: int = 0) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


CASES = {
    # 0-d
    "scalar_whole": lambda: torch.tensor(3.0),
    "scalar_frac": lambda: torch.tensor(-2.5),
    "scalar_tiny": lambda: torch.tensor(1e-5),
    "scalar_huge": lambda: torch.tensor(3e9),
    "scalar_nan": lambda: torch.tensor(nan),
    "scalar_neg_inf": lambda: torch.tensor(-inf),
    "scalar_neg_zero": lambda: torch.tensor(-0.0),
    "scalar_f64": lambda: torch.tensor(0.1, dtype=torch.float64),
    "scalar_f16": lambda: torch.tensor(0.1, dtype=torch.float16),
    "scalar_int": lambda: torch.tensor(-7),
    "scalar_uint8": lambda: torch.tensor(200, dtype=torch.uint8),
    "scalar_bool": lambda: torch.tensor(True),
    # 1-d floats
    "vec_basic": lambda: torch.tensor([1.0, 2.5]),
    "vec_whole": lambda: torch.tensor([1.0, 2.0, -30.0]),
    "vec_zeros": lambda: torch.zeros(5),
    "vec_neg_zeros": lambda: torch.tensor([-0.0, 0.0, -0.0]),
    "vec_neg_zero_whole": lambda: torch.tensor([-0.0, 1.0]),
    "vec_neg_zero_frac": lambda: torch.tensor([-0.0, 1.5]),
    "vec_nonfinite_only": lambda: torch.tensor([nan, inf, -inf]),
    "vec_nan_frac": lambda: torch.tensor([nan, 1.5, -inf]),
    "vec_nan_whole": lambda: torch.tensor([1.0, nan, inf, -inf]),
    "vec_nan_sci": lambda: torch.tensor([1e-6, nan, inf, -inf, 0.0]),
    "vec_tiny": lambda: torch.tensor([1e-5, 2e-5]),
    "vec_edge_1e-4": lambda: torch.tensor([1e-4, 0.5]),
    "vec_f64_exact_1e-4": lambda: torch.tensor([1e-4, 0.05], dtype=torch.float64),
    "vec_ratio_1000": lambda: torch.tensor([0.5, 500.0]),
    "vec_whole_ratio_1000": lambda: torch.tensor([1.0, 1000.0]),
    "vec_mixed_mag": lambda: torch.tensor([0.5, 1234.5]),
    "vec_whole_ratio": lambda: torch.tensor([1.0, 2000.0]),
    "vec_whole_1e8": lambda: torch.tensor([1e8, 2e7]),
    "vec_whole_above_1e8": lambda: torch.tensor([2e8, 3e8]),
    "vec_big_frac": lambda: torch.tensor([123456.7, 654321.1]),
    "vec_sci_neg": lambda: torch.tensor([-1e10, 1.5, -3e-3]),
    "vec_one_huge": lambda: torch.tensor([3.4e38, -1.0]),
    "vec_f64_precise": lambda: torch.tensor([1 / 3, 2 / 3, -1e-3], dtype=torch.float64),
    "vec_f16": lambda: torch.tensor([0.1, 65504.0, -2.0], dtype=torch.float16),
    "vec_f16_whole": lambda: torch.tensor([1.0, 2.0, 1024.0], dtype=torch.float16),
    "vec_bf16": lambda: torch.tensor([0.1, 3.0, 1e10], dtype=torch.bfloat16),
    "vec_bf16_randn": lambda: torch.randn(12, generator=_gen(1)).bfloat16(),
    # integers and bool
    "vec_int64": lambda: torch.tensor([-5, 0, 1234567890123]),
    "vec_int32": lambda: torch.tensor([1, -2, 30], dtype=torch.int32),
    "vec_int8": lambda: torch.tensor([-128, 0, 127], dtype=torch.int8),
    "vec_uint8": lambda: torch.tensor([0, 7, 255], dtype=torch.uint8),
    "vec_int16": lambda: torch.tensor([-300, 2], dtype=torch.int16),
    "vec_bool": lambda: torch.tensor([True, False, True]),
    "mat_bool": lambda: torch.tensor([[True], [False]]),
    "mat_uint8": lambda: torch.arange(12, dtype=torch.uint8).reshape(3, 4) * 20,
    # 2-d .. 4-d
    "mat_randn": lambda: torch.randn(3, 4, generator=_gen(2)),
    "mat_whole": lambda: torch.arange(-6.0, 6.0).reshape(3, 4),
    "mat_sci": lambda: torch.randn(2, 3, generator=_gen(3)) * 1e5,
    "mat_f64": lambda: torch.randn(4, 2, generator=_gen(4), dtype=torch.float64),
    "mat_int32": lambda: torch.arange(-20, 20, 7, dtype=torch.int32).reshape(2, 3),
    "cube_randn": lambda: torch.randn(2, 3, 4, generator=_gen(5)),
    "cube_f16": lambda: torch.randn(2, 2, 3, generator=_gen(6)).half(),
    "hyper_randn": lambda: torch.randn(2, 2, 2, 3, generator=_gen(7)),
    "hyper_int8": lambda: torch.arange(-60, 60, 5, dtype=torch.int8).reshape(2, 3, 2, 2),
    "unit_dims": lambda: torch.randn(1, 1, 1, generator=_gen(8)),
    # rows wider than 80 columns
    "wrap_randn": lambda: torch.randn(30, generator=_gen(9)),
    "wrap_whole": lambda: torch.arange(60.0),
    "wrap_sci": lambda: torch.randn(17, generator=_gen(10)) * 1e-7,
    "wrap_int64": lambda: torch.arange(25) * 10**12,
    "wrap_bool": lambda: torch.arange(40) % 3 == 0,
    "wrap_zeros": lambda: torch.zeros(60),
    "wrap_mat": lambda: torch.randn(3, 25, generator=_gen(11)),
    "wrap_cube_f64": lambda: torch.randn(2, 2, 20, generator=_gen(12), dtype=torch.float64),
    # summarised (> 1000 elements)
    "at_threshold": lambda: torch.arange(1000.0) / 4,
    "six_rows": lambda: torch.randn(6, 200, generator=_gen(22)),
    "six_cols": lambda: torch.randn(200, 6, generator=_gen(23)),
    "long_arange": lambda: torch.arange(2000.0),
    "long_1001": lambda: torch.randn(1001, generator=_gen(13)),
    "long_int": lambda: torch.arange(1500),
    "long_bool": lambda: torch.arange(1200) % 2 == 0,
    # Only the shown edges decide the notation: the hidden 1e-9s do not.
    "long_edges_decide": lambda: torch.cat(
        [torch.ones(3), torch.full((1000,), 1e-9), torch.ones(3)]
    ),
    "wide": lambda: torch.randn(3, 2000, generator=_gen(14)),
    "tall": lambda: torch.randn(2000, 3, generator=_gen(15)),
    "square": lambda: torch.randn(50, 50, generator=_gen(16)) * 1e4,
    "tall_wide_rows": lambda: torch.randn(400, 5, generator=_gen(17)) * 1e6,
    "cube_big": lambda: torch.arange(8000, dtype=torch.int32).reshape(20, 20, 20),
    "hyper_big": lambda: torch.randn(8, 2, 8, 9, generator=_gen(18), dtype=torch.float64),
    "big_f16": lambda: torch.randn(40, 40, generator=_gen(19)).half(),
    "big_bf16": lambda: torch.randn(1100, generator=_gen(20)).bfloat16(),
    # empty
    "empty_1d": lambda: torch.empty(0),
    "empty_3d": lambda: torch.empty(2, 0, 3),
    "empty_int": lambda: torch.empty(0, dtype=torch.int64),
    "empty_bool_2d": lambda: torch.empty(0, 4, dtype=torch.bool),
    "empty_f64_2d": lambda: torch.empty(2, 0, dtype=torch.float64),
}


@pytest.mark.parametrize("make", CASES.values(), ids=CASES.keys())
def test_matches_torch(make):
    _check(make())


@pytest.mark.parametrize("seed", range(40))
def test_random_matches_torch(seed):
    """Random shapes, dtypes and magnitudes, with sprinkled special values."""
    rng = np.random.default_rng(seed)
    ndim = int(rng.integers(0, 5))
    shape = tuple(int(s) for s in rng.integers(1, 7, size=ndim))
    scale = 10.0 ** rng.integers(-8, 10)
    data = np.asarray(rng.standard_normal(shape) * scale)
    if rng.random() < 0.3:
        data = np.asarray(np.round(data))
    if data.size > 1 and rng.random() < 0.3:
        flat = data.reshape(-1)
        flat[rng.integers(0, flat.size, size=2)] = rng.choice([nan, inf, -inf, -0.0])
    dtype = [torch.float32, torch.float64, torch.float16, torch.bfloat16][seed % 4]
    _check(torch.from_numpy(data).to(dtype))


@pytest.mark.parametrize("indent", [0, 1, 7, 20, 60, 79, 100])
@pytest.mark.parametrize("shape", [(30,), (4, 13), (2, 2, 12)])
def test_format_values_indent(indent, shape):
    """Continuation lines and element counts per line depend on ``indent``."""
    t = torch.randn(*shape, generator=_gen(21))
    expected = torch._tensor_str._tensor_str(t, indent)
    assert ts.format_values(t.numpy(), "float32", indent) == expected


def test_format_values_examples():
    assert ts.format_values(np.array([1.0, 2.5], np.float32), "float32", 7) == "[1.0000, 2.5000]"
    assert ts.format_values(np.array(3.0, np.float32), "float32", 7) == "3."
    assert ts.format_values(np.array([True, False]), "bool", 7) == "[ True, False]"
    assert ts.format_values(np.zeros((2, 0, 3), np.float32), "float32", 7) == "[]"


@pytest.mark.parametrize("n", range(1, 40))
def test_float32_dtype_suffix_wraps_like_torch(n):
    """An always-present ``dtype=oneflow.float32`` wraps where torch wraps
    ``dtype=torch.float64`` after the same values. (Here the values' last line
    grows 9 columns at a time, so the two-column longer name never lands
    between torch's two decisions.)"""
    t64 = torch.arange(n, dtype=torch.float64) / 8 - 1.5
    expected = repr(t64).replace("dtype=torch.float64", "dtype=oneflow.float32")
    ours = ts.format_tensor(t64.float().numpy(), "float32", suffixes=["dtype=oneflow.float32"])
    assert ours == expected


def test_dtype_suffix_wrap_is_exercised():
    """The sweep above covers both a wrapped and an unwrapped suffix."""
    reprs = [repr(torch.arange(n, dtype=torch.float64) / 8 - 1.5) for n in range(1, 40)]
    assert any("\n       dtype=" in r for r in reprs)
    assert any(", dtype=" in r for r in reprs)


@pytest.mark.parametrize("first_line", ["", "x" * 40 + "\n"])
@pytest.mark.parametrize("last_len", range(40, 80))
@pytest.mark.parametrize(
    "suffixes",
    [
        ["dtype=oneflow.float32"],
        ["size=(2, 0, 3)", "dtype=oneflow.int64"],
        ["dtype=oneflow.float16", "x" * 50, "y" * 21],
    ],
    ids=["one", "two", "long"],
)
def test_suffix_placement_matches_torch_column_by_column(first_line, last_len, suffixes):
    """Every last-line length around the limit, checked against torch's own
    suffix placement (a private helper of torch, stable across 2.x)."""
    text = first_line + "t" * last_len
    expected = torch._tensor_str._add_suffixes(text, suffixes, 7, force_newline=False)
    assert ts._attach_suffixes(text, suffixes, 7) == expected


@pytest.mark.parametrize("n", [1, 4, 7, 10, 18])
def test_several_suffixes_match_torch(n):
    """A second suffix follows the dtype, on its line when it fits."""
    t = (torch.arange(n, dtype=torch.float64) / 8).requires_grad_() * 3
    suffixes = ["dtype=torch.float64", "grad_fn=<MulBackward0>"]
    assert ts.format_tensor(t.detach().numpy(), "float64", suffixes=suffixes) == repr(t)


def test_explicit_shape_gives_size_suffix():
    expected = repr(torch.empty(0, 4, dtype=torch.int32)).replace("torch.", "oneflow.")
    ours = ts.format_tensor(
        np.empty(0, np.int32), "int32", shape=(0, 4), suffixes=["dtype=oneflow.int32"]
    )
    assert ours == expected
    assert ts.format_tensor(np.empty(0, np.float32), "float32", shape=(0,)) == "tensor([])"
