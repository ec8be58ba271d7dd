"""OneFlow's own top-level names that PyTorch does not have, or has with other semantics (issue 15)."""

from __future__ import annotations

import builtins

import numpy as np

import oneflow
from oneflow import backends, cuda, framework, jit
from oneflow._tensor_str import get_printoptions, set_printoptions

__all__: list = [
    "backends",
    "cast",
    "cuda",
    "finfo",
    "framework",
    "get_printoptions",
    "iinfo",
    "jit",
    "set_printoptions",
]

# bfloat16 has no NumPy type: its limits, by hand (8 exponent bits as float32, 7 mantissa bits).
_BFLOAT16 = {
    "bits": 16,
    "eps": 2.0**-7,
    "max": (2.0 - 2.0**-7) * 2.0**127,
    "tiny": 2.0**-126,
    "resolution": 0.01,
}


def _check_dtype(fn: str, dtype) -> None:
    if not isinstance(dtype, oneflow.dtype):
        raise TypeError(f"{fn}(): argument 'type' must be oneflow.dtype, not {type(dtype).__name__}")


class finfo:
    """The numerical limits of a floating dtype (``oneflow.finfo(oneflow.float16)``), with
    PyTorch's fields: ``bits``, ``eps``, ``max``, ``min``, ``tiny`` (= ``smallest_normal``),
    ``resolution`` and ``dtype`` (its name). Without an argument: the default dtype's.

        >>> oneflow.finfo(oneflow.float16).max
        65504.0
    """

    def __init__(self, type: oneflow.dtype | None = None) -> None:
        dtype = oneflow.get_default_dtype() if type is None else type
        _check_dtype("finfo", dtype)
        if not dtype.is_floating_point:
            raise TypeError(f"finfo(): {dtype} is not a floating point dtype; use oneflow.iinfo for integers")
        name = dtype._name
        if name == "bfloat16":
            info = _BFLOAT16
            self.bits, self.eps, self.max = info["bits"], info["eps"], info["max"]
            self.tiny, self.resolution = info["tiny"], info["resolution"]
        else:
            info = np.finfo(name)
            self.bits = builtins.int(info.bits)
            self.eps = builtins.float(info.eps)
            self.max = builtins.float(info.max)
            self.tiny = builtins.float(info.smallest_normal)
            self.resolution = 10.0 ** -builtins.int(info.precision)
        self.min = -self.max
        self.smallest_normal = self.tiny
        self.dtype = name

    def __eq__(self, other) -> builtins.bool:
        return isinstance(other, finfo) and self.dtype == other.dtype

    def __hash__(self) -> builtins.int:
        return hash(("finfo", self.dtype))

    def __repr__(self) -> str:
        return (
            f"finfo(resolution={self.resolution}, min={self.min}, max={self.max}, eps={self.eps}, "
            f"smallest_normal={self.smallest_normal}, tiny={self.tiny}, dtype={self.dtype})"
        )


class iinfo:
    """The numerical limits of an integer dtype (``oneflow.iinfo(oneflow.int8)``), with
    PyTorch's fields: ``bits``, ``min``, ``max`` and ``dtype`` (its name).

        >>> oneflow.iinfo(oneflow.int8).min
        -128
    """

    def __init__(self, type: oneflow.dtype) -> None:
        _check_dtype("iinfo", type)
        name = type._name
        if type.is_floating_point or name == "bool":
            raise TypeError(f"iinfo(): {type} is not an integer dtype; use oneflow.finfo for floating types")
        info = np.iinfo(name)
        self.bits = builtins.int(info.bits)
        self.min = builtins.int(info.min)
        self.max = builtins.int(info.max)
        self.dtype = name

    def __eq__(self, other) -> builtins.bool:
        return isinstance(other, iinfo) and self.dtype == other.dtype

    def __hash__(self) -> builtins.int:
        return hash(("iinfo", self.dtype))

    def __repr__(self) -> str:
        return f"iinfo(min={self.min}, max={self.max}, dtype={self.dtype})"


def cast(input: oneflow.Tensor, dtype: oneflow.dtype) -> oneflow.Tensor:
    """``input`` converted to ``dtype`` (OneFlow's ``oneflow.cast``; ``input.to(dtype)``).

    Always a new tensor, also when ``input`` already has ``dtype``; differentiable.

        >>> oneflow.cast(oneflow.tensor([1.7, -2.2]), oneflow.int32)
        tensor([ 1, -2], dtype=oneflow.int32)
    """
    if not isinstance(input, oneflow.Tensor):
        raise TypeError(f"cast(): argument 'input' must be Tensor, not {type(input).__name__}")
    if not isinstance(dtype, oneflow.dtype):
        raise TypeError(f"cast(): argument 'dtype' must be oneflow.dtype, not {type(dtype).__name__}")
    return input.to(dtype, copy=True)
