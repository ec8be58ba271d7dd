"""WGAN-GP on a 2-D Gaussian mixture: the gradient penalty takes a double backward."""

import numpy as np


def run(torch, steps=10, init=lambda model: None):
    """Runs ``steps`` generator steps (two critic steps each); returns the critic and generator losses."""
    nn = torch.nn
    torch.manual_seed(0)
    latent, batch, n_critic, lambda_gp = 4, 32, 2, 10.0

    generator = nn.Sequential(nn.Linear(latent, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 2))
    critic = nn.Sequential(nn.Linear(2, 32), nn.LeakyReLU(0.2), nn.Linear(32, 32), nn.Tanh(), nn.Linear(32, 1))
    init(generator)
    init(critic)

    rng = np.random.default_rng(4)
    centers = np.array([[2.0, 0.0], [-2.0, 0.0], [0.0, 2.0], [0.0, -2.0]], dtype=np.float32)

    def sample_real():
        pick = rng.integers(0, 4, batch)
        return torch.from_numpy(centers[pick] + 0.1 * rng.standard_normal((batch, 2)).astype(np.float32))

    def sample_noise():
        return torch.from_numpy(rng.standard_normal((batch, latent)).astype(np.float32))

    def gradient_penalty(real, fake):
        alpha = torch.from_numpy(rng.random((batch, 1)).astype(np.float32))
        mixed = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
        score = critic(mixed)
        (grad,) = torch.autograd.grad(
            outputs=score, inputs=mixed, grad_outputs=torch.ones_like(score), create_graph=True, retain_graph=True
        )
        return ((grad.norm(2, dim=1) - 1) ** 2).mean()

    opt_g = torch.optim.Adam(generator.parameters(), lr=1e-3, betas=(0.5, 0.9))
    opt_c = torch.optim.Adam(critic.parameters(), lr=1e-3, betas=(0.5, 0.9))
    losses = []
    for _ in range(steps):
        for _ in range(n_critic):
            real = sample_real()
            fake = generator(sample_noise()).detach()
            opt_c.zero_grad()
            penalty = gradient_penalty(real, fake)
            loss_c = critic(fake).mean() - critic(real).mean() + lambda_gp * penalty
            loss_c.backward()
            opt_c.step()
            losses.append(loss_c.item())

        for p in critic.parameters():
            p.requires_grad_(False)
        opt_g.zero_grad()
        loss_g = -critic(generator(sample_noise())).mean()
        loss_g.backward()
        opt_g.step()
        for p in critic.parameters():
            p.requires_grad_(True)
        losses.append(loss_g.item())
    return losses
