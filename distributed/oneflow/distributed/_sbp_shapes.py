"""SBP rule families, part 3: joining and splitting, views and shapes (see
:mod:`oneflow.distributed.sbp_families`).
"""

from __future__ import annotations

import math

from oneflow.distributed import _layout
from oneflow.distributed._sbp_common import _bs, _call, _coord, _wrap_dim
from oneflow.distributed.dispatch import Rule, Sig, all_b
from oneflow.distributed.sbp import P, S

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


def _split_count(call, size: int, count: str) -> int | None:
    """How many pieces, by the argument the op's ``count`` parameter names; None when it depends
    on a tensor's values."""
    if count == "split_size":
        step = call.arg("split_size")
        return max(1, math.ceil(size / step)) if step > 0 else None
    if count == "split_sizes":
        return len(call.arg("split_size"))
    if count == "chunks":
        chunks = call.arg("chunks")
        if size == 0:
            return chunks
        step = math.ceil(size / chunks)
        return math.ceil(size / step)
    if count == "sections":
        return call.arg("sections")
    if count == "indices":
        return len(call.arg("indices")) + 1
    if count == "unbind":
        return size
    return None


def _split_rule(call, count: str = "", removes: bool = False):
    x = call.metas[0]
    k = len(call.slots)
    dim = _wrap_dim(call.arg("dim", 0), x.ndim)
    count = _split_count(call, x.shape[dim], count)
    cands = [all_b(call)]
    if count is None or k != 1:
        return Rule(cands)
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


def _reshape_target(call, x, target: str) -> tuple | None:
    if target == "flatten":
        if x.ndim == 0:
            return (1,)
        start, end = _wrap_dim(call.arg("start_dim"), x.ndim), _wrap_dim(call.arg("end_dim"), x.ndim)
        if start > end:
            return None
        return x.shape[:start] + (math.prod(x.shape[start:end + 1]),) + x.shape[end + 1:]
    return _resolve_shape(call.arg("size", call.arg("shape")), math.prod(x.shape))


def _reshape_rule(call, target: str = "shape", local: str = "reshape"):
    x = call.metas[0]
    local_op = local
    target = _reshape_target(call, x, target)
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
        op = local_op
        if op == "view" and not args[0].is_contiguous():
            # As in OneFlow, a global tensor is never a strided view of another, so view() on one
            # reshapes: a view where the strides allow it, else a copy (libai's attention views
            # the output of transpose()).
            op = "reshape"
        return _call(op, args[0], list(shape))

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


def _permutation(call, ndim: int, perm: str) -> list:
    if perm == "dims":
        return [_wrap_dim(d, ndim) for d in call.arg("dims")]
    if perm == "reverse":
        return list(range(ndim))[::-1]
    perm = list(range(ndim))
    a, b = _wrap_dim(call.arg("dim0"), ndim), _wrap_dim(call.arg("dim1"), ndim)
    perm[a], perm[b] = perm[b], perm[a]
    return perm


def _permute_rule(call, perm: str = "dims"):
    x = call.metas[0]
    perm = _permutation(call, x.ndim, perm)
    cands = [all_b(call)]
    for d_out, d in enumerate(perm):
        cands.append(Sig([S(d)], [S(d_out)], {0: {d_out: x.shape[d]}}))
    cands.append(Sig([P], [P]))
    return Rule(cands)


def _repeat_rule(call, pad_front: bool = False):
    x = call.metas[0]
    reps = list(call.arg("repeats", call.arg("dims")))
    if pad_front and len(reps) < x.ndim:  # tile: missing leading repeats are 1
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
