"""Image transforms with torchvision's semantics for PIL images and oneflow tensor images.

The classes (``Compose``, ``Resize``, ``RandomResizedCrop``, ``ColorJitter``, ``RandAugment``,
``Mixup``, ...) live in ``transforms``, ``autoaugment`` and ``_mix``; the functional forms in
``flowvision.transforms.functional``. Randomness comes from oneflow's generator, so
``oneflow.manual_seed`` reproduces a pipeline.
"""

from flowvision.transforms import functional
from flowvision.transforms._mix import *  # noqa: F403 (re-exported by __all__)
from flowvision.transforms._mix import __all__ as _mix_all
from flowvision.transforms.autoaugment import *  # noqa: F403
from flowvision.transforms.autoaugment import __all__ as _autoaugment_all
from flowvision.transforms.functional import InterpolationMode
from flowvision.transforms.transforms import *  # noqa: F403
from flowvision.transforms.transforms import __all__ as _transforms_all

__all__ = ["InterpolationMode", "functional", *_transforms_all, *_autoaugment_all, *_mix_all]
