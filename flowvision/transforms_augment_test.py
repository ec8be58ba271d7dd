"""flowvision.transforms that combine or draw transforms (Compose and the random containers,
the AutoAugment family, Mixup/CutMix) against torchvision's documented semantics, with parameter
draws replayed from oneflow's generator after reseeding; tensor transforms without Pillow."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from PIL import Image
from transforms_testing import chw, pil_chw, rgb_array

import oneflow as flow
from flowvision import transforms as T
from flowvision.transforms import InterpolationMode
from flowvision.transforms._mix import sample_beta

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
    pipeline = T.Compose(
        [
            T.RandomResizedCrop(24),
            T.RandomHorizontalFlip(),
            T.ColorJitter(0.4, 0.4, 0.4, 0.1),
            T.RandomRotation(15),
            T.RandomGrayscale(0.3),
            T.PILToTensor(),
            T.RandomErasing(p=0.7),
        ]
    )
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
    ops = [
        "ShearX",
        "ShearY",
        "TranslateX",
        "TranslateY",
        "Rotate",
        "Brightness",
        "Color",
        "Contrast",
        "Sharpness",
        "Posterize",
        "Solarize",
        "AutoContrast",
        "Equalize",
        "Invert",
        "Identity",
    ]
    for op in ops:
        mag = {
            "Posterize": 4.0,
            "Solarize": 128.0,
            "ShearX": 0.3,
            "ShearY": 0.3,
            "Brightness": 0.5,
            "Color": 0.5,
            "Contrast": 0.5,
            "Sharpness": 0.5,
        }.get(op, 5.0)
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
