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

// PyTorch's memory formats (the codes are torch's enum values; the Python
// objects oneflow.contiguous_format etc. pass them to ops as ints). A
// channels_last tensor keeps its logical (N, C, H, W) shape with strides that
// put C innermost: (H*W*C, 1, W*C, C).
enum class MemoryFormat : int64_t {
  kContiguous = 0,
  kPreserve = 1,
  kChannelsLast = 2,
  kChannelsLast3d = 3,
};
// The format with this code; throws RuntimeError for an unknown one.
MemoryFormat ToMemoryFormat(int64_t code, const char* op);
// Dense strides of `shape` in `format` (contiguous or channels_last[_3d], which
// need rank 4 / 5: RuntimeError "required rank 4 tensor to use channels_last
// format" otherwise). Sizes multiply as given, as in PyTorch (a size-0 dim
// makes the strides outside it 0).
DimVector MemoryFormatStrides(const DimVector& shape, MemoryFormat format);
// Tensor.is_contiguous(memory_format): the layout is exactly `format`'s,
// ignoring the strides of size-1 dims (false for a rank the format does not
// apply to; preserve asks for contiguous, as in PyTorch).
bool IsContiguousAs(const DimVector& shape, const DimVector& stride, MemoryFormat format);
// PyTorch's suggest_memory_format(): channels_last[_3d] when the strides order
// the dims like it (ambiguous layouts, e.g. an (N, 1, 1, 1) tensor, count as
// contiguous), else contiguous.
MemoryFormat SuggestMemoryFormat(const DimVector& shape, const DimVector& stride);
// Uninitialized memory laid out in `format` (preserve: like `like`, see EmptyLike).
TensorImplPtr EmptyAs(const TensorImplPtr& like, MemoryFormat format, DType dtype, Device device);
// `t` when already laid out in `format`, else a copy that is (Tensor.contiguous(memory_format)).
TensorImplPtr ContiguousAs(const TensorImplPtr& t, MemoryFormat format);
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

// dst = src (equal shapes, any dtypes and strides) where the two live on
// different devices (host and accelerator, or two accelerators): the bytes
// cross densely in dst's dtype, casts and strides are handled on each side.
void CopyAcrossDevices(const TensorImplPtr& src, const TensorImplPtr& dst);

// t on `device`: t itself when it is there already, else a copy.
TensorImplPtr ToDevice(const TensorImplPtr& t, Device device);
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
