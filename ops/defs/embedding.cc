// Lookup-table ops: embedding (with its dense gradient embedding_backward),
// embedding_renorm_ (the max_norm of F.embedding) and one_hot. Kernels:
// ops/cpu/embedding_kernels.cc.
//
// embedding's gradient adds each looked-up row's gradient into its row of a
// zero [num_weights, D] tensor (no one-hot matrix); the row at padding_idx gets
// none, and scale_grad_by_freq divides each contribution by how often its
// index occurs in the batch.

#include <algorithm>
#include <vector>

#include "core/framework/grad_mode.h"
#include "ops/defs/common.h"

namespace oneflow {
namespace defs {
namespace {

void CheckIndices(const TensorImplPtr& idx, const char* op, const char* arg) {
  OF_CHECK(idx->dtype() == DType::kInt64 || idx->dtype() == DType::kInt32, RuntimeError, op,
           ": Expected tensor for argument '", arg,
           "' to have one of the following scalar types: Long, Int; but got ",
           DTypeName(idx->dtype()), " instead (indices of size ", ShapeToString(idx->shape()), ")");
}

// How often the index at each position occurs among all indices (as a
// [num_indices, 1] tensor of grad's dtype), for scale_grad_by_freq.
TensorImplPtr Frequencies(const TensorImplPtr& indices, DType dtype) {
  TensorImplPtr idx = Contiguous(ToDType(indices, DType::kInt64, false));
  const int64_t n = idx->numel();
  const int64_t* p = reinterpret_cast<const int64_t*>(idx->data());
  std::vector<int64_t> sorted(p, p + n);
  std::sort(sorted.begin(), sorted.end());
  TensorImplPtr freq = TensorImpl::Empty({n, 1}, DType::kFloat64, Device{});
  double* f = reinterpret_cast<double*>(freq->data());
  for (int64_t i = 0; i < n; ++i) {
    auto range = std::equal_range(sorted.begin(), sorted.end(), p[i]);
    f[i] = static_cast<double>(range.second - range.first);
  }
  return ToDType(freq, dtype, false);
}

OF_OP(
    "embedding(Tensor weight, Tensor indices, int padding_idx=-1, bool scale_grad_by_freq=False, "
    "bool sparse=False) -> Tensor")
    .Infer([](OpCall& call) {
      const TensorImplPtr &w = call.tensor(arg::embedding::weight),
                          &idx = call.tensor(arg::embedding::indices);
      OF_CHECK(w->ndim() == 2, RuntimeError,
               "embedding: 'weight' must be 2-D, but got weight of size ",
               ShapeToString(w->shape()));
      CheckIndices(idx, "embedding", "indices");
      OF_CHECK(!call.get(arg::embedding::sparse), NotImplementedError,
               "embedding: sparse=True (sparse gradients) is not supported");
      DimVector shape = idx->shape();
      shape.push_back(w->shape()[1]);
      call.compute_dtype = w->dtype();
      call.out_meta = {{shape, w->dtype()}};
    })
    .Backward([](BackwardCtx& c) -> TensorList {
      TensorImplPtr w = c.get(arg::embedding::weight), idx = c.get(arg::embedding::indices),
                    g = c.grad();
      const int64_t num = w->shape()[0], padding = c.get(arg::embedding::padding_idx);
      const bool by_freq = c.get(arg::embedding::scale_grad_by_freq);
      if (!GradMode::is_enabled()) {
        return {ops::embedding_backward(g, idx, num, padding, by_freq), nullptr};
      }
      // Differentiable in g: the rows scattered with index_put(accumulate=True).
      const int64_t d = w->shape()[1];
      TensorImplPtr flat = ops::reshape(idx, DimVector{-1});
      TensorImplPtr rows = ops::reshape(g, DimVector{-1, d});
      if (padding >= 0) {
        TensorImplPtr keep = ops::ne(ops::unsqueeze(flat, 1), Int(padding));
        rows = Mul(rows, keep);
      }
      if (by_freq) rows = Div(rows, Frequencies(idx, g->dtype()));
      TensorImplPtr zeros = Full({num, d}, Scalar::Int(0), g->dtype(), g->device());
      return {ops::index_put(zeros, TensorList{flat}, rows, true), nullptr};
    })
    .Sbp(sbp::Family("embedding"))
    .Autocast(amp::kNone);

// The dense gradient of embedding: [num_weights, D].
OF_OP(
    "embedding_backward(Tensor grad, Tensor indices, int num_weights, int padding_idx, bool "
    "scale_grad_by_freq) -> Tensor")
    .Infer([](OpCall& call) {
      const TensorImplPtr &g = call.tensor(arg::embedding_backward::grad),
                          &idx = call.tensor(arg::embedding_backward::indices);
      CheckIndices(idx, "embedding_backward", "indices");
      const int64_t d = g->ndim() == 0 ? 1 : g->shape().back();
      OF_CHECK(g->numel() == idx->numel() * d, RuntimeError, "embedding_backward: grad of size ",
               ShapeToString(g->shape()), " does not match indices of size ",
               ShapeToString(idx->shape()));
      call.compute_dtype = g->dtype();
      call.out_meta = {{{call.get(arg::embedding_backward::num_weights), d}, g->dtype()}};
    })
    .NonDifferentiable()
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kNone);

// Rescales, in place, each row of self named in indices whose norm_type-norm
// exceeds max_norm to norm max_norm (times 1 / (1 + 1e-7) as PyTorch).
OF_OP(
    "embedding_renorm_(Tensor(a!) self, Tensor indices, float max_norm, float norm_type) -> "
    "Tensor(a!)")
    .Infer([](OpCall& call) {
      const TensorImplPtr &w = call.tensor(arg::embedding_renorm_::self),
                          &idx = call.tensor(arg::embedding_renorm_::indices);
      OF_CHECK(w->ndim() == 2, RuntimeError,
               "embedding_renorm_: 'self' must be 2-D, but got self of size ",
               ShapeToString(w->shape()));
      CheckIndices(idx, "embedding_renorm_", "indices");
      OF_CHECK(IsFloatingPoint(w->dtype()), NotImplementedError,
               "\"embedding_renorm_\" not implemented for '", DTypeName(w->dtype()), "'");
      call.compute_dtype = w->dtype();
      call.out_meta = {{w->shape(), w->dtype()}};
    })
    .NonDifferentiable()
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kNone);

// [*, num_classes] int64 with a 1 at each value's position; num_classes=-1
// takes max + 1. The kernel allocates the output (its size may depend on the
// values).
OF_OP("one_hot(Tensor self, int num_classes=-1) -> Tensor")
    .Infer([](OpCall& call) {
      const TensorImplPtr& self = call.tensor(arg::one_hot::self);
      OF_CHECK(self->dtype() == DType::kInt64, RuntimeError,
               "one_hot is only applicable to index tensor of type LongTensor, but got ",
               DTypeName(self->dtype()), " (tensor of size ", ShapeToString(self->shape()), ")");
      call.compute_dtype = DType::kInt64;
      call.out_meta.clear();
    })
    .NonDifferentiable()
    .Sbp(sbp::Family("one_hot"))
    .Autocast(amp::kNone);

}  // namespace
}  // namespace defs
}  // namespace oneflow
