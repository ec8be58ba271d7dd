"""OneFlow's top-level names and semantics (issue 15): iinfo/finfo (against torch), cast,
set_printoptions (against torch's printing), utils.tensor.to_torch/from_torch, pin_memory=,
and Tensor.numpy() on a tensor that requires grad."""

import numpy as np
import pytest
import torch

import oneflow as flow

_INTS = ["uint8", "int8", "int16", "int32", "int64"]
_FLOATS = ["float16", "bfloat16", "float32", "float64"]


@pytest.mark.parametrize("name", _INTS)
def test_iinfo_matches_torch(name):
    ours, theirs = flow.iinfo(getattr(flow, name)), torch.iinfo(getattr(torch, name))
    assert (ours.bits, ours.min, ours.max, ours.dtype) == (theirs.bits, theirs.min, theirs.max, theirs.dtype)
    assert type(ours.min) is int and type(ours.max) is int


@pytest.mark.parametrize("name", _FLOATS)
def test_finfo_matches_torch(name):
    ours, theirs = flow.finfo(getattr(flow, name)), torch.finfo(getattr(torch, name))
    for field in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype"):
        assert getattr(ours, field) == getattr(theirs, field), field


def test_finfo_default_and_bad_input():
    assert flow.finfo().dtype == "float32"
    flow.set_default_dtype(flow.float64)
    try:
        assert flow.finfo().dtype == "float64"
    finally:
        flow.set_default_dtype(flow.float32)
    with pytest.raises(TypeError, match="finfo.*not a floating point"):
        flow.finfo(flow.int32)
    with pytest.raises(TypeError, match="iinfo.*not an integer"):
        flow.iinfo(flow.float32)
    with pytest.raises(TypeError, match="iinfo.*not an integer"):
        flow.iinfo(flow.bool)
    with pytest.raises(TypeError, match="finfo.*'type' must be oneflow.dtype"):
        flow.finfo("float32")
    with pytest.raises(TypeError, match="iinfo.*'type' must be oneflow.dtype"):
        flow.iinfo(torch.int32)


@pytest.mark.parametrize("dtype", ["int32", "float64", "float16", "bool", "int8"])
def test_cast_matches_to(dtype):
    values = np.array([1.7, -2.2, 0.0, 3.5], dtype=np.float32)
    ours = flow.cast(flow.tensor(values), getattr(flow, dtype))
    theirs = torch.tensor(values).to(getattr(torch, dtype))
    assert ours.dtype == getattr(flow, dtype)
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def test_cast_is_a_new_differentiable_tensor():
    x = flow.tensor([1.0, 2.0], requires_grad=True)
    y = flow.cast(x, flow.float64)
    y.sum().backward()
    assert x.grad.tolist() == [1.0, 1.0]
    z = flow.cast(x.detach(), flow.float32)
    z[0] = 9.0
    assert x.tolist() == [1.0, 2.0]
    with pytest.raises(TypeError, match="cast.*'input' must be Tensor"):
        flow.cast([1.0], flow.float32)
    with pytest.raises(TypeError, match="cast.*'dtype' must be oneflow.dtype"):
        flow.cast(x, "float32")


@pytest.fixture
def default_printoptions():
    yield
    flow.set_printoptions(profile="default")
    torch.set_printoptions(profile="default")


_PRINT_CASES = [
    dict(precision=2),
    dict(precision=6),
    dict(threshold=5),
    dict(edgeitems=1, threshold=5),
    dict(linewidth=30),
    dict(sci_mode=True),
    dict(sci_mode=False),
    dict(profile="short"),
    dict(profile="full"),
    dict(profile="short", precision=5),
]


@pytest.mark.parametrize("options", _PRINT_CASES, ids=str)
@pytest.mark.parametrize("values", [[1.12345, -2.5, 1000.25], [1e-5, 3.0, 2e6], [[1.0, 2.0], [3.0, 4.0]]])
def test_set_printoptions_matches_torch(default_printoptions, options, values):
    flow.set_printoptions(**options)
    torch.set_printoptions(**options)
    for make in (lambda m: m.tensor(values), lambda m: m.arange(2000, dtype=m.float64).reshape(40, 50) / 7):
        # The values (up to the last "]"); the dtype suffix names the framework.
        ours, theirs = repr(make(flow)), repr(make(torch))
        assert ours[: ours.rindex("]") + 1] == theirs[: theirs.rindex("]") + 1]


def test_set_printoptions_profile_resets_and_bad_input(default_printoptions):
    flow.set_printoptions(precision=1, sci_mode=True)
    assert flow.get_printoptions()["precision"] == 1 and flow.get_printoptions()["sci_mode"] is True
    flow.set_printoptions(profile="default")
    assert flow.get_printoptions() == {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80,
                                       "sci_mode": None}
    with pytest.raises(ValueError, match="set_printoptions.*'profile'"):
        flow.set_printoptions(profile="long")
    with pytest.raises(TypeError, match="set_printoptions.*'precision' must be int"):
        flow.set_printoptions(precision=2.5)
    with pytest.raises(ValueError, match="set_printoptions.*'linewidth' must be >= 1"):
        flow.set_printoptions(linewidth=0)
    with pytest.raises(TypeError, match="set_printoptions.*'sci_mode'"):
        flow.set_printoptions(sci_mode="yes")
    with pytest.raises(TypeError, match="set_printoptions.*'threshold'"):
        flow.set_printoptions(threshold="many")
    assert flow.get_printoptions()["precision"] == 4  # a rejected call changes nothing


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int64", "int32", "int8", "uint8", "bool"])
def test_to_torch_from_torch_share_memory(dtype):
    t = flow.tensor(np.arange(6).reshape(2, 3) % 2, dtype=getattr(flow, dtype))
    as_torch = flow.utils.tensor.to_torch(t)
    assert isinstance(as_torch, torch.Tensor) and as_torch.dtype == getattr(torch, dtype)
    np.testing.assert_array_equal(as_torch.numpy(), t.numpy())
    as_torch[0, 0] = 1
    assert t[0, 0].item() == as_torch[0, 0].item()  # the same memory
    back = flow.utils.tensor.from_torch(as_torch)
    assert back.dtype == t.dtype
    back[1, 2] = 0
    assert as_torch[1, 2].item() == 0 and t[1, 2].item() == 0


def test_to_torch_from_torch_strided_bfloat16_and_bad_input():
    base = torch.arange(12.0).reshape(3, 4)
    view = flow.utils.tensor.from_torch(base.t())  # a transposed view keeps its strides
    np.testing.assert_array_equal(view.numpy(), base.t().numpy())
    x = flow.tensor([1.0, 2.0], requires_grad=True)
    assert flow.utils.tensor.to_torch(x).requires_grad is False
    b = flow.tensor([1.5, -2.0], dtype=flow.bfloat16)
    tb = flow.utils.tensor.to_torch(b)
    assert tb.dtype == torch.bfloat16 and tb.tolist() == [1.5, -2.0]
    assert flow.utils.tensor.from_torch(tb).dtype == flow.bfloat16
    with pytest.raises(TypeError, match="to_torch.*'flow_tensor' must be oneflow.Tensor"):
        flow.utils.tensor.to_torch(torch.ones(1))
    with pytest.raises(TypeError, match="from_torch.*'torch_tensor' must be torch.Tensor"):
        flow.utils.tensor.from_torch(flow.ones(1))
    with pytest.raises(TypeError, match="from_torch.*complex"):
        flow.utils.tensor.from_torch(torch.ones(1, dtype=torch.complex64))


def test_pin_memory_accepted_on_cpu():
    for pin in (False, True):
        t = flow.tensor([1.0, 2.0], pin_memory=pin)
        assert t.tolist() == [1.0, 2.0] and t.device.type == "cpu"
        assert flow.empty(2, 3, pin_memory=pin).shape == (2, 3)
    with pytest.raises(TypeError, match="tensor.*'pin_memory' must be bool"):
        flow.tensor([1.0], pin_memory="yes")
    with pytest.raises(RuntimeError, match="empty.*only CPU tensors can be pinned"):
        flow.empty(2, device="cuda", pin_memory=True)


def test_numpy_of_a_tensor_that_requires_grad():
    x = flow.tensor([1.0, 2.0], requires_grad=True)
    a = x.numpy()  # OneFlow returns the values (PyTorch raises)
    np.testing.assert_array_equal(a, np.array([1.0, 2.0], dtype=np.float32))
    y = x * 3
    np.testing.assert_array_equal(y.numpy(), np.array([3.0, 6.0], dtype=np.float32))
    t = flow.zeros(2)
    t.numpy()[0] = 5.0  # still shares memory with a CPU tensor
    assert t.tolist() == [5.0, 0.0]
