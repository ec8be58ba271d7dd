"""Tensor creation: oneflow.tensor, from_numpy, zeros/ones/empty/full, ranges, eye."""

from __future__ import annotations

import builtins
import numbers
from collections.abc import Sequence
from typing import Any, Union

import numpy as np

import oneflow
from oneflow import _C, _plugin

DeviceLike = Union[str, "oneflow.device", int, None]

_default_dtype = None  # set below, once the dtype objects exist


def get_default_dtype() -> oneflow.dtype:
    """The dtype of tensors made from Python floats (``oneflow.float32`` unless changed)."""
    return _default_dtype


def set_default_dtype(d: oneflow.dtype) -> None:
    """Sets the dtype used for Python floats; must be a floating point dtype."""
    global _default_dtype
    if not isinstance(d, oneflow.dtype) or not d.is_floating_point:
        raise TypeError(f"set_default_dtype(): only floating-point types are supported as the default type, got {d}")
    _default_dtype = d
    _C.set_default_float_dtype(d)  # type promotion of Python floats in ops


_default_dtype = oneflow.float32


class memory_format:
    """A dense memory layout of tensors (PyTorch's ``torch.memory_format``).

    ``oneflow.contiguous_format`` is row-major; ``oneflow.channels_last`` lays a 4-D
    (N, C, H, W) tensor out as NHWC (strides ``(H*W*C, 1, W*C, C)``), and
    ``oneflow.channels_last_3d`` a 5-D one as NDHWC, keeping the logical shape;
    ``oneflow.preserve_format`` keeps a tensor's own layout. Convolutions, batch_norm,
    pooling and elementwise ops keep channels_last, as in PyTorch. The objects pass to
    ops as their int code (``__index__``).
    """

    __slots__ = ("_name", "_code")

    def __init__(self, name: str, code: int):
        self._name = name
        self._code = code

    def __repr__(self) -> str:
        return f"oneflow.{self._name}"

    __str__ = __repr__

    def __index__(self) -> int:
        return self._code

    def __reduce__(self):
        return self._name  # the module-level singleton


memory_format.__module__ = "oneflow"
contiguous_format = memory_format("contiguous_format", 0)
preserve_format = memory_format("preserve_format", 1)
channels_last = memory_format("channels_last", 2)
channels_last_3d = memory_format("channels_last_3d", 3)


def _memory_format(fmt, op: str):
    if fmt is not None and not isinstance(fmt, memory_format):
        raise TypeError(f"{op}(): argument 'memory_format' must be oneflow.memory_format, not {type(fmt).__name__}")
    return fmt


def is_tensor(obj: Any) -> builtins.bool:
    """True when ``obj`` is a oneflow.Tensor."""
    return isinstance(obj, oneflow.Tensor)


def _no_global_tensors(what: str) -> str:
    """The ImportError message for ``what`` when no installed plugin implements global tensors."""
    return (
        f"{what} needs Global Tensor support, which the oneflow-distributed package provides; "
        "it is not installed. Install the oneflow-distributed wheel (pip install oneflow-distributed)."
    )


def _global_plugin(what: str = "placement= and sbp= (global tensors)"):
    """The plugin's implementation of global tensors (``placement=``/``sbp=`` arguments): the
    ``global_tensor`` hook, whose plugin is imported on first use (see oneflow._plugin)."""
    return _plugin.load_hook("global_tensor", _no_global_tensors(what))


def _is_global(t) -> builtins.bool:
    return getattr(t, "is_global", False) is True


def _device(device: DeviceLike) -> oneflow.device:
    if device is None:
        return oneflow.device("cpu")
    return oneflow.device(device)


def _check_pin_memory(op: str, pin_memory, device: DeviceLike) -> None:
    """``pin_memory=`` (OneFlow's and PyTorch's): a bool, and True only for a CPU tensor. Host
    memory is not page-locked here (nothing gained without a GPU to copy to), so it is accepted."""
    if not isinstance(pin_memory, builtins.bool):
        raise TypeError(f"{op}(): argument 'pin_memory' must be bool, not {type(pin_memory).__name__}")
    if pin_memory and device is not None and _device(device).type != "cpu":
        raise RuntimeError(f"{op}(): only CPU tensors can be pinned (pin_memory=True), got device='{_device(device)}'")


def _finish(t: oneflow.Tensor, requires_grad: builtins.bool) -> oneflow.Tensor:
    if requires_grad:
        t.requires_grad_(True)
    return t


def _sizes(size: tuple, op: str) -> tuple:
    if not size:
        raise TypeError(f'{op}() missing 1 required positional arguments: "size"')
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    for i, s in enumerate(size):
        if isinstance(s, builtins.bool) or not hasattr(s, "__index__"):
            raise TypeError(
                f"{op}(): argument 'size' must be tuple of ints, but found element of type "
                f"{type(s).__name__} at pos {i}"
            )
    return tuple(s.__index__() for s in size)


# Python scalar kinds in PyTorch's inference order: bool < int < float.
_BOOL, _INT, _FLOAT = 0, 1, 2


def _scalar_kind(x: Any) -> int:
    if isinstance(x, (builtins.bool, np.bool_)):
        return _BOOL
    if isinstance(x, (numbers.Integral, np.integer)):
        return _INT
    if isinstance(x, (numbers.Real, np.floating)):
        return _FLOAT
    raise TypeError(f"tensor(): invalid data type '{type(x).__name__}'")


def promote_types(a: oneflow.dtype, b: oneflow.dtype) -> oneflow.dtype:
    """The dtype both ``a`` and ``b`` convert to, by PyTorch's rules.

    A higher category (bool < integer < floating) wins; within integers, mixing
    uint8 with a signed type needs a wider signed one; float16 with bfloat16
    gives float32; otherwise the wider type wins.
    """
    if a == b:
        return a

    def category(d):
        return 2 if d.is_floating_point else (0 if d == oneflow.bool else 1)

    ca, cb = category(a), category(b)
    if ca != cb:
        return a if ca > cb else b
    if {a, b} == {oneflow.float16, oneflow.bfloat16}:
        return oneflow.float32
    if oneflow.uint8 in (a, b):
        other = b if a == oneflow.uint8 else a
        return oneflow.int16 if other == oneflow.int8 else other
    return a if a.itemsize >= b.itemsize else b


def _scalar_dtype(x: Any) -> oneflow.dtype:
    """The dtype PyTorch infers for one scalar: NumPy scalars keep theirs."""
    if isinstance(x, np.generic):
        name = "bool" if x.dtype == np.bool_ else x.dtype.name
        d = _C.dtype_from_name(name)
        if d is None:
            raise TypeError(
                f"tensor(): can't convert np.{name} scalars; supported: bool, uint8, int8-int64, float16-float64"
            )
        return d
    kind = _scalar_kind(x)
    return {_BOOL: oneflow.bool, _INT: oneflow.int64, _FLOAT: get_default_dtype()}[kind]


def _scan(data: Any, dim: int, shape: list, state: dict) -> Any:
    """Checks that nesting is rectangular, collecting the shape and the widest scalar kind.

    Returns the data as nested lists of Python scalars.
    """
    if isinstance(data, oneflow.Tensor):
        data = data.item() if data.ndim == 0 else data.tolist()
    elif isinstance(data, np.ndarray):
        data = data.tolist()
    if isinstance(data, (list, tuple)):
        if state["scalar_dim"] is not None and dim >= state["scalar_dim"]:
            raise TypeError(f"tensor(): expected a number at dim {dim} (got a sequence of length {len(data)})")
        if dim == len(shape):
            shape.append(len(data))
        elif shape[dim] != len(data):
            raise ValueError(f"expected sequence of length {shape[dim]} at dim {dim} (got {len(data)})")
        return [_scan(x, dim + 1, shape, state) for x in data]
    if isinstance(data, str):
        if dim > 0 and state["scalar_dim"] is None:
            raise ValueError(f"tensor(): too many dimensions 'str' (a string at dim {dim})")
        raise TypeError("tensor(): invalid data type 'str'")
    if not isinstance(data, (numbers.Real, np.bool_, np.number)):
        raise RuntimeError(f"tensor(): Could not infer dtype of {type(data).__name__}")
    if dim < len(shape):
        raise TypeError(f"tensor(): expected sequence of length {shape[dim]} at dim {dim} (got a number)")
    state["scalar_dim"] = dim
    d = _scalar_dtype(data)
    state["dtype"] = d if state["dtype"] is None else promote_types(state["dtype"], d)
    return data.item() if isinstance(data, np.generic) else data


def _from_python(data: Any) -> tuple:
    shape: list = []
    state = {"dtype": None, "scalar_dim": None}
    values = _scan(data, 0, shape, state)
    # An empty list gives a tensor of the default dtype, as in PyTorch.
    natural = state["dtype"] if state["dtype"] is not None and 0 not in shape else get_default_dtype()
    # Build exactly in the widest type of the dtype's category, then convert.
    carrier = np.float64 if natural.is_floating_point else np.bool_ if natural == oneflow.bool else np.int64
    try:
        arr = np.array(values, dtype=carrier)
    except OverflowError as e:
        raise RuntimeError(f"tensor(): a value does not fit in int64 ({e})") from None
    return arr.reshape(shape), natural


def tensor(
    data: Any,
    dtype: oneflow.dtype | None = None,
    device: DeviceLike = None,
    requires_grad: builtins.bool = False,
    placement=None,
    sbp=None,
    pin_memory: builtins.bool = False,
) -> oneflow.Tensor:
    """Constructs a tensor by copying ``data`` (a scalar, nested sequences, an ndarray or a tensor).

    The dtype is inferred as in PyTorch: bools give ``oneflow.bool``, ints
    ``oneflow.int64``, floats the default dtype (``oneflow.float32``); a NumPy
    array keeps its dtype.

        >>> oneflow.tensor([[1, 2], [3, 4]])
        tensor([[1, 2],
                [3, 4]], dtype=oneflow.int64)

    With ``placement`` and ``sbp`` the result is a global tensor whose global value is ``data``
    (given alike on every rank). ``pin_memory=True`` asks for page-locked host memory, which only
    speeds up copies to a GPU: it is accepted for a CPU tensor and changes nothing else.
    """
    _check_pin_memory("tensor", pin_memory, device)
    if placement is not None or sbp is not None:
        return _global_plugin().make_global(
            lambda shape, dev: tensor(data, dtype=dtype, device=dev), placement, sbp, requires_grad, device
        )
    if dtype is not None and not isinstance(dtype, oneflow.dtype):
        raise TypeError(f"tensor(): argument 'dtype' must be oneflow.dtype, not {type(dtype).__name__}")
    if isinstance(data, oneflow.Tensor):
        src, natural = data, data.dtype
    elif isinstance(data, np.ndarray):
        src = _C.from_numpy(data)
        natural = src.dtype
    else:
        arr, natural = _from_python(data)
        src = _C.from_numpy(arr)
    out = src._to_dtype(dtype or natural, copy=True)
    dev = _device(device)
    if dev.type != "cpu":
        out = _C.empty(out.shape, out.dtype, dev).copy_(out)
    return _finish(out, requires_grad)


def from_numpy(ndarray: np.ndarray) -> oneflow.Tensor:
    """A tensor sharing memory with ``ndarray``: writes to either are seen by both.

    Supported dtypes: float64, float32, float16, int64, int32, int16, int8, uint8, bool.
    """
    return _C.from_numpy(ndarray)


def as_tensor(data: Any, dtype: oneflow.dtype | None = None, device: DeviceLike = None) -> oneflow.Tensor:
    """Like :func:`tensor`, but shares memory when it can: a tensor or a NumPy array that
    already has the requested dtype (and is on the requested device) is not copied."""
    if isinstance(data, np.ndarray) and device in (None, "cpu"):
        t = _C.from_numpy(data)
        return t if dtype in (None, t.dtype) else t._to_dtype(dtype)
    if isinstance(data, oneflow.Tensor):
        return data.to(device=device, dtype=dtype) if (device, dtype) != (None, None) else data
    return tensor(data, dtype=dtype, device=device)


def empty(*size, dtype=None, device: DeviceLike = None, requires_grad: builtins.bool = False, placement=None,
          sbp=None, memory_format=contiguous_format, pin_memory: builtins.bool = False) -> oneflow.Tensor:
    """An uninitialized tensor of the given size (a global one with ``placement`` and ``sbp``), laid
    out in ``memory_format`` (``oneflow.channels_last`` for a 4-D NHWC layout). ``pin_memory`` as
    in :func:`tensor`."""
    _check_pin_memory("empty", pin_memory, device)
    if placement is not None or sbp is not None:
        shape = _sizes(size, "empty")
        return _global_plugin().make_global(
            lambda s, dev: empty(s, dtype=dtype, device=dev), placement, sbp, requires_grad, device, shape=shape
        )
    return _finish(_C.empty(_sizes(size, "empty"), dtype or get_default_dtype(), _device(device),
                            _memory_format(memory_format, "empty")), requires_grad)


def full(size: Sequence[int], fill_value, dtype=None, device: DeviceLike = None, requires_grad: builtins.bool = False,
         placement=None, sbp=None) -> oneflow.Tensor:
    """A tensor of ``size`` filled with ``fill_value``; the dtype follows the value's type.

    With ``placement`` and ``sbp`` the result is a global tensor."""
    if placement is not None or sbp is not None:
        shape = _sizes((size,), "full")
        return _global_plugin().make_global(
            lambda s, dev: full(s, fill_value, dtype=dtype, device=dev), placement, sbp, requires_grad, device,
            shape=shape,
        )
    if dtype is None:  # a NumPy scalar counts as the Python number it holds here
        kind = _scalar_kind(fill_value)
        dtype = {_BOOL: oneflow.bool, _INT: oneflow.int64, _FLOAT: get_default_dtype()}[kind]
    t = _C.full(_sizes((size,), "full"), fill_value, dtype, _device(device))
    return _finish(t, requires_grad)


def zeros(*size, dtype=None, device: DeviceLike = None, requires_grad: builtins.bool = False, placement=None,
          sbp=None) -> oneflow.Tensor:
    """A tensor of zeros, e.g. ``oneflow.zeros(2, 3)`` or ``oneflow.zeros((2, 3))``.

    With ``placement`` and ``sbp`` the result is a global tensor."""
    if placement is not None or sbp is not None:
        shape = _sizes(size, "zeros")
        return _global_plugin().make_global(
            lambda s, dev: zeros(s, dtype=dtype, device=dev), placement, sbp, requires_grad, device, shape=shape
        )
    return _finish(_C.full(_sizes(size, "zeros"), 0, dtype or get_default_dtype(), _device(device)), requires_grad)


def ones(*size, dtype=None, device: DeviceLike = None, requires_grad: builtins.bool = False, placement=None,
          sbp=None) -> oneflow.Tensor:
    """A tensor of ones, e.g. ``oneflow.ones(2, 3)`` or ``oneflow.ones((2, 3))``.

    With ``placement`` and ``sbp`` the result is a global tensor."""
    if placement is not None or sbp is not None:
        shape = _sizes(size, "ones")
        return _global_plugin().make_global(
            lambda s, dev: ones(s, dtype=dtype, device=dev), placement, sbp, requires_grad, device, shape=shape
        )
    return _finish(_C.full(_sizes(size, "ones"), 1, dtype or get_default_dtype(), _device(device)), requires_grad)


def _like(input, dtype, device):
    if not isinstance(input, oneflow.Tensor):
        raise TypeError(f"argument 'input' must be Tensor, not {type(input).__name__}")
    return input, dtype or input.dtype, _device(device) if device is not None else input.device


def _like_placement(input, placement, sbp) -> tuple:
    """The (placement, sbp) of a ``*_like`` result, as OneFlow's: those given, else ``input``'s when
    it is global (each one missing taken from it), else (None, None) for a local result."""
    if not isinstance(input, oneflow.Tensor):
        raise TypeError(f"argument 'input' must be Tensor, not {type(input).__name__}")
    if _is_global(input):
        return (input.placement if placement is None else placement), (input.sbp if sbp is None else sbp)
    return placement, sbp


def _global_like(make, input, requires_grad, placement=None, sbp=None, device=None):
    """``make(shape, device)`` as a global tensor of ``input``'s shape on ``placement`` with ``sbp``
    (by default ``input``'s)."""
    placement, sbp = _like_placement(input, placement, sbp)
    return _global_plugin().make_global(make, placement, sbp, requires_grad, device, shape=tuple(input.shape))


def empty_like(input, dtype=None, device: DeviceLike = None, requires_grad: builtins.bool = False, *,
               memory_format=preserve_format, placement=None, sbp=None):
    """An uninitialized tensor laid out like ``input`` (or in ``memory_format``; by default of its dtype
    and device).

    With ``placement`` and ``sbp`` (OneFlow's), or for a global ``input``, a global tensor of
    ``input``'s shape (placement and sbp by default ``input``'s)."""
    if _is_global(input) or placement is not None or sbp is not None:
        return _global_like(lambda s, dev: empty(s, dtype=dtype or input.dtype, device=dev), input, requires_grad,
                            placement, sbp, device)
    return _finish(_C.empty_like(*_like(input, dtype, device), _memory_format(memory_format, "empty_like")),
                   requires_grad)


def zeros_like(input, dtype=None, device: DeviceLike = None, requires_grad: builtins.bool = False, *,
               memory_format=preserve_format, placement=None, sbp=None):
    """Zeros laid out like ``input`` (or in ``memory_format``; by default of its dtype and device).

    With ``placement`` and ``sbp`` (OneFlow's), or for a global ``input``, a global tensor of
    ``input``'s shape (placement and sbp by default ``input``'s)."""
    if _is_global(input) or placement is not None or sbp is not None:
        return _global_like(lambda s, dev: zeros(s, dtype=dtype or input.dtype, device=dev), input, requires_grad,
                            placement, sbp, device)
    t, dtype, device = _like(input, dtype, device)
    return _finish(_C.full_like(t, 0, dtype, device, _memory_format(memory_format, "zeros_like")), requires_grad)


def ones_like(input, dtype=None, device: DeviceLike = None, requires_grad: builtins.bool = False, *,
              memory_format=preserve_format, placement=None, sbp=None):
    """Ones laid out like ``input`` (or in ``memory_format``; by default of its dtype and device).

    With ``placement`` and ``sbp`` (OneFlow's), or for a global ``input``, a global tensor of
    ``input``'s shape (placement and sbp by default ``input``'s)."""
    if _is_global(input) or placement is not None or sbp is not None:
        return _global_like(lambda s, dev: ones(s, dtype=dtype or input.dtype, device=dev), input, requires_grad,
                            placement, sbp, device)
    t, dtype, device = _like(input, dtype, device)
    return _finish(_C.full_like(t, 1, dtype, device, _memory_format(memory_format, "ones_like")), requires_grad)


def full_like(input, fill_value, dtype=None, device: DeviceLike = None, requires_grad: builtins.bool = False, *,
              memory_format=preserve_format, placement=None, sbp=None):
    """``fill_value`` everywhere, laid out like ``input`` (and by default of its dtype and device).

    With ``placement`` and ``sbp`` (OneFlow's), or for a global ``input``, a global tensor of
    ``input``'s shape (placement and sbp by default ``input``'s)."""
    if _is_global(input) or placement is not None or sbp is not None:
        return _global_like(lambda s, dev: full(s, fill_value, dtype=dtype or input.dtype, device=dev), input,
                            requires_grad, placement, sbp, device)
    t, dtype, device = _like(input, dtype, device)
    return _finish(_C.full_like(t, fill_value, dtype, device, _memory_format(memory_format, "full_like")),
                   requires_grad)


def arange(start, end=None, step=1, dtype=None, device: DeviceLike = None, requires_grad: builtins.bool = False,
           placement=None, sbp=None):
    """Values from ``start`` (default 0) up to but excluding ``end``, ``step`` apart.

    int64 when all arguments are ints, else the default float dtype.

        >>> oneflow.arange(1, 2.5, 0.5)
        tensor([1.0000, 1.5000, 2.0000], dtype=oneflow.float32)

    With ``placement`` and ``sbp`` the result is a global tensor.
    """
    if placement is not None or sbp is not None:
        return _global_plugin().make_global(
            lambda s, dev: arange(start, end, step, dtype=dtype, device=dev), placement, sbp, requires_grad, device
        )
    if end is None:
        start, end = 0, start
    if dtype is None:
        kinds = [_scalar_kind(v) for v in (start, end, step)]
        dtype = get_default_dtype() if _FLOAT in kinds else oneflow.int64
    return _finish(_C.arange(start, end, step, dtype, _device(device)), requires_grad)


def linspace(start, end, steps, dtype=None, device: DeviceLike = None, requires_grad: builtins.bool = False,
             placement=None, sbp=None):
    """``steps`` values evenly spaced from ``start`` to ``end`` inclusive (a global tensor with
    ``placement`` and ``sbp``, OneFlow's)."""
    if placement is not None or sbp is not None:
        return _global_plugin().make_global(
            lambda s, dev: linspace(start, end, steps, dtype=dtype, device=dev), placement, sbp, requires_grad, device
        )
    for v in (start, end):
        if not isinstance(v, oneflow.Tensor):
            _scalar_kind(v)  # TypeError for non-numbers
    t = _C.linspace(builtins.float(start), builtins.float(end), steps, dtype or get_default_dtype(), _device(device))
    return _finish(t, requires_grad)


def logspace(start, end, steps, base=10.0, dtype=None, device: DeviceLike = None,
             requires_grad: builtins.bool = False, placement=None, sbp=None):
    """``steps`` values ``base ** x`` for ``x`` evenly spaced from ``start`` to ``end`` inclusive
    (a global tensor with ``placement`` and ``sbp``, OneFlow's).

        >>> oneflow.logspace(0, 2, 3)
        tensor([  1.,  10., 100.], dtype=oneflow.float32)
    """
    if placement is not None or sbp is not None:
        return _global_plugin().make_global(
            lambda s, dev: logspace(start, end, steps, base, dtype=dtype, device=dev), placement, sbp, requires_grad,
            device,
        )
    if isinstance(base, oneflow.Tensor) or isinstance(base, builtins.bool) or not isinstance(base, numbers.Real):
        raise TypeError(f"logspace(): argument 'base' must be a real number, not {type(base).__name__}")
    dtype = dtype or get_default_dtype()
    exponents = linspace(start, end, steps, dtype=oneflow.float64)
    values = oneflow.pow(builtins.float(base), exponents)
    if not dtype.is_floating_point:
        values = values.trunc()
    return _finish(values.to(dtype=dtype, device=_device(device)), requires_grad)


def eye(n, m=None, dtype=None, device: DeviceLike = None, requires_grad: builtins.bool = False, placement=None,
        sbp=None):
    """An ``n`` x ``m`` (default ``n`` x ``n``) matrix with ones on the diagonal (a global one with
    ``placement`` and ``sbp``)."""
    if placement is not None or sbp is not None:
        return _global_plugin().make_global(
            lambda s, dev: eye(n, m, dtype=dtype, device=dev), placement, sbp, requires_grad, device
        )
    return _finish(_C.eye(n, m, dtype or get_default_dtype(), _device(device)), requires_grad)
