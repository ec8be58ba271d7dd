"""A map-style Dataset read by a DataLoader with two persistent worker processes."""

import numpy as np


def run(torch, steps=3, init=lambda model: None):
    """Trains ``steps`` epochs; returns each mini-batch's loss."""
    nn = torch.nn
    torch.manual_seed(0)

    class Polynomials(torch.utils.data.Dataset):
        """Sample i: the coefficients of a random cubic and its values on a grid, made from i alone."""

        def __init__(self, size):
            self.size = size
            self.grid = np.linspace(-1, 1, 12, dtype=np.float32)

        def __len__(self):
            return self.size

        def __getitem__(self, index):
            rng = np.random.default_rng(1000 + index)
            coeffs = rng.standard_normal(4).astype(np.float32)
            values = np.polyval(coeffs, self.grid).astype(np.float32)
            return {"values": torch.from_numpy(values), "coeffs": torch.tensor(coeffs)}

    class EpochShuffle(torch.utils.data.Sampler):
        """A seeded permutation per epoch (NumPy's generator, so the order is the same in every framework)."""

        def __init__(self, n, seed):
            self.n, self.seed, self.epoch = n, seed, 0

        def set_epoch(self, epoch):
            self.epoch = epoch

        def __iter__(self):
            return iter(np.random.default_rng((self.seed, self.epoch)).permutation(self.n).tolist())

        def __len__(self):
            return self.n

    dataset = Polynomials(96)
    sampler = EpochShuffle(len(dataset), seed=0)
    loader = torch.utils.data.DataLoader(
        dataset,
        batch_size=16,
        sampler=sampler,
        num_workers=2,
        persistent_workers=True,
        prefetch_factor=2,
        drop_last=False,
    )

    model = nn.Sequential(nn.Linear(12, 32), nn.Softplus(), nn.Linear(32, 4))
    init(model)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=steps)

    losses = []
    for epoch in range(steps):
        sampler.set_epoch(epoch)
        for batch in loader:
            optimizer.zero_grad()
            loss = nn.functional.mse_loss(model(batch["values"]), batch["coeffs"])
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        scheduler.step()
    return losses


def shuffled_orders(torch, seed=0, epochs=2):
    """The index order of ``shuffle=True`` with a seeded generator over two epochs, via two workers."""
    dataset = torch.utils.data.TensorDataset(torch.arange(20))
    generator = torch.Generator()
    generator.manual_seed(seed)
    loader = torch.utils.data.DataLoader(
        dataset, batch_size=5, shuffle=True, generator=generator, num_workers=2, persistent_workers=True
    )
    return [[int(i) for (batch,) in loader for i in batch] for _ in range(epochs)]
