#include "core/framework/autocast.h"

#include <map>
#include <mutex>
#include <set>
#include <utility>

#include "core/framework/core_ops.h"
#include "core/framework/dispatch.h"
#include "core/framework/grad_mode.h"
#include "core/framework/type_promotion.h"
#include "core/runtime/error.h"

namespace oneflow {
namespace {

constexpr int kNumDeviceTypes = 2;

// One thread's autocast state, as oneflow.autocast sets it.
struct ThreadState {
  bool enabled[kNumDeviceTypes] = {false, false};
  DType dtype[kNumDeviceTypes] = {DType::kBFloat16, DType::kFloat16};
  bool cache_enabled = true;
  int64_t nesting = 0;
  // Lower-precision casts of weights (float32 leaves requiring grad), so a
  // weight used by several ops in one region is cast once and its gradient
  // flows through a single cast node. The key's tensor is kept alive by the
  // entry, so its address is not reused while cached.
  struct CacheEntry {
    TensorImplPtr source;
    TensorImplPtr cast;
  };
  std::map<std::pair<const TensorImpl*, DType>, CacheEntry> cache;
  // Set when any enabled[] is, so Dispatch pays one load when autocast is off.
  bool any = false;

  void UpdateAny() {
    any = false;
    for (bool e : enabled) any = any || e;
  }
};

ThreadState& State() {
  thread_local ThreadState state;
  return state;
}

int Index(DeviceType device) { return static_cast<int>(device); }

// PyTorch's eligibility: a floating tensor on the autocast device that is not
// float64 (double precision is never lowered nor promoted).
bool Eligible(const TensorImplPtr& t, DeviceType device) {
  return t && IsFloatingPoint(t->dtype()) && t->dtype() != DType::kFloat64 &&
         t->device().type == device;
}

TensorImplPtr CastTo(const TensorImplPtr& t, DType dtype, AutocastPolicy policy) {
  if (t->dtype() == dtype) return t;
  ThreadState& s = State();
  // Only weights are cached, and only when the cast records a graph: a cast
  // made under no_grad reused later with grad enabled would cut the gradient.
  const bool cacheable = policy == AutocastPolicy::kLowerPrecision && s.cache_enabled &&
                         t->dtype() == DType::kFloat32 && t->requires_grad() && t->is_leaf() &&
                         !t->view_base() && GradMode::is_enabled();
  if (!cacheable) return GetCoreOps().to_dtype(t, dtype);
  auto key = std::make_pair(t.get(), dtype);
  auto it = s.cache.find(key);
  if (it != s.cache.end()) return it->second.cast;
  TensorImplPtr cast = GetCoreOps().to_dtype(t, dtype);
  s.cache.emplace(key, ThreadState::CacheEntry{t, cast});
  return cast;
}

}  // namespace

bool AutocastState::any_enabled() { return State().any; }
bool AutocastState::is_enabled(DeviceType device) { return State().enabled[Index(device)]; }
void AutocastState::set_enabled(DeviceType device, bool enabled) {
  ThreadState& s = State();
  s.enabled[Index(device)] = enabled;
  s.UpdateAny();
}
DType AutocastState::dtype(DeviceType device) { return State().dtype[Index(device)]; }
void AutocastState::set_dtype(DeviceType device, DType dtype) {
  State().dtype[Index(device)] = dtype;
}
bool AutocastState::cache_enabled() { return State().cache_enabled; }
void AutocastState::set_cache_enabled(bool enabled) { State().cache_enabled = enabled; }
int64_t AutocastState::increment_nesting() { return ++State().nesting; }
int64_t AutocastState::decrement_nesting() { return --State().nesting; }
void AutocastState::clear_cache() { State().cache.clear(); }

AutocastPolicy GetAutocastPolicy(const OpDef& op, DeviceType device) { return op.autocast(device); }

std::vector<std::pair<std::string, AutocastPolicy>> AutocastTable(DeviceType device) {
  std::vector<std::pair<std::string, AutocastPolicy>> out;
  std::set<std::string> seen;
  for (const OpDef* op : OpRegistry::All()) {
    const AutocastPolicy policy = op->autocast(device);
    if (policy != AutocastPolicy::kNone && seen.insert(op->schema().name).second) {
      out.emplace_back(op->schema().name, policy);
    }
  }
  return out;
}

const char* AutocastPolicyName(AutocastPolicy policy) {
  switch (policy) {
    case AutocastPolicy::kNone:
      return "none";
    case AutocastPolicy::kLowerPrecision:
      return "lower_precision_fp";
    case AutocastPolicy::kFloat32:
      return "fp32";
    case AutocastPolicy::kPromote:
      return "promote";
    case AutocastPolicy::kBanned:
      return "banned";
  }
  return "none";
}

void ApplyAutocast(const OpDef& op, DeviceType device, std::vector<Value>& args) {
  ThreadState& s = State();
  if (!s.enabled[Index(device)]) return;
  const AutocastPolicy policy = GetAutocastPolicy(op, device);
  if (policy == AutocastPolicy::kNone) return;
  const Schema& schema = op.schema();
  OF_CHECK(policy != AutocastPolicy::kBanned, RuntimeError, schema.name,
           " is unsafe to autocast to lower precision on ",
           device == DeviceType::kCUDA ? "cuda" : "cpu",
           ": use the *_with_logits variant (which combines the sigmoid with the loss) or disable "
           "autocast around this op");

  // Positional arguments the op may write to keep their tensor (and dtype).
  auto castable = [&](size_t i) { return i >= schema.args.size() || !schema.args[i].mutated; };
  DType target = DType::kFloat32;
  if (policy == AutocastPolicy::kLowerPrecision) {
    target = s.dtype[Index(device)];
  } else if (policy == AutocastPolicy::kPromote) {
    bool found = false;
    auto widen = [&](const TensorImplPtr& t) {
      if (!Eligible(t, device)) return;
      target = found ? PromoteTypes(target, t->dtype()) : t->dtype();
      found = true;
    };
    for (size_t i = 0; i < args.size(); ++i) {
      const Value& v = args[i];
      if (!castable(i)) continue;
      if (v.is_tensor() && !v.is_wrapped_number()) widen(v.tensor());
      if (v.is_tensor_list()) {
        for (const auto& t : v.tensors()) widen(t);
      }
    }
    if (!found) return;
  }

  for (size_t i = 0; i < args.size(); ++i) {
    Value& v = args[i];
    if (!castable(i)) continue;
    if (v.is_tensor() && !v.is_wrapped_number()) {
      if (Eligible(v.tensor(), device) && v.tensor()->dtype() != target) {
        v = Value(CastTo(v.tensor(), target, policy));
      }
    } else if (v.is_tensor_list()) {
      bool any = false;
      for (const auto& t : v.tensors()) any = any || (Eligible(t, device) && t->dtype() != target);
      if (!any) continue;
      std::vector<TensorImplPtr> cast;
      cast.reserve(v.tensors().size());
      for (const auto& t : v.tensors()) {
        cast.push_back(Eligible(t, device) ? CastTo(t, target, policy) : t);
      }
      v = Value(std::move(cast));
    }
  }
}

}  // namespace oneflow
