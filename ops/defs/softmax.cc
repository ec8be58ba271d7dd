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
  // softmax and log_softmax: same arguments.
  const TensorImplPtr& x = call.tensor(arg::softmax::self);
  WrapDim(call.get(arg::softmax::dim), x->ndim());  // IndexError when out of range
  const DType d = call.get(arg::softmax::dtype).value_or(x->dtype());
  OF_CHECK(IsFloatingPoint(d), NotImplementedError, "\"", call.name(), "\" not implemented for '",
           DTypeName(d), "' (input of size ", ShapeToString(x->shape()), ")");
  call.compute_dtype = d;
  call.cast_inputs = x->dtype() != d;
  call.out_meta = {{x->shape(), d}};
}

// The backward ops: (grad_output, output, dim) -> grad_input, all of the output's shape.
void InferSoftmaxBackward(OpCall& call) {
  // _softmax_backward and _log_softmax_backward: same arguments.
  const TensorImplPtr& g = call.tensor(arg::_softmax_backward::grad_output);
  const TensorImplPtr& y = call.tensor(arg::_softmax_backward::output);
  OF_CHECK(g->shape() == y->shape(), RuntimeError, call.name(), ": grad_output of size ",
           ShapeToString(g->shape()), " does not match the output of size ",
           ShapeToString(y->shape()));
  WrapDim(call.get(arg::_softmax_backward::dim), y->ndim());
  call.compute_dtype = y->dtype();
  call.cast_inputs = g->dtype() != y->dtype();
  call.out_meta = {{y->shape(), y->dtype()}};
}

TensorImplPtr SumKeep(const TensorImplPtr& t, int64_t dim) {
  return ops::sum_dim(t, DimVector{dim}, true);
}

OF_OP("softmax(Tensor self, int dim, ScalarType? dtype=None) -> Tensor")
    .Infer(InferSoftmax)
    .Backward([](BackwardCtx& c) -> TensorList {
      TensorImplPtr y = c.output(0), g = c.grad();
      const int64_t dim = c.get(arg::softmax::dim);
      // dx = y * (g - sum(g * y))
      if (GradMode::is_enabled()) return {Mul(y, Sub(g, SumKeep(Mul(g, y), dim)))};
      return {ops::_softmax_backward(g, y, dim)};
    })
    .Sbp(sbp::Family("along_dim"))
    .Autocast(amp::kNone, amp::kFp32);

OF_OP("log_softmax(Tensor self, int dim, ScalarType? dtype=None) -> Tensor")
    .Infer(InferSoftmax)
    .Backward([](BackwardCtx& c) -> TensorList {
      TensorImplPtr y = c.output(0), g = c.grad();
      const int64_t dim = c.get(arg::log_softmax::dim);
      // dx = g - exp(y) * sum(g)
      if (GradMode::is_enabled()) return {Sub(g, Mul(ops::exp(y), SumKeep(g, dim)))};
      return {ops::_log_softmax_backward(g, y, dim)};
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
