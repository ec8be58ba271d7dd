"""``oneflow.placement``: the device type and the array of ranks a global tensor lives on.

``oneflow.placement(type="cpu", ranks=[0, 1, 2, 3])`` is a 1-D placement;
``ranks=[[0, 1], [2, 3]]`` a 2-D one, whose axis 0 runs over the rows and axis 1 over the ranks
within a row. A global tensor has one sbp per placement axis. On a "cuda" placement each rank
uses the GPU of its ``LOCAL_RANK``.
"""

from __future__ import annotations

import builtins
import itertools
import math

import numpy as np

from oneflow.distributed import env

__all__ = ["placement"]

_DEVICE_TYPES = ("cpu", "cuda")


def _rank_array(ranks) -> np.ndarray:
    if isinstance(ranks, builtins.bool):
        raise TypeError("oneflow.placement: ranks must be an int or a (nested) list of ints, not bool")
    if isinstance(ranks, (int, np.integer)):
        ranks = [int(ranks)]
    elif isinstance(ranks, range):
        ranks = list(ranks)
    if isinstance(ranks, np.ndarray):
        ranks = ranks.tolist()

    def shape_of(x) -> tuple:
        if isinstance(x, (list, tuple)):
            subs = [shape_of(e) for e in x]
            if any(sub != subs[0] for sub in subs):
                raise ValueError(f"oneflow.placement: ranks must be a rectangular (nested) list of ints, got {ranks!r}")
            return (len(x),) + (subs[0] if subs else ())
        return ()

    shape = shape_of(ranks)
    arr = np.empty(shape, dtype=object)
    if shape:
        arr[...] = np.array(ranks, dtype=object).reshape(shape) if all(shape) else arr
    if arr.ndim == 0 or arr.size == 0:
        raise ValueError(f"oneflow.placement: ranks must be a non-empty (nested) list of ints, got {ranks!r}")
    for r in arr.flat:
        if isinstance(r, builtins.bool) or not isinstance(r, (int, np.integer)):
            raise TypeError(
                f"oneflow.placement: ranks must be ints (a rectangular nested list), found {type(r).__name__} "
                f"{r!r}"
            )
    return arr.astype(np.int64)


class placement:
    """The devices a global tensor lives on: a device type and an N-d array of ranks.

    Args:
        type (str): ``"cpu"`` or ``"cuda"``.
        ranks (int or nested list of int): the ranks, e.g. ``[0, 1]`` (1-D) or
            ``[[0, 1], [2, 3]]`` (2-D). Each rank appears once and must be in the job.

    Example::

        >>> oneflow.placement(type="cpu", ranks=[[0, 1], [2, 3]])
        oneflow.placement(type="cpu", ranks=[[0, 1], [2, 3]])
    """

    __slots__ = ("_type", "_ranks", "_flat", "_hash")

    def __init__(self, type: str | None = None, ranks=None, *, device_type: str | None = None) -> None:
        if type is None:
            type = device_type
        if not isinstance(type, str):
            raise TypeError(
                f"oneflow.placement: type must be a str ('cpu' or 'cuda'), not {builtins.type(type).__name__}"
            )
        if type not in _DEVICE_TYPES:
            raise ValueError(f"oneflow.placement: type must be 'cpu' or 'cuda', got {type!r}")
        if ranks is None:
            raise TypeError("oneflow.placement: missing the ranks argument")
        arr = _rank_array(ranks)
        flat = tuple(int(r) for r in arr.flat)
        if len(set(flat)) != len(flat):
            raise ValueError(f"oneflow.placement: ranks must be distinct, got {arr.tolist()}")
        world = env.get_world_size()
        bad = [r for r in flat if not 0 <= r < world]
        if bad:
            raise ValueError(
                f"oneflow.placement: rank{'s' if len(bad) > 1 else ''} {bad} {'are' if len(bad) > 1 else 'is'} "
                f"outside the job (world size {world}, ranks 0..{world - 1})"
            )
        self._type = type
        self._ranks = arr
        self._flat = flat
        self._hash = hash((type, arr.shape, flat))

    @classmethod
    def all(cls, device_type: str) -> placement:
        """The 1-D placement of every rank of the job on ``device_type``."""
        return cls(device_type, list(range(env.get_world_size())))

    @property
    def type(self) -> str:
        """The device type, ``"cpu"`` or ``"cuda"``."""
        return self._type

    device_type = type

    @property
    def ranks(self) -> np.ndarray:
        """The rank array (a copy), as a NumPy array of the placement's shape."""
        return self._ranks.copy()

    @property
    def hierarchy(self) -> tuple:
        """The shape of the rank array."""
        return tuple(self._ranks.shape)

    @property
    def ndim(self) -> int:
        """The number of placement axes."""
        return self._ranks.ndim

    def __len__(self) -> int:
        return len(self._flat)

    def __eq__(self, other) -> bool:
        return (
            isinstance(other, placement)
            and self._type == other._type
            and self._ranks.shape == other._ranks.shape
            and self._flat == other._flat
        )

    def __hash__(self) -> int:
        return self._hash

    def __repr__(self) -> str:
        return f'oneflow.placement(type="{self._type}", ranks={self._ranks.tolist()})'

    __str__ = __repr__

    def __reduce__(self):
        return (placement, (self._type, self._ranks.tolist()))

    # ---- used inside the package ------------------------------------------------------

    @property
    def flat_ranks(self) -> tuple:
        """The ranks in row-major order."""
        return self._flat

    def coord(self, rank: int) -> tuple | None:
        """The position of ``rank`` in the rank array, or None when it is not a member."""
        try:
            i = self._flat.index(rank)
        except ValueError:
            return None
        return tuple(int(c) for c in np.unravel_index(i, self._ranks.shape))

    def rank_at(self, coord) -> int:
        """The rank at position ``coord``."""
        return int(self._ranks[tuple(coord)])

    def coords(self):
        """Every position of the rank array, in row-major order."""
        return itertools.product(*(range(n) for n in self._ranks.shape))

    def axis_group(self, axis: int, coord) -> tuple:
        """The ranks that differ from position ``coord`` only along ``axis``, in axis order."""
        index = list(coord)
        out = []
        for i in range(self._ranks.shape[axis]):
            index[axis] = i
            out.append(int(self._ranks[tuple(index)]))
        return tuple(out)

    def axis_groups(self, axis: int) -> list:
        """All groups along ``axis`` (see :meth:`axis_group`), in row-major order of the rest."""
        shape = list(self._ranks.shape)
        others = [range(n) if k != axis else range(1) for k, n in enumerate(shape)]
        return [self.axis_group(axis, c) for c in itertools.product(*others)]

    def device(self):
        """This rank's device on this placement."""
        import oneflow

        if self._type == "cpu":
            return oneflow.device("cpu")
        return oneflow.device("cuda", env.get_local_rank())

    def size(self) -> int:
        """The number of ranks."""
        return math.prod(self._ranks.shape)


# Making a placement is the first step of any Global Tensor program: from here on, ops see global
# tensors (the global tensor module installs the core's dispatch hook when imported).
from oneflow.distributed import global_tensor as _global_tensor  # noqa: E402,F401
