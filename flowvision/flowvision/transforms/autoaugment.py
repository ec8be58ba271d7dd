"""Learned and random augmentation policies: AutoAugment (the ImageNet policy of Cubuk et al.
2019), RandAugment (Cubuk et al. 2020) and TrivialAugmentWide (Müller and Hutter 2021).

They work on PIL images and uint8 tensor images (float tensors too, except for Posterize and
Equalize, which need uint8), with the operation set and magnitude bins of torchvision.
All random choices come from oneflow's generator.
"""

from __future__ import annotations

import math
from enum import Enum

import numpy as np

import oneflow as flow
from flowvision.transforms import functional as F
from flowvision.transforms.functional import InterpolationMode, interpolation_mode

__all__ = ["AutoAugment", "AutoAugmentPolicy", "RandAugment", "TrivialAugmentWide"]


def _linspace(start: float, end: float, steps: int) -> np.ndarray:
    # float32 like the torch tensors torchvision keeps its magnitudes in
    return np.linspace(start, end, steps).astype(np.float32)


def _posterize_bins(num_bins: int, span: int) -> np.ndarray:
    return 8 - np.round(np.arange(num_bins) / ((num_bins - 1) / span)).astype(np.int64)


def _apply_op(img, op_name: str, magnitude: float, interpolation: InterpolationMode, fill):
    if op_name == "ShearX":
        # The papers shear by `magnitude` itself; the affine takes the angle whose tangent it is.
        return F.affine(img, angle=0.0, translate=[0, 0], scale=1.0,
                        shear=[math.degrees(math.atan(magnitude)), 0.0], interpolation=interpolation,
                        fill=fill, center=[0, 0])
    if op_name == "ShearY":
        return F.affine(img, angle=0.0, translate=[0, 0], scale=1.0,
                        shear=[0.0, math.degrees(math.atan(magnitude))], interpolation=interpolation,
                        fill=fill, center=[0, 0])
    if op_name == "TranslateX":
        return F.affine(img, angle=0.0, translate=[int(magnitude), 0], scale=1.0, interpolation=interpolation,
                        shear=[0.0, 0.0], fill=fill)
    if op_name == "TranslateY":
        return F.affine(img, angle=0.0, translate=[0, int(magnitude)], scale=1.0, interpolation=interpolation,
                        shear=[0.0, 0.0], fill=fill)
    if op_name == "Rotate":
        return F.rotate(img, magnitude, interpolation=interpolation, fill=fill)
    if op_name == "Brightness":
        return F.adjust_brightness(img, 1.0 + magnitude)
    if op_name == "Color":
        return F.adjust_saturation(img, 1.0 + magnitude)
    if op_name == "Contrast":
        return F.adjust_contrast(img, 1.0 + magnitude)
    if op_name == "Sharpness":
        return F.adjust_sharpness(img, 1.0 + magnitude)
    if op_name == "Posterize":
        return F.posterize(img, int(magnitude))
    if op_name == "Solarize":
        # Thresholds are on the 0..255 scale; float tensors hold 0..1.
        if isinstance(img, flow.Tensor) and img.is_floating_point():
            magnitude = magnitude / 255.0
        return F.solarize(img, magnitude)
    if op_name == "AutoContrast":
        return F.autocontrast(img)
    if op_name == "Equalize":
        return F.equalize(img)
    if op_name == "Invert":
        return F.invert(img)
    if op_name == "Identity":
        return img
    raise ValueError(f"unknown augmentation operation {op_name!r}")


def _fill_for(img, fill):
    if isinstance(img, flow.Tensor) and fill is not None:
        channels = F.get_dimensions(img)[0]
        if isinstance(fill, (int, float)):
            return [float(fill)] * channels
        return [float(f) for f in fill]
    return fill


def _rand_int(n: int) -> int:
    return int(flow.randint(n, (1,)).item())


class AutoAugmentPolicy(Enum):
    """The learned policies available (the ImageNet one)."""

    IMAGENET = "imagenet"


# The ImageNet policy: 25 sub-policies of two (operation, probability, magnitude bin) steps.
_IMAGENET_POLICY = (
    (("Posterize", 0.4, 8), ("Rotate", 0.6, 9)),
    (("Solarize", 0.6, 5), ("AutoContrast", 0.6, None)),
    (("Equalize", 0.8, None), ("Equalize", 0.6, None)),
    (("Posterize", 0.6, 7), ("Posterize", 0.6, 6)),
    (("Equalize", 0.4, None), ("Solarize", 0.2, 4)),
    (("Equalize", 0.4, None), ("Rotate", 0.8, 8)),
    (("Solarize", 0.6, 3), ("Equalize", 0.6, None)),
    (("Posterize", 0.8, 5), ("Equalize", 1.0, None)),
    (("Rotate", 0.2, 3), ("Solarize", 0.6, 8)),
    (("Equalize", 0.6, None), ("Posterize", 0.4, 6)),
    (("Rotate", 0.8, 8), ("Color", 0.4, 0)),
    (("Rotate", 0.4, 9), ("Equalize", 0.6, None)),
    (("Equalize", 0.0, None), ("Equalize", 0.8, None)),
    (("Invert", 0.6, None), ("Equalize", 1.0, None)),
    (("Color", 0.6, 4), ("Contrast", 1.0, 8)),
    (("Rotate", 0.8, 8), ("Color", 1.0, 2)),
    (("Color", 0.8, 8), ("Solarize", 0.8, 7)),
    (("Sharpness", 0.4, 7), ("Invert", 0.6, None)),
    (("ShearX", 0.6, 5), ("Equalize", 1.0, None)),
    (("Color", 0.4, 0), ("Equalize", 0.6, None)),
    (("Equalize", 0.4, None), ("Solarize", 0.2, 4)),
    (("Solarize", 0.6, 5), ("AutoContrast", 0.6, None)),
    (("Invert", 0.6, None), ("Equalize", 1.0, None)),
    (("Color", 0.6, 4), ("Contrast", 1.0, 8)),
    (("Equalize", 0.8, None), ("Equalize", 0.6, None)),
)


class AutoAugment(flow.nn.Module):
    """AutoAugment: applies one randomly chosen sub-policy of a learned policy.

    Args:
        policy: the :class:`AutoAugmentPolicy` (IMAGENET).
        interpolation: for the geometric operations (NEAREST or BILINEAR).
        fill: colour for the area geometric operations uncover.
    """

    def __init__(self, policy: AutoAugmentPolicy = AutoAugmentPolicy.IMAGENET,
                 interpolation=InterpolationMode.NEAREST, fill=None) -> None:
        super().__init__()
        if not isinstance(policy, AutoAugmentPolicy):
            try:
                policy = AutoAugmentPolicy(policy)
            except ValueError:
                raise ValueError(f"AutoAugment: policy should be one of {[p.value for p in AutoAugmentPolicy]}, "
                                 f"got {policy!r}") from None
        self.policy = policy
        self.interpolation = interpolation_mode(interpolation, "AutoAugment")
        self.fill = fill
        self.policies = _IMAGENET_POLICY

    def _augmentation_space(self, num_bins: int, image_size: tuple[int, int]) -> dict[str, tuple[np.ndarray, bool]]:
        w, h = image_size
        return {
            # name: (magnitude per bin, whether the sign is random)
            "ShearX": (_linspace(0.0, 0.3, num_bins), True),
            "ShearY": (_linspace(0.0, 0.3, num_bins), True),
            "TranslateX": (_linspace(0.0, 150.0 / 331.0 * w, num_bins), True),
            "TranslateY": (_linspace(0.0, 150.0 / 331.0 * h, num_bins), True),
            "Rotate": (_linspace(0.0, 30.0, num_bins), True),
            "Brightness": (_linspace(0.0, 0.9, num_bins), True),
            "Color": (_linspace(0.0, 0.9, num_bins), True),
            "Contrast": (_linspace(0.0, 0.9, num_bins), True),
            "Sharpness": (_linspace(0.0, 0.9, num_bins), True),
            "Posterize": (_posterize_bins(num_bins, 4), False),
            "Solarize": (_linspace(255.0, 0.0, num_bins), False),
            "AutoContrast": (np.zeros(()), False),
            "Equalize": (np.zeros(()), False),
            "Invert": (np.zeros(()), False),
        }

    @staticmethod
    def get_params(transform_num: int) -> tuple[int, list[float], list[int]]:
        """(sub-policy index, probabilities drawn for its 2 steps, signs drawn for them)."""
        policy_id = _rand_int(transform_num)
        probs = flow.rand(2).tolist()
        signs = flow.randint(2, (2,)).tolist()
        return policy_id, probs, signs

    def forward(self, img):
        F.check_image(img, type(self).__name__)
        fill = _fill_for(img, self.fill)
        _, h, w = F.get_dimensions(img)
        policy_id, probs, signs = self.get_params(len(self.policies))
        space = self._augmentation_space(10, (w, h))
        for i, (op_name, p, magnitude_id) in enumerate(self.policies[policy_id]):
            if probs[i] <= p:
                magnitudes, signed = space[op_name]
                magnitude = float(magnitudes[magnitude_id]) if magnitude_id is not None else 0.0
                if signed and signs[i] == 0:
                    magnitude = -magnitude
                img = _apply_op(img, op_name, magnitude, self.interpolation, fill)
        return img

    def extra_repr(self) -> str:
        return f"policy={self.policy}, fill={self.fill}"


class RandAugment(flow.nn.Module):
    """RandAugment: ``num_ops`` operations drawn uniformly, each at the fixed ``magnitude``
    (a bin out of ``num_magnitude_bins``), with a random sign where it applies.

    Args:
        num_ops: operations per image.
        magnitude: the magnitude bin, in [0, num_magnitude_bins).
        num_magnitude_bins: how finely magnitudes are divided.
        interpolation, fill: as :class:`AutoAugment`.
    """

    def __init__(self, num_ops: int = 2, magnitude: int = 9, num_magnitude_bins: int = 31,
                 interpolation=InterpolationMode.NEAREST, fill=None) -> None:
        super().__init__()
        if not 0 <= magnitude < num_magnitude_bins:
            raise ValueError(f"RandAugment: magnitude should be in [0, {num_magnitude_bins}), got {magnitude}")
        self.num_ops = num_ops
        self.magnitude = magnitude
        self.num_magnitude_bins = num_magnitude_bins
        self.interpolation = interpolation_mode(interpolation, "RandAugment")
        self.fill = fill

    def _augmentation_space(self, num_bins: int, image_size: tuple[int, int]) -> dict[str, tuple[np.ndarray, bool]]:
        w, h = image_size
        return {
            "Identity": (np.zeros(()), False),
            "ShearX": (_linspace(0.0, 0.3, num_bins), True),
            "ShearY": (_linspace(0.0, 0.3, num_bins), True),
            "TranslateX": (_linspace(0.0, 150.0 / 331.0 * w, num_bins), True),
            "TranslateY": (_linspace(0.0, 150.0 / 331.0 * h, num_bins), True),
            "Rotate": (_linspace(0.0, 30.0, num_bins), True),
            "Brightness": (_linspace(0.0, 0.9, num_bins), True),
            "Color": (_linspace(0.0, 0.9, num_bins), True),
            "Contrast": (_linspace(0.0, 0.9, num_bins), True),
            "Sharpness": (_linspace(0.0, 0.9, num_bins), True),
            "Posterize": (_posterize_bins(num_bins, 4), False),
            "Solarize": (_linspace(255.0, 0.0, num_bins), False),
            "AutoContrast": (np.zeros(()), False),
            "Equalize": (np.zeros(()), False),
        }

    def forward(self, img):
        F.check_image(img, type(self).__name__)
        fill = _fill_for(img, self.fill)
        _, h, w = F.get_dimensions(img)
        space = self._augmentation_space(self.num_magnitude_bins, (w, h))
        names = list(space)
        for _ in range(self.num_ops):
            op_name = names[_rand_int(len(names))]
            magnitudes, signed = space[op_name]
            magnitude = float(magnitudes[self.magnitude]) if magnitudes.ndim > 0 else 0.0
            if signed and _rand_int(2):
                magnitude = -magnitude
            img = _apply_op(img, op_name, magnitude, self.interpolation, fill)
        return img

    def extra_repr(self) -> str:
        return (f"num_ops={self.num_ops}, magnitude={self.magnitude}, num_magnitude_bins={self.num_magnitude_bins}, "
                f"interpolation={self.interpolation.value}, fill={self.fill}")


class TrivialAugmentWide(flow.nn.Module):
    """TrivialAugment (wide space): one operation at a random magnitude per image.

    Args:
        num_magnitude_bins: how finely magnitudes are divided.
        interpolation, fill: as :class:`AutoAugment`.
    """

    def __init__(self, num_magnitude_bins: int = 31, interpolation=InterpolationMode.NEAREST, fill=None) -> None:
        super().__init__()
        self.num_magnitude_bins = num_magnitude_bins
        self.interpolation = interpolation_mode(interpolation, "TrivialAugmentWide")
        self.fill = fill

    def _augmentation_space(self, num_bins: int) -> dict[str, tuple[np.ndarray, bool]]:
        return {
            "Identity": (np.zeros(()), False),
            "ShearX": (_linspace(0.0, 0.99, num_bins), True),
            "ShearY": (_linspace(0.0, 0.99, num_bins), True),
            "TranslateX": (_linspace(0.0, 32.0, num_bins), True),
            "TranslateY": (_linspace(0.0, 32.0, num_bins), True),
            "Rotate": (_linspace(0.0, 135.0, num_bins), True),
            "Brightness": (_linspace(0.0, 0.99, num_bins), True),
            "Color": (_linspace(0.0, 0.99, num_bins), True),
            "Contrast": (_linspace(0.0, 0.99, num_bins), True),
            "Sharpness": (_linspace(0.0, 0.99, num_bins), True),
            "Posterize": (_posterize_bins(num_bins, 6), False),
            "Solarize": (_linspace(255.0, 0.0, num_bins), False),
            "AutoContrast": (np.zeros(()), False),
            "Equalize": (np.zeros(()), False),
        }

    def forward(self, img):
        F.check_image(img, type(self).__name__)
        fill = _fill_for(img, self.fill)
        space = self._augmentation_space(self.num_magnitude_bins)
        names = list(space)
        op_name = names[_rand_int(len(names))]
        magnitudes, signed = space[op_name]
        magnitude = float(magnitudes[_rand_int(len(magnitudes))]) if magnitudes.ndim > 0 else 0.0
        if signed and _rand_int(2):
            magnitude = -magnitude
        return _apply_op(img, op_name, magnitude, self.interpolation, fill)

    def extra_repr(self) -> str:
        return (f"num_magnitude_bins={self.num_magnitude_bins}, interpolation={self.interpolation.value}, "
                f"fill={self.fill}")
