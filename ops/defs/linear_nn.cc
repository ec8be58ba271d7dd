// linear and bilinear, composed from the matrix products of ops/defs/linalg.cc
// (oneDNN's sgemm for float32), so their gradients follow from those.
//
// linear(x, w, b) = x @ w^T + b: the batch dims of x fold into the rows of one
// addmm (w^T is a view; sgemm reads it transposed). bilinear(x1, x2, w, b) =
// sum_ij x1[..., i] w[o, i, j] x2[..., j] + b[o]: one matmul of x1 with w laid
// out as [in1, out * in2], then a product with x2 summed over in2.
//
// fused_linear(x, w, b, activation) = act(x @ w^T + b) in one kernel: the
// product's epilogue adds the bias and applies the activation as it writes the
// output (oneDNN post-ops, ops/cpu/matmul_kernels.cc), so the output is
// written once instead of three times. OneFlow's fused_matmul_bias and
// fused_mlp (ReLU between layers) are built on it.

#include <string>

#include "core/framework/grad_mode.h"
#include "core/runtime/view_ops.h"
#include "ops/defs/common.h"

namespace oneflow {
namespace defs {
namespace {

std::string Dims(const DimVector& shape) {
  std::string s;
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? "x" : "") + std::to_string(shape[i]);
  return s;
}

OF_OP("linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor")
    .Composite([](OpCall& call) {
      const TensorImplPtr &x = call.tensor(arg::linear::input),
                          &w = call.tensor(arg::linear::weight);
      const TensorImplPtr b = call.get(arg::linear::bias);
      OF_CHECK(x->ndim() >= 1 && (w->ndim() == 1 || w->ndim() == 2), RuntimeError,
               "linear(): expected an input of at least 1 dim and a 1-D or 2-D weight, but got "
               "input of size ",
               ShapeToString(x->shape()), " and weight of size ", ShapeToString(w->shape()));
      const int64_t in = x->shape().back();
      OF_CHECK(in == w->shape().back(), RuntimeError,
               "linear(): input and weight shapes cannot be multiplied (", Dims(x->shape()),
               " and ", Dims(w->ndim() == 2 ? DimVector{w->shape()[1], w->shape()[0]} : w->shape()),
               ")");
      DimVector out_shape(x->shape().begin(), x->shape().end() - 1);
      if (w->ndim() == 2) out_shape.push_back(w->shape()[0]);
      if (b) {
        OF_CHECK(BroadcastShapes(b->shape(), out_shape, "linear") == out_shape, RuntimeError,
                 "linear(): bias of size ", ShapeToString(b->shape()),
                 " cannot be broadcast to the output of size ", ShapeToString(out_shape));
      }
      if (w->ndim() == 2 && x->ndim() >= 2) {
        // [..., in] -> [rows, in] @ [in, out] (+ bias) -> [..., out]
        TensorImplPtr x2 = x->ndim() == 2 ? x : ops::reshape(x, DimVector{-1, in});
        TensorImplPtr wt = ops::t(w);
        if (b && b->ndim() <= 1) {
          TensorImplPtr y = ops::addmm(b, x2, wt);
          call.outputs = {x->ndim() == 2 ? y : ops::reshape(y, out_shape)};
          return;
        }
        TensorImplPtr y = ops::mm(x2, wt);
        // As PyTorch, a bias of several dims is added to the folded [rows, out]
        // product for 2-D and contiguous 3-D inputs, to the result otherwise.
        const bool folded = x->ndim() == 2 || (x->ndim() == 3 && x->is_contiguous());
        if (b && folded) {
          OF_CHECK(BroadcastShapes(b->shape(), y->shape(), "linear") == y->shape(), RuntimeError,
                   "linear(): bias of size ", ShapeToString(b->shape()),
                   " cannot be broadcast to the folded output of size ", ShapeToString(y->shape()));
          y = Add(y, b);
        }
        if (x->ndim() != 2) y = ops::reshape(y, out_shape);
        if (b && !folded) y = Add(y, b);
        call.outputs = {y};
        return;
      }
      TensorImplPtr y = ops::matmul(x, w->ndim() == 2 ? ops::t(w) : w);
      if (b) y = Add(y, b);
      call.outputs = {y};
    })
    .Sbp(sbp::Family("linear"))
    .Autocast(amp::kLower);

OF_OP("bilinear(Tensor input1, Tensor input2, Tensor weight, Tensor? bias=None) -> Tensor")
    .Composite([](OpCall& call) {
      const TensorImplPtr &x1 = call.tensor(arg::bilinear::input1),
                          &x2 = call.tensor(arg::bilinear::input2),
                          &w = call.tensor(arg::bilinear::weight);
      const TensorImplPtr b = call.get(arg::bilinear::bias);
      OF_CHECK(x1->ndim() == x2->ndim(), RuntimeError,
               "bilinear(): input dimensions do not match: got ", x1->ndim(), " and ", x2->ndim(),
               " (input1 of size ", ShapeToString(x1->shape()), ", input2 of size ",
               ShapeToString(x2->shape()), ")");
      OF_CHECK(x1->ndim() >= 1, RuntimeError, "bilinear(): inputs must have at least 1 dim");
      for (int64_t i = 0; i + 1 < x1->ndim(); ++i) {
        OF_CHECK(x1->shape()[i] == x2->shape()[i], RuntimeError,
                 "bilinear(): input batch dimensions do not match at dim ", i, ": got ",
                 x1->shape()[i], " and ", x2->shape()[i], " (input1 of size ",
                 ShapeToString(x1->shape()), ", input2 of size ", ShapeToString(x2->shape()), ")");
      }
      OF_CHECK(w->ndim() == 3, RuntimeError,
               "bilinear(): weight must be 3-D, but got weight of size ",
               ShapeToString(w->shape()));
      const int64_t o = w->shape()[0], i1 = w->shape()[1], i2 = w->shape()[2];
      OF_CHECK(x1->shape().back() == i1, RuntimeError,
               "bilinear(): input1 size does not match weight size: got ", x1->shape().back(),
               " but expected ", i1, " (weight of size ", ShapeToString(w->shape()), ")");
      OF_CHECK(x2->shape().back() == i2, RuntimeError,
               "bilinear(): input2 size does not match weight size: got ", x2->shape().back(),
               " but expected ", i2, " (weight of size ", ShapeToString(w->shape()), ")");
      if (b) {
        OF_CHECK(b->ndim() == 1 && b->shape()[0] == o, RuntimeError,
                 "bilinear(): bias size does not match weight size: got ",
                 b->ndim() == 1 ? b->shape()[0] : b->numel(), " but expected ", o,
                 " (bias of size ", ShapeToString(b->shape()), ")");
      }
      DimVector out_shape(x1->shape().begin(), x1->shape().end() - 1);
      out_shape.push_back(o);
      TensorImplPtr a = ops::reshape(x1, DimVector{-1, i1});
      TensorImplPtr c = ops::reshape(x2, DimVector{-1, i2});
      // w as [in1, out * in2]
      TensorImplPtr wm = ops::reshape(ops::permute(w, DimVector{1, 0, 2}), DimVector{i1, o * i2});
      TensorImplPtr t = ops::reshape(ops::mm(a, wm), DimVector{-1, o, i2});
      TensorImplPtr y = ops::sum_dim(Mul(t, ops::unsqueeze(c, 1)), DimVector{2}, false);
      if (b) y = Add(y, b);
      call.outputs = {ops::reshape(y, out_shape)};
    })
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kNone, amp::kPromote);

// ---- fused linear layers ---------------------------------------------------------

bool IsFusedActivation(const std::string& a) {
  return a == "none" || a == "relu" || a == "gelu" || a == "gelu_tanh" || a == "silu" ||
         a == "sigmoid" || a == "tanh";
}

// Activations whose gradient needs the pre-activation (the others take it from
// the output).
bool NeedsPreActivation(const std::string& a) {
  return a == "gelu" || a == "gelu_tanh" || a == "silu";
}

void CheckFusedActivation(const char* op, const std::string& a) {
  OF_CHECK(IsFusedActivation(a), RuntimeError, op,
           "(): activation must be one of 'none', 'relu', 'gelu', 'gelu_tanh', 'silu', "
           "'sigmoid', 'tanh', but got '",
           a, "'");
}

// input [n, k], weight [m, k], bias [m] or none, all of one floating dtype.
void InferFusedLinearAct(OpCall& call) {
  const TensorImplPtr &x = call.tensor(arg::_fused_linear_act::input),
                      &w = call.tensor(arg::_fused_linear_act::weight);
  const TensorImplPtr b = call.get(arg::_fused_linear_act::bias);
  OF_CHECK(x->ndim() == 2 && w->ndim() == 2, RuntimeError,
           "_fused_linear_act(): expected a 2-D input and a 2-D weight, but got input of size ",
           ShapeToString(x->shape()), " and weight of size ", ShapeToString(w->shape()));
  OF_CHECK(x->shape()[1] == w->shape()[1], RuntimeError,
           "_fused_linear_act(): input and weight shapes cannot be multiplied (", Dims(x->shape()),
           " and ", Dims({w->shape()[1], w->shape()[0]}), ")");
  OF_CHECK(!b || (b->ndim() == 1 && b->shape()[0] == w->shape()[0]), RuntimeError,
           "_fused_linear_act(): expected a bias of size [", w->shape()[0], "], but got ",
           ShapeToString(b->shape()));
  OF_CHECK(x->dtype() == w->dtype() && (!b || b->dtype() == x->dtype()), RuntimeError,
           "_fused_linear_act(): expected input, weight and bias of one dtype, but got ",
           DTypeName(x->dtype()), ", ", DTypeName(w->dtype()),
           b ? std::string(" and ") + DTypeName(b->dtype()) : std::string());
  CheckFusedActivation("_fused_linear_act", call.args[arg::_fused_linear_act::activation].str());
  call.compute_dtype = x->dtype();
  call.out_meta = {{DimVector{x->shape()[0], w->shape()[0]}, x->dtype()}};
}

TensorList FusedLinearActGrad(BackwardCtx& c) {
  namespace a = arg::_fused_linear_act;
  const TensorImplPtr x = c.get(a::input), w = c.get(a::weight);
  const bool has_bias = c.saved_inputs[a::bias].defined();
  const std::string act = c.get(a::activation);
  const TensorImplPtr g = c.grad(), y = c.output(0);
  TensorImplPtr gh;  // the gradient of the pre-activation
  if (act == "none") {
    gh = g;
  } else if (act == "relu") {
    gh = ops::activation_backward(g, y, std::string("threshold"), 0.0, 0.0, 0.0);
  } else if (act == "sigmoid") {
    gh = Mul(g, Mul(y, Sub(Num(1), y)));
  } else if (act == "tanh") {
    gh = Mul(g, Sub(Num(1), Mul(y, y)));
  } else {
    // gelu and silu: the pre-activation, recomputed (fused_linear keeps it
    // instead when it records a graph).
    TensorImplPtr h =
        ops::_fused_linear_act(x, w, has_bias ? c.get(a::bias) : nullptr, std::string("none"));
    const std::string kind = act == "silu" ? "silu" : "gelu";
    const double p0 = act == "gelu" ? 0.0 : 1.0;
    gh = ops::activation_backward(g, h, kind, p0, 0.0, 0.0);
  }
  TensorList grads(has_bias ? 3 : 2);
  if (c.needs_grad[0]) grads[0] = ops::mm(gh, w);
  if (c.needs_grad[1]) grads[1] = ops::mm(ops::t(gh), x);
  if (has_bias && c.needs_grad[2]) grads[2] = ops::sum_dim(gh, DimVector{0}, false);
  return grads;
}

OF_OP("_fused_linear_act(Tensor input, Tensor weight, Tensor? bias, str activation) -> Tensor")
    .Infer(InferFusedLinearAct)
    .Backward(FusedLinearActGrad)
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kLower, amp::kNone)
    .Traits(kFusedEpilogue);

OF_OP(
    "fused_linear(Tensor input, Tensor weight, Tensor? bias=None, str activation='none') -> "
    "Tensor")
    .Composite([](OpCall& call) {
      const TensorImplPtr &x = call.tensor(arg::fused_linear::input),
                          &w = call.tensor(arg::fused_linear::weight);
      const TensorImplPtr b = call.get(arg::fused_linear::bias);
      const std::string& act = call.args[arg::fused_linear::activation].str();
      CheckFusedActivation("fused_linear", act);
      OF_CHECK(x->ndim() >= 1 && w->ndim() == 2, RuntimeError,
               "fused_linear(): expected an input of at least 1 dim and a 2-D weight, but got "
               "input of size ",
               ShapeToString(x->shape()), " and weight of size ", ShapeToString(w->shape()));
      const int64_t in = x->shape().back(), out = w->shape()[0];
      OF_CHECK(in == w->shape()[1], RuntimeError,
               "fused_linear(): input and weight shapes cannot be multiplied (", Dims(x->shape()),
               " and ", Dims({w->shape()[1], out}), ")");
      OF_CHECK(!b || (b->ndim() == 1 && b->shape()[0] == out), RuntimeError,
               "fused_linear(): expected a bias of size [", out, "], but got ",
               ShapeToString(b->shape()));
      DimVector out_shape(x->shape().begin(), x->shape().end() - 1);
      out_shape.push_back(out);
      int64_t rows = 1;
      for (size_t d = 0; d + 1 < x->shape().size(); ++d) rows *= x->shape()[d];
      TensorImplPtr x2 = ops::reshape(x, DimVector{rows, in});
      const bool records = GradMode::is_enabled() &&
                           (x->requires_grad() || w->requires_grad() || (b && b->requires_grad()));
      TensorImplPtr y;
      if (records && NeedsPreActivation(act)) {
        // Training keeps the pre-activation for the activation's gradient
        // rather than recompute the product in backward.
        TensorImplPtr h = ops::_fused_linear_act(x2, w, b, std::string("none"));
        y = act == "silu" ? ops::silu(h)
                          : ops::gelu(h, std::string(act == "gelu" ? "none" : "tanh"));
      } else {
        y = ops::_fused_linear_act(x2, w, b, act);
      }
      call.outputs = {ops::reshape(y, out_shape)};
    })
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kLower, amp::kNone)
    .Traits(kFusedEpilogue);

// OneFlow's fused_matmul_bias: x @ weight^T + bias (+ _add_to_output, a
// residual of the output's shape).
OF_OP(
    "fused_matmul_bias(Tensor x, Tensor weight, Tensor bias, Tensor? _add_to_output=None) -> "
    "Tensor")
    .Composite([](OpCall& call) {
      namespace a = arg::fused_matmul_bias;
      TensorImplPtr y = ops::fused_linear(call.tensor(a::x), call.tensor(a::weight),
                                          call.tensor(a::bias), std::string("none"));
      if (call.has(a::_add_to_output)) {
        const TensorImplPtr& r = call.tensor(a::_add_to_output);
        OF_CHECK(r->shape() == y->shape(), RuntimeError,
                 "fused_matmul_bias(): _add_to_output must have the output's size ",
                 ShapeToString(y->shape()), ", but got ", ShapeToString(r->shape()));
        y = Add(y, r);
      }
      call.outputs = {y};
    })
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kLower, amp::kNone)
    .Traits(kFusedEpilogue);

// OneFlow's fused_mlp: layers x = relu(x @ weights[i]^T + biases[i]), the last
// one without the relu when skip_final_activation.
OF_OP(
    "fused_mlp(Tensor x, Tensor[] weights, Tensor[] biases, bool skip_final_activation) -> "
    "Tensor")
    .Composite([](OpCall& call) {
      const TensorList& ws = call.args[arg::fused_mlp::weights].tensors();
      const TensorList& bs = call.args[arg::fused_mlp::biases].tensors();
      OF_CHECK(!ws.empty() && ws.size() == bs.size(), RuntimeError,
               "fused_mlp(): expected as many biases as weights (at least one), but got ",
               ws.size(), " weights and ", bs.size(), " biases");
      const bool skip = call.get(arg::fused_mlp::skip_final_activation);
      TensorImplPtr x = call.tensor(arg::fused_mlp::x);
      for (size_t i = 0; i < ws.size(); ++i) {
        const bool last = i + 1 == ws.size();
        x = ops::fused_linear(x, ws[i], bs[i], std::string(last && skip ? "none" : "relu"));
      }
      call.outputs = {x};
    })
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kLower, amp::kNone)
    .Traits(kFusedEpilogue);

}  // namespace
}  // namespace defs
}  // namespace oneflow
