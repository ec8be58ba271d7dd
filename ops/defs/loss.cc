// Loss functions: declarations, argument checks and backward formulas.
// Kernels: ops/cpu/loss_kernels.cc and ops/cpu/ctc_loss_kernels.cc.
//
// The public ops (cross_entropy, nll_loss, mse_loss, ...) are composites that
// check their arguments as PyTorch does and reduce. Cross entropy with class
// indices runs fused (log_softmax and the picked log-probability in one pass
// over each row of logits, saving only the row's logsumexp for backward), and
// so do nll_loss, ctc_loss, binary_cross_entropy and the losses of
// input - target (mse, l1, smooth_l1, huber). Their gradients are fused ops
// too (binary_cross_entropy's is PyTorch's formula in ops), differentiable
// again by formula (ctc_loss's, as in PyTorch, is not). The remaining losses
// are short compositions of ops, differentiated through those ops. A
// class-index loss over (N, C, d1, ...) runs as ((N d1 ...), C) rows.

#include <algorithm>
#include <cmath>
#include <string>

#include "core/framework/grad_mode.h"
#include "core/framework/type_promotion.h"
#include "core/runtime/view_ops.h"
#include "ops/defs/common.h"

namespace oneflow {
namespace defs {
namespace {

enum class Reduction { kNone, kMean, kSum };

// PyTorch's reduction names; anything else is a ValueError. kl_div also takes
// 'batchmean' (handled by its caller).
Reduction ParseReduction(const std::string& r, const char* op) {
  if (r == "none") return Reduction::kNone;
  if (r == "mean") return Reduction::kMean;
  if (r == "sum") return Reduction::kSum;
  OF_THROW(ValueError, op, "(): ", r, " is not a valid value for reduction");
}

TensorImplPtr Reduce(const TensorImplPtr& loss, Reduction r) {
  if (r == Reduction::kMean) return ops::mean(loss);
  if (r == Reduction::kSum) return ops::sum(loss);
  return loss;
}

TensorImplPtr Where(const TensorImplPtr& cond, const Value& a, const Value& b) {
  return ops::where(cond, a, b);
}

// ---- cross entropy and nll_loss: checks and layout --------------------------

// The arguments of a class-index loss as (rows, C) logits and (rows) targets.
struct ClassRows {
  TensorImplPtr input, target;
  DimVector out_shape;  // the shape of the unreduced loss (the target's)
};

// PyTorch's checks for a class-index target against input (C), (N, C) or
// (N, C, d1, ...), then the input's class dim moved last and flattened.
ClassRows ToClassRows(const TensorImplPtr& input, const TensorImplPtr& target,
                      const TensorImplPtr& weight, const char* op) {
  const int64_t nd = input->ndim();
  const std::string shapes = StrCat(" (input ", ShapeToString(input->shape()), ", target ",
                                    ShapeToString(target->shape()), ")");
  OF_CHECK(nd >= 1, ValueError, op, "(): Expected 1 or more dimensions (got 0)", shapes);
  OF_CHECK(IsFloatingPoint(input->dtype()), RuntimeError, op,
           "(): expected a floating point input, got ", DTypeName(input->dtype()));
  if (nd == 1) {
    OF_CHECK(target->ndim() == 0 || (target->ndim() == 1 && target->shape()[0] == 1), ValueError,
             op, "(): For 1D input, 1D target must have size 1, but got target size: ",
             target->ndim() == 0 ? 0 : target->shape()[0], shapes);
  } else {
    int64_t tn = target->ndim() == 0 ? 0 : target->shape()[0];
    OF_CHECK(input->shape()[0] == tn, ValueError, op, "(): Expected input batch_size (",
             input->shape()[0], ") to match target batch_size (", tn, ").", shapes);
    if (nd == 2) {
      OF_CHECK(target->ndim() == 1, RuntimeError, op,
               "(): 0D or 1D target tensor expected, multi-target not supported", shapes);
    } else {
      DimVector want = input->shape();
      want.erase(want.begin() + 1);
      OF_CHECK(target->shape() == want, RuntimeError, op, "(): Expected target size ",
               ShapeToString(want), ", got ", ShapeToString(target->shape()), shapes);
    }
  }
  OF_CHECK(target->dtype() == DType::kInt64 || target->dtype() == DType::kUInt8, RuntimeError, op,
           "(): expected target dtype to be Long or Byte, but got ",
           target->dtype() == DType::kInt32 ? "Int" : DTypeName(target->dtype()), shapes);
  const int64_t classes = input->shape()[nd == 1 ? 0 : 1];
  if (weight) {
    OF_CHECK(
        weight->ndim() == 1 && weight->numel() == classes, RuntimeError, op,
        "(): weight tensor should be defined either for all ", classes,
        " classes or no classes but got weight tensor of shape: ", ShapeToString(weight->shape()));
  }
  ClassRows rows;
  rows.out_shape = nd == 1 ? DimVector{} : target->shape();
  TensorImplPtr x = input;
  if (nd == 1) {
    x = ops::reshape(x, DimVector{1, classes});
  } else if (nd > 2) {
    DimVector dims = {0};
    for (int64_t d = 2; d < nd; ++d) dims.push_back(d);
    dims.push_back(1);
    x = ops::reshape(ops::permute(x, dims), DimVector{-1, classes});
  }
  rows.input = x;
  rows.target = ops::reshape(target, DimVector{-1});
  return rows;
}

// cross_entropy with probabilities: -sum_c w_c q_c log_softmax(x)_c per sample,
// q smoothed towards uniform; 'mean' averages over samples.
TensorImplPtr CrossEntropyProbs(const TensorImplPtr& x, const TensorImplPtr& target,
                                const TensorImplPtr& weight, Reduction r, double smoothing) {
  const std::string shapes = StrCat(" (input ", ShapeToString(x->shape()), ", target ",
                                    ShapeToString(target->shape()), ")");
  OF_CHECK(IsFloatingPoint(target->dtype()), RuntimeError,
           "cross_entropy(): Expected floating point type for target with class probabilities, "
           "got ",
           target->dtype() == DType::kInt64 ? "Long" : DTypeName(target->dtype()), shapes);
  OF_CHECK(x->ndim() >= 1, ValueError, "cross_entropy(): Expected 1 or more dimensions (got 0)",
           shapes);
  const int64_t class_dim = x->ndim() == 1 ? 0 : 1;
  const int64_t classes = x->shape()[class_dim];
  TensorImplPtr lp = Sub(x, ops::logsumexp(x, DimVector{class_dim}, true));
  TensorImplPtr q = target;
  if (smoothing > 0) q = Add(Mul(q, Num(1 - smoothing)), Num(smoothing / classes));
  TensorImplPtr terms = Mul(lp, q);
  if (weight) {
    OF_CHECK(
        weight->ndim() == 1 && weight->numel() == classes, RuntimeError,
        "cross_entropy(): weight tensor should be defined either for all ", classes,
        " classes or no classes but got weight tensor of shape: ", ShapeToString(weight->shape()));
    DimVector wshape(x->ndim() - class_dim, 1);
    wshape[0] = classes;
    terms = Mul(terms, ops::reshape(weight, wshape));
  }
  TensorImplPtr loss = Neg(ops::sum_dim(terms, DimVector{class_dim}, false));
  return Reduce(loss, r);
}

// cross_entropy(input, target, weight, reduction, ignore_index, label_smoothing).
void CrossEntropy(OpCall& call) {
  const std::string reduction = call.get(arg::cross_entropy::reduction);
  Reduction r = ParseReduction(reduction, "cross_entropy");
  double smoothing = call.get(arg::cross_entropy::label_smoothing);
  OF_CHECK(smoothing >= 0 && smoothing <= 1, RuntimeError,
           "cross_entropy(): label_smoothing must be between 0.0 and 1.0. Got: ", smoothing);
  const TensorImplPtr& x = call.tensor(arg::cross_entropy::input);
  const TensorImplPtr& target = call.tensor(arg::cross_entropy::target);
  TensorImplPtr weight = call.get(arg::cross_entropy::weight);
  if (x->shape() == target->shape()) {
    call.outputs = {CrossEntropyProbs(x, target, weight, r, smoothing)};
    return;
  }
  ClassRows rows = ToClassRows(x, target, weight, "cross_entropy");
  TensorImplPtr loss =
      ops::_softmax_cross_entropy(rows.input, rows.target, weight, reduction,
                                  call.get(arg::cross_entropy::ignore_index), smoothing)[0];
  if (r == Reduction::kNone) loss = ops::reshape(loss, rows.out_shape);
  call.outputs = {loss};
}

OF_OP(
    "cross_entropy(Tensor input, Tensor target, Tensor? weight=None, str reduction='mean', int "
    "ignore_index=-100, float label_smoothing=0.0) -> Tensor")
    .Composite(CrossEntropy)
    .Sbp(sbp::Family("class_loss"))
    .Autocast(amp::kFp32);

void NllLoss(OpCall& call) {
  const std::string reduction = call.get(arg::nll_loss::reduction);
  ParseReduction(reduction, "nll_loss");
  TensorImplPtr weight = call.get(arg::nll_loss::weight);
  ClassRows rows = ToClassRows(call.tensor(arg::nll_loss::input),
                               call.tensor(arg::nll_loss::target), weight, "nll_loss");
  TensorImplPtr loss = ops::_nll_loss(rows.input, rows.target, weight, reduction,
                                      call.get(arg::nll_loss::ignore_index))[0];
  if (reduction == "none") loss = ops::reshape(loss, rows.out_shape);
  call.outputs = {loss};
}

OF_OP(
    "nll_loss(Tensor input, Tensor target, Tensor? weight=None, str reduction='mean', int "
    "ignore_index=-100) -> Tensor")
    .Composite(NllLoss)
    .Sbp(sbp::Family("class_loss"))
    .Autocast(amp::kFp32);

// The fused ops over (rows, C) logits or log-probabilities and (rows) class
// indices. Outputs: the loss (per row for 'none', else a scalar), then what
// backward needs: the rows' logsumexp (cross entropy) and the total weight of
// the counted rows (the divisor of 'mean'). (input, target, weight, reduction)
// have the same indices in _softmax_cross_entropy and _nll_loss.
void InferClassLoss(OpCall& call) {
  const TensorImplPtr& x = call.tensor(arg::_nll_loss::input);
  DType d = x->dtype();
  call.compute_dtype = d;
  if (TensorImplPtr w = call.get(arg::_nll_loss::weight); w && w->dtype() != d) {
    call.args[arg::_nll_loss::weight] = Value(ToDType(w, d, false));
  }
  const int64_t rows = x->shape()[0];
  Reduction r = ParseReduction(call.get(arg::_nll_loss::reduction), call.name().c_str());
  call.out_meta = {{r == Reduction::kNone ? DimVector{rows} : DimVector{}, d}};
  if (call.name() == "_softmax_cross_entropy") call.out_meta.push_back({{rows}, d});
  call.out_meta.push_back({{}, d});
}

// Tensor argument `a` of a backward context, or null (None) when it was not given.
TensorImplPtr SavedOrNull(BackwardCtx& c, ArgRef<TensorImplPtr> a) {
  return c.saved_inputs[a].defined() ? c.get(a) : nullptr;
}

// One gradient per tensor input that was given (an absent weight has none).
TensorList OnlyFirst(BackwardCtx& c, TensorImplPtr first) {
  TensorList out(c.needs_grad.size());
  out[0] = std::move(first);
  return out;
}

OF_OP(
    "_softmax_cross_entropy(Tensor input, Tensor target, Tensor? weight, str reduction, int "
    "ignore_index, float label_smoothing) -> (Tensor, Tensor, Tensor)")
    .Infer(InferClassLoss)
    .Backward([](BackwardCtx& c) -> TensorList {
      if (!c.needs_grad[0]) return OnlyFirst(c, nullptr);
      namespace a = arg::_softmax_cross_entropy;
      return OnlyFirst(
          c, ops::_softmax_cross_entropy_backward(c.grad(0), c.get(a::input), c.get(a::target),
                                                  SavedOrNull(c, a::weight), c.get(a::reduction),
                                                  c.get(a::ignore_index), c.get(a::label_smoothing),
                                                  c.output(1), c.output(2)));
    })
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kFp32);

// The backward of cross entropy is linear in grad_output, and through
// softmax(x) a function of the input:
//   grad_input[i] = s_i (p_i a_i - b_i), s_i = grad_output_i / divisor
//   a_i = (1 - eps) w_t + eps W / C, b_ic = (1 - eps) w_t [c = t] + eps w_c / C
// so d grad_input . gg = sum_c gg_ic (p_ic a_i - b_ic) s_i / g_i dg_i
//   + s_i a_i p_i (gg_i - <gg_i, p_i>) dx_i.
TensorList SoftmaxCrossEntropyDoubleGrad(BackwardCtx& c) {
  namespace args = arg::_softmax_cross_entropy_backward;
  TensorImplPtr gg = c.grad();
  TensorImplPtr g = c.get(args::grad_output), x = c.get(args::input), target = c.get(args::target);
  TensorImplPtr weight = SavedOrNull(c, args::weight);
  const std::string reduction = c.get(args::reduction);
  const int64_t ignore = c.get(args::ignore_index);
  const double eps = c.get(args::label_smoothing);
  TensorImplPtr lse = c.get(args::lse), total = c.get(args::total_weight);
  const int64_t classes = x->shape()[1];
  TensorImplPtr gg_g, gg_x;
  if (c.needs_grad[0]) {
    // grad_input per unit of grad_output.
    TensorImplPtr ones = Full(g->shape(), Scalar::Int(1), g->dtype(), g->device());
    TensorImplPtr unit = ops::_softmax_cross_entropy_backward(ones, x, target, weight, reduction,
                                                              ignore, eps, lse, total);
    TensorImplPtr prod = Mul(gg, unit);
    gg_g = reduction == "none" ? ops::sum_dim(prod, DimVector{1}, false) : ops::sum(prod);
  }
  if (c.needs_grad[1]) {
    TensorImplPtr counted = ops::ne(target, Int(ignore));
    TensorImplPtr safe_target = Where(counted, target, Int(0));
    TensorImplPtr wt = weight ? ops::index_select(weight, 0, safe_target)
                              : Full(lse->shape(), Scalar::Int(1), lse->dtype(), lse->device());
    TensorImplPtr a = Mul(wt, Num(1 - eps));
    if (eps > 0) {
      // + eps W / C, W the sum of the weights (C without weights).
      a = weight ? Add(a, Mul(ops::sum(weight), Num(eps / classes))) : Add(a, Num(eps));
    }
    TensorImplPtr s = reduction == "none" ? g : ops::expand(g, lse->shape());
    if (reduction == "mean") s = Div(s, total);
    s = Where(counted, Mul(s, a), Num(0));
    TensorImplPtr p = ops::exp(Sub(x, ops::unsqueeze(lse, 1)));
    TensorImplPtr dot = ops::sum_dim(Mul(gg, p), DimVector{1}, true);
    gg_x = Mul(Mul(ops::unsqueeze(s, 1), p), Sub(gg, dot));
  }
  TensorList out(c.needs_grad.size());
  out[0] = gg_g;
  out[1] = gg_x;
  return out;
}

OF_OP(
    "_softmax_cross_entropy_backward(Tensor grad_output, Tensor input, Tensor target, Tensor? "
    "weight, str reduction, int ignore_index, float label_smoothing, Tensor lse, Tensor "
    "total_weight) -> Tensor")
    .Infer([](OpCall& call) {
      const TensorImplPtr& x = call.tensor(arg::_softmax_cross_entropy_backward::input);
      call.compute_dtype = x->dtype();
      call.out_meta = {{x->shape(), x->dtype()}};
    })
    .Backward(SoftmaxCrossEntropyDoubleGrad)
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kNone);

OF_OP(
    "_nll_loss(Tensor input, Tensor target, Tensor? weight, str reduction, int ignore_index) -> "
    "(Tensor, Tensor)")
    .Infer(InferClassLoss)
    .Backward([](BackwardCtx& c) -> TensorList {
      if (!c.needs_grad[0]) return OnlyFirst(c, nullptr);
      namespace a = arg::_nll_loss;
      return OnlyFirst(c, ops::_nll_loss_backward(c.grad(0), c.get(a::input), c.get(a::target),
                                                  SavedOrNull(c, a::weight), c.get(a::reduction),
                                                  c.get(a::ignore_index), c.output(1)));
    })
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kFp32);

// grad_input is linear in grad_output and independent of the input: its
// gradient along gg is nll_loss of gg itself.
OF_OP(
    "_nll_loss_backward(Tensor grad_output, Tensor input, Tensor target, Tensor? weight, str "
    "reduction, int ignore_index, Tensor total_weight) -> Tensor")
    .Infer([](OpCall& call) {
      const TensorImplPtr& x = call.tensor(arg::_nll_loss_backward::input);
      call.compute_dtype = x->dtype();
      call.out_meta = {{x->shape(), x->dtype()}};
    })
    .Backward([](BackwardCtx& c) -> TensorList {
      namespace a = arg::_nll_loss_backward;
      TensorImplPtr gg;
      if (c.needs_grad[0]) {
        gg = ops::_nll_loss(c.grad(), c.get(a::target), SavedOrNull(c, a::weight),
                            c.get(a::reduction), c.get(a::ignore_index))[0];
      }
      return OnlyFirst(c, gg);
    })
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kNone);

// ---- binary cross entropy ---------------------------------------------------

void CheckSameSize(const TensorImplPtr& input, const TensorImplPtr& target, const char* op,
                   bool deprecated_wording) {
  if (input->shape() == target->shape()) return;
  if (deprecated_wording) {
    OF_THROW(ValueError, op, "(): Using a target size (", ShapeToString(target->shape()),
             ") that is different to the input size (", ShapeToString(input->shape()),
             ") is deprecated. Please ensure they have the same size.");
  }
  OF_THROW(ValueError, op, "(): Target size (", ShapeToString(target->shape()),
           ") must be the same as input size (", ShapeToString(input->shape()), ")");
}

void BinaryCrossEntropy(OpCall& call) {
  namespace a = arg::binary_cross_entropy;
  Reduction r = ParseReduction(call.get(a::reduction), "binary_cross_entropy");
  const TensorImplPtr& x = call.tensor(a::input);
  const TensorImplPtr& t = call.tensor(a::target);
  CheckSameSize(x, t, "binary_cross_entropy", true);
  TensorImplPtr loss = ops::_binary_cross_entropy(x, t);
  if (call.has(a::weight)) loss = Mul(loss, call.tensor(a::weight));
  call.outputs = {Reduce(loss, r)};
}
OF_OP(
    "binary_cross_entropy(Tensor input, Tensor target, Tensor? weight=None, str "
    "reduction='mean') -> Tensor")
    .Composite(BinaryCrossEntropy)
    .Sbp(sbp::Family("pointwise_loss"))
    // PyTorch refuses it under CUDA autocast: the sigmoid-then-log it implies is
    // unsafe in float16; binary_cross_entropy_with_logits is the safe alternative.
    .Autocast(amp::kFp32, amp::kBanned);

// Elementwise -(t log x + (1 - t) log(1 - x)) with each log clamped at -100.
// The gradients are PyTorch's: (x - t) / max(x (1 - x), 1e-12) for the input
// (not the clamped logs' derivative) and log(1 - x) - log(x) for the target.
void InferBinaryCrossEntropy(OpCall& call) {
  InferElementwise(call);
  OF_CHECK(IsFloatingPoint(call.compute_dtype), RuntimeError,
           "binary_cross_entropy(): expected floating point input and target, got ",
           DTypeName(call.compute_dtype));
}
OF_OP("_binary_cross_entropy(Tensor input, Tensor target) -> Tensor")
    .Infer(InferBinaryCrossEntropy)
    .Backward([](BackwardCtx& c) -> TensorList {
      TensorImplPtr g = c.grad(), x = c.get(arg::_binary_cross_entropy::input),
                    t = c.get(arg::_binary_cross_entropy::target);
      TensorImplPtr gx, gt;
      if (c.needs_grad[0]) {
        TensorImplPtr denom =
            ops::clamp(Mul(x, Sub(Num(1), x)), Scalar::Float(1e-12), std::nullopt);
        gx = Div(Mul(g, Sub(x, t)), denom);
      }
      if (c.needs_grad[1]) {
        gt = Mul(g, Sub(ops::log(Sub(Num(1), x)), ops::log(x)));
      }
      return {gx, gt};
    })
    .Sbp(sbp::Elementwise())
    .Autocast(amp::kFp32, amp::kNone)
    .Traits(kElementwise);

// (1 - t) x - (1 + (pw - 1) t) logsigmoid(x), times weight.
void BinaryCrossEntropyWithLogits(OpCall& call) {
  namespace a = arg::binary_cross_entropy_with_logits;
  Reduction r = ParseReduction(call.get(a::reduction), "binary_cross_entropy_with_logits");
  const TensorImplPtr& x = call.tensor(a::input);
  const TensorImplPtr& t = call.tensor(a::target);
  CheckSameSize(x, t, "binary_cross_entropy_with_logits", false);
  OF_CHECK(IsFloatingPoint(t->dtype()), RuntimeError,
           "binary_cross_entropy_with_logits(): expected a floating-point target, got ",
           DTypeName(t->dtype()));
  TensorImplPtr log_sig = ops::logsigmoid(x);
  TensorImplPtr coef = call.has(a::pos_weight)
                           ? Add(Mul(Sub(call.tensor(a::pos_weight), Num(1)), t), Num(1))
                           : nullptr;
  TensorImplPtr loss = Sub(Mul(Sub(Num(1), t), x), coef ? Mul(coef, log_sig) : log_sig);
  if (call.has(a::weight)) loss = Mul(loss, call.tensor(a::weight));
  // PyTorch builds the loss in place on (1 - target), so it keeps the target's
  // dtype whatever the dtypes of input, weight and pos_weight.
  if (loss->dtype() != t->dtype()) loss = ops::_to_dtype(loss, t->dtype(), false);
  call.outputs = {Reduce(loss, r)};
}
OF_OP(
    "binary_cross_entropy_with_logits(Tensor input, Tensor target, Tensor? weight=None, Tensor? "
    "pos_weight=None, str reduction='mean') -> Tensor")
    .Composite(BinaryCrossEntropyWithLogits)
    .Sbp(sbp::Family("pointwise_loss"))
    .Autocast(amp::kFp32);

// ---- regression losses ------------------------------------------------------
//
// mse, l1, smooth_l1 and huber are functions of d = input - target, computed
// by one fused elementwise op (input and target broadcast, as in PyTorch,
// which warns when the sizes differ); its gradient is one fused op as well,
// grad * f'(d) for the input and its negation for the target.

// An elementwise loss times an optional weight of the input's size. Weighted
// 'mean' divides by the sum of the weights for mse and l1, by the element
// count for huber, as PyTorch does. `weight_arg`: the index of the weight
// argument, -1 for a loss without one.
TensorImplPtr WeightedReduce(const OpCall& call, const TensorImplPtr& loss, Reduction r,
                             int weight_arg, bool mean_over_weights) {
  if (weight_arg < 0 || !call.has(weight_arg)) return Reduce(loss, r);
  const TensorImplPtr& w = call.tensor(weight_arg);
  const TensorImplPtr& x = call.tensor(arg::mse_loss::input);
  OF_CHECK(w->shape() == x->shape(), ValueError, call.name(),
           "(): Weights and input must have the same size (weight ", ShapeToString(w->shape()),
           ", input ", ShapeToString(x->shape()), ").");
  TensorImplPtr weighted = Mul(loss, w);
  if (r == Reduction::kMean && mean_over_weights) {
    return Div(ops::sum(weighted), ops::sum(w));
  }
  return Reduce(weighted, r);
}

// (input, target, reduction, [param], [weight]) -> the reduced pointwise loss.
// mse_loss, l1_loss, smooth_l1_loss and huber_loss share the indices of input,
// target and reduction.
void RegressionLoss(OpCall& call, const char* kind, double param, int weight_arg,
                    bool mean_over_weights) {
  Reduction r = ParseReduction(call.get(arg::mse_loss::reduction), call.name().c_str());
  TensorImplPtr loss = ops::_pointwise_loss(call.tensor(arg::mse_loss::input),
                                            call.tensor(arg::mse_loss::target), kind, param);
  call.outputs = {WeightedReduce(call, loss, r, weight_arg, mean_over_weights)};
}

OF_OP("mse_loss(Tensor input, Tensor target, str reduction='mean', Tensor? weight=None) -> Tensor")
    .Composite([](OpCall& call) { RegressionLoss(call, "mse", 0, arg::mse_loss::weight, true); })
    .Sbp(sbp::Family("pointwise_loss"))
    .Autocast(amp::kFp32);
OF_OP("l1_loss(Tensor input, Tensor target, str reduction='mean', Tensor? weight=None) -> Tensor")
    .Composite([](OpCall& call) { RegressionLoss(call, "l1", 0, arg::l1_loss::weight, true); })
    .Sbp(sbp::Family("pointwise_loss"))
    .Autocast(amp::kFp32);
// |d| < beta ? d^2 / (2 beta) : |d| - beta / 2 (l1 for beta = 0).
OF_OP("smooth_l1_loss(Tensor input, Tensor target, str reduction='mean', float beta=1.0) -> Tensor")
    .Composite([](OpCall& call) {
      double beta = call.get(arg::smooth_l1_loss::beta);
      OF_CHECK(beta >= 0, RuntimeError,
               "smooth_l1_loss(): smooth_l1_loss does not support negative values for beta, got ",
               beta);
      RegressionLoss(call, beta == 0 ? "l1" : "smooth_l1", beta, -1, false);
    })
    .Sbp(sbp::Family("pointwise_loss"))
    .Autocast(amp::kFp32);
// |d| < delta ? d^2 / 2 : delta (|d| - delta / 2).
OF_OP(
    "huber_loss(Tensor input, Tensor target, str reduction='mean', float delta=1.0, Tensor? "
    "weight=None) -> Tensor")
    .Composite([](OpCall& call) {
      double delta = call.get(arg::huber_loss::delta);
      OF_CHECK(delta > 0, RuntimeError,
               "huber_loss(): huber_loss does not support non-positive values for delta, got ",
               delta);
      RegressionLoss(call, "huber", delta, arg::huber_loss::weight, false);
    })
    .Sbp(sbp::Family("pointwise_loss"))
    .Autocast(amp::kFp32);

void InferPointwiseLoss(OpCall& call) {
  InferElementwise(call);
  OF_CHECK(IsFloatingPoint(call.compute_dtype), RuntimeError, call.name(),
           "(): expected floating point input and target, got ", DTypeName(call.compute_dtype));
}

OF_OP("_pointwise_loss(Tensor input, Tensor target, str kind, float param=0) -> Tensor")
    .Infer(InferPointwiseLoss)
    .Backward([](BackwardCtx& c) -> TensorList {
      namespace a = arg::_pointwise_loss;
      TensorImplPtr gx = ops::_pointwise_loss_backward(c.grad(), c.get(a::input), c.get(a::target),
                                                       c.get(a::kind), c.get(a::param));
      return {c.needs_grad[0] ? gx : nullptr, c.needs_grad[1] ? Neg(gx) : nullptr};
    })
    .Sbp(sbp::Elementwise())
    .Autocast(amp::kFp32)
    .Traits(kElementwise);

// grad * f'(input - target). Linear in grad; its derivative in the input is
// grad f''(d) (2 for mse, 1 / beta inside smooth_l1's quadratic zone, 1 inside
// huber's, 0 elsewhere and for l1), and the negation of that in the target.
OF_OP(
    "_pointwise_loss_backward(Tensor grad, Tensor input, Tensor target, str kind, float param=0) "
    "-> Tensor")
    .Infer(InferPointwiseLoss)
    .Backward([](BackwardCtx& c) -> TensorList {
      namespace a = arg::_pointwise_loss_backward;
      TensorImplPtr gg = c.grad(), g = c.get(a::grad), x = c.get(a::input), t = c.get(a::target);
      const std::string kind = c.get(a::kind);
      const double param = c.get(a::param);
      TensorImplPtr d_grad, d_x;
      if (c.needs_grad[0]) {
        d_grad = ops::_pointwise_loss_backward(gg, x, t, kind, param);
      }
      if (c.needs_grad[1] || c.needs_grad[2]) {
        TensorImplPtr second;
        if (kind == "mse") {
          second = Mul(Mul(gg, g), Num(2));
        } else if (kind == "l1") {
          second = ZerosLike(gg);
        } else {
          TensorImplPtr inside = ops::lt(ops::abs(Sub(x, t)), Num(param));
          double scale = kind == "smooth_l1" ? 1 / param : 1;
          second = Where(inside, Mul(Mul(gg, g), Num(scale)), Num(0));
        }
        d_x = second;
      }
      return {d_grad, c.needs_grad[1] ? d_x : nullptr, c.needs_grad[2] && d_x ? Neg(d_x) : nullptr};
    })
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kNone);

// target (log target - input), with 0 log 0 = 0; 'batchmean' divides the sum
// by the batch size.
void KlDiv(OpCall& call) {
  const std::string name = call.get(arg::kl_div::reduction);
  const bool batchmean = name == "batchmean";
  Reduction r = batchmean ? Reduction::kSum : ParseReduction(name, "kl_div");
  const TensorImplPtr& x = call.tensor(arg::kl_div::input);
  const TensorImplPtr& t = call.tensor(arg::kl_div::target);
  TensorImplPtr loss;
  if (call.get(arg::kl_div::log_target)) {
    loss = Mul(ops::exp(t), Sub(t, x));
  } else {
    // xlogy(t, t): 0 where t == 0, NaN for t < 0. t log t is selected away at
    // t == 0, not computed from a safe log: its zero gradient there then meets
    // log(0) = -inf and 0 / 0, so the target gradient is NaN at t == 0, as
    // PyTorch's (xlogy's derivative in its second argument is t / t).
    TensorImplPtr zero = ops::eq(t, Num(0));
    TensorImplPtr tlogt = Where(zero, Num(0), Mul(t, ops::log(t)));
    loss = Sub(tlogt, Mul(t, x));
  }
  TensorImplPtr out = Reduce(loss, r);
  if (batchmean && x->ndim() > 0) out = Div(out, Num(static_cast<double>(x->shape()[0])));
  call.outputs = {out};
}
OF_OP(
    "kl_div(Tensor input, Tensor target, str reduction='mean', *, bool log_target=False) -> "
    "Tensor")
    .Composite(KlDiv)
    .Sbp(sbp::Family("pointwise_loss"))
    .Autocast(amp::kFp32);

// ---- ranking and embedding losses -------------------------------------------

// max(0, -y (x1 - x2) + margin).
void MarginRankingLoss(OpCall& call) {
  namespace a = arg::margin_ranking_loss;
  Reduction r = ParseReduction(call.get(a::reduction), "margin_ranking_loss");
  const TensorImplPtr &x1 = call.tensor(a::input1), &x2 = call.tensor(a::input2),
                      &y = call.tensor(a::target);
  OF_CHECK(x1->ndim() == x2->ndim() && x2->ndim() == y->ndim(), RuntimeError,
           "margin_ranking_loss(): All input tensors should have same dimension but got sizes: "
           "input1: ",
           ShapeToString(x1->shape()), ", input2: ", ShapeToString(x2->shape()),
           ", target: ", ShapeToString(y->shape()));
  TensorImplPtr m = Add(Neg(Mul(y, Sub(x1, x2))), Num(call.get(a::margin)));
  call.outputs = {Reduce(ops::clamp(m, Scalar::Int(0), std::nullopt), r)};
}
OF_OP(
    "margin_ranking_loss(Tensor input1, Tensor input2, Tensor target, float margin=0.0, str "
    "reduction='mean') -> Tensor")
    .Composite(MarginRankingLoss)
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kFp32);

// max(0, margin + d(a, p) - d(a, n)) with d the p-norm distance; `swap` uses
// min(d(a, n), d(p, n)).
void TripletMarginLoss(OpCall& call) {
  namespace args = arg::triplet_margin_loss;
  Reduction r = ParseReduction(call.get(args::reduction), "triplet_margin_loss");
  const TensorImplPtr &a = call.tensor(args::anchor), &p = call.tensor(args::positive),
                      &n = call.tensor(args::negative);
  OF_CHECK(a->ndim() == p->ndim() && p->ndim() == n->ndim(), RuntimeError,
           "triplet_margin_loss(): The anchor, positive, and negative tensors are expected to have "
           "the same number of dimensions, but got: anchor ",
           a->ndim(), "D, positive ", p->ndim(), "D, and negative ", n->ndim(), "D inputs");
  double norm = call.get(args::p), eps = call.get(args::eps);
  auto dist = [&](const TensorImplPtr& u, const TensorImplPtr& v) {
    return ops::pairwise_distance(u, v, norm, eps, false);
  };
  TensorImplPtr d_pos = dist(a, p), d_neg = dist(a, n);
  if (call.get(args::swap)) d_neg = ops::minimum(d_neg, dist(p, n));
  TensorImplPtr m = Add(Sub(d_pos, d_neg), Num(call.get(args::margin)));
  call.outputs = {Reduce(ops::clamp(m, Scalar::Int(0), std::nullopt), r)};
}
OF_OP(
    "triplet_margin_loss(Tensor anchor, Tensor positive, Tensor negative, float margin=1.0, "
    "float p=2, float eps=1e-06, bool swap=False, str reduction='mean') -> Tensor")
    .Composite(TripletMarginLoss)
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kFp32);

// 1 - cos(x1, x2) where y == 1, max(0, cos - margin) where y == -1, with
// PyTorch's cos = <x1, x2> / sqrt((|x1|^2 + 1e-12) (|x2|^2 + 1e-12)).
void CosineEmbeddingLoss(OpCall& call) {
  namespace a = arg::cosine_embedding_loss;
  Reduction r = ParseReduction(call.get(a::reduction), "cosine_embedding_loss");
  const TensorImplPtr &x1 = call.tensor(a::input1), &x2 = call.tensor(a::input2),
                      &y = call.tensor(a::target);
  OF_CHECK(y->ndim() <= 1, RuntimeError,
           "cosine_embedding_loss(): 0D or 1D target tensor expected, multi-target not supported "
           "(target ",
           ShapeToString(y->shape()), ")");
  const int64_t want = y->ndim() + 1;
  OF_CHECK(x1->ndim() == want && x2->ndim() == want, RuntimeError,
           "cosine_embedding_loss(): ", y->ndim(), "D target tensor expects ", want,
           "D input tensors, but found inputs with sizes ", ShapeToString(x1->shape()), " and ",
           ShapeToString(x2->shape()), ".");
  const int64_t dim = y->ndim();
  auto sum = [&](const TensorImplPtr& t) { return ops::sum_dim(t, DimVector{dim}, false); };
  TensorImplPtr dot = sum(Mul(x1, x2));
  TensorImplPtr m1 = Add(sum(Mul(x1, x1)), Num(1e-12));
  TensorImplPtr m2 = Add(sum(Mul(x2, x2)), Num(1e-12));
  TensorImplPtr cos = Div(dot, ops::sqrt(Mul(m1, m2)));
  TensorImplPtr pos = Sub(Num(1), cos);
  TensorImplPtr neg = ops::clamp(Sub(cos, Num(call.get(a::margin))), Scalar::Int(0), std::nullopt);
  TensorImplPtr zeros = ZerosLike(cos);
  TensorImplPtr loss =
      Add(Where(ops::eq(y, Num(1)), pos, zeros), Where(ops::eq(y, Num(-1)), neg, zeros));
  call.outputs = {Reduce(loss, r)};
}
OF_OP(
    "cosine_embedding_loss(Tensor input1, Tensor input2, Tensor target, float margin=0.0, str "
    "reduction='mean') -> Tensor")
    .Composite(CosineEmbeddingLoss)
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kFp32);

// ---- ctc_loss ---------------------------------------------------------------

// log_probs (T, N, C) or (T, C); targets (N, S) padded, or the targets of the
// batch concatenated (1-D); one length per sample. 'mean' divides each loss by
// its target length first.
void CtcLoss(OpCall& call) {
  namespace a = arg::ctc_loss;
  Reduction r = ParseReduction(call.get(a::reduction), "ctc_loss");
  TensorImplPtr lp = call.tensor(a::log_probs), targets = call.tensor(a::targets);
  const bool batched = lp->ndim() == 3;
  OF_CHECK(lp->ndim() == 3 || lp->ndim() == 2, RuntimeError,
           "ctc_loss(): log_probs must be (T, N, C) or (T, C), got ", ShapeToString(lp->shape()));
  if (!batched) {
    lp = ops::unsqueeze(lp, 1);
    targets = ops::unsqueeze(targets, 0);
  }
  const bool zero_infinity = call.get(a::zero_infinity);
  TensorImplPtr nll =
      ops::_ctc_loss(lp, targets, call.get(a::input_lengths), call.get(a::target_lengths),
                     call.get(a::blank), zero_infinity)[0];
  if (zero_infinity) {
    nll = Where(ops::eq(nll, Num(INFINITY)), Num(0), nll);
  }
  if (r == Reduction::kMean) {
    DimVector lengths = call.get(a::target_lengths);
    for (int64_t& l : lengths) l = l < 1 ? 1 : l;
    TensorImplPtr divisor =
        TensorImpl::Empty({static_cast<int64_t>(lengths.size())}, DType::kInt64, nll->device());
    std::copy(lengths.begin(), lengths.end(), reinterpret_cast<int64_t*>(divisor->data()));
    nll = ops::mean(Div(nll, divisor));
  } else if (r == Reduction::kSum) {
    nll = ops::sum(nll);
  } else if (!batched) {
    nll = ops::reshape(nll, DimVector{});
  }
  call.outputs = {nll};
}
OF_OP(
    "ctc_loss(Tensor log_probs, Tensor targets, int[] input_lengths, int[] target_lengths, int "
    "blank=0, str reduction='mean', bool zero_infinity=False) -> Tensor")
    .Composite(CtcLoss)
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kFp32, amp::kNone);

// Forward: the negative log-likelihood per sample and the alpha table
// (N, T, 2 S + 1) in log space, which backward reuses.
OF_OP(
    "_ctc_loss(Tensor log_probs, Tensor targets, int[] input_lengths, int[] target_lengths, int "
    "blank, bool zero_infinity) -> (Tensor, Tensor)")
    .Infer([](OpCall& call) {
      namespace a = arg::_ctc_loss;
      const TensorImplPtr& lp = call.tensor(a::log_probs);
      const TensorImplPtr& targets = call.tensor(a::targets);
      const DimVector& in_len = call.args[a::input_lengths].int_list();
      const DimVector& tg_len = call.args[a::target_lengths].int_list();
      const int64_t steps = lp->shape()[0], batch = lp->shape()[1], classes = lp->shape()[2];
      OF_CHECK(IsFloatingPoint(lp->dtype()), RuntimeError,
               "ctc_loss(): log_probs must be a floating point tensor, got ",
               DTypeName(lp->dtype()));
      OF_CHECK(targets->dtype() == DType::kInt64 || targets->dtype() == DType::kInt32, RuntimeError,
               "ctc_loss(): targets must be int64 or int32, got ", DTypeName(targets->dtype()));
      OF_CHECK(static_cast<int64_t>(in_len.size()) == batch, RuntimeError,
               "ctc_loss(): input_lengths must be of size batch_size (", batch, "), got ",
               in_len.size());
      OF_CHECK(static_cast<int64_t>(tg_len.size()) == batch, RuntimeError,
               "ctc_loss(): target_lengths must be of size batch_size (", batch, "), got ",
               tg_len.size());
      int64_t blank = call.get(a::blank);
      OF_CHECK(blank >= 0 && blank < classes, RuntimeError,
               "ctc_loss(): blank must be in label range [0, ", classes, "), got ", blank);
      int64_t max_target = 0, total = 0;
      for (int64_t b = 0; b < batch; ++b) {
        OF_CHECK(in_len[b] >= 0 && in_len[b] <= steps, RuntimeError,
                 "ctc_loss(): Expected input_lengths to have value at most ", steps,
                 ", but got value ", in_len[b], " (log_probs ", ShapeToString(lp->shape()), ")");
        OF_CHECK(tg_len[b] >= 0, RuntimeError, "ctc_loss(): target_lengths must be >= 0, got ",
                 tg_len[b]);
        max_target = std::max(max_target, tg_len[b]);
        total += tg_len[b];
      }
      if (targets->ndim() == 2) {
        OF_CHECK(targets->shape()[0] == batch, RuntimeError,
                 "ctc_loss(): padded targets must have batch_size (", batch, ") rows, got ",
                 ShapeToString(targets->shape()));
        OF_CHECK(max_target <= targets->shape()[1], RuntimeError,
                 "ctc_loss(): Expected tensor to have size at least ", max_target,
                 " at dimension 1, but got size ", targets->shape()[1],
                 " for argument #2 'targets' (targets ", ShapeToString(targets->shape()), ")");
      } else {
        OF_CHECK(targets->ndim() == 1 && targets->numel() >= total, RuntimeError,
                 "ctc_loss(): concatenated targets must be 1-D with at least ", total,
                 " elements (the sum of target_lengths), got ", ShapeToString(targets->shape()));
      }
      call.compute_dtype = lp->dtype();
      call.out_meta = {{{batch}, lp->dtype()}, {{batch, steps, 2 * max_target + 1}, lp->dtype()}};
    })
    .Backward([](BackwardCtx& c) -> TensorList {
      if (!c.needs_grad[0]) return {nullptr, nullptr};
      namespace a = arg::_ctc_loss;
      return {
          ops::_ctc_loss_backward(c.grad(0), c.get(a::log_probs), c.get(a::targets),
                                  c.get(a::input_lengths), c.get(a::target_lengths), c.output(0),
                                  c.output(1), c.get(a::blank), c.get(a::zero_infinity)),
          nullptr};
    })
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kFp32, amp::kNone);

// PyTorch's gradient: exp(lp) - exp(log(sum alpha beta) + nll - lp) per
// class, i.e. the gradient through a log_softmax that produced log_probs.
OF_OP(
    "_ctc_loss_backward(Tensor grad, Tensor log_probs, Tensor targets, int[] input_lengths, int[] "
    "target_lengths, Tensor neg_log_likelihood, Tensor log_alpha, int blank, bool zero_infinity) "
    "-> Tensor")
    .Infer([](OpCall& call) {
      const TensorImplPtr& lp = call.tensor(arg::_ctc_loss_backward::log_probs);
      call.compute_dtype = lp->dtype();
      call.out_meta = {{lp->shape(), lp->dtype()}};
    })
    .NonDifferentiable()
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kNone);

}  // namespace
}  // namespace defs
}  // namespace oneflow
