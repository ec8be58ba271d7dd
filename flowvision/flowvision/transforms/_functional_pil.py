"""Image operations on PIL images; ``functional`` dispatches here for PIL input.

Each one is the PIL operation torchvision uses for the same transform (``Image.resize``,
``ImageEnhance``, ``ImageOps``, ``Image.transform``), so results are PIL's own.
Pillow is imported lazily: the tensor transforms work without it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np


def pil():
    """The PIL modules (Image, ImageEnhance, ImageOps), or a clear ImportError without Pillow."""
    try:
        from PIL import Image, ImageEnhance, ImageOps
    except ImportError as e:
        raise ImportError("flowvision.transforms needs Pillow for PIL images (pip install pillow)") from e
    return Image, ImageEnhance, ImageOps


def is_pil_image(img: Any) -> bool:
    try:
        from PIL import Image
    except ImportError:
        return False
    return isinstance(img, Image.Image)


def get_dimensions(img) -> list[int]:
    w, h = img.size
    return [len(img.getbands()), h, w]


def parse_fill(fill, img, name: str):
    """A fill value in the form PIL wants for `img`'s mode: a number for one band, a tuple
    of ints (floats for mode F) otherwise."""
    bands = len(img.getbands())
    if fill is None:
        fill = 0
    if isinstance(fill, (int, float)) and bands > 1:
        fill = tuple([fill] * bands)
    if isinstance(fill, (list, tuple)):
        if len(fill) == 1:
            fill = fill * bands
        if len(fill) != bands:
            raise ValueError(f"{name}: fill {tuple(fill)} has {len(fill)} values but the {img.mode} image "
                             f"has {bands} bands")
        fill = tuple(fill)
        if img.mode != "F":
            fill = tuple(int(f) for f in fill)
        return fill[0] if bands == 1 else fill
    return fill if img.mode == "F" else int(fill)


def hflip(img):
    Image, _, _ = pil()
    return img.transpose(Image.Transpose.FLIP_LEFT_RIGHT)


def vflip(img):
    Image, _, _ = pil()
    return img.transpose(Image.Transpose.FLIP_TOP_BOTTOM)


def crop(img, top: int, left: int, height: int, width: int):
    return img.crop((left, top, left + width, top + height))


def pad(img, padding: Sequence[int], fill, padding_mode: str):
    """Pads by [left, top, right, bottom]; negative amounts crop."""
    Image, _, _ = pil()
    left, top, right, bottom = (int(p) for p in padding)
    palette = img.getpalette() if img.mode == "P" else None
    if padding_mode == "constant":
        w, h = img.size
        out = Image.new(img.mode, (w + left + right, h + top + bottom), parse_fill(fill, img, "Pad"))
        out.paste(img, (left, top))
    else:
        if min(left, top, right, bottom) < 0:
            w, h = img.size
            img = img.crop((max(-left, 0), max(-top, 0), w - max(-right, 0), h - max(-bottom, 0)))
            left, top, right, bottom = max(left, 0), max(top, 0), max(right, 0), max(bottom, 0)
        arr = np.asarray(img)
        widths = [(top, bottom), (left, right)] + [(0, 0)] * (arr.ndim - 2)
        padded = np.ascontiguousarray(np.pad(arr, widths, mode=padding_mode))
        out = Image.fromarray(padded)
        if out.mode != img.mode:  # e.g. palette indices or HSV bytes: same bytes, original mode
            out = Image.frombytes(img.mode, out.size, padded.tobytes())
    if palette is not None:
        out.putpalette(palette)
    return out


def resize(img, size: Sequence[int], resample: int):
    """`size` = (h, w)."""
    return img.resize((int(size[1]), int(size[0])), resample)


def rotate(img, angle: float, resample: int, expand: bool, center, fill):
    return img.rotate(angle, resample, expand, center, fillcolor=parse_fill(fill, img, "RandomRotation"))


def affine(img, matrix: Sequence[float], resample: int, fill):
    Image, _, _ = pil()
    return img.transform(img.size, Image.Transform.AFFINE, tuple(matrix), resample,
                         fillcolor=parse_fill(fill, img, "RandomAffine"))


def to_grayscale(img, num_output_channels: int):
    Image, _, _ = pil()
    gray = img.convert("L")
    if num_output_channels == 3:
        arr = np.asarray(gray)
        return Image.fromarray(np.stack([arr, arr, arr], axis=-1))
    return gray


def adjust_brightness(img, factor: float):
    _, ImageEnhance, _ = pil()
    return ImageEnhance.Brightness(img).enhance(factor)


def adjust_contrast(img, factor: float):
    _, ImageEnhance, _ = pil()
    return ImageEnhance.Contrast(img).enhance(factor)


def adjust_saturation(img, factor: float):
    _, ImageEnhance, _ = pil()
    return ImageEnhance.Color(img).enhance(factor)


def adjust_sharpness(img, factor: float):
    _, ImageEnhance, _ = pil()
    return ImageEnhance.Sharpness(img).enhance(factor)


def adjust_hue(img, hue_factor: float):
    Image, _, _ = pil()
    mode = img.mode
    if mode in ("L", "1", "I", "F"):
        return img
    h, s, v = img.convert("HSV").split()
    # The hue byte wraps around the colour circle; int() truncates like a C cast.
    shift = int(hue_factor * 255) % 256
    hue = ((np.asarray(h).astype(np.int32) + shift) % 256).astype(np.uint8)
    return Image.merge("HSV", (Image.fromarray(hue), s, v)).convert(mode)


def adjust_gamma(img, gamma: float, gain: float):
    mode = img.mode
    rgb = img.convert("RGB") if mode not in ("L", "RGB") else img
    table = [int((255 + 1 - 1e-3) * gain * pow(v / 255.0, gamma)) for v in range(256)]
    out = rgb.point(table * len(rgb.getbands()))
    return out.convert(mode) if out.mode != mode else out


def invert(img):
    _, _, ImageOps = pil()
    return ImageOps.invert(img)


def posterize(img, bits: int):
    _, _, ImageOps = pil()
    return ImageOps.posterize(img, bits)


def solarize(img, threshold: float):
    _, _, ImageOps = pil()
    return ImageOps.solarize(img, threshold)


def autocontrast(img):
    _, _, ImageOps = pil()
    return ImageOps.autocontrast(img)


def equalize(img):
    _, _, ImageOps = pil()
    return ImageOps.equalize(img)
