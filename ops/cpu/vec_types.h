#ifndef OPS_CPU_VEC_TYPES_H_
#define OPS_CPU_VEC_TYPES_H_

// GCC vector types of the hand-vectorized kernels (vec_math.inc) and the
// integer vector of each float vector's width (int32 for a float).

#include <cstdint>
#include <cstring>
#include <type_traits>

#if defined(__x86_64__)
#include <immintrin.h>  // the intrinsics vec_math.inc uses
#endif

#include "ops/cpu/isa.h"

namespace oneflow {
namespace cpu {

typedef float VF4 __attribute__((vector_size(16)));
typedef float VF8 __attribute__((vector_size(32)));
typedef float VF16 __attribute__((vector_size(64)));
typedef int32_t VI4 __attribute__((vector_size(16)));
typedef int32_t VI8 __attribute__((vector_size(32)));
typedef int32_t VI16 __attribute__((vector_size(64)));

template <class V>
struct IntVecOf;
template <>
struct IntVecOf<float> {
  using type = int32_t;
};
template <>
struct IntVecOf<VF4> {
  using type = VI4;
};
template <>
struct IntVecOf<VF8> {
  using type = VI8;
};
template <>
struct IntVecOf<VF16> {
  using type = VI16;
};

}  // namespace cpu
}  // namespace oneflow

#endif  // OPS_CPU_VEC_TYPES_H_
