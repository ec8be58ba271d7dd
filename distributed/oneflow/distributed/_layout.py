"""Which part of a global tensor each rank holds, from its shape, placement and sbp.

Split pieces have ``tensor_split`` sizes (the first ``size % n`` pieces one longer). Placement
axes apply outer first: axis k splits what axes 0..k-1 left to a rank.
"""

from __future__ import annotations


def chunk(size: int, n: int, i: int) -> tuple:
    """(start, stop) of piece ``i`` of ``n`` of a dimension of ``size``."""
    base, extra = divmod(size, n)
    start = i * base + min(i, extra)
    return start, start + base + (1 if i < extra else 0)


def chunk_sizes(size: int, n: int) -> list:
    """The sizes of the ``n`` pieces of a dimension of ``size``."""
    base, extra = divmod(size, n)
    return [base + (1 if i < extra else 0) for i in range(n)]


def extent(gshape, nd_sbp, hierarchy, coord, level: int) -> list:
    """The shape of the part of the tensor that axes ``0..level-1`` leave to ``coord``."""
    shape = list(gshape)
    for k in range(level):
        s = nd_sbp[k]
        if s.is_split():
            start, stop = chunk(shape[s.axis], hierarchy[k], coord[k])
            shape[s.axis] = stop - start
    return shape


def local_shape(gshape, nd_sbp, hierarchy, coord) -> tuple:
    """The shape of the local tensor at position ``coord`` of the placement."""
    return tuple(extent(gshape, nd_sbp, hierarchy, coord, len(nd_sbp)))


def local_box(gshape, nd_sbp, hierarchy, coord) -> list:
    """Per dimension, (global offset, length) of the local tensor at ``coord``."""
    box = [[0, n] for n in gshape]
    for k, s in enumerate(nd_sbp):
        if s.is_split():
            d = s.axis
            start, stop = chunk(box[d][1], hierarchy[k], coord[k])
            box[d] = [box[d][0] + start, stop - start]
    return [tuple(b) for b in box]


def first_on_partial_axes(nd_sbp, coord) -> bool:
    """True where a value held "once" (not partial) lives: coordinate 0 on every partial-sum axis."""
    return all(c == 0 for s, c in zip(nd_sbp, coord) if s.is_partial_sum())


def first_on_broadcast_axes(nd_sbp, coord) -> bool:
    """True at coordinate 0 of every broadcast axis."""
    return all(c == 0 for s, c in zip(nd_sbp, coord) if s.is_broadcast())
