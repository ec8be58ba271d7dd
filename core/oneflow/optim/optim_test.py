"""oneflow.optim against torch.optim: trajectories, state dicts, hooks and bad input.

Each trajectory test trains the same small problem (linear regression plus a
quartic penalty, so the Hessian changes along the way) in both frameworks from
the same weights and compares the parameters after 30 steps. LAMB, which
PyTorch lacks, is checked against a NumPy transcription of its definition.
"""

import copy
import warnings

import numpy as np
import pytest
import torch

import oneflow as flow

STEPS = 30
DTYPES = {
    "float32": (flow.float32, torch.float32, 1e-5),
    "float64": (flow.float64, torch.float64, 1e-6),
}


def _data(seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    return {
        "w": rng.standard_normal((4, 3)) * 0.5,
        "b": rng.standard_normal(3) * 0.5,
        "x": rng.standard_normal((8, 4)),
        "y": rng.standard_normal((8, 3)),
    }


def _loss(m, params, x, y, sign: float = 1.0):
    w, b = params
    r = m.matmul(x, w) + b - y
    return ((r * r).mean() + 0.1 * (w**4).sum()) * sign


def _make_params(m, data, dtype, factory=None):
    params = [
        m.tensor(data["w"], dtype=dtype, requires_grad=True),
        m.tensor(data["b"], dtype=dtype, requires_grad=True),
    ]
    if factory is not None:
        params = [factory(p.detach()) for p in params]
    return params


def _group_spec(params, groups: bool):
    if not groups:
        return params
    return [{"params": [params[0]]}, {"params": [params[1]], "lr": 0.02}]


def _train(m, opt, params, data, dtype, steps, sign=1.0):
    x = m.tensor(data["x"], dtype=dtype)
    y = m.tensor(data["y"], dtype=dtype)
    for _ in range(steps):
        opt.zero_grad()
        _loss(m, params, x, y, sign).backward()
        opt.step()


def _np(t) -> np.ndarray:
    return t if isinstance(t, np.ndarray) else t.detach().numpy()


def _assert_params_close(ours, theirs, tol):
    for a, b in zip(ours, theirs):
        a, b = _np(a), _np(b)
        # Relative to the parameter's scale: single entries may pass near zero.
        scale = max(1.0, float(np.abs(b).max()))
        np.testing.assert_allclose(a, b, rtol=tol, atol=tol * scale)


CASES = [
    ("SGD", {"lr": 0.05}),
    ("SGD", {"lr": 0.05, "momentum": 0.9}),
    ("SGD", {"lr": 0.05, "momentum": 0.9, "nesterov": True, "weight_decay": 0.01}),
    ("SGD", {"lr": 0.05, "momentum": 0.5, "dampening": 0.3, "weight_decay": 0.1}),
    ("SGD", {"lr": 0.05, "momentum": 0.9, "maximize": True}),
    ("Adam", {"lr": 0.05}),
    ("Adam", {"lr": 0.05, "amsgrad": True, "weight_decay": 0.1}),
    ("Adam", {"lr": 0.05, "betas": (0.8, 0.95), "eps": 1e-6, "maximize": True}),
    ("Adam", {"lr": 0.05, "weight_decay": 0.1, "decoupled_weight_decay": True}),
    ("AdamW", {"lr": 0.05}),
    ("AdamW", {"lr": 0.05, "amsgrad": True, "weight_decay": 0.5}),
    ("AdamW", {"lr": 0.05, "maximize": True, "betas": (0.5, 0.9)}),
    ("RMSprop", {"lr": 0.01}),
    ("RMSprop", {"lr": 0.01, "centered": True, "momentum": 0.9}),
    ("RMSprop", {"lr": 0.01, "alpha": 0.9, "eps": 1e-6, "weight_decay": 0.1, "momentum": 0.5}),
    ("RMSprop", {"lr": 0.01, "centered": True, "maximize": True}),
    ("Adagrad", {"lr": 0.1}),
    ("Adagrad", {"lr": 0.1, "lr_decay": 0.01, "initial_accumulator_value": 0.1, "weight_decay": 0.1}),
    ("Adagrad", {"lr": 0.1, "eps": 1e-6, "maximize": True}),
    ("Adadelta", {}),
    ("Adadelta", {"lr": 0.5, "rho": 0.5, "eps": 1e-4, "weight_decay": 0.1}),
    ("Adadelta", {"maximize": True}),
    ("Adamax", {"lr": 0.05}),
    ("Adamax", {"lr": 0.05, "betas": (0.8, 0.9), "weight_decay": 0.1}),
    ("Adamax", {"lr": 0.05, "maximize": True}),
    ("NAdam", {"lr": 0.05}),
    ("NAdam", {"lr": 0.05, "momentum_decay": 0.01, "weight_decay": 0.1}),
    ("NAdam", {"lr": 0.05, "weight_decay": 0.1, "decoupled_weight_decay": True}),
    ("NAdam", {"lr": 0.05, "maximize": True}),
]


# Defaults where OneFlow's optimizers differ from PyTorch's (README: "Where oneflow follows
# OneFlow"); torch gets them explicitly so that both run the same optimizer.
ONEFLOW_DEFAULTS = {"AdamW": {"weight_decay": 0.0}, "RMSprop": {"lr": 1e-3}, "Adagrad": {"lr": 1e-3}}


def _torch_kwargs(name: str, kwargs: dict) -> dict:
    return {**ONEFLOW_DEFAULTS.get(name, {}), **kwargs}


def test_defaults_are_oneflows():
    import inspect

    for name, defaults in ONEFLOW_DEFAULTS.items():
        signature = inspect.signature(getattr(flow.optim, name))
        for key, value in defaults.items():
            assert signature.parameters[key].default == value, (name, key)
            assert inspect.signature(getattr(torch.optim, name)).parameters[key].default != value, (name, key)


def _case_id(case) -> str:
    name, kwargs = case
    return name + "-" + ",".join(f"{k}={v}" for k, v in kwargs.items())


@pytest.mark.parametrize("groups", [False, True], ids=["one_group", "two_groups"])
@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("case", CASES, ids=[_case_id(c) for c in CASES])
def test_trajectory_matches_torch(case, dtype, groups):
    name, kwargs = case
    fdt, tdt, tol = DTYPES[dtype]
    sign = -1.0 if kwargs.get("maximize") else 1.0
    data = _data()
    ours = _make_params(flow, data, fdt)
    theirs = _make_params(torch, data, tdt)
    opt = getattr(flow.optim, name)(_group_spec(ours, groups), **kwargs)
    ref = getattr(torch.optim, name)(_group_spec(theirs, groups), **_torch_kwargs(name, kwargs))
    ids_before = [id(p) for p in ours]
    _train(flow, opt, ours, data, fdt, STEPS, sign)
    _train(torch, ref, theirs, data, tdt, STEPS, sign)
    assert [id(p) for p in ours] == ids_before
    assert all(p.dtype == fdt and p.is_leaf and p.requires_grad for p in ours)
    _assert_params_close(ours, theirs, tol)
    # The state too, entry by entry (scalars such as step / mu_product included).
    for p, q in zip(ours, theirs):
        s, t = opt.state[p], ref.state[q]
        assert set(s) == set(t)
        for key in t:
            if isinstance(t[key], torch.Tensor):
                a, b = _np(s[key]), _np(t[key])
                scale = max(1.0, float(np.abs(b).max()))
                np.testing.assert_allclose(a, b, rtol=tol, atol=tol * scale, err_msg=key)


def _parameter_factories():
    factories = [("leaf_tensor", None)]
    parameter = getattr(flow.nn, "Parameter", None)
    if parameter is not None:
        factories.append(("nn.Parameter", parameter))
    return factories


@pytest.mark.parametrize("factory", _parameter_factories(), ids=lambda f: f[0])
@pytest.mark.parametrize("name", ["SGD", "Adam", "RMSprop"])
def test_parameter_kinds(name, factory):
    data = _data(1)
    ours = _make_params(flow, data, flow.float64, factory[1])
    kinds = [type(p) for p in ours]
    theirs = _make_params(torch, data, torch.float64)
    opt = getattr(flow.optim, name)(ours, lr=0.01)
    _train(flow, opt, ours, data, flow.float64, 10)
    _train(
        torch, getattr(torch.optim, name)(theirs, **_torch_kwargs(name, {"lr": 0.01})), theirs, data, torch.float64, 10
    )
    assert [type(p) for p in ours] == kinds
    _assert_params_close(ours, theirs, 1e-6)


def test_params_keep_storage():
    data = _data()
    ours = _make_params(flow, data, flow.float32)
    ptrs = [p.data_ptr() for p in ours]
    opt = flow.optim.Adam(ours, lr=0.1, amsgrad=True)
    _train(flow, opt, ours, data, flow.float32, 1)
    state_ptrs = [[t.data_ptr() for t in opt.state[p].values()] for p in ours]
    _train(flow, opt, ours, data, flow.float32, 3)
    assert [p.data_ptr() for p in ours] == ptrs
    # The state is updated in place too.
    assert [[t.data_ptr() for t in opt.state[p].values()] for p in ours] == state_ptrs


def test_add_param_group_later_matches_torch():
    data = _data(2)
    results = []
    for m in (flow, torch):
        dt = m.float64
        params = _make_params(m, data, dt)
        opt = m.optim.SGD([params[0]], lr=0.05, momentum=0.9)
        _train(m, opt, params, data, dt, 5)
        opt.add_param_group({"params": params[1], "lr": 0.01})
        assert opt.param_groups[1]["momentum"] == 0.9  # filled from the defaults
        _train(m, opt, params, data, dt, 5)
        results.append(params)
    _assert_params_close(results[0], results[1], 1e-6)


def test_parameters_without_grad_are_skipped():
    a = flow.randn(3, requires_grad=True)
    b = flow.randn(3, requires_grad=True)
    before = _np(b).copy()
    opt = flow.optim.Adam([a, b], lr=0.1)
    (a * a).sum().backward()
    opt.step()
    assert len(opt.state[b]) == 0
    np.testing.assert_array_equal(_np(b), before)
    assert float(opt.state[a]["step"]) == 1.0


def test_zero_grad():
    p = flow.randn(3, requires_grad=True)
    opt = flow.optim.SGD([p], lr=0.1)
    (p * p).sum().backward()
    opt.zero_grad(set_to_none=False)
    assert p.grad is not None
    np.testing.assert_array_equal(p.grad.numpy(), np.zeros(3, np.float32))
    (p * p).sum().backward()
    np.testing.assert_allclose(p.grad.numpy(), 2 * _np(p), rtol=1e-6)
    opt.zero_grad()
    assert p.grad is None


def test_step_closure_runs_with_grad_enabled():
    data = _data(3)
    results, losses = [], []
    for m in (flow, torch):
        params = _make_params(m, data, m.float64)
        x, y = m.tensor(data["x"], dtype=m.float64), m.tensor(data["y"], dtype=m.float64)
        opt = m.optim.Adam(params, lr=0.05)

        def closure(m=m, params=params, x=x, y=y, opt=opt):
            opt.zero_grad()
            loss = _loss(m, params, x, y)
            loss.backward()
            return loss

        with m.no_grad():  # the closure still records its graph
            for _ in range(10):
                loss = opt.step(closure)
        losses.append(float(loss.detach()))
        results.append(params)
    _assert_params_close(results[0], results[1], 1e-6)
    assert losses[0] == pytest.approx(losses[1], rel=1e-9)
    assert flow.optim.SGD([flow.randn(2, requires_grad=True)]).step() is None


def test_step_hooks():
    p = flow.randn(3, requires_grad=True)
    opt = flow.optim.SGD([p], lr=0.1)
    calls = []
    pre = opt.register_step_pre_hook(lambda o, args, kwargs: calls.append(("pre", o is opt)))
    opt.register_step_post_hook(lambda o, args, kwargs: calls.append(("post", float(o.state[p] == {}))))
    (p * p).sum().backward()
    opt.step()
    assert calls == [("pre", True), ("post", 1.0)]
    pre.remove()
    opt.step()
    assert calls[-1][0] == "post" and len(calls) == 3


def test_state_dict_hooks():
    p = flow.randn(3, requires_grad=True)
    opt = flow.optim.SGD([p], lr=0.1)
    opt.register_state_dict_post_hook(lambda o, sd: {**sd, "extra": 1})
    seen = []
    opt.register_load_state_dict_pre_hook(lambda o, sd: seen.append(sorted(sd)))
    opt.register_load_state_dict_post_hook(lambda o: seen.append("post"))
    sd = opt.state_dict()
    assert sd["extra"] == 1
    opt.load_state_dict(sd)
    assert seen == [["extra", "param_groups", "state"], "post"]


def test_repr():
    opt = flow.optim.SGD([flow.randn(2, requires_grad=True)], lr=0.5, momentum=0.9)
    text = repr(opt)
    assert text.startswith("SGD (\nParameter Group 0\n")
    assert "    lr: 0.5\n" in text and "    momentum: 0.9\n" in text and "params" not in text


# -- state dicts ---------------------------------------------------------------------------

FULL_STATE_CASES = [
    ("SGD", {"lr": 0.05, "momentum": 0.9}),
    ("Adam", {"lr": 0.05, "amsgrad": True}),
    ("AdamW", {"lr": 0.05}),
    ("RMSprop", {"lr": 0.01, "centered": True, "momentum": 0.5}),
    ("Adagrad", {"lr": 0.1, "lr_decay": 0.01}),
    ("Adadelta", {}),
    ("Adamax", {"lr": 0.05}),
    ("NAdam", {"lr": 0.05}),
]
STATE_IDS = [c[0] for c in FULL_STATE_CASES]
# Keys of PyTorch's groups that select implementations we do not have.
TORCH_ONLY_GROUP_KEYS = {"capturable", "differentiable", "fused"}
ONEFLOW_ONLY_GROUP_KEYS = {"do_bias_correction"}  # Adam's and AdamW's OneFlow switch


def _to_torch(value):
    if isinstance(value, flow.Tensor):
        return torch.from_numpy(_np(value).copy())
    if isinstance(value, dict):
        return {k: _to_torch(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_to_torch(v) for v in value]
    return value


def _to_flow(value):
    if isinstance(value, torch.Tensor):
        return flow.tensor(value.detach().numpy().copy())
    if isinstance(value, dict):
        return {k: _to_flow(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_to_flow(v) for v in value]
    return value


@pytest.mark.parametrize("case", FULL_STATE_CASES, ids=STATE_IDS)
def test_state_dict_structure_matches_torch(case):
    name, kwargs = case
    data = _data(4)
    sds = []
    for m in (flow, torch):
        params = _make_params(m, data, m.float32)
        opt = getattr(m.optim, name)(
            _group_spec(params, True), **(kwargs if m is flow else _torch_kwargs(name, kwargs))
        )
        _train(m, opt, params, data, m.float32, 3)
        sds.append(opt.state_dict())
    ours, theirs = sds
    assert set(ours) == set(theirs) == {"state", "param_groups"}
    assert list(ours["state"]) == list(theirs["state"]) == [0, 1]
    for key in theirs["state"]:
        s, t = ours["state"][key], theirs["state"][key]
        assert list(s) == list(t)  # same names, same order
        for k in t:
            assert isinstance(s[k], flow.Tensor) == isinstance(t[k], torch.Tensor)
            assert str(s[k].dtype).split(".")[-1] == str(t[k].dtype).split(".")[-1], k
            np.testing.assert_allclose(_np(s[k]), _np(t[k]), rtol=1e-5, atol=1e-6)
    assert len(ours["param_groups"]) == len(theirs["param_groups"])
    for g, h in zip(ours["param_groups"], theirs["param_groups"]):
        assert g["params"] == h["params"]
        assert set(h) - set(g) <= TORCH_ONLY_GROUP_KEYS
        assert set(g) - ONEFLOW_ONLY_GROUP_KEYS <= set(h)
        for k in set(g) - ONEFLOW_ONLY_GROUP_KEYS:
            assert g[k] == h[k], k


@pytest.mark.parametrize(
    "case", FULL_STATE_CASES + [("LAMB", {"lr": 0.01, "weight_decay": 0.1})], ids=STATE_IDS + ["LAMB"]
)
def test_state_dict_round_trip(case):
    name, kwargs = case
    data = _data(5)
    cls = getattr(flow.optim, name)
    params = _make_params(flow, data, flow.float64)
    opt = cls(_group_spec(params, True), **kwargs)
    _train(flow, opt, params, data, flow.float64, 15)
    saved = copy.deepcopy(opt.state_dict())  # as if written to disk and read back

    resumed = [flow.tensor(_np(p), requires_grad=True) for p in params]
    opt2 = cls(_group_spec(resumed, True), lr=123.0)  # hyper-parameters come from the state dict
    opt2.load_state_dict(saved)
    assert opt2.param_groups[0]["lr"] == opt.param_groups[0]["lr"]
    assert opt2.param_groups[1]["params"][0] is resumed[1]
    _train(flow, opt, params, data, flow.float64, 15)
    _train(flow, opt2, resumed, data, flow.float64, 15)
    for a, b in zip(params, resumed):
        if name == "NAdam":
            # Loading casts mu_product (a float32 scalar) to the parameters' float64, as PyTorch
            # does, so the resumed run is slightly more precise than the uninterrupted one.
            np.testing.assert_allclose(_np(a), _np(b), rtol=1e-12)
        else:
            np.testing.assert_array_equal(_np(a), _np(b))


@pytest.mark.parametrize("case", FULL_STATE_CASES, ids=STATE_IDS)
def test_state_dicts_cross_frameworks(case):
    """A torch state dict loads here (and ours into torch) and training continues identically."""
    name, kwargs = case
    data = _data(6)
    t_params = _make_params(torch, data, torch.float64)
    t_opt = getattr(torch.optim, name)(_group_spec(t_params, True), **_torch_kwargs(name, kwargs))
    _train(torch, t_opt, t_params, data, torch.float64, 10)

    f_params = [flow.tensor(_np(p), requires_grad=True) for p in t_params]
    f_opt = getattr(flow.optim, name)(_group_spec(f_params, True), **kwargs)
    f_opt.load_state_dict(_to_flow(copy.deepcopy(t_opt.state_dict())))
    _train(torch, t_opt, t_params, data, torch.float64, 10)
    _train(flow, f_opt, f_params, data, flow.float64, 10)
    _assert_params_close(f_params, t_params, 1e-6)

    t_params2 = [torch.tensor(_np(p), requires_grad=True) for p in f_params]
    t_opt2 = getattr(torch.optim, name)(_group_spec(t_params2, True), **_torch_kwargs(name, kwargs))
    t_opt2.load_state_dict(_to_torch(f_opt.state_dict()))
    _train(torch, t_opt2, t_params2, data, torch.float64, 10)
    _train(flow, f_opt, f_params, data, flow.float64, 10)
    _assert_params_close(f_params, t_params2, 1e-6)


def test_load_state_dict_casts_to_parameter_dtype():
    data = _data(7)
    params = _make_params(flow, data, flow.float64)
    opt = flow.optim.Adam(params, lr=0.1)
    _train(flow, opt, params, data, flow.float64, 2)
    target = _make_params(flow, data, flow.float32)
    opt32 = flow.optim.Adam(target, lr=0.1)
    opt32.load_state_dict(opt.state_dict())
    state = opt32.state[target[0]]
    assert state["exp_avg"].dtype == flow.float32 and state["exp_avg_sq"].dtype == flow.float32
    assert state["step"].dtype == flow.float32 and float(state["step"]) == 2.0
    _train(flow, opt32, target, data, flow.float32, 2)  # and it keeps working
    assert float(opt32.state[target[0]]["step"]) == 4.0


def _raises_like_torch(fn):
    """Runs fn(m) for torch and oneflow; both must raise, with the same exception type."""
    with pytest.raises(Exception) as theirs:
        fn(torch)
    with pytest.raises(type(theirs.value)):
        fn(flow)


def test_load_state_dict_errors():
    def group_count(m):
        a, b = m.randn(2, requires_grad=True), m.randn(2, requires_grad=True)
        sd = m.optim.SGD([a, b], lr=0.1).state_dict()
        m.optim.SGD([{"params": [a]}, {"params": [b]}], lr=0.1).load_state_dict(sd)

    def group_size(m):
        a, b = m.randn(2, requires_grad=True), m.randn(2, requires_grad=True)
        sd = m.optim.SGD([a, b], lr=0.1).state_dict()
        m.optim.SGD([a], lr=0.1).load_state_dict(sd)

    _raises_like_torch(group_count)
    _raises_like_torch(group_size)


# -- bad input ------------------------------------------------------------------------------

ALL_OPTIMIZERS = ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax", "NAdam"]


@pytest.mark.parametrize("name", ALL_OPTIMIZERS)
def test_bad_input(name):
    def cls(m):
        return getattr(m.optim, name)

    _raises_like_torch(lambda m: cls(m)([m.randn(2, requires_grad=True)], lr=-1.0))
    _raises_like_torch(lambda m: cls(m)([m.randn(2, requires_grad=True) * 2]))  # non-leaf
    _raises_like_torch(lambda m: cls(m)(m.randn(2, requires_grad=True)))  # a tensor, not an iterable
    # An empty list is accepted, as in OneFlow (PyTorch raises): see oneflow_optim_test.
    _raises_like_torch(lambda m: cls(m)([1.0]))
    _raises_like_torch(lambda m: cls(m)([{"params": {m.randn(2, requires_grad=True)}}]))

    def duplicate(m):
        p = m.randn(2, requires_grad=True)
        cls(m)([{"params": [p]}, {"params": [m.randn(2, requires_grad=True), p]}])

    _raises_like_torch(duplicate)
    _raises_like_torch(lambda m: cls(m)([m.randn(2, requires_grad=True)]).add_param_group([1]))
    _raises_like_torch(lambda m: cls(m)([m.randn(2, requires_grad=True)], weight_decay=-0.1))

    with pytest.raises(ValueError, match="non-leaf"):
        cls(flow)([flow.randn(2, requires_grad=True) * 2])
    with pytest.raises(ValueError, match="more than one parameter group"):
        duplicate(flow)
    p = flow.randn(2, requires_grad=True)
    with pytest.warns(UserWarning, match="duplicate parameters"):
        cls(flow)([p, p])


BAD_HYPER_PARAMETERS = [
    ("SGD", {"momentum": -0.5}),
    ("SGD", {"nesterov": True}),
    ("SGD", {"nesterov": True, "momentum": 0.9, "dampening": 0.1}),
    ("Adam", {"betas": (1.0, 0.999)}),
    ("Adam", {"betas": (0.9, -0.1)}),
    ("Adam", {"eps": -1.0}),
    ("AdamW", {"betas": (0.9, 1.5)}),
    ("RMSprop", {"alpha": -0.1}),
    ("RMSprop", {"momentum": -0.1}),
    ("RMSprop", {"eps": -1.0}),
    ("Adagrad", {"lr_decay": -0.1}),
    ("Adagrad", {"initial_accumulator_value": -0.1}),
    ("Adadelta", {"rho": 1.5}),
    ("Adadelta", {"eps": -1.0}),
    ("Adamax", {"betas": (0.9, 1.0)}),
    ("NAdam", {"momentum_decay": -0.1}),
]


@pytest.mark.parametrize("case", BAD_HYPER_PARAMETERS, ids=[_case_id(c) for c in BAD_HYPER_PARAMETERS])
def test_bad_hyper_parameters(case):
    name, kwargs = case
    _raises_like_torch(lambda m: getattr(m.optim, name)([m.randn(2, requires_grad=True)], **kwargs))


def test_required_lr_per_group():
    from oneflow.optim.optimizer import Optimizer, required

    class Plain(Optimizer):
        def __init__(self, params, lr=required):
            super().__init__(params, {"lr": lr})

    with pytest.raises(ValueError, match="lr"):
        Plain([flow.randn(2, requires_grad=True)])
    assert Plain([{"params": [flow.randn(2, requires_grad=True)], "lr": 0.1}]).param_groups[0]["lr"] == 0.1


def test_named_parameters():
    a, b = flow.randn(2, requires_grad=True), flow.randn(2, requires_grad=True)
    opt = flow.optim.SGD([("a", a), ("b", b)], lr=0.1)
    assert opt.param_groups[0]["param_names"] == ["a", "b"]
    assert opt.state_dict()["param_groups"][0]["param_names"] == ["a", "b"]
    with pytest.raises(ValueError):
        opt.add_param_group({"params": [flow.randn(2, requires_grad=True)]})


# -- LAMB -------------------------------------------------------------------------------------


def _np_grads(w, b, x, y):
    r = x @ w + b - y
    n = r.size
    return [2.0 / n * (x.T @ r) + 0.4 * w**3, 2.0 / n * r.sum(0)]


def _lamb_reference(data, steps, lr, betas, eps, weight_decay, adam_w_mode, bias_correction, amsgrad, zero_b):
    """LAMB written out from its definition, in float64 NumPy."""
    params = [data["w"].copy(), np.zeros(3) if zero_b else data["b"].copy()]
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    v_max = [np.zeros_like(p) for p in params]
    beta1, beta2 = betas
    for t in range(1, steps + 1):
        grads = _np_grads(params[0], params[1], data["x"], data["y"])
        for i, (p, g) in enumerate(zip(params, grads)):
            if not adam_w_mode:
                g = g + weight_decay * p
            m[i] = beta1 * m[i] + (1 - beta1) * g
            v[i] = beta2 * v[i] + (1 - beta2) * g * g
            v_max[i] = np.maximum(v_max[i], v[i])
            m_hat, v_hat = m[i], (v_max[i] if amsgrad else v[i])
            if bias_correction:
                m_hat = m_hat / (1 - beta1**t)
                v_hat = v_hat / (1 - beta2**t)
            update = m_hat / (np.sqrt(v_hat) + eps)
            if adam_w_mode:
                update = update + weight_decay * p
            w_norm, u_norm = np.linalg.norm(p), np.linalg.norm(update)
            ratio = w_norm / u_norm if w_norm > 0 and u_norm > 0 else 1.0
            params[i] = p - lr * ratio * update
    return params


LAMB_CASES = [
    {},
    {"weight_decay": 0.1},
    {"weight_decay": 0.1, "adam_w_mode": False},
    {"do_bias_correction": False, "betas": (0.8, 0.9)},
    {"amsgrad": True, "eps": 1e-6, "weight_decay": 0.01},
    {"zero_b": True},
]


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("kwargs", LAMB_CASES, ids=[",".join(f"{k}={v}" for k, v in c.items()) for c in LAMB_CASES])
def test_lamb_matches_reference(kwargs, dtype):
    kwargs = dict(kwargs)
    zero_b = kwargs.pop("zero_b", False)
    full = {
        "lr": 0.02,
        "betas": (0.9, 0.999),
        "eps": 1e-8,
        "weight_decay": 0.0,
        "adam_w_mode": True,
        "do_bias_correction": True,
        "amsgrad": False,
    }
    full.update(kwargs)
    fdt, _, tol = DTYPES[dtype]
    data = _data(8)
    params = _make_params(flow, data, fdt)
    if zero_b:  # ||w|| = 0 at the first step: trust ratio 1
        with flow.no_grad():
            params[1].zero_()
    opt = flow.optim.LAMB(params, **full)
    _train(flow, opt, params, data, fdt, STEPS)
    expected = _lamb_reference(
        data,
        STEPS,
        full["lr"],
        full["betas"],
        full["eps"],
        full["weight_decay"],
        full["adam_w_mode"],
        full["do_bias_correction"],
        full["amsgrad"],
        zero_b,
    )
    _assert_params_close(params, expected, tol)


def test_each_optimizer_has_one_public_name():
    # OneFlow's name is LAMB only; libai registers every Optimizer subclass of dir(flow.optim)
    # under its __name__ and rejects a class listed twice.
    classes = [getattr(flow.optim, n) for n in dir(flow.optim) if not n.startswith("_")]
    optimizers = [c for c in classes if isinstance(c, type) and issubclass(c, flow.optim.Optimizer)]
    names = [c.__name__ for c in optimizers]
    assert len(names) == len(set(names)), names
    assert not hasattr(flow.optim, "Lamb")


def test_lamb_trust_ratio_scales_the_step():
    # One step from m = v = 0: u = sign(g) (bias-corrected, eps ~ 0), so the step is lr * ||w|| / sqrt(n).
    w = flow.tensor([3.0, -4.0, 0.0, 0.0], dtype=flow.float64, requires_grad=True)
    opt = flow.optim.LAMB([w], lr=0.1, eps=1e-12)
    (w * flow.tensor([1.0, 2.0, -3.0, 4.0], dtype=flow.float64)).sum().backward()
    opt.step()
    step = 0.1 * 5.0 / 2.0
    np.testing.assert_allclose(w.detach().numpy(), [3.0 - step, -4.0 - step, step, -step], rtol=1e-9)


def test_lamb_bad_input():
    with pytest.raises(ValueError):
        flow.optim.LAMB([flow.randn(2, requires_grad=True)], lr=-1)
    with pytest.raises(ValueError):
        flow.optim.LAMB([flow.randn(2, requires_grad=True)], betas=(1.0, 0.9))


def test_no_warnings_in_normal_use():
    data = _data()
    params = _make_params(flow, data, flow.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for name in ALL_OPTIMIZERS:
            opt = getattr(flow.optim, name)(params)
            _train(flow, opt, params, data, flow.float32, 2)
