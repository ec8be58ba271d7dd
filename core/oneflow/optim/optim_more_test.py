"""RAdam, ASGD, Rprop, Adafactor, SparseAdam and LBFGS against torch.optim.

Each trajectory test trains the same small problem in both frameworks from the
same weights and compares the parameters. The problem has a matrix, a vector and
a 3-d tensor parameter (Adafactor factors the last two dimensions of the matrix
and of the 3-d tensor, and keeps a full second moment for the vector), and a
quartic penalty so the curvature changes along the way. LBFGS runs on a
least-squares problem and on the Rosenbrock function, with and without the
strong-Wolfe line search.
"""

import copy

import numpy as np
import pytest
import torch
from parity import raises_like_torch

import oneflow as flow

STEPS = 25
DTYPES = {"float32": (flow.float32, torch.float32, 2e-5), "float64": (flow.float64, torch.float64, 1e-10)}


def _data(seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    return {
        "w": rng.standard_normal((4, 3)) * 0.5,
        "b": rng.standard_normal(3) * 0.5,
        "k": rng.standard_normal((2, 3, 2)) * 0.5,
        "c": rng.standard_normal((2, 3, 2)),
        "x": rng.standard_normal((8, 4)),
        "y": rng.standard_normal((8, 3)),
    }


def _loss(m, params, data, dtype, sign=1.0):
    w, b, k = params
    x, y, c = (m.tensor(data[n], dtype=dtype) for n in ("x", "y", "c"))
    r = m.matmul(x, w) + b - y
    return ((r * r).mean() + 0.1 * (w**4).sum() + 0.1 * (k**4).sum() + (k * c).mean()) * sign


def _make_params(m, data, dtype):
    return [m.tensor(data[n], dtype=dtype, requires_grad=True) for n in ("w", "b", "k")]


def _group_spec(params, groups: bool, lr: float):
    if not groups:
        return params
    return [{"params": params[:1]}, {"params": params[1:], "lr": lr * 2}]


def _train(m, opt, params, data, dtype, steps, sign=1.0):
    for _ in range(steps):
        opt.zero_grad()
        _loss(m, params, data, dtype, sign).backward()
        opt.step()


def _np(t) -> np.ndarray:
    return t.detach().numpy()


def _assert_params_close(ours, theirs, tol):
    for a, b in zip(ours, theirs):
        a, b = _np(a), _np(b)
        np.testing.assert_allclose(a, b, rtol=tol, atol=tol * max(1.0, float(np.abs(b).max())))


CASES = [
    ("RAdam", {}),
    ("RAdam", {"lr": 0.01, "betas": (0.8, 0.9), "weight_decay": 0.1}),
    ("RAdam", {"lr": 0.01, "weight_decay": 0.1, "decoupled_weight_decay": True, "maximize": True}),
    ("RAdam", {"lr": 0.02, "eps": 1e-3, "foreach": False}),
    ("ASGD", {}),
    ("ASGD", {"lr": 0.05, "lambd": 0.01, "alpha": 0.5, "t0": 5, "weight_decay": 0.05}),
    ("ASGD", {"lr": 0.02, "t0": 0, "maximize": True}),
    ("Rprop", {}),
    ("Rprop", {"lr": 0.05, "etas": (0.3, 1.5), "step_sizes": (1e-3, 0.1)}),
    ("Rprop", {"lr": 0.01, "maximize": True, "foreach": False}),
    ("Adafactor", {}),
    ("Adafactor", {"lr": 0.02, "beta2_decay": -0.5, "eps": (1e-20, 1e-2), "d": 2.0}),
    ("Adafactor", {"lr": 0.01, "weight_decay": 0.1, "maximize": True}),
]
IDS = [f"{n}-{i}" for i, (n, _) in enumerate(CASES)]


@pytest.mark.parametrize("case", CASES, ids=IDS)
@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("groups", [False, True], ids=["one_group", "two_groups"])
def test_trajectory_matches_torch(case, dtype, groups):
    name, kwargs = case
    data = _data(1)
    fdt, tdt, tol = DTYPES[dtype]
    sign = -1.0 if kwargs.get("maximize") else 1.0
    lr = kwargs.get("lr", 0.01)
    results = []
    for m, dt in ((flow, fdt), (torch, tdt)):
        params = _make_params(m, data, dt)
        opt = getattr(m.optim, name)(_group_spec(params, groups, lr), **kwargs)
        _train(m, opt, params, data, dt, STEPS, sign)
        results.append(params)
    _assert_params_close(*results, tol)


@pytest.mark.parametrize("name", ["RAdam", "ASGD", "Rprop", "Adafactor", "SparseAdam", "LBFGS"])
def test_defaults_match_torch(name):
    ours = getattr(flow.optim, name)([flow.randn(2, requires_grad=True)]).defaults
    theirs = getattr(torch.optim, name)([torch.randn(2, requires_grad=True)]).defaults
    # capturable / differentiable select PyTorch implementations we do not have: accepted, not stored.
    theirs = {k: v for k, v in theirs.items() if k not in ("capturable", "differentiable")}
    assert ours == theirs


# -- state dicts ------------------------------------------------------------------------------


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


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_state_dict_structure_matches_torch(case):
    name, kwargs = case
    data = _data(2)
    sds = []
    for m in (flow, torch):
        params = _make_params(m, data, m.float32)
        opt = getattr(m.optim, name)(_group_spec(params, True, 0.01), **kwargs)
        _train(m, opt, params, data, m.float32, 3, -1.0 if kwargs.get("maximize") else 1.0)
        sds.append(opt.state_dict())
    ours, theirs = sds
    assert list(ours["state"]) == list(theirs["state"]) == [0, 1, 2]
    for key in theirs["state"]:
        s, t = ours["state"][key], theirs["state"][key]
        assert list(s) == list(t)  # same names, same order
        for k in t:
            assert str(s[k].dtype).split(".")[-1] == str(t[k].dtype).split(".")[-1], k
            assert tuple(s[k].shape) == tuple(t[k].shape), k
            np.testing.assert_allclose(_np(s[k]), _np(t[k]), rtol=1e-4, atol=1e-6)
    for g, h in zip(ours["param_groups"], theirs["param_groups"]):
        h = {k: v for k, v in h.items() if k not in ("capturable", "differentiable")}
        assert g == h


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_state_dict_round_trip_and_cross_framework(case):
    name, kwargs = case
    data = _data(3)
    sign = -1.0 if kwargs.get("maximize") else 1.0
    params = _make_params(flow, data, flow.float64)
    opt = getattr(flow.optim, name)(_group_spec(params, True, 0.01), **kwargs)
    _train(flow, opt, params, data, flow.float64, 8, sign)
    saved = copy.deepcopy(opt.state_dict())

    resumed = [flow.tensor(_np(p), requires_grad=True) for p in params]
    opt2 = getattr(flow.optim, name)(_group_spec(resumed, True, 0.5))  # hyper-parameters from the state dict
    opt2.load_state_dict(saved)
    t_params = [torch.tensor(_np(p), requires_grad=True) for p in params]
    t_opt = getattr(torch.optim, name)(_group_spec(t_params, True, 0.01), **kwargs)
    t_opt.load_state_dict(_to_torch(saved))
    _train(flow, opt, params, data, flow.float64, 8, sign)
    _train(flow, opt2, resumed, data, flow.float64, 8, sign)
    _train(torch, t_opt, t_params, data, torch.float64, 8, sign)
    # Loading casts ASGD's eta and mu (float32 scalars) to the parameters' float64, as PyTorch
    # does, so there the resumed run is slightly more precise than the uninterrupted one.
    _assert_params_close(params, resumed, 1e-6 if name == "ASGD" else 0.0)
    _assert_params_close(resumed, t_params, 1e-10)

    # And a torch state dict loads here.
    f_params = [flow.tensor(_np(p), requires_grad=True) for p in t_params]
    f_opt = getattr(flow.optim, name)(_group_spec(f_params, True, 0.01), **kwargs)
    f_opt.load_state_dict(_to_flow(copy.deepcopy(t_opt.state_dict())))
    _train(flow, f_opt, f_params, data, flow.float64, 5, sign)
    _train(torch, t_opt, t_params, data, torch.float64, 5, sign)
    _assert_params_close(f_params, t_params, 1e-10)


# -- SparseAdam -------------------------------------------------------------------------------


def _sparse_adam_run(m, table, batches, dtype, kwargs):
    weight = m.tensor(table, dtype=dtype, requires_grad=True)
    opt = m.optim.SparseAdam([weight], **kwargs)
    for idx, v, y in batches:
        opt.zero_grad()
        rows = weight[m.tensor(idx)]
        r = m.matmul(rows, m.tensor(v, dtype=dtype)) - m.tensor(y, dtype=dtype)
        (r * r).sum().backward()
        if m is torch:  # the sparse gradient nn.Embedding(sparse=True) would give
            weight.grad = weight.grad.to_sparse(1)
        opt.step()
    return weight, opt


@pytest.mark.parametrize("kwargs", [{}, {"lr": 0.05, "betas": (0.5, 0.9), "eps": 1e-4}, {"lr": 0.01, "maximize": True}])
@pytest.mark.parametrize("dtype", list(DTYPES))
def test_sparse_adam_matches_torch_sparse_gradients(kwargs, dtype):
    rng = np.random.default_rng(4)
    table = rng.standard_normal((10, 4))
    batches = [
        (rng.choice(10, size=3, replace=True).astype(np.int64), rng.standard_normal(4), rng.standard_normal(3))
        for _ in range(STEPS)
    ]
    fdt, tdt, tol = DTYPES[dtype]
    ours, opt = _sparse_adam_run(flow, table, batches, fdt, kwargs)
    theirs, t_opt = _sparse_adam_run(torch, table, batches, tdt, kwargs)
    _assert_params_close([ours], [theirs], tol)
    s, t = opt.state[ours], t_opt.state[theirs]
    assert list(s) == list(t) and s["step"] == t["step"] == STEPS
    np.testing.assert_allclose(_np(s["exp_avg_sq"]), _np(t["exp_avg_sq"]), rtol=tol, atol=tol)
    untouched = sorted(set(range(10)) - {int(i) for idx, _, _ in batches for i in idx})
    np.testing.assert_array_equal(_np(ours)[untouched], table[untouched])


def test_sparse_adam_dense_gradients_are_read_as_row_sparse():
    # torch raises for a dense gradient; ours has no sparse layout and updates only the rows
    # (entries, for a vector) whose gradient is nonzero.
    w = torch.zeros(3, 2, requires_grad=True)
    w.grad = torch.ones(3, 2)
    with pytest.raises(RuntimeError):
        torch.optim.SparseAdam([w]).step()
    v = flow.zeros(5, requires_grad=True)
    v.grad = flow.tensor([0.0, 1.0, 0.0, -2.0, 0.0])
    flow.optim.SparseAdam([v], lr=0.1).step()
    np.testing.assert_allclose(_np(v), [0.0, -0.1, 0.0, 0.1, 0.0], rtol=1e-5)
    w = flow.zeros(3, 2, requires_grad=True)
    w.grad = flow.tensor([[0.0, 1.0], [0.0, 0.0], [0.0, 0.0]])
    opt = flow.optim.SparseAdam([w], lr=0.1)
    opt.step()
    np.testing.assert_allclose(_np(w), [[0.0, -0.1], [0.0, 0.0], [0.0, 0.0]], rtol=1e-5, atol=1e-7)
    w.grad = flow.zeros(3, 2)  # touches no row: nothing moves, the step still counts
    opt.step()
    assert opt.state[w]["step"] == 2
    np.testing.assert_allclose(_np(w), [[0.0, -0.1], [0.0, 0.0], [0.0, 0.0]], rtol=1e-5, atol=1e-7)


# -- LBFGS ------------------------------------------------------------------------------------


def _least_squares(m, dtype):
    rng = np.random.default_rng(5)
    a = m.tensor(rng.standard_normal((20, 5)), dtype=dtype)
    y = m.tensor(rng.standard_normal(20), dtype=dtype)
    params = [m.tensor(rng.standard_normal(5), dtype=dtype, requires_grad=True)]

    def loss():
        r = m.matmul(a, params[0]) - y
        return (r * r).sum() + 0.05 * (params[0] ** 4).sum()

    return params, loss


def _rosenbrock(m, dtype):
    params = [m.tensor([-1.5, 2.0], dtype=dtype, requires_grad=True), m.tensor([0.5], dtype=dtype, requires_grad=True)]

    def loss():
        x = m.cat([params[0], params[1]])
        return ((1 - x[:-1]) ** 2).sum() + 100 * ((x[1:] - x[:-1] ** 2) ** 2).sum()

    return params, loss


def _lbfgs_run(m, problem, dtype, kwargs, steps):
    params, loss_fn = problem(m, dtype)
    opt = m.optim.LBFGS(params, **kwargs)
    calls = [0]

    def closure():
        calls[0] += 1
        opt.zero_grad()
        loss = loss_fn()
        loss.backward()
        return loss

    losses = [float(opt.step(closure).detach()) for _ in range(steps)]
    return params, losses, calls[0], opt


LBFGS_CASES = [
    {},
    {"line_search_fn": "strong_wolfe"},
    {"lr": 0.1, "history_size": 3, "max_iter": 7},
    {"history_size": 2, "max_iter": 10, "max_eval": 12, "line_search_fn": "strong_wolfe"},
    {"lr": 0.5, "tolerance_grad": 1e-3, "tolerance_change": 1e-4, "line_search_fn": "strong_wolfe"},
]


@pytest.mark.parametrize("kwargs", LBFGS_CASES, ids=[str(i) for i in range(len(LBFGS_CASES))])
@pytest.mark.parametrize("problem", [_least_squares, _rosenbrock], ids=["least_squares", "rosenbrock"])
def test_lbfgs_matches_torch(problem, kwargs):
    ours = _lbfgs_run(flow, problem, flow.float64, kwargs, 4)
    theirs = _lbfgs_run(torch, problem, torch.float64, kwargs, 4)
    # Float64 throughout; Rosenbrock's narrow valley amplifies last-bit differences of the dot
    # products (their summation order), hence not 1e-12.
    _assert_params_close(ours[0], theirs[0], 1e-6)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-6, atol=1e-12)
    assert ours[2] == theirs[2]  # the same number of closure calls
    s, t = ours[3].state[ours[0][0]], theirs[3].state[theirs[0][0]]
    assert s["func_evals"] == t["func_evals"] and s["n_iter"] == t["n_iter"]
    assert len(s["old_dirs"]) == len(t["old_dirs"])


def test_lbfgs_float32_converges_like_torch():
    kwargs = {"line_search_fn": "strong_wolfe", "max_iter": 50}
    ours = _lbfgs_run(flow, _rosenbrock, flow.float32, kwargs, 3)
    theirs = _lbfgs_run(torch, _rosenbrock, torch.float32, kwargs, 3)
    _assert_params_close(ours[0], theirs[0], 1e-3)
    np.testing.assert_allclose(_np(ours[0][0]), [1.0, 1.0], atol=1e-3)  # the minimum


def test_lbfgs_state_dict_round_trip():
    params, losses, _, opt = _lbfgs_run(flow, _least_squares, flow.float64, {"history_size": 4}, 2)
    saved = copy.deepcopy(opt.state_dict())
    resumed = [flow.tensor(_np(params[0]), requires_grad=True)]
    opt2 = flow.optim.LBFGS(resumed, history_size=99)
    opt2.load_state_dict(saved)
    assert opt2.param_groups[0]["history_size"] == 4

    def closure_for(p, o):
        def closure():
            o.zero_grad()
            loss = _ls_loss(p)
            loss.backward()
            return loss

        return closure

    for _ in range(2):
        opt.step(closure_for(params[0], opt))
        opt2.step(closure_for(resumed[0], opt2))
    np.testing.assert_array_equal(_np(params[0]), _np(resumed[0]))


def _ls_loss(w):
    rng = np.random.default_rng(5)
    a = flow.tensor(rng.standard_normal((20, 5)), dtype=flow.float64)
    y = flow.tensor(rng.standard_normal(20), dtype=flow.float64)
    r = flow.matmul(a, w) - y
    return (r * r).sum() + 0.05 * (w**4).sum()


def test_lbfgs_stops_at_an_optimum():
    w = flow.zeros(3, dtype=flow.float64, requires_grad=True)
    opt = flow.optim.LBFGS([w])
    calls = []

    def closure():
        calls.append(1)
        opt.zero_grad()
        loss = (w * w).sum()
        loss.backward()
        return loss

    assert float(opt.step(closure)) == 0.0 and len(calls) == 1


# -- bad input --------------------------------------------------------------------------------


def _p(m):
    return [m.randn(2, requires_grad=True)]


BAD = [
    ("RAdam", {"lr": -1.0}),
    ("RAdam", {"eps": -1.0}),
    ("RAdam", {"betas": (1.0, 0.9)}),
    ("RAdam", {"betas": (0.9, -0.1)}),
    ("RAdam", {"weight_decay": -0.1}),
    ("ASGD", {"lr": -0.1}),
    ("ASGD", {"weight_decay": -1}),
    ("Rprop", {"lr": -0.1}),
    ("Rprop", {"etas": (1.5, 1.2)}),
    ("Rprop", {"etas": (0.5, 0.9)}),
    ("Adafactor", {"lr": -0.1}),
    ("Adafactor", {"beta2_decay": 0.5}),
    ("Adafactor", {"eps": (-1.0, 1e-3)}),
    ("Adafactor", {"eps": (None, -1e-3)}),
    ("Adafactor", {"d": 0.5}),
    ("Adafactor", {"weight_decay": -0.1}),
    ("SparseAdam", {"lr": 0.0}),
    ("SparseAdam", {"eps": 0.0}),
    ("SparseAdam", {"betas": (0.9, 1.0)}),
    ("LBFGS", {"lr": -1.0}),
]


@pytest.mark.parametrize("case", BAD, ids=[f"{n}-{i}" for i, (n, _) in enumerate(BAD)])
def test_bad_hyper_parameters(case):
    name, kwargs = case
    raises_like_torch(lambda m: getattr(m.optim, name)(_p(m), **kwargs))


@pytest.mark.parametrize("name", ["RAdam", "ASGD", "Rprop", "Adafactor", "SparseAdam", "LBFGS"])
def test_bad_params(name):
    raises_like_torch(lambda m: getattr(m.optim, name)([m.randn(2, requires_grad=True) * 2]))  # non-leaf
    raises_like_torch(lambda m: getattr(m.optim, name)(m.randn(2, requires_grad=True)))  # not an iterable
    raises_like_torch(lambda m: getattr(m.optim, name)([1.0]))
    raises_like_torch(lambda m: getattr(m.optim, name)(_p(m), lr=m.tensor([0.1, 0.2])))  # lr of 2 elements


def test_lbfgs_bad_input():
    raises_like_torch(lambda m: m.optim.LBFGS([{"params": _p(m)}, {"params": _p(m)}]))  # two groups
    raises_like_torch(lambda m: m.optim.LBFGS(_p(m)).step())  # no closure

    def unknown_line_search(m):
        w = m.randn(2, requires_grad=True)
        opt = m.optim.LBFGS([w], line_search_fn="armijo")

        def closure():
            opt.zero_grad()
            loss = (w * w).sum()
            loss.backward()
            return loss

        opt.step(closure)

    raises_like_torch(unknown_line_search)


def test_sparse_adam_on_an_embedding_moves_the_looked_up_rows():
    emb = flow.nn.Embedding(20, 4)
    before = _np(emb.weight).copy()
    opt = flow.optim.SparseAdam(emb.parameters(), lr=0.01)
    emb(flow.tensor([[1, 5], [5, 7]])).sum().backward()
    opt.step()
    moved = np.nonzero((_np(emb.weight) != before).any(axis=1))[0].tolist()
    assert moved == [1, 5, 7]


def test_lbfgs_regression_with_modules_matches_torch():
    # The script a user would write: a linear model fitted with LBFGS and a strong-Wolfe search.
    rng = np.random.default_rng(6)
    x, y = rng.standard_normal((32, 3)), rng.standard_normal((32, 1))
    w0, b0 = rng.standard_normal((1, 3)), rng.standard_normal(1)
    results = []
    for m in (flow, torch):
        model = m.nn.Linear(3, 1).double()
        with m.no_grad():
            model.weight.copy_(m.tensor(w0))
            model.bias.copy_(m.tensor(b0))
        opt = m.optim.LBFGS(model.parameters(), lr=1, history_size=5, line_search_fn="strong_wolfe")
        xs, ys = m.tensor(x), m.tensor(y)

        def closure(model=model, opt=opt, xs=xs, ys=ys, m=m):
            opt.zero_grad()
            loss = m.nn.functional.mse_loss(model(xs), ys)
            loss.backward()
            return loss

        losses = [float(opt.step(closure).detach()) for _ in range(3)]
        results.append((losses, [p.detach().numpy() for p in model.parameters()]))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-9)
    for a, b in zip(results[0][1], results[1][1]):
        np.testing.assert_allclose(a, b, rtol=1e-8, atol=1e-10)
