"""Fused multi-tensor optimizer steps (_fused_sgd_ / _fused_adam_ / _fused_adamw_) against
the per-parameter path (foreach=False) and torch, for every option combination."""

import itertools

import numpy as np
import pytest
import torch

import oneflow as flow

SHAPES = [(7, 5), (33,), (3, 4, 5), (), (70000,)]  # the last one spans several threads' chunks
STEPS = 4


def _data(seed=0):
    rng = np.random.default_rng(seed)
    params = [rng.standard_normal(s) for s in SHAPES]
    grads = [[rng.standard_normal(s) for s in SHAPES] for _ in range(STEPS)]
    return params, grads


def _run_flow(cls, kwargs, dtype, fused):
    params, grads = _data()
    ps = [flow.nn.Parameter(flow.tensor(p, dtype=getattr(flow, dtype))) for p in params]
    opt = getattr(flow.optim, cls)(ps, foreach=None if fused else False, **kwargs)
    for step in range(STEPS):
        for p, g in zip(ps, grads[step]):
            p.grad = flow.tensor(g, dtype=getattr(flow, dtype))
        opt.step()
    return ps, opt


def _run_torch(cls, kwargs, dtype):
    params, grads = _data()
    ps = [torch.nn.Parameter(torch.tensor(p, dtype=getattr(torch, dtype))) for p in params]
    opt = getattr(torch.optim, cls)(ps, foreach=False, **kwargs)
    for step in range(STEPS):
        for p, g in zip(ps, grads[step]):
            p.grad = torch.tensor(g, dtype=getattr(torch, dtype))
        opt.step()
    return ps, opt


def _close(a, b, dtype):
    tol = 1e-5 if dtype == "float32" else 1e-11
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=tol, atol=tol)


def _nonempty(state):
    """Per-parameter state without None entries (torch keeps momentum_buffer=None) or empty dicts."""
    out = {i: {k: v for k, v in st.items() if v is not None} for i, st in state.items()}
    return {i: st for i, st in out.items() if st}


def _np(t):
    return t.detach().numpy()


SGD_CASES = [
    {"lr": 0.1, "momentum": m, "dampening": d, "weight_decay": wd, "nesterov": n, "maximize": mx}
    for m, d, wd, n, mx in itertools.product((0.0, 0.9), (0.0, 0.3), (0.0, 0.05), (False, True), (False, True))
    if not (n and (m == 0 or d != 0))
]
ADAM_CASES = [
    {"lr": 0.01, "betas": b, "weight_decay": wd, "amsgrad": a, "maximize": mx}
    for b, wd, a, mx in itertools.product(((0.9, 0.999), (0.3, 0.8)), (0.0, 0.1), (False, True), (False, True))
]
CASES = [("SGD", k) for k in SGD_CASES] + [("Adam", k) for k in ADAM_CASES] + [("AdamW", k) for k in ADAM_CASES]
IDS = [f"{c}-" + "-".join(f"{k}={v}" for k, v in kw.items() if k != "lr") for c, kw in CASES]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_fused_matches_unfused_and_torch(case, dtype):
    cls, kwargs = case
    fused, fopt = _run_flow(cls, kwargs, dtype, fused=True)
    plain, popt = _run_flow(cls, kwargs, dtype, fused=False)
    ref, topt = _run_torch(cls, kwargs, dtype)
    for f, p, t in zip(fused, plain, ref):
        _close(_np(f), _np(p), dtype)
        _close(_np(f), _np(t), dtype)
    # The state is the per-parameter path's: same keys, same values, same step counts.
    fs, ps, ts = (_nonempty(o.state_dict()["state"]) for o in (fopt, popt, topt))
    assert fs.keys() == ps.keys() == ts.keys()
    for i in fs:
        assert fs[i].keys() == ps[i].keys(), i
        assert fs[i].keys() == ts[i].keys(), i
        for k in fs[i]:
            _close(_np(fs[i][k]), _np(ps[i][k]), dtype)
            _close(_np(fs[i][k]), ts[i][k].numpy(), dtype)
            assert fs[i][k].dtype == ps[i][k].dtype
    if cls != "SGD":
        assert all(float(fs[i]["step"]) == STEPS for i in fs)


def test_fused_kernel_is_used_and_bumps_versions(monkeypatch):
    """The default path calls the fused op and parameters' version counters advance."""
    calls = []
    real = flow._C.ops._fused_adamw_

    def spy(*a, **k):
        calls.append(1)
        return real(*a, **k)

    monkeypatch.setattr(flow._C.ops, "_fused_adamw_", spy)
    p = flow.nn.Parameter(flow.ones(10))
    opt = flow.optim.AdamW([p], lr=0.1)
    before = p._version
    p.grad = flow.ones(10)
    opt.step()
    assert calls == [1]
    assert p._version > before


def test_fused_false_and_foreach_false_use_the_per_parameter_path(monkeypatch):
    p = flow.nn.Parameter(flow.ones(4))

    def boom(*a, **k):
        raise AssertionError("fused op called")

    for kwargs in ({"foreach": False}, {"fused": False}):
        for cls in ("SGD", "Adam", "AdamW"):
            opt = getattr(flow.optim, cls)([p], lr=0.1, **kwargs)
            assert opt.param_groups[0]["fused"] is kwargs.get("fused")
            p.grad = flow.ones(4)
            with monkeypatch.context() as m:
                m.setattr(flow._C.ops, "_fused_sgd_", boom, raising=False)
                m.setattr(flow._C.ops, "_fused_adam_", boom, raising=False)
                m.setattr(flow._C.ops, "_fused_adamw_", boom, raising=False)
                opt.step()


def test_checkpoints_interchange_between_paths():
    """A state saved by the fused path continues identically on the per-parameter path."""
    params, grads = _data()
    a = [flow.nn.Parameter(flow.tensor(p, dtype=flow.float32)) for p in params]
    b = [flow.nn.Parameter(flow.tensor(p, dtype=flow.float32)) for p in params]
    fused = flow.optim.Adam(a, lr=0.01, amsgrad=True)
    for g_list in grads[:2]:
        for p, g in zip(a, g_list):
            p.grad = flow.tensor(g, dtype=flow.float32)
        fused.step()
    plain = flow.optim.Adam(b, lr=0.01, amsgrad=True, foreach=False)
    for p, q in zip(a, b):
        q.data = p.detach().clone()
    saved = fused.state_dict()
    saved["state"] = {i: {k: v.clone() for k, v in st.items()} for i, st in saved["state"].items()}
    plain.load_state_dict(saved)
    for g_list in grads[2:]:
        for p, q, g in zip(a, b, g_list):
            p.grad = flow.tensor(g, dtype=flow.float32)
            q.grad = flow.tensor(g, dtype=flow.float32)
        fused.step()
        plain.step()
    for p, q in zip(a, b):
        _close(_np(p), _np(q), "float32")
    assert float(plain.state_dict()["state"][0]["step"]) == STEPS


def test_mixed_dtypes_fall_back():
    p32 = flow.nn.Parameter(flow.ones(3))
    p64 = flow.nn.Parameter(flow.ones(3, dtype=flow.float64))
    opt = flow.optim.Adam([p32, p64], lr=0.1)
    p32.grad = flow.ones(3)
    p64.grad = flow.ones(3, dtype=flow.float64)
    opt.step()
    np.testing.assert_allclose(_np(p32), np.full(3, 0.9), rtol=1e-5)
    np.testing.assert_allclose(_np(p64), np.full(3, 0.9), rtol=1e-7)


def test_bad_lists_raise():
    p = flow.ones(3)
    with pytest.raises(RuntimeError, match="_fused_sgd_"):
        flow._C.ops._fused_sgd_(
            [p],
            [flow.ones(4)],
            [],
            weight_decay=0.0,
            momentum=0.0,
            lr=0.1,
            dampening=0.0,
            nesterov=False,
            maximize=False,
            is_first_step=False,
        )
    with pytest.raises(RuntimeError, match="exp_avgs"):
        flow._C.ops._fused_adam_(
            [p],
            [flow.ones(3)],
            [],
            [flow.zeros(3)],
            [],
            [flow.tensor(1.0)],
            lr=0.1,
            beta1=0.9,
            beta2=0.99,
            weight_decay=0.0,
            eps=1e-8,
            amsgrad=False,
            maximize=False,
        )


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_half_params(dtype):
    """16-bit parameters compute in float and stay close to the per-parameter path (in
    float16 that path's eps=1e-8 underflows to 0 where v does: compare finite entries)."""
    params, grads = _data()
    out = []
    for fused in (True, False):
        ps = [flow.nn.Parameter(flow.tensor(p, dtype=getattr(flow, dtype))) for p in params]
        opt = flow.optim.AdamW(ps, lr=0.01, foreach=None if fused else False)
        for g_list in grads:
            for p, g in zip(ps, g_list):
                p.grad = flow.tensor(g, dtype=getattr(flow, dtype))
            opt.step()
        out.append([p.float().detach().numpy() for p in ps])
    for a, b in zip(*out):
        assert np.isfinite(a).all()
        ok = np.isfinite(b)
        np.testing.assert_allclose(a[ok], b[ok], rtol=2e-2, atol=2e-2)
