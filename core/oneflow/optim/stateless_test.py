"""oneflow.optim.swap_in_optimizer_params_and_state against torch's: a step inside the context
updates the swapped-in parameters and state tensors exactly as torch's does, the live optimizer
comes back unchanged, and malformed states are refused."""

import numpy as np
import pytest
import torch

import oneflow as flow


def _setup(lib, seed=0):
    rng = np.random.RandomState(seed)
    model = lib.nn.Linear(3, 2).double()
    with lib.no_grad():
        for p in model.parameters():
            p.copy_(lib.tensor(rng.randn(*p.shape)))
    opt = lib.optim.Adam([{"params": [model.weight]}, {"params": [model.bias], "lr": 0.5}], lr=0.1)
    x = lib.tensor(rng.randn(4, 3))
    model(x).pow(2).sum().backward()
    opt.step()
    return model, opt


def _clone_state(lib, opt):
    sd = opt.state_dict()
    state = {
        k: {n: (v.clone() if isinstance(v, lib.Tensor) else v) for n, v in s.items()} for k, s in sd["state"].items()
    }
    return {"state": state, "param_groups": [dict(g) for g in sd["param_groups"]]}


@pytest.mark.parametrize("lr", [0.01, 0.3])
def test_step_on_swapped_params_matches_torch(lr):
    results = []
    for lib, swap in (
        (flow, flow.optim.swap_in_optimizer_params_and_state),
        (torch, torch.optim._stateless.swap_in_optimizer_params_and_state),
    ):
        model, opt = _setup(lib)
        live = [p.detach().clone() for p in model.parameters()]
        live_state = {k: v.clone() for k, v in opt.state[model.weight].items() if isinstance(v, lib.Tensor)}
        params = {n: p.detach().clone().requires_grad_(True) for n, p in model.named_parameters()}
        for p in params.values():
            p.grad = lib.ones_like(p)
        osd = _clone_state(lib, opt)
        for g in osd["param_groups"]:
            g["lr"] = lr
        with swap(opt, params, osd):
            assert opt.param_groups[0]["params"][0] is params["weight"]
            opt.step()
        # the live optimizer and model are back as they were
        assert opt.param_groups[0]["params"][0] is model.weight and opt.param_groups[0]["lr"] == 0.1
        for a, b in zip(model.parameters(), live):
            np.testing.assert_array_equal(a.detach().numpy(), b.numpy())
        for k, v in live_state.items():
            np.testing.assert_array_equal(opt.state[model.weight][k].numpy(), v.numpy())
        results.append(
            (
                [p.detach().numpy() for p in params.values()],
                [osd["state"][0][k].numpy() for k in ("exp_avg", "exp_avg_sq")],
            )
        )
    for a, b in zip(results[0][0] + results[0][1], results[1][0] + results[1][1]):
        np.testing.assert_allclose(a, b, atol=1e-12)


def test_errors():
    swap = flow.optim.swap_in_optimizer_params_and_state
    model, opt = _setup(flow)
    params = dict(model.named_parameters())
    fresh = flow.optim.SGD(flow.nn.Linear(2, 2).parameters(), lr=0.1)
    cases = [
        (fresh, params, {"state": {}, "param_groups": []}, "requires initialized optimizer state"),
        (opt, params, [1], "DCP-style optimizer state_dict"),
        (opt, params, {"state": [], "param_groups": []}, "to be a dict mapping packed parameter ids"),
        (opt, params, {"state": {0: 1}, "param_groups": []}, "entries to be dictionaries"),
        (opt, params, {"state": {}, "param_groups": [{}]}, "different number of parameter groups"),
        (opt, params, {"state": {5: {}}, "param_groups": opt.state_dict()["param_groups"]}, "extra keys \\[5\\]"),
        (opt, {}, opt.state_dict(), "match optimizer.param_groups ordering"),
    ]
    for o, p, s, msg in cases:
        with pytest.raises(RuntimeError, match=msg):
            with swap(o, p, s):
                pass
    bad = opt.state_dict()
    bad["param_groups"] = [dict(g) for g in bad["param_groups"]]
    bad["param_groups"][0]["extra"] = 1
    with pytest.raises(RuntimeError, match="Keys only in swap-in: \\['extra'\\]"):
        with swap(opt, params, bad):
            pass
