// Distances and normalization: cosine_similarity, pairwise_distance and
// normalize. They are compositions of the norm reduction and pointwise ops
// (PyTorch's own definitions), so their gradients and double backward come
// from those ops and they need no kernels of their own.

#include <algorithm>
#include <string>

#include "core/framework/grad_mode.h"
#include "core/framework/type_promotion.h"
#include "ops/defs/common.h"

namespace oneflow {
namespace defs {
namespace {

TensorImplPtr AsDType(const TensorImplPtr& t, DType d) {
  return t->dtype() == d ? t : ops::_to_dtype(t, d);
}

// The 2-norm over `dim` (kept) clamped below at eps, with the gradient of the
// unclamped norm: PyTorch clamps in place under no_grad.
TensorImplPtr ClampedNorm(const TensorImplPtr& x, int64_t dim, double eps) {
  TensorImplPtr norm = ops::norm(x, Scalar::Int(2), DimVector{dim}, true);
  TensorImplPtr lift;
  {
    GradModeGuard no_grad(false);
    lift = Sub(ops::clamp(norm, Scalar::Float(eps), std::nullopt), norm);
  }
  return Add(norm, lift);
}

// sum(x1 / max(|x1|, eps) * x2 / max(|x2|, eps)) over dim, inputs broadcast.
void CosineSimilarity(OpCall& call) {
  DType d =
      ResultType({&call.args[arg::cosine_similarity::x1], &call.args[arg::cosine_similarity::x2]});
  OF_CHECK(IsFloatingPoint(d), RuntimeError,
           "cosine_similarity(): expected common dtype to be floating point, yet common dtype is ",
           DTypeName(d));
  TensorImplPtr x1 = AsDType(call.tensor(arg::cosine_similarity::x1), d),
                x2 = AsDType(call.tensor(arg::cosine_similarity::x2), d);
  DimVector shape = BroadcastShapes(x1->shape(), x2->shape(), "cosine_similarity");
  if (x1->shape() != shape) x1 = ops::expand(x1, shape);
  if (x2->shape() != shape) x2 = ops::expand(x2, shape);
  const int64_t dim =
      WrapDim(call.get(arg::cosine_similarity::dim), static_cast<int64_t>(shape.size()));
  const double eps = call.get(arg::cosine_similarity::eps);
  TensorImplPtr a = Div(x1, ClampedNorm(x1, dim, eps));
  TensorImplPtr b = Div(x2, ClampedNorm(x2, dim, eps));
  call.outputs = {ops::sum_dim(Mul(a, b), DimVector{dim}, false)};
}
OF_OP("cosine_similarity(Tensor x1, Tensor x2, int dim=1, float eps=1e-08) -> Tensor")
    .Composite(CosineSimilarity)
    .Sbp(sbp::Family("cosine_similarity"))
    .Autocast(amp::kNone, amp::kFp32);

// The p-norm of x1 - x2 + eps over the last dim (of the broadcast shape).
void PairwiseDistance(OpCall& call) {
  const TensorImplPtr& x1 = call.tensor(arg::pairwise_distance::x1);
  const TensorImplPtr& x2 = call.tensor(arg::pairwise_distance::x2);
  const int64_t last = std::max<int64_t>(std::max(x1->ndim(), x2->ndim()) - 1, 0);
  TensorImplPtr diff = Add(Sub(x1, x2), Num(call.get(arg::pairwise_distance::eps)));
  call.outputs = {ops::norm(diff, Scalar::Float(call.get(arg::pairwise_distance::p)),
                            DimVector{last}, call.get(arg::pairwise_distance::keepdim))};
}
OF_OP(
    "pairwise_distance(Tensor x1, Tensor x2, float p=2, float eps=1e-06, bool keepdim=False) -> "
    "Tensor")
    .Composite(PairwiseDistance)
    .Sbp(sbp::Family("pairwise_distance"))
    .Autocast(amp::kNone);

// input / max(|input|_p over dim, eps).
void Normalize(OpCall& call) {
  const TensorImplPtr& x = call.tensor(arg::normalize::input);
  TensorImplPtr norm = ops::norm(x, Scalar::Float(call.get(arg::normalize::p)),
                                 DimVector{call.get(arg::normalize::dim)}, true);
  TensorImplPtr denom =
      ops::clamp(norm, Scalar::Float(call.get(arg::normalize::eps)), std::nullopt);
  call.outputs = {Div(x, ops::expand(denom, x->shape()))};
}
OF_OP("normalize(Tensor input, float p=2, int dim=1, float eps=1e-12) -> Tensor")
    .Composite(Normalize)
    .Sbp(sbp::Family("along_dim"))
    .Autocast(amp::kNone)
    .Traits(kRandom);

}  // namespace
}  // namespace defs
}  // namespace oneflow
