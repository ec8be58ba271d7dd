#ifndef CORE_RUNTIME_TENSOR_OPS_H_
#define CORE_RUNTIME_TENSOR_OPS_H_

// Tensor-level operations the core needs before any op library exists:
// copies, casts and the creation ramps. They run the device's DeviceKernels.

#include <optional>

#include "core/runtime/scalar.h"
#include "core/runtime/tensor_impl.h"

namespace oneflow {

// `t` itself when contiguous, else a contiguous copy.
TensorImplPtr Contiguous(const TensorImplPtr& t);
// Uninitialized memory of t's shape laid out like t (PyTorch's preserve_format:
// see DenseStridesLike).
TensorImplPtr EmptyLike(const TensorImplPtr& t, DType dtype, Device device);
// A copy with new memory, laid out like `t` (see EmptyLike).
TensorImplPtr Clone(const TensorImplPtr& t);
// `t` when it already has this dtype and `copy` is false, else a converted copy
// laid out like `t`.
TensorImplPtr ToDType(const TensorImplPtr& t, DType dtype, bool copy);
// Copies `src` into `dst` (same shape), converting dtype; bumps dst's version.
void CopyInto(const TensorImplPtr& src, const TensorImplPtr& dst);
// Fills `dst` in place; bumps its version.
void Fill(const TensorImplPtr& dst, const Scalar& value);

TensorImplPtr Full(const DimVector& shape, const Scalar& value, DType dtype, Device device);
// PyTorch's arange: ceil((end - start) / step) elements. Throws RuntimeError for
// step == 0, a step of the wrong sign, or non-finite bounds.
TensorImplPtr Arange(const Scalar& start, const Scalar& end, const Scalar& step, DType dtype,
                     Device device);
TensorImplPtr Linspace(double start, double end, int64_t steps, DType dtype, Device device);
// n x m (m defaults to n) with ones on the diagonal.
TensorImplPtr Eye(int64_t n, std::optional<int64_t> m, DType dtype, Device device);

}  // namespace oneflow

#endif  // CORE_RUNTIME_TENSOR_OPS_H_
