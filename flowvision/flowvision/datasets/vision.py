"""The base of flowvision's datasets: a root folder and the image/target transforms."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any

from oneflow.utils.data import Dataset

__all__ = ["VisionDataset", "no_download", "pil_image_module"]


class VisionDataset(Dataset):
    """A map-style dataset rooted at a folder, returning ``(image, target)`` pairs.

    Args:
        root: the dataset's folder (``~`` is expanded).
        transforms: a callable on ``(image, target)``; exclusive with the two below.
        transform: a callable on the image (a PIL image), e.g. ``transforms.ToTensor()``.
        target_transform: a callable on the target.
    """

    def __init__(self, root: str | os.PathLike | None, transforms: Callable | None = None,
                 transform: Callable | None = None, target_transform: Callable | None = None) -> None:
        self.root = os.path.expanduser(os.fspath(root)) if root is not None else None
        if transforms is not None and (transform is not None or target_transform is not None):
            raise ValueError(f"{type(self).__name__}: pass either transforms or transform/target_transform, "
                             "not both")
        self.transform = transform
        self.target_transform = target_transform
        self.transforms = transforms

    def _apply(self, img: Any, target: Any) -> tuple[Any, Any]:
        if self.transforms is not None:
            return self.transforms(img, target)
        if self.transform is not None:
            img = self.transform(img)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return img, target

    def __getitem__(self, index: int) -> tuple[Any, Any]:
        raise NotImplementedError

    def __len__(self) -> int:
        raise NotImplementedError

    def extra_repr(self) -> str:
        """Dataset-specific lines for ``repr`` (subclasses override)."""
        return ""

    def __repr__(self) -> str:
        lines = [f"Number of datapoints: {len(self)}"]
        if self.root is not None:
            lines.append(f"Root location: {self.root}")
        lines += [line for line in self.extra_repr().splitlines() if line]
        for what, t in (("Transforms", self.transforms), ("Transform", self.transform),
                        ("Target transform", self.target_transform)):
            if t is not None:
                text = repr(t).splitlines()
                lines.append(f"{what}: {text[0]}")
                lines += ["    " + line for line in text[1:]]
        return f"Dataset {type(self).__name__}\n" + "\n".join("    " + line for line in lines)


def no_download(name: str, folder: str, files: Sequence[str]) -> RuntimeError:
    """The error for ``download=True``: there is no network; says where the files go."""
    listing = ", ".join(files)
    return RuntimeError(
        f"{name}: download=True is not supported: flowvision cannot reach the network here. "
        f"Download the standard files elsewhere and place them in {folder} ({listing}), "
        "then construct the dataset with download=False."
    )


def pil_image_module():
    """``PIL.Image``, or an ImportError that says Pillow is needed to decode images."""
    try:
        from PIL import Image
    except ImportError as e:
        raise ImportError("flowvision.datasets needs Pillow to decode and return images (pip install pillow)") from e
    return Image
