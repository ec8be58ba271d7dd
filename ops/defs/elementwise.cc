// Elementwise math: declarations and backward formulas. Kernels: ops/cpu/elementwise_kernels.cc.

#include <cmath>

#include "ops/defs/common.h"

namespace oneflow {
namespace defs {
namespace {

constexpr double kPi = 3.14159265358979323846;

// Backward of an op whose gradient is g * f(x, out); x() is the op's self
// (arg::abs::self: the same index in every unary op).
#define OF_UNARY_GRAD(expr)                                          \
  [](BackwardCtx& c) -> TensorList {                                 \
    if (!c.needs_grad[0]) return {nullptr};                          \
    const TensorImplPtr g = c.grad();                                \
    [[maybe_unused]] auto x = [&] { return c.get(arg::abs::self); }; \
    [[maybe_unused]] auto out = [&] { return c.output(0); };         \
    return {expr};                                                   \
  }

// Float-valued unary ops (integers compute in the default float dtype). Each
// use adds its autocast class (and a linear op its partial-sum pattern).
#define OF_UNARY_FLOAT(name, grad_expr)               \
  OF_OP_WITH_INPLACE(#name "(Tensor self) -> Tensor") \
      .Infer(InferElementwiseFloat)                   \
      .Backward(OF_UNARY_GRAD(grad_expr))             \
      .Sbp(sbp::Elementwise())                        \
      .Traits(kElementwise)
// Unary ops that keep the input dtype.
#define OF_UNARY_SAME(name, grad_expr)                \
  OF_OP_WITH_INPLACE(#name "(Tensor self) -> Tensor") \
      .Infer(InferElementwise)                        \
      .Backward(OF_UNARY_GRAD(grad_expr))             \
      .Sbp(sbp::Elementwise())                        \
      .Traits(kElementwise)

OF_UNARY_SAME(abs, Mul(g, ops::sign(x()))).Autocast(amp::kNone);
OF_UNARY_SAME(neg, Neg(g)).Sbp(sbp::Elementwise("P")).Autocast(amp::kNone);
OF_UNARY_FLOAT(exp, Mul(g, out())).Autocast(amp::kNone, amp::kFp32);
OF_UNARY_FLOAT(expm1, Mul(g, Add(out(), Num(1)))).Autocast(amp::kNone, amp::kFp32);
OF_UNARY_FLOAT(log, Div(g, x())).Autocast(amp::kNone, amp::kFp32);
OF_UNARY_FLOAT(log1p, Div(g, Add(x(), Num(1)))).Autocast(amp::kNone, amp::kFp32);
OF_UNARY_FLOAT(log2, Div(g, Mul(x(), Num(std::log(2.0))))).Autocast(amp::kNone, amp::kFp32);
OF_UNARY_FLOAT(log10, Div(g, Mul(x(), Num(std::log(10.0))))).Autocast(amp::kNone, amp::kFp32);
OF_UNARY_FLOAT(sqrt, Div(g, Mul(out(), Num(2)))).Autocast(amp::kNone);
OF_UNARY_FLOAT(rsqrt, Mul(Mul(g, Num(-0.5)), ops::pow(out(), Num(3))))
    .Autocast(amp::kNone, amp::kFp32);
OF_UNARY_FLOAT(reciprocal, Neg(Mul(g, Mul(out(), out())))).Autocast(amp::kNone, amp::kFp32);
OF_UNARY_SAME(square, Mul(g, Mul(x(), Num(2)))).Autocast(amp::kNone);
OF_UNARY_FLOAT(sin, Mul(g, ops::cos(x()))).Autocast(amp::kNone);
OF_UNARY_FLOAT(cos, Neg(Mul(g, ops::sin(x())))).Autocast(amp::kNone);
OF_UNARY_FLOAT(tan, Mul(g, Add(Mul(out(), out()), Num(1)))).Autocast(amp::kNone, amp::kFp32);
OF_UNARY_FLOAT(asin, Div(g, ops::sqrt(Sub(Num(1), Mul(x(), x())))))
    .Autocast(amp::kNone, amp::kFp32);
OF_UNARY_FLOAT(acos, Neg(Div(g, ops::sqrt(Sub(Num(1), Mul(x(), x()))))))
    .Autocast(amp::kNone, amp::kFp32);
OF_UNARY_FLOAT(atan, Div(g, Add(Mul(x(), x()), Num(1)))).Autocast(amp::kNone);
OF_UNARY_FLOAT(sinh, Mul(g, ops::cosh(x()))).Autocast(amp::kNone, amp::kFp32);
OF_UNARY_FLOAT(cosh, Mul(g, ops::sinh(x()))).Autocast(amp::kNone, amp::kFp32);
OF_UNARY_FLOAT(tanh, Mul(g, Sub(Num(1), Mul(out(), out())))).Autocast(amp::kNone);
OF_UNARY_FLOAT(asinh, Div(g, ops::sqrt(Add(Mul(x(), x()), Num(1))))).Autocast(amp::kNone);
OF_UNARY_FLOAT(acosh, Div(g, ops::sqrt(Sub(Mul(x(), x()), Num(1))))).Autocast(amp::kNone);
OF_UNARY_FLOAT(atanh, Div(g, Sub(Num(1), Mul(x(), x())))).Autocast(amp::kNone);
OF_UNARY_FLOAT(sigmoid, Mul(g, Mul(out(), Sub(Num(1), out())))).Autocast(amp::kNone);
// where() rather than a product with the mask, so a NaN gradient at x <= 0 becomes 0 as in PyTorch.
// relu's gradient as PyTorch's threshold_backward(g, out, 0): out <= 0 ? 0 : g
// in one pass (a NaN output passes the gradient; a NaN gradient where relu is
// off does not).
OF_UNARY_SAME(relu, ops::activation_backward(g, out(), "threshold", 0.0, 0.0, 0.0))
    .Autocast(amp::kNone);
OF_UNARY_FLOAT(erf, Mul(g, Mul(Num(2.0 / std::sqrt(kPi)), ops::exp(Neg(Mul(x(), x()))))))
    .Autocast(amp::kNone);
OF_UNARY_FLOAT(erfc, Mul(g, Mul(Num(-2.0 / std::sqrt(kPi)), ops::exp(Neg(Mul(x(), x()))))))
    .Autocast(amp::kNone);
OF_UNARY_FLOAT(erfinv, Mul(g, Mul(Num(std::sqrt(kPi) / 2.0), ops::exp(Mul(out(), out())))))
    .Autocast(amp::kNone, amp::kFp32);
OF_UNARY_FLOAT(lgamma, Mul(g, ops::digamma(x()))).Autocast(amp::kNone);
OF_OP("digamma(Tensor self) -> Tensor")
    .Infer(InferElementwiseFloat)
    .Sbp(sbp::Elementwise())
    .Autocast(amp::kNone)
    .Traits(kElementwise);
OF_UNARY_SAME(floor, ZerosLike(g)).Autocast(amp::kNone);
OF_UNARY_SAME(ceil, ZerosLike(g)).Autocast(amp::kNone);
OF_UNARY_SAME(round, ZerosLike(g)).Autocast(amp::kNone);
OF_UNARY_SAME(trunc, ZerosLike(g)).Autocast(amp::kNone);
OF_UNARY_SAME(sign, ZerosLike(g)).Autocast(amp::kNone);
OF_OP("isnan(Tensor self) -> Tensor")
    .Infer(InferElementwiseBool)
    .NonDifferentiable()
    .Sbp(sbp::Elementwise())
    .Autocast(amp::kNone)
    .Traits(kElementwise);
OF_OP("isinf(Tensor self) -> Tensor")
    .Infer(InferElementwiseBool)
    .NonDifferentiable()
    .Sbp(sbp::Elementwise())
    .Autocast(amp::kNone)
    .Traits(kElementwise);
OF_OP("isfinite(Tensor self) -> Tensor")
    .Infer(InferElementwiseBool)
    .NonDifferentiable()
    .Sbp(sbp::Elementwise())
    .Autocast(amp::kNone)
    .Traits(kElementwise);

// Binary ops. Inputs are broadcast and promoted; OpNode sums gradients back to
// each input's shape and casts them to its dtype.
TensorList AddGrad(BackwardCtx& c, double sign) {
  TensorImplPtr g = c.grad();
  const Scalar alpha = c.get(arg::add::alpha);  // sub: same index
  TensorImplPtr gb;
  if (c.needs_grad[1]) {
    double a = sign * alpha.d;
    gb = a == 1.0 ? g : Mul(g, Num(a));
  }
  return {c.needs_grad[0] ? g : nullptr, gb};
}

OF_OP_WITH_INPLACE("add(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor")
    .Infer(InferElementwise)
    .Backward([](BackwardCtx& c) { return AddGrad(c, 1.0); })
    .Sbp(sbp::Elementwise("PP"))
    .Autocast(amp::kNone)
    .Traits(kElementwise);
OF_OP_WITH_INPLACE("sub(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor")
    .Infer(InferElementwise)
    .Backward([](BackwardCtx& c) { return AddGrad(c, -1.0); })
    .Sbp(sbp::Elementwise("PP"))
    .Autocast(amp::kNone)
    .Traits(kElementwise);
OF_OP_WITH_INPLACE("mul(Tensor self, Tensor other) -> Tensor")
    .Infer(InferElementwise)
    .Backward([](BackwardCtx& c) -> TensorList {
      TensorImplPtr g = c.grad();
      return {c.needs_grad[0] ? Mul(g, c.get(arg::mul::other)) : nullptr,
              c.needs_grad[1] ? Mul(g, c.get(arg::mul::self)) : nullptr};
    })
    .Sbp(sbp::Elementwise("PB BP"))
    .Autocast(amp::kNone)
    .Traits(kElementwise);

// True division computes in floats; with rounding_mode it keeps integer dtypes.
void InferDiv(OpCall& call) {
  const std::optional<std::string> rounding_mode = call.get(arg::div::rounding_mode);
  if (!rounding_mode) {
    InferElementwiseFloat(call);
  } else {
    const std::string& mode = *rounding_mode;
    OF_CHECK(mode == "trunc" || mode == "floor", RuntimeError,
             "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '", mode,
             "'");
    InferElementwise(call);
  }
}
OF_OP_WITH_INPLACE("div(Tensor self, Tensor other, *, str? rounding_mode=None) -> Tensor")
    .Infer(InferDiv)
    .Backward([](BackwardCtx& c) -> TensorList {
      if (c.get(arg::div::rounding_mode))
        return {c.needs_grad[0] ? ZerosLike(c.grad()) : nullptr,
                c.needs_grad[1] ? ZerosLike(c.grad()) : nullptr};
      TensorImplPtr g = c.grad();
      TensorImplPtr b = c.get(arg::div::other);
      return {c.needs_grad[0] ? Div(g, b) : nullptr,
              c.needs_grad[1] ? Neg(Div(Mul(g, c.get(arg::div::self)), Mul(b, b))) : nullptr};
    })
    .Sbp(sbp::Elementwise("PB"))
    .Autocast(amp::kNone)
    .Traits(kElementwise);
OF_OP_WITH_INPLACE("floor_divide(Tensor self, Tensor other) -> Tensor")
    .Infer(InferElementwise)
    .NonDifferentiable()
    .Sbp(sbp::Elementwise())
    .Autocast(amp::kNone)
    .Traits(kElementwise);
OF_OP_WITH_INPLACE("fmod(Tensor self, Tensor other) -> Tensor")
    .Infer(InferElementwise)
    .Backward([](BackwardCtx& c) -> TensorList {
      TensorImplPtr g = c.grad();
      TensorImplPtr q =
          ops::div(c.get(arg::fmod::self), c.get(arg::fmod::other), std::string("trunc"));
      return {c.needs_grad[0] ? g : nullptr, c.needs_grad[1] ? Neg(Mul(g, q)) : nullptr};
    })
    .Sbp(sbp::Elementwise())
    .Autocast(amp::kNone)
    .Traits(kElementwise);
OF_OP_WITH_INPLACE("remainder(Tensor self, Tensor other) -> Tensor")
    .Infer(InferElementwise)
    .Backward([](BackwardCtx& c) -> TensorList {
      TensorImplPtr g = c.grad();
      TensorImplPtr q =
          ops::div(c.get(arg::remainder::self), c.get(arg::remainder::other), std::string("floor"));
      return {c.needs_grad[0] ? g : nullptr, c.needs_grad[1] ? Neg(Mul(g, q)) : nullptr};
    })
    .Sbp(sbp::Elementwise())
    .Autocast(amp::kNone)
    .Traits(kElementwise);
OF_OP_WITH_INPLACE("pow(Tensor self, Tensor exponent) -> Tensor")
    .Infer(InferElementwise)
    .Backward([](BackwardCtx& c) -> TensorList {
      TensorImplPtr g = c.grad();
      TensorImplPtr a = c.get(arg::pow::self), b = c.get(arg::pow::exponent);
      TensorImplPtr ga, gb;
      if (c.needs_grad[0]) {
        // d/da a^b = b * a^(b-1); zero where b == 0 (avoids 0 * inf).
        ga = Mul(g, Mul(b, ops::pow(a, Sub(b, Num(1)))));
        ga = ops::where(ops::eq(b, Num(0)), Num(0), ga);
      }
      if (c.needs_grad[1]) {
        // d/db a^b = a^b * log(a); zero where a == 0 and b >= 0.
        gb = Mul(g, Mul(c.output(0), ops::log(a)));
        gb = ops::where(ops::logical_and(ops::eq(a, Num(0)), ops::ge(b, Num(0))), Num(0), gb);
      }
      return {ga, gb};
    })
    .Sbp(sbp::Elementwise())
    .Autocast(amp::kNone, amp::kFp32)
    .Traits(kElementwise);
OF_OP_WITH_INPLACE("atan2(Tensor self, Tensor other) -> Tensor")
    .Infer(InferElementwiseFloat)
    .Backward([](BackwardCtx& c) -> TensorList {
      TensorImplPtr g = c.grad();
      TensorImplPtr a = c.get(arg::atan2::self), b = c.get(arg::atan2::other);
      TensorImplPtr denom = Add(Mul(a, a), Mul(b, b));
      return {c.needs_grad[0] ? Div(Mul(g, b), denom) : nullptr,
              c.needs_grad[1] ? Div(Mul(g, Neg(a)), denom) : nullptr};
    })
    .Sbp(sbp::Elementwise())
    .Autocast(amp::kNone, amp::kPromote)
    .Traits(kElementwise);

// sqrt(a^2 + b^2) without overflow; d/da = a / out, d/db = b / out (NaN at
// (0, 0), as in PyTorch). Floating inputs only.
OF_OP_WITH_INPLACE("hypot(Tensor self, Tensor other) -> Tensor")
    .Infer(InferElementwise)
    .Backward([](BackwardCtx& c) -> TensorList {
      TensorImplPtr g = Div(c.grad(), c.output(0));
      return {c.needs_grad[0] ? Mul(g, c.get(arg::hypot::self)) : nullptr,
              c.needs_grad[1] ? Mul(g, c.get(arg::hypot::other)) : nullptr};
    })
    .Sbp(sbp::Elementwise())
    .Autocast(amp::kNone)
    .Traits(kElementwise);

// maximum/minimum: the gradient goes to the larger (smaller) input, split in
// half on ties, as in PyTorch.
// (maximum and minimum: same argument indices.)
TensorList MaxMinGrad(BackwardCtx& c,
                      TensorImplPtr (*cmp)(const ops::TensorArg&, const ops::TensorArg&)) {
  TensorImplPtr g = c.grad();
  TensorImplPtr a = c.get(arg::maximum::self), b = c.get(arg::maximum::other);
  TensorImplPtr a_wins = cmp(a, b);
  TensorImplPtr tie = ops::eq(a, b);
  TensorImplPtr half_g = Mul(g, Num(0.5));
  TensorImplPtr ga, gb;
  if (c.needs_grad[0]) ga = ops::where(tie, half_g, ops::where(a_wins, g, Num(0)));
  if (c.needs_grad[1]) {
    gb = ops::where(tie, half_g, ops::where(a_wins, Num(0), g));
  }
  return {ga, gb};
}
OF_OP("maximum(Tensor self, Tensor other) -> Tensor")
    .Infer(InferElementwise)
    .Backward([](BackwardCtx& c) { return MaxMinGrad(c, &ops::gt); })
    .Sbp(sbp::Elementwise())
    .Autocast(amp::kNone)
    .Traits(kElementwise);
OF_OP("minimum(Tensor self, Tensor other) -> Tensor")
    .Infer(InferElementwise)
    .Backward([](BackwardCtx& c) { return MaxMinGrad(c, &ops::lt); })
    .Sbp(sbp::Elementwise())
    .Autocast(amp::kNone)
    .Traits(kElementwise);
OF_OP("logaddexp(Tensor self, Tensor other) -> Tensor")
    .Infer(InferElementwiseFloat)
    .Backward([](BackwardCtx& c) -> TensorList {
      TensorImplPtr g = c.grad();
      TensorImplPtr out = c.output(0);
      return {c.needs_grad[0] ? Mul(g, ops::exp(Sub(c.get(arg::logaddexp::self), out))) : nullptr,
              c.needs_grad[1] ? Mul(g, ops::exp(Sub(c.get(arg::logaddexp::other), out))) : nullptr};
    })
    .Sbp(sbp::Elementwise())
    .Autocast(amp::kNone)
    .Traits(kElementwise);

// Comparisons and logical ops: bool results, no gradient.
#define OF_COMPARE(name)                               \
  OF_OP(#name "(Tensor self, Tensor other) -> Tensor") \
      .Infer(InferElementwiseBool)                     \
      .NonDifferentiable()                             \
      .Sbp(sbp::Elementwise())                         \
      .Autocast(amp::kNone)                            \
      .Traits(kElementwise)
OF_COMPARE(eq);
OF_COMPARE(ne);
OF_COMPARE(lt);
OF_COMPARE(le);
OF_COMPARE(gt);
OF_COMPARE(ge);
OF_COMPARE(logical_and);
OF_COMPARE(logical_or);
OF_COMPARE(logical_xor);
OF_OP("logical_not(Tensor self) -> Tensor")
    .Infer(InferElementwiseBool)
    .NonDifferentiable()
    .Sbp(sbp::Elementwise())
    .Autocast(amp::kNone)
    .Traits(kElementwise);

// Bitwise ops: integers and bool only (the kernels say so).
#define OF_BITWISE(name)                                            \
  OF_OP_WITH_INPLACE(#name "(Tensor self, Tensor other) -> Tensor") \
      .Infer(InferElementwise)                                      \
      .NonDifferentiable()                                          \
      .Sbp(sbp::Elementwise())                                      \
      .Autocast(amp::kNone)                                         \
      .Traits(kElementwise)
OF_BITWISE(bitwise_and);
OF_BITWISE(bitwise_or);
OF_BITWISE(bitwise_xor);
OF_OP_WITH_INPLACE("bitwise_not(Tensor self) -> Tensor")
    .Infer(InferElementwise)
    .NonDifferentiable()
    .Sbp(sbp::Elementwise())
    .Autocast(amp::kNone)
    .Traits(kElementwise);

}  // namespace
}  // namespace defs
}  // namespace oneflow
