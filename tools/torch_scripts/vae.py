"""A variational autoencoder: reparameterisation with given noise, BCE reconstruction plus KL."""

import numpy as np


def run(torch, steps=20, init=lambda model: None):
    """Trains ``steps`` mini-batches and returns each step's loss (per sample)."""
    nn = torch.nn
    F = torch.nn.functional
    torch.manual_seed(0)
    features, latent = 24, 4

    class VAE(nn.Module):
        def __init__(self):
            super().__init__()
            self.enc = nn.Sequential(nn.Linear(features, 32), nn.ReLU())
            self.mu = nn.Linear(32, latent)
            self.logvar = nn.Linear(32, latent)
            self.dec = nn.Sequential(nn.Linear(latent, 32), nn.ReLU(), nn.Linear(32, features))

        def encode(self, x):
            h = self.enc(x)
            return self.mu(h), self.logvar(h)

        def reparameterize(self, mu, logvar, eps):
            return mu + eps * torch.exp(0.5 * logvar)

        def forward(self, x, eps):
            mu, logvar = self.encode(x)
            z = self.reparameterize(mu, logvar, eps)
            return torch.sigmoid(self.dec(z)), mu, logvar

    def loss_function(recon, x, mu, logvar):
        bce = F.binary_cross_entropy(recon, x, reduction="sum")
        kld = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
        return (bce + kld) / x.shape[0]

    model = VAE()
    init(model)

    # Binary vectors from two prototypes with bit flips; the noise is drawn up front so that
    # both frameworks see the same samples (their generators differ).
    rng = np.random.default_rng(3)
    protos = rng.random((2, features)) < 0.5
    which = rng.integers(0, 2, (steps, 16))
    flips = rng.random((steps, 16, features)) < 0.1
    data = (protos[which] ^ flips).astype(np.float32)
    noise = rng.standard_normal((steps, 16, latent)).astype(np.float32)

    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    losses = []
    model.train()
    for x, eps in zip(data, noise):
        x, eps = torch.from_numpy(x), torch.from_numpy(eps)
        optimizer.zero_grad()
        recon, mu, logvar = model(x, eps)
        loss = loss_function(recon, x, mu, logvar)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses
