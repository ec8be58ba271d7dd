#ifndef CORE_RUNTIME_VIEW_OPS_H_
#define CORE_RUNTIME_VIEW_OPS_H_

// Views: new geometry over the same storage, never a copy (Reshape and Flatten
// copy only when no view can express the result, as in PyTorch). Argument
// errors raise the exception PyTorch raises, naming the op.

#include <optional>
#include <vector>

#include "core/runtime/tensor_impl.h"

namespace oneflow {

TensorImplPtr View(const TensorImplPtr& t, const DimVector& shape);
TensorImplPtr Reshape(const TensorImplPtr& t, const DimVector& shape);
TensorImplPtr Transpose(const TensorImplPtr& t, int64_t dim0, int64_t dim1);
TensorImplPtr Permute(const TensorImplPtr& t, const DimVector& dims);
TensorImplPtr Narrow(const TensorImplPtr& t, int64_t dim, int64_t start, int64_t length);
TensorImplPtr Expand(const TensorImplPtr& t, const DimVector& shape);
// Removes all size-1 dims (dims empty) or the listed ones that have size 1.
TensorImplPtr Squeeze(const TensorImplPtr& t, const std::optional<DimVector>& dims);
TensorImplPtr Unsqueeze(const TensorImplPtr& t, int64_t dim);
TensorImplPtr Flatten(const TensorImplPtr& t, int64_t start_dim, int64_t end_dim);
// Python's t[..., start:end:step, ...] on `dim`; start/end are clamped as in
// Python slicing, step must be positive.
TensorImplPtr Slice(const TensorImplPtr& t, int64_t dim, std::optional<int64_t> start,
                    std::optional<int64_t> end, int64_t step);
// t[..., index, ...] on `dim`: drops the dim.
TensorImplPtr Select(const TensorImplPtr& t, int64_t dim, int64_t index);

// OneFlow's ONEFLOW_DISABLE_VIEW switch: when views are disabled, the view ops
// return fresh contiguous tensors and view() reshapes, as OneFlow <= 0.8 did
// (code written for it calls x.permute(...).view(...)). Views are enabled
// unless the environment variable is set to a true value (1, true, yes, on);
// SetViewsEnabled overrides it for the calling thread.
bool ViewsEnabled();
void SetViewsEnabled(bool enabled);

}  // namespace oneflow

#endif  // CORE_RUNTIME_VIEW_OPS_H_
