// Reductions: declarations, dtype rules and backward formulas. Kernels: ops/cpu/reduce_kernels.cc.

#include "ops/defs/reduce.h"

#include "core/framework/type_promotion.h"
#include "ops/defs/common.h"

namespace oneflow {
namespace defs {

std::vector<bool> ReducedDims(const Value& dims, int64_t ndim, const char* op) {
  std::vector<bool> reduced(ndim, false);
  if (dims.is_none() || dims.int_list().empty()) {
    reduced.assign(ndim, true);
    return reduced;
  }
  for (int64_t d : dims.int_list()) {
    int64_t w = WrapDim(d, ndim);
    if (ndim == 0) continue;
    OF_CHECK(!reduced[w], RuntimeError, op, "(): dim ", w,
             " appears multiple times in the list of dims");
    reduced[w] = true;
  }
  return reduced;
}

DimVector ReducedShape(const DimVector& shape, const std::vector<bool>& reduced, bool keepdim) {
  DimVector out;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (!reduced[d]) {
      out.push_back(shape[d]);
    } else if (keepdim) {
      out.push_back(1);
    }
  }
  return out;
}

TensorImplPtr ExpandReduced(const TensorImplPtr& g, const DimVector& input_shape,
                            const std::vector<bool>& reduced, bool keepdim) {
  TensorImplPtr t = g;
  if (!keepdim) t = Call("reshape", {g, ReducedShape(input_shape, reduced, true)});
  return Call("expand", {t, input_shape});
}

namespace {

// sum/nansum: integers and bool sum to int64 unless a dtype is given.
DType SumDType(const TensorImplPtr& x, const Value& dtype) {
  if (!dtype.is_none()) return dtype.dtype();
  return IsFloatingPoint(x->dtype()) ? x->dtype() : DType::kInt64;
}

void InferSumAll(OpCall& call) {
  call.compute_dtype = SumDType(call.tensor(0), call.args[1]);
  call.cast_inputs = true;
  call.out_meta = {{{}, call.compute_dtype}};
}

void InferSumDim(OpCall& call) {
  const TensorImplPtr& x = call.tensor(0);
  auto reduced = ReducedDims(call.args[1], x->ndim(), call.name().c_str());
  call.compute_dtype = SumDType(x, call.args[3]);
  call.cast_inputs = true;
  call.out_meta = {{ReducedShape(x->shape(), reduced, call.args[2].to_bool()), call.compute_dtype}};
}

TensorList SumAllGrad(BackwardCtx& c) { return {Call("expand", {c.grad(), c.input(0)->shape()})}; }

TensorList SumDimGrad(BackwardCtx& c) {
  TensorImplPtr x = c.input(0);
  auto reduced = ReducedDims(c.arg(1), x->ndim(), "sum");
  return {ExpandReduced(c.grad(), x->shape(), reduced, c.arg(2).to_bool())};
}

OF_OP("sum(Tensor self, *, ScalarType? dtype=None) -> Tensor")
    .Infer(InferSumAll)
    .Backward(SumAllGrad);
OF_OP("sum.dim(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor")
    .Infer(InferSumDim)
    .Backward(SumDimGrad);

// mean: floating inputs only, as in PyTorch.
void CheckMeanDType(const OpCall& call, DType d) {
  OF_CHECK(IsFloatingPoint(d), RuntimeError,
           "mean(): could not infer output dtype. Input dtype must be either a floating point or "
           "complex dtype. Got: ",
           DTypeName(d));
}
void InferMeanAll(OpCall& call) {
  DType d = call.args[1].is_none() ? call.tensor(0)->dtype() : call.args[1].dtype();
  CheckMeanDType(call, d);
  call.compute_dtype = d;
  call.cast_inputs = true;
  call.out_meta = {{{}, d}};
}
void InferMeanDim(OpCall& call) {
  const TensorImplPtr& x = call.tensor(0);
  DType d = call.args[3].is_none() ? x->dtype() : call.args[3].dtype();
  CheckMeanDType(call, d);
  auto reduced = ReducedDims(call.args[1], x->ndim(), "mean");
  call.compute_dtype = d;
  call.cast_inputs = true;
  call.out_meta = {{ReducedShape(x->shape(), reduced, call.args[2].to_bool()), d}};
}
int64_t ReducedCount(const DimVector& shape, const std::vector<bool>& reduced) {
  int64_t n = 1;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (reduced[d]) n *= shape[d];
  }
  return n;
}
OF_OP("mean(Tensor self, *, ScalarType? dtype=None) -> Tensor")
    .Infer(InferMeanAll)
    .Backward([](BackwardCtx& c) -> TensorList {
      TensorImplPtr x = c.input(0);
      return {Call("expand", {Div(c.grad(), Num(static_cast<double>(x->numel()))), x->shape()})};
    });
OF_OP("mean.dim(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor")
    .Infer(InferMeanDim)
    .Backward([](BackwardCtx& c) -> TensorList {
      TensorImplPtr x = c.input(0);
      auto reduced = ReducedDims(c.arg(1), x->ndim(), "mean");
      double n = static_cast<double>(ReducedCount(x->shape(), reduced));
      return {ExpandReduced(Div(c.grad(), Num(n)), x->shape(), reduced, c.arg(2).to_bool())};
    });

// sum_to_size: sums broadcast dims away so the result has `size` (used to
// undo broadcasting in backward).
void SumToSize(OpCall& call) {
  const TensorImplPtr& x = call.tensor(0);
  const DimVector& size = call.args[1].int_list();
  OF_CHECK(static_cast<int64_t>(size.size()) <= x->ndim(), RuntimeError, "sum_to_size(): size ",
           ShapeToString(size), " is not expandable to size ", ShapeToString(x->shape()));
  const int64_t lead = x->ndim() - static_cast<int64_t>(size.size());
  DimVector dims;
  for (int64_t d = 0; d < x->ndim(); ++d) {
    if (d < lead) {
      dims.push_back(d);
      continue;
    }
    int64_t want = size[d - lead];
    OF_CHECK(want == x->shape()[d] || want == 1, RuntimeError, "sum_to_size(): size ",
             ShapeToString(size), " is not expandable to size ", ShapeToString(x->shape()));
    if (want == 1 && x->shape()[d] != 1) dims.push_back(d);
  }
  TensorImplPtr out = x;
  if (!dims.empty()) out = Call("sum.dim", {x, dims, true});
  if (lead > 0 || out->shape() != size) out = Call("reshape", {out, size});
  call.outputs = {out};
}
OF_OP("sum_to_size(Tensor self, int[] size) -> Tensor").Composite(SumToSize);

}  // namespace
}  // namespace defs
}  // namespace oneflow
