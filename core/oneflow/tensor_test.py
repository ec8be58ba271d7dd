"""oneflow.Tensor views, conversions and printing, checked against PyTorch."""

import numpy as np
import pytest
import torch

import oneflow as flow


def pair(shape, dtype="float32"):
    """The same values as a oneflow and a torch tensor."""
    n = int(np.prod(shape))
    data = np.arange(n).reshape(shape).astype(dtype)
    return flow.tensor(data), torch.tensor(data)


def same_view(ours, theirs, base_ours, base_theirs):
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert ours.stride() == theirs.stride()
    assert ours.storage_offset() == theirs.storage_offset()
    assert ours.is_contiguous() == theirs.is_contiguous()
    shares_theirs = theirs.untyped_storage().data_ptr() == base_theirs.untyped_storage().data_ptr()
    assert (ours._storage_ptr() == base_ours._storage_ptr()) == shares_theirs
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


VIEWS = {
    "view": ((2, 3, 4), lambda t: t.view(6, 4)),
    "view_tuple": ((2, 3, 4), lambda t: t.view((4, -1))),
    "view_scalar": ((1,), lambda t: t.view(())),
    "reshape_view": ((2, 3, 4), lambda t: t.reshape(-1)),
    "reshape_copy": ((3, 4), lambda t: t.t().reshape(12) if hasattr(t, "t") else t.T.reshape(12)),
    "transpose": ((2, 3, 4), lambda t: t.transpose(0, 2)),
    "transpose_neg": ((2, 3, 4), lambda t: t.transpose(-1, -2)),
    "permute": ((2, 3, 4), lambda t: t.permute(2, 0, 1)),
    "permute_list": ((2, 3, 4), lambda t: t.permute([1, 2, 0])),
    "narrow": ((5, 4), lambda t: t.narrow(0, 1, 3)),
    "narrow_neg": ((5, 4), lambda t: t.narrow(-1, -2, 2)),
    "expand": ((3, 1), lambda t: t.expand(2, 3, 4)),
    "expand_keep": ((3, 1), lambda t: t.expand(-1, 5)),
    "squeeze": ((1, 3, 1, 2), lambda t: t.squeeze()),
    "squeeze_dim": ((1, 3, 1, 2), lambda t: t.squeeze(2)),
    "squeeze_tuple": ((1, 3, 1, 2), lambda t: t.squeeze((0, 2))),
    "squeeze_noop": ((1, 3, 1, 2), lambda t: t.squeeze(1)),
    "unsqueeze": ((2, 3), lambda t: t.unsqueeze(1)),
    "unsqueeze_neg": ((2, 3), lambda t: t.unsqueeze(-1)),
    "flatten": ((2, 3, 4), lambda t: t.flatten()),
    "flatten_range": ((2, 3, 4, 5), lambda t: t.flatten(1, 2)),
    "flatten_of_transposed": ((3, 4), lambda t: t.transpose(0, 1).flatten()),
    "slice_steps": ((6, 7), lambda t: t[1::2, ::3]),
    "slice_negative_bounds": ((6, 7), lambda t: t[-4:-1, :-2]),
    "slice_out_of_range": ((6, 7), lambda t: t[4:100, 10:]),
    "int_index": ((3, 4, 5), lambda t: t[1]),
    "int_index_neg": ((3, 4, 5), lambda t: t[-1, 2]),
    "none_and_ellipsis": ((3, 4, 5), lambda t: t[None, ..., None, 1:3]),
    "ellipsis_middle": ((3, 4, 5), lambda t: t[1, ..., ::2]),
    "two_ellipses": ((3, 4, 5), lambda t: t[..., 1, ...]),
    "select": ((3, 4), lambda t: t.select(1, -1)),
    "T": ((3, 4), lambda t: t.T),
    "chain": ((4, 6), lambda t: t[:, 1::2].transpose(0, 1).unsqueeze(0).narrow(2, 1, 2)),
    "contiguous": ((3, 4), lambda t: t.transpose(0, 1).contiguous()),
    "contiguous_noop": ((3, 4), lambda t: t.contiguous()),
    "clone_transposed": ((3, 4), lambda t: t.transpose(0, 1).clone()),
    "clone_sliced": ((3, 4), lambda t: t[:, ::2].clone()),
    "detach": ((3,), lambda t: t.detach()),
    "empty_slice": ((0, 3), lambda t: t.view(3, 0)),
}


@pytest.mark.parametrize("name", sorted(VIEWS))
def test_views_match_torch(name):
    shape, fn = VIEWS[name]
    ours, theirs = pair(shape)
    same_view(fn(ours), fn(theirs), ours, theirs)


@pytest.mark.parametrize("seed", range(5))
def test_random_view_chains_match_torch(seed):
    rng = np.random.default_rng(seed)
    shape = tuple(int(s) for s in rng.integers(1, 5, size=rng.integers(1, 5)))
    ours, theirs = pair(shape, "float64")
    base_o, base_t = ours, theirs
    for _ in range(6):
        nd = ours.ndim
        op = rng.integers(0, 5)
        if op == 0 and nd >= 2:
            a, b = (int(x) for x in rng.choice(nd, 2, replace=False))
            ours, theirs = ours.transpose(a, b), theirs.transpose(a, b)
        elif op == 1 and nd >= 1:
            d = int(rng.integers(nd))
            size = ours.shape[d]
            start = int(rng.integers(0, size))
            step = int(rng.integers(1, 3))
            idx = (slice(None),) * d + (slice(start, None, step),)
            ours, theirs = ours[idx], theirs[idx]
        elif op == 2:
            d = int(rng.integers(-nd - 1, nd + 1))
            ours, theirs = ours.unsqueeze(d), theirs.unsqueeze(d)
        elif op == 3:
            ours, theirs = ours.reshape(-1), theirs.reshape(-1)
        else:
            perm = [int(x) for x in rng.permutation(nd)]
            ours, theirs = ours.permute(*perm), theirs.permute(*perm)
        same_view(ours, theirs, base_o, base_t)
        # The strided copy kernel on whatever layout the chain produced.
        np.testing.assert_array_equal(ours.contiguous().numpy(), theirs.contiguous().numpy())
        assert ours.clone().stride() == theirs.clone().stride()
        np.testing.assert_array_equal(ours.to(flow.float16).numpy(), theirs.to(torch.float16).numpy())


_DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"]


@pytest.mark.parametrize("src", _DTYPES)
@pytest.mark.parametrize("dst", _DTYPES)
def test_every_dtype_pair_converts_like_torch_on_strided_input(src, dst):
    values = np.array([[0.0, 0.4, 1.0, 1.5], [2.5, 7.75, 100.0, 127.9], [0.0, 3.0, 65.5, 99.99]])
    t_src = torch.tensor(values).to(getattr(torch, src)).T  # non-contiguous
    o_src = flow.tensor(values).to(getattr(flow, src)).T
    theirs = t_src.to(getattr(torch, dst))
    ours = o_src.to(getattr(flow, dst))
    assert ours.stride() == theirs.stride() and ours.shape == (4, 3)
    o = ours.float().numpy() if dst == "bfloat16" else ours.numpy()
    t = theirs.float().numpy() if dst == "bfloat16" else theirs.numpy()
    np.testing.assert_array_equal(o, t)


@pytest.mark.parametrize("seed", range(40))
def test_new_memory_is_laid_out_like_torch(seed):
    """clone, to(dtype) and the *_like functions keep the input's layout as torch does."""
    rng = np.random.default_rng(seed)
    nd = int(rng.integers(1, 5))
    shape = tuple(int(s) for s in rng.integers(1, 4, size=nd))
    ours, theirs = pair(shape)
    perm = [int(x) for x in rng.permutation(nd)]
    ours, theirs = ours.permute(*perm), theirs.permute(*perm)
    d = int(rng.integers(nd))
    step = int(rng.integers(1, 3))
    idx = (slice(None),) * d + (slice(None, None, step),)
    ours, theirs = ours[idx], theirs[idx]
    if rng.integers(2):
        e = int(rng.integers(nd))
        if ours.shape[e] == 1:
            size = list(ours.shape)
            size[e] = 3
            ours, theirs = ours.expand(*size), theirs.expand(*size)
    for fn in (lambda t: t.clone(), lambda t: t.double(), lambda t: t.int() if t.dtype != t.int().dtype else t.long()):
        assert fn(ours).stride() == fn(theirs).stride(), (ours.shape, ours.stride())
    for name in ("zeros_like", "ones_like", "empty_like"):
        assert getattr(flow, name)(ours).stride() == getattr(torch, name)(theirs).stride()
    assert flow.full_like(ours, 2).stride() == torch.full_like(theirs, 2).stride()


def test_views_write_through_and_share_version():
    base = flow.zeros(3, 4)
    col = base[:, 1]
    col.fill_(5)
    assert base.tolist() == [[0, 5, 0, 0]] * 3
    assert base._version == col._version == 1
    base.T[2].copy_(flow.tensor([1.0, 2.0, 3.0]))
    assert base[:, 2].tolist() == [1.0, 2.0, 3.0]
    assert col._version == 2
    sub = base.view(2, 6)
    sub.fill_(0)
    assert base.numpy().sum() == 0


def _raises_like_torch(fn, match):
    ours, theirs = pair((2, 3))
    with pytest.raises(Exception) as t_err:
        fn(theirs)
    with pytest.raises(Exception, match=match) as o_err:
        fn(ours)
    assert type(o_err.value) is type(t_err.value), (o_err.value, t_err.value)


@pytest.mark.parametrize(
    "fn, match",
    [
        (lambda t: t.view(4, 2), "shape '\\[4, 2\\]' is invalid for input of size 6"),
        (lambda t: t.view(-1, -1), "only one dimension"),
        (lambda t: t.transpose(0, 1).view(6), "not compatible"),
        (lambda t: t.reshape(5), "size 6"),
        (lambda t: t.transpose(0, 2), "range of \\[-2, 1\\], but got 2"),
        (lambda t: t.permute(0, 0), "duplicate"),
        (lambda t: t.permute(0), "len\\(dims\\) = 1"),
        (lambda t: t.narrow(1, 2, 2), "exceeds dimension size"),
        (lambda t: t.narrow(5, 0, 1), "but got 5"),
        (lambda t: t.expand(3, 3), "must match the existing size \\(2\\)"),
        (lambda t: t.expand(3), "number of sizes provided \\(1\\)"),
        (lambda t: t.unsqueeze(3), "range of \\[-3, 2\\]"),
        (lambda t: t.squeeze(2), "but got 2"),
        (lambda t: t.flatten(1, 0), "start_dim cannot come after end_dim"),
        (lambda t: t[2], "index 2 is out of bounds for dimension 0 with size 2"),
        (lambda t: t[0, 0, 0], "too many indices"),
        (lambda t: t[::-1], "step must be greater than zero"),
        (lambda t: t[:, ::0], "step must be greater than zero"),
        (lambda t: t.view(2, 3.0), "must be tuple of ints, but found element of type float at pos 1"),
        (lambda t: t.select(0, -3), "out of bounds"),
        (lambda t: t.item(), "6 elements cannot be converted to Scalar"),
        (lambda t: bool(t), "ambiguous"),
        (lambda t: t.size(2), "but got 2"),
        (lambda t: t.stride(-3), "but got -3"),
    ],
)
def test_bad_arguments_raise_what_torch_raises(fn, match):
    _raises_like_torch(fn, match)


def test_scalar_tensor_dim_errors():
    for fn in (lambda t: len(t), lambda t: iter(t)):
        with pytest.raises(TypeError):
            fn(torch.tensor(1.0))
        with pytest.raises(TypeError, match="0-d"):
            fn(flow.tensor(1.0))
    with pytest.raises(RuntimeError, match="0-dim"):
        flow.tensor(1.0).narrow(0, 0, 1)


@pytest.mark.parametrize(
    "src, dst",
    [
        ("float32", "int32"),
        ("float32", "uint8"),
        ("float32", "int8"),
        ("float64", "float16"),
        ("float32", "bfloat16"),
        ("float16", "float32"),
        ("bfloat16", "float64"),
        ("int64", "float32"),
        ("int64", "bool"),
        ("float32", "bool"),
        ("bool", "float16"),
        ("int32", "int16"),
    ],
)
def test_dtype_conversion_matches_torch(src, dst):
    rng = np.random.default_rng(0)
    values = rng.normal(scale=50, size=(5, 7))
    if dst in ("uint8",) or src == "bool":
        values = np.abs(values)
    values[0, :3] = [0.0, 0.5, -0.0]
    t_src = torch.tensor(values).to(getattr(torch, src))
    o_src = flow.tensor(t_src.float().numpy() if src == "bfloat16" else t_src.numpy()).to(getattr(flow, src))
    ours = o_src.to(getattr(flow, dst))
    theirs = t_src.to(getattr(torch, dst))
    assert ours.dtype == getattr(flow, dst)
    o = ours.float().numpy() if dst == "bfloat16" else ours.numpy()
    t = theirs.float().numpy() if dst == "bfloat16" else theirs.numpy()
    np.testing.assert_array_equal(o, t)


def test_to_overloads_and_casts():
    t = flow.tensor([1.5, -2.5])
    assert t.to(flow.float32) is t
    assert t.to(flow.float32, copy=True) is not t
    assert t.to("cpu") is t
    assert t.to(flow.device("cpu"), flow.float64).dtype == flow.float64
    assert t.to(dtype=flow.int64).tolist() == [1, -2]
    assert t.to(flow.tensor([1], dtype=flow.int8)).dtype == flow.int8
    assert t.double().dtype == flow.float64 and t.half().dtype == flow.float16
    assert t.long().dtype == flow.int64 and t.int().dtype == flow.int32 and t.bool().tolist() == [True, True]
    assert t.byte().dtype == flow.uint8 and t.char().dtype == flow.int8 and t.short().dtype == flow.int16
    assert t.bfloat16().float().tolist() == [1.5, -2.5]
    assert t.type_as(flow.tensor([1])).dtype == flow.int64
    with pytest.raises(RuntimeError, match="cuda"):
        t.to("cuda")
    with pytest.raises(TypeError):
        t.to(3.5)


def test_python_conversions():
    t = flow.tensor([[1.5, 2.0], [3.0, 4.0]])
    assert t.tolist() == torch.tensor([[1.5, 2.0], [3.0, 4.0]]).tolist()
    assert flow.tensor(2.5).tolist() == 2.5
    assert float(t[0, 0]) == 1.5 and int(t[1, 1]) == 4
    assert flow.tensor(3).item() == 3 and isinstance(flow.tensor(3).item(), int)
    assert flow.tensor(True).item() is True
    assert flow.tensor(0.1, dtype=flow.float16).item() == torch.tensor(0.1, dtype=torch.float16).item()
    assert len(t) == 2 and [r.tolist() for r in t] == [[1.5, 2.0], [3.0, 4.0]]
    assert [1, 2, 3][flow.tensor(1)] == 2
    with pytest.raises(TypeError):
        [1, 2][flow.tensor(1.0)]
    assert bool(flow.tensor([0])) is False and bool(flow.tensor([2])) is True
    np.testing.assert_array_equal(np.asarray(t), t.numpy())
    assert t.numel() == 4 and t.nelement() == 4 and flow.numel(t) == 4
    assert t.element_size() == 4 and t.dim() == 2 and t.ndim == 2
    assert t.size() == (2, 2) and t.size(-1) == 2 and t.stride(0) == 2


def test_size_type():
    s = flow.zeros(2, 3, 4).shape
    assert isinstance(s, flow.Size) and isinstance(s, tuple)
    assert repr(s) == "oneflow.Size([2, 3, 4])" == repr(torch.Size([2, 3, 4])).replace("torch", "oneflow")
    assert s.numel() == 24 and flow.Size([]).numel() == 1
    assert isinstance(s[1:], flow.Size) and s[1:] == (3, 4)
    assert s == (2, 3, 4) and s[0] == 2
    assert flow.zeros(s).shape == s
    with pytest.raises(TypeError):
        flow.Size([1.5])


@pytest.mark.parametrize("spec", ["cpu", "cuda", "cuda:0", "cuda:3", "cpu:0"])
def test_device_parses_and_prints_like_torch(spec):
    ours, theirs = flow.device(spec), torch.device(spec)
    assert str(ours) == str(theirs)
    assert repr(ours) == repr(theirs)
    assert ours.type == theirs.type and ours.index == theirs.index
    assert ours == flow.device(str(theirs))


def test_device_constructor_forms():
    assert flow.device("cuda", 1) == flow.device("cuda:1")
    assert flow.device(2) == flow.device("cuda:2")
    assert flow.zeros(1).device == flow.device("cpu")
    assert hash(flow.device("cuda:1")) == hash(flow.device("cuda", 1))
    for bad in ["gpu", "cuda:-1", "cuda:a", ""]:
        with pytest.raises(RuntimeError):
            torch.device(bad)
        with pytest.raises(RuntimeError):
            flow.device(bad)
    with pytest.raises(RuntimeError):
        flow.device("cuda:1", 1)
    with pytest.raises(TypeError):
        flow.device(1.5)


@pytest.mark.parametrize(
    "make",
    [
        lambda m: m.tensor([1.0, 2.0, 3.5]),
        lambda m: m.tensor([[1, 2], [3, 400]]),
        lambda m: m.tensor(3.25),
        lambda m: m.tensor([True, False]),
        lambda m: m.arange(12, dtype=m.float64).reshape(3, 4) / 7 if m is torch else None,
        lambda m: m.zeros(2, 0),
        lambda m: m.linspace(-1e5, 1e-5, 3),
        lambda m: m.arange(2000, dtype=m.float32),
        lambda m: m.tensor([1.5, 2.0], dtype=m.float16),
        lambda m: m.tensor([[1.5, 2.0]], dtype=m.bfloat16),
        lambda m: m.tensor([1, 2], dtype=m.int8),
    ],
)
def test_repr_matches_torch_with_dtype_always_shown(make):
    theirs = make(torch)
    ours = make(flow)
    if ours is None:  # division is not an op yet: build the same values from torch's
        ours = flow.tensor(theirs.numpy())
    expected = repr(theirs).replace("torch.", "oneflow.")
    if "dtype=" not in expected:
        # PyTorch omits its default dtypes; oneflow always prints the dtype.
        expected = expected[:-1] + f", dtype=oneflow.{str(theirs.dtype)[6:]})"
    assert repr(ours) == expected


def test_repr_of_grad_tensor():
    assert repr(flow.tensor([1.0], requires_grad=True)) == "tensor([1.], dtype=oneflow.float32, requires_grad=True)"


def test_views_keep_storage_alive_after_base_is_gone():
    import gc

    base = flow.arange(10, dtype=flow.float64)
    view = base[2::3]
    ptr = base._storage_ptr()
    del base
    gc.collect()
    filler = [flow.ones(10, dtype=flow.float64) for _ in range(8)]  # would reuse freed memory
    assert view._storage_ptr() == ptr
    assert view.tolist() == [2.0, 5.0, 8.0]
    assert all(f.tolist() == [1.0] * 10 for f in filler)


def test_cpu_memory_is_64_byte_aligned():
    for n in (1, 3, 17, 1000):
        assert flow.empty(n, dtype=flow.int8).data_ptr() % 64 == 0


def test_public_names_exist():
    for name in flow.__all__:
        assert getattr(flow, name) is not None, name
    assert flow.Tensor.__module__ == "oneflow" and flow.Tensor is type(flow.zeros(1))


@pytest.mark.parametrize(
    "index, value",
    [
        ((0,), 5.0),
        ((slice(None), 1), -1),
        ((Ellipsis, slice(0, None, 2)), np.float64(7.5)),
        ((1, slice(1, 3)), "tensor"),
        ((None, 2), True),
    ],
)
def test_setitem_with_basic_indices_matches_torch(index, value):
    ours, theirs = pair((3, 4))
    if value == "tensor":
        o_val, t_val = flow.tensor([10.5, 20.5]), torch.tensor([10.5, 20.5])
    else:
        o_val = t_val = value
    ours[index] = o_val
    theirs[index] = t_val
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    assert ours._version == 1


def test_setitem_rejects_what_torch_rejects():
    for value in ([1.0, 2.0], "x", None):
        with pytest.raises(TypeError):
            torch.zeros(2)[0] = value
        with pytest.raises(TypeError, match="can't assign"):
            flow.zeros(2)[0] = value


def test_pickle_and_deepcopy_roundtrip():
    import copy
    import pickle

    for t in (flow.arange(6, dtype=flow.float32).view(2, 3).T, flow.tensor([1.5], dtype=flow.bfloat16),
              flow.tensor([1.0, 2.0], requires_grad=True)):
        for back in (pickle.loads(pickle.dumps(t)), copy.deepcopy(t)):
            assert back.dtype == t.dtype and back.shape == t.shape and back.requires_grad == t.requires_grad
            assert back.tolist() == t.tolist() and back.data_ptr() != t.data_ptr()


def test_as_tensor_shares_memory_when_it_can():
    a = np.arange(4, dtype=np.float32)
    t = flow.as_tensor(a)
    a[0] = 9
    assert t[0].item() == 9
    assert flow.as_tensor(t) is t
    c = flow.as_tensor(a, dtype=flow.float64)
    a[1] = 7
    assert c[1].item() == 1 and c.dtype == flow.float64
    assert flow.as_tensor([1, 2]).dtype == flow.int64


def test_from_numpy_of_read_only_array_warns_like_torch():
    a = np.arange(3.0)
    a.setflags(write=False)
    with pytest.warns(UserWarning, match="not writable"):
        t = flow.from_numpy(a)
    assert t.tolist() == [0.0, 1.0, 2.0]


def test_unflatten_matches_torch():
    base_o, base_t = pair((2, 12))
    # (transposed?, dim, sizes): the transposed base (12, 2) is split along its strided dim 0.
    for transposed, dim, sizes in ((False, 1, (3, 4)), (False, -1, [3, -1]), (False, 0, (-1,)), (False, 0, [1, 2]),
                                   (True, 0, (3, 4)), (True, 0, (2, -1, 3)), (True, -1, (2, 1))):
        m_o, m_t = (base_o.T, base_t.T) if transposed else (base_o, base_t)
        same_view(m_o.unflatten(dim, sizes), m_t.unflatten(dim, sizes), base_o, base_t)
        same_view(flow.unflatten(m_o, dim, sizes), torch.unflatten(m_t, dim, sizes), base_o, base_t)
    ours, theirs = flow.zeros(0, 3).unflatten(0, (2, -1)), torch.zeros(0, 3).unflatten(0, (2, -1))
    assert tuple(ours.shape) == tuple(theirs.shape) == (2, 0, 3)
    assert tuple(flow.zeros(2, 6).unflatten(1, flow.Size([2, 3])).shape) == (2, 2, 3)
    assert tuple(flow.zeros(2, 6).unflatten(1, (flow.tensor(3), 2)).shape) == (2, 3, 2)
    x = flow.arange(6.0, requires_grad=True)
    (x.unflatten(0, (2, 3)) * flow.tensor([[1.0], [2.0]])).sum().backward()
    assert x.grad.tolist() == [1.0, 1.0, 1.0, 2.0, 2.0, 2.0]


@pytest.mark.parametrize(
    "shape, dim, sizes",
    [
        ((2, 12), 1, (5, 4)),
        ((2, 12), 1, (5, -1)),
        ((2, 12), 1, (0, -1)),
        ((2, 12), 1, (-1, -1)),
        ((2, 12), 1, (-2, -6)),
        ((2, 12), 1, ()),
        ((2, 12), 2, (3, 4)),
        ((2, 12), -3, (3, 4)),
        ((2, 12), 1, 12),
        ((2, 12), 1.0, (3, 4)),
        ((2, 12), 1, (3.0, 4)),
        ((2, 12), 1, (True, 12)),
        ((), 0, (1,)),
        ((0, 3), 0, (-1, 0)),
    ],
)
def test_unflatten_errors_match_torch(shape, dim, sizes):
    with pytest.raises(Exception) as theirs:
        torch.zeros(shape).unflatten(dim, sizes)
    with pytest.raises(Exception) as ours:
        flow.zeros(shape).unflatten(dim, sizes)
    assert type(ours.value) is type(theirs.value) or type(ours.value).__name__ == type(theirs.value).__name__
    assert "unflatten" in str(ours.value) or "Dimension out of range" in str(ours.value)
