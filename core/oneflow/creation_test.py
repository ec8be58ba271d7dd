"""oneflow.tensor / from_numpy / zeros... checked against PyTorch."""

import numpy as np
import pytest
import torch

import oneflow as flow


def same(ours, theirs):
    """Asserts equal dtype name, shape and values of a oneflow and a torch tensor."""
    assert str(ours.dtype).replace("oneflow.", "") == str(theirs.dtype).replace("torch.", "")
    assert tuple(ours.shape) == tuple(theirs.shape)
    if theirs.dtype == torch.bfloat16:
        theirs = theirs.float()
        ours = ours.float()
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


@pytest.mark.parametrize(
    "data",
    [
        1,
        2.5,
        True,
        [],
        [[]],
        [1, 2, 3],
        [1.0, 2, 3],
        [True, False],
        [True, 2],
        [[1, 2], [3, 4]],
        [[[1.5]], [[2.5]]],
        ((1, 2), (3, 4)),
        [[1, 2.5], [True, 0]],
        -(2**63),
        2**62,
        [np.float32(1.5), 2],
        np.float64(1.5),
        np.int32(3),
        np.bool_(True),
        [np.float64(1.5)],
        [np.int32(1), 2],
        [np.int8(1), np.uint8(2)],
        [np.float16(1), 2],
        [np.float16(1), 2.5],
        [np.int16(3), True],
    ],
    ids=repr,
)
def test_tensor_infers_dtype_and_shape_like_torch(data):
    same(flow.tensor(data), torch.tensor(data))


@pytest.mark.parametrize(
    "np_dtype", [np.float64, np.float32, np.float16, np.int64, np.int32, np.int16, np.int8, np.uint8, np.bool_]
)
def test_tensor_from_ndarray_keeps_dtype_and_copies(np_dtype):
    a = (np.arange(12).reshape(3, 4) % 3).astype(np_dtype)
    t = flow.tensor(a)
    same(t, torch.tensor(a))
    a[0, 0] = 1
    assert t[0, 0].item() == 0  # a copy, unlike from_numpy


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float64", "int8", "uint8", "int16", "int32", "bool"])
def test_tensor_with_explicit_dtype_converts_like_torch(dtype):
    data = [[0.0, 1.7, -2.5], [3.33, 100.9, 0.1]]
    if dtype == "uint8":
        data = [[0.0, 1.7, 2.5], [3.33, 100.9, 0.1]]  # negative float -> uint8 is undefined in C
    same(flow.tensor(data, dtype=getattr(flow, dtype)), torch.tensor(data, dtype=getattr(torch, dtype)))


@pytest.mark.parametrize(
    "a, b",
    [(a, b) for a in ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"]
     for b in ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"]],
)
def test_promote_types_matches_torch(a, b):
    from oneflow._creation import promote_types

    want = str(torch.promote_types(getattr(torch, a), getattr(torch, b))).replace("torch.", "oneflow.")
    assert repr(promote_types(getattr(flow, a), getattr(flow, b))) == want


def test_tensor_of_tensors_and_requires_grad():
    t = flow.tensor([flow.tensor(1.5), flow.tensor(2.5)])
    same(t, torch.tensor([1.5, 2.5]))
    r = flow.tensor([1.0, 2.0], requires_grad=True)
    assert r.requires_grad
    with pytest.raises(RuntimeError, match="floating point"):
        flow.tensor([1, 2], requires_grad=True)


@pytest.mark.parametrize(
    "data, message",
    [
        ([[1, 2], [3]], "expected sequence of length 2 at dim 1 \\(got 1\\)"),
        ([[[1], [2]], [[3], [4, 5]]], "expected sequence of length 1 at dim 2 \\(got 2\\)"),
        ([[1, 2], 3], "at dim 1"),
        ([1, [2, 3]], "at dim 1"),
        (["a", "b"], "str"),
        ([1, "a"], "str"),
        ("abc", "str"),
        ([None], "NoneType"),
        ({1: 2}, "dict"),
        (None, "NoneType"),
    ],
    ids=repr,
)
def test_bad_data_raises_what_torch_raises(data, message):
    with pytest.raises(Exception) as theirs:
        torch.tensor(data)
    with pytest.raises(type(theirs.value), match=message):
        flow.tensor(data)


def test_bad_dtype_and_overflow():
    with pytest.raises(TypeError, match="dtype"):
        flow.tensor([1], dtype="float32")
    with pytest.raises(TypeError, match="dtype"):
        flow.zeros(2, dtype=np.float32)
    with pytest.raises(RuntimeError, match="int64"):
        flow.tensor([2**64])
    with pytest.raises(TypeError, match="size"):
        flow.ones()


def test_unknown_device_raises_runtime_error_naming_it():
    with pytest.raises(RuntimeError, match="tpu"):
        torch.zeros(2, device="tpu")
    with pytest.raises(RuntimeError, match="tpu"):
        flow.zeros(2, device="tpu")
    with pytest.raises(RuntimeError, match="cuda:x"):
        flow.device("cuda:x")


def test_from_numpy_shares_memory_both_ways():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    t = flow.from_numpy(a)
    assert t.dtype == flow.float32 and t.shape == (2, 3) and t.stride() == (3, 1)
    a[1, 2] = 42
    assert t[1, 2].item() == 42
    t.fill_(7)
    assert (a == 7).all()
    back = t.numpy()
    assert np.shares_memory(back, a)


def test_from_numpy_keeps_strides_and_rejects_bad_arrays():
    a = np.arange(24, dtype=np.int64).reshape(4, 6)[::2, 1::3]
    t = flow.from_numpy(a)
    assert t.stride() == torch.from_numpy(a).stride()
    np.testing.assert_array_equal(t.numpy(), a)
    with pytest.raises(ValueError, match="negative"):
        flow.from_numpy(np.arange(4)[::-1])
    with pytest.raises(TypeError, match="complex128"):
        flow.from_numpy(np.zeros(2, dtype=np.complex128))
    with pytest.raises(TypeError, match="ndarray"):
        flow.from_numpy([1, 2])


def test_from_numpy_keeps_array_alive():
    t = flow.from_numpy(np.full((1000,), 3.0))
    import gc

    gc.collect()
    assert t.numpy().sum() == 3000.0


def test_numpy_of_bfloat16_is_refused_and_of_grad_tensors_gives_values():
    with pytest.raises(TypeError, match="bfloat16"):
        flow.ones(2, dtype=flow.bfloat16).numpy()
    # OneFlow's semantics (issue 15): the values, as detach().numpy() (PyTorch raises).
    assert flow.ones(2, requires_grad=True).numpy().tolist() == [1.0, 1.0]
    assert flow.ones(2, requires_grad=True).detach().numpy().tolist() == [1.0, 1.0]


@pytest.mark.parametrize(
    "fn, args, kwargs",
    [
        ("zeros", (2, 3), {}),
        ("zeros", ((2, 3),), {"dtype": "int32"}),
        ("ones", ([4],), {"dtype": "float16"}),
        ("ones", ((),), {}),
        ("full", ((2, 2), 7), {}),
        ("full", ((2, 2), 1.5), {}),
        ("full", ((3,), True), {}),
        ("full", ((2,), 2.7), {"dtype": "int64"}),
        ("arange", (5,), {}),
        ("arange", (1, 2.5, 0.5), {}),
        ("arange", (10, 0, -3), {}),
        ("arange", (0, 1, 0.1), {}),
        ("arange", (-5, 5, 2), {"dtype": "float64"}),
        ("arange", (3,), {"dtype": "bfloat16"}),
        ("linspace", (0, 1, 5), {}),
        ("linspace", (-3, 10, 7), {"dtype": "float64"}),
        ("linspace", (2, 2, 1), {}),
        ("linspace", (0, 10, 0), {}),
        ("eye", (3,), {}),
        ("eye", (2, 4), {"dtype": "int64"}),
        ("eye", (0,), {}),
    ],
)
def test_creation_functions_match_torch(fn, args, kwargs):
    ours = getattr(flow, fn)(*args, **{k: getattr(flow, v) for k, v in kwargs.items()})
    theirs = getattr(torch, fn)(*args, **{k: getattr(torch, v) for k, v in kwargs.items()})
    if fn == "linspace":
        assert ours.dtype == getattr(flow, str(theirs.dtype)[6:])
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6)
    else:
        same(ours, theirs)


def test_empty_and_like_functions():
    e = flow.empty(2, 3, dtype=flow.float64)
    assert e.shape == (2, 3) and e.dtype == flow.float64 and e.is_contiguous()
    base = flow.tensor([[1, 2, 3]], dtype=flow.int32)
    for fn, want in [(flow.zeros_like, 0), (flow.ones_like, 1)]:
        out = fn(base)
        assert out.dtype == flow.int32 and out.shape == (1, 3) and out.tolist() == [[want] * 3]
    f = flow.full_like(base, 2.5, dtype=flow.float32)
    assert f.tolist() == [[2.5] * 3]
    assert flow.empty_like(base).shape == base.shape
    with pytest.raises(TypeError, match="Tensor"):
        flow.zeros_like([1, 2])


def test_bad_sizes_and_ranges():
    with pytest.raises(RuntimeError, match="negative dimension"):
        flow.zeros(2, -1)
    with pytest.raises(TypeError, match="size"):
        flow.zeros(2, 1.5)
    with pytest.raises(RuntimeError, match="step"):
        flow.arange(0, 5, 0)
    with pytest.raises(RuntimeError):
        torch.arange(5, 0, 1)
    with pytest.raises(RuntimeError, match="step sign"):
        flow.arange(5, 0, 1)
    with pytest.raises(RuntimeError, match="steps"):
        flow.linspace(0, 1, -1)
    with pytest.raises(RuntimeError, match="n must be"):
        flow.eye(-1)


def test_dtypes_and_aliases():
    assert flow.float is flow.float32 and flow.double is flow.float64
    assert flow.long is flow.int64 and flow.int is flow.int32 and flow.half is flow.float16
    assert repr(flow.bfloat16) == "oneflow.bfloat16"
    assert flow.float16.is_floating_point and not flow.int8.is_floating_point
    assert flow.float64.itemsize == 8
    for name in ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"]:
        assert getattr(flow, name).itemsize == getattr(torch, name).itemsize
        assert getattr(flow, name).is_signed == getattr(torch, name).is_signed
    import pickle

    assert pickle.loads(pickle.dumps(flow.float16)) is flow.float16
    assert flow.get_default_dtype() is flow.float32
    flow.set_default_dtype(flow.float64)
    try:
        assert flow.tensor([1.5]).dtype == flow.float64 and flow.zeros(1).dtype == flow.float64
    finally:
        flow.set_default_dtype(flow.float32)
    with pytest.raises(TypeError):
        flow.set_default_dtype(flow.int32)
