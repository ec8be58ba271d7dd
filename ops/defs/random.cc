// Random ops: the declarations of uniform_, normal_,
// random_, bernoulli, normal and randperm. Kernels: ops/cpu/random_kernels.cc.
//
// Random outputs have no gradient through the sampling: as in PyTorch, the
// inputs of these ops (a tensor filled in place, mean and std, probabilities)
// get zero gradients.

#include "ops/defs/random.h"

#include <chrono>
#include <limits>
#include <random>

#include "core/framework/type_promotion.h"
#include "ops/defs/common.h"

namespace oneflow {

// ---- ranges --------------------------------------------------------------------

namespace random_detail {

double LargestFinite(DType d) {
  switch (d) {
    case DType::kFloat16:
      return 65504.0;
    case DType::kBFloat16:
      return 3.3895313892515355e38;
    case DType::kFloat32:
      return std::numeric_limits<float>::max();
    case DType::kFloat64:
      return std::numeric_limits<double>::max();
    default:
      return 0.0;
  }
}

int MantissaDigits(DType d) {
  switch (d) {
    case DType::kFloat16:
      return 11;
    case DType::kBFloat16:
      return 8;
    case DType::kFloat32:
      return 24;
    default:
      return 53;
  }
}

void IntegralBounds(DType d, int64_t* lo, int64_t* hi) {
  DispatchDType(d, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, bool>) {
      *lo = 0;
      *hi = 1;
    } else if constexpr (std::is_integral_v<T>) {
      *lo = static_cast<int64_t>(std::numeric_limits<T>::lowest());
      *hi = static_cast<int64_t>(std::numeric_limits<T>::max());
    } else {
      // Floating types: the integers they hold exactly (PyTorch's default range).
      *hi = int64_t{1} << MantissaDigits(d);
      *lo = -*hi;
    }
  });
}

RandomRange RangeForRandom(const OpCall& call) {
  const DType d = call.tensor(arg::random_::self)->dtype();  // self: 0 in every overload
  const std::string& overload = call.op->schema().overload;
  int64_t lo, hi;
  IntegralBounds(d, &lo, &hi);
  const bool floating = IsFloatingPoint(d);
  int64_t from = 0;
  int64_t to_inclusive = hi;  // random_() and random_(from, None)
  bool has_to = false;
  if (overload == "to") {
    has_to = true;
    to_inclusive = call.get(arg::random__to::to);
    OF_CHECK(0 < to_inclusive, RuntimeError,
             "random_ expects 'from' to be less than 'to', but got from=0 >= to=", to_inclusive);
    to_inclusive -= 1;
  } else if (overload == "from") {
    from = call.get(arg::random__from::from);
    if (const std::optional<int64_t> to_arg = call.get(arg::random__from::to)) {
      has_to = true;
      const int64_t to = *to_arg;
      OF_CHECK(from < to, RuntimeError,
               "random_ expects 'from' to be less than 'to', but got from=", from, " >= to=", to);
      to_inclusive = to - 1;
    }
  }
  // Floating types take any bound they can represent; integers their range.
  const double flo = floating ? -LargestFinite(d) : static_cast<double>(lo);
  const double fhi = floating ? LargestFinite(d) : static_cast<double>(hi);
  OF_CHECK(static_cast<double>(from) >= flo && static_cast<double>(from) <= fhi, RuntimeError,
           "from is out of bounds for ", DTypeName(d));
  if (has_to) {
    OF_CHECK(static_cast<double>(to_inclusive) >= flo && static_cast<double>(to_inclusive) <= fhi,
             RuntimeError, "to - 1 is out of bounds for ", DTypeName(d));
  }
  OF_CHECK(from <= to_inclusive, RuntimeError,
           "random_ expects 'from' to be less than 'to', but got from=", from,
           " >= to=", static_cast<double>(to_inclusive) + 1);
  RandomRange r;
  r.from = from;
  r.span = static_cast<uint64_t>(to_inclusive) - static_cast<uint64_t>(from) + 1;  // 0: all 2^64
  return r;
}

}  // namespace random_detail

// ---- declarations ----------------------------------------------------------------

namespace defs {
namespace {

using random_detail::LargestFinite;

void RequireFloating(DType d, const char* op) {
  OF_CHECK(IsFloatingPoint(d), NotImplementedError, "\"", op, "\" not implemented for '",
           DTypeName(d), "'");
}

// The dtype a tensor argument stands for (a Python number: the default float).
DType ArgDType(const Value& v) {
  return v.is_wrapped_number() ? DefaultFloatDType() : v.tensor()->dtype();
}

// In-place fills: the result has self's shape and dtype (self: 0 in every such op).
void InferSelf(OpCall& call) {
  const TensorImplPtr& self = call.tensor(arg::uniform_::self);
  call.compute_dtype = self->dtype();
  call.out_meta = {{self->shape(), self->dtype()}};
}

void CheckStd(double std) {
  OF_CHECK(std >= 0.0, RuntimeError, "normal expects std >= 0.0, but found std ", std);
}

void InferUniform(OpCall& call) {
  const DType d = call.tensor(arg::uniform_::self)->dtype();
  RequireFloating(d, "uniform_");
  const double from = call.get(arg::uniform_::from), to = call.get(arg::uniform_::to);
  OF_CHECK(from <= to, RuntimeError,
           "uniform_ expects to return a [from, to) range, but found from=", from, " > to=", to);
  const double big = LargestFinite(d);
  OF_CHECK(from >= -big && from <= big, RuntimeError, "from is out of bounds for ", DTypeName(d));
  OF_CHECK(to >= -big && to <= big, RuntimeError, "to is out of bounds for ", DTypeName(d));
  OF_CHECK(to - from <= big, RuntimeError, "uniform_ expects to-from <= the largest ", DTypeName(d),
           " (", big, "), but found to=", to, " and from=", from,
           " which result in to-from to exceed the limit");
  InferSelf(call);
}

void InferNormalInplace(OpCall& call) {
  RequireFloating(call.tensor(arg::normal_::self)->dtype(), "normal_");
  CheckStd(call.get(arg::normal_::std));
  InferSelf(call);
}

void InferRandom(OpCall& call) {
  random_detail::RangeForRandom(call);  // checks the bounds
  InferSelf(call);
}

void InferBernoulli(OpCall& call) {
  RequireFloating(call.tensor(arg::bernoulli::self)->dtype(), "bernoulli");
  InferSelf(call);
}

void CheckProbability(double p) {
  OF_CHECK(p >= 0.0 && p <= 1.0, RuntimeError,
           "bernoulli_ expects p to be in [0, 1], but got p=", p);
}

// bernoulli.p and bernoulli_.float: same argument indices.
void InferBernoulliFloat(OpCall& call) {
  CheckProbability(call.get(arg::bernoulli_p::p));
  InferSelf(call);
}

void InferBernoulliTensor(OpCall& call) {
  const TensorImplPtr& self = call.tensor(arg::bernoulli__Tensor::self);
  const TensorImplPtr& p = call.tensor(arg::bernoulli__Tensor::p);
  RequireFloating(ArgDType(call.args[arg::bernoulli__Tensor::p]), "bernoulli_");
  OF_CHECK(p->ndim() <= self->ndim() &&
               BroadcastShapes(self->shape(), p->shape(), "bernoulli_") == self->shape(),
           RuntimeError, "bernoulli_(): the probabilities of shape ", ShapeToString(p->shape()),
           " cannot be broadcast to the shape of self ", ShapeToString(self->shape()));
  InferSelf(call);
}

// normal(mean, std): either may be a tensor; the result broadcasts them and has
// the dtype of mean (of std when mean is a number).
void InferNormal(OpCall& call) {
  const std::string& overload = call.op->schema().overload;
  const bool mean_t = overload == "Tensor_Tensor" || overload == "Tensor_float";
  const bool std_t = overload == "Tensor_Tensor" || overload == "float_Tensor";
  // mean and std have the same indices in the three overloads.
  constexpr int kMean = arg::normal_Tensor_Tensor::mean, kStd = arg::normal_Tensor_Tensor::std;
  DType d = mean_t ? ArgDType(call.args[kMean]) : ArgDType(call.args[kStd]);
  RequireFloating(d, "normal");
  if (!std_t) CheckStd(call.get(arg::normal_Tensor_float::std));
  DimVector shape;
  if (mean_t && std_t) {
    shape = BroadcastShapes(call.tensor(kMean)->shape(), call.tensor(kStd)->shape(), "normal");
  } else {
    shape = call.tensor(mean_t ? kMean : kStd)->shape();
  }
  call.compute_dtype = d;
  call.out_meta = {{shape, d}};
}

void InferNormalCreation(OpCall& call) {
  namespace a = arg::normal_float_float;
  DType d = call.get(a::dtype).value_or(DefaultFloatDType());
  RequireFloating(d, "normal");
  CheckStd(call.get(a::std));
  if (const std::optional<Device> device = call.get(a::device)) call.device = *device;
  const DimVector size = call.get(a::size);
  Numel(size);  // RuntimeError on negative sizes
  call.compute_dtype = d;
  call.out_meta = {{size, d}};
}

void InferRandperm(OpCall& call) {
  namespace a = arg::randperm;
  const int64_t n = call.get(a::n);
  OF_CHECK(n >= 0, RuntimeError, "Trying to create tensor with negative dimension ", n, ": [", n,
           "]");
  DType d = call.get(a::dtype).value_or(DType::kInt64);
  OF_CHECK(d != DType::kBool, NotImplementedError, "\"randperm\" not implemented for 'bool'");
  int64_t lo, hi;
  random_detail::IntegralBounds(d, &lo, &hi);
  OF_CHECK(n - 1 <= hi, RuntimeError, "n cannot be greater than ", hi + 1, " for ", DTypeName(d),
           " type.");
  if (const std::optional<Device> device = call.get(a::device)) call.device = *device;
  call.compute_dtype = d;
  call.out_meta = {{{n}, d}};
}

// The sampling has no gradient: every input that needs one gets zeros (OpNode
// sums them to the input's shape and casts them to its dtype).
TensorList ZeroGrads(BackwardCtx& c) {
  TensorList out(c.needs_grad.size());
  for (size_t i = 0; i < out.size(); ++i) {
    if (c.needs_grad[i]) out[i] = ZerosLike(c.grad());
  }
  return out;
}

OF_OP(
    "uniform_(Tensor(a!) self, float from=0, float to=1, *, Generator? generator=None) -> "
    "Tensor(a!)")
    .Infer(InferUniform)
    .Backward(ZeroGrads)
    .Sbp(sbp::Family("random_fill"))
    .Autocast(amp::kNone)
    .Traits(kRandom);
OF_OP(
    "normal_(Tensor(a!) self, float mean=0, float std=1, *, Generator? generator=None) -> "
    "Tensor(a!)")
    .Infer(InferNormalInplace)
    .Backward(ZeroGrads)
    .Sbp(sbp::Family("random_fill"))
    .Autocast(amp::kNone)
    .Traits(kRandom);
// Integers uniformly from [from, to): random_() covers the dtype's range (for
// floating types [0, 2^mantissa digits]), random_(to) starts at 0. The
// overloads are tried in this order.
OF_OP("random_(Tensor(a!) self, *, Generator? generator=None) -> Tensor(a!)")
    .Infer(InferRandom)
    .Backward(ZeroGrads)
    .Sbp(sbp::Family("random_fill"))
    .Autocast(amp::kNone)
    .Traits(kRandom);
OF_OP("random_.to(Tensor(a!) self, int to, *, Generator? generator=None) -> Tensor(a!)")
    .Infer(InferRandom)
    .Backward(ZeroGrads)
    .Sbp(sbp::Family("random_fill"))
    .Autocast(amp::kNone)
    .Traits(kRandom);
OF_OP(
    "random_.from(Tensor(a!) self, int from, int? to, *, Generator? generator=None) -> "
    "Tensor(a!)")
    .Infer(InferRandom)
    .Backward(ZeroGrads)
    .Sbp(sbp::Family("random_fill"))
    .Autocast(amp::kNone)
    .Traits(kRandom);
OF_OP("bernoulli(Tensor self, *, Generator? generator=None) -> Tensor")
    .Infer(InferBernoulli)
    .Backward(ZeroGrads)
    .Sbp(sbp::Family("random"))
    .Autocast(amp::kNone)
    .Traits(kRandom);
OF_OP("bernoulli.p(Tensor self, float p, *, Generator? generator=None) -> Tensor")
    .Infer(InferBernoulliFloat)
    .Backward(ZeroGrads)
    .Sbp(sbp::Family("random"))
    .Autocast(amp::kNone)
    .Traits(kRandom);
OF_OP("bernoulli_.float(Tensor(a!) self, float p=0.5, *, Generator? generator=None) -> Tensor(a!)")
    .Infer(InferBernoulliFloat)
    .Backward(ZeroGrads)
    .Sbp(sbp::Family("random_fill"))
    .Autocast(amp::kNone)
    .Traits(kRandom);
OF_OP("bernoulli_.Tensor(Tensor(a!) self, Tensor p, *, Generator? generator=None) -> Tensor(a!)")
    .Infer(InferBernoulliTensor)
    .Backward(ZeroGrads)
    .Sbp(sbp::Family("random_inplace"))
    .Autocast(amp::kNone)
    .Traits(kRandom);
OF_OP("normal.Tensor_float(Tensor mean, float std=1, *, Generator? generator=None) -> Tensor")
    .Infer(InferNormal)
    .Backward(ZeroGrads)
    .Sbp(sbp::Family("random"))
    .Autocast(amp::kNone)
    .Traits(kRandom);
OF_OP("normal.float_Tensor(float mean, Tensor std, *, Generator? generator=None) -> Tensor")
    .Infer(InferNormal)
    .Backward(ZeroGrads)
    .Sbp(sbp::Family("random"))
    .Autocast(amp::kNone)
    .Traits(kRandom);
OF_OP("normal.Tensor_Tensor(Tensor mean, Tensor std, *, Generator? generator=None) -> Tensor")
    .Infer(InferNormal)
    .Backward(ZeroGrads)
    .Sbp(sbp::Family("random"))
    .Autocast(amp::kNone)
    .Traits(kRandom);
OF_OP(
    "normal.float_float(float mean, float std, int[] size, *, Generator? generator=None, "
    "ScalarType? dtype=None, Device? device=None) -> Tensor")
    .Infer(InferNormalCreation)
    .NonDifferentiable()
    .Sbp(sbp::Family("random"))
    .Autocast(amp::kNone)
    .Traits(kRandom);
OF_OP(
    "randperm(int n, *, Generator? generator=None, ScalarType? dtype=None, Device? device=None) "
    "-> Tensor")
    .Infer(InferRandperm)
    .NonDifferentiable()
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kNone)
    .Traits(kRandom);

}  // namespace
}  // namespace defs
}  // namespace oneflow
