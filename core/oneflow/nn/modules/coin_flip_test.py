"""OneFlow's nn.CoinFlip (OneFlow-only): int8 Bernoulli draws of shape (batch_size,), seeded
reproducibly, with the documented frequency of ones."""

import numpy as np
import pytest

import oneflow as flow


def test_shape_dtype_values():
    out = flow.nn.CoinFlip()()
    assert tuple(out.shape) == (1,) and out.dtype == flow.int8 and out.device == flow.device("cpu")
    out = flow.nn.CoinFlip(batch_size=1000, random_seed=3)()
    assert tuple(out.shape) == (1000,)
    assert set(np.unique(out.numpy()).tolist()) <= {0, 1}


@pytest.mark.parametrize("p", [0.0, 0.2, 0.5, 0.9, 1.0])
def test_frequency(p):
    n = 20000
    ones = flow.nn.CoinFlip(batch_size=n, random_seed=1, probability=p)().numpy().astype(np.float64).mean()
    # Binomial: 5 standard deviations of the sample mean.
    assert abs(ones - p) <= 5 * np.sqrt(p * (1 - p) / n) + 1e-12


def test_seed_reproducible_and_default_generator():
    a, b = flow.nn.CoinFlip(64, random_seed=42), flow.nn.CoinFlip(64, random_seed=42)
    first = [a().numpy() for _ in range(3)]
    second = [b().numpy() for _ in range(3)]
    for x, y in zip(first, second):
        np.testing.assert_array_equal(x, y)
    assert any((first[0] != f).any() for f in first[1:])  # the module's stream moves on
    flow.manual_seed(5)
    x = flow.nn.CoinFlip(64)().numpy()
    flow.manual_seed(5)
    np.testing.assert_array_equal(flow.nn.CoinFlip(64)().numpy(), x)


def test_bad_input():
    with pytest.raises(TypeError, match="CoinFlip: batch_size must be an int, got float"):
        flow.nn.CoinFlip(batch_size=2.0)
    with pytest.raises(ValueError, match="CoinFlip: batch_size must be positive, got 0"):
        flow.nn.CoinFlip(batch_size=0)
    with pytest.raises(ValueError, match=r"CoinFlip: probability must be in \[0, 1\], got 1.5"):
        flow.nn.CoinFlip(probability=1.5)
    with pytest.raises(TypeError, match="CoinFlip: probability must be a float, got str"):
        flow.nn.CoinFlip(probability="0.5")
    with pytest.raises(TypeError, match="CoinFlip: random_seed must be an int or None"):
        flow.nn.CoinFlip(random_seed=1.5)
    with pytest.raises(ValueError, match="CoinFlip: sbp needs a placement"):
        flow.nn.CoinFlip(sbp=object())
