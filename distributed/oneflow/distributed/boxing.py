"""``oneflow.boxing``: converting a global tensor between sbp (and placements).

One placement axis at a time ("1-D boxing"), among the ranks along that axis:

====================  ==================================  ==========================
from -> to            forward                             backward (its dual)
====================  ==================================  ==========================
S(i) -> B             all-gather along i                  reduce-scatter along i
P -> B                all-reduce                          all-reduce
P -> S(i)             reduce-scatter along i              all-gather along i
B -> S(i)             keep the local slice                pad the slice with zeros
B -> P                first rank keeps, others zeros      first rank keeps, others zeros
S(i) -> S(j)          all-to-all                          all-to-all back
S(i) -> P             pad the slice with zeros            keep the local slice
====================  ==================================  ==========================

Backward follows the local-autograd convention of this package: on every rank the gradient of
a broadcast tensor is a partial sum, of a partial-sum tensor the whole gradient, of a split
tensor the slice (see :func:`oneflow.distributed.sbp.dual`); each backward above is exactly the
conversion between those forms.

N-D sbp: when only one axis changes and no inner axis splits the same tensor dimension, that
axis converts directly. Otherwise the changing axes (and inner axes splitting the same
dimensions) go to broadcast innermost first, then to their targets outermost first (the second
half only slices locally). A placement change goes through broadcast on the source placement,
point-to-point sends to the ranks of the target that lack the data, and local slicing there.

:func:`explain` shows the plan for a conversion, with the bytes each step moves.
"""

from __future__ import annotations

import math

import oneflow
from oneflow.distributed import _boxing_collectives as _coll
from oneflow.distributed import _layout, env
from oneflow.distributed.sbp import B, nd_repr, normalize

__all__ = ["Step", "explain", "plan"]


# ---- steps ------------------------------------------------------------------------------


class Step:
    """One 1-D conversion ``src -> dst`` along placement ``axis``."""

    __slots__ = ("axis", "src", "dst")

    def __init__(self, axis: int, src, dst) -> None:
        self.axis, self.src, self.dst = axis, src, dst

    def kind(self) -> str:
        s, d = self.src, self.dst
        if s.is_split() and d.is_broadcast():
            return "all-gather"
        if s.is_partial_sum() and d.is_broadcast():
            return "all-reduce"
        if s.is_partial_sum() and d.is_split():
            return "reduce-scatter"
        if s.is_broadcast() and d.is_split():
            return "local slice"
        if s.is_broadcast() and d.is_partial_sum():
            return "first rank keeps, zeros elsewhere"
        if s.is_split() and d.is_split():
            return "all-to-all"
        if s.is_split() and d.is_partial_sum():
            return "local zero padding"
        return "none"

    def moved_fraction(self, n: int) -> float:
        """Bytes each rank receives, as a fraction of the bytes of the tensor at this axis."""
        kind = self.kind()
        if kind in ("all-gather", "reduce-scatter", "all-to-all"):
            return (n - 1) / n
        if kind == "all-reduce":
            return 2 * (n - 1) / n
        return 0.0

    def __repr__(self) -> str:
        return f"axis {self.axis}: {self.src.short()} -> {self.dst.short()} ({self.kind()})"


def _conflict(a, b) -> bool:
    return a.is_split() and b.is_split() and a.axis == b.axis


def plan(src: tuple, dst: tuple) -> list:
    """The steps converting nd sbp ``src`` to ``dst`` on one placement."""
    n = len(src)
    if tuple(src) == tuple(dst):
        return []
    changing = [k for k in range(n) if src[k] != dst[k]]
    if len(changing) == 1:
        k = changing[0]
        if not any(_conflict(src[j], src[k]) or _conflict(src[j], dst[k]) for j in range(k + 1, n)):
            return [Step(k, src[k], dst[k])]
    axes = set(changing)
    grew = True
    while grew:
        grew = False
        for k in sorted(axes):
            for j in range(k + 1, n):
                if j not in axes and (_conflict(src[j], src[k]) or _conflict(src[j], dst[k])):
                    axes.add(j)
                    grew = True
    steps, cur = [], list(src)
    for k in sorted(axes, reverse=True):
        if not cur[k].is_broadcast():
            steps.append(Step(k, cur[k], B))
            cur[k] = B
    for k in sorted(axes):
        if not dst[k].is_broadcast():
            steps.append(Step(k, B, dst[k]))
            cur[k] = dst[k]
    return steps


def _step_cost(step: Step, nbytes: float, n: int) -> float:
    return step.moved_fraction(n) * nbytes


def cost(src: tuple, dst: tuple, gshape, itemsize: int, hierarchy) -> float:
    """Bytes a rank receives converting a tensor of ``gshape`` from ``src`` to ``dst``."""
    total = 0.0
    cur = list(src)
    numel = math.prod(gshape)
    for step in plan(src, dst):
        # The part of the tensor this axis works on: what the outer split axes leave.
        outer = math.prod(hierarchy[k] for k in range(step.axis) if cur[k].is_split())
        total += _step_cost(step, numel * itemsize / outer, hierarchy[step.axis])
        if step.kind() == "local zero padding":
            total += numel * itemsize / outer / hierarchy[step.axis]  # not free: it makes memory
        cur[step.axis] = step.dst
    return total


# ---- running a step on local tensors ----------------------------------------------------------


class _Ctx:
    """Where a step runs: this rank's group along the axis and the sizes involved."""

    __slots__ = ("ranks", "me", "n", "extent")

    def __init__(self, placement, gshape, cur_nd, coord, axis: int) -> None:
        self.ranks = placement.axis_group(axis, coord)
        self.me = coord[axis]
        self.n = placement.hierarchy[axis]
        self.extent = _layout.extent(gshape, cur_nd, placement.hierarchy, coord, axis)

    def sizes(self, dim: int) -> list:
        return _layout.chunk_sizes(self.extent[dim], self.n)

    def span(self, dim: int) -> tuple:
        return _layout.chunk(self.extent[dim], self.n, self.me)


def _pad(x, ctx: _Ctx, dim: int):
    """``x`` (this rank's slice along ``dim``) placed into zeros of the whole extent."""
    shape = list(x.shape)
    shape[dim] = ctx.extent[dim]
    out = oneflow.zeros(tuple(shape), dtype=x.dtype, device=x.device)
    start, stop = ctx.span(dim)
    out.narrow(dim, start, stop - start).copy_(x)
    return out


def _slice(x, ctx: _Ctx, dim: int):
    start, stop = ctx.span(dim)
    return x.narrow(dim, start, stop - start).clone()


def _first_keeps(x, ctx: _Ctx):
    return x.clone() if ctx.me == 0 else oneflow.zeros_like(x)


def _all_to_all(x, ctx: _Ctx, split_dim: int, cat_dim: int):
    """S(cat_dim) -> S(split_dim) among the group. When some rank would neither send nor
    receive anything (empty pieces of an uneven split), gathers and slices instead: the
    communication layer's all-to-all skips such ranks (the others would wait for them)."""
    split_sizes, cat_sizes = ctx.sizes(split_dim), ctx.sizes(cat_dim)
    shape = list(x.shape)
    for m in range(ctx.n):
        sent = list(shape)
        sent[cat_dim] = cat_sizes[m]
        got = list(shape)
        got[cat_dim], got[split_dim] = ctx.extent[cat_dim], split_sizes[m]
        if math.prod(sent) == 0 and math.prod(got) == 0 and (math.prod(shape) or ctx.extent[cat_dim]):
            full = _coll.all_gather(x, ctx.ranks, cat_dim, cat_sizes)
            return _slice(full, ctx, split_dim)
    return _coll.all_to_all(x, ctx.ranks, ctx.me, split_dim, split_sizes, cat_dim, cat_sizes)


def run_forward(step: Step, x, ctx: _Ctx):
    """The step on this rank's local tensor ``x``."""
    s, d = step.src, step.dst
    if ctx.n == 1 or s == d:
        return x
    if s.is_split() and d.is_broadcast():
        return _coll.all_gather(x, ctx.ranks, s.axis, ctx.sizes(s.axis))
    if s.is_partial_sum() and d.is_broadcast():
        return _coll.all_reduce(x, ctx.ranks)
    if s.is_partial_sum() and d.is_split():
        return _coll.reduce_scatter(x, ctx.ranks, ctx.me, d.axis, ctx.sizes(d.axis))
    if s.is_broadcast() and d.is_split():
        return _slice(x, ctx, d.axis)
    if s.is_broadcast() and d.is_partial_sum():
        return _first_keeps(x, ctx)
    if s.is_split() and d.is_split():
        return _all_to_all(x, ctx, d.axis, s.axis)
    if s.is_split() and d.is_partial_sum():
        return _pad(x, ctx, s.axis)
    raise AssertionError(f"unknown boxing {step}")


def run_backward(step: Step, g, ctx: _Ctx):
    """The dual of the step on this rank's local gradient ``g`` of its output."""
    s, d = step.src, step.dst
    if ctx.n == 1 or s == d:
        return g
    if s.is_split() and d.is_broadcast():
        return _coll.reduce_scatter(g, ctx.ranks, ctx.me, s.axis, ctx.sizes(s.axis))
    if s.is_partial_sum() and d.is_broadcast():
        return _coll.all_reduce(g, ctx.ranks)
    if s.is_partial_sum() and d.is_split():
        return _coll.all_gather(g, ctx.ranks, d.axis, ctx.sizes(d.axis))
    if s.is_broadcast() and d.is_split():
        return _pad(g, ctx, d.axis)
    if s.is_broadcast() and d.is_partial_sum():
        return _first_keeps(g, ctx)
    if s.is_split() and d.is_split():
        return _all_to_all(g, ctx, s.axis, d.axis)
    if s.is_split() and d.is_partial_sum():
        return _slice(g, ctx, s.axis)
    raise AssertionError(f"unknown boxing {step}")


def _contexts(placement, gshape, src_nd, steps, coord) -> list:
    ctxs, cur = [], list(src_nd)
    for step in steps:
        ctxs.append(_Ctx(placement, gshape, cur, coord, step.axis))
        cur[step.axis] = step.dst
    return ctxs


def standin_shape(placement, gshape, nd) -> tuple:
    """The local shape a rank outside ``placement`` holds: that of the placement's first rank.

    Ranks outside a placement keep stand-in local tensors (zeros of a member's shape) and run the
    same local ops on them, so that every rank records the same autograd graph: backward then
    reaches the point-to-point transfers of placement changes on every rank that takes part.
    """
    return _layout.local_shape(gshape, nd, placement.hierarchy, (0,) * placement.ndim)


class _StandIn(oneflow.autograd.Function):
    """A boxing on a rank outside the placement: zeros of the target's stand-in shape."""

    @staticmethod
    def forward(ctx, x, shape):
        ctx.in_shape = tuple(oneflow.Tensor.size(x))
        return oneflow.zeros(shape, dtype=x.dtype, device=x.device)

    @staticmethod
    def backward(ctx, g):
        return oneflow.zeros(ctx.in_shape, dtype=g.dtype, device=g.device), None


def box_plain(x, placement, gshape, src_nd: tuple, dst_nd: tuple):
    """This rank's local part of the conversion of a global tensor (no autograd)."""
    steps = plan(tuple(src_nd), tuple(dst_nd))
    if not steps:
        return x
    coord = placement.coord(env.get_rank())
    if coord is None:
        return oneflow.zeros(standin_shape(placement, gshape, dst_nd), dtype=x.dtype, device=x.device)
    _coll.register_placement(placement)
    with oneflow.no_grad():
        for step, ctx in zip(steps, _contexts(placement, gshape, src_nd, steps, coord)):
            x = run_forward(step, x, ctx)
    return x


class _Boxing(oneflow.autograd.Function):
    """A conversion plan as one autograd node; backward runs the steps' duals in reverse."""

    @staticmethod
    def forward(ctx, x, steps, ctxs):
        ctx.steps, ctx.ctxs = steps, ctxs
        y = oneflow.Tensor.detach(x)
        for step, c in zip(steps, ctxs):
            y = run_forward(step, y, c)
        if y._storage_ptr() == oneflow.Tensor.detach(x)._storage_ptr():
            y = y.clone()  # never alias the input: in-place changes to one must not reach the other
        return y

    @staticmethod
    def backward(ctx, g):
        for step, c in zip(reversed(ctx.steps), reversed(ctx.ctxs)):
            g = run_backward(step, g, c)
        return g, None, None


def box_local(x, placement, gshape, src_nd: tuple, dst_nd: tuple):
    """Like :func:`box_plain`, recording autograd (``x`` may be a global tensor object)."""
    coord = placement.coord(env.get_rank())
    steps = plan(tuple(src_nd), tuple(dst_nd))
    if not steps:
        return None
    _coll.register_placement(placement)
    if coord is None:
        return _StandIn.apply(x, standin_shape(placement, gshape, dst_nd))
    return _Boxing.apply(x, steps, _contexts(placement, gshape, src_nd, steps, coord))


# ---- placement changes -----------------------------------------------------------------------


def _sources(src_placement, dst_placement) -> dict:
    """For each rank of the target placement lacking the data, the source rank that sends it."""
    src_ranks = src_placement.flat_ranks
    need = [r for r in dst_placement.flat_ranks if r not in src_ranks]
    return {r: src_ranks[i % len(src_ranks)] for i, r in enumerate(need)}


def transfer_plain(x, src_placement, dst_placement, gshape, dtype, forward: bool = True):
    """Moves a broadcast tensor from ``src_placement`` to ``dst_placement`` (forward), or sums
    the gradients back (``forward=False``). ``x`` is this rank's local tensor (of the source
    placement when forward, of the target otherwise); ranks outside the result's placement get
    zeros (a stand-in of the whole tensor)."""
    me = env.get_rank()
    sources = _sources(src_placement, dst_placement)
    device = (dst_placement if forward else src_placement).device()
    in_both = me in dst_placement.flat_ranks and me in src_placement.flat_ranks
    with oneflow.no_grad():
        if forward:
            out = x.to(device).clone() if in_both else None
            for r, s in sorted(sources.items()):
                if me == s:
                    _coll.send(x, r)
                elif me == r:
                    out = _coll.recv(gshape, dtype, device, s)
            return out if out is not None else oneflow.zeros(tuple(gshape), dtype=dtype, device=device)
        total = x.to(device).clone() if in_both else None
        for r, s in sorted(sources.items()):
            if me == r:
                _coll.send(x, s)
            elif me == s:
                got = _coll.recv(gshape, dtype, device, r)
                total = got if total is None else total + got
        return total if total is not None else oneflow.zeros(tuple(gshape), dtype=dtype, device=device)


class _Transfer(oneflow.autograd.Function):
    @staticmethod
    def forward(ctx, x, src_placement, dst_placement, gshape):
        ctx.args = (src_placement, dst_placement, gshape, x.dtype)
        return transfer_plain(oneflow.Tensor.detach(x), src_placement, dst_placement, gshape, x.dtype)

    @staticmethod
    def backward(ctx, g):
        src_placement, dst_placement, gshape, dtype = ctx.args
        return transfer_plain(g, src_placement, dst_placement, gshape, dtype, forward=False), None, None, None


def transfer(x, src_placement, dst_placement, gshape):
    """Autograd-recording :func:`transfer_plain` of a broadcast tensor."""
    _coll.register_placement(src_placement)
    _coll.register_placement(dst_placement)
    return _Transfer.apply(x, src_placement, dst_placement, gshape)


# ---- explain -----------------------------------------------------------------------------


def explain(src, dst, shape=None, placement=None, dtype=None, dst_placement=None) -> str:
    """The plan that converts a global tensor from sbp ``src`` to ``dst``, as text.

    Args:
        src, dst: an sbp or a tuple of them (one per placement axis).
        shape (tuple, optional): the global shape; with it each step shows the bytes a rank
            receives.
        placement (oneflow.placement, optional): the placement (default: every rank, 1-D, or a
            placement of the sbp's dimensions made of the world's ranks).
        dtype (oneflow.dtype, optional): the element type (default float32).
        dst_placement (oneflow.placement, optional): a target placement, for placement changes.

    Example::

        >>> # on 2 ranks
        >>> print(oneflow.boxing.explain(oneflow.sbp.split(0), oneflow.sbp.broadcast, (8, 4)))
        (S(0)) -> (B) on oneflow.placement(type="cpu", ranks=[0, 1]), shape (8, 4), float32:
          1. axis 0: S(0) -> B (all-gather): 64 bytes per rank
    """
    from oneflow.distributed.placement import placement as Placement

    src_t = (src,) if not isinstance(src, (tuple, list)) else tuple(src)
    if placement is None:
        if len(src_t) != 1:
            raise ValueError("explain(): give the placement for an n-d sbp")
        placement = Placement.all("cpu")
    ndim = None if shape is None else len(shape)
    src_nd = normalize(src, placement.ndim, ndim, "explain(): src")
    target = dst_placement or placement
    dst_nd = normalize(dst, target.ndim, ndim, "explain(): dst")
    dtype = dtype or oneflow.float32
    itemsize = oneflow.empty(0, dtype=dtype).element_size()
    head = f"{nd_repr(src_nd)} -> {nd_repr(dst_nd)} on {placement!r}"
    if dst_placement is not None and dst_placement != placement:
        head += f" -> {dst_placement!r}"
    if shape is not None:
        head += f", shape {tuple(shape)}, {str(dtype).replace('oneflow.', '')}"
    lines = [head + ":"]
    if dst_placement is not None and dst_placement != placement:
        all_b = tuple(B for _ in src_nd)
        steps = plan(src_nd, all_b)
        sends = _sources(placement, dst_placement)
        rest = plan(tuple(B for _ in dst_nd), dst_nd)
        items = [repr(s) for s in steps]
        items.append(f"send/recv the whole tensor to ranks {sorted(sends)} (from {[sends[r] for r in sorted(sends)]})"
                     if sends else "no send/recv: every target rank holds the data")
        items += [repr(s) for s in rest]
    else:
        steps = plan(src_nd, dst_nd)
        if not steps:
            return lines[0] + " nothing to do"
        items = []
        cur = list(src_nd)
        for step in steps:
            text = repr(step)
            if shape is not None:
                outer = math.prod(placement.hierarchy[k] for k in range(step.axis) if cur[k].is_split())
                nbytes = step.moved_fraction(placement.hierarchy[step.axis]) * math.prod(shape) * itemsize / outer
                text += f": {nbytes:.0f} bytes per rank"
            items.append(text)
            cur[step.axis] = step.dst
    lines += [f"  {i + 1}. {t}" for i, t in enumerate(items)]
    return "\n".join(lines)


