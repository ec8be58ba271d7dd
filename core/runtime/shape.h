#ifndef CORE_RUNTIME_SHAPE_H_
#define CORE_RUNTIME_SHAPE_H_

// Shape and stride arithmetic shared by every view and kernel. Strides are in
// elements, as in PyTorch.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace oneflow {

using DimVector = std::vector<int64_t>;

// Product of the sizes (1 for a scalar). Throws RuntimeError on a negative size
// or on overflow of int64.
int64_t Numel(const DimVector& shape);
// Row-major strides of a contiguous tensor of `shape`.
DimVector ContiguousStrides(const DimVector& shape);
// True when a tensor with this layout is row-major contiguous (size-1 dims may
// have any stride, as in PyTorch).
bool IsContiguous(const DimVector& shape, const DimVector& stride);
// True when the elements cover a dense block of memory with no overlap, in any
// dim order (e.g. a transposed contiguous tensor).
bool IsNonOverlappingAndDense(const DimVector& shape, const DimVector& stride);
// The dims ordered from outermost (largest stride) to innermost.
std::vector<int> StrideOrder(const DimVector& shape, const DimVector& stride);

// The strides of a new dense tensor laid out like (`shape`, `stride`), as
// PyTorch's preserve_format does: the same strides when those are already dense
// and non-overlapping; otherwise dense strides in the same dim order (dims with
// stride 0 keep their row-major place).
DimVector DenseStridesLike(const DimVector& shape, const DimVector& stride);

// Wraps a possibly negative `dim` into [0, ndim). A scalar accepts -1 and 0.
// Throws IndexError: "Dimension out of range (expected to be in range of [-2, 1], but got 2)".
int64_t WrapDim(int64_t dim, int64_t ndim);

// Resolves one -1 in `shape` given the element count, validating the result.
// Throws RuntimeError naming `op` ("shape '[2, -1]' is invalid for input of size 7").
DimVector InferSize(const DimVector& shape, int64_t numel, const char* op);

// The strides a view of (`old_shape`, `old_stride`) must have to present
// `new_shape` without copying, or nullopt when no such view exists.
std::optional<DimVector> ComputeViewStrides(const DimVector& old_shape, const DimVector& old_stride,
                                            const DimVector& new_shape);

// "[2, 3]" as PyTorch prints sizes in messages.
std::string ShapeToString(const DimVector& shape);

}  // namespace oneflow

#endif  // CORE_RUNTIME_SHAPE_H_
