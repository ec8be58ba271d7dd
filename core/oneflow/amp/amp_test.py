"""oneflow.autocast and oneflow.amp.GradScaler, against PyTorch's CPU autocast and GradScaler."""

import math
import pickle
import threading
import warnings

import numpy as np
import pytest
import torch

import oneflow as flow


def data(m, *shape, seed=0, positive=False):
    """The same float32 values as a oneflow or torch tensor."""
    values = np.random.RandomState(seed).randn(*shape).astype(np.float32)
    if positive:
        values = np.abs(values) + 0.1
    return m.tensor(values)


def probs(m, *shape, seed=1):
    values = np.random.RandomState(seed).rand(*shape).astype(np.float32)
    return m.tensor(values / values.sum(-1, keepdims=True))


def name_of(dtype):
    return str(dtype).rsplit(".", 1)[-1]


# Each case builds its inputs with `lead` as the dtype of the first floating argument
# (the others stay float32), so both "float32 in" and "bfloat16 mixed with float32 in" are seen.
CASES = {
    "mm": lambda m, d: m.mm(data(m, 3, 4).to(d), data(m, 4, 2, seed=1)),
    "matmul": lambda m, d: m.matmul(data(m, 2, 3, 4).to(d), data(m, 4, 2, seed=1)),
    "bmm": lambda m, d: m.bmm(data(m, 2, 3, 4).to(d), data(m, 2, 4, 2, seed=1)),
    "addmm": lambda m, d: m.addmm(data(m, 3, 2).to(d), data(m, 3, 4, seed=1), data(m, 4, 2, seed=2)),
    "baddbmm": lambda m, d: m.baddbmm(data(m, 2, 3, 2).to(d), data(m, 2, 3, 4, seed=1), data(m, 2, 4, 2, seed=2)),
    "linear": lambda m, d: m.nn.functional.linear(data(m, 5, 4).to(d), data(m, 3, 4, seed=1), data(m, 3, seed=2)),
    "conv1d": lambda m, d: m.nn.functional.conv1d(data(m, 1, 2, 6).to(d), data(m, 3, 2, 3, seed=1)),
    "conv2d": lambda m, d: m.nn.functional.conv2d(data(m, 1, 2, 5, 5).to(d), data(m, 3, 2, 3, 3, seed=1), padding=1),
    "conv_transpose2d": lambda m, d: m.nn.functional.conv_transpose2d(
        data(m, 1, 2, 4, 4).to(d), data(m, 2, 3, 3, 3, seed=1)
    ),
    "sdpa": lambda m, d: m.nn.functional.scaled_dot_product_attention(
        data(m, 1, 2, 4, 8).to(d), data(m, 1, 2, 4, 8, seed=1), data(m, 1, 2, 4, 8, seed=2)
    ),
    "prelu": lambda m, d: m.nn.functional.prelu(data(m, 2, 3).to(d), data(m, 1, seed=1)),
    "softmax": lambda m, d: m.nn.functional.softmax(data(m, 3, 4).to(d), dim=-1),
    "log_softmax": lambda m, d: m.nn.functional.log_softmax(data(m, 3, 4).to(d), dim=-1),
    "cross_entropy": lambda m, d: m.nn.functional.cross_entropy(data(m, 3, 4).to(d), m.tensor([0, 3, 1])),
    "cross_entropy_probs": lambda m, d: m.nn.functional.cross_entropy(data(m, 3, 4).to(d), probs(m, 3, 4)),
    "nll_loss": lambda m, d: m.nn.functional.nll_loss(data(m, 3, 4).to(d), m.tensor([0, 3, 1])),
    "mse_loss": lambda m, d: m.nn.functional.mse_loss(data(m, 3, 4).to(d), data(m, 3, 4, seed=1)),
    "l1_loss": lambda m, d: m.nn.functional.l1_loss(data(m, 3, 4).to(d), data(m, 3, 4, seed=1)),
    "kl_div": lambda m, d: m.nn.functional.kl_div(data(m, 3, 4).to(d), probs(m, 3, 4), reduction="batchmean"),
    "bce_with_logits": lambda m, d: m.nn.functional.binary_cross_entropy_with_logits(
        data(m, 3, 4).to(d), probs(m, 3, 4)
    ),
    "layer_norm": lambda m, d: m.nn.functional.layer_norm(data(m, 3, 4).to(d), (4,)),
    "exp": lambda m, d: m.exp(data(m, 5).to(d)),
    "log": lambda m, d: m.log(data(m, 5, positive=True).to(d)),
    "pow": lambda m, d: m.pow(data(m, 5).to(d), 2),
    "cumsum": lambda m, d: m.cumsum(data(m, 5).to(d), 0),
    "sum": lambda m, d: m.sum(data(m, 5).to(d)),
    "prod": lambda m, d: m.prod(data(m, 5).to(d)),
    "add": lambda m, d: m.add(data(m, 5).to(d), data(m, 5, seed=1)),
    "mul_number": lambda m, d: data(m, 5).to(d) * 2.5,
    "cat": lambda m, d: m.cat([data(m, 5).to(d), data(m, 3, seed=1)]),
    "cat_int": lambda m, d: m.cat([m.tensor([1, 2]), data(m, 3).to(d)]),
    "stack": lambda m, d: m.stack([data(m, 5).to(d), data(m, 5, seed=1)]),
    "index_copy": lambda m, d: m.index_copy(data(m, 4).to(d), 0, m.tensor([1]), data(m, 1, seed=1)),
    "reflection_pad": lambda m, d: m.nn.functional.pad(data(m, 1, 1, 4, 4).to(d), (1, 1, 1, 1), mode="reflect"),
    "circular_pad": lambda m, d: m.nn.functional.pad(data(m, 1, 1, 4, 4).to(d), (1, 1, 1, 1), mode="circular"),
    "max_pool2d": lambda m, d: m.nn.functional.max_pool2d(data(m, 1, 1, 4, 4).to(d), 2),
    "avg_pool3d": lambda m, d: m.nn.functional.avg_pool3d(data(m, 1, 1, 4, 4, 4).to(d), 2),
    "gelu": lambda m, d: m.nn.functional.gelu(data(m, 5).to(d)),
    "inverse": lambda m, d: m.inverse(data(m, 3, 3).to(d) + 3 * m.eye(3)),
    "int_mm": lambda m, d: m.mm(m.tensor([[1, 2], [3, 4]]), m.tensor([[1, 0], [0, 1]])),
    "linear_module": lambda m, d: _seeded(m, lambda: m.nn.Linear(4, 3))(data(m, 2, 4).to(d)),
    "conv_module": lambda m, d: _seeded(m, lambda: m.nn.Conv2d(2, 3, 3))(data(m, 1, 2, 5, 5).to(d)),
}


def _seeded(m, make):
    m.manual_seed(0)
    return make()


def run_case(m, name, lead):
    autocast = flow.autocast("cpu", dtype=flow.bfloat16) if m is flow else torch.autocast("cpu", dtype=torch.bfloat16)
    lead_dtype = getattr(m, lead)
    try:
        with autocast:
            out = CASES[name](m, lead_dtype)
    except Exception as e:
        return type(e).__name__
    return name_of(out.dtype)


@pytest.mark.parametrize("lead", ["float32", "bfloat16", "float64"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_result_dtype_matches_torch(name, lead):
    ours = run_case(flow, name, lead)
    theirs = run_case(torch, name, lead)
    assert ours == theirs, f"{name} with a {lead} input: oneflow gives {ours}, torch gives {theirs}"


def test_lower_precision_ops_compute_in_bfloat16():
    # The result is the op applied to the inputs rounded to bfloat16.
    a, b = data(flow, 8, 16), data(flow, 16, 4, seed=1)
    with flow.autocast("cpu"):
        out = flow.mm(a, b)
    expected = flow.mm(a.to(flow.bfloat16), b.to(flow.bfloat16))
    assert out.dtype == flow.bfloat16
    np.testing.assert_array_equal(out.float().numpy(), expected.float().numpy())
    ta, tb = data(torch, 8, 16), data(torch, 16, 4, seed=1)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        theirs = torch.mm(ta, tb)
    np.testing.assert_allclose(out.float().numpy(), theirs.float().numpy(), rtol=1e-2, atol=1e-2)


def test_float16_autocast_dtype():
    with flow.autocast("cpu", dtype=flow.float16):
        assert flow.get_autocast_dtype("cpu") == flow.float16
        assert flow.mm(data(flow, 2, 2), data(flow, 2, 2)).dtype == flow.float16
        assert flow.nn.functional.mse_loss(data(flow, 2).half(), data(flow, 2)).dtype == flow.float32
    assert flow.get_autocast_dtype("cpu") == flow.bfloat16


def training_step(m):
    """A linear layer and a loss under CPU autocast; returns the loss and the leaves' grads."""
    w = data(m, 3, 4, seed=3).requires_grad_()
    b = data(m, 3, seed=4).requires_grad_()
    x = data(m, 5, 4)
    target = data(m, 5, 3, seed=5)
    ac = flow.autocast("cpu") if m is flow else torch.autocast("cpu", dtype=torch.bfloat16)
    with ac:
        y = m.nn.functional.linear(x, w, b)
        h = m.relu(y)
        loss = m.nn.functional.mse_loss(h, target)
    loss.backward()
    return y, loss, w.grad, b.grad


def test_gradients_reach_float32_leaves_in_float32():
    y, loss, gw, gb = training_step(flow)
    ty, tloss, tgw, tgb = training_step(torch)
    assert (name_of(y.dtype), name_of(loss.dtype)) == (name_of(ty.dtype), name_of(tloss.dtype))
    assert gw.dtype == flow.float32 and gb.dtype == flow.float32
    assert tgw.dtype == torch.float32
    np.testing.assert_allclose(loss.item(), tloss.item(), rtol=1e-2)
    np.testing.assert_allclose(gw.numpy(), tgw.numpy(), rtol=3e-2, atol=3e-2)
    np.testing.assert_allclose(gb.numpy(), tgb.numpy(), rtol=3e-2, atol=3e-2)


def test_ops_called_from_python_composites_follow_autocast():
    # MultiheadAttention is Python code calling linear, bmm/sdpa and softmax.
    flow.manual_seed(0)
    mha = flow.nn.MultiheadAttention(8, 2, batch_first=True)
    x = data(flow, 2, 3, 8)
    with flow.autocast("cpu"):
        out, _ = mha(x, x, x)
    assert out.dtype == flow.bfloat16
    out.float().sum().backward()
    assert mha.in_proj_weight.grad.dtype == flow.float32


def test_nesting_enabled_false_and_restore():
    a, b = data(flow, 2, 2), data(flow, 2, 2, seed=1)
    assert not flow.is_autocast_enabled("cpu")
    with flow.autocast("cpu"):
        assert flow.is_autocast_enabled("cpu")
        assert flow.mm(a, b).dtype == flow.bfloat16
        with flow.autocast("cpu", enabled=False):
            assert not flow.is_autocast_enabled("cpu")
            assert flow.mm(a, b).dtype == flow.float32
            with flow.autocast("cpu", dtype=flow.float16):
                assert flow.mm(a, b).dtype == flow.float16
            assert flow.mm(a, b).dtype == flow.float32
        assert flow.mm(a, b).dtype == flow.bfloat16
        assert flow.get_autocast_dtype("cpu") == flow.bfloat16
    assert not flow.is_autocast_enabled("cpu")
    assert flow.mm(a, b).dtype == flow.float32
    # The state comes back when the region raises, too.
    with pytest.raises(ValueError):
        with flow.autocast("cpu", dtype=flow.float16):
            raise ValueError("boom")
    assert not flow.is_autocast_enabled("cpu") and flow.get_autocast_dtype("cpu") == flow.bfloat16
    # The same nesting in torch gives the same answers.
    ta, tb = data(torch, 2, 2), data(torch, 2, 2, seed=1)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        with torch.autocast("cpu", enabled=False):
            assert torch.mm(ta, tb).dtype == torch.float32
        assert torch.mm(ta, tb).dtype == torch.bfloat16


def test_query_functions_match_torch():
    # Without a device type the answer is about CUDA, in both.
    with flow.autocast("cpu"), torch.autocast("cpu"):
        assert flow.is_autocast_enabled() == torch.is_autocast_enabled() is False
        assert flow.is_autocast_enabled("cpu") == torch.is_autocast_enabled("cpu") is True
        assert flow.amp.is_autocast_cpu_enabled()
        assert name_of(flow.get_autocast_dtype("cpu")) == name_of(torch.get_autocast_dtype("cpu"))
        assert name_of(flow.get_autocast_cpu_dtype()) == "bfloat16"
    assert name_of(flow.get_autocast_dtype("cuda")) == name_of(torch.get_autocast_dtype("cuda")) == "float16"
    assert flow.is_autocast_cache_enabled() == torch.is_autocast_cache_enabled() is True
    assert flow.amp.autocast is flow.autocast


def test_cuda_region_is_recorded_without_cuda():
    a = data(flow, 2, 2)
    with flow.autocast("cuda"):
        assert flow.is_autocast_enabled() and flow.is_autocast_enabled("cuda")
        assert not flow.is_autocast_enabled("cpu")
        assert flow.get_autocast_dtype("cuda") == flow.float16
        # CPU tensors are not affected by a CUDA region.
        assert flow.mm(a, a).dtype == flow.float32
    assert not flow.is_autocast_enabled("cuda")


def test_decorator():
    @flow.autocast("cpu")
    def f(a, b):
        return flow.mm(a, b), flow.is_autocast_enabled("cpu")

    @flow.autocast("cpu")
    def depth(n, a):
        # The same decorated function entered recursively.
        return flow.mm(a, a).dtype if n == 0 else depth(n - 1, a)

    a = data(flow, 2, 2)
    out, enabled = f(a, a)
    assert out.dtype == flow.bfloat16 and enabled
    assert not flow.is_autocast_enabled("cpu")
    assert depth(3, a) == flow.bfloat16 and not flow.is_autocast_enabled("cpu")
    assert f.__name__ == "f"
    with pytest.raises(TypeError):
        flow.autocast("cpu")(3)


def test_bad_arguments():
    with pytest.raises(RuntimeError):
        flow.autocast("xpu2")
    with pytest.raises(RuntimeError):
        torch.autocast("xpu2")
    with pytest.raises(ValueError):
        flow.autocast(flow.device("cpu"))
    with pytest.raises(ValueError):
        torch.autocast(torch.device("cpu"))
    # An unsupported dtype warns and disables autocast, as in torch.
    for m in (flow, torch):
        with pytest.warns(UserWarning):
            region = m.autocast("cpu", dtype=m.float32)
        with region:
            assert not m.is_autocast_enabled("cpu")


def test_float64_and_integer_tensors_are_not_cast():
    with flow.autocast("cpu"):
        assert flow.mm(data(flow, 2, 2).double(), data(flow, 2, 2).double()).dtype == flow.float64
        assert flow.nn.functional.mse_loss(data(flow, 3).double(), data(flow, 3).double()).dtype == flow.float64
        assert flow.cat([flow.tensor([1]), flow.tensor([2])]).dtype == flow.int64


def test_weight_cast_cache():
    w = data(flow, 3, 3).requires_grad_()
    x = data(flow, 3, 3, seed=1)

    def cast_nodes(region):
        with region:
            y1, y2 = flow.mm(x, w), flow.mm(x, w)
        return y1.grad_fn.next_functions[1][0], y2.grad_fn.next_functions[1][0]

    n1, n2 = cast_nodes(flow.autocast("cpu"))
    assert n1 is n2 and n1.name() == "ToDtypeBackward0"  # one cast of the weight per region
    n3, _ = cast_nodes(flow.autocast("cpu"))
    assert n3 is not n1  # the cache is dropped when the outermost region exits
    n4, n5 = cast_nodes(flow.autocast("cpu", cache_enabled=False))
    assert n4 is not n5
    # torch caches the same way.
    tw = data(torch, 3, 3).requires_grad_()
    tx = data(torch, 3, 3, seed=1)
    with torch.autocast("cpu"):
        t1, t2 = torch.mm(tx, tw), torch.mm(tx, tw)
    assert t1.grad_fn.next_functions[1][0] is t2.grad_fn.next_functions[1][0]
    # Gradients through the shared cast add up.
    with flow.autocast("cpu"):
        (flow.mm(x, w).float().sum() + flow.mm(x, w).float().sum()).backward()
    with torch.autocast("cpu"):
        (torch.mm(tx, tw).float().sum() + torch.mm(tx, tw).float().sum()).backward()
    np.testing.assert_allclose(w.grad.numpy(), tw.grad.numpy(), rtol=2e-2, atol=2e-2)


def test_state_is_per_thread():
    seen = {}

    def worker():
        seen["enabled"] = flow.is_autocast_enabled("cpu")
        seen["dtype"] = flow.mm(data(flow, 2, 2), data(flow, 2, 2)).dtype

    with flow.autocast("cpu"):
        thread = threading.Thread(target=worker)
        thread.start()
        thread.join()
    assert seen == {"enabled": False, "dtype": flow.float32}


def test_policy_tables_come_from_the_declarations():
    # The table is read off each op's .Autocast(...) (no list of names of its own).
    for device in ("cpu", "cuda"):
        table = dict(flow._C._autocast_table(device))
        assert table, device
        assert set(table.values()) <= {"lower_precision_fp", "fp32", "promote", "banned"}
        for text in flow._C._op_schemas():
            info = flow._C.op_info(text.split("(", 1)[0])
            assert table.get(info["name"], "none") == info["autocast"][device], info["full_name"]
    assert flow._C._autocast_policy("mm", "cpu") == "lower_precision_fp"
    assert flow._C._autocast_policy("softmax", "cpu") == "none"
    assert flow._C._autocast_policy("softmax", "cuda") == "fp32"
    assert flow._C._autocast_policy("cat", "cpu") == "promote"
    assert flow._C._autocast_policy("binary_cross_entropy", "cuda") == "banned"


# --------------------------------------------------------------------------------------------
# GradScaler
# --------------------------------------------------------------------------------------------


class TinySGD:
    """A stand-in optimizer: anything with param_groups and step() works with GradScaler."""

    def __init__(self, params, lr):
        self.param_groups = [{"params": list(params), "lr": lr}]
        self.steps = 0

    def step(self):
        self.steps += 1
        with flow.no_grad():
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is not None:
                        p.add_(p.grad, alpha=-group["lr"])
        return "stepped"

    def zero_grad(self):
        for group in self.param_groups:
            for p in group["params"]:
                p.grad = None


def counting_steps(opt):
    """Wraps opt.step to count its calls: torch's SGD.step returns None whether or not the
    scaler skipped it, so the count (not the return value) tells a skipped step."""
    opt.calls = 0
    inner = opt.step

    def step(*args, **kwargs):
        opt.calls += 1
        return inner(*args, **kwargs)

    opt.step = step
    return opt


# Gradient multipliers for successive iterations: finite, +inf, NaN, -inf.
SEQUENCE = [1.0, math.inf, 2.0, 3.0, math.nan, 1.0, 1.0, 1.0, -math.inf, 1.0, 0.5, 1.0, 1.0]


def scripted_run(m, optimizer_factory, **scaler_kwargs):
    """Trains two parameters with scaled losses over SEQUENCE; records everything visible."""
    p1 = m.nn.Parameter(m.tensor([1.0, -2.0, 0.5]))
    p2 = m.nn.Parameter(m.tensor([[0.25, 4.0]]))
    opt = counting_steps(optimizer_factory([p1, p2]))
    scaler = m.amp.GradScaler("cpu", **scaler_kwargs)
    rows = []
    for v in SEQUENCE:
        opt.zero_grad()
        loss = (p1 * v).sum() + (p2 * p2).sum() * 0.5
        scaled = scaler.scale(loss)
        scaled.backward()
        scaler.unscale_(opt)
        grads = (p1.grad.numpy().copy(), p2.grad.numpy().copy())
        found = sum(t.item() for t in scaler._found_inf_per_device(opt).values())
        calls = opt.calls
        scaler.step(opt)
        scale_before = scaler.get_scale()
        scaler.update()
        rows.append(
            {
                "scaled": scaled.item(),
                "grads": grads,
                "found_inf": found,
                "stepped": opt.calls > calls,
                "scale_before": scale_before,
                "scale": scaler.get_scale(),
                "tracker": scaler._get_growth_tracker(),
                "params": (p1.detach().numpy().copy(), p2.detach().numpy().copy()),
            }
        )
    return rows, scaler


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"init_scale": 3.0e4, "growth_factor": 1.1, "backoff_factor": 0.3, "growth_interval": 2},
        {"init_scale": 1.0, "growth_factor": 4.0, "backoff_factor": 0.25, "growth_interval": 1},
        {"init_scale": 3.0e38, "growth_factor": 2.0, "growth_interval": 1},  # growth would overflow
    ],
)
def test_grad_scaler_sequence_matches_torch(kwargs):
    ours, _ = scripted_run(flow, lambda ps: TinySGD(ps, 0.1), **kwargs)
    theirs, _ = scripted_run(torch, lambda ps: torch.optim.SGD(ps, lr=0.1), **kwargs)
    for i, (a, b) in enumerate(zip(ours, theirs)):
        where = f"iteration {i} (gradient multiplier {SEQUENCE[i]})"
        for key in ("found_inf", "stepped", "scale_before", "scale", "tracker"):
            assert a[key] == b[key], f"{key} differs at {where}: {a[key]} vs {b[key]}"
        # Parameters updated by two SGD implementations may differ in the last float32 bit.
        np.testing.assert_allclose(a["scaled"], b["scaled"], rtol=1e-6, err_msg=where)
        for ga, gb in zip(a["grads"], b["grads"]):
            np.testing.assert_allclose(ga, gb, rtol=1e-6, atol=1e-7, err_msg=where)
        for pa, pb in zip(a["params"], b["params"]):
            np.testing.assert_allclose(pa, pb, rtol=1e-6, atol=1e-7, err_msg=where)


def test_skipped_steps_leave_params_and_count():
    rows, _ = scripted_run(flow, lambda ps: TinySGD(ps, 0.1))
    skipped = [not r["stepped"] for r in rows]
    assert skipped == [not math.isfinite(v) for v in SEQUENCE]
    for i, r in enumerate(rows):
        if skipped[i]:
            assert r["found_inf"] == 1.0
            prev = rows[i - 1]["params"] if i else None
            if prev is not None:
                np.testing.assert_array_equal(r["params"][0], prev[0])


def test_step_and_unscale_misuse_matches_torch():
    def errors(m, factory):
        p = m.nn.Parameter(m.tensor([1.0, 2.0]))
        opt = factory([p])
        scaler = m.amp.GradScaler("cpu")
        out = []
        try:
            scaler.step(opt)
        except Exception as e:
            out.append(type(e).__name__)
        scaler.scale(p.sum()).backward()
        scaler.unscale_(opt)
        for call in (lambda: scaler.unscale_(opt), lambda: scaler.step(opt), lambda: scaler.step(opt),
                     lambda: scaler.unscale_(opt)):
            try:
                call()
                out.append(None)
            except Exception as e:
                out.append((type(e).__name__, str(e)))
        scaler.update()
        try:
            scaler.step(opt, closure=lambda: 0)
        except Exception as e:
            out.append((type(e).__name__, str(e)))
        return out

    ours = errors(flow, lambda ps: TinySGD(ps, 0.1))
    theirs = errors(torch, lambda ps: torch.optim.SGD(ps, lr=0.1))
    assert ours == theirs


def test_float16_gradients_are_refused():
    p = flow.nn.Parameter(flow.tensor([1.0, 2.0]).half())
    opt = TinySGD([p], 0.1)
    scaler = flow.amp.GradScaler()
    scaler.scale(p.float().sum()).backward()
    assert p.grad.dtype == flow.float16
    with pytest.raises(ValueError, match="FP16"):
        scaler.step(opt)


def test_scale_structures_and_disabled_scaler():
    scaler = flow.amp.GradScaler(init_scale=8.0)
    a, b = flow.tensor([1.0]), flow.tensor([2.0, 3.0])
    out = scaler.scale([a, (b, a)])
    assert isinstance(out, list) and isinstance(out[1], tuple)
    assert out[0].tolist() == [8.0] and out[1][0].tolist() == [16.0, 24.0]
    assert scaler.scale(b.to(flow.bfloat16)).dtype == flow.bfloat16
    with pytest.raises(ValueError):
        scaler.scale(3.0)

    off = flow.amp.GradScaler(enabled=False)
    assert off.scale(a) is a and off.get_scale() == 1.0 and off.state_dict() == {}
    p = flow.nn.Parameter(flow.tensor([1.0]))
    opt = TinySGD([p], 1.0)
    p.grad = flow.tensor([math.inf])
    assert off.step(opt) == "stepped"  # no inf check when disabled
    off.update()
    off.load_state_dict({})
    assert not off.is_enabled()


def test_cuda_scaler_without_cuda_is_disabled():
    with pytest.warns(UserWarning):
        scaler = flow.amp.GradScaler("cuda")
    assert not scaler.is_enabled()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert not torch.amp.GradScaler("cuda").is_enabled()


def test_state_dict_round_trip_matches_torch():
    ours, scaler = scripted_run(flow, lambda ps: TinySGD(ps, 0.1), growth_interval=3)
    theirs, tscaler = scripted_run(torch, lambda ps: torch.optim.SGD(ps, lr=0.1), growth_interval=3)
    assert scaler.state_dict() == tscaler.state_dict()
    fresh = flow.amp.GradScaler()
    fresh.load_state_dict(scaler.state_dict())
    assert fresh.state_dict() == scaler.state_dict()
    assert fresh.get_scale() == scaler.get_scale()
    with pytest.raises(RuntimeError, match="empty"):
        fresh.load_state_dict({})
    # Accessors and setters.
    fresh.set_growth_factor(3.0)
    fresh.set_backoff_factor(0.25)
    fresh.set_growth_interval(7)
    assert (fresh.get_growth_factor(), fresh.get_backoff_factor(), fresh.get_growth_interval()) == (3.0, 0.25, 7)
    # Pickling keeps the numbers (between iterations).
    clone = pickle.loads(pickle.dumps(scaler))
    assert clone.state_dict() == scaler.state_dict()
    # The scaler's state dict saves and loads with oneflow.save / oneflow.load.
    import io

    buf = io.BytesIO()
    flow.save({"scaler": scaler.state_dict()}, buf)
    buf.seek(0)
    assert flow.load(buf, weights_only=True)["scaler"] == scaler.state_dict()


def test_update_with_new_scale():
    for m in (flow, torch):
        p = m.nn.Parameter(m.tensor([1.0]))
        scaler = m.amp.GradScaler("cpu", init_scale=4.0)
        scaler.scale(p.sum())
        scaler.update(2.0)
        assert scaler.get_scale() == 2.0
        scaler.update(m.tensor(16.0))
        assert scaler.get_scale() == 16.0
        with pytest.raises(AssertionError):
            scaler.update(m.tensor([1.0, 2.0]))


def test_found_inf_in_one_optimizer_backs_off_once():
    def run(m, factory):
        p, q = m.nn.Parameter(m.tensor([1.0])), m.nn.Parameter(m.tensor([1.0]))
        o1, o2 = counting_steps(factory([p])), counting_steps(factory([q]))
        scaler = m.amp.GradScaler("cpu", init_scale=64.0, growth_interval=1)
        scaler.scale((p * math.inf).sum() + q.sum()).backward()
        scaler.step(o1)
        scaler.step(o2)
        scaler.update()
        return o1.calls, o2.calls, scaler.get_scale(), q.detach().numpy().tolist()

    ours = run(flow, lambda ps: flow.optim.SGD(ps, lr=0.5))
    assert ours == run(torch, lambda ps: torch.optim.SGD(ps, lr=0.5))
    assert ours[:2] == (0, 1)  # the first optimizer skipped, the second stepped
