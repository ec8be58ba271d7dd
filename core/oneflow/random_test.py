"""Random numbers (core/oneflow/random.py, ops/defs/random.cc): seeding and generators,
argument forms, shapes and dtypes against torch, errors, and the statistics of the samples.

Values cannot match torch's (a different generator), so the samples are tested by their
properties; every statistical bound is at least 5 standard deviations wide and the seeds are
fixed, so the tests are deterministic.
"""

import math
import threading

import numpy as np
import pytest
import torch

import oneflow as flow

N = 100_000


def _np(t):
    if t.dtype == flow.bfloat16:
        t = t.float()
    return t.detach().numpy()


def _dtype_name(d):
    return str(d).split(".")[-1]


def _same_error(fn):
    """fn(torch) raises; fn(oneflow) raises the same exception type."""
    with pytest.raises(Exception) as theirs:
        fn(torch)
    with pytest.raises(Exception) as ours:
        fn(flow)
    assert type(ours.value).__name__ == type(theirs.value).__name__, (
        f"torch raised {type(theirs.value).__name__}: {theirs.value}; "
        f"we raised {type(ours.value).__name__}: {ours.value}"
    )
    return ours.value


# ---- the generator -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("counter", "key", "expected"),
    [
        # Random123's known-answer vectors for philox4x32 with 10 rounds.
        ([0, 0, 0, 0], [0, 0], [0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8]),
        ([0xFFFFFFFF] * 4, [0xFFFFFFFF] * 2, [0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD]),
        ([0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344], [0xA4093822, 0x299F31D0],
         [0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1]),
    ],
)
def test_philox_known_answers(counter, key, expected):
    assert list(flow._C._philox4x32_10(counter, key)) == expected


def test_manual_seed_returns_the_default_generator():
    g = flow.manual_seed(3)
    assert g is flow.default_generator
    assert isinstance(g, flow.Generator)
    assert flow.initial_seed() == 3
    assert flow.random.initial_seed() == 3


def test_same_seed_same_values():
    def draw():
        return [
            _np(flow.rand(3, 4)), _np(flow.randn(5, dtype=flow.float64)), _np(flow.randint(0, 100, (6,))),
            _np(flow.randperm(10)), _np(flow.normal(1.0, 2.0, (4,))), _np(flow.bernoulli(flow.full((8,), 0.5))),
            _np(flow.empty(4).uniform_(-1, 1)), _np(flow.empty(3, dtype=flow.float16).normal_()),
            _np(flow.zeros(5, dtype=flow.int32).random_()), _np(flow.rand(2, dtype=flow.bfloat16)),
        ]

    flow.manual_seed(1234)
    a = draw()
    flow.manual_seed(1234)
    b = draw()
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)


def test_different_seeds_differ():
    flow.manual_seed(0)
    a = _np(flow.rand(100))
    flow.manual_seed(1)
    b = _np(flow.rand(100))
    assert not np.any(a == b)


def test_successive_draws_differ():
    flow.manual_seed(0)
    a, b = _np(flow.rand(50)), _np(flow.rand(50))
    assert not np.any(a == b)


def test_values_do_not_depend_on_layout():
    g = flow.Generator()
    g.manual_seed(5)
    contiguous = _np(flow.empty(4, 3).uniform_(generator=g))
    g.manual_seed(5)
    transposed = flow.empty(3, 4).t()
    assert not transposed.is_contiguous()
    np.testing.assert_array_equal(_np(transposed.uniform_(generator=g)), contiguous)


def test_seed_values():
    for s in (0, 1, 2**32, 2**63 - 1, 2**64 - 1):
        assert flow.manual_seed(s).initial_seed() == torch.manual_seed(s).initial_seed() == s
    # Negative seeds count modulo 2**64, as in torch.
    assert flow.manual_seed(-1).initial_seed() == torch.manual_seed(-1).initial_seed() == 2**64 - 1
    assert flow.manual_seed(-(2**63)).initial_seed() == 2**63
    # manual_seed converts with int(), as torch does.
    assert flow.manual_seed(2.7).initial_seed() == torch.manual_seed(2.7).initial_seed() == 2
    _same_error(lambda m: m.manual_seed(2**64))
    _same_error(lambda m: m.manual_seed(-(2**63) - 1))
    _same_error(lambda m: m.manual_seed("seed"))
    torch.manual_seed(0)


def test_seed_is_nondeterministic():
    s1 = flow.seed()
    assert isinstance(s1, int)
    assert flow.initial_seed() == s1
    a = _np(flow.rand(10))
    s2 = flow.seed()
    assert s1 != s2
    flow.manual_seed(s1)
    np.testing.assert_array_equal(_np(flow.rand(10)), a)


def test_fresh_generator_initial_seed_matches_torch():
    assert flow.Generator().initial_seed() == torch.Generator().initial_seed()


def test_rng_state_round_trip():
    flow.manual_seed(42)
    flow.rand(7)
    state = flow.get_rng_state()
    assert state.dtype == flow.uint8 and state.ndim == 1
    a = _np(flow.randn(20))
    b = _np(flow.randint(0, 1000, (20,)))
    flow.set_rng_state(state)
    np.testing.assert_array_equal(_np(flow.randn(20)), a)
    np.testing.assert_array_equal(_np(flow.randint(0, 1000, (20,))), b)
    # The state is a copy: drawing does not change it.
    flow.rand(3)
    np.testing.assert_array_equal(_np(state), _np(state.clone()))
    # A state from one generator can seed another.
    g = flow.Generator().set_state(state)
    np.testing.assert_array_equal(_np(flow.randn(20, generator=g)), a)


def test_rng_state_errors():
    _same_error(lambda m: m.set_rng_state(m.zeros(3)))
    _same_error(lambda m: m.set_rng_state(m.zeros(3, dtype=m.uint8)))
    _same_error(lambda m: m.set_rng_state([1, 2]))
    _same_error(lambda m: m.Generator().set_state(m.zeros(3, dtype=m.uint8)))


def test_separate_generator_does_not_disturb_the_default():
    flow.manual_seed(0)
    a = _np(flow.rand(5))
    b = _np(flow.randn(5))
    flow.manual_seed(0)
    g = flow.Generator().manual_seed(0)
    flow.rand(100, generator=g)
    flow.empty(10).normal_(generator=g)
    flow.randperm(10, generator=g)
    np.testing.assert_array_equal(_np(flow.rand(5)), a)
    np.testing.assert_array_equal(_np(flow.randn(5)), b)


def test_generator_with_the_same_seed_gives_the_default_stream():
    flow.manual_seed(99)
    a = _np(flow.rand(6))
    g = flow.Generator().manual_seed(99)
    np.testing.assert_array_equal(_np(flow.rand(6, generator=g)), a)


def test_generator_api():
    g = flow.Generator()
    assert g.manual_seed(11) is g
    assert g.initial_seed() == 11
    assert str(g.device) == "cpu"
    assert str(flow.Generator("cpu").device) == "cpu"
    assert str(flow.Generator(device=flow.device("cpu")).device) == "cpu"
    assert type(g).__module__ == "oneflow"
    state = g.get_state()
    x = _np(flow.rand(4, generator=g))
    assert g.set_state(state) is g
    np.testing.assert_array_equal(_np(flow.rand(4, generator=g)), x)
    s = g.seed()
    assert g.initial_seed() == s
    # Each op advances the offset; set_offset rewinds to a position in the stream.
    g.manual_seed(3)
    assert g.get_offset() == 0
    y = _np(flow.rand(4, generator=g))
    assert g.get_offset() > 0
    g.set_offset(0)
    np.testing.assert_array_equal(_np(flow.rand(4, generator=g)), y)


def test_generator_through_every_op():
    def draws(g):
        return [
            _np(flow.empty(5).uniform_(generator=g)), _np(flow.empty(5).normal_(generator=g)),
            _np(flow.empty(5).random_(generator=g)), _np(flow.empty(5).random_(7, generator=g)),
            _np(flow.empty(5).random_(2, 9, generator=g)), _np(flow.empty(5).bernoulli_(generator=g)),
            _np(flow.empty(5).bernoulli_(flow.full((5,), 0.5), generator=g)),
            _np(flow.bernoulli(flow.full((5,), 0.5), generator=g)),
            _np(flow.bernoulli(flow.zeros(5), 0.5, generator=g)),
            _np(flow.normal(flow.zeros(5), flow.ones(5), generator=g)),
            _np(flow.normal(0.0, flow.ones(5), generator=g)),
            _np(flow.normal(flow.zeros(5), 2.0, generator=g)), _np(flow.normal(0.0, 1.0, (5,), generator=g)),
            _np(flow.randperm(5, generator=g)), _np(flow.rand(5, generator=g)), _np(flow.randn(5, generator=g)),
            _np(flow.randint(9, (5,), generator=g)), _np(flow.rand_like(flow.zeros(5), generator=g)),
            _np(flow.randn_like(flow.zeros(5), generator=g)), _np(flow.randint_like(flow.zeros(5), 9, generator=g)),
        ]

    before = flow.get_rng_state()
    a = draws(flow.Generator().manual_seed(8))
    b = draws(flow.Generator().manual_seed(8))
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)
    np.testing.assert_array_equal(_np(flow.get_rng_state()), _np(before))


def test_generator_argument_type():
    _same_error(lambda m: m.rand(2, generator=3))
    _same_error(lambda m: m.empty(2).uniform_(generator="g"))
    _same_error(lambda m: m.randperm(3, generator=object()))


def test_threads_draw_disjoint_values():
    g = flow.Generator().manual_seed(0)
    out = {}

    def work(i):
        out[i] = _np(flow.rand(1000, dtype=flow.float64, generator=g))

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    values = np.concatenate(list(out.values()))
    assert len(np.unique(values)) == values.size
    # Whatever the order the threads ran in, they drew the first four calls' worth of the stream.
    g.manual_seed(0)
    serial = np.concatenate([_np(flow.rand(1000, dtype=flow.float64, generator=g)) for _ in range(4)])
    np.testing.assert_array_equal(np.sort(values), np.sort(serial))


# ---- argument forms, shapes and dtypes against torch ----------------------------------------

FORMS = [
    lambda m: m.rand(2, 3),
    lambda m: m.rand((2, 3)),
    lambda m: m.rand([4]),
    lambda m: m.rand(()),
    lambda m: m.rand(size=(3, 0)),
    lambda m: m.rand(m.Size([2, 2])),
    lambda m: m.rand(2, dtype=m.float64),
    lambda m: m.rand(2, dtype=m.float16),
    lambda m: m.rand(2, dtype=m.bfloat16),
    lambda m: m.randn(2, 3),
    lambda m: m.randn((1, 2, 3), dtype=m.float64),
    lambda m: m.randn(size=[5]),
    lambda m: m.randint(10, (3,)),
    lambda m: m.randint(3, 10, (2, 2)),
    lambda m: m.randint(high=5, size=(2,)),
    lambda m: m.randint(low=2, high=5, size=(2,)),
    lambda m: m.randint(2, high=5, size=(2,)),
    lambda m: m.randint(0, 10, (3,), dtype=m.float32),
    lambda m: m.randint(0, 2, (3,), dtype=m.bool),
    lambda m: m.randint(0, 100, (3,), dtype=m.uint8),
    lambda m: m.randint(-5, 5, [2, 3], dtype=m.int16),
    lambda m: m.randperm(5),
    lambda m: m.randperm(0),
    lambda m: m.randperm(5, dtype=m.float64),
    lambda m: m.normal(0.0, 1.0, (2, 3)),
    lambda m: m.normal(1, 2, size=(2,)),
    lambda m: m.normal(0.0, 1.0, (2,), dtype=m.float64),
    lambda m: m.normal(m.zeros(2, 1), m.ones(3)),
    lambda m: m.normal(m.zeros(2, 1), 1.0),
    lambda m: m.normal(mean=m.zeros(4)),
    lambda m: m.normal(0.5, m.ones(3, dtype=m.float64)),
    lambda m: m.normal(m.zeros(2), m.ones(2, dtype=m.float64)),
    lambda m: m.normal(m.zeros(2, dtype=m.float16), m.ones(2)),
    lambda m: m.normal(m.zeros(2), m.ones(2, dtype=m.int64)),
    lambda m: m.bernoulli(m.full((3,), 0.5)),
    lambda m: m.bernoulli(m.full((3,), 0.5, dtype=m.float16)),
    lambda m: m.bernoulli(m.zeros(3), 0.5),
    lambda m: m.bernoulli(m.zeros(3, dtype=m.int64), p=0.5),
    lambda m: m.full((2, 3), 0.5).bernoulli(),
    lambda m: m.rand_like(m.zeros(2, 3, dtype=m.float64)),
    lambda m: m.rand_like(m.zeros(2, 3, dtype=m.int64), dtype=m.float32),
    lambda m: m.randn_like(m.zeros(2, dtype=m.float16)),
    lambda m: m.randint_like(m.zeros(2), 10),
    lambda m: m.randint_like(m.zeros(2, dtype=m.int32), 3, 10),
    lambda m: m.randint_like(m.zeros(2, dtype=m.int32), high=10),
    lambda m: m.zeros(3, dtype=m.int64).bernoulli_(0.5),
    lambda m: m.zeros(3, dtype=m.bool).bernoulli_(0.5),
    lambda m: m.zeros(2, 3).bernoulli_(m.full((3,), 0.5)),
    lambda m: m.zeros(3, dtype=m.int8).random_(),
    lambda m: m.zeros(3, dtype=m.bool).random_(),
    lambda m: m.zeros(3).random_(0, None),
]


@pytest.mark.parametrize("form", range(len(FORMS)))
def test_forms_match_torch_shape_and_dtype(form):
    ours, theirs = FORMS[form](flow), FORMS[form](torch)
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert _dtype_name(ours.dtype) == _dtype_name(theirs.dtype)
    assert ours.requires_grad == theirs.requires_grad


def test_default_dtype_is_used():
    flow.set_default_dtype(flow.float64)
    try:
        for t in (flow.rand(2), flow.randn(2), flow.normal(0.0, 1.0, (2,)),
                  flow.rand_like(flow.zeros(2, dtype=flow.float64))):
            assert t.dtype == flow.float64
        assert flow.randint(3, (2,)).dtype == flow.int64
        assert flow.randperm(3).dtype == flow.int64
    finally:
        flow.set_default_dtype(flow.float32)


def test_in_place_ops_return_self():
    x = flow.zeros(3)
    for fn in (lambda t: t.uniform_(), lambda t: t.normal_(), lambda t: t.random_(), lambda t: t.bernoulli_()):
        assert fn(x) is x


ERRORS = [
    lambda m: m.rand(),
    lambda m: m.rand(2.0),
    lambda m: m.rand(-1),
    lambda m: m.rand(2, 3, dtype=m.int64),
    lambda m: m.randn(2, dtype=m.int64),
    lambda m: m.randint(5, 3, (2,)),
    lambda m: m.randint(3, 3, (2,)),
    lambda m: m.randint(0, 10, 2, 3),
    lambda m: m.randint(10, 5),
    lambda m: m.randint(2.5, (3,)),
    lambda m: m.randint(10),
    lambda m: m.randint(0, 1000, (3,), dtype=m.int8),
    lambda m: m.randint(-10, 10, (3,), dtype=m.uint8),
    lambda m: m.randint(0, 10, (3,), requires_grad=True),
    lambda m: m.randint_like(m.zeros(2), 5, 2),
    lambda m: m.randperm(-1),
    lambda m: m.randperm(2.0),
    lambda m: m.randperm(3, dtype=m.bool),
    lambda m: m.randperm(2050, dtype=m.float16),
    lambda m: m.randperm(129, dtype=m.int8),
    lambda m: m.randperm(5, requires_grad=True),
    lambda m: m.normal(0.0, 1.0),
    lambda m: m.normal(m.zeros(2), -1.0),
    lambda m: m.normal(m.zeros(2), -m.ones(2)),
    lambda m: m.normal(0.0, -1.0, (2,)),
    lambda m: m.normal(m.zeros(2), m.ones(3)),
    lambda m: m.normal(m.zeros(2, dtype=m.int64), 1.0),
    lambda m: m.bernoulli(m.full((3,), 1.5)),
    lambda m: m.bernoulli(m.full((3,), -0.5)),
    lambda m: m.bernoulli(m.zeros(3, dtype=m.int64)),
    lambda m: m.bernoulli(m.zeros(3), 1.5),
    lambda m: m.zeros(3).bernoulli_(-0.1),
    lambda m: m.zeros(3).bernoulli_(m.full((3,), 2.0)),
    lambda m: m.zeros(3).bernoulli_(m.full((2, 3), 0.5)),
    lambda m: m.zeros(3).bernoulli_(m.ones(3, dtype=m.int64)),
    lambda m: m.zeros(3, dtype=m.int64).uniform_(),
    lambda m: m.zeros(3).uniform_(3, 1),
    lambda m: m.zeros(3).uniform_(-3e38, 3e38),
    lambda m: m.zeros(3, dtype=m.float16).uniform_(0, 1e5),
    lambda m: m.zeros(3).normal_(0, -1),
    lambda m: m.zeros(3, dtype=m.int64).normal_(),
    lambda m: m.zeros(3).random_(5, 2),
    lambda m: m.zeros(3, dtype=m.int8).random_(0, 1000),
    lambda m: m.zeros(3, dtype=m.int8).random_(-200, 0),
    lambda m: m.rand_like(m.zeros(2, dtype=m.int64)),
    lambda m: m.rand_like([1.0]),
    lambda m: m.zeros(3, requires_grad=True).uniform_(),
    lambda m: m.zeros(3, requires_grad=True).normal_(),
]


@pytest.mark.parametrize("case", range(len(ERRORS)))
def test_errors_match_torch(case):
    _same_error(ERRORS[case])


# ---- autograd ----------------------------------------------------------------------------------


def test_requires_grad():
    for t in (flow.rand(3, requires_grad=True), flow.randn(2, 2, dtype=flow.float64, requires_grad=True),
              flow.normal(0.0, 1.0, (3,), requires_grad=True), flow.randperm(4, dtype=flow.float32, requires_grad=True),
              flow.randint(0, 5, (3,), dtype=flow.float32, requires_grad=True),
              flow.rand_like(flow.zeros(2), requires_grad=True)):
        assert t.requires_grad and t.is_leaf
    assert not flow.rand(3).requires_grad


def test_sampling_gives_zero_gradients_like_torch():
    def run(m):
        mean = m.tensor([0.0, 1.0, 2.0], requires_grad=True)
        std = m.tensor([1.0, 2.0, 3.0], requires_grad=True)
        p = m.tensor([0.2, 0.5, 0.7], requires_grad=True)
        x = m.tensor([1.0, 2.0, 3.0], requires_grad=True)
        out = m.normal(mean, std) + m.normal(mean, 2.0) + m.bernoulli(p) + (x * 1).uniform_() + (x * 1).normal_()
        assert out.requires_grad
        out.sum().backward()
        return [t.grad for t in (mean, std, p, x)]

    for ours, theirs in zip(run(flow), run(torch)):
        np.testing.assert_array_equal(_np(ours), theirs.numpy())
        assert not np.any(_np(ours))


def test_in_place_on_a_non_leaf_keeps_the_graph():
    x = flow.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    y.uniform_()
    (y + x).sum().backward()
    np.testing.assert_array_equal(_np(x.grad), [1.0, 1.0])


def test_no_grad_allows_in_place_on_leaves():
    x = flow.zeros(4, requires_grad=True)
    with flow.no_grad():
        x.uniform_(2, 3)
    v = _np(x)
    assert np.all((v >= 2) & (v < 3)) and x.requires_grad


# ---- statistics --------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [flow.float32, flow.float64])
def test_uniform_statistics(dtype):
    flow.manual_seed(2024)
    v = _np(flow.rand(N, dtype=dtype)).astype(np.float64)
    assert v.min() >= 0.0 and v.max() < 1.0
    assert abs(v.mean() - 0.5) < 5 * math.sqrt(1 / 12 / N)
    assert abs(v.var() - 1 / 12) < 0.002
    # Kolmogorov-Smirnov distance to the uniform CDF (critical value 1.95/sqrt(n) at 0.1%).
    s = np.sort(v)
    ks = max(np.max(np.arange(1, N + 1) / N - s), np.max(s - np.arange(N) / N))
    assert ks < 1.95 / math.sqrt(N)
    # Consecutive samples are uncorrelated.
    assert abs(np.corrcoef(v[:-1], v[1:])[0, 1]) < 5 / math.sqrt(N)


def test_uniform_range_and_scale():
    flow.manual_seed(1)
    v = _np(flow.empty(N, dtype=flow.float64).uniform_(-3.0, 5.0))
    assert v.min() >= -3.0 and v.max() < 5.0
    assert abs(v.mean() - 1.0) < 5 * 8 / math.sqrt(12 * N)
    assert v.min() < -2.99 and v.max() > 4.99


@pytest.mark.parametrize("dtype", [flow.float16, flow.bfloat16])
def test_uniform_half_precision(dtype):
    flow.manual_seed(3)
    v = _np(flow.rand(N, dtype=dtype)).astype(np.float64)
    assert v.min() >= 0.0 and v.max() < 1.0
    assert abs(v.mean() - 0.5) < 0.01
    w = _np(flow.empty(N, dtype=dtype).uniform_(0.9, 1.0)).astype(np.float64)
    assert w.min() >= 0.89 and w.max() < 1.0


@pytest.mark.parametrize("dtype", [flow.float32, flow.float64])
def test_normal_statistics(dtype):
    flow.manual_seed(7)
    v = _np(flow.randn(N, dtype=dtype)).astype(np.float64)
    assert abs(v.mean()) < 5 / math.sqrt(N)
    assert abs(v.std() - 1.0) < 5 / math.sqrt(2 * N)
    # The fractions within 1 and 2 standard deviations, and the fourth moment.
    for k, expected in ((1, 0.682689), (2, 0.954500)):
        frac = np.mean(np.abs(v) < k)
        assert abs(frac - expected) < 5 * math.sqrt(expected * (1 - expected) / N)
    assert abs(np.mean(v**4) - 3.0) < 5 * math.sqrt(96 / N)
    assert abs(np.corrcoef(v[:-1], v[1:])[0, 1]) < 5 / math.sqrt(N)


def test_normal_mean_and_std():
    flow.manual_seed(8)
    v = _np(flow.normal(3.0, 2.0, (N,), dtype=flow.float64))
    assert abs(v.mean() - 3.0) < 5 * 2 / math.sqrt(N)
    assert abs(v.std() - 2.0) < 5 * 2 / math.sqrt(2 * N)
    w = _np(flow.empty(N).normal_(-1.0, 0.5)).astype(np.float64)
    assert abs(w.mean() + 1.0) < 5 * 0.5 / math.sqrt(N)
    assert abs(w.std() - 0.5) < 5 * 0.5 / math.sqrt(2 * N)


def test_normal_half_precision():
    flow.manual_seed(9)
    v = _np(flow.randn(N, dtype=flow.float16)).astype(np.float64)
    assert abs(v.mean()) < 0.02 and abs(v.std() - 1.0) < 0.02


def test_normal_tensor_arguments_broadcast():
    flow.manual_seed(10)
    mean = flow.tensor([[0.0], [10.0]], dtype=flow.float64).expand(N // 10, 2, 1)  # a non-contiguous view
    std = flow.tensor([1.0, 3.0, 0.0], dtype=flow.float64)
    v = _np(flow.normal(mean, std))
    assert v.shape == (N // 10, 2, 3)
    m, s = v.mean(axis=0), v.std(axis=0)
    np.testing.assert_allclose(m, [[0, 0, 0], [10, 10, 10]], atol=5 * 3 / math.sqrt(N // 10))
    np.testing.assert_allclose(s, [[1, 3, 0], [1, 3, 0]], atol=0.1)
    # std 0 gives exactly the mean.
    np.testing.assert_array_equal(v[:, :, 2], np.broadcast_to([0.0, 10.0], (N // 10, 2)))


def test_bernoulli_frequency():
    flow.manual_seed(11)
    v = _np(flow.bernoulli(flow.full((N,), 0.3, dtype=flow.float64)))
    assert set(np.unique(v)) <= {0.0, 1.0}
    assert abs(v.mean() - 0.3) < 5 * math.sqrt(0.21 / N)
    w = _np(flow.zeros(N, dtype=flow.int64).bernoulli_(0.8))
    assert abs(w.mean() - 0.8) < 5 * math.sqrt(0.16 / N)
    # Per-element probabilities.
    p = flow.tensor([0.0, 0.1, 0.5, 0.9, 1.0]).reshape(5, 1).expand(5, N // 10)
    freq = _np(flow.bernoulli(p)).mean(axis=1)
    np.testing.assert_allclose(freq, [0.0, 0.1, 0.5, 0.9, 1.0], atol=5 * math.sqrt(0.25 / (N // 10)))
    assert freq[0] == 0.0 and freq[-1] == 1.0
    q = _np(flow.zeros(5, N // 10).bernoulli_(flow.tensor([0.0, 0.1, 0.5, 0.9, 1.0]).reshape(5, 1))).mean(axis=1)
    np.testing.assert_allclose(q, [0.0, 0.1, 0.5, 0.9, 1.0], atol=5 * math.sqrt(0.25 / (N // 10)))


def test_randint_range_and_frequency():
    flow.manual_seed(12)
    v = _np(flow.randint(-3, 7, (N,)))
    assert v.dtype == np.int64
    assert v.min() == -3 and v.max() == 6
    counts = np.bincount(v + 3, minlength=10)
    assert np.all(np.abs(counts / N - 0.1) < 5 * math.sqrt(0.09 / N))
    # Wide ranges stay inside their bounds.
    w = _np(flow.randint(-(2**62), 2**62, (1000,)))
    assert w.min() >= -(2**62) and w.max() < 2**62 and np.any(w < 0) and np.any(w > 0)
    # random_() covers int64's non-negative range; random_(from, None) reaches the top.
    full = _np(flow.zeros(1000, dtype=flow.int64).random_())
    assert full.min() >= 0 and full.max() > 2**62
    top = _np(flow.zeros(2000, dtype=flow.int8).random_(120, None))
    assert set(np.unique(top)) == set(range(120, 128))
    u8 = _np(flow.randint(0, 256, (N,), dtype=flow.uint8))
    assert len(np.unique(u8)) == 256


def test_random_float_range():
    flow.manual_seed(13)
    v = _np(flow.zeros(N, dtype=flow.float16).random_()).astype(np.float64)
    assert v.min() >= 0 and v.max() <= 2048 and np.all(v == np.floor(v))
    assert abs(v.mean() - 1024) < 20


def test_randperm_is_a_uniform_permutation():
    flow.manual_seed(14)
    for n in (1, 2, 10, 1000, 5000):
        p = _np(flow.randperm(n))
        assert sorted(p.tolist()) == list(range(n))
    assert not np.array_equal(_np(flow.randperm(1000)), np.arange(1000))
    # Each of the 24 orders of 4 elements about equally often.
    counts = {}
    for _ in range(4800):
        key = tuple(_np(flow.randperm(4)).tolist())
        counts[key] = counts.get(key, 0) + 1
    assert len(counts) == 24
    assert all(abs(c - 200) < 5 * math.sqrt(200) for c in counts.values())
    for dtype in (flow.int32, flow.float32, flow.float16, flow.uint8):
        p = _np(flow.randperm(200, dtype=dtype))
        assert sorted(p.astype(np.int64).tolist()) == list(range(200))


def test_oneflow_random_module():
    assert flow.random.manual_seed is flow.manual_seed
    for name in ("seed", "initial_seed", "get_rng_state", "set_rng_state", "Generator", "default_generator"):
        assert hasattr(flow.random, name)
