"""End-to-end training parity: small networks trained in oneflow and torch stay in step.

An MLP and a small CNN (conv, batch norm, pooling, a dropout with p=0) are built
once per framework; torch's initial weights are copied into ours, both train 30
steps on the same NumPy mini-batches with cross entropy, and the loss of every
step, the final parameters and the BatchNorm running statistics must agree.
This exercises the layers, their backward passes, the optimizers, schedulers,
gradient clipping and parameter groups together, unlike the per-op and
per-optimizer tests. LAMB has no torch counterpart: the torch side runs the
same model with a transcription of the update from its paper.

Every case runs in float64 (agreement to ~1e-15 expected, so the tolerance is
tight) and in float32 (1e-4 relative on the losses). A float32-only failure
with float64 passing is most likely a round-off near-tie (see _run_case), not
a wrong formula; the CNN is kept narrow and its learning rates moderate to make
those rare.
"""

from __future__ import annotations

import zlib

import numpy as np
import pytest
import torch

import oneflow as flow

STEPS = 30
# dtype: (relative tolerance on every step's loss, tolerance on the final state).
# float64 is the exactness check: both frameworks evaluate the same formulas, so
# they agree to ~1e-15 and any slip in an update rule shows. float32 is the
# everyday setting; see _run_case for why its trajectories drift further apart.
TOLS = {"float32": (1e-4, 1e-4), "float64": (1e-10, 1e-8)}
BATCH = 16
NUM_CLASSES = 10
MLP_IN = 32
CNN_IN = (1, 12, 12)


def _mlp(m):
    nn = m.nn
    return nn.Sequential(
        nn.Linear(MLP_IN, 64),
        nn.ReLU(),
        nn.Linear(64, 32),
        nn.ReLU(),
        nn.Linear(32, NUM_CLASSES),
    )


def _cnn(m):
    # No conv bias before a BatchNorm: its gradient is zero up to round-off, which the
    # adaptive optimizers would normalise into steps of full size but arbitrary sign.
    nn = m.nn
    return nn.Sequential(
        nn.Conv2d(1, 4, kernel_size=3, padding=1, bias=False),
        nn.BatchNorm2d(4),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(4, 8, kernel_size=3, stride=1, padding=1, bias=False),
        nn.BatchNorm2d(8),
        nn.ReLU(),
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.Dropout(p=0.0),
        nn.Linear(8, NUM_CLASSES),
    )


MODELS = {"mlp": (_mlp, (MLP_IN,)), "cnn": (_cnn, CNN_IN)}


def _batches(in_shape: tuple, seed: int, dtype: str = "float32") -> list[tuple[np.ndarray, np.ndarray]]:
    """A fresh mini-batch per step: a noisy copy of its class's fixed pattern, so there is something to learn."""
    rng = np.random.default_rng(seed)
    patterns = rng.standard_normal((NUM_CLASSES, *in_shape))
    out = []
    for _ in range(STEPS):
        y = rng.integers(0, NUM_CLASSES, BATCH)
        x = (patterns[y] + rng.standard_normal((BATCH, *in_shape))).astype(dtype)
        out.append((x, y))
    return out


def _build_pair(model: str, seed: int, dtype: str = "float32"):
    """The same network in both frameworks, ours loaded from torch's random initialisation."""
    factory, in_shape = MODELS[model]
    torch.manual_seed(seed)
    theirs = factory(torch).to(getattr(torch, dtype))
    ours = factory(flow).to(getattr(flow, dtype))
    result = ours.load_state_dict({k: v.detach().numpy() for k, v in theirs.state_dict().items()})
    assert not result.missing_keys and not result.unexpected_keys
    return ours, theirs, in_shape


def _params(net, groups: dict | None):
    """All parameters, or two groups: the first layer's with the overrides in ``groups``."""
    if groups is None:
        return net.parameters()
    first = list(net[0].parameters())
    rest = [p for p in net.parameters() if all(p is not q for q in first)]
    return [{"params": first, **groups}, {"params": rest}]


class _ReferenceLamb(torch.optim.Optimizer):
    """LAMB on torch tensors, written from You et al. (2019), Algorithm 2.

    Adam moments with bias correction; the step direction
    ``r = m_hat / (sqrt(v_hat) + eps) + wd * w`` is scaled per tensor by the trust
    ratio ``||w|| / ||r||`` (1 when either norm is 0): ``w -= lr * ratio * r``.
    The switches follow oneflow.optim.LAMB's documented options: ``adam_w_mode``
    (False: the decay is an L2 term added to the gradient instead of ``r``),
    ``do_bias_correction`` and ``amsgrad`` (the moment's running maximum). A torch
    Optimizer subclass only so that torch's schedulers and param groups drive it.
    """

    def __init__(self, params, lr, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0,
                 adam_w_mode=True, do_bias_correction=True, amsgrad=False):
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "adam_w_mode": adam_w_mode, "do_bias_correction": do_bias_correction, "amsgrad": amsgrad}
        super().__init__(params, defaults)

    @torch.no_grad()
    def step(self, closure=None):
        for group in self.param_groups:
            b1, b2 = group["betas"]
            wd, eps = group["weight_decay"], group["eps"]
            for w in group["params"]:
                state = self.state[w]
                if not state:
                    state.update(t=0, m=torch.zeros_like(w), v=torch.zeros_like(w), v_max=torch.zeros_like(w))
                state["t"] += 1
                t = state["t"]
                g = w.grad
                if not group["adam_w_mode"]:
                    g = g + wd * w
                state["m"] = m = b1 * state["m"] + (1 - b1) * g
                state["v"] = v = b2 * state["v"] + (1 - b2) * g * g
                if group["amsgrad"]:
                    state["v_max"] = v = torch.maximum(state["v_max"], v)
                if group["do_bias_correction"]:
                    m = m / (1 - b1**t)
                    v = v / (1 - b2**t)
                r = m / (v.sqrt() + eps)
                if group["adam_w_mode"]:
                    r = r + wd * w
                w_norm, r_norm = float(w.norm()), float(r.norm())
                ratio = w_norm / r_norm if w_norm > 0 and r_norm > 0 else 1.0
                w -= group["lr"] * ratio * r


def _make_optimizer(m, name: str, params, kwargs: dict):
    if name == "Lamb":
        return flow.optim.LAMB(params, **kwargs) if m is flow else _ReferenceLamb(params, **kwargs)
    return getattr(m.optim, name)(params, **kwargs)


def _train(m, net, opt, batches, scheduler=None, clip=None):
    """Runs the loop; returns the per-step losses and, when clipping, the pre-clip norms."""
    net.train()
    losses, norms = [], []
    for x, y in batches:
        opt.zero_grad()
        loss = m.nn.functional.cross_entropy(net(m.tensor(x)), m.tensor(y))
        loss.backward()
        if clip is not None:
            norms.append(float(m.nn.utils.clip_grad_norm_(net.parameters(), clip)))
        opt.step()
        if scheduler is not None:
            scheduler.step()
        losses.append(float(loss.item()))
    return np.array(losses), np.array(norms)


# (id, model, optimizer, kwargs, extras); extras may set "scheduler" (name, kwargs),
# "clip" (max_norm) and "groups" (the first layer's group overrides).
CASES = [
    ("sgd_nesterov", "mlp", "SGD",
     {"lr": 0.05, "momentum": 0.9, "nesterov": True, "weight_decay": 1e-4, "dampening": 0}, {}),
    ("sgd_nesterov", "cnn", "SGD",
     {"lr": 0.05, "momentum": 0.9, "nesterov": True, "weight_decay": 1e-4, "dampening": 0}, {}),
    ("sgd_steplr", "cnn", "SGD", {"lr": 0.1, "momentum": 0.9, "weight_decay": 1e-4},
     {"scheduler": ("StepLR", {"step_size": 10, "gamma": 0.5})}),
    ("sgd_two_groups", "mlp", "SGD", {"lr": 0.05, "momentum": 0.9, "weight_decay": 1e-4},
     {"groups": {"lr": 0.005, "momentum": 0.0}}),
    ("adam_two_groups", "cnn", "Adam", {"lr": 1e-2}, {"groups": {"lr": 1e-3, "betas": (0.8, 0.9)}}),
    ("adam", "mlp", "Adam", {"lr": 1e-3, "weight_decay": 1e-3}, {}),
    ("adam", "cnn", "Adam", {"lr": 1e-2, "weight_decay": 1e-3}, {}),
    ("adam_amsgrad", "mlp", "Adam", {"lr": 1e-3, "amsgrad": True, "weight_decay": 1e-3}, {}),
    ("adam_amsgrad", "cnn", "Adam", {"lr": 1e-2, "amsgrad": True, "betas": (0.8, 0.99)}, {}),
    ("adam_cosine", "cnn", "Adam", {"lr": 1e-2},
     {"scheduler": ("CosineAnnealingLR", {"T_max": STEPS, "eta_min": 1e-4})}),
    ("adam_clip", "mlp", "Adam", {"lr": 1e-2}, {"clip": 0.5}),
    ("adamw", "mlp", "AdamW", {"lr": 1e-3, "weight_decay": 0.1}, {}),
    ("adamw", "cnn", "AdamW", {"lr": 1e-2, "weight_decay": 0.05, "amsgrad": True}, {}),
    ("rmsprop_centered", "mlp", "RMSprop",
     {"lr": 1e-3, "alpha": 0.9, "momentum": 0.9, "centered": True, "weight_decay": 1e-4}, {}),
    ("rmsprop_centered", "cnn", "RMSprop",
     {"lr": 5e-4, "momentum": 0.5, "centered": True}, {}),
    ("rmsprop_clip", "cnn", "RMSprop", {"lr": 1e-3, "momentum": 0.9}, {"clip": 0.4}),
    ("adagrad", "mlp", "Adagrad", {"lr": 0.05, "lr_decay": 0.01, "weight_decay": 1e-4,
                                   "initial_accumulator_value": 0.1}, {}),
    ("adagrad", "cnn", "Adagrad", {"lr": 0.02}, {}),
    ("adadelta", "mlp", "Adadelta", {"lr": 1.0, "rho": 0.9, "weight_decay": 1e-4}, {}),
    ("adadelta", "cnn", "Adadelta", {"lr": 1.0}, {}),
    ("adamax", "mlp", "Adamax", {"lr": 2e-3, "weight_decay": 1e-4}, {}),
    ("adamax", "cnn", "Adamax", {"lr": 1e-2, "betas": (0.8, 0.99)}, {}),
    ("nadam", "mlp", "NAdam", {"lr": 2e-3, "weight_decay": 1e-4}, {}),
    ("nadam", "cnn", "NAdam", {"lr": 5e-3, "weight_decay": 1e-3, "decoupled_weight_decay": True}, {}),
    ("lamb", "mlp", "Lamb", {"lr": 1e-2, "weight_decay": 0.01}, {}),
    ("lamb_l2", "mlp", "Lamb", {"lr": 1e-2, "weight_decay": 0.01, "adam_w_mode": False}, {}),
    ("lamb_nobias_amsgrad", "mlp", "Lamb",
     {"lr": 1e-2, "betas": (0.8, 0.99), "do_bias_correction": False, "amsgrad": True}, {}),
    ("lamb", "cnn", "Lamb", {"lr": 2e-2, "weight_decay": 0.01},
     {"scheduler": ("StepLR", {"step_size": 10, "gamma": 0.5})}),
]


def _case_id(case) -> str:
    return f"{case[2]}-{case[1]}-{case[0]}"


def _assert_losses_close(ours: np.ndarray, theirs: np.ndarray, rtol: float) -> None:
    rel = np.abs(ours - theirs) / np.abs(theirs)
    worst = int(rel.argmax())
    assert rel.max() <= rtol, (
        f"step {worst}: loss {ours[worst]!r} vs torch {theirs[worst]!r} (relative {rel[worst]:.2e}); "
        f"ours {ours.tolist()}\ntorch {theirs.tolist()}"
    )


def _assert_state_close(ours, theirs, tol: float) -> None:
    """Every parameter and buffer (BatchNorm running statistics and batch counts included)."""
    mine = ours.state_dict()
    ref = theirs.state_dict()
    assert list(mine) == list(ref)
    for key, want in ref.items():
        got = mine[key].numpy()
        want = want.detach().numpy()
        assert got.shape == want.shape, key
        if want.dtype == np.int64:
            np.testing.assert_array_equal(got, want, err_msg=key)
            continue
        scale = max(1.0, float(np.abs(want).max()))
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol * scale, err_msg=key)


def _run_case(case, dtype: str, seed: int | None = None):
    """Trains both frameworks; returns the two nets and the two (losses, clip norms) pairs.

    The seed (initial weights and data) is fixed per case. In float32 the two
    frameworks' round-off differs (summation orders in the kernels), and now
    and then that decides a discrete choice differently: two entries of a
    max-pool window within ~1e-7 of each other, or a gradient entry near an
    adaptive optimizer's eps. The runs then part by much more than round-off
    and, with a CNN's effective step sizes, the gap grows over the remaining
    steps; torch's own float32 and float64 runs part the same way. Across seeds
    a few CNN cases do so beyond 1e-4; float64 (where such near-ties are
    ~1e9 times rarer) always agrees to ~1e-15.
    """
    _, model, name, kwargs, extras = case
    if seed is None:
        seed = zlib.crc32(_case_id(case).encode())
    ours, theirs, in_shape = _build_pair(model, seed, dtype)
    batches = _batches(in_shape, seed, dtype)
    runs = []
    for m, net in ((flow, ours), (torch, theirs)):
        opt = _make_optimizer(m, name, _params(net, extras.get("groups")), kwargs)
        scheduler = None
        if "scheduler" in extras:
            sched_name, sched_kwargs = extras["scheduler"]
            scheduler = getattr(m.optim.lr_scheduler, sched_name)(opt, **sched_kwargs)
        runs.append(_train(m, net, opt, batches, scheduler, extras.get("clip")))
    return ours, theirs, runs


@pytest.mark.parametrize("dtype", list(TOLS))
@pytest.mark.parametrize("case", CASES, ids=[_case_id(c) for c in CASES])
def test_training_matches_torch(case, dtype):
    extras = case[4]
    loss_rtol, state_tol = TOLS[dtype]
    ours, theirs, ((our_losses, our_norms), (their_losses, their_norms)) = _run_case(case, dtype)
    # The networks must actually train, or equal losses would say little.
    assert their_losses[-5:].mean() < their_losses[:5].mean()
    _assert_losses_close(our_losses, their_losses, loss_rtol)
    if "clip" in extras:
        # Clipping must have engaged, and the pre-clip norms agree.
        assert (their_norms > extras["clip"]).any()
        np.testing.assert_allclose(our_norms, their_norms, rtol=loss_rtol)
    _assert_state_close(ours, theirs, state_tol)


def test_lamb_reference_is_not_adam():
    """The trust ratio must matter here, or the LAMB cases would only re-test Adam."""
    ours, theirs, in_shape = _build_pair("mlp", 99)
    batches = _batches(in_shape, 99)
    lamb = _train(torch, theirs, _ReferenceLamb(theirs.parameters(), lr=1e-2), batches)[0]
    adam = _train(flow, ours, flow.optim.Adam(ours.parameters(), lr=1e-2), batches)[0]
    assert np.abs(lamb - adam).max() > 0.01 * np.abs(adam).max()
