"""Datasets from a folder tree with one subfolder per class: ``DatasetFolder`` and ``ImageFolder``.

    root/dog/xxx.png
    root/dog/nested/xxy.jpeg
    root/cat/123.png

Classes are the subfolder names in sorted order (index = position); files are found
recursively (following links) and sorted, so the sample order is deterministic.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from flowvision.datasets.vision import VisionDataset, pil_image_module

__all__ = [
    "IMG_EXTENSIONS",
    "DatasetFolder",
    "ImageFolder",
    "default_loader",
    "find_classes",
    "has_file_allowed_extension",
    "is_image_file",
    "make_dataset",
    "pil_loader",
]

IMG_EXTENSIONS = (".jpg", ".jpeg", ".png", ".ppm", ".bmp", ".pgm", ".tif", ".tiff", ".webp")


def has_file_allowed_extension(filename: str, extensions: str | tuple[str, ...]) -> bool:
    """Whether ``filename`` ends with one of ``extensions`` (case-insensitive)."""
    exts = (extensions,) if isinstance(extensions, str) else tuple(extensions)
    return filename.lower().endswith(tuple(e.lower() for e in exts))


def is_image_file(filename: str) -> bool:
    """Whether ``filename`` has one of the image extensions in ``IMG_EXTENSIONS``."""
    return has_file_allowed_extension(filename, IMG_EXTENSIONS)


def find_classes(directory: str | os.PathLike) -> tuple[list[str], dict[str, int]]:
    """The sorted subfolder names of ``directory`` and their indices."""
    directory = os.fspath(directory)
    if not os.path.isdir(directory):
        raise FileNotFoundError(f"Dataset folder {directory} does not exist or is not a folder")
    classes = sorted(entry.name for entry in os.scandir(directory) if entry.is_dir())
    if not classes:
        raise FileNotFoundError(f"Couldn't find any class folder in {directory} (expected one subfolder per class)")
    return classes, {name: i for i, name in enumerate(classes)}


def make_dataset(directory: str | os.PathLike, class_to_idx: dict[str, int] | None = None,
                 extensions: str | tuple[str, ...] | None = None,
                 is_valid_file: Callable[[str], bool] | None = None,
                 allow_empty: bool = False) -> list[tuple[str, int]]:
    """The sorted (path, class index) pairs under ``directory``.

    Exactly one of ``extensions`` and ``is_valid_file`` selects the files. A class with no
    file raises FileNotFoundError unless ``allow_empty``.
    """
    directory = os.path.expanduser(os.fspath(directory))
    if class_to_idx is None:
        _, class_to_idx = find_classes(directory)
    elif not class_to_idx:
        raise ValueError("make_dataset: class_to_idx must have at least one class")
    if (extensions is None) == (is_valid_file is None):
        raise ValueError("make_dataset: pass exactly one of extensions and is_valid_file")
    if extensions is not None:
        exts = extensions

        def is_valid_file(path: str) -> bool:
            return has_file_allowed_extension(path, exts)

    samples = []
    found = set()
    for target_class in sorted(class_to_idx):
        index = class_to_idx[target_class]
        target_dir = os.path.join(directory, target_class)
        if not os.path.isdir(target_dir):
            continue
        for root, _, fnames in sorted(os.walk(target_dir, followlinks=True)):
            for fname in sorted(fnames):
                path = os.path.join(root, fname)
                if is_valid_file(path):
                    samples.append((path, index))
                    found.add(target_class)
    empty = sorted(set(class_to_idx) - found)
    if empty and not allow_empty:
        what = (f"supported extensions are: {', '.join(extensions) if not isinstance(extensions, str) else extensions}"
                if extensions is not None else "no file passed is_valid_file")
        raise FileNotFoundError(f"Found no valid file in {directory} for the classes {', '.join(empty)} ({what})")
    return samples


def pil_loader(path: str):
    """Opens an image file as an RGB PIL image."""
    Image = pil_image_module()
    with open(path, "rb") as f:
        img = Image.open(f)
        return img.convert("RGB")


def default_loader(path: str):
    """The image loader of ``ImageFolder`` (``pil_loader``)."""
    return pil_loader(path)


class DatasetFolder(VisionDataset):
    """Samples from files in one subfolder per class, read by ``loader``.

    Args:
        root: the folder holding the class subfolders.
        loader: reads a sample from its path.
        extensions: file name endings to keep (exclusive with ``is_valid_file``).
        transform, target_transform: applied to the sample and to the class index.
        is_valid_file: decides from the path whether a file is a sample.
        allow_empty: accept class folders without samples.

    Attributes:
        classes: the class names, sorted. class_to_idx: name -> index.
        samples: (path, class index) pairs. targets: the class index of each sample.
    """

    def __init__(self, root: str | os.PathLike, loader: Callable[[str], Any],
                 extensions: tuple[str, ...] | None = None, transform: Callable | None = None,
                 target_transform: Callable | None = None, is_valid_file: Callable[[str], bool] | None = None,
                 allow_empty: bool = False) -> None:
        super().__init__(root, transform=transform, target_transform=target_transform)
        classes, class_to_idx = self.find_classes(self.root)
        samples = self.make_dataset(self.root, class_to_idx, extensions, is_valid_file, allow_empty=allow_empty)
        self.loader = loader
        self.extensions = extensions
        self.classes = classes
        self.class_to_idx = class_to_idx
        self.samples = samples
        self.targets = [s[1] for s in samples]

    @staticmethod
    def make_dataset(directory: str, class_to_idx: dict[str, int], extensions: tuple[str, ...] | None = None,
                     is_valid_file: Callable[[str], bool] | None = None,
                     allow_empty: bool = False) -> list[tuple[str, int]]:
        """The (path, class index) pairs; override to change how samples are found."""
        if class_to_idx is None:
            raise ValueError("DatasetFolder.make_dataset: class_to_idx is required")
        return make_dataset(directory, class_to_idx, extensions, is_valid_file, allow_empty)

    def find_classes(self, directory: str) -> tuple[list[str], dict[str, int]]:
        """The class names and indices; override for another folder layout."""
        return find_classes(directory)

    def __getitem__(self, index: int) -> tuple[Any, Any]:
        path, target = self.samples[index]
        return self._apply(self.loader(path), target)

    def __len__(self) -> int:
        return len(self.samples)


class ImageFolder(DatasetFolder):
    """Images in one subfolder per class (extensions ``IMG_EXTENSIONS``), loaded as RGB PIL images.

    Args:
        root, transform, target_transform, is_valid_file, allow_empty: as ``DatasetFolder``.
        loader: reads an image from its path (``default_loader``).

    Attributes: as ``DatasetFolder``, plus ``imgs`` (the same list as ``samples``).
    """

    def __init__(self, root: str | os.PathLike, transform: Callable | None = None,
                 target_transform: Callable | None = None, loader: Callable[[str], Any] = default_loader,
                 is_valid_file: Callable[[str], bool] | None = None, allow_empty: bool = False) -> None:
        super().__init__(root, loader, IMG_EXTENSIONS if is_valid_file is None else None, transform=transform,
                         target_transform=target_transform, is_valid_file=is_valid_file, allow_empty=allow_empty)
        self.imgs = self.samples
