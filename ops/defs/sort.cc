// Sorting, selection and counting: sort/argsort/msort, topk, kthvalue,
// median/nanmedian, mode, quantile/nanquantile, unique (and its consecutive and
// per-dim forms), searchsorted/bucketize, bincount, histc, cummax/cummin.
// Kernels: ops/cpu/sort_kernels.cc.
//
// NaN orders above every number, as in PyTorch: it sorts last (first when
// descending), topk takes it as the largest, median returns it when present.
// Gradients of value-selecting ops go to the selected positions (scatter of
// the gradient at the indices); quantile is a composite over sort, gather and
// lerp, so its gradient follows from theirs.

#include <algorithm>
#include <cmath>

#include "core/framework/type_promotion.h"
#include "ops/defs/common.h"

namespace oneflow {
namespace defs {
namespace {

// Shapes of a reduction over one dim (a 0-dim input reduces over itself).
DimVector ReducedShape(const DimVector& shape, int64_t dim, bool keepdim) {
  DimVector out = shape;
  if (shape.empty()) return out;
  if (keepdim) {
    out[dim] = 1;
  } else {
    out.erase(out.begin() + dim);
  }
  return out;
}

// The gradient of an op that picked `index` along dim (values and int64
// indices, keepdim or not): zeros of the input's shape with the gradient
// scattered to the picked positions.
TensorImplPtr ScatterToIndices(const TensorImplPtr& x, int64_t dim, const TensorImplPtr& g,
                               const TensorImplPtr& index, bool keepdim) {
  if (x->ndim() == 0) return ops::reshape(g, DimVector{});
  TensorImplPtr gg = g, idx = index;
  if (!keepdim) {
    gg = ops::unsqueeze(g, dim);
    idx = ops::unsqueeze(index, dim);
  }
  TensorImplPtr zeros = Full(x->shape(), Scalar::Int(0), g->dtype(), g->device());
  return ops::scatter_src(zeros, dim, idx, gg);
}

// ---- sort / argsort / msort ---------------------------------------------------------

// Serves sort and sort.stable (self is argument 0 of both; dim differs).
void InferSort(OpCall& call) {
  const TensorImplPtr& x = call.tensor(arg::sort::self);
  const int64_t dim = call.op->schema().overload == "stable" ? call.get(arg::sort_stable::dim)
                                                             : call.get(arg::sort::dim);
  WrapDim(dim, x->ndim());
  call.compute_dtype = x->dtype();
  call.out_meta = {{x->shape(), x->dtype()}, {x->shape(), DType::kInt64}};
}

// kDim: the dim argument of sort or sort.stable (self is argument 0 of both).
template <const ArgRef<int64_t>& kDim>
TensorList SortGrad(BackwardCtx& c) {
  TensorImplPtr x = c.get(arg::sort::self);
  const int64_t dim = x->ndim() == 0 ? 0 : WrapDim(c.get(kDim), x->ndim());
  return {ScatterToIndices(x, dim, c.grad(0), c.output(1), true)};
}

OF_OP("sort(Tensor self, int dim=-1, bool descending=False) -> (Tensor values, Tensor indices)")
    .Infer(InferSort)
    .Backward(SortGrad<arg::sort::dim>)
    .Sbp(sbp::Family("along_dim", "nout=2"))
    .Autocast(amp::kNone);
// `stable` is accepted for PyTorch's signature; every sort here is stable.
OF_OP(
    "sort.stable(Tensor self, *, bool? stable, int dim=-1, bool descending=False) -> (Tensor "
    "values, Tensor indices)")
    .Infer(InferSort)
    .Backward(SortGrad<arg::sort_stable::dim>)
    .Sbp(sbp::Family("along_dim", "nout=2"))
    .Autocast(amp::kNone);

OF_OP("argsort(Tensor self, int dim=-1, bool descending=False) -> Tensor")
    .Composite([](OpCall& call) {
      namespace A = arg::argsort;
      call.outputs = {ops::sort(call.args[A::self], call.get(A::dim), call.get(A::descending))[1]};
    })
    .Sbp(sbp::Family("along_dim"))
    .Autocast(amp::kNone);
OF_OP("argsort.stable(Tensor self, *, bool stable, int dim=-1, bool descending=False) -> Tensor")
    .Composite([](OpCall& call) {
      namespace A = arg::argsort_stable;
      call.outputs = {ops::sort(call.args[A::self], call.get(A::dim), call.get(A::descending))[1]};
    })
    .Sbp(sbp::Family("along_dim"))
    .Autocast(amp::kNone);
OF_OP("msort(Tensor self) -> Tensor")
    .Composite([](OpCall& call) {
      call.outputs = {ops::sort(call.args[arg::msort::self], int64_t{0}, false)[0]};
    })
    .Sbp(sbp::Family("along_dim", "default=0"))
    .Autocast(amp::kNone);

// ---- topk / kthvalue / median / mode -------------------------------------------------------

void InferTopk(OpCall& call) {
  const TensorImplPtr& x = call.tensor(arg::topk::self);
  const int64_t k = call.get(arg::topk::k);
  const int64_t dim = WrapDim(call.get(arg::topk::dim), x->ndim());
  const int64_t size = x->ndim() == 0 ? 1 : x->shape()[dim];
  OF_CHECK(k >= 0 && k <= size, RuntimeError, "topk(): selected index k out of range (k = ", k,
           ", dimension ", dim, " of shape ", ShapeToString(x->shape()), ")");
  DimVector shape = x->shape();
  if (!shape.empty()) shape[dim] = k;
  call.compute_dtype = x->dtype();
  call.out_meta = {{shape, x->dtype()}, {shape, DType::kInt64}};
}
OF_OP(
    "topk(Tensor self, int k, int dim=-1, bool largest=True, bool sorted=True) -> (Tensor values, "
    "Tensor indices)")
    .Infer(InferTopk)
    .Backward([](BackwardCtx& c) -> TensorList {
      TensorImplPtr x = c.get(arg::topk::self);
      const int64_t dim = x->ndim() == 0 ? 0 : WrapDim(c.get(arg::topk::dim), x->ndim());
      return {ScatterToIndices(x, dim, c.grad(0), c.output(1), true)};
    })
    .Sbp(sbp::Family("along_dim", "nout=2"))
    .Autocast(amp::kNone);

// (self, ..., dim, keepdim) reductions that return values and indices (self is
// argument 0 of each); `dim_arg` and `keepdim_arg` are the op's dim and keepdim.
void InferSelectDim(OpCall& call, ArgRef<int64_t> dim_arg, ArgRef<bool> keepdim_arg,
                    const char* op) {
  const TensorImplPtr& x = call.tensor(arg::kthvalue::self);
  const int64_t dim = WrapDim(call.get(dim_arg), x->ndim());
  OF_CHECK(x->ndim() == 0 || x->shape()[dim] > 0, IndexError, op, "(): Expected reduction dim ",
           dim, " to have non-zero size (shape ", ShapeToString(x->shape()), ").");
  DimVector shape = ReducedShape(x->shape(), dim, call.get(keepdim_arg));
  call.compute_dtype = x->dtype();
  call.out_meta = {{shape, x->dtype()}, {shape, DType::kInt64}};
}

// kDim, kKeepdim: the op's dim and keepdim arguments (self is argument 0 of each).
template <const ArgRef<int64_t>& kDim, const ArgRef<bool>& kKeepdim>
TensorList SelectDimGrad(BackwardCtx& c) {
  TensorImplPtr x = c.get(arg::kthvalue::self);
  const int64_t dim = x->ndim() == 0 ? 0 : WrapDim(c.get(kDim), x->ndim());
  return {ScatterToIndices(x, dim, c.grad(0), c.output(1), c.get(kKeepdim))};
}

OF_OP(
    "kthvalue(Tensor self, int k, int dim=-1, bool keepdim=False) -> (Tensor values, Tensor "
    "indices)")
    .Infer([](OpCall& call) {
      namespace A = arg::kthvalue;
      const TensorImplPtr& x = call.tensor(A::self);
      const int64_t dim = WrapDim(call.get(A::dim), x->ndim());
      const int64_t size = x->ndim() == 0 ? 1 : x->shape()[dim];
      const int64_t k = call.get(A::k);
      OF_CHECK(k >= 1 && k <= size, RuntimeError,
               "kthvalue(): selected number k out of range for dimension ", dim, " (k = ", k,
               ", shape ", ShapeToString(x->shape()), ")");
      InferSelectDim(call, A::dim, A::keepdim, "kthvalue");
    })
    .Backward(SelectDimGrad<arg::kthvalue::dim, arg::kthvalue::keepdim>)
    .Sbp(sbp::Family("along_dim", "removes=1 nout=2"))
    .Autocast(amp::kNone);

// median()/nanmedian() of every element: the lower median (NaN for an empty
// input). Its gradient is split among the elements equal to it, as in PyTorch.
// Serves median and nanmedian.
void InferMedianAll(OpCall& call) {
  call.compute_dtype = call.tensor(arg::median::self)->dtype();
  call.out_meta = {{{}, call.compute_dtype}};
}
TensorList EvenlySplitGrad(BackwardCtx& c) {
  TensorImplPtr x = c.get(arg::median::self), out = c.output(0);
  TensorImplPtr mask =
      ops::logical_or(ops::eq(x, out), ops::logical_and(ops::isnan(x), ops::isnan(out)));
  return {Mul(mask, Div(c.grad(), ops::sum(mask)))};
}
OF_OP("median(Tensor self) -> Tensor")
    .Infer(InferMedianAll)
    .Backward(EvenlySplitGrad)
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kNone);
OF_OP("median.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)")
    .Infer([](OpCall& call) {
      InferSelectDim(call, arg::median_dim::dim, arg::median_dim::keepdim, "median");
    })
    .Backward(SelectDimGrad<arg::median_dim::dim, arg::median_dim::keepdim>)
    .Sbp(sbp::Family("along_dim", "removes=1 nout=2"))
    .Autocast(amp::kNone);
OF_OP("nanmedian(Tensor self) -> Tensor")
    .Infer(InferMedianAll)
    .Backward(EvenlySplitGrad)
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kNone);
OF_OP("nanmedian.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)")
    .Infer([](OpCall& call) {
      InferSelectDim(call, arg::nanmedian_dim::dim, arg::nanmedian_dim::keepdim, "nanmedian");
    })
    .Backward(SelectDimGrad<arg::nanmedian_dim::dim, arg::nanmedian_dim::keepdim>)
    .Sbp(sbp::Family("along_dim", "removes=1 nout=2"))
    .Autocast(amp::kNone);
// mode: the most frequent value (the smallest on a tie) and its last position.
OF_OP("mode(Tensor self, int dim=-1, bool keepdim=False) -> (Tensor values, Tensor indices)")
    .Infer([](OpCall& call) { InferSelectDim(call, arg::mode::dim, arg::mode::keepdim, "mode"); })
    .Backward(SelectDimGrad<arg::mode::dim, arg::mode::keepdim>)
    .Sbp(sbp::Family("along_dim", "removes=1 nout=2"))
    .Autocast(amp::kNone);

// ---- cummax / cummin ------------------------------------------------------------------------

// Serves cummax and cummin (the same arguments).
void InferCumExtreme(OpCall& call) {
  const TensorImplPtr& x = call.tensor(arg::cummax::self);
  WrapDim(call.get(arg::cummax::dim), x->ndim());
  call.compute_dtype = x->dtype();
  call.out_meta = {{x->shape(), x->dtype()}, {x->shape(), DType::kInt64}};
}
// Every output position passes its gradient to the input position it took.
TensorList CumExtremeGrad(BackwardCtx& c) {
  TensorImplPtr x = c.get(arg::cummax::self);
  if (x->ndim() == 0) return {c.grad(0)};
  const int64_t dim = WrapDim(c.get(arg::cummax::dim), x->ndim());
  TensorImplPtr g = c.grad(0);
  TensorImplPtr zeros = Full(x->shape(), Scalar::Int(0), g->dtype(), g->device());
  return {ops::scatter_add(zeros, dim, c.output(1), g)};
}
OF_OP("cummax(Tensor self, int dim) -> (Tensor values, Tensor indices)")
    .Infer(InferCumExtreme)
    .Backward(CumExtremeGrad)
    .Sbp(sbp::Family("along_dim", "nout=2"))
    .Autocast(amp::kNone);
OF_OP("cummin(Tensor self, int dim) -> (Tensor values, Tensor indices)")
    .Infer(InferCumExtreme)
    .Backward(CumExtremeGrad)
    .Sbp(sbp::Family("along_dim", "nout=2"))
    .Autocast(amp::kNone);

// ---- quantile / nanquantile -------------------------------------------------------------------

// quantile(x, q, dim, keepdim, interpolation): sorts x along dim (all of x,
// flattened, when dim is None), then reads each q at rank q * (n - 1) (with n
// the slice's non-NaN count for nanquantile), interpolating between the two
// nearest sorted values. A slice holding NaN gives NaN (nanquantile: only an
// all-NaN slice). The result has q's dims first. Serves quantile(.scalar) and
// nanquantile(.scalar): the same argument order; q is a tensor or a float.
template <bool kIgnoreNan>
void Quantile(OpCall& call) {
  namespace A = arg::quantile;
  const char* op = kIgnoreNan ? "nanquantile" : "quantile";
  TensorImplPtr x = call.tensor(A::self);
  OF_CHECK(x->numel() > 0, RuntimeError, op, "() input tensor must be non-empty");
  OF_CHECK(x->dtype() == DType::kFloat32 || x->dtype() == DType::kFloat64, RuntimeError, op,
           "() input tensor must be either float or double dtype, but got ",
           LegacyTypeName(x->dtype()));
  TensorImplPtr q;
  if (call.args[A::q].is_tensor()) {
    q = call.tensor(A::q);
    OF_CHECK(q->ndim() <= 1, RuntimeError, op, "() q must be a scalar or 1D tensor, but got shape ",
             ShapeToString(q->shape()));
    OF_CHECK(q->dtype() == x->dtype(), RuntimeError, op,
             "() q tensor must be same dtype as the input tensor (got ", LegacyTypeName(q->dtype()),
             " and ", LegacyTypeName(x->dtype()), ")");
  } else {
    q = Full({}, Scalar::Float(call.get(arg::quantile_scalar::q)), x->dtype(), x->device());
  }
  {
    TensorImplPtr qc = Contiguous(ToDType(q, DType::kFloat64, false));
    const double* p = reinterpret_cast<const double*>(qc->data());
    for (int64_t i = 0; i < qc->numel(); ++i) {
      OF_CHECK(p[i] >= 0 && p[i] <= 1, RuntimeError, op,
               "() q values must be in the range [0, 1], but got ", p[i]);
    }
  }
  const std::string mode = call.get(A::interpolation);
  OF_CHECK(mode == "linear" || mode == "lower" || mode == "higher" || mode == "midpoint" ||
               mode == "nearest",
           RuntimeError, op,
           "() interpolation must be one of linear, lower, higher, midpoint or nearest, but got ",
           mode);
  const bool keepdim = call.get(A::keepdim);
  const std::optional<int64_t> dim_arg = call.get(A::dim);
  const DimVector in_shape = x->shape();
  int64_t dim;
  if (!dim_arg) {
    x = ops::reshape(x, DimVector{x->numel()});
    dim = 0;
  } else {
    dim = WrapDim(*dim_arg, x->ndim());
    if (x->ndim() == 0) x = ops::reshape(x, DimVector{1});
    OF_CHECK(x->shape()[dim] > 0, RuntimeError, op, "() input tensor must be non-empty");
  }
  // Sorted along the last dim.
  DimVector perm;
  for (int64_t d = 0; d < x->ndim(); ++d) {
    if (d != dim) perm.push_back(d);
  }
  perm.push_back(dim);
  TensorImplPtr sorted = ops::sort(x, dim, false)[0];
  sorted = ops::permute(sorted, perm);
  const int64_t n = sorted->shape().back();
  DimVector rank_shape(sorted->shape().begin(), sorted->shape().end() - 1);
  rank_shape.push_back(1);
  TensorImplPtr qv = ops::reshape(q, DimVector{q->numel()});
  // ranks: (..., nq), in x's dtype.
  TensorImplPtr nan_count = ops::sum_dim(ops::isnan(sorted), DimVector{-1}, true);
  TensorImplPtr last = Full({}, Scalar::Int(n - 1), x->dtype(), x->device());
  TensorImplPtr ranks;
  if (kIgnoreNan) {
    TensorImplPtr valid = Sub(Int(n), nan_count);
    TensorImplPtr r = Mul(qv, Sub(valid, Int(1)));
    ranks = ops::where(ops::eq(valid, Int(0)), last, r);
  } else {
    ranks = ops::where(ops::gt(nan_count, Int(0)), last, Mul(qv, last));
  }
  ranks = ops::_to_dtype(ranks, x->dtype(), false);
  DimVector out_last = rank_shape;
  out_last.back() = qv->numel();
  ranks = ops::expand(ranks, out_last);
  auto at = [&](const TensorImplPtr& r) {
    return ops::gather(sorted, int64_t{-1}, ops::_to_dtype(r, DType::kInt64, false));
  };
  TensorImplPtr out;
  if (mode == "lower") {
    out = at(ops::floor(ranks));
  } else if (mode == "higher") {
    out = at(ops::ceil(ranks));
  } else if (mode == "nearest") {
    out = at(ops::round(ranks));
  } else {
    TensorImplPtr lo_r = ops::floor(ranks), hi_r = ops::ceil(ranks);
    TensorImplPtr lo = at(lo_r), hi = at(hi_r);
    TensorImplPtr w = mode == "linear"
                          ? Sub(ranks, lo_r)
                          : ops::where(ops::gt(hi_r, lo_r), Num(0.5), ZerosLike(ranks));
    out = ops::lerp_Tensor(lo, hi, ops::_to_dtype(w, x->dtype(), false));
  }
  // (..., nq) -> (nq, ...), then keepdim and a scalar q.
  const int64_t nd = out->ndim();
  DimVector to_front = {nd - 1};
  for (int64_t d = 0; d < nd - 1; ++d) to_front.push_back(d);
  out = ops::permute(out, to_front);
  DimVector shape;
  if (q->ndim() == 1) shape.push_back(q->numel());
  if (!dim_arg) {
    if (keepdim) shape.insert(shape.end(), in_shape.size(), 1);
  } else {
    for (size_t d = 0; d < in_shape.size(); ++d) {
      if (static_cast<int64_t>(d) != dim) {
        shape.push_back(in_shape[d]);
      } else if (keepdim) {
        shape.push_back(1);
      }
    }
  }
  call.outputs = {ops::reshape(out, shape)};
}

OF_OP(
    "quantile.scalar(Tensor self, float q, int? dim=None, bool keepdim=False, *, str "
    "interpolation='linear') -> Tensor")
    .Composite(Quantile<false>)
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kFp32, amp::kNone);
OF_OP(
    "quantile(Tensor self, Tensor q, int? dim=None, bool keepdim=False, *, str "
    "interpolation='linear') -> Tensor")
    .Composite(Quantile<false>)
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kFp32, amp::kNone);
OF_OP(
    "nanquantile.scalar(Tensor self, float q, int? dim=None, bool keepdim=False, *, str "
    "interpolation='linear') -> Tensor")
    .Composite(Quantile<true>)
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kFp32, amp::kNone);
OF_OP(
    "nanquantile(Tensor self, Tensor q, int? dim=None, bool keepdim=False, *, str "
    "interpolation='linear') -> Tensor")
    .Composite(Quantile<true>)
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kFp32, amp::kNone);

// ---- unique ------------------------------------------------------------------------------------

// The kernels allocate the outputs (their sizes depend on the data). Unlike
// PyTorch, the unrequested outputs are empty tensors here too.
// Serves _unique2, _unique_dim and _unique_consecutive (self is argument 0).
void InferSelfDType(OpCall& call) {
  call.compute_dtype = call.tensor(arg::_unique2::self)->dtype();
}

OF_OP(
    "_unique2(Tensor self, bool sorted=True, bool return_inverse=False, bool return_counts=False) "
    "-> (Tensor, Tensor, Tensor)")
    .Infer(InferSelfDType)
    .NonDifferentiable()
    .Sbp(sbp::BroadcastOnly("the output size depends on the values of the whole tensor"))
    .Autocast(amp::kNone);
OF_OP(
    "_unique_dim(Tensor self, int dim, bool sorted=True, bool return_inverse=False, bool "
    "return_counts=False) -> (Tensor, Tensor, Tensor)")
    .Infer([](OpCall& call) {
      WrapDim(call.get(arg::_unique_dim::dim), call.tensor(arg::_unique_dim::self)->ndim());
      InferSelfDType(call);
    })
    .NonDifferentiable()
    .Sbp(sbp::BroadcastOnly("the output size depends on the values of the whole tensor"))
    .Autocast(amp::kNone);
OF_OP(
    "_unique_consecutive(Tensor self, bool return_inverse=False, bool return_counts=False, int? "
    "dim=None) -> (Tensor, Tensor, Tensor)")
    .Infer([](OpCall& call) {
      namespace A = arg::_unique_consecutive;
      if (call.has(A::dim)) WrapDim(*call.get(A::dim), call.tensor(A::self)->ndim());
      InferSelfDType(call);
    })
    .NonDifferentiable()
    .Sbp(sbp::BroadcastOnly("the output size depends on the values of the whole tensor"))
    .Autocast(amp::kNone);

// ---- searchsorted / bucketize
// --------------------------------------------------------------------

// The sorted sequence and the values are compared in their promoted dtype.
void InferSearchsorted(OpCall& call) {
  namespace A = arg::searchsorted;
  const TensorImplPtr &seq = call.tensor(A::sorted_sequence), &v = call.tensor(A::self);
  const char* op = "torch.searchsorted()";
  OF_CHECK(seq->ndim() > 0, RuntimeError, op,
           ": boundaries tensor should have positive dimension, but got 0 dimension");
  bool leading_match = seq->ndim() == 1 || seq->ndim() == v->ndim();
  for (int64_t d = 0; leading_match && seq->ndim() > 1 && d + 1 < seq->ndim(); ++d) {
    leading_match = seq->shape()[d] == v->shape()[d];
  }
  OF_CHECK(leading_match, RuntimeError, op,
           ": boundaries tensor should be 1 dimension or the first N-1 dimensions of boundaries "
           "tensor and input value tensor must match, but we got boundaries tensor ",
           ShapeToString(seq->shape()), " and input value tensor ", ShapeToString(v->shape()));
  if (call.has(A::side)) {
    const std::string side = *call.get(A::side);
    OF_CHECK(side == "left" || side == "right", RuntimeError, op,
             ": side can only be 'left' or 'right' but got ", side);
    OF_CHECK(!(call.get(A::right) && side == "left"), RuntimeError, op,
             ": side and right can't be set to opposites, got side of left while right was True");
  }
  if (call.has(A::sorter)) {
    const TensorImplPtr& sorter = call.tensor(A::sorter);
    OF_CHECK(sorter->shape() == seq->shape(), RuntimeError, op,
             ": boundary and sorter must have the same size, but got boundary tensor ",
             ShapeToString(seq->shape()), " and got sorter tensor ",
             ShapeToString(sorter->shape()));
    OF_CHECK(sorter->dtype() == DType::kInt64, RuntimeError, op,
             ": sorter must be a tensor of long dtype but got dtype ",
             LegacyTypeName(sorter->dtype()));
  }
  std::vector<const Value*> operands = {&call.args[A::sorted_sequence], &call.args[A::self]};
  DType d = ResultType(operands);
  for (int i : {A::sorted_sequence, A::self}) {
    if (call.tensor(i)->dtype() != d) {
      call.args[i] = Value(ToDType(call.tensor(i), d, false), call.args[i].is_wrapped_number());
    }
  }
  call.compute_dtype = d;
  call.out_meta = {{v->shape(), call.get(A::out_int32) ? DType::kInt32 : DType::kInt64}};
}
OF_OP(
    "searchsorted(Tensor sorted_sequence, Tensor self, *, bool out_int32=False, bool right=False, "
    "str? side=None, Tensor? sorter=None) -> Tensor")
    .Infer(InferSearchsorted)
    .NonDifferentiable()
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kNone);

OF_OP(
    "bucketize(Tensor self, Tensor boundaries, *, bool out_int32=False, bool right=False) -> "
    "Tensor")
    .Composite([](OpCall& call) {
      namespace A = arg::bucketize;
      const TensorImplPtr& b = call.tensor(A::boundaries);
      OF_CHECK(b->ndim() == 1, RuntimeError,
               "bucketize(): boundaries tensor must be 1 dimension, but got dim(", b->ndim(), ")");
      call.outputs = {ops::searchsorted(call.args[A::boundaries], call.args[A::self],
                                        call.get(A::out_int32), call.get(A::right), std::nullopt,
                                        std::nullopt)};
    })
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kNone);

// ---- bincount / histc
// ------------------------------------------------------------------------------

void InferBincount(OpCall& call) {
  namespace A = arg::bincount;
  const TensorImplPtr& x = call.tensor(A::self);
  OF_CHECK(!IsFloatingPoint(x->dtype()) && x->dtype() != DType::kBool, NotImplementedError,
           "\"bincount_cpu\" not implemented for '", LegacyTypeName(x->dtype()), "'");
  OF_CHECK(x->ndim() == 1, RuntimeError,
           "bincount only supports 1-d non-negative integral inputs (got shape ",
           ShapeToString(x->shape()), ").");
  OF_CHECK(call.get(A::minlength) >= 0, RuntimeError, "bincount(): minlength should be >= 0, got ",
           call.get(A::minlength));
  if (call.has(A::weights)) {
    const TensorImplPtr& w = call.tensor(A::weights);
    OF_CHECK(w->ndim() == 1 && w->shape()[0] == x->shape()[0], RuntimeError,
             "bincount(): weights should be 1-d and have the same length as input (got shapes ",
             ShapeToString(w->shape()), " and ", ShapeToString(x->shape()), ")");
  }
  call.compute_dtype = x->dtype();
}
OF_OP("bincount(Tensor self, Tensor? weights=None, int minlength=0) -> Tensor")
    .Infer(InferBincount)
    .NonDifferentiable()
    .Sbp(sbp::BroadcastOnly("the output size depends on the values of the whole tensor"))
    .Autocast(amp::kNone);

void InferHistc(OpCall& call) {
  namespace A = arg::histc;
  const TensorImplPtr& x = call.tensor(A::self);
  OF_CHECK(IsFloatingPoint(x->dtype()), NotImplementedError,
           "\"histogram_cpu\" not implemented for '", LegacyTypeName(x->dtype()), "'");
  const int64_t bins = call.get(A::bins);
  const double min = call.get(A::min).d, max = call.get(A::max).d;
  OF_CHECK(bins > 0, RuntimeError, "torch.histc(): bins must be > 0, but got ", bins);
  OF_CHECK(min <= max, RuntimeError, "torch.histc: max must be larger than min (got min ", min,
           " and max ", max, ")");
  call.compute_dtype = x->dtype();
  call.out_meta = {{{bins}, x->dtype()}};
}
OF_OP("histc(Tensor self, int bins=100, Scalar min=0, Scalar max=0) -> Tensor")
    .Infer(InferHistc)
    .NonDifferentiable()
    .Sbp(sbp::BroadcastOnly("the output size depends on the values of the whole tensor"))
    .Autocast(amp::kNone);

}  // namespace
}  // namespace defs
}  // namespace oneflow
