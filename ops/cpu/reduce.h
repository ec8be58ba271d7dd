#ifndef OPS_CPU_REDUCE_H_
#define OPS_CPU_REDUCE_H_

// Reductions over a set of dims: the input is permuted so the reduced dims
// come last and made contiguous, so every output element reduces one
// contiguous row.

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

// `dims` are wrapped and unique (see ReduceDims in ops/defs/reduce.h).
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

}  // namespace cpu
}  // namespace oneflow

#endif  // OPS_CPU_REDUCE_H_
