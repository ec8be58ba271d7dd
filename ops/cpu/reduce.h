#ifndef OPS_CPU_REDUCE_H_
#define OPS_CPU_REDUCE_H_

// Reductions over a set of dims, seen as [lead, outer, inner, cols] in
// memory: each output element (o, c) reduces the lead * inner elements
// (l, o, i, c). When x's own layout allows it (a dense layout in which, in
// memory order, the dims form runs reduced-kept-reduced-kept, some runs
// absent, and the kept dims keep their logical order) the kernel reads x in
// place: cols > 1 is a column reduction (sum(0) of a [rows, n] tensor),
// which kernels run as vector adds of whole rows, and lead > 1 a reduction
// over dims on both sides of the kept ones (sum over (0, 2, 3) of NCHW).
// Otherwise the input is permuted so the reduced dims come last and made
// contiguous (lead = cols = 1). Scans (cumsum, cumprod) permute the same way
// along one dim.

#include <algorithm>
#include <vector>

#include "core/framework/dispatch.h"
#include "core/runtime/tensor_ops.h"
#include "core/runtime/view_ops.h"

namespace oneflow {
namespace cpu {

struct ReducePlan {
  TensorImplPtr rows;  // holds the data: x itself or a permuted copy
  const char* data =
      nullptr;  // element (l, o, i, c) is at ((l * outer + o) * inner + i) * cols + c
  int64_t lead = 1;
  int64_t outer = 1;
  int64_t inner = 1;
  int64_t cols = 1;
};

// What a kernel accepts of an in-place plan: columns (cols > 1), a lead
// (lead > 1), and reduced elements in any order (kernels that return the
// position of an element need the logical order).
enum ReduceFlags { kRowsInOrder = 0, kAllowCols = 1, kAnyOrder = 2, kAllowLead = 4 };

// Fills `p` from x's own memory layout, if it has the form described above.
inline bool PlanInPlace(const TensorImplPtr& x, const std::vector<bool>& reduced, int flags,
                        ReducePlan* p) {
  struct Dim {
    int64_t stride, size, index;
    bool reduced;
  };
  std::vector<Dim> dims;
  for (int64_t d = 0; d < x->ndim(); ++d) {
    if (x->shape()[d] == 0) return false;
    if (x->shape()[d] != 1) dims.push_back({x->stride()[d], x->shape()[d], d, reduced[d]});
  }
  std::stable_sort(dims.begin(), dims.end(),
                   [](const Dim& a, const Dim& b) { return a.stride > b.stride; });
  // Dense: the smallest stride is 1 and each stride spans the dims after it.
  int64_t span = 1;
  for (auto it = dims.rbegin(); it != dims.rend(); ++it) {
    if (it->stride != span) return false;
    span *= it->size;
  }
  // Runs of reduced or kept dims in memory order, with the order checks.
  struct Run {
    bool reduced;
    int64_t size;
  };
  std::vector<Run> runs;
  int64_t last_kept = -1, last_reduced = -1;
  for (const Dim& d : dims) {
    if (d.reduced) {
      if (d.index < last_reduced && !(flags & kAnyOrder)) return false;
      last_reduced = d.index;
    } else {
      if (d.index < last_kept) return false;  // the output is in logical order
      last_kept = d.index;
    }
    if (runs.empty() || runs.back().reduced != d.reduced) runs.push_back({d.reduced, 1});
    runs.back().size *= d.size;
  }
  // Leading reduced dims followed by kept and reduced ones are the lead; the
  // rest must be [kept] [reduced] [kept].
  size_t k = 0;
  int64_t lead = 1;
  if (runs.size() >= 3 && runs[0].reduced) {
    if (!(flags & kAllowLead)) return false;
    lead = runs[k++].size;
  }
  int64_t sizes[3] = {1, 1, 1};  // outer, inner, cols
  for (int part = 0; part < 3 && k < runs.size(); ++part) {
    if (runs[k].reduced == (part == 1)) sizes[part] = runs[k++].size;
  }
  if (k < runs.size()) return false;
  if (sizes[2] > 1 && !(flags & kAllowCols)) return false;
  p->rows = x;
  p->data = x->data();
  p->lead = lead;
  p->outer = sizes[0];
  p->inner = sizes[1];
  p->cols = sizes[2];
  return true;
}

// `reduced` has one entry per dim of `x` (see ReducedDims in ops/defs/reduce.h);
// `flags` are ReduceFlags.
inline ReducePlan PlanReduce(const TensorImplPtr& x, const std::vector<bool>& reduced,
                             int flags = kAnyOrder) {
  ReducePlan p;
  if (PlanInPlace(x, reduced, flags, &p)) return p;
  DimVector perm;
  for (int64_t d = 0; d < x->ndim(); ++d) {
    if (!reduced[d]) {
      perm.push_back(d);
      p.outer *= x->shape()[d];
    }
  }
  for (int64_t d = 0; d < x->ndim(); ++d) {
    if (reduced[d]) {
      perm.push_back(d);
      p.inner *= x->shape()[d];
    }
  }
  p.rows = Contiguous(Permute(x, perm));
  p.data = p.rows->data();
  return p;
}

// A scan along one dim: `rows` holds the input with that dim last, and the
// kernel writes each row's results to the same place in `result`, which
// FinishScan moves into the output.
struct ScanPlan {
  TensorImplPtr rows;    // contiguous, [outer, inner]
  TensorImplPtr result;  // contiguous, [outer, inner]: the output itself when no move is needed
  DimVector perm;
  int64_t outer = 1;
  int64_t inner = 1;
};

// `dim` is wrapped; `out` is the op's (contiguous) output of x's shape.
inline ScanPlan PlanScan(const TensorImplPtr& x, int64_t dim, const TensorImplPtr& out) {
  ScanPlan p;
  const int64_t ndim = x->ndim();
  if (ndim == 0) {
    p.rows = Contiguous(x);
    p.result = out;
    return p;
  }
  for (int64_t d = 0; d < ndim; ++d) {
    if (d != dim) {
      p.perm.push_back(d);
      p.outer *= x->shape()[d];
    }
  }
  p.perm.push_back(dim);
  p.inner = x->shape()[dim];
  p.rows = Contiguous(Permute(x, p.perm));
  // With the scanned dim already last, rows and the output share a layout.
  p.result =
      dim == ndim - 1 ? out : TensorImpl::Empty(p.rows->shape(), out->dtype(), out->device());
  return p;
}

inline void FinishScan(const ScanPlan& p, const TensorImplPtr& out) {
  if (p.result != out) CopyInto(p.result, Permute(out, p.perm));
}

}  // namespace cpu
}  // namespace oneflow

#endif  // OPS_CPU_REDUCE_H_
