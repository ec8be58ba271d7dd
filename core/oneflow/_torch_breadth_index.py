"""PyTorch's index-, matrix- and statistics-flavoured callables as compositions of this package's
ops (issue 16): ``scatter_reduce``, ``index_reduce``, the ``*_scatter`` ops, ``cdist``, ``kron``,
``block_diag``, ``cov``/``corrcoef``, ``addmv``/``addr``/``addbmm``, ``histogram``,
``unravel_index``, ``trapezoid``, ``combinations``, ``tril_indices``/``triu_indices`` and
``vander``. Autograd runs through the ops they are built from.
"""

from __future__ import annotations

import builtins
import itertools
import numbers

import oneflow as _flow
from oneflow import return_types as _return_types
from oneflow._torch_breadth import (
    _check_tensor,
    _dims_of,
    _dtype_name,
    _is_float,
    _name,
    promote_types,
)

_Tensor = _flow.Tensor

# ---- scatter and index reductions ----------------------------------------------------------------

_REDUCES = ("sum", "prod", "mean", "amax", "amin")


def _identity(reduce: str, dtype) -> float:
    if reduce in ("sum", "mean"):
        return 0
    if reduce == "prod":
        return 1
    big = float("inf") if _is_float(dtype) else (2**63 - 1 if _name(dtype) == "int64" else 2**31 - 1)
    return -big if reduce == "amax" else big


def scatter_reduce(input, dim: int, index, src, reduce: str, *, include_self: bool = True):
    """``input`` with the elements of ``src`` reduced into it at ``index`` along ``dim``, as
    ``scatter`` places them: ``reduce`` is "sum", "prod", "mean", "amax" or "amin"; without
    ``include_self`` the scattered-to elements of ``input`` do not take part. Equal maxima
    (minima) share the gradient evenly, as in PyTorch."""
    for name, v in (("input", input), ("index", index), ("src", src)):
        _check_tensor("scatter_reduce", name, v)
    reduce = {"max": "amax", "min": "amin"}.get(reduce, reduce)  # older names PyTorch still takes
    if reduce not in _REDUCES:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    if index.dtype not in (_flow.int64, _flow.int32):
        raise RuntimeError(f"scatter_reduce(): Expected dtype int64 for index, but got {_dtype_name(index.dtype)}")
    index = index.to(_flow.int64)
    if input.dtype != src.dtype:
        raise RuntimeError(
            f"scatter_reduce(): Expected self.dtype to be equal to src.dtype, but got "
            f"{_dtype_name(input.dtype)} and {_dtype_name(src.dtype)}"
        )
    nd = input.dim()
    d = _dims_of("scatter_reduce", dim, nd)[0] if nd else 0
    if index.dim() != src.dim() or (nd and index.dim() != nd):
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    if index.numel() == 0:
        return input.clone()
    too_big = any(
        index.shape[i] > src.shape[i] or (i != d and index.shape[i] > input.shape[i]) for i in range(index.dim())
    )
    if too_big:
        raise RuntimeError(
            f"Expected index {list(index.shape)} to be smaller than self {list(input.shape)} apart from dimension "
            f"{d} and to be smaller size than src {list(src.shape)}"
        )
    # The kernels check every index against the dim's size (a RuntimeError naming the op).
    # Only the part of src that index covers takes part, as in scatter.
    src = src[tuple(builtins.slice(0, n) for n in index.shape)] if src.dim() else src
    if reduce in ("amax", "amin"):
        return _ScatterExtremum.apply(input, d, index, src, reduce, include_self)
    counted = input.scatter(d, index, 0) if not include_self else input
    if reduce == "sum":
        return counted.scatter_add(d, index, src)
    if reduce == "mean":
        total = counted.scatter_add(d, index, src)
        n = (
            _flow.ones_like(input)
            if include_self
            else _flow.where(
                _flow.zeros_like(input).scatter(d, index, 1) != 0, _flow.zeros_like(input), _flow.ones_like(input)
            )
        )
        n = n.scatter_add(d, index, _flow.ones_like(src))
        n = _flow.where(n == 0, _flow.ones_like(n), n)
        return _flow.div(total, n, rounding_mode=None if _is_float(input.dtype) else "floor")
    # prod: a segmented reduction of src's elements grouped by the output element they go to,
    # then merged with input where something was scattered.
    fill = _identity(reduce, src.dtype)
    pos, part = _segment_reduce(input, d, index, src, reduce)
    flat_mask = _flow.zeros(input.numel(), dtype=_flow.bool, device=input.device).scatter(0, pos, True)
    full = _flow.full((input.numel(),), fill, dtype=input.dtype, device=input.device).scatter(0, pos, part)
    mask, full = flat_mask.reshape(input.shape), full.reshape(input.shape)
    if not include_self:
        return _flow.where(mask, full, input)
    if reduce == "prod":
        merged = input * full
    elif reduce == "amax":
        merged = _flow.maximum(input, full)
    else:
        merged = _flow.minimum(input, full)
    return _flow.where(mask, merged, input)


class _ScatterExtremum(_flow.autograd.Function):
    """scatter_reduce's "amax"/"amin" (the _scatter_reduce kernel) with PyTorch's gradient: each
    result's gradient split evenly among the elements equal to it, src's and input's; where
    something was scattered without ``include_self``, input's share is dropped."""

    @staticmethod
    def forward(ctx, input, d, index, src, reduce, include_self):
        out = _flow._C.ops._scatter_reduce(input, d, index, src, reduce, include_self)
        ctx.save_for_backward(input, index, src, out)
        ctx.d, ctx.include_self = d, include_self
        return out

    @staticmethod
    def backward(ctx, grad):
        input, index, src, out = ctx.saved_tensors
        d = ctx.d
        src_hit = (src == out.gather(d, index)).to(grad.dtype)
        # PyTorch counts an input element equal to the result even without include_self (it
        # then gets no share itself).
        input_hit = (input == out).to(grad.dtype)
        count = _flow.zeros_like(grad).scatter_add(d, index, src_hit) + input_hit
        share = grad / _flow.where(count == 0, _flow.ones_like(count), count)
        if ctx.include_self:
            grad_input = share * input_hit
        else:
            grad_input = grad.scatter(d, index, 0)
        return grad_input, None, None, share.gather(d, index) * src_hit, None, None


def _segment_reduce(input, d: int, index, src, reduce: str):
    """``(positions, values)``: the flat positions in ``input`` that ``index`` scatters to (each
    once) and the reduction of the ``src`` elements that go to each.

    The elements are sorted by position, then a log-step (Hillis-Steele) scan combines each with
    the one ``s`` before it when both go to the same position; the last of each run holds the run's
    reduction. Built from differentiable ops, with O(n log n) work and no dense expansion."""
    shape = list(input.shape)
    strides = [1] * len(shape)
    for i in range(len(shape) - 2, -1, -1):
        strides[i] = strides[i + 1] * shape[i + 1]
    lin = index * strides[d] if shape else index
    for i, n in enumerate(index.shape):
        if i != d:
            view = [1] * index.dim()
            view[i] = n
            lin = lin + _flow.arange(n, device=input.device).reshape(view) * strides[i]
    lin = lin.reshape(-1)
    order = _flow.argsort(lin)
    lin = lin[order]
    vals = src.reshape(-1)[order]
    n = lin.numel()
    combine = {"prod": _flow.mul, "amax": _flow.maximum, "amin": _flow.minimum}[reduce]
    step = 1
    while step < n:
        same = lin[step:] == lin[:-step]
        tail = _flow.where(same, combine(vals[step:], vals[:-step]), vals[step:])
        vals = _flow.cat([vals[:step], tail], 0)
        step *= 2
    last = _flow.cat([lin[1:] != lin[:-1], _flow.ones(1, dtype=_flow.bool, device=input.device)], 0)
    return lin[last], vals[last]


def index_reduce(input, dim: int, index, source, reduce: str, *, include_self: bool = True):
    """``input`` with the slices of ``source`` reduced into the slices ``index`` (1-D) names along
    ``dim``: ``reduce`` is "prod", "mean", "amax" or "amin"."""
    for name, v in (("input", input), ("index", index), ("source", source)):
        _check_tensor("index_reduce", name, v)
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got {reduce}.")
    if index.dim() > 1:
        raise IndexError(
            f"index_reduce_(): Index is supposed to be a vector, but got dim: {index.dim()} with type: "
            f"{_dtype_name(index.dtype)} and size: {list(index.shape)}"
        )
    if index.dtype not in (_flow.int64, _flow.int32):
        raise RuntimeError(f"index_reduce_(): Expected dtype int32/int64 for index but got: {_dtype_name(index.dtype)}")
    if input.dtype != source.dtype:
        raise RuntimeError("index_reduce_(): self and source must have the same scalar type")
    d = _dims_of("index_reduce", dim, max(input.dim(), 1))[0]
    if source.dim() and index.numel() != source.shape[d]:
        raise RuntimeError(
            f"index_reduce_(): Number of indices ({index.numel()}) should be equal to source.size(dim) "
            f"({source.shape[d]})"
        )
    shape = [1] * source.dim()
    if source.dim():
        shape[d] = -1
    idx = index.to(_flow.int64).reshape(shape).expand(*source.shape) if source.dim() else index.reshape(())
    return scatter_reduce(input, d, idx, source, reduce, include_self=include_self)


def select_scatter(input, src, dim: int, index: int):
    """``input`` with ``src`` embedded as its slice ``index`` along ``dim``."""
    _check_tensor("select_scatter", "input", input)
    _check_tensor("select_scatter", "src", src)
    d = _dims_of("select_scatter", dim, input.dim())[0]
    n = input.shape[d]
    if not -n <= index < n:
        raise IndexError(
            f"select(): index {index} out of range for tensor of size {list(input.shape)} at dimension {d}"
        )
    expected = list(input.shape[:d]) + list(input.shape[d + 1 :])
    if list(src.shape) != expected:
        raise RuntimeError(
            f"expected src to have a size equal to the slice of self. src size = {list(src.shape)}, "
            f"slice size = {expected}"
        )
    idx = _flow.tensor([index % n], dtype=_flow.int64, device=input.device)
    return input.index_copy(d, idx, src.unsqueeze(d).to(input.dtype))


def slice_scatter(input, src, dim: int = 0, start=None, end=None, step: int = 1):
    """``input`` with ``src`` embedded as its slice ``start:end:step`` along ``dim``."""
    _check_tensor("slice_scatter", "input", input)
    _check_tensor("slice_scatter", "src", src)
    d = _dims_of("slice_scatter", dim, input.dim())[0]
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    positions = range(input.shape[d])[builtins.slice(start, end, step)]
    expected = list(input.shape)
    expected[d] = len(positions)
    if list(src.shape) != expected:
        raise RuntimeError(
            f"expected src to have a size equal to the slice of self. src size = {list(src.shape)}, "
            f"slice size = {expected}"
        )
    if not positions:
        return input.clone()
    idx = _flow.tensor(list(positions), dtype=_flow.int64, device=input.device)
    return input.index_copy(d, idx, src.to(input.dtype))


def diagonal_scatter(input, src, offset: int = 0, dim1: int = 0, dim2: int = 1):
    """``input`` with ``src`` embedded as its diagonal ``offset`` of the dims ``dim1``, ``dim2``
    (the diagonal's elements along ``src``'s last dim, as ``diagonal`` returns them)."""
    _check_tensor("diagonal_scatter", "input", input)
    _check_tensor("diagonal_scatter", "src", src)
    expected = list(_flow.diagonal(input, offset, dim1, dim2).shape)
    if list(src.shape) != expected:
        raise RuntimeError(
            f"expected src to have a size equal to the slice of self. src size = {list(src.shape)}, "
            f"slice size = {expected}"
        )
    d1, d2 = _dims_of("diagonal_scatter", [dim1, dim2], input.dim())
    moved = _flow.movedim(input, (d1, d2), (-2, -1))
    rows, cols = moved.shape[-2], moved.shape[-1]
    n = expected[-1]
    r0, c0 = (0, offset) if offset >= 0 else (-offset, 0)
    flat_idx = _flow.tensor([(r0 + i) * cols + c0 + i for i in range(n)], dtype=_flow.int64, device=input.device)
    flat = moved.reshape(*moved.shape[:-2], rows * cols)
    if n:
        flat = flat.index_copy(flat.dim() - 1, flat_idx, src.to(input.dtype))
    return _flow.movedim(flat.reshape(moved.shape), (-2, -1), (d1, d2))


# ---- matrices ------------------------------------------------------------------------------------


def _addmm_like(fn: str, input, product, beta, alpha):
    _flow.broadcast_shapes(tuple(input.shape), tuple(product.shape))  # input must broadcast to it
    if beta == 0:  # PyTorch ignores input then, NaN and inf included
        return product if alpha == 1 else product * alpha
    scaled_in = input if beta == 1 else input * beta
    return scaled_in + (product if alpha == 1 else product * alpha)


def addmv(input, mat, vec, *, beta=1, alpha=1):
    """``beta * input + alpha * (mat @ vec)``; ``input`` is ignored (NaN too) when ``beta`` is 0."""
    for name, v in (("input", input), ("mat", mat), ("vec", vec)):
        _check_tensor("addmv", name, v)
    return _addmm_like("addmv", input, _flow.mv(mat, vec), beta, alpha)


def addr(input, vec1, vec2, *, beta=1, alpha=1):
    """``beta * input + alpha * outer(vec1, vec2)``."""
    for name, v in (("input", input), ("vec1", vec1), ("vec2", vec2)):
        _check_tensor("addr", name, v)
    if vec1.dim() != 1 or vec2.dim() != 1:
        bad = vec1 if vec1.dim() != 1 else vec2
        raise RuntimeError(f"addr: Expected 1-D argument vec{1 if bad is vec1 else 2}, but got {bad.dim()}-D")
    return _addmm_like("addr", input, _flow.outer(vec1, vec2), beta, alpha)


def addbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """``beta * input + alpha * sum_i(batch1[i] @ batch2[i])``."""
    for name, v in (("input", input), ("batch1", batch1), ("batch2", batch2)):
        _check_tensor("addbmm", name, v)
    for b in (batch2, batch1):  # PyTorch reads batch2.size(2) first
        if b.dim() < 3:
            raise IndexError(
                f"Dimension out of range (expected to be in range of [{-b.dim()}, {b.dim() - 1}], but got 2)"
            )
    if batch1.dim() != 3 or batch2.dim() != 3:
        raise RuntimeError("batch1 must be a 3D tensor" if batch1.dim() != 3 else "batch2 must be a 3D tensor")
    return _addmm_like("addbmm", input, _flow.bmm(batch1, batch2).sum(0), beta, alpha)


def inner(input, other):
    """The dot products of the last dims of ``input`` and ``other`` (a product when one is 0-dim)."""
    _check_tensor("inner", "input", input)
    _check_tensor("inner", "other", other)
    if input.dim() == 0 or other.dim() == 0:
        return input * other
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError(
            f"inner() the last dimension must match on both input tensors but got shapes {list(input.shape)} "
            f"and {list(other.shape)}"
        )
    return _flow.tensordot(input, other, ([-1], [-1]))


def kron(input, other):
    """The Kronecker product: block ``(i, j, ...)`` is ``input[i, j, ...] * other``."""
    _check_tensor("kron", "input", input)
    _check_tensor("kron", "other", other)
    nd = max(input.dim(), other.dim())
    a_shape = [1] * (nd - input.dim()) + list(input.shape)
    b_shape = [1] * (nd - other.dim()) + list(other.shape)
    a = input.reshape([s for n in a_shape for s in (n, 1)])
    b = other.reshape([s for n in b_shape for s in (1, n)])
    return (a * b).reshape([x * y for x, y in zip(a_shape, b_shape)])


def block_diag(*tensors):
    """The tensors (0-, 1- or 2-D) as the diagonal blocks of one matrix, zeros elsewhere."""
    blocks = []
    for i, t in enumerate(tensors):
        if not isinstance(t, _Tensor):
            raise TypeError(
                f"block_diag(): argument 'tensors' must be tuple of Tensors, but found element of type "
                f"{type(t).__name__} at pos {i}"
            )
        if t.dim() > 2:
            raise RuntimeError(
                f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {i} has {t.dim()} dimensions"
            )
        blocks.append(t.reshape(1, -1) if t.dim() < 2 else t)
    if not blocks:
        return _flow.empty(1, 0)
    dtype = blocks[0].dtype
    for b in blocks[1:]:
        dtype = promote_types(dtype, b.dtype)
    width = builtins.sum(b.shape[1] for b in blocks)
    rows, left = [], 0
    for b in blocks:
        r, c = b.shape
        parts = [
            _flow.zeros(r, left, dtype=dtype, device=b.device),
            b.to(dtype),
            _flow.zeros(r, width - left - c, dtype=dtype, device=b.device),
        ]
        rows.append(_flow.cat(parts, 1))
        left += c
    return _flow.cat(rows, 0)


def cdist(x1, x2, p: float = 2.0, compute_mode: str = "use_mm_for_euclid_dist_if_necessary"):
    """The ``p``-norm distances between each row of ``x1`` ``(..., P, M)`` and each row of ``x2``
    ``(..., R, M)``: shape ``(..., P, R)``. For ``p = 2`` with more than 25 rows (or when
    ``compute_mode`` asks) it uses ``|a|^2 + |b|^2 - 2 a.b``, as PyTorch does."""
    _check_tensor("cdist", "x1", x1)
    _check_tensor("cdist", "x2", x2)
    if x1.dim() < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X1 got: {x1.dim()}D")
    if x2.dim() < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X2 got: {x2.dim()}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: {x2.shape[-1]}")
    for name, t in (("X1", x1), ("X2", x2)):
        if not _is_float(t.dtype):
            raise RuntimeError(f"cdist only supports floating-point dtypes, {name} got: {_dtype_name(t.dtype)}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    modes = ("use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist", "donot_use_mm_for_euclid_dist")
    if compute_mode not in modes:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    use_mm = p == 2 and (
        compute_mode == "use_mm_for_euclid_dist"
        or (compute_mode == modes[0] and (x1.shape[-2] > 25 or x2.shape[-2] > 25))
    )
    if use_mm:
        # One GEMM: [-2 x1, |x1|^2, 1] . [x2, 1, |x2|^2]^T = |x1|^2 - 2 x1.x2 + |x2|^2.
        sq1 = (x1 * x1).sum(-1, keepdim=True)
        sq2 = (x2 * x2).sum(-1, keepdim=True)
        a = _flow.cat([x1 * -2, sq1, _flow.ones_like(sq1)], dim=-1)
        b = _flow.cat([x2, _flow.ones_like(sq2), sq2], dim=-1)
        return _flow.matmul(a, b.transpose(-2, -1)).clamp_min_(0).sqrt_()
    diff = x1.unsqueeze(-2) - x2.unsqueeze(-3)
    return _flow.linalg.vector_norm(diff, ord=p, dim=-1)


# ---- statistics ----------------------------------------------------------------------------------


def cov(input, *, correction: int = 1, fweights=None, aweights=None):
    """The covariance matrix of the variables in the rows of ``input`` (observations in its
    columns), with frequency and observation weights when given."""
    _check_tensor("cov", "input", input)
    if input.dim() > 2:
        raise RuntimeError(
            f"cov(): expected input to have two or fewer dimensions but got an input with {input.dim()} dimensions"
        )
    x = input.reshape(1, -1) if input.dim() < 2 else input
    if not _is_float(x.dtype):
        x = x.to(_flow.get_default_dtype())
    n = x.shape[1]
    w = None
    if fweights is not None:
        if _is_float(fweights.dtype):
            raise RuntimeError(
                f"cov(): expected fweights to have integral dtype but got fweights with "
                f"{_dtype_name(fweights.dtype)} dtype"
            )
        w = fweights
    if aweights is not None:
        if not _is_float(aweights.dtype):
            raise RuntimeError(
                f"cov(): expected aweights to have floating point dtype but got aweights with "
                f"{_dtype_name(aweights.dtype)} dtype"
            )
        w = aweights if w is None else w * aweights
    if w is None:
        avg = x.mean(1)
        w_sum = _flow.tensor(float(n), dtype=x.dtype, device=x.device)
        norm = w_sum - correction
    else:
        w = w.to(x.dtype)
        w_sum = w.sum()
        avg = (x * w).sum(1) / w_sum
        if correction == 0:
            norm = w_sum
        elif aweights is None:
            norm = w_sum - correction
        else:
            norm = w_sum - correction * (w * aweights.to(x.dtype)).sum() / w_sum
    norm = norm.clamp_min(0)
    xm = x - avg.unsqueeze(1)
    xw = xm if w is None else xm * w
    c = _flow.mm(xw, xm.t().conj() if hasattr(xm, "conj") else xm.t()) / norm
    return c.squeeze() if input.dim() < 2 else c


def corrcoef(input):
    """The Pearson correlation coefficients of the variables in the rows of ``input``."""
    _check_tensor("corrcoef", "input", input)
    if input.dim() > 2:
        raise RuntimeError(
            f"corrcoef(): expected input to have two or fewer dimensions but got an input with {input.dim()} dimensions"
        )
    c = cov(input)
    if c.dim() == 0:
        return c / c
    d = _flow.diagonal(c)
    stddev = d.sqrt()
    c = c / stddev.unsqueeze(1)
    c = c / stddev.unsqueeze(0)
    return c.clamp(-1, 1)


def histogram(input, bins=100, *, range=None, weight=None, density: bool = False):
    """``(hist, bin_edges)``: the counts (or summed ``weight``) of ``input``'s elements in ``bins``
    equal-width bins over ``range`` (the input's min and max by default), or between the edges a
    1-D ``bins`` tensor gives. ``density`` normalizes the histogram to integrate to 1."""
    _check_tensor("histogram", "input", input)
    if not _is_float(input.dtype):
        raise NotImplementedError(f"\"histogramdd\" not implemented for '{_dtype_name(input.dtype)}'")
    x = input.detach().reshape(-1)
    if isinstance(bins, _Tensor):
        if bins.dim() != 1:
            raise RuntimeError(
                f"torch.histogram(): bins tensor should have one dimension, but got {bins.dim()} "
                "dimensions in the bin tensor"
            )
        if bins.dtype != input.dtype:
            raise RuntimeError(
                "torch.histogram: input tensor and bins tensors should have the same dtype, but got "
                f"input {_name(input.dtype)} and bins {_name(bins.dtype)}"
            )
        edges = bins.detach()
    else:
        if not isinstance(bins, numbers.Integral) or bins <= 0:
            raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
        if range is not None:
            lo, hi = float(range[0]), float(range[1])
            if lo > hi:
                raise RuntimeError(
                    f"torch.histogram(): min should not exceed max, but got min {lo} max {hi} for dimension 0"
                )
        elif x.numel():
            lo, hi = float(x.min().item()), float(x.max().item())
        else:
            lo, hi = 0.0, 0.0
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        edges = _flow.linspace(lo, hi, bins + 1, dtype=input.dtype, device=input.device)
    nb = edges.numel() - 1
    inside = (x >= edges[0]) & (x <= edges[-1])
    pos = _flow.searchsorted(edges, x, right=True) - 1
    pos = pos.clamp(0, nb - 1)
    w = _flow.ones_like(x) if weight is None else weight.detach().reshape(-1).to(input.dtype)
    w = _flow.where(inside, w, _flow.zeros_like(w))
    hist = _flow.zeros(nb, dtype=input.dtype, device=input.device).scatter_add(0, pos, w)
    if density:
        widths = edges[1:] - edges[:-1]
        hist = hist / (hist.sum() * widths)
    return _return_types.make("histogram", ("hist", "bin_edges"), (hist, edges))


# ---- index arithmetic and generators -------------------------------------------------------------


def unravel_index(indices, shape):
    """The coordinates in a tensor of ``shape`` of the flat ``indices``, one tensor per dim."""
    if not isinstance(indices, _Tensor):
        indices = _flow.tensor(indices)
    if _is_float(indices.dtype) or indices.dtype == _flow.bool:
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    shape = [shape] if isinstance(shape, numbers.Integral) else list(shape)
    for s in shape:
        if s < 0:
            raise ValueError("'shape' cannot have negative values, but got " + str(tuple(shape)))
    out = []
    rest = indices.to(_flow.int64)
    for s in reversed(shape):
        out.append(_flow.remainder(rest, s) if s else rest * 0)
        rest = _flow.div(rest, s, rounding_mode="floor") if s else rest
    return tuple(reversed(out))


def trapezoid(y, x=None, *, dx=None, dim: int = -1):
    """The trapezoidal rule along ``dim``: sample spacing ``dx`` (1 by default) or the sample
    points ``x``."""
    _check_tensor("trapezoid", "y", y)
    d = _dims_of("trapezoid", dim, y.dim())[0]
    n = y.shape[d]
    if n == 0:
        return y.sum(d)
    mid = (y.narrow(d, 1, n - 1) + y.narrow(d, 0, n - 1)) / 2
    if x is None:
        return mid.sum(d) * (1 if dx is None else dx)
    if dx is not None:
        raise TypeError("trapezoid() received an invalid combination of arguments: both x and dx are given")
    if not isinstance(x, _Tensor):
        return mid.sum(d) * x
    dxs = _flow.diff(x, dim=-1 if x.dim() == 1 else d)
    if x.dim() == 1:
        shape = [1] * y.dim()
        shape[d] = n - 1
        dxs = dxs.reshape(shape)
    return (mid * dxs).sum(d)


trapz = trapezoid


def combinations(input, r: int = 2, with_replacement: bool = False):
    """The length-``r`` combinations of the elements of the 1-D ``input``, one per row (as
    ``itertools.combinations``)."""
    _check_tensor("combinations", "input", input)
    if input.dim() != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return _flow.empty(0, dtype=input.dtype, device=input.device)
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    rows = list(pick(range(input.shape[0]), r))
    if not rows:
        return _flow.empty(0, r, dtype=input.dtype, device=input.device)
    idx = _flow.tensor(rows, dtype=_flow.int64, device=input.device)
    return input[idx]


def _tri_indices(fn: str, row: int, col: int, offset: int, dtype, device, lower: bool):
    if dtype not in (None, _flow.int64, _flow.int32):
        raise RuntimeError(
            '"tril_indices" not implemented for \'' + _dtype_name(dtype) + "'"
            if lower
            else '"triu_indices" not implemented for \'' + _dtype_name(dtype) + "'"
        )
    if row < 0 or col < 0:
        raise RuntimeError(f"row must be non-negative, got{row}" if row < 0 else f"col must be non-negative, got{col}")
    keep = [
        (i, j)
        for i in builtins.range(row)
        for j in builtins.range(col)
        if (j - i <= offset if lower else j - i >= offset)
    ]
    data = [[i for i, _ in keep], [j for _, j in keep]]
    return _flow.tensor(data, dtype=dtype or _flow.int64, device=device).reshape(2, len(keep))


def tril_indices(row: int, col: int, offset: int = 0, *, dtype=None, device=None, layout=None):
    """The ``(2, N)`` coordinates of the lower triangle (diagonal ``offset`` and below) of a
    ``row`` x ``col`` matrix, row by row."""
    return _tri_indices("tril_indices", row, col, offset, dtype, device, True)


def triu_indices(row: int, col: int, offset: int = 0, *, dtype=None, device=None, layout=None):
    """The ``(2, N)`` coordinates of the upper triangle (diagonal ``offset`` and above) of a
    ``row`` x ``col`` matrix, row by row."""
    return _tri_indices("triu_indices", row, col, offset, dtype, device, False)


def vander(x, N: int | None = None, increasing: bool = False):
    """The Vandermonde matrix of the 1-D ``x``: column ``i`` is ``x ** (N - 1 - i)`` (``x ** i``
    when ``increasing``)."""
    _check_tensor("vander", "x", x)
    if x.dim() != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x.shape[0] if N is None else N
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    dtype = promote_types(x.dtype, _flow.int64)
    if n == 0:
        return _flow.empty(x.shape[0], 0, dtype=dtype, device=x.device)
    xs = x.to(dtype)
    cols = [_flow.ones(x.shape[0], 1, dtype=dtype, device=x.device)]
    if n > 1:
        cols.append(xs.unsqueeze(1).expand(x.shape[0], n - 1))
    out = _flow.cat(cols, 1).cumprod(1)
    return out if increasing else out.flip(1)


__all__ = [
    "scatter_reduce", "index_reduce", "select_scatter", "slice_scatter", "diagonal_scatter", "addmv", "addr",
    "addbmm", "inner", "kron", "block_diag", "cdist", "cov", "corrcoef", "histogram", "unravel_index",
    "trapezoid", "trapz", "combinations", "tril_indices", "triu_indices", "vander",
]  # fmt: skip
