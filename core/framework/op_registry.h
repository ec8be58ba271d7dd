#ifndef CORE_FRAMEWORK_OP_REGISTRY_H_
#define CORE_FRAMEWORK_OP_REGISTRY_H_

// An op is declared once: its schema, how it infers output shapes and dtypes,
// its backward formula, its SBP rule, its autocast class and its traits
// (core/framework/op_traits.h). Kernels (per device, for a set of dtypes)
// register separately, from ops/cpu and ops/cuda. Python bindings
// (oneflow.<op>, Tensor.<op>), global execution and autocast all read the
// declaration; none of them lists ops by name.
//
//   OF_OP("mul(Tensor self, Tensor other) -> Tensor")
//       .Infer(InferBinaryPromoted)
//       .Backward([](BackwardCtx& ctx) -> TensorList { ... })
//       .Sbp(sbp::Elementwise("PB BP"))
//       .Autocast(amp::kNone)
//       .Traits(kElementwise);
//
//   OF_KERNEL("mul", DeviceType::kCPU, kAllDTypes, &MulCpu);

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/framework/op_traits.h"
#include "core/framework/schema.h"
#include "core/framework/value.h"

namespace oneflow {

class Node;
struct OpCall;
struct BackwardCtx;
using TensorList = std::vector<TensorImplPtr>;

// Sets call.out_meta and call.compute_dtype (and may ask for input casts).
using InferFn = void (*)(OpCall& call);
// Computes call.outputs (allocated by the dispatcher from out_meta, unless the
// op produces views or leaves out_meta empty and allocates itself).
using KernelFn = void (*)(OpCall& call);
// An op defined by other ops: it sets call.outputs by calling them, and its
// gradient follows from theirs.
using CompositeFn = void (*)(OpCall& call);
// Gradients for the op's differentiable inputs, in the order of the tensor
// arguments (a Tensor[] argument contributes one entry per element); null for
// an input that needs none.
using BackwardFn = TensorList (*)(BackwardCtx& ctx);

// A bit set of dtypes a kernel supports.
using DTypeSet = uint32_t;
constexpr DTypeSet DTypeBit(DType d) { return 1u << static_cast<int>(d); }
inline constexpr DTypeSet kFloatingDTypes = DTypeBit(DType::kFloat16) | DTypeBit(DType::kBFloat16) |
                                            DTypeBit(DType::kFloat32) | DTypeBit(DType::kFloat64);
inline constexpr DTypeSet kIntegralDTypes = DTypeBit(DType::kUInt8) | DTypeBit(DType::kInt8) |
                                            DTypeBit(DType::kInt16) | DTypeBit(DType::kInt32) |
                                            DTypeBit(DType::kInt64);
inline constexpr DTypeSet kNumericDTypes = kFloatingDTypes | kIntegralDTypes;
inline constexpr DTypeSet kAllDTypes = kNumericDTypes | DTypeBit(DType::kBool);

struct KernelEntry {
  KernelFn fn = nullptr;
  DTypeSet dtypes = 0;
};

class OpDef {
 public:
  explicit OpDef(std::string name) : name_(std::move(name)) {}

  // Declaration (chained).
  OpDef& Infer(InferFn fn);
  OpDef& Composite(CompositeFn fn);
  OpDef& Backward(BackwardFn fn);
  OpDef& Sbp(SbpRule rule);
  // The autocast class on CPU and on CUDA (PyTorch's lists differ by device).
  OpDef& Autocast(AutocastPolicy cpu, AutocastPolicy cuda);
  OpDef& Autocast(AutocastPolicy both) { return Autocast(both, both); }
  // Declared traits (OpTrait bits); the schema-derived ones are added here.
  OpDef& Traits(uint32_t traits);
  // The op's outputs are never differentiable (comparisons, argmax, ...).
  OpDef& NonDifferentiable();

  const std::string& name() const { return name_; }
  const Schema& schema() const { return schema_; }
  bool declared() const { return declared_; }
  InferFn infer() const { return infer_; }
  CompositeFn composite() const { return composite_; }
  BackwardFn backward() const { return backward_; }
  const SbpRule& sbp_rule() const { return sbp_rule_; }
  bool autocast_declared() const { return autocast_declared_; }
  AutocastPolicy autocast(DeviceType device) const { return autocast_[static_cast<int>(device)]; }
  // Declared traits plus those the schema implies (kInplace, kMutatesArgs, kView).
  uint32_t traits() const { return traits_; }
  bool has_trait(OpTrait t) const { return (traits_ & t) != 0; }
  bool differentiable() const { return differentiable_; }
  const KernelEntry& kernel(DeviceType device) const { return kernels_[static_cast<int>(device)]; }
  void SetKernel(DeviceType device, DTypeSet dtypes, KernelFn fn);
  void SetSchema(Schema schema);

 private:
  std::string name_;
  Schema schema_;
  bool declared_ = false;
  InferFn infer_ = nullptr;
  CompositeFn composite_ = nullptr;
  BackwardFn backward_ = nullptr;
  SbpRule sbp_rule_;
  bool autocast_declared_ = false;
  AutocastPolicy autocast_[2] = {AutocastPolicy::kNone, AutocastPolicy::kNone};
  uint32_t traits_ = 0;
  bool differentiable_ = true;
  KernelEntry kernels_[2];
};

class OpRegistry {
 public:
  // Declares an op from its schema; the op's registry key is the schema's full
  // name ("max.dim").
  static OpDef& Declare(std::string_view schema_text);
  // The op with this full name (declared or not yet), created on first use.
  static OpDef& GetOrCreate(const std::string& full_name);
  // The op with this full name; throws RuntimeError when it was never declared.
  static const OpDef& Get(const std::string& full_name);
  // All declared ops, in declaration order.
  static std::vector<const OpDef*> All();
  // Checks that every op with a kernel was declared, every declared
  // non-composite op has a kernel, and every declared op has an SBP rule and an
  // autocast class; returns the problems found.
  static std::vector<std::string> Validate();
};

struct KernelRegistrar {
  KernelRegistrar(const char* op, DeviceType device, DTypeSet dtypes, KernelFn fn) {
    OpRegistry::GetOrCreate(op).SetKernel(device, dtypes, fn);
  }
};

#define OF_CONCAT_INNER(a, b) a##b
#define OF_CONCAT(a, b) OF_CONCAT_INNER(a, b)
// Declares an op at static-initialization time.
#define OF_OP(schema)                                                        \
  [[maybe_unused]] static ::oneflow::OpDef& OF_CONCAT(of_op_, __COUNTER__) = \
      ::oneflow::OpRegistry::Declare(schema)
// Registers a kernel of `op` for `device` and the dtypes in `dtypes`.
#define OF_KERNEL(op, device, dtypes, fn)                                                      \
  [[maybe_unused]] static const ::oneflow::KernelRegistrar OF_CONCAT(of_kernel_, __COUNTER__)( \
      op, device, dtypes, fn)

}  // namespace oneflow

#endif  // CORE_FRAMEWORK_OP_REGISTRY_H_
