// Normalization ops: batch_norm, layer_norm, group_norm, instance_norm and
// rms_norm. Declarations, shape/dtype rules and backward formulas; kernels:
// ops/cpu/row_norm_kernels.cc and ops/cpu/batch_norm_kernels.cc.
//
// Each family has a kernel op with PyTorch's native signature, returning the
// statistics it computed (native_layer_norm -> (out, mean, rstd)), a fused
// `_backward` op, and the public op as a composite of the native one. The
// backward formulas run the fused backward op, except under create_graph
// (grad mode on during backward): there they rebuild the gradient from
// differentiable ops, so that double backward works.
//
// Mixed precision follows PyTorch on CPU: parameters (weight, bias, running
// stats) share the input's dtype, or are float32 for a float16/bfloat16 input;
// the statistics then have the parameters' dtype. 16-bit inputs compute in float.

#include <cmath>
#include <limits>

#include "core/framework/grad_mode.h"
#include "core/runtime/view_ops.h"
#include "ops/defs/common.h"

namespace oneflow {
namespace defs {
namespace {

// ---- helpers -------------------------------------------------------------------

bool IsHalf(DType d) { return d == DType::kFloat16 || d == DType::kBFloat16; }

void RequireFloating(const TensorImplPtr& x, const char* op) {
  OF_CHECK(IsFloatingPoint(x->dtype()), NotImplementedError, "\"", op, "\" not implemented for '",
           DTypeName(x->dtype()), "'");
}

// The dtype of the statistics (and the check that the parameters' dtypes mix
// as PyTorch allows): the parameters' dtype, or the input's without any.
DType ParamDType(const OpCall& call, const TensorImplPtr& x, std::initializer_list<int> params,
                 const char* op) {
  DType pd = x->dtype();
  bool any = false;
  for (int i : params) {
    if (!call.has(i)) continue;
    const DType d = call.tensor(i)->dtype();
    if (!any) {
      pd = d;
      any = true;
    }
    OF_CHECK(d == pd, RuntimeError, op,
             ": mixed dtype (CPU): all parameters must share one dtype, ", "but got ",
             DTypeName(pd), " and ", DTypeName(d));
  }
  if (any && pd != x->dtype()) {
    OF_CHECK(IsHalf(x->dtype()) && pd == DType::kFloat32, RuntimeError, op,
             ": mixed dtype (CPU): expect parameter to have scalar type of Float or of the input (",
             DTypeName(x->dtype()), "), but got ", DTypeName(pd));
  }
  return pd;
}

DimVector Range(int64_t begin, int64_t end) {
  DimVector v;
  for (int64_t i = begin; i < end; ++i) v.push_back(i);
  return v;
}

// The gradient slots of a formula: one per tensor argument that was given
// (an omitted optional tensor has no slot).
class GradSlots {
 public:
  GradSlots(const BackwardCtx& c, std::initializer_list<int> tensor_args) : c_(c) {
    int n = 0;
    for (int a : tensor_args) {
      if (c.saved_inputs[a].defined()) slot_[a] = n++;
    }
    grads_.resize(n);
  }
  bool given(int arg) const { return slot_[arg] >= 0; }
  bool needs(int arg) const { return given(arg) && c_.needs_grad[slot_[arg]]; }
  void set(int arg, TensorImplPtr g) {
    if (given(arg)) grads_[slot_[arg]] = std::move(g);
  }
  TensorList take() { return std::move(grads_); }

 private:
  const BackwardCtx& c_;
  int slot_[16] = {-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1};
  TensorList grads_;
};

// ---- gradients from differentiable ops (create_graph) --------------------------
//
// x is normalized over `stat_dims` of its `group_shape` view (x itself when
// that is empty): xhat = (x - mean) * rstd, or x * rstd without centering
// (rms_norm). With gw = g * weight, the input gradient is
//   rstd * (gw - mean(gw) - xhat * mean(gw * xhat))
// (no mean(gw) term without centering), and dweight = sum(g * xhat),
// dbias = sum(g) over `param_dims`.

struct NormGrads {
  TensorImplPtr dx, dw, db;
};

TensorImplPtr MeanKeep(const TensorImplPtr& t, const DimVector& dims) {
  return ops::mean_dim(t, dims, true);
}

TensorImplPtr SumOver(const TensorImplPtr& t, const DimVector& dims) {
  return dims.empty() ? t : ops::sum_dim(t, dims, false);
}

// `gmean` and `grstd` (optional, shaped like the statistics in the group view)
// are gradients flowing into the mean and rstd themselves.
NormGrads NormGradGraph(const TensorImplPtr& x, const TensorImplPtr& g, const TensorImplPtr& w_view,
                        const DimVector& group_shape, const DimVector& stat_dims,
                        const DimVector& param_dims, double eps, bool center, bool need_dx,
                        bool need_dw, bool need_db, const TensorImplPtr& gmean = nullptr,
                        const TensorImplPtr& grstd = nullptr) {
  NormGrads out;
  auto grouped = [&](const TensorImplPtr& t) {
    return group_shape.empty() ? t : ops::reshape(t, group_shape);
  };
  auto ungrouped = [&](const TensorImplPtr& t) {
    return group_shape.empty() ? t : ops::reshape(t, x->shape());
  };
  TensorImplPtr xg = grouped(x);
  TensorImplPtr xc = center ? Sub(xg, MeanKeep(xg, stat_dims)) : xg;
  TensorImplPtr rstd = ops::rsqrt(Add(MeanKeep(Mul(xc, xc), stat_dims), Num(eps)));
  TensorImplPtr xhat_g = Mul(xc, rstd);
  if (need_dx) {
    TensorImplPtr gw = grouped(w_view ? Mul(g, w_view) : g);
    TensorImplPtr inner = Mul(xhat_g, MeanKeep(Mul(gw, xhat_g), stat_dims));
    TensorImplPtr d = center ? Sub(Sub(gw, MeanKeep(gw, stat_dims)), inner) : Sub(gw, inner);
    TensorImplPtr dx = Mul(rstd, d);
    if (gmean || grstd) {
      int64_t count = 1;
      for (int64_t dim : stat_dims) count *= xg->shape()[dim];
      if (gmean) dx = Add(dx, Div(gmean, Num(static_cast<double>(count))));
      if (grstd) {
        TensorImplPtr r3 = Mul(Mul(rstd, rstd), rstd);
        dx = Sub(dx, Div(Mul(Mul(grstd, r3), xc), Num(static_cast<double>(count))));
      }
    }
    out.dx = ungrouped(dx);
  }
  if (need_dw) out.dw = SumOver(Mul(g, ungrouped(xhat_g)), param_dims);
  if (need_db) out.db = SumOver(g, param_dims);
  return out;
}

// Weight of shape [C] viewed as [1, C, 1, ...] against an input of `ndim` dims.
TensorImplPtr ChannelView(const TensorImplPtr& w, int64_t ndim) {
  if (!w) return nullptr;
  DimVector shape(ndim, 1);
  shape[1] = w->numel();
  return ops::reshape(w, shape);
}

DimVector AllBut(int64_t ndim, int64_t skip) {
  DimVector d;
  for (int64_t i = 0; i < ndim; ++i) {
    if (i != skip) d.push_back(i);
  }
  return d;
}

// output_mask argument of the fused backward ops.
DimVector Mask(const GradSlots& s, std::initializer_list<int> args) {
  DimVector m;
  for (int a : args) m.push_back(s.needs(a) ? 1 : 0);
  return m;
}

// ---- layer_norm ------------------------------------------------------------------

// The number of leading (batch) dims: input.ndim - len(normalized_shape).
int64_t LayerNormAxis(const TensorImplPtr& x, const DimVector& ns, const char* op) {
  OF_CHECK(!ns.empty(), RuntimeError, op,
           ": Expected normalized_shape to be at least 1-dimensional, i.e., containing at least "
           "one element, but got normalized_shape = ",
           ShapeToString(ns));
  const int64_t axis = x->ndim() - static_cast<int64_t>(ns.size());
  bool ok = axis >= 0;
  for (size_t i = 0; ok && i < ns.size(); ++i) ok = x->shape()[axis + i] == ns[i];
  if (!ok) {
    std::string expected = "[*";
    for (int64_t d : ns) expected += ", " + std::to_string(d);
    OF_THROW(RuntimeError, op, ": Given normalized_shape=", ShapeToString(ns),
             ", expected input with shape ", expected, "], but got input of size",
             ShapeToString(x->shape()));
  }
  return axis;
}

void CheckParamShape(const OpCall& call, int arg, const DimVector& ns, const char* what,
                     const char* op) {
  if (!call.has(arg)) return;
  OF_CHECK(call.tensor(arg)->shape() == ns, RuntimeError, op, ": Expected ", what,
           " to be of same shape as normalized_shape, but got ", what, " of shape ",
           ShapeToString(call.tensor(arg)->shape()), " and normalized_shape = ", ShapeToString(ns));
}

// Shape of the per-row statistics: the batch dims, then 1 for each normalized dim.
DimVector StatShape(const TensorImplPtr& x, int64_t axis) {
  DimVector s(x->shape().begin(), x->shape().begin() + axis);
  s.resize(x->ndim(), 1);
  return s;
}

void InferNativeLayerNorm(OpCall& call) {
  namespace A = arg::native_layer_norm;
  const TensorImplPtr& x = call.tensor(A::input);
  RequireFloating(x, "layer_norm");
  const DimVector ns = call.get(A::normalized_shape);
  const int64_t axis = LayerNormAxis(x, ns, "layer_norm");
  CheckParamShape(call, A::weight, ns, "weight", "layer_norm");
  CheckParamShape(call, A::bias, ns, "bias", "layer_norm");
  const DType sd = ParamDType(call, x, {A::weight, A::bias}, "layer_norm");
  call.compute_dtype = x->dtype();
  call.out_meta = {{x->shape(), x->dtype()}, {StatShape(x, axis), sd}, {StatShape(x, axis), sd}};
}

TensorList NativeLayerNormGrad(BackwardCtx& c) {
  namespace A = arg::native_layer_norm;
  GradSlots s(c, {A::input, A::weight, A::bias});
  if (!c.grads[0]) return s.take();
  TensorImplPtr x = c.get(A::input), w = c.get(A::weight), g = c.grads[0];
  const DimVector ns = c.get(A::normalized_shape);
  const int64_t axis = x->ndim() - static_cast<int64_t>(ns.size());
  if (GradMode::is_enabled()) {
    NormGrads r = NormGradGraph(x, g, w, {}, Range(axis, x->ndim()), Range(0, axis), c.get(A::eps),
                                true, s.needs(A::input), s.needs(A::weight), s.needs(A::bias));
    s.set(A::input, r.dx);
    s.set(A::weight, r.dw);
    s.set(A::bias, r.db);
    return s.take();
  }
  auto [dx, dw, db] =
      ops::native_layer_norm_backward(g, x, ns, c.output(1), c.output(2), w, c.get(A::bias),
                                      Mask(s, {A::input, A::weight, A::bias}));
  s.set(A::input, dx);
  s.set(A::weight, dw);
  s.set(A::bias, db);
  return s.take();
}

OF_OP(
    "native_layer_norm(Tensor input, int[] normalized_shape, Tensor? weight, Tensor? bias, "
    "float eps) -> (Tensor, Tensor, Tensor)")
    .Infer(InferNativeLayerNorm)
    .Backward(NativeLayerNormGrad)
    .Sbp(sbp::Family("layer_norm"))
    .Autocast(amp::kNone, amp::kFp32);

// (grad_input, grad_weight, grad_bias); a gradient left out by output_mask (or
// of an omitted parameter) has shape [0].
OF_OP(
    "native_layer_norm_backward(Tensor grad_out, Tensor input, int[] normalized_shape, Tensor "
    "mean, Tensor rstd, Tensor? weight, Tensor? bias, int[3] output_mask) -> (Tensor, Tensor, "
    "Tensor)")
    .Infer([](OpCall& call) {
      namespace A = arg::native_layer_norm_backward;
      const TensorImplPtr& x = call.tensor(A::input);
      const DimVector mask = call.get(A::output_mask);
      auto param = [&](int a, int m) -> OutMeta {
        if (!call.has(a) || !mask[m]) return {{0}, x->dtype()};
        return {call.tensor(a)->shape(), call.tensor(a)->dtype()};
      };
      call.compute_dtype = x->dtype();
      call.out_meta = {{mask[0] ? x->shape() : DimVector{0}, x->dtype()},
                       param(A::weight, 1),
                       param(A::bias, 2)};
    })
    .NonDifferentiable()
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kNone);

OF_OP(
    "layer_norm(Tensor input, int[] normalized_shape, Tensor? weight=None, Tensor? bias=None, "
    "float eps=1e-05, bool cudnn_enable=True) -> Tensor")
    .Composite([](OpCall& call) {
      namespace A = arg::layer_norm;
      call.outputs = {ops::native_layer_norm(call.args[A::input], call.get(A::normalized_shape),
                                             call.get(A::weight), call.get(A::bias),
                                             call.get(A::eps))[0]};
    })
    .Sbp(sbp::Family("layer_norm"))
    .Autocast(amp::kNone, amp::kFp32);

// ---- rms_norm --------------------------------------------------------------------

// eps=None: the machine epsilon of the type the op computes in (float for
// 16-bit inputs), as PyTorch.
double RmsEps(const std::optional<double>& eps, DType d) {
  if (eps) return *eps;
  return d == DType::kFloat64 ? std::numeric_limits<double>::epsilon()
                              : std::numeric_limits<float>::epsilon();
}

void InferFusedRmsNorm(OpCall& call) {
  namespace A = arg::_fused_rms_norm;
  const TensorImplPtr& x = call.tensor(A::input);
  RequireFloating(x, "rms_norm");
  const DimVector ns = call.get(A::normalized_shape);
  const int64_t axis = LayerNormAxis(x, ns, "rms_norm");
  CheckParamShape(call, A::weight, ns, "weight", "rms_norm");
  if (call.has(A::weight)) RequireFloating(call.tensor(A::weight), "rms_norm");
  const DType sd = IsHalf(x->dtype()) ? DType::kFloat32 : x->dtype();
  call.compute_dtype = x->dtype();
  call.out_meta = {{x->shape(), x->dtype()}, {StatShape(x, axis), sd}};
}

OF_OP(
    "_fused_rms_norm(Tensor input, int[] normalized_shape, Tensor? weight, float? eps) -> "
    "(Tensor, Tensor)")
    .Infer(InferFusedRmsNorm)
    .Backward([](BackwardCtx& c) -> TensorList {
      // As PyTorch, a gradient flowing into rstd reaches the input too.
      namespace A = arg::_fused_rms_norm;
      GradSlots s(c, {A::input, A::weight});
      if (!c.grads[0] && !c.grads[1]) return s.take();
      TensorImplPtr x = c.get(A::input), w = c.get(A::weight), g = c.grad(0);
      const DimVector ns = c.get(A::normalized_shape);
      const int64_t axis = x->ndim() - static_cast<int64_t>(ns.size());
      if (GradMode::is_enabled()) {
        NormGrads r = NormGradGraph(x, g, w, {}, Range(axis, x->ndim()), Range(0, axis),
                                    RmsEps(c.get(A::eps), x->dtype()), false, s.needs(A::input),
                                    s.needs(A::weight), false, nullptr, c.grads[1]);
        s.set(A::input, r.dx);
        s.set(A::weight, r.dw);
        return s.take();
      }
      auto [dx, dw] = ops::_fused_rms_norm_backward(g, x, ns, c.output(1), w,
                                                    Mask(s, {A::input, A::weight}), c.grads[1]);
      s.set(A::input, dx);
      s.set(A::weight, dw);
      return s.take();
    })
    .Sbp(sbp::Family("layer_norm"))
    .Autocast(amp::kNone);

OF_OP(
    "_fused_rms_norm_backward(Tensor grad_out, Tensor input, int[] normalized_shape, Tensor rstd, "
    "Tensor? weight, int[2] output_mask, Tensor? grad_rstd=None) -> (Tensor, Tensor)")
    .Infer([](OpCall& call) {
      namespace A = arg::_fused_rms_norm_backward;
      const TensorImplPtr& x = call.tensor(A::input);
      const DimVector mask = call.get(A::output_mask);
      call.compute_dtype = x->dtype();
      OutMeta dw{{0}, x->dtype()};
      if (call.has(A::weight) && mask[1]) {
        dw = {call.tensor(A::weight)->shape(), call.tensor(A::weight)->dtype()};
      }
      call.out_meta = {{mask[0] ? x->shape() : DimVector{0}, x->dtype()}, dw};
    })
    .NonDifferentiable()
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kNone);

OF_OP(
    "rms_norm(Tensor input, int[] normalized_shape, Tensor? weight=None, float? eps=None) -> "
    "Tensor")
    .Composite([](OpCall& call) {
      // PyTorch's public op checks in this order, and reports an input with
      // fewer dims than normalized_shape as a ValueError (the shapes' mismatch
      // and the dtype are then left to the fused op).
      namespace A = arg::rms_norm;
      const TensorImplPtr& x = call.tensor(A::input);
      const DimVector ns = call.get(A::normalized_shape);
      OF_CHECK(!ns.empty(), RuntimeError,
               "rms_norm: Expected normalized_shape to be at least 1-dimensional, i.e., "
               "containing at least one element, but got normalized_shape = ",
               ShapeToString(ns));
      CheckParamShape(call, A::weight, ns, "weight", "rms_norm");
      OF_CHECK(x->ndim() >= static_cast<int64_t>(ns.size()), ValueError,
               "rms_norm: Input tensor must have at least ", ns.size(), " dimensions, but got ",
               x->ndim(), " (input of size ", ShapeToString(x->shape()),
               ", normalized_shape = ", ShapeToString(ns), ")");
      call.outputs = {
          ops::_fused_rms_norm(call.args[A::input], ns, call.get(A::weight), call.get(A::eps))[0]};
    })
    .Sbp(sbp::Family("layer_norm"))
    .Autocast(amp::kNone);

// ---- batch_norm --------------------------------------------------------------------

int64_t Channels(const TensorImplPtr& x) { return x->ndim() >= 2 ? x->shape()[1] : 0; }

// `a`: a parameter of native_batch_norm.
void CheckChannelParam(const OpCall& call, int a, int64_t c, const char* what, const char* op) {
  if (!call.has(a)) return;
  OF_CHECK(call.tensor(a)->numel() == c, RuntimeError, op, ": ", what, " should contain ", c,
           " elements not ", call.tensor(a)->numel(), " (input of size ",
           ShapeToString(call.tensor(arg::native_batch_norm::input)->shape()), ")");
}

// The strides of a batch_norm result laid out like `x`: channels_last when x
// suggests it (as PyTorch), else contiguous (empty).
DimVector BnOutputStrides(const TensorImplPtr& x) {
  const MemoryFormat f = SuggestMemoryFormat(x->shape(), x->stride());
  return f == MemoryFormat::kContiguous ? DimVector{} : MemoryFormatStrides(x->shape(), f);
}

void InferNativeBatchNorm(OpCall& call) {
  namespace A = arg::native_batch_norm;
  const TensorImplPtr& x = call.tensor(A::input);
  RequireFloating(x, "batch_norm");
  const int64_t c = Channels(x);
  CheckChannelParam(call, A::weight, c, "weight", "batch_norm");
  CheckChannelParam(call, A::bias, c, "bias", "batch_norm");
  CheckChannelParam(call, A::running_mean, c, "running_mean", "batch_norm");
  CheckChannelParam(call, A::running_var, c, "running_var", "batch_norm");
  OF_CHECK(x->ndim() >= 2, RuntimeError,
           "batch_norm: expected an input of at least 2 dims (N, C, ...), but got input of size ",
           ShapeToString(x->shape()));
  OF_CHECK(x->numel() > 0, RuntimeError,
           "native_batch_norm: input tensor must have at least one element, but got input_sizes = ",
           ShapeToString(x->shape()));
  const bool training = call.get(A::training);
  if (!training) {
    OF_CHECK(call.has(A::running_mean), RuntimeError,
             "batch_norm: running_mean must be defined in evaluation mode");
    OF_CHECK(call.has(A::running_var), RuntimeError,
             "batch_norm: running_var must be defined in evaluation mode");
  }
  const DType sd =
      ParamDType(call, x, {A::weight, A::bias, A::running_mean, A::running_var}, "batch_norm");
  const DimVector stat = training ? DimVector{c} : DimVector{0};
  call.compute_dtype = x->dtype();
  call.out_meta = {{x->shape(), x->dtype(), BnOutputStrides(x)}, {stat, sd}, {stat, sd}};
}

TensorList NativeBatchNormGrad(BackwardCtx& c) {
  namespace A = arg::native_batch_norm;
  GradSlots s(c, {A::input, A::weight, A::bias, A::running_mean, A::running_var});
  if (!c.grads[0]) return s.take();
  TensorImplPtr x = c.get(A::input), w = c.get(A::weight), g = c.grads[0];
  const bool training = c.get(A::training);
  const double eps = c.get(A::eps);
  if (GradMode::is_enabled()) {
    const DimVector dims = AllBut(x->ndim(), 1);
    if (training) {
      NormGrads r = NormGradGraph(x, g, ChannelView(w, x->ndim()), {}, dims, dims, eps, true,
                                  s.needs(A::input), s.needs(A::weight), s.needs(A::bias));
      s.set(A::input, r.dx);
      s.set(A::weight, r.dw);
      s.set(A::bias, r.db);
    } else {
      // Eval: an affine map with constant statistics.
      TensorImplPtr rstd = ChannelView(ops::rsqrt(Add(c.get(A::running_var), Num(eps))), x->ndim());
      TensorImplPtr wv = ChannelView(w, x->ndim());
      if (s.needs(A::input)) s.set(A::input, Mul(wv ? Mul(g, wv) : g, rstd));
      if (s.needs(A::weight)) {
        TensorImplPtr xhat = Mul(Sub(x, ChannelView(c.get(A::running_mean), x->ndim())), rstd);
        s.set(A::weight, SumOver(Mul(g, xhat), dims));
      }
      if (s.needs(A::bias)) s.set(A::bias, SumOver(g, dims));
    }
    return s.take();
  }
  // Training needs only the batch statistics (the running ones may have been
  // updated again by a later forward).
  auto [dx, dw, db] = ops::native_batch_norm_backward(
      g, x, w, training ? nullptr : c.get(A::running_mean),
      training ? nullptr : c.get(A::running_var), c.output(1), c.output(2), training, eps,
      Mask(s, {A::input, A::weight, A::bias}));
  s.set(A::input, dx);
  s.set(A::weight, dw);
  s.set(A::bias, db);
  return s.take();
}

OF_OP(
    "native_batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor(a!)? running_mean, "
    "Tensor(b!)? running_var, bool training, float momentum, float eps) -> (Tensor, Tensor, "
    "Tensor)")
    .Infer(InferNativeBatchNorm)
    .Backward(NativeBatchNormGrad)
    .Sbp(sbp::Family("batch_norm"))
    .Autocast(amp::kNone);

OF_OP(
    "native_batch_norm_backward(Tensor grad_out, Tensor input, Tensor? weight, Tensor? "
    "running_mean, Tensor? running_var, Tensor? save_mean, Tensor? save_invstd, bool train, float "
    "eps, int[3] output_mask) -> (Tensor, Tensor, Tensor)")
    .Infer([](OpCall& call) {
      namespace A = arg::native_batch_norm_backward;
      const TensorImplPtr& x = call.tensor(A::input);
      const DimVector mask = call.get(A::output_mask);
      const int64_t c = Channels(x);
      // Parameter gradients have the parameters' dtype: the weight's, else the
      // running statistics', else the batch statistics'.
      DType pd = x->dtype();
      for (int a : {A::weight, A::running_mean, A::save_mean}) {
        if (call.has(a) && call.tensor(a)->numel() > 0) {
          pd = call.tensor(a)->dtype();
          break;
        }
      }
      call.compute_dtype = x->dtype();
      call.out_meta = {{mask[0] ? x->shape() : DimVector{0}, x->dtype(),
                        mask[0] ? BnOutputStrides(x) : DimVector{}},
                       {mask[1] ? DimVector{c} : DimVector{0}, pd},
                       {mask[2] ? DimVector{c} : DimVector{0}, pd}};
    })
    .NonDifferentiable()
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kNone);

OF_OP(
    "batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor(a!)? running_mean, "
    "Tensor(b!)? running_var, bool training, float momentum, float eps, bool cudnn_enabled) -> "
    "Tensor")
    .Composite([](OpCall& call) {
      namespace A = arg::batch_norm;
      const TensorImplPtr& x = call.tensor(A::input);
      if (x->numel() == 0) {
        // No statistics (the running ones stay); as PyTorch, a copy scaled by
        // weight[0] and shifted by bias[0], so the gradient chain is kept.
        TensorImplPtr out = ops::clone(x);
        if (call.has(A::weight)) out = Mul(out, ops::select(call.tensor(A::weight), 0, 0));
        if (call.has(A::bias)) out = Add(out, ops::select(call.tensor(A::bias), 0, 0));
        call.outputs = {out};
        return;
      }
      call.outputs = {ops::native_batch_norm(call.args[A::input], call.get(A::weight),
                                             call.get(A::bias), call.get(A::running_mean),
                                             call.get(A::running_var), call.get(A::training),
                                             call.get(A::momentum), call.get(A::eps))[0]};
    })
    .Sbp(sbp::Family("batch_norm"))
    .Autocast(amp::kNone);

// ---- group_norm ----------------------------------------------------------------------

void InferNativeGroupNorm(OpCall& call) {
  namespace A = arg::native_group_norm;
  const TensorImplPtr& x = call.tensor(A::input);
  RequireFloating(x, "group_norm");
  const int64_t n = call.get(A::N), c = call.get(A::C), hw = call.get(A::HxW);
  const int64_t g = call.get(A::group);
  OF_CHECK(g > 0 && c % g == 0, RuntimeError,
           "group_norm: Expected number of channels in input to be divisible by num_groups, but "
           "got input of shape ",
           ShapeToString(x->shape()), " and num_groups=", g);
  OF_CHECK(n * c * hw == x->numel(), RuntimeError, "group_norm: N * C * HxW (", n, " * ", c, " * ",
           hw, ") does not match the input of size ", ShapeToString(x->shape()));
  for (int a : {A::weight, A::bias}) {
    if (!call.has(a)) continue;
    const TensorImplPtr& p = call.tensor(a);
    const char* what = a == A::weight ? "weight" : "bias";
    OF_CHECK(p->ndim() == 1 && p->numel() == c, RuntimeError, "group_norm: Expected ", what,
             " to be a vector of size equal to the number of channels in input, but got ", what,
             " of shape ", ShapeToString(p->shape()), " and input of shape ",
             ShapeToString(x->shape()));
  }
  const DType sd = ParamDType(call, x, {A::weight, A::bias}, "group_norm");
  call.compute_dtype = x->dtype();
  call.out_meta = {{x->shape(), x->dtype()}, {{n, g}, sd}, {{n, g}, sd}};
}

// Unlike layer_norm and batch_norm (as in PyTorch), gradients flowing into the
// mean and rstd outputs reach the input.
TensorList NativeGroupNormGrad(BackwardCtx& c) {
  namespace A = arg::native_group_norm;
  GradSlots s(c, {A::input, A::weight, A::bias});
  if (!c.grads[0] && !c.grads[1] && !c.grads[2]) return s.take();
  TensorImplPtr x = c.get(A::input), w = c.get(A::weight), g = c.grad(0);
  const int64_t n = c.get(A::N), ch = c.get(A::C), hw = c.get(A::HxW), groups = c.get(A::group);
  if (GradMode::is_enabled()) {
    // Computed on the [N, C, HxW] view of the input.
    TensorImplPtr x3 = ops::reshape(x, DimVector{n, ch, hw});
    TensorImplPtr g3 = ops::reshape(g, DimVector{n, ch, hw});
    auto stat = [&](int i) -> TensorImplPtr {
      return c.grads[i] ? ops::reshape(c.grads[i], DimVector{n, groups, 1}) : nullptr;
    };
    NormGrads r =
        NormGradGraph(x3, g3, ChannelView(w, 3), {n, groups, -1}, {2}, {0, 2}, c.get(A::eps), true,
                      s.needs(A::input), s.needs(A::weight), s.needs(A::bias), stat(1), stat(2));
    if (r.dx) r.dx = ops::reshape(r.dx, x->shape());
    s.set(A::input, r.dx);
    s.set(A::weight, r.dw);
    s.set(A::bias, r.db);
    return s.take();
  }
  auto [dx, dw, db] = ops::native_group_norm_backward(
      g, x, c.output(1), c.output(2), w, n, ch, hw, groups, Mask(s, {A::input, A::weight, A::bias}),
      c.grads[1], c.grads[2]);
  s.set(A::input, dx);
  s.set(A::weight, dw);
  s.set(A::bias, db);
  return s.take();
}

OF_OP(
    "native_group_norm(Tensor input, Tensor? weight, Tensor? bias, int N, int C, int HxW, int "
    "group, float eps) -> (Tensor, Tensor, Tensor)")
    .Infer(InferNativeGroupNorm)
    .Backward(NativeGroupNormGrad)
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kNone, amp::kFp32);

OF_OP(
    "native_group_norm_backward(Tensor grad_out, Tensor input, Tensor mean, Tensor rstd, Tensor? "
    "weight, int N, int C, int HxW, int group, int[3] output_mask, Tensor? grad_mean=None, Tensor? "
    "grad_rstd=None) -> (Tensor, Tensor, Tensor)")
    .Infer([](OpCall& call) {
      namespace A = arg::native_group_norm_backward;
      const TensorImplPtr& x = call.tensor(A::input);
      const DimVector mask = call.get(A::output_mask);
      const int64_t c = call.get(A::C);
      const DType pd =
          call.has(A::weight) ? call.tensor(A::weight)->dtype() : call.tensor(A::mean)->dtype();
      call.compute_dtype = x->dtype();
      call.out_meta = {{mask[0] ? x->shape() : DimVector{0}, x->dtype()},
                       {mask[1] ? DimVector{c} : DimVector{0}, pd},
                       {mask[2] ? DimVector{c} : DimVector{0}, pd}};
    })
    .NonDifferentiable()
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kNone);

// Input [N, C, *]: C channels in num_groups groups, normalized per (sample, group).
OF_OP(
    "group_norm(Tensor input, int num_groups, Tensor? weight=None, Tensor? bias=None, float "
    "eps=1e-05, bool cudnn_enabled=True) -> Tensor")
    .Composite([](OpCall& call) {
      namespace A = arg::group_norm;
      const TensorImplPtr& x = call.tensor(A::input);
      OF_CHECK(x->ndim() >= 2, RuntimeError,
               "group_norm: Expected at least 2 dimensions for input tensor but received ",
               x->ndim(), " (input of size ", ShapeToString(x->shape()), ")");
      const int64_t n = x->shape()[0], c = x->shape()[1];
      const int64_t hw = n * c == 0 ? 0 : x->numel() / (n * c);
      call.outputs = {ops::native_group_norm(call.args[A::input], call.get(A::weight),
                                             call.get(A::bias), n, c, hw, call.get(A::num_groups),
                                             call.get(A::eps))[0]};
    })
    .Sbp(sbp::Family("group_norm"))
    .Autocast(amp::kNone, amp::kFp32);

// ---- instance_norm -----------------------------------------------------------------------

// Normalizes each (sample, channel) over its spatial dims: group_norm with one
// channel per group. Running statistics, when given, move towards the batch's
// (the mean over samples of each channel's mean and unbiased variance).
// use_input_stats=False normalizes with the running statistics instead
// (batch_norm in evaluation mode).
OF_OP(
    "instance_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor(a!)? running_mean, "
    "Tensor(b!)? running_var, bool use_input_stats, float momentum, float eps, bool "
    "cudnn_enabled) -> Tensor")
    .Composite([](OpCall& call) {
      namespace A = arg::instance_norm;
      const TensorImplPtr& x = call.tensor(A::input);
      OF_CHECK(x->ndim() >= 2, RuntimeError,
               "instance_norm: Expected at least 2 dimensions for input tensor but received ",
               x->ndim(), " (input of size ", ShapeToString(x->shape()), ")");
      const int64_t n = x->shape()[0], c = x->shape()[1];
      for (int a : {A::running_mean, A::running_var}) {
        if (!call.has(a)) continue;
        OF_CHECK(call.tensor(a)->numel() == c, RuntimeError,
                 "instance_norm: ", a == A::running_mean ? "running_mean" : "running_var",
                 " should contain ", c, " elements not ", call.tensor(a)->numel(),
                 " (input of size ", ShapeToString(x->shape()), ")");
      }
      const bool use_input_stats = call.get(A::use_input_stats);
      const double momentum = call.get(A::momentum);
      if (!use_input_stats) {
        OF_CHECK(call.has(A::running_mean) && call.has(A::running_var), RuntimeError,
                 "instance_norm: Expected running_mean and running_var to be defined when "
                 "use_input_stats is false");
        call.outputs = {ops::native_batch_norm(
            call.args[A::input], call.get(A::weight), call.get(A::bias), call.get(A::running_mean),
            call.get(A::running_var), false, momentum, call.get(A::eps))[0]};
        return;
      }
      const int64_t hw = n * c == 0 ? 0 : x->numel() / (n * c);
      call.outputs = {ops::native_group_norm(call.args[A::input], call.get(A::weight),
                                             call.get(A::bias), n, c, hw, c, call.get(A::eps))[0]};
      if (!call.has(A::running_mean) && !call.has(A::running_var)) return;
      GradModeGuard no_grad(false);
      // The statistics are computed in the running statistics' dtype (float for
      // a 16-bit input).
      const DType sd =
          call.tensor(call.has(A::running_mean) ? A::running_mean : A::running_var)->dtype();
      const DType cd = IsHalf(sd) ? DType::kFloat32 : sd;
      TensorImplPtr x3 = ToDType(Reshape(x->Detach(), {n, c, hw}), cd, false);
      auto update = [&](const TensorImplPtr& running, const TensorImplPtr& batch) {
        TensorImplPtr avg = ops::mean_dim(batch, DimVector{0}, false);
        TensorImplPtr next =
            Add(Mul(ToDType(running, cd, false), Num(1.0 - momentum)), Mul(avg, Num(momentum)));
        CopyInto(ops::reshape(next, running->shape()), running);
      };
      if (call.has(A::running_mean)) {
        update(call.tensor(A::running_mean), ops::mean_dim(x3, DimVector{2}, false));
      }
      if (call.has(A::running_var)) {
        update(call.tensor(A::running_var),
               ops::var_correction(x3, DimVector{2}, Scalar::Int(1), false));
      }
    })
    .Sbp(sbp::Family("batch_norm", "instance=1"))
    .Autocast(amp::kNone);

}  // namespace
}  // namespace defs
}  // namespace oneflow
