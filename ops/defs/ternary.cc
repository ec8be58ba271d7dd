// Ops over three tensors: where, lerp, addcmul, addcdiv; and clamp.

#include "core/framework/type_promotion.h"
#include "ops/defs/common.h"

namespace oneflow {
namespace defs {
namespace {

// where(condition, self, other): broadcast all three; promote self and other.
void InferWhere(OpCall& call) {
  namespace a = arg::where;
  const TensorImplPtr& cond = call.tensor(a::condition);
  OF_CHECK(cond->dtype() == DType::kBool, RuntimeError,
           "where expected condition to be a boolean tensor, but got a tensor with dtype ",
           DTypeName(cond->dtype()));
  DimVector shape = BroadcastShapes(cond->shape(), call.tensor(a::self)->shape(), "where");
  shape = BroadcastShapes(shape, call.tensor(a::other)->shape(), "where");
  DType d = ResultType({&call.args[a::self], &call.args[a::other]});
  call.compute_dtype = d;
  DimVector stride = ElementwiseOutputStrides(
      {cond.get(), call.tensor(a::self).get(), call.tensor(a::other).get()}, shape);
  call.out_meta = {{shape, d, std::move(stride)}};
  for (int i : {int{a::self}, int{a::other}}) {
    if (call.tensor(i)->dtype() != d) {
      call.args[i] = Value(ToDType(call.tensor(i), d, false), call.args[i].is_wrapped_number());
    }
  }
}
OF_OP("where(Tensor condition, Tensor self, Tensor other) -> Tensor")
    .Infer(InferWhere)
    .Backward([](BackwardCtx& c) -> TensorList {
      TensorImplPtr g = c.grad(), cond = c.get(arg::where::condition);
      return {nullptr, c.needs_grad[1] ? ops::where(cond, g, Num(0)) : nullptr,
              c.needs_grad[2] ? ops::where(cond, Num(0), g) : nullptr};
    })
    .Sbp(sbp::Elementwise("BPP"))
    .Autocast(amp::kNone)
    .Traits(kElementwise);

// A Scalar as an op argument (a wrapped number).
Value ScalarArg(const Scalar& s) { return s.kind == Scalar::Kind::kFloat ? Num(s.d) : Int(s.i); }

// ---- clamp -------------------------------------------------------------------
//
// Two overloads, as in PyTorch: clamp.Tensor with tensor bounds (Python numbers
// passed to it become wrapped numbers) and clamp with Scalar bounds (for C++
// callers). Bounds take part in type promotion; min > max gives max
// everywhere; NaN in any operand propagates.

// A bound as an op argument: the saved tensor, the Scalar, or None.
Value Bound(BackwardCtx& c, int i) {
  if (c.saved_inputs[i].defined()) return c.input(i);
  if (c.arg(i).is_none()) return Value();
  return ScalarArg(c.arg(i).scalar());
}

// clamp, clamp.Tensor and their in-place twins: same argument indices.
void InferClamp(OpCall& call) {
  namespace a = arg::clamp;
  OF_CHECK(call.has(a::min) || call.has(a::max), RuntimeError, call.name(),
           "(): At least one of 'min' or 'max' must not be None");
  std::vector<const Value*> operands = {&call.args[a::self]};
  DimVector shape = call.tensor(a::self)->shape();
  for (int i : {int{a::min}, int{a::max}}) {
    if (!call.has(i)) continue;
    operands.push_back(&call.args[i]);
    if (call.args[i].is_tensor()) {
      shape = BroadcastShapes(shape, call.tensor(i)->shape(), call.name().c_str());
    }
  }
  DType d = ResultType(operands);
  OF_CHECK(d != DType::kBool, NotImplementedError, "\"", call.name(),
           "\" not implemented for 'Bool'");
  call.compute_dtype = d;
  call.cast_inputs = true;
  std::vector<const TensorImpl*> tensors = {call.tensor(a::self).get()};
  for (int k : {int{a::min}, int{a::max}}) {
    if (call.has(k) && call.args[k].is_tensor()) tensors.push_back(call.tensor(k).get());
  }
  call.out_meta = {{shape, d, ElementwiseOutputStrides(tensors, shape)}};
}

// The gradient passes to self where min <= self <= max (both bounds included,
// as in PyTorch), to min where self < min, to max where self > max; with
// min > max everything goes to max.
// (clamp and clamp.Tensor, and their in-place twins: same argument indices.)
TensorList ClampGrad(BackwardCtx& c) {
  namespace a = arg::clamp;
  const TensorImplPtr x = c.get(a::self), g = c.grad();
  const Value lo = Bound(c, a::min), hi = Bound(c, a::max);
  TensorList out;
  if (c.needs_grad[0]) {
    TensorImplPtr keep;
    if (!lo.is_none()) keep = ops::ge(x, lo);
    if (!hi.is_none()) {
      TensorImplPtr below = ops::le(x, hi);
      keep = keep ? ops::logical_and(keep, below) : below;
    }
    out.push_back(ops::where(keep, g, Num(0)));
  } else {
    out.push_back(nullptr);
  }
  const bool lo_t = c.saved_inputs[a::min].defined(), hi_t = c.saved_inputs[a::max].defined();
  if (!lo_t && !hi_t) return out;
  TensorImplPtr inverted;  // max < min
  if (!lo.is_none() && !hi.is_none()) inverted = ops::lt(hi, lo);
  size_t edge = 1;
  if (lo_t) {
    if (c.needs_grad[edge]) {
      TensorImplPtr wins = ops::lt(x, lo);
      if (inverted) wins = ops::logical_and(wins, ops::logical_not(inverted));
      out.push_back(ops::where(wins, g, Num(0)));
    } else {
      out.push_back(nullptr);
    }
    ++edge;
  }
  if (hi_t) {
    if (c.needs_grad[edge]) {
      TensorImplPtr wins = ops::gt(x, hi);
      if (inverted) wins = ops::logical_or(wins, inverted);
      out.push_back(ops::where(wins, g, Num(0)));
    } else {
      out.push_back(nullptr);
    }
  }
  return out;
}

// Declared first, so that Python tries tensor bounds before Scalar ones (a
// one-element tensor would otherwise bind to Scalar and lose its gradient).
OF_OP_WITH_INPLACE("clamp.Tensor(Tensor self, Tensor? min=None, Tensor? max=None) -> Tensor")
    .Infer(InferClamp)
    .Backward(ClampGrad)
    .Sbp(sbp::Elementwise())
    .Autocast(amp::kNone)
    .Traits(kElementwise);
OF_OP_WITH_INPLACE("clamp(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor")
    .Infer(InferClamp)
    .Backward(ClampGrad)
    .Sbp(sbp::Elementwise())
    .Autocast(amp::kNone)
    .Traits(kElementwise);

// clamp_min(x, m) = clamp(x, min=m); clamp_max likewise.
void ClampOneSide(OpCall& call) {
  const Schema& s = call.op->schema();
  const bool is_min = s.name.rfind("clamp_min", 0) == 0;
  // All eight ops take (self, bound) at the same indices.
  const Value& self = call.args[arg::clamp_min::self];
  const Value& bound = call.args[arg::clamp_min::min];
  if (s.overload == "Tensor") {
    const ops::OptTensorArg lo = is_min ? bound : Value(), hi = is_min ? Value() : bound;
    call.outputs = {s.is_inplace() ? ops::clamp__Tensor(self, lo, hi)
                                   : ops::clamp_Tensor(self, lo, hi)};
  } else {
    std::optional<Scalar> lo, hi;
    (is_min ? lo : hi) = bound.scalar();
    call.outputs = {s.is_inplace() ? ops::clamp_(self, lo, hi) : ops::clamp(self, lo, hi)};
  }
}

#define OF_CLAMP_ONE_SIDE(schema) \
  OF_OP_WITH_INPLACE(schema)      \
      .Composite(ClampOneSide)    \
      .Sbp(sbp::Elementwise())    \
      .Autocast(amp::kNone)       \
      .Traits(kElementwise)
OF_CLAMP_ONE_SIDE("clamp_min.Tensor(Tensor self, Tensor min) -> Tensor");
OF_CLAMP_ONE_SIDE("clamp_min(Tensor self, Scalar min) -> Tensor");
OF_CLAMP_ONE_SIDE("clamp_max.Tensor(Tensor self, Tensor max) -> Tensor");
OF_CLAMP_ONE_SIDE("clamp_max(Tensor self, Scalar max) -> Tensor");

// ---- lerp --------------------------------------------------------------------
//
// self + weight * (end - self). self and end must share a floating dtype; a
// tensor weight too, unless it is a 0-dim tensor or a Python number.

// lerp.Tensor, lerp.Scalar and their in-place twins: same argument indices.
void InferLerp(OpCall& call) {
  namespace a = arg::lerp_Tensor;
  const TensorImplPtr &self = call.tensor(a::self), &end = call.tensor(a::end);
  const DType d = self->dtype();
  OF_CHECK(end->dtype() == d, RuntimeError, "lerp(): expected dtype ", DTypeName(d),
           " for `end` but got dtype ", DTypeName(end->dtype()));
  DimVector shape = BroadcastShapes(self->shape(), end->shape(), "lerp");
  if (call.args[a::weight].is_tensor()) {
    const TensorImplPtr& w = call.tensor(a::weight);
    OF_CHECK(w->ndim() == 0 || w->dtype() == d, RuntimeError, "lerp(): expected dtype ",
             DTypeName(d), " for `weight` but got dtype ", DTypeName(w->dtype()));
    shape = BroadcastShapes(shape, w->shape(), "lerp");
  }
  OF_CHECK(IsFloatingPoint(d), NotImplementedError, "\"lerp\" not implemented for '", DTypeName(d),
           "'");
  call.compute_dtype = d;
  call.cast_inputs = true;
  call.out_meta = {{shape, d}};
}

TensorList LerpGrad(BackwardCtx& c) {
  namespace a = arg::lerp_Tensor;  // lerp.Scalar: same indices, weight a Scalar
  const TensorImplPtr g = c.grad();
  const bool tensor_weight = c.saved_inputs[a::weight].defined();
  const Value w = tensor_weight ? Value(c.input(a::weight)) : ScalarArg(c.scalar(a::weight));
  const Value one_minus_w =
      tensor_weight ? Value(Sub(Num(1), w)) : Num(1.0 - c.scalar(a::weight).d);
  TensorList out = {c.needs_grad[0] ? Mul(g, one_minus_w) : nullptr,
                    c.needs_grad[1] ? Mul(g, w) : nullptr};
  if (tensor_weight) {
    out.push_back(c.needs_grad[2] ? Mul(g, Sub(c.input(a::end), c.input(a::self))) : nullptr);
  }
  return out;
}

OF_OP_WITH_INPLACE("lerp.Tensor(Tensor self, Tensor end, Tensor weight) -> Tensor")
    .Infer(InferLerp)
    .Backward(LerpGrad)
    .Sbp(sbp::Elementwise("PPB"))
    .Autocast(amp::kNone)
    .Traits(kElementwise);
OF_OP_WITH_INPLACE("lerp.Scalar(Tensor self, Tensor end, Scalar weight) -> Tensor")
    .Infer(InferLerp)
    .Backward(LerpGrad)
    .Sbp(sbp::Elementwise("PPB"))
    .Autocast(amp::kNone)
    .Traits(kElementwise);

// ---- addcmul, addcdiv ----------------------------------------------------------
//
// self + value * tensor1 * tensor2 (or / tensor2): the three tensors broadcast
// and promote; value is cast to the result dtype.

void InferAddcmul(OpCall& call) {
  InferElementwise(call);
  OF_CHECK(call.compute_dtype != DType::kBool, NotImplementedError, "\"", call.name(),
           "\" not implemented for 'Bool'");
}

void InferAddcdiv(OpCall& call) {
  OF_CHECK(IsFloatingPoint(call.tensor(arg::addcdiv::tensor1)->dtype()) ||
               IsFloatingPoint(call.tensor(arg::addcdiv::tensor2)->dtype()),
           RuntimeError,
           "Integer division with addcdiv is no longer supported, and in a future release "
           "addcdiv will perform a true division of tensor1 and tensor2. The historic addcdiv "
           "behavior can be implemented as (input + value * torch.trunc(tensor1 / "
           "tensor2)).to(input.dtype) for integer inputs and as (input + value * tensor1 / "
           "tensor2) for float inputs. The future addcdiv behavior is just the latter "
           "implementation: (input + value * tensor1 / tensor2), for all dtypes.");
  InferElementwise(call);
}

OF_OP_WITH_INPLACE(
    "addcmul(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor")
    .Infer(InferAddcmul)
    .Backward([](BackwardCtx& c) -> TensorList {
      const TensorImplPtr g = c.grad();
      namespace a = arg::addcmul;
      const Value v = ScalarArg(c.get(a::value));
      return {c.needs_grad[0] ? g : nullptr,
              c.needs_grad[1] ? Mul(g, Mul(c.get(a::tensor2), v)) : nullptr,
              c.needs_grad[2] ? Mul(g, Mul(c.get(a::tensor1), v)) : nullptr};
    })
    .Sbp(sbp::Elementwise("PPB PBP"))
    .Autocast(amp::kNone, amp::kPromote)
    .Traits(kElementwise);
OF_OP_WITH_INPLACE(
    "addcdiv(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor")
    .Infer(InferAddcdiv)
    .Backward([](BackwardCtx& c) -> TensorList {
      const TensorImplPtr g = c.grad();
      namespace a = arg::addcdiv;
      const Value v = ScalarArg(c.get(a::value));
      TensorImplPtr t1 = c.get(a::tensor1), t2 = c.get(a::tensor2);
      return {c.needs_grad[0] ? g : nullptr, c.needs_grad[1] ? Mul(g, Div(v, t2)) : nullptr,
              c.needs_grad[2] ? Neg(Mul(g, Div(Mul(t1, v), Mul(t2, t2)))) : nullptr};
    })
    .Sbp(sbp::Elementwise("PPB"))
    .Autocast(amp::kNone, amp::kPromote)
    .Traits(kElementwise);

}  // namespace
}  // namespace defs
}  // namespace oneflow
