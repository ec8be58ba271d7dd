// Ops over three tensors: where, lerp, addcmul, addcdiv; and clamp.

#include "core/framework/type_promotion.h"
#include "ops/defs/common.h"

namespace oneflow {
namespace defs {
namespace {

// where(condition, self, other): broadcast all three; promote self and other.
void InferWhere(OpCall& call) {
  OF_CHECK(call.tensor(0)->dtype() == DType::kBool, RuntimeError,
           "where expected condition to be a boolean tensor, but got a tensor with dtype ",
           DTypeName(call.tensor(0)->dtype()));
  DimVector shape = BroadcastShapes(call.tensor(0)->shape(), call.tensor(1)->shape(), "where");
  shape = BroadcastShapes(shape, call.tensor(2)->shape(), "where");
  DType d = ResultType({&call.args[1], &call.args[2]});
  call.compute_dtype = d;
  call.out_meta = {{shape, d}};
  for (int i = 1; i <= 2; ++i) {
    if (call.tensor(i)->dtype() != d) {
      call.args[i] = Value(ToDType(call.tensor(i), d, false), call.args[i].is_wrapped_number());
    }
  }
}
OF_OP("where(Tensor condition, Tensor self, Tensor other) -> Tensor")
    .Infer(InferWhere)
    .Backward([](BackwardCtx& c) -> TensorList {
      TensorImplPtr g = c.grad(), cond = c.input(0);
      return {nullptr, c.needs_grad[1] ? Call("where", {cond, g, Num(0)}) : nullptr,
              c.needs_grad[2] ? Call("where", {cond, Num(0), g}) : nullptr};
    });

}  // namespace
}  // namespace defs
}  // namespace oneflow
