// CPU kernels of the fused optimizer steps _fused_sgd_, _fused_adam_ and _fused_adamw_
// (ops/defs/optim.cc).
//
// Each parameter is updated in one pass: per element, the parameter, gradient and state
// are read once and written once, so a step costs one sweep over memory instead of the
// six to ten elementwise ops of the per-parameter path. The arithmetic is the per-
// parameter path's, in the same order (lerp for the first moment, v * beta2 + (1 - beta2)
// * g * g, sqrt(v) / sqrt(1 - beta2^t) + eps, p + (-lr / (1 - beta1^t)) * m / denom), so
// the two agree to float rounding. 16-bit parameters are computed in float.
//
// The loops run with the instruction set KernelIsa() picks (ONEFLOW_VEC_ISA=avx2|baseline
// caps it). SGD's is compiled once per set from one template (RunForKernelIsa).
// Adam's needs sqrt and division in vectors, which the compiler keeps scalar without
// -fno-math-errno, so float32/float64 have a loop over GCC vectors of the set's width
// (one template for both types, this file compiled once per set through
// isa_regions.inc), and a scalar loop for the rest (16-bit types, tails).

#ifndef OF_ISA

#include <cmath>
#include <cstring>
#include <string>
#include <type_traits>

#include "core/runtime/tensor_ops.h"
#include "ops/api/ops.h"
#include "ops/cpu/isa.h"
#include "ops/cpu/loops.h"
#include "ops/cpu/vec_types.h"
#include "ops/defs/common.h"

namespace oneflow {
namespace cpu {
namespace {

constexpr DeviceType kCPU = DeviceType::kCPU;

// Elements per thread chunk: one sweep is memory bound, so chunks only need to be large
// enough to amortize the parallel region.
constexpr int64_t kOptimGrain = 65536;

// The checks every list of a call passes: same length as params (or empty where
// allowed), and every tensor a dense CPU tensor with the parameter's dtype and size.
void CheckList(const std::string& op, const TensorList& params, const TensorList& list,
               const char* what, bool writable) {
  OF_CHECK(list.size() == params.size(), RuntimeError, op, ": expected ", params.size(), " ", what,
           ", got ", list.size());
  for (size_t i = 0; i < list.size(); ++i) {
    const TensorImplPtr& p = params[i];
    const TensorImplPtr& t = list[i];
    OF_CHECK(t->device().type == kCPU && p->device().type == kCPU, RuntimeError, op,
             ": expected CPU tensors (", what, "[", i, "])");
    OF_CHECK(t->dtype() == p->dtype(), RuntimeError, op, ": ", what, "[", i, "] has dtype ",
             DTypeName(t->dtype()), " but the parameter has ", DTypeName(p->dtype()));
    OF_CHECK(t->shape() == p->shape(), RuntimeError, op, ": ", what, "[", i, "] has shape ",
             ShapeToString(t->shape()), " but the parameter has ", ShapeToString(p->shape()));
    OF_CHECK(!writable || t->is_contiguous(), RuntimeError, op, ": ", what, "[", i,
             "] must be contiguous");
  }
}

// ---- SGD ----------------------------------------------------------------------------

struct SgdScalars {
  double weight_decay, momentum, lr, dampening;
  bool nesterov, maximize, first;
};

// The loop with its options as template arguments, so that every variant is a
// branch-free loop the compiler vectorizes (maximize is an exact multiply by -1).
template <typename T, bool kWd, bool kMu, bool kFirst, bool kNesterov>
OF_INLINE void SgdLoop(const SgdScalars& s, T* __restrict p, const T* __restrict g,
                       T* __restrict buf, int64_t b, int64_t e) {
  using A = AccT<T>;
  const A sign = s.maximize ? A(-1) : A(1), wd = static_cast<A>(s.weight_decay);
  const A mu = static_cast<A>(s.momentum), keep = static_cast<A>(1 - s.dampening);
  const A neg_lr = static_cast<A>(-s.lr);
  for (int64_t i = b; i < e; ++i) {
    A gi = static_cast<A>(g[i]) * sign;
    const A pi = static_cast<A>(p[i]);
    if constexpr (kWd) gi = gi + wd * pi;
    if constexpr (kMu) {
      A bi = kFirst ? gi : static_cast<A>(buf[i]) * mu + keep * gi;
      buf[i] = static_cast<T>(bi);
      if constexpr (!std::is_same_v<T, A>) bi = static_cast<A>(buf[i]);
      gi = kNesterov ? gi + mu * bi : bi;
    }
    p[i] = static_cast<T>(pi + neg_lr * gi);
  }
}

template <typename T, bool kWd, bool kMu, bool kFirst, bool kNesterov>
void SgdPick(const SgdScalars& s, T* p, const T* g, T* buf, int64_t b, int64_t e) {
  RunForKernelIsa(
      [&]() OF_INLINE_LAMBDA { SgdLoop<T, kWd, kMu, kFirst, kNesterov>(s, p, g, buf, b, e); });
}

// The variant for the call's options (momentum off makes first/nesterov irrelevant).
template <typename T>
void SgdRange(const SgdScalars& s, T* p, const T* g, T* buf, int64_t b, int64_t e) {
  const bool wd = s.weight_decay != 0;
  if (s.momentum == 0) {
    return wd ? SgdPick<T, true, false, false, false>(s, p, g, buf, b, e)
              : SgdPick<T, false, false, false, false>(s, p, g, buf, b, e);
  }
  const int variant = (wd ? 4 : 0) | (s.first ? 2 : 0) | (s.nesterov ? 1 : 0);
  switch (variant) {
    case 0:
      return SgdPick<T, false, true, false, false>(s, p, g, buf, b, e);
    case 1:
      return SgdPick<T, false, true, false, true>(s, p, g, buf, b, e);
    case 2:
      return SgdPick<T, false, true, true, false>(s, p, g, buf, b, e);
    case 3:
      return SgdPick<T, false, true, true, true>(s, p, g, buf, b, e);
    case 4:
      return SgdPick<T, true, true, false, false>(s, p, g, buf, b, e);
    case 5:
      return SgdPick<T, true, true, false, true>(s, p, g, buf, b, e);
    case 6:
      return SgdPick<T, true, true, true, false>(s, p, g, buf, b, e);
    default:
      return SgdPick<T, true, true, true, true>(s, p, g, buf, b, e);
  }
}

void FusedSgdKernel(OpCall& c) {
  const std::string op = c.name();
  namespace a = arg::_fused_sgd_;
  const TensorList& params = c.args[a::params].tensors();
  const TensorList& grads = c.args[a::grads].tensors();
  const TensorList& bufs = c.args[a::momentum_buffer_list].tensors();
  SgdScalars s{c.get(a::weight_decay), c.get(a::momentum), c.get(a::lr),
               c.get(a::dampening),    c.get(a::nesterov), c.get(a::maximize),
               c.get(a::is_first_step)};
  CheckList(op, params, params, "params", true);
  CheckList(op, params, grads, "grads", false);
  if (s.momentum != 0) CheckList(op, params, bufs, "momentum_buffer_list", true);
  for (size_t k = 0; k < params.size(); ++k) {
    const TensorImplPtr& p = params[k];
    TensorImplPtr g = Contiguous(grads[k]);
    TensorImplPtr buf = s.momentum != 0 ? bufs[k] : nullptr;
    DispatchFloating(p->dtype(), op.c_str(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      T* pp = reinterpret_cast<T*>(p->data());
      const T* pg = reinterpret_cast<const T*>(g->data());
      T* pb = buf ? reinterpret_cast<T*>(buf->data()) : nullptr;
      ParallelFor(p->numel(), kOptimGrain,
                  [&](int64_t b, int64_t e) { SgdRange<T>(s, pp, pg, pb, b, e); });
    });
    p->BumpVersion();
    if (buf) buf->BumpVersion();
  }
}
OF_KERNEL("_fused_sgd_", kCPU, kFloatingDTypes, &FusedSgdKernel);

// ---- Adam / AdamW -------------------------------------------------------------------

// Per-parameter constants, rounded to the compute type as the per-parameter path's
// Python-number operands are.
template <typename A>
struct AdamConsts {
  A decay;       // p *= decay (decoupled weight decay), 1 when off
  A wd;          // g += wd * p (coupled weight decay), 0 when off
  A w;           // lerp weight 1 - beta1
  bool w_small;  // lerp formula: |w| < 0.5
  A beta2, one_minus_beta2;
  A bc2_sqrt;  // sqrt(1 - beta2^t)
  A eps;
  A neg_step;  // -lr / (1 - beta1^t)
  bool amsgrad, maximize, coupled, decoupled;
};

template <typename T, typename A>
inline void AdamScalar(const AdamConsts<A>& k, T* p, const T* g, T* m, T* v, T* vmax, int64_t b,
                       int64_t e) {
  for (int64_t i = b; i < e; ++i) {
    A gi = static_cast<A>(g[i]);
    A pi = static_cast<A>(p[i]);
    if (k.maximize) gi = -gi;
    if (k.decoupled) pi = pi * k.decay;
    if (k.coupled) gi = gi + k.wd * pi;
    const A mi0 = static_cast<A>(m[i]);
    const A mi = k.w_small ? mi0 + k.w * (gi - mi0) : gi - (gi - mi0) * (A(1) - k.w);
    A vi = static_cast<A>(v[i]) * k.beta2;
    vi = vi + k.one_minus_beta2 * gi * gi;
    m[i] = static_cast<T>(mi);
    v[i] = static_cast<T>(vi);
    A vh = static_cast<A>(v[i]);
    if (k.amsgrad) {
      // clamp_(min=v) of the running maximum: a NaN in either operand propagates.
      const A vm = static_cast<A>(vmax[i]);
      vh = std::isnan(vm) ? vm : (std::isnan(vh) || vh > vm ? vh : vm);
      vmax[i] = static_cast<T>(vh);
      vh = static_cast<A>(vmax[i]);
    }
    const A denom = std::sqrt(vh) / k.bc2_sqrt + k.eps;
    p[i] = static_cast<T>(pi + k.neg_step * static_cast<A>(static_cast<T>(mi)) / denom);
  }
}

}  // namespace
}  // namespace cpu
}  // namespace oneflow

// ---- the per-instruction-set copies of Adam's vector loop ---------------------------

#define OF_ISA_FILE "ops/cpu/optim_kernels.cc"
#include "ops/cpu/isa_regions.inc"  // NOLINT(build/include)
#undef OF_ISA_FILE

namespace oneflow {
namespace cpu {
namespace {

template <typename T>
void AdamRange(const AdamConsts<AccT<T>>& k, T* p, const T* g, T* m, T* v, T* vmax, int64_t b,
               int64_t e) {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    OF_ISA_SWITCH(AdamVector(k, p, g, m, v, vmax, b, e));
  } else {
    AdamScalar<T, AccT<T>>(k, p, g, m, v, vmax, b, e);
  }
}

// The step counter as a number (a one-element floating or integer tensor).
double StepValue(const std::string& op, const TensorImplPtr& t, size_t i) {
  OF_CHECK(t->numel() == 1, RuntimeError, op, ": state_steps[", i, "] must have one element");
  double out = 0;
  DispatchAll(t->dtype(), op.c_str(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    out = static_cast<double>(*reinterpret_cast<const T*>(t->data()));
  });
  return out;
}

void FusedAdamKernel(OpCall& c, bool decoupled) {
  const std::string op = c.name();
  namespace a = arg::_fused_adam_;  // _fused_adamw_ has the same arguments
  const TensorList& params = c.args[a::params].tensors();
  const TensorList& grads = c.args[a::grads].tensors();
  const TensorList& exp_avgs = c.args[a::exp_avgs].tensors();
  const TensorList& exp_avg_sqs = c.args[a::exp_avg_sqs].tensors();
  const TensorList& max_exp_avg_sqs = c.args[a::max_exp_avg_sqs].tensors();
  const TensorList& steps = c.args[a::state_steps].tensors();
  const double lr = c.get(a::lr), beta1 = c.get(a::beta1);
  const double beta2 = c.get(a::beta2), weight_decay = c.get(a::weight_decay);
  const double eps = c.get(a::eps);
  const bool amsgrad = c.get(a::amsgrad), maximize = c.get(a::maximize);
  CheckList(op, params, params, "params", true);
  CheckList(op, params, grads, "grads", false);
  CheckList(op, params, exp_avgs, "exp_avgs", true);
  CheckList(op, params, exp_avg_sqs, "exp_avg_sqs", true);
  if (amsgrad) CheckList(op, params, max_exp_avg_sqs, "max_exp_avg_sqs", true);
  OF_CHECK(steps.size() == params.size(), RuntimeError, op, ": expected ", params.size(),
           " state_steps, got ", steps.size());
  for (size_t i = 0; i < params.size(); ++i) {
    const TensorImplPtr& p = params[i];
    TensorImplPtr g = Contiguous(grads[i]);
    const double step = StepValue(op, steps[i], i);
    DispatchFloating(p->dtype(), op.c_str(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      using A = AccT<T>;
      AdamConsts<A> k;
      k.decoupled = decoupled && weight_decay != 0;
      k.coupled = !decoupled && weight_decay != 0;
      k.decay = static_cast<A>(1 - lr * weight_decay);
      k.wd = static_cast<A>(weight_decay);
      k.w = static_cast<A>(1 - beta1);
      k.w_small = std::abs(k.w) < A(0.5);
      k.beta2 = static_cast<A>(beta2);
      k.one_minus_beta2 = static_cast<A>(1 - beta2);
      k.bc2_sqrt = static_cast<A>(std::pow(1 - std::pow(beta2, step), 0.5));
      k.eps = static_cast<A>(eps);
      k.neg_step = static_cast<A>(-(lr / (1 - std::pow(beta1, step))));
      k.amsgrad = amsgrad;
      k.maximize = maximize;
      T* pp = reinterpret_cast<T*>(p->data());
      const T* pg = reinterpret_cast<const T*>(g->data());
      T* pm = reinterpret_cast<T*>(exp_avgs[i]->data());
      T* pv = reinterpret_cast<T*>(exp_avg_sqs[i]->data());
      T* pvm = amsgrad ? reinterpret_cast<T*>(max_exp_avg_sqs[i]->data()) : nullptr;
      ParallelFor(p->numel(), kOptimGrain,
                  [&](int64_t b, int64_t e) { AdamRange<T>(k, pp, pg, pm, pv, pvm, b, e); });
    });
    p->BumpVersion();
    exp_avgs[i]->BumpVersion();
    exp_avg_sqs[i]->BumpVersion();
    if (amsgrad) max_exp_avg_sqs[i]->BumpVersion();
  }
}
void FusedAdamOnly(OpCall& c) { FusedAdamKernel(c, /*decoupled=*/false); }
void FusedAdamW(OpCall& c) { FusedAdamKernel(c, /*decoupled=*/true); }
OF_KERNEL("_fused_adam_", kCPU, kFloatingDTypes, &FusedAdamOnly);
OF_KERNEL("_fused_adamw_", kCPU, kFloatingDTypes, &FusedAdamW);

}  // namespace
}  // namespace cpu
}  // namespace oneflow

#else  // OF_ISA: Adam's vector loop for one instruction set ------------------------------

namespace oneflow {
namespace cpu {
namespace {
namespace OF_ISA {

// Vectors of T as wide as the set's registers (OF_ISA_VEC is its float vector).
template <typename T>
struct Simd {
  typedef T V __attribute__((vector_size(sizeof(OF_ISA_VEC))));
  static constexpr int kN = sizeof(V) / sizeof(T);
  static OF_INLINE V Load(const T* p) {
    V x;
    std::memcpy(&x, p, sizeof(V));
    return x;
  }
  static OF_INLINE void Store(T* p, const V& x) { std::memcpy(p, &x, sizeof(V)); }
  // x in every lane (exactly: 0 + x would turn -0 into +0).
  static OF_INLINE V Splat(T x) {
    V r{};
    for (int i = 0; i < kN; ++i) r[i] = x;
    return r;
  }
  // The correctly rounded square root, as std::sqrt gives it.
  static OF_INLINE V Sqrt(const V& x) {
#if defined(__x86_64__)
    constexpr bool kF32 = std::is_same_v<T, float>;
    if constexpr (sizeof(V) == 64) {
      return kF32 ? (V)_mm512_sqrt_ps((__m512)x) : (V)_mm512_sqrt_pd((__m512d)x);
    } else if constexpr (sizeof(V) == 32) {
      return kF32 ? (V)_mm256_sqrt_ps((__m256)x) : (V)_mm256_sqrt_pd((__m256d)x);
    } else {
      return kF32 ? (V)_mm_sqrt_ps((__m128)x) : (V)_mm_sqrt_pd((__m128d)x);
    }
#else
    V r;
    for (int i = 0; i < kN; ++i) r[i] = std::sqrt(x[i]);
    return r;
#endif
  }
};

// The loop over whole vectors, then the scalar loop for the tail; the arithmetic is
// AdamScalar's, operation by operation.
template <typename T>
OF_INLINE void AdamLoop(const AdamConsts<T>& k, T* p, const T* g, T* m, T* v, T* vmax, int64_t b,
                        int64_t e) {
  using S = Simd<T>;
  using V = typename S::V;
  const V decay = S::Splat(k.decay), wd = S::Splat(k.wd), w = S::Splat(k.w);
  const V one_minus_w = S::Splat(T(1) - k.w);
  const V beta2 = S::Splat(k.beta2), omb2 = S::Splat(k.one_minus_beta2);
  const V bc2 = S::Splat(k.bc2_sqrt), eps = S::Splat(k.eps), neg_step = S::Splat(k.neg_step);
  int64_t i = b;
  for (; i + S::kN <= e; i += S::kN) {
    V gi = S::Load(g + i);
    V pi = S::Load(p + i);
    if (k.maximize) gi = -gi;
    if (k.decoupled) pi = pi * decay;
    if (k.coupled) gi = gi + wd * pi;
    const V mi0 = S::Load(m + i);
    const V mi = k.w_small ? mi0 + w * (gi - mi0) : gi - (gi - mi0) * one_minus_w;
    V vi = S::Load(v + i) * beta2;
    vi = vi + omb2 * gi * gi;
    S::Store(m + i, mi);
    S::Store(v + i, vi);
    if (k.amsgrad) {
      // clamp_(min=v) of the running maximum: a NaN in either operand propagates.
      const V vm = S::Load(vmax + i);
      vi = ((vm != vm) | (vm > vi)) ? vm : vi;
      S::Store(vmax + i, vi);
    }
    const V denom = S::Sqrt(vi) / bc2 + eps;
    S::Store(p + i, pi + neg_step * mi / denom);
  }
  AdamScalar<T, T>(k, p, g, m, v, vmax, i, e);
}

void AdamVector(const AdamConsts<float>& k, float* p, const float* g, float* m, float* v,
                float* vmax, int64_t b, int64_t e) {
  AdamLoop(k, p, g, m, v, vmax, b, e);
}
void AdamVector(const AdamConsts<double>& k, double* p, const double* g, double* m, double* v,
                double* vmax, int64_t b, int64_t e) {
  AdamLoop(k, p, g, m, v, vmax, b, e);
}

}  // namespace OF_ISA
}  // namespace
}  // namespace cpu
}  // namespace oneflow

#endif  // OF_ISA
