"""flowvision.transforms that move pixels (resize, crops, flips, pad, rotation, affine) against
references: PIL's own operations, NumPy, and torch's interpolate/grid_sample (torch 2.13 is the
test oracle); random parameters replayed from oneflow's generator after reseeding."""

import math

import numpy as np
import pytest
import torch
from PIL import Image
from transforms_testing import RNG, chw, pil_chw, rgb_array

import oneflow as flow
from flowvision import transforms as T
from flowvision.transforms import InterpolationMode
from flowvision.transforms import functional as F

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


@pytest.mark.parametrize(
    "h,w,size,max_size,expected",
    [
        (20, 30, 10, None, (10, 15)),
        (30, 20, 10, None, (15, 10)),
        (21, 21, 8, None, (8, 8)),
        (20, 60, 10, 20, (6, 20)),
        (20, 60, [10], 40, (10, 30)),
        (20, 60, None, 30, (10, 30)),
        (17, 23, (5, 6), None, (5, 6)),
    ],
)
def test_resize_output_size(h, w, size, max_size, expected):
    img = Image.fromarray(rgb_array(h, w))
    out = F.resize(img, size, max_size=max_size)
    assert out.size == (expected[1], expected[0])
    t = F.resize(chw(rgb_array(h, w)), size, max_size=max_size)
    assert tuple(t.shape) == (3, *expected)


def _torch_resize(arr_chw, size, mode, antialias, uint8):
    x = torch.from_numpy(arr_chw.astype(np.float32))[None]
    align = False if mode in ("bilinear", "bicubic") else None
    y = torch.nn.functional.interpolate(
        x, size=size, mode=mode, align_corners=align, antialias=antialias and mode in ("bilinear", "bicubic")
    )[0]
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


@pytest.mark.parametrize(
    "transform",
    [
        T.RandomHorizontalFlip(p=0.0),
        T.RandomVerticalFlip(p=0.0),
        T.RandomCrop(2),
        T.RandomResizedCrop(2),
        T.RandomRotation(0),
        T.RandomAffine(0),
        T.RandomGrayscale(p=0.0),
        T.ColorJitter(0.1),
        T.GaussianBlur(3),
        T.RandomInvert(p=0.0),
        T.RandomPosterize(4, p=0.0),
        T.AutoAugment(),
        T.RandAugment(),
        T.TrivialAugmentWide(),
        T.CenterCrop(2),
        T.Pad(1),
        T.Resize(2),
        T.Grayscale(),
    ],
    ids=lambda t: type(t).__name__,
)
def test_wrong_input_type_names_the_transform(transform):
    name = type(transform).__name__
    # checked before any random draw, so a transform that would not fire still reports it
    with pytest.raises(
        TypeError,
        match=f"{name}: expected a PIL image or a oneflow tensor image, got numpy.ndarray "
        r"\(convert NumPy arrays with ToTensor or ToPILImage first\)",
    ):
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
    ref = ref[top : top + ch, left : left + cw]
    np.testing.assert_array_equal(T.CenterCrop(size)(chw(arr)).numpy(), ref.transpose(2, 0, 1))
    np.testing.assert_array_equal(np.asarray(T.CenterCrop(size)(Image.fromarray(arr))), ref)


def test_crop_out_of_bounds_is_zero():
    arr = rgb_array(8, 9)
    ref = np.pad(arr, ((3, 4), (2, 5), (0, 0)))[3 - 2 : 3 - 2 + 12, 2 + 4 : 2 + 4 + 7]
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
    cropped = arr[max(-top, 0) : 6 - max(-bottom, 0), max(-left, 0) : 8 - max(-right, 0)]
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
        np.testing.assert_array_equal(out, arr[i : i + 10, j : j + 12].transpose(2, 0, 1))
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
    ref = np.pad(arr, ((2, 2), (2, 2), (0, 0)), mode="edge")[i : i + 8, j : j + 8]
    np.testing.assert_array_equal(out, ref.transpose(2, 0, 1))
    # pad_if_needed pads both ends of a short side by its shortfall (as torchvision), then crops
    small = rgb_array(5, 6)
    out = T.RandomCrop((9, 10), pad_if_needed=True, fill=7)(Image.fromarray(small))
    ref = np.pad(small, ((4, 4), (4, 4), (0, 0)), constant_values=7)
    assert out.size == (10, 9)
    assert np.asarray(out).sum() > 0 and (np.asarray(out) == 7).any()
    # the result is a window of the padded image
    found = any(np.array_equal(np.asarray(out), ref[a : a + 9, b : b + 10]) for a in range(5) for b in range(5))
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
        ref = F.resize(flow.from_numpy(arr[i : i + h, j : j + w].transpose(2, 0, 1).copy()), [16, 20])
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


@pytest.mark.parametrize(
    "params",
    [
        dict(angle=25.0, translate=[2, -1], scale=1.2, shear=[10.0, -5.0]),
        dict(angle=-40.0, translate=[0, 3], scale=0.7, shear=[0.0, 20.0]),
        dict(angle=0.0, translate=[0, 0], scale=1.0, shear=[30.0, 0.0], center=[0, 0]),
    ],
)
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
