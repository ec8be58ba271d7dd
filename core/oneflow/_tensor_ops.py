"""Tensor ops whose PyTorch signatures one op schema cannot express.

``einsum(equation, *operands)``, ``meshgrid(*tensors, indexing=None)`` and
``cartesian_prod(*tensors)`` take varargs; ``tensordot`` takes ``dims`` as an
int or a pair of lists; ``unique`` and ``unique_consecutive`` return as many
tensors as their flags ask for; ``unflatten`` infers a -1 size and is a view. The work is done by the registry ops
(``ops/defs/tensor_ops.cc``, ``ops/defs/sort.cc``); these wrappers only map
arguments. ``inverse`` and ``cholesky`` raise ``oneflow.linalg.LinAlgError`` for
singular input, as PyTorch does.
"""

from __future__ import annotations

import builtins
import numbers
import operator

import oneflow
from oneflow import _C
from oneflow import linalg as _linalg

__all__ = [
    "cartesian_prod",
    "cholesky",
    "einsum",
    "inverse",
    "meshgrid",
    "tensordot",
    "unflatten",
    "unique",
    "unique_consecutive",
]


def _tensors(args, op: str) -> list:
    """Varargs of tensors, or one list/tuple of them (both forms PyTorch accepts)."""
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        args = tuple(args[0])
    for i, t in enumerate(args):
        if not isinstance(t, oneflow.Tensor):
            raise TypeError(f"{op}(): expected Tensor as element {i} in argument 0, but got {type(t).__name__}")
    return list(args)


def einsum(equation: str, *operands) -> oneflow.Tensor:
    """Sums products of the operands' elements over the indices the equation names.

    ``einsum("ij,jk->ik", a, b)`` is ``a @ b``; an ellipsis (``...``) stands for
    broadcast dims, a subscript repeated within an operand takes a diagonal, and
    without ``->`` the output has the subscripts that appear once, in alphabetical
    order. Operands are contracted pairwise (batched matrix products), smallest
    intermediate first.
    """
    if not isinstance(equation, str):
        raise TypeError(f"einsum(): argument 'equation' must be str, not {type(equation).__name__}")
    return _C.ops.einsum(equation, _tensors(operands, "einsum"))


def tensordot(a, b, dims=2, out=None) -> oneflow.Tensor:
    """Contracts the last ``dims`` dims of ``a`` with the first ``dims`` of ``b``, or the
    dims listed in ``dims = (dims_a, dims_b)`` (two lists, or a 2-row tensor)."""
    if out is not None:
        raise TypeError("tensordot(): the 'out' argument is not supported")
    if isinstance(dims, oneflow.Tensor):
        dims = dims.tolist() if dims.numel() > 1 else int(dims.item())
        if isinstance(dims, int) and dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
    if isinstance(dims, (list, tuple)):
        dims_a, dims_b = dims
        for name, d in (("dims_self", dims_a), ("dims_other", dims_b)):
            if not isinstance(d, (list, tuple)):
                raise TypeError(f"tensordot(): argument '{name}' must be tuple of ints, not {type(d).__name__}")
    elif isinstance(dims, numbers.Integral) and not isinstance(dims, builtins.bool):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > min(a.ndim, b.ndim):
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        dims_a, dims_b = list(range(-dims, 0)), list(range(dims))
    else:
        raise TypeError(f"tensordot(): argument 'dims' must be an int or a pair of lists of ints, not {dims!r}")
    return _C.ops.tensordot(a, b, dims_a, dims_b)


def meshgrid(*tensors, indexing: str | None = None) -> tuple:
    """Coordinate grids of the 1-D (or 0-D) inputs: ``indexing="ij"`` (the default)
    puts input i along dim i; ``"xy"`` swaps the first two dims."""
    return _C.ops.meshgrid(_tensors(tensors, "meshgrid"), indexing=indexing)


def cartesian_prod(*tensors) -> oneflow.Tensor:
    """The cartesian product of 1-D tensors, one row per combination."""
    return _C.ops.cartesian_prod(_tensors(tensors, "cartesian_prod"))


def unique(input, sorted: builtins.bool = True, return_inverse: builtins.bool = False,
           return_counts: builtins.bool = False, dim: int | None = None):
    """The sorted unique elements of ``input`` (or unique slices along ``dim``), with the
    inverse indices and the counts when asked for."""
    if dim is None:
        values, inverse, counts = _C.ops._unique2(input, sorted, return_inverse, return_counts)
    else:
        values, inverse, counts = _C.ops._unique_dim(input, dim, sorted, return_inverse, return_counts)
    return _pick(values, inverse, counts, return_inverse, return_counts)


def unique_consecutive(input, return_inverse: builtins.bool = False, return_counts: builtins.bool = False,
                       dim: int | None = None):
    """``input`` with runs of equal consecutive elements (or slices along ``dim``) collapsed."""
    values, inverse, counts = _C.ops._unique_consecutive(input, return_inverse, return_counts, dim)
    return _pick(values, inverse, counts, return_inverse, return_counts)


def _pick(values, inverse, counts, return_inverse, return_counts):
    if return_inverse and return_counts:
        return values, inverse, counts
    if return_inverse:
        return values, inverse
    if return_counts:
        return values, counts
    return values


def inverse(input) -> oneflow.Tensor:
    """The inverse of each square matrix in ``input`` (``oneflow.linalg.inv``)."""
    return _linalg.inv(input)


def cholesky(input, upper: builtins.bool = False) -> oneflow.Tensor:
    """The Cholesky factor of each symmetric positive-definite matrix in ``input``."""
    return _linalg.cholesky(input, upper=upper)


def _unflatten_sizes(sizes) -> list:
    """``sizes`` as a list of ints (a tuple, list or ``Size``; bools are refused as PyTorch does)."""
    if not isinstance(sizes, (tuple, list)):
        raise TypeError(f"unflatten(): argument 'sizes' (position 2) must be tuple of ints, not {type(sizes).__name__}")
    out = []
    for pos, s in enumerate(sizes):
        if isinstance(s, builtins.bool) or (isinstance(s, oneflow.Tensor) and s.dtype == oneflow.bool):
            s = None
        else:
            try:
                s = operator.index(s)
            except TypeError:
                s = None
        if s is None:
            raise TypeError(f"unflatten(): argument 'sizes' (position 2) must be tuple of ints, but found element "
                            f"of type {type(sizes[pos]).__name__} at pos {pos}")
        out.append(s)
    return out


def unflatten(input, dim: int, sizes) -> oneflow.Tensor:
    """Splits dim ``dim`` of ``input`` into the dims ``sizes`` (a view).

    One entry of ``sizes`` may be -1: it is inferred from the size of ``dim``. The product of
    ``sizes`` must equal that size. ``input.unflatten(dim, sizes)`` is the same.

    Example: a ``(2, 12)`` tensor unflattened at dim 1 into ``(3, -1)`` has shape ``(2, 3, 4)``.
    """
    if isinstance(dim, builtins.bool) or not isinstance(dim, numbers.Integral):
        raise TypeError(f"unflatten(): argument 'dim' (position 1) must be int, not {type(dim).__name__}")
    sizes = _unflatten_sizes(sizes)
    shape = list(input.shape)
    ndim = len(shape)
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    if ndim == 0:
        raise RuntimeError(f"unflatten: Dimension specified as {dim} but tensor has no dimensions")
    if not -ndim <= dim < ndim:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], but got {dim})")
    d = dim % ndim
    if sizes.count(-1) > 1:
        raise RuntimeError("unflatten: only one dimension can be inferred")
    for i, s in enumerate(sizes):
        if s < -1:
            raise RuntimeError(f"unflatten: invalid shape dimension {s} at index {i} of shape {sizes}")
    known = 1
    for s in sizes:
        if s != -1:
            known *= s
    mismatch = (f"unflatten: Provided sizes {sizes} don't multiply up to the size of dim {dim} ({shape[d]}) in "
                "the input tensor")
    if -1 in sizes:
        if known == 0:
            if shape[d] == 0:
                raise RuntimeError(f"unflatten: cannot infer the -1 in sizes {sizes} for dim {dim} of size 0 "
                                   "(it can be any value and is ambiguous)")
            raise RuntimeError(mismatch)
        if shape[d] % known:
            raise RuntimeError(mismatch)
        sizes[sizes.index(-1)] = shape[d] // known
    elif known != shape[d]:
        raise RuntimeError(mismatch)
    # Splitting one dim is always expressible with strides, so this is a view of any input.
    return input.view(shape[:d] + sizes + shape[d + 1:])


def _install_methods() -> None:
    """Tensor methods with the wrappers' signatures (the registry's own methods would
    return all three unique outputs, or raise RuntimeError for singular input)."""
    Tensor = oneflow.Tensor

    def unique_method(self, sorted=True, return_inverse=False, return_counts=False, dim=None):
        return unique(self, sorted, return_inverse, return_counts, dim)

    def unique_consecutive_method(self, return_inverse=False, return_counts=False, dim=None):
        return unique_consecutive(self, return_inverse, return_counts, dim)

    Tensor.unique = unique_method
    Tensor.unique_consecutive = unique_consecutive_method
    Tensor.inverse = inverse
    Tensor.unflatten = unflatten
    Tensor.cholesky = cholesky


_install_methods()
