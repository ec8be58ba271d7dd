#include "core/runtime/shape.h"

#include <algorithm>
#include <numeric>

#include "core/runtime/error.h"

namespace oneflow {

int64_t Numel(const DimVector& shape) {
  int64_t n = 1;
  for (int64_t s : shape) {
    OF_CHECK(s >= 0, RuntimeError, "Trying to create tensor with negative dimension ", s, ": ",
             ShapeToString(shape));
    OF_CHECK(!__builtin_mul_overflow(n, s, &n), RuntimeError, "numel of shape ",
             ShapeToString(shape), " overflows int64");
  }
  return n;
}

DimVector ContiguousStrides(const DimVector& shape) {
  DimVector stride(shape.size());
  int64_t acc = 1;
  for (int64_t i = static_cast<int64_t>(shape.size()) - 1; i >= 0; --i) {
    stride[i] = acc;
    acc *= std::max<int64_t>(shape[i], 1);
  }
  return stride;
}

bool IsContiguous(const DimVector& shape, const DimVector& stride) {
  for (int64_t s : shape) {
    if (s == 0) return true;
  }
  int64_t expected = 1;
  for (int64_t i = static_cast<int64_t>(shape.size()) - 1; i >= 0; --i) {
    if (shape[i] == 1) continue;
    if (stride[i] != expected) return false;
    expected *= shape[i];
  }
  return true;
}

std::vector<int> StrideOrder(const DimVector& shape, const DimVector& stride) {
  std::vector<int> order(shape.size());
  std::iota(order.begin(), order.end(), 0);
  // Stable: among equal strides the earlier dim stays outer, as in a contiguous tensor.
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return stride[a] > stride[b]; });
  return order;
}

bool IsNonOverlappingAndDense(const DimVector& shape, const DimVector& stride) {
  if (IsContiguous(shape, stride)) return true;
  std::vector<int> order = StrideOrder(shape, stride);
  int64_t expected = 1;
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    if (shape[*it] == 1) continue;
    if (stride[*it] != expected) return false;
    expected *= shape[*it];
  }
  return true;
}

DimVector DenseStridesLike(const DimVector& shape, const DimVector& stride) {
  if (IsNonOverlappingAndDense(shape, stride)) return stride;
  const int n = static_cast<int>(shape.size());
  // perm[0] is the innermost dim. Start from row-major order and insertion-sort by
  // stride; a stride of 0 says nothing about order, so it never causes a swap.
  std::vector<int> perm(n);
  for (int i = 0; i < n; ++i) perm[i] = n - 1 - i;
  auto should_swap = [&](int outer_candidate, int inner_candidate) {
    int64_t a = stride[outer_candidate], b = stride[inner_candidate];
    if (a == 0 || b == 0) return 0;
    if (a != b) return a < b ? 1 : -1;
    return shape[outer_candidate] < shape[inner_candidate] ? 1 : 0;
  };
  for (int i = 1; i < n; ++i) {
    for (int j = i; j > 0; --j) {
      int cmp = should_swap(perm[j], perm[j - 1]);
      if (cmp > 0) {
        std::swap(perm[j], perm[j - 1]);
      } else if (cmp < 0) {
        break;
      }
    }
  }
  DimVector out(n);
  int64_t acc = 1;
  for (int d : perm) {
    out[d] = acc;
    acc *= std::max<int64_t>(shape[d], 1);
  }
  return out;
}

int64_t WrapDim(int64_t dim, int64_t ndim) {
  int64_t n = std::max<int64_t>(ndim, 1);  // a scalar behaves as 1-d here
  OF_CHECK(dim >= -n && dim < n, IndexError, "Dimension out of range (expected to be in range of [",
           -n, ", ", n - 1, "], but got ", dim, ")");
  return dim < 0 ? dim + n : dim;
}

DimVector InferSize(const DimVector& shape, int64_t numel, const char* op) {
  DimVector out = shape;
  int64_t known = 1;
  int infer_at = -1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      OF_CHECK(infer_at < 0, RuntimeError, op, "(): only one dimension can be inferred, got shape ",
               ShapeToString(shape));
      infer_at = static_cast<int>(i);
    } else {
      OF_CHECK(shape[i] >= 0, RuntimeError, op, "(): invalid shape dimension ", shape[i], " in ",
               ShapeToString(shape));
      OF_CHECK(!__builtin_mul_overflow(known, shape[i], &known), RuntimeError, op, "(): shape ",
               ShapeToString(shape), " has more elements than int64 can count");
    }
  }
  if (infer_at >= 0) {
    OF_CHECK(known != 0 && numel % known == 0, RuntimeError, op, "(): shape '",
             ShapeToString(shape), "' is invalid for input of size ", numel);
    out[infer_at] = numel / known;
  } else {
    OF_CHECK(known == numel, RuntimeError, op, "(): shape '", ShapeToString(shape),
             "' is invalid for input of size ", numel);
  }
  return out;
}

std::optional<DimVector> ComputeViewStrides(const DimVector& old_shape, const DimVector& old_stride,
                                            const DimVector& new_shape) {
  const int64_t numel = Numel(old_shape);
  if (numel == 0) {
    if (old_shape == new_shape) return old_stride;
    return ContiguousStrides(new_shape);
  }
  if (old_shape.empty()) return DimVector(new_shape.size(), 1);

  // Walk the old dims in chunks that are contiguous among themselves; each chunk
  // can be re-split into any new dims whose product matches it.
  DimVector new_stride(new_shape.size());
  int64_t view_d = static_cast<int64_t>(new_shape.size()) - 1;
  int64_t chunk_base_stride = old_stride.back();
  int64_t tensor_numel = 1;
  int64_t view_numel = 1;
  for (int64_t d = static_cast<int64_t>(old_shape.size()) - 1; d >= 0; --d) {
    tensor_numel *= old_shape[d];
    bool chunk_ends =
        d == 0 || (old_shape[d - 1] != 1 && old_stride[d - 1] != tensor_numel * chunk_base_stride);
    if (!chunk_ends) continue;
    while (view_d >= 0 && (view_numel < tensor_numel || new_shape[view_d] == 1)) {
      new_stride[view_d] = view_numel * chunk_base_stride;
      view_numel *= new_shape[view_d];
      --view_d;
    }
    if (view_numel != tensor_numel) return std::nullopt;
    if (d > 0) {
      chunk_base_stride = old_stride[d - 1];
      tensor_numel = 1;
      view_numel = 1;
    }
  }
  if (view_d != -1) return std::nullopt;
  return new_stride;
}

std::string ShapeToString(const DimVector& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

}  // namespace oneflow
