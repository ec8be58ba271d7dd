"""SBP rule families, part 2: matmul, normalizations, convolutions and pools, embedding and
gather, and losses (see :mod:`oneflow.distributed.sbp_families`).
"""

from __future__ import annotations

import math

import oneflow
from oneflow import _C
from oneflow.distributed import _layout
from oneflow.distributed._sbp_common import (
    _allreduce_axes,
    _broadcast,
    _bs,
    _call,
    _coord,
    _elementwise_cands,
    _local_shape_of,
    _random_rule,
    _wrap_dim,
    along_dim,
)
from oneflow.distributed.dispatch import Rule, Sig, all_b
from oneflow.distributed.sbp import B, P, S

# ---- matmul family -------------------------------------------------------------------------------


def _matmul_cands(call, a, b, extra=None) -> list:
    """Signatures of a @ b (matmul broadcasting rules); ``extra`` adds slots after the two."""
    k = len(call.slots)
    cands = [all_b(call)]

    def sig(sa, sb, out, sizes=None):
        ins = [B] * k
        ins[0], ins[1] = sa, sb
        return Sig(ins, [out], {0: sizes} if sizes else None)

    if a.ndim == 1 and b.ndim == 1:
        cands.append(sig(S(0), S(0), P))
    elif a.ndim >= 2 and b.ndim == 1:
        for d in range(a.ndim - 1):
            cands.append(sig(S(d), B, S(d), {d: a.shape[d]}))
        cands.append(sig(S(a.ndim - 1), S(0), P))
    elif a.ndim == 1 and b.ndim >= 2:
        out_ndim = b.ndim - 1
        for d in range(b.ndim - 2):
            cands.append(sig(B, S(d), S(d), {d: b.shape[d]}))
        cands.append(sig(B, S(b.ndim - 1), S(out_ndim - 1), {out_ndim - 1: b.shape[-1]}))
        cands.append(sig(S(0), S(b.ndim - 2), P))
    else:
        batch = _broadcast([a.shape[:-2], b.shape[:-2]])
        nb = len(batch)
        out_ndim = nb + 2
        for d in range(nb):
            da, db = d - (nb - (a.ndim - 2)), d - (nb - (b.ndim - 2))
            sa = S(da) if da >= 0 and a.shape[da] == batch[d] else B
            sb = S(db) if db >= 0 and b.shape[db] == batch[d] else B
            cands.append(sig(sa, sb, S(d), {d: batch[d]}))
        cands.append(sig(S(a.ndim - 2), B, S(out_ndim - 2), {out_ndim - 2: a.shape[-2]}))
        cands.append(sig(B, S(b.ndim - 1), S(out_ndim - 1), {out_ndim - 1: b.shape[-1]}))
        cands.append(sig(S(a.ndim - 1), S(b.ndim - 2), P))
    cands.append(sig(P, B, P))
    cands.append(sig(B, P, P))
    return cands


def _matmul_rule(call):
    return Rule(_matmul_cands(call, call.metas[0], call.metas[1]))


def _linear_rule(call):
    x, w = call.metas[0], call.metas[1]
    k = len(call.slots)
    has_bias = k == 3
    if w.ndim != 2:
        return Rule([all_b(call)])
    out_ndim = x.ndim
    cands = [all_b(call)]

    def sig(sx, sw, sb, out, sizes=None):
        ins = [sx, sw] + ([sb] if has_bias else [])
        return Sig(ins, [out], {0: sizes} if sizes else None)

    for d in range(x.ndim - 1):
        cands.append(sig(S(d), B, B, S(d), {d: x.shape[d]}))
    cands.append(sig(B, S(0), S(0), S(out_ndim - 1), {out_ndim - 1: w.shape[0]}))
    cands.append(sig(S(x.ndim - 1), S(1), P, P))
    cands.append(sig(P, B, P, P))
    cands.append(sig(B, P, P, P))
    return Rule(cands)


def _addmm_rule(call):
    bias, a, b = call.metas
    k = len(call.slots)
    cands = [all_b(call)]
    m, n = a.shape[0], b.shape[1]

    def bias_sbp(out_dim, size):
        dk = out_dim - (2 - bias.ndim)
        return S(dk) if dk >= 0 and bias.shape[dk] == size else B

    cands.append(Sig([bias_sbp(0, m), S(0), B][:k], [S(0)], {0: {0: m}}))
    cands.append(Sig([bias_sbp(1, n), B, S(1)][:k], [S(1)], {0: {1: n}}))
    cands.append(Sig([P, S(1), S(0)][:k], [P]))
    cands.append(Sig([P, P, B][:k], [P]))
    cands.append(Sig([P, B, P][:k], [P]))
    return Rule(cands)


def _outer_rule(call):
    a, b = call.metas
    return Rule([all_b(call), Sig([S(0), B], [S(0)], {0: {0: a.shape[0]}}),
                 Sig([B, S(0)], [S(1)], {0: {1: b.shape[0]}}), Sig([P, B], [P]), Sig([B, P], [P])])


# ---- normalizations ------------------------------------------------------------------------------------


def _layer_norm_rule(call):
    x = call.metas[0]
    k = len(call.slots)
    axis = x.ndim - len(call.arg("normalized_shape"))
    nout = len(call.info.returns)
    cands = [all_b(call)]
    for d in range(axis):
        cands.append(Sig(_bs(k, s0=S(d)), [S(d)] * nout, {j: {d: x.shape[d]} for j in range(nout)}))
    return Rule(cands, empty_ok=False)


def _group_norm_rule(call):
    x = call.metas[0]
    k = len(call.slots)
    return Rule([all_b(call), Sig(_bs(k, s0=S(0)), [S(0)], {0: {0: x.shape[0]}})], empty_ok=False)


def _batch_norm_rule(call, instance: bool = False):
    x = call.metas[0]
    k = len(call.slots)
    nout = len(call.info.returns)
    training = bool(call.arg("training", call.arg("use_input_stats", False)))
    cands = [all_b(call)]
    if x.ndim >= 2:
        # A split channel dimension: statistics are per channel, so every rank has its own.
        ins = [S(1)] + [S(0)] * (k - 1)
        outs = [S(1)] + [S(0)] * (nout - 1)
        sizes = {0: {1: x.shape[1]}}
        sizes.update({j: {0: x.shape[1]} for j in range(1, nout)})
        cands.append(Sig(ins, outs, sizes))
    if not training or instance and call.arg("running_mean") is None:
        for d in range(x.ndim):
            if d != 1:
                cands.append(Sig(_bs(k, s0=S(d)), [S(d)] + [B] * (nout - 1), {0: {d: x.shape[d]}}))
    return Rule(cands)


# ---- convolution and friends --------------------------------------------------------------------


def _conv_rule(call, transposed: bool = False):
    x, w = call.metas[0], call.metas[1]
    k = len(call.slots)
    groups = call.arg("groups", 1)
    transposed = transposed or bool(call.arg("transposed", False))
    batched = x.ndim == w.ndim
    cands = [all_b(call)]

    def sig(sx, sw, sb, out, sizes=None):
        return Sig([sx, sw] + ([sb] if k == 3 else []), [out], {0: sizes} if sizes else None)

    if batched:
        cands.append(sig(S(0), B, B, S(0), {0: x.shape[0]}))
    ch = 1 if batched else 0
    if groups == 1:
        out_ch = w.shape[1] if transposed else w.shape[0]
        cands.append(sig(B, S(1) if transposed else S(0), S(0), S(ch), {ch: out_ch}))
        cands.append(sig(S(ch), S(0) if transposed else S(1), P, P))
    cands.append(sig(P, B, P, P))
    return Rule(cands, empty_ok=False)


def spatial(n_spatial: int, linear: bool = False, input_size_arg: str | None = None, nout: int | None = None):
    """Pools, pads and resampling: split the leading (batch/channel) dimensions."""

    def rule(call):
        x = call.metas[0]
        k = len(call.slots)
        count = nout or len(call.info.returns)
        ns = n_spatial
        if ns is None:  # pads: the pad list covers the last len(pad) // 2 dims
            ns = len(call.arg("pad", call.arg("padding", []))) // 2
        cands = [all_b(call)]
        for d in range(max(0, x.ndim - ns)):
            cands.append(Sig(_bs(k, s0=S(d)), [S(d)] * count, {j: {d: x.shape[d]} for j in range(count)}))
        if linear:
            cands.append(Sig(_bs(k, s0=P), [P] * count))
        local = None
        if input_size_arg is not None:
            def local(call, args, chosen):
                args = list(args)
                args[call.info.index[input_size_arg]] = list(_local_shape_of(args[0]))
                return _C._call_op(call.info.full_name, args)

        return Rule(cands, local=local, empty_ok=False)

    return rule


def _constant_pad_rule(call):
    value = call.arg("value", 0)
    return spatial(None, linear=value == 0)(call)


# ---- embedding, gather ---------------------------------------------------------------------------


def _embedding_rule(call):
    w, idx = call.metas
    cands = [all_b(call)]
    for d in range(idx.ndim):
        cands.append(Sig([B, S(d)], [S(d)], {0: {d: idx.shape[d]}}))
    if w.ndim == 2:
        cands.append(Sig([S(1), B], [S(idx.ndim)], {0: {idx.ndim: w.shape[1]}}))
        cands.append(Sig([S(0), B], [P]))

    def local(call, args, chosen):
        weight, indices = args[0], args[1]
        nd = tuple(sig.ins[0] for sig in chosen)
        if not any(s.is_split() and s.axis == 0 for s in nd):
            return _C._call_op(call.info.full_name, args)
        coord = _coord(call)
        if coord is None:
            start, length = 0, _local_shape_of(weight)[0]
        else:
            start, length = _layout.local_box(w.shape, nd, call.placement.hierarchy, coord)[0]
        shifted = _call("sub", indices, start)
        outside = _call("logical_or", _call("lt", shifted, 0), _call("ge", shifted, length))
        safe = _call("masked_fill.Scalar", shifted, outside, 0)
        padding_idx = call.arg("padding_idx", -1)
        if padding_idx is not None and padding_idx >= 0:
            padding_idx = padding_idx - start if start <= padding_idx < start + length else -1
        out = _call(call.info.full_name, weight, safe, padding_idx, call.arg("scale_grad_by_freq", False),
                    call.arg("sparse", False))
        keep = _call("unsqueeze", _call("logical_not", outside), -1)
        return _call("mul", out, keep)

    return Rule(cands, local=local)


def _index_select_rule(call):
    x, idx = call.metas
    dim = _wrap_dim(call.arg("dim"), x.ndim)
    cands = [all_b(call)]
    for d in range(x.ndim):
        if d != dim:
            cands.append(Sig([S(d), B], [S(d)], {0: {d: x.shape[d]}}))
    if idx.ndim == 1:
        cands.append(Sig([B, S(0)], [S(dim)], {0: {dim: idx.shape[0]}}))
    cands.append(Sig([P, B], [P]))
    return Rule(cands)


def _gather_rule(call):
    x, idx = call.metas
    dim = _wrap_dim(call.arg("dim"), x.ndim)
    cands = [all_b(call)]
    for d in range(x.ndim):
        if d != dim and idx.ndim == x.ndim and idx.shape[d] == x.shape[d]:
            cands.append(Sig([S(d), S(d)], [S(d)], {0: {d: x.shape[d]}}))
    if idx.ndim == x.ndim:
        cands.append(Sig([B, S(dim)], [S(dim)], {0: {dim: idx.shape[dim]}}))
    cands.append(Sig([P, B], [P]))
    return Rule(cands)


def _one_hot_rule(call):
    x = call.metas[0]
    if call.arg("num_classes", -1) < 0:
        return Rule([all_b(call)])
    return Rule([all_b(call)] + [Sig([S(d)], [S(d)], {0: {d: x.shape[d]}}) for d in range(x.ndim)])


# ---- losses ---------------------------------------------------------------------------------------------


def _pointwise_loss_rule(call):
    reduction = call.arg("reduction", "mean")
    metas = call.metas
    if any(m is None for m in metas):
        return Rule([all_b(call)])
    if reduction == "none":
        return Rule(_elementwise_cands(call))
    out = _broadcast([m.shape for m in metas])
    cands = [all_b(call)]
    for c in _elementwise_cands(call)[1:]:
        cands.append(Sig(c.ins, [P]))
    if reduction == "sum":
        return Rule(cands)
    count = math.prod(out)
    if reduction == "batchmean":
        count = out[0] if out else 1

    def local(call, args, chosen):
        args = list(args)
        args[call.info.index["reduction"]] = "sum"
        total = _C._call_op(call.info.full_name, args)
        return _call("div", total, count)

    return Rule(cands, local=local)


def _class_loss_rule(call):
    """cross_entropy / nll_loss with class-index targets: split batch (and spatial) dims."""
    x, t = call.metas[0], call.metas[1]
    k = len(call.slots)
    reduction = call.arg("reduction", "mean")
    cands = [all_b(call)]
    if x is None or t is None or t.dtype.is_floating_point or x.ndim < 2 or t.ndim != x.ndim - 1:
        return Rule(cands)
    for d in range(x.ndim):
        if d == 1:
            continue
        dt = 0 if d == 0 else d - 1
        ins = [S(d), S(dt)] + [B] * (k - 2)
        if reduction == "none":
            cands.append(Sig(ins, [S(dt)], {0: {dt: t.shape[dt]}}))
        else:
            cands.append(Sig(ins, [P]))
    if reduction != "mean":
        return Rule(cands)

    def local(call, args, chosen):
        args = list(args)
        args[call.info.index["reduction"]] = "sum"
        total = _C._call_op(call.info.full_name, args)
        target, weight = args[1], args[call.info.index["weight"]]
        valid = _call("ne", target, call.arg("ignore_index", -100))
        if weight is None:
            denom = _call("sum", valid, oneflow.float64)
        else:
            safe = _call("masked_fill.Scalar", target, _call("logical_not", valid), 0)
            picked = _call("index_select", weight, 0, _call("reshape", safe, [-1]))
            denom = _call("sum", _call("mul", picked, _call("reshape", valid, [-1])), oneflow.float64)
        denom = _allreduce_axes(denom, call, chosen, 0)
        return _call("div", total, _call("_to_dtype", denom, total.dtype, False))

    return Rule(cands, local=local)


def _sdpa_rule(call):
    q = call.metas[0]
    if call.arg("dropout_p", 0.0) > 0:
        return _random_rule(call)
    k = len(call.slots)
    cands = [all_b(call)]
    for d in range(q.ndim - 2):
        ins = []
        for m in call.metas:
            dk = d - (q.ndim - m.ndim) if m is not None else -1
            ins.append(S(dk) if m is not None and dk >= 0 and m.shape[dk] == q.shape[d] else B)
        if ins[1].is_split() and ins[2].is_split():
            cands.append(Sig(ins[:k], [S(d)], {0: {d: q.shape[d]}}))
    return Rule(cands)


def _prelu_rule(call):
    x, w = call.metas
    cands = [all_b(call)]
    for d in range(x.ndim):
        if d != 1 or w.shape == (1,) or w.ndim == 0:
            cands.append(Sig([S(d), B], [S(d)], {0: {d: x.shape[d]}}))
    if x.ndim >= 2 and w.ndim == 1 and w.shape[0] == x.shape[1] and w.shape[0] > 1:
        cands.append(Sig([S(1), S(0)], [S(1)], {0: {1: x.shape[1]}}))
    return Rule(cands)


def _glu_like_rule(arg: str):
    return along_dim(arg)


def _cosine_similarity_rule(call):
    a, b = call.metas
    if a.ndim != b.ndim or a.shape != b.shape:
        return Rule([all_b(call)])
    dim = _wrap_dim(call.arg("dim"), a.ndim)
    cands = [all_b(call)]
    for d in range(a.ndim):
        if d != dim:
            d_out = d if d < dim else d - 1
            cands.append(Sig([S(d), S(d)], [S(d_out)], {0: {d_out: a.shape[d]}}))
    return Rule(cands)


def _pairwise_distance_rule(call):
    a, b = call.metas
    if a.shape != b.shape or a.ndim < 2:
        return Rule([all_b(call)])
    keep = bool(call.arg("keepdim", False))
    cands = [all_b(call)]
    for d in range(a.ndim - 1):
        cands.append(Sig([S(d), S(d)], [S(d)], {0: {d: a.shape[d]}}))
    del keep
    return Rule(cands)
