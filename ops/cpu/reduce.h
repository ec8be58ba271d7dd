#ifndef OPS_CPU_REDUCE_H_
#define OPS_CPU_REDUCE_H_

// Reductions over a set of dims: the input is permuted so the reduced dims
// come last and made contiguous, so every output element reduces one
// contiguous row. Scans (cumsum, cumprod) work the same way along one dim.

#include <vector>

#include "core/framework/dispatch.h"
#include "core/runtime/tensor_ops.h"
#include "core/runtime/view_ops.h"

namespace oneflow {
namespace cpu {

struct ReducePlan {
  TensorImplPtr rows;  // contiguous, [outer, inner]
  int64_t outer = 1;
  int64_t inner = 1;
};

// `reduced` has one entry per dim of `x` (see ReducedDims in ops/defs/reduce.h).
inline ReducePlan PlanReduce(const TensorImplPtr& x, const std::vector<bool>& reduced) {
  DimVector perm;
  ReducePlan p;
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
