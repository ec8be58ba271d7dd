"""The Tensor attributes of oneflow/_tensor_breadth.py against torch: values, dtypes and gradients
(the parity harness), metadata, in-place twins, random fills (by their distribution) and the
exceptions bad input raises."""

import numpy as np
import pytest
import torch
from parity import OpCase, raises_like_torch, run_case

import oneflow as flow
from oneflow import _tensor_breadth

F = ("float32", "float64")
FI = ("float32", "float64", "int64")

CASES = [
    OpCase(ops=("divide",), fn=lambda m, a, b: a.divide(b), shapes=[((2, 3), (2, 3))], domain=(0.5, 2)),
    OpCase(
        ops=("divide_floor",),
        fn=lambda m, a, b: a.divide(b, rounding_mode="floor"),
        shapes=[((4,), (4,))],
        dtypes=("float64", "int64"),
        domain=(0.5, 3),
        int_domain=(1, 5),
        grad=False,
    ),  # fmt: skip
    OpCase(ops=("multiply",), fn=lambda m, a, b: a.multiply(b), shapes=[((2, 3), (3,))], dtypes=FI),
    OpCase(ops=("subtract",), fn=lambda m, a, b: a.subtract(b, alpha=2), shapes=[((2, 3), (2, 3))], dtypes=FI),
    OpCase(
        ops=("greater", "greater_equal", "less", "less_equal"),
        fn=lambda m, a, b: (a.greater(b), a.greater_equal(b), a.less(b), a.less_equal(b)),
        shapes=[((3, 4), (3, 4)), ((3, 4), ())],
        dtypes=FI,
        grad=False,
    ),
    OpCase(ops=("absolute", "fix", "sgn"), fn=lambda m, a: (a.absolute(), a.fix(), a.sgn()), shapes=[((2, 5),)]),
    OpCase(ops=("arctan2",), fn=lambda m, a, b: a.arctan2(b), shapes=[((2, 3), (2, 3))], domain=(0.2, 2)),
    OpCase(ops=("exp2",), fn=lambda m, a: a.exp2(), shapes=[((2, 3),)], dtypes=FI),
    OpCase(ops=("logaddexp2",), fn=lambda m, a, b: a.logaddexp2(b), shapes=[((2, 3), (2, 3)), ((3,), (2, 3))]),
    OpCase(ops=("angle",), fn=lambda m, a: a.angle(), shapes=[((3, 4),)], dtypes=FI),
    OpCase(ops=("dist",), fn=lambda m, a, b: (a.dist(b), a.dist(b, 3), a.dist(b, 1)), shapes=[((3, 4), (3, 4))]),
    OpCase(ops=("diagflat",), fn=lambda m, a: (a.diagflat(), a.diagflat(1), a.diagflat(-2)), shapes=[((2, 2),)]),
    OpCase(ops=("renorm",), fn=lambda m, a: (a.renorm(2, 0, 1.0), a.renorm(1, 1, 2.0)), shapes=[((3, 4),)]),
    OpCase(
        ops=("matrix_power",),
        fn=lambda m, a: (a.matrix_power(3), a.matrix_power(0), a.matrix_power(1)),
        shapes=[((3, 3),), ((2, 3, 3),)],
        domain=(-1, 1),
    ),  # fmt: skip
    OpCase(
        ops=("matrix_power_neg",),
        fn=lambda m, a: (a + 3 * m.eye(3, dtype=a.dtype)).matrix_power(-2),
        shapes=[((3, 3),)],
        domain=(-0.5, 0.5),
    ),  # fmt: skip
    OpCase(
        ops=("repeat_interleave",),
        fn=lambda m, a: (
            a.repeat_interleave(2),
            a.repeat_interleave(3, dim=1),
            a.repeat_interleave(m.tensor([1, 0, 2]), dim=0),
        ),  # fmt: skip
        shapes=[((3, 2),)],
        dtypes=FI,
    ),
    OpCase(
        ops=("oneflow.repeat_interleave",),
        fn=lambda m, a: (
            m.repeat_interleave(a, 2),
            m.repeat_interleave(a, m.tensor([2, 1, 0]), dim=0),
            m.repeat_interleave(a, m.tensor([3]), dim=-1, output_size=6),
            m.repeat_interleave(m.tensor([2, 0, 1])),
            m.repeat_interleave(m.tensor([1, 3], dtype=m.int32), output_size=4),
        ),  # fmt: skip
        shapes=[((3, 2),)],
        dtypes=FI,
    ),
    OpCase(ops=("mT", "mH", "H", "adjoint"), fn=lambda m, a: (a.mT, a.mH, a[0].H, a.adjoint()), shapes=[((2, 3, 4),)]),
    OpCase(ops=("movedim",), fn=lambda m, a: a.movedim(0, -1), shapes=[((2, 3, 4),)]),
    OpCase(ops=("broadcast_to",), fn=lambda m, a: a.broadcast_to((2, 3, 4)), shapes=[((3, 1),)]),
    OpCase(ops=("split_with_sizes",), fn=lambda m, a: a.split_with_sizes([1, 3], dim=1), shapes=[((2, 4),)]),
    OpCase(ops=("unsafe_chunk",), fn=lambda m, a: (*a.unsafe_chunk(2, 1), *a.unsafe_split(1, 0)), shapes=[((2, 4),)]),
    OpCase(ops=("put",), fn=lambda m, a, b: a.put(m.tensor([5, 0, -1]), b), shapes=[((2, 3), (3,))], dtypes=FI),
    OpCase(
        ops=("put_accumulate",),
        fn=lambda m, a, b: a.put(m.tensor([1, 1, 2]), b, accumulate=True),
        shapes=[((2, 3), (3,))],
        dtypes=FI,
    ),  # fmt: skip
    OpCase(ops=("vdot",), fn=lambda m, a, b: a.vdot(b), shapes=[((5,), (5,))], dtypes=FI),
    OpCase(
        ops=("bitwise_left_shift", "bitwise_right_shift"),
        fn=lambda m, a, b: (a.bitwise_left_shift(b.abs()), a.bitwise_right_shift(b.abs()), a.bitwise_left_shift(2)),
        shapes=[((3, 4), (3, 4)), ((3, 4), (4,))],
        dtypes=("int64", "int32", "uint8"),
        int_domain=(0, 7),
    ),
    OpCase(ops=("frexp",), fn=lambda m, a: tuple(a.frexp()), shapes=[((3, 4),)], grad=False),
    OpCase(ops=("ger",), fn=lambda m, a, b: a.ger(b), shapes=[((3,), (4,))]),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_parity(case):
    assert run_case(case) > 0


INPLACE_BINARY = ("eq_", "ne_", "lt_", "le_", "gt_", "ge_", "greater_", "greater_equal_", "less_", "less_equal_",
                  "logical_and_", "logical_or_", "logical_xor_", "arctan2_")  # fmt: skip


@pytest.mark.parametrize("name", INPLACE_BINARY)
def test_inplace_binary(name):
    a = np.random.default_rng(0).uniform(-2, 2, (3, 4)).astype(np.float32)
    b = np.random.default_rng(1).uniform(-2, 2, (3, 4)).astype(np.float32)
    ours, theirs = flow.tensor(a), torch.tensor(a)
    assert getattr(ours, name)(flow.tensor(b)) is ours
    getattr(theirs, name)(torch.tensor(b))
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6)


@pytest.mark.parametrize("name,args", [("arccos_", ()), ("arcsin_", ()), ("arctan_", ()), ("arcsinh_", ()),
                                       ("arctanh_", ()), ("logical_not_", ()), ("cumsum_", (1,)), ("cumprod_", (0,)),
                                       ("digamma_", ()), ("sgn_", ()), ("exp2_", ()), ("fix_", ()),
                                       ("absolute_", ()), ("renorm_", (2, 0, 0.5))])  # fmt: skip
def test_inplace_unary(name, args):
    a = np.random.default_rng(0).uniform(-0.9, 0.9, (3, 4)).astype(np.float32)
    ours, theirs = flow.tensor(a), torch.tensor(a)
    assert getattr(ours, name)(*args) is ours
    getattr(theirs, name)(*args)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-5, atol=1e-6)


def test_inplace_keeps_gradient():
    a = np.random.default_rng(0).uniform(0.2, 2, (3, 4))
    ours, theirs = flow.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    (ours * 1).cumsum_(1).multiply_(ours).sum().backward()
    (theirs * 1).cumsum_(1).multiply_(theirs).sum().backward()
    np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=1e-9)


def test_metadata():
    for dtype in ("float32", "float64", "int64", "uint8", "bool", "float16"):
        o, t = flow.zeros(2, 3, dtype=getattr(flow, dtype)), torch.zeros(2, 3, dtype=getattr(torch, dtype))
        assert (o.nbytes, o.itemsize, o.is_signed(), o.is_cpu) == (t.nbytes, t.itemsize, t.is_signed(), t.is_cpu)
        assert (o.is_complex(), o.is_conj(), o.is_neg(), o.is_inference()) == (False, False, False, False)
        assert o.type() == t.type().replace("torch.", "oneflow.")  # OneFlow's spelling of the legacy name
    x = flow.ones(2, 3)
    assert x.type(flow.int64).dtype == flow.int64
    assert x.type("torch.DoubleTensor").dtype == flow.float64
    assert x.type("oneflow.LongTensor").dtype == flow.int64
    assert x.type(flow.IntTensor).dtype == flow.int32
    assert x.type(flow.float32) is x
    assert x.is_same_size(flow.zeros(2, 3)) and not x.is_same_size(flow.zeros(3, 2))
    assert x.real is x and x.conj() is x and x.resolve_conj() is x and x.resolve_neg() is x
    assert x.transpose(0, 1).dim_order() == torch.ones(2, 3).transpose(0, 1).dim_order()
    assert flow.tensor([3.0]).is_nonzero() and not flow.tensor(0).is_nonzero()
    v = flow.tensor([1.0, float("inf"), -float("inf"), float("nan")])
    assert v.isposinf().tolist() == [False, True, False, False]
    assert v.isneginf().tolist() == [False, False, True, False]
    assert v.isreal().all().item()
    assert v.angle()[3].isnan().item()


def test_nonzero_static():
    a = torch.tensor([[0, 1], [2, 0], [3, 4]])
    for size in (1, 3, 6):
        ours = flow.tensor(a.numpy()).nonzero_static(size=size, fill_value=-7)
        assert ours.tolist() == a.nonzero_static(size=size, fill_value=-7).tolist()


@pytest.mark.parametrize("shape,wrap", [((3, 3), False), ((7, 3), True), ((7, 3), False), ((3, 7), True),
                                        ((3, 3, 3), False)])  # fmt: skip
def test_fill_diagonal(shape, wrap):
    ours, theirs = flow.zeros(*shape), torch.zeros(*shape)
    assert ours.fill_diagonal_(2.5, wrap) is ours
    np.testing.assert_array_equal(ours.numpy(), theirs.fill_diagonal_(2.5, wrap).numpy())


def test_put_apply_map_resize():
    o, t = flow.arange(6.0).reshape(2, 3), torch.arange(6.0).reshape(2, 3)
    o.put_(flow.tensor([0, 4]), flow.tensor([9.0, 8.0]))
    t.put_(torch.tensor([0, 4]), torch.tensor([9.0, 8.0]))
    assert o.tolist() == t.tolist()
    assert o.apply_(lambda v: v * 2 + 1).tolist() == t.apply_(lambda v: v * 2 + 1).tolist()
    assert (
        o.map_(flow.tensor([1.0, 2.0, 3.0]), lambda a, b: a - b).tolist()
        == t.map_(torch.tensor([1.0, 2.0, 3.0]), lambda a, b: a - b).tolist()
    )
    o.resize_(4)
    t.resize_(4)
    assert o.tolist() == t.tolist()
    o.resize_as_(flow.zeros(2, 2))
    assert tuple(o.shape) == (2, 2) and o.flatten().tolist() == t.tolist()
    s = flow.zeros(1, 3)
    assert s.squeeze_().shape == (3,) and s.unsqueeze_(1).shape == (3, 1) and s.t_().shape == (1, 3)
    n = flow.ones(2, 3).new(4, 5)
    assert tuple(n.shape) == (4, 5) and n.dtype == flow.float32
    assert flow.ones(2, dtype=flow.int64).new([1, 2]).dtype == flow.int64
    e = flow.ones(2).new_empty_strided((2, 3), (1, 2))
    assert tuple(e.shape) == (2, 3) and e.stride() == (1, 2)


def test_random_fills():
    n = 200_000
    flow.manual_seed(0)
    x = flow.empty(n, dtype=flow.float64)
    assert abs(x.exponential_(2.0).mean().item() - 0.5) < 0.01 and x.min().item() >= 0
    assert abs(x.log_normal_(0.0, 0.25).log().std().item() - 0.25) < 0.01
    assert abs(x.cauchy_(1.0, 2.0).median().item() - 1.0) < 0.05
    g = x.geometric_(0.25)
    assert abs(g.mean().item() - 4.0) < 0.05 and g.min().item() == 1
    assert flow.empty(3, dtype=flow.int64).geometric_(0.5).dtype == flow.int64


BAD_INPUT = [
    lambda m: m.ones(3).mT,
    lambda m: m.ones(2, 2, 2).H,
    lambda m: m.ones(3).mH,
    lambda m: m.ones(3).type("numpy.float"),
    lambda m: m.ones(2).is_nonzero(),
    lambda m: m.ones(0).is_nonzero(),
    lambda m: m.ones(3).fill_diagonal_(1),
    lambda m: m.ones(2, 3, 3).fill_diagonal_(1),
    lambda m: m.ones(3).exponential_(-1.0),
    lambda m: m.ones(3).geometric_(1.5),
    lambda m: m.ones(3, dtype=m.int64).exponential_(),
    lambda m: m.ones(3).put_(m.tensor([0, 1]), m.tensor([1.0])),
    lambda m: m.ones(3).put_(m.tensor([5]), m.tensor([1.0])),
    lambda m: m.ones(3, requires_grad=True).resize_(4),
    lambda m: m.ones(3, 4).renorm(-1, 0, 1.0),
    lambda m: m.ones(3, 4).split_with_sizes([1, 2], 1),
    lambda m: m.ones(2, 3).matrix_power(2),
    lambda m: m.ones(3).repeat_interleave(m.tensor([1, 2])),
    lambda m: m.repeat_interleave(m.ones(3), m.tensor([1, 2])),
    lambda m: m.repeat_interleave(m.tensor([[1, 2]])),
    lambda m: m.repeat_interleave(m.tensor([1, -2])),
    lambda m: m.repeat_interleave([1, 2]),
    lambda m: m.ones(3).imag,
    lambda m: m.ones(3).dist(3),
    lambda m: m.ones(3).vdot(m.ones(3, 1)),
    lambda m: m.ones(3).vdot(m.ones(3, dtype=m.float64)),
    lambda m: m.ones(3).bitwise_left_shift(1),
    lambda m: m.ones(3, dtype=m.int64).frexp(),
]


@pytest.mark.parametrize("index", range(len(BAD_INPUT)))
def test_bad_input_like_torch(index):
    raises_like_torch(BAD_INPUT[index])


def test_installed_names_torch_has():
    names = _tensor_breadth.install.__globals__["METHODS"]
    for name in (*names, *_tensor_breadth.ALIASES, *_tensor_breadth.INPLACE):
        assert hasattr(torch.Tensor, name), name
        assert hasattr(flow.Tensor, name), name


if __name__ == "__main__":
    raise SystemExit(pytest.main([__file__, "-q"]))
