"""flowvision.datasets: folder datasets on the bundled tiny tree and on temporary trees,
FakeData, and CIFAR/MNIST read from tiny files written here in the standard formats
(python-pickle batches, IDX files), with the errors for missing files, empty folders and
download=True."""

import gzip
import os
import pickle
import zipfile

import numpy as np
import pytest
from PIL import Image

import oneflow as flow
from flowvision import datasets as D
from flowvision import transforms as T
from flowvision.datasets.mnist import read_idx_file
from oneflow.utils.data import DataLoader, Dataset


def write_png(path, arr):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    Image.fromarray(arr).save(path)


def rgb(seed, h=6, w=5):
    return np.random.default_rng(seed).integers(0, 256, (h, w, 3), dtype=np.uint8)


# --- ImageFolder / DatasetFolder ------------------------------------------------------------


def test_bundled_tiny_imagefolder():
    assert os.path.isdir(D.TINY_IMAGEFOLDER)
    ds = D.ImageFolder(D.TINY_IMAGEFOLDER)
    assert isinstance(ds, Dataset)
    assert ds.classes == ["blue", "green", "red"]
    assert ds.class_to_idx == {"blue": 0, "green": 1, "red": 2}
    assert len(ds) == 6 and ds.targets == [0, 0, 1, 1, 2, 2]
    assert ds.imgs is ds.samples
    assert [os.path.relpath(p, D.TINY_IMAGEFOLDER) for p, _ in ds.samples] == [
        "blue/blue_0.png", "blue/blue_1.png", "green/green_0.png", "green/green_1.png", "red/red_0.png",
        "red/red_1.png"]
    total = 0
    for path, target in ds.samples:
        total += os.path.getsize(path)
        img, t = ds[ds.samples.index((path, target))]
        assert img.mode == "RGB" and img.size == (16, 16) and t == target
        np.testing.assert_array_equal(np.asarray(img), np.asarray(Image.open(path).convert("RGB")))
        # each class's images are dominated by its colour
        assert int(np.asarray(img).mean(axis=(0, 1)).argmax()) == {"red": 0, "green": 1, "blue": 2}[ds.classes[t]]
    assert total < 10_000
    text = repr(ds)
    assert "Number of datapoints: 6" in text and D.TINY_IMAGEFOLDER in text


def test_imagefolder_transforms_and_dataloader():
    ds = D.ImageFolder(D.TINY_IMAGEFOLDER, transform=T.Compose([T.Resize(8), T.ToTensor()]),
                       target_transform=lambda t: t * 10)
    img, target = ds[3]
    assert tuple(img.shape) == (3, 8, 8) and img.dtype == flow.float32 and target == 10
    loader = DataLoader(ds, batch_size=4, shuffle=False)
    batches = list(loader)
    assert [tuple(b[0].shape) for b in batches] == [(4, 3, 8, 8), (2, 3, 8, 8)]
    assert batches[0][1].tolist() == [0, 0, 10, 10]
    workers = list(DataLoader(ds, batch_size=6, num_workers=2))
    np.testing.assert_array_equal(workers[0][0].numpy(), flow.cat([b[0] for b in batches]).numpy())


def test_imagefolder_tree_rules(tmp_path):
    root = tmp_path / "data"
    write_png(str(root / "b_class" / "x.png"), rgb(0))
    write_png(str(root / "b_class" / "nested" / "deep" / "a.PNG"), rgb(1))
    write_png(str(root / "a_class" / "z.png"), rgb(2))
    Image.fromarray(rgb(3)).save(str(root / "a_class" / "y.jpg"))
    (root / "a_class" / "notes.txt").write_text("not an image")
    (root / "loose.png").write_bytes(b"files at the top level are not samples")
    os.makedirs(tmp_path / "elsewhere")
    write_png(str(tmp_path / "elsewhere" / "c.png"), rgb(4))
    os.symlink(tmp_path / "elsewhere", root / "c_link")
    ds = D.ImageFolder(str(root))
    assert ds.classes == ["a_class", "b_class", "c_link"]
    rel = [(os.path.relpath(p, root), t) for p, t in ds.samples]
    # folders in sorted order (a folder's own files before its subfolders'), files sorted within
    assert rel == [("a_class/y.jpg", 0), ("a_class/z.png", 0), ("b_class/x.png", 1),
                   ("b_class/nested/deep/a.PNG", 1), ("c_link/c.png", 2)]
    np.testing.assert_array_equal(np.asarray(ds[2][0]), rgb(0))
    only_png = D.ImageFolder(str(root), is_valid_file=lambda p: p.endswith(".png"))
    assert [os.path.basename(p) for p, _ in only_png.samples] == ["z.png", "x.png", "c.png"]
    gray = D.ImageFolder(str(root), loader=lambda p: Image.open(p).convert("L"))
    assert gray[0][0].mode == "L"


def test_datasetfolder_custom_loader(tmp_path):
    for cls, n in (("neg", 2), ("pos", 3)):
        os.makedirs(tmp_path / cls)
        for i in range(n):
            np.save(tmp_path / cls / f"{i}.npy", np.full((2, 2), i + (10 if cls == "pos" else 0)))
    (tmp_path / "pos" / "skip.txt").write_text("x")
    ds = D.DatasetFolder(str(tmp_path), loader=np.load, extensions=(".npy",))
    assert len(ds) == 5 and ds.classes == ["neg", "pos"] and ds.targets == [0, 0, 1, 1, 1]
    assert ds.extensions == (".npy",)
    x, y = ds[4]
    assert y == 1 and x.tolist() == [[12, 12], [12, 12]]
    with pytest.raises(ValueError, match="make_dataset: pass exactly one of extensions and is_valid_file"):
        D.DatasetFolder(str(tmp_path), loader=np.load, extensions=(".npy",), is_valid_file=lambda p: True)
    with pytest.raises(ValueError, match="make_dataset: pass exactly one of extensions and is_valid_file"):
        D.DatasetFolder(str(tmp_path), loader=np.load)


def test_empty_folders_raise(tmp_path):
    empty = tmp_path / "empty"
    os.makedirs(empty)
    with pytest.raises(FileNotFoundError, match=f"Couldn't find any class folder in {empty}"):
        D.ImageFolder(str(empty))
    os.makedirs(empty / "cats")
    os.makedirs(empty / "dogs")
    write_png(str(empty / "dogs" / "d.png"), rgb(0))
    (empty / "cats" / "readme.txt").write_text("no images here")
    with pytest.raises(FileNotFoundError) as info:
        D.ImageFolder(str(empty))
    msg = str(info.value)
    assert str(empty) in msg and "cats" in msg and "dogs" not in msg
    assert ".jpg" in msg and ".png" in msg and "supported extensions" in msg
    ds = D.ImageFolder(str(empty), allow_empty=True)
    assert ds.classes == ["cats", "dogs"] and ds.targets == [1]
    with pytest.raises(FileNotFoundError, match="Dataset folder .*missing does not exist"):
        D.ImageFolder(str(tmp_path / "missing"))
    with pytest.raises(FileNotFoundError, match=r"Found no valid file in .* for the classes cats, dogs \(supported "
                                                r"extensions are: \.npy\)"):
        D.DatasetFolder(str(empty), loader=np.load, extensions=(".npy",))


def test_extension_helpers():
    assert D.is_image_file("a/B.JPEG") and D.is_image_file("x.webp") and not D.is_image_file("x.gif")
    assert D.has_file_allowed_extension("f.TXT", ".txt") and not D.has_file_allowed_extension("f.txt", (".csv",))
    assert ".png" in D.IMG_EXTENSIONS


# --- FakeData -------------------------------------------------------------------------------


def test_fakedata():
    ds = D.FakeData(size=7, image_size=(3, 10, 12), num_classes=4)
    assert len(ds) == 7
    img, target = ds[2]
    assert img.mode == "RGB" and img.size == (12, 10) and 0 <= target < 4
    np.testing.assert_array_equal(np.asarray(ds[2][0]), np.asarray(img))  # the same sample every time
    assert not np.array_equal(np.asarray(ds[3][0]), np.asarray(img))
    # the recipe: a generator seeded with index + random_offset draws the image, then the label
    g = flow.Generator()
    g.manual_seed(2)
    ref = T.ToPILImage()(flow.randn(3, 10, 12, generator=g))
    assert target == int(flow.randint(0, 4, (1,), generator=g).item())
    np.testing.assert_array_equal(np.asarray(img), np.asarray(ref))
    shifted = D.FakeData(size=7, image_size=(3, 10, 12), num_classes=4, random_offset=1)
    np.testing.assert_array_equal(np.asarray(shifted[1][0]), np.asarray(img))
    assert ds[-1][1] == ds[6][1]
    with pytest.raises(IndexError, match="FakeData: index 7 out of range for 7 samples"):
        ds[7]
    targets = {D.FakeData(size=200, image_size=(1, 2, 2), num_classes=3)[i][1] for i in range(200)}
    assert targets == {0, 1, 2}
    assert D.FakeData(2, (1, 4, 4))[0][0].mode == "L"
    with pytest.raises(ValueError, match=r"FakeData: image_size should be \(C, H, W\)"):
        D.FakeData(2, (4, 4))


def test_fakedata_leaves_global_generator_alone():
    ds = D.FakeData(size=3, image_size=(3, 4, 4), transform=T.ToTensor())
    flow.manual_seed(5)
    a = flow.rand(3).tolist()
    flow.manual_seed(5)
    x, _ = ds[1]
    b = flow.rand(3).tolist()
    assert a == b
    assert tuple(x.shape) == (3, 4, 4)


# --- CIFAR ----------------------------------------------------------------------------------


def _pickle(path, obj):
    with open(path, "wb") as f:
        pickle.dump(obj, f)


def write_cifar10(root, per_batch=3, test=2, bytes_keys=False):
    folder = os.path.join(root, "cifar-10-batches-py")
    os.makedirs(folder)
    rng = np.random.default_rng(0)
    k = (lambda s: s.encode()) if bytes_keys else (lambda s: s)
    all_data, all_labels = [], []
    for i in range(1, 6):
        data = rng.integers(0, 256, (per_batch, 3072), dtype=np.uint8)
        labels = rng.integers(0, 10, per_batch).tolist()
        _pickle(os.path.join(folder, f"data_batch_{i}"), {k("data"): data, k("labels"): labels,
                                                          k("batch_label"): f"training batch {i} of 5"})
        all_data.append(data)
        all_labels += labels
    tdata = rng.integers(0, 256, (test, 3072), dtype=np.uint8)
    tlabels = rng.integers(0, 10, test).tolist()
    _pickle(os.path.join(folder, "test_batch"), {k("data"): tdata, k("labels"): tlabels})
    names = ["airplane", "automobile", "bird", "cat", "deer", "dog", "frog", "horse", "ship", "truck"]
    _pickle(os.path.join(folder, "batches.meta"), {k("label_names"): names, k("num_cases_per_batch"): per_batch})
    return np.concatenate(all_data), all_labels, tdata, tlabels, names


@pytest.mark.parametrize("bytes_keys", [False, True])
def test_cifar10(tmp_path, bytes_keys):
    data, labels, tdata, tlabels, names = write_cifar10(str(tmp_path), bytes_keys=bytes_keys)
    ds = D.CIFAR10(str(tmp_path), train=True)
    assert len(ds) == 15 and ds.targets == labels and ds.classes == names
    assert ds.class_to_idx["cat"] == 3
    assert ds.data.shape == (15, 32, 32, 3) and ds.data.dtype == np.uint8
    img, target = ds[7]
    assert img.mode == "RGB" and img.size == (32, 32) and target == labels[7]
    row = data[7]
    # each row holds the red plane, then green, then blue, each row-major 32x32
    arr = np.asarray(img)
    assert arr[0, 0].tolist() == [row[0], row[1024], row[2048]]
    assert arr[2, 5].tolist() == [row[2 * 32 + 5], row[1024 + 2 * 32 + 5], row[2048 + 2 * 32 + 5]]
    np.testing.assert_array_equal(arr, row.reshape(3, 32, 32).transpose(1, 2, 0))
    test = D.CIFAR10(str(tmp_path), train=False, transform=T.ToTensor())
    assert len(test) == 2 and test.targets == tlabels
    x, _ = test[1]
    np.testing.assert_allclose(x.numpy(), tdata[1].reshape(3, 32, 32) / 255.0, atol=1e-7)
    assert "Split: Test" in repr(test)


def test_cifar100(tmp_path):
    folder = tmp_path / "cifar-100-python"
    os.makedirs(folder)
    rng = np.random.default_rng(1)
    data = rng.integers(0, 256, (4, 3072), dtype=np.uint8)
    _pickle(folder / "train", {"data": data, "fine_labels": [5, 99, 0, 42], "coarse_labels": [1, 2, 3, 4]})
    _pickle(folder / "test", {"data": data[:1], "fine_labels": [7], "coarse_labels": [0]})
    fine = [f"class{i}" for i in range(100)]
    _pickle(folder / "meta", {"fine_label_names": fine, "coarse_label_names": [f"super{i}" for i in range(20)]})
    ds = D.CIFAR100(str(tmp_path))
    assert len(ds) == 4 and ds.targets == [5, 99, 0, 42] and len(ds.classes) == 100
    np.testing.assert_array_equal(np.asarray(ds[1][0]), data[1].reshape(3, 32, 32).transpose(1, 2, 0))
    assert D.CIFAR100(str(tmp_path), train=False).targets == [7]


def test_cifar_errors(tmp_path):
    with pytest.raises(RuntimeError) as info:
        D.CIFAR10(str(tmp_path))
    msg = str(info.value)
    assert "CIFAR10: dataset not found" in msg and os.path.join(str(tmp_path), "cifar-10-batches-py") in msg
    assert "data_batch_1" in msg and "test_batch" in msg
    with pytest.raises(RuntimeError) as info:
        D.CIFAR100(str(tmp_path), download=True)
    msg = str(info.value)
    assert "download=True is not supported" in msg and "network" in msg
    assert os.path.join(str(tmp_path), "cifar-100-python") in msg and "train" in msg
    folder = tmp_path / "cifar-10-batches-py"
    write_cifar10(str(tmp_path))
    _pickle(folder / "data_batch_3", {"data": np.zeros((2, 100), np.uint8), "labels": [0, 1]})
    with pytest.raises(RuntimeError, match=r"data_batch_3 holds data of shape \(2, 100\) with 2 labels"):
        D.CIFAR10(str(tmp_path))


# --- MNIST ----------------------------------------------------------------------------------


def write_idx(path, arr, gz=False):
    codes = {np.dtype(np.uint8): 0x08, np.dtype(np.int8): 0x09, np.dtype(">i2"): 0x0B, np.dtype(">i4"): 0x0C,
             np.dtype(">f4"): 0x0D, np.dtype(">f8"): 0x0E}
    header = bytes([0, 0, codes[arr.dtype], arr.ndim]) + b"".join(int(d).to_bytes(4, "big") for d in arr.shape)
    payload = header + arr.tobytes()
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with (gzip.open if gz else open)(path + (".gz" if gz else ""), "wb") as f:
        f.write(payload)


def write_mnist(root, name="MNIST", n_train=5, n_test=3, gz_train=True):
    raw = os.path.join(root, name, "raw")
    rng = np.random.default_rng(2)
    tr_x = rng.integers(0, 256, (n_train, 28, 28), dtype=np.uint8)
    tr_y = rng.integers(0, 10, n_train).astype(np.uint8)
    te_x = rng.integers(0, 256, (n_test, 28, 28), dtype=np.uint8)
    te_y = rng.integers(0, 10, n_test).astype(np.uint8)
    write_idx(os.path.join(raw, "train-images-idx3-ubyte"), tr_x, gz=gz_train)
    write_idx(os.path.join(raw, "train-labels-idx1-ubyte"), tr_y, gz=gz_train)
    write_idx(os.path.join(raw, "t10k-images-idx3-ubyte"), te_x)
    write_idx(os.path.join(raw, "t10k-labels-idx1-ubyte"), te_y)
    return tr_x, tr_y, te_x, te_y


@pytest.mark.parametrize("cls,name", [(D.MNIST, "MNIST"), (D.FashionMNIST, "FashionMNIST")])
def test_mnist(tmp_path, cls, name):
    tr_x, tr_y, te_x, te_y = write_mnist(str(tmp_path), name)
    ds = cls(str(tmp_path))
    assert len(ds) == 5
    assert ds.data.dtype == flow.uint8 and tuple(ds.data.shape) == (5, 28, 28)
    np.testing.assert_array_equal(ds.data.numpy(), tr_x)
    assert ds.targets.dtype == flow.int64 and ds.targets.tolist() == tr_y.tolist()
    img, target = ds[4]
    assert img.mode == "L" and img.size == (28, 28) and isinstance(target, int) and target == int(tr_y[4])
    np.testing.assert_array_equal(np.asarray(img), tr_x[4])
    test = cls(str(tmp_path), train=False, transform=T.ToTensor())
    x, t = test[2]
    assert tuple(x.shape) == (1, 28, 28) and t == int(te_y[2])
    np.testing.assert_allclose(x.numpy()[0], te_x[2] / 255.0, atol=1e-7)
    assert len(ds.classes) == 10 and ds.class_to_idx[ds.classes[7]] == 7
    assert ds.raw_folder == os.path.join(str(tmp_path), name, "raw")
    loader = DataLoader(test, batch_size=3)
    xb, yb = next(iter(loader))
    assert tuple(xb.shape) == (3, 1, 28, 28) and yb.tolist() == te_y.tolist()


def test_fashion_mnist_classes():
    assert D.FashionMNIST.classes[0] == "T-shirt/top" and D.FashionMNIST.classes[-1] == "Ankle boot"
    assert len(D.FashionMNIST.classes) == 10
    assert D.MNIST.classes[3] == "3 - three"


def test_mnist_errors(tmp_path):
    with pytest.raises(RuntimeError) as info:
        D.MNIST(str(tmp_path))
    msg = str(info.value)
    assert "train-images-idx3-ubyte" in msg and os.path.join(str(tmp_path), "MNIST", "raw") in msg
    with pytest.raises(RuntimeError) as info:
        D.FashionMNIST(str(tmp_path), download=True)
    msg = str(info.value)
    assert "download=True is not supported" in msg and "network" in msg
    assert os.path.join(str(tmp_path), "FashionMNIST", "raw") in msg and "t10k-labels-idx1-ubyte.gz" in msg
    raw = os.path.join(str(tmp_path), "MNIST", "raw")
    write_mnist(str(tmp_path))
    with open(os.path.join(raw, "t10k-images-idx3-ubyte"), "wb") as f:
        f.write(b"\x01\x02\x03\x04garbage")
    with pytest.raises(RuntimeError, match="t10k-images-idx3-ubyte is not an IDX file"):
        D.MNIST(str(tmp_path), train=False)
    write_idx(os.path.join(raw, "t10k-labels-idx1-ubyte"), np.zeros(7, np.uint8))
    write_idx(os.path.join(raw, "t10k-images-idx3-ubyte"), np.zeros((3, 28, 28), np.uint8))
    with pytest.raises(RuntimeError, match=r"holds shape \(3, 28, 28\) .* shape \(7,\)"):
        D.MNIST(str(tmp_path), train=False)
    with open(os.path.join(raw, "t10k-labels-idx1-ubyte"), "wb") as f:
        f.write(bytes([0, 0, 8, 1]) + (10).to_bytes(4, "big") + b"\x00" * 4)
    with pytest.raises(RuntimeError, match=r"header says shape \(10,\) \(10 bytes\) but 4 bytes follow"):
        D.MNIST(str(tmp_path), train=False)


@pytest.mark.parametrize("dtype", [np.uint8, np.int8, ">i2", ">i4", ">f4", ">f8"])
def test_read_idx_types(tmp_path, dtype):
    arr = (np.arange(24).reshape(2, 3, 4) - 5).astype(dtype) if dtype != np.uint8 else np.arange(24, dtype=np.uint8)
    write_idx(str(tmp_path / "f"), arr, gz=True)
    out = read_idx_file(str(tmp_path / "f.gz"))
    np.testing.assert_array_equal(out, arr)
    assert out.dtype.isnative


# --- packaging ------------------------------------------------------------------------------


def test_wheel_ships_the_tiny_imagefolder():
    with zipfile.ZipFile("flowvision/wheel.whl") as whl:
        names = set(whl.namelist())
    want = {f"flowvision/datasets/testdata/tiny_imagefolder/{c}/{c}_{i}.png" for c in ("blue", "green", "red")
            for i in (0, 1)}
    assert want <= names, sorted(want - names)
    assert "flowvision/datasets/folder.py" in names and "flowvision/transforms/functional.py" in names
