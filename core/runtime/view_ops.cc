#include "core/runtime/view_ops.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <string>

#include "core/runtime/error.h"
#include "core/runtime/tensor_ops.h"

namespace oneflow {

TensorImplPtr View(const TensorImplPtr& t, const DimVector& shape) {
  DimVector new_shape = InferSize(shape, t->numel(), "view");
  auto stride = ComputeViewStrides(t->shape(), t->stride(), new_shape);
  OF_CHECK(stride.has_value(), RuntimeError, "view(): size ", ShapeToString(new_shape),
           " is not compatible with input tensor's size ", ShapeToString(t->shape()),
           " and stride ", ShapeToString(t->stride()),
           " without a copy (a dim would have to span two separately strided blocks); use "
           ".reshape(...), which copies when it must");
  return t->AsStrided(new_shape, *stride, t->storage_offset());
}

TensorImplPtr Reshape(const TensorImplPtr& t, const DimVector& shape) {
  DimVector new_shape = InferSize(shape, t->numel(), "reshape");
  if (auto stride = ComputeViewStrides(t->shape(), t->stride(), new_shape)) {
    return t->AsStrided(new_shape, *stride, t->storage_offset());
  }
  TensorImplPtr c = Contiguous(t);
  return c->AsStrided(new_shape, ContiguousStrides(new_shape), c->storage_offset());
}

TensorImplPtr Transpose(const TensorImplPtr& t, int64_t dim0, int64_t dim1) {
  int64_t n = t->ndim();
  dim0 = WrapDim(dim0, n);
  dim1 = WrapDim(dim1, n);
  if (n == 0) return t->AsStrided(t->shape(), t->stride(), t->storage_offset());
  DimVector shape = t->shape(), stride = t->stride();
  std::swap(shape[dim0], shape[dim1]);
  std::swap(stride[dim0], stride[dim1]);
  return t->AsStrided(shape, stride, t->storage_offset());
}

TensorImplPtr Permute(const TensorImplPtr& t, const DimVector& dims) {
  int64_t n = t->ndim();
  OF_CHECK(static_cast<int64_t>(dims.size()) == n, RuntimeError,
           "permute(): the number of dims does not match: input.dim() = ", n,
           " is not equal to len(dims) = ", dims.size());
  DimVector shape(n), stride(n);
  std::vector<bool> seen(n, false);
  for (int64_t i = 0; i < n; ++i) {
    int64_t d = WrapDim(dims[i], n);
    OF_CHECK(!seen[d], RuntimeError, "permute(): duplicate dims are not allowed, got dims ",
             ShapeToString(dims));
    seen[d] = true;
    shape[i] = t->shape()[d];
    stride[i] = t->stride()[d];
  }
  return t->AsStrided(shape, stride, t->storage_offset());
}

TensorImplPtr Narrow(const TensorImplPtr& t, int64_t dim, int64_t start, int64_t length) {
  OF_CHECK(t->ndim() > 0, RuntimeError, "narrow() cannot be applied to a 0-dim tensor.");
  dim = WrapDim(dim, t->ndim());
  int64_t size = t->shape()[dim];
  OF_CHECK(start >= -size && start <= size, IndexError, "narrow(): start (", start,
           ") out of range for dimension ", dim, " of size ", size,
           " (expected to be in range of [", -size, ", ", size, "])");
  if (start < 0) start += size;
  OF_CHECK(length >= 0 && length <= size - start, RuntimeError, "narrow(): start (", start,
           ") + length (", length, ") exceeds dimension size (", size, ").");
  DimVector shape = t->shape();
  shape[dim] = length;
  return t->AsStrided(shape, t->stride(), t->storage_offset() + start * t->stride()[dim]);
}

TensorImplPtr Expand(const TensorImplPtr& t, const DimVector& sizes) {
  int64_t n = static_cast<int64_t>(sizes.size());
  OF_CHECK(n >= t->ndim(), RuntimeError, "expand(oneflow.", DTypeName(t->dtype()), "{",
           ShapeToString(t->shape()), "}, size=", ShapeToString(sizes),
           "): the number of sizes provided (", n,
           ") must be greater or equal to the number of dimensions in the tensor (", t->ndim(),
           ")");
  DimVector shape(n), stride(n);
  for (int64_t i = n - 1; i >= 0; --i) {
    int64_t src = i - (n - t->ndim());
    int64_t want = sizes[i];
    if (src < 0) {
      OF_CHECK(want >= 0, RuntimeError, "expand(): the expanded size ", want,
               " is not allowed in a leading, non-existing dimension ", i);
      shape[i] = want;
      stride[i] = 0;
      continue;
    }
    int64_t have = t->shape()[src];
    if (want == -1) want = have;
    OF_CHECK(have == want || have == 1, RuntimeError, "The expanded size of the tensor (", want,
             ") must match the existing size (", have, ") at non-singleton dimension ", i,
             ".  Target sizes: ", ShapeToString(sizes),
             ".  Tensor sizes: ", ShapeToString(t->shape()));
    OF_CHECK(want >= 0, RuntimeError, "expand(): invalid size ", want, " at dimension ", i);
    shape[i] = want;
    stride[i] = have == want ? t->stride()[src] : 0;
  }
  return t->AsStrided(shape, stride, t->storage_offset());
}

TensorImplPtr Squeeze(const TensorImplPtr& t, const std::optional<DimVector>& dims) {
  int64_t n = t->ndim();
  std::vector<bool> drop(n, false);
  if (!dims) {
    for (int64_t i = 0; i < n; ++i) drop[i] = t->shape()[i] == 1;
  } else {
    for (int64_t d : *dims) {
      int64_t w = WrapDim(d, n);
      if (n > 0) drop[w] = t->shape()[w] == 1;
    }
  }
  DimVector shape, stride;
  for (int64_t i = 0; i < n; ++i) {
    if (drop[i]) continue;
    shape.push_back(t->shape()[i]);
    stride.push_back(t->stride()[i]);
  }
  return t->AsStrided(shape, stride, t->storage_offset());
}

TensorImplPtr Unsqueeze(const TensorImplPtr& t, int64_t dim) {
  dim = WrapDim(dim, t->ndim() + 1);
  DimVector shape = t->shape(), stride = t->stride();
  int64_t s = dim < t->ndim() ? t->shape()[dim] * t->stride()[dim] : 1;
  shape.insert(shape.begin() + dim, 1);
  stride.insert(stride.begin() + dim, s);
  return t->AsStrided(shape, stride, t->storage_offset());
}

TensorImplPtr Flatten(const TensorImplPtr& t, int64_t start_dim, int64_t end_dim) {
  int64_t n = t->ndim();
  start_dim = WrapDim(start_dim, n);
  end_dim = WrapDim(end_dim, n);
  OF_CHECK(start_dim <= end_dim, RuntimeError,
           "flatten() has invalid args: start_dim cannot come after end_dim");
  if (n == 0) return Reshape(t, {1});
  if (start_dim == end_dim) return t->AsStrided(t->shape(), t->stride(), t->storage_offset());
  DimVector shape(t->shape().begin(), t->shape().begin() + start_dim);
  int64_t merged = 1;
  for (int64_t i = start_dim; i <= end_dim; ++i) merged *= t->shape()[i];
  shape.push_back(merged);
  shape.insert(shape.end(), t->shape().begin() + end_dim + 1, t->shape().end());
  return Reshape(t, shape);
}

TensorImplPtr Slice(const TensorImplPtr& t, int64_t dim, std::optional<int64_t> start,
                    std::optional<int64_t> end, int64_t step) {
  OF_CHECK(t->ndim() > 0, IndexError, "slice() cannot be applied to a 0-dim tensor.");
  OF_CHECK(step > 0, ValueError, "step must be greater than zero");
  dim = WrapDim(dim, t->ndim());
  int64_t size = t->shape()[dim];
  auto clamp = [size](std::optional<int64_t> v, int64_t dflt) {
    if (!v) return dflt;
    int64_t x = *v < 0 ? *v + size : *v;
    return std::clamp<int64_t>(x, 0, size);
  };
  int64_t b = clamp(start, 0);
  int64_t e = std::max(clamp(end, size), b);
  DimVector shape = t->shape(), stride = t->stride();
  shape[dim] = e == b ? 0 : 1 + (e - b - 1) / step;
  // A huge step only matters when it reaches a second element, which it cannot
  // when the result has at most one; then the stride just has to fit.
  if (__builtin_mul_overflow(stride[dim], step, &stride[dim])) {
    OF_CHECK(shape[dim] <= 1, RuntimeError, "slice(): step ", step, " overflows the stride");
    stride[dim] = t->stride()[dim];
  }
  return t->AsStrided(shape, stride, t->storage_offset() + b * t->stride()[dim]);
}

TensorImplPtr Select(const TensorImplPtr& t, int64_t dim, int64_t index) {
  OF_CHECK(t->ndim() > 0, IndexError, "select() cannot be applied to a 0-dim tensor.");
  dim = WrapDim(dim, t->ndim());
  int64_t size = t->shape()[dim];
  OF_CHECK(index >= -size && index < size, IndexError, "index ", index,
           " is out of bounds for dimension ", dim, " with size ", size);
  if (index < 0) index += size;
  DimVector shape = t->shape(), stride = t->stride();
  shape.erase(shape.begin() + dim);
  stride.erase(stride.begin() + dim);
  return t->AsStrided(shape, stride, t->storage_offset() + index * t->stride()[dim]);
}

namespace {

bool ViewsEnabledByEnvironment() {
  const char* env = std::getenv("ONEFLOW_DISABLE_VIEW");
  if (env == nullptr) return true;
  std::string v(env);
  for (char& ch : v) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return !(v == "1" || v == "true" || v == "yes" || v == "on");
}

// -1: follow the environment; 0/1: this thread's override.
thread_local int views_override = -1;

}  // namespace

bool ViewsEnabled() {
  static const bool by_environment = ViewsEnabledByEnvironment();
  return views_override < 0 ? by_environment : views_override == 1;
}

void SetViewsEnabled(bool enabled) { views_override = enabled ? 1 : 0; }

}  // namespace oneflow
