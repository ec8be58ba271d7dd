// Installs the ops the framework runs itself (core/framework/core_ops.h).

#include "core/framework/core_ops.h"

#include "ops/api/ops.h"

namespace oneflow {
namespace defs {
namespace {

[[maybe_unused]] const bool kCoreOpsInstalled = [] {
  CoreOps core;
  core.add = [](const TensorImplPtr& a, const TensorImplPtr& b) { return ops::add(a, b); };
  core.clone = [](const TensorImplPtr& t) { return ops::clone(t); };
  core.to_dtype = [](const TensorImplPtr& t, DType dtype) { return ops::_to_dtype(t, dtype); };
  core.sum_to_size = [](const TensorImplPtr& t, const DimVector& shape) {
    return ops::sum_to_size(t, shape);
  };
  SetCoreOps(core);
  return true;
}();

}  // namespace
}  // namespace defs
}  // namespace oneflow
