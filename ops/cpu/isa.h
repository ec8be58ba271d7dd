#ifndef OPS_CPU_ISA_H_
#define OPS_CPU_ISA_H_

// Which vector instruction set the hand-vectorized kernels run with. Kernel
// files compile their hot loops once per set (target attributes) and pick one
// at load time.

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace oneflow {
namespace cpu {

enum class Isa { kBaseline = 0, kAvx2 = 1, kAvx512 = 2 };

// The widest set this CPU supports (AVX-512 F/BW/VL/DQ, else AVX2 with FMA, else
// baseline x86-64), capped by the environment variable `cap_var` when it is
// "avx2" or "baseline" (tests use that to run the narrower builds here).
inline Isa DetectIsa(const char* cap_var) {
  Isa best = Isa::kBaseline;
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq")) {
    best = Isa::kAvx512;
  } else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    best = Isa::kAvx2;
  }
#endif
  const char* cap = std::getenv(cap_var);
  if (cap && std::strcmp(cap, "baseline") == 0) return Isa::kBaseline;
  if (cap && std::strcmp(cap, "avx2") == 0) return std::min(best, Isa::kAvx2);
  return best;
}

}  // namespace cpu
}  // namespace oneflow

#endif  // OPS_CPU_ISA_H_
