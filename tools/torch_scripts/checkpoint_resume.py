"""Checkpoint and resume: save model, optimizer and scheduler state, reload into fresh objects, go on."""

import os
import tempfile

import numpy as np


def _build(torch):
    nn = torch.nn

    class Regressor(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(nn.Linear(10, 32), nn.BatchNorm1d(32), nn.SiLU(), nn.Linear(32, 32), nn.SiLU())
            self.head = nn.Linear(32, 2)

        def forward(self, x):
            return self.head(self.body(x))

    model = Regressor()
    optimizer = torch.optim.Adam(model.parameters(), lr=5e-3, weight_decay=1e-4, amsgrad=True)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=2e-2, total_steps=40)
    return model, optimizer, scheduler


def _data(steps):
    rng = np.random.default_rng(8)
    w = rng.standard_normal((10, 2))
    xs = rng.standard_normal((steps, 16, 10)).astype(np.float32)
    return xs, np.tanh(xs @ w).astype(np.float32)


def _train(torch, model, optimizer, scheduler, xs, ys):
    losses = []
    model.train()
    for x, y in zip(xs, ys):
        optimizer.zero_grad()
        loss = torch.nn.functional.mse_loss(model(torch.from_numpy(x)), torch.from_numpy(y))
        loss.backward()
        optimizer.step()
        scheduler.step()
        losses.append(loss.item())
    return losses


def run(torch, steps=20, init=lambda model: None):
    """Trains ``steps // 2`` steps, checkpoints to disk, resumes in fresh objects and trains the rest."""
    torch.manual_seed(0)
    xs, ys = _data(steps)
    half = steps // 2
    model, optimizer, scheduler = _build(torch)
    init(model)
    losses = _train(torch, model, optimizer, scheduler, xs[:half], ys[:half])

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "checkpoint.pt")
        torch.save(
            {
                "step": half,
                "model": model.state_dict(),
                "optimizer": optimizer.state_dict(),
                "scheduler": scheduler.state_dict(),
            },
            path,
        )
        del model, optimizer, scheduler
        torch.manual_seed(123)  # the fresh objects start from other weights
        model, optimizer, scheduler = _build(torch)
        checkpoint = torch.load(path)
        model.load_state_dict(checkpoint["model"])
        optimizer.load_state_dict(checkpoint["optimizer"])
        scheduler.load_state_dict(checkpoint["scheduler"])
        start = checkpoint["step"]

    losses += _train(torch, model, optimizer, scheduler, xs[start:], ys[start:])
    model.eval()
    with torch.no_grad():
        losses.append(torch.nn.functional.mse_loss(model(torch.from_numpy(xs[0])), torch.from_numpy(ys[0])).item())
    return losses


def run_uninterrupted(torch, steps=20, init=lambda model: None):
    """The same training without the checkpoint in between."""
    torch.manual_seed(0)
    xs, ys = _data(steps)
    model, optimizer, scheduler = _build(torch)
    init(model)
    losses = _train(torch, model, optimizer, scheduler, xs, ys)
    model.eval()
    with torch.no_grad():
        losses.append(torch.nn.functional.mse_loss(model(torch.from_numpy(xs[0])), torch.from_numpy(ys[0])).item())
    return losses
