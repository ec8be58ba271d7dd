// Activation functions: declarations, argument checks and backward formulas.
// Kernels: ops/cpu/activation_kernels.cc.
//
// The pointwise activations differentiate through one fused op,
// activation_backward(grad, self, kind, p0, p1, p2) = grad * f'(self), so a
// backward pass reads each tensor once. `kind` names a formula family and
// p0..p2 its parameters (relu6 is hardtanh with (0, 6), selu and celu are elu
// with fixed scales, quick_gelu is silu with slope 1.702, ...); the kernels
// map the same names to their formulas. Double backward goes through
// activation_double_backward = grad * f''(self).

#include <string>
#include <vector>

#include "core/framework/type_promotion.h"
#include "ops/defs/common.h"

namespace oneflow {
namespace defs {
namespace {

constexpr double kSeluAlpha = 1.6732632423543772848170429916717;
constexpr double kSeluScale = 1.0507009873554804934193349852946;

// The formula family and parameters of an activation call.
struct ActSpec {
  std::string kind;
  double p0 = 0, p1 = 0, p2 = 0;
};

double S(const Value& v) { return v.scalar().d; }

// The spec of the gradient of forward op `op` called with `args`. elu's
// parameters are (the coefficient of exp(input_scale x) in f', scale,
// input_scale). PyTorch's celu gradient uses 1 / alpha with alpha rounded to
// float (also in float64): for celu in f' and the exponent, for celu_ (which
// differentiates through its result) in f' only; we follow it.
ActSpec SpecOf(const std::string& op, const std::vector<Value>& args) {
  const bool inplace = op.back() == '_';
  const std::string name = inplace ? op.substr(0, op.size() - 1) : op;
  if (name == "relu6") return {"hardtanh", 0, 6};
  // (An in-place twin has its functional op's argument indices.)
  if (name == "hardtanh") {
    return {"hardtanh", S(args[arg::hardtanh::min_val]), S(args[arg::hardtanh::max_val])};
  }
  if (name == "leaky_relu") return {"leaky_relu", S(args[arg::leaky_relu::negative_slope])};
  if (name == "elu") {
    const double alpha = S(args[arg::elu::alpha]), scale = S(args[arg::elu::scale]),
                 input_scale = S(args[arg::elu::input_scale]);
    return {"elu", input_scale * alpha * scale, scale, input_scale};
  }
  if (name == "selu") return {"elu", kSeluAlpha * kSeluScale, kSeluScale, 1};
  if (name == "celu") {
    double alpha = S(args[arg::celu::alpha]);
    double inv = 1 / static_cast<double>(static_cast<float>(alpha));
    return {"elu", inv * alpha, 1, inplace ? 1 / alpha : inv};
  }
  if (name == "gelu") return {"gelu", args[arg::gelu::approximate].str() == "tanh" ? 1.0 : 0.0};
  if (name == "quick_gelu") return {"silu", 1.702};
  if (name == "silu") return {"silu", 1};
  if (name == "hardshrink" || name == "softshrink") {
    return {name, S(args[arg::hardshrink::lambd])};  // softshrink: same index
  }
  if (name == "softplus") {
    return {"softplus", S(args[arg::softplus::beta]), S(args[arg::softplus::threshold])};
  }
  if (name == "threshold") {
    return {"threshold", S(args[arg::threshold::threshold]), S(args[arg::threshold::value])};
  }
  return {name};  // mish, hardswish, hardsigmoid, tanhshrink, softsign, logsigmoid
}

// Output = input's shape and dtype. Integer inputs reach the kernel, which
// refuses them with NotImplementedError (as PyTorch does) unless it has an
// integer formula (hardtanh, relu6, threshold).
void InferActivation(OpCall& call) {
  const TensorImplPtr& x = call.tensor(arg::relu6::self);  // self: 0 in every activation
  const std::string& name = call.name();
  if (name == "softshrink") {
    // (PyTorch allows hardshrink a negative lambda.)
    double l = call.get(arg::softshrink::lambd).d;
    OF_CHECK(l >= 0, RuntimeError, name,
             "(): lambda must be greater or equal to 0, but found to be ", l, ".");
  } else if (name == "celu" || name == "celu_") {
    OF_CHECK(call.get(arg::celu::alpha).d != 0, RuntimeError,  // celu_: same index
             "ZeroDivisionError: alpha cannot be 0 for CELU (op: ", name, ")");
  } else if (name == "gelu") {
    const std::string a = call.get(arg::gelu::approximate);
    OF_CHECK(a == "none" || a == "tanh", RuntimeError,
             "gelu(): approximate argument must be either none or tanh, got '", a, "'");
  }
  call.compute_dtype = x->dtype();
  // Laid out like the input (a channels_last input gives a channels_last output).
  call.out_meta = {{x->shape(), x->dtype(), ElementwiseOutputStrides({x.get()}, x->shape())}};
}

TensorList ActivationGrad(BackwardCtx& c) {
  if (!c.needs_grad[0]) return {nullptr};
  ActSpec s = SpecOf(c.op->schema().name, c.args);
  // self: 0 in every activation.
  return {ops::activation_backward(c.grad(), c.get(arg::relu6::self), s.kind, s.p0, s.p1, s.p2)};
}

// Each use adds its autocast class.
#define OF_ACTIVATION(schema)   \
  OF_OP(schema)                 \
      .Infer(InferActivation)   \
      .Backward(ActivationGrad) \
      .Sbp(sbp::Elementwise())  \
      .Traits(kElementwise)
#define OF_ACTIVATION_WITH_INPLACE(schema) \
  OF_OP_WITH_INPLACE(schema)               \
      .Infer(InferActivation)              \
      .Backward(ActivationGrad)            \
      .Sbp(sbp::Elementwise())             \
      .Traits(kElementwise)

OF_ACTIVATION_WITH_INPLACE("relu6(Tensor self) -> Tensor").Autocast(amp::kNone);
OF_ACTIVATION_WITH_INPLACE("hardtanh(Tensor self, Scalar min_val=-1, Scalar max_val=1) -> Tensor")
    .Autocast(amp::kNone);
OF_ACTIVATION_WITH_INPLACE("leaky_relu(Tensor self, Scalar negative_slope=0.01) -> Tensor")
    .Autocast(amp::kNone);
OF_ACTIVATION_WITH_INPLACE(
    "elu(Tensor self, Scalar alpha=1, Scalar scale=1, Scalar input_scale=1) -> Tensor")
    .Autocast(amp::kNone);
OF_ACTIVATION_WITH_INPLACE("selu(Tensor self) -> Tensor").Autocast(amp::kNone);
OF_ACTIVATION_WITH_INPLACE("celu(Tensor self, Scalar alpha=1.0) -> Tensor").Autocast(amp::kNone);
OF_ACTIVATION("gelu(Tensor self, *, str approximate='none') -> Tensor").Autocast(amp::kNone);
OF_ACTIVATION("quick_gelu(Tensor self) -> Tensor").Autocast(amp::kNone);
OF_ACTIVATION_WITH_INPLACE("silu(Tensor self) -> Tensor").Autocast(amp::kNone);
OF_ACTIVATION_WITH_INPLACE("mish(Tensor self) -> Tensor").Autocast(amp::kNone);
OF_ACTIVATION_WITH_INPLACE("hardswish(Tensor self) -> Tensor").Autocast(amp::kNone);
OF_ACTIVATION_WITH_INPLACE("hardsigmoid(Tensor self) -> Tensor").Autocast(amp::kNone);
OF_ACTIVATION("hardshrink(Tensor self, Scalar lambd=0.5) -> Tensor").Autocast(amp::kNone);
OF_ACTIVATION("softshrink(Tensor self, Scalar lambd=0.5) -> Tensor").Autocast(amp::kNone);
OF_ACTIVATION("tanhshrink(Tensor self) -> Tensor").Autocast(amp::kNone);
OF_ACTIVATION("softplus(Tensor self, Scalar beta=1, Scalar threshold=20) -> Tensor")
    .Autocast(amp::kNone, amp::kFp32);
OF_ACTIVATION("softsign(Tensor self) -> Tensor").Autocast(amp::kNone);
OF_ACTIVATION("logsigmoid(Tensor self) -> Tensor").Autocast(amp::kNone);
OF_ACTIVATION_WITH_INPLACE("threshold(Tensor self, Scalar threshold, Scalar value) -> Tensor")
    .Autocast(amp::kNone);

// grad * f'(self) and grad * f''(self): broadcast, promoted to a floating dtype.
void InferActivationBackward(OpCall& call) {
  InferElementwise(call);
  OF_CHECK(IsFloatingPoint(call.compute_dtype), RuntimeError, call.name(),
           "(): expected floating point tensors, got ", DTypeName(call.compute_dtype));
}

// The kind and parameters of activation_backward or activation_double_backward
// (same argument indices).
ActSpec KindArgs(BackwardCtx& c) {
  namespace a = arg::activation_backward;
  return {c.get(a::kind), c.get(a::p0), c.get(a::p1), c.get(a::p2)};
}

// d(g f'(x)) = f'(x) dg + g f''(x) dx.
OF_OP(
    "activation_backward(Tensor grad_output, Tensor self, str kind, float p0=0, float p1=0, "
    "float p2=0) -> Tensor")
    .Infer(InferActivationBackward)
    .Backward([](BackwardCtx& c) -> TensorList {
      namespace a = arg::activation_backward;
      TensorImplPtr gg = c.grad(), x = c.get(a::self);
      const ActSpec s = KindArgs(c);
      return {c.needs_grad[0] ? ops::activation_backward(gg, x, s.kind, s.p0, s.p1, s.p2) : nullptr,
              c.needs_grad[1] ? ops::activation_double_backward(Mul(gg, c.get(a::grad_output)), x,
                                                                s.kind, s.p0, s.p1, s.p2)
                              : nullptr};
    })
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kNone);

// Third derivatives are not provided: asking for one is an error rather than a
// silently missing term.
OF_OP(
    "activation_double_backward(Tensor grad_output, Tensor self, str kind, float p0=0, float "
    "p1=0, float p2=0) -> Tensor")
    .Infer(InferActivationBackward)
    .Backward([](BackwardCtx& c) -> TensorList {
      namespace a = arg::activation_double_backward;
      OF_CHECK(!c.needs_grad[1], NotImplementedError, "the third derivative of activation '",
               c.get(a::kind), "' is not implemented");
      const ActSpec s = KindArgs(c);
      return {c.needs_grad[0] ? ops::activation_double_backward(c.grad(), c.get(a::self), s.kind,
                                                                s.p0, s.p1, s.p2)
                              : nullptr,
              nullptr};
    })
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kNone);

// ---- prelu ------------------------------------------------------------------

// prelu(x, w) = x > 0 ? x : w * x with one weight, or one per channel (dim 1).
void InferPrelu(OpCall& call) {
  const TensorImplPtr& x = call.tensor(arg::prelu::self);
  const TensorImplPtr& w = call.tensor(arg::prelu::weight);
  OF_CHECK(w->ndim() <= 1, RuntimeError,
           "prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = ", w->ndim());
  if (w->numel() != 1) {
    OF_CHECK(x->ndim() > 0, RuntimeError, "prelu(): Not allow zero-dim input tensor.");
    int64_t channels = x->ndim() > 1 ? x->shape()[1] : 1;
    OF_CHECK(channels == w->numel(), RuntimeError,
             "prelu(): Mismatch of parameter numbers and input channel size. Found parameter "
             "numbers = ",
             w->numel(), " and channel size = ", channels, " (input ", ShapeToString(x->shape()),
             ", weight ", ShapeToString(w->shape()), ").");
  }
  OF_CHECK(x->dtype() == w->dtype(), RuntimeError,
           "prelu(): expected input and weight to have the same dtype, but got ",
           DTypeName(x->dtype()), " and ", DTypeName(w->dtype()));
  call.compute_dtype = x->dtype();
  call.out_meta = {{x->shape(), x->dtype()}};
}

// The weight shaped to broadcast against x: (1, C, 1, ...) per channel.
TensorImplPtr BroadcastWeight(const TensorImplPtr& w, const TensorImplPtr& x) {
  if (w->numel() == 1 || x->ndim() < 2) return ops::reshape(w, DimVector{});
  DimVector shape(x->ndim(), 1);
  shape[1] = w->numel();
  return ops::reshape(w, shape);
}

OF_OP("prelu(Tensor self, Tensor weight) -> Tensor")
    .Infer(InferPrelu)
    .Backward([](BackwardCtx& c) -> TensorList {
      TensorImplPtr g = c.grad(), x = c.get(arg::prelu::self), w = c.get(arg::prelu::weight);
      TensorImplPtr positive = ops::gt(x, Num(0));
      TensorImplPtr wb = BroadcastWeight(w, x);
      TensorImplPtr gx, gw;
      if (c.needs_grad[0]) gx = ops::where(positive, g, Mul(g, wb));
      if (c.needs_grad[1]) {
        TensorImplPtr per = ops::where(positive, Num(0), Mul(g, x));
        gw = ops::reshape(ops::sum_to_size(per, wb->shape()), w->shape());
      }
      return {gx, gw};
    })
    .Sbp(sbp::Family("prelu"))
    .Autocast(amp::kLower);

// ---- glu --------------------------------------------------------------------

// glu(x, dim) = a * sigmoid(b) for the two halves a, b of x along dim.
void InferGlu(OpCall& call) {
  const TensorImplPtr& x = call.tensor(arg::glu::self);
  OF_CHECK(x->ndim() > 0, RuntimeError,
           "glu(): glu does not support scalars because halving size must be even");
  int64_t dim = WrapDim(call.get(arg::glu::dim), x->ndim());
  OF_CHECK(x->shape()[dim] % 2 == 0, RuntimeError,
           "glu(): Halving dimension must be even, but dimension ", dim, " is size ",
           x->shape()[dim], " (input ", ShapeToString(x->shape()), ")");
  DimVector shape = x->shape();
  shape[dim] /= 2;
  call.compute_dtype = x->dtype();
  call.out_meta = {{shape, x->dtype()}};
}

OF_OP("glu(Tensor self, int dim=-1) -> Tensor")
    .Infer(InferGlu)
    .Backward([](BackwardCtx& c) -> TensorList {
      TensorImplPtr x = c.get(arg::glu::self), g = c.grad();
      int64_t dim = WrapDim(c.get(arg::glu::dim), x->ndim());
      int64_t half = x->shape()[dim] / 2;
      TensorImplPtr a = ops::narrow(x, dim, 0, half);
      TensorImplPtr b = ops::narrow(x, dim, half, half);
      TensorImplPtr s = ops::sigmoid(b);
      TensorImplPtr ga = Mul(g, s);
      TensorImplPtr gb = Mul(Mul(ga, a), Sub(Num(1), s));
      return {ops::cat(TensorList{ga, gb}, dim)};
    })
    .Sbp(sbp::Family("along_dim"))
    .Autocast(amp::kNone);

}  // namespace
}  // namespace defs
}  // namespace oneflow
