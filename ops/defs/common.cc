#include "ops/defs/common.h"

#include "core/runtime/error.h"

namespace oneflow {
namespace defs {

std::string InplaceSchema(const std::string& functional) {
  size_t paren = functional.find('(');
  size_t dot = functional.find('.');
  size_t name_end = dot < paren ? dot : paren;
  std::string s = functional.substr(0, name_end) + "_" + functional.substr(name_end);
  const std::string self = "Tensor self";
  size_t at = s.find(self);
  OF_CHECK(at != std::string::npos, RuntimeError, "in-place twin of '", functional,
           "' needs a 'Tensor self' argument");
  s.replace(at, self.size(), "Tensor(a!) self");
  size_t arrow = s.rfind("-> Tensor");
  OF_CHECK(arrow != std::string::npos, RuntimeError, "in-place twin of '", functional,
           "' must return one Tensor");
  s.replace(arrow, std::string::npos, "-> Tensor(a!)");
  return s;
}

OpPair DeclareWithInplace(const std::string& functional_schema) {
  OpDef& f = OpRegistry::Declare(functional_schema);
  OpDef& i = OpRegistry::Declare(InplaceSchema(functional_schema));
  return {f, i};
}

Value Num(double v) {
  return Value(Full({}, Scalar::Float(v), DType::kFloat64, Device{}), /*wrapped_number=*/true);
}

Value Int(int64_t v) {
  return Value(Full({}, Scalar::Int(v), DType::kInt64, Device{}), /*wrapped_number=*/true);
}

TensorImplPtr ZerosLike(const TensorImplPtr& like) {
  return Full(like->shape(), Scalar::Int(0), like->dtype(), like->device());
}

TensorList Grads(std::initializer_list<TensorImplPtr> grads) { return TensorList(grads); }

}  // namespace defs
}  // namespace oneflow
