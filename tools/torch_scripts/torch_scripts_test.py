"""Ten ordinary PyTorch training scripts, each written once against a module named ``torch``,
run with PyTorch and with ``import oneflow as torch``: the losses must agree.

Each script's ``run(torch, steps, init)`` builds its models, calls ``init(model)`` on each right
after construction, trains on NumPy-made data and returns the losses it saw. The frameworks'
random generators differ (ours is Philox, torch's CPU one is MT19937), so the harness records
torch's initial state_dicts through ``init`` and loads them into ours; everything else the
scripts draw (data, the VAE's noise, WGAN-GP's mixing weights, the shuffle order) comes from
NumPy. Everything runs in float32, as written; losses agree to 1e-4 relative except under
bfloat16 autocast (see test_mixed_precision).
"""

from __future__ import annotations

import importlib

import numpy as np
import pytest
import torch

import oneflow as flow

RTOL = 1e-4


def _recorder():
    states = []

    def init(model):
        states.append({k: v.detach().numpy().copy() for k, v in model.state_dict().items()})

    return states, init


def _replayer(states):
    pending = iter(states)

    def init(model):
        model.load_state_dict({k: flow.tensor(v) for k, v in next(pending).items()})

    return init


def _both(module: str, fn: str = "run", **kwargs):
    """``fn`` of the script run on torch, then on oneflow from torch's initial weights."""
    script = getattr(importlib.import_module(module), fn)
    states, record = _recorder()
    theirs = script(torch, init=record, **kwargs)
    ours = script(flow, init=_replayer(states), **kwargs)
    return np.array(ours), np.array(theirs)


def _assert_losses(ours, theirs, rtol=RTOL, atol=0.0):
    assert ours.shape == theirs.shape, (ours.shape, theirs.shape)
    assert np.all(np.isfinite(theirs))
    np.testing.assert_allclose(ours, theirs, rtol=rtol, atol=atol)


@pytest.mark.parametrize(
    ("module", "fn"),
    [
        ("cnn", "run"),
        ("rnn", "run"),
        ("transformer", "run"),
        ("vae", "run"),
        ("wgan_gp", "run"),
        ("lbfgs_regression", "run"),
        ("lbfgs_regression", "run_strong_wolfe"),
        ("custom_function", "run"),
        ("dataloader_workers", "run"),
        ("checkpoint_resume", "run"),
    ],
)
def test_losses_match_torch(module, fn):
    ours, theirs = _both(module, fn)
    _assert_losses(ours, theirs)
    # The script must actually train: the last training loss is below the first.
    assert theirs[-2] < theirs[0]
