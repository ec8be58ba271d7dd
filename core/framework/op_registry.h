#ifndef CORE_FRAMEWORK_OP_REGISTRY_H_
#define CORE_FRAMEWORK_OP_REGISTRY_H_

// An op is declared once: its schema, how it infers output shapes and dtypes,
// its backward formula and its SBP signatures. Kernels (per device, for a set
// of dtypes) register separately, from ops/cpu and ops/cuda. Python bindings
// (oneflow.<op>, Tensor.<op>) are generated from the registry.
//
//   OF_OP("mul(Tensor self, Tensor other) -> Tensor")
//       .Infer(InferBinaryPromoted)
//       .Backward([](BackwardCtx& ctx) -> TensorList { ... });
//
//   OF_KERNEL("mul", DeviceType::kCPU, kAllDTypes, &MulCpu);

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

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

// One way of running the op on global tensors: the SBP of each tensor input
// and output ("S(0)", "B", "P"). Filled in by the Global Tensor work.
struct SbpSignature {
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;
};
using SbpFn = std::vector<SbpSignature> (*)(const OpCall& call);

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
  OpDef& Sbp(SbpFn fn);
  // The op's outputs are never differentiable (comparisons, argmax, ...).
  OpDef& NonDifferentiable();

  const std::string& name() const { return name_; }
  const Schema& schema() const { return schema_; }
  bool declared() const { return declared_; }
  InferFn infer() const { return infer_; }
  CompositeFn composite() const { return composite_; }
  BackwardFn backward() const { return backward_; }
  SbpFn sbp() const { return sbp_; }
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
  SbpFn sbp_ = nullptr;
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
  // Checks that every op with a kernel was declared and every declared
  // non-composite op has a kernel; returns the problems found.
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
