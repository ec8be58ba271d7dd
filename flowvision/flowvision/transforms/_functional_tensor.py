"""Image operations on oneflow tensors of shape (..., C, H, W) (or (H, W) for geometry).

``functional`` dispatches here for tensor images. Integer images (uint8 in practice) are
computed in float32 and cast back at the end: rounded where torchvision rounds (resampling,
blurs), truncated where it truncates (colour blends). Every function takes the public name
of its transform (``name``) so that bad input is reported in the caller's terms.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np

import oneflow as flow
import oneflow.nn.functional as F

_INT_MAX = {
    flow.uint8: 255,
    flow.int8: 127,
    flow.int16: 32767,
    flow.int32: 2**31 - 1,
    flow.int64: 2**63 - 1,
    flow.bool: 1,
}


def is_float(dtype: flow.dtype) -> bool:
    return dtype.is_floating_point


def max_value(dtype: flow.dtype) -> float:
    """The value of a fully saturated pixel: 1.0 for floating images, the type's max otherwise."""
    if is_float(dtype):
        return 1.0
    return _INT_MAX[dtype]


def _shape(t: flow.Tensor) -> tuple[int, ...]:
    return tuple(int(s) for s in t.shape)


def assert_image_tensor(img, name: str) -> None:
    if not isinstance(img, flow.Tensor):
        raise TypeError(f"{name}: expected a oneflow tensor image, got {type(img).__name__}")
    if img.ndim < 2:
        raise TypeError(f"{name}: expected a tensor image of shape (..., H, W) with at least 2 dimensions, "
                        f"got a {img.ndim}-D tensor of shape {_shape(img)}")


def assert_channels(img: flow.Tensor, permitted: Sequence[int], name: str) -> None:
    """Colour operations need a channel dimension with one of the `permitted` sizes."""
    assert_image_tensor(img, name)
    if img.ndim < 3:
        raise TypeError(f"{name}: expected a tensor image of shape (..., C, H, W) with C in {list(permitted)}, "
                        f"got a {img.ndim}-D tensor of shape {_shape(img)}")
    c = int(img.shape[-3])
    if c not in permitted:
        raise TypeError(f"{name}: expected a tensor image with {' or '.join(map(str, permitted))} channels "
                        f"(shape (..., C, H, W)), got {c} channels in a tensor of shape {_shape(img)}")


def get_dimensions(img: flow.Tensor) -> list[int]:
    """[channels, height, width]; a 2-D tensor is one channel."""
    c = 1 if img.ndim == 2 else int(img.shape[-3])
    return [c, int(img.shape[-2]), int(img.shape[-1])]


def _to_batch(img: flow.Tensor, float_dtype: flow.dtype | None = flow.float32):
    """Reshapes (..., C, H, W) or (H, W) to (B, C, H, W) and, for integer images, casts to
    `float_dtype`; returns the batch and what `_from_batch` needs to undo both."""
    shape = _shape(img)
    x = img
    if img.ndim == 2:
        x = img.reshape(1, 1, *shape)
    elif img.ndim != 4:
        x = img.reshape(-1, *shape[-3:])
    if float_dtype is not None and not img.is_floating_point():
        x = x.to(float_dtype)
    return x, shape, img.dtype


def _from_batch(x: flow.Tensor, shape: tuple[int, ...], dtype: flow.dtype) -> flow.Tensor:
    if x.dtype != dtype:
        if not is_float(dtype):
            x = flow.round(x)
        x = x.to(dtype)
    return x.reshape(*shape[:-2], *x.shape[-2:])


# --- geometry -------------------------------------------------------------------------------


def hflip(img: flow.Tensor) -> flow.Tensor:
    return img.flip(-1)


def vflip(img: flow.Tensor) -> flow.Tensor:
    return img.flip(-2)


def crop(img: flow.Tensor, top: int, left: int, height: int, width: int) -> flow.Tensor:
    """The window [top, top + height) x [left, left + width); parts outside the image are 0."""
    h, w = int(img.shape[-2]), int(img.shape[-1])
    bottom, right = top + height, left + width
    if top >= 0 and left >= 0 and bottom <= h and right <= w:
        return img[..., top:bottom, left:right]
    # Pad the part of the window that lies inside the image back to the full window.
    inner = img[..., max(top, 0):max(min(bottom, h), 0), max(left, 0):max(min(right, w), 0)]
    pads = [max(-left, 0), max(-top, 0), 0, 0]
    pads[2] = width - pads[0] - int(inner.shape[-1])
    pads[3] = height - pads[1] - int(inner.shape[-2])
    return pad(inner, pads, 0, "constant")


def _pad_index(size: int, before: int, after: int, mode: str) -> np.ndarray:
    # numpy.pad on the positions themselves gives, for every output position, the input
    # position it copies (for any pad width, as numpy defines the modes).
    return np.pad(np.arange(size), (before, after), mode=mode)


def pad(img: flow.Tensor, padding: Sequence[int], fill=0, padding_mode: str = "constant") -> flow.Tensor:
    """Pads (or, for negative amounts, crops) by [left, top, right, bottom]."""
    left, top, right, bottom = (int(p) for p in padding)
    h, w = int(img.shape[-2]), int(img.shape[-1])
    # Negative padding removes rows/columns first.
    if min(left, top, right, bottom) < 0:
        img = img[..., max(-top, 0):h - max(-bottom, 0), max(-left, 0):w - max(-right, 0)]
        left, top, right, bottom = max(left, 0), max(top, 0), max(right, 0), max(bottom, 0)
        h, w = int(img.shape[-2]), int(img.shape[-1])
    if left == top == right == bottom == 0:
        return img
    if padding_mode == "constant":
        shape = list(_shape(img))
        shape[-2], shape[-1] = h + top + bottom, w + left + right
        if isinstance(fill, (list, tuple)):
            if img.ndim < 3 or len(fill) not in (1, int(img.shape[-3])):
                raise ValueError(f"Pad: fill {tuple(fill)} needs one value or one per channel "
                                 f"for a tensor of shape {_shape(img)}")
            out = flow.empty(*shape, dtype=img.dtype, device=img.device)
            fill_t = flow.tensor([float(f) for f in fill], device=img.device).reshape(-1, 1, 1)
            out[...] = fill_t.expand(*shape[-3:]).to(img.dtype)
        else:
            out = flow.full(shape, fill, dtype=img.dtype, device=img.device)
        out[..., top:top + h, left:left + w] = img
        return out
    np_mode = {"edge": "edge", "reflect": "reflect", "symmetric": "symmetric"}[padding_mode]
    if np_mode == "reflect" and (h < 2 and top + bottom > 0 or w < 2 and left + right > 0):
        raise ValueError(f"Pad: reflect padding needs at least 2 pixels along a padded side, "
                         f"got an image of size {h}x{w}")
    rows = flow.tensor(_pad_index(h, top, bottom, np_mode), dtype=flow.int64, device=img.device)
    cols = flow.tensor(_pad_index(w, left, right, np_mode), dtype=flow.int64, device=img.device)
    return img.index_select(img.ndim - 2, rows).index_select(img.ndim - 1, cols)


def _aa_filter(mode: str):
    if mode == "bilinear":
        return lambda x: np.clip(1.0 - np.abs(x), 0.0, None)
    a = -0.5  # the anti-aliasing bicubic kernel (PIL's and torch's), not the -0.75 of plain bicubic

    def cubic(x):
        x = np.abs(x)
        near = ((a + 2.0) * x - (a + 3.0)) * x * x + 1.0
        far = (((x - 5.0) * x + 8.0) * x - 4.0) * a
        return np.where(x < 1.0, near, np.where(x < 2.0, far, 0.0))

    return cubic


@functools.lru_cache(maxsize=64)
def _aa_matrix(in_size: int, out_size: int, mode: str) -> np.ndarray:
    """(out_size, in_size) weights of anti-aliased resampling along one axis.

    Each output pixel averages the input pixels under the filter stretched by the
    downscaling factor (so all of them contribute), normalized to sum to one; this is the
    scheme of PIL and of interpolate(..., antialias=True).
    """
    scale = in_size / out_size
    half = 1.0 if mode == "bilinear" else 2.0
    support = half * scale if scale >= 1.0 else half
    invscale = 1.0 / scale if scale >= 1.0 else 1.0
    filt = _aa_filter(mode)
    m = np.zeros((out_size, in_size), dtype=np.float64)
    for i in range(out_size):
        center = scale * (i + 0.5)
        lo = max(int(center - support + 0.5), 0)
        hi = min(int(center + support + 0.5), in_size)
        w = filt((np.arange(lo, hi) - center + 0.5) * invscale)
        total = w.sum()
        m[i, lo:hi] = w / total if total != 0 else w
    return m


def resize(img: flow.Tensor, size: Sequence[int], interpolation: str, antialias: bool) -> flow.Tensor:
    """Resamples to `size` = (h, w) with interpolate's modes; anti-aliased for (bi)linear/cubic."""
    x, shape, dtype = _to_batch(img)
    oh, ow = int(size[0]), int(size[1])
    if antialias and interpolation in ("bilinear", "bicubic"):
        mh = _aa_matrix(int(x.shape[-2]), oh, interpolation)
        mw = _aa_matrix(int(x.shape[-1]), ow, interpolation)
        mh_t = flow.tensor(mh, dtype=x.dtype, device=x.device)
        mw_t = flow.tensor(mw.T.copy(), dtype=x.dtype, device=x.device)
        x = flow.matmul(flow.matmul(mh_t, x), mw_t)
    else:
        align = False if interpolation in ("bilinear", "bicubic") else None
        x = F.interpolate(x, size=[oh, ow], mode=interpolation, align_corners=align)
    if interpolation == "bicubic" and not is_float(dtype):
        x = x.clamp(0, max_value(dtype))
    return _from_batch(x, shape, dtype)


def _affine_grid(theta: np.ndarray, w: int, h: int, ow: int, oh: int, dtype, device) -> flow.Tensor:
    """The sampling grid of grid_sample(align_corners=False) for the inverse affine map `theta`
    (2x3) acting on pixel coordinates centred on the image (output size ow x oh)."""
    xs = np.arange(ow, dtype=np.float64) - ow * 0.5 + 0.5
    ys = np.arange(oh, dtype=np.float64) - oh * 0.5 + 0.5
    gx, gy = np.meshgrid(xs, ys)
    src_x = theta[0, 0] * gx + theta[0, 1] * gy + theta[0, 2]
    src_y = theta[1, 0] * gx + theta[1, 1] * gy + theta[1, 2]
    grid = np.stack([src_x / (0.5 * w), src_y / (0.5 * h)], axis=-1)[None]
    return flow.tensor(grid, dtype=dtype, device=device)


def _grid_transform(img: flow.Tensor, theta: np.ndarray, ow: int, oh: int, interpolation: str,
                    fill, name: str) -> flow.Tensor:
    if interpolation not in ("nearest", "bilinear"):
        raise ValueError(f"{name}: tensor images support the nearest and bilinear interpolation modes, "
                         f"got {interpolation!r}")
    x, shape, dtype = _to_batch(img)
    h, w = int(x.shape[-2]), int(x.shape[-1])
    grid = _affine_grid(theta, w, h, ow, oh, x.dtype, x.device).expand(int(x.shape[0]), oh, ow, 2)
    if fill is not None:
        # A channel of ones tells, after sampling, how much of each pixel came from the image.
        x = flow.cat([x, flow.ones(int(x.shape[0]), 1, h, w, dtype=x.dtype, device=x.device)], dim=1)
    x = F.grid_sample(x, grid, mode=interpolation, padding_mode="zeros", align_corners=False)
    if fill is not None:
        mask = x[:, -1:]
        x = x[:, :-1]
        fills = [float(f) for f in fill] if isinstance(fill, (list, tuple)) else [float(fill)]
        if len(fills) not in (1, int(x.shape[1])):
            raise ValueError(f"{name}: fill {tuple(fills)} needs one value or one per channel "
                             f"for an image with {int(x.shape[1])} channels")
        fill_img = flow.tensor(fills, dtype=x.dtype, device=x.device).reshape(1, -1, 1, 1).expand(*x.shape)
        mask = mask.expand(*x.shape)
        if interpolation == "nearest":
            x = flow.where(mask < 0.5, fill_img, x)
        else:
            x = x * mask + (1.0 - mask) * fill_img
    return _from_batch(x, shape, dtype)


def affine_output_size(theta: Sequence[float], w: int, h: int) -> tuple[int, int]:
    """(width, height) of the box that holds the whole image after the map (expand=True)."""
    # float32 like torchvision, whose sizes match PIL's this way (e.g. exactly 90 degrees).
    m = np.asarray(theta, dtype=np.float32).reshape(2, 3)
    corners = np.array([[-0.5 * w, -0.5 * h, 1.0], [-0.5 * w, 0.5 * h, 1.0],
                        [0.5 * w, 0.5 * h, 1.0], [0.5 * w, -0.5 * h, 1.0]], dtype=np.float32)
    pts = corners @ m.T
    shift = np.array([w * 0.5, h * 0.5], dtype=np.float32)
    lo = pts.min(axis=0) + shift
    hi = pts.max(axis=0) + shift
    # Cut the precision to 1e-4 first, so that rounding noise cannot add a pixel.
    tol = np.float32(1e-4)
    hi = np.ceil(np.trunc(hi / tol) * tol)
    lo = np.floor(np.trunc(lo / tol) * tol)
    size = hi - lo
    return int(size[0]), int(size[1])


def affine(img: flow.Tensor, matrix: Sequence[float], interpolation: str, fill, name: str,
           output_size: tuple[int, int] | None = None) -> flow.Tensor:
    """Applies the inverse affine `matrix` (6 numbers, centred pixel coordinates)."""
    h, w = int(img.shape[-2]), int(img.shape[-1])
    ow, oh = output_size if output_size is not None else (w, h)
    theta = np.asarray(matrix, dtype=np.float64).reshape(2, 3)
    return _grid_transform(img, theta, ow, oh, interpolation, fill, name)


# --- colour ---------------------------------------------------------------------------------


def rgb_to_grayscale(img: flow.Tensor, num_output_channels: int, name: str) -> flow.Tensor:
    assert_channels(img, [1, 3], name)
    if img.shape[-3] == 3:
        r, g, b = img.unbind(dim=-3)
        gray = (0.2989 * r + 0.587 * g + 0.114 * b).to(img.dtype).unsqueeze(-3)
    else:
        gray = img.clone()
    if num_output_channels == 3:
        return gray.expand(*gray.shape[:-3], 3, *gray.shape[-2:]).contiguous()
    return gray


def _blend(img1: flow.Tensor, img2, ratio: float) -> flow.Tensor:
    bound = max_value(img1.dtype)
    out = (ratio * img1 + (1.0 - ratio) * img2).clamp(0, bound)
    return out.to(img1.dtype)


def adjust_brightness(img: flow.Tensor, factor: float, name: str) -> flow.Tensor:
    assert_channels(img, [1, 3], name)
    return _blend(img, flow.zeros_like(img), factor)


def adjust_contrast(img: flow.Tensor, factor: float, name: str) -> flow.Tensor:
    assert_channels(img, [1, 3], name)
    dtype = img.dtype if img.is_floating_point() else flow.float32
    gray = rgb_to_grayscale(img, 1, name) if img.shape[-3] == 3 else img
    mean = gray.to(dtype).mean(dim=(-3, -2, -1), keepdim=True)
    return _blend(img, mean, factor)


def adjust_saturation(img: flow.Tensor, factor: float, name: str) -> flow.Tensor:
    assert_channels(img, [1, 3], name)
    if img.shape[-3] == 1:
        return img
    return _blend(img, rgb_to_grayscale(img, 1, name), factor)


def _rgb_to_hsv(img: flow.Tensor) -> flow.Tensor:
    r, g, b = img.unbind(dim=-3)
    maxc = img.max(dim=-3).values
    minc = img.min(dim=-3).values
    same = maxc == minc
    chroma = maxc - minc
    ones = flow.ones_like(maxc)
    s = chroma / flow.where(same, ones, maxc)
    div = flow.where(same, ones, chroma)
    rc, gc, bc = (maxc - r) / div, (maxc - g) / div, (maxc - b) / div
    # The hue sector follows the largest channel (red first on ties, as colorsys does).
    is_r = maxc == r
    is_g = (maxc == g) & ~is_r
    is_b = ~is_r & ~is_g
    h = is_r.to(img.dtype) * (bc - gc) + is_g.to(img.dtype) * (2.0 + rc - bc) + is_b.to(img.dtype) * (4.0 + gc - rc)
    h = flow.fmod(h / 6.0 + 1.0, 1.0)
    return flow.stack([h, s, maxc], dim=-3)


def _hsv_to_rgb(img: flow.Tensor) -> flow.Tensor:
    h, s, v = img.unbind(dim=-3)
    i = flow.floor(h * 6.0)
    f = h * 6.0 - i
    sector = i.to(flow.int64) % 6
    p = (v * (1.0 - s)).clamp(0.0, 1.0)
    q = (v * (1.0 - s * f)).clamp(0.0, 1.0)
    t = (v * (1.0 - s * (1.0 - f))).clamp(0.0, 1.0)
    # Per sector 0..5, which of (v, q, p, t) is red, green and blue.
    table = {0: (v, t, p), 1: (q, v, p), 2: (p, v, t), 3: (p, q, v), 4: (t, p, v), 5: (v, p, q)}
    out = [flow.zeros_like(v) for _ in range(3)]
    for k, chans in table.items():
        sel = (sector == k).to(img.dtype)
        for c in range(3):
            out[c] = out[c] + sel * chans[c]
    return flow.stack(out, dim=-3)


def adjust_hue(img: flow.Tensor, hue_factor: float, name: str) -> flow.Tensor:
    assert_channels(img, [1, 3], name)
    if img.shape[-3] == 1:
        return img
    dtype = img.dtype
    x = img if img.is_floating_point() else img.to(flow.float32) / 255.0
    hsv = _rgb_to_hsv(x)
    h, s, v = hsv.unbind(dim=-3)
    h = (h + hue_factor) % 1.0
    out = _hsv_to_rgb(flow.stack([h, s, v], dim=-3))
    if not is_float(dtype):
        out = (out * 255.0).to(dtype)
    return out


def convert_image_dtype(image: flow.Tensor, dtype: flow.dtype) -> flow.Tensor:
    if not isinstance(image, flow.Tensor):
        raise TypeError(f"ConvertImageDtype: expected a oneflow tensor image, got {type(image).__name__}")
    if image.dtype == dtype:
        return image
    if image.is_floating_point():
        if is_float(dtype):
            return image.to(dtype)
        if (image.dtype == flow.float32 and dtype in (flow.int32, flow.int64)) or (
                image.dtype == flow.float64 and dtype == flow.int64):
            raise RuntimeError(f"ConvertImageDtype: the cast from {image.dtype} to {dtype} cannot be performed "
                               "safely (the scaled maximum is not representable)")
        # Scale by just under max + 1 so that 1.0 maps to max and the bins are evenly wide.
        eps = 1e-3
        return (image * (max_value(dtype) + 1.0 - eps)).to(dtype)
    in_max = max_value(image.dtype)
    if is_float(dtype):
        return image.to(dtype) / in_max
    out_max = max_value(dtype)
    if in_max > out_max:
        factor = (in_max + 1) // (out_max + 1)
        return flow.div(image, factor, rounding_mode="floor").to(dtype)
    factor = (out_max + 1) // (in_max + 1)
    return image.to(dtype) * factor


def adjust_gamma(img: flow.Tensor, gamma: float, gain: float, name: str) -> flow.Tensor:
    assert_channels(img, [1, 3], name)
    dtype = img.dtype
    x = img if img.is_floating_point() else convert_image_dtype(img, flow.float32)
    x = (gain * x.pow(gamma)).clamp(0, 1)
    return convert_image_dtype(x, dtype)


def invert(img: flow.Tensor, name: str) -> flow.Tensor:
    assert_channels(img, [1, 3], name)
    return max_value(img.dtype) - img


def posterize(img: flow.Tensor, bits: int, name: str) -> flow.Tensor:
    assert_channels(img, [1, 3], name)
    if img.dtype != flow.uint8:
        raise TypeError(f"{name}: posterize supports only uint8 tensor images, got {img.dtype}")
    mask = -int(2 ** (8 - bits))  # keeps the `bits` high bits
    return flow.bitwise_and(img, mask)


def solarize(img: flow.Tensor, threshold: float, name: str) -> flow.Tensor:
    assert_channels(img, [1, 3], name)
    if threshold > max_value(img.dtype):
        raise TypeError(f"{name}: threshold {threshold} is above the largest value {max_value(img.dtype)} "
                        f"of a {img.dtype} image")
    return flow.where(img >= threshold, invert(img, name), img)


def _blurred_degenerate(img: flow.Tensor) -> flow.Tensor:
    # PIL's SMOOTH filter (centre weight 5, neighbours 1) on the interior; borders are kept.
    x, shape, dtype = _to_batch(img)
    c = int(x.shape[1])
    kernel = flow.ones(3, 3, dtype=x.dtype, device=x.device)
    kernel[1, 1] = 5.0
    kernel = (kernel / 13.0).expand(c, 1, 3, 3).contiguous()
    inner = F.conv2d(x, kernel, groups=c)
    if not is_float(dtype):
        inner = flow.round(inner)
    out = x.clone()
    out[..., 1:-1, 1:-1] = inner
    return _from_batch(out, shape, dtype)


def adjust_sharpness(img: flow.Tensor, factor: float, name: str) -> flow.Tensor:
    assert_channels(img, [1, 3], name)
    if img.shape[-1] <= 2 or img.shape[-2] <= 2:
        return img
    return _blend(img, _blurred_degenerate(img), factor)


def autocontrast(img: flow.Tensor, name: str) -> flow.Tensor:
    assert_channels(img, [1, 3], name)
    bound = max_value(img.dtype)
    dtype = img.dtype if img.is_floating_point() else flow.float32
    lo = img.amin(dim=(-2, -1), keepdim=True).to(dtype)
    hi = img.amax(dim=(-2, -1), keepdim=True).to(dtype)
    flat = hi == lo
    # Constant channels are left alone.
    scale = bound / flow.where(flat, flow.ones_like(hi), hi - lo)
    lo = flow.where(flat, flow.zeros_like(lo), lo)
    scale = flow.where(flat, flow.ones_like(scale), scale)
    return ((img - lo) * scale).clamp(0, bound).to(img.dtype)


def _equalize_lut(channel: np.ndarray) -> np.ndarray:
    hist = np.bincount(channel.ravel(), minlength=256)
    nonzero = hist[hist != 0]
    step = int(nonzero[:-1].sum()) // 255
    if step == 0:
        return np.arange(256, dtype=np.uint8)
    lut = (np.cumsum(hist) + step // 2) // step
    lut = np.concatenate([[0], lut[:-1]]).clip(0, 255)
    return lut.astype(np.uint8)


def equalize(img: flow.Tensor, name: str) -> flow.Tensor:
    """Histogram equalization per channel (PIL's ImageOps.equalize algorithm)."""
    assert_channels(img, [1, 3], name)
    if img.dtype != flow.uint8:
        raise TypeError(f"{name}: equalize supports only uint8 tensor images, got {img.dtype}")
    arr = img.cpu().numpy()
    flat = arr.reshape(-1, *arr.shape[-2:])
    out = np.empty_like(flat)
    for k in range(flat.shape[0]):
        out[k] = _equalize_lut(flat[k])[flat[k]]
    return flow.tensor(out.reshape(arr.shape), dtype=flow.uint8, device=img.device)


def gaussian_kernel1d(kernel_size: int, sigma: float) -> np.ndarray:
    half = (kernel_size - 1) * 0.5
    x = np.linspace(-half, half, kernel_size)
    pdf = np.exp(-0.5 * (x / sigma) ** 2)
    return pdf / pdf.sum()


def gaussian_blur(img: flow.Tensor, kernel_size: Sequence[int], sigma: Sequence[float], name: str) -> flow.Tensor:
    assert_image_tensor(img, name)
    x, shape, dtype = _to_batch(img)
    kx = gaussian_kernel1d(kernel_size[0], sigma[0])
    ky = gaussian_kernel1d(kernel_size[1], sigma[1])
    c = int(x.shape[1])
    k2d = flow.tensor(np.outer(ky, kx), dtype=x.dtype, device=x.device)
    k2d = k2d.expand(c, 1, kernel_size[1], kernel_size[0]).contiguous()
    px, py = kernel_size[0] // 2, kernel_size[1] // 2
    x = pad(x, [px, py, px, py], padding_mode="reflect")
    x = F.conv2d(x, k2d, groups=c)
    return _from_batch(x, shape, dtype)


def normalize(tensor: flow.Tensor, mean: Sequence[float], std: Sequence[float], inplace: bool) -> flow.Tensor:
    if not isinstance(tensor, flow.Tensor):
        raise TypeError(f"Normalize: expected a oneflow tensor image, got {type(tensor).__name__}")
    if not tensor.is_floating_point():
        raise TypeError(f"Normalize: expected a floating-point tensor image, got {tensor.dtype} "
                        "(convert it with ToTensor or ConvertImageDtype first)")
    if tensor.ndim < 3:
        raise ValueError(f"Normalize: expected a tensor image of shape (..., C, H, W), got a {tensor.ndim}-D "
                         f"tensor of shape {_shape(tensor)}")
    mean_t = flow.as_tensor(mean, dtype=tensor.dtype).to(tensor.device)
    std_t = flow.as_tensor(std, dtype=tensor.dtype).to(tensor.device)
    c = int(tensor.shape[-3])
    for what, t in (("mean", mean_t), ("std", std_t)):
        if t.numel() not in (1, c):
            raise ValueError(f"Normalize: {what} has {t.numel()} values for an image with {c} channels")
    if bool((std_t == 0).any()):
        raise ValueError(f"Normalize: std {list(std)} has a zero (after conversion to {tensor.dtype}); "
                         "dividing by it is undefined")
    mean_t = mean_t.reshape(-1, 1, 1)
    std_t = std_t.reshape(-1, 1, 1)
    if inplace:
        return tensor.sub_(mean_t).div_(std_t)
    return (tensor - mean_t) / std_t


def erase(img: flow.Tensor, i: int, j: int, h: int, w: int, v, inplace: bool) -> flow.Tensor:
    assert_image_tensor(img, "RandomErasing")
    if not inplace:
        img = img.clone()
    img[..., i:i + h, j:j + w] = v
    return img
