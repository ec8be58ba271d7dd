// softmax and log_softmax along one dim: declarations, dtype rules and
// backward formulas. Kernels: ops/cpu/softmax_kernels.cc.
//
// `dtype` casts the input before the op (as PyTorch); the result has that
// dtype. The gradients are ops of their own (_softmax_backward,
// _log_softmax_backward, fused kernels); under create_graph the formulas are
// written with differentiable ops instead, so that double backward works.

#include "core/framework/grad_mode.h"
#include "ops/defs/common.h"

namespace oneflow {
namespace defs {
namespace {

void InferSoftmax(OpCall& call) {
  const TensorImplPtr& x = call.tensor(0);
  WrapDim(call.args[1].to_int(), x->ndim());  // IndexError when out of range
  const DType d = call.args[2].is_none() ? x->dtype() : call.args[2].dtype();
  OF_CHECK(IsFloatingPoint(d), NotImplementedError, "\"", call.name(), "\" not implemented for '",
           DTypeName(d), "' (input of size ", ShapeToString(x->shape()), ")");
  call.compute_dtype = d;
  call.cast_inputs = x->dtype() != d;
  call.out_meta = {{x->shape(), d}};
}

// The backward ops: (grad_output, output, dim) -> grad_input, all of the output's shape.
void InferSoftmaxBackward(OpCall& call) {
  const TensorImplPtr& g = call.tensor(0);
  const TensorImplPtr& y = call.tensor(1);
  OF_CHECK(g->shape() == y->shape(), RuntimeError, call.name(), ": grad_output of size ",
           ShapeToString(g->shape()), " does not match the output of size ",
           ShapeToString(y->shape()));
  WrapDim(call.args[2].to_int(), y->ndim());
  call.compute_dtype = y->dtype();
  call.cast_inputs = g->dtype() != y->dtype();
  call.out_meta = {{y->shape(), y->dtype()}};
}

TensorImplPtr SumKeep(const TensorImplPtr& t, int64_t dim) {
  return Call("sum.dim", {t, DimVector{dim}, true});
}

OF_OP("softmax(Tensor self, int dim, ScalarType? dtype=None) -> Tensor")
    .Infer(InferSoftmax)
    .Backward([](BackwardCtx& c) -> TensorList {
      TensorImplPtr y = c.output(0), g = c.grad();
      const int64_t dim = c.int_arg(1);
      // dx = y * (g - sum(g * y))
      if (GradMode::is_enabled()) return {Mul(y, Sub(g, SumKeep(Mul(g, y), dim)))};
      return {Call("_softmax_backward", {g, y, dim})};
    })
    .Sbp(sbp::Family("along_dim"))
    .Autocast(amp::kNone, amp::kFp32);

OF_OP("log_softmax(Tensor self, int dim, ScalarType? dtype=None) -> Tensor")
    .Infer(InferSoftmax)
    .Backward([](BackwardCtx& c) -> TensorList {
      TensorImplPtr y = c.output(0), g = c.grad();
      const int64_t dim = c.int_arg(1);
      // dx = g - exp(y) * sum(g)
      if (GradMode::is_enabled()) return {Sub(g, Mul(Unary("exp", y), SumKeep(g, dim)))};
      return {Call("_log_softmax_backward", {g, y, dim})};
    })
    .Sbp(sbp::Family("along_dim"))
    .Autocast(amp::kNone, amp::kFp32);

OF_OP("_softmax_backward(Tensor grad_output, Tensor output, int dim) -> Tensor")
    .Infer(InferSoftmaxBackward)
    .NonDifferentiable()
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kNone);
OF_OP("_log_softmax_backward(Tensor grad_output, Tensor output, int dim) -> Tensor")
    .Infer(InferSoftmaxBackward)
    .NonDifferentiable()
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kNone);

}  // namespace
}  // namespace defs
}  // namespace oneflow
