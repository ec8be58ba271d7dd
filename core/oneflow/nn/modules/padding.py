"""Padding layers: constant (and zero), reflection, replication and circular padding of the
last 1, 2 or 3 dims.

``padding`` is an int (the same on every side) or a tuple ordered as ``F.pad`` wants it:
``(left, right)``, then ``(top, bottom)``, then ``(front, back)``.
"""

from __future__ import annotations

import oneflow
from oneflow.nn import functional as F
from oneflow.nn.modules.conv import _ntuple
from oneflow.nn.modules.module import Module

__all__ = [
    "CircularPad1d",
    "CircularPad2d",
    "CircularPad3d",
    "ConstantPad1d",
    "ConstantPad2d",
    "ConstantPad3d",
    "ReflectionPad1d",
    "ReflectionPad2d",
    "ReflectionPad3d",
    "ReplicationPad1d",
    "ReplicationPad2d",
    "ReplicationPad3d",
    "ZeroPad1d",
    "ZeroPad2d",
    "ZeroPad3d",
]

_pad2 = _ntuple(2, "_pair")
_pad4 = _ntuple(4, "_quadruple")
_pad6 = _ntuple(6, "_sextuple")


class _ConstantPadNd(Module):
    _tuple = staticmethod(_pad2)

    def __init__(self, padding, value: float) -> None:
        super().__init__()
        self.padding = self._tuple(padding)
        self.value = value

    def forward(self, input: oneflow.Tensor) -> oneflow.Tensor:
        return F.pad(input, list(self.padding), "constant", self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    r"""Pads the last dim with ``value``.

    Args:
        padding: an int, or ``(left, right)``.
        value: the fill value.
    """

    _tuple = staticmethod(_pad2)


class ConstantPad2d(_ConstantPadNd):
    r"""Pads the last two dims with ``value``.

    Args:
        padding: an int, or ``(left, right, top, bottom)``.
        value: the fill value.
    """

    _tuple = staticmethod(_pad4)


class ConstantPad3d(_ConstantPadNd):
    r"""Pads the last three dims with ``value``.

    Args:
        padding: an int, or ``(left, right, top, bottom, front, back)``.
        value: the fill value.
    """

    _tuple = staticmethod(_pad6)


class ZeroPad1d(ConstantPad1d):
    r"""Pads the last dim with zeros (``padding``: an int or ``(left, right)``)."""

    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad2d(ConstantPad2d):
    r"""Pads the last two dims with zeros (``padding``: an int or ``(left, right, top, bottom)``)."""

    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad3d(ConstantPad3d):
    r"""Pads the last three dims with zeros (``padding``: an int or a 6-tuple)."""

    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _ModePadNd(Module):
    _tuple = staticmethod(_pad2)
    _mode = "reflect"
    _dims: tuple = ()  # the input ranks accepted, when the layer checks them itself

    def __init__(self, padding) -> None:
        super().__init__()
        self.padding = self._tuple(padding)

    def forward(self, input: oneflow.Tensor) -> oneflow.Tensor:
        if self._dims and input.dim() not in self._dims:
            raise ValueError(f"expected {self._dims[0]}D or {self._dims[1]}D input (got {input.dim()}D input)")
        return F.pad(input, list(self.padding), self._mode)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _ReflectionPadNd(_ModePadNd):
    """Base of the reflection padding layers."""

    _mode = "reflect"


class _ReplicationPadNd(_ModePadNd):
    """Base of the replication padding layers."""

    _mode = "replicate"


class _CircularPadNd(_ModePadNd):
    """Base of the circular padding layers."""

    _mode = "circular"


class ReflectionPad1d(_ReflectionPadNd):
    r"""Pads the last dim with the reflection of the input (the edge not repeated).

    Args:
        padding: an int, or ``(left, right)``; each smaller than the dim's size.
    """

    _tuple = staticmethod(_pad2)


class ReflectionPad2d(_ReflectionPadNd):
    r"""Reflection padding of the last two dims (``padding``: an int or ``(left, right, top, bottom)``)."""

    _tuple = staticmethod(_pad4)


class ReflectionPad3d(_ReflectionPadNd):
    r"""Reflection padding of the last three dims (``padding``: an int or a 6-tuple)."""

    _tuple = staticmethod(_pad6)


class ReplicationPad1d(_ReplicationPadNd):
    r"""Pads the last dim by repeating the edge values.

    Args:
        padding: an int, or ``(left, right)``.
    """

    _tuple = staticmethod(_pad2)


class ReplicationPad2d(_ReplicationPadNd):
    r"""Replication padding of the last two dims (``padding``: an int or ``(left, right, top, bottom)``)."""

    _tuple = staticmethod(_pad4)


class ReplicationPad3d(_ReplicationPadNd):
    r"""Replication padding of the last three dims (``padding``: an int or a 6-tuple)."""

    _tuple = staticmethod(_pad6)


class CircularPad1d(_CircularPadNd):
    r"""Pads the last dim by wrapping around: the left pad comes from the right end and vice versa.

    Args:
        padding: an int, or ``(left, right)``.
    """

    _tuple = staticmethod(_pad2)
    _dims = (2, 3)


class CircularPad2d(_CircularPadNd):
    r"""Circular padding of the last two dims (``padding``: an int or ``(left, right, top, bottom)``)."""

    _tuple = staticmethod(_pad4)
    _dims = (3, 4)


class CircularPad3d(_CircularPadNd):
    r"""Circular padding of the last three dims (``padding``: an int or a 6-tuple)."""

    _tuple = staticmethod(_pad6)
    _dims = (4, 5)
