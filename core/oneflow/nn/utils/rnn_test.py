"""Packed sequences (``oneflow.nn.utils.rnn``) and the recurrent layers on them, against PyTorch.

The packing functions must give torch's ``data``, ``batch_sizes`` and index permutations, and
their gradients; ``RNN``, ``LSTM`` (with projections) and ``GRU`` fed the same packed batch
with torch's weights must give the same packed output, final states (taken at each sequence's
own last step) and gradients of the input, the initial states and every parameter. Bad
lengths must raise torch's exception type.
"""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest
import torch
from parity import raises_like_torch

import oneflow as flow

RTOL, ATOL = 1e-5, 2e-5  # recurrences accumulate rounding over the time steps


def rnn_utils(m):
    return m.nn.utils.rnn


def np_of(t) -> np.ndarray:
    return t.detach().cpu().numpy()


def close(ours, theirs, what: str, rtol: float = RTOL, atol: float = ATOL) -> None:
    assert tuple(ours.shape) == tuple(theirs.shape), f"{what}: shape {tuple(ours.shape)} != {tuple(theirs.shape)}"
    np.testing.assert_allclose(np_of(ours), np_of(theirs), rtol=rtol, atol=atol, err_msg=what)


def same_packed(ours, theirs) -> None:
    assert type(ours).__name__ == "PackedSequence"
    close(ours.data, theirs.data, "data")
    assert ours.batch_sizes.tolist() == theirs.batch_sizes.tolist()
    assert ours.batch_sizes.dtype == flow.int64 and ours.batch_sizes.device.type == "cpu"
    for name in ("sorted_indices", "unsorted_indices"):
        a, b = getattr(ours, name), getattr(theirs, name)
        assert (a is None) == (b is None), name
        if a is not None:
            assert a.tolist() == b.tolist() and a.dtype == flow.int64, name


def pair(array: np.ndarray, requires_grad: bool = False):
    return (flow.tensor(array, requires_grad=requires_grad), torch.tensor(array, requires_grad=requires_grad))


# ---- packing and padding -------------------------------------------------------------------


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("lengths, enforce_sorted", [
    ([5, 3, 3, 1], True),
    ([5, 5, 5, 5], True),
    ([2, 5, 1, 4], False),
    ([5, 3, 3, 1], False),
    ([1], True),
])
def test_pack_and_pad_match_torch(lengths, enforce_sorted, batch_first):
    rng = np.random.default_rng(0)
    steps, batch = 6, len(lengths)
    shape = (batch, steps, 3, 2) if batch_first else (steps, batch, 3, 2)
    x_o, x_t = pair(rng.standard_normal(shape).astype(np.float32), requires_grad=True)
    for lens in (lengths, torch.tensor(lengths)):
        lens_o = flow.tensor(lengths) if isinstance(lens, torch.Tensor) else lens
        p_o = rnn_utils(flow).pack_padded_sequence(x_o, lens_o, batch_first=batch_first, enforce_sorted=enforce_sorted)
        p_t = rnn_utils(torch).pack_padded_sequence(x_t, lens, batch_first=batch_first, enforce_sorted=enforce_sorted)
        same_packed(p_o, p_t)
    for total_length in (None, 7):
        for padding_value in (0.0, -2.5):
            out_o, len_o = rnn_utils(flow).pad_packed_sequence(p_o, batch_first, padding_value, total_length)
            out_t, len_t = rnn_utils(torch).pad_packed_sequence(p_t, batch_first, padding_value, total_length)
            close(out_o, out_t, "padded")
            assert out_o.stride() == out_t.stride()
            assert len_o.tolist() == len_t.tolist() and len_o.dtype == flow.int64
    # Gradients flow through packing and padding both.
    weight = rng.standard_normal(tuple(out_t.shape)).astype(np.float32)
    (out_o * flow.tensor(weight)).sum().backward()
    (out_t * torch.tensor(weight)).sum().backward()
    close(x_o.grad, x_t.grad, "input grad")


def test_pack_sequence_and_unpack_sequence_match_torch():
    rng = np.random.default_rng(1)
    arrays = [rng.standard_normal((n, 2)).astype(np.float32) for n in (3, 5, 1, 5)]
    seqs = [pair(a, requires_grad=True) for a in arrays]
    for enforce_sorted, order in ((False, [0, 1, 2, 3]), (True, [1, 3, 0, 2])):
        p_o = rnn_utils(flow).pack_sequence([seqs[i][0] for i in order], enforce_sorted=enforce_sorted)
        p_t = rnn_utils(torch).pack_sequence([seqs[i][1] for i in order], enforce_sorted=enforce_sorted)
        same_packed(p_o, p_t)
        back_o, back_t = rnn_utils(flow).unpack_sequence(p_o), rnn_utils(torch).unpack_sequence(p_t)
        assert len(back_o) == len(back_t) == 4
        for a, b in zip(back_o, back_t):
            close(a, b, "unpacked")
    sum(((i + 1) * s).sum() for i, s in enumerate(back_o)).backward()
    sum(((i + 1) * s).sum() for i, s in enumerate(back_t)).backward()
    for (a, b) in seqs:
        close(a.grad, b.grad, "sequence grad")


def test_lengths_of_other_dtypes_are_truncated_to_int64():
    x_o, x_t = pair(np.arange(24, dtype=np.float32).reshape(4, 3, 2))
    for lens_o, lens_t in ((flow.tensor([4.0, 3.5, 2.9]), torch.tensor([4.0, 3.5, 2.9])),
                           (flow.tensor([4, 3, 2], dtype=flow.int32), torch.tensor([4, 3, 2], dtype=torch.int32)),
                           ([4.7, 3, 2], [4.7, 3, 2]),
                           (np.array([4, 2, 2]), np.array([4, 2, 2]))):
        same_packed(rnn_utils(flow).pack_padded_sequence(x_o, lens_o),
                    rnn_utils(torch).pack_padded_sequence(x_t, lens_t))


def test_packed_sequence_class():
    utils = rnn_utils(flow)
    p = utils.pack_padded_sequence(flow.randn(4, 3, 2), [2, 4, 3], enforce_sorted=False)
    data, batch_sizes, sorted_indices, unsorted_indices = p
    assert isinstance(p, tuple) and p._fields == ("data", "batch_sizes", "sorted_indices", "unsorted_indices")
    assert p[0] is data and p.batch_sizes is batch_sizes
    assert sorted_indices.tolist() == [1, 2, 0] and unsorted_indices.tolist() == [2, 0, 1]
    # The constructor fills in the inverse permutation, and takes a (data, batch_sizes) pair.
    q = utils.PackedSequence(data, batch_sizes, flow.tensor([2, 0, 1]))
    assert q.unsorted_indices.tolist() == [1, 2, 0]
    r = utils.PackedSequence((data, batch_sizes))
    assert r.data is data and r.sorted_indices is None and r.unsorted_indices is None
    assert repr(r).startswith("PackedSequence(data=tensor(")
    # Conversions change data only (the permutations stay int64, batch_sizes stays put).
    assert p.to(flow.float32) is p and p.float() is p and p.cpu() is p and not p.is_cuda
    for method, dtype in (("double", flow.float64), ("half", flow.float16), ("long", flow.int64),
                          ("int", flow.int32), ("short", flow.int16), ("char", flow.int8), ("byte", flow.uint8)):
        c = getattr(p, method)()
        assert type(c) is utils.PackedSequence and c.data.dtype == dtype, method
        assert c.sorted_indices.dtype == flow.int64 and c.batch_sizes is p.batch_sizes
    d = p.to(dtype=flow.float64)
    assert d.data.dtype == flow.float64 and d.unsorted_indices.tolist() == [2, 0, 1]
    back = pickle.loads(pickle.dumps(p))
    assert type(back) is utils.PackedSequence and back.data.tolist() == p.data.tolist()
    assert copy.deepcopy(p).sorted_indices.tolist() == [1, 2, 0]
    assert utils.invert_permutation(None) is None


@pytest.mark.parametrize("name, fn, words", [
    ("unsorted", lambda m: rnn_utils(m).pack_padded_sequence(m.zeros(4, 3, 2), [3, 4, 2]), ["sorted"]),
    ("unsorted_zero_inside", lambda m: rnn_utils(m).pack_padded_sequence(m.zeros(4, 3, 2), [4, 0, 3]), ["sorted"]),
    ("zero_length", lambda m: rnn_utils(m).pack_padded_sequence(m.zeros(4, 3, 2), [4, 3, 0]), ["greater than 0"]),
    ("zero_length_unsorted", lambda m: rnn_utils(m).pack_padded_sequence(m.zeros(4, 3, 2), [0, 4, 3],
                                                                         enforce_sorted=False), ["greater than 0"]),
    ("negative_length", lambda m: rnn_utils(m).pack_padded_sequence(m.zeros(4, 3, 2), [4, -1, -2]),
     ["greater than 0"]),
    ("too_few_lengths", lambda m: rnn_utils(m).pack_padded_sequence(m.zeros(4, 3, 2), [4, 3]), ["batch_size=3"]),
    ("too_few_lengths_batch_first", lambda m: rnn_utils(m).pack_padded_sequence(
        m.zeros(4, 3, 2), [3, 2, 1], batch_first=True), ["batch_size=4"]),
    ("lengths_2d", lambda m: rnn_utils(m).pack_padded_sequence(m.zeros(4, 3, 2), m.tensor([[4, 3, 2]])),
     ["1D CPU int64", "2D"]),
    ("lengths_0d", lambda m: rnn_utils(m).pack_padded_sequence(m.zeros(4, 3, 2), m.tensor(4)), ["1D CPU int64"]),
    ("lengths_nested_list", lambda m: rnn_utils(m).pack_padded_sequence(m.zeros(4, 3, 2), [[4, 3, 2]]),
     ["1D CPU int64"]),
    ("empty_input", lambda m: rnn_utils(m).pack_padded_sequence(m.zeros(0, 3, 2), [1, 1, 1]), ["empty"]),
    ("empty_batch", lambda m: rnn_utils(m).pack_padded_sequence(m.zeros(4, 0, 2), []), ["empty"]),
    ("input_1d", lambda m: rnn_utils(m).pack_padded_sequence(m.zeros(4), [4]), []),
    ("total_length_short", lambda m: rnn_utils(m).pad_packed_sequence(
        rnn_utils(m).pack_padded_sequence(m.zeros(4, 3, 2), [4, 3, 2]), total_length=3),
     ["total_length=3", "4"]),
    ("pad_a_tensor", lambda m: rnn_utils(m).pad_packed_sequence(m.zeros(4, 3)), ["batch_sizes"]),
    ("pack_no_sequences", lambda m: rnn_utils(m).pack_sequence([]), ["empty"]),
    ("pack_sequence_unsorted", lambda m: rnn_utils(m).pack_sequence([m.ones(3), m.ones(4)]), ["sorted"]),
])
def test_bad_inputs_raise_like_torch(name, fn, words):
    msg = raises_like_torch(fn)
    for w in words:
        assert w in msg, (name, msg)


def test_lengths_longer_than_the_input_raise():
    # PyTorch reads past the end of the input here; we refuse.
    with pytest.raises(RuntimeError, match="length 5"):
        rnn_utils(flow).pack_padded_sequence(flow.zeros(4, 3, 2), [5, 3, 2])


# ---- recurrent layers on packed sequences --------------------------------------------------


def make_pair(kind: str, input_size: int, hidden: int, **kw):
    """The same layer in torch and oneflow (torch's weights copied into ours)."""
    torch.manual_seed(0)
    cls = {"rnn_tanh": "RNN", "rnn_relu": "RNN", "lstm": "LSTM", "gru": "GRU"}[kind]
    if kind == "rnn_relu":
        kw["nonlinearity"] = "relu"
    theirs = getattr(torch.nn, cls)(input_size, hidden, **kw)
    ours = getattr(flow.nn, cls)(input_size, hidden, **kw)
    ours.load_state_dict({k: flow.tensor(v.detach().numpy()) for k, v in theirs.state_dict().items()})
    return ours, theirs


RNN_CONFIGS = [
    ("rnn_tanh", {}),
    ("rnn_relu", {"num_layers": 2}),
    ("rnn_tanh", {"bidirectional": True}),
    ("rnn_tanh", {"num_layers": 2, "bidirectional": True, "bias": False}),
    ("lstm", {}),
    ("lstm", {"bidirectional": True}),
    ("lstm", {"num_layers": 2, "bidirectional": True}),
    ("lstm", {"proj_size": 3}),
    ("lstm", {"num_layers": 2, "bidirectional": True, "proj_size": 2}),
    ("gru", {}),
    ("gru", {"num_layers": 2}),
    ("gru", {"num_layers": 2, "bidirectional": True}),
    ("gru", {"bidirectional": True, "bias": False}),
]


def _cfg_id(cfg):
    kind, kw = cfg
    return "-".join([kind, *(f"{k}{v}" for k, v in kw.items())])


@pytest.mark.parametrize("with_hx", [False, True], ids=["zeros", "hx"])
@pytest.mark.parametrize("batch_first", [False, True], ids=["time_major", "batch_first"])
@pytest.mark.parametrize("lengths, enforce_sorted", [([6, 4, 4, 2, 1], True), ([3, 6, 1, 4, 4], False)],
                         ids=["sorted", "unsorted"])
@pytest.mark.parametrize("cfg", RNN_CONFIGS, ids=_cfg_id)
def test_recurrent_layers_on_packed_sequences_match_torch(cfg, lengths, enforce_sorted, batch_first, with_hx):
    kind, kw = cfg
    input_size, hidden = 3, 5
    ours, theirs = make_pair(kind, input_size, hidden, batch_first=batch_first, **kw)
    rng = np.random.default_rng(len(lengths) + 7 * batch_first)
    steps, batch = max(lengths), len(lengths)
    shape = (batch, steps, input_size) if batch_first else (steps, batch, input_size)
    x_o, x_t = pair(rng.standard_normal(shape).astype(np.float32), requires_grad=True)
    layers = kw.get("num_layers", 1) * (2 if kw.get("bidirectional") else 1)
    state_sizes = [kw.get("proj_size") or hidden] + ([hidden] if kind == "lstm" else [])
    states = [pair(rng.standard_normal((layers, batch, n)).astype(np.float32), requires_grad=True)
              for n in state_sizes] if with_hx else []

    def run(m, x, hx):
        packed = rnn_utils(m).pack_padded_sequence(x, lengths, batch_first=batch_first, enforce_sorted=enforce_sorted)
        mod = ours if m is flow else theirs
        if not hx:
            out, final = mod(packed)
        else:
            out, final = mod(packed, tuple(hx) if kind == "lstm" else hx[0])
        finals = list(final) if kind == "lstm" else [final]
        padded, out_lengths = rnn_utils(m).pad_packed_sequence(out, batch_first=batch_first, padding_value=0.5)
        return out, finals, padded, out_lengths

    out_o, finals_o, padded_o, lens_o = run(flow, x_o, [s[0] for s in states])
    out_t, finals_t, padded_t, lens_t = run(torch, x_t, [s[1] for s in states])
    same_packed(out_o, out_t)
    close(padded_o, padded_t, "padded output")
    assert lens_o.tolist() == lens_t.tolist() == lengths
    assert len(finals_o) == len(finals_t)
    for i, (a, b) in enumerate(zip(finals_o, finals_t)):
        close(a, b, f"final state {i}")

    # One backward through the padded output and every final state.
    weights = [rng.standard_normal(tuple(t.shape)).astype(np.float32) for t in (padded_t, *finals_t)]
    sum((o * flow.tensor(w)).sum() for o, w in zip((padded_o, *finals_o), weights)).backward()
    sum((t * torch.tensor(w)).sum() for t, w in zip((padded_t, *finals_t), weights)).backward()
    close(x_o.grad, x_t.grad, "input grad")
    for i, (a, b) in enumerate(states):
        close(a.grad, b.grad, f"initial state {i} grad")
    params_t = dict(theirs.named_parameters())
    for name, p in ours.named_parameters():
        close(p.grad, params_t[name].grad, f"{name} grad", atol=5e-5)


def test_packed_final_states_are_each_sequences_last_step():
    """Against the layer run on each sequence alone (no padding involved)."""
    ours, _ = make_pair("gru", 2, 4, bidirectional=True, num_layers=2)
    rng = np.random.default_rng(3)
    seqs = [flow.tensor(rng.standard_normal((n, 2)).astype(np.float32)) for n in (2, 5, 3)]
    out, h_n = ours(rnn_utils(flow).pack_sequence(seqs, enforce_sorted=False))
    outs = rnn_utils(flow).unpack_sequence(out)
    for i, s in enumerate(seqs):
        alone_out, alone_h = ours(s.unsqueeze(1))
        close(outs[i], alone_out[:, 0], f"output of sequence {i}")
        close(h_n[:, i], alone_h[:, 0], f"final state of sequence {i}")


def test_packed_sequence_of_float64_and_padded_input_still_agree():
    ours, _ = make_pair("lstm", 3, 4, proj_size=2)
    ours = ours.double()
    x = flow.randn(5, 2, 3, dtype=flow.float64)
    out_padded, (h, c) = ours(x)
    out_packed, (hp, cp) = ours(rnn_utils(flow).pack_padded_sequence(x, [5, 5]))
    assert out_packed.data.dtype == flow.float64
    close(rnn_utils(flow).pad_packed_sequence(out_packed)[0], out_padded, "output", rtol=1e-12, atol=1e-12)
    close(hp, h, "h_n", rtol=1e-12, atol=1e-12)
    close(cp, c, "c_n", rtol=1e-12, atol=1e-12)


def _packed(m, lengths=(4, 3, 2), enforce_sorted=True, features=2):
    return rnn_utils(m).pack_padded_sequence(m.zeros(4, 3, features), list(lengths), enforce_sorted=enforce_sorted)


@pytest.mark.parametrize("name, fn", [
    ("data_3d", lambda m: m.nn.GRU(2, 5)(rnn_utils(m).PackedSequence(m.zeros(4, 3, 2), _packed(m).batch_sizes))),
    ("features", lambda m: m.nn.RNN(2, 5)(_packed(m, features=1))),
    ("dtype", lambda m: m.nn.GRU(2, 5)(_packed(m).double())),
    ("h0_batch", lambda m: m.nn.RNN(2, 5)(_packed(m), m.zeros(1, 2, 5))),
    ("h0_batch_unsorted", lambda m: m.nn.GRU(2, 5)(_packed(m, (2, 4, 3), False), m.zeros(1, 2, 5))),
    ("h0_hidden", lambda m: m.nn.GRU(2, 5)(_packed(m), m.zeros(1, 3, 4))),
    ("h0_layers", lambda m: m.nn.RNN(2, 5)(_packed(m), m.zeros(2, 3, 5))),
    ("h0_2d", lambda m: m.nn.GRU(2, 5)(_packed(m), m.zeros(3, 5))),
    ("lstm_h0_batch", lambda m: m.nn.LSTM(2, 5)(_packed(m), (m.zeros(1, 2, 5), m.zeros(1, 2, 5)))),
])
def test_recurrent_layer_bad_packed_inputs_raise_like_torch(name, fn):
    raises_like_torch(fn)
