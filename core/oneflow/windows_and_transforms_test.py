"""Window functions, vmap/cond/compile and the complex-part functions on real tensors, against torch."""

import numpy as np
import pytest
import torch

import oneflow as flow

WINDOWS = ["hann_window", "hamming_window", "blackman_window", "bartlett_window", "kaiser_window"]


@pytest.mark.parametrize("name", WINDOWS)
@pytest.mark.parametrize("n", [0, 1, 2, 5, 16, 33])
@pytest.mark.parametrize("periodic", [True, False])
def test_windows_match_torch(name, n, periodic):
    got = getattr(flow, name)(n, periodic, dtype=flow.float64)
    want = getattr(torch, name)(n, periodic, dtype=torch.float64)
    assert got.dtype == flow.float64 and tuple(got.shape) == tuple(want.shape)
    np.testing.assert_allclose(got.numpy(), want.numpy(), atol=1e-12)
    assert getattr(flow, name)(n).dtype == flow.float32


def test_window_arguments():
    np.testing.assert_allclose(
        flow.hamming_window(12, False, 0.6, 0.4, dtype=flow.float64).numpy(),
        torch.hamming_window(12, False, 0.6, 0.4, dtype=torch.float64).numpy(),
        atol=1e-12,
    )
    np.testing.assert_allclose(
        flow.kaiser_window(10, True, 5.0, dtype=flow.float64).numpy(),
        torch.kaiser_window(10, True, 5.0, dtype=torch.float64).numpy(),
        atol=1e-12,
    )
    assert flow.hann_window(4, requires_grad=True).requires_grad
    with pytest.raises(RuntimeError, match="non-negative window_length"):
        flow.hann_window(-1)
    with pytest.raises(TypeError, match="window_length"):
        flow.hann_window(2.5)
    with pytest.raises(RuntimeError, match="floating point"):
        flow.hann_window(4, dtype=flow.int64)


def test_complex_parts_of_real_tensors():
    x = np.array([-2.0, -0.0, 0.0, 3.0, np.nan])
    f, t = flow.tensor(x), torch.tensor(x)
    for name in ("real", "conj", "resolve_conj", "conj_physical", "sgn", "angle"):
        np.testing.assert_array_equal(getattr(flow, name)(f).numpy(), getattr(torch, name)(t).numpy(), err_msg=name)
    np.testing.assert_array_equal(flow.angle(flow.tensor([-1, 2])).numpy(), torch.angle(torch.tensor([-1, 2])).numpy())
    assert flow.is_complex(f) is torch.is_complex(t) is False
    assert flow.is_conj(f) is torch.is_conj(t) is False
    assert flow.real(f) is f and flow.conj(f) is f
    with pytest.raises(RuntimeError, match="imag is not implemented for tensors with non-complex dtypes"):
        flow.imag(f)
    with pytest.raises(RuntimeError, match="imag is not implemented"):
        torch.imag(t)
    assert f.conj_physical_() is f
    with pytest.raises(TypeError, match="must be Tensor"):
        flow.angle([1.0])


def test_vmap_matches_torch():
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((4, 3)), rng.standard_normal((3, 5))

    def f(lib):
        return lambda x, w: (lib.matmul(x, w).sum(), x * 2)

    got = flow.vmap(f(flow), in_dims=(0, None))(flow.tensor(a), flow.tensor(b))
    want = torch.vmap(f(torch), in_dims=(0, None))(torch.tensor(a), torch.tensor(b))
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.numpy(), w.numpy(), atol=1e-12)
    got = flow.vmap(lambda x: x.sum(0), in_dims=1, out_dims=0)(flow.tensor(a))
    np.testing.assert_allclose(got.numpy(), a.sum(0), atol=1e-12)
    x = flow.tensor(a, requires_grad=True)
    flow.vmap(lambda r: (r * r).sum())(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * a, atol=1e-12)
    with pytest.raises(ValueError, match="one size"):
        flow.vmap(lambda p, q: p + q)(flow.ones(2), flow.ones(3))
    with pytest.raises(TypeError, match="callable"):
        flow.vmap(3)


def test_cond_and_compile():
    x = flow.tensor([1.0, 2.0])
    assert flow.cond(x.sum() > 0, lambda v: v * 2, lambda v: v - 1, (x,)).tolist() == [2.0, 4.0]
    assert flow.cond(False, lambda v: v * 2, lambda v: v - 1, (x,)).tolist() == [0.0, 1.0]
    with pytest.raises(RuntimeError, match="one element"):
        flow.cond(x, lambda: 0, lambda: 1)
    model = flow.nn.Linear(2, 2)
    assert flow.compile(model) is model
    assert flow.compile(mode="max-autotune")(model) is model

    @flow.compile
    def g(v):
        return v + 1

    assert g(x).tolist() == [2.0, 3.0]
