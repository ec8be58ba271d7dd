// CPU kernels of clamp, lerp, addcmul and addcdiv (ops/defs/ternary.cc). The
// dispatcher has cast every tensor operand to the compute dtype.

#include <cmath>

#include "ops/cpu/loops.h"
#include "ops/defs/common.h"

namespace oneflow {
namespace cpu {
namespace {

constexpr DeviceType kCPU = DeviceType::kCPU;

// ---- clamp --------------------------------------------------------------------

// max(v, lo) and min(v, hi), propagating NaN from either side.
template <typename A>
A ClampLo(A v, A lo) {
  if constexpr (std::is_floating_point_v<A>) {
    if (std::isnan(v)) return v;
    if (std::isnan(lo)) return lo;
  }
  return v < lo ? lo : v;
}
template <typename A>
A ClampHi(A v, A hi) {
  if constexpr (std::is_floating_point_v<A>) {
    if (std::isnan(v)) return v;
    if (std::isnan(hi)) return hi;
  }
  return v > hi ? hi : v;
}

// A bound that is one value for the whole output: a Scalar, or a tensor with
// one element (a Python number passed to clamp.Tensor).
template <typename T>
bool UniformBound(const Value& v, AccT<T>* out) {
  if (v.is_tensor()) {
    if (v.tensor()->numel() != 1) return false;
    *out = Load<T>(v.tensor()->data());
    return true;
  }
  *out = v.scalar().template To<AccT<T>>();
  return true;
}

// clamp, clamp.Tensor and their in-place twins: same argument indices.
void ClampKernel(OpCall& c) {
  namespace a = arg::clamp;
  DispatchNumeric(c.compute_dtype, c.name().c_str(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = AccT<T>;
    const TensorImpl& x = *c.tensor(a::self);
    TensorImpl& out = *c.outputs[0];
    const Value &lo = c.args[a::min], &hi = c.args[a::max];
    const bool has_lo = !lo.is_none(), has_hi = !hi.is_none();
    A lv{}, hv{};
    const bool lo_uniform = !has_lo || UniformBound<T>(lo, &lv);
    const bool hi_uniform = !has_hi || UniformBound<T>(hi, &hv);
    if (lo_uniform && hi_uniform) {
      if (has_lo && has_hi) {
        UnaryLoop<T, T>(x, out, [lv, hv](A v) { return ClampHi(ClampLo(v, lv), hv); });
      } else if (has_lo) {
        UnaryLoop<T, T>(x, out, [lv](A v) { return ClampLo(v, lv); });
      } else {
        UnaryLoop<T, T>(x, out, [hv](A v) { return ClampHi(v, hv); });
      }
    } else if (has_lo && has_hi) {
      TernaryLoop<T, T>(x, *lo.tensor(), *hi.tensor(), out,
                        [](A v, A l, A h) { return ClampHi(ClampLo(v, l), h); });
    } else if (has_lo) {
      BinaryLoop<T, T>(x, *lo.tensor(), out, [](A v, A l) { return ClampLo(v, l); });
    } else {
      BinaryLoop<T, T>(x, *hi.tensor(), out, [](A v, A h) { return ClampHi(v, h); });
    }
  });
}
OF_KERNEL_WITH_INPLACE("clamp", kCPU, kNumericDTypes, &ClampKernel);
OF_KERNEL("clamp.Tensor", kCPU, kNumericDTypes, &ClampKernel);
OF_KERNEL("clamp_.Tensor", kCPU, kNumericDTypes, &ClampKernel);

// ---- lerp ---------------------------------------------------------------------

// PyTorch's formulation: exact at weight 0 and at weight 1.
template <typename A>
A Lerp(A self, A end, A w) {
  return std::abs(w) < A(0.5) ? self + w * (end - self) : end - (end - self) * (A(1) - w);
}

// lerp.Tensor, lerp.Scalar and their in-place twins: same argument indices.
void LerpKernel(OpCall& c) {
  namespace a = arg::lerp_Tensor;
  DispatchFloating(c.compute_dtype, "lerp", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = AccT<T>;
    A w{};
    if (UniformBound<T>(c.args[a::weight], &w)) {
      BinaryLoop<T, T>(*c.tensor(a::self), *c.tensor(a::end), *c.outputs[0],
                       [w](A s, A e) { return Lerp(s, e, w); });
    } else {
      TernaryLoop<T, T>(*c.tensor(a::self), *c.tensor(a::end), *c.tensor(a::weight), *c.outputs[0],
                        [](A s, A e, A wt) { return Lerp(s, e, wt); });
    }
  });
}
OF_KERNEL("lerp.Tensor", kCPU, kFloatingDTypes, &LerpKernel);
OF_KERNEL("lerp_.Tensor", kCPU, kFloatingDTypes, &LerpKernel);
OF_KERNEL("lerp.Scalar", kCPU, kFloatingDTypes, &LerpKernel);
OF_KERNEL("lerp_.Scalar", kCPU, kFloatingDTypes, &LerpKernel);

// ---- addcmul, addcdiv -----------------------------------------------------------

void AddcmulKernel(OpCall& c) {
  DispatchNumeric(c.compute_dtype, "addcmul", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = AccT<T>;
    namespace a = arg::addcmul;
    const A value = c.get(a::value).template To<A>();
    TernaryLoop<T, T>(*c.tensor(a::self), *c.tensor(a::tensor1), *c.tensor(a::tensor2),
                      *c.outputs[0],
                      [value](A s, A x, A y) { return static_cast<A>(s + value * x * y); });
  });
}
OF_KERNEL_WITH_INPLACE("addcmul", kCPU, kNumericDTypes, &AddcmulKernel);

void AddcdivKernel(OpCall& c) {
  DispatchFloating(c.compute_dtype, "addcdiv", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = AccT<T>;
    namespace a = arg::addcdiv;
    const A value = c.get(a::value).template To<A>();
    TernaryLoop<T, T>(*c.tensor(a::self), *c.tensor(a::tensor1), *c.tensor(a::tensor2),
                      *c.outputs[0], [value](A s, A x, A y) { return s + value * x / y; });
  });
}
OF_KERNEL_WITH_INPLACE("addcdiv", kCPU, kFloatingDTypes, &AddcdivKernel);

}  // namespace
}  // namespace cpu
}  // namespace oneflow
