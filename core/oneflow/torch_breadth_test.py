"""PyTorch's everyday callables built in oneflow/_torch_breadth*.py against torch: values, dtypes and
gradients on random inputs (the parity harness), Tensor methods and in-place twins, and the
exceptions bad input raises."""

import numpy as np
import pytest
import torch
from parity import OpCase, raises_like_torch, run_case

import oneflow as flow
from oneflow import _torch_breadth_methods

F = ("float32", "float64")
FI = ("float32", "float64", "int64")

CASES = [
    # elementwise
    OpCase(
        ops=("xlogy",),
        fn=lambda m, a, b: m.xlogy(a, b),
        shapes=[((2, 3), (2, 3)), ((2, 3), (3,))],
        dtypes=FI,
        domain=(0.1, 2.0),
        int_domain=(0, 4),
    ),
    OpCase(ops=("xlogy_scalar",), fn=lambda m, a: m.xlogy(a, 3.0), shapes=[((4,),)], dtypes=FI),
    OpCase(ops=("sinc",), fn=lambda m, a: m.sinc(a), shapes=[((2, 5),), ((),)], dtypes=FI),
    OpCase(ops=("fmax",), fn=lambda m, a, b: m.fmax(a, b), shapes=[((2, 3), (2, 3)), ((2, 3), (1, 3))], dtypes=FI),
    OpCase(ops=("fmin",), fn=lambda m, a, b: m.fmin(a, b), shapes=[((2, 3), (2, 3)), ((3,), (2, 3))], dtypes=FI),
    OpCase(ops=("copysign",), fn=lambda m, a, b: m.copysign(a, b), shapes=[((2, 3), (2, 3)), ((2, 3), ())], dtypes=FI),
    OpCase(
        ops=("gcd", "lcm"),
        fn=lambda m, a, b: (m.gcd(a, b), m.lcm(a, b)),
        shapes=[((3, 4), (3, 4)), ((5,), ())],
        dtypes=("int64", "int32"),
        int_domain=(-20, 21),
    ),
    OpCase(ops=("frac",), fn=lambda m, a: m.frac(a), shapes=[((2, 3),)], dtypes=F, domain=(-5, 5)),
    OpCase(ops=("logit",), fn=lambda m, a: m.logit(a), shapes=[((2, 3),)], dtypes=F, domain=(0.05, 0.95)),
    OpCase(ops=("logit_eps",), fn=lambda m, a: m.logit(a, eps=0.2), shapes=[((3, 3),)], dtypes=F, domain=(0.0, 1.0)),
    OpCase(
        ops=("heaviside",),
        fn=lambda m, a, b: m.heaviside(a.round(), b),
        shapes=[((2, 3), (2, 3))],
        dtypes=FI,
        grad=False,
    ),
    OpCase(ops=("nextafter",), fn=lambda m, a, b: m.nextafter(a, b), shapes=[((2, 3), (2, 3))], dtypes=F, grad=False),
    OpCase(ops=("ldexp",), fn=lambda m, a, b: m.ldexp(a, b), shapes=[((2, 3), (2, 3))], dtypes=FI, int_domain=(-3, 4)),
    OpCase(
        ops=("float_power",),
        fn=lambda m, a, b: m.float_power(a, b),
        shapes=[((2, 3), (2, 3))],
        dtypes=FI,
        domain=(0.5, 2.0),
        int_domain=(1, 4),
    ),
    OpCase(ops=("float_power_scalar",), fn=lambda m, a: m.float_power(a, 2), shapes=[((4,),)], dtypes=FI),
    OpCase(
        ops=("true_divide", "not_equal"),
        fn=lambda m, a, b: (m.true_divide(a, b), m.not_equal(a, b)),
        shapes=[((2, 3), (2, 3))],
        dtypes=FI,
        domain=(0.5, 2.0),
        int_domain=(1, 3),
    ),
    OpCase(ops=("rad2deg", "deg2rad"), fn=lambda m, a: (m.rad2deg(a), m.deg2rad(a)), shapes=[((2, 3),)], dtypes=FI),
    OpCase(ops=("signbit",), fn=lambda m, a: m.signbit(a), shapes=[((2, 3),)], dtypes=FI, grad=False),
    OpCase(ops=("positive",), fn=lambda m, a: m.positive(a) * 1, shapes=[((2, 3),)], dtypes=FI),
    OpCase(
        ops=("isclose",), fn=lambda m, a, b: m.isclose(a, a + b * 1e-6), shapes=[((3, 4), (3, 4))], dtypes=F, grad=False
    ),
    # reductions and scans
    OpCase(
        ops=("logcumsumexp",), fn=lambda m, a: m.logcumsumexp(a, 1), shapes=[((3, 7),), ((2, 1),), ((3, 0),)], dtypes=F
    ),
    OpCase(ops=("logcumsumexp_0d",), fn=lambda m, a: m.logcumsumexp(a, 0), shapes=[((),)], dtypes=F),
    OpCase(
        ops=("nanmean",), fn=lambda m, a: (m.nanmean(a), m.nanmean(a, 1, keepdim=True)), shapes=[((3, 4),)], dtypes=F
    ),
    OpCase(
        ops=("count_nonzero",),
        fn=lambda m, a: (m.count_nonzero(a), m.count_nonzero(a, dim=(0, 1)), m.count_nonzero(a, 1)),
        shapes=[((3, 4),)],
        dtypes=FI,
        int_domain=(-1, 2),
        grad=False,
    ),
    OpCase(
        ops=("aminmax",),
        fn=lambda m, a: (*m.aminmax(a), *m.aminmax(a, dim=1, keepdim=True)),
        shapes=[((3, 4),)],
        dtypes=FI,
    ),
    OpCase(ops=("ravel",), fn=lambda m, a: m.ravel(a), shapes=[((3, 4),), ((),)], dtypes=FI),
    # shapes
    OpCase(
        ops=("atleast",),
        fn=lambda m, a: (m.atleast_1d(a), m.atleast_2d(a), m.atleast_3d(a)),
        shapes=[((),), ((3,),), ((2, 3),), ((2, 3, 4),)],
        dtypes=F,
    ),
    OpCase(
        ops=("stacks",),
        fn=lambda m, a, b: (
            m.hstack([a, b]),
            m.vstack((a, b)),
            m.dstack([a, b]),
            m.column_stack([a, b]),
            m.row_stack([a, b]),
        ),
        shapes=[((3,), (3,)), ((2, 3), (2, 3)), ((), ())],
        dtypes=F,
    ),
    OpCase(ops=("dsplit",), fn=lambda m, a: (*m.dsplit(a, 2), *m.dsplit(a, [1, 3])), shapes=[((2, 3, 4),)], dtypes=F),
    OpCase(ops=("flipud", "fliplr"), fn=lambda m, a: (m.flipud(a), m.fliplr(a)), shapes=[((2, 3, 4),)], dtypes=FI),
    OpCase(
        ops=("rot90",),
        fn=lambda m, a: (m.rot90(a), m.rot90(a, 2), m.rot90(a, -1, [2, 0]), m.rot90(a, 4)),
        shapes=[((2, 3, 4),)],
        dtypes=FI,
    ),
    OpCase(ops=("moveaxis",), fn=lambda m, a: m.moveaxis(a, 0, -1), shapes=[((2, 3, 4),)], dtypes=F),
    OpCase(ops=("broadcast_tensors",), fn=lambda m, a, b: m.broadcast_tensors(a, b), shapes=[((2, 1), (3,))], dtypes=F),
    # matrices
    OpCase(ops=("kron",), fn=lambda m, a, b: m.kron(a, b), shapes=[((2, 3), (3, 2)), ((2, 2, 1), (3,))], dtypes=FI),
    # torch's kron refuses this pair when non-contiguous (a view it cannot make).
    OpCase(ops=("kron_1d",), fn=lambda m, a, b: m.kron(a, b), shapes=[((2,), (2, 3))], dtypes=FI, noncontiguous=False),
    OpCase(ops=("block_diag",), fn=lambda m, a, b, c: m.block_diag(a, b, c), shapes=[((2, 3), (3,), ())], dtypes=FI),
    OpCase(
        ops=("inner",),
        fn=lambda m, a, b: m.inner(a, b),
        shapes=[((2, 3), (4, 3)), ((3,), (3,)), ((), (2, 3))],
        dtypes=FI,
    ),
    OpCase(
        ops=("addmv",),
        fn=lambda m, i, a, v: (m.addmv(i, a, v), m.addmv(i, a, v, beta=0.5, alpha=2)),
        shapes=[((3,), (3, 4), (4,)), ((), (3, 4), (4,))],
        dtypes=F,
    ),
    OpCase(
        ops=("addr",),
        fn=lambda m, i, a, b: m.addr(i, a, b, beta=2, alpha=0.5),
        shapes=[((3, 4), (3,), (4,)), ((4,), (3,), (4,))],
        dtypes=F,
    ),
    OpCase(
        ops=("addbmm",),
        fn=lambda m, i, a, b: (m.addbmm(i, a, b), m.addbmm(i, a, b, beta=0, alpha=3)),
        shapes=[((3, 5), (2, 3, 4), (2, 4, 5))],
        dtypes=F,
    ),
    OpCase(
        ops=("cdist",),
        fn=lambda m, a, b: (m.cdist(a, b), m.cdist(a, b, p=1), m.cdist(a, b, p=3), m.cdist(a, b, p=float("inf"))),
        shapes=[((4, 3), (5, 3)), ((2, 4, 3), (2, 6, 3))],
        dtypes=F,
        rtol=1e-4,
        atol=1e-5,
    ),
    OpCase(
        ops=("cdist_mm",),
        fn=lambda m, a, b: m.cdist(a, b),
        shapes=[((30, 3), (27, 3))],
        dtypes=("float64",),
        noncontiguous=False,
    ),
    OpCase(
        ops=("cov", "corrcoef"),
        fn=lambda m, a: (m.cov(a), m.cov(a, correction=0), m.corrcoef(a)),
        shapes=[((3, 6),), ((6,),)],
        dtypes=F,
        rtol=1e-4,
        atol=1e-5,
    ),
    OpCase(
        ops=("cov_weights",),
        fn=lambda m, a, w: m.cov(a, aweights=w, fweights=m.tensor([1, 2, 1, 3, 1])),
        shapes=[((2, 5), (5,))],
        dtypes=F,
        domain=(0.5, 2.0),
        rtol=1e-4,
        atol=1e-5,
    ),
    OpCase(
        ops=("trapezoid",),
        fn=lambda m, y, x: (m.trapezoid(y), m.trapezoid(y, dx=0.5, dim=0), m.trapezoid(y, x), m.trapz(y, x)),
        shapes=[((3, 5), (5,))],
        dtypes=F,
        no_grad_inputs=(1,),
    ),
    OpCase(
        ops=("vander",),
        fn=lambda m, x: (m.vander(x), m.vander(x, 3, increasing=True)),
        shapes=[((4,),)],
        dtypes=FI,
        int_domain=(-3, 4),
        grad=False,
    ),  # torch's vander backward fails (in-place cumprod)
    OpCase(
        ops=("combinations",),
        fn=lambda m, x: (m.combinations(x), m.combinations(x, 3, with_replacement=True)),
        shapes=[((4,),)],
        dtypes=FI,
    ),
    # scatters
    OpCase(
        ops=("select_scatter", "slice_scatter"),
        fn=lambda m, a, s, t: (m.select_scatter(a, s, 1, -1), m.slice_scatter(a, t, 1, 0, 4, 2)),
        shapes=[((3, 4), (3,), (3, 2))],
        dtypes=F,
    ),
    OpCase(
        ops=("diagonal_scatter",),
        fn=lambda m, a, s, t: (m.diagonal_scatter(a, s), m.diagonal_scatter(a, t, 1), m.diagonal_scatter(a, s, -1)),
        shapes=[((4, 3), (3,), (2,))],
        dtypes=F,
    ),
    OpCase(
        ops=("diagonal_scatter_3d",),
        fn=lambda m, a, s: m.diagonal_scatter(a, s, 0, 0, 2),
        shapes=[((3, 2, 4), (2, 3))],
        dtypes=F,
    ),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_parity(case):
    assert run_case(case) > 0


@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce(reduce, include_self):
    index = np.array([[0, 1, 0, 2], [2, 2, 1, 0]])

    def fn(m, a, s):
        idx = m.tensor(index)
        return m.scatter_reduce(a, 1, idx, s, reduce, include_self=include_self), a.scatter_reduce(
            0, idx[:1].expand(2, 4) % 2, s, reduce, include_self=include_self
        )

    case = OpCase(
        ops=("scatter_reduce",),
        fn=fn,
        shapes=[((2, 4), (2, 4)), ((3, 5), (2, 4))],
        dtypes=("float32", "float64", "int64"),
        domain=(0.5, 2.0),
        noncontiguous=False,
    )
    assert run_case(case) > 0


@pytest.mark.parametrize("reduce", ["prod", "amax", "amin"])
def test_scatter_reduce_many_collisions(reduce):
    rng = np.random.default_rng(1)
    index = rng.integers(0, 7, size=(3, 40))

    def fn(m, a, s):
        return m.scatter_reduce(a, 1, m.tensor(index), s, reduce), m.scatter_reduce(
            a, 1, m.tensor(index), s, reduce, include_self=False
        )

    case = OpCase(
        ops=("scatter_reduce",),
        fn=fn,
        shapes=[((4, 7), (3, 40))],
        dtypes=("float64", "int32"),
        domain=(0.9, 1.1),
        noncontiguous=False,
    )
    assert run_case(case) > 0


@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_with_an_expanded_index(reduce, include_self):
    """An index expanded along the trailing dims (a graph network's aggregation: one target row
    per source row) goes through the kernels' row-at-a-time path."""
    rows = np.array([3, 0, 3, 1, 3, 0, 2])

    def fn(m, a, s, b, t):
        idx = m.tensor(rows)[:, None].expand(7, 5)
        idx3 = m.tensor(rows[:4]).reshape(1, 4, 1, 1).expand(2, 4, 3, 2)
        return (
            a.scatter_reduce(0, idx, s, reduce, include_self=include_self),
            b.scatter_reduce(1, idx3, t, reduce, include_self=include_self),
            a.scatter_add(0, idx, s),
            a.scatter(0, idx, s),
            a.scatter(0, idx, 2),
            b.scatter_add(1, idx3, t),
        )

    case = OpCase(
        ops=("scatter_reduce",),
        fn=fn,
        shapes=[((4, 5), (7, 5), (2, 5, 3, 2), (2, 4, 3, 2))],
        dtypes=("float64", "int64"),
        domain=(0.5, 2.0),
        noncontiguous=False,
    )
    assert run_case(case) > 0


@pytest.mark.parametrize("reduce", ["amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce_ties_share_the_gradient(reduce, include_self):
    """Equal extremes sent to one place split its gradient evenly, as in PyTorch, which counts an
    equal input element even without include_self (and then drops its share); a NaN wins."""

    def run(m):
        a = m.tensor([[1.0, 3.0, 2.0, 5.0]], dtype=m.float64, requires_grad=True)
        s = m.tensor([[3.0, 3.0, 0.5, 2.0, 2.0, 1.0]], dtype=m.float64, requires_grad=True)
        index = m.tensor([[1, 1, 0, 2, 2, 0]])
        out = a.scatter_reduce(1, index, s, reduce, include_self=include_self)
        (out * m.tensor([[1.0, 2.0, 3.0, 4.0]], dtype=m.float64)).sum().backward()
        nan = m.tensor([[1.0, float("nan"), 2.0]]).scatter_reduce(0, m.tensor([[0, 0, 0]]), m.ones(1, 3), reduce)
        return out.detach().numpy(), a.grad.numpy(), s.grad.numpy(), nan.numpy()

    for ours, theirs in zip(run(flow), run(torch)):
        np.testing.assert_array_equal(ours, theirs)


@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
def test_index_reduce(reduce):
    def fn(m, a, s):
        idx = m.tensor([0, 2, 0])
        return m.index_reduce(a, 1, idx, s, reduce), a.index_reduce(1, idx[:2], s[:, :2], reduce, include_self=False)

    case = OpCase(
        ops=("index_reduce",),
        fn=fn,
        shapes=[((3, 4), (3, 3))],
        dtypes=("float32", "float64"),
        domain=(0.5, 2.0),
        noncontiguous=False,
    )
    assert run_case(case) > 0


def test_promotion():
    for a in (flow.bool, flow.uint8, flow.int8, flow.int32, flow.int64, flow.float16, flow.bfloat16, flow.float32):
        for b in (flow.bool, flow.uint8, flow.int8, flow.int16, flow.float16, flow.bfloat16, flow.float64):
            ta, tb = getattr(torch, str(a).split(".")[-1]), getattr(torch, str(b).split(".")[-1])
            assert str(flow.promote_types(a, b)) == str(torch.promote_types(ta, tb)).replace("torch", "oneflow")
            assert flow.can_cast(a, b) == torch.can_cast(ta, tb)
    operands = [
        lambda m: m.tensor([1, 2]),
        lambda m: m.tensor(1.5),
        lambda m: m.tensor([1.0], dtype=m.float64),
        lambda m: m.tensor(3, dtype=m.int8),
        lambda m: m.tensor([True]),
        lambda m: 2,
        lambda m: 2.5,
        lambda m: True,
        lambda m: m.tensor([1], dtype=m.uint8),
    ]
    for x in operands:
        for y in operands:
            if isinstance(x(torch), torch.Tensor) or isinstance(y(torch), torch.Tensor):
                ours, theirs = flow.result_type(x(flow), y(flow)), torch.result_type(x(torch), y(torch))
                assert str(ours).split(".")[-1] == str(theirs).split(".")[-1], (x(torch), y(torch))
    raises_like_torch(lambda m: m.promote_types(m.float32, "int"))


def test_allclose_equal_and_broadcast_shapes():
    a = flow.tensor([1.0, float("nan"), float("inf")])
    assert flow.allclose(a, a) is False and flow.allclose(a, a, equal_nan=True) is True
    assert flow.allclose(a + 1e-9, a, equal_nan=True) and a.allclose(a, equal_nan=True)
    assert flow.tensor([1, 2]).equal(flow.tensor([1, 2]))
    assert flow.broadcast_shapes((2, 1), (3,), 1) == torch.broadcast_shapes((2, 1), (3,), 1)
    assert isinstance(flow.broadcast_shapes((2, 1)), flow.Size)
    raises_like_torch(lambda m: m.broadcast_shapes((2, 3), (4,)))
    raises_like_torch(lambda m: m.broadcast_tensors(m.zeros(2, 3), m.zeros(4)))


def test_indices_and_unravel():
    for args in [(3, 3), (4, 3, 1), (3, 5, -1), (0, 2), (2, 4, 10)]:
        for name in ("tril_indices", "triu_indices"):
            np.testing.assert_array_equal(getattr(flow, name)(*args).numpy(), getattr(torch, name)(*args).numpy())
    assert flow.tril_indices(3, 3, dtype=flow.int32).dtype == flow.int32
    for idx in ([0, 5, 7, 23], [[1, 2], [3, 4]], 17):
        ours = flow.unravel_index(flow.tensor(idx), (2, 3, 4))
        theirs = torch.unravel_index(torch.tensor(idx), (2, 3, 4))
        assert len(ours) == len(theirs)
        for o, t in zip(ours, theirs):
            np.testing.assert_array_equal(o.numpy(), t.numpy())
    raises_like_torch(lambda m: m.unravel_index(m.tensor([1.0]), (2, 3)))


@pytest.mark.parametrize("kwargs", [{}, {"range": (-1.0, 1.0)}, {"density": True}, {"weight": True}])
def test_histogram(kwargs):
    rng = np.random.default_rng(0)
    a = rng.normal(size=(50,))
    w = rng.uniform(size=(50,))
    for bins in (7, "tensor"):
        args = {k: v for k, v in kwargs.items() if k != "weight" and (k != "range" or bins != "tensor")}
        ours_bins = flow.tensor([-2.0, -0.5, 0.0, 1.0, 3.0], dtype=flow.float64) if bins == "tensor" else bins
        theirs_bins = torch.tensor([-2.0, -0.5, 0.0, 1.0, 3.0], dtype=torch.float64) if bins == "tensor" else bins
        if "weight" in kwargs:
            args_o, args_t = dict(args, weight=flow.tensor(w)), dict(args, weight=torch.tensor(w))
        else:
            args_o, args_t = args, args
        h, e = flow.histogram(flow.tensor(a), ours_bins, **args_o)
        th, te = torch.histogram(torch.tensor(a), theirs_bins, **args_t)
        np.testing.assert_allclose(h.numpy(), th.numpy(), rtol=1e-12)
        np.testing.assert_allclose(e.numpy(), te.numpy(), rtol=1e-12)
        h2, e2 = flow.tensor(a).histogram(ours_bins, **args_o)
        np.testing.assert_allclose(h2.numpy(), th.numpy(), rtol=1e-12)


INPLACE_CASES = [
    ("xlogy_", lambda m, x: x.abs().xlogy_(x.abs() + 1)),
    ("sinc_", lambda m, x: m.sinc_(x)),
    ("copysign_", lambda m, x: x.copysign_(-1.0)),
    ("frac_", lambda m, x: x.frac_()),
    ("logit_", lambda m, x: x.sigmoid().logit_()),
    ("ldexp_", lambda m, x: m.ldexp_(x, m.tensor([1.0, 2.0, 3.0]))),
    ("rad2deg_", lambda m, x: m.rad2deg_(x)),
    ("deg2rad_", lambda m, x: x.deg2rad_()),
    ("true_divide_", lambda m, x: x.true_divide_(2)),
    ("not_equal_", lambda m, x: x.not_equal_(x.round())),
    ("addmv_", lambda m, x: x.addmv_(m.ones(3, 2), m.ones(2), beta=2)),
    ("addr_", lambda m, x: x.reshape(3, 1).expand(3, 2).clone().addr_(m.ones(3), m.ones(2))),
    ("addbmm_", lambda m, x: x.reshape(3, 1).expand(3, 2).clone().addbmm_(m.ones(2, 3, 4), m.ones(2, 4, 2))),
    ("heaviside_", lambda m, x: x.heaviside_(m.tensor([0.5]))),
    ("nextafter_", lambda m, x: x.nextafter_(m.zeros(3))),
    ("float_power_", lambda m, x: x.double().float_power_(2)),
    ("scatter_reduce_", lambda m, x: x.scatter_reduce_(0, m.tensor([0, 0, 1]), x * 2, "amax")),
    ("index_reduce_", lambda m, x: x.index_reduce_(0, m.tensor([2, 0]), m.ones(2), "prod")),
]


@pytest.mark.parametrize(("name", "fn"), INPLACE_CASES, ids=[n for n, _ in INPLACE_CASES])
def test_inplace(name, fn):
    a = np.array([-1.25, 0.5, 2.0])
    o, t = flow.tensor(a, dtype=flow.float32), torch.tensor(a, dtype=torch.float32)
    ours, theirs = fn(flow, o), fn(torch, t)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6)
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]


def test_inplace_gradient_and_int():
    a = np.array([0.5, 1.5, 2.0])
    x, xt = flow.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    y, yt = x * 2, xt * 2
    y.xlogy_(x + 1)
    yt.xlogy_(xt + 1)
    y.sum().backward()
    yt.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), xt.grad.numpy(), rtol=1e-12)
    i, it = flow.tensor([12, 18]), torch.tensor([12, 18])
    np.testing.assert_array_equal(i.gcd_(flow.tensor([8, 4])).numpy(), it.gcd_(torch.tensor([8, 4])).numpy())
    np.testing.assert_array_equal(flow.lcm_(i, flow.tensor(3)).numpy(), torch.lcm_(it, torch.tensor(3)).numpy())
    raises_like_torch(lambda m: m.tensor([1, 2]).xlogy_(m.tensor([1.0, 2.0])))
    raises_like_torch(lambda m: m.zeros(3).addmv_(m.ones(4, 2), m.ones(2)))
    raises_like_torch(lambda m: m.zeros(2).float_power_(2))
    raises_like_torch(lambda m: m.zeros(3).copysign_(m.zeros(2, 3)))


BAD_INPUT = [
    lambda m: m.isclose(m.zeros(2), m.zeros(2, dtype=m.int64)),
    lambda m: m.isclose(m.zeros(2), m.zeros(2), rtol=-1),
    lambda m: m.allclose([1.0], m.zeros(1)),
    lambda m: m.xlogy("a", m.zeros(2)),
    lambda m: m.sinc([1.0]),
    lambda m: m.gcd(m.zeros(2), m.zeros(2)),
    lambda m: m.lcm(m.tensor([1]), m.tensor([1.5])),
    lambda m: m.frac(m.tensor([1, 2])),
    lambda m: m.logcumsumexp(m.tensor([1, 2]), 0),
    lambda m: m.logcumsumexp(m.zeros(2, 3), 2),
    lambda m: m.heaviside(m.zeros(2), m.zeros(2, dtype=m.float64)),
    lambda m: m.nextafter(m.tensor([1, 2]), m.tensor([1, 2])),
    lambda m: m.positive(m.tensor([True])),
    lambda m: m.nanmean(m.tensor([1, 2])),
    lambda m: m.aminmax(m.zeros(0)),
    lambda m: m.aminmax(m.zeros(2, 3), dim=2),
    lambda m: m.count_nonzero(m.zeros(2, 3), dim=3),
    lambda m: m.hstack([]),
    lambda m: m.vstack(m.zeros(2)),
    lambda m: m.hstack([m.zeros(2), 1]),
    lambda m: m.dsplit(m.zeros(2, 3), 2),
    lambda m: m.dsplit(m.zeros(2, 3, 4), 3),
    lambda m: m.flipud(m.tensor(1.0)),
    lambda m: m.fliplr(m.zeros(3)),
    lambda m: m.rot90(m.zeros(2, 3), 1, [0, 1, 2]),
    lambda m: m.rot90(m.zeros(3), 1),
    lambda m: m.rot90(m.zeros(2, 3), 1, [1, 1]),
    lambda m: m.kron([1.0], m.zeros(2)),
    lambda m: m.block_diag(m.zeros(2, 2, 2)),
    lambda m: m.inner(m.zeros(2, 3), m.zeros(4)),
    lambda m: m.addr(m.zeros(2, 3), m.zeros(2, 1), m.zeros(3)),
    lambda m: m.addbmm(m.zeros(2, 3), m.zeros(2, 3), m.zeros(3, 3)),
    lambda m: m.addmv(m.zeros(2), m.zeros(2, 3), m.zeros(4)),
    lambda m: m.cdist(m.zeros(3), m.zeros(3, 3)),
    lambda m: m.cdist(m.zeros(2, 3), m.zeros(2, 4)),
    lambda m: m.cdist(m.zeros(2, 3, dtype=m.int64), m.zeros(2, 3, dtype=m.int64)),
    lambda m: m.cdist(m.zeros(2, 3), m.zeros(2, 3), p=-1),
    lambda m: m.cov(m.zeros(2, 2, 2)),
    lambda m: m.corrcoef(m.zeros(2, 2, 2)),
    lambda m: m.cov(m.zeros(2, 3), fweights=m.ones(3)),
    lambda m: m.histogram(m.tensor([1, 2]), 3),
    lambda m: m.histogram(m.zeros(3), 0),
    lambda m: m.histogram(m.zeros(3), 3, range=(1.0, 0.0)),
    lambda m: m.combinations(m.zeros(2, 2)),
    lambda m: m.vander(m.zeros(2, 2)),
    lambda m: m.scatter_reduce(m.zeros(3), 0, m.tensor([0]), m.zeros(1), "median"),
    lambda m: m.scatter_reduce(m.zeros(3), 0, m.tensor([0.0]), m.zeros(1), "sum"),
    lambda m: m.scatter_reduce(m.zeros(3), 0, m.tensor([0]), m.zeros(1, dtype=m.float64), "sum"),
    lambda m: m.index_reduce(m.zeros(3), 0, m.tensor([0]), m.zeros(1), "sum"),
    lambda m: m.scatter_reduce(m.zeros(3), 0, m.tensor([3]), m.zeros(1), "amax"),
    lambda m: m.scatter_reduce(m.zeros(3), 0, m.tensor([-1]), m.zeros(1), "prod"),
    lambda m: m.scatter_reduce(m.zeros(2, 2), 0, m.tensor([[0, 1, 0]]), m.zeros(2, 3), "amin"),
    lambda m: m.index_reduce(m.zeros(3), 0, m.tensor([0, 1]), m.zeros(1), "prod"),
    lambda m: m.select_scatter(m.zeros(2, 3), m.zeros(2), 0, 0),
    lambda m: m.select_scatter(m.zeros(2, 3), m.zeros(3), 0, 5),
    lambda m: m.slice_scatter(m.zeros(2, 3), m.zeros(2, 2), 1, 0, 3),
    lambda m: m.diagonal_scatter(m.zeros(3, 3), m.zeros(2)),
    lambda m: m.float_power("x", 2),
    lambda m: m.can_cast(m.float32, 1),
]


@pytest.mark.parametrize("fn", BAD_INPUT, ids=[str(i) for i in range(len(BAD_INPUT))])
def test_bad_input_raises_like_torch(fn):
    raises_like_torch(fn)


def test_names_exist_as_in_torch():
    """Every function here is a oneflow name, and a Tensor method or in-place twin wherever torch
    has one."""
    names = [n for n in flow.__all__ if hasattr(torch, n)]
    for name in (*_torch_breadth_methods.METHODS, *[n + "_" for n in _torch_breadth_methods.INPLACE_FUNCTIONS]):
        assert hasattr(flow, name) or not hasattr(torch, name), name
    for name in _torch_breadth_methods.METHODS:
        if hasattr(torch.Tensor, name):
            assert hasattr(flow.Tensor, name), name
        if hasattr(torch.Tensor, name + "_"):
            assert hasattr(flow.Tensor, name + "_"), name + "_"
    assert "moveaxis" in names and "xlogy_" in names and "square_" in names


MIXED = [
    lambda m: m.fmax(m.tensor([1, 5]), m.tensor([2.5, float("nan")])),
    lambda m: m.fmin(m.tensor([1, 5], dtype=m.int32), m.tensor([2, 3])),
    lambda m: m.copysign(m.tensor([1, -2]), m.tensor([-1, 0])),
    lambda m: m.copysign(m.tensor([1.0, 2.0]), m.tensor([-0.0, 0.0])),
    lambda m: m.ldexp(m.tensor([1, 3]), m.tensor([2, -1])),
    lambda m: m.float_power(m.tensor([2, 3]), 0.5),
    lambda m: m.float_power(2, m.tensor([1.0, 3.0])),
    lambda m: m.xlogy(m.tensor([0, 2]), 3.0),
    lambda m: m.xlogy(2, m.tensor([0.5, 3.0])),
    lambda m: m.xlogy(m.tensor([1.0, 2.0]), m.tensor(4.0, dtype=m.float64)),
    lambda m: m.xlogy(m.tensor([0.0, 1.0]), m.tensor([float("nan"), 0.0])),
    lambda m: m.isclose(m.tensor([1, 2]), m.tensor([1, 3])),
    lambda m: m.isclose(m.tensor([True, False]), m.tensor([True, True])),
    lambda m: m.isclose(m.tensor([1.0, float("inf"), -float("inf")]), m.tensor([1.0 + 1e-7, float("inf"), 1.0])),
    lambda m: m.signbit(m.tensor([True, False])),
    lambda m: m.sinc(m.tensor([0, 1, 2], dtype=m.int32)),
    lambda m: m.logit(m.tensor([0.0, 1.0, 0.5]), eps=1e-6),
    lambda m: m.heaviside(m.tensor([-1, 0, 2]), m.tensor([7])),
    lambda m: m.nanmean(m.tensor([[float("nan"), float("nan")], [1.0, float("nan")]]), 1),
    lambda m: m.count_nonzero(m.tensor([[True, False], [True, True]]), 0),
    lambda m: m.aminmax(m.tensor([[3, 1], [2, 8]]), dim=-1),
    lambda m: m.aminmax(m.tensor(2.0), keepdim=True),
    lambda m: m.logcumsumexp(m.tensor([-1000.0, 0.0, -float("inf"), 1000.0]), 0),
    lambda m: m.gcd(m.tensor([0, 0, -6, 5]), m.tensor([0, 4, 4, 0])),
    lambda m: m.lcm(m.tensor([0, 3, -6], dtype=m.int16), m.tensor([5, 4, 4], dtype=m.int16)),
    lambda m: m.vander(m.tensor([2, 3], dtype=m.int32), 4),
    lambda m: m.block_diag(m.tensor([1, 2]), m.tensor([[1.5]])),
    lambda m: m.block_diag(),
    lambda m: m.cdist(m.zeros(2, 0, 3), m.zeros(2, 4, 3)),
    lambda m: m.kron(m.tensor(2.0), m.tensor([1, 2])),
    lambda m: m.combinations(m.tensor([1, 2]), 3),
    lambda m: m.combinations(m.tensor([1, 2]), 0),
    lambda m: m.trapezoid(m.tensor([1, 2, 4])),
    lambda m: m.trapezoid(m.tensor([[1.0, 2.0, 4.0]]), m.tensor([[0.0, 1.0, 3.0]])),
    lambda m: m.cov(m.tensor([[1, 2, 4], [0, 3, 5]])),
    lambda m: m.corrcoef(m.tensor([1.0, 2.0, 4.0])),
    lambda m: m.addmv(m.tensor([float("nan"), 1.0]), m.ones(2, 2), m.ones(2), beta=0),
    lambda m: m.diagonal_scatter(m.zeros(2, 3), m.ones(0), 3),
    lambda m: m.slice_scatter(m.zeros(4, 2), m.ones(2, 2), start=-3, end=None, step=2),
    lambda m: m.scatter_reduce(m.tensor([1, 2, 3]), 0, m.tensor([0, 0, 2]), m.tensor([5, -4, 9]), "mean"),
    lambda m: m.scatter_reduce(
        m.tensor([1, 2, 3]), 0, m.tensor([0, 0, 2]), m.tensor([5, -4, 9]), "amin", include_self=False
    ),
    lambda m: m.index_reduce(m.ones(3, 2), 0, m.tensor([0, 0]), m.tensor([[2.0, 3.0], [4.0, 5.0]]), "mean"),
    lambda m: m.unravel_index(m.tensor(5), 6),
]


@pytest.mark.parametrize("fn", MIXED, ids=[str(i) for i in range(len(MIXED))])
def test_values_and_dtypes(fn):
    """Mixed dtypes, numbers, NaN/inf and edge shapes give torch's values and dtypes."""
    ours, theirs = fn(flow), fn(torch)
    ours = list(ours) if isinstance(ours, tuple) else [ours]
    theirs = list(theirs) if isinstance(theirs, tuple) else [theirs]
    assert len(ours) == len(theirs)
    for o, t in zip(ours, theirs):
        assert tuple(o.shape) == tuple(t.shape)
        assert str(o.dtype).split(".")[-1] == str(t.dtype).split(".")[-1], (o.dtype, t.dtype)
        np.testing.assert_allclose(
            o.numpy().astype(np.float64), t.numpy().astype(np.float64), rtol=1e-6, equal_nan=True
        )


@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("bad", [3, -1])
def test_scatter_reduce_index_out_of_bounds(reduce, bad):
    x, src = flow.zeros(3), flow.ones(2)
    index = flow.tensor([0, bad])
    with pytest.raises(RuntimeError, match="out of bounds for dimension 0 with size 3"):
        flow.scatter_reduce(x, 0, index, src, reduce)
    with pytest.raises(RuntimeError, match="out of bounds"):
        torch.scatter_reduce(torch.zeros(3), 0, torch.tensor([0, bad]), torch.ones(2), reduce)
