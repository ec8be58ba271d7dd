"""The eager API on a GPU: ops on CUDA tensors against torch (the oracle, on the CPU in float64
where precision matters), autograd across devices, training parity with our own CPU run, the
caching allocator, and errors. Every test skips without a GPU (tests tagged "gpu")."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import oneflow as flow
import oneflow.nn as nn
import oneflow.nn.functional as F

pytestmark = pytest.mark.skipif(
    not flow.cuda.is_available(), reason="needs a GPU (a --config=cuda build and a visible CUDA device)"
)

DEV = "cuda"
TOL = {flow.float32: 2e-5, flow.float64: 1e-12, flow.float16: 2e-3, flow.bfloat16: 2e-2}
TORCH_DTYPE = {
    flow.float32: torch.float32,
    flow.float64: torch.float64,
    flow.float16: torch.float16,
    flow.bfloat16: torch.bfloat16,
}


def rand(*shape, low=-2.0, high=2.0, seed=0):
    return np.random.default_rng(seed).uniform(low, high, shape)


def on_cuda(a, dtype=flow.float32, requires_grad=False):
    t = flow.tensor(a, dtype=dtype).to(DEV)
    return t.requires_grad_() if requires_grad else t


def close(ours, ref, tol, what=""):
    got = (
        ours.detach().cpu().float().numpy()
        if ours.dtype in (flow.float16, flow.bfloat16)
        else ours.detach().cpu().numpy()
    )
    want = ref.detach().float().numpy() if ref.dtype in (torch.float16, torch.bfloat16) else ref.detach().numpy()
    assert got.shape == want.shape, (what, got.shape, want.shape)
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol, err_msg=what)


# ---- the device and copies --------------------------------------------------------


def test_device_basics_and_copies():
    assert flow.cuda.device_count() >= 1
    assert flow.cuda.current_device() == 0
    a = rand(3, 4)
    x = flow.tensor(a).cuda()
    assert x.is_cuda and x.device == flow.device("cuda:0") and str(x.device) == "cuda:0"
    np.testing.assert_array_equal(x.cpu().numpy(), a)
    np.testing.assert_array_equal(x.numpy(), a)  # OneFlow: numpy() copies a device tensor
    assert x[1, 2].item() == a[1, 2]
    assert "cuda:0" in repr(x)
    # Strided sources and destinations, casts on either side.
    y = flow.tensor(a).t().to("cuda:0")
    np.testing.assert_array_equal(y.cpu().numpy(), a.T)
    z = x.t().contiguous().to(flow.float16)
    np.testing.assert_allclose(z.cpu().float().numpy(), a.T, rtol=1e-3, atol=1e-3)
    w = flow.zeros(4, 3, device=DEV)
    w.copy_(flow.tensor(a.T))  # host -> device into an existing float32 tensor (a cast)
    np.testing.assert_array_equal(w.cpu().numpy(), a.T.astype(np.float32))
    # Creation ops on the device.
    np.testing.assert_array_equal(flow.arange(10, device=DEV).cpu().numpy(), np.arange(10))
    np.testing.assert_allclose(flow.linspace(0, 1, 7, device=DEV).cpu().numpy(), np.linspace(0, 1, 7), atol=1e-7)
    np.testing.assert_array_equal(flow.full((2, 3), 7, device=DEV).cpu().numpy(), np.full((2, 3), 7))
    np.testing.assert_array_equal(flow.eye(3, device=DEV).cpu().numpy(), np.eye(3))


def test_gradients_cross_devices():
    a = flow.tensor(rand(5), requires_grad=True)  # a CPU leaf
    y = (a.cuda() * 3).sum()
    y.backward()
    assert a.grad.device == flow.device("cpu")
    np.testing.assert_allclose(a.grad.numpy(), np.full(5, 3.0))


# ---- elementwise --------------------------------------------------------------------

UNARY = {
    "exp": (-3, 3),
    "expm1": (-2, 2),
    "log": (0.1, 5),
    "log1p": (-0.5, 3),
    "sqrt": (0.1, 5),
    "rsqrt": (0.1, 5),
    "sin": (-3, 3),
    "cos": (-3, 3),
    "tanh": (-3, 3),
    "sigmoid": (-5, 5),
    "abs": (-3, 3),
    "neg": (-3, 3),
    "relu": (-3, 3),
    "floor": (-3, 3),
    "ceil": (-3, 3),
    "erf": (-2, 2),
    "reciprocal": (0.5, 3),
    "atan": (-3, 3),
    "square": (-3, 3),
    "sign": (-3, 3),
}


@pytest.mark.parametrize("name", sorted(UNARY))
@pytest.mark.parametrize("dtype", [flow.float32, flow.float64, flow.float16, flow.bfloat16])
def test_unary(name, dtype):
    lo, hi = UNARY[name]
    a = rand(7, 33, low=lo, high=hi)
    ours = getattr(flow, name)(on_cuda(a, dtype))
    ref = getattr(torch, name)(torch.tensor(a, dtype=TORCH_DTYPE[dtype]).double()).to(TORCH_DTYPE[dtype])
    close(ours, ref, 4 * TOL[dtype], name)


@pytest.mark.parametrize(
    "name", ["add", "sub", "mul", "div", "maximum", "minimum", "pow", "atan2", "eq", "lt", "ge", "logical_and"]
)
def test_binary_broadcast(name):
    a, b = rand(4, 1, 5, low=0.5), rand(3, 1, low=0.5, seed=1)
    ours = getattr(flow, name)(on_cuda(a), on_cuda(b))
    ref = getattr(torch, name)(torch.tensor(a, dtype=torch.float32), torch.tensor(b, dtype=torch.float32))
    close(ours, ref, 1e-5, name)


def test_scalars_and_cpu_scalar_tensors():
    a = rand(6, 5)
    x = on_cuda(a)
    close(x * 2.5 + 1, torch.tensor(a, dtype=torch.float32) * 2.5 + 1, 1e-6)
    close(x * flow.tensor(3.0), torch.tensor(a, dtype=torch.float32) * 3, 1e-6)  # 0-d CPU tensor
    close(flow.tensor(3.0) * x, torch.tensor(a, dtype=torch.float32) * 3, 1e-6)
    close(flow.add(x, x, alpha=2), torch.tensor(a, dtype=torch.float32) * 3, 1e-6)
    close(x.clamp(-0.5, 0.7), torch.tensor(a, dtype=torch.float32).clamp(-0.5, 0.7), 0)
    close(x.clamp(max=0.2), torch.tensor(a, dtype=torch.float32).clamp(max=0.2), 0)
    lo, hi = on_cuda(rand(6, 1, low=-1, high=0)), on_cuda(rand(5, low=0, high=1, seed=2))
    close(
        flow.clamp(x, lo, hi),
        torch.tensor(a, dtype=torch.float32).clamp(torch.tensor(lo.cpu().numpy()), torch.tensor(hi.cpu().numpy())),
        0,
    )
    cond = x > 0
    close(flow.where(cond, x, flow.zeros_like(x)), torch.tensor(a, dtype=torch.float32).clamp(min=0), 0)
    i = flow.tensor([[1, 2], [3, 4]], device=DEV)
    np.testing.assert_array_equal((i * 3 + 1).cpu().numpy(), np.array([[4, 7], [10, 13]]))
    np.testing.assert_array_equal((i // 2).cpu().numpy(), np.array([[0, 1], [1, 2]]))


@pytest.mark.parametrize(
    "name",
    ["relu", "gelu", "silu", "tanh", "sigmoid", "leaky_relu", "elu", "hardswish", "softplus", "mish", "hardtanh"],
)
def test_activation_forward_backward(name):
    a = rand(8, 16, low=-4, high=4)
    x = on_cuda(a, flow.float64, requires_grad=True)
    tx = torch.tensor(a, requires_grad=True)
    fn = getattr(F, name)
    tfn = getattr(torch.nn.functional, name)
    y, ty = fn(x), tfn(tx)
    close(y, ty, 1e-10, name)
    g = rand(8, 16, seed=3)
    y.backward(flow.tensor(g).cuda())
    ty.backward(torch.tensor(g))
    close(x.grad, tx.grad, 1e-10, name + " grad")


def test_gelu_tanh():
    a = rand(5, 9, low=-4, high=4)
    x = on_cuda(a, flow.float64, requires_grad=True)
    tx = torch.tensor(a, requires_grad=True)
    y, ty = F.gelu(x, approximate="tanh"), torch.nn.functional.gelu(tx, approximate="tanh")
    close(y, ty, 1e-10)
    y.sum().backward()
    ty.sum().backward()
    close(x.grad, tx.grad, 1e-10)


# ---- reductions ---------------------------------------------------------------------------


@pytest.mark.parametrize("dim,keepdim", [(None, False), (0, False), (1, True), ((0, 2), False), (-1, False)])
def test_reductions(dim, keepdim):
    a = rand(4, 5, 300)
    x, t = on_cuda(a, flow.float64), torch.tensor(a)
    if dim is None:
        close(x.sum(), t.sum(), 1e-10)
        close(x.mean(), t.mean(), 1e-12)
        close(x.amax(), t.amax(), 0)
        close(x.norm(), t.norm(), 1e-12)
        return
    close(x.sum(dim, keepdim=keepdim), t.sum(dim, keepdim=keepdim), 1e-10)
    close(x.mean(dim, keepdim=keepdim), t.mean(dim, keepdim=keepdim), 1e-12)
    close(x.amax(dim, keepdim=keepdim), t.amax(dim, keepdim=keepdim), 0)
    close(x.amin(dim, keepdim=keepdim), t.amin(dim, keepdim=keepdim), 0)
    close(x.norm(dim=dim, keepdim=keepdim), t.norm(dim=dim, keepdim=keepdim), 1e-12)


def test_column_sums_over_many_rows():
    # Sums over leading dims (bias gradients) take the column path: rows in parallel chunks.
    a = rand(1000, 3, 70)
    for dtype, tol in [(flow.float32, 1e-4), (flow.bfloat16, 5e-2)]:
        x = on_cuda(a, dtype)
        t = torch.tensor(a, dtype=TORCH_DTYPE[dtype]).double()
        close(x.sum(0).float(), t.sum(0).float(), tol * 30)
        close(x.sum((0, 1)).float(), t.sum((0, 1)).float(), tol * 60)
        close(x.mean(0).float(), t.mean(0).float(), tol)


def test_integer_and_bool_reductions():
    a = np.random.default_rng(0).integers(-5, 5, (6, 7))
    x = flow.tensor(a).cuda()
    assert x.sum().dtype == flow.int64 and x.sum().item() == a.sum()
    np.testing.assert_array_equal(x.sum(1).cpu().numpy(), a.sum(1))
    assert bool((x > 4).any().item()) is bool((a > 4).any())
    assert bool((x > -6).all().item()) is True


# ---- matrix products ---------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [flow.float32, flow.float64, flow.float16, flow.bfloat16])
def test_matmul_family(dtype):
    tol = {flow.float32: 1e-4, flow.float64: 1e-10, flow.float16: 2e-2, flow.bfloat16: 1e-1}[dtype]
    td = TORCH_DTYPE[dtype]
    a, b = rand(37, 19), rand(19, 23, seed=1)
    ref = torch.tensor(a) @ torch.tensor(b)
    close(flow.mm(on_cuda(a, dtype), on_cuda(b, dtype)).float(), ref.float(), tol, "mm")
    # Transposed operands are read in place.
    close(flow.mm(on_cuda(a.T.copy(), dtype).t(), on_cuda(b.T.copy(), dtype).t()).float(), ref.float(), tol)
    ba, bb = rand(3, 8, 5), rand(3, 5, 6, seed=2)
    close(
        flow.bmm(on_cuda(ba, dtype), on_cuda(bb, dtype)).float(),
        (torch.tensor(ba) @ torch.tensor(bb)).float(),
        tol,
        "bmm",
    )
    # matmul broadcasting and 1-d operands.
    m1, m2 = rand(2, 1, 4, 5), rand(3, 5, 2, seed=4)
    close(
        flow.matmul(on_cuda(m1, dtype), on_cuda(m2, dtype)).float(),
        torch.matmul(torch.tensor(m1), torch.tensor(m2)).float(),
        tol,
        "matmul",
    )
    v = rand(5, seed=5)
    close(
        flow.matmul(on_cuda(m1, dtype), on_cuda(v, dtype)).float(),
        torch.matmul(torch.tensor(m1), torch.tensor(v)).float(),
        tol,
        "matmul vec",
    )
    bias = rand(23, seed=6)
    close(
        flow.addmm(on_cuda(bias, dtype), on_cuda(a, dtype), on_cuda(b, dtype), beta=0.5, alpha=2).float(),
        torch.addmm(torch.tensor(bias), torch.tensor(a), torch.tensor(b), beta=0.5, alpha=2).float(),
        tol,
    )
    assert td is not None


def test_linear_backward():
    lin = nn.Linear(7, 3).double()
    tlin = torch.nn.Linear(7, 3).double()
    tlin.load_state_dict({k: torch.tensor(v.numpy()) for k, v in lin.state_dict().items()})
    lin = lin.cuda()
    a = rand(5, 7)
    x = on_cuda(a, flow.float64, requires_grad=True)
    tx = torch.tensor(a, requires_grad=True)
    (lin(x) ** 2).sum().backward()
    (tlin(tx) ** 2).sum().backward()
    close(x.grad, tx.grad, 1e-10)
    close(lin.weight.grad, tlin.weight.grad, 1e-10)
    close(lin.bias.grad, tlin.bias.grad, 1e-10)


# ---- softmax, layer norm, embedding, cross entropy -----------------------------------------------


@pytest.mark.parametrize("dim", [-1, 0, 1])
@pytest.mark.parametrize("log", [False, True])
def test_softmax(dim, log):
    a = rand(6, 130, 3)
    x = on_cuda(a, flow.float64, requires_grad=True)
    tx = torch.tensor(a, requires_grad=True)
    fn, tfn = (F.log_softmax, torch.log_softmax) if log else (F.softmax, torch.softmax)
    y, ty = fn(x, dim=dim), tfn(tx, dim=dim)
    close(y, ty, 1e-12)
    g = rand(6, 130, 3, seed=9)
    y.backward(flow.tensor(g).cuda())
    ty.backward(torch.tensor(g))
    close(x.grad, tx.grad, 1e-12)


def test_layer_norm():
    a = rand(4, 6, 96)
    ln = nn.LayerNorm(96).double()
    with flow.no_grad():
        ln.weight.copy_(flow.tensor(rand(96, seed=2)))
        ln.bias.copy_(flow.tensor(rand(96, seed=3)))
    tln = torch.nn.LayerNorm(96).double()
    tln.load_state_dict({k: torch.tensor(v.numpy()) for k, v in ln.state_dict().items()})
    ln = ln.cuda()
    x = on_cuda(a, flow.float64, requires_grad=True)
    tx = torch.tensor(a, requires_grad=True)
    y, ty = ln(x), tln(tx)
    close(y, ty, 1e-10)
    g = rand(4, 6, 96, seed=5)
    y.backward(flow.tensor(g).cuda())
    ty.backward(torch.tensor(g))
    close(x.grad, tx.grad, 1e-10)
    close(ln.weight.grad, tln.weight.grad, 1e-10)
    close(ln.bias.grad, tln.bias.grad, 1e-10)


def test_layer_norm_many_rows():
    a = rand(1500, 64)
    ln = nn.LayerNorm(64)
    tln = torch.nn.LayerNorm(64)
    tln.load_state_dict({k: torch.tensor(v.numpy()) for k, v in ln.state_dict().items()})
    ln = ln.cuda()
    x = on_cuda(a, requires_grad=True)
    tx = torch.tensor(a, dtype=torch.float32, requires_grad=True)
    g = rand(1500, 64, seed=8)
    ln(x).backward(flow.tensor(g, dtype=flow.float32).cuda())
    tln(tx).backward(torch.tensor(g, dtype=torch.float32))
    close(x.grad, tx.grad, 1e-4)
    close(ln.weight.grad, tln.weight.grad, 2e-3)
    close(ln.bias.grad, tln.bias.grad, 2e-3)


def test_embedding():
    w = rand(10, 4)
    idx = np.array([[1, 3, 3], [0, 9, 1]])
    e = nn.Embedding(10, 4, padding_idx=0).double()
    with flow.no_grad():
        e.weight.copy_(flow.tensor(w))
    te = torch.nn.Embedding(10, 4, padding_idx=0).double()
    te.weight.data = torch.tensor(w)
    e = e.cuda()
    y, ty = e(flow.tensor(idx).cuda()), te(torch.tensor(idx))
    close(y, ty, 0)
    g = rand(2, 3, 4, seed=1)
    y.backward(flow.tensor(g).cuda())
    ty.backward(torch.tensor(g))
    close(e.weight.grad, te.weight.grad, 1e-6)  # accumulated in float32
    with pytest.raises(IndexError, match="out of range"):
        e(flow.tensor([[10]]).cuda())


@pytest.mark.parametrize(
    "kw",
    [{}, {"reduction": "sum"}, {"reduction": "none"}, {"ignore_index": 2}, {"label_smoothing": 0.1}, {"weight": True}],
)
def test_cross_entropy(kw):
    kw = dict(kw)
    a = rand(9, 7)
    t = np.array([0, 2, 6, 1, 2, 3, 4, 5, 2])
    w = rand(7, low=0.1, high=2, seed=4)
    ours_kw, torch_kw = dict(kw), dict(kw)
    if kw.get("weight"):
        ours_kw["weight"], torch_kw["weight"] = flow.tensor(w).cuda(), torch.tensor(w)
    x = on_cuda(a, flow.float64, requires_grad=True)
    tx = torch.tensor(a, requires_grad=True)
    y = F.cross_entropy(x, flow.tensor(t).cuda(), **ours_kw)
    ty = torch.nn.functional.cross_entropy(tx, torch.tensor(t), **torch_kw)
    close(y, ty, 1e-6)  # per-row losses are accumulated in float32
    y.sum().backward()
    ty.sum().backward()
    close(x.grad, tx.grad, 1e-6)


# ---- convolution, batch norm, pooling -------------------------------------------------------


@pytest.mark.parametrize(
    "kw", [{}, {"stride": 2, "padding": 1}, {"dilation": 2, "padding": 2}, {"groups": 2, "padding": 1}]
)
def test_conv2d(kw):
    a, w, b = rand(2, 4, 9, 11), rand(6, 4 // kw.get("groups", 1), 3, 3, seed=1), rand(6, seed=2)
    x = on_cuda(a, flow.float64, requires_grad=True)
    fw, fb = on_cuda(w, flow.float64, requires_grad=True), on_cuda(b, flow.float64, requires_grad=True)
    tx, tw, tb = (torch.tensor(v, requires_grad=True) for v in (a, w, b))
    y, ty = F.conv2d(x, fw, fb, **kw), torch.nn.functional.conv2d(tx, tw, tb, **kw)
    close(y, ty, 1e-10)
    g = rand(*ty.shape, seed=3)
    y.backward(flow.tensor(g).cuda())
    ty.backward(torch.tensor(g))
    close(x.grad, tx.grad, 1e-10)
    close(fw.grad, tw.grad, 1e-10)
    close(fb.grad, tb.grad, 1e-10)


def test_conv1d_and_float32():
    a, w = rand(3, 2, 20), rand(5, 2, 4, seed=1)
    close(
        F.conv1d(on_cuda(a, flow.float64), on_cuda(w, flow.float64), stride=2),
        torch.nn.functional.conv1d(torch.tensor(a), torch.tensor(w), stride=2),
        1e-10,
    )
    a2, w2 = rand(2, 8, 16, 16), rand(16, 8, 3, 3, seed=4)
    close(
        F.conv2d(on_cuda(a2), on_cuda(w2), padding=1),
        torch.nn.functional.conv2d(torch.tensor(a2), torch.tensor(w2), padding=1),
        2e-4,
    )


@pytest.mark.parametrize("training", [True, False])
def test_batch_norm(training):
    a = rand(4, 3, 5, 6)
    bn, tbn = nn.BatchNorm2d(3).double(), torch.nn.BatchNorm2d(3).double()
    with flow.no_grad():
        bn.weight.copy_(flow.tensor(rand(3, seed=1)))
        bn.bias.copy_(flow.tensor(rand(3, seed=2)))
        bn.running_mean.copy_(flow.tensor(rand(3, seed=3)))
        bn.running_var.copy_(flow.tensor(rand(3, low=0.5, high=2, seed=4)))
    tbn.load_state_dict({k: torch.tensor(v.numpy()) for k, v in bn.state_dict().items()})
    bn = bn.cuda()
    bn.train(training)
    tbn.train(training)
    x = on_cuda(a, flow.float64, requires_grad=True)
    tx = torch.tensor(a, requires_grad=True)
    y, ty = bn(x), tbn(tx)
    close(y, ty, 1e-10)
    g = rand(4, 3, 5, 6, seed=5)
    y.backward(flow.tensor(g).cuda())
    ty.backward(torch.tensor(g))
    close(x.grad, tx.grad, 1e-10)
    close(bn.weight.grad, tbn.weight.grad, 1e-10)
    close(bn.bias.grad, tbn.bias.grad, 1e-10)
    close(bn.running_mean, tbn.running_mean, 1e-12)
    close(bn.running_var, tbn.running_var, 1e-12)


def test_batch_norm_float32_large_batch():
    # Batches split into chunks for the per-channel sums; statistics in float32 against float64.
    a = rand(40, 5, 7, 3)
    bn, tbn = nn.BatchNorm2d(5), torch.nn.BatchNorm2d(5).double()
    tbn.load_state_dict(
        {
            k: torch.tensor(v.numpy()).double() if v.dtype == flow.float32 else torch.tensor(v.numpy())
            for k, v in bn.state_dict().items()
        }
    )
    bn = bn.cuda()
    x = on_cuda(a, requires_grad=True)
    tx = torch.tensor(a, requires_grad=True)
    y, ty = bn(x), tbn(tx)
    close(y, ty, 1e-5)
    g = rand(40, 5, 7, 3, seed=6)
    y.backward(flow.tensor(g, dtype=flow.float32).cuda())
    ty.backward(torch.tensor(g))
    close(x.grad, tx.grad, 1e-5)
    close(bn.weight.grad, tbn.weight.grad, 1e-3)
    close(bn.running_var, tbn.running_var, 1e-6)


def test_pooling():
    a = rand(2, 3, 9, 10)
    x = on_cuda(a, flow.float64, requires_grad=True)
    tx = torch.tensor(a, requires_grad=True)
    y, ty = F.max_pool2d(x, 3, stride=2, padding=1), torch.nn.functional.max_pool2d(tx, 3, stride=2, padding=1)
    close(y, ty, 0)
    z, tz = F.adaptive_avg_pool2d(x, (4, 3)), torch.nn.functional.adaptive_avg_pool2d(tx, (4, 3))
    close(z, tz, 1e-12)
    (y.sum() + (z * 2).sum()).backward()
    (ty.sum() + (tz * 2).sum()).backward()
    close(x.grad, tx.grad, 1e-6)  # scattered in float32


def test_cnn_training_matches_cpu():
    def make():
        return nn.Sequential(
            nn.Conv2d(3, 8, 3, padding=1),
            nn.BatchNorm2d(8),
            nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(8, 8, 3, padding=1, bias=False),
            nn.BatchNorm2d(8),
            nn.ReLU(),
            nn.AdaptiveAvgPool2d(1),
            nn.Flatten(),
            nn.Linear(8, 5),
        ).double()

    def run(model, device):
        model = model.to(device)
        opt = flow.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        rng = np.random.default_rng(0)
        losses = []
        for _ in range(4):
            x = flow.tensor(rng.standard_normal((6, 3, 12, 12))).to(device)
            t = flow.tensor(rng.integers(0, 5, 6)).to(device)
            loss = F.cross_entropy(model(x), t)
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
        return losses, {k: v.detach().cpu().numpy() for k, v in model.state_dict().items()}

    cpu = make()
    gpu = make()
    gpu.load_state_dict(cpu.state_dict())
    cpu_losses, cpu_state = run(cpu, "cpu")
    gpu_losses, gpu_state = run(gpu, DEV)
    np.testing.assert_allclose(gpu_losses, cpu_losses, rtol=1e-9)
    for k in cpu_state:
        np.testing.assert_allclose(gpu_state[k], cpu_state[k], rtol=1e-7, atol=1e-9, err_msg=k)


# ---- random ---------------------------------------------------------------------------------------


def test_random_streams():
    flow.manual_seed(7)
    a = flow.rand(100000, device=DEV)
    flow.manual_seed(7)
    b = flow.rand(100000, device=DEV)
    np.testing.assert_array_equal(a.cpu().numpy(), b.cpu().numpy())
    u = a.cpu().numpy()
    assert u.min() >= 0 and u.max() < 1 and abs(u.mean() - 0.5) < 0.01
    n = flow.randn(200000, device=DEV).cpu().numpy()
    assert abs(n.mean()) < 0.01 and abs(n.std() - 1) < 0.01
    x = flow.ones(100000, device=DEV, requires_grad=True)
    y = F.dropout(x, p=0.3, training=True)
    kept = (y.detach().cpu().numpy() != 0).mean()
    assert abs(kept - 0.7) < 0.01
    np.testing.assert_allclose(y.detach().cpu().numpy()[y.detach().cpu().numpy() != 0], 1 / 0.7, rtol=1e-6)
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.cpu().numpy() != 0, y.detach().cpu().numpy() != 0)


# ---- training parity: CUDA against our own CPU run --------------------------------------------------


class TinyGPT(nn.Module):
    def __init__(self, vocab=50, d=32, heads=4, seq=12):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.pos = nn.Parameter(flow.randn(seq, d) * 0.02)
        self.ln1 = nn.LayerNorm(d)
        self.attn = nn.MultiheadAttention(d, heads, batch_first=True)
        self.ln2 = nn.LayerNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))
        self.head = nn.Linear(d, vocab)

    def forward(self, idx):
        x = self.emb(idx) + self.pos
        h = self.ln1(x)
        a, _ = self.attn(h, h, h, need_weights=False)
        x = x + a
        x = x + self.mlp(self.ln2(x))
        return self.head(x)


def train(model, device, steps=5):
    model = model.to(device)
    opt = flow.optim.AdamW(model.parameters(), lr=1e-2, weight_decay=0.1)
    rng = np.random.default_rng(0)
    losses = []
    for _ in range(steps):
        idx = flow.tensor(rng.integers(0, 50, (4, 12))).to(device)
        logits = model(idx)
        loss = F.cross_entropy(logits.reshape(-1, 50), idx.reshape(-1))
        opt.zero_grad()
        loss.backward()
        flow.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        losses.append(loss.item())
    return losses, {k: v.detach().cpu().numpy() for k, v in model.state_dict().items()}


def test_training_matches_cpu():
    flow.manual_seed(0)
    cpu_model = TinyGPT().double()
    gpu_model = TinyGPT().double()
    gpu_model.load_state_dict(cpu_model.state_dict())
    cpu_losses, cpu_state = train(cpu_model, "cpu")
    gpu_losses, gpu_state = train(gpu_model, DEV)
    np.testing.assert_allclose(gpu_losses, cpu_losses, rtol=1e-8)
    for k in cpu_state:
        np.testing.assert_allclose(gpu_state[k], cpu_state[k], rtol=1e-6, atol=1e-8, err_msg=k)
    assert gpu_losses[-1] < gpu_losses[0]


# ---- the allocator and errors ---------------------------------------------------------------------


def test_memory_stats():
    flow.cuda.synchronize()
    before = flow.cuda.memory_allocated()
    x = flow.empty(1 << 20, device=DEV)  # 4 MiB
    assert flow.cuda.memory_allocated() - before >= 4 << 20
    assert flow.cuda.max_memory_allocated() >= flow.cuda.memory_allocated()
    del x
    assert flow.cuda.memory_allocated() == before
    reserved = flow.cuda.memory_reserved()
    y = flow.empty(1 << 20, device=DEV)  # served from the cache
    assert flow.cuda.memory_reserved() == reserved
    del y
    flow.cuda.empty_cache()
    assert flow.cuda.memory_reserved() < reserved


def test_errors():
    x = flow.ones(3, device=DEV)
    with pytest.raises(RuntimeError, match="same device"):
        x + flow.ones(3)
    with pytest.raises(RuntimeError, match="out of memory"):
        flow.empty(1 << 50, device=DEV)
    assert (x + 1).sum().item() == 6  # still working after the failed allocation
    with pytest.raises(RuntimeError, match="cuda:7|invalid device"):
        flow.ones(2, device="cuda:7")
