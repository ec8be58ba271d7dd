"""Transform classes with torchvision's semantics, for PIL images and oneflow tensor images.

Random transforms draw from oneflow's default generator (``oneflow.rand``,
``oneflow.randint``, ``Tensor.uniform_``), so ``oneflow.manual_seed`` makes a pipeline
reproducible (and DataLoader workers, which reseed oneflow, get distinct streams).
The transforms that torchvision makes ``nn.Module``s are ``oneflow.nn.Module``s here too.
"""

from __future__ import annotations

import math
import numbers
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import oneflow as flow
from flowvision.transforms import functional as F
from flowvision.transforms.functional import InterpolationMode, interpolation_mode

__all__ = [
    "CenterCrop",
    "ColorJitter",
    "Compose",
    "ConvertImageDtype",
    "GaussianBlur",
    "Grayscale",
    "Lambda",
    "Normalize",
    "PILToTensor",
    "Pad",
    "RandomAdjustSharpness",
    "RandomAffine",
    "RandomApply",
    "RandomAutocontrast",
    "RandomChoice",
    "RandomCrop",
    "RandomEqualize",
    "RandomErasing",
    "RandomGrayscale",
    "RandomHorizontalFlip",
    "RandomInvert",
    "RandomOrder",
    "RandomPosterize",
    "RandomResizedCrop",
    "RandomRotation",
    "RandomSolarize",
    "RandomVerticalFlip",
    "Resize",
    "ToPILImage",
    "ToTensor",
]


# --- randomness from oneflow's generator ----------------------------------------------------


def _rand() -> float:
    return float(flow.rand(1).item())


def _uniform(low: float, high: float) -> float:
    return float(flow.empty(1).uniform_(low, high).item())


def _randint(low: int, high: int) -> int:
    """An int in [low, high)."""
    return int(flow.randint(low, high, (1,)).item())


def _check_prob(p: float, name: str) -> float:
    if not isinstance(p, numbers.Number) or not 0.0 <= p <= 1.0:
        raise ValueError(f"{name}: p should be a probability in [0, 1], got {p!r}")
    return float(p)


def _setup_size(size, name: str) -> tuple[int, int]:
    """(h, w) from an int or a sequence of 1 or 2 ints."""
    if isinstance(size, numbers.Number):
        return int(size), int(size)
    if isinstance(size, Sequence) and len(size) == 1:
        return int(size[0]), int(size[0])
    if isinstance(size, Sequence) and len(size) == 2:
        return int(size[0]), int(size[1])
    raise ValueError(f"{name}: size should be an int or a sequence of 1 or 2 ints (h, w), got {size!r}")


def _tensor_fill(fill, img):
    """torchvision's convention: for tensors a number fill becomes one value per channel."""
    if not isinstance(img, flow.Tensor) or fill is None:
        return fill
    channels = F.get_dimensions(img)[0]
    if isinstance(fill, (int, float)):
        return [float(fill)] * channels
    return [float(f) for f in fill]


# --- composition ----------------------------------------------------------------------------


class Compose:
    """Applies ``transforms`` one after the other.

    Example::

        transforms.Compose([transforms.Resize(256), transforms.CenterCrop(224), transforms.ToTensor()])
    """

    def __init__(self, transforms: Sequence[Callable]) -> None:
        self.transforms = list(transforms)
        for t in self.transforms:
            if not callable(t):
                raise TypeError(f"Compose: every transform should be callable, got {type(t).__name__}")

    def __call__(self, img: Any) -> Any:
        for t in self.transforms:
            img = t(img)
        return img

    def __repr__(self) -> str:
        body = "".join(f"\n    {t}" for t in self.transforms)
        return f"{type(self).__name__}({body}\n)"


class Lambda:
    """Wraps a user function ``lambd(img)`` as a transform."""

    def __init__(self, lambd: Callable) -> None:
        if not callable(lambd):
            raise TypeError(f"Lambda: lambd should be callable, got {type(lambd).__name__}")
        self.lambd = lambd

    def __call__(self, img: Any) -> Any:
        return self.lambd(img)

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class RandomApply(flow.nn.Module):
    """Applies the list of ``transforms`` together with probability ``p``."""

    def __init__(self, transforms: Sequence[Callable], p: float = 0.5) -> None:
        super().__init__()
        self.transforms = transforms
        self.p = _check_prob(p, "RandomApply")

    def forward(self, img: Any) -> Any:
        if self.p < _rand():
            return img
        for t in self.transforms:
            img = t(img)
        return img

    def extra_repr(self) -> str:
        return f"p={self.p}, transforms={list(self.transforms)}"


class RandomChoice:
    """Applies one transform picked from ``transforms`` (with weights ``p`` if given)."""

    def __init__(self, transforms: Sequence[Callable], p: Sequence[float] | None = None) -> None:
        if p is not None and len(p) != len(transforms):
            raise ValueError(f"RandomChoice: p has {len(p)} weights for {len(transforms)} transforms")
        self.transforms = list(transforms)
        total = float(sum(p)) if p is not None else float(len(transforms))
        weights = p if p is not None else [1.0] * len(transforms)
        self.p = [float(w) / total for w in weights]

    def __call__(self, *args: Any) -> Any:
        u = _rand()
        acc = 0.0
        idx = len(self.transforms) - 1
        for i, w in enumerate(self.p):
            acc += w
            if u < acc:
                idx = i
                break
        return self.transforms[idx](*args)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(transforms={self.transforms}, p={self.p})"


class RandomOrder:
    """Applies ``transforms`` in a random order."""

    def __init__(self, transforms: Sequence[Callable]) -> None:
        self.transforms = list(transforms)

    def __call__(self, img: Any) -> Any:
        for i in flow.randperm(len(self.transforms)).tolist():
            img = self.transforms[i](img)
        return img

    def __repr__(self) -> str:
        return f"{type(self).__name__}(transforms={self.transforms})"


# --- conversion -----------------------------------------------------------------------------


class ToTensor:
    """A PIL image or NumPy (H, W, C) array to a (C, H, W) tensor; uint8 becomes float in [0, 1]."""

    def __call__(self, pic) -> flow.Tensor:
        return F.to_tensor(pic)

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class PILToTensor:
    """A PIL image to a (C, H, W) tensor of the same pixel type (no scaling)."""

    def __call__(self, pic) -> flow.Tensor:
        return F.pil_to_tensor(pic)

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class ToPILImage:
    """A (C, H, W) tensor or (H, W, C) NumPy array to a PIL image (see ``functional.to_pil_image``)."""

    def __init__(self, mode: str | None = None) -> None:
        self.mode = mode

    def __call__(self, pic):
        return F.to_pil_image(pic, self.mode)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(mode={self.mode})"


class ConvertImageDtype(flow.nn.Module):
    """Converts a tensor image to ``dtype``, rescaling between the value ranges of the types."""

    def __init__(self, dtype: flow.dtype) -> None:
        super().__init__()
        self.dtype = dtype

    def forward(self, image: flow.Tensor) -> flow.Tensor:
        return F.convert_image_dtype(image, self.dtype)

    def extra_repr(self) -> str:
        return f"dtype={self.dtype}"


class Normalize(flow.nn.Module):
    """``(x - mean[c]) / std[c]`` for each channel c of a float tensor image (..., C, H, W)."""

    def __init__(self, mean: Sequence[float], std: Sequence[float], inplace: bool = False) -> None:
        super().__init__()
        self.mean = mean
        self.std = std
        self.inplace = inplace

    def forward(self, tensor: flow.Tensor) -> flow.Tensor:
        return F.normalize(tensor, self.mean, self.std, self.inplace)

    def extra_repr(self) -> str:
        return f"mean={self.mean}, std={self.std}"


# --- geometry -------------------------------------------------------------------------------


class Resize(flow.nn.Module):
    """Resizes to ``size`` = (h, w), or the shorter side to ``size`` (an int) keeping the aspect ratio.

    Args:
        size: int or (h, w).
        interpolation: an :class:`InterpolationMode` (BILINEAR by default).
        max_size: with an int ``size``, the longer side is capped at this.
        antialias: anti-alias tensor resampling (bilinear/bicubic); PIL always does.
    """

    def __init__(self, size, interpolation=InterpolationMode.BILINEAR, max_size: int | None = None,
                 antialias: bool | None = True) -> None:
        super().__init__()
        if size is not None and not isinstance(size, (int, Sequence)):
            raise TypeError(f"Resize: size should be an int or a sequence, got {type(size).__name__}")
        if isinstance(size, Sequence) and len(size) not in (1, 2):
            raise ValueError(f"Resize: a size sequence should have 1 or 2 values, got {len(size)}")
        self.size = size
        self.max_size = max_size
        self.interpolation = interpolation_mode(interpolation, "Resize")
        self.antialias = antialias

    def forward(self, img):
        F.check_image(img, type(self).__name__)
        return F.resize(img, self.size, self.interpolation, self.max_size, self.antialias)

    def extra_repr(self) -> str:
        return (f"size={self.size}, interpolation={self.interpolation.value}, max_size={self.max_size}, "
                f"antialias={self.antialias}")


class CenterCrop(flow.nn.Module):
    """Crops the centre ``size`` (int or (h, w)); pads with zeros where the image is smaller."""

    def __init__(self, size) -> None:
        super().__init__()
        self.size = _setup_size(size, "CenterCrop")

    def forward(self, img):
        F.check_image(img, type(self).__name__)
        return F.center_crop(img, self.size)

    def extra_repr(self) -> str:
        return f"size={self.size}"


class Pad(flow.nn.Module):
    """Pads the borders (see ``functional.pad`` for ``padding``, ``fill`` and ``padding_mode``)."""

    def __init__(self, padding, fill=0, padding_mode: str = "constant") -> None:
        super().__init__()
        F.parse_padding(padding, "Pad")
        if padding_mode not in ("constant", "edge", "reflect", "symmetric"):
            raise ValueError(f"Pad: padding_mode should be constant, edge, reflect or symmetric, got {padding_mode!r}")
        self.padding = padding
        self.fill = fill
        self.padding_mode = padding_mode

    def forward(self, img):
        F.check_image(img, type(self).__name__)
        return F.pad(img, self.padding, self.fill, self.padding_mode)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, fill={self.fill}, padding_mode={self.padding_mode}"


class RandomCrop(flow.nn.Module):
    """Crops a random ``size`` window, after optional padding.

    Args:
        size: int or (h, w).
        padding: padding applied first (as ``Pad``).
        pad_if_needed: pads a side shorter than the crop up to it.
        fill, padding_mode: as ``Pad``.
    """

    def __init__(self, size, padding=None, pad_if_needed: bool = False, fill=0, padding_mode: str = "constant"):
        super().__init__()
        self.size = _setup_size(size, "RandomCrop")
        if padding is not None:
            F.parse_padding(padding, "RandomCrop")
        self.padding = padding
        self.pad_if_needed = pad_if_needed
        self.fill = fill
        self.padding_mode = padding_mode

    @staticmethod
    def get_params(img, output_size: tuple[int, int]) -> tuple[int, int, int, int]:
        """(top, left, h, w) of a random crop of ``output_size``."""
        _, h, w = F.get_dimensions(img)
        th, tw = output_size
        if h < th or w < tw:
            raise ValueError(f"RandomCrop: crop size {(th, tw)} is larger than the image size {(h, w)} "
                             "(use padding or pad_if_needed=True)")
        if (h, w) == (th, tw):
            return 0, 0, h, w
        i = _randint(0, h - th + 1)
        j = _randint(0, w - tw + 1)
        return i, j, th, tw

    def forward(self, img):
        F.check_image(img, type(self).__name__)
        if self.padding is not None:
            img = F.pad(img, self.padding, self.fill, self.padding_mode)
        _, h, w = F.get_dimensions(img)
        if self.pad_if_needed and w < self.size[1]:
            img = F.pad(img, [self.size[1] - w, 0], self.fill, self.padding_mode)
        if self.pad_if_needed and h < self.size[0]:
            img = F.pad(img, [0, self.size[0] - h], self.fill, self.padding_mode)
        i, j, th, tw = self.get_params(img, self.size)
        return F.crop(img, i, j, th, tw)

    def extra_repr(self) -> str:
        return f"size={self.size}, padding={self.padding}"


class RandomResizedCrop(flow.nn.Module):
    """Crops a random area (fraction ``scale`` of the image, aspect ratio in ``ratio``, drawn
    log-uniformly) and resizes it to ``size``."""

    def __init__(self, size, scale: tuple[float, float] = (0.08, 1.0),
                 ratio: tuple[float, float] = (3.0 / 4.0, 4.0 / 3.0),
                 interpolation=InterpolationMode.BILINEAR, antialias: bool | None = True) -> None:
        super().__init__()
        self.size = _setup_size(size, "RandomResizedCrop")
        if not isinstance(scale, Sequence) or not isinstance(ratio, Sequence):
            raise TypeError("RandomResizedCrop: scale and ratio should be sequences of 2 numbers")
        if scale[0] > scale[1] or ratio[0] > ratio[1]:
            warnings.warn("RandomResizedCrop: scale and ratio should be (min, max)", stacklevel=2)
        self.scale = scale
        self.ratio = ratio
        self.interpolation = interpolation_mode(interpolation, "RandomResizedCrop")
        self.antialias = antialias

    @staticmethod
    def get_params(img, scale: Sequence[float], ratio: Sequence[float]) -> tuple[int, int, int, int]:
        """(top, left, h, w) of the random crop; after 10 misses, a centre crop clamped to ``ratio``."""
        _, height, width = F.get_dimensions(img)
        area = height * width
        log_lo, log_hi = math.log(ratio[0]), math.log(ratio[1])
        for _ in range(10):
            target_area = area * _uniform(scale[0], scale[1])
            aspect = math.exp(_uniform(log_lo, log_hi))
            w = int(round(math.sqrt(target_area * aspect)))
            h = int(round(math.sqrt(target_area / aspect)))
            if 0 < w <= width and 0 < h <= height:
                i = _randint(0, height - h + 1)
                j = _randint(0, width - w + 1)
                return i, j, h, w
        in_ratio = float(width) / float(height)
        if in_ratio < min(ratio):
            w = width
            h = int(round(w / min(ratio)))
        elif in_ratio > max(ratio):
            h = height
            w = int(round(h * max(ratio)))
        else:
            w, h = width, height
        return (height - h) // 2, (width - w) // 2, h, w

    def forward(self, img):
        F.check_image(img, type(self).__name__)
        i, j, h, w = self.get_params(img, self.scale, self.ratio)
        return F.resized_crop(img, i, j, h, w, list(self.size), self.interpolation, antialias=self.antialias)

    def extra_repr(self) -> str:
        return (f"size={self.size}, scale={tuple(self.scale)}, ratio={tuple(self.ratio)}, "
                f"interpolation={self.interpolation.value}, antialias={self.antialias}")


class RandomHorizontalFlip(flow.nn.Module):
    """Mirrors left to right with probability ``p``."""

    def __init__(self, p: float = 0.5) -> None:
        super().__init__()
        self.p = _check_prob(p, "RandomHorizontalFlip")

    def forward(self, img):
        F.check_image(img, type(self).__name__)
        if _rand() < self.p:
            return F.hflip(img)
        return img

    def extra_repr(self) -> str:
        return f"p={self.p}"


class RandomVerticalFlip(flow.nn.Module):
    """Mirrors top to bottom with probability ``p``."""

    def __init__(self, p: float = 0.5) -> None:
        super().__init__()
        self.p = _check_prob(p, "RandomVerticalFlip")

    def forward(self, img):
        F.check_image(img, type(self).__name__)
        if _rand() < self.p:
            return F.vflip(img)
        return img

    def extra_repr(self) -> str:
        return f"p={self.p}"


def _setup_angle(x, name: str, what: str = "degrees", req_sizes: tuple[int, ...] = (2,)) -> list[float]:
    if isinstance(x, numbers.Number):
        if x < 0:
            raise ValueError(f"{name}: a single number for {what} should be non-negative, got {x}")
        return [-float(x), float(x)]
    if not isinstance(x, Sequence) or len(x) not in req_sizes:
        raise ValueError(f"{name}: {what} should be a number or a sequence of {' or '.join(map(str, req_sizes))} "
                         f"numbers, got {x!r}")
    return [float(v) for v in x]


def _check_fill(fill, name: str):
    if fill is None:
        return None
    if isinstance(fill, numbers.Number):
        return fill
    if isinstance(fill, Sequence):
        return list(fill)
    raise TypeError(f"{name}: fill should be a number or a sequence of numbers, got {fill!r}")


class RandomRotation(flow.nn.Module):
    """Rotates by an angle drawn uniformly from ``degrees`` ((-d, d) for a number d).

    Args:
        interpolation: NEAREST (default) or BILINEAR (BICUBIC for PIL images).
        expand: enlarge the output to hold the whole rotated image.
        center: the rotation centre (x, y) in pixels; the image centre by default.
        fill: colour of the area outside the source.
    """

    def __init__(self, degrees, interpolation=InterpolationMode.NEAREST, expand: bool = False,
                 center: Sequence[int] | None = None, fill=0) -> None:
        super().__init__()
        self.degrees = _setup_angle(degrees, "RandomRotation")
        if center is not None and (not isinstance(center, Sequence) or len(center) != 2):
            raise ValueError(f"RandomRotation: center should be a sequence of 2 numbers, got {center!r}")
        self.center = center
        self.interpolation = interpolation_mode(interpolation, "RandomRotation")
        self.expand = expand
        self.fill = _check_fill(fill, "RandomRotation")

    @staticmethod
    def get_params(degrees: Sequence[float]) -> float:
        """The random angle."""
        return _uniform(float(degrees[0]), float(degrees[1]))

    def forward(self, img):
        F.check_image(img, type(self).__name__)
        fill = _tensor_fill(self.fill, img)
        angle = self.get_params(self.degrees)
        return F.rotate(img, angle, self.interpolation, self.expand, self.center, fill)

    def extra_repr(self) -> str:
        return (f"degrees={self.degrees}, interpolation={self.interpolation.value}, expand={self.expand}, "
                f"fill={self.fill}")


class RandomAffine(flow.nn.Module):
    """A random affine transform about the image centre.

    Args:
        degrees: rotation range ((-d, d) for a number d; 0 disables rotation).
        translate: (a, b): horizontal shift in (-a * width, a * width), vertical in (-b * height, b * height).
        scale: (lo, hi) scale range.
        shear: a number s for an x-shear in (-s, s); (lo, hi) for x; (xlo, xhi, ylo, yhi) for both.
        interpolation, fill, center: as ``RandomRotation``.
    """

    def __init__(self, degrees, translate: Sequence[float] | None = None, scale: Sequence[float] | None = None,
                 shear=None, interpolation=InterpolationMode.NEAREST, fill=0,
                 center: Sequence[int] | None = None) -> None:
        super().__init__()
        name = "RandomAffine"
        self.degrees = _setup_angle(degrees, name)
        if translate is not None:
            if not isinstance(translate, Sequence) or len(translate) != 2:
                raise ValueError(f"{name}: translate should be a sequence of 2 numbers, got {translate!r}")
            if not all(0.0 <= t <= 1.0 for t in translate):
                raise ValueError(f"{name}: translate values should be in [0, 1], got {translate!r}")
        self.translate = translate
        if scale is not None:
            if not isinstance(scale, Sequence) or len(scale) != 2:
                raise ValueError(f"{name}: scale should be a sequence of 2 numbers, got {scale!r}")
            if not all(s > 0 for s in scale):
                raise ValueError(f"{name}: scale values should be positive, got {scale!r}")
        self.scale = scale
        self.shear = _setup_angle(shear, name, "shear", (2, 4)) if shear is not None else None
        self.interpolation = interpolation_mode(interpolation, name)
        self.fill = _check_fill(fill, name)
        if center is not None and (not isinstance(center, Sequence) or len(center) != 2):
            raise ValueError(f"{name}: center should be a sequence of 2 numbers, got {center!r}")
        self.center = center

    @staticmethod
    def get_params(degrees: Sequence[float], translate: Sequence[float] | None, scale_ranges: Sequence[float] | None,
                   shears: Sequence[float] | None, img_size: Sequence[int]):
        """(angle, (tx, ty), scale, (shear_x, shear_y)) for an image of ``img_size`` = (w, h)."""
        angle = _uniform(float(degrees[0]), float(degrees[1]))
        if translate is not None:
            max_dx = float(translate[0] * img_size[0])
            max_dy = float(translate[1] * img_size[1])
            tx = int(round(_uniform(-max_dx, max_dx)))
            ty = int(round(_uniform(-max_dy, max_dy)))
            translations = (tx, ty)
        else:
            translations = (0, 0)
        scale = _uniform(scale_ranges[0], scale_ranges[1]) if scale_ranges is not None else 1.0
        shear_x = shear_y = 0.0
        if shears is not None:
            shear_x = _uniform(shears[0], shears[1])
            if len(shears) == 4:
                shear_y = _uniform(shears[2], shears[3])
        return angle, translations, scale, (shear_x, shear_y)

    def forward(self, img):
        F.check_image(img, type(self).__name__)
        fill = _tensor_fill(self.fill, img)
        _, h, w = F.get_dimensions(img)
        angle, translate, scale, shear = self.get_params(self.degrees, self.translate, self.scale, self.shear, [w, h])
        return F.affine(img, angle, list(translate), scale, list(shear), self.interpolation, fill, self.center)

    def extra_repr(self) -> str:
        return (f"degrees={self.degrees}, translate={self.translate}, scale={self.scale}, shear={self.shear}, "
                f"interpolation={self.interpolation.value}, fill={self.fill}")


# --- colour ---------------------------------------------------------------------------------


class Grayscale(flow.nn.Module):
    """Converts to grayscale with 1 or 3 (identical) output channels."""

    def __init__(self, num_output_channels: int = 1) -> None:
        super().__init__()
        if num_output_channels not in (1, 3):
            raise ValueError(f"Grayscale: num_output_channels should be 1 or 3, got {num_output_channels}")
        self.num_output_channels = num_output_channels

    def forward(self, img):
        F.check_image(img, type(self).__name__)
        return F.rgb_to_grayscale(img, self.num_output_channels)

    def extra_repr(self) -> str:
        return f"num_output_channels={self.num_output_channels}"


class RandomGrayscale(flow.nn.Module):
    """Converts to grayscale with probability ``p``, keeping the number of channels."""

    def __init__(self, p: float = 0.1) -> None:
        super().__init__()
        self.p = _check_prob(p, "RandomGrayscale")

    def forward(self, img):
        F.check_image(img, type(self).__name__)
        channels = F.get_dimensions(img)[0]
        if _rand() < self.p:
            return F.rgb_to_grayscale(img, num_output_channels=channels)
        return img

    def extra_repr(self) -> str:
        return f"p={self.p}"


def _jitter_range(value, name: str, center: float = 1.0, bound=(0.0, float("inf")),
                  clip_first_on_zero: bool = True) -> tuple[float, float] | None:
    if isinstance(value, numbers.Number):
        if value < 0:
            raise ValueError(f"ColorJitter: a single number for {name} should be non-negative, got {value}")
        lo, hi = center - float(value), center + float(value)
        if clip_first_on_zero:
            lo = max(lo, 0.0)
    elif isinstance(value, Sequence) and len(value) == 2:
        lo, hi = float(value[0]), float(value[1])
    else:
        raise TypeError(f"ColorJitter: {name} should be a number or a sequence of 2 numbers, got {value!r}")
    if not bound[0] <= lo <= hi <= bound[1]:
        raise ValueError(f"ColorJitter: {name} range should lie in {list(bound)} with min <= max, got {[lo, hi]}")
    if lo == hi == center:
        return None  # the identity
    return lo, hi


class ColorJitter(flow.nn.Module):
    """Randomly changes brightness, contrast, saturation and hue, in a random order.

    Each factor is drawn uniformly from its range: a number v means [max(0, 1 - v), 1 + v]
    ([-v, v] for hue, which must stay within [-0.5, 0.5]); a pair gives the range itself.
    """

    def __init__(self, brightness=0, contrast=0, saturation=0, hue=0) -> None:
        super().__init__()
        self.brightness = _jitter_range(brightness, "brightness")
        self.contrast = _jitter_range(contrast, "contrast")
        self.saturation = _jitter_range(saturation, "saturation")
        self.hue = _jitter_range(hue, "hue", center=0.0, bound=(-0.5, 0.5), clip_first_on_zero=False)

    @staticmethod
    def get_params(brightness, contrast, saturation, hue):
        """(order of the four adjustments, brightness, contrast, saturation, hue factors or None)."""
        order = flow.randperm(4).tolist()
        b = None if brightness is None else _uniform(brightness[0], brightness[1])
        c = None if contrast is None else _uniform(contrast[0], contrast[1])
        s = None if saturation is None else _uniform(saturation[0], saturation[1])
        h = None if hue is None else _uniform(hue[0], hue[1])
        return order, b, c, s, h

    def forward(self, img):
        F.check_image(img, type(self).__name__)
        order, b, c, s, h = self.get_params(self.brightness, self.contrast, self.saturation, self.hue)
        for fn_id in order:
            if fn_id == 0 and b is not None:
                img = F.adjust_brightness(img, b)
            elif fn_id == 1 and c is not None:
                img = F.adjust_contrast(img, c)
            elif fn_id == 2 and s is not None:
                img = F.adjust_saturation(img, s)
            elif fn_id == 3 and h is not None:
                img = F.adjust_hue(img, h)
        return img

    def extra_repr(self) -> str:
        return f"brightness={self.brightness}, contrast={self.contrast}, saturation={self.saturation}, hue={self.hue}"


class GaussianBlur(flow.nn.Module):
    """Gaussian blur with an odd ``kernel_size`` (int or (kx, ky)) and sigma drawn uniformly
    from ``sigma`` ((min, max), or a fixed number)."""

    def __init__(self, kernel_size, sigma=(0.1, 2.0)) -> None:
        super().__init__()
        ks = _setup_size(kernel_size, "GaussianBlur")
        for k in ks:
            if k <= 0 or k % 2 == 0:
                raise ValueError(f"GaussianBlur: kernel_size should be odd and positive, got {kernel_size!r}")
        self.kernel_size = ks
        if isinstance(sigma, numbers.Number):
            if sigma <= 0:
                raise ValueError(f"GaussianBlur: a single sigma should be positive, got {sigma}")
            sigma = (float(sigma), float(sigma))
        elif isinstance(sigma, Sequence) and len(sigma) == 2:
            if not 0.0 < sigma[0] <= sigma[1]:
                raise ValueError(f"GaussianBlur: sigma should be (min, max) with 0 < min <= max, got {sigma!r}")
        else:
            raise ValueError(f"GaussianBlur: sigma should be a number or a sequence of 2 numbers, got {sigma!r}")
        self.sigma = (float(sigma[0]), float(sigma[1]))

    @staticmethod
    def get_params(sigma_min: float, sigma_max: float) -> float:
        """The random sigma."""
        return _uniform(sigma_min, sigma_max)

    def forward(self, img):
        F.check_image(img, type(self).__name__)
        s = self.get_params(self.sigma[0], self.sigma[1])
        return F.gaussian_blur(img, list(self.kernel_size), [s, s])

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, sigma={self.sigma}"


class RandomErasing(flow.nn.Module):
    """Erases a random rectangle of a tensor image with probability ``p`` (Zhong et al. 2017).

    Args:
        scale: range of the erased area as a fraction of the image.
        ratio: range of its aspect ratio (drawn log-uniformly).
        value: the fill: a number, one number per channel, or ``"random"`` for normal noise.
        inplace: modify the input tensor.
    """

    def __init__(self, p: float = 0.5, scale: Sequence[float] = (0.02, 0.33), ratio: Sequence[float] = (0.3, 3.3),
                 value=0, inplace: bool = False) -> None:
        super().__init__()
        name = "RandomErasing"
        if not isinstance(value, (numbers.Number, str, tuple, list)):
            raise TypeError(f"{name}: value should be a number, a sequence or 'random', got {value!r}")
        if isinstance(value, str) and value != "random":
            raise ValueError(f"{name}: the only string value is 'random', got {value!r}")
        if not isinstance(scale, Sequence) or not isinstance(ratio, Sequence):
            raise TypeError(f"{name}: scale and ratio should be sequences of 2 numbers")
        if scale[0] > scale[1] or ratio[0] > ratio[1]:
            warnings.warn(f"{name}: scale and ratio should be (min, max)", stacklevel=2)
        if scale[0] < 0 or scale[1] > 1:
            raise ValueError(f"{name}: scale should lie in [0, 1], got {scale!r}")
        self.p = _check_prob(p, name)
        self.scale = scale
        self.ratio = ratio
        self.value = value
        self.inplace = inplace

    @staticmethod
    def get_params(img: flow.Tensor, scale: Sequence[float], ratio: Sequence[float], value: list[float] | None = None):
        """(top, left, h, w, fill tensor) of the erased box, or the whole image unchanged after 10 misses."""
        c, img_h, img_w = int(img.shape[-3]), int(img.shape[-2]), int(img.shape[-1])
        area = img_h * img_w
        log_lo, log_hi = math.log(ratio[0]), math.log(ratio[1])
        for _ in range(10):
            erase_area = area * _uniform(scale[0], scale[1])
            aspect = math.exp(_uniform(log_lo, log_hi))
            h = int(round(math.sqrt(erase_area * aspect)))
            w = int(round(math.sqrt(erase_area / aspect)))
            if not (h < img_h and w < img_w):
                continue
            if value is None:
                v = flow.empty(c, h, w, dtype=flow.float32).normal_()
            else:
                v = flow.tensor(value, dtype=flow.float32)[:, None, None]
            i = _randint(0, img_h - h + 1)
            j = _randint(0, img_w - w + 1)
            return i, j, h, w, v
        return 0, 0, img_h, img_w, img

    def forward(self, img: flow.Tensor) -> flow.Tensor:
        name = "RandomErasing"
        if not isinstance(img, flow.Tensor):
            raise TypeError(f"{name}: expected a oneflow tensor image (apply it after ToTensor), "
                            f"got {type(img).__name__}")
        if img.ndim < 3:
            raise ValueError(f"{name}: expected a tensor image of shape (..., C, H, W), got a {img.ndim}-D "
                             f"tensor of shape {tuple(img.shape)}")
        if _rand() < self.p:
            if isinstance(self.value, numbers.Number):
                value = [float(self.value)]
            elif isinstance(self.value, str):
                value = None
            else:
                value = [float(v) for v in self.value]
            if value is not None and len(value) not in (1, int(img.shape[-3])):
                raise ValueError(f"{name}: value should have 1 or {int(img.shape[-3])} numbers for this image, "
                                 f"got {len(value)}")
            i, j, h, w, v = self.get_params(img, self.scale, self.ratio, value)
            return F.erase(img, i, j, h, w, v.to(img.dtype), self.inplace)
        return img

    def extra_repr(self) -> str:
        return f"p={self.p}, scale={self.scale}, ratio={self.ratio}, value={self.value}, inplace={self.inplace}"


class _RandomOp(flow.nn.Module):
    """Applies ``self._op(img)`` with probability ``p``."""

    def __init__(self, p: float) -> None:
        super().__init__()
        self.p = _check_prob(p, type(self).__name__)

    def _op(self, img):
        raise NotImplementedError

    def forward(self, img):
        F.check_image(img, type(self).__name__)
        if _rand() < self.p:
            return self._op(img)
        return img

    def extra_repr(self) -> str:
        return f"p={self.p}"


class RandomInvert(_RandomOp):
    """Inverts the colours with probability ``p``."""

    def __init__(self, p: float = 0.5) -> None:
        super().__init__(p)

    def _op(self, img):
        return F.invert(img)


class RandomPosterize(_RandomOp):
    """Keeps ``bits`` bits per channel with probability ``p``."""

    def __init__(self, bits: int, p: float = 0.5) -> None:
        super().__init__(p)
        self.bits = bits

    def _op(self, img):
        return F.posterize(img, self.bits)


class RandomSolarize(_RandomOp):
    """Inverts the pixels at or above ``threshold`` with probability ``p``."""

    def __init__(self, threshold: float, p: float = 0.5) -> None:
        super().__init__(p)
        self.threshold = threshold

    def _op(self, img):
        return F.solarize(img, self.threshold)


class RandomAdjustSharpness(_RandomOp):
    """Adjusts sharpness by ``sharpness_factor`` with probability ``p``."""

    def __init__(self, sharpness_factor: float, p: float = 0.5) -> None:
        super().__init__(p)
        self.sharpness_factor = sharpness_factor

    def _op(self, img):
        return F.adjust_sharpness(img, self.sharpness_factor)


class RandomAutocontrast(_RandomOp):
    """Maximizes contrast per channel with probability ``p``."""

    def __init__(self, p: float = 0.5) -> None:
        super().__init__(p)

    def _op(self, img):
        return F.autocontrast(img)


class RandomEqualize(_RandomOp):
    """Equalizes the histogram with probability ``p``."""

    def __init__(self, p: float = 0.5) -> None:
        super().__init__(p)

    def _op(self, img):
        return F.equalize(img)
