"""flowvision.transforms that convert or change values (to_tensor/to_pil_image, normalize, colour
adjustments, blur, erasing) against NumPy formulas, PIL's ImageEnhance/ImageOps, colorsys and
torch's conv2d (torch 2.13 is the test oracle)."""

import colorsys

import numpy as np
import pytest
import torch
from PIL import Image, ImageEnhance, ImageOps
from transforms_testing import RNG, chw, npy, pil_chw, rgb_array

import oneflow as flow
from flowvision import transforms as T
from flowvision.transforms import functional as F

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
    np.testing.assert_allclose(
        F.adjust_contrast(t, factor).numpy(), _blend_ref(xf, gray_f.mean(), factor, False), atol=1e-6
    )
    np.testing.assert_allclose(F.adjust_saturation(t, factor).numpy(), _blend_ref(xf, gray_f, factor, False), atol=1e-6)
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
    for fn, enh in [
        (F.adjust_brightness, ImageEnhance.Brightness),
        (F.adjust_contrast, ImageEnhance.Contrast),
        (F.adjust_saturation, ImageEnhance.Color),
        (F.adjust_sharpness, ImageEnhance.Sharpness),
    ]:
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
    np.testing.assert_allclose(
        F.adjust_gamma(flow.from_numpy(xf), 0.5, 1.2).numpy(), np.clip(1.2 * xf**0.5, 0, 1), rtol=1e-5
    )
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
                blurred[c, i, j] = (xf[c, i - 1 : i + 2, j - 1 : j + 2] * k).sum()
    for f in (0.0, 0.5, 2.0):
        np.testing.assert_allclose(
            F.adjust_sharpness(flow.from_numpy(xf), f).numpy(), _blend_ref(xf, blurred, f, False), atol=1e-6
        )


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
        factors = [
            float(flow.empty(1).uniform_(lo, hi).item()) for lo, hi in [(0.6, 1.4), (0.5, 1.5), (0.7, 1.3), (-0.1, 0.1)]
        ]
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
    xp = torch.nn.functional.pad(
        torch.from_numpy(u.astype(np.float32))[None], [ks[0] // 2, ks[0] // 2, ks[1] // 2, ks[1] // 2], mode="reflect"
    )
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
    ref[:, i : i + h, j : j + w] = np.array([0.1, 0.2, 0.3], np.float32)[:, None, None]
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
