"""Parity rows for the random ops (ops/defs/random.cc) and the creation functions built on them.

Random values cannot match torch's generator, so every row has a `check`: a property that
both torch's outputs and ours must have (a range, 0/1 values, a permutation). Shapes, dtypes,
the errors raised and the (zero) gradients are compared with torch as usual.
"""

import numpy as np
import pytest
from parity import OpCase, run_case

FLOATS = ("float32", "float64")
ALL_FLOATS = ("float32", "float64", "float16", "bfloat16")
UNARY_SHAPES = [((2, 3),), ((),), ((0, 4),), ((3, 1, 2),)]
# (torch skips some dtype checks for empty tensors; we raise for every size)
NONEMPTY_SHAPES = [s for s in UNARY_SHAPES if 0 not in s[0]]
NO_INPUT = [((1,),)]  # one input whose dtype picks the dtype of a creation function


def _np(t):
    if str(t.dtype).endswith("bfloat16"):
        t = t.float()
    return t.detach().numpy()


def _each(pred, what):
    """A check that every output (ours and torch's) satisfies pred(values, dtype)."""

    def check(ours, theirs, dtype):
        for who, outs in (("ours", ours), ("torch", theirs)):
            for k, t in enumerate(outs):
                v = _np(t)
                assert pred(v, dtype), f"{who} output {k} is not {what}: {v}"

    return check


def in_range(lo, hi, closed=False):
    """Values in [lo, hi) (or [lo, hi])."""
    return _each(lambda v, d: np.all(v >= lo) and np.all(v <= hi if closed else v < hi), f"in [{lo}, {hi})")


def integers_in(lo, hi):
    """Integer values in [lo, hi)."""
    return _each(lambda v, d: np.all(v >= lo) and np.all(v < hi) and np.all(v == np.floor(v)),
                 f"integers in [{lo}, {hi})")


ZERO_ONE = _each(lambda v, d: np.all((v == 0) | (v == 1)), "0 or 1")
FINITE = _each(lambda v, d: np.all(np.isfinite(v.astype(np.float64))), "finite")


def permutation_of(n):
    return _each(lambda v, d: sorted(v.astype(np.int64).tolist()) == list(range(n)), f"a permutation of 0..{n - 1}")


def _near(center, spread):
    """Finite values within `spread` of `center` (loose: 8 sigma for normals)."""
    return _each(lambda v, d: np.all(np.abs(v.astype(np.float64) - center) <= spread), f"within {spread} of {center}")


def _gen(m, seed=1):
    return m.Generator().manual_seed(seed)


# Bounds of random_() without arguments: floating types draw integers up to 2^mantissa digits.
_RANDOM_HI = {"float32": 2**24, "float64": 2**53, "float16": 2**11, "bfloat16": 2**8, "int64": 2**63 - 1,
              "int32": 2**31 - 1, "int16": 2**15 - 1, "int8": 127, "uint8": 255, "bool": 1}


def _random_default(ours, theirs, dtype):
    _each(lambda v, d: np.all(v >= 0) and np.all(v.astype(np.float64) <= _RANDOM_HI[dtype]),
          "in the default random_ range")(ours, theirs, dtype)


CASES = [
    # uniform_
    OpCase(ops=("uniform_",), fn=lambda m, x: x.clone().uniform_(-1.0, 2.0), shapes=UNARY_SHAPES, dtypes=ALL_FLOATS,
           check=in_range(-1.0, 2.0)),
    OpCase(ops=("uniform_",), name="uniform_default", fn=lambda m, x: x.clone().uniform_(), shapes=UNARY_SHAPES,
           check=in_range(0.0, 1.0)),
    OpCase(ops=("uniform_",), name="uniform_generator", fn=lambda m, x: (x * 1).uniform_(to=0.5, generator=_gen(m)),
           shapes=UNARY_SHAPES, check=in_range(0.0, 0.5)),
    OpCase(ops=("uniform_",), name="uniform_empty_range", fn=lambda m, x: x.clone().uniform_(1.5, 1.5),
           shapes=UNARY_SHAPES, check=in_range(1.5, 1.5, closed=True)),
    OpCase(ops=("uniform_",), name="uniform_from_gt_to", fn=lambda m, x: x.clone().uniform_(3, 1), shapes=UNARY_SHAPES,
           check=FINITE),
    OpCase(ops=("uniform_",), name="uniform_int", fn=lambda m, x: x.clone().uniform_(), shapes=UNARY_SHAPES,
           dtypes=("int64", "bool"), check=FINITE),
    OpCase(ops=("uniform_",), name="uniform_half_out_of_bounds", fn=lambda m, x: x.clone().uniform_(0, 1e5),
           shapes=UNARY_SHAPES, dtypes=("float16",), check=FINITE),
    # normal_
    OpCase(ops=("normal_",), fn=lambda m, x: x.clone().normal_(1.0, 0.5), shapes=UNARY_SHAPES, dtypes=ALL_FLOATS,
           check=_near(1.0, 4.0)),
    OpCase(ops=("normal_",), name="normal_default", fn=lambda m, x: (x * 1).normal_(generator=_gen(m)),
           shapes=UNARY_SHAPES, check=_near(0.0, 8.0)),
    OpCase(ops=("normal_",), name="normal_zero_std", fn=lambda m, x: x.clone().normal_(2.0, 0.0), shapes=UNARY_SHAPES,
           check=in_range(2.0, 2.0, closed=True)),
    OpCase(ops=("normal_",), name="normal_negative_std", fn=lambda m, x: x.clone().normal_(0, -1),
           shapes=UNARY_SHAPES, check=FINITE),
    OpCase(ops=("normal_",), name="normal_int", fn=lambda m, x: x.clone().normal_(), shapes=NONEMPTY_SHAPES,
           dtypes=("int64",), check=FINITE),
    # random_
    OpCase(ops=("random_",), fn=lambda m, x: x.clone().random_(), shapes=UNARY_SHAPES,
           dtypes=ALL_FLOATS + ("int64", "int32", "int16", "int8", "uint8", "bool"), check=_random_default),
    OpCase(ops=("random_",), name="random_to", fn=lambda m, x: x.clone().random_(5), shapes=UNARY_SHAPES,
           dtypes=("float32", "float16", "int64", "int8", "uint8"), check=integers_in(0, 5)),
    OpCase(ops=("random_",), name="random_from_to", fn=lambda m, x: x.clone().random_(-3, 4, generator=_gen(m)),
           shapes=UNARY_SHAPES, dtypes=("float32", "float64", "int64", "int32", "int8"), check=integers_in(-3, 4)),
    OpCase(ops=("random_",), name="random_from_kw", fn=lambda m, x: x.clone().random_(**{"from": 2, "to": 3}),
           shapes=UNARY_SHAPES, dtypes=("float32", "int64"), check=integers_in(2, 3)),
    OpCase(ops=("random_",), name="random_from_none", fn=lambda m, x: x.clone().random_(100, None),
           shapes=UNARY_SHAPES, dtypes=("float16", "int8", "uint8"), check=integers_in(100, 2**11 + 1)),
    OpCase(ops=("random_",), name="random_bool_range", fn=lambda m, x: x.clone().random_(0, 2), shapes=UNARY_SHAPES,
           dtypes=("bool",), check=ZERO_ONE),
    OpCase(ops=("random_",), name="random_empty_range", fn=lambda m, x: x.clone().random_(5, 2), shapes=UNARY_SHAPES,
           dtypes=("float32", "int64"), check=FINITE),
    OpCase(ops=("random_",), name="random_zero_to", fn=lambda m, x: x.clone().random_(0), shapes=UNARY_SHAPES,
           dtypes=("int64",), check=FINITE),
    OpCase(ops=("random_",), name="random_to_out_of_bounds", fn=lambda m, x: x.clone().random_(0, 1000),
           shapes=UNARY_SHAPES, dtypes=("int8", "uint8"), check=FINITE),
    OpCase(ops=("random_",), name="random_from_out_of_bounds", fn=lambda m, x: x.clone().random_(-200, 0),
           shapes=UNARY_SHAPES, dtypes=("int8", "uint8"), check=FINITE),
    OpCase(ops=("random_",), name="random_grad", fn=lambda m, x: (x * 2).random_(3) + x, shapes=UNARY_SHAPES,
           check=_near(0.0, 8.0)),
    # bernoulli: probabilities from a tensor or a float
    OpCase(ops=("bernoulli",), fn=lambda m, p: m.bernoulli(p), shapes=UNARY_SHAPES, dtypes=ALL_FLOATS,
           domain=(0.0, 1.0), check=ZERO_ONE),
    OpCase(ops=("bernoulli",), name="bernoulli_method", fn=lambda m, p: p.bernoulli(generator=_gen(m)),
           shapes=UNARY_SHAPES, domain=(0.0, 1.0), check=ZERO_ONE),
    OpCase(ops=("bernoulli",), name="bernoulli_certain", fn=lambda m, p: m.bernoulli((p > 0.5).to(p.dtype)),
           shapes=UNARY_SHAPES, domain=(0.0, 1.0), grad=False,
           check=lambda ours, theirs, d: np.testing.assert_array_equal(_np(ours[0]), _np(theirs[0]))),
    # (torch has no derivative for bernoulli(x, p): its backward raises; ours gives zeros)
    OpCase(ops=("bernoulli",), name="bernoulli_p", fn=lambda m, x: m.bernoulli(x, 0.3), shapes=UNARY_SHAPES,
           dtypes=("float32", "float64", "int64", "bool"), grad=False, check=ZERO_ONE),
    OpCase(ops=("bernoulli",), name="bernoulli_p_kw", fn=lambda m, x: m.bernoulli(x, p=1.0), shapes=UNARY_SHAPES,
           grad=False, check=in_range(1.0, 1.0, closed=True)),
    OpCase(ops=("bernoulli",), name="bernoulli_p_out_of_range", fn=lambda m, p: m.bernoulli(p), shapes=UNARY_SHAPES[:2],
           domain=(1.1, 2.0), check=FINITE),
    OpCase(ops=("bernoulli",), name="bernoulli_negative_p", fn=lambda m, p: m.bernoulli(p - 3), shapes=UNARY_SHAPES[:2],
           domain=(0.0, 1.0), check=FINITE),
    OpCase(ops=("bernoulli",), name="bernoulli_float_p_out_of_range", fn=lambda m, x: m.bernoulli(x, 1.5),
           shapes=UNARY_SHAPES, check=FINITE),
    OpCase(ops=("bernoulli",), name="bernoulli_int", fn=lambda m, p: m.bernoulli(p), shapes=NONEMPTY_SHAPES,
           dtypes=("int64",), check=FINITE),
    # bernoulli_: a float p, or a tensor of probabilities broadcast to self
    OpCase(ops=("bernoulli_",), fn=lambda m, x: x.clone().bernoulli_(0.3), shapes=UNARY_SHAPES,
           dtypes=ALL_FLOATS + ("int64", "int32", "uint8", "bool"), check=ZERO_ONE),
    OpCase(ops=("bernoulli_",), name="bernoulli__default", fn=lambda m, x: (x * 1).bernoulli_(generator=_gen(m)),
           shapes=UNARY_SHAPES, check=ZERO_ONE),
    OpCase(ops=("bernoulli_",), name="bernoulli__tensor", fn=lambda m, x, p: (x * 1).bernoulli_(p),
           shapes=[((2, 3), (2, 3)), ((2, 3), (3,)), ((3, 1, 2), (1, 2)), ((2, 3), ())], domain=(0.0, 1.0),
           check=ZERO_ONE),
    OpCase(ops=("bernoulli_",), name="bernoulli__tensor_int_self", fn=lambda m, x, p: x.clone().bernoulli_(p.float()),
           shapes=[((2, 3), (2, 3)), ((2, 3), (3,))], dtypes=("int64",), int_domain=(0, 2), check=ZERO_ONE),
    OpCase(ops=("bernoulli_",), name="bernoulli__out_of_range", fn=lambda m, x: x.clone().bernoulli_(1.5),
           shapes=UNARY_SHAPES, check=FINITE),
    OpCase(ops=("bernoulli_",), name="bernoulli__tensor_out_of_range", fn=lambda m, x, p: x.clone().bernoulli_(p),
           shapes=[((2, 3), (2, 3))], domain=(1.5, 2.0), check=FINITE),
    OpCase(ops=("bernoulli_",), name="bernoulli__tensor_shape_mismatch", fn=lambda m, x, p: x.clone().bernoulli_(p),
           shapes=[((3,), (2, 3))], domain=(0.0, 1.0), check=FINITE),
    OpCase(ops=("bernoulli_",), name="bernoulli__int_probabilities",
           fn=lambda m, x, p: x.clone().bernoulli_(p), shapes=[((2, 3), (2, 3))], dtypes=("int64",), int_domain=(0, 2),
           check=FINITE),
    # normal: tensor mean and/or std
    OpCase(ops=("normal",), fn=lambda m, mean, std: m.normal(mean, std),
           shapes=[((2, 3), (2, 3)), ((2, 1), (1, 3)), ((), (2, 3)), ((0, 3), (3,))], dtypes=ALL_FLOATS,
           domain=(0.1, 1.0), check=_near(0.5, 8.0)),
    OpCase(ops=("normal",), name="normal_tensor_float", fn=lambda m, mean: m.normal(mean, 0.5, generator=_gen(m)),
           shapes=UNARY_SHAPES, dtypes=ALL_FLOATS, check=_near(0.0, 6.0)),
    OpCase(ops=("normal",), name="normal_tensor_default_std", fn=lambda m, mean: m.normal(mean=mean),
           shapes=UNARY_SHAPES, check=_near(0.0, 10.0)),
    OpCase(ops=("normal",), name="normal_float_tensor", fn=lambda m, std: m.normal(1.0, std),
           shapes=UNARY_SHAPES, dtypes=ALL_FLOATS, domain=(0.0, 1.0), check=_near(1.0, 8.0)),
    OpCase(ops=("normal",), name="normal_mixed_dtypes", fn=lambda m, mean, std: m.normal(mean, std.double()),
           shapes=[((2, 3), (2, 3))], dtypes=("float32", "float16"), domain=(0.1, 1.0), check=_near(0.5, 8.0)),
    OpCase(ops=("normal",), name="normal_int_std", fn=lambda m, mean, std: m.normal(mean.float(), std),
           shapes=[((2, 3), (2, 3))], dtypes=("int64",), int_domain=(0, 3), check=_near(1.0, 20.0)),
    OpCase(ops=("normal",), name="normal_size", fn=lambda m, x: m.normal(2.0, 0.5, (3, 4), dtype=x.dtype),
           shapes=NO_INPUT, dtypes=ALL_FLOATS, check=_near(2.0, 4.0)),
    OpCase(ops=("normal",), name="normal_size_kw", fn=lambda m, x: m.normal(mean=0, std=1, size=[2, 0, 3]),
           shapes=NO_INPUT, check=FINITE),
    OpCase(ops=("normal",), name="normal_size_requires_grad",
           fn=lambda m, x: m.normal(0.0, 1.0, (5,), generator=_gen(m), requires_grad=True), shapes=NO_INPUT,
           check=FINITE),
    OpCase(ops=("normal",), name="normal_floats_without_size", fn=lambda m, x: m.normal(0.0, 1.0), shapes=NO_INPUT,
           check=FINITE),
    OpCase(ops=("normal",), name="normal_negative_std", fn=lambda m, mean: m.normal(mean, -1.0), shapes=UNARY_SHAPES,
           check=FINITE),
    OpCase(ops=("normal",), name="normal_negative_std_tensor", fn=lambda m, mean, std: m.normal(mean, -std),
           shapes=[((2, 3), (2, 3))], domain=(0.5, 1.0), check=FINITE),
    OpCase(ops=("normal",), name="normal_size_negative_std", fn=lambda m, x: m.normal(0.0, -1.0, (2,)),
           shapes=NO_INPUT, check=FINITE),
    OpCase(ops=("normal",), name="normal_shape_mismatch", fn=lambda m, mean, std: m.normal(mean, std),
           shapes=[((2,), (3,))], domain=(0.1, 1.0), check=FINITE),
    OpCase(ops=("normal",), name="normal_int_mean", fn=lambda m, mean: m.normal(mean, 1.0), shapes=NONEMPTY_SHAPES,
           dtypes=("int64",), check=FINITE),
    # randperm
    OpCase(ops=("randperm",), fn=lambda m, x: m.randperm(7, dtype=x.dtype), shapes=NO_INPUT,
           dtypes=("int64", "int32", "int16", "int8", "uint8", "float32", "float64", "float16", "bfloat16"),
           check=permutation_of(7)),
    OpCase(ops=("randperm",), name="randperm_default", fn=lambda m, x: m.randperm(50, generator=_gen(m)),
           shapes=NO_INPUT, check=permutation_of(50)),
    OpCase(ops=("randperm",), name="randperm_small", fn=lambda m, x: [m.randperm(0), m.randperm(1)], shapes=NO_INPUT,
           check=lambda ours, theirs, d: permutation_of(0)(ours[:1], theirs[:1], d)),
    OpCase(ops=("randperm",), name="randperm_float_requires_grad",
           fn=lambda m, x: m.randperm(5, dtype=m.float32, requires_grad=True), shapes=NO_INPUT,
           check=permutation_of(5)),
    OpCase(ops=("randperm",), name="randperm_int_requires_grad", fn=lambda m, x: m.randperm(5, requires_grad=True),
           shapes=NO_INPUT, check=FINITE),
    OpCase(ops=("randperm",), name="randperm_negative", fn=lambda m, x: m.randperm(-1), shapes=NO_INPUT, check=FINITE),
    OpCase(ops=("randperm",), name="randperm_float_n", fn=lambda m, x: m.randperm(2.0), shapes=NO_INPUT, check=FINITE),
    OpCase(ops=("randperm",), name="randperm_bool", fn=lambda m, x: m.randperm(3, dtype=x.dtype), shapes=NO_INPUT,
           dtypes=("bool",), check=FINITE),
    OpCase(ops=("randperm",), name="randperm_too_large_for_dtype",
           fn=lambda m, x: [m.randperm(n, dtype=x.dtype) for n in {"float16": (2049, 2050), "int8": (128, 129),
                                                                     "uint8": (256, 257)}[str(x.dtype).split(".")[-1]]],
           shapes=NO_INPUT, dtypes=("float16", "int8", "uint8"), check=FINITE),
    OpCase(ops=("randperm",), name="randperm_largest_for_dtype",
           fn=lambda m, x: m.randperm({"float16": 2049, "int8": 128, "uint8": 256}[str(x.dtype).split(".")[-1]],
                                      dtype=x.dtype), shapes=NO_INPUT, dtypes=("float16", "int8", "uint8"),
           check=lambda ours, theirs, d: permutation_of(len(_np(ours[0])))(ours, theirs, d)),
    # Creation functions built on the ops: argument forms, dtypes, errors.
    OpCase(ops=("uniform_",), name="rand", fn=lambda m, x: [m.rand(2, 3), m.rand((4,)), m.rand([2, 1]), m.rand(()),
                                                            m.rand(size=(3, 0)), m.rand(2, dtype=x.dtype)],
           shapes=NO_INPUT, dtypes=ALL_FLOATS, check=in_range(0.0, 1.0)),
    OpCase(ops=("uniform_",), name="rand_requires_grad", fn=lambda m, x: m.rand(3, requires_grad=True) + x,
           shapes=NO_INPUT, check=in_range(-2.0, 3.0)),
    OpCase(ops=("uniform_",), name="rand_generator", fn=lambda m, x: m.rand(3, 2, generator=_gen(m, 7)),
           shapes=NO_INPUT, check=in_range(0.0, 1.0)),
    OpCase(ops=("uniform_",), name="rand_no_size", fn=lambda m, x: m.rand(), shapes=NO_INPUT, check=FINITE),
    OpCase(ops=("uniform_",), name="rand_float_size", fn=lambda m, x: m.rand(2.0), shapes=NO_INPUT, check=FINITE),
    OpCase(ops=("uniform_",), name="rand_negative_size", fn=lambda m, x: m.rand(-1), shapes=NO_INPUT, check=FINITE),
    OpCase(ops=("uniform_",), name="rand_bad_generator", fn=lambda m, x: m.rand(2, generator=3), shapes=NO_INPUT,
           check=FINITE),
    OpCase(ops=("uniform_",), name="rand_int", fn=lambda m, x: m.rand(2, dtype=x.dtype), shapes=NO_INPUT,
           dtypes=("int64",), check=FINITE),
    OpCase(ops=("uniform_",), name="rand_like", fn=lambda m, x: m.rand_like(x), shapes=UNARY_SHAPES,
           dtypes=ALL_FLOATS, check=in_range(0.0, 1.0)),
    OpCase(ops=("uniform_",), name="rand_like_dtype", fn=lambda m, x: m.rand_like(x, dtype=m.float64),
           shapes=UNARY_SHAPES, dtypes=("int64",), check=in_range(0.0, 1.0)),
    OpCase(ops=("uniform_",), name="rand_like_int", fn=lambda m, x: m.rand_like(x), shapes=UNARY_SHAPES,
           dtypes=("int64",), check=FINITE),
    OpCase(ops=("normal_",), name="randn", fn=lambda m, x: [m.randn(2, 3), m.randn((4,)), m.randn(size=[5]),
                                                            m.randn(3, dtype=x.dtype, requires_grad=True)],
           shapes=NO_INPUT, dtypes=ALL_FLOATS, check=_near(0.0, 8.0)),
    OpCase(ops=("normal_",), name="randn_int", fn=lambda m, x: m.randn(2, dtype=m.int64), shapes=NO_INPUT,
           check=FINITE),
    OpCase(ops=("normal_",), name="randn_like", fn=lambda m, x: m.randn_like(x), shapes=UNARY_SHAPES,
           dtypes=ALL_FLOATS, check=_near(0.0, 8.0)),
    OpCase(ops=("random_",), name="randint",
           fn=lambda m, x: [m.randint(10, (5,)), m.randint(3, 10, (2, 3)), m.randint(high=5, size=(2,)),
                            m.randint(low=2, high=5, size=[4]), m.randint(2, high=5, size=(3,)),
                            m.randint(0, 5, m.Size([2])),
                            m.randint(0, 5, (3,), dtype=x.dtype)],
           shapes=NO_INPUT, dtypes=("int64", "int32", "int8", "uint8", "float32", "float64"),
           check=integers_in(0, 10)),
    OpCase(ops=("random_",), name="randint_bool", fn=lambda m, x: m.randint(0, 2, (6,), dtype=m.bool),
           shapes=NO_INPUT, check=ZERO_ONE),
    OpCase(ops=("random_",), name="randint_negative", fn=lambda m, x: m.randint(-7, -2, (50,), generator=_gen(m)),
           shapes=NO_INPUT, check=integers_in(-7, -2)),
    OpCase(ops=("random_",), name="randint_float_requires_grad",
           fn=lambda m, x: m.randint(0, 10, (3,), dtype=m.float32, requires_grad=True), shapes=NO_INPUT,
           check=integers_in(0, 10)),
    OpCase(ops=("random_",), name="randint_int_requires_grad",
           fn=lambda m, x: m.randint(0, 10, (3,), requires_grad=True), shapes=NO_INPUT, check=FINITE),
    OpCase(ops=("random_",), name="randint_low_ge_high", fn=lambda m, x: m.randint(5, 3, (2,)), shapes=NO_INPUT,
           check=FINITE),
    OpCase(ops=("random_",), name="randint_low_eq_high", fn=lambda m, x: m.randint(3, 3, (2,)), shapes=NO_INPUT,
           check=FINITE),
    OpCase(ops=("random_",), name="randint_size_varargs", fn=lambda m, x: m.randint(0, 10, 2, 3), shapes=NO_INPUT,
           check=FINITE),
    OpCase(ops=("random_",), name="randint_int_size", fn=lambda m, x: m.randint(10, 5), shapes=NO_INPUT,
           check=FINITE),
    OpCase(ops=("random_",), name="randint_float_high", fn=lambda m, x: m.randint(2.5, (3,)), shapes=NO_INPUT,
           check=FINITE),
    OpCase(ops=("random_",), name="randint_out_of_bounds", fn=lambda m, x: m.randint(0, 1000, (3,), dtype=m.int8),
           shapes=NO_INPUT, check=FINITE),
    OpCase(ops=("random_",), name="randint_negative_uint8", fn=lambda m, x: m.randint(-10, 10, (3,), dtype=m.uint8),
           shapes=NO_INPUT, check=FINITE),
    OpCase(ops=("random_",), name="randint_like",
           fn=lambda m, x: [m.randint_like(x, 10), m.randint_like(x, 3, 10), m.randint_like(x, high=10),
                            m.randint_like(x, low=3, high=10)],
           shapes=UNARY_SHAPES, dtypes=("float32", "int64", "int32"), check=integers_in(0, 10)),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_parity(case):
    assert run_case(case) > 0
