"""AdaptiveLogSoftmaxWithLoss, CrossMapLRN2d, DataParallel, LinearCrossEntropyLoss and the
functionals multi_head_attention_forward, linear_cross_entropy, grouped_mm and
adaptive_max_pool*d_with_indices against torch: values and gradients on the same weights, and
the errors bad input raises."""

import numpy as np
import pytest
import torch

import oneflow as flow

FF = flow.nn.functional
TF = torch.nn.functional


def _np(t):
    return t.detach().float().numpy() if t.dtype in (torch.bfloat16,) else t.detach().numpy()


def _same(fm, tm, seed=0):
    rng = np.random.RandomState(seed)
    sd = {
        k: rng.randn(*v.shape).astype(v.numpy().dtype) if v.dtype.is_floating_point else v.numpy()
        for k, v in tm.state_dict().items()
    }
    tm.load_state_dict({k: torch.tensor(v) for k, v in sd.items()})
    fm.load_state_dict(sd)


def _grads_match(fm, tm, atol):
    for (nf, pf), (nt, pt) in zip(fm.named_parameters(), tm.named_parameters()):
        assert nf == nt
        if pt.grad is None:
            assert pf.grad is None or np.allclose(_np(pf.grad), 0), nf
        else:
            np.testing.assert_allclose(_np(pf.grad), _np(pt.grad), atol=atol, err_msg=nf)


# ---- AdaptiveLogSoftmaxWithLoss ---------------------------------------------------------------


@pytest.mark.parametrize("cutoffs,div,head_bias", [([3, 6], 2.0, False), ([5], 4.0, True), ([2, 4, 7], 1.5, True)])
def test_adaptive_log_softmax(cutoffs, div, head_bias):
    fm = flow.nn.AdaptiveLogSoftmaxWithLoss(8, 10, cutoffs, div_value=div, head_bias=head_bias).double()
    tm = torch.nn.AdaptiveLogSoftmaxWithLoss(8, 10, cutoffs, div_value=div, head_bias=head_bias).double()
    assert list(fm.state_dict()) == list(tm.state_dict())
    _same(fm, tm)
    rng = np.random.RandomState(1)
    x = rng.randn(12, 8)
    y = np.array([0, 9, 3, 5, 6, 1, 8, 2, 7, 4, 9, 0])
    fo, to = fm(flow.tensor(x), flow.tensor(y)), tm(torch.tensor(x), torch.tensor(y))
    np.testing.assert_allclose(_np(fo.output), _np(to.output), atol=1e-12)
    np.testing.assert_allclose(_np(fo.loss), _np(to.loss), atol=1e-12)
    fo.loss.backward()
    to.loss.backward()
    _grads_match(fm, tm, 1e-12)
    np.testing.assert_allclose(_np(fm.log_prob(flow.tensor(x))), _np(tm.log_prob(torch.tensor(x))), atol=1e-12)
    np.testing.assert_array_equal(_np(fm.predict(flow.tensor(x))), _np(tm.predict(torch.tensor(x))))
    # unbatched
    fo1, to1 = fm(flow.tensor(x[0]), flow.tensor(y[1])), tm(torch.tensor(x[0]), torch.tensor(y[1]))
    assert tuple(fo1.output.shape) == tuple(to1.output.shape) == ()
    np.testing.assert_allclose(_np(fo1.output), _np(to1.output), atol=1e-12)


def test_adaptive_log_softmax_predict_branches():
    fm = flow.nn.AdaptiveLogSoftmaxWithLoss(4, 6, [2]).double()
    tm = torch.nn.AdaptiveLogSoftmaxWithLoss(4, 6, [2]).double()
    _same(fm, tm, seed=3)
    x = np.random.RandomState(4).randn(40, 4) * 3
    head = x @ _np(fm.head.weight).T
    in_short = head.argmax(1) < 2
    assert in_short.any() and not in_short.all()  # the mixed branch is exercised
    np.testing.assert_array_equal(_np(fm.predict(flow.tensor(x))), _np(tm.predict(torch.tensor(x))))
    for rows in (in_short, ~in_short):
        np.testing.assert_array_equal(_np(fm.predict(flow.tensor(x[rows]))), _np(tm.predict(torch.tensor(x[rows]))))


def test_adaptive_log_softmax_errors():
    for cutoffs in ([], [3, 2], [0, 3], [3, 10], [2, 2], [2.5]):
        with pytest.raises(ValueError, match="cutoffs should be"):
            flow.nn.AdaptiveLogSoftmaxWithLoss(4, 10, cutoffs)
    m = flow.nn.AdaptiveLogSoftmaxWithLoss(4, 10, [3])
    with pytest.raises(RuntimeError, match="same size in the batch dimension"):
        m(flow.zeros(3, 4), flow.zeros(2, dtype=flow.long))
    with pytest.raises(RuntimeError, match="1D target tensor expects 2D input"):
        m(flow.zeros(3, 4, 1), flow.zeros(3, dtype=flow.long))
    with pytest.raises(RuntimeError, match="0D target tensor expects 1D input"):
        m(flow.zeros(3, 4), flow.tensor(1))
    with pytest.raises(RuntimeError, match="multi-target not supported"):
        m(flow.zeros(3, 4), flow.zeros(3, 2, dtype=flow.long))
    with pytest.raises(RuntimeError, match="Target values should be in \\[0, 9\\]"):
        m(flow.zeros(2, 4), flow.tensor([1, 10]))


# ---- CrossMapLRN2d ---------------------------------------------------------------------------


@pytest.mark.parametrize("size", [2, 3, 5, 6])
@pytest.mark.parametrize("channels", [1, 4, 7])
def test_cross_map_lrn2d(size, channels):
    kw = {"alpha": 0.3, "beta": 0.6, "k": 1.5}
    x = np.random.RandomState(size).randn(2, channels, 3, 2)
    fx, tx = flow.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    fy, ty = flow.nn.CrossMapLRN2d(size, **kw)(fx), torch.nn.CrossMapLRN2d(size, **kw)(tx)
    np.testing.assert_allclose(_np(fy), _np(ty), atol=1e-12)
    g = np.random.RandomState(9).randn(*x.shape)
    fy.backward(flow.tensor(g))
    ty.backward(torch.tensor(g))
    np.testing.assert_allclose(_np(fx.grad), _np(tx.grad), atol=1e-12)
    assert repr(flow.nn.CrossMapLRN2d(size, **kw)) == repr(torch.nn.CrossMapLRN2d(size, **kw))
    with pytest.raises(ValueError, match="Expected input to be 4D, got 3D"):
        flow.nn.CrossMapLRN2d(size)(flow.zeros(2, 3, 4))


# ---- DataParallel ----------------------------------------------------------------------------


def test_data_parallel_cpu():
    inner = flow.nn.Linear(3, 2)
    dp = flow.nn.DataParallel(inner)
    assert dp.module is inner and dp.device_ids == [] and dp.dim == 0
    x = flow.randn(4, 3)
    np.testing.assert_array_equal(_np(dp(x)), _np(inner(x)))
    assert list(dp.state_dict()) == list(torch.nn.DataParallel(torch.nn.Linear(3, 2)).state_dict())
    assert list(dp.state_dict()) == ["module.weight", "module.bias"]
    with pytest.raises(TypeError, match="module must be an nn.Module"):
        flow.nn.DataParallel(lambda x: x)


# ---- multi_head_attention_forward ------------------------------------------------------------


def _mha_args(lib, rng, E=6, H=2, L=3, S=4, N=2, kdim=None, bias_kv=False, batched=True, dtype=np.float64):
    def t(*shape):
        return lib.tensor(rng.randn(*shape).astype(dtype), requires_grad=True)

    kd = kdim or E
    q = t(L, N, E) if batched else t(L, E)
    k = t(S, N, kd) if batched else t(S, kd)
    v = t(S, N, kd) if batched else t(S, kd)
    params = {
        "in_proj_weight": t(3 * E, E),
        "in_proj_bias": t(3 * E),
        "bias_k": t(1, 1, E) if bias_kv else None,
        "bias_v": t(1, 1, E) if bias_kv else None,
        "out_proj_weight": t(E, E),
        "out_proj_bias": t(E),
    }
    if kdim:
        params.update(q_proj_weight=t(E, E), k_proj_weight=t(E, kd), v_proj_weight=t(E, kd))
    return q, k, v, params


MHA_CASES = {
    "plain": {},
    "bias_kv_zero_attn": {"bias_kv": True, "add_zero_attn": True},
    "separate_proj": {"kdim": 5},
    "unbatched": {"batched": False},
    "bool_mask_kpm": {"mask": "bool", "kpm": True},
    "float_mask_per_head": {"mask": "float3d", "avg": False},
    "no_weights_causal": {"mask": "causal", "need_weights": False, "is_causal": True},
    "static_kv": {"static": True},
}


@pytest.mark.parametrize("case", sorted(MHA_CASES))
def test_multi_head_attention_forward(case):
    c = MHA_CASES[case]
    E, H, L, S, N = 6, 2, 3, 4, 2
    if c.get("mask") == "causal":
        S = L
    outs, leaves = [], []
    for lib in (flow, torch):
        rng = np.random.RandomState(0)
        q, k, v, p = _mha_args(
            lib, rng, E, H, L, S, N, kdim=c.get("kdim"), bias_kv=c.get("bias_kv", False), batched=c.get("batched", True)
        )
        kw = {}
        if c.get("mask") == "bool":
            kw["attn_mask"] = lib.tensor(rng.rand(L, S) > 0.7)
        elif c.get("mask") == "float3d":
            kw["attn_mask"] = lib.tensor(rng.randn(N * H, L, S))
        elif c.get("mask") == "causal":
            kw["attn_mask"] = lib.tensor(np.triu(np.ones((L, S), bool), 1))
        if c.get("kpm"):
            kw["key_padding_mask"] = lib.tensor(np.array([[False] * (S - 1) + [True], [False] * S]))
        if c.get("static"):
            kw["static_k"] = lib.tensor(rng.randn(N * H, 5, E // H), requires_grad=True)
            kw["static_v"] = lib.tensor(rng.randn(N * H, 5, E // H), requires_grad=True)
        out, w = lib.nn.functional.multi_head_attention_forward(
            q,
            k,
            v,
            E,
            H,
            p["in_proj_weight"],
            p["in_proj_bias"],
            p["bias_k"],
            p["bias_v"],
            c.get("add_zero_attn", False),
            0.0,
            p["out_proj_weight"],
            p["out_proj_bias"],
            training=True,
            need_weights=c.get("need_weights", True),
            use_separate_proj_weight=bool(c.get("kdim")),
            q_proj_weight=p.get("q_proj_weight"),
            k_proj_weight=p.get("k_proj_weight"),
            v_proj_weight=p.get("v_proj_weight"),
            average_attn_weights=c.get("avg", True),
            is_causal=c.get("is_causal", False),
            **kw,
        )
        loss = (out**2).sum() + (0 if w is None else (w * w).sum())
        loss.backward()
        outs.append((out, w))
        leaves.append([x for x in (q, k, v, *p.values(), kw.get("static_k")) if x is not None])
    (fo, fw), (to, tw) = outs
    np.testing.assert_allclose(_np(fo), _np(to), atol=1e-10)
    assert (fw is None) == (tw is None)
    if fw is not None:
        np.testing.assert_allclose(_np(fw), _np(tw), atol=1e-10)
    for a, b in zip(*leaves):
        if b.grad is None:
            continue
        np.testing.assert_allclose(_np(a.grad), _np(b.grad), atol=1e-9)


def test_multi_head_attention_forward_errors():
    rng = np.random.RandomState(0)
    q, k, v, p = _mha_args(flow, rng)
    args = (p["in_proj_weight"], p["in_proj_bias"], None, None, False, 0.0, p["out_proj_weight"], p["out_proj_bias"])
    mha = FF.multi_head_attention_forward
    with pytest.raises(AssertionError, match="was expecting embedding dimension of 8"):
        mha(q, k, v, 8, 2, *args)
    with pytest.raises(AssertionError, match="not divisible by num_heads"):
        mha(q, k, v, 6, 4, *args)
    with pytest.raises(RuntimeError, match="Need attn_mask if specifying the is_causal hint"):
        mha(q, k, v, 6, 2, *args, is_causal=True)
    with pytest.raises(RuntimeError, match="The shape of the 2D attn_mask"):
        mha(q, k, v, 6, 2, *args, attn_mask=flow.zeros(3, 3, dtype=flow.float64))
    with pytest.raises(AssertionError, match="query should be unbatched 2D or batched 3D"):
        mha(q.unsqueeze(0), k, v, 6, 2, *args)
    with pytest.raises(AssertionError, match="only bool and floating types of attn_mask"):
        mha(q, k, v, 6, 2, *args, attn_mask=flow.zeros(3, 4, dtype=flow.long))
    with pytest.raises(AssertionError, match="use_separate_proj_weight is True but q_proj_weight is None"):
        mha(q, k, v, 6, 2, *args, use_separate_proj_weight=True)
    with pytest.raises(AssertionError, match="bias_k is set but bias_v is None"):
        mha(q, k, v, 6, 2, args[0], args[1], flow.zeros(1, 1, 6, dtype=flow.float64), None, *args[4:])


def test_multihead_attention_module_matches_functional():
    m = flow.nn.MultiheadAttention(6, 2, bias=True).double()
    q = flow.tensor(np.random.RandomState(1).randn(3, 2, 6))
    out, w = m(q, q, q)
    out2, w2 = FF.multi_head_attention_forward(
        q, q, q, 6, 2, m.in_proj_weight, m.in_proj_bias, None, None, False, 0.0, m.out_proj.weight, m.out_proj.bias
    )
    np.testing.assert_allclose(_np(out), _np(out2), atol=1e-12)
    np.testing.assert_allclose(_np(w), _np(w2), atol=1e-12)


# ---- linear_cross_entropy / LinearCrossEntropyLoss --------------------------------------------

LCE_CASES = {
    "indices_mean": dict(x=(5, 4), w=(6, 4), target="idx", bias=True),
    "indices_sum_weight": dict(x=(5, 4), w=(6, 4), target="idx", reduction="sum", weight=True, ignore_index=2),
    "unbatched": dict(x=(4,), w=(6, 4), target="idx0"),
    "probs_smoothing": dict(x=(5, 4), w=(6, 4), target="prob", label_smoothing=0.2, reduction="none"),
    "k_dim": dict(x=(5, 4), w=(6, 3, 4), target="idxk", bias=True, weight=True, options=True),
}


@pytest.mark.parametrize("case", sorted(LCE_CASES))
def test_linear_cross_entropy(case):
    c = LCE_CASES[case]
    rng = np.random.RandomState(2)
    x, w = rng.randn(*c["x"]), rng.randn(*c["w"])
    b = rng.randn(*c["w"][:-1]) if c.get("bias") else None
    cw = rng.rand(c["w"][0]) + 0.5 if c.get("weight") else None
    n, classes = (c["x"][0] if len(c["x"]) == 2 else None), c["w"][0]
    if c["target"] == "idx":
        y = rng.randint(0, classes, size=n)
    elif c["target"] == "idx0":
        y = np.array(rng.randint(0, classes))
    elif c["target"] == "idxk":
        y = rng.randint(0, classes, size=(n, *c["w"][1:-1]))
    else:
        y = rng.rand(n, classes)
        y /= y.sum(1, keepdims=True)
    results = []
    for lib in (flow, torch):
        tx, tw = lib.tensor(x, requires_grad=True), lib.tensor(w, requires_grad=True)
        tb = None if b is None else lib.tensor(b, requires_grad=True)
        kw = {k: c[k] for k in ("reduction", "ignore_index", "label_smoothing") if k in c}
        if c.get("options"):
            kw["options"] = lib.nn.LinearCrossEntropyOptions(batch_chunk_size=2)
        loss = lib.nn.functional.linear_cross_entropy(
            tx, tw, lib.tensor(y), linear_bias=tb, weight=None if cw is None else lib.tensor(cw), **kw
        )
        (loss.sum() if loss.dim() else loss).backward()
        results.append((loss, tx.grad, tw.grad, None if tb is None else tb.grad))
    for a, bb in zip(*results):
        if bb is not None:
            np.testing.assert_allclose(_np(a), _np(bb), atol=1e-10)


@pytest.mark.parametrize("out_features,bias", [((), False), ((3,), True)])
def test_linear_cross_entropy_loss_module(out_features, bias):
    fm = flow.nn.LinearCrossEntropyLoss(4, 5, out_features=out_features, bias=bias, label_smoothing=0.1).double()
    tm = torch.nn.LinearCrossEntropyLoss(4, 5, out_features=out_features, bias=bias, label_smoothing=0.1).double()
    assert list(fm.state_dict()) == list(tm.state_dict())
    _same(fm, tm)
    rng = np.random.RandomState(3)
    x, y = rng.randn(6, 4), rng.randint(0, 5, size=(6, *out_features))
    fl, tl = fm(flow.tensor(x), flow.tensor(y)), tm(torch.tensor(x), torch.tensor(y))
    np.testing.assert_allclose(_np(fl), _np(tl), atol=1e-12)
    fl.backward()
    tl.backward()
    _grads_match(fm, tm, 1e-12)


def test_linear_cross_entropy_errors():
    lce = FF.linear_cross_entropy
    with pytest.raises(RuntimeError, match="expected input with dimensionality 1 or 2, got 3"):
        lce(flow.zeros(2, 3, 4), flow.zeros(5, 4), flow.zeros(2, dtype=flow.long))
    with pytest.raises(RuntimeError, match="expected linear_weight with dimensionality at least 2"):
        lce(flow.zeros(2, 4), flow.zeros(4), flow.zeros(2, dtype=flow.long))
    with pytest.raises(RuntimeError, match="expected equal input and linear_weight last dimensions"):
        lce(flow.zeros(2, 4), flow.zeros(5, 3), flow.zeros(2, dtype=flow.long))
    with pytest.raises(RuntimeError, match="expected linear_bias shape \\(5,\\)"):
        lce(flow.zeros(2, 4), flow.zeros(5, 4), flow.zeros(2, dtype=flow.long), linear_bias=flow.zeros(4))
    with pytest.raises(RuntimeError, match="requires batched input"):
        lce(flow.zeros(4), flow.zeros(5, 2, 4), flow.zeros((), dtype=flow.long))
    with pytest.raises(RuntimeError, match="ignore_index cannot be specified when target contains probabilities"):
        lce(flow.zeros(2, 4), flow.zeros(5, 4), flow.zeros(2, 5), ignore_index=1)
    with pytest.raises(TypeError, match="options must be a LinearCrossEntropyOptions"):
        lce(flow.zeros(2, 4), flow.zeros(5, 4), flow.zeros(2, dtype=flow.long), options={"chunk": 2})
    Options = flow.nn.LinearCrossEntropyOptions
    for kw, msg in (
        ({"acc_policy": "fast"}, "invalid acc_policy"),
        ({"chunking_method": "rows"}, "invalid chunking"),
        ({"batch_chunk_size": 0}, "batch_chunk_size must be positive"),
        ({"acc_dtype": flow.int32}, "acc_dtype must be one of"),
    ):
        with pytest.raises(ValueError, match=msg):
            Options(**kw)
    Options(chunking_method="aspect_ratio:2", acc_policy="compact", acc_dtype=flow.float32)
    with pytest.raises(RuntimeError, match="expected weight shape to be \\(5,\\)"):
        flow.nn.LinearCrossEntropyLoss(4, 5, weight=flow.ones(4))
    with pytest.raises(RuntimeError, match="expected label_smoothing to be in range"):
        flow.nn.LinearCrossEntropyLoss(4, 5, label_smoothing=1.5)


# ---- grouped_mm ------------------------------------------------------------------------------


def _grouped_inputs(rng, kind):
    G = 3
    if kind == "2d3d":
        return rng.randn(10, 8), rng.randn(G, 8, 4), [2, 5, 8]
    if kind == "3d3d":
        return rng.randn(G, 4, 8), rng.randn(G, 8, 4), None
    if kind == "2d2d":
        return rng.randn(4, 12), rng.randn(12, 8), [4, 8, 12]
    return rng.randn(G, 4, 8), rng.randn(8, 12), [4, 8, 12]


@pytest.mark.parametrize("kind", ["2d3d", "3d3d", "2d2d", "3d2d"])
def test_grouped_mm(kind):
    a, b, offs = _grouped_inputs(np.random.RandomState(5), kind)
    a, b = a.astype(np.float32), b.astype(np.float32)
    fo = FF.grouped_mm(
        flow.tensor(a), flow.tensor(b), offs=None if offs is None else flow.tensor(offs, dtype=flow.int32)
    )
    to = TF.grouped_mm(
        torch.tensor(a), torch.tensor(b), offs=None if offs is None else torch.tensor(offs, dtype=torch.int32)
    )
    assert tuple(fo.shape) == tuple(to.shape)
    if kind == "2d3d":  # torch leaves the rows past offs[-1] unwritten; ours are zero
        np.testing.assert_allclose(_np(fo)[: offs[-1]], _np(to)[: offs[-1]], atol=1e-5)
        np.testing.assert_array_equal(_np(fo)[offs[-1] :], 0)
    else:
        np.testing.assert_allclose(_np(fo), _np(to), atol=1e-5)


def test_grouped_mm_gradients():
    # torch's CPU grouped_mm has no working backward; the reference is per-group matmul.
    rng = np.random.RandomState(6)
    a, b = rng.randn(7, 4).astype(np.float32), rng.randn(2, 4, 3).astype(np.float32)
    fa, fb = flow.tensor(a, requires_grad=True), flow.tensor(b, requires_grad=True)
    ta, tb = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
    FF.grouped_mm(fa, fb, offs=flow.tensor([3, 6], dtype=flow.int32)).sum().backward()
    torch.cat([ta[:3] @ tb[0], ta[3:6] @ tb[1]]).sum().backward()
    np.testing.assert_allclose(_np(fa.grad), _np(ta.grad), atol=1e-5)
    np.testing.assert_allclose(_np(fb.grad), _np(tb.grad), atol=1e-5)


def test_grouped_mm_errors():
    a, b = flow.zeros(10, 8), flow.zeros(3, 8, 4)
    offs = flow.tensor([2, 5, 8], dtype=flow.int32)
    cases = [
        (lambda: FF.grouped_mm(a, b, offs=offs, bias=flow.zeros(3, 4)), "Bias not supported"),
        (lambda: FF.grouped_mm(a, b), "Have to provide offsets"),
        (lambda: FF.grouped_mm(flow.zeros(3, 4, 8), b, offs=offs), "Have to provide offsets"),
        (lambda: FF.grouped_mm(a, b, offs=offs.long()), "Offsets have to be int32"),
        (lambda: FF.grouped_mm(a.double(), b.double(), offs=offs), "Float32, BFloat16 or Float16"),
        (lambda: FF.grouped_mm(a.reshape(1, 1, 10, 8), b, offs=offs), "has to be 2 or 3d"),
        (lambda: FF.grouped_mm(a, b[:, :4], offs=offs), "contraction dimension"),
        (lambda: FF.grouped_mm(a, b, offs=offs[:2]), "batch sizes have to match"),
        (lambda: FF.grouped_mm(a, b, offs=offs, out_dtype=flow.float64), "output dtype must match"),
        (lambda: FF.grouped_mm(a, b, offs=flow.tensor([2, 1, 8], dtype=flow.int32)), "non-decreasing"),
    ]
    for fn, msg in cases:
        with pytest.raises(RuntimeError, match=msg):
            fn()


# ---- adaptive_max_pool*d_with_indices --------------------------------------------------------


@pytest.mark.parametrize("dims,shape,size", [(1, (2, 3, 9), 4), (2, (2, 3, 7, 6), (3, 2)), (3, (1, 2, 5, 4, 6), 2)])
def test_adaptive_max_pool_with_indices(dims, shape, size):
    x = np.random.RandomState(7).randn(*shape)
    name = f"adaptive_max_pool{dims}d_with_indices"
    fx, tx = flow.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    (fv, fi), (tv, ti) = getattr(FF, name)(fx, size), getattr(TF, name)(tx, size)
    np.testing.assert_array_equal(_np(fv), _np(tv))
    np.testing.assert_array_equal(_np(fi), _np(ti))
    fv.sum().backward()
    tv.sum().backward()
    np.testing.assert_array_equal(_np(fx.grad), _np(tx.grad))
    # return_indices is ignored: both are always returned
    assert len(getattr(FF, name)(fx, size, return_indices=False)) == 2
