"""MNIST and Fashion-MNIST from the standard IDX files.

The files are read from ``root/<ClassName>/raw/`` (``MNIST/raw`` or ``FashionMNIST/raw``),
gzipped or not: ``train-images-idx3-ubyte``, ``train-labels-idx1-ubyte``,
``t10k-images-idx3-ubyte``, ``t10k-labels-idx1-ubyte``.
"""

from __future__ import annotations

import gzip
import os
from collections.abc import Callable
from typing import Any

import numpy as np

import oneflow as flow
from flowvision.datasets.vision import VisionDataset, no_download, pil_image_module

__all__ = ["MNIST", "FashionMNIST", "read_idx_file"]

# IDX type codes -> big-endian NumPy types
_IDX_TYPES = {0x08: np.dtype(np.uint8), 0x09: np.dtype(np.int8), 0x0B: np.dtype(">i2"), 0x0C: np.dtype(">i4"),
              0x0D: np.dtype(">f4"), 0x0E: np.dtype(">f8")}


def read_idx_file(path: str) -> np.ndarray:
    """The array stored in an IDX file (``.gz`` is decompressed)."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        raw = f.read()
    if len(raw) < 4 or raw[0] != 0 or raw[1] != 0 or raw[2] not in _IDX_TYPES:
        raise RuntimeError(f"{path} is not an IDX file (bad magic number {raw[:4].hex()})")
    dtype, ndim = _IDX_TYPES[raw[2]], raw[3]
    shape = tuple(int(d) for d in np.frombuffer(raw, dtype=">i4", count=ndim, offset=4))
    offset = 4 + 4 * ndim
    count = int(np.prod(shape)) if shape else 1
    if len(raw) - offset != count * dtype.itemsize:
        raise RuntimeError(f"{path}: header says shape {shape} ({count * dtype.itemsize} bytes) but "
                           f"{len(raw) - offset} bytes follow")
    return np.frombuffer(raw, dtype=dtype, count=count, offset=offset).reshape(shape).astype(dtype.newbyteorder("="))


class MNIST(VisionDataset):
    """MNIST handwritten digits: 28x28 grayscale images, 10 classes (60000 train, 10000 test).

    Args:
        root: the folder holding ``MNIST/raw``.
        train: the training files, else the test (t10k) files.
        transform, target_transform: applied to the PIL image (mode L) and to the class index.
        download: not available here (no network); raises with where to put the files.

    Attributes: ``data`` (N, 28, 28) uint8 tensor, ``targets`` (N,) int64 tensor, ``classes``.
    """

    classes = ["0 - zero", "1 - one", "2 - two", "3 - three", "4 - four", "5 - five", "6 - six", "7 - seven",
               "8 - eight", "9 - nine"]
    files = {True: ("train-images-idx3-ubyte", "train-labels-idx1-ubyte"),
             False: ("t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte")}

    def __init__(self, root: str | os.PathLike, train: bool = True, transform: Callable | None = None,
                 target_transform: Callable | None = None, download: bool = False) -> None:
        super().__init__(root, transform=transform, target_transform=target_transform)
        self.train = train
        if download:
            names = [n + ".gz" for pair in self.files.values() for n in pair]
            raise no_download(type(self).__name__, self.raw_folder, names)
        images_path, labels_path = (self._find(n) for n in self.files[train])
        images = read_idx_file(images_path)
        labels = read_idx_file(labels_path)
        if images.ndim != 3 or labels.ndim != 1 or images.shape[0] != labels.shape[0]:
            raise RuntimeError(f"{type(self).__name__}: {images_path} holds shape {images.shape} and "
                               f"{labels_path} shape {labels.shape}; expected (N, H, W) images and N labels")
        self.data = flow.from_numpy(np.ascontiguousarray(images, dtype=np.uint8))
        self.targets = flow.from_numpy(labels.astype(np.int64))

    @property
    def raw_folder(self) -> str:
        """Where the IDX files are read from: ``root/<ClassName>/raw``."""
        return os.path.join(self.root, type(self).__name__, "raw")

    @property
    def class_to_idx(self) -> dict[str, int]:
        """Class name -> index."""
        return {c: i for i, c in enumerate(self.classes)}

    def _find(self, name: str) -> str:
        for candidate in (name, name + ".gz"):
            path = os.path.join(self.raw_folder, candidate)
            if os.path.isfile(path):
                return path
        raise RuntimeError(f"{type(self).__name__}: dataset not found: neither {name} nor {name}.gz is in "
                           f"{self.raw_folder}")

    def __getitem__(self, index: int) -> tuple[Any, Any]:
        img = pil_image_module().fromarray(self.data[index].numpy())
        return self._apply(img, int(self.targets[index].item()))

    def __len__(self) -> int:
        return int(self.data.shape[0])

    def extra_repr(self) -> str:
        return f"Split: {'Train' if self.train else 'Test'}"


class FashionMNIST(MNIST):
    """Fashion-MNIST: 28x28 grayscale clothing images in 10 classes, from ``root/FashionMNIST/raw``."""

    classes = ["T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag",
               "Ankle boot"]
