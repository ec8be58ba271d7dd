"""CIFAR-10 and CIFAR-100 from the standard "python version" pickle batches.

The files are those of the official archives, unpacked: ``root/cifar-10-batches-py/``
(``data_batch_1`` .. ``data_batch_5``, ``test_batch``, ``batches.meta``) and
``root/cifar-100-python/`` (``train``, ``test``, ``meta``).
"""

from __future__ import annotations

import os
import pickle
from collections.abc import Callable
from typing import Any

import numpy as np

from flowvision.datasets.vision import VisionDataset, no_download, pil_image_module

__all__ = ["CIFAR10", "CIFAR100"]


class CIFAR10(VisionDataset):
    """CIFAR-10: 32x32 RGB images in 10 classes (50000 train, 10000 test).

    Args:
        root: the folder holding ``cifar-10-batches-py``.
        train: the training batches, else the test batch.
        transform, target_transform: applied to the PIL image and to the class index.
        download: not available here (no network); raises with where to put the files.

    Attributes: ``data`` (N, 32, 32, 3) uint8, ``targets`` (list of int), ``classes``, ``class_to_idx``.
    """

    base_folder = "cifar-10-batches-py"
    train_list = ["data_batch_1", "data_batch_2", "data_batch_3", "data_batch_4", "data_batch_5"]
    test_list = ["test_batch"]
    meta_file = "batches.meta"
    labels_key = "labels"
    names_key = "label_names"

    def __init__(self, root: str | os.PathLike, train: bool = True, transform: Callable | None = None,
                 target_transform: Callable | None = None, download: bool = False) -> None:
        super().__init__(root, transform=transform, target_transform=target_transform)
        self.train = train
        folder = os.path.join(self.root, self.base_folder)
        files = self.train_list + self.test_list + [self.meta_file]
        if download:
            raise no_download(type(self).__name__, folder, files)
        missing = [f for f in files if not os.path.isfile(os.path.join(folder, f))]
        if missing:
            raise RuntimeError(f"{type(self).__name__}: dataset not found: {folder} lacks {', '.join(missing)} "
                               f"(unpack the official python-version archive into {self.root})")
        chunks, targets = [], []
        for name in self.train_list if train else self.test_list:
            entry = self._load(os.path.join(folder, name))
            if "data" not in entry or self.labels_key not in entry:
                raise RuntimeError(f"{type(self).__name__}: {os.path.join(folder, name)} has no 'data' and "
                                   f"{self.labels_key!r} entries; is it a CIFAR batch?")
            data = np.asarray(entry["data"], dtype=np.uint8)
            if data.ndim != 2 or data.shape[1] != 3 * 32 * 32 or len(entry[self.labels_key]) != data.shape[0]:
                raise RuntimeError(f"{type(self).__name__}: {os.path.join(folder, name)} holds data of shape "
                                   f"{data.shape} with {len(entry[self.labels_key])} labels; expected (N, 3072)")
            chunks.append(data)
            targets.extend(int(t) for t in entry[self.labels_key])
        # Rows are stored channel-planar (R plane, G plane, B plane); images are kept HWC.
        self.data = np.vstack(chunks).reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1).copy()
        self.targets = targets
        meta = self._load(os.path.join(folder, self.meta_file))
        self.classes = list(meta[self.names_key])
        self.class_to_idx = {c: i for i, c in enumerate(self.classes)}

    @staticmethod
    def _load(path: str) -> dict:
        with open(path, "rb") as f:
            entry = pickle.load(f, encoding="latin1")
        # Batches pickled under Python 2 may have bytes keys.
        return {(k.decode("latin1") if isinstance(k, bytes) else k): v for k, v in entry.items()}

    def __getitem__(self, index: int) -> tuple[Any, Any]:
        img = pil_image_module().fromarray(self.data[index])
        return self._apply(img, self.targets[index])

    def __len__(self) -> int:
        return len(self.data)

    def extra_repr(self) -> str:
        return f"Split: {'Train' if self.train else 'Test'}"


class CIFAR100(CIFAR10):
    """CIFAR-100: as :class:`CIFAR10` with 100 fine classes, from ``root/cifar-100-python``."""

    base_folder = "cifar-100-python"
    train_list = ["train"]
    test_list = ["test"]
    meta_file = "meta"
    labels_key = "fine_labels"
    names_key = "fine_label_names"
