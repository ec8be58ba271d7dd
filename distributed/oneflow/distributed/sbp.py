"""``oneflow.sbp``: how a global tensor's data lies on the ranks of one placement axis.

* ``split(axis)``: the tensor is cut along ``axis`` into one contiguous piece per rank, in rank
  order, with the sizes of ``tensor_split`` (the first ``size % n`` pieces one longer).
* ``broadcast``: every rank holds the whole tensor.
* ``partial_sum``: every rank holds a tensor of the full shape and the value is their sum.

A global tensor has one sbp per axis of its placement: a 2-D placement such as
``ranks=[[0, 1], [2, 3]]`` takes a tuple like ``(split(0), split(1))``, applied outer axis first
(axis 0 splits the tensor among the rows of the rank array, axis 1 each row's part among its ranks).
"""

from __future__ import annotations

import builtins
import operator

__all__ = ["broadcast", "partial_sum", "sbp", "split"]


class sbp:
    """One placement axis's distribution: ``split(axis)``, ``broadcast`` or ``partial_sum``.

    Made by :func:`split`, or taken from the ``broadcast`` and ``partial_sum`` constants;
    instances compare by value and are hashable.
    """

    __slots__ = ("_kind", "_axis")

    def __init__(self, kind: str, axis: int | None = None) -> None:
        if kind not in ("S", "B", "P"):
            raise ValueError(f"oneflow.sbp.sbp: kind must be 'S', 'B' or 'P', got {kind!r}")
        self._kind = kind
        self._axis = axis if kind == "S" else None

    @property
    def axis(self) -> int | None:
        """The split axis (``None`` unless this is a split)."""
        return self._axis

    def is_split(self) -> bool:
        """True for ``split(axis)``."""
        return self._kind == "S"

    def is_broadcast(self) -> bool:
        """True for ``broadcast``."""
        return self._kind == "B"

    def is_partial_sum(self) -> bool:
        """True for ``partial_sum``."""
        return self._kind == "P"

    def __eq__(self, other) -> bool:
        return isinstance(other, sbp) and self._kind == other._kind and self._axis == other._axis

    def __hash__(self) -> int:
        return hash((self._kind, self._axis))

    def __repr__(self) -> str:
        if self._kind == "S":
            return f"oneflow.sbp.split(axis={self._axis})"
        return "oneflow.sbp.broadcast" if self._kind == "B" else "oneflow.sbp.partial_sum"

    __str__ = __repr__

    def short(self) -> str:
        """``S(0)``, ``B`` or ``P``: the notation of plans and error messages."""
        return f"S({self._axis})" if self._kind == "S" else self._kind

    def __reduce__(self):
        return (sbp, (self._kind, self._axis))


def split(axis: int) -> sbp:
    """The distribution that cuts the tensor along ``axis`` (``tensor_split`` sizes, rank order).

    A negative ``axis`` counts from the end; it is resolved when applied to a tensor.
    """
    if isinstance(axis, builtins.bool) or not hasattr(axis, "__index__"):
        raise TypeError(f"oneflow.sbp.split(): axis must be an int, not {type(axis).__name__}")
    return sbp("S", operator.index(axis))


#: Every rank holds the whole tensor.
broadcast = sbp("B")
#: Every rank holds a full-shape tensor; the value is their elementwise sum.
partial_sum = sbp("P")

B = broadcast
P = partial_sum


def S(axis: int) -> sbp:
    """Shorthand for ``split(axis)`` used inside the package."""
    return sbp("S", axis)


def normalize(value, ndim_placement: int, ndim_tensor: int | None, what: str = "sbp") -> tuple:
    """``value`` (one sbp or a sequence of them) as a tuple of one sbp per placement axis, with
    split axes made non-negative against ``ndim_tensor`` (when known)."""
    items = (value,) if isinstance(value, sbp) else value
    if not isinstance(items, (tuple, list)) or not all(isinstance(s, sbp) for s in items):
        raise TypeError(
            f"{what} must be a oneflow.sbp.sbp or a tuple of them (one per placement axis), got {value!r}"
        )
    items = tuple(items)
    if len(items) != ndim_placement:
        raise ValueError(
            f"{what} has {len(items)} entries but the placement has {ndim_placement} "
            f"dimension{'s' if ndim_placement != 1 else ''}: give one sbp per placement axis"
        )
    if ndim_tensor is None:
        return items
    out = []
    for s in items:
        if s.is_split():
            axis = s.axis
            if not -max(ndim_tensor, 1) <= axis < max(ndim_tensor, 1) or ndim_tensor == 0:
                raise IndexError(
                    f"{what}: split axis {axis} is out of range for a tensor with {ndim_tensor} "
                    f"dimension{'s' if ndim_tensor != 1 else ''}"
                )
            s = S(axis % ndim_tensor)
        out.append(s)
    return tuple(out)


def dual(s: sbp) -> sbp:
    """The sbp of the gradient of a tensor with sbp ``s`` in the local autograd convention.

    Local backward on each rank yields, for a broadcast tensor, per-rank gradients whose sum is the
    gradient (a partial sum); for a partial-sum tensor, the whole gradient on every rank (a
    broadcast); for a split, the slices.
    """
    if s.is_broadcast():
        return partial_sum
    if s.is_partial_sum():
        return broadcast
    return s


def nd_repr(nd) -> str:
    """A tuple of sbp in the short notation: ``(S(0), B)``."""
    return "(" + ", ".join(s.short() for s in nd) + ")"
