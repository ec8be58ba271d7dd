"""flowvision.transforms against references: NumPy formulas, PIL's own operations, torch's
interpolate/grid_sample/conv2d (torch 2.13 is the test oracle), colorsys, and torchvision's
documented semantics (parameter draws replayed from oneflow's generator after reseeding)."""

import colorsys
import math
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import torch
from PIL import Image, ImageEnhance, ImageOps

import oneflow as flow
from flowvision import transforms as T
from flowvision.transforms import InterpolationMode
from flowvision.transforms import functional as F
from flowvision.transforms._mix import sample_beta

RNG = np.random.default_rng(1234)


def rgb_array(h=13, w=17, c=3, seed=0):
    return np.random.default_rng(seed).integers(0, 256, (h, w, c), dtype=np.uint8)


def chw(arr):
    """A uint8 (C, H, W) oneflow tensor from an (H, W, C) array."""
    return flow.from_numpy(np.ascontiguousarray(arr.transpose(2, 0, 1)))


def npy(x):
    if isinstance(x, flow.Tensor):
        return x.numpy()
    return np.asarray(x)


def pil_chw(img):
    a = np.asarray(img)
    return a[None] if a.ndim == 2 else a.transpose(2, 0, 1)


# --- conversion -----------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["RGB", "L", "RGBA", "LA", "P", "1", "I", "F", "I;16"])
def test_to_tensor_pil_modes(mode):
    arr = rgb_array(5, 7, 4)
    if mode == "I;16":
        img = Image.fromarray(arr[..., 0].astype(np.uint16) * 200)
    else:
        img = Image.fromarray(arr).convert(mode)
    t = F.to_tensor(img)
    pixels = np.asarray(img)
    pixels = (pixels[:, :, None] if pixels.ndim == 2 else pixels).transpose(2, 0, 1)
    if mode in ("I", "F", "I;16"):  # not 8-bit: the values are kept, in a type wide enough
        assert t.dtype == {"I": flow.int32, "F": flow.float32, "I;16": flow.int32}[mode]
        np.testing.assert_array_equal(t.numpy(), pixels)
    else:  # 8-bit (and 1-bit) images become float32 in [0, 1]
        assert t.dtype == flow.float32
        scale = 1.0 if mode == "1" else 255.0
        np.testing.assert_allclose(t.numpy(), pixels.astype(np.float64) / scale, atol=1e-7)


def test_to_tensor_numpy():
    arr = rgb_array()
    t = T.ToTensor()(arr)
    np.testing.assert_allclose(t.numpy(), arr.transpose(2, 0, 1) / 255.0, atol=1e-7)
    gray = arr[..., 0]
    assert tuple(T.ToTensor()(gray).shape) == (1, 13, 17)
    f64 = RNG.random((4, 5, 2))
    t64 = F.to_tensor(f64)
    assert t64.dtype == flow.float64  # non-uint8 arrays keep their values and type
    np.testing.assert_array_equal(t64.numpy(), f64.transpose(2, 0, 1))
    with pytest.raises(ValueError, match=r"ToTensor.*4 dimensions"):
        F.to_tensor(np.zeros((1, 2, 3, 4), np.uint8))
    with pytest.raises(TypeError, match=r"ToTensor.*PIL image or a NumPy array.*Tensor"):
        F.to_tensor(flow.zeros(3, 4, 4))


def test_pil_to_tensor():
    arr = rgb_array()
    t = T.PILToTensor()(Image.fromarray(arr))
    assert t.dtype == flow.uint8
    np.testing.assert_array_equal(t.numpy(), arr.transpose(2, 0, 1))
    t = F.pil_to_tensor(Image.fromarray(arr[..., 1]))
    np.testing.assert_array_equal(t.numpy(), arr[None, :, :, 1])
    with pytest.raises(TypeError, match="PILToTensor: expected a PIL image"):
        F.pil_to_tensor(arr)


def test_to_pil_image_from_tensors():
    x = flow.rand(3, 6, 5)
    img = T.ToPILImage()(x)
    assert img.mode == "RGB" and img.size == (5, 6)
    # floats are scaled by 255 and truncated
    np.testing.assert_array_equal(np.asarray(img), (x.numpy() * 255).astype(np.uint8).transpose(1, 2, 0))
    u = chw(rgb_array(6, 5, 4))
    assert F.to_pil_image(u).mode == "RGBA"
    assert F.to_pil_image(u[:2]).mode == "LA"
    assert F.to_pil_image(u[0]).mode == "L"
    np.testing.assert_array_equal(np.asarray(F.to_pil_image(u[:3], "HSV")), u[:3].numpy().transpose(1, 2, 0))
    np.testing.assert_array_equal(np.asarray(F.to_pil_image(u, "CMYK")), u.numpy().transpose(1, 2, 0))
    f = F.to_pil_image(x[:1], mode="F")
    assert f.mode == "F"
    np.testing.assert_array_equal(np.asarray(f), x[0].numpy())
    i32 = F.to_pil_image(flow.tensor([[[1, 70000]]], dtype=flow.int32))
    assert i32.mode == "I" and np.asarray(i32).tolist() == [[1, 70000]]
    i16 = F.to_pil_image(flow.tensor([[[3, 30000]]], dtype=flow.int16))
    assert i16.mode == "I;16" and np.asarray(i16).tolist() == [[3, 30000]]


def test_to_pil_image_from_numpy_and_errors():
    arr = rgb_array()
    np.testing.assert_array_equal(np.asarray(F.to_pil_image(arr)), arr)
    assert F.to_pil_image(arr[..., 0]).mode == "L"
    with pytest.raises(ValueError, match=r"ToPILImage: mode 'RGB' does not fit one channel"):
        F.to_pil_image(arr[..., :1], mode="RGB")
    with pytest.raises(ValueError, match=r"ToPILImage: mode 'RGBA' does not fit 3 channels"):
        F.to_pil_image(arr, mode="RGBA")
    with pytest.raises(ValueError, match="at most 4 channels, got 5"):
        F.to_pil_image(flow.zeros(5, 2, 2))
    with pytest.raises(ValueError, match=r"ToPILImage.*got 4 dimensions"):
        F.to_pil_image(flow.zeros(1, 3, 2, 2))
    with pytest.raises(TypeError, match="3-channel images of type float64 are not supported"):
        F.to_pil_image(RNG.random((2, 2, 3)))
    with pytest.raises(TypeError, match="ToPILImage: expected a oneflow tensor or a NumPy array, got builtins.list"):
        F.to_pil_image([[1, 2]])


def test_convert_image_dtype():
    u = flow.tensor([0, 1, 127, 128, 254, 255], dtype=flow.uint8).reshape(1, 1, 6)
    f = F.convert_image_dtype(u, flow.float32)
    np.testing.assert_allclose(f.numpy(), u.numpy() / 255.0, rtol=1e-6)
    x = flow.tensor([0.0, 0.25, 0.5, 0.999, 1.0]).reshape(1, 1, 5)
    back = T.ConvertImageDtype(flow.uint8)(x)
    np.testing.assert_array_equal(back.numpy(), np.floor(x.numpy().astype(np.float64) * (255 + 1 - 1e-3)))
    assert back.numpy().ravel().tolist() == [0, 63, 127, 255, 255]
    i32 = F.convert_image_dtype(u, flow.int32)
    np.testing.assert_array_equal(i32.numpy(), u.numpy().astype(np.int64) * (2**31 // 256))
    np.testing.assert_array_equal(F.convert_image_dtype(i32, flow.uint8).numpy(), u.numpy())
    assert F.convert_image_dtype(x, flow.float64).dtype == flow.float64
    with pytest.raises(RuntimeError, match="ConvertImageDtype: the cast from oneflow.float32 to oneflow.int32"):
        F.convert_image_dtype(x, flow.int32)


def test_normalize():
    x = flow.rand(2, 3, 4, 5)
    mean, std = [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]
    ref = (x.numpy() - np.array(mean, np.float32)[:, None, None]) / np.array(std, np.float32)[:, None, None]
    np.testing.assert_allclose(T.Normalize(mean, std)(x).numpy(), ref, rtol=1e-6)
    np.testing.assert_allclose(T.Normalize(mean, std)(x[0]).numpy(), ref[0], rtol=1e-6)
    y = x[0].clone()
    out = F.normalize(y, mean, std, inplace=True)
    np.testing.assert_allclose(y.numpy(), ref[0], rtol=1e-6)
    assert out is y


def test_normalize_errors():
    with pytest.raises(ValueError, match=r"Normalize: expected a tensor image of shape \(\.\.\., C, H, W\), got a 2-D"):
        T.Normalize([0.5], [0.5])(flow.rand(4, 4))
    with pytest.raises(TypeError, match="Normalize: expected a floating-point tensor image, got oneflow.uint8"):
        T.Normalize([0.5], [0.5])(flow.zeros(1, 4, 4, dtype=flow.uint8))
    with pytest.raises(ValueError, match="Normalize: std .* has a zero"):
        T.Normalize([0.5, 0.5, 0.5], [0.5, 0.0, 0.5])(flow.rand(3, 4, 4))
    with pytest.raises(ValueError, match="Normalize: mean has 2 values for an image with 3 channels"):
        T.Normalize([0.5, 0.5], [0.5])(flow.rand(3, 4, 4))
    with pytest.raises(TypeError, match="Normalize: expected a oneflow tensor image, got Image"):
        T.Normalize([0.5], [0.5])(Image.new("L", (4, 4)))


# --- resize ---------------------------------------------------------------------------------


PIL_FILTERS = {
    InterpolationMode.NEAREST: Image.Resampling.NEAREST,
    InterpolationMode.BILINEAR: Image.Resampling.BILINEAR,
    InterpolationMode.BICUBIC: Image.Resampling.BICUBIC,
    InterpolationMode.BOX: Image.Resampling.BOX,
    InterpolationMode.HAMMING: Image.Resampling.HAMMING,
    InterpolationMode.LANCZOS: Image.Resampling.LANCZOS,
}


@pytest.mark.parametrize("mode", list(PIL_FILTERS))
@pytest.mark.parametrize("size", [(7, 9), (30, 25)])
def test_resize_pil_is_pil_resize(mode, size):
    img = Image.fromarray(rgb_array(20, 24))
    out = T.Resize(size, interpolation=mode)(img)
    ref = img.resize((size[1], size[0]), PIL_FILTERS[mode])
    np.testing.assert_array_equal(np.asarray(out), np.asarray(ref))


@pytest.mark.parametrize("h,w,size,max_size,expected", [
    (20, 30, 10, None, (10, 15)),
    (30, 20, 10, None, (15, 10)),
    (21, 21, 8, None, (8, 8)),
    (20, 60, 10, 20, (6, 20)),
    (20, 60, [10], 40, (10, 30)),
    (20, 60, None, 30, (10, 30)),
    (17, 23, (5, 6), None, (5, 6)),
])
def test_resize_output_size(h, w, size, max_size, expected):
    img = Image.fromarray(rgb_array(h, w))
    out = F.resize(img, size, max_size=max_size)
    assert out.size == (expected[1], expected[0])
    t = F.resize(chw(rgb_array(h, w)), size, max_size=max_size)
    assert tuple(t.shape) == (3, *expected)


def _torch_resize(arr_chw, size, mode, antialias, uint8):
    x = torch.from_numpy(arr_chw.astype(np.float32))[None]
    align = False if mode in ("bilinear", "bicubic") else None
    y = torch.nn.functional.interpolate(x, size=size, mode=mode, align_corners=align,
                                        antialias=antialias and mode in ("bilinear", "bicubic"))[0]
    if uint8:
        if mode == "bicubic":
            y = y.clamp(0, 255)
        y = torch.round(y).to(torch.uint8)
    return y.numpy()


@pytest.mark.parametrize("mode", ["nearest", "nearest-exact", "bilinear", "bicubic"])
@pytest.mark.parametrize("antialias", [True, False])
@pytest.mark.parametrize("size", [(6, 7), (11, 5), (31, 40)])
def test_resize_tensor_float_matches_torch_interpolate(mode, antialias, size):
    x = RNG.random((3, 17, 19)).astype(np.float32)
    out = F.resize(flow.from_numpy(x), list(size), InterpolationMode(mode), antialias=antialias)
    ref = _torch_resize(x, size, mode, antialias, uint8=False)
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-5, atol=2e-6)


@pytest.mark.parametrize("mode", ["nearest", "bilinear", "bicubic"])
@pytest.mark.parametrize("antialias", [True, False])
def test_resize_tensor_uint8_matches_torch(mode, antialias):
    arr = rgb_array(23, 18).transpose(2, 0, 1).copy()
    for size in [(9, 8), (40, 30)]:
        out = T.Resize(size, InterpolationMode(mode), antialias=antialias)(flow.from_numpy(arr))
        assert out.dtype == flow.uint8
        ref = _torch_resize(arr, size, mode, antialias, uint8=True)
        diff = np.abs(out.numpy().astype(int) - ref.astype(int))
        # float32 sums in a different order may flip a .5 rounding
        assert diff.max() <= 1 and (diff > 0).mean() < 0.01


def test_resize_tensor_batch_and_identity():
    x = flow.rand(2, 3, 10, 12)
    out = F.resize(x, [5, 6])
    for i in range(2):
        np.testing.assert_allclose(out[i].numpy(), F.resize(x[i], [5, 6]).numpy(), atol=1e-6)
    assert F.resize(x, [10, 12]) is x
    assert tuple(F.resize(flow.rand(10, 12), 5).shape) == (5, 6)  # a 2-D tensor is one channel


def test_resize_tensor_close_to_pil_bilinear():
    arr = rgb_array(40, 50)
    pil_out = np.asarray(F.resize(Image.fromarray(arr), [13, 17])).transpose(2, 0, 1)
    t_out = F.resize(chw(arr), [13, 17]).numpy()
    assert np.abs(pil_out.astype(int) - t_out.astype(int)).max() <= 1


def test_resize_errors():
    with pytest.raises(ValueError, match="Resize: max_size is only meaningful when size is one number"):
        F.resize(flow.rand(3, 8, 8), [4, 4], max_size=10)
    with pytest.raises(ValueError, match="max_size = 4 must be strictly greater"):
        F.resize(flow.rand(3, 8, 8), 4, max_size=4)
    with pytest.raises(ValueError, match="Resize: interpolation 'lanczos' is only supported for PIL images"):
        T.Resize(4, InterpolationMode.LANCZOS)(flow.rand(3, 8, 8))
    with pytest.raises(TypeError, match="Resize: size should be an int or a sequence"):
        T.Resize(2.5)
    with pytest.raises(ValueError, match="Resize: a size sequence should have 1 or 2 values"):
        T.Resize([1, 2, 3])
    with pytest.raises(TypeError, match=r"Resize: expected a PIL image or a oneflow tensor image, got numpy.ndarray"):
        T.Resize(4)(rgb_array())
    with pytest.raises(TypeError, match=r"Resize: expected a tensor image .* got a 1-D tensor"):
        T.Resize(4)(flow.rand(5))
    with pytest.raises(TypeError, match="Resize: interpolation should be an InterpolationMode"):
        T.Resize(4, interpolation="cubic")


@pytest.mark.parametrize("transform", [
    T.RandomHorizontalFlip(p=0.0), T.RandomVerticalFlip(p=0.0), T.RandomCrop(2), T.RandomResizedCrop(2),
    T.RandomRotation(0), T.RandomAffine(0), T.RandomGrayscale(p=0.0), T.ColorJitter(0.1), T.GaussianBlur(3),
    T.RandomInvert(p=0.0), T.RandomPosterize(4, p=0.0), T.AutoAugment(), T.RandAugment(), T.TrivialAugmentWide(),
    T.CenterCrop(2), T.Pad(1), T.Resize(2), T.Grayscale(),
], ids=lambda t: type(t).__name__)
def test_wrong_input_type_names_the_transform(transform):
    name = type(transform).__name__
    # checked before any random draw, so a transform that would not fire still reports it
    with pytest.raises(TypeError, match=f"{name}: expected a PIL image or a oneflow tensor image, got numpy.ndarray "
                                        r"\(convert NumPy arrays with ToTensor or ToPILImage first\)"):
        transform(rgb_array())
    with pytest.raises(TypeError, match=f"{name}: expected a tensor image of shape .* got a 1-D tensor of shape"):
        transform(flow.rand(5))


def test_interpolation_mode_aliases():
    assert T.Resize(4, interpolation="bicubic").interpolation is InterpolationMode.BICUBIC
    assert T.Resize(4, interpolation=Image.Resampling.LANCZOS).interpolation is InterpolationMode.LANCZOS
    assert T.Resize(4, interpolation=2).interpolation is InterpolationMode.BILINEAR


# --- crops, flips, pad ----------------------------------------------------------------------


@pytest.mark.parametrize("size", [(5, 7), (6, 6), (4, 17), (13, 1), 20, (15, 21)])
def test_center_crop(size):
    arr = rgb_array(13, 17)
    ch, cw = (size, size) if isinstance(size, int) else size
    # reference: pad symmetrically (extra on the bottom/right), then take the rounded centre
    ph, pw = max(ch - 13, 0), max(cw - 17, 0)
    ref = np.pad(arr, ((ph // 2, (ph + 1) // 2), (pw // 2, (pw + 1) // 2), (0, 0)))
    h, w = ref.shape[:2]
    top, left = int(round((h - ch) / 2)), int(round((w - cw) / 2))
    ref = ref[top:top + ch, left:left + cw]
    np.testing.assert_array_equal(T.CenterCrop(size)(chw(arr)).numpy(), ref.transpose(2, 0, 1))
    np.testing.assert_array_equal(np.asarray(T.CenterCrop(size)(Image.fromarray(arr))), ref)


def test_crop_out_of_bounds_is_zero():
    arr = rgb_array(8, 9)
    ref = np.pad(arr, ((3, 4), (2, 5), (0, 0)))[3 - 2:3 - 2 + 12, 2 + 4:2 + 4 + 7]
    np.testing.assert_array_equal(F.crop(chw(arr), -2, 4, 12, 7).numpy(), ref.transpose(2, 0, 1))
    np.testing.assert_array_equal(np.asarray(F.crop(Image.fromarray(arr), -2, 4, 12, 7)), ref)


def test_flips():
    arr = rgb_array()
    t = chw(arr)
    np.testing.assert_array_equal(F.hflip(t).numpy(), t.numpy()[..., ::-1])
    np.testing.assert_array_equal(F.vflip(t).numpy(), t.numpy()[..., ::-1, :])
    np.testing.assert_array_equal(np.asarray(F.hflip(Image.fromarray(arr))), arr[:, ::-1])
    np.testing.assert_array_equal(np.asarray(F.vflip(Image.fromarray(arr))), arr[::-1])
    assert T.RandomHorizontalFlip(p=0.0)(t) is t
    np.testing.assert_array_equal(T.RandomVerticalFlip(p=1.0)(t).numpy(), t.numpy()[..., ::-1, :])
    batch = flow.rand(2, 3, 4, 5)
    np.testing.assert_array_equal(F.hflip(batch).numpy(), batch.numpy()[..., ::-1])


def test_random_flip_seeded():
    t = chw(rgb_array())
    flip = T.RandomHorizontalFlip()
    flow.manual_seed(7)
    first = [bool((flip(t).numpy() != t.numpy()).any()) for _ in range(200)]
    flow.manual_seed(7)
    draws = [float(flow.rand(1).item()) < 0.5 for _ in range(200)]
    assert first == draws
    assert 70 < sum(first) < 130
    with pytest.raises(ValueError, match=r"RandomHorizontalFlip: p should be a probability in \[0, 1\], got 1.5"):
        T.RandomHorizontalFlip(1.5)


NP_PAD = {"constant": "constant", "edge": "edge", "reflect": "reflect", "symmetric": "symmetric"}


@pytest.mark.parametrize("mode", list(NP_PAD))
@pytest.mark.parametrize("padding", [2, [1, 3], [0, 2, 5, 1], [3, -1, -2, 4], [7, 0, 9, 11]])
def test_pad_matches_numpy(mode, padding):
    arr = rgb_array(6, 8)
    ltrb = F.parse_padding(padding)
    left, top, right, bottom = ltrb
    cropped = arr[max(-top, 0):6 - max(-bottom, 0), max(-left, 0):8 - max(-right, 0)]
    widths = ((max(top, 0), max(bottom, 0)), (max(left, 0), max(right, 0)), (0, 0))
    kw = {"constant_values": 9} if mode == "constant" else {}
    ref = np.pad(cropped, widths, mode=NP_PAD[mode], **kw)
    out_t = T.Pad(padding, fill=9, padding_mode=mode)(chw(arr))
    np.testing.assert_array_equal(out_t.numpy(), ref.transpose(2, 0, 1))
    out_p = T.Pad(padding, fill=9, padding_mode=mode)(Image.fromarray(arr))
    np.testing.assert_array_equal(np.asarray(out_p), ref)
    gray = F.pad(Image.fromarray(arr[..., 0]), padding, fill=9, padding_mode=mode)
    np.testing.assert_array_equal(np.asarray(gray), ref[..., 0])


def test_pad_fill_per_channel_and_float():
    arr = rgb_array(3, 4)
    out = np.asarray(F.pad(Image.fromarray(arr), 1, fill=(10, 20, 30)))
    assert out[0, 0].tolist() == [10, 20, 30]
    t = F.pad(chw(arr), 1, fill=(10, 20, 30))
    np.testing.assert_array_equal(t.numpy().transpose(1, 2, 0), out)
    x = flow.rand(2, 1, 3, 3)
    y = F.pad(x, [1, 0], padding_mode="reflect")
    np.testing.assert_array_equal(y.numpy(), np.pad(x.numpy(), ((0, 0), (0, 0), (0, 0), (1, 1)), mode="reflect"))


def test_pad_errors():
    with pytest.raises(ValueError, match="Pad: padding should be an int or a sequence of 1, 2 or 4 ints, got 3 values"):
        T.Pad([1, 2, 3])
    with pytest.raises(ValueError, match="Pad: padding_mode should be constant, edge, reflect or symmetric"):
        T.Pad(1, padding_mode="wrap")
    with pytest.raises(TypeError, match="Pad: padding should be an int or a sequence of ints"):
        F.pad(flow.rand(3, 4, 4), 1.5)
    with pytest.raises(
        ValueError, match=r"Pad: fill \(1, 2\) needs one value or one per channel for a tensor of shape \(3, 4, 4\)"
    ):
        F.pad(flow.rand(3, 4, 4), 1, fill=(1, 2))


def test_random_crop_seeded():
    arr = rgb_array(20, 24)
    t = chw(arr)
    crop = T.RandomCrop((10, 12))
    flow.manual_seed(3)
    outs = [crop(t).numpy() for _ in range(5)]
    flow.manual_seed(3)
    for out in outs:
        i = int(flow.randint(0, 20 - 10 + 1, (1,)).item())
        j = int(flow.randint(0, 24 - 12 + 1, (1,)).item())
        np.testing.assert_array_equal(out, arr[i:i + 10, j:j + 12].transpose(2, 0, 1))
    # PIL and tensor inputs crop the same windows for the same seed
    flow.manual_seed(11)
    a = crop(t).numpy()
    flow.manual_seed(11)
    b = pil_chw(crop(Image.fromarray(arr)))
    np.testing.assert_array_equal(a, b)


def test_random_crop_padding():
    arr = rgb_array(8, 8)
    flow.manual_seed(5)
    out = T.RandomCrop(8, padding=2, padding_mode="edge")(chw(arr)).numpy()
    flow.manual_seed(5)
    i, j, _, _ = T.RandomCrop.get_params(flow.zeros(3, 12, 12), (8, 8))
    ref = np.pad(arr, ((2, 2), (2, 2), (0, 0)), mode="edge")[i:i + 8, j:j + 8]
    np.testing.assert_array_equal(out, ref.transpose(2, 0, 1))
    # pad_if_needed pads both ends of a short side by its shortfall (as torchvision), then crops
    small = rgb_array(5, 6)
    out = T.RandomCrop((9, 10), pad_if_needed=True, fill=7)(Image.fromarray(small))
    ref = np.pad(small, ((4, 4), (4, 4), (0, 0)), constant_values=7)
    assert out.size == (10, 9)
    assert np.asarray(out).sum() > 0 and (np.asarray(out) == 7).any()
    # the result is a window of the padded image
    found = any(np.array_equal(np.asarray(out), ref[a:a + 9, b:b + 10]) for a in range(5) for b in range(5))
    assert found
    with pytest.raises(ValueError, match=r"RandomCrop: crop size \(9, 10\) is larger than the image size \(5, 6\)"):
        T.RandomCrop((9, 10))(chw(small))


def test_random_resized_crop_params_and_result():
    arr = rgb_array(40, 60)
    t = chw(arr)
    rrc = T.RandomResizedCrop((16, 20), scale=(0.2, 0.9), ratio=(0.5, 2.0))
    for seed in range(5):
        flow.manual_seed(seed)
        out = rrc(t)
        flow.manual_seed(seed)
        i, j, h, w = T.RandomResizedCrop.get_params(t, (0.2, 0.9), (0.5, 2.0))
        assert 0 <= i <= 40 - h and 0 <= j <= 60 - w
        assert 0.2 * 2400 * 0.7 <= h * w <= 0.9 * 2400 * 1.3
        ref = F.resize(flow.from_numpy(arr[i:i + h, j:j + w].transpose(2, 0, 1).copy()), [16, 20])
        np.testing.assert_array_equal(out.numpy(), ref.numpy())
    # replay the draws of get_params: area fraction, then log-ratio, then the offsets
    flow.manual_seed(21)
    i, j, h, w = T.RandomResizedCrop.get_params(t, (0.2, 0.9), (0.5, 2.0))
    flow.manual_seed(21)
    area = 2400 * float(flow.empty(1).uniform_(0.2, 0.9).item())
    ar = math.exp(float(flow.empty(1).uniform_(math.log(0.5), math.log(2.0)).item()))
    assert (h, w) == (int(round(math.sqrt(area / ar))), int(round(math.sqrt(area * ar))))
    # impossible scales fall back to the central crop clamped to the ratio range
    i, j, h, w = T.RandomResizedCrop.get_params(flow.zeros(3, 10, 50), (5.0, 6.0), (0.5, 2.0))
    assert (i, j, h, w) == (0, 15, 10, 20)
    assert T.RandomResizedCrop(8)(Image.fromarray(arr)).size == (8, 8)


# --- rotation and affine --------------------------------------------------------------------


def _torch_affine_ref(x, matrix, ow, oh, mode, fill=None):
    """torchvision's tensor affine, written with torch: centred pixel grid, inverse map,
    grid_sample(align_corners=False), fill through a mask channel."""
    n, c, h, w = x.shape
    theta = torch.tensor(matrix, dtype=torch.float64).view(2, 3)
    xs = torch.arange(ow, dtype=torch.float64) - ow * 0.5 + 0.5
    ys = torch.arange(oh, dtype=torch.float64) - oh * 0.5 + 0.5
    gy, gx = torch.meshgrid(ys, xs, indexing="ij")
    pts = torch.stack([gx, gy, torch.ones_like(gx)], -1) @ theta.T
    grid = (pts / torch.tensor([0.5 * w, 0.5 * h], dtype=torch.float64)).to(x.dtype)[None].expand(n, oh, ow, 2)
    if fill is not None:
        x = torch.cat([x, torch.ones(n, 1, h, w, dtype=x.dtype)], 1)
    y = torch.nn.functional.grid_sample(x, grid, mode=mode, padding_mode="zeros", align_corners=False)
    if fill is not None:
        mask, y = y[:, -1:].expand(n, c, oh, ow), y[:, :-1]
        f = torch.tensor(fill, dtype=x.dtype).view(1, -1, 1, 1).expand_as(y)
        y = torch.where(mask < 0.5, f, y) if mode == "nearest" else y * mask + (1 - mask) * f
    return y


def test_rotate_90_is_rot90():
    arr = rgb_array(10, 10)
    t = chw(arr)
    np.testing.assert_array_equal(F.rotate(t, 90).numpy(), np.rot90(arr, 1).transpose(2, 0, 1))
    np.testing.assert_array_equal(F.rotate(t, -90).numpy(), np.rot90(arr, -1).transpose(2, 0, 1))
    np.testing.assert_array_equal(np.asarray(F.rotate(Image.fromarray(arr), 90)), np.rot90(arr, 1))
    # a non-square image with expand=True swaps the sides
    arr2 = rgb_array(6, 10)
    out = F.rotate(chw(arr2), 90, expand=True)
    np.testing.assert_array_equal(out.numpy(), np.rot90(arr2, 1).transpose(2, 0, 1))
    assert F.rotate(Image.fromarray(arr2), 90, expand=True).size == (6, 10)


@pytest.mark.parametrize("angle", [17.0, -33.5, 120.0])
@pytest.mark.parametrize("mode", ["nearest", "bilinear"])
def test_rotate_tensor_matches_torch_reference(angle, mode):
    x = RNG.random((2, 3, 11, 14)).astype(np.float32)
    out = F.rotate(flow.from_numpy(x), angle, InterpolationMode(mode), fill=[0.1, 0.2, 0.3])
    a = math.radians(-angle)
    # the inverse map of a rotation about the centre is the opposite rotation
    m = [math.cos(a), math.sin(a), 0.0, -math.sin(a), math.cos(a), 0.0]
    ref = _torch_affine_ref(torch.from_numpy(x), m, 14, 11, mode, fill=[0.1, 0.2, 0.3]).numpy()
    np.testing.assert_allclose(out.numpy(), ref, atol=1e-5)


@pytest.mark.parametrize("angle", [10, 33, 45, 100, 200])
def test_rotate_expand_size_matches_pil(angle):
    arr = rgb_array(13, 20)
    pil_out = F.rotate(Image.fromarray(arr), angle, expand=True)
    t_out = F.rotate(chw(arr), angle, expand=True)
    assert (int(t_out.shape[-1]), int(t_out.shape[-2])) == pil_out.size


def test_rotate_tensor_agrees_with_pil_nearest():
    arr = rgb_array(21, 21)
    for angle in (30, -70):
        t_out = F.rotate(chw(arr), angle, center=(8, 11)).numpy()
        p_out = pil_chw(F.rotate(Image.fromarray(arr), angle, center=(8, 11)))
        # both sample the nearest pixel; only ties on pixel boundaries may differ
        assert (t_out == p_out).mean() > 0.97


def test_affine_translate_is_shift():
    arr = rgb_array(9, 11)
    ref = np.zeros_like(arr)
    ref[2:, :8] = arr[:-2, 3:]  # dx = -3, dy = 2
    out = F.affine(chw(arr), 0.0, [-3, 2], 1.0, 0.0)
    np.testing.assert_array_equal(out.numpy(), ref.transpose(2, 0, 1))
    np.testing.assert_array_equal(np.asarray(F.affine(Image.fromarray(arr), 0.0, [-3, 2], 1.0, 0.0)), ref)


@pytest.mark.parametrize("params", [
    dict(angle=25.0, translate=[2, -1], scale=1.2, shear=[10.0, -5.0]),
    dict(angle=-40.0, translate=[0, 3], scale=0.7, shear=[0.0, 20.0]),
    dict(angle=0.0, translate=[0, 0], scale=1.0, shear=[30.0, 0.0], center=[0, 0]),
])
@pytest.mark.parametrize("mode", ["nearest", "bilinear"])
def test_affine_tensor_matches_torch_reference(params, mode):
    x = RNG.random((1, 3, 12, 15)).astype(np.float32)
    out = F.affine(flow.from_numpy(x), interpolation=InterpolationMode(mode), **params)
    # torchvision's definition: M = T * C * R(a) * S(s) * SHy(sy) * SHx(sx) * C^-1, with
    # SHx(s) = [[1, -tan s], [0, 1]] and SHy(s) = [[1, 0], [-tan s, 1]]; the reference inverts it numerically.
    rot, sx, sy = math.radians(params["angle"]), math.radians(params["shear"][0]), math.radians(params["shear"][1])
    R = np.array([[math.cos(rot), -math.sin(rot)], [math.sin(rot), math.cos(rot)]])
    shx = np.array([[1, -math.tan(sx)], [0, 1]])
    shy = np.array([[1, 0], [-math.tan(sy), 1]])
    A = R @ (params["scale"] * np.eye(2)) @ shy @ shx
    c = np.array(params.get("center", [7.5, 6.0]), dtype=np.float64) - np.array([7.5, 6.0])
    t = np.array(params["translate"], dtype=np.float64)
    inv = np.linalg.inv(A)
    m = np.concatenate([inv, (c - inv @ (c + t))[:, None]], axis=1).ravel().tolist()
    ref = _torch_affine_ref(torch.from_numpy(x), m, 15, 12, mode).numpy()
    np.testing.assert_allclose(out.numpy(), ref, atol=1e-5)
    # the PIL path samples the same points
    arr = (x[0] * 255).astype(np.uint8).transpose(1, 2, 0)
    if mode == "nearest":
        p_out = pil_chw(F.affine(Image.fromarray(arr), interpolation=InterpolationMode.NEAREST, **params))
        t_out = F.affine(chw(arr), interpolation=InterpolationMode.NEAREST, **params).numpy()
        assert (p_out == t_out).mean() > 0.95


def test_affine_errors():
    t = flow.rand(3, 5, 5)
    with pytest.raises(ValueError, match="affine: scale should be a positive number, got 0"):
        F.affine(t, 0, [0, 0], 0, 0)
    with pytest.raises(ValueError, match="affine: translate should be a sequence of 2 numbers"):
        F.affine(t, 0, [0], 1, 0)
    with pytest.raises(ValueError, match="rotate: tensor images support the nearest and bilinear"):
        F.rotate(t, 10, InterpolationMode.BICUBIC)
    with pytest.raises(ValueError, match=r"RandomAffine: translate values should be in \[0, 1\]"):
        T.RandomAffine(0, translate=(0.5, 1.5))
    with pytest.raises(ValueError, match="RandomAffine: shear should be a number or a sequence of 2 or 4 numbers"):
        T.RandomAffine(0, shear=(1, 2, 3))
    with pytest.raises(ValueError, match="RandomRotation: a single number for degrees should be non-negative"):
        T.RandomRotation(-5)


def test_random_rotation_and_affine_seeded():
    arr = rgb_array(12, 12)
    t = chw(arr)
    rot = T.RandomRotation((10, 40), fill=3)
    flow.manual_seed(9)
    out = rot(t)
    flow.manual_seed(9)
    angle = float(flow.empty(1).uniform_(10, 40).item())
    assert 10 <= angle <= 40
    np.testing.assert_array_equal(out.numpy(), F.rotate(t, angle, fill=[3.0, 3.0, 3.0]).numpy())
    aff = T.RandomAffine(20, translate=(0.2, 0.1), scale=(0.8, 1.2), shear=(-5, 5, -3, 3))
    img = Image.fromarray(arr)
    flow.manual_seed(4)
    out = aff(img)
    flow.manual_seed(4)
    angle, tr, sc, sh = T.RandomAffine.get_params([-20, 20], (0.2, 0.1), (0.8, 1.2), [-5, 5, -3, 3], [12, 12])
    assert -20 <= angle <= 20 and abs(tr[0]) <= 2.4 and abs(tr[1]) <= 1.2 and 0.8 <= sc <= 1.2
    assert -5 <= sh[0] <= 5 and -3 <= sh[1] <= 3
    np.testing.assert_array_equal(np.asarray(out), np.asarray(F.affine(img, angle, list(tr), sc, list(sh), fill=0)))


# --- colour ---------------------------------------------------------------------------------


def test_grayscale():
    arr = rgb_array()
    x = flow.from_numpy(arr.transpose(2, 0, 1).astype(np.float32) / 255)
    ref = 0.2989 * x.numpy()[0] + 0.587 * x.numpy()[1] + 0.114 * x.numpy()[2]
    np.testing.assert_allclose(T.Grayscale()(x).numpy()[0], ref, rtol=1e-6)
    g3 = T.Grayscale(3)(x).numpy()
    assert g3.shape == (3, 13, 17) and np.array_equal(g3[0], g3[2])
    u = T.Grayscale()(chw(arr)).numpy()[0]
    ref_u = (0.2989 * arr[..., 0] + 0.587 * arr[..., 1] + 0.114 * arr[..., 2]).astype(np.uint8)  # truncated
    assert np.abs(u.astype(int) - ref_u.astype(int)).max() <= 1
    p = T.Grayscale()(Image.fromarray(arr))
    assert p.mode == "L"
    np.testing.assert_array_equal(np.asarray(p), np.asarray(Image.fromarray(arr).convert("L")))
    p3 = T.Grayscale(3)(Image.fromarray(arr))
    assert p3.mode == "RGB" and np.array_equal(np.asarray(p3)[..., 1], np.asarray(p))
    assert np.abs(np.asarray(p).astype(int) - u.astype(int)).max() <= 1
    rg = T.RandomGrayscale(p=1.0)(chw(arr))
    assert tuple(rg.shape) == (3, 13, 17)


def test_grayscale_errors():
    with pytest.raises(TypeError, match=r"Grayscale: expected a tensor image with 1 or 3 channels .* got 4 channels"):
        T.Grayscale()(flow.rand(4, 5, 5))
    with pytest.raises(TypeError, match=r"Grayscale: expected a tensor image of shape \(\.\.\., C, H, W\).*2-D"):
        T.Grayscale()(flow.rand(5, 5))
    with pytest.raises(ValueError, match="Grayscale: num_output_channels should be 1 or 3, got 2"):
        T.Grayscale(2)
    with pytest.raises(TypeError, match="Grayscale: PIL cannot convert a 'LAB' image to grayscale"):
        T.Grayscale()(Image.new("LAB", (3, 3)))
    # PIL images with alpha convert (the alpha is dropped), as in torchvision
    rgba = Image.fromarray(rgb_array(4, 4, 4), "RGBA")
    np.testing.assert_array_equal(np.asarray(T.Grayscale()(rgba)), np.asarray(rgba.convert("L")))


def _blend_ref(img, other, f, uint8):
    out = np.clip(f * img + (1 - f) * other, 0, 255 if uint8 else 1)
    return out.astype(np.uint8) if uint8 else out


@pytest.mark.parametrize("factor", [0.0, 0.4, 1.0, 1.7])
def test_brightness_contrast_saturation_tensor(factor):
    arr = rgb_array()
    xf = arr.transpose(2, 0, 1).astype(np.float32) / 255
    gray_f = 0.2989 * xf[0] + 0.587 * xf[1] + 0.114 * xf[2]
    t = flow.from_numpy(xf)
    np.testing.assert_allclose(F.adjust_brightness(t, factor).numpy(), _blend_ref(xf, 0, factor, False), atol=1e-6)
    np.testing.assert_allclose(F.adjust_contrast(t, factor).numpy(), _blend_ref(xf, gray_f.mean(), factor, False),
                               atol=1e-6)
    np.testing.assert_allclose(F.adjust_saturation(t, factor).numpy(), _blend_ref(xf, gray_f, factor, False),
                               atol=1e-6)
    u = arr.transpose(2, 0, 1).astype(np.float32)
    gray_u = (0.2989 * u[0] + 0.587 * u[1] + 0.114 * u[2]).astype(np.uint8).astype(np.float32)
    out = F.adjust_saturation(chw(arr), factor).numpy()
    assert np.abs(out.astype(int) - _blend_ref(u, gray_u, factor, True).astype(int)).max() <= 1
    out = F.adjust_contrast(chw(arr), factor).numpy()
    assert np.abs(out.astype(int) - _blend_ref(u, gray_u.mean(), factor, True).astype(int)).max() <= 1
    np.testing.assert_array_equal(F.adjust_brightness(chw(arr), factor).numpy(), _blend_ref(u, 0, factor, True))


@pytest.mark.parametrize("factor", [0.0, 0.5, 1.3])
def test_enhance_pil_is_imageenhance(factor):
    img = Image.fromarray(rgb_array())
    for fn, enh in [(F.adjust_brightness, ImageEnhance.Brightness), (F.adjust_contrast, ImageEnhance.Contrast),
                    (F.adjust_saturation, ImageEnhance.Color), (F.adjust_sharpness, ImageEnhance.Sharpness)]:
        np.testing.assert_array_equal(np.asarray(fn(img, factor)), np.asarray(enh(img).enhance(factor)))
    # tensor and PIL paths agree to rounding (PIL rounds, torchvision truncates)
    t = pil_chw(img)
    for fn in (F.adjust_brightness, F.adjust_saturation, F.adjust_sharpness):
        diff = np.abs(fn(flow.from_numpy(t.copy()), factor).numpy().astype(int) - pil_chw(fn(img, factor)).astype(int))
        assert diff.max() <= 1, fn.__name__


@pytest.mark.parametrize("hue", [-0.5, -0.2, 0.0, 0.13, 0.5])
def test_adjust_hue_tensor_matches_colorsys(hue):
    xf = RNG.random((3, 5, 6)).astype(np.float32)
    xf[:, 0, 0] = [0.3, 0.3, 0.3]  # gray: hue undefined
    xf[:, 0, 1] = [0.9, 0.9, 0.2]  # ties between the largest channels
    ref = np.empty_like(xf)
    for i in range(5):
        for j in range(6):
            h, s, v = colorsys.rgb_to_hsv(*xf[:, i, j].astype(np.float64))
            ref[:, i, j] = colorsys.hsv_to_rgb((h + hue) % 1.0, s, v)
    np.testing.assert_allclose(F.adjust_hue(flow.from_numpy(xf), hue).numpy(), ref, atol=2e-6)
    u = (xf * 255).astype(np.uint8)
    out = F.adjust_hue(flow.from_numpy(u), hue).numpy()
    ref_u = np.empty_like(u)
    for i in range(5):
        for j in range(6):
            h, s, v = colorsys.rgb_to_hsv(*(u[:, i, j] / 255.0))
            ref_u[:, i, j] = (np.array(colorsys.hsv_to_rgb((h + hue) % 1.0, s, v)) * 255).astype(np.uint8)
    assert np.abs(out.astype(int) - ref_u.astype(int)).max() <= 1


def test_adjust_hue_pil():
    arr = rgb_array()
    img = Image.fromarray(arr)
    for hue in (-0.3, 0.25):
        h, s, v = img.convert("HSV").split()
        shifted = ((np.asarray(h).astype(int) + int(hue * 255)) % 256).astype(np.uint8)
        ref = Image.merge("HSV", (Image.fromarray(shifted), s, v)).convert("RGB")
        np.testing.assert_array_equal(np.asarray(F.adjust_hue(img, hue)), np.asarray(ref))
    gray = Image.fromarray(arr[..., 0])
    assert F.adjust_hue(gray, 0.2) is gray
    with pytest.raises(ValueError, match=r"adjust_hue: hue_factor should be in \[-0.5, 0.5\], got 0.7"):
        F.adjust_hue(img, 0.7)


def test_adjust_gamma():
    arr = rgb_array()
    xf = arr.transpose(2, 0, 1).astype(np.float32) / 255
    np.testing.assert_allclose(F.adjust_gamma(flow.from_numpy(xf), 0.5, 1.2).numpy(),
                               np.clip(1.2 * xf ** 0.5, 0, 1), rtol=1e-5)
    table = np.array([int((255 + 1 - 1e-3) * (v / 255.0) ** 2.2) for v in range(256)], np.uint8)
    np.testing.assert_array_equal(np.asarray(F.adjust_gamma(Image.fromarray(arr), 2.2)), table[arr])
    out = F.adjust_gamma(chw(arr), 2.2).numpy()
    assert np.abs(out.astype(int) - table[arr].transpose(2, 0, 1).astype(int)).max() <= 1


def test_sharpness_tensor_reference():
    xf = RNG.random((3, 7, 8)).astype(np.float32)
    k = np.ones((3, 3), np.float32)
    k[1, 1] = 5
    k /= 13
    blurred = xf.copy()
    for c in range(3):
        for i in range(1, 6):
            for j in range(1, 7):
                blurred[c, i, j] = (xf[c, i - 1:i + 2, j - 1:j + 2] * k).sum()
    for f in (0.0, 0.5, 2.0):
        np.testing.assert_allclose(F.adjust_sharpness(flow.from_numpy(xf), f).numpy(),
                                   _blend_ref(xf, blurred, f, False), atol=1e-6)


def test_imageops_equivalents():
    arr = rgb_array(16, 16)
    arr[..., 2] = np.clip(arr[..., 2], 40, 180)  # a channel to stretch
    img = Image.fromarray(arr)
    t = chw(arr)
    cases = [
        (F.invert, ImageOps.invert, ()),
        (F.posterize, ImageOps.posterize, (3,)),
        (F.solarize, ImageOps.solarize, (100,)),
        (F.equalize, ImageOps.equalize, ()),
    ]
    for fn, op, args in cases:
        ref = np.asarray(op(img, *args))
        np.testing.assert_array_equal(np.asarray(fn(img, *args)), ref)
        np.testing.assert_array_equal(fn(t, *args).numpy(), ref.transpose(2, 0, 1), err_msg=fn.__name__)
    ref = np.asarray(ImageOps.autocontrast(img))
    np.testing.assert_array_equal(np.asarray(F.autocontrast(img)), ref)
    assert np.abs(F.autocontrast(t).numpy().astype(int) - ref.transpose(2, 0, 1).astype(int)).max() <= 1
    xf = arr.transpose(2, 0, 1).astype(np.float32) / 255
    np.testing.assert_allclose(F.invert(flow.from_numpy(xf)).numpy(), 1 - xf)
    np.testing.assert_allclose(F.solarize(flow.from_numpy(xf), 0.5).numpy(), np.where(xf >= 0.5, 1 - xf, xf))
    lo, hi = xf.min(axis=(1, 2), keepdims=True), xf.max(axis=(1, 2), keepdims=True)
    np.testing.assert_allclose(F.autocontrast(flow.from_numpy(xf)).numpy(), (xf - lo) / (hi - lo), atol=1e-6)


def test_color_op_errors():
    f = flow.rand(3, 4, 4)
    with pytest.raises(TypeError, match="posterize: posterize supports only uint8 tensor images, got oneflow.float32"):
        F.posterize(f, 3)
    with pytest.raises(TypeError, match="equalize: equalize supports only uint8 tensor images"):
        F.equalize(f)
    with pytest.raises(TypeError, match="solarize: threshold 2 is above the largest value 1.0"):
        F.solarize(f, 2)
    with pytest.raises(TypeError, match="adjust_saturation: expected a tensor image with 1 or 3 channels"):
        F.adjust_saturation(flow.rand(2, 4, 4), 1.5)
    with pytest.raises(ValueError, match="adjust_brightness: brightness factor should be non-negative"):
        F.adjust_brightness(f, -1)


def test_color_jitter_seeded():
    arr = rgb_array()
    jitter = T.ColorJitter(brightness=0.4, contrast=(0.5, 1.5), saturation=0.3, hue=0.1)
    assert jitter.brightness == (0.6, 1.4) and jitter.hue == (-0.1, 0.1)
    for inp in (chw(arr), Image.fromarray(arr)):
        flow.manual_seed(17)
        out = jitter(inp)
        flow.manual_seed(17)
        order = flow.randperm(4).tolist()
        factors = [float(flow.empty(1).uniform_(lo, hi).item()) for lo, hi in [(0.6, 1.4), (0.5, 1.5), (0.7, 1.3),
                                                                               (-0.1, 0.1)]]
        ref = inp
        fns = [F.adjust_brightness, F.adjust_contrast, F.adjust_saturation, F.adjust_hue]
        for k in order:
            ref = fns[k](ref, factors[k])
        np.testing.assert_array_equal(npy(out), npy(ref))
    # zero ranges are the identity and draw nothing
    assert T.ColorJitter().brightness is None and T.ColorJitter(hue=0).hue is None
    with pytest.raises(ValueError, match=r"ColorJitter: hue range should lie in \[-0.5, 0.5\]"):
        T.ColorJitter(hue=0.6)
    with pytest.raises(ValueError, match="ColorJitter: a single number for brightness should be non-negative"):
        T.ColorJitter(brightness=-0.1)
    with pytest.raises(TypeError, match="ColorJitter: contrast should be a number or a sequence of 2 numbers"):
        T.ColorJitter(contrast=(1, 2, 3))


# --- blur and erasing -----------------------------------------------------------------------


@pytest.mark.parametrize("ks,sigma", [((3, 3), (0.8, 0.8)), ((5, 3), (1.5, 0.6)), ((7, 7), (2.0, 2.0))])
def test_gaussian_blur_matches_torch(ks, sigma):
    x = RNG.random((2, 3, 9, 10)).astype(np.float32)

    def k1(k, s):
        v = torch.linspace(-(k - 1) / 2, (k - 1) / 2, k, dtype=torch.float64)
        p = torch.exp(-0.5 * (v / s) ** 2)
        return p / p.sum()

    k2 = torch.outer(k1(ks[1], sigma[1]), k1(ks[0], sigma[0])).float().expand(3, 1, ks[1], ks[0])
    xp = torch.nn.functional.pad(torch.from_numpy(x), [ks[0] // 2, ks[0] // 2, ks[1] // 2, ks[1] // 2], mode="reflect")
    ref = torch.nn.functional.conv2d(xp, k2, groups=3).numpy()
    np.testing.assert_allclose(F.gaussian_blur(flow.from_numpy(x), list(ks), list(sigma)).numpy(), ref, atol=1e-5)
    u = (x[0] * 255).astype(np.uint8)
    out_u = F.gaussian_blur(flow.from_numpy(u), list(ks), list(sigma)).numpy()
    xp = torch.nn.functional.pad(torch.from_numpy(u.astype(np.float32))[None],
                                 [ks[0] // 2, ks[0] // 2, ks[1] // 2, ks[1] // 2], mode="reflect")
    ref_u = torch.round(torch.nn.functional.conv2d(xp, k2, groups=3))[0].to(torch.uint8).numpy()
    assert np.abs(out_u.astype(int) - ref_u.astype(int)).max() <= 1
    pil_out = pil_chw(F.gaussian_blur(Image.fromarray(u.transpose(1, 2, 0)), list(ks), list(sigma)))
    np.testing.assert_array_equal(pil_out, out_u)


def test_gaussian_blur_class_seeded_and_errors():
    x = flow.rand(3, 8, 8)
    blur = T.GaussianBlur(5, sigma=(0.5, 1.5))
    flow.manual_seed(2)
    out = blur(x)
    flow.manual_seed(2)
    s = float(flow.empty(1).uniform_(0.5, 1.5).item())
    np.testing.assert_array_equal(out.numpy(), F.gaussian_blur(x, [5, 5], [s, s]).numpy())
    with pytest.raises(ValueError, match="GaussianBlur: kernel_size should be odd and positive"):
        T.GaussianBlur(4)
    with pytest.raises(ValueError, match="GaussianBlur: sigma should be .min, max. with 0 < min <= max"):
        T.GaussianBlur(3, sigma=(2.0, 1.0))
    with pytest.raises(ValueError, match="GaussianBlur: kernel_size should be odd and positive"):
        F.gaussian_blur(x, [3, 2])


def test_random_erasing_seeded():
    x = flow.rand(3, 20, 24)
    er = T.RandomErasing(p=1.0, scale=(0.05, 0.2), ratio=(0.5, 2.0), value=(0.1, 0.2, 0.3))
    flow.manual_seed(8)
    out = er(x).numpy()
    flow.manual_seed(8)
    flow.rand(1)  # the p draw
    i, j, h, w, v = T.RandomErasing.get_params(x, (0.05, 0.2), (0.5, 2.0), [0.1, 0.2, 0.3])
    ref = x.numpy().copy()
    ref[:, i:i + h, j:j + w] = np.array([0.1, 0.2, 0.3], np.float32)[:, None, None]
    np.testing.assert_array_equal(out, ref)
    assert 0.05 * 480 * 0.5 <= h * w <= 0.2 * 480 * 1.5
    assert er(x) is not x
    y = x.clone()
    assert T.RandomErasing(p=1.0, inplace=True)(y) is y
    rnd = T.RandomErasing(p=1.0, value="random")(flow.zeros(3, 20, 24))
    assert float(rnd.abs().sum()) > 0
    u = T.RandomErasing(p=1.0, value=7)(flow.zeros(1, 3, 20, 24, dtype=flow.uint8))
    assert u.dtype == flow.uint8 and set(np.unique(u.numpy()).tolist()) == {0, 7}
    assert T.RandomErasing(p=0.0)(x) is x


def test_random_erasing_errors():
    with pytest.raises(TypeError, match="RandomErasing: expected a oneflow tensor image .apply it after ToTensor."):
        T.RandomErasing()(Image.new("RGB", (4, 4)))
    with pytest.raises(ValueError, match="RandomErasing: value should have 1 or 3 numbers for this image, got 2"):
        T.RandomErasing(p=1.0, value=(1, 2))(flow.rand(3, 8, 8))
    with pytest.raises(ValueError, match="RandomErasing: the only string value is 'random'"):
        T.RandomErasing(value="noise")
    with pytest.raises(ValueError, match=r"RandomErasing: scale should lie in \[0, 1\]"):
        T.RandomErasing(scale=(0.5, 2.0))
    with pytest.raises(ValueError, match="RandomErasing: expected a tensor image of shape .* got a 2-D"):
        T.RandomErasing()(flow.rand(4, 4))


# --- composition ----------------------------------------------------------------------------


def test_compose_lambda_and_random_containers():
    pipeline = T.Compose([T.Resize(8), T.CenterCrop(6), T.ToTensor(), T.Normalize([0.5] * 3, [0.25] * 3)])
    img = Image.fromarray(rgb_array(16, 20))
    ref = (np.asarray(img.resize((10, 8), Image.Resampling.BILINEAR))[1:7, 2:8].transpose(2, 0, 1) / 255.0 - 0.5) / 0.25
    np.testing.assert_allclose(pipeline(img).numpy(), ref, atol=1e-5)
    assert "CenterCrop(size=(6, 6))" in repr(pipeline)
    assert T.Lambda(lambda x: x * 2)(3) == 6
    with pytest.raises(TypeError, match="Lambda: lambd should be callable, got int"):
        T.Lambda(3)
    with pytest.raises(TypeError, match="Compose: every transform should be callable"):
        T.Compose([1])
    add1, times2 = T.Lambda(lambda x: x + 1), T.Lambda(lambda x: x * 2)
    flow.manual_seed(0)
    outs = {T.RandomOrder([add1, times2])(1) for _ in range(30)}
    assert outs == {3, 4}
    flow.manual_seed(0)
    outs = [T.RandomChoice([add1, times2], p=[0.9, 0.1])(10) for _ in range(200)]
    assert 150 < outs.count(11) < 200 and outs.count(20) > 0
    outs = [T.RandomApply([add1], p=0.3)(0) for _ in range(300)]
    assert 50 < sum(outs) < 130
    seq = flow.nn.Sequential(T.ConvertImageDtype(flow.float32), T.Normalize([0.0], [2.0]))
    np.testing.assert_allclose(seq(flow.full((1, 2, 2), 255, dtype=flow.uint8)).numpy(), 0.5)


def test_random_transforms_reproduce_with_manual_seed():
    arr = rgb_array(32, 32)
    pipeline = T.Compose([
        T.RandomResizedCrop(24), T.RandomHorizontalFlip(), T.ColorJitter(0.4, 0.4, 0.4, 0.1),
        T.RandomRotation(15), T.RandomGrayscale(0.3), T.PILToTensor(), T.RandomErasing(p=0.7),
    ])
    flow.manual_seed(123)
    a = [pipeline(Image.fromarray(arr)).numpy() for _ in range(4)]
    flow.manual_seed(123)
    b = [pipeline(Image.fromarray(arr)).numpy() for _ in range(4)]
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)
    assert not all(np.array_equal(a[0], x) for x in a[1:])


# --- AutoAugment family ---------------------------------------------------------------------


def test_augment_ops_all_run_on_pil_and_tensors():
    from flowvision.transforms.autoaugment import _apply_op

    arr = rgb_array(20, 20)
    ops = ["ShearX", "ShearY", "TranslateX", "TranslateY", "Rotate", "Brightness", "Color", "Contrast",
           "Sharpness", "Posterize", "Solarize", "AutoContrast", "Equalize", "Invert", "Identity"]
    for op in ops:
        mag = {"Posterize": 4.0, "Solarize": 128.0, "ShearX": 0.3, "ShearY": 0.3, "Brightness": 0.5, "Color": 0.5,
               "Contrast": 0.5, "Sharpness": 0.5}.get(op, 5.0)
        p = _apply_op(Image.fromarray(arr), op, mag, InterpolationMode.NEAREST, None)
        t = _apply_op(chw(arr), op, mag, InterpolationMode.NEAREST, [0.0, 0.0, 0.0])
        assert p.size == (20, 20) and tuple(t.shape) == (3, 20, 20)
        diff = np.abs(pil_chw(p).astype(int) - t.numpy().astype(int))
        if op in ("ShearX", "ShearY", "TranslateX", "TranslateY", "Rotate"):
            assert (diff == 0).mean() > 0.9, op  # the same pixels up to ties on pixel boundaries
        elif op in ("Brightness", "Color", "Contrast", "Sharpness", "AutoContrast"):
            assert diff.max() <= 2, op  # PIL rounds where torchvision truncates
        else:
            assert diff.max() == 0, op
    with pytest.raises(ValueError, match="unknown augmentation operation 'Blur'"):
        _apply_op(chw(arr), "Blur", 1.0, InterpolationMode.NEAREST, None)


def test_translate_op_is_integer_shift():
    from flowvision.transforms.autoaugment import _apply_op

    arr = rgb_array(10, 12)
    out = _apply_op(chw(arr), "TranslateX", 3.7, InterpolationMode.NEAREST, None).numpy()
    ref = np.zeros_like(arr)
    ref[:, 3:] = arr[:, :-3]
    np.testing.assert_array_equal(out, ref.transpose(2, 0, 1))


def test_rand_augment_replays_its_draws():
    arr = rgb_array(16, 16)
    ra = T.RandAugment(num_ops=3, magnitude=9, num_magnitude_bins=31)
    space = ra._augmentation_space(31, (16, 16))
    names = list(space)
    assert names[0] == "Identity" and len(names) == 14
    assert float(space["Rotate"][0][9]) == pytest.approx(30.0 * 9 / 30)
    assert space["Posterize"][0].tolist()[:8] == [8, 8, 8, 8, 7, 7, 7, 7]
    for seed in range(6):
        flow.manual_seed(seed)
        out = ra(chw(arr))
        flow.manual_seed(seed)
        ref = chw(arr)
        from flowvision.transforms.autoaugment import _apply_op
        for _ in range(3):
            name = names[int(flow.randint(14, (1,)).item())]
            mags, signed = space[name]
            mag = float(mags[9]) if mags.ndim else 0.0
            if signed and int(flow.randint(2, (1,)).item()):
                mag = -mag
            ref = _apply_op(ref, name, mag, InterpolationMode.NEAREST, None)
        np.testing.assert_array_equal(out.numpy(), ref.numpy())
    with pytest.raises(ValueError, match=r"RandAugment: magnitude should be in \[0, 31\), got 31"):
        T.RandAugment(magnitude=31)


def test_auto_augment_imagenet_policy():
    aa = T.AutoAugment(T.AutoAugmentPolicy.IMAGENET)
    assert len(aa.policies) == 25
    assert aa.policies[0] == (("Posterize", 0.4, 8), ("Rotate", 0.6, 9))
    space = aa._augmentation_space(10, (32, 32))
    assert space["Posterize"][0].tolist() == [8, 8, 7, 7, 6, 6, 5, 5, 4, 4]
    assert float(space["Solarize"][0][5]) == pytest.approx(255 * 4 / 9)
    arr = rgb_array(32, 32)
    from flowvision.transforms.autoaugment import _apply_op
    for seed in range(8):
        flow.manual_seed(seed)
        out = aa(Image.fromarray(arr))
        flow.manual_seed(seed)
        pid, probs, signs = T.AutoAugment.get_params(25)
        ref = Image.fromarray(arr)
        for i, (name, p, mid) in enumerate(aa.policies[pid]):
            if probs[i] <= p:
                mags, signed = space[name]
                mag = float(mags[mid]) if mid is not None else 0.0
                ref = _apply_op(ref, name, -mag if signed and signs[i] == 0 else mag, InterpolationMode.NEAREST, None)
        np.testing.assert_array_equal(np.asarray(out), np.asarray(ref))
    with pytest.raises(ValueError, match="AutoAugment: policy should be one of"):
        T.AutoAugment("cifar10")


def test_augmenters_reproducible_on_uint8_tensors():
    t = chw(rgb_array(24, 24))
    for aug in (T.AutoAugment(), T.RandAugment(), T.TrivialAugmentWide(), T.RandAugment(fill=128)):
        flow.manual_seed(31)
        a = [aug(t).numpy() for _ in range(6)]
        flow.manual_seed(31)
        b = [aug(t).numpy() for _ in range(6)]
        for x, y in zip(a, b):
            np.testing.assert_array_equal(x, y)
        assert all(x.dtype == np.uint8 and x.shape == (3, 24, 24) for x in a)


# --- Mixup / CutMix -------------------------------------------------------------------------


def test_beta_sampler_distribution():
    from scipy import stats

    for alpha in (0.2, 1.0, 3.0):
        flow.manual_seed(0)
        xs = np.array([sample_beta(alpha, alpha) for _ in range(1500)])
        assert stats.kstest(xs, stats.beta(alpha, alpha).cdf).pvalue > 1e-3, alpha


def test_mixup():
    x = flow.rand(4, 3, 5, 5)
    y = flow.tensor([0, 2, 1, 2])
    mix = T.Mixup(alpha=0.4, num_classes=3)
    flow.manual_seed(6)
    mx, my = mix(x, y)
    flow.manual_seed(6)
    lam = sample_beta(0.4, 0.4)
    xr = x.numpy()
    np.testing.assert_allclose(mx.numpy(), lam * xr + (1 - lam) * np.roll(xr, 1, axis=0), atol=1e-6)
    onehot = np.eye(3, dtype=np.float32)[y.numpy()]
    np.testing.assert_allclose(my.numpy(), lam * onehot + (1 - lam) * np.roll(onehot, 1, axis=0), atol=1e-6)
    np.testing.assert_allclose(my.numpy().sum(1), 1.0, atol=1e-6)
    # p = 0: images untouched, targets one-hot (smoothed)
    out_x, out_y = T.Mixup(num_classes=3, p=0.0, label_smoothing=0.3)(x, y)
    assert out_x is x
    np.testing.assert_allclose(out_y.numpy(), onehot * 0.7 + 0.1, atol=1e-6)
    # soft targets chain (Mixup then CutMix)
    _, y2 = T.CutMix(num_classes=3)(*T.Mixup(num_classes=3)(x, y))
    np.testing.assert_allclose(y2.numpy().sum(1), 1.0, atol=1e-6)
    flow.manual_seed(1)
    applied = [not np.array_equal(T.Mixup(num_classes=3, p=0.5)(x, y)[0].numpy(), xr) for _ in range(100)]
    assert 25 < sum(applied) < 75
    # one of the two per batch, as usually combined
    either = T.RandomChoice([T.Mixup(num_classes=3), T.CutMix(num_classes=3)])
    mx, my = either(x, y)
    assert tuple(mx.shape) == (4, 3, 5, 5) and tuple(my.shape) == (4, 3)


def test_cutmix():
    x = flow.rand(3, 2, 10, 16)
    y = flow.tensor([0, 1, 3])
    cm = T.CutMix(alpha=1.0, num_classes=4)
    for seed in range(5):
        flow.manual_seed(seed)
        mx, my = cm(x, y)
        flow.manual_seed(seed)
        lam = sample_beta(1.0, 1.0)
        x1, y1, x2, y2 = T.CutMix.get_box(lam, 10, 16)
        ref = x.numpy().copy()
        ref[..., y1:y2, x1:x2] = np.roll(x.numpy(), 1, axis=0)[..., y1:y2, x1:x2]
        np.testing.assert_array_equal(mx.numpy(), ref)
        kept = 1 - (x2 - x1) * (y2 - y1) / 160
        onehot = np.eye(4, dtype=np.float32)[y.numpy()]
        np.testing.assert_allclose(my.numpy(), kept * onehot + (1 - kept) * np.roll(onehot, 1, axis=0), atol=1e-6)


def test_mix_errors():
    x, y = flow.rand(2, 3, 4, 4), flow.tensor([0, 1])
    with pytest.raises(TypeError, match="Mixup: expected floating-point images, got oneflow.uint8"):
        T.Mixup(num_classes=2)(x.to(flow.uint8), y)
    with pytest.raises(ValueError, match=r"CutMix: expected a batch of images of shape \(N, C, H, W\), got a 3-D"):
        T.CutMix(num_classes=2)(x[0], y)
    with pytest.raises(ValueError, match=r"Mixup: labels should be in \[0, 2\), got values in \[0, 5\]"):
        T.Mixup(num_classes=2)(x, flow.tensor([0, 5]))
    with pytest.raises(ValueError, match="Mixup: num_classes is needed to one-hot encode integer labels"):
        T.Mixup()(x, y)
    with pytest.raises(ValueError, match="Mixup: 3 labels for 2 images"):
        T.Mixup(num_classes=3)(x, flow.tensor([0, 1, 2]))
    with pytest.raises(ValueError, match="Mixup: alpha should be positive, got 0"):
        T.Mixup(alpha=0)
    with pytest.raises(TypeError, match=r"CutMix: expected \(images, labels\) oneflow tensors"):
        T.CutMix(num_classes=2)(x.numpy(), y)


def test_tensor_transforms_work_without_pillow():
    code = textwrap.dedent("""
        import sys
        sys.modules["PIL"] = None  # as if Pillow were not installed
        import oneflow as flow
        from flowvision import datasets, transforms as T
        x = flow.rand(3, 20, 20)
        pipe = T.Compose([T.RandomResizedCrop(8), T.RandomHorizontalFlip(), T.ColorJitter(0.3, 0.3, 0.3, 0.1),
                          T.Normalize([0.5] * 3, [0.5] * 3)])
        assert tuple(pipe(x).shape) == (3, 8, 8)
        for fn in (lambda: T.ToPILImage()(x), lambda: datasets.ImageFolder(datasets.TINY_IMAGEFOLDER)[0]):
            try:
                fn()
            except ImportError as e:
                assert "Pillow" in str(e), e
            else:
                raise AssertionError("no ImportError")
        try:
            T.Resize(4)(object())
        except TypeError as e:
            assert "Resize: expected a PIL image or a oneflow tensor image" in str(e), e
        print("ok")
    """)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr
