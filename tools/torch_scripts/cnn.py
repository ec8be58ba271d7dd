"""A small CNN classifier: conv, batch norm and pooling, SGD with momentum, StepLR."""

import numpy as np


def run(torch, steps=20, init=lambda model: None):
    """Trains ``steps`` mini-batches and returns each step's loss, then the eval-mode loss."""
    nn = torch.nn
    F = torch.nn.functional
    torch.manual_seed(0)

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 8, kernel_size=3, padding=1)
            self.bn1 = nn.BatchNorm2d(8)
            self.conv2 = nn.Conv2d(8, 16, kernel_size=3, padding=1)
            self.bn2 = nn.BatchNorm2d(16)
            self.pool = nn.MaxPool2d(2)
            self.fc1 = nn.Linear(16 * 3 * 3, 32)
            self.fc2 = nn.Linear(32, 10)

        def forward(self, x):
            x = self.pool(F.relu(self.bn1(self.conv1(x))))
            x = self.pool(F.relu(self.bn2(self.conv2(x))))
            x = torch.flatten(x, 1)
            return self.fc2(F.relu(self.fc1(x)))

    model = Net()
    init(model)

    # Ten noisy class templates on a 12x12 grid.
    rng = np.random.default_rng(0)
    templates = rng.standard_normal((10, 1, 12, 12)).astype(np.float32)
    labels = rng.integers(0, 10, 256)
    images = templates[labels] + 0.5 * rng.standard_normal((256, 1, 12, 12)).astype(np.float32)
    dataset = torch.utils.data.TensorDataset(torch.from_numpy(images), torch.from_numpy(labels))
    loader = torch.utils.data.DataLoader(dataset, batch_size=32, shuffle=False, drop_last=True)

    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=1e-4)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.7)

    losses = []
    model.train()
    while len(losses) < steps:
        for x, y in loader:
            optimizer.zero_grad()
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
            if len(losses) == steps:
                break
        scheduler.step()

    model.eval()
    with torch.no_grad():
        x, y = dataset[:]
        losses.append(F.cross_entropy(model(x), y).item())
    return losses
