"""SBP rule families: for each family an op can declare (``.Sbp(...)`` in its OpDef, see
core/framework/op_traits.h), the 1-D signatures valid for a call's global shapes. No op is named
here: an op says which family it belongs to, with the family's parameters, in its declaration, and
``flow._C.op_info(name)["sbp"]`` reads it back.

A rule gets the :class:`~oneflow.distributed.dispatch.Call` (global shapes and dtypes of the
tensor inputs, the other arguments) and returns a :class:`~oneflow.distributed.dispatch.Rule`.
Signatures list the sbp of every tensor input (Python numbers count as broadcast) and output,
and the global size of each split output dimension. The all-broadcast signature is always listed
(any deterministic op is correct on whole tensors). Rules with a local computation (a mean over a
split dimension, an embedding over a split vocabulary, reshape with local sizes, ...) give it as
``local(call, args, chosen)``.

Families: elementwise and broadcasting ops (partial sums through the linear ones: add/sub of
two partial sums, mul/div of a partial sum by a broadcast), reductions (a sum or mean over a
split dimension gives a partial sum), matmul/mm/bmm/mv/dot/outer/linear/addmm, softmax and
normalizations along unsplit dimensions, convolutions (split batch, split output channels, or a
split input channel giving a partial sum), pools/pads/upsampling (batch and channel), embedding
(split indices, split hidden, or split vocabulary giving a partial sum), gather/index_select,
cat/stack/split/chunk/unbind, reshape/view/flatten where the split survives, squeeze/unsqueeze,
expand, transpose/permute, slicing along unsplit dimensions, losses (a split batch gives a
partial sum), in-place fills and copies, and random ops (drawn on whole tensors on every rank,
then sliced, so that they match one process).
"""

from __future__ import annotations

import math

import oneflow
from oneflow import _C
from oneflow.distributed import _coll, _layout, env
from oneflow.distributed.dispatch import ALL_B, Rule, Sig, all_b, call_op
from oneflow.distributed.sbp import B, P, S, nd_repr

# ---- helpers --------------------------------------------------------------------------------------


def _wrap_dim(d: int, ndim: int) -> int:
    n = max(ndim, 1)
    if not -n <= d < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {d})")
    return d % n


def _broadcast(shapes) -> tuple:
    ndim = max((len(s) for s in shapes), default=0)
    out = [1] * ndim
    for s in shapes:
        for i, n in enumerate(s):
            k = ndim - len(s) + i
            if out[k] == 1:
                out[k] = n
            elif n != 1 and n != out[k]:
                raise ValueError(f"shapes {list(map(list, shapes))} do not broadcast")
    return tuple(out)


def _bs(k_slots: int, **fixed) -> list:
    """A list of B of length k_slots with some positions replaced."""
    out = [B] * k_slots
    for pos, s in fixed.items():
        out[int(pos[1:])] = s
    return out


def _local_shape_of(t) -> tuple:
    return tuple(oneflow.Tensor.size(t))


def _coord(call):
    return call.placement.coord(env.get_rank())


def _call(name: str, *args, **kwargs):
    return call_op(name, *args, **kwargs)


def _allreduce_axes(t, call, chosen, slot: int):
    """Sums ``t`` over the placement axes on which input ``slot`` is split (members only)."""
    coord = _coord(call)
    if coord is None:
        return t
    for axis, sig in enumerate(chosen):
        s = sig.ins[slot]
        if s is not None and s.is_split() and call.placement.hierarchy[axis] > 1:
            t = _coll.all_reduce(t, call.placement.axis_group(axis, coord))
    return t


# ---- elementwise ------------------------------------------------------------------------------------


def _elementwise_cands(call, p_patterns=(), out_count: int = 1) -> list:
    n = len(call.slots)
    shapes = [call.shape(k) for k in range(n)]
    out = _broadcast(shapes)
    cands = [all_b(call)]
    for d in range(len(out)):
        ins = []
        for k, s in enumerate(shapes):
            dk = d - (len(out) - len(s))
            ins.append(S(dk) if call.metas[k] is not None and dk >= 0 and s[dk] == out[d] else B)
        cands.append(Sig(ins, [S(d)] * out_count, {j: {d: out[d]} for j in range(out_count)}))
    for pat in p_patterns:
        if len(pat) == n:
            cands.append(Sig([P if c == "P" else B for c in pat], [P] * out_count))
    return cands


def elementwise(*p_patterns):
    def rule(call):
        return Rule(_elementwise_cands(call, p_patterns))

    return rule


def _to_dtype_rule(call):
    linear = call.metas[0].dtype.is_floating_point and call.arg("dtype").is_floating_point
    return Rule(_elementwise_cands(call, ("P",) if linear else ()))


def _fill_rule(call):
    m = call.metas[0]
    cands = [Sig([S(d)], [S(d)], {0: {d: m.shape[d]}}) for d in range(m.ndim)] + [Sig([B], [B]), Sig([P], [P])]

    def local(call, args, chosen):
        coord = _coord(call)
        nd = tuple(sig.ins[0] for sig in chosen)
        if coord is not None and not _layout.first_on_partial_axes(nd, coord):
            return _call("zero_", args[0])
        return _C._call_op(call.info.full_name, args)

    return Rule(cands, local=local)


def _zero_rule(call):
    m = call.metas[0]
    return Rule([Sig([S(d)], [S(d)], {0: {d: m.shape[d]}}) for d in range(m.ndim)] + [Sig([B], [B]), Sig([P], [P])])


def _copy_rule(call):
    dst, src = call.metas
    out = dst.shape
    cands = []
    for d in range(len(out)):
        dk = d - (len(out) - len(src.shape))
        s_src = S(dk) if dk >= 0 and src.shape[dk] == out[d] else B
        cands.append(Sig([S(d), s_src], [S(d)], {0: {d: out[d]}}))
    cands += [Sig([B, B], [B]), Sig([P, P], [P])]
    return Rule(cands)


# ---- reductions -------------------------------------------------------------------------------------


def _reduce_dims(call, ndim: int):
    """(reduced dims, keepdim) of a reduction call; all dims when none are given."""
    name = call.info.name
    dim = call.arg("dim")
    keepdim = bool(call.arg("keepdim", False))
    if name in ("argmax", "argmin") and dim is None:
        return None, keepdim
    if dim is None or (isinstance(dim, list) and len(dim) == 0):
        return list(range(ndim)), keepdim
    if isinstance(dim, int):
        dim = [dim]
    return sorted({_wrap_dim(d, ndim) for d in dim}), keepdim


def reduction(linear: str | None = None, nout: int = 1):
    def rule(call):
        x = call.metas[0]
        k = len(call.slots)
        dims, keepdim = _reduce_dims(call, x.ndim)
        cands = [all_b(call)]
        if dims is None or x.ndim == 0:
            return Rule(cands)
        for d in range(x.ndim):
            if d in dims:
                continue
            d_out = d if keepdim else d - sum(1 for r in dims if r < d)
            cands.append(Sig(_bs(k, s0=S(d)), [S(d_out)] * nout, {j: {d_out: x.shape[d]} for j in range(nout)}))
        local = None
        floating = x.dtype.is_floating_point or (call.arg("dtype") is not None and call.arg("dtype").is_floating_point)
        if linear and floating:
            for d in dims:
                cands.append(Sig(_bs(k, s0=S(d)), [P] * nout))
            cands.append(Sig(_bs(k, s0=P), [P] * nout))
            if linear == "mean":
                count = math.prod(x.shape[d] for d in dims)

                def local(call, args, chosen, dims=dims, keepdim=keepdim, count=count):
                    total = _call("sum.dim", args[0], dims, keepdim, call.arg("dtype"))
                    return _call("div", total, count)

        return Rule(cands, local=local)

    return rule


def along_dim(arg: str = "dim", default: int | None = None, removes: bool = False, linear: bool = False,
              nout: int = 1):
    """Ops working along one dimension (softmax, cumsum, sort, ...): split any other dimension."""

    def rule(call):
        x = call.metas[0]
        k = len(call.slots)
        dim = call.arg(arg, default)
        if dim is None:
            return Rule([all_b(call)])
        dim = _wrap_dim(dim, x.ndim)
        keep = removes and bool(call.arg("keepdim", False))
        cands = [all_b(call)]
        for d in range(x.ndim):
            if d == dim:
                continue
            d_out = d if (not removes or keep or d < dim) else d - 1
            cands.append(Sig(_bs(k, s0=S(d)), [S(d_out)] * nout, {j: {d_out: x.shape[d]} for j in range(nout)}))
        if linear:
            cands.append(Sig(_bs(k, s0=P), [P] * nout))
        return Rule(cands)

    return rule


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
    return Rule([all_b(call), Sig([S(0), B], [S(0)], {0: {0: a.shape[0]}}), Sig([B, S(0)], [S(1)], {0: {1: b.shape[0]}}),
                 Sig([P, B], [P]), Sig([B, P], [P])])


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


def _batch_norm_rule(call):
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
    if not training or call.info.name == "instance_norm" and call.arg("running_mean") is None:
        for d in range(x.ndim):
            if d != 1:
                cands.append(Sig(_bs(k, s0=S(d)), [S(d)] + [B] * (nout - 1), {0: {d: x.shape[d]}}))
    return Rule(cands)


# ---- convolution and friends --------------------------------------------------------------------


def _conv_rule(call):
    x, w = call.metas[0], call.metas[1]
    k = len(call.slots)
    groups = call.arg("groups", 1)
    transposed = call.info.name.startswith("conv_transpose") or bool(call.arg("transposed", False))
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


# ---- joining and splitting -----------------------------------------------------------------------


def _cat_rule(call):
    metas = [m for m in call.metas]
    k = len(call.slots)
    if any(m is None for m in metas):
        return Rule([all_b(call)])
    ref = next((m for m in metas if not (m.ndim == 1 and m.shape[0] == 0)), metas[0])
    dim = _wrap_dim(call.arg("dim", 0), ref.ndim)
    cands = [all_b(call)]
    if all(m.ndim == ref.ndim for m in metas):
        for d in range(ref.ndim):
            if d != dim:
                cands.append(Sig([S(d)] * k, [S(d)], {0: {d: ref.shape[d]}}))
    cands.append(Sig([P] * k, [P]))
    return Rule(cands)


def _stack_rule(call):
    metas = call.metas
    k = len(call.slots)
    ref = metas[0]
    dim = _wrap_dim(call.arg("dim", 0), ref.ndim + 1)
    cands = [all_b(call)]
    for d in range(ref.ndim):
        d_out = d if d < dim else d + 1
        cands.append(Sig([S(d)] * k, [S(d_out)], {0: {d_out: ref.shape[d]}}))
    cands.append(Sig([P] * k, [P]))
    return Rule(cands)


def _split_count(call, size: int) -> int | None:
    name, overload = call.info.name, call.info.overload
    if name == "split" and overload == "":
        step = call.arg("split_size")
        return max(1, math.ceil(size / step)) if step > 0 else None
    if name == "split" and overload == "sizes":
        return len(call.arg("split_size"))
    if name == "chunk":
        chunks = call.arg("chunks")
        if size == 0:
            return chunks
        step = math.ceil(size / chunks)
        return math.ceil(size / step)
    if name == "tensor_split" and overload == "sections":
        return call.arg("sections")
    if name == "tensor_split" and overload == "indices":
        return len(call.arg("indices")) + 1
    if name == "unbind":
        return size
    return None


def _split_rule(call):
    x = call.metas[0]
    k = len(call.slots)
    dim = _wrap_dim(call.arg("dim", 0), x.ndim)
    count = _split_count(call, x.shape[dim])
    cands = [all_b(call)]
    if count is None or k != 1:
        return Rule(cands)
    removes = call.info.name == "unbind"
    for d in range(x.ndim):
        if d != dim:
            d_out = d - 1 if removes and d > dim else d
            cands.append(Sig([S(d)], [S(d_out)] * count, {j: {d_out: x.shape[d]} for j in range(count)}))
    cands.append(Sig([P], [P] * count))
    return Rule(cands)


# ---- views and shapes ------------------------------------------------------------------------------------


def _reshape_groups(a, b) -> list | None:
    """Minimal groups of dims (of ``a`` and of ``b``) with equal products, in order."""
    groups, i, j = [], 0, 0
    try:
        while i < len(a) or j < len(b):
            gi, gj, pa, pb = [], [], 1, 1
            if i < len(a):
                pa, i = a[i], i + 1
                gi.append(i - 1)
            if j < len(b):
                pb, j = b[j], j + 1
                gj.append(j - 1)
            while pa != pb:
                if pa < pb:
                    pa, i = pa * a[i], i + 1
                    gi.append(i - 1)
                else:
                    pb, j = pb * b[j], j + 1
                    gj.append(j - 1)
            groups.append((gi, gj))
    except IndexError:
        return None
    return groups


def _resolve_shape(shape, numel: int) -> tuple | None:
    shape = list(shape)
    if shape.count(-1) > 1:
        return None
    if -1 in shape:
        rest = math.prod(s for s in shape if s != -1)
        if rest == 0 or numel % rest:
            return None
        shape[shape.index(-1)] = numel // rest
    return tuple(shape) if math.prod(shape) == numel else None


def _reshape_target(call, x) -> tuple | None:
    name = call.info.name
    if name == "flatten":
        if x.ndim == 0:
            return (1,)
        start, end = _wrap_dim(call.arg("start_dim"), x.ndim), _wrap_dim(call.arg("end_dim"), x.ndim)
        if start > end:
            return None
        return x.shape[:start] + (math.prod(x.shape[start:end + 1]),) + x.shape[end + 1:]
    return _resolve_shape(call.arg("size", call.arg("shape")), math.prod(x.shape))


def _reshape_rule(call):
    x = call.metas[0]
    target = _reshape_target(call, x)
    if target is None:
        return Rule([all_b(call)])
    groups = _reshape_groups(x.shape, target) or []
    hierarchy = set(call.placement.hierarchy)
    cands = [all_b(call)]
    for gi, go in groups:
        for d in gi:
            prefix_in = math.prod(x.shape[gi[0]:d])
            inner_in = math.prod(x.shape[d + 1:gi[-1] + 1])
            for od in go:
                prefix_out = math.prod(target[go[0]:od])
                inner_out = math.prod(target[od + 1:go[-1] + 1])
                if prefix_in != prefix_out or x.shape[d] * inner_in != target[od] * inner_out or inner_out == 0:
                    continue
                ok = True
                for n in hierarchy:
                    for r in range(n):
                        a, _ = _layout.chunk(x.shape[d], n, r)
                        a2, _ = _layout.chunk(target[od], n, r)
                        if a * inner_in != a2 * inner_out:
                            ok = False
                if ok:
                    cands.append(Sig([S(d)], [S(od)], {0: {od: target[od]}}))
    cands.append(Sig([P], [P]))

    def local(call, args, chosen):
        coord = _coord(call)
        nd = tuple(sig.out(0) for sig in chosen)
        shape = _layout.local_shape(target, nd, call.placement.hierarchy, coord or (0,) * call.placement.ndim)
        return _call("view" if call.info.name == "view" else "reshape", args[0], list(shape))

    return Rule(cands, local=local, nest_safe=False)


def _squeeze_rule(call):
    x = call.metas[0]
    dim = call.arg("dim")
    if dim is None:
        dims = [d for d in range(x.ndim) if x.shape[d] == 1]
    else:
        dims = sorted({_wrap_dim(d, x.ndim) for d in dim} & {d for d in range(x.ndim) if x.shape[d] == 1})
    cands = [all_b(call)]
    for d in range(x.ndim):
        if d not in dims:
            d_out = d - sum(1 for r in dims if r < d)
            cands.append(Sig([S(d)], [S(d_out)], {0: {d_out: x.shape[d]}}))
    cands.append(Sig([P], [P]))

    def local(call, args, chosen):
        return _call("squeeze", args[0], dims)

    return Rule(cands, local=local)


def _unsqueeze_rule(call):
    x = call.metas[0]
    dim = _wrap_dim(call.arg("dim"), x.ndim + 1)
    cands = [all_b(call)]
    for d in range(x.ndim):
        d_out = d if d < dim else d + 1
        cands.append(Sig([S(d)], [S(d_out)], {0: {d_out: x.shape[d]}}))
    cands.append(Sig([P], [P]))
    return Rule(cands)


def _expand_rule(call):
    x = call.metas[0]
    size = list(call.arg("size"))
    off = len(size) - x.ndim
    if off < 0:
        return Rule([all_b(call)])
    target = [x.shape[i - off] if s == -1 and i >= off else s for i, s in enumerate(size)]
    cands = [all_b(call)]
    for d in range(x.ndim):
        if x.shape[d] == target[d + off]:
            cands.append(Sig([S(d)], [S(d + off)], {0: {d + off: target[d + off]}}))
    cands.append(Sig([P], [P]))

    def local(call, args, chosen):
        coord = _coord(call)
        nd = tuple(sig.out(0) for sig in chosen)
        shape = _layout.local_shape(tuple(target), nd, call.placement.hierarchy, coord or (0,) * call.placement.ndim)
        return _call("expand", args[0], list(shape))

    return Rule(cands, local=local)


def _permutation(call, ndim: int) -> list:
    name = call.info.name
    if name == "permute":
        return [_wrap_dim(d, ndim) for d in call.arg("dims")]
    perm = list(range(ndim))
    if name == "t":
        return perm[::-1]
    a, b = _wrap_dim(call.arg("dim0"), ndim), _wrap_dim(call.arg("dim1"), ndim)
    perm[a], perm[b] = perm[b], perm[a]
    return perm


def _permute_rule(call):
    x = call.metas[0]
    perm = _permutation(call, x.ndim)
    cands = [all_b(call)]
    for d_out, d in enumerate(perm):
        cands.append(Sig([S(d)], [S(d_out)], {0: {d_out: x.shape[d]}}))
    cands.append(Sig([P], [P]))
    return Rule(cands)


def _select_rule(call):
    return along_dim(removes=call.info.name == "select", linear=True)(call)


def _repeat_rule(call):
    x = call.metas[0]
    reps = list(call.arg("repeats", call.arg("dims")))
    if call.info.name == "tile" and len(reps) < x.ndim:
        reps = [1] * (x.ndim - len(reps)) + reps
    off = len(reps) - x.ndim
    if off < 0:
        return Rule([all_b(call)])
    cands = [all_b(call)]
    for d in range(x.ndim):
        if reps[d + off] == 1:
            cands.append(Sig([S(d)], [S(d + off)], {0: {d + off: x.shape[d]}}))
    return Rule(cands)


def excluding_dims(arg: str, linear: bool = False, last: int | None = None):
    """Ops acting on some dimensions (flip, roll, tril): split any other dimension."""

    def rule(call):
        x = call.metas[0]
        if last is not None:
            dims = set(range(max(0, x.ndim - last), x.ndim))
        else:
            given = call.arg(arg)
            given = [given] if isinstance(given, int) else list(given or [])
            if not given:
                return Rule([all_b(call)])
            dims = {_wrap_dim(d, x.ndim) for d in given}
        cands = [all_b(call)]
        for d in range(x.ndim):
            if d not in dims:
                cands.append(Sig(_bs(len(call.slots), s0=S(d)), [S(d)], {0: {d: x.shape[d]}}))
        if linear:
            cands.append(Sig(_bs(len(call.slots), s0=P), [P]))
        return Rule(cands)

    return rule


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


# ---- random ops ----------------------------------------------------------------------------------


def _random_rule(call):
    """Random ops draw on whole tensors (identical on every rank: generators are kept in step),
    then the outputs go back to the first input's sbp, so the values equal one process's."""
    first = next((k for k, m in enumerate(call.metas) if m is not None), None)
    return Rule([all_b(call)], reslice=first)


def _random_fill_rule(call):
    """uniform_/normal_/random_/bernoulli_(p): draw the whole tensor on every rank, keep the part."""
    m = call.metas[0]
    cands = [Sig([S(d)] + [B] * (len(call.slots) - 1), [S(d)], {0: {d: m.shape[d]}}) for d in range(m.ndim)]
    cands += [Sig([B] * len(call.slots), [B]), Sig([P] + [B] * (len(call.slots) - 1), [P])]

    def local(call, args, chosen):
        self = args[0]
        nd = tuple(sig.ins[0] for sig in chosen)
        full = oneflow.empty(m.shape, dtype=m.dtype, device=self.device)
        drawn = _C._call_op(call.info.full_name, [full] + list(args[1:]))
        coord = _coord(call)
        if coord is None:
            return self
        box = _layout.local_box(m.shape, nd, call.placement.hierarchy, coord)
        part = drawn
        for d, (start, length) in enumerate(box):
            part = _call("narrow", part, d, start, length)
        if not _layout.first_on_partial_axes(nd, coord):
            return _call("zero_", self)
        return _call("copy_", self, part)

    return Rule(cands, local=local)


def _dropout_rule(call):
    if not call.arg("train", True) or call.arg("p", 0.0) == 0:
        return Rule(_elementwise_cands(call, ("P",)))
    return _random_rule(call)


# ---- random in place -----------------------------------------------------------------------------


def _random_inplace_rule(call):
    """In-place random ops that read ``self`` (dropout_, bernoulli_): run out of place on the
    whole tensor, then write this rank's part back."""
    m = call.metas[0]
    cands = [Sig([s] + [B] * (len(call.slots) - 1), [s], {0: {s.axis: m.shape[s.axis]}} if s.is_split() else None)
             for s in [S(d) for d in range(m.ndim)] + [B]]
    if call.info.name == "bernoulli_" and call.info.overload == "float":
        return _random_fill_rule(call)

    def local(call, args, chosen):
        from oneflow.distributed.global_tensor import GlobalTensor

        self = call.values[0]
        assert isinstance(self, GlobalTensor)
        full = self.to_global(sbp=tuple(B for _ in self.sbp))
        drawn = _C._call_op(call.info.full_name, [oneflow.Tensor.detach(full).clone()] + list(args[1:]))
        coord = _coord(call)
        if coord is None:
            return args[0]
        nd = tuple(sig.ins[0] for sig in chosen)
        box = _layout.local_box(m.shape, nd, call.placement.hierarchy, coord)
        part = drawn
        for d, (start, length) in enumerate(box):
            part = _call("narrow", part, d, start, length)
        return _call("copy_", args[0], part)

    return Rule(cands, local=local)


# ---- the families, by the names ops declare (core/framework/op_traits.h) ------------------------


def _fixed(fn):
    """A family without parameters."""
    return lambda: fn


def _broadcast_only():
    return lambda call: Rule([all_b(call)])


FAMILIES: dict = {
    "elementwise": lambda partial="": elementwise(*(tuple(w) for w in partial.split(",") if w)),
    "reduction": lambda linear=None, nout=1: reduction(linear, nout),
    "along_dim": along_dim,
    "spatial": lambda n, linear=False, input_size_arg=None, nout=None: spatial(
        None if n == "any" else n, linear, input_size_arg, nout),
    "excluding_dims": lambda arg="", linear=False, last=None: excluding_dims(arg, linear, last),
    "broadcast_only": _broadcast_only,
    "to_dtype": _fixed(_to_dtype_rule),
    "fill": _fixed(_fill_rule),
    "zero": _fixed(_zero_rule),
    "copy": _fixed(_copy_rule),
    "matmul": _fixed(_matmul_rule),
    "linear": _fixed(_linear_rule),
    "addmm": _fixed(_addmm_rule),
    "outer": _fixed(_outer_rule),
    "layer_norm": _fixed(_layer_norm_rule),
    "group_norm": _fixed(_group_norm_rule),
    "batch_norm": _fixed(_batch_norm_rule),
    "conv": _fixed(_conv_rule),
    "constant_pad": _fixed(_constant_pad_rule),
    "embedding": _fixed(_embedding_rule),
    "one_hot": _fixed(_one_hot_rule),
    "index_select": _fixed(_index_select_rule),
    "gather": _fixed(_gather_rule),
    "cat": _fixed(_cat_rule),
    "stack": _fixed(_stack_rule),
    "split": _fixed(_split_rule),
    "reshape": _fixed(_reshape_rule),
    "squeeze": _fixed(_squeeze_rule),
    "unsqueeze": _fixed(_unsqueeze_rule),
    "expand": _fixed(_expand_rule),
    "permute": _fixed(_permute_rule),
    "select": _fixed(_select_rule),
    "repeat": _fixed(_repeat_rule),
    "pointwise_loss": _fixed(_pointwise_loss_rule),
    "class_loss": _fixed(_class_loss_rule),
    "sdpa": _fixed(_sdpa_rule),
    "prelu": _fixed(_prelu_rule),
    "cosine_similarity": _fixed(_cosine_similarity_rule),
    "pairwise_distance": _fixed(_pairwise_distance_rule),
    "dropout": _fixed(_dropout_rule),
    "random": _fixed(_random_rule),
    "random_fill": _fixed(_random_fill_rule),
    "random_inplace": _fixed(_random_inplace_rule),
}


def _param_value(text: str):
    if text == "":
        return ""
    if text == "None":
        return None
    try:
        return int(text)
    except ValueError:
        return text


def parse_params(params: str) -> dict:
    """The "key=value key=value" words of a declared rule as keyword arguments."""
    out = {}
    for word in params.split():
        key, sep, value = word.partition("=")
        if not sep:
            raise ValueError(f"malformed SBP rule parameter {word!r} in {params!r} (expected key=value)")
        out[key] = _param_value(value)
    return out


_factories: dict = {}


def family_rule(family: str, params: str):
    """The rule function of a declared (family, params) pair, built once."""
    key = (family, params)
    fn = _factories.get(key)
    if fn is None:
        if family not in FAMILIES:
            raise KeyError(f"unknown SBP rule family {family!r} (known: {sorted(FAMILIES)})")
        fn = _factories[key] = FAMILIES[family](**parse_params(params))
    return fn


def rule_for(call) -> Rule:
    """The rule the call's op declares (its OpDef's .Sbp(...))."""
    info = call.info
    if info.sbp_family == "unsupported":
        raise NotImplementedError(
            f"{info.full_name}() is not supported on global tensors ({info.sbp_reason}); "
            f"arguments: {call.describe()}"
        )
    return family_rule(info.sbp_family, info.sbp_params)(call)


def describe(sig_list) -> str:
    """The chosen signature per axis, for messages."""
    return " x ".join(repr(s) for s in sig_list)


_ = (ALL_B, nd_repr)
