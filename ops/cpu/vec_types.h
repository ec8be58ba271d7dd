#ifndef OPS_CPU_VEC_TYPES_H_
#define OPS_CPU_VEC_TYPES_H_

// GCC vector types of the hand-vectorized kernels (activation_kernels.cc,
// loss_kernels.cc) and the integer vector of each float vector's width.

#include <cstdint>

#define OF_INLINE inline __attribute__((always_inline))
#define OF_INLINE_LAMBDA __attribute__((always_inline))

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
