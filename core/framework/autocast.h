#ifndef CORE_FRAMEWORK_AUTOCAST_H_
#define CORE_FRAMEWORK_AUTOCAST_H_

// Automatic mixed precision (oneflow.autocast): the per-thread autocast state
// and the per-op casting policies that Dispatch applies before an op runs.
//
// While autocast is enabled for a device type, an op that has a policy for it
// gets its floating tensor arguments cast first (with the differentiable
// `_to_dtype` op, so gradients flow back to the original dtype):
//   kLowerPrecision  to the autocast dtype (bfloat16 / float16): matmuls, convolutions, ...
//   kFloat32         to float32: losses, reductions and ops that lose accuracy in 16 bits
//   kPromote         to the widest floating dtype among the arguments (cat, stack, ...)
//   kBanned          refused with a RuntimeError (unsafe to autocast)
// "Floating" follows PyTorch's eligibility rule: float16, bfloat16 and float32
// tensors on the autocast device; float64 tensors and wrapped Python numbers
// are left alone. Policies are attached by op name from tables in autocast.cc
// (one per device type, following PyTorch's CPU and CUDA autocast lists), so
// op definitions need no changes.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/framework/op_registry.h"

namespace oneflow {

// AutocastPolicy (core/framework/op_traits.h) is declared with each op.

// The autocast state of the calling thread (PyTorch keeps it thread-local too).
struct AutocastState {
  // True when autocast is on for any device type (the dispatcher's fast check).
  static bool any_enabled();
  static bool is_enabled(DeviceType device);
  static void set_enabled(DeviceType device, bool enabled);
  // The lower-precision dtype of a device type (bfloat16 for CPU and float16
  // for CUDA until set).
  static DType dtype(DeviceType device);
  static void set_dtype(DeviceType device, DType dtype);
  // Whether casts of float32 leaf tensors that require grad (weights) are cached
  // within an autocast region.
  static bool cache_enabled();
  static void set_cache_enabled(bool enabled);
  // Depth of nested autocast regions; the caller clears the cache when the
  // outermost one exits (decrement returns 0).
  static int64_t increment_nesting();
  static int64_t decrement_nesting();
  static void clear_cache();
};

// The policy of `op` for `device` (kNone when it has none).
AutocastPolicy GetAutocastPolicy(const OpDef& op, DeviceType device);
const char* AutocastPolicyName(AutocastPolicy policy);
// The ops with a policy other than kNone on a device type (op name, policy),
// read from the declarations, for tests and introspection; names are
// Schema::name (one entry for all overloads).
std::vector<std::pair<std::string, AutocastPolicy>> AutocastTable(DeviceType device);

// Applies the op's policy to `args` when autocast is enabled for `device`;
// leaves them unchanged otherwise. Mutated (in-place) arguments are never cast.
void ApplyAutocast(const OpDef& op, DeviceType device, std::vector<Value>& args);

}  // namespace oneflow

#endif  // CORE_FRAMEWORK_AUTOCAST_H_
