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
// caps it). SGD's is compiled once per set from one template (RunForKernelIsa);
// Adam's needs sqrt and division in vectors, which the compiler keeps scalar without
// -fno-math-errno, so float32/float64 have an intrinsics loop (one template over the
// AVX-512 and AVX2 operations) and a scalar loop for the rest (baseline, 16-bit types,
// tails).

#include <immintrin.h>

#include <cmath>
#include <string>
#include <type_traits>

#include "core/runtime/tensor_ops.h"
#include "ops/cpu/isa.h"
#include "ops/cpu/loops.h"
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
  const TensorList& params = c.args[0].tensors();
  const TensorList& grads = c.args[1].tensors();
  const TensorList& bufs = c.args[2].tensors();
  SgdScalars s{c.args[3].to_double(), c.args[4].to_double(), c.args[5].to_double(),
               c.args[6].to_double(), c.args[7].to_bool(),   c.args[8].to_bool(),
               c.args[9].to_bool()};
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

#if defined(__x86_64__)
// The vector operations the loop needs, for float and double, on AVX-512 (W512) and
// AVX2 (W256).
struct Vf32 {
  using T = float;
  using V = __m512;
  static constexpr int kN = 16;
  OF_TARGET_AVX512 static V Load(const T* p) { return _mm512_loadu_ps(p); }
  OF_TARGET_AVX512 static void Store(T* p, V x) { _mm512_storeu_ps(p, x); }
  OF_TARGET_AVX512 static V Set(T x) { return _mm512_set1_ps(x); }
  OF_TARGET_AVX512 static V Add(V a, V b) { return _mm512_add_ps(a, b); }
  OF_TARGET_AVX512 static V Sub(V a, V b) { return _mm512_sub_ps(a, b); }
  OF_TARGET_AVX512 static V Mul(V a, V b) { return _mm512_mul_ps(a, b); }
  OF_TARGET_AVX512 static V Div(V a, V b) { return _mm512_div_ps(a, b); }
  OF_TARGET_AVX512 static V Sqrt(V a) { return _mm512_sqrt_ps(a); }
  OF_TARGET_AVX512 static V Neg(V a) { return _mm512_xor_ps(a, _mm512_set1_ps(-0.0f)); }
  // max(a, b) that keeps a NaN from either side (maxps returns b when either is NaN).
  OF_TARGET_AVX512 static V MaxNan(V a, V b) {
    V r = _mm512_max_ps(a, b);
    __mmask16 a_nan = _mm512_cmp_ps_mask(a, a, _CMP_UNORD_Q);
    return _mm512_mask_mov_ps(r, a_nan, a);
  }
};

struct Vf64 {
  using T = double;
  using V = __m512d;
  static constexpr int kN = 8;
  OF_TARGET_AVX512 static V Load(const T* p) { return _mm512_loadu_pd(p); }
  OF_TARGET_AVX512 static void Store(T* p, V x) { _mm512_storeu_pd(p, x); }
  OF_TARGET_AVX512 static V Set(T x) { return _mm512_set1_pd(x); }
  OF_TARGET_AVX512 static V Add(V a, V b) { return _mm512_add_pd(a, b); }
  OF_TARGET_AVX512 static V Sub(V a, V b) { return _mm512_sub_pd(a, b); }
  OF_TARGET_AVX512 static V Mul(V a, V b) { return _mm512_mul_pd(a, b); }
  OF_TARGET_AVX512 static V Div(V a, V b) { return _mm512_div_pd(a, b); }
  OF_TARGET_AVX512 static V Sqrt(V a) { return _mm512_sqrt_pd(a); }
  OF_TARGET_AVX512 static V Neg(V a) { return _mm512_xor_pd(a, _mm512_set1_pd(-0.0)); }
  OF_TARGET_AVX512 static V MaxNan(V a, V b) {
    V r = _mm512_max_pd(a, b);
    __mmask8 a_nan = _mm512_cmp_pd_mask(a, a, _CMP_UNORD_Q);
    return _mm512_mask_mov_pd(r, a_nan, a);
  }
};

struct Vf32Avx2 {
  using T = float;
  using V = __m256;
  static constexpr int kN = 8;
  OF_TARGET_AVX2 static V Load(const T* p) { return _mm256_loadu_ps(p); }
  OF_TARGET_AVX2 static void Store(T* p, V x) { _mm256_storeu_ps(p, x); }
  OF_TARGET_AVX2 static V Set(T x) { return _mm256_set1_ps(x); }
  OF_TARGET_AVX2 static V Add(V a, V b) { return _mm256_add_ps(a, b); }
  OF_TARGET_AVX2 static V Sub(V a, V b) { return _mm256_sub_ps(a, b); }
  OF_TARGET_AVX2 static V Mul(V a, V b) { return _mm256_mul_ps(a, b); }
  OF_TARGET_AVX2 static V Div(V a, V b) { return _mm256_div_ps(a, b); }
  OF_TARGET_AVX2 static V Sqrt(V a) { return _mm256_sqrt_ps(a); }
  OF_TARGET_AVX2 static V Neg(V a) { return _mm256_xor_ps(a, _mm256_set1_ps(-0.0f)); }
  OF_TARGET_AVX2 static V MaxNan(V a, V b) {
    V r = _mm256_max_ps(a, b);
    return _mm256_blendv_ps(r, a, _mm256_cmp_ps(a, a, _CMP_UNORD_Q));
  }
};

struct Vf64Avx2 {
  using T = double;
  using V = __m256d;
  static constexpr int kN = 4;
  OF_TARGET_AVX2 static V Load(const T* p) { return _mm256_loadu_pd(p); }
  OF_TARGET_AVX2 static void Store(T* p, V x) { _mm256_storeu_pd(p, x); }
  OF_TARGET_AVX2 static V Set(T x) { return _mm256_set1_pd(x); }
  OF_TARGET_AVX2 static V Add(V a, V b) { return _mm256_add_pd(a, b); }
  OF_TARGET_AVX2 static V Sub(V a, V b) { return _mm256_sub_pd(a, b); }
  OF_TARGET_AVX2 static V Mul(V a, V b) { return _mm256_mul_pd(a, b); }
  OF_TARGET_AVX2 static V Div(V a, V b) { return _mm256_div_pd(a, b); }
  OF_TARGET_AVX2 static V Sqrt(V a) { return _mm256_sqrt_pd(a); }
  OF_TARGET_AVX2 static V Neg(V a) { return _mm256_xor_pd(a, _mm256_set1_pd(-0.0)); }
  OF_TARGET_AVX2 static V MaxNan(V a, V b) {
    V r = _mm256_max_pd(a, b);
    return _mm256_blendv_pd(r, a, _mm256_cmp_pd(a, a, _CMP_UNORD_Q));
  }
};

// The loop over whole vectors of W, then the scalar loop for the tail; inlined into
// the copy compiled for W's instruction set (AdamAvx512, AdamAvx2).
template <typename W>
OF_INLINE void AdamVector(const AdamConsts<typename W::T>& k, typename W::T* p,
                          const typename W::T* g, typename W::T* m, typename W::T* v,
                          typename W::T* vmax, int64_t b, int64_t e) {
  using T = typename W::T;
  using V = typename W::V;
  const V decay = W::Set(k.decay), wd = W::Set(k.wd), w = W::Set(k.w);
  const V one_minus_w = W::Set(T(1) - k.w);
  const V beta2 = W::Set(k.beta2), omb2 = W::Set(k.one_minus_beta2);
  const V bc2 = W::Set(k.bc2_sqrt), eps = W::Set(k.eps), neg_step = W::Set(k.neg_step);
  int64_t i = b;
  for (; i + W::kN <= e; i += W::kN) {
    V gi = W::Load(g + i);
    V pi = W::Load(p + i);
    if (k.maximize) gi = W::Neg(gi);
    if (k.decoupled) pi = W::Mul(pi, decay);
    if (k.coupled) gi = W::Add(gi, W::Mul(wd, pi));
    const V mi0 = W::Load(m + i);
    const V mi = k.w_small ? W::Add(mi0, W::Mul(w, W::Sub(gi, mi0)))
                           : W::Sub(gi, W::Mul(W::Sub(gi, mi0), one_minus_w));
    V vi = W::Mul(W::Load(v + i), beta2);
    vi = W::Add(vi, W::Mul(W::Mul(omb2, gi), gi));
    W::Store(m + i, mi);
    W::Store(v + i, vi);
    if (k.amsgrad) {
      // clamp_(min=v) of the running maximum: NaN in either operand propagates.
      vi = W::MaxNan(W::Load(vmax + i), vi);
      W::Store(vmax + i, vi);
    }
    const V denom = W::Add(W::Div(W::Sqrt(vi), bc2), eps);
    W::Store(p + i, W::Add(pi, W::Div(W::Mul(neg_step, mi), denom)));
  }
  AdamScalar<T, T>(k, p, g, m, v, vmax, i, e);
}

template <typename W>
OF_TARGET_AVX512 void AdamAvx512(const AdamConsts<typename W::T>& k, typename W::T* p,
                                 const typename W::T* g, typename W::T* m, typename W::T* v,
                                 typename W::T* vmax, int64_t b, int64_t e) {
  AdamVector<W>(k, p, g, m, v, vmax, b, e);
}

template <typename W>
OF_TARGET_AVX2 void AdamAvx2(const AdamConsts<typename W::T>& k, typename W::T* p,
                             const typename W::T* g, typename W::T* m, typename W::T* v,
                             typename W::T* vmax, int64_t b, int64_t e) {
  AdamVector<W>(k, p, g, m, v, vmax, b, e);
}
#endif

template <typename T>
void AdamRange(const AdamConsts<AccT<T>>& k, T* p, const T* g, T* m, T* v, T* vmax, int64_t b,
               int64_t e) {
#if defined(__x86_64__)
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    constexpr bool kF32 = std::is_same_v<T, float>;
    using W512 = std::conditional_t<kF32, Vf32, Vf64>;
    using W256 = std::conditional_t<kF32, Vf32Avx2, Vf64Avx2>;
    switch (KernelIsa()) {
      case Isa::kAvx512:
        return AdamAvx512<W512>(k, p, g, m, v, vmax, b, e);
      case Isa::kAvx2:
        return AdamAvx2<W256>(k, p, g, m, v, vmax, b, e);
      case Isa::kBaseline:
        break;
    }
  }
#endif
  AdamScalar<T, AccT<T>>(k, p, g, m, v, vmax, b, e);
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
  const TensorList& params = c.args[0].tensors();
  const TensorList& grads = c.args[1].tensors();
  const TensorList& exp_avgs = c.args[2].tensors();
  const TensorList& exp_avg_sqs = c.args[3].tensors();
  const TensorList& max_exp_avg_sqs = c.args[4].tensors();
  const TensorList& steps = c.args[5].tensors();
  const double lr = c.args[6].to_double(), beta1 = c.args[7].to_double();
  const double beta2 = c.args[8].to_double(), weight_decay = c.args[9].to_double();
  const double eps = c.args[10].to_double();
  const bool amsgrad = c.args[11].to_bool(), maximize = c.args[12].to_bool();
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
