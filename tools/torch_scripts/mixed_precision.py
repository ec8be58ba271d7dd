"""Mixed precision on the CPU: bfloat16 autocast for the forward pass and a GradScaler."""

import numpy as np


def run(torch, steps=20, init=lambda model: None, enabled=True):
    """Trains ``steps`` mini-batches; returns each step's loss, then the scale after each step."""
    nn = torch.nn
    torch.manual_seed(0)

    class MLP(nn.Module):
        def __init__(self):
            super().__init__()
            self.net = nn.Sequential(
                nn.Linear(16, 64), nn.GELU(), nn.LayerNorm(64), nn.Linear(64, 64), nn.GELU(), nn.Linear(64, 5)
            )

        def forward(self, x):
            return self.net(x)

    model = MLP()
    init(model)

    rng = np.random.default_rng(7)
    proj = rng.standard_normal((16, 5))
    xs = rng.standard_normal((steps, 32, 16)).astype(np.float32)
    ys = np.argmax(xs @ proj, axis=-1)

    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, nesterov=True)
    # bfloat16 has float32's range, so the scaler is not needed against underflow; it is used
    # here as a script written for float16 would, with its usual unscale-before-clip step.
    scaler = torch.amp.GradScaler("cpu", init_scale=2.0**10, growth_interval=4, enabled=enabled)
    losses, scales = [], []
    for x, y in zip(xs, ys):
        x, y = torch.from_numpy(x), torch.from_numpy(y)
        optimizer.zero_grad()
        with torch.autocast(device_type="cpu", dtype=torch.bfloat16, enabled=enabled):
            logits = model(x)
            loss = nn.functional.cross_entropy(logits, y)
        assert logits.dtype == (torch.bfloat16 if enabled else torch.float32), logits.dtype
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
        nn.utils.clip_grad_norm_(model.parameters(), max_norm=2.0)
        scaler.step(optimizer)
        scaler.update()
        losses.append(loss.item())
        scales.append(scaler.get_scale())
    return losses + scales
