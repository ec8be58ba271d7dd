#ifndef OPS_DEFS_REDUCE_H_
#define OPS_DEFS_REDUCE_H_

#include <vector>

#include "core/framework/dispatch.h"

namespace oneflow {
namespace defs {

// Which dims of an `ndim` tensor a reduction over `dims` covers: all when
// `dims` is None; when it is empty, all (sum, amax, std, ...) or none
// (all.dims/any.dims), as PyTorch does. Throws IndexError for out-of-range
// dims and RuntimeError for repeated ones, naming `op`.
std::vector<bool> ReducedDims(const Value& dims, int64_t ndim, const char* op,
                              bool empty_means_all = true);

// The one dim `dim` of an `ndim` tensor (wrapped; throws IndexError when out of
// range). A 0-dim tensor has no dims: it reduces to itself.
std::vector<bool> ReducedDim(int64_t dim, int64_t ndim);

// The output shape of a reduction.
DimVector ReducedShape(const DimVector& shape, const std::vector<bool>& reduced, bool keepdim);

// Expands a reduction's gradient (or result) back over the reduced dims.
TensorImplPtr ExpandReduced(const TensorImplPtr& g, const DimVector& input_shape,
                            const std::vector<bool>& reduced, bool keepdim);

// The order of a norm: `p`, or 2 when None.
double NormOrder(const Value& p);

// The accumulation dtype of sum/nansum/prod/cumsum/cumprod: `dtype`, else the
// input's floating dtype, else int64 (integers and bool).
DType SumDType(const TensorImplPtr& x, const Value& dtype);

// The correction of std/var: `correction`, or 1 (Bessel's) when None.
double VarCorrection(const Value& correction);

}  // namespace defs
}  // namespace oneflow

#endif  // OPS_DEFS_REDUCE_H_
