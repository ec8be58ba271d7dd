"""Names OneFlow's API reference (and PyTorch) list that are aliases or short compositions of this
package's ops: ``oneflow.concat``, ``oneflow.clip``, ``oneflow.arccos``, ``oneflow.movedim``,
``oneflow.hsplit``, ``oneflow.equal``, ``oneflow.broadcast_like``, ``Tensor.unfold``, ... Each
checks its arguments as PyTorch (or, for OneFlow-only names, OneFlow) does."""

from __future__ import annotations

import builtins
from collections.abc import Sequence

import oneflow as _flow

_Tensor = _flow.Tensor


def _check_tensor(fn: str, name: str, value) -> None:
    if not isinstance(value, _Tensor):
        raise TypeError(f"{fn}(): argument '{name}' must be Tensor, not {type(value).__name__}")


# ---- aliases of ops that exist under PyTorch's other name --------------------------------------

_ALIASES = {
    "arccos": "acos",
    "arccosh": "acosh",
    "arcsin": "asin",
    "arcsinh": "asinh",
    "arctan": "atan",
    "arctanh": "atanh",
    "clip": "clamp",
    "negative": "neg",
    "concat": "cat",
    "swapaxes": "transpose",
    "swapdims": "transpose",
}
# Tensor methods with the same aliases (in-place ones too, where the method exists).
_METHOD_ALIASES = {
    **{k: v for k, v in _ALIASES.items() if k not in ("concat",)},
    "clip_": "clamp_",
    "negative_": "neg_",
    "ndimension": "dim",
}


def is_floating_point(input) -> bool:
    """Whether ``input``'s dtype is a floating point type."""
    _check_tensor("is_floating_point", "input", input)
    return input.is_floating_point()


def is_nonzero(input) -> bool:
    """Whether the single value of a one-element tensor is nonzero."""
    _check_tensor("is_nonzero", "input", input)
    n = input.numel()
    if n == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if n > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return builtins.bool(input.reshape(()).item() != 0)


def argwhere(input):
    """The indices of the nonzero elements, one row per element: (count, input.dim())."""
    _check_tensor("argwhere", "input", input)
    return _flow.nonzero(input)


def equal(input, other) -> bool:
    """True when both tensors have the same shape and the same values."""
    _check_tensor("equal", "input", input)
    _check_tensor("equal", "other", other)
    if tuple(input.shape) != tuple(other.shape):
        return False
    return builtins.bool(_flow.eq(input, other).all().item())


def _dims(fn: str, name: str, value, ndim: int) -> list:
    dims = [value] if isinstance(value, int) else list(value)
    out = []
    for d in dims:
        if not isinstance(d, int) or isinstance(d, builtins.bool):
            raise TypeError(f"{fn}(): argument '{name}' must be int or tuple of ints, got {value!r}")
        if not -ndim <= d < max(ndim, 1):
            raise IndexError(
                f"{fn}(): Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], but got {d})"
            )
        out.append(d % ndim if ndim else 0)
    return out


def movedim(input, source, destination):
    """Moves the dims ``source`` of ``input`` to the positions ``destination``; the others keep
    their order."""
    _check_tensor("movedim", "input", input)
    nd = input.dim()
    src = _dims("movedim", "source", source, nd)
    dst = _dims("movedim", "destination", destination, nd)
    if len(src) != len(dst):
        raise RuntimeError(
            f"movedim: Invalid source or destination dims: source ({src} dims) should contain the same "
            f"number of dims as destination ({dst} dims)"
        )
    if len(set(src)) != len(src):
        raise RuntimeError(f"movedim: repeated dim in `source` ({src})")
    if len(set(dst)) != len(dst):
        raise RuntimeError(f"movedim: repeated dim in `destination` ({dst})")
    order = [-1] * nd
    for s, d in zip(src, dst):
        order[d] = s
    rest = iter(d for d in range(nd) if d not in src)
    order = [o if o >= 0 else next(rest) for o in order]
    return input.permute(*order)


def _split_along(fn: str, input, indices_or_sections, dim: int):
    if isinstance(indices_or_sections, int) and not isinstance(indices_or_sections, builtins.bool):
        size = input.shape[dim]
        if indices_or_sections <= 0 or size % indices_or_sections != 0:
            raise RuntimeError(
                f"{fn} attempted to split along dimension {dim}, but the size of the dimension {size} "
                f"is not divisible by the split_size {indices_or_sections}!"
            )
        return _flow.tensor_split(input, indices_or_sections, dim)
    if isinstance(indices_or_sections, Sequence):
        return _flow.tensor_split(input, list(indices_or_sections), dim)
    raise TypeError(
        f"{fn}(): argument 'indices_or_sections' must be int or sequence of ints, "
        f"not {type(indices_or_sections).__name__}"
    )


def hsplit(input, indices_or_sections):
    """Splits ``input`` along dim 1 (dim 0 for a 1-D tensor), as ``tensor_split`` does; an int
    must divide the dim."""
    _check_tensor("hsplit", "input", input)
    if input.dim() < 1:
        raise RuntimeError(
            f"torch.hsplit requires a tensor with at least 1 dimension, but got a tensor with {input.dim()} dimensions!"
        )
    return _split_along("torch.hsplit", input, indices_or_sections, 0 if input.dim() == 1 else 1)


def vsplit(input, indices_or_sections):
    """Splits ``input`` (at least 2-D) along dim 0, as ``tensor_split`` does; an int must divide
    the dim."""
    _check_tensor("vsplit", "input", input)
    if input.dim() < 2:
        raise RuntimeError(
            f"torch.vsplit requires a tensor with at least 2 dimension, but got a tensor with {input.dim()} dimensions!"
        )
    return _split_along("torch.vsplit", input, indices_or_sections, 0)


def broadcast_like(input, like, broadcast_axes=None):
    """OneFlow's ``broadcast_like``: ``input`` broadcast to ``like``'s shape. ``broadcast_axes``
    names the dims of ``like`` that ``input`` is broadcast along (``input`` holds ``like``'s shape
    with those dims removed or set to 1); by default, the leading dims ``input`` lacks and those
    where it has size 1."""
    _check_tensor("broadcast_like", "input", input)
    _check_tensor("broadcast_like", "like", like)
    target = tuple(like.shape)
    if broadcast_axes is None:
        if input.dim() > len(target):
            raise RuntimeError(
                f"broadcast_like(): input of shape {tuple(input.shape)} has more dims than like's shape {target}"
            )
        return input.expand(*target)
    axes = set(_dims("broadcast_like", "broadcast_axes", broadcast_axes, len(target)))
    reduced = [1 if i in axes else n for i, n in enumerate(target)]
    count = 1
    for n in reduced:
        count *= n
    if input.numel() != count:
        raise RuntimeError(
            f"broadcast_like(): input of shape {tuple(input.shape)} does not match like's shape {target} "
            f"without the broadcast axes {sorted(axes)} ({tuple(reduced)})"
        )
    return input.reshape(*reduced).expand(*target)


def _slices(fn: str, input, slice_tup_list) -> tuple:
    if not isinstance(slice_tup_list, Sequence) or len(slice_tup_list) > input.dim():
        raise ValueError(
            f"{fn}(): slice_tup_list must be a sequence of at most {input.dim()} (start, stop, step) triples, "
            f"got {slice_tup_list!r}"
        )
    out = []
    for i, triple in enumerate(slice_tup_list):
        if not isinstance(triple, Sequence) or len(triple) != 3:
            raise ValueError(f"{fn}(): slice_tup_list[{i}] must be (start, stop, step), got {triple!r}")
        start, stop, step = triple
        if step is not None and step <= 0:
            raise ValueError(f"{fn}(): slice step must be positive, got {step} for dim {i}")
        out.append(builtins.slice(start, stop, step))
    return tuple(out)


def slice(input, slice_tup_list=None, *args, **kwargs):
    """OneFlow's ``slice``: a new tensor holding ``input`` sliced by one (start, stop, step) per
    leading dim (None for a bound means the end, as in Python). Called with a dim instead
    (``slice(input, dim, start, end, step)``), it is the registry's view op of that name."""
    _check_tensor("slice", "input", input)
    if isinstance(slice_tup_list, int) or (slice_tup_list is None and (args or kwargs)):
        dim_args = () if slice_tup_list is None else (slice_tup_list,)
        return _flow._C.ops.slice(input, *dim_args, *args, **kwargs)
    if args or kwargs:
        raise TypeError("slice(): takes (input, slice_tup_list) or (input, dim, start, end, step)")
    return input[_slices("slice", input, slice_tup_list)].clone()


def logical_slice(input, slice_tup_list):
    """OneFlow's ``logical_slice``: ``slice`` of the logical (whole) tensor, for global tensors as
    for local ones."""
    _check_tensor("logical_slice", "input", input)
    return input[_slices("logical_slice", input, slice_tup_list)].clone()


def var_mean(input, dim=None, *, correction=1, keepdim=False, unbiased=None):
    """(var, mean) of ``input`` over ``dim`` (all dims when None), as ``torch.var_mean``."""
    _check_tensor("var_mean", "input", input)
    if unbiased is not None:
        correction = 1 if unbiased else 0
    if dim is None:
        return input.var(correction=correction), input.mean()
    return input.var(dim, correction=correction, keepdim=keepdim), input.mean(dim, keepdim=keepdim)


def std_mean(input, dim=None, *, correction=1, keepdim=False, unbiased=None):
    """(std, mean) of ``input`` over ``dim`` (all dims when None), as ``torch.std_mean``."""
    var, mean = var_mean(input, dim, correction=correction, keepdim=keepdim, unbiased=unbiased)
    return var.sqrt(), mean


# ---- legacy typed-tensor classes (oneflow.LongTensor, oneflow.cuda.FloatTensor, ...) ------------


class _TypedTensorMeta(type):
    def __instancecheck__(cls, obj) -> bool:
        return isinstance(obj, _Tensor) and obj.dtype == cls.dtype and obj.device.type == cls.device_type


class _TypedTensor(metaclass=_TypedTensorMeta):
    """``LongTensor(2, 3)`` (uninitialized, of that shape), ``LongTensor([1, 2])`` (from data) or
    ``LongTensor()`` (empty); ``isinstance(t, LongTensor)`` checks the dtype and the device."""

    dtype = None
    device_type = "cpu"

    def __new__(cls, *args):
        name = cls.__qualname__
        if len(args) == 1 and isinstance(args[0], _Tensor):
            return args[0].to(device=cls.device_type, dtype=cls.dtype)
        if all(isinstance(a, int) and not isinstance(a, builtins.bool) for a in args):
            return _flow.empty(*(args or (0,)), dtype=cls.dtype, device=cls.device_type)
        if len(args) == 1 and isinstance(args[0], (_flow.Size, tuple)) and all(isinstance(a, int) for a in args[0]):
            return _flow.empty(*args[0], dtype=cls.dtype, device=cls.device_type)
        if len(args) == 1:
            return _flow.tensor(args[0], dtype=cls.dtype, device=cls.device_type)
        raise TypeError(f"{name}(): expected sizes (ints), a size or data, got {args!r}")


def _typed_tensor_classes(device_type: str, module: str) -> dict:
    dtypes = {
        "FloatTensor": _flow.float32,
        "DoubleTensor": _flow.float64,
        "HalfTensor": _flow.float16,
        "BFloat16Tensor": _flow.bfloat16,
        "ByteTensor": _flow.uint8,
        "CharTensor": _flow.int8,
        "ShortTensor": _flow.int16,
        "IntTensor": _flow.int32,
        "LongTensor": _flow.int64,
        "BoolTensor": _flow.bool,
    }
    return {
        name: _TypedTensorMeta(
            name, (_TypedTensor,), {"dtype": dtype, "device_type": device_type, "__module__": module}
        )
        for name, dtype in dtypes.items()
    }


_CPU_TENSOR_TYPES = _typed_tensor_classes("cpu", "oneflow")
globals().update(_CPU_TENSOR_TYPES)


_registry_where = _flow.where


def where(condition, input=None, other=None):
    """``where(condition, input, other)``: elements of ``input`` where ``condition`` holds, else of
    ``other``; ``where(condition)`` alone is ``nonzero(condition, as_tuple=True)``, as in PyTorch."""
    if input is None and other is None:
        _check_tensor("where", "condition", condition)
        return _flow.nonzero(condition, as_tuple=True)
    if input is None or other is None:
        raise TypeError("where(): expected (condition) or (condition, input, other)")
    return _registry_where(condition, input, other)


def floor_(input):
    """In-place ``floor``."""
    _check_tensor("floor_", "input", input)
    return input.floor_()


def sin_(input):
    """In-place ``sin``."""
    _check_tensor("sin_", "input", input)
    return input.sin_()


# ---- Tensor methods -----------------------------------------------------------------------------


def _unfold(self, dimension: int, size: int, step: int):
    """Tensor.unfold: every slice of ``size`` elements along ``dimension``, ``step`` apart, as a
    new last dim (a view)."""
    nd = self.dim()
    d = _dims("unfold", "dimension", dimension, nd)[0]
    length = self.shape[d] if nd else 1
    if size < 0 or size > length:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {length} but size is {size}")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    strides = list(self.stride()) if nd else []
    shape = list(self.shape)
    if nd == 0:
        return self.reshape(1)
    shape[d] = (length - size) // step + 1
    new_strides = list(strides)
    new_strides[d] = strides[d] * step
    return self.as_strided([*shape, size], [*new_strides, strides[d]], self.storage_offset())


def _where(self, condition, y):
    """Tensor.where(condition, y): self where condition holds, else y."""
    return _flow.where(condition, self, y)


def _get_device(self) -> int:
    """The CUDA device index of the tensor; -1 for a CPU tensor."""
    return self.device.index if self.device.type == "cuda" else -1


def _zeros_(self):
    """Fills the tensor with zeros in place (OneFlow's Tensor.zeros_)."""
    return self.fill_(0)


def _cast(self, dtype):
    """Tensor.cast(dtype): oneflow.cast(self, dtype), a new tensor of that dtype."""
    return _flow.cast(self, dtype)


def _in_top_k(self, predictions, k):
    """Tensor.in_top_k(predictions, k): oneflow.in_top_k with this tensor as the targets."""
    return _flow.in_top_k(self, predictions, k)


def _to_consistent(self, *args, **kwargs):
    """OneFlow's former name of ``to_global``."""
    return self.to_global(*args, **kwargs)


def _install() -> list:
    names = []
    namespace = globals()
    for alias, target in _ALIASES.items():
        fn = getattr(_flow, target)
        namespace[alias] = fn
        names.append(alias)
    for alias, target in _METHOD_ALIASES.items():
        if hasattr(_Tensor, target) and not hasattr(_Tensor, alias):
            setattr(_Tensor, alias, getattr(_Tensor, target))
    methods = {
        "argwhere": argwhere,
        "unfold": _unfold,
        "where": _where,
        "get_device": _get_device,
        "zeros_": _zeros_,
        "cast": _cast,
        "in_top_k": _in_top_k,
        "to_consistent": _to_consistent,
        "is_lazy": property(lambda self: False, doc="False: eager tensors are never lazy (nn.Graph's are)."),
    }
    for name, value in methods.items():
        if not hasattr(_Tensor, name):
            setattr(_Tensor, name, value)
    return names


__all__ = [
    *_install(),
    "is_floating_point",
    "is_nonzero",
    "argwhere",
    "equal",
    "movedim",
    "hsplit",
    "vsplit",
    "broadcast_like",
    "floor_",
    "sin_",
    "slice",
    "logical_slice",
    "var_mean",
    "std_mean",
    "where",
    *_CPU_TENSOR_TYPES,
]
