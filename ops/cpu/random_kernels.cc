// CPU kernels of the random ops declared in ops/defs/random.cc.
//
// Each kernel reserves an upper bound of Philox counters from its generator,
// then draws in the row-major element order of its output: the values depend
// only on the generator's state, the shape and the dtype, not on strides.
// Float16 and bfloat16 are generated in float precision and rounded.

#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

#include "core/runtime/device_kernels.h"
#include "core/runtime/tensor_ops.h"
#include "core/runtime/view_ops.h"
#include "ops/cpu/loops.h"
#include "ops/defs/common.h"
#include "ops/defs/random.h"

namespace oneflow {
namespace cpu {
namespace {

constexpr DeviceType kCPU = DeviceType::kCPU;

std::shared_ptr<Generator> GeneratorOf(const OpCall& c) {
  const int i = c.op->schema().ArgIndex("generator");
  return GeneratorFor(c.args[i], c.device, c.name().c_str());
}

// Stores f() into every element of `out`, in row-major order.
template <typename T, typename F>
void FillLoop(TensorImpl& out, F&& f) {
  const int64_t n = out.numel();
  if (n == 0) return;
  if (out.is_contiguous()) {
    T* p = reinterpret_cast<T*>(out.data());
    for (int64_t i = 0; i < n; ++i) p[i] = static_cast<T>(f());
    return;
  }
  // Strided loops walk the output's memory order; the draws must follow the
  // logical (row-major) order, so they fill a contiguous buffer first.
  TensorImplPtr dense = TensorImpl::Empty(out.shape(), out.dtype(), out.device());
  T* p = reinterpret_cast<T*>(dense->data());
  for (int64_t i = 0; i < n; ++i) p[i] = static_cast<T>(f());
  GetDeviceKernels(out.device().type).copy(*dense, out);
}

// The next representable value towards -inf.
template <typename T>
T NextDown(T v) {
  if constexpr (std::is_floating_point_v<T>) {
    return std::nextafter(v, -std::numeric_limits<T>::infinity());
  } else {  // Half, BFloat16: step the sign-magnitude bit pattern
    T r = v;
    if ((v.bits & 0x7fffu) == 0) {
      r.bits = 0x8001u;  // +-0 -> the smallest negative subnormal
    } else if (v.bits & 0x8000u) {
      r.bits = static_cast<uint16_t>(v.bits + 1);
    } else {
      r.bits = static_cast<uint16_t>(v.bits - 1);
    }
    return r;
  }
}

// The largest T below `to` (at least `from`): where rounding a draw from
// [from, to) to T reaches `to`, this is used instead.
template <typename T>
T LargestBelow(double to, double from) {
  T b = static_cast<T>(to);
  while (static_cast<double>(b) >= to) b = NextDown(b);
  if (static_cast<double>(b) < from) b = static_cast<T>(from);
  return b;
}

template <typename T>
constexpr bool kIsDouble = std::is_same_v<T, double>;

// Uniform on [0, 1) with the precision of T (two words for double, one else).
template <typename T>
double UniformFor(PhiloxStream& s, int digits) {
  if constexpr (kIsDouble<T>) {
    return s.Uniform53();
  } else {
    return s.Uniform32(digits);
  }
}

// ---- uniform_, normal_ ----------------------------------------------------------

void UniformKernel(OpCall& c) {
  TensorImpl& out = *c.outputs[0];
  const double from = c.get(arg::uniform_::from), to = c.get(arg::uniform_::to);
  auto gen = GeneratorOf(c);
  DispatchFloating(c.compute_dtype, "uniform_", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const int digits = random_detail::MantissaDigits(c.compute_dtype);
    PhiloxStream s = gen->Reserve(CountersFor(out.numel(), kIsDouble<T> ? 2 : 1));
    const T below = LargestBelow<T>(to, from);
    const double width = to - from;
    FillLoop<T>(out, [&]() -> T {
      T v = static_cast<T>(from + UniformFor<T>(s, digits) * width);
      if (static_cast<double>(v) >= to && from < to) v = below;
      return v;
    });
  });
}
OF_KERNEL("uniform_", kCPU, kFloatingDTypes, &UniformKernel);

void NormalInplaceKernel(OpCall& c) {
  TensorImpl& out = *c.outputs[0];
  const double mean = c.get(arg::normal_::mean), std = c.get(arg::normal_::std);
  auto gen = GeneratorOf(c);
  DispatchFloating(c.compute_dtype, "normal_", [&](auto tag) {
    using T = typename decltype(tag)::type;
    PhiloxStream s = gen->Reserve(CountersFor(out.numel(), kIsDouble<T> ? 2 : 1));
    FillLoop<T>(out, [&]() -> T { return static_cast<T>(mean + std * s.Normal(kIsDouble<T>)); });
  });
}
OF_KERNEL("normal_", kCPU, kFloatingDTypes, &NormalInplaceKernel);

// ---- random_ ----------------------------------------------------------------------

void RandomKernel(OpCall& c) {
  TensorImpl& out = *c.outputs[0];
  const random_detail::RandomRange range = random_detail::RangeForRandom(c);
  auto gen = GeneratorOf(c);
  DispatchAll(c.compute_dtype, "random_", [&](auto tag) {
    using T = typename decltype(tag)::type;
    PhiloxStream s = gen->Reserve(CountersFor(out.numel(), 2));
    FillLoop<T>(out, [&]() -> T {
      const uint64_t r = range.span == 0 ? s.Next64() : s.Next64() % range.span;
      const int64_t v = static_cast<int64_t>(static_cast<uint64_t>(range.from) + r);
      if constexpr (std::is_same_v<T, bool>) {
        return v != 0;
      } else {
        return static_cast<T>(v);
      }
    });
  });
}
OF_KERNEL("random_", kCPU, kAllDTypes, &RandomKernel);
OF_KERNEL("random_.to", kCPU, kAllDTypes, &RandomKernel);
OF_KERNEL("random_.from", kCPU, kAllDTypes, &RandomKernel);

// ---- bernoulli --------------------------------------------------------------------

// Draws out[i] = (u < p(i)) ? 1 : 0 with 53-bit uniforms.
template <typename P>
void BernoulliFill(OpCall& c, P&& p) {
  TensorImpl& out = *c.outputs[0];
  auto gen = GeneratorOf(c);
  DispatchAll(c.compute_dtype, c.name().c_str(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    PhiloxStream s = gen->Reserve(CountersFor(out.numel(), 2));
    int64_t i = 0;
    FillLoop<T>(out, [&]() -> T { return static_cast<T>(s.Uniform53() < p(i++) ? 1 : 0); });
  });
}

// The probabilities as contiguous doubles of `shape`; RuntimeError unless all are in [0, 1].
TensorImplPtr Probabilities(const TensorImplPtr& p, const DimVector& shape) {
  TensorImplPtr d = Contiguous(Expand(ToDType(p, DType::kFloat64, false), shape));
  const double* v = reinterpret_cast<const double*>(d->data());
  for (int64_t i = 0; i < d->numel(); ++i) {
    OF_CHECK(v[i] >= 0.0 && v[i] <= 1.0, RuntimeError,
             "Expected p_in >= 0 && p_in <= 1 to be true, but got false. (bernoulli: found a "
             "probability of ",
             v[i], ")");
  }
  return d;
}

void BernoulliTensorKernel(OpCall& c) {
  // bernoulli_.Tensor's p, or bernoulli's self.
  const int p_arg = c.op->schema().ArgIndex("p") >= 0 ? int{arg::bernoulli__Tensor::p}
                                                      : int{arg::bernoulli::self};
  TensorImplPtr probs = Probabilities(c.tensor(p_arg), c.outputs[0]->shape());
  const double* v = reinterpret_cast<const double*>(probs->data());
  BernoulliFill(c, [v](int64_t i) { return v[i]; });
}
OF_KERNEL("bernoulli", kCPU, kFloatingDTypes, &BernoulliTensorKernel);
OF_KERNEL("bernoulli_.Tensor", kCPU, kAllDTypes, &BernoulliTensorKernel);

// bernoulli.p and bernoulli_.float: same argument indices.
void BernoulliScalarKernel(OpCall& c) {
  const double p = c.get(arg::bernoulli_p::p);
  BernoulliFill(c, [p](int64_t) { return p; });
}
OF_KERNEL("bernoulli.p", kCPU, kAllDTypes, &BernoulliScalarKernel);
OF_KERNEL("bernoulli_.float", kCPU, kAllDTypes, &BernoulliScalarKernel);

// ---- normal -----------------------------------------------------------------------

TensorImplPtr AsDoubles(const Value& v) {
  if (v.is_tensor()) return ToDType(v.tensor(), DType::kFloat64, false);
  return Full({}, Scalar::Float(v.to_double()), DType::kFloat64, Device{});
}

// normal.Tensor_float, normal.float_Tensor and normal.Tensor_Tensor: mean and
// std have the same indices (each a tensor or a float).
void NormalKernel(OpCall& c) {
  constexpr int kMean = arg::normal_Tensor_Tensor::mean, kStd = arg::normal_Tensor_Tensor::std;
  TensorImpl& out = *c.outputs[0];
  TensorImplPtr mean = AsDoubles(c.args[kMean]);
  TensorImplPtr std = AsDoubles(c.args[kStd]);
  if (c.args[kStd].is_tensor()) {
    TensorImplPtr s = Contiguous(std);
    const double* v = reinterpret_cast<const double*>(s->data());
    for (int64_t i = 0; i < s->numel(); ++i) {
      OF_CHECK(v[i] >= 0.0, RuntimeError, "normal expects all elements of std >= 0.0 (found ", v[i],
               ")");
    }
  }
  auto gen = GeneratorOf(c);
  DispatchFloating(c.compute_dtype, "normal", [&](auto tag) {
    using T = typename decltype(tag)::type;
    PhiloxStream s = gen->Reserve(CountersFor(out.numel(), kIsDouble<T> ? 2 : 1));
    BinaryLoop<double, T>(*mean, *std, out,
                          [&](double m, double sd) { return m + sd * s.Normal(kIsDouble<T>); });
  });
}
OF_KERNEL("normal.Tensor_float", kCPU, kFloatingDTypes, &NormalKernel);
OF_KERNEL("normal.float_Tensor", kCPU, kFloatingDTypes, &NormalKernel);
OF_KERNEL("normal.Tensor_Tensor", kCPU, kFloatingDTypes, &NormalKernel);

void NormalCreationKernel(OpCall& c) {
  TensorImpl& out = *c.outputs[0];
  const double mean = c.get(arg::normal_float_float::mean),
               std = c.get(arg::normal_float_float::std);
  auto gen = GeneratorOf(c);
  DispatchFloating(c.compute_dtype, "normal", [&](auto tag) {
    using T = typename decltype(tag)::type;
    PhiloxStream s = gen->Reserve(CountersFor(out.numel(), kIsDouble<T> ? 2 : 1));
    FillLoop<T>(out, [&]() -> T { return static_cast<T>(mean + std * s.Normal(kIsDouble<T>)); });
  });
}
OF_KERNEL("normal.float_float", kCPU, kFloatingDTypes, &NormalCreationKernel);

// ---- randperm -----------------------------------------------------------------------

// Fisher-Yates: for i = n-1 .. 1, swap element i with a uniform j in [0, i].
void RandpermKernel(OpCall& c) {
  TensorImpl& out = *c.outputs[0];
  const int64_t n = c.get(arg::randperm::n);
  std::vector<int64_t> perm(static_cast<size_t>(n));
  std::iota(perm.begin(), perm.end(), int64_t{0});
  auto gen = GeneratorOf(c);
  PhiloxStream s = gen->Reserve(CountersFor(static_cast<uint64_t>(n), 2));
  for (int64_t i = n - 1; i > 0; --i) {
    const uint64_t j = s.Next64() % static_cast<uint64_t>(i + 1);
    std::swap(perm[i], perm[j]);
  }
  DispatchNumeric(c.compute_dtype, "randperm", [&](auto tag) {
    using T = typename decltype(tag)::type;
    int64_t i = 0;
    FillLoop<T>(out, [&]() -> T { return static_cast<T>(perm[i++]); });
  });
}
OF_KERNEL("randperm", kCPU, kNumericDTypes, &RandpermKernel);

}  // namespace
}  // namespace cpu
}  // namespace oneflow
