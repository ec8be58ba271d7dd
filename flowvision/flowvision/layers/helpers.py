"""Small helpers of the model definitions: n-tuples of sizes and channel rounding."""

from __future__ import annotations

import collections.abc
from collections.abc import Callable
from typing import Any

__all__ = ["make_divisible", "to_1tuple", "to_2tuple", "to_3tuple", "to_ntuple"]


def to_ntuple(n: int) -> Callable[[Any], tuple]:
    """Returns a function that turns a scalar into an ``n``-tuple and leaves sequences as tuples."""

    def parse(x: Any) -> tuple:
        # Strings are iterable but are never meant as a sequence of sizes.
        if isinstance(x, collections.abc.Iterable) and not isinstance(x, str):
            return tuple(x)
        return (x,) * n

    parse.__name__ = f"to_{n}tuple"
    return parse


to_1tuple = to_ntuple(1)
to_2tuple = to_ntuple(2)
to_3tuple = to_ntuple(3)


def make_divisible(v: float, divisor: int = 8, min_value: int | None = None, round_limit: float = 0.9) -> int:
    """Rounds ``v`` to the nearest multiple of ``divisor`` (at least ``min_value``).

    The result is bumped up one step when rounding lost more than ``1 - round_limit``
    of ``v``, the channel rule of MobileNet-style networks.
    """
    min_value = min_value or divisor
    new_v = max(min_value, int(v + divisor / 2) // divisor * divisor)
    if new_v < round_limit * v:
        new_v += divisor
    return new_v
