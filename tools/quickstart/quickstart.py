"""The main job: train a small CNN on real handwritten digits.

    ./tools/bazel run //:quickstart                          # train, checkpoint, test accuracy
    ./tools/bazel run //:quickstart -- --resume               # continue from the checkpoint
    ./tools/bazel run //:quickstart -- --resume --epochs 12   # ... and train past the first 8

The 1797 8x8 digit images ship inside scikit-learn (no download). The script is
what a PyTorch user writes: a Dataset and a DataLoader with 2 worker processes,
nn layers, AdamW with a cosine learning-rate schedule, a tqdm progress bar, and
a checkpoint written with oneflow.save after every epoch. The checkpoint holds
the random-number state too, so an interrupted run resumed with --resume ends
with exactly the weights of an uninterrupted one.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Sequence

import numpy as np
from sklearn.datasets import load_digits
from tqdm import tqdm

import oneflow as flow
from oneflow import nn
from oneflow.utils.data import DataLoader, Dataset

BATCH_SIZE = 64


class Digits(Dataset):
    """Images scaled to [0, 1] as (1, 8, 8) float tensors; labels as Python ints."""

    def __init__(self, images: np.ndarray, labels: np.ndarray):
        self.images = (images / 16.0).astype(np.float32).reshape(-1, 1, 8, 8)
        self.labels = labels.astype(np.int64)

    def __len__(self) -> int:
        return len(self.labels)

    def __getitem__(self, i: int):
        return flow.from_numpy(self.images[i]), int(self.labels[i])


class Net(nn.Module):
    """Two 3x3 conv blocks with batch norm, a 2x2 max pool, dropout and a linear classifier."""

    def __init__(self, num_classes: int = 10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
            nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(),
            nn.MaxPool2d(2),
        )
        self.classifier = nn.Sequential(nn.Flatten(), nn.Dropout(0.2), nn.Linear(64 * 4 * 4, num_classes))

    def forward(self, x: flow.Tensor) -> flow.Tensor:
        return self.classifier(self.features(x))


def split_digits(seed: int = 0, train_fraction: float = 0.8):
    """A fixed shuffled split of scikit-learn's digits into train and test sets."""
    digits = load_digits()
    order = np.random.default_rng(seed).permutation(len(digits.target))
    cut = int(train_fraction * len(order))
    train, test = order[:cut], order[cut:]
    return Digits(digits.data[train], digits.target[train]), Digits(digits.data[test], digits.target[test])


def evaluate(model: nn.Module, loader: DataLoader) -> float:
    """Top-1 accuracy of ``model`` over ``loader``."""
    model.eval()
    correct = total = 0
    with flow.no_grad():
        for images, labels in loader:
            correct += (model(images).argmax(1) == labels).sum().item()
            total += labels.shape[0]
    return correct / total


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    here = os.environ.get("BUILD_WORKING_DIRECTORY", os.getcwd())  # where `bazel run` was typed
    parser = argparse.ArgumentParser(description="Train a small CNN on scikit-learn's handwritten digits.")
    parser.add_argument("--epochs", type=int, default=8, help="total epochs, counting those already done")
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--workers", type=int, default=2, help="DataLoader worker processes")
    parser.add_argument("--checkpoint", default=os.path.join(here, "quickstart_checkpoint.of"))
    parser.add_argument("--resume", action="store_true", help="continue from --checkpoint")
    parser.add_argument("--seed", type=int, default=0)
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> float:
    """Trains (or resumes) and returns the test accuracy."""
    args = parse_args(argv)
    start = time.perf_counter()
    flow.manual_seed(args.seed)
    train_set, test_set = split_digits()
    # Workers start afresh each epoch, so every epoch draws the same random numbers (worker seeds,
    # shuffling, dropout) in an interrupted-and-resumed run as in an uninterrupted one.
    train_loader = DataLoader(train_set, batch_size=BATCH_SIZE, shuffle=True, num_workers=args.workers)
    test_loader = DataLoader(test_set, batch_size=256)

    model = Net()
    optimizer = flow.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    total_steps = args.epochs * len(train_loader)
    scheduler = flow.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=total_steps)
    loss_fn = nn.CrossEntropyLoss()
    done = 0  # epochs finished
    if args.resume:
        if not os.path.exists(args.checkpoint):
            raise SystemExit(f"--resume: no checkpoint at {args.checkpoint}; run once without --resume")
        state = flow.load(args.checkpoint)
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        scheduler.load_state_dict(state["scheduler"])
        scheduler.T_max = total_steps  # --epochs may have grown since the checkpoint was written
        flow.set_rng_state(state["rng_state"])
        done = state["epoch"]
        print(f"resumed from {args.checkpoint} after epoch {done}")

    for epoch in range(done + 1, args.epochs + 1):
        model.train()
        seen = correct = 0
        total_loss = 0.0
        bar = tqdm(train_loader, desc=f"epoch {epoch}/{args.epochs}", leave=False, disable=None)
        for images, labels in bar:
            logits = model(images)
            loss = loss_fn(logits, labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            scheduler.step()
            n = labels.shape[0]
            seen += n
            total_loss += loss.item() * n
            correct += (logits.argmax(1) == labels).sum().item()
            bar.set_postfix(loss=f"{total_loss / seen:.4f}")
        print(f"epoch {epoch}/{args.epochs}: loss {total_loss / seen:.4f}  train accuracy {correct / seen:.4f}",
              flush=True)
        flow.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                   "scheduler": scheduler.state_dict(), "rng_state": flow.get_rng_state(), "epoch": epoch},
                  args.checkpoint)

    accuracy = evaluate(model, test_loader)
    print(f"checkpoint: {args.checkpoint}")
    print(f"test accuracy {accuracy:.4f} on {len(test_set)} images ({time.perf_counter() - start:.1f} s)")
    return accuracy


if __name__ == "__main__":
    main()
