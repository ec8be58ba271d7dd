"""Packed GEMM weights (ops/cpu/matmul_kernels.cc): a float32 B operand multiplied again with no
write in between is packed once into oneDNN's layout and reused; every way of changing the
weight must be seen, so results always equal torch's on the current values."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import torch

import oneflow as flow


def _linear_pair(rng, out_f=96, in_f=80):  # 80 x 96 weights: big enough to be packed
    w = rng.standard_normal((out_f, in_f)).astype(np.float32)
    b = rng.standard_normal(out_f).astype(np.float32)
    return w, b


def _check(x, w, b, theirs_w, theirs_b):
    ours = flow.nn.functional.linear(x, w, b).numpy()
    ref = torch.nn.functional.linear(torch.from_numpy(x.numpy()), theirs_w, theirs_b).numpy()
    np.testing.assert_allclose(ours, ref, rtol=1e-5, atol=1e-4)


def _packs(fn):
    """How many bytes of memory fn's calls leave allocated (a packed copy lives in the cache)."""
    before = flow.cpu.memory_allocated()
    fn()
    return flow.cpu.memory_allocated() - before


def test_repeated_products_pack_once_and_equal_torch():
    rng = np.random.default_rng(0)
    w, b = _linear_pair(rng)
    fw, fb = flow.tensor(w), flow.tensor(b)
    x = flow.tensor(rng.standard_normal((40, 80)).astype(np.float32))
    grown = _packs(lambda: [flow.nn.functional.linear(x, fw, fb) for _ in range(3)])
    assert grown >= w.nbytes  # the packed copy of the weight
    assert _packs(lambda: [flow.nn.functional.linear(x, fw, fb) for _ in range(3)]) == 0  # reused
    _check(x, fw, fb, torch.from_numpy(w), torch.from_numpy(b))
    # Other row counts (the primitive changes, the weight is the same).
    for rows in (40, 300):
        xr = flow.tensor(rng.standard_normal((rows, 80)).astype(np.float32))
        for _ in range(2):
            _check(xr, fw, fb, torch.from_numpy(w), torch.from_numpy(b))


@pytest.mark.parametrize("how", ["add_", "data_mul_", "copy_", "index", "init", "load_state_dict",
                                 "optimizer", "fused_optimizer", "view_write", "set_data"])
def test_every_write_to_the_weight_is_seen(how):
    rng = np.random.default_rng(1)
    layer = flow.nn.Linear(80, 96)
    theirs = torch.nn.Linear(80, 96)
    theirs.load_state_dict({k: torch.from_numpy(v.numpy().copy()) for k, v in layer.state_dict().items()})
    x = flow.tensor(rng.standard_normal((48, 80)).astype(np.float32))
    with flow.no_grad():
        for _ in range(3):  # packed by now
            layer(x)
    new = rng.standard_normal((96, 80)).astype(np.float32)
    with flow.no_grad():
        if how == "add_":
            layer.weight.add_(1.0)
        elif how == "data_mul_":
            layer.weight.data.mul_(2.0)  # Tensor.data has its own version counter
        elif how == "copy_":
            layer.weight.copy_(flow.tensor(new))
        elif how == "index":
            layer.weight[3:7] = 0.5
        elif how == "init":
            flow.nn.init.constant_(layer.weight, 0.25)
        elif how == "load_state_dict":
            layer.load_state_dict({"weight": flow.tensor(new), "bias": layer.bias.detach().clone()})
        elif how == "view_write":
            layer.weight.view(-1)[::7].fill_(-1.0)
        elif how == "set_data":
            layer.weight.data = flow.tensor(new)
    if how in ("optimizer", "fused_optimizer"):
        opt = flow.optim.Adam(layer.parameters(), lr=0.1, foreach=False) if how == "optimizer" else \
            flow.optim.Adam(layer.parameters(), lr=0.1)
        layer(x).sum().backward()
        opt.step()
    with flow.no_grad(), torch.no_grad():
        theirs.weight.copy_(torch.from_numpy(layer.weight.detach().numpy().copy()))
        theirs.bias.copy_(torch.from_numpy(layer.bias.detach().numpy().copy()))
        ours = layer(x).numpy()
    ref = theirs(torch.from_numpy(x.numpy())).detach().numpy()
    np.testing.assert_allclose(ours, ref, rtol=1e-5, atol=1e-4)


def test_memory_shared_with_numpy_is_never_stale():
    rng = np.random.default_rng(2)
    w, b = _linear_pair(rng)
    fw = flow.from_numpy(w)  # shares w's memory
    fb = flow.tensor(b)
    x = flow.tensor(rng.standard_normal((48, 80)).astype(np.float32))
    for _ in range(3):
        flow.nn.functional.linear(x, fw, fb)
    w *= 3.0  # written behind oneflow's back
    _check(x, fw, fb, torch.from_numpy(w), torch.from_numpy(b))
    # A oneflow-owned weight exported after it was packed.
    g = flow.tensor(rng.standard_normal((96, 80)).astype(np.float32))
    for _ in range(3):
        flow.nn.functional.linear(x, g, fb)
    view = g.numpy()
    view[:] = 1.0
    _check(x, g, fb, torch.ones(96, 80), torch.from_numpy(b))
    # Once the view is gone the weight packs again, and what was written through it counts.
    view[:2] = 2.0
    del view
    want = torch.ones(96, 80)
    want[:2] = 2.0
    _check(x, g, fb, want, torch.from_numpy(b))
    assert _packs(lambda: [flow.nn.functional.linear(x, g, fb) for _ in range(3)]) >= 96 * 80 * 4
    _check(x, g, fb, want, torch.from_numpy(b))
    # A copy of the values (numpy().copy(), as state-dict exports do) leaves packing on.
    h = flow.tensor(rng.standard_normal((96, 80)).astype(np.float32))
    saved = h.numpy().copy()
    assert _packs(lambda: [flow.nn.functional.linear(x, h, fb) for _ in range(3)]) >= saved.nbytes
    _check(x, h, fb, torch.from_numpy(saved), torch.from_numpy(b))
    # A raw pointer handed out makes the storage external for good.
    k = flow.tensor(rng.standard_normal((96, 80)).astype(np.float32))
    k.data_ptr()
    assert _packs(lambda: [flow.nn.functional.linear(x, k, fb) for _ in range(3)]) == 0


def test_matmul_and_addmm_with_a_reused_right_operand():
    rng = np.random.default_rng(3)
    bmat = rng.standard_normal((64, 128)).astype(np.float32)
    fb = flow.tensor(bmat)
    for rows in (40, 64):
        a = rng.standard_normal((rows, 64)).astype(np.float32)
        c = rng.standard_normal((rows, 128)).astype(np.float32)
        for _ in range(3):
            np.testing.assert_allclose(flow.matmul(flow.tensor(a), fb).numpy(), a @ bmat, rtol=1e-5, atol=1e-4)
            got = flow.addmm(flow.tensor(c), flow.tensor(a), fb, beta=0.5, alpha=2.0).numpy()
            np.testing.assert_allclose(got, 0.5 * c + 2.0 * (a @ bmat), rtol=1e-5, atol=1e-4)
    # 3-D activations against a 2-D weight fold into one product.
    a3 = rng.standard_normal((3, 17, 64)).astype(np.float32)
    for _ in range(3):
        np.testing.assert_allclose(flow.matmul(flow.tensor(a3), fb).numpy(), a3 @ bmat, rtol=1e-5, atol=1e-4)


def test_bfloat16_products_run_in_bfloat16_and_match_torch():
    rng = np.random.default_rng(4)
    a = rng.standard_normal((37, 96)).astype(np.float32)
    b = rng.standard_normal((96, 50)).astype(np.float32)
    ta, tb = torch.from_numpy(a).bfloat16(), torch.from_numpy(b).bfloat16()
    fa, fb = flow.tensor(a).bfloat16(), flow.tensor(b).bfloat16()
    # float32 accumulation of the bfloat16 values, rounded once: within one bfloat16 ulp of torch.
    ref = (ta.float() @ tb.float()).bfloat16().float().numpy()
    for ours in (flow.mm(fa, fb), flow.matmul(fa, fb.t().contiguous().t()), fa @ fb):
        assert ours.dtype == flow.bfloat16
        np.testing.assert_allclose(ours.float().numpy(), ref, rtol=2 ** -7, atol=1e-2)
    np.testing.assert_allclose(flow.mm(fa, fb).float().numpy(), torch.mm(ta, tb).float().numpy(), rtol=2 ** -7,
                               atol=1e-2)
    # Batched, with bias (addmm/baddbmm) and under autocast (Linear in bfloat16).
    bat = rng.standard_normal((4, 37, 96)).astype(np.float32)
    got = flow.bmm(flow.tensor(bat).bfloat16(), fb.expand(4, 96, 50)).float().numpy()
    want = torch.bmm(torch.from_numpy(bat).bfloat16(), tb.expand(4, 96, 50)).float().numpy()
    np.testing.assert_allclose(got, want, rtol=2 ** -7, atol=2e-2)
    bias = rng.standard_normal(50).astype(np.float32)
    got = flow.addmm(flow.tensor(bias).bfloat16(), fa, fb, beta=0.5).float().numpy()
    want = torch.addmm(torch.from_numpy(bias).bfloat16(), ta, tb, beta=0.5).float().numpy()
    np.testing.assert_allclose(got, want, rtol=2 ** -7, atol=2e-2)
    layer = flow.nn.Linear(96, 50)
    theirs = torch.nn.Linear(96, 50)
    theirs.load_state_dict({k: torch.from_numpy(v.numpy().copy()) for k, v in layer.state_dict().items()})
    x = flow.tensor(a, requires_grad=True)
    tx = torch.from_numpy(a).requires_grad_()
    with flow.autocast("cpu", dtype=flow.bfloat16):
        y = layer(x)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        ty = theirs(tx)
    assert y.dtype == flow.bfloat16
    np.testing.assert_allclose(y.float().detach().numpy(), ty.float().detach().numpy(), rtol=2 ** -7, atol=2e-2)
    y.float().sum().backward()
    ty.float().sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=2 ** -6, atol=5e-2)
    np.testing.assert_allclose(layer.weight.grad.numpy(), theirs.weight.grad.numpy(), rtol=2 ** -6, atol=5e-2)


def test_a_weight_larger_than_the_budget_is_used_once_and_dropped():
    # 1 MiB of budget against a 4 MiB weight: packed for the call, not kept, results right.
    script = textwrap.dedent("""
        import numpy as np, torch, oneflow as flow
        rng = np.random.default_rng(5)
        w = rng.standard_normal((1024, 1024)).astype(np.float32)
        x = rng.standard_normal((64, 1024)).astype(np.float32)
        fw, fx = flow.tensor(w), flow.tensor(x)
        for _ in range(4):
            y = flow.matmul(fx, fw).numpy()
        np.testing.assert_allclose(y, x @ w, rtol=1e-4, atol=1e-3)
        before = flow.cpu.memory_allocated()
        flow.matmul(fx, fw)
        assert flow.cpu.memory_allocated() == before  # nothing stayed cached
        print("ok")
    """)
    env = {**os.environ, "ONEFLOW_PACKED_WEIGHTS_MB": "1"}
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr


@pytest.mark.parametrize("act", ["none", "relu", "gelu"])
def test_fused_linear_with_a_packed_weight_sees_writes(act):
    """fused_linear's epilogue runs on the packed weight too; writes to weight or bias are seen."""
    rng = np.random.default_rng(5)
    w, b = _linear_pair(rng)
    fw, fb = flow.tensor(w), flow.tensor(b)
    x = flow.tensor(rng.standard_normal((48, 80)).astype(np.float32))
    activation = {"none": lambda h: h, "relu": torch.relu, "gelu": torch.nn.functional.gelu}[act]

    def check():
        ours = flow.fused_linear(x, fw, fb, act).numpy()
        ref = activation(torch.nn.functional.linear(torch.from_numpy(x.numpy()), torch.from_numpy(fw.numpy()),
                                                    torch.from_numpy(fb.numpy()))).numpy()
        np.testing.assert_allclose(ours, ref, rtol=1e-5, atol=1e-4)

    # A first look at another weight frees the packed copies of weights that died before.
    flow.fused_linear(x, flow.tensor(w), fb, act)
    assert _packs(lambda: [flow.fused_linear(x, fw, fb, act) for _ in range(3)]) >= w.nbytes
    check()
    fw.mul_(-0.5)
    check()
    fb.add_(1.0)
    check()
    check()  # packed again after the write


def test_packed_copy_of_a_dead_weight_is_freed():
    rng = np.random.default_rng(6)
    w, b = _linear_pair(rng)
    x = flow.tensor(rng.standard_normal((48, 80)).astype(np.float32))
    fb = flow.tensor(b)
    flow.fused_linear(x, flow.tensor(w), fb)  # sweeps earlier tests' dead weights
    fw = flow.tensor(w)
    assert _packs(lambda: [flow.fused_linear(x, fw, fb) for _ in range(3)]) >= w.nbytes  # noqa: F821 (runs before the del)
    before = flow.cpu.memory_allocated()
    del fw  # the packed copy now belongs to no weight
    other = flow.tensor(w)
    flow.fused_linear(x, other, fb)  # a first look at a weight sweeps the dead entries
    assert before - flow.cpu.memory_allocated() >= 2 * w.nbytes - other.numel() * 4


@pytest.mark.parametrize("channels_last", [False, True])
def test_conv_filters_are_packed_and_writes_are_seen(channels_last):
    """A forward convolution's filters keep their reordered copy while unchanged; every write
    (in place, copy_, an optimizer step) is seen on the next call."""
    rng = np.random.default_rng(7)
    w = rng.standard_normal((32, 16, 3, 3)).astype(np.float32)
    b = rng.standard_normal(32).astype(np.float32)
    x = rng.standard_normal((2, 16, 14, 14)).astype(np.float32)
    fx, tx = flow.tensor(x), torch.tensor(x)
    if channels_last:
        fx, tx = fx.to(memory_format=flow.channels_last), tx.to(memory_format=torch.channels_last)
    fw, fb = flow.tensor(w, requires_grad=True), flow.tensor(b)

    def check():
        with flow.no_grad():
            ours = flow.nn.functional.conv2d(fx, fw, fb, padding=1).numpy()
        ref = torch.nn.functional.conv2d(tx, torch.tensor(fw.detach().numpy()), torch.tensor(b), padding=1)
        np.testing.assert_allclose(ours, ref.numpy(), rtol=1e-4, atol=1e-4)

    flow.fused_linear(flow.ones(48, 80), flow.ones(96, 80))  # sweeps earlier tests' dead weights
    with flow.no_grad():
        grown = _packs(lambda: [flow.nn.functional.conv2d(fx, fw, fb, padding=1) for _ in range(3)])
    assert grown >= w.nbytes  # the reordered filters
    check()
    with flow.no_grad():
        fw.mul_(-0.5)
    check()
    with flow.no_grad():
        fw.copy_(flow.tensor(rng.standard_normal(w.shape).astype(np.float32)))
    check()
    opt = flow.optim.SGD([fw], lr=0.5)
    flow.nn.functional.conv2d(fx, fw, fb, padding=1).sum().backward()
    opt.step()
    check()
    check()
