// Fused multi-tensor optimizer steps (kernels in ops/cpu/optim_kernels.cc), used by
// oneflow.optim.SGD / Adam / AdamW when every parameter is a dense CPU tensor of one
// dtype. One call updates a whole parameter list: each element of a parameter and its
// state is read once and written once, instead of the half-dozen elementwise passes of
// the per-parameter path.
//
// The signatures follow PyTorch's torch._fused_sgd_ / _fused_adam_ / _fused_adamw_
// (argument names and order), except that:
//  - the lists carry no `(a!)` annotation: an annotated first argument would send the
//    call down the dispatcher's single-tensor in-place path. The kernels still update
//    params and state in place and bump their version counters (so caches keyed on a
//    parameter's version, like packed GEMM weights, see the update);
//  - they return an empty tensor list (the schema language has no `-> ()`);
//  - there are no grad_scale / found_inf arguments (no AMP gradient scaling here).
// Step counters (Adam's state_steps) are read, not incremented: the caller increments
// them first, as PyTorch's optimizers do.

#include "ops/defs/common.h"

namespace oneflow {
namespace defs {
namespace {

// The dtype every tensor of the call must have; the kernels check the rest (lengths,
// shapes, layouts).
// Serves _fused_sgd_, _fused_adam_ and _fused_adamw_: params is argument 0 of each.
void InferFusedOptim(OpCall& call) {
  const TensorList params = call.get(arg::_fused_sgd_::params);
  call.compute_dtype = params.empty() ? DType::kFloat32 : params[0]->dtype();
  OF_CHECK(IsFloatingPoint(call.compute_dtype), RuntimeError, call.name(),
           ": parameters must be floating point, got ", DTypeName(call.compute_dtype));
  call.cast_inputs = false;
  call.out_meta.clear();
}

// The multi-tensor kernels write into list arguments the schema cannot mark;
// run on boxed copies of global tensors, the update would be silently lost.
constexpr const char* kLocalOnly =
    "fused multi-tensor kernels take local tensors only; global parameters use the "
    "per-parameter optimizer path";

OF_OP(
    "_fused_sgd_(Tensor[] params, Tensor[] grads, Tensor[] momentum_buffer_list, *, "
    "float weight_decay, float momentum, float lr, float dampening, bool nesterov, "
    "bool maximize, bool is_first_step) -> Tensor[]")
    .Infer(InferFusedOptim)
    .NonDifferentiable()
    .Sbp(sbp::Unsupported(kLocalOnly))
    .Autocast(amp::kNone)
    .Traits(kMutatesArgs);

OF_OP(
    "_fused_adam_(Tensor[] params, Tensor[] grads, Tensor[] exp_avgs, Tensor[] exp_avg_sqs, "
    "Tensor[] max_exp_avg_sqs, Tensor[] state_steps, *, float lr, float beta1, float beta2, "
    "float weight_decay, float eps, bool amsgrad, bool maximize) -> Tensor[]")
    .Infer(InferFusedOptim)
    .NonDifferentiable()
    .Sbp(sbp::Unsupported(kLocalOnly))
    .Autocast(amp::kNone)
    .Traits(kMutatesArgs);

OF_OP(
    "_fused_adamw_(Tensor[] params, Tensor[] grads, Tensor[] exp_avgs, Tensor[] exp_avg_sqs, "
    "Tensor[] max_exp_avg_sqs, Tensor[] state_steps, *, float lr, float beta1, float beta2, "
    "float weight_decay, float eps, bool amsgrad, bool maximize) -> Tensor[]")
    .Infer(InferFusedOptim)
    .NonDifferentiable()
    .Sbp(sbp::Unsupported(kLocalOnly))
    .Autocast(amp::kNone)
    .Traits(kMutatesArgs);

}  // namespace
}  // namespace defs
}  // namespace oneflow
