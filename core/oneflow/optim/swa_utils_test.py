"""oneflow.optim.swa_utils against torch.optim.swa_utils: averaged weights after a few training
steps (SWA, EMA, custom avg_fn, multi_avg_fn, use_buffers), update_bn, the SWALR schedule
(cos/linear, anneal_epochs 0 and more, per-group swa_lr), state dicts, and bad input."""

import warnings

import numpy as np
import pytest
import torch
import torch.optim.swa_utils as TS

import oneflow as flow
import oneflow.optim.swa_utils as FS


def _np(t):
    return t.detach().numpy()


def _models(seed=0):
    def make(lib):
        nn = lib.nn
        return nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.ReLU(), nn.Linear(4, 2)).double()

    fm, tm = make(flow), make(torch)
    rng = np.random.RandomState(seed)
    sd = {}
    for k, v in tm.state_dict().items():
        sd[k] = rng.randn(*v.shape) if v.dtype.is_floating_point else v.numpy()
    sd["1.running_var"] = np.abs(sd["1.running_var"]) + 0.5
    tm.load_state_dict({k: torch.tensor(v) for k, v in sd.items()})
    fm.load_state_dict(sd)
    return fm, tm


def _train_step(m, lib, opt, x, y):
    opt.zero_grad()
    loss = ((m(lib.tensor(x)) - lib.tensor(y)) ** 2).mean()
    loss.backward()
    opt.step()


AVG_KINDS = {
    "swa": lambda S: {},
    "ema": lambda S: {"multi_avg_fn": S.get_ema_multi_avg_fn(0.9)},
    "ema_single": lambda S: {"avg_fn": S.get_ema_avg_fn(0.8)},
    "swa_multi": lambda S: {"multi_avg_fn": S.get_swa_multi_avg_fn()},
    "swa_single": lambda S: {"avg_fn": S.get_swa_avg_fn()},
    "custom": lambda S: {"avg_fn": lambda avg, cur, n: 0.5 * avg + 0.5 * cur + 0.0 * n},
}


@pytest.mark.parametrize("kind", list(AVG_KINDS))
@pytest.mark.parametrize("use_buffers", [False, True])
def test_averaged_model_training_matches_torch(kind, use_buffers):
    fm, tm = _models()
    if kind == "swa_multi" and use_buffers:
        # torch's swa multi_avg_fn refuses the integer num_batches_tracked buffer (addcdiv); so do we.
        for S, m in ((FS, fm), (TS, tm)):
            averaged = S.AveragedModel(m, use_buffers=True, **AVG_KINDS[kind](S))
            averaged.update_parameters(m)
            with pytest.raises(RuntimeError, match="Integer division with addcdiv"):
                averaged.update_parameters(m)
        return
    fa = FS.AveragedModel(fm, use_buffers=use_buffers, **AVG_KINDS[kind](FS))
    ta = TS.AveragedModel(tm, use_buffers=use_buffers, **AVG_KINDS[kind](TS))
    assert list(fa.state_dict()) == list(ta.state_dict())
    fopt = flow.optim.SGD(fm.parameters(), lr=0.1, momentum=0.9)
    topt = torch.optim.SGD(tm.parameters(), lr=0.1, momentum=0.9)
    fsched, tsched = FS.SWALR(fopt, swa_lr=0.02, anneal_epochs=2), TS.SWALR(topt, swa_lr=0.02, anneal_epochs=2)
    rng = np.random.RandomState(1)
    for _ in range(5):
        x, y = rng.randn(8, 3), rng.randn(8, 2)
        _train_step(fm, flow, fopt, x, y)
        _train_step(tm, torch, topt, x, y)
        fa.update_parameters(fm)
        ta.update_parameters(tm)
        fsched.step()
        tsched.step()
    assert int(fa.n_averaged) == int(ta.n_averaged) == 5
    assert fsched.get_last_lr() == pytest.approx(tsched.get_last_lr(), abs=1e-15)
    for k, v in ta.state_dict().items():
        np.testing.assert_allclose(_np(fa.state_dict()[k]), v.numpy(), atol=1e-10, err_msg=k)
    # the averaged model is a copy: training the model did not move it
    assert not np.allclose(_np(fa.module[0].weight), _np(fm[0].weight))
    x = rng.randn(5, 3)
    fa.eval()
    ta.eval()
    np.testing.assert_allclose(_np(fa(flow.tensor(x))), _np(ta(torch.tensor(x))), atol=1e-10)


def test_first_update_copies_and_buffers_follow_model():
    fm, _ = _models()
    fa = FS.AveragedModel(fm)
    with flow.no_grad():
        for p in fm.parameters():
            p.add_(1.0)
        fm[1].running_mean.add_(3.0)
    fa.update_parameters(fm)
    for (_, a), (_, b) in zip(fa.module.state_dict().items(), fm.state_dict().items()):
        np.testing.assert_array_equal(_np(a), _np(b))


def test_update_bn_matches_torch():
    fm, tm = _models()
    fa, ta = FS.AveragedModel(fm), TS.AveragedModel(tm)
    rng = np.random.RandomState(2)
    batches = [rng.randn(6, 3) for _ in range(4)]
    fa.eval()
    ta.eval()
    FS.update_bn([(flow.tensor(b), 0) for b in batches], fa)
    TS.update_bn([(torch.tensor(b), 0) for b in batches], ta)
    assert not fa.training and fa.module[1].momentum == 0.1
    for k in ("running_mean", "running_var", "num_batches_tracked"):
        np.testing.assert_allclose(_np(getattr(fa.module[1], k)), getattr(ta.module[1], k).numpy(), atol=1e-12)
    # the statistics are the plain average over the batches
    h = [b @ _np(fm[0].weight).T + _np(fm[0].bias) for b in batches]
    np.testing.assert_allclose(_np(fa.module[1].running_mean), np.mean([x.mean(0) for x in h], 0), atol=1e-12)
    # tensors straight from the loader, and a model without batch norm (nothing happens)
    FS.update_bn([flow.tensor(b) for b in batches], fm)
    FS.update_bn([flow.tensor(b) for b in batches], flow.nn.Linear(3, 1))


@pytest.mark.parametrize("strategy", ["cos", "linear"])
@pytest.mark.parametrize("anneal_epochs", [0, 1, 3])
def test_swalr_schedule(strategy, anneal_epochs):
    def run(lib, S):
        p1, p2 = lib.nn.Parameter(lib.zeros(2)), lib.nn.Parameter(lib.zeros(2))
        opt = lib.optim.SGD([{"params": [p1]}, {"params": [p2], "lr": 0.5}], lr=1.0)
        sched = S.SWALR(opt, swa_lr=[0.1, 0.05], anneal_epochs=anneal_epochs, anneal_strategy=strategy)
        lrs = [sched.get_last_lr()]
        for _ in range(6):
            opt.step()
            sched.step()
            lrs.append(sched.get_last_lr())
        return lrs, opt, sched

    flrs, fopt, fsched = run(flow, FS)
    tlrs, topt, tsched = run(torch, TS)
    np.testing.assert_allclose(np.array(flrs), np.array(tlrs), atol=1e-14)
    assert [g["swa_lr"] for g in fopt.param_groups] == [0.1, 0.05]
    assert flrs[-1] == pytest.approx([0.1, 0.05])
    sd = fsched.state_dict()
    assert "anneal_func" not in sd and "optimizer" not in sd and sd["_anneal_strategy"] == strategy
    assert set(sd) == set(tsched.state_dict())
    other = FS.SWALR(fopt, swa_lr=0.3, anneal_strategy="linear" if strategy == "cos" else "cos")
    other.load_state_dict(sd)
    assert other.anneal_func == (FS.SWALR._cosine_anneal if strategy == "cos" else FS.SWALR._linear_anneal)


def test_swalr_get_lr_warns_outside_step():
    opt = flow.optim.SGD([flow.nn.Parameter(flow.zeros(1))], lr=1.0)
    sched = FS.SWALR(opt, swa_lr=0.1)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        sched.get_lr()
    assert any("get_last_lr()" in str(x.message) for x in w)


def test_errors():
    m = flow.nn.Linear(2, 2)
    with pytest.raises(AssertionError, match="Only one of avg_fn and multi_avg_fn"):
        FS.AveragedModel(m, avg_fn=FS.get_swa_avg_fn(), multi_avg_fn=FS.get_swa_multi_avg_fn())
    with pytest.raises(TypeError, match="model must be an nn.Module"):
        FS.AveragedModel("model")
    for fn in (FS.get_ema_avg_fn, FS.get_ema_multi_avg_fn):
        with pytest.raises(ValueError, match="Invalid decay value 1.5"):
            fn(1.5)
    opt = flow.optim.SGD(m.parameters(), lr=0.1)
    with pytest.raises(ValueError, match="anneal_strategy must be one of 'cos' or 'linear'"):
        FS.SWALR(opt, swa_lr=0.1, anneal_strategy="exp")
    with pytest.raises(ValueError, match="anneal_epochs must be equal or greater than 0"):
        FS.SWALR(opt, swa_lr=0.1, anneal_epochs=-1)
    with pytest.raises(ValueError, match="anneal_epochs must be equal or greater than 0"):
        FS.SWALR(opt, swa_lr=0.1, anneal_epochs=1.5)
    with pytest.raises(ValueError, match="swa_lr must have the same length"):
        FS.SWALR(opt, swa_lr=[0.1, 0.2])
    with pytest.raises(TypeError, match="is not an Optimizer"):
        FS.SWALR(m, swa_lr=0.1)
