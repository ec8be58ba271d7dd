"""oneflow.save / oneflow.load: round trips, sharing, atomic writes, damaged files, weights_only.

Where PyTorch defines the behaviour (which tensors share memory after loading,
strides, requires_grad, what weights_only accepts, map_location calls, file
modes) the same structure goes through torch.save / torch.load and both
results are compared. Damaged files are checked exhaustively for a small
checkpoint: every truncation and three bit flips at every byte must raise a
RuntimeError naming the file, or (for bytes zipfile never reads, such as dates)
load exactly the saved values.
"""

import collections
import datetime
import fractions
import io
import json
import os
import pathlib
import pickle
import stat
import time
import tracemalloc
import zipfile

import numpy as np
import pytest
import torch

import oneflow as flow
from oneflow import serialization


def roundtrip(obj, **load_kwargs):
    buf = io.BytesIO()
    flow.save(obj, buf)
    buf.seek(0)
    return flow.load(buf, **load_kwargs)


def torch_roundtrip(obj, **load_kwargs):
    buf = io.BytesIO()
    torch.save(obj, buf)
    buf.seek(0)
    return torch.load(buf, **load_kwargs)


def bits(t) -> np.ndarray:
    """The raw bit patterns of a tensor's values (so NaN payloads and -0.0 count)."""
    if t.dtype == flow.bfloat16:
        return t.float().numpy().view(np.uint32) >> 16  # bfloat16 -> float32 is exact
    a = t.detach().numpy()
    return a.view(f"u{a.itemsize}") if a.dtype != np.bool_ else a.view(np.uint8)


def values(t) -> np.ndarray:
    t = t.detach()
    return (t.float() if t.dtype == flow.bfloat16 else t).numpy().copy()


# ---- tensors of every dtype -----------------------------------------------------------------

FLOAT_SPECIALS = [0.0, -0.0, 1.5, -2.25, float("inf"), float("-inf"), float("nan"), 1e-3, 65504.0]
DTYPE_VALUES = {
    flow.float32: FLOAT_SPECIALS + [3.4e38, 1e-40],
    flow.float64: FLOAT_SPECIALS + [1e308, 5e-324],
    flow.float16: FLOAT_SPECIALS + [6e-8],
    flow.bfloat16: FLOAT_SPECIALS + [3.0e38, 1e-39],
    flow.int8: [-128, 127, 0, -1],
    flow.uint8: [0, 255, 128, 1],
    flow.int16: [-32768, 32767, 0, -1],
    flow.int32: [-(2**31), 2**31 - 1, 0, -1],
    flow.int64: [-(2**63), 2**63 - 1, 0, -1],
    flow.bool: [True, False, True],
}


@pytest.mark.parametrize("dtype", list(DTYPE_VALUES), ids=str)
def test_every_dtype_round_trips_bit_exactly(dtype):
    vals = DTYPE_VALUES[dtype]
    if dtype.is_floating_point:
        src = flow.tensor(vals, dtype=flow.float64).to(dtype)
    else:
        src = flow.tensor(vals, dtype=dtype)
    src = src.reshape(1, -1).expand(2, -1).contiguous()
    out = roundtrip({"t": src, "z": src[0, 1], "e": src[:0]})
    for key, ref in [("t", src), ("z", src[0, 1]), ("e", src[:0])]:
        got = out[key]
        assert got.dtype == dtype and tuple(got.shape) == tuple(ref.shape)
        np.testing.assert_array_equal(bits(got), bits(ref))
    assert out["z"].dim() == 0 and out["e"].numel() == 0


@pytest.mark.parametrize("shape", [(), (0,), (2, 0, 3), (0, 0), (1,), (1, 1, 1)])
def test_zero_dim_and_empty_shapes(shape):
    src = flow.full(shape, 7, dtype=flow.int32) if shape else flow.tensor(7, dtype=flow.int32)
    out = roundtrip(src)
    ref = torch_roundtrip(torch.full(shape, 7, dtype=torch.int32))
    assert tuple(out.shape) == tuple(ref.shape) == shape
    assert out.dtype == flow.int32
    np.testing.assert_array_equal(out.numpy(), ref.numpy())


def _views(m):
    x = m.arange(60, dtype=m.float32).reshape(3, 4, 5)
    return {
        "transpose": x.transpose(0, 2),
        "step": x[:, ::2, 1::3],
        "expand": x[0, :1].expand(3, 5),
        "narrow": x.narrow(1, 1, 2),
        "select": x[1],
        "permute": x.permute(1, 2, 0)[1:],
        "diag": x[0].diagonal(),
    }


def test_non_contiguous_views_keep_values_and_strides_like_torch():
    ours = roundtrip(_views(flow))
    theirs = torch_roundtrip(_views(torch))
    for key, ref in theirs.items():
        got = ours[key]
        assert tuple(got.shape) == tuple(ref.shape), key
        assert tuple(got.stride()) == tuple(ref.stride()), key
        assert got.is_contiguous() == ref.is_contiguous(), key
        np.testing.assert_array_equal(got.numpy(), ref.numpy(), err_msg=key)


def _shared(m):
    x = m.arange(24, dtype=m.float32).reshape(4, 6)
    y = m.arange(5, dtype=m.float32)
    other = x.clone()
    return {
        "x": x,
        "row": x[1],
        "col": x[:, 2],
        "t": x.t(),
        "tail": x.reshape(-1)[20:],
        "y": y,
        "y_view": y[1:3],
        "other": other,
        "nested": [x[2:], {"y_again": y}],
    }


def _sharing(load_fn):
    """For each saved tensor: which others see a write through it after loading."""
    flat = lambda d: {
        **{k: v for k, v in d.items() if k != "nested"},
        "x2": d["nested"][0],
        "y2": d["nested"][1]["y_again"],
    }
    keys = sorted(flat(load_fn()))
    seen = {}
    for k in keys:
        loaded = flat(load_fn())
        before = {j: loaded[j].numpy().copy() for j in keys}
        loaded[k].fill_(-1.0)
        seen[k] = sorted(j for j in keys if j != k and not np.array_equal(loaded[j].numpy(), before[j]))
    return seen


def test_views_sharing_storage_stay_shared_like_torch():
    buf = io.BytesIO()
    flow.save(_shared(flow), buf)
    tbuf = io.BytesIO()
    torch.save(_shared(torch), tbuf)

    def ours():
        buf.seek(0)
        return flow.load(buf)

    def theirs():
        tbuf.seek(0)
        return torch.load(tbuf)

    got, want = _sharing(ours), _sharing(theirs)
    assert got == want
    assert want["row"] == ["col", "t", "x"] and want["y"] == ["y2", "y_view"]  # the check sees sharing
    # The same object saved twice loads as one object, as in torch.
    loaded, loaded_torch = ours(), theirs()
    assert loaded["y"] is loaded["nested"][1]["y_again"]
    assert loaded_torch["y"] is loaded_torch["nested"][1]["y_again"]


def test_small_view_of_a_large_tensor_saves_only_its_span():
    big = flow.zeros(1 << 20)
    big[10:12] = flow.tensor([3.0, 4.0])
    buf = io.BytesIO()
    flow.save(big[10:12], buf)
    assert len(buf.getvalue()) < 4096  # not the 4 MiB buffer (torch would save all of it)
    buf.seek(0)
    np.testing.assert_array_equal(flow.load(buf).numpy(), [3.0, 4.0])


# ---- Parameters, requires_grad, attributes --------------------------------------------------


@pytest.mark.parametrize("weights_only", [True, False])
def test_parameters_stay_parameters(weights_only):
    p = flow.nn.Parameter(flow.randn(3, 2))
    frozen = flow.nn.Parameter(flow.randn(2), requires_grad=False)
    out = roundtrip({"p": p, "frozen": frozen, "row": p[1]}, weights_only=weights_only)
    assert type(out["p"]) is flow.nn.Parameter and out["p"].requires_grad and out["p"].is_leaf
    assert type(out["frozen"]) is flow.nn.Parameter and not out["frozen"].requires_grad
    assert type(out["row"]) is flow.Tensor
    np.testing.assert_array_equal(out["p"].detach().numpy(), p.detach().numpy())
    with flow.no_grad():
        out["p"].fill_(5.0)
    np.testing.assert_array_equal(out["row"].detach().numpy(), [5.0, 5.0])  # still shares p's memory


def test_requires_grad_and_leaves_like_torch():
    def make(m):
        x = m.ones(3, requires_grad=True)
        y = x * 2
        return {"x": x, "y": y, "y0": y[0], "plain": m.ones(2), "int": m.arange(3)}

    ours, theirs = roundtrip(make(flow)), torch_roundtrip(make(torch))
    for key in theirs:
        assert ours[key].requires_grad == theirs[key].requires_grad, key
        assert ours[key].is_leaf == theirs[key].is_leaf, key
        assert ours[key].grad_fn is None


def test_tensor_attributes_are_kept_like_torch():
    def make(m):
        t = m.ones(2)
        t.note = "hello"
        p = m.nn.Parameter(m.zeros(1))
        p.tag = [1, 2]
        return t, p

    ours, theirs = roundtrip(make(flow)), torch_roundtrip(make(torch))
    assert ours[0].note == theirs[0].note == "hello"
    assert ours[1].tag == theirs[1].tag == [1, 2]


# ---- containers and state dicts --------------------------------------------------------------


def test_nested_containers_round_trip_with_the_default_weights_only():
    arrays = {str(dt): (np.arange(6) % 3).astype(dt).reshape(2, 3) for dt in ["f4", "f8", "f2", "i1", "u1", "i8", "?"]}
    obj = {
        "list": [1, 2.5, -3, None, True, "text", b"\x00\xffbytes", 1 + 2j],
        "tuple": (flow.ones(2), (flow.zeros(1), "x")),
        "od": collections.OrderedDict([("z", 1), ("a", flow.tensor([2])), ("m", None)]),
        "set": {1, 2, 3},
        "counter": collections.Counter("abca"),
        "bytearray": bytearray(b"ab"),
        "arrays": arrays,
        "fortran": np.asfortranarray(np.arange(6.0).reshape(2, 3)),
        "big_endian": np.arange(4, dtype=">i4"),
        "scalar0d": np.array(3.5),
        "np_scalars": [np.float32(1.5), np.int64(-4), np.bool_(True)],
        "dtype": flow.bfloat16,
        "device": flow.device("cpu"),
        "size": flow.Size([2, 3]),
        "empty": {},
        3: "int key",
        (1, "k"): "tuple key",
    }
    out = roundtrip(obj)
    assert list(out) == list(obj)
    assert out["list"] == obj["list"]
    assert isinstance(out["tuple"], tuple) and isinstance(out["tuple"][1], tuple)
    assert type(out["od"]) is collections.OrderedDict and list(out["od"]) == ["z", "a", "m"]
    assert out["set"] == {1, 2, 3} and out["counter"] == collections.Counter("abca")
    assert out["bytearray"] == bytearray(b"ab")
    for key, a in arrays.items():
        got = out["arrays"][key]
        assert type(got) is np.ndarray and got.dtype == a.dtype and got.shape == a.shape
        np.testing.assert_array_equal(got, a)
        got[0, 0] = 1  # writable, as unpickled arrays are
    np.testing.assert_array_equal(out["fortran"], obj["fortran"])
    np.testing.assert_array_equal(out["big_endian"], np.arange(4))
    assert out["scalar0d"].shape == () and out["scalar0d"] == 3.5
    assert out["np_scalars"] == obj["np_scalars"] and type(out["np_scalars"][0]) is np.float32
    assert out["dtype"] == flow.bfloat16 and out["device"] == flow.device("cpu")
    assert out["size"] == flow.Size([2, 3]) and type(out["size"]) is flow.Size
    assert out[3] == "int key" and out[(1, "k")] == "tuple key"


def test_same_array_saved_twice_loads_as_one_object():
    a = np.arange(3.0)
    out = roundtrip([a, a, np.arange(3.0)])
    assert out[0] is out[1] and out[2] is not out[0]


def _mlp(m):
    return m.nn.Sequential(m.nn.Linear(5, 8), m.nn.BatchNorm1d(8), m.nn.ReLU(), m.nn.Linear(8, 3))


def test_model_state_dict_round_trip_reproduces_outputs(tmp_path):
    flow.manual_seed(0)
    model = _mlp(flow)
    model.train()
    model(flow.randn(16, 5))  # moves the BatchNorm running statistics
    model.eval()
    path = tmp_path / "model.pt"
    flow.save(model.state_dict(), path)
    loaded = flow.load(path)
    assert type(loaded) is collections.OrderedDict and list(loaded) == list(model.state_dict())
    flow.manual_seed(1)
    fresh = _mlp(flow).eval()
    x = flow.randn(4, 5)
    assert not np.array_equal(fresh(x).detach().numpy(), model(x).detach().numpy())
    fresh.load_state_dict(loaded)
    np.testing.assert_array_equal(fresh(x).detach().numpy(), model(x).detach().numpy())


def test_torch_state_dict_as_numpy_feeds_load_state_dict(tmp_path):
    torch.manual_seed(0)
    tmodel = _mlp(torch)
    tmodel.train()
    tmodel(torch.randn(16, 5))
    tmodel.eval()
    path = str(tmp_path / "converted.pt")
    flow.save({k: v.numpy() for k, v in tmodel.state_dict().items()}, path)
    loaded = flow.load(path)
    assert loaded["1.num_batches_tracked"].shape == () and loaded["1.num_batches_tracked"].dtype == np.int64
    model = _mlp(flow).eval()
    model.load_state_dict(loaded)
    x = np.random.default_rng(0).standard_normal((4, 5)).astype(np.float32)
    want = tmodel(torch.from_numpy(x)).detach().numpy()
    np.testing.assert_allclose(model(flow.from_numpy(x)).detach().numpy(), want, rtol=1e-5, atol=1e-6)


def _train(model, opt, batches):
    for x, y in batches:
        opt.zero_grad()
        ((model(x) - y) ** 2).mean().backward()
        opt.step()


@pytest.mark.parametrize("opt_cls", ["Adam", "SGD"])
def test_optimizer_state_resumes_training_exactly(tmp_path, opt_cls):
    rng = np.random.default_rng(0)
    batches = [
        (
            flow.tensor(rng.standard_normal((8, 5)), dtype=flow.float32),
            flow.tensor(rng.standard_normal((8, 3)), dtype=flow.float32),
        )
        for _ in range(6)
    ]
    kwargs = {"lr": 0.05, "amsgrad": True} if opt_cls == "Adam" else {"lr": 0.05, "momentum": 0.9, "nesterov": True}
    make_opt = lambda model: getattr(flow.optim, opt_cls)(model.parameters(), **kwargs)

    flow.manual_seed(0)
    straight = _mlp(flow)
    opt = make_opt(straight)
    _train(straight, opt, batches)

    flow.manual_seed(0)
    first = _mlp(flow)
    opt = make_opt(first)
    _train(first, opt, batches[:3])
    flow.save({"model": first.state_dict(), "opt": opt.state_dict()}, tmp_path / "ckpt.pt")

    flow.manual_seed(5)  # different initial weights: everything must come from the checkpoint
    resumed = _mlp(flow)
    opt = make_opt(resumed)
    ckpt = flow.load(tmp_path / "ckpt.pt")
    resumed.load_state_dict(ckpt["model"])
    opt.load_state_dict(ckpt["opt"])
    _train(resumed, opt, batches[3:])

    for (name, a), b in zip(straight.state_dict().items(), resumed.state_dict().values()):
        np.testing.assert_array_equal(a.numpy(), b.numpy(), err_msg=name)


# ---- map_location ----------------------------------------------------------------------------


@pytest.mark.parametrize("where", ["cpu", flow.device("cpu"), {"cpu": "cpu"}, {"cuda:0": "cpu"}, None])
def test_map_location_to_cpu(where):
    out = roundtrip({"a": flow.arange(4.0), "e": flow.zeros(0)}, map_location=where)
    assert out["a"].device == flow.device("cpu") and out["e"].device == flow.device("cpu")
    np.testing.assert_array_equal(out["a"].numpy(), [0, 1, 2, 3])


def test_map_location_callable_sees_each_storage_once_like_torch():
    def make(m):
        x = m.arange(6, dtype=m.float32)
        return {"a": x, "b": x[1:3], "d": m.ones(2), "e": m.zeros(0)}

    ours, theirs = [], []
    out = roundtrip(make(flow), map_location=lambda s, loc: ours.append((s.numel() * s.element_size(), loc)))
    torch_roundtrip(make(torch), map_location=lambda s, loc: theirs.append((s.nbytes(), loc)))
    # torch also calls it for the empty tensor's storage, which we do not save.
    assert sorted(ours) == sorted(c for c in theirs if c[0]) == [(8, "cpu"), (24, "cpu")]
    np.testing.assert_array_equal(out["b"].numpy(), [1, 2])

    doubled = roundtrip(make(flow), map_location=lambda s, loc: s * 2)
    np.testing.assert_array_equal(doubled["b"].numpy(), [2, 4])
    with pytest.raises(TypeError, match="map_location"):
        roundtrip(make(flow), map_location=lambda s, loc: "nope")


def test_map_location_to_an_unavailable_device_says_so():
    try:
        flow.ones(1).to("cuda")
    except RuntimeError:
        with pytest.raises(RuntimeError, match="map_location='cpu'"):
            roundtrip(flow.ones(2), map_location={"cpu": "cuda"})
    else:  # pragma: no cover - CUDA builds
        assert roundtrip(flow.ones(2), map_location="cuda").device.type == "cuda"


# ---- files -------------------------------------------------------------------------------------


def test_paths_file_objects_and_unseekable_streams(tmp_path):
    obj = {"w": flow.randn(3, 3), "n": np.arange(3)}

    def check(out):
        np.testing.assert_array_equal(out["w"].numpy(), obj["w"].numpy())
        np.testing.assert_array_equal(out["n"], obj["n"])

    flow.save(obj, str(tmp_path / "a.pt"))
    check(flow.load(str(tmp_path / "a.pt")))
    flow.save(obj, tmp_path / "b.pt")
    check(flow.load(pathlib.Path(tmp_path / "b.pt")))
    with open(tmp_path / "c.pt", "wb") as f:
        flow.save(obj, f)
    with open(tmp_path / "c.pt", "rb") as f:
        check(flow.load(f))

    class WriteOnly:  # no seek/tell: zipfile writes data descriptors
        def __init__(self):
            self.chunks = []

        def write(self, b):
            self.chunks.append(bytes(b))
            return len(b)

        def flush(self):
            pass

    class ReadOnly:
        def __init__(self, data):
            self.buf = io.BytesIO(data)

        def read(self, n=-1):
            return self.buf.read(n)

    w = WriteOnly()
    flow.save(obj, w)
    check(flow.load(ReadOnly(b"".join(w.chunks))))


def test_bad_targets():
    with pytest.raises(TypeError, match="save"):
        flow.save(1, 123)
    with pytest.raises(TypeError, match="load"):
        flow.load(123)
    with pytest.raises(RuntimeError, match="Parent directory .* does not exist") as ours:
        flow.save(1, "/nonexistent-dir-for-oneflow/x.pt")
    with pytest.raises(RuntimeError) as theirs:
        torch.save(1, "/nonexistent-dir-for-oneflow/x.pt")
    assert str(ours.value) == str(theirs.value)
    with pytest.raises(FileNotFoundError):
        flow.load("/nonexistent-dir-for-oneflow/x.pt")
    with pytest.raises(NotImplementedError, match="mmap"):
        flow.load(io.BytesIO(), mmap=True)


def test_same_object_saves_the_same_bytes():
    def save_bytes():
        buf = io.BytesIO()
        flow.save({"w": flow.arange(10.0), "v": np.ones(3)}, buf)
        return buf.getvalue()

    assert save_bytes() == save_bytes()


def test_format_matches_the_module_docstring():
    src = flow.arange(12, dtype=flow.float32).reshape(3, 4)
    view = src[1:, ::2]
    buf = io.BytesIO()
    flow.save({"view": view, "array": np.arange(3, dtype=np.int16)}, buf)
    with zipfile.ZipFile(io.BytesIO(buf.getvalue())) as zf:
        names = zf.namelist()
        assert names[:4] == ["archive/format", "archive/byteorder", "archive/data.pkl", "archive/storages.json"]
        assert all(i.compress_type == zipfile.ZIP_STORED for i in zf.infolist())
        assert zf.read("archive/format") == b"oneflow.save 1" and zf.read("archive/byteorder") == b"little"
        table = json.loads(zf.read("archive/storages.json"))
        pids = []

        class Reader(pickle.Unpickler):
            def persistent_load(self, pid):
                pids.append(pid)
                return pid

        obj = Reader(io.BytesIO(zf.read("archive/data.pkl"))).load()
        tensor_pid, array_pid = obj["view"], obj["array"]
        kind, _, key, dtype, shape, stride, offset, requires_grad, cls, attrs = tensor_pid
        assert (kind, dtype, shape, stride, requires_grad, cls, attrs) == (
            "tensor",
            "float32",
            (2, 2),
            (4, 2),
            False,
            None,
            None,
        )
        entry = table[key]
        assert set(entry) == {"dtype", "offset", "numel", "nbytes", "device"}
        assert entry["dtype"] == "float32" and entry["device"] == "cpu" and entry["nbytes"] == 4 * entry["numel"]
        # The data entry holds the span elements [offset, offset + numel) of the buffer.
        assert (entry["offset"], entry["numel"]) == (4, 7)
        data = np.frombuffer(zf.read("archive/data/" + key), dtype="<f4")
        rebuilt = np.lib.stride_tricks.as_strided(
            data[offset - entry["offset"] :], shape, [s * 4 for s in stride], writeable=False
        )
        np.testing.assert_array_equal(rebuilt, view.numpy())
        assert array_pid[0] == "ndarray" and array_pid[3] == (3,)
        assert table[array_pid[2]]["dtype"] == "<i2"
        np.testing.assert_array_equal(np.frombuffer(zf.read("archive/data/" + array_pid[2]), "<i2"), [0, 1, 2])


# ---- atomic writes ------------------------------------------------------------------------------


def _listing(directory):
    return sorted(os.listdir(directory))


@pytest.mark.parametrize("failure", [OSError("disk full"), KeyboardInterrupt()])
def test_failed_save_keeps_the_previous_checkpoint(tmp_path, monkeypatch, failure):
    path = tmp_path / "ckpt.pt"
    flow.save({"w": flow.ones(1000)}, path)
    before = path.read_bytes()
    from oneflow import _checkpoint_save

    real_write = _checkpoint_save._write_storage

    def crash_midway(zf, name, data):
        real_write(zf, name, data[: data.nbytes // 2])  # half of the storage reaches the file
        raise failure

    monkeypatch.setattr(_checkpoint_save, "_write_storage", crash_midway)
    with pytest.raises(type(failure)):
        flow.save({"w": flow.zeros(1000)}, path)
    assert path.read_bytes() == before
    assert _listing(tmp_path) == ["ckpt.pt"]
    monkeypatch.undo()
    np.testing.assert_array_equal(flow.load(path)["w"].numpy(), np.ones(1000))


def test_unpicklable_object_fails_like_torch_and_leaves_no_trace(tmp_path):
    path = tmp_path / "ckpt.pt"
    flow.save({"epoch": 1}, path)
    before = path.read_bytes()
    for bad in [lambda: 1, (i for i in range(2))]:
        with pytest.raises(Exception) as theirs:
            torch.save({"t": torch.ones(1), "bad": bad}, io.BytesIO())
        with pytest.raises(type(theirs.value)):
            flow.save({"t": flow.ones(1), "bad": bad}, path)
        buf = io.BytesIO()
        with pytest.raises(type(theirs.value)):
            flow.save({"t": flow.ones(1), "bad": bad}, buf)
        assert buf.getvalue() == b""  # nothing reached the stream
    assert path.read_bytes() == before and _listing(tmp_path) == ["ckpt.pt"]


def test_save_writes_a_temp_file_fsyncs_and_renames(tmp_path, monkeypatch):
    events = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd):
        events.append(("fsync", os.readlink(f"/proc/self/fd/{fd}")))
        return real_fsync(fd)

    def replace(src, dst):
        events.append(("replace", os.fspath(src), os.fspath(dst)))
        return real_replace(src, dst)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)
    path = str(tmp_path / "ckpt.pt")
    flow.save({"w": flow.ones(3)}, path)
    monkeypatch.undo()
    assert [e[0] for e in events] == ["fsync", "replace", "fsync"]
    tmp = events[0][1]
    assert os.path.dirname(tmp) == str(tmp_path) and tmp != path
    assert events[1] == ("replace", tmp, path)
    assert events[2] == ("fsync", str(tmp_path))  # the directory entry is made durable too
    assert _listing(tmp_path) == ["ckpt.pt"]


def test_file_modes_and_symlinks_like_torch(tmp_path):
    old = os.umask(0o027)
    try:
        flow.save(1, tmp_path / "new.pt")
        torch.save(1, tmp_path / "new_torch.pt")
    finally:
        os.umask(old)
    mode = lambda p: stat.S_IMODE(os.stat(p).st_mode)
    assert mode(tmp_path / "new.pt") == mode(tmp_path / "new_torch.pt") == 0o640

    for name, save in [("ours", flow.save), ("torch", torch.save)]:
        target = tmp_path / f"{name}_target.pt"
        save(1, target)
        os.chmod(target, 0o600)
        save(2, target)  # an existing file keeps its mode
        assert mode(target) == 0o600
        link = tmp_path / f"{name}_link.pt"
        link.symlink_to(target)
        save(3, link)  # writes through the link
        assert link.is_symlink()
    assert flow.load(tmp_path / "ours_target.pt") == 3
    assert torch.load(tmp_path / "torch_target.pt") == 3


# ---- damaged files ------------------------------------------------------------------------------

SMALL = {
    "w": flow.arange(20, dtype=flow.float32).reshape(4, 5),
    "b": flow.tensor([1, 2, 3]),
    "n": np.arange(4.0),
    "s": "hello",
    "od": collections.OrderedDict(a=1),
}


def _small_bytes():
    buf = io.BytesIO()
    flow.save(SMALL, buf)
    return buf.getvalue()


def _equals_small(out):
    return (
        list(out) == list(SMALL)
        and all(out[k].dtype == SMALL[k].dtype and np.array_equal(out[k].numpy(), SMALL[k].numpy()) for k in "wb")
        and all(out[k].shape == SMALL[k].shape for k in "wb")
        and out["n"].dtype == SMALL["n"].dtype
        and np.array_equal(out["n"], SMALL["n"])
        and out["s"] == "hello"
        and out["od"] == SMALL["od"]
    )


def test_every_truncation_raises_naming_the_file(tmp_path):
    data = _small_bytes()
    path = tmp_path / "cut.pt"
    for n in range(len(data)):
        path.write_bytes(data[:n])
        with pytest.raises(RuntimeError, match="truncated or corrupt") as info:
            flow.load(path)
        assert str(path) in str(info.value), n


def test_every_bit_flip_raises_or_loads_the_saved_values():
    data = _small_bytes()
    outcomes = collections.Counter()
    for i in range(len(data)):
        for mask in (0x01, 0x80, 0xFF):
            damaged = bytearray(data)
            damaged[i] ^= mask
            try:
                out = flow.load(io.BytesIO(bytes(damaged)))
            except RuntimeError as e:
                assert "<BytesIO object>" in str(e), (i, mask, str(e))
                outcomes["raised"] += 1
            else:
                # Only bytes zipfile never reads (dates, local header copies) may change.
                assert _equals_small(out), (i, mask)
                outcomes["same"] += 1
    assert outcomes["raised"] > 2 * outcomes["same"]


@pytest.mark.parametrize(
    "content, message",
    [
        (b"", "truncated or corrupt"),
        (b"not a checkpoint at all" * 10, "truncated or corrupt"),
        (pickle.dumps({"a": 1}), "truncated or corrupt"),
    ],
)
def test_garbage_files(tmp_path, content, message):
    path = tmp_path / "bad.pt"
    path.write_bytes(content)
    with pytest.raises(RuntimeError, match=message):
        flow.load(path)


def test_torch_checkpoint_is_refused_with_a_hint(tmp_path):
    path = tmp_path / "torch.pt"
    torch.save({"w": torch.ones(2)}, path)
    with pytest.raises(RuntimeError, match="torch.save.*NumPy") as info:
        flow.load(path)
    assert str(path) in str(info.value)


class _PidBox:
    def __init__(self, pid):
        self.pid = pid


def _rewrite(data, edit_pickle=None, edit_table=None, replace=None):
    """A copy of the archive with edited (but checksum-valid) entries, as a crafted file would be."""
    src = zipfile.ZipFile(io.BytesIO(data))
    entries = {name: src.read(name) for name in src.namelist()}
    if edit_pickle is not None:

        class Reader(pickle.Unpickler):
            def persistent_load(self, pid):
                return _PidBox(pid)

        class Writer(pickle.Pickler):
            def persistent_id(self, obj):
                return obj.pid if isinstance(obj, _PidBox) else None

        obj = Reader(io.BytesIO(entries["archive/data.pkl"])).load()
        edit_pickle(obj)
        out = io.BytesIO()
        Writer(out, 2).dump(obj)
        entries["archive/data.pkl"] = out.getvalue()
    if edit_table is not None:
        table = json.loads(entries["archive/storages.json"])
        edit_table(table)
        entries["archive/storages.json"] = json.dumps(table).encode()
    entries.update(replace or {})
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zf:
        for name, content in entries.items():
            zf.writestr(name, content)
    return out.getvalue()


def _edit_tensor(field, value):
    names = ["kind", "index", "key", "dtype", "shape", "stride", "offset", "requires_grad", "cls", "attrs"]

    def edit(obj):
        pid = list(obj["w"].pid)
        pid[names.index(field)] = value
        obj["w"].pid = tuple(pid)

    return edit


def _set_storage(field, value):
    def edit(table):
        for entry in table.values():
            if entry["dtype"] == "float32":
                entry[field] = value

    return edit


@pytest.mark.parametrize(
    "crafted",
    [
        dict(edit_pickle=_edit_tensor("shape", (100, 5))),
        dict(edit_pickle=_edit_tensor("stride", (50, 1))),
        dict(edit_pickle=_edit_tensor("offset", -3)),
        dict(edit_pickle=_edit_tensor("offset", 1 << 62)),
        dict(edit_pickle=_edit_tensor("shape", ("4", 5))),
        dict(edit_pickle=_edit_tensor("stride", (5,))),
        dict(edit_pickle=_edit_tensor("dtype", "float33")),
        dict(edit_pickle=_edit_tensor("dtype", "float64")),
        dict(edit_pickle=_edit_tensor("key", "99")),
        dict(edit_pickle=_edit_tensor("key", None)),
        dict(edit_pickle=lambda o: (_edit_tensor("key", None)(o), _edit_tensor("shape", (1 << 31, 1 << 31))(o))),
        dict(edit_pickle=lambda o: o["b"].__setattr__("pid", ("tensor",) + o["b"].pid[1:7] + (True,) + o["b"].pid[8:])),
        dict(edit_pickle=lambda o: o.__setitem__("n", _PidBox(("ndarray", 7, o["n"].pid[2], (1 << 40,))))),
        dict(edit_pickle=lambda o: o.__setitem__("x", _PidBox(("what", 1)))),
        dict(edit_pickle=lambda o: o.__setitem__("x", _PidBox(("device", "tpu:x")))),
        dict(edit_table=_set_storage("numel", 1 << 60)),
        dict(edit_table=_set_storage("numel", 3)),
        dict(edit_table=_set_storage("numel", -1)),
        dict(edit_table=_set_storage("dtype", "nope")),
        dict(edit_table=lambda t: t.clear()),
        dict(replace={"archive/storages.json": b"{not json"}),
        dict(replace={"archive/storages.json": b"[]"}),
        dict(replace={"archive/byteorder": b"big"}),
        dict(replace={"archive/format": b"garbage"}),
    ],
)
def test_crafted_records_raise_instead_of_reading_out_of_bounds(crafted):
    with pytest.raises(RuntimeError, match="truncated or corrupt"):
        flow.load(io.BytesIO(_rewrite(_small_bytes(), **crafted)))


def test_newer_format_version_is_named():
    data = _rewrite(_small_bytes(), replace={"archive/format": b"oneflow.save 2"})
    with pytest.raises(RuntimeError, match="format version 'oneflow.save 2' is not supported"):
        flow.load(io.BytesIO(data))


# ---- weights_only ------------------------------------------------------------------------------


class Config:
    def __init__(self, lr):
        self.lr = lr

    def __eq__(self, other):
        return isinstance(other, Config) and other.lr == self.lr


class Payload:
    """Unpickling this runs os.makedirs: what weights_only must never do."""

    def __init__(self, path):
        self.path = path

    def __reduce__(self):
        return (os.makedirs, (self.path,))


class MyTensor(flow.Tensor):
    pass


ALLOWLIST_CASES = {
    "set": {1, 2},
    "frozenset": frozenset([1]),
    "bytes": b"xx",
    "bytearray": bytearray(b"x"),
    "complex": 1 + 2j,
    "counter": collections.Counter("aab"),
    "ordered": collections.OrderedDict(a=1),
    "defaultdict": collections.defaultdict(list, a=[1]),
    "slice": slice(1, 2),
    "range": range(3),
    "ellipsis": ...,
    "date": datetime.date(2020, 1, 1),
    "fraction": fractions.Fraction(1, 2),
    "config": Config(0.1),
    "object_array": np.array([1, "a"], dtype=object),
}


@pytest.mark.parametrize("name", list(ALLOWLIST_CASES))
def test_weights_only_allows_what_torch_allows(name):
    obj = ALLOWLIST_CASES[name]

    def accepted(rt):
        try:
            rt([obj])
        except pickle.UnpicklingError:
            return False
        return True

    assert accepted(roundtrip) == accepted(torch_roundtrip)
    out = roundtrip([obj], weights_only=False)[0]  # everything loads when trusted
    assert type(out) is type(obj)


def test_weights_only_is_the_default_and_refuses_code(tmp_path):
    target = tmp_path / "pwned"
    for load, save in [(flow.load, flow.save), (torch.load, torch.save)]:
        buf = io.BytesIO()
        save({"w": 1, "evil": Payload(str(target))}, buf)
        buf.seek(0)
        with pytest.raises(pickle.UnpicklingError, match="Weights only load failed"):
            load(buf)
        assert not target.exists()
    buf = io.BytesIO()
    flow.save({"evil": Payload(str(target))}, buf)
    buf.seek(0)
    with pytest.raises(pickle.UnpicklingError, match=r"posix\.makedirs|os\.makedirs"):
        flow.load(buf, weights_only=True)
    buf.seek(0)
    flow.load(buf, weights_only=False)
    assert target.is_dir()  # the payload is real: only the allowlist stopped it


def test_weights_only_and_tensor_subclasses():
    t = MyTensor(flow.ones(2))
    with pytest.raises(pickle.UnpicklingError, match="MyTensor"):
        roundtrip(t)
    out = roundtrip(t, weights_only=False)
    assert type(out) is MyTensor
    np.testing.assert_array_equal(out.numpy(), [1.0, 1.0])


def test_add_safe_globals():
    try:
        serialization.add_safe_globals([Config, MyTensor])
        assert serialization.get_safe_globals() == [Config, MyTensor]
        out = roundtrip({"cfg": Config(0.5), "t": MyTensor(flow.zeros(1))})
        assert out["cfg"] == Config(0.5) and type(out["t"]) is MyTensor
    finally:
        serialization.clear_safe_globals()
    assert serialization.get_safe_globals() == []
    with pytest.raises(pickle.UnpicklingError, match="Config"):
        roundtrip(Config(0.5))


def test_numpy_arrays_load_with_weights_only():
    # A deliberate extension: arrays of numbers are stored as raw data (not pickled NumPy
    # calls), so they load with weights_only=True, where torch.load refuses them.
    obj = {"w": np.ones((2, 2), np.float32)}
    with pytest.raises(pickle.UnpicklingError):
        torch_roundtrip(obj)
    np.testing.assert_array_equal(roundtrip(obj)["w"], obj["w"])


def test_pickle_module_like_torch():
    buf = io.BytesIO()
    flow.save({"cfg": Config(1.0)}, buf, pickle_module=pickle, pickle_protocol=4)
    buf.seek(0)
    with pytest.raises(RuntimeError) as theirs:
        torch.load(io.BytesIO(), pickle_module=pickle, weights_only=True)
    with pytest.raises(type(theirs.value), match="pickle_module"):
        flow.load(buf, pickle_module=pickle, weights_only=True)
    buf.seek(0)
    assert flow.load(buf, pickle_module=pickle) == {"cfg": Config(1.0)}  # weights_only defaults to False


# ---- large tensors ---------------------------------------------------------------------------------


def test_large_tensor_streams_without_big_copies(tmp_path):
    n = 16 << 20  # 64 MiB of float32
    src = flow.arange(n, dtype=flow.float32)
    path = tmp_path / "big.pt"
    tracemalloc.start()
    try:
        start = time.perf_counter()
        flow.save({"big": src, "tail": src[-3:]}, path)
        save_seconds = time.perf_counter() - start
        _, save_peak = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        start = time.perf_counter()
        out = flow.load(path)
        load_seconds = time.perf_counter() - start
        _, load_peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert os.path.getsize(path) < 4 * n + 4096  # stored once, uncompressed, no padding
    # Python-side buffers stay far below the 64 MiB payload (the tensor memory is not traced).
    assert save_peak < 8 << 20, save_peak
    assert load_peak < 12 << 20, load_peak
    assert save_seconds < 10 and load_seconds < 10
    assert out["big"].numel() == n and float(out["big"][-1]) == n - 1
    np.testing.assert_array_equal(out["big"][:: 1 << 16].numpy(), src[:: 1 << 16].numpy())
    out["big"][-1] = 0.0
    assert float(out["tail"][-1]) == 0.0
