#include "core/runtime/tensor_ops.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/runtime/device_kernels.h"
#include "core/runtime/error.h"

namespace oneflow {

TensorImplPtr Contiguous(const TensorImplPtr& t) {
  if (t->is_contiguous()) return t;
  auto out = TensorImpl::Empty(t->shape(), t->dtype(), t->device());
  GetDeviceKernels(t->device().type).copy(*t, *out);
  return out;
}

MemoryFormat ToMemoryFormat(int64_t code, const char* op) {
  OF_CHECK(code >= 0 && code <= 3, RuntimeError, op, "(): unknown memory format (code ", code, ")");
  return static_cast<MemoryFormat>(code);
}

namespace {

// The dims from innermost to outermost of a channels_last[_3d] layout.
const std::vector<int>& ChannelsLastOrder(size_t ndim) {
  static const std::vector<int> k4 = {1, 3, 2, 0}, k5 = {1, 4, 3, 2, 0}, none;
  return ndim == 4 ? k4 : ndim == 5 ? k5 : none;
}

size_t FormatRank(MemoryFormat f) { return f == MemoryFormat::kChannelsLast ? 4 : 5; }

}  // namespace

DimVector MemoryFormatStrides(const DimVector& shape, MemoryFormat format) {
  if (format == MemoryFormat::kContiguous || format == MemoryFormat::kPreserve) {
    return ContiguousStrides(shape);
  }
  const size_t rank = FormatRank(format);
  OF_CHECK(shape.size() == rank, RuntimeError, "required rank ", rank, " tensor to use ",
           rank == 4 ? "channels_last" : "channels_last_3d", " format (got a tensor of size ",
           ShapeToString(shape), ")");
  DimVector stride(rank);
  int64_t acc = 1;
  for (int d : ChannelsLastOrder(rank)) {
    stride[d] = acc;
    acc *= shape[d];
  }
  return stride;
}

bool IsContiguousAs(const DimVector& shape, const DimVector& stride, MemoryFormat format) {
  if (format == MemoryFormat::kContiguous || format == MemoryFormat::kPreserve) {
    return IsContiguous(shape, stride);
  }
  if (shape.size() != FormatRank(format)) return false;
  int64_t expected = 1;
  for (int d : ChannelsLastOrder(shape.size())) {
    if (shape[d] == 1) continue;
    if (stride[d] != expected) return false;
    expected *= shape[d];
  }
  return true;
}

MemoryFormat SuggestMemoryFormat(const DimVector& shape, const DimVector& stride) {
  const size_t n = shape.size();
  if (n != 4 && n != 5) return MemoryFormat::kContiguous;
  // Walk the dims from channels outwards; each stride must be at least the extent of the
  // dims inside it. Ties that a contiguous tensor would produce as well (an (N, 1, 1, 1)
  // tensor, a sliced (N, 1, 1, W)) fall back to contiguous, as in PyTorch.
  if (stride[1] == 0) return MemoryFormat::kContiguous;
  int64_t min = 0;
  for (int d : ChannelsLastOrder(n)) {
    if (stride[d] == 0 || stride[d] < min) return MemoryFormat::kContiguous;
    if (d == 0 && min == stride[1]) return MemoryFormat::kContiguous;
    min = stride[d];
    if (shape[d] > 1) min *= shape[d];
  }
  return n == 4 ? MemoryFormat::kChannelsLast : MemoryFormat::kChannelsLast3d;
}

TensorImplPtr EmptyAs(const TensorImplPtr& like, MemoryFormat format, DType dtype, Device device) {
  if (format == MemoryFormat::kPreserve) return EmptyLike(like, dtype, device);
  return TensorImpl::EmptyStrided(like->shape(), MemoryFormatStrides(like->shape(), format), dtype,
                                  device);
}

TensorImplPtr ContiguousAs(const TensorImplPtr& t, MemoryFormat format) {
  if (IsContiguousAs(t->shape(), t->stride(), format)) return t;
  OF_CHECK(format != MemoryFormat::kPreserve, RuntimeError,
           "preserve memory format is unsupported by the contiguous operator");
  auto out = EmptyAs(t, format, t->dtype(), t->device());
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
  if (src->device() != dst->device()) {
    CopyAcrossDevices(src, dst);
  } else {
    GetDeviceKernels(dst->device().type).copy(*src, *dst);
  }
  dst->BumpVersion();
}

void CopyAcrossDevices(const TensorImplPtr& src, const TensorImplPtr& dst) {
  const DeviceType accel =
      src->device().type != DeviceType::kCPU ? src->device().type : dst->device().type;
  const DeviceRuntime* runtime = GetDeviceRuntime(accel);
  OF_CHECK(runtime != nullptr, RuntimeError, "copy from ", src->device().ToString(), " to ",
           dst->device().ToString(),
           ": this build of oneflow has no CUDA runtime (build with --config=cuda)");
  OF_CHECK(src->shape() == dst->shape(), RuntimeError, "copy from ", src->device().ToString(),
           " to ", dst->device().ToString(), ": shapes ", ShapeToString(src->shape()), " and ",
           ShapeToString(dst->shape()), " differ");
  if (dst->numel() == 0) return;
  // A dense source in dst's dtype, cast on the source's side.
  TensorImplPtr s = src;
  if (!s->is_contiguous() || s->dtype() != dst->dtype()) {
    s = TensorImpl::Empty(src->shape(), dst->dtype(), src->device());
    GetDeviceKernels(src->device().type).copy(*src, *s);
  }
  TensorImplPtr d =
      dst->is_contiguous() ? dst : TensorImpl::Empty(dst->shape(), dst->dtype(), dst->device());
  runtime->memcpy(d->data(), d->device(), s->data(), s->device(),
                  static_cast<size_t>(d->numel() * d->itemsize()));
  if (d != dst) GetDeviceKernels(dst->device().type).copy(*d, *dst);
}

TensorImplPtr ToDevice(const TensorImplPtr& t, Device device) {
  if (t->device() == device) return t;
  auto out = TensorImpl::Empty(t->shape(), t->dtype(), device);
  if (out->device() == t->device()) return t;  // "cuda" names cuda:0
  CopyAcrossDevices(t, out);
  return out;
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
