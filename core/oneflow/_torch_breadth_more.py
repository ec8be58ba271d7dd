"""More of PyTorch's top-level callables (issue 16): the functional forms of Tensor methods this
package already has (``oneflow.abs_``, ``oneflow.divide``, ``oneflow.vdot``, ...), the aten-style
functional layers (``oneflow.alpha_dropout(input, p, train)``, ``oneflow.rrelu``, ...), the gamma
family (``igamma``, ``mvlgamma``, ``polygamma``, ``i0``), numerical calculus (``gradient``,
``cumulative_trapezoid``), matrix functions (``matrix_exp``, ``pinverse``, ``nuclear_norm``) and
sampling (``multinomial``, ``poisson``, ``binomial``). Creation helpers, constants and global
switches are in ``_torch_breadth_switches``."""

from __future__ import annotations

import math
import numbers

import oneflow as _flow
from oneflow import return_types as _return_types
from oneflow import special as _special

_Tensor = _flow.Tensor


def _check_tensor(fn: str, name: str, value) -> None:
    if not isinstance(value, _Tensor):
        raise TypeError(f"{fn}(): argument '{name}' must be Tensor, not {type(value).__name__}")


# ---- functional forms of Tensor methods ---------------------------------------------------------

# torch.<name>(input, *args) is input.<name>(*args) for each of these.
TENSOR_METHOD_FUNCTIONS = (
    "abs_", "absolute", "acos_", "acosh_", "adjoint", "arccos_", "arccosh_", "arcsin_", "arcsinh_", "arctan2",
    "arctan_", "arctanh_", "asin_", "asinh_", "atan_", "atanh_", "bitwise_left_shift", "bitwise_right_shift",
    "broadcast_to", "ceil_", "clamp_", "clamp_max_", "clamp_min_", "clip_", "cos_", "cosh_", "detach",
    "diagflat", "dist", "divide", "erf_", "erfc_", "exp2", "exp2_", "exp_", "expm1_", "fill_", "fix", "fix_",
    "frexp", "greater", "greater_equal", "index_put_", "is_inference", "is_same_size", "is_signed", "isneginf",
    "isposinf", "isreal", "less", "less_equal", "log10_", "log1p_", "log2_", "log_", "logaddexp2",
    "matrix_power", "multiply", "nan_to_num_", "neg_", "negative_", "put", "reciprocal_", "relu_", "renorm",
    "resize_as_", "round_", "rsqrt_", "sigmoid_", "sinh_", "split_with_sizes", "sqrt_", "subtract", "tan_",
    "tanh_", "trunc_", "unsafe_chunk", "unsafe_split", "vdot", "zero_", "get_device", "is_distributed",
    "nonzero_static",
)  # fmt: skip


def _method_function(name: str):
    def fn(input, *args, **kwargs):
        _check_tensor(name, "input", input)
        return getattr(input, name)(*args, **kwargs)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``oneflow.{name}(input, ...)`` is ``input.{name}(...)``; see :meth:`oneflow.Tensor.{name}`."
    return fn


def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    """Repeats each element of ``input`` ``repeats`` times along ``dim`` (the flattened input
    without ``dim``). With a single integer tensor, ``repeat_interleave(repeats)`` repeats each
    index ``i`` ``repeats[i]`` times."""
    _check_tensor("repeat_interleave", "input", input)
    if repeats is None:
        if input.dim() > 1:
            raise RuntimeError("repeat_interleave: repeats must be 0-dim or 1-dim tensor")
        return _flow.arange(input.numel(), device=input.device).repeat_interleave(input)
    return input.repeat_interleave(repeats, dim, output_size=output_size)


def unsafe_split_with_sizes(input, split_sizes, dim=0):
    """``split_with_sizes`` (no view-safety checks are needed here)."""
    _check_tensor("unsafe_split_with_sizes", "input", input)
    return input.split_with_sizes(split_sizes, dim)


def concatenate(tensors, dim=0, *, out=None):
    """Alias of :func:`oneflow.cat`."""
    return _flow.cat(tensors, dim)


def fill(input, value):
    """A tensor like ``input`` filled with ``value`` (out of place ``fill_``)."""
    _check_tensor("fill", "input", input)
    if isinstance(value, _Tensor) and value.dim() != 0:
        raise RuntimeError(f"fill only supports 0-dimension value tensor but got tensor with {value.dim()} dimensions.")
    return input.clone().fill_(value)


def rsub(input, other, *, alpha=1):
    """``other - alpha * input``."""
    _check_tensor("rsub", "input", input)
    return _flow.sub(other, input, alpha=alpha) if isinstance(other, _Tensor) else other - alpha * input


def scalar_tensor(s, *, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False):
    """A 0-dim tensor holding the number ``s`` (of the default float dtype unless ``dtype``)."""
    if not isinstance(s, numbers.Number) or isinstance(s, complex):
        raise TypeError(f"scalar_tensor(): argument 's' must be Number, not {type(s).__name__}")
    return _flow.tensor(float(s), dtype=dtype or _flow.get_default_dtype(), device=device, requires_grad=requires_grad)


def isin(elements, test_elements, *, assume_unique=False, invert=False):
    """Whether each of ``elements`` is in ``test_elements`` (a bool tensor of ``elements``'
    shape); either may be a Python number."""
    if not isinstance(elements, _Tensor) and not isinstance(test_elements, _Tensor):
        raise TypeError("isin(): expected at least one of 'elements' and 'test_elements' to be a Tensor")
    like = elements if isinstance(elements, _Tensor) else test_elements
    if not isinstance(elements, _Tensor):
        elements = _flow.tensor(elements, device=like.device)
    if not isinstance(test_elements, _Tensor):
        test_elements = _flow.tensor([test_elements], device=like.device)
    flat = test_elements.reshape(-1)
    if flat.numel() == 0:
        found = _flow.zeros_like(elements, dtype=_flow.bool)
    else:
        ordered = flat.sort()[0]
        idx = _flow.searchsorted(ordered, elements.reshape(-1).contiguous().to(ordered.dtype))
        idx = idx.clamp(max=ordered.numel() - 1)
        found = (ordered[idx] == elements.reshape(-1).to(ordered.dtype)).reshape(elements.shape)
    return ~found if invert else found


def as_strided_scatter(input, src, size, stride, storage_offset=None):
    """A copy of ``input`` with ``src`` written into the elements that
    ``input.as_strided(size, stride, storage_offset)`` views."""
    _check_tensor("as_strided_scatter", "input", input)
    _check_tensor("as_strided_scatter", "src", src)
    if tuple(src.shape) != tuple(size):
        raise RuntimeError(
            f"expected src to have a size equal to the slice of self. src size = {list(src.shape)}, "
            f"slice size = {list(size)}"
        )
    out = input.contiguous().clone()
    offset = 0 if storage_offset is None else storage_offset
    _flow.as_strided(out, tuple(size), tuple(stride), offset).copy_(src)
    return out


def is_neg(input) -> bool:
    """Whether ``input`` carries a lazy negation bit (never, for this package's tensors)."""
    _check_tensor("is_neg", "input", input)
    return False


def resolve_neg(input):
    """``input`` with any lazy negation applied: ``input`` itself here."""
    _check_tensor("resolve_neg", "input", input)
    return input


def histogramdd(input, bins=10, *, range=None, weight=None, density=False):
    """The ``D``-dimensional histogram of the points in the last dimension of ``input``.

    ``bins`` is one count for all dimensions, a count per dimension, or the edges (a 1-D
    increasing tensor) per dimension; ``range`` is ``(min_0, max_0, min_1, max_1, ...)``. Returns
    ``(hist, bin_edges)``; the last bin of each dimension includes its right edge."""
    _check_tensor("histogramdd", "input", input)
    if input.dim() < 1:
        raise RuntimeError("torch.histogramdd: input tensor should have at least 1 dimension")
    d = input.shape[-1]
    points = input.reshape(-1, d)
    dtype = input.dtype
    if isinstance(bins, int):
        bins = [bins] * d
    if len(bins) != d:
        raise RuntimeError(
            f"torch.histogramdd: expected {d} sequences of bin edges for each of the {d} dimensions of the input, "
            f"but got {len(bins)}"
        )
    edges = []
    for k, b in enumerate(bins):
        if isinstance(b, _Tensor):
            edges.append(b.to(dtype))
            continue
        if range is not None:
            lo, hi = float(range[2 * k]), float(range[2 * k + 1])
        elif points.shape[0]:
            lo, hi = float(points[:, k].min()), float(points[:, k].max())
        else:
            lo, hi = 0.0, 0.0
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        edges.append(_flow.linspace(lo, hi, int(b) + 1, dtype=dtype, device=input.device))
    counts = [e.numel() - 1 for e in edges]
    flat = _flow.zeros(points.shape[0], dtype=_flow.int64, device=input.device)
    inside = _flow.ones(points.shape[0], dtype=_flow.bool, device=input.device)
    for k, e in enumerate(edges):
        x = points[:, k].contiguous()
        idx = _flow.searchsorted(e.contiguous(), x, right=True) - 1
        idx = _flow.where(x == e[-1], _flow.full_like(idx, counts[k] - 1), idx)
        inside = inside & (x >= e[0]) & (x <= e[-1])
        flat = flat * counts[k] + idx.clamp(0, counts[k] - 1)
    w = (
        _flow.ones(points.shape[0], dtype=dtype, device=input.device)
        if weight is None
        else weight.reshape(-1).to(dtype)
    )
    w = _flow.where(inside, w, _flow.zeros_like(w))
    total = 1
    for c in counts:
        total *= c
    hist = _flow.zeros(total, dtype=dtype, device=input.device).scatter_add(0, flat, w).reshape(counts)
    if density:
        volume = _flow.ones(counts, dtype=dtype, device=input.device)
        for k, e in enumerate(edges):
            shape = [1] * d
            shape[k] = -1
            volume = volume * (e[1:] - e[:-1]).reshape(shape)
        hist = hist / (hist.sum() * volume)
    return _return_types.make("histogramdd", ("hist", "bin_edges"), (hist, tuple(edges)))


# ---- aten-style functional layers ---------------------------------------------------------------


def _f():
    from oneflow.nn import functional

    return functional


def _reduction(value) -> str:
    if isinstance(value, str):
        return value
    return {0: "none", 1: "mean", 2: "sum"}[int(value)]


def alpha_dropout(input, p: float, train: bool):
    """Alpha dropout (keeps the self-normalizing mean and variance); see ``nn.AlphaDropout``."""
    return _f().alpha_dropout(input, p, train)


def feature_alpha_dropout(input, p: float, train: bool):
    """Alpha dropout of whole channels; see ``nn.FeatureAlphaDropout``."""
    return _f().feature_alpha_dropout(input, p, train)


def _inplace_layer(name: str, fn):
    def inplace(input, *args, **kwargs):
        _check_tensor(name, "input", input)
        # A clone keeps the values the result's gradient was computed from, which copy_ overwrites.
        base = input.clone() if input.requires_grad and _flow.is_grad_enabled() else input
        return input.copy_(fn(base, *args, **kwargs))

    inplace.__name__ = inplace.__qualname__ = name
    inplace.__doc__ = f"In-place ``{name[:-1]}``: the result is written into ``input``."
    return inplace


alpha_dropout_ = _inplace_layer("alpha_dropout_", alpha_dropout)
feature_alpha_dropout_ = _inplace_layer("feature_alpha_dropout_", feature_alpha_dropout)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    """Randomized leaky ReLU; in evaluation the negative slope is ``(lower + upper) / 2``."""
    return _f().rrelu(input, lower, upper, training)


rrelu_ = _inplace_layer("rrelu_", rrelu)


def celu_(input, alpha=1.0):
    """In-place ``celu``."""
    return _f().celu_(input, alpha)


def selu_(input):
    """In-place ``selu``."""
    return _f().selu_(input)


def threshold_(input, threshold, value):
    """In-place ``threshold``: elements not greater than ``threshold`` become ``value``."""
    return _f().threshold_(input, threshold, value)


def dropout_(input, p: float, train: bool):
    """In-place ``dropout``."""
    return _f().dropout_(input, p, train)


def feature_dropout_(input, p: float, train: bool):
    """In-place dropout of whole channels."""
    return _f().feature_dropout_(input, p, train)


def channel_shuffle(input, groups: int):
    """Rearranges the channels of ``(N, C, *)`` into ``groups`` interleaved groups."""
    return _f().channel_shuffle(input, groups)


def pdist(input, p: float = 2.0):
    """The ``p``-norm distances between the rows of a 2-D ``input``, upper triangle, row major."""
    return _f().pdist(input, p)


def hinge_embedding_loss(input, target, margin: float = 1.0, reduction=1):
    """The hinge embedding loss; ``reduction`` is 0 (none), 1 (mean) or 2 (sum), or its name."""
    return _f().hinge_embedding_loss(input, target, margin=margin, reduction=_reduction(reduction))


def poisson_nll_loss(input, target, log_input: bool, full: bool, eps: float, reduction):
    """The Poisson negative log-likelihood; ``reduction`` is 0 (none), 1 (mean) or 2 (sum)."""
    return _f().poisson_nll_loss(
        input, target, log_input=log_input, full=full, eps=eps, reduction=_reduction(reduction)
    )


def embedding_bag(
    weight,
    indices,
    offsets,
    scale_grad_by_freq=False,
    mode=0,
    sparse=False,
    per_sample_weights=None,
    include_last_offset=False,
    padding_idx=None,
):
    """The aten form of ``nn.functional.embedding_bag``: ``mode`` is 0 (sum), 1 (mean) or 2 (max),
    and the result is ``(output, offset2bag, bag_size, max_indices)``: the bag of each index, the
    number of non-padding indices per bag, and for ``max`` the row each maximum came from (the
    auxiliary outputs are empty or zero where PyTorch's are, for the sum mode)."""
    _check_tensor("embedding_bag", "weight", weight)
    _check_tensor("embedding_bag", "indices", indices)
    _check_tensor("embedding_bag", "offsets", offsets)
    if mode not in (0, 1, 2):
        raise RuntimeError(f"embedding_bag: mode must be 0 (sum), 1 (mean) or 2 (max), got {mode}")
    output = _f().embedding_bag(
        indices,
        weight,
        offsets,
        scale_grad_by_freq=scale_grad_by_freq,
        mode=("sum", "mean", "max")[mode],
        sparse=sparse,
        per_sample_weights=per_sample_weights,
        include_last_offset=include_last_offset,
        padding_idx=padding_idx,
    )
    tracked = weight.requires_grad and _flow.is_grad_enabled()
    with _flow.no_grad():
        flat = indices.reshape(-1).to(_flow.int64)
        n = flat.numel()
        starts = (offsets[:-1] if include_last_offset else offsets).to(_flow.int64).contiguous()
        bags = starts.numel()
        positions = _flow.arange(n, device=flat.device)
        bag_of = _flow.searchsorted(starts, positions, right=True) - 1
        valid = flat != padding_idx if padding_idx is not None else _flow.ones_like(flat, dtype=_flow.bool)
        if mode == 0:
            # PyTorch's fast CPU path (float32/float16 sums without padding) leaves offset2bag empty.
            fast = padding_idx is None and weight.dtype in (_flow.float32, _flow.float16)
            offset2bag = _flow.zeros(0, dtype=_flow.int64, device=flat.device) if fast else bag_of
            # (one per offset, or one per bag when the weight requires grad, as PyTorch's)
            count = bags if tracked else offsets.numel()
            zeros = _flow.zeros(count, dtype=_flow.int64, device=flat.device)
            return output, offset2bag, zeros, zeros.clone()
        bag_size = _flow.zeros(bags, dtype=_flow.int64, device=flat.device).scatter_add(
            0, bag_of, valid.to(_flow.int64)
        )
        if mode == 1:
            return output, bag_of, bag_size, bag_size.clone()
        rows = weight[flat]
        best = output.detach()[bag_of]
        hit = (rows == best) & valid.unsqueeze(-1)
        # the first position holding each bag's maximum: the largest (n - position) among the hits
        key = _flow.where(
            hit, (n - positions).unsqueeze(-1).expand(rows.shape), _flow.zeros_like(rows, dtype=_flow.int64)
        )
        first = _flow.zeros(bags, rows.shape[-1], dtype=_flow.int64, device=flat.device).scatter_reduce(
            0, bag_of.unsqueeze(-1).expand(rows.shape), key, "amax"
        )
        found = first > 0
        where_first = _flow.where(found, n - first, _flow.zeros_like(first))
        max_indices = _flow.where(found, flat[where_first.reshape(-1)].reshape(first.shape), _flow.zeros_like(first))
    return output, bag_of, bag_size, max_indices


# ---- the gamma family ----------------------------------------------------------------------------


def i0(input, *, out=None):
    """The modified Bessel function of the first kind of order 0; see ``special.i0``."""
    return _special.i0(input)


def igamma(input, other, *, out=None):
    """The regularized lower incomplete gamma function; see ``special.gammainc``."""
    return _special.gammainc(input, other)


def igammac(input, other, *, out=None):
    """The regularized upper incomplete gamma function; see ``special.gammaincc``."""
    return _special.gammaincc(input, other)


def mvlgamma(input, p: int, *, out=None):
    """The multivariate log-gamma function; see ``special.multigammaln``."""
    return _special.multigammaln(input, p)


def polygamma(n: int, input, *, out=None):
    """The ``n``-th derivative of the digamma function; see ``special.polygamma``."""
    return _special.polygamma(n, input)


# ---- numerical calculus --------------------------------------------------------------------------


def _dims(fn, input, dim):
    if dim is None:
        return list(range(input.dim()))
    dims = [dim] if isinstance(dim, int) else list(dim)
    return [d % input.dim() for d in dims]


def gradient(input, *, spacing=1, dim=None, edge_order=1):
    """The derivative estimate of ``input`` along each of ``dim``: second-order central differences
    inside, one-sided differences of order ``edge_order`` at the ends. ``spacing`` is a number, one
    number per dimension, or one coordinate tensor per dimension."""
    _check_tensor("gradient", "input", input)
    if edge_order not in (1, 2):
        raise RuntimeError(f"torch.gradient only supports edge_order=1 and edge_order=2, but got {edge_order}.")
    dims = _dims("gradient", input, dim)
    if isinstance(spacing, (list, tuple)):
        if len(spacing) != len(dims):
            raise RuntimeError(
                f"torch.gradient expected spacing to be unspecified, a scalar or it's spacing and dim arguments "
                f"to have the same length, but got a spacing argument of length {len(spacing)} and a dim "
                f"argument of length {len(dims)}."
            )
        spacings = list(spacing)
    else:
        spacings = [spacing] * len(dims)
    x = input if input.dtype.is_floating_point else input.to(_flow.get_default_dtype())
    out = []
    for d, h in zip(dims, spacings):
        n = x.shape[d]
        if n < edge_order + 1:
            raise RuntimeError("torch.gradient expected each dimension size to be at least edge_order+1")
        out.append(_gradient_1d(x, d, h, edge_order))
    return tuple(out)


def _slice(x, d, start, stop):
    return x.narrow(d, start, stop - start)


def _gradient_1d(x, d, h, edge_order):
    n = x.shape[d]
    shape = [1] * x.dim()
    shape[d] = -1
    if isinstance(h, _Tensor):
        c = h.to(x.dtype).reshape(shape)
        dx = c.narrow(d, 1, n - 1) - c.narrow(d, 0, n - 1)  # dx[i] = c[i+1] - c[i]
        a, b = dx.narrow(d, 0, n - 2), dx.narrow(d, 1, n - 2)  # h_{i-1}, h_i around interior i
        f0, f1, f2 = _slice(x, d, 0, n - 2), _slice(x, d, 1, n - 1), _slice(x, d, 2, n)
        interior = (a * a * f2 + (b * b - a * a) * f1 - b * b * f0) / (a * b * (a + b))
        h0, hl = dx.narrow(d, 0, 1), dx.narrow(d, n - 2, 1)
        if edge_order == 1:
            first = (x.narrow(d, 1, 1) - x.narrow(d, 0, 1)) / h0
            last = (x.narrow(d, n - 1, 1) - x.narrow(d, n - 2, 1)) / hl
        else:
            h1, hm = dx.narrow(d, 1, 1), dx.narrow(d, n - 3, 1)
            first = (
                -(2 * h0 + h1) / (h0 * (h0 + h1)) * x.narrow(d, 0, 1)
                + (h0 + h1) / (h0 * h1) * x.narrow(d, 1, 1)
                - h0 / (h1 * (h0 + h1)) * x.narrow(d, 2, 1)
            )
            last = (
                hl / (hm * (hm + hl)) * x.narrow(d, n - 3, 1)
                - (hm + hl) / (hm * hl) * x.narrow(d, n - 2, 1)
                + (2 * hl + hm) / (hl * (hm + hl)) * x.narrow(d, n - 1, 1)
            )
        return _flow.cat([first, interior, last], d)
    h = float(h)
    interior = (_slice(x, d, 2, n) - _slice(x, d, 0, n - 2)) / (2 * h)
    if edge_order == 1:
        first = (x.narrow(d, 1, 1) - x.narrow(d, 0, 1)) / h
        last = (x.narrow(d, n - 1, 1) - x.narrow(d, n - 2, 1)) / h
    else:
        first = (-1.5 * x.narrow(d, 0, 1) + 2 * x.narrow(d, 1, 1) - 0.5 * x.narrow(d, 2, 1)) / h
        last = (0.5 * x.narrow(d, n - 3, 1) - 2 * x.narrow(d, n - 2, 1) + 1.5 * x.narrow(d, n - 1, 1)) / h
    return _flow.cat([first, interior, last], d)


def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    """The running trapezoidal-rule integral of ``y`` along ``dim`` (one element fewer than ``y``),
    over sample points ``x`` or with uniform spacing ``dx`` (default 1)."""
    _check_tensor("cumulative_trapezoid", "y", y)
    if x is not None and dx is not None:
        raise TypeError("cumulative_trapezoid(): pass either 'x' or 'dx', not both")
    d = dim % y.dim()
    n = y.shape[d]
    if not y.dtype.is_floating_point:
        y = y.to(_flow.get_default_dtype())
    pair_sum = y.narrow(d, 1, max(n - 1, 0)) + y.narrow(d, 0, max(n - 1, 0))
    if isinstance(x, _Tensor):
        xd = d if x.dim() == y.dim() else 0
        if x.dim() == 1:
            shape = [1] * y.dim()
            shape[d] = -1
            x = x.reshape(shape)
            xd = d
        widths = x.narrow(xd, 1, x.shape[xd] - 1) - x.narrow(xd, 0, x.shape[xd] - 1)
        return (pair_sum * widths / 2).cumsum(d)
    step = 1.0 if dx is None else dx
    return (pair_sum * (step / 2)).cumsum(d)


# ---- matrix functions ----------------------------------------------------------------------------


def matrix_exp(input):
    """The matrix exponential of each square matrix in ``input``: scaling and squaring with an
    18-term Taylor polynomial."""
    _check_tensor("matrix_exp", "input", input)
    if input.dim() < 2 or input.shape[-1] != input.shape[-2]:
        raise RuntimeError(
            f"linalg.matrix_exp: The input tensor A must have at least 2 dimensions and be a batch of square "
            f"matrices, got shape {list(input.shape)}"
        )
    with _flow.no_grad():
        norm = float(input.abs().sum(-2).amax()) if input.numel() else 0.0
    squarings = max(0, math.ceil(math.log2(norm))) + 1 if norm > 0.5 else 0
    a = input / (2.0**squarings)
    eye = _flow.eye(input.shape[-1], dtype=input.dtype, device=input.device).expand(input.shape)
    result = eye
    term = eye
    for k in range(1, 19):
        term = _flow.matmul(term, a) / k
        result = result + term
    for _ in range(squarings):
        result = _flow.matmul(result, result)
    return result


def pinverse(input, rcond: float = 1e-15):
    """The Moore-Penrose pseudo-inverse, from the SVD; singular values at or below
    ``rcond * max(S)`` are treated as zero."""
    _check_tensor("pinverse", "input", input)
    u, s, vh = _flow.linalg.svd(input, full_matrices=False)
    cutoff = rcond * s.amax(-1, keepdim=True)
    keep = s > cutoff
    s_inv = _flow.where(keep, 1 / _flow.where(keep, s, _flow.ones_like(s)), _flow.zeros_like(s))
    return _flow.matmul(vh.transpose(-2, -1) * s_inv.unsqueeze(-2), u.transpose(-2, -1))


def nuclear_norm(input, dim=None, keepdim=False):
    """The sum of the singular values of the matrices over ``dim`` (the last two by default)."""
    _check_tensor("nuclear_norm", "input", input)
    if isinstance(dim, bool):
        dim, keepdim = None, dim
    if dim is None:
        dim = (-2, -1)
    return _flow.linalg.matrix_norm(input, "nuc", dim=tuple(dim), keepdim=keepdim)


def frobenius_norm(input, dim=(-2, -1), keepdim=False):
    """``sqrt(sum(input ** 2))`` over ``dim``."""
    _check_tensor("frobenius_norm", "input", input)
    dims = [dim] if isinstance(dim, int) else list(dim)
    if len(dims) > 2:
        raise RuntimeError(f"Expected at most 2 dimensions, but got {len(dims)} dimensions instead.")
    return _flow.linalg.vector_norm(input, 2, dim=tuple(dims), keepdim=keepdim)


# ---- sampling --------------------------------------------------------------------------------------


def multinomial(input, num_samples: int, replacement: bool = False, *, generator=None):
    """``num_samples`` indices per row of ``input`` (1-D or 2-D non-negative weights), drawn with
    or without replacement in proportion to the weights."""
    _check_tensor("multinomial", "input", input)
    if input.dim() not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: {input.dtype}")
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    w = input.reshape(1, -1) if input.dim() == 1 else input
    with _flow.no_grad():
        w = w.to(_flow.float64)
        if not replacement and num_samples > w.shape[-1]:
            raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
        # PyTorch's two code paths word the same faults differently.
        if replacement and num_samples > 1:
            if not bool((w >= 0).all()):
                raise RuntimeError("invalid multinomial distribution (encountering probability entry < 0)")
            if not bool(_flow.isfinite(w).all()):
                raise RuntimeError(
                    "invalid multinomial distribution (encountering probability entry = infinity or NaN)"
                )
        elif not bool((w >= 0).all()) or not bool(_flow.isfinite(w).all()):
            raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
        if bool((w.sum(-1) <= 0).any()):
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
        if replacement:
            cdf = w.cumsum(-1)
            cdf = cdf / cdf[:, -1:]
            u = _flow.rand(w.shape[0], num_samples, dtype=_flow.float64, device=w.device, generator=generator)
            out = _flow.searchsorted(cdf.contiguous(), u.contiguous(), right=True).clamp(max=w.shape[-1] - 1)
        else:
            # Gumbel top-k: the k largest log(w) + Gumbel noise are a sample without replacement.
            u = _flow.rand(w.shape, dtype=_flow.float64, device=w.device, generator=generator)
            keys = _flow.log(w) - _flow.log(-_flow.log(u.clamp(min=1e-300)))
            out = keys.topk(num_samples, dim=-1)[1]
    out = out.to(_flow.int64)
    return out.reshape(-1) if input.dim() == 1 else out


def poisson(input, generator=None):
    """Samples of Poisson distributions with the rates ``input`` (same shape and dtype)."""
    _check_tensor("poisson", "input", input)
    with _flow.no_grad():
        lam = input.to(_flow.float64)
        if bool((lam < 0).any()):
            raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
        out = _flow.zeros_like(lam)
        small = lam < 10
        # Knuth: count uniforms until their product falls below exp(-lam).
        limit = _flow.exp(-_flow.where(small, lam, _flow.zeros_like(lam)))
        product = _flow.ones_like(lam)
        active = small & (lam > 0)
        count = _flow.zeros_like(lam)
        while bool(active.any()):
            product = product * _flow.rand(lam.shape, dtype=_flow.float64, device=lam.device, generator=generator)
            active = active & (product > limit)
            count = count + active.to(count.dtype)
        out = _flow.where(small, count, out)
        if bool((~small).any()):
            out = _flow.where(small, out, _ptrs(lam, ~small, generator))
    return out.to(input.dtype)


def _ptrs(lam, mask, generator):
    """Hormann's transformed rejection with squeeze (PTRS) for rates >= 10."""
    lam = _flow.where(mask, lam, _flow.full_like(lam, 10.0))
    slam = _flow.sqrt(lam)
    loglam = _flow.log(lam)
    b = 0.931 + 2.53 * slam
    a = -0.059 + 0.02483 * b
    invalpha = 1.1239 + 1.1328 / (b - 3.4)
    vr = 0.9277 - 3.6224 / (b - 2)
    result = _flow.zeros_like(lam)
    pending = mask.clone()
    while bool(pending.any()):
        u = _flow.rand(lam.shape, dtype=_flow.float64, device=lam.device, generator=generator) - 0.5
        v = _flow.rand(lam.shape, dtype=_flow.float64, device=lam.device, generator=generator)
        us = 0.5 - u.abs()
        k = _flow.floor((2 * a / us + b) * u + lam + 0.43)
        quick = (us >= 0.07) & (v <= vr)
        bad = (k < 0) | ((us < 0.013) & (v > us))
        kk = k.clamp(min=0)
        slow = (_flow.log(v) + _flow.log(invalpha) - _flow.log(a / (us * us) + b)) <= (
            -lam + kk * loglam - _flow.lgamma(kk + 1)
        )
        accept = pending & (quick | (~bad & slow))
        result = _flow.where(accept, k, result)
        pending = pending & ~accept
    return result


def binomial(count, prob, generator=None):
    """Samples of binomial distributions with ``count`` trials and success probabilities ``prob``."""
    _check_tensor("binomial", "count", count)
    _check_tensor("binomial", "prob", prob)
    with _flow.no_grad():
        n, p = _flow.broadcast_tensors(count.to(_flow.float64), prob.to(_flow.float64))
        top = int(n.max()) if n.numel() else 0
        total = _flow.zeros_like(n)
        chunk = 256
        for start in range(0, top, chunk):
            width = min(chunk, top - start)
            trial = _flow.arange(start, start + width, dtype=_flow.float64, device=n.device)
            u = _flow.rand(*n.shape, width, dtype=_flow.float64, device=n.device, generator=generator)
            hits = (u < p.unsqueeze(-1)) & (trial < n.unsqueeze(-1))
            total = total + hits.to(_flow.float64).sum(-1)
    return total.to(count.dtype if count.dtype.is_floating_point else prob.dtype)


# ---- installation --------------------------------------------------------------------------------

FUNCTIONS = (
    "repeat_interleave", "unsafe_split_with_sizes", "concatenate", "fill", "rsub", "scalar_tensor", "isin",
    "alpha_dropout", "alpha_dropout_", "feature_alpha_dropout", "feature_alpha_dropout_", "rrelu", "rrelu_",
    "celu_", "selu_", "threshold_", "dropout_", "feature_dropout_", "channel_shuffle", "pdist",
    "hinge_embedding_loss", "poisson_nll_loss", "i0", "igamma", "igammac", "mvlgamma", "polygamma", "gradient",
    "cumulative_trapezoid", "matrix_exp", "pinverse", "nuclear_norm", "frobenius_norm", "multinomial", "poisson",
    "binomial", "as_strided_scatter", "is_neg", "resolve_neg", "histogramdd", "embedding_bag",
)  # fmt: skip


def _inplace_method(name: str, fn):
    def method(self, *args, **kwargs):
        _check_tensor(f"{name}_", "input", self)
        base = self.clone() if self.requires_grad and _flow.is_grad_enabled() else self
        result = fn(base, *args, **kwargs)
        if result.dtype != self.dtype and not self.dtype.is_floating_point:
            raise RuntimeError(f"result type Float can't be cast to the desired output type {self.dtype}")
        return self.copy_(result)

    method.__name__ = method.__qualname__ = f"{name}_"
    method.__doc__ = f"In-place ``{name}``: the result is written into ``self``."
    return method


def install(namespace: dict) -> list:
    """Puts this module's and ``_torch_breadth_switches``' names into ``namespace`` (the ``oneflow``
    package's globals) where missing, adds the Tensor methods PyTorch has for them, and returns
    the names added."""
    from oneflow import _torch_breadth_switches as switches
    from oneflow.amp import GradScaler

    added = []

    def put(name, value):
        if name not in namespace:
            namespace[name] = value
            added.append(name)

    for name in TENSOR_METHOD_FUNCTIONS:
        if hasattr(_Tensor, name):
            put(name, _method_function(name))
    for name in FUNCTIONS:
        put(name, globals()[name])
    for name in switches.PUBLIC:
        put(name, getattr(switches, name))
    put("GradScaler", GradScaler)

    def polygamma_method(self, n):
        return polygamma(n, self)

    methods = {
        "i0": i0, "igamma": igamma, "igammac": igammac, "mvlgamma": mvlgamma, "polygamma": polygamma_method,
        "multinomial": multinomial, "pinverse": pinverse, "matrix_exp": matrix_exp,
        "unsafe_split_with_sizes": unsafe_split_with_sizes, "as_strided_scatter": as_strided_scatter,
    }  # fmt: skip
    for name, fn in methods.items():
        if not hasattr(_Tensor, name):
            setattr(_Tensor, name, fn)
    for name in ("i0", "igamma", "igammac", "mvlgamma", "polygamma"):
        if not hasattr(_Tensor, name + "_"):
            setattr(_Tensor, name + "_", _inplace_method(name, methods[name]))
    put("i0_", _Tensor.i0_)
    if not hasattr(_Tensor, "layout"):
        _Tensor.layout = property(lambda self: switches.strided, doc="The memory layout: ``oneflow.strided``.")
    return added
