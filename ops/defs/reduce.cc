// Reductions and scans: declarations, dtype rules and backward formulas.
// Kernels: ops/cpu/reduce_kernels.cc.

#include "ops/defs/reduce.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

#include "core/framework/type_promotion.h"
#include "core/runtime/view_ops.h"
#include "ops/defs/common.h"

namespace oneflow {
namespace defs {

std::vector<bool> ReducedDims(const Value& dims, int64_t ndim, const char* op,
                              bool empty_means_all) {
  std::vector<bool> reduced(ndim, false);
  if (dims.is_none() || (empty_means_all && dims.int_list().empty())) {
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

std::vector<bool> ReducedDim(int64_t dim, int64_t ndim) {
  std::vector<bool> reduced(ndim, false);
  int64_t w = WrapDim(dim, ndim);
  if (ndim > 0) reduced[w] = true;
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

double NormOrder(const Value& p) { return p.is_none() ? 2.0 : p.scalar().d; }

double VarCorrection(const Value& correction) {
  return correction.is_none() ? 1.0 : correction.scalar().d;
}

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// ---- helpers for formulas ----------------------------------------------------

// The reduced dims as a list, for sum.dim/mean.dim calls (empty for a 0-dim
// input, which those read as "all").
DimVector DimList(const std::vector<bool>& reduced) {
  DimVector dims;
  for (size_t d = 0; d < reduced.size(); ++d) {
    if (reduced[d]) dims.push_back(static_cast<int64_t>(d));
  }
  return dims;
}

int64_t ReducedCount(const DimVector& shape, const std::vector<bool>& reduced) {
  int64_t n = 1;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (reduced[d]) n *= shape[d];
  }
  return n;
}

// A reduction's result (or gradient) with the reduced dims kept as size 1, so
// that it broadcasts against the input.
TensorImplPtr KeepDims(const TensorImplPtr& t, const DimVector& input_shape,
                       const std::vector<bool>& reduced, bool keepdim) {
  if (keepdim) return t;
  return Call("reshape", {t, ReducedShape(input_shape, reduced, true)});
}

TensorImplPtr Eq(const Value& a, const Value& b) { return Call("eq", {a, b}); }
TensorImplPtr Where(const TensorImplPtr& cond, const Value& a, const Value& b) {
  return Call("where", {cond, a, b});
}
TensorImplPtr SumKeep(const TensorImplPtr& t, const std::vector<bool>& reduced) {
  return Call("sum.dim", {t, DimList(reduced), true});
}

// sign(x) with sign(NaN) = 0, as PyTorch's sgn gives in norm gradients.
TensorImplPtr Sgn(const TensorImplPtr& x) {
  return Where(Call("gt", {x, Num(0)}), Num(1),
               Where(Call("lt", {x, Num(0)}), Num(-1), ZerosLike(x)));
}

// ---- shared inference --------------------------------------------------------

// sum/nansum/prod/cumsum/cumprod: integers and bool accumulate to int64 unless
// a dtype is given.
DType SumDType(const TensorImplPtr& x, const Value& dtype) {
  if (!dtype.is_none()) return dtype.dtype();
  return IsFloatingPoint(x->dtype()) ? x->dtype() : DType::kInt64;
}

// A reduction computing in `compute` and returning `out` (inputs cast to `compute`).
void SetReduction(OpCall& call, const std::vector<bool>& reduced, bool keepdim, DType compute,
                  DType out) {
  const TensorImplPtr& x = call.tensor(0);
  call.compute_dtype = compute;
  call.cast_inputs = true;
  call.out_meta = {{ReducedShape(x->shape(), reduced, keepdim), out}};
}

// max, min, amax, amin, argmax, argmin have no identity: an empty tensor needs
// a dim, and a reduced dim must not be empty. Reducing every dim of an empty
// tensor raises RuntimeError (IndexError for argmax/argmin), as in PyTorch.
void CheckNonEmptyReduction(const TensorImplPtr& x, const std::vector<bool>& reduced, bool all_dims,
                            const char* op, bool index_error) {
  if (all_dims) {
    if (index_error) {
      OF_CHECK(x->numel() > 0, IndexError, op,
               "(): Expected reduction dim to be specified for input.numel() == 0.");
    }
    OF_CHECK(x->numel() > 0, RuntimeError, op,
             "(): Expected reduction dim to be specified for input.numel() == 0. Specify the "
             "reduction dim with the 'dim' argument.");
    return;
  }
  for (int64_t d = 0; d < x->ndim(); ++d) {
    OF_CHECK(!reduced[d] || x->shape()[d] > 0, IndexError, op, "(): Expected reduction dim ", d,
             " to have non-zero size.");
  }
}

// ---- sum, mean, nansum -------------------------------------------------------

void InferSumAll(OpCall& call) {
  call.compute_dtype = SumDType(call.tensor(0), call.args[1]);
  call.cast_inputs = true;
  call.out_meta = {{{}, call.compute_dtype}};
}

// sum.dim and nansum: (self, dim, keepdim, *, dtype).
void InferSumDim(OpCall& call) {
  const TensorImplPtr& x = call.tensor(0);
  auto reduced = ReducedDims(call.args[1], x->ndim(), call.name().c_str());
  DType d = SumDType(x, call.args[3]);
  SetReduction(call, reduced, call.args[2].to_bool(), d, d);
}

TensorList SumAllGrad(BackwardCtx& c) { return {Call("expand", {c.grad(), c.input(0)->shape()})}; }

TensorList SumDimGrad(BackwardCtx& c) {
  TensorImplPtr x = c.input(0);
  auto reduced = ReducedDims(c.arg(1), x->ndim(), "sum");
  return {ExpandReduced(c.grad(), x->shape(), reduced, c.arg(2).to_bool())};
}

OF_OP("sum(Tensor self, *, ScalarType? dtype=None) -> Tensor")
    .Infer(InferSumAll)
    .Backward(SumAllGrad)
    .Sbp(sbp::Reduction("sum"))
    .Autocast(amp::kNone, amp::kFp32);
OF_OP("sum.dim(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor")
    .Infer(InferSumDim)
    .Backward(SumDimGrad)
    .Sbp(sbp::Reduction("sum"))
    .Autocast(amp::kNone, amp::kFp32);

// nansum: NaNs count as zero, so they get no gradient.
OF_OP(
    "nansum(Tensor self, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> "
    "Tensor")
    .Infer(InferSumDim)
    .Backward([](BackwardCtx& c) -> TensorList {
      TensorImplPtr x = c.input(0);
      auto reduced = ReducedDims(c.arg(1), x->ndim(), "nansum");
      TensorImplPtr g = KeepDims(c.grad(), x->shape(), reduced, c.arg(2).to_bool());
      return {Where(Call("isnan", {x}), Num(0), Call("expand", {g, x->shape()}))};
    })
    .Sbp(sbp::Reduction("sum"))
    .Autocast(amp::kNone);

// mean: floating inputs only, as in PyTorch.
void CheckMeanDType(const OpCall& call, DType d) {
  OF_CHECK(IsFloatingPoint(d), RuntimeError,
           "mean(): needs a floating point input (or dtype=), got ", DTypeName(d));
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
  SetReduction(call, reduced, call.args[2].to_bool(), d, d);
}
OF_OP("mean(Tensor self, *, ScalarType? dtype=None) -> Tensor")
    .Infer(InferMeanAll)
    .Backward([](BackwardCtx& c) -> TensorList {
      TensorImplPtr x = c.input(0);
      return {Call("expand", {Div(c.grad(), Num(static_cast<double>(x->numel()))), x->shape()})};
    })
    .Sbp(sbp::Reduction("mean"))
    .Autocast(amp::kNone);
OF_OP("mean.dim(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor")
    .Infer(InferMeanDim)
    .Backward([](BackwardCtx& c) -> TensorList {
      TensorImplPtr x = c.input(0);
      auto reduced = ReducedDims(c.arg(1), x->ndim(), "mean");
      double n = static_cast<double>(ReducedCount(x->shape(), reduced));
      return {ExpandReduced(Div(c.grad(), Num(n)), x->shape(), reduced, c.arg(2).to_bool())};
    })
    .Sbp(sbp::Reduction("mean"))
    .Autocast(amp::kNone);

// ---- prod ----------------------------------------------------------------------

void InferProdAll(OpCall& call) {
  const TensorImplPtr& x = call.tensor(0);
  DType d = SumDType(x, call.args[1]);
  SetReduction(call, std::vector<bool>(x->ndim(), true), false, d, d);
}
void InferProdDim(OpCall& call) {
  const TensorImplPtr& x = call.tensor(0);
  DType d = SumDType(x, call.args[3]);
  SetReduction(call, ReducedDim(call.args[1].to_int(), x->ndim()), call.args[2].to_bool(), d, d);
}

// d prod / d x_k is the product of the other elements. Without a zero in the
// reduced slice that is out / x_k (PyTorch's formula, so inf and NaN spread the
// same way). With one zero, the zero's position gets the product of the rest
// and the others 0, or NaN when the rest holds an inf or NaN (0 * inf). With
// more zeros every product of others is 0: PyTorch's prod() gives exactly 0,
// its prod(dim) the IEEE product (NaN beside an inf or NaN), which
// `nan_beside_zeros` selects. (Once any slice has a zero, PyTorch's prod(dim)
// also takes IEEE products in the zero-free slices, which differs from
// out / x_k only at an inf or NaN there.) `g` and `out` have the reduced dims
// as size 1; `rest_of` reduces like the forward, keeping dims.
TensorImplPtr ProdGrad(const TensorImplPtr& x, const TensorImplPtr& g, const TensorImplPtr& out,
                       const std::vector<bool>& reduced,
                       const std::function<TensorImplPtr(const TensorImplPtr&)>& rest_of,
                       bool nan_beside_zeros) {
  TensorImplPtr zero = Eq(x, Num(0));
  TensorImplPtr zeros = SumKeep(zero, reduced);
  TensorImplPtr x_or_one = Where(zero, Num(1), x);
  TensorImplPtr rest = rest_of(x_or_one);  // the product of the nonzero elements
  TensorImplPtr bad = Call("logical_not", {Call("isfinite", {x})});
  TensorImplPtr bad_count = SumKeep(bad, reduced);
  TensorImplPtr bad_elsewhere =
      Where(bad, Call("gt", {bad_count, Int(1)}), Call("gt", {bad_count, Int(0)}));
  // In x's dtype: a where() of two numbers would compute in the default dtype.
  TensorImplPtr zero_times_rest = Where(bad_elsewhere, Num(kNaN), ZerosLike(x));
  TensorImplPtr one_zero = Where(zero, rest, zero_times_rest);
  TensorImplPtr more_zeros = nan_beside_zeros ? zero_times_rest : ZerosLike(x);
  TensorImplPtr others =
      Where(Eq(zeros, Int(0)), Div(out, x_or_one), Where(Eq(zeros, Int(1)), one_zero, more_zeros));
  return Mul(g, others);
}

OF_OP("prod(Tensor self, *, ScalarType? dtype=None) -> Tensor")
    .Infer(InferProdAll)
    .Backward([](BackwardCtx& c) -> TensorList {
      TensorImplPtr x = c.input(0);
      std::vector<bool> all(x->ndim(), true);
      auto rest_of = [](const TensorImplPtr& t) { return Call("prod", {t}); };
      return {ProdGrad(x, c.grad(), c.output(0), all, rest_of, false)};
    })
    .Sbp(sbp::Reduction())
    .Autocast(amp::kFp32);
OF_OP("prod.dim_int(Tensor self, int dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor")
    .Infer(InferProdDim)
    .Backward([](BackwardCtx& c) -> TensorList {
      TensorImplPtr x = c.input(0);
      if (x->ndim() == 0) return {c.grad()};
      int64_t dim = WrapDim(c.int_arg(1), x->ndim());
      auto reduced = ReducedDim(dim, x->ndim());
      bool keepdim = c.arg(2).to_bool();
      auto rest_of = [dim](const TensorImplPtr& t) { return Call("prod.dim_int", {t, dim, true}); };
      return {ProdGrad(x, KeepDims(c.grad(), x->shape(), reduced, keepdim),
                       KeepDims(c.output(0), x->shape(), reduced, keepdim), reduced, rest_of,
                       true)};
    })
    .Sbp(sbp::Reduction())
    .Autocast(amp::kFp32);

// ---- max, min, amax, amin, argmax, argmin -----------------------------------------

// max(self)/min(self): every element.
void InferExtremeAll(OpCall& call) {
  const TensorImplPtr& x = call.tensor(0);
  std::vector<bool> all(x->ndim(), true);
  CheckNonEmptyReduction(x, all, true, call.name().c_str(), false);
  SetReduction(call, all, false, x->dtype(), x->dtype());
}

// max.dim/min.dim: values and int64 indices.
void InferExtremeDim(OpCall& call) {
  const TensorImplPtr& x = call.tensor(0);
  auto reduced = ReducedDim(call.args[1].to_int(), x->ndim());
  CheckNonEmptyReduction(x, reduced, false, call.name().c_str(), false);
  bool keepdim = call.args[2].to_bool();
  SetReduction(call, reduced, keepdim, x->dtype(), x->dtype());
  call.out_meta.push_back({call.out_meta[0].shape, DType::kInt64});
}

// amax/amin: int[1] dim=[] (empty: every dim).
void InferAmaxAmin(OpCall& call) {
  const TensorImplPtr& x = call.tensor(0);
  const char* op = call.name().c_str();
  auto reduced = ReducedDims(call.args[1], x->ndim(), op);
  bool all_dims = call.args[1].int_list().empty();
  CheckNonEmptyReduction(x, reduced, all_dims, op, false);
  SetReduction(call, reduced, call.args[2].to_bool(), x->dtype(), x->dtype());
}

// argmax/argmin: int? dim=None (every element, as if flattened).
void InferArgExtreme(OpCall& call) {
  const TensorImplPtr& x = call.tensor(0);
  const char* op = call.name().c_str();
  OF_CHECK(x->dtype() != DType::kBool, RuntimeError, op, "(): does not support bool input");
  bool all_dims = call.args[1].is_none();
  auto reduced =
      all_dims ? std::vector<bool>(x->ndim(), true) : ReducedDim(call.args[1].to_int(), x->ndim());
  CheckNonEmptyReduction(x, reduced, all_dims, op, true);
  SetReduction(call, reduced, call.args[2].to_bool(), x->dtype(), DType::kInt64);
}

// The gradient of max()/min(): split evenly among the elements equal to the
// result (the NaNs, when the result is NaN), as in PyTorch.
TensorList EvenlySplitGrad(BackwardCtx& c) {
  TensorImplPtr x = c.input(0), out = c.output(0);
  TensorImplPtr mask = Call(
      "logical_or", {Eq(x, out), Call("logical_and", {Call("isnan", {x}), Call("isnan", {out})})});
  return {Mul(mask, Div(c.grad(), Call("sum", {mask})))};
}

// The gradient of max.dim/min.dim: all of it to the selected index.
TensorList SelectedIndexGrad(BackwardCtx& c) {
  TensorImplPtr x = c.input(0);
  if (x->ndim() == 0) return {c.grad()};
  int64_t dim = WrapDim(c.int_arg(1), x->ndim());
  auto reduced = ReducedDim(dim, x->ndim());
  bool keepdim = c.arg(2).to_bool();
  TensorImplPtr g = KeepDims(c.grad(0), x->shape(), reduced, keepdim);
  TensorImplPtr index = KeepDims(c.output(1), x->shape(), reduced, keepdim);
  // 0, 1, ..., n-1 along `dim` (a constant: no history).
  DimVector positions_shape(x->ndim(), 1);
  positions_shape[dim] = x->shape()[dim];
  TensorImplPtr positions = Reshape(Arange(Scalar::Int(0), Scalar::Int(x->shape()[dim]),
                                           Scalar::Int(1), DType::kInt64, index->device()),
                                    positions_shape);
  return {Where(Eq(positions, index), g, Num(0))};
}

// The gradient of amax/amin: split evenly among the elements equal to the
// result within each reduced slice, as in PyTorch (a NaN result matches no
// element, so its slice's gradient is NaN).
TensorList AmaxAminGrad(BackwardCtx& c) {
  TensorImplPtr x = c.input(0);
  auto reduced = ReducedDims(c.arg(1), x->ndim(), "amax");
  bool keepdim = c.arg(2).to_bool();
  TensorImplPtr out = KeepDims(c.output(0), x->shape(), reduced, keepdim);
  TensorImplPtr g = KeepDims(c.grad(), x->shape(), reduced, keepdim);
  TensorImplPtr mask = Eq(x, out);
  return {Mul(Div(g, SumKeep(mask, reduced)), mask)};
}

// max(Tensor, Tensor) is maximum; a Python number is refused, as in PyTorch.
template <bool kIsMax>
void BinaryExtreme(OpCall& call) {
  const char* op = kIsMax ? "max" : "min";
  OF_CHECK(!call.args[1].is_wrapped_number(), TypeError, op,
           "(): argument 'other' must be Tensor, not a number");
  OF_CHECK(!call.args[0].is_wrapped_number(), TypeError, op,
           "(): argument 'input' must be Tensor, not a number");
  call.outputs = {Call(kIsMax ? "maximum" : "minimum", {call.args[0], call.args[1]})};
}

OF_OP("max(Tensor self) -> Tensor").Infer(InferExtremeAll).Backward(EvenlySplitGrad)
    .Sbp(sbp::Reduction())
    .Autocast(amp::kNone);
OF_OP("max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)")
    .Infer(InferExtremeDim)
    .Backward(SelectedIndexGrad)
    .Sbp(sbp::Reduction("", 2))
    .Autocast(amp::kNone);
OF_OP("max.other(Tensor self, Tensor other) -> Tensor").Composite(BinaryExtreme<true>)
    .Sbp(sbp::Elementwise())
    .Autocast(amp::kNone)
    .Traits(kElementwise);
OF_OP("min(Tensor self) -> Tensor").Infer(InferExtremeAll).Backward(EvenlySplitGrad)
    .Sbp(sbp::Reduction())
    .Autocast(amp::kNone);
OF_OP("min.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)")
    .Infer(InferExtremeDim)
    .Backward(SelectedIndexGrad)
    .Sbp(sbp::Reduction("", 2))
    .Autocast(amp::kNone);
OF_OP("min.other(Tensor self, Tensor other) -> Tensor").Composite(BinaryExtreme<false>)
    .Sbp(sbp::Elementwise())
    .Autocast(amp::kNone)
    .Traits(kElementwise);
OF_OP("amax(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor")
    .Infer(InferAmaxAmin)
    .Backward(AmaxAminGrad)
    .Sbp(sbp::Reduction())
    .Autocast(amp::kNone);
OF_OP("amin(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor")
    .Infer(InferAmaxAmin)
    .Backward(AmaxAminGrad)
    .Sbp(sbp::Reduction())
    .Autocast(amp::kNone);
OF_OP("argmax(Tensor self, int? dim=None, bool keepdim=False) -> Tensor")
    .Infer(InferArgExtreme)
    .NonDifferentiable()
    .Sbp(sbp::Family("reduction", "flat_without_dim=1"))
    .Autocast(amp::kNone);
OF_OP("argmin(Tensor self, int? dim=None, bool keepdim=False) -> Tensor")
    .Infer(InferArgExtreme)
    .NonDifferentiable()
    .Sbp(sbp::Family("reduction", "flat_without_dim=1"))
    .Autocast(amp::kNone);

// ---- std, var ------------------------------------------------------------------------

// std.correction/var.correction: (self, dim=None, *, correction=None, keepdim).
// The divisor is max(0, N - correction).
void InferStdVar(OpCall& call) {
  const TensorImplPtr& x = call.tensor(0);
  OF_CHECK(IsFloatingPoint(x->dtype()), RuntimeError, call.name(),
           "(): std and var only support floating point and complex dtypes, got ",
           DTypeName(x->dtype()));
  auto reduced = ReducedDims(call.args[1], x->ndim(), call.name().c_str());
  SetReduction(call, reduced, call.args[3].to_bool(), x->dtype(), x->dtype());
}

// d var / dx = 2 (x - mean) / (N - correction). Unlike the forward, the
// divisor is not clamped at 0, as in PyTorch (with N <= correction the result
// is inf or NaN anyway). `g` has the reduced dims kept.
TensorImplPtr VarGrad(const TensorImplPtr& x, const TensorImplPtr& g,
                      const std::vector<bool>& reduced, double correction) {
  double dof = static_cast<double>(ReducedCount(x->shape(), reduced)) - correction;
  TensorImplPtr mean = Call("mean.dim", {x, DimList(reduced), true});
  return Mul(Mul(g, Num(2.0 / dof)), Sub(x, mean));
}

template <bool kStd>
TensorList StdVarGrad(BackwardCtx& c) {
  TensorImplPtr x = c.input(0);
  auto reduced = ReducedDims(c.arg(1), x->ndim(), kStd ? "std" : "var");
  bool keepdim = c.arg(3).to_bool();
  TensorImplPtr g = KeepDims(c.grad(), x->shape(), reduced, keepdim);
  if (kStd) {
    // d std = d var / (2 std); zero where std is 0, as in PyTorch.
    TensorImplPtr out = KeepDims(c.output(0), x->shape(), reduced, keepdim);
    g = Where(Eq(out, Num(0)), Num(0), Div(g, Mul(out, Num(2))));
  }
  return {VarGrad(x, g, reduced, VarCorrection(c.arg(2)))};
}

// std(self, unbiased) and std.dim(self, dim, unbiased, keepdim) are
// std.correction with correction 1 or 0.
template <bool kStd>
void StdVarUnbiasedAll(OpCall& call) {
  Scalar correction = Scalar::Int(call.args[1].to_bool() ? 1 : 0);
  call.outputs = {
      Call(kStd ? "std.correction" : "var.correction", {call.args[0], Value(), correction, false})};
}
template <bool kStd>
void StdVarUnbiasedDim(OpCall& call) {
  Scalar correction = Scalar::Int(call.args[2].to_bool() ? 1 : 0);
  call.outputs = {Call(kStd ? "std.correction" : "var.correction",
                       {call.args[0], call.args[1], correction, call.args[3]})};
}

OF_OP("std(Tensor self, bool unbiased=True) -> Tensor").Composite(StdVarUnbiasedAll<true>)
    .Sbp(sbp::Reduction())
    .Autocast(amp::kNone);
OF_OP("std.dim(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False) -> Tensor")
    .Composite(StdVarUnbiasedDim<true>)
    .Sbp(sbp::Reduction())
    .Autocast(amp::kNone);
OF_OP(
    "std.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool "
    "keepdim=False) -> Tensor")
    .Infer(InferStdVar)
    .Backward(StdVarGrad<true>)
    .Sbp(sbp::Reduction())
    .Autocast(amp::kNone);
OF_OP("var(Tensor self, bool unbiased=True) -> Tensor").Composite(StdVarUnbiasedAll<false>)
    .Sbp(sbp::Reduction())
    .Autocast(amp::kNone);
OF_OP("var.dim(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False) -> Tensor")
    .Composite(StdVarUnbiasedDim<false>)
    .Sbp(sbp::Reduction())
    .Autocast(amp::kNone);
OF_OP(
    "var.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool "
    "keepdim=False) -> Tensor")
    .Infer(InferStdVar)
    .Backward(StdVarGrad<false>)
    .Sbp(sbp::Reduction())
    .Autocast(amp::kNone);

// ---- norm ------------------------------------------------------------------------------

// norm: the vector p-norm over `dim` (every element when None or empty) of a
// floating tensor, computed in `dtype` when given (which must not narrow).
void InferNorm(OpCall& call) {
  const TensorImplPtr& x = call.tensor(0);
  OF_CHECK(IsFloatingPoint(x->dtype()), RuntimeError,
           "norm(): Expected a floating point or complex tensor as input. Got ",
           DTypeName(x->dtype()));
  DType d = x->dtype();
  if (!call.args[4].is_none()) {
    DType want = call.args[4].dtype();
    OF_CHECK(IsFloatingPoint(want), RuntimeError,
             "norm(): dtype should be floating point or complex, but got ", DTypeName(want));
    OF_CHECK(PromoteTypes(d, want) == want, RuntimeError, "norm(): the dtype of the input (",
             DTypeName(d), ") should be convertible without narrowing to the specified dtype (",
             DTypeName(want), ")");
    d = want;
  }
  auto reduced = ReducedDims(call.args[2], x->ndim(), "norm");
  double p = NormOrder(call.args[1]);
  if (p < 0 || std::isinf(p)) {
    // max/min of |x| and negative powers have no identity for empty slices.
    bool all_dims = call.args[2].is_none() || call.args[2].int_list().empty();
    if (all_dims) {
      OF_CHECK(x->numel() > 0, RuntimeError, "norm(): cannot compute the ", p,
               " norm on an empty tensor because the operation does not have an identity");
    } else {
      for (int64_t k = 0; k < x->ndim(); ++k) {
        OF_CHECK(!reduced[k] || x->shape()[k] > 0, RuntimeError, "norm(): cannot compute the ", p,
                 " norm on the dimension ", k,
                 " because this dimension is empty and the operation does not have an identity");
      }
    }
  }
  SetReduction(call, reduced, call.args[3].to_bool(), d, d);
}

// The gradient of the p-norm, sign(x) |x|^(p-1) / norm^(p-1), with PyTorch's
// choices where it is undefined: 0 where the norm is 0 (p >= 1) or where x is
// 0 (p < 1); for p = +-inf split evenly among the elements of extreme |x|.
TensorList NormGrad(BackwardCtx& c) {
  double p = NormOrder(c.arg(1));
  if (p == 0) return {nullptr};  // piecewise constant: no gradient flows, as in PyTorch
  TensorImplPtr x = c.input(0);
  auto reduced = ReducedDims(c.arg(2), x->ndim(), "norm");
  bool keepdim = c.arg(3).to_bool();
  TensorImplPtr g = KeepDims(c.grad(), x->shape(), reduced, keepdim);
  TensorImplPtr norm = KeepDims(c.output(0), x->shape(), reduced, keepdim);
  if (p == 1) return {Mul(Sgn(x), g)};
  if (p == 2) return {Mul(x, Where(Eq(norm, Num(0)), Num(0), Div(g, norm)))};
  TensorImplPtr abs = Unary("abs", x);
  if (std::isinf(p)) {
    TensorImplPtr mask = Eq(abs, norm);
    TensorImplPtr share = Div(g, SumKeep(mask, reduced));
    return {Where(mask, Mul(Sgn(x), share), Num(0))};
  }
  if (p < 1) {
    TensorImplPtr scaled =
        Where(Eq(x, Num(0)), Num(0), Mul(Sgn(x), Call("pow", {abs, Num(p - 1)})));
    return {Mul(scaled, Mul(g, Call("pow", {norm, Num(1 - p)})))};
  }
  TensorImplPtr scale = Where(Eq(norm, Num(0)), Num(0), Div(g, Call("pow", {norm, Num(p - 1)})));
  TensorImplPtr scaled =
      p < 2 ? Mul(Sgn(x), Call("pow", {abs, Num(p - 1)})) : Mul(x, Call("pow", {abs, Num(p - 2)}));
  return {Mul(scaled, scale)};
}

// norm(x, "fro") is the 2-norm over at most two dims; the nuclear norm needs
// an SVD, which is not available.
void NormStr(OpCall& call) {
  const std::string& p = call.args[1].str();
  OF_CHECK(p != "nuc", NotImplementedError, "norm(): the nuclear norm (p='nuc') is not supported");
  OF_CHECK(p == "fro", RuntimeError, "norm(): Order ", p, " not supported.");
  OF_CHECK(call.args[2].is_none() || call.args[2].int_list().size() <= 2, RuntimeError,
           "norm(): p='fro' reduces at most 2 dims, got ", ShapeToString(call.args[2].int_list()));
  call.outputs = {
      Call("norm", {call.args[0], Scalar::Int(2), call.args[2], call.args[3], call.args[4]})};
}

OF_OP(
    "norm(Tensor self, Scalar? p=2, int[1]? dim=None, bool keepdim=False, *, ScalarType? "
    "dtype=None) -> Tensor")
    .Infer(InferNorm)
    .Backward(NormGrad)
    .Sbp(sbp::Reduction())
    .Autocast(amp::kNone, amp::kFp32);
OF_OP(
    "norm.str(Tensor self, str p, int[1]? dim=None, bool keepdim=False, *, ScalarType? "
    "dtype=None) -> Tensor")
    .Composite(NormStr)
    .Sbp(sbp::Reduction())
    .Autocast(amp::kNone, amp::kFp32);

// ---- logsumexp -------------------------------------------------------------------------

// Integers compute in the default float dtype. An empty dim list is refused
// for a tensor with dims, as PyTorch's kernel does.
void InferLogsumexp(OpCall& call) {
  const TensorImplPtr& x = call.tensor(0);
  const DimVector& dims = call.args[1].int_list();
  OF_CHECK(!dims.empty() || x->ndim() == 0, RuntimeError,
           "logsumexp(): expected a non-empty dim list for a tensor with ", x->ndim(), " dims");
  auto reduced = ReducedDims(call.args[1], x->ndim(), "logsumexp");
  DType d = IsFloatingPoint(x->dtype()) ? x->dtype() : DefaultFloatDType();
  SetReduction(call, reduced, call.args[2].to_bool(), d, d);
}
OF_OP("logsumexp(Tensor self, int[1] dim, bool keepdim=False) -> Tensor")
    .Infer(InferLogsumexp)
    .Backward([](BackwardCtx& c) -> TensorList {
      TensorImplPtr x = c.input(0);
      auto reduced = ReducedDims(c.arg(1), x->ndim(), "logsumexp");
      bool keepdim = c.arg(2).to_bool();
      TensorImplPtr out = KeepDims(c.output(0), x->shape(), reduced, keepdim);
      TensorImplPtr g = KeepDims(c.grad(), x->shape(), reduced, keepdim);
      return {Mul(g, Unary("exp", Sub(x, out)))};
    })
    .Sbp(sbp::Reduction())
    .Autocast(amp::kNone, amp::kFp32);

// ---- all, any ------------------------------------------------------------------------------

// Bool results, except uint8 inputs give uint8 (PyTorch keeps that for
// backward compatibility).
void SetAllAny(OpCall& call, const std::vector<bool>& reduced, bool keepdim) {
  const TensorImplPtr& x = call.tensor(0);
  DType out = x->dtype() == DType::kUInt8 ? DType::kUInt8 : DType::kBool;
  SetReduction(call, reduced, keepdim, x->dtype(), out);
}
void InferAllAnyAll(OpCall& call) {
  SetAllAny(call, std::vector<bool>(call.tensor(0)->ndim(), true), false);
}
void InferAllAnyDim(OpCall& call) {
  SetAllAny(call, ReducedDim(call.args[1].to_int(), call.tensor(0)->ndim()),
            call.args[2].to_bool());
}
void InferAllAnyDims(OpCall& call) {
  SetAllAny(call,
            ReducedDims(call.args[1], call.tensor(0)->ndim(), call.name().c_str(),
                        /*empty_means_all=*/false),
            call.args[2].to_bool());
}
OF_OP("all(Tensor self) -> Tensor").Infer(InferAllAnyAll).NonDifferentiable()
    .Sbp(sbp::Reduction())
    .Autocast(amp::kNone);
OF_OP("all.dim(Tensor self, int dim, bool keepdim=False) -> Tensor")
    .Infer(InferAllAnyDim)
    .NonDifferentiable()
    .Sbp(sbp::Reduction())
    .Autocast(amp::kNone);
OF_OP("all.dims(Tensor self, int[]? dim=None, bool keepdim=False) -> Tensor")
    .Infer(InferAllAnyDims)
    .NonDifferentiable()
    .Sbp(sbp::Reduction())
    .Autocast(amp::kNone);
OF_OP("any(Tensor self) -> Tensor").Infer(InferAllAnyAll).NonDifferentiable()
    .Sbp(sbp::Reduction())
    .Autocast(amp::kNone);
OF_OP("any.dim(Tensor self, int dim, bool keepdim=False) -> Tensor")
    .Infer(InferAllAnyDim)
    .NonDifferentiable()
    .Sbp(sbp::Reduction())
    .Autocast(amp::kNone);
OF_OP("any.dims(Tensor self, int[]? dim=None, bool keepdim=False) -> Tensor")
    .Infer(InferAllAnyDims)
    .NonDifferentiable()
    .Sbp(sbp::Reduction())
    .Autocast(amp::kNone);

// ---- cumsum, cumprod -------------------------------------------------------------------------

// (self, dim, *, dtype): the input's shape; integers accumulate to int64.
void InferScan(OpCall& call) {
  const TensorImplPtr& x = call.tensor(0);
  WrapDim(call.args[1].to_int(), x->ndim());
  call.compute_dtype = SumDType(x, call.args[2]);
  call.cast_inputs = true;
  call.out_meta = {{x->shape(), call.compute_dtype}};
}

// The gradient of cumsum: a cumulative sum from the end.
void InferCumsumBackward(OpCall& call) {
  const TensorImplPtr& g = call.tensor(0);
  WrapDim(call.args[1].to_int(), g->ndim());
  call.compute_dtype = g->dtype();
  call.out_meta = {{g->shape(), g->dtype()}};
}

// d cumprod_i / d x_k = prod_{j <= i, j != k} x_j for i >= k, a sum over i
// that drops the terms holding a zero (they are exactly 0), as PyTorch does.
// Before the first zero z of the slice only terms i < z count, and there it is
// sum_{i >= k} g_i out_i / x_k. At z, terms up to the next zero count: the
// reverse cumulative sum of g times the cumulative product with x_z replaced
// by 1. After z it is 0. No division by zero, so zeros get exact gradients.
TensorImplPtr CumprodGrad(const TensorImplPtr& x, const TensorImplPtr& g, const TensorImplPtr& out,
                          int64_t dim) {
  auto reverse_cumsum = [dim](const TensorImplPtr& t) { return Call("cumsum_backward", {t, dim}); };
  TensorImplPtr zero = Eq(x, Num(0));
  TensorImplPtr zeros_so_far = Call("cumsum", {zero, dim});
  TensorImplPtr before = Eq(zeros_so_far, Int(0));
  TensorImplPtr at_first = Call("logical_and", {zero, Eq(zeros_so_far, Int(1))});
  TensorImplPtr grad_before =
      Div(reverse_cumsum(Where(before, Mul(g, out), Num(0))), Where(zero, Num(1), x));
  TensorImplPtr skip_first = Call("cumprod", {Where(at_first, Num(1), x), dim});
  TensorImplPtr up_to_second = Call("le", {zeros_so_far, Int(1)});
  TensorImplPtr grad_at = reverse_cumsum(Where(up_to_second, Mul(g, skip_first), Num(0)));
  return Where(before, grad_before, Where(at_first, grad_at, Num(0)));
}

OF_OP("cumsum(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor")
    .Infer(InferScan)
    .Backward([](BackwardCtx& c) -> TensorList {
      return {Call("cumsum_backward", {c.grad(), c.int_arg(1)})};
    })
    .Sbp(sbp::Family("along_dim", "linear=1"))
    .Autocast(amp::kNone, amp::kFp32);
OF_OP("cumsum_backward(Tensor grad, int dim) -> Tensor")
    .Infer(InferCumsumBackward)
    .Backward([](BackwardCtx& c) -> TensorList {
      return {Call("cumsum", {c.grad(), c.int_arg(1)})};
    })
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kNone);
OF_OP("cumprod(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor")
    .Infer(InferScan)
    .Backward([](BackwardCtx& c) -> TensorList {
      TensorImplPtr x = c.input(0);
      if (x->ndim() == 0) return {c.grad()};
      return {CumprodGrad(x, c.grad(), c.output(0), WrapDim(c.int_arg(1), x->ndim()))};
    })
    .Sbp(sbp::Family("along_dim"))
    .Autocast(amp::kNone, amp::kFp32);

// ---- sum_to_size ---------------------------------------------------------------------------

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
OF_OP("sum_to_size(Tensor self, int[] size) -> Tensor").Composite(SumToSize)
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kNone);

}  // namespace
}  // namespace defs
}  // namespace oneflow
