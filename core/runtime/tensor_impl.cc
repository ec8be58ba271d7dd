#include "core/runtime/tensor_impl.h"

#include "core/runtime/error.h"

namespace oneflow {
namespace {

// The [lowest, highest] element offsets a view touches, relative to its base.
void CheckInBounds(const Storage& storage, int64_t offset, const DimVector& shape,
                   const DimVector& stride, DType dtype) {
  OF_CHECK(shape.size() == stride.size(), RuntimeError, "mismatch in length of strides (",
           stride.size(), ") and shape (", shape.size(), ")");
  OF_CHECK(offset >= 0, RuntimeError, "Tensor: negative storage offset ", offset);
  int64_t lo = offset;
  int64_t hi = offset;
  for (size_t i = 0; i < shape.size(); ++i) {
    OF_CHECK(shape[i] >= 0, RuntimeError, "Trying to create tensor with negative dimension ",
             shape[i], ": ", ShapeToString(shape));
    if (shape[i] == 0) return;  // no element is touched
    int64_t span;
    bool overflow = __builtin_mul_overflow(stride[i], shape[i] - 1, &span);
    overflow = overflow ||
               __builtin_add_overflow(stride[i] >= 0 ? hi : lo, span, stride[i] >= 0 ? &hi : &lo);
    OF_CHECK(!overflow, RuntimeError, "view with sizes ", ShapeToString(shape), " and strides ",
             ShapeToString(stride), " reaches beyond any storage (int64 overflow)");
  }
  int64_t capacity = static_cast<int64_t>(storage.nbytes()) / ItemSize(dtype);
  OF_CHECK(lo >= 0 && hi < capacity, RuntimeError, "setStorage: sizes ", ShapeToString(shape),
           ", strides ", ShapeToString(stride), " and storage offset ", offset,
           " require elements up to ", hi, " but the storage holds only ", capacity);
}

}  // namespace

TensorImpl::TensorImpl(std::shared_ptr<Storage> storage, int64_t offset, DimVector shape,
                       DimVector stride, DType dtype, std::shared_ptr<VersionCounter> version)
    : storage_(std::move(storage)),
      offset_(offset),
      shape_(std::move(shape)),
      stride_(std::move(stride)),
      numel_(Numel(shape_)),
      dtype_(dtype),
      version_(std::move(version)) {}

std::shared_ptr<TensorImpl> TensorImpl::Empty(const DimVector& shape, DType dtype, Device device) {
  return EmptyStrided(shape, ContiguousStrides(shape), dtype, device);
}

std::shared_ptr<TensorImpl> TensorImpl::EmptyStrided(const DimVector& shape,
                                                     const DimVector& stride, DType dtype,
                                                     Device device) {
  int64_t numel = Numel(shape);
  OF_CHECK(shape.size() == stride.size() && IsNonOverlappingAndDense(shape, stride), RuntimeError,
           "empty_strided: strides ", ShapeToString(stride), " are not dense for shape ",
           ShapeToString(shape));
  if (device.type == DeviceType::kCUDA && device.index < 0) device.index = 0;
  int64_t nbytes;
  OF_CHECK(!__builtin_mul_overflow(numel, ItemSize(dtype), &nbytes), RuntimeError,
           "Storage size calculation overflowed with sizes=", ShapeToString(shape), " of dtype ",
           DTypeName(dtype));
  auto storage = Storage::Allocate(static_cast<size_t>(nbytes), device);
  return std::shared_ptr<TensorImpl>(new TensorImpl(std::move(storage), 0, shape, stride, dtype,
                                                    std::make_shared<VersionCounter>()));
}

std::shared_ptr<TensorImpl> TensorImpl::FromStorage(std::shared_ptr<Storage> storage,
                                                    int64_t offset, DimVector shape,
                                                    DimVector stride, DType dtype) {
  CheckInBounds(*storage, offset, shape, stride, dtype);
  return std::shared_ptr<TensorImpl>(new TensorImpl(std::move(storage), offset, std::move(shape),
                                                    std::move(stride), dtype,
                                                    std::make_shared<VersionCounter>()));
}

std::shared_ptr<TensorImpl> TensorImpl::AsStrided(DimVector shape, DimVector stride,
                                                  int64_t offset) const {
  CheckInBounds(*storage_, offset, shape, stride, dtype_);
  return std::shared_ptr<TensorImpl>(
      new TensorImpl(storage_, offset, std::move(shape), std::move(stride), dtype_, version_));
}

void TensorImpl::set_requires_grad(bool requires_grad) {
  OF_CHECK(!requires_grad || IsFloatingPoint(dtype_), RuntimeError,
           "only Tensors of floating point dtype can require gradients, got dtype oneflow.",
           DTypeName(dtype_));
  OF_CHECK(is_leaf() || requires_grad, RuntimeError,
           "requires_grad can only be changed on leaf tensors; a computed tensor requires grad "
           "because its inputs do (use tensor.detach() for a copy without history)");
  if (!requires_grad && !autograd_) return;
  autograd().requires_grad = requires_grad;
}

const std::shared_ptr<Node>& TensorImpl::grad_fn() const {
  static const std::shared_ptr<Node> kNone;
  return autograd_ ? autograd_->grad_fn : kNone;
}

AutogradMeta& TensorImpl::autograd() {
  if (!autograd_) autograd_ = std::make_unique<AutogradMeta>();
  return *autograd_;
}

std::shared_ptr<TensorImpl> TensorImpl::Detach() const {
  return std::shared_ptr<TensorImpl>(
      new TensorImpl(storage_, offset_, shape_, stride_, dtype_, version_));
}

std::shared_ptr<TensorImpl> TensorImpl::DetachUntracked() const {
  return std::shared_ptr<TensorImpl>(new TensorImpl(storage_, offset_, shape_, stride_, dtype_,
                                                    std::make_shared<VersionCounter>()));
}

void TensorImpl::SetData(const TensorImpl& other) {
  if (&other == this) return;
  storage_ = other.storage_;
  offset_ = other.offset_;
  shape_ = other.shape_;
  stride_ = other.stride_;
  numel_ = other.numel_;
  dtype_ = other.dtype_;
  // The memory is no longer a view of the old base.
  view_base_.reset();
}

}  // namespace oneflow
