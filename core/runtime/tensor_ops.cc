#include "core/runtime/tensor_ops.h"

#include <algorithm>
#include <cmath>

#include "core/runtime/device_kernels.h"
#include "core/runtime/error.h"

namespace oneflow {

TensorImplPtr Contiguous(const TensorImplPtr& t) {
  if (t->is_contiguous()) return t;
  auto out = TensorImpl::Empty(t->shape(), t->dtype(), t->device());
  GetDeviceKernels(t->device().type).copy(*t, *out);
  return out;
}

TensorImplPtr EmptyLike(const TensorImplPtr& t, DType dtype, Device device) {
  return TensorImpl::EmptyStrided(t->shape(), DenseStridesLike(t->shape(), t->stride()), dtype,
                                  device);
}

TensorImplPtr Clone(const TensorImplPtr& t) { return ToDType(t, t->dtype(), /*copy=*/true); }

TensorImplPtr ToDType(const TensorImplPtr& t, DType dtype, bool copy) {
  if (dtype == t->dtype() && !copy) return t;
  auto out = EmptyLike(t, dtype, t->device());
  GetDeviceKernels(t->device().type).copy(*t, *out);
  return out;
}

void CopyInto(const TensorImplPtr& src, const TensorImplPtr& dst) {
  OF_CHECK(src->shape() == dst->shape(), RuntimeError, "copy_(): shape of source ",
           ShapeToString(src->shape()), " does not match destination ",
           ShapeToString(dst->shape()));
  OF_CHECK(src->device() == dst->device(), RuntimeError, "copy_(): cross-device copy from ",
           src->device().ToString(), " to ", dst->device().ToString(), " is not supported yet");
  GetDeviceKernels(dst->device().type).copy(*src, *dst);
  dst->BumpVersion();
}

void Fill(const TensorImplPtr& dst, const Scalar& value) {
  GetDeviceKernels(dst->device().type).fill(*dst, value);
  dst->BumpVersion();
}

TensorImplPtr Full(const DimVector& shape, const Scalar& value, DType dtype, Device device) {
  auto out = TensorImpl::Empty(shape, dtype, device);
  GetDeviceKernels(device.type).fill(*out, value);
  return out;
}

TensorImplPtr Arange(const Scalar& start, const Scalar& end, const Scalar& step, DType dtype,
                     Device device) {
  bool all_int = start.kind != Scalar::Kind::kFloat && end.kind != Scalar::Kind::kFloat &&
                 step.kind != Scalar::Kind::kFloat;
  OF_CHECK(std::isfinite(start.d) && std::isfinite(end.d), RuntimeError,
           "arange(): unsupported range: ", start.d, " -> ", end.d);
  OF_CHECK(step.d != 0, RuntimeError, "arange(): step must be nonzero");
  OF_CHECK((step.d > 0 && end.d >= start.d) || (step.d < 0 && end.d <= start.d), RuntimeError,
           "arange(): upper bound and larger bound inconsistent with step sign (start=", start.d,
           ", end=", end.d, ", step=", step.d, ")");
  int64_t n;
  if (all_int) {
    int64_t span;
    OF_CHECK(!__builtin_sub_overflow(end.i, start.i, &span), RuntimeError, "arange(): the range ",
             start.i, " -> ", end.i, " overflows int64");
    n = span / step.i + (span % step.i != 0 ? 1 : 0);
  } else {
    double count = std::ceil((end.d - start.d) / step.d);
    OF_CHECK(count < 9.2e18, RuntimeError, "arange(): the range ", start.d, " -> ", end.d,
             " with step ", step.d, " has too many elements (", count, ")");
    n = static_cast<int64_t>(count);
  }
  auto out = TensorImpl::Empty({std::max<int64_t>(n, 0)}, dtype, device);
  GetDeviceKernels(device.type).arange(*out, start, step);
  return out;
}

TensorImplPtr Linspace(double start, double end, int64_t steps, DType dtype, Device device) {
  OF_CHECK(steps >= 0, RuntimeError, "linspace(): number of steps must be non-negative, got ",
           steps);
  auto out = TensorImpl::Empty({steps}, dtype, device);
  GetDeviceKernels(device.type).linspace(*out, start, end);
  return out;
}

TensorImplPtr Eye(int64_t n, std::optional<int64_t> m, DType dtype, Device device) {
  int64_t cols = m.value_or(n);
  OF_CHECK(n >= 0, RuntimeError, "eye(): n must be greater or equal to 0, got ", n);
  OF_CHECK(cols >= 0, RuntimeError, "eye(): m must be greater or equal to 0, got ", cols);
  auto out = Full({n, cols}, Scalar::Int(0), dtype, device);
  int64_t diag = std::min(n, cols);
  if (diag > 0) {
    auto d = out->AsStrided({diag}, {cols + 1}, 0);
    GetDeviceKernels(device.type).fill(*d, Scalar::Int(1));
  }
  return out;
}

}  // namespace oneflow
