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
  if (!keepdim) t = ops::reshape(g, ReducedShape(input_shape, reduced, true));
  return ops::expand(t, input_shape);
}

double NormOrder(const Value& p) { return p.is_none() ? 2.0 : p.scalar().d; }

DType SumDType(const TensorImplPtr& x, const Value& dtype) {
  if (!dtype.is_none()) return dtype.dtype();
  return IsFloatingPoint(x->dtype()) ? x->dtype() : DType::kInt64;
}

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
  return ops::reshape(t, ReducedShape(input_shape, reduced, true));
}

TensorImplPtr Eq(const Value& a, const Value& b) { return ops::eq(a, b); }
TensorImplPtr Where(const TensorImplPtr& cond, const Value& a, const Value& b) {
  return ops::where(cond, a, b);
}
TensorImplPtr SumKeep(const TensorImplPtr& t, const std::vector<bool>& reduced) {
  return ops::sum_dim(t, DimList(reduced), true);
}

// sign(x) with sign(NaN) = 0, as PyTorch's sgn gives in norm gradients.
TensorImplPtr Sgn(const TensorImplPtr& x) {
  return Where(ops::gt(x, Num(0)), Num(1), Where(ops::lt(x, Num(0)), Num(-1), ZerosLike(x)));
}

// ---- shared inference --------------------------------------------------------

// A reduction computing in `compute` and returning `out` (inputs cast to `compute`).
// `self` is argument 0 of every reduction that uses this.
void SetReduction(OpCall& call, const std::vector<bool>& reduced, bool keepdim, DType compute,
                  DType out) {
  const TensorImplPtr& x = call.tensor(arg::sum::self);
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
  call.compute_dtype = SumDType(call.tensor(arg::sum::self), call.args[arg::sum::dtype]);
  call.cast_inputs = true;
  call.out_meta = {{{}, call.compute_dtype}};
}

// sum.dim and nansum: (self, dim, keepdim, *, dtype), the same indices.
void InferSumDim(OpCall& call) {
  const TensorImplPtr& x = call.tensor(arg::sum_dim::self);
  auto reduced = ReducedDims(call.args[arg::sum_dim::dim], x->ndim(), call.name().c_str());
  DType d = SumDType(x, call.args[arg::sum_dim::dtype]);
  SetReduction(call, reduced, call.get(arg::sum_dim::keepdim), d, d);
}

TensorList SumAllGrad(BackwardCtx& c) {
  return {ops::expand(c.grad(), c.get(arg::sum::self)->shape())};
}

TensorList SumDimGrad(BackwardCtx& c) {
  TensorImplPtr x = c.get(arg::sum_dim::self);
  auto reduced = ReducedDims(c.arg(arg::sum_dim::dim), x->ndim(), "sum");
  return {ExpandReduced(c.grad(), x->shape(), reduced, c.get(arg::sum_dim::keepdim))};
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
      TensorImplPtr x = c.get(arg::nansum::self);
      auto reduced = ReducedDims(c.arg(arg::nansum::dim), x->ndim(), "nansum");
      TensorImplPtr g = KeepDims(c.grad(), x->shape(), reduced, c.get(arg::nansum::keepdim));
      return {Where(ops::isnan(x), Num(0), ops::expand(g, x->shape()))};
    })
    .Sbp(sbp::Reduction("sum"))
    .Autocast(amp::kNone);

// mean: floating inputs only, as in PyTorch.
void CheckMeanDType(const OpCall& call, DType d) {
  OF_CHECK(IsFloatingPoint(d), RuntimeError,
           "mean(): needs a floating point input (or dtype=), got ", DTypeName(d));
}
void InferMeanAll(OpCall& call) {
  DType d = call.get(arg::mean::dtype).value_or(call.tensor(arg::mean::self)->dtype());
  CheckMeanDType(call, d);
  call.compute_dtype = d;
  call.cast_inputs = true;
  call.out_meta = {{{}, d}};
}
void InferMeanDim(OpCall& call) {
  const TensorImplPtr& x = call.tensor(arg::mean_dim::self);
  DType d = call.get(arg::mean_dim::dtype).value_or(x->dtype());
  CheckMeanDType(call, d);
  auto reduced = ReducedDims(call.args[arg::mean_dim::dim], x->ndim(), "mean");
  SetReduction(call, reduced, call.get(arg::mean_dim::keepdim), d, d);
}
OF_OP("mean(Tensor self, *, ScalarType? dtype=None) -> Tensor")
    .Infer(InferMeanAll)
    .Backward([](BackwardCtx& c) -> TensorList {
      TensorImplPtr x = c.get(arg::mean::self);
      return {ops::expand(Div(c.grad(), Num(static_cast<double>(x->numel()))), x->shape())};
    })
    .Sbp(sbp::Reduction("mean"))
    .Autocast(amp::kNone);
OF_OP("mean.dim(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor")
    .Infer(InferMeanDim)
    .Backward([](BackwardCtx& c) -> TensorList {
      TensorImplPtr x = c.get(arg::mean_dim::self);
      auto reduced = ReducedDims(c.arg(arg::mean_dim::dim), x->ndim(), "mean");
      double n = static_cast<double>(ReducedCount(x->shape(), reduced));
      return {
          ExpandReduced(Div(c.grad(), Num(n)), x->shape(), reduced, c.get(arg::mean_dim::keepdim))};
    })
    .Sbp(sbp::Reduction("mean"))
    .Autocast(amp::kNone);

// ---- prod ----------------------------------------------------------------------

void InferProdAll(OpCall& call) {
  const TensorImplPtr& x = call.tensor(arg::prod::self);
  DType d = SumDType(x, call.args[arg::prod::dtype]);
  SetReduction(call, std::vector<bool>(x->ndim(), true), false, d, d);
}
void InferProdDim(OpCall& call) {
  const TensorImplPtr& x = call.tensor(arg::prod_dim_int::self);
  DType d = SumDType(x, call.args[arg::prod_dim_int::dtype]);
  SetReduction(call, ReducedDim(call.get(arg::prod_dim_int::dim), x->ndim()),
               call.get(arg::prod_dim_int::keepdim), d, d);
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
  TensorImplPtr bad = ops::logical_not(ops::isfinite(x));
  TensorImplPtr bad_count = SumKeep(bad, reduced);
  TensorImplPtr bad_elsewhere = Where(bad, ops::gt(bad_count, Int(1)), ops::gt(bad_count, Int(0)));
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
      TensorImplPtr x = c.get(arg::prod::self);
      std::vector<bool> all(x->ndim(), true);
      auto rest_of = [](const TensorImplPtr& t) { return ops::prod(t); };
      return {ProdGrad(x, c.grad(), c.output(0), all, rest_of, false)};
    })
    .Sbp(sbp::Reduction())
    .Autocast(amp::kFp32);
OF_OP("prod.dim_int(Tensor self, int dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor")
    .Infer(InferProdDim)
    .Backward([](BackwardCtx& c) -> TensorList {
      TensorImplPtr x = c.get(arg::prod_dim_int::self);
      if (x->ndim() == 0) return {c.grad()};
      int64_t dim = WrapDim(c.get(arg::prod_dim_int::dim), x->ndim());
      auto reduced = ReducedDim(dim, x->ndim());
      bool keepdim = c.get(arg::prod_dim_int::keepdim);
      auto rest_of = [dim](const TensorImplPtr& t) { return ops::prod_dim_int(t, dim, true); };
      return {ProdGrad(x, KeepDims(c.grad(), x->shape(), reduced, keepdim),
                       KeepDims(c.output(0), x->shape(), reduced, keepdim), reduced, rest_of,
                       true)};
    })
    .Sbp(sbp::Reduction())
    .Autocast(amp::kFp32);

// ---- max, min, amax, amin, argmax, argmin -----------------------------------------

// max(self)/min(self): every element.
void InferExtremeAll(OpCall& call) {
  const TensorImplPtr& x = call.tensor(arg::max::self);
  std::vector<bool> all(x->ndim(), true);
  CheckNonEmptyReduction(x, all, true, call.name().c_str(), false);
  SetReduction(call, all, false, x->dtype(), x->dtype());
}

// max.dim/min.dim (the same indices): values and int64 indices.
void InferExtremeDim(OpCall& call) {
  const TensorImplPtr& x = call.tensor(arg::max_dim::self);
  auto reduced = ReducedDim(call.get(arg::max_dim::dim), x->ndim());
  CheckNonEmptyReduction(x, reduced, false, call.name().c_str(), false);
  bool keepdim = call.get(arg::max_dim::keepdim);
  SetReduction(call, reduced, keepdim, x->dtype(), x->dtype());
  call.out_meta.push_back({call.out_meta[0].shape, DType::kInt64});
}

// amax/amin (the same indices): int[1] dim=[] (empty: every dim).
void InferAmaxAmin(OpCall& call) {
  const TensorImplPtr& x = call.tensor(arg::amax::self);
  const char* op = call.name().c_str();
  auto reduced = ReducedDims(call.args[arg::amax::dim], x->ndim(), op);
  bool all_dims = call.args[arg::amax::dim].int_list().empty();
  CheckNonEmptyReduction(x, reduced, all_dims, op, false);
  SetReduction(call, reduced, call.get(arg::amax::keepdim), x->dtype(), x->dtype());
}

// argmax/argmin (the same indices): int? dim=None (every element, as if flattened).
void InferArgExtreme(OpCall& call) {
  const TensorImplPtr& x = call.tensor(arg::argmax::self);
  const char* op = call.name().c_str();
  OF_CHECK(x->dtype() != DType::kBool, RuntimeError, op, "(): does not support bool input");
  std::optional<int64_t> dim = call.get(arg::argmax::dim);
  bool all_dims = !dim.has_value();
  auto reduced = all_dims ? std::vector<bool>(x->ndim(), true) : ReducedDim(*dim, x->ndim());
  CheckNonEmptyReduction(x, reduced, all_dims, op, true);
  SetReduction(call, reduced, call.get(arg::argmax::keepdim), x->dtype(), DType::kInt64);
}

// The gradient of max()/min(): split evenly among the elements equal to the
// result (the NaNs, when the result is NaN), as in PyTorch.
TensorList EvenlySplitGrad(BackwardCtx& c) {
  TensorImplPtr x = c.get(arg::max::self), out = c.output(0);
  TensorImplPtr mask =
      ops::logical_or(Eq(x, out), ops::logical_and(ops::isnan(x), ops::isnan(out)));
  return {Mul(mask, Div(c.grad(), ops::sum(mask)))};
}

// The gradient of max.dim/min.dim: all of it to the selected index.
TensorList SelectedIndexGrad(BackwardCtx& c) {
  TensorImplPtr x = c.get(arg::max_dim::self);
  if (x->ndim() == 0) return {c.grad()};
  int64_t dim = WrapDim(c.get(arg::max_dim::dim), x->ndim());
  auto reduced = ReducedDim(dim, x->ndim());
  bool keepdim = c.get(arg::max_dim::keepdim);
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
  TensorImplPtr x = c.get(arg::amax::self);
  auto reduced = ReducedDims(c.arg(arg::amax::dim), x->ndim(), "amax");
  bool keepdim = c.get(arg::amax::keepdim);
  TensorImplPtr out = KeepDims(c.output(0), x->shape(), reduced, keepdim);
  TensorImplPtr g = KeepDims(c.grad(), x->shape(), reduced, keepdim);
  TensorImplPtr mask = Eq(x, out);
  return {Mul(Div(g, SumKeep(mask, reduced)), mask)};
}

// max(Tensor, Tensor) is maximum; a Python number is refused, as in PyTorch.
template <bool kIsMax>
void BinaryExtreme(OpCall& call) {
  // max.other and min.other have the same indices.
  const char* op = kIsMax ? "max" : "min";
  const Value& self = call.args[arg::max_other::self];
  const Value& other = call.args[arg::max_other::other];
  OF_CHECK(!other.is_wrapped_number(), TypeError, op,
           "(): argument 'other' must be Tensor, not a number");
  OF_CHECK(!self.is_wrapped_number(), TypeError, op,
           "(): argument 'input' must be Tensor, not a number");
  call.outputs = {kIsMax ? ops::maximum(self, other) : ops::minimum(self, other)};
}

OF_OP("max(Tensor self) -> Tensor")
    .Infer(InferExtremeAll)
    .Backward(EvenlySplitGrad)
    .Sbp(sbp::Reduction())
    .Autocast(amp::kNone);
OF_OP("max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)")
    .Infer(InferExtremeDim)
    .Backward(SelectedIndexGrad)
    .Sbp(sbp::Reduction("", 2))
    .Autocast(amp::kNone);
OF_OP("max.other(Tensor self, Tensor other) -> Tensor")
    .Composite(BinaryExtreme<true>)
    .Sbp(sbp::Elementwise())
    .Autocast(amp::kNone)
    .Traits(kElementwise);
OF_OP("min(Tensor self) -> Tensor")
    .Infer(InferExtremeAll)
    .Backward(EvenlySplitGrad)
    .Sbp(sbp::Reduction())
    .Autocast(amp::kNone);
OF_OP("min.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)")
    .Infer(InferExtremeDim)
    .Backward(SelectedIndexGrad)
    .Sbp(sbp::Reduction("", 2))
    .Autocast(amp::kNone);
OF_OP("min.other(Tensor self, Tensor other) -> Tensor")
    .Composite(BinaryExtreme<false>)
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
// (std.correction and var.correction have the same indices.)
void InferStdVar(OpCall& call) {
  const TensorImplPtr& x = call.tensor(arg::std_correction::self);
  OF_CHECK(IsFloatingPoint(x->dtype()), RuntimeError, call.name(),
           "(): std and var only support floating point and complex dtypes, got ",
           DTypeName(x->dtype()));
  auto reduced = ReducedDims(call.args[arg::std_correction::dim], x->ndim(), call.name().c_str());
  SetReduction(call, reduced, call.get(arg::std_correction::keepdim), x->dtype(), x->dtype());
}

// d var / dx = 2 (x - mean) / (N - correction). Unlike the forward, the
// divisor is not clamped at 0, as in PyTorch (with N <= correction the result
// is inf or NaN anyway). `g` has the reduced dims kept.
TensorImplPtr VarGrad(const TensorImplPtr& x, const TensorImplPtr& g,
                      const std::vector<bool>& reduced, double correction) {
  double dof = static_cast<double>(ReducedCount(x->shape(), reduced)) - correction;
  TensorImplPtr mean = ops::mean_dim(x, DimList(reduced), true);
  return Mul(Mul(g, Num(2.0 / dof)), Sub(x, mean));
}

template <bool kStd>
TensorList StdVarGrad(BackwardCtx& c) {
  TensorImplPtr x = c.get(arg::std_correction::self);
  auto reduced = ReducedDims(c.arg(arg::std_correction::dim), x->ndim(), kStd ? "std" : "var");
  bool keepdim = c.get(arg::std_correction::keepdim);
  TensorImplPtr g = KeepDims(c.grad(), x->shape(), reduced, keepdim);
  if (kStd) {
    // d std = d var / (2 std); zero where std is 0, as in PyTorch.
    TensorImplPtr out = KeepDims(c.output(0), x->shape(), reduced, keepdim);
    g = Where(Eq(out, Num(0)), Num(0), Div(g, Mul(out, Num(2))));
  }
  return {VarGrad(x, g, reduced, VarCorrection(c.arg(arg::std_correction::correction)))};
}

// std(self, unbiased) and std.dim(self, dim, unbiased, keepdim) are
// std.correction with correction 1 or 0 (var's twins have the same indices).
template <bool kStd>
void StdVarUnbiasedAll(OpCall& call) {
  Scalar correction = Scalar::Int(call.get(arg::std::unbiased) ? 1 : 0);
  const Value& self = call.args[arg::std::self];
  call.outputs = {kStd ? ops::std_correction(self, std::nullopt, correction, false)
                       : ops::var_correction(self, std::nullopt, correction, false)};
}
template <bool kStd>
void StdVarUnbiasedDim(OpCall& call) {
  Scalar correction = Scalar::Int(call.get(arg::std_dim::unbiased) ? 1 : 0);
  const Value& self = call.args[arg::std_dim::self];
  std::optional<DimVector> dim = call.get(arg::std_dim::dim);
  bool keepdim = call.get(arg::std_dim::keepdim);
  call.outputs = {kStd ? ops::std_correction(self, dim, correction, keepdim)
                       : ops::var_correction(self, dim, correction, keepdim)};
}

OF_OP("std(Tensor self, bool unbiased=True) -> Tensor")
    .Composite(StdVarUnbiasedAll<true>)
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
OF_OP("var(Tensor self, bool unbiased=True) -> Tensor")
    .Composite(StdVarUnbiasedAll<false>)
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
  const TensorImplPtr& x = call.tensor(arg::norm::self);
  OF_CHECK(IsFloatingPoint(x->dtype()), RuntimeError,
           "norm(): Expected a floating point or complex tensor as input. Got ",
           DTypeName(x->dtype()));
  DType d = x->dtype();
  if (std::optional<DType> dtype = call.get(arg::norm::dtype)) {
    DType want = *dtype;
    OF_CHECK(IsFloatingPoint(want), RuntimeError,
             "norm(): dtype should be floating point or complex, but got ", DTypeName(want));
    OF_CHECK(PromoteTypes(d, want) == want, RuntimeError, "norm(): the dtype of the input (",
             DTypeName(d), ") should be convertible without narrowing to the specified dtype (",
             DTypeName(want), ")");
    d = want;
  }
  const Value& dim = call.args[arg::norm::dim];
  auto reduced = ReducedDims(dim, x->ndim(), "norm");
  double p = NormOrder(call.args[arg::norm::p]);
  if (p < 0 || std::isinf(p)) {
    // max/min of |x| and negative powers have no identity for empty slices.
    bool all_dims = dim.is_none() || dim.int_list().empty();
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
  SetReduction(call, reduced, call.get(arg::norm::keepdim), d, d);
}

// The gradient of the p-norm, sign(x) |x|^(p-1) / norm^(p-1), with PyTorch's
// choices where it is undefined: 0 where the norm is 0 (p >= 1) or where x is
// 0 (p < 1); for p = +-inf split evenly among the elements of extreme |x|.
TensorList NormGrad(BackwardCtx& c) {
  double p = NormOrder(c.arg(arg::norm::p));
  if (p == 0) return {nullptr};  // piecewise constant: no gradient flows, as in PyTorch
  TensorImplPtr x = c.get(arg::norm::self);
  auto reduced = ReducedDims(c.arg(arg::norm::dim), x->ndim(), "norm");
  bool keepdim = c.get(arg::norm::keepdim);
  TensorImplPtr g = KeepDims(c.grad(), x->shape(), reduced, keepdim);
  TensorImplPtr norm = KeepDims(c.output(0), x->shape(), reduced, keepdim);
  if (p == 1) return {Mul(Sgn(x), g)};
  if (p == 2) return {Mul(x, Where(Eq(norm, Num(0)), Num(0), Div(g, norm)))};
  TensorImplPtr abs = ops::abs(x);
  if (std::isinf(p)) {
    TensorImplPtr mask = Eq(abs, norm);
    TensorImplPtr share = Div(g, SumKeep(mask, reduced));
    return {Where(mask, Mul(Sgn(x), share), Num(0))};
  }
  if (p < 1) {
    TensorImplPtr scaled = Where(Eq(x, Num(0)), Num(0), Mul(Sgn(x), ops::pow(abs, Num(p - 1))));
    return {Mul(scaled, Mul(g, ops::pow(norm, Num(1 - p))))};
  }
  TensorImplPtr scale = Where(Eq(norm, Num(0)), Num(0), Div(g, ops::pow(norm, Num(p - 1))));
  TensorImplPtr scaled =
      p < 2 ? Mul(Sgn(x), ops::pow(abs, Num(p - 1))) : Mul(x, ops::pow(abs, Num(p - 2)));
  return {Mul(scaled, scale)};
}

// norm(x, "fro") is the 2-norm over at most two dims; the nuclear norm needs
// an SVD, which is not available.
void NormStr(OpCall& call) {
  const std::string p = call.get(arg::norm_str::p);
  OF_CHECK(p != "nuc", NotImplementedError, "norm(): the nuclear norm (p='nuc') is not supported");
  OF_CHECK(p == "fro", RuntimeError, "norm(): Order ", p, " not supported.");
  std::optional<DimVector> dim = call.get(arg::norm_str::dim);
  OF_CHECK(!dim || dim->size() <= 2, RuntimeError, "norm(): p='fro' reduces at most 2 dims, got ",
           ShapeToString(dim ? *dim : DimVector{}));
  call.outputs = {ops::norm(call.args[arg::norm_str::self], Scalar::Int(2), dim,
                            call.get(arg::norm_str::keepdim), call.get(arg::norm_str::dtype))};
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
  const TensorImplPtr& x = call.tensor(arg::logsumexp::self);
  const DimVector& dims = call.args[arg::logsumexp::dim].int_list();
  OF_CHECK(!dims.empty() || x->ndim() == 0, RuntimeError,
           "logsumexp(): expected a non-empty dim list for a tensor with ", x->ndim(), " dims");
  auto reduced = ReducedDims(call.args[arg::logsumexp::dim], x->ndim(), "logsumexp");
  DType d = IsFloatingPoint(x->dtype()) ? x->dtype() : DefaultFloatDType();
  SetReduction(call, reduced, call.get(arg::logsumexp::keepdim), d, d);
}
OF_OP("logsumexp(Tensor self, int[1] dim, bool keepdim=False) -> Tensor")
    .Infer(InferLogsumexp)
    .Backward([](BackwardCtx& c) -> TensorList {
      TensorImplPtr x = c.get(arg::logsumexp::self);
      auto reduced = ReducedDims(c.arg(arg::logsumexp::dim), x->ndim(), "logsumexp");
      bool keepdim = c.get(arg::logsumexp::keepdim);
      TensorImplPtr out = KeepDims(c.output(0), x->shape(), reduced, keepdim);
      TensorImplPtr g = KeepDims(c.grad(), x->shape(), reduced, keepdim);
      return {Mul(g, ops::exp(Sub(x, out)))};
    })
    .Sbp(sbp::Reduction())
    .Autocast(amp::kNone, amp::kFp32);

// ---- all, any ------------------------------------------------------------------------------

// Bool results, except uint8 inputs give uint8 (PyTorch keeps that for
// backward compatibility).
// all/any and their .dim/.dims overloads: self is argument 0 of each.
void SetAllAny(OpCall& call, const std::vector<bool>& reduced, bool keepdim) {
  const TensorImplPtr& x = call.tensor(arg::all::self);
  DType out = x->dtype() == DType::kUInt8 ? DType::kUInt8 : DType::kBool;
  SetReduction(call, reduced, keepdim, x->dtype(), out);
}
void InferAllAnyAll(OpCall& call) {
  SetAllAny(call, std::vector<bool>(call.tensor(arg::all::self)->ndim(), true), false);
}
// all.dim/any.dim (the same indices).
void InferAllAnyDim(OpCall& call) {
  SetAllAny(call, ReducedDim(call.get(arg::all_dim::dim), call.tensor(arg::all_dim::self)->ndim()),
            call.get(arg::all_dim::keepdim));
}
// all.dims/any.dims (the same indices).
void InferAllAnyDims(OpCall& call) {
  SetAllAny(call,
            ReducedDims(call.args[arg::all_dims::dim], call.tensor(arg::all_dims::self)->ndim(),
                        call.name().c_str(),
                        /*empty_means_all=*/false),
            call.get(arg::all_dims::keepdim));
}
OF_OP("all(Tensor self) -> Tensor")
    .Infer(InferAllAnyAll)
    .NonDifferentiable()
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
OF_OP("any(Tensor self) -> Tensor")
    .Infer(InferAllAnyAll)
    .NonDifferentiable()
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

// ---- sum_to_size ---------------------------------------------------------------------------

// sum_to_size: sums broadcast dims away so the result has `size` (used to
// undo broadcasting in backward).
void SumToSize(OpCall& call) {
  const TensorImplPtr& x = call.tensor(arg::sum_to_size::self);
  const DimVector& size = call.args[arg::sum_to_size::size].int_list();
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
  if (!dims.empty()) out = ops::sum_dim(x, dims, true);
  if (lead > 0 || out->shape() != size) out = ops::reshape(out, size);
  call.outputs = {out};
}
OF_OP("sum_to_size(Tensor self, int[] size) -> Tensor")
    .Composite(SumToSize)
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kNone);

}  // namespace
}  // namespace defs
}  // namespace oneflow
