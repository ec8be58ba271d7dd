"""Non-linear regression fitted with L-BFGS and a closure, without and with strong-Wolfe line search."""

import numpy as np


def run(torch, steps=6, init=lambda model: None, line_search_fn=None):
    """Runs ``steps`` L-BFGS steps; returns the loss each closure evaluation saw, then each step's."""
    nn = torch.nn
    torch.manual_seed(0)

    # Curve fitting wants float64: L-BFGS's curvature pairs and line search lose their meaning
    # once the loss changes by less than float32's resolution.
    model = nn.Sequential(nn.Linear(1, 16), nn.Tanh(), nn.Linear(16, 16), nn.Tanh(), nn.Linear(16, 1)).double()
    init(model)

    rng = np.random.default_rng(5)
    x = np.linspace(-2, 2, 64)[:, None]
    y = np.sin(2 * x) + 0.3 * x**2 + 0.05 * rng.standard_normal(x.shape)
    x, y = torch.from_numpy(x), torch.from_numpy(y)

    optimizer = torch.optim.LBFGS(model.parameters(), lr=1, max_iter=10, history_size=5, line_search_fn=line_search_fn)
    evaluations = []

    def closure():
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        evaluations.append(loss.item())
        return loss

    losses = []
    for _ in range(steps):
        losses.append(optimizer.step(closure).item())
    return evaluations + losses


def run_strong_wolfe(torch, steps=6, init=lambda model: None):
    """The same fit with ``line_search_fn='strong_wolfe'``."""
    return run(torch, steps, init, line_search_fn="strong_wolfe")
