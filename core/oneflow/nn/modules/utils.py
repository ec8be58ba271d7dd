"""``oneflow.nn.modules.utils``: the argument parsers that layer code imports by this path.

OneFlow's (and PyTorch's) ``_single``/``_pair``/``_triple``/``_quadruple`` turn an ``int`` (or
any scalar) into a tuple of that many copies and pass an iterable through as a tuple. Nothing
here is a layer, so nothing is re-exported into ``oneflow.nn``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

__all__: list = []  # private helpers: oneflow.nn.modules re-exports only what __all__ lists


def _ntuple(n: int, name: str = "parse") -> Callable[[Any], tuple]:
    """A parser that repeats a scalar ``n`` times and turns an iterable into a tuple.

        >>> _ntuple(2)(3)
        (3, 3)
        >>> _ntuple(2)([1, 2])
        (1, 2)
    """
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise TypeError(f"_ntuple(): argument 'n' must be a non-negative int, got {n!r}")

    def parse(x: Any) -> tuple:
        if isinstance(x, Iterable):
            return tuple(x)
        return tuple([x] * n)

    parse.__name__ = parse.__qualname__ = name
    return parse


_single = _ntuple(1, "_single")
_pair = _ntuple(2, "_pair")
_triple = _ntuple(3, "_triple")
_quadruple = _ntuple(4, "_quadruple")


def _reverse_repeat_tuple(t, n: int) -> tuple:
    """``t`` reversed, each entry repeated ``n`` times: the padding order of ``F.pad`` from a
    per-dimension tuple, e.g. ``(1, 2), 2 -> (2, 2, 1, 1)``."""
    return tuple(x for x in reversed(tuple(t)) for _ in range(n))


def _list_with_default(out_size, defaults) -> list:
    """``out_size`` (an int, or a sequence with None for "keep that input size") filled in from
    the trailing entries of ``defaults`` (an input shape)."""
    if isinstance(out_size, int):
        return out_size
    if len(defaults) <= len(out_size):
        raise ValueError(f"Input dimension should be at least {len(out_size) + 1}")
    return [v if v is not None else d for v, d in zip(out_size, defaults[-len(out_size) :])]
