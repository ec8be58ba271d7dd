"""Accuracy of vec_math.inc against float64, on every instruction set.

The float32 transcendentals (exp, expm1, log, log1p, tanh, sigmoid, sqrt, rsqrt) run on
vec_math.inc's GCC-vector formulas; softmax and log_softmax run its VExp<float> inside `omp
simd` loops (rows, and columns with the softmax dim outer). Each is checked on dense grids
and random points of its useful range against NumPy in float64, in ulps of the float32
result (absolute below the normal range), and on the special values. The bounds are fixed
numbers, a little above what the formulas reach (same on AVX-512, AVX2 and baseline); they
do not depend on torch's own error on the machine.
"""

import pytest
from parity import ISAS, assert_script_passes_on_isa

_SCRIPT = r"""
import numpy as np, oneflow as flow

rng = np.random.default_rng(3)
tiny = np.finfo(np.float32).tiny

def grid(lo, hi, n=200001):
    return np.concatenate([np.linspace(lo, hi, n), rng.uniform(lo, hi, n)]).astype(np.float32)

powers_of_two = (2.0 ** np.arange(-149, 128)).astype(np.float32)
# name: (inputs, float64 reference, max ulps where the result is a normal float)
CASES = {
    "exp": (grid(-104, 89), np.exp, 2.0),
    "expm1": (grid(-20, 89), np.expm1, 3.0),
    "log": (np.concatenate([grid(1e-6, 10), np.exp(grid(-87, 88)), powers_of_two]), np.log, 4.0),
    "log1p": (grid(-0.999, 50), np.log1p, 5.0),
    "tanh": (grid(-12, 12), np.tanh, 4.0),
    "sigmoid": (grid(-80, 80), lambda x: 1 / (1 + np.exp(-x)), 4.0),
    "sqrt": (np.concatenate([grid(0, 1e4), powers_of_two]), np.sqrt, 0.5),
    "rsqrt": (np.concatenate([grid(1e-3, 1e4), powers_of_two]), lambda x: 1 / np.sqrt(x), 2.0),
}
SPECIALS = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-45, -1e-45, 1e-40, 88.8, 89.5, -103.9, -105.0],
                    dtype=np.float32)

def ulps(ours, ref):
    # Error in units of the float32 spacing at the exact result (normal results only).
    r32 = ref.astype(np.float32)
    normal = np.isfinite(r32) & (np.abs(r32) >= tiny)
    err = np.abs(ours[normal] - ref[normal]) / np.spacing(np.abs(r32[normal])).astype(np.float64)
    rest = np.isfinite(r32) & ~normal
    return err, np.abs(ours[rest] - ref[rest]), normal | rest

with np.errstate(all="ignore"):
    for name, (a, f, bound) in CASES.items():
        ours = getattr(flow, name)(flow.tensor(a)).numpy().astype(np.float64)
        ref = f(a.astype(np.float64))
        err, sub, finite = ulps(ours, ref)
        assert err.max() <= bound, (name, err.max(), a[np.isfinite(ref.astype(np.float32))][err.argmax()])
        assert sub.size == 0 or sub.max() <= 1.5e-45, (name, sub.max())  # one subnormal step
        np.testing.assert_array_equal(ours[~finite], ref.astype(np.float32)[~finite], err_msg=name)
        # Special values: exactly the float32 rounding of the float64 result (NaN where it is NaN),
        # with the sign of zeros.
        s = getattr(flow, name)(flow.tensor(SPECIALS)).numpy()
        want = f(SPECIALS.astype(np.float64)).astype(np.float32)
        close = np.isclose(s, want, rtol=4e-7, atol=1.5e-45, equal_nan=True)
        assert close.all(), (name, SPECIALS[~close], s[~close], want[~close])
        zero = want == 0
        assert (np.signbit(s[zero]) == np.signbit(want[zero])).all(), name

    # softmax / log_softmax through VExp<float> in `omp simd` loops: rows (dim -1) and columns (dim 0).
    x = (rng.standard_normal((64, 1003)) * 20).astype(np.float32)
    x[3, 5] = -np.inf
    for dim in (1, 0):
        x64 = x.astype(np.float64)
        m = x64.max(axis=dim, keepdims=True)
        lse = m + np.log(np.exp(x64 - m).sum(axis=dim, keepdims=True))
        y = flow.nn.functional.softmax(flow.tensor(x), dim=dim).numpy().astype(np.float64)
        err = np.abs(y - np.exp(x64 - lse)).max()
        assert err <= 5e-7, ("softmax", dim, err)
        ly = flow.nn.functional.log_softmax(flow.tensor(x), dim=dim).numpy().astype(np.float64)
        ref = x64 - lse
        ok = np.isfinite(ref)
        # x - lse rounds at the larger of the two: ulps of that.
        scale = np.maximum(np.abs(x64), np.abs(ref))[ok].astype(np.float32)
        err = (np.abs(ly - ref)[ok] / np.spacing(scale).astype(np.float64)).max()
        assert err <= 4.0, ("log_softmax ulps", dim, err)
        assert np.array_equal(ly[~ok], ref[~ok]), "log_softmax(-inf)"
print("ok")
"""


@pytest.mark.parametrize("isa", ISAS)
def test_vector_math_accuracy_on_each_instruction_set(isa):
    assert_script_passes_on_isa(_SCRIPT, isa)
