#ifndef OPS_CUDA_DEVICE_COMMON_CUH_
#define OPS_CUDA_DEVICE_COMMON_CUH_

// What every .cu file shares: the CUDA type of each dtype, conversions through
// the accumulation type, strided offsets, launch shapes, the stream of the
// current device, error checks and a dtype switch.

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "core/runtime/dtype.h"
#include "ops/cuda/cuda_check.h"
#include "ops/cuda/launch.h"

namespace oneflow {
namespace cuda {

// Defined in cuda_runtime.cc (host code): the current device's stream.
cudaStream_t CurrentStream();

// After a kernel launch: a bad launch configuration shows here.
#define OF_CUDA_LAUNCHED() OF_CUDA_CHECK(cudaGetLastError())

template <typename T>
inline constexpr bool kIsHalf = std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>;

// The type arithmetic runs in: float for the 16-bit floats, the type itself otherwise.
template <typename T>
using Acc = std::conditional_t<kIsHalf<T>, float, T>;

// Converts between any two element types (bool as != 0; 16-bit floats through float).
template <typename To, typename From>
__device__ __forceinline__ To Convert(From v) {
  if constexpr (std::is_same_v<To, From>) {
    return v;
  } else if constexpr (kIsHalf<From>) {
    return Convert<To>(static_cast<float>(v));
  } else if constexpr (std::is_same_v<To, bool>) {
    return v != From(0);
  } else if constexpr (kIsHalf<To>) {
    return To(static_cast<float>(v));
  } else {
    return static_cast<To>(v);
  }
}

// Calls fn(T{}) with the CUDA type of `dtype`.
template <typename Fn>
void SwitchDType(DType dtype, Fn&& fn) {
  switch (dtype) {
    case DType::kBool:
      return fn(bool{});
    case DType::kUInt8:
      return fn(uint8_t{});
    case DType::kInt8:
      return fn(int8_t{});
    case DType::kInt16:
      return fn(int16_t{});
    case DType::kInt32:
      return fn(int32_t{});
    case DType::kInt64:
      return fn(int64_t{});
    case DType::kFloat16:
      return fn(__half{});
    case DType::kBFloat16:
      return fn(__nv_bfloat16{});
    case DType::kFloat32:
      return fn(float{});
    case DType::kFloat64:
      return fn(double{});
  }
}

// Calls fn(T{}) for the floating dtypes only.
template <typename Fn>
void SwitchFloating(DType dtype, Fn&& fn) {
  SwitchDType(dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (kIsHalf<T> || std::is_floating_point_v<T>) fn(tag);
  });
}

inline constexpr int kThreads = 256;

inline unsigned Blocks(int64_t n, int threads = kThreads) {
  int64_t b = (n + threads - 1) / threads;
  if (b < 1) b = 1;
  return static_cast<unsigned>(b < 65536 * 8 ? b : 65536 * 8);
}

#define OF_GRID_STRIDE(i, n)                                                             \
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < (n); \
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)

// Offsets of every operand for the linear index i of the iteration space.
struct Offsets {
  int64_t o[4];
};

template <typename I>
__device__ __forceinline__ Offsets ComputeOffsetsAs(const ElemArgs& a, int64_t i) {
  Offsets r = {{0, 0, 0, 0}};
  I rem = static_cast<I>(i);
  for (int d = a.ndim - 1; d >= 0; --d) {
    const I size = static_cast<I>(a.size[d]);
    const I idx = rem % size;
    rem /= size;
    for (int k = 0; k < 4; ++k) r.o[k] += static_cast<int64_t>(idx) * a.op[k].stride[d];
  }
  return r;
}

// One dim (what Coalesce leaves of dense operands) needs no division; 32-bit
// division is several times cheaper than 64-bit where the indices fit.
__device__ __forceinline__ Offsets ComputeOffsets(const ElemArgs& a, int64_t i) {
  if (a.ndim == 1) {
    return {{i * a.op[0].stride[0], i * a.op[1].stride[0], i * a.op[2].stride[0],
             i * a.op[3].stride[0]}};
  }
  if (a.numel <= 0xffffffffll) return ComputeOffsetsAs<uint32_t>(a, i);
  return ComputeOffsetsAs<int64_t>(a, i);
}

// Block-wide sum of one float per thread (blockDim.x a multiple of 32, <= 1024).
template <typename A>
__device__ __forceinline__ A BlockSum(A v, A* shared) {
  for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (lane == 0) shared[warp] = v;
  __syncthreads();
  const int warps = (blockDim.x + 31) >> 5;
  v = threadIdx.x < warps ? shared[threadIdx.x] : A(0);
  if (warp == 0) {
    for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
    if (lane == 0) shared[0] = v;
  }
  __syncthreads();
  v = shared[0];
  __syncthreads();
  return v;
}

template <typename A>
__device__ __forceinline__ A BlockMax(A v, A* shared) {
  for (int off = 16; off > 0; off >>= 1) {
    A o = __shfl_down_sync(0xffffffffu, v, off);
    v = (o > v || o != o) ? o : v;
  }
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (lane == 0) shared[warp] = v;
  __syncthreads();
  const int warps = (blockDim.x + 31) >> 5;
  v = threadIdx.x < warps ? shared[threadIdx.x] : shared[0];
  if (warp == 0) {
    for (int off = 16; off > 0; off >>= 1) {
      A o = __shfl_down_sync(0xffffffffu, v, off);
      v = (o > v || o != o) ? o : v;
    }
    if (lane == 0) shared[0] = v;
  }
  __syncthreads();
  v = shared[0];
  __syncthreads();
  return v;
}

}  // namespace cuda
}  // namespace oneflow

#endif  // OPS_CUDA_DEVICE_COMMON_CUH_
