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
  return Call("mean.dim", {t, dims, true});
}

TensorImplPtr SumOver(const TensorImplPtr& t, const DimVector& dims) {
  return dims.empty() ? t : Call("sum.dim", {t, dims, false});
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
    return group_shape.empty() ? t : Call("reshape", {t, group_shape});
  };
  auto ungrouped = [&](const TensorImplPtr& t) {
    return group_shape.empty() ? t : Call("reshape", {t, x->shape()});
  };
  TensorImplPtr xg = grouped(x);
  TensorImplPtr xc = center ? Sub(xg, MeanKeep(xg, stat_dims)) : xg;
  TensorImplPtr rstd = Unary("rsqrt", Add(MeanKeep(Mul(xc, xc), stat_dims), Num(eps)));
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
  return Call("reshape", {w, shape});
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

Value Opt(const TensorImplPtr& t) { return t ? Value(t) : Value(); }

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
  const TensorImplPtr& x = call.tensor(0);
  RequireFloating(x, "layer_norm");
  const DimVector& ns = call.args[1].int_list();
  const int64_t axis = LayerNormAxis(x, ns, "layer_norm");
  CheckParamShape(call, 2, ns, "weight", "layer_norm");
  CheckParamShape(call, 3, ns, "bias", "layer_norm");
  const DType sd = ParamDType(call, x, {2, 3}, "layer_norm");
  call.compute_dtype = x->dtype();
  call.out_meta = {{x->shape(), x->dtype()}, {StatShape(x, axis), sd}, {StatShape(x, axis), sd}};
}

TensorList NativeLayerNormGrad(BackwardCtx& c) {
  GradSlots s(c, {0, 2, 3});
  if (!c.grads[0]) return s.take();
  TensorImplPtr x = c.input(0), w = c.input(2), g = c.grads[0];
  const DimVector& ns = c.arg(1).int_list();
  const int64_t axis = x->ndim() - static_cast<int64_t>(ns.size());
  if (GradMode::is_enabled()) {
    NormGrads r = NormGradGraph(x, g, w, {}, Range(axis, x->ndim()), Range(0, axis),
                                c.arg(4).to_double(), true, s.needs(0), s.needs(2), s.needs(3));
    s.set(0, r.dx);
    s.set(2, r.dw);
    s.set(3, r.db);
    return s.take();
  }
  auto outs = CallAll("native_layer_norm_backward", {g, x, ns, c.output(1), c.output(2), Opt(w),
                                                     Opt(c.input(3)), Mask(s, {0, 2, 3})});
  for (int i = 0; i < 3; ++i) s.set(i == 0 ? 0 : i + 1, outs[i].tensor());
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
      const TensorImplPtr& x = call.tensor(1);
      const DimVector& mask = call.args[7].int_list();
      auto param = [&](int arg, int m) -> OutMeta {
        if (!call.has(arg) || !mask[m]) return {{0}, x->dtype()};
        return {call.tensor(arg)->shape(), call.tensor(arg)->dtype()};
      };
      call.compute_dtype = x->dtype();
      call.out_meta = {{mask[0] ? x->shape() : DimVector{0}, x->dtype()}, param(5, 1), param(6, 2)};
    })
    .NonDifferentiable()
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kNone);

OF_OP(
    "layer_norm(Tensor input, int[] normalized_shape, Tensor? weight=None, Tensor? bias=None, "
    "float eps=1e-05, bool cudnn_enable=True) -> Tensor")
    .Composite([](OpCall& call) {
      call.outputs = {CallAll("native_layer_norm", {call.args[0], call.args[1], call.args[2],
                                                    call.args[3], call.args[4]})[0]
                          .tensor()};
    })
    .Sbp(sbp::Family("layer_norm"))
    .Autocast(amp::kNone, amp::kFp32);

// ---- rms_norm --------------------------------------------------------------------

// eps=None: the machine epsilon of the type the op computes in (float for
// 16-bit inputs), as PyTorch.
double RmsEps(const Value& eps, DType d) {
  if (!eps.is_none()) return eps.to_double();
  return d == DType::kFloat64 ? std::numeric_limits<double>::epsilon()
                              : std::numeric_limits<float>::epsilon();
}

void InferFusedRmsNorm(OpCall& call) {
  const TensorImplPtr& x = call.tensor(0);
  RequireFloating(x, "rms_norm");
  const DimVector& ns = call.args[1].int_list();
  const int64_t axis = LayerNormAxis(x, ns, "rms_norm");
  CheckParamShape(call, 2, ns, "weight", "rms_norm");
  if (call.has(2)) RequireFloating(call.tensor(2), "rms_norm");
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
      GradSlots s(c, {0, 2});
      if (!c.grads[0] && !c.grads[1]) return s.take();
      TensorImplPtr x = c.input(0), w = c.input(2), g = c.grad(0);
      const DimVector& ns = c.arg(1).int_list();
      const int64_t axis = x->ndim() - static_cast<int64_t>(ns.size());
      if (GradMode::is_enabled()) {
        NormGrads r = NormGradGraph(x, g, w, {}, Range(axis, x->ndim()), Range(0, axis),
                                    RmsEps(c.arg(3), x->dtype()), false, s.needs(0), s.needs(2),
                                    false, nullptr, c.grads[1]);
        s.set(0, r.dx);
        s.set(2, r.dw);
        return s.take();
      }
      auto outs = CallAll("_fused_rms_norm_backward",
                          {g, x, ns, c.output(1), Opt(w), Mask(s, {0, 2}), Opt(c.grads[1])});
      s.set(0, outs[0].tensor());
      s.set(2, outs[1].tensor());
      return s.take();
    })
    .Sbp(sbp::Family("layer_norm"))
    .Autocast(amp::kNone);

OF_OP(
    "_fused_rms_norm_backward(Tensor grad_out, Tensor input, int[] normalized_shape, Tensor rstd, "
    "Tensor? weight, int[2] output_mask, Tensor? grad_rstd=None) -> (Tensor, Tensor)")
    .Infer([](OpCall& call) {
      const TensorImplPtr& x = call.tensor(1);
      const DimVector& mask = call.args[5].int_list();
      call.compute_dtype = x->dtype();
      OutMeta dw{{0}, x->dtype()};
      if (call.has(4) && mask[1]) dw = {call.tensor(4)->shape(), call.tensor(4)->dtype()};
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
      const TensorImplPtr& x = call.tensor(0);
      const DimVector& ns = call.args[1].int_list();
      OF_CHECK(!ns.empty(), RuntimeError,
               "rms_norm: Expected normalized_shape to be at least 1-dimensional, i.e., "
               "containing at least one element, but got normalized_shape = ",
               ShapeToString(ns));
      CheckParamShape(call, 2, ns, "weight", "rms_norm");
      OF_CHECK(x->ndim() >= static_cast<int64_t>(ns.size()), ValueError,
               "rms_norm: Input tensor must have at least ", ns.size(), " dimensions, but got ",
               x->ndim(), " (input of size ", ShapeToString(x->shape()),
               ", normalized_shape = ", ShapeToString(ns), ")");
      call.outputs = {CallAll("_fused_rms_norm", call.args)[0].tensor()};
    })
    .Sbp(sbp::Family("layer_norm"))
    .Autocast(amp::kNone);

// ---- batch_norm --------------------------------------------------------------------

int64_t Channels(const TensorImplPtr& x) { return x->ndim() >= 2 ? x->shape()[1] : 0; }

void CheckChannelParam(const OpCall& call, int arg, int64_t c, const char* what, const char* op) {
  if (!call.has(arg)) return;
  OF_CHECK(call.tensor(arg)->numel() == c, RuntimeError, op, ": ", what, " should contain ", c,
           " elements not ", call.tensor(arg)->numel(), " (input of size ",
           ShapeToString(call.tensor(0)->shape()), ")");
}

// The strides of a batch_norm result laid out like `x`: channels_last when x
// suggests it (as PyTorch), else contiguous (empty).
DimVector BnOutputStrides(const TensorImplPtr& x) {
  const MemoryFormat f = SuggestMemoryFormat(x->shape(), x->stride());
  return f == MemoryFormat::kContiguous ? DimVector{} : MemoryFormatStrides(x->shape(), f);
}

void InferNativeBatchNorm(OpCall& call) {
  const TensorImplPtr& x = call.tensor(0);
  RequireFloating(x, "batch_norm");
  const int64_t c = Channels(x);
  CheckChannelParam(call, 1, c, "weight", "batch_norm");
  CheckChannelParam(call, 2, c, "bias", "batch_norm");
  CheckChannelParam(call, 3, c, "running_mean", "batch_norm");
  CheckChannelParam(call, 4, c, "running_var", "batch_norm");
  OF_CHECK(x->ndim() >= 2, RuntimeError,
           "batch_norm: expected an input of at least 2 dims (N, C, ...), but got input of size ",
           ShapeToString(x->shape()));
  OF_CHECK(x->numel() > 0, RuntimeError,
           "native_batch_norm: input tensor must have at least one element, but got input_sizes = ",
           ShapeToString(x->shape()));
  const bool training = call.args[5].to_bool();
  if (!training) {
    OF_CHECK(call.has(3), RuntimeError,
             "batch_norm: running_mean must be defined in evaluation mode");
    OF_CHECK(call.has(4), RuntimeError,
             "batch_norm: running_var must be defined in evaluation mode");
  }
  const DType sd = ParamDType(call, x, {1, 2, 3, 4}, "batch_norm");
  const DimVector stat = training ? DimVector{c} : DimVector{0};
  call.compute_dtype = x->dtype();
  call.out_meta = {{x->shape(), x->dtype(), BnOutputStrides(x)}, {stat, sd}, {stat, sd}};
}

TensorList NativeBatchNormGrad(BackwardCtx& c) {
  GradSlots s(c, {0, 1, 2, 3, 4});
  if (!c.grads[0]) return s.take();
  TensorImplPtr x = c.input(0), w = c.input(1), g = c.grads[0];
  const bool training = c.arg(5).to_bool();
  const double eps = c.arg(7).to_double();
  if (GradMode::is_enabled()) {
    const DimVector dims = AllBut(x->ndim(), 1);
    if (training) {
      NormGrads r = NormGradGraph(x, g, ChannelView(w, x->ndim()), {}, dims, dims, eps, true,
                                  s.needs(0), s.needs(1), s.needs(2));
      s.set(0, r.dx);
      s.set(1, r.dw);
      s.set(2, r.db);
    } else {
      // Eval: an affine map with constant statistics.
      TensorImplPtr rstd = ChannelView(Unary("rsqrt", Add(c.input(4), Num(eps))), x->ndim());
      TensorImplPtr wv = ChannelView(w, x->ndim());
      if (s.needs(0)) s.set(0, Mul(wv ? Mul(g, wv) : g, rstd));
      if (s.needs(1)) {
        TensorImplPtr xhat = Mul(Sub(x, ChannelView(c.input(3), x->ndim())), rstd);
        s.set(1, SumOver(Mul(g, xhat), dims));
      }
      if (s.needs(2)) s.set(2, SumOver(g, dims));
    }
    return s.take();
  }
  // Training needs only the batch statistics (the running ones may have been
  // updated again by a later forward).
  auto outs =
      CallAll("native_batch_norm_backward", {g, x, Opt(w), training ? Value() : Opt(c.input(3)),
                                             training ? Value() : Opt(c.input(4)), c.output(1),
                                             c.output(2), training, eps, Mask(s, {0, 1, 2})});
  for (int i = 0; i < 3; ++i) s.set(i, outs[i].tensor());
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
      const TensorImplPtr& x = call.tensor(1);
      const DimVector& mask = call.args[9].int_list();
      const int64_t c = Channels(x);
      // Parameter gradients have the parameters' dtype: the weight's, else the
      // running statistics', else the batch statistics'.
      DType pd = x->dtype();
      for (int arg : {2, 3, 5}) {
        if (call.has(arg) && call.tensor(arg)->numel() > 0) {
          pd = call.tensor(arg)->dtype();
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
      const TensorImplPtr& x = call.tensor(0);
      if (x->numel() == 0) {
        // No statistics (the running ones stay); as PyTorch, a copy scaled by
        // weight[0] and shifted by bias[0], so the gradient chain is kept.
        TensorImplPtr out = Call("clone", {x});
        if (call.has(1)) out = Mul(out, Call("select", {call.tensor(1), 0, 0}));
        if (call.has(2)) out = Add(out, Call("select", {call.tensor(2), 0, 0}));
        call.outputs = {out};
        return;
      }
      std::vector<Value> args(call.args.begin(), call.args.begin() + 8);
      call.outputs = {CallAll("native_batch_norm", std::move(args))[0].tensor()};
    })
    .Sbp(sbp::Family("batch_norm"))
    .Autocast(amp::kNone);

// ---- group_norm ----------------------------------------------------------------------

void InferNativeGroupNorm(OpCall& call) {
  const TensorImplPtr& x = call.tensor(0);
  RequireFloating(x, "group_norm");
  const int64_t n = call.args[3].to_int(), c = call.args[4].to_int(), hw = call.args[5].to_int();
  const int64_t g = call.args[6].to_int();
  OF_CHECK(g > 0 && c % g == 0, RuntimeError,
           "group_norm: Expected number of channels in input to be divisible by num_groups, but "
           "got input of shape ",
           ShapeToString(x->shape()), " and num_groups=", g);
  OF_CHECK(n * c * hw == x->numel(), RuntimeError, "group_norm: N * C * HxW (", n, " * ", c, " * ",
           hw, ") does not match the input of size ", ShapeToString(x->shape()));
  for (int arg : {1, 2}) {
    if (!call.has(arg)) continue;
    const TensorImplPtr& p = call.tensor(arg);
    OF_CHECK(p->ndim() == 1 && p->numel() == c, RuntimeError, "group_norm: Expected ",
             arg == 1 ? "weight" : "bias",
             " to be a vector of size equal to the number of channels in input, but got ",
             arg == 1 ? "weight" : "bias", " of shape ", ShapeToString(p->shape()),
             " and input of shape ", ShapeToString(x->shape()));
  }
  const DType sd = ParamDType(call, x, {1, 2}, "group_norm");
  call.compute_dtype = x->dtype();
  call.out_meta = {{x->shape(), x->dtype()}, {{n, g}, sd}, {{n, g}, sd}};
}

// Unlike layer_norm and batch_norm (as in PyTorch), gradients flowing into the
// mean and rstd outputs reach the input.
TensorList NativeGroupNormGrad(BackwardCtx& c) {
  GradSlots s(c, {0, 1, 2});
  if (!c.grads[0] && !c.grads[1] && !c.grads[2]) return s.take();
  TensorImplPtr x = c.input(0), w = c.input(1), g = c.grad(0);
  const int64_t n = c.int_arg(3), ch = c.int_arg(4), hw = c.int_arg(5), groups = c.int_arg(6);
  if (GradMode::is_enabled()) {
    // Computed on the [N, C, HxW] view of the input.
    TensorImplPtr x3 = Call("reshape", {x, DimVector{n, ch, hw}});
    TensorImplPtr g3 = Call("reshape", {g, DimVector{n, ch, hw}});
    auto stat = [&](int i) -> TensorImplPtr {
      return c.grads[i] ? Call("reshape", {c.grads[i], DimVector{n, groups, 1}}) : nullptr;
    };
    NormGrads r =
        NormGradGraph(x3, g3, ChannelView(w, 3), {n, groups, -1}, {2}, {0, 2}, c.arg(7).to_double(),
                      true, s.needs(0), s.needs(1), s.needs(2), stat(1), stat(2));
    if (r.dx) r.dx = Call("reshape", {r.dx, x->shape()});
    s.set(0, r.dx);
    s.set(1, r.dw);
    s.set(2, r.db);
    return s.take();
  }
  auto outs = CallAll("native_group_norm_backward",
                      {g, x, c.output(1), c.output(2), Opt(w), n, ch, hw, groups,
                       Mask(s, {0, 1, 2}), Opt(c.grads[1]), Opt(c.grads[2])});
  for (int i = 0; i < 3; ++i) s.set(i, outs[i].tensor());
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
      const TensorImplPtr& x = call.tensor(1);
      const DimVector& mask = call.args[9].int_list();
      const int64_t c = call.args[6].to_int();
      const DType pd = call.has(4) ? call.tensor(4)->dtype() : call.tensor(2)->dtype();
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
      const TensorImplPtr& x = call.tensor(0);
      OF_CHECK(x->ndim() >= 2, RuntimeError,
               "group_norm: Expected at least 2 dimensions for input tensor but received ",
               x->ndim(), " (input of size ", ShapeToString(x->shape()), ")");
      const int64_t n = x->shape()[0], c = x->shape()[1];
      const int64_t hw = n * c == 0 ? 0 : x->numel() / (n * c);
      call.outputs = {CallAll("native_group_norm", {call.args[0], call.args[2], call.args[3], n, c,
                                                    hw, call.args[1], call.args[4]})[0]
                          .tensor()};
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
      const TensorImplPtr& x = call.tensor(0);
      OF_CHECK(x->ndim() >= 2, RuntimeError,
               "instance_norm: Expected at least 2 dimensions for input tensor but received ",
               x->ndim(), " (input of size ", ShapeToString(x->shape()), ")");
      const int64_t n = x->shape()[0], c = x->shape()[1];
      for (int arg : {3, 4}) {
        if (!call.has(arg)) continue;
        OF_CHECK(call.tensor(arg)->numel() == c, RuntimeError,
                 "instance_norm: ", arg == 3 ? "running_mean" : "running_var", " should contain ",
                 c, " elements not ", call.tensor(arg)->numel(), " (input of size ",
                 ShapeToString(x->shape()), ")");
      }
      const bool use_input_stats = call.args[5].to_bool();
      const double momentum = call.args[6].to_double();
      if (!use_input_stats) {
        OF_CHECK(call.has(3) && call.has(4), RuntimeError,
                 "instance_norm: Expected running_mean and running_var to be defined when "
                 "use_input_stats is false");
        call.outputs = {
            CallAll("native_batch_norm", {call.args[0], call.args[1], call.args[2], call.args[3],
                                          call.args[4], false, momentum, call.args[7]})[0]
                .tensor()};
        return;
      }
      const int64_t hw = n * c == 0 ? 0 : x->numel() / (n * c);
      call.outputs = {CallAll("native_group_norm", {call.args[0], call.args[1], call.args[2], n, c,
                                                    hw, c, call.args[7]})[0]
                          .tensor()};
      if (!call.has(3) && !call.has(4)) return;
      GradModeGuard no_grad(false);
      // The statistics are computed in the running statistics' dtype (float for
      // a 16-bit input).
      const DType sd = call.tensor(call.has(3) ? 3 : 4)->dtype();
      const DType cd = IsHalf(sd) ? DType::kFloat32 : sd;
      TensorImplPtr x3 = ToDType(Reshape(x->Detach(), {n, c, hw}), cd, false);
      auto update = [&](const TensorImplPtr& running, const TensorImplPtr& batch) {
        TensorImplPtr avg = Call("mean.dim", {batch, DimVector{0}, false});
        TensorImplPtr next =
            Add(Mul(ToDType(running, cd, false), Num(1.0 - momentum)), Mul(avg, Num(momentum)));
        CopyInto(Call("reshape", {next, running->shape()}), running);
      };
      if (call.has(3)) update(call.tensor(3), Call("mean.dim", {x3, DimVector{2}, false}));
      if (call.has(4)) {
        update(call.tensor(4),
               Call("var.correction", {x3, DimVector{2}, Value(Scalar::Int(1)), false}));
      }
    })
    .Sbp(sbp::Family("batch_norm", "instance=1"))
    .Autocast(amp::kNone);

}  // namespace
}  // namespace defs
}  // namespace oneflow
