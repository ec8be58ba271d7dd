#ifndef OPS_DEFS_REDUCE_H_
#define OPS_DEFS_REDUCE_H_

#include <vector>

#include "core/framework/dispatch.h"

namespace oneflow {
namespace defs {

// Which dims of an `ndim` tensor a reduction over `dims` covers (all when
// `dims` is None or empty). Throws IndexError for out-of-range dims and
// RuntimeError for repeated ones, naming `op`.
std::vector<bool> ReducedDims(const Value& dims, int64_t ndim, const char* op);

// The output shape of a reduction.
DimVector ReducedShape(const DimVector& shape, const std::vector<bool>& reduced, bool keepdim);

// Expands a reduction's gradient (or result) back over the reduced dims.
TensorImplPtr ExpandReduced(const TensorImplPtr& g, const DimVector& input_shape,
                            const std::vector<bool>& reduced, bool keepdim);

}  // namespace defs
}  // namespace oneflow

#endif  // OPS_DEFS_REDUCE_H_
