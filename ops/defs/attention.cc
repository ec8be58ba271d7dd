// scaled_dot_product_attention: softmax(q @ k^T * scale + mask) @ v.
// Declarations, checks and backward formulas; the fused kernels are in
// ops/cpu/attention_kernels.cc.
//
// The public op is a composite: without dropout it runs the fused kernel op
// _scaled_dot_product_flash_attention_for_cpu (PyTorch's name and signature;
// it also returns the log-sum-exp of each query row, which its backward
// reuses); with dropout_p > 0 it is written with matmul, softmax and dropout,
// as PyTorch's math path (the dropout mask must be sampled). Batch dims of
// query, key, value and mask broadcast. A bool mask keeps the positions that
// are True, a float mask is added to the scores; is_causal keeps key j <= query
// i. A query row with no position left gives 0 (as PyTorch's CPU kernel).
// enable_gqa: query heads (dim -3) share key/value heads in groups.

#include <cmath>
#include <limits>

#include "core/framework/grad_mode.h"
#include "core/runtime/view_ops.h"
#include "ops/defs/common.h"

namespace oneflow {
namespace defs {
namespace {

const char* kOp = "scaled_dot_product_attention";

DimVector Batch(const TensorImplPtr& t) {
  return DimVector(t->shape().begin(), t->shape().end() - 2);
}

int64_t Dim(const TensorImplPtr& t, int64_t d) { return t->shape()[t->ndim() + d]; }

double ScaleOf(const std::optional<double>& scale, const TensorImplPtr& q) {
  if (scale) return *scale;
  return 1.0 / std::sqrt(static_cast<double>(Dim(q, -1)));
}

// Checks shapes and dtypes as PyTorch does; returns the broadcast batch shape.
DimVector CheckAttention(const TensorImplPtr& q, const TensorImplPtr& k, const TensorImplPtr& v,
                         const TensorImplPtr& mask, bool is_causal, const char* op) {
  OF_CHECK(q->ndim() >= 2 && k->ndim() >= 2 && v->ndim() >= 2, RuntimeError, op,
           ": Expected query, key, and value to all be at least 2 dimensional, but got query.dim: ",
           q->ndim(), " key.dim: ", k->ndim(), " and value.dim: ", v->ndim(), " instead.");
  OF_CHECK(q->dtype() == k->dtype() && q->dtype() == v->dtype(), RuntimeError, op,
           ": Expected query, key, and value to have the same dtype, but got query.dtype: ",
           DTypeName(q->dtype()), " key.dtype: ", DTypeName(k->dtype()),
           " and value.dtype: ", DTypeName(v->dtype()), " instead.");
  OF_CHECK(IsFloatingPoint(q->dtype()), NotImplementedError, "\"", op, "\" not implemented for '",
           DTypeName(q->dtype()), "'");
  OF_CHECK(Dim(q, -1) == Dim(k, -1), RuntimeError, op,
           ": query and key must have the same embedding size (last dim), but got query of size ",
           ShapeToString(q->shape()), " and key of size ", ShapeToString(k->shape()));
  OF_CHECK(Dim(k, -2) == Dim(v, -2), RuntimeError, op,
           ": key and value must have the same sequence length (dim -2), but got key of size ",
           ShapeToString(k->shape()), " and value of size ", ShapeToString(v->shape()));
  DimVector batch = BroadcastShapes(BroadcastShapes(Batch(q), Batch(k), op), Batch(v), op);
  if (mask) {
    OF_CHECK(mask->dtype() == DType::kBool || IsFloatingPoint(mask->dtype()), RuntimeError, op,
             ": Expected attn_mask dtype to be bool or float or to match query dtype, but got "
             "attn_mask.dtype: ",
             DTypeName(mask->dtype()), " and query.dtype: ", DTypeName(q->dtype()), " instead.");
    OF_CHECK(!is_causal, RuntimeError, op,
             ": Explicit attn_mask should not be set when is_causal=True");
    DimVector scores = batch;
    scores.push_back(Dim(q, -2));
    scores.push_back(Dim(k, -2));
    OF_CHECK(BroadcastShapes(mask->shape(), scores, op) == scores, RuntimeError, op,
             ": attn_mask of size ", ShapeToString(mask->shape()),
             " cannot be broadcast to the attention scores of size ", ShapeToString(scores));
  }
  return batch;
}

// ---- the fused op ----------------------------------------------------------------

namespace flash = arg::_scaled_dot_product_flash_attention_for_cpu;
namespace flash_backward = arg::_scaled_dot_product_flash_attention_for_cpu_backward;
namespace sdpa = arg::scaled_dot_product_attention;

void InferFlash(OpCall& call) {
  const TensorImplPtr &q = call.tensor(flash::query), &k = call.tensor(flash::key),
                      &v = call.tensor(flash::value);
  const TensorImplPtr mask = call.get(flash::attn_mask);
  const char* op = "_scaled_dot_product_flash_attention_for_cpu";
  DimVector batch = CheckAttention(q, k, v, mask, call.get(flash::is_causal), op);
  OF_CHECK(call.get(flash::dropout_p) == 0.0, NotImplementedError, op,
           ": dropout_p > 0 is not supported by the fused kernel (scaled_dot_product_attention "
           "uses its math path for it)");
  DimVector out = batch, lse = batch;
  out.push_back(Dim(q, -2));
  out.push_back(Dim(v, -1));
  lse.push_back(Dim(q, -2));
  call.compute_dtype = q->dtype();
  call.out_meta = {{out, q->dtype()},
                   {lse, q->dtype() == DType::kFloat64 ? DType::kFloat64 : DType::kFloat32}};
}

// The gradients from differentiable ops (create_graph): with S the masked,
// scaled scores and P = softmax(S), dv = P^T g, dP = g v^T,
// dS = P * (dP - sum(dP * P)), dq = dS k * scale, dk = dS^T q * scale, and a
// float mask gets dS.
TensorList FlashGradGraph(BackwardCtx& c, bool need_q, bool need_k, bool need_v, bool need_mask) {
  TensorImplPtr q = c.get(flash::query), k = c.get(flash::key), v = c.get(flash::value),
                g = c.grad(0);
  TensorImplPtr mask =
      c.saved_inputs[flash::attn_mask].defined() ? c.get(flash::attn_mask) : nullptr;
  const double scale = ScaleOf(c.get(flash::scale), q);
  TensorImplPtr kt = ops::transpose(k, -2, -1);
  TensorImplPtr s = Mul(ops::matmul(q, kt), Num(scale));
  const int64_t L = Dim(q, -2), S = Dim(k, -2);
  TensorImplPtr keep;  // bool, true where attended
  if (c.get(flash::is_causal)) {
    keep = ops::tril(Full({L, S}, Scalar::Int(1), DType::kBool, q->device()), 0);
  } else if (mask && mask->dtype() == DType::kBool) {
    keep = mask;
  } else if (mask) {
    s = Add(s, mask);
  }
  const Value neg_inf = Num(-std::numeric_limits<double>::infinity());
  if (keep) s = ops::where(keep, s, neg_inf);
  TensorImplPtr p = ops::softmax(s, -1);
  // Rows with nothing to attend to: 0 instead of NaN.
  p = ops::where(ops::isnan(p), Num(0.0), p);
  TensorList out(4);
  if (need_v) out[2] = ops::matmul(ops::transpose(p, -2, -1), g);
  if (need_q || need_k || need_mask) {
    TensorImplPtr dp = ops::matmul(g, ops::transpose(v, -2, -1));
    TensorImplPtr ds = Mul(p, Sub(dp, ops::sum_dim(Mul(dp, p), DimVector{-1}, true)));
    if (need_q) out[0] = Mul(ops::matmul(ds, k), Num(scale));
    if (need_k) out[1] = Mul(ops::matmul(ops::transpose(ds, -2, -1), q), Num(scale));
    if (need_mask) out[3] = ds;
  }
  return out;
}

TensorList FlashGrad(BackwardCtx& c) {
  // Edges: query, key, value, then attn_mask when given.
  const bool has_mask = c.saved_inputs[flash::attn_mask].defined();
  TensorList grads(has_mask ? 4 : 3);
  if (!c.grads[0]) return grads;
  const bool need_q = c.needs_grad[0], need_k = c.needs_grad[1], need_v = c.needs_grad[2];
  const bool need_mask = has_mask && c.needs_grad[3];
  TensorList g4;
  if (GradMode::is_enabled()) {
    g4 = FlashGradGraph(c, need_q, need_k, need_v, need_mask);
  } else {
    auto outs = ops::_scaled_dot_product_flash_attention_for_cpu_backward(
        c.grads[0], c.get(flash::query), c.get(flash::key), c.get(flash::value), c.output(0),
        c.output(1), c.get(flash::dropout_p), c.get(flash::is_causal),
        has_mask ? c.get(flash::attn_mask) : nullptr, c.get(flash::scale),
        DimVector{int64_t{need_q}, int64_t{need_k}, int64_t{need_v}, int64_t{need_mask}});
    for (auto& o : outs) g4.push_back(o);
  }
  for (size_t i = 0; i < grads.size(); ++i) grads[i] = g4[i];
  return grads;
}

OF_OP(
    "_scaled_dot_product_flash_attention_for_cpu(Tensor query, Tensor key, Tensor value, float "
    "dropout_p=0.0, bool is_causal=False, *, Tensor? attn_mask=None, float? scale=None) -> "
    "(Tensor, Tensor)")
    .Infer(InferFlash)
    .Backward(FlashGrad)
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kLower, amp::kNone);

// (grad_query, grad_key, grad_value, grad_attn_mask), each of the broadcast
// batch shape (the dispatcher sums them to the inputs' shapes); one left out
// by output_mask has shape [0].
OF_OP(
    "_scaled_dot_product_flash_attention_for_cpu_backward(Tensor grad_out, Tensor query, Tensor "
    "key, Tensor value, Tensor out, Tensor logsumexp, float dropout_p, bool is_causal, Tensor? "
    "attn_mask, float? scale, int[4] output_mask) -> (Tensor, Tensor, Tensor, Tensor)")
    .Infer([](OpCall& call) {
      namespace a = flash_backward;
      const TensorImplPtr &q = call.tensor(a::query), &k = call.tensor(a::key),
                          &v = call.tensor(a::value);
      const DimVector mask = call.get(a::output_mask);
      const DimVector batch = Batch(call.tensor(a::out));
      auto full = [&](const TensorImplPtr& t, int m) -> OutMeta {
        if (!mask[m]) return {{0}, t->dtype()};
        DimVector s = batch;
        s.push_back(Dim(t, -2));
        s.push_back(Dim(t, -1));
        return {s, t->dtype()};
      };
      OutMeta dmask{{0}, q->dtype()};
      if (mask[3] && call.has(a::attn_mask)) {
        DimVector s = batch;
        s.push_back(Dim(q, -2));
        s.push_back(Dim(k, -2));
        dmask = {s, call.tensor(a::attn_mask)->dtype()};
      }
      call.compute_dtype = q->dtype();
      call.out_meta = {full(q, 0), full(k, 1), full(v, 2), dmask};
    })
    .NonDifferentiable()
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kNone);

// ---- the public op ---------------------------------------------------------------

// key/value heads repeated for grouped-query attention: [..., Hkv, S, E] ->
// [..., Hkv * groups, S, E], each head `groups` times in a row.
TensorImplPtr RepeatHeads(const TensorImplPtr& t, int64_t groups) {
  if (groups == 1) return t;
  DimVector shape = t->shape();
  const int64_t h = t->ndim() - 3;
  TensorImplPtr u = ops::unsqueeze(t, h + 1);
  DimVector expanded = u->shape();
  expanded[h + 1] = groups;
  shape[h] *= groups;
  return ops::reshape(ops::expand(u, expanded), shape);
}

OF_OP(
    "scaled_dot_product_attention(Tensor query, Tensor key, Tensor value, Tensor? "
    "attn_mask=None, float dropout_p=0.0, bool is_causal=False, *, float? scale=None, bool "
    "enable_gqa=False) -> Tensor")
    .Composite([](OpCall& call) {
      TensorImplPtr q = call.tensor(sdpa::query), k = call.tensor(sdpa::key),
                    v = call.tensor(sdpa::value);
      const TensorImplPtr mask = call.get(sdpa::attn_mask);
      const double dropout_p = call.get(sdpa::dropout_p);
      const bool is_causal = call.get(sdpa::is_causal);
      if (call.get(sdpa::enable_gqa) && q->ndim() >= 3 && k->ndim() >= 3 && v->ndim() >= 3) {
        const int64_t hq = Dim(q, -3), hk = Dim(k, -3), hv = Dim(v, -3);
        OF_CHECK(hk > 0 && hv > 0 && hq % hk == 0 && hq % hv == 0, RuntimeError, kOp,
                 ": enable_gqa needs the number of query heads (", hq,
                 ") to be a multiple of the key and value heads (", hk, ", ", hv, ")");
        k = RepeatHeads(k, hq / hk);
        v = RepeatHeads(v, hq / hv);
      }
      CheckAttention(q, k, v, mask, is_causal, kOp);
      OF_CHECK(dropout_p >= 0.0 && dropout_p <= 1.0, RuntimeError, kOp,
               ": dropout probability has to be between 0 and 1, but got ", dropout_p);
      if (dropout_p == 0.0) {
        call.outputs = {ops::_scaled_dot_product_flash_attention_for_cpu(
            q, k, v, 0.0, is_causal, call.args[sdpa::attn_mask], call.get(sdpa::scale))[0]};
        return;
      }
      // Math path (dropout on the attention weights).
      const double scale = ScaleOf(call.get(sdpa::scale), q);
      TensorImplPtr s = Mul(ops::matmul(q, ops::transpose(k, -2, -1)), Num(scale));
      const Value neg_inf = Num(-std::numeric_limits<double>::infinity());
      if (is_causal) {
        TensorImplPtr keep =
            ops::tril(Full({Dim(q, -2), Dim(k, -2)}, Scalar::Int(1), DType::kBool, q->device()), 0);
        s = ops::where(keep, s, neg_inf);
      } else if (mask && mask->dtype() == DType::kBool) {
        s = ops::where(mask, s, neg_inf);
      } else if (mask) {
        s = Add(s, mask);
      }
      TensorImplPtr p = ops::softmax(s, -1);
      p = ops::dropout(p, dropout_p, true);
      call.outputs = {ops::matmul(p, v)};
    })
    .Sbp(sbp::Family("sdpa"))
    .Autocast(amp::kLower);

}  // namespace
}  // namespace defs
}  // namespace oneflow
