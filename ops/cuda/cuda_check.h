#ifndef OPS_CUDA_CUDA_CHECK_H_
#define OPS_CUDA_CUDA_CHECK_H_

// OF_CUDA_CHECK(expr): a failed CUDA runtime call becomes a RuntimeError naming
// the call, its error and where it was made. For host code and .cu files alike.

#include <cuda_runtime.h>

namespace oneflow {
namespace cuda {

// Defined in cuda_runtime.cc.
[[noreturn]] void ThrowCudaError(cudaError_t err, const char* what, const char* file, int line);

}  // namespace cuda
}  // namespace oneflow

#define OF_CUDA_CHECK(expr)                                                     \
  do {                                                                          \
    cudaError_t of_cuda_err_ = (expr);                                          \
    if (of_cuda_err_ != cudaSuccess) {                                          \
      ::oneflow::cuda::ThrowCudaError(of_cuda_err_, #expr, __FILE__, __LINE__); \
    }                                                                           \
  } while (0)

#endif  // OPS_CUDA_CUDA_CHECK_H_
