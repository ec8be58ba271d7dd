"""oneflow.nn.utils against torch.nn.utils: gradient clipping, parameter vectors, pad_sequence."""

import math

import numpy as np
import pytest
import torch

import oneflow as flow

RNG = np.random.RandomState(0)


def make_params(m, grads, with_missing=True):
    """Parameters whose .grad are the given arrays (plus one without a gradient)."""
    params = []
    for g in grads:
        p = m.nn.Parameter(m.zeros(*g.shape, dtype=getattr(m, str(g.dtype))))
        p.grad = m.tensor(g)
        params.append(p)
    if with_missing:
        params.append(m.nn.Parameter(m.zeros(2)))
    return params


def grads_of(params):
    return [p.grad.numpy() for p in params if p.grad is not None]


GRADS = [RNG.randn(3, 4).astype(np.float32), RNG.randn(5).astype(np.float32), RNG.randn(2, 2, 2).astype(np.float32)]


@pytest.mark.parametrize("norm_type", [2.0, 1.0, 3.5, math.inf, "inf", 0.5])
@pytest.mark.parametrize("max_norm", [0.1, 1.0, 100.0])
def test_clip_grad_norm_matches_torch(norm_type, max_norm):
    ours_p, theirs_p = make_params(flow, GRADS), make_params(torch, GRADS)
    n_type = float(norm_type) if isinstance(norm_type, str) else norm_type
    ours = flow.nn.utils.clip_grad_norm_(ours_p, max_norm, norm_type=n_type)
    theirs = torch.nn.utils.clip_grad_norm_(theirs_p, max_norm, norm_type=n_type)
    assert isinstance(ours, flow.Tensor) and ours.ndim == 0
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-5)
    for a, b in zip(grads_of(ours_p), grads_of(theirs_p)):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-7)


def test_clip_grad_norm_forms():
    g = [RNG.randn(4).astype(np.float32)]
    # One tensor, a generator, and a model's parameters.
    for make in (lambda ps: ps[0], lambda ps: (p for p in ps)):
        ours_p, theirs_p = make_params(flow, g, False), make_params(torch, g, False)
        a = flow.nn.utils.clip_grad_norm_(make(ours_p), 0.5)
        b = torch.nn.utils.clip_grad_norm_(make(theirs_p), 0.5)
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6)
        np.testing.assert_allclose(grads_of(ours_p)[0], grads_of(theirs_p)[0], rtol=1e-6)
    net = flow.nn.Linear(3, 2)
    net(flow.ones(4, 3)).sum().backward()
    total = flow.nn.utils.clip_grad_norm_(net.parameters(), max_norm=1.0)
    expected = math.sqrt(sum(float((p.grad**2).sum()) for p in net.parameters()))
    assert float(total) > 1.0
    np.testing.assert_allclose(expected, 1.0, rtol=1e-5)  # the clipped gradients have norm max_norm


def test_clip_grad_norm_without_gradients_returns_zero():
    ours = flow.nn.utils.clip_grad_norm_([flow.nn.Parameter(flow.ones(2))], 1.0)
    theirs = torch.nn.utils.clip_grad_norm_([torch.nn.Parameter(torch.ones(2))], 1.0)
    assert float(ours) == float(theirs) == 0.0
    assert float(flow.nn.utils.clip_grad_norm_([], 1.0)) == 0.0


def test_clip_grad_norm_mixed_dtypes():
    grads = [RNG.randn(3).astype(np.float32), RNG.randn(4).astype(np.float64)]
    ours_p, theirs_p = make_params(flow, grads), make_params(torch, grads)
    a = flow.nn.utils.clip_grad_norm_(ours_p, 0.3)
    b = torch.nn.utils.clip_grad_norm_(theirs_p, 0.3)
    np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5)
    for x, y in zip(grads_of(ours_p), grads_of(theirs_p)):
        assert x.dtype == y.dtype
        np.testing.assert_allclose(x, y, rtol=1e-5)


def test_clip_grad_norm_nonfinite():
    bad = [np.array([1.0, np.inf], np.float32), np.array([np.nan], np.float32)]
    for m in (flow, torch):
        with pytest.raises(RuntimeError):
            m.nn.utils.clip_grad_norm_(make_params(m, bad), 1.0, error_if_nonfinite=True)
    ours = flow.nn.utils.clip_grad_norm_(make_params(flow, bad[:1]), 1.0)
    theirs = torch.nn.utils.clip_grad_norm_(make_params(torch, bad[:1]), 1.0)
    assert math.isinf(float(ours)) and math.isinf(float(theirs))


def test_get_total_norm_and_clip_grads_with_norm():
    ours_p, theirs_p = make_params(flow, GRADS), make_params(torch, GRADS)
    a = flow.nn.utils.get_total_norm([p.grad for p in ours_p if p.grad is not None], 3.0)
    b = torch.nn.utils.get_total_norm([p.grad for p in theirs_p if p.grad is not None], 3.0)
    np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5)
    flow.nn.utils.clip_grads_with_norm_(ours_p, 0.2, a)
    torch.nn.utils.clip_grads_with_norm_(theirs_p, 0.2, b)
    for x, y in zip(grads_of(ours_p), grads_of(theirs_p)):
        np.testing.assert_allclose(x, y, rtol=1e-5)


@pytest.mark.parametrize("clip_value", [0.1, 1, 5.0])
def test_clip_grad_value_matches_torch(clip_value):
    ours_p, theirs_p = make_params(flow, GRADS), make_params(torch, GRADS)
    assert flow.nn.utils.clip_grad_value_(ours_p, clip_value) is None
    torch.nn.utils.clip_grad_value_(theirs_p, clip_value)
    for a, b in zip(grads_of(ours_p), grads_of(theirs_p)):
        np.testing.assert_array_equal(a, b)


def test_parameters_to_vector_and_back():
    def run(m):
        net = m.nn.Sequential(m.nn.Linear(3, 2), m.nn.Linear(2, 1))
        with m.no_grad():
            for i, p in enumerate(net.parameters()):
                p.copy_(m.arange(p.numel(), dtype=m.float32).reshape(p.shape) + 10 * i)
        vec = m.nn.utils.parameters_to_vector(net.parameters())
        ids = [id(p) for p in net.parameters()]
        m.nn.utils.vector_to_parameters(vec * 2, net.parameters())
        same = ids == [id(p) for p in net.parameters()]
        out = net(m.ones(1, 3))
        out.sum().backward()
        return (vec.tolist(), tuple(vec.shape), vec.requires_grad, same,
                [p.tolist() for p in net.parameters()], [p.requires_grad for p in net.parameters()],
                [p.grad is not None for p in net.parameters()])

    ours, theirs = run(flow), run(torch)
    assert ours == theirs


def test_vector_to_parameters_shares_memory_and_checks_type():
    p = [flow.nn.Parameter(flow.zeros(2)), flow.nn.Parameter(flow.zeros(3))]
    vec = flow.arange(5.0)
    flow.nn.utils.vector_to_parameters(vec, p)
    assert p[1].tolist() == [2.0, 3.0, 4.0] and p[1].data_ptr() == vec[2:].data_ptr()
    for m in (flow, torch):
        with pytest.raises(TypeError):
            m.nn.utils.vector_to_parameters([1.0, 2.0], [m.nn.Parameter(m.zeros(2))])


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("padding_side", ["right", "left"])
@pytest.mark.parametrize("trailing", [(), (3,), (2, 2)])
def test_pad_sequence_matches_torch(batch_first, padding_side, trailing):
    lengths = [3, 1, 4, 4, 2]
    arrays = [RNG.randn(n, *trailing).astype(np.float32) for n in lengths]

    def run(m):
        seqs = [m.tensor(a, requires_grad=True) for a in arrays]
        out = m.nn.utils.rnn.pad_sequence(seqs, batch_first=batch_first, padding_value=-1.5, padding_side=padding_side)
        weights = m.tensor(np.arange(out.numel(), dtype=np.float32).reshape(tuple(out.shape)))
        (out * weights).sum().backward()
        return out.detach().numpy(), [s.grad.numpy() for s in seqs]

    (ours, our_grads), (theirs, their_grads) = run(flow), run(torch)
    np.testing.assert_array_equal(ours, theirs)
    for a, b in zip(our_grads, their_grads):
        np.testing.assert_array_equal(a, b)


def test_pad_sequence_defaults_and_dtypes():
    def run(m):
        seqs = [m.tensor([1, 2, 3]), m.tensor([4])]
        out = m.nn.utils.rnn.pad_sequence(seqs)
        return out.tolist(), str(out.dtype).split(".")[-1], tuple(m.nn.utils.rnn.pad_sequence((m.ones(2, 2),)).shape)

    assert run(flow) == run(torch)


def test_pad_sequence_errors():
    for m in (flow, torch):
        with pytest.raises(RuntimeError):
            m.nn.utils.rnn.pad_sequence([m.ones(2)], padding_side="middle")
        with pytest.raises(RuntimeError):
            m.nn.utils.rnn.pad_sequence([m.ones(2, 3), m.ones(2, 4)])


def test_unpad_sequence_inverts_pad_sequence():
    seqs = [flow.arange(3.0), flow.arange(1.0), flow.arange(2.0)]
    padded = flow.nn.utils.rnn.pad_sequence(seqs, batch_first=True)
    back = flow.nn.utils.rnn.unpad_sequence(padded, flow.tensor([3, 1, 2]), batch_first=True)
    assert [t.tolist() for t in back] == [t.tolist() for t in seqs]
    back = flow.nn.utils.rnn.unpad_sequence(flow.nn.utils.rnn.pad_sequence(seqs), [3, 1, 2])
    assert [t.tolist() for t in back] == [t.tolist() for t in seqs]
