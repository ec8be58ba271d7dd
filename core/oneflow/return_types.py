"""Named tuples returned by ops with several outputs (``oneflow.max(x, dim)`` -> ``values, indices``)."""

from __future__ import annotations

import collections

_types: dict = {}


def make(op: str, names: tuple, values: tuple):
    """The result of op ``op``: a named tuple type per op, created on first use."""
    cls = _types.get(op)
    if cls is None:
        cls = collections.namedtuple(op, names, module=__name__)
        _types[op] = cls
        globals()[op] = cls
    return cls(*values)
