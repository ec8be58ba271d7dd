"""Parity rows for the elementwise ops (ops/defs/elementwise.cc, ternary.cc), and the float32
vector formulas of exp, expm1, log, log1p, tanh, sigmoid, sqrt and rsqrt on wide domains, special
values and every vector instruction set."""


import numpy as np
import parity
import pytest
import torch
from parity import OpCase, run_case

import oneflow as flow

UNARY_SHAPES = [((2, 3),), ((),), ((0, 4),), ((3, 1, 2),)]
BINARY_SHAPES = [((2, 3), (2, 3)), ((2, 3), (3,)), ((2, 1), (1, 3)), ((), (2, 3)), ((0, 3), (3,))]
FLOATS = ("float32", "float64")
NUMERIC = ("float32", "float64", "int64", "int32")


def unary(name, domain=(-2.0, 2.0), dtypes=FLOATS, grad=True, inplace=True, inplace_grad=True, **kw):
    cases = [OpCase(ops=(name,), fn=lambda m, x: getattr(m, name)(x), shapes=UNARY_SHAPES, dtypes=dtypes,
                    domain=domain, grad=grad, **kw)]
    if inplace:
        # (torch has no derivative for a few in-place variants: compare values only there)
        cases.append(OpCase(ops=(name + "_",), fn=lambda m, x: getattr(x.clone(), name + "_")(), shapes=UNARY_SHAPES,
                            dtypes=dtypes, domain=domain, grad=grad and inplace_grad, name=name + "_", **kw))
    return cases


POSITIVE = (0.1, 3.0)
UNIT = (-0.9, 0.9)

CASES = [
    *unary("abs", dtypes=NUMERIC),
    *unary("neg", dtypes=NUMERIC),
    *unary("exp"),
    *unary("expm1"),
    *unary("log", POSITIVE),
    *unary("log1p", POSITIVE),
    *unary("log2", POSITIVE),
    *unary("log10", POSITIVE),
    *unary("sqrt", POSITIVE),
    *unary("rsqrt", POSITIVE),
    *unary("reciprocal", POSITIVE),
    *unary("square", dtypes=NUMERIC),
    *unary("sin"),
    *unary("cos"),
    *unary("tan", UNIT),
    *unary("asin", UNIT),
    *unary("acos", UNIT),
    *unary("atan"),
    *unary("sinh"),
    *unary("cosh"),
    *unary("tanh"),
    *unary("asinh", inplace_grad=False),
    *unary("acosh", (1.1, 3.0), inplace_grad=False),
    *unary("atanh", UNIT, inplace_grad=False),
    *unary("sigmoid"),
    *unary("relu", dtypes=NUMERIC),
    *unary("erf"),
    *unary("erfc"),
    *unary("erfinv", UNIT),
    *unary("lgamma", POSITIVE),
    *unary("digamma", POSITIVE, grad=False, inplace=False),
    *unary("floor", dtypes=NUMERIC),
    *unary("ceil", dtypes=NUMERIC),
    *unary("round", dtypes=NUMERIC),
    *unary("trunc", dtypes=NUMERIC),
    *unary("sign", dtypes=NUMERIC),
    *unary("isnan", dtypes=NUMERIC, inplace=False),
    *unary("isinf", dtypes=NUMERIC, inplace=False),
    *unary("isfinite", dtypes=NUMERIC, inplace=False),
    *unary("logical_not", dtypes=("float32", "int64", "bool"), inplace=False),
    *unary("bitwise_not", dtypes=("int64", "int32", "bool")),
    OpCase(ops=("sign",), name="sign_nan", fn=lambda m, x: m.sign(x / x.abs().clamp(max=0)), shapes=UNARY_SHAPES,
           grad=False),
    # Float ops on integer inputs compute in the default float dtype.
    OpCase(ops=("exp",), name="exp_int", fn=lambda m, x: m.exp(x), shapes=UNARY_SHAPES, dtypes=("int64",)),
    OpCase(ops=("sqrt",), name="sqrt_half", fn=lambda m, x: m.sqrt(x), shapes=UNARY_SHAPES,
           dtypes=("float16", "bfloat16"), domain=POSITIVE),
]


def binary(name, dtypes=NUMERIC, domain=(-2.0, 2.0), grad=True, inplace=True, shapes=BINARY_SHAPES, **kw):
    cases = [OpCase(ops=(name,), fn=lambda m, a, b: getattr(m, name)(a, b), shapes=shapes, dtypes=dtypes,
                    domain=domain, grad=grad, **kw)]
    if inplace:
        full = [s for s in shapes if len(s[0]) >= len(s[1]) and all(x != 1 for x in s[0])]
        cases.append(OpCase(ops=(name + "_",), name=name + "_", fn=lambda m, a, b: getattr(a.clone(), name + "_")(b),
                            shapes=full, dtypes=dtypes, domain=domain, grad=grad, **kw))
    return cases


NONZERO_INT = (1, 6)

CASES += [
    *binary("add", dtypes=NUMERIC + ("bool",)),
    *binary("sub"),
    *binary("mul", dtypes=NUMERIC + ("bool",)),
    *binary("div", dtypes=FLOATS, domain=POSITIVE),
    OpCase(ops=("div",), name="div_int_true", fn=lambda m, a, b: m.div(a, b), shapes=BINARY_SHAPES,
           dtypes=("int64",), int_domain=NONZERO_INT),
    OpCase(ops=("div",), name="div_trunc", fn=lambda m, a, b: m.div(a, b, rounding_mode="trunc"),
           shapes=BINARY_SHAPES, dtypes=("float32", "int64"), int_domain=NONZERO_INT, domain=(0.5, 3.0), grad=False),
    OpCase(ops=("div",), name="div_floor", fn=lambda m, a, b: m.div(a, -b, rounding_mode="floor"),
           shapes=BINARY_SHAPES, dtypes=("float32", "int64"), int_domain=NONZERO_INT, domain=(0.5, 3.0), grad=False),
    *binary("floor_divide", dtypes=("float32", "int64"), domain=(0.5, 3.0), int_domain=NONZERO_INT, grad=False),
    *binary("fmod", dtypes=("float32", "float64", "int64"), domain=(0.5, 3.0), int_domain=NONZERO_INT),
    *binary("remainder", dtypes=("float32", "float64", "int64"), domain=(0.5, 3.0), int_domain=NONZERO_INT),
    *binary("pow", dtypes=FLOATS, domain=(0.5, 2.0)),
    OpCase(ops=("pow",), name="pow_int", fn=lambda m, a, b: m.pow(a, b.abs()), shapes=BINARY_SHAPES,
           dtypes=("int64",), int_domain=(0, 4)),
    *binary("atan2", dtypes=FLOATS),
    *binary("hypot", dtypes=FLOATS),
    # the squares overflow float32; hypot does not
    OpCase(ops=("hypot",), name="hypot_large", fn=lambda m, a, b: m.hypot(a, b), shapes=BINARY_SHAPES,
           dtypes=("float32",), domain=(1e20, 3e20), grad=False),
    *binary("maximum", inplace=False),
    *binary("minimum", inplace=False),
    *binary("logaddexp", dtypes=FLOATS, inplace=False),
    *binary("eq", inplace=False), *binary("ne", inplace=False), *binary("lt", inplace=False),
    *binary("le", inplace=False), *binary("gt", inplace=False), *binary("ge", inplace=False),
    *binary("logical_and", dtypes=("float32", "int64", "bool"), inplace=False),
    *binary("logical_or", dtypes=("float32", "int64", "bool"), inplace=False),
    *binary("logical_xor", dtypes=("float32", "int64", "bool"), inplace=False),
    *binary("bitwise_and", dtypes=("int64", "int32", "bool")),
    *binary("bitwise_or", dtypes=("int64", "int32", "bool")),
    *binary("bitwise_xor", dtypes=("int64", "int32", "bool")),
    # Python scalars on either side, type promotion with them, and operators.
    OpCase(ops=("add",), name="add_scalar", fn=lambda m, a: a + 2.5, shapes=UNARY_SHAPES, dtypes=NUMERIC),
    OpCase(ops=("add",), name="add_alpha", fn=lambda m, a, b: m.add(a, b, alpha=3), shapes=BINARY_SHAPES),
    OpCase(ops=("sub",), name="rsub_scalar", fn=lambda m, a: 1 - a, shapes=UNARY_SHAPES, dtypes=NUMERIC),
    OpCase(ops=("mul",), name="mul_half_scalar", fn=lambda m, a: a * 1.5, shapes=UNARY_SHAPES,
           dtypes=("float16", "bfloat16")),
    OpCase(ops=("div",), name="int_div_scalar", fn=lambda m, a: a / 2, shapes=UNARY_SHAPES, dtypes=("int64",)),
    OpCase(ops=("pow",), name="rpow", fn=lambda m, a: 2 ** a, shapes=UNARY_SHAPES),
    OpCase(ops=("where",), fn=lambda m, c, a, b: m.where(c, a, b),
           shapes=[((2, 3), (2, 3), (2, 3)), ((2, 3), (3,), ()), ((2, 1), (1, 3), (2, 3))],
           dtypes=NUMERIC, bool_inputs=(0,)),
]


# The float32 vector formulas: lengths that leave a vector tail, wide domains reaching overflow,
# underflow to subnormals and NaN (negative log/sqrt arguments), strided views written in place.
VEC_UNARY = ("exp", "expm1", "log", "log1p", "tanh", "sigmoid", "sqrt", "rsqrt")
VEC_SHAPES = [((1000,),), ((37, 41),), ((3, 5, 7),)]
VEC_DOMAINS = {
    "exp": [(-110.0, 95.0), (-1.0, 1.0)],
    "expm1": [(-110.0, 95.0), (-0.7, 0.7)],
    "log": [(-1.0, 1e30), (1e-3, 3.0)],
    "log1p": [(-1.5, 1e30), (-0.999, 0.01)],
    "tanh": [(-12.0, 12.0), (-0.4, 0.4)],
    "sigmoid": [(-110.0, 110.0)],
    "sqrt": [(-1.0, 1e30), (1e-3, 4.0)],
    "rsqrt": [(-1.0, 1e30), (1e-3, 4.0)],
}
CASES += [
    OpCase(ops=(name,), name=f"{name}_wide{k}", fn=lambda m, x, name=name: getattr(m, name)(x), shapes=VEC_SHAPES,
           dtypes=("float32",), domain=domain, grad=k == 1)
    for name in VEC_UNARY for k, domain in enumerate(VEC_DOMAINS[name])
]
CASES += [
    OpCase(ops=(name + "_",), name=f"{name}_strided_inplace",
           fn=lambda m, x, name=name: getattr(x.clone().transpose(0, 1), name + "_")(), shapes=[((5, 19),)],
           dtypes=("float32",), domain=(0.1, 3.0))
    for name in VEC_UNARY
]
CASES += [
    OpCase(ops=("exp_",), name="exp_sliced_inplace", fn=lambda m, x: x.clone()[:, ::2].exp_(), shapes=[((5, 38),)],
           dtypes=("float32",)),
    OpCase(ops=("tanh",), name="tanh_of_slice", fn=lambda m, x: m.tanh(x[:, 1::3]), shapes=[((5, 38),)],
           dtypes=("float32",)),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_parity(case):
    assert run_case(case) > 0


SPECIALS = [np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-45, -1e-45, 1e-40, -1e-40, 1e-30, -1e-30, 0.25, -0.25,
            0.5, -0.5, 1.0, -1.0, -0.999, 20.0, -20.0, 88.0, 88.5, 88.72, 88.7229, 89.0, -87.3, -88.5, -89.0, -103.9,
            -104.0, -110.0, 1e30, -1e30, 3.4e38, -3.4e38]


@pytest.mark.parametrize("name", VEC_UNARY)
def test_special_values(name):
    # Values at each formula's edges, and the sign of zero results (through 1 / y).
    x = np.array(SPECIALS, dtype=np.float32)
    ours = getattr(flow, name)(flow.tensor(x)).numpy()
    theirs = getattr(torch, name)(torch.tensor(x)).numpy()
    np.testing.assert_allclose(ours, theirs, rtol=2e-5, atol=1e-37, equal_nan=True, err_msg=name)
    # (torch's log1p(+-1e-45) is 0; ours is the input, as for every other subnormal)
    zero = (theirs == 0) & (ours == 0)
    np.testing.assert_array_equal(np.signbit(ours[zero]), np.signbit(theirs[zero]), err_msg=name)


_ISA_SCRIPT = """
import numpy as np, oneflow as flow, torch
rng = np.random.default_rng(7)
# Lengths around each vector width exercise the main loop and the tail.
for n in (1, 3, 4, 7, 8, 15, 16, 17, 33, 100003):
    a = (rng.standard_normal(n) * 30).astype(np.float32)
    for name in %r:
        y, z = getattr(flow, name)(flow.tensor(a)).numpy(), getattr(torch, name)(torch.tensor(a)).numpy()
        np.testing.assert_allclose(y, z, rtol=2e-5, atol=1e-37, equal_nan=True, err_msg=name)
print("ok")
""" % (VEC_UNARY,)


@pytest.mark.parametrize("isa", parity.ISAS)
def test_vector_loops_on_each_instruction_set(isa):
    parity.assert_script_passes_on_isa(_ISA_SCRIPT, isa)
