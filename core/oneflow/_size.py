"""oneflow.Size: the type of ``Tensor.shape``."""

from __future__ import annotations


class Size(tuple):
    """The shape of a tensor: a tuple of ints that prints as ``oneflow.Size([2, 3])``.

        >>> oneflow.zeros(2, 3).shape
        oneflow.Size([2, 3])
    """

    __slots__ = ()

    def __new__(cls, sizes=()):
        sizes = tuple(sizes)
        for i, s in enumerate(sizes):
            if isinstance(s, bool) or not hasattr(s, "__index__"):
                raise TypeError(
                    f"oneflow.Size() takes an iterable of 'int' (item {i} is '{type(s).__name__}')"
                )
        return super().__new__(cls, (s.__index__() for s in sizes))

    def __repr__(self) -> str:
        return f"oneflow.Size([{', '.join(str(s) for s in self)}])"

    __str__ = __repr__

    def __getitem__(self, index):
        out = super().__getitem__(index)
        return Size(out) if isinstance(index, slice) else out

    def __add__(self, other):
        return Size(tuple(self) + tuple(other))

    def __reduce__(self):
        return (Size, (tuple(self),))

    def numel(self) -> int:
        """The number of elements of a tensor of this shape."""
        n = 1
        for s in self:
            n *= s
        return n
