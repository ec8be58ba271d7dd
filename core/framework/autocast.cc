#include "core/framework/autocast.h"

#include <array>
#include <map>
#include <mutex>
#include <string_view>
#include <unordered_map>
#include <utility>

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

// The policies by op name (Schema::name, so every overload of an op shares its
// policy), one table per device type. The CPU table follows PyTorch's CPU
// autocast lists and the CUDA table its CUDA lists, restricted to the ops this
// registry declares; private helpers that public ops or Python wrappers call
// directly (_nll_loss, _pointwise_loss, ...) carry their public op's policy.
struct PolicyTable {
  AutocastPolicy policy;
  std::vector<std::string_view> ops;
};

const std::vector<PolicyTable>& CpuTables() {
  static const auto* tables = new std::vector<PolicyTable>{
      {AutocastPolicy::kLowerPrecision,
       {"conv1d",
        "conv2d",
        "conv3d",
        "conv_transpose1d",
        "conv_transpose2d",
        "conv_transpose3d",
        "convolution",
        "bmm",
        "mm",
        "baddbmm",
        "addmm",
        "linear",
        "matmul",
        "prelu",
        "fused_linear",
        "_fused_linear_act",
        "fused_matmul_bias",
        "fused_mlp",
        "scaled_dot_product_attention",
        "_scaled_dot_product_flash_attention_for_cpu"}},
      {AutocastPolicy::kFloat32,
       {"avg_pool3d",
        "binary_cross_entropy",
        "_binary_cross_entropy",
        "grid_sampler",
        "prod",
        "quantile",
        "nanquantile",
        "trace",
        "cholesky",
        "_linalg_cholesky",
        "inverse",
        "_linalg_inv",
        "max_pool3d",
        "max_pool3d_with_indices",
        "max_unpool2d",
        "max_unpool3d",
        "adaptive_avg_pool3d",
        "adaptive_max_pool3d",
        "_reflection_pad",
        "_replication_pad",
        "mse_loss",
        "l1_loss",
        "smooth_l1_loss",
        "huber_loss",
        "_pointwise_loss",
        "cosine_embedding_loss",
        "nll_loss",
        "_nll_loss",
        "cross_entropy",
        "_softmax_cross_entropy",
        "margin_ranking_loss",
        "triplet_margin_loss",
        "ctc_loss",
        "_ctc_loss",
        "kl_div",
        "binary_cross_entropy_with_logits",
        "qr",
        "_linalg_qr",
        "svd",
        "_linalg_svd",
        "_linalg_svdvals",
        "_linalg_eigh",
        "_linalg_eigvalsh",
        "_linalg_solve",
        "_linalg_solve_matrix",
        "_linalg_solve_triangular",
        "_linalg_solve_triangular_matrix"}},
      {AutocastPolicy::kPromote, {"cat", "stack", "index_copy"}},
  };
  return *tables;
}

const std::vector<PolicyTable>& CudaTables() {
  static const auto* tables = new std::vector<PolicyTable>{
      {AutocastPolicy::kLowerPrecision,
       {"conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
        "convolution", "prelu", "addmm", "matmul", "einsum", "mm", "mv", "linear", "baddbmm", "bmm",
        "scaled_dot_product_attention"}},
      {AutocastPolicy::kFloat32,
       {"acos",
        "asin",
        "cosh",
        "erfinv",
        "exp",
        "expm1",
        "log",
        "log10",
        "log2",
        "log1p",
        "reciprocal",
        "rsqrt",
        "sinh",
        "tan",
        "pow",
        "softplus",
        "layer_norm",
        "native_layer_norm",
        "group_norm",
        "native_group_norm",
        "norm",
        "cosine_similarity",
        "cosine_embedding_loss",
        "nll_loss",
        "_nll_loss",
        "cross_entropy",
        "_softmax_cross_entropy",
        "kl_div",
        "l1_loss",
        "smooth_l1_loss",
        "huber_loss",
        "mse_loss",
        "_pointwise_loss",
        "margin_ranking_loss",
        "triplet_margin_loss",
        "binary_cross_entropy_with_logits",
        "logsumexp",
        "_upsample_nearest1d",
        "_upsample_nearest2d",
        "_upsample_nearest3d",
        "_upsample_nearest_exact1d",
        "_upsample_nearest_exact2d",
        "_upsample_nearest_exact3d",
        "_linalg_vector_norm",
        "_linalg_matrix_norm",
        "_linalg_norm",
        "prod",
        "softmax",
        "log_softmax",
        "cumprod",
        "cumsum",
        "sum"}},
      {AutocastPolicy::kPromote,
       {"addcdiv", "addcmul", "atan2", "bilinear", "cross", "dot", "grid_sampler", "index_put",
        "scatter_add", "tensordot", "cat", "stack", "index_copy"}},
      // PyTorch refuses it on CUDA: the sigmoid-then-log it implies is unsafe in
      // float16; binary_cross_entropy_with_logits is the safe alternative.
      {AutocastPolicy::kBanned, {"binary_cross_entropy"}},
  };
  return *tables;
}

using PolicyMap = std::unordered_map<const OpDef*, std::array<AutocastPolicy, kNumDeviceTypes>>;

// Every declared op with a policy, resolved once (ops are all declared at
// static-initialization time, before the first dispatch).
const PolicyMap& Policies() {
  static const PolicyMap* map = [] {
    std::unordered_map<std::string_view, std::array<AutocastPolicy, kNumDeviceTypes>> by_name;
    auto add = [&](const std::vector<PolicyTable>& tables, DeviceType device) {
      for (const PolicyTable& t : tables) {
        // operator[] value-initializes a new entry: kNone for both device types.
        for (std::string_view name : t.ops) by_name[name][Index(device)] = t.policy;
      }
    };
    add(CpuTables(), DeviceType::kCPU);
    add(CudaTables(), DeviceType::kCUDA);
    auto* out = new PolicyMap();
    for (const OpDef* op : OpRegistry::All()) {
      auto it = by_name.find(op->schema().name);
      if (it != by_name.end()) (*out)[op] = it->second;
    }
    return out;
  }();
  return *map;
}

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
  if (!cacheable) return Call("_to_dtype", {t, dtype});
  auto key = std::make_pair(t.get(), dtype);
  auto it = s.cache.find(key);
  if (it != s.cache.end()) return it->second.cast;
  TensorImplPtr cast = Call("_to_dtype", {t, dtype});
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

AutocastPolicy GetAutocastPolicy(const OpDef& op, DeviceType device) {
  const PolicyMap& map = Policies();
  auto it = map.find(&op);
  return it == map.end() ? AutocastPolicy::kNone : it->second[Index(device)];
}

std::vector<std::pair<std::string, AutocastPolicy>> AutocastTable(DeviceType device) {
  std::vector<std::pair<std::string, AutocastPolicy>> out;
  for (const PolicyTable& t : device == DeviceType::kCUDA ? CudaTables() : CpuTables()) {
    for (std::string_view name : t.ops) out.emplace_back(std::string(name), t.policy);
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
