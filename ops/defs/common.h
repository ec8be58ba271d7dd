#ifndef OPS_DEFS_COMMON_H_
#define OPS_DEFS_COMMON_H_

// Helpers for op declarations: in-place twins, and a small functional API for
// backward formulas (each call runs a registered op, so formulas are
// differentiable again under create_graph).

#include <string>
#include <vector>

#include "core/framework/dispatch.h"
#include "core/framework/op_registry.h"
#include "core/runtime/error.h"
#include "core/runtime/tensor_ops.h"
#include "ops/api/ops.h"

namespace oneflow {
namespace defs {

// The schema of the in-place variant of a functional op:
// "add(Tensor self, ...) -> Tensor" -> "add_(Tensor(a!) self, ...) -> Tensor(a!)".
std::string InplaceSchema(const std::string& functional);

// An op and its in-place twin, declared together; every setter applies to both.
struct OpPair {
  OpDef& functional;
  OpDef& inplace;
  OpPair& Infer(InferFn fn) {
    functional.Infer(fn);
    inplace.Infer(fn);
    return *this;
  }
  OpPair& Backward(BackwardFn fn) {
    functional.Backward(fn);
    inplace.Backward(fn);
    return *this;
  }
  OpPair& Composite(CompositeFn fn) {
    functional.Composite(fn);
    inplace.Composite(fn);
    return *this;
  }
  OpPair& NonDifferentiable() {
    functional.NonDifferentiable();
    inplace.NonDifferentiable();
    return *this;
  }
  OpPair& Sbp(const SbpRule& rule) {
    functional.Sbp(rule);
    inplace.Sbp(rule);
    return *this;
  }
  OpPair& Autocast(AutocastPolicy cpu, AutocastPolicy cuda) {
    functional.Autocast(cpu, cuda);
    inplace.Autocast(cpu, cuda);
    return *this;
  }
  OpPair& Autocast(AutocastPolicy both) { return Autocast(both, both); }
  OpPair& Traits(uint32_t traits) {
    functional.Traits(traits);
    inplace.Traits(traits);
    return *this;
  }
};
OpPair DeclareWithInplace(const std::string& functional_schema);

// A Python number as an op argument (a 0-dim "wrapped number" tensor).
Value Num(double v);
Value Int(int64_t v);

// Short names for the arithmetic of backward formulas (either side may be a
// number from Num/Int). Every other op is called through its typed entry point
// (ops/api/ops.h): ops::sum_dim(g, DimVector{0}, true).
inline TensorImplPtr Add(const Value& a, const Value& b) { return ops::add(a, b); }
inline TensorImplPtr Sub(const Value& a, const Value& b) { return ops::sub(a, b); }
inline TensorImplPtr Mul(const Value& a, const Value& b) { return ops::mul(a, b); }
inline TensorImplPtr Div(const Value& a, const Value& b) { return ops::div(a, b); }
inline TensorImplPtr Neg(const TensorImplPtr& a) { return ops::neg(a); }
// zeros with the shape and dtype of `like` (no autograd history).
TensorImplPtr ZerosLike(const TensorImplPtr& like);
// The gradient of one input that needs none of the incoming gradient.
TensorList Grads(std::initializer_list<TensorImplPtr> grads);

}  // namespace defs
}  // namespace oneflow

#define OF_OP_WITH_INPLACE(schema)                                                      \
  [[maybe_unused]] static ::oneflow::defs::OpPair OF_CONCAT(of_op_pair_, __COUNTER__) = \
      ::oneflow::defs::DeclareWithInplace(schema)

// Registers one kernel for an op and its in-place twin.
#define OF_KERNEL_WITH_INPLACE(op, device, dtypes, fn) \
  OF_KERNEL(op, device, dtypes, fn);                   \
  OF_KERNEL(op "_", device, dtypes, fn)

#endif  // OPS_DEFS_COMMON_H_
