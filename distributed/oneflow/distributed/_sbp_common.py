"""SBP rule families, part 1: the helpers every family uses, elementwise ops, reductions and
random ops
(see :mod:`oneflow.distributed.sbp_families`).
"""

from __future__ import annotations

import math

import oneflow
from oneflow import _C
from oneflow.distributed import _boxing_collectives as _coll
from oneflow.distributed import _layout, env
from oneflow.distributed.dispatch import Rule, Sig, all_b, call_op
from oneflow.distributed.sbp import B, P, S

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


def _reduce_dims(call, ndim: int, flat_without_dim: bool = False):
    """(reduced dims, keepdim) of a reduction call; all dims when none are given, or None when
    the op then works on the flattened tensor (argmax's index into it)."""
    dim = call.arg("dim")
    keepdim = bool(call.arg("keepdim", False))
    if flat_without_dim and dim is None:
        return None, keepdim
    if dim is None or (isinstance(dim, list) and len(dim) == 0):
        return list(range(ndim)), keepdim
    if isinstance(dim, int):
        dim = [dim]
    return sorted({_wrap_dim(d, ndim) for d in dim}), keepdim


def reduction(linear: str | None = None, nout: int = 1, flat_without_dim: bool = False):
    def rule(call):
        x = call.metas[0]
        k = len(call.slots)
        dims, keepdim = _reduce_dims(call, x.ndim, flat_without_dim)
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
