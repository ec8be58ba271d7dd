// Cumulative ops: cumsum, its backward (a cumulative sum from the end) and
// cumprod. Kernels: ops/cpu/reduce_kernels.cc.

#include "core/runtime/view_ops.h"
#include "ops/defs/common.h"
#include "ops/defs/reduce.h"

namespace oneflow {
namespace defs {
namespace {

// cumsum/cumprod (the same indices): (self, dim, *, dtype): the input's shape;
// integers accumulate to int64.
void InferScan(OpCall& call) {
  const TensorImplPtr& x = call.tensor(arg::cumsum::self);
  WrapDim(call.get(arg::cumsum::dim), x->ndim());
  call.compute_dtype = SumDType(x, call.args[arg::cumsum::dtype]);
  call.cast_inputs = true;
  call.out_meta = {{x->shape(), call.compute_dtype}};
}

// The gradient of cumsum: a cumulative sum from the end.
void InferCumsumBackward(OpCall& call) {
  const TensorImplPtr& g = call.tensor(arg::cumsum_backward::grad);
  WrapDim(call.get(arg::cumsum_backward::dim), g->ndim());
  call.compute_dtype = g->dtype();
  call.out_meta = {{g->shape(), g->dtype()}};
}

// d cumprod_i / d x_k = prod_{j <= i, j != k} x_j for i >= k, a sum over i
// that drops the terms holding a zero (they are exactly 0), as PyTorch does.
// Before the first zero z of the slice only terms i < z count, and there it is
// sum_{i >= k} g_i out_i / x_k. At z, terms up to the next zero count: the
// reverse cumulative sum of g times the cumulative product with x_z replaced
// by 1. After z it is 0. No division by zero, so zeros get exact gradients.
TensorImplPtr CumprodGrad(const TensorImplPtr& x, const TensorImplPtr& g, const TensorImplPtr& out,
                          int64_t dim) {
  auto reverse_cumsum = [dim](const TensorImplPtr& t) { return ops::cumsum_backward(t, dim); };
  TensorImplPtr zero = ops::eq(x, Num(0));
  TensorImplPtr zeros_so_far = ops::cumsum(zero, dim);
  TensorImplPtr before = ops::eq(zeros_so_far, Int(0));
  TensorImplPtr at_first = ops::logical_and(zero, ops::eq(zeros_so_far, Int(1)));
  TensorImplPtr grad_before =
      Div(reverse_cumsum(ops::where(before, Mul(g, out), Num(0))), ops::where(zero, Num(1), x));
  TensorImplPtr skip_first = ops::cumprod(ops::where(at_first, Num(1), x), dim);
  TensorImplPtr up_to_second = ops::le(zeros_so_far, Int(1));
  TensorImplPtr grad_at = reverse_cumsum(ops::where(up_to_second, Mul(g, skip_first), Num(0)));
  return ops::where(before, grad_before, ops::where(at_first, grad_at, Num(0)));
}

OF_OP("cumsum(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor")
    .Infer(InferScan)
    .Backward([](BackwardCtx& c) -> TensorList {
      return {ops::cumsum_backward(c.grad(), c.get(arg::cumsum::dim))};
    })
    .Sbp(sbp::Family("along_dim", "linear=1"))
    .Autocast(amp::kNone, amp::kFp32);
OF_OP("cumsum_backward(Tensor grad, int dim) -> Tensor")
    .Infer(InferCumsumBackward)
    .Backward([](BackwardCtx& c) -> TensorList {
      return {ops::cumsum(c.grad(), c.get(arg::cumsum_backward::dim))};
    })
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kNone);
OF_OP("cumprod(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor")
    .Infer(InferScan)
    .Backward([](BackwardCtx& c) -> TensorList {
      TensorImplPtr x = c.get(arg::cumprod::self);
      if (x->ndim() == 0) return {c.grad()};
      return {CumprodGrad(x, c.grad(), c.output(0), WrapDim(c.get(arg::cumprod::dim), x->ndim()))};
    })
    .Sbp(sbp::Family("along_dim"))
    .Autocast(amp::kNone, amp::kFp32);

}  // namespace
}  // namespace defs
}  // namespace oneflow
