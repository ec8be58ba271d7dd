"""Datasets that read local files (there is no download here): ImageFolder, DatasetFolder,
FakeData, CIFAR10/100 and MNIST/FashionMNIST, each returning ``(image, target)`` with the
image a PIL image (or whatever ``transform`` makes of it).

``TINY_IMAGEFOLDER`` is a small bundled ImageFolder tree (3 classes of 16x16 PNGs) for tests.
"""

import os as _os

from flowvision.datasets.cifar import CIFAR10, CIFAR100
from flowvision.datasets.fakedata import FakeData
from flowvision.datasets.folder import (
    IMG_EXTENSIONS,
    DatasetFolder,
    ImageFolder,
    default_loader,
    has_file_allowed_extension,
    is_image_file,
    pil_loader,
)
from flowvision.datasets.mnist import MNIST, FashionMNIST
from flowvision.datasets.vision import VisionDataset

TINY_IMAGEFOLDER = _os.path.join(_os.path.dirname(_os.path.abspath(__file__)), "testdata", "tiny_imagefolder")

__all__ = [
    "CIFAR10",
    "CIFAR100",
    "IMG_EXTENSIONS",
    "MNIST",
    "TINY_IMAGEFOLDER",
    "DatasetFolder",
    "FakeData",
    "FashionMNIST",
    "ImageFolder",
    "VisionDataset",
    "default_loader",
    "has_file_allowed_extension",
    "is_image_file",
    "pil_loader",
]
