#ifndef OPS_CPU_ISA_H_
#define OPS_CPU_ISA_H_

// Which vector instruction set the hand-vectorized kernels run with, and the
// two ways a kernel file builds its hot loops once per set:
//
//  - Scalar code and `omp simd` loops: write the loop as an OF_INLINE function
//    and call it through RunForKernelIsa; it is inlined into a copy of the
//    caller compiled for each set (target attributes) and vectorized there.
//  - GCC float vectors (vec_math.inc): GCC lowers vector operations for the
//    target of the function that contains them, so those files compile their
//    vector part once per set with ops/cpu/isa_regions.inc and call it through
//    OF_ISA_SWITCH.
//
// One environment variable caps the choice for every kernel:
// ONEFLOW_VEC_ISA=avx2 or =baseline (tests use it to run the narrower builds on
// a machine that has AVX-512).

#include <algorithm>
#include <cstdlib>
#include <cstring>

#define OF_INLINE inline __attribute__((always_inline))
#define OF_INLINE_LAMBDA __attribute__((always_inline))

// The feature lists of the two wide sets, for target attributes and for
// `#pragma GCC target` (OF_PRAGMA(GCC target(OF_AVX2_FEATURES))).
#define OF_AVX512_FEATURES "avx512f,avx512bw,avx512vl,avx512dq,avx2,fma,f16c"
#define OF_AVX2_FEATURES "avx2,fma,f16c"
#define OF_PRAGMA(x) OF_PRAGMA_STRING(x)
#define OF_PRAGMA_STRING(x) _Pragma(#x)

#if defined(__x86_64__)
#define OF_TARGET_AVX512 __attribute__((target(OF_AVX512_FEATURES)))
#define OF_TARGET_AVX2 __attribute__((target(OF_AVX2_FEATURES)))
#else
#define OF_TARGET_AVX512
#define OF_TARGET_AVX2
#endif

namespace oneflow {
namespace cpu {

enum class Isa { kBaseline = 0, kAvx2 = 1, kAvx512 = 2 };

// The set the kernels run with: the widest this CPU supports (AVX-512
// F/BW/VL/DQ, else AVX2 with FMA, else baseline x86-64), capped by
// ONEFLOW_VEC_ISA when it is "avx2" or "baseline". Read once per process.
// (tools/bench/machine.py repeats this rule to print it: keep them in sync.)
inline Isa KernelIsa() {
  static const Isa isa = [] {
    Isa best = Isa::kBaseline;
#if defined(__x86_64__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq")) {
      best = Isa::kAvx512;
    } else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
               __builtin_cpu_supports("f16c")) {
      best = Isa::kAvx2;
    }
#endif
    const char* cap = std::getenv("ONEFLOW_VEC_ISA");
    if (cap && std::strcmp(cap, "baseline") == 0) return Isa::kBaseline;
    if (cap && std::strcmp(cap, "avx2") == 0) return std::min(best, Isa::kAvx2);
    return best;
  }();
  return isa;
}

// f() compiled for each set (f and everything it inlines: make the loops
// OF_INLINE and the lambda OF_INLINE_LAMBDA), run with the one KernelIsa() picked.
template <class F>
OF_TARGET_AVX512 auto RunAvx512(const F& f) {
  return f();
}
template <class F>
OF_TARGET_AVX2 auto RunAvx2(const F& f) {
  return f();
}
template <class F>
auto RunBaseline(const F& f) {
  return f();
}
template <class F>
auto RunForKernelIsa(const F& f) {
#if defined(__x86_64__)
  switch (KernelIsa()) {
    case Isa::kAvx512:
      return RunAvx512(f);
    case Isa::kAvx2:
      return RunAvx2(f);
    case Isa::kBaseline:
      break;
  }
#endif
  return RunBaseline(f);
}

}  // namespace cpu
}  // namespace oneflow

// `return ns::call` with ns the namespace (avx512, avx2 or baseline) of the
// copy that isa_regions.inc compiled for KernelIsa().
#if defined(__x86_64__)
#define OF_ISA_SWITCH(call)              \
  switch (::oneflow::cpu::KernelIsa()) { \
    case ::oneflow::cpu::Isa::kAvx512:   \
      return avx512::call;               \
    case ::oneflow::cpu::Isa::kAvx2:     \
      return avx2::call;                 \
    case ::oneflow::cpu::Isa::kBaseline: \
      break;                             \
  }                                      \
  return baseline::call;
#else
#define OF_ISA_SWITCH(call) return baseline::call;
#endif

#endif  // OPS_CPU_ISA_H_
