"""Functional image transforms with torchvision's semantics.

Every function takes a PIL image or a oneflow tensor image of shape (..., C, H, W) (batches
included; geometric ones also take (H, W)) and returns the same kind. PIL images go through
PIL's own operations; tensors through oneflow ops, with uint8 images computed in float and
cast back. ``to_tensor`` and ``to_pil_image`` also take NumPy arrays of shape (H, W, C).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from enum import Enum
from typing import Any

import numpy as np

import oneflow as flow
from flowvision.transforms import _functional_pil as FP
from flowvision.transforms import _functional_tensor as FT

__all__ = [
    "InterpolationMode",
    "adjust_brightness",
    "adjust_contrast",
    "adjust_gamma",
    "adjust_hue",
    "adjust_saturation",
    "adjust_sharpness",
    "affine",
    "autocontrast",
    "center_crop",
    "convert_image_dtype",
    "crop",
    "equalize",
    "erase",
    "gaussian_blur",
    "get_dimensions",
    "get_image_num_channels",
    "get_image_size",
    "hflip",
    "invert",
    "normalize",
    "pad",
    "pil_to_tensor",
    "posterize",
    "resize",
    "resized_crop",
    "rgb_to_grayscale",
    "rotate",
    "solarize",
    "to_grayscale",
    "to_pil_image",
    "to_tensor",
    "vflip",
]

ImageLike = Any  # a PIL image or a oneflow tensor image


class InterpolationMode(Enum):
    """Resampling filters; the value is the ``oneflow.nn.functional.interpolate`` mode name.

    BOX, HAMMING and LANCZOS exist only for PIL images.
    """

    NEAREST = "nearest"
    NEAREST_EXACT = "nearest-exact"
    BILINEAR = "bilinear"
    BICUBIC = "bicubic"
    BOX = "box"
    HAMMING = "hamming"
    LANCZOS = "lanczos"


# PIL's resampling constants (Image.Resampling values).
_PIL_FILTERS = {
    InterpolationMode.NEAREST: 0,
    InterpolationMode.NEAREST_EXACT: 0,
    InterpolationMode.LANCZOS: 1,
    InterpolationMode.BILINEAR: 2,
    InterpolationMode.BICUBIC: 3,
    InterpolationMode.BOX: 4,
    InterpolationMode.HAMMING: 5,
}
_FROM_PIL = {0: InterpolationMode.NEAREST, 1: InterpolationMode.LANCZOS, 2: InterpolationMode.BILINEAR,
             3: InterpolationMode.BICUBIC, 4: InterpolationMode.BOX, 5: InterpolationMode.HAMMING}


def interpolation_mode(value, name: str) -> InterpolationMode:
    """An InterpolationMode from the enum itself, its string value or a PIL filter constant."""
    if isinstance(value, InterpolationMode):
        return value
    if isinstance(value, str):
        for m in InterpolationMode:
            if m.value == value:
                return m
    elif isinstance(value, int) and not isinstance(value, bool) and value in _FROM_PIL:
        return _FROM_PIL[value]
    raise TypeError(f"{name}: interpolation should be an InterpolationMode (one of "
                    f"{[m.value for m in InterpolationMode]}), got {value!r}")


def _kind(img: Any) -> str:
    return f"{type(img).__module__}.{type(img).__name__}"


def check_image(img: Any, name: str) -> bool:
    """True for a PIL image, False for a tensor image; a TypeError naming ``name`` otherwise."""
    if isinstance(img, flow.Tensor):
        FT.assert_image_tensor(img, name)
        return False
    if FP.is_pil_image(img):
        return True
    hint = " (convert NumPy arrays with ToTensor or ToPILImage first)" if isinstance(img, np.ndarray) else ""
    raise TypeError(f"{name}: expected a PIL image or a oneflow tensor image, got {_kind(img)}{hint}")


def get_dimensions(img: ImageLike) -> list[int]:
    """[channels, height, width] of a PIL image or a tensor image."""
    if check_image(img, "get_dimensions"):
        return FP.get_dimensions(img)
    return FT.get_dimensions(img)


def get_image_size(img: ImageLike) -> list[int]:
    """[width, height] of a PIL image or a tensor image."""
    _, h, w = get_dimensions(img)
    return [w, h]


def get_image_num_channels(img: ImageLike) -> int:
    """The number of channels (bands) of a PIL image or a tensor image."""
    return get_dimensions(img)[0]


# --- conversion -----------------------------------------------------------------------------


def _pil_array(pic) -> np.ndarray:
    """The pixels of a PIL image as an (H, W, C) array of a type oneflow holds."""
    arr = np.array(pic)
    if pic.mode == "1":
        arr = arr.astype(np.uint8) * 255
    elif arr.dtype == np.uint16:
        arr = arr.astype(np.int32)  # 16-bit modes; oneflow has no uint16
    elif arr.dtype == np.uint32:
        arr = arr.astype(np.int64)
    if arr.ndim == 2:
        arr = arr[:, :, None]
    return arr


def to_tensor(pic) -> flow.Tensor:
    """A PIL image or a NumPy (H, W, C) array as a (C, H, W) tensor; uint8 data is scaled to
    float32 in [0, 1], other types keep their values and dtype."""
    if FP.is_pil_image(pic):
        arr = _pil_array(pic)
    elif isinstance(pic, np.ndarray):
        if pic.ndim not in (2, 3):
            raise ValueError(f"ToTensor: expected a NumPy image of shape (H, W) or (H, W, C), got {pic.ndim} "
                             f"dimensions (shape {pic.shape})")
        arr = pic[:, :, None] if pic.ndim == 2 else pic
        if arr.dtype == np.uint16:
            arr = arr.astype(np.int32)
    else:
        raise TypeError(f"ToTensor: expected a PIL image or a NumPy array, got {_kind(pic)}")
    img = flow.from_numpy(np.ascontiguousarray(arr.transpose(2, 0, 1)))
    if img.dtype == flow.uint8:
        return img.to(flow.get_default_dtype()) / 255.0
    return img


def pil_to_tensor(pic) -> flow.Tensor:
    """A PIL image as a (C, H, W) tensor of its own pixel type, unscaled."""
    if not FP.is_pil_image(pic):
        raise TypeError(f"PILToTensor: expected a PIL image, got {_kind(pic)}")
    arr = np.array(pic)
    if arr.dtype == np.uint16:
        arr = arr.astype(np.int32)
    if arr.ndim == 2:
        arr = arr[:, :, None]
    return flow.from_numpy(np.ascontiguousarray(arr.transpose(2, 0, 1)))


_ONE_CHANNEL_MODES = {np.dtype(np.uint8): "L", np.dtype(np.int16): "I;16", np.dtype(np.int32): "I",
                      np.dtype(np.float32): "F"}
_MODES_BY_CHANNELS = {2: ["LA"], 3: ["RGB", "YCbCr", "HSV"], 4: ["RGBA", "CMYK", "RGBX"]}


def to_pil_image(pic, mode: str | None = None):
    """A (C, H, W) tensor or an (H, W, C) NumPy array as a PIL image.

    Floating tensors are taken to be in [0, 1] and become uint8 (``x * 255`` truncated) unless
    ``mode="F"``; NumPy arrays are used as they are. Without ``mode`` it follows from the
    channels and dtype: L, I;16, I or F for one channel, LA, RGB, RGBA for 2, 3, 4 uint8 channels.
    """
    Image, _, _ = FP.pil()
    if isinstance(pic, flow.Tensor):
        if pic.ndim not in (2, 3):
            raise ValueError(f"ToPILImage: expected a tensor of shape (H, W) or (C, H, W), got {pic.ndim} "
                             f"dimensions (shape {tuple(pic.shape)})")
        if pic.ndim == 2:
            pic = pic.unsqueeze(0)
        if pic.shape[-3] > 4:
            raise ValueError(f"ToPILImage: expected at most 4 channels, got {int(pic.shape[-3])} "
                             f"(shape {tuple(pic.shape)})")
        if pic.is_floating_point() and mode != "F":
            pic = (pic * 255).to(flow.uint8)
        arr = np.transpose(pic.cpu().numpy(), (1, 2, 0))
    elif isinstance(pic, np.ndarray):
        if pic.ndim not in (2, 3):
            raise ValueError(f"ToPILImage: expected a NumPy array of shape (H, W) or (H, W, C), got {pic.ndim} "
                             f"dimensions (shape {pic.shape})")
        arr = pic[:, :, None] if pic.ndim == 2 else pic
        if arr.shape[-1] > 4:
            raise ValueError(f"ToPILImage: expected at most 4 channels, got {arr.shape[-1]} (shape {pic.shape})")
    else:
        raise TypeError(f"ToPILImage: expected a oneflow tensor or a NumPy array, got {_kind(pic)}")

    channels = arr.shape[2]
    if channels == 1:
        arr = arr[:, :, 0]
        expected = _ONE_CHANNEL_MODES.get(arr.dtype)
        if mode is not None and mode != expected:
            raise ValueError(f"ToPILImage: mode {mode!r} does not fit one channel of {arr.dtype} "
                             f"(expected {expected!r})")
        mode = expected
    else:
        permitted = _MODES_BY_CHANNELS[channels]
        if mode is not None and mode not in permitted:
            raise ValueError(
                f"ToPILImage: mode {mode!r} does not fit {channels} channels (expected one of {permitted})"
            )
        if mode is None and arr.dtype == np.uint8:
            mode = permitted[0]
    if mode is None:
        raise TypeError(f"ToPILImage: {channels}-channel images of type {arr.dtype} are not supported "
                        "(use uint8, or a float tensor in [0, 1])")
    arr = np.ascontiguousarray(arr)
    if mode == "I;16":
        return Image.fromarray(arr.astype(np.uint16))
    if mode in ("L", "I", "F", "LA", "RGB", "RGBA"):
        if arr.dtype != np.uint8 and mode not in ("I", "F"):
            raise TypeError(f"ToPILImage: mode {mode!r} needs uint8 data, got {arr.dtype}")
        return Image.fromarray(arr)
    if arr.dtype != np.uint8:
        raise TypeError(f"ToPILImage: mode {mode!r} needs uint8 data, got {arr.dtype}")
    return Image.frombytes(mode, (arr.shape[1], arr.shape[0]), arr.tobytes())


def convert_image_dtype(image: flow.Tensor, dtype: flow.dtype = flow.float32) -> flow.Tensor:
    """Converts a tensor image to `dtype`, rescaling values between the types' ranges
    (floats in [0, 1], integers in [0, max])."""
    return FT.convert_image_dtype(image, dtype)


def normalize(tensor: flow.Tensor, mean: Sequence[float], std: Sequence[float], inplace: bool = False) -> flow.Tensor:
    """``(tensor - mean) / std`` per channel of a float tensor image (..., C, H, W)."""
    return FT.normalize(tensor, mean, std, inplace)


# --- geometry -------------------------------------------------------------------------------


def _size_list(size, name: str) -> list[int] | None:
    if size is None:
        return None
    if isinstance(size, numbers.Integral) and not isinstance(size, bool):
        return [int(size)]
    if isinstance(size, (list, tuple)) and len(size) in (1, 2) and all(
            isinstance(s, numbers.Integral) and not isinstance(s, bool) for s in size):
        return [int(s) for s in size]
    raise TypeError(f"{name}: size should be an int or a sequence of 1 or 2 ints, got {size!r}")


def resized_output_size(height: int, width: int, size: list[int] | None, max_size: int | None,
                        name: str = "Resize") -> list[int]:
    """[new_h, new_w]: both given, or the shorter side set to size[0] (aspect kept, longer side
    capped at max_size), or with size None the longer side set to max_size."""
    if max_size is not None and size is not None and len(size) != 1:
        raise ValueError(f"{name}: max_size is only meaningful when size is one number (the shorter side); "
                         f"got size={size}")
    short, long = (width, height) if width <= height else (height, width)
    if size is None:
        if max_size is None:
            raise ValueError(f"{name}: give size, or max_size when size is None")
        new_short, new_long = int(max_size * short / long), max_size
    elif len(size) == 1:
        new_short = size[0]
        new_long = int(new_short * long / short)
        if max_size is not None:
            if max_size <= new_short:
                raise ValueError(f"{name}: max_size = {max_size} must be strictly greater than the requested "
                                 f"shorter side size = {new_short}")
            if new_long > max_size:
                new_short, new_long = int(max_size * new_short / new_long), max_size
    else:
        return [size[0], size[1]]
    new_w, new_h = (new_short, new_long) if width <= height else (new_long, new_short)
    return [new_h, new_w]


def resize(img: ImageLike, size, interpolation=InterpolationMode.BILINEAR, max_size: int | None = None,
           antialias: bool | None = True) -> ImageLike:
    """Resizes to ``size`` = (h, w), or scales the shorter side to ``size`` (an int).

    Tensors are resampled like ``interpolate`` (``antialias`` applies to bilinear and bicubic;
    PIL always anti-aliases). An image already of the requested size is returned unchanged.
    """
    name = "Resize"
    is_pil = check_image(img, name)
    mode = interpolation_mode(interpolation, name)
    sizes = _size_list(size, name)
    if sizes is not None and any(s <= 0 for s in sizes):
        raise ValueError(f"{name}: size must be positive, got {size!r}")
    _, h, w = get_dimensions(img)
    out = resized_output_size(h, w, sizes, max_size, name)
    if out == [h, w]:
        return img
    if is_pil:
        return FP.resize(img, out, _PIL_FILTERS[mode])
    if mode in (InterpolationMode.BOX, InterpolationMode.HAMMING, InterpolationMode.LANCZOS):
        raise ValueError(f"{name}: interpolation {mode.value!r} is only supported for PIL images; tensors take "
                         "nearest, nearest-exact, bilinear or bicubic")
    return FT.resize(img, out, mode.value, bool(antialias))


def crop(img: ImageLike, top: int, left: int, height: int, width: int) -> ImageLike:
    """The ``height`` x ``width`` window at (top, left); the part outside the image is 0."""
    if check_image(img, "crop"):
        return FP.crop(img, top, left, height, width)
    return FT.crop(img, top, left, height, width)


def _crop_size(size, name: str) -> tuple[int, int]:
    if isinstance(size, numbers.Number):
        return int(size), int(size)
    if isinstance(size, (list, tuple)) and len(size) == 1:
        return int(size[0]), int(size[0])
    if isinstance(size, (list, tuple)) and len(size) == 2:
        return int(size[0]), int(size[1])
    raise ValueError(f"{name}: size should be an int or a sequence of 1 or 2 ints (h, w), got {size!r}")


def center_crop(img: ImageLike, output_size) -> ImageLike:
    """The centred window of ``output_size`` (int or (h, w)); a larger crop pads with zeros."""
    check_image(img, "CenterCrop")
    crop_h, crop_w = _crop_size(output_size, "CenterCrop")
    _, h, w = get_dimensions(img)
    if crop_w > w or crop_h > h:
        dw, dh = max(crop_w - w, 0), max(crop_h - h, 0)
        img = pad(img, [dw // 2, dh // 2, (dw + 1) // 2, (dh + 1) // 2], fill=0)
        _, h, w = get_dimensions(img)
        if (crop_h, crop_w) == (h, w):
            return img
    # Python's round (half to even) picks the same pixel as torchvision.
    top = int(round((h - crop_h) / 2.0))
    left = int(round((w - crop_w) / 2.0))
    return crop(img, top, left, crop_h, crop_w)


def resized_crop(img: ImageLike, top: int, left: int, height: int, width: int, size,
                 interpolation=InterpolationMode.BILINEAR, antialias: bool | None = True) -> ImageLike:
    """``crop`` followed by ``resize``."""
    return resize(crop(img, top, left, height, width), size, interpolation, antialias=antialias)


def hflip(img: ImageLike) -> ImageLike:
    """Mirrors left to right."""
    if check_image(img, "hflip"):
        return FP.hflip(img)
    return FT.hflip(img)


def vflip(img: ImageLike) -> ImageLike:
    """Mirrors top to bottom."""
    if check_image(img, "vflip"):
        return FP.vflip(img)
    return FT.vflip(img)


def parse_padding(padding, name: str = "Pad") -> list[int]:
    """[left, top, right, bottom] from an int or a sequence of 1, 2 (left/right, top/bottom) or 4."""
    if isinstance(padding, numbers.Integral) and not isinstance(padding, bool):
        return [int(padding)] * 4
    if isinstance(padding, (list, tuple)):
        if not all(isinstance(p, numbers.Integral) for p in padding):
            raise TypeError(f"{name}: padding values should be ints, got {padding!r}")
        if len(padding) == 1:
            return [int(padding[0])] * 4
        if len(padding) == 2:
            return [int(padding[0]), int(padding[1])] * 2
        if len(padding) == 4:
            return [int(p) for p in padding]
        raise ValueError(f"{name}: padding should be an int or a sequence of 1, 2 or 4 ints, "
                         f"got {len(padding)} values")
    raise TypeError(f"{name}: padding should be an int or a sequence of ints, got {padding!r}")


_PAD_MODES = ("constant", "edge", "reflect", "symmetric")


def pad(img: ImageLike, padding, fill=0, padding_mode: str = "constant") -> ImageLike:
    """Pads the borders; ``padding`` is an int, (left/right, top/bottom) or (left, top, right, bottom).

    ``padding_mode`` is constant (with ``fill``), edge, reflect (without repeating the edge) or
    symmetric (repeating it). Negative padding crops.
    """
    name = "Pad"
    is_pil = check_image(img, name)
    ltrb = parse_padding(padding, name)
    if padding_mode not in _PAD_MODES:
        raise ValueError(f"{name}: padding_mode should be one of {list(_PAD_MODES)}, got {padding_mode!r}")
    if not isinstance(fill, (numbers.Number, tuple, list)):
        raise TypeError(f"{name}: fill should be a number or a sequence of numbers, got {fill!r}")
    if is_pil:
        return FP.pad(img, ltrb, fill, padding_mode)
    return FT.pad(img, ltrb, fill, padding_mode)


def _inverse_affine_matrix(center: Sequence[float], angle: float, translate: Sequence[float], scale: float,
                           shear: Sequence[float]) -> list[float]:
    """The 2x3 map from output to input pixel coordinates (row major) of the affine transform
    ``T * C * R * Sh * S * C^-1``: rotation by ``angle`` degrees, shear by ``shear`` degrees (x, y),
    uniform ``scale``, about ``center``, then translation by ``translate``."""
    rot = math.radians(angle)
    sx, sy = math.radians(shear[0]), math.radians(shear[1])
    cx, cy = center
    tx, ty = translate
    # The rotation-shear block [[a, b], [c, d]] has determinant 1, so its inverse is its adjugate.
    a = math.cos(rot - sy) / math.cos(sy)
    b = -math.cos(rot - sy) * math.tan(sx) / math.cos(sy) - math.sin(rot)
    c = math.sin(rot - sy) / math.cos(sy)
    d = -math.sin(rot - sy) * math.tan(sx) / math.cos(sy) + math.cos(rot)
    m = [d / scale, -b / scale, 0.0, -c / scale, a / scale, 0.0]
    m[2] = m[0] * (-cx - tx) + m[1] * (-cy - ty) + cx
    m[5] = m[3] * (-cx - tx) + m[4] * (-cy - ty) + cy
    return m


def _grid_mode(interpolation, name: str) -> InterpolationMode:
    mode = interpolation_mode(interpolation, name)
    if mode not in (InterpolationMode.NEAREST, InterpolationMode.BILINEAR, InterpolationMode.BICUBIC):
        raise ValueError(f"{name}: interpolation should be nearest, bilinear or bicubic, got {mode.value!r}")
    return mode


def rotate(img: ImageLike, angle: float, interpolation=InterpolationMode.NEAREST, expand: bool = False,
           center: Sequence[int] | None = None, fill=None) -> ImageLike:
    """Rotates by ``angle`` degrees counter-clockwise about ``center`` (default: the image centre).

    ``expand`` enlarges the output to hold the whole rotated image; ``fill`` colours the area
    outside the source (0 when None).
    """
    name = "rotate"
    is_pil = check_image(img, name)
    if not isinstance(angle, numbers.Number):
        raise TypeError(f"{name}: angle should be a number, got {angle!r}")
    if center is not None and (not isinstance(center, (list, tuple)) or len(center) != 2):
        raise ValueError(f"{name}: center should be a sequence of 2 numbers, got {center!r}")
    mode = _grid_mode(interpolation, name)
    if is_pil:
        return FP.rotate(img, float(angle), _PIL_FILTERS[mode], expand, center, fill)
    _, h, w = get_dimensions(img)
    center_f = [0.0, 0.0] if center is None else [c - s * 0.5 for c, s in zip(center, (w, h))]
    matrix = _inverse_affine_matrix(center_f, -float(angle), [0.0, 0.0], 1.0, [0.0, 0.0])
    out_size = FT.affine_output_size(matrix, w, h) if expand else None
    return FT.affine(img, matrix, mode.value, fill, name, out_size)


def affine(img: ImageLike, angle: float, translate: Sequence[int], scale: float, shear, interpolation=
           InterpolationMode.NEAREST, fill=None, center: Sequence[int] | None = None) -> ImageLike:
    """Affine transform keeping the image centre fixed: rotation by ``angle`` degrees (clockwise
    in image coordinates), translation ``translate`` = (dx, dy) pixels, ``scale`` and ``shear``
    (degrees; a number shears along x, a pair gives x and y)."""
    name = "affine"
    is_pil = check_image(img, name)
    if not isinstance(angle, numbers.Number):
        raise TypeError(f"{name}: angle should be a number, got {angle!r}")
    if not isinstance(translate, (list, tuple)) or len(translate) != 2:
        raise ValueError(f"{name}: translate should be a sequence of 2 numbers, got {translate!r}")
    if not isinstance(scale, numbers.Number) or scale <= 0.0:
        raise ValueError(f"{name}: scale should be a positive number, got {scale!r}")
    if isinstance(shear, numbers.Number):
        shear = [float(shear), 0.0]
    elif isinstance(shear, (list, tuple)) and len(shear) == 1:
        shear = [float(shear[0]), float(shear[0])]
    if not isinstance(shear, (list, tuple)) or len(shear) != 2:
        raise ValueError(f"{name}: shear should be a number or a sequence of 1 or 2 numbers, got {shear!r}")
    mode = _grid_mode(interpolation, name)
    _, h, w = get_dimensions(img)
    if is_pil:
        # The centre without the half-pixel offset matches the tensor path (and torch.rot90).
        c = [w * 0.5, h * 0.5] if center is None else list(center)
        matrix = _inverse_affine_matrix(c, float(angle), translate, float(scale), shear)
        return FP.affine(img, matrix, _PIL_FILTERS[mode], fill)
    center_f = [0.0, 0.0] if center is None else [c - s * 0.5 for c, s in zip(center, (w, h))]
    matrix = _inverse_affine_matrix(center_f, float(angle), [float(t) for t in translate], float(scale), shear)
    return FT.affine(img, matrix, mode.value, fill, name)


# --- colour ---------------------------------------------------------------------------------


def rgb_to_grayscale(img: ImageLike, num_output_channels: int = 1) -> ImageLike:
    """Luma (ITU-R 601-2: 0.299 R + 0.587 G + 0.114 B) in 1 or 3 identical channels."""
    name = "Grayscale"
    is_pil = check_image(img, name)
    if num_output_channels not in (1, 3):
        raise ValueError(f"{name}: num_output_channels should be 1 or 3, got {num_output_channels}")
    if is_pil:
        try:
            return FP.to_grayscale(img, num_output_channels)
        except ValueError as e:  # a mode PIL cannot convert to L
            raise TypeError(f"{name}: PIL cannot convert a {img.mode!r} image to grayscale ({e})") from e
    return FT.rgb_to_grayscale(img, num_output_channels, name)


def to_grayscale(img: ImageLike, num_output_channels: int = 1) -> ImageLike:
    """Same as :func:`rgb_to_grayscale`."""
    return rgb_to_grayscale(img, num_output_channels)


def _check_factor(factor: float, what: str, name: str) -> None:
    if factor < 0:
        raise ValueError(f"{name}: {what} factor should be non-negative, got {factor}")


def adjust_brightness(img: ImageLike, brightness_factor: float) -> ImageLike:
    """Scales pixel values by ``brightness_factor`` (0 gives black, 1 the original)."""
    name = "adjust_brightness"
    _check_factor(brightness_factor, "brightness", name)
    if check_image(img, name):
        return FP.adjust_brightness(img, brightness_factor)
    return FT.adjust_brightness(img, brightness_factor, name)


def adjust_contrast(img: ImageLike, contrast_factor: float) -> ImageLike:
    """Blends with the mean gray level (0 gives a flat gray image, 1 the original)."""
    name = "adjust_contrast"
    _check_factor(contrast_factor, "contrast", name)
    if check_image(img, name):
        return FP.adjust_contrast(img, contrast_factor)
    return FT.adjust_contrast(img, contrast_factor, name)


def adjust_saturation(img: ImageLike, saturation_factor: float) -> ImageLike:
    """Blends with the grayscale image (0 gives gray, 1 the original, 2 doubles saturation)."""
    name = "adjust_saturation"
    _check_factor(saturation_factor, "saturation", name)
    if check_image(img, name):
        return FP.adjust_saturation(img, saturation_factor)
    return FT.adjust_saturation(img, saturation_factor, name)


def adjust_hue(img: ImageLike, hue_factor: float) -> ImageLike:
    """Rotates the hue by ``hue_factor`` turns, in [-0.5, 0.5], through the HSV space."""
    name = "adjust_hue"
    if not -0.5 <= hue_factor <= 0.5:
        raise ValueError(f"{name}: hue_factor should be in [-0.5, 0.5], got {hue_factor}")
    if check_image(img, name):
        return FP.adjust_hue(img, hue_factor)
    return FT.adjust_hue(img, hue_factor, name)


def adjust_gamma(img: ImageLike, gamma: float, gain: float = 1.0) -> ImageLike:
    """``gain * x ** gamma`` on values scaled to [0, 1]."""
    name = "adjust_gamma"
    if gamma < 0:
        raise ValueError(f"{name}: gamma should be non-negative, got {gamma}")
    if check_image(img, name):
        return FP.adjust_gamma(img, gamma, gain)
    return FT.adjust_gamma(img, gamma, gain, name)


def adjust_sharpness(img: ImageLike, sharpness_factor: float) -> ImageLike:
    """Blends with a smoothed copy (0 blurs, 1 is the original, 2 sharpens)."""
    name = "adjust_sharpness"
    _check_factor(sharpness_factor, "sharpness", name)
    if check_image(img, name):
        return FP.adjust_sharpness(img, sharpness_factor)
    return FT.adjust_sharpness(img, sharpness_factor, name)


def invert(img: ImageLike) -> ImageLike:
    """``max - x`` (the negative image)."""
    if check_image(img, "invert"):
        return FP.invert(img)
    return FT.invert(img, "invert")


def posterize(img: ImageLike, bits: int) -> ImageLike:
    """Keeps the ``bits`` most significant bits of each uint8 channel."""
    name = "posterize"
    if not 0 <= int(bits) <= 8:
        raise ValueError(f"{name}: bits should be in [0, 8], got {bits}")
    if check_image(img, name):
        return FP.posterize(img, int(bits))
    return FT.posterize(img, int(bits), name)


def solarize(img: ImageLike, threshold: float) -> ImageLike:
    """Inverts the pixels at or above ``threshold``."""
    if check_image(img, "solarize"):
        return FP.solarize(img, threshold)
    return FT.solarize(img, threshold, "solarize")


def autocontrast(img: ImageLike) -> ImageLike:
    """Stretches each channel so that its darkest pixel becomes 0 and its brightest the maximum."""
    if check_image(img, "autocontrast"):
        return FP.autocontrast(img)
    return FT.autocontrast(img, "autocontrast")


def equalize(img: ImageLike) -> ImageLike:
    """Equalizes the histogram of each channel (uint8 images)."""
    if check_image(img, "equalize"):
        return FP.equalize(img)
    return FT.equalize(img, "equalize")


def gaussian_blur(img: ImageLike, kernel_size, sigma=None) -> ImageLike:
    """Gaussian blur with an odd ``kernel_size`` (int or (kx, ky)) and ``sigma`` (float or
    (sx, sy); default ``0.3 * ((k - 1) * 0.5 - 1) + 0.8``), reflecting at the borders."""
    name = "GaussianBlur"
    is_pil = check_image(img, name)
    if isinstance(kernel_size, int):
        kernel_size = [kernel_size, kernel_size]
    if not isinstance(kernel_size, (list, tuple)) or len(kernel_size) != 2:
        raise ValueError(f"{name}: kernel_size should be an int or a sequence of 2 ints, got {kernel_size!r}")
    for k in kernel_size:
        if not isinstance(k, int) or k <= 0 or k % 2 == 0:
            raise ValueError(f"{name}: kernel_size should be odd and positive, got {kernel_size!r}")
    if sigma is None:
        sigma = [0.3 * ((k - 1) * 0.5 - 1) + 0.8 for k in kernel_size]
    if isinstance(sigma, numbers.Number):
        sigma = [float(sigma), float(sigma)]
    if isinstance(sigma, (list, tuple)) and len(sigma) == 1:
        sigma = [float(sigma[0])] * 2
    if not isinstance(sigma, (list, tuple)) or len(sigma) != 2:
        raise TypeError(f"{name}: sigma should be a number or a sequence of 1 or 2 numbers, got {sigma!r}")
    if any(s <= 0 for s in sigma):
        raise ValueError(f"{name}: sigma should be positive, got {sigma!r}")
    if is_pil:
        # Like torchvision: blur the pixels as a tensor and convert back.
        return to_pil_image(FT.gaussian_blur(pil_to_tensor(img), kernel_size, sigma, name), mode=img.mode)
    return FT.gaussian_blur(img, kernel_size, sigma, name)


def erase(img: flow.Tensor, i: int, j: int, h: int, w: int, v, inplace: bool = False) -> flow.Tensor:
    """Sets the ``h`` x ``w`` window at (i, j) of a tensor image to ``v`` (a tensor or number)."""
    if not isinstance(img, flow.Tensor):
        raise TypeError(f"erase: expected a oneflow tensor image, got {_kind(img)}")
    return FT.erase(img, i, j, h, w, v, inplace)
