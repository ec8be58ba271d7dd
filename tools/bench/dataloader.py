"""DataLoader throughput: oneflow's against torch's, in one process.

Both frameworks load the same in-memory dataset (by default 20000 images of
3x32x32 float32 with an int label, from one NumPy generator) through a dataset
class of the same code: each sample is normalized per channel and flipped
horizontally with probability 1/2, as a light augmentation. Each loader shuffles,
uses worker processes and collates with its framework's default_collate; an epoch
is timed from creating the iterator (so starting the workers counts) to the last
batch. The frameworks run in turns, `repeats` epochs each, and each reports the
median. Prints samples/s for both and oneflow / torch (higher is better for us).

    ./tools/bazel run //tools/bench:dataloader -- --samples 20000 --num_workers 2 --batch_size 64
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

import numpy as np
import torch
import torch.utils.data
from machine import describe

import oneflow as flow
import oneflow.utils.data

_MEAN = [0.4914, 0.4822, 0.4465]
_STD = [0.2470, 0.2435, 0.2616]


def make_dataset_class(base):
    """The benchmark dataset on the framework whose Dataset base class is ``base``."""

    class ImageDataset(base):
        def __init__(self, m, images: np.ndarray, labels: np.ndarray) -> None:
            self.images = m.from_numpy(images)
            self.labels = labels.tolist()
            self.mean = m.tensor(_MEAN).reshape(3, 1, 1)
            self.inv_std = 1.0 / m.tensor(_STD).reshape(3, 1, 1)

        def __len__(self) -> int:
            return len(self.labels)

        def __getitem__(self, i: int):
            x = (self.images[i] - self.mean) * self.inv_std
            if random.random() < 0.5:
                x = x.flip(-1)
            return x, self.labels[i]

    return ImageDataset


def epoch_time(loader) -> tuple[float, int]:
    start = time.perf_counter()
    n = 0
    for x, y in loader:
        n += y.shape[0]
    return time.perf_counter() - start, n


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--samples", type=int, default=20000)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--num_workers", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)

    rng = np.random.default_rng(0)
    images = rng.random((args.samples, 3, 32, 32), dtype=np.float32)
    labels = rng.integers(0, 10, args.samples)

    loaders = {}
    for name, m, data in (("oneflow", flow, oneflow.utils.data), ("torch", torch, torch.utils.data)):
        ds = make_dataset_class(data.Dataset)(m, images, labels)
        loaders[name] = data.DataLoader(
            ds, batch_size=args.batch_size, shuffle=True, num_workers=args.num_workers
        )
        epoch_time(loaders[name])  # warm up (page in the dataset, import paths)

    rates: dict[str, list[float]] = {name: [] for name in loaders}
    for _ in range(args.repeats):
        for name, loader in loaders.items():
            seconds, n = epoch_time(loader)
            assert n == args.samples, (name, n)
            rates[name].append(n / seconds)

    ours, theirs = statistics.median(rates["oneflow"]), statistics.median(rates["torch"])
    print(
        f"{describe()}; DataLoader: {args.samples} samples of 3x32x32 float32 + label, batch_size={args.batch_size}, "
        f"num_workers={args.num_workers}, shuffle, normalize + random flip per sample"
    )
    print(f"oneflow  {ours:10.0f} samples/s")
    print(f"torch    {theirs:10.0f} samples/s")
    print(f"oneflow / torch = {ours / theirs:.2f}x")


if __name__ == "__main__":
    main()
