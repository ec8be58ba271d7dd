#ifndef CORE_RUNTIME_TENSOR_IMPL_H_
#define CORE_RUNTIME_TENSOR_IMPL_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "core/runtime/device.h"
#include "core/runtime/dtype.h"
#include "core/runtime/shape.h"
#include "core/runtime/storage.h"

namespace oneflow {

// Counts in-place modifications of a storage region. Shared by a tensor and
// all its views, so autograd can tell when a saved tensor was changed.
struct VersionCounter {
  std::atomic<int64_t> version{0};
};

class Node;  // core/framework/node.h
class TensorImpl;

// Autograd state of a tensor; absent until the tensor takes part in autograd.
struct AutogradMeta {
  bool requires_grad = false;
  // Set for results of recorded ops (non-leaf tensors): the node computing
  // this tensor's gradient contribution, and which of its outputs it is.
  std::shared_ptr<Node> grad_fn;
  uint32_t output_nr = 0;
  // Leaves: the accumulated gradient and the node that accumulates into it.
  std::shared_ptr<TensorImpl> grad;
  std::weak_ptr<Node> grad_accumulator;
  // Non-leaves: keep .grad as well (Tensor.retain_grad()).
  bool retains_grad = false;
  // Tensor.register_hook: each may replace the gradient (non-null result).
  std::vector<std::function<std::shared_ptr<TensorImpl>(const std::shared_ptr<TensorImpl>&)>> hooks;
};

// The data of a tensor: a view (offset, shape, stride; all in elements) of a
// refcounted Storage, plus its element type and device. Views are new
// TensorImpls that share the storage and the version counter.
class TensorImpl {
 public:
  // Uninitialized contiguous memory. Throws RuntimeError on negative sizes.
  static std::shared_ptr<TensorImpl> Empty(const DimVector& shape, DType dtype, Device device);
  // Uninitialized memory with the given strides (which must be non-overlapping and dense).
  static std::shared_ptr<TensorImpl> EmptyStrided(const DimVector& shape, const DimVector& stride,
                                                  DType dtype, Device device);
  // A tensor over existing storage (no copy). Checks the view stays inside it.
  static std::shared_ptr<TensorImpl> FromStorage(std::shared_ptr<Storage> storage, int64_t offset,
                                                 DimVector shape, DimVector stride, DType dtype);

  // A view of the same storage with another geometry. Throws RuntimeError when
  // the view would reach outside the storage.
  std::shared_ptr<TensorImpl> AsStrided(DimVector shape, DimVector stride, int64_t offset) const;

  const std::shared_ptr<Storage>& storage() const { return storage_; }
  int64_t storage_offset() const { return offset_; }
  const DimVector& shape() const { return shape_; }
  const DimVector& stride() const { return stride_; }
  DType dtype() const { return dtype_; }
  const Device& device() const { return storage_->device(); }
  int64_t ndim() const { return static_cast<int64_t>(shape_.size()); }
  int64_t numel() const { return numel_; }
  int64_t itemsize() const { return ItemSize(dtype_); }
  bool is_contiguous() const { return IsContiguous(shape_, stride_); }
  // Address of element [0, ..., 0].
  char* data() const { return static_cast<char*>(storage_->data()) + offset_ * itemsize(); }

  int64_t version() const { return version_->version.load(std::memory_order_relaxed); }
  void BumpVersion() {
    version_->version.fetch_add(1, std::memory_order_relaxed);
    storage_->NoteWrite();
  }
  bool shares_version_with(const TensorImpl& other) const { return version_ == other.version_; }

  // True for leaves marked requires_grad and for results of recorded ops.
  bool requires_grad() const { return autograd_ && autograd_->requires_grad; }
  // Marks a leaf. Throws RuntimeError for non-floating dtypes and for non-leaves
  // (whose requires_grad follows from their inputs), as PyTorch does.
  void set_requires_grad(bool requires_grad);
  const std::shared_ptr<Node>& grad_fn() const;
  bool is_leaf() const { return !autograd_ || !autograd_->grad_fn; }
  // The autograd state, created on first use.
  AutogradMeta& autograd();
  const AutogradMeta* autograd_if_any() const { return autograd_.get(); }
  // Views made by view ops remember the tensor that owns the memory (never a
  // view itself), so in-place ops on the view can update the base's history.
  const std::shared_ptr<TensorImpl>& view_base() const { return view_base_; }
  void set_view_base(std::shared_ptr<TensorImpl> base) { view_base_ = std::move(base); }
  // A new tensor sharing this one's storage, geometry and version counter, but
  // with no autograd state (Tensor.detach()).
  std::shared_ptr<TensorImpl> Detach() const;
  // Like Detach, but with a version counter of its own (Tensor.data): in-place
  // changes through it are invisible to autograd's saved-tensor checks.
  std::shared_ptr<TensorImpl> DetachUntracked() const;
  // `Tensor.data = other`: this tensor now shows other's memory, geometry and
  // dtype, keeping its own identity, autograd state and version counter (so
  // Parameters survive `p.data = new_values`).
  void SetData(const TensorImpl& other);

 private:
  TensorImpl(std::shared_ptr<Storage> storage, int64_t offset, DimVector shape, DimVector stride,
             DType dtype, std::shared_ptr<VersionCounter> version);

  std::shared_ptr<Storage> storage_;
  int64_t offset_;
  DimVector shape_;
  DimVector stride_;
  int64_t numel_;
  DType dtype_;
  std::shared_ptr<VersionCounter> version_;
  std::unique_ptr<AutogradMeta> autograd_;
  std::shared_ptr<TensorImpl> view_base_;
};

using TensorImplPtr = std::shared_ptr<TensorImpl>;

}  // namespace oneflow

#endif  // CORE_RUNTIME_TENSOR_IMPL_H_
