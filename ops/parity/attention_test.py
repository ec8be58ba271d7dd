"""Parity rows for scaled_dot_product_attention and its fused CPU op (ops/defs/attention.cc)."""

import random

import numpy as np
import pytest
import torch
from parity import OpCase, raises_like_torch, run_case

import oneflow as flow

FLOATS = ("float32", "float64")
HALF_TOL = {"rtol": 3e-2, "atol": 3e-2}

_rng = random.Random(4)


def _random_qkv():
    b, h = _rng.randint(1, 3), _rng.randint(1, 3)
    L, S, E, Ev = (_rng.randint(1, 20) for _ in range(4))
    return ((b, h, L, E), (b, h, S, E), (b, h, S, Ev))


# (query, key, value)
QKV = [((2, 3, 5, 8), (2, 3, 7, 8), (2, 3, 7, 6)), ((1, 2, 70, 16), (1, 2, 70, 16), (1, 2, 70, 16)),
       ((3, 4, 8), (3, 6, 8), (3, 6, 5)), ((4, 8), (6, 8), (6, 3)), ((2, 1, 3, 4), (1, 3, 5, 4), (2, 3, 5, 2)),
       ((2, 2, 600, 8), (2, 2, 600, 8), (2, 2, 600, 8))] + [_random_qkv() for _ in range(3)]
FLASH = [((2, 3, 5, 8), (2, 3, 7, 8), (2, 3, 7, 8)), ((1, 2, 70, 16), (1, 2, 70, 16), (1, 2, 70, 16)),
         ((1, 1, 600, 4), (1, 1, 600, 4), (1, 1, 600, 4))]
ZERO = [((0, 2, 3, 4), (0, 2, 3, 4), (0, 2, 3, 4)), ((2, 0, 4), (2, 3, 4), (2, 3, 4)), ((2, 2, 4), (2, 0, 4), (2, 0, 4))]


def F(m):
    return m.nn.functional


def sdpa(m, *args, **kw):
    return F(m).scaled_dot_product_attention(*args, **kw)


def _bool_mask(m, q, k, s):
    """A bool mask from the input s (broadcast over batch dims), one query row fully masked."""
    keep = s > -1.0
    keep[..., 0, :] = False
    return keep


def _flash(m, *args, **kw):
    op = torch._scaled_dot_product_flash_attention_for_cpu if m is torch else m._C.ops._scaled_dot_product_flash_attention_for_cpu
    return op(*args, **kw)


def _math_sdpa(m, q, k, v, is_causal=False):
    s = q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5
    if is_causal:
        keep = m.ones(q.shape[-2], k.shape[-2], dtype=m.bool).tril()
        s = s.masked_fill(~keep, float("-inf"))
    return m.softmax(s, -1) @ v


def _grad_of(m, f, *xs):
    y = f(*xs)
    r = m.arange(y.numel()).to(y.dtype).reshape(y.shape) / 7.0 - 0.5
    return m.autograd.grad((y * y * r).sum(), xs, create_graph=True)


def _dropout_check(ours, theirs, dtype):
    # Random attention weights: only the shape, finiteness and the mean magnitude are compared.
    for who, outs in (("ours", ours), ("torch", theirs)):
        v = outs[0].detach().float().numpy()
        assert np.all(np.isfinite(v)), who
    a, b = np.abs(ours[0].detach().float().numpy()).mean(), np.abs(theirs[0].detach().float().numpy()).mean()
    assert a < 3 * b + 0.1 and b < 3 * a + 0.1, (a, b)


CASES = [
    OpCase(ops=("scaled_dot_product_attention",), fn=lambda m, q, k, v: sdpa(m, q, k, v), shapes=QKV + ZERO),
    OpCase(ops=("scaled_dot_product_attention",), name="sdpa_half", fn=lambda m, q, k, v: sdpa(m, q, k, v),
           shapes=QKV[:3], dtypes=("float16", "bfloat16"), **HALF_TOL),
    OpCase(ops=("scaled_dot_product_attention",), name="sdpa_causal",
           fn=lambda m, q, k, v: sdpa(m, q, k, v, is_causal=True), shapes=QKV + ZERO),
    OpCase(ops=("scaled_dot_product_attention",), name="sdpa_scale",
           fn=lambda m, q, k, v: sdpa(m, q, k, v, scale=0.3), shapes=QKV[:3]),
    OpCase(ops=("scaled_dot_product_attention",), name="sdpa_bool_mask",
           fn=lambda m, q, k, v, s: sdpa(m, q, k, v, attn_mask=_bool_mask(m, q, k, s)),
           shapes=[((2, 3, 5, 8), (2, 3, 7, 8), (2, 3, 7, 6), (5, 7)), ((1, 2, 70, 16), (1, 2, 70, 16),
                                                                       (1, 2, 70, 16), (1, 1, 70, 70)),
                   ((3, 4, 8), (3, 6, 8), (3, 6, 5), (3, 4, 6))], no_grad_inputs=(3,)),
    OpCase(ops=("scaled_dot_product_attention",), name="sdpa_float_mask",
           fn=lambda m, q, k, v, mask: sdpa(m, q, k, v, attn_mask=mask),
           shapes=[((2, 3, 5, 8), (2, 3, 7, 8), (2, 3, 7, 6), (5, 7)), ((2, 3, 5, 8), (2, 3, 7, 8), (2, 3, 7, 6),
                                                                       (2, 1, 5, 7)),
                   ((4, 8), (6, 8), (6, 3), (4, 6))]),
    OpCase(ops=("scaled_dot_product_attention",), name="sdpa_float_mask_no_grad",
           fn=lambda m, q, k, v, mask: sdpa(m, q, k, v, attn_mask=mask.masked_fill(mask > 1.5, float("-inf"))),
           shapes=[((2, 3, 5, 8), (2, 3, 7, 8), (2, 3, 7, 6), (5, 7))], no_grad_inputs=(3,)),
    OpCase(ops=("scaled_dot_product_attention",), name="sdpa_gqa",
           fn=lambda m, q, k, v: sdpa(m, q, k, v, enable_gqa=True),
           shapes=[((2, 4, 5, 8), (2, 2, 7, 8), (2, 2, 7, 6)), ((1, 6, 3, 4), (1, 1, 3, 4), (1, 3, 3, 4))]),
    OpCase(ops=("scaled_dot_product_attention",), name="sdpa_dropout",
           fn=lambda m, q, k, v: sdpa(m, q, k, v, dropout_p=0.3), shapes=QKV[:3], grad=False, check=_dropout_check),
    # torch's fused kernel has no double backward: its side is written out (the math path).
    OpCase(ops=("scaled_dot_product_attention",), name="sdpa_double_backward",
           fn=lambda m, q, k, v: _grad_of(m, lambda a, b, c: (sdpa if m is flow else _math_sdpa)(
               m, a, b, c, is_causal=True), q, k, v), shapes=QKV[:2], dtypes=("float64",)),
    # torch's own op needs equal head sizes and misreads inputs whose last dim is strided,
    # so those layouts are compared through scaled_dot_product_attention above.
    OpCase(ops=("_scaled_dot_product_flash_attention_for_cpu",),
           fn=lambda m, q, k, v: _flash(m, q, k, v), shapes=FLASH, noncontiguous=False),
    OpCase(ops=("_scaled_dot_product_flash_attention_for_cpu",), name="flash_causal_scale",
           fn=lambda m, q, k, v: _flash(m, q, k, v, 0.0, True, scale=0.5), shapes=FLASH, noncontiguous=False),
    OpCase(ops=("_scaled_dot_product_flash_attention_for_cpu",), name="flash_half",
           fn=lambda m, q, k, v: _flash(m, q, k, v)[0], shapes=FLASH[:1], noncontiguous=False,
           dtypes=("bfloat16",), **HALF_TOL),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_parity(case):
    assert run_case(case) > 0


def test_fully_masked_rows_give_zeros_and_no_nan_gradients():
    q = flow.ones(1, 2, 3, 4, requires_grad=True)
    mask = flow.tensor([[True, True], [False, False], [True, False]])
    out = sdpa(flow, q, flow.ones(1, 2, 2, 4), flow.ones(1, 2, 2, 4), attn_mask=mask)
    assert out[0, :, 1].abs().sum().item() == 0
    out.sum().backward()
    assert np.all(np.isfinite(q.grad.numpy()))


def test_dropout_is_reproducible_with_manual_seed():
    q = flow.tensor(np.random.default_rng(0).standard_normal((2, 3, 5, 4)))
    flow.manual_seed(11)
    a = sdpa(flow, q, q, q, dropout_p=0.5).numpy()
    flow.manual_seed(11)
    b = sdpa(flow, q, q, q, dropout_p=0.5).numpy()
    np.testing.assert_array_equal(a, b)
    assert not np.allclose(a, sdpa(flow, q, q, q).numpy())


def test_rows_masked_in_the_first_key_block_only():
    # The online softmax starts such rows in a later key block.
    rng = np.random.default_rng(1)
    q, k, v = (rng.standard_normal((1, 2, 4, 8)), rng.standard_normal((1, 2, 600, 8)),
               rng.standard_normal((1, 2, 600, 8)))
    mask = rng.random((4, 600)) < 0.5
    mask[0, :530] = False
    mask[1, :] = False
    results = []
    for m in (flow, torch):
        tq = m.tensor(q).requires_grad_()
        out = sdpa(m, tq, m.tensor(k), m.tensor(v), attn_mask=m.tensor(mask))
        out.sum().backward()
        results.append((out.detach().numpy(), tq.grad.numpy()))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-9, atol=1e-9)


def test_long_sequences_match_torch():
    rng = np.random.default_rng(0)
    q, k, v = (rng.standard_normal((1, 2, 1100, 32)).astype(np.float32) for _ in range(3))
    ours = sdpa(flow, flow.tensor(q), flow.tensor(k), flow.tensor(v), is_causal=True).numpy()
    theirs = sdpa(torch, torch.tensor(q), torch.tensor(k), torch.tensor(v), is_causal=True).numpy()
    np.testing.assert_allclose(ours, theirs, rtol=1e-4, atol=1e-5)


def test_errors():
    q = lambda m: m.ones(2, 3, 4, 8)
    k = lambda m: m.ones(2, 3, 5, 8)
    v = lambda m: m.ones(2, 3, 5, 6)
    msg = raises_like_torch(lambda m: sdpa(m, q(m), m.ones(2, 3, 5, 7), v(m)))
    assert "scaled_dot_product_attention" in msg and "[2, 3, 4, 8]" in msg and "[2, 3, 5, 7]" in msg
    msg = raises_like_torch(lambda m: sdpa(m, q(m), k(m), m.ones(2, 3, 6, 6)))
    assert "scaled_dot_product_attention" in msg and "[2, 3, 5, 8]" in msg and "[2, 3, 6, 6]" in msg
    msg = raises_like_torch(lambda m: sdpa(m, q(m), m.ones(3, 3, 5, 8), m.ones(3, 3, 5, 6)))
    assert "scaled_dot_product_attention" in msg and "2" in msg and "3" in msg
    msg = raises_like_torch(lambda m: sdpa(m, q(m), k(m), v(m), attn_mask=m.ones(4, 6, dtype=m.bool)))
    assert "scaled_dot_product_attention" in msg and "[4, 6]" in msg
    msg = raises_like_torch(lambda m: sdpa(m, q(m), k(m), v(m), attn_mask=m.ones(4, 5, dtype=m.int64)))
    assert "scaled_dot_product_attention" in msg and "attn_mask" in msg and "int64" in msg
    msg = raises_like_torch(lambda m: sdpa(m, m.ones(8), m.ones(8), m.ones(8)))
    assert "scaled_dot_product_attention" in msg and "2 dimensional" in msg
    msg = raises_like_torch(lambda m: sdpa(m, q(m), k(m), v(m), attn_mask=m.ones(4, 5, dtype=m.bool), is_causal=True))
    assert "scaled_dot_product_attention" in msg and "is_causal" in msg
    msg = raises_like_torch(lambda m: sdpa(m, q(m), k(m).double(), v(m)))
    assert "scaled_dot_product_attention" in msg and "float64" in msg
    msg = raises_like_torch(lambda m: sdpa(m, m.ones(2, 4, 4, 8), m.ones(2, 2, 5, 8), m.ones(2, 2, 5, 6)))
    assert "scaled_dot_product_attention" in msg and "4" in msg and "2" in msg
