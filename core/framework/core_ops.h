#ifndef CORE_FRAMEWORK_CORE_OPS_H_
#define CORE_FRAMEWORK_CORE_OPS_H_

// The ops the framework itself runs: accumulating gradients (add, clone),
// casting (autocast, dtype-changing outputs) and reducing a gradient over
// broadcast dims. The framework sits below ops/, so it names none of them:
// ops/defs installs these entry points at load time (ops/defs/core_ops.cc).

#include "core/runtime/shape.h"
#include "core/runtime/tensor_impl.h"

namespace oneflow {

struct CoreOps {
  TensorImplPtr (*add)(const TensorImplPtr& a, const TensorImplPtr& b) = nullptr;
  TensorImplPtr (*clone)(const TensorImplPtr& t) = nullptr;
  TensorImplPtr (*to_dtype)(const TensorImplPtr& t, DType dtype) = nullptr;
  TensorImplPtr (*sum_to_size)(const TensorImplPtr& t, const DimVector& shape) = nullptr;
};

// The installed entry points; throws RuntimeError when ops/defs was not linked.
const CoreOps& GetCoreOps();
void SetCoreOps(const CoreOps& ops);

}  // namespace oneflow

#endif  // CORE_FRAMEWORK_CORE_OPS_H_
