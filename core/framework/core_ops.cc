#include "core/framework/core_ops.h"

#include "core/runtime/error.h"

namespace oneflow {
namespace {

CoreOps& Installed() {
  static CoreOps ops;
  return ops;
}

}  // namespace

const CoreOps& GetCoreOps() {
  const CoreOps& ops = Installed();
  OF_CHECK(ops.add && ops.clone && ops.to_dtype && ops.sum_to_size, RuntimeError,
           "the framework's core ops (add, clone, _to_dtype, sum_to_size) are not installed: "
           "link ops/defs");
  return ops;
}

void SetCoreOps(const CoreOps& ops) { Installed() = ops; }

}  // namespace oneflow
