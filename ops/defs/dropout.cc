// Dropout: native_dropout (output and keep-mask, kernel in
// ops/cpu/dropout_kernels.cc), and dropout / feature_dropout (whole channels)
// with their in-place twins, composed from it.
//
// Kept elements are scaled by 1 / (1 - p). Outside training, or with p == 0,
// dropout returns its input itself; p == 1 gives input * 0 (as PyTorch, so NaN
// stays NaN). The mask is drawn from the default Generator, so
// oneflow.manual_seed makes it reproducible.

#include "core/framework/grad_mode.h"
#include "core/runtime/view_ops.h"
#include "ops/defs/common.h"

namespace oneflow {
namespace defs {
namespace {

void CheckP(double p, const char* op) {
  OF_CHECK(p >= 0.0 && p <= 1.0, RuntimeError, op,
           ": dropout probability has to be between 0 and 1, but got ", p);
}

void CheckFloating(const TensorImplPtr& x, const char* op) {
  OF_CHECK(IsFloatingPoint(x->dtype()), NotImplementedError, "\"", op, "\" not implemented for '",
           DTypeName(x->dtype()), "' (input of size ", ShapeToString(x->shape()), ")");
}

double Scale(double p) { return p >= 1.0 ? 0.0 : 1.0 / (1.0 - p); }

// (output, mask): mask is true where the element was kept.
OF_OP("native_dropout(Tensor input, float p, bool? train) -> (Tensor, Tensor)")
    .Infer([](OpCall& call) {
      const TensorImplPtr& x = call.tensor(arg::native_dropout::input);
      CheckFloating(x, "native_dropout");
      CheckP(call.get(arg::native_dropout::p), "native_dropout");
      call.compute_dtype = x->dtype();
      call.out_meta = {{x->shape(), x->dtype()}, {x->shape(), DType::kBool}};
    })
    .Backward([](BackwardCtx& c) -> TensorList {
      TensorImplPtr mask = c.output(1), g = c.grad(0);
      const bool train = c.get(arg::native_dropout::train).value_or(true);
      const double scale = train ? Scale(c.get(arg::native_dropout::p)) : 1.0;
      if (GradMode::is_enabled()) return {Mul(Mul(g, mask), Num(scale))};
      return {ops::native_dropout_backward(g, mask, scale)};
    })
    .Sbp(sbp::Family("random"))
    .Autocast(amp::kNone)
    .Traits(kRandom);

// grad_output * mask * scale.
OF_OP("native_dropout_backward(Tensor grad_output, Tensor mask, float scale) -> Tensor")
    .Infer([](OpCall& call) {
      const TensorImplPtr& g = call.tensor(arg::native_dropout_backward::grad_output);
      const TensorImplPtr& mask = call.tensor(arg::native_dropout_backward::mask);
      OF_CHECK(mask->shape() == g->shape() && mask->dtype() == DType::kBool, RuntimeError,
               "native_dropout_backward: mask must be a bool tensor of size ",
               ShapeToString(g->shape()), ", but got ", DTypeName(mask->dtype()), " of size ",
               ShapeToString(mask->shape()));
      call.compute_dtype = g->dtype();
      call.out_meta = {{g->shape(), g->dtype()}};
    })
    .NonDifferentiable()
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kNone)
    .Traits(kRandom);

// dropout, dropout_, feature_dropout and feature_dropout_: same argument indices.
bool Identity(const OpCall& call) {
  return !call.get(arg::dropout::train) || call.get(arg::dropout::p) == 0.0;
}

// The dropout of `x` (not in place) in training with 0 < p.
TensorImplPtr Dropped(const TensorImplPtr& x, double p) {
  if (p >= 1.0) return Mul(x, Num(0.0));
  return ops::native_dropout(x, p, true)[0];
}

OF_OP("dropout(Tensor input, float p, bool train) -> Tensor")
    .Composite([](OpCall& call) {
      const TensorImplPtr& x = call.tensor(arg::dropout::input);
      CheckP(call.get(arg::dropout::p), "dropout");
      if (Identity(call)) {
        call.outputs = {x};
        return;
      }
      CheckFloating(x, "dropout");
      call.outputs = {Dropped(x, call.get(arg::dropout::p))};
    })
    .Sbp(sbp::Family("dropout"))
    .Autocast(amp::kNone)
    .Traits(kRandom);

OF_OP("dropout_(Tensor(a!) self, float p, bool train) -> Tensor(a!)")
    .Composite([](OpCall& call) {
      const TensorImplPtr& x = call.tensor(arg::dropout_::self);
      CheckP(call.get(arg::dropout_::p), "dropout_");
      if (!Identity(call)) {
        CheckFloating(x, "dropout_");
        ops::copy_(x, Dropped(x, call.get(arg::dropout_::p)));
      }
      call.outputs = {x};
    })
    .Sbp(sbp::Family("random_inplace"))
    .Autocast(amp::kNone)
    .Traits(kRandom);

// Channel-wise dropout of an [N, C, *] input: one draw per (sample, channel),
// as a [N, C, 1, ...] tensor of 0 and 1 / (1 - p) that multiplies the input.
TensorImplPtr FeatureNoise(const TensorImplPtr& x, double p, const char* op) {
  OF_CHECK(x->ndim() >= 2, RuntimeError, op,
           ": Feature dropout requires at least 2 dimensions in the input, but got input of size ",
           ShapeToString(x->shape()));
  CheckFloating(x, op);
  DimVector shape(x->ndim(), 1);
  shape[0] = x->shape()[0];
  shape[1] = x->shape()[1];
  TensorImplPtr ones = Full(shape, Scalar::Int(1), x->dtype(), x->device());
  return Dropped(ones, p);
}

OF_OP("feature_dropout(Tensor input, float p, bool train) -> Tensor")
    .Composite([](OpCall& call) {
      const TensorImplPtr& x = call.tensor(arg::feature_dropout::input);
      CheckP(call.get(arg::feature_dropout::p), "feature_dropout");
      if (Identity(call)) {
        call.outputs = {x};
        return;
      }
      call.outputs = {
          Mul(x, FeatureNoise(x, call.get(arg::feature_dropout::p), "feature_dropout"))};
    })
    .Sbp(sbp::Family("dropout"))
    .Autocast(amp::kNone)
    .Traits(kRandom);

OF_OP("feature_dropout_(Tensor(a!) self, float p, bool train) -> Tensor(a!)")
    .Composite([](OpCall& call) {
      const TensorImplPtr& x = call.tensor(arg::feature_dropout_::self);
      CheckP(call.get(arg::feature_dropout_::p), "feature_dropout_");
      if (!Identity(call)) {
        ops::mul_(x, FeatureNoise(x, call.get(arg::feature_dropout_::p), "feature_dropout_"));
      }
      call.outputs = {x};
    })
    .Sbp(sbp::Family("random_inplace"))
    .Autocast(amp::kNone)
    .Traits(kRandom);

}  // namespace
}  // namespace defs
}  // namespace oneflow
