"""oneflow.nn.init against torch.nn.init: gains, fans, distributions and deterministic fills.

The generators differ, so random initializers are compared by their statistics
(mean, std, bounds) on large tensors; deterministic ones must match exactly.
"""

import math
import warnings

import numpy as np
import pytest
import torch

import oneflow as flow
from oneflow.nn import init


def values(t):
    return t.detach().numpy().astype(np.float64)


@pytest.mark.parametrize(
    "args",
    [
        ("linear",), ("conv1d",), ("conv2d",), ("conv3d",), ("conv_transpose1d",), ("conv_transpose2d",),
        ("conv_transpose3d",), ("sigmoid",), ("tanh",), ("relu",), ("leaky_relu",), ("leaky_relu", 0.2),
        ("leaky_relu", 1), ("selu",),
    ],
)  # fmt: skip
def test_calculate_gain(args):
    assert init.calculate_gain(*args) == pytest.approx(torch.nn.init.calculate_gain(*args), rel=1e-12)


@pytest.mark.parametrize("args", [("swish",), ("leaky_relu", True), ("leaky_relu", "x")])
def test_calculate_gain_errors(args):
    with pytest.raises(ValueError):
        torch.nn.init.calculate_gain(*args)
    with pytest.raises(ValueError):
        init.calculate_gain(*args)


@pytest.mark.parametrize("shape", [(3, 4), (8, 3, 5), (16, 4, 3, 3), (2, 3, 2, 2, 2), (5, 0), (1, 1)])
def test_fans_match_torch(shape):
    ours = init._calculate_fan_in_and_fan_out(flow.empty(*shape))
    theirs = torch.nn.init._calculate_fan_in_and_fan_out(torch.empty(*shape))
    assert ours == theirs
    for mode in ("fan_in", "fan_out", "FAN_IN"):
        assert init._calculate_correct_fan(flow.empty(*shape), mode) == torch.nn.init._calculate_correct_fan(
            torch.empty(*shape), mode
        )


def test_fan_errors():
    for m, mod in ((flow, init), (torch, torch.nn.init)):
        with pytest.raises(ValueError):
            mod._calculate_fan_in_and_fan_out(m.empty(4))
        with pytest.raises(ValueError):
            mod._calculate_correct_fan(m.empty(4, 4), "fan_avg")
        with pytest.raises(ValueError):
            mod.xavier_uniform_(m.empty(3))
        with pytest.raises(ValueError):
            mod.kaiming_normal_(m.empty(3, 3), mode="bad")


BIG = (400, 100, 3)  # 120000 samples: the std estimate is within ~0.5%


def check_stats(ours, theirs, rel=0.03):
    a, b = values(ours), values(theirs)
    assert abs(a.mean() - b.mean()) < 0.02 * max(b.std(), 1e-3)
    assert a.std() == pytest.approx(b.std(), rel=rel)


def both_init(name, shape, *args, **kwargs):
    ours = getattr(init, name)(flow.empty(*shape), *args, **kwargs)
    theirs = getattr(torch.nn.init, name)(torch.empty(*shape), *args, **kwargs)
    return ours, theirs


@pytest.mark.parametrize(
    "name, args, kwargs",
    [
        ("uniform_", (-2.0, 5.0), {}),
        ("normal_", (1.5, 0.3), {}),
        ("xavier_uniform_", (), {}),
        ("xavier_uniform_", (), {"gain": 2.5}),
        ("xavier_normal_", (), {"gain": 0.5}),
        ("kaiming_uniform_", (), {}),
        ("kaiming_uniform_", (), {"a": math.sqrt(5)}),
        ("kaiming_uniform_", (), {"mode": "fan_out", "nonlinearity": "relu"}),
        ("kaiming_normal_", (), {}),
        ("kaiming_normal_", (), {"a": 0.1, "mode": "fan_out", "nonlinearity": "leaky_relu"}),
        ("kaiming_normal_", (), {"nonlinearity": "tanh"}),
        ("trunc_normal_", (), {}),
        ("trunc_normal_", (), {"mean": 1.0, "std": 2.0, "a": 0.0, "b": 3.0}),
        ("trunc_normal_", (), {"std": 0.02, "a": -0.04, "b": 0.04}),
    ],
)
def test_random_initializers_match_torch_statistics(name, args, kwargs):
    ours, theirs = both_init(name, BIG, *args, **kwargs)
    assert ours.dtype == flow.float32 and tuple(ours.shape) == BIG
    check_stats(ours, theirs)
    a, b = values(ours), values(theirs)
    if "uniform" in name or "trunc" in name:
        # Same support: the extremes agree closely on this many samples.
        assert a.min() >= b.min() - 0.01 * b.std() and a.max() <= b.max() + 0.01 * b.std()
        assert a.min() <= b.min() + 0.02 * b.std() and a.max() >= b.max() - 0.02 * b.std()


def test_uniform_bounds_are_exact_formulas():
    t = init.xavier_uniform_(flow.empty(64, 32, 3, 3), gain=2.0)
    bound = 2.0 * math.sqrt(6.0 / (32 * 9 + 64 * 9))
    assert np.abs(values(t)).max() <= bound and np.abs(values(t)).max() > 0.99 * bound
    t = init.kaiming_uniform_(flow.empty(64, 32, 3, 3), a=math.sqrt(5))
    bound = math.sqrt(2.0 / 6.0) * math.sqrt(3.0 / (32 * 9))
    assert np.abs(values(t)).max() <= bound * (1 + 1e-6) and np.abs(values(t)).max() > 0.99 * bound


def test_trunc_normal_stays_in_bounds():
    t = init.trunc_normal_(flow.empty(10000), mean=0.5, std=1.0, a=-0.25, b=0.75)
    v = values(t)
    assert v.min() >= -0.25 and v.max() <= 0.75


def test_trunc_normal_warns_far_from_interval():
    with pytest.warns(UserWarning):
        init.trunc_normal_(flow.empty(10), mean=10.0, std=1.0, a=-1.0, b=1.0)


@pytest.mark.parametrize("shape, gain", [((6, 4), 1.0), ((4, 6), 1.0), ((3, 2, 2, 2), 2.0), ((50, 50), 0.5)])
def test_orthogonal(shape, gain):
    t = init.orthogonal_(flow.empty(*shape), gain=gain)
    w = values(t).reshape(shape[0], -1)
    rows, cols = w.shape
    gram = w @ w.T if rows <= cols else w.T @ w
    np.testing.assert_allclose(gram, gain**2 * np.eye(min(rows, cols)), atol=1e-5)
    with pytest.raises(ValueError):
        init.orthogonal_(flow.empty(3))
    with pytest.raises(ValueError):
        torch.nn.init.orthogonal_(torch.empty(3))


@pytest.mark.parametrize("shape", [(3, 5), (5, 3), (4, 4)])
def test_eye(shape):
    ours, theirs = init.eye_(flow.empty(*shape)), torch.nn.init.eye_(torch.empty(*shape))
    np.testing.assert_array_equal(values(ours), values(theirs))


@pytest.mark.parametrize(
    "shape, groups", [((4, 2, 3), 1), ((6, 3, 3, 3), 2), ((2, 2, 1, 3, 3), 1), ((4, 6, 5), 2), ((3, 5, 2, 2), 3)]
)
def test_dirac(shape, groups):
    ours = init.dirac_(flow.empty(*shape), groups=groups)
    theirs = torch.nn.init.dirac_(torch.empty(*shape), groups=groups)
    np.testing.assert_array_equal(values(ours), values(theirs))


def test_deterministic_errors_match_torch():
    for m, mod in ((flow, init), (torch, torch.nn.init)):
        with pytest.raises(ValueError):
            mod.eye_(m.empty(2, 2, 2))
        with pytest.raises(ValueError):
            mod.dirac_(m.empty(2, 2))
        with pytest.raises(ValueError):
            mod.dirac_(m.empty(3, 2, 2), groups=2)
        with pytest.raises(ValueError):
            mod.sparse_(m.empty(2, 2, 2), 0.5)


def test_constant_ones_zeros():
    p = flow.nn.Parameter(flow.empty(2, 3))
    assert init.constant_(p, 0.25) is p
    assert values(p).tolist() == [[0.25] * 3] * 2
    assert values(init.ones_(p)).tolist() == [[1.0] * 3] * 2
    assert values(init.zeros_(p)).tolist() == [[0.0] * 3] * 2
    assert p.requires_grad and p.is_leaf and p.grad_fn is None


def test_initializers_on_parameters_run_without_grad():
    lin = flow.nn.Linear(5, 4)
    for fn in (init.xavier_uniform_, init.kaiming_normal_, init.orthogonal_, init.trunc_normal_, init.eye_):
        out = fn(lin.weight)
        assert out is lin.weight and lin.weight.is_leaf and lin.weight.grad_fn is None
    init.normal_(lin.bias)
    init.uniform_(lin.bias)
    lin(flow.ones(2, 5)).sum().backward()
    assert lin.weight.grad is not None


def test_sparse():
    t = init.sparse_(flow.empty(10, 7), sparsity=0.3, std=0.5)
    zeros_per_column = (values(t) == 0).sum(axis=0)
    assert zeros_per_column.tolist() == [math.ceil(0.3 * 10)] * 7
    nonzero = values(t)[values(t) != 0]
    assert 0.1 < nonzero.std() < 1.5


@pytest.mark.parametrize(
    "name, kwargs",
    [("uniform_", {}), ("normal_", {}), ("xavier_uniform_", {}), ("xavier_normal_", {}), ("kaiming_uniform_", {}),
     ("kaiming_normal_", {}), ("trunc_normal_", {}), ("orthogonal_", {})],
)  # fmt: skip
def test_generator_argument_makes_draws_reproducible(name, kwargs):
    fn = getattr(init, name)
    draws = []
    for seed in (7, 7, 8):
        g = flow.Generator().manual_seed(seed)
        draws.append(values(fn(flow.empty(6, 5), generator=g, **kwargs)))
    np.testing.assert_array_equal(draws[0], draws[1])
    assert not np.array_equal(draws[0], draws[2])
    # The default generator is left alone by an explicit one, and seeds as well.
    flow.manual_seed(3)
    a = values(fn(flow.empty(6, 5), **kwargs))
    flow.manual_seed(3)
    fn(flow.empty(6, 5), generator=flow.Generator().manual_seed(1), **kwargs)
    b = values(fn(flow.empty(6, 5), **kwargs))
    np.testing.assert_array_equal(a, b)


def test_zero_element_kaiming_warns_like_torch():
    for mod, m in ((init, flow), (torch.nn.init, torch)):
        with pytest.warns(UserWarning):
            mod.kaiming_uniform_(m.empty(0, 3))
        with pytest.warns(UserWarning):
            mod.kaiming_normal_(m.empty(0, 3))


def test_deprecated_aliases_warn():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        t = init.uniform(flow.empty(3), 0.0, 1.0)
        init.xavier_normal(flow.empty(3, 3))
    assert len(caught) == 2 and tuple(t.shape) == (3,)


def test_float64_and_float16_tensors():
    t = init.kaiming_normal_(flow.empty(200, 300, dtype=flow.float64))
    assert t.dtype == flow.float64 and values(t).std() == pytest.approx(math.sqrt(2.0 / 300), rel=0.03)
    h = init.xavier_uniform_(flow.empty(20, 30, dtype=flow.float16))
    assert h.dtype == flow.float16 and np.abs(values(h)).max() <= math.sqrt(6.0 / 50) * 1.001
    o = init.orthogonal_(flow.empty(8, 8, dtype=flow.float64))
    np.testing.assert_allclose(values(o) @ values(o).T, np.eye(8), atol=1e-10)
