"""Text rendering of tensor values, matching what PyTorch 2.x prints.

Everything here works on a plain :class:`numpy.ndarray`, so the module has no
dependency on the rest of the framework. The behaviour follows PyTorch's
default print options:

* floats use 4 digits after the point; if every finite value is a whole
  number they are printed as ``1.``; scientific notation is used when the
  finite non-zero magnitudes span more than a factor of 1000, exceed 1e8, or
  go below 1e-4;
* every element of a tensor is right-aligned to one common width;
* tensors with more than 1000 elements are summarised, showing the first and
  last 3 entries along each dimension around an ellipsis;
* rows are wrapped so that a line stays within 80 columns, and continuation
  lines line up under the first value.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

__all__ = ["format_tensor", "format_values", "get_printoptions", "set_printoptions"]

# The print options (oneflow.set_printoptions); read at every call, so a change applies at once.
PRECISION = 4
THRESHOLD = 1000
EDGEITEMS = 3
LINEWIDTH = 80
SCI_MODE: bool | None = None  # None: chosen from the values, as described above

# PyTorch's profiles: (precision, threshold, edgeitems, linewidth).
_PROFILES = {
    "default": (4, 1000, 3, 80),
    "short": (2, 1000, 2, 80),
    "full": (4, math.inf, 3, 80),
}


def _check_option(name: str, value, minimum: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"set_printoptions(): argument '{name}' must be int, not {type(value).__name__}")
    if value < minimum:
        raise ValueError(f"set_printoptions(): argument '{name}' must be >= {minimum}, got {value}")


def set_printoptions(
    precision: int | None = None,
    threshold: float | None = None,
    edgeitems: int | None = None,
    linewidth: int | None = None,
    profile: str | None = None,
    sci_mode: bool | None = None,
) -> None:
    """Sets the options for printing tensors (OneFlow's and PyTorch's ``set_printoptions``).

    Args:
        precision: digits after the point for floating values (default 4).
        threshold: a tensor with more elements than this is summarised (default 1000).
        edgeitems: entries shown at each end of a summarised dimension (default 3).
        linewidth: characters per line before a row wraps (default 80).
        profile: ``"default"``, ``"short"`` or ``"full"``: a preset of the four options above,
            which the other arguments then override.
        sci_mode: True or False forces or forbids scientific notation; None (the default, also
            when omitted) chooses it from the values.

    Example::

        >>> oneflow.set_printoptions(precision=2)
        >>> oneflow.tensor([1.12345])
        tensor([1.12])
        >>> oneflow.set_printoptions(profile="default")
    """
    global PRECISION, THRESHOLD, EDGEITEMS, LINEWIDTH, SCI_MODE
    if profile is not None and profile not in _PROFILES:
        raise ValueError(
            f"set_printoptions(): argument 'profile' must be one of {sorted(_PROFILES)}, got {profile!r}"
        )
    if precision is not None:
        _check_option("precision", precision, 0)
    if threshold is not None and not (
        isinstance(threshold, (int, float)) and not isinstance(threshold, bool) and threshold >= 0
    ):
        raise TypeError(f"set_printoptions(): argument 'threshold' must be a number >= 0, got {threshold!r}")
    if edgeitems is not None:
        _check_option("edgeitems", edgeitems, 0)
    if linewidth is not None:
        _check_option("linewidth", linewidth, 1)
    if sci_mode is not None and not isinstance(sci_mode, bool):
        raise TypeError(f"set_printoptions(): argument 'sci_mode' must be bool or None, not {type(sci_mode).__name__}")
    if profile is not None:
        PRECISION, THRESHOLD, EDGEITEMS, LINEWIDTH = _PROFILES[profile]
    if precision is not None:
        PRECISION = precision
    if threshold is not None:
        THRESHOLD = threshold
    if edgeitems is not None:
        EDGEITEMS = edgeitems
    if linewidth is not None:
        LINEWIDTH = linewidth
    SCI_MODE = sci_mode


def get_printoptions() -> dict:
    """The current print options, as a dict of :func:`set_printoptions`'s arguments."""
    return {
        "precision": PRECISION,
        "threshold": THRESHOLD,
        "edgeitems": EDGEITEMS,
        "linewidth": LINEWIDTH,
        "sci_mode": SCI_MODE,
    }

_PREFIX = "tensor("
_FLOAT_NAMES = frozenset({"float16", "bfloat16", "float32", "float64"})


class _ElementStyle:
    """The notation and column width shared by all elements of one tensor.

    It is decided from the values that will actually be shown (the edges only,
    for a summarised tensor), as PyTorch does.
    """

    def __init__(self, shown: np.ndarray, is_float: bool) -> None:
        self.is_float = is_float
        self.whole_numbers = True
        self.scientific = False
        self.width = 1
        flat = shown.reshape(-1)
        if not is_float:
            self.width = max(len(str(v)) for v in flat.tolist())
            return
        regular = flat[np.isfinite(flat) & (flat != 0)]
        if regular.size == 0:
            # Only zeros, nans and infinities: nothing to measure, keep width 1.
            return
        magnitude = np.abs(regular)
        largest, smallest = float(magnitude.max()), float(magnitude.min())
        self.whole_numbers = bool(np.all(regular == np.ceil(regular)))
        self.scientific = (
            largest / smallest > 1000.0 or largest > 1.0e8 or smallest < 1.0e-4
            if SCI_MODE is None
            else SCI_MODE
        )
        self.width = max(len(self._plain(v)) for v in regular.tolist())

    def _plain(self, value: float) -> str:
        """``value`` in this style, before padding to the common width."""
        if self.scientific:
            return f"{value:.{PRECISION}e}"
        if self.whole_numbers:
            # The trailing point marks a floating tensor; nan and inf get none.
            text = f"{value:.0f}"
            return text + "." if math.isfinite(value) else text
        return f"{value:.{PRECISION}f}"

    def render(self, value: object) -> str:
        """One element, right-aligned to the common width."""
        text = self._plain(value) if self.is_float else str(value)
        return text.rjust(self.width)


def _as_printable(array: np.ndarray, dtype_name: str) -> tuple[np.ndarray, bool]:
    """Return the values in a NumPy type whose Python scalars print correctly,
    and whether the tensor is floating point."""
    if dtype_name in _FLOAT_NAMES:
        # float16 and bfloat16 values are exact in float64, and Python floats
        # are what the digits are produced from.
        return np.asarray(array, dtype=np.float64), True
    if dtype_name == "bool":
        return np.asarray(array, dtype=np.bool_), False
    return np.asarray(array), False


def _edges(array: np.ndarray) -> np.ndarray:
    """Keep only the leading and trailing ``EDGEITEMS`` entries of each long axis.

    One gather over all axes at once: only the kept entries are read, whatever
    the layout (even a huge tensor expanded from one element).
    """
    keep = [
        np.r_[0:EDGEITEMS, size - EDGEITEMS : size] if size > 2 * EDGEITEMS else np.arange(size)
        for size in array.shape
    ]
    return array[np.ix_(*keep)]


def _visible(length: int, full_length: int, summarize: bool) -> list[int | None]:
    """Indices shown along one axis; ``None`` stands for the elided middle.

    ``length`` is the axis in the array being rendered, ``full_length`` in the
    tensor: a summarised axis arrives cut down to its edges by :func:`_edges`.
    """
    if summarize and full_length > 2 * EDGEITEMS:
        return [*range(EDGEITEMS), None, *range(length - EDGEITEMS, length)]
    return list(range(length))


def _render_row(
    row: np.ndarray, style: _ElementStyle, indent: int, summarize: bool, full_shape: tuple
) -> str:
    """A 1-d tensor, wrapped into lines of equally many elements."""
    per_line = max(1, (LINEWIDTH - indent) // (style.width + 2))
    values = row.tolist()
    cells = [
        " ..." if i is None else style.render(values[i])
        for i in _visible(len(values), full_shape[0], summarize)
    ]
    lines = [", ".join(cells[i : i + per_line]) for i in range(0, len(cells), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _render(
    array: np.ndarray, style: _ElementStyle, indent: int, summarize: bool, full_shape: tuple
) -> str:
    """Any non-empty tensor; sub-tensors start one column further in."""
    if array.ndim == 0:
        return style.render(array.item())
    if array.ndim == 1:
        return _render_row(array, style, indent, summarize, full_shape)
    parts = [
        "..." if i is None else _render(array[i], style, indent + 1, summarize, full_shape[1:])
        for i in _visible(array.shape[0], full_shape[0], summarize)
    ]
    # Blocks of higher dimension are set apart by more blank lines.
    separator = "," + "\n" * (array.ndim - 1) + " " * (indent + 1)
    return "[" + separator.join(parts) + "]"


def format_values(array: np.ndarray, dtype_name: str, indent: int) -> str:
    """The values of a tensor as PyTorch prints them inside ``tensor(...)``.

    Args:
        array: the tensor's values. Floating dtypes may come in any NumPy float
            type (``bfloat16`` as float32), integers in their own integer type,
            ``bool`` as a boolean array.
        dtype_name: the framework dtype name, e.g. ``"float32"`` or ``"int8"``.
        indent: columns already taken on the first line before the values
            (7 for ``"tensor("``); wrapped lines are indented to match.

    Returns:
        e.g. ``"[1.0000, 2.5000]"`` for a float vector, ``"3."`` for a whole
        0-d float, ``"[]"`` for an empty tensor.
    """
    if array.size == 0:
        return "[]"
    full_shape = array.shape
    summarize = array.size > THRESHOLD
    # Only the edges of a summarised tensor are read, so printing never copies
    # more than a few elements of a huge (or expanded) tensor.
    values, is_float = _as_printable(_edges(array) if summarize else array, dtype_name)
    style = _ElementStyle(values, is_float)
    return _render(values, style, indent, summarize, full_shape)


def _attach_suffixes(text: str, suffixes: Sequence[str], indent: int) -> str:
    """Append ``, suffix`` items and the closing parenthesis.

    A suffix moves to a new line, indented by ``indent``, when it would push
    the line past ``LINEWIDTH``. Like PyTorch, the line the values end on is
    measured with two extra columns of slack, while a line begun by a wrapped
    suffix is measured exactly.
    """
    pieces = [text]
    used = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if used + len(suffix) + 2 > LINEWIDTH:
            pieces.append(",\n" + " " * indent + suffix)
            used = indent + len(suffix)
        else:
            pieces.append(", " + suffix)
            used += len(suffix) + 2
    pieces.append(")")
    return "".join(pieces)


def format_tensor(
    array: np.ndarray,
    dtype_name: str,
    *,
    shape: Sequence[int] | None = None,
    suffixes: Sequence[str] = (),
) -> str:
    """The full ``repr`` of a tensor: ``tensor(<values>, <suffix>, ...)``.

    Args:
        array: the tensor's values, as for :func:`format_values`.
        dtype_name: the framework dtype name.
        shape: the tensor's shape; defaults to ``array.shape``. An empty tensor
            that is not 1-d gets a leading ``size=(...)`` suffix, as in PyTorch.
        suffixes: further items such as ``"dtype=oneflow.float32"``, in order.
    """
    dims = tuple(int(d) for d in (array.shape if shape is None else shape))
    items = list(suffixes)
    if math.prod(dims) == 0 and len(dims) != 1:
        items.insert(0, f"size={dims}")
    values = format_values(array, dtype_name, len(_PREFIX))
    return _attach_suffixes(_PREFIX + values, items, len(_PREFIX))
