"""FakeData: random images and labels, the same for the same index every time."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import oneflow as flow
from flowvision.datasets.vision import VisionDataset

__all__ = ["FakeData"]


class FakeData(VisionDataset):
    """Random PIL images of ``image_size`` = (C, H, W) with random labels in [0, num_classes).

    Sample ``i`` comes from a generator seeded with ``i + random_offset``, so it never changes
    and the global oneflow generator is left alone.
    """

    def __init__(self, size: int = 1000, image_size: Sequence[int] = (3, 224, 224), num_classes: int = 10,
                 transform: Callable | None = None, target_transform: Callable | None = None,
                 random_offset: int = 0) -> None:
        super().__init__(None, transform=transform, target_transform=target_transform)
        if len(image_size) != 3 or image_size[0] not in (1, 3, 4):
            raise ValueError(f"FakeData: image_size should be (C, H, W) with C in 1, 3 or 4, got {tuple(image_size)}")
        if num_classes < 1:
            raise ValueError(f"FakeData: num_classes should be positive, got {num_classes}")
        self.size = int(size)
        self.image_size = tuple(int(s) for s in image_size)
        self.num_classes = int(num_classes)
        self.random_offset = int(random_offset)

    def __getitem__(self, index: int) -> tuple[Any, Any]:
        from flowvision.transforms.functional import to_pil_image

        if index < 0:
            index += self.size
        if not 0 <= index < self.size:
            raise IndexError(f"FakeData: index {index} out of range for {self.size} samples")
        g = flow.Generator()
        g.manual_seed(index + self.random_offset)
        img = flow.randn(*self.image_size, generator=g)
        target = int(flow.randint(0, self.num_classes, (1,), generator=g).item())
        return self._apply(to_pil_image(img), target)

    def __len__(self) -> int:
        return self.size
