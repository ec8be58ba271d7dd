"""``grouped_mm``: one matrix product per group, with jagged group sizes given by offsets (the
Mixture-of-Experts building block), composed from slices and ``matmul`` so that it runs on any
device and differentiates."""

from __future__ import annotations

import oneflow

__all__ = ["grouped_mm"]

_DTYPES = (oneflow.float32, oneflow.bfloat16, oneflow.float16)


def _check(mat_a, mat_b, offs, bias, out_dtype) -> None:
    for name, m in (("mat_a", mat_a), ("mat_b", mat_b)):
        if not isinstance(m, oneflow.Tensor):
            raise TypeError(f"grouped_mm(): argument '{name}' must be Tensor, not {type(m).__name__}")
        if m.dim() not in (2, 3):
            raise RuntimeError(f"grouped_mm(): {name} has to be 2 or 3d, got {m.dim()}d")
        if m.dtype not in _DTYPES:
            raise RuntimeError(
                f"grouped_mm(): Expected {name} to be Float32, BFloat16 or Float16 matrix, got {m.dtype}"
            )
    if mat_a.dtype != mat_b.dtype:
        raise RuntimeError(
            f"grouped_mm(): mat_a and mat_b must have the same dtype, got {mat_a.dtype} and {mat_b.dtype}"
        )
    if bias is not None:
        raise RuntimeError("grouped_mm(): Bias not supported yet")
    if (
        out_dtype is not None
        and out_dtype != mat_a.dtype
        and not (out_dtype == oneflow.float32 and mat_a.dtype == oneflow.bfloat16)
    ):
        raise RuntimeError(f"grouped_mm(): output dtype must match `mat_a` dtype, got {out_dtype} for {mat_a.dtype}")
    both_3d = mat_a.dim() == 3 and mat_b.dim() == 3
    if both_3d == (offs is not None):
        raise RuntimeError(
            "grouped_mm(): Have to provide offsets if there is a 2d matrix, or no offset if both matrices are 3d"
        )
    if offs is not None:
        if not isinstance(offs, oneflow.Tensor) or offs.dim() != 1:
            raise RuntimeError("grouped_mm(): offs has to be a 1D int32 tensor")
        if offs.dtype != oneflow.int32:
            raise RuntimeError(f"grouped_mm(): Offsets have to be int32, got {offs.dtype}")
    if mat_a.size(-1) != mat_b.size(-2):
        raise RuntimeError(
            f"grouped_mm(): contraction dimension of mat_a and mat_b must match, got {mat_a.size(-1)} and "
            f"{mat_b.size(-2)}"
        )


def grouped_mm(mat_a, mat_b, *, offs=None, bias=None, out_dtype=None):
    r"""Grouped matrix multiply: one product per group, the groups of a 2-D operand delimited by
    ``offs`` (``offs[i]`` is the end of group ``i``; group ``i`` starts at ``offs[i-1]``, or 0).

    - 2-D ``mat_a`` ``(M, K)``, 3-D ``mat_b`` ``(G, K, N)``: rows ``[offs[i-1], offs[i])`` of
      ``mat_a`` times ``mat_b[i]``; output ``(M, N)`` (rows past ``offs[-1]`` are zero).
    - 3-D ``mat_a`` ``(G, M, K)``, 2-D ``mat_b`` ``(K, N)``: ``mat_a[i]`` times columns
      ``[offs[i-1], offs[i])`` of ``mat_b``; output ``(M, N)``.
    - 2-D ``mat_a`` ``(M, K)``, 2-D ``mat_b`` ``(K, N)``: the shared ``K`` is split; output
      ``(G, M, N)`` with ``out[i] = mat_a[:, ks_i] @ mat_b[ks_i, :]``.
    - 3-D and 3-D: a batched product (``offs`` must be ``None``).

    Args:
        mat_a, mat_b: float32, bfloat16 or float16 operands.
        offs: 1-D int32 group ends, required when an operand is 2-D.
        bias: not supported (must be ``None``), as in PyTorch.
        out_dtype: the output dtype (``mat_a``'s, or float32 for bfloat16 input).

    Returns:
        the grouped products.
    """
    _check(mat_a, mat_b, offs, bias, out_dtype)
    if out_dtype is not None and out_dtype != mat_a.dtype:
        mat_a, mat_b = mat_a.to(out_dtype), mat_b.to(out_dtype)
    if offs is None:
        if mat_a.size(0) != mat_b.size(0):
            raise RuntimeError(
                f"grouped_mm(): matrix batch sizes have to match, got {mat_a.size(0)} and {mat_b.size(0)}"
            )
        return oneflow.matmul(mat_a, mat_b)
    ends = [int(e) for e in offs.tolist()]
    groups = len(ends)
    if mat_a.dim() == 3 or mat_b.dim() == 3:
        batched = mat_b if mat_b.dim() == 3 else mat_a
        if batched.size(0) != groups:
            raise RuntimeError(
                f"grouped_mm(): matrix batch sizes have to match, got {groups} offsets and {batched.size(0)} matrices"
            )
    jagged = mat_a.size(0) if mat_b.dim() == 3 else mat_b.size(-1) if mat_a.dim() == 3 else mat_a.size(1)
    starts = [0, *ends[:-1]]
    if any(e < s for s, e in zip(starts, ends)) or (ends and ends[-1] > jagged):
        raise RuntimeError(f"grouped_mm(): offs must be non-decreasing and at most {jagged}, got {ends}")
    if mat_a.dim() == 2 and mat_b.dim() == 3:
        parts = [mat_a[s:e] @ mat_b[i] for i, (s, e) in enumerate(zip(starts, ends))]
        rest = jagged - (ends[-1] if ends else 0)
        if rest:
            parts.append(oneflow.zeros(rest, mat_b.size(-1), dtype=mat_a.dtype, device=mat_a.device))
        return oneflow.cat(parts, dim=0)
    if mat_a.dim() == 3:
        parts = [mat_a[i] @ mat_b[:, s:e] for i, (s, e) in enumerate(zip(starts, ends))]
        rest = jagged - (ends[-1] if ends else 0)
        if rest:
            parts.append(oneflow.zeros(mat_a.size(1), rest, dtype=mat_a.dtype, device=mat_a.device))
        return oneflow.cat(parts, dim=1)
    return oneflow.stack([mat_a[:, s:e] @ mat_b[s:e] for s, e in zip(starts, ends)])
